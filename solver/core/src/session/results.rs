//! Frequency-domain results of a finished run from the monitors' state (see
//! [`crate::monitors`]): DFT and flux monitors, and far-field surfaces.
use crate::backend::{Backend, BackendError};
use crate::farfield::FarField;
use crate::model::Model;
use crate::monitors::{post, Kind};
use crate::results::{FarFieldRecording, RunResults};

/// Every monitor's result and every far-field box's surfaces, read from the backend's
/// state after the last step (only the monitors' arrays are read).
///
/// `steps`: the steps the run took (the plane waves' incident field is run again on the
/// host for as long, [`crate::scattering`]).
pub fn monitor_results(model: &Model, backend: &mut dyn Backend, steps: usize) -> Result<RunResults, BackendError> {
    let mut out = RunResults::default();
    let mut cross = vec![Vec::new(); model.monitors.len()];
    for (i, m) in model.monitors.iter().enumerate() {
        let pass = m.pass_name();
        let (re, im) = (format!("{pass}/re"), format!("{pass}/im"));
        let mut arrays = backend.read_state(&[&re, &im])?;
        let im = arrays.pop().unwrap_or_default();
        let re = arrays.pop().unwrap_or_default();
        if let Kind::CrossSection { .. } = m.kind {
            cross[i] = post::phasors(m, model.grid.dt, &re, &im);
            continue;
        }
        let (result, surfaces) = post::result(m, &model.grid, &re, &im);
        out.monitors.extend(result);
        if let Kind::FarField {
            theta_step,
            phi_step,
            polarization,
            ..
        } = m.kind
        {
            let rec = FarFieldRecording {
                name: m.name.clone(),
                theta_step,
                phi_step,
                polarization,
                surfaces,
            };
            out.surfaces.push(rec);
        }
    }
    out.cross_sections = crate::scattering::cross_sections(model, &cross, steps);
    crate::scattering::normalise_to_incident(model, &mut out, steps);
    Ok(out)
}

/// The far field of a recorded box, one per frequency (the near-to-far-field transform,
/// [`crate::farfield`]), with gain and realized gain from the driven port among `ports`.
pub fn far_fields(rec: &FarFieldRecording, ports: &[crate::results::PortResult]) -> Vec<FarField> {
    let mut ffs = crate::farfield::compute_all(
        &rec.name,
        &rec.surfaces,
        &crate::farfield::grid(rec.theta_step, 180.0),
        &crate::farfield::grid(rec.phi_step, 360.0),
        ports,
    );
    for f in &mut ffs {
        f.polarization = rec.polarization;
    }
    ffs
}

/// The frequency-domain results of a finished run from its monitors' results
/// ([`monitor_results`]) and its ports' complete (V, I) series: the port results at the
/// model's frequencies, the monitors normalised to 1 W incident at the driven port (with
/// the port transformed exactly at the monitors' own frequencies, see [`normalise`]), and
/// the far fields with the driven port's gain. What the session writes, in one place for
/// every front end and the validation cases.
pub fn complete(model: &Model, monitors: RunResults, series: Option<&crate::runner::PortSeries>) -> RunResults {
    let mut results = monitors;
    let mut at_monitors = Vec::new();
    if let Some(series) = series.filter(|_| !model.ports.is_empty()) {
        if !model.frequencies.is_empty() {
            results.ports = crate::ports::results(model, series);
        }
        let freqs = monitor_frequencies(&results);
        // With a plane wave the monitors stay per the incident wave (cross sections, RCS).
        if !freqs.is_empty() && model.ports.iter().any(|p| p.driven) && model.plane_waves.is_empty() {
            at_monitors = crate::ports::results_at(model, series, &freqs);
            normalise(&mut results, &freqs, &at_monitors);
        }
    }
    results.farfields = results
        .surfaces
        .iter()
        .flat_map(|rec| far_fields(rec, &at_monitors))
        .collect();
    crate::scattering::radar_cross_sections(&mut results);
    results
}

/// Every frequency of the monitors and far-field boxes of `r`, ascending, once each.
pub fn monitor_frequencies(r: &RunResults) -> Vec<f64> {
    let mut f: Vec<f64> = r
        .monitors
        .iter()
        .flat_map(|m| m.freq.iter().copied())
        .chain(r.surfaces.iter().flat_map(|s| s.surfaces.iter().map(|x| x.freq)))
        .collect();
    f.sort_by(f64::total_cmp);
    f.dedup();
    f
}

/// Scale the monitors' phasors, fluxes and far-field surfaces of a run with a driven port
/// to 1 W of incident power at each frequency: phasors are divided by a(f)/√2 (the
/// driven port's incident wave at `freqs`, from `ports`, raw transforms), powers by
/// |a(f)|²/2. Afterwards every power is in W per W incident, like the port's `p_acc`,
/// and phases are relative to the incident wave.
pub fn normalise(r: &mut RunResults, freqs: &[f64], ports: &[crate::results::PortResult]) {
    let Some(driven) = ports.iter().find(|p| p.driven) else {
        return;
    };
    r.per_watt_incident = true;
    let scale = |f: f64| -> Option<num_complex::Complex64> {
        let k = freqs.iter().position(|&x| x == f)?;
        let a = driven.a.get(k)? / std::f64::consts::SQRT_2;
        (a.norm_sqr() > 0.0).then(|| a.inv())
    };
    for m in &mut r.monitors {
        let s: Vec<Option<num_complex::Complex64>> = m.freq.iter().map(|&f| scale(f)).collect();
        for (k, flux) in m.flux.iter_mut().enumerate() {
            if let Some(c) = s.get(k).copied().flatten() {
                *flux *= c.norm_sqr();
            }
        }
        let nf = m.freq.len().max(1);
        for (_, _, values) in &mut m.fields {
            let per = values.len() / nf;
            for (k, chunk) in values.chunks_mut(per.max(1)).enumerate() {
                if let Some(c) = s.get(k).copied().flatten() {
                    chunk.iter_mut().for_each(|v| *v *= c);
                }
            }
        }
    }
    for rec in &mut r.surfaces {
        for surf in &mut rec.surfaces {
            if let Some(c) = scale(surf.freq) {
                for x in &mut surf.samples {
                    x.e.iter_mut().chain(x.h.iter_mut()).for_each(|v| *v *= c);
                }
            }
        }
    }
}

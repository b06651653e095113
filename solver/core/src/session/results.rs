//! Frequency-domain results of a finished run from the monitors' state (see
//! [`crate::monitors`]): DFT and flux monitors, and far-field surfaces.
use crate::backend::{Backend, BackendError};
use crate::farfield::FarField;
use crate::model::Model;
use crate::monitors::{post, Kind};
use crate::results::{FarFieldRecording, RunResults};

/// Every monitor's result and every far-field box's surfaces, read from the backend's
/// state after the last step (only the monitors' arrays are read).
pub fn monitor_results(model: &Model, backend: &mut dyn Backend) -> Result<RunResults, BackendError> {
    let mut out = RunResults::default();
    for m in &model.monitors {
        let pass = m.pass_name();
        let (re, im) = (format!("{pass}/re"), format!("{pass}/im"));
        let mut arrays = backend.read_state(&[&re, &im])?;
        let im = arrays.pop().unwrap_or_default();
        let re = arrays.pop().unwrap_or_default();
        let (result, surfaces) = post::result(m, &model.grid, &re, &im);
        out.monitors.extend(result);
        if let Kind::FarField { theta_step, phi_step } = m.kind {
            let rec = FarFieldRecording {
                name: m.name.clone(),
                theta_step,
                phi_step,
                surfaces,
            };
            out.surfaces.push(rec);
        }
    }
    Ok(out)
}

/// The far field of a recorded box, one per frequency (the near-to-far-field transform,
/// [`crate::farfield`]), with gain and realized gain from the driven port among `ports`.
pub fn far_fields(rec: &FarFieldRecording, ports: &[crate::results::PortResult]) -> Vec<FarField> {
    crate::farfield::compute_all(
        &rec.name,
        &rec.surfaces,
        &crate::farfield::grid(rec.theta_step, 180.0),
        &crate::farfield::grid(rec.phi_step, 360.0),
        ports,
    )
}

//! Frequency-domain monitors against independent results: a DFT monitor's phasor against
//! the transform of a probe's time series, and the power flux of a Hertzian dipole
//! against the analytic radiated power of a current element.
use super::{largest, BackendSpec, Bound, Case, CaseError, CaseResult, Ctx, Size};
use fdtd_core::results::RunResults;
use fdtd_core::runner::{run as run_model, MemorySink, RunOptions};
use fdtd_core::session::results::monitor_results;
use fdtd_core::{Component, C0, ETA0};
use num_complex::Complex64;
use std::f64::consts::PI;
use std::sync::Arc;

/// Run `text` on the case's backend; the probe series and the monitors' results.
pub(super) fn run_with_results(
    cx: &mut Ctx,
    text: &str,
) -> Result<(Arc<fdtd_core::Simulation>, MemorySink, RunResults), CaseError> {
    let model = super::model(text);
    let mut backend = cx.backend(&model)?;
    let mut sink = MemorySink::new(&model);
    let summary = run_model(&model, backend.as_mut(), &mut sink, &RunOptions::default(), None)?;
    cx.stepped(
        &model,
        summary.steps_done - summary.first_step,
        summary.stepping.as_secs_f64(),
    );
    let results = monitor_results(&model, backend.as_mut(), summary.steps_done)?;
    Ok((model, sink, results))
}

/// X(f) = Σ x(t_n)·e^{−j2πf·t_n}·dt in f64.
fn transform(times: &[f64], values: impl Iterator<Item = f64>, f: f64, dt: f64) -> Complex64 {
    times
        .iter()
        .zip(values)
        .map(|(&t, v)| Complex64::from_polar(v * dt, -2.0 * PI * f * t))
        .sum()
}

pub const SIGNAL: Case = Case {
    name: "dft-signal",
    about: "DFT monitor phasor = transform of the probe series at the same sample (Ez, Hy)",
    run: signal,
};

const FREQS: [f64; 3] = [3e9, 6e9, 9e9];

/// A soft Ez current (gaussian derivative, 6 GHz) in a 24³ vacuum box with an 8-cell
/// CPML; a DFT monitor and a probe (every step) at one sample 3 cells away, Ez and Hy,
/// run for 1 ns, by which time the fields there have decayed by far more than 1e-6 of
/// their peak. The monitor accumulates every `every` steps (here 2: f_max = 18.2 GHz,
/// the sources' −40 dB point, 1/(10·f_max·dt) = 2.9) with fixed-point phases; the
/// reference is the f64 transform of every probe sample at its own time. They differ by
/// (a) the decimation: the spectral content above 9 × f_max that aliases down, far below
/// 1e-8 of the peak for a gaussian; (b) the f32 sums of ~260 terms (~1e-6 relative) and
/// the f32 cos/sin (~1e-7); (c) the frequency's quantisation to 2⁻³² cycles per step, a
/// phase error of ≤ 2⁻³³·2π·n ≈ 4e-7 rad over the run. The bound is 1e-4 of |X| at
/// each frequency.
fn signal(spec: &BackendSpec, size: Size) -> Result<CaseResult, CaseError> {
    let _ = size;
    let mut cx = Ctx::new(SIGNAL.name, spec, size);
    let text = format!(
        r#"
[domain]
cell = 1e-3
cells = [24, 24, 24]
[time]
duration = 1e-9
[boundaries]
all = "cpml"
[boundaries.cpml]
cells = 8
[[sources]]
type = "current"
component = "Ez"
position = [0.012, 0.012, 0.0125]
waveform = {{ type = "gaussian_derivative", frequency = 6e9, amplitude = 1e-3 }}
[[probes]]
name = "p"
position = [0.015, 0.012, 0.0125]
components = ["Ez", "Hy"]
[[monitors]]
name = "m"
type = "dft"
components = ["Ez", "Hy"]
frequencies = {freqs:?}
box = {{ min = [0.015, 0.012, 0.0125], max = [0.015, 0.012, 0.0125] }}
"#,
        freqs = FREQS
    );
    let (model, sink, results) = run_with_results(&mut cx, &text)?;
    let m = &results.monitors[0];
    cx.log(format!("monitor every {} steps", model.monitors[0].every));
    let mut worst = Vec::new();
    for (ci, c) in [Component::Ez, Component::Hy].into_iter().enumerate() {
        let (times, values) = sink.series(&model, "p", c).expect("probe component");
        let probe = &model.probes[0].samples[ci];
        let block = &model.monitors[0].blocks[ci];
        assert_eq!((block.lo, block.component), (probe.index, c), "the same sample");
        for (f, &freq) in FREQS.iter().enumerate() {
            let want = transform(times, values.iter().map(|&v| v as f64), freq, model.grid.dt);
            let got = m.fields[ci].2[f];
            let e = (got - want).norm() / want.norm();
            cx.log(format!(
                "{c} at {:.0} GHz: |X| {:.4e}, rel. error {e:.2e}",
                freq / 1e9,
                want.norm()
            ));
            worst.push((format!("{c} at {:.0} GHz", freq / 1e9), e));
            cx.series(&format!("{c}/{f}"), vec![got.re, got.im]);
        }
    }
    let (which, e) = largest(worst);
    cx.check_worst("|X_monitor − X_probe| / |X_probe|", Bound::Below(1e-4), e, "", which);
    Ok(cx.finish())
}

pub const FLUX: Case = Case {
    name: "dft-flux",
    about: "Hertzian dipole: flux out of two boxes = η(k·|Il(f)|)²/(12π); far-field surface flux = flux monitor",
    run: flux,
};

const FLUX_FREQS: [f64; 3] = [4e9, 6e9, 8e9];

/// A z-directed current element (one Ez edge, a soft derivative-of-gaussian source
/// peaking at 6 GHz) at the centre of a 44-cell vacuum cube of 1 mm cells with an 8-cell
/// CPML, run for 1.5 ns, with `extra` appended (monitors, far-field boxes). Shared by the
/// flux case and the Hertzian far-field case (`antenna.rs`).
pub(super) fn hertzian_cube(extra: &str) -> String {
    let (n, d) = (44usize, 1e-3);
    let c = n as f64 / 2.0 * d;
    format!(
        r#"
[domain]
cell = {d}
cells = [{n}, {n}, {n}]
[time]
duration = 1.5e-9
[boundaries]
all = "cpml"
[boundaries.cpml]
cells = 8
[[sources]]
type = "current"
component = "Ez"
position = [{c}, {c}, {cz}]
waveform = {{ type = "gaussian_derivative", frequency = 6e9, amplitude = 1e-3 }}
{extra}"#,
        cz = c + d / 2.0,
    )
}

/// The box `h` cells around the centre of [`hertzian_cube`], as a scene value.
pub(super) fn centred_box(h: f64) -> String {
    let (c, d) = (22e-3, 1e-3);
    format!(
        "{{ min = [{lo}, {lo}, {lo}], max = [{hi}, {hi}, {hi}] }}",
        lo = c - h * d,
        hi = c + h * d
    )
}

/// A z-directed soft current moment Il(t) (gaussian derivative, 6 GHz) at the centre of a
/// 44³ vacuum box of 1 mm cells with an 8-cell CPML; two flux boxes around it, half-widths
/// 6 and 11 cells (the outer 3 cells inside the CPML), and a far-field box on the outer one.
/// Run 1.5 ns: the pulse has left through the CPML and the residual is < 1e-4 of the peak.
///
/// Theory: a current element radiates P = η·k²·|Il|²/(12π) per spectral component, with
/// Il(f) the transform of the moment at its own times ((n+½)·dt), computed here in f64.
/// Bounds:
/// * flux vs P within 1 %: the Yee cell's current element radiates as the continuum one to
///   O((k·d)²) ((k·d)² ≤ 0.028 at 8 GHz, with a small coefficient: measured +0.06 % at
///   4 GHz rising to +0.2 % at 8 GHz, the (k·d)² trend), the face-centre interpolation of
///   E and H is O((d/r)²) on the reactive near field, which carries no real power over a
///   closed surface, and the CPML's reflection (< −40 dB) adds < 1e-4.
/// * the two boxes within 0.3 %: in a lossless medium Poynting's theorem makes the real
///   flux the same through any closed surface around the source; what differs is the
///   interpolation error and the grid's O((k·d)²) anisotropy seen at two radii (measured
///   ≤ 0.015 %).
/// * the far-field box's surface (the `farfield::Surface` samples) gives the flux monitor's
///   value on the same box to 1e-9: the same records, the same interpolation.
fn flux(spec: &BackendSpec, size: Size) -> Result<CaseResult, CaseError> {
    let mut cx = Ctx::new(FLUX.name, spec, size);
    let text = hertzian_cube(&format!(
        r#"[[monitors]]
name = "inner"
type = "flux"
frequencies = {freqs:?}
box = {inner}
[[monitors]]
name = "outer"
type = "flux"
frequencies = {freqs:?}
box = {outer}
[[farfield]]
name = "ff"
frequencies = {freqs:?}
box = {outer}
"#,
        freqs = FLUX_FREQS,
        inner = centred_box(6.0),
        outer = centred_box(11.0),
    ));
    let (model, _, results) = run_with_results(&mut cx, &text)?;
    let src = &model.sources[0];
    let dt = model.grid.dt;
    let steps = model.grid.steps;
    let times: Vec<f64> = (0..steps).map(|k| src.time(k, dt)).collect();
    let inner = &results.monitors[0].flux;
    let outer = &results.monitors[1].flux;
    let ff = &results.surfaces[0].surfaces;
    let (mut theory, mut boxes, mut surf) = (Vec::new(), Vec::new(), Vec::new());
    for (f, &freq) in FLUX_FREQS.iter().enumerate() {
        let il = transform(&times, times.iter().map(|&t| src.waveform.eval(t)), freq, dt);
        let k = 2.0 * PI * freq / C0;
        let p = ETA0 * k * k * il.norm_sqr() / (12.0 * PI);
        let ff_flux = fdtd_core::monitors::post::flux(&ff[f]);
        cx.log(format!(
            "{:.0} GHz: P theory {p:.5e}, inner {:.5e} ({:+.3} %), outer {:.5e} ({:+.3} %), far-field surface {ff_flux:.5e}",
            freq / 1e9,
            inner[f],
            100.0 * (inner[f] / p - 1.0),
            outer[f],
            100.0 * (outer[f] / p - 1.0)
        ));
        for (name, v) in [("inner", inner[f]), ("outer", outer[f])] {
            theory.push((format!("{name} at {:.0} GHz", freq / 1e9), (v / p - 1.0).abs()));
        }
        boxes.push((format!("{:.0} GHz", freq / 1e9), (inner[f] / outer[f] - 1.0).abs()));
        surf.push((format!("{:.0} GHz", freq / 1e9), (ff_flux / outer[f] - 1.0).abs()));
        cx.series(&format!("flux/{f}"), vec![inner[f], outer[f]]);
    }
    let (w, e) = largest(theory);
    cx.check_worst("|flux / P_dipole − 1|", Bound::Below(0.01), e, "", w);
    let (w, e) = largest(boxes);
    cx.check_worst("|flux inner / flux outer − 1|", Bound::Below(0.003), e, "", w);
    let (w, e) = largest(surf);
    cx.check_worst(
        "|far-field surface flux / flux monitor − 1|",
        Bound::Below(1e-9),
        e,
        "",
        w,
    );
    Ok(cx.finish())
}

//! Antennas end to end: the far field of FDTD runs against closed-form patterns, and a
//! port-fed thin-wire half-wave dipole against an independent thin-wire method-of-moments
//! solution (`crate::reference::wire_mom`), with its energy balance.
//!
//! Both cases go through everything a user's run does after the last step
//! (`session::results::complete`): DFT monitors read from the backend, the port's Z and
//! powers from its V/I series, the monitors normalised to 1 W incident, the
//! near-to-far-field transform with the port's accepted power.
use super::{largest, BackendSpec, Bound, Case, CaseError, CaseResult, Ctx, Size};
use crate::reference::wire_mom;
use fdtd_core::farfield::FarField;
use fdtd_core::ports;
use fdtd_core::results::RunResults;
use fdtd_core::session::results::complete;
use fdtd_core::C0;
use std::f64::consts::PI;
use std::sync::Arc;

pub const HERTZ: Case = Case {
    name: "antenna-hertzian",
    about: "a Hertzian dipole's far field: D = 1.5 (1.76 dBi) within 0.1 dB, pattern sin²θ within 0.02",
    run: hertzian,
};

pub const HALF_WAVE: Case = Case {
    name: "antenna-half-wave",
    about: "a port-fed thin-wire dipole: resonance and R vs thin-wire MoM, D vs 2.15 dBi, P_acc = flux = P_rad",
    run: half_wave,
};

/// Run `text` on the case's backend through the end-of-run results of a session.
pub(super) fn run_results(cx: &mut Ctx, text: &str) -> Result<(Arc<fdtd_core::Simulation>, RunResults), CaseError> {
    let (model, sink, monitors) = super::monitors::run_with_results(cx, text)?;
    let series = (!model.ports.is_empty()).then_some(&sink.ports);
    let results = complete(&model, monitors, series);
    Ok((model, results))
}

/// The largest deviation of a pattern from `shape(θ)` (both normalised to their peak),
/// over every direction of the far field's grid, and where.
pub(super) fn pattern_error(ff: &FarField, shape: impl Fn(f64) -> f64) -> (String, f64) {
    let peak_shape = ff.theta.iter().map(|&t| shape(t)).fold(0.0, f64::max);
    let np = ff.phi.len();
    largest(ff.theta.iter().enumerate().flat_map(|(it, &t)| {
        let want = shape(t) / peak_shape;
        let ff = &ff;
        (0..np).map(move |ip| {
            let got = ff.directivity[it * np + ip] / ff.max_directivity;
            (
                format!("θ {:.0}°, φ {:.0}°", t.to_degrees(), ff.phi[ip].to_degrees()),
                (got - want).abs(),
            )
        })
    }))
}

pub(super) fn dbi(d: f64) -> f64 {
    10.0 * d.log10()
}

/// A z-directed current element (one Ez edge, a soft source) in a 44-cell vacuum cube of
/// 1 mm cells with an 8-cell CPML, and a far-field box 11 cells around it, at 4 and 6 GHz
/// (75 and 50 cells per wavelength).
///
/// Bounds: the exact pattern of a current element is 1.5·sin²θ. What separates the FDTD
/// from it is the grid's dispersion anisotropy (phase-velocity error (kΔ)²/24 ≈ 3e-4 at
/// 50 cells per wavelength, direction-dependent) and the box's midpoint-rule surface
/// integral, ((kh)² + (h/a)²)/24 ≈ 1e-3 of the radiated power with h = Δ, a = 11Δ (the
/// far-field unit tests measure 0.004 dB on a 0.3 λ box of analytic fields): a few
/// thousandths of a dB in D. 0.1 dB (2.3 %) is the issue's bound and holds with margin;
/// 0.02 of the peak in the pattern likewise.
fn hertzian(spec: &BackendSpec, size: Size) -> Result<CaseResult, CaseError> {
    let mut cx = Ctx::new(HERTZ.name, spec, size);
    let text = super::monitors::hertzian_cube(&format!(
        r#"[[farfield]]
name = "ff"
frequencies = [4e9, 6e9]
box = {}
theta_step = 5
phi_step = 15
"#,
        super::monitors::centred_box(11.0)
    ));
    let (_, results) = run_results(&mut cx, &text)?;
    let (mut dd, mut pat) = (Vec::new(), Vec::new());
    for ff in &results.farfields {
        let ghz = format!("{:.0} GHz", ff.freq / 1e9);
        let err_db = dbi(ff.max_directivity) - dbi(1.5);
        let (w, e) = pattern_error(ff, |t| t.sin().powi(2));
        cx.log(format!(
            "{ghz}: D_max {:.4} dBi ({err_db:+.4} dB from 1.761 dBi) at θ {:.0}°, pattern worst {e:.4} at {w}",
            dbi(ff.max_directivity),
            ff.max_at.0.to_degrees()
        ));
        dd.push((ghz.clone(), err_db.abs()));
        pat.push((format!("{ghz}, {w}"), e));
        cx.series(&format!("directivity/{ghz}"), ff.directivity.clone());
    }
    if results.farfields.len() != 2 {
        return Err(CaseError::Failed(format!(
            "expected 2 far fields, got {}",
            results.farfields.len()
        )));
    }
    let (w, e) = largest(dd);
    cx.check_worst("|D_max − 1.761 dBi| (dB)", Bound::AtMost(0.1), e, "", w);
    let (w, e) = largest(pat);
    cx.check_worst("|D/D_max − sin²θ|", Bound::AtMost(0.02), e, "", w);
    Ok(cx.finish())
}

/// Directivity (linear) and normalised pattern of a centre-fed dipole of length `l` with
/// the sinusoidal current I(z) = sin(k(l/2 − |z|)) (Balanis eq. 4-56): the textbook
/// reference for a thin dipole, D = 1.643 (2.15 dBi) at l = λ/2.
pub(super) fn sinusoidal_dipole(l: f64, freq: f64) -> (f64, impl Fn(f64) -> f64) {
    let kl2 = PI * freq / C0 * l;
    let u = move |t: f64| {
        let s = t.sin();
        if s.abs() < 1e-9 {
            return 0.0;
        }
        ((kl2 * t.cos()).cos() - kl2.cos()).powi(2) / (s * s)
    };
    // P ∝ ∫ U sinθ dθ (midpoint rule, 20000 intervals: exact to ~1e-8).
    let m = 20000;
    let h = PI / m as f64;
    let p: f64 = (0..m)
        .map(|i| {
            let t = (i as f64 + 0.5) * h;
            u(t) * t.sin() * h
        })
        .sum::<f64>()
        * 2.0
        * PI;
    let umax = u(PI / 2.0);
    (4.0 * PI * umax / p, u)
}

/// A dipole of two thin PEC wires (`wire` objects: one chain of Ez edges each) of `arm`
/// cells, a one-cell gap with a 73 Ω port, 1 W-normalised far field and flux at the MoM
/// resonance `f_far`; vacuum margins of ≥ 40 mm (x, y) and ≥ 29 mm (z) inside a 10-cell
/// CPML, as in `scenes/antenna.toml` (which is this dipole at 1 mm).
fn dipole_scene(d: f64, arm: usize, f_far: f64) -> String {
    format!(
        r#"{}
[[farfield]]
name = "ff"
frequencies = [{f_far}]
theta_step = 3
phi_step = 15
"#,
        super::wire_radius::scene(d, arm, None)
    )
}

/// One resolution of the half-wave dipole: (resonance error vs MoM, R at resonance).
fn dipole_at(cx: &mut Ctx, d: f64, arm: usize) -> Result<(f64, f64), CaseError> {
    let l = (2 * arm + 1) as f64 * d;
    let label = format!("{:.0} mm cells, L = {:.0} mm", d * 1e3, l * 1e3);
    let (f_mom, r_mom) = wire_mom::fdtd_wire_resonance(l, d, 0.7e9, 1.3e9)
        .ok_or_else(|| CaseError::Failed(format!("{label}: no MoM resonance in 0.7-1.3 GHz")))?;
    let (_, results) = run_results(cx, &dipole_scene(d, arm, f_mom))?;
    let port = results
        .ports
        .first()
        .ok_or_else(|| CaseError::Failed(format!("{label}: no port result")))?;
    let s = ports::summarize(port);
    let (f_res, r_res) = s
        .resonances
        .iter()
        .find(|r| r.2)
        .map(|r| (r.0, r.1))
        .ok_or_else(|| CaseError::Failed(format!("{label}: no resonance (Im Z rising through 0) in the band")))?;
    let ff = results
        .farfields
        .first()
        .ok_or_else(|| CaseError::Failed(format!("{label}: no far field")))?;
    let flux = fdtd_core::monitors::post::flux(&results.surfaces[0].surfaces[0]);
    // The port's accepted power at exactly this frequency (the far field's gain used it).
    let p_acc = ff.radiated_power / ff.efficiency.unwrap_or(f64::NAN);
    let (d_ref, shape) = sinusoidal_dipole(l, ff.freq);
    let f_err = f_res / f_mom - 1.0;
    cx.log(format!(
        "{label}: resonance {:.4} GHz (MoM, radius 0.1985 Δ: {:.4} GHz, {:+.2} %), R {r_res:.2} Ω (MoM {r_mom:.2} Ω)",
        f_res / 1e9,
        f_mom / 1e9,
        100.0 * f_err
    ));
    cx.log(format!(
        "{label}: at {:.4} GHz D_max {:.3} dBi (sinusoidal current {:.3} dBi, λ/2 2.15 dBi), P_acc {p_acc:.4} W, \
         box flux {flux:.4} W, P_rad {:.4} W per W incident",
        ff.freq / 1e9,
        dbi(ff.max_directivity),
        dbi(d_ref),
        ff.radiated_power
    ));
    // O(Δ) end and gap effects (measured 0.6 % per mm of cell) + the radius uncertainty.
    let f_bound = 0.008 * d / 1e-3 + 0.003;
    cx.check(
        format!("{label}: |f_res / f_MoM − 1|"),
        Bound::AtMost(f_bound),
        f_err.abs(),
        "",
    );
    cx.check(
        format!("{label}: R at resonance"),
        Bound::Within(66.0, 78.0),
        r_res,
        "Ω",
    );
    cx.check(
        format!("{label}: |D_max − D(sinusoidal current)| (dB)"),
        Bound::AtMost(0.15),
        (dbi(ff.max_directivity) - dbi(d_ref)).abs(),
        "",
    );
    cx.check(
        format!("{label}: |D_max − 2.15 dBi| (dB)"),
        Bound::AtMost(0.15),
        (dbi(ff.max_directivity) - 2.15).abs(),
        "",
    );
    let (w, e) = pattern_error(ff, shape);
    cx.check_worst(
        format!("{label}: |D/D_max − sinusoidal pattern|"),
        Bound::AtMost(0.02),
        e,
        "",
        w,
    );
    cx.check(
        format!("{label}: |P_rad / P_acc − 1|"),
        Bound::AtMost(0.02),
        (ff.radiated_power / p_acc - 1.0).abs(),
        "",
    );
    cx.check(
        format!("{label}: |box flux / P_acc − 1|"),
        Bound::AtMost(0.02),
        (flux / p_acc - 1.0).abs(),
        "",
    );
    cx.series(
        &format!("z/{label}"),
        port.z.iter().flat_map(|z| [z.re, z.im]).collect(),
    );
    Ok((f_err, r_res))
}

/// The half-wave dipole of `scenes/antenna.toml` (a 143 mm thin-wire dipole at 1 mm) at
/// 2 mm and 1 mm cells (full size), or 3 mm (quick: the GPU on a software device), each
/// against the thin-wire MoM for its own length with the wire's equivalent radius
/// 0.1985 Δ (`wire_mom::FDTD_WIRE_RADIUS`, a one-cell gap).
///
/// Bounds: the equivalent radius is uncertain within 0.135–0.23 Δ, which moves the MoM
/// resonance by ±0.25 %; the staircase wire's ends and the gap's field are modelled to
/// O(Δ) (the FDTD resonance sits 0.6 % below the MoM at 1 mm, 1.8 % at 3 mm): the bound
/// is 0.8 % per mm of cell + 0.3 % (1.1 % at 1 mm, 1.9 % at 2 mm, 2.7 % at 3 mm). R
/// at resonance: MoM 72 ± 1 Ω for these length/radius ratios, the accepted range for
/// slender dipoles 65–75 Ω: [66, 78) Ω. D: the sinusoidal-current dipole of the same
/// length (2.12–2.13 dBi) and the λ/2 value 2.15 dBi, 0.15 dB each (the issue's bound; the
/// transform itself is good to 0.01 dB). Energy balance (lossless): the port's accepted
/// power, the far-field box's flux and the far field's integrated power within 2 %
/// (measured 0.1 %). Convergence: the resonance error must shrink from 2 mm to 1 mm.
fn half_wave(spec: &BackendSpec, size: Size) -> Result<CaseResult, CaseError> {
    let mut cx = Ctx::new(HALF_WAVE.name, spec, size);
    match size {
        Size::Quick => {
            dipole_at(&mut cx, 3e-3, 24)?;
        }
        Size::Full => {
            let (e2, _) = dipole_at(&mut cx, 2e-3, 35)?;
            let (e1, _) = dipole_at(&mut cx, 1e-3, 71)?;
            cx.log(format!(
                "refinement: resonance error {:+.3} % at 2 mm, {:+.3} % at 1 mm",
                100.0 * e2,
                100.0 * e1
            ));
            cx.check(
                "resonance error at 1 mm / at 2 mm (converges)",
                Bound::Below(1.0),
                e1.abs() / e2.abs().max(1e-12),
                "",
            );
        }
    }
    Ok(cx.finish())
}

//! A plane wave in a lossy dielectric, in the Fresnel case's periodic column.
use super::fresnel::{column, ex, spectrum};
use super::{largest, BackendSpec, Bound, Case, CaseError, CaseResult, Ctx, Size};
use fdtd_core::{EPS0, MU0};
use std::f64::consts::PI;

pub const CASE: Case = Case {
    name: "lossy",
    about: "plane wave in ε_r = 2, σ = 0.05 S/m: attenuation α(ω)",
    run,
};

/// A plane wave in a lossy dielectric decays as exp(−α·z) with
/// α = ω·sqrt(με/2)·sqrt(sqrt(1 + (σ/ωε)²) − 1) (e.g. Balanis, Advanced Engineering
/// Electromagnetics, 4.3). Measured between two probes inside the medium.
///
/// The grid's own attenuation differs from the continuum by O((k·dz)²) ≈ 1e-3 here; the
/// rest is the CPML's reflection, damped as below. Bound: 1 % of α.
///
/// Every size is the same: the column has 600 cells.
pub fn run(spec: &BackendSpec, size: Size) -> Result<CaseResult, CaseError> {
    let mut cx = Ctx::new(CASE.name, spec, size);
    let (eps_r, sigma) = (2.0, 0.05);
    let text = column(eps_r)
        .replace("eps_r = 2\n", &format!("eps_r = {eps_r}\nsigma = {sigma}\n"))
        .replace("position = [0.0005, 0.0, 0.32]", "position = [0.0005, 0.0, 0.27]")
        // A longer column: the CPML (in the lossy medium) is 0.25 m beyond the deep
        // probe, so what it reflects is another exp(−2α·0.25) ≈ 0.04 smaller.
        .replace("cells = [1, 1, 400]", "cells = [1, 1, 600]")
        .replace("max = [0.001, 0.001, 0.4]", "max = [0.001, 0.001, 0.6]")
        .replace("steps = 900", "steps = 1100")
        // No DC content: a conductor would turn it into a slow diffusive tail that the
        // finite record truncates.
        .replace(
            r#"type = "gaussian", frequency = 10e9"#,
            r#"type = "ricker", frequency = 4e9"#,
        )
        + "[[probes]]\nname = \"deep\"\nposition = [0.0005, 0.0, 0.33]\ncomponents = [\"Ex\"]\n";
    assert!(
        text.contains("sigma") && text.contains("deep") && text.contains("ricker"),
        "scene edit failed"
    );
    let (m, sink) = cx.run("lossy", &text)?;
    let dt = m.grid.dt;
    let (a, b) = (ex(&m, &sink, "inside"), ex(&m, &sink, "deep"));
    let mut errors = Vec::new();
    for f in [2e9, 3e9, 5e9] {
        let w = 2.0 * PI * f;
        let eps = EPS0 * eps_r;
        let alpha = w * (MU0 * eps / 2.0).sqrt() * ((1.0 + (sigma / (w * eps)).powi(2)).sqrt() - 1.0).sqrt();
        let measured = -(spectrum(&b, dt, f) / spectrum(&a, dt, f)).ln() / 0.06;
        let err = (measured - alpha).abs() / alpha;
        cx.log(format!(
            "{:.0} GHz: α = {measured:.4} Np/m, theory {alpha:.4} ({err:.2e})",
            f / 1e9
        ));
        errors.push((format!("{:.0} GHz", f / 1e9), err));
    }
    let (which, e) = largest(errors);
    cx.check_worst("α relative error, 2–5 GHz", Bound::Below(0.01), e, "", which);
    Ok(cx.finish())
}

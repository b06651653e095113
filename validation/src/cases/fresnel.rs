//! Fresnel reflection and transmission at normal incidence on a dielectric half-space.
//!
//! A 1 × 1-cell column with periodic x and y faces turns a point current into an
//! infinite current sheet, so the source launches a plane wave along z; CPML absorbs
//! it at both ends. Compared with the same column without the dielectric, the
//! reflected and transmitted spectra give |r| = |1 − n|/(1 + n) and |t| = 2/(1 + n).
use super::{largest, BackendSpec, Bound, Case, CaseError, CaseResult, Ctx, Size};
use crate::column::Column;
use fdtd_core::model::Model;
use fdtd_core::runner::MemorySink;
use fdtd_core::Component;
use std::f64::consts::PI;

/// The column with a dielectric of `eps_r` from z = 0.25 m on (also the lossy case's).
pub fn column(eps_r: f64) -> String {
    Column {
        cells: 400,
        steps: 900,
        slab: Some((&format!("eps_r = {eps_r}"), 0.25, 0.4)),
        source: (0.1, "gaussian"),
        probes: &[("front", 0.18), ("inside", 0.32)],
    }
    .toml()
}

/// |DTFT| of a series sampled every `dt` at frequency `f`.
pub fn spectrum(x: &[f64], dt: f64, f: f64) -> f64 {
    let (mut re, mut im) = (0.0, 0.0);
    for (i, v) in x.iter().enumerate() {
        let ph = 2.0 * PI * f * i as f64 * dt;
        re += v * ph.cos();
        im -= v * ph.sin();
    }
    (re * re + im * im).sqrt()
}

/// One probe's Ex series as f64.
pub(crate) fn ex(m: &Model, s: &MemorySink, p: &str) -> Vec<f64> {
    s.series(m, p, Component::Ex)
        .unwrap()
        .1
        .iter()
        .map(|&v| v as f64)
        .collect()
}

pub const CASE: Case = Case {
    name: "fresnel",
    about: "normal incidence on ε_r = 4 in a periodic 1×1 column: |r| = 1/3, |t| = 2/3",
    run,
};

/// Meep holds Fresnel reflectance (|r|²) to 3 %. The Yee interface (ε averaged on the
/// boundary plane) is second-order accurate: the error grows as (k·dz)². At ≥ 25 cells
/// per wavelength in the dielectric (f ≤ 6 GHz here) it is below 1 %. And it converges at
/// second order: halving k·dz cuts the error about fourfold.
///
/// Every size is the same: the column has 400 cells.
pub fn run(spec: &BackendSpec, size: Size) -> Result<CaseResult, CaseError> {
    let mut cx = Ctx::new(CASE.name, spec, size);
    let eps_r: f64 = 4.0;
    let n = eps_r.sqrt();
    let (m, with) = cx.run("dielectric", &column(eps_r))?;
    let (_, without) = cx.run("vacuum", &column(1.0))?;
    let dt = m.grid.dt;
    let inc = ex(&m, &without, "front");
    let refl: Vec<f64> = ex(&m, &with, "front").iter().zip(&inc).map(|(a, b)| a - b).collect();
    let inc_inside = ex(&m, &without, "inside");
    let trans = ex(&m, &with, "inside");
    let (r0, t0) = ((n - 1.0) / (n + 1.0), 2.0 / (n + 1.0));
    let mut err = |f: f64| {
        let r = spectrum(&refl, dt, f) / spectrum(&inc, dt, f);
        let t = spectrum(&trans, dt, f) / spectrum(&inc_inside, dt, f);
        cx.log(format!(
            "{:.1} GHz: |r| {r:.5} (Fresnel {r0:.5}), |t| {t:.5} (Fresnel {t0:.5})",
            f / 1e9
        ));
        ((r - r0).abs() / r0, (t - t0).abs() / t0)
    };
    let (mut er, mut et) = (Vec::new(), Vec::new());
    for f in [1e9, 2.5e9, 4e9, 6e9] {
        let (r, t) = err(f);
        er.push((format!("{:.1} GHz", f / 1e9), r));
        et.push((format!("{:.1} GHz", f / 1e9), t));
    }
    let (e5, _) = err(5e9);
    let (e10, _) = err(10e9);
    let order = (e10 / e5).log2();
    cx.log(format!("observed order {order:.2}"));
    let (which, r) = largest(er);
    cx.check_worst("|r| relative error, 1–6 GHz", Bound::Below(0.01), r, "", which);
    let (which, t) = largest(et);
    cx.check_worst("|t| relative error, 1–6 GHz", Bound::Below(0.01), t, "", which);
    cx.check(
        "convergence order of |r|, 5 vs 10 GHz",
        Bound::Within(1.6, 2.6),
        order,
        "",
    );
    Ok(cx.finish())
}

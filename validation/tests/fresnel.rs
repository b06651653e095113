//! Fresnel reflection and transmission at normal incidence on a dielectric half-space.
//!
//! A 1 × 1-cell column with periodic x and y faces turns a point current into an
//! infinite current sheet, so the source launches a plane wave along z; CPML absorbs
//! it at both ends. Compared with the same column without the dielectric, the
//! reflected and transmitted spectra give |r| = |1 − n|/(1 + n) and |t| = 2/(1 + n).
use fdtd::backend::BackendChoice;
use fdtd::Component;
use fdtd_validation::*;
use std::f64::consts::PI;

fn column(eps_r: f64) -> String {
    format!(
        r#"
[domain]
cell = 1e-3
cells = [1, 1, 400]
[time]
steps = 900
[boundaries]
x = "periodic"
y = "periodic"
z = "cpml"
[boundaries.cpml]
cells = 20
[materials.dielectric]
eps_r = {eps_r}
[[objects]]
shape = "box"
material = "dielectric"
min = [0.0, 0.0, 0.25]
max = [0.001, 0.001, 0.4]
[[sources]]
type = "current"
component = "Ex"
position = [0.0005, 0.0, 0.1]
waveform = {{ type = "gaussian", frequency = 10e9 }}
[[probes]]
name = "front"
position = [0.0005, 0.0, 0.18]
components = ["Ex"]
[[probes]]
name = "inside"
position = [0.0005, 0.0, 0.32]
components = ["Ex"]
"#
    )
}

/// |DTFT| of a series sampled every `dt` at frequency `f`.
fn spectrum(x: &[f64], dt: f64, f: f64) -> f64 {
    let (mut re, mut im) = (0.0, 0.0);
    for (i, v) in x.iter().enumerate() {
        let ph = 2.0 * PI * f * i as f64 * dt;
        re += v * ph.cos();
        im -= v * ph.sin();
    }
    (re * re + im * im).sqrt()
}

#[test]
fn normal_incidence_reflection_and_transmission_match_fresnel() {
    let eps_r: f64 = 4.0;
    let n = eps_r.sqrt();
    let (m, with) = run_scene(&column(eps_r), BackendChoice::Cpu);
    let (_, without) = run_scene(&column(1.0), BackendChoice::Cpu);
    let dt = m.grid.dt;
    let series = |s: &fdtd::runner::MemorySink, p: &str| -> Vec<f64> {
        s.series(&m, p, Component::Ex)
            .unwrap()
            .1
            .iter()
            .map(|&v| v as f64)
            .collect()
    };
    let inc = series(&without, "front");
    let refl: Vec<f64> = series(&with, "front").iter().zip(&inc).map(|(a, b)| a - b).collect();
    let inc_inside = series(&without, "inside");
    let trans = series(&with, "inside");
    let (r0, t0) = ((n - 1.0) / (n + 1.0), 2.0 / (n + 1.0));
    let err = |f: f64| {
        let r = spectrum(&refl, dt, f) / spectrum(&inc, dt, f);
        let t = spectrum(&trans, dt, f) / spectrum(&inc_inside, dt, f);
        println!(
            "{:.1} GHz: |r| {r:.5} (Fresnel {r0:.5}), |t| {t:.5} (Fresnel {t0:.5})",
            f / 1e9
        );
        ((r - r0).abs() / r0, (t - t0).abs() / t0)
    };
    // Meep holds Fresnel reflectance (|r|²) to 3 %. The Yee interface (ε averaged on
    // the boundary plane) is second-order accurate: the error grows as (k·dz)². At
    // ≥ 25 cells per wavelength in the dielectric (f ≤ 6 GHz here) it is below 1 %.
    for f in [1e9, 2.5e9, 4e9, 6e9] {
        let (er, et) = err(f);
        assert!(er < 0.01, "|r| off by {er:.4} at {f:e} Hz");
        assert!(et < 0.01, "|t| off by {et:.4} at {f:e} Hz");
    }
    // And it converges at second order: halving k·dz cuts the error about fourfold.
    let (e5, _) = err(5e9);
    let (e10, _) = err(10e9);
    let order = (e10 / e5).log2();
    println!("observed order {order:.2}");
    assert!(
        (1.6..2.6).contains(&order),
        "convergence order {order:.2}, expected about 2"
    );
}

/// A plane wave in a lossy dielectric decays as exp(−α·z) with
/// α = ω·sqrt(με/2)·sqrt(sqrt(1 + (σ/ωε)²) − 1) (e.g. Balanis, Advanced Engineering
/// Electromagnetics, 4.3). Measured between two probes inside the medium.
#[test]
fn lossy_dielectric_attenuates_as_theory() {
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
    let (m, sink) = run_scene(&text, BackendChoice::Cpu);
    let dt = m.grid.dt;
    let get = |p: &str| -> Vec<f64> {
        sink.series(&m, p, Component::Ex)
            .unwrap()
            .1
            .iter()
            .map(|&v| v as f64)
            .collect()
    };
    let (a, b) = (get("inside"), get("deep"));
    for f in [2e9, 3e9, 5e9] {
        let w = 2.0 * PI * f;
        let eps = fdtd::EPS0 * eps_r;
        let alpha = w * (fdtd::MU0 * eps / 2.0).sqrt() * ((1.0 + (sigma / (w * eps)).powi(2)).sqrt() - 1.0).sqrt();
        let measured = -(spectrum(&b, dt, f) / spectrum(&a, dt, f)).ln() / 0.06;
        let err = (measured - alpha).abs() / alpha;
        println!(
            "{:.0} GHz: α = {measured:.4} Np/m, theory {alpha:.4} ({err:.2e})",
            f / 1e9
        );
        // The grid's own attenuation differs from the continuum by O((k·dz)²) ≈ 1e-3
        // here; the rest is the CPML's reflection, damped as above. Bound: 1 % of α.
        assert!(err < 0.01, "attenuation {measured:.4} Np/m vs {alpha:.4} at {f:e} Hz");
    }
}

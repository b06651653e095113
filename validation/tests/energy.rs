//! Energy in a closed lossless PEC cavity, and Courant stability.
use fdtd::backend::cpu::CpuBackend;
use fdtd::backend::Backend;
use fdtd::model::Model;
use fdtd::{Component, EPS0, MU0};
use fdtd_validation::scene;
use std::sync::Arc;

/// 24 × 20 × 16 cells, PEC walls, a dielectric block (ε_r = 3) and a μ_r = 2 block
/// inside, excited by two short current pulses that end within the first ~200 steps.
fn cavity(courant: f64) -> String {
    format!(
        r#"
[domain]
cell = 1e-3
cells = [24, 20, 16]
[time]
steps = 10200
courant = {courant}
[boundaries]
all = "pec"
[materials.glass]
eps_r = 3.0
[materials.ferrite]
mu_r = 2.0
[[objects]]
shape = "box"
material = "glass"
min = [0.003, 0.004, 0.002]
max = [0.011, 0.012, 0.009]
[[objects]]
shape = "sphere"
material = "ferrite"
center = [0.017, 0.012, 0.010]
radius = 0.004
[[sources]]
type = "current"
component = "Ez"
position = [0.0062, 0.0141, 0.0083]
waveform = {{ type = "gaussian", frequency = 40e9 }}
[[sources]]
type = "current"
component = "Hy"
position = [0.0181, 0.0052, 0.0121]
waveform = {{ type = "ricker", frequency = 30e9, amplitude = 200.0 }}
"#
    )
}

/// The Yee scheme's conserved energy (Taflove & Hagness §3.6.x; e.g. Chew 1994):
/// `W = ½Σ ε·|E^n|² dV + ½Σ μ·H^{n−½}·H^{n+½} dV`, which is exactly constant in a
/// lossless PEC-bounded grid; `E`, `H_prev`, `H_next` are full component arrays.
fn discrete_energy(m: &Model, e: &[Vec<f32>], h_prev: &[Vec<f32>], h_next: &[Vec<f32>]) -> f64 {
    let g = &m.grid;
    let dv = g.d[0] * g.d[1] * g.d[2];
    let mut w = 0.0;
    for c in Component::ALL {
        let ext = c.extent(g.n);
        for i in 0..ext[0] {
            for j in 0..ext[1] {
                for k in 0..ext[2] {
                    let f = g.idx(i, j, k);
                    let mat = m.mat[c.index()][f] as usize;
                    let a = c.index() % 3;
                    if c.is_electric() {
                        let Some((eps_r, _)) = m.coefs.e_props[mat] else {
                            continue;
                        };
                        let x = e[a][f] as f64;
                        w += 0.5 * EPS0 * eps_r * x * x * dv;
                    } else {
                        let mu = MU0 * m.coefs.h_props[mat];
                        w += 0.5 * mu * h_prev[a][f] as f64 * h_next[a][f] as f64 * dv;
                    }
                }
            }
        }
    }
    w
}

fn read(b: &mut CpuBackend, comps: &[Component]) -> Vec<Vec<f32>> {
    comps.iter().map(|&c| b.read_field(c).unwrap()).collect()
}

/// Energy at step boundaries 300, 1300, ..., 10300: it must not drift.
fn energy_series(courant: f64) -> Vec<f64> {
    let m = Arc::new(Model::discretize(&scene(&cavity(courant))).unwrap());
    let mut b = CpuBackend::new(m.clone(), 0).unwrap();
    let ns = m.sources.len();
    let src = m.source_values(0, m.grid.steps);
    let e_comps = [Component::Ex, Component::Ey, Component::Ez];
    let h_comps = [Component::Hx, Component::Hy, Component::Hz];
    let mut out = Vec::new();
    let mut n = 0;
    for target in (200..m.grid.steps).step_by(1000) {
        b.step(n, target - n, &src[n * ns..target * ns]).unwrap();
        n = target;
        // After `target` steps: E^{target}, H^{target−½}.
        let e = read(&mut b, &e_comps);
        let h_prev = read(&mut b, &h_comps);
        b.step(n, 1, &src[n * ns..(n + 1) * ns]).unwrap();
        n += 1;
        let h_next = read(&mut b, &h_comps);
        out.push(discrete_energy(&m, &e, &h_prev, &h_next));
    }
    out
}

#[test]
fn pec_cavity_conserves_discrete_energy_over_1e4_steps_at_courant_0_99() {
    let w = energy_series(0.99);
    let w0 = w[0];
    assert!(w0 > 0.0 && w0.is_finite());
    let drift = w.iter().map(|x| (x - w0).abs() / w0).fold(0.0, f64::max);
    println!("energy {w:?}\nmax relative drift {drift:.3e}");
    // f32 rounding: each update rounds with relative error ~6e-8; the errors of the
    // ~50k samples are uncorrelated, so the summed energy wanders by ~1e-7·sqrt(steps)
    // at most. 1e-5 over 10⁴ steps is a bound rounding can meet and any instability,
    // loss or source leak (which grow or decay by orders of magnitude) cannot.
    assert!(drift < 1e-5, "energy drifted by {drift:.3e}");
}

#[test]
fn courant_above_one_is_refused() {
    let err = fdtd::scene::Scene::parse(&cavity(1.01), "c.toml")
        .map(|s| Model::discretize(&s).map(|_| ()).map_err(|e| e.to_string()))
        .map_err(|e| e.to_string());
    let msg = match err {
        Err(e) | Ok(Err(e)) => e,
        Ok(Ok(())) => panic!("Courant 1.01 was accepted"),
    };
    assert!(msg.contains("ourant"), "{msg}");
}

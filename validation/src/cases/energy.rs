//! Energy in a closed lossless PEC cavity with dielectric and magnetic objects.
use super::{model, BackendSpec, Bound, Case, CaseError, CaseResult, Ctx, Size};
use fdtd_core::backend::Backend;
use fdtd_core::model::Model;
use fdtd_core::{Component, EPS0, MU0};
use std::time::Instant;

/// 24 × 20 × 16 mm in cells of `cell` mm (1 or 2), PEC walls, a dielectric block
/// (ε_r = 3) and a μ_r = 2 block inside, excited by two short current pulses that end
/// within the first ~200 steps.
pub fn cavity(courant: f64, cell: usize, steps: usize) -> String {
    let cells = [24, 20, 16].map(|n| n / cell);
    format!(
        r#"
[domain]
cell = {cell}e-3
cells = [{}, {}, {}]
[time]
steps = {steps}
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
"#,
        cells[0], cells[1], cells[2]
    )
}

/// The Yee scheme's conserved energy (Taflove & Hagness §3.6.x; e.g. Chew 1994):
/// `W = ½Σ ε·|E^n|² dV + ½Σ μ·H^{n−½}·H^{n+½} dV`, which is exactly constant in a
/// lossless PEC-bounded grid; `E`, `H_prev`, `H_next` are full component arrays.
pub fn discrete_energy(m: &Model, e: &[Vec<f32>], h_prev: &[Vec<f32>], h_next: &[Vec<f32>]) -> f64 {
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

fn read(b: &mut dyn Backend, comps: &[Component]) -> Result<Vec<Vec<f32>>, CaseError> {
    comps.iter().map(|&c| Ok(b.read_field(c)?)).collect()
}

pub const CASE: Case = Case {
    name: "energy",
    about: "closed PEC cavity with ε and μ objects, Courant 0.99: conserved discrete energy",
    run,
};

/// Energy at step boundaries 200, 1200, ..., it must not drift.
///
/// f32 rounding: each update rounds with relative error ~6e-8; the errors of the ~50k
/// samples are uncorrelated, so the summed energy wanders by ~1e-7·sqrt(steps) at most.
/// 1e-5 over 10⁴ steps is a bound rounding can meet and any instability, loss or source
/// leak (which grow or decay by orders of magnitude) cannot.
///
/// [`Size::Quick`]: the same box in 2 mm cells (12 × 10 × 8, 1/8 of the cells) for 3200
/// steps instead of 10200 (energy at 200, 1200 and 2200). The energy is conserved
/// exactly on any Yee grid, so the coarser cells change nothing the bound rests on;
/// rounding wanders less over fewer steps, so the same 1e-5 still holds for it; and an
/// instability, a loss or a leak still changes the energy by orders of magnitude more
/// within 2000 steps (7.6 ns: a conductivity of 1e-4 S/m in the glass alone would drain
/// 1 − e^(−σt/ε) ≈ 3 % of the energy there).
pub fn run(spec: &BackendSpec, size: Size) -> Result<CaseResult, CaseError> {
    let mut cx = Ctx::new(CASE.name, spec, size);
    let (cell, steps) = match size {
        Size::Full => (1, 10200),
        Size::Quick => (2, 3200),
    };
    let m = model(&cavity(0.99, cell, steps));
    let mut b = cx.backend(&m)?;
    let ns = m.sources.len();
    let src = m.source_values(0, m.grid.steps);
    let e_comps = [Component::Ex, Component::Ey, Component::Ez];
    let h_comps = [Component::Hx, Component::Hy, Component::Hz];
    let mut w = Vec::new();
    let mut n = 0;
    for target in (200..m.grid.steps).step_by(1000) {
        let t = Instant::now();
        b.step(n, target - n, &src[n * ns..target * ns])?;
        // After `target` steps: E^{target}, H^{target−½}.
        let e = read(b.as_mut(), &e_comps)?;
        cx.stepped(&m, target - n, t.elapsed().as_secs_f64());
        n = target;
        let h_prev = read(b.as_mut(), &h_comps)?;
        let t = Instant::now();
        b.step(n, 1, &src[n * ns..(n + 1) * ns])?;
        let h_next = read(b.as_mut(), &h_comps)?;
        cx.stepped(&m, 1, t.elapsed().as_secs_f64());
        n += 1;
        w.push(discrete_energy(&m, &e, &h_prev, &h_next));
    }
    let w0 = w[0];
    let drift = if w0 > 0.0 && w0.is_finite() {
        w.iter().map(|x| (x - w0).abs() / w0).fold(0.0, f64::max)
    } else {
        f64::NAN
    };
    cx.log(format!("energy {w:?}\nmax relative drift {drift:.3e}"));
    cx.check(
        format!("relative drift of discrete energy, {steps} steps"),
        Bound::Below(1e-5),
        drift,
        "",
    );
    cx.series("energy", w);
    Ok(cx.finish())
}

//! Analytic solutions and helpers shared by the validation suites, and the analytic
//! cases themselves ([`cases`]).
//!
//! Every case compares a run of the real solver (scene text → `Scene` → `Model` →
//! backend) with an independent result and states its bound and why it holds. The
//! cases are library functions that run on any backend: `cargo test` instantiates each
//! on the CPU and on the GPU (`tests/*.rs`, through [`backend_tests!`]), and
//! `fdtd validate` runs them from the binary.
//!
//! This crate depends on `fdtd-core`, `fdtd-cpu` and `fdtd-gpu`, not on the `fdtd`
//! facade, so that the `fdtd` binary can depend on it.
use fdtd_core::backend::{Backend, BackendChoice, BackendOptions};
use fdtd_core::model::Model;
use fdtd_core::runner::{run, MemorySink, RunOptions};
use fdtd_core::scene::Scene;
use fdtd_core::C0;
use std::f64::consts::PI;
use std::sync::Arc;

pub mod cases;
pub mod column;
pub mod reference;
pub mod suite;

/// Parse scene text (panics with the parser's message: tests want the message).
pub fn scene(text: &str) -> Scene {
    Scene::parse(text, "validation.toml").unwrap_or_else(|e| panic!("{e}"))
}

/// Discretise and run a scene on a backend, keeping all samples in memory.
pub fn run_scene(text: &str, choice: BackendChoice) -> (Arc<fdtd_core::Simulation>, MemorySink) {
    let model = Arc::new(fdtd_core::Simulation::standard(
        Model::discretize(&scene(text)).unwrap_or_else(|e| panic!("{e}")),
    ));
    let (mut backend, _) =
        fdtd_core::backend::create(&cases::engines(), model.clone(), choice, &BackendOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
    let sink = run_model(&model, backend.as_mut());
    (model, sink)
}

/// Run an already built model on a backend.
pub fn run_model(model: &fdtd_core::Simulation, backend: &mut dyn Backend) -> MemorySink {
    let mut sink = MemorySink::new(model);
    run(model, backend, &mut sink, &RunOptions::default(), None).unwrap_or_else(|e| panic!("{e}"));
    sink
}

/// Resonant frequency (Hz) of mode (m, n, p) of a PEC box a×b×d, continuum theory:
/// `f = c/2·sqrt((m/a)² + (n/b)² + (p/d)²)`.
pub fn cavity_mode(size: [f64; 3], mode: [u32; 3]) -> f64 {
    C0 / 2.0 * (0..3).map(|i| (mode[i] as f64 / size[i]).powi(2)).sum::<f64>().sqrt()
}

/// The same mode on the Yee grid: its wavenumbers `k_i = m_i·π/L_i` are exact on the
/// grid, and the frequency follows from the Yee scheme's discrete dispersion relation
/// `sin²(ωdt/2)/(c·dt)² = Σ sin²(k_i·d_i/2)/d_i²` (Taflove & Hagness eq. 4.27).
pub fn cavity_mode_yee(size: [f64; 3], mode: [u32; 3], d: [f64; 3], dt: f64) -> f64 {
    let s: f64 = (0..3)
        .map(|i| {
            let k = mode[i] as f64 * PI / size[i];
            ((k * d[i] / 2.0).sin() / d[i]).powi(2)
        })
        .sum();
    let omega = 2.0 / dt * (C0 * dt * s.sqrt()).asin();
    omega / (2.0 * PI)
}

/// Magnitude of the Blackman–Harris-windowed DTFT of `x` (sampled every `dt`) at `f`.
pub fn windowed_dtft(x: &[f64], dt: f64, f: f64) -> f64 {
    dtft(&windowed(x), dt, f)
}

/// `x` times the Blackman–Harris window, sample by sample.
fn windowed(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    x.iter()
        .enumerate()
        .map(|(i, &v)| {
            let t = i as f64 / (n - 1) as f64 * 2.0 * PI;
            let w = 0.35875 - 0.48829 * t.cos() + 0.14128 * (2.0 * t).cos() - 0.01168 * (3.0 * t).cos();
            w * v
        })
        .collect()
}

/// Magnitude of the DTFT of `x` (already windowed) at `f`.
fn dtft(xw: &[f64], dt: f64, f: f64) -> f64 {
    let (mut re, mut im) = (0.0, 0.0);
    for (i, &wv) in xw.iter().enumerate() {
        let ph = 2.0 * PI * f * i as f64 * dt;
        re += wv * ph.cos();
        im -= wv * ph.sin();
    }
    (re * re + im * im).sqrt()
}

/// Frequency of the strongest spectral line of `x` in `[lo, hi]` (Hz): a coarse scan of
/// the windowed DTFT followed by golden-section refinement of the peak. For a sum of
/// undamped sinusoids whose lines are a few bins apart, the Blackman–Harris sidelobes
/// (−92 dB) leave a bias far below 1e-6 relative.
pub fn spectral_peak(x: &[f64], dt: f64, lo: f64, hi: f64) -> f64 {
    // The window once (the same products as `windowed_dtft` computes each time).
    let x = &windowed(x)[..];
    let windowed_dtft = |x: &[f64], dt: f64, f: f64| dtft(x, dt, f);
    let n = 400;
    let mut best = (lo, 0.0);
    for i in 0..=n {
        let f = lo + (hi - lo) * i as f64 / n as f64;
        let m = windowed_dtft(x, dt, f);
        if m > best.1 {
            best = (f, m);
        }
    }
    let step = (hi - lo) / n as f64;
    let (mut a, mut b) = (best.0 - step, best.0 + step);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..80 {
        let c = b - g * (b - a);
        let d = a + g * (b - a);
        if windowed_dtft(x, dt, c) > windowed_dtft(x, dt, d) {
            b = d;
        } else {
            a = c;
        }
    }
    (a + b) / 2.0
}

/// `‖a − b‖₂ / ‖b‖₂`.
pub fn rel_l2(a: &[f32], b: &[f32]) -> f64 {
    assert_eq!(a.len(), b.len());
    let num: f64 = a.iter().zip(b).map(|(x, y)| (*x as f64 - *y as f64).powi(2)).sum();
    let den: f64 = b.iter().map(|y| (*y as f64).powi(2)).sum();
    (num / den.max(f64::MIN_POSITIVE)).sqrt()
}

/// E field (V/m) at `r` (m, relative to the dipole) of a z-directed Hertzian dipole in
/// vacuum with current moment `m(t) = I(t)·l` (A·m), from the exact near + far field
/// solution (Jackson 9.18 in the time domain):
///
/// ```text
/// E = 1/(4πε0)·[ (3r̂(r̂·p) − p)/r³ + (3r̂(r̂·ṗ) − ṗ)/(c·r²) + (r̂(r̂·p̈) − p̈)/(c²·r) ]
/// ```
///
/// evaluated at the retarded time t − r/c, with ṗ = m, p = ∫m dt and p̈ = dm/dt.
pub fn dipole_e(r: [f64; 3], t: f64, moment: &dyn Fn(f64) -> f64, charge: &dyn Fn(f64) -> f64) -> [f64; 3] {
    let rr = (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]).sqrt();
    let u = r.map(|x| x / rr);
    let tau = t - rr / C0;
    let h = 1e-15;
    let p = charge(tau);
    let pd = moment(tau);
    let pdd = (moment(tau + h) - moment(tau - h)) / (2.0 * h);
    let k = 1.0 / (4.0 * PI * fdtd_core::EPS0);
    // p = p·ẑ, so r̂·p = p·u_z.
    let mut e = [0.0; 3];
    for (i, ei) in e.iter_mut().enumerate() {
        let z = if i == 2 { 1.0 } else { 0.0 };
        let near = (3.0 * u[i] * u[2] - z) * (p / rr.powi(3) + pd / (C0 * rr * rr));
        let far = (u[i] * u[2] - z) * pdd / (C0 * C0 * rr);
        *ei = k * (near + far);
    }
    e
}

/// ∫₀ᵗ f dt' by composite Simpson with `n` (even) panels.
pub fn integrate(f: &dyn Fn(f64) -> f64, t: f64, n: usize) -> f64 {
    if t <= 0.0 {
        return 0.0;
    }
    let h = t / n as f64;
    let mut s = f(0.0) + f(t);
    for i in 1..n {
        s += f(i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    s * h / 3.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yee_mode_tends_to_continuum() {
        let size = [0.03, 0.024, 0.018];
        let f0 = cavity_mode(size, [1, 1, 0]);
        let coarse = cavity_mode_yee(size, [1, 1, 0], [1e-3; 3], 1e-13);
        let fine = cavity_mode_yee(size, [1, 1, 0], [1e-5; 3], 1e-15);
        assert!((coarse - f0).abs() / f0 < 1e-3);
        assert!((fine - f0).abs() / f0 < 1e-7);
        assert!(coarse < f0, "Yee dispersion lowers the frequency on a cubic grid");
    }

    #[test]
    fn spectral_peak_finds_a_line_to_1e6() {
        let dt = 1e-12;
        let x: Vec<f64> = (0..8000)
            .map(|i| {
                let t = i as f64 * dt;
                (2.0 * PI * 7.3e9 * t).sin() + 0.5 * (2.0 * PI * 9.1e9 * t + 0.3).sin()
            })
            .collect();
        let f = spectral_peak(&x, dt, 6e9, 8e9);
        assert!((f - 7.3e9).abs() / 7.3e9 < 1e-6, "{f}");
        let f = spectral_peak(&x, dt, 8.5e9, 9.5e9);
        assert!((f - 9.1e9).abs() / 9.1e9 < 1e-6, "{f}");
    }

    #[test]
    fn dipole_far_field_falls_as_one_over_r() {
        let m = |t: f64| (-((t - 1e-9) / 2e-10).powi(2)).exp();
        let q = |t: f64| integrate(&m, t, 2000);
        // Broadside, far away (near-field terms ~c/(ωr) < 1e-3): Ez ≈ −p̈/(4πε0c²r) ∝ 1/r.
        let peak = |r: f64| {
            (0..400)
                .map(|i| dipole_e([r, 0.0, 0.0], r / C0 + i as f64 * 1e-11, &m, &q)[2].abs())
                .fold(0.0, f64::max)
        };
        let ratio = peak(100.0) / peak(200.0);
        assert!((ratio - 2.0).abs() < 1e-3, "{ratio}");
    }
}

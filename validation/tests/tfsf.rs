//! TF/SF plane waves: leakage of an empty box into the scattered field (≤ −60 dB) and the
//! incident pulse inside it, along axes and obliquely, both polarisations, on both
//! backends (`fdtd_validation::cases::tfsf`, bounds argued there); the two backends'
//! runs agree within the regression tolerance.
fdtd_validation::backend_tests! {
    /// Along +z (E along x, then y) and +x: leakage ≤ −60 dB, the pulse within 2 %.
    fn tfsf_box_along_axes_leaks_nothing => tfsf::AXIS, gpu: Full;
    /// θ = 30°, φ = 20°, ψ = 0° and 90°: leakage ≤ −60 dB, the pulse within 2 %.
    fn tfsf_box_oblique_leaks_nothing => tfsf::OBLIQUE, gpu: Full;
}

use fdtd::backend::cpu::CpuBackend;
use fdtd::backend::gpu::{GpuBackend, GpuConfig};
use fdtd::backend::{Backend, BackendError, BackendOptions, SolverState};
use fdtd::model::Model;
use fdtd::plan::Plan;
use fdtd::Simulation;
use fdtd_validation::cases::{tfsf, PARITY_TOLERANCE};
use std::sync::Arc;

const STEPS: usize = 160;

fn sim() -> Arc<Simulation> {
    let text = tfsf::scene(30.0, 20.0, 0.0).replace("steps = 330", &format!("steps = {STEPS}"));
    Arc::new(Simulation::standard(
        Model::discretize(&fdtd_validation::scene(&text)).unwrap(),
    ))
}

fn steps(b: &mut dyn Backend, m: &Simulation, n0: usize, count: usize) {
    b.step(n0, count, &m.source_values(n0, count)).unwrap();
}

/// The GPU backend cut into x slabs (10 y-z planes each), or None without an adapter.
fn gpu(m: &Arc<Simulation>) -> Option<GpuBackend> {
    let [_, ny, nz] = m.grid.n;
    let cfg = GpuConfig {
        binding_cap: Some(((ny + 1) * (nz + 1) * 4 * 10) as u64),
        ..Default::default()
    };
    match GpuBackend::with_config(m.clone(), &BackendOptions::default(), &cfg) {
        Ok(b) => Some(b),
        Err(BackendError::NoDevice(why)) => {
            fdtd_validation::suite::no_gpu(&why);
            None
        }
        Err(e) => panic!("GPU backend: {e}"),
    }
}

/// Largest difference of two states over the largest |value|, per array; the worst.
fn worst(a: &SolverState, b: &SolverState) -> (f64, String) {
    let mut out = (0.0, String::new());
    for (x, y) in a.arrays.iter().zip(&b.arrays) {
        assert_eq!(x.name, y.name);
        let scale = x.data.iter().fold(0f32, |m, v| m.max(v.abs())) as f64;
        let diff = x.data.iter().zip(&y.data).fold(0f32, |m, (p, q)| m.max((p - q).abs())) as f64;
        let rel = if scale > 0.0 { diff / scale } else { diff };
        if rel > out.0 {
            out = (rel, x.name.clone());
        }
    }
    out
}

/// The incident line is pass state: named in the table, counted in the memory plan, carried
/// by a checkpoint (CPU → CPU bit for bit, CPU → GPU half-way), and the GPU (in slabs, the
/// once entries on piece 0) ends at the CPU's state within the regression tolerance.
#[test]
fn tfsf_state_is_checkpointed_and_both_backends_agree() {
    let m = sim();
    let names: Vec<&str> = m.schedule.state.iter().map(|a| a.name.as_str()).collect();
    assert!(
        names.contains(&"plane_wave:pw/e") && names.contains(&"plane_wave:pw/h"),
        "{names:?}"
    );
    let plan = Plan::common(&m, 2);
    let line = 6 * 4 * m.plane_waves[0].len as u64;
    assert!(
        plan.buffers
            .iter()
            .any(|b| b.name == "pass plane_wave:pw state (f32)" && b.bytes == line),
        "{plan}"
    );
    let mut full = CpuBackend::new(m.clone(), 0).unwrap();
    steps(&mut full, &m, 0, STEPS);
    let end = full.save_state().unwrap();
    let e = end.get("plane_wave:pw/e").unwrap();
    assert!(e.iter().any(|&v| v.abs() > 0.1), "the incident line carries the pulse");
    // CPU → CPU through a checkpoint: bit for bit.
    let mut a = CpuBackend::new(m.clone(), 0).unwrap();
    steps(&mut a, &m, 0, STEPS / 2);
    let mid = a.save_state().unwrap();
    let mut b = CpuBackend::new(m.clone(), 0).unwrap();
    b.load_state(&mid).unwrap();
    steps(&mut b, &m, STEPS / 2, STEPS / 2);
    assert_eq!(worst(&end, &b.save_state().unwrap()).0, 0.0, "CPU resume");
    // The GPU, from the start and resumed from the CPU's half-way state.
    let Some(mut g) = gpu(&m) else { return };
    steps(&mut g, &m, 0, STEPS);
    let (d, at) = worst(&end, &g.save_state().unwrap());
    println!("GPU vs CPU after {STEPS} steps: {d:.2e} of the largest value (worst array {at})");
    assert!(d < PARITY_TOLERANCE, "GPU vs CPU: {d:e} at {at}");
    let mut g2 = gpu(&m).unwrap();
    g2.load_state(&mid).unwrap();
    steps(&mut g2, &m, STEPS / 2, STEPS / 2);
    let (d, at) = worst(&end, &g2.save_state().unwrap());
    println!("CPU → GPU resume: {d:.2e} (worst array {at})");
    assert!(d < PARITY_TOLERANCE, "CPU → GPU resume: {d:e} at {at}");
}

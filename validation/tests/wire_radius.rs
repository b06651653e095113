//! Thin wires honour their `radius` (`fdtd_validation::cases::wire_radius`): a 3 mm-cell
//! dipole of `wire` objects with radius 0.05, 0.2 and 0.45 Δ against the thin-wire
//! method of moments with the same radius and a one-cell gap, on both backends (the GPU
//! the quick size: the bare and the 0.45 Δ wire), and the thin-wire pass on the GPU cut
//! into x slabs against the CPU, sample for sample.
//!
//! Without an adapter the GPU tests print "skipped" and pass, unless `CI` is set.
use fdtd::backend::cpu::CpuBackend;
use fdtd::backend::gpu::{GpuBackend, GpuConfig};
use fdtd::backend::{Backend, BackendError, BackendOptions};
use fdtd_validation::cases::wire_radius;
use std::sync::Arc;

fdtd_validation::backend_tests! {
    /// Resonance shift from the bare wire within 0.6 % of the MoM's, |f/f_MoM − 1| ≤ 3.3 %, |R − R_MoM| ≤ 2 Ω.
    fn wire_radius_moves_the_dipole_resonance_like_the_moment_method => wire_radius::CASE, gpu: Quick;
}

/// The 0.45 Δ dipole (corrected edges and feed gap, shortened step) at 5 mm, 300 steps,
/// on the GPU cut into slabs of 3 planes (the wire's x plane and its neighbour on
/// different pieces, so the pass reads E on a ghost plane) and on the CPU: every field
/// within 1e-5 of its largest value (both evaluate the same f32 expressions; lavapipe
/// is bit-exact on the other passes).
#[test]
fn the_thin_wire_pass_gives_the_same_fields_on_the_gpu_cut_into_slabs() {
    let text = wire_radius::scene(5e-3, 14, Some(0.45 * 5e-3)).replace("duration = 30e-9", "steps = 300");
    let scene = fdtd::scene::Scene::parse(&text, "wire.toml").unwrap();
    let model = fdtd::model::Model::discretize(&scene).unwrap();
    assert!(!model.wire_h.is_empty() && model.wire_courant.is_some());
    let sim = Arc::new(fdtd::Simulation::standard(model));
    // Rows padded to 16 samples (the kernel's y stride is not nz + 1), 3 planes a piece:
    // the wire's plane (x = 18) starts a piece, so the H samples at x = 17 read its E
    // on their piece's high ghost plane.
    let [_, ny, nz] = sim.grid.dims();
    let plane = (ny * nz.next_multiple_of(16) * 4) as u64;
    let cfg = GpuConfig {
        binding_cap: Some(5 * plane),
        row_align: Some(16),
        ..Default::default()
    };
    let mut gpu = match GpuBackend::with_config(sim.clone(), &BackendOptions::default(), &cfg) {
        Ok(b) => b,
        Err(BackendError::NoDevice(why)) => return fdtd_validation::suite::no_gpu(&why),
        Err(e) => panic!("{e}"),
    };
    let mut cpu = CpuBackend::new(sim.clone(), 0).unwrap();
    let steps = sim.grid.steps;
    let src = sim.source_values(0, steps);
    cpu.step(0, steps, &src).unwrap();
    gpu.step(0, steps, &src).unwrap();
    for c in fdtd::Component::ALL {
        let (a, b) = (cpu.read_field(c).unwrap(), gpu.read_field(c).unwrap());
        let scale = a.iter().fold(0f32, |m, x| m.max(x.abs())).max(1e-30);
        let worst = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max) / scale;
        println!("{c}: max |CPU − GPU| / max |CPU| = {worst:.2e}");
        assert!(worst <= 1e-5, "{c}: {worst:e}");
    }
}

/// A thick wire's feed gap at a requested Courant 0.99: the step is shortened
/// (`thin::gap_courant`) and 20 000 steps in a closed PEC box stay bounded (the port's
/// resistor drains the pulse: the field at the end is below its value after the pulse).
/// Without the shortening this diverges within a few hundred steps.
#[test]
fn a_thick_wire_feed_gap_stays_stable_for_long_runs_at_courant_0_99() {
    let text = r#"
[domain]
cell = 1e-3
cells = [16, 16, 30]
[time]
steps = 20000
courant = 0.99
[boundaries]
all = "pec"
[[objects]]
shape = "wire"
material = "pec"
radius = 4.99e-4
points = [[0.008, 0.008, 0.005], [0.008, 0.008, 0.014]]
[[objects]]
shape = "wire"
material = "pec"
radius = 4.99e-4
points = [[0.008, 0.008, 0.015], [0.008, 0.008, 0.025]]
[[ports]]
name = "feed"
start = [0.008, 0.008, 0.014]
end = [0.008, 0.008, 0.015]
impedance = 73
waveform = { type = "gaussian_derivative", frequency = 10e9, amplitude = 1 }
"#;
    let scene = fdtd::scene::Scene::parse(text, "thick.toml").unwrap();
    let model = fdtd::model::Model::discretize(&scene).unwrap();
    let (asked, used) = model.wire_courant.expect("a shortened step");
    assert!(asked == 0.99 && used < 0.84, "{used}");
    let sim = Arc::new(fdtd::Simulation::standard(model));
    let mut cpu = CpuBackend::new(sim.clone(), 0).unwrap();
    let peak = |b: &mut CpuBackend| {
        fdtd::Component::ALL
            .iter()
            .map(|&c| b.read_field(c).unwrap().iter().fold(0f32, |m, x| m.max(x.abs())))
            .fold(0f32, f32::max)
    };
    let chunk = 2000;
    let mut after_pulse = 0.0;
    for n0 in (0..sim.grid.steps).step_by(chunk) {
        cpu.step(n0, chunk, &sim.source_values(n0, chunk)).unwrap();
        let p = peak(&mut cpu);
        assert!(p.is_finite() && p < 1e6, "step {}: {p}", n0 + chunk);
        if n0 == 0 {
            after_pulse = p;
        }
    }
    let end = peak(&mut cpu);
    println!("max |field| after the pulse {after_pulse:e}, after 20000 steps {end:e}");
    assert!(end <= after_pulse, "{end} > {after_pulse}");
}

//! Dispersive media: Debye and Lorentz half-spaces against the scheme's discrete ε and
//! against Fresnel (`fdtd_validation::cases::dispersive`, bounds argued there), on both
//! backends; CPU/GPU parity of a 3-D box with every pole type; bit-identical resume
//! of the poles' state on the CPU.
fdtd_validation::backend_tests! {
    /// r within 1e-4 of the discrete r_d at 1–5 GHz; |r| within 1 % of Fresnel at ≥ 25 cells/λ.
    fn debye_half_space_reflects_as_its_discrete_permittivity => dispersive::DEBYE, gpu: Full;
    /// The same for a Lorentz half-space.
    fn lorentz_half_space_reflects_as_its_discrete_permittivity => dispersive::LORENTZ, gpu: Full;
    /// The same for a half-space of the library's water (εs 80): discrete at 0.25–3 GHz,
    /// Fresnel at ≥ 25 cells/λ (0.25–1 GHz).
    fn water_half_space_reflects_as_its_discrete_permittivity => dispersive::WATER, gpu: Full;
    /// t of a Drude slab within 1e-4 of the discrete t_d, |t| within 2 % of the slab formula, 1–8 GHz.
    fn drude_slab_transmits_as_its_discrete_permittivity => dispersive::DRUDE, gpu: Full;
}

use fdtd::backend::cpu::CpuBackend;
use fdtd::backend::gpu::{GpuBackend, GpuConfig};
use fdtd::backend::{Backend, BackendError, BackendOptions, SolverState};
use fdtd::model::Model;
use fdtd::Simulation;
use fdtd_validation::column::Column;
use fdtd_validation::scene;
use std::sync::Arc;

/// A 30 × 28 × 24 mm box with CPML on x and y, PMC on z: a sphere of a 3-pole medium
/// (Debye + Drude + Lorentz, with σ) cutting into a Lorentz box, so edges average one or
/// two dispersive materials with vacuum; the source and probes sit in and beside them.
/// About 3·10⁴ dispersive samples in boxes of several rows (full and masked).
const BOX: &str = r#"
[domain]
cell = 1e-3
cells = [30, 28, 24]
[time]
steps = STEPS
[boundaries]
all = "cpml"
z = "pmc"
[boundaries.cpml]
cells = 4
[materials.soil]
eps_r = 3
sigma = 0.01
poles = [{ type = "debye", delta_eps = 6, tau = 2e-11 },
         { type = "drude", plasma_frequency = 5e9, damping = 2e9 },
         { type = "lorentz", delta_eps = 1.5, frequency = 3e10, damping = 4e9 }]
[materials.glass]
eps_r = 1.5
poles = [{ type = "lorentz", delta_eps = 2, frequency = 2e10, damping = 1e9 }]
[[objects]]
shape = "box"
material = "glass"
min = [0.018, 0.006, 0.0]
max = [0.024, 0.022, 0.024]
[[objects]]
shape = "sphere"
material = "soil"
center = [0.014, 0.014, 0.012]
radius = 0.009
[[sources]]
type = "current"
component = "Ez"
position = [0.007, 0.014, 0.012]
waveform = { type = "gaussian_derivative", frequency = 20e9 }
[[probes]]
name = "in"
position = [0.014, 0.014, 0.012]
components = ["Ez", "Ex", "Hy"]
[[probes]]
name = "glass"
position = [0.021, 0.010, 0.008]
components = ["Ez", "Ey"]
"#;

fn model(steps: usize) -> Arc<Simulation> {
    let text = BOX.replace("STEPS", &steps.to_string());
    Arc::new(Simulation::standard(
        Model::discretize(&scene(&text)).unwrap_or_else(|e| panic!("{e}")),
    ))
}

fn step(b: &mut dyn Backend, m: &Simulation, n0: usize, count: usize) {
    b.step(n0, count, &m.source_values(n0, count)).unwrap();
}

fn array<'s>(s: &'s SolverState, name: &str) -> &'s [f32] {
    &s.arrays
        .iter()
        .find(|a| a.name == name)
        .unwrap_or_else(|| panic!("no {name}"))
        .data
}

/// The model holds the pass, its state sits only in the boxes of dispersive samples
/// (less than the grid's E samples times the largest row's 4 floats), and resuming a
/// CPU run from its saved state (fields, ψ, the poles' `r`) is bit-identical to the
/// uninterrupted run: the CPU loop is deterministic, so equality is the bound. The
/// first part runs with 2 threads in the fused sweep (per slab), the second with 1.
#[test]
fn cpu_resume_of_the_pole_state_is_bit_identical() {
    let m = model(160);
    let d = m
        .schedule
        .passes
        .iter()
        .find(|p| p.pass.name() == "dispersive")
        .expect("a dispersive pass");
    let samples = m.schedule.state[d.state[0]].len();
    assert!(
        samples > 3 * 4096 && samples < 4 * 3 * m.grid.len(),
        "{samples} state floats"
    );
    let mut whole = CpuBackend::new(m.clone(), 2).unwrap();
    step(&mut whole, &m, 0, 160);
    let want = whole.save_state().unwrap();
    let mut first = CpuBackend::new(m.clone(), 2).unwrap();
    step(&mut first, &m, 0, 70);
    let mid = first.save_state().unwrap();
    let mut second = CpuBackend::new(m.clone(), 1).unwrap();
    second.load_state(&mid).unwrap();
    step(&mut second, &m, 70, 90);
    let got = second.save_state().unwrap();
    assert!(
        array(&want, "dispersive/r").iter().any(|&x| x != 0.0),
        "the poles moved"
    );
    for (a, b) in want.arrays.iter().zip(&got.arrays) {
        assert_eq!(a.name, b.name);
        assert!(a.data == b.data, "{} differs after resume", a.name);
    }
}

/// CPU and GPU agree within the regression tolerance of `gpu_parity.rs` (5e-4, argued
/// there) on every field and on the poles' state, and a GPU state resumed on the CPU
/// stays within it (measured on lavapipe: ≤ 1.3e-5; not
/// bit-exact as the non-dispersive cases are, since LLVM may contract the pole update's
/// multiply-adds). Not cut into slabs: a pass's state is one storage binding today, and
/// here it is larger than a field array, so a cap that splits the grid refuses the plan.
#[test]
fn gpu_matches_cpu_with_dispersive_media() {
    let m = model(150);
    let mut cpu = CpuBackend::new(m.clone(), 2).unwrap();
    step(&mut cpu, &m, 0, 150);
    let want = cpu.save_state().unwrap();
    {
        let cap: Option<u64> = None;
        let cfg = GpuConfig {
            binding_cap: cap,
            ..Default::default()
        };
        let mut gpu = match GpuBackend::with_config(m.clone(), &BackendOptions::default(), &cfg) {
            Ok(b) => b,
            Err(BackendError::NoDevice(why)) => {
                assert!(std::env::var_os("CI").is_none(), "CI needs a GPU adapter: {why}");
                eprintln!("skipped: no GPU adapter ({why})");
                return;
            }
            Err(e) => panic!("{e}"),
        };
        step(&mut gpu, &m, 0, 150);
        let got = gpu.save_state().unwrap();
        for name in ["Ex", "Ey", "Ez", "Hx", "Hy", "Hz", "dispersive/r"] {
            let e = fdtd_validation::rel_l2(array(&got, name), array(&want, name));
            println!("cap {cap:?}: {name} rel L2 {e:.2e}");
            assert!(e <= 5e-4, "{name}: CPU/GPU differ by {e:.2e} (cap {cap:?})");
        }
        // Resume across backends: the GPU's state (poles included) goes on on the CPU.
        let mut resumed = CpuBackend::new(m.clone(), 2).unwrap();
        resumed.load_state(&got).unwrap();
        step(&mut resumed, &m, 150, 50);
        let mut cpu2 = CpuBackend::new(m.clone(), 2).unwrap();
        cpu2.load_state(&want).unwrap();
        step(&mut cpu2, &m, 150, 50);
        let (a, b) = (resumed.save_state().unwrap(), cpu2.save_state().unwrap());
        for name in ["Ez", "Hy", "dispersive/r"] {
            let e = fdtd_validation::rel_l2(array(&a, name), array(&b, name));
            println!("GPU → CPU resume: {name} rel L2 {e:.2e}");
            assert!(e <= 5e-4, "{name}: GPU → CPU resume differs by {e:.2e}");
        }
    }
}

/// A periodic 1 × 1 column of `cells` 1 mm cells whose Debye soil (ε∞ 2, Δε 3, τ 30 ps,
/// σ 0.01) runs from plane 400 into the z+ CPML; an Ex probe in the soil at plane 700.
fn soil_column(cells: usize, steps: usize) -> Arc<Simulation> {
    let keys = "eps_r = 2\nsigma = 0.01\npoles = [{ type = \"debye\", delta_eps = 3, tau = 3e-11 }]";
    let text = Column {
        cells,
        steps,
        slab: Some((keys, 0.4, cells as f64 * 1e-3)),
        source: (0.3, "gaussian_derivative"),
        probes: &[("soil", 0.7)],
    }
    .toml();
    Arc::new(Simulation::standard(
        Model::discretize(&scene(&text)).unwrap_or_else(|e| panic!("{e}")),
    ))
}

fn soil_probe(m: &Model, sink: &fdtd::runner::MemorySink) -> Vec<f32> {
    sink.series(m, "soil", fdtd::Component::Ex).unwrap().1.to_vec()
}

/// A dispersive half-space that runs into the CPML: the absorber's reflection, seen in
/// the soil 160 cells before it, against a run whose column is long enough that nothing
/// comes back within the window, is ≤ −40 dB of the pulse's peak (measured in
/// docs/materials.md); the same column stays stable over 20 000 steps (the field left
/// at the probe is below 1e-4 of the peak, and finite). The CPML corrects ∇×H with the
/// dispersive row's own cb, so the stretched-coordinate absorber applies to the whole
/// (ε∞ + poles) medium.
#[test]
fn dispersive_half_space_into_the_cpml_is_absorbed_and_stays_stable() {
    // The pulse passes the probe by step ~1400; the CPML's echo is back by ~2800.
    let steps = 4200;
    let m = soil_column(900, steps);
    let mut b = CpuBackend::new(m.clone(), 2).unwrap();
    let near = soil_probe(&m, &fdtd_validation::run_model(&m, &mut b));
    let r = soil_column(3000, steps);
    let mut b = CpuBackend::new(r.clone(), 2).unwrap();
    let far = soil_probe(&r, &fdtd_validation::run_model(&r, &mut b));
    let peak = far.iter().fold(0f32, |a, &x| a.max(x.abs()));
    let (at, diff) =
        near.iter().zip(&far).enumerate().fold(
            (0, 0f32),
            |a, (i, (x, y))| if (x - y).abs() > a.1 { (i, (x - y).abs()) } else { a },
        );
    let db = 20.0 * (diff / peak).log10();
    println!("CPML in Debye soil: reflection {db:.1} dB of the peak, largest at step {at}");
    // The echo is inside the window (a window that ends before it would compare nothing).
    assert!((1500..steps - 200).contains(&at), "the echo peaks at step {at}");
    assert!(peak > 0.0 && db <= -40.0, "CPML reflection in the soil {db:.1} dB");

    let long = soil_column(900, 20_000);
    let mut b = CpuBackend::new(long.clone(), 2).unwrap();
    let s = soil_probe(&long, &fdtd_validation::run_model(&long, &mut b));
    let tail = s[19_000..].iter().fold(0f32, |a, &x| a.max(x.abs()));
    println!("after 20000 steps: {:.2e} of the peak", tail / peak);
    assert!(
        s.iter().all(|x| x.is_finite()) && tail <= 1e-4 * peak,
        "tail {tail:e} vs peak {peak:e}"
    );
}

/// A closed PEC cavity at Courant 0.99 holding a lossless Lorentz block and a Drude
/// block, rung by a pulse: over 20 000 steps the field energy stays bounded. It is not
/// conserved by itself (it trades with the poles' polarisation energy, and the Drude
/// damping removes some), so the bound is on growth: the largest energy in steps
/// 10 000–20 000 is at most the largest in 1 000–10 000. An unstable pole (or an
/// unstable coupling at Courant 0.99) grows exponentially and fails it by orders of
/// magnitude.
#[test]
fn energy_stays_bounded_in_a_cavity_with_lorentz_and_drude_objects() {
    let text = r#"
[domain]
cell = 1e-3
cells = [12, 11, 10]
[time]
steps = 20000
courant = 0.99
[boundaries]
all = "pec"
[materials.lorentz]
eps_r = 1.5
poles = [{ type = "lorentz", delta_eps = 2, frequency = 2e10, damping = 0 }]
[materials.drude]
eps_r = 1
poles = [{ type = "drude", plasma_frequency = 3e10, damping = 1e8 }]
[[objects]]
shape = "box"
material = "lorentz"
min = [0.002, 0.002, 0.002]
max = [0.006, 0.009, 0.008]
[[objects]]
shape = "box"
material = "drude"
min = [0.008, 0.003, 0.003]
max = [0.011, 0.008, 0.007]
[[sources]]
type = "current"
component = "Ez"
position = [0.007, 0.005, 0.005]
waveform = { type = "gaussian_derivative", frequency = 40e9 }
"#;
    let m = Arc::new(Simulation::standard(
        Model::discretize(&scene(text)).unwrap_or_else(|e| panic!("{e}")),
    ));
    let mut b = CpuBackend::new(m.clone(), 2).unwrap();
    let mut energy = Vec::new();
    let chunk = 500;
    for n0 in (0..20_000).step_by(chunk) {
        step(&mut b, &m, n0, chunk);
        let scans = b.scan_fields().unwrap();
        energy.push(fdtd::backend::scan_energy(&m, &scans));
    }
    let first = energy[2..20].iter().cloned().fold(0.0, f64::max);
    let last = energy[20..].iter().cloned().fold(0.0, f64::max);
    println!("field energy: max {first:.3e} (1k–10k steps), {last:.3e} (10k–20k steps)");
    assert!(energy.iter().all(|e| e.is_finite()) && first > 0.0);
    assert!(last <= first, "energy grew: {first:e} then {last:e}");
}

/// A dispersive state larger than the device's largest storage binding is refused
/// before anything is allocated, with the pass, its size and a fix that fits dispersive
/// media (not a monitor's advice): here a binding cap of 8 x-planes of a field array,
/// which cuts the grid into pieces but not the pass's one state buffer.
#[test]
fn a_dispersive_state_past_the_binding_is_refused_with_its_fix() {
    let m = model(10);
    let plane = 4 * (m.grid.dims()[1] * m.grid.dims()[2]) as u64;
    let cfg = GpuConfig {
        binding_cap: Some(8 * plane),
        ..Default::default()
    };
    match GpuBackend::with_config(m.clone(), &BackendOptions::default(), &cfg) {
        Err(BackendError::NoDevice(why)) => {
            assert!(std::env::var_os("CI").is_none(), "CI needs a GPU adapter: {why}");
            eprintln!("skipped: no GPU adapter ({why})");
        }
        Err(BackendError::DoesNotFit(msg)) => {
            assert!(msg.contains("pass `dispersive` keeps"), "{msg}");
            assert!(
                msg.contains("smaller dispersive region") && msg.contains("CPU"),
                "{msg}"
            );
            assert!(!msg.contains("monitors"), "{msg}");
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!(
            "a state of {} floats passed a cap of {} B",
            m.schedule.state.len(),
            8 * plane
        ),
    }
}

//! Frequency-domain monitors (`fdtd_core::monitors`) on both backends:
//! - the analytic cases (`fdtd_validation::cases::monitors`): a DFT monitor's phasor is the
//!   transform of the probe series at its sample, and a Hertzian dipole's flux is its
//!   radiated power, the same through two boxes and through the far-field surface;
//! - the CPU and the GPU (lavapipe in CI; split into x slabs, so records are split by
//!   piece) accumulate the same state, within 1e-5 of each array's peak;
//! - the state resumes: a run stopped half-way, saved and loaded (on the same or the other
//!   backend), ends with the state of an uninterrupted run.
//!
//! Without an adapter the GPU half prints "skipped" and passes, unless `CI` is set.
use fdtd::backend::gpu::{GpuBackend, GpuConfig};
use fdtd::backend::{Backend, BackendError, BackendOptions};
use fdtd::model::Model;
use fdtd_validation::scene;
use std::sync::Arc;

fdtd_validation::backend_tests! {
    /// Ez and Hy phasors at one sample against the f64 transform of the probe series: 1e-4.
    fn dft_monitor_matches_the_transform_of_the_probe_series => monitors::SIGNAL, gpu: Full;
    /// Dipole flux = η(k·Il)²/(12π) within 3 %, two boxes within 1 %, far-field surface = flux.
    fn dipole_flux_matches_radiated_power_and_is_box_independent => monitors::FLUX, gpu: Full;
}

const SCENE: &str = r#"
[domain]
cell = 1e-3
cells = [20, 14, 12]
[time]
steps = 200
[boundaries]
all = "cpml"
[boundaries.cpml]
cells = 3
[[sources]]
type = "current"
component = "Ez"
position = [0.010, 0.007, 0.0065]
waveform = { type = "ricker", frequency = 6e9 }
[[monitors]]
name = "plane"
type = "dft"
components = ["Ez", "Hx", "Hy"]
frequencies = [5e9, 10e9, 15e9]
plane = { axis = "y", position = 0.007, min = [0.004, 0, 0.003], max = [0.016, 0, 0.009] }
[[monitors]]
name = "flux"
type = "flux"
frequencies = { start = 5e9, stop = 15e9, points = 2 }
box = { min = [0.008, 0.005, 0.004], max = [0.012, 0.009, 0.008] }
[[farfield]]
name = "ff"
frequencies = [10e9]
box = { min = [0.007, 0.004, 0.004], max = [0.013, 0.010, 0.009] }
"#;

fn model() -> Arc<fdtd_core::Simulation> {
    Arc::new(fdtd_core::Simulation::standard(
        Model::discretize(&scene(SCENE)).unwrap(),
    ))
}

fn names(m: &Model) -> Vec<String> {
    m.monitors
        .iter()
        .flat_map(|x| [format!("{}/re", x.pass_name()), format!("{}/im", x.pass_name())])
        .collect()
}

fn read(b: &mut dyn Backend, m: &Model) -> Vec<Vec<f32>> {
    let n = names(m);
    let refs: Vec<&str> = n.iter().map(String::as_str).collect();
    b.read_state(&refs).unwrap()
}

fn run(m: &Model, b: &mut dyn Backend, n0: usize, n1: usize, chunk: usize) {
    let mut n = n0;
    while n < n1 {
        let count = chunk.min(n1 - n);
        b.step(n, count, &m.source_values(n, count)).unwrap();
        b.drain_outputs().unwrap();
        n += count;
    }
}

fn gpu(m: &Arc<fdtd_core::Simulation>) -> Option<GpuBackend> {
    // One y-z plane is 15 × 13 floats: a cap of 18 planes cuts the 21 x planes into
    // slabs (and still holds each monitor's state).
    let cfg = GpuConfig {
        binding_cap: Some(15 * 13 * 4 * 18),
        ..Default::default()
    };
    match GpuBackend::with_config(m.clone(), &BackendOptions::default(), &cfg) {
        Ok(b) => Some(b),
        Err(BackendError::NoDevice(why)) => {
            if std::env::var_os("CI").is_some() {
                panic!("CI is set, so a GPU adapter (lavapipe) must exist, but: {why}");
            }
            eprintln!("skipped: no GPU adapter ({why})");
            None
        }
        Err(e) => panic!("GPU backend: {e}"),
    }
}

/// max |a − b| over max |a|.
fn max_rel(a: &[f32], b: &[f32]) -> f64 {
    assert_eq!(a.len(), b.len());
    let peak = a.iter().fold(0f32, |m, v| m.max(v.abs())) as f64;
    assert!(peak > 0.0, "the monitor recorded something");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() as f64 / peak)
        .fold(0.0, f64::max)
}

#[test]
fn monitor_state_is_the_same_on_cpu_and_gpu_and_resumes() {
    let m = model();
    let steps = m.grid.steps;
    assert!(
        m.monitors.iter().all(|x| x.every > 1),
        "decimated: {:?}",
        m.monitors.iter().map(|x| x.every).collect::<Vec<_>>()
    );
    let mut cpu = fdtd::backend::cpu::CpuBackend::new(m.clone(), 0).unwrap();
    run(&m, &mut cpu, 0, steps, 7);
    let whole = read(&mut cpu, &m);
    // read_state is save_state's arrays.
    let saved = cpu.save_state().unwrap();
    for (name, a) in names(&m).iter().zip(&whole) {
        assert_eq!(saved.get(name).unwrap(), &a[..], "{name}");
    }

    // CPU → CPU resume, half-way and off the decimation grid: bit for bit.
    let half = 101;
    let mut a = fdtd::backend::cpu::CpuBackend::new(m.clone(), 0).unwrap();
    run(&m, &mut a, 0, half, 5);
    let mid = a.save_state().unwrap();
    let mut b = fdtd::backend::cpu::CpuBackend::new(m.clone(), 0).unwrap();
    b.load_state(&mid).unwrap();
    run(&m, &mut b, half, steps, 9);
    assert_eq!(read(&mut b, &m), whole, "a resumed CPU run ends with the same state");

    // GPU in slabs, one step per submission for part of the run: the same state.
    let Some(mut g) = gpu(&m) else { return };
    run(&m, &mut g, 0, 13, 1);
    run(&m, &mut g, 13, steps, 64);
    let on_gpu = read(&mut g, &m);
    let gsaved = g.save_state().unwrap();
    for ((name, c), gv) in names(&m).iter().zip(&whole).zip(&on_gpu) {
        let d = max_rel(c, gv);
        println!("{name}: CPU vs GPU {d:.2e}");
        assert!(d <= 1e-5, "{name}: CPU and GPU differ by {d:e}");
        assert_eq!(
            gsaved.get(name).unwrap(),
            &gv[..],
            "GPU read_state = save_state for {name}"
        );
    }

    // GPU → CPU resume.
    let Some(mut g) = gpu(&m) else { return };
    run(&m, &mut g, 0, half, 6);
    let mid = g.save_state().unwrap();
    let mut c2 = fdtd::backend::cpu::CpuBackend::new(m.clone(), 0).unwrap();
    c2.load_state(&mid).unwrap();
    run(&m, &mut c2, half, steps, 7);
    for ((name, c), r) in names(&m).iter().zip(&whole).zip(&read(&mut c2, &m)) {
        let d = max_rel(c, r);
        assert!(d <= 1e-5, "{name}: GPU → CPU resume differs by {d:e}");
    }
}

#[test]
fn a_monitor_larger_than_a_storage_binding_is_refused_up_front() {
    let m = model();
    // A binding cap of 6 x planes: the fields fit in slabs, the far-field box's state not.
    let cap = 15 * 13 * 4 * 6;
    let ff = m.monitors.iter().find(|x| x.name == "plane").unwrap();
    assert!(ff.state_bytes() > cap);
    let cfg = GpuConfig {
        binding_cap: Some(cap),
        ..Default::default()
    };
    match GpuBackend::with_config(m.clone(), &BackendOptions::default(), &cfg) {
        Err(BackendError::NoDevice(why)) => eprintln!("skipped: no GPU adapter ({why})"),
        Err(BackendError::DoesNotFit(msg)) => {
            assert!(msg.contains("storage binding") && msg.contains("monitor"), "{msg}");
        }
        Err(e) => panic!("unexpected error: {e}"),
        Ok(_) => panic!(
            "a {} B monitor state was accepted under a {cap} B binding cap",
            ff.state_bytes()
        ),
    }
}

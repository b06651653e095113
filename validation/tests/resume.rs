//! Checkpoint and resume through the library API: a run that fails after its last
//! checkpoint (its output already holds later samples) resumes from the checkpoint and
//! ends with an output file whose every probe and snapshot dataset is bit-identical to
//! that of an uninterrupted run. The CPU step loop is deterministic (no reductions, the
//! same f32 operations in the same order whatever the chunking), so exact equality is
//! the right bound on the CPU.
//!
//! Across backends (a checkpoint written on the CPU resumed on the GPU and back) the
//! bound is the CPU/GPU regression tolerance of `gpu_parity.rs`. Those tests run only
//! where a GPU adapter exists and the GPU backend can save and load its state; otherwise
//! they print why they were skipped.
use fdtd::backend::cpu::CpuBackend;
use fdtd::backend::gpu::GpuBackend;
use fdtd::backend::{Backend, BackendError, BackendOptions, PassOutputs, SolverState};
use fdtd::checkpoint::{self, Interval};
use fdtd::model::Model;
use fdtd::output::{Hdf5Options, Hdf5Sink};
use fdtd::runner::{self, CheckpointOptions, Fault, MemorySink, Outcome, RunError, RunOptions};
use fdtd::scene::Scene;
use fdtd::Component;
use fdtd_validation::rel_l2;
use std::path::Path;
use std::sync::Arc;

/// A small lossy scene with CPML, PEC, a dielectric, probes with `every` 1 and 3, and
/// two snapshots (`every` 10 and 25): 200 steps.
const SCENE: &str = r#"
[domain]
cell = 1e-3
cells = [16, 14, 12]
[time]
steps = 200
[boundaries]
all = "cpml"
z = "pec"
[boundaries.cpml]
cells = 4
[materials.glass]
eps_r = 3
sigma = 0.02
[[objects]]
shape = "sphere"
material = "glass"
center = [0.011, 0.007, 0.006]
radius = 0.003
[[sources]]
type = "current"
component = "Ez"
position = [0.005, 0.007, 0.006]
waveform = { type = "gaussian", frequency = 20e9 }
[[probes]]
name = "a"
position = [0.008, 0.007, 0.006]
components = ["Ez", "Hy", "Ex"]
[[probes]]
name = "b"
position = [0.012, 0.005, 0.004]
components = ["Hz"]
every = 3
[[snapshots]]
name = "plane"
components = ["Ez", "Hx"]
every = 10
plane = { axis = "z", position = 0.006 }
[[snapshots]]
name = "vol"
components = ["Ey"]
every = 25
"#;

fn setup() -> (Scene, Arc<fdtd_core::Simulation>) {
    let scene = Scene::parse(SCENE, "resume.toml").unwrap_or_else(|e| panic!("{e}"));
    let model = Arc::new(fdtd_core::Simulation::standard(Model::discretize(&scene).unwrap()));
    (scene, model)
}

/// Every dataset under /probes and /snapshots, as raw bits, by path (probe tables'
/// column metadata, strings, by their length).
fn datasets(path: &Path) -> Vec<(String, Vec<usize>, Vec<u64>)> {
    let f = hdf5::File::open(path).unwrap();
    let mut out = Vec::new();
    for top in ["probes", "snapshots"] {
        let g = f.group(top).unwrap();
        for name in g.member_names().unwrap() {
            let sub = g.group(&name).unwrap();
            for ds_name in sub.member_names().unwrap() {
                let ds = sub.dataset(&ds_name).unwrap();
                let key = format!("/{top}/{name}/{ds_name}");
                let bits: Vec<u64> = if ds_name.starts_with("time") || ds_name.ends_with("position") {
                    ds.read_raw::<f64>().unwrap().iter().map(|x| x.to_bits()).collect()
                } else if ds_name == "index" {
                    ds.read_raw::<u64>().unwrap()
                } else if ["probe", "component", "units"].contains(&ds_name.as_str()) {
                    vec![ds.size() as u64]
                } else {
                    ds.read_raw::<f32>()
                        .unwrap()
                        .iter()
                        .map(|x| x.to_bits() as u64)
                        .collect()
                };
                out.push((key, ds.shape(), bits));
            }
        }
    }
    out.sort();
    out
}

/// The `/probes` attribute `layout`.
fn f_layout(path: &Path) -> String {
    let f = hdf5::File::open(path).unwrap();
    let a = f.group("probes").unwrap().attr("layout").unwrap();
    a.read_scalar::<hdf5::types::VarLenUnicode>()
        .unwrap()
        .as_str()
        .to_string()
}

fn status(path: &Path) -> String {
    Hdf5Sink::inspect(path).unwrap().status
}

fn ck_opts(path: &Path, sink: &Hdf5Sink, every: usize) -> CheckpointOptions {
    CheckpointOptions {
        path: checkpoint::default_path(path),
        interval: Interval {
            steps: Some(every),
            time: None,
        },
        fingerprint: sink.fingerprint(),
        run_id: sink.run_id(),
    }
}

/// An uninterrupted run into `path`.
fn reference(scene: &Scene, model: &Arc<fdtd_core::Simulation>, path: &Path, out: &Hdf5Options) {
    let mut b = CpuBackend::new(model.clone(), 1).unwrap();
    let mut sink = Hdf5Sink::create_with(path, scene, model, "cpu", out).unwrap();
    let s = runner::run(model, &mut b, &mut sink, &RunOptions::default(), None).unwrap();
    sink.finish(s.outcome).unwrap();
}

#[test]
fn a_failed_run_resumes_bit_identical() {
    failed_run_resumes_bit_identical(&Hdf5Options::default(), "groups");
}

/// The same with the probes written as tables (`/probes/every_<k>/values`).
#[test]
fn a_failed_run_resumes_bit_identical_with_probe_tables() {
    let out = Hdf5Options {
        probe_table_threshold: 0,
        ..Hdf5Options::default()
    };
    failed_run_resumes_bit_identical(&out, "table");
}

fn failed_run_resumes_bit_identical(out: &Hdf5Options, layout: &str) {
    let (scene, model) = setup();
    let dir = tempfile::tempdir().unwrap();
    let ref_path = dir.path().join("ref.h5");
    reference(&scene, &model, &ref_path, out);

    // Checkpoints every 40 steps; the device is lost at step 137: chunks end at the
    // snapshot steps (every 10), so the output holds 130 steps, the checkpoint 120.
    let path = dir.path().join("run.h5");
    let opts_for = |sink: &Hdf5Sink| RunOptions {
        chunk: 16,
        checkpoint: Some(ck_opts(&path, sink, 40)),
        fault: Some(Fault {
            at_step: 137,
            state_lost: true,
            panic: false,
        }),
        scan_every: 50,
        ..RunOptions::default()
    };
    {
        let mut b = CpuBackend::new(model.clone(), 1).unwrap();
        let mut sink = Hdf5Sink::create_with(&path, &scene, &model, "cpu", out).unwrap();
        let opts = opts_for(&sink);
        let err = runner::run(&model, &mut b, &mut sink, &opts, None).unwrap_err();
        match &err {
            RunError::Backend {
                step,
                error: BackendError::DeviceLost(_),
                saved: None,
            } => assert_eq!(*step, 130),
            other => panic!("expected a simulated device loss, got {other}"),
        }
        sink.fail(&err.to_string()).unwrap();
    }
    assert_eq!(status(&path), "failed");
    let ck = checkpoint::default_path(&path);
    assert_eq!(checkpoint::read_header(&ck).unwrap().step, 120);

    // Resume: the output is cut back to 120 steps, then the run goes on to the end.
    let mut b = CpuBackend::new(model.clone(), 2).unwrap();
    // The file holds 130 steps of samples; the resume cuts them back to 120.
    let rows = |f: &hdf5::File| {
        let name = if layout == "table" {
            "probes/every_1/values"
        } else {
            "probes/a/Ez"
        };
        f.dataset(name).unwrap().shape()[0]
    };
    assert_eq!(rows(&hdf5::File::open(&path).unwrap()), 130);
    let mut sink = Hdf5Sink::resume(&path, &scene, &model, "cpu", 120, &Hdf5Options::default()).unwrap();
    assert_eq!(rows(&hdf5::File::open(&path).unwrap()), 120);
    let mut opts = opts_for(&sink);
    opts.fault = None;
    let (step, notes) = runner::resume_state(&model, &mut b, opts.checkpoint.as_ref().unwrap()).unwrap();
    assert_eq!((step, notes.len()), (120, 0));
    opts.start = step;
    opts.chunk = 23; // other chunk boundaries than before: the output must not care
    let s = runner::run(&model, &mut b, &mut sink, &opts, None).unwrap();
    assert_eq!((s.outcome, s.first_step, s.steps_done), (Outcome::Finished, 120, 200));
    sink.finish(s.outcome).unwrap();
    assert_eq!(status(&path), "complete");

    let (want, got) = (datasets(&ref_path), datasets(&path));
    let probes = f_layout(&path);
    assert_eq!(probes, layout);
    assert_eq!(want.len(), got.len());
    for ((kw, sw, bw), (kg, sg, bg)) in want.iter().zip(&got) {
        assert_eq!((kw, sw), (kg, sg));
        assert!(bw == bg, "{kw}: the resumed run differs from the uninterrupted one");
    }
    let f = hdf5::File::open(&path).unwrap();
    assert_eq!(f.attr("resumes").unwrap().read_scalar::<u64>().unwrap(), 1);
    assert_eq!(f.attr("resumed_at_step").unwrap().read_scalar::<u64>().unwrap(), 120);
}

#[test]
fn a_readable_state_is_saved_after_a_failure_and_resume_refuses_other_runs() {
    let (scene, model) = setup();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.h5");
    let mut b = CpuBackend::new(model.clone(), 1).unwrap();
    let mut sink = Hdf5Sink::create(&path, &scene, &model, "cpu", false).unwrap();
    let opts = RunOptions {
        checkpoint: Some(ck_opts(&path, &sink, 1000)),
        fault: Some(Fault {
            at_step: 95,
            state_lost: false,
            panic: false,
        }),
        ..RunOptions::default()
    };
    let err = runner::run(&model, &mut b, &mut sink, &opts, None).unwrap_err();
    let RunError::Backend { step, saved, .. } = err else {
        panic!("expected a backend error, got {err}");
    };
    assert_eq!((step, saved), (90, Some(90)));
    sink.fail("simulated").unwrap();
    let ck = opts.checkpoint.as_ref().unwrap();
    assert_eq!(checkpoint::read_header(&ck.path).unwrap().step, 90);

    // Another run's output id, another scene: refused, nothing loaded.
    let mut other = ck.clone();
    other.run_id ^= 1;
    let e = runner::resume_state(&model, &mut b, &other).unwrap_err().to_string();
    assert!(e.contains("another output file"), "{e}");
    let changed = Scene::parse(&SCENE.replace("sigma = 0.02", "sigma = 0.03"), "x.toml").unwrap();
    other = ck.clone();
    other.fingerprint = checkpoint::fingerprint(&changed, &model);
    let e = runner::resume_state(&model, &mut b, &other).unwrap_err().to_string();
    assert!(e.contains("the scene has changed"), "{e}");
    let e = Hdf5Sink::resume(&path, &changed, &model, "cpu", 90, &Hdf5Options::default())
        .err()
        .expect("another scene is refused")
        .to_string();
    assert!(e.contains("another scene"), "{e}");
    // A checkpoint ahead of its output file (output cut short) is refused.
    let e = Hdf5Sink::resume(&path, &scene, &model, "cpu", 150, &Hdf5Options::default())
        .err()
        .expect("an output behind its checkpoint is refused")
        .to_string();
    assert!(e.contains("behind"), "{e}");
}

#[test]
fn non_finite_fields_stop_the_run_with_their_location() {
    let (_, model) = setup();
    // Poison one H sample far from every probe: the field scan finds it.
    let mut b = CpuBackend::new(model.clone(), 1).unwrap();
    let mut state = b.save_state().unwrap();
    let g = &model.grid;
    let at = [2usize, 12, 3];
    state.field_mut(Component::Hx)[g.idx(at[0], at[1], at[2])] = f32::NAN;
    b.load_state(&state).unwrap();
    let mut sink = MemorySink::new(&model);
    let opts = RunOptions {
        chunk: 8,
        scan_every: 8,
        ..RunOptions::default()
    };
    let err = runner::run(&model, &mut b, &mut sink, &opts, None).unwrap_err();
    let RunError::Unstable(bad) = &err else {
        panic!("expected an instability, got {err}");
    };
    assert!(bad.value.is_nan());
    assert!(bad.step <= 16, "found only after step {}", bad.step);
    let msg = err.to_string();
    assert!(msg.starts_with("numerical instability: "), "{msg}");
    assert!(
        msg.contains("likely causes") && msg.contains("Courant factor is 0.99"),
        "{msg}"
    );
    // It started inside a CPML layer (x_min and y_max hold the sample), and spreads.
    assert!(msg.contains("CPML layer"), "{msg}");

    // A runaway value at a probe sample is caught within the chunk.
    let mut b = CpuBackend::new(model.clone(), 1).unwrap();
    let mut state = b.save_state().unwrap();
    let s = &model.probes[0].samples[0];
    state.field_mut(s.component)[s.flat] = 3e33;
    b.load_state(&state).unwrap();
    let mut sink = MemorySink::new(&model);
    let opts = RunOptions {
        chunk: 8,
        scan_every: 0,
        ..RunOptions::default()
    };
    let err = runner::run(&model, &mut b, &mut sink, &opts, None).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("runaway growth") && msg.contains("probe `a`"), "{msg}");
}

/// Compare two in-memory runs within the CPU/GPU regression tolerance; prints the worst.
fn assert_close(model: &Model, a: &MemorySink, b: &MemorySink, what: &str) {
    const TOLERANCE: f64 = 1e-4;
    let mut worst = 0f64;
    for (p, probe) in model.probes.iter().enumerate() {
        for (s, sample) in probe.samples.iter().enumerate() {
            let e = rel_l2(&a.probes[p][s].1, &b.probes[p][s].1);
            worst = worst.max(e);
            assert!(
                e <= TOLERANCE,
                "{what}: probe {} {}: {e:e}",
                probe.name,
                sample.component
            );
        }
    }
    for (si, snap) in model.snapshots.iter().enumerate() {
        for (fa, fb) in a.snapshots[si].iter().zip(&b.snapshots[si]) {
            let e = rel_l2(&fa.2, &fb.2);
            worst = worst.max(e);
            assert!(e <= TOLERANCE, "{what}: snapshot {} {}: {e:e}", snap.name, fa.0);
        }
    }
    eprintln!("{what}: worst relative L2 difference from the CPU run {worst:.2e} (bound {TOLERANCE:e})");
}

/// A GPU backend that can save and load its state, or None with the reason printed.
fn gpu_with_state(model: &Arc<fdtd_core::Simulation>) -> Option<GpuBackend> {
    let mut g = match GpuBackend::new(model.clone(), &BackendOptions::default()) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("skipped: no GPU backend ({e})");
            return None;
        }
    };
    match g.save_state() {
        Ok(_) => Some(g),
        Err(BackendError::Unsupported(why)) => {
            eprintln!("skipped: the GPU backend cannot save its state yet ({why})");
            None
        }
        Err(e) => panic!("GPU save_state: {e}"),
    }
}

/// Run `first` to `split` steps, move its state to `second` (through a checkpoint file)
/// and finish there; the samples of both parts together.
fn split_run(
    model: &Arc<fdtd_core::Simulation>,
    first: &mut dyn Backend,
    second: &mut dyn Backend,
    split: usize,
) -> MemorySink {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.ckpt");
    let mut sink = MemorySink::new(model);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let opts = RunOptions {
        chunk: 10,
        stop: Some(stop.clone()),
        checkpoint: Some(CheckpointOptions {
            path: path.clone(),
            interval: Interval::default_time(),
            fingerprint: 1,
            run_id: 2,
        }),
        ..RunOptions::default()
    };
    let mut progress = |p: &runner::ProgressInfo| {
        if p.step >= split {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    };
    let s = runner::run(model, first, &mut sink, &opts, Some(&mut progress)).unwrap();
    assert_eq!(
        (s.outcome, s.steps_done, s.checkpoint),
        (Outcome::Interrupted, split, Some(split))
    );
    let (step, _) = runner::resume_state(model, second, opts.checkpoint.as_ref().unwrap()).unwrap();
    let opts = RunOptions {
        start: step,
        ..RunOptions::default()
    };
    runner::run(model, second, &mut sink, &opts, None).unwrap();
    sink
}

#[test]
fn gpu_checkpoints_resume_on_the_other_backend() {
    let (_, model) = setup();
    let Some(mut gpu) = gpu_with_state(&model) else {
        return;
    };
    let mut cpu = CpuBackend::new(model.clone(), 0).unwrap();
    let reference = fdtd_validation::run_model(&model, &mut cpu);
    // CPU → GPU.
    let mut cpu = CpuBackend::new(model.clone(), 0).unwrap();
    let mixed = split_run(&model, &mut cpu, &mut gpu, 100);
    assert_close(&model, &reference, &mixed, "CPU then GPU");
    // GPU → CPU.
    let mut gpu = gpu_with_state(&model).unwrap();
    let mut cpu = CpuBackend::new(model.clone(), 0).unwrap();
    let mixed = split_run(&model, &mut gpu, &mut cpu, 70);
    assert_close(&model, &reference, &mixed, "GPU then CPU");
    // GPU → GPU.
    let mut g1 = gpu_with_state(&model).unwrap();
    let mut g2 = gpu_with_state(&model).unwrap();
    let mixed = split_run(&model, &mut g1, &mut g2, 130);
    assert_close(&model, &reference, &mixed, "GPU then GPU");
}

#[test]
fn cpu_to_cpu_through_a_checkpoint_file_is_exact() {
    let (_, model) = setup();
    let mut cpu = CpuBackend::new(model.clone(), 1).unwrap();
    let reference = fdtd_validation::run_model(&model, &mut cpu);
    let mut a = CpuBackend::new(model.clone(), 1).unwrap();
    let mut b = CpuBackend::new(model.clone(), 2).unwrap();
    let mixed = split_run(&model, &mut a, &mut b, 90);
    for (p, q) in reference.probes.iter().zip(&mixed.probes) {
        for (x, y) in p.iter().zip(q) {
            assert_eq!(x.0, y.0);
            assert!(x.1.iter().zip(&y.1).all(|(u, v)| u.to_bits() == v.to_bits()));
        }
    }
    assert_eq!(reference.snapshots, mixed.snapshots);
}

/// A GPU backend whose device is really destroyed (as a driver reset does) when the run
/// reaches step `at`.
struct LosesDevice {
    gpu: GpuBackend,
    at: usize,
}

impl Backend for LosesDevice {
    fn describe(&self) -> String {
        self.gpu.describe()
    }
    fn step(&mut self, n0: usize, count: usize, sources: &[f32]) -> Result<(), BackendError> {
        if n0 + count > self.at {
            self.gpu.inject_device_loss();
        }
        self.gpu.step(n0, count, sources)
    }
    fn drain_outputs(&mut self) -> Result<PassOutputs, BackendError> {
        self.gpu.drain_outputs()
    }
    fn read_region(&mut self, c: Component, lo: [usize; 3], hi: [usize; 3]) -> Result<Vec<f32>, BackendError> {
        self.gpu.read_region(c, lo, hi)
    }
    fn read_field(&mut self, c: Component) -> Result<Vec<f32>, BackendError> {
        self.gpu.read_field(c)
    }
    fn save_state(&mut self) -> Result<SolverState, BackendError> {
        self.gpu.save_state()
    }
    fn load_state(&mut self, state: &SolverState) -> Result<(), BackendError> {
        self.gpu.load_state(state)
    }
}

/// Keep only the samples and frames of the first `step` steps (what `--resume` does to
/// the output file).
fn cut(model: &Model, sink: &mut MemorySink, step: usize) {
    for (p, probe) in model.probes.iter().enumerate() {
        for slot in &mut sink.probes[p] {
            slot.0.truncate(step / probe.every);
            slot.1.truncate(step / probe.every);
        }
    }
    for (s, snap) in model.snapshots.iter().enumerate() {
        sink.snapshots[s].truncate(step / snap.every * snap.components.len());
    }
}

#[test]
fn gpu_device_loss_then_resume_on_the_cpu() {
    let (_, model) = setup();
    let Some(gpu) = gpu_with_state(&model) else {
        return;
    };
    let mut cpu = CpuBackend::new(model.clone(), 0).unwrap();
    let reference = fdtd_validation::run_model(&model, &mut cpu);

    let dir = tempfile::tempdir().unwrap();
    let ck = CheckpointOptions {
        path: dir.path().join("gpu.ckpt"),
        interval: Interval {
            steps: Some(40),
            time: None,
        },
        fingerprint: 3,
        run_id: 4,
    };
    let mut lost = LosesDevice { gpu, at: 137 };
    let mut sink = MemorySink::new(&model);
    let opts = RunOptions {
        chunk: 16,
        checkpoint: Some(ck.clone()),
        ..RunOptions::default()
    };
    let err = runner::run(&model, &mut lost, &mut sink, &opts, None).unwrap_err();
    let RunError::Backend {
        error: BackendError::DeviceLost(msg),
        saved: None,
        ..
    } = &err
    else {
        panic!("expected a device loss, got {err}");
    };
    eprintln!("device lost: {msg}");
    // The checkpoint of step 120, written from the GPU, continues on the CPU.
    let mut cpu = CpuBackend::new(model.clone(), 0).unwrap();
    let (step, _) = runner::resume_state(&model, &mut cpu, &ck).unwrap();
    assert_eq!(step, 120);
    cut(&model, &mut sink, step);
    let opts = RunOptions {
        start: step,
        ..RunOptions::default()
    };
    runner::run(&model, &mut cpu, &mut sink, &opts, None).unwrap();
    assert_close(&model, &reference, &sink, "GPU lost at step 137, resumed on the CPU");
}

//! An extension pass defined outside the solver crates, as a user or a new feature
//! would write one (`docs/architecture.md`, "How to add a pass"): a running peak of
//! |field| × scale at a few samples, with a state array, a parameter, records and one
//! output stream per sample. It runs on the CPU and on the GPU (lavapipe in CI; several
//! x slabs, so records are split by piece) with no change to either backend, and:
//! - both backends give the same streams and the same state, bit for bit (the pass does
//!   one multiply and one max per sample, and the fields agree bit for bit on lavapipe;
//!   a real GPU may contract differently, so the bound is 1e-6 relative);
//! - the streams are the peaks of the probe samples recorded by the `probes` pass at the
//!   same points (an independent path), times the scale;
//! - its state is saved by name and carried across backends: a GPU state loaded on the
//!   CPU continues to the same result.
//!
//! Like `gpu_parity.rs`: without an adapter the GPU half prints "skipped" and passes,
//! unless `CI` is set.
use fdtd::backend::gpu::{GpuBackend, GpuConfig};
use fdtd::backend::{probe_buffers, Backend, BackendError, BackendOptions, PassOutputs};
use fdtd::model::Model;
use fdtd::Component;
use fdtd_core::pass::{due, DevicePass, Entry, Hook, HostCtx, Pass, Record, Scope, Stream};
use fdtd_core::schedule::Stage;
use fdtd_core::state::ArraySpec;
use fdtd_core::Simulation;
use fdtd_validation::scene;
use std::sync::Arc;

const SCENE: &str = r#"
[domain]
cell = 1e-3
cells = [16, 10, 8]
[time]
steps = 60
[boundaries]
all = "cpml"
[boundaries.cpml]
cells = 3
[[sources]]
type = "current"
component = "Ez"
position = [0.008, 0.005, 0.004]
waveform = { type = "ricker", frequency = 30e9 }
[[probes]]
name = "a"
position = [0.004, 0.005, 0.004]
components = ["Ez", "Hy"]
[[probes]]
name = "b"
position = [0.012, 0.003, 0.005]
components = ["Ez"]
"#;

const SCALE: f32 = 2.5;
const EVERY: usize = 3;

/// Running max of |field| × `params[0]` at each record's sample, kept in the state
/// array `peak`, streamed every [`EVERY`] steps.
#[derive(Debug)]
struct Peak {
    /// (component, flat index, grid index), one per record and stream.
    samples: Vec<(usize, usize, [usize; 3])>,
}

const PEAK_WGSL: &str = r#"
// Records: (component 0..5, local index, stream and peak index, every).
@compute @workgroup_size(WG, 1, 1)
fn track_peak(@builtin(global_invocation_id) gid: vec3<u32>) {
    let q = gid.x;
    if (q >= arrayLength(&records)) {
        return;
    }
    let e = records[q];
    let l = e.y;
    var v: f32;
    switch e.x {
        case 0u: { v = ex[l]; }
        case 1u: { v = ey[l]; }
        case 2u: { v = ez[l]; }
        case 3u: { v = hx[l]; }
        case 4u: { v = hy[l]; }
        default: { v = hz[l]; }
    }
    let m = max(state[e.z], abs(v) * bitcast<f32>(params[0]));
    state[e.z] = m;
    if ((step.n + 1u) % e.w == 0u) {
        let slot = (step.n + 1u) / e.w - step.n0 / e.w - 1u;
        out[e.z * SLOTS + slot] = m;
    }
}
"#;

impl Pass for Peak {
    fn name(&self) -> &str {
        "peak"
    }
    fn describe(&self) -> String {
        format!("running peak at {} sample(s)", self.samples.len())
    }
    fn hook(&self) -> Hook {
        Hook::EndOfStep
    }
    fn state(&self) -> Vec<ArraySpec> {
        vec![ArraySpec::new("peak", [self.samples.len(), 1, 1])]
    }
    fn outputs(&self) -> Vec<Stream> {
        vec![Stream { every: EVERY }; self.samples.len()]
    }
    fn host(&self, ctx: &mut HostCtx<'_>) {
        for (q, &(c, flat, _)) in self.samples.iter().enumerate() {
            let v = *ctx.fields.at(c, flat);
            let peak = &mut ctx.state[0][q];
            *peak = peak.max(v.abs() * SCALE);
            if due(EVERY, ctx.step) {
                ctx.out[q].push(*peak);
            }
        }
    }
    fn device(&self) -> DevicePass {
        DevicePass {
            regions: Vec::new(),
            file: "tests/peak.wgsl",
            wgsl: PEAK_WGSL,
            entry: "track_peak",
            serial: false,
            records: self
                .samples
                .iter()
                .enumerate()
                .map(|(q, &(c, _, at))| Record {
                    at,
                    words: [c as u32, 0, q as u32, EVERY as u32],
                })
                .collect(),
            params: vec![SCALE.to_bits()],
            only_when_due: false,
        }
    }
}

/// The scene's model, its probes sampled every `probe_every` steps, with [`Peak`] at
/// every probe sample added to its schedule.
fn model(probe_every: usize) -> Arc<fdtd_core::Simulation> {
    let text = SCENE.replace("components = [", &format!("every = {probe_every}\ncomponents = ["));
    let m = Model::discretize(&scene(&text)).unwrap();
    let samples = m
        .probes
        .iter()
        .flat_map(|p| p.samples.iter().map(|s| (s.component.index(), s.flat, s.index)))
        .collect();
    // The scene's passes, then this one: no change to `Model`.
    Arc::new(Simulation::with_passes(m, vec![Arc::new(Peak { samples })]))
}

/// Step `b` through `n0..n1` in chunks of `chunk` steps (one submission each on the
/// GPU), draining the outputs after each.
fn run(m: &Simulation, b: &mut dyn Backend, n0: usize, n1: usize, chunk: usize, acc: &mut PassOutputs) {
    let mut n = n0;
    while n < n1 {
        let count = chunk.min(n1 - n);
        b.step(n, count, &m.source_values(n, count)).unwrap();
        for (pass, streams) in acc.iter_mut().zip(b.drain_outputs().unwrap()) {
            for (s, v) in pass.iter_mut().zip(streams) {
                s.extend(v);
            }
        }
        n += count;
    }
}

fn gpu(m: &Arc<fdtd_core::Simulation>) -> Option<GpuBackend> {
    // One y-z plane is 11 × 9 floats: a cap of 5 planes cuts the 17 x planes into slabs.
    let cfg = GpuConfig {
        binding_cap: Some(11 * 9 * 4 * 5),
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

fn max_rel(a: &[f32], b: &[f32]) -> f64 {
    assert_eq!(a.len(), b.len());
    let peak = a.iter().fold(0f32, |m, v| m.max(v.abs())) as f64;
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() as f64 / peak.max(f64::MIN_POSITIVE))
        .fold(0.0, f64::max)
}

#[test]
fn an_extension_pass_runs_on_both_backends() {
    let m = model(1);
    let k = m.schedule.passes.iter().position(|p| p.pass.name() == "peak").unwrap();
    let steps = m.grid.steps;

    // CPU: the pass's streams are the scaled running peaks of the probe samples.
    let mut cpu = fdtd::backend::cpu::CpuBackend::new(m.clone(), 0).unwrap();
    let mut c_out = fdtd::backend::empty_outputs(&m);
    run(&m, &mut cpu, 0, steps, 7, &mut c_out);
    let probes = probe_buffers(&m, c_out.clone());
    let series: Vec<&Vec<f32>> = probes.iter().flatten().collect();
    assert_eq!(c_out[k].len(), series.len());
    for (q, (stream, probe)) in c_out[k].iter().zip(&series).enumerate() {
        assert_eq!(probe.len(), steps, "the probes sample every step");
        assert_eq!(stream.len(), steps / EVERY);
        let mut peak = 0f32;
        for (n, v) in probe.iter().enumerate() {
            peak = peak.max(v.abs() * SCALE);
            if due(EVERY, n) {
                assert_eq!(stream[(n + 1) / EVERY - 1], peak, "stream {q}, step {n}");
            }
        }
        assert!(peak > 0.0, "stream {q}: the wave reached the sample");
    }
    // The memory plan counts the pass's state.
    let plan = fdtd::plan::Plan::common(&m, 2);
    let n_samples = c_out[k].len() as u64;
    assert!(
        plan.buffers
            .iter()
            .any(|b| b.name.contains("pass peak state") && b.bytes == 4 * n_samples),
        "{plan}"
    );
    let c_state = cpu.save_state().unwrap();
    let peak_cpu = c_state
        .get("peak/peak")
        .expect("the pass's state is in the table by name");

    // GPU, split into x slabs: the same streams and state. Probes every 2 steps and
    // one step per submission: some submissions have a `peak` value due and no probe.
    let m2 = model(2);
    let Some(mut g) = gpu(&m2) else { return };
    let mut g_out = fdtd::backend::empty_outputs(&m2);
    run(&m2, &mut g, 0, steps, 1, &mut g_out);
    for (q, (a, b)) in c_out[k].iter().zip(&g_out[k]).enumerate() {
        let d = max_rel(a, b);
        assert!(d <= 1e-6, "stream {q}: CPU and GPU differ by {d:e}");
    }
    let g_state = g.save_state().unwrap();
    let peak_gpu = g_state.get("peak/peak").unwrap();
    assert!(max_rel(peak_cpu, peak_gpu) <= 1e-6, "{peak_cpu:?} vs {peak_gpu:?}");

    // Resume across backends: stop the GPU half-way, load its state on the CPU, finish.
    let half = 30;
    let Some(mut g) = gpu(&m2) else { return };
    let mut first = fdtd::backend::empty_outputs(&m2);
    run(&m2, &mut g, 0, half, 5, &mut first);
    let mid = g.save_state().unwrap();
    assert!(mid.get("peak/peak").unwrap().iter().any(|&v| v > 0.0));
    let mut cpu2 = fdtd::backend::cpu::CpuBackend::new(m2.clone(), 0).unwrap();
    cpu2.load_state(&mid).unwrap();
    run(&m2, &mut cpu2, half, steps, 7, &mut first);
    for (q, (a, b)) in c_out[k].iter().zip(&first[k]).enumerate() {
        let d = max_rel(a, b);
        assert!(d <= 1e-6, "stream {q} after a GPU → CPU resume: {d:e}");
    }
}

const GAIN: f32 = 10.0;

/// A pass with three entries over one state `[v, count]`, at three hooks: `grab`
/// (AfterH, per record) copies Hy^{n+½} at its sample into `v`; `tick` (BeforeE, once
/// per step) adds 1 to `count`; `apply` (AfterE, per record) adds `GAIN·v` to Ez at the
/// same sample. So `apply` reads what `grab` wrote in the same step, through the state
/// alone, and `count` counts steps (a once-per-step entry dispatched per GPU piece, or
/// not at all, would miscount).
#[derive(Debug)]
struct Relay {
    at: [usize; 3],
    flat: usize,
}

const RELAY_WGSL: &str = r#"
@compute @workgroup_size(WG, 1, 1)
fn grab(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= arrayLength(&records)) {
        return;
    }
    state[0] = read_field(4u, records[gid.x].y);
}

@compute @workgroup_size(WG, 1, 1)
fn tick(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x == 0u) {
        state[1] = state[1] + 1.0;
    }
}

@compute @workgroup_size(WG, 1, 1)
fn apply(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= arrayLength(&records)) {
        return;
    }
    let l = records[gid.x].y;
    write_field(2u, l, read_field(2u, l) + bitcast<f32>(params[0]) * state[0]);
}
"#;

impl Pass for Relay {
    fn name(&self) -> &str {
        "relay"
    }
    fn describe(&self) -> String {
        "Hy after H → Ez after E at one sample, and a step counter".into()
    }
    fn hook(&self) -> Hook {
        Hook::AfterH
    }
    fn entries(&self) -> Vec<Entry> {
        vec![
            Entry::new(Hook::AfterH, "grab", Scope::Records),
            Entry::new(Hook::BeforeE, "tick", Scope::Once),
            Entry::new(Hook::AfterE, "apply", Scope::Records),
        ]
    }
    fn state(&self) -> Vec<ArraySpec> {
        vec![ArraySpec::new("v", [1, 1, 1]), ArraySpec::new("count", [1, 1, 1])]
    }
    fn host(&self, ctx: &mut HostCtx<'_>) {
        match ctx.entry.entry {
            "grab" => ctx.state[0][0] = *ctx.fields.at(4, self.flat),
            "tick" => ctx.state[1][0] += 1.0,
            "apply" => {
                let v = ctx.state[0][0];
                *ctx.fields.at(2, self.flat) += GAIN * v;
            }
            other => panic!("relay has no entry {other}"),
        }
    }
    fn device(&self) -> DevicePass {
        DevicePass {
            regions: Vec::new(),
            file: "tests/relay.wgsl",
            wgsl: RELAY_WGSL,
            entry: "grab",
            serial: false,
            records: vec![Record {
                at: self.at,
                words: [0; 4],
            }],
            params: vec![GAIN.to_bits()],
            only_when_due: false,
        }
    }
}

/// The scene with [`Relay`] at a sample in the fourth GPU piece (x = 11 of 17 planes,
/// 5 planes per piece), so the once-per-step entry runs on a piece without its record.
fn relay_model() -> Arc<Simulation> {
    let m = Model::discretize(&scene(SCENE)).unwrap();
    let at = [11, 5, 4];
    let flat = m.grid.idx(at[0], at[1], at[2]);
    Arc::new(Simulation::with_passes(m, vec![Arc::new(Relay { at, flat })]))
}

fn relay_state(b: &mut dyn Backend) -> (f32, f32) {
    let s = b.read_state(&["relay/v", "relay/count"]).unwrap();
    (s[0][0], s[1][0])
}

#[test]
fn a_multi_entry_pass_shares_one_state_on_both_backends() {
    let m = relay_model();
    let steps = m.grid.steps;
    let flat = m.grid.idx(11, 5, 4);
    // The schedule runs the three entries at their hooks, BeforeE between the H halo
    // and the E update.
    let st = &m.schedule.stages;
    let pos = |s: Stage| {
        st.iter()
            .position(|&x| x == s)
            .unwrap_or_else(|| panic!("{s:?} in {st:?}"))
    };
    assert!(pos(Stage::HaloH) < pos(Stage::Hook(Hook::BeforeE)) && pos(Stage::Hook(Hook::BeforeE)) < pos(Stage::EBulk));
    let text = m.schedule.to_string();
    assert!(text.contains("pass relay [tick, once per step]"), "{text}");
    assert_eq!(
        m.schedule
            .entries_at(Hook::AfterE)
            .filter(|(_, p, _)| p.pass.name() == "relay")
            .count(),
        1
    );

    // CPU: the counter counts steps; `v` is Hy at the sample after the last H update
    // (nothing writes H after AfterH), bit for bit.
    let mut cpu = fdtd::backend::cpu::CpuBackend::new(m.clone(), 0).unwrap();
    let mut out = fdtd::backend::empty_outputs(&m);
    run(&m, &mut cpu, 0, steps, 7, &mut out);
    let (v, count) = relay_state(&mut cpu);
    assert_eq!(count, steps as f32);
    let hy = cpu.read_field(Component::Hy).unwrap();
    assert_eq!(v, hy[flat]);
    assert!(v != 0.0, "the wave reached the sample");
    let ez_cpu = cpu.read_field(Component::Ez).unwrap();
    // The `apply` entry acted: Ez differs from a run without the pass.
    let plain = Arc::new(Simulation::standard(Model::discretize(&scene(SCENE)).unwrap()));
    let mut c0 = fdtd::backend::cpu::CpuBackend::new(plain.clone(), 0).unwrap();
    let mut o0 = fdtd::backend::empty_outputs(&plain);
    run(&plain, &mut c0, 0, steps, 7, &mut o0);
    let ez_plain = c0.read_field(Component::Ez).unwrap();
    assert!(max_rel(&ez_cpu, &ez_plain) > 1e-3, "the relay changed Ez");

    // GPU in 4 slabs: the same state and fields (1e-6 relative, as above); the once
    // entry is one dispatch per step, on piece 0.
    let Some(mut g) = gpu(&m) else { return };
    assert!(g.pieces() >= 3, "{} pieces", g.pieces());
    let labels: Vec<String> = g.dispatches().into_iter().map(|(_, l)| l).collect();
    for (entry, n) in [("relay.grab", 1), ("relay.tick", 1), ("relay.apply", 1)] {
        assert_eq!(labels.iter().filter(|l| *l == entry).count(), n, "{labels:?}");
    }
    let mut g_out = fdtd::backend::empty_outputs(&m);
    run(&m, &mut g, 0, steps, 9, &mut g_out);
    let (gv, gcount) = relay_state(&mut g);
    assert_eq!(gcount, steps as f32);
    let hy_peak = hy.iter().fold(0f32, |a, x| a.max(x.abs()));
    assert!((gv - v).abs() <= 1e-6 * hy_peak, "v: GPU {gv} vs CPU {v}");
    let ez_gpu = g.read_field(Component::Ez).unwrap();
    assert!(max_rel(&ez_cpu, &ez_gpu) <= 1e-6, "Ez: {:e}", max_rel(&ez_cpu, &ez_gpu));

    // Resume CPU → GPU half-way (the state, pass arrays included, carried by name):
    // the counter goes on from where the CPU left it and the fields finish as above.
    let half = 25;
    let mut c1 = fdtd::backend::cpu::CpuBackend::new(m.clone(), 0).unwrap();
    let mut o1 = fdtd::backend::empty_outputs(&m);
    run(&m, &mut c1, 0, half, 7, &mut o1);
    let mid = c1.save_state().unwrap();
    assert_eq!(mid.get("relay/count").unwrap()[0], half as f32);
    let Some(mut g2) = gpu(&m) else { return };
    g2.load_state(&mid).unwrap();
    run(&m, &mut g2, half, steps, 9, &mut o1);
    let (rv, rcount) = relay_state(&mut g2);
    assert_eq!(rcount, steps as f32);
    assert!((rv - v).abs() <= 1e-6 * hy_peak, "v after resume: {rv} vs {v}");
    let ez_resumed = g2.read_field(Component::Ez).unwrap();
    assert!(
        max_rel(&ez_cpu, &ez_resumed) <= 1e-6,
        "Ez after resume: {:e}",
        max_rel(&ez_cpu, &ez_resumed)
    );
}

//! The schedule's stage list (`Schedule::stages`) is the one description of the step
//! order, and both backends execute it as listed:
//! - three marker passes, one at each hook, each doing `Hz ← 10·Hz + tag` at one sample,
//!   leave the order in which the hooks ran in the digits of Hz after one step (E is
//!   zero before the step, so the H bulk leaves that Hz at 0); on both backends it is the
//!   order of the list, for the list `Schedule::build` makes and for a permuted one;
//! - the GPU's dispatches follow the list (every op's stage index is non-decreasing,
//!   every stage that does work on a split grid has ops), and the CPU's compiled program
//!   is the list with its halo stages dropped.
//!
//! Like `gpu_parity.rs`: without an adapter the GPU half prints "skipped" and passes,
//! unless `CI` is set.
use fdtd::backend::cpu::program::Run;
use fdtd::backend::cpu::CpuBackend;
use fdtd::backend::gpu::{GpuBackend, GpuConfig};
use fdtd::backend::{Backend, BackendError, BackendOptions};
use fdtd::model::Model;
use fdtd::Component;
use fdtd_core::pass::{DevicePass, Hook, HostCtx, Pass, Record};
use fdtd_core::schedule::Stage;
use fdtd_core::Simulation;
use fdtd_validation::scene;
use std::sync::Arc;

/// CPML on x, PMC on y, periodic z: every kind of stage; one E source far from the mark.
const SCENE: &str = r#"
[domain]
cell = 1e-3
cells = [16, 10, 8]
[time]
steps = 4
[boundaries]
x = "cpml"
y = "pmc"
z = "periodic"
[boundaries.cpml]
cells = 3
[[sources]]
type = "current"
component = "Ez"
position = [0.012, 0.005, 0.004]
waveform = { type = "ricker", frequency = 30e9 }
[[probes]]
name = "a"
position = [0.004, 0.005, 0.004]
components = ["Ez"]
"#;

/// The marked sample of Hz (inside the grid, in the middle of an x slab).
const AT: [usize; 3] = [7, 4, 3];

/// `Hz[AT] ← 10·Hz[AT] + tag` at its hook.
#[derive(Debug)]
struct Mark {
    hook: Hook,
    tag: u32,
    flat: usize,
}

const MARK_WGSL: &str = r#"
// Records: (component, local index, tag, -).
@compute @workgroup_size(WG, 1, 1)
fn mark(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= arrayLength(&records)) {
        return;
    }
    let r = records[gid.x];
    write_field(r.x, r.y, read_field(r.x, r.y) * 10.0 + f32(r.z));
}
"#;

impl Pass for Mark {
    fn name(&self) -> &str {
        ["mark:h", "mark:e", "mark:end"][self.tag as usize - 1]
    }
    fn describe(&self) -> String {
        format!("Hz at {AT:?} ← 10·Hz + {}", self.tag)
    }
    fn hook(&self) -> Hook {
        self.hook
    }
    fn host(&self, ctx: &mut HostCtx<'_>) {
        if (ctx.xs.0..ctx.xs.1).contains(&AT[0]) {
            let v = ctx.fields.at(Component::Hz.index(), self.flat);
            *v = *v * 10.0 + self.tag as f32;
        }
    }
    fn device(&self) -> DevicePass {
        DevicePass {
            regions: Vec::new(),
            file: "tests/mark.wgsl",
            wgsl: MARK_WGSL,
            entry: "mark",
            serial: false,
            records: vec![Record {
                at: AT,
                words: [Component::Hz.index() as u32, 0, self.tag, 0],
            }],
            params: Vec::new(),
            only_when_due: false,
        }
    }
}

/// The scene's model with a marker at each hook; `order` rearranges its stage list.
fn model(order: impl Fn(&mut Vec<Stage>)) -> Arc<fdtd_core::Simulation> {
    let m = Model::discretize(&scene(SCENE)).unwrap();
    let flat = m.grid.idx(AT[0], AT[1], AT[2]);
    let marks = [(1, Hook::AfterH), (2, Hook::AfterE), (3, Hook::EndOfStep)]
        .into_iter()
        .map(|(tag, hook)| Arc::new(Mark { hook, tag, flat }) as Arc<dyn Pass>)
        .collect();
    let mut sim = Simulation::with_passes(m, marks);
    order(&mut sim.schedule.stages);
    Arc::new(sim)
}

/// Hz at the mark after one step if the hooks run in the order of `stages`.
fn expected(stages: &[Stage]) -> f32 {
    stages.iter().fold(0.0, |v, s| match s {
        Stage::Hook(Hook::AfterH) => v * 10.0 + 1.0,
        Stage::Hook(Hook::AfterE) => v * 10.0 + 2.0,
        Stage::Hook(Hook::EndOfStep) => v * 10.0 + 3.0,
        _ => v,
    })
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

/// Hz at the mark after one step on `b`.
fn marked(m: &Model, b: &mut dyn Backend) -> f32 {
    b.step(0, 1, &m.source_values(0, 1)).unwrap();
    b.read_region(Component::Hz, AT, AT.map(|v| v + 1)).unwrap()[0]
}

#[test]
fn both_backends_run_the_hooks_in_the_order_of_the_stage_list() {
    let swap = |s: &mut Vec<Stage>| {
        // EndOfStep right after the H bulk and CPML (the GPU fuses those two), and
        // AfterE and AfterH swapped.
        let end = s.iter().position(|x| *x == Stage::Hook(Hook::EndOfStep)).unwrap();
        let st = s.remove(end);
        s.insert(2, st);
        let (h, e) = (
            s.iter().position(|x| *x == Stage::Hook(Hook::AfterH)).unwrap(),
            s.iter().position(|x| *x == Stage::Hook(Hook::AfterE)).unwrap(),
        );
        s.swap(h, e);
    };
    for (name, m) in [("built", model(|_| {})), ("permuted", model(swap))] {
        let want = expected(&m.schedule.stages);
        let mut cpu = CpuBackend::new(m.clone(), 0).unwrap();
        assert_eq!(
            marked(&m, &mut cpu),
            want,
            "{name}: CPU, stages {:?}",
            m.schedule.stages
        );
        let Some(mut g) = gpu(&m) else { continue };
        assert!(g.pieces() > 1, "the grid is split");
        assert_eq!(marked(&m, &mut g), want, "{name}: GPU, stages {:?}", m.schedule.stages);
    }
    // The list Schedule::build makes runs the hooks as documented.
    assert_eq!(expected(&model(|_| {}).schedule.stages), 123.0);
    assert_eq!(expected(&model(swap).schedule.stages), 321.0);
}

#[test]
fn the_backends_compile_their_step_from_the_stage_list() {
    let m = model(|_| {});
    let stages = &m.schedule.stages;
    assert_eq!(
        *stages,
        [
            Stage::HBulk,
            Stage::HCpml,
            Stage::Hook(Hook::AfterH),
            Stage::HaloH,
            Stage::EFaces,
            Stage::EBulk,
            Stage::ECpml,
            Stage::Hook(Hook::AfterE),
            Stage::PeriodicCopies,
            Stage::HaloE,
            Stage::Hook(Hook::EndOfStep),
        ]
    );
    // `fdtd check --schedule` prints the stages in that order.
    let text = m.schedule.to_string();
    let mut at = 0;
    for s in stages {
        at += text[at..]
            .find(s.name())
            .unwrap_or_else(|| panic!("{} missing after byte {at}:\n{text}", s.name()));
    }

    // CPU: the list without halos, the slab-local stages fused into one sweep.
    let cpu = CpuBackend::new(m.clone(), 1).unwrap();
    let flat: Vec<Stage> = cpu
        .program()
        .iter()
        .flat_map(|r| match r {
            Run::Slabs { h, e } => h.iter().chain(e).copied().collect(),
            Run::Hook(h) => vec![Stage::Hook(*h)],
            Run::PeriodicCopies => vec![Stage::PeriodicCopies],
        })
        .collect();
    let no_halo: Vec<Stage> = stages
        .iter()
        .copied()
        .filter(|s| !matches!(s, Stage::HaloH | Stage::HaloE))
        .collect();
    assert_eq!(flat, no_halo);
    assert!(
        matches!(&cpu.program()[0], Run::Slabs { h, e } if h.len() == 3 && e.len() == 3),
        "H bulk, CPML, AfterH then E faces, bulk, CPML in one sweep: {:?}",
        cpu.program()
    );

    // GPU: the dispatches follow the list; every stage but the CPML ones (fused into the
    // bulk kernels) has its own ops.
    let Some(g) = gpu(&m) else { return };
    let ops = g.dispatches();
    assert!(ops.windows(2).all(|w| w[0].0 <= w[1].0), "{ops:?}");
    for (si, s) in stages.iter().enumerate() {
        let n = ops.iter().filter(|o| o.0 == si).count();
        match s {
            Stage::HCpml | Stage::ECpml => assert_eq!(n, 0, "{s:?}"),
            Stage::HBulk | Stage::EBulk => {
                let entry = if *s == Stage::HBulk { "update_h" } else { "update_e" };
                assert_eq!(n, g.pieces(), "{s:?}: one dispatch per piece");
                assert!(ops.iter().filter(|o| o.0 == si).all(|o| o.1 == entry));
            }
            _ => assert!(n > 0, "{s:?} has no dispatch: {ops:?}"),
        }
    }
}

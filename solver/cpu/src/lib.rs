//! CPU backend: structure-of-arrays f32 fields, rayon over x-slabs.
//!
//! It executes the model's stage list ([`Schedule::stages`](fdtd_core::schedule::Schedule))
//! as compiled once by [`program::compile`]: the slab-local stages (H bulk, H CPML,
//! stateless AfterH passes, then E face planes, E bulk, E CPML) run as one fused sweep
//! over x-slabs ([`sweep`]), each slab's H and then E updated while its neighbours are in
//! cache; the other stages (AfterE and EndOfStep passes, periodic copies, and AfterH
//! passes with state or outputs, which split the sweep in two) run on the whole grid in
//! between, in the list's order. The halo stages do nothing here.
//!
//! The solver state is held as the model's state table ([`SolverState`]'s arrays, in
//! table order), so saving and loading it is a copy whatever arrays passes add.
mod boundary;
mod cpml;
pub mod program;
mod sweep;
mod update;

pub use sweep::Sweep;

use fdtd_core::backend::{
    empty_outputs, Backend, BackendChoice, BackendError, BackendOptions, Engine, PassOutputs, Target,
};
use fdtd_core::pass::{FieldsMut, Hook, HostCtx};
use fdtd_core::plan::Plan;
use fdtd_core::simulation::Simulation;
use fdtd_core::state::{SolverState, StateArray};
use fdtd_core::Component;
use program::Run;
use std::sync::Arc;

/// The CPU as an [`Engine`]: what `fdtd_core::backend::create` chooses from.
pub struct CpuEngine;

impl Engine for CpuEngine {
    fn kind(&self) -> BackendChoice {
        BackendChoice::Cpu
    }

    fn plan(&self, model: &Simulation, _opts: &BackendOptions) -> Result<Target, BackendError> {
        // The CPU backend keeps the model's u16 material indices.
        let mut plan = Plan::common(model, 2);
        // The thin-wire pass's list: per H sample two flat indices, two components and
        // a coefficient (`passes::thin_wire`).
        if !model.wire_h.is_empty() {
            plan.add(
                format!("thin-wire corrections ({} H samples)", model.wire_h.len()),
                40 * model.wire_h.len() as u64,
            );
        }
        Ok(Target {
            plan,
            device: "cpu".into(),
            software: false,
        })
    }

    fn create(&self, model: Arc<Simulation>, opts: &BackendOptions) -> Result<Box<dyn Backend>, BackendError> {
        Ok(Box::new(CpuBackend::new(model, opts.threads)?))
    }
}

/// The CPU backend.
pub struct CpuBackend {
    model: Arc<Simulation>,
    /// The state table's arrays, in table order (the six fields first).
    arrays: Vec<Vec<f32>>,
    /// Output streams of every extension pass, in schedule order.
    outputs: Vec<Vec<Vec<f32>>>,
    pool: rayon::ThreadPool,
    /// How steps walk the slabs (fused by default).
    pub sweep: Sweep,
    /// The schedule's stages as this backend runs them ([`program::compile`]).
    program: Vec<program::Run>,
}

impl CpuBackend {
    /// Allocate the state for `model`; `threads = 0` uses every core.
    pub fn new(model: Arc<Simulation>, threads: usize) -> Result<CpuBackend, BackendError> {
        let arrays = model.schedule.state.iter().map(|s| vec![0f32; s.len()]).collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| BackendError::NoDevice(format!("cannot start CPU threads: {e}")))?;
        Ok(CpuBackend {
            outputs: empty_outputs(&model),
            sweep: Sweep::default(),
            program: program::compile(&model),
            model,
            arrays,
            pool,
        })
    }

    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// The CPU's program: the model's stages as this backend runs them.
    pub fn program(&self) -> &[program::Run] {
        &self.program
    }
}

/// Run the pass entries at `hook` on the whole grid (serially, in schedule order; a
/// once-per-step entry is one `host` call like any other here). `fields`
/// are the six fields; `extra` the state table from index `6 + cpml` on (the arrays
/// passes register), `cpml` the number of CPML ψ arrays before it.
#[allow(clippy::too_many_arguments)]
fn run_hook(
    m: &Simulation,
    hook: Hook,
    fields: &mut [Vec<f32>],
    extra: &mut [Vec<f32>],
    outputs: &mut [Vec<Vec<f32>>],
    n: usize,
    src: &[f32],
) {
    let base = 6 + m.schedule.cpml.len();
    for (k, sp, entry) in m.schedule.entries_at(hook) {
        let mut state: Vec<&mut [f32]> = extra
            .iter_mut()
            .enumerate()
            .filter(|(q, _)| sp.state.contains(&(q + base)))
            .map(|(_, a)| &mut a[..])
            .collect();
        let [ex, ey, ez, hx, hy, hz] = fields else {
            unreachable!("six fields")
        };
        let mut ctx = HostCtx {
            step: n,
            entry,
            sources: src,
            xs: (0, m.grid.dims()[0]),
            fields: FieldsMut {
                windows: [ex, ey, ez, hx, hy, hz].map(|a| Some(&mut a[..])),
                base: 0,
            },
            state: &mut state[..],
            out: &mut outputs[k],
        };
        sp.pass.host(&mut ctx);
    }
}

/// One full time step `n`: the CPU's `program` in order; `src` holds this step's
/// source values.
#[allow(clippy::too_many_arguments)]
fn step_one(
    m: &Simulation,
    program: &[Run],
    arrays: &mut [Vec<f32>],
    outputs: &mut [Vec<Vec<f32>>],
    n: usize,
    src: &[f32],
    sweep: Sweep,
) {
    let (fields, rest) = arrays.split_at_mut(6);
    let (psi, extra) = rest.split_at_mut(m.schedule.cpml.len());
    for run in program {
        match run {
            Run::Slabs { h, e } => sweep::step(m, fields, psi, extra, src, n, sweep, h, e),
            Run::Hook(hook) => run_hook(m, *hook, fields, extra, outputs, n, src),
            Run::PeriodicCopies => boundary::periodic_copies(m, fields),
        }
    }
}

impl Backend for CpuBackend {
    fn describe(&self) -> String {
        format!("cpu (rayon, {} threads)", self.threads())
    }

    fn step(&mut self, n0: usize, count: usize, sources: &[f32]) -> Result<(), BackendError> {
        let ns = self.model.sources.len();
        let CpuBackend {
            model,
            arrays,
            outputs,
            pool,
            sweep,
            program,
        } = self;
        pool.install(|| {
            for s in 0..count {
                let src = &sources[s * ns..(s + 1) * ns];
                step_one(model, program, arrays, outputs, n0 + s, src, *sweep);
            }
        });
        Ok(())
    }

    fn drain_outputs(&mut self) -> Result<PassOutputs, BackendError> {
        Ok(std::mem::replace(&mut self.outputs, empty_outputs(&self.model)))
    }

    fn read_region(&mut self, c: Component, lo: [usize; 3], hi: [usize; 3]) -> Result<Vec<f32>, BackendError> {
        let g = &self.model.grid;
        let f = &self.arrays[c.index()];
        let mut out = Vec::with_capacity((0..3).map(|a| hi[a] - lo[a]).product());
        for i in lo[0]..hi[0] {
            for j in lo[1]..hi[1] {
                let base = g.idx(i, j, 0);
                out.extend_from_slice(&f[base + lo[2]..base + hi[2]]);
            }
        }
        Ok(out)
    }

    fn read_field(&mut self, c: Component) -> Result<Vec<f32>, BackendError> {
        Ok(self.arrays[c.index()].clone())
    }

    fn read_state(&mut self, names: &[&str]) -> Result<Vec<Vec<f32>>, BackendError> {
        let table = &self.model.schedule.state;
        names
            .iter()
            .map(|name| {
                table
                    .iter()
                    .position(|s| s.name == *name)
                    .map(|a| self.arrays[a].clone())
                    .ok_or_else(|| BackendError::Unsupported(format!("the solver state has no array `{name}`")))
            })
            .collect()
    }

    fn save_state(&mut self) -> Result<SolverState, BackendError> {
        Ok(SolverState {
            arrays: self
                .model
                .schedule
                .state
                .iter()
                .zip(&self.arrays)
                .map(|(s, a)| StateArray {
                    name: s.name.clone(),
                    data: a.clone(),
                })
                .collect(),
        })
    }

    fn load_state(&mut self, state: &SolverState) -> Result<(), BackendError> {
        state.check(&self.model.schedule.state)?;
        for (a, s) in self.arrays.iter_mut().zip(&state.arrays) {
            a.clone_from(&s.data);
        }
        Ok(())
    }
}

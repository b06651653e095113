//! CPU backend: structure-of-arrays f32 fields, rayon over x-slabs.
//!
//! One step computes, in effect, this order (the GPU backend follows it literally):
//! 1. H bulk update with the CPML corrections to H ([`update::h_slab`]).
//! 2. Magnetic sources (soft add / hard set).
//! 3. E on PMC/periodic face planes ([`boundary`]), then the E bulk update on
//!    interior samples ([`update::e_slab`]) with the CPML corrections to E.
//!
//! The CPU runs 1–3 as one fused sweep over x-slabs ([`sweep`]): each slab's H and
//! then E are updated while its neighbours are in cache, and CPML corrections are
//! applied per slab right after its bulk update, face-plane samples included.
//! 4. Electric sources, then periodic copies of the high face planes.
//! 5. Probe sampling.
mod boundary;
mod cpml;
mod sweep;
mod update;

pub use sweep::Schedule;

use fdtd_core::backend::{
    empty_probe_buffers, probe_due, Backend, BackendChoice, BackendError, BackendOptions, Engine, ProbeBuffers,
    SolverState, Target,
};
use fdtd_core::model::Model;
use fdtd_core::plan::Plan;
use fdtd_core::scene::SourceKind;
use fdtd_core::Component;
use std::sync::Arc;

/// The CPU as an [`Engine`]: what `fdtd_core::backend::create` chooses from.
pub struct CpuEngine;

impl Engine for CpuEngine {
    fn kind(&self) -> BackendChoice {
        BackendChoice::Cpu
    }

    fn plan(&self, model: &Model, _opts: &BackendOptions) -> Result<Target, BackendError> {
        // The CPU backend keeps the model's u16 material indices.
        Ok(Target {
            plan: Plan::common(model, 2),
            device: "cpu".into(),
            software: false,
        })
    }

    fn create(&self, model: Arc<Model>, opts: &BackendOptions) -> Result<Box<dyn Backend>, BackendError> {
        Ok(Box::new(CpuBackend::new(model, opts.threads)?))
    }
}

/// Field arrays of one run, `[Ex, Ey, Ez, Hx, Hy, Hz]`, each of shape `grid.dims()`.
pub struct Fields(pub [Vec<f32>; 6]);

/// The CPU backend.
pub struct CpuBackend {
    model: Arc<Model>,
    fields: Fields,
    /// ψ arrays per CPML layer: `[E_{a+1}, E_{a+2}, H_{a+1}, H_{a+2}]`.
    psi: Vec<[Vec<f32>; 4]>,
    probes: ProbeBuffers,
    pool: rayon::ThreadPool,
    /// CPML correction passes, fused into the bulk sweeps.
    passes: Vec<cpml::Pass>,
    /// How steps walk the slabs (fused by default).
    pub schedule: Schedule,
}

impl CpuBackend {
    /// Allocate fields for `model`; `threads = 0` uses every core.
    pub fn new(model: Arc<Model>, threads: usize) -> Result<CpuBackend, BackendError> {
        let len = model.grid.len();
        let fields = Fields(std::array::from_fn(|_| vec![0f32; len]));
        let psi = model
            .cpml
            .iter()
            .map(|l| {
                let ne: usize = l.psi_dims(&model.grid, true).iter().product();
                let nh: usize = l.psi_dims(&model.grid, false).iter().product();
                [vec![0f32; ne], vec![0f32; ne], vec![0f32; nh], vec![0f32; nh]]
            })
            .collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| BackendError::NoDevice(format!("cannot start CPU threads: {e}")))?;
        Ok(CpuBackend {
            probes: empty_probe_buffers(&model),
            passes: cpml::passes(&model),
            schedule: Schedule::default(),
            model,
            fields,
            psi,
            pool,
        })
    }

    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }
}

/// One full time step `n`; `src` holds this step's source values.
#[allow(clippy::too_many_arguments)]
fn step_one(
    m: &Model,
    passes: &[cpml::Pass],
    f: &mut [Vec<f32>; 6],
    psi: &mut [[Vec<f32>; 4]],
    probes: &mut ProbeBuffers,
    n: usize,
    src: &[f32],
    schedule: Schedule,
) {
    sweep::step(m, passes, f, psi, src, schedule);
    apply_sources(m, f, src, true);
    boundary::periodic_copies(m, f);
    for (p, bufs) in m.probes.iter().zip(probes.iter_mut()) {
        if probe_due(p.every, n) {
            for (s, buf) in p.samples.iter().zip(bufs.iter_mut()) {
                buf.push(f[s.component.index()][s.flat]);
            }
        }
    }
}

fn apply_sources(m: &Model, f: &mut [Vec<f32>; 6], src: &[f32], electric: bool) {
    for (s, &v) in m.sources.iter().zip(src) {
        if s.component.is_electric() != electric {
            continue;
        }
        let x = &mut f[s.component.index()][s.flat];
        match s.kind {
            SourceKind::Current => *x += v,
            SourceKind::Hard => *x = v,
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
            fields,
            psi,
            probes,
            pool,
            passes,
            schedule,
        } = self;
        pool.install(|| {
            for s in 0..count {
                step_one(
                    model,
                    passes,
                    &mut fields.0,
                    psi,
                    probes,
                    n0 + s,
                    &sources[s * ns..(s + 1) * ns],
                    *schedule,
                );
            }
        });
        Ok(())
    }

    fn drain_probes(&mut self) -> Result<ProbeBuffers, BackendError> {
        Ok(std::mem::replace(&mut self.probes, empty_probe_buffers(&self.model)))
    }

    fn read_region(&mut self, c: Component, lo: [usize; 3], hi: [usize; 3]) -> Result<Vec<f32>, BackendError> {
        let g = &self.model.grid;
        let f = &self.fields.0[c.index()];
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
        Ok(self.fields.0[c.index()].clone())
    }

    fn save_state(&mut self) -> Result<SolverState, BackendError> {
        Ok(SolverState {
            fields: self.fields.0.clone(),
            psi: self.psi.clone(),
        })
    }

    fn load_state(&mut self, state: &SolverState) -> Result<(), BackendError> {
        state.check(&self.model)?;
        self.fields.0.clone_from(&state.fields);
        self.psi.clone_from(&state.psi);
        Ok(())
    }
}

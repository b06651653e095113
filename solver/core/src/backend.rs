//! The seam between the physics description and the machines that step it.
//!
//! A [`Backend`] is built from a [`Model`] and advances the fields in chunks of
//! steps. Both implementations (`fdtd_cpu::CpuBackend`, `fdtd_gpu::GpuBackend`) run the
//! same update equations on the same `Model`; the runner drives them identically.
//! An [`Engine`] is what a backend crate exports to be chosen: it plans a model without
//! allocating and builds the backend; [`create`] holds the one `auto` rule.
use crate::plan::Plan;
use crate::simulation::Simulation;
use crate::Component;
use std::sync::Arc;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum BackendError {
    #[error("GPU device lost: {0}")]
    DeviceLost(String),
    #[error("out of memory: {0}")]
    OutOfMemory(String),
    #[error("no usable GPU: {0}")]
    NoDevice(String),
    #[error("the plan does not fit: {0}")]
    DoesNotFit(String),
    #[error("GPU error: {0}")]
    Gpu(String),
    #[error("{0}")]
    Unsupported(String),
}

/// Probe samples taken since the last drain: `[probe][sample component][time]`.
pub type ProbeBuffers = Vec<Vec<Vec<f32>>>;

/// Output streams of the schedule's passes taken since the last drain:
/// `[pass][stream][sample]`, passes in schedule order.
pub type PassOutputs = Vec<Vec<Vec<f32>>>;

/// A machine that steps a [`Model`]'s fields.
pub trait Backend {
    /// One line for logs and the HDF5 `backend`/`device` attributes.
    fn describe(&self) -> String;

    /// Advance steps `n0 .. n0 + count`. `sources` holds `count × model.sources.len()`
    /// values from [`Model::source_values`]. Every output stream of the schedule's passes
    /// whose `every` divides `n + 1` takes a value after step `n` (probes are such streams).
    fn step(&mut self, n0: usize, count: usize, sources: &[f32]) -> Result<(), BackendError>;

    /// Take the output streams of every pass recorded since the last call (see
    /// [`probe_buffers`] for the probes among them).
    fn drain_outputs(&mut self) -> Result<PassOutputs, BackendError>;

    /// Copy one component over the box `lo..hi` (grid indices, exclusive), C order.
    fn read_region(&mut self, c: Component, lo: [usize; 3], hi: [usize; 3]) -> Result<Vec<f32>, BackendError>;

    /// The whole array of one component, shape `grid.dims()`.
    fn read_field(&mut self, c: Component) -> Result<Vec<f32>, BackendError>;

    /// The complete solver state between chunks (for checkpoints). Probe samples are
    /// not part of it: the runner drains them at every chunk end.
    fn save_state(&mut self) -> Result<SolverState, BackendError> {
        Err(BackendError::Unsupported(format!(
            "{} cannot save its state",
            self.describe()
        )))
    }

    /// Some arrays of the solver state by name (e.g. a monitor's `monitor:m/re`), in the
    /// order asked, between chunks. The default saves the whole state; a backend may read
    /// only those arrays.
    fn read_state(&mut self, names: &[&str]) -> Result<Vec<Vec<f32>>, BackendError> {
        let state = self.save_state()?;
        names
            .iter()
            .map(|n| {
                state
                    .get(n)
                    .map(<[f32]>::to_vec)
                    .ok_or_else(|| BackendError::Unsupported(format!("the solver state has no array `{n}`")))
            })
            .collect()
    }

    /// Scan every field component for NaN/Inf and for its largest magnitude (the runner's
    /// instability check, every few hundred steps). The default reads each component
    /// with [`Backend::read_field`]; a backend may reduce on its device instead.
    fn scan_fields(&mut self) -> Result<[FieldScan; 6], BackendError> {
        let mut out = [FieldScan::default(); 6];
        for c in Component::ALL {
            out[c.index()] = FieldScan::of(&self.read_field(c)?);
        }
        Ok(out)
    }

    /// Replace the solver state with `state` (from [`Backend::save_state`] of any backend
    /// running the same model).
    fn load_state(&mut self, state: &SolverState) -> Result<(), BackendError> {
        let _ = state;
        Err(BackendError::Unsupported(format!(
            "{} cannot load a state",
            self.describe()
        )))
    }

    /// The device memory of a backend whose state is on a device: what its plan
    /// counted, and the most it has been seen to use (`None` for the CPU).
    fn device_memory(&self) -> Option<DeviceMemory> {
        None
    }
}

/// A device's memory: planned before allocation, and the peak measured during the run
/// (the driver's usage report for this process, where it gives one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceMemory {
    pub planned: u64,
    pub peak: Option<u64>,
}

pub use crate::state::SolverState;

/// What [`Backend::scan_fields`] finds in one component.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FieldScan {
    /// Flat index and value of the first NaN or ±Inf sample, if any.
    pub non_finite: Option<(usize, f32)>,
    /// Largest |value| among the finite samples, and the flat index of its first occurrence.
    pub max_abs: f32,
    pub max_at: usize,
    /// Σ value² over the array, in f64 (the field energy of the end criterion).
    pub sum_sq: f64,
}

impl FieldScan {
    /// Scan one component's array.
    pub fn of(data: &[f32]) -> FieldScan {
        let mut s = FieldScan::default();
        for (i, &v) in data.iter().enumerate() {
            if !v.is_finite() {
                s.non_finite = Some((i, v));
                break;
            }
            if v.abs() > s.max_abs {
                s.max_abs = v.abs();
                s.max_at = i;
            }
            s.sum_sq += (v as f64) * (v as f64);
        }
        s
    }
}

/// Which probes sample after step `n` (0-based): those with `every | n + 1`.
pub use crate::pass::due as probe_due;

/// Helper for backends: empty probe buffers shaped like the model's probes.
pub fn empty_probe_buffers(model: &Simulation) -> ProbeBuffers {
    model.probes.iter().map(|p| vec![Vec::new(); p.samples.len()]).collect()
}

/// The total field energy Σ(ε0·E² + μ0·H²)·dV (J) of a scan (vacuum weights: the end
/// criterion compares it with its own peak).
pub fn scan_energy(model: &Simulation, scans: &[FieldScan; 6]) -> f64 {
    let dv: f64 = model.grid.d.iter().product();
    let e: f64 = scans[..3].iter().map(|s| s.sum_sq).sum();
    let h: f64 = scans[3..].iter().map(|s| s.sum_sq).sum();
    0.5 * (crate::EPS0 * e + crate::MU0 * h) * dv
}

/// Take the streams of the pass named `name` out of `outputs` (empty if none).
pub fn take_pass_streams(model: &Simulation, outputs: &mut PassOutputs, name: &str) -> Vec<Vec<f32>> {
    match model.schedule.passes.iter().position(|p| p.pass.name() == name) {
        Some(k) if k < outputs.len() => std::mem::take(&mut outputs[k]),
        _ => Vec::new(),
    }
}

/// Empty output streams for every extension pass of `model`'s schedule (per pass, per
/// stream), as backends collect them between drains.
pub fn empty_outputs(model: &Simulation) -> PassOutputs {
    model
        .schedule
        .passes
        .iter()
        .map(|p| vec![Vec::new(); p.outputs.len()])
        .collect()
}

/// The probe samples among a drain's output streams: those of the `probes` pass (one
/// stream per probe component, in model order), as `[probe][component][time]`.
pub fn probe_buffers(model: &Simulation, mut outputs: PassOutputs) -> ProbeBuffers {
    let mut out = empty_probe_buffers(model);
    let Some(k) = model.schedule.passes.iter().position(|p| p.pass.name() == "probes") else {
        return out;
    };
    let mut streams = std::mem::take(&mut outputs[k]).into_iter();
    for probe in out.iter_mut() {
        for slot in probe.iter_mut() {
            *slot = streams.next().unwrap_or_default();
        }
    }
    out
}

/// Which backend the user asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendChoice {
    Cpu,
    Gpu,
    /// The GPU when a hardware one exists and the plan fits, else the CPU.
    Auto,
}

/// Options that select and size a backend.
#[derive(Clone, Debug, Default)]
pub struct BackendOptions {
    /// CPU threads (0 = all cores).
    pub threads: usize,
    /// GPU adapter: index from `fdtd devices`, or a case-insensitive name substring.
    pub device: Option<String>,
    /// Fraction of the GPU's memory budget the plan may use (default 0.9).
    pub gpu_memory_fraction: Option<f64>,
}

/// Where an engine would run a model, without allocating anything: what `auto` decides on.
#[derive(Clone, Debug)]
pub struct Target {
    /// Every buffer the backend would allocate.
    pub plan: Plan,
    /// The device, in a few words (`llvmpipe`, `NVIDIA H200`).
    pub device: String,
    /// A software rasteriser (lavapipe, llvmpipe, WARP): far slower than the CPU backend.
    pub software: bool,
}

/// A kind of backend (the CPU, a GPU), as a backend crate exports it.
pub trait Engine: Sync {
    /// Which choice selects it (`Cpu` or `Gpu`).
    fn kind(&self) -> BackendChoice;
    /// The plan on the device `opts` selects, checked against its memory; allocates nothing.
    fn plan(&self, model: &Simulation, opts: &BackendOptions) -> Result<Target, BackendError>;
    /// Allocate and prepare the backend.
    fn create(&self, model: Arc<Simulation>, opts: &BackendOptions) -> Result<Box<dyn Backend>, BackendError>;
}

/// Why `auto` does not run on a GPU (and so runs on the CPU).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoGpu {
    /// This build has no GPU engine.
    NotBuilt,
    /// The preferred adapter is a software rasteriser (lavapipe, WARP), far slower than
    /// the CPU backend; `auto` uses one only when it is named in [`BackendOptions::device`].
    Software { device: String },
    /// No usable GPU, a plan that does not fit it, or a backend that could not be created.
    Unusable(String),
}

impl std::fmt::Display for NoGpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoGpu::NotBuilt => write!(f, "this build has no GPU backend"),
            NoGpu::Software { device } => write!(
                f,
                "the preferred GPU adapter, {device}, is software and slower than the CPU backend"
            ),
            NoGpu::Unusable(why) => write!(f, "{why}"),
        }
    }
}

/// What `auto` decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Auto {
    /// A GPU is available and the plan fits.
    Gpu,
    /// The CPU, and why not a GPU.
    Cpu(NoGpu),
}

impl std::fmt::Display for Auto {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Auto::Gpu => write!(f, "a GPU is available and the plan fits"),
            Auto::Cpu(why) => write!(f, "{why}"),
        }
    }
}

/// A backend built by [`create_with`].
pub struct Created {
    pub backend: Box<dyn Backend>,
    /// The engine that built it (`Cpu` or `Gpu`).
    pub kind: BackendChoice,
    /// [`Backend::describe`].
    pub description: String,
    /// For `auto`: what it decided and why.
    pub auto: Option<Auto>,
    /// A GPU backend on a software rasteriser ([`Target::software`]): its device name,
    /// set by the caller that planned it (`session::create_backend`).
    pub software: Option<String>,
}

impl Created {
    /// The description with why `auto` chose it: `cpu (rayon, 8 threads) (auto: ...)`.
    pub fn describe(&self) -> String {
        match &self.auto {
            Some(a) => format!("{} (auto: {a})", self.description),
            None => self.description.clone(),
        }
    }
}

/// The engine of `kind` among `engines`.
pub fn find_engine<'e>(engines: &[&'e dyn Engine], kind: BackendChoice) -> Result<&'e dyn Engine, BackendError> {
    engines
        .iter()
        .copied()
        .find(|e| e.kind() == kind)
        .ok_or_else(|| BackendError::Unsupported(format!("this build of fdtd has no {kind:?} backend")))
}

/// The one `auto` rule, without allocating anything: the GPU engine and its target when
/// a GPU is usable and the plan fits on it (a software adapter only when it was named in
/// [`BackendOptions::device`]); else why not, and `auto` runs on the CPU.
pub fn auto_gpu<'e>(
    engines: &[&'e dyn Engine],
    model: &Simulation,
    opts: &BackendOptions,
) -> Result<(&'e dyn Engine, Target), NoGpu> {
    let gpu = find_engine(engines, BackendChoice::Gpu).map_err(|_| NoGpu::NotBuilt)?;
    match gpu.plan(model, opts) {
        Ok(t) if t.software && opts.device.is_none() => Err(NoGpu::Software { device: t.device }),
        Ok(t) => Ok((gpu, t)),
        Err(e) => Err(NoGpu::Unusable(e.to_string())),
    }
}

/// Build the chosen backend for `model` from the `engines` this build has. `admit` is
/// called with an engine right before it allocates, and may refuse it (e.g. a check of
/// the host RAM before the CPU backend allocates). For `auto` (see [`auto_gpu`]): the
/// GPU when it is usable, its plan fits, it is admitted and it can be created, else the
/// CPU, with why in [`Created::auto`]. An error of the CPU engine (or its refusal by
/// `admit`) is returned as it is.
pub fn create_with<E>(
    engines: &[&dyn Engine],
    model: Arc<Simulation>,
    choice: BackendChoice,
    opts: &BackendOptions,
    admit: &mut dyn FnMut(&dyn Engine) -> Result<(), E>,
) -> Result<Created, E>
where
    E: From<BackendError> + std::fmt::Display,
{
    let mut build = |e: &dyn Engine, auto: Option<Auto>| -> Result<Created, E> {
        admit(e)?;
        let backend = e.create(model.clone(), opts)?;
        Ok(Created {
            description: backend.describe(),
            backend,
            kind: e.kind(),
            auto,
            software: None,
        })
    };
    match choice {
        BackendChoice::Cpu | BackendChoice::Gpu => build(find_engine(engines, choice)?, None),
        BackendChoice::Auto => {
            let why = match auto_gpu(engines, &model, opts) {
                Ok((gpu, _)) => match build(gpu, Some(Auto::Gpu)) {
                    Ok(c) => return Ok(c),
                    Err(e) => NoGpu::Unusable(e.to_string()),
                },
                Err(why) => why,
            };
            build(find_engine(engines, BackendChoice::Cpu)?, Some(Auto::Cpu(why)))
        }
    }
}

/// [`create_with`] admitting every engine. Returns the backend and a one-line
/// description, with why it was chosen for `auto`.
pub fn create(
    engines: &[&dyn Engine],
    model: Arc<Simulation>,
    choice: BackendChoice,
    opts: &BackendOptions,
) -> Result<(Box<dyn Backend>, String), BackendError> {
    let c = create_with(engines, model, choice, opts, &mut |_| Ok::<(), BackendError>(()))?;
    let d = c.describe();
    Ok((c.backend, d))
}

impl From<crate::state::StateMismatch> for BackendError {
    fn from(e: crate::state::StateMismatch) -> BackendError {
        BackendError::Unsupported(e.to_string())
    }
}

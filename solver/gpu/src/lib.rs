//! wgpu compute backend (WGSL kernels in `shaders/`, compiled into the binary).
//!
//! The kernels implement the CPU backend's update equations, ranges, boundary rules and
//! step order (crate fdtd-cpu, solver/cpu/src/), with the same float expression order,
//! so both backends agree to f32 rounding (the GPU compiler may contract `a*b + c` into
//! an FMA; see `validation/tests/gpu_parity.rs` for the measured differences).
//!
//! * [`device`]: adapters, `fdtd devices`, selection, memory budget queries.
//! * [`layout`]: the grid cut into x slabs that fit a storage binding, and the plan.
//! * [`kernels`]: the WGSL files, bind group layouts and pipelines.
//! * [`params`]: what the host writes for the kernels (parameter blocks and
//!   step records), twins of the WGSL structs in `shaders/prelude.wgsl`.
//! * [`build`]: every buffer and the per-step list of dispatches.
//!
//! A [`Backend::step`] call of `count` steps is recorded into submissions of a bounded
//! number of steps (adapted to the measured speed so that one submission takes about
//! [`TARGET_SUBMISSION_S`] seconds, far below desktop watchdogs). Source values of the
//! whole submission are uploaded once; per-step data (the step index) comes from a
//! uniform bound with a dynamic offset; probes are sampled on the device and read back
//! once per submission (every pass output stream: probes and any other).
mod build;
mod device;
mod kernels;
mod layout;
mod params;

pub use device::{describe_devices, parse_bytes, DeviceInfo, Memory, BUDGET_ENV, MAX_BINDING_ENV};
pub use kernels::{Shapes, SHADERS, UNCHECKED_ENV, WORKGROUP_ENV};
pub use layout::{auto_row_align, Layout, Piece, MAX_STEPS};

use build::{Built, Pipe};
use fdtd_core::backend::{
    empty_outputs, probe_due, Backend, BackendChoice, BackendError, BackendOptions, Engine, PassOutputs, SolverState,
    Target,
};
use fdtd_core::plan::{human_bytes, Plan};
use fdtd_core::simulation::Simulation;
use fdtd_core::Component;
use kernels::{Kernel, Kernels};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Seconds one submission should take (the step count per submission adapts to it).
pub const TARGET_SUBMISSION_S: f64 = 0.25;
/// How long to wait for one submission before declaring the device hung.
const POLL_TIMEOUT: Duration = Duration::from_secs(120);

/// The GPU as an [`Engine`]: what `fdtd_core::backend::create` chooses from.
pub struct GpuEngine;

impl Engine for GpuEngine {
    fn kind(&self) -> BackendChoice {
        BackendChoice::Gpu
    }

    fn plan(&self, model: &Simulation, opts: &BackendOptions) -> Result<Target, BackendError> {
        let (plan, info) = plan(model, opts)?;
        Ok(Target {
            plan,
            device: info.short(),
            software: info.is_software(),
        })
    }

    fn create(&self, model: Arc<Simulation>, opts: &BackendOptions) -> Result<Box<dyn Backend>, BackendError> {
        Ok(Box::new(GpuBackend::new(model, opts)?))
    }
}

/// Create the GPU backend for `model`.
pub fn create(model: Arc<Simulation>, opts: &BackendOptions) -> Result<(Box<dyn Backend>, String), BackendError> {
    let b = GpuBackend::new(model, opts)?;
    let d = b.describe();
    Ok((Box::new(b), d))
}

/// The memory plan on the adapter `opts` selects, checked against its limits and
/// memory budget (what `fdtd check --backend gpu` prints). Allocates nothing on the
/// device. `Err(DoesNotFit)` says what was needed, what is available and what would fit.
pub fn plan(model: &Simulation, opts: &BackendOptions) -> Result<(Plan, DeviceInfo), BackendError> {
    let sel = select(opts, None)?;
    let (_, plan) = layout_and_plan(model, &sel.info, None, fraction(opts))?;
    Ok((plan, sel.info))
}

fn fraction(opts: &BackendOptions) -> f64 {
    opts.gpu_memory_fraction.unwrap_or(0.9).clamp(1e-9, 1.0)
}

/// Knobs for tests and benchmarks; the CLI uses the defaults (and the environment).
#[derive(Clone, Debug, Default)]
pub struct GpuConfig {
    /// Storage-binding cap (bytes); None: [`MAX_BINDING_ENV`], else the device's limit.
    pub binding_cap: Option<u64>,
    /// Workgroup shapes; None: [`WORKGROUP_ENV`], else [`Shapes::default`].
    pub shapes: Option<Shapes>,
    /// Compile the kernels without runtime bounds checks; None: [`UNCHECKED_ENV`].
    pub unchecked: Option<bool>,
    /// Pad rows to a multiple of this many samples; None: [`ROW_ALIGN_ENV`], else
    /// automatic ([`layout::auto_row_align`]).
    pub row_align: Option<usize>,
}

/// Environment variable: pad each z row of the device arrays to a multiple of this many
/// samples (1 = no padding), so rows start on aligned addresses. Unset: automatic
/// ([`layout::auto_row_align`]).
pub const ROW_ALIGN_ENV: &str = "FDTD_GPU_ROW_ALIGN";

/// The explicit row alignment, if configured or set in the environment.
fn row_align(cfg: Option<usize>) -> Result<Option<usize>, BackendError> {
    if let Some(a) = cfg {
        return Ok(Some(a.max(1)));
    }
    match std::env::var(ROW_ALIGN_ENV) {
        Ok(v) => v
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|&a| (1..=1024).contains(&a))
            .map(Some)
            .ok_or_else(|| {
                BackendError::Gpu(format!(
                    "{ROW_ALIGN_ENV}={v:?}: expected a number of samples, 1 to 1024"
                ))
            }),
        Err(_) => Ok(None),
    }
}

/// Cut the grid for the device and check the plan. Rows are padded automatically
/// unless configured; when the padded plan does not fit, the unpadded one is tried.
/// A refusal says what would fit, found with this same function ([`what_fits`]).
fn layout_and_plan(
    model: &Simulation,
    info: &DeviceInfo,
    align: Option<usize>,
    fraction: f64,
) -> Result<(Layout, Plan), BackendError> {
    match try_layout(model, info, align, fraction) {
        Err(Refusal::Budget { need, usable }) => Err(BackendError::DoesNotFit(layout::refusal(
            model,
            info,
            fraction,
            need,
            usable,
            &what_fits(model, info, align, fraction),
        ))),
        Err(Refusal::Other(e)) => Err(e),
        Ok(x) => Ok(x),
    }
}

/// Why a plan was refused: over the memory budget (with its need and the usable bytes)
/// or anything else (a binding or buffer limit).
enum Refusal {
    Budget { need: u64, usable: u64 },
    Other(BackendError),
}

/// [`layout_and_plan`] without the suggestion.
fn try_layout(
    model: &Simulation,
    info: &DeviceInfo,
    align: Option<usize>,
    fraction: f64,
) -> Result<(Layout, Plan), Refusal> {
    let explicit = row_align(align).map_err(Refusal::Other)?;
    let first = explicit.unwrap_or_else(|| layout::auto_row_align(model.grid.n[2] + 1));
    let attempt = |a: usize| -> Result<(Layout, Plan), Refusal> {
        let layout = Layout::new(model, info.binding_cap, a).map_err(Refusal::Other)?;
        let plan = layout::plan(model, &layout, info);
        layout::check_limits(model, &layout, info).map_err(Refusal::Other)?;
        if let Some(avail) = info.memory.available() {
            let usable = (avail as f64 * fraction) as u64;
            if plan.total() > usable {
                return Err(Refusal::Budget {
                    need: plan.total(),
                    usable,
                });
            }
        }
        Ok((layout, plan))
    };
    match attempt(first) {
        Err(_) if explicit.is_none() && first > 1 => attempt(1),
        r => r,
    }
}

/// What would fit on the device, by the exact plan of the run: the largest cube of the
/// same cells (and CPML, sources, probes) and the smallest coarsening of the cells
/// along every axis for the same domain.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fits {
    /// Cells per axis of the largest cube, and its plan.
    pub cube: Option<(usize, u64)>,
    /// Coarsening factor, the grid it gives, and its plan.
    pub coarser: Option<(f64, [usize; 3], u64)>,
}

/// See [`Fits`]. Each candidate is planned with [`try_layout`] on a plan-only copy of
/// the model ([`Model::resized_for_plan`]), so a suggested grid is accepted by the run.
pub fn what_fits(model: &Simulation, info: &DeviceInfo, align: Option<usize>, fraction: f64) -> Fits {
    let g = &model.grid;
    let plan_of = |n: [usize; 3], d: [f64; 3]| -> Option<u64> {
        try_layout(&model.resized_for_plan(n, d), info, align, fraction)
            .ok()
            .map(|(_, p)| p.total())
    };
    // The smallest cube the CPML allows (2 cells of interior).
    let min_side = (0..3)
        .map(|a| {
            model
                .cpml
                .iter()
                .filter(|l| l.axis == a)
                .map(|l| l.e.len())
                .sum::<usize>()
                + 2
        })
        .max()
        .unwrap_or(2);
    let largest = |ok: &dyn Fn(usize) -> bool, lo: usize, hi: usize| -> Option<usize> {
        // Largest x in [lo, hi] with ok(x), ok monotone (true then false).
        if !ok(lo) {
            return None;
        }
        let (mut lo, mut hi) = (lo, hi + 1);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if ok(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(lo)
    };
    let side_max = g.n.iter().copied().max().unwrap_or(1).max(min_side);
    let cube = largest(&|s| plan_of([s; 3], g.d).is_some(), min_side, side_max)
        .and_then(|s| plan_of([s; 3], g.d).map(|p| (s, p)));
    let grid_for = |f: f64| g.n.map(|n| ((n as f64 / f).ceil() as usize).max(1));
    // Coarsening: walk the factor up in steps of about 1 % until it fits (at most a few
    // hundred plans, each a little arithmetic).
    let mut coarser = None;
    let mut f = 1.01f64;
    while f <= 100.0 {
        let n = grid_for(f);
        if n.iter().zip(&g.n).any(|(a, b)| a != b) {
            if let Some(p) = plan_of(n, g.d.map(|d| d * f)) {
                coarser = Some((f, n, p));
                break;
            }
        }
        f = (f * 1.01 * 100.0).round() / 100.0;
    }
    Fits { cube, coarser }
}

struct Selected {
    /// Kept alive with the adapter.
    _instance: wgpu::Instance,
    adapter: wgpu::Adapter,
    info: DeviceInfo,
}

/// `cap`: binding cap override (else [`MAX_BINDING_ENV`], else the device's limits).
fn select(opts: &BackendOptions, cap: Option<u64>) -> Result<Selected, BackendError> {
    let cap = match cap {
        Some(c) => Some(c),
        None => device::binding_override()?,
    };
    device::check_budget_env()?;
    let instance = device::instance();
    let mut adapters = device::adapters(&instance);
    let infos: Vec<DeviceInfo> = adapters
        .iter()
        .enumerate()
        .map(|(i, a)| device::info(i, a, cap))
        .collect();
    let pick = device::choose(&infos, opts.device.as_deref())?;
    let info = infos[pick].clone();
    let adapter = adapters.swap_remove(pick);
    Ok(Selected {
        _instance: instance,
        adapter,
        info,
    })
}

/// The GPU backend: fields in device buffers, stepped by WGSL kernels.
pub struct GpuBackend {
    model: Arc<Simulation>,
    info: DeviceInfo,
    layout: Layout,
    plan: Plan,
    shapes: Shapes,
    device: wgpu::Device,
    queue: wgpu::Queue,
    kernels: Kernels,
    built: Built,
    /// Output streams of every extension pass, in schedule order (probe samples).
    outputs: Vec<Vec<Vec<f32>>>,
    /// Set by the device-lost callback.
    lost: Arc<Mutex<Option<String>>>,
    /// Errors no error scope caught: (is out-of-memory, message).
    errors: Arc<Mutex<Vec<(bool, String)>>>,
    steps_per_submit: usize,
    /// Last measured seconds per step.
    seconds_per_step: f64,
    max_dim: u32,
    /// Submissions not yet finished (at most two: one runs while the next is recorded).
    in_flight: std::collections::VecDeque<InFlight>,
    /// When the last finished submission completed.
    last_done: Option<Instant>,
    /// Probe readback buffer for the next submission that samples probes.
    next_map: usize,
    /// Kept to ask the driver how much device memory this process uses.
    adapter: wgpu::Adapter,
    _instance: wgpu::Instance,
    /// Heap usage before the device was opened, and the most seen since (bytes).
    usage_base: Option<u64>,
    usage_peak: u64,
    usage_checked: Instant,
}

/// A submission on the device queue.
struct InFlight {
    index: wgpu::SubmissionIndex,
    n0: usize,
    count: usize,
    /// Probe readback buffer its samples were copied to.
    map: Option<usize>,
    submitted: Instant,
}

impl GpuBackend {
    /// Whether any output stream of any pass takes a value after step `n` (then the
    /// submission ending there reads the output buffer back).
    fn stream_due(&self, n: usize) -> bool {
        self.model
            .schedule
            .passes
            .iter()
            .flat_map(|p| &p.outputs)
            .any(|s| probe_due(s.every, n))
    }

    /// Select an adapter, check the plan, allocate, and prepare every dispatch.
    pub fn new(model: Arc<Simulation>, opts: &BackendOptions) -> Result<GpuBackend, BackendError> {
        GpuBackend::with_binding_cap(model, opts, None)
    }

    /// [`GpuBackend::new`] with the storage-binding cap lowered to `cap` bytes (as
    /// [`MAX_BINDING_ENV`] does), so tests can cut small grids into many x slabs.
    pub fn with_binding_cap(
        model: Arc<Simulation>,
        opts: &BackendOptions,
        cap: Option<u64>,
    ) -> Result<GpuBackend, BackendError> {
        GpuBackend::with_config(
            model,
            opts,
            &GpuConfig {
                binding_cap: cap,
                ..Default::default()
            },
        )
    }

    /// [`GpuBackend::new`] with explicit knobs (tests, benchmarks).
    pub fn with_config(
        model: Arc<Simulation>,
        opts: &BackendOptions,
        cfg: &GpuConfig,
    ) -> Result<GpuBackend, BackendError> {
        kernels::check_shader_dir()?;
        let sel = select(opts, cfg.binding_cap)?;
        let info = sel.info.clone();
        let usage_base = device::heap_usage(&sel.adapter);
        let (layout, plan) = layout_and_plan(&model, &info, cfg.row_align, fraction(opts))?;
        let limits = sel.adapter.limits();
        let shapes = match cfg.shapes {
            Some(s) => s,
            None => Shapes::from_env(limits.max_compute_invocations_per_workgroup)?,
        };
        let unchecked = cfg
            .unchecked
            .unwrap_or_else(|| std::env::var_os(UNCHECKED_ENV).is_some_and(|v| v == "1"));
        let (device, queue) = pollster::block_on(sel.adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("fdtd"),
            // Timestamps only serve `profile_steps`; ask for them where they exist.
            required_features: sel.adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
            required_limits: limits.clone(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::MemoryUsage,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| BackendError::NoDevice(format!("cannot open {}: {e}", info.short())))?;

        let lost = Arc::new(Mutex::new(None));
        let l2 = lost.clone();
        device.set_device_lost_callback(move |reason, msg| {
            let why = match reason {
                wgpu::DeviceLostReason::Destroyed => "the device was destroyed".to_string(),
                _ => {
                    "the driver reported the device lost (driver reset, GPU hang, or out of memory during a submission)"
                        .to_string()
                }
            };
            *l2.lock().unwrap() = Some(if msg.is_empty() { why } else { format!("{why}: {msg}") });
        });
        let errors = Arc::new(Mutex::new(Vec::new()));
        let e2 = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let oom = matches!(e, wgpu::Error::OutOfMemory { .. });
            e2.lock().unwrap().push((oom, e.to_string()));
        }));

        // Allocate everything inside error scopes: a failure is an error, not a panic.
        let oom_scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let val_scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let kernels = Kernels::new(&device, shapes, unchecked);
        let built = build::build(
            &device,
            &queue,
            &kernels,
            shapes,
            &model,
            &layout,
            limits.min_uniform_buffer_offset_alignment as u64,
        );
        let val = pollster::block_on(val_scope.pop());
        let oom = pollster::block_on(oom_scope.pop()).map(|e| e.to_string());
        let (oom, val) = if built.injected_oom {
            (Some(format!("injected by {}", build::ALLOC_FAIL_ENV)), None)
        } else {
            (oom, val)
        };
        if let Some(e) = oom {
            // The driver refused although the budget said the plan fits: say what fits in
            // what it really gave (its usage when it failed, else 80 % of the plan).
            let (got, how) = match (usage_base, device::heap_usage(&sel.adapter)) {
                (Some(base), Some(now)) if now > base => (now - base, "what it gave before failing"),
                _ => (plan.total() / 10 * 8, "80 % of the plan"),
            };
            let mut capped = info.clone();
            capped.memory = Memory::Limit { bytes: got };
            let fits = what_fits(&model, &capped, cfg.row_align, 1.0);
            return Err(BackendError::OutOfMemory(format!(
                "the device ran out of memory while allocating the plan on {} (plan {}; {}), although its \
                 budget said it fits ({e}). What would fit in {how} ({}): {}",
                info.short(),
                human_bytes(plan.total()),
                info.memory.describe(),
                human_bytes(got),
                layout::fit_options(&model, &fits)
            )));
        }
        if let Some(e) = val {
            return Err(BackendError::Gpu(format!(
                "wgpu rejected a resource while allocating the plan on {} (plan {}, {}): {e}",
                info.short(),
                human_bytes(plan.total()),
                info.memory.describe()
            )));
        }
        let max_dim = device.limits().max_compute_workgroups_per_dimension;
        let mut b = GpuBackend {
            outputs: empty_outputs(&model),
            model,
            info,
            layout,
            plan,
            shapes,
            device,
            queue,
            kernels,
            built,
            lost,
            errors,
            steps_per_submit: 4,
            seconds_per_step: 0.0,
            max_dim,
            in_flight: Default::default(),
            last_done: None,
            next_map: 0,
            adapter: sel.adapter,
            _instance: sel._instance,
            usage_base,
            usage_peak: 0,
            usage_checked: Instant::now(),
        };
        // Make sure the allocations really happened (lazy drivers fail on first use).
        b.wait()?;
        b.sample_usage();
        Ok(b)
    }

    /// Record the device memory this process uses now, as the driver reports it.
    fn sample_usage(&mut self) {
        if let (Some(base), Some(now)) = (self.usage_base, device::heap_usage(&self.adapter)) {
            self.usage_peak = self.usage_peak.max(now.saturating_sub(base));
        }
        self.usage_checked = Instant::now();
    }

    /// [`GpuBackend::sample_usage`], at most every 0.1 s (during the run).
    fn sample_usage_now_and_then(&mut self) {
        if self.usage_checked.elapsed() >= Duration::from_millis(100) {
            self.sample_usage();
        }
    }

    /// The adapter this backend runs on.
    pub fn device_info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The memory plan it allocated.
    pub fn memory_plan(&self) -> &Plan {
        &self.plan
    }

    /// The step's dispatches in order, each as `(index of its stage in the schedule's
    /// stage list, label)`: the op list `build` compiled from `Schedule::stages`.
    pub fn dispatches(&self) -> Vec<(usize, String)> {
        self.built.ops.iter().map(|op| (op.stage, op.label.clone())).collect()
    }

    /// Number of x slabs the grid was cut into.
    pub fn pieces(&self) -> usize {
        self.layout.pieces.len()
    }

    pub fn shapes(&self) -> Shapes {
        self.shapes
    }

    /// Steps recorded into the next submission (adapts to the measured speed).
    pub fn steps_per_submit(&self) -> usize {
        self.steps_per_submit
    }

    /// Fix the number of steps per submission (1..=[`MAX_STEPS`]); it still adapts
    /// after the next submission.
    pub fn set_steps_per_submit(&mut self, n: usize) {
        self.steps_per_submit = n.clamp(1, MAX_STEPS);
    }

    /// Last measured seconds per step.
    pub fn seconds_per_step(&self) -> f64 {
        self.seconds_per_step
    }

    /// Test hook: destroy the device as a driver reset would, so that the next call
    /// reports [`BackendError::DeviceLost`].
    pub fn inject_device_loss(&self) {
        self.device.destroy();
    }

    /// Device lost or an uncaptured error since the last check → an error.
    fn check(&self) -> Result<(), BackendError> {
        if let Some(why) = self.lost.lock().unwrap().clone() {
            return Err(BackendError::DeviceLost(format!(
                "{} on {}; the fields on the device are gone, so the run stops here (outputs \
                 written so far are kept). Rerun, or run on the CPU backend",
                why,
                self.info.short()
            )));
        }
        if let Some((oom, msg)) = self.errors.lock().unwrap().first().cloned() {
            return Err(if oom {
                BackendError::OutOfMemory(format!("{} ran out of memory: {msg}", self.info.short()))
            } else {
                BackendError::Gpu(format!("{}: {msg}", self.info.short()))
            });
        }
        Ok(())
    }

    /// Wait for the last submission, then check for loss and errors.
    fn wait(&self) -> Result<(), BackendError> {
        self.wait_for(None)
    }

    /// Wait for submission `index` (None: the last one), then check for loss and errors.
    fn wait_for(&self, index: Option<wgpu::SubmissionIndex>) -> Result<(), BackendError> {
        let r = self.device.poll(wgpu::PollType::Wait {
            submission_index: index,
            timeout: Some(POLL_TIMEOUT),
        });
        self.check()?;
        match r {
            Ok(_) => Ok(()),
            Err(wgpu::PollError::Timeout) => Err(BackendError::Gpu(format!(
                "{} did not finish a submission within {} s; the device seems hung",
                self.info.short(),
                POLL_TIMEOUT.as_secs()
            ))),
            Err(e) => Err(BackendError::Gpu(format!("waiting for {}: {e}", self.info.short()))),
        }
    }

    /// Map `bytes` of a MAP_READ buffer (after its copy was submitted in submission
    /// `index`, None: the last one) and read them.
    fn map_read(
        &self,
        buf: &wgpu::Buffer,
        bytes: u64,
        index: Option<wgpu::SubmissionIndex>,
    ) -> Result<Vec<f32>, BackendError> {
        let slot: Arc<Mutex<Option<Result<(), wgpu::BufferAsyncError>>>> = Arc::new(Mutex::new(None));
        let s2 = slot.clone();
        buf.map_async(wgpu::MapMode::Read, 0..bytes, move |r| {
            *s2.lock().unwrap() = Some(r);
        });
        self.wait_for(index)?;
        match slot.lock().unwrap().take() {
            Some(Ok(())) => {}
            Some(Err(e)) => {
                return Err(BackendError::Gpu(format!(
                    "reading back from {}: {e}",
                    self.info.short()
                )))
            }
            None => {
                return Err(BackendError::Gpu(format!(
                    "reading back from {}: the mapping never completed",
                    self.info.short()
                )))
            }
        }
        let out = {
            let view = buf
                .get_mapped_range(0..bytes)
                .map_err(|e| BackendError::Gpu(format!("reading back from {}: {e}", self.info.short())))?;
            bytemuck::pod_collect_to_vec::<u8, f32>(&view)
        };
        buf.unmap();
        Ok(out)
    }

    /// Record `count` (≤ MAX_STEPS) steps from `n0` into one submission and submit it
    /// without waiting (see [`GpuBackend::finish_one`]).
    fn launch(&mut self, n0: usize, count: usize, src: &[f32]) -> Result<(), BackendError> {
        let b = &self.built;
        let ns = self.model.sources.len();
        if ns > 0 {
            // Queue writes are ordered with submissions: a submission still in flight
            // keeps reading the values written before it.
            self.queue
                .write_buffer(&b.values, 0, bytemuck::cast_slice(&src[..count * ns]));
        }
        let stride = b.step_stride as usize;
        let mut rec = vec![0u8; count * stride];
        let step_u32 = |n: usize| {
            u32::try_from(n)
                .map_err(|_| BackendError::Gpu(format!("step {n} does not fit the kernels' u32 step index")))
        };
        step_u32(n0 + count)?;
        for s in 0..count {
            let step = params::Step {
                s: s as u32,
                n: (n0 + s) as u32,
                n0: n0 as u32,
                ns: ns as u32,
            };
            let step = bytemuck::bytes_of(&step);
            rec[s * stride..s * stride + step.len()].copy_from_slice(step);
        }
        self.queue.write_buffer(&b.steps, 0, &rec);

        let sampled = (n0..n0 + count).any(|n| self.stream_due(n));
        let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("fdtd steps"),
        });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("fdtd steps"),
                timestamp_writes: None,
            });
            let mut current: Option<Pipe> = None;
            for s in 0..count {
                for op in &b.ops {
                    if !op.runs_at(n0 + s) {
                        continue;
                    }
                    if current != Some(op.pipe) {
                        pass.set_pipeline(self.pipeline(op.pipe));
                        current = Some(op.pipe);
                    }
                    pass.set_bind_group(0, &op.bg, &[]);
                    if let Pipe::Pass(..) = op.pipe {
                        pass.set_bind_group(1, &b.step_bg, &[(s * stride) as u32]);
                    }
                    pass.dispatch_workgroups(op.groups[0], op.groups[1], op.groups[2]);
                }
            }
        }
        let map = if sampled {
            let slot = self.next_map;
            self.next_map ^= 1;
            enc.copy_buffer_to_buffer(&b.pass_out, 0, &b.pass_maps[slot], 0, self.layout.out_bytes());
            Some(slot)
        } else {
            None
        };
        let index = self.queue.submit([enc.finish()]);
        self.in_flight.push_back(InFlight {
            index,
            n0,
            count,
            map,
            submitted: Instant::now(),
        });
        Ok(())
    }

    /// Wait for the oldest submission in flight, collect its probe samples, and adapt
    /// the number of steps per submission to its duration.
    fn finish_one(&mut self) -> Result<(), BackendError> {
        let Some(f) = self.in_flight.pop_front() else {
            return Ok(());
        };
        self.wait_for(Some(f.index.clone()))?;
        let now = Instant::now();
        // The GPU started this submission when it was submitted or when the previous
        // one finished, whichever came later.
        let began = match self.last_done {
            Some(t) if t > f.submitted => t,
            _ => f.submitted,
        };
        self.last_done = Some(now);
        self.sample_usage_now_and_then();
        self.seconds_per_step = (now - began).as_secs_f64() / f.count as f64;
        self.steps_per_submit = ((TARGET_SUBMISSION_S / self.seconds_per_step.max(1e-9)) as usize).clamp(1, MAX_STEPS);
        if let Some(slot) = f.map {
            let data = self.map_read(&self.built.pass_maps[slot], self.layout.out_bytes(), Some(f.index))?;
            // Stream q of the passes, in schedule order, at slots q·MAX_STEPS...
            let mut q = 0;
            for (k, sp) in self.model.schedule.passes.iter().enumerate() {
                for (st, stream) in sp.outputs.iter().enumerate() {
                    let d = (f.n0 + f.count) / stream.every - f.n0 / stream.every;
                    let base = q * MAX_STEPS;
                    self.outputs[k][st].extend_from_slice(&data[base..base + d]);
                    q += 1;
                }
            }
        }
        Ok(())
    }

    /// Finish every submission in flight.
    fn flush(&mut self) -> Result<(), BackendError> {
        while !self.in_flight.is_empty() {
            self.finish_one()?;
        }
        self.check()
    }

    /// Run steps `n0 .. n0 + count` one per submission, every dispatch in its own
    /// timed compute pass, and return the GPU time per step of each kernel:
    /// `(entry point, seconds per step, dispatches per step)`, slowest first. Needs
    /// timestamp queries; a profiling aid (the extra passes cost some speed), the
    /// fields advance exactly as with [`Backend::step`].
    pub fn profile_steps(
        &mut self,
        n0: usize,
        count: usize,
        sources: &[f32],
    ) -> Result<Vec<(String, f64, usize)>, BackendError> {
        if !self.device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return Err(BackendError::Gpu(format!(
                "{} has no timestamp queries",
                self.info.short()
            )));
        }
        self.flush()?;
        let ns = self.model.sources.len();
        let nops = self.built.ops.len();
        let queries = u32::try_from(2 * nops)
            .ok()
            .filter(|&q| q <= wgpu::QUERY_SET_MAX_QUERIES)
            .ok_or_else(|| BackendError::Gpu(format!("{nops} dispatches per step: too many to time")))?;
        let qs = self.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("profile"),
            ty: wgpu::QueryType::Timestamp,
            count: queries,
        });
        let bytes = 8 * queries as u64;
        let resolve = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("profile resolve"),
            size: bytes,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let map = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("profile map"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let period = self.queue.get_timestamp_period() as f64 * 1e-9;
        let mut total: Vec<(String, f64, usize)> = Vec::new();
        for s in 0..count {
            let n = n0 + s;
            let b = &self.built;
            if ns > 0 {
                self.queue
                    .write_buffer(&b.values, 0, bytemuck::cast_slice(&sources[s * ns..(s + 1) * ns]));
            }
            let rec = params::Step {
                s: 0,
                n: n as u32,
                n0: n as u32,
                ns: ns as u32,
            };
            self.queue.write_buffer(&b.steps, 0, bytemuck::bytes_of(&rec));
            let due = self.stream_due(n);
            let mut enc = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("profile") });
            let mut timed = Vec::new();
            for (o, op) in b.ops.iter().enumerate() {
                if !op.runs_at(n) {
                    continue;
                }
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some(&op.label),
                    timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                        query_set: &qs,
                        beginning_of_pass_write_index: Some(2 * o as u32),
                        end_of_pass_write_index: Some(2 * o as u32 + 1),
                    }),
                });
                pass.set_pipeline(self.pipeline(op.pipe));
                pass.set_bind_group(0, &op.bg, &[]);
                if let Pipe::Pass(..) = op.pipe {
                    pass.set_bind_group(1, &b.step_bg, &[0]);
                }
                pass.dispatch_workgroups(op.groups[0], op.groups[1], op.groups[2]);
                drop(pass);
                timed.push(o);
            }
            enc.resolve_query_set(&qs, 0..queries, &resolve, 0);
            enc.copy_buffer_to_buffer(&resolve, 0, &map, 0, bytes);
            if due {
                enc.copy_buffer_to_buffer(&b.pass_out, 0, &b.pass_maps[0], 0, self.layout.out_bytes());
            }
            self.queue.submit([enc.finish()]);
            let ticks = {
                let slot: Arc<Mutex<Option<Result<(), wgpu::BufferAsyncError>>>> = Arc::new(Mutex::new(None));
                let s2 = slot.clone();
                map.map_async(wgpu::MapMode::Read, .., move |r| *s2.lock().unwrap() = Some(r));
                self.wait()?;
                if !matches!(slot.lock().unwrap().take(), Some(Ok(()))) {
                    return Err(BackendError::Gpu("reading timestamps failed".into()));
                }
                let view = map.get_mapped_range(..).map_err(|e| BackendError::Gpu(e.to_string()))?;
                bytemuck::pod_collect_to_vec::<u8, u64>(&view)
            };
            map.unmap();
            for o in timed {
                let op = &b.ops[o];
                let name = &op.label;
                let dt = ticks[2 * o + 1].saturating_sub(ticks[2 * o]) as f64 * period;
                match total.iter_mut().find(|t| t.0 == *name) {
                    Some(t) => {
                        t.1 += dt;
                        t.2 += 1;
                    }
                    None => total.push((name.clone(), dt, 1)),
                }
            }
            if due {
                let data = self.map_read(&self.built.pass_maps[0], self.layout.out_bytes(), None)?;
                let mut q = 0;
                for (k, sp) in self.model.schedule.passes.iter().enumerate() {
                    for (st, stream) in sp.outputs.iter().enumerate() {
                        let d = usize::from(probe_due(stream.every, n));
                        self.outputs[k][st].extend_from_slice(&data[q * MAX_STEPS..q * MAX_STEPS + d]);
                        q += 1;
                    }
                }
            }
        }
        for t in total.iter_mut() {
            t.1 /= count.max(1) as f64;
            t.2 /= count.max(1);
        }
        total.sort_by(|a, b| b.1.total_cmp(&a.1));
        Ok(total)
    }

    fn pipeline(&self, p: Pipe) -> &wgpu::ComputePipeline {
        match p {
            Pipe::Fixed(k) => self.kernels.pipeline(k),
            Pipe::Pass(k, e) => &self.built.passes[k].pipelines[e],
        }
    }

    /// Floats `offset .. offset + len` of a COPY_SRC buffer, through the readback staging.
    fn read_buffer(&self, buf: &wgpu::Buffer, offset: usize, len: usize) -> Result<Vec<f32>, BackendError> {
        let mut out = Vec::with_capacity(len);
        let per = (self.layout.staging / 4) as usize;
        let mut done = 0;
        while done < len {
            let n = per.min(len - done);
            let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("fdtd readback"),
            });
            enc.copy_buffer_to_buffer(buf, 4 * (offset + done) as u64, &self.built.map, 0, 4 * n as u64);
            self.queue.submit([enc.finish()]);
            out.extend(self.map_read(&self.built.map, 4 * n as u64, None)?);
            done += n;
        }
        Ok(out)
    }

    /// Queue writes are staged in host memory until the next submission: submit and
    /// wait every ~64 MiB so a large state does not pile up.
    fn write_staged(
        &self,
        buf: &wgpu::Buffer,
        offset: usize,
        data: &[f32],
        pending: &mut usize,
    ) -> Result<(), BackendError> {
        self.queue
            .write_buffer(buf, 4 * offset as u64, bytemuck::cast_slice(data));
        *pending += 4 * data.len();
        if *pending >= 64 << 20 {
            self.queue.submit([]);
            self.wait()?;
            *pending = 0;
        }
        Ok(())
    }

    /// Pack box `i × j × [k0, k0 + wz)` of component `c` in piece `p` and append it to `out`.
    #[allow(clippy::too_many_arguments)]
    fn gather(
        &self,
        p: usize,
        c: Component,
        i: (usize, usize),
        j: (usize, usize),
        k0: usize,
        wz: usize,
        out: &mut Vec<f32>,
    ) -> Result<(), BackendError> {
        let wy = j.1 - j.0;
        let count = (i.1 - i.0) * wy * wz;
        let (groups, stride) = build::linear(count, Kernels::linear_wg(Kernel::Gather, self.shapes), self.max_dim);
        let job = params::CopyJob {
            src_off: self.layout.local(p, i.0, j.0, k0) as u32,
            dst_off: 0,
            count: count as u32,
            stride,
            wy: wy as u32,
            wz: wz as u32,
            sx: self.layout.sx as u32,
            sy: self.layout.sy as u32,
        };
        let b = &self.built;
        self.queue.write_buffer(&b.gather_params, 0, bytemuck::bytes_of(&job));
        let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("fdtd readback"),
        });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("gather"),
                timestamp_writes: None,
            });
            pass.set_pipeline(self.kernels.pipeline(Kernel::Gather));
            pass.set_bind_group(0, &b.gather_bgs[p][c.index()], &[]);
            pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
        }
        let bytes = 4 * count as u64;
        enc.copy_buffer_to_buffer(&b.pack, 0, &b.map, 0, bytes);
        self.queue.submit([enc.finish()]);
        let data = self.map_read(&b.map, bytes, None)?;
        out.extend_from_slice(&data);
        Ok(())
    }
}

impl Backend for GpuBackend {
    fn describe(&self) -> String {
        let kind = if self.info.is_software() {
            "software device, slow"
        } else {
            device::type_name(self.info.device_type)
        };
        let slabs = self.layout.pieces.len();
        format!(
            "gpu (wgpu {:?}: {}, {kind}{})",
            self.info.backend,
            self.info.name,
            if slabs > 1 {
                format!("; grid in {slabs} x slabs")
            } else {
                String::new()
            }
        )
    }

    fn step(&mut self, n0: usize, count: usize, sources: &[f32]) -> Result<(), BackendError> {
        // A non-blocking poll runs pending callbacks (device lost, finished work).
        let _ = self.device.poll(wgpu::PollType::Poll);
        self.check()?;
        let ns = self.model.sources.len();
        if sources.len() < count * ns {
            return Err(BackendError::Gpu(format!(
                "step: {} source values for {count} steps of {ns} sources",
                sources.len()
            )));
        }
        let mut done = 0;
        while done < count {
            let c = self.steps_per_submit.min(count - done);
            self.launch(n0 + done, c, &sources[done * ns..(done + c) * ns])?;
            done += c;
            // Record the next submission while this one runs; never more than two queued.
            while self.in_flight.len() > 1 {
                self.finish_one()?;
            }
        }
        Ok(())
    }

    fn drain_outputs(&mut self) -> Result<PassOutputs, BackendError> {
        self.flush()?;
        Ok(std::mem::replace(&mut self.outputs, empty_outputs(&self.model)))
    }

    fn read_region(&mut self, c: Component, lo: [usize; 3], hi: [usize; 3]) -> Result<Vec<f32>, BackendError> {
        self.flush()?;
        let dims = self.model.grid.dims();
        if (0..3).any(|a| lo[a] > hi[a] || hi[a] > dims[a]) {
            return Err(BackendError::Gpu(format!(
                "read_region {lo:?}..{hi:?} is outside the grid's samples {dims:?}"
            )));
        }
        let (wy, wz) = (hi[1] - lo[1], hi[2] - lo[2]);
        let total = (hi[0] - lo[0]) * wy * wz;
        let mut out = Vec::with_capacity(total);
        if total == 0 {
            return Ok(out);
        }
        let staging = self.layout.staging as usize;
        let row_bytes = 4 * wz;
        let plane_bytes = row_bytes * wy;
        for (p, piece) in self.layout.pieces.iter().enumerate() {
            let (xa, xb) = (lo[0].max(piece.i0), hi[0].min(piece.end()));
            if xa >= xb {
                continue;
            }
            if plane_bytes <= staging {
                let per = staging / plane_bytes;
                let mut i = xa;
                while i < xb {
                    let e = (i + per).min(xb);
                    self.gather(p, c, (i, e), (lo[1], hi[1]), lo[2], wz, &mut out)?;
                    i = e;
                }
            } else {
                let per = (staging / row_bytes).max(1);
                for i in xa..xb {
                    let mut j = lo[1];
                    while j < hi[1] {
                        let e = (j + per).min(hi[1]);
                        self.gather(p, c, (i, i + 1), (j, e), lo[2], wz, &mut out)?;
                        j = e;
                    }
                }
            }
        }
        Ok(out)
    }

    fn read_field(&mut self, c: Component) -> Result<Vec<f32>, BackendError> {
        self.read_region(c, [0; 3], self.model.grid.dims())
    }

    fn save_state(&mut self) -> Result<SolverState, BackendError> {
        self.flush()?;
        // The model's state table: fields through the gather kernel, every other array
        // from its runs on the device; values no pass updates stay zero, as on the CPU.
        let mut out = SolverState::zeros(&self.model.schedule.state);
        for c in Component::ALL {
            out.arrays[c.index()].data = self.read_field(c)?;
        }
        for sb in &self.built.state {
            let data = self.read_buffer(&sb.buffer, sb.at, sb.len)?;
            out.arrays[sb.array].data[sb.offset..sb.offset + sb.len].copy_from_slice(&data);
        }
        Ok(out)
    }

    fn read_state(&mut self, names: &[&str]) -> Result<Vec<Vec<f32>>, BackendError> {
        self.flush()?;
        // Only the runs of the arrays asked for (a monitor's state, not the fields).
        let model = self.model.clone();
        let table = &model.schedule.state;
        let mut out = Vec::with_capacity(names.len());
        for name in names {
            let a = table
                .iter()
                .position(|s| s.name == *name)
                .ok_or_else(|| BackendError::Unsupported(format!("the solver state has no array `{name}`")))?;
            if a < 6 {
                out.push(self.read_field(Component::ALL[a])?);
                continue;
            }
            let mut data = vec![0f32; table[a].len()];
            for sb in self.built.state.iter().filter(|sb| sb.array == a) {
                let part = self.read_buffer(&sb.buffer, sb.at, sb.len)?;
                data[sb.offset..sb.offset + sb.len].copy_from_slice(&part);
            }
            out.push(data);
        }
        Ok(out)
    }

    fn load_state(&mut self, state: &SolverState) -> Result<(), BackendError> {
        state.check(&self.model.schedule.state)?;
        self.flush()?;
        let [nx, ny, nz] = self.model.grid.n;
        let gsx = self.model.grid.strides()[0];
        let (sx, sy) = (self.layout.sx, self.layout.sy);
        let periodic_x = self.model.faces[0] == fdtd_core::model::FaceKind::Periodic;
        let mut pending = 0;
        let mut plane = vec![0f32; sx];
        for (p, piece) in self.layout.pieces.iter().enumerate() {
            for c in 0..6 {
                let buf = &self.built.pieces[p].fields[c];
                for lp in 0..piece.planes + 2 {
                    // The global plane this local plane holds: its own, or the neighbour
                    // a ghost mirrors (the periodic image H[nx-1] below the first slab).
                    let gi = match (piece.i0 + lp).checked_sub(1) {
                        Some(i) if i <= nx => Some(i),
                        None if periodic_x && (c == 4 || c == 5) => Some(nx - 1),
                        _ => None,
                    };
                    plane.fill(0.0);
                    if let Some(i) = gi {
                        for j in 0..=ny {
                            let src = &state.arrays[c].data[i * gsx + j * (nz + 1)..][..nz + 1];
                            plane[j * sy..j * sy + nz + 1].copy_from_slice(src);
                        }
                    }
                    self.write_staged(buf, lp * sx, &plane, &mut pending)?;
                }
            }
        }
        for sb in &self.built.state {
            let data = &state.arrays[sb.array].data[sb.offset..sb.offset + sb.len];
            self.write_staged(&sb.buffer, sb.at, data, &mut pending)?;
        }
        self.queue.submit([]);
        self.wait()?;
        self.sample_usage();
        Ok(())
    }

    fn device_memory(&self) -> Option<fdtd_core::backend::DeviceMemory> {
        Some(fdtd_core::backend::DeviceMemory {
            planned: self.plan.total(),
            peak: self.usage_base.map(|_| self.usage_peak),
        })
    }
}

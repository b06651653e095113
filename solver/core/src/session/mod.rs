//! A run from a scene to a closed output file, with every check a front end needs: the
//! one implementation behind the `fdtd` command line, and what a binding or a sweep
//! runner reuses.
//!
//! A session goes through three stages, so that a front end can report between them:
//!
//! 1. [`Session::load`]: read the scene (or take one), refuse a grid whose smallest
//!    possible memory exceeds the available RAM before discretising allocates it,
//!    discretise, and refuse inputs that cannot run in f32.
//! 2. [`Session::prepare`]: every check before a large allocation, in this order: the
//!    output (it must not exist unless overwriting is asked for; for a resume it must be
//!    an unfinished run of this scene with checkpoints on), the checkpoint directory,
//!    the free disk space; then the backend ([`create_backend`]: the `auto` rule of
//!    [`backend::create_with`], with the CPU plan checked against the available RAM
//!    before the CPU backend allocates); then the output is created (stale checkpoints
//!    of an earlier run are removed) or, for a resume, the newest usable checkpoint is
//!    loaded and the output reopened.
//!    A stop asked for (the request's `stop` flag) before the output is created ends
//!    set-up with [`SessionError::StoppedBeforeStart`]; after, the run stops at its
//!    first chunk end like any interrupted run.
//! 3. [`Prepared::run`]: the [`runner`] loop with periodic checkpoints, then the output
//!    closed as complete, interrupted or failed, and the checkpoints of a complete run
//!    removed; returns a [`RunReport`] or a [`SessionError`] ([`RunFailure`] once the
//!    run has started).
//!
//! The output format comes in through [`OutputFormat`] (HDF5 in `fdtd-io`), the
//! backends through [`Engine`]s (`fdtd-cpu`, `fdtd-gpu`). Messages name files and
//! causes, never a front end's options: [`SessionError`]'s variants carry what a front
//! end needs to add its own hints, and [`SessionError::kind`] classifies them.
mod checkpoints;
pub mod drives;
mod error;
pub mod guards;
pub mod output;
pub mod paths;
pub mod probe_layout;
pub mod resources;
pub mod results;
mod warnings;

pub use self::checkpoints::{interval as checkpoint_interval, CheckpointPolicy, CheckpointRequest};
pub use self::error::{ErrorKind, ResumeAdvice, ResumeRefusal, RunFailure, SessionError};
pub use self::output::{MemoryReport, Output, OutputErrorKind, OutputFailure, OutputFormat, OutputInfo};
pub use self::warnings::scene_warnings;

use self::resources::{DoesNotFit, LocalDisks, RamCheck, StateIn};
use crate::backend::{self, Auto, Backend, BackendChoice, BackendError, BackendOptions, Created, Engine, Target};
use crate::checkpoint::Owner;
use crate::fmt::{hz, si, sig};
use crate::model::Model;
use crate::pass::Pass;
use crate::plan::Plan;
use crate::results::RunResults;
use crate::runner::{self, CheckpointOptions, EventSink, Fault, Outcome, RunError, RunEvent, RunOptions, RunSummary};
use crate::scene::{Scene, SceneError};
use crate::simulation::Simulation;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Most time steps per chunk unless the request says otherwise.
pub const DEFAULT_CHUNK: usize = 64;

/// Where the scene comes from.
#[derive(Clone, Debug)]
pub enum SceneSource {
    /// A TOML file, read and parsed by [`Session::load`].
    Path(PathBuf),
    /// A scene already parsed (or built in code); its `path` names it in messages.
    Scene(Box<Scene>),
}

impl SceneSource {
    /// The path that names the scene in messages and default output names.
    pub fn path(&self) -> &Path {
        match self {
            SceneSource::Path(p) => p,
            SceneSource::Scene(s) => &s.path,
        }
    }
}

impl From<PathBuf> for SceneSource {
    fn from(p: PathBuf) -> Self {
        SceneSource::Path(p)
    }
}

impl From<&Path> for SceneSource {
    fn from(p: &Path) -> Self {
        SceneSource::Path(p.to_path_buf())
    }
}

impl From<Scene> for SceneSource {
    fn from(s: Scene) -> Self {
        SceneSource::Scene(Box::new(s))
    }
}

/// How much a [`SessionEvent`] matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Routine (a checkpoint written): a quiet front end may hide it.
    Info,
    /// Worth telling (stale checkpoints removed).
    Note,
    /// Something went wrong but the run goes on.
    Warning,
}

/// Something a session reports while it prepares and runs (not an error).
#[derive(Clone, Debug, PartialEq)]
pub enum SessionEvent {
    /// From the run loop: checkpoints written or failed.
    Run(RunEvent),
    /// Resuming skipped a checkpoint generation (corrupt, from another run).
    CheckpointSkipped(String),
    /// Checkpoint files of an earlier run of this output were removed.
    StaleCheckpointsRemoved { count: usize, path: PathBuf },
    /// The checkpoints of a complete run could not be removed.
    CheckpointRemovalFailed { path: PathBuf, error: String },
    /// A file at a checkpoint name that the run did not write was left alone.
    CheckpointKept { path: PathBuf, why: String },
    /// A run that drives every port in turn starts drive `index` (1-based) of `count`.
    Drive { index: usize, count: usize, port: String },
}

impl SessionEvent {
    pub fn severity(&self) -> Severity {
        match self {
            SessionEvent::Run(RunEvent::CheckpointWritten { .. }) => Severity::Info,
            SessionEvent::StaleCheckpointsRemoved { .. } | SessionEvent::Drive { .. } => Severity::Note,
            SessionEvent::Run(_)
            | SessionEvent::CheckpointSkipped(_)
            | SessionEvent::CheckpointRemovalFailed { .. }
            | SessionEvent::CheckpointKept { .. } => Severity::Warning,
        }
    }
}

impl fmt::Display for SessionEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionEvent::Run(e) => write!(f, "{e}"),
            SessionEvent::CheckpointSkipped(note) => write!(f, "{note}"),
            SessionEvent::StaleCheckpointsRemoved { count, path } => write!(
                f,
                "removed {count} stale checkpoint file(s) of an earlier run at {}",
                path.display()
            ),
            SessionEvent::CheckpointRemovalFailed { path, error } => {
                write!(f, "could not remove the checkpoint {}: {error}", path.display())
            }
            SessionEvent::CheckpointKept { path, why } => {
                write!(f, "left {} alone: {why}", path.display())
            }
            SessionEvent::Drive { index, count, port } => {
                write!(f, "drive {index}/{count}: port {port} driven, the others matched loads")
            }
        }
    }
}

/// Receives a session's [`SessionEvent`]s (from any thread the run uses).
pub type Events = Arc<dyn Fn(&SessionEvent) + Send + Sync>;

/// Receives progress at every chunk end (steps, speed, the end criterion's decay).
pub type ProgressFn = Box<dyn FnMut(&runner::ProgressInfo) + Send>;

/// Everything a run is asked to do.
pub struct RunRequest {
    pub scene: SceneSource,
    /// The output file (default: `<scene stem>.<format extension>` in the current directory).
    pub output: Option<PathBuf>,
    /// Overwrite an existing output file.
    pub force: bool,
    /// Continue an interrupted or failed run from its newest valid checkpoint, appending
    /// to its output file.
    pub resume: bool,
    /// Checkpoint interval or none, over the scene's `[checkpoint]` section.
    pub checkpoint: CheckpointRequest,
    /// Drive every port in turn (as the scene's `[drive] ports = "each"` does).
    pub drive_each: bool,
    /// Do not refuse a run whose planned output (uncompressed) exceeds the free disk space.
    pub skip_disk_check: bool,
    /// Most time steps per chunk (the run stops, flushes and reports between chunks).
    pub chunk: usize,
    pub backend: BackendChoice,
    pub backend_options: BackendOptions,
    /// Set to stop after the current chunk (a checkpoint is written, the output closed
    /// as interrupted).
    pub stop: Option<Arc<AtomicBool>>,
    /// Fault injection (tests).
    pub fault: Option<Fault>,
    pub events: Option<Events>,
    pub progress: Option<ProgressFn>,
    /// Passes added to the scene's own ([`crate::passes::standard`]), each built from the
    /// discretised model and run after the scene's passes of its hook: how a front end
    /// or a test adds physics without touching `Model`. They join the checkpoint
    /// fingerprint and (their state) the checkpoint layout.
    pub extra_passes: Vec<PassFactory>,
}

/// Builds one extra pass of a run from its model ([`RunRequest::extra_passes`]).
pub type PassFactory = Arc<dyn Fn(&Model) -> Arc<dyn Pass> + Send + Sync>;

impl RunRequest {
    /// A run of `scene` with the defaults: `auto` backend, chunks of [`DEFAULT_CHUNK`],
    /// the scene's checkpoints, a new output file.
    pub fn new(scene: impl Into<SceneSource>) -> RunRequest {
        RunRequest {
            scene: scene.into(),
            output: None,
            force: false,
            resume: false,
            checkpoint: CheckpointRequest::default(),
            drive_each: false,
            skip_disk_check: false,
            chunk: DEFAULT_CHUNK,
            backend: BackendChoice::Auto,
            backend_options: BackendOptions::default(),
            stop: None,
            fault: None,
            events: None,
            progress: None,
            extra_passes: Vec::new(),
        }
    }
}

/// Refuse to go on when a stop was asked for during set-up (before the output exists).
fn not_stopped(req: &RunRequest) -> Result<(), SessionError> {
    match &req.stop {
        Some(stop) if stop.load(std::sync::atomic::Ordering::SeqCst) => Err(SessionError::StoppedBeforeStart),
        _ => Ok(()),
    }
}

fn emit(events: &Option<Events>, e: SessionEvent) {
    if let Some(cb) = events {
        cb(&e);
    }
}

/// Read (or take) the scene, refuse a grid whose smallest possible host memory exceeds
/// the available RAM before discretising allocates it (`cpu`: the run may end on the
/// CPU backend, whose fields are in RAM too), discretise it, and refuse inputs that
/// cannot run in f32 ([`runner::preflight`]).
pub fn load(source: &SceneSource, cpu: bool) -> Result<(Scene, Model), SessionError> {
    load_with(source, cpu, false)
}

/// [`load`], with every port driven in turn when `drive_each` (or the scene's `[drive]`
/// says so): the model is then that of the first drive (the port with `excite = true`,
/// else the first port, driven; the others matched loads).
pub fn load_with(source: &SceneSource, cpu: bool, drive_each: bool) -> Result<(Scene, Model), SessionError> {
    let path = source.path().to_path_buf();
    let mut scene = match source {
        SceneSource::Path(p) => Scene::from_file(p)?,
        SceneSource::Scene(s) => (**s).clone(),
    };
    if drive_each && !scene.drive_each {
        scene.set_drive_each().map_err(|message| SessionError::Invalid {
            path: path.clone(),
            message,
        })?;
    }
    if scene.drive_each {
        scene = scene.with_driven_port(scene.drive_order()[0]);
    }
    if let Some(available) = resources::available_ram() {
        let need = resources::lower_bound(&scene, cpu);
        if need > available {
            let fit = DoesNotFit {
                cells: scene.domain.cells,
                d: scene.domain.cell_size,
                need,
                available,
                results: 0,
                probes: Box::default(),
            };
            return Err(SessionError::GridTooLarge { path, fit });
        }
    }
    let model = Model::discretize(&scene).map_err(|e| SessionError::Invalid {
        path: path.clone(),
        message: e.to_string(),
    })?;
    runner::preflight(&model).map_err(|message| SessionError::Invalid { path, message })?;
    let mut errors = guards::errors(&scene, &model);
    match errors.len() {
        0 => Ok((scene, model)),
        1 => Err(errors.remove(0).into()),
        _ => Err(SceneError::Several(errors).into()),
    }
}

/// A warning when the grid has fewer than 10 cells per wavelength.
pub fn resolution_warning(model: &Model) -> Option<String> {
    let (f, cpw) = model.resolution?;
    if cpw >= 10.0 {
        return None;
    }
    let dmax = model.grid.d.iter().copied().fold(0.0, f64::max);
    Some(format!(
        "only {} cells per wavelength at {} (the highest significant source frequency, in the \
         slowest material); FDTD needs at least 10 (20 for accurate phase): use cells of at most {}",
        sig(cpw, 3),
        hz(f),
        si(dmax * cpw / 10.0, "m"),
    ))
}

/// The warning for a GPU backend on a software device (lavapipe, llvmpipe): `auto`
/// never picks one, but `--backend gpu` takes it when it is the only adapter.
pub fn software_warning(device: &str) -> String {
    format!(
        "the GPU backend runs on {device}, a software device that emulates a GPU on the CPU: correct but \
         several times slower than the CPU backend; use the CPU backend (or auto) here"
    )
}

/// Where a run would go and what it would need, without allocating anything.
#[derive(Clone, Debug)]
pub struct BackendPlan {
    /// `Cpu` or `Gpu`.
    pub kind: BackendChoice,
    /// The device and its plan; for the CPU this is the host plan (the state is in RAM).
    pub target: Target,
    /// For `auto`: what it would decide and why.
    pub auto: Option<Auto>,
    /// The host memory of the run ([`resources::host_plan`]): for the CPU the same as
    /// `target.plan`; for the GPU the model's host arrays, staging and state copies.
    pub host: Plan,
    /// The host plan against the RAM this process may use.
    pub ram: Option<RamCheck>,
}

impl BackendPlan {
    /// Refuse a plan whose host side exceeds the available RAM.
    pub fn require_ram(&self, model: &Simulation) -> Result<(), SessionError> {
        match self.ram.and_then(|r| r.does_not_fit(model)) {
            Some(fit) => Err(SessionError::RamDoesNotFit(fit)),
            None => Ok(()),
        }
    }
}

/// The host side of a run on `engine` (whose plan is `t`), against what this process
/// may use: the RAM still available plus what it already holds (the model is allocated
/// by now, and counted in the plan).
fn host_check(model: &Simulation, kind: BackendChoice, t: &Target, chunk: usize, state_copy: bool) -> (Plan, RamCheck) {
    let (state, backend) = match kind {
        BackendChoice::Cpu => (StateIn::Ram, Some(t.plan.clone())),
        _ => (
            StateIn::Device {
                in_ram: if t.software { t.plan.total() } else { 0 },
            },
            None,
        ),
    };
    let runtime = resources::runtime_now(model);
    let device_host = if kind == BackendChoice::Cpu {
        &[][..]
    } else {
        &t.plan.host[..]
    };
    let host = resources::host_plan(model, state, backend, device_host, chunk, state_copy, runtime);
    let available = resources::available_ram().map(|a| a.saturating_add(resources::current_rss().unwrap_or(0)));
    let ram = RamCheck {
        need: host.total(),
        available,
    };
    (host, ram)
}

/// The CPU engine's plan plus the run's host needs, against the available RAM.
fn cpu_plan(
    engine: &dyn Engine,
    model: &Simulation,
    opts: &BackendOptions,
    chunk: usize,
    state_copy: bool,
) -> Result<BackendPlan, BackendError> {
    let t = engine.plan(model, opts)?;
    let (host, ram) = host_check(model, BackendChoice::Cpu, &t, chunk, state_copy);
    Ok(BackendPlan {
        kind: BackendChoice::Cpu,
        target: Target {
            plan: host.clone(),
            ..t
        },
        auto: None,
        host,
        ram: Some(ram),
    })
}

/// Where `choice` would run `model` and its memory plans (what `fdtd check` prints), by
/// the same rule as [`create_backend`]. A plan whose host side does not fit is returned
/// (see [`BackendPlan::require_ram`]); a GPU asked for that cannot be used is an error.
/// `chunk`: steps per chunk (staging); `state_copy`: whether the run copies the whole
/// state (it writes or resumes checkpoints).
pub fn plan_backend(
    engines: &[&dyn Engine],
    model: &Simulation,
    choice: BackendChoice,
    opts: &BackendOptions,
    chunk: usize,
    state_copy: bool,
) -> Result<BackendPlan, SessionError> {
    let cpu = |auto: Option<Auto>| -> Result<BackendPlan, SessionError> {
        let engine = backend::find_engine(engines, BackendChoice::Cpu)?;
        Ok(BackendPlan {
            auto,
            ..cpu_plan(engine, model, opts, chunk, state_copy)?
        })
    };
    let gpu = |target: Target, auto: Option<Auto>| {
        let (host, ram) = host_check(model, BackendChoice::Gpu, &target, chunk, state_copy);
        BackendPlan {
            kind: BackendChoice::Gpu,
            target,
            auto,
            host,
            ram: Some(ram),
        }
    };
    match choice {
        BackendChoice::Cpu => cpu(None),
        BackendChoice::Gpu => {
            let engine = backend::find_engine(engines, BackendChoice::Gpu)?;
            Ok(gpu(engine.plan(model, opts)?, None))
        }
        BackendChoice::Auto => match backend::auto_gpu(engines, model, opts) {
            Ok((_, target)) => Ok(gpu(target, Some(Auto::Gpu))),
            Err(why) => cpu(Some(Auto::Cpu(why))),
        },
    }
}

/// Build the backend `choice` selects ([`backend::create_with`] over `engines`), refusing
/// it before it allocates when the run's host side (with `chunk` steps of staging and,
/// with `state_copy`, a copy of the state) exceeds the available RAM. Also returns the
/// host plan's total for the backend built.
pub fn create_backend(
    engines: &[&dyn Engine],
    model: &Arc<Simulation>,
    choice: BackendChoice,
    opts: &BackendOptions,
    chunk: usize,
    state_copy: bool,
) -> Result<(Created, u64), SessionError> {
    let mut host_planned = 0;
    let mut software = None;
    let mut created = backend::create_with(engines, model.clone(), choice, opts, &mut |engine: &dyn Engine| {
        let t = engine.plan(model, opts)?;
        software = (engine.kind() == BackendChoice::Gpu && t.software).then(|| t.device.clone());
        let (host, ram) = host_check(model, engine.kind(), &t, chunk, state_copy);
        if let Some(fit) = ram.does_not_fit(model) {
            return Err(SessionError::RamDoesNotFit(fit));
        }
        host_planned = host.total();
        Ok(())
    })?;
    created.software = software;
    Ok((created, host_planned))
}

/// `<scene stem>.<extension>` in the current directory.
pub fn default_output(scene: &Path, extension: &str) -> PathBuf {
    let mut name = scene
        .file_stem()
        .map(|s| s.to_os_string())
        .unwrap_or_else(|| "out".into());
    name.push(".");
    name.push(extension);
    PathBuf::from(name)
}

/// Before any large allocation: refuse an existing output (unless `force`), an output
/// that is not a regular file (a directory, a device such as `/dev/null`, a FIFO, a
/// symbolic link: an output is replaced by renaming a new file over it), and an output
/// that cannot be created. Leaves the file system as it was.
pub fn precheck_output(out: &Path, force: bool) -> Result<(), SessionError> {
    match std::fs::symlink_metadata(out) {
        Ok(meta) => {
            if !force {
                return Err(SessionError::OutputExists { path: out.into() });
            }
            if let Some(what) = paths::not_a_regular_file(&meta) {
                return Err(SessionError::OutputNotRegular { path: out.into(), what });
            }
            // Writable? (Opening for writing without truncation changes nothing.)
            std::fs::OpenOptions::new()
                .write(true)
                .open(out)
                .map_err(|source| SessionError::OutputNotWritable {
                    path: out.into(),
                    source,
                })?;
            return Ok(());
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => {
            return Err(SessionError::OutputNotCreatable {
                path: out.into(),
                source,
            })
        }
    }
    let dir = resources::dir_of(out);
    if !dir.is_dir() {
        return Err(SessionError::OutputDirMissing { path: out.into(), dir });
    }
    // A file of a name no run uses (never the output's own name: removing a probe there
    // could remove another run's output that took the name meanwhile).
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let probe = dir.join(format!(".{name}.{}.write-test", std::process::id()));
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(source) => Err(SessionError::OutputNotCreatable {
            path: out.into(),
            source,
        }),
    }
}

/// Whether the output `out` can be resumed by a run with `fingerprint`: `info` is what
/// inspecting it gave (`None`: the file does not exist). Returns the file's run id.
pub fn check_resumable(
    out: &Path,
    info: Option<Result<OutputInfo, OutputFailure>>,
    fingerprint: u64,
    checkpoints_on: bool,
) -> Result<u64, ResumeRefusal> {
    let path = out.to_path_buf();
    let info = match info {
        None => return Err(ResumeRefusal::Missing { path }),
        Some(Err(e)) => return Err(ResumeRefusal::Unreadable(e)),
        Some(Ok(info)) => info,
    };
    if info.is_complete() {
        return Err(ResumeRefusal::Complete {
            path,
            steps_done: info.steps_done,
        });
    }
    if info.fingerprint != Some(fingerprint) {
        return Err(ResumeRefusal::OtherRun { path });
    }
    if !checkpoints_on {
        return Err(ResumeRefusal::CheckpointsOff);
    }
    info.run_id.ok_or(ResumeRefusal::NoRunId { path })
}

/// How a run with `checkpoints` that stopped can continue.
/// A run that failed while stepping (any drive) or checkpointing its last step: the
/// output closed as failed, and how to continue (nothing after an instability:
/// resuming would meet it again).
fn run_failed(
    output: Box<dyn Output>,
    error: RunError,
    steps: usize,
    out: PathBuf,
    checkpoints: &CheckpointPolicy,
    kind: BackendChoice,
) -> SessionError {
    let closed = output.fail(&error.to_string()).map_err(|e| e.to_string());
    let advice = match &error {
        RunError::Unstable(_) => None,
        RunError::Backend { .. } | RunError::Sink(_) => Some(resume_advice(checkpoints)),
    };
    SessionError::Run(Box::new(RunFailure {
        error,
        steps,
        output: out,
        closed,
        advice,
        on_gpu: kind == BackendChoice::Gpu,
    }))
}

pub fn resume_advice(checkpoints: &CheckpointPolicy) -> ResumeAdvice {
    if !checkpoints.enabled {
        return ResumeAdvice::CheckpointsOff;
    }
    match runner::last_checkpoint(&checkpoints.path) {
        Some((file, step)) => ResumeAdvice::From { file, step },
        None => ResumeAdvice::NoCheckpointYet {
            path: checkpoints.path.clone(),
        },
    }
}

/// A loaded scene and its model, ready to be checked and prepared.
pub struct Session {
    request: RunRequest,
    scene: Scene,
    model: Arc<Simulation>,
}

impl Session {
    /// Stage 1: [`load`] the request's scene.
    pub fn load(request: RunRequest) -> Result<Session, SessionError> {
        // The GPU backend checks its own memory; everything else may end on the CPU.
        not_stopped(&request)?;
        let (scene, model) = load_with(
            &request.scene,
            request.backend != BackendChoice::Gpu,
            request.drive_each,
        )?;
        // The step's program: the scene's passes, then those the request adds.
        let extra = request.extra_passes.iter().map(|f| f(&model)).collect();
        let sim = Simulation::with_passes(model, extra);
        not_stopped(&request)?;
        Ok(Session {
            request,
            scene,
            model: Arc::new(sim),
        })
    }

    pub fn request(&self) -> &RunRequest {
        &self.request
    }

    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    pub fn model(&self) -> &Arc<Simulation> {
        &self.model
    }

    /// Set the fault injection (e.g. read from the environment after loading).
    pub fn set_fault(&mut self, fault: Option<Fault>) {
        self.request.fault = fault;
    }

    /// Stage 2: every check before a large allocation, then the backend (from
    /// `engines`) and the output (in `format`); see the [module docs](self).
    pub fn prepare<'e>(
        self,
        engines: &[&'e dyn Engine],
        format: &dyn OutputFormat,
    ) -> Result<Prepared<'e>, SessionError> {
        let Session {
            mut request,
            scene,
            model,
        } = self;
        // A chunk never holds more steps than the run (staging is sized by it).
        request.chunk = request.chunk.clamp(1, model.grid.steps.max(1));
        let req = &request;
        let out = req
            .output
            .clone()
            .unwrap_or_else(|| default_output(req.scene.path(), format.extension()));
        let checkpoints = CheckpointPolicy::resolve(&scene.checkpoint(), &req.checkpoint, &out);
        let fingerprint = runner::fingerprint(&scene, &model);

        // An output that is the scene or one of its own companions would be overwritten
        // by the run itself.
        paths::check_output_clash(
            &out,
            req.scene.path(),
            &format.companions(&out, &model),
            &crate::checkpoint::files(&checkpoints.path),
        )?;

        // The output, before any large allocation; the format re-checks atomically.
        let mut run_id = None;
        // Whose checkpoint files at this run's names may stay there (a new run removes
        // them as stale once its output exists).
        let owner;
        if req.resume {
            let info = out.exists().then(|| format.inspect(&out));
            let id =
                check_resumable(&out, info, fingerprint, checkpoints.enabled).map_err(SessionError::NotResumable)?;
            run_id = Some(id);
            // Checkpoints of other runs are refused with the reason when the newest is
            // looked for; here only files that are no checkpoint at all are in the way.
            owner = Some(Owner::AnyRun);
        } else {
            precheck_output(&out, req.force)?;
            // The run id of the file a forced run replaces: its checkpoints are stale.
            let replaced = match std::fs::symlink_metadata(&out) {
                Ok(_) => format.inspect(&out).ok().and_then(|i| i.run_id),
                Err(_) => None,
            };
            owner = checkpoints.stale_owner(replaced);
        }
        format
            .precheck(&out, &model, req.force, req.resume)
            .map_err(SessionError::Output)?;
        if checkpoints.enabled {
            paths::check_checkpoint_dir(&checkpoints.path)?;
            paths::check_checkpoint_files(&checkpoints.path, owner)?;
        }
        if !req.skip_disk_check {
            let from = if req.resume {
                runner::last_checkpoint(&checkpoints.path).map_or(0, |(_, s)| s as usize)
            } else {
                0
            };
            let ck = checkpoints.enabled.then(|| {
                (
                    checkpoints.path.as_path(),
                    resources::checkpoint_need(&checkpoints.path, runner::checkpoint_bytes(&model)),
                )
            });
            resources::check_disk(&LocalDisks, &out, ck, resources::output_bytes(&scene, &model, from))
                .map_err(SessionError::Disk)?;
        }

        not_stopped(req)?;
        let state_copy = checkpoints.enabled || req.resume;
        let (mut created, host_planned) = create_backend(
            engines,
            &model,
            req.backend,
            &req.backend_options,
            req.chunk,
            state_copy,
        )?;
        // The last moment to stop with nothing written (the backend is dropped here).
        not_stopped(req)?;

        let line = created.describe();
        // The engine that built it builds the backends of the further drives.
        let engine = engines
            .iter()
            .copied()
            .find(|e| e.kind() == created.kind)
            .ok_or_else(|| BackendError::Unsupported(format!("no {:?} engine", created.kind)))?;
        let (output, start) = if let Some(run_id) = run_id {
            let ck = CheckpointOptions {
                path: checkpoints.path.clone(),
                interval: checkpoints.interval,
                fingerprint,
                run_id,
            };
            let (step, notes) = runner::resume_state(&model, created.backend.as_mut(), &ck).map_err(|error| {
                SessionError::ResumeState {
                    output: out.clone(),
                    error,
                }
            })?;
            for n in notes {
                emit(&req.events, SessionEvent::CheckpointSkipped(n));
            }
            let output = format
                .resume(&out, &scene, &model, &line, step)
                .map_err(SessionError::Output)?;
            (output, step)
        } else {
            let output = format
                .create(&out, &scene, &model, &line, req.force)
                .map_err(SessionError::Output)?;
            // Checkpoints of an earlier run of this output are now meaningless (only
            // files checked to be checkpoints of it are removed).
            if let Some(owner) = owner.filter(|_| checkpoints.enabled) {
                match runner::remove_checkpoints(&checkpoints.path, owner) {
                    Ok(r) => {
                        if r.removed > 0 {
                            emit(
                                &req.events,
                                SessionEvent::StaleCheckpointsRemoved {
                                    count: r.removed,
                                    path: checkpoints.path.clone(),
                                },
                            );
                        }
                        for (path, why) in r.kept {
                            emit(&req.events, SessionEvent::CheckpointKept { path, why });
                        }
                    }
                    Err(e) => emit(
                        &req.events,
                        SessionEvent::CheckpointRemovalFailed {
                            path: checkpoints.path.clone(),
                            error: e.to_string(),
                        },
                    ),
                }
            }
            (output, 0)
        };
        Ok(Prepared {
            engine,
            request,
            model,
            out,
            checkpoints,
            fingerprint,
            backend: created.backend,
            kind: created.kind,
            description: created.description,
            auto: created.auto,
            software: created.software,
            output,
            start,
            host_planned,
            scene,
        })
    }
}

/// A session with its backend built and its output open, ready to run.
pub struct Prepared<'e> {
    /// The engine of the backend (a run that drives each port builds one per drive).
    engine: &'e dyn Engine,
    request: RunRequest,
    model: Arc<Simulation>,
    out: PathBuf,
    checkpoints: CheckpointPolicy,
    fingerprint: u64,
    backend: Box<dyn Backend>,
    kind: BackendChoice,
    description: String,
    auto: Option<Auto>,
    /// A GPU backend on a software device: its name.
    software: Option<String>,
    output: Box<dyn Output>,
    start: usize,
    /// The host plan's total ([`resources::host_plan`]).
    host_planned: u64,
    /// The scene: which result frequencies its sources drive ([`guards::unresolved`]).
    scene: Scene,
}

impl Prepared<'_> {
    pub fn model(&self) -> &Arc<Simulation> {
        &self.model
    }

    /// The output file.
    pub fn output_path(&self) -> &Path {
        &self.out
    }

    pub fn checkpoints(&self) -> &CheckpointPolicy {
        &self.checkpoints
    }

    /// Bytes of one checkpoint of this run.
    pub fn checkpoint_bytes(&self) -> u64 {
        runner::checkpoint_bytes(&self.model)
    }

    /// The engine the backend runs on (`Cpu` or `Gpu`).
    pub fn backend_kind(&self) -> BackendChoice {
        self.kind
    }

    /// [`Backend::describe`] of the backend.
    pub fn backend_description(&self) -> &str {
        &self.description
    }

    /// For `auto`: what it decided and why.
    /// [`software_warning`] when the backend is a GPU on a software device.
    pub fn software_warning(&self) -> Option<String> {
        self.software.as_deref().map(software_warning)
    }

    pub fn auto(&self) -> Option<&Auto> {
        self.auto.as_ref()
    }

    /// The step the run starts from (non-zero when resumed).
    pub fn start(&self) -> usize {
        self.start
    }

    /// How the run could continue if it stopped now.
    pub fn resume_advice(&self) -> ResumeAdvice {
        resume_advice(&self.checkpoints)
    }

    /// Stage 3: run to the last step (or until stopped), then close the output.
    pub fn run(self) -> Result<RunReport, SessionError> {
        let Prepared {
            engine: self_engine,
            mut request,
            model,
            out,
            checkpoints,
            fingerprint,
            mut backend,
            kind,
            mut output,
            start,
            host_planned,
            scene,
            ..
        } = self;
        let events = request.events.clone();
        let run_opts = RunOptions {
            chunk: request.chunk,
            stop: request.stop.clone(),
            start,
            checkpoint: checkpoints.enabled.then(|| CheckpointOptions {
                path: checkpoints.path.clone(),
                interval: checkpoints.interval,
                fingerprint,
                run_id: output.run_id(),
            }),
            fault: request.fault,
            events: events
                .clone()
                .map(|cb| -> EventSink { Box::new(move |e: &RunEvent| cb(&SessionEvent::Run(e.clone()))) }),
            // The end criterion's peak so far (a resumed run).
            energy_peak: if start > 0 { output.energy_peak() } else { 0.0 },
            ..RunOptions::default()
        };
        let mut run_opts = run_opts;
        // Resumed from the checkpoint written after the end criterion was met (before the
        // results): the run has ended; only its results remain to be written.
        run_opts.decayed_at_start = start > 0 && model.decay_db.is_some() && output.decayed_at() == Some(start);
        if start > 0 && model.decay_db.is_some() && !model.ports.is_empty() {
            if let Ok(Some(series)) = output.port_series(&model) {
                (run_opts.port_peak, run_opts.port_recent) = runner::resume_port_levels(&model, &series, start);
            }
        }
        let mut progress = request.progress.take();
        // A run that drives every port in turn: this is drive 1 of `count`.
        let order = scene.drive_order();
        let count = if scene.drive_each { order.len() } else { 1 };
        let result = {
            let mut tagged = progress.as_mut().map(|p| {
                move |info: &runner::ProgressInfo| {
                    let mut info = *info;
                    info.drive = (count > 1).then_some((1, count));
                    p(&info)
                }
            });
            if count > 1 {
                let port = model
                    .ports
                    .iter()
                    .find(|p| p.driven)
                    .map_or(String::new(), |p| p.name.clone());
                emit(&events, SessionEvent::Drive { index: 1, count, port });
            }
            runner::run(
                &model,
                backend.as_mut(),
                output.as_sink(),
                &run_opts,
                tagged.as_mut().map(|t| t as runner::Progress),
            )
        };
        let memory = MemoryReport::measure(host_planned, backend.device_memory());
        // Attributes only: a failure to record them must not hide how the run ended.
        let _ = output.record_memory(&memory);
        let summary = match result {
            Ok(s) => s,
            Err(error) => {
                return Err(run_failed(output, error, model.grid.steps, out, &checkpoints, kind));
            }
        };
        // The end is recorded first, then (when results are still to be computed) the
        // last step's state is checkpointed: a failure or a kill while the results are
        // computed and written loses no stepping, and `--resume` only redoes the results.
        if let Err(e) = output.record_end(&model, &summary) {
            let _ = output.fail(&e.to_string());
            return Err(SessionError::Finish(e));
        }
        let post = summary.outcome == Outcome::Finished
            && (!model.ports.is_empty() || !model.monitors.is_empty())
            && summary.checkpoint != Some(summary.steps_done)
            && !(start == summary.steps_done && start > 0);
        if post && run_opts.checkpoint.is_some() {
            if let Err(error) = runner::checkpoint_now(
                &model,
                backend.as_mut(),
                output.as_sink(),
                &run_opts,
                summary.steps_done,
            ) {
                return Err(run_failed(output, error, model.grid.steps, out, &checkpoints, kind));
            }
        }
        // Frequency-domain results of a finished run: the monitors' state (read from the
        // backend), the ports (from the complete V/I series), then the far fields (which
        // need the driven port's powers for gain).
        let mut monitors = crate::results::RunResults::default();
        if summary.outcome == Outcome::Finished && !model.monitors.is_empty() {
            match results::monitor_results(&model, backend.as_mut(), summary.steps_done) {
                Ok(r) => monitors = r,
                Err(error) => {
                    let error = RunError::Backend {
                        step: summary.steps_done,
                        error,
                        saved: None,
                    };
                    let closed = output.fail(&error.to_string()).map_err(|e| e.to_string());
                    return Err(SessionError::Run(Box::new(RunFailure {
                        error,
                        steps: model.grid.steps,
                        output: out,
                        closed,
                        advice: None,
                        on_gpu: kind == BackendChoice::Gpu,
                    })));
                }
            }
        }
        // The further drives of a run that drives every port in turn (drives.rs): the
        // first drive's backend is dropped first (one drive's buffers at a time).
        let mut further = Vec::new();
        if summary.outcome == Outcome::Finished && count > 1 {
            drop(backend);
            let cx = drives::Context {
                scene: &scene,
                engine: self_engine,
                options: &request.backend_options,
                chunk: request.chunk,
                stop: request.stop.clone(),
                events: &events,
                extra_passes: &request.extra_passes,
            };
            match drives::run(&cx, &order[1..], count, progress.as_mut()) {
                Ok(drives::Drives::Done(d)) => further = d,
                Ok(drives::Drives::Interrupted { .. }) => {
                    // The file keeps the first drive; `--resume` repeats the further
                    // drives from the checkpoint written after the first.
                    let contents = output.contents();
                    let companion = output.companion();
                    output.finish(Outcome::Interrupted).map_err(SessionError::Finish)?;
                    let summary = RunSummary {
                        outcome: Outcome::Interrupted,
                        end: runner::EndReason::Stopped,
                        ..summary
                    };
                    return Ok(RunReport {
                        unresolved: Unresolved::default(),
                        mcells_per_s: summary.mcells_per_s(&model),
                        summary,
                        steps: model.grid.steps,
                        output: out,
                        contents,
                        companion,
                        advice: Some(resume_advice(&checkpoints)),
                        memory,
                        results: RunResults::default(),
                        result_files: Vec::new(),
                        decay_db: model.decay_db,
                        drives: Vec::new(),
                    });
                }
                Err(error) => {
                    return Err(run_failed(output, error, model.grid.steps, out, &checkpoints, kind));
                }
            }
        }
        let columns: Vec<(usize, Vec<crate::results::PortResult>)> =
            further.iter().map(|d| (d.port, d.results.clone())).collect();
        let (results, result_files) =
            match finish_results(&model, &scene, &summary, output.as_mut(), monitors, &columns) {
                Ok(r) => r,
                Err(e) => {
                    let _ = output.fail(&e.to_string());
                    return Err(SessionError::Results {
                        error: e,
                        output: out,
                        advice: resume_advice(&checkpoints),
                    });
                }
            };
        let contents = output.contents();
        let companion = output.companion();
        let run_id = output.run_id();
        output.finish(summary.outcome).map_err(SessionError::Finish)?;
        if summary.outcome == Outcome::Finished && checkpoints.enabled {
            // The run is complete: its checkpoints (and only its) are no longer needed.
            match runner::remove_checkpoints(&checkpoints.path, Owner::Run(run_id)) {
                Ok(r) => {
                    for (path, why) in r.kept {
                        emit(&events, SessionEvent::CheckpointKept { path, why });
                    }
                }
                Err(e) => emit(
                    &events,
                    SessionEvent::CheckpointRemovalFailed {
                        path: checkpoints.path.clone(),
                        error: e.to_string(),
                    },
                ),
            }
        }
        let advice = (summary.outcome == Outcome::Interrupted).then(|| resume_advice(&checkpoints));
        let unresolved = Unresolved {
            ports: results
                .ports
                .iter()
                .map(|p| {
                    let mut u = guards::unresolved(&scene, &model, &p.freq, true);
                    for (u, &ok) in u.iter_mut().zip(&p.line_ok) {
                        *u |= !ok;
                    }
                    u
                })
                .collect(),
            farfields: results
                .farfields
                .iter()
                .map(|f| guards::unresolved(&scene, &model, &[f.freq], false)[0])
                .collect(),
        };
        Ok(RunReport {
            unresolved,
            mcells_per_s: summary.mcells_per_s(&model),
            summary,
            steps: model.grid.steps,
            output: out,
            contents,
            companion,
            advice,
            memory,
            results,
            result_files,
            decay_db: model.decay_db,
            drives: further
                .into_iter()
                .map(|d| DriveReport {
                    port: model.ports.get(d.port).map_or(String::new(), |p| p.name.clone()),
                    summary: d.summary,
                })
                .collect(),
        })
    }
}

/// The end of a run that was not stopped by an error (its end criterion is recorded
/// before): when finished, the port results computed from the complete series, the full
/// S-matrix when `further` holds the other drives of a run that drove each port
/// (driven port, results), which frequencies the run resolves, all written.
fn finish_results(
    model: &Simulation,
    scene: &Scene,
    summary: &RunSummary,
    output: &mut dyn Output,
    monitors: RunResults,
    further: &[(usize, Vec<crate::results::PortResult>)],
) -> Result<(RunResults, Vec<PathBuf>), OutputFailure> {
    let mut results = monitors;
    if summary.outcome != Outcome::Finished {
        return Ok((results, Vec::new()));
    }
    let series = match model.ports.is_empty() {
        true => None,
        false => output.port_series(model)?,
    };
    results = results::complete(model, results, series.as_ref());
    if !further.is_empty() {
        if let Some(d) = model.ports.iter().position(|p| p.driven) {
            let mut columns = vec![(d, results.ports.clone())];
            columns.extend(further.iter().cloned());
            results.s_matrix = crate::ports::s_matrix(&columns);
        }
    }
    let resolved = |freq: &[f64], ports: bool| -> Vec<bool> {
        guards::unresolved(scene, model, freq, ports)
            .into_iter()
            .map(|u| !u)
            .collect()
    };
    results.resolved = crate::results::Resolved {
        ports: results.ports.first().map_or(Vec::new(), |p| {
            // A line port's ill-conditioned frequencies are unresolved for every port
            // (they share one list, as the S-matrix's columns do).
            let mut r = resolved(&p.freq, true);
            for q in &results.ports {
                for (r, &ok) in r.iter_mut().zip(&q.line_ok) {
                    *r &= ok;
                }
            }
            r
        }),
        monitors: results.monitors.iter().map(|m| resolved(&m.freq, false)).collect(),
        farfields: results
            .farfields
            .iter()
            .map(|f| resolved(&[f.freq], false)[0])
            .collect(),
        cross_sections: results
            .cross_sections
            .iter()
            .map(|c| resolved(&c.freq, false))
            .collect(),
    };
    if results.ports.is_empty()
        && results.monitors.is_empty()
        && results.surfaces.is_empty()
        && results.cross_sections.is_empty()
    {
        return Ok((results, Vec::new()));
    }
    let files = output.write_results(model, &results)?;
    Ok((results, files))
}

/// Result frequencies the run could not resolve (outside the band its sources drive, or
/// not below the grid's Nyquist frequency; [`guards::unresolved`]): the summary leaves
/// them out of its findings and says so.
#[derive(Clone, Debug, Default)]
pub struct Unresolved {
    /// Per port of `results.ports`, per frequency.
    pub ports: Vec<Vec<bool>>,
    /// Per far field of `results.farfields` (one frequency each).
    pub farfields: Vec<bool>,
}

/// How a run that was not stopped by an error ended.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// Result frequencies the run could not resolve.
    pub unresolved: Unresolved,
    pub summary: RunSummary,
    /// Steps planned.
    pub steps: usize,
    /// Cell updates per second over the stepping time, in millions.
    pub mcells_per_s: f64,
    /// The output file, closed.
    pub output: PathBuf,
    /// What it holds ([`Output::contents`]).
    pub contents: Vec<String>,
    /// Its companion file, if any ([`Output::companion`]).
    pub companion: Option<PathBuf>,
    /// For an interrupted run: how to continue it.
    pub advice: Option<ResumeAdvice>,
    /// Planned and measured memory.
    pub memory: MemoryReport,
    /// The frequency-domain results of a finished run (ports; monitors and far fields
    /// where the scene has them).
    pub results: RunResults,
    /// Files written beside the output with the results (Touchstone, CSV).
    pub result_files: Vec<PathBuf>,
    /// The end criterion of the run (dB below the energy peak), if it had one.
    pub decay_db: Option<f64>,
    /// A run that drove every port in turn: the drives after the first (whose summary is
    /// `summary`), in order.
    pub drives: Vec<DriveReport>,
}

/// One drive after the first of a run that drove every port in turn.
#[derive(Clone, Debug)]
pub struct DriveReport {
    /// The driven port.
    pub port: String,
    pub summary: RunSummary,
}

impl RunReport {
    /// [`ErrorKind::Interrupted`] for a run stopped on request, else `None`.
    pub fn kind(&self) -> Option<ErrorKind> {
        (self.summary.outcome == Outcome::Interrupted).then_some(ErrorKind::Interrupted)
    }
}

#[cfg(test)]
mod tests;

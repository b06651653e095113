//! What can stop a session, typed so that a front end can map each failure to its own
//! exit code or exception and add its own hints (command-line flags, API names): the
//! messages here name files and causes, never a front end's options.
use super::output::{OutputErrorKind, OutputFailure};
use super::resources::{DiskShortage, DoesNotFit};
use crate::backend::BackendError;
use crate::fmt::thousands;
use crate::runner::{ResumeError, RunError};
use crate::scene::SceneError;
use std::fmt;
use std::io;
use std::path::PathBuf;

/// The class of a failure, for exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad input: a scene error, an output that exists or cannot be resumed, a missing
    /// directory (the command line's exit code 2).
    BadInput,
    /// Runtime failure: backend or output error (3).
    Runtime,
    /// The memory plan exceeds the available memory, or the output the free disk space (4).
    DoesNotFit,
    /// Stopped on request (130). Not an error of [`SessionError`]: an interrupted run
    /// ends with [`crate::runner::Outcome::Interrupted`] (see `RunReport::kind`).
    Interrupted,
}

/// Why a run cannot resume into its output file.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ResumeRefusal {
    #[error("nothing to resume: the output file {} does not exist", path.display())]
    Missing { path: PathBuf },
    /// The file could not be read as an output file.
    #[error("{0}")]
    Unreadable(OutputFailure),
    #[error("nothing to resume: {} is complete ({steps_done} steps)", path.display())]
    Complete { path: PathBuf, steps_done: u64 },
    #[error("cannot resume into {}: it was written for another scene, grid or fdtd version", path.display())]
    OtherRun { path: PathBuf },
    #[error("resuming needs checkpoints, but they are turned off")]
    CheckpointsOff,
    #[error("cannot resume into {}: it has no run_id attribute", path.display())]
    NoRunId { path: PathBuf },
}

/// What a front end can tell the user about resuming a run that stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResumeAdvice {
    /// Checkpoints were off: the run cannot be resumed.
    CheckpointsOff,
    /// No checkpoint had been written yet (they go to `path`).
    NoCheckpointYet { path: PathBuf },
    /// The newest checkpoint: resume from it with the same scene and output.
    From { file: PathBuf, step: u64 },
}

impl fmt::Display for ResumeAdvice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResumeAdvice::CheckpointsOff => write!(f, "no checkpoints were enabled, so the run cannot be resumed"),
            ResumeAdvice::NoCheckpointYet { path } => write!(
                f,
                "no checkpoint had been written yet (checkpoints go to {})",
                path.display()
            ),
            ResumeAdvice::From { file, step } => write!(
                f,
                "the last checkpoint (step {step}) is in {}; resume the run with the same scene and output to continue",
                file.display()
            ),
        }
    }
}

/// A run that failed after it started: the output is closed as failed.
#[derive(Debug)]
pub struct RunFailure {
    pub error: RunError,
    /// Steps planned.
    pub steps: usize,
    /// The output file.
    pub output: PathBuf,
    /// Closing the output with status "failed": `Err` holds why it could not be.
    pub closed: Result<(), String>,
    /// How to continue (`None` after an instability: resuming would meet it again).
    pub advice: Option<ResumeAdvice>,
    /// The run was on a GPU (a front end may suggest resuming on the CPU).
    pub on_gpu: bool,
}

impl RunFailure {
    /// The class of the failure: a backend out of memory does not fit, the rest is runtime.
    pub fn kind(&self) -> ErrorKind {
        match &self.error {
            RunError::Backend { error, .. } => backend_kind(error),
            RunError::Sink(e) if e.no_space => ErrorKind::DoesNotFit,
            RunError::Sink(_) | RunError::Unstable(_) => ErrorKind::Runtime,
        }
    }
}

impl fmt::Display for RunFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.error {
            RunError::Backend { step, error, .. } => write!(
                f,
                "the run failed at step {} of {}: {error}",
                thousands(*step as u64),
                thousands(self.steps as u64)
            )?,
            e => write!(f, "the run failed: {e}")?,
        }
        match &self.closed {
            Ok(()) => write!(f, "\n  {} is closed with status \"failed\"", self.output.display())?,
            Err(e) => write!(f, "\n  also: {e}")?,
        }
        if let RunError::Backend { saved: Some(step), .. } = &self.error {
            write!(
                f,
                "\n  the state of step {step}, before the failure, was saved to a checkpoint"
            )?;
        }
        match (&self.error, &self.advice) {
            (RunError::Sink(e), Some(a)) if e.no_space => write!(f, "\n  once there is space on the disk again: {a}"),
            (RunError::Sink(_), Some(a)) => write!(f, "\n  once the output can be written again: {a}"),
            (_, Some(a)) => write!(f, "\n  {a}"),
            (_, None) => write!(
                f,
                "\n  resuming would meet the same instability: fix the scene and start a new run"
            ),
        }
    }
}

impl std::error::Error for RunFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

fn backend_kind(e: &BackendError) -> ErrorKind {
    match e {
        BackendError::DoesNotFit(_) | BackendError::OutOfMemory(_) => ErrorKind::DoesNotFit,
        _ => ErrorKind::Runtime,
    }
}

/// Why a session could not prepare or run.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The scene file cannot be read or parsed.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// The grid alone (before discretising) exceeds the available RAM.
    #[error("{}: the grid does not fit in RAM: {fit}", path.display())]
    GridTooLarge { path: PathBuf, fit: DoesNotFit },
    /// The scene cannot be discretised or run in f32 (`path`: the scene).
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    /// The output exists and overwriting it was not asked for.
    #[error("output file {} already exists", path.display())]
    OutputExists { path: PathBuf },
    #[error("cannot overwrite output file {}: {source}", path.display())]
    OutputNotWritable {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot create output file {}: directory {} does not exist", path.display(), dir.display())]
    OutputDirMissing { path: PathBuf, dir: PathBuf },
    #[error("cannot create output file {}: {source}", path.display())]
    OutputNotCreatable {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(transparent)]
    NotResumable(ResumeRefusal),
    /// The output would overwrite the scene being run, or is one of the files the run
    /// writes beside it (its own companion), or a companion would overwrite the scene.
    #[error("cannot write output file {}: {what}", path.display())]
    OutputClash { path: PathBuf, what: String },
    /// The output exists but is not a regular file (it would be replaced, not written).
    #[error("cannot overwrite output file {}: it is {what}, not a regular file", path.display())]
    OutputNotRegular { path: PathBuf, what: &'static str },
    #[error(
        "cannot write checkpoints to {}: directory {} does not exist",
        path.display(),
        dir.display()
    )]
    CheckpointDirMissing { path: PathBuf, dir: PathBuf },
    #[error("cannot write checkpoints to {}: cannot create files in directory {}: {source}", path.display(), dir.display())]
    CheckpointDirNotWritable {
        path: PathBuf,
        dir: PathBuf,
        #[source]
        source: io::Error,
    },
    /// Files at the checkpoint's names that this run may not replace or remove.
    #[error("cannot write checkpoints to {}: {}", path.display(), in_the_way(files))]
    CheckpointFilesInTheWay {
        path: PathBuf,
        files: Vec<(PathBuf, String)>,
    },
    #[error(transparent)]
    Disk(DiskShortage),
    /// The CPU plan exceeds the available RAM.
    #[error("the run does not fit in RAM: {0}")]
    RamDoesNotFit(DoesNotFit),
    #[error(transparent)]
    Backend(BackendError),
    /// The checkpoint cannot be loaded (`output`: the file the run would resume into).
    #[error("cannot resume: {error}")]
    ResumeState { output: PathBuf, error: ResumeError },
    /// The output file could not be created or reopened.
    #[error(transparent)]
    Output(OutputFailure),
    #[error(transparent)]
    Run(Box<RunFailure>),
    /// The run ended but its output could not be closed.
    #[error(transparent)]
    Finish(OutputFailure),
    /// Every step ran, but the results could not be computed or written (a full disk, a
    /// companion file another program created): the output is closed as failed, and the
    /// checkpoint of the last step lets a resumed run write them without stepping again.
    #[error("the run ended but its results could not be written: {error}\n  {} is closed with status \"failed\"\n  {advice}", output.display())]
    Results {
        error: OutputFailure,
        output: PathBuf,
        advice: ResumeAdvice,
    },
    /// Stopped on request while setting up, before the output was created: nothing was
    /// written.
    #[error("stopped before the run started; nothing was written")]
    StoppedBeforeStart,
}

fn in_the_way(files: &[(PathBuf, String)]) -> String {
    let each: Vec<String> = files
        .iter()
        .map(|(p, why)| format!("{} is in the way: {why}", p.display()))
        .collect();
    format!(
        "{}; nothing is removed that a run did not write: move it away, or write the checkpoints elsewhere",
        each.join("; ")
    )
}

impl From<BackendError> for SessionError {
    fn from(e: BackendError) -> SessionError {
        SessionError::Backend(e)
    }
}

impl SessionError {
    /// The class of the failure (for an exit code).
    pub fn kind(&self) -> ErrorKind {
        use SessionError as E;
        match self {
            E::Scene(_)
            | E::Invalid { .. }
            | E::OutputExists { .. }
            | E::OutputDirMissing { .. }
            | E::NotResumable(_)
            | E::OutputClash { .. }
            | E::OutputNotRegular { .. }
            | E::CheckpointDirMissing { .. }
            | E::CheckpointDirNotWritable { .. }
            | E::CheckpointFilesInTheWay { .. }
            | E::ResumeState { .. } => ErrorKind::BadInput,
            E::OutputNotWritable { .. } | E::OutputNotCreatable { .. } | E::Finish(_) => ErrorKind::Runtime,
            E::GridTooLarge { .. } | E::Disk(_) | E::RamDoesNotFit(_) => ErrorKind::DoesNotFit,
            E::Backend(e) => backend_kind(e),
            E::Output(o) => match o.kind {
                OutputErrorKind::Exists | OutputErrorKind::BadInput => ErrorKind::BadInput,
                OutputErrorKind::Runtime => ErrorKind::Runtime,
                OutputErrorKind::NoSpace => ErrorKind::DoesNotFit,
            },
            E::Run(f) => f.kind(),
            E::Results { error, .. } => match error.kind {
                OutputErrorKind::NoSpace => ErrorKind::DoesNotFit,
                OutputErrorKind::Exists | OutputErrorKind::BadInput => ErrorKind::BadInput,
                OutputErrorKind::Runtime => ErrorKind::Runtime,
            },
            E::StoppedBeforeStart => ErrorKind::Interrupted,
        }
    }
}

//! The output file as a session sees it: a [`Sink`] that can be created, reopened to
//! resume, inspected and closed. The HDF5 implementation lives in `fdtd-io`
//! (`Hdf5Format`), so that this crate needs no file-format library.
use crate::model::Model;
use crate::results::RunResults;
use crate::runner::{Outcome, PortSeries, RunSummary, Sink};
use crate::scene::Scene;
pub use crate::session::resources::MemoryReport;
use crate::simulation::Simulation;
use std::path::{Path, PathBuf};

/// What kind of failure an output error is (how a front end reports it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputErrorKind {
    /// The file exists and overwriting it was not asked for.
    Exists,
    /// Bad input: a missing directory, a file that cannot be resumed, a bad name.
    BadInput,
    /// The file could not be written, read or closed.
    Runtime,
    /// The disk is full.
    NoSpace,
}

/// Why the output could not be created, resumed, inspected or closed. The message
/// names the file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct OutputFailure {
    pub kind: OutputErrorKind,
    pub message: String,
}

impl OutputFailure {
    pub fn new(kind: OutputErrorKind, message: impl Into<String>) -> OutputFailure {
        OutputFailure {
            kind,
            message: message.into(),
        }
    }
}

/// What an existing output file says about its run.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputInfo {
    /// `running`, `complete`, `interrupted` or `failed`.
    pub status: String,
    pub steps_done: u64,
    pub steps: u64,
    /// The file's run id and run fingerprint (absent in files of older fdtd versions).
    pub run_id: Option<u64>,
    pub fingerprint: Option<u64>,
}

impl OutputInfo {
    /// Whether the run that wrote it finished.
    pub fn is_complete(&self) -> bool {
        self.status == "complete"
    }
}

/// An open output file of one run.
pub trait Output: Sink {
    /// The sink the runner writes to.
    fn as_sink(&mut self) -> &mut dyn Sink;
    /// The file's run id (checkpoints of this run carry it).
    fn run_id(&self) -> u64;
    /// What the file holds, for summaries (`/probes: rx`, `/snapshots: mid (3 frames)`).
    fn contents(&self) -> Vec<String>;
    /// A companion file written beside it (the XDMF description of the snapshots), if any.
    fn companion(&self) -> Option<PathBuf>;
    /// Record the run's planned and measured memory (before [`Output::finish`] or
    /// [`Output::fail`]).
    fn record_memory(&mut self, memory: &MemoryReport) -> Result<(), OutputFailure> {
        let _ = memory;
        Ok(())
    }
    /// Every port's complete (V, I) series, one value per step from step 0 (a resumed
    /// run's earlier part included), for the port results; None when the format cannot
    /// give them back (then the run has no port results).
    fn port_series(&mut self, model: &Model) -> Result<Option<PortSeries>, OutputFailure> {
        let _ = model;
        Ok(None)
    }
    /// The peak field energy recorded before a resumed run's first step (see
    /// [`Sink::energy`]); 0 when none.
    fn energy_peak(&mut self) -> f64 {
        0.0
    }
    /// The step at which the run this file belongs to met its end criterion, as
    /// recorded by [`Output::record_end`] (None: not recorded).
    fn decayed_at(&mut self) -> Option<usize> {
        None
    }
    /// Record how a run that was not stopped by an error ended (end criterion) before
    /// [`Output::finish`].
    fn record_end(&mut self, model: &Model, summary: &RunSummary) -> Result<(), OutputFailure> {
        let _ = (model, summary);
        Ok(())
    }
    /// Write the frequency-domain results of a finished run (before [`Output::finish`]);
    /// returns the files written beside the output (Touchstone, CSV).
    fn write_results(&mut self, model: &Model, results: &RunResults) -> Result<Vec<PathBuf>, OutputFailure> {
        let _ = (model, results);
        Ok(Vec::new())
    }
    /// Record how the run ended (complete or interrupted) and close the file.
    fn finish(self: Box<Self>, outcome: Outcome) -> Result<(), OutputFailure>;
    /// Mark the run failed with `message` and close the file.
    fn fail(self: Box<Self>, message: &str) -> Result<(), OutputFailure>;
}

/// A kind of output file: creates, resumes and inspects [`Output`]s.
pub trait OutputFormat {
    /// The file name extension of a default output path (`h5`).
    fn extension(&self) -> &str;
    /// Before any large allocation: what the format itself needs of `path` for a run of
    /// `model` (companion files it would overwrite, a file another program holds), so
    /// that a run that cannot create or reopen its output is refused before it starts.
    /// Changes nothing. The default accepts.
    fn precheck(&self, path: &Path, model: &Model, force: bool, resume: bool) -> Result<(), OutputFailure> {
        let _ = (path, model, force, resume);
        Ok(())
    }
    /// Every file a run of `model` writes beside `path` (XDMF, Touchstone, CSV): the
    /// output may not be one of them, nor may the scene. The default: none.
    fn companions(&self, path: &Path, model: &Model) -> Vec<PathBuf> {
        let _ = (path, model);
        Vec::new()
    }
    /// Read the run attributes of an existing file, without changing it.
    fn inspect(&self, path: &Path) -> Result<OutputInfo, OutputFailure>;
    /// Create `path` for a run of `model` on the backend described by `backend`
    /// (refusing an existing file unless `force`).
    fn create(
        &self,
        path: &Path,
        scene: &Scene,
        model: &Simulation,
        backend: &str,
        force: bool,
    ) -> Result<Box<dyn Output>, OutputFailure>;
    /// Reopen the file of an interrupted or failed run to continue it after `step` steps.
    fn resume(
        &self,
        path: &Path,
        scene: &Scene,
        model: &Simulation,
        backend: &str,
        step: usize,
    ) -> Result<Box<dyn Output>, OutputFailure>;
}

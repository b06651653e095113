//! The drives after the first of a run that drives every port in turn
//! (`[drive] ports = "each"`): the full S-matrix in one process.
//!
//! The first drive (the port with `excite = true`) is the session's ordinary run: it
//! writes the output file, its probes, snapshots, monitors and far fields, and its
//! checkpoints. Each further drive is a fresh model of the scene with that port driven
//! and the others matched loads, without probes, snapshots, monitors or far fields
//! (their records would be of a drive the file does not describe, and they cost memory),
//! on a fresh backend of the same engine (the previous one is dropped first, so a GPU
//! holds one drive's buffers at a time; drives run one after the other: on the H200, two
//! device contexts time-slice, so "several at once" measured no faster, see
//! docs/performance.md). Its V and I
//! series stay in memory (one value per port and step) and only the port results are
//! kept. No checkpoint is written during these drives: a resumed run repeats them all
//! (see [`super::Prepared::run`]), so that a matrix is never assembled from drives of
//! different runs.
use super::{emit, Events, PassFactory, ProgressFn, SessionEvent};
use crate::backend::{BackendError, BackendOptions, Engine};
use crate::model::Model;
use crate::results::PortResult;
use crate::runner::{self, MemorySink, Outcome, ProgressInfo, RunError, RunOptions, RunSummary};
use crate::scene::Scene;
use crate::Simulation;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The scene of a further drive: port `k` driven, no probes, snapshots, monitors or far
/// fields (they are the first drive's).
pub fn drive_scene(scene: &Scene, k: usize) -> Scene {
    let mut s = scene.with_driven_port(k);
    s.probes.clear();
    s.snapshots.clear();
    s.monitors.clear();
    s.farfields.clear();
    s
}

/// One further drive that ran to its end.
pub struct Drive {
    /// The driven port's index.
    pub port: usize,
    /// Every port's result of this drive (S = b / a of the driven port).
    pub results: Vec<PortResult>,
    pub summary: RunSummary,
}

/// How the further drives ended.
pub enum Drives {
    /// Every one ran to its end.
    Done(Vec<Drive>),
    /// Stopped on request during the drive of this port.
    Interrupted { port: usize },
}

/// What the further drives share with the first.
pub struct Context<'a> {
    pub scene: &'a Scene,
    pub engine: &'a dyn Engine,
    pub options: &'a BackendOptions,
    pub chunk: usize,
    pub stop: Option<Arc<AtomicBool>>,
    pub events: &'a Option<Events>,
    /// The passes the run request adds: every drive runs the same physics.
    pub extra_passes: &'a [PassFactory],
}

/// Run the drives of `ports` (indices, in order) after the first of `count` drives.
pub fn run(cx: &Context, ports: &[usize], count: usize, progress: Option<&mut ProgressFn>) -> Result<Drives, RunError> {
    let mut progress = progress;
    let mut done = Vec::new();
    for (i, &k) in ports.iter().enumerate() {
        let index = count - ports.len() + i + 1;
        let name = cx.scene.ports.get(k).map_or(String::new(), |p| p.name.clone());
        emit(
            cx.events,
            SessionEvent::Drive {
                index,
                count,
                port: name.clone(),
            },
        );
        let scene = drive_scene(cx.scene, k);
        let fail = |error: BackendError| RunError::Backend {
            step: 0,
            error,
            saved: None,
        };
        let model = Model::discretize(&scene)
            .map_err(|e| fail(BackendError::Unsupported(format!("drive of port {name}: {e}"))))?;
        let extra = cx.extra_passes.iter().map(|f| f(&model)).collect();
        let model = Arc::new(Simulation::with_passes(model, extra));
        let mut backend = cx.engine.create(model.clone(), cx.options).map_err(fail)?;
        let mut sink = MemorySink::new(&model);
        let opts = RunOptions {
            chunk: cx.chunk.clamp(1, model.grid.steps.max(1)),
            stop: cx.stop.clone(),
            ..RunOptions::default()
        };
        let mut tagged = progress.as_mut().map(|p| {
            move |info: &ProgressInfo| {
                let mut info = *info;
                info.drive = Some((index, count));
                p(&info)
            }
        });
        let summary = runner::run(
            &model,
            backend.as_mut(),
            &mut sink,
            &opts,
            tagged.as_mut().map(|t| t as runner::Progress),
        )?;
        drop(backend);
        if summary.outcome != Outcome::Finished {
            return Ok(Drives::Interrupted { port: k });
        }
        let results = match model.frequencies.is_empty() {
            true => Vec::new(),
            false => crate::ports::results(&model, &sink.ports),
        };
        done.push(Drive {
            port: k,
            results,
            summary,
        });
    }
    Ok(Drives::Done(done))
}

//! Drives a backend through a model's steps in chunks and hands samples to a sink.
//!
//! Chunks end at every snapshot step and at most `chunk` steps apart, so a stop
//! request (Ctrl-C) is honoured within one chunk and everything recorded up to it
//! reaches the sink.
use crate::backend::{probe_due, Backend, BackendError};
use crate::model::Model;
use crate::Component;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Where samples go (the HDF5 writer, or memory for tests).
pub trait Sink {
    /// Samples of probe `probe`, component slot `slot`, taken at `times` (s).
    fn probe(&mut self, probe: usize, slot: usize, times: &[f64], values: &[f32]) -> Result<(), SinkError>;
    /// One frame of snapshot `snap`, component `c`, taken after step `step` at time `time`.
    fn snapshot(&mut self, snap: usize, c: Component, time: f64, data: &[f32]) -> Result<(), SinkError>;
    /// Called after every chunk: make what was written durable.
    fn flush(&mut self, _steps_done: usize) -> Result<(), SinkError> {
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SinkError(pub String);

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Backend(#[from] BackendError),
    #[error("writing output: {0}")]
    Sink(#[from] SinkError),
}

/// How the run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Finished,
    /// Stopped on request after this many steps.
    Interrupted,
}

#[derive(Clone, Debug)]
pub struct RunSummary {
    pub outcome: Outcome,
    pub steps_done: usize,
    /// Wall time spent stepping (excluding output).
    pub stepping: Duration,
    pub total: Duration,
}

impl RunSummary {
    /// Cell updates per second over the stepping time, in millions.
    pub fn mcells_per_s(&self, model: &Model) -> f64 {
        model.grid.cells() as f64 * self.steps_done as f64 / self.stepping.as_secs_f64().max(1e-12) / 1e6
    }
}

/// Progress callback: (steps done, total steps, Mcells/s so far).
pub type Progress<'a> = &'a mut dyn FnMut(usize, usize, f64);

pub struct RunOptions {
    /// Most steps per chunk.
    pub chunk: usize,
    /// Set to stop after the current chunk.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { chunk: 64, stop: None }
    }
}

/// Time (s) at which a component recorded after step `n` is valid.
pub fn sample_time(c: Component, n: usize, dt: f64) -> f64 {
    if c.is_electric() {
        (n + 1) as f64 * dt
    } else {
        (n as f64 + 0.5) * dt
    }
}

/// Run `model` to its last step (or until stopped).
pub fn run(
    model: &Model,
    backend: &mut dyn Backend,
    sink: &mut dyn Sink,
    opts: &RunOptions,
    progress: Option<Progress>,
) -> Result<RunSummary, RunError> {
    let start = Instant::now();
    let steps = model.grid.steps;
    let dt = model.grid.dt;
    let mut stepping = Duration::ZERO;
    let mut n0 = 0;
    let mut progress = progress;
    let mut outcome = Outcome::Finished;
    while n0 < steps {
        if opts.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
            outcome = Outcome::Interrupted;
            break;
        }
        // End the chunk at the next snapshot step (inclusive) or after `chunk` steps.
        let mut end = (n0 + opts.chunk.max(1)).min(steps);
        for s in &model.snapshots {
            let next = (n0 / s.every + 1) * s.every; // first n+1 > n0 divisible by every
            if next <= end {
                end = next;
            }
        }
        let count = end - n0;
        let src = model.source_values(n0, count);
        let t = Instant::now();
        backend.step(n0, count, &src)?;
        let bufs = backend.drain_probes()?;
        stepping += t.elapsed();
        for (p, (probe, slots)) in model.probes.iter().zip(bufs).enumerate() {
            for (slot, (sample, values)) in probe.samples.iter().zip(slots).enumerate() {
                let times: Vec<f64> = (n0..end)
                    .filter(|&n| probe_due(probe.every, n))
                    .map(|n| sample_time(sample.component, n, dt))
                    .collect();
                debug_assert_eq!(times.len(), values.len());
                sink.probe(p, slot, &times, &values)?;
            }
        }
        let last = end - 1;
        for (si, s) in model.snapshots.iter().enumerate() {
            if probe_due(s.every, last) {
                for &c in &s.components {
                    let (lo, hi) = s.component_box(c, &model.grid);
                    let data = backend.read_region(c, lo, hi)?;
                    sink.snapshot(si, c, sample_time(c, last, dt), &data)?;
                }
            }
        }
        sink.flush(end)?;
        n0 = end;
        if let Some(cb) = progress.as_mut() {
            let mc = model.grid.cells() as f64 * n0 as f64 / stepping.as_secs_f64().max(1e-12) / 1e6;
            cb(n0, steps, mc);
        }
    }
    Ok(RunSummary {
        outcome,
        steps_done: n0,
        stepping,
        total: start.elapsed(),
    })
}

/// A sink that keeps everything in memory (tests, validation, benchmarks).
#[derive(Clone, Debug, Default)]
pub struct MemorySink {
    /// `[probe][slot]` → (times, values).
    pub probes: Vec<Vec<(Vec<f64>, Vec<f32>)>>,
    /// `[snapshot]` → frames of (component, time, data).
    pub snapshots: Vec<Vec<(Component, f64, Vec<f32>)>>,
}

impl MemorySink {
    pub fn new(model: &Model) -> MemorySink {
        MemorySink {
            probes: model
                .probes
                .iter()
                .map(|p| vec![(Vec::new(), Vec::new()); p.samples.len()])
                .collect(),
            snapshots: vec![Vec::new(); model.snapshots.len()],
        }
    }

    /// The series of probe `name`'s component `c`.
    pub fn series(&self, model: &Model, name: &str, c: Component) -> Option<(&[f64], &[f32])> {
        let p = model.probes.iter().position(|p| p.name == name)?;
        let s = model.probes[p].samples.iter().position(|s| s.component == c)?;
        let (t, v) = &self.probes[p][s];
        Some((t, v))
    }
}

impl Sink for MemorySink {
    fn probe(&mut self, probe: usize, slot: usize, times: &[f64], values: &[f32]) -> Result<(), SinkError> {
        let (t, v) = &mut self.probes[probe][slot];
        t.extend_from_slice(times);
        v.extend_from_slice(values);
        Ok(())
    }
    fn snapshot(&mut self, snap: usize, c: Component, time: f64, data: &[f32]) -> Result<(), SinkError> {
        self.snapshots[snap].push((c, time, data.to_vec()));
        Ok(())
    }
}

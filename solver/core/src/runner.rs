//! Drives a backend through a model's steps in chunks and hands samples to a sink.
//!
//! Chunks end at every snapshot step, at every checkpoint step (with a step interval)
//! and at most `chunk` steps apart, so a stop request (Ctrl-C) is honoured within one
//! chunk and everything recorded up to it reaches the sink.
//!
//! Around the stepping, the runner keeps a run alive and honest:
//!
//! * **Checkpoints** ([`CheckpointOptions`]): at chunk ends, periodically (steps or wall
//!   time) and when stopped, the backend's [`SolverState`](crate::backend::SolverState)
//!   goes to a checkpoint file ([`crate::checkpoint`]), after the sink has made the
//!   samples up to that step durable. A run resumes with [`RunOptions::start`] set to the
//!   checkpoint's step and the state loaded into the backend.
//! * **Instability**: every chunk's probe samples, and every few hundred steps the whole
//!   fields ([`Backend::scan_fields`]), are checked for NaN/Inf and for runaway values;
//!   the run stops with [`RunError::Unstable`], naming the step, the sample and the likely
//!   causes. No checkpoint is ever written from a state that holds a non-finite value.
//! * **Faults**: [`Fault`] simulates a lost device at a given step (tests).
use crate::backend::{probe_buffers, probe_due, scan_energy, take_pass_streams, Backend, BackendError, FieldScan};
use crate::checkpoint::{self, CheckpointError, Header, Interval};
use crate::model::Model;
use crate::scene::SourceKind;
use crate::simulation::Simulation;
use crate::Component;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Where samples go (the HDF5 writer, or memory for tests).
pub trait Sink {
    /// Samples of probe `probe`, component slot `slot`, taken at `times` (s).
    fn probe(&mut self, probe: usize, slot: usize, times: &[f64], values: &[f32]) -> Result<(), SinkError>;
    /// One frame of snapshot `snap`, component `c`, taken after step `step` at time `time`.
    fn snapshot(&mut self, snap: usize, c: Component, time: f64, data: &[f32]) -> Result<(), SinkError>;
    /// Port `port`'s voltage (at (n+1)·dt) and current (at (n+½)·dt) after steps
    /// `n0 .. n0 + v.len()` (one value per step). The default drops them.
    fn port(&mut self, port: usize, n0: usize, v: &[f64], i: &[f64]) -> Result<(), SinkError> {
        let _ = (port, n0, v, i);
        Ok(())
    }
    /// The total field energy (J) after `step` steps, at each field scan of a run with an
    /// end criterion (so that a resumed run knows the peak). The default drops it.
    fn energy(&mut self, step: usize, energy: f64) -> Result<(), SinkError> {
        let _ = (step, energy);
        Ok(())
    }
    /// Called after every chunk: make what was written durable.
    fn flush(&mut self, _steps_done: usize) -> Result<(), SinkError> {
        Ok(())
    }
    /// Called before a checkpoint refers to the samples flushed so far: make them
    /// survive a power loss too (fsync), not only a crash of the process.
    fn sync(&mut self) -> Result<(), SinkError> {
        Ok(())
    }
}

/// Why a sink could not take or keep what the runner handed it.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct SinkError {
    pub message: String,
    /// The disk is full (or the file may grow no more): the run does not fit on it.
    pub no_space: bool,
}

impl SinkError {
    pub fn new(message: impl Into<String>) -> SinkError {
        SinkError {
            message: message.into(),
            no_space: false,
        }
    }

    /// The write did not fit on the disk.
    pub fn no_space(message: impl Into<String>) -> SinkError {
        SinkError {
            message: message.into(),
            no_space: true,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The backend failed while the run was at `step` (steps done). `saved`: the step
    /// of a checkpoint of the last good state written after the failure, if any.
    #[error("{error} (at step {step})")]
    Backend {
        step: usize,
        error: BackendError,
        saved: Option<usize>,
    },
    #[error("writing output: {0}")]
    Sink(#[from] SinkError),
    #[error("{0}")]
    Unstable(Box<Instability>),
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
    /// The step the run started from (non-zero when resumed).
    pub first_step: usize,
    /// Step of the last checkpoint written by this run, if any.
    pub checkpoint: Option<usize>,
    /// Wall time spent stepping (excluding output).
    pub stepping: Duration,
    pub total: Duration,
    /// Why the run ended when it finished: the end criterion or the last step.
    pub end: EndReason,
    /// The peak field energy seen so far (J; 0 when no scan measured it).
    pub energy_peak: f64,
    /// The last measured field energy relative to the peak (dB, ≤ 0), if measured.
    pub energy_db: Option<f64>,
}

/// How a finished run came to its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// The field energy fell `decay_db` below its peak after this many steps.
    Decayed(usize),
    /// It ran every planned step (the end criterion, if any, was not reached).
    MaxSteps,
    /// Stopped on request (not finished).
    Stopped,
}

impl EndReason {
    /// `decayed`, `max_steps` or `stopped` (the HDF5 attribute `end_reason`).
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Decayed(_) => "decayed",
            EndReason::MaxSteps => "max_steps",
            EndReason::Stopped => "stopped",
        }
    }
}

impl RunSummary {
    /// Cell updates per second over the stepping time, in millions.
    pub fn mcells_per_s(&self, model: &Model) -> f64 {
        let steps = self.steps_done.saturating_sub(self.first_step);
        model.grid.cells() as f64 * steps as f64 / self.stepping.as_secs_f64().max(1e-12) / 1e6
    }
}

/// Progress callback, called at every chunk end.
pub type Progress<'a> = &'a mut dyn FnMut(&ProgressInfo);

/// Where a run stands, for progress bars and logs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProgressInfo {
    /// Steps done (the run's step counter).
    pub step: usize,
    /// The most steps the run may take.
    pub total: usize,
    /// Cell updates per second so far (this process's stepping), in millions.
    pub mcells: f64,
    /// The end criterion's state, once it has been evaluated (a run with `decay_db`).
    pub decay: Option<DecayProgress>,
    /// A run that drives every port in turn: (this drive, 1-based; the number of
    /// drives). The runner leaves it None; the session sets it.
    pub drive: Option<(usize, usize)>,
}

/// The end criterion as last evaluated: how far the signal has decayed and when it will
/// probably reach the target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecayProgress {
    /// The level (dB, ≤ 0) that must fall to `−target_db`: the larger of the field
    /// energy's and the ports' signal level below their peaks; NaN until the first
    /// evaluation.
    pub level_db: f64,
    /// The criterion (`decay_db`, positive).
    pub target_db: f64,
    /// The step at which the level will probably reach the target, extrapolated from the
    /// recent decay (None while the level does not fall yet). Never past `total`.
    pub eta_step: Option<usize>,
}

/// Extrapolates the end criterion's level: a least-squares line through the recent
/// (step, level dB) points (an exponential decay is a line in dB) and where it crosses
/// the target, but never before the step where the sources have ended (the criterion
/// waits for them). Ringing makes the level bumpy, so the fit uses the last few scans.
#[derive(Clone, Debug, Default)]
pub struct DecayTrend {
    points: Vec<(f64, f64)>,
    /// The first step the criterion may stop at (the sources have ended).
    settle: usize,
}

impl DecayTrend {
    /// Scans the fit uses.
    const WINDOW: usize = 6;

    /// A trend for a run whose criterion may stop from step `settle` on.
    pub fn new(settle: usize) -> DecayTrend {
        DecayTrend {
            points: Vec::new(),
            settle,
        }
    }

    /// Adds the level at `step`.
    pub fn push(&mut self, step: usize, level_db: f64) {
        if !level_db.is_finite() {
            return;
        }
        self.points.push((step as f64, level_db));
        if self.points.len() > Self::WINDOW {
            self.points.remove(0);
        }
    }

    /// The step where the level will probably reach `−target_db` (at the earliest the
    /// settle step), clamped to `total`; None while fewer than three points are known
    /// or the level above the target does not fall.
    pub fn eta(&self, target_db: f64, total: usize) -> Option<usize> {
        let (last_x, last_y) = *self.points.last()?;
        let at = if last_y <= -target_db {
            last_x
        } else {
            let n = self.points.len();
            if n < 3 {
                return None;
            }
            let (mx, my) = self.points.iter().fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
            let (mx, my) = (mx / n as f64, my / n as f64);
            let (sxy, sxx) = self.points.iter().fold((0.0, 0.0), |(a, b), (x, y)| {
                (a + (x - mx) * (y - my), b + (x - mx) * (x - mx))
            });
            let slope = sxy / sxx; // dB per step
            if slope.is_nan() || slope >= 0.0 {
                return None;
            }
            last_x + (-target_db - last_y) / slope
        };
        let at = at.max(self.settle as f64);
        Some(if at.is_finite() && at < total as f64 {
            at.ceil() as usize
        } else {
            total
        })
    }
}

/// Periodic checkpoints of a run.
#[derive(Clone, Debug)]
pub struct CheckpointOptions {
    /// The checkpoint file (its previous generation goes to `PATH.prev`).
    pub path: PathBuf,
    pub interval: Interval,
    /// [`checkpoint::fingerprint`] of the run.
    pub fingerprint: u64,
    /// The output file's run id (root attribute `run_id`).
    pub run_id: u64,
}

/// A simulated failure (fault injection for tests): the device is lost when the run
/// reaches step `at_step` (0-based), before the chunk holding it is stepped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    pub at_step: usize,
    /// The device's memory is gone with it: nothing can be saved after the failure (a
    /// real device loss). Otherwise the state of the last chunk end is still readable,
    /// and the runner writes a checkpoint of it.
    pub state_lost: bool,
    /// Panic instead (a stand-in for a bug), to test what a front end's panic handling
    /// leaves behind.
    pub panic: bool,
}

impl Fault {
    /// The environment variable read by [`Fault::from_env`].
    pub const ENV: &'static str = "FDTD_FAULT_AT_STEP";

    /// `FDTD_FAULT_AT_STEP=N` (device lost, state gone), `N:readable` (the state of the
    /// last chunk end can still be saved) or `N:panic` (a panic, as a bug would).
    pub fn from_env() -> Result<Option<Fault>, String> {
        let Ok(v) = std::env::var(Self::ENV) else {
            return Ok(None);
        };
        let (n, kind) = v.split_once(':').unwrap_or((&v, "lost"));
        let at_step = n
            .trim()
            .parse()
            .map_err(|_| format!("{}={v}: expected a step number, e.g. 500 or 500:readable", Self::ENV))?;
        let (state_lost, panic) = match kind {
            "lost" => (true, false),
            "readable" => (false, false),
            "panic" => (false, true),
            _ => {
                return Err(format!(
                    "{}={v}: the kind after ':' is `lost`, `readable` or `panic`",
                    Self::ENV
                ))
            }
        };
        Ok(Some(Fault {
            at_step,
            state_lost,
            panic,
        }))
    }
}

/// Something the runner reports while it runs (not an error).
#[derive(Clone, Debug, PartialEq)]
pub enum RunEvent {
    CheckpointWritten {
        step: usize,
        path: PathBuf,
        bytes: u64,
        seconds: f64,
    },
    /// A checkpoint could not be written; the run goes on, the previous one is kept.
    CheckpointFailed { step: usize, message: String },
    /// The backend cannot save its state: no checkpoints in this run.
    CheckpointsUnsupported { reason: String },
}

impl fmt::Display for RunEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunEvent::CheckpointWritten {
                step,
                path,
                bytes,
                seconds,
            } => write!(
                f,
                "checkpoint at step {step}: {} ({}, {seconds:.2} s)",
                path.display(),
                crate::plan::human_bytes(*bytes)
            ),
            RunEvent::CheckpointFailed { step, message } => write!(
                f,
                "could not write the checkpoint at step {step} (the run goes on; the previous checkpoint is kept): {message}"
            ),
            RunEvent::CheckpointsUnsupported { reason } => {
                write!(f, "no checkpoints in this run: {reason}")
            }
        }
    }
}

/// Receives the runner's [`RunEvent`]s.
pub type EventSink = Box<dyn Fn(&RunEvent) + Send + Sync>;

pub struct RunOptions {
    /// Most steps per chunk.
    pub chunk: usize,
    /// Set to stop after the current chunk (a checkpoint is written first).
    pub stop: Option<Arc<AtomicBool>>,
    /// Steps already done: the backend holds the state after them and the sink their
    /// samples (a resumed run). 0 for a fresh run.
    pub start: usize,
    /// Periodic checkpoints (None: none, not even when stopped).
    pub checkpoint: Option<CheckpointOptions>,
    /// Scan the whole fields for NaN/Inf and runaway values at least this many steps
    /// apart (and so that scans take at most ~2 % of the run); 0 = never. Probe samples
    /// are checked at every chunk regardless.
    pub scan_every: usize,
    /// Fault injection (tests).
    pub fault: Option<Fault>,
    /// Receives [`RunEvent`]s (checkpoints written or failed).
    pub events: Option<EventSink>,
    /// The peak field energy before `start` (a resumed run; the sink's `energy` record),
    /// for the end criterion (`model.decay_db`).
    pub energy_peak: f64,
    /// The peak of the ports' signal power before `start` ([`port_power`] over the
    /// series so far), for the end criterion.
    pub port_peak: f64,
    /// The largest port signal power since the last end-criterion scan before `start`
    /// (see [`resume_port_levels`]).
    pub port_recent: f64,
    /// The run already ended at `start` by its end criterion (a resume from the
    /// checkpoint written after the last step, before the results): no step is taken.
    pub decayed_at_start: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            chunk: 64,
            stop: None,
            start: 0,
            checkpoint: None,
            scan_every: 256,
            fault: None,
            events: None,
            energy_peak: 0.0,
            port_peak: 0.0,
            port_recent: 0.0,
            decayed_at_start: false,
        }
    }
}

/// When a source's waveform has ended (s): the end criterion is not checked before.
fn waveform_end(w: &crate::waveform::Waveform) -> f64 {
    use crate::waveform::WaveShape;
    match w.shape {
        WaveShape::Gaussian { tau }
        | WaveShape::GaussianDerivative { tau }
        | WaveShape::ModulatedGaussian { tau, .. } => w.delay + 4.5 * tau,
        WaveShape::Ricker { frequency } => w.delay + 2.0 / frequency,
        WaveShape::Sine { .. } => f64::INFINITY,
    }
}

/// Steps between field scans of a run with an end criterion: about 1/100 of the run.
fn decay_scan_interval(model: &Model) -> usize {
    (model.grid.steps / 100).max(8)
}

/// The ports' signal power at one step, Σ (V²/Z0 + Z0·I²) over the ports (W, up to a
/// factor): the end criterion also waits for it to decay, because energy stored in
/// lumped elements (an inductor's current, a capacitor's ΔC) is not field energy.
pub fn port_power(model: &Model, series: &[(Vec<f64>, Vec<f64>)], k: usize) -> f64 {
    model
        .ports
        .iter()
        .zip(series)
        .map(|(p, (v, i))| {
            let (v, i) = (v.get(k).copied().unwrap_or(0.0), i.get(k).copied().unwrap_or(0.0));
            v * v / p.z0 + p.z0 * i * i
        })
        .sum()
}

/// For a run resumed after `start` steps, from the port series so far: the peak
/// [`port_power`] and its largest value since the last end-criterion scan (scans fall
/// on multiples of a fixed interval, so a resumed run checks at the same steps and
/// stops at the same step as an uninterrupted one).
pub fn resume_port_levels(model: &Model, series: &[(Vec<f64>, Vec<f64>)], start: usize) -> (f64, f64) {
    let n = series.iter().map(|(v, _)| v.len()).max().unwrap_or(0).min(start);
    let last_scan = start / decay_scan_interval(model) * decay_scan_interval(model);
    let mut peak = 0.0f64;
    let mut recent = 0.0f64;
    for k in 0..n {
        let p = port_power(model, series, k);
        peak = peak.max(p);
        if k >= last_scan {
            recent = recent.max(p);
        }
    }
    (peak, recent)
}

/// Per port, its (V, I) series: one value per step.
pub type PortSeries = Vec<(Vec<f64>, Vec<f64>)>;

/// Voltage and current of every port after steps `n0..end` from the `ports` pass's
/// streams: per port `(V, I)`, then per line-port plane ([`Model::line_pairs`]), one
/// value per step.
pub fn port_series(model: &Model, streams: &[Vec<f32>], count: usize) -> PortSeries {
    let mut q = 0;
    let mut out = Vec::with_capacity(model.ports.len());
    for p in &model.ports {
        let ne = p.edges.len();
        let nh = p.loop_h.len();
        let mut v = Vec::with_capacity(count);
        let mut i = Vec::with_capacity(count);
        if streams.len() >= q + ne + nh {
            let (es, hs) = (&streams[q..q + ne], &streams[q + ne..q + ne + nh]);
            let mut e = vec![0f32; ne];
            let mut h = vec![0f32; nh];
            for s in 0..count {
                for (x, st) in e.iter_mut().zip(es) {
                    *x = st.get(s).copied().unwrap_or(0.0);
                }
                for (x, st) in h.iter_mut().zip(hs) {
                    *x = st.get(s).copied().unwrap_or(0.0);
                }
                v.push(p.voltage(&e));
                i.push(p.current(&h));
            }
        }
        q += ne + nh;
        out.push((v, i));
    }
    for (k, plane) in model.line_pairs() {
        let p = &model.ports[k];
        let line = p.line.as_ref().expect("a line pair");
        let (ne, nh) = (line.v[plane].len(), line.i[plane].len());
        let mut v = Vec::with_capacity(count);
        let mut i = Vec::with_capacity(count);
        if streams.len() >= q + ne + nh {
            let (es, hs) = (&streams[q..q + ne], &streams[q + ne..q + ne + nh]);
            let mut e = vec![0f32; ne];
            for s in 0..count {
                for (x, st) in e.iter_mut().zip(es) {
                    *x = st.get(s).copied().unwrap_or(0.0);
                }
                let cur: f64 = line.i[plane]
                    .iter()
                    .zip(hs)
                    .map(|((_, _, w), st)| w * st.get(s).copied().unwrap_or(0.0) as f64)
                    .sum();
                v.push(line.v_w.iter().zip(&e).map(|(w, &x)| w * x as f64).sum());
                i.push(cur);
            }
        }
        q += ne + nh;
        out.push((v, i));
    }
    out
}

/// Time (s) at which a component recorded after step `n` is valid.
pub fn sample_time(c: Component, n: usize, dt: f64) -> f64 {
    if c.is_electric() {
        (n + 1) as f64 * dt
    } else {
        (n as f64 + 0.5) * dt
    }
}

// ---------------------------------------------------------------------------
// Instability
// ---------------------------------------------------------------------------

/// A field magnitude above this is a runaway: f32 overflows at 3.4e38, and no physical
/// field of a sane scene comes near (a 1 A·m dipole in a 1 mm cell adds ~1e8 V/m per step).
pub const RUNAWAY: f32 = 1e30;

/// Where and when the fields went non-finite or ran away, and the likely causes.
#[derive(Clone, Debug, PartialEq)]
pub struct Instability {
    /// Steps done when it was seen (the value is the one after step `step - 1`).
    pub step: usize,
    pub component: Component,
    pub index: [usize; 3],
    /// Where the sample sits (m).
    pub position: [f64; 3],
    pub value: f32,
    /// `probe NAME` or `field scan`.
    pub found_by: String,
    pub causes: Vec<String>,
}

impl fmt::Display for Instability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.value.is_finite() {
            format!("reached {:e} (runaway growth; f32 overflows at 3.4e38)", self.value)
        } else {
            format!("is {}", self.value)
        };
        let [i, j, k] = self.index;
        let p = self.position.map(|x| x * 1e3);
        write!(
            f,
            "numerical instability: {}[{i}, {j}, {k}] (at {:.4} mm, {:.4} mm, {:.4} mm) {what} after step {} (found by the {})",
            self.component, p[0], p[1], p[2], self.step, self.found_by
        )?;
        if !self.causes.is_empty() {
            write!(f, "\n  likely causes:")?;
            for c in &self.causes {
                write!(f, "\n  - {c}")?;
            }
        }
        Ok(())
    }
}

impl Instability {
    fn new(model: &Model, step: usize, c: Component, flat: usize, value: f32, found_by: String) -> Instability {
        let d = model.grid.dims();
        let index = [flat / (d[1] * d[2]), (flat / d[2]) % d[1], flat % d[2]];
        Instability {
            step,
            component: c,
            index,
            position: c.position(index, model.grid.d),
            value,
            found_by,
            causes: likely_causes(model, index),
        }
    }
}

fn bad(v: f32) -> bool {
    v.is_nan() || v.abs() > RUNAWAY
}

/// The inputs that most likely made the run unstable, most specific first.
pub fn likely_causes(model: &Model, index: [usize; 3]) -> Vec<String> {
    let g = &model.grid;
    let mut out = Vec::new();
    for s in &model.sources {
        let peak = (s.scale * s.waveform.amplitude).abs();
        let dist = match s.line {
            true => usize::MAX,
            false => (0..3).map(|a| s.index[a].abs_diff(index[a])).max().unwrap_or(0),
        };
        if peak.is_nan() || peak >= 1e20 {
            out.push(format!(
                "source `{}` applies up to {peak:e} {} per step: too strong for f32 (the fields add up and \
                 overflow at 3.4e38); lower its amplitude",
                s.name,
                if s.component.is_electric() { "V/m" } else { "A/m" }
            ));
        } else if dist <= 2 {
            let kind = match s.kind {
                SourceKind::Current => "current",
                SourceKind::Hard => "hard",
            };
            out.push(format!(
                "it starts {dist} cell(s) from {kind} source `{}` ({} at {:?}, amplitude {:e}): check its amplitude \
                 and waveform",
                s.name, s.component, s.index, s.waveform.amplitude
            ));
        }
    }
    for l in &model.cpml {
        let a = l.axis;
        let inside = if l.high {
            index[a] + l.cells >= g.n[a]
        } else {
            index[a] <= l.cells
        };
        if inside {
            let face = ["x", "y", "z"][a].to_string() + if l.high { "_max" } else { "_min" };
            out.push(format!(
                "it starts inside the {face} CPML layer: CPML parameters far from the defaults (order, sigma_factor, \
                 kappa_max, alpha_max in [boundaries.cpml]) can be unstable; try the defaults"
            ));
            break;
        }
    }
    // Inductors: an explicit update with its own bound (`model::lumped::inductor_limit`),
    // named first when it is near the sample and past (or close to) that bound.
    for el in &model.lumped {
        let Some((ck, limit, l_min)) = el.inductor_stability(g) else {
            continue;
        };
        let dist = el
            .edges
            .iter()
            .map(|e| (0..3).map(|a| e[a].abs_diff(index[a])).max().unwrap_or(0))
            .min()
            .unwrap_or(usize::MAX);
        if dist <= 2 && ck > 0.8 * limit {
            let l = el.l_edge.unwrap_or(0.0) * el.series as f64 / el.columns.max(1) as f64;
            out.insert(
                0,
                format!(
                    "it starts {dist} cell(s) from lumped element `{}`, whose inductance l = {} is at or below the \
                     smallest stable one on this grid (about {}): raise l, or lower time.courant",
                    el.name,
                    crate::fmt::si(l, "H"),
                    crate::fmt::si(l_min, "H")
                ),
            );
        }
    }
    out.push(format!(
        "the Courant factor is {} (stable up to 1 in vacuum; a material with eps_r·mu_r < 1 lowers the limit): \
         try time.courant = 0.9",
        crate::fmt::sig(g.courant, 6)
    ));
    // Materials: the effective (averaged) coefficients the kernels use.
    let e_bad = model.coefs.e.iter().any(|cc| !cc[0].is_finite() || !cc[1].is_finite());
    let h_bad = model.coefs.h.iter().any(|x| !x.is_finite());
    if e_bad || h_bad {
        out.push(
            "a material's update coefficients overflow f32 (extreme eps_r, mu_r or sigma for this cell size)".into(),
        );
    }
    out
}

/// Refuse, before running, inputs that cannot run in f32: a source whose peak value
/// per step is not finite or too large, or update coefficients that overflow.
pub fn preflight(model: &Model) -> Result<(), String> {
    for s in &model.sources {
        let peak = (s.scale * s.waveform.amplitude).abs();
        if peak.is_nan() || peak >= 1e30 {
            return Err(format!(
                "source `{}` would apply {peak:e} {} per step (amplitude {:e} × {:e} for this cell): f32 holds at most \
                 3.4e38 and the fields add up; lower its amplitude",
                s.name,
                if s.component.is_electric() { "V/m" } else { "A/m" },
                s.waveform.amplitude,
                s.scale
            ));
        }
    }
    for el in &model.lumped {
        let Some((ck, limit, l_min)) = el.inductor_stability(&model.grid) else {
            continue;
        };
        if ck > limit {
            let l = el.l_edge.unwrap_or(0.0) * el.series as f64 / el.columns.max(1) as f64;
            return Err(format!(
                "lumped element `{}`: l = {} is below the smallest stable inductance on this grid, about {}: the \
                 explicit update of its current diverges (dt²/(L·C of its cell) = {} > {}); raise l to at least that, \
                 or lower time.courant (the bound grows as dt shrinks)",
                el.name,
                crate::fmt::si(l, "H"),
                crate::fmt::si(l_min, "H"),
                crate::fmt::sig(ck, 3),
                crate::fmt::sig(limit, 3)
            ));
        }
    }
    let e_bad = model.coefs.e.iter().any(|c| !c[0].is_finite() || !c[1].is_finite());
    let h_bad = model.coefs.h.iter().any(|x| !x.is_finite());
    if e_bad || h_bad {
        return Err(
            "a material's update coefficients overflow f32 (extreme eps_r, mu_r or sigma for this cell size and dt)"
                .into(),
        );
    }
    Ok(())
}

/// The first bad sample (non-finite, or past [`RUNAWAY`]) of a chunk's probe samples.
fn check_probes(model: &Model, n0: usize, end: usize, bufs: &[Vec<Vec<f32>>]) -> Option<Instability> {
    let mut first: Option<(usize, usize, usize, f32)> = None; // (n, probe, slot, value)
    for (p, (probe, slots)) in model.probes.iter().zip(bufs).enumerate() {
        for (slot, values) in slots.iter().enumerate() {
            if let Some(i) = values.iter().position(|&v| bad(v)) {
                let n = (n0..end)
                    .filter(|&n| probe_due(probe.every, n))
                    .nth(i)
                    .unwrap_or(end - 1);
                if first.is_none_or(|f| n < f.0) {
                    first = Some((n, p, slot, values[i]));
                }
            }
        }
    }
    let (n, p, slot, v) = first?;
    let probe = &model.probes[p];
    let s = &probe.samples[slot];
    Some(Instability::new(
        model,
        n + 1,
        s.component,
        s.flat,
        v,
        format!("probe `{}`", probe.name),
    ))
}

/// The first bad component of a field scan.
fn check_scan(model: &Model, step: usize, scans: &[FieldScan; 6], found_by: &str) -> Option<Instability> {
    for c in Component::ALL {
        if let Some((i, v)) = scans[c.index()].non_finite {
            return Some(Instability::new(model, step, c, i, v, found_by.into()));
        }
    }
    for c in Component::ALL {
        let s = scans[c.index()];
        if s.max_abs > RUNAWAY {
            return Some(Instability::new(model, step, c, s.max_at, s.max_abs, found_by.into()));
        }
    }
    None
}

// ---------------------------------------------------------------------------
// The run loop
// ---------------------------------------------------------------------------

struct Checkpointing<'o> {
    opts: &'o CheckpointOptions,
    last_time: Instant,
    last_step: usize,
    /// Step of the last checkpoint this run wrote.
    written: Option<usize>,
    disabled: bool,
}

impl Checkpointing<'_> {
    fn due(&self, step: usize) -> bool {
        if self.disabled || step == self.last_step {
            return false;
        }
        let by_steps = self.opts.interval.steps.is_some_and(|k| step.is_multiple_of(k));
        let by_time = self.opts.interval.time.is_some_and(|t| self.last_time.elapsed() >= t);
        by_steps || by_time
    }
}

fn emit(opts: &RunOptions, e: RunEvent) {
    if let Some(cb) = &opts.events {
        cb(&e);
    }
}

/// Save the backend's state at `step` to the checkpoint (the sink holds every sample up
/// to `step`). A write failure is reported and the run goes on; a state that cannot be
/// read is a backend failure; a state with a non-finite value is an instability.
fn write_checkpoint(
    model: &Simulation,
    backend: &mut dyn Backend,
    sink: &mut dyn Sink,
    ck: &mut Checkpointing,
    step: usize,
    opts: &RunOptions,
) -> Result<(), RunError> {
    let t = Instant::now();
    let state = match backend.save_state() {
        Ok(s) => s,
        Err(BackendError::Unsupported(reason)) => {
            ck.disabled = true;
            emit(opts, RunEvent::CheckpointsUnsupported { reason });
            return Ok(());
        }
        Err(error) => {
            return Err(RunError::Backend {
                step,
                error,
                saved: None,
            })
        }
    };
    let scans: [FieldScan; 6] = std::array::from_fn(|c| FieldScan::of(&state.arrays[c].data));
    if let Some(bad) = check_scan(model, step, &scans, "check before writing a checkpoint") {
        return Err(RunError::Unstable(Box::new(bad)));
    }
    sink.sync()?;
    let header = Header::new(model, ck.opts.fingerprint, ck.opts.run_id, step);
    ck.last_time = Instant::now();
    ck.last_step = step;
    match checkpoint::write(&ck.opts.path, &header, &state) {
        Ok(bytes) => {
            ck.written = Some(step);
            emit(
                opts,
                RunEvent::CheckpointWritten {
                    step,
                    path: ck.opts.path.clone(),
                    bytes,
                    seconds: t.elapsed().as_secs_f64(),
                },
            );
        }
        Err(e) => emit(
            opts,
            RunEvent::CheckpointFailed {
                step,
                message: e.to_string(),
            },
        ),
    }
    Ok(())
}

/// Cell updates per second (millions) for `steps` steps in `stepping`.
fn mcells_since(model: &Model, steps: usize, stepping: Duration) -> f64 {
    model.grid.cells() as f64 * steps as f64 / stepping.as_secs_f64().max(1e-12) / 1e6
}

/// Run `model` to its last step (or until stopped), from step `opts.start`.
pub fn run(
    model: &Simulation,
    backend: &mut dyn Backend,
    sink: &mut dyn Sink,
    opts: &RunOptions,
    progress: Option<Progress>,
) -> Result<RunSummary, RunError> {
    let start = Instant::now();
    let steps = model.grid.steps;
    let dt = model.grid.dt;
    let first_step = opts.start.min(steps);
    let mut stepping = Duration::ZERO;
    let mut n0 = first_step;
    let mut progress = progress;
    let mut outcome = Outcome::Finished;
    let mut ck = opts.checkpoint.as_ref().map(|c| Checkpointing {
        opts: c,
        last_time: Instant::now(),
        // A resumed run's state is in its checkpoint already; a fresh run has none, so a
        // stop before its first chunk end writes one of step 0 (the run stays resumable).
        last_step: if opts.start > 0 { first_step } else { usize::MAX },
        written: None,
        disabled: false,
    });
    // Field scans: at least `scan_every` steps apart, and at most ~2 % of the stepping time.
    let mut scan_step = first_step;
    let mut scan_cost = Duration::ZERO;
    let mut stepping_at_scan = Duration::ZERO;
    // The end criterion: the energy's running peak and the earliest step it may stop at.
    let decay = model.decay_db.filter(|db| *db > 0.0);
    let mut energy_peak = opts.energy_peak;
    let mut energy_db = None;
    // The ports' signal power: its peak, and its largest value since the last scan.
    let mut port_peak = opts.port_peak;
    let mut port_recent = opts.port_recent;
    let mut end_reason = EndReason::MaxSteps;
    let sources_end = model
        .sources
        .iter()
        .map(|s| waveform_end(&s.waveform))
        .fold(0.0, f64::max);
    // The criterion is evaluated at multiples of its scan interval, from the sources' end.
    let settle = decay.map_or(steps, |_| {
        let every = decay_scan_interval(model);
        let first = (sources_end / dt).ceil().min(steps as f64) as usize;
        first.div_ceil(every) * every
    });
    let mut trend = DecayTrend::new(settle);
    // Not evaluated yet: a NaN level.
    let mut decay_info = decay.map(|db| DecayProgress {
        level_db: f64::NAN,
        target_db: db,
        eta_step: None,
    });
    if opts.decayed_at_start && first_step > 0 {
        end_reason = EndReason::Decayed(first_step);
    }
    while n0 < steps && end_reason == EndReason::MaxSteps {
        if opts.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
            outcome = Outcome::Interrupted;
            if let Some(ck) = ck.as_mut() {
                if !ck.disabled && n0 != ck.last_step {
                    write_checkpoint(model, backend, sink, ck, n0, opts)?;
                }
            }
            break;
        }
        // End the chunk at the next snapshot step (inclusive), the next checkpoint step,
        // or after `chunk` steps.
        let mut end = n0.saturating_add(opts.chunk.max(1)).min(steps);
        let every_k = ck.as_ref().and_then(|c| c.opts.interval.steps);
        // The end criterion's scans fall on multiples of its interval (the same steps
        // in a resumed run).
        let every_decay = decay.map(|_| decay_scan_interval(model));
        let periods = model
            .snapshots
            .iter()
            .map(|s| s.every)
            .chain(every_k)
            .chain(every_decay);
        for every in periods {
            let next = (n0 / every + 1) * every; // first n+1 > n0 divisible by every
            if next <= end {
                end = next;
            }
        }
        if let Some(f) = opts.fault {
            if (n0..end).contains(&f.at_step) {
                assert!(!f.panic, "simulated panic at step {} ({})", f.at_step, Fault::ENV);
                let error =
                    BackendError::DeviceLost(format!("simulated device loss at step {} ({})", f.at_step, Fault::ENV));
                let mut saved = None;
                if !f.state_lost {
                    // The backend has not been touched since the last chunk end: its state
                    // is the last good one, consistent with the sink.
                    if let Some(ck) = ck.as_mut() {
                        if !ck.disabled {
                            if n0 != ck.last_step {
                                write_checkpoint(model, backend, sink, ck, n0, opts)?;
                            }
                            saved = ck.written.filter(|&w| w == n0);
                        }
                    }
                }
                return Err(RunError::Backend { step: n0, error, saved });
            }
        }
        let count = end - n0;
        let src = model.source_values(n0, count);
        let t = Instant::now();
        let fail = |error| RunError::Backend {
            step: n0,
            error,
            saved: None,
        };
        backend.step(n0, count, &src).map_err(fail)?;
        // Probes and ports go to the sink; other passes' streams have no dataset yet.
        let mut outputs = backend.drain_outputs().map_err(fail)?;
        let port_streams = take_pass_streams(model, &mut outputs, "ports");
        let bufs = probe_buffers(model, outputs);
        stepping += t.elapsed();
        let vi = port_series(model, &port_streams, count);
        for (p, (v, i)) in vi.iter().enumerate() {
            sink.port(p, n0, v, i)?;
        }
        if decay.is_some() {
            for k in 0..count {
                let pw = port_power(model, &vi, k);
                port_peak = port_peak.max(pw);
                port_recent = port_recent.max(pw);
            }
        }
        for (p, (probe, slots)) in model.probes.iter().zip(&bufs).enumerate() {
            for (slot, (sample, values)) in probe.samples.iter().zip(slots).enumerate() {
                let times: Vec<f64> = (n0..end)
                    .filter(|&n| probe_due(probe.every, n))
                    .map(|n| sample_time(sample.component, n, dt))
                    .collect();
                debug_assert_eq!(times.len(), values.len());
                sink.probe(p, slot, &times, values)?;
            }
        }
        let last = end - 1;
        for (si, s) in model.snapshots.iter().enumerate() {
            if probe_due(s.every, last) {
                for &c in &s.components {
                    let (lo, hi) = s.component_box(c, &model.grid);
                    let data = backend.read_region(c, lo, hi).map_err(fail)?;
                    sink.snapshot(si, c, sample_time(c, last, dt), &data)?;
                }
            }
        }
        sink.flush(end)?;
        if let Some(bad) = check_probes(model, n0, end, &bufs) {
            return Err(RunError::Unstable(Box::new(bad)));
        }
        n0 = end;
        let decay_due = decay.is_some() && n0.is_multiple_of(decay_scan_interval(model));
        let regular =
            opts.scan_every > 0 && n0 - scan_step >= opts.scan_every && stepping - stepping_at_scan >= scan_cost * 50;
        if decay_due || regular {
            let t = Instant::now();
            let scans = backend.scan_fields().map_err(|error| RunError::Backend {
                step: n0,
                error,
                saved: None,
            })?;
            scan_cost = t.elapsed();
            scan_step = n0;
            stepping_at_scan = stepping;
            if let Some(bad) = check_scan(model, n0, &scans, "field scan") {
                return Err(RunError::Unstable(Box::new(bad)));
            }
            // Only at the criterion's own steps (a regular scan's timing depends on the
            // wall clock, and a resumed run must check at the same steps).
            if let Some(db) = decay.filter(|_| decay_due) {
                let energy = scan_energy(model, &scans);
                energy_peak = energy_peak.max(energy);
                sink.energy(n0, energy)?;
                if energy_peak > 0.0 {
                    let level = 10.0 * (energy.max(f64::MIN_POSITIVE) / energy_peak).log10();
                    energy_db = Some(level);
                    let ports_level = if model.ports.is_empty() || port_peak <= 0.0 {
                        f64::NEG_INFINITY
                    } else {
                        10.0 * (port_recent.max(f64::MIN_POSITIVE) / port_peak).log10()
                    };
                    port_recent = 0.0;
                    let settled = n0 as f64 * dt >= sources_end;
                    let shown = level.max(ports_level);
                    trend.push(n0, shown);
                    decay_info = Some(DecayProgress {
                        level_db: shown,
                        target_db: db,
                        eta_step: trend.eta(db, steps),
                    });
                    if level <= -db && ports_level <= -db && settled && n0 < steps {
                        end_reason = EndReason::Decayed(n0);
                        if let Some(cb) = progress.as_mut() {
                            cb(&ProgressInfo {
                                step: n0,
                                total: steps,
                                mcells: mcells_since(model, n0 - first_step, stepping),
                                decay: decay_info,
                                drive: None,
                            });
                        }
                        break;
                    }
                }
            }
        }
        if let Some(ck) = ck.as_mut() {
            if n0 < steps && ck.due(n0) {
                write_checkpoint(model, backend, sink, ck, n0, opts)?;
            }
        }
        if let Some(cb) = progress.as_mut() {
            cb(&ProgressInfo {
                step: n0,
                total: steps,
                mcells: mcells_since(model, n0 - first_step, stepping),
                decay: decay_info,
                drive: None,
            });
        }
    }
    if outcome == Outcome::Interrupted {
        end_reason = EndReason::Stopped;
    }
    Ok(RunSummary {
        outcome,
        steps_done: n0,
        first_step,
        checkpoint: ck.and_then(|c| c.written),
        stepping,
        total: start.elapsed(),
        end: end_reason,
        energy_peak,
        energy_db,
    })
}

/// Write a checkpoint of the backend's state after `step` steps (the sink holding every
/// sample up to it) outside the run loop: after the last step, before the results are
/// computed and written, so that a failure there (memory, a full disk, a kill) loses no
/// stepping. Returns whether it was written (a write failure is reported as an event).
pub fn checkpoint_now(
    model: &Simulation,
    backend: &mut dyn Backend,
    sink: &mut dyn Sink,
    opts: &RunOptions,
    step: usize,
) -> Result<bool, RunError> {
    let Some(c) = opts.checkpoint.as_ref() else {
        return Ok(false);
    };
    let mut ck = Checkpointing {
        opts: c,
        last_time: Instant::now(),
        last_step: usize::MAX,
        written: None,
        disabled: false,
    };
    write_checkpoint(model, backend, sink, &mut ck, step, opts)?;
    Ok(ck.written == Some(step))
}

/// Load the newest usable checkpoint of `opts` into `backend` for a resumed run; returns
/// the checkpoint's step (for [`RunOptions::start`]) and notes (checkpoints skipped).
pub fn resume_state(
    model: &Simulation,
    backend: &mut dyn Backend,
    opts: &CheckpointOptions,
) -> Result<(usize, Vec<String>), ResumeError> {
    let expect = Header::new(model, opts.fingerprint, opts.run_id, 0);
    let (ck, notes) = checkpoint::find_latest(&opts.path, model, &expect)?;
    backend.load_state(&ck.state)?;
    Ok((ck.header.step as usize, notes))
}

/// Why a run cannot resume from its checkpoint.
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error("loading the checkpoint into the backend: {0}")]
    Backend(#[from] BackendError),
}

// ---------------------------------------------------------------------------
// A run's checkpoint files (what a session needs of [`crate::checkpoint`])
// ---------------------------------------------------------------------------

/// The fingerprint of a run of `model` from `scene` (see [`checkpoint::fingerprint`]).
pub fn fingerprint(scene: &crate::scene::Scene, model: &Simulation) -> u64 {
    checkpoint::fingerprint(scene, model)
}

/// Where the checkpoints of the run writing `output` go by default.
pub fn default_checkpoint_path(output: &std::path::Path) -> PathBuf {
    checkpoint::default_path(output)
}

/// Bytes of one checkpoint of `model`.
pub fn checkpoint_bytes(model: &Simulation) -> u64 {
    checkpoint::size(model)
}

/// The newest checkpoint file at `path` whose header reads: (file, step).
pub fn last_checkpoint(path: &std::path::Path) -> Option<(PathBuf, u64)> {
    checkpoint::files(path)
        .into_iter()
        .filter_map(|p| checkpoint::read_header(&p).ok().map(|h| (p, h.step)))
        .max_by_key(|(_, s)| *s)
}

/// Remove the files of the checkpoint at `path` that belong to `owner` (checked by their
/// headers); anything else is left alone and listed.
pub fn remove_checkpoints(path: &std::path::Path, owner: checkpoint::Owner) -> std::io::Result<checkpoint::Removal> {
    checkpoint::remove_owned(path, owner)
}

/// A sink that keeps everything in memory (tests, validation, benchmarks).
#[derive(Clone, Debug, Default)]
pub struct MemorySink {
    /// `[probe][slot]` → (times, values).
    pub probes: Vec<Vec<(Vec<f64>, Vec<f32>)>>,
    /// `[snapshot]` → frames of (component, time, data).
    pub snapshots: Vec<Vec<(Component, f64, Vec<f32>)>>,
    /// `[port]` → (V, I), one value per step from the run's first step.
    pub ports: Vec<(Vec<f64>, Vec<f64>)>,
    /// (step, field energy) at each scan of a run with an end criterion.
    pub energy: Vec<(usize, f64)>,
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
            ports: vec![(Vec::new(), Vec::new()); model.port_pairs()],
            energy: Vec::new(),
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
    fn port(&mut self, port: usize, _n0: usize, v: &[f64], i: &[f64]) -> Result<(), SinkError> {
        if let Some((pv, pi)) = self.ports.get_mut(port) {
            pv.extend_from_slice(v);
            pi.extend_from_slice(i);
        }
        Ok(())
    }
    fn energy(&mut self, step: usize, energy: f64) -> Result<(), SinkError> {
        self.energy.push((step, energy));
        Ok(())
    }
}

#[cfg(test)]
mod decay_trend_tests {
    use super::DecayTrend;

    #[test]
    fn an_exponential_decay_is_extrapolated_to_the_target_step() {
        // −0.01 dB per step from step 1000: −70 dB at step 8000.
        let mut t = DecayTrend::new(0);
        for n in (1000..=3000).step_by(250) {
            t.push(n, -0.01 * (n - 1000) as f64);
        }
        assert_eq!(t.eta(70.0, 100_000), Some(8000));
        // Clamped to the run's last step.
        assert_eq!(t.eta(70.0, 5000), Some(5000));
        // Never before the sources end.
        let mut t = DecayTrend::new(9000);
        for n in (1000..=3000).step_by(250) {
            t.push(n, -0.01 * (n - 1000) as f64);
        }
        assert_eq!(t.eta(70.0, 100_000), Some(9000));
    }

    #[test]
    fn no_eta_while_the_level_does_not_fall() {
        let mut t = DecayTrend::new(0);
        for n in [500, 600, 700] {
            t.push(n, -5.0 + 0.001 * n as f64);
        }
        assert_eq!(t.eta(70.0, 10_000), None, "a rising level has no ETA");
        let mut t = DecayTrend::new(0);
        t.push(500, -10.0);
        t.push(600, f64::NAN);
        t.push(600, -20.0);
        assert_eq!(t.eta(70.0, 10_000), None, "two points are not a trend");
        t.push(700, -75.0);
        assert_eq!(t.eta(70.0, 10_000), Some(700), "already below the target");
        let mut t = DecayTrend::new(800);
        t.push(700, -75.0);
        assert_eq!(
            t.eta(70.0, 10_000),
            Some(800),
            "below the target, waiting for the sources"
        );
    }
}

//! The analytic validation cases, each a function that runs on a given backend and
//! returns what it measured against what theory allows.
//!
//! A case builds its scenes in code (no file is read: the `fdtd validate` binary runs them
//! anywhere), runs them on the backend a [`BackendSpec`] names through the same path as a
//! user's run (scene text → `Scene` → `Model` → backend → `runner::run`), and compares the
//! probes with an independent result. Its [`CaseResult`] holds one [`Check`] per bound
//! (what is measured, the bound, the measured value, pass/fail), the speed of its runs
//! (Mcells/s), the probe series it compared (so two backends can be held to each other
//! with [`parity`]) and the lines it would print.
//!
//! `cargo test` instantiates every case on every backend (`tests/*.rs`, through
//! [`backend_tests!`](crate::backend_tests)); `fdtd validate` runs the same functions from
//! [`ALL`].
use fdtd_core::backend::{self as core_backend, Backend, BackendChoice, BackendError, BackendOptions, Engine};
use fdtd_core::model::Model;
use fdtd_core::runner::{run, MemorySink, RunError, RunOptions};
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

pub mod antenna;
pub mod cavity;
pub mod cpml;
pub mod dipole;
pub mod dispersive;
pub mod energy;
pub mod fresnel;
pub mod images;
pub mod lines;
pub mod lossy;
pub mod monitors;
pub mod ports;
pub mod scattering;
pub mod sources;
pub mod subpixel;
pub mod tfsf;
pub mod wire_radius;

/// Every engine this build has, CPU first (the facade's `fdtd::backend::engines`,
/// without depending on the facade).
pub fn engines() -> [&'static dyn Engine; 2] {
    [&fdtd_cpu::CpuEngine, &fdtd_gpu::GpuEngine]
}

/// The backend a case runs on.
#[derive(Clone, Debug)]
pub struct BackendSpec {
    pub choice: BackendChoice,
    pub opts: BackendOptions,
}

impl BackendSpec {
    pub fn new(choice: BackendChoice, opts: BackendOptions) -> BackendSpec {
        BackendSpec { choice, opts }
    }

    /// The CPU backend on every core.
    pub fn cpu() -> BackendSpec {
        BackendSpec::new(BackendChoice::Cpu, BackendOptions::default())
    }

    /// The GPU backend on the default adapter (a software one, lavapipe, included).
    pub fn gpu() -> BackendSpec {
        BackendSpec::new(BackendChoice::Gpu, BackendOptions::default())
    }

    /// `cpu`, `gpu` or `auto`.
    pub fn name(&self) -> &'static str {
        match self.choice {
            BackendChoice::Cpu => "cpu",
            BackendChoice::Gpu => "gpu",
            BackendChoice::Auto => "auto",
        }
    }

    /// Build the backend for `model`.
    pub fn create(&self, model: Arc<fdtd_core::Simulation>) -> Result<(Box<dyn Backend>, String), CaseError> {
        core_backend::create(&engines(), model, self.choice, &self.opts).map_err(CaseError::from)
    }
}

/// How large a case's runs are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// The size `cargo test` holds the CPU to (and the GPU, where lavapipe can afford it).
    Full,
    /// Smaller grids or shorter records, each case's bounds argued for that size in the
    /// case's documentation: `fdtd validate --quick`, and the GPU instance of the cases
    /// too slow for a software GPU at full size.
    Quick,
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Size::Full => "full",
            Size::Quick => "quick",
        })
    }
}

/// A bound on a measured value. A NaN never satisfies one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// `x < b`
    Below(f64),
    /// `x ≤ b`
    AtMost(f64),
    /// `x > b`
    Above(f64),
    /// `lo ≤ x < hi`
    Within(f64, f64),
}

impl Bound {
    pub fn holds(self, x: f64) -> bool {
        match self {
            Bound::Below(b) => x < b,
            Bound::AtMost(b) => x <= b,
            Bound::Above(b) => x > b,
            Bound::Within(lo, hi) => (lo..hi).contains(&x),
        }
    }

    /// The bound as text, values formatted with `unit`.
    pub fn show(self, unit: &str) -> String {
        match self {
            Bound::Below(b) => format!("< {}", value(b, unit)),
            Bound::AtMost(b) => format!("≤ {}", value(b, unit)),
            Bound::Above(b) => format!("> {}", value(b, unit)),
            Bound::Within(lo, hi) => format!("[{}, {})", value(lo, unit), value(hi, unit)),
        }
    }
}

/// A number for the table: one decimal for dB, none for whole numbers, three between 0.1 and
/// 1000 in magnitude, scientific otherwise; `unit` appended.
pub fn value(x: f64, unit: &str) -> String {
    let s = if unit == "dB" {
        format!("{x:.1}")
    } else if x.fract() == 0.0 && x.abs() < 1000.0 {
        format!("{x:.0}")
    } else if (0.1..1000.0).contains(&x.abs()) {
        format!("{x:.3}")
    } else {
        format!("{x:.2e}")
    };
    if unit.is_empty() {
        s
    } else {
        format!("{s} {unit}")
    }
}

/// One measured quantity against its bound.
#[derive(Clone, Debug)]
pub struct Check {
    /// What is measured (the worst of several items where `worst` says which).
    pub what: String,
    pub bound: Bound,
    pub measured: f64,
    /// The unit of `measured` and of the bound ("" for a ratio, "dB").
    pub unit: &'static str,
    /// Which item gave `measured` when the check is the worst of several ("" if one).
    pub worst: String,
}

impl Check {
    pub fn pass(&self) -> bool {
        self.bound.holds(self.measured)
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} (bound {}){}{}",
            self.what,
            value(self.measured, self.unit),
            self.bound.show(self.unit),
            if self.worst.is_empty() { "" } else { ", worst: " },
            self.worst
        )
    }
}

/// A series a case compared, kept so that two backends can be held to each other.
#[derive(Clone, Debug)]
pub struct Series {
    /// `run/probe/component` (or what else it is).
    pub name: String,
    /// Series of one group share a scale (one run's E or H probes): see [`parity`].
    pub group: String,
    pub values: Vec<f64>,
}

/// What a case measured on one backend.
#[derive(Clone, Debug)]
pub struct CaseResult {
    pub case: &'static str,
    /// `cpu`, `gpu` or `auto`.
    pub backend: &'static str,
    /// The backend's own description (device, threads), from its last run.
    pub device: String,
    pub size: Size,
    pub checks: Vec<Check>,
    /// Cell updates (cells × steps) over every run of the case, and the seconds spent
    /// stepping them.
    pub cell_updates: f64,
    pub stepping_s: f64,
    /// Wall time of the whole case (runs and analysis).
    pub wall_s: f64,
    pub series: Vec<Series>,
    /// What the case found, line by line (printed by the tests).
    pub log: Vec<String>,
}

impl CaseResult {
    pub fn pass(&self) -> bool {
        self.checks.iter().all(Check::pass)
    }

    pub fn failures(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| !c.pass())
    }

    /// Cell updates per second over the stepping time, in millions.
    pub fn mcells_per_s(&self) -> f64 {
        self.cell_updates / self.stepping_s.max(1e-12) / 1e6
    }
}

/// Why a case could not produce a result.
#[derive(Clone, Debug)]
pub enum CaseError {
    /// No usable device for the backend (no GPU adapter).
    NoDevice(String),
    /// The backend or the run failed (an error, a numerical instability).
    Failed(String),
}

impl fmt::Display for CaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaseError::NoDevice(why) => write!(f, "no usable GPU: {why}"),
            CaseError::Failed(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for CaseError {}

impl From<BackendError> for CaseError {
    fn from(e: BackendError) -> CaseError {
        match e {
            BackendError::NoDevice(why) => CaseError::NoDevice(why),
            e => CaseError::Failed(e.to_string()),
        }
    }
}

impl From<RunError> for CaseError {
    fn from(e: RunError) -> CaseError {
        match e {
            RunError::Backend { error, .. } => error.into(),
            e => CaseError::Failed(e.to_string()),
        }
    }
}

/// A case: its name and the function that runs it.
#[derive(Clone, Copy)]
pub struct Case {
    /// Short name, as the table shows it (`cavity-pec`).
    pub name: &'static str,
    /// One line: what is compared with what.
    pub about: &'static str,
    pub run: fn(&BackendSpec, Size) -> Result<CaseResult, CaseError>,
}

/// Every analytic case, in the order `fdtd validate` runs them.
pub const ALL: &[Case] = &[
    antenna::HERTZ,
    antenna::HALF_WAVE,
    wire_radius::CASE,
    images::MONOPOLE,
    images::HALF_MODEL,
    images::POLARIZATION,
    cavity::PEC,
    cavity::PMC,
    dipole::CASE,
    cpml::REFLECTION,
    cpml::THIN,
    energy::CASE,
    fresnel::CASE,
    lossy::CASE,
    dispersive::DEBYE,
    dispersive::LORENTZ,
    dispersive::WATER,
    dispersive::DRUDE,
    monitors::SIGNAL,
    monitors::FLUX,
    ports::MATCHED,
    ports::TWO_PORT,
    ports::RECIPROCITY,
    ports::LC,
    ports::DIPOLE,
    lines::MICROSTRIP,
    lines::COAX,
    lines::WR90,
    lines::IRIS,
    sources::CURRENT_SHEET,
    sources::HARD,
    tfsf::AXIS,
    tfsf::OBLIQUE,
    scattering::ENERGY,
    scattering::UNIT_CELL,
    scattering::MIE,
    scattering::RCS_PEC,
    subpixel::CONVERGENCE,
];

/// Parse scene text into a model (the scenes are built in code: a failure is a bug).
pub(crate) fn model(text: &str) -> Arc<fdtd_core::Simulation> {
    Arc::new(fdtd_core::Simulation::standard(
        Model::discretize(&crate::scene(text)).unwrap_or_else(|e| panic!("{e}")),
    ))
}

/// A case being run: runs scenes on its backend and collects the result.
pub(crate) struct Ctx<'a> {
    spec: &'a BackendSpec,
    res: CaseResult,
    start: Instant,
}

impl<'a> Ctx<'a> {
    pub fn new(case: &'static str, spec: &'a BackendSpec, size: Size) -> Ctx<'a> {
        Ctx {
            spec,
            res: CaseResult {
                case,
                backend: spec.name(),
                device: String::new(),
                size,
                checks: Vec::new(),
                cell_updates: 0.0,
                stepping_s: 0.0,
                wall_s: 0.0,
                series: Vec::new(),
                log: Vec::new(),
            },
            start: Instant::now(),
        }
    }

    /// Build this case's backend for `model` (for cases that step it themselves; they
    /// report their stepping with [`Ctx::stepped`]).
    pub fn backend(&mut self, model: &Arc<fdtd_core::Simulation>) -> Result<Box<dyn Backend>, CaseError> {
        let (b, d) = self.spec.create(model.clone())?;
        self.res.device = d;
        Ok(b)
    }

    /// Record `steps` steps of `model` that took `seconds`.
    pub fn stepped(&mut self, model: &Model, steps: usize, seconds: f64) {
        self.res.cell_updates += model.grid.cells() as f64 * steps as f64;
        self.res.stepping_s += seconds;
    }

    /// Discretise and run a scene, keeping every probe sample; the probe series are
    /// recorded under `label`.
    pub fn run(&mut self, label: &str, text: &str) -> Result<(Arc<fdtd_core::Simulation>, MemorySink), CaseError> {
        self.run_model(label, model(text))
    }

    /// [`Ctx::run`] of a model built in code.
    pub fn run_model(
        &mut self,
        label: &str,
        model: Arc<fdtd_core::Simulation>,
    ) -> Result<(Arc<fdtd_core::Simulation>, MemorySink), CaseError> {
        let mut backend = self.backend(&model)?;
        let mut sink = MemorySink::new(&model);
        let summary = run(&model, backend.as_mut(), &mut sink, &RunOptions::default(), None)?;
        self.stepped(
            &model,
            summary.steps_done - summary.first_step,
            summary.stepping.as_secs_f64(),
        );
        for (p, probe) in model.probes.iter().enumerate() {
            for (s, sample) in probe.samples.iter().enumerate() {
                let c = sample.component;
                self.res.series.push(Series {
                    name: format!("{label}/{}/{c}", probe.name),
                    group: format!("{label}/{}", if c.is_electric() { "E" } else { "H" }),
                    values: sink.probes[p][s].1.iter().map(|&v| v as f64).collect(),
                });
            }
        }
        Ok((model, sink))
    }

    /// Keep a series that is not a probe's (it is compared across backends as is).
    pub fn series(&mut self, name: &str, values: Vec<f64>) {
        self.res.series.push(Series {
            name: name.into(),
            group: name.into(),
            values,
        });
    }

    pub fn log(&mut self, line: impl Into<String>) {
        self.res.log.push(line.into());
    }

    /// A measured value against its bound.
    pub fn check(&mut self, what: impl Into<String>, bound: Bound, measured: f64, unit: &'static str) {
        self.check_worst(what, bound, measured, unit, "");
    }

    /// The worst of several items against their common bound, naming the item.
    pub fn check_worst(
        &mut self,
        what: impl Into<String>,
        bound: Bound,
        measured: f64,
        unit: &'static str,
        worst: impl Into<String>,
    ) {
        self.res.checks.push(Check {
            what: what.into(),
            bound,
            measured,
            unit,
            worst: worst.into(),
        });
    }

    pub fn finish(mut self) -> CaseResult {
        self.res.wall_s = self.start.elapsed().as_secs_f64();
        self.res
    }
}

/// The worst of several `(item, value)` against an upper bound: the largest (a NaN
/// counts as +∞, which fails every upper bound).
pub(crate) fn largest(items: impl IntoIterator<Item = (String, f64)>) -> (String, f64) {
    let mut worst = (String::new(), f64::NEG_INFINITY);
    for (what, x) in items {
        let x = if x.is_nan() { f64::INFINITY } else { x };
        if x >= worst.1 {
            worst = (what, x);
        }
    }
    worst
}

/// The worst of several `(item, value)` against a lower bound: the smallest (a NaN
/// counts as −∞, which fails every lower bound).
pub(crate) fn smallest(items: impl IntoIterator<Item = (String, f64)>) -> (String, f64) {
    let (what, x) = largest(items.into_iter().map(|(w, x)| (w, if x.is_nan() { x } else { -x })));
    (what, -x)
}

/// How far two backends' runs of one case are apart.
#[derive(Clone, Debug)]
pub struct Parity {
    pub case: &'static str,
    /// The largest relative difference over every series, and which series.
    pub worst: f64,
    pub series: String,
    /// Series compared.
    pub count: usize,
    pub tolerance: f64,
    /// Why the runs cannot be compared (different sizes or series), if so.
    pub mismatch: Option<String>,
}

impl Parity {
    pub fn pass(&self) -> bool {
        self.mismatch.is_none() && self.worst <= self.tolerance
    }
}

/// Bound on the difference of two backends' series, relative to the field's scale in the
/// run: `validation/tests/gpu_parity.rs` argues it (both backends evaluate the same f32
/// expressions in the same order; a GPU compiler may contract `a*b + c` into one FMA, ~1
/// ulp per contraction, adding up like a random walk; measured at most 1.2e-4 on an
/// NVIDIA H200, bit-exact on lavapipe; any real discrepancy gives 1e-2 to 1).
pub const PARITY_TOLERANCE: f64 = 5e-4;

/// Hold two runs of one case (say CPU and GPU) to each other: every recorded series, as
/// gpu_parity does, by its L2 difference over its own L2 norm or over 1 % of the largest
/// norm in its group (one run's E or H probes), whichever is larger. A series that is
/// nearly zero (a component that vanishes by symmetry) holds only rounding noise, which
/// its own norm would magnify.
pub fn parity(a: &CaseResult, b: &CaseResult) -> Parity {
    let mut p = Parity {
        case: a.case,
        worst: 0.0,
        series: "-".into(),
        count: 0,
        tolerance: PARITY_TOLERANCE,
        mismatch: None,
    };
    let names = |r: &CaseResult| {
        r.series
            .iter()
            .map(|s| (s.name.clone(), s.values.len()))
            .collect::<Vec<_>>()
    };
    if a.case != b.case || a.size != b.size || names(a) != names(b) {
        p.mismatch = Some(format!(
            "{} ({}) and {} ({}) recorded different series",
            a.backend, a.size, b.backend, b.size
        ));
        return p;
    }
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    let mut scale = std::collections::HashMap::<&str, f64>::new();
    for s in &a.series {
        let e = scale.entry(&s.group).or_default();
        *e = e.max(norm(&s.values));
    }
    for (sa, sb) in a.series.iter().zip(&b.series) {
        let diff = sa
            .values
            .iter()
            .zip(&sb.values)
            .map(|(x, y)| (x - y).powi(2))
            .sum::<f64>()
            .sqrt();
        let yard = norm(&sa.values).max(0.01 * scale[sa.group.as_str()]);
        let e = if yard > 0.0 { diff / yard } else { diff };
        // NaN compares false: make it the worst.
        if e.is_nan() || e >= p.worst {
            p.worst = if e.is_nan() { f64::INFINITY } else { e };
            p.series = sa.name.clone();
        }
        p.count += 1;
    }
    p
}

/// The GPU the GPU backend would use with `opts`, planned for a tiny model (nothing is
/// allocated): its short description and whether it is a software adapter (lavapipe,
/// WARP: correct but far slower than the CPU backend). `Err`: why there is none.
pub fn probe_gpu(opts: &BackendOptions) -> Result<core_backend::Target, CaseError> {
    let scene = fdtd_core::workload::bench_scene(8, 2, 1, false);
    let model = Model::discretize(&scene).map_err(|e| CaseError::Failed(e.to_string()))?;
    fdtd_gpu::GpuEngine
        .plan(&fdtd_core::Simulation::standard(model), opts)
        .map_err(CaseError::from)
}

//! The `fdtd` command line: `run`, `check`, `info`, `plot`, `bench`, `devices`, `validate`, `sweep`.

/// `println!` for reports: a closed stdout does not stop the command ([`out`]).
macro_rules! outln {
    () => { $crate::cli::out::line(format_args!("")) };
    ($($t:tt)*) => { $crate::cli::out::line(format_args!($($t)*)) };
}
/// `print!` for reports ([`out`]).
macro_rules! out {
    ($($t:tt)*) => { $crate::cli::out::text(format_args!($($t)*)) };
}
/// `eprintln!` that a closed stderr does not turn into a panic ([`out`]).
macro_rules! errln {
    () => { $crate::cli::out::err_line(format_args!("")) };
    ($($t:tt)*) => { $crate::cli::out::err_line(format_args!($($t)*)) };
}

mod check;
mod info;
mod isolate;
mod out;
mod plot;
mod run;
mod summary;
mod sweep;
mod validate;

use clap::{Args, Parser, Subcommand, ValueEnum};
use fdtd::backend::{Auto, BackendChoice, BackendError, BackendOptions, NoGpu};
use fdtd::fmt::thousands;
use fdtd::runner::RunError;
use fdtd::scene::SceneError;
use fdtd::session::{ErrorKind, OutputErrorKind, ResumeAdvice, ResumeRefusal, RunFailure, SessionError};
use std::path::PathBuf;

/// Process exit codes (also listed in `fdtd --help`).
pub mod exit {
    /// Success.
    pub const OK: i32 = 0;
    /// Bad input: scene errors, command-line usage errors, an output file that exists.
    pub const BAD_INPUT: i32 = 2;
    /// Runtime failure: backend or output error.
    pub const RUNTIME: i32 = 3;
    /// The memory plan does not fit the device, or the output does not fit the disk.
    pub const DOES_NOT_FIT: i32 = 4;
    /// Interrupted (Ctrl-C / SIGTERM); the output file is closed with status "interrupted"
    /// and a checkpoint is written (resume with `--resume`).
    pub const INTERRUPTED: i32 = 130;
    /// An internal error (a bug in fdtd, Rust's panic code); open output files are
    /// closed with status "failed" and the message.
    pub const INTERNAL: i32 = 101;
}

/// On a panic (a bug): print it as usual, then mark every open output file `failed` with
/// the panic's message, flush it and exit with [`exit::INTERNAL`]. Nothing the run wrote
/// before is lost, and the file says why it stopped instead of `running`.
pub fn install_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default(info);
        let message = format!("internal error (a bug in fdtd {}): {info}", env!("CARGO_PKG_VERSION"));
        errln!(
            "error: fdtd stopped on an internal error; open output files are closed with status \"failed\" \
             and this message. Please report it with the scene and the command line."
        );
        fdtd::output::close_all_failed_then(&message, || std::process::exit(exit::INTERNAL))
    }));
}

const LONG_ABOUT: &str = "\
Portable FDTD electromagnetic simulator: one TOML scene in, one HDF5 file out, \
on the CPU (rayon) or a GPU (wgpu).

Exit codes:
  0    success
  2    bad input: scene error (reported as file:line:column), usage error,
       output file exists (use --force)
  3    runtime failure: backend or output error (e.g. --backend gpu without a GPU,
       a lost GPU, a numerical instability); the last checkpoint is kept;
       `fdtd validate`: a case failed its bound
  4    does not fit: the memory plan exceeds the available memory, or the
       planned output exceeds the free disk space, or the disk filled during the
       run (the output is closed readable, status \"failed\": free space, --resume)
  130  interrupted (Ctrl-C or SIGTERM); a checkpoint is written and the output
       file is closed with status \"interrupted\": continue with --resume
  101  internal error (a bug); open output files are closed with status
       \"failed\" and the message";

const VALIDATE_ABOUT: &str = "\
Run the analytic validation suite: every case compares a run of the solver with theory \
(cavity resonances against the Yee dispersion relation and the continuum formula, modes that \
PMC walls admit, a Hertzian dipole's exact field, CPML reflection, discrete energy \
conservation, Fresnel coefficients, attenuation in a lossy dielectric, source normalisation) \
and states its bound. The scenes are built in; nothing is read from disk.

Prints one row per check: case, backend, what is measured, bound, measured value, pass/FAIL, \
Mcells/s. With both backends, each case's series on the CPU and on the GPU are also held to \
each other (relative difference at most 5e-4).

Exit code 0 when every check passes, 3 when one fails (or --backend gpu finds no usable GPU).";

#[derive(Parser, Debug)]
#[command(name = "fdtd", version, about = "Portable FDTD electromagnetic simulator", long_about = LONG_ABOUT)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a scene and write its probes and snapshots to an HDF5 file.
    Run(RunArgs),
    /// Validate a scene and print its grid, materials, points and memory plan, without running it.
    Check(CheckArgs),
    /// Show what a result file holds: scene, grid, backend, run time, status, probes and
    /// snapshots with their headline figures.
    Info(InfoArgs),
    /// Draw figures: probe time series and spectra, snapshot slices and animations from a
    /// result file, or the discretised geometry of a scene (before running it).
    Plot(PlotArgs),
    /// Measure cell updates per second on vacuum cubes with a CPML.
    Bench(BenchArgs),
    /// List the GPUs the GPU backend can use.
    Devices,
    /// Run the analytic validation suite on the CPU and/or GPU: bound, measured value and
    /// speed of every check.
    #[command(long_about = VALIDATE_ABOUT)]
    Validate(ValidateArgs),
    /// Parameter sweeps over a base scene: plan, run here, submit to Slurm, status, collect
    /// (docs/sweeps.md).
    #[command(subcommand)]
    Sweep(sweep::SweepCommand),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// The CPU backend (rayon threads).
    Cpu,
    /// The GPU backend (wgpu); an error when no GPU is usable.
    Gpu,
    /// The GPU when a hardware one is usable and the plan fits, else the CPU.
    Auto,
}

impl BackendArg {
    pub fn choice(self) -> BackendChoice {
        match self {
            BackendArg::Cpu => BackendChoice::Cpu,
            BackendArg::Gpu => BackendChoice::Gpu,
            BackendArg::Auto => BackendChoice::Auto,
        }
    }
}

#[derive(Args, Debug, Clone)]
pub struct BackendArgs {
    /// Backend to run on.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,
    /// CPU threads (0 = every core; at most 4 per core).
    #[arg(long, default_value_t = 0, value_name = "N", value_parser = threads)]
    pub threads: usize,
    /// GPU adapter: an index from `fdtd devices` or a case-insensitive name substring
    /// (with `auto`, naming one also allows a software adapter).
    #[arg(long, value_name = "D")]
    pub device: Option<String>,
    /// Share of the GPU's memory budget the run may use, in (0, 1] (default 0.9).
    #[arg(long, value_name = "F", value_parser = fraction)]
    pub gpu_memory_fraction: Option<f64>,
}

impl BackendArgs {
    pub fn options(&self) -> BackendOptions {
        BackendOptions {
            threads: self.threads,
            device: self.device.clone(),
            gpu_memory_fraction: self.gpu_memory_fraction,
        }
    }
}

fn fraction(s: &str) -> Result<f64, String> {
    let f: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if f > 0.0 && f <= 1.0 {
        Ok(f)
    } else {
        Err(format!("{f} is not in (0, 1]"))
    }
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The scene file (TOML).
    pub scene: PathBuf,
    #[command(flatten)]
    pub backend: BackendArgs,
    /// Output file [default: <scene stem>.h5 in the current directory].
    #[arg(short, long, value_name = "OUT.h5")]
    pub output: Option<PathBuf>,
    /// Overwrite the output file if it exists.
    #[arg(long)]
    pub force: bool,
    /// No header and no progress bar: print only the final summary line.
    #[arg(short, long)]
    pub quiet: bool,
    /// Most time steps per chunk (the run stops, flushes and reports between chunks).
    #[arg(long, default_value_t = 64, value_name = "STEPS", value_parser = clap::value_parser!(u64).range(1..))]
    pub chunk: u64,
    /// Deflate level of the snapshot datasets (0 = uncompressed).
    #[arg(long, default_value_t = 4, value_name = "LEVEL", value_parser = clap::value_parser!(u8).range(0..=9))]
    pub compression: u8,
    /// Continue an interrupted or failed run from its newest valid checkpoint, appending
    /// to its output file (same scene, same -o; the backend may differ).
    #[arg(long, conflicts_with = "force")]
    pub resume: bool,
    /// Drive every port in turn and write the full S-matrix (as `[drive] ports = "each"`
    /// in the scene does): one run per port, in this process, the others matched loads.
    #[arg(long)]
    pub drive_each: bool,
    /// Write a checkpoint every N steps (`500`) or every T of wall time (`30s`, `10m`,
    /// `2h`) [default: the scene's [checkpoint], else 10m]. A checkpoint is also written
    /// when the run is stopped (Ctrl-C, SIGTERM).
    #[arg(long, value_name = "N|T", value_parser = checkpoint_interval, conflicts_with = "no_checkpoint")]
    pub checkpoint_every: Option<fdtd::checkpoint::Interval>,
    /// Write no checkpoints at all (a stopped run then cannot be resumed).
    #[arg(long)]
    pub no_checkpoint: bool,
    /// Write the checkpoint files in DIR instead of beside the output (named after the
    /// output file: OUT.h5.ckpt, .ckpt.prev); --resume needs the same DIR.
    #[arg(long, value_name = "DIR", conflicts_with = "no_checkpoint")]
    pub checkpoint_dir: Option<PathBuf>,
    /// Do not refuse a run whose planned output (uncompressed) exceeds the free disk space.
    #[arg(long)]
    pub skip_disk_check: bool,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The scene files (TOML); each is checked and reported in turn.
    #[arg(required = true)]
    pub scenes: Vec<PathBuf>,
    /// Print JSON (for scripts): one object per scene (an array for several), with the
    /// grid, snapped points, outputs, memory plan and warnings.
    #[arg(long)]
    pub json: bool,
    /// Also print the time step as the backends run it: every pass in order, with the
    /// index ranges it covers.
    #[arg(long)]
    pub schedule: bool,
    #[command(flatten)]
    pub backend: BackendArgs,
}

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// The result file (HDF5) of `fdtd run`.
    pub result: PathBuf,
    /// Print JSON (for scripts) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// What `fdtd plot` draws from a result file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlotWhat {
    /// Each probe's time series (one panel per component).
    Probes,
    /// Each probe's amplitude spectra in dB, with the sources' frequencies marked.
    Spectra,
    /// Each snapshot component as a colour map (the peak frame, or --frame), with the
    /// geometry, CPML, sources and probes drawn over it.
    Snapshots,
    /// Each snapshot component as an animated GIF over time, on one colour scale.
    Gif,
    /// Each port's |S| in dB with the −10 dB line, its input impedance and a Smith chart.
    Ports,
    /// Each far field's principal-plane cuts (polar, dBi) and θ–φ directivity map, per
    /// frequency.
    Farfield,
    /// Everything the file holds.
    All,
}

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// A result file (HDF5) of `fdtd run`, a scene (TOML): a scene is plotted as its
    /// discretised geometry, or a sweep directory: a radargram (B-scan) of each probe
    /// over the sweep's first parameter.
    pub input: PathBuf,
    /// What to draw from a result file (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "all")]
    pub what: Vec<PlotWhat>,
    /// Directory for the figures [default: <input stem>_plots].
    #[arg(short, long, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Plot the discretised geometry (of a result file's scene; implied for a scene).
    #[arg(long)]
    pub geometry: bool,
    /// Point (m) the geometry planes pass through [default: the first source, else the
    /// domain's centre].
    #[arg(long, value_delimiter = ',', num_args = 1, value_name = "X,Y,Z", value_parser = clap::value_parser!(f64))]
    pub at: Option<Vec<f64>>,
    /// Snapshot frame to draw: its number, or `peak` (the frame of largest |field|).
    #[arg(long, value_name = "N|peak")]
    pub frame: Option<String>,
    /// Highest frequency (Hz) of the spectra [default: 1.25 × the sources' highest
    /// significant frequency].
    #[arg(long, value_name = "HZ")]
    pub fmax: Option<f64>,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Cube edge lengths in cells, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "64,128,160", value_name = "N,N,...")]
    pub sizes: Vec<usize>,
    /// Time steps measured per size (after a warm-up).
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub steps: usize,
    /// CPML thickness in cells.
    #[arg(long, default_value_t = 10, value_name = "CELLS")]
    pub cpml: usize,
    /// Put a dielectric sphere in the cube, so mixed-material rows are measured too.
    #[arg(long)]
    pub dielectric: bool,
    /// Backend to measure.
    #[arg(long, value_enum, default_value_t = BackendArg::Cpu)]
    pub backend: BackendArg,
    /// CPU threads (0 = every core; at most 4 per core).
    #[arg(long, default_value_t = 0, value_name = "N", value_parser = threads)]
    pub threads: usize,
    /// GPU adapter: an index from `fdtd devices` or a case-insensitive name substring.
    #[arg(long, value_name = "D")]
    pub device: Option<String>,
}

/// Which backends `fdtd validate` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ValidateBackend {
    /// The CPU backend.
    Cpu,
    /// The GPU backend (any adapter, a software one included); exit code 3 when no GPU
    /// is usable.
    Gpu,
    /// The CPU, plus the GPU when a hardware one is usable (or one is named with
    /// --device), and the two held to each other.
    All,
}

#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// Backends to validate.
    #[arg(long, value_enum, default_value_t = ValidateBackend::All)]
    pub backend: ValidateBackend,
    /// GPU adapter: an index from `fdtd devices` or a case-insensitive name substring
    /// (with `all`, naming one also includes a software adapter).
    #[arg(long, value_name = "D")]
    pub device: Option<String>,
    /// Reduced sizes (well under a minute on a laptop CPU): smaller grids or 2D versions
    /// of the costly cases, each with its bound argued for that size.
    #[arg(long)]
    pub quick: bool,
    /// CPU threads (0 = every core; at most 4 per core).
    #[arg(long, default_value_t = 0, value_name = "N", value_parser = threads)]
    pub threads: usize,
}

/// A failure with its exit code; printed as `error: <message>`.
#[derive(Debug)]
pub struct CliError {
    pub code: i32,
    pub message: String,
}

impl CliError {
    pub fn new(code: i32, message: impl Into<String>) -> CliError {
        CliError {
            code,
            message: message.into(),
        }
    }
    pub fn bad_input(message: impl Into<String>) -> CliError {
        CliError::new(exit::BAD_INPUT, message)
    }
    pub fn runtime(message: impl Into<String>) -> CliError {
        CliError::new(exit::RUNTIME, message)
    }
    /// A backend error: "does not fit" and out-of-memory map to exit code 4.
    pub fn backend(e: &BackendError) -> CliError {
        let message = format!("{e}{}", backend_help(e));
        match e {
            BackendError::DoesNotFit(_) | BackendError::OutOfMemory(_) => CliError::new(exit::DOES_NOT_FIT, message),
            _ => CliError::runtime(message),
        }
    }
}

/// The options that answer a backend error (the library's messages name no flags).
fn backend_help(e: &BackendError) -> &'static str {
    match e {
        BackendError::DoesNotFit(_) | BackendError::OutOfMemory(_) => {
            "\n  help: --backend cpu runs on the CPU; --gpu-memory-fraction sets how much of the GPU's memory \
             a plan may use"
        }
        BackendError::NoDevice(_) => {
            "\n  help: --backend cpu runs on the CPU; `fdtd devices` lists the adapters, --device picks one"
        }
        BackendError::DeviceLost(_) | BackendError::Gpu(_) => "\n  help: --backend cpu runs on the CPU",
        BackendError::Unsupported(_) => "",
    }
}

/// `--checkpoint-every`: [`fdtd::checkpoint::Interval::parse`], pointing at
/// `--no-checkpoint` for 0.
/// `--threads`: 0 (every core) up to 4 per core this process may use. More is never
/// faster for a memory-bound stencil, and 100000 threads take minutes just to start.
fn threads(s: &str) -> Result<usize, String> {
    let n: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a thread count (a whole number; 0 = every core)"))?;
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    if n > 4 * cores {
        return Err(format!(
            "{n} threads is more than 4 per core: this machine lets fdtd use {cores} core(s); \
             0 uses every core"
        ));
    }
    Ok(n)
}

fn checkpoint_interval(s: &str) -> Result<fdtd::checkpoint::Interval, String> {
    fdtd::checkpoint::Interval::parse(s).map_err(|e| match s.trim().parse::<u64>() {
        Ok(0) => format!("{e}; --no-checkpoint turns checkpoints off"),
        _ => e,
    })
}

/// The exit code of a class of failure.
pub fn exit_code(k: ErrorKind) -> i32 {
    match k {
        ErrorKind::BadInput => exit::BAD_INPUT,
        ErrorKind::Runtime => exit::RUNTIME,
        ErrorKind::DoesNotFit => exit::DOES_NOT_FIT,
        ErrorKind::Interrupted => exit::INTERRUPTED,
    }
}

/// How to tell the user to resume a run: `fdtd run SCENE --resume [-o OUT]`.
pub struct ResumeCommand<'a> {
    pub scene: &'a std::path::Path,
    pub output: Option<&'a std::path::Path>,
    pub checkpoint_dir: Option<&'a std::path::Path>,
}

impl std::fmt::Display for ResumeCommand<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "fdtd run {} --resume", self.scene.display())?;
        if let Some(o) = self.output {
            write!(f, " -o {}", o.display())?;
        }
        if let Some(d) = self.checkpoint_dir {
            write!(f, " --checkpoint-dir {}", d.display())?;
        }
        Ok(())
    }
}

/// Why `auto` runs on the CPU, with the option that overrides it.
pub fn auto_note(a: &Auto) -> String {
    match a {
        Auto::Cpu(NoGpu::Software { .. }) => format!("{a} (--backend gpu runs on it anyway)"),
        _ => a.to_string(),
    }
}

/// What to tell the user about resuming a run that stopped (`gpu`: it ran on a GPU).
pub fn resume_advice(advice: &ResumeAdvice, resume: &ResumeCommand, gpu: bool) -> String {
    match advice {
        ResumeAdvice::CheckpointsOff => {
            "no checkpoints were enabled (--no-checkpoint), so the run cannot be resumed".into()
        }
        ResumeAdvice::From { file, step } => {
            let mut s = format!(
                "the last checkpoint (step {step}) is in {}; continue with `{resume}`",
                file.display()
            );
            if gpu {
                s.push_str(" (add `--backend cpu` to continue on the CPU)");
            }
            s
        }
        ResumeAdvice::NoCheckpointYet { path } => format!(
            "no checkpoint had been written yet (interval: --checkpoint-every; checkpoints go to {})",
            path.display()
        ),
    }
}

/// A failed run, with the command line's advice.
fn run_failure(f: &RunFailure, resume: &ResumeCommand) -> String {
    let mut m = match &f.error {
        RunError::Backend { step, error, .. } => format!(
            "the run failed at step {} of {}: {error}",
            thousands(*step as u64),
            thousands(f.steps as u64)
        ),
        e => format!("the run failed: {e}"),
    };
    match &f.closed {
        Ok(()) => m.push_str(&format!("\n  {} is closed with status \"failed\"", f.output.display())),
        Err(ce) => m.push_str(&format!("\n  also: {ce}")),
    }
    let advice = |gpu| {
        f.advice
            .as_ref()
            .map(|a| resume_advice(a, resume, gpu))
            .unwrap_or_default()
    };
    match &f.error {
        RunError::Backend { saved, .. } => {
            if let Some(step) = saved {
                m.push_str(&format!(
                    "\n  the state of step {step}, before the failure, was saved to a checkpoint"
                ));
            }
            m.push_str(&format!("\n  {}", advice(f.on_gpu)));
        }
        RunError::Sink(e) if e.no_space => m.push_str(&format!(
            "\n  everything up to the last flushed chunk is in the file; free some disk space, then: {}",
            advice(false)
        )),
        RunError::Sink(_) => m.push_str(&format!("\n  once the output can be written again: {}", advice(false))),
        RunError::Unstable(_) => {
            m.push_str("\n  resuming would meet the same instability: fix the scene and start again with --force")
        }
    }
    m
}

impl CliError {
    /// A session's error with its exit code, and the command line's options added to
    /// its advice (`resume`: how to resume this run).
    pub fn session(e: &SessionError, resume: Option<&ResumeCommand>) -> CliError {
        use SessionError as E;
        let message = match e {
            E::GridTooLarge { .. } | E::RamDoesNotFit(_) => format!("{e} (--backend gpu)"),
            E::Backend(b) => format!("{e}{}", backend_help(b)),
            E::OutputExists { .. } => format!("{e}; pass --force to overwrite it"),
            E::Output(o) if o.kind == OutputErrorKind::Exists => format!("{e}; pass --force to overwrite it"),
            E::NotResumable(ResumeRefusal::Missing { .. }) => format!("{e} (resume with the same -o as the run)"),
            E::NotResumable(ResumeRefusal::OtherRun { .. }) => {
                format!("{e} (start a new run with --force to overwrite it)")
            }
            E::NotResumable(ResumeRefusal::CheckpointsOff) => {
                "--resume needs checkpoints, but they are turned off (--no-checkpoint or [checkpoint] enabled = false)"
                    .into()
            }
            E::CheckpointDirMissing { .. } | E::CheckpointDirNotWritable { .. } => {
                format!("{e} (--checkpoint-dir DIR, or --no-checkpoint)")
            }
            E::CheckpointFilesInTheWay { .. } => format!("{e} (--checkpoint-dir DIR)"),
            E::OutputNotRegular { .. } => format!("{e}; name a file with -o"),
            E::Scene(SceneError::Invalid { key, .. }) if key == "checkpoint.path" => {
                format!("{e}\n  help: --checkpoint-dir DIR writes them in DIR")
            }
            E::Disk(d) => format!(
                "{}; free some space, record fewer or smaller snapshots (every, plane, box), write elsewhere \
                 (-o), or pass --skip-disk-check (compression often makes the output much smaller)",
                d.shortage()
            ),
            E::ResumeState { output, .. } => format!(
                "{e}\n  help: start the run again with --force (this overwrites {})",
                output.display()
            ),
            E::Results { .. } => match resume {
                Some(r) => format!("{e}\n  then: {r}"),
                None => e.to_string(),
            },
            E::Run(f) => match resume {
                Some(r) => run_failure(f, r),
                None => e.to_string(),
            },
            _ => e.to_string(),
        };
        CliError::new(exit_code(e.kind()), message)
    }
}

/// Run the command line; returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        // Help and version exit 0; usage errors exit 2 (clap's convention, ours too).
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        Command::Run(a) => run::run(&a),
        Command::Check(a) => check::check(&a),
        Command::Info(a) => match isolate::in_child(&a.result) {
            Some(code) => Ok(code),
            None => info::info(&a),
        },
        Command::Plot(a) => {
            if a.at.as_ref().is_some_and(|v| v.len() != 3) {
                return usage_error("--at needs three coordinates x,y,z (m)");
            }
            match isolate::in_child(&a.input) {
                Some(code) => Ok(code),
                None => plot::plot(&a),
            }
        }
        Command::Bench(a) => bench(&a),
        Command::Devices => devices(),
        Command::Validate(a) => validate::validate(&a),
        Command::Sweep(c) => sweep::sweep(&c),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            errln!("error: {}", e.message);
            e.code
        }
    }
}

fn bench(a: &BenchArgs) -> Result<i32, CliError> {
    if a.sizes.is_empty() || a.sizes.contains(&0) {
        return Err(CliError::bad_input("--sizes needs one or more cube sizes > 0"));
    }
    if a.steps == 0 {
        return Err(CliError::bad_input("--steps must be at least 1"));
    }
    let smallest = a.sizes.iter().copied().min().unwrap_or(0);
    if a.cpml > 0 && a.cpml.saturating_mul(2) >= smallest {
        return Err(CliError::bad_input(format!(
            "--cpml {} leaves no interior in the {smallest}³ cube: two layers need fewer than {smallest} cells \
             together",
            a.cpml
        )));
    }
    let opts = fdtd::bench::BenchOptions {
        sizes: a.sizes.clone(),
        steps: a.steps,
        cpml: a.cpml,
        dielectric: a.dielectric,
        backend: a.backend.choice(),
        backend_opts: BackendOptions {
            threads: a.threads,
            device: a.device.clone(),
            gpu_memory_fraction: None,
        },
    };
    fdtd::bench::run(&opts, &mut out::Report).map_err(|e| match (&e, a.backend) {
        (BackendError::DoesNotFit(_), BackendArg::Cpu) => CliError::new(
            exit::DOES_NOT_FIT,
            format!("{e}\n  help: smaller --sizes fit (the memory column shows what each size needs)"),
        ),
        _ => CliError::backend(&e),
    })?;
    Ok(exit::OK)
}

fn usage_error(message: &str) -> i32 {
    errln!("error: {message}");
    exit::BAD_INPUT
}

fn devices() -> Result<i32, CliError> {
    outln!("{}", fdtd::backend::gpu::describe_devices());
    Ok(exit::OK)
}

//! `fdtd sweep plan|run|submit|status|collect`: the arguments, tables and progress of
//! parameter sweeps; everything else is `fdtd-sweep` ([`fdtd::sweep`]).
use super::{exit, BackendArgs, CliError};
use clap::{Args, Subcommand};
use fdtd::backend::BackendChoice;
use fdtd::fmt::{duration, thousands};
use fdtd::output::Hdf5Format;
use fdtd::plan::human_bytes;
use fdtd::session::SceneSource;
use fdtd::sweep::collect::{self, Cell};
use fdtd::sweep::local::{self, LocalEvent, LocalOptions};
use fdtd::sweep::plan::{self, PlanOptions, Planned};
use fdtd::sweep::slurm::{self, SlurmOptions, DEFAULT_SIGNAL_SECONDS};
use fdtd::sweep::spec::Overrides;
use fdtd::sweep::status::{self, State};
use fdtd::sweep::{Layout, Manifest, SweepError};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Subcommand, Debug)]
pub enum SweepCommand {
    /// List the variants with their parameters, memory plan and cost, and write each
    /// variant's scene into the sweep directory. Nothing runs.
    Plan(PlanArgs),
    /// Run the variants on this machine, N at a time, skipping complete ones.
    Run(SweepRunArgs),
    /// Write a Slurm job-array script into the sweep directory and submit it.
    Submit(SubmitArgs),
    /// One table: every variant's state (pending, queued, running, done, interrupted,
    /// failed with its exit code and the tail of its log).
    Status(DirArgs),
    /// Merge the results of every finished variant into summary.h5 and summary.csv,
    /// naming the failed and missing ones.
    Collect(DirArgs),
}

#[derive(Args, Debug)]
pub struct PlanArgs {
    /// The sweep file (TOML; see docs/sweeps.md).
    pub sweep: PathBuf,
    #[command(flatten)]
    pub paths: SweepPaths,
    #[command(flatten)]
    pub backend: BackendArgs,
}

/// Paths that a sweep file itself may only give inside its own folder.
#[derive(Args, Debug, Default)]
pub struct SweepPaths {
    /// The sweep directory, instead of the sweep file's `directory` (any path: absolute,
    /// or relative to the current directory).
    #[arg(long, value_name = "DIR")]
    pub directory: Option<PathBuf>,
    /// The base scene, instead of the sweep file's `base` (any path).
    #[arg(long, value_name = "SCENE")]
    pub base: Option<PathBuf>,
}

impl SweepPaths {
    fn overrides(&self) -> Overrides {
        Overrides {
            directory: self.directory.clone(),
            base: self.base.clone(),
        }
    }
}

#[derive(Args, Debug)]
pub struct SweepRunArgs {
    /// The sweep file (TOML; see docs/sweeps.md).
    pub sweep: PathBuf,
    /// Variants at a time (a GPU is shared while the summed memory plans fit its budget).
    #[arg(short = 'j', long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=256))]
    pub jobs: u64,
    #[command(flatten)]
    pub paths: SweepPaths,
    #[command(flatten)]
    pub backend: BackendArgs,
}

#[derive(Args, Debug)]
pub struct SubmitArgs {
    /// The sweep file (TOML; see docs/sweeps.md).
    pub sweep: PathBuf,
    #[command(flatten)]
    pub paths: SweepPaths,
    /// Submit to Slurm as a job array (the only scheduler so far).
    #[arg(long, required = true)]
    pub slurm: bool,
    /// Write the script, print it and submit nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[arg(long, value_name = "P")]
    pub partition: Option<String>,
    /// Time limit per task, as Slurm takes it (30, 2:00:00, 1-00:00:00).
    #[arg(long, value_name = "T")]
    pub time: Option<String>,
    #[arg(long, value_name = "G")]
    pub gpus_per_task: Option<u32>,
    #[arg(long, value_name = "C")]
    pub cpus_per_task: Option<u32>,
    /// Memory per task, as Slurm takes it (4G).
    #[arg(long, value_name = "M")]
    pub mem: Option<String>,
    #[arg(long, value_name = "A")]
    pub account: Option<String>,
    /// At most K tasks at once.
    #[arg(long, value_name = "K")]
    pub max_parallel: Option<u32>,
    /// A further #SBATCH option (repeatable), e.g. --extra-sbatch=--qos=long.
    #[arg(long, value_name = "OPT", allow_hyphen_values = true)]
    pub extra_sbatch: Vec<String>,
    /// Seconds before the time limit at which Slurm sends SIGTERM, so the run writes a
    /// checkpoint (resumed by the next submission).
    #[arg(long, value_name = "S", default_value_t = DEFAULT_SIGNAL_SECONDS)]
    pub signal_seconds: u32,
    /// The backend the tasks run on (`fdtd run --backend`).
    #[arg(long, value_enum, default_value_t = super::BackendArg::Auto)]
    pub backend: super::BackendArg,
}

#[derive(Args, Debug)]
pub struct DirArgs {
    /// The sweep directory (the [sweep] directory of the sweep file).
    pub dir: PathBuf,
}

pub fn sweep(cmd: &SweepCommand) -> Result<i32, CliError> {
    match cmd {
        SweepCommand::Plan(a) => plan_cmd(a),
        SweepCommand::Run(a) => run_cmd(a),
        SweepCommand::Submit(a) => submit_cmd(a),
        SweepCommand::Status(a) => status_cmd(a),
        SweepCommand::Collect(a) => collect_cmd(a),
    }
}

fn sweep_err(e: SweepError) -> CliError {
    if e.is_bad_input() {
        CliError::bad_input(e.to_string())
    } else {
        CliError::runtime(e.to_string())
    }
}

fn make_plan(sweep: &std::path::Path, paths: &SweepPaths, b: &BackendArgs, command: &str) -> Result<Planned, CliError> {
    let engines = fdtd::backend::engines();
    plan::plan(
        sweep,
        &PlanOptions {
            engines: &engines,
            backend: b.backend.choice(),
            backend_options: b.options(),
            overrides: paths.overrides(),
            command,
        },
    )
    .map_err(sweep_err)
}

/// A plain table: a header row, right-aligned columns but the last.
fn table(header: &[String], rows: &[Vec<String>]) {
    let n = header.len();
    let mut w: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate().take(n) {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let line = |r: &[String]| {
        let mut s = String::new();
        for (i, c) in r.iter().enumerate() {
            if i + 1 == n {
                s.push_str(c);
            } else {
                s.push_str(&format!("{c:<width$}  ", width = w[i]));
            }
        }
        s.trim_end().to_string()
    };
    outln!("{}", line(header));
    for r in rows {
        outln!("{}", line(r));
    }
}

fn plan_table(p: &Planned) {
    let mut header: Vec<String> = vec!["variant".into()];
    header.extend(p.manifest.columns.iter().cloned());
    header.extend(["cells", "steps", "cost (cell-steps)", "memory", "backend"].map(String::from));
    let rows: Vec<Vec<String>> = p
        .variants
        .iter()
        .map(|v| {
            let mut r = vec![v.entry.id.clone()];
            r.extend(v.variant.values.iter().map(|(_, x)| x.to_string()));
            r.push(thousands(v.entry.cells));
            r.push(thousands(v.entry.steps));
            r.push(format!("{:.3e}", v.entry.cells as f64 * v.entry.steps as f64));
            r.push(format!(
                "{}{}",
                human_bytes(v.entry.memory),
                if v.fits { "" } else { " (does not fit)" }
            ));
            r.push(match v.backend {
                BackendChoice::Gpu => format!("gpu ({})", v.device),
                _ => "cpu".into(),
            });
            r
        })
        .collect();
    outln!(
        "sweep {:?}: {} variant(s) of {}, in {}",
        p.manifest.name,
        p.variants.len(),
        p.spec.base.display(),
        p.layout.dir.display()
    );
    table(&header, &rows);
    let total: f64 = p
        .variants
        .iter()
        .map(|v| v.entry.cells as f64 * v.entry.steps as f64)
        .sum();
    outln!("total cost {total:.3e} cell-steps");
    let warned: Vec<&str> = p
        .variants
        .iter()
        .filter(|v| v.warning.is_some())
        .map(|v| v.entry.id.as_str())
        .collect();
    if let Some(w) = p.variants.iter().find_map(|v| v.warning.as_ref()) {
        errln!(
            "warning: {} ({} of {} variants: {})",
            w,
            warned.len(),
            p.variants.len(),
            warned.join(" ")
        );
    }
}

fn plan_cmd(a: &PlanArgs) -> Result<i32, CliError> {
    let p = make_plan(&a.sweep, &a.paths, &a.backend, "plan")?;
    plan_table(&p);
    outln!(
        "wrote {} variant scene(s) to {}",
        p.variants.len(),
        p.layout.dir.join("variants").display()
    );
    Ok(exit::OK)
}

/// Bytes the GPU may give concurrent runs: the adapter's available memory times the
/// budget fraction, asked with the smallest GPU variant.
fn gpu_budget(p: &Planned, a: &BackendArgs) -> Option<u64> {
    let v = p
        .variants
        .iter()
        .filter(|v| v.backend == BackendChoice::Gpu)
        .min_by_key(|v| v.entry.memory)?;
    let scene = v.variant.scene.as_ref().ok()?.clone();
    let (_, model) = fdtd::session::load(&SceneSource::Scene(Box::new(scene)), false).ok()?;
    let (_, info) = fdtd::backend::gpu::plan(&fdtd_core::Simulation::standard(model), &a.options()).ok()?;
    let fraction = a.gpu_memory_fraction.unwrap_or(0.9);
    info.memory.available().map(|b| (b as f64 * fraction) as u64)
}

fn run_cmd(a: &SweepRunArgs) -> Result<i32, CliError> {
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        let count = AtomicUsize::new(0);
        let r = ctrlc::set_handler(move || {
            if count.fetch_add(1, Ordering::SeqCst) == 0 {
                stop.store(true, Ordering::SeqCst);
                errln!("\ninterrupt: stopping the running variants (each writes a checkpoint); press Ctrl-C again to quit now");
            } else {
                fdtd::output::close_all_interrupted_then(|| std::process::exit(exit::INTERRUPTED));
            }
        });
        if let Err(e) = r {
            errln!("warning: cannot install the Ctrl-C handler ({e})");
        }
    }
    let p = make_plan(&a.sweep, &a.paths, &a.backend, "run")?;
    plan_table(&p);
    let total = p.variants.len() as u64;
    let show = std::io::stderr().is_terminal();
    let multi = MultiProgress::with_draw_target(if show {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    });
    let overall = multi.add(ProgressBar::new(total));
    overall.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{wide_bar}] {pos}/{len} variants · {msg} · ETA {eta}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let counts = Arc::new(Mutex::new((0usize, 0usize))); // running, failed
    let bars: Arc<Mutex<HashMap<String, ProgressBar>>> = Arc::new(Mutex::new(HashMap::new()));
    let msg = |c: &(usize, usize)| format!("{} running · {} failed", c.0, c.1);
    overall.set_message(msg(&(0, 0)));
    let run_style = ProgressStyle::with_template("  {prefix:<6} [{bar:30}] {pos}/{len} steps · {msg}")
        .expect("valid template")
        .progress_chars("=> ");
    let events = {
        let (overall, multi, counts, bars) = (overall.clone(), multi.clone(), counts.clone(), bars.clone());
        Arc::new(move |e: &LocalEvent| {
            let mut c = counts.lock().unwrap_or_else(|e| e.into_inner());
            let mut b = bars.lock().unwrap_or_else(|e| e.into_inner());
            match e {
                LocalEvent::Skipped { id } => {
                    overall.inc(1);
                    multi.suspend(|| outln!("{id}  skipped: complete results exist"));
                }
                LocalEvent::Started {
                    id,
                    backend,
                    resumed_at,
                } => {
                    c.0 += 1;
                    let bar = multi.add(ProgressBar::new(0));
                    bar.set_style(run_style.clone());
                    bar.set_prefix(id.clone());
                    bar.set_message(if *resumed_at > 0 {
                        format!("{backend}, resumed at step {resumed_at}")
                    } else {
                        backend.clone()
                    });
                    b.insert(id.clone(), bar);
                }
                LocalEvent::Progress { id, done, total } => {
                    if let Some(bar) = b.get(id) {
                        bar.set_length(*total as u64);
                        bar.set_position(*done as u64);
                    }
                }
                LocalEvent::Done { id, seconds } => {
                    c.0 = c.0.saturating_sub(1);
                    overall.inc(1);
                    if let Some(bar) = b.remove(id) {
                        bar.finish_and_clear();
                        multi.remove(&bar);
                    }
                    multi.suspend(|| outln!("{id}  done in {}", duration(*seconds)));
                }
                LocalEvent::Interrupted { id } => {
                    c.0 = c.0.saturating_sub(1);
                    if let Some(bar) = b.remove(id) {
                        bar.finish_and_clear();
                        multi.remove(&bar);
                    }
                    multi.suspend(|| outln!("{id}  interrupted (checkpointed; run the sweep again to resume)"));
                }
                LocalEvent::Failed { id, exit_code, message } => {
                    c.0 = c.0.saturating_sub(1);
                    c.1 += 1;
                    overall.inc(1);
                    if let Some(bar) = b.remove(id) {
                        bar.finish_and_clear();
                        multi.remove(&bar);
                    }
                    let first = message.lines().next().unwrap_or("");
                    multi.suspend(|| outln!("{id}  FAILED (exit {exit_code}): {first}"));
                }
            }
            overall.set_message(msg(&c));
        })
    };
    let engines = fdtd::backend::engines();
    let format = Hdf5Format::default();
    let opts = LocalOptions {
        jobs: a.jobs as usize,
        engines: &engines,
        format: &format,
        backend: a.backend.backend.choice(),
        backend_options: a.backend.options(),
        gpu_budget: gpu_budget(&p, &a.backend),
        ram_budget: fdtd::session::resources::available_ram(),
        stop: stop.clone(),
        events: Some(events),
    };
    let r = local::run(&p, &opts);
    overall.finish_and_clear();
    outln!(
        "sweep {:?}: {} done, {} skipped (complete), {} failed, {} interrupted, {} not started",
        p.manifest.name,
        r.done.len(),
        r.skipped.len(),
        r.failed.len(),
        r.interrupted.len(),
        r.not_started.len()
    );
    for (id, code, m) in &r.failed {
        outln!("  {id} failed (exit {code}): {}", m.replace('\n', "\n    "));
        outln!("    log: {}", p.layout.log(id).display());
    }
    outln!("next: fdtd sweep collect {}", p.layout.dir.display());
    Ok(if !r.interrupted.is_empty() || !r.not_started.is_empty() {
        exit::INTERRUPTED
    } else if !r.failed.is_empty() {
        exit::RUNTIME
    } else {
        exit::OK
    })
}

fn submit_cmd(a: &SubmitArgs) -> Result<i32, CliError> {
    let backend = BackendArgs {
        backend: a.backend,
        threads: 0,
        device: None,
        gpu_memory_fraction: None,
    };
    let p = make_plan(&a.sweep, &a.paths, &backend, "submit")?;
    plan_table(&p);
    let (complete, ids): (Vec<String>, Vec<String>) = p
        .variants
        .iter()
        .map(|v| v.entry.id.clone())
        .partition(|id| status::is_complete(&p.layout, id));
    if !complete.is_empty() {
        outln!(
            "skipping {} variant(s) with complete results: {}",
            complete.len(),
            complete.join(" ")
        );
    }
    if ids.is_empty() {
        outln!(
            "every variant is complete: nothing to submit (fdtd sweep collect {})",
            p.layout.dir.display()
        );
        return Ok(exit::OK);
    }
    let fdtd = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| CliError::runtime(format!("cannot find this fdtd binary for the job script: {e}")))?;
    let o = SlurmOptions {
        partition: a.partition.clone(),
        time: a.time.clone(),
        gpus_per_task: a.gpus_per_task,
        cpus_per_task: a.cpus_per_task,
        mem: a.mem.clone(),
        account: a.account.clone(),
        max_parallel: a.max_parallel,
        extra_sbatch: a.extra_sbatch.clone(),
        signal_seconds: a.signal_seconds,
        fdtd,
        backend: Some(format!("{:?}", a.backend).to_lowercase()),
    };
    let text = slurm::script(&p.layout, &p.manifest, &ids, &o).map_err(|e| CliError::bad_input(e.to_string()))?;
    let path = slurm::write_script(&p.layout, &text).map_err(sweep_err)?;
    if a.dry_run {
        outln!("{text}");
        outln!(
            "wrote {} ({} task(s)); not submitted (--dry-run)",
            path.display(),
            ids.len()
        );
        return Ok(exit::OK);
    }
    let job = slurm::submit(&p.layout, &path, &ids).map_err(sweep_err)?;
    outln!("submitted job array {job} ({} task(s)): {}", ids.len(), path.display());
    outln!("watch it with: fdtd sweep status {}", p.layout.dir.display());
    outln!("{job}");
    Ok(exit::OK)
}

fn load_dir(dir: &std::path::Path) -> Result<(Layout, Manifest), CliError> {
    let layout = Layout::new(dir);
    let m = Manifest::read(&layout).map_err(sweep_err)?;
    Ok((layout, m))
}

fn status_cmd(a: &DirArgs) -> Result<i32, CliError> {
    let (layout, m) = load_dir(&a.dir)?;
    let view = slurm::scheduler_view(&layout);
    let st = status::collect_status(&layout, &m, view.as_ref());
    let mut header: Vec<String> = vec!["variant".into()];
    header.extend(m.columns.iter().cloned());
    header.extend(["state", "exit", "job", "detail"].map(String::from));
    let rows: Vec<Vec<String>> = st
        .iter()
        .zip(&m.variants)
        .map(|(s, e)| {
            let mut r = vec![s.id.clone()];
            r.extend(e.values.iter().map(|v| v.to_string()));
            r.push(s.state.label().into());
            let (code, detail) = match &s.state {
                State::Failed { exit_code, reason } => (
                    exit_code.map(|c| c.to_string()).unwrap_or_default(),
                    match s.last_message() {
                        Some(l) => format!("{reason}: {l}"),
                        None => reason.clone(),
                    },
                ),
                State::Interrupted { exit_code } => (
                    exit_code.map(|c| c.to_string()).unwrap_or_default(),
                    "checkpointed; run or submit the sweep again to resume".into(),
                ),
                State::Running { host, .. } => (
                    String::new(),
                    host.clone().map(|h| format!("on {h}")).unwrap_or_default(),
                ),
                State::Done => ("0".into(), s.run_time().map(duration).unwrap_or_default()),
                _ => (String::new(), String::new()),
            };
            r.push(code);
            let job = match &s.state {
                State::Queued { job } => job.clone(),
                _ => s.file.as_ref().and_then(|f| f.get("job")).unwrap_or("").to_string(),
            };
            r.push(job);
            r.push(detail);
            r
        })
        .collect();
    table(&header, &rows);
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for s in &st {
        match counts.iter_mut().find(|(l, _)| *l == s.state.label()) {
            Some(c) => c.1 += 1,
            None => counts.push((s.state.label(), 1)),
        }
    }
    outln!(
        "{} variant(s): {}{}",
        st.len(),
        counts
            .iter()
            .map(|(l, n)| format!("{n} {l}"))
            .collect::<Vec<_>>()
            .join(", "),
        match &view {
            Some(_) => " (cross-checked with Slurm)",
            None if !slurm::jobs(&layout).is_empty() => " (Slurm did not answer: status files only)",
            None => "",
        }
    );
    for s in st
        .iter()
        .filter(|s| matches!(s.state, State::Failed { .. }) && !s.log_tail.is_empty())
    {
        outln!("{} log ({}):", s.id, layout.log(&s.id).display());
        for l in &s.log_tail {
            outln!("  {l}");
        }
    }
    Ok(exit::OK)
}

fn collect_cmd(a: &DirArgs) -> Result<i32, CliError> {
    let (layout, _) = load_dir(&a.dir)?;
    let view = slurm::scheduler_view(&layout);
    let s = collect::collect(&layout, view.as_ref()).map_err(sweep_err)?;
    collect::write(&s, &layout).map_err(sweep_err)?;
    // The table on the terminal: id, state, parameters and the figures (not every probe).
    let keep: Vec<usize> = s
        .columns
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            let raw_attr = ["ports_", "farfield_", "far_field_"].iter().any(|p| c.starts_with(p));
            !c.starts_with("max_") && !raw_attr && !matches!(c.as_str(), "device" | "cells" | "steps_max" | "note")
        })
        .map(|(i, _)| i)
        .collect();
    let header: Vec<String> = keep.iter().map(|&i| s.columns[i].clone()).collect();
    let rows: Vec<Vec<String>> = s
        .rows
        .iter()
        .map(|r| {
            keep.iter()
                .map(|&i| match &r[i] {
                    Cell::Num(x) if x.is_nan() => "-".into(),
                    Cell::Num(x) => fdtd::sweep::format_num(fdtd::sweep::round_sig(*x)),
                    Cell::Text(t) => t.clone(),
                })
                .collect()
        })
        .collect();
    table(&header, &rows);
    outln!(
        "wrote {} and {} ({} variant(s): {} done, {} failed, {} missing)",
        layout.summary_h5().display(),
        layout.summary_csv().display(),
        s.rows.len(),
        s.done.len(),
        s.failed.len(),
        s.missing.len()
    );
    for (id, why) in &s.failed {
        outln!("  failed  {id}: {why}");
    }
    for (id, state) in &s.missing {
        outln!("  missing {id}: {state}");
    }
    Ok(if s.failed.is_empty() && s.missing.is_empty() {
        exit::OK
    } else {
        exit::RUNTIME
    })
}

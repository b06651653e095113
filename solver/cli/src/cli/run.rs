//! `fdtd run`: the arguments become a [`RunRequest`]; the session ([`fdtd::session`])
//! loads, checks, prepares and runs it, and this module prints its header and outcome,
//! shows its progress and handles Ctrl-C.
use super::{auto_note, exit, exit_code, resume_advice, CliError, ResumeCommand, RunArgs};
use fdtd::fmt::{duration, lengths, si, sig, thousands};
use fdtd::output::Hdf5Format;
use fdtd::plan::human_bytes;
use fdtd::runner::{Fault, Outcome, ProgressInfo};
use fdtd::session::{
    resolution_warning, CheckpointRequest, ErrorKind, Prepared, RunRequest, Session, SessionEvent, Severity,
};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Install the Ctrl-C / SIGTERM handler, first thing, so that set-up is covered too: the
/// first signal sets `stop` (set-up ends before the output is created, or the run ends
/// after the current chunk, writes a checkpoint and closes its file as "interrupted");
/// the second flushes the open output files and exits with 130 at once. `resume_hint`
/// is filled in once the run's checkpoints are known.
fn install_interrupt(stop: Arc<AtomicBool>, resume_hint: Arc<Mutex<String>>) {
    let count = AtomicUsize::new(0);
    let r = ctrlc::set_handler(move || {
        if count.fetch_add(1, Ordering::SeqCst) == 0 {
            stop.store(true, Ordering::SeqCst);
            errln!(
                "\ninterrupt: stopping (after the current chunk, with a checkpoint, once the run has started); \
                 press Ctrl-C again to quit now"
            );
        } else {
            let hint = resume_hint.lock().map(|h| h.clone()).unwrap_or_default();
            errln!("\ninterrupt: quitting now; the output file stays valid. {hint}");
            // Exit while the output library is still locked: nothing is written after the flush.
            fdtd::output::close_all_interrupted_then(|| std::process::exit(exit::INTERRUPTED));
        }
    });
    if let Err(e) = r {
        errln!(
            "warning: cannot install the Ctrl-C handler ({e}); Ctrl-C will end the run without closing the output file"
        );
    }
}

/// `cpu on CPU (8 threads)`: the backend and the device by name, as the output file
/// records them; why `auto` chose it goes on a line of its own ([`auto_line`]).
fn backend_line(p: &Prepared) -> String {
    let b = fdtd::output::BackendLine::parse(p.backend_description());
    format!("{} on {}", b.backend, b.device)
}

/// Why `auto` chose the backend, when it did.
fn auto_line(p: &Prepared) -> Option<String> {
    p.auto().map(auto_note)
}

pub fn run(a: &RunArgs) -> Result<i32, CliError> {
    let resume = ResumeCommand {
        scene: &a.scene,
        output: a.output.as_deref(),
        checkpoint_dir: a.checkpoint_dir.as_deref(),
    };
    let quiet = a.quiet;
    // The progress bar, once the run starts; events before it go straight to stderr.
    let bar_cell: Arc<OnceLock<ProgressBar>> = Arc::new(OnceLock::new());
    let stop = Arc::new(AtomicBool::new(false));
    let hint = Arc::new(Mutex::new(String::new()));
    install_interrupt(stop.clone(), hint.clone());

    let mut req = RunRequest::new(a.scene.clone());
    req.output = a.output.clone();
    req.force = a.force;
    req.resume = a.resume;
    req.checkpoint = CheckpointRequest {
        every: a.checkpoint_every,
        off: a.no_checkpoint,
        dir: a.checkpoint_dir.clone(),
    };
    req.skip_disk_check = a.skip_disk_check;
    req.drive_each = a.drive_each;
    req.chunk = a.chunk as usize;
    req.backend = a.backend.backend.choice();
    req.backend_options = a.backend.options();
    req.stop = Some(stop.clone());
    let cell = bar_cell.clone();
    req.events = Some(Arc::new(move |e: &SessionEvent| {
        let prefix = match e.severity() {
            Severity::Info if quiet => return,
            Severity::Info => "",
            Severity::Note => "note: ",
            Severity::Warning => "warning: ",
        };
        match cell.get() {
            Some(bar) => bar.suspend(|| errln!("{prefix}{e}")),
            None => errln!("{prefix}{e}"),
        }
    }));
    let cell = bar_cell.clone();
    let interactive = !quiet && std::io::stderr().is_terminal();
    let mut log = (!quiet && !interactive).then(ProgressLog::from_env);
    req.progress = Some(Box::new(move |p: &ProgressInfo| {
        if let Some(bar) = cell.get() {
            bar.set_message(bar_message(p));
            // Toward the end criterion's predicted step, so the bar and its ETA follow it.
            let len = p.decay.and_then(|d| d.eta_step).unwrap_or(p.total).max(p.step);
            bar.set_length(len as u64);
            bar.set_position(p.step as u64);
        }
        if let Some(log) = log.as_mut() {
            log.tick(p);
        }
    }));

    let fail = |e: &fdtd::session::SessionError| CliError::session(e, Some(&resume));
    let mut session = Session::load(req).map_err(|e| fail(&e))?;
    session.set_fault(Fault::from_env().map_err(CliError::bad_input)?);
    let model = session.model().clone();
    let g = &model.grid;
    if !quiet {
        outln!("fdtd {} · {}", env!("CARGO_PKG_VERSION"), a.scene.display());
        outln!(
            "  grid     {} × {} × {} = {} cells of {}",
            g.n[0],
            g.n[1],
            g.n[2],
            thousands(g.cells()),
            lengths(g.d)
        );
        outln!(
            "  time     dt = {}, {} steps ({} simulated), Courant {}",
            si(g.dt, "s"),
            thousands(g.steps as u64),
            si(g.dt * g.steps as f64, "s"),
            g.courant
        );
    }
    for w in fdtd::session::scene_warnings(session.scene(), &model) {
        errln!("warning: {w}");
    }
    if let Some(w) = resolution_warning(&model) {
        errln!("warning: {w}");
    }

    let format = Hdf5Format {
        deflate: a.compression,
        xdmf: true,
        ..Hdf5Format::default()
    };
    let prepared = session
        .prepare(&fdtd::backend::engines(), &format)
        .map_err(|e| fail(&e))?;
    if let Some(w) = prepared.software_warning() {
        errln!("warning: {w}");
    }
    let ck = prepared.checkpoints().clone();
    let start = prepared.start();
    if !quiet {
        outln!("  backend  {}", backend_line(&prepared));
        if let Some(why) = auto_line(&prepared) {
            outln!("  auto     {why}");
        }
        outln!("  output   {}", prepared.output_path().display());
        if ck.enabled {
            outln!(
                "  checkpoint {}, {}, to {}",
                human_bytes(prepared.checkpoint_bytes()),
                ck.interval.describe(),
                ck.path.display()
            );
        }
        if start > 0 {
            outln!(
                "  resuming from step {} of {} (the output keeps its first {} steps)",
                thousands(start as u64),
                thousands(g.steps as u64),
                thousands(start as u64)
            );
        }
    }
    if let Ok(mut h) = hint.lock() {
        *h = if ck.enabled {
            format!("Continue from the last checkpoint with `{resume}`")
        } else {
            "Checkpoints are off: the run cannot be resumed.".to_string()
        };
    }

    let bar = if quiet || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::with_draw_target(Some(g.steps as u64), ProgressDrawTarget::stderr());
        let style =
            ProgressStyle::with_template("{elapsed_precise} [{wide_bar}] {pos}/{len} steps · {msg} · ETA {eta}")
                .expect("valid template")
                .progress_chars("=> ");
        b.set_style(style);
        b.set_message("starting");
        b.set_position(start as u64);
        b.reset_eta();
        b
    };
    let _ = bar_cell.set(bar.clone());

    let result = prepared.run();
    bar.finish_and_clear();
    let report = result.map_err(|e| fail(&e))?;
    let summary = &report.summary;
    let what = match summary.outcome {
        Outcome::Finished => format!("complete: {} steps", thousands(summary.steps_done as u64)),
        Outcome::Interrupted => format!(
            "interrupted after {} of {} steps",
            thousands(summary.steps_done as u64),
            thousands(report.steps as u64)
        ),
    };
    let mut line = format!(
        "{what} in {} ({} Mcells/s); wrote {}",
        duration(summary.total.as_secs_f64()),
        sig(report.mcells_per_s, 4),
        report.output.display()
    );
    if report.contents.is_empty() {
        line.push_str(" (attributes only: the scene has no probes, snapshots or ports)");
    } else {
        line.push_str(&format!(" ({})", report.contents.join("; ")));
    }
    if let Some(x) = &report.companion {
        line.push_str(&format!(" and {}", x.display()));
    }
    for x in &report.result_files {
        line.push_str(&format!(", {}", x.display()));
    }
    outln!("{line}");
    for l in super::summary::lines(&report) {
        if let Some(w) = l.strip_prefix("warning: ") {
            errln!("warning: {w}");
        } else {
            outln!("{l}");
        }
    }
    if summary.outcome == Outcome::Finished && all_zero(&report.output) {
        errln!(
            "warning: every probe sample and snapshot value in {} is exactly zero: check the sources (frequency \
             units, amplitude, position) with `fdtd check`",
            report.output.display()
        );
    }
    if !quiet {
        outln!("  memory   {}", report.memory);
        for line in monitor_lines(&report.results) {
            outln!("  {line}");
        }
    }
    Ok(match report.kind() {
        None => exit::OK,
        Some(kind) => {
            if let Some(advice) = &report.advice {
                errln!("{}", resume_advice(advice, &resume, false));
            }
            debug_assert_eq!(kind, ErrorKind::Interrupted);
            exit_code(kind)
        }
    })
}

/// The progress bar's message: speed, and the end criterion's level against its target.
fn bar_message(p: &ProgressInfo) -> String {
    let mut m = match p.drive {
        Some((k, n)) => format!("drive {k}/{n} · {} Mcells/s", sig(p.mcells, 4)),
        None => format!("{} Mcells/s", sig(p.mcells, 4)),
    };
    if let Some(d) = p.decay {
        m.push_str(&format!(" · decay {} of −{} dB", db1(d.level_db), sig(d.target_db, 3)));
    }
    m
}

/// A level in dB with one decimal and a typographic minus (−999 at most: a level that
/// fell to nothing); "…" before the criterion's first evaluation.
fn db1(x: f64) -> String {
    if x.is_nan() {
        return "…".to_string();
    }
    format!("{:.1}", x.max(-999.0)).replace('-', "−")
}

/// Progress as log lines, when stderr is not a terminal (a batch job's log, a pipe): one
/// line every few seconds (`FDTD_PROGRESS_EVERY` seconds, default 5), so a job log shows
/// that the run moves and when it will end.
struct ProgressLog {
    every: Duration,
    started: Instant,
    last: Instant,
    first_step: Option<usize>,
    /// The drive of the last tick (a run that drives each port restarts its steps).
    drive: Option<(usize, usize)>,
}

impl ProgressLog {
    const ENV: &'static str = "FDTD_PROGRESS_EVERY";

    fn from_env() -> ProgressLog {
        let every = std::env::var(Self::ENV)
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(|s| Duration::from_secs_f64(s.min(1e6)))
            .unwrap_or(Duration::from_secs(5));
        let now = Instant::now();
        ProgressLog {
            every,
            started: now,
            last: now,
            first_step: None,
            drive: None,
        }
    }

    fn tick(&mut self, p: &ProgressInfo) {
        if p.drive != self.drive {
            // A new drive: its steps and its ETA start afresh.
            self.drive = p.drive;
            self.first_step = None;
            self.started = Instant::now();
        }
        let first = *self.first_step.get_or_insert(p.step);
        if self.last.elapsed() < self.every {
            return;
        }
        self.last = Instant::now();
        errln!("{}", log_line(p, first, self.started.elapsed()));
    }
}

/// `step 1,200 of ≤ 10,491 (11 %) · 343 Mcells/s · decay −23.4 of −70 dB · ETA 31 s`: the
/// ETA runs to the end criterion's predicted step when there is one, else to the last step.
fn log_line(p: &ProgressInfo, first_step: usize, elapsed: Duration) -> String {
    let end = p.decay.and_then(|d| d.eta_step).unwrap_or(p.total).max(p.step);
    let pct = 100.0 * p.step as f64 / p.total.max(1) as f64;
    let drive = p.drive.map_or(String::new(), |(k, n)| format!("drive {k}/{n} · "));
    let mut line = format!(
        "progress: {drive}step {} of {}{} ({pct:.0} %) · {} Mcells/s",
        thousands(p.step as u64),
        if p.decay.is_some() { "≤ " } else { "" },
        thousands(p.total as u64),
        sig(p.mcells, 4)
    );
    if let Some(d) = p.decay {
        line.push_str(&format!(" · decay {} of −{} dB", db1(d.level_db), sig(d.target_db, 3)));
    }
    let done = p.step.saturating_sub(first_step);
    if done > 0 {
        let per_step = elapsed.as_secs_f64() / done as f64;
        let eta = (end - p.step) as f64 * per_step;
        let toward = if p.decay.and_then(|d| d.eta_step).is_some() {
            " (to the end criterion)"
        } else {
            ""
        };
        line.push_str(&format!(" · ETA {}{toward}", duration(eta)));
    }
    line
}

/// Whether a finished output records something and all of it is zero. Snapshots are read
/// only when small: this runs after every run.
fn all_zero(path: &std::path::Path) -> bool {
    const SCAN: usize = 16 << 20;
    let Ok(f) = fdtd::output::ResultFile::open(path) else {
        return false;
    };
    let mut any = false;
    for p in &f.probes {
        for c in &p.components {
            match f.probe_series(&p.name, &c.name) {
                Ok((_, v)) if !v.is_empty() => {
                    if v.iter().any(|x| *x != 0.0) {
                        return false;
                    }
                    any = true;
                }
                Ok(_) => {}
                Err(_) => return false,
            }
        }
    }
    for s in &f.snapshots {
        for c in &s.components {
            if c.frames * c.shape.iter().product::<usize>() > SCAN {
                return false;
            }
            for k in 0..c.frames {
                match f.snapshot_frame(&s.name, &c.name, k) {
                    Ok(v) if v.iter().any(|x| *x != 0.0) => return false,
                    Ok(_) => any = true,
                    Err(_) => return false,
                }
            }
        }
    }
    any
}

/// One line per monitor for the end-of-run summary (flux per frequency, at most a few).
fn monitor_lines(r: &fdtd::results::RunResults) -> Vec<String> {
    let few = |freq: &[f64], v: &[f64]| -> String {
        let parts: Vec<String> = freq
            .iter()
            .zip(v)
            .take(4)
            .map(|(f, x)| format!("{x:.4e} at {}", fdtd::fmt::hz(*f)))
            .collect();
        let more = if freq.len() > 4 {
            format!(" (+{} more)", freq.len() - 4)
        } else {
            String::new()
        };
        format!("{}{more}", parts.join(", "))
    };
    let mut out = Vec::new();
    for m in &r.monitors {
        if m.kind == "flux" && !m.normalized.is_empty() {
            out.push(format!(
                "monitor  {} flux / incident power through it: {}",
                m.name,
                few(&m.freq, &m.normalized)
            ));
        } else if m.kind == "flux" {
            let per = if r.per_watt_incident { " (W per W incident)" } else { "" };
            out.push(format!("monitor  {} flux{per}: {}", m.name, few(&m.freq, &m.flux)));
        } else {
            let samples: usize = m.fields.iter().map(|f| f.1.iter().product::<usize>()).sum();
            out.push(format!(
                "monitor  {} dft: {samples} samples at {} frequency(ies)",
                m.name,
                m.freq.len()
            ));
        }
    }
    for (i, c) in r.cross_sections.iter().enumerate() {
        out.extend(cross_section_lines(c, r.resolved.cross_sections.get(i)));
    }
    for s in &r.surfaces {
        let freq: Vec<f64> = s.surfaces.iter().map(|x| x.freq).collect();
        let flux: Vec<f64> = s.surfaces.iter().map(fdtd::monitors::post::flux).collect();
        let per = if r.per_watt_incident { " (W per W incident)" } else { "" };
        out.push(format!("farfield {} box flux{per}: {}", s.name, few(&freq, &flux)));
    }
    out
}

/// A cross section's summary: σ_ext, σ_sca, σ_abs at the frequency of the largest σ_ext
/// and the energy balance over the resolved frequencies.
fn cross_section_lines(c: &fdtd::results::CrossSectionResult, resolved: Option<&Vec<bool>>) -> Vec<String> {
    let ok = |k: usize| resolved.is_none_or(|r| r.get(k).copied().unwrap_or(false));
    let good: Vec<usize> = (0..c.freq.len())
        .filter(|&k| ok(k) && c.extinction[k].is_finite())
        .collect();
    let Some(&peak) = good
        .iter()
        .max_by(|&&a, &&b| c.extinction[a].total_cmp(&c.extinction[b]))
    else {
        return vec![format!(
            "cross section {}: no frequency in the band plane wave {} drives",
            c.name, c.wave
        )];
    };
    let balance = good
        .iter()
        .map(|&k| ((c.extinction[k] - c.scattering[k] - c.absorption[k]) / c.extinction[k]).abs())
        .fold(0.0, f64::max);
    let mut out = vec![format!(
        "cross section {} (plane wave {}): at {} σ_ext {} m², σ_sca {} m², σ_abs {} m² (largest σ_ext of {} frequencies)",
        c.name,
        c.wave,
        fdtd::fmt::hz(c.freq[peak]),
        fdtd::fmt::sig(c.extinction[peak], 4),
        fdtd::fmt::sig(c.scattering[peak], 4),
        fdtd::fmt::sig(c.absorption[peak], 4),
        good.len()
    )];
    out.push(format!(
        "cross section {}: energy balance |σ_ext − σ_sca − σ_abs| / σ_ext ≤ {:.2e} over the band",
        c.name, balance
    ));
    if good.len() < c.freq.len() {
        out.push(format!(
            "cross section {}: {} frequency(ies) outside the band the plane wave drives are marked unresolved",
            c.name,
            c.freq.len() - good.len()
        ));
    }
    out
}

//! `fdtd run`: scene → model → backend → HDF5, with a progress bar and Ctrl-C handling.
use super::fmt::{duration, lengths, si, sig, thousands};
use super::memory;
use super::{exit, load, resolution_warning, BackendArg, CliError, RunArgs};
use fdtd::backend::{self, gpu, Backend, BackendChoice, BackendOptions};
use fdtd::checkpoint::{self, Interval};
use fdtd::model::Model;
use fdtd::output::{Hdf5Options, Hdf5Sink};
use fdtd::plan::human_bytes;
use fdtd::runner::{self, CheckpointOptions, Fault, Outcome, RunError, RunEvent, RunOptions};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// `<scene stem>.h5` in the current directory.
fn default_output(scene: &Path) -> PathBuf {
    let stem = scene
        .file_stem()
        .map(|s| s.to_os_string())
        .unwrap_or_else(|| "out".into());
    let mut name = stem;
    name.push(".h5");
    PathBuf::from(name)
}

/// Refuse before allocating when the CPU plan does not fit in RAM.
fn check_ram(model: &Model, chunk: usize) -> Result<(), CliError> {
    let need = memory::cpu_plan(model, chunk).total();
    if let Some(avail) = memory::available_ram() {
        if need > avail {
            return Err(CliError::new(
                exit::DOES_NOT_FIT,
                format!(
                    "the run does not fit in RAM: {}",
                    memory::does_not_fit(model.grid.n, model.grid.d, need, avail)
                ),
            ));
        }
    }
    Ok(())
}

/// Whether `auto` passes over this adapter: a software rasteriser (lavapipe, llvmpipe,
/// WARP) is far slower than the CPU backend, so `auto` uses it only when it was asked
/// for by `--device`.
pub(super) fn skip_for_auto(info: &gpu::DeviceInfo, opts: &BackendOptions) -> bool {
    info.is_software() && opts.device.is_none()
}

pub(super) fn software_note(info: &gpu::DeviceInfo) -> String {
    format!(
        "the preferred GPU adapter, {}, is software and slower than the CPU backend (--backend gpu runs on it anyway)",
        info.short()
    )
}

/// Build the backend; the CPU backend only after the RAM check.
///
/// `auto` follows [`backend::create`] (the GPU when it can be created and its plan fits,
/// else the CPU), except that it passes over a software GPU, and checks RAM before the
/// CPU backend allocates.
fn make_backend(
    model: &Arc<Model>,
    choice: BackendArg,
    opts: &BackendOptions,
    chunk: usize,
) -> Result<(Box<dyn Backend>, String), CliError> {
    let cpu = |note: Option<String>| -> Result<(Box<dyn Backend>, String), CliError> {
        check_ram(model, chunk)?;
        let (b, d) = backend::create(model.clone(), BackendChoice::Cpu, opts).map_err(|e| CliError::backend(&e))?;
        Ok(match note {
            Some(why) => (b, format!("{d} (auto: {why})")),
            None => (b, d),
        })
    };
    match choice {
        BackendArg::Cpu => cpu(None),
        BackendArg::Gpu => backend::create(model.clone(), BackendChoice::Gpu, opts).map_err(|e| CliError::backend(&e)),
        BackendArg::Auto => match gpu::plan(model, opts) {
            Ok((_, info)) if skip_for_auto(&info, opts) => cpu(Some(software_note(&info))),
            Ok(_) => match backend::create(model.clone(), BackendChoice::Gpu, opts) {
                Ok((b, d)) => Ok((b, format!("{d} (auto: a GPU is available and the plan fits)"))),
                Err(e) => cpu(Some(e.to_string())),
            },
            Err(e) => cpu(Some(e.to_string())),
        },
    }
}

/// Before any large allocation: refuse an existing output (without `--force`) and an
/// output that cannot be created. Leaves the file system as it was.
fn precheck_output(out: &Path, force: bool) -> Result<(), CliError> {
    if out.exists() {
        if !force {
            return Err(CliError::bad_input(format!(
                "output file {} already exists; pass --force to overwrite it",
                out.display()
            )));
        }
        // Writable? (Opening for writing without truncation changes nothing.)
        std::fs::OpenOptions::new()
            .write(true)
            .open(out)
            .map_err(|e| CliError::runtime(format!("cannot overwrite output file {}: {e}", out.display())))?;
        return Ok(());
    }
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(CliError::bad_input(format!(
            "cannot create output file {}: directory {} does not exist",
            out.display(),
            dir.display()
        )));
    }
    match std::fs::OpenOptions::new().write(true).create_new(true).open(out) {
        Ok(_) => {
            let _ = std::fs::remove_file(out);
            Ok(())
        }
        Err(e) => Err(CliError::runtime(format!(
            "cannot create output file {}: {e}",
            out.display()
        ))),
    }
}

/// Install the Ctrl-C / SIGTERM handler: the first signal sets `stop` (the run ends after
/// the current chunk, writes a checkpoint and closes its file as "interrupted"); the
/// second flushes the open output files and exits with 130 at once.
fn install_interrupt(stop: Arc<AtomicBool>, resume_hint: String) {
    let count = AtomicUsize::new(0);
    let r = ctrlc::set_handler(move || {
        if count.fetch_add(1, Ordering::SeqCst) == 0 {
            stop.store(true, Ordering::SeqCst);
            eprintln!(
                "\ninterrupt: stopping after the current chunk, writing a checkpoint and closing the output \
                 (press Ctrl-C again to quit now)"
            );
        } else {
            eprintln!("\ninterrupt: quitting now; the output file stays valid. {resume_hint}");
            fdtd::output::exit_interrupted(exit::INTERRUPTED);
        }
    });
    if let Err(e) = r {
        eprintln!(
            "warning: cannot install the Ctrl-C handler ({e}); Ctrl-C will end the run without closing the output file"
        );
    }
}

/// `fdtd run SCENE --resume [-o OUT]`, quoted for messages.
fn resume_command(a: &RunArgs) -> String {
    let mut c = format!("fdtd run {} --resume", a.scene.display());
    if let Some(o) = &a.output {
        c.push_str(&format!(" -o {}", o.display()));
    }
    c
}

/// The newest checkpoint file at `path` whose header reads: (file, step).
fn last_checkpoint(path: &Path) -> Option<(PathBuf, u64)> {
    checkpoint::files(path)
        .into_iter()
        .filter_map(|p| checkpoint::read_header(&p).ok().map(|h| (p, h.step)))
        .max_by_key(|(_, s)| *s)
}

/// What to tell the user about resuming after a failure.
fn resume_advice(a: &RunArgs, ck: Option<&Path>, gpu: bool) -> String {
    let Some(path) = ck else {
        return "no checkpoints were enabled (--no-checkpoint), so the run cannot be resumed".into();
    };
    match last_checkpoint(path) {
        Some((file, step)) => {
            let mut s = format!(
                "the last checkpoint (step {step}) is in {}; continue with `{}`",
                file.display(),
                resume_command(a)
            );
            if gpu {
                s.push_str(" (add `--backend cpu` to continue on the CPU)");
            }
            s
        }
        None => format!(
            "no checkpoint had been written yet (interval: --checkpoint-every; checkpoints go to {})",
            path.display()
        ),
    }
}

/// Refuse before starting when the output (and checkpoints) cannot fit the free disk space.
fn check_disk(out: &Path, ck: Option<(&Path, u64)>, output: u64) -> Result<(), CliError> {
    let out_dir = memory::dir_of(out);
    let mut needs: Vec<(PathBuf, u64, String)> =
        vec![(out_dir.clone(), output, format!("output up to {}", human_bytes(output)))];
    if let Some((path, bytes)) = ck {
        let dir = memory::dir_of(path);
        let what = format!("checkpoints {}", human_bytes(bytes));
        let same = memory::device_of(&dir).is_some() && memory::device_of(&dir) == memory::device_of(&out_dir);
        if same {
            needs[0].1 = needs[0].1.saturating_add(bytes);
            needs[0].2.push_str(&format!(" + {what}"));
        } else {
            needs.push((dir, bytes, what));
        }
    }
    for (dir, need, what) in needs {
        if let Some(free) = memory::free_space(&dir) {
            if need > free {
                return Err(CliError::new(
                    exit::DOES_NOT_FIT,
                    format!(
                        "not enough disk space: the run needs up to {} on {} ({what}, uncompressed), {} is free; \
                         free some space, record fewer or smaller snapshots (every, plane, box), write elsewhere \
                         (-o), or pass --skip-disk-check (compression often makes the output much smaller)",
                        human_bytes(need),
                        dir.display(),
                        human_bytes(free)
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn output_error(e: fdtd::output::OutputError) -> CliError {
    use fdtd::output::OutputError as E;
    match e {
        E::Exists { .. } | E::NoDirectory { .. } | E::NotResumable { .. } | E::BadName { .. } => {
            CliError::bad_input(e.to_string())
        }
        _ => CliError::runtime(e.to_string()),
    }
}

pub fn run(a: &RunArgs) -> Result<i32, CliError> {
    // The GPU backend checks its own memory; everything else may end on the CPU.
    let (scene, model) = load(&a.scene, a.backend.backend != BackendArg::Gpu)?;
    runner::preflight(&model).map_err(|e| CliError::bad_input(format!("{}: {e}", a.scene.display())))?;
    let fault = Fault::from_env().map_err(CliError::bad_input)?;
    let model = Arc::new(model);
    let out = a.output.clone().unwrap_or_else(|| default_output(&a.scene));
    let chunk = a.chunk as usize;
    let g = &model.grid;

    // Checkpoints: the command line over the scene's [checkpoint] over the default.
    let section = scene.checkpoint();
    let ck_enabled = !a.no_checkpoint && section.enabled;
    let interval = a.checkpoint_every.unwrap_or_else(|| {
        if section.every_steps.is_some() || section.every_seconds.is_some() {
            Interval {
                steps: section.every_steps,
                time: section.every_seconds.map(Duration::from_secs_f64),
            }
        } else {
            Interval::default_time()
        }
    });
    let ck_path = section.path.clone().unwrap_or_else(|| checkpoint::default_path(&out));
    let fingerprint = checkpoint::fingerprint(&scene, &model);

    if !a.quiet {
        println!("fdtd {} · {}", env!("CARGO_PKG_VERSION"), a.scene.display());
        println!(
            "  grid     {} × {} × {} = {} cells of {}",
            g.n[0],
            g.n[1],
            g.n[2],
            thousands(g.cells()),
            lengths(g.d)
        );
        println!(
            "  time     dt = {}, {} steps ({} simulated), Courant {}",
            si(g.dt, "s"),
            thousands(g.steps as u64),
            si(g.dt * g.steps as f64, "s"),
            g.courant
        );
    }
    if let Some(w) = resolution_warning(&model) {
        eprintln!("warning: {w}");
    }

    // Output checks before any large allocation; the sink re-checks atomically.
    let mut existing_run_id = None;
    if a.resume {
        if !out.exists() {
            return Err(CliError::bad_input(format!(
                "nothing to resume: the output file {} does not exist (resume with the same -o as the run)",
                out.display()
            )));
        }
        let info = Hdf5Sink::inspect(&out).map_err(|e| CliError::bad_input(e.to_string()))?;
        if info.status == "complete" {
            return Err(CliError::bad_input(format!(
                "nothing to resume: {} is complete ({} steps)",
                out.display(),
                info.steps_done
            )));
        }
        if info.fingerprint != Some(fingerprint) {
            return Err(CliError::bad_input(format!(
                "cannot resume into {}: it was written for another scene, grid or fdtd version (start a new run \
                 with --force to overwrite it)",
                out.display()
            )));
        }
        if !ck_enabled {
            return Err(CliError::bad_input(
                "--resume needs checkpoints, but they are turned off (--no-checkpoint or [checkpoint] enabled = false)",
            ));
        }
        existing_run_id = info.run_id;
        if existing_run_id.is_none() {
            return Err(CliError::bad_input(format!(
                "cannot resume into {}: it has no run_id attribute",
                out.display()
            )));
        }
    } else {
        precheck_output(&out, a.force)?;
    }
    if ck_enabled {
        let dir = memory::dir_of(&ck_path);
        if !dir.is_dir() {
            return Err(CliError::bad_input(format!(
                "cannot write checkpoints to {}: directory {} does not exist (set [checkpoint] path, or \
                 --no-checkpoint)",
                ck_path.display(),
                dir.display()
            )));
        }
    }
    if !a.skip_disk_check {
        let from = if a.resume {
            last_checkpoint(&ck_path).map_or(0, |(_, s)| s as usize)
        } else {
            0
        };
        let generations = if a.resume { 1 } else { 2 };
        let ck = ck_enabled.then(|| (ck_path.as_path(), generations * checkpoint::size(&model)));
        check_disk(&out, ck, memory::output_bytes(&model, from))?;
    }

    let (mut backend, desc) = make_backend(&model, a.backend.backend, &a.backend.options(), chunk)?;
    let on_gpu = desc.starts_with("gpu");
    let opts = Hdf5Options {
        force: a.force,
        deflate: a.compression,
        xdmf: true,
    };
    let (mut sink, start) = if let Some(run_id) = existing_run_id {
        let ck_opts = CheckpointOptions {
            path: ck_path.clone(),
            interval,
            fingerprint,
            run_id,
        };
        let (step, notes) = runner::resume_state(&model, backend.as_mut(), &ck_opts).map_err(|e| {
            CliError::bad_input(format!(
                "cannot resume: {e}\n  help: start the run again with --force (this overwrites {})",
                out.display()
            ))
        })?;
        for n in notes {
            eprintln!("warning: {n}");
        }
        let sink = Hdf5Sink::resume(&out, &scene, &model, &desc, step, &opts).map_err(output_error)?;
        (sink, step)
    } else {
        let sink = Hdf5Sink::create_with(&out, &scene, &model, &desc, &opts).map_err(output_error)?;
        // Checkpoints of an earlier run of this output are now meaningless.
        if let Ok(n @ 1..) = checkpoint::remove_all(&ck_path) {
            eprintln!(
                "note: removed {n} stale checkpoint file(s) of an earlier run at {}",
                ck_path.display()
            );
        }
        (sink, 0)
    };
    if !a.quiet {
        println!("  backend  {desc}");
        println!("  output   {}", out.display());
        if ck_enabled {
            println!(
                "  checkpoint {}, {}, to {}",
                human_bytes(checkpoint::size(&model)),
                interval.describe(),
                ck_path.display()
            );
        }
        if start > 0 {
            println!(
                "  resuming from step {} of {} (the output keeps its first {} steps)",
                thousands(start as u64),
                thousands(g.steps as u64),
                thousands(start as u64)
            );
        }
    }
    // From here on Ctrl-C closes the output cleanly.
    let stop = Arc::new(AtomicBool::new(false));
    let hint = if ck_enabled {
        format!("Continue from the last checkpoint with `{}`", resume_command(a))
    } else {
        "Checkpoints are off: the run cannot be resumed.".to_string()
    };
    install_interrupt(stop.clone(), hint);

    let bar = if a.quiet || !std::io::stderr().is_terminal() {
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
    let events_bar = bar.clone();
    let quiet = a.quiet;
    let run_opts = RunOptions {
        chunk,
        stop: Some(stop),
        start,
        checkpoint: ck_enabled.then(|| CheckpointOptions {
            path: ck_path.clone(),
            interval,
            fingerprint,
            run_id: sink.run_id(),
        }),
        fault,
        events: Some(Box::new(move |e: &RunEvent| {
            let important = !matches!(e, RunEvent::CheckpointWritten { .. });
            if important || !quiet {
                let prefix = if important { "warning: " } else { "" };
                events_bar.suspend(|| eprintln!("{prefix}{e}"));
            }
        })),
        ..RunOptions::default()
    };
    let mut progress = |n: usize, _total: usize, mcells: f64| {
        bar.set_message(format!("{} Mcells/s", sig(mcells, 4)));
        bar.set_position(n as u64);
    };

    let result = runner::run(&model, backend.as_mut(), &mut sink, &run_opts, Some(&mut progress));
    bar.finish_and_clear();
    let ck_ref = ck_enabled.then_some(ck_path.as_path());
    let summary = match result {
        Ok(s) => s,
        Err(e) => {
            let msg = e.to_string();
            let close = sink.fail(&msg);
            let mut err = match &e {
                RunError::Backend { error, .. } => CliError::backend(error),
                RunError::Sink(_) | RunError::Unstable(_) => CliError::runtime(msg.clone()),
            };
            err.message = match &e {
                RunError::Backend { step, .. } => format!(
                    "the run failed at step {} of {}: {}",
                    thousands(*step as u64),
                    thousands(g.steps as u64),
                    err.message
                ),
                _ => format!("the run failed: {}", err.message),
            };
            match close {
                Ok(()) => err
                    .message
                    .push_str(&format!("\n  {} is closed with status \"failed\"", out.display())),
                Err(ce) => err.message.push_str(&format!("\n  also: {ce}")),
            }
            match &e {
                RunError::Backend { saved, .. } => {
                    if let Some(step) = saved {
                        err.message.push_str(&format!(
                            "\n  the state of step {step}, before the failure, was saved to a checkpoint"
                        ));
                    }
                    err.message
                        .push_str(&format!("\n  {}", resume_advice(a, ck_ref, on_gpu)));
                }
                RunError::Sink(_) => err.message.push_str(&format!(
                    "\n  once the output can be written again: {}",
                    resume_advice(a, ck_ref, false)
                )),
                RunError::Unstable(_) => err.message.push_str(
                    "\n  resuming would meet the same instability: fix the scene and start again with --force",
                ),
            }
            return Err(err);
        }
    };
    let contents = sink.contents();
    let xdmf = sink.xdmf_path().map(|p| p.to_path_buf());
    sink.finish(summary.outcome)
        .map_err(|e| CliError::runtime(e.to_string()))?;
    if summary.outcome == Outcome::Finished && ck_enabled {
        // The run is complete: its checkpoints are no longer needed.
        if let Err(e) = checkpoint::remove_all(&ck_path) {
            eprintln!("warning: could not remove the checkpoint {}: {e}", ck_path.display());
        }
    }

    let what = match summary.outcome {
        Outcome::Finished => format!("complete: {} steps", thousands(summary.steps_done as u64)),
        Outcome::Interrupted => format!(
            "interrupted after {} of {} steps",
            thousands(summary.steps_done as u64),
            thousands(g.steps as u64)
        ),
    };
    let mut line = format!(
        "{what} in {} ({} Mcells/s); wrote {}",
        duration(summary.total.as_secs_f64()),
        sig(summary.mcells_per_s(&model), 4),
        out.display()
    );
    if contents.is_empty() {
        line.push_str(" (attributes only: the scene has no probes or snapshots)");
    } else {
        line.push_str(&format!(" ({})", contents.join("; ")));
    }
    if let Some(x) = xdmf {
        line.push_str(&format!(" and {}", x.display()));
    }
    println!("{line}");
    Ok(match summary.outcome {
        Outcome::Finished => exit::OK,
        Outcome::Interrupted => {
            eprintln!("{}", resume_advice(a, ck_ref, false));
            exit::INTERRUPTED
        }
    })
}

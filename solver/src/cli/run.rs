//! `fdtd run`: scene → model → backend → HDF5, with a progress bar and Ctrl-C handling.
use super::fmt::{duration, lengths, si, sig, thousands};
use super::memory;
use super::{exit, load, resolution_warning, BackendArg, CliError, RunArgs};
use fdtd::backend::{self, gpu, Backend, BackendChoice, BackendOptions};
use fdtd::model::Model;
use fdtd::output::{Hdf5Options, Hdf5Sink};
use fdtd::runner::{self, Outcome, RunError, RunOptions};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

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
/// the current chunk and closes its file as "interrupted"); the second flushes the open
/// output files and exits with 130 at once.
fn install_interrupt(stop: Arc<AtomicBool>) {
    let count = AtomicUsize::new(0);
    let r = ctrlc::set_handler(move || {
        if count.fetch_add(1, Ordering::SeqCst) == 0 {
            stop.store(true, Ordering::SeqCst);
            eprintln!(
                "\ninterrupt: stopping after the current chunk and closing the output (press Ctrl-C again to quit now)"
            );
        } else {
            eprintln!("\ninterrupt: quitting now");
            fdtd::output::exit_interrupted(exit::INTERRUPTED);
        }
    });
    if let Err(e) = r {
        eprintln!(
            "warning: cannot install the Ctrl-C handler ({e}); Ctrl-C will end the run without closing the output file"
        );
    }
}

pub fn run(a: &RunArgs) -> Result<i32, CliError> {
    // The GPU backend checks its own memory; everything else may end on the CPU.
    let (scene, model) = load(&a.scene, a.backend.backend != BackendArg::Gpu)?;
    let model = Arc::new(model);
    let out = a.output.clone().unwrap_or_else(|| default_output(&a.scene));
    let chunk = a.chunk as usize;
    let g = &model.grid;

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
    precheck_output(&out, a.force)?;

    let (mut backend, desc) = make_backend(&model, a.backend.backend, &a.backend.options(), chunk)?;
    if !a.quiet {
        println!("  backend  {desc}");
        println!("  output   {}", out.display());
    }
    // From here on Ctrl-C closes the output cleanly.
    let stop = Arc::new(AtomicBool::new(false));
    install_interrupt(stop.clone());
    let opts = Hdf5Options {
        force: a.force,
        deflate: a.compression,
        xdmf: true,
    };
    let mut sink = Hdf5Sink::create_with(&out, &scene, &model, &desc, &opts).map_err(|e| match e {
        fdtd::output::OutputError::Exists { .. } | fdtd::output::OutputError::NoDirectory { .. } => {
            CliError::bad_input(e.to_string())
        }
        _ => CliError::runtime(e.to_string()),
    })?;

    let run_opts = RunOptions {
        chunk,
        stop: Some(stop),
    };

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
        b
    };
    let mut progress = |n: usize, _total: usize, mcells: f64| {
        bar.set_message(format!("{} Mcells/s", sig(mcells, 4)));
        bar.set_position(n as u64);
    };

    let result = runner::run(&model, backend.as_mut(), &mut sink, &run_opts, Some(&mut progress));
    bar.finish_and_clear();
    let summary = match result {
        Ok(s) => s,
        Err(e) => {
            let msg = e.to_string();
            let close = sink.fail(&msg);
            let mut err = match &e {
                RunError::Backend(be) => CliError::backend(be),
                RunError::Sink(_) => CliError::runtime(msg.clone()),
            };
            err.message = format!("the run failed: {}", err.message);
            match close {
                Ok(()) => err
                    .message
                    .push_str(&format!(" ({} closed with status \"failed\")", out.display())),
                Err(ce) => err.message.push_str(&format!("; also: {ce}")),
            }
            return Err(err);
        }
    };
    let contents = sink.contents();
    let xdmf = sink.xdmf_path().map(|p| p.to_path_buf());
    sink.finish(summary.outcome)
        .map_err(|e| CliError::runtime(e.to_string()))?;

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
        Outcome::Interrupted => exit::INTERRUPTED,
    })
}

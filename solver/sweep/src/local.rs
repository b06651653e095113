//! `fdtd sweep run`: the variants on this machine, `jobs` at a time, each through the
//! library session (`fdtd_core::session`) in this process. A variant starts only while
//! the memory plans of the running ones plus its own fit the device it runs on (the GPU
//! budget for GPU runs, the available RAM for CPU runs), so concurrent runs can share
//! one GPU. Complete variants are skipped; an interrupted one resumes from its
//! checkpoint.
use crate::layout::Layout;
use crate::plan::{Planned, PlannedVariant};
use crate::status::{hostname, is_complete, now, StatusFile};
use fdtd_core::backend::{BackendChoice, BackendOptions, Engine};
use fdtd_core::runner::{self, Outcome};
use fdtd_core::session::{
    CheckpointPolicy, CheckpointRequest, ErrorKind, OutputFormat, RunRequest, SceneSource, Session, SessionError,
};
use std::collections::VecDeque;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// The exit code `fdtd run` uses for a class of failure (also in status files).
pub fn exit_code(kind: ErrorKind) -> i32 {
    match kind {
        ErrorKind::BadInput => 2,
        ErrorKind::Runtime => 3,
        ErrorKind::DoesNotFit => 4,
        ErrorKind::Interrupted => 130,
    }
}

/// What a local sweep run reports while it goes (from its worker threads).
#[derive(Clone, Debug, PartialEq)]
pub enum LocalEvent {
    /// Complete results exist already.
    Skipped {
        id: String,
    },
    Started {
        id: String,
        backend: String,
        resumed_at: usize,
    },
    Progress {
        id: String,
        done: usize,
        total: usize,
    },
    Done {
        id: String,
        seconds: f64,
    },
    Interrupted {
        id: String,
    },
    Failed {
        id: String,
        exit_code: i32,
        message: String,
    },
}

pub type LocalEvents = Arc<dyn Fn(&LocalEvent) + Send + Sync>;

pub struct LocalOptions<'a> {
    /// Runs at a time (at least 1).
    pub jobs: usize,
    pub engines: &'a [&'a dyn Engine],
    pub format: &'a (dyn OutputFormat + Sync),
    pub backend: BackendChoice,
    /// `threads = 0` splits the cores evenly between the concurrent CPU runs.
    pub backend_options: BackendOptions,
    /// Bytes concurrent GPU runs may hold together (`None`: unknown, one GPU run at a time).
    pub gpu_budget: Option<u64>,
    /// Bytes concurrent CPU runs may hold together (`None`: unknown, no limit).
    pub ram_budget: Option<u64>,
    /// Set to stop: running variants checkpoint and close as interrupted, no new one starts.
    pub stop: Arc<AtomicBool>,
    pub events: Option<LocalEvents>,
}

/// How the variants ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LocalReport {
    pub done: Vec<String>,
    pub skipped: Vec<String>,
    pub interrupted: Vec<String>,
    /// `(id, exit code, message)`.
    pub failed: Vec<(String, i32, String)>,
    /// Not started because the run was stopped.
    pub not_started: Vec<String>,
}

struct Budget {
    gpu_used: u64,
    ram_used: u64,
    gpu_runs: usize,
    running: usize,
}

/// Run every variant of `planned` that has no complete result yet.
pub fn run(planned: &Planned, opts: &LocalOptions) -> LocalReport {
    let layout = &planned.layout;
    let emit = |e: LocalEvent| {
        if let Some(cb) = &opts.events {
            cb(&e);
        }
    };
    let mut report = LocalReport::default();
    let mut queue = VecDeque::new();
    for v in &planned.variants {
        if is_complete(layout, &v.entry.id) {
            let path = layout.status(&v.entry.id);
            if StatusFile::read(&path).ok().flatten().is_none_or(|s| s.state != "done") {
                let _ = StatusFile::new("done").with("finished", now()).write(&path);
            }
            report.skipped.push(v.entry.id.clone());
            emit(LocalEvent::Skipped { id: v.entry.id.clone() });
        } else {
            queue.push_back(v);
        }
    }
    let jobs = opts.jobs.max(1).min(queue.len().max(1));
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let threads = if opts.backend_options.threads == 0 {
        (cores / jobs).max(1)
    } else {
        opts.backend_options.threads
    };
    let state = Mutex::new((
        queue,
        Budget {
            gpu_used: 0,
            ram_used: 0,
            gpu_runs: 0,
            running: 0,
        },
    ));
    let freed = Condvar::new();
    let results = Mutex::new(report);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                // Take the first queued variant that fits next to the running ones.
                let (v, gpu, bytes) = {
                    let mut g = state.lock().expect("sweep queue");
                    loop {
                        if opts.stop.load(Ordering::SeqCst) {
                            let (q, _) = &mut *g;
                            let mut r = results.lock().expect("report");
                            r.not_started.extend(q.drain(..).map(|v| v.entry.id.clone()));
                            return;
                        }
                        let (q, b) = &mut *g;
                        if q.is_empty() {
                            return;
                        }
                        let pick = q.iter().position(|v| fits(v, b, opts));
                        if let Some(i) = pick {
                            let v = q.remove(i).expect("index");
                            let gpu = v.backend == BackendChoice::Gpu;
                            let bytes = v.entry.memory;
                            if gpu {
                                b.gpu_used += bytes;
                                b.gpu_runs += 1;
                            } else {
                                b.ram_used += bytes;
                            }
                            b.running += 1;
                            break (v, gpu, bytes);
                        }
                        g = freed
                            .wait_timeout(g, std::time::Duration::from_millis(200))
                            .expect("sweep queue")
                            .0;
                    }
                };
                let outcome = run_one(layout, v, opts, threads, &emit);
                {
                    let mut g = state.lock().expect("sweep queue");
                    let b = &mut g.1;
                    if gpu {
                        b.gpu_used -= bytes;
                        b.gpu_runs -= 1;
                    } else {
                        b.ram_used -= bytes;
                    }
                    b.running -= 1;
                }
                freed.notify_all();
                let mut r = results.lock().expect("report");
                let id = v.entry.id.clone();
                match outcome {
                    One::Done => r.done.push(id),
                    One::Interrupted => r.interrupted.push(id),
                    One::Failed(code, m) => r.failed.push((id, code, m)),
                }
            });
        }
    });
    let mut r = results.into_inner().expect("report");
    let order = |id: &String| planned.variants.iter().position(|v| &v.entry.id == id);
    for list in [&mut r.done, &mut r.interrupted, &mut r.not_started] {
        list.sort_by_key(order);
    }
    r.failed.sort_by_key(|(id, _, _)| order(id));
    r
}

/// Whether `v` may start now next to the running ones (one always may when nothing runs).
fn fits(v: &PlannedVariant, b: &Budget, opts: &LocalOptions) -> bool {
    if b.running == 0 {
        return true;
    }
    match v.backend {
        BackendChoice::Gpu => match opts.gpu_budget {
            Some(budget) => b.gpu_used + v.entry.memory <= budget,
            None => b.gpu_runs == 0,
        },
        _ => opts
            .ram_budget
            .is_none_or(|budget| b.ram_used + v.entry.memory <= budget),
    }
}

enum One {
    Done,
    Interrupted,
    Failed(i32, String),
}

fn run_one(layout: &Layout, v: &PlannedVariant, opts: &LocalOptions, threads: usize, emit: &dyn Fn(LocalEvent)) -> One {
    let id = v.entry.id.clone();
    let out = layout.output(&id);
    let status_path = layout.status(&id);
    let log_path = layout.log(&id);
    // Never through a planted link (the plan refused any; this holds if one appears since).
    let log_file = match crate::fsafe::open_append(&log_path) {
        Ok(f) => f,
        Err(e) => {
            let message = e.to_string();
            let _ = StatusFile::new("failed")
                .with("exit_code", 2)
                .with("finished", now())
                .write(&status_path);
            emit(LocalEvent::Failed {
                id,
                exit_code: 2,
                message: message.clone(),
            });
            return One::Failed(2, message);
        }
    };
    let log = Arc::new(Mutex::new(Some(log_file)));
    let write_log = {
        let log = log.clone();
        move |line: &str| {
            if let Ok(mut g) = log.lock() {
                if let Some(f) = g.as_mut() {
                    let _ = writeln!(f, "{line}");
                }
            }
        }
    };
    let started = now();
    let scene = v.variant.scene.as_ref().expect("planned variants are valid").clone();
    let policy = CheckpointPolicy::resolve(&scene.checkpoint(), &CheckpointRequest::default(), &out);
    let resumable = out.exists() && policy.enabled && runner::last_checkpoint(&policy.path).is_some();
    let mut status = StatusFile::new("running")
        .with("host", hostname())
        .with("pid", std::process::id())
        .with("started", started);
    let _ = status.write(&status_path);
    write_log(&format!("fdtd sweep run: variant {id} ({})", v.variant.describe()));

    let attempt = |resume: bool| -> Result<(fdtd_core::session::RunReport, String, usize), SessionError> {
        let mut req = RunRequest::new(SceneSource::Scene(Box::new(scene.clone())));
        req.output = Some(out.clone());
        req.resume = resume;
        req.force = !resume;
        req.backend = v.backend;
        req.backend_options = BackendOptions {
            threads,
            ..opts.backend_options.clone()
        };
        req.stop = Some(opts.stop.clone());
        let wl = write_log.clone();
        req.events = Some(Arc::new(move |e| wl(&format!("{:?}: {e}", e.severity()))));
        let pid = id.clone();
        let ev: Option<crate::local::LocalEvents> = opts.events.clone();
        req.progress = Some(Box::new(move |p: &runner::ProgressInfo| {
            if let Some(cb) = &ev {
                cb(&LocalEvent::Progress {
                    id: pid.clone(),
                    done: p.step,
                    total: p.total,
                });
            }
        }));
        let prepared = Session::load(req)?.prepare(opts.engines, opts.format)?;
        let backend = prepared.backend_description().to_string();
        let start = prepared.start();
        emit(LocalEvent::Started {
            id: id.clone(),
            backend: backend.clone(),
            resumed_at: start,
        });
        let r = prepared.run()?;
        Ok((r, backend, start))
    };
    let mut result = attempt(resumable);
    if resumable {
        if let Err(e @ (SessionError::NotResumable(_) | SessionError::ResumeState { .. })) = &result {
            write_log(&format!("cannot resume ({e}); starting again"));
            result = attempt(false);
        }
    }
    let finished = now();
    status = status.with("finished", finished);
    match result {
        Ok((report, backend, start)) => {
            let wall = report.summary.total.as_secs_f64();
            status = status
                .with("backend", &backend)
                .with("steps_done", report.summary.steps_done)
                .with("wall_s", format!("{wall:.3}"))
                .with("mcells_per_s", format!("{:.3}", report.mcells_per_s));
            if start > 0 {
                status = status.with("resumed_at", start);
            }
            match report.summary.outcome {
                Outcome::Finished => {
                    status.state = "done".into();
                    status = status.with("exit_code", 0);
                    let _ = status.write(&status_path);
                    write_log(&format!("complete in {wall:.2} s on {backend}"));
                    emit(LocalEvent::Done { id, seconds: wall });
                    One::Done
                }
                Outcome::Interrupted => {
                    status.state = "interrupted".into();
                    status = status.with("exit_code", 130);
                    let _ = status.write(&status_path);
                    write_log("interrupted; a checkpoint was written: running the sweep again resumes it");
                    emit(LocalEvent::Interrupted { id });
                    One::Interrupted
                }
            }
        }
        Err(e) => {
            let code = exit_code(e.kind());
            let message = e.to_string();
            status.state = if code == 130 { "interrupted" } else { "failed" }.into();
            status = status.with("exit_code", code);
            let _ = status.write(&status_path);
            write_log(&format!("error: {message}"));
            if code == 130 {
                emit(LocalEvent::Interrupted { id });
                return One::Interrupted;
            }
            emit(LocalEvent::Failed {
                id,
                exit_code: code,
                message: message.clone(),
            });
            One::Failed(code, message)
        }
    }
}

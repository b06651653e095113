//! Per-variant state: the status file each run writes itself (locally or as a Slurm
//! task), the variant's output file, and, when the sweep was submitted, the scheduler's
//! view of its tasks.
//!
//! A status file is `key=value` lines, so a shell script can write it:
//!
//! ```text
//! state=running            running | done | failed | interrupted
//! job=1234_5               Slurm job_task (absent for local runs)
//! host=node17
//! pid=4242                 the process running the variant
//! started=1764630000       Unix seconds
//! finished=1764630123
//! exit_code=3              for failed and interrupted runs
//! ```
use crate::layout::{write_atomic, Layout, Manifest};
use crate::results;
use crate::SweepError;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// What a status file says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StatusFile {
    pub state: String,
    pub fields: BTreeMap<String, String>,
}

impl StatusFile {
    pub fn new(state: &str) -> StatusFile {
        StatusFile {
            state: state.into(),
            fields: BTreeMap::new(),
        }
    }
    pub fn with(mut self, key: &str, value: impl ToString) -> StatusFile {
        self.fields.insert(key.into(), value.to_string());
        self
    }
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields.get(key).map(|s| s.as_str())
    }
    pub fn exit_code(&self) -> Option<i32> {
        self.get("exit_code").and_then(|s| s.trim().parse().ok())
    }

    /// Read `path`; `None` when it does not exist.
    pub fn read(path: &Path) -> Result<Option<StatusFile>, SweepError> {
        let bytes = match crate::fsafe::read_nofollow(path) {
            Ok(Some(b)) => b,
            Ok(None) => return Ok(None),
            Err(e) => return Err(SweepError::io(path, "reading the status file", e)),
        };
        Ok(Some(StatusFile::parse(&String::from_utf8_lossy(&bytes))))
    }

    pub fn parse(text: &str) -> StatusFile {
        let mut s = StatusFile::default();
        for line in text.lines() {
            if let Some((k, v)) = line.split_once('=') {
                let (k, v) = (k.trim(), v.trim());
                if k == "state" {
                    s.state = v.to_string();
                } else {
                    s.fields.insert(k.to_string(), v.to_string());
                }
            }
        }
        s
    }

    pub fn write(&self, path: &Path) -> Result<(), SweepError> {
        let mut text = format!("state={}\n", self.state);
        for (k, v) in &self.fields {
            text.push_str(&format!("{k}={v}\n"));
        }
        write_atomic(path, text.as_bytes())
    }
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// What the scheduler says about one array task.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskState {
    /// `PENDING`, `RUNNING`, `COMPLETED`, `FAILED`, `TIMEOUT`, `CANCELLED`, ...
    pub state: String,
    /// `ExitCode=3:0` → (3, 0).
    pub exit: Option<(i32, i32)>,
    /// `1234_5`.
    pub job: String,
}

/// The scheduler's view of a sweep: variant id → its newest task.
pub type SchedulerView = BTreeMap<String, TaskState>;

/// The state of a variant, as `fdtd sweep status` shows it.
#[derive(Clone, Debug, PartialEq)]
pub enum State {
    /// Not started (no status file, nothing queued).
    Pending,
    /// Submitted and waiting in the scheduler's queue.
    Queued {
        job: String,
    },
    Running {
        job: Option<String>,
        host: Option<String>,
    },
    /// Its output is complete (and of this variant's scene).
    Done,
    /// Stopped with a checkpoint (preempted, time limit, Ctrl-C): re-running resumes it.
    Interrupted {
        exit_code: Option<i32>,
    },
    /// The run failed, or its task ended without saying how.
    Failed {
        exit_code: Option<i32>,
        reason: String,
    },
}

impl State {
    pub fn label(&self) -> &'static str {
        match self {
            State::Pending => "pending",
            State::Queued { .. } => "queued",
            State::Running { .. } => "running",
            State::Done => "done",
            State::Interrupted { .. } => "interrupted",
            State::Failed { .. } => "failed",
        }
    }
    pub fn is_done(&self) -> bool {
        matches!(self, State::Done)
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// One row of the status table.
#[derive(Clone, Debug)]
pub struct VariantStatus {
    pub id: String,
    pub state: State,
    pub file: Option<StatusFile>,
    /// The last lines of its log, for failed and interrupted variants.
    pub log_tail: Vec<String>,
}

impl VariantStatus {
    /// The last line of the log the run itself wrote (not a task script's `== ` line).
    pub fn last_message(&self) -> Option<&str> {
        self.log_tail
            .iter()
            .rev()
            .find(|l| !l.starts_with("== "))
            .or(self.log_tail.last())
            .map(|s| s.trim())
    }

    /// Seconds the run took, from its status file (`wall_s`, else finished − started).
    pub fn run_time(&self) -> Option<f64> {
        let f = self.file.as_ref()?;
        if let Some(w) = f.get("wall_s").and_then(|s| s.parse::<f64>().ok()) {
            return Some(w);
        }
        let a = f.get("started")?.parse::<f64>().ok()?;
        let b = f.get("finished")?.parse::<f64>().ok()?;
        (b >= a).then_some(b - a)
    }
}

/// Whether the variant's output is complete and was made from its current scene.
pub fn is_complete(layout: &Layout, id: &str) -> bool {
    let scene = crate::fsafe::read_nofollow(&layout.scene(id))
        .ok()
        .flatten()
        .map(|b| String::from_utf8_lossy(&b).into_owned());
    results::completion(&layout.output(id), scene.as_deref()) == results::Completion::Complete
}

/// The last `n` non-empty lines of `path` (empty when it cannot be read). Progress-bar
/// redraws (`\r`) keep only their last state.
pub fn tail(path: &Path, n: usize) -> Vec<String> {
    // Not through a link: `status` prints these lines.
    let Ok(Some(bytes)) = crate::fsafe::read_nofollow(path) else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<String> = text
        .lines()
        .map(|l| l.rsplit('\r').next().unwrap_or("").trim_end().to_string())
        .filter(|l| !l.trim().is_empty())
        .collect();
    lines[lines.len().saturating_sub(n)..].to_vec()
}

fn alive(pid: &str) -> bool {
    Path::new("/proc").join(pid.trim()).exists()
}

/// The state of every variant of the manifest, with `scheduler` (when the sweep was
/// submitted and the scheduler answered) cross-checking what the status files say.
pub fn collect_status(layout: &Layout, manifest: &Manifest, scheduler: Option<&SchedulerView>) -> Vec<VariantStatus> {
    let host = hostname();
    manifest
        .variants
        .iter()
        .map(|e| {
            let file = StatusFile::read(&layout.status(&e.id)).ok().flatten();
            let task = scheduler.and_then(|s| s.get(&e.id));
            let state = classify(layout, &e.id, file.as_ref(), task, scheduler.is_some(), &host);
            let log_tail = match state {
                State::Failed { .. } | State::Interrupted { .. } => tail(&layout.log(&e.id), 5),
                _ => Vec::new(),
            };
            VariantStatus {
                id: e.id.clone(),
                state,
                file,
                log_tail,
            }
        })
        .collect()
}

fn classify(
    layout: &Layout,
    id: &str,
    file: Option<&StatusFile>,
    task: Option<&TaskState>,
    submitted: bool,
    host: &str,
) -> State {
    if is_complete(layout, id) {
        return State::Done;
    }
    let task_running = task.is_some_and(|t| matches!(t.state.as_str(), "RUNNING" | "COMPLETING" | "CONFIGURING"));
    let task_pending = task.is_some_and(|t| matches!(t.state.as_str(), "PENDING" | "REQUEUED" | "SUSPENDED"));
    match file.map(|f| f.state.as_str()) {
        Some("running") => {
            let f = file.expect("some");
            let job = f.get("job").map(str::to_string);
            if task_running || task_pending {
                return State::Running {
                    job,
                    host: f.get("host").map(str::to_string),
                };
            }
            // The scheduler knows the task and says it is over, yet the task never wrote
            // how it ended: killed (time limit, memory, node failure).
            if let Some(t) = task {
                return State::Failed {
                    exit_code: t.exit.map(|e| e.0),
                    reason: format!(
                        "task {} ended as {} without writing its status (killed?)",
                        t.job, t.state
                    ),
                };
            }
            // A local run: its process must still exist on this host.
            if f.get("job").is_none() && f.get("host") == Some(host) {
                if let Some(pid) = f.get("pid") {
                    if !alive(pid) {
                        return State::Failed {
                            exit_code: None,
                            reason: format!("process {pid} is gone without writing its status (killed?)"),
                        };
                    }
                }
            }
            State::Running {
                job,
                host: f.get("host").map(str::to_string),
            }
        }
        Some("done") => State::Failed {
            exit_code: file.and_then(|f| f.exit_code()),
            reason: "the status file says done, but the output is missing, incomplete or of another scene".into(),
        },
        Some("interrupted") => {
            if task_running || task_pending {
                return State::Queued {
                    job: task.map(|t| t.job.clone()).unwrap_or_default(),
                };
            }
            State::Interrupted {
                exit_code: file.and_then(|f| f.exit_code()),
            }
        }
        Some("failed") => {
            if task_running || task_pending {
                // Resubmitted: the new task has not written its status yet.
                return State::Queued {
                    job: task.map(|t| t.job.clone()).unwrap_or_default(),
                };
            }
            State::Failed {
                exit_code: file.and_then(|f| f.exit_code()),
                reason: "the run failed".into(),
            }
        }
        Some(other) => State::Failed {
            exit_code: None,
            reason: format!("unknown state {other:?} in {}", layout.status(id).display()),
        },
        None => {
            if let Some(t) = task {
                if task_pending || task_running {
                    return State::Queued { job: t.job.clone() };
                }
                if submitted {
                    return State::Failed {
                        exit_code: t.exit.map(|e| e.0),
                        reason: format!("task {} ended as {} before the variant started", t.job, t.state),
                    };
                }
            }
            State::Pending
        }
    }
}

/// This machine's short host name.
pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().split('.').next().unwrap_or("").to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_files_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("status");
        assert_eq!(StatusFile::read(&p).unwrap(), None);
        StatusFile::new("failed")
            .with("exit_code", 3)
            .with("job", "12_4")
            .write(&p)
            .unwrap();
        let s = StatusFile::read(&p).unwrap().unwrap();
        assert_eq!(s.state, "failed");
        assert_eq!(s.exit_code(), Some(3));
        assert_eq!(s.get("job"), Some("12_4"));
        // What the shell writes.
        let s = StatusFile::parse("state=running\njob=7_0\nhost=n1\n\ngarbage\n");
        assert_eq!(s.state, "running");
        assert_eq!(s.get("host"), Some("n1"));
    }

    #[test]
    fn tail_keeps_the_last_lines_and_the_last_redraw() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("log");
        std::fs::write(&p, "a\nb\n\nprogress 1\rprogress 2\nerror: boom\n").unwrap();
        assert_eq!(tail(&p, 2), ["progress 2", "error: boom"]);
        assert_eq!(tail(&dir.path().join("none"), 2), Vec::<String>::new());
    }
}

//! `fdtd sweep submit --slurm`: a job-array script (kept readable in the sweep directory)
//! whose task `i` runs `fdtd run` on the `i`-th variant that has no complete result; its
//! submission; and the scheduler's view of the tasks (`scontrol`), which `status` and
//! `collect` cross-check with the status files the tasks write.
use crate::layout::{write_atomic, Layout, Manifest};
use crate::status::{SchedulerView, TaskState};
use crate::SweepError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the job array asks Slurm for.
#[derive(Clone, Debug, Default)]
pub struct SlurmOptions {
    pub partition: Option<String>,
    /// `--time` as Slurm takes it (`30`, `2:00:00`, `1-00:00:00`).
    pub time: Option<String>,
    pub gpus_per_task: Option<u32>,
    pub cpus_per_task: Option<u32>,
    /// `--mem` as Slurm takes it (`4G`).
    pub mem: Option<String>,
    pub account: Option<String>,
    /// At most this many tasks at once (`--array=...%K`).
    pub max_parallel: Option<u32>,
    /// Further `#SBATCH` lines, e.g. `--qos=long` or `--constraint=a100`.
    pub extra_sbatch: Vec<String>,
    /// Seconds before the time limit at which Slurm sends SIGTERM (the run checkpoints).
    pub signal_seconds: u32,
    /// The `fdtd` binary the tasks run (absolute).
    pub fdtd: PathBuf,
    /// `--backend` for `fdtd run` (`cpu`, `gpu`, `auto`).
    pub backend: Option<String>,
}

/// Default warning before the time limit: enough to finish a chunk and write a checkpoint.
pub const DEFAULT_SIGNAL_SECONDS: u32 = 300;

fn quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The sweep's name as a job name: `#SBATCH` lines are not shell, so no quoting there.
fn job_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Check an option value that goes onto an `#SBATCH` line.
fn line_safe(what: &str, v: &str) -> Result<(), SweepError> {
    if v.trim().is_empty() || v.trim().contains(char::is_whitespace) {
        return Err(SweepError::Scheduler(format!(
            "{what} {v:?}: must be one word (#SBATCH lines take no spaces or quoting)"
        )));
    }
    Ok(())
}

/// The job-array script for `ids` (task `i` runs `ids[i]`).
pub fn script(layout: &Layout, manifest: &Manifest, ids: &[String], o: &SlurmOptions) -> Result<String, SweepError> {
    if ids.is_empty() {
        return Err(SweepError::Scheduler("no variant left to submit".into()));
    }
    if layout.dir.display().to_string().contains(char::is_whitespace) {
        return Err(SweepError::Scheduler(format!(
            "the sweep directory {:?} has white space, which an #SBATCH --output line cannot hold; \
             choose another [sweep] directory",
            layout.dir.display()
        )));
    }
    let mut sb = vec![
        format!("--job-name=fdtd-{}", job_name(&manifest.name)),
        match o.max_parallel {
            Some(k) => format!("--array=0-{}%{k}", ids.len() - 1),
            None => format!("--array=0-{}", ids.len() - 1),
        },
        format!(
            "--output={}",
            quote(&layout.slurm_dir().join("task-%A_%a.out").display().to_string())
        ),
        // SIGTERM to the batch shell `signal_seconds` before the time limit: it passes it
        // to `fdtd run`, which finishes its chunk, writes a checkpoint and exits 130.
        format!("--signal=B:TERM@{}", o.signal_seconds),
        "--requeue".into(),
        "--open-mode=append".into(),
    ];
    let opt = |flag: &str, v: &Option<String>| v.as_ref().map(|v| format!("--{flag}={}", v.trim()));
    for (what, v) in [
        ("--partition", &o.partition),
        ("--time", &o.time),
        ("--mem", &o.mem),
        ("--account", &o.account),
    ] {
        if let Some(v) = v {
            line_safe(what, v)?;
        }
    }
    sb.extend(opt("partition", &o.partition));
    sb.extend(opt("time", &o.time));
    sb.extend(o.gpus_per_task.map(|g| format!("--gpus-per-task={g}")));
    sb.extend(o.cpus_per_task.map(|c| format!("--cpus-per-task={c}")));
    sb.extend(opt("mem", &o.mem));
    sb.extend(opt("account", &o.account));
    for x in &o.extra_sbatch {
        line_safe("--extra-sbatch", x)?;
        let x = x.trim();
        sb.push(if x.starts_with('-') {
            x.to_string()
        } else {
            format!("--{x}")
        });
    }
    let mut s = String::new();
    s.push_str("#!/bin/bash\n");
    s.push_str(&format!(
        "# Sweep {:?}: {} variant(s) as a Slurm job array, written by `fdtd sweep submit`.\n",
        manifest.name,
        ids.len()
    ));
    s.push_str(
        "# Task i runs variant VARIANTS[i] with `fdtd run`, resuming from its checkpoint when an\n\
         # earlier task (preempted, requeued, out of time) left one. Each task writes\n\
         # variants/<id>/status itself (running, then done / failed / interrupted with the exit\n\
         # code) and appends the run's output to variants/<id>/log.\n\
         # `fdtd sweep status DIR` shows the table; `fdtd sweep submit` again reruns what is not\n\
         # complete; `fdtd sweep collect DIR` writes the summary.\n",
    );
    for l in &sb {
        s.push_str(&format!("#SBATCH {l}\n"));
    }
    s.push_str("set -uo pipefail\n\n");
    s.push_str(&format!("FDTD={}\n", quote(&o.fdtd.display().to_string())));
    s.push_str(&format!("SWEEP={}\n", quote(&layout.dir.display().to_string())));
    s.push_str("VARIANTS=(\n");
    for chunk in ids.chunks(8) {
        s.push_str(&format!("  {}\n", chunk.join(" ")));
    }
    s.push_str(")\n");
    s.push_str(&format!(
        "BACKEND=({})\n",
        o.backend
            .as_ref()
            .map(|b| format!("--backend {}", quote(b)))
            .unwrap_or_default()
    ));
    s.push_str(TASK_BODY);
    Ok(s)
}

/// What every task does (after the variables above).
const TASK_BODY: &str = r#"
id=${VARIANTS[$SLURM_ARRAY_TASK_ID]}
dir=$SWEEP/variants/$id
job=${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}
started=$(date +%s)

# Never write through a link planted at a name this task writes (`fdtd sweep` refuses
# them before submitting; this holds if one appears since).
for f in "$SWEEP" "$SWEEP/variants" "$dir" "$dir/status" "$dir/status.tmp" "$dir/log" \
         "$dir/result.h5" "$dir/result.h5.ckpt" "$dir/result.h5.ckpt.prev"; do
  if [ -L "$f" ]; then
    echo "fdtd sweep task $job: $f is a symbolic link; refusing to write through it" >&2
    exit 2
  fi
done

# status STATE [EXIT_CODE]: write variants/<id>/status atomically (the temporary is
# created new, with noclobber: never through a link).
status() {
  rm -f "$dir/status.tmp"
  ( set -C; {
    echo "state=$1"
    echo "job=$job"
    echo "host=$(hostname -s)"
    echo "pid=$$"
    echo "started=$started"
    echo "restarts=${SLURM_RESTART_COUNT:-0}"
    if [ $# -ge 2 ]; then echo "exit_code=$2"; echo "finished=$(date +%s)"; fi
  } > "$dir/status.tmp" ) && mv -f "$dir/status.tmp" "$dir/status"
}

log() { echo "== $(date -Is) task $job: $*" >> "$dir/log"; }

if [ -f "$dir/result.h5" ] && grep -qx 'state=done' "$dir/status" 2>/dev/null; then
  log "complete results exist; nothing to do"
  exit 0
fi

# run ARGS...: fdtd in the background, so that SIGTERM (preemption, or --signal before
# the time limit) reaches it: it checkpoints, closes its output and exits 130.
run() {
  log "on $(hostname -s): fdtd $*"
  "$FDTD" "$@" >> "$dir/log" 2>&1 &
  pid=$!
  term=1
  trap 'term=1; log "SIGTERM: asking fdtd to checkpoint and stop"; kill -TERM $pid 2>/dev/null' TERM
  # A signal ends `wait` early (status > 128): wait again until fdtd itself exits.
  while [ $term = 1 ]; do term=0; wait $pid; rc=$?; done
  trap - TERM
}

status running
args=(run "$dir/scene.toml" -o "$dir/result.h5" "${BACKEND[@]}")
if [ -f "$dir/result.h5" ] && { [ -f "$dir/result.h5.ckpt" ] || [ -f "$dir/result.h5.ckpt.prev" ]; }; then
  run "${args[@]}" --resume
  if [ $rc -eq 2 ]; then
    log "cannot resume (exit 2); starting the variant again"
    run "${args[@]}" --force
  fi
else
  run "${args[@]}" --force
fi

case $rc in
  0) status done 0 ;;
  130) status interrupted 130; log "interrupted with a checkpoint: submit again to resume" ;;
  *) status failed $rc; log "failed with exit code $rc" ;;
esac
exit $rc
"#;

/// Write the script to the sweep directory; returns its path.
pub fn write_script(layout: &Layout, text: &str) -> Result<PathBuf, SweepError> {
    let dir = layout.slurm_dir();
    crate::fsafe::real_dir(&dir)?;
    let path = layout.script();
    write_atomic(&path, text.as_bytes())?;
    Ok(path)
}

/// `sbatch --parsable SCRIPT`; records the job id and its tasks' variants in
/// `slurm/jobs`; returns the job id.
pub fn submit(layout: &Layout, script: &Path, ids: &[String]) -> Result<String, SweepError> {
    let out = Command::new("sbatch")
        .arg("--parsable")
        .arg(script)
        .current_dir(&layout.dir)
        .output()
        .map_err(|e| {
            SweepError::Scheduler(format!(
                "cannot run sbatch ({e}): is Slurm installed here? --dry-run writes the script without submitting"
            ))
        })?;
    if !out.status.success() {
        return Err(SweepError::Scheduler(format!(
            "sbatch refused {} ({}): {}",
            script.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    // `--parsable` prints `jobid` or `jobid;cluster`.
    let job = text.trim().split(';').next().unwrap_or("").trim().to_string();
    if job.is_empty() || !job.chars().all(|c| c.is_ascii_digit()) {
        return Err(SweepError::Scheduler(format!(
            "sbatch printed {:?}, not a job id",
            text.trim()
        )));
    }
    let mut jobs = read_jobs(layout);
    jobs.push_str(&format!("{job} {}\n", ids.join(",")));
    write_atomic(&layout.jobs(), jobs.as_bytes())?;
    Ok(job)
}

fn read_jobs(layout: &Layout) -> String {
    crate::fsafe::read_nofollow(&layout.jobs())
        .ok()
        .flatten()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

/// The submitted jobs: `(job id, variant of each task)`, oldest first.
pub fn jobs(layout: &Layout) -> Vec<(String, Vec<String>)> {
    read_jobs(layout)
        .lines()
        .filter_map(|l| {
            let (job, ids) = l.trim().split_once(' ')?;
            Some((job.to_string(), ids.split(',').map(str::to_string).collect()))
        })
        .collect()
}

/// Task indices of `ArrayTaskId=`: `3`, `4-6`, `0-9%2`, `1,3,5-7`.
pub fn task_ids(spec: &str) -> Vec<usize> {
    let spec = spec.split('%').next().unwrap_or("");
    let mut out = Vec::new();
    for part in spec.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.trim().parse::<usize>(), b.trim().parse::<usize>()) {
                    out.extend(a..=b.min(a + 1_000_000));
                }
            }
            None => out.extend(part.trim().parse::<usize>().ok()),
        }
    }
    out
}

/// Parse `scontrol -o show job ID` (one line per task or pending range): task → state.
pub fn parse_scontrol(text: &str) -> Vec<(usize, TaskState)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let field = |k: &str| {
            line.split_whitespace()
                .find_map(|w| w.strip_prefix(k).and_then(|r| r.strip_prefix('=')))
        };
        let (Some(job), Some(tasks), Some(state)) = (field("ArrayJobId"), field("ArrayTaskId"), field("JobState"))
        else {
            continue;
        };
        let exit = field("ExitCode").and_then(|e| {
            let (a, b) = e.split_once(':')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        });
        for t in task_ids(tasks) {
            out.push((
                t,
                TaskState {
                    state: state.to_string(),
                    exit,
                    job: format!("{job}_{t}"),
                },
            ));
        }
    }
    out
}

/// The scheduler's view of every task this sweep submitted (newest submission wins), or
/// `None` when the sweep was never submitted or `scontrol` is not available.
pub fn scheduler_view(layout: &Layout) -> Option<SchedulerView> {
    let jobs = jobs(layout);
    if jobs.is_empty() {
        return None;
    }
    let mut view = SchedulerView::new();
    let mut answered = false;
    for (job, ids) in jobs {
        let Ok(out) = Command::new("scontrol").args(["-o", "show", "job", &job]).output() else {
            return None;
        };
        if !out.status.success() {
            continue; // purged from the controller's memory (MinJobAge) or unknown
        }
        answered = true;
        for (task, st) in parse_scontrol(&String::from_utf8_lossy(&out.stdout)) {
            if let Some(id) = ids.get(task) {
                view.insert(id.clone(), st);
            }
        }
    }
    answered.then_some(view)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ranges() {
        assert_eq!(task_ids("3"), [3]);
        assert_eq!(task_ids("4-6"), [4, 5, 6]);
        assert_eq!(task_ids("0-3%2"), [0, 1, 2, 3]);
        assert_eq!(task_ids("1,3,5-6"), [1, 3, 5, 6]);
        assert!(task_ids("x").is_empty());
    }

    #[test]
    fn scontrol_lines() {
        let text =
            "JobId=13 ArrayJobId=12 ArrayTaskId=1 JobName=x JobState=FAILED Reason=NonZeroExitCode ExitCode=3:0\n\
                    JobId=12 ArrayJobId=12 ArrayTaskId=2-3%1 JobState=PENDING Reason=JobArrayTaskLimit ExitCode=0:0\n\
                    JobId=14 ArrayJobId=12 ArrayTaskId=0 JobState=COMPLETED ExitCode=0:0\n";
        let v = parse_scontrol(text);
        assert_eq!(v.len(), 4);
        assert_eq!(v[0].0, 1);
        assert_eq!(v[0].1.state, "FAILED");
        assert_eq!(v[0].1.exit, Some((3, 0)));
        assert_eq!(v[0].1.job, "12_1");
        assert_eq!((v[1].0, v[2].0), (2, 3));
        assert_eq!(v[2].1.state, "PENDING");
        assert_eq!(v[3].1.state, "COMPLETED");
    }

    #[test]
    fn script_has_the_array_the_signal_and_every_variant() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        let m = Manifest {
            format: crate::layout::MANIFEST_FORMAT,
            name: "arm length".into(),
            sweep_file: "s.toml".into(),
            base: "b.toml".into(),
            columns: vec!["arm".into()],
            parameters: 1,
            figures: vec![],
            variants: vec![],
        };
        let ids: Vec<String> = ["v000", "v002", "v005"].map(String::from).to_vec();
        let o = SlurmOptions {
            partition: Some("gpu".into()),
            time: Some("1:00:00".into()),
            gpus_per_task: Some(1),
            max_parallel: Some(2),
            extra_sbatch: vec!["--qos=long".into(), "constraint=a100".into()],
            signal_seconds: 120,
            fdtd: "/opt/fdtd/bin/fdtd".into(),
            backend: Some("gpu".into()),
            ..SlurmOptions::default()
        };
        let s = script(&layout, &m, &ids, &o).unwrap();
        for want in [
            "#SBATCH --array=0-2%2\n",
            "#SBATCH --job-name=fdtd-arm_length\n",
            "#SBATCH --signal=B:TERM@120\n",
            "#SBATCH --requeue\n",
            "#SBATCH --partition=gpu\n",
            "#SBATCH --time=1:00:00\n",
            "#SBATCH --gpus-per-task=1\n",
            "#SBATCH --qos=long\n",
            "#SBATCH --constraint=a100\n",
            "FDTD=/opt/fdtd/bin/fdtd\n",
            "  v000 v002 v005\n",
            "BACKEND=(--backend gpu)\n",
            "--resume",
        ] {
            assert!(s.contains(want), "missing {want:?} in\n{s}");
        }
        assert!(script(&layout, &m, &[], &o).is_err());
        let spaced = Layout::new(dir.path().join("my sweep"));
        assert!(script(&spaced, &m, &ids, &o)
            .unwrap_err()
            .to_string()
            .contains("white space"));
        let two_words = SlurmOptions {
            partition: Some("gpu long".into()),
            ..o.clone()
        };
        assert!(script(&layout, &m, &ids, &two_words).is_err());
        let bad = SlurmOptions {
            extra_sbatch: vec!["--qos=a\n#SBATCH --x".into()],
            ..o
        };
        assert!(script(&layout, &m, &ids, &bad).is_err());
    }
}

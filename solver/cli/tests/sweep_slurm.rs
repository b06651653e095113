//! `fdtd sweep submit --slurm` against a real Slurm: a single-node cluster started by
//! `scripts/slurm/start.sh` (slurmctld, slurmd, munge from Debian's packages) and stopped
//! by `scripts/slurm/stop.sh` from a drop guard, also when the test fails. A sweep runs as
//! a job array (6 variants of a small dipole's arm length) with one variant made to fail
//! (its output path is a directory); `status` and `collect` must report it with its exit
//! code, and a resubmission runs only it. Then the shipped sweep of `scenes/sweeps/dipole.toml`
//! (7 arm lengths) runs as an array and its resonances must follow the arm length.
//!
//! Without the Slurm binaries (or not as root) the test is skipped with the reason,
//! unless `CI` is set: then it fails, because CI must run it (`scripts/setup.sh --test`
//! installs the packages).
mod sweep_common;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use sweep_common::*;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Why Slurm cannot run here, if it cannot.
fn unavailable() -> Option<String> {
    let missing: Vec<&str> = [
        "/usr/sbin/slurmctld",
        "/usr/sbin/slurmd",
        "/usr/sbin/munged",
        "/usr/bin/sbatch",
    ]
    .into_iter()
    .filter(|p| !Path::new(p).exists())
    .collect();
    if !missing.is_empty() {
        return Some(format!(
            "Slurm is not installed ({} missing; scripts/setup.sh --test installs slurmctld slurmd slurm-client munge)",
            missing.join(", ")
        ));
    }
    let uid = Command::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return Some("starting slurmctld, slurmd and munged needs root".into());
    }
    None
}

/// Stops the daemons when dropped (the test passed, failed or panicked).
struct Cluster;

impl Cluster {
    fn start() -> Cluster {
        let guard = Cluster; // stop whatever a failed start left behind
        let o = Command::new("bash")
            .arg(repo().join("scripts/slurm/start.sh"))
            .env("SLURM_START_TIMEOUT", "60")
            .output()
            .expect("run scripts/slurm/start.sh");
        assert!(
            o.status.success(),
            "scripts/slurm/start.sh failed:\n{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        guard
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let o = Command::new("bash").arg(repo().join("scripts/slurm/stop.sh")).output();
        if let Ok(o) = o {
            eprintln!("{}", String::from_utf8_lossy(&o.stderr));
        }
    }
}

/// Wait until no task of `job` is pending or running.
fn wait_for(job: &str, limit: Duration) {
    let t0 = Instant::now();
    loop {
        let o = Command::new("squeue")
            .args(["-h", "-j", job, "-o", "%i %T"])
            .output()
            .unwrap();
        let s = String::from_utf8_lossy(&o.stdout);
        if o.status.success() && s.trim().is_empty() {
            return;
        }
        assert!(
            t0.elapsed() < limit,
            "job {job} still queued or running after {limit:?}:\n{s}"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
}

fn job_id(o: &std::process::Output) -> String {
    let s = stdout(o);
    let id = s.lines().last().unwrap_or("").trim().to_string();
    assert!(
        !id.is_empty() && id.chars().all(|c| c.is_ascii_digit()),
        "no job id in:\n{s}"
    );
    id
}

#[test]
fn sweep_runs_as_a_slurm_job_array_and_reports_the_failed_variant() {
    if let Some(why) = unavailable() {
        if std::env::var_os("CI").is_some() {
            panic!("CI is set, so the Slurm sweep test must run, but: {why}");
        }
        eprintln!("skipping the Slurm sweep test: {why}");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_sweep(dir, &[0.016, 0.020, 0.024, 0.028, 0.032, 0.036], "");
    let o = fdtd(dir, &["sweep", "plan", "sweep.toml", "--backend", "cpu"]);
    assert!(o.status.success());
    // Variant v001 fails on purpose: its output path is a directory.
    std::fs::create_dir(dir.join("out/variants/v001/result.h5")).unwrap();

    let _cluster = Cluster::start();
    let submit = [
        "sweep",
        "submit",
        "sweep.toml",
        "--slurm",
        "--backend",
        "cpu",
        "--cpus-per-task",
        "1",
        "--time",
        "10",
        "--signal-seconds",
        "30",
    ];
    let o = fdtd(dir, &submit);
    assert!(o.status.success());
    let job = job_id(&o);
    let script = std::fs::read_to_string(dir.join("out/slurm/array.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --array=0-5\n"), "{script}");
    assert!(script.contains("#SBATCH --signal=B:TERM@30\n"), "{script}");
    assert!(script.contains("#SBATCH --cpus-per-task=1\n"), "{script}");
    wait_for(&job, Duration::from_secs(300));

    // status: one table, v001 failed with its exit code and the tail of its log.
    let o = fdtd(dir, &["sweep", "status", "out"]);
    assert!(o.status.success());
    let s = stdout(&o);
    assert!(
        s.contains("6 variant(s): 5 done, 1 failed (cross-checked with Slurm)"),
        "{s}"
    );
    let row = s.lines().find(|l| l.starts_with("v001")).unwrap();
    assert!(row.contains("failed"), "{row}");
    assert!(
        row.contains("cannot overwrite output file"),
        "the detail is the run's own error: {row}"
    );
    let st = std::fs::read_to_string(dir.join("out/variants/v001/status")).unwrap();
    assert!(st.starts_with("state=failed\n"), "{st}");
    let code: i32 = st
        .lines()
        .find_map(|l| l.strip_prefix("exit_code="))
        .unwrap()
        .parse()
        .unwrap();
    assert!(code == 2 || code == 3, "exit code {code}");
    assert!(row.contains(&format!(" {code} ")), "{row}");
    assert!(row.contains(&format!("{job}_1")), "{row}");
    assert!(s.contains("v001 log ("), "{s}");
    assert!(s.contains("result.h5"), "the log tail names the output: {s}");
    for id in ["v000", "v002", "v003", "v004", "v005"] {
        let st = std::fs::read_to_string(dir.join(format!("out/variants/{id}/status"))).unwrap();
        assert!(
            st.starts_with("state=done\n") && st.contains(&format!("job={job}_")),
            "{id}: {st}"
        );
    }

    // collect: every variant in the summary, v001 named as failed; exit code 3.
    let o = fdtd(dir, &["sweep", "collect", "out"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stdout(&o).contains("5 done, 1 failed, 0 missing"), "{}", stdout(&o));
    assert!(stdout(&o).contains("failed  v001: the run failed"), "{}", stdout(&o));
    let rows = read_csv(&dir.join("out/summary.csv"));
    assert_eq!(rows.len(), 6);
    assert_eq!(rows[1]["state"], "failed");
    assert!(rows[1]["note"].contains(&format!("exit code {code}")), "{:?}", rows[1]);
    assert_eq!(rows[1]["z_in_f0_hz"], "");
    check_resonances(&resonances(&rows));
    let f = hdf5::File::open(dir.join("out/summary.h5")).unwrap();
    assert_eq!(f.attr("n_failed").unwrap().read_scalar::<u64>().unwrap(), 1);

    // Fix the cause and submit again: only v001 runs.
    std::fs::remove_dir(dir.join("out/variants/v001/result.h5")).unwrap();
    let o = fdtd(dir, &submit);
    assert!(o.status.success());
    assert!(
        stdout(&o).contains("skipping 5 variant(s) with complete results"),
        "{}",
        stdout(&o)
    );
    let script = std::fs::read_to_string(dir.join("out/slurm/array.sbatch")).unwrap();
    assert!(
        script.contains("#SBATCH --array=0-0\n") && script.contains("  v001\n"),
        "{script}"
    );
    let job2 = job_id(&o);
    assert_ne!(job, job2);
    wait_for(&job2, Duration::from_secs(300));
    let o = fdtd(dir, &["sweep", "collect", "out"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let rows = read_csv(&dir.join("out/summary.csv"));
    assert!(rows.iter().all(|r| r["state"] == "done"), "{rows:?}");
    check_resonances(&resonances(&rows));

    // The shipped sweep: 7 arm lengths of scenes/sweeps/dipole.toml (1 mm cells, as shipped),
    // as a job array on the same cluster. The first resonance must fall with the arm,
    // f0·L/c near 0.46 (docs/sweeps.md), Re Z at resonance near 70 ohm.
    let ant = dir.join("antenna");
    std::fs::create_dir_all(ant.join("sweeps")).unwrap();
    std::fs::copy(repo().join("scenes/sweeps/dipole.toml"), ant.join("sweeps/dipole.toml")).unwrap();
    std::fs::copy(
        repo().join("scenes/sweeps/antenna_arm.toml"),
        ant.join("sweeps/antenna_arm.toml"),
    )
    .unwrap();
    let o = fdtd(
        &ant,
        &[
            "sweep",
            "submit",
            "sweeps/antenna_arm.toml",
            "--slurm",
            "--backend",
            "cpu",
            "--cpus-per-task",
            "1",
            "--time",
            "30",
        ],
    );
    assert!(o.status.success(), "{}", stdout(&o));
    wait_for(&job_id(&o), Duration::from_secs(1500));
    let o = fdtd(&ant, &["sweep", "collect", "sweeps/antenna_arm"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let rows = read_csv(&ant.join("sweeps/antenna_arm/summary.csv"));
    assert_eq!(rows.len(), 7, "{rows:?}");
    let res = resonances(&rows);
    check_resonances(&res);
    for ((l, f0), r) in res.iter().zip(&rows) {
        let k = f0 * l / 299_792_458.0;
        assert!((0.44..0.48).contains(&k), "f0·L/c = {k} for L = {l} m");
        let re: f64 = r["z_in_re_ohm"].parse().unwrap();
        assert!((60.0..80.0).contains(&re), "Re Z = {re} ohm for L = {l} m");
    }
}

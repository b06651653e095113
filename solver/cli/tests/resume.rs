//! Runs that survive, through the real binary: SIGKILL at random steps and `--resume`
//! (output bit-identical to an uninterrupted run), SIGTERM, a simulated device loss,
//! refusals of checkpoints that belong elsewhere or are corrupt, numerical instability,
//! and outputs that cannot be written or do not fit the disk.
use hdf5::types::VarLenUnicode;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::*;

/// A 40³-cell dipole scene with a dielectric block, a probe and a snapshot plane:
/// about a millisecond per step on one thread, so a kill lands at a step we choose.
const SCENE: &str = r#"
[domain]
cell = 1e-3
size = [0.04, 0.04, 0.04]

[time]
steps = 1500

[boundaries]
all = "cpml"
z = "pec"
[boundaries.cpml]
cells = 4

[materials.glass]
eps_r = 4
sigma = 0.01

[[objects]]
shape = "box"
material = "glass"
min = [0.024, 0.008, 0.008]
max = [0.032, 0.024, 0.016]

[[sources]]
name = "dipole"
type = "current"
component = "Ez"
position = [0.016, 0.016, 0.012]
waveform = { type = "gaussian", frequency = 5e9 }

[[probes]]
name = "rx"
position = [0.022, 0.016, 0.012]
components = ["Ez", "Hy"]

[[probes]]
name = "slow"
position = [0.03, 0.03, 0.02]
components = ["Ex"]
every = 7

[[snapshots]]
name = "mid"
components = ["Ez", "Hx"]
every = 20
plane = { axis = "z", position = 0.012 }
"#;

fn spawn(dir: &Path, args: &[&str]) -> Child {
    cmd(dir, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the fdtd binary")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn setup(scene: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), scene).unwrap();
    dir
}

fn status_of(path: &Path) -> (String, u64) {
    let f = hdf5::File::open(path).unwrap();
    let s = f.attr("status").unwrap().read_scalar::<VarLenUnicode>().unwrap();
    let n = f.attr("steps_done").unwrap().read_scalar::<u64>().unwrap();
    (s.as_str().to_string(), n)
}

/// Every probe and snapshot dataset (time axes included), as raw bits.
fn datasets(path: &Path) -> Vec<(String, Vec<usize>, Vec<u64>)> {
    let f = hdf5::File::open(path).unwrap();
    let mut out = Vec::new();
    for top in ["probes", "snapshots"] {
        let g = f.group(top).unwrap();
        for name in g.member_names().unwrap() {
            let sub = g.group(&name).unwrap();
            for ds_name in sub.member_names().unwrap() {
                let ds = sub.dataset(&ds_name).unwrap();
                let bits: Vec<u64> = if ds_name.starts_with("time") {
                    ds.read_raw::<f64>().unwrap().iter().map(|x| x.to_bits()).collect()
                } else {
                    ds.read_raw::<f32>()
                        .unwrap()
                        .iter()
                        .map(|x| x.to_bits() as u64)
                        .collect()
                };
                out.push((format!("/{top}/{name}/{ds_name}"), ds.shape(), bits));
            }
        }
    }
    out.sort();
    out
}

fn assert_identical(reference: &Path, resumed: &Path) {
    let (want, got) = (datasets(reference), datasets(resumed));
    assert_eq!(want.len(), got.len());
    for ((kw, sw, bw), (kg, sg, bg)) in want.iter().zip(&got) {
        assert_eq!((kw, sw), (kg, sg), "dataset shapes differ");
        assert!(bw == bg, "{kw}: the resumed output differs from the uninterrupted run");
    }
}

/// An uninterrupted run of `s.toml` into `name`; returns its wall time.
fn reference(dir: &Path, name: &str) -> Duration {
    let t = Instant::now();
    let out = fdtd(
        dir,
        &[
            "run",
            "s.toml",
            "--backend",
            "cpu",
            "--threads",
            "1",
            "-q",
            "--no-checkpoint",
            "-o",
            name,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    t.elapsed()
}

/// xorshift64*: reproducible "random" kill points (seed printed, FDTD_TEST_SEED overrides).
struct Rng(u64);
impl Rng {
    fn new() -> Rng {
        let seed = std::env::var("FDTD_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
            })
            | 1;
        eprintln!("kill points from FDTD_TEST_SEED={seed}");
        Rng(seed)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) % n
    }
}

/// The step of the newest checkpoint file of `out` (0 when none reads).
fn checkpoint_step(dir: &Path, out: &str) -> u64 {
    let base = dir.join(format!("{out}.ckpt"));
    fdtd::checkpoint::files(&base)
        .iter()
        .filter_map(|p| fdtd::checkpoint::read_header(p).ok())
        .map(|h| h.step)
        .max()
        .unwrap_or(0)
}

#[test]
fn sigkill_at_random_steps_then_resume_is_bit_identical() {
    let dir = setup(SCENE);
    let d = dir.path();
    let per_step = reference(d, "ref.h5") / 1500;
    let mut rng = Rng::new();
    // Three kills in one run's life, each after a random checkpoint step and a random
    // delay (so it lands mid-chunk, mid-HDF5-write or mid-checkpoint), then a resume
    // that runs to the end.
    let mut floor = 0;
    let mut killed_at = Vec::new();
    for round in 0..3 {
        let target = floor + 100 + rng.below(300);
        // Up to about 60 steps' time: past the next checkpoint (every 50), never past the end.
        let delay = Duration::from_micros(rng.below((per_step * 60).as_micros().max(1000) as u64));
        let args: &[&str] = &[
            "run",
            "s.toml",
            "--backend",
            "cpu",
            "--threads",
            "1",
            "-q",
            "--chunk",
            "16",
            "--checkpoint-every",
            "50",
            "-o",
            "run.h5",
        ];
        let mut args = args.to_vec();
        if round > 0 {
            args.push("--resume");
        }
        let mut child = spawn(d, &args);
        let t0 = Instant::now();
        let finished = loop {
            if checkpoint_step(d, "run.h5") >= target {
                break false;
            }
            if child.try_wait().unwrap().is_some() {
                break true;
            }
            assert!(t0.elapsed() < Duration::from_secs(60), "no checkpoint at step {target}");
            std::thread::sleep(Duration::from_millis(2));
        };
        assert!(!finished, "the run ended before the kill at step {target}");
        std::thread::sleep(delay);
        child.kill().unwrap(); // SIGKILL
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), None, "{}", text(&out.stderr));
        let (status, done) = status_of(&d.join("run.h5"));
        assert_eq!(status, "running");
        let ck = checkpoint_step(d, "run.h5");
        killed_at.push((done, ck));
        floor = ck;
    }
    eprintln!("killed at (steps in the output, checkpoint step): {killed_at:?}");
    let out = fdtd(
        d,
        &[
            "run",
            "s.toml",
            "--backend",
            "cpu",
            "-q",
            "--checkpoint-every",
            "50",
            "-o",
            "run.h5",
            "--resume",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(status_of(&d.join("run.h5")), ("complete".into(), 1500));
    assert_identical(&d.join("ref.h5"), &d.join("run.h5"));
    // A complete run leaves no checkpoint behind, and has nothing to resume.
    assert_eq!(checkpoint_step(d, "run.h5"), 0);
    assert!(!d.join("run.h5.ckpt").exists() && !d.join("run.h5.ckpt.prev").exists());
    let out = fdtd(d, &["run", "s.toml", "-q", "-o", "run.h5", "--resume"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("nothing to resume"), "{}", text(&out.stderr));
}

#[test]
fn sigterm_writes_a_checkpoint_and_the_run_resumes() {
    let dir = setup(SCENE);
    let d = dir.path();
    reference(d, "ref.h5");
    // The default interval (10 min) writes no periodic checkpoint here: the one on
    // SIGTERM is all there is.
    let child = spawn(
        d,
        &["run", "s.toml", "--backend", "cpu", "--threads", "1", "--chunk", "16"],
    );
    let h5 = d.join("s.h5");
    let t0 = Instant::now();
    while !h5.exists() {
        assert!(t0.elapsed() < Duration::from_secs(60), "the run did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(50));
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(stdout.contains("interrupted after"), "{stdout}");
    assert!(stderr.contains("continue with `fdtd run s.toml --resume`"), "{stderr}");
    let (status, done) = status_of(&h5);
    assert_eq!(status, "interrupted");
    assert!(done > 0 && done < 1500, "{done}");
    assert_eq!(checkpoint_step(d, "s.h5"), done);

    let out = fdtd(d, &["run", "s.toml", "--backend", "cpu", "--resume"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("resuming from step "), "{stdout}");
    assert_identical(&d.join("ref.h5"), &h5);
}

#[test]
fn a_second_ctrl_c_quits_at_once_and_the_output_stays_resumable() {
    let dir = setup(SCENE);
    let d = dir.path();
    reference(d, "ref.h5");
    let child = spawn(
        d,
        &[
            "run",
            "s.toml",
            "--backend",
            "cpu",
            "--threads",
            "1",
            "--checkpoint-every",
            "50",
        ],
    );
    let t0 = Instant::now();
    while checkpoint_step(d, "s.h5") < 100 {
        assert!(t0.elapsed() < Duration::from_secs(60), "no checkpoint");
        std::thread::sleep(Duration::from_millis(5));
    }
    for _ in 0..2 {
        let kill = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
    }
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("--resume"), "{stderr}");
    // Valid and marked, whichever Ctrl-C ended it.
    let (status, done) = status_of(&d.join("s.h5"));
    assert_eq!(status, "interrupted");
    assert!(done >= 100, "{done}");
    let out = fdtd(d, &["run", "s.toml", "--backend", "cpu", "-q", "--resume"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_identical(&d.join("ref.h5"), &d.join("s.h5"));
}

#[test]
fn a_lost_device_keeps_the_last_checkpoint_and_says_how_to_resume() {
    let dir = setup(SCENE);
    let d = dir.path();
    reference(d, "ref.h5");
    let args = ["run", "s.toml", "--backend", "cpu", "-q", "--checkpoint-every", "200"];
    let out = cmd(d, &args).env("FDTD_FAULT_AT_STEP", "730").output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    for want in [
        "the run failed at step 720 of 1,500: GPU device lost: simulated device loss at step 730",
        "s.h5 is closed with status \"failed\"",
        "the last checkpoint (step 600) is in s.h5.ckpt",
        "continue with `fdtd run s.toml --resume`",
    ] {
        assert!(stderr.contains(want), "missing {want:?} in:\n{stderr}");
    }
    assert_eq!(status_of(&d.join("s.h5")).0, "failed");

    // A failure after which the state is still readable saves it first.
    let out = cmd(
        d,
        &[
            "run",
            "s.toml",
            "--backend",
            "cpu",
            "-q",
            "--resume",
            "--checkpoint-every",
            "200",
        ],
    )
    .env("FDTD_FAULT_AT_STEP", "1030:readable")
    .output()
    .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("the state of step 1020, before the failure, was saved"),
        "{stderr}"
    );
    assert_eq!(checkpoint_step(d, "s.h5"), 1020);

    let out = fdtd(d, &["run", "s.toml", "--backend", "cpu", "-q", "--resume"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_identical(&d.join("ref.h5"), &d.join("s.h5"));
}

#[test]
fn checkpoints_of_other_runs_and_corrupt_ones_are_refused() {
    let dir = setup(SCENE);
    let d = dir.path();
    let stop_at = |out: &str| {
        let o = cmd(
            d,
            &[
                "run",
                "s.toml",
                "--backend",
                "cpu",
                "-q",
                "-o",
                out,
                "--checkpoint-every",
                "300",
            ],
        )
        .env("FDTD_FAULT_AT_STEP", "650")
        .output()
        .unwrap();
        assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    };
    stop_at("a.h5");
    stop_at("b.h5");
    let resume = |out: &str| fdtd(d, &["run", "s.toml", "--backend", "cpu", "-q", "-o", out, "--resume"]);

    // b's checkpoint copied over a's: same scene, another output file.
    std::fs::copy(d.join("b.h5.ckpt"), d.join("a.h5.ckpt")).unwrap();
    std::fs::copy(d.join("b.h5.ckpt.prev"), d.join("a.h5.ckpt.prev")).unwrap();
    let o = resume("a.h5");
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("belongs to another run") && e.contains("another output file"),
        "{e}"
    );

    // Corrupt newest generation (step 600): the previous one (step 300) is used, with a
    // warning. (The resumed run is stopped again at step 700.)
    let good_newest = std::fs::read(d.join("b.h5.ckpt")).unwrap();
    let mut raw = good_newest.clone();
    let n = raw.len();
    raw[n / 2] ^= 1;
    std::fs::write(d.join("b.h5.ckpt"), &raw).unwrap();
    let o = cmd(
        d,
        &[
            "run",
            "s.toml",
            "--backend",
            "cpu",
            "-o",
            "b.h5",
            "--resume",
            "--checkpoint-every",
            "300",
        ],
    )
    .env("FDTD_FAULT_AT_STEP", "700")
    .output()
    .unwrap();
    let (out, e) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(3), "{e}");
    assert!(
        e.contains("warning: skipped") && e.contains("payload checksum does not match"),
        "{e}"
    );
    assert!(out.contains("resuming from step 300 of 1,500"), "{out}");
    assert_eq!(checkpoint_step(d, "b.h5"), 600);

    // Both generations corrupt (one truncated): refused, naming both problems.
    let mut newest = std::fs::read(d.join("b.h5.ckpt")).unwrap();
    newest[n / 3] ^= 4;
    std::fs::write(d.join("b.h5.ckpt"), &newest).unwrap();
    let mut prev = std::fs::read(d.join("b.h5.ckpt.prev")).unwrap();
    prev.truncate(prev.len() - 100);
    std::fs::write(d.join("b.h5.ckpt.prev"), &prev).unwrap();
    let o = resume("b.h5");
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("no usable checkpoint") && e.contains("checksum") && e.contains("truncated"),
        "{e}"
    );
    assert!(e.contains("--force"), "{e}");
    std::fs::write(d.join("b.h5.ckpt"), &good_newest).unwrap();

    // The scene changed since: refused before anything is touched.
    std::fs::write(d.join("s.toml"), SCENE.replace("sigma = 0.01", "sigma = 0.02")).unwrap();
    let o = resume("b.h5");
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("another scene"), "{e}");
    // Comments and the [checkpoint] section are not part of the scene's identity.
    std::fs::write(
        d.join("s.toml"),
        format!("# edited\n{SCENE}\n[checkpoint]\nevery_steps = 100\n"),
    )
    .unwrap();
    let o = resume("b.h5");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));

    // No output to resume into.
    let o = resume("nothing.h5");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("nothing to resume"), "{}", text(&o.stderr));
}

#[test]
fn a_numerical_instability_stops_the_run_with_where_and_why() {
    // A sine source so strong that the fields run away (but each step's value is still
    // below the pre-run limit).
    let strong = SCENE.replace(
        "waveform = { type = \"gaussian\", frequency = 5e9 }",
        "waveform = { type = \"sine\", frequency = 5e9, amplitude = 1e21 }",
    );
    let dir = setup(&strong);
    let out = fdtd(dir.path(), &["run", "s.toml", "--backend", "cpu", "-q"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    for want in [
        "numerical instability: ",
        "(runaway growth; f32 overflows at 3.4e38)",
        "likely causes",
        "source `dipole` applies up to",
        "too strong for f32",
        "Courant factor",
        "fix the scene",
    ] {
        assert!(stderr.contains(want), "missing {want:?} in:\n{stderr}");
    }
    assert_eq!(status_of(&dir.path().join("s.h5")).0, "failed");

    // Far too strong: refused before running.
    let absurd = SCENE.replace(
        "waveform = { type = \"gaussian\", frequency = 5e9 }",
        "waveform = { type = \"gaussian\", frequency = 5e9, amplitude = 1e300 }",
    );
    let dir = setup(&absurd);
    let out = fdtd(dir.path(), &["run", "s.toml", "--backend", "cpu", "-q"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    // The scene's own range check refuses it, at the key.
    assert!(
        stderr.contains("sources[0].waveform.amplitude") && stderr.contains("must be from -1e25 to 1e25"),
        "{stderr}"
    );
    assert!(!dir.path().join("s.h5").exists());
}

#[test]
fn outputs_that_cannot_be_written_or_do_not_fit_are_refused_before_running() {
    // Every field component of the whole grid at every step for 10⁷ steps: ~16 TB.
    let huge = SCENE.replace("steps = 1500", "steps = 10000000")
        + "\n[[snapshots]]\nname = \"all\"\ncomponents = [\"Ex\", \"Ey\", \"Ez\", \"Hx\", \"Hy\", \"Hz\"]\nevery = 1\n";
    let dir = setup(&huge);
    let d = dir.path();
    let out = fdtd(d, &["run", "s.toml", "--backend", "cpu", "-q"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("not enough disk space: the run needs up to") && stderr.contains("is free"),
        "{stderr}"
    );
    assert!(stderr.contains("TiB"), "{stderr}");
    assert!(!d.join("s.h5").exists());

    // The output path is a directory: refused, nothing run.
    let dir = setup(SCENE);
    let d = dir.path();
    std::fs::create_dir(d.join("out.h5")).unwrap();
    let out = fdtd(
        d,
        &["run", "s.toml", "--backend", "cpu", "-q", "-o", "out.h5", "--force"],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot overwrite output file out.h5: it is a directory, not a regular file"),
        "{stderr}"
    );
    assert!(d.join("out.h5").is_dir());

    // A checkpoint directory that does not exist.
    let out = fdtd(
        d,
        &[
            "run",
            "s.toml",
            "--backend",
            "cpu",
            "-q",
            "--checkpoint-dir",
            "no/such/dir",
        ],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot write checkpoints to no/such/dir/s.h5.ckpt: directory no/such/dir does not exist"),
        "{stderr}"
    );
    assert!(!d.join("s.h5").exists());

    // Usage: --resume with --force or --no-checkpoint; bad intervals.
    for args in [
        &["run", "s.toml", "--resume", "--force"][..],
        &["run", "s.toml", "--checkpoint-every", "0"],
        &["run", "s.toml", "--checkpoint-every", "10x"],
        &["run", "s.toml", "--checkpoint-every", "10", "--no-checkpoint"],
    ] {
        let out = fdtd(d, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
    }
    let out = cmd(d, &["run", "s.toml", "-q"])
        .env("FDTD_FAULT_AT_STEP", "x")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

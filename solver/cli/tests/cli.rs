//! The `fdtd` binary end to end: exit codes, messages, and the files it writes.
use hdf5::types::VarLenUnicode;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::*;

/// A small scene: a dipole near a dielectric block, one probe, one snapshot plane.
const SCENE: &str = r#"
[domain]
cell = 1e-3
size = [0.02, 0.016, 0.012]

[time]
steps = 60

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
min = [0.012, 0.004, 0.004]
max = [0.016, 0.012, 0.008]

[[sources]]
name = "dipole"
type = "current"
component = "Ez"
position = [0.008, 0.008, 0.006]
waveform = { type = "gaussian", frequency = 5e9 }

[[probes]]
name = "rx"
position = [0.011, 0.008, 0.006]
components = ["Ez", "Hy"]

[[snapshots]]
name = "mid"
components = ["Ez", "Hx"]
every = 20
plane = { axis = "z", position = 0.006 }
"#;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn setup(name: &str, scene: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), scene).unwrap();
    dir
}

fn status_of(path: &Path) -> String {
    let f = hdf5::File::open(path).unwrap();
    f.attr("status")
        .unwrap()
        .read_scalar::<VarLenUnicode>()
        .unwrap()
        .as_str()
        .to_string()
}

#[test]
fn check_prints_grid_points_and_plan() {
    let dir = setup("dip.toml", SCENE);
    let out = fdtd(dir.path(), &["check", "dip.toml", "--backend", "cpu"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", text(&out.stderr));
    for want in [
        "20 × 16 × 12 = 3,840 cells",
        "cell size  1 mm × 1 mm × 1 mm",
        "x_min  cpml (4 cells",
        "z_max  pec",
        "glass",
        "distinct averaged materials",
        "dipole",
        "index [8, 8, 6]",
        "rx",
        "mid",
        "memory plan (cpu backend)",
        "total",
    ] {
        assert!(stdout.contains(want), "missing {want:?} in:\n{stdout}");
    }
    // Nothing is written by check.
    assert!(!dir.path().join("dip.h5").exists());
    assert!(!stdout.contains("bulk update"), "the step is printed only on request");

    // --schedule prints the step as the backends run it, in order.
    let out = fdtd(dir.path(), &["check", "dip.toml", "--backend", "cpu", "--schedule"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", text(&out.stderr));
    let order = [
        "H  bulk update of Hx, Hy, Hz",
        "+ CPML Hy from dEz/dx  [0..4, ",
        "E  bulk update of Ex, Ey, Ez",
        "+ CPML Ez from dHy/dx  [1..4, ",
        "E  pass sources_e",
        "pass probes",
        "state: 22 named arrays",
        "memory plan",
    ];
    let mut at = 0;
    for want in order {
        let i = stdout[at..]
            .find(want)
            .unwrap_or_else(|| panic!("missing {want:?} after byte {at} in:\n{stdout}"));
        at += i + want.len();
    }
    // z is PEC: no CPML layer along z.
    assert!(!stdout.contains("/dz  ["), "{stdout}");
}

/// Library materials by name (docs/materials.md): a soil under an FR-4 board, no tables.
#[test]
fn check_takes_the_library_soil_and_fr4_by_name() {
    let scene = r#"
[domain]
cell = 1e-3
size = [0.03, 0.03, 0.03]
[time]
steps = 20
[boundaries]
all = "cpml"
[[objects]]
shape = "box"
material = "soil_10pct"
min = [0, 0, 0]
max = [0.03, 0.03, 0.012]
[[objects]]
shape = "box"
material = "fr4"
min = [0.008, 0.008, 0.018]
max = [0.022, 0.022, 0.0196]
[[sources]]
name = "dipole"
type = "current"
component = "Ez"
position = [0.015, 0.015, 0.015]
waveform = { type = "gaussian", frequency = 2e9 }
"#;
    let dir = setup("lib.toml", scene);
    let out = fdtd(dir.path(), &["check", "lib.toml", "--backend", "cpu"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("soil_10pct") && stdout.contains("fr4"), "{stdout}");
    // One Debye pole for the soil, nine for the board, and ε listed in the band.
    assert_eq!(stdout.matches("pole { type = \"debye\"").count(), 10, "{stdout}");
    assert!(stdout.contains("ε at"), "{stdout}");
}

/// `fdtd check` says where a port's S and Z are referred to when its reference plane is
/// moved (and says nothing when it is not).
#[test]
fn check_states_a_moved_reference_plane() {
    let scene = r#"
[domain]
cell = 1e-3
cells = [40, 40, 40]
[time]
steps = 100
[frequencies]
start = 1e9
stop = 2e9
[[ports]]
name = "feed"
start = [0.02, 0.02, 0.02]
end = [0.02, 0.02, 0.021]
reference_plane = 0.012
eps_eff = 3.3
[[ports]]
name = "load"
start = [0.025, 0.02, 0.02]
end = [0.025, 0.02, 0.021]
"#;
    let dir = setup("rp.toml", scene);
    let out = fdtd(dir.path(), &["check", "rp.toml", "--backend", "cpu"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", text(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    let feed = lines
        .iter()
        .position(|l| l.trim_start().starts_with("feed "))
        .expect("the feed port's line");
    assert!(
        lines[feed + 1].contains("S and Z referred to a plane 12 mm from the edges along a matched feed line (ε_eff 3.3, toward the structure)"),
        "{stdout}"
    );
    assert_eq!(stdout.matches("referred to a plane").count(), 1, "{stdout}");
}

#[test]
fn run_writes_a_readable_file_and_a_summary() {
    let dir = setup("dip.toml", SCENE);
    let out = fdtd(dir.path(), &["run", "dip.toml", "--backend", "cpu", "--quiet"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", text(&out.stderr));
    // --quiet: only the summary line.
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(stdout.starts_with("complete: 60 steps"), "{stdout}");
    assert!(stdout.contains("dip.h5") && stdout.contains("/probes: rx"), "{stdout}");

    let h5 = dir.path().join("dip.h5");
    assert_eq!(status_of(&h5), "complete");
    let f = hdf5::File::open(&h5).unwrap();
    let ez: Vec<f32> = f.dataset("probes/rx/Ez").unwrap().read_raw().unwrap();
    assert_eq!(ez.len(), 60);
    assert!(ez.iter().any(|v| *v != 0.0));
    assert_eq!(f.dataset("snapshots/mid/Ez").unwrap().shape(), vec![3, 21, 17, 1]);
    let scene: VarLenUnicode = f.attr("scene").unwrap().read_scalar().unwrap();
    assert_eq!(scene.as_str(), SCENE);
    assert!(dir.path().join("dip.xdmf").exists());
}

#[test]
fn run_header_and_explicit_output_path() {
    let dir = setup("dip.toml", SCENE);
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let out = fdtd(dir.path(), &["run", "dip.toml", "--backend", "cpu", "-o", "sub/r.h5"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("grid     20 × 16 × 12"), "{stdout}");
    assert!(stdout.contains("backend  cpu"), "{stdout}");
    assert!(stdout.contains("output   sub/r.h5"), "{stdout}");
    assert_eq!(status_of(&dir.path().join("sub/r.h5")), "complete");
}

#[test]
fn a_bad_scene_exits_2_with_line_and_column() {
    let bad = SCENE.replace(
        "component = \"Ez\"\nposition = [0.008",
        "component = \"Eq\"\nposition = [0.008",
    );
    assert_ne!(bad, SCENE);
    let dir = setup("bad.toml", &bad);
    for cmd in ["check", "run"] {
        let out = fdtd(dir.path(), &[cmd, "bad.toml"]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {stderr}");
        let line = bad.lines().position(|l| l.contains("\"Eq\"")).unwrap() + 1;
        assert!(
            stderr.starts_with(&format!("error: bad.toml:{line}:13: ")),
            "{cmd}: {stderr}"
        );
        assert!(stderr.contains("did you mean \"Ex\""), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    assert!(!dir.path().join("bad.h5").exists());

    let out = fdtd(dir.path(), &["run", "missing.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("error: cannot read scene file missing.toml"));
}

#[test]
fn usage_errors_exit_2_and_help_lists_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(fdtd(dir.path(), &["run"]).status.code(), Some(2));
    assert_eq!(
        fdtd(dir.path(), &["run", "x.toml", "--backend", "tpu"]).status.code(),
        Some(2)
    );
    assert_eq!(fdtd(dir.path(), &["frobnicate"]).status.code(), Some(2));
    let help = fdtd(dir.path(), &["--help"]);
    assert_eq!(help.status.code(), Some(0));
    let h = text(&help.stdout);
    for code in ["0 ", "2 ", "3 ", "4 ", "130 "] {
        assert!(h.contains(&format!("  {code}")), "exit code {code} not in help:\n{h}");
    }
    assert!(h.contains("validate"), "validate not in help:\n{h}");
}

#[test]
fn an_existing_output_is_refused_without_force() {
    let dir = setup("dip.toml", SCENE);
    std::fs::write(dir.path().join("dip.h5"), b"keep me").unwrap();
    let out = fdtd(dir.path(), &["run", "dip.toml", "--backend", "cpu", "-q"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("dip.h5") && stderr.contains("--force"), "{stderr}");
    assert_eq!(std::fs::read(dir.path().join("dip.h5")).unwrap(), b"keep me");

    let out = fdtd(dir.path(), &["run", "dip.toml", "--backend", "cpu", "-q", "--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(status_of(&dir.path().join("dip.h5")), "complete");
}

#[test]
fn an_output_in_a_missing_directory_fails_before_running() {
    let dir = setup("dip.toml", SCENE);
    let out = fdtd(dir.path(), &["run", "dip.toml", "--backend", "cpu", "-o", "nope/x.h5"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("nope/x.h5") && stderr.contains("does not exist"),
        "{stderr}"
    );
}

#[test]
fn an_unusable_gpu_is_an_error_not_a_fallback() {
    let dir = setup("dip.toml", SCENE);
    let out = fdtd(
        dir.path(),
        &[
            "run",
            "dip.toml",
            "--backend",
            "gpu",
            "--device",
            "no-such-adapter-anywhere",
        ],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("error: ") && l.contains("no-such-adapter-anywhere")),
        "{stderr}"
    );
    assert!(!dir.path().join("dip.h5").exists());
}

/// `fdtd validate --backend cpu --quick`: the analytic suite from the binary, run from an
/// empty directory (the scenes are built in), one table row per check, exit code 0.
#[test]
fn validate_quick_on_the_cpu_prints_the_table_and_passes() {
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let out = fdtd(dir.path(), &["validate", "--backend", "cpu", "--quick"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", text(&out.stderr));
    println!("{stdout}\n{:.1} s", start.elapsed().as_secs_f64());
    let header = stdout
        .lines()
        .find(|l| l.starts_with("case "))
        .unwrap_or_else(|| panic!("no table header in:\n{stdout}"));
    for col in ["case", "backend", "check", "bound", "measured", "result", "Mcells/s"] {
        assert!(header.contains(col), "column {col} missing: {header}");
    }
    // Every case has a CPU row that passed, with a speed; no GPU row, no failure.
    for case in [
        "cavity-pec",
        "cavity-pmc",
        "dipole",
        "cpml-reflection",
        "cpml-thin",
        "energy",
        "fresnel",
        "lossy",
        "dispersive-debye",
        "dispersive-lorentz",
        "dispersive-water",
        "dispersive-drude-slab",
        "source-current",
        "source-hard",
        "line-microstrip",
        "line-coax",
        "line-wr90",
        "line-iris",
        "wire-radius",
    ] {
        let row = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(case))
            .unwrap_or_else(|| panic!("no row for {case} in:\n{stdout}"));
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cols[1], "cpu", "{row}");
        assert_eq!(cols[cols.len() - 2], "pass", "{row}");
        let speed: f64 = cols[cols.len() - 1]
            .parse()
            .unwrap_or_else(|_| panic!("Mcells/s in {row}"));
        assert!(speed > 0.0, "{row}");
    }
    assert!(
        stdout.contains("≤ 2.00e-4") && stdout.contains("≤ -60.0 dB"),
        "{stdout}"
    );
    assert!(!stdout.contains("FAIL") && !stdout.contains(" gpu "), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("all ") && l.contains("checks passed")),
        "{stdout}"
    );
}

/// `--backend gpu` without a usable GPU (an adapter that does not exist) is exit code 3
/// with the reason, not a silent CPU run.
#[test]
fn validate_on_an_unusable_gpu_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let out = fdtd(
        dir.path(),
        &[
            "validate",
            "--backend",
            "gpu",
            "--device",
            "no-such-adapter-anywhere",
            "--quick",
        ],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{}\n{stderr}", text(&out.stdout));
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("error: --backend gpu") && l.contains("no usable GPU")),
        "{stderr}"
    );
    assert!(!text(&out.stdout).contains("case "), "no table without a GPU");
}

#[test]
fn a_grid_too_large_for_ram_is_refused_with_what_would_fit() {
    // 10⁴ cells per axis: 10¹² cells, tens of TB; refused before anything is allocated.
    let huge = SCENE.replace("size = [0.02, 0.016, 0.012]", "size = [10.0, 10.0, 10.0]");
    let dir = setup("huge.toml", &huge);
    for args in [
        &["check", "huge.toml", "--backend", "cpu"][..],
        &["run", "huge.toml", "--backend", "cpu"],
    ] {
        let out = fdtd(dir.path(), args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{args:?}: {stderr}");
        assert!(stderr.contains("available") && stderr.contains("would fit"), "{stderr}");
    }
    assert!(!dir.path().join("huge.h5").exists());
}

#[test]
fn ctrl_c_closes_the_file_as_interrupted() {
    // Long enough never to finish; each chunk is short.
    let long = SCENE
        .replace("steps = 60", "steps = 10000000")
        .replace("size = [0.02, 0.016, 0.012]", "size = [0.04, 0.04, 0.04]");
    let dir = setup("long.toml", &long);
    let child = Command::new(BIN)
        .args([
            "run",
            "long.toml",
            "--backend",
            "cpu",
            "--threads",
            "1",
            "--chunk",
            "16",
        ])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let h5 = dir.path().join("long.h5");
    let t0 = Instant::now();
    while !h5.exists() {
        assert!(t0.elapsed() < Duration::from_secs(60), "the run did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("interrupted after"), "{stdout}");
    assert_eq!(status_of(&h5), "interrupted");
    let f = hdf5::File::open(&h5).unwrap();
    let done = f.attr("steps_done").unwrap().read_scalar::<u64>().unwrap() as usize;
    assert_eq!(f.dataset("probes/rx/Ez").unwrap().shape(), vec![done]);
}

/// Spawn `fdtd args` in `dir` with its stdout closed before it writes anything (as
/// `fdtd ... | head -0` would leave it), and wait for it.
fn with_stdout_closed(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_stdout_ends_the_report_not_the_command() {
    let dir = setup("dip.toml", SCENE);
    // `fdtd check | head`: no panic, the usual exit code.
    let out = with_stdout_closed(dir.path(), &["check", "dip.toml", "--backend", "cpu"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // `fdtd run | head -1`: the run goes on and its file is complete.
    let out = with_stdout_closed(dir.path(), &["run", "dip.toml", "--backend", "cpu"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(status_of(&dir.path().join("dip.h5")), "complete");
    // `fdtd bench | head -1` too.
    let out = with_stdout_closed(
        dir.path(),
        &["bench", "--sizes", "12", "--steps", "2", "--cpml", "2"],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn a_panic_closes_the_output_as_failed_with_the_message() {
    let dir = setup("dip.toml", SCENE);
    let mut cmd = Command::new(BIN);
    cmd.args(["run", "dip.toml", "--backend", "cpu", "--chunk", "8"])
        .current_dir(dir.path())
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .env("RUST_BACKTRACE", "0")
        .env("FDTD_FAULT_AT_STEP", "20:panic");
    let out = cmd.output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(101), "{stderr}");
    assert!(stderr.contains("internal error"), "{stderr}");
    let h5 = dir.path().join("dip.h5");
    assert_eq!(status_of(&h5), "failed");
    let f = hdf5::File::open(&h5).unwrap();
    let error = f.attr("error").unwrap().read_scalar::<VarLenUnicode>().unwrap();
    assert!(
        error.as_str().contains("simulated panic at step 20"),
        "{}",
        error.as_str()
    );
    // What was written before the panic is there: the chunks before step 20 (chunks of
    // 8 steps, cut at the snapshot step 20: 0..8, 8..16, 16..20).
    let done = f.attr("steps_done").unwrap().read_scalar::<u64>().unwrap() as usize;
    assert_eq!(done, 20);
    assert_eq!(f.dataset("probes/rx/Ez").unwrap().shape(), vec![done]);
}

#[test]
fn numeric_options_are_range_checked() {
    let dir = setup("dip.toml", SCENE);
    let out = fdtd(dir.path(), &["run", "dip.toml", "--threads", "100000"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("more than 4 per core"), "{stderr}");
    assert!(!dir.path().join("dip.h5").exists());
    // A chunk longer than the run is the run.
    let out = fdtd(
        dir.path(),
        &["run", "dip.toml", "--backend", "cpu", "--chunk", "18446744073709551615"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(status_of(&dir.path().join("dip.h5")), "complete");
    // bench: a cube far beyond RAM is refused (it used to abort on the allocation), a
    // CPML without interior is a usage error.
    let out = fdtd(dir.path(), &["bench", "--sizes", "100000"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("RAM") && stderr.contains("available"), "{stderr}");
    let out = fdtd(
        dir.path(),
        &["bench", "--sizes", "16", "--cpml", "18446744073709551615"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

/// Whether process `pid` has a handler for SIGTERM (bit 15 of `SigCgt`).
fn catches_sigterm(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
        .is_some_and(|m| m & (1 << (15 - 1)) != 0)
}

#[test]
fn sigterm_during_set_up_exits_130_and_writes_nothing() {
    // 200³ cells: discretising takes a good fraction of a second, the signal lands in it.
    let big = SCENE.replace("size = [0.02, 0.016, 0.012]", "size = [0.2, 0.2, 0.2]");
    let dir = setup("big.toml", &big);
    let child = Command::new(BIN)
        .args(["run", "big.toml", "--backend", "cpu"])
        .current_dir(dir.path())
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !catches_sigterm(child.id()) {
        assert!(t0.elapsed() < Duration::from_secs(20), "no SIGTERM handler installed");
        std::thread::sleep(Duration::from_millis(2));
    }
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("stopped before the run started"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != "big.toml")
        .collect();
    assert!(left.is_empty(), "set-up stopped by a signal left {left:?}");
}

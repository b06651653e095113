//! Lumped ports through the real binary: the summary, `/ports` in the HDF5 file, the
//! Touchstone and CSV files beside it (refused when present unless `--force`), `fdtd
//! info`, and a run resumed from a checkpoint after a failure giving the same results
//! as an uninterrupted one (the end criterion included).
use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::*;

/// A 50 Ω port on a 100 Ω resistor between two small PEC plates in a PEC box.
const SCENE: &str = r#"
[domain]
cell = 1e-3
cells = [20, 20, 20]
[time]
steps = 8000
[boundaries]
all = "pec"
[[objects]]
shape = "box"
material = "pec"
min = [0.009, 0.009, 0.009]
max = [0.012, 0.011, 0.010]
[[objects]]
shape = "box"
material = "pec"
min = [0.009, 0.009, 0.011]
max = [0.012, 0.011, 0.012]
[frequencies]
start = 100e6
stop = 1e9
points = 10
[[ports]]
name = "p1"
start = [0.010, 0.010, 0.010]
end = [0.010, 0.010, 0.011]
[ports.waveform]
type = "gaussian"
frequency = 1e9
[[lumped]]
name = "load"
start = [0.011, 0.010, 0.010]
end = [0.011, 0.010, 0.011]
r = 100
"#;

fn fdtd(dir: &Path, args: &[&str], fault: Option<&str>) -> Output {
    let fault: Vec<(&str, &str)> = fault.map(|f| ("FDTD_FAULT_AT_STEP", f)).into_iter().collect();
    fdtd_env(dir, args, &fault)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn read(path: &Path, name: &str) -> Vec<f64> {
    let f = hdf5::File::open(path).unwrap();
    f.dataset(name).unwrap().read_raw::<f64>().unwrap()
}

fn root_str(path: &Path, name: &str) -> String {
    let f = hdf5::File::open(path).unwrap();
    let v: hdf5::types::VarLenUnicode = f.attr(name).unwrap().read_scalar().unwrap();
    v.as_str().to_string()
}

#[test]
fn a_port_run_writes_its_results_and_summary() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("s.toml"), SCENE).unwrap();
    let out = fdtd(d, &["run", "s.toml", "--backend", "cpu"], None);
    let (so, se) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{so}\n{se}");
    for want in [
        "port     p1 (driven, Z0 = 50 Ω)",
        "energy decayed 70 dB",
        "s.s1p",
        "s_ports.csv",
    ] {
        assert!(so.contains(want), "missing {want:?} in:\n{so}");
    }
    let h5 = d.join("s.h5");
    assert_eq!(root_str(&h5, "end_reason"), "decayed");
    let v = read(&h5, "/ports/p1/V");
    let t = read(&h5, "/ports/p1/time");
    let th = read(&h5, "/ports/p1/time_h");
    assert_eq!(
        (v.len(), t.len(), th.len()),
        (read(&h5, "/ports/p1/I").len(), v.len(), v.len())
    );
    assert!(v.len() < 8000, "the end criterion stopped the run ({} steps)", v.len());
    let dt = t[0];
    assert!((th[0] - 0.5 * dt).abs() < 1e-9 * dt && (t[1] - 2.0 * dt).abs() < 1e-9 * dt);
    // 100 Ω load: Z ≈ 100 Ω, S11 = 1/3 (−9.54 dB) at low frequency.
    let z = read(&h5, "/ports/p1/Z");
    assert_eq!(z.len(), 20);
    assert!((z[0] - 100.0).abs() < 0.5, "Z(100 MHz) = {} + j{}", z[0], z[1]);
    let sdb = read(&h5, "/ports/p1/S_dB");
    assert!((sdb[0] + 9.542).abs() < 0.05, "{}", sdb[0]);
    let s1p = std::fs::read_to_string(d.join("s.s1p")).unwrap();
    assert!(s1p.contains("# Hz S RI R 50"), "{s1p}");
    assert_eq!(s1p.lines().filter(|l| !l.starts_with(['!', '#'])).count(), 10);
    let csv = std::fs::read_to_string(d.join("s_ports.csv")).unwrap();
    assert!(csv.starts_with("frequency_hz,p1_z_re,p1_z_im,p1_s_re"), "{csv}");
    assert_eq!(csv.lines().count(), 11);

    let info = fdtd(d, &["info", "s.h5"], None);
    let io = text(&info.stdout);
    assert!(
        io.contains("ports (1)") && io.contains("p1") && io.contains("min |S11|"),
        "{io}"
    );
    assert!(io.contains("end        the field energy decayed 70 dB"), "{io}");
    let check = fdtd(d, &["check", "s.toml"], None);
    let co = text(&check.stdout);
    assert!(
        co.contains("R = 50 Ω per edge") && co.contains("load") && co.contains("R = 100 Ω"),
        "{co}"
    );

    // The Touchstone file is the output's: a new run refuses it unless --force.
    std::fs::remove_file(&h5).unwrap();
    let out = fdtd(d, &["run", "s.toml", "--backend", "cpu", "-q"], None);
    let se = text(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(se.contains("s.s1p") && se.contains("already exists"), "{se}");
    let out = fdtd(d, &["run", "s.toml", "--backend", "cpu", "-q", "--force"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn a_resumed_port_run_gives_the_same_results() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("s.toml"), SCENE).unwrap();
    let out = fdtd(d, &["run", "s.toml", "--backend", "cpu", "-q", "-o", "ref.h5"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let args = ["run", "s.toml", "--backend", "cpu", "-q", "--checkpoint-every", "320"];
    let out = fdtd(d, &args, Some("700:readable"));
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let mut resume = args.to_vec();
    resume.push("--resume");
    let out = fdtd(d, &resume, None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (a, b) = (d.join("ref.h5"), d.join("s.h5"));
    for name in [
        "/ports/p1/V",
        "/ports/p1/I",
        "/ports/p1/time",
        "/ports/p1/Z",
        "/ports/p1/S",
    ] {
        assert_eq!(read(&a, name), read(&b, name), "{name}");
    }
    assert_eq!(root_str(&b, "end_reason"), "decayed");
    assert_eq!(
        std::fs::read_to_string(d.join("ref.s1p"))
            .unwrap()
            .lines()
            .skip(1)
            .collect::<Vec<_>>(),
        std::fs::read_to_string(d.join("s.s1p"))
            .unwrap()
            .lines()
            .skip(1)
            .collect::<Vec<_>>()
    );
}

/// With stderr not a terminal (a batch job's log), the run logs its progress: step,
/// speed, the end criterion's decay in dB and an ETA toward the predicted end.
#[test]
fn a_run_logged_to_a_file_shows_the_decay_and_an_eta() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("s.toml"), SCENE).unwrap();
    let out = Command::new(BIN)
        .args(["run", "s.toml", "--backend", "cpu", "--chunk", "16"])
        .current_dir(d)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .env("FDTD_PROGRESS_EVERY", "0")
        .output()
        .unwrap();
    let se = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{se}");
    let lines: Vec<&str> = se.lines().filter(|l| l.starts_with("progress: step")).collect();
    assert!(lines.len() > 5, "{se}");
    assert!(
        lines.iter().all(|l| l.contains("Mcells/s") && l.contains("of ≤ 8,000")),
        "{se}"
    );
    // Once the criterion is evaluated after the pulse, the level and an ETA toward it.
    let decay: Vec<f64> = lines
        .iter()
        .filter_map(|l| l.split(" · decay ").nth(1))
        .filter_map(|r| r.split(" of ").next())
        .filter_map(|v| v.trim().replace('−', "-").parse().ok())
        .collect();
    assert!(decay.len() > 2, "{se}");
    assert!(decay.iter().all(|x| *x <= 0.0), "{decay:?}");
    assert!(decay.last().unwrap() < &-40.0, "the last logged level: {decay:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("ETA") && l.contains("(to the end criterion)")),
        "{se}"
    );
    // --quiet logs nothing.
    let out = Command::new(BIN)
        .args(["run", "s.toml", "--backend", "cpu", "-q", "--force"])
        .current_dir(d)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .env("FDTD_PROGRESS_EVERY", "0")
        .output()
        .unwrap();
    assert!(!text(&out.stderr).contains("progress:"), "{}", text(&out.stderr));
}

/// Results at frequencies the drive does not reach are left out of the summary's
/// findings and named, not printed as resonances, minima or bands.
#[test]
fn frequencies_outside_the_drive_are_left_out_of_the_findings() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The 1 GHz gaussian reaches a few GHz; ask for 0.5 to 40 GHz.
    let scene = SCENE.replace(
        "start = 100e6\nstop = 1e9\npoints = 10",
        "start = 0.5e9\nstop = 40e9\npoints = 80",
    );
    assert_ne!(scene, SCENE);
    std::fs::write(d.join("s.toml"), &scene).unwrap();
    let out = fdtd(d, &["run", "s.toml", "--backend", "cpu"], None);
    let (so, se) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{so}\n{se}");
    assert!(se.contains("outside the band"), "the guard warns: {se}");
    let line = so
        .lines()
        .find(|l| l.contains("are outside what the run resolves"))
        .unwrap_or_else(|| panic!("no left-out line in:\n{so}"));
    let n: usize = line.trim().split(' ').next().unwrap().parse().unwrap();
    assert!(n > 40 && n < 80, "{line}");
    // Every finding lies below the highest resolved frequency.
    let findings: Vec<&str> = so.lines().filter(|l| l.contains("min |S11|")).collect();
    assert_eq!(findings.len(), 1, "{so}");
    let ghz = |l: &str| -> f64 {
        let at = l.split(" at ").nth(1).unwrap();
        let v: f64 = at.split(' ').next().unwrap().parse().unwrap();
        if at.contains("GHz") {
            v
        } else if at.contains("MHz") {
            v / 1e3
        } else {
            panic!("{l}")
        }
    };
    assert!(ghz(findings[0]) < 20.0, "{}", findings[0]);
}

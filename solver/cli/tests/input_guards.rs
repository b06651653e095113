//! Inputs that used to pass `check` and then fail the run or give NaN results (issue 19):
//! extreme CPML and waveform keys, names that cannot be HDF5 names, a port impedance of
//! 1e308, a port driven with amplitude 0 (NaN S printed as −6000 dB with a band over the
//! whole range), and `FDTD_GPU_SHADERS` naming no directory.
use std::path::Path;
use std::process::Output;

mod common;
use common::*;

/// A small port scene: a 50 Ω port on a 100 Ω resistor in a PEC box; `{wave}` is the
/// port's waveform table and `{extra}` is appended.
fn scene(wave: &str, extra: &str) -> String {
    format!(
        r#"
[domain]
cell = 1e-3
cells = [12, 12, 12]
[time]
steps = 400
[boundaries]
all = "pec"
[frequencies]
start = 1e9
stop = 5e9
points = 5
[[ports]]
name = "p1"
start = [0.006, 0.006, 0.006]
end = [0.006, 0.006, 0.007]
waveform = {wave}
[[lumped]]
name = "load"
start = [0.007, 0.006, 0.006]
end = [0.007, 0.006, 0.007]
r = 100
{extra}"#
    )
}

const WAVE: &str = r#"{ type = "gaussian", frequency = 3e9 }"#;

fn fdtd(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    fdtd_env(dir, args, env)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `fdtd check` on `toml`: its exit code and stderr.
fn check(toml: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), toml).unwrap();
    let o = fdtd(dir.path(), &["check", "s.toml"], &[]);
    (o.status.code(), text(&o.stderr))
}

#[test]
fn extreme_keys_are_refused_at_their_line_and_column() {
    let cases: [(&str, String, &str); 8] = [
        (
            "sigma_factor = 1e308",
            scene(WAVE, "[boundaries.cpml]\nsigma_factor = 1e308\n").replace("all = \"pec\"", "all = \"cpml\""),
            "must be from 0 to 100",
        ),
        (
            "kappa_max = 1e300",
            scene(WAVE, "[boundaries.cpml]\nkappa_max = 1e300\n").replace("all = \"pec\"", "all = \"cpml\""),
            "must be from 1 to 1000",
        ),
        (
            "tau = 5e-324",
            scene(r#"{ type = "gaussian", tau = 5e-324 }"#, ""),
            "must be from 1e-21 to 1000 s",
        ),
        (
            "amplitude = 1e308",
            scene(r#"{ type = "gaussian", frequency = 3e9, amplitude = 1e308 }"#, ""),
            "must be from -1e25 to 1e25",
        ),
        (
            "impedance = 1e308",
            scene(WAVE, "").replace("waveform = ", "impedance = 1e308\nwaveform = "),
            "must be from 0.001 to 1e6 Ω",
        ),
        (
            "impedance = 1e-300",
            scene(WAVE, "").replace("waveform = ", "impedance = 1e-300\nwaveform = "),
            "must be from 0.001 to 1e6 Ω",
        ),
        (
            "probe named .",
            scene(WAVE, "[[probes]]\nname = \".\"\nposition = [0.003, 0.003, 0.003]\n"),
            "invalid name \".\"",
        ),
        (
            "probe named with 101 characters",
            scene(
                WAVE,
                &format!(
                    "[[probes]]\nname = \"{}\"\nposition = [0.003, 0.003, 0.003]\n",
                    "x".repeat(101)
                ),
            ),
            "a name of 101 characters is too long",
        ),
    ];
    for (what, toml, expect) in cases {
        let (code, err) = check(&toml);
        assert_eq!(code, Some(2), "{what}: {err}");
        assert!(err.contains(expect), "{what}: no `{expect}` in {err}");
        // file:line:col of the key.
        assert!(err.contains("s.toml:"), "{what}: {err}");
        assert!(err.lines().all(|l| l.len() < 400), "{what}: {err}");
    }
    // The same keys in range pass.
    let (code, err) = check(&scene(r#"{ type = "gaussian", tau = 1e-10 }"#, ""));
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn a_port_of_zero_drive_is_warned_and_its_nan_s_is_never_a_level() {
    let dir = tempfile::tempdir().unwrap();
    let toml = scene(r#"{ type = "gaussian", frequency = 3e9, amplitude = 0 }"#, "");
    std::fs::write(dir.path().join("z.toml"), &toml).unwrap();
    let c = fdtd(dir.path(), &["check", "z.toml"], &[]);
    assert!(
        text(&c.stderr).contains("port p1: driven with amplitude 0"),
        "{}",
        text(&c.stderr)
    );

    let run = fdtd(dir.path(), &["run", "z.toml", "--backend", "cpu"], &[]);
    let all = text(&run.stdout) + &text(&run.stderr);
    assert!(run.status.success(), "{all}");
    assert!(all.contains("|S11| n/a"), "{all}");
    for bad in ["-6000", "−6000", "-10 dB band", "NaN dB", "nan dB"] {
        assert!(!all.contains(bad), "`{bad}` in the summary:\n{all}");
    }
    let info = fdtd(dir.path(), &["info", "z.h5"], &[]);
    let all = text(&info.stdout) + &text(&info.stderr);
    assert!(info.status.success(), "{all}");
    assert!(all.contains("|S11| n/a at 5 of 5 frequencies"), "{all}");
    for bad in ["-6000", "−6000", "−10 dB band", "min |S11|"] {
        assert!(!all.contains(bad), "`{bad}` in info:\n{all}");
    }
    // The stored S_dB is NaN (not a number), not −6000.
    let f = hdf5::File::open(dir.path().join("z.h5")).unwrap();
    let db: Vec<f64> = f.dataset("ports/p1/S_dB").unwrap().read_raw().unwrap();
    assert!(db.iter().all(|d| d.is_nan()), "{db:?}");
    let plot = fdtd(dir.path(), &["plot", "z.h5", "--what", "ports"], &[]);
    assert!(plot.status.success(), "{}", text(&plot.stderr));
}

#[test]
fn a_shader_directory_that_does_not_exist_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.toml"), scene(WAVE, "")).unwrap();
    let o = fdtd(
        dir.path(),
        &["run", "g.toml", "--backend", "gpu"],
        &[("FDTD_GPU_SHADERS", "/nonexistent"), ("XDG_RUNTIME_DIR", "/tmp")],
    );
    let err = text(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("FDTD_GPU_SHADERS=/nonexistent: not a directory"), "{err}");
}

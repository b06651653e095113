//! Frequency-domain monitors through the real binary: `/monitors` in the output file
//! (datasets, shapes, attributes), `fdtd check` lists them, and a run stopped by a fault
//! after a checkpoint and resumed ends with the same monitor results, bit for bit, as an
//! uninterrupted run (the monitors' state is in the checkpoint).
use std::path::Path;

mod common;
use common::*;

const SCENE: &str = r#"
[domain]
cell = 1e-3
cells = [24, 24, 24]
[time]
steps = 400
[boundaries]
all = "cpml"
[boundaries.cpml]
cells = 6
[[sources]]
type = "current"
component = "Ez"
position = [0.012, 0.012, 0.0125]
waveform = { type = "gaussian_derivative", frequency = 6e9, amplitude = 1e-3 }
[[monitors]]
name = "zplane"
type = "dft"
components = ["Ez", "Hx"]
frequencies = [4e9, 8e9]
plane = { axis = "z", position = 0.0125, min = [0.006, 0.008, 0], max = [0.018, 0.016, 0] }
[[monitors]]
name = "box"
type = "flux"
frequencies = { start = 4e9, stop = 8e9, points = 3 }
box = { min = [0.008, 0.008, 0.008], max = [0.016, 0.016, 0.017] }
[[farfield]]
name = "ff"
frequencies = [6e9]
"#;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Every dataset under /monitors as (path, shape, f64 bits).
fn monitors(path: &Path) -> Vec<(String, Vec<usize>, Vec<u64>)> {
    let f = hdf5::File::open(path).unwrap();
    let mut out = Vec::new();
    let mut stack = vec!["monitors".to_string()];
    while let Some(g) = stack.pop() {
        let grp = f.group(&g).unwrap();
        for name in grp.member_names().unwrap() {
            let p = format!("{g}/{name}");
            if let Ok(ds) = f.dataset(&p) {
                let bits = ds.read_raw::<f64>().unwrap().iter().map(|x| x.to_bits()).collect();
                out.push((p, ds.shape(), bits));
            } else {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn monitors_are_written_listed_and_resume_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("s.toml"), SCENE).unwrap();

    let o = fdtd(d, &["check", "s.toml"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(out.contains("monitors (3)"), "{out}");
    assert!(out.contains("flux \"box\"") && out.contains("farfield \"ff\""), "{out}");
    assert!(out.contains("every 2 step(s)"), "{out}");

    let o = fdtd(
        d,
        &["run", "s.toml", "--backend", "cpu", "--no-checkpoint", "-o", "ref.h5"],
    );
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(out.contains("/monitors: zplane, box, ff"), "{out}");
    assert!(out.contains("monitor  box flux:"), "{out}");
    let want = monitors(&d.join("ref.h5"));
    let names: Vec<&str> = want.iter().map(|x| x.0.as_str()).collect();
    for n in [
        "monitors/zplane/frequency",
        "monitors/zplane/Ez_re",
        "monitors/zplane/Hx_im",
        "monitors/box/flux",
        "monitors/ff/flux",
        "monitors/ff/surface/position",
        "monitors/ff/surface/e_re",
    ] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    let shape = |n: &str| want.iter().find(|x| x.0 == n).unwrap().1.clone();
    // Ez on the plane z = 12.5 mm: x samples 6..=18 (13), y samples 8..=16 (9).
    assert_eq!(shape("monitors/zplane/Ez_re"), [2, 13, 9, 1]);
    assert_eq!(shape("monitors/box/flux"), [3]);
    let f = hdf5::File::open(d.join("ref.h5")).unwrap();
    let ez = f.dataset("monitors/zplane/Ez_re").unwrap();
    let origin: Vec<f64> = ez.attr("origin").unwrap().read_raw().unwrap();
    assert!(
        (origin[0] - 0.006).abs() < 1e-12 && (origin[2] - 0.0125).abs() < 1e-12,
        "{origin:?}"
    );
    let flux: Vec<f64> = f.dataset("monitors/box/flux").unwrap().read_raw().unwrap();
    assert!(flux.iter().all(|&p| p > 0.0), "power flows out of the box: {flux:?}");
    drop(f);

    // Stopped by a fault at step 250 after a checkpoint at 200, then resumed.
    let o = cmd(
        d,
        &[
            "run",
            "s.toml",
            "--backend",
            "cpu",
            "-q",
            "-o",
            "r.h5",
            "--checkpoint-every",
            "100",
        ],
    )
    .env("FDTD_FAULT_AT_STEP", "250")
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    let o = fdtd(
        d,
        &["run", "s.toml", "--backend", "cpu", "-q", "-o", "r.h5", "--resume"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let got = monitors(&d.join("r.h5"));
    assert_eq!(want.len(), got.len());
    for ((kw, sw, bw), (kg, sg, bg)) in want.iter().zip(&got) {
        assert_eq!((kw, sw), (kg, sg));
        assert!(
            bw == bg,
            "{kw}: the resumed run's result differs from the uninterrupted run"
        );
    }
}

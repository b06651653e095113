//! `fdtd info`, `fdtd check --json` and several scenes, the warnings that catch unit
//! mistakes and silent runs, and the attributes that make a result file describe itself.
use hdf5::types::VarLenUnicode;
use serde_json::Value;
use std::process::Output;

mod common;
use common::*;

fn scene(freq: &str, extra: &str) -> String {
    let source = format!(
        "[[sources]]\nname = \"tx\"\ntype = \"current\"\ncomponent = \"Ez\"\nposition = [0.008, 0.010, 0.010]\n\
         waveform = {{ type = \"modulated_gaussian\", frequency = {freq} }}\n"
    );
    without_source(&format!("{source}{extra}"))
}

/// The test scene: a CPML box, a probe, a snapshot plane, and `extra` (sources).
fn without_source(extra: &str) -> String {
    format!(
        r#"
[domain]
cell = 1e-3
size = [0.02, 0.02, 0.02]
[time]
steps = 200
[boundaries]
all = "cpml"
[boundaries.cpml]
cells = 4
[[probes]]
name = "rx"
position = [0.013, 0.010, 0.010]
components = ["Ez"]
[[snapshots]]
name = "mid"
components = ["Ez"]
every = 25
plane = {{ axis = "z", position = 0.010 }}
{extra}"#
    )
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", text(&o.stdout)))
}

#[test]
fn info_describes_a_result_and_the_file_describes_itself() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), scene("8e9", "")).unwrap();
    let run = fdtd(dir.path(), &["run", "s.toml", "--backend", "cpu", "--quiet"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(!text(&run.stderr).contains("warning"), "{}", text(&run.stderr));

    let o = fdtd(dir.path(), &["info", "s.h5", "--json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v = json(&o);
    assert_eq!(v["status"], "complete");
    assert_eq!(v["steps_done"], 200);
    assert_eq!(v["backend"], "cpu");
    let device = v["device"].as_str().unwrap();
    assert!(device.starts_with("CPU (") && device.ends_with("threads)"), "{device}");
    assert!(v["wall_seconds"].as_f64().unwrap() > 0.0);
    assert_eq!(v["grid"]["cells"], serde_json::json!([20, 20, 20]));
    let rx = &v["probes"][0];
    assert_eq!(rx["name"], "rx");
    let ez = &rx["components"][0];
    assert_eq!(ez["samples"], 200);
    assert_eq!(ez["index"], serde_json::json!([13, 10, 10]));
    // The spectral peak is the source's 8 GHz (within the pulse's width).
    let fp = ez["spectrum_peak_frequency"].as_f64().unwrap();
    assert!((fp - 8e9).abs() < 0.2 * 8e9, "{fp}");
    assert!(ez["peak"].as_f64().unwrap().abs() > 0.0);
    assert_eq!(v["snapshots"][0]["frames"], 200 / 25);
    assert_eq!(v["all_zero"], false);

    let o = fdtd(dir.path(), &["info", "s.h5"]);
    let t = text(&o.stdout);
    for needle in [
        "status     complete: 200 steps",
        "backend    cpu on CPU (",
        "rx",
        "spectrum peak",
        "mid",
    ] {
        assert!(t.contains(needle), "{needle:?} missing:\n{t}");
    }

    // Attributes: where every point really is, and when snapshots start.
    let f = hdf5::File::open(dir.path().join("s.h5")).unwrap();
    let s = |loc: &hdf5::Location, n: &str| loc.attr(n).unwrap().read_scalar::<VarLenUnicode>().unwrap().to_string();
    assert_eq!(s(&f, "device"), device);
    assert!(s(&f, "device_detail").starts_with("cpu (rayon, "));
    assert!(
        f.attr("backend_selection").is_err(),
        "--backend cpu is no auto selection"
    );
    let tx = f.group("sources/tx").unwrap();
    assert_eq!(tx.attr("index").unwrap().read_raw::<u64>().unwrap(), [8, 10, 10]);
    let pos = tx.attr("position").unwrap().read_raw::<f64>().unwrap();
    assert!((pos[2] - 0.0105).abs() < 1e-12, "Ez sits half a cell up: {pos:?}");
    assert_eq!(s(&tx, "component"), "Ez");
    let mid = f.group("snapshots/mid").unwrap();
    assert_eq!(mid.attr("first_step").unwrap().read_scalar::<u64>().unwrap(), 24);
    let t0 = mid.attr("first_time").unwrap().read_scalar::<f64>().unwrap();
    let time0 = mid.dataset("time").unwrap().read_raw::<f64>().unwrap()[0];
    assert!(
        (t0 - time0).abs() < 1e-18,
        "first_time {t0} vs the time dataset's {time0}"
    );
    let lo = mid.attr("position_lo").unwrap().read_raw::<f64>().unwrap();
    assert!((lo[2] - 0.010).abs() < 1e-12, "{lo:?}");
    assert_eq!(
        f.group("probes/rx")
            .unwrap()
            .attr("first_step")
            .unwrap()
            .read_scalar::<u64>()
            .unwrap(),
        0
    );
}

#[test]
fn info_refuses_what_is_not_a_result_with_the_file_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x.h5"), "not hdf5").unwrap();
    let o = fdtd(dir.path(), &["info", "x.h5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("x.h5"), "{}", text(&o.stderr));
}

#[test]
fn unit_mistakes_and_silent_runs_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hz.toml"), scene("8", "")).unwrap();
    let o = fdtd(dir.path(), &["check", "hz.toml"]);
    assert!(o.status.success());
    let e = text(&o.stderr);
    assert!(
        e.contains("far below what the run resolves") && e.contains("did you mean 8 GHz (frequency = 8e9)?"),
        "{e}"
    );

    // No source at all: warned before, and the all-zero result said after.
    let none = without_source("");
    std::fs::write(dir.path().join("none.toml"), &none).unwrap();
    let o = fdtd(dir.path(), &["run", "none.toml", "--backend", "cpu", "--quiet"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    assert!(e.contains("no sources"), "{e}");
    assert!(e.contains("is exactly zero"), "{e}");
    let o = fdtd(dir.path(), &["info", "none.h5", "--json"]);
    assert_eq!(json(&o)["all_zero"], true);

    // A snapshot that records nothing.
    let late = scene("8e9", "").replace("every = 25", "every = 5000");
    std::fs::write(dir.path().join("late.toml"), late).unwrap();
    let e = text(&fdtd(dir.path(), &["check", "late.toml"]).stderr);
    assert!(
        e.contains("snapshot mid: every = 5000") && e.contains("records nothing"),
        "{e}"
    );
}

#[test]
fn check_takes_several_scenes_and_speaks_json() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.toml"), scene("8e9", "")).unwrap();
    std::fs::write(dir.path().join("b.toml"), scene("8", "")).unwrap();
    std::fs::write(dir.path().join("bad.toml"), "[domain]\ncell = -1\n").unwrap();

    let o = fdtd(dir.path(), &["check", "a.toml", "b.toml", "--backend", "cpu"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let t = text(&o.stdout);
    assert!(t.contains("a.toml: valid") && t.contains("b.toml: valid"), "{t}");

    let o = fdtd(
        dir.path(),
        &["check", "a.toml", "bad.toml", "b.toml", "--json", "--backend", "cpu"],
    );
    assert_eq!(o.status.code(), Some(2), "an invalid scene is bad input");
    let v = json(&o);
    let all = v.as_array().expect("an array for several scenes");
    assert_eq!(all.len(), 3);
    assert_eq!(all[0]["valid"], true);
    assert_eq!(all[0]["grid"]["cells"], serde_json::json!([20, 20, 20]));
    assert_eq!(all[0]["sources"][0]["index"], serde_json::json!([8, 10, 10]));
    assert_eq!(all[0]["snapshots"][0]["frames"], 8);
    assert_eq!(all[0]["plan"]["backend"], "cpu");
    assert_eq!(all[0]["warnings"].as_array().unwrap().len(), 0);
    assert_eq!(all[1]["valid"], false);
    assert!(all[1]["error"].as_str().unwrap().contains("bad.toml:"), "{}", all[1]);
    assert!(all[2]["warnings"][0].as_str().unwrap().contains("did you mean 8 GHz"));

    let o = fdtd(dir.path(), &["check", "a.toml", "--json", "--backend", "cpu"]);
    assert!(json(&o).is_object(), "one scene gives one object");
}

#[test]
fn every_scene_error_is_reported_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let bad = scene("8e9", "")
        .replace(
            "component = \"Ez\"\nposition = [0.008",
            "component = \"Eq\"\nposition = [0.008",
        )
        .replace("position = [0.013, 0.010, 0.010]", "position = [0.5, 0.010, 0.010]");
    assert!(bad.contains("\"Eq\"") && bad.contains("[0.5, "));
    std::fs::write(dir.path().join("two.toml"), bad).unwrap();
    let o = fdtd(dir.path(), &["check", "two.toml"]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    // The probe comes first in the file, the source after it.
    let probe = e.find("probes[0].position").unwrap_or_else(|| panic!("{e}"));
    let src = e.find("sources[0].component").unwrap_or_else(|| panic!("{e}"));
    assert!(probe < src, "sorted by position:\n{e}");
    assert!(e.contains("(2 problems)"), "{e}");
}

//! `shape = "stl"` through the binary: `fdtd check` (text and JSON) lists the mesh and
//! its cells, `fdtd plot` draws it, `fdtd run` runs it, and a broken file is refused
//! with the scene's `file:line:col` and the STL's path.
use fdtd::scene::mesh::{binary_stl, cuboid};
use serde_json::Value;

mod common;
use common::*;

const SCENE: &str = r#"[domain]
cell = 1e-3
size = [0.02, 0.02, 0.02]
[time]
steps = 40
[boundaries]
all = "cpml"
[boundaries.cpml]
cells = 4
[materials.glass]
eps_r = 4
[[objects]]
shape = "stl"
material = "glass"
file = "models/cube.stl"
scale = 1e-3
[[sources]]
type = "current"
component = "Ez"
position = [0.005, 0.005, 0.005]
waveform = { type = "gaussian", frequency = 5e9 }
[[probes]]
position = [0.015, 0.015, 0.015]
components = ["Ez"]
"#;

fn cube(lo: f64, hi: f64) -> Vec<u8> {
    let t: Vec<[[f32; 3]; 3]> = cuboid([lo; 3], [hi; 3])
        .iter()
        .map(|t| t.map(|v| v.map(|x| x as f32)))
        .collect();
    binary_stl(&t)
}

fn setup(stl: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("models")).unwrap();
    std::fs::write(dir.path().join("models/cube.stl"), stl).unwrap();
    std::fs::write(dir.path().join("s.toml"), SCENE).unwrap();
    dir
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn check_plot_and_run_an_stl_scene() {
    // An 8 mm cube on 1 mm cells, faces on nodes: 512 cells.
    let dir = setup(&cube(8.0, 16.0));
    let out = fdtd(dir.path(), &["check", "s.toml", "--backend", "cpu"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", text(&out.stderr));
    assert!(
        stdout.contains("objects[0] (stl of \"glass\")      512 cells"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "models/cube.stl: 12 triangles (8 vertices), placed in (0.008, 0.008, 0.008) … (0.016, 0.016, 0.016) m"
        ),
        "{stdout}"
    );

    let out = fdtd(dir.path(), &["check", "s.toml", "--backend", "cpu", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let o = &v["objects"][0];
    assert_eq!(o["shape"], "stl");
    assert_eq!(o["cells"], 512);
    assert_eq!(o["stl"]["triangles"], 12);
    assert_eq!(o["stl"]["file"], "models/cube.stl");

    let out = fdtd(dir.path(), &["plot", "s.toml", "-o", "geo"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(dir.path().join("geo/s_geometry.png").exists(), "{}", text(&out.stdout));

    let out = fdtd(dir.path(), &["run", "s.toml", "--backend", "cpu"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(dir.path().join("s.h5").exists());
}

#[test]
fn broken_stl_files_are_refused_at_the_file_key() {
    let mut open = cube(8.0, 16.0);
    // Drop the last triangle: 11 of them, 3 open edges.
    open.truncate(84 + 50 * 11);
    open[80..84].copy_from_slice(&11u32.to_le_bytes());
    for (stl, want) in [
        (open, "models/cube.stl: the mesh is not a closed surface: 3 open edges"),
        (b"".to_vec(), "models/cube.stl: the file is empty"),
        (b"PK\x03\x04 a zip file".to_vec(), "models/cube.stl: not an STL file"),
    ] {
        let dir = setup(&stl);
        let out = fdtd(dir.path(), &["check", "s.toml"]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("s.toml:15:1: objects[0].file: ") && stderr.contains(want),
            "{stderr}"
        );
    }
    let dir = setup(&cube(8.0, 16.0));
    std::fs::remove_file(dir.path().join("models/cube.stl")).unwrap();
    let out = fdtd(dir.path(), &["run", "s.toml"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("s.toml:15:1: objects[0].file: ") && stderr.contains("cube.stl: no such file"),
        "{stderr}"
    );
}

//! `fdtd check` lists every object with what it covers on the grid (cells, or E edges for
//! thin conductors), warns about an object that covers nothing, and reports a bad wire
//! with its position.
use serde_json::Value;

mod common;
use common::*;

const SCENE: &str = r#"
[domain]
cell = 1e-3
size = [0.02, 0.02, 0.02]
[time]
steps = 50
[boundaries]
all = "cpml"
[boundaries.cpml]
cells = 4
[materials.glass]
eps_r = 4
[[objects]]
shape = "wire"
material = "pec"
points = [[0.010, 0.010, 0.005], [0.010, 0.010, 0.009]]
[[objects]]
shape = "box"
material = "glass"
min = [0.004, 0.004, 0.004]
max = [0.006, 0.007, 0.005]
[[objects]]
shape = "box"
material = "glass"
min = [0.004, 0.004, 0.01205]
max = [0.016, 0.016, 0.01235]
[[objects]]
shape = "box"
material = "pec"
min = [0.004, 0.006, 0.01505]
max = [0.016, 0.007, 0.01535]
[[objects]]
shape = "plate"
material = "pec"
min = [0.012, 0.012, 0.002]
max = [0.014, 0.012, 0.004]
[[sources]]
type = "current"
component = "Ez"
position = [0.010, 0.010, 0.0095]
waveform = { type = "gaussian", frequency = 20e9 }
"#;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn check_lists_objects_with_their_coverage_and_warns_about_empty_ones() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), SCENE).unwrap();
    let o = fdtd(dir.path(), &["check", "s.toml", "--backend", "cpu"]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("objects (5)\n"), "{out}");
    let line = |start: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(start))
            .unwrap_or_else(|| panic!("no line {start:?} in:\n{out}"))
            .to_string()
    };
    // Wire: nodes z 5..9 on the line (10, 10): 4 Ez edges.
    assert!(
        line("objects[0] (wire of \"pec\")").ends_with(" 4 E edges (thin conductor)"),
        "{out}"
    );
    assert!(line("objects[1] (box of \"glass\")").ends_with(" 6 cells"), "{out}");
    assert!(line("objects[2] (box of \"glass\")").ends_with(" 0 cells"), "{out}");
    // A 0.3 mm PEC strip, 12 × 1 mm in x, y: the plate z = 15 mm, nodes x 4..16, y 6..7:
    // 12 × 2 Ex + 13 × 1 Ey edges.
    assert!(
        line("objects[3] (box of \"pec\")").ends_with(" 37 E edges (thin conductor)"),
        "{out}"
    );
    // Plate normal y at 12 mm, x 12..14, z 2..4 mm: 2 × 3 Ex + 3 × 2 Ez edges.
    assert!(
        line("objects[4] (plate of \"pec\")").ends_with(" 12 E edges (thin conductor)"),
        "{out}"
    );
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning: objects")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].starts_with("warning: objects[2] (box of \"glass\"): covers nothing on the grid and is ignored"),
        "{err}"
    );
    assert!(warnings[0].contains("thin dielectric"), "{err}");

    let o = fdtd(dir.path(), &["check", "s.toml", "--backend", "cpu", "--json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let objects = v["objects"].as_array().unwrap();
    let got: Vec<(String, bool, u64, u64, bool)> = objects
        .iter()
        .map(|o| {
            (
                o["shape"].as_str().unwrap().to_string(),
                o["thin"].as_bool().unwrap(),
                o["cells"].as_u64().unwrap(),
                o["edges"].as_u64().unwrap(),
                o["empty"].as_bool().unwrap(),
            )
        })
        .collect();
    let want = [
        ("wire", true, 0, 4, false),
        ("box", false, 6, 0, false),
        ("box", false, 0, 0, true),
        ("box", true, 0, 37, false),
        ("plate", true, 0, 12, false),
    ]
    .map(|(s, t, c, e, x)| (s.to_string(), t, c, e, x));
    assert_eq!(got, want);
    assert_eq!(objects[2]["material"], "glass");
    assert_eq!(objects[2]["index"], 2);
    let w = v["warnings"].as_array().unwrap();
    assert!(
        w.iter()
            .any(|w| w.as_str().unwrap().starts_with("objects[2] (box of \"glass\")")),
        "{w:?}"
    );
}

#[test]
fn a_wire_of_a_dielectric_is_refused_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let bad = SCENE.replacen(
        "shape = \"wire\"\nmaterial = \"pec\"",
        "shape = \"wire\"\nmaterial = \"glass\"",
        1,
    );
    std::fs::write(dir.path().join("bad.toml"), bad).unwrap();
    let o = fdtd(dir.path(), &["check", "bad.toml"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.contains("bad.toml:15:12: objects[0].material: a wire is a thin perfect conductor"),
        "{err}"
    );
}

#[test]
fn the_geometry_plot_draws_thin_conductors() {
    use fdtd::model::Model;
    use fdtd::plot::{Canvas, Geometry};
    let scene = fdtd::scene::Scene::parse(SCENE, "s.toml").unwrap();
    let model = Model::discretize(&scene).unwrap();
    let geom = Geometry::new(&scene, &model);
    assert_eq!(geom.thin.len(), 4 + 37 + 12);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.png");
    // Through the wire's grid line x = y = 10 mm.
    let fig = fdtd::plot::geometry::geometry_png(&geom, [0.010, 0.010, 0.007], &path, "thin").unwrap();
    let c = Canvas::load_png(&path).unwrap();
    let thin = [150, 40, 0];
    let at = |panel: usize, u: f64, v: f64| {
        let p = fig.panels[panel].pixel(u, v);
        c.pixel(p.0, p.1)
    };
    // yz (x = 10 mm) and xz (y = 10 mm): the wire, from z = 5 to 9 mm, as a line.
    for z in [0.0055, 0.007, 0.0085] {
        assert_eq!(at(0, 0.010, z), Some(thin), "yz at z = {z}");
        assert_eq!(at(1, 0.010, z), Some(thin), "xz at z = {z}");
    }
    assert_ne!(at(0, 0.010, 0.0105), Some(thin));
    // xy (z = 7 mm): the wire crosses it, a dot.
    assert_eq!(at(2, 0.010, 0.010), Some(thin));
    assert_ne!(at(2, 0.012, 0.012), Some(thin));
}

#[test]
fn check_says_which_wires_are_corrected_for_their_radius() {
    let dir = tempfile::tempdir().unwrap();
    // The first wire with a radius of 0.1 mm: its 4 edges' 16 H samples are corrected.
    let scene = SCENE.replacen(
        "points = [[0.010, 0.010, 0.005], [0.010, 0.010, 0.009]]\n",
        "points = [[0.010, 0.010, 0.005], [0.010, 0.010, 0.009]]\nradius = 1e-4\n",
        1,
    );
    std::fs::write(dir.path().join("s.toml"), scene).unwrap();
    let o = fdtd(dir.path(), &["check", "s.toml", "--backend", "cpu"]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{out}\n{err}");
    let f = (1.0f64 / 0.198_505_904_095_820_7).ln() / 10f64.ln();
    let want =
        format!("objects[0] (wire of \"pec\"): radius 0.0001 m corrected: thin-wire factor {f:.3} on 16 H samples");
    assert!(out.contains(&want), "{want}\n{out}");
    let o = fdtd(dir.path(), &["check", "s.toml", "--backend", "cpu", "--schedule"]);
    let out = text(&o.stdout);
    assert!(out.contains("pass thin_wire"), "{out}");
}

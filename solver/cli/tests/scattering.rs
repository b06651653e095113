//! Plane-wave results through the command line: a small sphere's cross sections and RCS
//! from `fdtd run`, read back by `fdtd info` (text and JSON) and drawn by `fdtd plot`;
//! the cross-section figure's curves sit where its data says (pixels located through the
//! figure's own `Panel`).
use fdtd::output::read::CrossSectionInfo;
use fdtd::plot::scattering::cross_section_png;
use fdtd::plot::series::COLOURS;
use fdtd::plot::Canvas;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_fdtd");

const SCENE: &str = r#"# a lossy dielectric sphere in a plane wave
[domain]
cell = 1e-3
cells = [30, 30, 30]
[time]
steps = 500
[boundaries]
all = "cpml"
[boundaries.cpml]
cells = 6
[materials.glass]
eps_r = 3.0
sigma = 0.1
[[objects]]
shape = "sphere"
material = "glass"
center = [0.015, 0.015, 0.015]
radius = 0.004
[[sources]]
name = "pw"
type = "plane_wave"
box = { min = [0.009, 0.009, 0.009], max = [0.021, 0.021, 0.021] }
waveform = { type = "gaussian", frequency = 8e9 }
[[cross_sections]]
name = "ball"
frequencies = { start = 4e9, stop = 12e9, points = 5 }
[[farfield]]
name = "ff"
frequencies = [8e9]
theta_step = 15
phi_step = 30
"#;

#[test]
fn run_info_and_plot_show_cross_sections_and_rcs() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("ball.toml");
    std::fs::write(&scene, SCENE).unwrap();
    let out = Command::new(BIN)
        .args(["run", "ball.toml", "--backend", "cpu", "-o", "ball.h5"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    for want in [
        "/cross_sections: ball",
        "cross section ball (plane wave pw)",
        "energy balance",
        "monostatic RCS",
    ] {
        assert!(text.contains(want), "`{want}` not in:\n{text}");
    }

    let out = Command::new(BIN)
        .args(["info", "ball.h5"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    for want in [
        "cross sections (1)",
        "ball",
        "plane wave pw, 5 frequencies",
        "monostatic RCS",
    ] {
        assert!(text.contains(want), "`{want}` not in:\n{text}");
    }
    assert!(!text.contains("/cross_sections       not interpreted"), "{text}");
    let out = Command::new(BIN)
        .args(["info", "ball.h5", "--json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &v["cross_sections"][0];
    assert_eq!(c["name"], "ball");
    let (ext, sca, abs) = (&c["extinction"], &c["scattering"], &c["absorption"]);
    for k in 0..5 {
        let (e, s, a) = (
            ext[k].as_f64().unwrap(),
            sca[k].as_f64().unwrap(),
            abs[k].as_f64().unwrap(),
        );
        // A lossy sphere scatters and absorbs; the three measurements balance.
        assert!(s > 0.0 && a > 0.0 && ((e - s - a) / e).abs() < 0.02, "{k}: {e} {s} {a}");
    }
    assert!(v["farfield"][0]["monostatic_rcs_dBsm"][0].as_f64().is_some());

    let out = Command::new(BIN)
        .args(["plot", "ball.h5", "--what", "farfield", "-o", "figs"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for name in [
        "ball_cross_section_ball.png",
        "ball_rcs_ff_8_GHz.png",
        "ball_farfield_ff_8_GHz.png",
    ] {
        let c = Canvas::load_png(&dir.path().join("figs").join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(c.width >= 900, "{name}");
    }
}

/// σ_ext = 1e-3 and σ_sca = 1e-4 m² (flat), σ_abs far below the axis: the first two
/// curves lie on their decades in their colours; the third is not drawn, and an
/// unresolved frequency with a huge value does not pull the curves.
#[test]
fn cross_section_figure_puts_each_curve_on_its_value() {
    let n = 11;
    let freq: Vec<f64> = (0..n).map(|k| 1e9 + 1e8 * k as f64).collect();
    let mut ext = vec![1e-3; n];
    ext[n - 1] = 1e3; // unresolved: left out
    let c = CrossSectionInfo {
        name: "t".into(),
        plane_wave: "pw".into(),
        freq,
        scattering: vec![1e-4; n],
        absorption: vec![1e-12; n],
        extinction: ext,
        resolved: (0..n).map(|k| k < n - 1).collect(),
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cs.png");
    let fig = cross_section_png(&c, &path).unwrap();
    let canvas = Canvas::load_png(&path).unwrap();
    let p = &fig.panels[0];
    assert!(
        p.y.1 <= -2.0 && p.y.0 >= -10.0,
        "the axis follows the resolved data: {:?}",
        p.y
    );
    let near = |(x, y): (i32, i32), want: plotters::style::RGBColor| {
        (-2..=2).any(|dy| {
            canvas.pixel(x, y + dy).is_some_and(|q| {
                (q[0] as i32 - want.0 as i32).abs() < 40
                    && (q[1] as i32 - want.1 as i32).abs() < 40
                    && (q[2] as i32 - want.2 as i32).abs() < 40
            })
        })
    };
    let f = 1.35e9;
    assert!(near(p.pixel(f, -3.0), COLOURS[0]), "extinction at 1e-3");
    assert!(near(p.pixel(f, -4.0), COLOURS[1]), "scattering at 1e-4");
    assert!(!near(p.pixel(f, -3.5), COLOURS[0]), "nothing between them");
}

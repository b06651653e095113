//! `fdtd plot` from a small real run: every figure kind exists, has its size, is not blank,
//! and shows the data where the data says it must be (pixels located through each
//! figure's own data-to-pixel mapping, `Panel::pixel`).
use fdtd::model::Model;
use fdtd::output::ResultFile;
use fdtd::plot::series::{db_spectrum, spectrum_png, time_png, Series, COLOURS};
use fdtd::plot::slice::{slice_png, Slice, Style};
use fdtd::plot::{diverging, material_colour, Canvas, Geometry, Panel};
use fdtd::scene::Scene;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

mod common;
use common::*;

/// A modulated-gaussian dipole at 6 GHz beside a PEC block, in a CPML box.
const SCENE: &str = r#"
[domain]
cell = 1e-3
size = [0.04, 0.03, 0.02]
[time]
steps = 600
[boundaries]
all = "cpml"
[boundaries.cpml]
cells = 6
[[objects]]
shape = "box"
material = "pec"
min = [0.024, 0.010, 0.004]
max = [0.030, 0.020, 0.016]
[[sources]]
name = "tx"
type = "current"
component = "Ez"
position = [0.012, 0.015, 0.010]
waveform = { type = "modulated_gaussian", frequency = 6e9 }
[[probes]]
name = "rx"
position = [0.018, 0.015, 0.010]
components = ["Ez", "Hy"]
[[snapshots]]
name = "mid"
components = ["Ez"]
every = 20
plane = { axis = "z", position = 0.010 }
"#;

/// The run, made once for every test: (directory, result file).
fn run() -> &'static (tempfile::TempDir, PathBuf) {
    static RUN: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tiny.toml"), SCENE).unwrap();
        let out = fdtd(dir.path(), &["run", "tiny.toml", "--backend", "cpu", "--quiet"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let h5 = dir.path().join("tiny.h5");
        (dir, h5)
    })
}

fn scene_and_model() -> (Scene, Model) {
    let scene = Scene::parse(SCENE, "tiny.toml").unwrap();
    let model = Model::discretize(&scene).unwrap();
    (scene, model)
}

/// Distinct colours in an image (a blank or flat figure has one or two).
fn colours(c: &Canvas) -> usize {
    let mut set: Vec<[u8; 3]> = c.rgb.chunks(3).map(|p| [p[0], p[1], p[2]]).collect();
    set.sort();
    set.dedup();
    set.len()
}

fn close(a: [u8; 3], b: [u8; 3], tol: i32) -> bool {
    (0..3).all(|i| (a[i] as i32 - b[i] as i32).abs() <= tol)
}

/// Whether a pixel within `r` of `(x, y)` has colour `want`.
fn near(c: &Canvas, (x, y): (i32, i32), r: i32, want: [u8; 3], tol: i32) -> bool {
    (-r..=r).any(|dx| (-r..=r).any(|dy| c.pixel(x + dx, y + dy).is_some_and(|p| close(p, want, tol))))
}

fn rgb(c: plotters::style::RGBColor) -> [u8; 3] {
    [c.0, c.1, c.2]
}

fn series(f: &ResultFile, probe: &str) -> Vec<Series> {
    f.probe(probe)
        .unwrap()
        .components
        .iter()
        .map(|c| {
            let (time, values) = f.probe_series(probe, &c.name).unwrap();
            Series {
                name: c.name.clone(),
                units: c.units.clone(),
                time,
                values,
            }
        })
        .collect()
}

#[test]
fn plot_writes_every_figure_of_a_result() {
    let (dir, h5) = run();
    let out = fdtd(dir.path(), &["plot", h5.to_str().unwrap(), "-o", "figs"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let figs = dir.path().join("figs");
    for name in ["tiny_probe_rx.png", "tiny_spectrum_rx.png", "tiny_mid_Ez.png"] {
        let c = Canvas::load_png(&figs.join(name)).unwrap();
        assert!(c.width >= 400 && c.height >= 300, "{name}: {}×{}", c.width, c.height);
        assert!(colours(&c) > 20, "{name} looks blank ({} colours)", colours(&c));
        let said = format!(
            "wrote {} ({} × {})",
            Path::new("figs").join(name).display(),
            c.width,
            c.height
        );
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(&said),
            "{said} not reported"
        );
    }
    // The animation: one frame per snapshot frame, every one the same size.
    let file = std::fs::File::open(figs.join("tiny_mid_Ez.gif")).unwrap();
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut d = opts.read_info(file).unwrap();
    let (w, h) = (d.width(), d.height());
    let mut frames = 0;
    while let Some(f) = d.read_next_frame().unwrap() {
        assert_eq!((f.width, f.height), (w, h));
        frames += 1;
    }
    assert_eq!(frames, 600 / 20);
}

#[test]
fn spectrum_peaks_at_the_source_frequency() {
    let (dir, h5) = run();
    let f = ResultFile::open(h5).unwrap();
    let s = series(&f, "rx");
    let f_max = 15e9;
    let path = dir.path().join("spectrum.png");
    let fig = spectrum_png("rx", &s, f_max, &[], &path).unwrap();
    let c = Canvas::load_png(&path).unwrap();
    assert_eq!((c.width, c.height), (fig.width, fig.height));
    for (k, ser) in s.iter().enumerate() {
        // The data's peak (0 dB by construction)...
        let db = db_spectrum(ser, f_max);
        let (fp, top) = db.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        assert!(top.abs() < 1e-9);
        // ...is where the curve is drawn, and far below it (−55 dB) is not.
        let p = fig.panels[0].pixel(fp, top);
        assert!(near(&c, p, 2, rgb(COLOURS[k]), 40), "no {} curve at {p:?}", ser.name);
        let q = fig.panels[0].pixel(fp, -55.0);
        assert!(
            !near(&c, q, 1, rgb(COLOURS[k]), 40),
            "the {} curve is drawn at {q:?} too",
            ser.name
        );
        // The radiated H field (the near-field Ez leans to low frequencies) peaks at the
        // source's 6 GHz.
        if ser.name == "Hy" {
            assert!((fp - 6e9).abs() < 0.12 * 6e9, "Hy spectrum peaks at {fp} Hz");
        }
    }
}

#[test]
fn time_series_is_drawn_through_its_peak() {
    let (dir, h5) = run();
    let f = ResultFile::open(h5).unwrap();
    let s = series(&f, "rx");
    let path = dir.path().join("time.png");
    let fig = time_png("rx", &s, &path).unwrap();
    let c = Canvas::load_png(&path).unwrap();
    assert_eq!(fig.panels.len(), 2);
    for (k, (ser, panel)) in s.iter().zip(&fig.panels).enumerate() {
        let (i, v) = fdtd::signal::peak(&ser.values).unwrap();
        assert!(v != 0.0, "{} recorded zeros", ser.name);
        let p = panel.pixel(ser.time[i], v as f64);
        assert!(
            near(&c, p, 2, rgb(COLOURS[k]), 40),
            "{}: no curve at its peak {p:?}",
            ser.name
        );
    }
}

#[test]
fn snapshot_colours_follow_the_field() {
    let (dir, h5) = run();
    let f = ResultFile::open(h5).unwrap();
    let snap = f.snapshot("mid").unwrap();
    let comp = &snap.components[0];
    let (scene, model) = scene_and_model();
    let geom = Geometry::new(&scene, &model);
    // Samples of strong field away from markers, outlines and the CPML: the pixel at
    // each has the colour of its value, in every third frame.
    let d = 1e-3;
    let clear = |x: f64, y: f64| {
        let markers = [(0.012, 0.015), (0.018, 0.015)];
        let interior = (0.0075..=0.0325).contains(&x) && (0.0075..=0.0225).contains(&y);
        let off_block = !(0.0225..=0.0315).contains(&x);
        interior
            && off_block
            && markers
                .iter()
                .all(|m| (m.0 - x).abs() > 3.0 * d || (m.1 - y).abs() > 3.0 * d)
    };
    let mut checked = 0;
    for frame in (0..snap.frames).step_by(3) {
        let slice = Slice::from_frame(&f.snapshot_frame("mid", "Ez", frame).unwrap(), comp);
        let vmax = slice.quantile_abs(0.995) as f64;
        if vmax == 0.0 {
            continue;
        }
        let style = Style {
            title: format!("frame {frame}"),
            component: "Ez".into(),
            units: "V/m".into(),
            domain: geom.size(),
            geometry: Some(&geom),
        };
        let path = dir.path().join(format!("slice{frame}.png"));
        let fig = slice_png(&slice, vmax, &style, &path).unwrap();
        let c = Canvas::load_png(&path).unwrap();
        let panel: &Panel = &fig.panels[0];
        for iu in 1..slice.nu - 1 {
            for iv in 1..slice.nv - 1 {
                let v = slice.values[iu * slice.nv + iv] as f64;
                let (x, y) = (
                    slice.origin[0] + iu as f64 * slice.spacing[0],
                    slice.origin[1] + iv as f64 * slice.spacing[1],
                );
                if v.abs() < 0.3 * vmax || !clear(x, y) {
                    continue;
                }
                let p = panel.pixel(x, y);
                let got = c.pixel(p.0, p.1).unwrap();
                let want = rgb(diverging(v / vmax));
                assert!(
                    close(got, want, 12),
                    "frame {frame}, sample ({iu}, {iv}) = {v}: pixel {p:?} is {got:?}, want {want:?}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "only {checked} strong samples checked");
}

#[test]
fn geometry_plot_shows_the_pec_block_where_it_is() {
    let (scene, model) = scene_and_model();
    let geom = Geometry::new(&scene, &model);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.png");
    let at = geom.default_point();
    let want = [0.012, 0.015, 0.0105]; // the source's Ez sample
    assert!((0..3).all(|a| (at[a] - want[a]).abs() < 1e-12), "{at:?}");
    let fig = fdtd::plot::geometry::geometry_png(&geom, at, &path, "tiny").unwrap();
    let c = Canvas::load_png(&path).unwrap();
    assert_eq!((c.width, c.height), (fig.width, fig.height));
    let names: Vec<&str> = fig.panels.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["yz", "xz", "xy"]);
    let xy = &fig.panels[2];
    let pec = rgb(material_colour(1));
    let vacuum = rgb(material_colour(0));
    // Inside the block (x 24..30 mm, y 10..20 mm) PEC grey; between source and block vacuum.
    assert_eq!(c.pixel(xy.pixel(0.027, 0.013).0, xy.pixel(0.027, 0.013).1), Some(pec));
    assert_eq!(
        c.pixel(xy.pixel(0.021, 0.009).0, xy.pixel(0.021, 0.009).1),
        Some(vacuum)
    );
    // The xz panel cuts the block too; the yz panel (x = 12 mm) does not.
    let xz = &fig.panels[1];
    let p = xz.pixel(0.027, 0.012);
    assert_eq!(c.pixel(p.0, p.1), Some(pec));
    let yz = &fig.panels[0];
    assert!(!(0..yz.px.1 - yz.px.0)
        .any(|dx| { (0..yz.py.0 - yz.py.1).any(|dy| c.pixel(yz.px.0 + dx, yz.py.1 + dy) == Some(pec)) }));
    // The CLI writes the same figure for the scene file.
    std::fs::write(dir.path().join("tiny.toml"), SCENE).unwrap();
    let out = fdtd(dir.path(), &["plot", "tiny.toml"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cli = Canvas::load_png(&dir.path().join("tiny_plots/tiny_geometry.png")).unwrap();
    assert_eq!((cli.width, cli.height), (c.width, c.height));
}

#[test]
fn geometry_plot_draws_flux_and_far_field_boxes() {
    // A flux box round the source (x 8..16 mm, y 11..19 mm, z 7..13 mm).
    let toml = format!(
        "{SCENE}[[monitors]]\nname = \"round\"\ntype = \"flux\"\nfrequencies = [6e9]\n\
         box = {{ min = [0.008, 0.011, 0.007], max = [0.016, 0.019, 0.013] }}\n"
    );
    let scene = Scene::parse(&toml, "boxes.toml").unwrap();
    let model = Model::discretize(&scene).unwrap();
    let geom = Geometry::new(&scene, &model);
    assert_eq!(geom.boxes.len(), 1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.png");
    let fig = fdtd::plot::geometry::geometry_png(&geom, geom.default_point(), &path, "boxes").unwrap();
    let c = Canvas::load_png(&path).unwrap();
    let green = rgb(plotters::style::GREEN);
    let xy = &fig.panels[2];
    // On the box's left edge (x = 8 mm) green; in the box's middle not.
    assert!(near(&c, xy.pixel(0.008, 0.0135), 4, green, 40), "no box edge");
    assert!(!near(&c, xy.pixel(0.0095, 0.0135), 2, green, 40));
    // The same scene without the box has no green there.
    let plain = Geometry::new(&scene_and_model().0, &scene_and_model().1);
    let path2 = dir.path().join("plain.png");
    let fig2 = fdtd::plot::geometry::geometry_png(&plain, plain.default_point(), &path2, "plain").unwrap();
    let c2 = Canvas::load_png(&path2).unwrap();
    assert!(!near(&c2, fig2.panels[2].pixel(0.008, 0.0135), 2, green, 40));
}

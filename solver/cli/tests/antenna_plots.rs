//! Port and far-field figures, `fdtd info` and `fdtd plot --what ports,farfield` on
//! synthetic result files written here: a series-RLC port (a resonant Z whose −10 dB
//! band is known from the data) and a Hertzian-dipole far field (D = 1.5·sin²θ).
//! Pixels are located through each figure's own `Panel`s.
use fdtd::farfield::{db, FarField};
use fdtd::output::{write_farfields, ResultFile};
use fdtd::plot::antenna::{band_below, farfield_png, polar_rho, polar_xy, port_png};
use fdtd::plot::series::COLOURS;
use fdtd::plot::Canvas;
use hdf5::types::VarLenUnicode;
use std::f64::consts::PI;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const BIN: &str = env!("CARGO_BIN_EXE_fdtd");

use fdtd::farfield::Complex64 as C;

/// A series RLC (R = 60 Ω, resonant at 1 GHz, Q = 4) seen from a 50 Ω port, 0.6–1.4 GHz.
fn rlc() -> (Vec<f64>, Vec<C>) {
    let (r, f0, q) = (60.0, 1e9, 4.0);
    let w0 = 2.0 * PI * f0;
    let l = q * r / w0;
    let c = 1.0 / (w0 * w0 * l);
    let freq: Vec<f64> = (0..161).map(|i| 0.6e9 + i as f64 * 5e6).collect();
    let z = freq
        .iter()
        .map(|&f| {
            let w = 2.0 * PI * f;
            C::new(r, w * l - 1.0 / (w * c))
        })
        .collect();
    (freq, z)
}

/// The far field of a z dipole, 1.5·sin²θ, on a 2° × 5° grid at two frequencies, with a
/// port (efficiency 0.9, realized gain half the directivity).
fn dipole_farfields() -> Vec<FarField> {
    let theta: Vec<f64> = (0..=90).map(|i| (2.0 * i as f64).to_radians()).collect();
    let phi: Vec<f64> = (0..=72).map(|j| (5.0 * j as f64).to_radians()).collect();
    [0.9e9, 1.1e9]
        .iter()
        .map(|&freq| {
            let mut d = Vec::new();
            let mut et = Vec::new();
            for t in &theta {
                for _ in &phi {
                    d.push(1.5 * t.sin().powi(2));
                    et.push(C::new(0.0, t.sin()));
                }
            }
            let n = d.len();
            FarField {
                name: "ff".into(),
                freq,
                theta: theta.clone(),
                phi: phi.clone(),
                e_theta: et,
                e_phi: vec![C::new(0.0, 0.0); n],
                intensity: d.iter().map(|x| x / (4.0 * PI)).collect(),
                radiated_power: 1.0,
                max_directivity: 1.5,
                max_at: (PI / 2.0, 0.0),
                efficiency: Some(0.9),
                gain: Some(d.iter().map(|x| 0.9 * x).collect()),
                realized_gain: Some(d.iter().map(|x| 0.5 * x).collect()),
                directivity: d,
                ..Default::default()
            }
        })
        .collect()
}

/// The result file, written once for every test (HDF5 locks a file per open, so tests
/// running in parallel share one closed file and only read it): (directory, path).
fn file() -> &'static (tempfile::TempDir, PathBuf) {
    static FILE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    FILE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = write_file(dir.path());
        (dir, path)
    })
}

/// A result file with `/ports/feed` (the layout the ports writer uses) and `/farfield/ff`.
fn write_file(dir: &Path) -> PathBuf {
    let path = dir.join("ant.h5");
    let f = hdf5::File::create(&path).unwrap();
    let s = |v: &str| -> VarLenUnicode { v.parse().unwrap() };
    f.new_attr::<VarLenUnicode>()
        .shape(())
        .create("status")
        .unwrap()
        .write_scalar(&s("complete"))
        .unwrap();
    let (freq, z) = rlc();
    let z0 = 50.0;
    let sp: Vec<C> = z.iter().map(|z| (z - z0) / (z + z0)).collect();
    let g = f.create_group("ports").unwrap().create_group("feed").unwrap();
    let flat = |v: &[C]| v.iter().flat_map(|c| [c.re, c.im]).collect::<Vec<f64>>();
    let nf = freq.len();
    g.new_dataset_builder().with_data(&freq).create("frequency").unwrap();
    let ds = |name: &str, data: &[f64]| {
        g.new_dataset::<f64>()
            .shape([nf, 2])
            .create(name)
            .unwrap()
            .write_raw(data)
            .unwrap()
    };
    ds("Z", &flat(&z));
    ds("S", &flat(&sp));
    let sdb: Vec<f64> = sp.iter().map(|s| 20.0 * s.norm().log10()).collect();
    g.new_dataset_builder().with_data(&sdb).create("S_dB").unwrap();
    g.new_attr::<f64>()
        .shape(())
        .create("z0")
        .unwrap()
        .write_scalar(&z0)
        .unwrap();
    // As the ports writer stores it: a u8 flag.
    g.new_attr::<u8>()
        .shape(())
        .create("driven")
        .unwrap()
        .write_scalar(&1u8)
        .unwrap();
    write_farfields(&f, &dipole_farfields()).unwrap();
    drop(g);
    f.close().unwrap();
    path
}

fn close(a: [u8; 3], b: [u8; 3], tol: i32) -> bool {
    (0..3).all(|i| (a[i] as i32 - b[i] as i32).abs() <= tol)
}

fn near(c: &Canvas, (x, y): (i32, i32), r: i32, want: [u8; 3]) -> bool {
    (-r..=r).any(|dx| (-r..=r).any(|dy| c.pixel(x + dx, y + dy).is_some_and(|p| close(p, want, 40))))
}

fn rgb(c: plotters::style::RGBColor) -> [u8; 3] {
    [c.0, c.1, c.2]
}

#[test]
fn result_file_reads_ports_and_farfields_back() {
    let f = ResultFile::open(&file().1).unwrap();
    assert!(f.other_groups.is_empty(), "{:?}", f.other_groups);
    assert_eq!(f.ports.len(), 1);
    let p = &f.ports[0];
    assert_eq!(
        (p.name.as_str(), p.z0, p.driven, p.frequency.len()),
        ("feed", 50.0, true, 161)
    );
    let (freq, z) = rlc();
    assert_eq!(p.z[80], [z[80].re, z[80].im]);
    assert!((p.frequency[80] - 1e9).abs() < 1.0 && freq[80] == p.frequency[80]);
    let ff = f.farfield("ff").unwrap();
    assert_eq!(ff.freq, vec![0.9e9, 1.1e9]);
    assert_eq!((ff.theta.len(), ff.phi.len()), (91, 73));
    assert!((ff.theta[45] - 90.0).abs() < 1e-9 && (ff.phi[72] - 360.0).abs() < 1e-9);
    assert_eq!(ff.patterns, vec!["directivity_dBi", "gain_dBi", "realized_gain_dBi"]);
    assert_eq!(ff.efficiency, Some(vec![0.9, 0.9]));
    assert_eq!(ff.max_direction, vec![[90.0, 0.0], [90.0, 0.0]]);
    assert!((ff.max_directivity_dbi[1] - db(1.5)).abs() < 1e-12);
    let d = f.farfield_pattern("ff", "directivity_dBi", 1).unwrap();
    assert_eq!(d.len(), 91 * 73);
    assert!((d[45 * 73 + 3] - db(1.5)).abs() < 1e-12);
    let g = f.farfield_pattern("ff", "realized_gain_dBi", 0).unwrap();
    assert!((g[45 * 73] - db(0.75)).abs() < 1e-12);
    let err = f.farfield_pattern("ff", "directivity_dBi", 2).unwrap_err().to_string();
    assert!(err.contains("2 frequencies"), "{err}");
    assert!(f.farfield("nope").unwrap_err().to_string().contains("the file has: ff"));
}

/// The |S11| panel: the curve crosses the −10 dB line exactly at the band edges the data
/// gives (interpolated), and lies well below the line halfway between an edge and the
/// minimum.
#[test]
fn port_figure_crosses_minus_10_db_where_the_data_says() {
    let dir = tempfile::tempdir().unwrap();
    let f = ResultFile::open(&file().1).unwrap();
    let p = &f.ports[0];
    let fig = port_png(p, &dir.path().join("port.png")).unwrap();
    let c = Canvas::load_png(&fig.path).unwrap();
    let panel = fig.panels.iter().find(|p| p.name == "S_dB").unwrap();
    let (imin, lo, hi) = band_below(&p.frequency, &p.s_db, -10.0).expect("a −10 dB band");
    // The data: minimum at resonance (|Γ| = 10/110 → −20.8 dB), band inside the sweep.
    assert!((p.frequency[imin] - 1e9).abs() < 1.0 && p.s_db[imin] < -20.0);
    assert!(lo > 0.85e9 && lo < 1e9 && hi > 1e9 && hi < 1.15e9, "band {lo}–{hi}");
    let blue = rgb(COLOURS[0]);
    for edge in [lo, hi] {
        assert!(
            near(&c, panel.pixel(edge, -10.0), 2, blue),
            "no |S11| curve at the −10 dB crossing {edge}"
        );
        // 20 MHz off the edge on the −10 dB line the curve is far away (above or below).
        for off in [-20e6, 20e6] {
            assert!(
                !near(&c, panel.pixel(edge + off, -10.0), 2, blue),
                "the curve is at −10 dB at {} too",
                edge + off
            );
        }
    }
    assert!(near(&c, panel.pixel(p.frequency[imin], p.s_db[imin]), 2, blue));
    // Z panel: R = 60 Ω flat, X crosses zero at resonance.
    let zp = fig.panels.iter().find(|p| p.name == "Z").unwrap();
    assert!(near(&c, zp.pixel(0.8e9, 60.0), 2, blue));
    assert!(near(&c, zp.pixel(1e9, 0.0), 2, rgb(COLOURS[1])));
    // Smith chart: the minimum (marked red) is Γ at resonance, (60 − 50)/(60 + 50) on
    // the real axis; the trace passes Γ(0.8 GHz).
    let sm = fig.panels.iter().find(|p| p.name == "smith").unwrap();
    assert!(near(&c, sm.pixel(10.0 / 110.0, 0.0), 2, rgb(COLOURS[1])));
    let (freq, z) = rlc();
    let i = freq.iter().position(|f| (f - 0.8e9).abs() < 1.0).unwrap();
    let g = (z[i] - 50.0) / (z[i] + 50.0);
    assert!(g.norm() > 0.5);
    assert!(
        near(&c, sm.pixel(g.re, g.im), 2, blue),
        "Γ(0.8 GHz) = {g} not on the trace"
    );
}

/// The polar cut of sin²θ in the xz plane has its null on the z axis (no curve along
/// the +z and −z rays beyond the centre region) and its peak on the x axis at the level
/// of 1.76 dBi; the θ–φ map is brightest at θ = 90° and darkest at the poles.
#[test]
fn farfield_figure_has_the_dipole_null_on_the_axis() {
    let dir = tempfile::tempdir().unwrap();
    let f = ResultFile::open(&file().1).unwrap();
    let ff = f.farfield("ff").unwrap();
    let d = f.farfield_pattern("ff", "directivity_dBi", 0).unwrap();
    let fig = farfield_png(ff, 0, &d, "directivity", &dir.path().join("ff.png")).unwrap();
    let c = Canvas::load_png(&fig.path).unwrap();
    let red = rgb(COLOURS[1]);
    let names: Vec<&str> = fig.panels.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names.len(), 4, "{names:?}");
    let top = db(1.5).ceil();
    for label in ["xz", "yz"] {
        let p = fig.panels.iter().find(|p| p.name.starts_with(label)).unwrap();
        // Peak at θ = 90° and 270° (φ + 180°).
        for psi in [90.0, 270.0] {
            let at = p.pixel_of(polar_xy(&p.name, psi, polar_rho(db(1.5), top)));
            assert!(near(&c, at, 2, red), "{label}: no peak at {psi}°");
        }
        // The null: nothing along the axis rays between half and nearly full radius.
        for psi in [0.0, 180.0] {
            for k in 0..=18 {
                let rho = 0.5 + 0.025 * k as f64;
                let at = p.pixel_of(polar_xy(&p.name, psi, rho));
                assert!(!near(&c, at, 2, red), "{label}: curve on the axis at ψ {psi}, ρ {rho}");
            }
        }
    }
    // The xy cut is a circle at the peak level.
    let xy = fig.panels.iter().find(|p| p.name.starts_with("xy")).unwrap();
    for psi in [0.0, 45.0, 135.0, 250.0] {
        assert!(near(
            &c,
            xy.pixel_of(polar_xy(&xy.name, psi, polar_rho(db(1.5), top))),
            2,
            red
        ));
    }
    let map = fig.panels.iter().find(|p| p.name == "map").unwrap();
    let lum = |p: [u8; 3]| p[0] as i32 + p[1] as i32 + p[2] as i32;
    let bright = c.pixel(map.pixel(100.0, 90.0).0, map.pixel(100.0, 90.0).1).unwrap();
    let dark = c.pixel(map.pixel(100.0, 1.0).0, map.pixel(100.0, 1.0).1).unwrap();
    assert!(
        lum(bright) > 400 && lum(dark) < 250,
        "map: {bright:?} at θ 90°, {dark:?} at the pole"
    );
}

trait PixelOf {
    fn pixel_of(&self, p: (f64, f64)) -> (i32, i32);
}
impl PixelOf for fdtd::plot::Panel {
    fn pixel_of(&self, p: (f64, f64)) -> (i32, i32) {
        self.pixel(p.0, p.1)
    }
}

#[test]
fn info_and_plot_show_ports_and_farfields() {
    let dir = tempfile::tempdir().unwrap();
    let h5 = &file().1;
    let out = Command::new(BIN).args(["info", h5.to_str().unwrap()]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for want in [
        "ports (1)",
        "feed",
        "Z0 50 Ω, driven: 161 frequencies",
        "min |S11| -20.8 dB at 1 GHz (Z 60.0 + j0.0 Ω)",
        "−10 dB band",
        "far fields (1)",
        "2 frequencies, 91 × 73 directions",
        "at 900 MHz: P_rad 1 W, D_max 1.76 dBi at (θ 90°, φ 0°), efficiency 90.0 %",
    ] {
        assert!(text.contains(want), "`{want}` not in:\n{text}");
    }
    assert!(!text.contains("not interpreted"), "{text}");
    let out = Command::new(BIN)
        .args(["info", h5.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ports"][0]["name"], "feed");
    assert!(v["ports"][0]["band_10dB"][0].as_f64().unwrap() > 0.85e9);
    assert_eq!(v["farfield"][0]["theta_points"], 91);

    let out = Command::new(BIN)
        .args(["plot", h5.to_str().unwrap(), "--what", "ports,farfield", "-o", "figs"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    for name in [
        "ant_port_feed.png",
        "ant_farfield_ff_900_MHz.png",
        "ant_farfield_ff_1_1_GHz.png",
    ] {
        let c = Canvas::load_png(&dir.path().join("figs").join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(c.width >= 1000, "{name}");
    }
}

/// An undriven port's S is a transmission term: its figure has |S| and the unwrapped
/// phase, no −10 dB line and no Smith chart; frequencies the run did not resolve are
/// left out of both curves. A delay line: |S21| falls from −3 to −20 dB over
/// 1–3 GHz, arg S21 = −360°·f·0.7 ns (so it wraps three times); the first and last five
/// frequencies are marked unresolved and hold a value that would show if drawn.
#[test]
fn a_transmission_port_figure_has_phase_and_no_reflection_panels() {
    let dir = tempfile::tempdir().unwrap();
    let freq: Vec<f64> = (0..101).map(|i| 1e9 + i as f64 * 2e7).collect();
    let s_db: Vec<f64> = freq.iter().map(|f| -3.0 - 17.0 * (f - 1e9) / 2e9).collect();
    let tau = 0.7e-9;
    let s: Vec<[f64; 2]> = freq
        .iter()
        .zip(&s_db)
        .map(|(f, d)| {
            let (a, ph) = (10f64.powf(d / 20.0), -2.0 * PI * f * tau);
            [a * ph.cos(), a * ph.sin()]
        })
        .collect();
    let resolved: Vec<bool> = (0..101).map(|i| (5..96).contains(&i)).collect();
    let mut s_db_shown = s_db.clone();
    for (d, r) in s_db_shown.iter_mut().zip(&resolved) {
        if !r {
            *d = -6.0; // inside the axis range: drawn, it would be seen
        }
    }
    let p = fdtd::output::read::PortInfo {
        name: "out".into(),
        z0: 50.0,
        driven: false,
        samples: 1000,
        frequency: freq.clone(),
        z: vec![[50.0, 0.0]; 101],
        s,
        s_db: s_db_shown,
        resolved,
    };
    let fig = port_png(&p, &dir.path().join("out.png")).unwrap();
    let names: Vec<&str> = fig.panels.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["S_dB", "phase"]);
    let c = Canvas::load_png(&fig.path).unwrap();
    let blue = rgb(COLOURS[0]);
    let sp = &fig.panels[0];
    let grey = [102, 102, 102];
    for i in [10, 40, 70, 90] {
        assert!(near(&c, sp.pixel(freq[i], s_db[i]), 2, blue), "|S| at {}", freq[i]);
        // No dashed −10 dB line (the curve crosses −10 dB near 1.82 GHz only).
        if (freq[i] - 1.82e9).abs() > 0.1e9 {
            assert!(
                !near(&c, sp.pixel(freq[i], -10.0), 1, grey),
                "a −10 dB line at {}",
                freq[i]
            );
        }
    }
    // Unresolved ends: not drawn at their −6 dB.
    for i in [1, 3, 98, 100] {
        assert!(
            !near(&c, sp.pixel(freq[i], -6.0), 1, blue),
            "unresolved {} drawn",
            freq[i]
        );
    }
    // The phase is unwrapped: a straight line through −360°·f·τ (offset by whole turns).
    let pp = &fig.panels[1];
    // The first shown point is the wrapped angle; the rest follow it without jumps.
    let want = |f: f64| -360.0 * f * tau;
    let first = (-2.0 * PI * freq[5] * tau)
        .sin()
        .atan2((-2.0 * PI * freq[5] * tau).cos())
        .to_degrees();
    for i in [5, 30, 60, 95] {
        let v = first + (want(freq[i]) - want(freq[5]));
        assert!(near(&c, pp.pixel(freq[i], v), 2, blue), "phase at {}: {v}", freq[i]);
    }
}

/// A driven port's figure draws only the frequencies the run resolves: the RLC port with
/// its first 20 frequencies marked unresolved and holding a false −40 dB "minimum" gets
/// the same axes' lower end as without them, its Smith marker at the true minimum
/// (Γ at resonance), and a port with no resolved frequency is refused, not drawn.
#[test]
fn a_driven_port_figure_leaves_out_unresolved_frequencies() {
    let dir = tempfile::tempdir().unwrap();
    let f = ResultFile::open(&file().1).unwrap();
    let mut p = f.ports[0].clone();
    p.resolved = (0..p.frequency.len()).map(|i| i >= 20).collect();
    for i in 0..20 {
        p.s_db[i] = -40.0;
        p.s[i] = [0.01, 0.0];
    }
    let fig = port_png(&p, &dir.path().join("port.png")).unwrap();
    let s = fig.panels.iter().find(|p| p.name == "S_dB").unwrap();
    assert!(s.y.0 > -30.0, "the unresolved −40 dB set the axis: {:?}", s.y);
    assert!(
        s.x.0 > p.frequency[15],
        "the axis starts at the first resolved frequency: {:?}",
        s.x
    );
    let c = Canvas::load_png(&fig.path).unwrap();
    let sm = fig.panels.iter().find(|p| p.name == "smith").unwrap();
    assert!(near(&c, sm.pixel(10.0 / 110.0, 0.0), 2, rgb(COLOURS[1])));
    assert!(!near(&c, sm.pixel(0.01, 0.0), 1, rgb(COLOURS[1])));
    p.resolved = vec![false; p.frequency.len()];
    let err = port_png(&p, &dir.path().join("none.png")).unwrap_err().to_string();
    assert!(err.contains("resolves none of its frequencies"), "{err}");
}

//! Discretisation tests: material averaging, row flags, CPML profiles, snapping.
use super::*;
use crate::scene::Scene;
use crate::Component;
use approx::assert_relative_eq;

fn model(extra: &str, boundaries: &str) -> Model {
    let text = format!(
        r#"
[domain]
cell = 1e-3
cells = [12, 10, 8]
[time]
steps = 10
[boundaries]
{boundaries}
{extra}
"#
    );
    Model::discretize(&Scene::parse(&text, "t.toml").unwrap()).unwrap()
}

const SLAB: &str = r#"
[materials.glass]
eps_r = 5.0
sigma = 0.2
[materials.ferrite]
mu_r = 4.0
[[objects]]
shape = "box"
material = "glass"
min = [0.0, 0.0, 0.0]
max = [0.006, 0.010, 0.008]
[[objects]]
shape = "box"
material = "ferrite"
min = [0.009, 0.0, 0.0]
max = [0.012, 0.010, 0.008]
[[objects]]
shape = "box"
material = "pec"
min = [0.0, 0.0, 0.006]
max = [0.003, 0.010, 0.008]
"#;

fn e_props(m: &Model, c: Component, i: usize, j: usize, k: usize) -> Option<(f64, f64)> {
    m.coefs.e_props[m.mat[c.index()][m.grid.idx(i, j, k)] as usize]
}

fn mu(m: &Model, c: Component, i: usize, j: usize, k: usize) -> f64 {
    m.coefs.h_props[m.mat[c.index()][m.grid.idx(i, j, k)] as usize]
}

#[test]
fn e_samples_average_the_four_cells_around_their_edge() {
    let m = model(SLAB, r#"all = "pec""#);
    // Glass fills cells i < 6. Ey at x = 6 (i = 6) sits on the glass/vacuum interface:
    // two of its four cells are glass, two vacuum.
    let (eps, sig) = e_props(&m, Component::Ey, 6, 4, 4).unwrap();
    assert_relative_eq!(eps, 3.0);
    assert_relative_eq!(sig, 0.1);
    // Inside the glass and in vacuum: pure values.
    assert_eq!(e_props(&m, Component::Ey, 3, 4, 4), Some((5.0, 0.2)));
    assert_eq!(e_props(&m, Component::Ey, 7, 4, 4), Some((1.0, 0.0)));
    // Ex at (i+½): entirely inside glass along its edge.
    assert_eq!(e_props(&m, Component::Ex, 5, 4, 4), Some((5.0, 0.2)));
    // The PEC box (cells i < 3, k ≥ 6) makes every edge touching it PEC, its surface too.
    assert_eq!(e_props(&m, Component::Ex, 1, 4, 6), None);
    assert_eq!(e_props(&m, Component::Ey, 3, 4, 6), None);
    assert!(e_props(&m, Component::Ey, 4, 4, 6).is_some());
}

#[test]
fn h_samples_take_the_harmonic_mean_of_mu() {
    let m = model(SLAB, r#"all = "pec""#);
    // Ferrite fills cells i ≥ 9; Hx at x = 9 lies on the vacuum/ferrite face.
    assert_relative_eq!(mu(&m, Component::Hx, 9, 4, 4), 2.0 / (1.0 + 0.25));
    assert_relative_eq!(mu(&m, Component::Hx, 10, 4, 4), 4.0);
    // Hy, Hz sit at x = (i+½): inside one cell along x, so pure.
    assert_relative_eq!(mu(&m, Component::Hy, 9, 4, 4), 4.0);
    assert_relative_eq!(mu(&m, Component::Hz, 8, 4, 4), 1.0);
}

#[test]
fn coefficients_follow_the_lossy_update() {
    let m = model(SLAB, r#"all = "pec""#);
    let dt = m.grid.dt;
    let i = m.mat[1][m.grid.idx(3, 4, 4)] as usize;
    let eps = crate::EPS0 * 5.0;
    let loss = 0.2 * dt / (2.0 * eps);
    assert_relative_eq!(m.coefs.e[i][0] as f64, (1.0 - loss) / (1.0 + loss), max_relative = 1e-6);
    assert_relative_eq!(m.coefs.e[i][1] as f64, dt / eps / (1.0 + loss), max_relative = 1e-6);
    let h = m.mat[3][m.grid.idx(10, 4, 4)] as usize;
    assert_relative_eq!(m.coefs.h[h] as f64, dt / (crate::MU0 * 4.0), max_relative = 1e-6);
}

#[test]
fn row_flags_mark_mixed_rows() {
    let m = model(SLAB, r#"all = "pec""#);
    let g = &m.grid;
    let ny1 = g.dims()[1];
    // Ex row (i = 1, j = 4): glass for k < 6, PEC above → mixed.
    assert_eq!(m.rows[0][ny1 + 4], MIXED);
    // Ex row (i = 7, j = 4): vacuum all along → uniform, and the flag is that index.
    let flag = m.rows[0][7 * ny1 + 4];
    assert_ne!(flag, MIXED);
    assert_eq!(flag as u16, m.mat[0][g.idx(7, 4, 3)]);
    // Every uniform flag agrees with every sample of its row.
    for c in 0..6 {
        for (r, &f) in m.rows[c].iter().enumerate() {
            let row = &m.mat[c][r * g.dims()[2]..(r + 1) * g.dims()[2]];
            if f == MIXED {
                assert!(row.iter().any(|&x| x != row[0]));
            } else {
                assert!(row.iter().all(|&x| x as u32 == f));
            }
        }
    }
}

#[test]
fn cpml_profiles_grade_from_the_interface_to_the_wall() {
    let m = model(
        "",
        r#"all = "pec"
x = "cpml"
[boundaries.cpml]
cells = 4
kappa_max = 3.0
alpha_max = 0.05"#,
    );
    assert_eq!(m.cpml.len(), 2);
    let lo = &m.cpml[0];
    let hi = &m.cpml[1];
    assert!(!lo.high && hi.high);
    // E planes at depths 3, 2, 1 cells (wall and interface excluded); H at 3.5 .. 0.5.
    assert_eq!((lo.e_first, lo.e.len()), (1, 3));
    assert_eq!((lo.h_first, lo.h.len()), (0, 4));
    assert_eq!((hi.e_first, hi.e.len()), (9, 3));
    assert_eq!((hi.h_first, hi.h.len()), (8, 4));
    // Mirror images: the low layer's profile reversed is the high layer's.
    let rev: Vec<f32> = lo.h.b.iter().rev().cloned().collect();
    assert_eq!(rev, hi.h.b);
    // Deeper is more absorbing: b falls, kappa grows (kinv = 1/kappa - 1 falls).
    for w in hi.h.b.windows(2) {
        assert!(w[1] < w[0]);
    }
    for w in hi.h.kinv.windows(2) {
        assert!(w[1] < w[0]);
    }
    // b, a against the formula at depth 0.5 cells (first H plane of the high layer).
    let d = 1e-3;
    let rho: f64 = 0.5 / 4.0;
    let sigma = 0.8 * 4.0 / (crate::ETA0 * d) * rho.powi(3);
    let kappa = 1.0 + 2.0 * rho.powi(3);
    let alpha = 0.05 * (1.0 - rho);
    let b = (-(sigma / kappa + alpha) * m.grid.dt / crate::EPS0).exp();
    let a = sigma / (sigma * kappa + kappa * kappa * alpha) * (b - 1.0);
    assert_relative_eq!(hi.h.b[0] as f64, b, max_relative = 1e-6);
    assert_relative_eq!(hi.h.a[0] as f64, a, max_relative = 1e-5);
    assert_relative_eq!(
        hi.h.kinv[0] as f64,
        1.0 / kappa - 1.0,
        max_relative = 1e-5,
        epsilon = 1e-7
    );
}

#[test]
fn sources_and_probes_snap_to_their_component_samples() {
    let m = model(
        r#"
[[sources]]
type = "current"
component = "Ez"
position = [0.0051, 0.0049, 0.0042]
waveform = { type = "gaussian", frequency = 10e9 }
[[probes]]
name = "p"
position = [0.0051, 0.0049, 0.0042]
components = ["Ex", "Hz"]
"#,
        r#"all = "pec""#,
    );
    let s = &m.sources[0];
    // Ez samples at (i, j, k+½): nearest is (5, 5, 4) (z = 4.5 mm).
    assert_eq!(s.index, [5, 5, 4]);
    // Soft current: E += −cb·(I·l)/(dx dy dz).
    let cb = m.coefs.e[m.mat[2][s.flat] as usize][1] as f64;
    assert_relative_eq!(s.scale, -cb / 1e-9, max_relative = 1e-12);
    // Electric current enters at (n+½)·dt.
    assert_relative_eq!(s.time(3, m.grid.dt), 3.5 * m.grid.dt);
    let p = &m.probes[0];
    // Ex at (i+½, j, k): x/dx − ½ = 4.6 → 5; y 4.9 → 5; z 4.2 → 4.
    assert_eq!(p.samples[0].index, [5, 5, 4]);
    // Hz at (i+½, j+½, k): 4.6 → 5, 4.4 → 4, 4.2 → 4.
    assert_eq!(p.samples[1].index, [5, 4, 4]);
    assert_relative_eq!(p.samples[1].position[1], 4.5e-3, max_relative = 1e-12);
}

#[test]
fn points_on_the_domain_faces_snap_inside() {
    let g = Grid::new([10, 10, 10], [1e-3; 3], 0.99, crate::scene::TimeEnd::Steps(1));
    for c in Component::ALL {
        assert!(points::snap(c, [0.0; 3], &g).is_some(), "{c} at the origin");
        assert!(points::snap(c, [0.01; 3], &g).is_some(), "{c} at the far corner");
        assert!(points::snap(c, [0.0106, 0.005, 0.005], &g).is_none(), "{c} outside");
    }
    assert_eq!(points::snap(Component::Ex, [0.0; 3], &g), Some([0, 0, 0]));
    assert_eq!(points::snap(Component::Ex, [0.01; 3], &g), Some([9, 10, 10]));
}

#[test]
fn ports_and_lumped_elements_load_their_edges() {
    // A z port of 2 series edges × 2 parallel columns (y = 4, 5 mm), end below start.
    let m = model(
        r#"
[[ports]]
name = "p"
start = [0.005, 0.004, 0.005]
end = [0.005, 0.005, 0.003]
axis = "z"
impedance = 100
[ports.waveform]
type = "ricker"
frequency = 1e9
[[lumped]]
name = "rc"
start = [0.008, 0.004, 0.003]
end = [0.008, 0.004, 0.004]
r = 200
c = 1e-12
l = 2e-9
"#,
        "all = \"pec\"",
    );
    let p = &m.ports[0];
    assert_eq!((p.axis, p.series, p.columns, p.sign), (2, 2, 2, -1.0));
    assert_eq!(p.edges, vec![[5, 4, 3], [5, 4, 4], [5, 5, 3], [5, 5, 4]]);
    assert_relative_eq!(p.r_edge, 100.0);
    // The loop around the 2-node-wide cross-section at the middle layer (z index 4):
    // 2 Hy samples on each x side, 1 Hx sample on each y side.
    assert_eq!(p.loop_h.len(), 6);
    assert!(p.loop_h.iter().all(|(_, at, _)| at[2] == 4));
    let d = 1e-3;
    let sigma = d / (100.0 * d * d);
    let flat = m.grid.idx(5, 4, 3);
    let row = m.mat[Component::Ez.index()][flat] as usize;
    let (eps, sig) = m.coefs.e_props[row].unwrap();
    assert_relative_eq!(eps, 1.0);
    assert_relative_eq!(sig, sigma, max_relative = 1e-12);
    // One Norton source per edge: −cb/vol·(sign·l/(R·M)).
    let srcs: Vec<_> = m.sources.iter().filter(|s| s.name.starts_with("port p ")).collect();
    assert_eq!(srcs.len(), 4);
    let cb = m.coefs.e[row][1] as f64;
    assert_relative_eq!(
        srcs[0].scale,
        -cb / (d * d * d) * (-d / 200.0), // sign −1
        max_relative = 1e-12
    );
    // V = −sign·l·ΣE/M: E = 1 V/m on all 4 edges (2 per column) gives 2·l.
    assert_relative_eq!(p.voltage(&[1.0; 4]), 2.0 * d);
    let l = &m.lumped[0];
    let (eps, sig) = m.coefs.e_props[m.mat[2][m.grid.idx(8, 4, 3)] as usize].unwrap();
    assert_relative_eq!(sig, d / (200.0 * d * d), max_relative = 1e-12);
    assert_relative_eq!(eps, 1.0 + 1e-12 * d / (crate::EPS0 * d * d), max_relative = 1e-12);
    assert_relative_eq!(l.l_coef.unwrap() as f64, (m.grid.dt * d / (2e-9 * d * d)) as f32 as f64);
    let sim = crate::Simulation::standard(m.clone());
    let names: Vec<&str> = sim.schedule.passes.iter().map(|p| p.pass.name()).collect();
    assert_eq!(names, ["sources_e", "lumped_l", "ports"]);
    assert_eq!(m.decay_db, Some(crate::scene::DEFAULT_DECAY_DB));
}

#[test]
fn a_port_inside_pec_or_on_a_face_is_refused() {
    let text = |start: &str, end: &str| {
        format!(
            "[domain]\ncell = 1e-3\ncells = [12, 10, 8]\n[time]\nsteps = 10\n[boundaries]\nall = \"pec\"\n\
             [[objects]]\nshape = \"box\"\nmaterial = \"pec\"\nmin = [0.004, 0.004, 0.002]\nmax = [0.006, 0.006, 0.006]\n\
             [[ports]]\nname = \"p\"\nstart = {start}\nend = {end}\n[ports.waveform]\ntype = \"ricker\"\nfrequency = 1e9\n"
        )
    };
    let err = |t: String| {
        Model::discretize(&Scene::parse(&t, "t.toml").unwrap())
            .unwrap_err()
            .to_string()
    };
    let e = err(text("[0.005, 0.005, 0.003]", "[0.005, 0.005, 0.004]"));
    assert!(e.contains("port `p`") && e.contains("inside a PEC object"), "{e}");
    let e = err(text("[0.0, 0.005, 0.003]", "[0.0, 0.005, 0.004]"));
    assert!(e.contains("boundary face"), "{e}");
}

/// A microstrip (strip 4 cells wide, 2 cells above the PEC floor) from x = 5 mm to
/// `strip_end`, a line port at x = 5 mm with `port` keys, on a 1 mm grid 60 × 20 × 10.
fn strip_line(strip_end: f64, port: &str) -> Result<Model, ModelError> {
    let text = format!(
        r#"
[domain]
cell = 1e-3
cells = [60, 20, 10]
[time]
steps = 10
[frequencies]
start = 1e9
stop = 4e9
[boundaries]
all = "pec"
x_max = "cpml"
[boundaries.cpml]
cells = 6
[[objects]]
shape = "plate"
material = "pec"
min = [0.005, 0.008, 0.002]
max = [{strip_end}, 0.012, 0.002]
[[ports]]
{port}
axis = "z"
line = "+x"
"#
    );
    Model::discretize(&Scene::parse(&text, "t.toml").unwrap())
}

#[test]
fn a_line_port_finds_its_conductors_and_planes() {
    let m = strip_line(0.05, "start = [0.005, 0.008, 0.0]\nend = [0.005, 0.012, 0.002]").unwrap();
    let l = m.ports[0].line.as_ref().expect("a line port");
    // Default distance 2.5 × (4 mm strip + 2 × 2 mm feed) = 20 mm; D = λ/4 at 4 GHz = 18 mm.
    assert_relative_eq!(l.offset, 0.020, epsilon = 1e-12);
    assert_relative_eq!(l.spacing, 0.018, epsilon = 1e-12);
    assert_eq!(l.v[0].len(), m.ports[0].edges.len());
    assert!(l.v[0].iter().all(|e| e[0] == 25) && l.v[1].iter().all(|e| e[0] == 43));
    // The loop hugs the strip (y 8…12 mm, z 2 mm): 2 × 5 Hz-side … samples, two loops per plane.
    assert_eq!(l.conductor.0[1..], [8, 2]);
    assert_eq!(l.conductor.1[1..], [12, 2]);
    assert!(l.i[0].iter().all(|(_, q, _)| q[0] == 24 || q[0] == 25));
    assert_eq!(m.line_pairs(), vec![(0, 0), (0, 1)]);
}

#[test]
fn a_line_port_on_a_bad_line_is_refused_with_the_reason() {
    let feed = "start = [0.005, 0.008, 0.0]\nend = [0.005, 0.012, 0.002]";
    let cases = [
        // The strip ends before the measurement planes.
        (strip_line(0.015, feed), "no signal conductor at the port's end"),
        // start on the strip, end on the floor: the "signal" conductor is the floor.
        (
            strip_line(0.05, "start = [0.005, 0.008, 0.002]\nend = [0.005, 0.012, 0.0]"),
            "reaches the domain's edge",
        ),
        // The planes run into the CPML: measure too far.
        (
            strip_line(0.05, &format!("{feed}\nmeasure = 0.04")),
            "leave the domain's interior",
        ),
    ];
    for (r, want) in cases {
        let e = r.expect_err(want).to_string();
        assert!(e.contains(want) && e.contains("port `port1`"), "{e}");
    }
}

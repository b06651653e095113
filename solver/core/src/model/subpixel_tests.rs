//! Subpixel averaging through `Model::discretize`: what it leaves alone (bit for bit),
//! what it averages, and the table rows it makes.
use super::super::{cell_materials, Model};
use crate::scene::Scene;
use crate::Component;

fn model(cells: usize, objects: &str) -> Model {
    let text = format!(
        "[domain]\ncell = 1e-3\ncells = [{cells}, {cells}, {cells}]\n[time]\nsteps = 1\n[boundaries]\nall = \"pec\"\n\
         [materials.glass]\neps_r = 4.0\nsigma = 0.02\n[materials.faint]\neps_r = 1.01\n{objects}"
    );
    Model::discretize(&Scene::parse(&text, "t.toml").unwrap()).unwrap()
}

fn sphere(material: &str, r_mm: f64, key: &str) -> String {
    format!("[[objects]]\nshape = \"sphere\"\nmaterial = \"{material}\"\ncenter = [0.01003, 0.00991, 0.01012]\nradius = {}\n{key}", r_mm * 1e-3)
}

/// With `subpixel = false`, every E edge is the mean of its 4 painted cells (the rule
/// before subpixel averaging); a box on cell faces with `subpixel = true` gives the same
/// table and indices as without (its cuts are whole cells: f = 0, ½ or 1 with n_a = 0 or
/// a pure side).
#[test]
fn off_or_on_cell_faces_changes_nothing() {
    let m = model(20, &sphere("glass", 6.3, "subpixel = false\n"));
    let cells = cell_materials(&Scene::parse(&m_text(), "t.toml").unwrap(), &m.grid);
    assert_eq!(cells.len(), 20 * 20 * 20);
    let eps_cell = |i: usize, j: usize, k: usize| {
        if cells[(i * 20 + j) * 20 + k] == 0 {
            (1.0, 0.0)
        } else {
            (4.0, 0.02)
        }
    };
    let mut checked = 0;
    for i in 1..19 {
        for j in 1..19 {
            for k in 1..19 {
                // Ez edge (i, j, k+½) touches cells (i-1|i, j-1|j, k).
                let around = [
                    eps_cell(i, j, k),
                    eps_cell(i - 1, j, k),
                    eps_cell(i, j - 1, k),
                    eps_cell(i - 1, j - 1, k),
                ];
                let want = (
                    around.iter().map(|x| x.0).sum::<f64>() / 4.0,
                    around.iter().map(|x| x.1).sum::<f64>() / 4.0,
                );
                let got = m.coefs.e_props[m.mat[Component::Ez.index()][m.grid.idx(i, j, k)] as usize].unwrap();
                assert_eq!(got, want, "Ez ({i}, {j}, {k})");
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
    let boxed = |key: &str| {
        model(
            12,
            &format!("[[objects]]\nshape = \"box\"\nmaterial = \"glass\"\nmin = [0.002, 0.003, 0.004]\nmax = [0.009, 0.008, 0.010]\n{key}"),
        )
    };
    let (off, on) = (boxed(""), boxed("subpixel = true\n"));
    assert_eq!(off.coefs, on.coefs);
    assert_eq!(off.mat, on.mat);
}

fn m_text() -> String {
    format!(
        "[domain]\ncell = 1e-3\ncells = [20, 20, 20]\n[time]\nsteps = 1\n[boundaries]\nall = \"pec\"\n[materials.glass]\neps_r = 4.0\nsigma = 0.02\n{}",
        sphere("glass", 6.3, "subpixel = false\n")
    )
}

/// The volume a faint sphere (ε = 1.01, where both means agree to first order in the
/// contrast) adds, Σ (ε_edge − 1)/0.01 over the Ex edges, in cells: within 0.1 % of
/// 4/3·π·r³ for averaged edges at every radius tried (the sag correction makes the
/// fractions exact to second order in d/r), while the staircase misses by up to 1.7 %
/// (cells flip whole as the surface crosses their centres).
#[test]
fn averaged_edges_hold_the_sphere_volume() {
    let mut worst = (0.0f64, 0.0f64);
    for r in [3.3, 4.1, 4.75, 5.5, 6.2] {
        let exact = 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
        let volume = |key: &str| {
            let m = model(20, &sphere("faint", r, key));
            m.mat[Component::Ex.index()]
                .iter()
                .enumerate()
                .filter(|&(n, _)| {
                    let d = m.grid.dims();
                    (n / (d[1] * d[2])) < 20
                })
                .map(|(_, &row)| (m.coefs.e_props[row as usize].unwrap().0 - 1.0) / 0.01)
                .sum::<f64>()
        };
        let (on, off) = (volume(""), volume("subpixel = false\n"));
        worst.0 = worst.0.max((on / exact - 1.0).abs());
        worst.1 = worst.1.max((off / exact - 1.0).abs());
    }
    // Measured: ≤ 2.7e-4 averaged (the fraction's rounding and the third-order curvature
    // terms), 3.5e-3 .. 1.7e-2 staircase.
    assert!(worst.0 < 1e-3, "averaged: {worst:?}");
    // The staircase is far worse: the averaging does something (a test that cannot fail
    // the other way would pass on a no-op).
    assert!(worst.1 > 5.0 * worst.0, "{worst:?}");
}

/// Along the surface (n_a = 0) the edge is the arithmetic mean, across it the harmonic
/// one: at the sphere's "north pole" (normal along z) an Ez edge cut in half takes
/// ≈ 2/(1 + 1/4) = 1.6, an Ex edge there ≈ 2.5.
#[test]
fn normal_and_tangential_edges_take_their_means() {
    // Sphere centred on an Ez edge's x, y; its top at z = 10 + 5.5 mm: the Ez edge at
    // k + ½ = 15.5 mm has its dual volume (15 .. 16 mm) cut in half.
    let m = model(
        24,
        "[[objects]]\nshape = \"sphere\"\nmaterial = \"glass\"\ncenter = [0.012, 0.012, 0.010]\nradius = 0.0055\n",
    );
    let ez = m.coefs.e_props[m.mat[Component::Ez.index()][m.grid.idx(12, 12, 15)] as usize].unwrap();
    // The tangent plane halves the volume; the sphere sags below it by ρ²/2R, on average
    // (d²/6)/2R over the box: f = ½ − d/12R (R = 5.5 d); n_z = 1.
    let f = 0.5 - 1.0 / (12.0 * 5.5);
    let want = 1.0 / (f / 4.0 + (1.0 - f));
    // Rounding f to 1/256 moves ε by < 2e-3.
    assert!((ez.0 - want).abs() < 2e-3, "{ez:?} vs {want}");
    // Ex at (12.5, 12, 16) mm: 0.5 mm above the pole plane... the pole's dual volume for
    // Ex spans z 15.5 .. 16.5 mm, outside; take Ex at z = 15 mm (k = 15): normal ≈ z,
    // the volume 14.5 .. 15.5 mm is ~ all inside (the surface at 15.5 mm, minus the sag).
    let ex = m.coefs.e_props[m.mat[Component::Ex.index()][m.grid.idx(12, 12, 15)] as usize].unwrap();
    assert!(ex.0 > 3.5 && ex.0 <= 4.0, "{ex:?}");
    // σ follows the same rule: across the surface σ_a = ε_a²·f·σ/ε².
    assert!((ez.1 - want * want * f * 0.02 / 16.0).abs() < 2e-5, "{ez:?}");
}

/// A large sphere (radius 45 cells, ~1.5e5 averaged edges) stays within the u16 rows: one
/// pair of materials makes at most 255·33 rows (fill in 1/256, n_a² in 1/32).
#[test]
fn rows_are_bounded_for_a_large_sphere() {
    let m = model(
        96,
        "[[objects]]\nshape = \"sphere\"\nmaterial = \"glass\"\ncenter = [0.048, 0.0481, 0.0479]\nradius = 0.045\n",
    );
    let rows = m.coefs.e.len();
    // The 4-cell rule's rows (vacuum, pec, glass, and the 1/4, 1/2, 3/4 mixes) plus the
    // averaged ones.
    assert!(rows <= 3 + 3 + 255 * 33, "{rows}");
    // And the averaging did make many: more than the staircase's handful.
    assert!(rows > 1000, "{rows}");
}

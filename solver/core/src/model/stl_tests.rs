use super::*;
use crate::model::{cell_materials, thin};
use crate::scene::mesh::{ascii_stl, binary_stl, cuboid, uv_sphere};
use crate::scene::{Scene, Shape};
use std::path::Path;

const HEAD: &str = "[domain]\ncell = 1e-3\ncells = [40, 36, 32]\n[time]\nsteps = 10\n[boundaries]\nall = \"pec\"\n\
                    [materials.glass]\neps_r = 4\n";

fn f32s(t: &[[[f64; 3]; 3]]) -> Vec<[[f32; 3]; 3]> {
    t.iter().map(|t| t.map(|v| v.map(|x| x as f32))).collect()
}

/// A scene with one object (`body`), read from `dir` (where its STL files are).
fn scene(dir: &Path, body: &str) -> Scene {
    let path = dir.join("s.toml");
    std::fs::write(&path, format!("{HEAD}[[objects]]\n{body}")).unwrap();
    Scene::from_file(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn grid(s: &Scene) -> Grid {
    Grid::new(s.domain.cells, s.domain.cell_size, 0.99, s.time.end)
}

/// A small deterministic generator (xorshift), for box corners.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[test]
fn stl_cuboids_voxelise_exactly_like_boxes() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // Faces on nodes (the usual CAD case) and anywhere (never on a cell centre: the
    // box includes its boundary, the STL decides ties by its rule).
    let mut cases: Vec<([f64; 3], [f64; 3])> =
        vec![([3.0, 4.0, 5.0], [20.0, 30.0, 17.0]), ([0.0; 3], [40.0, 36.0, 32.0])];
    for _ in 0..12 {
        let lo = [0, 1, 2].map(|_| rng.next() * 20.0 - 2.0);
        let hi = [0, 1, 2].map(|a| lo[a] + 0.3 + rng.next() * 18.0);
        cases.push((lo, hi));
    }
    let mut total = 0;
    for (n, (lo, hi)) in cases.iter().enumerate() {
        // In mm: the STL in millimetres with scale = 1e-3, the box in metres.
        let lo_m = lo.map(|x| x * 1e-3);
        let tris = f32s(&cuboid(*lo, *hi));
        // The STL is f32: the box takes the same f32 coordinates, scaled the same way.
        let (lo_b, hi_b) = (
            lo.map(|x| (x as f32 as f64) * 1e-3),
            hi.map(|x| (x as f32 as f64) * 1e-3),
        );
        assert!((0..3).all(|a| (lo_b[a] - lo_m[a]).abs() < 1e-9));
        let on_centre = |x: f64| ((x * 1e3) - 0.5).fract().abs() < 1e-9;
        assert!(
            !lo_b.iter().chain(&hi_b).any(|&x| on_centre(x)),
            "case {n} has a face on a centre"
        );
        let boxed = scene(
            dir.path(),
            &format!("shape = \"box\"\nmaterial = \"glass\"\nmin = {lo_b:?}\nmax = {hi_b:?}\n"),
        );
        let want = cell_materials(&boxed, &grid(&boxed));
        let inside = want.iter().filter(|&&m| m != 0).count();
        total += inside;
        for (kind, bytes) in [
            ("binary", binary_stl(&tris)),
            ("ascii", ascii_stl("c", &tris).into_bytes()),
        ] {
            std::fs::write(dir.path().join(format!("c{n}.stl")), &bytes).unwrap();
            let s = scene(
                dir.path(),
                &format!("shape = \"stl\"\nmaterial = \"glass\"\nfile = \"c{n}.stl\"\nscale = 1e-3\n"),
            );
            let g = grid(&s);
            let got = cell_materials(&s, &g);
            let diff = got.iter().zip(&want).filter(|(a, b)| a != b).count();
            assert_eq!(
                diff, 0,
                "case {n} ({kind}): {diff} of {inside} cells differ, box {lo:?}..{hi:?}"
            );
            assert_eq!(
                thin::cell_count(&s.objects[0].shape, &g),
                thin::cell_count(&boxed.objects[0].shape, &g)
            );
        }
    }
    assert!(total > 40_000, "the cases cover {total} cells");
}

#[test]
fn stl_sphere_matches_the_sphere_up_to_the_chord_error() {
    let dir = tempfile::tempdir().unwrap();
    let (c, r) = ([20.3e-3, 17.9e-3, 16.2e-3], 13.7e-3);
    // In mm in the file.
    let tris = uv_sphere(c.map(|x| x * 1e3), r * 1e3, 90, 180);
    std::fs::write(dir.path().join("ball.stl"), binary_stl(&f32s(&tris))).unwrap();
    let s = scene(
        dir.path(),
        "shape = \"stl\"\nmaterial = \"glass\"\nfile = \"ball.stl\"\nscale = 1e-3\n",
    );
    let ball = scene(
        dir.path(),
        &format!("shape = \"sphere\"\nmaterial = \"glass\"\ncenter = {c:?}\nradius = {r}\n"),
    );
    let g = grid(&s);
    // The inscribed polyhedron lies between the ball of radius r_in (the smallest
    // distance from the centre to a facet's plane, computed from the f32 vertices) and
    // the sphere (to f32 rounding): a cell can differ only if its centre lies there.
    let Shape::Stl(mesh) = &s.objects[0].shape else {
        unreachable!()
    };
    let f = f32s(&tris);
    let r_in = f
        .iter()
        .map(|t| {
            let p = t.map(|v| [0, 1, 2].map(|a| v[a] as f64 * 1e-3 - c[a]));
            let u = [0, 1, 2].map(|a| p[1][a] - p[0][a]);
            let v = [0, 1, 2].map(|a| p[2][a] - p[0][a]);
            let n = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            ((0..3).map(|a| n[a] * p[0][a]).sum::<f64>() / l).abs()
        })
        .fold(f64::INFINITY, f64::min);
    let r_out = r * (1.0 + 1e-6);
    assert!(r - r_in < 0.01 * g.d[0], "chord error {} m", r - r_in);
    let (got, want) = (cell_materials(&s, &g), cell_materials(&ball, &g));
    let [_, ny, nz] = g.n;
    let (mut diff, mut band) = (0, 0);
    for (flat, (a, b)) in got.iter().zip(&want).enumerate() {
        let (i, j, k) = (flat / (ny * nz), flat / nz % ny, flat % nz);
        let p = [i, j, k].map(|x| x as f64 + 0.5);
        let dist = (0..3).map(|a| (p[a] * g.d[a] - c[a]).powi(2)).sum::<f64>().sqrt();
        let in_band = dist >= r_in && dist <= r_out;
        band += in_band as usize;
        if a != b {
            diff += 1;
            assert!(
                in_band,
                "cell {i} {j} {k} at {dist} m from the centre differs (band {r_in}..{r_out})"
            );
            assert_eq!(
                (*a, *b),
                (0, 2),
                "only cells outside the polyhedron, inside the sphere, may differ"
            );
        }
    }
    let inside = want.iter().filter(|&&m| m != 0).count();
    eprintln!(
        "sphere: {inside} cells, {diff} differ, {band} in the chord band, {} triangles",
        mesh.triangle_count()
    );
    assert!(inside > 10_000 && diff <= band);
}

#[test]
fn voxelize_takes_any_line_coordinates() {
    // A rectilinear (graded) set of sample points: the same test, point by point.
    let m = crate::scene::mesh::Mesh::from_triangles("b", &uv_sphere([0.0; 3], 1.0, 24, 48)).unwrap();
    let xs: Vec<f64> = (0..30)
        .map(|i| -1.2 + 0.08 * i as f64 + 0.001 * (i * i) as f64)
        .collect();
    let ys: Vec<f64> = (0..25).map(|i| -1.1 + 0.09 * i as f64).collect();
    let zs: Vec<f64> = (0..40).map(|i| -1.3 + (i as f64 / 39.0).powi(2) * 2.6).collect();
    let v = voxelize(&m, &xs, &ys, &zs);
    let mut n = 0;
    for (i, x) in xs.iter().enumerate() {
        for (j, y) in ys.iter().enumerate() {
            for (k, z) in zs.iter().enumerate() {
                let want = m.contains([*x, *y, *z]);
                assert_eq!(v[(i * ys.len() + j) * zs.len() + k], want);
                n += want as usize;
            }
        }
    }
    assert!(n > 1000);
}

#[test]
fn thin_pec_stl_sheets_become_the_nearest_node_plane() {
    let dir = tempfile::tempdir().unwrap();
    // A 0.2-cell sheet normal to z over x 5.2 … 14.6, y 6.1 … 12.7 cells (mm), at
    // z = 10.3 and 9.75 (inside the window of node 10, [9.5, 10.5)).
    let sheet = |z0: f64| f32s(&cuboid([5.2, 6.1, z0 - 0.1], [14.6, 12.7, z0 + 0.1]));
    for z0 in [10.3, 9.75] {
        std::fs::write(dir.path().join("sheet.stl"), binary_stl(&sheet(z0))).unwrap();
        let s = scene(
            dir.path(),
            "shape = \"stl\"\nmaterial = \"pec\"\nfile = \"sheet.stl\"\nscale = 1e-3\n",
        );
        let g = grid(&s);
        let cov = thin::coverage(&s, &g);
        assert!(cov[0].thin && cov[0].cells == 0, "{cov:?}");
        let got: std::collections::BTreeSet<thin::Edge> = thin::thin_edges(&s, &g)[0].1.iter().copied().collect();
        let mut want = std::collections::BTreeSet::new();
        let mut add =
            |axis: usize, is: std::ops::RangeInclusive<usize>, js: std::ops::RangeInclusive<usize>, k: usize| {
                for i in is {
                    for j in js.clone() {
                        want.insert(thin::Edge { axis, index: [i, j, k] });
                    }
                }
            };
        // x edges: midpoints in 5.2 … 14.6 (i = 5 … 14), on nodes y = 7 … 12;
        // y edges: midpoints in 6.1 … 12.7 (j = 6 … 12), on nodes x = 6 … 14.
        add(0, 5..=14, 7..=12, 10);
        add(1, 6..=14, 6..=12, 10);
        let extra: Vec<_> = got.difference(&want).take(5).collect();
        let missing: Vec<_> = want.difference(&got).take(5).collect();
        assert!(
            extra.is_empty() && missing.is_empty(),
            "z0 {z0}: extra {extra:?}, missing {missing:?}"
        );
        assert_eq!(cov[0].edges, want.len() as u64);
        // The model makes them PEC.
        let m = crate::model::Model::discretize(&s).unwrap();
        let e = want.iter().next().unwrap();
        let row = m.mat[e.axis][g.idx(e.index[0], e.index[1], e.index[2])];
        assert_eq!(m.coefs.e_props[row as usize], None);
    }
    // Through the plane of cell centres (z = 10.5) it holds 10 × 7 centres: cells.
    std::fs::write(dir.path().join("sheet.stl"), binary_stl(&sheet(10.5))).unwrap();
    let s = scene(
        dir.path(),
        "shape = \"stl\"\nmaterial = \"pec\"\nfile = \"sheet.stl\"\nscale = 1e-3\n",
    );
    let cov = thin::coverage(&s, &grid(&s));
    assert!(!cov[0].thin && cov[0].cells == 70, "{cov:?}");
    // A dielectric sheet leaves nothing, and says so.
    std::fs::write(dir.path().join("sheet.stl"), binary_stl(&sheet(10.3))).unwrap();
    let s = scene(
        dir.path(),
        "shape = \"stl\"\nmaterial = \"glass\"\nfile = \"sheet.stl\"\nscale = 1e-3\n",
    );
    let w = thin::warnings(&s, &grid(&s));
    assert!(
        w.len() == 1 && w[0].contains("objects[0] (stl of \"glass\"): covers nothing"),
        "{w:?}"
    );
}

#[test]
fn a_changed_stl_file_changes_the_run_fingerprint() {
    use crate::checkpoint::fingerprint;
    let dir = tempfile::tempdir().unwrap();
    let body = "shape = \"stl\"\nmaterial = \"glass\"\nfile = \"c.stl\"\nscale = 1e-3\n";
    let fp = |lo: f64| {
        std::fs::write(dir.path().join("c.stl"), binary_stl(&f32s(&cuboid([lo; 3], [12.0; 3])))).unwrap();
        let s = scene(dir.path(), body);
        fingerprint(
            &s,
            &crate::Simulation::standard(crate::model::Model::discretize(&s).unwrap()),
        )
    };
    let a = fp(4.0);
    assert_eq!(a, fp(4.0), "the same file, the same run");
    assert_ne!(a, fp(4.5), "the same scene text, another model");
}

#[test]
fn pec_stl_walls_thinner_than_a_cell_are_named() {
    let dir = tempfile::tempdir().unwrap();
    // A hollow PEC box (an outer and an inner shell: parity makes the wall): the walls
    // normal to y (0.5 and 0.6 thick) hold cell centres, those normal to x and z (0.4)
    // do not.
    let mut t = cuboid([4.0, 4.2, 4.0], [16.0, 16.0, 16.0]);
    t.extend(cuboid([4.4, 4.7, 4.4], [15.6, 15.4, 15.6]));
    std::fs::write(dir.path().join("shell.stl"), binary_stl(&f32s(&t))).unwrap();
    let s = scene(
        dir.path(),
        "shape = \"stl\"\nmaterial = \"pec\"\nfile = \"shell.stl\"\nscale = 1e-3\n",
    );
    let g = grid(&s);
    let cov = thin::coverage(&s, &g);
    assert!(!cov[0].thin && cov[0].cells > 0, "{cov:?}");
    let w = thin::warnings(&s, &g);
    assert!(
        w.len() == 1 && w[0].contains("objects[0] (stl of \"pec\"): ") && w[0].contains("leave holes"),
        "{w:?}"
    );
    // The whole shell 0.4 thick holds no centre: it is all grid edges, no warning.
    let t = [cuboid([4.0; 3], [16.0; 3]), cuboid([4.4; 3], [15.6; 3])].concat();
    std::fs::write(dir.path().join("shell.stl"), binary_stl(&f32s(&t))).unwrap();
    let s = scene(
        dir.path(),
        "shape = \"stl\"\nmaterial = \"pec\"\nfile = \"shell.stl\"\nscale = 1e-3\n",
    );
    let cov = thin::coverage(&s, &g);
    assert!(cov[0].thin && cov[0].cells == 0 && cov[0].edges > 1000, "{cov:?}");
    assert!(thin::warnings(&s, &g).is_empty());
    // Solid PEC parts, flat-faced and curved: no warning.
    for (name, tris) in [
        ("cube.stl", cuboid([3.3, 4.6, 5.5], [17.2, 20.1, 11.8])),
        ("ball.stl", uv_sphere([20.2, 17.6, 15.9], 11.3, 60, 120)),
    ] {
        std::fs::write(dir.path().join(name), binary_stl(&f32s(&tris))).unwrap();
        let s = scene(
            dir.path(),
            &format!("shape = \"stl\"\nmaterial = \"pec\"\nfile = \"{name}\"\nscale = 1e-3\n"),
        );
        let w = thin::warnings(&s, &g);
        assert!(w.is_empty(), "{name}: {w:?}");
    }
}

#[test]
fn rotated_and_offset_stl_cuboids_land_where_the_rotation_says() {
    let dir = tempfile::tempdir().unwrap();
    // The file's box [1, 5] × [2, 9] × [3, 4] mm.
    std::fs::write(
        dir.path().join("b.stl"),
        ascii_stl("b", &f32s(&cuboid([1.0, 2.0, 3.0], [5.0, 9.0, 4.0]))),
    )
    .unwrap();
    for (rotate, offset, min, max) in [
        // 90° about z: (x, y, z) → (−y, x, z), then + (20, 0, 0) mm.
        ("[0, 0, 90]", "[0.020, 0, 0]", [11.0, 1.0, 3.0], [18.0, 5.0, 4.0]),
        // 90° about x, then about y: (x, y, z) → (y, −z, −x), then + (0, 10, 10) mm.
        ("[90, 90, 0]", "[0, 0.010, 0.010]", [2.0, 6.0, 5.0], [9.0, 7.0, 9.0]),
        // 180° about y: (x, y, z) → (−x, y, −z), then + (30, 3, 20) mm.
        (
            "[0, 180, 0]",
            "[0.030, 0.003, 0.020]",
            [25.0, 5.0, 16.0],
            [29.0, 12.0, 17.0],
        ),
    ] {
        let s = scene(
            dir.path(),
            &format!(
                "shape = \"stl\"\nmaterial = \"glass\"\nfile = \"b.stl\"\nscale = 1e-3\nrotate = {rotate}\noffset = {offset}\n"
            ),
        );
        let (min, max) = (min.map(|x: f64| x * 1e-3), max.map(|x: f64| x * 1e-3));
        let boxed = scene(
            dir.path(),
            &format!("shape = \"box\"\nmaterial = \"glass\"\nmin = {min:?}\nmax = {max:?}\n"),
        );
        let g = grid(&s);
        let (got, want) = (cell_materials(&s, &g), cell_materials(&boxed, &g));
        let n = want.iter().filter(|&&m| m != 0).count();
        assert!(n > 0);
        assert_eq!(got, want, "rotate {rotate}: {n} cells expected");
    }
}

use super::*;
use crate::mesh::cuboid;
use crate::Scene;

type Tri = [[f64; 3]; 3];

fn octahedron() -> Vec<Tri> {
    let mut out = Vec::new();
    for sx in [-1.0, 1.0] {
        for sy in [-1.0, 1.0] {
            for sz in [-1.0, 1.0] {
                out.push([[sx, 0.0, 0.0], [0.0, sy, 0.0], [0.0, 0.0, sz]]);
            }
        }
    }
    out
}

fn f32s(t: &[Tri]) -> Vec<[[f32; 3]; 3]> {
    t.iter().map(|t| t.map(|v| v.map(|x| x as f32))).collect()
}

#[test]
fn lines_through_vertices_and_edges_cross_once_per_passage() {
    let m = Mesh::from_triangles("oct", &octahedron()).unwrap();
    let mut c = Vec::new();
    // Through the apexes (a vertex shared by 4 triangles on each side).
    m.crossings(2, 0.0, 0.0, &mut c);
    assert_eq!(c, vec![-1.0, 1.0]);
    // Along a projected edge (shared by 2 triangles above and 2 below).
    m.crossings(2, 0.5, 0.0, &mut c);
    assert_eq!(c, vec![-0.5, 0.5]);
    // Through the equator's vertex: a silhouette point (the surface folds there).
    m.crossings(2, 1.0, 0.0, &mut c);
    assert_eq!(c.len() % 2, 0, "{c:?}");
    // Every line of a lattice through vertices and edges, along every axis: an even
    // number of crossings, and parity equal to the analytic solid off its surface.
    let q = 0.25;
    for axis in 0..3 {
        for a in -5..=5 {
            for b in -5..=5 {
                let (u, v) = (a as f64 * q, b as f64 * q);
                m.crossings(axis, u, v, &mut c);
                assert_eq!(c.len() % 2, 0, "axis {axis} at ({u}, {v}): {c:?}");
                let want = if u.abs() + v.abs() < 1.0 { 2 } else { 0 };
                if u.abs() + v.abs() != 1.0 {
                    assert_eq!(c.len(), want, "axis {axis} at ({u}, {v}): {c:?}");
                }
            }
        }
    }
    for i in -5..=5 {
        for j in -5..=5 {
            for k in -5..=5 {
                let p = [i, j, k].map(|x| x as f64 * 0.2 + 0.01);
                let s: f64 = p.iter().map(|x| x.abs()).sum();
                if (s - 1.0).abs() > 1e-9 {
                    assert_eq!(m.contains(p), s < 1.0, "{p:?}");
                }
            }
        }
    }
}

#[test]
fn cube_lines_on_face_diagonals_and_edges() {
    let m = Mesh::from_triangles("cube", &cuboid([0.0; 3], [1.0; 3])).unwrap();
    let mut c = Vec::new();
    for axis in 0..3 {
        // Every line through the diagonal of the faces it crosses, and the lines
        // through the interior.
        for (u, v) in [(0.5, 0.5), (0.25, 0.25), (0.75, 0.75), (0.3, 0.6)] {
            m.crossings(axis, u, v, &mut c);
            assert_eq!(c, vec![0.0, 1.0], "axis {axis} at ({u}, {v})");
        }
        for (u, v) in [(1.5, 0.5), (-0.1, 0.5)] {
            m.crossings(axis, u, v, &mut c);
            assert!(c.is_empty());
        }
        // On the side walls (the boundary): 0 or 2, by the tie rule, never 1.
        for (u, v) in [(0.0, 0.5), (1.0, 0.5), (0.5, 0.0), (0.0, 0.0), (1.0, 1.0), (0.0, 1.0)] {
            m.crossings(axis, u, v, &mut c);
            assert!(c.len() % 2 == 0, "axis {axis} at ({u}, {v}): {c:?}");
        }
    }
    assert!(m.contains([0.5, 0.5, 0.5]));
    assert!(
        m.contains([0.5, 0.5, 0.0]),
        "half-open along the line: the bottom face is in"
    );
    assert!(!m.contains([0.5, 0.5, 1.0]), "… and the top face out");
    assert!(!m.contains([0.5, 0.5, 1.5]));
}

#[test]
fn binary_and_ascii_read_the_same_solid() {
    let tris = f32s(&cuboid([1.0, 2.0, 3.0], [4.0, 5.5, 7.25]));
    let p = Placement {
        scale: 1e-3,
        rotate: [90.0, 0.0, 0.0],
        offset: [0.01, 0.02, 0.03],
    };
    let b = Mesh::from_bytes(&binary_stl(&tris), "c.stl", p).unwrap();
    let a = Mesh::from_bytes(ascii_stl("c", &tris).as_bytes(), "c.stl", p).unwrap();
    assert_eq!(b.bounds(), a.bounds());
    assert_eq!((b.triangle_count(), b.vertex_count()), (12, 8));
    // scale, then 90° about x: (x, y, z) → (x, −z, y), then the offset.
    let (lo, hi) = b.bounds();
    let want_lo = [0.001 + 0.01, -0.00725 + 0.02, 0.002 + 0.03];
    let want_hi = [0.004 + 0.01, -0.003 + 0.02, 0.0055 + 0.03];
    for k in 0..3 {
        assert!(
            (lo[k] - want_lo[k]).abs() < 1e-15 && (hi[k] - want_hi[k]).abs() < 1e-15,
            "{lo:?} {hi:?}"
        );
    }
    // A binary file whose header starts with "solid" (some exporters write that), and
    // an ASCII file whose solid has no name.
    let mut bytes = binary_stl(&tris);
    bytes[..11].copy_from_slice(b"solid cube ");
    assert_eq!(Mesh::from_bytes(&bytes, "c.stl", p).unwrap().bounds(), b.bounds());
    let text = ascii_stl("c", &tris).replacen("solid c\n", "solid\n", 1);
    assert_eq!(
        Mesh::from_bytes(text.as_bytes(), "c.stl", p).unwrap().bounds(),
        b.bounds()
    );
    // The identity covers the bytes and the placement.
    assert_ne!(b.hash, a.hash);
    let moved = Mesh::from_bytes(&binary_stl(&tris), "c.stl", Placement { scale: 2e-3, ..p }).unwrap();
    assert_ne!(moved.hash, b.hash);
    assert!(format!("{b:?}").len() < 200, "{b:?}");
}

#[test]
fn rotations_apply_x_then_y_then_z() {
    let p = Placement {
        scale: 1.0,
        rotate: [90.0, 90.0, 0.0],
        offset: [0.0; 3],
    };
    let m = p.matrix();
    // y → z (about x), then z → x (about y).
    assert_eq!(p.apply(&m, [0.0, 1.0, 0.0]), [1.0, 0.0, 0.0]);
    let q = Placement {
        rotate: [0.0, 0.0, 30.0],
        ..p
    };
    let r = q.apply(&q.matrix(), [1.0, 0.0, 0.0]);
    assert!((r[0] - 0.75f64.sqrt()).abs() < 1e-15 && (r[1] - 0.5).abs() < 1e-15);
}

fn err(bytes: &[u8]) -> String {
    Mesh::from_bytes(bytes, "x.stl", Placement::default())
        .unwrap_err()
        .to_string()
}

#[test]
fn bad_files_are_refused_with_the_reason() {
    let cube = f32s(&cuboid([0.0; 3], [1.0; 3]));
    assert_eq!(err(b""), "the file is empty");
    assert!(
        err(b"hello, world").contains("not an STL file: 12 bytes is too short"),
        "{}",
        err(b"hello, world")
    );
    let mut png = vec![0x89u8; 200];
    png[80..84].copy_from_slice(&7u32.to_le_bytes());
    assert!(
        err(&png).contains("as binary STL it would hold 7 triangles in 434 bytes, but it has 200 bytes"),
        "{}",
        err(&png)
    );
    // A binary file whose header starts with "solid", cut short.
    let mut cut = binary_stl(&cube);
    cut[..6].copy_from_slice(b"solid ");
    cut.truncate(300);
    assert!(
        err(&cut).contains("starts with \"solid\" but is not text, and as binary STL it would hold 12 triangles in 684 bytes, but it has 300 bytes"),
        "{}",
        err(&cut)
    );
    // Non-finite coordinates, binary (the reader takes any bits) and ASCII.
    let mut nan = cube.clone();
    nan[4][1][2] = f32::NAN;
    assert!(err(&binary_stl(&nan)).contains("triangle 5 of the binary STL: vertex 2 has a coordinate NaN"));
    let mut inf = cube.clone();
    inf[0][0][0] = f32::INFINITY;
    assert!(err(&binary_stl(&inf)).contains("coordinate inf (not a finite number)"));
    let text = ascii_stl("c", &cube).replacen("vertex 0e0 0e0 0e0", "vertex nan 0e0 0e0", 1);
    assert!(text.contains("nan"));
    assert!(err(text.as_bytes()).contains("triangle 1 of the ASCII STL: a coordinate is not a finite number"));
    // No triangles.
    assert_eq!(err(&binary_stl(&[])), "the binary STL has no triangles");
    assert_eq!(err(b"solid empty\nendsolid empty\n"), "the ASCII STL has no triangles");
    // Broken ASCII.
    let broken = ascii_stl("c", &cube).replacen("endloop", "end loop", 1);
    assert!(
        err(broken.as_bytes()).starts_with("ASCII STL, triangle 1: "),
        "{}",
        err(broken.as_bytes())
    );
    // Open: a cube without its last triangle (3 open edges, the first listed).
    let open = err(&binary_stl(&cube[..11]));
    assert!(
        open.starts_with(
            "the mesh is not a closed surface: 3 open edges (used by an odd number of triangles), every edge must be \
             shared by exactly two triangles; first at ("
        ),
        "{open}"
    );
    assert_eq!(open.matches("(1 triangle)").count(), 3, "{open}");
    assert!(open.contains("watertight"), "{open}");
    // Non-manifold: two cubes sharing one edge (4 triangles on it).
    let mut two = cuboid([0.0; 3], [1.0; 3]);
    two.extend(cuboid([1.0, 1.0, 0.0], [2.0, 2.0, 1.0]));
    let e = Mesh::from_triangles("two", &two).unwrap_err().to_string();
    assert!(e.contains("1 non-manifold edge (used by 4 or more triangles)"), "{e}");
    assert!(
        e.contains("(1, 1, 0) – (1, 1, 1) (4 triangles)") || e.contains("(1, 1, 1) – (1, 1, 0) (4 triangles)"),
        "{e}"
    );
}

#[test]
fn degenerate_triangles() {
    let mut t = cuboid([0.0; 3], [1.0; 3]);
    // A triangle with a repeated corner is dropped (its two edges cancel).
    t.push([[0.0; 3], [0.0; 3], [1.0, 0.0, 0.0]]);
    let m = Mesh::from_triangles("c", &t).unwrap();
    assert_eq!((m.repeated, m.flat, m.triangle_count()), (1, 0, 12));
    // A T-junction closed by a zero-area sliver: the bottom face's edge (0,0,0)–(1,0,0)
    // is split at (0.5, 0, 0) on the front face's side, and a flat triangle fills it.
    let (a, b, mid) = ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 0.0, 0.0]);
    let mut t: Vec<Tri> = cuboid([0.0; 3], [1.0; 3])
        .into_iter()
        .flat_map(|tri| {
            // Split the front face's (y = 0) triangle that holds the edge a–b.
            let front = tri.iter().all(|v| v[1] == 0.0);
            if front && tri.contains(&a) && tri.contains(&b) {
                let other = *tri.iter().find(|v| **v != a && **v != b).unwrap();
                vec![[a, mid, other], [mid, b, other]]
            } else {
                vec![tri]
            }
        })
        .collect();
    assert!(Mesh::from_triangles("t", &t)
        .unwrap_err()
        .message
        .contains("3 open edges"));
    t.push([a, b, mid]);
    let m = Mesh::from_triangles("t", &t).unwrap();
    assert_eq!(m.flat, 1);
    assert!(m.contains([0.5, 0.5, 0.5]) && !m.contains([0.5, 0.5, 1.5]));
    let mut c = Vec::new();
    m.crossings(2, 0.5, 0.0, &mut c);
    assert_eq!(c.len() % 2, 0);
    // Nothing but degenerate triangles.
    let e = Mesh::from_triangles("d", &[[[0.0; 3], [0.0; 3], [1.0; 3]]]).unwrap_err();
    assert!(e.message.contains("all 1 triangles are degenerate"), "{}", e.message);
}

const HEAD: &str = "[domain]\ncell = 1e-3\ncells = [30, 30, 30]\n[time]\nsteps = 10\n[[objects]]\nshape = \"stl\"\nmaterial = \"pec\"\n";

fn scene_err(dir: &Path, body: &str) -> String {
    let path = dir.join("s.toml");
    std::fs::write(&path, format!("{HEAD}{body}")).unwrap();
    Scene::from_file(&path).unwrap_err().to_string()
}

#[test]
fn scene_stl_objects_and_positioned_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("models")).unwrap();
    let cube = f32s(&cuboid([0.0; 3], [10.0; 3]));
    std::fs::write(dir.path().join("models/c.stl"), binary_stl(&cube)).unwrap();
    let path = dir.path().join("s.toml");
    let body = "file = \"models/c.stl\"\nscale = 1e-3\noffset = [0.005, 0.005, 0.005]\nrotate = [0, 0, 90]\n";
    std::fs::write(&path, format!("{HEAD}{body}")).unwrap();
    let s = Scene::from_file(&path).unwrap();
    let crate::Shape::Stl(m) = &s.objects[0].shape else {
        panic!("{:?}", s.objects[0].shape)
    };
    assert_eq!(m.file, "models/c.stl");
    assert_eq!(s.objects[0].shape.name(), "stl");
    let (lo, hi) = s.objects[0].shape.bounds();
    // 90° about z maps x → y, y → −x.
    for (got, want) in lo.iter().chain(&hi).zip([-0.005, 0.005, 0.005, 0.005, 0.015, 0.015]) {
        assert!((got - want).abs() < 1e-15, "{lo:?} {hi:?}");
    }
    // Clones share the mesh.
    let c = s.clone();
    let crate::Shape::Stl(m2) = &c.objects[0].shape else {
        unreachable!()
    };
    assert!(std::sync::Arc::ptr_eq(m, m2));
    assert_eq!(s, c);

    let stl = dir.path().join("models/c.stl");
    let shown = stl.display().to_string();
    // Errors point at the `file` key (line 9) and name the STL file.
    let e = scene_err(dir.path(), "file = \"models/none.stl\"\n");
    assert!(
        e.contains("s.toml:9:1: objects[0].file: ") && e.contains("none.stl: no such file"),
        "{e}"
    );
    assert!(e.contains("relative to the scene file's directory"), "{e}");
    std::fs::write(dir.path().join("models/empty.stl"), b"").unwrap();
    let e = scene_err(dir.path(), "scale = 1e-3\nfile = \"models/empty.stl\"\n");
    assert!(
        e.contains(":10:1: objects[0].file: ") && e.ends_with("empty.stl: the file is empty"),
        "{e}"
    );
    std::fs::write(dir.path().join("models/open.stl"), binary_stl(&cube[1..])).unwrap();
    let e = scene_err(dir.path(), "file = \"models/open.stl\"\n");
    assert!(
        e.contains(":9:1: objects[0].file: ") && e.contains("open.stl: the mesh is not a closed surface"),
        "{e}"
    );
    let e = scene_err(dir.path(), "file = \"models\"\n");
    assert!(e.contains("models: not a regular file"), "{e}");
    // Scale: 0, negative, not finite.
    for (s, want) in [
        ("0", "must be > 0 (got 0)"),
        ("-1e-3", "must be > 0 (got -0.001)"),
        ("inf", "expected a finite number"),
        ("nan", "expected a finite number"),
    ] {
        let e = scene_err(dir.path(), &format!("file = \"models/c.stl\"\nscale = {s}\n"));
        assert!(e.contains(":10:9: objects[0].scale: ") && e.contains(want), "{e}");
    }
    let e = scene_err(dir.path(), "file = \"models/c.stl\"\nrotate = [0, 90]\n");
    assert!(e.contains("objects[0].rotate: expected 3 numbers"), "{e}");
    let e = scene_err(dir.path(), "file = \"models/c.stl\"\nradius = 1\n");
    assert!(e.contains("\"radius\" does not apply to a stl"), "{e}");
    let e = scene_err(dir.path(), "file = \"models/c.stl\"\noffset = [1, 1, 1]\n");
    assert!(e.contains("lies entirely outside the domain"), "{e}");
    let e = scene_err(dir.path(), "");
    assert!(e.contains("missing key \"file\""), "{e}");
    assert!(shown.ends_with("c.stl"));
}

#[test]
fn long_thin_triangles_keep_the_bins_small() {
    // A 64-sided prism 100 long and 1 across along x: every side triangle spans the
    // whole length, the caps are fans.
    let (k, len) = (64, 100.0);
    let ring = |i: usize, x: f64| {
        let t = std::f64::consts::TAU * (i % k) as f64 / k as f64;
        [x, t.cos(), t.sin()]
    };
    let mut t = Vec::new();
    for i in 0..k {
        t.push([ring(i, 0.0), ring(i + 1, 0.0), ring(i + 1, len)]);
        t.push([ring(i, 0.0), ring(i + 1, len), ring(i, len)]);
        t.push([[0.0; 3], ring(i + 1, 0.0), ring(i, 0.0)]);
        t.push([[len, 0.0, 0.0], ring(i, len), ring(i + 1, len)]);
    }
    let m = Mesh::from_triangles("rod", &t).unwrap();
    for axis in 0..3 {
        let b = m.bins(axis);
        assert!(
            b.items.len() <= 16 * t.len() + 1024,
            "axis {axis}: {} entries",
            b.items.len()
        );
    }
    let r_in = (std::f64::consts::PI / k as f64).cos();
    for i in 0..200 {
        let x = -1.0 + 102.0 * i as f64 / 199.0 + 1e-3;
        for (y, z) in [(0.0, 0.0), (0.3, -0.5), (0.99 * r_in, 0.0), (0.0, 1.01), (0.75, 0.75)] {
            let want = x > 0.0 && x < len && (y * y + z * z) < r_in * r_in;
            let outside = x < 0.0 || x > len || (y * y + z * z) > 1.0;
            if want || outside {
                assert_eq!(m.contains([x, y, z]), want, "({x}, {y}, {z})");
            }
        }
    }
}

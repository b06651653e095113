//! Thin conductors: snapping, staircases, plates, the order rule, coverage and warnings.
use super::*;
use crate::model::Model;
use crate::scene::Scene;
use std::collections::BTreeSet;

/// A 12 × 10 × 10 grid of 1 mm cells (PEC walls) with `objects` (TOML).
fn model(objects: &str) -> (Scene, Model) {
    let text = format!(
        "[domain]\ncell = 1e-3\ncells = [12, 10, 10]\n[time]\nsteps = 4\n[boundaries]\nall = \"pec\"\n\
         [materials.glass]\neps_r = 4\n{objects}"
    );
    let scene = Scene::parse(&text, "t.toml").unwrap_or_else(|e| panic!("{e}"));
    let model = Model::discretize(&scene).unwrap_or_else(|e| panic!("{e}"));
    (scene, model)
}

/// Every E sample whose index differs from the empty grid's, as edges.
fn pec_edges(m: &Model) -> BTreeSet<Edge> {
    let g = &m.grid;
    let [nx, ny, nz] = g.dims();
    let mut out = BTreeSet::new();
    for axis in 0..3 {
        for i in 0..nx {
            for j in 0..ny {
                for k in 0..nz {
                    let idx = m.mat[axis][g.idx(i, j, k)] as usize;
                    if m.coefs.e_props[idx].is_none() {
                        out.insert(Edge { axis, index: [i, j, k] });
                    }
                }
            }
        }
    }
    out
}

fn chain(axis: usize, at: [usize; 3], range: std::ops::Range<usize>) -> BTreeSet<Edge> {
    range
        .map(|n| {
            let mut index = at;
            index[axis] = n;
            Edge { axis, index }
        })
        .collect()
}

const WIRE_Z: &str =
    "[[objects]]\nshape = \"wire\"\nmaterial = \"pec\"\npoints = [[0.005, 0.005, 0.002], [0.005, 0.005, 0.007]]\n";

#[test]
fn a_sub_cell_pec_box_is_the_wire_along_its_nearest_grid_line() {
    // 0.3 mm square, 5 mm long along z, centred on the grid line x = y = 5 mm.
    let (_, boxed) = model(
        "[[objects]]\nshape = \"box\"\nmaterial = \"pec\"\nmin = [0.00485, 0.00485, 0.002]\nmax = [0.00515, 0.00515, 0.007]\n",
    );
    let (_, wire) = model(WIRE_Z);
    let (_, empty) = model("");
    let want = chain(2, [5, 5, 0], 2..7);
    assert_eq!(pec_edges(&wire), want);
    assert_eq!(pec_edges(&boxed), want);
    // The same material indices everywhere, H and coefficient tables included.
    assert_eq!(boxed.mat, wire.mat);
    assert_eq!(boxed.coefs, wire.coefs);
    assert_eq!(boxed.rows, wire.rows);
    // And without the fix (no thin stamping) the box would leave no trace.
    assert!(pec_edges(&empty).is_empty());
    assert_ne!(boxed.mat, empty.mat);
    // Rows through the wire are mixed now; they were uniform before.
    let row = 5 * boxed.grid.dims()[1] + 5;
    assert_eq!(boxed.rows[2][row], crate::model::MIXED);
    assert_ne!(empty.rows[2][row], crate::model::MIXED);
}

#[test]
fn a_wire_off_the_grid_lines_snaps_to_the_nearest_edges() {
    // x = 5.3 mm → node 5, y = 4.6 mm → node 5, z from 2.4 (node 2) to 6.6 mm (node 7).
    let (scene, m) = model(
        "[[objects]]\nshape = \"wire\"\nmaterial = \"pec\"\nradius = 1e-4\npoints = [[0.0053, 0.0046, 0.0024], [0.0053, 0.0046, 0.0066]]\n",
    );
    assert_eq!(pec_edges(&m), chain(2, [5, 5, 0], 2..7));
    let thin = thin_edges(&scene, &m.grid);
    assert_eq!(thin.len(), 1);
    assert_eq!(thin[0].1.len(), 5);
    // Along y at x = 2.7 mm (node 3), z = 8.2 mm (node 8), y from 0.9 (1) to 3.4 mm (3).
    let (_, m) = model(
        "[[objects]]\nshape = \"wire\"\nmaterial = \"pec\"\npoints = [[0.0027, 0.0009, 0.0082], [0.0027, 0.0034, 0.0082]]\n",
    );
    assert_eq!(pec_edges(&m), chain(1, [3, 0, 8], 1..3));
}

#[test]
fn an_oblique_segment_is_a_connected_staircase_near_the_line() {
    for (p, q) in [
        ([0, 0, 0], [3, 1, 0]),
        ([2, 5, 1], [7, 2, 4]),
        ([6, 6, 6], [1, 1, 1]),
        ([0, 0, 0], [0, 0, 4]),
    ] {
        let s = staircase(p, q);
        let l1: usize = (0..3).map(|a| p[a].abs_diff(q[a])).sum();
        assert_eq!(s.len(), l1, "{p:?} → {q:?}");
        // Walk it: each edge starts at the current node and ends at the next.
        let mut cur = p;
        for e in &s {
            let a = e.axis;
            let other = (0..3).all(|b| b == a || e.index[b] == cur[b]);
            assert!(
                other && (e.index[a] == cur[a] || e.index[a] + 1 == cur[a]),
                "{p:?}→{q:?}: {e:?} at {cur:?}"
            );
            cur[a] = if e.index[a] == cur[a] { cur[a] + 1 } else { cur[a] - 1 };
            // Every node of the path is within one cell of the straight segment.
            let d = dist_to_segment(cur, p, q);
            assert!(d <= 1.0, "{p:?}→{q:?}: node {cur:?} is {d} cells off the line");
        }
        assert_eq!(cur, q);
    }
    // The diagonal (1,1) alternates x, y from the start.
    let axes: Vec<usize> = staircase([0, 0, 0], [2, 2, 0]).iter().map(|e| e.axis).collect();
    assert_eq!(axes, [0, 1, 0, 1]);
}

fn dist_to_segment(x: [usize; 3], p: [usize; 3], q: [usize; 3]) -> f64 {
    let f = |v: [usize; 3]| v.map(|c| c as f64);
    let (x, p, q) = (f(x), f(p), f(q));
    let d = [0, 1, 2].map(|a| q[a] - p[a]);
    let t =
        ((0..3).map(|a| (x[a] - p[a]) * d[a]).sum::<f64>() / (0..3).map(|a| d[a] * d[a]).sum::<f64>()).clamp(0.0, 1.0);
    (0..3).map(|a| (x[a] - p[a] - t * d[a]).powi(2)).sum::<f64>().sqrt()
}

#[test]
fn an_oblique_wire_and_a_polyline_are_their_staircases() {
    let (_, m) = model(
        "[[objects]]\nshape = \"wire\"\nmaterial = \"pec\"\npoints = [[0.002, 0.002, 0.005], [0.005, 0.003, 0.005], [0.005, 0.003, 0.008]]\n",
    );
    let mut want: BTreeSet<Edge> = staircase([2, 2, 5], [5, 3, 5]).into_iter().collect();
    want.extend(chain(2, [5, 3, 0], 5..8));
    assert_eq!(pec_edges(&m), want);
    assert_eq!(want.len(), 4 + 3);
}

#[test]
fn a_plate_is_the_tangential_edges_of_its_nearest_plane() {
    // Normal z at 2.2 mm → plane k = 2; x 2..6 mm, y 3..5 mm.
    let plate = "[[objects]]\nshape = \"plate\"\nmaterial = \"pec\"\nmin = [0.002, 0.003, 0.0022]\nmax = [0.006, 0.005, 0.0022]\n";
    let (scene, m) = model(plate);
    let mut want = BTreeSet::new();
    for i in 2..6 {
        for j in 3..=5 {
            want.insert(Edge {
                axis: 0,
                index: [i, j, 2],
            });
        }
    }
    for j in 3..5 {
        for i in 2..=6 {
            want.insert(Edge {
                axis: 1,
                index: [i, j, 2],
            });
        }
    }
    assert_eq!(pec_edges(&m), want);
    assert_eq!(coverage(&scene, &m.grid)[0].edges, want.len() as u64);
    // A PEC box 0.3 mm thick around the same plane is the same plate.
    let (_, b) = model(
        "[[objects]]\nshape = \"box\"\nmaterial = \"pec\"\nmin = [0.002, 0.003, 0.00205]\nmax = [0.006, 0.005, 0.00235]\n",
    );
    assert_eq!(b.mat, m.mat);
}

#[test]
fn thin_cylinders_become_wires_and_thin_discs_plates() {
    let (_, cyl) = model(
        "[[objects]]\nshape = \"cylinder\"\nmaterial = \"pec\"\na = [0.005, 0.005, 0.002]\nb = [0.005, 0.005, 0.007]\nradius = 2e-4\n",
    );
    let (_, wire) = model(WIRE_Z);
    assert_eq!(cyl.mat, wire.mat);
    // A disc of radius 2.2 mm, 0.2 mm thick, centred on node (6, 5) at z = 4 mm.
    let (disc_scene, disc) = model(
        "[[objects]]\nshape = \"cylinder\"\nmaterial = \"pec\"\na = [0.006, 0.005, 0.0039]\nb = [0.006, 0.005, 0.0041]\nradius = 2.2e-3\n",
    );
    let edges = pec_edges(&disc);
    assert!(edges.iter().all(|e| e.index[2] == 4 && e.axis < 2));
    // Edge centres within 2.2 cells: Ex at (i+½, j): i+½−6 ∈ ±{½, 3/2}, j−5 ∈ {0, ±1, ±2}.
    let count = |axis| edges.iter().filter(|e| e.axis == axis).count();
    let expect = (0..10)
        .flat_map(|i| (0..11).map(move |j| (i as f64 + 0.5 - 6.0, j as f64 - 5.0)))
        .filter(|(u, v)| u * u + v * v <= 2.2 * 2.2)
        .count();
    assert_eq!(count(0), expect);
    assert_eq!(count(1), expect);
    assert_eq!(coverage(&disc_scene, &disc.grid)[0].edges, 2 * expect as u64);
}

#[test]
fn objects_that_cover_cells_keep_their_cell_description() {
    // A one-cell-wide PEC bar: 4 edge chains around it, as before; not thin.
    let bar =
        "[[objects]]\nshape = \"box\"\nmaterial = \"pec\"\nmin = [0.005, 0.005, 0.002]\nmax = [0.006, 0.006, 0.007]\n";
    let (scene, m) = model(bar);
    let cov = coverage(&scene, &m.grid);
    assert_eq!((cov[0].thin, cov[0].cells, cov[0].edges), (false, 5, 0));
    assert!(thin_edges(&scene, &m.grid).is_empty());
    let mut want = BTreeSet::new();
    for (i, j) in [(5, 5), (6, 5), (5, 6), (6, 6)] {
        want.extend(chain(2, [i, j, 0], 2..7));
    }
    // Plus the edges across the bar's faces (Ex, Ey on its end faces and sides).
    let edges = pec_edges(&m);
    assert!(want.is_subset(&edges));
    assert!(edges
        .iter()
        .all(|e| (5..=6).contains(&e.index[0]) && (5..=6).contains(&e.index[1])));
    // A thick dielectric box or a thin dielectric sheet never stamps edges.
    let (scene, m) = model(
        "[[objects]]\nshape = \"box\"\nmaterial = \"glass\"\nmin = [0.002, 0.002, 0.00405]\nmax = [0.008, 0.008, 0.00435]\n",
    );
    let cov = coverage(&scene, &m.grid);
    assert_eq!((cov[0].thin, cov[0].cells, cov[0].edges), (false, 0, 0));
    assert!(cov[0].is_empty());
    assert!(pec_edges(&m).is_empty());
}

#[test]
fn thin_edges_survive_later_solids_whatever_the_order() {
    let glass = "[[objects]]\nshape = \"box\"\nmaterial = \"glass\"\nmin = [0.003, 0.003, 0.001]\nmax = [0.008, 0.008, 0.009]\n";
    let (_, before) = model(&format!("{WIRE_Z}{glass}"));
    let (_, after) = model(&format!("{glass}{WIRE_Z}"));
    assert_eq!(before.mat, after.mat);
    assert_eq!(pec_edges(&before), chain(2, [5, 5, 0], 2..7));
    // Around the wire the glass is there.
    let g = &before.grid;
    let m = before.mat[2][g.idx(6, 5, 4)] as usize;
    assert_eq!(before.coefs.e_props[m], Some((4.0, 0.0)));
}

#[test]
fn coverage_counts_cells_and_edges_and_warnings_name_empty_objects() {
    let objects = format!(
        "{WIRE_Z}\
         [[objects]]\nshape = \"box\"\nmaterial = \"glass\"\nmin = [0.001, 0.001, 0.001]\nmax = [0.003, 0.004, 0.002]\n\
         [[objects]]\nshape = \"box\"\nmaterial = \"glass\"\nmin = [0.002, 0.002, 0.00405]\nmax = [0.008, 0.008, 0.00435]\n\
         [[objects]]\nshape = \"wire\"\nmaterial = \"pec\"\nradius = 2e-5\npoints = [[0.001, 0.001, 0.001], [0.0012, 0.001, 0.001]]\n\
         [[objects]]\nshape = \"sphere\"\nmaterial = \"pec\"\ncenter = [0.006, 0.005, 0.005]\nradius = 2e-3\n"
    );
    let (scene, m) = model(&objects);
    let cov = coverage(&scene, &m.grid);
    let got: Vec<(&str, bool, u64, u64)> = cov.iter().map(|c| (c.shape, c.thin, c.cells, c.edges)).collect();
    let sphere = cell_count(&scene.objects[4].shape, &m.grid);
    assert!(sphere > 20, "{sphere}");
    assert_eq!(
        got,
        [
            ("wire", true, 0, 5),
            ("box", false, 2 * 3, 0),
            ("box", false, 0, 0),
            ("wire", true, 0, 0),
            ("sphere", false, sphere, 0)
        ]
    );
    assert_eq!(cov[0].amount(), "5 E edges (thin conductor)");
    assert_eq!(cov[1].label(), "objects[1] (box of \"glass\")");
    assert_eq!(cov[1].amount(), "6 cells");
    let w = warnings(&scene, &m.grid);
    assert_eq!(w.len(), 3, "{w:#?}");
    assert!(
        w[0].starts_with("objects[2] (box of \"glass\"): covers nothing"),
        "{}",
        w[0]
    );
    assert!(w[0].contains("thin dielectric"), "{}", w[0]);
    assert!(
        w[1].starts_with("objects[3] (wire of \"pec\"): covers nothing"),
        "{}",
        w[1]
    );
    assert!(w[2].contains("m is below 0.05 cell"), "{}", w[2]);
    // The session's warnings include them.
    let all = crate::session::scene_warnings(&scene, &m);
    assert!(all.iter().any(|x| x.starts_with("objects[2]")), "{all:#?}");
}

#[test]
fn a_current_source_on_a_wire_edge_is_warned_about() {
    let src = |z: &str| {
        format!(
            "{WIRE_Z}[[sources]]\nname = \"feed\"\ntype = \"current\"\ncomponent = \"Ez\"\nposition = [0.005, 0.005, {z}]\n\
             waveform = {{ type = \"gaussian\", frequency = 20e9 }}\n"
        )
    };
    // On the wire (edge k = 4, z 4..5 mm): warned; just past its end (k = 7): not.
    let (scene, m) = model(&src("0.0045"));
    let w = crate::session::scene_warnings(&scene, &m);
    assert!(
        w.iter()
            .any(|x| x.starts_with("source feed: its Ez sample [5, 5, 4] is a PEC edge")),
        "{w:#?}"
    );
    let (scene, m) = model(&src("0.0075"));
    let w = crate::session::scene_warnings(&scene, &m);
    assert!(!w.iter().any(|x| x.contains("PEC edge")), "{w:#?}");
}

/// A z wire with `radius` (m) through node column (5, 4), z = 2..7 mm, on the test grid.
fn z_wire(radius: &str) -> String {
    format!("[[objects]]\nshape = \"wire\"\nmaterial = \"pec\"\n{radius}points = [[0.005, 0.004, 0.002], [0.005, 0.004, 0.007]]\n")
}

#[test]
fn a_wire_with_a_radius_corrects_the_four_h_samples_around_each_edge() {
    // No radius: no correction, and the same model otherwise.
    let (_, bare) = model(&z_wire(""));
    assert!(bare.wire_h.is_empty() && bare.wires.is_empty());
    let (_, m) = model(&z_wire("radius = 5e-5\n"));
    assert_eq!(m.mat, bare.mat);
    assert_eq!(m.grid.dt, bare.grid.dt);
    // 5 edges × 4 H samples, each once.
    assert_eq!(m.wire_h.len(), 20);
    assert_eq!(m.wires.len(), 1);
    assert_eq!((m.wires[0].samples, m.wires[0].skipped, m.wires[0].gaps), (20, 0, 0));
    let f = contour_factor(1e-3, 5e-5);
    assert!((f - (1.0 / LATTICE_WIRE_RADIUS).ln() / 20f64.ln()).abs() < 1e-12);
    assert!((m.wires[0].factor.0 - f).abs() < 1e-12 && (m.wires[0].factor.1 - f).abs() < 1e-12);
    let db = m.coefs.h[0] as f64 / 1e-3;
    for k in 2..7 {
        // (H component, index, neighbour, sign of E_nb in the H update: update.rs)
        let want = [
            (4, [5, 4, k], [6, 4, k], 1.0),  // Hy(i+½): +db/dx·Ez[i+1]
            (4, [4, 4, k], [4, 4, k], -1.0), // Hy(i−½): −db/dx·Ez[i−1]
            (3, [5, 4, k], [5, 5, k], -1.0), // Hx(j+½): −db/dy·Ez[j+1]
            (3, [5, 3, k], [5, 3, k], 1.0),  // Hx(j−½): +db/dy·Ez[j−1]
        ];
        for (h, at, nb, s) in want {
            let fx = m
                .wire_h
                .iter()
                .find(|x| x.h == h && x.at == at)
                .unwrap_or_else(|| panic!("no fix at H{h} {at:?}"));
            assert_eq!((fx.e, fx.nb_at(), fx.gap), (2, nb, false), "{fx:?}");
            let c = (f - 1.0) * s * db;
            assert!((fx.coef as f64 - c).abs() < 1e-6 * c.abs(), "{fx:?}: want {c}");
        }
    }
    // At the lattice's own radius the factor is 1: the correction vanishes.
    assert!((contour_factor(1.0, LATTICE_WIRE_RADIUS) - 1.0).abs() < 1e-12);
}

#[test]
fn corners_and_samples_next_to_other_conductors_keep_the_plain_update() {
    // An L: up z from (5, 4, 2) to z = 5 mm, then along x to x = 8 mm. The H sample
    // inside the corner (Hy at (5, 4, 4): its stencil holds Ez(5,4,4) and Ex(5,4,5))
    // touches two wire edges and keeps the plain update.
    let l = "[[objects]]\nshape = \"wire\"\nmaterial = \"pec\"\nradius = 1e-4\npoints = [[0.005, 0.004, 0.002], [0.005, 0.004, 0.005], [0.008, 0.004, 0.005]]\n";
    let (_, m) = model(l);
    let w = &m.wires[0];
    assert!(w.skipped >= 1, "{w:?}");
    assert!(
        !m.wire_h.iter().any(|x| x.h == 4 && x.at == [5, 4, 4]),
        "corner sample corrected"
    );
    // Every corrected sample touches exactly one wire edge and a non-PEC neighbour.
    let pec = pec_edges(&m);
    for x in &m.wire_h {
        let e = Edge {
            axis: x.e,
            index: x.nb_at(),
        };
        assert!(!pec.contains(&e), "{x:?}");
        assert!(
            pec.contains(&Edge {
                axis: x.e,
                index: x.self_at()
            }),
            "{x:?}"
        );
    }
    // A second, parallel wire one cell away: the samples between them are plain.
    let two = format!(
        "{}[[objects]]\nshape = \"wire\"\nmaterial = \"pec\"\npoints = [[0.006, 0.004, 0.002], [0.006, 0.004, 0.007]]\n",
        z_wire("radius = 1e-4\n")
    );
    let (_, m) = model(&two);
    assert!(!m.wire_h.iter().any(|x| x.h == 4 && x.at[0] == 5), "between the wires");
    assert_eq!(m.wire_h.len(), 15);
}

#[test]
fn a_feed_gap_continuing_a_wire_is_corrected_with_it_and_a_thick_one_shortens_the_step() {
    let dipole = |r: f64| {
        format!(
            "[[objects]]\nshape = \"wire\"\nmaterial = \"pec\"\nradius = {r}\npoints = [[0.005, 0.004, 0.001], [0.005, 0.004, 0.004]]\n\
             [[objects]]\nshape = \"wire\"\nmaterial = \"pec\"\nradius = {r}\npoints = [[0.005, 0.004, 0.005], [0.005, 0.004, 0.008]]\n\
             [[ports]]\nname = \"feed\"\nstart = [0.005, 0.004, 0.004]\nend = [0.005, 0.004, 0.005]\nimpedance = 50\n\
             waveform = {{ type = \"gaussian_derivative\", frequency = 1e10, amplitude = 1 }}\n"
        )
    };
    let (_, m) = model(&dipole(1e-4));
    let gap: Vec<_> = m.wire_h.iter().filter(|x| x.gap).collect();
    assert_eq!(gap.len(), 4, "{gap:?}");
    assert!(gap.iter().all(|x| x.at[2] == 4 && x.self_at()[2] == 4));
    assert_eq!(m.wires[0].gaps + m.wires[1].gaps, 1);
    assert_eq!(m.wire_courant, None);
    // 0.45 cell: f = 2.02, the gap's loop needs Courant ≤ √(1.6/2.02) = 0.89.
    let (_, m) = model(&dipole(4.5e-4));
    let (asked, used) = m.wire_courant.expect("a shorter step");
    let f = contour_factor(1e-3, 4.5e-4);
    let limit = (GAP_STABILITY / f).sqrt();
    assert!(
        (asked - 0.99).abs() < 1e-12 && used <= limit && used > limit - 1e-4,
        "{used}"
    );
    assert!((m.grid.courant - used).abs() < 1e-12);
    let again = gap_courant(&m.grid, &m.wire_h).unwrap();
    assert!((again - limit).abs() < 1e-9, "{again}");
}

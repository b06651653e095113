use super::*;
use crate::passes::dft::{angle, phases};
use crate::scene::TimeEnd;
use num_complex::Complex64;
use std::f64::consts::{PI, TAU};

#[test]
fn fixed_point_phase_stays_exact_for_millions_of_steps() {
    let dt = 1.9e-12;
    for f in [1e9, 1.5e9, 3.3e9, 10e9] {
        let inc = (f * dt * 2f64.powi(32)).round() as u32;
        let half = (f * dt * 2f64.powi(31)).round() as u32;
        // The frequency the fixed-point increment really turns at.
        let f_eff = inc as f64 / (2f64.powi(32) * dt);
        assert!((f_eff / f - 1.0).abs() <= 0.5 / (f * dt * 2f64.powi(32)));
        for n in [0usize, 1, 999, 123_456, 4_000_000, 9_999_999] {
            let (pe, ph) = phases(inc, half, n);
            let wrap = |x: f64| (x + PI).rem_euclid(TAU) - PI;
            let exact_e = wrap(TAU * f_eff * (n as f64 + 1.0) * dt);
            let ee = wrap(angle(pe) as f64 - exact_e).abs();
            // Only the f32 rounding of an angle in [−π, π) (plus the i32 → f32 rounding).
            assert!(ee < 1e-6, "f {f}, n {n}: E phase off by {ee}");
            let exact_h = wrap(TAU * f_eff * (n as f64 + 0.5) * dt);
            let eh = wrap(angle(ph) as f64 - exact_h).abs();
            // half is rounded on its own: at most half a unit off the exact half step.
            assert!(eh < 1e-6 + PI / 2f64.powi(31), "f {f}, n {n}: H phase off by {eh}");
        }
    }
}

#[test]
fn decimation_keeps_ten_samples_per_period() {
    let dt = 1.907e-12;
    for fmax in [1e8, 1e9, 4.55e9, 2e10, 1e11] {
        let e = decimation(fmax, dt);
        assert!(e >= 1);
        assert!(1.0 / (e as f64 * dt) >= OVERSAMPLING * fmax || e == 1, "{fmax}: {e}");
        assert!(
            1.0 / ((e + 1) as f64 * dt) < OVERSAMPLING * fmax,
            "{fmax}: {e} is not the largest"
        );
    }
    assert_eq!(decimation(0.0, dt), 1);
}

fn grid(n: [usize; 3]) -> Grid {
    Grid::new(n, [1e-3, 2e-3, 1.5e-3], 0.99, TimeEnd::Steps(10))
}

#[test]
fn a_box_surface_is_closed_with_outward_normals() {
    let g = grid([20, 16, 12]);
    let (lo, hi) = ([3, 2, 4], [11, 9, 10]);
    let (blocks, faces) = surface(lo, hi);
    assert_eq!((faces.len(), blocks.len()), (6, 36));
    for b in &blocks {
        let ext = b.component.extent(g.n);
        assert!(
            (0..3).all(|a| b.lo[a] < b.hi[a] && b.hi[a] <= ext[a]),
            "{b:?} outside {ext:?}"
        );
    }
    let m = Monitor {
        name: "s".into(),
        kind: Kind::Flux,
        freqs: vec![1e9],
        every: 1,
        blocks,
        faces,
    };
    let ph: Vec<Vec<Complex64>> = m
        .blocks
        .iter()
        .map(|b| vec![Complex64::new(0.0, 0.0); b.len()])
        .collect();
    let s = &post::surfaces(&m, &g, &ph)[0];
    let size = [0, 1, 2].map(|a| (hi[a] - lo[a]) as f64 * g.d[a]);
    let area: f64 = s.samples.iter().map(|x| x.area).sum();
    let want = 2.0 * (size[0] * size[1] + size[1] * size[2] + size[2] * size[0]);
    assert!((area / want - 1.0).abs() < 1e-12);
    // Σ n̂·dA = 0 and every normal points away from the centre.
    let centre = [0, 1, 2].map(|a| (lo[a] + hi[a]) as f64 * g.d[a] / 2.0);
    let mut sum = [0.0; 3];
    for x in &s.samples {
        let out: f64 = (0..3).map(|a| (x.pos[a] - centre[a]) * x.normal[a]).sum();
        assert!(out > 0.0, "{x:?}");
        for (s, n) in sum.iter_mut().zip(x.normal) {
            *s += n * x.area;
        }
    }
    assert!(sum.iter().all(|v| v.abs() < 1e-15), "{sum:?}");
}

#[test]
fn flux_of_a_uniform_plane_wave_through_a_plane() {
    // A z-plane face: t1 = x, t2 = y. Ex = E0, Hy = E0/η: S_z = ½ Re(Ex·Hy*) = E0²/(2η).
    let g = grid([10, 8, 6]);
    let mut blocks = Vec::new();
    let f = face(2, 1.0, 3, ([2, 1, 0], [7, 6, 0]), &mut blocks);
    let m = Monitor {
        name: "p".into(),
        kind: Kind::Flux,
        freqs: vec![1e9],
        every: 1,
        blocks,
        faces: vec![f],
    };
    let (e0, eta) = (3.0, crate::ETA0);
    let ph: Vec<Vec<Complex64>> = m
        .blocks
        .iter()
        .map(|b| {
            let v = match b.component {
                Component::Ex => Complex64::new(0.0, e0),
                Component::Hy => Complex64::new(0.0, e0 / eta),
                _ => Complex64::new(0.0, 0.0),
            };
            vec![v; b.len()]
        })
        .collect();
    let s = &post::surfaces(&m, &g, &ph)[0];
    let area = 5.0 * g.d[0] * 5.0 * g.d[1];
    let want = e0 * e0 / (2.0 * eta) * area;
    assert!(
        (post::flux(s) / want - 1.0).abs() < 1e-12,
        "{} vs {want}",
        post::flux(s)
    );
    assert_eq!(s.samples.len(), 25);
}

/// A far field over PEC/PMC faces: the default box stands on them (its faces there are
/// not recorded) and carries their image planes (PEC: ground, PMC: symmetry); a box
/// given on a wall plane is accepted there and refused on a CPML face; two facing walls
/// are refused with the axis named.
#[test]
fn farfield_boxes_stand_on_pec_and_pmc_faces_as_image_planes() {
    use crate::farfield::PlaneRole;
    let scene = |bounds: &str, farfield: &str| {
        let text = format!(
            "[domain]\ncell = 1e-3\ncells = [30, 30, 30]\n[time]\nsteps = 10\n[boundaries]\nall = \"cpml\"\n\
             {bounds}\n[boundaries.cpml]\ncells = 5\n[[sources]]\ntype = \"current\"\ncomponent = \"Ez\"\n\
             position = [0.015, 0.015, 0.0055]\nwaveform = {{ type = \"gaussian_derivative\", frequency = 3e9 }}\n\
             [[farfield]]\nname = \"ff\"\nfrequencies = [1e9]\n{farfield}"
        );
        crate::scene::Scene::parse(&text, "s.toml").unwrap()
    };
    // The grid alone (not `Model::discretize`, which builds the monitors too and so would
    // refuse the boxes below before `build` is asked: the test would panic in this
    // helper instead of seeing `build`'s error).
    let grid = |s: &Scene| crate::model::Grid::new(s.domain.cells, s.domain.cell_size, s.time.courant, s.time.end);
    let s = scene("z_min = \"pec\"\ny_min = \"pmc\"", "");
    let g = grid(&s);
    let m = build(&s, &g).unwrap().pop().unwrap();
    let Kind::FarField { images, .. } = &m.kind else {
        panic!("not a far field")
    };
    assert_eq!(images.len(), 2);
    assert_eq!(
        (images[0].axis, images[0].pec, images[0].role),
        (1, false, PlaneRole::Symmetry)
    );
    assert_eq!(
        (images[1].axis, images[1].pec, images[1].role),
        (2, true, PlaneRole::Ground)
    );
    assert_eq!(m.faces.len(), 4, "the y_min and z_min faces are not recorded");
    assert!(m.faces.iter().all(|f| f.sign >= 0.0 || (f.axis != 1 && f.axis != 2)));
    let bottom = m.faces.iter().find(|f| f.axis == 0).unwrap();
    assert_eq!(
        (bottom.cells.0[1], bottom.cells.0[2]),
        (0, 0),
        "the side faces reach the planes"
    );
    // A box given on the wall plane: accepted; the same on a CPML face: refused.
    let on = "box = { min = [0.008, 0.008, 0], max = [0.022, 0.022, 0.02] }";
    let s = scene("z_min = \"pec\"", on);
    let m = build(&s, &grid(&s)).unwrap().pop().unwrap();
    assert_eq!(m.faces.len(), 5);
    let s = scene("", on);
    let e = build(&s, &grid(&s)).unwrap_err().to_string();
    assert!(e.contains("PEC/PMC face"), "{e}");
    // Facing walls: refused, naming the axis.
    let s = scene("z_min = \"pec\"\nz_max = \"pmc\"", "");
    let e = build(&s, &grid(&s)).unwrap_err().to_string();
    assert!(e.contains("z_min and z_max") && e.contains("far field"), "{e}");
}

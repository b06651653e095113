//! Plane waves by total-field/scattered-field (TF/SF): the direction rounded to a
//! rational one, the discrete plane-wave line, and the box's correction samples.
//!
//! **The discrete plane wave (DPW).** A plane wave along `g = (m_x/Δx, m_y/Δy, m_z/Δz)`
//! with integer `m` takes the same value on every sample with the same `L = 2 g·r =
//! Σ m_a P_a` (`P` the sample's position in half cells). Put into the Yee update, a
//! half-cell step along axis `a` is a step of `m_a` in `L`: the 3-D update of such a
//! field *is* a 1-D update on `L` (six components, the 3-D stencil with shifts `±m_a`,
//! the 3-D coefficients). The incident line therefore satisfies the 3-D difference
//! equations exactly, and the TF/SF corrections leave nothing in the scattered region
//! but rounding (Tan & Potter, IEEE TAP 58(8) 2010, with the direction rounded to a
//! rational one as gprMax does). Along an axis, `m = (0, 0, ±1)` etc.: the line is the
//! ordinary 1-D Yee grid of the 3-D spacing and time step.
//!
//! **The line.** Indices `0..len`: a hard-driven block `0..block` (`2·max|m|` samples,
//! each set to `ê·w(t − τ_L)`, enough to fill every sub-lattice the stencil couples), a
//! gap, the span of the box's samples, then a graded lossy tail (`TAIL_CELLS` cells long,
//! matched electric and magnetic loss, cubic grading up to `σΔt/2ε = TAIL_LOSS`) ending
//! in zero fields. Whatever the tail reflects is itself a discrete plane wave: it changes
//! the incident field a little (not measurably: the tail's round trip is below −100 dB)
//! but never leaks.
use super::{CoefTable, Grid, ModelError, PointSource};
use crate::scene::C0;
use crate::scene::{PlaneWave, Scene, SourceKind};
use crate::Component;

/// Largest |m_a| of a rational direction.
pub const MAX_M: i32 = 16;
/// A requested direction is rounded to the rational direction of smallest Σ|m_a| within
/// this angle (degrees), else to the closest one with |m_a| ≤ [`MAX_M`].
pub const ANGLE_TOL_DEG: f64 = 0.5;
/// Length of the line's lossy tail, in cells of the smallest cell size.
pub const TAIL_CELLS: f64 = 20.0;
/// Peak `σΔt/2ε` of the tail (cubic grading).
pub const TAIL_LOSS: f64 = 0.5;

/// The E (H) update of component `c` reads component `a.0` differenced along axis `a.1`
/// minus component `b.0` along `b.1` (`solver/cpu/src/update.rs`).
pub const STENCIL: [[(usize, usize); 2]; 6] = [
    [(5, 1), (4, 2)], // Ex: ∂Hz/∂y − ∂Hy/∂z
    [(3, 2), (5, 0)], // Ey: ∂Hx/∂z − ∂Hz/∂x
    [(4, 0), (3, 1)], // Ez: ∂Hy/∂x − ∂Hx/∂y
    [(2, 1), (1, 2)], // Hx: ∂Ez/∂y − ∂Ey/∂z
    [(0, 2), (2, 0)], // Hy: ∂Ex/∂z − ∂Ez/∂x
    [(1, 0), (0, 1)], // Hz: ∂Ey/∂x − ∂Ex/∂y
];

/// One incident-field term of a correction: `F += coef · inc[comp][l]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Term {
    /// The incident component (0..5, Ex..Hz) and its line index.
    pub comp: usize,
    pub l: usize,
    pub coef: f32,
}

/// A sample next to a face of the box whose update reads a sample across it.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    pub comp: usize,
    pub at: [usize; 3],
    pub flat: usize,
    /// Its terms: `terms[first..first + count]`.
    pub first: usize,
    pub count: usize,
}

/// A plane wave as the grid runs it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlaneWaveModel {
    pub name: String,
    /// The rational direction and the unit vector along `g` (the realised k̂).
    pub m: [i32; 3],
    pub k: [f64; 3],
    /// Realised θ, φ (degrees) and how far k̂ is from the requested direction (degrees).
    pub theta: f64,
    pub phi: f64,
    pub error_deg: f64,
    /// Unit E polarization ê (⟂ k̂) and the requested ψ (degrees).
    pub e: [f64; 3],
    pub polarization: f64,
    /// The box's nodes, per axis (low, high).
    pub nodes: [[usize; 2]; 3],
    /// Per axis, whether the box spans a periodic unit cell (no faces along it).
    pub spans: [bool; 3],
    /// The line: length, hard block `0..block`, lossy tail `tail..len`, and `L = l + l_off`.
    pub len: usize,
    pub block: usize,
    pub tail: usize,
    pub l_off: i64,
    /// Model source index of the block's first drive value (`block` of them).
    pub drive: usize,
    /// Vacuum coefficients of the 3-D update at the box's samples: E `[ca, cb]`, H `db`.
    pub ce: [f32; 2],
    pub dh: f32,
    /// Per tail sample `[a, f]`: `F = a·F ± (c·f)·curl` (c = cb or db).
    pub loss: Vec<[f32; 2]>,
    pub targets: Vec<Target>,
    pub terms: Vec<Term>,
}

impl PlaneWaveModel {
    /// The incident E of the analytic wave at `r` (m) and time `t`: `ê·w(t − k̂·(r − r₀)/c)`
    /// (`waveform` the scene's), `r₀` the box corner reached first.
    pub fn analytic_delay(&self, r: [f64; 3], grid: &Grid) -> f64 {
        let r0 = self.origin(grid);
        (0..3).map(|a| self.k[a] * (r[a] - r0[a])).sum::<f64>() / C0
    }

    /// The corner of the box the wave reaches first (m).
    pub fn origin(&self, grid: &Grid) -> [f64; 3] {
        [0, 1, 2].map(|a| self.nodes[a][(self.k[a] < 0.0) as usize] as f64 * grid.d[a])
    }
}

/// The rational direction nearest `(θ, φ)` (degrees) for cells `d`: `(m, error in degrees)`.
pub fn rational_direction(theta: f64, phi: f64, d: [f64; 3]) -> ([i32; 3], f64) {
    let (t, p) = (theta.to_radians(), phi.to_radians());
    let k = [t.sin() * p.cos(), t.sin() * p.sin(), t.cos()];
    let angle = |m: [i32; 3]| {
        let g = [0, 1, 2].map(|a| m[a] as f64 / d[a]);
        let n = g.iter().map(|x| x * x).sum::<f64>().sqrt();
        let c = (0..3).map(|a| g[a] * k[a]).sum::<f64>() / n;
        c.clamp(-1.0, 1.0).acos().to_degrees()
    };
    // Exact along the axes (and the first candidates otherwise).
    let mut best: Option<([i32; 3], f64, i32)> = None;
    let mut closest: Option<([i32; 3], f64)> = None;
    for mx in -MAX_M..=MAX_M {
        for my in -MAX_M..=MAX_M {
            for mz in -MAX_M..=MAX_M {
                let m = [mx, my, mz];
                if m == [0, 0, 0] {
                    continue;
                }
                let e = angle(m);
                let size = mx.abs() + my.abs() + mz.abs();
                if closest.is_none_or(|(_, ce)| e < ce) {
                    closest = Some((m, e));
                }
                if e <= ANGLE_TOL_DEG && best.is_none_or(|(_, be, bs)| size < bs || (size == bs && e < be)) {
                    best = Some((m, e, size));
                }
            }
        }
    }
    match (best, closest) {
        (Some((m, e, _)), _) => (m, e),
        (None, Some(c)) => c,
        (None, None) => ([0, 0, 1], 0.0),
    }
}

/// Doubled position of sample `idx` of component `c`.
fn doubled(c: usize, idx: [usize; 3]) -> [i64; 3] {
    let s = Component::ALL[c].stagger();
    [0, 1, 2].map(|a| 2 * idx[a] as i64 + s[a] as i64)
}

/// The scene's plane waves on `grid`; their drive values are appended to `sources`.
pub(super) fn build(
    scene: &Scene,
    grid: &Grid,
    coefs: &CoefTable,
    mat: &[Vec<u16>; 6],
    sources: &mut Vec<PointSource>,
) -> Result<Vec<PlaneWaveModel>, ModelError> {
    scene
        .plane_waves
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let spans = spanned(scene, p, grid);
            let cover: Vec<[[usize; 2]; 3]> = scene
                .cross_sections
                .iter()
                .filter(|c| c.wave == i)
                .map(|c| scattered_nodes(c, p, grid))
                .collect();
            one(p, spans, &cover, grid, coefs, mat, sources)
        })
        .collect()
}

/// Per axis, whether plane wave `p`'s box spans a periodic domain face to face (a unit
/// cell: no faces along that axis).
pub fn spanned(scene: &Scene, p: &PlaneWave, grid: &Grid) -> [bool; 3] {
    let nodes = crate::scene::plane_wave_nodes(p.min, p.max, grid.d);
    [0, 1, 2].map(|a| {
        matches!(scene.boundaries.face(a, false), crate::scene::Boundary::Periodic) && nodes[a] == [0, grid.n[a]]
    })
}

/// The scattered-field box of cross section `c` (nodes): its own, or one cell outside
/// the total-field box of its plane wave `p`.
pub fn scattered_nodes(c: &crate::scene::CrossSection, p: &PlaneWave, grid: &Grid) -> [[usize; 2]; 3] {
    match c.scattered {
        Some((lo, hi)) => crate::scene::plane_wave_nodes(lo, hi, grid.d),
        None => crate::scene::plane_wave_nodes(p.min, p.max, grid.d).map(|[l, h]| [l.saturating_sub(1), h + 1]),
    }
}

/// The absorption box of cross section `c` (nodes): its own, or one cell inside the
/// total-field box.
pub fn absorption_nodes(c: &crate::scene::CrossSection, p: &PlaneWave, grid: &Grid) -> [[usize; 2]; 3] {
    match c.total {
        Some((lo, hi)) => crate::scene::plane_wave_nodes(lo, hi, grid.d),
        None => crate::scene::plane_wave_nodes(p.min, p.max, grid.d).map(|[l, h]| [l + 1, h.saturating_sub(1)]),
    }
}

#[allow(clippy::too_many_arguments)]
fn one(
    p: &PlaneWave,
    spans: [bool; 3],
    cover: &[[[usize; 2]; 3]],
    grid: &Grid,
    coefs: &CoefTable,
    mat: &[Vec<u16>; 6],
    sources: &mut Vec<PointSource>,
) -> Result<PlaneWaveModel, ModelError> {
    let d = grid.d;
    let err = |why: String| ModelError::Element {
        what: "plane wave",
        name: p.name.clone(),
        why,
    };
    let (m, error_deg) = rational_direction(p.theta, p.phi, d);
    let g = [0, 1, 2].map(|a| m[a] as f64 / d[a]);
    let gn = g.iter().map(|x| x * x).sum::<f64>().sqrt();
    let k = g.map(|x| x / gn);
    let theta = k[2].clamp(-1.0, 1.0).acos();
    // Along ±z φ is the user's (it only turns the polarization).
    let phi = if k[0].hypot(k[1]) < 1e-12 {
        p.phi.to_radians()
    } else {
        k[1].atan2(k[0]).rem_euclid(std::f64::consts::TAU)
    };
    let th_hat = [theta.cos() * phi.cos(), theta.cos() * phi.sin(), -theta.sin()];
    let ph_hat = [-phi.sin(), phi.cos(), 0.0];
    let psi = p.polarization.to_radians();
    let e = [0, 1, 2].map(|a| psi.cos() * th_hat[a] + psi.sin() * ph_hat[a]);
    let nodes = crate::scene::plane_wave_nodes(p.min, p.max, d);
    for a in 0..3 {
        if spans[a] {
            if m[a] != 0 {
                return Err(err(format!(
                    "its box spans the periodic cell along {} but k has a component along it (m = {m:?}): oblique \
                     incidence in a unit cell needs Bloch-periodic boundaries",
                    ["x", "y", "z"][a]
                )));
            }
            continue;
        }
        if nodes[a][1] <= nodes[a][0] || nodes[a][1] + 1 > grid.n[a] || nodes[a][0] < 1 {
            return Err(err(format!(
                "its box {:?} (nodes) does not fit the grid {:?}",
                nodes, grid.n
            )));
        }
    }
    // Along a spanned (periodic) axis every sample is inside: no faces there.
    let lo = [0, 1, 2].map(|a| if spans[a] { i64::MIN / 4 } else { 2 * nodes[a][0] as i64 });
    let hi = [0, 1, 2].map(|a| if spans[a] { i64::MAX / 4 } else { 2 * nodes[a][1] as i64 });
    let total = |q: [i64; 3]| (0..3).all(|a| q[a] >= lo[a] && q[a] <= hi[a]);
    let big_l = |q: [i64; 3]| (0..3).map(|a| m[a] as i64 * q[a]).sum::<i64>();
    // Targets and their terms, with absolute L for now.
    let inv = grid.inv_d();
    let mut targets = Vec::new();
    let mut raw: Vec<(usize, i64, usize)> = Vec::new(); // (comp, L, sign·weight index)
    let mut weights: Vec<(f32, bool, usize)> = Vec::new(); // (sign, electric target, axis)
    let (mut ce, mut dh): (Option<[f32; 2]>, Option<f32>) = (None, None);
    for c in 0..6 {
        let ext = Component::ALL[c].extent(grid.n);
        let range = |a: usize| nodes[a][0].saturating_sub(1)..(nodes[a][1] + 1).min(ext[a] - 1) + 1;
        for i in range(0) {
            for j in range(1) {
                for kk in range(2) {
                    let idx = [i, j, kk];
                    let q = doubled(c, idx);
                    let inside = total(q);
                    let first = raw.len();
                    for (t, &(nc, axis)) in STENCIL[c].iter().enumerate() {
                        for step in [1i64, -1] {
                            let mut n = q;
                            n[axis] += step;
                            if total(n) == inside {
                                continue;
                            }
                            // The update adds +w·a1 − w·a0 − w·b1 + w·b0 (E; H the opposite).
                            let mut sign = if (t == 0) == (step == 1) { 1.0f32 } else { -1.0 };
                            if c >= 3 {
                                sign = -sign;
                            }
                            if !inside {
                                sign = -sign;
                            }
                            raw.push((nc, big_l(n), weights.len()));
                            weights.push((sign, c < 3, axis));
                        }
                    }
                    if raw.len() == first {
                        continue;
                    }
                    let flat = grid.idx(i, j, kk);
                    let mi = mat[c][flat] as usize;
                    let vacuum = if c < 3 {
                        coefs.e_props[mi] == Some((1.0, 0.0)) && coefs.e_poles[mi].is_empty()
                    } else {
                        coefs.h_props[mi] == 1.0
                    };
                    let same = if c < 3 {
                        *ce.get_or_insert(coefs.e[mi]) == coefs.e[mi]
                    } else {
                        *dh.get_or_insert(coefs.h[mi]) == coefs.h[mi]
                    };
                    if !(vacuum && same) {
                        return Err(err(format!(
                            "the {} sample {idx:?} next to a face of its total-field box is not vacuum (an object, \
                             a thin conductor or a lumped element reaches the face): objects may lie inside the box \
                             or outside it, not across its faces",
                            Component::ALL[c]
                        )));
                    }
                    targets.push(Target {
                        comp: c,
                        at: idx,
                        flat,
                        first,
                        count: raw.len() - first,
                    });
                }
            }
        }
    }
    let ce = ce.unwrap_or([1.0, 0.0]);
    let dh = dh.unwrap_or(0.0);
    let mm = m.iter().map(|x| x.unsigned_abs() as usize).max().unwrap_or(1).max(1);
    let block = 2 * mm;
    let gap = 2 * mm + 2;
    // The line spans the L of every corrected sample, and of every sample of the `cover`
    // boxes (nodes; H half a cell outside them), where results read the incident field.
    let corners = cover.iter().flat_map(|b| {
        (0..8).map(move |c: usize| {
            (0..3)
                .map(|a| {
                    let q = if c >> a & 1 == 1 {
                        2 * b[a][1] as i64 + 1
                    } else {
                        2 * b[a][0] as i64 - 1
                    };
                    m[a] as i64 * if spans[a] { 0 } else { q }
                })
                .sum::<i64>()
        })
    });
    let ls: Vec<i64> = raw.iter().map(|r| r.1).chain(corners).collect();
    let lmin = ls.iter().copied().min().unwrap_or(0);
    let lmax = ls.iter().copied().max().unwrap_or(0);
    let l_off = lmin - (block + gap) as i64;
    let tail = (lmax - l_off) as usize + gap;
    let dmin = d.iter().cloned().fold(f64::INFINITY, f64::min);
    let tail_len = (TAIL_CELLS * dmin * 2.0 * gn).ceil() as usize;
    let len = tail + tail_len;
    let loss = (0..tail_len)
        .map(|q| {
            let s = TAIL_LOSS * ((q as f64 + 0.5) / tail_len as f64).powi(3);
            [((1.0 - s) / (1.0 + s)) as f32, (1.0 / (1.0 + s)) as f32]
        })
        .collect();
    let terms = raw
        .iter()
        .map(|&(comp, l, w)| {
            let (sign, electric, axis) = weights[w];
            let c = if electric { ce[1] } else { dh };
            Term {
                comp,
                l: (l - l_off) as usize,
                coef: sign * (c * inv[axis]),
            }
        })
        .collect();
    // Drive values: the analytic wave at each block sample, at the hard E time (n+1)·dt.
    let z0 = (0..8)
        .map(|corner: usize| {
            (0..3)
                .map(|a| match spans[a] {
                    true => 0,
                    false => m[a] as i64 * if corner >> a & 1 == 1 { hi[a] } else { lo[a] },
                })
                .sum::<i64>()
        })
        .min()
        .unwrap_or(0);
    let drive = sources.len();
    for l in 0..block {
        let tau = ((l as i64 + l_off - z0) as f64) / (2.0 * gn * C0);
        let mut w = p.waveform.clone();
        w.delay += tau;
        sources.push(PointSource {
            name: format!("plane wave {} line {l}", p.name),
            kind: SourceKind::Hard,
            component: Component::Ex,
            index: [0, 0, 0],
            flat: 0,
            scale: 1.0,
            waveform: w,
            line: true,
        });
    }
    Ok(PlaneWaveModel {
        name: p.name.clone(),
        m,
        k,
        theta: theta.to_degrees(),
        phi: phi.to_degrees(),
        error_deg,
        e,
        polarization: p.polarization,
        nodes,
        spans,
        len,
        block,
        tail,
        l_off,
        drive,
        ce,
        dh,
        loss,
        targets,
        terms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Model;

    const HEAD: &str = "[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n";
    const PW: &str = "[[sources]]\nname = \"pw\"\ntype = \"plane_wave\"\ntheta = THETA\nphi = PHI\n\
                      box = { min = [0.015, 0.015, 0.015], max = [0.025, 0.025, 0.025] }\n\
                      waveform = { type = \"gaussian\", frequency = 5e9 }\n";

    fn model(theta: f64, phi: f64, extra: &str) -> Result<Model, ModelError> {
        let pw = PW.replace("THETA", &theta.to_string()).replace("PHI", &phi.to_string());
        let scene = crate::scene::Scene::parse(&format!("{HEAD}{pw}{extra}"), "pw.toml").unwrap();
        Model::discretize(&scene)
    }

    /// Axis directions are exact (m a unit vector); θ 30°, φ 20° becomes (8, 3, 15), 0.43°
    /// away; non-cubic cells scale m so that g = m/Δ points along k.
    #[test]
    fn directions_round_to_rational_ones() {
        for (t, p, m) in [
            (0.0, 0.0, [0, 0, 1]),
            (180.0, 0.0, [0, 0, -1]),
            (90.0, 0.0, [1, 0, 0]),
            (90.0, 90.0, [0, 1, 0]),
            (90.0, 180.0, [-1, 0, 0]),
            (90.0, 270.0, [0, -1, 0]),
        ] {
            assert_eq!(rational_direction(t, p, [1e-3; 3]), (m, 0.0), "θ {t}, φ {p}");
        }
        let (m, e) = rational_direction(30.0, 20.0, [1e-3; 3]);
        assert_eq!(m, [8, 3, 15]);
        assert!(e > 0.4 && e < ANGLE_TOL_DEG, "{e}");
        // 45° in the x-z plane with dz = 2·dx: g = (1/dx, 0, 2/dz) = (1, 0, 1)/dx.
        assert_eq!(rational_direction(45.0, 0.0, [1e-3, 1e-3, 2e-3]).0, [1, 0, 2]);
    }

    /// Along +z the line is the 1-D Yee grid: every target is a tangential sample on (E)
    /// or half a cell outside (H) a face, and each has one term per face it is next to.
    #[test]
    fn an_axis_box_corrects_the_tangential_samples_of_its_faces() {
        let m = model(0.0, 0.0, "").unwrap();
        let w = &m.plane_waves[0];
        assert_eq!((w.m, w.nodes), ([0, 0, 1], [[15, 25]; 3]));
        assert!((w.e[0] - 1.0).abs() < 1e-12 && w.e[1].abs() < 1e-12 && w.e[2].abs() < 1e-12);
        // Six faces of 10 × 10 cells: per face 2 tangential E components and 2 H, ~10·11 each.
        assert!(
            w.targets.len() > 6 * 4 * 100 && w.targets.len() < 6 * 4 * 130,
            "{}",
            w.targets.len()
        );
        assert!(w.targets.iter().all(|t| (1..=3).contains(&t.count)));
        // The line's drive values are sources the point-source passes skip.
        let drives: Vec<_> = m.sources.iter().filter(|s| s.line).collect();
        assert_eq!(drives.len(), w.block);
        assert_eq!(w.drive, m.sources.len() - w.block);
    }

    /// A lumped element on a face is caught on the grid (the scene cannot see it).
    #[test]
    fn a_lumped_element_on_a_face_is_refused() {
        let lumped = "[[lumped]]\nname = \"r\"\nstart = [0.015, 0.02, 0.02]\nend = [0.015, 0.02, 0.021]\nr = 50\n";
        let e = model(0.0, 0.0, lumped).unwrap_err().to_string();
        assert!(e.contains("plane wave `pw`") && e.contains("is not vacuum"), "{e}");
        // Inside the box it is fine.
        let inside = lumped
            .replace("0.015, 0.02, 0.02", "0.02, 0.02, 0.02")
            .replace("0.015, 0.02, 0.021", "0.02, 0.02, 0.021");
        model(30.0, 20.0, &inside).unwrap();
    }
}

//! Subpixel averaging of ε on the E edges that a curved dielectric surface cuts.
//!
//! Without it an E edge takes the arithmetic mean of its 4 cells, each cell the material
//! of the last object containing its centre: a sphere is a staircase, and its resonances
//! and cross sections converge to first order in the cell size, erratically (a cell
//! flips when the surface crosses its centre). With it, an edge of component `a` whose
//! *dual volume* (the cell-sized box centred on the edge sample) is cut by the surface of
//! one averaged object takes the anisotropic average of Farjadpour et al. (Opt. Lett. 31,
//! 2972, 2006) and Oskooi et al. (Opt. Lett. 34, 2778, 2009; Meep), projected on the
//! edge: with `f` the fraction of the dual volume inside the object, ε_in and ε_out the
//! two materials and `n` the surface's unit normal,
//!
//! ```text
//! ⟨ε⟩ = f·ε_in + (1−f)·ε_out        ⟨1/ε⟩ = f/ε_in + (1−f)/ε_out
//! 1/ε_a = n_a²·⟨1/ε⟩ + (1 − n_a²)/⟨ε⟩
//! ```
//!
//! (the normal component of D and the tangential components of E are continuous: the
//! field along the normal sees the harmonic mean, along the surface the arithmetic one;
//! this is the diagonal of the averaged tensor, the off-diagonal terms are dropped since
//! a Yee edge holds one component). `f` is the closed-form volume of the box cut by the
//! tangent plane of the surface at the edge sample ([`plane_fraction`]), the plane moved
//! inward by the surface's mean sag over the box (its curvature, [`sag`]): exact to
//! second order in d/R. A box (averaged only with `subpixel = true`) meets the dual
//! volume in a box: its fraction is exact, and where its faces lie on cell faces the edge
//! keeps the 4-cell rule, which is exact there. `n` comes from the shape: radial for a
//! sphere, radial or along the axis (the caps) for a cylinder, the nearest face for a
//! box, each the gradient of the shape's signed distance ([`surface`]).
//!
//! **Conductivity.** σ is averaged as part of the complex permittivity
//! ε − jσ/(ωε0) under the same rule, to first order in the loss tangent:
//!
//! ```text
//! σ_a = ε_a²·( n_a²·Σ f_m σ_m/ε_m² + (1 − n_a²)·Σ f_m σ_m/⟨ε⟩² )
//! ```
//!
//! It needs no reference frequency (the first-order term is ω-independent), reduces to
//! today's arithmetic mean of σ along the surface (n_a = 0, exact there at every ω) and
//! to σ inside one material, and gives the normal field the dissipation of the layered
//! series capacitor. Its limit: where σ/(ωε0ε) ≳ 1 the exact series rule would make the
//! normal part *less* lossy (a good conductor in series is a short), the linear rule
//! more. A good conductor is `pec` or a box (no averaging by default).
//!
//! **Where it applies.** An edge is averaged when exactly one object's surface may cut
//! its dual volume (|signed distance| ≤ half the volume's diagonal), that object is
//! averaged (`subpixel`, default on for spheres and cylinders of a non-dispersive
//! dielectric), no later object covers the whole volume, and the material outside it
//! there (the last earlier object that contains the whole volume, else the background) is
//! a non-dispersive dielectric too. Everywhere else (PEC or dispersive neighbours, two
//! surfaces through one cell, objects with `subpixel = false`) the edge keeps today's
//! 4-cell rule, bit for bit.
//!
//! **Table rows.** `f` is rounded to 1/256 and n_a² to 1/32 before the rule, so one pair
//! of materials makes at most 255·33 = 8415 distinct rows however large the sphere (the
//! u16 row index allows 65535 in all). The rounding moves an interface by at most d/512
//! and n_a² by 1/64, unbiased from edge to edge: far below the O(d²) error the averaging
//! leaves.
use super::Grid;
use crate::scene::{MaterialKind, Scene, Shape};
use rayon::prelude::*;

/// Steps of the fill fraction (`f = fill / FILL_STEPS`).
pub const FILL_STEPS: u16 = 256;
/// Steps of n_a² (`n_a² = normal / NORMAL_STEPS`).
pub const NORMAL_STEPS: u16 = 32;

/// An averaged E edge: the materials inside and outside the surface, the rounded fill
/// fraction inside (0 < fill < [`FILL_STEPS`]) and the rounded n_a².
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fill {
    pub inside: u16,
    pub outside: u16,
    pub fill: u16,
    pub normal: u16,
}

/// What an E edge takes: a pure material (the surface misses its dual volume once the
/// fraction is rounded) or an averaged one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeMaterial {
    Pure(u16),
    Averaged(Fill),
}

impl Fill {
    /// The effective `(eps_r, sigma)` along the edge (see the module's rule).
    pub fn props(&self, inside: (f64, f64), outside: (f64, f64)) -> (f64, f64) {
        let f = self.fill as f64 / FILL_STEPS as f64;
        let q = self.normal as f64 / NORMAL_STEPS as f64;
        average(f, q, inside, outside)
    }
}

/// The anisotropic average along an edge with n_a² = `q` of `inside` (a fraction `f`
/// of the dual volume) and `outside`, each `(eps_r, sigma)`.
pub fn average(f: f64, q: f64, inside: (f64, f64), outside: (f64, f64)) -> (f64, f64) {
    let ((ei, si), (eo, so)) = (inside, outside);
    let arith = f * ei + (1.0 - f) * eo;
    let harm = f / ei + (1.0 - f) / eo;
    let eps = 1.0 / (q * harm + (1.0 - q) / arith);
    let sig = eps
        * eps
        * (q * (f * si / (ei * ei) + (1.0 - f) * so / (eo * eo))
            + (1.0 - q) * (f * si + (1.0 - f) * so) / (arith * arith));
    (eps, sig)
}

/// Signed distance from `p` to the shape's surface (negative inside) and the outward unit
/// normal of the nearest surface point (the distance's gradient); `None` for shapes that
/// cover no cells, and for a normal that is undefined (a sphere's centre).
pub fn surface(shape: &Shape, p: [f64; 3]) -> Option<(f64, [f64; 3])> {
    let norm = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    match shape {
        Shape::Sphere { center, radius } => {
            let v = [p[0] - center[0], p[1] - center[1], p[2] - center[2]];
            let r = norm(v);
            (r > 0.0).then(|| (r - radius, v.map(|x| x / r)))
        }
        Shape::Cylinder { a, b, radius } => {
            let ax = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let len = norm(ax);
            let u = ax.map(|x| x / len);
            let w = [0, 1, 2].map(|i| p[i] - 0.5 * (a[i] + b[i]));
            let t = w[0] * u[0] + w[1] * u[1] + w[2] * u[2];
            let rho = [0, 1, 2].map(|i| w[i] - t * u[i]);
            let rl = norm(rho);
            let cap = u.map(|x| x * t.signum());
            let h = t.abs() - 0.5 * len;
            let r = rl - radius;
            if rl == 0.0 && r >= h {
                return None;
            }
            let radial = rho.map(|x| x / rl.max(f64::MIN_POSITIVE));
            if h <= 0.0 && r <= 0.0 {
                Some(if h > r { (h, cap) } else { (r, radial) })
            } else {
                let (hp, rp) = (h.max(0.0), r.max(0.0));
                let s = hp.hypot(rp);
                Some((s, [0, 1, 2].map(|i| (hp * cap[i] + rp * radial[i]) / s)))
            }
        }
        Shape::Box { min, max } => {
            let c = [0, 1, 2].map(|i| 0.5 * (min[i] + max[i]));
            let q = [0, 1, 2].map(|i| (p[i] - c[i]).abs() - 0.5 * (max[i] - min[i]));
            let sign = [0, 1, 2].map(|i| if p[i] >= c[i] { 1.0 } else { -1.0 });
            if q.iter().all(|&x| x <= 0.0) {
                let i = (0..3).fold(0, |m, i| if q[i] > q[m] { i } else { m });
                let mut n = [0.0; 3];
                n[i] = sign[i];
                Some((q[i], n))
            } else {
                let qp = q.map(|x| x.max(0.0));
                let s = norm(qp);
                Some((s, [0, 1, 2].map(|i| qp[i] * sign[i] / s)))
            }
        }
        _ => None,
    }
}

/// How far, on average over the dual volume `d` around a point with surface normal `n`,
/// the curved surface lies inside its tangent plane (m): a sphere of radius R sags by
/// ρ²/2R at lateral distance ρ, and the box's mean ρ² in the tangent plane is
/// Σ d_i²(1 − n_i²)/12; a cylinder's side curves only around its axis `u`, along
/// t = u × n. Shifting the plane inward by it makes the fill fraction exact to second
/// order in d/R; without it a sphere's averaged volume is ~(d/2R)² too large (2 % at
/// r = 3.3 cells). Flat faces (boxes, caps) and the rim: 0.
fn sag(shape: &Shape, n: [f64; 3], d: [f64; 3]) -> f64 {
    match shape {
        Shape::Sphere { radius, .. } => {
            (0..3).map(|i| d[i] * d[i] * (1.0 - n[i] * n[i])).sum::<f64>() / (24.0 * radius)
        }
        Shape::Cylinder { a, b, radius } => {
            let ax = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let len = (ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]).sqrt();
            let u = ax.map(|x| x / len);
            if (u[0] * n[0] + u[1] * n[1] + u[2] * n[2]).abs() > 1e-9 {
                return 0.0;
            }
            let t = [
                u[1] * n[2] - u[2] * n[1],
                u[2] * n[0] - u[0] * n[2],
                u[0] * n[1] - u[1] * n[0],
            ];
            (0..3).map(|i| d[i] * d[i] * t[i] * t[i]).sum::<f64>() / (24.0 * radius)
        }
        _ => 0.0,
    }
}

/// How a box cuts a dual volume.
enum BoxCut {
    NotABox,
    /// Its faces cut the volume only on cell faces (or not at all): the 4-cell rule is
    /// exact there (its fraction is the cells', n_a = 0 or the cut is whole cells) and
    /// keeps the result bit for bit.
    CellFaces,
    /// The fraction inside (exact: a box meets a box in a box) and, when one axis alone
    /// is cut, that axis (the normal); else the distance's gradient (an edge or corner).
    Cut(f64, Option<usize>),
}

/// The exact fraction of the dual volume `p ± d/2` of an E_`a` edge inside a box shape.
fn box_cut(shape: &Shape, p: [f64; 3], a: usize, d: [f64; 3]) -> BoxCut {
    let Shape::Box { min, max } = shape else {
        return BoxCut::NotABox;
    };
    let o = [0, 1, 2].map(|i| ((max[i].min(p[i] + 0.5 * d[i]) - min[i].max(p[i] - 0.5 * d[i])) / d[i]).clamp(0.0, 1.0));
    let near = |x: f64, v: f64| (x - v).abs() < 1e-9;
    let aligned = (0..3).all(|i| near(o[i], 0.0) || near(o[i], 1.0) || (i != a && near(o[i], 0.5)));
    if aligned {
        return BoxCut::CellFaces;
    }
    let cut: Vec<usize> = (0..3).filter(|&i| o[i] > 0.0 && o[i] < 1.0).collect();
    BoxCut::Cut(o[0] * o[1] * o[2], (cut.len() == 1).then(|| cut[0]))
}

/// `∫ R_k(β − Σ c_i y_i) dy` over the unit cube of `c.len()` dimensions, where
/// `R_k(t) = max(t, 0)^k / k!` (`R_0` the step). Each coordinate integrates in closed
/// form, `∫₀¹ R_k(β − c·y) dy = (R_{k+1}(β) − R_{k+1}(β − c))/c`; a coefficient too small
/// to divide by (the plane nearly parallel to that axis) takes the midpoint instead
/// (error ≤ c).
fn ramp_integral(beta: f64, c: &[f64], k: i32) -> f64 {
    match c.split_first() {
        None => {
            if beta <= 0.0 {
                0.0
            } else {
                beta.powi(k) / (1..=k).product::<i32>().max(1) as f64
            }
        }
        Some((&c0, rest)) if c0 > 1e-7 => {
            (ramp_integral(beta, rest, k + 1) - ramp_integral(beta - c0, rest, k + 1)) / c0
        }
        Some((&c0, rest)) => ramp_integral(beta - 0.5 * c0, rest, k),
    }
}

/// The fraction of the box `p ± d/2` on the inner side of the plane through the surface
/// point nearest `p`: the points `x` with `s + n·(x − p) < 0` (`s` the signed distance
/// at `p`, `n` the unit normal). Exact for a plane (closed form, no sampling).
pub fn plane_fraction(s: f64, n: [f64; 3], d: [f64; 3]) -> f64 {
    // x = p + d⊙(y − ½), y in the unit cube: Σ m_i y_i < α.
    let mut m = [0, 1, 2].map(|i| n[i] * d[i]);
    let mut alpha = -s + 0.5 * (m[0] + m[1] + m[2]);
    for mi in &mut m {
        if *mi < 0.0 {
            // y → 1 − y.
            alpha -= *mi;
            *mi = -*mi;
        }
    }
    let top = m.iter().cloned().fold(0.0, f64::max);
    if top <= 0.0 {
        return if alpha > 0.0 { 1.0 } else { 0.0 };
    }
    m.sort_by(|a, b| b.total_cmp(a));
    let c = m.map(|x| x / top);
    ramp_integral(alpha / top, &c, 0).clamp(0.0, 1.0)
}

/// Position of the E sample of axis `a` at index `idx` (m).
fn e_position(a: usize, idx: [usize; 3], d: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|i| (idx[i] as f64 + if i == a { 0.5 } else { 0.0 }) * d[i])
}

/// Whether an object's material can be averaged: a non-dispersive dielectric.
fn plain(scene: &Scene, m: usize) -> bool {
    let mat = &scene.materials[m];
    matches!(mat.kind, MaterialKind::Dielectric { .. }) && mat.poles.is_empty()
}

/// The averaged E edges of component axis `a`: `(flat index, material)`, sorted by flat
/// index; empty when no object is averaged (then nothing changes).
pub fn edges(scene: &Scene, grid: &Grid, a: usize) -> Vec<(usize, EdgeMaterial)> {
    let d = grid.d;
    let dims = grid.dims();
    let half_diag = 0.5 * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    // Objects whose surface may reach into some dual volume: bounds grown by the diagonal.
    let bounds: Vec<([f64; 3], [f64; 3])> = scene
        .objects
        .iter()
        .map(|o| {
            let (lo, hi) = o.shape.bounds();
            (lo.map(|x| x - half_diag), hi.map(|x| x + half_diag))
        })
        .collect();
    let inside_box = |p: [f64; 3], b: &([f64; 3], [f64; 3])| (0..3).all(|i| p[i] >= b.0[i] && p[i] <= b.1[i]);
    let mut out: Vec<(usize, EdgeMaterial)> = Vec::new();
    for (k, obj) in scene.objects.iter().enumerate() {
        if !obj.subpixel || !plain(scene, obj.material) {
            continue;
        }
        // Index range of the E_a samples inside the grown bounds.
        let range = |i: usize| {
            let off = if i == a { 0.5 } else { 0.0 };
            let last = if i == a { grid.n[i] - 1 } else { grid.n[i] };
            let lo = ((bounds[k].0[i] / d[i] - off).ceil().max(0.0)) as usize;
            let hi = (bounds[k].1[i] / d[i] - off).floor();
            if hi < 0.0 {
                (1, 0)
            } else {
                (lo, (hi as usize).min(last))
            }
        };
        let r = [range(0), range(1), range(2)];
        if r.iter().any(|&(lo, hi)| lo > hi) {
            continue;
        }
        let found: Vec<Vec<(usize, EdgeMaterial)>> = (r[0].0..=r[0].1)
            .into_par_iter()
            .map(|i| {
                let mut list = Vec::new();
                for j in r[1].0..=r[1].1 {
                    for l in r[2].0..=r[2].1 {
                        let p = e_position(a, [i, j, l], d);
                        let Some((s, n)) = surface(&obj.shape, p) else {
                            continue;
                        };
                        if s.abs() > half_diag {
                            continue;
                        }
                        if let Some(m) = classify(scene, k, p, half_diag, &bounds, &inside_box) {
                            let (f, n) = match box_cut(&obj.shape, p, a, d) {
                                BoxCut::NotABox => (plane_fraction(s + sag(&obj.shape, n, d), n, d), n),
                                BoxCut::CellFaces => continue,
                                BoxCut::Cut(f, axis) => {
                                    (f, axis.map_or(n, |i| [0, 1, 2].map(|j| if j == i { 1.0 } else { 0.0 })))
                                }
                            };
                            let fill = (f * FILL_STEPS as f64).round() as u16;
                            let mat = match fill {
                                0 => EdgeMaterial::Pure(m),
                                x if x >= FILL_STEPS => EdgeMaterial::Pure(obj.material as u16),
                                x => EdgeMaterial::Averaged(Fill {
                                    inside: obj.material as u16,
                                    outside: m,
                                    fill: x,
                                    normal: (n[a] * n[a] * NORMAL_STEPS as f64).round() as u16,
                                }),
                            };
                            list.push(((i * dims[1] + j) * dims[2] + l, mat));
                        }
                    }
                }
                list
            })
            .collect();
        out.extend(found.into_iter().flatten());
    }
    // An edge found by two objects is cut by both: `classify` refused it for each.
    out.sort_by_key(|e| e.0);
    out
}

/// The material outside object `k` around `p`, if the edge there can be averaged: no
/// other object's surface reaches into the dual volume, no later object covers it, and
/// the material there (the last earlier object covering it, else the background) is a
/// non-dispersive dielectric different from object `k`'s.
fn classify(
    scene: &Scene,
    k: usize,
    p: [f64; 3],
    half_diag: f64,
    bounds: &[([f64; 3], [f64; 3])],
    inside_box: &impl Fn([f64; 3], &([f64; 3], [f64; 3])) -> bool,
) -> Option<u16> {
    let mut outside = 0usize;
    for (o, obj) in scene.objects.iter().enumerate() {
        if o == k || !inside_box(p, &bounds[o]) {
            continue;
        }
        let s = match surface(&obj.shape, p) {
            Some((s, _)) => s,
            // A thin conductor stamps PEC edges after the averaging; a normal-less point
            // (a sphere's centre) is inside it and within reach of its surface.
            None if matches!(obj.shape, Shape::Wire { .. } | Shape::Plate { .. }) => continue,
            None => return None,
        };
        if s.abs() <= half_diag {
            return None;
        }
        if s < 0.0 {
            if o > k {
                return None;
            }
            outside = obj.material;
        }
    }
    let inside = scene.objects[k].material;
    (outside != inside && plain(scene, outside)).then_some(outside as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plane fraction against a fine midpoint sum over the box, for planes in
    /// general position, nearly parallel to faces and exactly parallel.
    #[test]
    fn plane_fraction_matches_a_fine_sum() {
        let d = [1.0, 0.7, 1.3];
        let cases: [([f64; 3], f64); 7] = [
            ([0.3, -0.5, 0.81], 0.1),
            ([1.0, 0.0, 0.0], 0.2),
            ([0.0, 1.0, 0.0], -0.3),
            ([1.0, 1e-9, 0.0], 0.05),
            ([0.577, 0.577, 0.577], 0.0),
            ([-0.2, 0.9, -0.38], -0.45),
            ([0.6, 0.0, -0.8], 0.9),
        ];
        let m = 200;
        for (n, s) in cases {
            let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            let n = n.map(|x| x / l);
            let mut count = 0usize;
            for i in 0..m {
                for j in 0..m {
                    for k in 0..m {
                        let y = [i, j, k].map(|x| (x as f64 + 0.5) / m as f64 - 0.5);
                        if s + (0..3).map(|a| n[a] * d[a] * y[a]).sum::<f64>() < 0.0 {
                            count += 1;
                        }
                    }
                }
            }
            let sum = count as f64 / (m * m * m) as f64;
            let f = plane_fraction(s, n, d);
            // The midpoint sum's error: the cut through a layer of sample cells, ≤ 1/m
            // for an axis-aligned plane and far less in general position.
            assert!((f - sum).abs() <= 1.0 / m as f64, "n {n:?} s {s}: {f} vs {sum}");
        }
        // Closed forms: half the box through the centre; a corner tetrahedron.
        assert!((plane_fraction(0.0, [0.6, 0.0, 0.8], d) - 0.5).abs() < 1e-12);
        let n = [1.0 / 3f64.sqrt(); 3];
        // Plane through the points at distance 1 from the corner along each axis of
        // the unit cube: the tetrahedron of volume 1/6.
        let s = -(n[0] * (1.0 - 1.5));
        assert!((plane_fraction(s, n, [1.0; 3]) - 1.0 / 6.0).abs() < 1e-12);
    }

    /// The rule's limits: tangential → arithmetic, normal → harmonic, one material →
    /// itself (σ too), and σ along the surface averaged arithmetically.
    #[test]
    fn average_limits() {
        let (i, o) = ((4.0, 0.2), (1.0, 0.0));
        let (e, s) = average(0.25, 0.0, i, o);
        assert!((e - 1.75).abs() < 1e-12 && (s - 0.05).abs() < 1e-12);
        let (e, _) = average(0.25, 1.0, i, o);
        assert!((e - 1.0 / (0.25 / 4.0 + 0.75)).abs() < 1e-12);
        let (e, s) = average(1.0, 0.4, i, o);
        assert!((e - 4.0).abs() < 1e-12 && (s - 0.2).abs() < 1e-12);
        // The linear σ rule against the complex harmonic mean ε − jσ/(ωε0) at a loss
        // tangent of 1.25e-4 (ωε0 = 400 S/m): they agree to second order in it, ~1e-8
        // relative, while a rule off by a factor in σ would miss by ~1e-4.
        let omega_eps0 = 400.0;
        let harm = inv(add(scale(inv((4.0, -0.2 / omega_eps0)), 0.25), (0.75, 0.0)));
        let (e, s) = average(0.25, 1.0, i, o);
        let im = -s / omega_eps0;
        assert!((e - harm.0).abs() < 1e-6, "{e} vs {harm:?}");
        assert!((im - harm.1).abs() < 1e-3 * harm.1.abs(), "{im} vs {harm:?}");
    }

    fn inv(z: (f64, f64)) -> (f64, f64) {
        let m = z.0 * z.0 + z.1 * z.1;
        (z.0 / m, -z.1 / m)
    }
    fn add(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
        (a.0 + b.0, a.1 + b.1)
    }
    fn scale(a: (f64, f64), s: f64) -> (f64, f64) {
        (a.0 * s, a.1 * s)
    }

    /// Normals and distances of the three shapes.
    #[test]
    fn surfaces() {
        let s = Shape::Sphere {
            center: [1.0, 1.0, 1.0],
            radius: 0.5,
        };
        let (d, n) = surface(&s, [1.0, 1.8, 1.0]).unwrap();
        assert!((d - 0.3).abs() < 1e-12 && n == [0.0, 1.0, 0.0]);
        let c = Shape::Cylinder {
            a: [0.0, 0.0, 0.0],
            b: [0.0, 0.0, 2.0],
            radius: 0.5,
        };
        let (d, n) = surface(&c, [0.3, 0.0, 1.0]).unwrap();
        assert!((d + 0.2).abs() < 1e-12 && (n[0] - 1.0).abs() < 1e-12);
        let (d, n) = surface(&c, [0.1, 0.0, 1.95]).unwrap();
        assert!((d + 0.05).abs() < 1e-12 && (n[2] - 1.0).abs() < 1e-12);
        let (d, n) = surface(&c, [0.8, 0.0, 2.4]).unwrap();
        assert!((d - 0.5).abs() < 1e-12 && (n[0] - 0.6).abs() < 1e-12 && (n[2] - 0.8).abs() < 1e-12);
        let b = Shape::Box {
            min: [0.0; 3],
            max: [1.0, 2.0, 3.0],
        };
        let (d, n) = surface(&b, [0.5, 1.9, 1.0]).unwrap();
        assert!((d + 0.1).abs() < 1e-12 && n == [0.0, 1.0, 0.0]);
    }
}

#[cfg(test)]
#[path = "subpixel_tests.rs"]
mod model_tests;

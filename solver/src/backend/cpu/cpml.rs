//! CPML corrections on top of the bulk update, inside the layers only.
//!
//! For a layer normal to axis `a`, with `a1 = a+1`, `a2 = a+2` (mod 3), the terms
//! of the curl that differentiate along `a` are (see `model::cpml` for b, a, κ):
//!
//! ```text
//! E_a1 += −cb·((1/κ−1)·∂a H_a2 + ψ),   E_a2 += +cb·((1/κ−1)·∂a H_a1 + ψ)
//! H_a1 += +db·((1/κ−1)·∂a E_a2 + ψ),   H_a2 += −db·((1/κ−1)·∂a E_a1 + ψ)
//! ψ ← b·ψ + a·∂a F   (updated before use)
//! ```
use crate::model::{CpmlLayer, FaceKind, Model, Profile};
use rayon::prelude::*;

/// Split out one mutable component and one shared component.
fn pair(f: &mut [Vec<f32>; 6], t: usize, s: usize) -> (&mut [f32], &[f32]) {
    assert_ne!(t, s);
    if t < s {
        let (lo, hi) = f.split_at_mut(s);
        (&mut lo[t], &hi[0])
    } else {
        let (lo, hi) = f.split_at_mut(t);
        (&mut hi[0], &lo[s])
    }
}

/// One correction pass: target component `tc` from the derivative of `sc` along the
/// layer axis, with sign `sgn`, into ψ array `psi`.
struct Pass<'a> {
    tc: usize,
    sc: usize,
    sgn: f32,
    prof: &'a Profile,
    first: usize,
    /// Index range of the target samples along each axis (the layer axis included).
    range: [(usize, usize); 3],
}

fn run(m: &Model, l: &CpmlLayer, f: &mut [Vec<f32>; 6], psi: &mut [f32], p: Pass) {
    let g = &m.grid;
    let a = l.axis;
    let [sx, sy, _] = g.strides();
    let stride_a = g.strides()[a];
    let inv = g.inv_d()[a];
    let electric = p.tc < 3;
    // Derivative stencil: E targets use S[p] − S[p−a], H targets S[p+a] − S[p].
    let (hi_off, lo_off) = if electric { (0, stride_a) } else { (stride_a, 0) };
    let mut pd = g.dims();
    pd[a] = p.prof.len();
    let (psx, psy) = (pd[1] * pd[2], pd[2]);
    let mat = &m.mat[p.tc][..];
    let coef_e = &m.coefs.e[..];
    let coef_h = &m.coefs.h[..];
    let (target, src) = pair(f, p.tc, p.sc);
    let [(x0, x1), (y0, y1), (z0, z1)] = p.range;
    if x1 <= x0 || y1 <= y0 || z1 <= z0 {
        return;
    }
    let px0 = if a == 0 { x0 - p.first } else { x0 };
    target
        .par_chunks_mut(sx)
        .skip(x0)
        .take(x1 - x0)
        .zip(psi.par_chunks_mut(psx).skip(px0).take(x1 - x0))
        .enumerate()
        .for_each(|(di, (tslab, pslab))| {
            let i = x0 + di;
            for j in y0..y1 {
                let r = i * sx + j * sy; // flat (i, j, 0)
                let pj = if a == 1 { j - p.first } else { j };
                for k in z0..z1 {
                    let t = match a {
                        0 => i - p.first,
                        1 => j - p.first,
                        _ => k - p.first,
                    };
                    let pk = if a == 2 { t } else { k };
                    let flat = r + k;
                    let d = (src[flat + hi_off] - src[flat - lo_off]) * inv;
                    let ps = &mut pslab[pj * psy + pk];
                    *ps = p.prof.b[t] * *ps + p.prof.a[t] * d;
                    let coef = if electric {
                        coef_e[mat[flat] as usize][1]
                    } else {
                        coef_h[mat[flat] as usize]
                    };
                    tslab[j * sy + k] += p.sgn * coef * (p.prof.kinv[t] * d + *ps);
                }
            }
        });
}

/// Index range along axis `u` of E component `ec`'s samples that are updated
/// (off PEC walls and off periodic high planes).
fn e_range(m: &Model, ec: usize, u: usize) -> (usize, usize) {
    let n = m.grid.n[u];
    if u == ec {
        return (0, n);
    }
    let lo = match m.faces[2 * u] {
        FaceKind::Pec | FaceKind::Cpml => 1,
        _ => 0,
    };
    let hi = match m.faces[2 * u + 1] {
        FaceKind::Pmc => n + 1,
        _ => n,
    };
    (lo, hi)
}

/// CPML corrections to E for one layer (after the bulk E update).
pub fn correct_e(m: &Model, l: &CpmlLayer, f: &mut [Vec<f32>; 6], psi: &mut [Vec<f32>; 4]) {
    let a = l.axis;
    let (a1, a2) = ((a + 1) % 3, (a + 2) % 3);
    for (slot, tc, sc, sgn) in [(0, a1, a2, -1.0), (1, a2, a1, 1.0)] {
        let mut range = [0, 1, 2].map(|u| e_range(m, tc, u));
        range[a] = (l.e_first, l.e_first + l.e.len());
        run(
            m,
            l,
            f,
            &mut psi[slot],
            Pass {
                tc,
                sc: 3 + sc,
                sgn,
                prof: &l.e,
                first: l.e_first,
                range,
            },
        );
    }
}

/// CPML corrections to H for one layer (after the bulk H update).
pub fn correct_h(m: &Model, l: &CpmlLayer, f: &mut [Vec<f32>; 6], psi: &mut [Vec<f32>; 4]) {
    let a = l.axis;
    let n = m.grid.n;
    let (a1, a2) = ((a + 1) % 3, (a + 2) % 3);
    for (slot, tc, sc, sgn) in [(2, a1, a2, 1.0), (3, a2, a1, -1.0)] {
        // H_tc: integer along its own axis (0..=n), half-integer along the others (0..n).
        let mut range = [0, 1, 2].map(|u| if u == tc { (0, n[u] + 1) } else { (0, n[u]) });
        range[a] = (l.h_first, l.h_first + l.h.len());
        run(
            m,
            l,
            f,
            &mut psi[slot],
            Pass {
                tc: 3 + tc,
                sc,
                sgn,
                prof: &l.h,
                first: l.h_first,
                range,
            },
        );
    }
}

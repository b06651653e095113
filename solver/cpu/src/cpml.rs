//! CPML corrections on top of the bulk update, inside the layers only: the CPU's
//! execution of the schedule's [`CpmlPass`]es (ranges, signs and ψ arrays come from
//! there), one x-slab at a time.
//!
//! For a layer normal to axis `a`, with `a1 = a+1`, `a2 = a+2` (mod 3), the terms
//! of the curl that differentiate along `a` are (see `model::cpml` for b, a, κ):
//!
//! ```text
//! E_a1 += −cb·((1/κ−1)·∂a H_a2 + ψ),   E_a2 += +cb·((1/κ−1)·∂a H_a1 + ψ)
//! H_a1 += +db·((1/κ−1)·∂a E_a2 + ψ),   H_a2 += −db·((1/κ−1)·∂a E_a1 + ψ)
//! ψ ← b·ψ + a·∂a F   (updated before use)
//! ```
use fdtd_core::model::{Model, MIXED};
use fdtd_core::schedule::CpmlPass;

/// Apply pass `p` to x-slab `i` of its target: `tslab` is the target's slab `i`, `src`
/// a window of the source component starting at flat index `base` (it must hold the
/// stencil's neighbours), `pslab` the ψ array's slab for `i`. Called right after the
/// bulk update of the slab, while it is still in cache.
#[allow(clippy::too_many_arguments)]
pub fn correct_slab(m: &Model, p: &CpmlPass, i: usize, tslab: &mut [f32], src: &[f32], base: usize, pslab: &mut [f32]) {
    let [(x0, x1), (y0, y1), (z0, z1)] = p.range;
    if i < x0 || i >= x1 || z1 <= z0 || y1 <= y0 {
        return;
    }
    let l = &m.cpml[p.layer];
    let prof = if p.electric() { &l.e } else { &l.h };
    let g = &m.grid;
    let [sx, sy, _] = g.strides();
    let ny1 = g.dims()[1];
    let n = z1 - z0;
    let electric = p.electric();
    let flags = &m.rows[p.target][i * ny1..(i + 1) * ny1];
    let mat = &m.mat[p.target][..];
    let psy = p.psi_dims[2];
    // z layers: the profile runs along the row; hoist its slices out of the row loop.
    let pk0 = if p.axis == 2 { z0 - p.first } else { z0 };
    let zprof = (p.axis == 2).then(|| Varying(&prof.b[pk0..pk0 + n], &prof.a[pk0..pk0 + n], &prof.kinv[pk0..pk0 + n]));
    for j in y0..y1 {
        let r = i * sx + j * sy; // flat (i, j, 0)
        let rs = r - base; // the same sample in the source window
        let pj = if p.axis == 1 { j - p.first } else { j };
        let flag = flags[j];
        let coef = if flag != MIXED {
            RowCoef::Uniform(if electric {
                m.coefs.e[flag as usize][1]
            } else {
                m.coefs.h[flag as usize]
            })
        } else if electric {
            RowCoef::MixedE(&mat[r + z0..r + z1], &m.coefs.e)
        } else {
            RowCoef::MixedH(&mat[r + z0..r + z1], &m.coefs.h)
        };
        let t = &mut tslab[j * sy + z0..j * sy + z1];
        let s1 = &src[rs + z0 + p.hi_off..rs + z1 + p.hi_off];
        let s0 = &src[rs + z0 - p.lo_off..rs + z1 - p.lo_off];
        let ps = &mut pslab[pj * psy + pk0..pj * psy + pk0 + n];
        match &zprof {
            Some(pr) => row(t, s1, s0, ps, Varying(pr.0, pr.1, pr.2), p.inv, p.sign, coef),
            None => {
                let tt = if p.axis == 0 { i - p.first } else { j - p.first };
                let pr = Constant(prof.b[tt], prof.a[tt], prof.kinv[tt]);
                row(t, s1, s0, ps, pr, p.inv, p.sign, coef);
            }
        }
    }
}

/// CPML constants along one row: constant for x/y layers, varying with k for z layers.
trait RowProfile: Sized {
    fn at(&self, k: usize) -> (f32, f32, f32);
    /// Cut to `n` samples, so the row loop has no bounds checks and vectorises.
    fn truncate(self, _n: usize) -> Self {
        self
    }
}

struct Constant(f32, f32, f32);

impl RowProfile for Constant {
    #[inline(always)]
    fn at(&self, _: usize) -> (f32, f32, f32) {
        (self.0, self.1, self.2)
    }
}

struct Varying<'a>(&'a [f32], &'a [f32], &'a [f32]);

impl RowProfile for Varying<'_> {
    #[inline(always)]
    fn at(&self, k: usize) -> (f32, f32, f32) {
        (self.0[k], self.1[k], self.2[k])
    }
    fn truncate(self, n: usize) -> Self {
        Varying(&self.0[..n], &self.1[..n], &self.2[..n])
    }
}

/// The coefficient multiplying a row's correction (E: cb, H: db).
enum RowCoef<'a> {
    Uniform(f32),
    MixedE(&'a [u16], &'a [[f32; 2]]),
    MixedH(&'a [u16], &'a [f32]),
}

/// One row of corrections: `ψ ← b·ψ + a·d; t += sgn·coef·(kinv·d + ψ)` with
/// `d = (s1 − s0)·inv`. All slices start at the row's first updated sample.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn row<P: RowProfile>(
    t: &mut [f32],
    s1: &[f32],
    s0: &[f32],
    psi: &mut [f32],
    prof: P,
    inv: f32,
    sgn: f32,
    coef: RowCoef,
) {
    let n = t.len();
    let (s1, s0, psi) = (&s1[..n], &s0[..n], &mut psi[..n]);
    let prof = prof.truncate(n);
    let mut go = |c: &dyn Fn(usize) -> f32| {
        for k in 0..n {
            let (b, a, kinv) = prof.at(k);
            let d = (s1[k] - s0[k]) * inv;
            psi[k] = b * psi[k] + a * d;
            t[k] += sgn * c(k) * (kinv * d + psi[k]);
        }
    };
    match coef {
        RowCoef::Uniform(c) => {
            for k in 0..n {
                let (b, a, kinv) = prof.at(k);
                let d = (s1[k] - s0[k]) * inv;
                psi[k] = b * psi[k] + a * d;
                t[k] += sgn * c * (kinv * d + psi[k]);
            }
        }
        RowCoef::MixedE(mat, table) => go(&|k| table[mat[k] as usize][1]),
        RowCoef::MixedH(mat, table) => go(&|k| table[mat[k] as usize]),
    }
}

//! Bulk Yee updates over interior samples, parallel over x-slabs.
//!
//! Rows (fixed i, j) are contiguous in z. A row whose material index is uniform
//! ([`Model::rows`]) uses one coefficient and reads no indices, so the inner loop is
//! a pure stream that LLVM vectorises; mixed rows read the u16 index per sample.
use super::cpml::{self, Pass};
use crate::model::{Model, MIXED};
use rayon::prelude::*;

/// ψ slabs of one x-slab: `(pass index, ψ slab)` for every pass that touches it.
type SlabPsi<'a> = Vec<(usize, &'a mut [f32])>;

/// Split the ψ arrays of the passes with the given slots (0, 1: E; 2, 3: H) into
/// per-x-slab pieces, so each rayon task owns the ψ of its own slab.
fn slab_psi<'a>(m: &Model, passes: &[Pass], psi: &'a mut [[Vec<f32>; 4]], electric: bool) -> Vec<SlabPsi<'a>> {
    let mut out: Vec<SlabPsi> = (0..m.grid.dims()[0]).map(|_| Vec::new()).collect();
    for (li, layer) in psi.iter_mut().enumerate() {
        for (slot, arr) in layer.iter_mut().enumerate() {
            if (slot < 2) != electric {
                continue;
            }
            let pi = 4 * li + slot; // passes() emits 4 per layer, in slot order
            let p = &passes[pi];
            let (count, first) = p.psi_slabs(m);
            for (s, chunk) in arr.chunks_mut(p.psi_slab_len()).take(count).enumerate() {
                out[first + s].push((pi, chunk));
            }
        }
    }
    out
}

/// CPML corrections of x-slab `i` for every pass in `work` (fused into the bulk sweep
/// so the slab is still in cache).
#[inline]
fn correct_slab(m: &Model, passes: &[Pass], work: &mut SlabPsi, i: usize, t: &mut [&mut [f32]; 3], src: [&[f32]; 3]) {
    for (pi, ps) in work.iter_mut() {
        let p = &passes[*pi];
        cpml::correct_slab(m, p, i, t[p.tc % 3], src[p.sc % 3], ps);
    }
}

/// `out[k] -= coef(k) * ((a1[k] - a0[k]) * ia - (b1[k] - b0[k]) * ib)`: the shape of
/// every H component update (see the table in `update_h`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn h_row(
    out: &mut [f32],
    a1: &[f32],
    a0: &[f32],
    ia: f32,
    b1: &[f32],
    b0: &[f32],
    ib: f32,
    flag: u32,
    mat: &[u16],
    db: &[f32],
) {
    let n = out.len();
    let (a1, a0, b1, b0) = (&a1[..n], &a0[..n], &b1[..n], &b0[..n]);
    if flag != MIXED {
        let c = db[flag as usize];
        for k in 0..n {
            out[k] -= c * ((a1[k] - a0[k]) * ia - (b1[k] - b0[k]) * ib);
        }
    } else {
        let mat = &mat[..n];
        for k in 0..n {
            out[k] -= db[mat[k] as usize] * ((a1[k] - a0[k]) * ia - (b1[k] - b0[k]) * ib);
        }
    }
}

/// `out[k] = ca(k) * out[k] + cb(k) * ((a1[k] - a0[k]) * ia - (b1[k] - b0[k]) * ib)`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn e_row(
    out: &mut [f32],
    a1: &[f32],
    a0: &[f32],
    ia: f32,
    b1: &[f32],
    b0: &[f32],
    ib: f32,
    flag: u32,
    mat: &[u16],
    coef: &[[f32; 2]],
) {
    let n = out.len();
    let (a1, a0, b1, b0) = (&a1[..n], &a0[..n], &b1[..n], &b0[..n]);
    if flag != MIXED {
        let [ca, cb] = coef[flag as usize];
        for k in 0..n {
            out[k] = ca * out[k] + cb * ((a1[k] - a0[k]) * ia - (b1[k] - b0[k]) * ib);
        }
    } else {
        let mat = &mat[..n];
        for k in 0..n {
            let [ca, cb] = coef[mat[k] as usize];
            out[k] = ca * out[k] + cb * ((a1[k] - a0[k]) * ia - (b1[k] - b0[k]) * ib);
        }
    }
}

/// H^{n+½} from E^n on every H sample that has all its E neighbours:
///
/// ```text
/// Hx[i,j,k] -= db·((Ez[i,j+1,k]-Ez[i,j,k])/dy - (Ey[i,j,k+1]-Ey[i,j,k])/dz)  i≤nx, j<ny, k<nz
/// Hy[i,j,k] -= db·((Ex[i,j,k+1]-Ex[i,j,k])/dz - (Ez[i+1,j,k]-Ez[i,j,k])/dx)  i<nx, j≤ny, k<nz
/// Hz[i,j,k] -= db·((Ey[i+1,j,k]-Ey[i,j,k])/dx - (Ex[i,j+1,k]-Ex[i,j,k])/dy)  i<nx, j<ny, k≤nz
/// ```
pub fn update_h(m: &Model, passes: &[Pass], f: &mut [Vec<f32>; 6], psi: &mut [[Vec<f32>; 4]]) {
    let work = slab_psi(m, passes, psi, false);
    let g = &m.grid;
    let [nx, ny, nz] = g.n;
    let [sx, sy, _] = g.strides();
    let [idx, idy, idz] = g.inv_d();
    let db = &m.coefs.h[..];
    let (e, h) = f.split_at_mut(3);
    let (ex, ey, ez) = (&e[0][..], &e[1][..], &e[2][..]);
    let [hx, hy, hz] = h else { unreachable!() };
    let (mx, my, mz) = (&m.mat[3], &m.mat[4], &m.mat[5]);
    let (rx, ry, rz) = (&m.rows[3], &m.rows[4], &m.rows[5]);
    hx.par_chunks_mut(sx)
        .zip(hy.par_chunks_mut(sx))
        .zip(hz.par_chunks_mut(sx))
        .zip(work)
        .enumerate()
        .for_each(|(i, (((hx, hy), hz), mut work))| {
            let s = i * sx;
            for j in 0..=ny {
                let r = s + j * sy; // flat index of (i, j, 0)
                let row = i * (ny + 1) + j;
                if j < ny {
                    h_row(
                        &mut hx[j * sy..j * sy + nz],
                        &ez[r + sy..],
                        &ez[r..],
                        idy,
                        &ey[r + 1..],
                        &ey[r..],
                        idz,
                        rx[row],
                        &mx[r..],
                        db,
                    );
                }
                if i < nx {
                    h_row(
                        &mut hy[j * sy..j * sy + nz],
                        &ex[r + 1..],
                        &ex[r..],
                        idz,
                        &ez[r + sx..],
                        &ez[r..],
                        idx,
                        ry[row],
                        &my[r..],
                        db,
                    );
                    if j < ny {
                        h_row(
                            &mut hz[j * sy..j * sy + nz + 1],
                            &ey[r + sx..],
                            &ey[r..],
                            idx,
                            &ex[r + sy..],
                            &ex[r..],
                            idy,
                            rz[row],
                            &mz[r..],
                            db,
                        );
                    }
                }
            }
            correct_slab(m, passes, &mut work, i, &mut [hx, hy, hz], [ex, ey, ez]);
        });
}

/// E^{n+1} from H^{n+½} on interior samples (those off every face plane they are
/// tangential to); face planes are done in [`super::boundary`]:
///
/// ```text
/// Ex[i,j,k] = ca·Ex + cb·((Hz[i,j,k]-Hz[i,j-1,k])/dy - (Hy[i,j,k]-Hy[i,j,k-1])/dz)  i<nx, 0<j<ny, 0<k<nz
/// Ey[i,j,k] = ca·Ey + cb·((Hx[i,j,k]-Hx[i,j,k-1])/dz - (Hz[i,j,k]-Hz[i-1,j,k])/dx)  0<i<nx, j<ny, 0<k<nz
/// Ez[i,j,k] = ca·Ez + cb·((Hy[i,j,k]-Hy[i-1,j,k])/dx - (Hx[i,j,k]-Hx[i,j-1,k])/dy)  0<i<nx, 0<j<ny, k<nz
/// ```
pub fn update_e(m: &Model, passes: &[Pass], f: &mut [Vec<f32>; 6], psi: &mut [[Vec<f32>; 4]]) {
    let work = slab_psi(m, passes, psi, true);
    let g = &m.grid;
    let [nx, ny, nz] = g.n;
    let [sx, sy, _] = g.strides();
    let [idx, idy, idz] = g.inv_d();
    let coef = &m.coefs.e[..];
    let (e, h) = f.split_at_mut(3);
    let (hx, hy, hz) = (&h[0][..], &h[1][..], &h[2][..]);
    let [ex, ey, ez] = e else { unreachable!() };
    let (mx, my, mz) = (&m.mat[0], &m.mat[1], &m.mat[2]);
    let (rx, ry, rz) = (&m.rows[0], &m.rows[1], &m.rows[2]);
    ex.par_chunks_mut(sx)
        .zip(ey.par_chunks_mut(sx))
        .zip(ez.par_chunks_mut(sx))
        .zip(work)
        .enumerate()
        .for_each(|(i, (((ex, ey), ez), mut work))| {
            let s = i * sx;
            for j in 0..=ny {
                let r = s + j * sy;
                let row = i * (ny + 1) + j;
                if i < nx && j > 0 && j < ny && nz > 1 {
                    // k in 1..nz
                    e_row(
                        &mut ex[j * sy + 1..j * sy + nz],
                        &hz[r + 1..],
                        &hz[r + 1 - sy..],
                        idy,
                        &hy[r + 1..],
                        &hy[r..],
                        idz,
                        rx[row],
                        &mx[r + 1..],
                        coef,
                    );
                }
                if i > 0 && i < nx && j < ny && nz > 1 {
                    e_row(
                        &mut ey[j * sy + 1..j * sy + nz],
                        &hx[r + 1..],
                        &hx[r..],
                        idz,
                        &hz[r + 1..],
                        &hz[r + 1 - sx..],
                        idx,
                        ry[row],
                        &my[r + 1..],
                        coef,
                    );
                }
                if i > 0 && i < nx && j > 0 && j < ny {
                    e_row(
                        &mut ez[j * sy..j * sy + nz],
                        &hy[r..],
                        &hy[r - sx..],
                        idx,
                        &hx[r..],
                        &hx[r - sy..],
                        idy,
                        rz[row],
                        &mz[r..],
                        coef,
                    );
                }
            }
            correct_slab(m, passes, &mut work, i, &mut [ex, ey, ez], [hx, hy, hz]);
        });
}

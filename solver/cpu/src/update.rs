//! Bulk Yee updates of one x-slab (the sweep in [`super::sweep`] schedules them).
//!
//! Rows (fixed i, j) are contiguous in z. A row whose material index is uniform
//! ([`Model::rows`]) uses one coefficient and reads no indices, so the inner loop is
//! a pure stream that LLVM vectorises; mixed rows read the u16 index per sample.
use fdtd_core::model::{Model, MIXED};

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

/// H^{n+½} from E^n in x-slab `i`, on every H sample that has all its E neighbours:
///
/// ```text
/// Hx[i,j,k] -= db·((Ez[i,j+1,k]-Ez[i,j,k])/dy - (Ey[i,j,k+1]-Ey[i,j,k])/dz)  i≤nx, j<ny, k<nz
/// Hy[i,j,k] -= db·((Ex[i,j,k+1]-Ex[i,j,k])/dz - (Ez[i+1,j,k]-Ez[i,j,k])/dx)  i<nx, j≤ny, k<nz
/// Hz[i,j,k] -= db·((Ey[i+1,j,k]-Ey[i,j,k])/dx - (Ex[i,j+1,k]-Ex[i,j,k])/dy)  i<nx, j<ny, k≤nz
/// ```
///
/// `h` are the slab's H components; `e` are windows of the E components starting at
/// slab `i` (slabs `i` and `i + 1`, or just `i` for the last slab).
pub fn h_slab(m: &Model, i: usize, h: [&mut [f32]; 3], e: [&[f32]; 3]) {
    let g = &m.grid;
    let [nx, ny, nz] = g.n;
    let [sx, sy, _] = g.strides();
    let [idx, idy, idz] = g.inv_d();
    let db = &m.coefs.h[..];
    let [hx, hy, hz] = h;
    let [ex, ey, ez] = e;
    let (mx, my, mz) = (&m.mat[3], &m.mat[4], &m.mat[5]);
    let (rx, ry, rz) = (&m.rows[3], &m.rows[4], &m.rows[5]);
    let s = i * sx;
    for j in 0..=ny {
        let r = j * sy; // (i, j, 0) relative to the slab
        let row = i * (ny + 1) + j;
        if j < ny {
            h_row(
                &mut hx[r..r + nz],
                &ez[r + sy..],
                &ez[r..],
                idy,
                &ey[r + 1..],
                &ey[r..],
                idz,
                rx[row],
                &mx[s + r..],
                db,
            );
        }
        if i < nx {
            h_row(
                &mut hy[r..r + nz],
                &ex[r + 1..],
                &ex[r..],
                idz,
                &ez[r + sx..],
                &ez[r..],
                idx,
                ry[row],
                &my[s + r..],
                db,
            );
            if j < ny {
                h_row(
                    &mut hz[r..r + nz + 1],
                    &ey[r + sx..],
                    &ey[r..],
                    idx,
                    &ex[r + sy..],
                    &ex[r..],
                    idy,
                    rz[row],
                    &mz[s + r..],
                    db,
                );
            }
        }
    }
}

/// E^{n+1} from H^{n+½} in x-slab `i`, on interior samples (those off every face
/// plane they are tangential to; face planes are in [`super::boundary`]):
///
/// ```text
/// Ex[i,j,k] = ca·Ex + cb·((Hz[i,j,k]-Hz[i,j-1,k])/dy - (Hy[i,j,k]-Hy[i,j,k-1])/dz)  i<nx, 0<j<ny, 0<k<nz
/// Ey[i,j,k] = ca·Ey + cb·((Hx[i,j,k]-Hx[i,j,k-1])/dz - (Hz[i,j,k]-Hz[i-1,j,k])/dx)  0<i<nx, j<ny, 0<k<nz
/// Ez[i,j,k] = ca·Ez + cb·((Hy[i,j,k]-Hy[i-1,j,k])/dx - (Hx[i,j,k]-Hx[i,j-1,k])/dy)  0<i<nx, 0<j<ny, k<nz
/// ```
///
/// `e` are the slab's E components; `h` are windows of the H components starting at
/// slab `i − 1` (slabs `i − 1` and `i`), or at slab 0 for `i = 0`.
pub fn e_slab(m: &Model, i: usize, e: [&mut [f32]; 3], h: [&[f32]; 3]) {
    let g = &m.grid;
    let [nx, ny, nz] = g.n;
    let [sx, sy, _] = g.strides();
    let [idx, idy, idz] = g.inv_d();
    let coef = &m.coefs.e[..];
    let [ex, ey, ez] = e;
    let [hx, hy, hz] = h;
    let (mx, my, mz) = (&m.mat[0], &m.mat[1], &m.mat[2]);
    let (rx, ry, rz) = (&m.rows[0], &m.rows[1], &m.rows[2]);
    let s = i * sx;
    // Offset of slab i inside the H windows.
    let w = if i > 0 { sx } else { 0 };
    for j in 0..=ny {
        let r = j * sy; // (i, j, 0) relative to the slab
        let hr = w + r; // the same sample in the H windows
        let row = i * (ny + 1) + j;
        if i < nx && j > 0 && j < ny && nz > 1 {
            // k in 1..nz
            e_row(
                &mut ex[r + 1..r + nz],
                &hz[hr + 1..],
                &hz[hr + 1 - sy..],
                idy,
                &hy[hr + 1..],
                &hy[hr..],
                idz,
                rx[row],
                &mx[s + r + 1..],
                coef,
            );
        }
        if i > 0 && i < nx && j < ny && nz > 1 {
            e_row(
                &mut ey[r + 1..r + nz],
                &hx[hr + 1..],
                &hx[hr..],
                idz,
                &hz[hr + 1..],
                &hz[hr + 1 - sx..],
                idx,
                ry[row],
                &my[s + r + 1..],
                coef,
            );
        }
        if i > 0 && i < nx && j > 0 && j < ny {
            e_row(
                &mut ez[r..r + nz],
                &hy[hr..],
                &hy[hr - sx..],
                idx,
                &hx[hr..],
                &hx[hr - sy..],
                idy,
                rz[row],
                &mz[s + r..],
                coef,
            );
        }
    }
}

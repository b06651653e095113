//! E samples on the domain's face planes, and periodic copies.
//!
//! An E component is tangential to the four faces normal to its two other axes.
//! On PEC faces (and on the PEC wall behind a CPML) those samples stay zero. On PMC
//! and periodic faces they are updated like interior samples, with the missing H
//! neighbour across the face taken from the face's image rule:
//!
//! * PMC: tangential H is odd about the wall, `H[-1] = −H[0]`, `H[n] = −H[n−1]`;
//! * periodic: `H[-1] = H[n−1]`; the high plane `E[n]` is a copy of `E[0]`
//!   ([`periodic_copies`]), so only the low plane is computed.
//!
//! These planes are O(N²) and only exist for PMC/periodic faces, so this code is
//! written for clarity, not speed. The sweep calls it per x-slab.
use fdtd_core::model::FaceKind;
use fdtd_core::simulation::Simulation;

/// Face rule for an H index `q` along `axis` that may be −1 or n: the in-range index
/// and the sign to apply, or None for a zero contribution.
fn image(m: &Simulation, axis: usize, q: isize) -> Option<(usize, f32)> {
    let n = m.grid.n[axis] as isize;
    if q >= 0 && q < n {
        return Some((q as usize, 1.0));
    }
    let face = m.faces[2 * axis + (q >= n) as usize];
    match face {
        FaceKind::Periodic => Some((q.rem_euclid(n) as usize, 1.0)),
        FaceKind::Pmc => Some((if q < 0 { -q - 1 } else { 2 * n - 1 - q } as usize, -1.0)),
        FaceKind::Pec | FaceKind::Cpml => None,
    }
}

/// H component with axis `hc` at possibly out-of-range `q` (only along its staggered
/// axes); `h(axis, flat)` reads the H arrays.
fn h_at(m: &Simulation, h: &dyn Fn(usize, usize) -> f32, hc: usize, q: [isize; 3]) -> f32 {
    let mut idx = [0usize; 3];
    let mut sign = 1.0;
    for a in 0..3 {
        if a == hc {
            idx[a] = q[a] as usize;
        } else {
            match image(m, a, q[a]) {
                Some((i, s)) => {
                    idx[a] = i;
                    sign *= s;
                }
                None => return 0.0,
            }
        }
    }
    sign * h(hc, m.grid.idx(idx[0], idx[1], idx[2]))
}

/// Update E component `a` at face-plane sample `p` (in x-slab `e`), if its faces ask for it.
fn face_sample(m: &Simulation, e: &mut [f32], h: &dyn Fn(usize, usize) -> f32, a: usize, p: [usize; 3]) {
    let n = m.grid.n;
    let (b, c) = ((a + 1) % 3, (a + 2) % 3);
    for t in [b, c] {
        for high in [false, true] {
            if p[t] == if high { n[t] } else { 0 } {
                match m.faces[2 * t + high as usize] {
                    FaceKind::Pec | FaceKind::Cpml => return,
                    FaceKind::Periodic if high => return,
                    _ => {}
                }
            }
        }
    }
    let inv = m.grid.inv_d();
    let q = p.map(|x| x as isize);
    let mut qb = q;
    qb[b] -= 1;
    let mut qc = q;
    qc[c] -= 1;
    // Same expression and order as the bulk kernel.
    let curl = (h_at(m, h, c, q) - h_at(m, h, c, qb)) * inv[b] - (h_at(m, h, b, q) - h_at(m, h, b, qc)) * inv[c];
    let flat = m.grid.idx(p[0], p[1], p[2]);
    let [ca, cb] = m.coefs.e[m.mat[a][flat] as usize];
    let x = &mut e[flat - p[0] * m.grid.strides()[0]];
    *x = ca * *x + cb * curl;
}

/// Update E on the schedule's PMC and periodic face planes within x-slab `i` (before
/// the slab's bulk E update and CPML corrections). `e` are the slab's E components.
pub fn faces_slab(m: &Simulation, i: usize, e: &mut [&mut [f32]; 3], h: &dyn Fn(usize, usize) -> f32) {
    for fp in &m.schedule.faces {
        let r = fp.range;
        let (x0, x1) = (r[0].0.max(i), r[0].1.min(i + 1));
        for p0 in x0..x1 {
            for p1 in r[1].0..r[1].1 {
                for p2 in r[2].0..r[2].1 {
                    face_sample(m, e[fp.comp], h, fp.comp, [p0, p1, p2]);
                }
            }
        }
    }
}

/// The schedule's periodic copies: E on the low plane of each periodic axis onto its
/// high plane.
pub fn periodic_copies(m: &Simulation, f: &mut [Vec<f32>]) {
    let g = &m.grid;
    let [nx, ny, nz] = g.n;
    let [sx, sy, _] = g.strides();
    for copy in &m.schedule.copies {
        let axis = copy.axis;
        for comp in copy.components {
            let e = &mut f[comp];
            match axis {
                0 => e.copy_within(0..sx, nx * sx),
                1 => {
                    for i in 0..=nx {
                        e.copy_within(i * sx..i * sx + sy, i * sx + ny * sy);
                    }
                }
                _ => {
                    for r in 0..(nx + 1) * (ny + 1) {
                        e[r * sy + nz] = e[r * sy];
                    }
                }
            }
        }
    }
}

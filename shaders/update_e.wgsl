// E^{n+1} from H^{n+1/2} on interior samples (those off every face plane they are
// tangential to), with the CPML corrections to E fused in. Mirrors the CPU backend
// (crate fdtd-cpu, solver/cpu/src/): `update.rs::e_slab` followed by
// `cpml.rs::correct_slab` for the E passes (same ranges, same float expression order):
//
//   Ex[i,j,k] = ca*Ex + cb*((Hz[i,j,k]-Hz[i,j-1,k])/dy - (Hy[i,j,k]-Hy[i,j,k-1])/dz)  i<nx, 0<j<ny, 0<k<nz
//   Ey[i,j,k] = ca*Ey + cb*((Hx[i,j,k]-Hx[i,j,k-1])/dz - (Hz[i,j,k]-Hz[i-1,j,k])/dx)  0<i<nx, j<ny, 0<k<nz
//   Ez[i,j,k] = ca*Ez + cb*((Hy[i,j,k]-Hy[i-1,j,k])/dx - (Hx[i,j,k]-Hx[i,j-1,k])/dy)  0<i<nx, 0<j<ny, k<nz
//
// then, for a sample inside the CPML layer normal to axis a and inside the box of
// samples the CPML corrects (`g.lo`/`g.hi`: `cpml.rs::e_range`, which also holds PMC
// and periodic face-plane samples), layers in model order (x, y, z):
//
//   psi = b[t]*psi + a[t]*d;   E += sgn*cb*((1/kappa - 1)[t]*d + psi)
//
// with d the derivative of H along a, and the psi slot and sgn the schedule's
// (CpmlPass::slot, sign: Grid::cpml_slot, cpml_sign; `correct` in cpml.wgsl). Face-plane samples (PMC, periodic) are updated by
// `boundary.wgsl::update_e_faces`, which runs before this kernel (as the CPU does the
// faces first), so here they only receive their CPML corrections.
//
// Local index (i - i0 + 1)*sx + j*sy + k as in update_h.wgsl; the ghost plane i0-1
// holds a copy of H there (Hy, Hz), so `l - sx` is valid for every owned plane. Every
// load comes first, as in update_h.wgsl. Declared in prelude.wgsl and cpml.wgsl as for
// update_h.wgsl.

override WG_X: u32 = 128u;
override WG_Y: u32 = 1u;

@group(0) @binding(0) var<uniform> g: Grid;
@group(0) @binding(1) var<storage, read_write> ex: array<f32>;
@group(0) @binding(2) var<storage, read_write> ey: array<f32>;
@group(0) @binding(3) var<storage, read_write> ez: array<f32>;
@group(0) @binding(4) var<storage, read> hx: array<f32>;
@group(0) @binding(5) var<storage, read> hy: array<f32>;
@group(0) @binding(6) var<storage, read> hz: array<f32>;
@group(0) @binding(7) var<storage, read> mat_ex: array<u32>;
@group(0) @binding(8) var<storage, read> mat_ey: array<u32>;
@group(0) @binding(9) var<storage, read> mat_ez: array<u32>;
// Uniform-row flags of Ex, Ey, Ez for the owned planes: [component][(i - i0)*(ny+1) + j].
@group(0) @binding(10) var<storage, read> rows: array<u32>;
// [ca, cb] per E material (coefs.e), then the layers' E profiles.
@group(0) @binding(11) var<storage, read> tab: array<f32>;
// CPML psi of the E passes: slot 0 (E_{a+1}) and slot 1 (E_{a+2}) of every layer.
@group(0) @binding(12) var<storage, read_write> psi0: array<f32>;
@group(0) @binding(13) var<storage, read_write> psi1: array<f32>;

// Whether (i, j, k) is in the CPML box of E component c.
fn in_box(c: u32, p: vec3<u32>) -> bool {
    return all(p >= g.lo[c].xyz) && all(p < g.hi[c].xyz);
}

@compute @workgroup_size(WG_X, WG_Y, 1)
fn update_e(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    let j = gid.y;
    let li = gid.z;
    if (k > g.nz || j > g.ny || li >= g.planes) {
        return;
    }
    let i = g.i0 + li;
    let l = (li + 1u) * g.sx + j * g.sy + k;
    let row = li * (g.ny + 1u) + j;
    let nrow = g.planes * (g.ny + 1u);

    // Loads: fields, row flags, and the psi of the layers holding the sample.
    let la = find(0u, i);
    let lb = find(1u, j);
    let lc = find(2u, k);
    let qa = prep(la, 0u, i, j, k);
    let qb = prep(lb, 1u, i, j, k);
    let qc = prep(lc, 2u, i, j, k);
    let fx = rows[row];
    let fy = rows[nrow + row];
    let fz = rows[2u * nrow + row];
    let hx0 = hx[l];
    let hx_k = hx[l - 1u];
    let hx_j = hx[l - g.sy];
    let hy0 = hy[l];
    let hy_k = hy[l - 1u];
    let hy_i = hy[l - g.sx];
    let hz0 = hz[l];
    let hz_j = hz[l - g.sy];
    let hz_i = hz[l - g.sx];
    var vx = ex[l];
    var vy = ey[l];
    var vz = ez[l];

    let dy_hz = (hz0 - hz_j) * g.inv_dy;
    let dz_hy = (hy0 - hy_k) * g.inv_dz;
    let dz_hx = (hx0 - hx_k) * g.inv_dz;
    let dx_hz = (hz0 - hz_i) * g.inv_dx;
    let dx_hy = (hy0 - hy_i) * g.inv_dx;
    let dy_hx = (hx0 - hx_j) * g.inv_dy;

    let j_in = j > 0u && j < g.ny;
    let i_in = i > 0u && i < g.nx;
    let k_in = k > 0u && k < g.nz;
    let p = vec3<u32>(i, j, k);

    // Ex: bulk i < nx, 0 < j < ny, 0 < k < nz; CPML: y layers, then z layers.
    let bx = i < g.nx && j_in && k_in;
    let cx = (lb != NONE || lc != NONE) && in_box(0u, p);
    if (bx || cx) {
        var m = fx;
        if (fx == MIXED) {
            m = half(mat_ex[l >> 1u], l);
        }
        let ca = tab[2u * m];
        let cb = tab[2u * m + 1u];
        if (bx) {
            vx = ca * vx + cb * (dy_hz - dz_hy);
        }
        if (cx) {
            if (lb != NONE) {
                vx = vx + correct(lb, 1u, 0u, qb, dy_hz, cb, i, j, k);
            }
            if (lc != NONE) {
                vx = vx + correct(lc, 2u, 0u, qc, dz_hy, cb, i, j, k);
            }
        }
        ex[l] = vx;
    }
    // Ey: bulk 0 < i < nx, j < ny, 0 < k < nz; CPML: x layers, then z layers.
    let by = i_in && j < g.ny && k_in;
    let cy = (la != NONE || lc != NONE) && in_box(1u, p);
    if (by || cy) {
        var m = fy;
        if (fy == MIXED) {
            m = half(mat_ey[l >> 1u], l);
        }
        let ca = tab[2u * m];
        let cb = tab[2u * m + 1u];
        if (by) {
            vy = ca * vy + cb * (dz_hx - dx_hz);
        }
        if (cy) {
            if (la != NONE) {
                vy = vy + correct(la, 0u, 1u, qa, dx_hz, cb, i, j, k);
            }
            if (lc != NONE) {
                vy = vy + correct(lc, 2u, 1u, qc, dz_hx, cb, i, j, k);
            }
        }
        ey[l] = vy;
    }
    // Ez: bulk 0 < i < nx, 0 < j < ny, k < nz; CPML: x layers, then y layers.
    let bz = i_in && j_in && k < g.nz;
    let cz = (la != NONE || lb != NONE) && in_box(2u, p);
    if (bz || cz) {
        var m = fz;
        if (fz == MIXED) {
            m = half(mat_ez[l >> 1u], l);
        }
        let ca = tab[2u * m];
        let cb = tab[2u * m + 1u];
        if (bz) {
            vz = ca * vz + cb * (dx_hy - dy_hx);
        }
        if (cz) {
            if (la != NONE) {
                vz = vz + correct(la, 0u, 2u, qa, dx_hy, cb, i, j, k);
            }
            if (lb != NONE) {
                vz = vz + correct(lb, 1u, 2u, qb, dy_hx, cb, i, j, k);
            }
        }
        ez[l] = vz;
    }
}

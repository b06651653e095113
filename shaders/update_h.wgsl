// H^{n+1/2} from E^n on every H sample that has all its E neighbours, with the CPML
// corrections to H fused in. Mirrors the CPU backend (crate fdtd-cpu, solver/cpu/src/):
// `update.rs::h_slab` followed by `cpml.rs::correct_slab` for the H passes (same
// ranges, same float expression order):
//
//   Hx[i,j,k] -= db*((Ez[i,j+1,k]-Ez[i,j,k])/dy - (Ey[i,j,k+1]-Ey[i,j,k])/dz)  i<=nx, j<ny, k<nz
//   Hy[i,j,k] -= db*((Ex[i,j,k+1]-Ex[i,j,k])/dz - (Ez[i+1,j,k]-Ez[i,j,k])/dx)  i<nx, j<=ny, k<nz
//   Hz[i,j,k] -= db*((Ey[i+1,j,k]-Ey[i,j,k])/dx - (Ex[i,j+1,k]-Ex[i,j,k])/dy)  i<nx, j<ny, k<=nz
//
// then, for a sample inside the CPML layer normal to axis a (layers in model order,
// x before y before z; at most one layer per axis holds a sample), with d the
// derivative along a that the bulk update just used:
//
//   psi = b[t]*psi + a[t]*d;   H += sgn*db*((1/kappa - 1)[t]*d + psi)
//
// with the psi slot and sgn the schedule's (CpmlPass::slot, sign: Grid::cpml_slot,
// cpml_sign; `correct` in cpml.wgsl), t the sample's index along a minus the layer's
// first H index. The layers' H ranges lie inside the bulk
// ranges above, so every corrected sample is a bulk sample of the same thread.
//
// Memory layout (see solver/gpu/src/layout.rs): the grid is cut into slabs ("pieces") of
// whole x planes. A piece's field buffer holds its owned planes i0 .. i0+planes-1 plus
// one ghost plane on each side, so global (i, j, k) is at local index
// (i - i0 + 1)*sx + j*sy + k. The ghost plane i0+planes holds a copy of E there.
//
// One invocation per (k, j, i): k along the workgroup's x axis (contiguous in memory),
// so a workgroup of WG_X x 1 threads lies on one (i, j) row and the row's material
// flag is uniform across it. Every load from memory comes first: the fields
// unconditionally (all indices stay inside the piece's buffer, ghosts included) and,
// for a sample inside CPML layers, both psi of each layer; so each thread waits for
// memory once instead of once per component and once more per CPML correction. On the
// H200, loads inside the per-component branches made this kernel 24 % slower, and
// correcting after a second wait for psi cost 19 % over the bulk update alone (now
// 8 %). The small profile tables (cached) are read where they are used: loading them
// early as well kept more registers live and made update_e 14 % slower.

// Declared in prelude.wgsl (prepended): Grid, Layer, MIXED, half; in cpml.wgsl (between
// the two): NONE, Cpml, find, at, prep, correct.

override WG_X: u32 = 128u;
override WG_Y: u32 = 1u;

@group(0) @binding(0) var<uniform> g: Grid;
@group(0) @binding(1) var<storage, read> ex: array<f32>;
@group(0) @binding(2) var<storage, read> ey: array<f32>;
@group(0) @binding(3) var<storage, read> ez: array<f32>;
@group(0) @binding(4) var<storage, read_write> hx: array<f32>;
@group(0) @binding(5) var<storage, read_write> hy: array<f32>;
@group(0) @binding(6) var<storage, read_write> hz: array<f32>;
// Material indices (u16, two per word, same local index as the fields).
@group(0) @binding(7) var<storage, read> mat_hx: array<u32>;
@group(0) @binding(8) var<storage, read> mat_hy: array<u32>;
@group(0) @binding(9) var<storage, read> mat_hz: array<u32>;
// Uniform-row flags of Hx, Hy, Hz for the owned planes: [component][(i - i0)*(ny+1) + j].
@group(0) @binding(10) var<storage, read> rows: array<u32>;
// db per H material (coefs.h), then the layers' H profiles.
@group(0) @binding(11) var<storage, read> tab: array<f32>;
// CPML psi of the H passes: slot 2 (H_{a+1}) and slot 3 (H_{a+2}) of every layer.
@group(0) @binding(12) var<storage, read_write> psi0: array<f32>;
@group(0) @binding(13) var<storage, read_write> psi1: array<f32>;

@compute @workgroup_size(WG_X, WG_Y, 1)
fn update_h(@builtin(global_invocation_id) gid: vec3<u32>) {
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
    let ex0 = ex[l];
    let ex_k = ex[l + 1u];
    let ex_j = ex[l + g.sy];
    let ey0 = ey[l];
    let ey_k = ey[l + 1u];
    let ey_i = ey[l + g.sx];
    let ez0 = ez[l];
    let ez_j = ez[l + g.sy];
    let ez_i = ez[l + g.sx];
    var vx = hx[l];
    var vy = hy[l];
    var vz = hz[l];

    // Derivatives, as the CPU computes them (CPML corrections reuse them).
    let dy_ez = (ez_j - ez0) * g.inv_dy;
    let dz_ey = (ey_k - ey0) * g.inv_dz;
    let dz_ex = (ex_k - ex0) * g.inv_dz;
    let dx_ez = (ez_i - ez0) * g.inv_dx;
    let dx_ey = (ey_i - ey0) * g.inv_dx;
    let dy_ex = (ex_j - ex0) * g.inv_dy;

    // Hx: i <= nx, j < ny, k < nz; CPML: y layers, then z layers.
    if (j < g.ny && k < g.nz) {
        var m = fx;
        if (fx == MIXED) {
            m = half(mat_hx[l >> 1u], l);
        }
        let c = tab[m];
        vx = vx - c * (dy_ez - dz_ey);
        if (lb != NONE) {
            vx = vx + correct(lb, 1u, 0u, qb, dy_ez, c, i, j, k);
        }
        if (lc != NONE) {
            vx = vx + correct(lc, 2u, 0u, qc, dz_ey, c, i, j, k);
        }
        hx[l] = vx;
    }
    if (i < g.nx) {
        // Hy: i < nx, j <= ny, k < nz; CPML: x layers, then z layers.
        if (k < g.nz) {
            var m = fy;
            if (fy == MIXED) {
                m = half(mat_hy[l >> 1u], l);
            }
            let c = tab[m];
            vy = vy - c * (dz_ex - dx_ez);
            if (la != NONE) {
                vy = vy + correct(la, 0u, 1u, qa, dx_ez, c, i, j, k);
            }
            if (lc != NONE) {
                vy = vy + correct(lc, 2u, 1u, qc, dz_ex, c, i, j, k);
            }
            hy[l] = vy;
        }
        // Hz: i < nx, j < ny, k <= nz; CPML: x layers, then y layers.
        if (j < g.ny) {
            var m = fz;
            if (fz == MIXED) {
                m = half(mat_hz[l >> 1u], l);
            }
            let c = tab[m];
            vz = vz - c * (dx_ey - dy_ex);
            if (la != NONE) {
                vz = vz + correct(la, 0u, 2u, qa, dx_ey, c, i, j, k);
            }
            if (lb != NONE) {
                vz = vz + correct(lb, 1u, 2u, qb, dy_ex, c, i, j, k);
            }
            hz[l] = vz;
        }
    }
}

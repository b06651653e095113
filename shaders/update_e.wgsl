// E^{n+1} from H^{n+1/2} on interior samples (those off every face plane they are
// tangential to). Mirrors `backend/cpu/update.rs::update_e` (same ranges, same float
// expression order); face planes are done by `boundary.wgsl::update_e_faces`:
//
//   Ex[i,j,k] = ca*Ex + cb*((Hz[i,j,k]-Hz[i,j-1,k])/dy - (Hy[i,j,k]-Hy[i,j,k-1])/dz)  i<nx, 0<j<ny, 0<k<nz
//   Ey[i,j,k] = ca*Ey + cb*((Hx[i,j,k]-Hx[i,j,k-1])/dz - (Hz[i,j,k]-Hz[i-1,j,k])/dx)  0<i<nx, j<ny, 0<k<nz
//   Ez[i,j,k] = ca*Ez + cb*((Hy[i,j,k]-Hy[i-1,j,k])/dx - (Hx[i,j,k]-Hx[i,j-1,k])/dy)  0<i<nx, 0<j<ny, k<nz
//
// Local index (i - i0 + 1)*sx + j*sy + k as in update_h.wgsl; the ghost plane i0-1
// holds a copy of H there (Hy, Hz), so `l - sx` is valid for every owned plane.

override WG_X: u32 = 128u;
override WG_Y: u32 = 1u;

const MIXED: u32 = 0xffffffffu;

struct Grid {
    nx: u32,
    ny: u32,
    nz: u32,
    i0: u32,
    planes: u32,
    sx: u32,
    sy: u32,
    _pad0: u32,
    inv_dx: f32,
    inv_dy: f32,
    inv_dz: f32,
    _pad1: f32,
}

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
// [ca, cb] per E material (coefs.e).
@group(0) @binding(11) var<storage, read> coef: array<vec2<f32>>;

fn half(word: u32, l: u32) -> u32 {
    return (word >> ((l & 1u) * 16u)) & 0xffffu;
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
    let j_in = j > 0u && j < g.ny;
    let i_in = i > 0u && i < g.nx;
    let k_in = k > 0u && k < g.nz;

    // Ex: i < nx, 0 < j < ny, 0 < k < nz.
    if (i < g.nx && j_in && k_in) {
        let f = rows[row];
        var c: vec2<f32>;
        if (f != MIXED) {
            c = coef[f];
        } else {
            c = coef[half(mat_ex[l >> 1u], l)];
        }
        ex[l] = c.x * ex[l] + c.y * ((hz[l] - hz[l - g.sy]) * g.inv_dy - (hy[l] - hy[l - 1u]) * g.inv_dz);
    }
    if (i_in) {
        // Ey: 0 < i < nx, j < ny, 0 < k < nz.
        if (j < g.ny && k_in) {
            let f = rows[nrow + row];
            var c: vec2<f32>;
            if (f != MIXED) {
                c = coef[f];
            } else {
                c = coef[half(mat_ey[l >> 1u], l)];
            }
            ey[l] = c.x * ey[l] + c.y * ((hx[l] - hx[l - 1u]) * g.inv_dz - (hz[l] - hz[l - g.sx]) * g.inv_dx);
        }
        // Ez: 0 < i < nx, 0 < j < ny, k < nz.
        if (j_in && k < g.nz) {
            let f = rows[2u * nrow + row];
            var c: vec2<f32>;
            if (f != MIXED) {
                c = coef[f];
            } else {
                c = coef[half(mat_ez[l >> 1u], l)];
            }
            ez[l] = c.x * ez[l] + c.y * ((hy[l] - hy[l - g.sx]) * g.inv_dx - (hx[l] - hx[l - g.sy]) * g.inv_dy);
        }
    }
}

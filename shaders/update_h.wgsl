// H^{n+1/2} from E^n on every H sample that has all its E neighbours.
// Mirrors `backend/cpu/update.rs::update_h` (same ranges, same float expression order):
//
//   Hx[i,j,k] -= db*((Ez[i,j+1,k]-Ez[i,j,k])/dy - (Ey[i,j,k+1]-Ey[i,j,k])/dz)  i<=nx, j<ny, k<nz
//   Hy[i,j,k] -= db*((Ex[i,j,k+1]-Ex[i,j,k])/dz - (Ez[i+1,j,k]-Ez[i,j,k])/dx)  i<nx, j<=ny, k<nz
//   Hz[i,j,k] -= db*((Ey[i+1,j,k]-Ey[i,j,k])/dx - (Ex[i,j+1,k]-Ex[i,j,k])/dy)  i<nx, j<ny, k<=nz
//
// Memory layout (see backend/gpu/layout.rs): the grid is cut into slabs ("pieces") of
// whole x planes. A piece's field buffer holds its owned planes i0 .. i0+planes-1 plus
// one ghost plane on each side, so global (i, j, k) is at local index
// (i - i0 + 1)*sx + j*sy + k. The ghost plane i0+planes holds a copy of E there.
//
// One invocation per (k, j, i): k along the workgroup's x axis (contiguous in memory),
// so a workgroup of WG_X x 1 threads lies on one (i, j) row and the row's material
// flag is uniform across it.

override WG_X: u32 = 128u;
override WG_Y: u32 = 1u;

const MIXED: u32 = 0xffffffffu;

struct Grid {
    nx: u32,
    ny: u32,
    nz: u32,
    // Global x index of the piece's first owned plane, and how many planes it owns.
    i0: u32,
    planes: u32,
    // Strides of the local flat index along x and y (z is contiguous).
    sx: u32,
    sy: u32,
    _pad0: u32,
    inv_dx: f32,
    inv_dy: f32,
    inv_dz: f32,
    _pad1: f32,
}

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
// db per H material (coefs.h).
@group(0) @binding(11) var<storage, read> db: array<f32>;

fn half(word: u32, l: u32) -> u32 {
    return (word >> ((l & 1u) * 16u)) & 0xffffu;
}

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

    // Hx: i <= nx, j < ny, k < nz.
    if (j < g.ny && k < g.nz) {
        let f = rows[row];
        var c: f32;
        if (f != MIXED) {
            c = db[f];
        } else {
            c = db[half(mat_hx[l >> 1u], l)];
        }
        hx[l] = hx[l] - c * ((ez[l + g.sy] - ez[l]) * g.inv_dy - (ey[l + 1u] - ey[l]) * g.inv_dz);
    }
    if (i < g.nx) {
        // Hy: i < nx, j <= ny, k < nz.
        if (k < g.nz) {
            let f = rows[nrow + row];
            var c: f32;
            if (f != MIXED) {
                c = db[f];
            } else {
                c = db[half(mat_hy[l >> 1u], l)];
            }
            hy[l] = hy[l] - c * ((ex[l + 1u] - ex[l]) * g.inv_dz - (ez[l + g.sx] - ez[l]) * g.inv_dx);
        }
        // Hz: i < nx, j < ny, k <= nz.
        if (j < g.ny) {
            let f = rows[2u * nrow + row];
            var c: f32;
            if (f != MIXED) {
                c = db[f];
            } else {
                c = db[half(mat_hz[l >> 1u], l)];
            }
            hz[l] = hz[l] - c * ((ey[l + g.sx] - ey[l]) * g.inv_dx - (ex[l + g.sy] - ex[l]) * g.inv_dy);
        }
    }
}

// CPML corrections (Roden & Gedney 2000) on top of the bulk update, inside the layers
// only. Mirrors `backend/cpu/cpml.rs::run`: one dispatch is one "pass" (one target
// component of one layer, on one piece), over a box of target samples:
//
//   d    = (S[p] - S[p-a]) / da          (E targets)   or (S[p+a] - S[p]) / da (H targets)
//   psi  = b[t]*psi + a[t]*d
//   F[p] += sgn * coef * ((1/kappa - 1)[t]*d + psi)
//
// with t the sample's index along the layer axis minus the layer's first index, coef
// = cb (E) or db (H) of the target sample's material, and sgn = +-1.
//
// Threads are laid out linearly over the box (it can be thin along any axis), in
// 2-D dispatches of WG threads per workgroup: thread = gid.x + gid.y * stride.

override WG: u32 = 64u;

struct Pass {
    // Target box (global indices; x already clipped to the piece), exclusive ends.
    x0: u32,
    x1: u32,
    y0: u32,
    y1: u32,
    z0: u32,
    z1: u32,
    // Piece: first owned x plane; local strides.
    i0: u32,
    sx: u32,
    sy: u32,
    // Layer axis (0, 1, 2), first profiled index along it, field stride along it.
    axis: u32,
    first: u32,
    stride_a: u32,
    // psi array of this piece: first global x plane it covers, and its (y, z) dims.
    psi_i0: u32,
    psi_ny: u32,
    psi_nz: u32,
    // Offsets of b, a and 1/kappa - 1 in the profile buffer.
    off_b: u32,
    off_a: u32,
    off_k: u32,
    // 1 for an E target (derivative of H backwards), 0 for an H target.
    electric: u32,
    // Number of samples in the box, and threads per dispatch row (gid.y stride).
    count: u32,
    stride: u32,
    sgn: f32,
    inv: f32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> p: Pass;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<storage, read> src: array<f32>;
@group(0) @binding(3) var<storage, read_write> psi: array<f32>;
@group(0) @binding(4) var<storage, read> mat: array<u32>;
@group(0) @binding(5) var<storage, read> coef_e: array<vec2<f32>>;
@group(0) @binding(6) var<storage, read> coef_h: array<f32>;
@group(0) @binding(7) var<storage, read> prof: array<f32>;

fn half(word: u32, l: u32) -> u32 {
    return (word >> ((l & 1u) * 16u)) & 0xffffu;
}

@compute @workgroup_size(WG, 1, 1)
fn cpml(@builtin(global_invocation_id) gid: vec3<u32>) {
    let q = gid.x + gid.y * p.stride;
    if (q >= p.count) {
        return;
    }
    let wz = p.z1 - p.z0;
    let wy = p.y1 - p.y0;
    let k = p.z0 + q % wz;
    let r = q / wz;
    let j = p.y0 + r % wy;
    let i = p.x0 + r / wy;
    let l = (i - p.i0 + 1u) * p.sx + j * p.sy + k;

    var t: u32;
    var pj = j;
    var pk = k;
    if (p.axis == 0u) {
        t = i - p.first;
    } else if (p.axis == 1u) {
        t = j - p.first;
        pj = t;
    } else {
        t = k - p.first;
        pk = t;
    }
    let pl = ((i - p.psi_i0) * p.psi_ny + pj) * p.psi_nz + pk;

    var d: f32;
    var c: f32;
    let m = half(mat[l >> 1u], l);
    if (p.electric != 0u) {
        d = (src[l] - src[l - p.stride_a]) * p.inv;
        c = coef_e[m].y;
    } else {
        d = (src[l + p.stride_a] - src[l]) * p.inv;
        c = coef_h[m];
    }
    let ps = prof[p.off_b + t] * psi[pl] + prof[p.off_a + t] * d;
    psi[pl] = ps;
    dst[l] = dst[l] + p.sgn * c * (prof[p.off_k + t] * d + ps);
}

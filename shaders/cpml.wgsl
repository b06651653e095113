// CPML corrections (Roden & Gedney 2000) on top of the bulk update, inside the layers
// only. Mirrors `backend/cpu/cpml.rs` (`passes` and `correct_row`): a layer normal to
// axis a has two passes per phase, one per target component (E_a1 and E_a2, or H_a1
// and H_a2), each
//
//   d    = (S[p] - S[p-a]) / da          (E targets)   or (S[p+a] - S[p]) / da (H targets)
//   psi  = b[t]*psi + a[t]*d
//   F[p] += sgn * coef * ((1/kappa - 1)[t]*d + psi)
//
// with t the sample's index along the layer axis minus the layer's first index, coef
// = cb (E) or db (H) of the target sample's material, and sgn = +-1.
//
// One dispatch does both passes of one layer and phase on one piece: a thread per
// sample of the union of the two target boxes, applying each pass whose box holds the
// sample. The two targets are different arrays, so this is the CPU's result exactly;
// layers still follow each other in model order (corrections of two layers to one
// sample add up in the same order).
//
// Threads are laid out linearly over the box (it can be thin along any axis), in
// 2-D dispatches of WG threads per workgroup: thread = gid.x + gid.y * stride.

override WG: u32 = 64u;

struct Pass {
    // Union box (global indices; x already clipped to the piece), exclusive ends.
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
    // psi arrays of this piece: first global x plane they cover, and their (y, z) dims.
    psi_i0: u32,
    psi_ny: u32,
    psi_nz: u32,
    // Offsets of b, a and 1/kappa - 1 in the profile buffer.
    off_b: u32,
    off_a: u32,
    off_k: u32,
    // 1 for E targets (derivative of H backwards), 0 for H targets.
    electric: u32,
    // Number of samples in the union box, and threads per dispatch row (gid.y stride).
    count: u32,
    stride: u32,
    inv: f32,
    _pad0: u32,
    _pad1: u32,
    // Each pass's own box (x, y, z; exclusive ends); an empty box disables the pass.
    lo0: vec4<u32>,
    hi0: vec4<u32>,
    lo1: vec4<u32>,
    hi1: vec4<u32>,
    // Signs of the two passes.
    sgn: vec4<f32>,
}

@group(0) @binding(0) var<uniform> p: Pass;
@group(0) @binding(1) var<storage, read_write> dst0: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst1: array<f32>;
@group(0) @binding(3) var<storage, read> src0: array<f32>;
@group(0) @binding(4) var<storage, read> src1: array<f32>;
@group(0) @binding(5) var<storage, read_write> psi0: array<f32>;
@group(0) @binding(6) var<storage, read_write> psi1: array<f32>;
@group(0) @binding(7) var<storage, read> mat0: array<u32>;
@group(0) @binding(8) var<storage, read> mat1: array<u32>;
@group(0) @binding(9) var<storage, read> coef_e: array<vec2<f32>>;
@group(0) @binding(10) var<storage, read> coef_h: array<f32>;
@group(0) @binding(11) var<storage, read> prof: array<f32>;

fn half(word: u32, l: u32) -> u32 {
    return (word >> ((l & 1u) * 16u)) & 0xffffu;
}

fn coef(m: u32) -> f32 {
    if (p.electric != 0u) {
        return coef_e[m].y;
    }
    return coef_h[m];
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
    let at = vec3<u32>(i, j, k);
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
    let b = prof[p.off_b + t];
    let a = prof[p.off_a + t];
    let kinv = prof[p.off_k + t];
    // E: S[p] - S[p-a]; H: S[p+a] - S[p].
    var hi = l + p.stride_a;
    var lo = l;
    if (p.electric != 0u) {
        hi = l;
        lo = l - p.stride_a;
    }

    if (all(at >= p.lo0.xyz) && all(at < p.hi0.xyz)) {
        let d = (src0[hi] - src0[lo]) * p.inv;
        let ps = b * psi0[pl] + a * d;
        psi0[pl] = ps;
        dst0[l] = dst0[l] + p.sgn.x * coef(half(mat0[l >> 1u], l)) * (kinv * d + ps);
    }
    if (all(at >= p.lo1.xyz) && all(at < p.hi1.xyz)) {
        let d = (src1[hi] - src1[lo]) * p.inv;
        let ps = b * psi1[pl] + a * d;
        psi1[pl] = ps;
        dst1[l] = dst1[l] + p.sgn.y * coef(half(mat1[l >> 1u], l)) * (kinv * d + ps);
    }
}

// E samples on the domain's face planes, and periodic copies along y and z.
// Mirrors the CPU backend's `boundary.rs` (crate fdtd-cpu, solver/cpu/src/).
//
// An E component is tangential to the four faces normal to its two other axes. On PEC
// faces (and on the PEC wall behind a CPML) those samples stay zero. On PMC and
// periodic faces they are updated like interior samples, with the missing H neighbour
// across the face taken from the face's image rule:
//
//   PMC:      tangential H is odd about the wall, H[-1] = -H[0], H[n] = -H[n-1];
//   periodic: H[-1] = H[n-1]; the high plane E[n] is a copy of E[0] (periodic copies),
//             so only the low plane is computed.
//
// One dispatch ("face job") covers one face plane of one E component on one piece,
// exactly the sample set of one (a, t, plane) iteration of `boundary.rs::faces_slab`'s
// loops (cut to the piece's x planes): E_a on the plane p[t] = plane, with p[a] in
// [ra0, ra0 + wa) and p[u] in [ru0, ...).
// Along x a periodic image of -1 is not wrapped: every piece's ghost plane below its
// first owned plane holds H there, and for the first piece that is a copy of H[nx-1].

override WG: u32 = 64u;

const PEC: u32 = 0u;
const PMC: u32 = 1u;
const PERIODIC: u32 = 2u;
const CPML: u32 = 3u;

// FaceJob and Periodic (the parameter blocks), MIXED and half: in prelude.wgsl.

@group(0) @binding(0) var<uniform> job: FaceJob;
@group(0) @binding(1) var<storage, read_write> ex: array<f32>;
@group(0) @binding(2) var<storage, read_write> ey: array<f32>;
@group(0) @binding(3) var<storage, read_write> ez: array<f32>;
@group(0) @binding(4) var<storage, read> hx: array<f32>;
@group(0) @binding(5) var<storage, read> hy: array<f32>;
@group(0) @binding(6) var<storage, read> hz: array<f32>;
@group(0) @binding(7) var<storage, read> mat_ex: array<u32>;
@group(0) @binding(8) var<storage, read> mat_ey: array<u32>;
@group(0) @binding(9) var<storage, read> mat_ez: array<u32>;
@group(0) @binding(10) var<storage, read> coef: array<vec2<f32>>;
@group(0) @binding(11) var<uniform> per: Periodic;

fn face_kind(f: u32) -> u32 {
    if (f < 4u) {
        return job.faces0[f];
    }
    return job.faces1[f - 4u];
}

// Face rule for an H index q along `axis` that may be -1 or n: (in-range index, sign),
// sign 0 for a zero contribution. Mirrors `boundary.rs::image`.
fn image(axis: u32, q: i32) -> vec2<i32> {
    let n = i32(job.n[axis]);
    if (q >= 0 && q < n) {
        return vec2<i32>(q, 1);
    }
    var hi = 0u;
    if (q >= n) {
        hi = 1u;
    }
    let kind = face_kind(2u * axis + hi);
    if (kind == PERIODIC) {
        if (axis == 0u && q < 0) {
            // The ghost plane below x = 0 holds H[nx-1].
            return vec2<i32>(q, 1);
        }
        return vec2<i32>(((q % n) + n) % n, 1);
    }
    if (kind == PMC) {
        if (q < 0) {
            return vec2<i32>(-q - 1, -1);
        }
        return vec2<i32>(2 * n - 1 - q, -1);
    }
    return vec2<i32>(0, 0);
}

// H component `hc` at a possibly out-of-range q (only along its staggered axes).
fn h_at(hc: u32, q: vec3<i32>) -> f32 {
    var idx = q;
    var sign = 1;
    for (var a = 0u; a < 3u; a++) {
        if (a != hc) {
            let im = image(a, q[a]);
            if (im.y == 0) {
                return 0.0;
            }
            idx[a] = im.x;
            sign *= im.y;
        }
    }
    let l = u32((idx.x - i32(job.i0) + 1) * i32(job.sx) + idx.y * i32(job.sy) + idx.z);
    var v: f32;
    switch hc {
        case 0u: {
            v = hx[l];
        }
        case 1u: {
            v = hy[l];
        }
        default: {
            v = hz[l];
        }
    }
    return f32(sign) * v;
}

// Mirrors `boundary.rs::face_sample` for every sample of one face job.
@compute @workgroup_size(WG, 1, 1)
fn update_e_faces(@builtin(global_invocation_id) gid: vec3<u32>) {
    let q = gid.x + gid.y * job.stride;
    if (q >= job.count) {
        return;
    }
    var pt = vec3<u32>(0u, 0u, 0u);
    pt[job.a] = job.ra0 + q % job.wa;
    pt[job.u] = job.ru0 + q / job.wa;
    pt[job.t] = job.plane;
    let a = job.a;
    let b = (a + 1u) % 3u;
    let c = (a + 2u) % 3u;
    // Skip samples on a PEC/CPML face, or on the high plane of a periodic axis.
    for (var s = 0u; s < 2u; s++) {
        let tt = select(c, b, s == 0u);
        if (pt[tt] == 0u) {
            let kind = face_kind(2u * tt);
            if (kind == PEC || kind == CPML) {
                return;
            }
        }
        if (pt[tt] == job.n[tt]) {
            let kind = face_kind(2u * tt + 1u);
            if (kind == PEC || kind == CPML || kind == PERIODIC) {
                return;
            }
        }
    }
    let q0 = vec3<i32>(pt);
    var qb = q0;
    qb[b] -= 1;
    var qc = q0;
    qc[c] -= 1;
    // Same expression and order as the bulk kernel.
    let curl = (h_at(c, q0) - h_at(c, qb)) * job.inv_d[b] - (h_at(b, q0) - h_at(b, qc)) * job.inv_d[c];
    let l = (pt.x - job.i0 + 1u) * job.sx + pt.y * job.sy + pt.z;
    switch a {
        case 0u: {
            let cf = coef[half(mat_ex[l >> 1u], l)];
            ex[l] = cf.x * ex[l] + cf.y * curl;
        }
        case 1u: {
            let cf = coef[half(mat_ey[l >> 1u], l)];
            ey[l] = cf.x * ey[l] + cf.y * curl;
        }
        default: {
            let cf = coef[half(mat_ez[l >> 1u], l)];
            ez[l] = cf.x * ez[l] + cf.y * curl;
        }
    }
}

// Periodic copies along y or z on one piece (`boundary.rs::periodic_copies`): the low
// face plane of E components tangential to the axis is copied onto the high one.
// (Along x the copy crosses pieces; the host does it with `copy.wgsl`.)
@compute @workgroup_size(WG, 1, 1)
fn periodic_yz(@builtin(global_invocation_id) gid: vec3<u32>) {
    let q = gid.x + gid.y * per.stride;
    if (q >= per.count) {
        return;
    }
    if (per.axis == 1u) {
        // Row j = 0 -> j = ny on every owned plane, for Ex and Ez.
        let w = per.nz + 1u;
        let src = (q / w + 1u) * per.sx + q % w;
        let dst = src + per.ny * per.sy;
        ex[dst] = ex[src];
        ez[dst] = ez[src];
    } else {
        // k = 0 -> k = nz on every (i, j) row, for Ex and Ey.
        let w = per.ny + 1u;
        let src = (q / w + 1u) * per.sx + (q % w) * per.sy;
        let dst = src + per.nz;
        ex[dst] = ex[src];
        ey[dst] = ey[src];
    }
}

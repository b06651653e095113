// CPML helpers of the bulk kernels: kernels.rs puts this file between the prelude and
// update_h.wgsl or update_e.wgsl, which declare what it uses: `g` (Grid), `psi0` and
// `psi1` (the psi slots of the kernel's phase).

// No layer on this axis holds the sample.
const NONE: u32 = 6u;

// psi of both slots of the layer on one axis at one sample (loaded with the fields).
struct Cpml {
    s0: f32,
    s1: f32,
}

// The layer on `axis` that holds index c, or NONE.
fn find(axis: u32, c: u32) -> u32 {
    let f = 2u * axis;
    if (c - g.lay[f].first < g.lay[f].len) {
        return f;
    }
    if (c - g.lay[f + 1u].first < g.lay[f + 1u].len) {
        return f + 1u;
    }
    return NONE;
}

// Index of (i, j, k) in layer f's psi arrays (normal to `axis`), and of its profile
// values in `tab` (b at .y, a at .y + len, 1/kappa - 1 at .y + 2*len).
fn at(f: u32, axis: u32, i: u32, j: u32, k: u32) -> vec2<u32> {
    let ly = g.lay[f];
    var q = vec3<u32>(i, j, k);
    q[axis] -= ly.first;
    return vec2<u32>(ly.base + (i - ly.x0) * ly.psx + q.y * ly.psy + q.z, ly.prof + q[axis]);
}

// psi of layer f (normal to `axis`) at (i, j, k), both slots; zeros for NONE. Both are
// loaded whether or not their target sample is corrected (the index stays inside the
// layer's arrays, which cover every sample of the layer).
fn prep(f: u32, axis: u32, i: u32, j: u32, k: u32) -> Cpml {
    var r = Cpml(0.0, 0.0);
    if (f == NONE) {
        return r;
    }
    let p = at(f, axis, i, j, k).x;
    r.s0 = psi0[p];
    r.s1 = psi1[p];
    return r;
}

// CPML helpers of the bulk kernels: kernels.rs puts this file between the prelude and
// update_h.wgsl or update_e.wgsl, which declare what it uses: `g` (Grid), `tab` (the
// coefficients and profiles), `psi0` and `psi1` (the psi slots of the kernel's phase).

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

// The CPML correction of component c (0..2 within the kernel's phase) by layer f
// (normal to `axis`) at (i, j, k), with d the derivative along `axis` the bulk update
// used, q the layer's psi from `prep` and coef the sample's cb (E) or db (H): updates
// psi in the slot the schedule gives (g.cpml_slot: 0 = psi0, 1 = psi1) and returns
// sgn*coef*((1/kappa - 1)*d + psi), sgn = g.cpml_sign (CpmlPass::sign). The slot and
// sign are uniform across a dispatch, so the branch costs no divergence and no memory
// traffic beyond the one psi store.
fn correct(f: u32, axis: u32, c: u32, q: Cpml, d: f32, coef: f32, i: u32, j: u32, k: u32) -> f32 {
    let w = at(f, axis, i, j, k);
    let n = g.lay[f].len;
    let slot = g.cpml_slot[c][axis];
    let ps = tab[w.y] * select(q.s0, q.s1, slot == 1u) + tab[w.y + n] * d;
    if (slot == 0u) {
        psi0[w.x] = ps;
    } else {
        psi1[w.x] = ps;
    }
    return g.cpml_sign[c][axis] * coef * (tab[w.y + 2u * n] * d + ps);
}

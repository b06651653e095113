// Dispersive media (`solver/core/src/passes/dispersive.rs`, scheme in
// `solver/core/src/model/dispersion.rs` and docs/materials.md), with the point-pass ABI
// of `solver/core/src/pass.rs`. Record q: (sample index << 2 | E component 0..2, local
// index, offset of the row's block in params, offset of the sample's pole floats in
// state `s`). params: [samples, then per row: poles, 9 words per pole: order, k1, k2,
// d11, d12, d21, d22, g1, g2 (f32 bits)]. state: `e` (samples floats: E of the previous
// step), then `s`. After the E update, in the CPU's order:
//   E −= Σ k·s; se = E + e; s += d·s + g·se; e = E.
// The bindings, `read_field`, `write_field`, `step` and WG are declared in passes/abi.wgsl.

fn pf(i: u32) -> f32 {
    return bitcast<f32>(params[i]);
}

@compute @workgroup_size(WG, 1, 1)
fn apply_dispersive(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    // Records beyond one dispatch row (65535 workgroups) continue in gid.y.
    let q = gid.x + gid.y * groups.x * WG;
    if (q >= arrayLength(&records)) {
        return;
    }
    let r = records[q];
    let sample = r.x >> 2u;
    let c = r.x & 3u;
    let l = r.y;
    let row = r.z;
    let samples = params[0];
    let base = samples + r.w;
    let np = params[row];
    var acc = 0.0;
    var o = base;
    for (var k = 0u; k < np; k = k + 1u) {
        let b = row + 1u + k * 9u;
        let order = params[b];
        acc = acc + pf(b + 1u) * state[o];
        if (order == 2u) {
            acc = acc + pf(b + 2u) * state[o + 1u];
        }
        o = o + order;
    }
    let e = read_field(c, l) - acc;
    write_field(c, l, e);
    let se = e + state[sample];
    o = base;
    for (var k = 0u; k < np; k = k + 1u) {
        let b = row + 1u + k * 9u;
        let order = params[b];
        let s1 = state[o];
        if (order == 2u) {
            let s2 = state[o + 1u];
            state[o] = s1 + (pf(b + 3u) * s1 + pf(b + 4u) * s2 + pf(b + 7u) * se);
            state[o + 1u] = s2 + (pf(b + 5u) * s1 + pf(b + 6u) * s2 + pf(b + 8u) * se);
        } else {
            state[o] = s1 + (pf(b + 3u) * s1 + pf(b + 7u) * se);
        }
        o = o + order;
    }
    state[sample] = e;
}

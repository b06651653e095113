// Dispersive media (`solver/core/src/passes/dispersive.rs`, scheme in
// `solver/core/src/model/dispersion.rs` and docs/materials.md): a region-scope pass of
// the point-pass ABI (solver/core/src/pass.rs), one thread per sample of its boxes
// (`region_sample`). params: [boxes, then 12 words per box: component, offset of its
// row's block, state floats per sample, lo x, y, z, size y, z, mask offset
// (0xffffffff: none), offset of its plane offsets, 0, 0; per row: poles, 9 words per
// pole: order, k1, k2, d11, d12, d21, d22, h1, h2 (f32 bits); the masks; the plane
// offsets]. state: `r`, by x plane, per box [float][y][z]. After the E update, in the
// CPU's order:
//   E −= Σ k·r; r += d·r + h·E.
// The bindings, `region_sample`, `read_field`, `write_field`, `step` and WG are
// declared in passes/abi.wgsl.

fn pf(i: u32) -> f32 {
    return bitcast<f32>(params[i]);
}

@compute @workgroup_size(WG, 1, 1)
fn apply_dispersive(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    // Samples beyond one dispatch row (65535 workgroups) continue in gid.y.
    let s = region_sample(gid.x + gid.y * groups.x * WG);
    if (!s.valid) {
        return;
    }
    let b = 1u + s.region * 12u;
    let c = params[b];
    let row = params[b + 1u];
    let dx = s.at.x - params[b + 3u];
    let dy = s.at.y - params[b + 4u];
    let dz = s.at.z - params[b + 5u];
    let ny = params[b + 6u];
    let nz = params[b + 7u];
    let mask = params[b + 8u];
    if (mask != 0xffffffffu) {
        let q = (dx * ny + dy) * nz + dz;
        if (((params[mask + q / 32u] >> (q % 32u)) & 1u) == 0u) {
            return;
        }
    }
    let area = ny * nz;
    let first = params[params[b + 9u] + dx] + dy * nz + dz;
    let np = params[row];
    var acc = 0.0;
    var o = first;
    for (var k = 0u; k < np; k = k + 1u) {
        let p = row + 1u + k * 9u;
        let order = params[p];
        acc = acc + pf(p + 1u) * state[o];
        if (order == 2u) {
            acc = acc + pf(p + 2u) * state[o + area];
        }
        o = o + order * area;
    }
    let e = read_field(c, s.l) - acc;
    write_field(c, s.l, e);
    o = first;
    for (var k = 0u; k < np; k = k + 1u) {
        let p = row + 1u + k * 9u;
        let order = params[p];
        let s1 = state[o];
        if (order == 2u) {
            let s2 = state[o + area];
            state[o] = s1 + (pf(p + 3u) * s1 + pf(p + 4u) * s2 + pf(p + 7u) * e);
            state[o + area] = s2 + (pf(p + 5u) * s1 + pf(p + 6u) * s2 + pf(p + 8u) * e);
        } else {
            state[o] = s1 + (pf(p + 3u) * s1 + pf(p + 7u) * e);
        }
        o = o + order * area;
    }
}

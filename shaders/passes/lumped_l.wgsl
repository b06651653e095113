// Lumped inductors (`solver/core/src/passes/lumped.rs`), with the point-pass ABI of
// `solver/core/src/pass.rs`. Record q: (edge index s << 2 | E component 0..2, local
// index, k = dt·l/(L_e·A) as f32 bits, the edge's cb as f32 bits). State: J_L per edge.
// After the E update: E −= cb·J_L (the inductor current at n+½), then J_L += k·E.
// The bindings, `read_field`, `write_field`, `step` and WG are declared in passes/abi.wgsl.

@compute @workgroup_size(WG, 1, 1)
fn apply_inductors(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    // Records beyond one dispatch row (65535 workgroups) continue in gid.y.
    let q = gid.x + gid.y * groups.x * WG;
    if (q >= arrayLength(&records)) {
        return;
    }
    let r = records[q];
    let s = r.x >> 2u;
    let l = r.y;
    let k = bitcast<f32>(r.z);
    let cb = bitcast<f32>(r.w);
    let j = state[s];
    // Component r.x & 3 is an E component (0..2).
    let c = r.x & 3u;
    let e = read_field(c, l) - cb * j;
    write_field(c, l, e);
    state[s] = j + k * e;
}

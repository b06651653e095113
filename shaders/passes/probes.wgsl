// Probe sampling (`solver/core/src/passes/probes.rs`), with the point-pass ABI of
// `solver/core/src/pass.rs`. Records: (component 0..5, local index, every, output
// stream). Stream q's samples of a submission go to out[q * SLOTS + slot], slot = how
// many times the stream was due since step n0, minus one. The bindings, `read_field`, `step`, WG and
// SLOTS are declared in passes/abi.wgsl.

@compute @workgroup_size(WG, 1, 1)
fn sample_probes(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    // Records beyond one dispatch row (65535 workgroups) continue in gid.y.
    let q = gid.x + gid.y * groups.x * WG;
    if (q >= arrayLength(&records)) {
        return;
    }
    let e = records[q];
    let every = e.z;
    if ((step.n + 1u) % every != 0u) {
        return;
    }
    let slot = (step.n + 1u) / every - step.n0 / every - 1u;
    let l = e.y;
    let v = read_field(e.x, l);
    out[e.w * SLOTS + slot] = v;
}

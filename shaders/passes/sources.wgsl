// Point sources (`solver/core/src/passes/sources.rs`), with the point-pass ABI of
// `solver/core/src/pass.rs`. Records: (component 0..5, local index, 1 = hard / 0 =
// soft, model source index). `values` holds the host-evaluated source values of the
// submission, [step][model source] (Model::source_values). The bindings, `read_field`,
// `write_field` and `step` are declared in passes/abi.wgsl.

// One thread applies every source of the list in order, like the CPU loop, so two
// sources on one sample add up in the same order.
@compute @workgroup_size(1, 1, 1)
fn apply_sources() {
    let count = arrayLength(&records);
    for (var q = 0u; q < count; q++) {
        let e = records[q];
        let l = e.y;
        let v = values[step.s * step.ns + e.w];
        let hard = e.z == 1u;
        write_field(e.x, l, select(read_field(e.x, l) + v, v, hard));
    }
}

// Thin-wire radius correction (`solver/core/src/passes/thin_wire.rs`, model in
// `solver/core/src/model/thin.rs`): a region-scope pass of the point-pass ABI
// (solver/core/src/pass.rs) at AfterH, one thread per corrected H sample of its boxes
// (`region_sample`). params: 2 words per box: code = H component (3..5) | E component
// (0..2) << 4 | neighbour axis << 8 | neighbour at +1 << 10 | gap << 11, and the
// coefficient (f32 bits). After the H update, E still E^n:
//   H += coef · (E_nb − E_gap)
// with E_nb the wire's parallel E at the neighbouring node (at the H sample's index, or
// +1 along the neighbour axis) and E_gap the circled edge's E (at the other one), for a
// feed gap only. Both are on the H sample's plane or the next one, which a piece holds
// (its high ghost plane of Ey, Ez is E^n after the previous step's E halo; an Ex
// neighbour is never along x). The bindings, `region_sample`, `read_field`,
// `write_field` and WG are declared in passes/abi.wgsl.

@compute @workgroup_size(WG, 1, 1)
fn apply_thin_wire(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    // Samples beyond one dispatch row (65535 workgroups) continue in gid.y.
    let s = region_sample(gid.x + gid.y * groups.x * WG);
    if (!s.valid) {
        return;
    }
    let code = params[2u * s.region];
    let coef = bitcast<f32>(params[2u * s.region + 1u]);
    let h = code & 15u;
    let e = (code >> 4u) & 15u;
    var step = 1u;
    switch ((code >> 8u) & 3u) {
        case 0u: {
            step = s.sx;
        }
        case 1u: {
            step = s.sy;
        }
        default: {
            step = 1u;
        }
    }
    let plus = ((code >> 10u) & 1u) == 1u;
    let nb = select(s.l, s.l + step, plus);
    var en = read_field(e, nb);
    if (((code >> 11u) & 1u) == 1u) {
        en = en - read_field(e, select(s.l + step, s.l, plus));
    }
    write_field(h, s.l, read_field(h, s.l) + coef * en);
}

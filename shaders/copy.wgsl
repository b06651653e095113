// Plane copies and box gathers (no CPU counterpart: the CPU keeps one array per
// component, the GPU cuts the grid into x slabs ("pieces", solver/gpu/src/layout.rs)).
//
// * copy_between: `count` floats from one buffer to another. Used for ghost planes
//   (H plane below a piece's first plane, E plane above its last one) and for the
//   periodic copy E[x = 0] -> E[x = nx] when those planes are in different pieces.
// * copy_within: the same inside one buffer (single-piece grids).
// * gather: pack a box of one component of one piece into a dense buffer, C order,
//   for read_region / read_field.

override WG: u32 = 256u;

// CopyJob (the parameter block): in prelude.wgsl.

@group(0) @binding(0) var<uniform> cp: CopyJob;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(0) @binding(3) var<storage, read_write> buf: array<f32>;

@compute @workgroup_size(WG, 1, 1)
fn copy_between(@builtin(global_invocation_id) gid: vec3<u32>) {
    let q = gid.x + gid.y * cp.stride;
    if (q >= cp.count) {
        return;
    }
    dst[cp.dst_off + q] = src[cp.src_off + q];
}

@compute @workgroup_size(WG, 1, 1)
fn copy_within(@builtin(global_invocation_id) gid: vec3<u32>) {
    let q = gid.x + gid.y * cp.stride;
    if (q >= cp.count) {
        return;
    }
    buf[cp.dst_off + q] = buf[cp.src_off + q];
}

@compute @workgroup_size(WG, 1, 1)
fn gather(@builtin(global_invocation_id) gid: vec3<u32>) {
    let q = gid.x + gid.y * cp.stride;
    if (q >= cp.count) {
        return;
    }
    let k = q % cp.wz;
    let r = q / cp.wz;
    let j = r % cp.wy;
    let i = r / cp.wy;
    dst[cp.dst_off + q] = src[cp.src_off + i * cp.sx + j * cp.sy + k];
}

// A total-field/scattered-field plane wave (solver/core/src/passes/tfsf.rs,
// solver/core/src/model/tfsf.rs), point-pass ABI. State: the incident line's E then H,
// each [component 0..2][l] over params[0] samples.
// params: [0] len, [1] block, [2] tail, [3] drive (first source value), [4..7] m (i32),
// [7] ca, [8] cb (vacuum E), [9] db (vacuum H), [10..13] 1/Δ, [13..16] ê, [16] where the
// terms begin; from 20: per tail sample (a, f) as f32; then per term (component | l << 3,
// coef as f32).
// Records: (component 0..5, local index, first term, term count), one per corrected sample.
// The bindings, `read_field`, `write_field`, `step` and WG are declared in passes/abi.wgsl.

fn pf(i: u32) -> f32 {
    return bitcast<f32>(params[i]);
}

// Line sample of E (h = 0u) or H (h = 1u), component c, index l; zero off the line.
fn line_at(h: u32, c: u32, l: i32) -> f32 {
    let n = params[0];
    if (l < 0 || l >= i32(n)) {
        return 0.0;
    }
    return state[(h * 3u + c) * n + u32(l)];
}

// The 3-D stencil (model::tfsf::STENCIL): component c's update reads (a, axis a) minus (b, axis b).
fn stencil(c: u32) -> vec4<u32> {
    switch c {
        case 0u: { return vec4<u32>(2u, 1u, 1u, 2u); }
        case 1u: { return vec4<u32>(0u, 2u, 2u, 0u); }
        case 2u: { return vec4<u32>(1u, 0u, 0u, 1u); }
        case 3u: { return vec4<u32>(2u, 1u, 1u, 2u); }
        case 4u: { return vec4<u32>(0u, 2u, 2u, 0u); }
        default: { return vec4<u32>(1u, 0u, 0u, 1u); }
    }
}

fn correct(q: u32, electric: bool) {
    if (q >= arrayLength(&records)) {
        return;
    }
    let r = records[q];
    if ((r.x < 3u) != electric) {
        return;
    }
    let n = params[0];
    let t0 = params[16];
    var acc = read_field(r.x, r.y);
    for (var t = r.z; t < r.z + r.w; t++) {
        let w = params[t0 + 2u * t];
        let c = w & 7u;
        let l = w >> 3u;
        // E components 0..2 then H 3..5, n samples each: component c's sample l.
        acc += pf(t0 + 2u * t + 1u) * state[c * n + l];
    }
    write_field(r.x, r.y, acc);
}

@compute @workgroup_size(WG, 1, 1)
fn tfsf_h(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    correct(gid.x + gid.y * groups.x * WG, false);
}

@compute @workgroup_size(WG, 1, 1)
fn tfsf_e(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    correct(gid.x + gid.y * groups.x * WG, true);
}

// Threads of the line's once-per-step entries: one workgroup (Scope::Once dispatches
// one), each thread a stride of samples. Every sample of a half step reads only the other
// field, so the threads need no barrier and the result is the CPU's, whatever the count.
const LINE_THREADS: u32 = 256u;

// One step of the line's E (electric) or H, from the other: thread `tid`'s samples.
fn line_step(electric: bool, tid: u32) {
    let n = params[0];
    let block = params[1];
    let tail = params[2];
    let m = vec3<i32>(bitcast<i32>(params[4]), bitcast<i32>(params[5]), bitcast<i32>(params[6]));
    let inv = vec3<f32>(pf(10u), pf(11u), pf(12u));
    var dst = 1u;
    var src = 0u;
    if (electric) {
        dst = 0u;
        src = 1u;
    }
    for (var c = 0u; c < 3u; c++) {
        let s = stencil(c);
        for (var l = tid; l < n; l += LINE_THREADS) {
            let at = (dst * 3u + c) * n + l;
            if (electric && l < block) {
                state[at] = pf(13u + c) * values[step.s * step.ns + params[3] + l];
                continue;
            }
            let li = i32(l);
            let curl = (line_at(src, s.x, li + m[s.y]) - line_at(src, s.x, li - m[s.y])) * inv[s.y]
                - (line_at(src, s.z, li + m[s.w]) - line_at(src, s.z, li - m[s.w])) * inv[s.w];
            let x = state[at];
            if (l >= tail) {
                let a = pf(20u + 2u * (l - tail));
                let f = pf(21u + 2u * (l - tail));
                if (electric) {
                    state[at] = a * x + (pf(8u) * f) * curl;
                } else {
                    state[at] = a * x - (pf(9u) * f) * curl;
                }
            } else if (electric) {
                state[at] = pf(7u) * x + pf(8u) * curl;
            } else {
                state[at] = x - pf(9u) * curl;
            }
        }
    }
}

@compute @workgroup_size(LINE_THREADS, 1, 1)
fn line_h(@builtin(local_invocation_index) tid: u32) {
    line_step(false, tid);
}

@compute @workgroup_size(LINE_THREADS, 1, 1)
fn line_e(@builtin(local_invocation_index) tid: u32) {
    line_step(true, tid);
}

// Running DFT of a monitor's samples (solver/core/src/monitors/dft.rs), point-pass ABI.
// Records: (component 0..5, local index, record r, -). One thread per record, looping over
// the frequencies. params: [records, frequencies, every, 2π/2³² (f32 bits), then per
// frequency: inc, half] (fixed-point phase increments per step and per half step).
// State: re[f][r] then im[f][r]. After step n, when (n + 1) % every == 0:
//   phase = inc·(n+1) (E, at (n+1)·dt) or inc·n + half (H, at (n+½)·dt), wrapping u32;
//   θ = f32(i32(phase))·2π/2³² in [−π, π); re += v·cos θ; im −= v·sin θ.
// The bindings, `read_field`, `step` and WG are declared in passes/abi.wgsl.

@compute @workgroup_size(WG, 1, 1)
fn accumulate_dft(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    // Records beyond one dispatch row (65535 workgroups) continue in gid.y.
    let q = gid.x + gid.y * groups.x * WG;
    if (q >= arrayLength(&records)) {
        return;
    }
    let every = params[2];
    if ((step.n + 1u) % every != 0u) {
        return;
    }
    let e = records[q];
    let l = e.y;
    let v = read_field(e.x, l);
    let nrec = params[0];
    let nf = params[1];
    let rad = bitcast<f32>(params[3]);
    for (var f = 0u; f < nf; f++) {
        let inc = params[4u + 2u * f];
        var phase: u32;
        if (e.x < 3u) {
            phase = inc * (step.n + 1u);
        } else {
            phase = inc * step.n + params[5u + 2u * f];
        }
        let a = f32(bitcast<i32>(phase)) * rad;
        let at = f * nrec + e.z;
        state[at] += v * cos(a);
        state[nf * nrec + at] -= v * sin(a);
    }
}

// Point sources and probe sampling. Mirrors the CPU backend's `lib.rs::apply_sources`
// and the probe loop at the end of `lib.rs::step_one` (crate fdtd-cpu, solver/cpu/src/).
//
// Per-step values come from the step record (a uniform bound with a dynamic offset,
// one record per step of the submission) and from `values`, the host-evaluated
// source values of the whole submission, [step][source] (Model::source_values).

override WG: u32 = 64u;

// Step, Source and Probe (the step record and table rows): in prelude.wgsl.

@group(1) @binding(0) var<uniform> step: Step;

@group(0) @binding(0) var<storage, read_write> ex: array<f32>;
@group(0) @binding(1) var<storage, read_write> ey: array<f32>;
@group(0) @binding(2) var<storage, read_write> ez: array<f32>;
@group(0) @binding(3) var<storage, read_write> hx: array<f32>;
@group(0) @binding(4) var<storage, read_write> hy: array<f32>;
@group(0) @binding(5) var<storage, read_write> hz: array<f32>;
// Sources of this piece and phase (magnetic or electric), in model order.
@group(0) @binding(6) var<storage, read> sources: array<Source>;
@group(0) @binding(7) var<storage, read> values: array<f32>;

// One thread applies every source of the list in order, like the CPU loop, so two
// sources on one sample add up in the same order.
@compute @workgroup_size(1, 1, 1)
fn apply_sources() {
    let count = arrayLength(&sources);
    for (var q = 0u; q < count; q++) {
        let e = sources[q];
        let l = e.index;
        let v = values[step.s * step.ns + e.source];
        let hard = e.kind == 1u;
        switch e.component {
            case 0u: {
                ex[l] = select(ex[l] + v, v, hard);
            }
            case 1u: {
                ey[l] = select(ey[l] + v, v, hard);
            }
            case 2u: {
                ez[l] = select(ez[l] + v, v, hard);
            }
            case 3u: {
                hx[l] = select(hx[l] + v, v, hard);
            }
            case 4u: {
                hy[l] = select(hy[l] + v, v, hard);
            }
            default: {
                hz[l] = select(hz[l] + v, v, hard);
            }
        }
    }
}

// Probe samples of this piece. Slot (after the sample's `base` in `out`) = how many
// times this sample was due since step n0, minus one.
@group(0) @binding(8) var<storage, read> probes: array<Probe>;
@group(0) @binding(9) var<storage, read_write> out: array<f32>;
@group(0) @binding(10) var<storage, read> fx: array<f32>;
@group(0) @binding(11) var<storage, read> fy: array<f32>;
@group(0) @binding(12) var<storage, read> fz: array<f32>;
@group(0) @binding(13) var<storage, read> gx: array<f32>;
@group(0) @binding(14) var<storage, read> gy: array<f32>;
@group(0) @binding(15) var<storage, read> gz: array<f32>;

@compute @workgroup_size(WG, 1, 1)
fn sample_probes(@builtin(global_invocation_id) gid: vec3<u32>) {
    let q = gid.x;
    if (q >= arrayLength(&probes)) {
        return;
    }
    let e = probes[q];
    let every = e.every;
    if ((step.n + 1u) % every != 0u) {
        return;
    }
    let slot = (step.n + 1u) / every - step.n0 / every - 1u;
    let l = e.index;
    var v: f32;
    switch e.component {
        case 0u: {
            v = fx[l];
        }
        case 1u: {
            v = fy[l];
        }
        case 2u: {
            v = fz[l];
        }
        case 3u: {
            v = gx[l];
        }
        case 4u: {
            v = gy[l];
        }
        default: {
            v = gz[l];
        }
    }
    out[e.base + slot] = v;
}

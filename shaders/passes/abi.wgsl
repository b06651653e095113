// The point-pass ABI (solver/core/src/pass.rs): what the GPU backend binds for every
// extension pass. kernels.rs assembles a pass's module as prelude.wgsl + this file +
// the pass's own file, so a pass's WGSL holds only its entry point(s).

// Threads per workgroup of a non-serial pass (`@workgroup_size(WG, 1, 1)`).
override WG: u32 = 64u;
// Output slots per stream: the GPU backend's steps per submission, at most. Stream q's
// samples of a submission go to out[q * SLOTS + slot], slot = how many times the
// stream was due since step n0, minus one.
override SLOTS: u32 = 64u;

@group(1) @binding(0) var<uniform> step: Step;

// The six fields of the piece (local flat indices, as in records[q].y).
@group(0) @binding(0) var<storage, read_write> ex: array<f32>;
@group(0) @binding(1) var<storage, read_write> ey: array<f32>;
@group(0) @binding(2) var<storage, read_write> ez: array<f32>;
@group(0) @binding(3) var<storage, read_write> hx: array<f32>;
@group(0) @binding(4) var<storage, read_write> hy: array<f32>;
@group(0) @binding(5) var<storage, read_write> hz: array<f32>;
// The pass's records on this piece; .y is the sample's local flat index.
@group(0) @binding(6) var<storage, read> records: array<vec4<u32>>;
// Source values of the submission, [step.s][model source] (row length step.ns).
@group(0) @binding(7) var<storage, read> values: array<f32>;
// The pass's output streams, SLOTS floats each, in Pass::outputs order.
@group(0) @binding(8) var<storage, read_write> out: array<f32>;
// The pass's state arrays (Pass::state), concatenated in order.
@group(0) @binding(9) var<storage, read_write> state: array<f32>;
// The pass's own parameters (DevicePass::params; f32 values as bitcast<f32>(params[i])).
@group(0) @binding(10) var<storage, read> params: array<u32>;

// Field access by component, the one switch every pass shares: c is the component index
// (0..5 = Ex, Ey, Ez, Hx, Hy, Hz, as Component::index and the records' .x), l the
// local flat index (records[q].y).
fn read_field(c: u32, l: u32) -> f32 {
    switch c {
        case 0u: {
            return ex[l];
        }
        case 1u: {
            return ey[l];
        }
        case 2u: {
            return ez[l];
        }
        case 3u: {
            return hx[l];
        }
        case 4u: {
            return hy[l];
        }
        default: {
            return hz[l];
        }
    }
}

fn write_field(c: u32, l: u32, v: f32) {
    switch c {
        case 0u: {
            ex[l] = v;
        }
        case 1u: {
            ey[l] = v;
        }
        case 2u: {
            ez[l] = v;
        }
        case 3u: {
            hx[l] = v;
        }
        case 4u: {
            hy[l] = v;
        }
        default: {
            hz[l] = v;
        }
    }
}

// A sample of a region-scope entry (Scope::Region): the backend writes, per piece, three
// records per slice of a region on the piece: (i0, j0, k0, region), (ni, nj, nk, end),
// (l0, sx, sy, start): the slice's first sample (global indices), its sizes, its
// threads start..end, the local flat index of its first sample and the local strides.
struct RegionSample {
    // Index of the region in DevicePass::regions.
    region: u32,
    // Global grid indices of the sample.
    at: vec3<u32>,
    // Local flat index of the sample (for read_field/write_field).
    l: u32,
    // Local strides along x and y (z: 1), to reach a neighbouring sample.
    sx: u32,
    sy: u32,
    // False for a thread past the last sample.
    valid: bool,
}

// Thread q's sample: a binary search over the piece's slices.
fn region_sample(q: u32) -> RegionSample {
    var out: RegionSample;
    out.valid = false;
    let n = arrayLength(&records) / 3u;
    if (n == 0u || q >= records[3u * (n - 1u) + 1u].w) {
        return out;
    }
    var lo = 0u;
    var hi = n - 1u;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        if (records[3u * mid + 1u].w > q) {
            hi = mid;
        } else {
            lo = mid + 1u;
        }
    }
    let a = records[3u * lo];
    let sz = records[3u * lo + 1u];
    let c = records[3u * lo + 2u];
    let t = q - c.w;
    let dk = t % sz.z;
    let dj = (t / sz.z) % sz.y;
    let di = t / (sz.z * sz.y);
    out.region = a.w;
    out.at = vec3<u32>(a.x + di, a.y + dj, a.z + dk);
    out.l = c.x + di * c.y + dj * c.z + dk;
    out.sx = c.y;
    out.sy = c.z;
    out.valid = true;
    return out;
}

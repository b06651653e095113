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

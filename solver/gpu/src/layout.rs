//! How the grid is laid out in GPU buffers, and the memory plan.
//!
//! WGSL indexes with u32 and a storage binding is capped (2 GiB on NVIDIA Vulkan,
//! 128 MiB on lavapipe), so one component of a large grid cannot live in one binding.
//! The grid is therefore cut along x into *pieces* (slabs of whole y-z planes). Every
//! per-sample array of a piece is its own buffer, small enough to be bound whole:
//!
//! * fields (one buffer per component) and material indices (u16, two per u32 word)
//!   hold the piece's owned planes `i0 .. i0 + planes` plus one ghost plane on each
//!   side; global `(i, j, k)` is at local index `(i − i0 + 1)·sx + j·sy + k`, where
//!   `sy ≥ nz + 1` may round rows up to an aligned length (`row_align`) and
//!   `sx = (ny + 1)·sy`;
//! * uniform-row flags (E and H, three components each) cover the owned planes;
//! * CPML ψ arrays cover the part of their layer inside the owned planes; a piece holds
//!   those of one phase (E or H) and one target (the layer axis + 1 or + 2) for every
//!   layer in one buffer, so four ψ buffers per piece, each also within the cap.
//!
//! The ghost planes make every stencil local to a piece: after the H phase of a step
//! each piece's low ghost receives Hy, Hz of the plane below it (for the first piece,
//! the periodic image H[nx−1] when x is periodic); after the E phase each piece's high
//! ghost receives Ey, Ez of the plane above it. All local indices stay below
//! `binding cap / 4 ≤ 2^29`, so u32 arithmetic in the kernels never overflows.
use super::device::DeviceInfo;
use fdtd_core::backend::BackendError;
use fdtd_core::plan::{human_bytes, Plan};
use fdtd_core::simulation::Simulation;

/// Most steps recorded into one submission (probe buffers are sized for it).
pub const MAX_STEPS: usize = 64;
/// Upper bound of the readback staging buffers (snapshots, read_field).
pub const STAGING_MAX: u64 = 64 << 20;
/// Bytes of one kernel-parameter block (one uniform buffer per dispatch).
pub const PARAM_BYTES: u64 = 256;
/// Bytes of one step record slot (dynamic-offset uniform), at least the adapter's
/// uniform offset alignment.
pub const STEP_RECORD_BYTES: u64 = 256;

/// Row padding chosen when none is configured: the largest of 32, 16 and 8 samples
/// (128, 64, 32 bytes) that adds at most 1/16 to the arrays, else none. On the H200,
/// rows aligned to 128 bytes made the bulk kernels about 10 % faster (512³: rows of
/// 513 samples vs 544; docs/performance.md).
pub fn auto_row_align(row: usize) -> usize {
    for a in [32, 16, 8] {
        if (row.next_multiple_of(a) - row) * 16 <= row {
            return a;
        }
    }
    1
}

/// One slab of whole x planes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// First owned plane (global x index).
    pub i0: usize,
    /// Owned planes.
    pub planes: usize,
}

impl Piece {
    pub fn end(&self) -> usize {
        self.i0 + self.planes
    }
}

/// Buffer geometry shared by the plan and the backend.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub pieces: Vec<Piece>,
    /// Local strides along x and y (samples).
    pub sx: usize,
    pub sy: usize,
    /// The binding cap the pieces were sized for (bytes).
    pub cap: u64,
    /// Readback staging size (bytes).
    pub staging: u64,
    /// Output stream slots of every extension pass (probe components and the like).
    pub out_slots: usize,
}

impl Layout {
    /// Cut `model`'s grid for binding cap `cap` (bytes), with rows of `nz + 1` samples
    /// padded to a multiple of `row_align` samples (1: no padding).
    pub fn new(model: &Simulation, cap: u64, row_align: usize) -> Result<Layout, BackendError> {
        let g = &model.grid;
        let [nx, ny, nz] = g.n;
        let sy = (nz + 1).next_multiple_of(row_align.max(1));
        let sx = (ny + 1) * sy;
        let plane = 4 * sx as u64;
        // Fields: (planes + 2 ghosts) · plane ≤ cap; row flags: 3 · planes · (ny+1) · 4 ≤ cap.
        let by_field = (cap / plane).saturating_sub(2);
        let by_rows = cap / (12 * (ny as u64 + 1));
        let by_binding = by_field.min(by_rows) as usize;
        // ψ of one phase and target on a piece of p planes grows with p: the largest p
        // that fits (p = 1 always does when the fields do: the layers on one axis are
        // together thinner than the axis, so that ψ is below 3 planes).
        let psi_fits = |p: usize| 4 * psi_floats_bound(model, p) <= cap;
        let max_planes = if by_binding == 0 || psi_fits(by_binding) {
            by_binding
        } else {
            let (mut lo, mut hi) = (0, by_binding);
            while hi - lo > 1 {
                let mid = (lo + hi) / 2;
                if psi_fits(mid) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            lo
        };
        if max_planes == 0 {
            return Err(BackendError::DoesNotFit(format!(
                "one y-z plane of the grid ({} x {} samples, {} per field component) with its two ghost \
                 planes exceeds the device's largest storage binding ({}); the GPU backend splits the \
                 grid along x only, so ny·nz must shrink (make the x axis the longest one, or use \
                 coarser cells), or run on the CPU backend",
                ny + 1,
                nz + 1,
                human_bytes(plane),
                human_bytes(cap)
            )));
        }
        let n_planes = nx + 1;
        let count = n_planes.div_ceil(max_planes);
        let (base, extra) = (n_planes / count, n_planes % count);
        let mut pieces = Vec::with_capacity(count);
        let mut i0 = 0;
        for p in 0..count {
            let planes = base + usize::from(p < extra);
            pieces.push(Piece { i0, planes });
            i0 += planes;
        }
        let field_bytes = 4 * g.len() as u64;
        let staging = STAGING_MAX.min(cap).min(field_bytes.max(4 * sy as u64)).max(4);
        // Output streams of every extension pass (probe samples and any other).
        let out_slots = model.schedule.passes.iter().map(|p| p.outputs.len()).sum();
        Ok(Layout {
            pieces,
            sx,
            sy,
            cap,
            staging,
            out_slots,
        })
    }

    /// The piece that owns global plane `i`.
    pub fn owner(&self, i: usize) -> usize {
        self.pieces.partition_point(|p| p.end() <= i)
    }

    /// Local index of global `(i, j, k)` in piece `p` (i may be a ghost plane).
    pub fn local(&self, p: usize, i: usize, j: usize, k: usize) -> usize {
        (i + 1 - self.pieces[p].i0) * self.sx + j * self.sy + k
    }

    /// Samples of one piece's field buffer (owned planes + 2 ghosts).
    pub fn field_len(&self, p: usize) -> usize {
        (self.pieces[p].planes + 2) * self.sx
    }

    /// u32 words of one piece's packed material-index buffer.
    pub fn mat_words(&self, p: usize) -> usize {
        self.field_len(p).div_ceil(2)
    }

    /// Number of model sources and the bytes of the per-submission source values.
    pub fn source_bytes(model: &Simulation) -> u64 {
        (4 * MAX_STEPS * model.sources.len()).max(4) as u64
    }

    pub fn out_bytes(&self) -> u64 {
        (4 * MAX_STEPS * self.out_slots).max(4) as u64
    }
}

/// An upper bound on the floats of one ψ buffer (one phase, one target, every layer)
/// of a piece of `p` planes, wherever it lies: the x layers hold at most
/// `min(p, their thickness together)` of its planes, y and z layers all of them. H
/// profiles are the longer ones (one sample more than E per layer).
fn psi_floats_bound(model: &Simulation, p: usize) -> u64 {
    let [_, d1, d2] = model.grid.dims();
    let len = |l: &fdtd_core::model::CpmlLayer| l.h.len().max(l.e.len());
    let x_planes: usize = model.cpml.iter().filter(|l| l.axis == 0).map(len).sum();
    let yz: usize = model
        .cpml
        .iter()
        .map(|l| match l.axis {
            1 => len(l) * d2,
            2 => d1 * len(l),
            _ => 0,
        })
        .sum();
    (p.min(x_planes) * d1 * d2 + p * yz) as u64
}

/// Device-local memory a run uses besides its buffers: the driver's context, compiled
/// pipelines, bind groups, wgpu's internal buffers. Measured on the H200 (NVIDIA 580,
/// Vulkan; docs/gpu.md): heap usage minus the device-local buffers was 10 MiB at 512³ and
/// 70 MiB at 1100³ (3 slabs).
pub const DEVICE_OVERHEAD: u64 = 64 << 20;
/// Upload staging in flight at once, in host memory: the build waits after
/// [`crate::build::UPLOAD_CHUNK`] bytes, `load_state` after 64 MiB.
pub const UPLOAD_STAGING: u64 = 64 << 20;

/// The memory plan of the GPU backend: the common buffers plus the GPU's own and what
/// the driver takes on `dev`.
pub fn plan(model: &Simulation, layout: &Layout, dev: &DeviceInfo) -> Plan {
    let mut p = Plan::common(model, 2);
    let ghosts = 2 * layout.pieces.len() as u64 * layout.sx as u64 * (6 * 4 + 6 * 2);
    let pad = (layout.sy - model.grid.n[2] - 1) as u64 * (model.grid.n[1] as u64 + 1) * (model.grid.n[0] as u64 + 1);
    if pad > 0 {
        p.add(
            format!("row padding (rows of {} samples)", layout.sy),
            pad * (6 * 4 + 6 * 2),
        );
    }
    p.add(
        format!(
            "ghost planes ({} x slab{}, 2 planes each)",
            layout.pieces.len(),
            if layout.pieces.len() == 1 { "" } else { "s" }
        ),
        ghosts,
    );
    if !model.sources.is_empty() {
        p.add(
            format!(
                "source values ({} sources x {} steps; f32)",
                model.sources.len(),
                MAX_STEPS
            ),
            Layout::source_bytes(model) + 16 * model.sources.len() as u64,
        );
    }
    if layout.out_slots > 0 {
        p.add(
            format!("pass output streams ({} x {} steps)", layout.out_slots, MAX_STEPS),
            layout.out_bytes() + 16 * layout.out_slots as u64,
        );
        p.add_host("pass output readback (2 mappable copies)", 2 * layout.out_bytes());
    }
    // Monitor records (a vec4<u32> per recorded sample; the few of sources and probes are
    // in the overheads). Their state is counted by `Plan::common`.
    let records: usize = model.monitors.iter().map(|m| m.records()).sum();
    if records > 0 {
        p.add(format!("monitor records ({records} samples)"), 16 * records as u64);
    }
    // Region-scope passes (dispersive media): their parameters (coefficients, the
    // boxes' bit masks and plane offsets) and three records per box and piece; the
    // state is counted by `Plan::common`.
    // Record-scope passes other than the monitors (a plane wave's corrected samples and
    // their terms, lumped elements, probes): a vec4<u32> per record and their parameters.
    let monitors: Vec<String> = model.monitors.iter().map(|m| m.pass_name()).collect();
    for sp in &model.schedule.passes {
        let dp = sp.pass.device();
        if dp.regions.is_empty() && !monitors.iter().any(|m| m == sp.pass.name()) {
            let bytes = 4 * dp.params.len() as u64 + 16 * dp.records.len() as u64;
            if bytes >= 1 << 20 {
                p.add(
                    format!(
                        "{} parameters and records ({} records)",
                        sp.pass.name(),
                        dp.records.len()
                    ),
                    bytes,
                );
            }
        }
        if !dp.regions.is_empty() {
            let bytes = 4 * dp.params.len() as u64 + 48 * (dp.regions.len() * layout.pieces.len()) as u64;
            p.add(
                format!("{} parameters ({} boxes)", sp.pass.name(), dp.regions.len()),
                bytes,
            );
        }
    }
    p.add("readback gather buffer", layout.staging);
    p.add_host("readback staging (mappable)", layout.staging);
    p.add(
        "kernel parameters and step records (uniform)",
        STEP_RECORD_BYTES * MAX_STEPS as u64 + PARAM_BYTES * estimated_dispatches(layout),
    );
    if !dev.is_software() {
        p.add("driver, pipelines (measured per device)", DEVICE_OVERHEAD);
    }
    // No more than what is uploaded: the material indices, then (on resume) the state.
    p.add_host("upload staging (bounded)", UPLOAD_STAGING.min(p.total()));
    let largest = (0..layout.pieces.len()).map(|k| layout.mat_words(k)).max().unwrap_or(0);
    p.add_host("packed indices of one component (upload)", 4 * largest as u64);
    p
}

/// Parameter blocks the backend creates (one per prepared dispatch).
fn estimated_dispatches(layout: &Layout) -> u64 {
    let p = layout.pieces.len() as u64;
    // bulk H and E (two blocks each), up to 12 face jobs, periodic, ghost copies.
    p * (4 + 12 + 2) + 4 * p + 8
}

/// Refuse a layout whose buffers pass the device's largest buffer (the slab cut keeps
/// the per-piece arrays below it; the others are small, but say so if not).
pub fn check_limits(model: &Simulation, layout: &Layout, dev: &DeviceInfo) -> Result<(), BackendError> {
    let biggest = [layout.staging, layout.out_bytes(), Layout::source_bytes(model)]
        .into_iter()
        .max()
        .unwrap_or(0);
    // A pass's state arrays are one buffer, bound whole (a monitor's Re/Im per sample and
    // frequency); its records on a piece are one buffer and one 1-D dispatch.
    for sp in &model.schedule.passes {
        let floats: usize = sp.state.iter().map(|&a| model.schedule.state[a].len()).sum();
        let bytes = 4 * floats as u64;
        if bytes > dev.binding_cap {
            // A region-scope pass (dispersive media) grows with the volume it covers; a
            // monitor with its frequencies and region.
            let fix = if sp.pass.device().regions.is_empty() {
                "use fewer frequencies or a smaller region, split it into several monitors, or run on the CPU"
            } else {
                "coarser cells, fewer poles or a smaller dispersive region would fit, or run on the CPU (no such limit there)"
            };
            return Err(BackendError::DoesNotFit(format!(
                "pass `{}` keeps {} of state, more than {}'s largest storage binding ({}); {fix}",
                sp.pass.name(),
                human_bytes(bytes),
                dev.short(),
                human_bytes(dev.binding_cap)
            )));
        }
        // Records go to the piece that owns their plane: the largest share counts.
        let mut per_piece = vec![0u64; layout.pieces.len()];
        for r in &sp.pass.device().records {
            // A model resized for a plan search keeps its records: clamp to the last piece.
            per_piece[layout.owner(r.at[0]).min(layout.pieces.len().saturating_sub(1))] += 1;
        }
        // A region-scope pass: one thread per sample of its boxes' slices on a piece.
        let mut threads = per_piece.clone();
        for r in &sp.pass.device().regions {
            for (k, piece) in layout.pieces.iter().enumerate() {
                let planes = r.hi[0].min(piece.end()).saturating_sub(r.lo[0].max(piece.i0));
                threads[k] += (planes * (r.hi[1] - r.lo[1]) * (r.hi[2] - r.lo[2])) as u64;
            }
        }
        let records = per_piece.into_iter().max().unwrap_or(0);
        let threads = threads.into_iter().max().unwrap_or(0);
        // Dispatched in rows of max_workgroups_per_dim workgroups of 64 (build.rs); the
        // thread index is a u32.
        let groups = threads.div_ceil(64);
        let max = dev.max_workgroups_per_dim as u64;
        if 16 * records > dev.binding_cap || groups > max * max || threads > u32::MAX as u64 {
            return Err(BackendError::DoesNotFit(format!(
                "pass `{}` has {records} samples on one slab, more than {}'s largest storage binding of records takes; \
                 split it into several monitors, or run on the CPU",
                sp.pass.name(),
                dev.short()
            )));
        }
    }
    if biggest > dev.max_buffer_size {
        return Err(BackendError::DoesNotFit(format!(
            "a {} buffer exceeds the device's max buffer size {}",
            human_bytes(biggest),
            human_bytes(dev.max_buffer_size)
        )));
    }
    Ok(())
}

/// The message of a plan over the budget: need, what the device can give, and what
/// would fit (from [`crate::what_fits`]: the same plan at other sizes).
pub fn refusal(
    model: &Simulation,
    dev: &DeviceInfo,
    fraction: f64,
    need: u64,
    usable: u64,
    fits: &crate::Fits,
) -> String {
    let avail = dev.memory.available().unwrap_or(usable);
    format!(
        "the GPU plan needs {} but {} can give {} ({}% of {}: {}). What would fit: {}",
        human_bytes(need),
        dev.short(),
        human_bytes(usable),
        format!("{:.3}", fraction * 100.0)
            .trim_end_matches('0')
            .trim_end_matches('.'),
        human_bytes(avail),
        dev.memory.describe(),
        fit_options(model, fits)
    )
}

/// `a grid of N^3 cells (plan ...); or cells 1.2x larger ...; or the CPU backend (...)`.
pub fn fit_options(model: &Simulation, fits: &crate::Fits) -> String {
    let cpu = Plan::common(model, 2).total();
    let mut options = Vec::new();
    if let Some((side, plan)) = fits.cube {
        options.push(format!(
            "a grid of {side}^3 cells of {} (plan {})",
            fdtd_core::fmt::lengths(model.grid.d),
            human_bytes(plan)
        ));
    }
    if let Some((f, n, plan)) = fits.coarser {
        options.push(format!(
            "cells {f:.2}x larger along each axis for this domain ({} x {} x {} cells, plan {})",
            n[0],
            n[1],
            n[2],
            human_bytes(plan)
        ));
    }
    options.push(format!("the CPU backend (about {} of RAM)", human_bytes(cpu)));
    options.join("; or ")
}

#[cfg(test)]
mod tests {
    use super::auto_row_align;

    #[test]
    fn gpu_auto_row_align() {
        assert_eq!(auto_row_align(513), 32); // 544: +6 %
        assert_eq!(auto_row_align(801), 32);
        assert_eq!(auto_row_align(512), 32); // already aligned
        assert_eq!(auto_row_align(257), 16); // 272
        assert_eq!(auto_row_align(101), 8); // 104
        assert_eq!(auto_row_align(13), 1); // 16 would add 23 %
    }
}

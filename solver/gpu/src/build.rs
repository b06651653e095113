//! Allocation of every buffer and the per-step list of dispatches.
//!
//! Everything a step needs is prepared once: one uniform parameter block (a type of
//! [`crate::params`]) and one bind group per dispatch. The dispatches are compiled by
//! one loop over the schedule's stage list (`Schedule::stages`, which the CPU backend
//! executes too), each [`Op`] tagged with its stage: `HBulk` / `EBulk` are `update_h` /
//! `update_e` per piece with the following `HCpml` / `ECpml` fused in (slots and signs
//! from the schedule: [`cpml_table`]); `Hook` stages are the passes' kernels per piece;
//! `HaloH` / `HaloE` the ghost-plane copies; `EFaces` the face-plane jobs;
//! `PeriodicCopies` the copies of the high face planes.
use super::kernels::{Kernel, Kernels, PassKernel, Shapes, POINT_PASS};
use super::layout::{Layout, Piece, MAX_STEPS, PARAM_BYTES};
use super::params::{CopyJob, FaceJob, Grid, Layer, Linear, Periodic, Step};
use fdtd_core::model::FaceKind;
use fdtd_core::pass::{Hook, Scope};
use fdtd_core::schedule::Stage;
use fdtd_core::simulation::Simulation;

/// Which pipeline a dispatch runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pipe {
    Fixed(Kernel),
    /// Entry `e` (of [`fdtd_core::schedule::ScheduledPass::entries`]) of extension pass
    /// `k` of the schedule ([`Built::passes`]).
    Pass(usize, usize),
}

/// One prepared dispatch.
pub struct Op {
    pub pipe: Pipe,
    pub bg: wgpu::BindGroup,
    pub groups: [u32; 3],
    /// For a pass that acts only when a stream is due (`DevicePass::only_when_due`),
    /// its streams' `every`: the dispatch is skipped at steps where none is due
    /// (empty: it always runs).
    pub due: Vec<usize>,
    /// Name in profiles (`profile_steps`).
    pub label: String,
    /// Index of the schedule stage it belongs to ([`fdtd_core::schedule::Schedule::stages`]).
    pub stage: usize,
}

impl Op {
    /// Whether it runs after step `n`.
    pub fn runs_at(&self, n: usize) -> bool {
        self.due.is_empty() || self.due.iter().any(|&e| fdtd_core::pass::due(e, n))
    }
}

/// Buffers of one piece (held so they live as long as the backend).
#[allow(dead_code)]
pub struct PieceBufs {
    /// Ex, Ey, Ez, Hx, Hy, Hz.
    pub fields: [wgpu::Buffer; 6],
}

/// Everything allocated for a run.
pub struct Built {
    #[allow(dead_code)]
    pub pieces: Vec<PieceBufs>,
    /// Per-step dispatches in order.
    pub ops: Vec<Op>,
    /// Source values of a submission, `[step][source]`.
    pub values: wgpu::Buffer,
    /// Step records (dynamic-offset uniform) and their bind group.
    pub steps: wgpu::Buffer,
    pub step_bg: wgpu::BindGroup,
    pub step_stride: u64,
    /// Output streams of every pass on the device (`MAX_STEPS` slots each, in schedule
    /// order) and two readback copies (two submissions in flight).
    pub pass_out: wgpu::Buffer,
    pub pass_maps: [wgpu::Buffer; 2],
    /// The kernels of the schedule's extension passes, by pass index.
    pub passes: Vec<PassKernel>,
    /// Readback: gather parameters, packed box, mappable copy; bind groups per piece
    /// and component.
    pub gather_params: wgpu::Buffer,
    pub pack: wgpu::Buffer,
    pub map: wgpu::Buffer,
    pub gather_bgs: Vec<Vec<wgpu::BindGroup>>,
    /// Buffers that only need to stay alive.
    #[allow(dead_code)]
    pub keep: Vec<wgpu::Buffer>,
    /// The build stopped allocating at the [`ALLOC_FAIL_ENV`] limit.
    pub injected_oom: bool,
    /// Where every state array other than the fields lives on the device (save/load).
    pub state: Vec<StateBuf>,
}

/// A run of one state array on the device: values `offset .. offset + len` of array
/// `array` of the model's state table (C order), held at floats `at .. at + len` of
/// `buffer`.
pub struct StateBuf {
    pub array: usize,
    pub buffer: wgpu::Buffer,
    pub at: usize,
    pub offset: usize,
    pub len: usize,
}

/// Workgroups for `count` threads of a linear kernel with `wg` threads per group, as a
/// 2-D grid within `max_dim` per dimension; returns (groups, threads per grid row).
pub fn linear(count: usize, wg: u32, max_dim: u32) -> ([u32; 3], u32) {
    let groups = count.div_ceil(wg as usize).max(1);
    let x = groups.min(max_dim as usize);
    let y = groups.div_ceil(x);
    ([x as u32, y as u32, 1], x as u32 * wg)
}

fn u(x: usize) -> u32 {
    u32::try_from(x).expect("index fits in u32 (guaranteed by the slab layout)")
}

/// Most bytes uploaded before the build waits for the copies to finish. `write_buffer`
/// stages its data in a buffer of its own until the copy has run, so uploading every
/// piece's material indices at once (or creating them mapped) would hold a second copy of
/// them in memory; with this bound the staging of a whole build is at most this much.
pub const UPLOAD_CHUNK: usize = 32 << 20;

/// Environment variable (fault injection, for tests): the build fails as if the device
/// ran out of memory once this many bytes of buffers are allocated, so the handling of a
/// driver that refuses a plan its budget accepted can be tested on any device.
pub const ALLOC_FAIL_ENV: &str = "FDTD_GPU_ALLOC_FAIL_AFTER";

struct Builder<'a> {
    device: &'a wgpu::Device,
    queue: &'a wgpu::Queue,
    /// Bytes written since the last wait (see [`UPLOAD_CHUNK`]).
    staged: usize,
    /// Bytes of buffers created, and the injected allocation limit ([`ALLOC_FAIL_ENV`]).
    allocated: u64,
    fail_after: Option<u64>,
    injected_oom: bool,
    kernels: &'a Kernels,
    shapes: Shapes,
    max_dim: u32,
    keep: Vec<wgpu::Buffer>,
    state: Vec<StateBuf>,
}

impl Builder<'_> {
    fn storage_init(&mut self, label: &str, data: &[u8]) -> wgpu::Buffer {
        self.upload(
            label,
            data,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        )
    }

    /// A buffer holding `data`, uploaded in pieces of at most [`UPLOAD_CHUNK`] bytes with a
    /// wait whenever that much is staged. Never created mapped: a buffer the device
    /// could not allocate is then an error in the build's error scope, not a panic.
    fn upload(&mut self, label: &str, data: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
        let buf = self.zeroed(label, data.len() as u64, usage | wgpu::BufferUsages::COPY_DST);
        if self.injected_oom {
            return buf;
        }
        for (i, piece) in data.chunks(UPLOAD_CHUNK).enumerate() {
            self.queue.write_buffer(&buf, (i * UPLOAD_CHUNK) as u64, piece);
            self.staged += piece.len();
            if self.staged >= UPLOAD_CHUNK {
                self.flush_uploads();
            }
        }
        buf
    }

    /// Run the pending uploads and wait for them, which frees their staging.
    fn flush_uploads(&mut self) {
        self.queue.submit([]);
        let _ = self.device.poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: None,
        });
        self.staged = 0;
    }

    fn zeroed(&mut self, label: &str, bytes: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        let size = bytes.max(4).next_multiple_of(4);
        self.allocated += size;
        let size = match self.fail_after {
            // Injected failure: stand-in buffers from here on, the build reports it.
            Some(limit) if self.allocated > limit => {
                self.injected_oom = true;
                size.min(4096)
            }
            _ => size,
        };
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        })
    }

    fn field(&mut self, label: &str, floats: usize) -> wgpu::Buffer {
        self.zeroed(
            label,
            4 * floats as u64,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        )
    }

    /// A uniform buffer holding parameter block `p` (at least [`PARAM_BYTES`]).
    fn params<P: bytemuck::Pod>(&mut self, p: &P) -> wgpu::Buffer {
        let raw = bytemuck::bytes_of(p);
        let bytes = raw.len().next_multiple_of(16).max(PARAM_BYTES as usize);
        let mut data = vec![0u8; bytes];
        data[..raw.len()].copy_from_slice(raw);
        self.upload("kernel parameters", &data, wgpu::BufferUsages::UNIFORM)
    }

    /// The bind group of one dispatch of `k`: buffers by WGSL variable name.
    fn bind(&self, k: Kernel, entries: &[(&str, &wgpu::Buffer)]) -> wgpu::BindGroup {
        let e: Vec<wgpu::BindGroupEntry> = entries
            .iter()
            .map(|&(name, b)| wgpu::BindGroupEntry {
                binding: k.binding(name),
                resource: b.as_entire_binding(),
            })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: self.kernels.layout(k),
            entries: &e,
        })
    }

    /// A linear-kernel op with its own parameter block `params`, bound to the WGSL
    /// variable `param` (its `stride` is set here).
    fn linear_op<P: Linear>(
        &mut self,
        k: Kernel,
        count: usize,
        mut params: P,
        bufs: &[(&str, &wgpu::Buffer)],
        param: &str,
    ) -> Op {
        let (groups, stride) = linear(count, Kernels::linear_wg(k, self.shapes), self.max_dim);
        params.set_stride(stride);
        let pb = self.params(&params);
        let mut entries: Vec<(&str, &wgpu::Buffer)> = vec![(param, &pb)];
        entries.extend_from_slice(bufs);
        let bg = self.bind(k, &entries);
        self.keep.push(pb);
        Op {
            pipe: Pipe::Fixed(k),
            bg,
            groups,
            due: Vec::new(),
            label: k.entry().to_string(),
            stage: 0,
        }
    }

    /// Copy `count` floats between (or within) field buffers.
    fn copy_op(&mut self, src: &wgpu::Buffer, src_off: usize, dst: &wgpu::Buffer, dst_off: usize, count: usize) -> Op {
        let job = CopyJob {
            src_off: u(src_off),
            dst_off: u(dst_off),
            count: u(count),
            ..Default::default()
        };
        if src == dst {
            self.linear_op(Kernel::CopyWithin, count, job, &[("buf", dst)], "cp")
        } else {
            self.linear_op(Kernel::CopyBetween, count, job, &[("src", src), ("dst", dst)], "cp")
        }
    }
}

/// Pack u16 material indices of component `c` into the local layout of piece `p`.
fn packed_mats(model: &Simulation, layout: &Layout, p: usize, c: usize) -> Vec<u32> {
    let piece = layout.pieces[p];
    let [nx, ny, nz] = model.grid.n;
    let gsx = model.grid.strides()[0];
    let mut words = vec![0u32; layout.mat_words(p)];
    let mat = &model.mat[c];
    for lp in 0..piece.planes + 2 {
        // Global plane of local plane lp; ghosts outside the grid stay 0.
        let Some(i) = (piece.i0 + lp).checked_sub(1) else {
            continue;
        };
        if i > nx {
            continue;
        }
        for j in 0..=ny {
            let src = &mat[i * gsx + j * (nz + 1)..][..nz + 1];
            let base = lp * layout.sx + j * layout.sy;
            for (k, &m) in src.iter().enumerate() {
                let l = base + k;
                words[l >> 1] |= (m as u32) << ((l & 1) * 16);
            }
        }
    }
    words
}

/// Allocate every buffer and prepare the dispatches of one step.
pub fn build(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    kernels: &Kernels,
    shapes: Shapes,
    model: &Simulation,
    layout: &Layout,
    uniform_align: u64,
) -> Built {
    let max_dim = device.limits().max_compute_workgroups_per_dimension;
    let fail_after = std::env::var(ALLOC_FAIL_ENV)
        .ok()
        .and_then(|v| fdtd_core::plan::parse_bytes(&v));
    let mut b = Builder {
        device,
        queue,
        staged: 0,
        allocated: 0,
        fail_after,
        injected_oom: false,
        kernels,
        shapes,
        max_dim,
        keep: Vec::new(),
        state: Vec::new(),
    };
    let g = &model.grid;
    let [nx, ny, nz] = g.n;
    let (sx, sy) = (layout.sx, layout.sy);
    let [idx, idy, idz] = g.inv_d();
    let np = layout.pieces.len();
    let names = ["Ex", "Ey", "Ez", "Hx", "Hy", "Hz"];

    // Coefficient tables, each followed by the CPML profiles of its phase (b, a,
    // 1/κ − 1 per layer): `tab` of update_e / update_h.
    let coef_e: Vec<f32> = model.coefs.e.iter().flat_map(|c| c.iter().copied()).collect();
    let mut tab_e = coef_e.clone();
    let mut tab_h = model.coefs.h.clone();
    let mut prof_e = Vec::new();
    let mut prof_h = Vec::new();
    for l in &model.cpml {
        prof_e.push(tab_e.len());
        for v in [&l.e.b, &l.e.a, &l.e.kinv] {
            tab_e.extend_from_slice(v);
        }
        prof_h.push(tab_h.len());
        for v in [&l.h.b, &l.h.a, &l.h.kinv] {
            tab_h.extend_from_slice(v);
        }
    }
    let coef_e = b.storage_init("coefs.e", bytemuck::cast_slice(&coef_e));
    let tab_e = b.storage_init("coefs.e + CPML E profiles", bytemuck::cast_slice(&tab_e));
    let tab_h = b.storage_init("coefs.h + CPML H profiles", bytemuck::cast_slice(&tab_h));
    // Box of E samples the CPML corrects, per component (the schedule's): `lo`, `hi` of
    // update_e's parameters.
    let e_box = model.schedule.e_box;
    let e_lo = e_box.map(|bx| [u(bx[0].0), u(bx[1].0), u(bx[2].0), 0]);
    let e_hi = e_box.map(|bx| [u(bx[0].1), u(bx[1].1), u(bx[2].1), 0]);

    // Per-piece arrays.
    let mut fields = Vec::with_capacity(np);
    let mut mats = Vec::with_capacity(np);
    let mut rows = Vec::with_capacity(np);
    // [E, H] parameter blocks and ψ buffers ([slot 0, slot 1] / [slot 2, slot 3]).
    let mut grid_params = Vec::with_capacity(np);
    let mut psi_bufs = Vec::with_capacity(np);
    for p in 0..np {
        let piece = layout.pieces[p];
        let len = layout.field_len(p);
        fields.push(std::array::from_fn::<_, 6, _>(|c| {
            b.field(&format!("{} piece {p}", names[c]), len)
        }));
        let m: [wgpu::Buffer; 6] = std::array::from_fn(|c| {
            let words = packed_mats(model, layout, p, c);
            b.storage_init(
                &format!("material indices {} piece {p}", names[c]),
                bytemuck::cast_slice(&words),
            )
        });
        mats.push(m);
        let r = (piece.i0 * (ny + 1), piece.end() * (ny + 1));
        let rows_of = |cs: std::ops::Range<usize>| -> Vec<u32> {
            cs.flat_map(|c| model.rows[c][r.0..r.1].iter().copied()).collect()
        };
        let re = b.storage_init("row flags E", bytemuck::cast_slice(&rows_of(0..3)));
        let rh = b.storage_init("row flags H", bytemuck::cast_slice(&rows_of(3..6)));
        rows.push([re, rh]);
        let grid = Grid {
            nx: u(nx),
            ny: u(ny),
            nz: u(nz),
            i0: u(piece.i0),
            planes: u(piece.planes),
            sx: u(sx),
            sy: u(sy),
            inv_dx: idx,
            inv_dy: idy,
            inv_dz: idz,
            lo: e_lo,
            hi: e_hi,
            ..Default::default()
        };
        let mut params = Vec::new();
        let mut psis = Vec::new();
        for electric in [true, false] {
            let (table, lay) = layer_table(model, piece, if electric { &prof_e } else { &prof_h }, electric);
            let (cpml_slot, cpml_sign) = cpml_table(model, electric);
            params.push(b.params(&Grid {
                lay,
                cpml_slot,
                cpml_sign,
                ..grid
            }));
            let total: usize = table.iter().map(|s| s.len).sum();
            let phase = if electric { "E" } else { "H" };
            let bufs: [wgpu::Buffer; 2] =
                std::array::from_fn(|t| b.field(&format!("CPML psi {phase} slot {t} piece {p}"), total));
            for s in &table {
                if s.len == 0 {
                    continue;
                }
                for (t, buf) in bufs.iter().enumerate() {
                    // The schedule lists 4 CPML passes per layer, in slot order.
                    let slot = t + if electric { 0 } else { 2 };
                    b.state.push(StateBuf {
                        array: model.schedule.cpml[4 * s.layer + slot].state,
                        buffer: buf.clone(),
                        at: s.at,
                        offset: s.offset,
                        len: s.len,
                    });
                }
            }
            psis.push(bufs);
        }
        let [pe, ph]: [wgpu::Buffer; 2] = params.try_into().expect("two phases");
        grid_params.push([pe, ph]);
        let [se, sh]: [[wgpu::Buffer; 2]; 2] = psis.try_into().expect("two phases");
        psi_bufs.push([se, sh]);
    }

    // Per-submission buffers.
    let values = b.zeroed(
        "source values",
        Layout::source_bytes(model),
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
    );
    let step_stride = super::layout::STEP_RECORD_BYTES.max(uniform_align);
    let steps = b.zeroed(
        "step records",
        step_stride * MAX_STEPS as u64,
        wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    );
    let step_bg = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("step records"),
        layout: &kernels.step_layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &steps,
                offset: 0,
                size: std::num::NonZeroU64::new(std::mem::size_of::<Step>() as u64),
            }),
        }],
    });
    let pass_out = b.zeroed(
        "pass output streams",
        layout.out_bytes(),
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    let pass_maps = std::array::from_fn(|_| {
        b.zeroed(
            "pass output readback",
            layout.out_bytes(),
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        )
    });

    let mut ops = Vec::new();
    let bulk_groups = |p: usize| {
        [
            u((nz + 1).div_ceil(shapes.bulk[0] as usize)),
            u((ny + 1).div_ceil(shapes.bulk[1] as usize)),
            u(layout.pieces[p].planes),
        ]
    };

    // One bulk dispatch of piece `p`: `s` = 0 for update_e, 1 for update_h, the index
    // into the per-phase kernel parameters, row flags and ψ buffers.
    let bulk_op = |b: &Builder, p: usize, s: usize| {
        let kernel = [Kernel::UpdateE, Kernel::UpdateH][s];
        let [ex, ey, ez, hx, hy, hz] = &fields[p];
        let m = &mats[p][3 * s..3 * s + 3];
        let bg = b.bind(
            kernel,
            &[
                ("g", &grid_params[p][s]),
                ("ex", ex),
                ("ey", ey),
                ("ez", ez),
                ("hx", hx),
                ("hy", hy),
                ("hz", hz),
                (["mat_ex", "mat_hx"][s], &m[0]),
                (["mat_ey", "mat_hy"][s], &m[1]),
                (["mat_ez", "mat_hz"][s], &m[2]),
                ("rows", &rows[p][s]),
                ("tab", [&tab_e, &tab_h][s]),
                ("psi0", &psi_bufs[p][s][0]),
                ("psi1", &psi_bufs[p][s][1]),
            ],
        );
        Op {
            pipe: Pipe::Fixed(kernel),
            bg,
            groups: bulk_groups(p),
            due: Vec::new(),
            label: kernel.entry().to_string(),
            stage: 0,
        }
    };

    // ---- the step: the schedule's stages, in order --------------------------------
    let passes = pass_kernels(device, kernels, shapes, model);
    let binds = pass_binds(&mut b, model, layout, &fields, &values, &pass_out, &passes);
    let stages = &model.schedule.stages;
    for (si, &stage) in stages.iter().enumerate() {
        let first = ops.len();
        match stage {
            // The CPML stages are fused into the bulk kernel before them: update_h /
            // update_e apply the corrections their `Grid::lay` and `Grid::cpml` name.
            Stage::HBulk | Stage::EBulk => {
                let s = usize::from(stage == Stage::HBulk);
                for p in 0..np {
                    ops.push(bulk_op(&b, p, s));
                }
            }
            Stage::HCpml | Stage::ECpml => {
                let bulk = if stage == Stage::HCpml {
                    Stage::HBulk
                } else {
                    Stage::EBulk
                };
                assert!(
                    si > 0 && stages[si - 1] == bulk,
                    "{stage:?} must follow {bulk:?}: the GPU fuses it into that kernel"
                );
            }
            Stage::Hook(hook) => pass_ops(&b, model, &passes, &binds, hook, &mut ops),
            Stage::HaloH => {
                // Hy, Hz of each piece's last plane into the next piece's low ghost.
                for p in 0..np.saturating_sub(1) {
                    let last = layout.pieces[p].planes * sx;
                    for c in [4, 5] {
                        ops.push(b.copy_op(&fields[p][c], last, &fields[p + 1][c], 0, sx));
                    }
                }
                if model.faces[0] == FaceKind::Periodic {
                    // The first piece's low ghost holds H[nx−1] (the periodic image of H[−1]).
                    let q = layout.owner(nx - 1);
                    for c in [4, 5] {
                        ops.push(b.copy_op(&fields[q][c], layout.local(q, nx - 1, 0, 0), &fields[0][c], 0, sx));
                    }
                }
            }
            // update_e then adds the CPML corrections of face-plane samples on top.
            Stage::EFaces => face_ops(&mut b, model, layout, &fields, &mats, &coef_e, &mut ops),
            Stage::PeriodicCopies => periodic_ops(&mut b, model, layout, &fields, &mut ops),
            Stage::HaloE => {
                // Ey, Ez of each piece's first plane into the previous piece's high ghost.
                for p in 0..np.saturating_sub(1) {
                    let high = (layout.pieces[p].planes + 1) * sx;
                    for c in [1, 2] {
                        ops.push(b.copy_op(&fields[p + 1][c], sx, &fields[p][c], high, sx));
                    }
                }
            }
        }
        for op in &mut ops[first..] {
            op.stage = si;
        }
    }

    // ---- readback ---------------------------------------------------------------
    let gather_params = b.zeroed(
        "gather parameters",
        PARAM_BYTES,
        wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    );
    let pack = b.zeroed(
        "readback pack",
        layout.staging,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    let map = b.zeroed(
        "readback map",
        layout.staging,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    );
    let gather_bgs = fields
        .iter()
        .map(|fs| {
            fs.iter()
                .map(|f| b.bind(Kernel::Gather, &[("cp", &gather_params), ("src", f), ("dst", &pack)]))
                .collect()
        })
        .collect();

    let mut keep = std::mem::take(&mut b.keep);
    keep.extend([coef_e, tab_e, tab_h]);
    keep.extend(grid_params.into_iter().flatten());
    keep.extend(psi_bufs.into_iter().flatten().flatten());
    for m in mats {
        keep.extend(m);
    }
    for r in rows {
        keep.extend(r);
    }
    // The last uploads' staging is freed before the run starts.
    b.flush_uploads();
    Built {
        pieces: fields.into_iter().map(|fields| PieceBufs { fields }).collect(),
        ops,
        values,
        steps,
        step_bg,
        step_stride,
        pass_out,
        pass_maps,
        gather_params,
        pack,
        map,
        gather_bgs,
        keep,
        state: std::mem::take(&mut b.state),
        passes,
        injected_oom: b.injected_oom,
    }
}

/// The schedule's CPML slots and signs of one phase as `update_e` / `update_h` read them
/// (`Grid::cpml_slot`, `cpml_sign`, `[component within the phase][layer axis]`): the
/// kernels hold no slot or sign of their own. Every layer on one axis has the same
/// ones (`Schedule::build`); unset entries (a == c, no layer) are 0.
pub fn cpml_table(model: &Simulation, electric: bool) -> ([[u32; 4]; 3], [[f32; 4]; 3]) {
    let mut slot = [[0u32; 4]; 3];
    let mut sign = [[0f32; 4]; 3];
    for p in model.schedule.cpml.iter().filter(|p| p.electric() == electric) {
        let (c, a) = (p.target % 3, p.axis);
        let (s, g) = (u(p.slot % 2), p.sign);
        debug_assert!(
            sign[c][a] == 0.0 || (slot[c][a], sign[c][a]) == (s, g),
            "the layers on axis {a} disagree on the CPML slot/sign of component {c}"
        );
        slot[c][a] = s;
        sign[c][a] = g;
    }
    (slot, sign)
}

/// Where one layer's ψ arrays of one phase sit on one piece: floats `at .. at + len`
/// of the piece's two ψ buffers (slot 0 and 1 of E, or 2 and 3 of H, at the same
/// place), holding floats `offset .. offset + len` of the CPU's arrays.
struct PsiSegment {
    layer: usize,
    at: usize,
    offset: usize,
    len: usize,
}

/// Where each layer's ψ goes on one piece for one phase, and the layer table of
/// update_e / update_h (`Grid::lay`, index 2·axis + high).
/// `prof[l]`: offset of layer l's profile in the phase's coefficient table.
fn layer_table(model: &Simulation, piece: Piece, prof: &[usize], electric: bool) -> (Vec<PsiSegment>, [Layer; 6]) {
    let dims = model.grid.dims();
    let mut lay = [Layer::default(); 6];
    let mut segs = Vec::new();
    let mut at = 0;
    for (li, l) in model.cpml.iter().enumerate() {
        let a = l.axis;
        let (first, len) = if electric {
            (l.e_first, l.e.len())
        } else {
            (l.h_first, l.h.len())
        };
        if len == 0 {
            continue;
        }
        let mut pd = dims;
        pd[a] = len;
        let (psx, psy) = (pd[1] * pd[2], pd[2]);
        // x planes of the layer's ψ on this piece: from x0, `planes` of them.
        let (x0, planes) = if a == 0 {
            let s = piece.i0.max(first);
            (s, piece.end().min(first + len).saturating_sub(s))
        } else {
            (piece.i0, piece.planes)
        };
        let n = planes * psx;
        let slot = 2 * a + usize::from(l.high);
        lay[slot] = Layer {
            first: u(first),
            len: u(len),
            x0: u(x0),
            psx: u(psx),
            psy: u(psy),
            base: u(at),
            prof: u(prof[li]),
            _pad: 0,
        };
        // The CPU's ψ array starts at x plane `first` for x layers, else at 0.
        let x_origin = if a == 0 { first } else { 0 };
        segs.push(PsiSegment {
            layer: li,
            at,
            offset: (x0 - x_origin) * psx,
            len: n,
        });
        at += n;
    }
    (segs, lay)
}

/// The schedule's periodic copies, in its axis order: x as copies between pieces, y and
/// z by `periodic_yz` on every piece.
fn periodic_ops(b: &mut Builder, model: &Simulation, layout: &Layout, fields: &[[wgpu::Buffer; 6]], ops: &mut Vec<Op>) {
    let [nx, ny, nz] = model.grid.n;
    let (sx, sy) = (layout.sx, layout.sy);
    let np = layout.pieces.len();
    for axis in model.schedule.copies.iter().map(|c| c.axis) {
        if axis == 0 {
            let last = np - 1;
            for c in [1, 2] {
                ops.push(b.copy_op(
                    &fields[0][c],
                    layout.local(0, 0, 0, 0),
                    &fields[last][c],
                    layout.local(last, nx, 0, 0),
                    sx,
                ));
            }
            continue;
        }
        for (piece, [ex, ey, ez, ..]) in layout.pieces.iter().zip(fields) {
            let count = piece.planes * if axis == 1 { nz + 1 } else { ny + 1 };
            let per = Periodic {
                axis: u(axis),
                ny: u(ny),
                nz: u(nz),
                sx: u(sx),
                sy: u(sy),
                count: u(count),
                ..Default::default()
            };
            ops.push(b.linear_op(
                Kernel::PeriodicYz,
                count,
                per,
                &[("ex", ex), ("ey", ey), ("ez", ez)],
                "per",
            ));
        }
    }
}

/// The schedule's face planes (PMC and periodic), one op per plane and piece.
fn face_ops(
    b: &mut Builder,
    model: &Simulation,
    layout: &Layout,
    fields: &[[wgpu::Buffer; 6]],
    mats: &[[wgpu::Buffer; 6]],
    coef_e: &wgpu::Buffer,
    ops: &mut Vec<Op>,
) {
    let n = model.grid.n;
    let inv = model.grid.inv_d();
    let code = |f: usize| model.faces[f].code();
    for fp in &model.schedule.faces {
        let (a, t, uu, plane) = (fp.comp, fp.normal, fp.along, fp.plane);
        for (p, piece) in layout.pieces.iter().enumerate() {
            let clip = |axis: usize, r: (usize, usize)| {
                if axis == 0 {
                    (r.0.max(piece.i0), r.1.min(piece.end()))
                } else {
                    r
                }
            };
            if t == 0 && !(piece.i0..piece.end()).contains(&plane) {
                continue;
            }
            let (ra, ru) = (clip(a, fp.range[a]), clip(uu, fp.range[uu]));
            if ra.1 <= ra.0 || ru.1 <= ru.0 {
                continue;
            }
            let wa = ra.1 - ra.0;
            let count = wa * (ru.1 - ru.0);
            let job = FaceJob {
                n: [u(n[0]), u(n[1]), u(n[2]), 0],
                faces0: [code(0), code(1), code(2), code(3)],
                faces1: [code(4), code(5), 0, 0],
                inv_d: [inv[0], inv[1], inv[2], 0.0],
                a: u(a),
                t: u(t),
                u: u(uu),
                plane: u(plane),
                ra0: u(ra.0),
                wa: u(wa),
                ru0: u(ru.0),
                count: u(count),
                i0: u(piece.i0),
                sx: u(layout.sx),
                sy: u(layout.sy),
                stride: 0,
            };
            let [ex, ey, ez, hx, hy, hz] = &fields[p];
            let [mx, my, mz, ..] = &mats[p];
            let op = b.linear_op(
                Kernel::Faces,
                count,
                job,
                &[
                    ("ex", ex),
                    ("ey", ey),
                    ("ez", ez),
                    ("hx", hx),
                    ("hy", hy),
                    ("hz", hz),
                    ("mat_ex", mx),
                    ("mat_ey", my),
                    ("mat_ez", mz),
                    ("coef", coef_e),
                ],
                "job",
            );
            ops.push(op);
        }
    }
}

/// Compile the kernel of every extension pass of the schedule.
fn pass_kernels(device: &wgpu::Device, kernels: &Kernels, shapes: Shapes, model: &Simulation) -> Vec<PassKernel> {
    model
        .schedule
        .passes
        .iter()
        .map(|sp| kernels.pass_kernel(device, &sp.pass.device(), &sp.entries, shapes))
        .collect()
}

/// What every entry of one extension pass dispatches with: per piece, its bind group
/// (the point-pass ABI's bindings over the pass's one state buffer) and how many
/// records it holds there; the steps at which the pass may be skipped (`Op::due`).
struct PassBinds {
    /// Per piece: the bind group and the threads of a per-record or region entry.
    pieces: Vec<Option<(wgpu::BindGroup, usize)>>,
    due: Vec<usize>,
}

/// The bindings of every extension pass (state, parameters, records per piece), made
/// once and shared by the pass's entries ([`pass_ops`]). A piece gets a bind group when
/// it holds records of the pass, and piece 0 always when the pass has a once-per-step
/// entry (with one unused record if it holds none).
#[allow(clippy::too_many_arguments)]
fn pass_binds(
    b: &mut Builder,
    model: &Simulation,
    layout: &Layout,
    fields: &[[wgpu::Buffer; 6]],
    values: &wgpu::Buffer,
    out: &wgpu::Buffer,
    kernels: &[PassKernel],
) -> Vec<PassBinds> {
    // Output streams of the passes before pass k (their slots come first in `out`).
    let mut streams = 0usize;
    let mut all = Vec::with_capacity(model.schedule.passes.len());
    for (k, sp) in model.schedule.passes.iter().enumerate() {
        let outputs = &sp.outputs;
        let first_stream = streams;
        streams += outputs.len();
        let dp = sp.pass.device();
        let mut lists: Vec<Vec<[u32; 4]>> = vec![Vec::new(); layout.pieces.len()];
        // Threads per piece: its records, or the samples of its slices of the regions.
        let mut threads = vec![0usize; layout.pieces.len()];
        for r in &dp.records {
            let [i, j, kk] = r.at;
            let p = layout.owner(i);
            let mut w = r.words;
            w[1] = u(layout.local(p, i, j, kk));
            lists[p].push(w);
            threads[p] += 1;
        }
        // A region-scope entry: per piece, three records per slice of a region
        // (`region_sample` in passes/abi.wgsl).
        for (ri, r) in dp.regions.iter().enumerate().filter(|(_, r)| !r.is_empty()) {
            for (p, piece) in layout.pieces.iter().enumerate() {
                let (a, b) = (r.lo[0].max(piece.i0), r.hi[0].min(piece.end()));
                if a >= b {
                    continue;
                }
                let (ny, nz) = (r.hi[1] - r.lo[1], r.hi[2] - r.lo[2]);
                let start = threads[p];
                threads[p] += (b - a) * ny * nz;
                lists[p].push([u(a), u(r.lo[1]), u(r.lo[2]), u(ri)]);
                lists[p].push([u(b - a), u(ny), u(nz), u(threads[p])]);
                lists[p].push([
                    u(layout.local(p, a, r.lo[1], r.lo[2])),
                    u(layout.sx),
                    u(layout.sy),
                    u(start),
                ]);
            }
        }
        let once = sp.entries.iter().any(|e| e.scope == Scope::Once);
        // The pass's state arrays, concatenated in one buffer (a word when it has none).
        let state_len: usize = sp.state.iter().map(|&a| model.schedule.state[a].len()).sum();
        let state = b.field(&format!("{} state", sp.pass.name()), state_len);
        let mut at = 0;
        for &a in &sp.state {
            let len = model.schedule.state[a].len();
            b.state.push(StateBuf {
                array: a,
                buffer: state.clone(),
                at,
                offset: 0,
                len,
            });
            at += len;
        }
        let params = b.storage_init(
            &format!("{} parameters", sp.pass.name()),
            bytemuck::cast_slice(&dp.params),
        );
        let kernel = &kernels[k];
        let mut everys: Vec<usize> = outputs.iter().map(|s| s.every).collect();
        everys.sort_unstable();
        everys.dedup();
        let mut pieces = Vec::with_capacity(lists.len());
        for (p, list) in lists.iter().enumerate() {
            if list.is_empty() && !(once && p == 0) {
                pieces.push(None);
                continue;
            }
            let words: &[[u32; 4]] = if list.is_empty() { &[[0; 4]] } else { list };
            let lb = b.storage_init(&format!("{} records", sp.pass.name()), bytemuck::cast_slice(words));
            let [ex, ey, ez, hx, hy, hz] = &fields[p];
            let out_at = (4 * first_stream * MAX_STEPS) as u64;
            let out_len = (4 * outputs.len().max(1) * MAX_STEPS) as u64;
            let out_binding = wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: out,
                offset: if outputs.is_empty() { 0 } else { out_at },
                size: std::num::NonZeroU64::new(if outputs.is_empty() { out.size() } else { out_len }),
            });
            let entries: Vec<wgpu::BindGroupEntry> = [
                ("ex", ex.as_entire_binding()),
                ("ey", ey.as_entire_binding()),
                ("ez", ez.as_entire_binding()),
                ("hx", hx.as_entire_binding()),
                ("hy", hy.as_entire_binding()),
                ("hz", hz.as_entire_binding()),
                ("records", lb.as_entire_binding()),
                ("values", values.as_entire_binding()),
                ("out", out_binding),
                ("state", state.as_entire_binding()),
                ("params", params.as_entire_binding()),
            ]
            .into_iter()
            .map(|(name, resource)| wgpu::BindGroupEntry {
                binding: point_pass_binding(name),
                resource,
            })
            .collect();
            let bg = b.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(sp.pass.name()),
                layout: &kernel.layout,
                entries: &entries,
            });
            pieces.push(Some((bg, threads[p])));
            b.keep.push(lb);
        }
        b.keep.push(state);
        b.keep.push(params);
        let due = if dp.only_when_due {
            everys
        } else if sp.pass.active_every() > 1 {
            vec![sp.pass.active_every()]
        } else {
            Vec::new()
        };
        all.push(PassBinds { pieces, due });
    }
    all
}

/// The dispatches of the pass entries at `hook` ([`Schedule::entries_at`] order): a
/// per-record entry is one op per piece that holds records of its pass; a once-per-step
/// entry is one thread on piece 0. Every entry of a pass uses the pass's bind groups.
///
/// [`Schedule::entries_at`]: fdtd_core::schedule::Schedule::entries_at
fn pass_ops(
    b: &Builder,
    model: &Simulation,
    kernels: &[PassKernel],
    binds: &[PassBinds],
    hook: Hook,
    ops: &mut Vec<Op>,
) {
    for (k, sp) in model.schedule.passes.iter().enumerate() {
        for (e, entry) in sp.entries.iter().enumerate().filter(|(_, x)| x.hook == hook) {
            let wg = kernels[k].wgs[e];
            for (p, piece) in binds[k].pieces.iter().enumerate() {
                let Some((bg, records)) = piece else { continue };
                let groups = match entry.scope {
                    Scope::Once if p == 0 => [1, 1, 1],
                    Scope::Once => continue,
                    Scope::Records | Scope::Region if *records == 0 => continue,
                    Scope::Records if wg == 1 => [1, 1, 1],
                    Scope::Records | Scope::Region => {
                        // One thread per record; rows of at most `max_dim` workgroups, the
                        // kernel continuing the record index in gid.y (q = gid.x +
                        // gid.y·groups.x·WG).
                        let n = records.div_ceil(wg as usize);
                        let max_dim = b.device.limits().max_compute_workgroups_per_dimension as usize;
                        if n <= max_dim {
                            [u(n), 1, 1]
                        } else {
                            [u(max_dim), u(n.div_ceil(max_dim)), 1]
                        }
                    }
                };
                ops.push(Op {
                    pipe: Pipe::Pass(k, e),
                    bg: bg.clone(),
                    groups,
                    due: binds[k].due.clone(),
                    label: if entry.entry.is_empty() {
                        sp.pass.name().to_string()
                    } else {
                        format!("{}.{}", sp.pass.name(), entry.entry)
                    },
                    stage: 0,
                });
            }
        }
    }
}

/// The binding number of the point-pass ABI's variable `name` (group 0).
fn point_pass_binding(name: &str) -> u32 {
    POINT_PASS
        .iter()
        .find(|b| b.group == 0 && b.name == name)
        .map(|b| b.binding)
        .expect("a binding of the point-pass ABI")
}

//! One time step as a single sweep over x-slabs (temporal fusion of H and E).
//!
//! E in slab `i` needs H in slabs `i−1` and `i`; H in slab `i` needs E in slabs `i`
//! and `i+1` from before the step. So one pass `H(0), E(0), H(1), E(1), …` over the
//! slabs is a correct step, and it reads each field array once while the slabs are
//! still in cache: ~48 bytes of memory traffic per cell instead of ~72 for separate
//! H and E sweeps.
//!
//! Parallel schedule: the slabs are cut into contiguous blocks, one rayon task each.
//! Phase 1: each task runs `H(i)` for all its slabs and `E(i)` for all but its first.
//! Phase 2: each task runs `E(first)`, which needed the previous block's last H.
//! Why tasks never race:
//! * `H(i)` reads `E(i)`, `E(i+1)`: each is either later in the same task or a block
//!   start, which nobody writes in phase 1.
//! * `E(i)` in phase 1 reads `H(i−1)`, `H(i)` of its own block, already done.
//! * Phase 2 writes only block-start E slabs, one per task, and reads H, now final
//!   (slab 0 is always a block start, so periodic x faces, which read `H(nx−1)`
//!   from `E(0)`, run there).
//!
//! The tasks share the field arrays through raw pointers ([`Shared`]); every slice
//! they make is confined to slabs the schedule above gives them.
use super::{boundary, cpml, update};
use fdtd_core::model::Model;
use fdtd_core::pass::{FieldsMut, Hook, HostCtx};
use rayon::prelude::*;

/// ψ slabs of one x-slab: `(CPML pass index, ψ slab)` for every CPML pass that touches it.
type SlabPsi<'a> = Vec<(usize, &'a mut [f32])>;

/// Split every CPML pass's ψ array into per-x-slab pieces, so each task owns its slabs'
/// ψ. `rest` is the state table after the six fields.
fn slab_psi<'a>(m: &Model, rest: &'a mut [Vec<f32>]) -> Vec<SlabPsi<'a>> {
    let mut out: Vec<SlabPsi> = (0..m.grid.dims()[0]).map(|_| Vec::new()).collect();
    let cpml = &m.schedule.cpml;
    // ψ arrays follow the fields in the table, one per CPML pass, in pass order.
    for (pi, (p, arr)) in cpml.iter().zip(rest.iter_mut()).enumerate() {
        debug_assert_eq!(p.state, 6 + pi);
        let (count, first) = p.psi_slabs();
        if p.psi_slab_len() == 0 || p.len == 0 {
            continue; // a 1-cell layer has no profiled E planes
        }
        for (s, chunk) in arr.chunks_mut(p.psi_slab_len()).take(count).enumerate() {
            out[first + s].push((pi, chunk));
        }
    }
    out
}

/// The six field arrays, shared by the sweep's tasks (see the module doc).
#[derive(Clone, Copy)]
struct Shared {
    ptr: [*mut f32; 6],
    /// Samples per x-slab.
    sx: usize,
    slabs: usize,
}

// SAFETY: the pointers stay valid for the whole sweep (the arrays are borrowed
// mutably by `step` until it returns), and the schedule keeps tasks' slabs disjoint.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Shared {
    fn new(f: &mut [Vec<f32>], sx: usize, slabs: usize) -> Shared {
        assert!(f.iter().all(|a| a.len() == sx * slabs));
        Shared {
            ptr: [0, 1, 2, 3, 4, 5].map(|c| f[c].as_mut_ptr()),
            sx,
            slabs,
        }
    }

    /// Slabs `lo..hi` of component `c`, read-only.
    ///
    /// # Safety
    /// No task may write those slabs while the slice lives.
    unsafe fn window(&self, c: usize, lo: usize, hi: usize) -> &[f32] {
        debug_assert!(lo <= hi && hi <= self.slabs);
        // SAFETY: in bounds (hi ≤ slabs); no concurrent writer by the caller's contract.
        unsafe { std::slice::from_raw_parts(self.ptr[c].add(lo * self.sx), (hi - lo) * self.sx) }
    }

    /// Slab `i` of component `c`, writable.
    ///
    /// # Safety
    /// No other task may touch that slab while the slice lives.
    #[allow(clippy::mut_from_ref)]
    unsafe fn slab(&self, c: usize, i: usize) -> &mut [f32] {
        debug_assert!(i < self.slabs);
        // SAFETY: in bounds; exclusive by the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.ptr[c].add(i * self.sx), self.sx) }
    }

    /// One sample of component `c`.
    ///
    /// # Safety
    /// No task may be writing that sample.
    unsafe fn get(&self, c: usize, flat: usize) -> f32 {
        debug_assert!(flat < self.sx * self.slabs);
        // SAFETY: in bounds; no concurrent writer by the caller's contract.
        unsafe { *self.ptr[c].add(flat) }
    }
}

/// How a step walks the slabs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sweep {
    /// One fused pass over the slabs (see the module doc): the default.
    #[default]
    Fused,
    /// All H slabs, then all E slabs: the textbook order, kept to measure the fusion's
    /// gain in one run (`examples/exp_cpml.rs`).
    TwoPass,
}

/// What runs between the phases when AfterH passes cannot be fused: it gets the fields.
pub type AfterH<'a> = &'a mut dyn FnMut(&mut [Vec<f32>]);

/// The H and E phases of one step over the slabs (the schedule's H bulk, CPML, AfterH
/// passes, E face planes, E bulk and CPML); the caller runs the AfterE and EndOfStep
/// passes and the periodic copies. `fields` are the six field arrays, `rest` the rest
/// of the state table. AfterH passes run per slab inside the sweep when they keep no
/// state and no outputs (`fuse` in `lib.rs`); otherwise the caller runs them between
/// [`Sweep::TwoPass`]'s phases and passes `after_h`.
#[allow(clippy::too_many_arguments)]
pub fn step(
    m: &Model,
    fields: &mut [Vec<f32>],
    rest: &mut [Vec<f32>],
    src: &[f32],
    n: usize,
    sweep: Sweep,
    after_h: Option<AfterH<'_>>,
) {
    let slabs = m.grid.dims()[0];
    let fuse = after_h.is_none();
    let sx = m.grid.strides()[0];
    let mut work = slab_psi(m, rest);
    // Twice as many blocks as threads lets rayon balance uneven slabs (CPML, faces).
    let blocks = (2 * rayon::current_num_threads()).clamp(1, slabs.div_ceil(2));
    let starts: Vec<usize> = (0..blocks).map(|b| b * slabs / blocks).collect();
    let faces = m.schedule.has_faces();
    if sweep == Sweep::TwoPass || !fuse {
        let shared = Shared::new(fields, sx, slabs);
        let sh = &shared;
        work.par_iter_mut().enumerate().for_each(|(i, sw)| {
            // SAFETY: all H slabs are written by their own task, E is only read.
            unsafe { h_step(m, sh, i, sw, src, n, fuse) };
        });
        if let Some(f) = after_h {
            f(fields);
        }
        // New pointers: `fields` was borrowed again by `after_h`.
        let shared = Shared::new(fields, sx, slabs);
        let sh = &shared;
        work.par_iter_mut().enumerate().for_each(|(i, sw)| {
            // SAFETY: all E slabs are written by their own task, H is only read.
            unsafe { e_step(m, sh, i, sw, faces) };
        });
        return;
    }
    let shared = Shared::new(fields, sx, slabs);
    let sh = &shared;
    let mut chunks: Vec<&mut [SlabPsi]> = Vec::with_capacity(blocks);
    let mut rest: &mut [SlabPsi] = &mut work;
    for b in 0..blocks {
        let end = if b + 1 < blocks { starts[b + 1] } else { slabs };
        let (head, tail) = rest.split_at_mut(end - starts[b]);
        chunks.push(head);
        rest = tail;
    }
    chunks.par_iter_mut().zip(&starts).for_each(|(w, &start)| {
        for (o, sw) in w.iter_mut().enumerate() {
            // SAFETY (both calls): slab `start + o` belongs to this block; see module doc.
            unsafe { h_step(m, sh, start + o, sw, src, n, true) };
            if o > 0 {
                unsafe { e_step(m, sh, start + o, sw, faces) };
            }
        }
    });
    chunks.par_iter_mut().zip(&starts).for_each(|(w, &start)| {
        // SAFETY: phase 2: block-start E slabs are distinct, H is final.
        unsafe { e_step(m, sh, start, &mut w[0], faces) };
    });
}

/// H in slab `i`: bulk, CPML corrections, and (`passes`) the AfterH passes.
///
/// # Safety
/// The caller owns H slab `i` and nobody writes E slabs `i`, `i+1` meanwhile.
unsafe fn h_step(m: &Model, sh: &Shared, i: usize, sw: &mut SlabPsi, src: &[f32], n: usize, passes: bool) {
    let hi = (i + 2).min(sh.slabs);
    // SAFETY: by the function's contract.
    let (mut h, e) = unsafe {
        (
            [sh.slab(3, i), sh.slab(4, i), sh.slab(5, i)],
            [0, 1, 2].map(|c| sh.window(c, i, hi)),
        )
    };
    let [hx, hy, hz] = &mut h;
    update::h_slab(m, i, [hx, hy, hz], e);
    let cpml = &m.schedule.cpml;
    for (pi, ps) in sw.iter_mut() {
        let p = &cpml[*pi];
        if !p.electric() {
            cpml::correct_slab(m, p, i, h[p.target % 3], e[p.source % 3], i * sh.sx, ps);
        }
    }
    if passes {
        let [hx, hy, hz] = h;
        let mut fields = FieldsMut {
            windows: [None, None, None, Some(hx), Some(hy), Some(hz)],
            base: i * sh.sx,
        };
        for sp in m.schedule.at(Hook::AfterH) {
            let mut ctx = HostCtx {
                step: n,
                sources: src,
                xs: (i, i + 1),
                fields: FieldsMut {
                    windows: fields.windows.each_mut().map(|w| w.as_deref_mut()),
                    base: fields.base,
                },
                state: &mut [],
                out: &mut [],
            };
            sp.pass.host(&mut ctx);
        }
    }
}

/// E in slab `i`: PMC/periodic face planes, bulk, CPML corrections.
///
/// # Safety
/// The caller owns E slab `i`, and nobody writes H slabs `i−1`, `i` (or, for periodic
/// x faces at `i = 0`, any H slab) meanwhile.
unsafe fn e_step(m: &Model, sh: &Shared, i: usize, sw: &mut SlabPsi, faces: bool) {
    let lo = i.saturating_sub(1);
    // SAFETY: by the function's contract.
    let (mut e, h) = unsafe {
        (
            [sh.slab(0, i), sh.slab(1, i), sh.slab(2, i)],
            [3, 4, 5].map(|c| sh.window(c, lo, i + 1)),
        )
    };
    if faces {
        // SAFETY: by the function's contract (face rules read H of slabs i−1, i, or
        // any slab for periodic x at i = 0).
        let get = |c: usize, flat: usize| unsafe { sh.get(3 + c, flat) };
        boundary::faces_slab(m, i, &mut e, &get);
    }
    let [ex, ey, ez] = &mut e;
    update::e_slab(m, i, [ex, ey, ez], h);
    let cpml = &m.schedule.cpml;
    for (pi, ps) in sw.iter_mut() {
        let p = &cpml[*pi];
        if p.electric() {
            cpml::correct_slab(m, p, i, e[p.target % 3], h[p.source % 3], lo * sh.sx, ps);
        }
    }
}

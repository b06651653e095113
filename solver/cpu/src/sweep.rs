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
use fdtd_core::pass::{FieldsMut, HostCtx, Scope};
use fdtd_core::schedule::Stage;
use fdtd_core::simulation::Simulation;
use rayon::prelude::*;

/// ψ slabs of one x-slab: `(CPML pass index, ψ slab)` for every CPML pass that touches it.
type SlabPsi<'a> = Vec<(usize, &'a mut [f32])>;

/// What one x-slab's task owns besides the fields: its ψ slabs, and its planes of the
/// state of every region-scope pass the sweep runs (`(pass index, planes)`).
struct SlabWork<'a> {
    psi: SlabPsi<'a>,
    passes: Vec<(usize, &'a mut [f32])>,
}

/// Split the state of every region-scope pass at a hook among `stages` by x-slab
/// ([`fdtd_core::pass::Pass::state_planes`]), into `work`. `extra` is the state table
/// after the ψ arrays.
fn slab_passes<'a>(m: &Simulation, stages: &[Stage], extra: &'a mut [Vec<f32>], work: &mut [SlabWork<'a>]) {
    let base = 6 + m.schedule.cpml.len();
    let mut wanted = Vec::new();
    for stage in stages {
        if let Stage::Hook(hook) = stage {
            for (k, sp, e) in m.schedule.entries_at(*hook) {
                if e.scope == Scope::Region && !wanted.iter().any(|&(q, _)| q == k) {
                    wanted.push((k, sp.state[0] - base));
                }
            }
        }
    }
    // Hand out the arrays in table order, each split by its planes.
    wanted.sort_by_key(|&(_, a)| a);
    let mut rest = extra;
    let mut at = 0;
    for (k, a) in wanted {
        let (_, tail) = std::mem::take(&mut rest).split_at_mut(a - at);
        let (arr, tail) = tail.split_first_mut().expect("the pass's state array");
        rest = tail;
        at = a + 1;
        let planes = m.schedule.passes[k].pass.state_planes();
        let mut arr: &mut [f32] = &mut arr[..];
        for (i, w) in work.iter_mut().enumerate() {
            let (slab, tail) = std::mem::take(&mut arr).split_at_mut(planes[i + 1] - planes[i]);
            arr = tail;
            w.passes.push((k, slab));
        }
    }
}

/// Split every CPML pass's ψ array into per-x-slab pieces, so each task owns its slabs'
/// ψ. `rest` is the state table after the six fields.
fn slab_psi<'a>(m: &Simulation, rest: &'a mut [Vec<f32>]) -> Vec<SlabPsi<'a>> {
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

/// Slab-local stages over every x-slab (a [`Run::Slabs`](crate::program::Run) of the
/// CPU's program): `h` on slab `i`, then `e`. `fields` are the six field arrays,
/// `rest` the rest of the state table. With both lists non-empty and [`Sweep::Fused`],
/// one sweep does `H(i), E(i)` slab by slab (see the module doc); otherwise all H
/// slabs, then all E slabs.
#[allow(clippy::too_many_arguments)]
pub fn step(
    m: &Simulation,
    fields: &mut [Vec<f32>],
    psi: &mut [Vec<f32>],
    extra: &mut [Vec<f32>],
    src: &[f32],
    n: usize,
    sweep: Sweep,
    h: &[Stage],
    e: &[Stage],
) {
    let slabs = m.grid.dims()[0];
    let sx = m.grid.strides()[0];
    let mut work: Vec<SlabWork> = slab_psi(m, psi)
        .into_iter()
        .map(|psi| SlabWork {
            psi,
            passes: Vec::new(),
        })
        .collect();
    slab_passes(m, e, extra, &mut work);
    // Twice as many blocks as threads lets rayon balance uneven slabs (CPML, faces).
    let blocks = (2 * rayon::current_num_threads()).clamp(1, slabs.div_ceil(2));
    let starts: Vec<usize> = (0..blocks).map(|b| b * slabs / blocks).collect();
    let shared = Shared::new(fields, sx, slabs);
    let sh = &shared;
    if sweep == Sweep::TwoPass || h.is_empty() || e.is_empty() {
        if !h.is_empty() {
            work.par_iter_mut().enumerate().for_each(|(i, sw)| {
                // SAFETY: all H slabs are written by their own task, E is only read.
                unsafe { h_step(m, sh, i, sw, src, n, h) };
            });
        }
        if !e.is_empty() {
            work.par_iter_mut().enumerate().for_each(|(i, sw)| {
                // SAFETY: all E slabs are written by their own task, H is only read.
                unsafe { e_step(m, sh, i, sw, src, n, e) };
            });
        }
        return;
    }
    let mut chunks: Vec<&mut [SlabWork]> = Vec::with_capacity(blocks);
    let mut rest: &mut [SlabWork] = &mut work;
    for b in 0..blocks {
        let end = if b + 1 < blocks { starts[b + 1] } else { slabs };
        let (head, tail) = rest.split_at_mut(end - starts[b]);
        chunks.push(head);
        rest = tail;
    }
    chunks.par_iter_mut().zip(&starts).for_each(|(w, &start)| {
        for (o, sw) in w.iter_mut().enumerate() {
            // SAFETY (both calls): slab `start + o` belongs to this block; see module doc.
            unsafe { h_step(m, sh, start + o, sw, src, n, h) };
            if o > 0 {
                unsafe { e_step(m, sh, start + o, sw, src, n, e) };
            }
        }
    });
    chunks.par_iter_mut().zip(&starts).for_each(|(w, &start)| {
        // SAFETY: phase 2: block-start E slabs are distinct, H is final.
        unsafe { e_step(m, sh, start, &mut w[0], src, n, e) };
    });
}

/// The H stages `stages` on slab `i`: bulk, CPML corrections, AfterH passes.
///
/// # Safety
/// The caller owns H slab `i` and nobody writes E slabs `i`, `i+1` meanwhile.
unsafe fn h_step(m: &Simulation, sh: &Shared, i: usize, sw: &mut SlabWork, src: &[f32], n: usize, stages: &[Stage]) {
    let hi = (i + 2).min(sh.slabs);
    // SAFETY: by the function's contract.
    let (mut h, e) = unsafe {
        (
            [sh.slab(3, i), sh.slab(4, i), sh.slab(5, i)],
            [0, 1, 2].map(|c| sh.window(c, i, hi)),
        )
    };
    for stage in stages {
        match stage {
            Stage::HBulk => {
                let [hx, hy, hz] = &mut h;
                update::h_slab(m, i, [hx, hy, hz], e);
            }
            Stage::HCpml => {
                let cpml = &m.schedule.cpml;
                for (pi, ps) in sw.psi.iter_mut() {
                    let p = &cpml[*pi];
                    if !p.electric() {
                        cpml::correct_slab(m, p, i, h[p.target % 3], e[p.source % 3], i * sh.sx, ps);
                    }
                }
            }
            Stage::Hook(hook) => {
                let [hx, hy, hz] = &mut h;
                for (_, sp, entry) in m.schedule.entries_at(*hook) {
                    let mut ctx = HostCtx {
                        step: n,
                        entry,
                        sources: src,
                        xs: (i, i + 1),
                        fields: FieldsMut {
                            windows: [None, None, None, Some(&mut **hx), Some(&mut **hy), Some(&mut **hz)],
                            base: i * sh.sx,
                        },
                        state: &mut [],
                        out: &mut [],
                    };
                    sp.pass.host(&mut ctx);
                }
            }
            other => unreachable!("{other:?} is not a slab-local H stage (program::compile)"),
        }
    }
}

/// The E stages `stages` on slab `i`: PMC/periodic face planes, bulk, CPML corrections,
/// AfterE passes.
///
/// # Safety
/// The caller owns E slab `i`, and nobody writes H slabs `i−1`, `i` (or, for periodic
/// x faces at `i = 0`, any H slab) meanwhile.
unsafe fn e_step(m: &Simulation, sh: &Shared, i: usize, sw: &mut SlabWork, src: &[f32], n: usize, stages: &[Stage]) {
    let lo = i.saturating_sub(1);
    // SAFETY: by the function's contract.
    let (mut e, h) = unsafe {
        (
            [sh.slab(0, i), sh.slab(1, i), sh.slab(2, i)],
            [3, 4, 5].map(|c| sh.window(c, lo, i + 1)),
        )
    };
    for stage in stages {
        match stage {
            Stage::EFaces => {
                // SAFETY: by the function's contract (face rules read H of slabs i−1,
                // i, or any slab for periodic x at i = 0).
                let get = |c: usize, flat: usize| unsafe { sh.get(3 + c, flat) };
                boundary::faces_slab(m, i, &mut e, &get);
            }
            Stage::EBulk => {
                let [ex, ey, ez] = &mut e;
                update::e_slab(m, i, [ex, ey, ez], h);
            }
            Stage::ECpml => {
                let cpml = &m.schedule.cpml;
                for (pi, ps) in sw.psi.iter_mut() {
                    let p = &cpml[*pi];
                    if p.electric() {
                        cpml::correct_slab(m, p, i, e[p.target % 3], h[p.source % 3], lo * sh.sx, ps);
                    }
                }
            }
            Stage::Hook(hook) => {
                let [ex, ey, ez] = &mut e;
                for (k, sp, entry) in m.schedule.entries_at(*hook) {
                    let mut state: Vec<&mut [f32]> = Vec::new();
                    if entry.scope == Scope::Region {
                        let (_, planes) = sw
                            .passes
                            .iter_mut()
                            .find(|(q, _)| *q == k)
                            .expect("the sweep split this pass's state (slab_passes)");
                        state.push(&mut **planes);
                    }
                    let mut ctx = HostCtx {
                        step: n,
                        entry,
                        sources: src,
                        xs: (i, i + 1),
                        fields: FieldsMut {
                            windows: [Some(&mut **ex), Some(&mut **ey), Some(&mut **ez), None, None, None],
                            base: i * sh.sx,
                        },
                        state: &mut state[..],
                        out: &mut [],
                    };
                    sp.pass.host(&mut ctx);
                }
            }
            other => unreachable!("{other:?} is not a slab-local E stage (program::compile)"),
        }
    }
}

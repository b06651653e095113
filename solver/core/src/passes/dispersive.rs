//! The pass `dispersive`: the explicit part of every pole's current, and the poles'
//! state update, at the E samples of dispersive rows (`model/dispersion.rs` has the
//! scheme, `docs/materials.md` the derivation).
//!
//! After the E update (bulk, CPML, face planes, sources, inductors) each dispersive
//! sample holds ca·E⁰ + cb·∇×H with the poles' implicit parts already in ca/cb. The
//! pass then does, per sample, in f32 and in this order on both backends:
//!
//! ```text
//! acc = Σ_p k_p·s_p              k_p = cb·(ε0/Δt)·κ_p (per row and pole)
//! E¹  = E − acc                  (write E¹)
//! se  = E¹ + E⁰                  E⁰: state `e`, the sample's E of the previous step
//! s_p += d_p·s_p + g_p·se        (1 float per Debye/Drude pole, 2 per Lorentz pole)
//! e   = E¹
//! ```
//!
//! State (only at dispersive samples): `e` (one float per sample) and `s` (the poles'
//! floats, concatenated per sample): 4·(1 + Σ order_p) bytes per sample, plus on the
//! GPU 16 B per sample of records.
use crate::model::dispersion::PoleCoefs;
use crate::model::{FaceKind, Model};
use crate::pass::{DevicePass, Hook, HostCtx, Pass, Record};
use crate::state::ArraySpec;
use crate::{Component, EPS0};
use rayon::prelude::*;
use std::collections::HashMap;

/// Words per pole in the params: order, k1, k2, d11, d12, d21, d22, g1, g2.
pub const POLE_WORDS: usize = 9;

/// One dispersive E sample (16 B: the CPU pass streams these, so they are kept small;
/// the component is per chunk, the grid index is derived from `flat` for the GPU).
#[derive(Clone, Copy, Debug)]
struct Sample {
    flat: usize,
    /// Offset of its row's block in `params`.
    row: u32,
    /// Offset of its poles' floats in state `s`.
    state: u32,
}

#[derive(Clone, Debug)]
pub struct Dispersive {
    samples: Vec<Sample>,
    /// `[samples, then per dispersive row: poles, POLE_WORDS per pole]` (f32 as bits).
    params: Vec<u32>,
    poles_len: usize,
    rows: usize,
    /// Chunks of samples `(first, end, component)` for the CPU's parallel walk: each
    /// inside one component, so their field samples, `e` and `s` ranges are disjoint and
    /// ascending.
    chunks: Vec<(usize, usize, usize)>,
    /// Samples per x-plane and per row of the grid arrays (`Grid::strides`).
    strides: [usize; 2],
}

/// Samples per CPU task.
const CHUNK: usize = 4096;

/// Whether the E update computes sample `p` of component `a` (not a PEC/CPML wall
/// sample, not a periodic high plane that is a copy, not padding).
fn updated(m: &Model, a: usize, p: [usize; 3]) -> bool {
    let n = m.grid.n;
    if p[a] >= n[a] {
        return false;
    }
    for t in [(a + 1) % 3, (a + 2) % 3] {
        let face = if p[t] == 0 {
            m.faces[2 * t]
        } else if p[t] == n[t] {
            match m.faces[2 * t + 1] {
                FaceKind::Periodic => return false,
                f => f,
            }
        } else {
            continue;
        };
        if matches!(face, FaceKind::Pec | FaceKind::Cpml) {
            return false;
        }
    }
    true
}

impl Dispersive {
    /// The pass for `model`'s dispersive rows, or None when it has none.
    pub fn new(model: &Model) -> Option<Dispersive> {
        let coefs = &model.coefs;
        if coefs.e_poles.iter().all(Vec::is_empty) {
            return None;
        }
        let g = &model.grid;
        let dt = g.dt;
        // Param blocks per dispersive row.
        let mut params = vec![0u32];
        let mut block: HashMap<usize, (u32, usize)> = HashMap::new();
        for (r, poles) in coefs.e_poles.iter().enumerate() {
            if poles.is_empty() || coefs.e_props[r].is_none() {
                continue;
            }
            let cb = coefs.e[r][1] as f64;
            block.insert(
                r,
                (
                    params.len() as u32,
                    poles.iter().map(|p| PoleCoefs::new(p, dt).order).sum(),
                ),
            );
            params.push(poles.len() as u32);
            for p in poles {
                let c = PoleCoefs::new(p, dt);
                let k = cb * EPS0 / dt;
                let w = [
                    c.kappa[0] * k,
                    c.kappa[1] * k,
                    c.d[0][0],
                    c.d[0][1],
                    c.d[1][0],
                    c.d[1][1],
                    c.g[0],
                    c.g[1],
                ];
                params.push(c.order as u32);
                params.extend(w.iter().map(|&x| (x as f32).to_bits()));
            }
        }
        let dims = g.dims();
        let sx = g.strides()[0];
        let mut samples = Vec::new();
        let mut comps = Vec::new();
        let mut state = 0usize;
        for comp in Component::ALL.into_iter().filter(|c| c.is_electric()) {
            let a = comp.index();
            let mat = &model.mat[a];
            // Parallel scan per x-slab, then serial offsets (the order is the grid's).
            let found: Vec<Vec<(usize, usize)>> = mat
                .par_chunks(sx)
                .enumerate()
                .map(|(i, slab)| {
                    let mut v = Vec::new();
                    for (l, &r) in slab.iter().enumerate() {
                        if block.contains_key(&(r as usize)) {
                            let (j, k) = (l / dims[2], l % dims[2]);
                            if updated(model, a, [i, j, k]) {
                                v.push((i * sx + l, r as usize));
                            }
                        }
                    }
                    v
                })
                .collect();
            for (flat, r) in found.into_iter().flatten() {
                let (off, len) = block[&r];
                samples.push(Sample {
                    flat,
                    row: off,
                    state: state as u32,
                });
                comps.push(a);
                state += len;
            }
        }
        if samples.is_empty() {
            return None;
        }
        params[0] = samples.len() as u32;
        let mut chunks = Vec::new();
        let mut lo = 0;
        while lo < samples.len() {
            let c = comps[lo];
            let mut hi = lo;
            while hi < samples.len() && hi - lo < CHUNK && comps[hi] == c {
                hi += 1;
            }
            chunks.push((lo, hi, c));
            lo = hi;
        }
        Some(Dispersive {
            chunks,
            strides: [sx, dims[2]],
            rows: block.len(),
            samples,
            params,
            poles_len: state,
        })
    }

    /// Dispersive E samples (records).
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }
}

impl Pass for Dispersive {
    fn name(&self) -> &str {
        "dispersive"
    }

    fn describe(&self) -> String {
        format!(
            "{} dispersive E sample(s) in {} row(s), {} pole float(s): E −= cb·Σκ·s, then the poles' trapezoidal update",
            self.samples.len(),
            self.rows,
            self.poles_len
        )
    }

    fn hook(&self) -> Hook {
        Hook::AfterE
    }

    fn state(&self) -> Vec<ArraySpec> {
        vec![
            ArraySpec::new("e", [self.samples.len(), 1, 1]),
            ArraySpec::new("s", [self.poles_len.max(1), 1, 1]),
        ]
    }

    fn host(&self, ctx: &mut HostCtx<'_>) {
        let (e_prev, s) = ctx.state.split_at_mut(1);
        let (mut e_rest, mut s_rest): (&mut [f32], &mut [f32]) = (&mut e_prev[0][..], &mut s[0][..]);
        let base = ctx.fields.base;
        let [w0, w1, w2, ..] = &mut ctx.fields.windows;
        let mut windows: [Option<(&mut [f32], usize)>; 3] = [w0, w1, w2].map(|w| w.as_deref_mut().map(|w| (w, base)));
        // Cut the fields, `e` and `s` into the chunks' disjoint ranges, then run them in parallel.
        let mut jobs = Vec::with_capacity(self.chunks.len());
        for &(lo, hi, comp) in &self.chunks {
            let smp = &self.samples[lo..hi];
            let (first, last) = (smp[0].flat, smp[smp.len() - 1].flat);
            let (w, w_base) = windows[comp].take().expect("the E fields are available at AfterE");
            let (_, w) = w.split_at_mut(first - w_base);
            let (field, w) = w.split_at_mut(last + 1 - first);
            windows[comp] = Some((w, last + 1));
            let (e, rest) = std::mem::take(&mut e_rest).split_at_mut(hi - lo);
            e_rest = rest;
            let s_end = self.samples.get(hi).map_or(self.poles_len, |x| x.state as usize);
            let (st, rest) = std::mem::take(&mut s_rest).split_at_mut(s_end - smp[0].state as usize);
            s_rest = rest;
            jobs.push((smp, field, e, st));
        }
        let p = &self.params;
        jobs.into_par_iter().for_each(|(smp, field, e_prev, s)| {
            let f = |w: u32| f32::from_bits(w);
            let (f0, s0) = (smp[0].flat, smp[0].state as usize);
            for (q, x) in smp.iter().enumerate() {
                let r = x.row as usize;
                let np = p[r] as usize;
                let mut acc = 0.0f32;
                let mut o = x.state as usize - s0;
                for k in 0..np {
                    let c = &p[r + 1 + k * POLE_WORDS..r + 1 + (k + 1) * POLE_WORDS];
                    acc += f(c[1]) * s[o];
                    if c[0] == 2 {
                        acc += f(c[2]) * s[o + 1];
                    }
                    o += c[0] as usize;
                }
                let e = field[x.flat - f0] - acc;
                field[x.flat - f0] = e;
                let se = e + e_prev[q];
                let mut o = x.state as usize - s0;
                for k in 0..np {
                    let c = &p[r + 1 + k * POLE_WORDS..r + 1 + (k + 1) * POLE_WORDS];
                    if c[0] == 2 {
                        let (s1, s2) = (s[o], s[o + 1]);
                        s[o] = s1 + (f(c[3]) * s1 + f(c[4]) * s2 + f(c[7]) * se);
                        s[o + 1] = s2 + (f(c[5]) * s1 + f(c[6]) * s2 + f(c[8]) * se);
                    } else {
                        let s1 = s[o];
                        s[o] = s1 + (f(c[3]) * s1 + f(c[7]) * se);
                    }
                    o += c[0] as usize;
                }
                e_prev[q] = e;
            }
        });
    }

    fn device(&self) -> DevicePass {
        DevicePass {
            file: "passes/dispersive.wgsl",
            wgsl: include_str!("../../../../shaders/passes/dispersive.wgsl"),
            entry: "apply_dispersive",
            serial: false,
            params: self.params.clone(),
            only_when_due: false,
            records: self
                .chunks
                .iter()
                .flat_map(|&(lo, hi, comp)| (lo..hi).map(move |q| (q, comp)))
                .map(|(q, comp)| {
                    let s = &self.samples[q];
                    let [sx, nz] = self.strides;
                    let (i, rest) = (s.flat / sx, s.flat % sx);
                    Record {
                        at: [i, rest / nz, rest % nz],
                        words: [((q as u32) << 2) | comp as u32, 0, s.row, s.state],
                    }
                })
                .collect(),
        }
    }
}

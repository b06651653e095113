//! The pass `dispersive`: every pole's explicit current and its state update on the E
//! samples of dispersive rows (`model/dispersion.rs` has the scheme, `docs/materials.md`
//! the derivation). A region-scope pass: its samples are boxes with a dense state, so
//! no sample needs a record, and the CPU runs it per x-slab inside the fused sweep,
//! right after the slab's E update, while the slab is in cache.
//!
//! The update is the stored-state form ([`Stored`](crate::model::dispersion::Stored)): after the E update (bulk with the
//! row's ca', CPML, face planes, sources) each dispersive sample holds E'. Per sample,
//! in f32 and in this order on both backends:
//!
//! ```text
//! acc = Σ_p k_p·r_p              k_p = cb·(ε0/Δt)·kappa_p (per row and pole)
//! E¹  = E' − acc                 (write E¹)
//! r_p += d_p·r_p + h_p·E¹         (1 float per Debye/Drude pole, 2 per Lorentz pole)
//! ```
//!
//! **Boxes.** Per E component and dispersive row, the samples the E update computes
//! (not PEC/CPML walls, not periodic high planes that are copies) are covered by boxes
//! ([`Block`]): a box is split along its widest empty gap, or in half, until at least
//! half of it holds the row or it is small. A box that is not full carries a bit mask
//! of its samples. **State** (`dispersive/r`): the row's pole floats at every sample of
//! every box (4·Σorder bytes per box sample), laid out by x plane so the CPU can hand
//! each slab its planes ([`Pass::state_planes`]): plane x holds, box after box, the
//! floats `[float][y][z]` of the boxes that reach it.
use crate::model::dispersion::PoleCoefs;
use crate::model::{FaceKind, Model};
use crate::pass::{DevicePass, Entry, Hook, HostCtx, Pass, Region, Scope};
use crate::state::ArraySpec;
use crate::{Component, EPS0};
use rayon::prelude::*;

/// Words per pole in the params: order, k1, k2, d11, d12, d21, d22, h1, h2.
pub const POLE_WORDS: usize = 9;
/// Words per box in the params' header (see [`Dispersive::device`]).
pub const BOX_WORDS: usize = 12;
/// No bit mask: every sample of the box is dispersive.
const FULL: u32 = u32::MAX;
/// A box of at most this many samples is not split further.
const SMALL: usize = 64;

/// One box of one component's samples of one row.
#[derive(Clone, Debug)]
struct Block {
    comp: usize,
    /// Index into [`Dispersive::rows`].
    row: usize,
    lo: [usize; 3],
    hi: [usize; 3],
    /// Samples of the row in the box.
    count: usize,
    /// Bit (x-major, z fastest) per box sample: 1 where the row is; None: all of them.
    mask: Option<Vec<u32>>,
    /// State offset of each of its planes `lo[0]..hi[0]`.
    planes: Vec<usize>,
}

impl Block {
    fn size(&self, a: usize) -> usize {
        self.hi[a] - self.lo[a]
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        (0..3).map(|a| self.size(a)).product()
    }
}

/// One dispersive row's poles as the pass runs them.
#[derive(Clone, Debug)]
struct Row {
    /// Its index in the coefficient table.
    table: usize,
    /// (order, [k1, k2, d11, d12, d21, d22, h1, h2]) per pole.
    poles: Vec<(usize, [f32; 8])>,
    floats: usize,
}

#[derive(Clone, Debug)]
pub struct Dispersive {
    rows: Vec<Row>,
    blocks: Vec<Block>,
    /// Blocks reaching each x plane, in state order.
    at: Vec<Vec<usize>>,
    /// Where each x plane's state begins (`nx + 1` offsets).
    planes: Vec<usize>,
    /// Samples per x-plane and per row of the grid arrays (`Grid::strides`).
    strides: [usize; 2],
}

/// The samples of component `a` the E update computes: a box (exclusive ends).
fn updated_box(m: &Model, a: usize) -> ([usize; 3], [usize; 3]) {
    let n = m.grid.n;
    let (mut lo, mut hi) = ([0; 3], [0; 3]);
    hi[a] = n[a];
    for t in [(a + 1) % 3, (a + 2) % 3] {
        let wall = |f: FaceKind| matches!(f, FaceKind::Pec | FaceKind::Cpml);
        lo[t] = wall(m.faces[2 * t]) as usize;
        let high = m.faces[2 * t + 1];
        hi[t] = n[t] + 1 - (wall(high) || high == FaceKind::Periodic) as usize;
    }
    (lo, hi)
}

/// Per-axis counts of component `a`'s samples of table row `row` in `[lo, hi)`.
fn histograms(m: &Model, a: usize, row: u16, lo: [usize; 3], hi: [usize; 3]) -> [Vec<usize>; 3] {
    let g = &m.grid;
    let mat = &m.mat[a];
    let (ny, nz) = (hi[1] - lo[1], hi[2] - lo[2]);
    let planes: Vec<(usize, Vec<usize>, Vec<usize>)> = (lo[0]..hi[0])
        .into_par_iter()
        .map(|i| {
            let (mut c, mut hy, mut hz) = (0, vec![0; ny], vec![0; nz]);
            for j in lo[1]..hi[1] {
                let base = g.idx(i, j, 0);
                for k in lo[2]..hi[2] {
                    if mat[base + k] == row {
                        c += 1;
                        hy[j - lo[1]] += 1;
                        hz[k - lo[2]] += 1;
                    }
                }
            }
            (c, hy, hz)
        })
        .collect();
    let mut out = [Vec::with_capacity(planes.len()), vec![0; ny], vec![0; nz]];
    for (c, hy, hz) in planes {
        out[0].push(c);
        for (s, x) in out[1].iter_mut().zip(hy) {
            *s += x;
        }
        for (s, x) in out[2].iter_mut().zip(hz) {
            *s += x;
        }
    }
    out
}

/// The bounding box of component `a`'s samples of each dispersive row in `[lo, hi)`
/// (`local`: the table row's index among them, or `usize::MAX`), in one scan.
fn row_boxes(
    m: &Model,
    a: usize,
    local: &[usize],
    rows: usize,
    lo: [usize; 3],
    hi: [usize; 3],
) -> Vec<Option<([usize; 3], [usize; 3])>> {
    type Boxes = Vec<Option<([usize; 3], [usize; 3])>>;
    let grow = |b: &mut Option<([usize; 3], [usize; 3])>, l: [usize; 3], h: [usize; 3]| {
        *b = Some(match *b {
            None => (l, h),
            Some((bl, bh)) => ([0, 1, 2].map(|x| bl[x].min(l[x])), [0, 1, 2].map(|x| bh[x].max(h[x]))),
        })
    };
    let g = &m.grid;
    let mat = &m.mat[a];
    (lo[0]..hi[0])
        .into_par_iter()
        .map(|i| {
            let mut out: Boxes = vec![None; rows];
            for j in lo[1]..hi[1] {
                let base = g.idx(i, j, 0);
                for k in lo[2]..hi[2] {
                    let q = local[mat[base + k] as usize];
                    if q != usize::MAX {
                        grow(&mut out[q], [i, j, k], [i + 1, j + 1, k + 1]);
                    }
                }
            }
            out
        })
        .reduce(
            || vec![None; rows],
            |mut x, y| {
                for (b, o) in x.iter_mut().zip(y) {
                    if let Some((l, h)) = o {
                        grow(b, l, h);
                    }
                }
                x
            },
        )
}

/// Cover component `a`'s samples of table row `row` in `[lo, hi)` with boxes (see the
/// module doc), appending `(lo, hi, count)` to `out`.
fn cover(
    m: &Model,
    a: usize,
    row: u16,
    mut lo: [usize; 3],
    mut hi: [usize; 3],
    depth: usize,
    out: &mut Vec<([usize; 3], [usize; 3], usize)>,
) {
    if (0..3).any(|x| lo[x] >= hi[x]) {
        return;
    }
    let h = histograms(m, a, row, lo, hi);
    let count: usize = h[0].iter().sum();
    if count == 0 {
        return;
    }
    // Tighten to the samples' bounding box.
    let mut gaps = Vec::new();
    for x in 0..3 {
        let first = h[x].iter().position(|&c| c > 0).unwrap_or(0);
        let last = h[x].iter().rposition(|&c| c > 0).unwrap_or(0);
        // The longest run of empty planes inside, as (length, start) in grid indices.
        let (mut best, mut run) = ((0, 0), 0);
        for (q, &c) in h[x].iter().enumerate().take(last + 1).skip(first) {
            if c == 0 {
                run += 1;
                if run > best.0 {
                    best = (run, lo[x] + q + 1 - run);
                }
            } else {
                run = 0;
            }
        }
        gaps.push(best);
        hi[x] = lo[x] + last + 1;
        lo[x] += first;
    }
    let vol: usize = (0..3).map(|x| hi[x] - lo[x]).product();
    if 2 * count >= vol || vol <= SMALL || depth >= 40 {
        out.push((lo, hi, count));
        return;
    }
    let (mut l2, mut h1) = (lo, hi);
    let x = (0..3).max_by_key(|&x| gaps[x].0).unwrap_or(0);
    if gaps[x].0 > 0 {
        // Cut out the widest gap between clusters.
        h1[x] = gaps[x].1;
        l2[x] = gaps[x].1 + gaps[x].0;
        cover(m, a, row, lo, h1, depth + 1, out);
        cover(m, a, row, l2, hi, depth + 1, out);
    } else {
        let x = (0..3).max_by_key(|&x| hi[x] - lo[x]).unwrap_or(0);
        let mid = (lo[x] + hi[x]) / 2;
        h1[x] = mid;
        l2[x] = mid;
        cover(m, a, row, lo, h1, depth + 1, out);
        cover(m, a, row, l2, hi, depth + 1, out);
    }
}

/// The bit mask of component `a`'s samples of table row `row` in the box.
fn mask(m: &Model, a: usize, row: u16, lo: [usize; 3], hi: [usize; 3]) -> Vec<u32> {
    let (ny, nz) = (hi[1] - lo[1], hi[2] - lo[2]);
    let len = (hi[0] - lo[0]) * ny * nz;
    let mut words = vec![0u32; len.div_ceil(32)];
    words.par_iter_mut().enumerate().for_each(|(w, word)| {
        for b in 0..32 {
            let q = 32 * w + b;
            if q >= len {
                break;
            }
            let (i, j, k) = (q / (ny * nz), q / nz % ny, q % nz);
            if m.mat[a][m.grid.idx(lo[0] + i, lo[1] + j, lo[2] + k)] == row {
                *word |= 1 << b;
            }
        }
    });
    words
}

impl Dispersive {
    /// The pass for `model`'s dispersive rows, or None when it has none.
    pub fn new(model: &Model) -> Option<Dispersive> {
        let coefs = &model.coefs;
        let g = &model.grid;
        let dt = g.dt;
        let mut rows = Vec::new();
        for (r, poles) in coefs.e_poles.iter().enumerate() {
            if poles.is_empty() || coefs.e_props[r].is_none() {
                continue;
            }
            let k = coefs.e[r][1] as f64 * EPS0 / dt;
            let poles: Vec<(usize, [f32; 8])> = poles
                .iter()
                .map(|p| {
                    let s = PoleCoefs::new(p, dt).stored();
                    let w = [
                        s.kappa[0] * k,
                        s.kappa[1] * k,
                        s.d[0][0],
                        s.d[0][1],
                        s.d[1][0],
                        s.d[1][1],
                        s.h[0],
                        s.h[1],
                    ];
                    (s.order, w.map(|x| x as f32))
                })
                .collect();
            rows.push(Row {
                table: r,
                floats: poles.iter().map(|p| p.0).sum(),
                poles,
            });
        }
        if rows.is_empty() {
            return None;
        }
        let mut local = vec![usize::MAX; coefs.e.len()];
        for (q, row) in rows.iter().enumerate() {
            local[row.table] = q;
        }
        let mut blocks = Vec::new();
        for comp in Component::ALL.into_iter().filter(|c| c.is_electric()) {
            let a = comp.index();
            let (lo, hi) = updated_box(model, a);
            let bounds = row_boxes(model, a, &local, rows.len(), lo, hi);
            for (q, (row, bound)) in rows.iter().zip(bounds).enumerate() {
                let Some((lo, hi)) = bound else { continue };
                let mut boxes = Vec::new();
                cover(model, a, row.table as u16, lo, hi, 0, &mut boxes);
                for (lo, hi, count) in boxes {
                    let len: usize = (0..3).map(|x| hi[x] - lo[x]).product();
                    blocks.push(Block {
                        comp: a,
                        row: q,
                        lo,
                        hi,
                        count,
                        mask: (count < len).then(|| mask(model, a, row.table as u16, lo, hi)),
                        planes: Vec::new(),
                    });
                }
            }
        }
        if blocks.is_empty() {
            return None;
        }
        // State by x plane: the blocks reaching plane x, in block order.
        let nx = g.dims()[0];
        let mut at = vec![Vec::new(); nx];
        let mut planes = Vec::with_capacity(nx + 1);
        let mut off = 0usize;
        for (x, here) in at.iter_mut().enumerate() {
            planes.push(off);
            for (b, blk) in blocks.iter_mut().enumerate() {
                if blk.lo[0] <= x && x < blk.hi[0] {
                    here.push(b);
                    blk.planes.push(off);
                    off += rows[blk.row].floats * blk.size(1) * blk.size(2);
                }
            }
        }
        planes.push(off);
        Some(Dispersive {
            rows,
            blocks,
            at,
            planes,
            strides: [g.strides()[0], g.dims()[2]],
        })
    }

    /// Dispersive E samples.
    pub fn len(&self) -> usize {
        self.blocks.iter().map(|b| b.count).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// State floats.
    fn floats(&self) -> usize {
        self.planes[self.planes.len() - 1]
    }

    /// The pass on x plane `x`: `fields` are the plane's samples of Ex, Ey, Ez, `state`
    /// its state (from float `planes[x]` on).
    fn plane(&self, x: usize, fields: &mut [&mut [f32]; 3], state: &mut [f32]) {
        let base = self.planes[x];
        let sy = self.strides[1];
        let widest = self.at[x].iter().map(|&b| self.blocks[b].size(2)).max().unwrap_or(0);
        let (mut acc, mut weight) = (vec![0.0f32; widest], vec![1.0f32; widest]);
        for &b in &self.at[x] {
            let blk = &self.blocks[b];
            let row = &self.rows[blk.row];
            let (ny, nz) = (blk.size(1), blk.size(2));
            let area = ny * nz;
            let st = &mut state[blk.planes[x - blk.lo[0]] - base..][..row.floats * area];
            let field = &mut *fields[blk.comp];
            let (acc, weight) = (&mut acc[..nz], &mut weight[..nz]);
            for j in 0..ny {
                let e = &mut field[(blk.lo[1] + j) * sy + blk.lo[2]..][..nz];
                // A sample outside the row keeps a zero state (its update is weighted by
                // 0), so its acc is 0 and E − acc leaves it as it is: only the state
                // update needs the mask; weight 1 is exact (s + 1·x = s + x).
                if let Some(mask) = &blk.mask {
                    let first = ((x - blk.lo[0]) * ny + j) * nz;
                    for (k, w) in weight.iter_mut().enumerate() {
                        let q = first + k;
                        *w = (mask[q / 32] >> (q % 32) & 1) as f32;
                    }
                }
                acc.fill(0.0);
                let mut o = 0;
                for (order, c) in &row.poles {
                    let r1 = &st[o * area + j * nz..][..nz];
                    for (a, r) in acc.iter_mut().zip(r1) {
                        *a += c[0] * r;
                    }
                    if *order == 2 {
                        let r2 = &st[(o + 1) * area + j * nz..][..nz];
                        for (a, r) in acc.iter_mut().zip(r2) {
                            *a += c[1] * r;
                        }
                    }
                    o += order;
                }
                for (e, a) in e.iter_mut().zip(acc.iter()) {
                    *e -= a;
                }
                let e = &*e;
                let mut o = 0;
                for (order, c) in &row.poles {
                    if *order == 2 {
                        let (p1, p2) = st[o * area..].split_at_mut(area);
                        let (r1, r2) = (&mut p1[j * nz..][..nz], &mut p2[j * nz..][..nz]);
                        if blk.mask.is_none() {
                            for k in 0..nz {
                                let (s1, s2) = (r1[k], r2[k]);
                                r1[k] = s1 + (c[2] * s1 + c[3] * s2 + c[6] * e[k]);
                                r2[k] = s2 + (c[4] * s1 + c[5] * s2 + c[7] * e[k]);
                            }
                        } else {
                            for k in 0..nz {
                                let (s1, s2) = (r1[k], r2[k]);
                                r1[k] = s1 + weight[k] * (c[2] * s1 + c[3] * s2 + c[6] * e[k]);
                                r2[k] = s2 + weight[k] * (c[4] * s1 + c[5] * s2 + c[7] * e[k]);
                            }
                        }
                    } else {
                        let r1 = &mut st[o * area + j * nz..][..nz];
                        if blk.mask.is_none() {
                            for (r, e) in r1.iter_mut().zip(e) {
                                *r += c[2] * *r + c[6] * e;
                            }
                        } else {
                            for ((r, e), w) in r1.iter_mut().zip(e).zip(weight.iter()) {
                                *r += w * (c[2] * *r + c[6] * e);
                            }
                        }
                    }
                    o += order;
                }
            }
        }
    }
}

impl Pass for Dispersive {
    fn name(&self) -> &str {
        "dispersive"
    }

    fn describe(&self) -> String {
        format!(
            "{} dispersive E sample(s) of {} row(s) in {} box(es), {} state float(s): E −= cb·Σκ·r, then the poles' trapezoidal update",
            self.len(),
            self.rows.len(),
            self.blocks.len(),
            self.floats()
        )
    }

    fn hook(&self) -> Hook {
        Hook::AfterE
    }

    fn entries(&self) -> Vec<Entry> {
        vec![Entry::new(Hook::AfterE, "", Scope::Region)]
    }

    fn state(&self) -> Vec<ArraySpec> {
        vec![ArraySpec::new("r", [self.floats().max(1), 1, 1])]
    }

    fn slab_local(&self) -> bool {
        true
    }

    fn state_planes(&self) -> Vec<usize> {
        self.planes.clone()
    }

    fn host(&self, ctx: &mut HostCtx<'_>) {
        let (x0, x1) = ctx.xs;
        let sx = self.strides[0];
        let base = ctx.fields.base;
        let [w0, w1, w2, ..] = &mut ctx.fields.windows;
        let windows = [w0, w1, w2].map(|w| {
            let w = w.as_deref_mut().expect("the E fields are available at AfterE");
            let end = (x1 * sx - base).min(w.len());
            &mut w[x0 * sx - base..end]
        });
        let state = &mut ctx.state[0][..self.planes[x1] - self.planes[x0]];
        if x1 == x0 + 1 {
            let mut f = windows;
            self.plane(x0, &mut f, state);
            return;
        }
        // All planes at once: cut the fields and the state by plane, then in parallel.
        let [wx, wy, wz] = windows;
        let mut jobs = Vec::with_capacity(x1 - x0);
        let (mut rest, mut fx, mut fy, mut fz) = (state, wx.chunks_mut(sx), wy.chunks_mut(sx), wz.chunks_mut(sx));
        for x in x0..x1 {
            let (st, tail) = std::mem::take(&mut rest).split_at_mut(self.planes[x + 1] - self.planes[x]);
            rest = tail;
            let f = [fx.next(), fy.next(), fz.next()].map(|f| f.expect("a slab of each E component"));
            if !self.at[x].is_empty() {
                jobs.push((x, f, st));
            }
        }
        jobs.into_par_iter()
            .for_each(|(x, mut f, st)| self.plane(x, &mut f, st));
    }

    /// Params: `[boxes, then BOX_WORDS per box: component, its row's offset, state
    /// floats per sample, lo x, y, z, size y, z, mask offset (FULL: none), offset of its
    /// plane offsets, 0, 0; then per row: poles, POLE_WORDS per pole; the masks; the
    /// plane offsets]` (f32 as bits; offsets into params, state offsets saturated at
    /// u32::MAX, beyond which the GPU plan refuses the state anyway).
    fn device(&self) -> DevicePass {
        let mut params = vec![self.blocks.len() as u32];
        params.resize(1 + BOX_WORDS * self.blocks.len(), 0);
        let mut row_at = Vec::with_capacity(self.rows.len());
        for row in &self.rows {
            row_at.push(params.len() as u32);
            params.push(row.poles.len() as u32);
            for (order, c) in &row.poles {
                params.push(*order as u32);
                params.extend(c.iter().map(|x| x.to_bits()));
            }
        }
        let sat = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
        for (b, blk) in self.blocks.iter().enumerate() {
            let mask_at = match &blk.mask {
                Some(m) => {
                    let at = params.len() as u32;
                    params.extend_from_slice(m);
                    at
                }
                None => FULL,
            };
            let planes_at = params.len() as u32;
            params.extend(blk.planes.iter().map(|&p| sat(p)));
            let h = [
                blk.comp as u32,
                row_at[blk.row],
                self.rows[blk.row].floats as u32,
                blk.lo[0] as u32,
                blk.lo[1] as u32,
                blk.lo[2] as u32,
                blk.size(1) as u32,
                blk.size(2) as u32,
                mask_at,
                planes_at,
                0,
                0,
            ];
            params[1 + BOX_WORDS * b..1 + BOX_WORDS * (b + 1)].copy_from_slice(&h);
        }
        DevicePass {
            file: "passes/dispersive.wgsl",
            wgsl: include_str!("../../../../shaders/passes/dispersive.wgsl"),
            entry: "apply_dispersive",
            serial: false,
            params,
            only_when_due: false,
            records: Vec::new(),
            regions: self.blocks.iter().map(|b| Region { lo: b.lo, hi: b.hi }).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Boxes cover exactly the samples of their row: every dispersive sample the E
    /// update computes is in one box of its component and row and set in its mask, and
    /// nothing else is; two separate objects get separate boxes.
    #[test]
    fn boxes_cover_the_dispersive_samples_exactly() {
        let text = r#"
[domain]
cell = 1e-3
cells = [40, 30, 24]
[time]
steps = 1
[boundaries]
all = "cpml"
x_max = "pec"
[materials.soil]
eps_r = 4
poles = [{ type = "debye", delta_eps = 5, tau = 1e-10 }]
[materials.m]
eps_r = 2
poles = [{ type = "lorentz", delta_eps = 1, frequency = 2e10, damping = 1e9 }]
[[objects]]
material = "soil"
shape = "box"
min = [-1, -1, -1]
max = [1, 1, 0.008]
[[objects]]
material = "m"
shape = "sphere"
center = [0.008, 0.008, 0.016]
radius = 0.005
[[objects]]
material = "m"
shape = "sphere"
center = [0.032, 0.022, 0.016]
radius = 0.004
"#;
        let scene = crate::scene::Scene::parse(text, "t.toml").unwrap();
        let m = Model::discretize(&scene).unwrap();
        let d = Dispersive::new(&m).unwrap();
        let mut seen = 0;
        for a in 0..3 {
            let (lo, hi) = updated_box(&m, a);
            let dims = m.grid.dims();
            for i in 0..dims[0] {
                for j in 0..dims[1] {
                    for k in 0..dims[2] {
                        let row = m.mat[a][m.grid.idx(i, j, k)] as usize;
                        let inside = (0..3).all(|x| lo[x] <= [i, j, k][x] && [i, j, k][x] < hi[x]);
                        let want = inside && !m.coefs.e_poles[row].is_empty();
                        let got: Vec<&Block> = d
                            .blocks
                            .iter()
                            .filter(|b| {
                                b.comp == a && (0..3).all(|x| b.lo[x] <= [i, j, k][x] && [i, j, k][x] < b.hi[x])
                            })
                            .filter(|b| {
                                let q = ((i - b.lo[0]) * b.size(1) + j - b.lo[1]) * b.size(2) + k - b.lo[2];
                                b.mask.as_ref().is_none_or(|m| m[q / 32] >> (q % 32) & 1 == 1)
                            })
                            .collect();
                        assert_eq!(got.len(), want as usize, "{a} {i} {j} {k}");
                        if want {
                            assert_eq!(d.rows[got[0].row].table, row);
                            seen += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(seen, d.len());
        // The soil's own row is one full box per component; the spheres' interior row
        // has a box per sphere and component (not one box spanning both).
        let soil = m
            .coefs
            .e_poles
            .iter()
            .position(|p| {
                p.len() == 1 && matches!(p[0], crate::scene::Pole::Debye { delta_eps, .. } if delta_eps == 5.0)
            })
            .unwrap();
        let soil_boxes: Vec<&Block> = d.blocks.iter().filter(|b| d.rows[b.row].table == soil).collect();
        assert_eq!(soil_boxes.len(), 3);
        assert!(soil_boxes.iter().all(|b| b.mask.is_none()));
        let ball = m
            .coefs
            .e_poles
            .iter()
            .position(|p| {
                p.len() == 1 && matches!(p[0], crate::scene::Pole::Lorentz { delta_eps, .. } if delta_eps == 1.0)
            })
            .unwrap();
        let balls: Vec<&Block> = d.blocks.iter().filter(|b| d.rows[b.row].table == ball).collect();
        assert!(balls.len() >= 6, "{}", balls.len());
        assert!(
            balls.iter().all(|b| b.hi[0] <= 14 || b.lo[0] >= 27),
            "a box spans both spheres"
        );
        // Every box is at least half full or small.
        assert!(d.blocks.iter().all(|b| 2 * b.count >= b.len() || b.len() <= SMALL));
        // The state is the boxes' volume times their floats, split by plane.
        let floats: usize = d.blocks.iter().map(|b| b.len() * d.rows[b.row].floats).sum();
        assert_eq!(d.floats(), floats);
        assert_eq!(d.planes.len(), m.grid.dims()[0] + 1);
    }
}

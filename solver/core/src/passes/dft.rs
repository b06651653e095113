//! The DFT pass of one monitor: running discrete Fourier transforms of its samples at its
//! frequencies, accumulated on the device (CPU: [`Dft::host`], in parallel over records;
//! GPU: `shaders/passes/dft.wgsl`, one thread per record looping over frequencies).
//!
//! State: `re` and `im`, each `[freq][record]` (f32). After step n (when due) every
//! record r at frequency f adds
//!
//! ```text
//! re[f][r] += v·cos θ,   im[f][r] −= v·sin θ,    θ = 2π·f·t_n
//! ```
//!
//! with v the sample's value and t_n its own time: (n+1)·dt for E, (n+½)·dt for H. So
//! `(re + j·im)·every·dt` is X(f) = Σ x(t_n)·e^{−j2πf·t_n}·Δt (the e^{+jωt} convention of
//! [`crate::results`]).
//!
//! **Exact phase.** θ is kept in fixed point: inc = round(f·dt·2³²) (u32), the phase
//! after step n is inc·(n+1) mod 2³² for E and inc·n + round(f·dt·2³¹) for H (wrapping
//! u32 arithmetic, the same on both backends), and θ = f32(i32(phase))·2π/2³², in
//! [−π, π). The phase is therefore exact for any number of steps (an f32
//! `fract(f·dt·n)` loses about 1e-3 rad by 1e5 steps); the only error is the frequency's
//! quantisation, |Δf|/f ≤ 2⁻³³/(f·dt) (1e-7 at f·dt = 1e-3).
//!
//! Both backends evaluate the same f32 expressions (cos/sin of an angle in [−π, π), one
//! multiply and one add per term, records summed in step order), so their states agree
//! to rounding (tested: `validation/tests/monitors.rs`).
use crate::model::Model;
use crate::monitors::{Block, Monitor};
use crate::pass::{due, DevicePass, Hook, HostCtx, Pass, Record};
use crate::state::ArraySpec;
use rayon::prelude::*;

/// 2π/2³² as f32: radians per unit of the fixed-point phase (the kernel gets these bits).
pub const RAD: f32 = (std::f64::consts::TAU / 4_294_967_296.0) as f32;

/// Records per parallel task on the CPU.
const CHUNK: usize = 4096;

/// The DFT pass of one monitor.
#[derive(Clone, Debug)]
pub struct Dft {
    name: String,
    blocks: Vec<Block>,
    every: usize,
    /// Per frequency: the fixed-point phase increment per step, and half of it (rounded
    /// on its own) for H's half step.
    inc: Vec<u32>,
    half: Vec<u32>,
    /// Per record: component (0..6) and flat index.
    comp: Vec<u8>,
    flat: Vec<usize>,
}

/// round(x·2^bits) as a u32 phase (x = f·dt < ½).
pub(crate) fn fixed(x: f64, bits: i32) -> u32 {
    (x * 2f64.powi(bits)).round() as u64 as u32
}

/// The phases after step `n` of an E and an H sample at increment `inc` / `half`.
pub fn phases(inc: u32, half: u32, n: usize) -> (u32, u32) {
    let n = n as u32;
    (
        inc.wrapping_mul(n.wrapping_add(1)),
        inc.wrapping_mul(n).wrapping_add(half),
    )
}

/// The angle (rad, f32) of a fixed-point phase: in [−π, π).
pub fn angle(phase: u32) -> f32 {
    (phase as i32) as f32 * RAD
}

impl Dft {
    pub fn new(model: &Model, m: &Monitor) -> Dft {
        let dt = model.grid.dt;
        let mut comp = Vec::with_capacity(m.records());
        let mut flat = Vec::with_capacity(m.records());
        for_each_record(&m.blocks, |c, at| {
            comp.push(c as u8);
            flat.push(model.grid.idx(at[0], at[1], at[2]));
        });
        Dft {
            name: m.pass_name(),
            blocks: m.blocks.clone(),
            every: m.every,
            inc: m.freqs.iter().map(|f| fixed(f * dt, 32)).collect(),
            half: m.freqs.iter().map(|f| fixed(f * dt, 31)).collect(),
            comp,
            flat,
        }
    }

    fn records(&self) -> usize {
        self.flat.len()
    }
}

/// Calls `f(component, [i, j, k])` for every record, block by block in C order.
pub fn for_each_record(blocks: &[Block], mut f: impl FnMut(usize, [usize; 3])) {
    for b in blocks {
        for i in b.lo[0]..b.hi[0] {
            for j in b.lo[1]..b.hi[1] {
                for k in b.lo[2]..b.hi[2] {
                    f(b.component.index(), [i, j, k]);
                }
            }
        }
    }
}

impl Pass for Dft {
    fn name(&self) -> &str {
        &self.name
    }

    fn describe(&self) -> String {
        format!(
            "DFT of {} sample(s) at {} frequency(ies), every {} step(s)",
            self.records(),
            self.inc.len(),
            self.every
        )
    }

    fn hook(&self) -> Hook {
        Hook::EndOfStep
    }

    fn state(&self) -> Vec<ArraySpec> {
        let dims = [self.inc.len(), self.records(), 1];
        vec![ArraySpec::new("re", dims), ArraySpec::new("im", dims)]
    }

    fn active_every(&self) -> usize {
        self.every
    }

    fn host(&self, ctx: &mut HostCtx<'_>) {
        if !due(self.every, ctx.step) {
            return;
        }
        let nrec = self.records();
        if nrec == 0 || self.inc.is_empty() {
            return;
        }
        // cos/sin per frequency for E and for H samples: the same f32 values the kernel
        // computes per thread.
        let trig: Vec<[f32; 4]> = self
            .inc
            .iter()
            .zip(&self.half)
            .map(|(&inc, &half)| {
                let (pe, ph) = phases(inc, half, ctx.step);
                let (ae, ah) = (angle(pe), angle(ph));
                [ae.cos(), ae.sin(), ah.cos(), ah.sin()]
            })
            .collect();
        let base = ctx.fields.base;
        let fields: [Option<&[f32]>; 6] = std::array::from_fn(|c| ctx.fields.windows[c].as_deref());
        let (re, im) = ctx.state.split_at_mut(1);
        let (re, im) = (&mut re[0][..], &mut im[0][..]);
        // Per chunk of records, its slice of every frequency's row.
        let mut parts: Vec<Vec<(&mut [f32], &mut [f32])>> = (0..nrec.div_ceil(CHUNK))
            .map(|_| Vec::with_capacity(trig.len()))
            .collect();
        for (rf, imf) in re.chunks_mut(nrec).zip(im.chunks_mut(nrec)) {
            for (b, (r, i)) in rf.chunks_mut(CHUNK).zip(imf.chunks_mut(CHUNK)).enumerate() {
                parts[b].push((r, i));
            }
        }
        let (comp, flat) = (&self.comp, &self.flat);
        parts.into_par_iter().enumerate().for_each(|(b, rows)| {
            let r0 = b * CHUNK;
            let len = rows[0].0.len();
            let mut v = [0f32; CHUNK];
            for q in 0..len {
                let c = comp[r0 + q] as usize;
                let w = fields[c].expect("fields are readable at the end of the step");
                v[q] = w[flat[r0 + q] - base];
            }
            for ((re, im), t) in rows.into_iter().zip(&trig) {
                for q in 0..len {
                    let (c, s) = if comp[r0 + q] < 3 { (t[0], t[1]) } else { (t[2], t[3]) };
                    re[q] += v[q] * c;
                    im[q] -= v[q] * s;
                }
            }
        });
    }

    fn device(&self) -> DevicePass {
        let mut records = Vec::with_capacity(self.records());
        for_each_record(&self.blocks, |c, at| {
            let r = records.len() as u32;
            records.push(Record {
                at,
                words: [c as u32, 0, r, 0],
            });
        });
        let mut params = vec![
            self.records() as u32,
            self.inc.len() as u32,
            self.every as u32,
            RAD.to_bits(),
        ];
        for (&inc, &half) in self.inc.iter().zip(&self.half) {
            params.push(inc);
            params.push(half);
        }
        DevicePass {
            regions: Vec::new(),
            file: "passes/dft.wgsl",
            wgsl: include_str!("../../../../shaders/passes/dft.wgsl"),
            entry: "accumulate_dft",
            serial: false,
            records,
            params,
            only_when_due: false,
        }
    }
}

//! The thin-wire radius correction (`model/thin.rs`, [`crate::model::thin::wire_fixes`]):
//! after the H update, `H += coef·(E_nb − E_gap)` at every corrected H sample, E still
//! E^n (E_gap only around a feed gap; 0 on a PEC wire edge). A
//! region-scope pass with no state: on the GPU its boxes are runs of corrected H
//! samples along the wire (one thread per sample, `shaders/passes/thin_wire.wgsl`); on
//! the CPU it runs on the whole grid between the H and the E sweep (it reads E of the
//! next x-slab, which the per-slab AfterH call does not see; a region entry at AfterH
//! is never run per slab: `fdtd-cpu` `program::slab_local`).
use crate::model::thin::HFix;
use crate::model::Model;
use crate::pass::{DevicePass, Entry, Hook, HostCtx, Pass, Region, Scope};

/// The pass `thin_wire`: the model's [`Model::wire_h`].
#[derive(Clone, Debug)]
pub struct ThinWire {
    /// (H component, H flat index, E component, neighbour's flat index, the circled
    /// gap edge's flat index, coefficient).
    host: Vec<(usize, usize, usize, usize, Option<usize>, f32)>,
    /// Runs of samples along the wire with one code and coefficient.
    boxes: Vec<(Region, u32, f32)>,
    wires: usize,
}

impl ThinWire {
    pub fn new(model: &Model) -> Option<ThinWire> {
        if model.wire_h.is_empty() {
            return None;
        }
        let g = &model.grid;
        let idx = |a: [usize; 3]| g.idx(a[0], a[1], a[2]);
        let host = model
            .wire_h
            .iter()
            .map(|f| {
                (
                    f.h,
                    idx(f.at),
                    f.e,
                    idx(f.nb_at()),
                    f.gap.then(|| idx(f.self_at())),
                    f.coef,
                )
            })
            .collect();
        Some(ThinWire {
            host,
            boxes: boxes(&model.wire_h),
            wires: model.wires.len(),
        })
    }

    /// Corrected H samples.
    pub fn samples(&self) -> usize {
        self.host.len()
    }
}

/// The code word of a fix: H component | E component << 4 | neighbour axis << 8 |
/// neighbour at +1 << 10 | gap << 11.
fn code(f: &HFix) -> u32 {
    f.h as u32 | (f.e as u32) << 4 | (f.dir as u32) << 8 | (f.plus as u32) << 10 | (f.gap as u32) << 11
}

/// Runs of fixes along their wire's axis (`HFix::e`) with one code and coefficient, as
/// boxes one sample thick across the wire.
fn boxes(fixes: &[HFix]) -> Vec<(Region, u32, f32)> {
    let mut v: Vec<&HFix> = fixes.iter().collect();
    let key = |f: &HFix| {
        let mut across = f.at;
        across[f.e] = 0;
        (code(f), f.coef.to_bits(), across, f.at[f.e])
    };
    v.sort_by_key(|f| key(f));
    let mut out: Vec<(Region, u32, f32)> = Vec::new();
    for f in v {
        let hi = f.at.map(|x| x + 1);
        if let Some((r, c, k)) = out.last_mut() {
            let a = f.e;
            let mut lo = f.at;
            lo[a] = r.lo[a];
            if *c == code(f) && k.to_bits() == f.coef.to_bits() && r.lo == lo && r.hi[a] == f.at[a] {
                r.hi[a] += 1;
                continue;
            }
        }
        out.push((Region { lo: f.at, hi }, code(f), f.coef));
    }
    out
}

impl Pass for ThinWire {
    fn name(&self) -> &str {
        "thin_wire"
    }

    fn describe(&self) -> String {
        format!(
            "thin-wire radius correction: {} H sample(s) around {} wire(s) with a radius, in {} run(s)",
            self.host.len(),
            self.wires,
            self.boxes.len()
        )
    }

    fn hook(&self) -> Hook {
        Hook::AfterH
    }

    fn entries(&self) -> Vec<Entry> {
        vec![Entry::new(Hook::AfterH, "", Scope::Region)]
    }

    /// It reads E of the next x-slab: never per slab.
    fn slab_local(&self) -> bool {
        false
    }

    fn host(&self, ctx: &mut HostCtx<'_>) {
        for &(h, fh, e, fe, fs, coef) in &self.host {
            let mut en = *ctx.fields.at(e, fe);
            if let Some(fs) = fs {
                en -= *ctx.fields.at(e, fs);
            }
            let x = ctx.fields.at(h, fh);
            *x += coef * en;
        }
    }

    fn device(&self) -> DevicePass {
        DevicePass {
            file: "passes/thin_wire.wgsl",
            wgsl: include_str!("../../../../shaders/passes/thin_wire.wgsl"),
            entry: "apply_thin_wire",
            serial: false,
            params: self.boxes.iter().flat_map(|(_, c, k)| [*c, k.to_bits()]).collect(),
            only_when_due: false,
            records: Vec::new(),
            regions: self.boxes.iter().map(|(r, _, _)| *r).collect(),
        }
    }
}

//! Point sources: soft (a current moment added to the field) and hard (the field set),
//! on any component. Magnetic sources run right after the H update, electric ones
//! right after the E update; values are evaluated on the host in f64
//! (`Model::source_values`), so both backends apply bit-identical numbers.
use crate::model::Model;
use crate::pass::{DevicePass, Hook, HostCtx, Pass, Record};
use crate::scene::SourceKind;

/// The sources of one phase, in model order.
#[derive(Clone, Debug)]
pub struct Sources {
    electric: bool,
    /// (model source index, component index, flat index, grid index, hard).
    list: Vec<(usize, usize, usize, [usize; 3], bool)>,
}

impl Sources {
    /// The model's electric or magnetic sources; None when it has none.
    pub fn new(model: &Model, electric: bool) -> Option<Sources> {
        let list: Vec<_> = model
            .sources
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.line && s.component.is_electric() == electric)
            .map(|(i, s)| (i, s.component.index(), s.flat, s.index, s.kind == SourceKind::Hard))
            .collect();
        (!list.is_empty()).then_some(Sources { electric, list })
    }
}

impl Pass for Sources {
    fn name(&self) -> &str {
        if self.electric {
            "sources_e"
        } else {
            "sources_h"
        }
    }

    fn describe(&self) -> String {
        let phase = if self.electric { "electric" } else { "magnetic" };
        format!("{} {phase} point source(s), soft or hard", self.list.len())
    }

    fn hook(&self) -> Hook {
        if self.electric {
            Hook::AfterE
        } else {
            Hook::AfterH
        }
    }

    /// Electric sources touch only their own E samples, of the slabs they are given.
    fn slab_local(&self) -> bool {
        self.electric
    }

    fn host(&self, ctx: &mut HostCtx<'_>) {
        let (x0, x1) = ctx.xs;
        for &(si, c, flat, at, hard) in &self.list {
            if at[0] < x0 || at[0] >= x1 {
                continue;
            }
            let v = ctx.sources[si];
            let x = ctx.fields.at(c, flat);
            if hard {
                *x = v;
            } else {
                *x += v;
            }
        }
    }

    fn device(&self) -> DevicePass {
        DevicePass {
            regions: Vec::new(),
            file: "passes/sources.wgsl",
            wgsl: include_str!("../../../../shaders/passes/sources.wgsl"),
            entry: "apply_sources",
            serial: true,
            params: Vec::new(),
            only_when_due: false,
            records: self
                .list
                .iter()
                .map(|&(si, c, _, at, hard)| Record {
                    at,
                    words: [c as u32, 0, hard as u32, si as u32],
                })
                .collect(),
        }
    }
}

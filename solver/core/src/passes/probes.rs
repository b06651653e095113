//! Probes: the value of field samples after every `every`-th step, one output stream
//! per probe component, in model order.
use crate::model::Model;
use crate::pass::{due, DevicePass, Hook, HostCtx, Pass, Record, Stream};

/// Every probe sample of the model.
#[derive(Clone, Debug)]
pub struct Probes {
    /// (component index, flat index, grid index, every), one per stream.
    samples: Vec<(usize, usize, [usize; 3], usize)>,
}

impl Probes {
    /// The model's probes; None when it has none.
    pub fn new(model: &Model) -> Option<Probes> {
        let samples: Vec<_> = model
            .probes
            .iter()
            .flat_map(|p| {
                p.samples
                    .iter()
                    .map(move |s| (s.component.index(), s.flat, s.index, p.every))
            })
            .collect();
        (!samples.is_empty()).then_some(Probes { samples })
    }
}

impl Pass for Probes {
    fn name(&self) -> &str {
        "probes"
    }

    fn describe(&self) -> String {
        format!("{} probe sample stream(s)", self.samples.len())
    }

    fn hook(&self) -> Hook {
        Hook::EndOfStep
    }

    fn outputs(&self) -> Vec<Stream> {
        self.samples.iter().map(|s| Stream { every: s.3 }).collect()
    }

    fn host(&self, ctx: &mut HostCtx<'_>) {
        for (q, &(c, flat, _, every)) in self.samples.iter().enumerate() {
            if due(every, ctx.step) {
                let v = *ctx.fields.at(c, flat);
                ctx.out[q].push(v);
            }
        }
    }

    fn device(&self) -> DevicePass {
        DevicePass {
            file: "passes/probes.wgsl",
            wgsl: include_str!("../../../../shaders/passes/probes.wgsl"),
            entry: "sample_probes",
            serial: false,
            params: Vec::new(),
            only_when_due: true,
            records: self
                .samples
                .iter()
                .enumerate()
                .map(|(q, &(c, _, at, every))| Record {
                    at,
                    words: [c as u32, 0, every as u32, q as u32],
                })
                .collect(),
        }
    }
}

//! Probes: the value of field samples after every `every`-th step, one output stream
//! per probe component, in model order. The same sampler, under another name, records
//! the ports' E edges and H loops (`lumped::port_sampler`).
use crate::model::Model;
use crate::pass::{due, DevicePass, Hook, HostCtx, Pass, Record, Stream};

/// Field samples recorded as output streams: every probe sample of the model (the pass
/// `probes`), or another sampler built with [`Probes::sampler`].
#[derive(Clone, Debug)]
pub struct Probes {
    /// The pass name (`probes`, `ports`) and what its streams are, for `describe`.
    name: &'static str,
    what: &'static str,
    /// (component index, flat index, grid index, every), one per stream.
    samples: Vec<(usize, usize, [usize; 3], usize)>,
}

impl Probes {
    /// A sampler pass called `name` whose streams are `samples` ((component index, flat
    /// index, grid index, every) each); None when there are none.
    pub fn sampler(
        name: &'static str,
        what: &'static str,
        samples: Vec<(usize, usize, [usize; 3], usize)>,
    ) -> Option<Probes> {
        (!samples.is_empty()).then_some(Probes { name, what, samples })
    }

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
        Probes::sampler("probes", "probe sample stream(s)", samples)
    }
}

impl Pass for Probes {
    fn name(&self) -> &str {
        self.name
    }

    fn describe(&self) -> String {
        format!("{} {}", self.samples.len(), self.what)
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
            regions: Vec::new(),
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

//! Lumped ports and elements: the port sampler (V and I every step) and the inductors'
//! auxiliary currents. R and C need no pass (they are coefficient rows), and the ports'
//! sources are ordinary soft sources (`sources_e`); see `model/lumped.rs`.
use super::probes::Probes;
use crate::model::Model;
use crate::pass::{DevicePass, Hook, HostCtx, Pass, Record};
use crate::state::ArraySpec;

/// The pass `ports`: samples every port's E edges and H loop after every step (the
/// probes' sampler with `every` = 1): per port, its E samples (`PortModel::edges`
/// order), then its loop's H samples (`PortModel::loop_h` order); then per line-port
/// plane ([`Model::line_pairs`]) its V edges and I loop. `runner::port_series` turns them
/// into (V, I) pairs.
pub fn port_sampler(model: &Model) -> Option<Probes> {
    let g = &model.grid;
    let mut samples = Vec::new();
    for p in &model.ports {
        let c = p.component().index();
        for e in &p.edges {
            samples.push((c, g.idx(e[0], e[1], e[2]), *e, 1));
        }
        for (h, at, _) in &p.loop_h {
            samples.push((h.index(), g.idx(at[0], at[1], at[2]), *at, 1));
        }
    }
    // Then the line ports' planes a and b (`Model::line_pairs` order): V edges, I loop.
    for (k, plane) in model.line_pairs() {
        let (p, line) = (&model.ports[k], model.ports[k].line.as_ref().expect("a line pair"));
        let c = p.component().index();
        for e in &line.v[plane] {
            samples.push((c, g.idx(e[0], e[1], e[2]), *e, 1));
        }
        for (h, at, _) in &line.i[plane] {
            samples.push((h.index(), g.idx(at[0], at[1], at[2]), *at, 1));
        }
    }
    Probes::sampler("ports", "port sample stream(s) (V edges and I loops)", samples)
}

/// The inductors of every lumped element with an `l`: after the E update,
/// E −= cb·J_L, then J_L += k·E (J_L at n+½ → n+3/2). State `j`: one value per edge.
#[derive(Clone, Debug)]
pub struct Inductors {
    /// (component index, flat index, grid index, k, cb), one per edge.
    edges: Vec<(usize, usize, [usize; 3], f32, f32)>,
}

impl Inductors {
    pub fn new(model: &Model) -> Option<Inductors> {
        let g = &model.grid;
        let mut edges = Vec::new();
        for el in &model.lumped {
            let Some(k) = el.l_coef else { continue };
            for (e, &cb) in el.edges.iter().zip(&el.cb) {
                edges.push((el.axis, g.idx(e[0], e[1], e[2]), *e, k, cb));
            }
        }
        (!edges.is_empty()).then_some(Inductors { edges })
    }
}

impl Pass for Inductors {
    fn name(&self) -> &str {
        "lumped_l"
    }

    fn describe(&self) -> String {
        format!("{} lumped inductor edge(s), J_L state", self.edges.len())
    }

    fn hook(&self) -> Hook {
        Hook::AfterE
    }

    fn state(&self) -> Vec<ArraySpec> {
        vec![ArraySpec::new("j", [self.edges.len(), 1, 1])]
    }

    fn host(&self, ctx: &mut HostCtx<'_>) {
        for (s, &(c, flat, _, k, cb)) in self.edges.iter().enumerate() {
            let j = ctx.state[0][s];
            let f = ctx.fields.at(c, flat);
            let e = *f - cb * j;
            *f = e;
            ctx.state[0][s] = j + k * e;
        }
    }

    fn device(&self) -> DevicePass {
        DevicePass {
            regions: Vec::new(),
            file: "passes/lumped_l.wgsl",
            wgsl: include_str!("../../../../shaders/passes/lumped_l.wgsl"),
            entry: "apply_inductors",
            serial: false,
            params: Vec::new(),
            only_when_due: false,
            records: self
                .edges
                .iter()
                .enumerate()
                .map(|(s, &(c, _, at, k, cb))| Record {
                    at,
                    words: [((s as u32) << 2) | c as u32, 0, k.to_bits(), cb.to_bits()],
                })
                .collect(),
        }
    }
}

//! The step as data: what one time step does, in order, with the index ranges of
//! every pass, computed once from the model.
//!
//! [`Schedule::stages`] is the step's program: the one description of its order that
//! both backends execute (the list [`Schedule::build`] makes, printed by `fdtd check
//! --schedule`):
//!
//! ```text
//! HBulk            H bulk (every H sample with all its E neighbours)
//! HCpml            CPML corrections to H, per layer and ψ slot 2, 3  [cpml]
//! Hook(AfterH)     passes hooked AfterH (magnetic sources)           [passes]
//! HaloH            H halo exchange between pieces (ghost planes)
//! Hook(BeforeE)    passes hooked BeforeE (E still E^n)                [passes]
//! EFaces           E on PMC / periodic face planes (image rule)      [faces]
//! EBulk            E bulk on interior samples
//! ECpml            CPML corrections to E, per layer and ψ slot 0, 1  [cpml]
//! Hook(AfterE)     passes hooked AfterE (electric sources)           [passes]
//! PeriodicCopies   copies of the low face planes onto the high ones  [copies]
//! HaloE            E halo exchange between pieces (ghost planes)
//! Hook(EndOfStep)  passes hooked EndOfStep (probes)                  [passes]
//! ```
//!
//! A stage with nothing to do (no CPML, no face planes, no pass at a hook) is left out.
//! A `Hook` stage runs the *entries* at its hook ([`Schedule::entries_at`]): a pass may
//! have several ([`crate::pass::Pass::entries`]), at different hooks, over one state.
//! Backends execute the list in order and decide *how*: the CPU fuses the slab-local
//! stages (H then E) into one sweep over x-slabs; the GPU fuses each CPML stage into the
//! bulk kernel before it (the kernels read the slots and signs from the schedule's
//! [`CpmlPass`]es) and turns the halo stages into ghost-plane copies. Neither
//! recomputes a range: every box below is the one both use. The bulk updates' own
//! ranges are fixed by the Yee stencil (see `fdtd-cpu`'s `update.rs`) and are not
//! data; everything a scene can switch on or off is.
pub use crate::model::{Box3, Range};
use crate::model::{FaceKind, Model};
use crate::pass::{Entry, Hook, Pass, Scope, Stream};
use crate::state::ArraySpec;
use crate::Component;
use std::fmt;
use std::sync::Arc;

/// Everything one step does (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct Schedule {
    /// The solver state's arrays, in table order: the six fields, then the ψ arrays of
    /// the CPML passes, then every array an extension pass registers.
    pub state: Vec<ArraySpec>,
    /// CPML corrections: for each layer, its two E passes then its two H passes.
    pub cpml: Vec<CpmlPass>,
    /// Per E component, the box of samples the CPML corrects: off PEC walls (and the
    /// PEC behind a CPML) and off periodic high planes; PMC high planes included.
    pub e_box: [Box3; 3],
    /// E samples on PMC and periodic face planes, updated before the E bulk.
    pub faces: Vec<FacePlane>,
    /// Copies of the low face plane onto the high one, per periodic axis, after E.
    pub copies: Vec<PeriodicCopy>,
    /// Extension passes (sources, probes, ...), in the order they run within their hook.
    pub passes: Vec<ScheduledPass>,
    /// The step's program: what runs, in order (see the module doc). Both backends
    /// iterate this list; the fields above say what each stage covers.
    pub stages: Vec<Stage>,
}

/// One stage of the step's program ([`Schedule::stages`]). A stage names *what* runs;
/// its index ranges are in the schedule's other fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// H^{n+1/2} from E^n on every H sample with all its E neighbours (Yee curl).
    HBulk,
    /// The CPML corrections to H ([`Schedule::cpml`], slots 2 and 3), on samples the
    /// H bulk has just updated.
    HCpml,
    /// The extension passes at a hook, in schedule order ([`Schedule::at`]).
    Hook(Hook),
    /// H of each piece's boundary plane copied into its neighbour's ghost plane (and
    /// the periodic-x image of H[nx−1]) on a backend that splits the grid; nothing on
    /// one address space (the CPU).
    HaloH,
    /// E on PMC and periodic face planes by the image rule ([`Schedule::faces`]),
    /// before the E bulk (whose CPML then corrects them too).
    EFaces,
    /// E^{n+1} from H^{n+1/2} on interior samples (off PEC walls).
    EBulk,
    /// The CPML corrections to E ([`Schedule::cpml`], slots 0 and 1), including
    /// face-plane samples ([`Schedule::e_box`]).
    ECpml,
    /// The low face plane's tangential E copied onto the high one, per periodic axis
    /// ([`Schedule::copies`], x then y then z).
    PeriodicCopies,
    /// E of each piece's first plane copied into the previous piece's ghost plane.
    HaloE,
}

impl Stage {
    /// Short name for `fdtd check --schedule` and GPU op labels.
    pub fn name(&self) -> &'static str {
        match self {
            Stage::HBulk => "HBulk",
            Stage::HCpml => "HCpml",
            Stage::Hook(Hook::AfterH) => "Hook(AfterH)",
            Stage::Hook(Hook::BeforeE) => "Hook(BeforeE)",
            Stage::Hook(Hook::AfterE) => "Hook(AfterE)",
            Stage::Hook(Hook::EndOfStep) => "Hook(EndOfStep)",
            Stage::HaloH => "HaloH",
            Stage::EFaces => "EFaces",
            Stage::EBulk => "EBulk",
            Stage::ECpml => "ECpml",
            Stage::PeriodicCopies => "PeriodicCopies",
            Stage::HaloE => "HaloE",
        }
    }

    /// Whether the stage writes H (else E, or only reads: a pass at EndOfStep).
    pub fn writes_h(&self) -> bool {
        matches!(
            self,
            Stage::HBulk | Stage::HCpml | Stage::Hook(Hook::AfterH) | Stage::HaloH
        )
    }
}

/// One CPML correction (Roden–Gedney): target component `target` from the derivative of
/// `source` along the layer axis, into ψ array `state` of the table:
///
/// ```text
/// d = (S[p + hi_off] − S[p − lo_off])·inv;   ψ ← b·ψ + a·d;   T += sign·coef·((1/κ − 1)·d + ψ)
/// ```
///
/// with `coef` = cb (E) or db (H) of the target's material, and b, a, 1/κ − 1 the
/// layer's profile at the sample's depth.
#[derive(Clone, Debug, PartialEq)]
pub struct CpmlPass {
    pub layer: usize,
    /// 0, 1: E_{a+1}, E_{a+2}; 2, 3: H_{a+1}, H_{a+2} (a = the layer axis).
    pub slot: usize,
    /// Component indices (0..6, `Component::index`).
    pub target: usize,
    pub source: usize,
    pub sign: f32,
    pub axis: usize,
    /// First grid index (along `axis`) of the samples with a ψ, and how many.
    pub first: usize,
    pub len: usize,
    /// Target samples corrected, per axis (the layer axis: `first..first + len`).
    pub range: Box3,
    /// Derivative stencil offsets, flat, in grid samples.
    pub hi_off: usize,
    pub lo_off: usize,
    /// 1/d along the layer axis.
    pub inv: f32,
    /// Shape of the ψ array: the grid's dims with the layer axis cut to `len`.
    pub psi_dims: [usize; 3],
    /// Index of the ψ array in [`Schedule::state`].
    pub state: usize,
}

impl CpmlPass {
    pub fn electric(&self) -> bool {
        self.slot < 2
    }

    /// x-slabs of the ψ array, and the first grid x-slab it maps to.
    pub fn psi_slabs(&self) -> (usize, usize) {
        if self.axis == 0 {
            (self.len, self.first)
        } else {
            (self.psi_dims[0], 0)
        }
    }

    /// Values per x-slab of the ψ array.
    pub fn psi_slab_len(&self) -> usize {
        self.psi_dims[1] * self.psi_dims[2]
    }
}

/// The E samples of component `comp` on one face plane normal to `normal` at index
/// `plane`, whose face is PMC or periodic (low side). `range` covers the plane; along
/// `along` it starts at 1 when the plane's partner face plane owns the edge samples.
/// The kernels still skip samples that also lie on a PEC/CPML or periodic-high plane.
#[derive(Clone, Debug, PartialEq)]
pub struct FacePlane {
    pub comp: usize,
    pub normal: usize,
    pub along: usize,
    pub plane: usize,
    pub range: Box3,
}

/// E components tangential to the faces of a periodic `axis`: their high plane is a
/// copy of the low plane.
#[derive(Clone, Debug, PartialEq)]
pub struct PeriodicCopy {
    pub axis: usize,
    pub components: [usize; 2],
}

/// An extension pass with where its state arrays sit in the table.
#[derive(Clone, Debug)]
pub struct ScheduledPass {
    pub pass: Arc<dyn Pass>,
    /// Indices of its [`Pass::state`] arrays in [`Schedule::state`], in its order.
    pub state: Vec<usize>,
    /// Its [`Pass::outputs`], asked once here so backends do not rebuild them per step.
    pub outputs: Vec<Stream>,
    /// Its [`Pass::entries`], asked once here.
    pub entries: Vec<Entry>,
}

impl Schedule {
    /// The schedule of `model` with `passes` as its extension passes (in order).
    pub fn build(model: &Model, passes: Vec<Arc<dyn Pass>>) -> Schedule {
        let g = &model.grid;
        let dims = g.dims();
        let mut state: Vec<ArraySpec> = Component::ALL.iter().map(|c| ArraySpec::new(c.name(), dims)).collect();
        let e_box: [Box3; 3] = std::array::from_fn(|c| std::array::from_fn(|u| e_range(model, c, u)));
        let n = g.n;
        let mut cpml = Vec::new();
        for (li, l) in model.cpml.iter().enumerate() {
            let a = l.axis;
            let (a1, a2) = ((a + 1) % 3, (a + 2) % 3);
            let stride_a = g.strides()[a];
            let face = format!("{}{}", ["x", "y", "z"][a], if l.high { "+" } else { "-" });
            for (slot, tc, sc, sign) in [(0, a1, a2, -1.0), (1, a2, a1, 1.0), (2, a1, a2, 1.0), (3, a2, a1, -1.0)] {
                let electric = slot < 2;
                let (first, len) = if electric {
                    (l.e_first, l.e.len())
                } else {
                    (l.h_first, l.h.len())
                };
                let mut range = if electric {
                    e_box[tc]
                } else {
                    // H_tc: integer along its own axis (0..=n), half-integer along the others.
                    std::array::from_fn(|u| if u == tc { (0, n[u] + 1) } else { (0, n[u]) })
                };
                range[a] = (first, first + len);
                let mut psi_dims = dims;
                psi_dims[a] = len;
                let target = if electric { tc } else { 3 + tc };
                state.push(ArraySpec::new(
                    format!("cpml/{face}/psi_{}", Component::ALL[target].name()),
                    psi_dims,
                ));
                cpml.push(CpmlPass {
                    layer: li,
                    slot,
                    target,
                    source: if electric { 3 + sc } else { sc },
                    sign,
                    axis: a,
                    first,
                    len,
                    range,
                    hi_off: if electric { 0 } else { stride_a },
                    lo_off: if electric { stride_a } else { 0 },
                    inv: g.inv_d()[a],
                    psi_dims,
                    state: state.len() - 1,
                });
            }
        }
        let mut scheduled = Vec::with_capacity(passes.len());
        for p in passes {
            let mut idx = Vec::new();
            for s in p.state() {
                state.push(ArraySpec::new(format!("{}/{}", p.name(), s.name), s.dims));
                idx.push(state.len() - 1);
            }
            let outputs = p.outputs();
            let entries = p.entries();
            scheduled.push(ScheduledPass {
                pass: p,
                state: idx,
                outputs,
                entries,
            });
        }
        let faces = faces(model);
        let has_cpml = !cpml.is_empty();
        let hooked = |h: Hook| scheduled.iter().any(|p| p.entries.iter().any(|e| e.hook == h));
        let stages = [
            (Stage::HBulk, true),
            (Stage::HCpml, has_cpml),
            (Stage::Hook(Hook::AfterH), hooked(Hook::AfterH)),
            (Stage::HaloH, true),
            (Stage::Hook(Hook::BeforeE), hooked(Hook::BeforeE)),
            (Stage::EFaces, !faces.is_empty()),
            (Stage::EBulk, true),
            (Stage::ECpml, has_cpml),
            (Stage::Hook(Hook::AfterE), hooked(Hook::AfterE)),
            (Stage::PeriodicCopies, model.faces.contains(&FaceKind::Periodic)),
            (Stage::HaloE, true),
            (Stage::Hook(Hook::EndOfStep), hooked(Hook::EndOfStep)),
        ]
        .into_iter()
        .filter_map(|(s, on)| on.then_some(s))
        .collect();
        Schedule {
            state,
            cpml,
            e_box,
            faces,
            stages,
            copies: (0..3)
                .filter(|&a| model.faces[2 * a] == FaceKind::Periodic)
                .map(|axis| PeriodicCopy {
                    axis,
                    // The E components tangential to the axis' faces, in index order.
                    components: if axis == 0 {
                        [1, 2]
                    } else if axis == 1 {
                        [0, 2]
                    } else {
                        [0, 1]
                    },
                })
                .collect(),
            passes: scheduled,
        }
    }

    /// The extension passes with an entry at `hook`, in order.
    pub fn at(&self, hook: Hook) -> impl Iterator<Item = &ScheduledPass> {
        self.passes
            .iter()
            .filter(move |p| p.entries.iter().any(|e| e.hook == hook))
    }

    /// The entries at `hook`, in the order they run: by pass (schedule order), then in
    /// the pass's [`Pass::entries`] order. Each comes with its pass's index in
    /// [`Schedule::passes`].
    pub fn entries_at(&self, hook: Hook) -> impl Iterator<Item = (usize, &ScheduledPass, Entry)> {
        self.passes.iter().enumerate().flat_map(move |(k, p)| {
            p.entries
                .iter()
                .filter(move |e| e.hook == hook)
                .map(move |&e| (k, p, e))
        })
    }

    /// Index of the array called `name` in [`Schedule::state`].
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.state.iter().position(|s| s.name == name)
    }

    /// Whether any face plane needs the image-rule update.
    pub fn has_faces(&self) -> bool {
        !self.faces.is_empty()
    }
}

/// The step in words: one stage after another, its name on its first line
/// (`fdtd check --schedule` prints it).
impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rng = |b: &Box3| {
            b.iter()
                .map(|(lo, hi)| format!("{lo}..{hi}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let name = |c: usize| Component::ALL[c].name();
        let axis = |a: usize| ["x", "y", "z"][a];
        for stage in &self.stages {
            let mut lines = Vec::new();
            let cpml = |electric: bool| -> Vec<String> {
                self.cpml
                    .iter()
                    .filter(|p| p.electric() == electric)
                    .map(|p| {
                        format!(
                            "   + CPML {} from d{}/d{}  [{}]  (ψ slot {}, sign {:+})",
                            name(p.target),
                            name(p.source),
                            axis(p.axis),
                            rng(&p.range),
                            p.slot,
                            p.sign
                        )
                    })
                    .collect()
            };
            match stage {
                Stage::HBulk => lines.push("H  bulk update of Hx, Hy, Hz".to_string()),
                Stage::HCpml => lines = cpml(false),
                Stage::Hook(hook) => {
                    let phase = match hook {
                        Hook::AfterH => "H",
                        Hook::BeforeE => "E",
                        Hook::AfterE => "E",
                        Hook::EndOfStep => "·",
                    };
                    for (_, p, e) in self.entries_at(*hook) {
                        let entry = match (p.entries.len(), e.scope) {
                            (1, Scope::Records) => String::new(),
                            (_, Scope::Records) => format!(" [{}]", e.entry),
                            (_, Scope::Once) => format!(" [{}, once per step]", e.entry),
                            (_, Scope::Region) => " [per region]".to_string(),
                        };
                        lines.push(format!("{phase}  pass {}{entry}: {}", p.pass.name(), p.pass.describe()));
                    }
                }
                Stage::HaloH => lines.push("H  halo: ghost planes between pieces (GPU)".to_string()),
                Stage::EFaces => {
                    for fp in &self.faces {
                        lines.push(format!(
                            "E  face plane {} at {}={}  [{}]",
                            name(fp.comp),
                            axis(fp.normal),
                            fp.plane,
                            rng(&fp.range)
                        ));
                    }
                }
                Stage::EBulk => lines.push("E  bulk update of Ex, Ey, Ez".to_string()),
                Stage::ECpml => lines = cpml(true),
                Stage::PeriodicCopies => {
                    for c in &self.copies {
                        lines.push(format!(
                            "E  periodic copy along {} of {}, {}",
                            axis(c.axis),
                            name(c.components[0]),
                            name(c.components[1])
                        ));
                    }
                }
                Stage::HaloE => lines.push("E  halo: ghost planes between pieces (GPU)".to_string()),
            }
            for (i, line) in lines.iter().enumerate() {
                let label = if i == 0 { stage.name() } else { "" };
                writeln!(f, "  {label:<16} {line}")?;
            }
        }
        writeln!(
            f,
            "  state: {} named arrays (fields, CPML ψ, pass state)",
            self.state.len()
        )
    }
}

/// Index range along axis `u` of E component `ec`'s samples that are updated (off PEC
/// walls and off periodic high planes).
fn e_range(m: &Model, ec: usize, u: usize) -> Range {
    let n = m.grid.n[u];
    if u == ec {
        return (0, n);
    }
    let lo = match m.faces[2 * u] {
        FaceKind::Pec | FaceKind::Cpml => 1,
        _ => 0,
    };
    let hi = match m.faces[2 * u + 1] {
        FaceKind::Pmc => n + 1,
        _ => n,
    };
    (lo, hi)
}

/// The face planes whose E samples the image rule updates (see [`FacePlane`]).
fn faces(m: &Model) -> Vec<FacePlane> {
    let n = m.grid.n;
    let mut out = Vec::new();
    if !m.faces.iter().any(|k| matches!(k, FaceKind::Pmc | FaceKind::Periodic)) {
        return out;
    }
    for a in 0..3 {
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        // Planes normal to b: all samples; planes normal to c: skip those on b planes.
        for (t, u) in [(b, c), (c, b)] {
            for (plane, high) in [(0, false), (n[t], true)] {
                match m.faces[2 * t + high as usize] {
                    FaceKind::Pec | FaceKind::Cpml => continue,
                    FaceKind::Periodic if high => continue,
                    _ => {}
                }
                let mut range = [(0, 0); 3];
                range[a] = (0, n[a]);
                range[t] = (plane, plane + 1);
                range[u] = if t == c { (1, n[u]) } else { (0, n[u] + 1) };
                out.push(FacePlane {
                    comp: a,
                    normal: t,
                    along: u,
                    plane,
                    range,
                });
            }
        }
    }
    out
}

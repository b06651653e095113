//! Extension passes: physics added to the step without touching the bulk updates.
//!
//! A [`Pass`] runs at one [`Hook`] of every step, on both backends: on the CPU through
//! [`Pass::host`], on the GPU through the WGSL kernel that [`Pass::device`] names,
//! dispatched by the GPU backend with a fixed binding interface (the *point-pass ABI*,
//! below). A pass may keep state arrays ([`Pass::state`]): they join the solver's
//! state table, so checkpoints and cross-backend resume carry them with no new code.
//! Sources ([`crate::passes::sources`]) and probes ([`crate::passes::probes`]) are
//! passes; `docs/architecture.md` walks through adding one.
//!
//! # The point-pass ABI (WGSL)
//!
//! A point pass acts on a list of grid samples (its *records*). The GPU backend splits
//! the records by x-slab piece, writes each record's local flat index into `.y`, and
//! binds, for each piece:
//!
//! ```text
//! @group(0) @binding(0..=5) var<storage, read_write> ex, ey, ez, hx, hy, hz: array<f32>;
//! @group(0) @binding(6) var<storage, read> records: array<vec4<u32>>;  // .y = local index
//! @group(0) @binding(7) var<storage, read> values: array<f32>;    // [step][model source]
//! @group(0) @binding(8) var<storage, read_write> out: array<f32>; // output streams
//! @group(0) @binding(9) var<storage, read_write> state: array<f32>; // the pass's arrays, concatenated
//! @group(0) @binding(10) var<storage, read> params: array<u32>;   // DevicePass::params
//! @group(1) @binding(0) var<uniform> step: Step;                  // s, n, n0, ns
//! ```
//!
//! A serial pass runs as one thread that walks the records in order (so two records on
//! one sample apply in the CPU's order); otherwise one thread per record.
use crate::model::Range;
use crate::state::ArraySpec;
use std::fmt;

/// Where in a step a pass runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hook {
    /// After the H update, before E reads H. On the CPU this runs per x-slab inside
    /// the fused sweep, right after that slab's H: a pass at this hook may only touch
    /// H samples of the slabs it is given ([`HostCtx::xs`]).
    AfterH,
    /// After the H phase (H final, its GPU ghost planes exchanged), before the E update:
    /// E is still E^n. For corrections that need E^n or act before E reads H (a plane
    /// wave's E-side incident field, a dispersive update). It should not write H (the
    /// GPU's ghost copies of H are already made).
    BeforeE,
    /// After the E update (face planes, bulk, CPML), before the periodic copies. On the
    /// CPU this runs per x-slab inside the fused sweep when every pass at it is
    /// [`Pass::slab_local`] (and has no outputs, and state only by plane), else on the
    /// whole grid after the sweep.
    AfterE,
    /// At the end of the step, on the final fields (probes).
    EndOfStep,
}

impl Hook {
    /// Every hook, in step order.
    pub const ALL: [Hook; 4] = [Hook::AfterH, Hook::BeforeE, Hook::AfterE, Hook::EndOfStep];
}

/// How much of the grid one entry of a pass acts on per step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// One thread per record (or one thread walking them, for a `serial` pass), on
    /// every GPU piece that holds records; on the CPU one `host` call.
    Records,
    /// One thread per sample of the pass's regions ([`DevicePass::regions`]: boxes of
    /// samples whose state is dense, so no sample needs a record), on every GPU piece
    /// they reach. On the CPU `host` runs per x-slab inside the fused sweep (`ctx.xs`
    /// one slab; `ctx.state[0]` that slab's planes of the pass's one state array, laid
    /// out by x plane as [`Pass::state_planes`] says) when every entry at its hook
    /// allows it, else once for all slabs (`ctx.state[0]` the whole array).
    Region,
    /// Once per step: one thread on the GPU (on the first piece, with that piece's
    /// bindings), one `host` call on the CPU. For work on the pass's state alone
    /// (advancing a 1-D incident-field line, a counter); it should not touch fields.
    Once,
}

/// One (hook, kernel) entry of a pass: where in the step it runs, which WGSL entry
/// point the GPU dispatches, and its [`Scope`]. Every entry of a pass shares its state,
/// records, parameters and streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    pub hook: Hook,
    /// The WGSL entry point; `""`: [`DevicePass::entry`].
    pub entry: &'static str,
    pub scope: Scope,
}

impl Entry {
    /// The one entry of a single-hook pass: [`Pass::hook`], [`DevicePass::entry`], per record.
    pub fn main(hook: Hook) -> Entry {
        Entry {
            hook,
            entry: "",
            scope: Scope::Records,
        }
    }

    /// An entry at `hook` running WGSL entry point `entry` with `scope`.
    pub fn new(hook: Hook, entry: &'static str, scope: Scope) -> Entry {
        Entry { hook, entry, scope }
    }
}

/// A pass of the step (see the module doc).
pub trait Pass: Send + Sync + fmt::Debug {
    /// Short name, unique in a schedule; prefixes its state arrays (`<name>/<array>`).
    fn name(&self) -> &str;
    /// One line for `fdtd check --schedule` and the docs.
    fn describe(&self) -> String;
    /// The hook of a single-hook pass (of a multi-entry pass: its first entry's).
    fn hook(&self) -> Hook;
    /// Where and how the pass runs: one [`Entry`] per (hook, kernel). The default is one
    /// entry at [`Pass::hook`] running [`DevicePass::entry`] per record. A pass with
    /// several entries has its `host` called once per entry, with [`HostCtx::entry`]
    /// saying which; on the GPU each entry is its own pipeline over the same bindings
    /// (one state buffer). Entries run in schedule order within their hook.
    fn entries(&self) -> Vec<Entry> {
        vec![Entry::main(self.hook())]
    }
    /// Arrays kept between steps (zero at the start; saved in checkpoints). The names
    /// are local to the pass.
    fn state(&self) -> Vec<ArraySpec> {
        Vec::new()
    }
    /// At [`Hook::AfterE`]: whether the pass reads and writes only E samples of the
    /// x-slabs a call is given (`ctx.xs`), so the CPU may call it per slab inside its
    /// fused sweep, right after that slab's E update. False (the default): it runs on
    /// the whole grid after the sweep. (At [`Hook::AfterH`] that restriction to H is
    /// the hook's own rule.)
    fn slab_local(&self) -> bool {
        false
    }
    /// A region-scope pass's one state array laid out by x plane: where plane x begins
    /// in it (x = 0..=nx, the last the array's length), so the CPU can hand each slab
    /// its planes. Empty (the default): the pass's state cannot be split by slab.
    fn state_planes(&self) -> Vec<usize> {
        Vec::new()
    }
    /// Output streams: one value per stream each time the stream is due
    /// (`(n + 1) % every == 0` after step n), in stream order.
    fn outputs(&self) -> Vec<Stream> {
        Vec::new()
    }
    /// The pass does anything only after steps `n` with `due(every, n)` (a decimated
    /// accumulator such as a DFT monitor), so a backend may skip it at the others; 1
    /// (the default): it acts every step. Its `host` and kernel still check it.
    fn active_every(&self) -> usize {
        1
    }
    /// The pass on host memory (the CPU backend).
    fn host(&self, ctx: &mut HostCtx<'_>);
    /// The pass on a GPU: its kernel and records.
    fn device(&self) -> DevicePass;
}

/// An output stream of a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream {
    /// Sampled after every `every`-th step.
    pub every: usize,
}

/// Whether a stream sampled every `every` steps is due after step `n` (0-based).
pub fn due(every: usize, n: usize) -> bool {
    (n + 1).is_multiple_of(every)
}

/// What [`Pass::host`] sees.
pub struct HostCtx<'a> {
    /// The step (0-based) being taken.
    pub step: usize,
    /// The entry this call is made for (its hook and name; [`Pass::entries`]).
    pub entry: Entry,
    /// This step's source values, one per model source (`Model::source_values`).
    pub sources: &'a [f32],
    /// The x-slabs this call may touch (all of them except at [`Hook::AfterH`] inside
    /// the CPU's fused sweep).
    pub xs: Range,
    /// The fields, as far as this call may touch them.
    pub fields: FieldsMut<'a>,
    /// The pass's state arrays, in [`Pass::state`] order; in a per-slab call of a
    /// region-scope entry, the slab's planes of its one array (from float
    /// `state_planes()[xs.0]` on).
    pub state: &'a mut [&'a mut [f32]],
    /// The pass's output streams, in [`Pass::outputs`] order: push when due.
    pub out: &'a mut [Vec<f32>],
}

/// Field samples a host pass may read and write: per component, a window of its array
/// starting at flat index `base` (None: not available at this hook).
pub struct FieldsMut<'a> {
    pub windows: [Option<&'a mut [f32]>; 6],
    pub base: usize,
}

impl FieldsMut<'_> {
    /// Sample `flat` of component `c`. Panics when the sample is outside what this
    /// hook gives (a pass bug, not an input error).
    pub fn at(&mut self, c: usize, flat: usize) -> &mut f32 {
        let w = self.windows[c]
            .as_deref_mut()
            .unwrap_or_else(|| panic!("component {c} is not available to this pass at its hook"));
        &mut w[flat - self.base]
    }
}

/// A pass's GPU side: a WGSL kernel with the point-pass ABI (see the module doc).
#[derive(Clone, Debug)]
pub struct DevicePass {
    /// Kernel file name (for messages) and its WGSL source.
    pub file: &'static str,
    pub wgsl: &'static str,
    pub entry: &'static str,
    /// One thread walks the records in order (`true`), or one thread per record.
    pub serial: bool,
    pub records: Vec<Record>,
    /// The boxes of a region-scope entry, in the order the kernel's region index
    /// counts them (`region_sample` of the ABI).
    pub regions: Vec<Region>,
    /// The pass's own parameters (coefficients, frequencies, ...: f32 as `to_bits`),
    /// the same on every piece; empty when it has none.
    pub params: Vec<u32>,
    /// The kernel does nothing at a step where none of its output streams is due (a
    /// pure sampler, like probes), so the backend may skip its dispatch then. False for
    /// a pass that updates fields or state every step.
    pub only_when_due: bool,
}

/// One record of a point pass: the grid sample it acts on and its words (`.y` is
/// replaced by the sample's local flat index on the device).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub at: [usize; 3],
    pub words: [u32; 4],
}

/// A box of grid samples (exclusive ends) a region-scope entry acts on, one GPU thread
/// per sample ([`Scope::Region`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    pub lo: [usize; 3],
    pub hi: [usize; 3],
}

impl Region {
    pub fn len(&self) -> usize {
        (0..3).map(|a| self.hi[a].saturating_sub(self.lo[a])).product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

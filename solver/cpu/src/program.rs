//! The schedule's stage list ([`Schedule::stages`](fdtd_core::schedule::Schedule)) as
//! the CPU runs it, compiled once per backend.
//!
//! Stages that act on one x-slab at a time reading only its neighbours (the bulk
//! updates, the CPML corrections, the face planes, and AfterH passes with no state and
//! no outputs) are *slab-local*. A maximal run of them becomes one [`Run::Slabs`]: the
//! H stages, then the E stages, which [`crate::sweep::step`] fuses into one sweep
//! (`H(i)` then `E(i)`, slab by slab) or runs as two. Every other stage runs on the whole
//! grid between sweeps. The halo stages do nothing on one address space.
use fdtd_core::pass::{Hook, Scope};
use fdtd_core::schedule::Stage;
use fdtd_core::simulation::Simulation;

/// One step of the CPU's program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Run {
    /// Slab-local stages over every x-slab: `h` (in order) on slab `i`, then `e`.
    Slabs { h: Vec<Stage>, e: Vec<Stage> },
    /// The passes at a hook on the whole grid, serially in schedule order.
    Hook(Hook),
    /// The schedule's periodic copies.
    PeriodicCopies,
}

/// Whether the passes at `hook` can run per x-slab inside a sweep, right after the
/// slab's H (AfterH) or E (AfterE) update: each entry is per record of a pass with no
/// state and no outputs (per-slab calls would split those by slab), or per region of
/// a pass whose one state array is laid out by plane ([`Pass::state_planes`]); a
/// once-per-step entry would run once per slab. At AfterE every pass must also be
/// [`Pass::slab_local`] (it touches only E of its slabs): a per-slab call sees E of its
/// slab final (bulk, CPML, face planes), and nobody reads it later in the step (H(i)
/// ran before E(i)); it runs in the sweep only right after E stages ([`compile`]).
///
/// [`Pass::state_planes`]: fdtd_core::pass::Pass::state_planes
/// [`Pass::slab_local`]: fdtd_core::pass::Pass::slab_local
fn slab_local(m: &Simulation, hook: Hook) -> bool {
    matches!(hook, Hook::AfterH | Hook::AfterE)
        && m.schedule
            .entries_at(hook)
            .all(|(_, p, _)| hook == Hook::AfterH || p.pass.slab_local())
        && m.schedule.entries_at(hook).all(|(_, p, e)| match e.scope {
            Scope::Records => p.state.is_empty() && p.outputs.is_empty(),
            Scope::Region => {
                hook == Hook::AfterE && p.state.len() == 1 && p.outputs.is_empty() && !p.pass.state_planes().is_empty()
            }
            Scope::Once => false,
        })
}

/// The model's stage list as the CPU's program (see the module doc).
pub fn compile(m: &Simulation) -> Vec<Run> {
    let mut out = Vec::new();
    let (mut h, mut e) = (Vec::new(), Vec::new());
    let flush = |out: &mut Vec<Run>, h: &mut Vec<Stage>, e: &mut Vec<Stage>| {
        if !h.is_empty() || !e.is_empty() {
            out.push(Run::Slabs {
                h: std::mem::take(h),
                e: std::mem::take(e),
            });
        }
    };
    for &stage in &m.schedule.stages {
        match stage {
            // One address space: nothing to exchange.
            Stage::HaloH | Stage::HaloE => {}
            Stage::PeriodicCopies => {
                flush(&mut out, &mut h, &mut e);
                out.push(Run::PeriodicCopies);
            }
            Stage::Hook(hook) if !slab_local(m, hook) => {
                flush(&mut out, &mut h, &mut e);
                out.push(Run::Hook(hook));
            }
            // After E in the sweep: E of each slab, then its AfterE passes.
            Stage::Hook(Hook::AfterE) if !e.is_empty() => e.push(stage),
            Stage::Hook(hook @ Hook::AfterE) => {
                flush(&mut out, &mut h, &mut e);
                out.push(Run::Hook(hook));
            }
            s if s.writes_h() => {
                // H after E in one sweep would read E of slab i+1 before its update.
                if !e.is_empty() {
                    flush(&mut out, &mut h, &mut e);
                }
                h.push(s);
            }
            s => e.push(s),
        }
    }
    flush(&mut out, &mut h, &mut e);
    out
}

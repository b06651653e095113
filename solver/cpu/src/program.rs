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

/// Whether the passes at `hook` can run per x-slab inside a sweep: only AfterH entries
/// of passes with no state and no outputs (per-slab calls would split those by slab),
/// per record (a once-per-step entry would run once per slab).
fn slab_local(m: &Simulation, hook: Hook) -> bool {
    hook == Hook::AfterH
        && m.schedule
            .entries_at(Hook::AfterH)
            .all(|(_, p, e)| p.state.is_empty() && p.outputs.is_empty() && e.scope == Scope::Records)
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

//! A [`Model`] and the [`Schedule`] that steps it: what a backend runs.
//!
//! The physics ([`Model`], from the scene) does not know how it is stepped. The step's
//! program is built here, outside the model, from the model and a list of passes: the
//! scene's own ([`crate::passes::standard`]) plus any a front end or a test adds
//! ([`Simulation::with_passes`], `RunRequest::extra_passes`). Engines plan and create
//! backends from a `Simulation`; it dereferences to its `Model`, so `sim.grid` reads
//! the physics and `sim.schedule` the program.
use crate::model::Model;
use crate::pass::Pass;
use crate::schedule::Schedule;
use std::ops::Deref;
use std::sync::Arc;

/// A model with the schedule that steps it (see the module doc).
#[derive(Clone, Debug)]
pub struct Simulation {
    pub model: Model,
    /// What one step does, with every range: built by [`Schedule::build`] from `model`.
    pub schedule: Schedule,
}

impl Simulation {
    /// `model` stepped by exactly `passes` (in order).
    pub fn new(model: Model, passes: Vec<Arc<dyn Pass>>) -> Simulation {
        let schedule = Schedule::build(&model, passes);
        Simulation { model, schedule }
    }

    /// `model` stepped by the scene's passes ([`crate::passes::standard`]).
    pub fn standard(model: Model) -> Simulation {
        Simulation::with_passes(model, Vec::new())
    }

    /// `model` stepped by the scene's passes, then `extra` (each runs after the scene's
    /// passes of its hook).
    pub fn with_passes(model: Model, extra: Vec<Arc<dyn Pass>>) -> Simulation {
        let mut passes = crate::passes::standard(&model);
        passes.extend(extra);
        Simulation::new(model, passes)
    }

    /// The extension passes of the schedule, in order (to rebuild it with one more).
    pub fn passes(&self) -> Vec<Arc<dyn Pass>> {
        self.schedule.passes.iter().map(|p| p.pass.clone()).collect()
    }

    /// This simulation on a grid of `n` cells of size `d` ([`Model::resized_for_plan`]),
    /// with the same schedule: what the memory plans need to size another grid. Not
    /// runnable.
    pub fn resized_for_plan(&self, n: [usize; 3], d: [f64; 3]) -> Simulation {
        Simulation {
            model: self.model.resized_for_plan(n, d),
            schedule: self.schedule.clone(),
        }
    }
}

impl Deref for Simulation {
    type Target = Model;
    fn deref(&self) -> &Model {
        &self.model
    }
}

//! `fdtd bench`: vacuum cubes with a 10-cell CPML at several sizes, reporting
//! cell updates per second (Mcells/s) and the memory each run needs.
use crate::backend::{create, BackendChoice, BackendError, BackendOptions};
use crate::model::Model;
use std::io::Write;

/// What to measure.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Cube edge lengths in cells.
    pub sizes: Vec<usize>,
    /// Steps timed per size (after a warm-up).
    pub steps: usize,
    /// CPML thickness in cells.
    pub cpml: usize,
    pub backend: BackendChoice,
    pub backend_opts: BackendOptions,
}

/// One measured size.
#[derive(Clone, Debug)]
pub struct BenchRow {
    pub size: usize,
    pub cells: u64,
    pub steps: usize,
    pub seconds: f64,
    pub mcells_per_s: f64,
    pub plan_bytes: u64,
    pub backend: String,
}

/// Run the benchmark, printing a table to `out` as rows complete.
pub fn run(opts: &BenchOptions, out: &mut dyn Write) -> Result<Vec<BenchRow>, BackendError> {
    let _ = (opts, out, create, Model::discretize);
    Err(BackendError::NoDevice("bench not implemented yet".into()))
}

//! `fdtd bench`: vacuum cubes with a CPML on every face at several sizes, reporting
//! cell updates per second (Mcells/s) and the memory each run needs.
//!
//! The scene is built through the same path as a user's (scene → model → backend), a
//! soft dipole in the centre keeps the fields non-zero, and only `Backend::step` is
//! timed, after a warm-up. With `dielectric`, a dielectric sphere (half the cube's
//! edge across) adds mixed-material rows, so the material-index path is measured too.
use crate::backend::{engines, BackendChoice, BackendError, BackendOptions};
use crate::model::Model;
use crate::plan::{human_bytes, Plan};
use crate::session::resources::{available_ram, lower_bound};
use crate::session::{create_backend, ErrorKind, SessionError};
use crate::Component;
pub use fdtd_core::workload::bench_scene;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

/// What to measure.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Cube edge lengths in cells.
    pub sizes: Vec<usize>,
    /// Steps timed per size (after a warm-up).
    pub steps: usize,
    /// CPML thickness in cells.
    pub cpml: usize,
    /// Put a dielectric sphere in the cube (mixed-material rows).
    pub dielectric: bool,
    pub backend: BackendChoice,
    pub backend_opts: BackendOptions,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            sizes: vec![64, 128, 160],
            steps: 100,
            cpml: 10,
            dielectric: false,
            backend: BackendChoice::Cpu,
            backend_opts: BackendOptions::default(),
        }
    }
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

/// Main-memory bandwidth (bytes/s) of a parallel triad `a = b + s·c` over 3 × 64 MiB
/// arrays, counting 12 bytes per element (best of 5). FDTD on the CPU is bound by this:
/// the fused sweep moves about 48 bytes per cell update (read and write E and H), so
/// `bandwidth / 48` is its ceiling.
pub fn memory_bandwidth() -> f64 {
    use rayon::prelude::*;
    let n = 16 << 20;
    let b = vec![1.0f32; n];
    let c = vec![2.0f32; n];
    let mut a = vec![0.0f32; n];
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        a.par_chunks_mut(1 << 16)
            .zip(b.par_chunks(1 << 16))
            .zip(c.par_chunks(1 << 16))
            .for_each(|((a, b), c)| {
                for i in 0..a.len() {
                    a[i] = b[i] + 0.5 * c[i];
                }
            });
        best = best.min(t.elapsed().as_secs_f64());
    }
    std::hint::black_box(&a);
    12.0 * n as f64 / best
}

/// Run the benchmark, printing a table to `out` as rows complete.
pub fn run(opts: &BenchOptions, out: &mut dyn Write) -> Result<Vec<BenchRow>, BackendError> {
    let io = |e: std::io::Error| BackendError::Gpu(format!("writing the table: {e}"));
    if opts.backend == BackendChoice::Cpu {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(opts.backend_opts.threads)
            .build()
            .map_err(|e| BackendError::NoDevice(e.to_string()))?;
        let bw = pool.install(memory_bandwidth);
        writeln!(
            out,
            "memory bandwidth (triad, {} threads): {:.1} GB/s → ceiling of the fused CPU sweep (48 B/cell): {:.0} Mcells/s",
            pool.current_num_threads(),
            bw / 1e9,
            bw / 48.0 / 1e6
        )
        .map_err(io)?;
    }
    writeln!(
        out,
        "{:>6} {:>12} {:>7} {:>9} {:>11} {:>12}  backend",
        "size", "cells", "steps", "seconds", "Mcells/s", "memory"
    )
    .map_err(io)?;
    let mut rows = Vec::new();
    let warmup: usize = 5;
    for &n in &opts.sizes {
        let scene = bench_scene(n, opts.cpml, warmup.saturating_add(opts.steps), opts.dielectric);
        // The same checks as a run: a cube too large for RAM is refused before the model
        // is allocated, and the backend's plan before the backend is.
        if let Some(available) = available_ram() {
            let need = lower_bound(&scene, opts.backend != BackendChoice::Gpu);
            if need > available {
                return Err(BackendError::DoesNotFit(format!(
                    "a {n}³ cube needs at least {} of RAM; {} is available",
                    human_bytes(need),
                    human_bytes(available)
                )));
            }
        }
        let model = Arc::new(fdtd_core::Simulation::standard(
            Model::discretize(&scene).map_err(|e| BackendError::DoesNotFit(e.to_string()))?,
        ));
        let plan_bytes = Plan::common(&model, 2).total();
        let (created, _) =
            create_backend(&engines(), &model, opts.backend, &opts.backend_opts, 50, false).map_err(|e| match e {
                SessionError::Backend(e) => e,
                e if e.kind() == ErrorKind::DoesNotFit => BackendError::DoesNotFit(e.to_string()),
                e => BackendError::Gpu(e.to_string()),
            })?;
        let desc = created.describe();
        let mut backend = created.backend;
        backend.step(0, warmup, &model.source_values(0, warmup))?;
        // Block until the warm-up is done (GPU backends queue work).
        backend.read_region(Component::Ez, [0; 3], [1; 3])?;
        let t = Instant::now();
        let chunk = 50;
        let mut done = 0;
        while done < opts.steps {
            let count = chunk.min(opts.steps - done);
            let n0 = warmup + done;
            backend.step(n0, count, &model.source_values(n0, count))?;
            done += count;
        }
        backend.read_region(Component::Ez, [0; 3], [1; 3])?;
        let seconds = t.elapsed().as_secs_f64();
        let cells = model.grid.cells();
        let row = BenchRow {
            size: n,
            cells,
            steps: opts.steps,
            seconds,
            mcells_per_s: cells as f64 * opts.steps as f64 / seconds / 1e6,
            plan_bytes,
            backend: desc,
        };
        writeln!(
            out,
            "{:>5}³ {:>12} {:>7} {:>9.3} {:>11.1} {:>12}  {}",
            n,
            cells,
            row.steps,
            row.seconds,
            row.mcells_per_s,
            human_bytes(plan_bytes),
            row.backend
        )
        .map_err(io)?;
        rows.push(row);
    }
    Ok(rows)
}

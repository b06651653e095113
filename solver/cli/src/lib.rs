//! `fdtd`: a portable finite-difference time-domain electromagnetic simulator.
//!
//! This crate is the `fdtd` command line and a thin facade over the workspace's crates,
//! so a program (a test, a sweep driver, a binding) can use the whole engine through one
//! dependency:
//!
//! ```text
//! fdtd-scene ──▶ fdtd-core ──▶ fdtd-cpu ─┐
//!  (TOML)        (model,       fdtd-gpu ─┼─▶ fdtd (CLI + this facade)
//!                 schedule,    fdtd-io  ─┘
//!                 state, run)
//! ```
//!
//! * [`scene`], [`model`], [`plan`], [`checkpoint`], [`runner`], [`fmt`]: `fdtd-scene` and `fdtd-core`.
//! * [`session`]: a whole run, from a scene to a closed output file, with every check
//!   (`fdtd-core`); [`session::run`] runs one on this build's engines, writing HDF5.
//! * [`backend`]: the backend trait and state (`fdtd-core`), with the CPU and GPU backends
//!   as [`backend::cpu`] and [`backend::gpu`], and [`backend::create`] over both.
//! * [`output`]: HDF5 and XDMF (`fdtd-io`).
//! * [`sweep`]: parameter sweeps (`fdtd-sweep`).
#![deny(unsafe_op_in_unsafe_fn)]

pub mod bench;
pub mod plot;
pub mod signal;

pub use fdtd_core::{checkpoint, farfield, fmt, model, monitors, plan, ports, results, runner, scene, waveform};
pub use fdtd_core::{component, Component, Simulation, C0, EPS0, ETA0, MU0};
pub use fdtd_io as output;
/// Parameter sweeps (`fdtd-sweep`): sweep files, local runs, Slurm arrays, collected summaries.
pub use fdtd_sweep as sweep;

/// The backend seam and both backends.
pub mod backend {
    pub use fdtd_core::backend::*;
    pub use fdtd_cpu as cpu;
    pub use fdtd_gpu as gpu;

    use std::sync::Arc;

    /// Every engine this build has, CPU first.
    pub fn engines() -> [&'static dyn Engine; 2] {
        [&cpu::CpuEngine, &gpu::GpuEngine]
    }

    /// [`fdtd_core::backend::create`] over [`engines`].
    pub fn create(
        model: Arc<fdtd_core::Simulation>,
        choice: BackendChoice,
        opts: &BackendOptions,
    ) -> Result<(Box<dyn Backend>, String), BackendError> {
        fdtd_core::backend::create(&engines(), model, choice, opts)
    }
}

/// Runs from a scene to a closed output file (`fdtd_core::session`).
///
/// ```no_run
/// use fdtd::session::{self, ErrorKind, RunRequest};
///
/// let mut request = RunRequest::new(std::path::PathBuf::from("scenes/dipole.toml"));
/// request.output = Some("dipole.h5".into());
/// request.force = true;
/// match session::run(request, &fdtd::output::Hdf5Format::default()) {
///     Ok(report) => println!("{} steps, {:.1} Mcells/s", report.summary.steps_done, report.mcells_per_s),
///     Err(e) if e.kind() == ErrorKind::DoesNotFit => eprintln!("too large: {e}"),
///     Err(e) => eprintln!("error: {e}"),
/// }
/// ```
pub mod session {
    pub use fdtd_core::session::*;

    /// Load, check, prepare and run `request` on this build's engines
    /// ([`crate::backend::engines`]), writing HDF5 in `format`.
    pub fn run(request: RunRequest, format: &crate::output::Hdf5Format) -> Result<RunReport, SessionError> {
        Session::load(request)?
            .prepare(&crate::backend::engines(), format)?
            .run()
    }
}

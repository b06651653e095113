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
//! * [`scene`], [`model`], [`plan`], [`checkpoint`], [`runner`]: `fdtd-scene` and `fdtd-core`.
//! * [`backend`]: the backend trait and state (`fdtd-core`), with the CPU and GPU backends
//!   as [`backend::cpu`] and [`backend::gpu`], and [`backend::create`] over both.
//! * [`output`]: HDF5 and XDMF (`fdtd-io`).
#![deny(unsafe_op_in_unsafe_fn)]

pub mod bench;

pub use fdtd_core::{checkpoint, model, plan, runner, scene, waveform};
pub use fdtd_core::{component, Component, C0, EPS0, ETA0, MU0};
pub use fdtd_io as output;

/// The backend seam and both backends.
pub mod backend {
    pub use fdtd_core::backend::*;
    pub use fdtd_cpu as cpu;
    pub use fdtd_gpu as gpu;

    use fdtd_core::model::Model;
    use std::sync::Arc;

    /// Every engine this build has, CPU first.
    pub fn engines() -> [&'static dyn Engine; 2] {
        [&cpu::CpuEngine, &gpu::GpuEngine]
    }

    /// [`fdtd_core::backend::create`] over [`engines`].
    pub fn create(
        model: Arc<Model>,
        choice: BackendChoice,
        opts: &BackendOptions,
    ) -> Result<(Box<dyn Backend>, String), BackendError> {
        fdtd_core::backend::create(&engines(), model, choice, opts)
    }
}

//! `fdtd`: a portable finite-difference time-domain electromagnetic simulator.
//!
//! Data flows one way:
//!
//! ```text
//! scene.toml ─parse─▶ Scene ─discretize─▶ Model ─plan─▶ Plan ─▶ Backend (cpu | gpu) ─▶ Recorder (HDF5)
//! ```
//!
//! * [`scene`] holds what the user wrote, in SI units, with source spans for errors.
//! * [`model`] is the discretised problem: grid, dt, material indices, coefficient
//!   tables, CPML profiles, sources/probes/snapshots at grid indices. It knows no device.
//! * [`plan`] counts every buffer a backend will allocate, before anything large is allocated.
//! * [`backend`] steps the fields; every backend executes the same [`model::Model`].
//! * [`output`] streams probes and snapshots into one HDF5 file per run.
#![deny(unsafe_op_in_unsafe_fn)]

pub mod backend;
pub mod bench;
pub mod checkpoint;
pub mod component;
pub mod model;
pub mod output;
pub mod plan;
pub mod runner;
pub mod scene;
pub mod waveform;

pub use component::Component;

/// Speed of light in vacuum (m/s).
pub const C0: f64 = 299_792_458.0;
/// Vacuum permeability (H/m), CODATA 2018.
pub const MU0: f64 = 1.256_637_062_12e-6;
/// Vacuum permittivity (F/m), from c0 and mu0.
pub const EPS0: f64 = 1.0 / (MU0 * C0 * C0);
/// Impedance of free space (ohm).
pub const ETA0: f64 = MU0 * C0;

//! `fdtd-core`: the discretised problem and everything that drives it, with no device
//! and no file format in it.
//!
//! Data flows one way:
//!
//! ```text
//! scene.toml ─parse─▶ Scene ─discretize─▶ Model ─plan─▶ Plan ─▶ Backend (cpu | gpu) ─▶ Sink (HDF5)
//! ```
//!
//! * [`scene`] (re-exported from `fdtd-scene`) holds what the user wrote, in SI units.
//! * [`model`] is the discretised problem: grid, dt, material indices, coefficient
//!   tables, CPML profiles, sources/probes/snapshots at grid indices.
//! * [`schedule`] is the step as data: the ordered passes of one time step with their
//!   index ranges, computed once; [`pass`] is how physics is added to it ([`passes`]:
//!   sources, probes); [`state`] is the solver state as a table of named arrays.
//! * [`plan`] counts every buffer a backend will allocate, before anything large is allocated.
//! * [`backend`] is the seam every backend (`fdtd-cpu`, `fdtd-gpu`) implements, and the
//!   backend-independent solver state.
//! * [`runner`] drives a backend through the steps and hands samples to a [`runner::Sink`]
//!   (`fdtd-io` writes HDF5); [`checkpoint`] saves and restores the state.
//! * [`session`] is a whole run from a scene to a closed output file, with every check
//!   before a large allocation (RAM, disk, the output, resuming) and typed errors: what
//!   every front end (the command line, a binding, a sweep runner) shares.
#![deny(unsafe_op_in_unsafe_fn)]

pub use fdtd_scene as scene;
pub use fdtd_scene::{component, waveform, Component, C0, EPS0, ETA0, MU0};
pub use simulation::Simulation;

pub mod atomic_file;
pub mod backend;
pub mod checkpoint;
pub mod farfield;
pub mod farfield_csv;
pub mod fmt;
pub mod model;
pub mod monitors;
pub mod pass;
pub mod passes;
pub mod plan;
pub mod ports;
pub mod results;
pub mod runner;
pub mod scattering;
pub mod schedule;
pub mod session;
pub mod simulation;
pub mod state;
pub mod workload;

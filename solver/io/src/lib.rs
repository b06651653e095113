//! HDF5 output: one file per run, written as the run goes.
//!
//! [`Hdf5Sink`] implements [`crate::runner::Sink`]: probe series and snapshot frames
//! are appended to extendable datasets as the runner hands them over, and the file
//! is flushed after every chunk of steps, so a crash loses at most the last chunk and
//! a stopped run still closes a valid file.
//!
//! # Layout
//!
//! ```text
//! /                          attrs: fdtd_version, scene (TOML text), scene_path, backend,
//!                                   device (a name), device_detail, backend_selection (auto
//!                                   only), precision ("float32"), dx, dy, dz, dt (s),
//!                                   steps (planned), shape [nx, ny, nz] (cells), courant,
//!                                   status ("running" | "complete" | "interrupted" | "failed"),
//!                                   steps_done, index_convention, fingerprint (u64, see
//!                                   checkpoint::fingerprint), run_id (u64), and after a
//!                                   resume: resumes (count), resumed_at_step; wall_seconds
//! /sources/<name>            attrs: type, component, index, position (m), max_frequency,
//!                                   waveform (see `describe`)
//! /probes                    attrs: layout ("groups", or "table" above
//!                                   PROBE_TABLE_THRESHOLD probes: /probes/every_<k>/values
//!                                   f32[rows, channels] with time, time_h and per-column
//!                                   probe, component, units, index, position,
//!                                   requested_position; see docs/output-format.md)
//! /probes/<name>             attrs: requested_position (m), every, first_step
//! /probes/<name>/time        f64[n]  s, times of the E components' samples
//! /probes/<name>/time_h      f64[n]  s, times of the H components' samples (half a step earlier)
//! /probes/<name>/<Ex..Hz>    f32[n]  attrs: position (m, the real sample), index [i, j, k],
//!                                    every, units, time (name of its time dataset)
//! /snapshots/<name>          attrs: every, index_lo, index_hi (the region in node indices),
//!                                   position_lo, position_hi (m), first_step, first_time,
//!                                   components
//! /snapshots/<name>/time     f64[frames]  s, time of the E components of each frame
//! /snapshots/<name>/<comp>   f32[frames, a, b, c]  one frame per chunk, shuffle + deflate;
//!                                    attrs: every, index_lo, index_hi (this component's
//!                                    samples, exclusive), origin (m, position of sample
//!                                    index_lo), spacing [dx, dy, dz], units, and on H
//!                                    components h_time_offset = -dt/2 (s)
//! /farfield/<name>           far fields of a finished run: frequency, theta, phi (degrees),
//!                            E_theta, E_phi, directivity_dBi, gain_dBi, realized_gain_dBi
//!                            (see [`results_farfield`], written by [`write_farfields`])
//! ```
//!
//! A new file is built under a temporary name and renamed over any file it replaces
//! only once complete, while no other process holds that file (`safe_create`); disk
//! space is reserved before every append, so a full disk stops the run with the file
//! readable (`reserve`).
//!
//! [`Hdf5Format`] is the session's output format (`fdtd_core::session::OutputFormat`):
//! it creates, resumes and inspects these files for a run.
//!
//! Beside `run.h5` a `run.xdmf` (XDMF 3) is written when the run has snapshots, so
//! ParaView can open the snapshots as a time series (see [`xdmf`]). [`ResultFile`] reads
//! a file back (attributes, probe series, snapshot frames) for `fdtd info` and `fdtd plot`.
mod describe;
mod hdf5;
mod ports;
pub mod read;
mod reserve;
pub mod results;
pub mod results_farfield;
mod safe_create;
pub mod xdmf;

pub use self::describe::BackendLine;
pub use self::read::{FarFieldInfo, PortInfo, ReadError, ResultFile, SMatrixInfo};
pub use self::results_farfield::write_farfields;

pub use self::hdf5::{
    close_all_failed_then, close_all_interrupted, close_all_interrupted_then, Hdf5Format, Hdf5Options, Hdf5Sink,
    OutputError, OutputInfo, INDEX_CONVENTION, PROBE_TABLE_THRESHOLD,
};

#[cfg(test)]
mod probe_tests;
#[cfg(test)]
mod tests;

//! `fdtd-sweep`: parameter sweeps over a base scene.
//!
//! A sweep file ([`spec`]) names a base scene, parameters (lists, ranges, linspaces),
//! how they combine (full grid or zip), derived values ([`expr`]) and the scene keys
//! they set ([`keys`]). [`expand`] turns it into variants, each a complete scene
//! validated by `fdtd-scene` before anything runs. The sweep directory ([`layout`])
//! holds each variant's scene, output, log and status file ([`status`]); the variants
//! run here through the library session ([`local`]) or as a Slurm job array whose
//! tasks run `fdtd run` ([`slurm`]); [`collect`] merges the finished ones into one
//! summary (HDF5 + CSV), naming the failed and missing ones. `docs/sweeps.md` is the
//! user's reference.
#![deny(unsafe_op_in_unsafe_fn)]

pub mod collect;
mod error;
pub mod expand;
pub mod expr;
pub mod fsafe;
pub mod keys;
pub mod layout;
pub mod local;
pub mod plan;
pub mod port_columns;
pub mod results;
pub mod slurm;
pub mod spec;
pub mod spectrum;
pub mod status;

pub use error::{SweepError, VariantError};
pub use expand::{expand, Variant};
pub use layout::{Layout, Manifest};
pub use spec::SweepSpec;

/// Round to 12 significant digits, so `0.04 + 3 * 0.002` is `0.046`, not
/// `0.046000000000000006`, in scenes, tables and file names.
pub fn round_sig(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    format!("{x:.11e}").parse().unwrap_or(x)
}

/// A number for tables and messages (as scene messages print numbers).
pub fn format_num(x: f64) -> String {
    fdtd_scene::diagnostic::num(x)
}

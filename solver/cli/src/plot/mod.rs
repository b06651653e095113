//! Figures of a scene before a run and of a result after it, as PNG and GIF files: probe
//! time series and spectra, snapshot slices as colour maps with the geometry drawn over
//! them, an animation of a snapshot plane, and the discretised material map.
//!
//! Rendering is plotters on an RGB buffer with a bundled font (DejaVu Sans, so no system
//! fonts are needed), encoded with the `png` and `gif` crates. Every figure returns the
//! [`Panel`]s it drew, the mapping from data to pixels, so a test can find the pixel of a
//! data point instead of hard-coding one.
pub mod antenna;
pub mod bscan;
mod canvas;
mod colormap;
mod font;
pub mod geometry;
pub mod scattering;
pub mod series;
pub mod slice;

pub use canvas::{Canvas, Figure, Panel};
pub use colormap::{diverging, material_colour};
pub use geometry::Geometry;

use std::path::PathBuf;

/// Why a figure could not be made. Messages name the file or the data.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("drawing {what}: {message}")]
    Draw { what: String, message: String },
    #[error("writing {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("encoding {}: {message}", path.display())]
    Encode { path: PathBuf, message: String },
    #[error(transparent)]
    Read(#[from] fdtd_io::ReadError),
    #[error("{0}")]
    Data(String),
}

/// A plotters error as a [`PlotError::Draw`] of `what`.
pub(crate) fn draw_err<E: std::fmt::Display>(what: &str) -> impl Fn(E) -> PlotError + '_ {
    move |e| PlotError::Draw {
        what: what.to_string(),
        message: e.to_string(),
    }
}

/// A factor and an SI prefix that put `max` (≥ 0) in [1, 1000): axis labels read
/// `t (ns)` with plain numbers rather than `1e-9` ticks.
pub fn si_scale(max: f64) -> (f64, &'static str) {
    const P: [(f64, &str); 9] = [
        (1e-15, "f"),
        (1e-12, "p"),
        (1e-9, "n"),
        (1e-6, "µ"),
        (1e-3, "m"),
        (1.0, ""),
        (1e3, "k"),
        (1e6, "M"),
        (1e9, "G"),
    ];
    if !max.is_finite() || max <= 0.0 {
        return (1.0, "");
    }
    let mut best = P[0];
    for p in P {
        if max >= p.0 * 0.9995 {
            best = p;
        }
    }
    (1.0 / best.0, best.1)
}

/// An axis range plotters can draw, in the order given: finite, not degenerate. Plotters
/// asserts on a NaN end and loops for ever on an infinite or vanishing span, and a result
/// file is untrusted input, so every chart range goes through here. A non-finite end is
/// replaced next to the other one ((0, 1) when neither is finite); a span too small for
/// the magnitude is widened around its middle; ends are held within ±1e300.
pub fn axis(a: f64, b: f64) -> (f64, f64) {
    const BIG: f64 = 1e300;
    let (lo, hi) = (a.min(b), a.max(b));
    let (lo, hi) = match (lo.is_finite(), hi.is_finite()) {
        (true, true) => (lo, hi),
        (true, false) => (lo, lo + lo.abs().max(1.0)),
        (false, true) => (hi - hi.abs().max(1.0), hi),
        (false, false) => (0.0, 1.0),
    };
    let (lo, hi) = (lo.clamp(-BIG, BIG), hi.clamp(-BIG, BIG));
    let min_span = (1e-9 * lo.abs().max(hi.abs())).max(1e-200);
    let (lo, hi) = if hi - lo < min_span {
        let mid = 0.5 * (lo + hi);
        let half = if mid == 0.0 { 1.0 } else { 1e-3 * mid.abs() };
        (mid - half, mid + half)
    } else {
        (lo, hi)
    };
    if a > b {
        (hi, lo)
    } else {
        (lo, hi)
    }
}

/// The two in-plane axes (horizontal, vertical) of a plane normal to `axis`.
pub fn plane_axes(axis: usize) -> (usize, usize) {
    match axis {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    }
}

pub const AXIS_NAMES: [&str; 3] = ["x", "y", "z"];

use plotters::chart::ChartContext;
use plotters::coord::cartesian::Cartesian2d;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::CoordTranslate;
use plotters::prelude::DrawingBackend;

/// A chart with linear f64 axes.
pub(crate) type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The [`Panel`] of a chart whose axes span `x` and `y`.
pub(crate) fn panel_of<DB: DrawingBackend>(name: &str, chart: &Chart<'_, DB>, x: (f64, f64), y: (f64, f64)) -> Panel {
    let spec = chart.as_coord_spec();
    let p0 = spec.translate(&(x.0, y.0));
    let p1 = spec.translate(&(x.1, y.1));
    Panel {
        name: name.to_string(),
        x,
        y,
        px: (p0.0, p1.0),
        py: (p0.1, p1.1),
    }
}

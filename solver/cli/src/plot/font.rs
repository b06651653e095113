//! The bundled font: DejaVu Sans (Bitstream Vera licence, `assets/DejaVuSans.LICENSE`),
//! registered with plotters once, so figures render the same on a machine without fonts.
use std::sync::OnceLock;

static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

/// The family name figures use.
pub const FAMILY: &str = "sans-serif";

/// Register the font (idempotent; thread-safe).
pub fn ensure() {
    static DONE: OnceLock<bool> = OnceLock::new();
    DONE.get_or_init(|| plotters::style::register_font(FAMILY, plotters::style::FontStyle::Normal, FONT).is_ok());
}

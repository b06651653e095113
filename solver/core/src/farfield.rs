//! Near-to-far-field transformation: from equivalent surface currents on a closed
//! surface around the sources (J = n̂×H, M = −n̂×E), the far field E_θ, E_φ on a
//! (θ, φ) grid, radiation intensity, radiated power and directivity.
//!
//! The recording side (a DFT box of tangential E and H, interpolated to face centres)
//! is the `farfield` monitor pass; this module is pure math on host phasors.
use num_complex::Complex64;

/// One sample of a closed surface: a patch of area `area` (m²) centred at `pos` (m)
/// with outward unit normal `normal`, and the E (V/m·s) and H (A/m·s) phasors there
/// (all three components; only the tangential parts are used).
#[derive(Clone, Debug, PartialEq)]
pub struct SurfaceSample {
    pub pos: [f64; 3],
    pub area: f64,
    pub normal: [f64; 3],
    pub e: [Complex64; 3],
    pub h: [Complex64; 3],
}

/// A closed surface at one frequency, in a homogeneous medium of relative
/// permittivity `eps_r` and permeability `mu_r` (vacuum: 1, 1).
#[derive(Clone, Debug, PartialEq)]
pub struct Surface {
    pub freq: f64,
    pub eps_r: f64,
    pub mu_r: f64,
    pub samples: Vec<SurfaceSample>,
}

/// The far field of one surface at one frequency on a (θ, φ) grid.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FarField {
    /// The monitor's name.
    pub name: String,
    pub freq: f64,
    /// Polar and azimuthal angles (rad).
    pub theta: Vec<f64>,
    pub phi: Vec<f64>,
    /// r·E_θ and r·E_φ (V·s) with the e^{−jkr} factor removed, `[theta][phi]` flat.
    pub e_theta: Vec<Complex64>,
    pub e_phi: Vec<Complex64>,
    /// Radiation intensity U = r²·|E|²/(2η) (W/sr, normalised as `results` says).
    pub intensity: Vec<f64>,
    /// Total radiated power, the integral of U over the full sphere (W).
    pub radiated_power: f64,
    /// Directivity D = 4πU/P_rad per direction (linear), and its maximum.
    pub directivity: Vec<f64>,
    pub max_directivity: f64,
    /// Where the maximum is (rad).
    pub max_at: (f64, f64),
    /// With a driven port: P_rad / P_acc, and gain / realized gain (linear) per direction.
    pub efficiency: Option<f64>,
    pub gain: Option<Vec<f64>>,
    pub realized_gain: Option<Vec<f64>>,
}

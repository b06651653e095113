//! Frequency-domain results of a finished run: ports (Z, S), monitors (DFT planes and
//! boxes, power flux) and far fields. Computed on the host after the last step from the
//! port time series and the monitors' accumulated state, written by the output format
//! (`fdtd-io`) and summarised by the front ends.
//!
//! Conventions shared by every result:
//!
//! * Phasors use e^{+jωt}: a time signal x(t_n) becomes X(f) = Σ_n x(t_n)·e^{−j2πf·t_n}·Δt
//!   (the continuous Fourier transform sampled at t_n, with t_n the sample's own time:
//!   (n+1)·dt for E, (n+½)·dt for H).
//! * When the scene has a driven port, powers are normalised to 1 W of incident
//!   (available) power at each frequency: P_inc(f) = |a(f)|²/2 with
//!   a = (V + Z0·I)/(2·√Z0). Without a driven port they stay in the units of the
//!   transform (J/Hz-like) and only ratios (directivity, patterns) are meaningful.
use num_complex::Complex64;

pub use crate::farfield::FarField;

/// Everything a finished run computed in the frequency domain.
#[derive(Clone, Debug, Default)]
pub struct RunResults {
    /// Monitors and far-field surfaces were scaled to 1 W incident at the driven port
    /// (see the module doc); false: raw transforms.
    pub per_watt_incident: bool,
    pub ports: Vec<PortResult>,
    pub monitors: Vec<MonitorResult>,
    pub farfields: Vec<FarField>,
    /// The recorded closed surfaces of the `[[farfield]]` boxes (input of the far-field
    /// transform), one entry per box.
    pub surfaces: Vec<FarFieldRecording>,
    /// `[[cross_sections]]`: what the plane waves' targets scatter and absorb.
    pub cross_sections: Vec<CrossSectionResult>,
    /// A scene with one plane wave: its incident intensity at the flux monitors' and far
    /// fields' frequencies (the normalisation of `normalized` fluxes and of the RCS).
    pub incident: Option<IncidentSpectrum>,
    /// The full S-matrix of a run that drove every port in turn (`drive.ports = "each"`).
    pub s_matrix: Option<SMatrix>,
    /// Which result frequencies the run resolves (empty vectors: not assessed).
    pub resolved: Resolved,
}

/// Per result frequency, whether the run resolves it: inside the band its waveforms
/// drive (above −40 dB of their spectra's peak) and below the grid's Nyquist frequency
/// (`session::guards::unresolved`). Files mark the others; summaries leave them out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resolved {
    /// Per frequency of the ports (every port and the S-matrix share the model's list).
    pub ports: Vec<bool>,
    /// Per monitor of `monitors`, per frequency.
    pub monitors: Vec<Vec<bool>>,
    /// Per far field of `farfields` (one frequency each).
    pub farfields: Vec<bool>,
    /// Per cross section of `cross_sections`, per frequency.
    pub cross_sections: Vec<Vec<bool>>,
}

/// The full scattering matrix of a run that drove each port in turn.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SMatrix {
    /// The ports' names, in scene order (the matrix's row and column order).
    pub ports: Vec<String>,
    /// Each port's reference impedance (Ω).
    pub z0: Vec<f64>,
    pub freq: Vec<f64>,
    /// S\[out\]\[in\]\[freq\] flat: `s[(out·N + in)·F + f]` = b_out / a_in with port `in`
    /// driven (the others matched loads).
    pub s: Vec<Complex64>,
}

impl SMatrix {
    /// Number of ports N.
    pub fn n(&self) -> usize {
        self.ports.len()
    }

    /// S_{out, in} at frequency index `k`.
    pub fn get(&self, out: usize, inp: usize, k: usize) -> Complex64 {
        self.s[(out * self.n() + inp) * self.freq.len() + k]
    }
}

/// A far-field box's recording: one closed surface per frequency, and the angular grid
/// the scene asked for.
#[derive(Clone, Debug, Default)]
pub struct FarFieldRecording {
    pub name: String,
    /// Degrees.
    pub theta_step: f64,
    pub phi_step: f64,
    /// The reference of the co-/cross-polar split.
    pub polarization: crate::scene::Polarization,
    pub surfaces: Vec<crate::farfield::Surface>,
}

/// One lumped port's frequency-domain result.
#[derive(Clone, Debug, Default)]
pub struct PortResult {
    pub name: String,
    /// Reference impedance Z0 (Ω), the port's internal resistance.
    pub z0: f64,
    /// Whether this port was driven in the run.
    pub driven: bool,
    /// Where a, b, S and Z are referred to: this far along a matched feed line of
    /// effective permittivity `eps_eff` from the port's edges (m; 0: at the edges).
    /// V and I stay the phasors at the edges.
    pub reference_plane: f64,
    pub eps_eff: f64,
    /// Frequencies (Hz).
    pub freq: Vec<f64>,
    /// Port voltage and current phasors (V·s, A·s: transforms of the time series).
    pub v: Vec<Complex64>,
    pub i: Vec<Complex64>,
    /// Input impedance V/I (Ω).
    pub z: Vec<Complex64>,
    /// Incident and reflected waves a = (V + Z0·I)/(2√Z0), b = (V − Z0·I)/(2√Z0).
    pub a: Vec<Complex64>,
    pub b: Vec<Complex64>,
    /// S_{this port, driven port} = b / a_driven.
    pub s: Vec<Complex64>,
    /// Incident and accepted power, |a|²/2 and (|a|² − |b|²)/2 (W, normalised as the
    /// module doc says: P_inc = 1 for the driven port).
    pub p_inc: Vec<f64>,
    pub p_acc: Vec<f64>,
    /// A line port's line, measured from the fields (`ports::line_waves`): its
    /// characteristic (Bloch) impedance Z_L (Ω) and propagation constant γ = α + jβ
    /// (1/m) per frequency. Empty for a lumped port.
    pub line_z: Vec<Complex64>,
    pub gamma: Vec<Complex64>,
    /// A line port: whether the line's measurement is well conditioned at each frequency
    /// (`ports::LINE_COND_MAX`); a frequency where it is not is marked unresolved.
    pub line_ok: Vec<bool>,
    /// A line port with `impedance = "line"`: a, b and S referred to `line_z`, not `z0`.
    pub to_line: bool,
}

/// One frequency-domain monitor's result.
#[derive(Clone, Debug, Default)]
pub struct MonitorResult {
    pub name: String,
    /// `dft` or `flux`.
    pub kind: String,
    pub freq: Vec<f64>,
    /// DFT monitors: per component name (`Ex`..`Hz`), its phasors, shape
    /// `[freq][i][j][k]` over `dims` (C order), with sample positions `lo` + index·d
    /// (staggered as the component is).
    pub fields: Vec<(String, [usize; 3], Vec<Complex64>)>,
    /// DFT monitors: per entry of `fields`, the position (m) of its sample [0, 0, 0].
    pub origin: Vec<[f64; 3]>,
    /// DFT monitors: the sample spacing (m), the cell size.
    pub spacing: [f64; 3],
    /// Flux monitors: net power through the plane (along +axis) or out of the box, per
    /// frequency (W, normalised as the module doc says).
    pub flux: Vec<f64>,
    /// Flux planes in a scene with one plane wave: the power the incident wave carries
    /// through the plane's area (|S·n̂|·A, the transform's units), and `flux` divided by
    /// it (the transmittance behind a structure; minus the reflectance in the scattered
    /// field before it). Empty otherwise.
    pub incident_power: Vec<f64>,
    pub normalized: Vec<f64>,
}

/// A plane wave's incident intensity per frequency ([`crate::scattering::Incident`]).
#[derive(Clone, Debug, Default)]
pub struct IncidentSpectrum {
    /// The plane wave's name and its (realised) direction of propagation k̂.
    pub wave: String,
    pub k: [f64; 3],
    pub freq: Vec<f64>,
    /// |S| per frequency (the transform's units, W/m²·s²).
    pub intensity: Vec<f64>,
}

impl IncidentSpectrum {
    /// The intensity at `f` (one of `freq`), if there.
    pub fn at(&self, f: f64) -> Option<f64> {
        let k = self.freq.iter().position(|&x| x == f)?;
        self.intensity.get(k).copied().filter(|&i| i > 0.0)
    }
}

/// One `[[cross_sections]]` entry's result ([`crate::scattering`]): cross sections in m²
/// per frequency.
#[derive(Clone, Debug, Default)]
pub struct CrossSectionResult {
    pub name: String,
    /// The plane wave that lights it.
    pub wave: String,
    pub freq: Vec<f64>,
    /// σ_sca = P_sca / I, σ_abs = P_abs / I, and σ_ext from the interference of the
    /// incident and scattered fields (computed on its own: σ_ext = σ_sca + σ_abs is a check).
    pub scattering: Vec<f64>,
    pub absorption: Vec<f64>,
    pub extinction: Vec<f64>,
    /// The incident intensity I (the transform's units: W/m²·s²), by which the powers
    /// were divided.
    pub incident_intensity: Vec<f64>,
}

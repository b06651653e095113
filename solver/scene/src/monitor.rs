//! Frequency-domain monitors and far-field boxes as the scene gives them (`[[monitors]]`,
//! `[[farfield]]`; see `docs/scene-format.md`). Discretised by `fdtd-core`'s `monitors`.
use crate::Component;

/// Frequencies (Hz) at which a monitor is evaluated.
#[derive(Clone, Debug, PartialEq)]
pub enum Frequencies {
    /// An explicit list.
    List(Vec<f64>),
    /// `points` equally spaced values from `start` to `stop` (both included).
    Range { start: f64, stop: f64, points: usize },
}

impl Frequencies {
    /// The values, in Hz.
    pub fn values(&self) -> Vec<f64> {
        match self {
            Frequencies::List(v) => v.clone(),
            Frequencies::Range { start, stop, points } => {
                if *points <= 1 {
                    return vec![*start];
                }
                (0..*points)
                    .map(|i| start + (stop - start) * i as f64 / (*points - 1) as f64)
                    .collect()
            }
        }
    }
}

/// What a monitor records.
#[derive(Clone, Debug, PartialEq)]
pub enum MonitorKind {
    /// Phasors of the listed components at every sample of the region.
    Dft { components: Vec<Component> },
    /// Net power through a plane (along +axis) or out of a closed box.
    Flux,
}

/// Where a monitor records (m).
#[derive(Clone, Debug, PartialEq)]
pub enum MonitorRegion {
    /// The plane `axis = position`, snapped to the nearest grid plane, optionally bounded
    /// by `min`/`max` along the other two axes (the whole domain's extent otherwise).
    Plane {
        axis: usize,
        position: f64,
        min: Option<[f64; 3]>,
        max: Option<[f64; 3]>,
    },
    /// An axis-aligned box; for a flux monitor, its closed surface.
    Box { min: [f64; 3], max: [f64; 3] },
}

/// A `[[monitors]]` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Monitor {
    pub name: String,
    pub kind: MonitorKind,
    /// None: the scene's default frequencies.
    pub frequencies: Option<Frequencies>,
    pub region: MonitorRegion,
}

/// A `[[farfield]]` entry: a closed box of tangential E and H phasors, transformed to
/// the far field after the run.
#[derive(Clone, Debug, PartialEq)]
pub struct FarFieldBox {
    pub name: String,
    /// None: the scene's default frequencies (their centre when there are many).
    pub frequencies: Option<Frequencies>,
    /// `(min, max)` (m); None: the domain inset 3 cells inside the CPML.
    pub region: Option<([f64; 3], [f64; 3])>,
    /// Angular steps of the (θ, φ) grid (degrees).
    pub theta_step: f64,
    pub phi_step: f64,
    /// The reference polarisation of the co-/cross-polar split.
    pub polarization: Polarization,
    /// `rcs = true`: the radar cross section of what a plane wave lights (the box must
    /// enclose the plane wave's total-field box). `None`: given with a plane wave, an
    /// RCS whenever the box encloses its total-field box.
    pub rcs: Option<bool>,
}

/// A `[[cross_sections]]` entry: the scattering, absorption and extinction cross
/// sections of what a plane wave lights, from a flux box outside its total-field box
/// (the scattered field) and one inside it (the total field).
#[derive(Clone, Debug, PartialEq)]
pub struct CrossSection {
    pub name: String,
    /// The plane wave: an index into `Scene::plane_waves`.
    pub wave: usize,
    /// None: the scene's default frequencies.
    pub frequencies: Option<Frequencies>,
    /// The scattered-field box `(min, max)` (m); None: one cell outside the total-field box.
    pub scattered: Option<([f64; 3], [f64; 3])>,
    /// The absorption box `(min, max)` (m), inside the total-field box around every
    /// object in it; None: one cell inside the total-field box.
    pub total: Option<([f64; 3], [f64; 3])>,
}

/// The co-polar unit vector of a far field's co-/cross-polar split (`polarization`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Polarization {
    /// co = θ̂, cross = φ̂ ("theta": vertical for a z-directed wire; the default).
    #[default]
    Theta,
    /// co = φ̂, cross = −θ̂ ("phi": horizontal).
    Phi,
    /// Ludwig's third definition about the z axis, the reference polarisation at
    /// `angle` degrees from x towards y in the xy plane ("x": 0, "y": 90):
    /// co = cos(φ−ψ) θ̂ − sin(φ−ψ) φ̂, cross = sin(φ−ψ) θ̂ + cos(φ−ψ) φ̂.
    Ludwig3 { angle: f64 },
}

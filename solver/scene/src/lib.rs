//! `fdtd-scene`: what the user wrote, parsed and validated, before any discretisation.
//!
//! This crate knows TOML, SI units, source spans and hints; it knows nothing of grids or
//! devices, and reads no files but the scene and the STL models it names ([`mesh`]), so
//! the fuzz targets and any front end can use it without wgpu or libhdf5.
#![deny(unsafe_op_in_unsafe_fn)]

pub mod component;
pub mod mesh;
pub mod monitor;
pub mod waveform;

pub use component::Component;
pub use monitor::{CrossSection, FarFieldBox, Frequencies, Monitor, MonitorKind, MonitorRegion, Polarization};

/// Speed of light in vacuum (m/s).
pub const C0: f64 = 299_792_458.0;
/// Vacuum permeability (H/m), CODATA 2018.
pub const MU0: f64 = 1.256_637_062_12e-6;
/// Vacuum permittivity (F/m), from c0 and mu0.
pub const EPS0: f64 = 1.0 / (MU0 * C0 * C0);
/// Impedance of free space (ohm).
pub const ETA0: f64 = MU0 * C0;

mod error;
pub mod library;
mod parse;

/// The scene parser's diagnostics for other TOML front ends (sweep files): the same
/// `file:line:col: key: message` errors, did-you-mean suggestions and number format.
pub mod diagnostic {
    use crate::SceneError;
    use std::path::Path;

    /// A [`SceneError::Invalid`] at byte `offset` of `text` (read from `path`).
    pub fn invalid(
        text: &str,
        path: &Path,
        offset: usize,
        key: &str,
        message: impl Into<String>,
        hint: Option<String>,
    ) -> SceneError {
        let (line, column) = line_col(text, offset);
        SceneError::Invalid {
            path: path.to_path_buf(),
            line,
            column,
            key: key.to_string(),
            message: message.into(),
            hint,
        }
    }

    /// 1-based line and column (in characters) of byte `offset` of `text`.
    pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
        crate::parse::line_col(text, offset)
    }

    /// The closest of `candidates` to a misspelt `word`, if one is close enough.
    pub fn suggest<'c>(word: &str, candidates: &[&'c str]) -> Option<&'c str> {
        crate::parse::suggest(word, candidates)
    }

    /// A number as scene messages print it (12 significant digits).
    pub fn num(x: f64) -> String {
        crate::parse::num(x)
    }
}

pub use error::SceneError;

/// The grid nodes the faces of a plane wave's box `min..max` snap to, per axis (low,
/// high), for cells `d`.
pub fn plane_wave_nodes(min: [f64; 3], max: [f64; 3], d: [f64; 3]) -> [[usize; 2]; 3] {
    parse::plane_wave::box_nodes(min, max, d)
}

use crate::waveform::Waveform;
use std::path::{Path, PathBuf};

/// A parsed, validated scene.
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    /// Where the scene came from (for messages and the HDF5 attributes).
    pub path: PathBuf,
    /// The scene's TOML text, stored verbatim in every output file.
    pub text: String,
    pub domain: Domain,
    pub time: Time,
    pub boundaries: Boundaries,
    /// Materials, including the built-ins `vacuum` (index 0) and `pec` (index 1).
    pub materials: Vec<Material>,
    /// Objects in scene order; later objects override earlier ones where they overlap.
    pub objects: Vec<Object>,
    pub sources: Vec<Source>,
    /// `[[sources]]` of `type = "plane_wave"`: total-field/scattered-field plane waves.
    pub plane_waves: Vec<PlaneWave>,
    pub probes: Vec<Probe>,
    pub snapshots: Vec<Snapshot>,
    /// `[[monitors]]`: DFT and flux monitors.
    pub monitors: Vec<Monitor>,
    /// `[[farfield]]`: far-field boxes.
    pub farfields: Vec<FarFieldBox>,
    /// `[[cross_sections]]`: cross sections of what a plane wave lights.
    pub cross_sections: Vec<CrossSection>,
    /// Lumped ports (`[[ports]]`), in scene order.
    pub ports: Vec<Port>,
    /// Lumped R, L, C elements (`[[lumped]]`), in scene order.
    pub lumped: Vec<Lumped>,
    /// `[frequencies]`: where ports (and by default monitors and far fields) are evaluated.
    pub frequencies: Option<Frequencies>,
    /// `[drive] ports = "each"`: every port is driven in turn (one drive each, the others
    /// matched loads) and the run gives the full S-matrix. Every port then has a waveform.
    pub drive_each: bool,
}

impl Scene {
    /// Read and parse a scene file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Scene, SceneError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| SceneError::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        Scene::parse(&text, path)
    }

    /// Parse a scene from text; `path` is used only in messages and metadata.
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<Scene, SceneError> {
        parse::parse(text, path.as_ref())
    }

    /// Drive every port in turn (what `[drive] ports = "each"` says; a front end's option
    /// sets it after parsing): every port gets a waveform (a port without one gets the
    /// Gaussian the parser derives from `[frequencies]`). Refused without ports, with
    /// `[[sources]]` (the S-matrix needs the ports as the only excitation) or when a port
    /// has no waveform and nothing defines one.
    pub fn set_drive_each(&mut self) -> Result<(), String> {
        if self.ports.is_empty() {
            return Err("driving each port needs [[ports]]; the scene has none".into());
        }
        let first = self
            .sources
            .first()
            .map(|s| &s.name)
            .or(self.plane_waves.first().map(|w| &w.name));
        if let Some(name) = first {
            return Err(format!(
                "driving each port needs the ports as the only excitation; the scene has [[sources]] ({name})"
            ));
        }
        let stop = self
            .frequencies
            .as_ref()
            .map(|f| f.values().into_iter().fold(0.0, f64::max));
        for p in &mut self.ports {
            if p.waveform.is_none() {
                match stop {
                    Some(f) if f > 0.0 => p.waveform = Some(Waveform::gaussian_from_frequency(1.0, f / 2.0)),
                    _ => {
                        return Err(format!(
                            "port {} has no waveform and the scene no [frequencies] to derive one: driving each port needs one per port",
                            p.name
                        ))
                    }
                }
            }
        }
        self.drive_each = true;
        Ok(())
    }

    /// The ports in the order a `drive_each` run drives them: the port with `excite =
    /// true` first (its drive writes the probes, snapshots, monitors and far fields, as a
    /// run without `drive_each` would), then the others in scene order.
    pub fn drive_order(&self) -> Vec<usize> {
        let first = self.ports.iter().position(|p| p.excite).unwrap_or(0);
        std::iter::once(first)
            .chain((0..self.ports.len()).filter(|&k| k != first))
            .collect()
    }

    /// The scene of the drive of port `k`: that port driven, every other port a matched
    /// load (`excite = false`).
    pub fn with_driven_port(&self, k: usize) -> Scene {
        let mut s = self.clone();
        for (i, p) in s.ports.iter_mut().enumerate() {
            p.excite = i == k;
        }
        s
    }

    /// The frequencies (Hz) where port results are evaluated: `[frequencies]`, or by
    /// default 201 points from 1/20 of the top frequency of the driven port's (else the
    /// sources') waveforms to that top frequency. Empty when nothing defines a band.
    pub fn frequency_list(&self) -> Vec<f64> {
        if let Some(f) = &self.frequencies {
            return f.values();
        }
        let top = match self.ports.iter().find(|p| p.excite).and_then(|p| p.waveform.as_ref()) {
            Some(w) => w.max_frequency(),
            None => self
                .sources
                .iter()
                .map(|s| &s.waveform)
                .chain(self.plane_waves.iter().map(|p| &p.waveform))
                .map(|w| w.max_frequency())
                .fold(0.0, f64::max),
        };
        if !(top > 0.0 && top.is_finite()) {
            return Vec::new();
        }
        Frequencies::Range {
            start: top / 20.0,
            stop: top,
            points: 201,
        }
        .values()
    }

    /// The end criterion in dB: `[time] decay_db`, else 70 dB when the scene has ports,
    /// else none.
    pub fn decay_db(&self) -> Option<f64> {
        match self.time.decay_db {
            Some(db) => (db > 0.0).then_some(db),
            None => (!self.ports.is_empty()).then_some(DEFAULT_DECAY_DB),
        }
    }

    /// `file:line:col: key` for the value at dotted key path `key` (`ports[0].start`,
    /// `frequencies.list`) in [`Scene::text`]: where a warning about it points. Just
    /// `file: key` when the text does not have the key (a default, a scene built in code).
    pub fn at(&self, key: &str) -> String {
        match parse::locate(&self.text, key) {
            Some(span) => {
                let (line, column) = parse::line_col(&self.text, span.start);
                format!("{}:{line}:{column}: {key}", self.path.display())
            }
            None => format!("{}: {key}", self.path.display()),
        }
    }

    /// A [`SceneError::Invalid`] at the value of dotted key path `key` (line 1, column 1
    /// when the text does not have it): for checks that need the grid.
    pub fn invalid(&self, key: &str, message: impl Into<String>, hint: Option<String>) -> SceneError {
        let offset = parse::locate(&self.text, key).map_or(0, |s| s.start);
        diagnostic::invalid(&self.text, &self.path, offset, key, message, hint)
    }

    pub fn material_index(&self, name: &str) -> Option<usize> {
        self.materials.iter().position(|m| m.name == name)
    }

    /// The scene's `[checkpoint]` section (defaults when it has none). Read from
    /// [`Scene::text`], which the parser has validated; a scene built in code gets the
    /// defaults.
    pub fn checkpoint(&self) -> CheckpointSection {
        parse::checkpoint_section(&self.text)
    }
}

/// `[checkpoint]`: when and where a run writes checkpoints. Checkpoints do not change
/// the physics, so this section is not part of a run's fingerprint.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointSection {
    /// Every this many steps.
    pub every_steps: Option<usize>,
    /// Every this many seconds of wall-clock time.
    pub every_seconds: Option<f64>,
    /// `false` turns checkpoints off (as `--no-checkpoint` does).
    pub enabled: bool,
}

impl Default for CheckpointSection {
    fn default() -> Self {
        CheckpointSection {
            every_steps: None,
            every_seconds: None,
            enabled: true,
        }
    }
}

/// The computational domain: a box `[0, n·d]` along each axis, cells of size `d`.
#[derive(Clone, Debug, PartialEq)]
pub struct Domain {
    /// Number of cells along x, y, z.
    pub cells: [usize; 3],
    /// Cell size along x, y, z (m).
    pub cell_size: [f64; 3],
}

impl Domain {
    pub fn size(&self) -> [f64; 3] {
        [0, 1, 2].map(|a| self.cells[a] as f64 * self.cell_size[a])
    }
}

/// How long to run and how large the time step is.
#[derive(Clone, Debug, PartialEq)]
pub struct Time {
    pub end: TimeEnd,
    /// Courant factor S in (0, 1]: dt = S / (c·sqrt(1/dx² + 1/dy² + 1/dz²)).
    pub courant: f64,
    /// End criterion (`decay_db`): stop when the field energy has fallen this many dB
    /// below its peak (`end` is then the maximum). None: the default
    /// ([`Scene::decay_db`]); 0 turns it off.
    pub decay_db: Option<f64>,
}

/// The end criterion of a scene with ports when `[time] decay_db` is not given (dB).
///
/// Chosen so that the port Z of `scenes/antenna.toml` agrees with a run 4× as long
/// within 0.1 %. Measured there (resonance shift, Re Z there, |ΔZ|/|Z| at 1.48 GHz,
/// against 9216 steps without the criterion): 50 dB (2304 steps): 2.7e-4, 7.9e-4,
/// 3.0e-3; 60 dB (2688): 4.4e-5, 5.3e-4, 8.1e-4; 70 dB (3072): 2.2e-6, 2.0e-4, 2.2e-4.
/// 70 dB also holds the LC tank of the validation suite (5.9e-4 at its resonance,
/// 1.4e-3 with 60 dB).
pub const DEFAULT_DECAY_DB: f64 = 70.0;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeEnd {
    Steps(usize),
    /// Simulated duration (s); steps = ceil(duration / dt).
    Duration(f64),
}

/// Boundary condition on each face, in the order x-, x+, y-, y+, z-, z+.
#[derive(Clone, Debug, PartialEq)]
pub struct Boundaries {
    pub faces: [Boundary; 6],
}

impl Boundaries {
    pub const FACE_NAMES: [&'static str; 6] = ["x_min", "x_max", "y_min", "y_max", "z_min", "z_max"];

    pub fn face(&self, axis: usize, high: bool) -> &Boundary {
        &self.faces[2 * axis + high as usize]
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Boundary {
    /// Perfect electric conductor: tangential E = 0 on the face.
    Pec,
    /// Perfect magnetic conductor: tangential H = 0 on the face.
    Pmc,
    /// Periodic: must be set on both faces of an axis.
    Periodic,
    /// Convolutional PML (Roden & Gedney 2000), backed by PEC.
    Cpml(CpmlParams),
}

/// Parameters of a CPML layer; the grading is polynomial of order `order`.
#[derive(Clone, Debug, PartialEq)]
pub struct CpmlParams {
    /// Thickness in cells.
    pub cells: usize,
    /// Polynomial grading order m of sigma and kappa.
    pub order: f64,
    /// sigma_max as a multiple of the "optimal" 0.8(m+1)/(eta0·d) (Taflove & Hagness 7.66).
    pub sigma_factor: f64,
    /// kappa_max >= 1 (1 = no kappa stretching).
    pub kappa_max: f64,
    /// alpha_max (S/m), the CFS shift at the PML's inner edge; graded linearly to 0 at the outer edge.
    pub alpha_max: f64,
}

impl Default for CpmlParams {
    fn default() -> Self {
        CpmlParams {
            cells: 10,
            order: 3.0,
            sigma_factor: 1.0,
            kappa_max: 5.0,
            alpha_max: 0.05,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    pub name: String,
    pub kind: MaterialKind,
    /// Dispersion poles added to a dielectric's `eps_r` (ε∞); empty for a
    /// non-dispersive material and always for `pec` (see `docs/materials.md`).
    pub poles: Vec<Pole>,
}

/// The smallest one-step state determinant ([`Pole::memory`]) the update accepts: the
/// stored-state form of the poles' update divides by it, so below 1/16 the f32 rounding
/// of a step would be amplified more than 16 times.
pub const MIN_MEMORY: f64 = 1.0 / 16.0;

/// One pole of a dispersive permittivity, with exp(+jωt) phasors:
/// ε(ω) = eps_r + Σ poles − j·σ/(ω·ε0), each pole's term given by [`Pole::chi`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pole {
    /// `delta_eps / (1 + jωτ)`.
    Debye { delta_eps: f64, tau: f64 },
    /// `−ωp² / (ω² − jωγ)`, ωp = 2π·`plasma_frequency`, γ = 2π·`damping` (Hz).
    Drude { plasma_frequency: f64, damping: f64 },
    /// `delta_eps·ω0² / (ω0² − ω² + jωγ)`, ω0 = 2π·`frequency`, γ = 2π·`damping` (Hz).
    Lorentz {
        delta_eps: f64,
        frequency: f64,
        damping: f64,
    },
}

/// As written in a scene (`type = "debye", delta_eps = 6, tau = 1e-09`): for `fdtd check`.
impl std::fmt::Display for Pole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Pole::Debye { delta_eps, tau } => write!(f, "type = \"debye\", delta_eps = {delta_eps}, tau = {tau:e}"),
            Pole::Drude {
                plasma_frequency,
                damping,
            } => write!(
                f,
                "type = \"drude\", plasma_frequency = {plasma_frequency:e}, damping = {damping:e}"
            ),
            Pole::Lorentz {
                delta_eps,
                frequency,
                damping,
            } => write!(
                f,
                "type = \"lorentz\", delta_eps = {delta_eps}, frequency = {frequency:e}, damping = {damping:e}"
            ),
        }
    }
}

impl Pole {
    /// The pole's susceptibility at angular frequency `w` (rad/s) as (re, im), exp(+jωt).
    pub fn chi(&self, w: f64) -> (f64, f64) {
        use std::f64::consts::TAU;
        // a / (b + j c) = a (b − j c) / (b² + c²)
        let div = |a: f64, b: f64, c: f64| {
            let d = b * b + c * c;
            (a * b / d, -a * c / d)
        };
        match *self {
            Pole::Debye { delta_eps, tau } => div(delta_eps, 1.0, w * tau),
            Pole::Drude {
                plasma_frequency,
                damping,
            } => {
                let (wp, g) = (TAU * plasma_frequency, TAU * damping);
                div(-wp * wp, w * w, -w * g)
            }
            Pole::Lorentz {
                delta_eps,
                frequency,
                damping,
            } => {
                let (w0, g) = (TAU * frequency, TAU * damping);
                div(delta_eps * w0 * w0, w0 * w0 - w * w, w * g)
            }
        }
    }

    /// The scene's name of the pole type.
    pub fn kind(&self) -> &'static str {
        match self {
            Pole::Debye { .. } => "debye",
            Pole::Drude { .. } => "drude",
            Pole::Lorentz { .. } => "lorentz",
        }
    }

    /// The determinant of the pole's one-step state matrix G at time step `dt` (how
    /// much of its state a step keeps): (2τ − Δt)/(2τ + Δt) (Debye), (1 − hγ)/(1 + hγ)
    /// (Drude), (1 − hγ + h²ω0²)/(1 + hγ + h²ω0²) (Lorentz), h = Δt/2. The update
    /// divides by it (`docs/materials.md`, "the stored state"), so it must stay at or
    /// above [`MIN_MEMORY`].
    pub fn memory(&self, dt: f64) -> f64 {
        use std::f64::consts::TAU;
        let h = dt / 2.0;
        match *self {
            Pole::Debye { tau, .. } => (2.0 * tau - dt) / (2.0 * tau + dt),
            Pole::Drude { damping, .. } => (1.0 - h * TAU * damping) / (1.0 + h * TAU * damping),
            Pole::Lorentz { frequency, damping, .. } => {
                let (w0, g) = (TAU * frequency, TAU * damping);
                (1.0 - h * g + h * h * w0 * w0) / (1.0 + h * g + h * h * w0 * w0)
            }
        }
    }

    /// The pole's fastest rate (1/s): 1/τ (Debye), γ (Drude), max(ω0, γ) (Lorentz). The
    /// update resolves the pole while `rate·Δt <= 2` and [`Pole::memory`] ≥
    /// [`MIN_MEMORY`] (`docs/materials.md`).
    pub fn rate(&self) -> f64 {
        use std::f64::consts::TAU;
        match *self {
            Pole::Debye { tau, .. } => 1.0 / tau,
            Pole::Drude { damping, .. } => TAU * damping,
            Pole::Lorentz { frequency, damping, .. } => TAU * frequency.max(damping),
        }
    }
}

impl Material {
    /// Complex relative permittivity at angular frequency `w` (rad/s), exp(+jωt); None for PEC.
    pub fn eps_at(&self, w: f64) -> Option<(f64, f64)> {
        let MaterialKind::Dielectric { eps_r, sigma, .. } = self.kind else {
            return None;
        };
        let (mut re, mut im) = (eps_r, -sigma / (w * EPS0));
        for p in &self.poles {
            let (a, b) = p.chi(w);
            re += a;
            im += b;
        }
        Some((re, im))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum MaterialKind {
    /// A linear isotropic medium.
    Dielectric {
        /// Relative permittivity (>= 1 for passive materials; validated).
        eps_r: f64,
        /// Relative permeability (> 0).
        mu_r: f64,
        /// Electric conductivity (S/m, >= 0).
        sigma: f64,
    },
    /// Perfect electric conductor.
    Pec,
}

impl Material {
    pub fn vacuum() -> Material {
        Material {
            name: "vacuum".into(),
            kind: MaterialKind::Dielectric {
                eps_r: 1.0,
                mu_r: 1.0,
                sigma: 0.0,
            },
            poles: Vec::new(),
        }
    }
    pub fn pec() -> Material {
        Material {
            name: "pec".into(),
            kind: MaterialKind::Pec,
            poles: Vec::new(),
        }
    }
}

/// A solid filled with one material.
#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    /// Index into [`Scene::materials`].
    pub material: usize,
    pub shape: Shape,
    /// Subpixel averaging of ε on the E edges its surface cuts (`subpixel = true|false`;
    /// default [`Shape::subpixel_default`]): the anisotropic rule of
    /// `fdtd_core::model::subpixel`. Only a non-dispersive dielectric's surface is
    /// averaged; a PEC or dispersive object keeps the staircase.
    pub subpixel: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// Axis-aligned box from `min` to `max` (m).
    Box {
        min: [f64; 3],
        max: [f64; 3],
    },
    Sphere {
        center: [f64; 3],
        radius: f64,
    },
    /// Circular cylinder whose axis runs from `a` to `b` (any direction).
    Cylinder {
        a: [f64; 3],
        b: [f64; 3],
        radius: f64,
    },
    /// A thin PEC wire along a polyline (at least 2 points, m): it covers no cells, it
    /// becomes the E edges of the grid path nearest to it (`fdtd_core::model` `thin`).
    /// `radius` (m), below half the cell across it: the thin-wire correction makes the wire
    /// behave as that radius (`fdtd_core::model::thin`); without it, about 0.2 cell.
    Wire {
        points: Vec<[f64; 3]>,
        radius: Option<f64>,
    },
    /// A thin PEC plate, the rectangle `min..max` with (near) zero extent along `axis`:
    /// it covers no cells, it becomes the tangential E edges of the nearest grid plane.
    Plate {
        min: [f64; 3],
        max: [f64; 3],
        axis: usize,
    },
    /// A closed triangle mesh read from an STL file (`shape = "stl"`), placed in metres;
    /// inside by crossing parity ([`mesh`]). Shared: scenes clone cheaply.
    Stl(std::sync::Arc<mesh::Mesh>),
}

impl Shape {
    /// Whether point `p` (m) is inside the shape (boundary included).
    pub fn contains(&self, p: [f64; 3]) -> bool {
        match self {
            Shape::Box { min, max } => (0..3).all(|a| p[a] >= min[a] && p[a] <= max[a]),
            Shape::Sphere { center, radius } => {
                (0..3).map(|a| (p[a] - center[a]).powi(2)).sum::<f64>() <= radius * radius
            }
            Shape::Cylinder { a, b, radius } => {
                let ax = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
                let ap = [p[0] - a[0], p[1] - a[1], p[2] - a[2]];
                let len2: f64 = ax.iter().map(|v| v * v).sum();
                if len2 == 0.0 {
                    return false;
                }
                let t = (0..3).map(|i| ax[i] * ap[i]).sum::<f64>() / len2;
                if !(0.0..=1.0).contains(&t) {
                    return false;
                }
                let d2: f64 = (0..3).map(|i| (ap[i] - t * ax[i]).powi(2)).sum();
                d2 <= radius * radius
            }
            Shape::Stl(m) => m.contains(p),
            // Thin conductors own edges, never cells.
            Shape::Wire { .. } | Shape::Plate { .. } => false,
        }
    }

    /// Whether the shape's surface is averaged (subpixel) unless the scene says
    /// `subpixel = false`: spheres and cylinders, whose surfaces cut cells; a box keeps
    /// the staircase (exact when its faces lie on cell faces) unless it says `true`.
    pub fn subpixel_default(&self) -> bool {
        matches!(self, Shape::Sphere { .. } | Shape::Cylinder { .. })
    }

    /// The shape's name in the scene file (`shape = "..."`).
    pub fn name(&self) -> &'static str {
        match self {
            Shape::Box { .. } => "box",
            Shape::Sphere { .. } => "sphere",
            Shape::Cylinder { .. } => "cylinder",
            Shape::Wire { .. } => "wire",
            Shape::Plate { .. } => "plate",
            Shape::Stl(_) => "stl",
        }
    }

    /// Axis-aligned bounding box (min, max).
    pub fn bounds(&self) -> ([f64; 3], [f64; 3]) {
        match self {
            Shape::Box { min, max } => (*min, *max),
            Shape::Sphere { center, radius } => (center.map(|c| c - radius), center.map(|c| c + radius)),
            Shape::Cylinder { a, b, radius } => {
                let ax = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
                let len = ax.iter().map(|v| v * v).sum::<f64>().sqrt().max(f64::MIN_POSITIVE);
                let mut lo = [0.0; 3];
                let mut hi = [0.0; 3];
                for i in 0..3 {
                    // Extent of the end discs along axis i: r·sqrt(1 - (ax_i/len)²).
                    let e = radius * (1.0 - (ax[i] / len).powi(2)).max(0.0).sqrt();
                    lo[i] = a[i].min(b[i]) - e;
                    hi[i] = a[i].max(b[i]) + e;
                }
                (lo, hi)
            }
            Shape::Wire { points, .. } => {
                let mut lo = [f64::INFINITY; 3];
                let mut hi = [f64::NEG_INFINITY; 3];
                for p in points {
                    for a in 0..3 {
                        lo[a] = lo[a].min(p[a]);
                        hi[a] = hi[a].max(p[a]);
                    }
                }
                (lo, hi)
            }
            Shape::Plate { min, max, .. } => (*min, *max),
            Shape::Stl(m) => m.bounds(),
        }
    }
}

/// A total-field/scattered-field plane wave (`[[sources]]` with `type = "plane_wave"`):
/// inside `min..max` (the total-field region) the fields are total, outside scattered;
/// the incident wave is `E = ê·w(t − k̂·(r − r₀)/c)`, `r₀` the corner of the box the wave
/// reaches first, `k̂ = (sinθ cosφ, sinθ sinφ, cosθ)`, `ê = cos ψ·θ̂ + sin ψ·φ̂`.
#[derive(Clone, Debug, PartialEq)]
pub struct PlaneWave {
    pub name: String,
    /// Angles in degrees: θ (0..=180), φ (0..=360), ψ the polarization (0..=360).
    pub theta: f64,
    pub phi: f64,
    pub polarization: f64,
    /// The total-field box (m); its faces snap to the nearest grid nodes.
    pub min: [f64; 3],
    pub max: [f64; 3],
    /// The incident E (V/m) at `r₀`.
    pub waveform: Waveform,
}

/// A point source.
#[derive(Clone, Debug, PartialEq)]
pub struct Source {
    pub name: String,
    pub kind: SourceKind,
    pub component: Component,
    /// Position (m); snapped to the nearest sample of `component`.
    pub position: [f64; 3],
    pub waveform: Waveform,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// Soft current source. For E components an electric current moment I·l (A·m)
    /// (a Hertzian dipole); for H components a magnetic current moment (V·m).
    /// The waveform's amplitude is that moment.
    Current,
    /// Hard source: the field sample is set to the waveform (V/m or A/m).
    Hard,
}

/// Records field components at a point every `every` steps.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    pub name: String,
    pub position: [f64; 3],
    pub components: Vec<Component>,
    pub every: usize,
}

/// Records field components over a region every `every` steps.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    pub name: String,
    pub region: Region,
    pub components: Vec<Component>,
    pub every: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Region {
    /// The whole domain.
    All,
    /// The plane `axis = position` (m), snapped to the nearest grid plane.
    Plane { axis: usize, position: f64 },
    /// An axis-aligned box (m).
    Box { min: [f64; 3], max: [f64; 3] },
}

/// A lumped port: a resistive source across the E edges from `start` to `end`.
///
/// The port's axis is the one along which the snapped endpoints differ (or `axis` when
/// they differ along more than one: the others then span parallel columns, e.g. a
/// strip-wide port). The positive terminal is at `end`: V = −∫_start^end E·dl and I is
/// the current leaving the positive terminal into the structure (∮H·dl, right-handed
/// about start→end).
#[derive(Clone, Debug, PartialEq)]
pub struct Port {
    pub name: String,
    pub start: [f64; 3],
    pub end: [f64; 3],
    /// 0, 1, 2 for x, y, z.
    pub axis: usize,
    /// Internal resistance and reference impedance Z0 (Ω).
    pub impedance: f64,
    /// Driven (a source V_s(t) in series with `impedance`) or a matched load.
    pub excite: bool,
    /// The source voltage V_s(t) (V) of a driven port.
    pub waveform: Option<Waveform>,
    /// Where its waves, S and Z are referred to: this far (m) from the port along a
    /// matched lossless feed line of effective permittivity `eps_eff` (positive: toward
    /// the structure, de-embedding that length of line; negative: back toward the
    /// source). 0: at the port's edges.
    pub reference_plane: f64,
    pub eps_eff: f64,
    /// A transmission-line port: the port is the feed of a line that runs from it along
    /// this direction, and V and I are measured on the line (see [`LinePort`]).
    pub line: Option<LinePort>,
}

/// The line behind a transmission-line port (`line = "+x"`, `measure`): a microstrip,
/// stripline, coaxial or any other line with a signal conductor (at the port's `end`)
/// and a return conductor (at its `start`). Its characteristic impedance and propagation
/// constant are measured from the fields, and `reference_plane` is then a distance
/// from the feed along the line, de-embedded with the measured propagation constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinePort {
    /// The line's axis (0, 1, 2) and direction (+1 or −1) away from the feed.
    pub axis: usize,
    pub sign: f64,
    /// Distance (m) from the feed to the line's first measurement plane; None: the
    /// default (2.5 times the line's cross-section: the signal conductor's largest side
    /// plus twice the feed's length; at least 5 cells).
    pub measure: Option<f64>,
    /// `impedance = "line"`: a, b and S referred to the line's measured impedance (the
    /// line's own forward and backward waves) instead of the port's `impedance`.
    pub to_line: bool,
    /// `mode = "TE10"`: a rectangular waveguide port. `start` and `end` are opposite
    /// corners of the guide's inner cross-section, `axis` the E field's (the narrow
    /// side's) direction; V and I are the TE10 mode's amplitudes (E and H weighted by
    /// sin(πu/a) across the broad side), and S is referred to the mode's wave impedance.
    pub te10: bool,
}

/// A lumped R, L, C element on the E edges from `start` to `end` (as for a [`Port`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Lumped {
    pub name: String,
    pub start: [f64; 3],
    pub end: [f64; 3],
    pub axis: usize,
    /// Resistance (Ω), inductance (H), capacitance (F); any subset.
    pub r: Option<f64>,
    pub l: Option<f64>,
    pub c: Option<f64>,
    pub topology: Topology,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    Parallel,
    Series,
}

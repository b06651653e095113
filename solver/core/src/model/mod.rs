//! The discretised problem: everything a backend needs, and nothing about devices.
//!
//! Built once from a [`Scene`] by [`Model::discretize`]; both backends execute the
//! same `Model`, so they run the same update equations on the same numbers.
mod cpml;
pub mod dispersion;
mod grid;
pub mod line;
pub mod lumped;
mod materials;
mod points;
pub mod stl;
pub mod subpixel;
pub mod tfsf;
pub mod thin;

pub use cpml::{CpmlLayer, Profile};
pub use grid::{Box3, Grid, Range};
pub use lumped::{LumpedModel, PortModel};
pub use materials::{paint as cell_materials, weighted as weighted_pole, CoefTable, MIXED};
pub use points::{PointProbe, PointSource, ProbeSample, SnapshotRegion};
pub use tfsf::PlaneWaveModel;

use crate::scene::{Boundary, Scene};
use thiserror::Error;

/// Boundary kind of one face, as the kernels see it. CPML faces are PEC-backed;
/// their absorbing layer lives inside the grid and is described by [`CpmlLayer`]s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaceKind {
    Pec,
    Pmc,
    Periodic,
    Cpml,
}

impl FaceKind {
    pub fn code(self) -> u32 {
        match self {
            FaceKind::Pec => 0,
            FaceKind::Pmc => 1,
            FaceKind::Periodic => 2,
            FaceKind::Cpml => 3,
        }
    }
}

/// A discretised scene.
#[derive(Clone, Debug)]
pub struct Model {
    pub grid: Grid,
    /// Faces in the order x-, x+, y-, y+, z-, z+.
    pub faces: [FaceKind; 6],
    pub coefs: CoefTable,
    /// Per component (Ex..Hz), a material index for every sample, shape `grid.dims()`.
    /// E components index `coefs.e`, H components index `coefs.h`.
    pub mat: [Vec<u16>; 6],
    /// Per component and `(i, j)` row: the row's material index if every sample of the
    /// row has the same one, else [`MIXED`]. Lets kernels skip index reads in uniform rows.
    pub rows: [Vec<u32>; 6],
    pub cpml: Vec<CpmlLayer>,
    /// Point sources, then the ports' edges, then the plane waves' line drives
    /// ([`PointSource::line`]).
    pub sources: Vec<PointSource>,
    /// Total-field/scattered-field plane waves (the `plane_wave` pass each).
    pub plane_waves: Vec<PlaneWaveModel>,
    pub probes: Vec<PointProbe>,
    pub snapshots: Vec<SnapshotRegion>,
    /// Frequency-domain monitors and far-field boxes (one DFT pass each).
    pub monitors: Vec<crate::monitors::Monitor>,
    /// Lumped ports (their sources are in `sources`, named `port NAME edge K`).
    pub ports: Vec<PortModel>,
    /// Lumped R, L, C elements (R and C live in the coefficient rows of their edges).
    pub lumped: Vec<LumpedModel>,
    /// Frequencies (Hz) where port results are evaluated ([`Scene::frequency_list`]).
    pub frequencies: Vec<f64>,
    /// End criterion: stop when the field energy has fallen this many dB below its peak.
    pub decay_db: Option<f64>,
    /// Every port is driven in turn ([`Scene::drive_each`]): this model is one drive's;
    /// the results hold the full S-matrix (counted in the memory and disk plans).
    pub drive_each: bool,
    /// Highest significant source frequency (Hz) and cells per wavelength there (min over materials).
    pub resolution: Option<(f64, f64)>,
    /// The thin-wire correction's H samples (wires with a `radius`; `thin.rs`), applied by
    /// the `thin_wire` pass.
    pub wire_h: Vec<thin::HFix>,
    /// Per wire with a `radius`: its correction in summary (`fdtd check`).
    pub wires: Vec<thin::WireFix>,
    /// `(requested, used)` Courant factor when a thick wire's feed gap made the time step
    /// shorter than the scene asked for ([`thin::gap_courant`]).
    pub wire_courant: Option<(f64, f64)>,
}

#[derive(Debug, Error)]
pub enum ModelError {
    #[error("Courant factor {0} is not in (0, 1]: the Yee scheme is unstable above 1")]
    Courant(f64),
    #[error("{what} `{name}` at {pos:?} m lies outside the grid (domain {size:?} m)")]
    OutsideGrid {
        what: &'static str,
        name: String,
        pos: [f64; 3],
        size: [f64; 3],
    },
    #[error("periodic boundary on {0} needs both faces of that axis periodic")]
    PeriodicMismatch(&'static str),
    #[error("CPML layers on axis {axis} ({cells} cells on the two sides together) leave no interior in {n} cells")]
    CpmlTooThick { axis: char, cells: usize, n: usize },
    #[error(
        "the scene makes {0} distinct averaged materials; at most 65535 are supported (subpixel averaging makes up to 8415 per pair of materials a sphere's or cylinder's surface separates: `subpixel = false` on some [[objects]] makes fewer)"
    )]
    TooManyMaterials(usize),
    #[error("the grid needs at least 1 cell per axis and at least 2 along any axis with a CPML (got {0:?})")]
    TooSmall([usize; 3]),
    #[error("the run has zero time steps")]
    NoSteps,
    #[error("monitor `{name}` {message}")]
    Monitor { name: String, message: String },
    #[error("{what} `{name}`: {why}")]
    Element {
        what: &'static str,
        name: String,
        why: String,
    },
}

impl Model {
    /// This model's small parts (faces, coefficients, CPML layers, sources, probes) on a grid of `n` cells of size `d`, without material arrays or
    /// snapshots: what the memory plans need to size a run of another grid, so that
    /// "what would fit" comes from the same plan as the refusal. Not runnable.
    pub fn resized_for_plan(&self, n: [usize; 3], d: [f64; 3]) -> Model {
        Model {
            grid: Grid {
                n,
                d,
                ..self.grid.clone()
            },
            faces: self.faces,
            coefs: self.coefs.clone(),
            mat: Default::default(),
            rows: Default::default(),
            cpml: self.cpml.clone(),
            sources: self.sources.clone(),
            plane_waves: self.plane_waves.clone(),
            probes: self.probes.clone(),
            snapshots: Vec::new(),
            monitors: self.monitors.clone(),
            ports: self.ports.clone(),
            lumped: self.lumped.clone(),
            frequencies: self.frequencies.clone(),
            decay_db: self.decay_db,
            drive_each: self.drive_each,
            resolution: self.resolution,
            wire_h: self.wire_h.clone(),
            wires: self.wires.clone(),
            wire_courant: self.wire_courant,
        }
    }

    /// The (port, plane) of every line-port series pair after the ports' own: a run
    /// records one (V, I) pair per port (its feed), then two per line port (planes a and
    /// b of [`line::LineProbe`]), in this order.
    pub fn line_pairs(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (k, p) in self.ports.iter().enumerate() {
            if p.line.is_some() {
                out.extend([(k, 0), (k, 1)]);
            }
        }
        out
    }

    /// How many (V, I) series pairs a run records: [`Model::line_pairs`].
    pub fn port_pairs(&self) -> usize {
        self.ports.len() + self.line_pairs().len()
    }

    /// Rows of one component array (`(nx + 1)(ny + 1)`): the length of each `rows` table.
    pub fn row_count(&self) -> usize {
        (self.grid.n[0] + 1) * (self.grid.n[1] + 1)
    }
}

impl Model {
    /// Discretise a scene onto its Yee grid.
    pub fn discretize(scene: &Scene) -> Result<Model, ModelError> {
        let courant = scene.time.courant;
        if !(courant > 0.0 && courant <= 1.0) {
            return Err(ModelError::Courant(courant));
        }
        let model = Model::discretize_at(scene, courant)?;
        // A thick wire's feed gap stiffens the update: a shorter step keeps it stable.
        match thin::gap_courant(&model.grid, &model.wire_h) {
            Some(limit) if limit < courant => {
                // Four digits, rounded down (what `fdtd check` prints).
                let limit = (limit * 1e4).floor() / 1e4;
                let mut model = Model::discretize_at(scene, limit)?;
                model.wire_courant = Some((courant, limit));
                Ok(model)
            }
            _ => Ok(model),
        }
    }

    /// [`Model::discretize`] with the Courant factor `courant`.
    fn discretize_at(scene: &Scene, courant: f64) -> Result<Model, ModelError> {
        let grid = Grid::new(scene.domain.cells, scene.domain.cell_size, courant, scene.time.end);
        if grid.n.contains(&0) {
            return Err(ModelError::TooSmall(grid.n));
        }
        if grid.steps == 0 {
            return Err(ModelError::NoSteps);
        }
        let mut faces = [FaceKind::Pec; 6];
        for (f, b) in scene.boundaries.faces.iter().enumerate() {
            faces[f] = match b {
                Boundary::Pec => FaceKind::Pec,
                Boundary::Pmc => FaceKind::Pmc,
                Boundary::Periodic => FaceKind::Periodic,
                Boundary::Cpml(_) => FaceKind::Cpml,
            };
        }
        for a in 0..3 {
            let (lo, hi) = (faces[2 * a], faces[2 * a + 1]);
            if (lo == FaceKind::Periodic) != (hi == FaceKind::Periodic) {
                return Err(ModelError::PeriodicMismatch(["x", "y", "z"][a]));
            }
        }
        let cpml = cpml::layers(&grid, &scene.boundaries)?;
        let (mut coefs, mut mat) = materials::build(scene, &grid)?;
        // Wires, plates and PEC solids thinner than a cell: PEC edges (thin.rs).
        thin::apply(scene, &grid, &mut coefs, &mut mat);
        let lumped::Elements {
            ports,
            lumped,
            sources: port_sources,
        } = lumped::build(scene, &grid, &mut coefs, &mut mat)?;
        let mut ports = ports;
        let f_max = scene.frequency_list().into_iter().fold(0.0, f64::max);
        let lattice = line::Plane {
            grid: &grid,
            faces: &faces,
            coefs: &coefs,
            mat: &mat,
        };
        line::attach(&scene.ports, f_max, &mut ports, &lattice, &cpml)?;
        // Wires with a radius: the thin-wire correction's H samples, on the final edges.
        let gaps: Vec<thin::Edge> = ports
            .iter()
            .flat_map(|p| p.edges.iter().map(|&index| thin::Edge { axis: p.axis, index }))
            .chain(
                lumped
                    .iter()
                    .flat_map(|l| l.edges.iter().map(|&index| thin::Edge { axis: l.axis, index })),
            )
            .collect();
        let (wire_h, wires) = thin::wire_fixes(scene, &grid, &coefs, &mat, &cpml, &gaps);
        let rows = std::array::from_fn(|c| materials::row_flags(&mat[c], &grid));
        let mut sources = points::sources(scene, &grid, &coefs, &mat)?;
        sources.extend(port_sources);
        let plane_waves = tfsf::build(scene, &grid, &coefs, &mat, &mut sources)?;
        let probes = points::probes(scene, &grid)?;
        let snapshots = points::snapshots(scene, &grid);
        let monitors = crate::monitors::build(scene, &grid)?;
        let resolution = materials::resolution(scene, &grid);
        let model = Model {
            grid,
            faces,
            coefs,
            mat,
            rows,
            cpml,
            sources,
            plane_waves,
            probes,
            snapshots,
            monitors,
            ports,
            lumped,
            frequencies: scene.frequency_list(),
            decay_db: scene.decay_db(),
            drive_each: scene.drive_each,
            resolution,
            wire_h,
            wires,
            wire_courant: None,
        };
        Ok(model)
    }

    /// Source values for steps `n0 .. n0 + count`, laid out `[step][source]`,
    /// evaluated in f64 at each source's own time within the step (see [`PointSource::time`]).
    pub fn source_values(&self, n0: usize, count: usize) -> Vec<f32> {
        let mut v = Vec::with_capacity(count * self.sources.len());
        for n in n0..n0 + count {
            for s in &self.sources {
                v.push(s.value(n, self.grid.dt) as f32);
            }
        }
        v
    }
}

#[cfg(test)]
mod tests;

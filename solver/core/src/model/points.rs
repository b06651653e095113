//! Sources, probes and snapshot regions snapped to grid samples.
use super::{CoefTable, Grid, ModelError};
use crate::scene::{Region, Scene, SourceKind};
use crate::waveform::Waveform;
use crate::Component;

/// A point source at one field sample.
#[derive(Clone, Debug, PartialEq)]
pub struct PointSource {
    pub name: String,
    pub kind: SourceKind,
    pub component: Component,
    pub index: [usize; 3],
    /// Flat index into the component's array.
    pub flat: usize,
    /// Soft sources: `F[flat] += scale·w(t)`; hard sources: `F[flat] = scale·w(t)`.
    pub scale: f64,
    pub waveform: Waveform,
    /// A drive value of a plane wave's incident line (`model::tfsf`), not applied to the
    /// grid: the plane-wave pass reads it from the step's source values.
    pub line: bool,
}

impl PointSource {
    /// Time (s) at which step `n` samples this source.
    ///
    /// Step n takes H from n−½ to n+½ and E from n to n+1, so an electric current
    /// enters at (n+½)·dt and a magnetic current at n·dt (the centre of each update),
    /// while a hard E source sets E at (n+1)·dt and a hard H source H at (n+½)·dt.
    pub fn time(&self, n: usize, dt: f64) -> f64 {
        let n = n as f64;
        match (self.kind, self.component.is_electric()) {
            (SourceKind::Current, true) => (n + 0.5) * dt,
            (SourceKind::Current, false) => n * dt,
            (SourceKind::Hard, true) => (n + 1.0) * dt,
            (SourceKind::Hard, false) => (n + 0.5) * dt,
        }
    }

    /// The value the backend applies at step `n`.
    pub fn value(&self, n: usize, dt: f64) -> f64 {
        self.scale * self.waveform.eval(self.time(n, dt))
    }
}

/// One component of a probe, at its nearest sample.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeSample {
    pub component: Component,
    pub index: [usize; 3],
    pub flat: usize,
    /// Where the sample really is (m).
    pub position: [f64; 3],
}

/// A point probe: one or more components sampled every `every` steps.
#[derive(Clone, Debug, PartialEq)]
pub struct PointProbe {
    pub name: String,
    /// The position the user asked for (m).
    pub position: [f64; 3],
    pub samples: Vec<ProbeSample>,
    pub every: usize,
}

/// A snapshot region in grid-node index space, `lo..hi` (exclusive) per axis.
#[derive(Clone, Debug, PartialEq)]
pub struct SnapshotRegion {
    pub name: String,
    pub components: Vec<Component>,
    pub every: usize,
    pub lo: [usize; 3],
    pub hi: [usize; 3],
}

impl SnapshotRegion {
    /// The region for one component: `hi` clipped to the component's real samples.
    pub fn component_box(&self, c: Component, grid: &Grid) -> ([usize; 3], [usize; 3]) {
        let ext = c.extent(grid.n);
        let hi = [0, 1, 2].map(|a| self.hi[a].min(ext[a]).max(self.lo[a].min(ext[a].saturating_sub(1)) + 1));
        let lo = [0, 1, 2].map(|a| self.lo[a].min(hi[a] - 1));
        (lo, hi)
    }

    pub fn component_shape(&self, c: Component, grid: &Grid) -> [usize; 3] {
        let (lo, hi) = self.component_box(c, grid);
        [0, 1, 2].map(|a| hi[a] - lo[a])
    }
}

/// Nearest sample of `c` to `p`, or None when `p` is outside the component's samples
/// by more than half a cell.
pub fn snap(c: Component, p: [f64; 3], grid: &Grid) -> Option<[usize; 3]> {
    let s = c.stagger();
    let ext = c.extent(grid.n);
    let mut idx = [0usize; 3];
    for a in 0..3 {
        let x = p[a] / grid.d[a] - if s[a] { 0.5 } else { 0.0 };
        // Clamp first: a point on a domain face is half a cell from the nearest
        // staggered sample, and rounding −0.5 would step outside.
        let r = x.round().clamp(0.0, ext[a] as f64 - 1.0);
        if !x.is_finite() || (x - r).abs() > 0.5 + 1e-9 {
            return None;
        }
        idx[a] = r as usize;
    }
    Some(idx)
}

pub(super) fn sources(
    scene: &Scene,
    grid: &Grid,
    coefs: &CoefTable,
    mat: &[Vec<u16>; 6],
) -> Result<Vec<PointSource>, ModelError> {
    let vol = grid.d[0] * grid.d[1] * grid.d[2];
    scene
        .sources
        .iter()
        .map(|s| {
            let c = s.component;
            let index = snap(c, s.position, grid).ok_or_else(|| ModelError::OutsideGrid {
                what: "source",
                name: s.name.clone(),
                pos: s.position,
                size: grid_size(grid),
            })?;
            let flat = grid.idx(index[0], index[1], index[2]);
            let m = mat[c.index()][flat] as usize;
            let scale = match s.kind {
                SourceKind::Hard => 1.0,
                // ε∂E/∂t = ∇×H − J with J = (I·l)/V over the cell: E += −cb·(I·l)/V.
                // μ∂H/∂t = −∇×E − M with M = (K·l)/V:            H += −db·(K·l)/V.
                SourceKind::Current if c.is_electric() => -(coefs.e[m][1] as f64) / vol,
                SourceKind::Current => -(coefs.h[m] as f64) / vol,
            };
            Ok(PointSource {
                name: s.name.clone(),
                kind: s.kind,
                component: c,
                index,
                flat,
                scale,
                waveform: s.waveform.clone(),
                line: false,
            })
        })
        .collect()
}

pub(super) fn probes(scene: &Scene, grid: &Grid) -> Result<Vec<PointProbe>, ModelError> {
    scene
        .probes
        .iter()
        .map(|p| {
            let samples = p
                .components
                .iter()
                .map(|&c| {
                    let index = snap(c, p.position, grid).ok_or_else(|| ModelError::OutsideGrid {
                        what: "probe",
                        name: p.name.clone(),
                        pos: p.position,
                        size: grid_size(grid),
                    })?;
                    Ok(ProbeSample {
                        component: c,
                        index,
                        flat: grid.idx(index[0], index[1], index[2]),
                        position: c.position(index, grid.d),
                    })
                })
                .collect::<Result<Vec<_>, ModelError>>()?;
            Ok(PointProbe {
                name: p.name.clone(),
                position: p.position,
                samples,
                every: p.every.max(1),
            })
        })
        .collect()
}

pub(super) fn snapshots(scene: &Scene, grid: &Grid) -> Vec<SnapshotRegion> {
    let n = grid.n;
    scene
        .snapshots
        .iter()
        .map(|s| {
            let node = |a: usize, x: f64| ((x / grid.d[a]).round().max(0.0) as usize).min(n[a]);
            let (lo, hi) = match &s.region {
                Region::All => ([0; 3], n.map(|x| x + 1)),
                Region::Plane { axis, position } => {
                    let mut lo = [0; 3];
                    let mut hi = n.map(|x| x + 1);
                    let i = node(*axis, *position);
                    lo[*axis] = i;
                    hi[*axis] = i + 1;
                    (lo, hi)
                }
                Region::Box { min, max } => {
                    let lo = [0, 1, 2].map(|a| node(a, min[a]));
                    let hi = [0, 1, 2].map(|a| (node(a, max[a]) + 1).max(lo[a] + 1));
                    (lo, hi)
                }
            };
            SnapshotRegion {
                name: s.name.clone(),
                components: s.components.clone(),
                every: s.every.max(1),
                lo,
                hi,
            }
        })
        .collect()
}

fn grid_size(grid: &Grid) -> [f64; 3] {
    [0, 1, 2].map(|a| grid.n[a] as f64 * grid.d[a])
}

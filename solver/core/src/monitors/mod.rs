//! Frequency-domain monitors on the grid: the scene's `[[monitors]]` (DFT planes and
//! boxes, power flux through a plane or a closed box) and `[[farfield]]` boxes, snapped
//! to blocks of Yee samples, each accumulated during the run by one [`crate::passes::dft::Dft`] pass
//! (state `<pass>/re`, `<pass>/im`), and turned into results after the last step by
//! [`post`].
//!
//! **Blocks.** A monitor records boxes of samples of one component each ([`Block`]),
//! in grid-index space. A DFT monitor has one block per component over its region. A
//! surface (flux, far field) has six blocks per [`Face`]: the two tangential E
//! components on the face's grid plane, and the two tangential H components on the
//! planes half a cell on each side of it. [`post`] interpolates them to the centres of
//! the face's cells.
//!
//! **Decimation.** A monitor accumulates after every `every`-th step only, with `every`
//! the largest that keeps the sampling rate 1/(every·dt) at least [`OVERSAMPLING`] times
//! the highest frequency of interest (the monitor's and the sources' band,
//! `Waveform::max_frequency`). The fields are band-limited to that band, so the sum of
//! the decimated samples times every·dt is the same transform (the aliased content lies
//! above (OVERSAMPLING − 1)·f_max, where the sources put nothing).
pub mod post;

use crate::model::{Grid, ModelError};
use crate::scene::{Boundary, FarFieldBox, MonitorKind, MonitorRegion, Scene};
use crate::Component;

/// Samples per period of the highest frequency of interest, at least.
pub const OVERSAMPLING: f64 = 10.0;

/// A box of samples of one component, `lo..hi` (sample indices, exclusive), C order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub component: Component,
    pub lo: [usize; 3],
    pub hi: [usize; 3],
}

impl Block {
    pub fn dims(&self) -> [usize; 3] {
        [0, 1, 2].map(|a| self.hi[a] - self.lo[a])
    }

    pub fn len(&self) -> usize {
        self.dims().iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Index within the block of sample `at` (global indices).
    pub fn at(&self, at: [usize; 3]) -> usize {
        let d = self.dims();
        ((at[0] - self.lo[0]) * d[1] + (at[1] - self.lo[1])) * d[2] + (at[2] - self.lo[2])
    }
}

/// One face of a recorded surface: the grid plane `plane` normal to `axis`, over the
/// cells `cells.0 ..cells.1` along the other two axes (entries at `axis` unused), with
/// its six blocks from `first` in [`Monitor::blocks`] in the order
/// E_t1, E_t2, H_t1 (plane − ½), H_t1 (plane + ½), H_t2 (plane − ½), H_t2 (plane + ½),
/// where t1 = axis + 1 and t2 = axis + 2 (mod 3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Face {
    pub axis: usize,
    /// +1 or −1: the direction of the face's normal along `axis` (outward for a box).
    pub sign: f64,
    pub plane: usize,
    pub cells: ([usize; 3], [usize; 3]),
    pub first: usize,
}

/// What a monitor computes from its phasors.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// The phasors of every block.
    Dft,
    /// Net power through its faces.
    Flux,
    /// Closed-surface phasors for the near-to-far-field transform, closed together with
    /// their images in the domain's PEC/PMC faces (`images`, see [`crate::farfield`]).
    /// One of the two flux boxes of the cross section named `section`, lit by plane wave
    /// `wave` (an index of `Model::plane_waves`): `outer` the scattered-field box, else the
    /// absorption box inside the total field. Turned into cross sections by
    /// [`crate::scattering`].
    CrossSection { section: String, wave: usize, outer: bool },
    FarField {
        theta_step: f64,
        phi_step: f64,
        polarization: crate::scene::Polarization,
        images: Vec<crate::farfield::ImagePlane>,
    },
}

impl Kind {
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Dft => "dft",
            Kind::Flux => "flux",
            Kind::CrossSection { .. } => "cross_section",
            Kind::FarField { .. } => "farfield",
        }
    }
}

/// A monitor on the grid.
#[derive(Clone, Debug, PartialEq)]
pub struct Monitor {
    pub name: String,
    pub kind: Kind,
    /// Frequencies (Hz).
    pub freqs: Vec<f64>,
    /// Accumulate after every `every`-th step.
    pub every: usize,
    pub blocks: Vec<Block>,
    /// Flux and far field: the faces of the surface (empty for DFT monitors).
    pub faces: Vec<Face>,
}

impl Monitor {
    /// The name of its pass (state arrays `<pass>/re`, `<pass>/im`).
    pub fn pass_name(&self) -> String {
        match self.kind {
            Kind::FarField { .. } => format!("farfield:{}", self.name),
            Kind::CrossSection { .. } => format!("cross_section:{}", self.name),
            _ => format!("monitor:{}", self.name),
        }
    }

    /// Recorded samples.
    pub fn records(&self) -> usize {
        self.blocks.iter().map(Block::len).sum()
    }

    /// Bytes of its state (Re and Im per sample and frequency, f32).
    pub fn state_bytes(&self) -> u64 {
        8 * self.records() as u64 * self.freqs.len() as u64
    }

    /// One line for `fdtd check`.
    pub fn summary(&self) -> String {
        let f = &self.freqs;
        let band = if f.len() == 1 {
            crate::fmt::hz(f[0])
        } else {
            format!(
                "{} frequencies {} .. {}",
                f.len(),
                crate::fmt::hz(f[0]),
                crate::fmt::hz(f[f.len() - 1])
            )
        };
        let geometry = if self.faces.is_empty() {
            format!("{} block(s)", self.blocks.len())
        } else {
            format!("{} face(s)", self.faces.len())
        };
        format!(
            "{} {:?}: {} samples in {geometry}, {band}, every {} step(s), state {}",
            self.kind.name(),
            self.name,
            self.records(),
            self.every,
            crate::fmt::human_bytes(self.state_bytes())
        )
    }
}

fn err(name: &str, message: impl Into<String>) -> ModelError {
    ModelError::Monitor {
        name: name.to_string(),
        message: message.into(),
    }
}

/// The scene's default frequencies for monitors without their own: its `[frequencies]`
/// when it has them, else the excitation band, 21 points from a twentieth of the top to
/// half of it (`max_frequency` is the −40 dB point).
pub fn default_frequencies(scene: &Scene) -> Vec<f64> {
    if let Some(f) = &scene.frequencies {
        return f.values();
    }
    let top = excitation_top(scene);
    if top <= 0.0 {
        return Vec::new();
    }
    let (lo, hi) = (top / 20.0, top / 2.0);
    (0..21).map(|i| lo + (hi - lo) * i as f64 / 20.0).collect()
}

/// The highest significant frequency of every excitation: point sources, plane waves and
/// driven ports.
pub fn excitation_top(scene: &Scene) -> f64 {
    let ports = scene.ports.iter().filter_map(|p| p.waveform.as_ref());
    scene
        .sources
        .iter()
        .map(|s| &s.waveform)
        .chain(scene.plane_waves.iter().map(|p| &p.waveform))
        .chain(ports)
        .map(|w| w.max_frequency())
        .fold(0.0, f64::max)
}

/// The decimation for frequencies up to `fmax` at time step `dt`.
pub fn decimation(fmax: f64, dt: f64) -> usize {
    if fmax <= 0.0 {
        return 1;
    }
    ((1.0 / (OVERSAMPLING * fmax * dt)).floor() as usize).max(1)
}

/// Every monitor and far-field box of the scene, on `grid`.
pub fn build(scene: &Scene, grid: &Grid) -> Result<Vec<Monitor>, ModelError> {
    let defaults = default_frequencies(scene);
    let source_top = excitation_top(scene);
    let mut out = Vec::new();
    let freqs_of = |name: &str, f: &Option<crate::scene::Frequencies>, farfield: bool| {
        let v = match f {
            Some(f) => f.values(),
            // A far field at many frequencies is costly: the centre of the band.
            None if farfield && defaults.len() > 5 => vec![defaults[defaults.len() / 2]],
            None => defaults.clone(),
        };
        if v.is_empty() {
            return Err(err(
                name,
                "has no frequencies and the scene has no sources to take them from; give `frequencies`",
            ));
        }
        let nyquist = 0.5 / grid.dt;
        if let Some(&f) = v.iter().find(|&&f| !(f > 0.0 && f < nyquist)) {
            return Err(err(
                name,
                format!(
                    "frequency {} is not below the grid's Nyquist frequency {} (1/(2 dt))",
                    crate::fmt::hz(f),
                    crate::fmt::hz(nyquist)
                ),
            ));
        }
        Ok(v)
    };
    for m in &scene.monitors {
        let freqs = freqs_of(&m.name, &m.frequencies, false)?;
        let (kind, blocks, faces) = match &m.kind {
            MonitorKind::Dft { components } => {
                (Kind::Dft, dft_blocks(&m.name, grid, &m.region, components)?, Vec::new())
            }
            MonitorKind::Flux => {
                let (blocks, faces) = match &m.region {
                    MonitorRegion::Plane {
                        axis,
                        position,
                        min,
                        max,
                    } => flux_plane(&m.name, grid, *axis, *position, *min, *max)?,
                    MonitorRegion::Box { min, max } => {
                        let (lo, hi) = snap_box(&m.name, grid, *min, *max, [false; 6])?;
                        surface(lo, hi)
                    }
                };
                (Kind::Flux, blocks, faces)
            }
        };
        out.push(finish(&m.name, kind, freqs, blocks, faces, source_top, grid));
    }
    for c in &scene.cross_sections {
        let freqs = freqs_of(&c.name, &c.frequencies, false)?;
        let Some(p) = scene.plane_waves.get(c.wave) else {
            return Err(err(&c.name, "names no plane wave"));
        };
        let boxes = [
            (true, crate::model::tfsf::scattered_nodes(c, p, grid)),
            (false, crate::model::tfsf::absorption_nodes(c, p, grid)),
        ];
        for (outer, nodes) in boxes {
            let name = format!("{}:{}", c.name, if outer { "scattered" } else { "total" });
            for a in 0..3 {
                if nodes[a][0] < 1 || nodes[a][1] + 1 > grid.n[a] || nodes[a][1] <= nodes[a][0] {
                    return Err(err(
                        &name,
                        format!(
                            "its box (nodes {nodes:?}) does not fit the grid {:?} with a cell to spare",
                            grid.n
                        ),
                    ));
                }
            }
            let (blocks, faces) = surface(nodes.map(|x| x[0]), nodes.map(|x| x[1]));
            let kind = Kind::CrossSection {
                section: c.name.clone(),
                wave: c.wave,
                outer,
            };
            out.push(finish(&name, kind, freqs.clone(), blocks, faces, source_top, grid));
        }
    }
    for f in &scene.farfields {
        let freqs = freqs_of(&f.name, &f.frequencies, true)?;
        let images = image_planes(scene, grid, &f.name)?;
        let (lo, hi) = farfield_box(scene, grid, f)?;
        // A face on a PEC/PMC plane is interior to the box and its images: not recorded.
        let open = [0, 1, 2, 3, 4, 5].map(|i| {
            let (a, high) = (i / 2, i % 2 == 1);
            let at_wall = if high { hi[a] == grid.n[a] } else { lo[a] == 0 };
            at_wall && is_wall(scene.boundaries.face(a, high))
        });
        let (blocks, faces) = surface_open(lo, hi, open);
        let kind = Kind::FarField {
            theta_step: f.theta_step,
            phi_step: f.phi_step,
            polarization: f.polarization,
            images,
        };
        out.push(finish(&f.name, kind, freqs, blocks, faces, source_top, grid));
    }
    Ok(out)
}

fn finish(
    name: &str,
    kind: Kind,
    freqs: Vec<f64>,
    blocks: Vec<Block>,
    faces: Vec<Face>,
    source_top: f64,
    grid: &Grid,
) -> Monitor {
    let fmax = freqs.iter().copied().fold(source_top, f64::max);
    Monitor {
        name: name.to_string(),
        kind,
        every: decimation(fmax, grid.dt),
        freqs,
        blocks,
        faces,
    }
}

/// Samples of `c` along `a` whose positions lie in `[min, max]` (m): an index range,
/// at least the nearest sample.
fn sample_range(c: Component, grid: &Grid, a: usize, min: f64, max: f64) -> (usize, usize) {
    let s = if c.stagger()[a] { 0.5 } else { 0.0 };
    let ext = c.extent(grid.n)[a] as f64;
    let lo = (min / grid.d[a] - s - 1e-9).ceil().clamp(0.0, ext);
    let hi = ((max / grid.d[a] - s + 1e-9).floor() + 1.0).clamp(0.0, ext);
    if lo < hi {
        (lo as usize, hi as usize)
    } else {
        let mid = (0.5 * (min + max) / grid.d[a] - s).round().clamp(0.0, ext - 1.0) as usize;
        (mid, mid + 1)
    }
}

fn dft_blocks(name: &str, grid: &Grid, region: &MonitorRegion, comps: &[Component]) -> Result<Vec<Block>, ModelError> {
    let size = [0, 1, 2].map(|a| grid.n[a] as f64 * grid.d[a]);
    let mut blocks = Vec::new();
    for &c in comps {
        let (mut lo, mut hi) = ([0; 3], [0; 3]);
        for a in 0..3 {
            let (l, h) = match region {
                MonitorRegion::Box { min, max } => sample_range(c, grid, a, min[a], max[a]),
                MonitorRegion::Plane {
                    axis,
                    position,
                    min,
                    max,
                } => {
                    if a == *axis {
                        sample_range(c, grid, a, *position, *position)
                    } else {
                        let lo = min.map_or(0.0, |m| m[a]);
                        let hi = max.map_or(size[a], |m| m[a]);
                        sample_range(c, grid, a, lo, hi)
                    }
                }
            };
            lo[a] = l;
            hi[a] = h;
        }
        blocks.push(Block { component: c, lo, hi });
    }
    if blocks.iter().all(Block::is_empty) {
        return Err(err(name, "covers no samples"));
    }
    Ok(blocks)
}

/// Whether a boundary face is a PEC or PMC plane (an image plane of the far field).
fn is_wall(b: &Boundary) -> bool {
    matches!(b, Boundary::Pec | Boundary::Pmc)
}

/// The image planes of a far field: every PEC face (a ground plane: nothing behind it)
/// and PMC face (a symmetry plane of a half-model), at most one per axis (two facing
/// walls would image each other without end).
pub fn image_planes(scene: &Scene, grid: &Grid, name: &str) -> Result<Vec<crate::farfield::ImagePlane>, ModelError> {
    use crate::farfield::{ImagePlane, PlaneRole};
    let mut out = Vec::new();
    for a in 0..3 {
        let walls: Vec<bool> = [false, true]
            .into_iter()
            .filter(|&high| is_wall(scene.boundaries.face(a, high)))
            .collect();
        if walls.len() == 2 {
            return Err(err(
                name,
                format!(
                    "the domain has PEC/PMC walls on both {0}_min and {0}_max: their images repeat without end \
                     (a waveguide, not open space), so a far field is undefined; make one of them \"cpml\"",
                    ["x", "y", "z"][a]
                ),
            ));
        }
        if let Some(&high) = walls.first() {
            let pec = matches!(scene.boundaries.face(a, high), Boundary::Pec);
            out.push(ImagePlane {
                axis: a,
                position: if high { grid.n[a] as f64 * grid.d[a] } else { 0.0 },
                side: if high { -1.0 } else { 1.0 },
                pec,
                role: if pec { PlaneRole::Ground } else { PlaneRole::Symmetry },
            });
        }
    }
    Ok(out)
}

/// A box (m) snapped to grid planes, `1 <= lo < hi <= n − 1` per axis, so that the H
/// samples half a cell outside each face exist; a face of a far-field box may also lie
/// on a PEC/PMC face of the domain (`lo = 0` or `hi = n`: it is not recorded, its images
/// close the surface), `walls` says which may.
fn snap_box(
    name: &str,
    grid: &Grid,
    min: [f64; 3],
    max: [f64; 3],
    walls: [bool; 6],
) -> Result<([usize; 3], [usize; 3]), ModelError> {
    let mut lo = [0; 3];
    let mut hi = [0; 3];
    for a in 0..3 {
        let l = (min[a] / grid.d[a]).round();
        let h = (max[a] / grid.d[a]).round();
        let n = grid.n[a] as f64;
        let l_ok = l >= 1.0 || (l == 0.0 && walls[2 * a]);
        let h_ok = h <= n - 1.0 || (h == n && walls[2 * a + 1]);
        if !l_ok || !h_ok || h <= l {
            return Err(err(
                name,
                format!(
                    "its box snaps to grid planes {l} .. {h} along {}; a closed surface needs 1 <= min < max <= {} \
                     (one cell inside the domain on each side, or on a PEC/PMC face for a far field)",
                    ["x", "y", "z"][a],
                    n - 1.0
                ),
            ));
        }
        lo[a] = l as usize;
        hi[a] = h as usize;
    }
    Ok((lo, hi))
}

/// The far-field box: the scene's, or the domain inset 3 cells inside the CPML (and
/// other faces), with its face on each PEC/PMC face of the domain (an image plane).
fn farfield_box(scene: &Scene, grid: &Grid, f: &FarFieldBox) -> Result<([usize; 3], [usize; 3]), ModelError> {
    let walls = [0, 1, 2, 3, 4, 5].map(|i| is_wall(&scene.boundaries.faces[i]));
    if let Some((min, max)) = f.region {
        return snap_box(&f.name, grid, min, max, walls);
    }
    // With a plane wave: one cell outside its total-field box (the scattered field, as
    // close to the scatterer as it can be: the transform's cost scales with its area).
    if let Some(p) = scene.plane_waves.first() {
        let n = crate::scene::plane_wave_nodes(p.min, p.max, grid.d);
        let lo = n.map(|x| x[0].saturating_sub(1));
        let hi = n.map(|x| x[1] + 1);
        if (0..3).any(|a| lo[a] < 1 || hi[a] + 1 > grid.n[a]) {
            return Err(err(
                &f.name,
                "the default far-field box (one cell outside the plane wave's total-field box) does not fit the grid; give `box`",
            ));
        }
        return Ok((lo, hi));
    }
    let inset = |face: usize| match &scene.boundaries.faces[face] {
        Boundary::Cpml(p) => p.cells + 3,
        Boundary::Pec | Boundary::Pmc => 0,
        _ => 3,
    };
    let mut lo = [0; 3];
    let mut hi = [0; 3];
    for a in 0..3 {
        lo[a] = inset(2 * a);
        hi[a] = grid.n[a].saturating_sub(inset(2 * a + 1));
        if hi[a] <= lo[a] {
            return Err(err(
                &f.name,
                format!(
                    "the domain has no room for the default far-field box along {} (3 cells inside the CPML); give `box`",
                    ["x", "y", "z"][a]
                ),
            ));
        }
    }
    Ok((lo, hi))
}

/// The six faces of the box of grid planes `lo..hi` (outward normals), and their blocks.
pub fn surface(lo: [usize; 3], hi: [usize; 3]) -> (Vec<Block>, Vec<Face>) {
    surface_open(lo, hi, [false; 6])
}

/// [`surface`] without the faces `open` names (x_min, x_max, y_min, .. order).
pub fn surface_open(lo: [usize; 3], hi: [usize; 3], open: [bool; 6]) -> (Vec<Block>, Vec<Face>) {
    let mut blocks = Vec::new();
    let mut faces = Vec::new();
    for axis in 0..3 {
        for (k, (plane, sign)) in [(lo[axis], -1.0), (hi[axis], 1.0)].into_iter().enumerate() {
            if !open[2 * axis + k] {
                faces.push(face(axis, sign, plane, (lo, hi), &mut blocks));
            }
        }
    }
    (blocks, faces)
}

/// A flux plane: one face with normal +axis over the cells of `min..max` (default the
/// whole domain) along the other axes.
fn flux_plane(
    name: &str,
    grid: &Grid,
    axis: usize,
    position: f64,
    min: Option<[f64; 3]>,
    max: Option<[f64; 3]>,
) -> Result<(Vec<Block>, Vec<Face>), ModelError> {
    let n = grid.n;
    let p = (position / grid.d[axis]).round();
    if p < 1.0 || p > n[axis] as f64 - 1.0 {
        return Err(err(
            name,
            format!(
                "its plane snaps to grid plane {p} along {}; a flux plane needs 1 <= plane <= {} (H half a cell on each side)",
                ["x", "y", "z"][axis],
                n[axis] - 1
            ),
        ));
    }
    let mut lo = [0; 3];
    let mut hi = n;
    for a in (0..3).filter(|&a| a != axis) {
        if let Some(m) = min {
            lo[a] = ((m[a] / grid.d[a]).round().max(0.0) as usize).min(n[a]);
        }
        if let Some(m) = max {
            hi[a] = ((m[a] / grid.d[a]).round().max(0.0) as usize).min(n[a]);
        }
        if hi[a] <= lo[a] {
            return Err(err(
                name,
                format!("its plane covers no cells along {}", ["x", "y", "z"][a]),
            ));
        }
    }
    let mut blocks = Vec::new();
    let f = face(axis, 1.0, p as usize, (lo, hi), &mut blocks);
    Ok((blocks, vec![f]))
}

/// One face (see [`Face`]); pushes its six blocks.
pub(crate) fn face(
    axis: usize,
    sign: f64,
    plane: usize,
    cells: ([usize; 3], [usize; 3]),
    blocks: &mut Vec<Block>,
) -> Face {
    let t1 = (axis + 1) % 3;
    let t2 = (axis + 2) % 3;
    let (clo, chi) = cells;
    let first = blocks.len();
    // A block at normal index `at` with `extra` more samples along t1 / t2 (the
    // integer-positioned samples include both ends of the cell range).
    let mut push = |c: usize, at: usize, extra1: usize, extra2: usize| {
        let mut lo = [0; 3];
        let mut hi = [0; 3];
        lo[axis] = at;
        hi[axis] = at + 1;
        lo[t1] = clo[t1];
        hi[t1] = chi[t1] + extra1;
        lo[t2] = clo[t2];
        hi[t2] = chi[t2] + extra2;
        blocks.push(Block {
            component: Component::ALL[c],
            lo,
            hi,
        });
    };
    // E_t1 at (p, u+½, v): v integer → one more along t2. E_t2 at (p, u, v+½).
    push(t1, plane, 0, 1);
    push(t2, plane, 1, 0);
    // H_t1 at (p∓½, u, v+½): u integer. H_t2 at (p∓½, u+½, v): v integer.
    push(3 + t1, plane - 1, 1, 0);
    push(3 + t1, plane, 1, 0);
    push(3 + t2, plane - 1, 0, 1);
    push(3 + t2, plane, 0, 1);
    Face {
        axis,
        sign,
        plane,
        cells,
        first,
    }
}

#[cfg(test)]
mod tests;

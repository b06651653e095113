//! Material painting, edge/face averaging and the coefficient tables.
//!
//! Cells take the material of the last object whose shape contains the cell centre.
//! Field samples then get an *effective* material from the cells around them:
//!
//! * E samples sit on cell edges shared by 4 cells: PEC if any of them is PEC (but
//!   next to a PEC sphere or cylinder only when the edge's midpoint lies inside it: the
//!   "any cell" rule makes a staircased curved conductor scatter like one about 0.4
//!   cells larger, +0.5 dB of a 20-cell sphere's RCS; the midpoint rule leaves +0.2 dB,
//!   `rcs-pec-sphere`; the other cells around such an edge are averaged as below),
//!   else the arithmetic mean of ε and of σ (the tangential-field average of
//!   Taflove & Hagness §3.12; it is exact for a tangential E at a planar interface).
//!   For dispersive cells the mean is of ε(ω): ε∞ and σ averaged, and every pole of a
//!   cell's material kept with its strength scaled by the fraction of the 4 cells that
//!   hold it ([`weighted`]): a sum of passive poles, so the edge stays passive and stable.
//! * H samples sit on face centres shared by 2 cells along the H component's own
//!   axis: the harmonic mean of μ (the normal component of B is continuous there).
//!
//! * E edges that the surface of an averaged object (`subpixel`: spheres and cylinders of
//!   a non-dispersive dielectric by default) cuts take the anisotropic average of
//!   [`super::subpixel`] instead (fill fraction and surface normal from the shape).
//!
//! Each distinct effective material becomes one row of a coefficient table; the
//! grid stores only a u16 index per sample (gprMax's material-ID scheme).
use super::stl::{centres, voxelize};
use super::subpixel::{self, EdgeMaterial};
use super::{dispersion, Grid, ModelError};
use crate::scene::{MaterialKind, Pole, Scene, Shape};
use crate::{Component, C0, EPS0, MU0};
use rayon::prelude::*;
use std::collections::HashMap;

/// Row flag: the row holds more than one material index.
pub const MIXED: u32 = u32::MAX;

/// Update coefficients, shared by every sample with the same effective material.
///
/// E update: `E ← ca·E + cb·(∇×H)`; H update: `H ← H − db·(∇×E)` (no magnetic loss),
/// with the spatial differences divided by the cell size in the kernels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CoefTable {
    /// `[ca, cb]` per E material.
    pub e: Vec<[f32; 2]>,
    /// `db` per H material.
    pub h: Vec<f32>,
    /// Effective `(eps_r, sigma)` behind each E row (None = PEC), for reports and sources.
    pub e_props: Vec<Option<(f64, f64)>>,
    /// Effective `mu_r` behind each H row.
    pub h_props: Vec<f64>,
    /// Dispersion poles of each E row (strengths already weighted by the edge average),
    /// empty for a non-dispersive row; `e_props` then holds ε∞ and σ. The row's ca/cb
    /// include the poles' implicit parts ([`dispersion::e_coefs`]); the `dispersive`
    /// pass does the rest.
    pub e_poles: Vec<Vec<Pole>>,
}

/// Key of an E row: ε∞, σ (bits), PEC, and the poles' parameters (bits).
type EKey = (u64, u64, bool, Vec<u64>);

/// `pole` with its strength scaled by `w` (the fraction of an edge's cells that hold it):
/// Δε·w (Debye, Lorentz), ωp²·w (Drude), so ε_edge(ω) is the mean of the cells' ε(ω).
pub fn weighted(pole: &Pole, w: f64) -> Pole {
    match *pole {
        Pole::Debye { delta_eps, tau } => Pole::Debye {
            delta_eps: delta_eps * w,
            tau,
        },
        Pole::Drude {
            plasma_frequency,
            damping,
        } => Pole::Drude {
            plasma_frequency: plasma_frequency * w.sqrt(),
            damping,
        },
        Pole::Lorentz {
            delta_eps,
            frequency,
            damping,
        } => Pole::Lorentz {
            delta_eps: delta_eps * w,
            frequency,
            damping,
        },
    }
}

fn pole_bits(p: &Pole, out: &mut Vec<u64>) {
    let (t, a, b, c) = match *p {
        Pole::Debye { delta_eps, tau } => (0, delta_eps, tau, 0.0),
        Pole::Drude {
            plasma_frequency,
            damping,
        } => (1, plasma_frequency, damping, 0.0),
        Pole::Lorentz {
            delta_eps,
            frequency,
            damping,
        } => (2, delta_eps, frequency, damping),
    };
    out.extend([t, a.to_bits(), b.to_bits(), c.to_bits()]);
}

impl CoefTable {
    fn e_index(&mut self, props: Option<(f64, f64)>, poles: &[Pole], dt: f64, cache: &mut HashMap<EKey, u16>) -> u16 {
        let mut key = match props {
            Some((e, s)) => (e.to_bits(), s.to_bits(), false, Vec::new()),
            None => (0, 0, true, Vec::new()),
        };
        for p in poles {
            pole_bits(p, &mut key.3);
        }
        *cache.entry(key).or_insert_with(|| {
            let (ca, cb) = match props {
                None => (0.0, 0.0),
                Some((eps_r, sigma)) if !poles.is_empty() => dispersion::e_coefs(eps_r, sigma, poles, dt),
                Some((eps_r, sigma)) => {
                    let eps = EPS0 * eps_r;
                    let loss = sigma * dt / (2.0 * eps);
                    ((1.0 - loss) / (1.0 + loss), (dt / eps) / (1.0 + loss))
                }
            };
            self.e.push([ca as f32, cb as f32]);
            self.e_props.push(props);
            self.e_poles
                .push(if props.is_some() { poles.to_vec() } else { Vec::new() });
            (self.e.len() - 1) as u16
        })
    }

    /// The row of `props` (an existing one if equal, else a new one): lumped elements and
    /// ports add their loads to the averaged material of their edges.
    pub(super) fn e_row(&mut self, props: Option<(f64, f64)>, dt: f64) -> u16 {
        if let Some(i) = (0..self.e.len()).position(|i| self.e_props[i] == props && self.e_poles[i].is_empty()) {
            return i as u16;
        }
        let mut cache = HashMap::new();
        self.e_index(props, &[], dt, &mut cache)
    }

    fn h_index(&mut self, mu_r: f64, dt: f64, cache: &mut HashMap<u64, u16>) -> u16 {
        *cache.entry(mu_r.to_bits()).or_insert_with(|| {
            self.h.push((dt / (MU0 * mu_r)) as f32);
            self.h_props.push(mu_r);
            (self.h.len() - 1) as u16
        })
    }
}

/// An averaged material waiting for its table index.
enum Mixed {
    /// (eps_r, sigma), or None for PEC, and the weighted poles.
    E(Option<(f64, f64)>, Vec<Pole>),
    /// mu_r.
    H(f64),
}

/// Per-cell material of the scene: index into `scene.materials`, shape `n` (cells), C
/// order. The discretised geometry before edge/face averaging (what `fdtd plot --geometry`
/// shows): a cell takes the last object containing its centre.
pub fn paint(scene: &Scene, grid: &Grid) -> Vec<u16> {
    let [nx, ny, nz] = grid.n;
    let d = grid.d;
    let mut cells = vec![0u16; nx * ny * nz];
    for obj in &scene.objects {
        let (lo, hi) = obj.shape.bounds();
        // Cell index range whose centres can be inside the bounding box.
        let range = |a: usize| {
            let first = ((lo[a] / d[a] - 0.5).ceil().max(0.0)) as usize;
            let last = ((hi[a] / d[a] - 0.5).floor()).min(grid.n[a] as f64 - 1.0);
            if last < 0.0 {
                (0, 0)
            } else {
                (first, last as usize + 1)
            }
        };
        let (ri, rj, rk) = (range(0), range(1), range(2));
        let m = obj.material as u16;
        if let Shape::Stl(mesh) = &obj.shape {
            // A column at a time (model/stl.rs), not a point at a time.
            let (xs, ys, zs) = (centres(grid, 0, ri), centres(grid, 1, rj), centres(grid, 2, rk));
            let inside = voxelize(mesh, &xs, &ys, &zs);
            let (nyr, nzr) = (ys.len(), zs.len());
            cells
                .par_chunks_mut(ny * nz)
                .enumerate()
                .filter(|(i, _)| *i >= ri.0 && *i < ri.1)
                .for_each(|(i, slab)| {
                    for j in 0..nyr {
                        let row = &inside[((i - ri.0) * nyr + j) * nzr..][..nzr];
                        for (k, _) in row.iter().enumerate().filter(|(_, &x)| x) {
                            slab[(rj.0 + j) * nz + rk.0 + k] = m;
                        }
                    }
                });
            continue;
        }
        cells
            .par_chunks_mut(ny * nz)
            .enumerate()
            .filter(|(i, _)| *i >= ri.0 && *i < ri.1)
            .for_each(|(i, slab)| {
                for j in rj.0..rj.1 {
                    for k in rk.0..rk.1 {
                        let c = [
                            (i as f64 + 0.5) * d[0],
                            (j as f64 + 0.5) * d[1],
                            (k as f64 + 0.5) * d[2],
                        ];
                        if obj.shape.contains(c) {
                            slab[j * nz + k] = m;
                        }
                    }
                }
            });
    }
    cells
}

/// Build the coefficient table and the per-component material indices.
pub(super) fn build(scene: &Scene, grid: &Grid) -> Result<(CoefTable, [Vec<u16>; 6]), ModelError> {
    let cells = paint(scene, grid);
    let [nx, ny, nz] = grid.n;
    let dims = grid.dims();
    let dt = grid.dt;
    let cell = |i: isize, j: isize, k: isize| -> u16 {
        // Samples on the domain faces see the cells just inside (clamped);
        // the face's own boundary condition takes care of the rest.
        let i = i.clamp(0, nx as isize - 1) as usize;
        let j = j.clamp(0, ny as isize - 1) as usize;
        let k = k.clamp(0, nz as isize - 1) as usize;
        cells[(i * ny + j) * nz + k]
    };
    let props = |m: u16| &scene.materials[m as usize].kind;

    let mut table = CoefTable::default();
    let mut ecache = HashMap::new();
    let mut hcache = HashMap::new();
    // Pure materials first, so uniform regions share the same small indices.
    let mut pure_e = Vec::new();
    let mut pure_h = Vec::new();
    for m in &scene.materials {
        match m.kind {
            MaterialKind::Pec => {
                pure_e.push(table.e_index(None, &[], dt, &mut ecache));
                pure_h.push(table.h_index(1.0, dt, &mut hcache));
            }
            MaterialKind::Dielectric { eps_r, mu_r, sigma } => {
                pure_e.push(table.e_index(Some((eps_r, sigma)), &m.poles, dt, &mut ecache));
                pure_h.push(table.h_index(mu_r, dt, &mut hcache));
            }
        }
    }

    // Curved PEC objects (spheres, cylinders): an E edge next to their cells is PEC only
    // when its midpoint lies inside one (see the module doc).
    let curved_pec: Vec<&crate::scene::Shape> = scene
        .objects
        .iter()
        .filter(|o| matches!(scene.materials[o.material].kind, MaterialKind::Pec))
        .filter(|o| {
            matches!(
                o.shape,
                crate::scene::Shape::Sphere { .. } | crate::scene::Shape::Cylinder { .. }
            )
        })
        .map(|o| &o.shape)
        .collect();
    let in_curved = |p: [f64; 3]| curved_pec.iter().any(|s| s.contains(p));
    let cell_centre =
        |q: [isize; 3]| [0, 1, 2].map(|a| (q[a].clamp(0, grid.n[a] as isize - 1) as f64 + 0.5) * grid.d[a]);
    let mut mat: [Vec<u16>; 6] = std::array::from_fn(|_| vec![0u16; grid.len()]);
    let sx = grid.strides()[0];
    for comp in Component::ALL {
        let out = &mut mat[comp.index()];
        let a = comp.axis();
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        // Cells around a sample, as offsets in (a, b, c) order: an edge along `a` touches
        // cells (b-1|b, c-1|c); a face normal to `a` touches cells a-1 and a.
        let offs: &[[isize; 3]] = if comp.is_electric() {
            &[[0, 0, 0], [0, -1, 0], [0, 0, -1], [0, -1, -1]]
        } else {
            &[[0, 0, 0], [-1, 0, 0]]
        };
        let (pure_e, pure_h) = (&pure_e, &pure_h);
        // E edges under subpixel averaging (`subpixel`), sorted; none without it.
        let sub = if comp.is_electric() {
            subpixel::edges(scene, grid, a)
        } else {
            Vec::new()
        };
        let sub = &sub;
        // Parallel over x-slabs: uniform samples get their pure index at once; mixed
        // samples (only at interfaces) are collected and averaged serially below.
        let mixed: Vec<Vec<(usize, Mixed)>> = out
            .par_chunks_mut(sx)
            .enumerate()
            .map(|(i, slab)| {
                let mut list = Vec::new();
                // This slab's averaged edges, met in order.
                let first = sub.partition_point(|e| e.0 < i * sx);
                let mut sub = sub[first..].iter().take_while(|e| e.0 < (i + 1) * sx).peekable();
                for j in 0..dims[1] {
                    for k in 0..dims[2] {
                        let local = j * dims[2] + k;
                        if let Some(&(_, m)) = sub.next_if(|e| e.0 == i * sx + local) {
                            match m {
                                EdgeMaterial::Pure(m) => slab[local] = pure_e[m as usize],
                                EdgeMaterial::Averaged(fill) => {
                                    let prop = |m: u16| match *props(m) {
                                        MaterialKind::Dielectric { eps_r, sigma, .. } => (eps_r, sigma),
                                        MaterialKind::Pec => unreachable!("subpixel averages dielectrics only"),
                                    };
                                    let p = fill.props(prop(fill.inside), prop(fill.outside));
                                    list.push((i * sx + local, Mixed::E(Some(p), Vec::new())));
                                }
                            }
                            continue;
                        }
                        let p = [i as isize, j as isize, k as isize];
                        let mut around = [0u16; 4];
                        let mut at = [[0isize; 3]; 4];
                        for (n, o) in offs.iter().enumerate() {
                            let mut q = p;
                            q[a] += o[0];
                            q[b] += o[1];
                            q[c] += o[2];
                            around[n] = cell(q[0], q[1], q[2]);
                            at[n] = q;
                        }
                        let around = &around[..offs.len()];
                        if around.iter().all(|&m| m == around[0]) {
                            slab[local] = if comp.is_electric() {
                                pure_e[around[0] as usize]
                            } else {
                                pure_h[around[0] as usize]
                            };
                        } else if comp.is_electric() {
                            let mut pec = false;
                            let (mut eps, mut sig) = (0.0, 0.0);
                            let mut n_diel = 0usize;
                            // PEC cells that only a curved PEC object explains.
                            let mut curved_only = true;
                            for (q, &m) in around.iter().enumerate() {
                                match *props(m) {
                                    MaterialKind::Pec => {
                                        pec = true;
                                        curved_only &= !curved_pec.is_empty() && in_curved(cell_centre(at[q]));
                                    }
                                    MaterialKind::Dielectric { eps_r, sigma, .. } => {
                                        eps += eps_r;
                                        sig += sigma;
                                        n_diel += 1;
                                    }
                                }
                            }
                            let mut n = around.len() as f64;
                            if pec && curved_only && n_diel > 0 {
                                // The edge's midpoint decides (an "any PEC cell" rule
                                // grows a curved conductor by about 0.4 cells).
                                let mut mid = [0.0; 3];
                                for (ax, m) in mid.iter_mut().enumerate() {
                                    let half = if ax == a { 0.5 } else { 0.0 };
                                    *m = (p[ax] as f64 + half) * grid.d[ax];
                                }
                                if !in_curved(mid) {
                                    pec = false;
                                    n = n_diel as f64;
                                }
                            }
                            let p = if pec { None } else { Some((eps / n, sig / n)) };
                            // Each dispersive material's poles once, weighted by its cells.
                            let mut poles = Vec::new();
                            if !pec {
                                for (q, &m) in around.iter().enumerate() {
                                    if around[..q].contains(&m) || matches!(props(m), MaterialKind::Pec) {
                                        continue;
                                    }
                                    let w = around.iter().filter(|&&o| o == m).count() as f64 / n;
                                    let mat = &scene.materials[m as usize];
                                    poles.extend(mat.poles.iter().map(|p| weighted(p, w)));
                                }
                            }
                            list.push((i * sx + local, Mixed::E(p, poles)));
                        } else {
                            let inv: f64 = around
                                .iter()
                                .map(|&m| match *props(m) {
                                    MaterialKind::Pec => 1.0,
                                    MaterialKind::Dielectric { mu_r, .. } => 1.0 / mu_r,
                                })
                                .sum();
                            list.push((i * sx + local, Mixed::H(around.len() as f64 / inv)));
                        }
                    }
                }
                list
            })
            .collect();
        for (flat, mx) in mixed.into_iter().flatten() {
            out[flat] = match mx {
                Mixed::E(p, poles) => table.e_index(p, &poles, dt, &mut ecache),
                Mixed::H(mu) => table.h_index(mu, dt, &mut hcache),
            };
        }
        if table.e.len() > u16::MAX as usize || table.h.len() > u16::MAX as usize {
            return Err(ModelError::TooManyMaterials(table.e.len().max(table.h.len())));
        }
    }
    // Padding samples (half-integer positions past the last cell) never get updated;
    // they keep whatever index they got, which is harmless.
    Ok((table, mat))
}

/// Uniform-row flags for one component (see [`super::Model::rows`]).
pub(super) fn row_flags(mat: &[u16], grid: &Grid) -> Vec<u32> {
    let nz1 = grid.dims()[2];
    mat.par_chunks(nz1)
        .map(|row| {
            if row.iter().all(|&m| m == row[0]) {
                row[0] as u32
            } else {
                MIXED
            }
        })
        .collect()
}

/// (max source frequency, min cells per wavelength there) for the resolution warning.
pub(super) fn resolution(scene: &Scene, grid: &Grid) -> Option<(f64, f64)> {
    let fmax = scene
        .sources
        .iter()
        .map(|s| &s.waveform)
        .chain(scene.plane_waves.iter().map(|p| &p.waveform))
        .chain(scene.ports.iter().filter_map(|p| p.waveform.as_ref()))
        .map(|w| w.max_frequency())
        .fold(0.0, f64::max);
    if fmax <= 0.0 {
        return None;
    }
    // A dispersive material's index is |√(ε(ω)·μ_r)| at fmax (its poles raise it below
    // their resonances, so ε∞ alone would overstate the resolution).
    let nmax = scene
        .materials
        .iter()
        .map(|m| match m.kind {
            MaterialKind::Pec => 1.0,
            MaterialKind::Dielectric { eps_r, mu_r, .. } if m.poles.is_empty() => (eps_r * mu_r).sqrt(),
            MaterialKind::Dielectric { mu_r, .. } => {
                let (re, im) = m.eps_at(std::f64::consts::TAU * fmax).unwrap_or((1.0, 0.0));
                (re.hypot(im) * mu_r).sqrt()
            }
        })
        .fold(1.0, f64::max);
    let lambda = C0 / (fmax * nmax);
    let dmax = grid.d.iter().cloned().fold(0.0, f64::max);
    Some((fmax, lambda / dmax))
}

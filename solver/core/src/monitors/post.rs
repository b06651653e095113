//! After the run: a monitor's accumulated state → phasors → results ([`MonitorResult`])
//! and closed surfaces ([`Surface`]) for the far field.
//!
//! **Surfaces.** Each face cell (u, v) of a face on grid plane p (normal along `axis`,
//! t1 = axis + 1, t2 = axis + 2) gets one [`SurfaceSample`] at its centre (p, u+½, v+½)
//! with the tangential phasors interpolated there from the Yee positions:
//!
//! ```text
//! E_t1 = ½ (E_t1[p, u, v] + E_t1[p, u, v+1])               (E_t1 lives at (p, u+½, v))
//! E_t2 = ½ (E_t2[p, u, v] + E_t2[p, u+1, v])               (E_t2 lives at (p, u, v+½))
//! H_t1 = ¼ Σ_{s = p−½, p+½} (H_t1[s, u, v] + H_t1[s, u+1, v])   (H_t1 at (p±½, u, v+½))
//! H_t2 = ¼ Σ_{s = p−½, p+½} (H_t2[s, u, v] + H_t2[s, u, v+1])   (H_t2 at (p±½, u+½, v))
//! ```
//!
//! (second-order accurate at the centre; each value carries its own sample time, so E
//! and H are consistent phasors). The normal components are left zero: the equivalent
//! currents n̂×H and −n̂×E use only the tangential ones. The flux through the surface is
//! ½ Re Σ (E × H*)·n̂ · area over its samples ([`flux`]).
use super::{Block, Face, Kind, Monitor};
use crate::farfield::{Surface, SurfaceSample};
use crate::model::Grid;
use crate::results::MonitorResult;
use num_complex::Complex64;

/// Phasors of every block of `m`, each `[freq][sample]` (the block's C order), from its
/// state arrays `re`, `im` (`[freq][record]`): (re + j·im)·every·dt.
pub fn phasors(m: &Monitor, dt: f64, re: &[f32], im: &[f32]) -> Vec<Vec<Complex64>> {
    let nrec = m.records();
    let scale = m.every as f64 * dt;
    let mut out = Vec::with_capacity(m.blocks.len());
    let mut first = 0;
    for b in &m.blocks {
        let len = b.len();
        let mut v = Vec::with_capacity(len * m.freqs.len());
        for f in 0..m.freqs.len() {
            let at = f * nrec + first;
            v.extend(
                re[at..at + len]
                    .iter()
                    .zip(&im[at..at + len])
                    .map(|(&r, &i)| Complex64::new(r as f64, i as f64) * scale),
            );
        }
        out.push(v);
        first += len;
    }
    out
}

/// The closed (or open, for a flux plane) surface of `m` at each of its frequencies.
pub fn surfaces(m: &Monitor, grid: &Grid, ph: &[Vec<Complex64>]) -> Vec<Surface> {
    let images = match &m.kind {
        Kind::FarField { images, .. } => images.clone(),
        _ => Vec::new(),
    };
    (0..m.freqs.len())
        .map(|f| Surface {
            freq: m.freqs[f],
            eps_r: 1.0,
            mu_r: 1.0,
            images: images.clone(),
            samples: m
                .faces
                .iter()
                .flat_map(|face| face_samples(m, grid, face, ph, f))
                .collect(),
        })
        .collect()
}

fn face_samples(m: &Monitor, grid: &Grid, face: &Face, ph: &[Vec<Complex64>], f: usize) -> Vec<SurfaceSample> {
    let (axis, p) = (face.axis, face.plane);
    let t1 = (axis + 1) % 3;
    let t2 = (axis + 2) % 3;
    let (lo, hi) = face.cells;
    let d = grid.d;
    let area = d[t1] * d[t2];
    let mut normal = [0.0; 3];
    normal[axis] = face.sign;
    // Phasor of block `k` (0..6 of the face) at (normal index s, u, v).
    let get = |k: usize, s: usize, u: usize, v: usize| -> Complex64 {
        let b: &Block = &m.blocks[face.first + k];
        let mut at = [0; 3];
        at[axis] = s;
        at[t1] = u;
        at[t2] = v;
        ph[face.first + k][f * b.len() + b.at(at)]
    };
    let mut out = Vec::with_capacity((hi[t1] - lo[t1]) * (hi[t2] - lo[t2]));
    for u in lo[t1]..hi[t1] {
        for v in lo[t2]..hi[t2] {
            let et1 = 0.5 * (get(0, p, u, v) + get(0, p, u, v + 1));
            let et2 = 0.5 * (get(1, p, u, v) + get(1, p, u + 1, v));
            let ht1 = 0.25 * (get(2, p - 1, u, v) + get(2, p - 1, u + 1, v) + get(3, p, u, v) + get(3, p, u + 1, v));
            let ht2 = 0.25 * (get(4, p - 1, u, v) + get(4, p - 1, u, v + 1) + get(5, p, u, v) + get(5, p, u, v + 1));
            let mut pos = [0.0; 3];
            pos[axis] = p as f64 * d[axis];
            pos[t1] = (u as f64 + 0.5) * d[t1];
            pos[t2] = (v as f64 + 0.5) * d[t2];
            let zero = Complex64::new(0.0, 0.0);
            let mut e = [zero; 3];
            let mut h = [zero; 3];
            e[t1] = et1;
            e[t2] = et2;
            h[t1] = ht1;
            h[t2] = ht2;
            out.push(SurfaceSample {
                pos,
                area,
                normal,
                e,
                h,
            });
        }
    }
    out
}

/// Net power through a surface: ½ Re Σ (E × H*)·n̂ · area.
pub fn flux(s: &Surface) -> f64 {
    s.samples
        .iter()
        .map(|x| {
            let (e, h) = (&x.e, &x.h);
            let c = [
                e[1] * h[2].conj() - e[2] * h[1].conj(),
                e[2] * h[0].conj() - e[0] * h[2].conj(),
                e[0] * h[1].conj() - e[1] * h[0].conj(),
            ];
            0.5 * (c[0].re * x.normal[0] + c[1].re * x.normal[1] + c[2].re * x.normal[2]) * x.area
        })
        .sum()
}

/// A DFT or flux monitor's result (None for a far-field box, whose surfaces go to the
/// far-field transform), and its surfaces (empty for a DFT monitor).
pub fn result(m: &Monitor, grid: &Grid, re: &[f32], im: &[f32]) -> (Option<MonitorResult>, Vec<Surface>) {
    let ph = phasors(m, grid.dt, re, im);
    let surf = if m.faces.is_empty() {
        Vec::new()
    } else {
        surfaces(m, grid, &ph)
    };
    let r = match m.kind {
        Kind::Dft => Some(MonitorResult {
            name: m.name.clone(),
            kind: "dft".into(),
            freq: m.freqs.clone(),
            origin: m.blocks.iter().map(|b| b.component.position(b.lo, grid.d)).collect(),
            spacing: grid.d,
            fields: m
                .blocks
                .iter()
                .zip(ph)
                .map(|(b, v)| (b.component.name().to_string(), b.dims(), v))
                .collect(),
            ..Default::default()
        }),
        Kind::Flux => Some(MonitorResult {
            name: m.name.clone(),
            kind: "flux".into(),
            freq: m.freqs.clone(),
            flux: surf.iter().map(flux).collect(),
            ..Default::default()
        }),
        Kind::FarField { .. } | Kind::CrossSection { .. } => None,
    };
    (r, surf)
}

//! What a plane wave lights: cross sections, the radar cross section's normalisation and
//! flux planes normalised to the incident power, from one run (no run without the
//! scatterer).
//!
//! **The incident field.** The TF/SF line ([`crate::passes::tfsf`]) is the incident field
//! on every sample of the grid (a sample at doubled position `q` reads line index
//! `m·q − l_off`). After the run it is stepped again on the host with the same f32
//! operations and transformed like the monitors (their decimation and fixed-point
//! phases), so the incident phasors are those of the very field the grid was driven with.
//!
//! **Exact discrete flux.** Phasors taken at each sample's own time obey the discrete
//! Maxwell equations exactly (jω̃εE = ∇×H, −jω̃μH = ∇×E with ω̃ = 2 sin(ωΔt/2)/Δt, a real
//! number). Summing E*·(∇×H) − H·(∇×E*) over the E samples of a closed box (faces
//! included) and the H samples strictly inside it, by parts, leaves only pairs of a
//! tangential E on a face and the H half a cell *outside* it at the same transverse
//! position (E_t1 with H_t2, E_t2 with H_t1). So the flux
//! `½ Re Σ (E_t1·H_t2* − E_t2·H_t1*)·sign·ΔA` over a box's faces is exactly the power the
//! fields in the closed box absorb (0 for lossless contents, up to rounding), with no
//! interpolation. Here:
//!
//! * scattered power P_sca: that flux of the scattered field on the box outside the
//!   total-field box (in vacuum it is the same on any enclosing box);
//! * absorbed power P_abs: minus that flux of the total field on the box inside it;
//! * extinction P_ext = −(interference flux of incident and scattered) on the outer box,
//!   which equals P_sca + P_abs when the TF/SF source is consistent: the total field
//!   (incident + scattered outside the box) obeys the homogeneous equations everywhere.
//!   It is computed on its own, so `σ_ext = σ_sca + σ_abs` is a check, not a definition;
//! * the incident intensity I = |S| with S_a that flux of the incident field through one
//!   cell face normal to each axis (a plane wave gives the same value on every cell).
//!
//! σ = P / I (m²). The RCS is 4π·U/I with U the far field's radiation intensity (W/sr).
use crate::model::Model;
use crate::monitors::{Block, Face, Kind, Monitor};
use crate::pass::due;
use crate::passes::dft::{angle, fixed, phases};
use crate::passes::tfsf::PlaneWavePass;
use crate::results::{CrossSectionResult, IncidentSpectrum, RunResults};
use crate::Component;
use num_complex::Complex64;
use rayon::prelude::*;

/// The incident field's phasors on the whole line of one plane wave, at some frequencies.
pub struct Incident {
    pub freqs: Vec<f64>,
    m: [i64; 3],
    l_off: i64,
    len: usize,
    /// `[freq][component 0..6][l]`, scaled like the monitors' phasors (· every·dt).
    ph: Vec<Complex64>,
}

impl Incident {
    /// Run plane wave `wave`'s line for `steps` steps on the host and transform it at
    /// `freqs`, accumulating after every `every`-th step (as a monitor with that
    /// decimation does).
    pub fn new(model: &Model, wave: usize, freqs: &[f64], every: usize, steps: usize) -> Incident {
        let pass = PlaneWavePass::new(model, wave);
        let w = pass.model();
        let (len, dt) = (w.len, model.grid.dt);
        let inc: Vec<u32> = freqs.iter().map(|f| fixed(f * dt, 32)).collect();
        let half: Vec<u32> = freqs.iter().map(|f| fixed(f * dt, 31)).collect();
        let (mut e, mut h) = (vec![0f32; 3 * len], vec![0f32; 3 * len]);
        let mut values = vec![0f32; model.sources.len()];
        let mut ph = vec![Complex64::new(0.0, 0.0); freqs.len() * 6 * len];
        let every = every.max(1);
        for n in 0..steps {
            for l in 0..w.block {
                values[w.drive + l] = model.sources[w.drive + l].value(n, dt) as f32;
            }
            pass.line_step(&mut e, &mut h, false, &values);
            pass.line_step(&mut e, &mut h, true, &values);
            if !due(every, n) {
                continue;
            }
            ph.par_chunks_mut(6 * len).enumerate().for_each(|(f, row)| {
                let (pe, phh) = phases(inc[f], half[f], n);
                let (ae, ah) = (angle(pe) as f64, angle(phh) as f64);
                let (ce, se) = (ae.cos(), ae.sin());
                let (ch, sh) = (ah.cos(), ah.sin());
                for (i, x) in row.iter_mut().enumerate() {
                    let (c, l) = (i / len, i % len);
                    let (v, co, si) = match c < 3 {
                        true => (e[c * len + l] as f64, ce, se),
                        false => (h[(c - 3) * len + l] as f64, ch, sh),
                    };
                    *x += Complex64::new(v * co, -v * si);
                }
            });
        }
        let scale = every as f64 * dt;
        ph.iter_mut().for_each(|x| *x *= scale);
        Incident {
            freqs: freqs.to_vec(),
            m: w.m.map(|x| x as i64),
            l_off: w.l_off,
            len,
            ph,
        }
    }

    /// The incident phasor of component `c` (0..6) at sample `at`, frequency index `f`
    /// (zero off the line).
    pub fn at(&self, c: usize, at: [usize; 3], f: usize) -> Complex64 {
        let s = Component::ALL[c].stagger();
        let big_l: i64 = (0..3).map(|a| self.m[a] * (2 * at[a] as i64 + s[a] as i64)).sum();
        let l = big_l - self.l_off;
        if l < 0 || l as usize >= self.len {
            return Complex64::new(0.0, 0.0);
        }
        self.ph[(f * 6 + c) * self.len + l as usize]
    }

    /// The incident Poynting vector's components S_a (the exact flux through one cell
    /// face normal to each axis, per unit area) at frequency index `f`, sampled at `at`
    /// (a node inside the total-field box).
    pub fn poynting(&self, at: [usize; 3], f: usize) -> [f64; 3] {
        [0, 1, 2].map(|axis| {
            let (t1, t2) = ((axis + 1) % 3, (axis + 2) % 3);
            // E_t1 (p, u+½, v) pairs with H_t2 (p+½, u+½, v), E_t2 (p, u, v+½) with
            // H_t1 (p+½, u, v+½): all four have the sample index `at`.
            let e1 = self.at(t1, at, f);
            let e2 = self.at(t2, at, f);
            let h1 = self.at(3 + t1, at, f);
            let h2 = self.at(3 + t2, at, f);
            0.5 * (e1 * h2.conj() - e2 * h1.conj()).re
        })
    }

    /// The incident intensity |S| at frequency index `f` (transform units, W/m²·s²).
    pub fn intensity(&self, at: [usize; 3], f: usize) -> f64 {
        let s = self.poynting(at, f);
        (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]).sqrt()
    }
}

/// The exact flux out of the faces of monitor `m` at frequency index `f` of the field
/// `field(block, sample)` (a block of `m`, a sample of it).
pub fn exact_flux(m: &Monitor, d: [f64; 3], field: &dyn Fn(usize, [usize; 3]) -> Complex64) -> f64 {
    m.faces.iter().map(|face| face_flux(m, face, d, field)).sum()
}

fn face_flux(m: &Monitor, face: &Face, d: [f64; 3], field: &dyn Fn(usize, [usize; 3]) -> Complex64) -> f64 {
    let (axis, p) = (face.axis, face.plane);
    let (t1, t2) = ((axis + 1) % 3, (axis + 2) % 3);
    // Blocks: E_t1, E_t2, H_t1 (p−½), H_t1 (p+½), H_t2 (p−½), H_t2 (p+½).
    let (h1k, h2k, hp) = if face.sign > 0.0 { (3, 5, p) } else { (2, 4, p - 1) };
    let mut sum = 0.0;
    let pairs: [(usize, usize, f64); 2] = [(0, h2k, 1.0), (1, h1k, -1.0)];
    for (ek, hk, sign) in pairs {
        let b: &Block = &m.blocks[face.first + ek];
        for u in b.lo[t1]..b.hi[t1] {
            for v in b.lo[t2]..b.hi[t2] {
                let mut at = [0; 3];
                at[axis] = p;
                at[t1] = u;
                at[t2] = v;
                let mut hat = at;
                hat[axis] = hp;
                let e = field(face.first + ek, at);
                let h = field(face.first + hk, hat);
                sum += sign * (e * h.conj()).re;
            }
        }
    }
    0.5 * face.sign * sum * d[t1] * d[t2]
}

/// A node near the middle of plane wave `wave`'s total-field box (where its line is
/// defined for every component).
pub fn centre(model: &Model, wave: usize) -> [usize; 3] {
    let w = &model.plane_waves[wave];
    [0, 1, 2].map(|a| (w.nodes[a][0] + w.nodes[a][1]) / 2)
}

/// The cross sections of the model's `[[cross_sections]]` from their two monitors'
/// phasors (`phasors[i]`: the phasors of `model.monitors[i]` as [`crate::monitors::post::phasors`]
/// gives them; empty for other monitors), after `steps` steps.
pub fn cross_sections(model: &Model, phasors: &[Vec<Vec<Complex64>>], steps: usize) -> Vec<CrossSectionResult> {
    let mut out = Vec::new();
    for (si, sm) in model.monitors.iter().enumerate() {
        let Kind::CrossSection {
            ref section,
            wave,
            outer: true,
        } = sm.kind
        else {
            continue;
        };
        let partner = model
            .monitors
            .iter()
            .position(|m| matches!(&m.kind, Kind::CrossSection { section: s, outer: false, .. } if s == section));
        let Some(ti) = partner else { continue };
        let tm = &model.monitors[ti];
        let inc = Incident::new(model, wave, &sm.freqs, sm.every, steps);
        let at = centre(model, wave);
        let d = model.grid.d;
        let mut r = CrossSectionResult {
            name: section.clone(),
            wave: model.plane_waves[wave].name.clone(),
            freq: sm.freqs.clone(),
            ..Default::default()
        };
        for f in 0..sm.freqs.len() {
            let ph = |mi: usize, b: usize, at: [usize; 3]| -> Complex64 {
                let blk = &model.monitors[mi].blocks[b];
                phasors[mi][b][f * blk.len() + blk.at(at)]
            };
            let incident = |b: usize, at: [usize; 3]| inc.at(sm.blocks[b].component.index(), at, f);
            let sca = exact_flux(sm, d, &|b, at| ph(si, b, at));
            let both = exact_flux(sm, d, &|b, at| ph(si, b, at) + incident(b, at));
            let inc_only = exact_flux(sm, d, &incident);
            let abs = -exact_flux(tm, d, &|b, at| ph(ti, b, at));
            let i0 = inc.intensity(at, f);
            let ext = -(both - sca - inc_only);
            let per = |p: f64| if i0 > 0.0 { p / i0 } else { f64::NAN };
            r.scattering.push(per(sca));
            r.absorption.push(per(abs));
            r.extinction.push(per(ext));
            r.incident_intensity.push(i0);
        }
        out.push(r);
    }
    out
}

/// In a scene with exactly one plane wave: its incident intensity at the flux monitors'
/// and far fields' frequencies (`r.incident`), and each flux plane's `incident_power` and
/// `normalized` flux.
pub fn normalise_to_incident(model: &Model, r: &mut RunResults, steps: usize) {
    if model.plane_waves.len() != 1 {
        return;
    }
    let planes: Vec<&Monitor> = model
        .monitors
        .iter()
        .filter(|m| m.kind == Kind::Flux && m.faces.len() == 1)
        .collect();
    let far: Vec<&Monitor> = model
        .monitors
        .iter()
        .filter(|m| matches!(m.kind, Kind::FarField { .. }))
        .collect();
    let mut freqs: Vec<f64> = planes
        .iter()
        .chain(&far)
        .flat_map(|m| m.freqs.iter().copied())
        .collect();
    freqs.sort_by(f64::total_cmp);
    freqs.dedup();
    if freqs.is_empty() {
        return;
    }
    let every = planes.iter().chain(&far).map(|m| m.every).min().unwrap_or(1);
    let inc = Incident::new(model, 0, &freqs, every, steps);
    let at = centre(model, 0);
    let d = model.grid.d;
    let k = |f: f64| freqs.iter().position(|&x| x == f);
    for m in planes {
        let Some(res) = r.monitors.iter_mut().find(|x| x.name == m.name) else {
            continue;
        };
        let face = &m.faces[0];
        let (t1, t2) = ((face.axis + 1) % 3, (face.axis + 2) % 3);
        let area =
            (face.cells.1[t1] - face.cells.0[t1]) as f64 * d[t1] * (face.cells.1[t2] - face.cells.0[t2]) as f64 * d[t2];
        res.incident_power = m
            .freqs
            .iter()
            .map(|&f| k(f).map_or(f64::NAN, |i| inc.poynting(at, i)[face.axis].abs() * area))
            .collect();
        res.normalized = res
            .flux
            .iter()
            .zip(&res.incident_power)
            .map(|(&p, &p0)| if p0 > 0.0 { p / p0 } else { f64::NAN })
            .collect();
    }
    r.incident = Some(IncidentSpectrum {
        wave: model.plane_waves[0].name.clone(),
        k: model.plane_waves[0].k,
        intensity: (0..freqs.len()).map(|i| inc.intensity(at, i)).collect(),
        freq: freqs,
    });
}

/// The radar cross sections of the far fields of `r` (bistatic per direction, and the
/// monostatic one from the far field evaluated at −k̂), from `r.incident`.
pub fn radar_cross_sections(r: &mut RunResults) {
    let Some(inc) = &r.incident else { return };
    let four_pi = 4.0 * std::f64::consts::PI;
    let k = inc.k;
    let theta_b = (-k[2]).clamp(-1.0, 1.0).acos();
    let phi_b = (-k[1]).atan2(-k[0]).rem_euclid(std::f64::consts::TAU);
    for ff in &mut r.farfields {
        let Some(i0) = inc.at(ff.freq) else { continue };
        ff.rcs = Some(ff.intensity.iter().map(|u| four_pi * u / i0).collect());
        let surface = r
            .surfaces
            .iter()
            .filter(|rec| rec.name == ff.name)
            .flat_map(|rec| rec.surfaces.iter())
            .find(|s| s.freq == ff.freq);
        if let Some(s) = surface {
            let back = crate::farfield::compute(&ff.name, s, &[theta_b], &[phi_b], None);
            ff.monostatic = Some((theta_b, phi_b, four_pi * back.intensity[0] / i0));
        }
    }
}

//! `fdtd info`: what a result file holds, for a reader or (`--json`) a script.
use super::{exit, CliError, InfoArgs};
use fdtd::fmt::{duration, fixed, hz, lengths, point, si, sig, thousands};
use fdtd::output::read::{ProbeInfo, ResultFile, SnapshotInfo};
use fdtd::plot::antenna::band_below;
use fdtd::scene::Scene;
use fdtd::signal::{peak, Spectrum};
use serde_json::{json, Value};

/// Snapshots with more values than this (all frames together) are not scanned for their
/// peak: `info` should answer in a moment even for a run of many gigabytes.
const SCAN_LIMIT: usize = 64 << 20;

/// Snapshots of more frames than this are not scanned either (one read per frame).
const SCAN_FRAMES: usize = 4096;

/// The headline figures of one probe component.
struct ProbeFigures {
    probe: String,
    component: String,
    /// (time, value) of the largest magnitude.
    peak: Option<(f64, f32)>,
    /// Frequency of the spectrum's peak (Hz).
    spectrum_peak: Option<f64>,
}

/// The peak magnitude of one snapshot component over all frames: (frame, value).
struct SnapFigures {
    snapshot: String,
    component: String,
    peak: Option<(usize, f32)>,
    scanned: bool,
}

fn probe_figures(f: &ResultFile, p: &ProbeInfo) -> Result<Vec<ProbeFigures>, CliError> {
    let mut out = Vec::new();
    for c in &p.components {
        let (t, v) = f.probe_series(&p.name, &c.name).map_err(read_err)?;
        let pk = peak(&v).map(|(i, x)| (t[i], x));
        let dt = if t.len() > 1 { t[1] - t[0] } else { 0.0 };
        let spectrum_peak = match pk {
            Some((_, x)) if x != 0.0 => Spectrum::of(&v, dt).peak_frequency(0.0),
            _ => None,
        };
        out.push(ProbeFigures {
            probe: p.name.clone(),
            component: c.name.clone(),
            peak: pk,
            spectrum_peak,
        });
    }
    Ok(out)
}

fn snap_figures(f: &ResultFile, s: &SnapshotInfo) -> Result<Vec<SnapFigures>, CliError> {
    let mut out = Vec::new();
    for c in &s.components {
        // Saturating: the shape comes from the file, which may declare anything.
        let values = c.shape.iter().fold(c.frames, |a, &n| a.saturating_mul(n));
        let mut best: Option<(usize, f32)> = None;
        let scanned = values <= SCAN_LIMIT && c.frames <= SCAN_FRAMES;
        if scanned {
            for k in 0..c.frames {
                let frame = f.snapshot_frame(&s.name, &c.name, k).map_err(read_err)?;
                if let Some((_, x)) = peak(&frame) {
                    if best.is_none_or(|(_, b)| x.abs() > b.abs()) {
                        best = Some((k, x));
                    }
                }
            }
        }
        out.push(SnapFigures {
            snapshot: s.name.clone(),
            component: c.name.clone(),
            peak: best,
            scanned,
        });
    }
    Ok(out)
}

fn read_err(e: fdtd::output::ReadError) -> CliError {
    CliError::bad_input(e.to_string())
}

/// Whether everything recorded is exactly zero (a source too weak, too slow or missing).
fn all_zero(p: &[ProbeFigures], s: &[SnapFigures]) -> bool {
    let any = !p.is_empty() || s.iter().any(|x| x.scanned);
    any && p.iter().all(|x| x.peak.is_none_or(|(_, v)| v == 0.0))
        && s.iter()
            .filter(|x| x.scanned)
            .all(|x| x.peak.is_none_or(|(_, v)| v == 0.0))
}

/// One line per port: reference impedance, whether driven, the band, and the minimum of
/// |S| with Z there and the −10 dB band.
fn port_lines(f: &ResultFile) -> Vec<String> {
    let mut out = Vec::new();
    for p in &f.ports {
        let band = match (p.frequency.first(), p.frequency.last()) {
            (Some(a), Some(b)) => format!("{} frequencies {}–{}", p.frequency.len(), hz(*a), hz(*b)),
            _ => "no frequencies".into(),
        };
        let mut line = format!(
            "  {:<14} Z0 {} Ω, {}: {band}",
            p.name,
            sig(p.z0, 4),
            if p.driven { "driven" } else { "matched load" }
        );
        let sname = if p.driven { "S11" } else { "S" };
        let levels = p.s_db.iter().filter(|d| d.is_finite()).count();
        // Frequencies the run does not resolve are no findings (the file marks them).
        let resolved = |i: usize| p.resolved.get(i).copied().unwrap_or(true);
        if let Some((i, _)) = p
            .s_db
            .iter()
            .enumerate()
            .filter(|(i, d)| d.is_finite() && resolved(*i))
            .min_by(|a, b| a.1.total_cmp(b.1))
        {
            let z = p.z.get(i).copied().unwrap_or([f64::NAN; 2]);
            let at = p.frequency.get(i).map_or("?".into(), |f| hz(*f));
            line += &format!(
                ", min |{sname}| {} dB at {at} (Z {} {} j{} Ω)",
                fixed(p.s_db[i], 1),
                fixed(z[0], 1),
                if z[1] <= -0.05 { "−" } else { "+" },
                fixed(z[1].abs(), 1)
            );
            if let Some((_, lo, hi)) = band_below(&p.frequency, &p.s_db, -10.0) {
                line += &format!(", −10 dB band {}–{}", hz(lo), hz(hi));
            }
        }
        if levels < p.s_db.len() {
            line += &format!(
                ", |{sname}| n/a at {} of {} frequencies (S is not a number: the incident wave was zero, \
                 the drive amplitude 0 or never recorded)",
                p.s_db.len() - levels,
                p.s_db.len()
            );
        }
        let unresolved = p.resolved.iter().filter(|r| !**r).count();
        if unresolved > 0 {
            line += &format!(
                ", {unresolved} of {} frequencies not resolved by the run (left out)",
                p.resolved.len()
            );
        }
        out.push(line);
    }
    if let Some(m) = &f.s_matrix {
        let n = m.ports.len();
        // Reciprocity check a reader can trust at a glance: max |S_ij − S_ji| over the
        // resolved frequencies.
        let mut asym = 0.0f64;
        for k in 0..m.frequency.len() {
            if !m.resolved.get(k).copied().unwrap_or(true) {
                continue;
            }
            for i in 0..n {
                for j in 0..i {
                    let (a, b) = (m.get(i, j, k), m.get(j, i, k));
                    asym = asym.max((a[0] - b[0]).hypot(a[1] - b[1]));
                }
            }
        }
        out.push(format!(
            "  s-matrix       {n} × {n} at {} frequencies (every port driven in turn), max |S_ij − S_ji| {}",
            m.frequency.len(),
            sig(asym, 3)
        ));
    }
    out
}

/// Per far field, a line with its grid and one per frequency with its headline figures.
fn farfield_lines(f: &ResultFile) -> Vec<String> {
    let mut out = Vec::new();
    for ff in &f.farfields {
        out.push(format!(
            "  {:<14} {} frequencies, {} × {} directions (θ × φ)",
            ff.name,
            ff.freq.len(),
            ff.theta.len(),
            ff.phi.len()
        ));
        for (k, fr) in ff.freq.iter().enumerate() {
            let mut line = format!("    at {}:", hz(*fr));
            if let Some(p) = ff.radiated_power.get(k) {
                line += &format!(" P_rad {}", si(*p, "W"));
            }
            if let (Some(d), Some(at)) = (ff.max_directivity_dbi.get(k), ff.max_direction.get(k)) {
                line += &format!(
                    ", D_max {} dBi at (θ {}°, φ {}°)",
                    fixed(*d, 2),
                    sig(at[0], 4),
                    sig(at[1], 4)
                );
            }
            if let Some(m) = ff.monostatic_rcs_dbsm.as_ref().and_then(|m| m.get(k)) {
                line += &format!(", monostatic RCS {} dBsm", fixed(*m, 2));
            }
            if let Some(e) = ff.efficiency.as_ref().and_then(|e| e.get(k)) {
                line += &format!(", efficiency {} %", fixed(100.0 * e, 1));
            }
            out.push(line);
        }
    }
    out
}

fn opt_f(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else {
        Value::Null
    }
}

/// How long one read of a result file may take in `info` and `plot` before the process
/// ends (libhdf5 can loop on damaged files: [`fdtd::output::read::deadline`]). The
/// largest legitimate read is 512 MiB (`READ_LIMIT`), seconds even from a slow disk.
pub const READ_DEADLINE: std::time::Duration = std::time::Duration::from_secs(120);

pub fn info(a: &InfoArgs) -> Result<i32, CliError> {
    fdtd::output::read::deadline::watch(READ_DEADLINE);
    let f = ResultFile::open(&a.result).map_err(read_err)?;
    let r = &f.run;
    let scene = Scene::parse(&r.scene, &r.scene_path).ok();
    let mut probes = Vec::new();
    for p in &f.probes {
        probes.extend(probe_figures(&f, p)?);
    }
    let mut snaps = Vec::new();
    for s in &f.snapshots {
        snaps.extend(snap_figures(&f, s)?);
    }
    let zero = all_zero(&probes, &snaps);
    let cells: u64 = r.shape.iter().product();
    let mcells = r.wall_seconds.map(|w| cells as f64 * r.steps_done as f64 / w / 1e6);

    if a.json {
        let sources: Vec<Value> = scene
            .iter()
            .flat_map(|s| &s.sources)
            .map(|s| {
                json!({
                    "name": s.name, "component": s.component.name(), "position": s.position,
                    "max_frequency": s.waveform.max_frequency(),
                })
            })
            .collect();
        let probe_json: Vec<Value> = f
            .probes
            .iter()
            .map(|p| {
                let comps: Vec<Value> = p
                    .components
                    .iter()
                    .map(|c| {
                        let fig = probes.iter().find(|x| x.probe == p.name && x.component == c.name);
                        json!({
                            "component": c.name, "position": c.position.map(opt_f), "index": c.index,
                            "units": c.units, "samples": c.samples,
                            "peak": fig.and_then(|x| x.peak).map(|(_, v)| v),
                            "peak_time": fig.and_then(|x| x.peak).map(|(t, _)| t),
                            "spectrum_peak_frequency": fig.and_then(|x| x.spectrum_peak),
                        })
                    })
                    .collect();
                json!({
                    "name": p.name, "requested_position": p.requested_position.map(opt_f),
                    "every": p.every, "components": comps,
                })
            })
            .collect();
        let snap_json: Vec<Value> = f
            .snapshots
            .iter()
            .map(|s| {
                let comps: Vec<Value> = s
                    .components
                    .iter()
                    .map(|c| {
                        let fig = snaps.iter().find(|x| x.snapshot == s.name && x.component == c.name);
                        json!({
                            "component": c.name, "shape": c.shape, "frames": c.frames, "units": c.units,
                            "origin": c.origin, "spacing": c.spacing,
                            "peak": fig.and_then(|x| x.peak).map(|(_, v)| v),
                            "peak_frame": fig.and_then(|x| x.peak).map(|(k, _)| k),
                        })
                    })
                    .collect();
                json!({
                    "name": s.name, "every": s.every, "frames": s.frames,
                    "index_lo": s.index_lo, "index_hi": s.index_hi, "components": comps,
                })
            })
            .collect();
        let doc = json!({
            "file": f.path().display().to_string(),
            "fdtd_version": r.fdtd_version,
            "scene_path": r.scene_path,
            "status": r.status,
            "error": r.error,
            "steps": r.steps,
            "steps_done": r.steps_done,
            "resumes": r.resumes,
            "grid": { "cells": r.shape, "cell_size": r.d.map(opt_f), "dt": opt_f(r.dt), "courant": opt_f(r.courant) },
            "simulated_time": opt_f(r.dt * r.steps_done as f64),
            "backend": r.backend,
            "device": r.device,
            "device_detail": r.device_detail,
            "backend_selection": r.backend_selection,
            "wall_seconds": r.wall_seconds,
            "mcells_per_second": mcells,
            "sources": sources,
            "probes": probe_json,
            "snapshots": snap_json,
            "end_reason": r.end_reason,
            "decay_db": r.decay_db,
            "decayed_at_step": r.decayed_at_step,
            "ports": f.ports.iter().map(|p| {
                let band = band_below(&p.frequency, &p.s_db, -10.0);
                json!({
                    "name": p.name, "z0": opt_f(p.z0), "driven": p.driven, "frequency": p.frequency,
                    "Z": p.z.iter().map(|z| z.map(opt_f)).collect::<Vec<_>>(),
                    "S_dB": p.s_db.iter().map(|d| opt_f(*d)).collect::<Vec<_>>(),
                    "min_S_dB": band.and_then(|(i, _, _)| p.s_db.get(i).copied()).or_else(|| p.s_db.iter().copied().filter(|d| d.is_finite()).reduce(f64::min)),
                    "band_10dB": band.map(|(_, lo, hi)| [lo, hi]),
                })
            }).collect::<Vec<_>>(),
            "s_matrix": f.s_matrix.as_ref().map(|m| json!({
                "ports": m.ports, "frequency": m.frequency,
                "S": m.s.iter().map(|z| z.map(opt_f)).collect::<Vec<_>>(),
                "layout": "S[out][in][freq] flat, (re, im)",
                "resolved": m.resolved,
            })),
            "farfield": f.farfields.iter().map(|ff| json!({
                "name": ff.name, "frequency": ff.freq, "theta_points": ff.theta.len(), "phi_points": ff.phi.len(),
                "radiated_power": ff.radiated_power, "max_directivity_dBi": ff.max_directivity_dbi,
                "max_direction": ff.max_direction, "efficiency": ff.efficiency, "patterns": ff.patterns,
                "monostatic_rcs_dBsm": ff.monostatic_rcs_dbsm,
            })).collect::<Vec<_>>(),
            "cross_sections": f.cross_sections.iter().map(|c| json!({
                "name": c.name, "plane_wave": c.plane_wave, "frequency": c.freq,
                "scattering": c.scattering.iter().map(|x| opt_f(*x)).collect::<Vec<_>>(),
                "absorption": c.absorption.iter().map(|x| opt_f(*x)).collect::<Vec<_>>(),
                "extinction": c.extinction.iter().map(|x| opt_f(*x)).collect::<Vec<_>>(),
                "resolved": c.resolved,
            })).collect::<Vec<_>>(),
            "other_groups": f.other_groups.iter().filter(|g| *g != "sources").collect::<Vec<_>>(),
            "all_zero": zero,
        });
        outln!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        return Ok(exit::OK);
    }

    outln!("file       {}", f.path().display());
    let status = match r.status.as_str() {
        "complete" => format!("complete: {} steps", thousands(r.steps_done)),
        s => format!("{s} after {} of {} steps", thousands(r.steps_done), thousands(r.steps)),
    };
    outln!("status     {status} (fdtd {})", r.fdtd_version);
    if let Some(e) = &r.error {
        outln!("error      {e}");
    }
    outln!("scene      {}", r.scene_path);
    outln!(
        "grid       {} × {} × {} = {} cells of {}",
        r.shape[0],
        r.shape[1],
        r.shape[2],
        thousands(cells),
        lengths(r.d)
    );
    outln!(
        "time       dt = {}, {} simulated (Courant {})",
        si(r.dt, "s"),
        si(r.dt * r.steps_done as f64, "s"),
        sig(r.courant, 3)
    );
    let mut backend = format!("{} on {}", r.backend, r.device);
    if let Some(why) = &r.backend_selection {
        backend.push_str(&format!(" (auto: {why})"));
    }
    outln!("backend    {backend}");
    if let (Some(w), Some(m)) = (r.wall_seconds, mcells) {
        outln!("run time   {} ({} Mcells/s)", duration(w), sig(m, 4));
    }
    if r.resumes > 0 {
        outln!("resumed    {} time(s)", r.resumes);
    }
    if let Some(s) = &scene {
        outln!("sources ({})", s.sources.len());
        for src in &s.sources {
            outln!(
                "  {:<14} {} at {}, up to {}",
                src.name,
                src.component,
                point(src.position),
                hz(src.waveform.max_frequency())
            );
        }
        if !s.plane_waves.is_empty() {
            outln!("plane waves ({})", s.plane_waves.len());
            for w in &s.plane_waves {
                outln!(
                    "  {:<14} θ {}°, φ {}°, polarization {}°, box {}..{}, up to {}",
                    w.name,
                    w.theta,
                    w.phi,
                    w.polarization,
                    point(w.min),
                    point(w.max),
                    hz(w.waveform.max_frequency())
                );
            }
        }
    }
    outln!("probes ({})", f.probes.len());
    for p in &f.probes {
        for c in &p.components {
            let fig = probes.iter().find(|x| x.probe == p.name && x.component == c.name);
            let figures = match fig.and_then(|x| x.peak) {
                Some((t, v)) => {
                    let mut s = format!("peak {} {} at {}", sig(v as f64, 4), c.units, si(t, "s"));
                    if let Some(fp) = fig.and_then(|x| x.spectrum_peak) {
                        s.push_str(&format!(", spectrum peak {}", hz(fp)));
                    }
                    s
                }
                None => "no samples".into(),
            };
            outln!(
                "  {:<14} {} at {} {:?}, every {}: {} samples, {figures}",
                p.name,
                c.name,
                point(c.position),
                c.index,
                p.every,
                thousands(c.samples as u64)
            );
        }
    }
    outln!("snapshots ({})", f.snapshots.len());
    for s in &f.snapshots {
        for c in &s.components {
            let fig = snaps.iter().find(|x| x.snapshot == s.name && x.component == c.name);
            let figures = match fig {
                Some(x) if !x.scanned => "not scanned (large)".to_string(),
                Some(SnapFigures { peak: Some((k, v)), .. }) => {
                    format!("peak {} {} in frame {k}", sig(*v as f64, 4), c.units)
                }
                _ => "no frames".into(),
            };
            outln!(
                "  {:<14} {} {:?} samples from index {:?}, every {}: {} frames, {figures}",
                s.name,
                c.name,
                c.shape,
                c.index_lo,
                s.every,
                c.frames
            );
        }
    }
    if let Some(reason) = &r.end_reason {
        let how = match (reason.as_str(), r.decayed_at_step, r.decay_db) {
            ("decayed", Some(k), Some(db)) => format!("the field energy decayed {} dB at step {k}", sig(db, 3)),
            ("max_steps", _, Some(db)) => format!("the maximum duration, before the energy decayed {} dB", sig(db, 3)),
            (other, _, _) => other.to_string(),
        };
        outln!("end        {how}");
    }
    if !f.ports.is_empty() {
        outln!("ports ({})", f.ports.len());
        for l in port_lines(&f) {
            outln!("{l}");
        }
    }
    if !f.farfields.is_empty() {
        outln!("far fields ({})", f.farfields.len());
        for l in farfield_lines(&f) {
            outln!("{l}");
        }
    }
    if !f.cross_sections.is_empty() {
        outln!("cross sections ({})", f.cross_sections.len());
        for c in &f.cross_sections {
            let ok: Vec<usize> = (0..c.freq.len())
                .filter(|&k| c.resolved.get(k).copied().unwrap_or(true) && c.extinction[k].is_finite())
                .collect();
            outln!(
                "  {:<14} plane wave {}, {} frequencies ({} resolved)",
                c.name,
                c.plane_wave,
                c.freq.len(),
                ok.len()
            );
            if let Some(&k) = ok.iter().max_by(|&&a, &&b| c.extinction[a].total_cmp(&c.extinction[b])) {
                outln!(
                    "    largest σ_ext at {}: σ_ext {} m², σ_sca {} m², σ_abs {} m²",
                    hz(c.freq[k]),
                    sig(c.extinction[k], 4),
                    sig(c.scattering[k], 4),
                    sig(c.absorption[k], 4)
                );
            }
        }
    }
    for g in f.other_groups.iter().filter(|g| *g != "sources") {
        outln!("/{g}       not interpreted by fdtd {}", env!("CARGO_PKG_VERSION"));
    }
    if zero {
        errln!(
            "warning: every recorded value is exactly zero: the source may be missing, too weak, or far outside \
             the band the grid and run time resolve (`fdtd check` on the scene says)"
        );
    }
    Ok(exit::OK)
}

//! `fdtd plot`: the figures an engineer looks at first, from a result file (probes, their
//! spectra, snapshot slices, an animation) or from a scene (its discretised geometry).
use super::{exit, CliError, PlotArgs, PlotWhat};
use fdtd::fmt::{point, si};
use fdtd::model::Model;
use fdtd::output::read::ResultFile;
use fdtd::plot::antenna::{farfield_png, port_png};
use fdtd::plot::geometry::geometry_png;
use fdtd::plot::scattering::cross_section_png;
use fdtd::plot::series::{spectrum_png, time_png, Series};
use fdtd::plot::slice::{slice_gif, slice_png, Slice, Style};
use fdtd::plot::{Figure, Geometry, PlotError};
use fdtd::scene::Scene;
use fdtd::session::{self, SceneSource};
use fdtd::waveform::{WaveShape, Waveform};
use std::path::{Path, PathBuf};

/// Most frames in one GIF: longer snapshots are thinned evenly.
const GIF_FRAMES: usize = 120;
/// The colour scale of a slice ends at this quantile of |field|: the few samples beside a
/// source, whose near field dwarfs the radiated wave, saturate instead of washing it out.
const SCALE_QUANTILE: f64 = 0.995;
/// Most values, and frames, read to find a snapshot's peak frame (as `info`'s scan).
const PEAK_SCAN: usize = 64 << 20;
const PEAK_FRAMES: usize = 4096;
/// Most host memory the stored scene's grid may need for the geometry outlines (its
/// lower bound, before discretising): a hostile file may store a scene of 10¹² cells.
const OUTLINE_BUDGET: u64 = 1 << 30;
/// Most far-field figures per far field: more frequencies are thinned evenly.
const FARFIELD_FIGURES: usize = 12;

fn plot_err(e: PlotError) -> CliError {
    match e {
        PlotError::Read(r) => CliError::bad_input(r.to_string()),
        other => CliError::runtime(other.to_string()),
    }
}

/// The frequency a waveform's spectrum peaks at, when it has one above DC (a gaussian's
/// peaks at 0 Hz).
pub fn centre_frequency(w: &Waveform) -> Option<f64> {
    match w.shape {
        WaveShape::Gaussian { .. } => None,
        // |F| ∝ f·exp(−(πτf)²): largest at f = 1/(√2·π·τ).
        WaveShape::GaussianDerivative { tau } => Some(1.0 / (std::f64::consts::SQRT_2 * std::f64::consts::PI * tau)),
        WaveShape::Ricker { frequency }
        | WaveShape::ModulatedGaussian { frequency, .. }
        | WaveShape::Sine { frequency, .. } => Some(frequency),
    }
}

/// `<dir>/<stem>_<what>.<ext>`, with characters a file name should not hold replaced.
fn out_path(dir: &Path, stem: &str, what: &str, ext: &str) -> PathBuf {
    let clean: String = what
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(format!("{stem}_{clean}.{ext}"))
}

fn written(f: &Figure) {
    outln!("wrote {} ({} × {})", f.path.display(), f.width, f.height);
}

pub fn plot(a: &PlotArgs) -> Result<i32, CliError> {
    fdtd::output::read::deadline::watch(super::info::READ_DEADLINE);
    let is_scene = a.input.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    let stem = a
        .input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "fdtd".into());
    let dir = a
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{stem}_plots")));
    // Figures are not written through a link: a directory that is one is refused (the
    // files in it are written without following links, see `plot::canvas::NewFile`).
    if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(CliError::bad_input(format!(
            "the output directory {} is a symbolic link: refused (give the directory it points to)",
            dir.display()
        )));
    }
    std::fs::create_dir_all(&dir)
        .map_err(|e| CliError::bad_input(format!("cannot create the output directory {}: {e}", dir.display())))?;

    if a.input.is_dir() {
        return sweep_bscan(&a.input, &dir, &stem);
    }
    if is_scene || a.geometry {
        let (scene, model) = if is_scene {
            session::load(&SceneSource::Path(a.input.clone()), true).map_err(|e| CliError::session(&e, None))?
        } else {
            let f = ResultFile::open(&a.input).map_err(|e| CliError::bad_input(e.to_string()))?;
            scene_of(&f).map_err(CliError::bad_input)?
        };
        let geom = Geometry::new(&scene, &model);
        let at = match &a.at {
            Some(v) => {
                let p = [v[0], v[1], v[2]];
                let size = geom.size();
                if (0..3).any(|i| !(0.0..=size[i]).contains(&p[i])) {
                    return Err(CliError::bad_input(format!(
                        "--at {} is outside the domain, from 0 to {}",
                        point(p),
                        point(size)
                    )));
                }
                p
            }
            None => geom.default_point(),
        };
        let title = format!("{}: discretised geometry through {}", scene.path.display(), point(at));
        let fig = geometry_png(&geom, at, &out_path(&dir, &stem, "geometry", "png"), &title).map_err(plot_err)?;
        written(&fig);
        return Ok(exit::OK);
    }

    let f = ResultFile::open(&a.input).map_err(|e| CliError::bad_input(e.to_string()))?;
    let (scene, geom) = match scene_of(&f) {
        Ok((s, m)) => {
            let g = Geometry::new(&s, &m);
            (Some(s), Some(g))
        }
        Err(why) => {
            errln!("note: no geometry outlines: {why}");
            (None, None)
        }
    };
    let domain = [0, 1, 2].map(|i| f.run.shape[i] as f64 * f.run.d[i]);
    let all = a.what.contains(&PlotWhat::All);
    let wants = |w: PlotWhat| all || a.what.contains(&w);

    if wants(PlotWhat::Probes) || wants(PlotWhat::Spectra) {
        if f.probes.is_empty() {
            errln!("note: {} has no probes: no time series or spectra", f.path().display());
        }
        // Point sources and plane waves: (name, waveform).
        let sources: Vec<(&str, &fdtd::waveform::Waveform)> = scene
            .iter()
            .flat_map(|s| {
                let points = s.sources.iter().map(|p| (p.name.as_str(), &p.waveform));
                points.chain(s.plane_waves.iter().map(|p| (p.name.as_str(), &p.waveform)))
            })
            .collect();
        let markers: Vec<(String, f64)> = sources
            .iter()
            .filter_map(|(name, w)| centre_frequency(w).map(|fc| (format!("source {name}: {}", si(fc, "Hz")), fc)))
            .collect();
        for p in &f.probes {
            let mut series = Vec::new();
            for c in &p.components {
                let (time, values) = f.probe_series(&p.name, &c.name).map_err(|e| plot_err(e.into()))?;
                series.push(Series {
                    name: c.name.clone(),
                    units: c.units.clone(),
                    time,
                    values,
                });
            }
            if series.iter().all(|s| s.values.is_empty()) {
                errln!("note: probe {} recorded no samples: not plotted", p.name);
                continue;
            }
            if wants(PlotWhat::Probes) {
                written(
                    &time_png(
                        &p.name,
                        &series,
                        &out_path(&dir, &stem, &format!("probe_{}", p.name), "png"),
                    )
                    .map_err(plot_err)?,
                );
            }
            if wants(PlotWhat::Spectra) {
                let dt = series
                    .iter()
                    .find(|s| s.time.len() > 1)
                    .map_or(f.run.dt, |s| s.time[1] - s.time[0]);
                if !(dt.is_finite() && dt > 0.0) {
                    errln!(
                        "note: probe {}: the time step of its samples ({}) is not a positive time: no spectrum",
                        p.name,
                        si(dt, "s")
                    );
                    continue;
                }
                if series.iter().any(|s| s.values.len() > fdtd::signal::MAX_SAMPLES) {
                    errln!(
                        "note: probe {}: more than {} samples: no spectrum",
                        p.name,
                        fdtd::signal::MAX_SAMPLES
                    );
                    continue;
                }
                let nyquist = 0.5 / dt;
                let f_max = a
                    .fmax
                    .or_else(|| {
                        let m = sources.iter().map(|(_, w)| w.max_frequency()).fold(0.0, f64::max);
                        (m > 0.0).then_some(1.25 * m)
                    })
                    .unwrap_or(nyquist)
                    .min(nyquist);
                if !(f_max.is_finite() && f_max > 0.0) {
                    return Err(CliError::bad_input(format!(
                        "--fmax {}: expected a positive frequency",
                        si(f_max, "Hz")
                    )));
                }
                let path = out_path(&dir, &stem, &format!("spectrum_{}", p.name), "png");
                written(&spectrum_png(&p.name, &series, f_max, &markers, &path).map_err(plot_err)?);
            }
        }
    }

    if wants(PlotWhat::Snapshots) || wants(PlotWhat::Gif) {
        if f.snapshots.is_empty() {
            errln!("note: {} has no snapshots: no slices or animations", f.path().display());
        }
        for s in &f.snapshots {
            for c in &s.components {
                if c.frames == 0 {
                    errln!("note: snapshot {}/{} has no frames: not plotted", s.name, c.name);
                    continue;
                }
                let times = f.snapshot_times(&s.name).map_err(|e| plot_err(e.into()))?;
                let time_of = |k: usize| {
                    times
                        .get(k)
                        .map_or(String::new(), |t| format!(" at t = {}", si(*t, "s")))
                };
                let slice_of = |k: usize| -> Result<Slice, PlotError> {
                    Ok(Slice::from_frame(&f.snapshot_frame(&s.name, &c.name, k)?, c))
                };
                let style = |title: String| Style {
                    title,
                    component: c.name.clone(),
                    units: c.units.clone(),
                    domain,
                    geometry: geom.as_ref(),
                };
                if wants(PlotWhat::Snapshots) {
                    let (k, slice) = match a.frame.as_deref() {
                        None | Some("peak") => {
                            // At most PEAK_SCAN values are read to find the peak: frames
                            // are thinned evenly past that (a file may declare 10¹² frames).
                            let frame = c.shape.iter().fold(1usize, |a, &n| a.saturating_mul(n));
                            let most = (PEAK_SCAN / frame.max(1)).clamp(1, PEAK_FRAMES);
                            let stride = c.frames.div_ceil(most).max(1);
                            if stride > 1 {
                                errln!(
                                    "note: snapshot {}/{}: {} frames; the peak is searched in every {stride}th",
                                    s.name,
                                    c.name,
                                    c.frames
                                );
                            }
                            let mut best: Option<(usize, Slice)> = None;
                            for k in (0..c.frames).step_by(stride) {
                                let sl = slice_of(k).map_err(plot_err)?;
                                if best.as_ref().is_none_or(|(_, b)| sl.max_abs() > b.max_abs()) {
                                    best = Some((k, sl));
                                }
                            }
                            best.ok_or_else(|| CliError::runtime(String::from("a snapshot with frames gave none")))?
                        }
                        Some(n) => {
                            let k: usize = n.parse().map_err(|_| {
                                CliError::bad_input(format!("--frame {n}: expected a frame number or `peak`"))
                            })?;
                            if k >= c.frames {
                                return Err(CliError::bad_input(format!(
                                    "--frame {k}: snapshot {}/{} has {} frames (0..{})",
                                    s.name,
                                    c.name,
                                    c.frames,
                                    c.frames - 1
                                )));
                            }
                            (k, slice_of(k).map_err(plot_err)?)
                        }
                    };
                    let vmax = slice.quantile_abs(SCALE_QUANTILE) as f64;
                    let zero = if vmax == 0.0 { " (all zero)" } else { "" };
                    let title = format!(
                        "snapshot {} · {}{} (frame {k} of {}){zero}",
                        s.name,
                        c.name,
                        time_of(k),
                        c.frames
                    );
                    let path = out_path(&dir, &stem, &format!("{}_{}", s.name, c.name), "png");
                    written(&slice_png(&slice, vmax, &style(title), &path).map_err(plot_err)?);
                }
                if wants(PlotWhat::Gif) {
                    let stride = c.frames.div_ceil(GIF_FRAMES);
                    let mut slices = Vec::new();
                    for k in (0..c.frames).step_by(stride) {
                        slices.push((k, slice_of(k).map_err(plot_err)?));
                    }
                    let vmax = slices
                        .iter()
                        .map(|(_, s)| s.quantile_abs(SCALE_QUANTILE))
                        .fold(0.0, f32::max) as f64;
                    let frames = slices.into_iter().map(|(k, sl)| {
                        Ok((
                            sl,
                            format!(
                                "snapshot {} · {}{} (frame {k} of {})",
                                s.name,
                                c.name,
                                time_of(k),
                                c.frames
                            ),
                        ))
                    });
                    let path = out_path(&dir, &stem, &format!("{}_{}", s.name, c.name), "gif");
                    let fig = slice_gif(frames, vmax, &style(String::new()), 8, &path).map_err(plot_err)?;
                    written(&fig);
                }
            }
        }
    }

    if wants(PlotWhat::Ports) {
        if f.ports.is_empty() && !all {
            errln!("note: {} has no ports: nothing for --what ports", f.path().display());
        }
        for p in &f.ports {
            if p.frequency.is_empty() {
                errln!("note: port {} has no frequencies: not plotted", p.name);
                continue;
            }
            if p.driven && !p.resolved.is_empty() && !p.resolved.iter().any(|&r| r) {
                errln!(
                    "note: port {}: the run resolves none of its frequencies (all outside the drive's band): not plotted",
                    p.name
                );
                continue;
            }
            let path = out_path(&dir, &stem, &format!("port_{}", p.name), "png");
            written(&port_png(p, &path).map_err(plot_err)?);
        }
    }
    if wants(PlotWhat::Farfield) {
        if f.farfields.is_empty() && !all {
            errln!(
                "note: {} has no far fields: nothing for --what farfield",
                f.path().display()
            );
        }
        for ff in &f.farfields {
            let stride = ff.freq.len().div_ceil(FARFIELD_FIGURES).max(1);
            if stride > 1 {
                errln!(
                    "note: far field {} has {} frequencies: plotting every {stride}th",
                    ff.name,
                    ff.freq.len()
                );
            }
            for k in (0..ff.freq.len()).step_by(stride) {
                let values = f
                    .farfield_pattern(&ff.name, "directivity_dBi", k)
                    .map_err(|e| plot_err(e.into()))?;
                let at = si(ff.freq[k], "Hz");
                let path = out_path(&dir, &stem, &format!("farfield_{}_{at}", ff.name), "png");
                written(&farfield_png(ff, k, &values, "directivity", &path).map_err(plot_err)?);
                if ff.patterns.iter().any(|p| p == "rcs_dBsm") {
                    let values = f
                        .farfield_pattern(&ff.name, "rcs_dBsm", k)
                        .map_err(|e| plot_err(e.into()))?;
                    let path = out_path(&dir, &stem, &format!("rcs_{}_{at}", ff.name), "png");
                    written(&farfield_png(ff, k, &values, "RCS", &path).map_err(plot_err)?);
                }
            }
        }
    }
    if wants(PlotWhat::Farfield) {
        for c in &f.cross_sections {
            let path = out_path(&dir, &stem, &format!("cross_section_{}", c.name), "png");
            written(&cross_section_png(c, &path).map_err(plot_err)?);
        }
    }

    // Groups written by a newer fdtd are named, not silently dropped.
    for g in f.other_groups.iter().filter(|g| *g != "sources") {
        errln!("note: /{g} is not plotted by fdtd {}", env!("CARGO_PKG_VERSION"));
    }
    Ok(exit::OK)
}

/// The scene stored in a result file, discretised again (for the geometry outlines).
fn scene_of(f: &ResultFile) -> Result<(Scene, Model), String> {
    let scene = Scene::parse(&f.run.scene, &f.run.scene_path)
        .map_err(|e| format!("the scene stored in {} does not parse: {e}", f.path().display()))?;
    let need = fdtd::session::resources::lower_bound(&scene, false);
    if need > OUTLINE_BUDGET {
        return Err(format!(
            "the scene stored in {} has {} cells, too many to discretise again for outlines ({} MiB at least)",
            f.path().display(),
            fdtd::fmt::thousands(scene.domain.cells.iter().fold(1u64, |a, &n| a.saturating_mul(n as u64))),
            need >> 20
        ));
    }
    let model = Model::discretize(&scene)
        .map_err(|e| format!("the scene stored in {} does not discretise: {e}", f.path().display()))?;
    Ok((scene, model))
}

/// `fdtd plot SWEEP_DIR`: a radargram (B-scan) per receiver probe and component, over the
/// sweep's first parameter, from every finished variant (`plot::bscan`).
fn sweep_bscan(sweep: &Path, dir: &Path, stem: &str) -> Result<i32, CliError> {
    use fdtd::plot::bscan::{bscan_png, Bscan, Trace};
    use fdtd_sweep::keys::SceneValue;
    let layout = fdtd_sweep::Layout::new(sweep);
    let manifest = fdtd_sweep::Manifest::read(&layout).map_err(|e| {
        CliError::bad_input(format!(
            "{}: a directory, but not a sweep directory fdtd can read ({e}); `fdtd plot` takes a result file, a \
             scene, or a sweep directory",
            sweep.display()
        ))
    })?;
    let Some(param) = manifest.columns.first().filter(|_| manifest.parameters > 0) else {
        return Err(CliError::bad_input(format!(
            "{}: the sweep has no parameter",
            sweep.display()
        )));
    };
    let status = fdtd_sweep::status::collect_status(&layout, &manifest, None);
    let mut traces: Vec<((String, String, String), Vec<Trace>)> = Vec::new();
    let mut skipped = 0;
    for (entry, st) in manifest.variants.iter().zip(&status) {
        if !st.state.is_done() {
            skipped += 1;
            continue;
        }
        let x = match entry.values.first() {
            Some(SceneValue::Num(x)) => *x,
            _ => {
                return Err(CliError::bad_input(format!(
                    "{}: the first parameter, {param}, is not a number: a radargram needs positions",
                    sweep.display()
                )))
            }
        };
        let path = layout.output(&entry.id);
        let f = ResultFile::open(&path).map_err(|e| CliError::bad_input(e.to_string()))?;
        for p in &f.probes {
            for c in &p.components {
                let (t, v) = f
                    .probe_series(&p.name, &c.name)
                    .map_err(|e| CliError::bad_input(e.to_string()))?;
                let key = (p.name.clone(), c.name.clone(), c.units.clone());
                let trace = Trace { x, t, v };
                match traces.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, list)) => list.push(trace),
                    None => traces.push((key, vec![trace])),
                }
            }
        }
    }
    if skipped > 0 {
        errln!(
            "note: {skipped} of {} variants are not finished and are left out",
            manifest.variants.len()
        );
    }
    if traces.is_empty() {
        return Err(CliError::bad_input(format!(
            "{}: no finished variant has a probe: nothing to draw",
            sweep.display()
        )));
    }
    for ((probe, comp, units), list) in traces {
        let b = Bscan::new(list).map_err(plot_err)?;
        let title = format!("{}: radargram of {probe} {comp} over {param}", manifest.name);
        let what = format!("{probe} {comp}");
        let path = out_path(dir, stem, &format!("bscan_{probe}_{comp}"), "png");
        let fig = bscan_png(&b, &title, param, &what, &units, &path).map_err(plot_err)?;
        written(&fig);
    }
    Ok(exit::OK)
}

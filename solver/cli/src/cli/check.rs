//! `fdtd check`: validate a scene and print what a run would do and need, through the
//! session's own loading, checks and backend rule ([`fdtd::session`]).
use super::{auto_note, exit, BackendArg, CheckArgs, CliError};
use fdtd::backend::{gpu, Auto, Backend, BackendChoice, BackendError, BackendOptions, Engine, Target};
use fdtd::fmt::{hz, lengths, point, si, sig, thousands};
use fdtd::plan::human_bytes;
use fdtd::scene::{Boundaries, Boundary, MaterialKind, Scene, SourceKind};
use fdtd::session::{self, SceneSource};
use fdtd::Component;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Probes listed one per line by `fdtd check`; more are counted.
const LISTED_PROBES: usize = 64;

/// The GPU engine, keeping the adapter of its last plan (for the `fits:` line).
#[derive(Default)]
struct GpuWithInfo(Mutex<Option<gpu::DeviceInfo>>);

impl Engine for GpuWithInfo {
    fn kind(&self) -> BackendChoice {
        BackendChoice::Gpu
    }

    fn plan(&self, model: &fdtd_core::Simulation, opts: &BackendOptions) -> Result<Target, BackendError> {
        let (plan, info) = gpu::plan(model, opts)?;
        let target = Target {
            plan,
            device: info.short(),
            software: info.is_software(),
        };
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(info);
        Ok(target)
    }

    fn create(
        &self,
        model: Arc<fdtd_core::Simulation>,
        opts: &BackendOptions,
    ) -> Result<Box<dyn Backend>, BackendError> {
        gpu::GpuEngine.create(model, opts)
    }
}

fn boundary(b: &Boundary) -> String {
    match b {
        Boundary::Pec => "pec".into(),
        Boundary::Pmc => "pmc".into(),
        Boundary::Periodic => "periodic".into(),
        Boundary::Cpml(p) => format!(
            "cpml ({} cells, order {}, sigma ×{}, kappa_max {}, alpha_max {} S/m)",
            p.cells,
            sig(p.order, 3),
            sig(p.sigma_factor, 3),
            sig(p.kappa_max, 3),
            sig(p.alpha_max, 3)
        ),
    }
}

/// A dispersive material's ε(ω) (exp(+jωt)) at a quarter, half and all of the run's
/// highest source frequency; empty for a non-dispersive material or without sources.
fn eps_in_band(m: &fdtd::scene::Material, model: &fdtd_core::model::Model) -> Vec<(f64, (f64, f64))> {
    let Some((fmax, _)) = model.resolution else {
        return Vec::new();
    };
    if m.poles.is_empty() {
        return Vec::new();
    }
    [0.25, 0.5, 1.0]
        .iter()
        .filter_map(|&x| m.eps_at(std::f64::consts::TAU * x * fmax).map(|e| (x * fmax, e)))
        .collect()
}

fn print_report(scene: &Scene, model: &fdtd_core::Simulation) {
    let g = &model.grid;
    outln!("scene      {}: valid", scene.path.display());
    outln!(
        "grid       {} × {} × {} = {} cells",
        g.n[0],
        g.n[1],
        g.n[2],
        thousands(g.cells())
    );
    outln!("cell size  {}", lengths(g.d));
    outln!("domain     {}", lengths(scene.domain.size()));
    outln!("time step  {} (Courant {})", si(g.dt, "s"), g.courant);
    outln!(
        "steps      {} ({} simulated)",
        thousands(g.steps as u64),
        si(g.dt * g.steps as f64, "s")
    );

    outln!("boundaries");
    for (name, b) in Boundaries::FACE_NAMES.iter().zip(&scene.boundaries.faces) {
        outln!("  {name:<6} {}", boundary(b));
    }

    outln!("materials");
    outln!("  {:<16} {:>10} {:>10} {:>12}", "name", "eps_r", "mu_r", "sigma (S/m)");
    for m in &scene.materials {
        match m.kind {
            MaterialKind::Dielectric { eps_r, mu_r, sigma } => outln!(
                "  {:<16} {:>10} {:>10} {:>12}",
                m.name,
                sig(eps_r, 6),
                sig(mu_r, 6),
                sig(sigma, 6)
            ),
            MaterialKind::Pec => outln!("  {:<16} {:>10}", m.name, "PEC"),
        }
        for p in &m.poles {
            outln!("    pole {{ {p} }}");
        }
        for (f, (re, im)) in eps_in_band(m, model) {
            outln!("    ε at {:<10} {} {} j", si(f, "Hz"), sig(re, 6), sig(im, 6));
        }
    }
    outln!(
        "  distinct averaged materials on the grid: {} E, {} H",
        model.coefs.e.len(),
        model.coefs.h.len()
    );
    let averaged: usize = (0..3)
        .map(|a| {
            fdtd::model::subpixel::edges(scene, g, a)
                .iter()
                .filter(|e| matches!(e.1, fdtd::model::subpixel::EdgeMaterial::Averaged(_)))
                .count()
        })
        .sum();
    if averaged > 0 {
        outln!("  E edges under subpixel averaging: {averaged} (docs/scene-format.md, \"Subpixel averaging\")");
    }

    let objects = fdtd::model::thin::coverage(scene, g);
    outln!("objects ({})", objects.len());
    for c in &objects {
        outln!("  {:<32} {}", c.label(), c.amount());
        if let fdtd::scene::Shape::Stl(m) = &scene.objects[c.index].shape {
            outln!("    {}", m.describe());
        }
    }
    for w in &model.wires {
        outln!(
            "  {}",
            fdtd::model::thin::describe_fix(w, objects.get(w.object).map(|c| c.label()))
        );
    }

    let listed = |s: &&fdtd::model::PointSource| !s.name.starts_with("port ") && !s.line;
    outln!("sources ({})", model.sources.iter().filter(listed).count());
    for s in model.sources.iter().filter(listed) {
        let kind = match s.kind {
            SourceKind::Current => "current",
            SourceKind::Hard => "hard",
        };
        let requested = scene
            .sources
            .iter()
            .find(|x| x.name == s.name)
            .map(|x| point(x.position))
            .unwrap_or_default();
        outln!(
            "  {:<16} {kind} {} at {requested} → index {:?}, up to {}",
            s.name,
            s.component,
            s.index,
            hz(s.waveform.max_frequency())
        );
    }

    if !model.plane_waves.is_empty() {
        outln!("plane waves ({})", model.plane_waves.len());
        for w in &model.plane_waves {
            outln!(
                "  {:<16} TF/SF, k along m = {:?}: θ {:.3}°, φ {:.3}° ({:.3}° from the requested), E along [{:.4}, {:.4}, {:.4}], box nodes {:?}..{:?}, incident line of {} samples",
                w.name,
                w.m,
                w.theta,
                w.phi,
                w.error_deg,
                w.e[0],
                w.e[1],
                w.e[2],
                w.nodes.map(|n| n[0]),
                w.nodes.map(|n| n[1]),
                w.len
            );
        }
    }

    if !model.ports.is_empty() {
        outln!(
            "ports ({}), evaluated at {} frequencies",
            model.ports.len(),
            model.frequencies.len()
        );
    }
    for p in &model.ports {
        let role = if p.driven { "driven" } else { "matched load" };
        let first = p.edges.first().copied().unwrap_or_default();
        outln!(
            "  {:<16} {role}, Z0 = {} Ω: {} {} edge(s) ({} in series × {} in parallel) from index {:?}, R = {} Ω per edge",
            p.name,
            sig(p.z0, 4),
            p.edges.len(),
            p.component(),
            p.series,
            p.columns,
            first,
            sig(p.r_edge, 4)
        );
        if let Some(l) = &p.line {
            let axis = ["x", "y", "z"][l.axis];
            let (lo, hi) = l.conductor;
            let span: Vec<String> = (0..3)
                .filter(|&a| a != l.axis)
                .map(|a| {
                    format!(
                        "{} {}",
                        ["x", "y", "z"][a],
                        si((hi[a] - lo[a]) as f64 * model.grid.d[a], "m")
                    )
                })
                .collect();
            let what = match l.te10 {
                true => "a waveguide along",
                false => "a line along",
            };
            let cond = match l.te10 {
                true => "TE10 mode of the guide",
                false => "signal conductor",
            };
            outln!(
                "  {:<16} feeds {what} {}{axis}: V and I measured {} and {} from the feed ({cond} {}; \
                 {} H samples per I); Z_line and γ measured; S and Z referred to {} from the feed ({})",
                "",
                if l.sign > 0.0 { "+" } else { "-" },
                si(l.offset, "m"),
                si(l.offset + l.spacing, "m"),
                span.join(" × "),
                l.i[0].len(),
                si(p.reference_plane, "m"),
                match l.to_line {
                    true => "to the measured Z_line".to_string(),
                    false => format!("z0 {} Ω", sig(p.z0, 4)),
                }
            );
        } else if p.reference_plane != 0.0 {
            outln!(
                "  {:<16} S and Z referred to a plane {} from the edges along a matched feed line (ε_eff {}, {})",
                "",
                si(p.reference_plane.abs(), "m"),
                sig(p.eps_eff, 4),
                if p.reference_plane > 0.0 {
                    "toward the structure"
                } else {
                    "back toward the source"
                }
            );
        }
    }
    if !model.lumped.is_empty() {
        outln!("lumped elements ({})", model.lumped.len());
    }
    for l in &model.lumped {
        let mut parts = Vec::new();
        if let Some(r) = l.r_edge {
            parts.push(format!("R = {} Ω", sig(r, 4)));
        }
        if let Some(x) = l.l_edge {
            parts.push(format!("L = {}", si(x, "H")));
        }
        if let Some(c) = l.c_edge {
            parts.push(format!("C = {}", si(c, "F")));
        }
        let first = l.edges.first().copied().unwrap_or_default();
        outln!(
            "  {:<16} {} {} edge(s) ({} × {}) from index {:?}, per edge: {}",
            l.name,
            l.edges.len(),
            Component::ALL[l.axis],
            l.series,
            l.columns,
            first,
            parts.join(", ")
        );
    }

    outln!("probes ({})", model.probes.len());
    for p in model.probes.iter().take(LISTED_PROBES) {
        let samples: Vec<String> = p
            .samples
            .iter()
            .map(|s| format!("{} {:?}", s.component, s.index))
            .collect();
        outln!(
            "  {:<16} at {}, every {}: {}",
            p.name,
            point(p.position),
            p.every,
            samples.join(", ")
        );
    }

    if model.probes.len() > LISTED_PROBES {
        outln!(
            "  ... and {} more (every probe's snapped index and position are in the output file)",
            thousands((model.probes.len() - LISTED_PROBES) as u64)
        );
    }

    outln!("snapshots ({})", model.snapshots.len());
    for s in &model.snapshots {
        let frames = (g.steps / s.every) as u64;
        let per_frame: u64 = s
            .components
            .iter()
            .map(|&c| s.component_shape(c, g).iter().map(|&x| x as u64).product::<u64>() * 4)
            .sum();
        let comps: Vec<&str> = s.components.iter().map(|c| c.name()).collect();
        outln!(
            "  {:<16} {} nodes {:?}..{:?} (exclusive), every {}: {frames} frames of {}",
            s.name,
            comps.join(", "),
            s.lo,
            s.hi,
            s.every,
            human_bytes(per_frame)
        );
    }
    if !model.monitors.is_empty() {
        outln!("monitors ({})", model.monitors.len());
        for m in &model.monitors {
            outln!("  {}", m.summary());
        }
    }
    let layout = match session::probe_layout::ProbeLayout::of(model) {
        session::probe_layout::ProbeLayout::Table => ", probes as tables",
        session::probe_layout::ProbeLayout::Groups => "",
    };
    outln!(
        "output     up to {} before compression{layout}",
        human_bytes(session::resources::output_bytes(scene, model, 0))
    );
    let ck = scene.checkpoint();
    let when = if !ck.enabled {
        "off ([checkpoint] enabled = false)".to_string()
    } else {
        session::checkpoint_interval(&ck, None).describe()
    };
    outln!(
        "checkpoint {} each, {when} and when stopped (two kept on disk)",
        human_bytes(fdtd::runner::checkpoint_bytes(model))
    );

    match model.resolution {
        Some((f, cpw)) => outln!(
            "resolution {} cells per wavelength at {} (at least 10 recommended)",
            sig(cpw, 3),
            hz(f)
        ),
        None => outln!("resolution (no sources)"),
    }
}

/// Check every scene named; the exit code is the first failure's (0 when all pass).
pub fn check(a: &CheckArgs) -> Result<i32, CliError> {
    let mut code = exit::OK;
    let mut docs = Vec::new();
    for (i, path) in a.scenes.iter().enumerate() {
        if !a.json && i > 0 {
            outln!();
        }
        let r = if a.json {
            check_json(path, a).map(|doc| docs.push(doc))
        } else {
            check_one(path, a)
        };
        if let Err(e) = r {
            if a.json {
                docs.push(json!({ "scene": path.display().to_string(), "valid": false, "error": e.message }));
            } else {
                errln!("error: {}", e.message);
            }
            if code == exit::OK {
                code = e.code;
            }
        }
    }
    if a.json {
        let doc = match docs.len() {
            1 => docs.pop().unwrap_or_default(),
            _ => Value::Array(docs),
        };
        outln!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    }
    Ok(code)
}

/// What `fdtd check --json` prints for one valid scene.
fn check_json(path: &Path, a: &CheckArgs) -> Result<Value, CliError> {
    let fail = |e: &session::SessionError| CliError::session(e, None);
    let (scene, model) = session::load(
        &SceneSource::Path(path.to_path_buf()),
        a.backend.backend != BackendArg::Gpu,
    )
    .map_err(|e| fail(&e))?;
    let model = fdtd_core::Simulation::standard(model);
    let g = &model.grid;
    let mut warnings = session::scene_warnings(&scene, &model);
    warnings.extend(session::resolution_warning(&model));
    let sources: Vec<Value> = model
        .sources
        .iter()
        .filter(|s| !s.line)
        .map(|s| {
            let requested = scene.sources.iter().find(|x| x.name == s.name).map(|x| x.position);
            json!({
                "name": s.name,
                "type": match s.kind { SourceKind::Current => "current", SourceKind::Hard => "hard" },
                "component": s.component.name(),
                "requested_position": requested,
                "index": s.index,
                "position": s.component.position(s.index, g.d),
                "max_frequency": s.waveform.max_frequency(),
            })
        })
        .collect();
    let probes: Vec<Value> = model
        .probes
        .iter()
        .map(|p| {
            let samples: Vec<Value> = p
                .samples
                .iter()
                .map(|s| json!({ "component": s.component.name(), "index": s.index, "position": s.position }))
                .collect();
            json!({
                "name": p.name, "requested_position": p.position, "every": p.every,
                "first_step": p.every - 1, "samples": samples, "records": g.steps / p.every,
            })
        })
        .collect();
    let snapshots: Vec<Value> = model
        .snapshots
        .iter()
        .map(|s| {
            let comps: Vec<&str> = s.components.iter().map(|c| c.name()).collect();
            json!({
                "name": s.name, "components": comps, "every": s.every, "first_step": s.every - 1,
                "index_lo": s.lo, "index_hi": s.hi, "frames": g.steps / s.every,
            })
        })
        .collect();
    let monitors: Vec<Value> = model
        .monitors
        .iter()
        .map(|m| {
            json!({
                "name": m.name, "type": m.kind.name(), "samples": m.records(), "frequencies": m.freqs,
                "every": m.every, "state_bytes": m.state_bytes(), "faces": m.faces.len(),
            })
        })
        .collect();
    let materials: Vec<Value> = scene
        .materials
        .iter()
        .map(|m| match m.kind {
            MaterialKind::Dielectric { eps_r, mu_r, sigma } => {
                let eps: Vec<Value> = eps_in_band(m, &model)
                    .into_iter()
                    .map(|(f, (re, im))| json!({ "frequency": f, "re": re, "im": im }))
                    .collect();
                let poles: Vec<String> = m.poles.iter().map(|p| format!("{{ {p} }}")).collect();
                json!({ "name": m.name, "eps_r": eps_r, "mu_r": mu_r, "sigma": sigma, "poles": poles, "eps": eps })
            }
            MaterialKind::Pec => json!({ "name": m.name, "pec": true }),
        })
        .collect();
    let objects: Vec<Value> = fdtd::model::thin::coverage(&scene, g)
        .iter()
        .map(|c| {
            let wire = model.wires.iter().find(|w| w.object == c.index).map(|w| {
                json!({
                    "radius": w.radius, "factor_min": w.factor.0, "factor_max": w.factor.1,
                    "corrected_h": w.samples, "plain_h": w.skipped, "gaps": w.gaps,
                })
            });
            let stl = match &scene.objects[c.index].shape {
                fdtd::scene::Shape::Stl(m) => {
                    let (lo, hi) = m.bounds();
                    json!({
                        "file": m.file, "path": m.path, "triangles": m.triangle_count(), "vertices": m.vertex_count(),
                        "degenerate_dropped": m.repeated, "zero_area": m.flat, "min": lo, "max": hi,
                    })
                }
                _ => Value::Null,
            };
            json!({
                "index": c.index, "shape": c.shape, "material": c.material, "thin": c.thin,
                "cells": c.cells, "edges": c.edges, "empty": c.is_empty(), "wire_correction": wire, "stl": stl,
            })
        })
        .collect();
    let boundaries: serde_json::Map<String, Value> = Boundaries::FACE_NAMES
        .iter()
        .zip(&scene.boundaries.faces)
        .map(|(n, b)| (n.to_string(), json!(boundary(b))))
        .collect();
    let engines: [&dyn Engine; 2] = [&fdtd::backend::cpu::CpuEngine, &fdtd::backend::gpu::GpuEngine];
    let plan = session::plan_backend(
        &engines,
        &model,
        a.backend.backend.choice(),
        &a.backend.options(),
        session::DEFAULT_CHUNK,
        scene.checkpoint().enabled,
    );
    let plan = match plan {
        Ok(p) => {
            if p.kind == BackendChoice::Gpu && p.target.software {
                warnings.push(session::software_warning(&p.target.device));
            }
            let fits = p.kind == BackendChoice::Gpu || p.require_ram(&model).is_ok();
            json!({
                "backend": if p.kind == BackendChoice::Gpu { "gpu" } else { "cpu" },
                "device": p.target.device, "bytes": p.target.plan.total(), "fits": fits,
                "auto": p.auto.as_ref().map(|x| x.to_string()),
            })
        }
        Err(e) => json!({ "error": fail(&e).message }),
    };
    Ok(json!({
        "scene": path.display().to_string(),
        "valid": true,
        "grid": { "cells": g.n, "cell_size": g.d, "dt": g.dt, "steps": g.steps, "courant": g.courant,
                  "simulated_time": g.dt * g.steps as f64 },
        "domain": scene.domain.size(),
        "boundaries": boundaries,
        "materials": materials,
        "objects": objects,
        "sources": sources,
        "plane_waves": model.plane_waves.iter().map(|w| json!({
            "name": w.name,
            "m": w.m,
            "theta": w.theta,
            "phi": w.phi,
            "direction_error_deg": w.error_deg,
            "k": w.k,
            "e": w.e,
            "box_nodes": w.nodes,
            "line_samples": w.len,
        })).collect::<Vec<Value>>(),
        "probes": probes,
        "snapshots": snapshots,
        "monitors": monitors,
        "ports": model.ports.iter().map(|p| json!({
            "name": p.name, "z0": p.z0, "driven": p.driven, "axis": p.component().name(),
            "edges": p.edges, "series": p.series, "parallel": p.columns, "r_edge": p.r_edge,
        })).collect::<Vec<Value>>(),
        "lumped": model.lumped.iter().map(|l| json!({
            "name": l.name, "axis": fdtd::Component::ALL[l.axis].name(), "edges": l.edges,
            "r_edge": l.r_edge, "l_edge": l.l_edge, "c_edge": l.c_edge,
        })).collect::<Vec<Value>>(),
        "frequencies": model.frequencies.len(),
        "output_bytes": session::resources::output_bytes(&scene, &model, 0),
        "checkpoint_bytes": fdtd::runner::checkpoint_bytes(&model),
        "resolution": model.resolution.map(|(f, cpw)| json!({ "frequency": f, "cells_per_wavelength": cpw })),
        "plan": plan,
        "warnings": warnings,
    }))
}

fn check_one(path: &Path, a: &CheckArgs) -> Result<(), CliError> {
    let fail = |e: &session::SessionError| CliError::session(e, None);
    let source = SceneSource::Path(path.to_path_buf());
    let (scene, model) = session::load(&source, a.backend.backend != BackendArg::Gpu).map_err(|e| fail(&e))?;
    let model = fdtd_core::Simulation::standard(model);
    print_report(&scene, &model);
    if a.schedule {
        outln!("step (in order; index ranges are half-open lo..hi per axis)");
        out!("{}", model.schedule);
    }
    for w in session::scene_warnings(&scene, &model) {
        errln!("warning: {w}");
    }
    if let Some(w) = session::resolution_warning(&model) {
        errln!("warning: {w}");
    }
    let gpu = GpuWithInfo::default();
    let engines: [&dyn Engine; 2] = [&fdtd::backend::cpu::CpuEngine, &gpu];
    let plan = session::plan_backend(
        &engines,
        &model,
        a.backend.backend.choice(),
        &a.backend.options(),
        session::DEFAULT_CHUNK,
        scene.checkpoint().enabled,
    )
    .map_err(|e| fail(&e))?;
    if plan.kind == BackendChoice::Gpu {
        if plan.target.software {
            errln!("warning: {}", session::software_warning(&plan.target.device));
        }
        outln!("memory plan (gpu backend on {})", plan.target.device);
        outln!("{}", plan.target.plan);
        if let Some(info) = gpu.0.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            outln!("  fits: {}", info.memory.describe());
        }
        outln!("host memory plan (the model and staging in RAM)");
        outln!("{}", plan.host);
        if let Some(ram) = &plan.ram {
            outln!("  {ram}");
        }
        plan.require_ram(&model).map_err(|e| fail(&e))?;
        return Ok(());
    }
    match &plan.auto {
        Some(why @ Auto::Cpu(_)) => outln!(
            "memory plan (cpu backend; auto would not use a GPU: {})",
            auto_note(why)
        ),
        _ => outln!("memory plan (cpu backend)"),
    }
    outln!("{}", plan.target.plan);
    if let Some(ram) = &plan.ram {
        outln!("  {ram}");
    }
    plan.require_ram(&model).map_err(|e| fail(&e))
}

//! `fdtd check`: validate a scene and print what a run would do and need, through the
//! session's own loading, checks and backend rule ([`fdtd::session`]).
use super::{auto_note, exit, BackendArg, CheckArgs, CliError};
use fdtd::backend::{gpu, Auto, Backend, BackendChoice, BackendError, BackendOptions, Engine, Target};
use fdtd::fmt::{hz, lengths, point, si, sig, thousands};
use fdtd::model::Model;
use fdtd::plan::human_bytes;
use fdtd::scene::{Boundaries, Boundary, MaterialKind, Scene, SourceKind};
use fdtd::session::{self, SceneSource};
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

    fn plan(&self, model: &Model, opts: &BackendOptions) -> Result<Target, BackendError> {
        let (plan, info) = gpu::plan(model, opts)?;
        let target = Target {
            plan,
            device: info.short(),
            software: info.is_software(),
        };
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(info);
        Ok(target)
    }

    fn create(&self, model: Arc<Model>, opts: &BackendOptions) -> Result<Box<dyn Backend>, BackendError> {
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

fn print_report(scene: &Scene, model: &Model) {
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
    }
    outln!(
        "  distinct averaged materials on the grid: {} E, {} H",
        model.coefs.e.len(),
        model.coefs.h.len()
    );

    outln!("sources ({})", model.sources.len());
    for s in &model.sources {
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

pub fn check(a: &CheckArgs) -> Result<i32, CliError> {
    let fail = |e: &session::SessionError| CliError::session(e, None);
    let source = SceneSource::Path(a.scene.clone());
    let (scene, model) = session::load(&source, a.backend.backend != BackendArg::Gpu).map_err(|e| fail(&e))?;
    print_report(&scene, &model);
    if a.schedule {
        outln!("step (in order; index ranges are half-open lo..hi per axis)");
        out!("{}", model.schedule);
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
        return Ok(exit::OK);
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
    plan.require_ram(&model).map_err(|e| fail(&e))?;
    Ok(exit::OK)
}

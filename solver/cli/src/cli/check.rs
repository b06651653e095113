//! `fdtd check`: validate a scene and print what a run would do and need.
use super::fmt::{lengths, point, si, sig, thousands};
use super::memory;
use super::{exit, load, resolution_warning, BackendArg, CheckArgs, CliError};
use fdtd::backend::gpu;
use fdtd::model::Model;
use fdtd::plan::human_bytes;
use fdtd::scene::{Boundaries, Boundary, MaterialKind, Scene, SourceKind};

/// Steps per chunk `fdtd run` uses by default (for the staging estimate).
const CHUNK: usize = 64;

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
    println!("scene      {}: valid", scene.path.display());
    println!(
        "grid       {} × {} × {} = {} cells",
        g.n[0],
        g.n[1],
        g.n[2],
        thousands(g.cells())
    );
    println!("cell size  {}", lengths(g.d));
    println!("domain     {}", lengths(scene.domain.size()));
    println!("time step  {} (Courant {})", si(g.dt, "s"), g.courant);
    println!(
        "steps      {} ({} simulated)",
        thousands(g.steps as u64),
        si(g.dt * g.steps as f64, "s")
    );

    println!("boundaries");
    for (name, b) in Boundaries::FACE_NAMES.iter().zip(&scene.boundaries.faces) {
        println!("  {name:<6} {}", boundary(b));
    }

    println!("materials");
    println!("  {:<16} {:>10} {:>10} {:>12}", "name", "eps_r", "mu_r", "sigma (S/m)");
    for m in &scene.materials {
        match m.kind {
            MaterialKind::Dielectric { eps_r, mu_r, sigma } => println!(
                "  {:<16} {:>10} {:>10} {:>12}",
                m.name,
                sig(eps_r, 6),
                sig(mu_r, 6),
                sig(sigma, 6)
            ),
            MaterialKind::Pec => println!("  {:<16} {:>10}", m.name, "PEC"),
        }
    }
    println!(
        "  distinct averaged materials on the grid: {} E, {} H",
        model.coefs.e.len(),
        model.coefs.h.len()
    );

    println!("sources ({})", model.sources.len());
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
        println!(
            "  {:<16} {kind} {} at {requested} → index {:?}, up to {}",
            s.name,
            s.component,
            s.index,
            memory::hz(s.waveform.max_frequency())
        );
    }

    println!("probes ({})", model.probes.len());
    for p in &model.probes {
        let samples: Vec<String> = p
            .samples
            .iter()
            .map(|s| format!("{} {:?}", s.component, s.index))
            .collect();
        println!(
            "  {:<16} at {}, every {}: {}",
            p.name,
            point(p.position),
            p.every,
            samples.join(", ")
        );
    }

    println!("snapshots ({})", model.snapshots.len());
    let mut out_bytes: u64 = model
        .probes
        .iter()
        .map(|p| (g.steps / p.every) as u64 * (p.samples.len() as u64 * 4 + 16))
        .sum();
    for s in &model.snapshots {
        let frames = (g.steps / s.every) as u64;
        let per_frame: u64 = s
            .components
            .iter()
            .map(|&c| s.component_shape(c, g).iter().map(|&x| x as u64).product::<u64>() * 4)
            .sum();
        out_bytes += frames * per_frame;
        let comps: Vec<&str> = s.components.iter().map(|c| c.name()).collect();
        println!(
            "  {:<16} {} nodes {:?}..{:?} (exclusive), every {}: {frames} frames of {}",
            s.name,
            comps.join(", "),
            s.lo,
            s.hi,
            s.every,
            human_bytes(per_frame)
        );
    }
    println!("output     about {} before compression", human_bytes(out_bytes));
    let ck = scene.checkpoint();
    let when = if !ck.enabled {
        "off ([checkpoint] enabled = false)".to_string()
    } else if ck.every_steps.is_some() || ck.every_seconds.is_some() {
        fdtd::checkpoint::Interval {
            steps: ck.every_steps,
            time: ck.every_seconds.map(std::time::Duration::from_secs_f64),
        }
        .describe()
    } else {
        fdtd::checkpoint::Interval::default_time().describe()
    };
    println!(
        "checkpoint {} each, {when} and when stopped (two kept on disk)",
        human_bytes(fdtd::checkpoint::size(model))
    );

    match model.resolution {
        Some((f, cpw)) => println!(
            "resolution {} cells per wavelength at {} (at least 10 recommended)",
            sig(cpw, 3),
            memory::hz(f)
        ),
        None => println!("resolution (no sources)"),
    }
}

pub fn check(a: &CheckArgs) -> Result<i32, CliError> {
    let (scene, model) = load(&a.scene, a.backend.backend != BackendArg::Gpu)?;
    fdtd::runner::preflight(&model).map_err(|e| CliError::bad_input(format!("{}: {e}", a.scene.display())))?;
    print_report(&scene, &model);
    if let Some(w) = resolution_warning(&model) {
        eprintln!("warning: {w}");
    }

    let choice = a.backend.backend;
    let opts = a.backend.options();
    let mut note = None;
    if choice != BackendArg::Cpu {
        match gpu::plan(&model, &opts) {
            Ok((plan, info)) if choice == BackendArg::Gpu || !super::run::skip_for_auto(&info, &opts) => {
                println!("memory plan (gpu backend on {})", info.short());
                println!("{plan}");
                println!("  fits: {}", info.memory.describe());
                return Ok(exit::OK);
            }
            Ok((_, info)) => note = Some(super::run::software_note(&info)),
            Err(e) if choice == BackendArg::Gpu => return Err(CliError::backend(&e)),
            Err(e) => note = Some(e.to_string()),
        }
    }

    let plan = memory::cpu_plan(&model, CHUNK);
    match &note {
        None => println!("memory plan (cpu backend)"),
        Some(why) => println!("memory plan (cpu backend; auto would not use a GPU: {why})"),
    }
    println!("{plan}");
    let need = plan.total();
    let avail = memory::available_ram();
    let (fits, line) = memory::verdict(need, avail);
    println!("  {line}");
    if fits {
        Ok(exit::OK)
    } else {
        Err(CliError::new(
            exit::DOES_NOT_FIT,
            format!(
                "the run does not fit in RAM: {}",
                memory::does_not_fit(model.grid.n, model.grid.d, need, avail.unwrap_or(0))
            ),
        ))
    }
}

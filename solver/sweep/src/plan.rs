//! `fdtd sweep plan`: expand the sweep, write every variant's scene into the sweep
//! directory, validate them all, and plan each one's memory and cost. `run` and
//! `submit` start from the same plan, so nothing runs or is submitted unless every
//! variant is valid.
use crate::expand::{self, Variant};
use crate::fsafe::{self, read_nofollow, SweepLock};
use crate::layout::{write_atomic, Entry, Layout, Manifest, MANIFEST_FORMAT};
use crate::spec::{self, Overrides, SweepSpec};
use crate::{SweepError, VariantError};
use fdtd_core::backend::{BackendChoice, BackendOptions, Engine};
use fdtd_core::model::Model;
use fdtd_core::session::{self, SceneSource, DEFAULT_CHUNK};
use std::path::Path;

/// One variant, checked and planned.
#[derive(Debug)]
pub struct PlannedVariant {
    pub variant: Variant,
    pub entry: Entry,
    /// The backend it would run on (`Cpu`/`Gpu`) and the device, in a few words.
    pub backend: BackendChoice,
    pub device: String,
    /// For the CPU: whether the plan fits the RAM available now.
    pub fits: bool,
    /// Fewer than 10 cells per wavelength, etc.
    pub warning: Option<String>,
}

/// A planned sweep.
#[derive(Debug)]
pub struct Planned {
    pub spec: SweepSpec,
    pub layout: Layout,
    pub manifest: Manifest,
    pub variants: Vec<PlannedVariant>,
    /// The sweep directory's lock, held while this plan is used (`run`, `submit`).
    pub lock: SweepLock,
}

/// How to plan: which backend the variants would use.
pub struct PlanOptions<'a> {
    pub engines: &'a [&'a dyn Engine],
    pub backend: BackendChoice,
    pub backend_options: BackendOptions,
    /// The sweep directory and base scene from the command line, if given.
    pub overrides: Overrides,
    /// The command, for the lock file (`plan`, `run`, `submit`).
    pub command: &'a str,
}

/// Parse the sweep file, expand it, write the sweep directory (scenes, manifest, a copy
/// of the sweep file) and plan every variant. All invalid variants are reported together
/// ([`SweepError::Variants`]); their scenes are written anyway, so the `file:line:col` in
/// each message can be opened.
pub fn plan(sweep_file: &Path, opts: &PlanOptions) -> Result<Planned, SweepError> {
    let spec = spec::load_with(sweep_file, &opts.overrides)?;
    let rel = spec
        .directory
        .strip_prefix(&spec.directory_anchor)
        .unwrap_or(&spec.directory)
        .to_path_buf();
    fsafe::make_dirs(&spec.directory_anchor, &rel)?;
    let dir = spec
        .directory
        .canonicalize()
        .map_err(|e| SweepError::io(&spec.directory, "resolving the directory", e))?;
    let layout = Layout::new(dir);
    let me = absolute(&spec.path);
    fsafe::check_no_links(&layout.dir)?;
    check_owner(&layout, &me)?;
    let lock = fsafe::lock(&layout.dir, opts.command)?;
    write_atomic(&layout.owner(), format!("{}\n", me.display()).as_bytes())?;
    let variants = expand::expand(&spec, |id| layout.scene(id))?;
    fsafe::real_dir(&layout.variants_dir())?;
    for v in &variants {
        fsafe::real_dir(&layout.variant_dir(&v.id))?;
        let path = layout.scene(&v.id);
        if read_nofollow(&path).ok().flatten().as_deref() != Some(v.text.as_bytes()) {
            write_atomic(&path, v.text.as_bytes())?;
        }
    }
    expand::check(&variants)?;

    let mut errors = Vec::new();
    let mut planned = Vec::new();
    for v in variants {
        let scene = v.scene.as_ref().expect("checked").clone();
        let cpu = opts.backend != BackendChoice::Gpu;
        // Each variant writes checkpoints unless its scene turns them off.
        let state_copy = scene.checkpoint().enabled;
        let result = session::load(&SceneSource::Scene(Box::new(scene)), cpu).and_then(|(_, model)| {
            let model = fdtd_core::Simulation::standard(model);
            let p = session::plan_backend(
                opts.engines,
                &model,
                opts.backend,
                &opts.backend_options,
                DEFAULT_CHUNK,
                state_copy,
            )?;
            Ok((model, p))
        });
        match result {
            Ok((model, p)) => {
                let entry = Entry {
                    id: v.id.clone(),
                    values: v.values.iter().map(|(_, x)| x.clone()).collect(),
                    cells: model.grid.cells(),
                    steps: model.grid.steps as u64,
                    memory: p.target.plan.total(),
                };
                planned.push(PlannedVariant {
                    entry,
                    backend: p.kind,
                    device: p.target.device.clone(),
                    fits: p.ram.is_none_or(|r| r.fits()),
                    warning: warning(&model),
                    variant: v,
                });
            }
            Err(e) => errors.push(VariantError {
                id: v.id.clone(),
                params: v.describe(),
                message: e.to_string(),
            }),
        }
    }
    if !errors.is_empty() {
        return Err(SweepError::Variants {
            total: errors.len() + planned.len(),
            errors,
        });
    }
    let columns: Vec<String> = planned
        .first()
        .map(|p| p.variant.values.iter().map(|(k, _)| k.clone()).collect())
        .unwrap_or_default();
    let manifest = Manifest {
        format: MANIFEST_FORMAT,
        name: spec.name.clone(),
        sweep_file: absolute(&spec.path),
        base: absolute(&spec.base),
        columns,
        parameters: spec.parameters.len(),
        figures: spec.figures.clone(),
        variants: planned.iter().map(|p| p.entry.clone()).collect(),
    };
    manifest.write(&layout)?;
    write_atomic(&layout.sweep_copy(), spec.text.as_bytes())?;
    Ok(Planned {
        spec,
        layout,
        manifest,
        variants: planned,
        lock,
    })
}

/// The sweep directory must be this sweep's: marked with this sweep file, or empty (a
/// directory planned before the mark existed counts when its manifest names this sweep
/// file). Anything else is refused, so a sweep file cannot overwrite another sweep or
/// an unrelated folder.
fn check_owner(layout: &Layout, me: &Path) -> Result<(), SweepError> {
    let refuse = |message: String| SweepError::Unsafe {
        path: layout.dir.clone(),
        message,
    };
    match read_nofollow(&layout.owner()) {
        Ok(Some(b)) => {
            let other = String::from_utf8_lossy(&b).trim().to_string();
            if Path::new(&other) == me {
                return Ok(());
            }
            return Err(refuse(format!(
                "is the directory of another sweep ({other}); choose another [sweep] directory \
                 (if you moved or renamed that sweep file, delete {} to take the directory over)",
                layout.owner().display()
            )));
        }
        Ok(None) => {}
        Err(_) if fsafe::is_link(&layout.owner()) => return Err(fsafe::link_error(&layout.owner())),
        Err(e) => return Err(SweepError::io(layout.owner(), "reading", e)),
    }
    let entries = std::fs::read_dir(&layout.dir).map_err(|e| SweepError::io(&layout.dir, "listing", e))?;
    let mut others = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != fsafe::LOCK_FILE);
    let Some(first) = others.next() else {
        return Ok(());
    };
    if Manifest::read(layout).is_ok_and(|m| m.sweep_file == me) {
        return Ok(());
    }
    Err(refuse(format!(
        "is not empty (it holds {first:?}) and is not this sweep's directory: fdtd sweep writes only into an \
         empty directory or one it made for this sweep file; choose another [sweep] directory"
    )))
}

fn warning(model: &Model) -> Option<String> {
    session::resolution_warning(model)
}

fn absolute(p: &Path) -> std::path::PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

//! `fdtd sweep plan`: expand the sweep, write every variant's scene into the sweep
//! directory, validate them all, and plan each one's memory and cost. `run` and
//! `submit` start from the same plan, so nothing runs or is submitted unless every
//! variant is valid.
use crate::expand::{self, Variant};
use crate::layout::{create_dir, write_atomic, Entry, Layout, Manifest, MANIFEST_FORMAT};
use crate::spec::{self, SweepSpec};
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
}

/// How to plan: which backend the variants would use.
pub struct PlanOptions<'a> {
    pub engines: &'a [&'a dyn Engine],
    pub backend: BackendChoice,
    pub backend_options: BackendOptions,
}

/// Parse the sweep file, expand it, write the sweep directory (scenes, manifest, a copy
/// of the sweep file) and plan every variant. All invalid variants are reported together
/// ([`SweepError::Variants`]); their scenes are written anyway, so the `file:line:col` in
/// each message can be opened.
pub fn plan(sweep_file: &Path, opts: &PlanOptions) -> Result<Planned, SweepError> {
    let spec = spec::load(sweep_file)?;
    let dir = create_dir(&spec.directory)?;
    let layout = Layout::new(dir);
    let variants = expand::expand(&spec, |id| layout.scene(id))?;
    for v in &variants {
        let vdir = layout.variant_dir(&v.id);
        std::fs::create_dir_all(&vdir).map_err(|e| SweepError::io(&vdir, "creating the variant directory", e))?;
        let path = layout.scene(&v.id);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(v.text.as_str()) {
            write_atomic(&path, v.text.as_bytes())?;
        }
    }
    expand::check(&variants)?;

    let mut errors = Vec::new();
    let mut planned = Vec::new();
    for v in variants {
        let scene = v.scene.as_ref().expect("checked").clone();
        let cpu = opts.backend != BackendChoice::Gpu;
        let result = session::load(&SceneSource::Scene(Box::new(scene)), cpu).and_then(|(scene, model)| {
            let state_copy = scene.checkpoint().enabled;
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
    })
}

fn warning(model: &Model) -> Option<String> {
    session::resolution_warning(model)
}

fn absolute(p: &Path) -> std::path::PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

//! The sweep directory: where every file of a sweep lives, and its manifest.
//!
//! ```text
//! <dir>/sweep.toml               the sweep file as planned (a copy)
//! <dir>/manifest.json            variants, their values, sizes and the figures to collect
//! <dir>/variants/<id>/scene.toml the variant's scene
//! <dir>/variants/<id>/result.h5  its output (status attribute "complete" when done)
//! <dir>/variants/<id>/status     state=..., written by the run or the Slurm task itself
//! <dir>/variants/<id>/log        the run's output
//! <dir>/slurm/array.sbatch       the job-array script; slurm/jobs: submitted job ids
//! <dir>/summary.h5, summary.csv  what `fdtd sweep collect` writes
//! ```
use crate::keys::SceneValue;
use crate::spec::Figure;
use crate::SweepError;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Version of `manifest.json`.
pub const MANIFEST_FORMAT: u32 = 1;

/// The paths of a sweep directory.
#[derive(Clone, Debug)]
pub struct Layout {
    pub dir: PathBuf,
}

impl Layout {
    pub fn new(dir: impl Into<PathBuf>) -> Layout {
        Layout { dir: dir.into() }
    }
    pub fn manifest(&self) -> PathBuf {
        self.dir.join("manifest.json")
    }
    pub fn sweep_copy(&self) -> PathBuf {
        self.dir.join("sweep.toml")
    }
    pub fn variant_dir(&self, id: &str) -> PathBuf {
        self.dir.join("variants").join(id)
    }
    pub fn scene(&self, id: &str) -> PathBuf {
        self.variant_dir(id).join("scene.toml")
    }
    pub fn output(&self, id: &str) -> PathBuf {
        self.variant_dir(id).join("result.h5")
    }
    pub fn status(&self, id: &str) -> PathBuf {
        self.variant_dir(id).join("status")
    }
    pub fn log(&self, id: &str) -> PathBuf {
        self.variant_dir(id).join("log")
    }
    pub fn slurm_dir(&self) -> PathBuf {
        self.dir.join("slurm")
    }
    pub fn script(&self) -> PathBuf {
        self.slurm_dir().join("array.sbatch")
    }
    /// One line per submission: `<job id> <task>=<variant id>,...`.
    pub fn jobs(&self) -> PathBuf {
        self.slurm_dir().join("jobs")
    }
    pub fn summary_h5(&self) -> PathBuf {
        self.dir.join("summary.h5")
    }
    pub fn summary_csv(&self) -> PathBuf {
        self.dir.join("summary.csv")
    }
}

/// One variant in the manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub id: String,
    /// In the order of [`Manifest::columns`].
    pub values: Vec<SceneValue>,
    /// Grid cells and time steps (cost = cells × steps cell updates).
    pub cells: u64,
    pub steps: u64,
    /// The memory plan's total on the backend it would run on (bytes).
    pub memory: u64,
}

/// `manifest.json`: what `status` and `collect` need without the sweep file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    pub name: String,
    /// The sweep file and base scene, as given when planned.
    pub sweep_file: PathBuf,
    pub base: PathBuf,
    /// Parameter names, then derived value names.
    pub columns: Vec<String>,
    /// How many of `columns` are swept parameters (the rest are derived).
    pub parameters: usize,
    pub figures: Vec<Figure>,
    pub variants: Vec<Entry>,
}

impl Manifest {
    pub fn read(layout: &Layout) -> Result<Manifest, SweepError> {
        let path = layout.manifest();
        let text = std::fs::read_to_string(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                SweepError::Manifest {
                    path: path.clone(),
                    message: format!(
                        "not found: {} is not a sweep directory (`fdtd sweep plan SWEEP.toml` makes one)",
                        layout.dir.display()
                    ),
                }
            } else {
                SweepError::io(&path, "reading the sweep manifest", e)
            }
        })?;
        let m: Manifest = serde_json::from_str(&text).map_err(|e| SweepError::Manifest {
            path: path.clone(),
            message: format!("damaged manifest: {e} (plan the sweep again to rewrite it)"),
        })?;
        if m.format != MANIFEST_FORMAT {
            return Err(SweepError::Manifest {
                path,
                message: format!(
                    "manifest format {} is not {MANIFEST_FORMAT} (written by another fdtd version; plan the sweep again)",
                    m.format
                ),
            });
        }
        Ok(m)
    }

    pub fn write(&self, layout: &Layout) -> Result<(), SweepError> {
        let text = serde_json::to_string_pretty(self).expect("a manifest serialises");
        write_atomic(&layout.manifest(), text.as_bytes())
    }

    pub fn entry(&self, id: &str) -> Option<&Entry> {
        self.variants.iter().find(|e| e.id == id)
    }
}

/// Write `path` through a temporary file and a rename, so readers never see half a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), SweepError> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).map_err(|e| SweepError::io(&tmp, "writing", e))?;
    std::fs::rename(&tmp, path).map_err(|e| SweepError::io(path, "renaming into place", e))
}

/// Create `dir` (and parents) and return it absolute.
pub fn create_dir(dir: &Path) -> Result<PathBuf, SweepError> {
    std::fs::create_dir_all(dir).map_err(|e| SweepError::io(dir, "creating the directory", e))?;
    dir.canonicalize()
        .map_err(|e| SweepError::io(dir, "resolving the directory", e))
}

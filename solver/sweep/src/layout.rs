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
use std::path::PathBuf;

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
    pub fn variants_dir(&self) -> PathBuf {
        self.dir.join("variants")
    }
    pub fn variant_dir(&self, id: &str) -> PathBuf {
        self.variants_dir().join(id)
    }
    /// Names the sweep file this directory belongs to (its absolute path), written when
    /// the directory is first planned; a directory holding another sweep is refused.
    pub fn owner(&self) -> PathBuf {
        self.dir.join(".fdtd-sweep")
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
        let text = crate::fsafe::read_nofollow(&path).and_then(|b| {
            let b = b.ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))?;
            String::from_utf8(b).map_err(|_| std::io::Error::other("not UTF-8 text"))
        });
        let text = text.map_err(|e| {
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
        m.validate().map_err(|message| SweepError::Manifest {
            path: path.clone(),
            message: format!("damaged manifest: {message} (plan the sweep again to rewrite it)"),
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

    /// What `status` and `collect` rely on: ids that name folders inside the sweep
    /// (`v` and digits, each once), one value per column, columns usable as names.
    fn validate(&self) -> Result<(), String> {
        if self.parameters > self.columns.len() {
            return Err(format!(
                "{} parameters but {} columns",
                self.parameters,
                self.columns.len()
            ));
        }
        for c in &self.columns {
            if !valid_column(c) {
                return Err(format!("column {c:?} is not a name"));
            }
        }
        for f in &self.figures {
            if !valid_column(f.name()) {
                return Err(format!("figure {:?} is not a name", f.name()));
            }
        }
        let mut seen = std::collections::HashSet::new();
        for e in &self.variants {
            if !valid_id(&e.id) {
                return Err(format!("variant id {:?} is not v followed by digits", e.id));
            }
            if !seen.insert(e.id.as_str()) {
                return Err(format!("variant id {:?} appears twice", e.id));
            }
            if e.values.len() != self.columns.len() {
                return Err(format!(
                    "variant {} has {} values for {} columns",
                    e.id,
                    e.values.len(),
                    self.columns.len()
                ));
            }
        }
        Ok(())
    }

    pub fn entry(&self, id: &str) -> Option<&Entry> {
        self.variants.iter().find(|e| e.id == id)
    }
}

pub use crate::fsafe::write_atomic;

/// Whether `id` is a variant id as [`crate::expand::variant_id`] makes them (`v` and
/// digits): ids from a manifest name folders, so `../x` must never pass.
pub fn valid_id(id: &str) -> bool {
    id.len() >= 2 && id.len() <= 12 && id.starts_with('v') && id[1..].bytes().all(|b| b.is_ascii_digit())
}

/// Whether `name` can be a summary column (and an HDF5 dataset name).
fn valid_column(name: &str) -> bool {
    let mut c = name.chars();
    !name.is_empty()
        && name.len() <= 200
        && c.next().is_some_and(|f| f.is_alphabetic() || f == '_')
        && c.all(|x| x.is_alphanumeric() || x == '_')
}

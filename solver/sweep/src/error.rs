//! What can go wrong in a sweep, as types; every message names the file, the key or
//! the variant, and what is wrong.
use fdtd_scene::SceneError;
use std::fmt;
use std::path::PathBuf;
use thiserror::Error;

/// A variant whose scene is invalid, or cannot run here (its grid does not fit).
#[derive(Debug)]
pub struct VariantError {
    /// The variant's id (`v003`) and its parameters as `name=value` pairs.
    pub id: String,
    pub params: String,
    /// The scene's diagnostic (`file:line:col: key: message`) or the session's error.
    pub message: String,
}

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "variant {} ({}): {}",
            self.id,
            self.params,
            self.message.replace('\n', "\n    ")
        )
    }
}

#[derive(Debug, Error)]
pub enum SweepError {
    #[error("{what} {}: {source}", path.display())]
    Io {
        path: PathBuf,
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
    /// The sweep file itself (shown as `file:line:col: key: message`).
    #[error("{0}")]
    Invalid(SceneError),
    /// The base scene does not load.
    #[error("the base scene is invalid: {0}")]
    Base(SceneError),
    /// Some variants are invalid; all of them are listed, nothing has run.
    #[error("{} of {total} variants are invalid (nothing was run or submitted):\n{}", errors.len(), list(errors))]
    Variants { total: usize, errors: Vec<VariantError> },
    /// The sweep directory is not one `fdtd sweep` wrote, or its manifest is damaged.
    #[error("{}: {message}", path.display())]
    Manifest { path: PathBuf, message: String },
    /// Slurm: a command failed or is missing.
    #[error("{0}")]
    Scheduler(String),
    /// A path the sweep would write through a link, or a directory it may not use.
    #[error("{}: {message}", path.display())]
    Unsafe { path: PathBuf, message: String },
    /// Another `fdtd sweep` holds the sweep directory's lock (exit code 3).
    #[error(
        "{} is in use by another fdtd sweep ({holder}): wait for it to finish or stop it \
         (`fdtd sweep status {}` shows its variants)",
        dir.display(),
        dir.display()
    )]
    Busy { dir: PathBuf, holder: String },
    /// Reading a variant's output or writing the summary.
    #[error("{}: {message}", path.display())]
    Hdf5 { path: PathBuf, message: String },
}

fn list(errors: &[VariantError]) -> String {
    errors.iter().map(|e| format!("  {e}")).collect::<Vec<_>>().join("\n")
}

impl SweepError {
    pub(crate) fn io(path: impl Into<PathBuf>, what: &'static str, source: std::io::Error) -> SweepError {
        SweepError::Io {
            path: path.into(),
            what,
            source,
        }
    }

    /// Bad input (exit code 2) or a runtime failure (3).
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            SweepError::Invalid(_)
                | SweepError::Base(_)
                | SweepError::Variants { .. }
                | SweepError::Manifest { .. }
                | SweepError::Unsafe { .. }
        )
    }
}

//! Errors from reading and validating a scene.
use std::fmt;
use std::path::PathBuf;
use thiserror::Error;

/// Why a scene could not be loaded.
///
/// [`SceneError::Invalid`] displays like a compiler diagnostic:
///
/// ```text
/// scenes/foo.toml:12:5: sources[1].component: unknown field component "Eq"
///   help: did you mean "Ex"?
/// ```
#[derive(Debug, Error)]
pub enum SceneError {
    /// The file could not be read.
    #[error("cannot read scene file {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The text is not valid TOML, or not a valid scene.
    #[error("{}", Diagnostic { path, line: *line, column: *column, key, message, hint })]
    Invalid {
        path: PathBuf,
        /// 1-based line of the offending text.
        line: usize,
        /// 1-based column (in characters) of the offending text.
        column: usize,
        /// Dotted key path, e.g. `sources[1].waveform.frequency`; empty for TOML
        /// syntax errors and problems with the document as a whole.
        key: String,
        message: String,
        /// A suggestion, e.g. `did you mean "Ex"?`.
        hint: Option<String>,
    },
    /// Several independent problems, each an [`SceneError::Invalid`], sorted by position.
    #[error("{}", Several(.0))]
    Several(Vec<SceneError>),
}

struct Several<'a>(&'a [SceneError]);

impl fmt::Display for Several<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\nerror: ")?;
            }
            write!(f, "{e}")?;
        }
        write!(f, "\n({} problems)", self.0.len())
    }
}

impl SceneError {
    /// `(line, column)`, 1-based, for [`SceneError::Invalid`] (the first of [`SceneError::Several`]).
    pub fn position(&self) -> Option<(usize, usize)> {
        match self {
            SceneError::Invalid { line, column, .. } => Some((*line, *column)),
            SceneError::Several(all) => all.first().and_then(SceneError::position),
            SceneError::Io { .. } => None,
        }
    }
}

struct Diagnostic<'a> {
    path: &'a PathBuf,
    line: usize,
    column: usize,
    key: &'a str,
    message: &'a str,
    hint: &'a Option<String>,
}

impl fmt::Display for Diagnostic<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: ", self.path.display(), self.line, self.column)?;
        if !self.key.is_empty() {
            write!(f, "{}: ", self.key)?;
        }
        f.write_str(self.message)?;
        if let Some(hint) = self.hint {
            write!(f, "\n  help: {hint}")?;
        }
        Ok(())
    }
}

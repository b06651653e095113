//! Writing a file whole, never through a link: the one way every output beside the
//! HDF5 result is written (XDMF, figures, the sweep's files).
//!
//! The bytes go to a fresh temporary file beside the target (`.NAME.<pid>-<n>.tmp`,
//! created with `O_EXCL | O_NOFOLLOW`, so never through a link planted at its name),
//! which is renamed over the target once complete: a reader sees the old file or the new
//! one, never half of one, and a rename replaces a link at the name instead of writing
//! to the file it points to. A temporary that is not committed is removed.
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static SERIAL: AtomicU64 = AtomicU64::new(0);

/// `DIR/.NAME.<pid>-<n>.tmp` beside `path`: a name no other writer in this process or
/// another uses.
pub fn temp_beside(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let n = SERIAL.fetch_add(1, Ordering::Relaxed);
    let tmp = format!(".{name}.{}-{n}.tmp", std::process::id());
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.join(tmp),
        _ => PathBuf::from(tmp),
    }
}

/// Create a file that does not exist yet, never through a link, not inherited by
/// children.
pub fn create_new(path: &Path) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
    }
    o.open(path)
}

/// A file being written under a temporary name; [`NewFile::commit`] gives it its name.
#[derive(Debug)]
pub struct NewFile {
    tmp: PathBuf,
    path: PathBuf,
    file: Option<File>,
}

impl NewFile {
    /// A fresh temporary beside `path`. On error, the path in the error's context is
    /// [`NewFile::temp_for`]'s.
    pub fn create(path: &Path) -> io::Result<NewFile> {
        for _ in 0..64 {
            let tmp = temp_beside(path);
            match create_new(&tmp) {
                Ok(f) => {
                    return Ok(NewFile {
                        tmp,
                        path: path.to_path_buf(),
                        file: Some(f),
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "cannot find a free temporary name beside it",
        ))
    }

    /// The temporary's name (for messages).
    pub fn temp(&self) -> &Path {
        &self.tmp
    }

    /// The open temporary file (`None` once committed).
    pub fn file(&mut self) -> Option<&mut File> {
        self.file.as_mut()
    }

    /// Close the temporary and rename it over the target (a directory there is refused;
    /// a file or a link there is replaced). The temporary is removed on failure.
    pub fn commit(mut self) -> io::Result<()> {
        if let Some(mut f) = self.file.take() {
            f.flush()?;
        }
        if fs::symlink_metadata(&self.path).is_ok_and(|m| m.is_dir()) {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory, not a file",
            ));
        }
        fs::rename(&self.tmp, &self.path)?;
        self.tmp = PathBuf::new();
        Ok(())
    }
}

impl Drop for NewFile {
    fn drop(&mut self) {
        self.file = None;
        if !self.tmp.as_os_str().is_empty() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Write `bytes` to `path` whole (see the module doc).
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = NewFile::create(path)?;
    if let Some(file) = f.file() {
        file.write_all(bytes)?;
    }
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_replaced_whole_and_no_temporary_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        write(&p, b"one").unwrap();
        write(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_link_is_replaced_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, "keep me").unwrap();
        let p = dir.path().join("out.png");
        std::os::unix::fs::symlink(&victim, &p).unwrap();
        write(&p, b"figure").unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep me");
        assert!(!fs::symlink_metadata(&p).unwrap().file_type().is_symlink());
    }

    #[test]
    fn a_directory_at_the_name_is_refused_and_the_temporary_removed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d");
        fs::create_dir(&p).unwrap();
        assert!(write(&p, b"x").is_err());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn an_uncommitted_file_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a");
        let f = NewFile::create(&p).unwrap();
        assert!(f.temp().exists());
        drop(f);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}

//! Creating an output file without losing the one it replaces, and without two runs
//! writing one file.
//!
//! A new output is built under a temporary name in the same directory
//! ([`temp_path`], created with `O_EXCL`, so never through a planted link), and only
//! once it is a complete, flushed HDF5 file (every dataset created, status `running`) is
//! it moved to its name ([`publish`]): before the run's first step, so that the output
//! a checkpoint refers to is always at its name and `--resume` finds it after a crash.
//! Until then the old file is untouched: a failed or interrupted set-up leaves it as it
//! was.
//!
//! Two runs on one output: HDF5 holds an exclusive `flock` on every file it has open for
//! writing (and a shared one for reading), for as long as it is open. [`publish`]
//! replaces an existing file only while it holds that lock itself (so the file is in no
//! other program's hands), checks that the name still points at the locked file, and
//! renames. Where nothing exists yet, the new file is linked to the name, which fails if
//! another run got there first. Either way the second run refuses clearly and the first
//! keeps its file.
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

/// `DIR/.NAME.<pid>-<n>.tmp` beside `path`: where a new output is built.
pub(crate) fn temp_path(path: &Path) -> PathBuf {
    fdtd_core::atomic_file::temp_beside(path)
}

/// Why a new output could not take its name.
#[derive(Debug)]
pub(crate) enum PublishError {
    /// Something exists at the name and overwriting was not asked for.
    Exists,
    /// Another program has the existing file open (an fdtd run writing it, a reader).
    InUse,
    /// The name is not a regular file.
    NotRegular(&'static str),
    Io(io::Error),
}

fn open_existing(path: &Path) -> io::Result<File> {
    let mut o = fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    o.open(path)
}

fn kind_of(ft: fs::FileType) -> Option<&'static str> {
    if ft.is_file() {
        None
    } else if ft.is_dir() {
        Some("a directory")
    } else if ft.is_symlink() {
        Some("a symbolic link")
    } else {
        Some("not a regular file (a device, FIFO or socket)")
    }
}

/// Whether the existing file at `path` is held by another program (its HDF5 lock), and
/// whether it is a regular file. `Ok(None)`: nothing there.
pub(crate) fn check_existing(path: &Path) -> Result<Option<()>, PublishError> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(PublishError::Io(e)),
    };
    if let Some(what) = kind_of(meta.file_type()) {
        return Err(PublishError::NotRegular(what));
    }
    let f = open_existing(path).map_err(PublishError::Io)?;
    match try_lock(&f) {
        Lock::Held => Ok(Some(())),
        Lock::Busy => Err(PublishError::InUse),
        // No locking on this file system: nothing to learn.
        Lock::Unsupported => Ok(Some(())),
    }
}

enum Lock {
    Held,
    Busy,
    Unsupported,
}

/// An exclusive `flock` without waiting (what HDF5's file locking takes), released when
/// `f` is closed.
fn try_lock(f: &File) -> Lock {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        loop {
            // SAFETY: a valid open descriptor.
            if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
                return Lock::Held;
            }
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EWOULDBLOCK) => return Lock::Busy,
                _ => return Lock::Unsupported,
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = f;
        Lock::Unsupported
    }
}

#[cfg(unix)]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &fs::Metadata, _: &fs::Metadata) -> bool {
    true
}

/// Give the finished file `tmp` the name `path` (see the [module docs](self)); `force`:
/// an existing regular file may be replaced, when no other program holds it. On error
/// `tmp` is left for the caller to remove and `path` is untouched.
pub(crate) fn publish(tmp: &Path, path: &Path, force: bool) -> Result<(), PublishError> {
    for _ in 0..8 {
        let existing = match open_existing(path) {
            Ok(f) => Some(f),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => {
                // A link, or something that cannot be opened: say what it is.
                if let Ok(m) = fs::symlink_metadata(path) {
                    if let Some(what) = kind_of(m.file_type()) {
                        return Err(if force {
                            PublishError::NotRegular(what)
                        } else {
                            PublishError::Exists
                        });
                    }
                }
                return Err(PublishError::Io(e));
            }
        };
        let Some(old) = existing else {
            // Nothing there: link, which fails if another run made the name meanwhile.
            match fs::hard_link(tmp, path) {
                Ok(()) => {
                    let _ = fs::remove_file(tmp);
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    if !force {
                        return Err(PublishError::Exists);
                    }
                    continue;
                }
                // No hard links here (some network or FUSE file systems): rename.
                Err(_) => {
                    if fs::symlink_metadata(path).is_ok() {
                        continue;
                    }
                    return fs::rename(tmp, path).map_err(PublishError::Io);
                }
            }
        };
        if !force {
            return Err(PublishError::Exists);
        }
        let meta = old.metadata().map_err(PublishError::Io)?;
        if let Some(what) = kind_of(meta.file_type()) {
            return Err(PublishError::NotRegular(what));
        }
        if let Lock::Busy = try_lock(&old) {
            return Err(PublishError::InUse);
        }
        // Still the file at the name? (Another run may have replaced it meanwhile.)
        match fs::symlink_metadata(path) {
            Ok(now) if same_file(&meta, &now) => {
                let r = fs::rename(tmp, path).map_err(PublishError::Io);
                drop(old);
                return r;
            }
            _ => continue,
        }
    }
    Err(PublishError::InUse)
}

/// A file's identity (device, inode, size, modification time in ns): which file a name
/// pointed at when this run wrote it. Size and time tell a new file apart from the one
/// it replaced when the file system reuses the inode number at once (tmpfs does).
pub(crate) type FileId = (u64, u64, u64, i64);

#[cfg(unix)]
fn id_of(m: &fs::Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino(), m.size(), m.mtime() * 1_000_000_000 + m.mtime_nsec())
}

#[cfg(not(unix))]
fn id_of(m: &fs::Metadata) -> FileId {
    (0, 0, m.len(), 0)
}

/// The identity of the regular file at `path` (not through a link), if there is one.
pub(crate) fn file_id(path: &Path) -> Option<FileId> {
    let m = fs::symlink_metadata(path).ok()?;
    m.file_type().is_file().then(|| id_of(&m))
}

/// Write a companion file (XDMF, Touchstone, CSV) like the output: `text` goes to a new
/// temporary file (`O_EXCL`, so never through a planted link), fsynced, which then takes
/// the name: linked when nothing is there (failing if something appeared meanwhile), or
/// renamed over the file this run wrote there before (`ours`: its identity). A file at
/// the name that this run did not write is never replaced: an error of kind
/// `AlreadyExists`. Returns the identity of the new file.
pub(crate) fn write_companion(path: &Path, text: &str, ours: Option<FileId>) -> io::Result<FileId> {
    use std::io::Write;
    let tmp = temp_path(path);
    let written = (|| {
        let mut f = fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        let id = id_of(&f.metadata()?);
        match fs::symlink_metadata(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => match fs::hard_link(&tmp, path) {
                Ok(()) => {
                    let _ = fs::remove_file(&tmp);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(appeared(path)),
                // No hard links here: rename (a file that appears in between is lost).
                Err(_) => fs::rename(&tmp, path)?,
            },
            Err(e) => return Err(e),
            Ok(m) if ours.is_some_and(|o| m.file_type().is_file() && id_of(&m) == o) => fs::rename(&tmp, path)?,
            Ok(_) => return Err(appeared(path)),
        }
        Ok(id)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

fn appeared(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "{} was created by another program during the run and is left as it is",
            path.display()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_companion_replaces_only_what_this_run_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.s1p");
        let id = write_companion(&path, "one", None).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "one");
        let id = write_companion(&path, "two", Some(id)).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "two");
        // Another program's file at the name: left as it is.
        fs::remove_file(&path).unwrap();
        fs::write(&path, "theirs").unwrap();
        for ours in [None, Some(id)] {
            let e = write_companion(&path, "three", ours).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::AlreadyExists, "{e}");
            assert!(e.to_string().contains("another program"), "{e}");
            assert_eq!(fs::read_to_string(&path).unwrap(), "theirs");
        }
        // A link planted at the name is not followed.
        #[cfg(unix)]
        {
            let victim = dir.path().join("victim");
            fs::write(&victim, "keep").unwrap();
            let link = dir.path().join("l.csv");
            std::os::unix::fs::symlink(&victim, &link).unwrap();
            assert!(write_companion(&link, "x", None).is_err());
            assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
        }
        let left: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn a_new_file_takes_its_name_only_when_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.h5");
        let make = |text: &str| {
            let t = temp_path(&path);
            assert!(t.file_name().unwrap().to_string_lossy().starts_with(".out.h5."));
            fs::write(&t, text).unwrap();
            t
        };
        // Nothing there: linked into place, the temporary gone.
        let t = make("one");
        publish(&t, &path, false).unwrap();
        assert!(!t.exists());
        assert_eq!(fs::read_to_string(&path).unwrap(), "one");
        // Without force an existing file stays.
        let t = make("two");
        assert!(matches!(publish(&t, &path, false), Err(PublishError::Exists)));
        assert_eq!(fs::read_to_string(&path).unwrap(), "one");
        // With force it is replaced, unless another program holds its lock.
        let holder = File::open(&path).unwrap();
        {
            use std::os::fd::AsRawFd;
            // SAFETY: a valid open descriptor (a reader's shared lock, as HDF5 takes).
            assert_eq!(unsafe { libc::flock(holder.as_raw_fd(), libc::LOCK_SH) }, 0);
        }
        assert!(matches!(check_existing(&path), Err(PublishError::InUse)));
        assert!(matches!(publish(&t, &path, true), Err(PublishError::InUse)));
        assert_eq!(fs::read_to_string(&path).unwrap(), "one");
        drop(holder);
        publish(&t, &path, true).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "two");
        // Not a regular file: refused.
        let d = dir.path().join("d.h5");
        fs::create_dir(&d).unwrap();
        let t = make("three");
        assert!(matches!(
            publish(&t, &d, true),
            Err(PublishError::NotRegular("a directory"))
        ));
        #[cfg(unix)]
        {
            let link = dir.path().join("link.h5");
            std::os::unix::fs::symlink(&path, &link).unwrap();
            assert!(matches!(publish(&t, &link, true), Err(PublishError::NotRegular(_))));
            assert_eq!(fs::read_to_string(&path).unwrap(), "two");
        }
    }
}

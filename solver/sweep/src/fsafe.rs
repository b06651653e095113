//! Writing the sweep directory without following links, and the sweep's lock.
//!
//! A sweep directory may be shared (a cluster file system, a checkout) and someone may
//! plant a symbolic link at a name the sweep writes (`manifest.json`, `variants`, a
//! variant's `log`): writing through it would overwrite a file outside the sweep. So every
//! file is written under a fresh temporary name created with `O_EXCL | O_NOFOLLOW` and
//! renamed over its name (a rename replaces a link, it never writes through it); appended
//! files are opened with `O_NOFOLLOW`; every directory the sweep creates or enters is
//! checked to be a real directory, not a link; and [`check_no_links`] refuses a sweep
//! whose directory holds a link anywhere the sweep writes, before anything runs.
//!
//! [`SweepLock`]: one `flock` on `<dir>/lock`, held by `plan`, `run` and `submit` for as
//! long as they write the directory, so a second runner is refused with one message
//! instead of both fighting over the variants.
use crate::SweepError;
use fdtd_core::atomic_file;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

fn unsafe_path(path: &Path, message: impl Into<String>) -> SweepError {
    SweepError::Unsafe {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

pub(crate) fn link_error(path: &Path) -> SweepError {
    unsafe_path(
        path,
        "is a symbolic link, and fdtd sweep never makes one: it does not write through links \
         (remove the link, or choose another sweep directory)",
    )
}

/// Whether `path` is a symbolic link (not following it).
pub fn is_link(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Write `path` through a fresh temporary file and a rename, so readers never see half a
/// file and a link planted at either name is never written through
/// ([`fdtd_core::atomic_file`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), SweepError> {
    atomic_file::write(path, bytes).map_err(|e| commit_error(path, e))
}

/// The error of writing `path` whole.
pub fn commit_error(path: &Path, e: io::Error) -> SweepError {
    match e.kind() {
        io::ErrorKind::IsADirectory => unsafe_path(path, "is a directory, not a file"),
        _ => SweepError::io(path, "writing", e),
    }
}

/// Open `path` for appending (created if missing), never through a link.
pub fn open_append(path: &Path) -> Result<File, SweepError> {
    OpenOptions::new()
        .append(true)
        .create(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                link_error(path)
            } else {
                SweepError::io(path, "opening", e)
            }
        })
}

/// Read `path` without following a link (`None` when it does not exist; a link reads
/// as an error, so that `status` and `collect` print nothing from outside the sweep).
pub fn read_nofollow(path: &Path) -> io::Result<Option<Vec<u8>>> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(path);
    let mut f = match f {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if !f.metadata()?.is_file() {
        return Err(io::Error::other("not a regular file"));
    }
    let mut buf = Vec::new();
    f.read_to_end(&mut buf)?;
    Ok(Some(buf))
}

/// Make sure `dir` is a real directory (not a link, not a file), creating it (one level)
/// when missing.
pub fn real_dir(dir: &Path) -> Result<(), SweepError> {
    match fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => Err(link_error(dir)),
        Ok(m) if !m.is_dir() => Err(unsafe_path(dir, "exists and is not a directory")),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => match fs::create_dir(dir) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => real_dir_exists(dir),
            Err(e) => Err(SweepError::io(dir, "creating the directory", e)),
        },
        Err(e) => Err(SweepError::io(dir, "inspecting", e)),
    }
}

fn real_dir_exists(dir: &Path) -> Result<(), SweepError> {
    match fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(m) if m.file_type().is_symlink() => Err(link_error(dir)),
        _ => Err(unsafe_path(dir, "exists and is not a directory")),
    }
}

/// Create `anchor/rel` one level at a time below `anchor` (which is trusted: the sweep
/// file's directory, or what the command line named), each level a real directory.
pub fn make_dirs(anchor: &Path, rel: &Path) -> Result<(), SweepError> {
    if !anchor.as_os_str().is_empty() {
        fs::create_dir_all(anchor).map_err(|e| SweepError::io(anchor, "creating the directory", e))?;
    }
    let mut p = anchor.to_path_buf();
    for c in rel.components() {
        p.push(c.as_os_str());
        real_dir(&p)?;
    }
    Ok(())
}

/// Every symbolic link in the sweep directory where the sweep reads or writes: its own
/// files, `slurm/`, `variants/` and each variant's folder. The sweep refuses to run while
/// there is one.
pub fn check_no_links(dir: &Path) -> Result<(), SweepError> {
    let mut links = Vec::new();
    let mut scan = |d: &Path, recurse: &mut dyn FnMut(&Path)| {
        let Ok(rd) = fs::read_dir(d) else { return };
        for e in rd.flatten() {
            match e.file_type() {
                Ok(t) if t.is_symlink() => links.push(e.path()),
                Ok(t) if t.is_dir() => recurse(&e.path()),
                _ => {}
            }
        }
    };
    // Two levels below `variants/` (variants/<id>/<file>), one below `slurm/`.
    let mut nested: Vec<PathBuf> = Vec::new();
    scan(dir, &mut |p| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name == "variants" || name == "slurm" {
            nested.push(p.to_path_buf());
        }
    });
    let mut deeper: Vec<PathBuf> = Vec::new();
    for d in &nested {
        let is_variants = d.file_name().is_some_and(|n| n == "variants");
        scan(d, &mut |p| {
            if is_variants {
                deeper.push(p.to_path_buf());
            }
        });
    }
    for d in &deeper {
        scan(d, &mut |_| {});
    }
    match links.first() {
        None => Ok(()),
        Some(first) => {
            let mut e = link_error(first);
            if links.len() > 1 {
                if let SweepError::Unsafe { message, .. } = &mut e {
                    message.push_str(&format!(
                        "; {} more link(s): {}",
                        links.len() - 1,
                        links[1..]
                            .iter()
                            .take(8)
                            .map(|p| p.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
            Err(e)
        }
    }
}

/// The file `plan`, `run` and `submit` lock (`flock`, exclusive) while they write the
/// sweep directory; it holds who has it (`pid`, `host`, `command`, `started`).
pub const LOCK_FILE: &str = "lock";

/// A held sweep lock; dropping it (or the process ending, however it ends) releases it.
#[derive(Debug)]
pub struct SweepLock {
    _file: File,
    pub path: PathBuf,
}

/// Take the sweep directory's lock, or say who holds it ([`SweepError::Busy`]).
pub fn lock(dir: &Path, command: &str) -> Result<SweepLock, SweepError> {
    let path = dir.join(LOCK_FILE);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(&path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                link_error(&path)
            } else {
                SweepError::io(&path, "opening the sweep lock", e)
            }
        })?;
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(unsafe_path(&path, "is not a regular file"));
    }
    match file.try_lock() {
        Ok(()) => {}
        Err(fs::TryLockError::WouldBlock) => {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            let holder = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .collect::<Vec<_>>()
                .join(", ");
            return Err(SweepError::Busy {
                dir: dir.to_path_buf(),
                holder: if holder.is_empty() { "unknown".into() } else { holder },
            });
        }
        Err(fs::TryLockError::Error(e)) => return Err(SweepError::io(&path, "locking the sweep directory", e)),
    }
    let who = format!(
        "fdtd sweep {command}, pid {}, host {}, started {}\n",
        std::process::id(),
        crate::status::hostname(),
        crate::status::now()
    );
    let _ = file.set_len(0).and_then(|_| file.write_all(who.as_bytes()));
    Ok(SweepLock { _file: file, path })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn writes_replace_links_and_never_follow_them() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        fs::write(&outside, "keep").unwrap();
        let inside = dir.path().join("in");
        fs::create_dir(&inside).unwrap();
        let target = inside.join("manifest.json");
        symlink(&outside, &target).unwrap();
        write_atomic(&target, b"new").unwrap();
        assert_eq!(fs::read_to_string(&outside).unwrap(), "keep");
        assert!(!is_link(&target));
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");

        let log = inside.join("log");
        symlink(&outside, &log).unwrap();
        let e = open_append(&log).unwrap_err().to_string();
        assert!(e.contains("is a symbolic link"), "{e}");
        assert!(read_nofollow(&log).is_err());
        assert_eq!(fs::read_to_string(&outside).unwrap(), "keep");

        let d = inside.join("variants");
        symlink(dir.path(), &d).unwrap();
        assert!(real_dir(&d).unwrap_err().to_string().contains("symbolic link"));
        let e = check_no_links(&inside).unwrap_err().to_string();
        assert!(e.contains("2 more link(s)") || e.contains("1 more link(s)"), "{e}");
    }

    #[test]
    fn a_second_lock_is_refused_and_names_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let held = lock(dir.path(), "run").unwrap();
        let e = lock(dir.path(), "run").unwrap_err();
        assert!(matches!(e, SweepError::Busy { .. }), "{e}");
        let s = e.to_string();
        assert!(
            s.contains("in use by another fdtd sweep") && s.contains(&format!("pid {}", std::process::id())),
            "{s}"
        );
        drop(held);
        lock(dir.path(), "run").unwrap();
    }
}

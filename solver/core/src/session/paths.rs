//! The files of a run and what may be done to them: the output must be a regular file
//! (it is replaced by a rename), the checkpoint directory must exist and be writable, and
//! no file at a checkpoint name may be replaced or removed unless it is a checkpoint of
//! the run allowed to (checked by its header: [`crate::checkpoint::identify`]).
use super::error::SessionError;
use super::resources;
use crate::checkpoint::{self, FileKind, Owner};
use std::fs::{self, Metadata};
use std::path::{Path, PathBuf};

/// What an existing path is when it is not a regular file (`None` for a regular file).
pub fn not_a_regular_file(meta: &Metadata) -> Option<&'static str> {
    let ft = meta.file_type();
    if ft.is_file() {
        return None;
    }
    if ft.is_dir() {
        return Some("a directory");
    }
    if ft.is_symlink() {
        return Some("a symbolic link");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_char_device() {
            return Some("a character device");
        }
        if ft.is_block_device() {
            return Some("a block device");
        }
        if ft.is_fifo() {
            return Some("a FIFO");
        }
        if ft.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

/// Whether `a` and `b` name the same file: the same inode where both exist, else the
/// same absolute path (symbolic links in the directories resolved).
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (fs::metadata(a), fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    let abs = |p: &Path| -> Option<PathBuf> {
        let dir = resources::dir_of(p).canonicalize().ok()?;
        Some(dir.join(p.file_name()?))
    };
    match (abs(a), abs(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// Refuse an output that is the scene being run, one of the files the run writes beside
/// it (`companions`: XDMF, Touchstone, CSV; `checkpoints`: its checkpoint names), or
/// whose companions would overwrite the scene.
pub fn check_output_clash(
    out: &Path,
    scene: &Path,
    companions: &[PathBuf],
    checkpoints: &[PathBuf],
) -> Result<(), SessionError> {
    let clash = |what: String| {
        Err(SessionError::OutputClash {
            path: out.to_path_buf(),
            what,
        })
    };
    if same_file(out, scene) {
        return clash(format!(
            "it is the scene being run ({}); choose another output name (e.g. with the extension .h5)",
            scene.display()
        ));
    }
    for c in companions.iter().chain(checkpoints) {
        if same_file(out, c) {
            return clash(format!(
                "the run writes {} beside it (its companions: {}), so the output would be overwritten by its own results; choose another output name (e.g. with the extension .h5)",
                c.display(),
                companions
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if same_file(c, scene) {
            return clash(format!(
                "the run would write {} beside it, which is the scene being run; choose another output name",
                c.display()
            ));
        }
    }
    Ok(())
}

/// The checkpoint directory exists and a file can be created in it (tried with a
/// temporary file of a name no run uses, removed at once).
pub fn check_checkpoint_dir(path: &Path) -> Result<(), SessionError> {
    let dir = resources::dir_of(path);
    if !dir.is_dir() {
        return Err(SessionError::CheckpointDirMissing {
            path: path.to_path_buf(),
            dir,
        });
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let probe = dir.join(format!(".{name}.{}.write-test", std::process::id()));
    match fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = fs::remove_file(&probe);
            Ok(())
        }
        Err(source) => Err(SessionError::CheckpointDirNotWritable {
            path: path.to_path_buf(),
            dir,
            source,
        }),
    }
}

/// Refuse to start while a file at one of the checkpoint's names is not `owner`'s to
/// replace (`None`: nothing there is: every existing file is in the way).
pub fn check_checkpoint_files(path: &Path, owner: Option<Owner>) -> Result<(), SessionError> {
    let files: Vec<(PathBuf, String)> = match owner {
        Some(o) => checkpoint::in_the_way(path, o),
        None => checkpoint::files(path)
            .into_iter()
            .filter_map(|p| {
                let why = match checkpoint::identify(&p) {
                    FileKind::Absent => return None,
                    FileKind::Checkpoint { run_id } => {
                        format!("it is a checkpoint of another run (run id {run_id:016x})")
                    }
                    FileKind::Fragment => "it is part of a checkpoint of another run".into(),
                    FileKind::Foreign(why) => why,
                };
                Some((p, why))
            })
            .collect(),
    };
    if files.is_empty() {
        Ok(())
    } else {
        Err(SessionError::CheckpointFilesInTheWay {
            path: path.to_path_buf(),
            files,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_at_checkpoint_names_are_judged_by_their_header() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.h5.ckpt");
        check_checkpoint_dir(&path).unwrap();
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            0,
            "the write test leaves nothing"
        );
        check_checkpoint_files(&path, None).unwrap();

        // A file that is not a checkpoint is in the way of every run.
        fs::write(&path, "my notes").unwrap();
        for owner in [None, Some(Owner::AnyRun), Some(Owner::Run(7))] {
            let e = check_checkpoint_files(&path, owner).unwrap_err().to_string();
            assert!(e.contains("a.h5.ckpt") && e.contains("not an fdtd checkpoint"), "{e}");
        }
        // A checkpoint of run 7 is run 7's (and anyone's beside the output), not run 8's.
        let mut ck = checkpoint::MAGIC.to_vec();
        ck.extend_from_slice(&[0u8; 16]);
        ck.extend_from_slice(&7u64.to_le_bytes());
        ck.extend_from_slice(&[0u8; 8]);
        fs::write(&path, &ck).unwrap();
        check_checkpoint_files(&path, Some(Owner::Run(7))).unwrap();
        check_checkpoint_files(&path, Some(Owner::AnyRun)).unwrap();
        let e = check_checkpoint_files(&path, Some(Owner::Run(8)))
            .unwrap_err()
            .to_string();
        assert!(e.contains("another run (run id 0000000000000007)"), "{e}");
        assert!(check_checkpoint_files(&path, None).is_err());
        // A symbolic link is never followed nor taken.
        fs::remove_file(&path).unwrap();
        #[cfg(unix)]
        {
            let target = dir.path().join("target");
            fs::write(&target, &ck).unwrap();
            std::os::unix::fs::symlink(&target, &path).unwrap();
            let e = check_checkpoint_files(&path, Some(Owner::AnyRun))
                .unwrap_err()
                .to_string();
            assert!(e.contains("symbolic link"), "{e}");
        }
    }

    #[test]
    fn devices_and_directories_are_not_regular_files() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        fs::write(&f, "x").unwrap();
        assert_eq!(not_a_regular_file(&fs::symlink_metadata(&f).unwrap()), None);
        assert_eq!(
            not_a_regular_file(&fs::symlink_metadata(dir.path()).unwrap()),
            Some("a directory")
        );
        #[cfg(unix)]
        assert_eq!(
            not_a_regular_file(&fs::symlink_metadata("/dev/null").unwrap()),
            Some("a character device")
        );
    }
}

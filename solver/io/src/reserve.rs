//! Disk space for what the output file is about to hold, taken before HDF5 writes it.
//!
//! HDF5 1.10 cannot recover from a failed write: a write that meets a full disk leaves
//! its metadata half updated, and the file does not open again (`addr overflow`). So the
//! writer never lets HDF5 meet a full disk: before each append, the blocks the file will
//! grow into (the append's bytes, the metadata HDF5 has allocated but not yet written,
//! and a margin for chunk indexes and for closing the file as failed) are allocated to
//! the file with `fallocate(FALLOC_FL_KEEP_SIZE)`. Allocated blocks cannot be taken by
//! another writer, so once the reservation succeeds the append cannot run out of space;
//! when it fails, nothing has been written, the file is as consistent as at its last
//! flush, and the run stops with the disk full. Where the file system has no
//! `fallocate`, the free space (`fstatvfs`) is compared instead (another writer can still
//! win the race there). When the file is closed, blocks beyond its end are given back.
use std::fs::File;
use std::io;
use std::path::Path;

/// Kept free beyond every append: HDF5's chunk indexes and heaps, and closing the file
/// with status `failed` after a refused append.
pub(crate) const MARGIN: u64 = 1 << 20;

/// Simulated full disk (tests): `FDTD_FAULT_NO_SPACE_AFTER=BYTES` refuses a reservation
/// once the file would grow past `BYTES`.
pub(crate) const FAULT_ENV: &str = "FDTD_FAULT_NO_SPACE_AFTER";

/// The space reserved ahead of one output file.
pub(crate) struct Reservation {
    file: File,
    /// End of the range last allocated (0: unknown, allocate again). HDF5 only grows the
    /// file between flushes; a flush may truncate it, so every flush forgets this.
    reserved_to: u64,
    /// The furthest end ever allocated (what closing gives back).
    high_water: u64,
    /// `fallocate` is not supported here: compare with the free space instead.
    no_fallocate: bool,
    fault_after: Option<u64>,
}

impl Reservation {
    /// For the output file at `path` (opened again for writing; HDF5 keeps its own handle).
    pub(crate) fn open(path: &Path) -> io::Result<Reservation> {
        let file = std::fs::OpenOptions::new().write(true).open(path)?;
        let fault_after = std::env::var(FAULT_ENV).ok().and_then(|v| v.trim().parse().ok());
        Ok(Reservation {
            file,
            reserved_to: 0,
            high_water: 0,
            no_fallocate: false,
            fault_after,
        })
    }

    /// Make sure the file can grow from its end by `allocated` (what HDF5 has allocated
    /// beyond the end but not yet written) plus `need` bytes plus a margin without
    /// meeting a full disk. `Err` of kind `StorageFull`: it cannot.
    pub(crate) fn ensure(&mut self, allocated_end: u64, need: u64) -> io::Result<()> {
        let end = self.file.metadata()?.len();
        let from = end;
        let grown = allocated_end.max(end).saturating_add(need).saturating_add(need / 8);
        let upto = grown.saturating_add(MARGIN);
        if let Some(limit) = self.fault_after {
            if upto > limit {
                return Err(io::Error::new(
                    io::ErrorKind::StorageFull,
                    format!("simulated full disk beyond {limit} bytes ({FAULT_ENV})"),
                ));
            }
        }
        if upto <= self.reserved_to {
            return Ok(());
        }
        // A second margin ahead, so that small appends do not each allocate; where the
        // disk cannot give it, the one margin is enough.
        for target in [upto.saturating_add(MARGIN), upto] {
            if self.no_fallocate {
                break;
            }
            match fallocate_keep_size(&self.file, from, target - from) {
                Ok(()) => {
                    self.reserved_to = target;
                    self.high_water = self.high_water.max(target);
                    return Ok(());
                }
                Err(e) if is_unsupported(&e) => self.no_fallocate = true,
                Err(e) if e.kind() == io::ErrorKind::StorageFull && target != upto => {}
                Err(e) => return Err(e),
            }
        }
        // No fallocate here: the free space, which another writer can still take first.
        let len = upto - from;
        match free_bytes(&self.file) {
            Some(free) if free < len => Err(io::Error::new(
                io::ErrorKind::StorageFull,
                format!("{free} bytes free, {len} needed"),
            )),
            _ => Ok(()),
        }
    }

    /// Forget what was allocated (after a flush, which may truncate the file).
    pub(crate) fn forget(&mut self) {
        self.reserved_to = 0;
    }

    /// Give back the blocks beyond the file's end (at close).
    pub(crate) fn release(&self) {
        if let Ok(m) = self.file.metadata() {
            let end = m.len();
            if self.high_water > end {
                // tmpfs frees blocks beyond the end on a punched hole, ext4 on a
                // truncation to the same size (and ignores a hole beyond the end).
                let _ = punch_beyond(&self.file, end, self.high_water - end);
                let _ = self.file.set_len(end);
            }
        }
    }
}

fn is_unsupported(e: &io::Error) -> bool {
    #[cfg(target_os = "linux")]
    {
        matches!(
            e.raw_os_error(),
            Some(libc::EOPNOTSUPP) | Some(libc::ENOSYS) | Some(libc::EINVAL)
        )
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = e;
        true
    }
}

#[cfg(target_os = "linux")]
fn fallocate_keep_size(f: &File, from: u64, len: u64) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    if len == 0 {
        return Ok(());
    }
    let (Ok(off), Ok(len)) = (libc::off_t::try_from(from), libc::off_t::try_from(len)) else {
        return Err(io::Error::from_raw_os_error(libc::EFBIG));
    };
    loop {
        // SAFETY: a valid open descriptor; fallocate only changes the file's allocation.
        let r = unsafe { libc::fallocate(f.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, off, len) };
        if r == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn fallocate_keep_size(_: &File, _: u64, _: u64) -> io::Result<()> {
    Err(io::Error::new(io::ErrorKind::Unsupported, "no fallocate"))
}

#[cfg(target_os = "linux")]
fn punch_beyond(f: &File, end: u64, len: u64) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let (Ok(off), Ok(len)) = (libc::off_t::try_from(end), libc::off_t::try_from(len)) else {
        return Ok(());
    };
    // SAFETY: as above; punching beyond the end frees only reserved blocks.
    let r = unsafe {
        libc::fallocate(
            f.as_raw_fd(),
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            off,
            len,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn punch_beyond(_: &File, _: u64, _: u64) -> io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn free_bytes(f: &File) -> Option<u64> {
    use std::os::fd::AsRawFd;
    // SAFETY: fstatvfs writes into the zeroed struct we own.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::fstatvfs(f.as_raw_fd(), &mut s) };
    (r == 0).then(|| (s.f_bavail as u64).saturating_mul(s.f_frsize as u64))
}

#[cfg(not(unix))]
fn free_bytes(_: &File) -> Option<u64> {
    None
}

/// Whether an HDF5 error (its message holds the error stack) comes from a full disk.
pub(crate) fn hdf5_says_no_space(message: &str) -> bool {
    message.contains("No space left on device")
        || message.contains("errno = 28")
        || message.contains("Disk quota exceeded")
}

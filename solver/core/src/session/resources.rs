//! Host resources a run needs, checked before anything large is allocated: RAM (the
//! grid's lower bound before discretising, the CPU plan before the backend allocates)
//! and disk space (the output and the checkpoints).
use crate::fmt::lengths;
use crate::model::Model;
use crate::plan::{human_bytes, Plan};
use crate::scene::Scene;
use std::fmt;
use std::path::{Path, PathBuf};

/// Share of the available RAM a suggestion aims for (headroom for the OS and output).
const HEADROOM: f64 = 0.9;

/// `plan` (a backend's buffers) plus the run's host staging: probe samples of one chunk,
/// the largest snapshot frame (read from the backend, then deflated by the output) and
/// the source values of one chunk.
pub fn with_staging(mut p: Plan, model: &Model, chunk: usize) -> Plan {
    // A chunk never holds more steps than the run.
    let chunk = chunk.clamp(1, model.grid.steps.max(1));
    let samples: usize = model.probes.iter().map(|p| p.samples.len()).sum();
    if samples > 0 {
        // f32 values plus f64 times, per sample, per step of a chunk.
        p.add("probe staging (one chunk)", (chunk * samples * 12) as u64);
    }
    let frame = model
        .snapshots
        .iter()
        .flat_map(|s| s.components.iter().map(move |&c| s.component_shape(c, &model.grid)))
        .map(|sh| sh.iter().map(|&x| x as u64).product::<u64>() * 4)
        .max();
    if let Some(frame) = frame {
        p.add("snapshot staging (largest frame ×2: copy + deflate)", 2 * frame);
    }
    let sources = (chunk * model.sources.len() * 4) as u64;
    if sources > 0 {
        p.add("source values (one chunk)", sources);
    }
    p
}

/// `MemAvailable` from `/proc/meminfo` (bytes), where the OS has one.
pub fn available_ram() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    text.lines().find_map(|l| {
        let rest = l.strip_prefix("MemAvailable:")?;
        let kb: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kb * 1024)
    })
}

/// A lower bound of the host memory a run of `scene` needs, from its cell counts alone,
/// so a grid far too large is refused before discretising allocates anything: the
/// model's six u16 material indices per sample, plus six f32 field components when the
/// run may end on the CPU (`cpu`).
pub fn lower_bound(scene: &Scene, cpu: bool) -> u64 {
    let n = scene.domain.cells.iter().map(|&c| c as u64 + 1).product::<u64>();
    let per_sample = 6 * 2 + if cpu { 6 * 4 } else { 0 };
    n.saturating_mul(per_sample)
}

/// A memory need that exceeds what is available, with what would fit. Displays as
/// `needs 30.2 GiB, 21.0 GiB available; cells of ... or a grid of about N³ cells would
/// fit, or use another backend`.
#[derive(Clone, Debug, PartialEq)]
pub struct DoesNotFit {
    /// Grid cells per axis and cell size (m).
    pub cells: [usize; 3],
    pub d: [f64; 3],
    pub need: u64,
    pub available: u64,
}

impl fmt::Display for DoesNotFit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cells = self.cells.iter().map(|&c| c as f64).product::<f64>().max(1.0);
        let per_cell = self.need as f64 / cells;
        let fit_cells = (self.available as f64 * HEADROOM / per_cell).max(1.0);
        let scale = (cells / fit_cells).cbrt();
        let coarser = self.d.map(|d| d * scale);
        let n = fit_cells.cbrt().floor() as u64;
        write!(
            f,
            "needs {}, {} available; cells of {} (instead of {}) or a grid of about {n}³ cells would fit, \
             or use another backend",
            human_bytes(self.need),
            human_bytes(self.available),
            lengths(coarser.map(round_up_3)),
            lengths(self.d),
        )
    }
}

/// Round a length up to 3 significant digits (a suggested cell must not be too fine).
fn round_up_3(x: f64) -> f64 {
    let mag = 10f64.powi(x.abs().log10().floor() as i32 - 2);
    (x / mag - 1e-9).ceil() * mag
}

/// A host-memory need against the available RAM (`None`: unknown on this OS, not checked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RamCheck {
    pub need: u64,
    pub available: Option<u64>,
}

impl RamCheck {
    /// `need` against [`available_ram`].
    pub fn now(need: u64) -> RamCheck {
        RamCheck {
            need,
            available: available_ram(),
        }
    }

    /// Whether it fits (or cannot be checked).
    pub fn fits(&self) -> bool {
        self.available.is_none_or(|a| self.need <= a)
    }

    /// What does not fit, for a run on `model`'s grid (`None` when it fits).
    pub fn does_not_fit(&self, model: &Model) -> Option<DoesNotFit> {
        let available = self.available.filter(|&a| self.need > a)?;
        Some(DoesNotFit {
            cells: model.grid.n,
            d: model.grid.d,
            need: self.need,
            available,
        })
    }
}

impl fmt::Display for RamCheck {
    /// One line: `fits: 1.20 GiB of 21.0 GiB available RAM`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.available {
            Some(a) if self.need <= a => write!(
                f,
                "fits: {} of {} available RAM",
                human_bytes(self.need),
                human_bytes(a)
            ),
            Some(a) => write!(
                f,
                "does NOT fit: {} needed, {} available RAM",
                human_bytes(self.need),
                human_bytes(a)
            ),
            None => write!(
                f,
                "{} needed; available RAM unknown on this OS (not checked)",
                human_bytes(self.need)
            ),
        }
    }
}

/// An upper bound of the bytes the output file grows by while steps `from..steps` run:
/// probe values and times and snapshot frames, uncompressed, plus the format's overhead.
pub fn output_bytes(model: &Model, from: usize) -> u64 {
    let steps = model.grid.steps;
    let mut bytes: u64 = 0;
    for p in &model.probes {
        let rows = (steps / p.every - from.min(steps) / p.every) as u64;
        let has_e = p.samples.iter().any(|s| s.component.is_electric()) as u64;
        let has_h = p.samples.iter().any(|s| !s.component.is_electric()) as u64;
        bytes = bytes.saturating_add(rows.saturating_mul(p.samples.len() as u64 * 4 + 8 * (has_e + has_h)));
    }
    for s in &model.snapshots {
        let frames = (steps / s.every - from.min(steps) / s.every) as u64;
        let per_frame: u64 = s
            .components
            .iter()
            .map(|&c| {
                s.component_shape(c, &model.grid)
                    .iter()
                    .map(|&x| x as u64)
                    .product::<u64>()
                    * 4
            })
            .sum::<u64>()
            + 8;
        bytes = bytes.saturating_add(frames.saturating_mul(per_frame));
    }
    // Chunk indexes, attributes, the XDMF companion: 1 % and 1 MiB cover them.
    bytes.saturating_add(bytes / 100).saturating_add(1 << 20)
}

/// The file systems a disk check asks (a fake one in tests).
pub trait Disks {
    /// Free bytes for an unprivileged writer on the file system holding `dir`.
    fn free_space(&self, dir: &Path) -> Option<u64>;
    /// The file system (device id) of `dir`, to add up needs on the same one.
    fn device_of(&self, dir: &Path) -> Option<u64>;
}

/// The machine's file systems (statvfs on Unix; unknown elsewhere: not checked).
#[derive(Clone, Copy, Debug, Default)]
pub struct LocalDisks;

impl Disks for LocalDisks {
    #[cfg(unix)]
    fn free_space(&self, dir: &Path) -> Option<u64> {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
        // SAFETY: `c` is a valid NUL-terminated path and `st` a plain struct statvfs fills.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::statvfs(c.as_ptr(), &mut st) };
        (r == 0).then(|| (st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
    }

    #[cfg(not(unix))]
    fn free_space(&self, _dir: &Path) -> Option<u64> {
        None
    }

    #[cfg(unix)]
    fn device_of(&self, dir: &Path) -> Option<u64> {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(dir).ok().map(|m| m.dev())
    }

    #[cfg(not(unix))]
    fn device_of(&self, _dir: &Path) -> Option<u64> {
        None
    }
}

/// The directory a file goes to (`.` for a bare name).
pub fn dir_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Not enough free disk space for a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiskShortage {
    /// The directory whose file system is short.
    pub dir: PathBuf,
    pub need: u64,
    pub free: u64,
    /// What goes there: `output up to 1.2 GiB + checkpoints 300 MiB`.
    pub what: String,
}

impl DiskShortage {
    /// The shortage alone: `not enough disk space: the run needs up to ... is free`.
    pub fn shortage(&self) -> String {
        format!(
            "not enough disk space: the run needs up to {} on {} ({}, uncompressed), {} is free",
            human_bytes(self.need),
            self.dir.display(),
            self.what,
            human_bytes(self.free)
        )
    }
}

impl fmt::Display for DiskShortage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}; free some space, record fewer or smaller snapshots (every, plane, box), write elsewhere, or skip \
             the disk check (compression often makes the output much smaller)",
            self.shortage()
        )
    }
}

impl std::error::Error for DiskShortage {}

/// Check that the output (`output` bytes to `out`) and the checkpoints (`ck`: path and
/// bytes) fit the free space of their file systems, added up when they share one.
pub fn check_disk(disks: &dyn Disks, out: &Path, ck: Option<(&Path, u64)>, output: u64) -> Result<(), DiskShortage> {
    let out_dir = dir_of(out);
    let mut needs: Vec<(PathBuf, u64, String)> =
        vec![(out_dir.clone(), output, format!("output up to {}", human_bytes(output)))];
    if let Some((path, bytes)) = ck {
        let dir = dir_of(path);
        let what = format!("checkpoints {}", human_bytes(bytes));
        let same = disks.device_of(&dir).is_some() && disks.device_of(&dir) == disks.device_of(&out_dir);
        if same {
            needs[0].1 = needs[0].1.saturating_add(bytes);
            needs[0].2.push_str(&format!(" + {what}"));
        } else {
            needs.push((dir, bytes, what));
        }
    }
    for (dir, need, what) in needs {
        if let Some(free) = disks.free_space(&dir) {
            if need > free {
                return Err(DiskShortage { dir, need, free, what });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_up() {
        assert!((round_up_3(1.2341e-3) - 1.24e-3).abs() < 1e-15);
        assert!((round_up_3(1e-3) - 1e-3).abs() < 1e-15);
    }

    /// Every directory on one file system (or each on its own), with `free` bytes free.
    struct Fake {
        free: u64,
        shared: bool,
    }

    impl Disks for Fake {
        fn free_space(&self, _dir: &Path) -> Option<u64> {
            Some(self.free)
        }
        fn device_of(&self, dir: &Path) -> Option<u64> {
            Some(if self.shared { 1 } else { dir.as_os_str().len() as u64 })
        }
    }

    #[test]
    fn disk_check_adds_up_needs_on_one_file_system() {
        let out = Path::new("runs/out.h5");
        let ck = Path::new("runs/out.h5.ckpt");
        let fake = |free, shared| Fake { free, shared };
        assert_eq!(check_disk(&fake(100, true), out, Some((ck, 40)), 60), Ok(()));
        let e = check_disk(&fake(99, true), out, Some((ck, 40)), 60).unwrap_err();
        assert_eq!((e.need, e.free, e.dir.as_path()), (100, 99, Path::new("runs")));
        assert!(
            e.what.contains("output up to") && e.what.contains(" + checkpoints"),
            "{}",
            e.what
        );
        let msg = e.to_string();
        assert!(
            msg.starts_with("not enough disk space: the run needs up to 100 B on runs"),
            "{msg}"
        );
        assert!(!msg.contains("--"), "{msg}");
        // On separate file systems each need is checked on its own.
        let ck = Path::new("elsewhere/x.ckpt");
        assert_eq!(check_disk(&fake(60, false), out, Some((ck, 40)), 60), Ok(()));
        let e = check_disk(&fake(50, false), out, Some((ck, 40)), 60).unwrap_err();
        assert_eq!(e.dir, Path::new("runs"));
        // No checkpoints: the output alone.
        assert_eq!(check_disk(&fake(60, true), out, None, 60), Ok(()));
        // A bare file name goes to the current directory.
        assert_eq!(dir_of(Path::new("x.h5")), Path::new("."));
    }

    #[test]
    fn ram_verdicts() {
        let fits = RamCheck {
            need: 10,
            available: Some(20),
        };
        assert!(fits.fits() && fits.to_string().starts_with("fits: 10 B of 20 B"));
        let not = RamCheck {
            need: 30,
            available: Some(20),
        };
        assert!(!not.fits() && not.to_string().starts_with("does NOT fit"));
        let unknown = RamCheck {
            need: 30,
            available: None,
        };
        assert!(unknown.fits() && unknown.to_string().contains("unknown"));
        let d = DoesNotFit {
            cells: [100, 100, 100],
            d: [1e-3; 3],
            need: 8 << 30,
            available: 1 << 30,
        }
        .to_string();
        assert!(d.starts_with("needs 8.00 GiB, 1.00 GiB available; cells of "), "{d}");
        assert!(d.ends_with("would fit, or use another backend"), "{d}");
    }
}

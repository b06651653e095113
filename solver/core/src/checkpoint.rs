//! Checkpoints: the complete solver state of a run at a chunk end, in one binary file,
//! written atomically, so that a run killed at any moment can resume exactly.
//!
//! # File format (version 2, all integers little-endian)
//!
//! ```text
//! offset  size  field
//!      0     8  magic "FDTDCKPT"
//!      8     4  format version (2)
//!     12     4  header length H in bytes (everything before the payload, CRC included)
//!     16     8  fingerprint: FNV-1a 64 of the scene's content, grid, dt, steps and fdtd version
//!     24     8  run id: the random id of the output file the run writes (root attribute run_id)
//!     32     8  step: time steps done (the state is the one after step `step - 1`)
//!     40     8  steps: time steps planned
//!     48    24  grid cells nx, ny, nz (u64 each)
//!     72     8  dt (f64)
//!     80     8  number of state arrays A
//!     88     8  reserved (0)
//!     96    32  fdtd version that wrote it (UTF-8, NUL padded)
//!    128     …  per array, in table order: its length in values (u64), its name's
//!               length in bytes (u16) and its name (UTF-8)
//!  H − 4     4  CRC-32 (IEEE) of header bytes 0 .. H − 4
//!      H     P  payload: every array in table order (f32), P = 4·Σ lengths
//!  H + P     4  CRC-32 of the payload
//! ```
//!
//! The arrays are the model's state table ([`crate::schedule::Schedule::state`]): the six
//! fields, the CPML ψ arrays, and any array a pass registers, by name.
//!
//! Format 1 (fdtd 0.1 before the named state) had a fixed table: the six fields, then
//! four ψ arrays per CPML layer, with only their lengths in the header (32 bytes per
//! layer from offset 128; field length at 80, layer count at 88). It is read still:
//! its arrays are the first entries of today's table in the same order, so they are
//! matched to the model's names by position and size, and a model whose table has
//! anything more (a pass with state) refuses it with the reason.
//!
//! The payload is a [`SolverState`], whose layout is backend-independent: a checkpoint
//! written on one backend resumes on the other. Probe samples are not in it: the runner
//! hands them to the output file at every chunk end, before a checkpoint is written.
//!
//! # Writing
//!
//! [`write`] keeps two generations, `PATH` (newest) and `PATH.prev`: it removes the old
//! `PATH.prev`, writes `PATH.tmp` and fsyncs it, renames `PATH` to `PATH.prev` and
//! `PATH.tmp` to `PATH`, then fsyncs the directory. At every instant at least one complete,
//! durable checkpoint exists; [`find_latest`] takes the newest one whose checksums hold.
use crate::scene::Scene;
use crate::simulation::Simulation;
use crate::state::{SolverState, StateArray};
use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// First bytes of every checkpoint file.
pub const MAGIC: [u8; 8] = *b"FDTDCKPT";
/// The format version this build writes (it also reads [`FORMAT_V1`]).
pub const FORMAT: u32 = 2;
/// The fixed-table format of fdtd 0.1, read for resuming older runs.
pub const FORMAT_V1: u32 = 1;
/// Interval of periodic checkpoints when neither the scene nor the command line sets one.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(600);

const FIXED_HEADER: usize = 128;
const VERSION_BYTES: usize = 32;
/// Largest header this reader accepts (far beyond any real state table).
const MAX_HEADER: u32 = 64 << 20;

/// Why a checkpoint cannot be written or used. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{}: not an fdtd checkpoint", path.display())]
    NotACheckpoint { path: PathBuf },
    #[error("{}: checkpoint format {found}; this fdtd reads formats {FORMAT_V1} and {FORMAT} (a newer fdtd wrote it: resume with that version)", path.display())]
    Format { path: PathBuf, found: u32 },
    #[error("{}: corrupt checkpoint: {what}", path.display())]
    Corrupt { path: PathBuf, what: String },
    #[error("{}: the checkpoint belongs to another run: {what}", path.display())]
    Mismatch { path: PathBuf, what: String },
    #[error("no usable checkpoint for {}: {why}", path.display())]
    NoneUsable { path: PathBuf, why: String },
    /// A file at one of the checkpoint's names that this run did not write: left alone.
    #[error("{}: {why}; it is left alone (checkpoints of this run cannot be written under that name)", path.display())]
    NotOurs { path: PathBuf, why: String },
}

impl CheckpointError {
    fn io(path: &Path, source: io::Error) -> CheckpointError {
        CheckpointError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
    fn corrupt(path: &Path, what: impl Into<String>) -> CheckpointError {
        CheckpointError::Corrupt {
            path: path.to_path_buf(),
            what: what.into(),
        }
    }
}

// ---------------------------------------------------------------------------
// Fingerprints
// ---------------------------------------------------------------------------

/// 64-bit FNV-1a, for fingerprints (not a checksum of large data: see CRC-32 below).
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a(pub u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    /// A length-prefixed field, so that ("ab", "c") and ("a", "bc") differ.
    pub fn field(&mut self, bytes: &[u8]) {
        self.write(&(bytes.len() as u64).to_le_bytes());
        self.write(bytes);
    }
    pub fn u64(&mut self, v: u64) {
        self.write(&v.to_le_bytes());
    }
    pub fn finish(self) -> u64 {
        self.0
    }
}

/// The fingerprint of a run: what must be equal for a checkpoint to continue it.
///
/// It covers the scene's *content* (everything parsed from it: domain, time, boundaries,
/// materials, objects, sources, probes, snapshots; not comments, formatting, the file's
/// path, or the `[checkpoint]` section), the grid, dt, the planned steps, the schedule's
/// passes (names and descriptions: a pass a run request adds counts), the fdtd version
/// and the checkpoint format. The backend is not part of it.
pub fn fingerprint(scene: &Scene, model: &Simulation) -> u64 {
    let mut content = scene.clone();
    content.path = PathBuf::new();
    content.text = String::new();
    let mut h = Fnv1a::default();
    h.field(b"fdtd run fingerprint");
    // The fingerprint scheme (it was the checkpoint format, 1, when it was introduced;
    // it stays 1 so that runs started before format 2 can still be resumed).
    h.u64(1);
    h.field(env!("CARGO_PKG_VERSION").as_bytes());
    h.field(format!("{content:?}").as_bytes());
    let g = &model.grid;
    for a in 0..3 {
        h.u64(g.n[a] as u64);
        h.u64(g.d[a].to_bits());
    }
    h.u64(g.dt.to_bits());
    h.u64(g.steps as u64);
    h.u64(model.cpml.len() as u64);
    // The passes that step it: the scene's, and any a run request added.
    for p in &model.schedule.passes {
        h.field(p.pass.name().as_bytes());
        h.field(p.pass.describe().as_bytes());
    }
    h.finish()
}

/// A fresh random id for an output file (time, process id and ASLR mixed by FNV).
pub fn new_run_id() -> u64 {
    let mut h = Fnv1a::default();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    h.u64(now.as_nanos() as u64);
    h.u64(std::process::id() as u64);
    let local = 0u8;
    h.u64(&local as *const u8 as u64);
    h.u64(std::time::Instant::now().elapsed().as_nanos() as u64);
    h.finish()
}

// ---------------------------------------------------------------------------
// Header
// ---------------------------------------------------------------------------

/// Everything a checkpoint says about itself.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// The file's format ([`FORMAT`], or [`FORMAT_V1`] for a file read back).
    pub format: u32,
    /// The fdtd version that wrote it.
    pub version: String,
    pub fingerprint: u64,
    pub run_id: u64,
    /// Time steps done.
    pub step: u64,
    /// Time steps planned.
    pub steps: u64,
    /// Grid cells.
    pub n: [u64; 3],
    pub dt: f64,
    /// The state table: each array's name and length in values, in payload order.
    pub arrays: Vec<(String, u64)>,
}

impl Header {
    /// The header for `model`'s run at `step`.
    pub fn new(model: &Simulation, fingerprint: u64, run_id: u64, step: usize) -> Header {
        let g = &model.grid;
        Header {
            format: FORMAT,
            version: env!("CARGO_PKG_VERSION").to_string(),
            fingerprint,
            run_id,
            step: step as u64,
            steps: g.steps as u64,
            n: g.n.map(|x| x as u64),
            dt: g.dt,
            arrays: model
                .schedule
                .state
                .iter()
                .map(|a| (a.name.clone(), a.len() as u64))
                .collect(),
        }
    }

    /// Header length in bytes, CRC included.
    pub fn len(&self) -> usize {
        match self.format {
            FORMAT_V1 => FIXED_HEADER + 32 * self.arrays.len().saturating_sub(6) / 4 + 4,
            _ => self.len_v2(),
        }
    }

    /// Length of this header written as format 2 (what [`Header::encode`] writes).
    fn len_v2(&self) -> usize {
        FIXED_HEADER + self.arrays.iter().map(|(n, _)| 10 + n.len()).sum::<usize>() + 4
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// Payload length in bytes (None on overflow: a corrupt header).
    pub fn payload_len(&self) -> Option<u64> {
        let mut values = 0u64;
        for (_, x) in &self.arrays {
            values = values.checked_add(*x)?;
        }
        values.checked_mul(4)
    }

    /// Whole file length in bytes.
    pub fn file_len(&self) -> Option<u64> {
        self.payload_len()?.checked_add(self.len() as u64 + 4)
    }

    /// The header's bytes (format 2), CRC included.
    fn encode(&self) -> Vec<u8> {
        let len = self.len_v2();
        let mut b = Vec::with_capacity(len);
        b.extend_from_slice(&MAGIC);
        b.extend_from_slice(&FORMAT.to_le_bytes());
        b.extend_from_slice(&(len as u32).to_le_bytes());
        for v in [self.fingerprint, self.run_id, self.step, self.steps] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for v in self.n {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&self.dt.to_bits().to_le_bytes());
        b.extend_from_slice(&(self.arrays.len() as u64).to_le_bytes());
        b.extend_from_slice(&0u64.to_le_bytes());
        let mut v = [0u8; VERSION_BYTES];
        let src = self.version.as_bytes();
        let n = src.len().min(VERSION_BYTES);
        v[..n].copy_from_slice(&src[..n]);
        b.extend_from_slice(&v);
        debug_assert_eq!(b.len(), FIXED_HEADER);
        for (name, values) in &self.arrays {
            b.extend_from_slice(&values.to_le_bytes());
            b.extend_from_slice(&(name.len() as u16).to_le_bytes());
            b.extend_from_slice(name.as_bytes());
        }
        let crc = crc32fast::hash(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        b
    }

    /// Decode a header from the start of `r`; checks magic, format and the header CRC.
    fn decode(path: &Path, r: &mut impl Read) -> Result<Header, CheckpointError> {
        let mut fixed = [0u8; FIXED_HEADER];
        read_exact(path, r, &mut fixed, "the header")?;
        if fixed[..8] != MAGIC {
            return Err(CheckpointError::NotACheckpoint {
                path: path.to_path_buf(),
            });
        }
        let u32_at = |o: usize| u32::from_le_bytes(fixed[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(fixed[o..o + 8].try_into().expect("8 bytes"));
        let format = u32_at(8);
        if format != FORMAT && format != FORMAT_V1 {
            return Err(CheckpointError::Format {
                path: path.to_path_buf(),
                found: format,
            });
        }
        let hlen = u32_at(12);
        let min = if format == FORMAT_V1 {
            (FIXED_HEADER as u64 + 4).checked_add(u64_at(88).saturating_mul(32))
        } else {
            (FIXED_HEADER as u64 + 4).checked_add(u64_at(80).saturating_mul(10))
        };
        let bad_len = match (format, min) {
            (FORMAT_V1, Some(m)) => hlen as u64 != m,
            (_, Some(m)) => (hlen as u64) < m,
            (_, None) => true,
        };
        if hlen > MAX_HEADER || bad_len {
            return Err(CheckpointError::corrupt(
                path,
                format!("header length {hlen} does not fit its table of arrays"),
            ));
        }
        let mut rest = vec![0u8; hlen as usize - FIXED_HEADER];
        read_exact(path, r, &mut rest, "the header")?;
        let (table, crc_bytes) = rest.split_at(rest.len() - 4);
        let mut crc = crc32fast::Hasher::new();
        crc.update(&fixed);
        crc.update(table);
        if crc.finalize() != u32::from_le_bytes(crc_bytes.try_into().expect("4 bytes")) {
            return Err(CheckpointError::corrupt(path, "the header checksum does not match"));
        }
        let version_raw = &fixed[96..128];
        let end = version_raw.iter().position(|&b| b == 0).unwrap_or(VERSION_BYTES);
        let arrays = if format == FORMAT_V1 {
            // Fixed table: six fields of the field length, then four ψ per layer,
            // named by position until matched to a model.
            let field_len = u64_at(80);
            let mut a: Vec<(String, u64)> = ["Ex", "Ey", "Ez", "Hx", "Hy", "Hz"]
                .iter()
                .map(|n| (n.to_string(), field_len))
                .collect();
            for (l, c) in table.chunks_exact(32).enumerate() {
                for s in 0..4 {
                    let v = u64::from_le_bytes(c[8 * s..8 * s + 8].try_into().expect("8 bytes"));
                    a.push((format!("v1/layer{l}/slot{s}"), v));
                }
            }
            a
        } else {
            let count = u64_at(80);
            let mut a = Vec::new();
            let mut at = 0usize;
            for _ in 0..count {
                let Some(entry) = table.get(at..at + 10) else {
                    return Err(CheckpointError::corrupt(path, "the table of arrays is cut short"));
                };
                let values = u64::from_le_bytes(entry[..8].try_into().expect("8 bytes"));
                let nlen = u16::from_le_bytes(entry[8..10].try_into().expect("2 bytes")) as usize;
                let Some(name) = table.get(at + 10..at + 10 + nlen) else {
                    return Err(CheckpointError::corrupt(path, "the table of arrays is cut short"));
                };
                let name = std::str::from_utf8(name)
                    .map_err(|_| CheckpointError::corrupt(path, "an array name is not UTF-8"))?;
                a.push((name.to_string(), values));
                at += 10 + nlen;
            }
            if at != table.len() {
                return Err(CheckpointError::corrupt(path, "the table of arrays has trailing bytes"));
            }
            a
        };
        let header = Header {
            format,
            version: String::from_utf8_lossy(&version_raw[..end]).into_owned(),
            fingerprint: u64_at(16),
            run_id: u64_at(24),
            step: u64_at(32),
            steps: u64_at(40),
            n: [u64_at(48), u64_at(56), u64_at(64)],
            dt: f64::from_bits(u64_at(72)),
            arrays,
        };
        if header.payload_len().is_none() {
            return Err(CheckpointError::corrupt(path, "the payload length overflows"));
        }
        if header.step > header.steps {
            return Err(CheckpointError::corrupt(
                path,
                format!("step {} is past the planned {} steps", header.step, header.steps),
            ));
        }
        Ok(header)
    }

    /// Check that this header fits `model`'s state table exactly (before allocating any
    /// of it). A format-1 header takes the model's names when its arrays match the
    /// model's table by position and size.
    fn check_layout(&mut self, path: &Path, model: &Simulation) -> Result<(), CheckpointError> {
        let want = Header::new(model, self.fingerprint, self.run_id, 0).arrays;
        let sizes_match = self.arrays.len() == want.len() && self.arrays.iter().zip(&want).all(|(a, b)| a.1 == b.1);
        if self.format == FORMAT_V1 {
            if !sizes_match {
                return Err(CheckpointError::Mismatch {
                    path: path.to_path_buf(),
                    what: format!(
                        "it is a format-1 checkpoint whose fixed table of {} arrays (fields and CPML ψ) does not \
                         match this scene's {} state arrays (a pass with its own state, or another grid); start \
                         the run again",
                        self.arrays.len(),
                        want.len()
                    ),
                });
            }
            self.arrays = want;
            return Ok(());
        }
        if self.arrays != want {
            let missing: Vec<&str> = want
                .iter()
                .filter(|w| !self.arrays.iter().any(|a| a.0 == w.0))
                .map(|w| w.0.as_str())
                .collect();
            let what = if !missing.is_empty() {
                format!("it has no array {}", missing.join(", "))
            } else {
                "its arrays do not have the sizes of this scene's grid and state table".into()
            };
            return Err(CheckpointError::Mismatch {
                path: path.to_path_buf(),
                what,
            });
        }
        Ok(())
    }

    /// Why this header does not belong to a run with `expect` (None if it does).
    fn mismatch(&self, expect: &Header) -> Option<String> {
        let dims = |n: [u64; 3]| format!("{} × {} × {}", n[0], n[1], n[2]);
        if self.version != expect.version {
            return Some(format!(
                "it was written by fdtd {}, this is fdtd {} (resume with the version that started the run)",
                self.version, expect.version
            ));
        }
        if self.n != expect.n {
            return Some(format!(
                "it is for a grid of {} cells, the scene now makes {}",
                dims(self.n),
                dims(expect.n)
            ));
        }
        if self.steps != expect.steps {
            return Some(format!(
                "it is for a run of {} steps, the scene now has {}",
                self.steps, expect.steps
            ));
        }
        if self.dt.to_bits() != expect.dt.to_bits() {
            return Some(format!(
                "it is for dt = {:e} s, the scene now gives dt = {:e} s",
                self.dt, expect.dt
            ));
        }
        if self.fingerprint != expect.fingerprint {
            return Some(
                "the scene has changed since the checkpoint was written (materials, objects, sources, probes, \
                 snapshots or boundaries differ; comments and [checkpoint] do not count)"
                    .into(),
            );
        }
        if self.run_id != expect.run_id {
            return Some(format!(
                "it was written for another output file (run id {:016x}, the output's is {:016x})",
                self.run_id, expect.run_id
            ));
        }
        None
    }
}

fn read_exact(path: &Path, r: &mut impl Read, buf: &mut [u8], what: &str) -> Result<(), CheckpointError> {
    r.read_exact(buf).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            CheckpointError::corrupt(path, format!("the file is truncated (in {what})"))
        } else {
            CheckpointError::io(path, e)
        }
    })
}

// ---------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------

/// The default checkpoint of an output file: `<out>.ckpt`.
pub fn default_path(output: &Path) -> PathBuf {
    suffixed(output, ".ckpt")
}

fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

/// The files a checkpoint at `path` may occupy: newest, previous, and a finished but
/// not yet renamed temporary.
pub fn files(path: &Path) -> [PathBuf; 3] {
    [path.to_path_buf(), suffixed(path, ".prev"), suffixed(path, ".tmp")]
}

/// What a file at one of a checkpoint's names is, judged by its first bytes (a symbolic
/// link is never followed): only a checkpoint of the right run, or the cut-short start
/// of one, may be removed or replaced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileKind {
    Absent,
    /// A checkpoint file (magic `FDTDCKPT`) of the run with this id.
    Checkpoint {
        run_id: u64,
    },
    /// Empty, or cut short inside the header before the run id: a write stopped early.
    Fragment,
    /// Anything else: another file, a directory, a link, a device, unreadable. Never touched.
    Foreign(String),
}

/// Bytes before the end of the run id in every checkpoint format.
const RUN_ID_END: usize = 32;

/// What the file at `path` is (see [`FileKind`]).
pub fn identify(path: &Path) -> FileKind {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return FileKind::Absent,
        Err(e) => return FileKind::Foreign(format!("it cannot be examined: {e}")),
    };
    let ft = meta.file_type();
    if ft.is_symlink() {
        return FileKind::Foreign("it is a symbolic link".into());
    }
    if !ft.is_file() {
        return FileKind::Foreign("it is not a regular file".into());
    }
    let mut head = [0u8; RUN_ID_END];
    let n = match open_nofollow(path).and_then(|mut f| read_up_to(&mut f, &mut head)) {
        Ok(n) => n,
        Err(e) => return FileKind::Foreign(format!("it cannot be read: {e}")),
    };
    let m = n.min(MAGIC.len());
    if head[..m] != MAGIC[..m] {
        return FileKind::Foreign("it is not an fdtd checkpoint (it does not start with FDTDCKPT)".into());
    }
    if n < RUN_ID_END {
        return FileKind::Fragment;
    }
    FileKind::Checkpoint {
        run_id: u64::from_le_bytes(head[24..32].try_into().expect("8 bytes")),
    }
}

fn open_nofollow(path: &Path) -> io::Result<File> {
    let mut o = fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    o.open(path)
}

fn read_up_to(f: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Whose checkpoint files a removal may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// Only checkpoints of the run with this id (and fragments).
    Run(u64),
    /// Checkpoints of any run (and fragments): for files named after an output, beside
    /// it, which only runs writing that output create.
    AnyRun,
}

impl Owner {
    /// Whether a file of `kind` belongs to this owner; `Err` says why not.
    pub fn owns(self, kind: &FileKind) -> Result<bool, String> {
        match (kind, self) {
            (FileKind::Absent, _) => Ok(false),
            (FileKind::Fragment, _) | (FileKind::Checkpoint { .. }, Owner::AnyRun) => Ok(true),
            (FileKind::Checkpoint { run_id }, Owner::Run(id)) if *run_id == id => Ok(true),
            (FileKind::Checkpoint { run_id }, Owner::Run(_)) => {
                Err(format!("it is a checkpoint of another run (run id {run_id:016x})"))
            }
            (FileKind::Foreign(why), _) => Err(why.clone()),
        }
    }
}

/// The files of the checkpoint at `path` that `owner` does not own: (file, why). A run
/// refuses to start while any exists, since writing its checkpoints would replace them.
pub fn in_the_way(path: &Path, owner: Owner) -> Vec<(PathBuf, String)> {
    files(path)
        .into_iter()
        .filter_map(|p| owner.owns(&identify(&p)).err().map(|why| (p, why)))
        .collect()
}

/// What [`remove_owned`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Removal {
    /// Files removed.
    pub removed: usize,
    /// Files left alone, and why: nothing that is not a checkpoint of the owner is removed.
    pub kept: Vec<(PathBuf, String)>,
}

/// Remove the files of the checkpoint at `path` that belong to `owner` (checked by their
/// header, see [`identify`]); anything else is left alone and listed.
pub fn remove_owned(path: &Path, owner: Owner) -> io::Result<Removal> {
    let mut r = Removal::default();
    for p in files(path) {
        match owner.owns(&identify(&p)) {
            Ok(false) => {}
            Ok(true) => match fs::remove_file(&p) {
                Ok(()) => r.removed += 1,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", p.display()))),
            },
            Err(why) => r.kept.push((p, why)),
        }
    }
    Ok(r)
}

/// Remove the file at `p` if it is absent or belongs to the run `run_id`; else refuse.
fn clear_own(p: &Path, run_id: u64) -> Result<(), CheckpointError> {
    match Owner::Run(run_id).owns(&identify(p)) {
        Ok(false) => Ok(()),
        Ok(true) => match fs::remove_file(p) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(CheckpointError::io(p, e)),
            _ => Ok(()),
        },
        Err(why) => Err(CheckpointError::NotOurs {
            path: p.to_path_buf(),
            why,
        }),
    }
}

// ---------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------

fn write_f32s(w: &mut impl Write, crc: &mut crc32fast::Hasher, v: &[f32]) -> io::Result<()> {
    // In pieces, so that a big-endian host converts through a bounded buffer.
    const PIECE: usize = 1 << 16;
    let mut buf = Vec::with_capacity(PIECE * 4);
    for piece in v.chunks(PIECE) {
        buf.clear();
        if cfg!(target_endian = "little") {
            buf.extend_from_slice(bytemuck::cast_slice(piece));
        } else {
            for x in piece {
                buf.extend_from_slice(&x.to_le_bytes());
            }
        }
        crc.update(&buf);
        w.write_all(&buf)?;
    }
    Ok(())
}

/// fsync a directory, so that a rename in it is durable (no-op where unsupported).
fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Write `state` under `header` to `path` atomically (see the [module docs](self));
/// returns the file's size in bytes.
pub fn write(path: &Path, header: &Header, state: &SolverState) -> Result<u64, CheckpointError> {
    let [_, prev, tmp] = files(path);
    // The table must match the header, or the file would not read back.
    let table_ok = header.format == FORMAT
        && state.arrays.len() == header.arrays.len()
        && state
            .arrays
            .iter()
            .zip(&header.arrays)
            .all(|(a, (name, len))| a.name == *name && a.data.len() as u64 == *len);
    if !table_ok {
        return Err(CheckpointError::corrupt(
            path,
            "internal error: the solver state does not match the checkpoint header",
        ));
    }
    // Nothing but this run's own checkpoint files is replaced or removed.
    if let Err(why) = Owner::Run(header.run_id).owns(&identify(path)) {
        return Err(CheckpointError::NotOurs {
            path: path.to_path_buf(),
            why,
        });
    }
    // Only the newest generation stays while the new one is written (peak: two on disk).
    clear_own(&prev, header.run_id)?;
    clear_own(&tmp, header.run_id)?;
    let result = (|| -> io::Result<()> {
        // A new file (never through a link planted at the name).
        let file = fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        let mut w = BufWriter::with_capacity(4 << 20, file);
        w.write_all(&header.encode())?;
        let mut crc = crc32fast::Hasher::new();
        for a in &state.arrays {
            write_f32s(&mut w, &mut crc, &a.data)?;
        }
        w.write_all(&crc.finalize().to_le_bytes())?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(CheckpointError::io(&tmp, e));
    }
    if path.exists() {
        fs::rename(path, &prev).map_err(|e| CheckpointError::io(path, e))?;
    }
    fs::rename(&tmp, path).map_err(|e| CheckpointError::io(path, e))?;
    let dir = parent_dir(path);
    sync_dir(&dir).map_err(|e| CheckpointError::io(&dir, e))?;
    Ok(header.file_len().unwrap_or(0))
}

// ---------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------

/// A checkpoint read back and verified.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    pub path: PathBuf,
    pub header: Header,
    pub state: SolverState,
}

/// Read and verify only the header of the checkpoint file `path`.
pub fn read_header(path: &Path) -> Result<Header, CheckpointError> {
    let f = File::open(path).map_err(|e| CheckpointError::io(path, e))?;
    Header::decode(path, &mut BufReader::new(f))
}

fn read_f32s(path: &Path, r: &mut impl Read, crc: &mut crc32fast::Hasher, n: u64) -> Result<Vec<f32>, CheckpointError> {
    let n = usize::try_from(n).map_err(|_| CheckpointError::corrupt(path, "an array is too large"))?;
    let mut v = vec![0f32; n];
    if cfg!(target_endian = "little") {
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut v);
        read_exact(path, r, bytes, "the payload")?;
        crc.update(bytes);
    } else {
        let mut buf = vec![0u8; 4 << 16];
        for piece in v.chunks_mut(1 << 16) {
            let b = &mut buf[..piece.len() * 4];
            read_exact(path, r, b, "the payload")?;
            crc.update(b);
            for (x, c) in piece.iter_mut().zip(b.chunks_exact(4)) {
                *x = f32::from_le_bytes(c.try_into().expect("4 bytes"));
            }
        }
    }
    Ok(v)
}

/// Read the checkpoint `path` for `model`, verifying its layout, size and checksums.
/// Nothing larger than the header is allocated before the layout is known to match
/// `model`, so a corrupt length cannot make it allocate more than the run itself needs.
pub fn read(path: &Path, model: &Simulation) -> Result<Checkpoint, CheckpointError> {
    let f = File::open(path).map_err(|e| CheckpointError::io(path, e))?;
    let actual = f.metadata().map_err(|e| CheckpointError::io(path, e))?.len();
    read_from(path, BufReader::with_capacity(4 << 20, f), actual, model)
}

/// [`read`] from bytes in memory (`path` only names them in messages).
pub fn decode(path: &Path, bytes: &[u8], model: &Simulation) -> Result<Checkpoint, CheckpointError> {
    read_from(path, bytes, bytes.len() as u64, model)
}

fn read_from(path: &Path, mut r: impl Read, actual: u64, model: &Simulation) -> Result<Checkpoint, CheckpointError> {
    let mut header = Header::decode(path, &mut r)?;
    header.check_layout(path, model)?;
    let want = header.file_len().expect("checked by decode");
    if actual != want {
        return Err(CheckpointError::corrupt(
            path,
            format!("the file has {actual} bytes, its header says {want} (truncated or overwritten)"),
        ));
    }
    let mut crc = crc32fast::Hasher::new();
    let mut arrays = Vec::with_capacity(header.arrays.len());
    for (name, n) in &header.arrays {
        arrays.push(StateArray {
            name: name.clone(),
            data: read_f32s(path, &mut r, &mut crc, *n)?,
        });
    }
    let mut stored = [0u8; 4];
    read_exact(path, &mut r, &mut stored, "the payload checksum")?;
    if crc.finalize() != u32::from_le_bytes(stored) {
        return Err(CheckpointError::corrupt(path, "the payload checksum does not match"));
    }
    let state = SolverState { arrays };
    Ok(Checkpoint {
        path: path.to_path_buf(),
        header,
        state,
    })
}

/// The newest usable checkpoint among the files of `path` (see [`files`]) for a run
/// described by `expect` (a [`Header::new`] for the run; its `step` is ignored).
///
/// A file that belongs to another run (other scene, grid, version or output file) is a
/// refusal: nothing of it is used. A corrupt file is skipped when an older valid one
/// exists, with a note in the returned list.
pub fn find_latest(
    path: &Path,
    model: &Simulation,
    expect: &Header,
) -> Result<(Checkpoint, Vec<String>), CheckpointError> {
    let mut notes = Vec::new();
    let mut headers = Vec::new();
    let mut problems = Vec::new();
    let [_, _, tmp] = files(path);
    for p in files(path) {
        if !p.exists() {
            continue;
        }
        match read_header(&p) {
            Ok(h) => {
                if let Some(what) = h.mismatch(expect) {
                    return Err(CheckpointError::Mismatch { path: p, what });
                }
                headers.push((p, h));
            }
            // A temporary that a stop cut short is expected, not worth a word.
            Err(_) if p == tmp => {}
            Err(e) => problems.push(e.to_string()),
        }
    }
    headers.sort_by_key(|(_, h)| std::cmp::Reverse(h.step));
    for (p, _) in headers {
        match read(&p, model) {
            Ok(c) => {
                notes.extend(problems.iter().map(|e| format!("skipped {e}")));
                return Ok((c, notes));
            }
            Err(e @ CheckpointError::Mismatch { .. }) => return Err(e),
            Err(_) if p == tmp => {}
            Err(e) => problems.push(e.to_string()),
        }
    }
    let why = if problems.is_empty() {
        format!(
            "no checkpoint file exists ({} or {}.prev)",
            path.display(),
            path.display()
        )
    } else {
        problems.join("; ")
    };
    Err(CheckpointError::NoneUsable {
        path: path.to_path_buf(),
        why,
    })
}

// ---------------------------------------------------------------------------
// Intervals
// ---------------------------------------------------------------------------

/// When to write periodic checkpoints: every `steps` steps, every `time` of wall
/// clock, or both (whichever comes first). Checkpoints are written at chunk ends.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Interval {
    pub steps: Option<usize>,
    pub time: Option<Duration>,
}

impl Interval {
    /// The default: every [`DEFAULT_INTERVAL`] of wall clock.
    pub fn default_time() -> Interval {
        Interval {
            steps: None,
            time: Some(DEFAULT_INTERVAL),
        }
    }

    /// Parse `500` (steps) or a duration `30s`, `10m`, `1.5h` (seconds, minutes, hours).
    pub fn parse(s: &str) -> Result<Interval, String> {
        let s = s.trim();
        if let Ok(n) = s.parse::<u64>() {
            if n == 0 {
                return Err("a checkpoint interval must be at least 1 step".into());
            }
            return Ok(Interval {
                steps: Some(n as usize),
                time: None,
            });
        }
        let (num, unit) = s.split_at(s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len()));
        let scale = match unit {
            "s" | "sec" => 1.0,
            "m" | "min" => 60.0,
            "h" => 3600.0,
            _ => {
                return Err(format!(
                    "`{s}` is not a checkpoint interval: give steps (500) or a time (30s, 10m, 2h)"
                ))
            }
        };
        let v: f64 = num
            .trim()
            .parse()
            .map_err(|_| format!("`{s}` is not a checkpoint interval: `{num}` is not a number"))?;
        let secs = v * scale;
        if !(secs.is_finite() && secs > 0.0 && secs < 1e9) {
            return Err(format!("`{s}`: a checkpoint interval must be a positive time"));
        }
        Ok(Interval {
            steps: None,
            time: Some(Duration::from_secs_f64(secs)),
        })
    }

    /// `every 500 steps`, `every 10 min`, `every 500 steps or 10 min`.
    pub fn describe(&self) -> String {
        let t = self.time.map(|t| {
            let s = t.as_secs_f64();
            if s >= 3600.0 && (s / 3600.0).fract() == 0.0 {
                format!("{} h", s / 3600.0)
            } else if s >= 60.0 && (s / 60.0).fract() == 0.0 {
                format!("{} min", s / 60.0)
            } else {
                format!("{s} s")
            }
        });
        match (self.steps, t) {
            (Some(n), Some(t)) => format!("every {n} steps or {t} of wall time"),
            (Some(n), None) => format!("every {n} steps"),
            (None, Some(t)) => format!("every {t} of wall time"),
            (None, None) => "only when stopped".into(),
        }
    }
}

/// Bytes of one checkpoint of `model` (header + payload + CRC).
pub fn size(model: &Simulation) -> u64 {
    Header::new(model, 0, 0, 0).file_len().unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn model() -> Arc<Simulation> {
        let text = "[domain]\ncell = 1e-3\ncells = [9, 8, 7]\n[time]\nsteps = 20\n[boundaries]\nall = \"pec\"\n\
                    x_min = \"cpml\"\n[boundaries.cpml]\ncells = 3\n";
        let scene = Scene::parse(text, "t.toml").unwrap();
        Arc::new(Simulation::standard(crate::model::Model::discretize(&scene).unwrap()))
    }

    fn state(m: &Simulation, seed: f32) -> SolverState {
        let h = Header::new(m, 0, 0, 0);
        let mut k = seed;
        let mut next = || {
            k = (k * 1.618_034 + 0.1).fract();
            k - 0.5
        };
        SolverState {
            arrays: h
                .arrays
                .iter()
                .map(|(name, len)| StateArray {
                    name: name.clone(),
                    data: (0..*len).map(|_| next()).collect(),
                })
                .collect(),
        }
    }

    #[test]
    fn round_trip_and_generations() {
        let m = model();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.h5.ckpt");
        let s1 = state(&m, 0.3);
        let h1 = Header::new(&m, 42, 7, 5);
        let bytes = write(&path, &h1, &s1).unwrap();
        assert_eq!(bytes, fs::metadata(&path).unwrap().len());
        let c = read(&path, &m).unwrap();
        assert_eq!(c.header, h1);
        assert_eq!(c.state, s1);
        s1.check(&m.schedule.state).unwrap();

        let s2 = state(&m, 0.7);
        let h2 = Header::new(&m, 42, 7, 10);
        write(&path, &h2, &s2).unwrap();
        let [_, prev, tmp] = files(&path);
        assert!(prev.exists() && !tmp.exists());
        assert_eq!(read_header(&prev).unwrap().step, 5);
        let expect = Header::new(&m, 42, 7, 0);
        let (c, notes) = find_latest(&path, &m, &expect).unwrap();
        assert_eq!((c.header.step, notes.len()), (10, 0));
        assert_eq!(c.state, s2);

        // The newest is damaged: the previous one is used, with a note.
        let mut raw = fs::read(&path).unwrap();
        let mid = raw.len() / 2;
        raw[mid] ^= 0x40;
        fs::write(&path, &raw).unwrap();
        let err = read(&path, &m).unwrap_err().to_string();
        assert!(err.contains("payload checksum"), "{err}");
        let (c, notes) = find_latest(&path, &m, &expect).unwrap();
        assert_eq!(c.header.step, 5);
        assert!(notes[0].contains("checksum"), "{notes:?}");

        // Truncated: refused with the sizes.
        fs::write(&path, &raw[..raw.len() - 9]).unwrap();
        let err = read(&path, &m).unwrap_err().to_string();
        assert!(err.contains("truncated"), "{err}");

        // Both unusable: a clear refusal.
        fs::write(&prev, b"FDTDCKPT\x01\0\0\0").unwrap();
        let err = find_latest(&path, &m, &expect).unwrap_err().to_string();
        assert!(err.starts_with("no usable checkpoint"), "{err}");
        assert!(err.contains("truncated"), "{err}");

        assert_eq!(remove_owned(&path, Owner::Run(7)).unwrap().removed, 2);
        let err = find_latest(&path, &m, &expect).unwrap_err().to_string();
        assert!(err.contains("no checkpoint file exists"), "{err}");
    }

    #[test]
    fn another_run_is_refused() {
        let m = model();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.ckpt");
        write(&path, &Header::new(&m, 1, 7, 4), &state(&m, 0.1)).unwrap();
        let err = find_latest(&path, &m, &Header::new(&m, 2, 7, 0))
            .unwrap_err()
            .to_string();
        assert!(err.contains("the scene has changed"), "{err}");
        let err = find_latest(&path, &m, &Header::new(&m, 1, 8, 0))
            .unwrap_err()
            .to_string();
        assert!(err.contains("another output file"), "{err}");
        let mut other = Header::new(&m, 1, 7, 0);
        other.n[0] += 1;
        let err = find_latest(&path, &m, &other).unwrap_err().to_string();
        assert!(
            err.contains("grid of 9 × 8 × 7 cells, the scene now makes 10 × 8 × 7"),
            "{err}"
        );
        other = Header::new(&m, 1, 7, 0);
        other.version = "9.9.9".into();
        let err = find_latest(&path, &m, &other).unwrap_err().to_string();
        assert!(err.contains("written by fdtd"), "{err}");
    }

    #[test]
    fn garbage_is_not_a_checkpoint() {
        let m = model();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.ckpt");
        for bytes in [&b""[..], b"hello world", b"FDTDCKPT\x02\0\0\0", &[0u8; 200]] {
            fs::write(&path, bytes).unwrap();
            assert!(read(&path, &m).is_err());
        }
        // A header claiming absurd sizes is refused before allocating.
        let mut h = Header::new(&m, 0, 0, 0);
        h.arrays[0].1 = 1 << 40;
        fs::write(&path, h.encode()).unwrap();
        let err = read(&path, &m).unwrap_err().to_string();
        assert!(err.contains("sizes of this scene's grid"), "{err}");
        for a in &mut h.arrays[..6] {
            a.1 = u64::MAX / 8;
        }
        fs::write(&path, h.encode()).unwrap();
        let err = read(&path, &m).unwrap_err().to_string();
        assert!(err.contains("payload length overflows"), "{err}");
    }

    /// A format-1 file (fixed table: six fields, four ψ per layer) of the same run is
    /// read, its arrays take the model's names, and its values are kept.
    #[test]
    fn format_1_is_read() {
        let m = model();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.ckpt");
        let s = state(&m, 0.4);
        let h = Header::new(&m, 3, 9, 6);
        // The format-1 header, as fdtd 0.1 wrote it.
        let mut b = Vec::new();
        b.extend_from_slice(&MAGIC);
        b.extend_from_slice(&FORMAT_V1.to_le_bytes());
        let layers = m.cpml.len();
        b.extend_from_slice(&((FIXED_HEADER + 32 * layers + 4) as u32).to_le_bytes());
        for v in [
            h.fingerprint,
            h.run_id,
            h.step,
            h.steps,
            h.n[0],
            h.n[1],
            h.n[2],
            h.dt.to_bits(),
        ] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&h.arrays[0].1.to_le_bytes());
        b.extend_from_slice(&(layers as u64).to_le_bytes());
        let mut v = [0u8; VERSION_BYTES];
        v[..h.version.len()].copy_from_slice(h.version.as_bytes());
        b.extend_from_slice(&v);
        for l in 0..layers {
            for slot in 0..4 {
                b.extend_from_slice(&h.arrays[6 + 4 * l + slot].1.to_le_bytes());
            }
        }
        let crc = crc32fast::hash(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        let mut pc = crc32fast::Hasher::new();
        for a in &s.arrays {
            let bytes: &[u8] = bytemuck::cast_slice(&a.data);
            pc.update(bytes);
            b.extend_from_slice(bytes);
        }
        b.extend_from_slice(&pc.finalize().to_le_bytes());
        fs::write(&path, &b).unwrap();
        let c = read(&path, &m).unwrap();
        assert_eq!(c.state, s);
        assert_eq!(c.header.format, FORMAT_V1);
        assert!(c.state.get("cpml/x-/psi_Hz").is_some());
        let (c, _) = find_latest(&path, &m, &Header::new(&m, 3, 9, 0)).unwrap();
        assert_eq!(c.header.step, 6);
        // Another grid: refused, naming the format.
        let other = crate::model::Model::discretize(
            &Scene::parse(
                "[domain]\ncell = 1e-3\ncells = [9, 8, 7]\n[time]\nsteps = 20\n[boundaries]\nall = \"pec\"\n",
                "o.toml",
            )
            .unwrap(),
        )
        .unwrap();
        let err = read(&path, &Simulation::standard(other)).unwrap_err().to_string();
        assert!(err.contains("format-1 checkpoint"), "{err}");
        // A future format: refused with what to do.
        b[8] = 7;
        fs::write(&path, &b).unwrap();
        let err = read(&path, &m).unwrap_err().to_string();
        assert!(err.contains("format 7") && err.contains("newer fdtd"), "{err}");
    }

    /// A table that lacks one of the model's arrays is refused with its name.
    #[test]
    fn missing_array_is_named() {
        let m = model();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.ckpt");
        let mut h = Header::new(&m, 0, 0, 0);
        let mut s = state(&m, 0.2);
        h.arrays.pop();
        s.arrays.pop();
        write(&path, &h, &s).unwrap();
        let err = read(&path, &m).unwrap_err().to_string();
        assert!(err.contains("it has no array cpml/x-/psi_Hz"), "{err}");
    }

    #[test]
    fn intervals() {
        assert_eq!(Interval::parse("500").unwrap().steps, Some(500));
        assert_eq!(Interval::parse("10m").unwrap().time, Some(Duration::from_secs(600)));
        assert_eq!(Interval::parse("30s").unwrap().time, Some(Duration::from_secs(30)));
        assert_eq!(Interval::parse("1.5h").unwrap().time, Some(Duration::from_secs(5400)));
        for bad in ["0", "-5", "10x", "m", "", "nanm", "-1s"] {
            assert!(Interval::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Interval::default_time().describe(), "every 10 min of wall time");
    }

    #[test]
    fn fingerprint_ignores_comments_and_checkpoint_section() {
        let base = "[domain]\ncell = 1e-3\ncells = [9, 8, 7]\n[time]\nsteps = 20\n[boundaries]\nall = \"pec\"\n";
        let fp = |text: &str| {
            let s = Scene::parse(text, "a.toml").unwrap();
            fingerprint(&s, &Simulation::standard(crate::model::Model::discretize(&s).unwrap()))
        };
        let a = fp(base);
        assert_eq!(a, fp(&format!("# comment\n{base}")));
        assert_eq!(a, fp(&format!("{base}[checkpoint]\nevery_steps = 5\n")));
        assert_ne!(a, fp(&base.replace("steps = 20", "steps = 21")));
        assert_ne!(a, fp(&format!("{base}[[probes]]\nposition = [0.004, 0.004, 0.003]\n")));
    }
}

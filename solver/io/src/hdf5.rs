//! The HDF5 writer behind [`Hdf5Sink`] (layout: see the [module docs](super)).
use super::reserve::{self, Reservation};
use super::safe_create::{self, PublishError};
use super::{describe, xdmf};
use fdtd_core::model::Model;
use fdtd_core::results::RunResults;
use fdtd_core::runner::{Outcome, RunSummary, Sink, SinkError};
use fdtd_core::scene::Scene;
pub use fdtd_core::session::probe_layout::PROBE_TABLE_THRESHOLD;
use fdtd_core::session::probe_layout::{probe_tables, series_chunk, table_chunk, ProbeLayout, ProbeTable};
pub use fdtd_core::session::OutputInfo;
use fdtd_core::session::{MemoryReport, Output, OutputErrorKind, OutputFailure, OutputFormat};
use fdtd_core::Component;
use hdf5::types::{FixedAscii, VarLenUnicode};
use hdf5::{Dataset, File, Group, H5Type, Location};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The root attribute `index_convention`: where sample `F[i, j, k]` of each component sits.
pub const INDEX_CONVENTION: &str = "F[i,j,k] sits at ((i+s_x)dx, (j+s_y)dy, (k+s_z)dz) from the domain's \
minimum corner, with s = 1/2 along the component's own axis for E (Ex: s_x, Ey: s_y, Ez: s_z) and along \
the two other axes for H (Hx: s_y,s_z; Hy: s_x,s_z; Hz: s_x,s_y), else 0: E on cell edges, H on face \
centres; arrays are C order (z fastest); see docs";

/// Probe names listed in a run summary ([`Hdf5Sink::contents`]); more are counted.
const LISTED_PROBES: usize = 8;
/// Largest snapshot chunk (bytes). A frame larger than this is split along its first
/// axes (HDF5 caps a chunk at 4 GiB, and deflate holds a whole chunk in memory).
const MAX_CHUNK_BYTES: usize = 256 << 20;
/// The XDMF companion is rewritten at most this often during a run (and always at the end).
const XDMF_INTERVAL: Duration = Duration::from_secs(10);

/// Why the output file could not be written. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("output file {} already exists", path.display())]
    Exists { path: PathBuf },
    #[error("cannot create output file {}: {source}", path.display())]
    Create {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot create output file {}: directory {} does not exist", path.display(), dir.display())]
    NoDirectory { path: PathBuf, dir: PathBuf },
    #[error("{}: {what}: {source}", path.display())]
    Hdf5 {
        path: PathBuf,
        what: String,
        #[source]
        source: hdf5::Error,
    },
    #[error("{}: {what} name `{name}` cannot be an HDF5 group name (empty, `.`, or contains `/`)", path.display())]
    BadName {
        path: PathBuf,
        what: &'static str,
        name: String,
    },
    #[error("{}: making the file durable (fsync): {source}", path.display())]
    Sync {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{}: {what}", path.display())]
    Sample { path: PathBuf, what: String },
    #[error("cannot resume into {}: {why}", path.display())]
    NotResumable { path: PathBuf, why: String },
    #[error("{}: writing the XDMF companion {}: {source}", path.display(), xdmf.display())]
    Xdmf {
        path: PathBuf,
        xdmf: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{}: writing {}: {source}", path.display(), companion.display())]
    Companion {
        path: PathBuf,
        companion: PathBuf,
        #[source]
        source: io::Error,
    },
    /// A results companion (Touchstone, CSV) exists and overwriting was not asked for.
    #[error("{} (a result file of output file {}) already exists", companion.display(), path.display())]
    CompanionExists { path: PathBuf, companion: PathBuf },
    /// The XDMF companion exists and overwriting was not asked for.
    #[error("the XDMF companion {} of output file {} already exists", xdmf.display(), path.display())]
    XdmfExists { path: PathBuf, xdmf: PathBuf },
    #[error("cannot overwrite {}: it is {what}, not a regular file", path.display())]
    NotRegular { path: PathBuf, what: &'static str },
    /// Another program holds the file's lock (an fdtd run writing it, a program reading it).
    #[error("output file {} is in use by another process (a run writing it or a program reading it holds its lock); it is left as it was", path.display())]
    InUse { path: PathBuf },
    /// The disk is full: nothing of the refused write reached the file.
    #[error("{}: the disk is full: {what}: {source}", path.display())]
    NoSpace {
        path: PathBuf,
        what: String,
        #[source]
        source: io::Error,
    },
}

impl OutputError {
    /// Whether the failure is a full disk (also when HDF5 met it: its message says so).
    pub fn is_no_space(&self) -> bool {
        match self {
            OutputError::NoSpace { .. } => true,
            OutputError::Xdmf { source, .. }
            | OutputError::Sync { source, .. }
            | OutputError::Create { source, .. } => {
                source.kind() == io::ErrorKind::StorageFull || source.kind() == io::ErrorKind::QuotaExceeded
            }
            OutputError::Hdf5 { source, .. } => reserve::hdf5_says_no_space(&source.to_string()),
            _ => false,
        }
    }
}

/// How to write the file.
#[derive(Clone, Debug)]
pub struct Hdf5Options {
    /// Overwrite an existing file.
    pub force: bool,
    /// Deflate level of the snapshot datasets, 0..=9 (0 = no compression, no shuffle).
    pub deflate: u8,
    /// Write `<out>.xdmf` beside the file when the run has snapshots.
    pub xdmf: bool,
    /// Above this many probes, write them as tables (`/probes/every_<k>/values`), not one
    /// group per probe ([`PROBE_TABLE_THRESHOLD`]; a resume keeps the file's layout).
    pub probe_table_threshold: usize,
}

impl Default for Hdf5Options {
    fn default() -> Self {
        Hdf5Options {
            force: false,
            deflate: 4,
            xdmf: true,
            probe_table_threshold: PROBE_TABLE_THRESHOLD,
        }
    }
}

/// One extendable dataset and how many elements (1-D) or frames (4-D) it holds.
pub(crate) struct Series {
    pub(crate) ds: Dataset,
    pub(crate) len: usize,
}

struct ProbeOut {
    name: String,
    /// `time` and `time_h`, when the probe has E / H components.
    time_e: Option<Series>,
    time_h: Option<Series>,
    /// The slot whose times are appended to `time_e` / `time_h`.
    e_owner: Option<usize>,
    h_owner: Option<usize>,
    comps: Vec<Series>,
}

struct SnapOut {
    name: String,
    time: Series,
    /// Times already appended (for the XDMF companion).
    times: Vec<f64>,
    /// The component whose frames append to `time` (the first electric one, else the first).
    owner: Component,
    comps: Vec<SnapComp>,
}

struct SnapComp {
    c: Component,
    ser: Series,
    /// Frame shape.
    shape: [usize; 3],
    /// Position of the frame's first sample (m).
    origin: [f64; 3],
}

/// Open output files, so that a second Ctrl-C can flush them before the process exits
/// (see [`close_all_interrupted_then`]). Never held while calling into HDF5 from a sink.
static OPEN: Mutex<Vec<(u64, File)>> = Mutex::new(Vec::new());
static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);

fn open_files() -> MutexGuard<'static, Vec<(u64, File)>> {
    OPEN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Flush every open output file and mark it `status = "interrupted"`, then call `then`
/// while still holding the HDF5 library lock. Meant for a signal handler (a second
/// Ctrl-C) whose `then` ends the process: no other thread can enter an HDF5 call between
/// the flush and the end, so the file on disk is the consistent, just-flushed one.
pub fn close_all_interrupted_then<R>(then: impl FnOnce() -> R) -> R {
    mark_all_then("interrupted", None, then)
}

/// Flush every open output file and mark it `status = "interrupted"` (see
/// [`close_all_interrupted_then`]).
pub fn close_all_interrupted() {
    close_all_interrupted_then(|| ())
}

/// Flush every open output file and mark it `status = "failed"` with `message` as its
/// `error` attribute, then call `then` under the HDF5 library lock (see
/// [`close_all_interrupted_then`]). Meant for a panic hook that ends the process: what
/// the run wrote up to the panic stays readable, and the file says why it stopped.
pub fn close_all_failed_then<R>(message: &str, then: impl FnOnce() -> R) -> R {
    mark_all_then("failed", Some(message), then)
}

fn mark_all_then<R>(status: &str, error: Option<&str>, then: impl FnOnce() -> R) -> R {
    hdf5::sync::sync(|| {
        {
            let open = open_files();
            for (_, f) in open.iter() {
                let _ = set_str(f, "status", status);
                if let Some(msg) = error {
                    let _ = put_or_set_str(f, "error", msg);
                }
                let _ = f.flush();
            }
        }
        then()
    })
}

/// Streams a run's probes and snapshots into one HDF5 file.
pub struct Hdf5Sink {
    path: PathBuf,
    /// `None` once finished.
    file: Option<File>,
    token: u64,
    dt: f64,
    d: [f64; 3],
    /// Per-probe groups ([`ProbeLayout::Groups`]; empty for tables).
    probes: Vec<ProbeOut>,
    /// Probe tables ([`ProbeLayout::Table`]; empty for groups).
    tables: Tables,
    snaps: Vec<SnapOut>,
    xdmf: Option<PathBuf>,
    xdmf_written: Option<Instant>,
    xdmf_frames: usize,
    /// The XDMF file this run wrote last (only that file is replaced at its name).
    xdmf_id: Option<safe_create::FileId>,
    /// Why the XDMF companion is no longer written (another program's file took its
    /// name during the run); reported when the file is closed.
    xdmf_lost: Option<String>,
    /// The Touchstone and CSV companions and the file this run wrote at each (a resumed
    /// run takes those it finds as its own).
    companions: Vec<(PathBuf, Option<safe_create::FileId>)>,
    steps_done: usize,
    fingerprint: u64,
    run_id: u64,
    /// When this process opened the file (for `wall_seconds`).
    opened: Instant,
    /// Disk space taken ahead of every append (None until the file has its name).
    reserved: Option<Reservation>,
    /// Names written under `/monitors` by [`Hdf5Sink::write_results`].
    results: Vec<String>,
    /// Names of the cross sections written (`/cross_sections`).
    cross_sections: Vec<String>,
    /// Every series' length at the last flush (see [`Hdf5Sink::series_mut`]): a failed
    /// run's file is cut back to it, so that it holds exactly the flushed chunks.
    flushed: Vec<usize>,
    /// `/ports` and `/energy` (lumped ports and the end criterion).
    ports: crate::ports::PortsOut,
}

trait Ctx<T> {
    fn ctx(self, path: &Path, what: impl FnOnce() -> String) -> Result<T, OutputError>;
}

impl<T> Ctx<T> for hdf5::Result<T> {
    fn ctx(self, path: &Path, what: impl FnOnce() -> String) -> Result<T, OutputError> {
        self.map_err(|source| OutputError::Hdf5 {
            path: path.to_path_buf(),
            what: what(),
            source,
        })
    }
}

fn vlu(s: &str) -> VarLenUnicode {
    // HDF5 strings end at NUL: replace any NUL (which TOML text cannot hold anyway).
    let s = s.replace('\0', "\u{fffd}");
    s.parse().expect("no NUL left")
}

pub(crate) fn put_str(loc: &Location, name: &str, v: &str) -> hdf5::Result<()> {
    loc.new_attr::<VarLenUnicode>()
        .shape(())
        .create(name)?
        .write_scalar(&vlu(v))
}

fn set_str(loc: &Location, name: &str, v: &str) -> hdf5::Result<()> {
    loc.attr(name)?.write_scalar(&vlu(v))
}

pub(crate) fn put<T: H5Type>(loc: &Location, name: &str, v: T) -> hdf5::Result<()> {
    loc.new_attr::<T>().shape(()).create(name)?.write_scalar(&v)
}

pub(crate) fn put_arr<T: H5Type>(loc: &Location, name: &str, v: &[T]) -> hdf5::Result<()> {
    loc.new_attr_builder().with_data(v).create(name).map(|_| ())
}

fn check_name(path: &Path, what: &'static str, name: &str) -> Result<(), OutputError> {
    if name.is_empty() || name == "." || name.contains('/') {
        return Err(OutputError::BadName {
            path: path.to_path_buf(),
            what,
            name: name.to_string(),
        });
    }
    Ok(())
}

fn units(c: Component) -> &'static str {
    if c.is_electric() {
        "V/m"
    } else {
        "A/m"
    }
}

/// Chunk shape of one snapshot frame: the whole frame, unless it passes `MAX_CHUNK_BYTES`.
fn frame_chunk(shape: [usize; 3]) -> Vec<usize> {
    let max = MAX_CHUNK_BYTES / 4;
    let [a, b, c] = shape;
    if a * b * c <= max {
        vec![1, a, b, c]
    } else if b * c <= max {
        vec![1, (max / (b * c)).max(1), b, c]
    } else {
        vec![1, 1, (max / c).clamp(1, b), c]
    }
}

/// Create an empty extendable 1-D dataset that will hold about `expected` elements: its
/// chunks are no larger than that (a chunk is allocated whole, so a 10-sample probe
/// must not take a 4096-sample chunk on disk), and at most 4096 elements.
pub(crate) fn series<T: H5Type>(g: &Group, name: &str, expected: usize) -> hdf5::Result<Series> {
    let ds = g
        .new_dataset::<T>()
        .chunk(vec![series_chunk(expected)])
        .shape((0..,))
        .create(name)?;
    Ok(Series { ds, len: 0 })
}

pub(crate) fn append<T: H5Type>(s: &mut Series, v: &[T]) -> hdf5::Result<()> {
    if v.is_empty() {
        return Ok(());
    }
    let n = s.len + v.len();
    s.ds.resize(vec![n])?;
    s.ds.write_slice(v, s.len..n)?;
    s.len = n;
    Ok(())
}

/// The `.xdmf` companion of `path` (None when `path` already ends in `.xdmf`).
pub(super) fn xdmf_path(path: &Path) -> Option<PathBuf> {
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("xdmf")) {
        None
    } else {
        Some(path.with_extension("xdmf"))
    }
}

/// Every file at a companion name of `path` that some run may have written: the XDMF
/// file, `<stem>.s<N>p` for any N, `<stem>_ports.csv`.
fn stale_companions(path: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = xdmf_path(path).into_iter().collect();
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    out.push(dir.join(format!("{stem}_ports.csv")));
    let touchstone = |name: &str| -> bool {
        let Some(rest) = name.strip_prefix(&stem).and_then(|r| r.strip_prefix(".s")) else {
            return false;
        };
        let Some(n) = rest.strip_suffix('p') else {
            return false;
        };
        !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
    };
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            if e.file_name().to_str().is_some_and(touchstone) {
                out.push(match path.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d.join(e.file_name()),
                    _ => PathBuf::from(e.file_name()),
                });
            }
        }
    }
    out
}

/// Whether a run of `model` writes an XDMF companion.
fn has_xdmf(model: &Model, opts: &Hdf5Options) -> bool {
    opts.xdmf && model.snapshots.iter().any(|s| !s.components.is_empty())
}

/// Before anything is written: refuse an existing output or XDMF companion unless
/// `force`, one that is not a regular file, and an output another program holds.
/// Changes nothing.
fn precheck_files(path: &Path, model: &Model, opts: &Hdf5Options) -> Result<(), OutputError> {
    if std::fs::symlink_metadata(path).is_ok() {
        if !opts.force {
            return Err(OutputError::Exists { path: path.into() });
        }
        safe_create::check_existing(path).map_err(|e| publish_error(e, path))?;
    }
    let farfield_csv = crate::results_farfield::csv_companions(path, model)
        .into_iter()
        .map(|(_, p)| p);
    for c in crate::ports::companions(path, model).into_iter().chain(farfield_csv) {
        if let Ok(m) = std::fs::symlink_metadata(&c) {
            if !opts.force {
                return Err(OutputError::CompanionExists {
                    path: path.into(),
                    companion: c,
                });
            }
            if !m.file_type().is_file() {
                return Err(OutputError::NotRegular {
                    path: c,
                    what: "not a regular file",
                });
            }
        }
    }
    if let Some(x) = xdmf_path(path).filter(|_| has_xdmf(model, opts)) {
        if let Ok(m) = std::fs::symlink_metadata(&x) {
            if !opts.force {
                return Err(OutputError::XdmfExists {
                    path: path.into(),
                    xdmf: x,
                });
            }
            if !m.file_type().is_file() {
                let what = if m.file_type().is_dir() {
                    "a directory"
                } else if m.file_type().is_symlink() {
                    "a symbolic link"
                } else {
                    "a device, FIFO or socket"
                };
                return Err(OutputError::NotRegular { path: x, what });
            }
        }
    }
    Ok(())
}

fn publish_error(e: PublishError, path: &Path) -> OutputError {
    let path = path.to_path_buf();
    match e {
        PublishError::Exists => OutputError::Exists { path },
        PublishError::InUse => OutputError::InUse { path },
        PublishError::NotRegular(what) => OutputError::NotRegular { path, what },
        PublishError::Io(source) => OutputError::Create { path, source },
    }
}

/// An error about the temporary file `tmp`, told about the output `path` it becomes.
fn rename_in_error(e: OutputError, tmp: &Path, path: &Path) -> OutputError {
    let fix = |p: PathBuf| if p == tmp { path.to_path_buf() } else { p };
    match e {
        OutputError::Hdf5 { path, what, source } => OutputError::Hdf5 {
            path: fix(path),
            what,
            source,
        },
        OutputError::BadName { path, what, name } => OutputError::BadName {
            path: fix(path),
            what,
            name,
        },
        OutputError::Create { path, source } => OutputError::Create {
            path: fix(path),
            source,
        },
        other => other,
    }
}

impl Hdf5Sink {
    /// Create `path` for a run of `model` (from `scene`) on the backend described by
    /// `backend_desc` (a [`fdtd_core::backend::Backend::describe`] line; its first word
    /// becomes the `backend` attribute, the whole line the `device` attribute).
    ///
    /// Refuses an existing file unless `force`. The file and every dataset are created
    /// here, so an unwritable path fails before the run starts.
    pub fn create(
        path: impl AsRef<Path>,
        scene: &Scene,
        model: &fdtd_core::Simulation,
        backend_desc: &str,
        force: bool,
    ) -> Result<Hdf5Sink, OutputError> {
        let opts = Hdf5Options {
            force,
            ..Hdf5Options::default()
        };
        Hdf5Sink::create_with(path, scene, model, backend_desc, &opts)
    }

    /// [`Hdf5Sink::create`] with all options.
    pub fn create_with(
        path: impl AsRef<Path>,
        scene: &Scene,
        model: &fdtd_core::Simulation,
        backend_desc: &str,
        opts: &Hdf5Options,
    ) -> Result<Hdf5Sink, OutputError> {
        let path = path.as_ref().to_path_buf();
        for p in &model.probes {
            check_name(&path, "probe", &p.name)?;
        }
        for s in &model.snapshots {
            check_name(&path, "snapshot", &s.name)?;
        }
        // Clear errors first (exists, not a file, in use, no directory); the file is then
        // built under a temporary name and takes its name only when complete, so that
        // the file it replaces is untouched until then (see `safe_create`).
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !dir.is_dir() {
            return Err(OutputError::NoDirectory { path, dir });
        }
        precheck_files(&path, model, opts)?;
        let tmp = safe_create::temp_path(&path);
        if let Err(e) = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp) {
            return Err(OutputError::Create { path, source: e });
        }
        let mut sink = match Hdf5Sink::build(&tmp, scene, model, backend_desc, opts) {
            Ok(sink) => sink,
            Err(e) => {
                // Leave no half-made file behind.
                let _ = std::fs::remove_file(&tmp);
                return Err(rename_in_error(e, &tmp, &path));
            }
        };
        if let Err(e) = safe_create::publish(&tmp, &path, opts.force) {
            drop(sink);
            let _ = std::fs::remove_file(&tmp);
            return Err(publish_error(e, &path));
        }
        sink.path = path.clone();
        if sink.xdmf.is_some() {
            sink.xdmf = xdmf_path(&path);
        }
        if opts.force {
            // The companions of the file this one replaced are replaced with it: those
            // this run writes again and those it does not (another port count, no ports
            // or snapshots any more), so none of them describes the old run beside it.
            for c in stale_companions(&path) {
                if safe_create::file_id(&c).is_some() {
                    let _ = std::fs::remove_file(&c);
                }
            }
        }
        sink.companions = crate::ports::companions(&path, model)
            .into_iter()
            .map(|c| (c, None))
            .collect();
        sink.reserved = Reservation::open(&path).ok();
        sink.flushed = sink.series_mut().iter().map(|s| s.len).collect();
        sink.reserve_ahead(0)?;
        sink.write_xdmf()?;
        Ok(sink)
    }

    fn build(
        path: &Path,
        scene: &Scene,
        model: &fdtd_core::Simulation,
        backend_desc: &str,
        opts: &Hdf5Options,
    ) -> Result<Hdf5Sink, OutputError> {
        // The 1.8 object formats (dense attribute storage: a scene's text may pass the 64 KiB
        // of an object header; compact groups). Not the 1.10 ones: their superblock marks
        // the file open for writing, and a file whose writer was killed (a crash, SIGKILL,
        // a panic) then refuses to open ("file is already open for write") until `h5clear
        // -s`, in h5py and in `--resume` alike. Many probes go to tables, where per-dataset
        // chunk indexes no longer add up.
        let file = File::with_options()
            .with_fapl(|p| p.libver_v18())
            .create(path)
            .ctx(path, || "creating the HDF5 file".into())?;
        let g = &model.grid;
        let root: &Location = &file;
        let fingerprint = fdtd_core::checkpoint::fingerprint(scene, model);
        let run_id = fdtd_core::checkpoint::new_run_id();
        (|| -> hdf5::Result<()> {
            put_str(root, "fdtd_version", env!("CARGO_PKG_VERSION"))?;
            put_str(root, "scene", &scene.text)?;
            put_str(root, "scene_path", &scene.path.display().to_string())?;
            describe::write_backend(root, backend_desc)?;
            put_str(root, "precision", "float32")?;
            put(root, "dx", g.d[0])?;
            put(root, "dy", g.d[1])?;
            put(root, "dz", g.d[2])?;
            put(root, "dt", g.dt)?;
            put(root, "steps", g.steps as u64)?;
            put_arr(root, "shape", &g.n.map(|x| x as u64))?;
            put(root, "courant", g.courant)?;
            put_str(root, "status", "running")?;
            put(root, "steps_done", 0u64)?;
            put_str(root, "index_convention", INDEX_CONVENTION)?;
            put(root, "fingerprint", fingerprint)?;
            put(root, "run_id", run_id)?;
            Ok(())
        })()
        .ctx(path, || "writing the root attributes".into())?;

        let pg = file.create_group("probes").ctx(path, || "creating /probes".into())?;
        let layout = ProbeLayout::for_count(model.probes.len(), opts.probe_table_threshold);
        put_str(&pg, "layout", layout.name()).ctx(path, || "writing the /probes attribute layout".into())?;
        let tables = match layout {
            ProbeLayout::Table => Tables::create(path, &pg, model)?,
            ProbeLayout::Groups => Tables::default(),
        };
        let groups = if layout == ProbeLayout::Groups {
            &model.probes[..]
        } else {
            &[]
        };
        let mut probes = Vec::with_capacity(groups.len());
        for p in groups {
            let what = || format!("creating /probes/{}", p.name);
            let out = (|| -> hdf5::Result<ProbeOut> {
                let grp = pg.create_group(&p.name)?;
                put_arr(&grp, "requested_position", &p.position)?;
                put(&grp, "every", p.every as u64)?;
                let rows = g.steps / p.every.max(1);
                let e_owner = p.samples.iter().position(|s| s.component.is_electric());
                let h_owner = p.samples.iter().position(|s| !s.component.is_electric());
                let time_e = match e_owner {
                    Some(_) => Some(series::<f64>(&grp, "time", rows)?),
                    None => None,
                };
                let time_h = match h_owner {
                    Some(_) => Some(series::<f64>(&grp, "time_h", rows)?),
                    None => None,
                };
                for t in [&time_e, &time_h].into_iter().flatten() {
                    put_str(&t.ds, "units", "s")?;
                }
                let mut comps = Vec::with_capacity(p.samples.len());
                for s in &p.samples {
                    let c = s.component;
                    let ser = series::<f32>(&grp, c.name(), rows)?;
                    put_arr(&ser.ds, "position", &s.position)?;
                    put_arr(&ser.ds, "index", &s.index.map(|x| x as u64))?;
                    put(&ser.ds, "every", p.every as u64)?;
                    put_str(&ser.ds, "units", units(c))?;
                    put_str(&ser.ds, "time", if c.is_electric() { "time" } else { "time_h" })?;
                    comps.push(ser);
                }
                Ok(ProbeOut {
                    name: p.name.clone(),
                    time_e,
                    time_h,
                    e_owner,
                    h_owner,
                    comps,
                })
            })()
            .ctx(path, what)?;
            probes.push(out);
        }

        let sg = file
            .create_group("snapshots")
            .ctx(path, || "creating /snapshots".into())?;
        let mut snaps = Vec::with_capacity(model.snapshots.len());
        for s in &model.snapshots {
            let what = || format!("creating /snapshots/{}", s.name);
            let out = (|| -> hdf5::Result<SnapOut> {
                let grp = sg.create_group(&s.name)?;
                put(&grp, "every", s.every as u64)?;
                put_arr(&grp, "index_lo", &s.lo.map(|x| x as u64))?;
                put_arr(&grp, "index_hi", &s.hi.map(|x| x as u64))?;
                let time = series::<f64>(&grp, "time", g.steps / s.every.max(1))?;
                put_str(&time.ds, "units", "s")?;
                let mut comps = Vec::with_capacity(s.components.len());
                for &c in &s.components {
                    let (lo, hi) = s.component_box(c, g);
                    let shape = s.component_shape(c, g);
                    let [a, b, cc] = shape;
                    let mut builder = grp.new_dataset::<f32>().chunk(frame_chunk(shape));
                    if opts.deflate > 0 {
                        builder = builder.shuffle().deflate(opts.deflate.min(9));
                    }
                    let ds = builder.shape((0.., a, b, cc)).create(c.name())?;
                    put(&ds, "every", s.every as u64)?;
                    put_arr(&ds, "index_lo", &lo.map(|x| x as u64))?;
                    put_arr(&ds, "index_hi", &hi.map(|x| x as u64))?;
                    put_arr(&ds, "origin", &c.position(lo, g.d))?;
                    put_arr(&ds, "spacing", &g.d)?;
                    put_str(&ds, "units", units(c))?;
                    if !c.is_electric() {
                        put(&ds, "h_time_offset", -0.5 * g.dt)?;
                    }
                    comps.push(SnapComp {
                        c,
                        ser: Series { ds, len: 0 },
                        shape,
                        origin: c.position(lo, g.d),
                    });
                }
                let owner = s
                    .components
                    .iter()
                    .copied()
                    .find(|c| c.is_electric())
                    .or_else(|| s.components.first().copied())
                    .unwrap_or(Component::Ex);
                Ok(SnapOut {
                    name: s.name.clone(),
                    time,
                    times: Vec::new(),
                    owner,
                    comps,
                })
            })()
            .ctx(path, what)?;
            snaps.push(out);
        }
        describe::write_points(&file, model).ctx(path, || "describing the sources, probes and snapshots".into())?;
        let ports = crate::ports::PortsOut::create(&file, model).ctx(path, || "creating /ports".into())?;
        file.flush().ctx(path, || "flushing".into())?;

        let token = NEXT_TOKEN.fetch_add(1, Ordering::Relaxed);
        let registered = file.clone();
        open_files().push((token, registered));

        let xdmf = if has_xdmf(model, opts) { xdmf_path(path) } else { None };
        let sink = Hdf5Sink {
            path: path.to_path_buf(),
            file: Some(file),
            token,
            dt: g.dt,
            d: g.d,
            probes,
            tables,
            snaps,
            xdmf,
            xdmf_written: None,
            xdmf_frames: 0,
            xdmf_id: None,
            xdmf_lost: None,
            companions: Vec::new(),
            steps_done: 0,
            fingerprint,
            run_id,
            opened: Instant::now(),
            reserved: None,
            flushed: Vec::new(),
            results: Vec::new(),
            cross_sections: Vec::new(),
            ports,
        };
        Ok(sink)
    }

    /// Read the run attributes of an existing output file (without changing it).
    pub fn inspect(path: impl AsRef<Path>) -> Result<OutputInfo, OutputError> {
        let path = path.as_ref();
        let file = File::open(path).ctx(path, || "opening the output file".into())?;
        let root: &Location = &file;
        let status = root
            .attr("status")
            .and_then(|a| a.read_scalar::<VarLenUnicode>())
            .ctx(path, || {
                "reading the status attribute (is it an fdtd output file?)".into()
            })?
            .as_str()
            .to_string();
        let u = |name: &str| root.attr(name).and_then(|a| a.read_scalar::<u64>()).ok();
        Ok(OutputInfo {
            status,
            steps_done: u("steps_done").unwrap_or(0),
            steps: u("steps").unwrap_or(0),
            run_id: u("run_id"),
            fingerprint: u("fingerprint"),
        })
    }

    /// Reopen the output of an interrupted or failed run to continue it after `step`
    /// steps (the step of the checkpoint it resumes from): checks that the file belongs
    /// to this run, cuts every probe and snapshot dataset back to the samples and frames
    /// of the first `step` steps (the file may hold later ones, flushed after the
    /// checkpoint), marks it `running` again and records the resume.
    pub fn resume(
        path: impl AsRef<Path>,
        scene: &Scene,
        model: &fdtd_core::Simulation,
        backend_desc: &str,
        step: usize,
        opts: &Hdf5Options,
    ) -> Result<Hdf5Sink, OutputError> {
        let path = path.as_ref().to_path_buf();
        let refuse = |why: String| OutputError::NotResumable {
            path: path.clone(),
            why,
        };
        let info = Hdf5Sink::inspect(&path)?;
        let fingerprint = fdtd_core::checkpoint::fingerprint(scene, model);
        if info.fingerprint != Some(fingerprint) {
            return Err(refuse(
                "it was written for another scene, grid or fdtd version (its fingerprint differs)".into(),
            ));
        }
        let run_id = info.run_id.ok_or_else(|| refuse("it has no run_id attribute".into()))?;
        if info.status == "complete" {
            return Err(refuse("the run is already complete".into()));
        }
        let file = File::open_rw(&path).ctx(&path, || "opening the output file for writing".into())?;
        let g = &model.grid;
        // Datasets of one probe / snapshot, cut to `len` elements / frames.
        let cut = |ds: Dataset, len: usize, name: &str| -> Result<Series, OutputError> {
            let mut shape = ds.shape();
            let have = shape.first().copied().unwrap_or(0);
            if have < len {
                return Err(OutputError::NotResumable {
                    path: path.clone(),
                    why: format!(
                        "{name} holds {have} entries, the checkpoint at step {step} needs {len} (the file is behind \
                         its checkpoint)"
                    ),
                });
            }
            if have > len {
                shape[0] = len;
                ds.resize(shape).ctx(&path, || format!("truncating {name}"))?;
            }
            Ok(Series { ds, len })
        };
        let layout = file
            .group("probes")
            .and_then(|pg| pg.attr("layout"))
            .and_then(|a| a.read_scalar::<VarLenUnicode>())
            .ok()
            .map(|v| v.as_str().to_string());
        // Files written before probe tables have no `layout`: per-probe groups.
        let layout = match layout.as_deref() {
            None => ProbeLayout::Groups,
            Some(name) => {
                ProbeLayout::from_name(name).ok_or_else(|| refuse(format!("/probes has an unknown layout {name:?}")))?
            }
        };
        let tables = match layout {
            ProbeLayout::Table => Tables::resume(&path, &file, model, step)?,
            ProbeLayout::Groups => Tables::default(),
        };
        let groups = if layout == ProbeLayout::Groups {
            &model.probes[..]
        } else {
            &[]
        };
        let mut probes = Vec::with_capacity(groups.len());
        for p in groups {
            let len = step / p.every;
            let grp = format!("probes/{}", p.name);
            let open = |name: &str| -> Result<Series, OutputError> {
                let full = format!("/{grp}/{name}");
                let ds = file.dataset(&full).ctx(&path, || format!("opening {full}"))?;
                cut(ds, len, &full)
            };
            let e_owner = p.samples.iter().position(|s| s.component.is_electric());
            let h_owner = p.samples.iter().position(|s| !s.component.is_electric());
            let time_e = e_owner.map(|_| open("time")).transpose()?;
            let time_h = h_owner.map(|_| open("time_h")).transpose()?;
            let comps = p
                .samples
                .iter()
                .map(|s| open(s.component.name()))
                .collect::<Result<Vec<_>, _>>()?;
            probes.push(ProbeOut {
                name: p.name.clone(),
                time_e,
                time_h,
                e_owner,
                h_owner,
                comps,
            });
        }
        let mut snaps = Vec::with_capacity(model.snapshots.len());
        for s in &model.snapshots {
            let frames = step / s.every;
            let grp = format!("/snapshots/{}", s.name);
            let tname = format!("{grp}/time");
            let tds = file.dataset(&tname).ctx(&path, || format!("opening {tname}"))?;
            let time = cut(tds, frames, &tname)?;
            let times: Vec<f64> = if frames == 0 {
                Vec::new()
            } else {
                time.ds
                    .read_slice_1d::<f64, _>(0..frames)
                    .ctx(&path, || format!("reading {tname}"))?
                    .to_vec()
            };
            let mut comps = Vec::with_capacity(s.components.len());
            for &c in &s.components {
                let name = format!("{grp}/{}", c.name());
                let ds = file.dataset(&name).ctx(&path, || format!("opening {name}"))?;
                let shape = s.component_shape(c, g);
                if ds.shape().get(1..) != Some(&shape[..]) {
                    return Err(refuse(format!(
                        "{name} has frames of shape {:?}, expected {shape:?}",
                        ds.shape()
                    )));
                }
                let (lo, _) = s.component_box(c, g);
                comps.push(SnapComp {
                    c,
                    ser: cut(ds, frames, &name)?,
                    shape,
                    origin: c.position(lo, g.d),
                });
            }
            let owner = s
                .components
                .iter()
                .copied()
                .find(|c| c.is_electric())
                .or_else(|| s.components.first().copied())
                .unwrap_or(Component::Ex);
            snaps.push(SnapOut {
                name: s.name.clone(),
                time,
                times,
                owner,
                comps,
            });
        }
        let ports = crate::ports::PortsOut::resume(&path, &file, model, step)?;
        let root: &Location = &file;
        (|| -> hdf5::Result<()> {
            set_str(root, "status", "running")?;
            put_or_set_u64(root, "steps_done", step as u64)?;
            if root.attr("error").is_ok() {
                root.delete_attr("error")?;
            }
            describe::write_backend(root, backend_desc)?;
            describe::write_points(&file, model)?;
            let resumes = root.attr("resumes").and_then(|a| a.read_scalar::<u64>()).unwrap_or(0);
            put_or_set_u64(root, "resumes", resumes + 1)?;
            put_or_set_u64(root, "resumed_at_step", step as u64)?;
            file.flush()
        })()
        .ctx(&path, || "updating the root attributes".into())?;

        let token = NEXT_TOKEN.fetch_add(1, Ordering::Relaxed);
        open_files().push((token, file.clone()));
        let xdmf = if opts.xdmf && snaps.iter().any(|s| !s.comps.is_empty()) {
            xdmf_path(&path)
        } else {
            None
        };
        let mut sink = Hdf5Sink {
            path: path.clone(),
            file: Some(file),
            token,
            dt: g.dt,
            d: g.d,
            probes,
            tables,
            snaps,
            xdmf,
            xdmf_written: None,
            xdmf_frames: 0,
            xdmf_id: None,
            xdmf_lost: None,
            companions: Vec::new(),
            steps_done: step,
            fingerprint,
            run_id,
            opened: Instant::now(),
            reserved: Reservation::open(&path).ok(),
            flushed: Vec::new(),
            results: Vec::new(),
            cross_sections: Vec::new(),
            ports,
        };
        // The companions at their names are this run's (written before it stopped).
        sink.xdmf_id = sink.xdmf.as_deref().and_then(safe_create::file_id);
        sink.companions = crate::ports::companions(&sink.path, model)
            .into_iter()
            .map(|c| {
                let id = safe_create::file_id(&c);
                (c, id)
            })
            .collect();
        sink.flushed = sink.series_mut().iter().map(|s| s.len).collect();
        sink.reserve_ahead(0)?;
        sink.write_xdmf()?;
        Ok(sink)
    }

    /// The file's run id (root attribute `run_id`; checkpoints of this run carry it).
    pub fn run_id(&self) -> u64 {
        self.run_id
    }

    /// The run's fingerprint (root attribute `fingerprint`, see [`fdtd_core::checkpoint::fingerprint`]).
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// Flush, then fsync the file, so that everything written so far survives a power loss.
    pub fn sync(&mut self) -> Result<(), OutputError> {
        self.file().flush().map_err(|e| self.err("flushing".into(), e))?;
        std::fs::File::open(&self.path)
            .and_then(|f| f.sync_all())
            .map_err(|source| OutputError::Sync {
                path: self.path.clone(),
                source,
            })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The XDMF companion's path, when one is written.
    pub fn xdmf_path(&self) -> Option<&Path> {
        self.xdmf.as_deref()
    }

    /// Top-level groups that hold data, e.g. `["probes (2)", "snapshots (1)"]`, for summaries.
    pub fn contents(&self) -> Vec<String> {
        let mut v = Vec::new();
        if !self.probes.is_empty() {
            let names: Vec<&str> = self
                .probes
                .iter()
                .take(LISTED_PROBES)
                .map(|p| p.name.as_str())
                .collect();
            v.push(format!("/probes: {}", listed(&names, self.probes.len())));
        }
        if self.tables.probes > 0 {
            let groups: Vec<&str> = self
                .tables
                .tables
                .iter()
                .take(LISTED_PROBES)
                .map(|t| t.group.trim_start_matches("/probes/"))
                .collect();
            // Bounded like the names: 10 000 distinct `every` are 10 000 tables.
            v.push(format!(
                "/probes (tables {}): {}",
                listed(&groups, self.tables.tables.len()),
                listed(&self.tables.first_names, self.tables.probes)
            ));
        }
        if !self.snaps.is_empty() {
            let names: Vec<String> = self
                .snaps
                .iter()
                .map(|s| format!("{} ({} frames)", s.name, s.time.len))
                .collect();
            v.push(format!("/snapshots: {}", names.join(", ")));
        }
        if !self.results.is_empty() {
            v.push(format!("/monitors: {}", self.results.join(", ")));
        }
        if !self.cross_sections.is_empty() {
            v.push(format!("/cross_sections: {}", self.cross_sections.join(", ")));
        }
        if !self.ports.names.is_empty() {
            // Bounded like the probes: a run of 1000 ports named all of them.
            let names = &self.ports.names;
            v.push(format!(
                "/ports: {}",
                listed(&names[..names.len().min(LISTED_PROBES)], names.len())
            ));
        }
        v
    }

    fn file(&self) -> &File {
        self.file.as_ref().expect("the sink is open until finish")
    }

    fn err(&self, what: String, source: hdf5::Error) -> OutputError {
        OutputError::Hdf5 {
            path: self.path.clone(),
            what,
            source,
        }
    }

    /// Append probe samples (see [`Sink::probe`]).
    pub fn write_probe(&mut self, probe: usize, slot: usize, times: &[f64], values: &[f32]) -> Result<(), OutputError> {
        if self.probes.is_empty() {
            return self.tables.buffer(&self.path, probe, slot, times, values);
        }
        let Some(p) = self.probes.get_mut(probe) else {
            return Err(OutputError::Sample {
                path: self.path.clone(),
                what: format!(
                    "samples for probe {probe}, but the file has {} probes",
                    self.probes.len()
                ),
            });
        };
        let r = (|| -> hdf5::Result<()> {
            if p.e_owner == Some(slot) {
                if let Some(t) = p.time_e.as_mut() {
                    append(t, times)?;
                }
            }
            if p.h_owner == Some(slot) {
                if let Some(t) = p.time_h.as_mut() {
                    append(t, times)?;
                }
            }
            let n = p.comps.len();
            let ser = p
                .comps
                .get_mut(slot)
                .ok_or_else(|| hdf5::Error::from(format!("component slot {slot} of {n}")))?;
            append(ser, values)
        })();
        r.map_err(|e| {
            let what = format!("writing /probes/{}", self.probes[probe].name);
            self.err(what, e)
        })
    }

    /// Append one snapshot frame (see [`Sink::snapshot`]).
    pub fn write_snapshot(&mut self, snap: usize, c: Component, time: f64, data: &[f32]) -> Result<(), OutputError> {
        let dt = self.dt;
        let s = &mut self.snaps[snap];
        let Some(k) = s.comps.iter().position(|sc| sc.c == c) else {
            return Ok(());
        };
        let r = (|| -> hdf5::Result<()> {
            if c == s.owner {
                let t = if c.is_electric() { time } else { time + 0.5 * dt };
                append(&mut s.time, &[t])?;
                s.times.push(t);
            }
            let SnapComp { ser, shape, .. } = &mut s.comps[k];
            let [a, b, cc] = *shape;
            if data.len() != a * b * cc {
                return Err(hdf5::Error::from(format!(
                    "frame of {} values, expected {a}×{b}×{cc}",
                    data.len()
                )));
            }
            let f = ser.len;
            ser.ds.resize(vec![f + 1, a, b, cc])?;
            let view =
                ndarray::ArrayView4::from_shape((1, a, b, cc), data).map_err(|e| hdf5::Error::from(e.to_string()))?;
            ser.ds.write_slice(view, (f..f + 1, 0..a, 0..b, 0..cc))?;
            ser.len = f + 1;
            Ok(())
        })();
        r.map_err(|e| {
            let what = format!("writing /snapshots/{}/{}", self.snaps[snap].name, c);
            self.err(what, e)
        })
    }

    /// Record `steps_done` and flush the file to disk.
    pub fn flush_steps(&mut self, steps_done: usize) -> Result<(), OutputError> {
        self.tables.write(&self.path)?;
        self.steps_done = steps_done;
        let file = self.file();
        put_or_set_u64(file, "steps_done", steps_done as u64).map_err(|e| self.err("updating steps_done".into(), e))?;
        file.flush().map_err(|e| self.err("flushing".into(), e))?;
        if let Some(r) = self.reserved.as_mut() {
            r.forget();
        }
        self.flushed = self.series_mut().iter().map(|s| s.len).collect();
        if self.xdmf_written.is_none_or(|t| t.elapsed() >= XDMF_INTERVAL) {
            self.write_xdmf()?;
        }
        Ok(())
    }

    /// Set the final `status` ("complete" or "interrupted"), flush and close the file.
    pub fn finish(mut self, outcome: Outcome) -> Result<(), OutputError> {
        let status = match outcome {
            Outcome::Finished => "complete",
            Outcome::Interrupted => "interrupted",
        };
        // Probe-table rows handed over since the last flush (a run flushes every chunk
        // itself); if they cannot be written the file is closed as failed, saying why.
        if let Err(e) = self.tables.write(&self.path) {
            self.close_with("failed", Some(&e.to_string()))?;
            return Err(e);
        }
        self.close_with(status, None)
    }

    /// Store the run's planned and measured memory as root attributes (bytes, u64):
    /// `host_planned_bytes`, `host_peak_bytes` and, for a device backend,
    /// `device_planned_bytes`, `device_peak_bytes`; a peak that was not measured is absent.
    pub fn record_memory(&mut self, m: &MemoryReport) -> Result<(), OutputError> {
        let put = |name: &str, v: Option<u64>| -> Result<(), OutputError> {
            match v {
                Some(v) => put_or_set_u64(self.file(), name, v).map_err(|e| self.err(format!("writing {name}"), e)),
                None => Ok(()),
            }
        };
        put("host_planned_bytes", Some(m.host_planned))?;
        put("host_peak_bytes", m.host_peak)?;
        put("device_planned_bytes", m.device.map(|d| d.planned))?;
        put("device_peak_bytes", m.device.and_then(|d| d.peak))
    }

    /// Write the frequency-domain results of a finished run (`/monitors`, see
    /// [`crate::results`]); only their non-empty parts.
    pub fn write_results(&mut self, r: &fdtd_core::results::RunResults) -> Result<(), OutputError> {
        if r.monitors.is_empty() && r.surfaces.is_empty() && r.cross_sections.is_empty() {
            return Ok(());
        }
        self.reserve_ahead(crate::results::bytes(r))?;
        let root: &hdf5::Group = self.file();
        crate::results::write_monitors(root, r).map_err(|e| self.err("writing /monitors".into(), e))?;
        crate::results::write_cross_sections(root, r).map_err(|e| self.err("writing /cross_sections".into(), e))?;
        self.results = r
            .monitors
            .iter()
            .map(|m| m.name.clone())
            .chain(r.surfaces.iter().map(|s| s.name.clone()))
            .collect();
        self.cross_sections = r.cross_sections.iter().map(|c| c.name.clone()).collect();
        self.file().flush().map_err(|e| self.err("flushing".into(), e))
    }

    /// Mark the run `failed` (with an `error` attribute holding `message`) and close the file.
    pub fn fail(self, message: &str) -> Result<(), OutputError> {
        self.close_with("failed", Some(message))
    }

    fn close_with(mut self, status: &str, error: Option<&str>) -> Result<(), OutputError> {
        let steps_done = self.steps_done;
        if status == "failed" {
            self.cut_to_flushed();
        }
        {
            let file = self.file();
            set_str(file, "status", status).map_err(|e| self.err("setting status".into(), e))?;
            put_or_set_u64(file, "steps_done", steps_done as u64)
                .map_err(|e| self.err("updating steps_done".into(), e))?;
            if let Some(msg) = error {
                put_or_set_str(file, "error", msg).map_err(|e| self.err("writing the error attribute".into(), e))?;
            }
            describe::add_wall_time(file, self.opened.elapsed().as_secs_f64())
                .map_err(|e| self.err("writing wall_seconds".into(), e))?;
            file.flush().map_err(|e| self.err("flushing".into(), e))?;
        }
        // The companion is secondary: a failure to write it (a full disk) does not keep
        // the HDF5 file from being closed.
        let mut xdmf = self.write_xdmf();
        if let (Ok(()), Some(why)) = (&xdmf, self.xdmf_lost.take()) {
            xdmf = Err(OutputError::Xdmf {
                path: self.path.clone(),
                xdmf: xdmf_path(&self.path).unwrap_or_default(),
                source: std::io::Error::new(std::io::ErrorKind::AlreadyExists, why),
            });
        }
        // Close every dataset, then the file.
        self.probes.clear();
        self.tables = Tables::default();
        self.snaps.clear();
        self.ports.clear();
        self.unregister();
        let file = self.file.take().expect("open");
        let closed = file.close().map_err(|e| self.err("closing".into(), e));
        if let Some(r) = self.reserved.take() {
            r.release();
        }
        if status == "failed" {
            // Closing a failed run reports the run's error; the companion still
            // describes frames the file holds (it is written only after a flush).
            closed
        } else {
            closed.and(xdmf)
        }
    }

    /// Keep every metadata change in HDF5's cache until the next flush (no eviction
    /// writes a half-updated object header or group to the disk meanwhile). For the
    /// results after the last step, whose metadata is bounded by the scene.
    fn hold_metadata(&self) {
        use hdf5_sys::h5ac::{H5AC_cache_config_t, H5AC__CURR_CACHE_CONFIG_VERSION};
        use hdf5_sys::h5c::{H5C_cache_decr_mode, H5C_cache_flash_incr_mode, H5C_cache_incr_mode};
        let Some(file) = self.file.as_ref() else {
            return;
        };
        let id = file.id();
        hdf5::sync::sync(|| {
            let mut cfg = H5AC_cache_config_t {
                version: H5AC__CURR_CACHE_CONFIG_VERSION,
                ..H5AC_cache_config_t::default()
            };
            // SAFETY: a valid open file id and a config struct of the current version.
            unsafe {
                if hdf5_sys::h5f::H5Fget_mdc_config(id, &mut cfg) < 0 {
                    return;
                }
                cfg.evictions_enabled = 0;
                cfg.incr_mode = H5C_cache_incr_mode::H5C_incr__off;
                cfg.flash_incr_mode = H5C_cache_flash_incr_mode::H5C_flash_incr__off;
                cfg.decr_mode = H5C_cache_decr_mode::H5C_decr__off;
                hdf5_sys::h5f::H5Fset_mdc_config(id, &mut cfg);
            }
        });
    }

    /// Every extendable dataset, in a fixed order.
    fn series_mut(&mut self) -> Vec<&mut Series> {
        let mut v = Vec::new();
        for p in &mut self.probes {
            v.extend(p.time_e.as_mut());
            v.extend(p.time_h.as_mut());
            v.extend(p.comps.iter_mut());
        }
        for s in &mut self.snaps {
            v.push(&mut s.time);
            v.extend(s.comps.iter_mut().map(|c| &mut c.ser));
        }
        v.extend(self.ports.series_mut());
        v
    }

    /// Cut every dataset back to its length at the last flush (samples of a chunk the run
    /// did not finish writing; shrinking only rewrites metadata).
    fn cut_to_flushed(&mut self) {
        let flushed = std::mem::take(&mut self.flushed);
        if flushed.is_empty() {
            return;
        }
        for (s, &len) in self.series_mut().into_iter().zip(&flushed) {
            if s.len > len {
                let mut shape = s.ds.shape();
                if let Some(first) = shape.first_mut() {
                    *first = len;
                }
                if s.ds.resize(shape).is_ok() {
                    s.len = len;
                }
            }
        }
        for s in &mut self.snaps {
            let frames = s.time.len;
            s.times.truncate(frames);
        }
    }

    /// Take the disk space for `need` more bytes (plus what HDF5 has allocated and not
    /// yet written, plus a margin) before HDF5 writes them (see `reserve`).
    fn reserve_ahead(&mut self, need: u64) -> Result<(), OutputError> {
        let Some(file) = self.file.as_ref() else {
            return Ok(());
        };
        let allocated = file.size();
        let Some(r) = self.reserved.as_mut() else {
            return Ok(());
        };
        r.ensure(allocated, need).map_err(|source| OutputError::NoSpace {
            path: self.path.clone(),
            what: format!(
                "{} more bytes could not be reserved; nothing after the last flushed chunk was written",
                need
            ),
            source,
        })
    }

    fn unregister(&mut self) {
        // Take the registry's handle out under the registry lock, drop it after (a drop
        // calls into HDF5, which must not happen while holding the registry lock).
        let taken = {
            let mut open = open_files();
            open.iter()
                .position(|(t, _)| *t == self.token)
                .map(|i| open.swap_remove(i))
        };
        drop(taken);
    }

    fn write_xdmf(&mut self) -> Result<(), OutputError> {
        let Some(xpath) = self.xdmf.clone() else {
            return Ok(());
        };
        let frames: usize = self.snaps.iter().map(|s| s.times.len()).sum();
        if self.xdmf_written.is_some() && frames == self.xdmf_frames {
            return Ok(());
        }
        let h5_name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let snaps: Vec<xdmf::Snapshot> = self
            .snaps
            .iter()
            .map(|s| xdmf::Snapshot {
                name: &s.name,
                times: &s.times,
                components: s
                    .comps
                    .iter()
                    .map(|sc| xdmf::Component {
                        component: sc.c,
                        shape: sc.shape,
                        origin: sc.origin,
                        frames: sc.ser.len.min(s.times.len()),
                    })
                    .collect(),
            })
            .collect();
        let text = xdmf::document(&h5_name, self.d, &snaps);
        match safe_create::write_companion(&xpath, &text, self.xdmf_id) {
            Ok(id) => self.xdmf_id = Some(id),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                // Not this run's file: leave it, stop writing the companion, say so at
                // the end (the run itself goes on).
                self.xdmf_lost = Some(e.to_string());
                self.xdmf = None;
                return Ok(());
            }
            Err(source) => {
                return Err(OutputError::Xdmf {
                    path: self.path.clone(),
                    xdmf: xpath.clone(),
                    source,
                })
            }
        }
        self.xdmf_written = Some(Instant::now());
        self.xdmf_frames = frames;
        Ok(())
    }
}

fn put_or_set_str(loc: &Location, name: &str, v: &str) -> hdf5::Result<()> {
    match loc.attr(name) {
        Ok(a) => a.write_scalar(&vlu(v)),
        Err(_) => put_str(loc, name, v),
    }
}

fn put_or_set_u64(loc: &Location, name: &str, v: u64) -> hdf5::Result<()> {
    match loc.attr(name) {
        Ok(a) => a.write_scalar(&v),
        Err(_) => put(loc, name, v),
    }
}

impl Drop for Hdf5Sink {
    /// Without [`Hdf5Sink::finish`] the file is still closed valid, with `status` "running".
    fn drop(&mut self) {
        if self.file.is_some() {
            self.unregister();
        }
    }
}

fn sink_error(e: OutputError) -> SinkError {
    if e.is_no_space() {
        SinkError::no_space(e.to_string())
    } else {
        SinkError::new(e.to_string())
    }
}

impl Sink for Hdf5Sink {
    fn probe(&mut self, probe: usize, slot: usize, times: &[f64], values: &[f32]) -> Result<(), SinkError> {
        // Room first: HDF5 must never meet a full disk (see `reserve`).
        self.reserve_ahead((values.len() * 4 + times.len() * 16) as u64)
            .map_err(sink_error)?;
        self.write_probe(probe, slot, times, values).map_err(sink_error)
    }

    fn snapshot(&mut self, snap: usize, c: Component, time: f64, data: &[f32]) -> Result<(), SinkError> {
        self.reserve_ahead((data.len() * 4 + 64) as u64).map_err(sink_error)?;
        self.write_snapshot(snap, c, time, data).map_err(sink_error)
    }

    fn flush(&mut self, steps_done: usize) -> Result<(), SinkError> {
        self.reserve_ahead(0).map_err(sink_error)?;
        self.flush_steps(steps_done).map_err(sink_error)
    }

    fn sync(&mut self) -> Result<(), SinkError> {
        Hdf5Sink::sync(self).map_err(sink_error)
    }

    fn port(&mut self, port: usize, n0: usize, v: &[f64], i: &[f64]) -> Result<(), SinkError> {
        self.reserve_ahead((v.len() * 32 + 64) as u64).map_err(sink_error)?;
        let r = self.ports.write_port(port, n0, v, i);
        r.map_err(|e| sink_error(self.err(format!("writing port {port}'s V and I"), e)))
    }

    fn energy(&mut self, step: usize, energy: f64) -> Result<(), SinkError> {
        self.reserve_ahead(64).map_err(sink_error)?;
        let r = self.ports.write_energy(step, energy);
        r.map_err(|e| sink_error(self.err("writing /energy".into(), e)))
    }
}

impl From<OutputError> for OutputFailure {
    fn from(e: OutputError) -> OutputFailure {
        let kind = match e {
            OutputError::Exists { .. } | OutputError::XdmfExists { .. } | OutputError::CompanionExists { .. } => {
                OutputErrorKind::Exists
            }
            OutputError::NoDirectory { .. }
            | OutputError::NotResumable { .. }
            | OutputError::BadName { .. }
            | OutputError::NotRegular { .. } => OutputErrorKind::BadInput,
            _ if e.is_no_space() => OutputErrorKind::NoSpace,
            _ => OutputErrorKind::Runtime,
        };
        OutputFailure::new(kind, e.to_string())
    }
}

impl Output for Hdf5Sink {
    fn as_sink(&mut self) -> &mut dyn Sink {
        self
    }

    fn run_id(&self) -> u64 {
        Hdf5Sink::run_id(self)
    }

    fn contents(&self) -> Vec<String> {
        Hdf5Sink::contents(self)
    }

    fn companion(&self) -> Option<PathBuf> {
        self.xdmf_path().map(Path::to_path_buf)
    }

    fn record_memory(&mut self, memory: &MemoryReport) -> Result<(), OutputFailure> {
        Hdf5Sink::record_memory(self, memory).map_err(OutputFailure::from)
    }

    fn port_series(&mut self, _model: &Model) -> Result<Option<fdtd_core::runner::PortSeries>, OutputFailure> {
        let r = self.ports.read();
        r.map(Some)
            .map_err(|e| self.err("reading the port series".into(), e).into())
    }

    fn energy_peak(&mut self) -> f64 {
        self.ports.energy_peak()
    }

    fn decayed_at(&mut self) -> Option<usize> {
        let root: &Location = self.file();
        let reason = root.attr("end_reason").ok()?.read_scalar::<VarLenUnicode>().ok()?;
        if reason.as_str() != "decayed" {
            return None;
        }
        let step = root.attr("decayed_at_step").ok()?.read_scalar::<u64>().ok()?;
        usize::try_from(step).ok()
    }

    fn record_end(&mut self, model: &Model, summary: &RunSummary) -> Result<(), OutputFailure> {
        let r = crate::ports::record_end(self.file(), model, summary);
        r.map_err(|e| self.err("writing end_reason".into(), e).into())
    }

    fn write_results(&mut self, model: &Model, results: &RunResults) -> Result<Vec<PathBuf>, OutputFailure> {
        // The file on the disk stays as it was at the last flush until the file is
        // closed: a kill while thousands of result datasets are written leaves it
        // readable (status `running`), and `--resume` writes them again.
        self.hold_metadata();
        // Monitors, far-field surfaces (fdtd-io results.rs) and far fields.
        Hdf5Sink::write_results(self, results).map_err(OutputFailure::from)?;
        if !results.farfields.is_empty() {
            let bytes: usize = results
                .farfields
                .iter()
                .map(|f| 4096 + f.theta.len() * f.phi.len() * 160)
                .sum();
            self.reserve_ahead(bytes as u64)?;
            let r = crate::results_farfield::write_farfields(self.file(), &results.farfields).and_then(|_| {
                crate::results_farfield::mark_resolved(self.file(), &results.farfields, &results.resolved.farfields)
            });
            r.map_err(|e| self.err("writing /farfield".into(), e))?;
        }
        let mut written = crate::results_farfield::write_csv_companions(&self.path, model, &results.farfields)
            .map_err(|(companion, source)| OutputError::Companion {
                path: self.path.clone(),
                companion,
                source,
            })?;
        if results.ports.is_empty() {
            return Ok(written);
        }
        let n = results.ports.len();
        self.reserve_ahead(((n + 2 * n * n) * results.ports[0].freq.len() * 128) as u64)?;
        let r = crate::ports::write_results(self.file(), results);
        r.map_err(|e| self.err("writing the port results".into(), e))?;
        let files = crate::ports::companions(&self.path, model);
        let scene_name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let texts = [
            fdtd_core::ports::touchstone(
                &results.ports,
                results.s_matrix.as_ref(),
                &results.resolved.ports,
                &scene_name,
            ),
            fdtd_core::ports::csv(&results.ports, &results.resolved.ports),
        ];
        for (f, text) in files.iter().zip(texts) {
            let ours = self.companions.iter().find(|(c, _)| c == f).and_then(|(_, id)| *id);
            let id = safe_create::write_companion(f, &text, ours).map_err(|source| OutputError::Companion {
                path: self.path.clone(),
                companion: f.clone(),
                source,
            })?;
            match self.companions.iter_mut().find(|(c, _)| c == f) {
                Some(c) => c.1 = Some(id),
                None => self.companions.push((f.clone(), Some(id))),
            }
        }
        written.extend(files);
        Ok(written)
    }

    fn finish(self: Box<Self>, outcome: Outcome) -> Result<(), OutputFailure> {
        Hdf5Sink::finish(*self, outcome).map_err(OutputFailure::from)
    }

    fn fail(self: Box<Self>, message: &str) -> Result<(), OutputFailure> {
        Hdf5Sink::fail(*self, message).map_err(OutputFailure::from)
    }
}

/// HDF5 output files (with their XDMF companions) as a session's [`OutputFormat`].
#[derive(Clone, Copy, Debug)]
pub struct Hdf5Format {
    /// Deflate level of the snapshot datasets, 0..=9 (0 = no compression, no shuffle).
    pub deflate: u8,
    /// Write `<out>.xdmf` beside the file when the run has snapshots.
    pub xdmf: bool,
    /// See [`Hdf5Options::probe_table_threshold`].
    pub probe_table_threshold: usize,
}

impl Default for Hdf5Format {
    fn default() -> Self {
        let o = Hdf5Options::default();
        Hdf5Format {
            deflate: o.deflate,
            xdmf: o.xdmf,
            probe_table_threshold: o.probe_table_threshold,
        }
    }
}

impl Hdf5Format {
    fn options(&self, force: bool) -> Hdf5Options {
        Hdf5Options {
            force,
            deflate: self.deflate,
            xdmf: self.xdmf,
            probe_table_threshold: self.probe_table_threshold,
        }
    }
}

impl OutputFormat for Hdf5Format {
    fn extension(&self) -> &str {
        "h5"
    }

    fn companions(&self, path: &Path, model: &Model) -> Vec<PathBuf> {
        let xdmf = xdmf_path(path).filter(|_| has_xdmf(model, &self.options(false)));
        xdmf.into_iter().chain(crate::ports::companions(path, model)).collect()
    }

    fn inspect(&self, path: &Path) -> Result<OutputInfo, OutputFailure> {
        Hdf5Sink::inspect(path).map_err(|e| OutputFailure::new(OutputErrorKind::BadInput, e.to_string()))
    }

    fn precheck(&self, path: &Path, model: &Model, force: bool, resume: bool) -> Result<(), OutputFailure> {
        if resume {
            // The companion is this run's; only another program holding the file matters.
            if std::fs::symlink_metadata(path).is_ok() {
                safe_create::check_existing(path).map_err(|e| OutputFailure::from(publish_error(e, path)))?;
            }
            return Ok(());
        }
        precheck_files(path, model, &self.options(force)).map_err(OutputFailure::from)
    }

    fn create(
        &self,
        path: &Path,
        scene: &Scene,
        model: &fdtd_core::Simulation,
        backend: &str,
        force: bool,
    ) -> Result<Box<dyn Output>, OutputFailure> {
        let sink = Hdf5Sink::create_with(path, scene, model, backend, &self.options(force))?;
        Ok(Box::new(sink))
    }

    fn resume(
        &self,
        path: &Path,
        scene: &Scene,
        model: &fdtd_core::Simulation,
        backend: &str,
        step: usize,
    ) -> Result<Box<dyn Output>, OutputFailure> {
        let sink = Hdf5Sink::resume(path, scene, model, backend, step, &self.options(false))?;
        Ok(Box::new(sink))
    }
}

/// `names` (the first few of `total`), and how many more.
fn listed<S: AsRef<str>>(names: &[S], total: usize) -> String {
    let mut s = names.iter().map(|n| n.as_ref()).collect::<Vec<_>>().join(", ");
    if total > names.len() {
        s.push_str(&format!(" and {} more", total - names.len()));
    }
    s
}

/// The probe tables of a file ([`ProbeLayout::Table`]): where each probe's columns are,
/// and one chunk of samples buffered per table until the flush writes it as one
/// hyperslab.
/// Where a probe's columns are: its table, first column and column count (`None` for a
/// probe without components).
type Columns = (usize, usize, usize);

#[derive(Default)]
struct Tables {
    tables: Vec<TableOut>,
    cols: Vec<Option<Columns>>,
    /// Probes in the tables, and the first few names (for summaries).
    probes: usize,
    first_names: Vec<String>,
}

struct TableOut {
    /// `/probes/every_<k>`.
    group: String,
    values: Dataset,
    channels: usize,
    /// Rows in the file.
    rows: usize,
    time_e: Option<Series>,
    time_h: Option<Series>,
    /// The columns whose sample times go to `time` / `time_h` (the first E / H channel).
    e_col: Option<usize>,
    h_col: Option<usize>,
    /// Rows handed over since the last flush, row-major `[row][channel]`.
    buf: Vec<f32>,
    /// Rows of `buf` each column has filled.
    fill: Vec<u32>,
    pending_e: Vec<f64>,
    pending_h: Vec<f64>,
}

impl TableOut {
    fn pending_rows(&self) -> usize {
        self.buf.len() / self.channels.max(1)
    }
}

impl Tables {
    fn layout(model: &Model) -> (Vec<ProbeTable>, Vec<Option<Columns>>) {
        let tables = probe_tables(model);
        let mut cols = vec![None; model.probes.len()];
        for (ti, t) in tables.iter().enumerate() {
            let mut c = 0;
            for &pi in &t.probes {
                let n = model.probes[pi].samples.len();
                if n > 0 {
                    cols[pi] = Some((ti, c, n));
                }
                c += n;
            }
        }
        (tables, cols)
    }

    fn new(model: &Model, tables: Vec<TableOut>, cols: Vec<Option<Columns>>) -> Tables {
        Tables {
            tables,
            cols,
            probes: model.probes.len(),
            first_names: model
                .probes
                .iter()
                .take(LISTED_PROBES)
                .map(|p| p.name.clone())
                .collect(),
        }
    }

    /// Create the tables of `model` under `/probes` (`pg`), with their column metadata.
    fn create(path: &Path, pg: &Group, model: &Model) -> Result<Tables, OutputError> {
        let (specs, cols) = Tables::layout(model);
        let mut tables = Vec::with_capacity(specs.len());
        for t in &specs {
            let group = format!("/probes/{}", t.group());
            let out = create_table(pg, model, t).ctx(path, || format!("creating {group}"))?;
            tables.push(out);
        }
        Ok(Tables::new(model, tables, cols))
    }

    /// Reopen the tables of `model` in `file` and cut them back to the rows of the first
    /// `step` steps.
    fn resume(path: &Path, file: &File, model: &Model, step: usize) -> Result<Tables, OutputError> {
        let refuse = |why: String| OutputError::NotResumable {
            path: path.to_path_buf(),
            why,
        };
        let (specs, cols) = Tables::layout(model);
        let mut tables = Vec::with_capacity(specs.len());
        for t in &specs {
            let group = format!("/probes/{}", t.group());
            let rows = step / t.every;
            let open = |name: &str| -> Result<Dataset, OutputError> {
                let full = format!("{group}/{name}");
                file.dataset(&full).ctx(path, || format!("opening {full}"))
            };
            // Cut `ds` (first axis) to `rows`, refusing a file that holds fewer.
            let cut = |ds: &Dataset, name: &str| -> Result<(), OutputError> {
                let mut shape = ds.shape();
                let have = shape.first().copied().unwrap_or(0);
                if have < rows {
                    return Err(refuse(format!(
                        "{group}/{name} holds {have} rows, the checkpoint at step {step} needs {rows} (the file is \
                         behind its checkpoint)"
                    )));
                }
                if have > rows {
                    shape[0] = rows;
                    ds.resize(shape).ctx(path, || format!("truncating {group}/{name}"))?;
                }
                Ok(())
            };
            let values = open("values")?;
            let shape = values.shape();
            if shape.len() != 2 || shape[1] != t.channels {
                return Err(refuse(format!(
                    "{group}/values has shape {shape:?}, expected [rows, {}] (one column per probe component)",
                    t.channels
                )));
            }
            cut(&values, "values")?;
            let (e_col, h_col) = time_columns(model, t);
            let series = |col: Option<usize>, name: &str| -> Result<Option<Series>, OutputError> {
                if col.is_none() {
                    return Ok(None);
                }
                let ds = open(name)?;
                cut(&ds, name)?;
                Ok(Some(Series { ds, len: rows }))
            };
            let time_e = series(e_col, "time")?;
            let time_h = series(h_col, "time_h")?;
            tables.push(TableOut {
                group,
                values,
                channels: t.channels,
                rows,
                time_e,
                time_h,
                e_col,
                h_col,
                buf: Vec::new(),
                fill: vec![0; t.channels],
                pending_e: Vec::new(),
                pending_h: Vec::new(),
            });
        }
        Ok(Tables::new(model, tables, cols))
    }

    /// Buffer samples of probe `probe`, component slot `slot` (see [`Sink::probe`]).
    fn buffer(
        &mut self,
        path: &Path,
        probe: usize,
        slot: usize,
        times: &[f64],
        values: &[f32],
    ) -> Result<(), OutputError> {
        if values.is_empty() {
            return Ok(());
        }
        let bad = |what: String| OutputError::Sample {
            path: path.to_path_buf(),
            what,
        };
        let Some(&Some((ti, c0, n))) = self.cols.get(probe) else {
            return Err(bad(format!(
                "samples for probe {probe}, which has no column in /probes (the file has {} probes)",
                self.cols.len()
            )));
        };
        let t = &mut self.tables[ti];
        if slot >= n {
            return Err(bad(format!(
                "samples for component slot {slot} of probe {probe}, which has {n} (in {}/values)",
                t.group
            )));
        }
        let col = c0 + slot;
        if times.len() != values.len() {
            return Err(bad(format!(
                "{} sample times for {} values (in {}/values)",
                times.len(),
                values.len(),
                t.group
            )));
        }
        let from = t.fill[col] as usize;
        let need = from + values.len();
        if need > t.pending_rows() {
            // NaN marks a cell no column has filled yet; a flush refuses to write one.
            t.buf.resize(need * t.channels, f32::NAN);
        }
        for (k, &v) in values.iter().enumerate() {
            t.buf[(from + k) * t.channels + col] = v;
        }
        t.fill[col] = need as u32;
        if t.e_col == Some(col) {
            t.pending_e.extend_from_slice(times);
        }
        if t.h_col == Some(col) {
            t.pending_h.extend_from_slice(times);
        }
        Ok(())
    }

    /// Write the buffered rows of every table (each as one hyperslab), then empty the
    /// buffers. Every column must have been handed the same rows.
    fn write(&mut self, path: &Path) -> Result<(), OutputError> {
        for t in &mut self.tables {
            let k = t.pending_rows();
            if k == 0 {
                continue;
            }
            let values = format!("{}/values", t.group);
            if let Some(col) = t.fill.iter().position(|&f| f as usize != k) {
                return Err(OutputError::Sample {
                    path: path.to_path_buf(),
                    what: format!(
                        "{values}: column {col} has {} of the {k} rows to write (every column of a table takes the \
                         same steps)",
                        t.fill[col]
                    ),
                });
            }
            let (r0, r1) = (t.rows, t.rows + k);
            (|| -> hdf5::Result<()> {
                t.values.resize(vec![r1, t.channels])?;
                let view = ndarray::ArrayView2::from_shape((k, t.channels), &t.buf)
                    .map_err(|e| hdf5::Error::from(e.to_string()))?;
                t.values.write_slice(view, (r0..r1, 0..t.channels))
            })()
            .ctx(path, || format!("writing {values}"))?;
            for (ser, pending, name) in [
                (&mut t.time_e, &t.pending_e, "time"),
                (&mut t.time_h, &t.pending_h, "time_h"),
            ] {
                if let Some(ser) = ser {
                    if pending.len() != k {
                        return Err(OutputError::Sample {
                            path: path.to_path_buf(),
                            what: format!("{}/{name}: {} times for {k} rows", t.group, pending.len()),
                        });
                    }
                    append(ser, pending).ctx(path, || format!("writing {}/{name}", t.group))?;
                }
            }
            t.rows = r1;
            t.buf.clear();
            t.fill.iter_mut().for_each(|f| *f = 0);
            t.pending_e.clear();
            t.pending_h.clear();
        }
        Ok(())
    }
}

/// The first E and the first H column of table `t`.
fn time_columns(model: &Model, t: &ProbeTable) -> (Option<usize>, Option<usize>) {
    let comps = t
        .probes
        .iter()
        .flat_map(|&pi| model.probes[pi].samples.iter().map(|s| s.component));
    let (mut e, mut h) = (None, None);
    for (col, c) in comps.enumerate() {
        if c.is_electric() {
            e = e.or(Some(col));
        } else {
            h = h.or(Some(col));
        }
    }
    (e, h)
}

/// Create table `t` under `/probes` (`pg`): `values` [rows, channels], its times and
/// one metadata dataset per column property.
fn create_table(pg: &Group, model: &Model, t: &ProbeTable) -> hdf5::Result<TableOut> {
    let grp = pg.create_group(&t.group())?;
    let rows = model.grid.steps / t.every;
    let ch = t.channels;
    put(&grp, "every", t.every as u64)?;
    put(&grp, "probes", t.probes.len() as u64)?;
    put(&grp, "channels", ch as u64)?;
    let values = grp
        .new_dataset::<f32>()
        .chunk(table_chunk(rows, ch).to_vec())
        .shape((0.., ch))
        .create("values")?;
    put_str(
        &values,
        "columns",
        "one per (probe, component): see the datasets probe, component, index, position, units",
    )?;
    let (e_col, h_col) = time_columns(model, t);
    let time_e = e_col.map(|_| series::<f64>(&grp, "time", rows)).transpose()?;
    let time_h = h_col.map(|_| series::<f64>(&grp, "time_h", rows)).transpose()?;
    for s in [&time_e, &time_h].into_iter().flatten() {
        put_str(&s.ds, "units", "s")?;
    }
    // Column metadata, in column order.
    let mut names = Vec::with_capacity(ch);
    let mut comps = Vec::with_capacity(ch);
    let mut unit = Vec::with_capacity(ch);
    let mut index = Vec::with_capacity(3 * ch);
    let mut position = Vec::with_capacity(3 * ch);
    let mut requested = Vec::with_capacity(3 * ch);
    let ascii = |s: &str| FixedAscii::<3>::from_ascii(s).map_err(|e| hdf5::Error::from(e.to_string()));
    for &pi in &t.probes {
        let p = &model.probes[pi];
        let name = vlu(&p.name);
        for s in &p.samples {
            names.push(name.clone());
            comps.push(ascii(s.component.name())?);
            unit.push(ascii(units(s.component))?);
            index.extend(s.index.map(|x| x as u64));
            position.extend(s.position);
            requested.extend(p.position);
        }
    }
    let mat = |v: Vec<f64>| ndarray::Array2::from_shape_vec((ch, 3), v).map_err(|e| hdf5::Error::from(e.to_string()));
    grp.new_dataset_builder().with_data(&names[..]).create("probe")?;
    grp.new_dataset_builder().with_data(&comps[..]).create("component")?;
    grp.new_dataset_builder().with_data(&unit[..]).create("units")?;
    let index = ndarray::Array2::from_shape_vec((ch, 3), index).map_err(|e| hdf5::Error::from(e.to_string()))?;
    grp.new_dataset_builder().with_data(&index).create("index")?;
    let ds = grp
        .new_dataset_builder()
        .with_data(&mat(position)?)
        .create("position")?;
    put_str(&ds, "units", "m")?;
    let ds = grp
        .new_dataset_builder()
        .with_data(&mat(requested)?)
        .create("requested_position")?;
    put_str(&ds, "units", "m")?;
    Ok(TableOut {
        group: format!("/probes/{}", t.group()),
        values,
        channels: ch,
        rows: 0,
        time_e,
        time_h,
        e_col,
        h_col,
        buf: Vec::new(),
        fill: vec![0; ch],
        pending_e: Vec::new(),
        pending_h: Vec::new(),
    })
}

#[cfg(test)]
pub(super) fn frame_chunk_for_tests(shape: [usize; 3]) -> Vec<usize> {
    frame_chunk(shape)
}

//! The HDF5 writer behind [`Hdf5Sink`] (layout: see the [module docs](super)).
use super::{describe, xdmf};
use fdtd_core::model::Model;
use fdtd_core::runner::{Outcome, Sink, SinkError};
use fdtd_core::scene::Scene;
pub use fdtd_core::session::OutputInfo;
use fdtd_core::session::{Output, OutputErrorKind, OutputFailure, OutputFormat};
use fdtd_core::Component;
use hdf5::types::VarLenUnicode;
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

/// Samples per chunk of the 1-D probe datasets.
const PROBE_CHUNK: usize = 4096;
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
    #[error("cannot resume into {}: {why}", path.display())]
    NotResumable { path: PathBuf, why: String },
    #[error("{}: writing the XDMF companion {}: {source}", path.display(), xdmf.display())]
    Xdmf {
        path: PathBuf,
        xdmf: PathBuf,
        #[source]
        source: io::Error,
    },
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
}

impl Default for Hdf5Options {
    fn default() -> Self {
        Hdf5Options {
            force: false,
            deflate: 4,
            xdmf: true,
        }
    }
}

/// One extendable dataset and how many elements (1-D) or frames (4-D) it holds.
struct Series {
    ds: Dataset,
    len: usize,
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
    probes: Vec<ProbeOut>,
    snaps: Vec<SnapOut>,
    xdmf: Option<PathBuf>,
    xdmf_written: Option<Instant>,
    xdmf_frames: usize,
    steps_done: usize,
    fingerprint: u64,
    run_id: u64,
    /// When this process opened the file (for `wall_seconds`).
    opened: Instant,
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

fn put_str(loc: &Location, name: &str, v: &str) -> hdf5::Result<()> {
    loc.new_attr::<VarLenUnicode>()
        .shape(())
        .create(name)?
        .write_scalar(&vlu(v))
}

fn set_str(loc: &Location, name: &str, v: &str) -> hdf5::Result<()> {
    loc.attr(name)?.write_scalar(&vlu(v))
}

fn put<T: H5Type>(loc: &Location, name: &str, v: T) -> hdf5::Result<()> {
    loc.new_attr::<T>().shape(()).create(name)?.write_scalar(&v)
}

fn put_arr<T: H5Type>(loc: &Location, name: &str, v: &[T]) -> hdf5::Result<()> {
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

/// Create an empty extendable 1-D dataset.
fn series<T: H5Type>(g: &Group, name: &str) -> hdf5::Result<Series> {
    let ds = g
        .new_dataset::<T>()
        .chunk(vec![PROBE_CHUNK])
        .shape((0..,))
        .create(name)?;
    Ok(Series { ds, len: 0 })
}

fn append<T: H5Type>(s: &mut Series, v: &[T]) -> hdf5::Result<()> {
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
        model: &Model,
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
        model: &Model,
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
        // Create the file with std first: clear errors (exists, permission, no directory).
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !dir.is_dir() {
            return Err(OutputError::NoDirectory { path, dir });
        }
        let mut oo = std::fs::OpenOptions::new();
        oo.write(true);
        if opts.force {
            oo.create(true).truncate(true);
        } else {
            oo.create_new(true);
        }
        if let Err(e) = oo.open(&path) {
            return Err(if e.kind() == io::ErrorKind::AlreadyExists {
                OutputError::Exists { path }
            } else {
                OutputError::Create { path, source: e }
            });
        }
        match Hdf5Sink::build(&path, scene, model, backend_desc, opts) {
            Ok(sink) => Ok(sink),
            Err(e) => {
                // Leave no half-made file behind.
                let _ = std::fs::remove_file(&path);
                Err(e)
            }
        }
    }

    fn build(
        path: &Path,
        scene: &Scene,
        model: &Model,
        backend_desc: &str,
        opts: &Hdf5Options,
    ) -> Result<Hdf5Sink, OutputError> {
        let file = File::create(path).ctx(path, || "creating the HDF5 file".into())?;
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
        let mut probes = Vec::with_capacity(model.probes.len());
        for p in &model.probes {
            let what = || format!("creating /probes/{}", p.name);
            let out = (|| -> hdf5::Result<ProbeOut> {
                let grp = pg.create_group(&p.name)?;
                put_arr(&grp, "requested_position", &p.position)?;
                put(&grp, "every", p.every as u64)?;
                let e_owner = p.samples.iter().position(|s| s.component.is_electric());
                let h_owner = p.samples.iter().position(|s| !s.component.is_electric());
                let time_e = match e_owner {
                    Some(_) => Some(series::<f64>(&grp, "time")?),
                    None => None,
                };
                let time_h = match h_owner {
                    Some(_) => Some(series::<f64>(&grp, "time_h")?),
                    None => None,
                };
                for t in [&time_e, &time_h].into_iter().flatten() {
                    put_str(&t.ds, "units", "s")?;
                }
                let mut comps = Vec::with_capacity(p.samples.len());
                for s in &p.samples {
                    let c = s.component;
                    let ser = series::<f32>(&grp, c.name())?;
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
                let time = series::<f64>(&grp, "time")?;
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
        file.flush().ctx(path, || "flushing".into())?;

        let token = NEXT_TOKEN.fetch_add(1, Ordering::Relaxed);
        let registered = file.clone();
        open_files().push((token, registered));

        let xdmf = if opts.xdmf && snaps.iter().any(|s| !s.comps.is_empty()) {
            xdmf_path(path)
        } else {
            None
        };
        let mut sink = Hdf5Sink {
            path: path.to_path_buf(),
            file: Some(file),
            token,
            dt: g.dt,
            d: g.d,
            probes,
            snaps,
            xdmf,
            xdmf_written: None,
            xdmf_frames: 0,
            steps_done: 0,
            fingerprint,
            run_id,
            opened: Instant::now(),
        };
        sink.write_xdmf()?;
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
        model: &Model,
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
        let mut probes = Vec::with_capacity(model.probes.len());
        for p in &model.probes {
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
            path,
            file: Some(file),
            token,
            dt: g.dt,
            d: g.d,
            probes,
            snaps,
            xdmf,
            xdmf_written: None,
            xdmf_frames: 0,
            steps_done: step,
            fingerprint,
            run_id,
            opened: Instant::now(),
        };
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
            let names: Vec<&str> = self.probes.iter().map(|p| p.name.as_str()).collect();
            v.push(format!("/probes: {}", names.join(", ")));
        }
        if !self.snaps.is_empty() {
            let names: Vec<String> = self
                .snaps
                .iter()
                .map(|s| format!("{} ({} frames)", s.name, s.time.len))
                .collect();
            v.push(format!("/snapshots: {}", names.join(", ")));
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
        let p = &mut self.probes[probe];
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
            append(&mut p.comps[slot], values)
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
        self.steps_done = steps_done;
        let file = self.file();
        put_or_set_u64(file, "steps_done", steps_done as u64).map_err(|e| self.err("updating steps_done".into(), e))?;
        file.flush().map_err(|e| self.err("flushing".into(), e))?;
        if self.xdmf_written.is_none_or(|t| t.elapsed() >= XDMF_INTERVAL) {
            self.write_xdmf()?;
        }
        Ok(())
    }

    /// Set the final `status` ("complete" or "interrupted"), flush and close the file.
    pub fn finish(self, outcome: Outcome) -> Result<(), OutputError> {
        let status = match outcome {
            Outcome::Finished => "complete",
            Outcome::Interrupted => "interrupted",
        };
        self.close_with(status, None)
    }

    /// Mark the run `failed` (with an `error` attribute holding `message`) and close the file.
    pub fn fail(self, message: &str) -> Result<(), OutputError> {
        self.close_with("failed", Some(message))
    }

    fn close_with(mut self, status: &str, error: Option<&str>) -> Result<(), OutputError> {
        let steps_done = self.steps_done;
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
        self.write_xdmf()?;
        // Close every dataset, then the file.
        self.probes.clear();
        self.snaps.clear();
        self.unregister();
        let file = self.file.take().expect("open");
        file.close().map_err(|e| self.err("closing".into(), e))
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
        xdmf::write_atomic(&xpath, &text).map_err(|source| OutputError::Xdmf {
            path: self.path.clone(),
            xdmf: xpath.clone(),
            source,
        })?;
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

impl Sink for Hdf5Sink {
    fn probe(&mut self, probe: usize, slot: usize, times: &[f64], values: &[f32]) -> Result<(), SinkError> {
        self.write_probe(probe, slot, times, values)
            .map_err(|e| SinkError(e.to_string()))
    }

    fn snapshot(&mut self, snap: usize, c: Component, time: f64, data: &[f32]) -> Result<(), SinkError> {
        self.write_snapshot(snap, c, time, data)
            .map_err(|e| SinkError(e.to_string()))
    }

    fn flush(&mut self, steps_done: usize) -> Result<(), SinkError> {
        self.flush_steps(steps_done).map_err(|e| SinkError(e.to_string()))
    }

    fn sync(&mut self) -> Result<(), SinkError> {
        Hdf5Sink::sync(self).map_err(|e| SinkError(e.to_string()))
    }
}

impl From<OutputError> for OutputFailure {
    fn from(e: OutputError) -> OutputFailure {
        let kind = match e {
            OutputError::Exists { .. } => OutputErrorKind::Exists,
            OutputError::NoDirectory { .. } | OutputError::NotResumable { .. } | OutputError::BadName { .. } => {
                OutputErrorKind::BadInput
            }
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
}

impl Default for Hdf5Format {
    fn default() -> Self {
        let o = Hdf5Options::default();
        Hdf5Format {
            deflate: o.deflate,
            xdmf: o.xdmf,
        }
    }
}

impl Hdf5Format {
    fn options(&self, force: bool) -> Hdf5Options {
        Hdf5Options {
            force,
            deflate: self.deflate,
            xdmf: self.xdmf,
        }
    }
}

impl OutputFormat for Hdf5Format {
    fn extension(&self) -> &str {
        "h5"
    }

    fn inspect(&self, path: &Path) -> Result<OutputInfo, OutputFailure> {
        Hdf5Sink::inspect(path).map_err(|e| OutputFailure::new(OutputErrorKind::BadInput, e.to_string()))
    }

    fn create(
        &self,
        path: &Path,
        scene: &Scene,
        model: &Model,
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
        model: &Model,
        backend: &str,
        step: usize,
    ) -> Result<Box<dyn Output>, OutputFailure> {
        let sink = Hdf5Sink::resume(path, scene, model, backend, step, &self.options(false))?;
        Ok(Box::new(sink))
    }
}

#[cfg(test)]
pub(super) fn frame_chunk_for_tests(shape: [usize; 3]) -> Vec<usize> {
    frame_chunk(shape)
}

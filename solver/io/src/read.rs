//! Reading a result file back: its run attributes, what its probes and snapshots hold,
//! and their data, for `fdtd info` and `fdtd plot` (and any program that would rather not
//! walk the HDF5 layout itself). Attributes newer than a file are optional here, so files
//! of older fdtd versions still open.
//!
//! A result file is untrusted input (`info` and `plot` read files they did not write):
//! every read is bounded ([`READ_LIMIT`], and all reads of a file together by its size),
//! and the shapes that later code indexes with are checked against each other and the
//! grid here, so a damaged or hostile file gives a [`ReadError`], never a panic or an
//! allocation that aborts.
use hdf5::types::VarLenUnicode;
use hdf5::{Dataset, File, Group, H5Type, Location};
use std::cell::Cell;
use std::path::{Path, PathBuf};

/// The most bytes one read of a result file may bring into memory. A file is untrusted
/// input: a chunked (or compressed) dataset can declare terabytes in a few bytes, and
/// reading it would abort on the allocation; past this the read is refused, by name.
pub const READ_LIMIT: u64 = 512 << 20;
/// All reads of one open file together may bring at most this many bytes, or
/// [`TOTAL_READ_FACTOR`] times the file's size when that is more: `info` and `plot` on a
/// file of many small datasets that each declare a large shape end, and do not run for
/// hours on fill values.
pub const TOTAL_READ_FLOOR: u64 = 1 << 30;
pub const TOTAL_READ_FACTOR: u64 = 4;
/// The most values of one attribute (fdtd writes at most a value per frequency).
const ATTR_LIMIT: usize = 1 << 20;

/// A byte count as `512 MiB`.
pub fn bytes(b: u64) -> String {
    const U: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < U.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{} {}", fdtd_core::fmt::sig(x, 3), U[u])
    }
}

/// What the reads of one open file have brought in so far, against its budget.
#[derive(Debug)]
struct Budget {
    path: PathBuf,
    file_len: u64,
    used: Cell<u64>,
}

impl Budget {
    fn total(&self) -> u64 {
        TOTAL_READ_FLOOR.max(self.file_len.saturating_mul(TOTAL_READ_FACTOR))
    }

    fn invalid(&self, what: &str, message: String) -> ReadError {
        ReadError::Invalid {
            path: self.path.clone(),
            what: what.to_string(),
            message,
        }
    }

    /// Charge a read of `elems` values of `size` bytes each from `ds` (named `what`),
    /// or say why it is refused. Contiguous data must also be in the file.
    fn charge(&self, ds: &Dataset, what: &str, elems: u64, size: usize) -> Result<(), ReadError> {
        let need = elems.saturating_mul(size.max(1) as u64);
        if need > READ_LIMIT {
            return Err(self.invalid(
                what,
                format!(
                    "declares {elems} values ({}), more than one read may hold in memory ({}): the file is damaged, \
                     or not written by fdtd",
                    bytes(need),
                    bytes(READ_LIMIT)
                ),
            ));
        }
        let stored = self::elems(&ds.shape()).saturating_mul(ds.dtype().map_or(1, |t| t.size()) as u64);
        if !ds.is_chunked() && stored > self.file_len {
            return Err(self.invalid(
                what,
                format!(
                    "declares {} of contiguous data in a file of {}: the file is truncated or damaged",
                    bytes(stored),
                    bytes(self.file_len)
                ),
            ));
        }
        let used = self.used.get().saturating_add(need);
        if used > self.total() {
            return Err(self.invalid(
                what,
                format!(
                    "reading it would bring the data read from this {} file to {}, more than {} (the file declares \
                     far more data than it holds)",
                    bytes(self.file_len),
                    bytes(used),
                    bytes(self.total())
                ),
            ));
        }
        self.used.set(used);
        Ok(())
    }

    /// A whole dataset, within the budget.
    fn read<T: H5Type>(&self, ds: &Dataset, what: &str) -> Result<Vec<T>, ReadError> {
        let elems = elems(&ds.shape());
        self.charge(ds, what, elems, std::mem::size_of::<T>())?;
        ds.read_raw::<T>().map_err(|source| ReadError::Hdf5 {
            path: self.path.clone(),
            what: format!("reading {what}"),
            source,
        })
    }

    /// Dataset `name` of `g` (shown as `what`): empty when absent, an error when present
    /// but unreadable or over the budget.
    fn read_opt<T: H5Type>(&self, g: &Group, name: &str, what: &str) -> Result<Vec<T>, ReadError> {
        if !g.link_exists(name) {
            return Ok(Vec::new());
        }
        let ds = g.dataset(name).map_err(|source| ReadError::Hdf5 {
            path: self.path.clone(),
            what: format!("opening {what}"),
            source,
        })?;
        self.read(&ds, what)
    }
}

/// The number of values of a shape (saturating: a hostile shape may overflow).
fn elems(shape: &[usize]) -> u64 {
    shape.iter().fold(1u64, |a, &d| a.saturating_mul(d as u64))
}

/// Why a result file could not be read. Every message names the file and what was read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot open {} as an HDF5 file: {source}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: hdf5::Error,
    },
    #[error("{}: {what}: {source}", path.display())]
    Hdf5 {
        path: PathBuf,
        what: String,
        #[source]
        source: hdf5::Error,
    },
    #[error("{}: not an fdtd result file (no `{attr}` attribute on /)", path.display())]
    NotResult { path: PathBuf, attr: &'static str },
    /// Data the file declares that cannot be read safely or does not fit together.
    #[error("{}: {what}: {message}", path.display())]
    Invalid {
        path: PathBuf,
        what: String,
        message: String,
    },
    #[error("{}: no {what} named `{name}` (the file has: {have})", path.display())]
    Missing {
        path: PathBuf,
        what: &'static str,
        name: String,
        have: String,
    },
}

/// The root attributes: what ran, where, and how it ended.
#[derive(Clone, Debug, PartialEq)]
pub struct RunAttrs {
    pub fdtd_version: String,
    /// The scene's TOML text, verbatim.
    pub scene: String,
    pub scene_path: String,
    pub backend: String,
    /// The device's name (older files: the backend's whole description line).
    pub device: String,
    /// The backend's whole description and, for `auto`, why it was chosen (newer files).
    pub device_detail: Option<String>,
    pub backend_selection: Option<String>,
    pub precision: String,
    /// Cell size (m).
    pub d: [f64; 3],
    /// Time step (s).
    pub dt: f64,
    /// Planned steps.
    pub steps: u64,
    pub steps_done: u64,
    /// Cells per axis.
    pub shape: [u64; 3],
    pub courant: f64,
    /// `running`, `complete`, `interrupted` or `failed`.
    pub status: String,
    pub error: Option<String>,
    pub resumes: u64,
    /// Wall time of the run (s), from creating the file to closing it (newer files).
    pub wall_seconds: Option<f64>,
    /// How a finished run ended: `decayed` (end criterion) or `max_steps`.
    pub end_reason: Option<String>,
    /// The end criterion (dB) and the step it was reached at.
    pub decay_db: Option<f64>,
    pub decayed_at_step: Option<u64>,
}

/// One recorded component of a probe.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeComponent {
    /// `Ex` .. `Hz`.
    pub name: String,
    /// Where the sample really is (m).
    pub position: [f64; 3],
    pub index: [u64; 3],
    pub units: String,
    /// The name of its time dataset (`time` or `time_h`).
    pub time: String,
    pub samples: usize,
}

/// A probe: a point recorded every `every` steps.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeInfo {
    pub name: String,
    pub requested_position: [f64; 3],
    pub every: u64,
    pub components: Vec<ProbeComponent>,
}

/// One recorded component of a snapshot.
#[derive(Clone, Debug, PartialEq)]
pub struct SnapshotComponent {
    pub name: String,
    /// Frame shape `[a, b, c]` (samples along x, y, z).
    pub shape: [usize; 3],
    pub frames: usize,
    pub index_lo: [u64; 3],
    pub index_hi: [u64; 3],
    /// Position of sample `index_lo` (m).
    pub origin: [f64; 3],
    pub spacing: [f64; 3],
    pub units: String,
}

/// A snapshot: a region recorded every `every` steps.
#[derive(Clone, Debug, PartialEq)]
pub struct SnapshotInfo {
    pub name: String,
    pub every: u64,
    /// The region in node indices, `lo..hi` exclusive.
    pub index_lo: [u64; 3],
    pub index_hi: [u64; 3],
    /// Frames written (the length of its `time` dataset).
    pub frames: usize,
    pub components: Vec<SnapshotComponent>,
}

/// A lumped port (`/ports/<name>`): its series and, for a finished run, its results.
#[derive(Clone, Debug, PartialEq)]
pub struct PortInfo {
    pub name: String,
    /// Reference impedance (Ω).
    pub z0: f64,
    pub driven: bool,
    /// Samples of V and I.
    pub samples: usize,
    /// Frequencies (Hz), Z (re, im, Ω), S (re, im) and |S| (dB); empty before the run
    /// finished.
    pub frequency: Vec<f64>,
    pub z: Vec<[f64; 2]>,
    pub s: Vec<[f64; 2]>,
    pub s_db: Vec<f64>,
    /// Per frequency, whether the run resolves it (`resolved`; empty in files of older
    /// fdtd versions, which did not record it).
    pub resolved: Vec<bool>,
}

/// The full S-matrix of a run that drove every port in turn (`/s_matrix`).
#[derive(Clone, Debug, PartialEq)]
pub struct SMatrixInfo {
    /// Row and column order.
    pub ports: Vec<String>,
    pub frequency: Vec<f64>,
    /// S as `[out][in][freq]` (re, im), flat.
    pub s: Vec<[f64; 2]>,
    /// Per frequency (empty: not recorded).
    pub resolved: Vec<bool>,
}

impl SMatrixInfo {
    /// S_{out, in} at frequency index `k` (re, im).
    pub fn get(&self, out: usize, inp: usize, k: usize) -> [f64; 2] {
        let n = self.ports.len();
        self.s[(out * n + inp) * self.frequency.len() + k]
    }
}

/// What a far field holds (`/farfield/<name>`); the patterns are read with
/// [`ResultFile::farfield_pattern`].
#[derive(Clone, Debug, PartialEq)]
pub struct FarFieldInfo {
    pub name: String,
    /// Frequencies (Hz).
    pub freq: Vec<f64>,
    /// The grid (degrees).
    pub theta: Vec<f64>,
    pub phi: Vec<f64>,
    /// Per frequency: radiated power (W), peak directivity (dBi) and its direction
    /// (θ, φ in degrees), efficiency (with a driven port).
    pub radiated_power: Vec<f64>,
    pub max_directivity_dbi: Vec<f64>,
    pub max_direction: Vec<[f64; 2]>,
    pub efficiency: Option<Vec<f64>>,
    /// The pattern datasets present: `directivity_dBi`, `gain_dBi`, `realized_gain_dBi`,
    /// `rcs_dBsm`.
    pub patterns: Vec<String>,
    /// With a plane wave: the monostatic RCS per frequency (dBsm).
    pub monostatic_rcs_dbsm: Option<Vec<f64>>,
}

/// A `/cross_sections/<name>` group: σ (m²) per frequency.
#[derive(Clone, Debug, PartialEq)]
pub struct CrossSectionInfo {
    pub name: String,
    pub plane_wave: String,
    pub freq: Vec<f64>,
    pub scattering: Vec<f64>,
    pub absorption: Vec<f64>,
    pub extinction: Vec<f64>,
    /// Per frequency, whether the run resolves it (empty: not recorded).
    pub resolved: Vec<bool>,
}

/// A numeric attribute's values; None when absent, unreadable or implausibly long.
fn attr_vec(loc: &Location, name: &str) -> Option<Vec<f64>> {
    let a = loc.attr(name).ok()?;
    (elems(&a.shape()) <= ATTR_LIMIT as u64).then(|| a.read_raw::<f64>().ok())?
}

/// |S| in dB of (re, im); NaN (not a level) when S is not finite.
fn db_of(c: [f64; 2]) -> f64 {
    let m = c[0].hypot(c[1]);
    if m.is_finite() {
        20.0 * m.max(1e-300).log10()
    } else {
        f64::NAN
    }
}

/// The most points along a far field's θ, φ or frequency axis (fdtd's finest grid is far
/// coarser): the cuts and the map are quadratic in them.
const FARFIELD_AXIS_LIMIT: usize = 10_000;

fn pairs(v: Vec<f64>) -> Vec<[f64; 2]> {
    v.chunks_exact(2).map(|c| [c[0], c[1]]).collect()
}

/// An open result file.
pub struct ResultFile {
    path: PathBuf,
    file: File,
    budget: Budget,
    pub run: RunAttrs,
    pub probes: Vec<ProbeInfo>,
    pub snapshots: Vec<SnapshotInfo>,
    /// Lumped ports (`/ports`) and far fields (`/farfield`) of an antenna run.
    pub ports: Vec<PortInfo>,
    pub farfields: Vec<FarFieldInfo>,
    /// `/cross_sections`: what a plane wave's target scatters and absorbs.
    pub cross_sections: Vec<CrossSectionInfo>,
    /// `/s_matrix`: the full S-matrix of a run that drove every port in turn.
    pub s_matrix: Option<SMatrixInfo>,
    /// Top-level groups this version does not interpret (e.g. `ports` written by a newer
    /// fdtd), so a reader can say what it skipped.
    pub other_groups: Vec<String>,
}

fn attr<T: H5Type>(loc: &Location, name: &str) -> Option<T> {
    loc.attr(name).and_then(|a| a.read_scalar::<T>()).ok()
}

fn attr_str(loc: &Location, name: &str) -> Option<String> {
    attr::<VarLenUnicode>(loc, name).map(|s| s.as_str().to_string())
}

fn attr3<T: H5Type + Copy + Default>(loc: &Location, name: &str) -> Option<[T; 3]> {
    let a = loc.attr(name).ok()?;
    if elems(&a.shape()) != 3 {
        return None;
    }
    let v = a.read_raw::<T>().ok()?;
    (v.len() == 3).then(|| [v[0], v[1], v[2]])
}

impl ResultFile {
    /// Open `path` and read its attributes and the layout of its probes and snapshots
    /// (no data yet).
    pub fn open(path: impl AsRef<Path>) -> Result<ResultFile, ReadError> {
        let path = path.as_ref().to_path_buf();
        let _deadline = deadline::Guard::new(&path, "its attributes and layout");
        let file = File::open(&path).map_err(|source| ReadError::Open {
            path: path.clone(),
            source,
        })?;
        let root: &Location = &file;
        let status = attr_str(root, "status").ok_or_else(|| ReadError::NotResult {
            path: path.clone(),
            attr: "status",
        })?;
        let f = |n: &str| attr::<f64>(root, n).unwrap_or(f64::NAN);
        let s = |n: &str| attr_str(root, n).unwrap_or_default();
        let run = RunAttrs {
            fdtd_version: s("fdtd_version"),
            scene: s("scene"),
            scene_path: s("scene_path"),
            backend: s("backend"),
            device: s("device"),
            device_detail: attr_str(root, "device_detail"),
            backend_selection: attr_str(root, "backend_selection"),
            precision: s("precision"),
            d: [f("dx"), f("dy"), f("dz")],
            dt: f("dt"),
            steps: attr::<u64>(root, "steps").unwrap_or(0),
            steps_done: attr::<u64>(root, "steps_done").unwrap_or(0),
            shape: attr3::<u64>(root, "shape").unwrap_or_default(),
            courant: f("courant"),
            status,
            error: attr_str(root, "error"),
            resumes: attr::<u64>(root, "resumes").unwrap_or(0),
            wall_seconds: attr::<f64>(root, "wall_seconds"),
            end_reason: attr_str(root, "end_reason"),
            decay_db: attr::<f64>(root, "decay_db"),
            decayed_at_step: attr::<u64>(root, "decayed_at_step"),
        };
        let ctx = |what: String| {
            let path = path.clone();
            move |source| ReadError::Hdf5 { path, what, source }
        };
        let groups = file.member_names().map_err(ctx("listing /".into()))?;
        let other_groups: Vec<String> = groups
            .iter()
            .filter(|g| {
                ![
                    "probes",
                    "snapshots",
                    "ports",
                    "farfield",
                    "energy",
                    "s_matrix",
                    "cross_sections",
                ]
                .contains(&g.as_str())
            })
            .cloned()
            .collect();

        let budget = Budget {
            path: path.clone(),
            file_len: std::fs::metadata(&path).map_or(0, |m| m.len()),
            used: Cell::new(0),
        };
        let invalid = |what: String, message: String| ReadError::Invalid {
            path: path.clone(),
            what,
            message,
        };
        // The grid, when the file names one: snapshots must lie in it.
        let grid = (run.shape.iter().all(|&n| n > 0)).then_some(run.shape);

        let mut probes = Vec::new();
        let mut other_groups: Vec<String> = other_groups;
        let pg = file.group("probes").ok();
        // Runs with many probes store them as tables (`/probes/every_<k>`, attribute
        // `layout = "table"`), which this reader does not interpret yet: named, not misread.
        let tables = pg
            .as_ref()
            .and_then(|g| attr_str(g, "layout"))
            .is_some_and(|l| l == "table");
        if tables {
            other_groups.push("probes (table layout)".into());
        }
        if let Some(pg) = pg.filter(|_| !tables) {
            for name in pg.member_names().map_err(ctx("listing /probes".into()))? {
                let g = pg.group(&name).map_err(ctx(format!("opening /probes/{name}")))?;
                let mut components = Vec::new();
                for c in fdtd_core::Component::ALL {
                    let Ok(ds) = g.dataset(c.name()) else { continue };
                    if ds.ndim() != 1 {
                        return Err(invalid(
                            format!("/probes/{name}/{}", c.name()),
                            format!("has shape {:?}, expected one axis (a series)", ds.shape()),
                        ));
                    }
                    components.push(ProbeComponent {
                        name: c.name().to_string(),
                        position: attr3::<f64>(&ds, "position").unwrap_or([f64::NAN; 3]),
                        index: attr3::<u64>(&ds, "index").unwrap_or_default(),
                        units: attr_str(&ds, "units").unwrap_or_default(),
                        time: attr_str(&ds, "time").unwrap_or_else(|| "time".into()),
                        samples: ds.shape().first().copied().unwrap_or(0),
                    });
                }
                probes.push(ProbeInfo {
                    requested_position: attr3::<f64>(&g, "requested_position").unwrap_or([f64::NAN; 3]),
                    every: attr::<u64>(&g, "every").unwrap_or(1),
                    name,
                    components,
                });
            }
        }
        let mut snapshots = Vec::new();
        if let Ok(sg) = file.group("snapshots") {
            for name in sg.member_names().map_err(ctx("listing /snapshots".into()))? {
                let g = sg.group(&name).map_err(ctx(format!("opening /snapshots/{name}")))?;
                let frames = g
                    .dataset("time")
                    .map(|t| t.shape().first().copied().unwrap_or(0))
                    .unwrap_or(0);
                let mut components = Vec::new();
                for c in fdtd_core::Component::ALL {
                    let Ok(ds) = g.dataset(c.name()) else { continue };
                    let sh = ds.shape();
                    if sh.len() != 4 {
                        continue;
                    }
                    let what = format!("/snapshots/{name}/{}", c.name());
                    let shape = [sh[1], sh[2], sh[3]];
                    if shape.contains(&0) {
                        return Err(invalid(
                            what,
                            format!("has frames of shape {shape:?}, with an empty axis"),
                        ));
                    }
                    if let Some(n) = grid {
                        if (0..3).any(|i| shape[i] as u64 > n[i].saturating_add(1)) {
                            return Err(invalid(
                                what,
                                format!("has frames of shape {shape:?}, larger than the grid of {n:?} cells"),
                            ));
                        }
                    }
                    let origin = attr3::<f64>(&ds, "origin").unwrap_or_default();
                    let spacing = attr3::<f64>(&ds, "spacing").unwrap_or(run.d);
                    if origin.iter().any(|x| !x.is_finite()) || spacing.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
                        return Err(invalid(
                            what,
                            format!("origin {origin:?} and spacing {spacing:?} are not finite positive lengths"),
                        ));
                    }
                    // Frames are written one per `time` entry; a run stopped between the
                    // two writes leaves one more.
                    if frames > 0 && sh[0] > frames + 1 {
                        return Err(invalid(
                            what,
                            format!("has {} frames for {frames} times in /snapshots/{name}/time", sh[0]),
                        ));
                    }
                    components.push(SnapshotComponent {
                        name: c.name().to_string(),
                        shape,
                        frames: sh[0],
                        index_lo: attr3::<u64>(&ds, "index_lo").unwrap_or_default(),
                        index_hi: attr3::<u64>(&ds, "index_hi").unwrap_or_default(),
                        origin,
                        spacing,
                        units: attr_str(&ds, "units").unwrap_or_default(),
                    });
                }
                snapshots.push(SnapshotInfo {
                    every: attr::<u64>(&g, "every").unwrap_or(1),
                    index_lo: attr3::<u64>(&g, "index_lo").unwrap_or_default(),
                    index_hi: attr3::<u64>(&g, "index_hi").unwrap_or_default(),
                    frames,
                    name,
                    components,
                });
            }
        }
        let mut ports = Vec::new();
        if let Ok(pg) = file.group("ports") {
            for name in pg.member_names().map_err(ctx("listing /ports".into()))? {
                let g = pg.group(&name).map_err(ctx(format!("opening /ports/{name}")))?;
                let base = format!("/ports/{name}");
                let read = |n: &str| budget.read_opt::<f64>(&g, n, &format!("{base}/{n}"));
                let frequency = read("frequency")?;
                let n = frequency.len();
                if frequency.iter().any(|f| !f.is_finite()) {
                    return Err(invalid(
                        format!("{base}/frequency"),
                        "holds a value that is not finite".into(),
                    ));
                }
                // S and Z are [n, 2] (re, im) per frequency, S_dB one per frequency: any
                // other length would be paired with the wrong frequencies.
                let per_freq = |ds: &str, v: Vec<f64>, width: usize| {
                    if v.is_empty() || v.len() == width * n {
                        Ok(v)
                    } else {
                        Err(invalid(
                            format!("{base}/{ds}"),
                            format!("holds {} values for {n} frequencies (expected {})", v.len(), width * n),
                        ))
                    }
                };
                let s = pairs(per_freq("S", read("S")?, 2)?);
                let z = pairs(per_freq("Z", read("Z")?, 2)?);
                let mut s_db = per_freq("S_dB", read("S_dB")?, 1)?;
                // fdtd before issue 19 stored a NaN S as −6000 dB (20·log10 of 1e-300):
                // not a level. No real |S| is within 1000 dB of that.
                for d in &mut s_db {
                    if *d < -1000.0 {
                        *d = f64::NAN;
                    }
                }
                if s_db.is_empty() {
                    s_db = s.iter().map(|c| db_of(*c)).collect();
                }
                let resolved = budget.read_opt::<u8>(&g, "resolved", &format!("{base}/resolved"))?;
                let resolved: Vec<bool> = match resolved.len() == n {
                    true => resolved.iter().map(|&x| x != 0).collect(),
                    false => Vec::new(),
                };
                ports.push(PortInfo {
                    resolved,
                    z0: attr::<f64>(&g, "z0").unwrap_or(f64::NAN),
                    driven: attr::<u8>(&g, "driven")
                        .map(|v| v != 0)
                        .or_else(|| attr::<bool>(&g, "driven"))
                        .unwrap_or(false),
                    samples: g
                        .dataset("V")
                        .map(|d| d.shape().first().copied().unwrap_or(0))
                        .unwrap_or(0),
                    frequency,
                    z,
                    s,
                    s_db,
                    name,
                });
            }
        }
        // A far field a reader cannot make sense of (a layout of another fdtd version, or
        // axes that do not fit together) is named in `other_groups`, not fatal: the rest of
        // the file still reads.
        let mut farfields = Vec::new();
        if let Ok(fg) = file.group("farfield") {
            for name in fg.member_names().map_err(ctx("listing /farfield".into()))? {
                let ff = fg.group(&name).map_err(|e| e.to_string()).and_then(|g| {
                    let base = format!("/farfield/{name}");
                    let read = |n: &str| {
                        let v = budget
                            .read_opt::<f64>(&g, n, &format!("{base}/{n}"))
                            .map_err(|e| e.to_string())?;
                        if v.is_empty() {
                            Err(format!("no {n}"))
                        } else if v.len() > FARFIELD_AXIS_LIMIT {
                            Err(format!("{} {n} values (at most {FARFIELD_AXIS_LIMIT})", v.len()))
                        } else if v.iter().any(|x| !x.is_finite()) {
                            Err(format!("{n} holds a value that is not finite"))
                        } else {
                            Ok(v)
                        }
                    };
                    let (freq, theta, phi) = (read("frequency")?, read("theta")?, read("phi")?);
                    if theta.iter().any(|t| !(-1e-6..=180.0 + 1e-6).contains(t))
                        || phi.iter().any(|p| !(-360.0..=720.0).contains(p))
                    {
                        return Err("theta or phi out of range (degrees)".into());
                    }
                    let patterns = ["directivity_dBi", "gain_dBi", "realized_gain_dBi", "rcs_dBsm"]
                        .iter()
                        .filter(|n| g.dataset(n).is_ok())
                        .map(|n| n.to_string())
                        .collect();
                    Ok(FarFieldInfo {
                        freq,
                        theta,
                        phi,
                        radiated_power: attr_vec(&g, "radiated_power").unwrap_or_default(),
                        max_directivity_dbi: attr_vec(&g, "max_directivity_dBi").unwrap_or_default(),
                        max_direction: pairs(attr_vec(&g, "max_direction").unwrap_or_default()),
                        efficiency: attr_vec(&g, "efficiency"),
                        monostatic_rcs_dbsm: attr_vec(&g, "monostatic_rcs_dBsm"),
                        patterns,
                        name: name.clone(),
                    })
                });
                match ff {
                    Ok(f) => farfields.push(f),
                    // Named as the other skipped groups are (why is for a debugger).
                    Err(_why) => other_groups.push(format!("farfield/{name}")),
                }
            }
        }
        // Cross sections: one frequency axis and three spectra of the same length each; a
        // group that does not fit is named in `other_groups`.
        let mut cross_sections = Vec::new();
        if let Ok(cg) = file.group("cross_sections") {
            for name in cg.member_names().map_err(ctx("listing /cross_sections".into()))? {
                let c = cg.group(&name).map_err(|e| e.to_string()).and_then(|g| {
                    let base = format!("/cross_sections/{name}");
                    let read = |n: &str| {
                        budget
                            .read_opt::<f64>(&g, n, &format!("{base}/{n}"))
                            .map_err(|e| e.to_string())
                    };
                    let freq = read("frequency")?;
                    if freq.is_empty() || freq.len() > FARFIELD_AXIS_LIMIT {
                        return Err(format!("{} frequencies", freq.len()));
                    }
                    let (scattering, absorption, extinction) =
                        (read("scattering")?, read("absorption")?, read("extinction")?);
                    if [&scattering, &absorption, &extinction]
                        .iter()
                        .any(|v| v.len() != freq.len())
                    {
                        return Err("spectra of another length than the frequencies".into());
                    }
                    let resolved = budget
                        .read_opt::<u8>(&g, "resolved", &format!("{base}/resolved"))
                        .map_err(|e| e.to_string())?;
                    Ok(CrossSectionInfo {
                        plane_wave: attr_str(&g, "plane_wave").unwrap_or_default(),
                        resolved: match resolved.len() == freq.len() {
                            true => resolved.iter().map(|&x| x != 0).collect(),
                            false => Vec::new(),
                        },
                        freq,
                        scattering,
                        absorption,
                        extinction,
                        name: name.clone(),
                    })
                });
                match c {
                    Ok(c) => cross_sections.push(c),
                    Err(_why) => other_groups.push(format!("cross_sections/{name}")),
                }
            }
        }
        let s_matrix = match file.group("s_matrix") {
            Err(_) => None,
            Ok(g) => {
                let base = "/s_matrix";
                let frequency = budget.read_opt::<f64>(&g, "frequency", &format!("{base}/frequency"))?;
                let s = budget.read_opt::<f64>(&g, "S", &format!("{base}/S"))?;
                let names: Vec<String> = attr_str(&g, "ports")
                    .map(|p| p.split('\n').map(String::from).collect())
                    .unwrap_or_default();
                let (n, nf) = (names.len(), frequency.len());
                if s.len() != n * n * nf * 2 {
                    return Err(invalid(
                        format!("{base}/S"),
                        format!("holds {} values for {n} ports and {nf} frequencies", s.len()),
                    ));
                }
                let resolved = budget.read_opt::<u8>(&g, "resolved", &format!("{base}/resolved"))?;
                Some(SMatrixInfo {
                    ports: names,
                    s: s.chunks_exact(2).map(|c| [c[0], c[1]]).collect(),
                    resolved: match resolved.len() == nf {
                        true => resolved.iter().map(|&x| x != 0).collect(),
                        false => Vec::new(),
                    },
                    frequency,
                })
            }
        };
        Ok(ResultFile {
            s_matrix,
            path,
            file,
            budget,
            run,
            probes,
            snapshots,
            ports,
            farfields,
            cross_sections,
            other_groups,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, what: String) -> impl FnOnce(hdf5::Error) -> ReadError + '_ {
        move |source| ReadError::Hdf5 {
            path: self.path.clone(),
            what,
            source,
        }
    }

    fn missing(&self, what: &'static str, name: &str, have: Vec<&str>) -> ReadError {
        ReadError::Missing {
            path: self.path.clone(),
            what,
            name: name.to_string(),
            have: if have.is_empty() {
                "none".into()
            } else {
                have.join(", ")
            },
        }
    }

    /// A probe by name.
    pub fn probe(&self, name: &str) -> Result<&ProbeInfo, ReadError> {
        self.probes
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| self.missing("probe", name, self.probes.iter().map(|p| p.name.as_str()).collect()))
    }

    /// A snapshot by name.
    pub fn snapshot(&self, name: &str) -> Result<&SnapshotInfo, ReadError> {
        self.snapshots.iter().find(|s| s.name == name).ok_or_else(|| {
            self.missing(
                "snapshot",
                name,
                self.snapshots.iter().map(|s| s.name.as_str()).collect(),
            )
        })
    }

    /// One probe component's series: (times in s, values). The two have the same length
    /// (the shorter wins if a run stopped between the two writes).
    pub fn probe_series(&self, probe: &str, component: &str) -> Result<(Vec<f64>, Vec<f32>), ReadError> {
        let _deadline = deadline::Guard::new(&self.path, format!("probe {probe}/{component}"));
        let p = self.probe(probe)?;
        let c = p.components.iter().find(|c| c.name == component).ok_or_else(|| {
            self.missing(
                "probe component",
                &format!("{probe}/{component}"),
                p.components.iter().map(|c| c.name.as_str()).collect(),
            )
        })?;
        let base = format!("probes/{probe}");
        let vname = format!("{base}/{component}");
        let tname = format!("{base}/{}", c.time);
        let values: Vec<f32> = self.read(&vname)?;
        let times: Vec<f64> = self.read(&tname)?;
        let n = values.len().min(times.len());
        Ok((times[..n].to_vec(), values[..n].to_vec()))
    }

    /// The E times (s) of a snapshot's frames.
    pub fn snapshot_times(&self, snap: &str) -> Result<Vec<f64>, ReadError> {
        let _deadline = deadline::Guard::new(&self.path, format!("the times of snapshot {snap}"));
        self.snapshot(snap)?;
        self.read(&format!("snapshots/{snap}/time"))
    }

    /// A whole dataset by path, within the read budget.
    fn read<T: H5Type>(&self, name: &str) -> Result<Vec<T>, ReadError> {
        let ds = self.file.dataset(name).map_err(self.err(format!("opening /{name}")))?;
        self.budget.read(&ds, &format!("/{name}"))
    }

    /// One frame of a snapshot component, C order over its `shape`.
    pub fn snapshot_frame(&self, snap: &str, component: &str, frame: usize) -> Result<Vec<f32>, ReadError> {
        let _deadline = deadline::Guard::new(&self.path, format!("snapshot {snap}/{component} frame {frame}"));
        let s = self.snapshot(snap)?;
        let c = s.components.iter().find(|c| c.name == component).ok_or_else(|| {
            self.missing(
                "snapshot component",
                &format!("{snap}/{component}"),
                s.components.iter().map(|c| c.name.as_str()).collect(),
            )
        })?;
        let name = format!("snapshots/{snap}/{component}");
        if frame >= c.frames {
            return Err(ReadError::Missing {
                path: self.path.clone(),
                what: "frame",
                name: format!("/{name}[{frame}]"),
                have: format!("{} frames", c.frames),
            });
        }
        let [a, b, cc] = c.shape;
        let ds = self.file.dataset(&name).map_err(self.err(format!("opening /{name}")))?;
        self.budget
            .charge(&ds, &format!("/{name} frame {frame}"), elems(&c.shape), 4)?;
        let arr = ds
            .read_slice::<f32, _, ndarray::Ix4>((frame..frame + 1, 0..a, 0..b, 0..cc))
            .map_err(self.err(format!("reading /{name} frame {frame}")))?;
        Ok(arr.iter().copied().collect())
    }

    /// A far field by name.
    pub fn farfield(&self, name: &str) -> Result<&FarFieldInfo, ReadError> {
        self.farfields.iter().find(|f| f.name == name).ok_or_else(|| {
            self.missing(
                "far field",
                name,
                self.farfields.iter().map(|f| f.name.as_str()).collect(),
            )
        })
    }

    /// One far-field pattern (`directivity_dBi`, `gain_dBi` or `realized_gain_dBi`) at
    /// the far field's `freq_index`-th frequency: values in dBi, `[theta][phi]` flat.
    pub fn farfield_pattern(&self, name: &str, quantity: &str, freq_index: usize) -> Result<Vec<f64>, ReadError> {
        let _deadline = deadline::Guard::new(&self.path, format!("far field {name}/{quantity}"));
        let f = self.farfield(name)?;
        if !f.patterns.iter().any(|p| p == quantity) {
            return Err(self.missing(
                "far-field pattern",
                &format!("{name}/{quantity}"),
                f.patterns.iter().map(|p| p.as_str()).collect(),
            ));
        }
        if freq_index >= f.freq.len() {
            return Err(ReadError::Missing {
                path: self.path.clone(),
                what: "frequency",
                name: format!("/farfield/{name}/{quantity}[{freq_index}]"),
                have: format!("{} frequencies", f.freq.len()),
            });
        }
        let ds = format!("farfield/{name}/{quantity}");
        let (nt, np) = (f.theta.len(), f.phi.len());
        let d = self.file.dataset(&ds).map_err(self.err(format!("opening /{ds}")))?;
        let want = [f.freq.len(), nt, np];
        if d.shape() != want {
            return Err(self.budget.invalid(
                &format!("/{ds}"),
                format!("has shape {:?}, expected {want:?} (frequency × θ × φ)", d.shape()),
            ));
        }
        self.budget
            .charge(&d, &format!("/{ds} frequency {freq_index}"), elems(&want[1..]), 8)?;
        let arr = d
            .read_slice::<f64, _, ndarray::Ix3>((freq_index..freq_index + 1, 0..nt, 0..np))
            .map_err(self.err(format!("reading /{ds} frequency {freq_index}")))?;
        Ok(arr.iter().copied().collect())
    }
}

/// A deadline on each read of a result file, for programs that read untrusted files
/// (`fdtd info`, `fdtd plot`). libhdf5 1.10 (as Debian and Ubuntu ship it) can loop for
/// ever inside one call on some damaged files: the `result_file` fuzz target found a
/// mutated file on which reading a string attribute spins in `H5HG_read` (the global
/// heap). No error comes back and a call into C cannot be cancelled, so when
/// [`deadline::watch`] was called, a read that has not returned within the limit ends the
/// process with a message naming the file (exit 2, as for any damaged file). Without it
/// (library users, the fuzz targets) reads have no deadline.
pub mod deadline {
    use std::path::Path;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Mutex, OnceLock};
    use std::time::{Duration, Instant};

    /// Environment variable: the deadline in seconds instead of the caller's default.
    pub const ENV: &str = "FDTD_READ_TIMEOUT";
    /// Exit status of a process whose read ran past the deadline.
    pub const EXIT: i32 = 2;

    static LIMIT: OnceLock<Duration> = OnceLock::new();
    static DEPTH: AtomicUsize = AtomicUsize::new(0);
    /// When the outermost read in progress began, and what it reads.
    static ACTIVE: Mutex<Option<(Instant, String)>> = Mutex::new(None);

    fn active() -> std::sync::MutexGuard<'static, Option<(Instant, String)>> {
        ACTIVE.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Give every read of a result file from now on `default` (or [`ENV`] seconds) to
    /// return; a watcher thread ends the process past it. Once per process.
    pub fn watch(default: Duration) {
        let limit = std::env::var(ENV)
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(|s| Duration::from_secs_f64(s.min(1e6)))
            .unwrap_or(default);
        if LIMIT.set(limit).is_err() {
            return;
        }
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(50).min(limit / 4));
            if let Some((since, what)) = active().as_ref() {
                if since.elapsed() > limit {
                    eprintln!(
                        "error: {what}: the HDF5 library did not return within {} s; the file is damaged in a way \
                         that makes libhdf5 loop (no error comes back), so fdtd stops here",
                        crate::read::secs(limit)
                    );
                    std::process::exit(EXIT);
                }
            }
        });
    }

    /// A read in progress (the outermost one is timed).
    pub struct Guard {
        counted: bool,
    }

    impl Guard {
        pub fn new(path: &Path, what: impl std::fmt::Display) -> Guard {
            let counted = LIMIT.get().is_some();
            if counted && DEPTH.fetch_add(1, Ordering::SeqCst) == 0 {
                *active() = Some((Instant::now(), format!("{}: reading {what}", path.display())));
            }
            Guard { counted }
        }
    }

    impl Drop for Guard {
        fn drop(&mut self) {
            if self.counted && DEPTH.fetch_sub(1, Ordering::SeqCst) == 1 {
                *active() = None;
            }
        }
    }
}

/// A duration in seconds with few digits.
fn secs(d: std::time::Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 10.0 {
        format!("{s:.0}")
    } else {
        format!("{s:.1}")
    }
}

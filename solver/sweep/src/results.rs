//! Reading a variant's output file (the HDF5 that `fdtd run` writes, see
//! `docs/output-format.md`): its run status, the run's attributes, its probe series, and
//! whatever numeric attributes the port and far-field groups hold, when the file has
//! them.
use hdf5::types::VarLenUnicode;
use hdf5::{File, Location};
use std::path::Path;

/// Groups whose subgroups' numeric attributes become summary columns
/// (`<group>_<name>_<attribute>`), so results of passes such as lumped ports and far
/// fields join the summary when the outputs hold them.
pub const RESULT_GROUPS: [&str; 3] = ["ports", "farfield", "far_field"];

/// Whether a variant's output is usable.
#[derive(Clone, Debug, PartialEq)]
pub enum Completion {
    Missing,
    Unreadable(String),
    /// `running`, `interrupted` or `failed`.
    Status(String),
    /// Complete, but of another scene than the variant's (the sweep changed).
    OtherScene,
    Complete,
}

fn read_str(loc: &Location, name: &str) -> Option<String> {
    loc.attr(name)
        .and_then(|a| a.read_scalar::<VarLenUnicode>())
        .ok()
        .map(|s| s.as_str().to_string())
}

fn read_f64(loc: &Location, name: &str) -> Option<f64> {
    let a = loc.attr(name).ok()?;
    if !a.is_scalar() {
        return None;
    }
    a.read_scalar::<f64>()
        .ok()
        .or_else(|| a.read_scalar::<u64>().ok().map(|x| x as f64))
        .or_else(|| a.read_scalar::<i64>().ok().map(|x| x as f64))
}

/// The run status of `path`; with `scene`, a complete file must hold exactly that
/// scene text.
pub fn completion(path: &Path, scene: Option<&str>) -> Completion {
    if crate::fsafe::is_link(path) {
        return Completion::Unreadable("a symbolic link (fdtd sweep never makes one)".into());
    }
    if !path.exists() {
        return Completion::Missing;
    }
    hdf5::silence_errors(true);
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) => return Completion::Unreadable(e.to_string()),
    };
    let root: &Location = &file;
    match read_str(root, "status") {
        None => Completion::Unreadable("no status attribute (not an fdtd output?)".into()),
        Some(s) if s != "complete" => Completion::Status(s),
        Some(_) => match scene {
            Some(text) if read_str(root, "scene").as_deref() != Some(text) => Completion::OtherScene,
            _ => Completion::Complete,
        },
    }
}

/// One probe component's series.
#[derive(Clone, Debug)]
pub struct Series {
    pub probe: String,
    /// `Ex` .. `Hz`.
    pub component: String,
    pub values: Vec<f32>,
    /// Its sample times (s): `time` for E, `time_h` for H.
    pub times: Vec<f64>,
}

impl Series {
    pub fn max_abs(&self) -> f64 {
        self.values.iter().fold(0.0f64, |m, &v| m.max((v as f64).abs()))
    }
}

/// What `collect` needs from one output.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub backend: String,
    pub device: String,
    pub steps_done: u64,
    pub dt: f64,
    pub d: [f64; 3],
    /// The scene text the run used.
    pub scene: String,
    pub series: Vec<Series>,
    /// `(column, value)` from [`RESULT_GROUPS`].
    pub extra: Vec<(String, f64)>,
    /// Why the run ended (`end_reason`: `decayed`, `max_steps`, `stopped`; empty when
    /// the file does not say).
    pub end_reason: String,
    /// The port and far-field figures ([`crate::port_columns`]), and what could not be
    /// read for them.
    pub port_columns: Vec<(String, f64)>,
    pub port_notes: Vec<String>,
}

impl RunResult {
    pub fn series(&self, probe: &str, component: &str) -> Option<&Series> {
        self.series
            .iter()
            .find(|s| s.probe == probe && s.component == component)
    }
    /// The probe's only component of the given kind (`E` or `H`).
    pub fn single(&self, probe: &str, electric: bool) -> Result<&Series, String> {
        let found: Vec<&Series> = self
            .series
            .iter()
            .filter(|s| s.probe == probe && s.component.starts_with(if electric { 'E' } else { 'H' }))
            .collect();
        match found.as_slice() {
            [one] => Ok(one),
            [] => Err(format!(
                "probe {probe:?} has no {} component in the output",
                if electric { "E" } else { "H" }
            )),
            _ => Err(format!(
                "probe {probe:?} has several {} components; record one",
                if electric { "E" } else { "H" }
            )),
        }
    }
}

/// Read the run attributes, probes and result groups of `path`.
pub fn read(path: &Path) -> Result<RunResult, String> {
    if crate::fsafe::is_link(path) {
        return Err("a symbolic link (fdtd sweep never makes one)".into());
    }
    hdf5::silence_errors(true);
    let file = File::open(path).map_err(|e| format!("opening: {e}"))?;
    let root: &Location = &file;
    let num = |n: &str| read_f64(root, n).ok_or_else(|| format!("no numeric attribute {n:?}"));
    let mut series = Vec::new();
    if let Ok(probes) = file.group("probes") {
        let mut names = probes.member_names().map_err(|e| format!("listing /probes: {e}"))?;
        names.sort();
        for name in names {
            let g = probes.group(&name).map_err(|e| format!("/probes/{name}: {e}"))?;
            let read_times = |t: &str| g.dataset(t).and_then(|d| d.read_raw::<f64>()).ok();
            let (te, th) = (read_times("time"), read_times("time_h"));
            for comp in ["Ex", "Ey", "Ez", "Hx", "Hy", "Hz"] {
                if !g.link_exists(comp) {
                    continue;
                }
                let values = g
                    .dataset(comp)
                    .and_then(|d| d.read_raw::<f32>())
                    .map_err(|e| format!("/probes/{name}/{comp}: {e}"))?;
                let times = if comp.starts_with('E') { te.clone() } else { th.clone() }
                    .ok_or_else(|| format!("/probes/{name}: no time dataset"))?;
                series.push(Series {
                    probe: name.clone(),
                    component: comp.into(),
                    values,
                    times,
                });
            }
        }
    }
    let mut extra = Vec::new();
    for group in RESULT_GROUPS {
        let Ok(g) = file.group(group) else { continue };
        let mut names = g.member_names().unwrap_or_default();
        names.sort();
        for name in names {
            let Ok(sub) = g.group(&name) else { continue };
            let loc: &Location = &sub;
            let mut attrs = loc.attr_names().unwrap_or_default();
            attrs.sort();
            for a in attrs {
                if let Some(x) = read_f64(loc, &a) {
                    extra.push((format!("{group}_{name}_{a}"), x));
                }
            }
        }
    }
    let (port_columns, port_notes) = crate::port_columns::read(&file);
    Ok(RunResult {
        end_reason: read_str(root, "end_reason").unwrap_or_default(),
        port_columns,
        port_notes,
        backend: read_str(root, "backend").unwrap_or_default(),
        device: read_str(root, "device").unwrap_or_default(),
        steps_done: num("steps_done")? as u64,
        dt: num("dt")?,
        d: [num("dx")?, num("dy")?, num("dz")?],
        scene: read_str(root, "scene").unwrap_or_default(),
        series,
        extra,
    })
}

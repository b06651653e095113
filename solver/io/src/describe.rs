//! Attributes that make a result file describe itself: the device by name, why the backend
//! was chosen, the wall time, and where every source, probe and snapshot really is on the
//! grid (snapped indices and exact positions, first step and interval), so a script needs
//! neither the scene parser nor `fdtd check` to interpret the datasets.
use fdtd_core::model::Model;
use fdtd_core::scene::SourceKind;
use hdf5::types::VarLenUnicode;
use hdf5::{File, H5Type, Location};

fn vlu(s: &str) -> VarLenUnicode {
    s.replace('\0', "\u{fffd}").parse().expect("no NUL left")
}

/// Create or overwrite a scalar attribute.
fn set<T: H5Type>(loc: &Location, name: &str, v: T) -> hdf5::Result<()> {
    match loc.attr(name) {
        Ok(a) => a.write_scalar(&v),
        Err(_) => loc.new_attr::<T>().shape(()).create(name)?.write_scalar(&v),
    }
}

fn set_str(loc: &Location, name: &str, v: &str) -> hdf5::Result<()> {
    set(loc, name, vlu(v))
}

/// Create or overwrite a 1-D array attribute.
fn set_arr<T: H5Type>(loc: &Location, name: &str, v: &[T]) -> hdf5::Result<()> {
    if loc.attr(name).is_ok() {
        loc.delete_attr(name)?;
    }
    loc.new_attr_builder().with_data(v).create(name).map(|_| ())
}

/// A backend's description line split into what the file records separately.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendLine {
    /// `cpu` or `gpu`.
    pub backend: String,
    /// The device by name: the adapter's name, or `CPU (N threads)`.
    pub device: String,
    /// The whole [`fdtd_core::backend::Backend::describe`] line.
    pub detail: String,
    /// Why `auto` chose it, when it did.
    pub selection: Option<String>,
}

/// Type words that end the adapter's name in the GPU backend's description
/// (`gpu (wgpu Vulkan: NAME, KIND...)`). The name itself may hold commas (llvmpipe's does).
const GPU_KINDS: [&str; 6] = [
    ", software device",
    ", discrete GPU",
    ", integrated GPU",
    ", virtual GPU",
    ", software (CPU) device",
    ", other device",
];

impl BackendLine {
    /// Split `line`: `{Backend::describe()}` optionally followed by ` (auto: WHY)`.
    pub fn parse(line: &str) -> BackendLine {
        let (detail, selection) = match line.find(" (auto: ") {
            Some(i) => {
                let why = line[i + " (auto: ".len()..].strip_suffix(')').unwrap_or(&line[i + 8..]);
                (&line[..i], Some(why.to_string()))
            }
            None => (line, None),
        };
        let backend = detail.split_whitespace().next().unwrap_or("").to_string();
        let inner = detail
            .split_once('(')
            .map(|(_, r)| r.strip_suffix(')').unwrap_or(r))
            .unwrap_or("");
        let device = match backend.as_str() {
            "gpu" => {
                let name = inner.split_once(": ").map(|(_, n)| n).unwrap_or(inner);
                let end = GPU_KINDS
                    .iter()
                    .filter_map(|k| name.find(k))
                    .min()
                    .unwrap_or(name.len());
                name[..end].trim().to_string()
            }
            "cpu" => match inner
                .split(", ")
                .find(|p| p.ends_with("threads") || p.ends_with("thread"))
            {
                Some(t) => format!("CPU ({t})"),
                None => "CPU".into(),
            },
            _ => detail.to_string(),
        };
        BackendLine {
            backend,
            device,
            detail: detail.to_string(),
            selection,
        }
    }
}

/// Root attributes `backend`, `device` (a name), `device_detail` (the whole line) and
/// `backend_selection` (why `auto` chose it; removed when it did not).
pub(crate) fn write_backend(root: &Location, line: &str) -> hdf5::Result<()> {
    let b = BackendLine::parse(line);
    set_str(root, "backend", &b.backend)?;
    set_str(root, "device", &b.device)?;
    set_str(root, "device_detail", &b.detail)?;
    match &b.selection {
        Some(s) => set_str(root, "backend_selection", s),
        None if root.attr("backend_selection").is_ok() => root.delete_attr("backend_selection"),
        None => Ok(()),
    }
}

/// `/sources/<name>` groups and the first-step attributes of probes and snapshots
/// (the probe and snapshot groups must exist). A sample is taken after every step `n`
/// (0-based) with `(n + 1) % every == 0`, so the first after step `every − 1`.
pub(crate) fn write_points(file: &File, model: &Model) -> hdf5::Result<()> {
    let g = &model.grid;
    let sg = match file.group("sources") {
        Ok(s) => s,
        Err(_) => file.create_group("sources")?,
    };
    for s in model.sources.iter().filter(|s| !s.line) {
        let grp = match sg.group(&s.name) {
            Ok(x) => x,
            Err(_) => sg.create_group(&s.name)?,
        };
        set_str(&grp, "component", s.component.name())?;
        let kind = match s.kind {
            SourceKind::Current => "current",
            SourceKind::Hard => "hard",
        };
        set_str(&grp, "type", kind)?;
        set_arr(&grp, "index", &s.index.map(|x| x as u64))?;
        set_arr(&grp, "position", &s.component.position(s.index, g.d))?;
        set(&grp, "max_frequency", s.waveform.max_frequency())?;
        set_str(&grp, "waveform", &format!("{:?}", s.waveform))?;
    }
    for w in &model.plane_waves {
        let grp = match sg.group(&w.name) {
            Ok(x) => x,
            Err(_) => sg.create_group(&w.name)?,
        };
        set_str(&grp, "type", "plane_wave")?;
        set_arr(&grp, "direction_m", &w.m.map(|x| x as f64))?;
        set_arr(&grp, "k", &w.k)?;
        set_arr(&grp, "e", &w.e)?;
        set(&grp, "theta", w.theta)?;
        set(&grp, "phi", w.phi)?;
        set(&grp, "polarization", w.polarization)?;
        set_arr(&grp, "box_min", &[0, 1, 2].map(|a| w.nodes[a][0] as f64 * g.d[a]))?;
        set_arr(&grp, "box_max", &[0, 1, 2].map(|a| w.nodes[a][1] as f64 * g.d[a]))?;
        if let Some(s) = model.sources.get(w.drive) {
            // The drive's first sample runs ahead of r₀: the scene's waveform, undelayed.
            set(&grp, "max_frequency", s.waveform.max_frequency())?;
        }
    }
    for p in &model.probes {
        if let Ok(grp) = file.group(&format!("probes/{}", p.name)) {
            set(&grp, "first_step", (p.every - 1) as u64)?;
        }
    }
    for s in &model.snapshots {
        if let Ok(grp) = file.group(&format!("snapshots/{}", s.name)) {
            set(&grp, "first_step", (s.every - 1) as u64)?;
            set(&grp, "first_time", s.every as f64 * g.dt)?;
            set_arr(&grp, "position_lo", &[0, 1, 2].map(|a| s.lo[a] as f64 * g.d[a]))?;
            set_arr(&grp, "position_hi", &[0, 1, 2].map(|a| (s.hi[a] - 1) as f64 * g.d[a]))?;
            let comps: Vec<&str> = s.components.iter().map(|c| c.name()).collect();
            set_str(&grp, "components", &comps.join(","))?;
        }
    }
    Ok(())
}

/// Root attribute `wall_seconds`: the wall time this file's run has taken so far (added
/// up over resumes).
pub(crate) fn add_wall_time(root: &Location, seconds: f64) -> hdf5::Result<()> {
    let before = root
        .attr("wall_seconds")
        .and_then(|a| a.read_scalar::<f64>())
        .unwrap_or(0.0);
    set(root, "wall_seconds", before + seconds)
}

#[cfg(test)]
mod tests {
    use super::BackendLine;

    #[test]
    fn backend_lines_split_into_name_and_reason() {
        let c = BackendLine::parse("cpu (rayon, 2 threads) (auto: no GPU adapter found)");
        assert_eq!(c.backend, "cpu");
        assert_eq!(c.device, "CPU (2 threads)");
        assert_eq!(c.detail, "cpu (rayon, 2 threads)");
        assert_eq!(c.selection.as_deref(), Some("no GPU adapter found"));

        let g = BackendLine::parse("gpu (wgpu Vulkan: NVIDIA H200, discrete GPU; grid in 2 x slabs)");
        assert_eq!(g.backend, "gpu");
        assert_eq!(g.device, "NVIDIA H200");
        assert_eq!(g.selection, None);

        let s = BackendLine::parse("gpu (wgpu Vulkan: llvmpipe (LLVM 15.0.6, 256 bits), software device, slow)");
        assert_eq!(s.device, "llvmpipe (LLVM 15.0.6, 256 bits)");
    }
}

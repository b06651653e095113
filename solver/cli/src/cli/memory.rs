//! Host-memory plan of a CPU run, and the check against available RAM.
use super::fmt::{lengths, si};
use fdtd::model::Model;
use fdtd::plan::{human_bytes, Plan};
use fdtd::scene::Scene;
use std::path::{Path, PathBuf};

/// Share of the available RAM a suggestion aims for (headroom for the OS and output).
const HEADROOM: f64 = 0.9;

/// The CPU backend's buffers plus the run's staging: probe samples of one chunk and
/// the largest snapshot frame (read from the backend, then deflated by HDF5).
pub fn cpu_plan(model: &Model, chunk: usize) -> Plan {
    // The CPU backend keeps the model's u16 material indices.
    let mut p = Plan::common(model, 2);
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
/// model's six u16 material indices per sample, plus six f32 field components on the CPU.
pub fn lower_bound(scene: &Scene, cpu: bool) -> u64 {
    let n = scene.domain.cells.iter().map(|&c| c as u64 + 1).product::<u64>();
    let per_sample = 6 * 2 + if cpu { 6 * 4 } else { 0 };
    n.saturating_mul(per_sample)
}

/// Why a plan does not fit, with what would: `needs 30.2 GiB, 21.0 GiB available; ...`.
pub fn does_not_fit(cells: [usize; 3], d: [f64; 3], need: u64, available: u64) -> String {
    let cells = cells.iter().map(|&c| c as f64).product::<f64>().max(1.0);
    let per_cell = need as f64 / cells;
    let fit_cells = (available as f64 * HEADROOM / per_cell).max(1.0);
    let scale = (cells / fit_cells).cbrt();
    let coarser = d.map(|d| d * scale);
    let n = fit_cells.cbrt().floor() as u64;
    format!(
        "needs {}, {} available; cells of {} (instead of {}) or a grid of about {n}³ cells would fit, \
         or use another backend (--backend gpu)",
        human_bytes(need),
        human_bytes(available),
        lengths(coarser.map(round_up_3)),
        lengths(d),
    )
}

/// Round a length up to 3 significant digits (a suggested cell must not be too fine).
fn round_up_3(x: f64) -> f64 {
    let mag = 10f64.powi(x.abs().log10().floor() as i32 - 2);
    (x / mag - 1e-9).ceil() * mag
}

/// One line: `fits: 1.20 GiB of 21.0 GiB available RAM`.
pub fn verdict(need: u64, available: Option<u64>) -> (bool, String) {
    match available {
        Some(a) if need <= a => (
            true,
            format!("fits: {} of {} available RAM", human_bytes(need), human_bytes(a)),
        ),
        Some(a) => (
            false,
            format!(
                "does NOT fit: {} needed, {} available RAM",
                human_bytes(need),
                human_bytes(a)
            ),
        ),
        None => (
            true,
            format!(
                "{} needed; available RAM unknown on this OS (not checked)",
                human_bytes(need)
            ),
        ),
    }
}

/// An upper bound of the bytes the output file grows by while steps `from..steps` run:
/// probe values and times and snapshot frames, uncompressed, plus HDF5's overhead.
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

/// Free bytes for an unprivileged writer on the file system holding `dir`.
#[cfg(unix)]
pub fn free_space(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: `c` is a valid NUL-terminated path and `st` a plain struct statvfs fills.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::statvfs(c.as_ptr(), &mut st) };
    (r == 0).then(|| (st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

#[cfg(not(unix))]
pub fn free_space(_dir: &Path) -> Option<u64> {
    None
}

/// The file system (device id) of `dir`, to add up needs on the same one.
#[cfg(unix)]
pub fn device_of(dir: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(dir).ok().map(|m| m.dev())
}

#[cfg(not(unix))]
pub fn device_of(_dir: &Path) -> Option<u64> {
    None
}

/// The directory a file goes to (`.` for a bare name).
pub fn dir_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// For messages: a frequency with its unit.
pub fn hz(f: f64) -> String {
    si(f, "Hz")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_up() {
        assert!((round_up_3(1.2341e-3) - 1.24e-3).abs() < 1e-15);
        assert!((round_up_3(1e-3) - 1e-3).abs() < 1e-15);
    }
}

//! Host resources a run needs, checked before anything large is allocated: RAM (the
//! grid's lower bound before discretising, the CPU plan before the backend allocates)
//! and disk space (the output and the checkpoints).
use super::probe_layout::{probe_bytes, probe_tables, series_chunk, table_chunk, ProbeLayout};
use crate::fmt::lengths;
use crate::model::Model;
use crate::plan::{human_bytes, Plan};
use crate::scene::Scene;
use crate::simulation::Simulation;
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
    let staging = probe_staging(model, chunk);
    if staging > 0 {
        p.add("probe staging (the samples due in one chunk)", staging);
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

/// Bytes of the probe samples one chunk of `chunk` steps hands to the output: per
/// probe component, the samples due in the chunk (at most `chunk / every + 1`, and no
/// more than the run records: a probe whose `every` exceeds the run records nothing), as
/// f32 values plus f64 times. Both backends hand over only due samples (the GPU's
/// device-side stream slots are in its own plan).
pub fn probe_staging(model: &Model, chunk: usize) -> u64 {
    let chunk = chunk.clamp(1, model.grid.steps.max(1));
    model
        .probes
        .iter()
        .map(|p| {
            let every = p.every.max(1);
            let due = (chunk / every + 1).min(model.grid.steps / every) as u64;
            due * p.samples.len() as u64 * 12
        })
        .sum()
}

/// The least resident memory a run has besides its planned buffers (the binary, libhdf5,
/// thread stacks, allocator slack): the peak RSS of a tiny CPU run is 17 MiB (2-core
/// x86-64, Debian 12). What is really resident when the plan is made (a GPU driver
/// probed or opened adds 60-120 MiB) is measured instead where the OS says
/// ([`runtime_now`]).
pub const RUNTIME_MIN: u64 = 24 << 20;

/// The process's resident memory besides `model`'s arrays, now (at least [`RUNTIME_MIN`]):
/// the runtime term of [`host_plan`], measured, since the model is allocated and
/// touched by the time a plan is made and the libraries loaded so far are resident.
pub fn runtime_now(model: &Model) -> u64 {
    let rss = current_rss().unwrap_or(0);
    rss.saturating_sub(model_bytes(model)).max(RUNTIME_MIN)
}

/// Bytes of the model's own arrays (material indices, row flags, coefficient tables).
pub fn model_bytes(model: &Model) -> u64 {
    let n = model.grid.len() as u64;
    6 * 2 * n + 6 * 4 * model.row_count() as u64 + (model.coefs.e.len() * 8 + model.coefs.h.len() * 4) as u64
}

/// HDF5's raw-data chunk cache per open dataset (its default, 1 MiB), used by a
/// dataset only up to its chunk size.
const HDF5_CHUNK_CACHE: u64 = 1 << 20;
/// HDF5 metadata held per open dataset (object header, chunk index, attributes, the
/// handle): measured 37 KB of peak RSS per dataset of per-probe groups (256 probes of 6
/// components, 10 steps; 2-core x86-64, HDF5 1.8 object formats). Probe tables keep a
/// handful of datasets open however many probes they hold.
const HDF5_PER_DATASET: u64 = 40 << 10;

/// Where the solver state lives during a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateIn {
    /// In RAM: the CPU backend's plan (fields, ψ, the model's indices it uses).
    Ram,
    /// On a device: the host keeps the model (material indices, row flags); `in_ram`
    /// is the device plan when the device's memory is this host's RAM (a software
    /// device such as lavapipe), else 0.
    Device { in_ram: u64 },
}

/// The host memory of a run: the backend's buffers when they are in RAM (`backend`,
/// the CPU engine's plan) or the model's host arrays when the state is on a device,
/// plus the run's staging ([`with_staging`]), the output library's caches, a copy of
/// the whole solver state when one is made (`state_copy`: a checkpoint is written, or
/// read on resume) and `runtime` ([`runtime_now`]). A run's peak RSS is held to it.
pub fn host_plan(
    model: &Simulation,
    state: StateIn,
    backend: Option<Plan>,
    device_host: &[crate::plan::Buffer],
    chunk: usize,
    state_copy: bool,
    runtime: u64,
) -> Plan {
    let n = model.grid.len() as u64;
    let p = match (state, backend) {
        (StateIn::Ram, Some(plan)) => plan,
        _ => {
            let mut p = Plan::default();
            p.add("model: material indices (6 components; u16)", 6 * 2 * n);
            p.add(
                "model: uniform-row flags and coefficient tables",
                model_bytes(model) - 6 * 2 * n,
            );
            if let StateIn::Device { in_ram } = state {
                if in_ram > 0 {
                    p.add("software device's buffers (in RAM)", in_ram);
                }
            }
            p
        }
    };
    let mut p = with_staging(p, model, chunk);
    for b in device_host {
        p.add(format!("device: {}", b.name), b.bytes);
    }
    let layout = ProbeLayout::of(model);
    let probe_datasets: u64 = match layout {
        ProbeLayout::Groups => model.probes.iter().map(|pr| pr.samples.len() as u64 + 2).sum(),
        ProbeLayout::Table => 0,
    };
    let snap_datasets: u64 = model.snapshots.iter().map(|s| s.components.len() as u64).sum();
    if probe_datasets + snap_datasets > 0 {
        p.add(
            "output: HDF5 chunk caches and metadata",
            probe_datasets * (HDF5_PER_DATASET + probe_chunk_bytes(model))
                + snap_datasets * (HDF5_PER_DATASET + HDF5_CHUNK_CACHE),
        );
    }
    if layout == ProbeLayout::Table {
        p.add(
            "output: probe tables (one chunk buffered, caches, metadata)",
            probe_table_memory(model, chunk),
        );
    }
    if state_copy {
        let floats: u64 = model.schedule.state.iter().map(|a| a.len() as u64).sum();
        p.add("checkpoint copy of the solver state (f32)", 4 * floats);
    }
    if model.drive_each && model.ports.len() > 1 {
        // Each later drive discretises its own model while drive 1's is kept for the
        // results (its backend is dropped first: the backend's own share is not doubled).
        p.add(
            "other drives: the model of the drive that runs (material indices, tables)",
            model_bytes(model),
        );
    }
    let results = results_cost(model).host;
    if results > 0 {
        p.add(
            "end of run: port transforms, Touchstone/CSV text, monitor fields, far-field grids",
            results,
        );
    }
    p.add("runtime (binary, libraries, drivers; measured)", runtime);
    p
}

/// What the end of a run costs after the last step: the ports' transforms and
/// S-parameters, the Touchstone and CSV texts, the monitors' fields read back and
/// converted, and the far-field grids (every direction at every frequency).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResultsCost {
    /// Host memory on top of the stepping's (the backend is still allocated then).
    pub host: u64,
    /// Bytes added to the output file and written beside it.
    pub disk: u64,
    /// Of `disk`, the Touchstone and CSV files beside the output.
    pub text: u64,
}

/// An upper bound of [`ResultsCost`] for a run of `model`.
pub fn results_cost(model: &Model) -> ResultsCost {
    let n = model.ports.len() as u64;
    let nf = model.frequencies.len() as u64;
    let steps = model.grid.steps as u64;
    let mut c = ResultsCost::default();
    // Monitors: every recorded sample at every frequency, read back as f32 re/im,
    // turned into f64 complex values, normalised, written as f64 re and im.
    let mut monitor_freqs = 0u64;
    for m in &model.monitors {
        let values = (m.records() as u64).saturating_mul(m.freqs.len() as u64);
        c.host = c.host.saturating_add(values.saturating_mul(40));
        c.disk = c
            .disk
            .saturating_add(values.saturating_mul(16).saturating_add(16 << 10));
        monitor_freqs = monitor_freqs.max(m.freqs.len() as u64);
        if let crate::monitors::Kind::FarField {
            theta_step, phi_step, ..
        } = &m.kind
        {
            let dirs = (crate::farfield::grid(*theta_step, 180.0).len() as u64)
                .saturating_mul(crate::farfield::grid(*phi_step, 360.0).len() as u64);
            let grids = dirs.saturating_mul(m.freqs.len() as u64);
            // E_theta, E_phi, E_co, E_cross (complex), intensity, directivity and its co
            // and cross parts, gain, realized gain, axial ratio; stored as f64 with the
            // angles. The CSV companion: one line of ~16 numbers per direction and
            // frequency, built in memory (a text grows by doubling: twice its size).
            const CSV_LINE: u64 = 16 * 18;
            c.host = c
                .host
                .saturating_add(grids.saturating_mul(64 + 32 + 64 + 48))
                .saturating_add(grids.saturating_mul(2 * CSV_LINE));
            c.disk = c.disk.saturating_add(
                grids
                    .saturating_mul(96 + 80 + CSV_LINE)
                    .saturating_add(4096 * m.freqs.len() as u64),
            );
        }
    }
    if n > 0 {
        // The complete V and I series read back, the transforms at the model's and the
        // monitors' frequencies, and their copies while written.
        let freqs = nf + monitor_freqs;
        c.host = c
            .host
            .saturating_add((model.port_pairs() as u64).saturating_mul(steps.saturating_mul(16)))
            .saturating_add(n.saturating_mul(freqs.saturating_mul(220)));
        c.disk = c
            .disk
            .saturating_add(n.saturating_mul(nf.saturating_mul(96).saturating_add(32 << 10)));
        // Touchstone: N × N entries per frequency (" NaN NaN" for the columns one run
        // cannot know, two numbers of up to 17 characters for the driven column), one
        // line per matrix row; CSV: seven numbers per port per frequency. Names in the
        // headers. A text grows by doubling: twice its size in memory.
        let names: u64 = model.ports.iter().map(|p| p.name.len() as u64 + 16).sum();
        let touchstone = nf.saturating_mul(n.saturating_mul(n).saturating_mul(8).saturating_add(n * 36 + 24));
        let csv = nf.saturating_mul(n * 7 * 18 + 18);
        let text = touchstone
            .saturating_add(csv)
            .saturating_add(names.saturating_mul(8))
            .saturating_add(4096);
        c.text = text;
        c.disk = c.disk.saturating_add(text);
        c.host = c.host.saturating_add(text.saturating_mul(2));
        if model.drive_each {
            // The full S-matrix: /s_matrix (S re, im and S_dB: 24 bytes per entry) on the
            // disk; in memory the other drives' port results (as above, per drive) and
            // their V and I series (one drive at a time), and the matrix.
            let entries = n.saturating_mul(n).saturating_mul(nf);
            c.disk = c
                .disk
                .saturating_add(entries.saturating_mul(24).saturating_add(32 << 10));
            c.host = c
                .host
                .saturating_add(n.saturating_mul(steps.saturating_mul(16)))
                .saturating_add(n.saturating_mul(n).saturating_mul(nf.saturating_mul(220)))
                .saturating_add(entries.saturating_mul(16));
        }
    }
    c
}

/// Host memory of the probe tables ([`ProbeLayout::Table`]) while a run writes them in
/// chunks of `chunk` steps ([`TableMemory::total`]).
pub fn probe_table_memory(model: &Model, chunk: usize) -> u64 {
    table_memory(model, chunk).total()
}

/// Host memory of the probe tables, by what drives it: the tables themselves (one per
/// distinct `every`, each with its open datasets) or what they hold (rows, columns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableMemory {
    /// Tables: one per distinct `every`.
    pub tables: usize,
    /// Per table: its open datasets (`values`, and `time`/`time_h` where it has E/H
    /// columns; the column metadata datasets are written once and closed) and their
    /// chunk caches, each used only up to one chunk (a table of one column of a few
    /// rows caches a few bytes, not HDF5's 1 MiB).
    pub per_table: u64,
    /// The samples of one chunk buffered until the flush (only the rows a table records
    /// in a chunk, none for a table whose `every` exceeds the run), and the column
    /// metadata (names, indices, positions) built once when the file is created.
    pub contents: u64,
}

impl TableMemory {
    pub fn total(&self) -> u64 {
        self.per_table.saturating_add(self.contents)
    }
}

/// [`TableMemory`] of `model`'s probe tables, written in chunks of `chunk` steps. Before
/// issue 19 every table was planned at 1 MiB of cache and ten open datasets: 10 000
/// probes of distinct `every` (10 000 tables of one column) at 13.6 GiB for a run whose
/// peak RSS is 0.54 GB.
pub fn table_memory(model: &Model, chunk: usize) -> TableMemory {
    let chunk = chunk.clamp(1, model.grid.steps.max(1));
    let mut m = TableMemory::default();
    for t in probe_tables(model) {
        let recorded = model.grid.steps / t.every;
        let buffered = (chunk / t.every + 1).min(recorded) as u64;
        let names: u64 = t
            .probes
            .iter()
            .map(|&i| model.probes[i].samples.len() as u64 * model.probes[i].name.len() as u64)
            .sum();
        let comps = || t.probes.iter().flat_map(|&i| model.probes[i].samples.iter());
        let times =
            comps().any(|s| s.component.is_electric()) as u64 + comps().any(|s| !s.component.is_electric()) as u64;
        let [cr, cc] = table_chunk(recorded, t.channels);
        let values_cache = ((cr * cc * 4) as u64).min(HDF5_CHUNK_CACHE);
        let time_cache = ((series_chunk(recorded) * 8) as u64).min(HDF5_CHUNK_CACHE);
        m.tables += 1;
        m.per_table += (1 + times) * HDF5_PER_DATASET + values_cache + times * time_cache;
        m.contents += buffered * (t.channels as u64 * 4 + 16) + t.channels as u64 * 160 + names;
    }
    m
}

/// Bytes of one chunk of a probe dataset: the output writes chunks of at most 4096
/// samples, and no more than the run records.
pub fn probe_chunk_bytes(model: &Model) -> u64 {
    let most = model
        .probes
        .iter()
        .map(|p| model.grid.steps / p.every.max(1))
        .max()
        .unwrap_or(0);
    8 * most.clamp(1, 4096) as u64
}

/// A run's memory, planned and measured: the host side (peak RSS of the process) and,
/// for a device backend, the device side. Stored in the output and printed at the end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryReport {
    pub host_planned: u64,
    pub host_peak: Option<u64>,
    pub device: Option<crate::backend::DeviceMemory>,
}

impl MemoryReport {
    /// Measure now: the process's peak RSS so far and the backend's device figures.
    pub fn measure(host_planned: u64, device: Option<crate::backend::DeviceMemory>) -> MemoryReport {
        MemoryReport {
            host_planned,
            host_peak: peak_rss(),
            device,
        }
    }
}

/// `1.02 GiB (+3.1 %)`: a measured peak against its plan.
fn against(planned: u64, peak: Option<u64>) -> String {
    match peak {
        Some(p) if planned > 0 => format!(
            "{} planned, {} peak ({:+.1} %)",
            human_bytes(planned),
            human_bytes(p),
            100.0 * (p as f64 / planned as f64 - 1.0)
        ),
        Some(p) => format!("{} planned, {} peak", human_bytes(planned), human_bytes(p)),
        None => format!("{} planned (peak not measured here)", human_bytes(planned)),
    }
}

impl fmt::Display for MemoryReport {
    /// `host 1.02 GiB planned, 1.05 GiB peak (+2.9 %); device ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "host {}", against(self.host_planned, self.host_peak))?;
        if let Some(d) = self.device {
            write!(f, "; device {}", against(d.planned, d.peak))?;
        }
        Ok(())
    }
}

/// The resident memory of this process now (`VmRSS`, bytes), where the OS says.
pub fn current_rss() -> Option<u64> {
    status_kb("VmRSS:")
}

fn status_kb(key: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    text.lines().find_map(|l| {
        let kb: u64 = l.strip_prefix(key)?.trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kb * 1024)
    })
}

/// Environment variable: treat the host as having this much memory available (bytes, or
/// `512M`, `8G`), instead of what the OS reports. For tests of the refusal path and for
/// users who share a node informally; a smaller real limit still wins.
pub const RAM_LIMIT_ENV: &str = "FDTD_RAM_LIMIT";

/// Bytes this process may still allocate: the smallest of `MemAvailable` from
/// `/proc/meminfo`, what its cgroups' memory limits leave (Slurm, containers, systemd
/// slices set them; `MemAvailable` does not see them), what its address-space limit
/// leaves, and [`RAM_LIMIT_ENV`].
/// `None` where the OS says nothing.
pub fn available_ram() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| mem_available(&t));
    let cgroup = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|t| cgroup_headroom(Path::new("/sys/fs/cgroup"), &t));
    let env = std::env::var(RAM_LIMIT_ENV)
        .ok()
        .and_then(|v| crate::plan::parse_bytes(&v));
    [meminfo, cgroup, address_space_headroom(), env]
        .into_iter()
        .flatten()
        .min()
}

/// Address space a worker thread takes when it starts allocating, beyond what the plan
/// counts: glibc gives each thread that allocates its own malloc arena, reserved as a
/// 64 MiB heap (`HEAP_MAX_SIZE` on 64-bit), plus the thread's stack (8 MiB for a
/// default pthread). Under an address-space limit these reservations count in full, though
/// hardly any of it is resident: a 1000-port run that the plan let start under
/// `prlimit --as=1e9` aborted allocating its Touchstone text (issue 19, item 2).
pub const THREAD_RESERVE: u64 = 72 << 20;

/// What the address-space limit (`ulimit -v`, `prlimit --as`: some batch systems set it
/// instead of a cgroup) leaves: the limit minus the process's virtual size now and the
/// reservations of the worker threads still to start ([`THREAD_RESERVE`] each: one per
/// core, plus the writer and one spare).
#[cfg(unix)]
fn address_space_headroom() -> Option<u64> {
    // SAFETY: getrlimit only writes the struct we pass.
    let mut lim: libc::rlimit = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } != 0 || lim.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    let vm = status_kb("VmSize:")?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64 + 2;
    Some(
        (lim.rlim_cur as u64)
            .saturating_sub(vm)
            .saturating_sub(threads * THREAD_RESERVE),
    )
}

#[cfg(not(unix))]
fn address_space_headroom() -> Option<u64> {
    None
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    meminfo.lines().find_map(|l| {
        let rest = l.strip_prefix("MemAvailable:")?;
        let kb: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kb * 1024)
    })
}

/// What the memory cgroups of this process leave: for every level from the process's
/// cgroup up to the root, `limit - usage` (usage without reclaimable page cache), the
/// smallest of them. `proc_cgroup` is `/proc/self/cgroup`; `root` the cgroup mount.
/// Handles cgroup v2 (`0::/path`, `memory.max`, `memory.current`) and v1 (`N:memory:/path`,
/// `memory.limit_in_bytes`, `memory.usage_in_bytes`). `None`: no limit found.
pub fn cgroup_headroom(root: &Path, proc_cgroup: &str) -> Option<u64> {
    let read = |p: PathBuf| std::fs::read_to_string(p).ok().map(|s| s.trim().to_string());
    let num = |p: PathBuf| read(p).and_then(|s| s.parse::<u64>().ok());
    // Reclaimable page cache, counted in usage but available to us.
    let inactive_file = |dir: &Path, key: &str| {
        read(dir.join("memory.stat"))
            .and_then(|s| s.lines().find_map(|l| l.strip_prefix(key)?.trim().parse::<u64>().ok()))
    };
    let mut best: Option<u64> = None;
    for line in proc_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (id, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let (base, v2) = if id == "0" && controllers.is_empty() {
            (root.to_path_buf(), true)
        } else if controllers.split(',').any(|c| c == "memory") {
            (root.join("memory"), false)
        } else {
            continue;
        };
        // The process's cgroup and its ancestors; in a container the path may not be
        // visible (cgroup namespaces show "/"), then the mount's root files are used.
        let mut dir = base.join(path.trim_start_matches('/'));
        loop {
            let (limit, usage, cache) = if v2 {
                let limit = read(dir.join("memory.max")).and_then(|s| s.parse::<u64>().ok());
                (
                    limit,
                    num(dir.join("memory.current")),
                    inactive_file(&dir, "inactive_file "),
                )
            } else {
                let limit = num(dir.join("memory.limit_in_bytes")).filter(|&l| l < (1 << 60));
                (
                    limit,
                    num(dir.join("memory.usage_in_bytes")),
                    inactive_file(&dir, "total_inactive_file "),
                )
            };
            if let Some(limit) = limit {
                let used = usage.unwrap_or(0).saturating_sub(cache.unwrap_or(0));
                let left = limit.saturating_sub(used);
                best = Some(best.map_or(left, |b| b.min(left)));
            }
            if dir == base || !dir.pop() || !dir.starts_with(&base) {
                break;
            }
        }
    }
    best
}

/// The peak resident memory of this process so far (`VmHWM`, bytes), where the OS says.
pub fn peak_rss() -> Option<u64> {
    status_kb("VmHWM:")
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
    /// Of `need`, what the end of the run takes ([`results_cost`]): when it alone does
    /// not fit, coarser cells would not help, and the message says what would.
    pub results: u64,
    /// Of `need`, what the probes take ([`probe_cost`]): likewise. (Boxed: errors
    /// carrying this stay small.)
    pub probes: Box<ProbeCost>,
}

/// The host memory of a run's probes, by what drives it, for a refusal that names the
/// fix: fewer distinct `every` values when the tables themselves cost most, fewer probes
/// or a larger `every` when what they record does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProbeCost {
    pub probes: usize,
    /// Probe tables (one per distinct `every`; 0 for per-probe groups).
    pub tables: usize,
    /// The tables' own cost (open datasets, caches): [`TableMemory::per_table`].
    pub per_table: u64,
    /// What the probes record: staged samples, buffered rows, columns, per-probe
    /// groups' datasets.
    pub recorded: u64,
}

impl ProbeCost {
    pub fn total(&self) -> u64 {
        self.per_table.saturating_add(self.recorded)
    }
}

/// [`ProbeCost`] of `model`'s probes written in chunks of `chunk` steps: the probe
/// lines of [`host_plan`].
pub fn probe_cost(model: &Model, chunk: usize) -> ProbeCost {
    let staging = probe_staging(model, chunk);
    let mut c = ProbeCost {
        probes: model.probes.len(),
        ..ProbeCost::default()
    };
    match ProbeLayout::of(model) {
        ProbeLayout::Table => {
            let t = table_memory(model, chunk);
            c.tables = t.tables;
            c.per_table = t.per_table;
            c.recorded = staging.saturating_add(t.contents);
        }
        ProbeLayout::Groups => {
            let datasets: u64 = model.probes.iter().map(|pr| pr.samples.len() as u64 + 2).sum();
            c.recorded = staging.saturating_add(datasets * (HDF5_PER_DATASET + probe_chunk_bytes(model)));
        }
    }
    c
}

impl fmt::Display for DoesNotFit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Coarser cells shrink the grid's share only: when the rest (results, probes)
        // would not fit either, or is most of the need, name what would.
        let probes = self.probes.total();
        let other = self.results.saturating_add(probes);
        let grid_fits = self.need - other.min(self.need) < self.available;
        if probes > self.results && grid_fits && probes.saturating_mul(2) > self.need {
            let ProbeCost {
                probes: n,
                tables,
                per_table,
                recorded,
            } = *self.probes;
            write!(
                f,
                "needs {}, {} available, of which {} for the output of {n} probes",
                human_bytes(self.need),
                human_bytes(self.available),
                human_bytes(probes),
            )?;
            return if tables > 0 && per_table >= recorded {
                write!(
                    f,
                    " ({tables} probe tables, one per distinct `every`, each with its own open datasets: about {} \
                     a table); fewer distinct `every` values (probes with the same `every` share one table) or \
                     fewer probes would fit; coarser cells would not help",
                    human_bytes(per_table / tables as u64)
                )
            } else {
                write!(
                    f,
                    " (the samples of one chunk and the columns: probes × components); fewer probes or components, \
                     or a larger `every`, would fit; coarser cells would not help"
                )
            };
        }
        if self.results > 0 && grid_fits && self.results * 2 > self.need {
            return write!(
                f,
                "needs {}, {} available, of which {} after the last step for the results (port transforms and \
                 Touchstone/CSV text: ports² × frequencies; far-field grids: directions × frequencies; monitor \
                 fields); fewer ports or frequencies, or coarser far-field steps (theta_step, phi_step) would fit",
                human_bytes(self.need),
                human_bytes(self.available),
                human_bytes(self.results)
            );
        }
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
            results: results_cost(model).host,
            probes: Box::new(probe_cost(model, super::DEFAULT_CHUNK)),
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

/// An upper bound of the bytes the output file of a run of `scene` grows by while steps
/// `from..steps` run, with the probes in their default layout ([`ProbeLayout::of`]).
pub fn output_bytes(scene: &Scene, model: &Model, from: usize) -> u64 {
    output_bytes_in(scene, model, from, ProbeLayout::of(model))
}

/// [`output_bytes`] with the probes in `layout`: probe values and times, rounded up to
/// whole chunks (a chunk is allocated whole), their metadata (per probe group, or per
/// table column), snapshot frames uncompressed, and for a new file (`from` 0) the root
/// attributes, which hold the scene's text.
pub fn output_bytes_in(scene: &Scene, model: &Model, from: usize, layout: ProbeLayout) -> u64 {
    let steps = model.grid.steps;
    let mut bytes = probe_bytes(model, from, layout);
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
    // Ports: V, I, time, time_h (f64) per step (and V, I per line-port plane); the end criterion's energy record; the
    // results (ports, monitors, far fields; Touchstone and CSV beside the file).
    let left = steps.saturating_sub(from) as u64;
    bytes = bytes.saturating_add((left * 32).saturating_mul(model.ports.len() as u64));
    // A line port's planes a and b: V and I each (their times are the port's).
    bytes = bytes.saturating_add((left * 16).saturating_mul(model.line_pairs().len() as u64));
    bytes = bytes.saturating_add(results_cost(model).disk);
    if model.decay_db.is_some() {
        bytes = bytes.saturating_add(left / 4);
    }
    if from == 0 {
        // The `scene` and `scene_path` attributes.
        bytes = bytes.saturating_add((scene.text.len() + scene.path.as_os_str().len()) as u64);
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

/// Disk space the checkpoints of a run still need at `path` (each `one` bytes): two
/// generations exist at the most (the older is deleted before a new one is written),
/// less the checkpoint files already there, which are replaced (a resume after a full
/// disk finds both generations on the disk already).
pub fn checkpoint_need(path: &Path, one: u64) -> u64 {
    let mut prev = path.as_os_str().to_owned();
    prev.push(".prev");
    let on_disk: u64 = [path.to_path_buf(), PathBuf::from(prev)]
        .iter()
        .filter_map(|p| std::fs::symlink_metadata(p).ok())
        .filter(|m| m.file_type().is_file())
        .map(|m| m.len().min(one))
        .sum();
    (2 * one).saturating_sub(on_disk)
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
    fn checkpoints_already_on_the_disk_are_not_counted_again() {
        let dir = tempfile::tempdir().unwrap();
        let ck = dir.path().join("a.h5.ckpt");
        assert_eq!(checkpoint_need(&ck, 100), 200);
        std::fs::write(&ck, [0u8; 100]).unwrap();
        assert_eq!(checkpoint_need(&ck, 100), 100);
        std::fs::write(dir.path().join("a.h5.ckpt.prev"), [0u8; 100]).unwrap();
        assert_eq!(checkpoint_need(&ck, 100), 0);
    }

    #[test]
    fn the_end_of_a_run_is_planned() {
        let scene = |ports: usize, points: usize| {
            let mut s = format!(
                "[domain]\ncell = 1e-3\ncells = [40, 40, 6]\n[time]\nsteps = 100\n[boundaries]\nall = \"pec\"\n\
                 [frequencies]\nstart = 1e9\nstop = 2e9\npoints = {points}\n"
            );
            for k in 0..ports {
                let (i, j) = (2 + k % 36, 2 + k / 36);
                s.push_str(&format!(
                    "[[ports]]\nname = \"p{k}\"\nstart = [{}e-3, {}e-3, 2e-3]\nend = [{}e-3, {}e-3, 3e-3]\n",
                    i, j, i, j
                ));
                if k == 0 {
                    s.push_str("[ports.waveform]\ntype = \"gaussian\"\nfrequency = 1e9\n");
                }
            }
            let scene = Scene::parse(&s, "t.toml").unwrap();
            let model = crate::model::Model::discretize(&scene).unwrap();
            (scene, model)
        };
        // The Touchstone text of N ports grows as N²: 1000 ports × 41 points is about
        // 330 MB (measured 339 MB), and it is counted on the disk and twice in memory.
        let one = results_cost(&scene(1, 41).1);
        let (big, model) = scene(1000, 41);
        let many = results_cost(&model);
        assert!(many.text > 320_000_000 && many.text < 400_000_000, "{many:?}");
        assert!(many.host > 2 * many.text && many.disk > many.text, "{many:?}");
        assert!(one.text < 100_000, "{one:?}");
        assert!(output_bytes(&big, &model, 0) > many.text);
        // Every port driven in turn: the S-matrix (N × N × F entries, 24 bytes each on
        // the disk) and the other drives' results are counted on top.
        let mut each = model.clone();
        each.drive_each = true;
        let full = results_cost(&each);
        assert!(full.disk >= many.disk + 1000 * 1000 * 41 * 24, "{full:?} vs {many:?}");
        assert!(full.host >= many.host + 1000 * 1000 * 41 * 16, "{full:?} vs {many:?}");
        let plan = |m: &crate::model::Model| {
            let sim = crate::Simulation::standard(m.clone());
            host_plan(&sim, StateIn::Ram, None, &[], 64, false, 0).total()
        };
        assert!(
            plan(&each) >= plan(&model) + model_bytes(&model),
            "the other drives' model is counted"
        );
        // A fine far-field grid: 1801 × 3601 directions at 3 frequencies.
        // (In open space: a far field is undefined between facing PEC walls.)
        let ff = Scene::parse(
            "[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 100\n[boundaries]\nall = \"cpml\"\n\
             [boundaries.cpml]\ncells = 4\n[frequencies]\nstart = 1e9\nstop = 2e9\npoints = 41\n\
             [[ports]]\nname = \"p0\"\nstart = [20e-3, 20e-3, 20e-3]\nend = [20e-3, 20e-3, 21e-3]\n\
             [ports.waveform]\ntype = \"gaussian\"\nfrequency = 1e9\n\
             [[farfield]]\nname = \"ff\"\nbox = { min = [0.01, 0.01, 0.01], max = [0.03, 0.03, 0.03] }\n\
             frequencies = [1e9, 1.5e9, 2e9]\ntheta_step = 0.1\nphi_step = 0.1\n",
            "t.toml",
        )
        .unwrap();
        let f = results_cost(&crate::model::Model::discretize(&ff).unwrap());
        assert!(f.host > 1801 * 3601 * 3 * 64, "{f:?}");
        assert!(f.disk > 1801 * 3601 * 3 * 64, "{f:?}");
        // In the host plan, and a plan that does not fit for that reason says so.
        let plan = host_plan(
            &crate::Simulation::standard(model.clone()),
            StateIn::Ram,
            None,
            &[],
            64,
            false,
            0,
        );
        assert!(plan.total() > many.host, "{plan:?}");
        let msg = RamCheck {
            need: plan.total(),
            available: Some(plan.total() - many.host / 2),
        }
        .does_not_fit(&model)
        .unwrap()
        .to_string();
        assert!(
            msg.contains("after the last step for the results") && msg.contains("fewer ports"),
            "{msg}"
        );
        assert!(!msg.contains("cells of"), "{msg}");
    }

    #[test]
    fn cgroup_limits_are_read_at_every_level_v1_and_v2() {
        let root = tempfile::tempdir().unwrap();
        let w = |rel: &str, text: &str| {
            let p = root.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        // v2: a job cgroup of 4 GiB using 1 GiB (256 MiB of it reclaimable page cache),
        // under a slice without a limit.
        w("slurm/job_7/memory.max", "4294967296\n");
        w("slurm/job_7/memory.current", "1073741824\n");
        w("slurm/job_7/memory.stat", "anon 1\ninactive_file 268435456\n");
        w("slurm/memory.max", "max\n");
        w("slurm/memory.current", "1073741824\n");
        let left = cgroup_headroom(root.path(), "0::/slurm/job_7\n").unwrap();
        assert_eq!(left, (4u64 << 30) - (1 << 30) + (256 << 20));
        // A tighter parent wins.
        w("slurm/memory.max", "2147483648\n");
        assert_eq!(cgroup_headroom(root.path(), "0::/slurm/job_7\n").unwrap(), 1 << 30);
        // v1: the memory controller's hierarchy; "unlimited" is a huge number.
        w("memory/docker/abc/memory.limit_in_bytes", "536870912\n");
        w("memory/docker/abc/memory.usage_in_bytes", "134217728\n");
        w("memory/memory.limit_in_bytes", "9223372036854771712\n");
        let v1 = "4:memory:/docker/abc\n3:cpu:/\n";
        assert_eq!(cgroup_headroom(root.path(), v1), Some(384 << 20));
        // No limit anywhere.
        assert_eq!(cgroup_headroom(root.path(), "4:memory:/\n"), None);
        assert_eq!(cgroup_headroom(root.path(), ""), None);
        assert_eq!(
            mem_available("MemTotal: 10 kB\nMemAvailable:    2048 kB\n"),
            Some(2 << 20)
        );
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
            results: 0,
            probes: Box::default(),
        }
        .to_string();
        assert!(d.starts_with("needs 8.00 GiB, 1.00 GiB available; cells of "), "{d}");
        assert!(d.ends_with("would fit, or use another backend"), "{d}");
    }
}

//! CPU vs GPU: the same models through `fdtd::runner::run` on both backends, every
//! probe series and every snapshot frame compared by relative L2 error.
//!
//! Coverage: every boundary kind (CPML with κ and α, PEC, PMC, periodic on each axis),
//! soft and hard sources on E and on H, lossy dielectrics, μr ≠ 1, PEC objects,
//! uniform and mixed material rows, probes with `every` > 1, plane / box / whole-grid
//! snapshots, the example scenes in `scenes/` (shrunk), and the multi-slab path (a
//! tiny storage-binding cap cuts the grid into many x slabs, down to one plane each).
//!
//! Without a GPU adapter the tests print "skipped: no GPU adapter (why)" and pass,
//! unless the environment variable `CI` is set: CI installs lavapipe, so there a
//! missing adapter is a failure, never a silent skip.
use fdtd::backend::gpu::{GpuBackend, GpuConfig};
use fdtd::backend::{Backend, BackendError, BackendOptions};
use fdtd::model::Model;
use fdtd::runner::MemorySink;
use fdtd::scene::{Boundary, Scene, TimeEnd};
use fdtd_validation::{rel_l2, run_model, scene};
use std::sync::Arc;

/// Bound on the L2 difference of every probe series and snapshot frame, relative to
/// the field's scale in the run (see [`compare`] for the yardstick).
///
/// Both backends evaluate the same f32 expressions in the same order on the same
/// inputs (the source values are computed once on the host). What may differ is how
/// the GPU compiler evaluates them: it may contract `a*b + c` into one FMA (one
/// rounding instead of two); WGSL allows it, and NVIDIA's compiler does it. Each
/// contraction changes a result by at most about 1 ulp (6e-8 relative); the leapfrog
/// scheme is neutrally stable, so these perturbations neither grow nor decay much and
/// add up roughly like a random walk over the steps, faster in lossless resonators.
///
/// Measured (120-240 steps, every case below): lavapipe (LLVM 15) is bit-exact (0);
/// the NVIDIA H200 (driver 580, with the CPML fused into the bulk kernels) gives at most
/// 8.4e-6 on the hand-made cases, 4.1e-6 on snapshots, 1.8e-5 on the example scenes
/// and 1.17e-4 on the dipole's on-axis Hy, which vanishes by symmetry and holds only
/// rounding noise. 5e-4 leaves a margin of 4x on that worst series (40x elsewhere) for
/// other drivers and longer runs, while any real discrepancy (a wrong coefficient, stencil
/// index, range, boundary image or step order) gives 1e-2 to 1: one flipped sign in
/// the PMC image rule gave 1.06.
const TOLERANCE: f64 = 5e-4;

/// A GPU backend for `model`, or None (with a message) when there is no adapter.
fn gpu(model: &Arc<fdtd_core::Simulation>, cap: Option<u64>) -> Option<GpuBackend> {
    gpu_with(
        model,
        &GpuConfig {
            binding_cap: cap,
            ..Default::default()
        },
    )
}

fn gpu_with(model: &Arc<fdtd_core::Simulation>, cfg: &GpuConfig) -> Option<GpuBackend> {
    match GpuBackend::with_config(model.clone(), &BackendOptions::default(), cfg) {
        Ok(b) => Some(b),
        Err(BackendError::NoDevice(why)) => {
            if std::env::var_os("CI").is_some() {
                panic!("CI is set, so a GPU adapter (lavapipe) must exist, but: {why}");
            }
            eprintln!("skipped: no GPU adapter ({why})");
            None
        }
        Err(e) => panic!("GPU backend: {e}"),
    }
}

/// Run `model` on both backends and compare; returns the worst relative L2 error.
fn parity(name: &str, model: Model, cap: Option<u64>) -> Option<f64> {
    parity_with(
        name,
        model,
        &GpuConfig {
            binding_cap: cap,
            ..Default::default()
        },
    )
}

fn parity_with(name: &str, model: Model, cfg: &GpuConfig) -> Option<f64> {
    let model = Arc::new(fdtd_core::Simulation::standard(model));
    let mut g = gpu_with(&model, cfg)?;
    let slabs = g.pieces();
    let gpu_sink = run_model(&model, &mut g);
    let mut c = fdtd::backend::cpu::CpuBackend::new(model.clone(), 0).unwrap();
    let cpu_sink = run_model(&model, &mut c);
    let (probe, snap) = compare(name, &model, &cpu_sink, &gpu_sink);
    println!(
        "{name:<34} {:>3}x{:>3}x{:>3} {:>4} steps {:>3} slab(s)  probes {:.2e} ({})  snapshots {:.2e} ({})",
        model.grid.n[0], model.grid.n[1], model.grid.n[2], model.grid.steps, slabs, probe.0, probe.1, snap.0, snap.1
    );
    Some(probe.0.max(snap.0))
}

/// Worst (error, where) over the probe series and over the snapshot frames.
type Worst = (f64, String);

/// Every probe series and snapshot frame, held to [`TOLERANCE`].
///
/// The yardstick is the field's scale in the run, not each record's own norm: rounding
/// differences are relative to the fields where they arise and then travel like any
/// field, so a record that is nearly zero (a component that vanishes by symmetry, a
/// frame before the pulse arrives) holds only such noise and its own norm would make a
/// 1e-7 perturbation look like 1e-3. So a probe series is divided by its own norm or by
/// 1 % of the largest series of the same field (E or H), whichever is larger, and a
/// snapshot frame by the largest frame of its component in that snapshot.
fn compare(name: &str, model: &Model, cpu: &MemorySink, gpu: &MemorySink) -> (Worst, Worst) {
    let norm = |v: &[f32]| v.iter().map(|&x| (x as f64).powi(2)).sum::<f64>().sqrt();
    let diff = |a: &[f32], b: &[f32]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (*x as f64 - *y as f64).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    let mut scale = [0f64; 2];
    for (p, probe) in model.probes.iter().enumerate() {
        for (s, sample) in probe.samples.iter().enumerate() {
            let e = !sample.component.is_electric() as usize;
            scale[e] = scale[e].max(norm(&cpu.probes[p][s].1));
        }
    }
    // Ports' V and I series (f64, formed on the host from the same f32 samples) count
    // as E and H records.
    let norm64 = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    for (v, i) in &cpu.ports {
        scale[0] = scale[0].max(norm64(v));
        scale[1] = scale[1].max(norm64(i));
    }
    assert!(
        scale.iter().any(|&x| x > 0.0),
        "{name}: every probe and port stayed zero, the comparison proves nothing"
    );
    let mut probes: Worst = (0.0, "-".into());
    for (k, ((vc, ic), (vg, ig))) in cpu.ports.iter().zip(&gpu.ports).enumerate() {
        for (what, c, g, e) in [("V", vc, vg, 0), ("I", ic, ig, 1)] {
            assert_eq!(c.len(), g.len(), "{name}: port {k} {what}: lengths differ");
            let d = c.iter().zip(g).map(|(x, y)| (x - y).powi(2)).sum::<f64>().sqrt();
            let yard = norm64(c).max(0.01 * scale[e]);
            let err = if yard > 0.0 { d / yard } else { d };
            // Pairs past the ports are line ports' planes (`Model::line_pairs`).
            let what = match model.ports.get(k) {
                Some(p) => format!("port {} {what}", p.name),
                None => {
                    let (q, plane) = model.line_pairs()[k - model.ports.len()];
                    format!("port {} plane {} {what}", model.ports[q].name, ["a", "b"][plane])
                }
            };
            assert!(
                err <= TOLERANCE,
                "{name}: {what}: error {err:.3e} (bound {TOLERANCE:.0e})"
            );
            if err >= probes.0 {
                probes = (err, what);
            }
        }
    }
    for (p, probe) in model.probes.iter().enumerate() {
        for (s, sample) in probe.samples.iter().enumerate() {
            let (tc, vc) = &cpu.probes[p][s];
            let (tg, vg) = &gpu.probes[p][s];
            let what = format!("{} {}", probe.name, sample.component);
            assert_eq!(tc, tg, "{name}: probe {what}: sample times differ");
            assert_eq!(vc.len(), vg.len());
            let yard = norm(vc).max(0.01 * scale[!sample.component.is_electric() as usize]);
            let e = if yard > 0.0 { diff(vg, vc) / yard } else { diff(vg, vc) };
            assert!(
                e <= TOLERANCE,
                "{name}: probe {what}: error {e:.3e} (bound {TOLERANCE:.0e})"
            );
            if e >= probes.0 {
                probes = (e, what);
            }
        }
    }
    let mut snaps: Worst = (0.0, "-".into());
    for (s, snap) in model.snapshots.iter().enumerate() {
        assert_eq!(
            cpu.snapshots[s].len(),
            gpu.snapshots[s].len(),
            "{name}: snapshot {} frames",
            snap.name
        );
        let largest = |c: fdtd::Component| {
            cpu.snapshots[s]
                .iter()
                .filter(|f| f.0 == c)
                .map(|f| norm(&f.2))
                .fold(0.0, f64::max)
        };
        for ((cc, tc, dc), (cg, tg, dg)) in cpu.snapshots[s].iter().zip(&gpu.snapshots[s]) {
            assert_eq!((cc, tc), (cg, tg));
            assert_eq!(dc.len(), dg.len());
            let yard = largest(*cc);
            let e = if yard > 0.0 { diff(dg, dc) / yard } else { diff(dg, dc) };
            let what = format!("{} {cc} at {tc:.3e} s", snap.name);
            assert!(
                e <= TOLERANCE,
                "{name}: snapshot {what}: error {e:.3e} (bound {TOLERANCE:.0e})"
            );
            if e >= snaps.0 {
                snaps = (e, what);
            }
        }
    }
    (probes, snaps)
}

/// Relative L2 error; a series that is exactly zero on the CPU must be zero on the GPU.
fn series_err(gpu: &[f32], cpu: &[f32]) -> f64 {
    if cpu.iter().all(|&x| x == 0.0) {
        let m = gpu.iter().fold(0f32, |m, x| m.max(x.abs()));
        assert!(m == 0.0, "the CPU series is zero but the GPU's reaches {m:e}");
        return 0.0;
    }
    rel_l2(gpu, cpu)
}

fn model(text: &str) -> Model {
    Model::discretize(&scene(text)).unwrap_or_else(|e| panic!("{e}"))
}

/// Materials and objects shared by the hand-made cases: a lossy dielectric sphere, a
/// magnetic (μr = 3) box, a PEC plate and a tilted lossy cylinder: mixed rows
/// everywhere around them, uniform rows elsewhere. The sphere and the cylinder are
/// subpixel-averaged (the default): hundreds of averaged rows, ε and σ, which both
/// backends read from the same table.
const MATERIALS: &str = r#"
[materials.glass]
eps_r = 4.0
sigma = 0.02
[materials.ferrite]
eps_r = 2.0
mu_r = 3.0
sigma = 0.005
[[objects]]
shape = "sphere"
material = "glass"
center = [0.009, 0.008, 0.007]
radius = 0.004
[[objects]]
shape = "box"
material = "ferrite"
min = [0.002, 0.011, 0.002]
max = [0.006, 0.014, 0.009]
[[objects]]
shape = "box"
material = "pec"
min = [0.012, 0.002, 0.010]
max = [0.015, 0.006, 0.011]
[[objects]]
shape = "cylinder"
material = "glass"
a = [0.003, 0.003, 0.003]
b = [0.013, 0.012, 0.011]
radius = 0.0012
"#;

/// Sources of every kind on E and on H, and probes of all six components.
const POINTS: &str = r#"
[[sources]]
name = "j"
type = "current"
component = "Ez"
position = [0.0071, 0.0052, 0.0045]
waveform = { type = "ricker", frequency = 40e9, amplitude = 1e-3 }
[[sources]]
name = "m"
type = "current"
component = "Hx"
position = [0.0103, 0.0097, 0.0061]
waveform = { type = "modulated_gaussian", frequency = 30e9, bandwidth = 20e9, amplitude = 0.3 }
[[sources]]
name = "hard_e"
type = "hard"
component = "Ey"
position = [0.0132, 0.0061, 0.0042]
waveform = { type = "gaussian_derivative", frequency = 30e9, amplitude = 1.0 }
[[sources]]
name = "hard_h"
type = "hard"
component = "Hz"
position = [0.0042, 0.0121, 0.0083]
waveform = { type = "gaussian", frequency = 30e9, amplitude = 0.002 }
[[probes]]
name = "a"
position = [0.0111, 0.0071, 0.0052]
components = ["Ex", "Ey", "Ez", "Hx", "Hy", "Hz"]
[[probes]]
name = "b"
position = [0.0035, 0.0042, 0.0095]
components = ["Ez", "Hy", "Hx"]
every = 3
[[probes]]
name = "corner"
position = [0.0005, 0.0005, 0.0005]
components = ["Ex", "Ey", "Ez", "Hx", "Hy", "Hz"]
[[probes]]
name = "far"
position = [0.0155, 0.0135, 0.0115]
components = ["Ex", "Ey", "Ez", "Hx", "Hy", "Hz"]
every = 2
[[snapshots]]
name = "xy"
components = ["Ez", "Hx"]
every = 40
plane = { axis = "z", position = 0.006 }
[[snapshots]]
name = "box"
components = ["Ex", "Hz"]
every = 55
box = { min = [0.002, 0.003, 0.001], max = [0.012, 0.010, 0.009] }
[[snapshots]]
name = "all"
components = ["Ey", "Hy"]
every = 100
"#;

/// A 16 x 14 x 12 mm box of 1 mm cells with the given boundaries.
fn case(boundaries: &str, steps: usize) -> Model {
    model(&format!(
        "[domain]\ncell = 1e-3\ncells = [16, 14, 12]\n[time]\nsteps = {steps}\n[boundaries]\n{boundaries}\n{MATERIALS}{POINTS}"
    ))
}

const CPML: &str = "all = \"cpml\"\n[boundaries.cpml]\ncells = 4\nkappa_max = 3.0\nalpha_max = 0.05\n";
const PEC_PMC: &str = "x_min = \"pec\"\nx_max = \"pmc\"\ny_min = \"pmc\"\ny_max = \"pec\"\nz = \"pmc\"\n";
const PERIODIC_XY: &str = "x = \"periodic\"\ny = \"periodic\"\nz = \"cpml\"\n[boundaries.cpml]\ncells = 3\n";
const PERIODIC_Z: &str =
    "x = \"pmc\"\ny_min = \"cpml\"\ny_max = \"pec\"\nz = \"periodic\"\n[boundaries.cpml]\ncells = 3\n";
const PERIODIC_ALL: &str = "all = \"periodic\"\n";

#[test]
fn gpu_matches_cpu_cpml() {
    parity("cpml (kappa, alpha)", case(CPML, 240), None);
}

#[test]
fn gpu_matches_cpu_pec_pmc() {
    parity("pec + pmc faces", case(PEC_PMC, 240), None);
}

#[test]
fn gpu_matches_cpu_periodic() {
    parity("periodic x, y + cpml z", case(PERIODIC_XY, 240), None);
    parity("pmc x, cpml/pec y, periodic z", case(PERIODIC_Z, 240), None);
    parity("periodic everywhere", case(PERIODIC_ALL, 200), None);
}

/// The multi-slab path: binding caps that cut the 17-plane grid into 3..17 slabs,
/// with every boundary kind crossing slab edges (x faces on the first and last slab,
/// the periodic x copies between them, CPML x layers spanning slabs).
#[test]
fn gpu_matches_cpu_split_into_slabs() {
    // One y-z plane of the 16 x 14 x 12 grid is 15 x 13 floats = 780 bytes.
    let plane = 15 * 13 * 4;
    for (name, b, planes) in [
        ("cpml, 3 slabs", CPML, 6),
        ("cpml, 1 plane per slab", CPML, 1),
        ("pec + pmc, 1 plane per slab", PEC_PMC, 1),
        ("periodic x, y, 4 slabs", PERIODIC_XY, 5),
        ("periodic all, 2 planes/slab", PERIODIC_ALL, 2),
    ] {
        let cap = (plane * (planes + 2)) as u64;
        let Some(_) = parity(name, case(b, 150), Some(cap)) else {
            return;
        };
    }
}

/// Rows padded to an aligned length on the device (`row_align`): same results.
#[test]
fn gpu_matches_cpu_with_padded_rows() {
    for (name, b, align, cap) in [
        ("cpml, rows padded to 8", CPML, 8, None),
        (
            "periodic all, rows to 32, 4 slabs",
            PERIODIC_ALL,
            32,
            Some(32 * 15 * 4 * 6),
        ),
        ("pec + pmc, rows to 5", PEC_PMC, 5, None),
    ] {
        let cfg = GpuConfig {
            binding_cap: cap,
            row_align: Some(align),
            ..Default::default()
        };
        if parity_with(name, case(b, 150), &cfg).is_none() {
            return;
        }
    }
}

/// The example scenes, shrunk to at most 28 cells per axis (same domain, coarser
/// cells), CPML at most 5 cells, at most 150 steps.
/// STL solids: a dielectric sphere (a tessellated ball), a PEC cube rotated 30° about z
/// (a staircase of cells) and a PEC sheet thinner than a cell (E edges), read from
/// binary and ASCII files.
#[test]
fn gpu_matches_cpu_with_stl_objects() {
    use fdtd::scene::mesh::{ascii_stl, binary_stl, cuboid, uv_sphere};
    let f32s =
        |t: Vec<[[f64; 3]; 3]>| -> Vec<[[f32; 3]; 3]> { t.iter().map(|t| t.map(|v| v.map(|x| x as f32))).collect() };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("ball.stl"),
        binary_stl(&f32s(uv_sphere([9.0, 8.0, 7.0], 3.6, 24, 48))),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("cube.stl"),
        ascii_stl("cube", &f32s(cuboid([-1.5; 3], [1.5; 3]))),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("sheet.stl"),
        binary_stl(&f32s(cuboid([2.2, 2.1, 9.2], [7.6, 6.3, 9.4]))),
    )
    .unwrap();
    let objects = r#"
[materials.glass]
eps_r = 4.0
sigma = 0.02
[[objects]]
shape = "stl"
material = "glass"
file = "ball.stl"
scale = 1e-3
[[objects]]
shape = "stl"
material = "pec"
file = "cube.stl"
scale = 1e-3
rotate = [0, 0, 30]
offset = [0.0125, 0.0035, 0.0035]
[[objects]]
shape = "stl"
material = "pec"
file = "sheet.stl"
scale = 1e-3
"#;
    let path = dir.path().join("stl.toml");
    std::fs::write(
        &path,
        format!(
            "[domain]\ncell = 1e-3\ncells = [16, 14, 12]\n[time]\nsteps = 240\n[boundaries]\n{CPML}\n{objects}{POINTS}"
        ),
    )
    .unwrap();
    let s = Scene::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
    let m = Model::discretize(&s).unwrap_or_else(|e| panic!("{e}"));
    let cov = fdtd::model::thin::coverage(&s, &m.grid);
    assert!(
        cov[0].cells > 100 && cov[1].cells > 10 && cov[2].thin && cov[2].edges > 20,
        "{cov:?}"
    );
    parity("stl objects", m, None);
}

#[test]
fn gpu_matches_cpu_on_example_scenes() {
    // CARGO_MANIFEST_DIR at run time first (cargo sets it), so the test binary also
    // runs from a copy of the repository elsewhere.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").into());
    let dir = std::path::Path::new(&manifest).join("../scenes");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("scenes/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no scenes in {}", dir.display());
    for f in files {
        let mut s = Scene::from_file(&f).unwrap_or_else(|e| panic!("{e}"));
        shrink(&mut s, 28, 5, 150);
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let m = match Model::discretize(&s) {
            Ok(m) => m,
            // A one-cell port gap vanishes on the shrunk grid: its parity is held by
            // tests/ports.rs and tests/antenna.rs at their own sizes.
            Err(e) if !s.ports.is_empty() && e.to_string().contains("covers no edge") => {
                println!("{name:<34} skipped at this size: {e}");
                continue;
            }
            Err(e) => panic!("{}: {e}", f.display()),
        };
        if parity(&name, m, None).is_none() {
            return;
        }
    }
}

fn shrink(s: &mut Scene, max_cells: usize, max_cpml: usize, max_steps: usize) {
    let size = s.domain.size();
    for (a, len) in size.into_iter().enumerate() {
        let n = s.domain.cells[a].min(max_cells);
        s.domain.cells[a] = n;
        s.domain.cell_size[a] = len / n as f64;
    }
    for f in s.boundaries.faces.iter_mut() {
        if let Boundary::Cpml(p) = f {
            p.cells = p.cells.min(max_cpml);
        }
    }
    let steps = match s.time.end {
        TimeEnd::Steps(n) => n,
        TimeEnd::Duration(_) => usize::MAX,
    };
    s.time.end = TimeEnd::Steps(steps.min(max_steps));
    // Snapshots at least twice in the shortened run.
    for snap in s.snapshots.iter_mut() {
        snap.every = snap.every.min(max_steps / 2).max(1);
    }
}

/// `read_field` of every component, not only the sampled ones: the whole state agrees.
#[test]
fn gpu_whole_fields_match_after_a_run() {
    let m = Arc::new(fdtd_core::Simulation::standard(case(PERIODIC_Z, 120)));
    for cap in [None, Some((15 * 13 * 4 * 5) as u64)] {
        let Some(mut g) = gpu(&m, cap) else { return };
        let mut c = fdtd::backend::cpu::CpuBackend::new(m.clone(), 0).unwrap();
        let src = m.source_values(0, m.grid.steps);
        g.step(0, m.grid.steps, &src).unwrap();
        c.step(0, m.grid.steps, &src).unwrap();
        for comp in fdtd::Component::ALL {
            let a = g.read_field(comp).unwrap();
            let b = c.read_field(comp).unwrap();
            let e = series_err(&a, &b);
            assert!(e <= TOLERANCE, "{comp} ({} slabs): rel L2 {e:.3e}", g.pieces());
        }
        // A region that starts and ends off the slab edges.
        let (lo, hi) = ([3, 1, 2], [14, 13, 11]);
        let a = g.read_region(fdtd::Component::Ez, lo, hi).unwrap();
        let b = c.read_region(fdtd::Component::Ez, lo, hi).unwrap();
        assert!(series_err(&a, &b) <= TOLERANCE);
    }
}

/// Checkpoints: a state saved by the CPU loads into the GPU (any slab count) and the run
/// continues as on the CPU; the GPU's own saved state (fields and CPML ψ) matches the
/// CPU's.
#[test]
fn gpu_state_round_trips_with_the_cpu() {
    let plane = (15 * 13 * 4) as u64;
    for (name, b, cap) in [
        ("cpml", CPML, None),
        ("cpml, cap of 6 planes", CPML, Some(plane * 6)),
        ("periodic x, y, cap of 5 planes", PERIODIC_XY, Some(plane * 5)),
    ] {
        let m = Arc::new(fdtd_core::Simulation::standard(case(b, 120)));
        let src = m.source_values(0, 120);
        let ns = m.sources.len();
        let mut c = fdtd::backend::cpu::CpuBackend::new(m.clone(), 0).unwrap();
        c.step(0, 60, &src[..60 * ns]).unwrap();
        let mid = c.save_state().unwrap();
        let Some(mut g) = gpu(&m, cap) else { return };
        g.load_state(&mid).unwrap();
        // Straight back out: the same numbers.
        assert_eq!(g.save_state().unwrap(), mid, "{name}: load then save changed the state");
        g.step(60, 60, &src[60 * ns..]).unwrap();
        c.step(60, 60, &src[60 * ns..]).unwrap();
        let (sg, sc) = (g.save_state().unwrap(), c.save_state().unwrap());
        // Every array of the state table (fields, CPML ψ, pass state), by name.
        assert_eq!(sg.arrays.len(), sc.arrays.len());
        for (ag, ac) in sg.arrays.iter().zip(&sc.arrays) {
            assert_eq!(ag.name, ac.name);
            let e = series_err(&ag.data, &ac.data);
            assert!(e <= TOLERANCE, "{name}: array {} after resuming: {e:.3e}", ag.name);
        }
        println!("{name}: state round trip ok ({} slabs)", g.pieces());
    }
}

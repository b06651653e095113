//! Lumped ports and elements (`fdtd_validation::cases::ports`): circuit theory per
//! backend, then the two backends against each other and a resumed run against an
//! uninterrupted one.
use fdtd::backend::{BackendChoice, BackendOptions};
use fdtd::model::Model;
use fdtd::runner::{run, MemorySink, RunOptions};
use fdtd_validation::cases::ports::lc_scene;
use fdtd_validation::scene;
use std::sync::Arc;

fdtd_validation::backend_tests! {
    /// A port on a matched resistor: |S11| ≤ −30 dB over 10 MHz–1 GHz.
    fn port_on_a_matched_resistor_does_not_reflect => ports::MATCHED, gpu: Full;
    /// A driven port and a matched port: S11 ≈ 0, |S21| ≈ 1 (0.05 dB), passive.
    fn two_ports_through_a_plate_pair_transmit_everything => ports::TWO_PORT, gpu: Full;
    /// Every port driven in turn: S12 = S21 (1e-6) and a lossless |S11|² + |S21|² = 1.
    fn a_reciprocal_two_port_has_a_symmetric_s_matrix => ports::RECIPROCITY, gpu: Full;
    /// A parallel RLC resonates at 1/(2π√(LC)) within 1 %, stopped by the end criterion.
    fn parallel_rlc_resonates_where_theory_says => ports::LC, gpu: Full;
    /// A dipole's port impedance equals the probe method's (soft source, gap probes).
    fn dipole_port_impedance_matches_the_probe_method => ports::DIPOLE, gpu: Quick;
}

fn model(steps: usize) -> Arc<fdtd_core::Simulation> {
    Arc::new(fdtd_core::Simulation::standard(
        Model::discretize(&scene(&lc_scene(steps))).unwrap(),
    ))
}

fn backend(m: &Arc<fdtd_core::Simulation>, choice: BackendChoice) -> Option<Box<dyn fdtd::backend::Backend>> {
    match fdtd::backend::create(m.clone(), choice, &BackendOptions::default()) {
        Ok((b, _)) => Some(b),
        Err(e) => {
            fdtd_validation::suite::no_gpu(&e.to_string());
            None
        }
    }
}

fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |a, x| a.max(x.abs()))
}

/// The V and I series of the CPU and the GPU agree within 1e-4 of their peaks, and so
/// do the impedances (1e-4 relative at every frequency where |Z| is not tiny), on the
/// LC board (ports' Norton sources, a resistor row, a capacitor row and the inductor
/// pass with state).
#[test]
fn ports_agree_between_cpu_and_gpu() {
    let m = model(1500);
    let cpu = {
        let mut b = backend(&m, BackendChoice::Cpu).unwrap();
        let mut s = MemorySink::new(&m);
        run(&m, b.as_mut(), &mut s, &RunOptions::default(), None).unwrap();
        s
    };
    let Some(mut gb) = backend(&m, BackendChoice::Gpu) else {
        return;
    };
    let mut gpu = MemorySink::new(&m);
    run(&m, gb.as_mut(), &mut gpu, &RunOptions::default(), None).unwrap();
    let (vc, ic) = &cpu.ports[0];
    let (vg, ig) = &gpu.ports[0];
    assert_eq!(vc.len(), vg.len(), "both stop at the same step");
    for (name, a, b) in [("V", vc, vg), ("I", ic, ig)] {
        let peak = max_abs(a);
        let diff = a.iter().zip(b.iter()).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        println!("{name}: max |cpu − gpu| = {diff:.3e} of peak {peak:.3e}");
        assert!(diff <= 1e-4 * peak, "{name}: {diff} vs peak {peak}");
    }
    let zc = fdtd::ports::results(&m, &cpu.ports);
    let zg = fdtd::ports::results(&m, &gpu.ports);
    for (a, b) in zc[0].z.iter().zip(&zg[0].z) {
        assert!((a - b).norm() <= 1e-4 * a.norm().max(1.0), "{a} vs {b}");
    }
}

/// A run stopped after 400 steps and resumed (state saved on one backend, loaded on a
/// fresh one, the end criterion's energy peak carried over) gives the same V, I series,
/// stops at the same step and gives the same Z as an uninterrupted run: bit for bit on
/// the CPU; and a GPU state resumed on the CPU within 1e-4.
#[test]
fn a_resumed_port_run_gives_the_same_results() {
    let m = model(20000);
    let full = {
        let mut b = backend(&m, BackendChoice::Cpu).unwrap();
        let mut s = MemorySink::new(&m);
        run(&m, b.as_mut(), &mut s, &RunOptions::default(), None).unwrap();
        s
    };
    for first in [BackendChoice::Cpu, BackendChoice::Gpu] {
        let Some(mut b1) = backend(&m, first) else { continue };
        // Stop after the chunk that ends at step 400 (a multiple of the criterion's
        // scan interval, 200 here), as Ctrl-C would.
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut part1 = MemorySink::new(&m);
        let flag = stop.clone();
        let mut progress = move |p: &fdtd_core::runner::ProgressInfo| {
            if p.step >= 400 {
                flag.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        };
        let o1 = RunOptions {
            stop: Some(stop.clone()),
            ..RunOptions::default()
        };
        let s1 = run(&m, b1.as_mut(), &mut part1, &o1, Some(&mut progress)).unwrap();
        assert_eq!(s1.steps_done, 400);
        let state = b1.save_state().unwrap();
        let mut b2 = backend(&m, BackendChoice::Cpu).unwrap();
        b2.load_state(&state).unwrap();
        let peak = part1.energy.iter().map(|e| e.1).fold(0.0, f64::max);
        let opts = RunOptions {
            start: 400,
            energy_peak: peak,
            port_peak: fdtd::runner::resume_port_levels(&m, &part1.ports, 400).0,
            port_recent: fdtd::runner::resume_port_levels(&m, &part1.ports, 400).1,
            ..RunOptions::default()
        };
        let mut part2 = MemorySink::new(&m);
        let s2 = run(&m, b2.as_mut(), &mut part2, &opts, None).unwrap();
        let mut v = part1.ports[0].0.clone();
        v.extend(&part2.ports[0].0);
        let mut i = part1.ports[0].1.clone();
        i.extend(&part2.ports[0].1);
        assert_eq!(s2.steps_done, full.ports[0].0.len(), "{first:?}: the same end step");
        let tol = if first == BackendChoice::Cpu { 0.0 } else { 1e-4 };
        for (name, a, b) in [("V", &full.ports[0].0, &v), ("I", &full.ports[0].1, &i)] {
            let peak = max_abs(a);
            let diff = a.iter().zip(b.iter()).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
            assert!(diff <= tol * peak, "{first:?} {name}: {diff} of {peak}");
        }
        let za = fdtd::ports::results(&m, &full.ports);
        let zb = fdtd::ports::results(&m, &[(v, i)]);
        for (a, b) in za[0].z.iter().zip(&zb[0].z) {
            assert!((a - b).norm() <= tol.max(1e-12) * a.norm().max(1.0), "{a} vs {b}");
        }
    }
}

/// The end criterion: the LC board stops long before its maximum, and its Z then agrees
/// within 0.1 % with a run 4× as long without the criterion at the resonance (0.5 % at
/// worst over 0.8–1.5 GHz). Measured |ΔZ|/|Z| at the resonance: 4.1e-3 with 50 dB,
/// 1.4e-3 with 60 dB, 5.9e-4 with 70 dB (the default), 2.0e-4 with 80 dB.
#[test]
fn the_end_criterion_stops_early_and_the_answer_has_converged() {
    let m = model(20000);
    assert_eq!(
        m.decay_db,
        Some(fdtd::scene::DEFAULT_DECAY_DB),
        "a scene with ports gets the default"
    );
    let mut b = backend(&m, BackendChoice::Cpu).unwrap();
    let mut s = MemorySink::new(&m);
    let sum = run(&m, b.as_mut(), &mut s, &RunOptions::default(), None).unwrap();
    let stopped = match sum.end {
        fdtd::runner::EndReason::Decayed(k) => k,
        other => panic!("expected the criterion to stop the run, got {other:?}"),
    };
    assert!(stopped < 20000 / 2, "stopped at {stopped}");
    let mut long = (*model(4 * stopped)).clone();
    long.model.decay_db = None;
    let long = Arc::new(long);
    let mut bl = backend(&long, BackendChoice::Cpu).unwrap();
    let mut sl = MemorySink::new(&long);
    let suml = run(&long, bl.as_mut(), &mut sl, &RunOptions::default(), None).unwrap();
    assert_eq!(suml.steps_done, 4 * stopped);
    let za = fdtd::ports::results(&m, &s.ports);
    let zb = fdtd::ports::results(&long, &sl.ports);
    let rel: Vec<f64> = za[0]
        .z
        .iter()
        .zip(&zb[0].z)
        .map(|(a, b)| (a - b).norm() / b.norm())
        .collect();
    let worst = rel.iter().cloned().fold(0.0, f64::max);
    // At the resonance (max Re Z, 1.12 GHz).
    let k = (0..zb[0].z.len())
        .max_by(|&a, &b| zb[0].z[a].re.total_cmp(&zb[0].z[b].re))
        .unwrap();
    println!(
        "stopped at step {stopped}; |ΔZ|/|Z| vs 4× longer: {:.2e} at the resonance ({:.4} GHz), {worst:.2e} at worst in 0.8–1.5 GHz",
        rel[k],
        zb[0].freq[k] / 1e9
    );
    assert!(rel[k] < 1e-3, "{}", rel[k]);
    assert!(worst < 5e-3, "{worst}");
}

/// `reference_plane` and `eps_eff` on a port reach its results and nothing else: the LC
/// board run once, its port series read with the scene as written and with the port's
/// plane moved 7.5 mm along a line of ε_eff 2.2: the same steps, |S| the same, S·e^{2jβd},
/// Z the line transform of the port's Z (Z0·(Z − jZ0·tan βd)/(Z0 − jZ·tan βd)), and the
/// Touchstone file says where its planes are.
#[test]
fn a_moved_reference_plane_rotates_s_and_transforms_z() {
    let m = model(1500);
    let text = lc_scene(1500).replace(
        "impedance = 50",
        "impedance = 50\nreference_plane = 0.0075\neps_eff = 2.2",
    );
    assert!(text.contains("reference_plane"), "scene edit failed");
    let moved = Model::discretize(&scene(&text)).unwrap();
    assert_eq!(moved.ports[0].reference_plane, 0.0075);
    let mut b = backend(&m, BackendChoice::Cpu).unwrap();
    let mut s = MemorySink::new(&m);
    run(&m, b.as_mut(), &mut s, &RunOptions::default(), None).unwrap();
    let at = &fdtd::ports::results(&m, &s.ports)[0];
    let to = &fdtd::ports::results(&moved, &s.ports)[0];
    let j = fdtd::farfield::Complex64::new(0.0, 1.0);
    for k in 0..at.freq.len() {
        let beta = std::f64::consts::TAU * at.freq[k] * 2.2f64.sqrt() / fdtd::C0;
        let rot = fdtd::farfield::Complex64::from_polar(1.0, 2.0 * beta * 0.0075);
        assert!((to.s[k] - at.s[k] * rot).norm() < 1e-12, "S at {}", at.freq[k]);
        assert!((to.s[k].norm() - at.s[k].norm()).abs() < 1e-12);
        let t = (beta * 0.0075).tan();
        let (z, z0) = (at.z[k], 50.0);
        let want = z0 * (z - j * z0 * t) / (z0 - j * z * t);
        assert!(
            (to.z[k] - want).norm() < 1e-6 * want.norm().max(1.0),
            "Z at {}: {} vs {want}",
            at.freq[k],
            to.z[k]
        );
        assert_eq!((to.v[k], to.i[k]), (at.v[k], at.i[k]), "V, I stay at the port's edges");
    }
    let ts = fdtd::ports::touchstone(std::slice::from_ref(to), None, &[], "lc.toml");
    assert!(
        ts.contains("! reference planes moved along matched feed lines: p1 by 0.0075 m (eps_eff 2.2)"),
        "{ts}"
    );
}

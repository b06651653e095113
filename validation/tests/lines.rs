//! Transmission-line ports (`fdtd_validation::cases::lines`): the case on the CPU, and
//! the line ports' series of the GPU against the CPU's.
//!
//! The case runs on the GPU too (`fdtd validate --backend gpu`, the same bounds: measured
//! identical to the CPU's on lavapipe), but at ~0.5 Mcells/s there (a two-port scene's
//! per-step cost on the software device) its 4,700 steps take 12 minutes, so CI holds the
//! GPU to the CPU's series on a short run instead.
use fdtd::backend::{BackendChoice, BackendOptions};
use fdtd::model::Model;
use fdtd::runner::{run, MemorySink, RunOptions};
use fdtd_validation::cases::{lines, BackendSpec, Size};
use std::sync::Arc;

/// A shielded microstrip through line between two line ports: Z0 and ε_eff are the
/// grid's static line's (1 %, 1.5 %), |S11| ≤ −25 dB, |S21| within 0.1 dB, S12 = S21.
#[test]
fn a_microstrip_through_line_is_the_grids_static_line_and_matched() {
    fdtd_validation::suite::check(lines::MICROSTRIP, &BackendSpec::cpu(), Size::Full);
}

/// The line planes' V and I (and the feeds') of the GPU equal the CPU's within 1e-4 of
/// their peaks over the first 250 steps (a short pulse's launch and its arrival at both
/// planes).
#[test]
fn line_port_series_agree_between_cpu_and_gpu() {
    // A pulse 4× shorter (to 16 GHz: planes D = 2 mm apart), planes 4 mm from the feeds:
    // the pulse reaches both by step 250.
    let text = lines::through_line("\"line\"")
        .replace("duration = 6e-9", "steps = 250")
        .replace("stop = 4e9", "stop = 16e9")
        .replace("line = \"+x\"", "line = \"+x\"\nmeasure = 0.004")
        .replace("line = \"-x\"", "line = \"-x\"\nmeasure = 0.004");
    parity(&text, 250);
}

/// The same for the TE10 ports of a WR-90 guide (weighted E, H across the guide), planes
/// 20 mm from the feeds, 500 steps.
#[test]
fn te10_port_series_agree_between_cpu_and_gpu() {
    let text = lines::wr90_line()
        .replace("duration = 20e-9", "steps = 500")
        .replace("mode = \"TE10\"", "mode = \"TE10\"\nmeasure = 0.02");
    parity(&text, 500);
}

fn parity(text: &str, steps: usize) {
    let m = Arc::new(fdtd_core::Simulation::standard(
        Model::discretize(&fdtd_validation::scene(text)).unwrap(),
    ));
    assert_eq!(m.port_pairs(), 6, "two feeds and two planes per line port");
    let go = |choice| -> Option<MemorySink> {
        let (mut b, _) = match fdtd::backend::create(m.clone(), choice, &BackendOptions::default()) {
            Ok(b) => b,
            Err(e) => {
                fdtd_validation::suite::no_gpu(&e.to_string());
                return None;
            }
        };
        let mut s = MemorySink::new(&m);
        run(&m, b.as_mut(), &mut s, &RunOptions::default(), None).unwrap();
        Some(s)
    };
    let cpu = go(BackendChoice::Cpu).unwrap();
    let Some(gpu) = go(BackendChoice::Gpu) else {
        return;
    };
    // Port 1's planes (pairs 2, 3) carry the pulse: plane b at least a tenth of plane a.
    let peak = |v: &[f64]| v.iter().fold(0f64, |m, x| m.max(x.abs()));
    assert!(
        peak(&cpu.ports[2].0) > 0.0 && peak(&cpu.ports[3].0) > 0.1 * peak(&cpu.ports[2].0),
        "the pulse reaches plane b"
    );
    for (k, ((vc, ic), (vg, ig))) in cpu.ports.iter().zip(&gpu.ports).enumerate() {
        assert_eq!(vc.len(), steps);
        for (name, a, b) in [("V", vc, vg), ("I", ic, ig)] {
            let peak = peak(a);
            let diff = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0f64, f64::max);
            println!("pair {k} {name}: max |cpu − gpu| = {diff:.3e} of peak {peak:.3e}");
            assert!(diff <= 1e-4 * peak, "pair {k} {name}: {diff} vs peak {peak}");
        }
    }
}

/// A square coax through line between two line ports: Z0 is the grid's static line's
/// (0.5 %), ε_eff = ε_r (1 %), matched, lossless, S12 = S21.
#[test]
fn a_square_coax_through_line_is_the_grids_static_line_and_matched() {
    fdtd_validation::suite::check(lines::COAX, &BackendSpec::cpu(), Size::Full);
}

/// A WR-90 section between two TE10 ports: β is the grid's TE10 dispersion (2e-3) and
/// within 1 % of √(k² − (π/a)²), Z_TE within 1 % of η0·k/β, matched, lossless, S12 = S21.
#[test]
fn a_wr90_section_has_the_te10_beta_and_is_matched() {
    fdtd_validation::suite::check(lines::WR90, &BackendSpec::cpu(), Size::Full);
}

/// A thin symmetric inductive iris in WR-90: S11 and S21 within 0.03 of the variational
/// aperture solution, lossless, reciprocal, symmetric.
#[test]
fn a_wr90_iris_matches_the_variational_solution() {
    fdtd_validation::suite::check(lines::IRIS, &BackendSpec::cpu(), Size::Full);
}

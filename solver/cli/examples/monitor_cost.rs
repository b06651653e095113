//! What a scene's frequency-domain monitors cost on the CPU, measured in one process so
//! that both sides see the same machine load:
//! `cargo run --release --example monitor_cost -- SCENE [STEPS] [CHUNK]`.
//!
//! Two CPU backends step the same model, one with the scene's schedule (monitors
//! included) and one without the monitor passes, alternating chunks of CHUNK steps
//! (default: a multiple of the monitors' decimation); prints the Mcells/s of each and the
//! ratio.
use fdtd::backend::Backend;
use fdtd::model::Model;
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scene = fdtd::scene::Scene::from_file(&args[0]).unwrap_or_else(|e| panic!("{e}"));
    let steps: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(440);
    let with = Model::discretize(&scene).unwrap_or_else(|e| panic!("{e}"));
    let every = with.monitors.iter().map(|m| m.every).max().unwrap_or(1);
    let chunk: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(4 * every);
    let mut without = with.clone();
    let passes: Vec<_> = with
        .schedule
        .passes
        .iter()
        .filter(|p| !p.pass.name().contains(':'))
        .map(|p| p.pass.clone())
        .collect();
    without.monitors.clear();
    without.schedule = fdtd_core::schedule::Schedule::build(&without, passes);
    for m in &with.monitors {
        println!("{}", m.summary());
    }
    let (with, without) = (Arc::new(with), Arc::new(without));
    let mut a = fdtd::backend::cpu::CpuBackend::new(with.clone(), 0).unwrap();
    let mut b = fdtd::backend::cpu::CpuBackend::new(without.clone(), 0).unwrap();
    let (mut ta, mut tb) = (0.0, 0.0);
    let mut n = 0;
    while n < steps {
        let count = chunk.min(steps - n);
        let src = with.source_values(n, count);
        let t = Instant::now();
        a.step(n, count, &src).unwrap();
        a.drain_outputs().unwrap();
        ta += t.elapsed().as_secs_f64();
        let t = Instant::now();
        b.step(n, count, &src).unwrap();
        b.drain_outputs().unwrap();
        tb += t.elapsed().as_secs_f64();
        n += count;
    }
    let cells = with.grid.cells() as f64 * steps as f64 / 1e6;
    println!(
        "{steps} steps in chunks of {chunk}: with monitors {:.1} Mcells/s, without {:.1} Mcells/s: monitors add {:.1} % to the step time",
        cells / ta,
        cells / tb,
        100.0 * (ta / tb - 1.0)
    );
}

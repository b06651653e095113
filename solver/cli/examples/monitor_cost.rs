//! What a scene's frequency-domain monitors cost on the CPU, measured in one process so
//! that both sides see the same machine load:
//! `cargo run --release --example monitor_cost -- SCENE [STEPS] [CHUNK]`.
//!
//! Two CPU backends step the same model, one with the scene's schedule (monitors
//! included) and one without the monitor passes, alternating chunks of CHUNK steps
//! (default: a multiple of the monitors' decimation), which goes first alternating; prints
//! the Mcells/s of each and the ratio. Then it times each monitor's pass alone (its host
//! code at accumulating steps, on the final fields) against the step time: on a shared
//! machine that is the steadier number (`FDTD_AA=1` runs the monitors on both sides, to
//! see the comparison's own noise).
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
    let with = fdtd_core::Simulation::standard(with);
    let passes: Vec<_> = with
        .schedule
        .passes
        .iter()
        .filter(|p| !p.pass.name().contains(':'))
        .map(|p| p.pass.clone())
        .collect();
    without.monitors.clear();
    let without = fdtd_core::Simulation::new(without, passes);
    for m in &with.monitors {
        println!("{}", m.summary());
    }
    let (with, without) = (Arc::new(with), Arc::new(without));
    let mut a = fdtd::backend::cpu::CpuBackend::new(with.clone(), 0).unwrap();
    // FDTD_AA=1: both sides with the monitors (the measurement's own bias).
    let b_model = if std::env::var_os("FDTD_AA").is_some() {
        with.clone()
    } else {
        without.clone()
    };
    let mut b = fdtd::backend::cpu::CpuBackend::new(b_model, 0).unwrap();
    let (mut ta, mut tb) = (0.0, 0.0);
    let mut n = 0;
    while n < steps {
        let count = chunk.min(steps - n);
        let src = with.source_values(n, count);
        // Alternate which goes first, so that neither gains from the order.
        let first_a = (n / chunk).is_multiple_of(2);
        for which in [first_a, !first_a] {
            let (bk, acc): (&mut dyn Backend, &mut f64) = if which { (&mut a, &mut ta) } else { (&mut b, &mut tb) };
            let t = Instant::now();
            bk.step(n, count, &src).unwrap();
            bk.drain_outputs().unwrap();
            *acc += t.elapsed().as_secs_f64();
        }
        n += count;
    }
    // The passes alone, on the final fields: time per accumulating call.
    let mut fields: Vec<Vec<f32>> = fdtd::Component::ALL.iter().map(|&c| a.read_field(c).unwrap()).collect();
    for m in &with.monitors {
        let pass = fdtd_core::passes::dft::Dft::new(&with, m);
        let mut re = vec![0f32; m.records() * m.freqs.len()];
        let mut im = re.clone();
        let calls = 20;
        let t = Instant::now();
        for k in 0..calls {
            let [ex, ey, ez, hx, hy, hz] = &mut fields[..] else {
                unreachable!()
            };
            let mut state = [&mut re[..], &mut im[..]];
            let mut ctx = fdtd_core::pass::HostCtx {
                step: (k + 1) * m.every - 1,
                entry: fdtd_core::pass::Entry::main(fdtd_core::pass::Hook::EndOfStep),
                sources: &[],
                xs: (0, with.grid.dims()[0]),
                fields: fdtd_core::pass::FieldsMut {
                    windows: [ex, ey, ez, hx, hy, hz].map(|a| Some(&mut a[..])),
                    base: 0,
                },
                state: &mut state[..],
                out: &mut [],
            };
            fdtd_core::pass::Pass::host(&pass, &mut ctx);
        }
        let per = t.elapsed().as_secs_f64() / calls as f64;
        println!(
            "{}: {:.2} ms per accumulating step, i.e. {:.3} ms per step (every {})",
            m.name,
            1e3 * per,
            1e3 * per / m.every as f64,
            m.every
        );
    }
    println!("step time without monitors: {:.2} ms", 1e3 * tb / steps as f64);
    let cells = with.grid.cells() as f64 * steps as f64 / 1e6;
    println!(
        "{steps} steps in chunks of {chunk}: with monitors {:.1} Mcells/s, without {:.1} Mcells/s: monitors add {:.1} % to the step time",
        cells / ta,
        cells / tb,
        100.0 * (ta / tb - 1.0)
    );
}

//! GPU kernel-shape benchmark: builds each benchmark cube once (the same scene as
//! `fdtd bench`: vacuum, 10-cell CPML, a soft dipole), then times the GPU backend with
//! several workgroup shapes / binding caps / bounds-check settings on it.
//!
//! ```text
//! cargo run --release --example gpu_bench -- --sizes 256,512 --steps 200 \
//!     --shapes 128x1,64x1,256x1,32x8 [--linear 64,256] [--cpml 0,10] [--caps 256M] \
//!     [--unchecked] [--dielectric] [--profile] [--device NAME]
//! ```
//!
//! `--cpml 0` leaves PEC walls only (no CPML work); `--linear` sets the workgroup
//! size of the linear kernels (faces, periodic copies, probes); `--profile` also prints the GPU
//! time per kernel (timestamp queries, one pass per dispatch).
//!
//! Prints one line per (size, variant): Mcells/s over the timed steps (after a warm-up),
//! steps per submission, x slabs, and the memory plan.
use fdtd_core::backend::{Backend, BackendOptions};
use fdtd_core::model::Model;
use fdtd_core::plan::human_bytes;
use fdtd_core::Component;
use fdtd_gpu::{parse_bytes, GpuBackend, GpuConfig, Shapes};
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let mut sizes = vec![128usize, 256];
    let mut steps = 200usize;
    let mut shapes = vec!["128x1".to_string()];
    let mut caps: Vec<Option<u64>> = vec![None];
    let mut unchecked = vec![false];
    let mut dielectric = false;
    let mut cpmls = vec![10usize];
    let mut linears = vec![64u32];
    let mut profile = false;
    let mut aligns = vec![None];
    let mut device = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().expect("missing value");
        match a.as_str() {
            "--sizes" => sizes = val().split(',').map(|s| s.parse().unwrap()).collect(),
            "--steps" => steps = val().parse().unwrap(),
            "--shapes" => shapes = val().split(',').map(String::from).collect(),
            "--caps" => {
                caps = val()
                    .split(',')
                    .map(|s| {
                        if s == "none" {
                            None
                        } else {
                            Some(parse_bytes(s).expect("size"))
                        }
                    })
                    .collect()
            }
            "--unchecked" => unchecked = vec![false, true],
            "--dielectric" => dielectric = true,
            "--profile" => profile = true,
            "--align" => aligns = val().split(',').map(|s| Some(s.parse().unwrap())).collect(),
            "--cpml" => cpmls = val().split(',').map(|s| s.parse().unwrap()).collect(),
            "--linear" => linears = val().split(',').map(|s| s.parse().unwrap()).collect(),
            "--device" => device = Some(val()),
            _ => panic!("unknown argument {a}"),
        }
    }
    let opts = BackendOptions {
        device,
        ..Default::default()
    };
    let warmup = 10;
    println!(
        "{:>5} {:>4} {:>8} {:>6} {:>10} {:>5} {:>9} {:>5} {:>7} {:>10} {:>10} {:>11}",
        "size", "cpml", "shape", "linear", "cap", "align", "unchecked", "slabs", "steps", "seconds", "Mcells/s", "plan"
    );
    for (&n, &cpml) in sizes.iter().flat_map(|n| cpmls.iter().map(move |c| (n, c))) {
        let t = Instant::now();
        let scene = fdtd_core::workload::bench_scene(n, cpml, warmup + steps + 20, dielectric);
        let model = Arc::new(fdtd_core::Simulation::standard(
            Model::discretize(&scene).expect("model"),
        ));
        eprintln!("{n}^3: model built in {:.1} s", t.elapsed().as_secs_f64());
        let src = model.source_values(0, warmup + steps + 20);
        let ns = model.sources.len();
        for (shape, &linear) in shapes.iter().flat_map(|s| linears.iter().map(move |l| (s, l))) {
            for (&cap, &align) in caps.iter().flat_map(|c| aligns.iter().map(move |a| (c, a))) {
                for &unc in &unchecked {
                    let cfg = GpuConfig {
                        binding_cap: cap,
                        shapes: Some(Shapes {
                            linear,
                            ..Shapes::parse(shape, 1024).expect("shape")
                        }),
                        unchecked: Some(unc),
                        row_align: align,
                    };
                    let mut b = match GpuBackend::with_config(model.clone(), &opts, &cfg) {
                        Ok(b) => b,
                        Err(e) => {
                            println!("{n:>5} {shape:>8}: {e}");
                            continue;
                        }
                    };
                    b.step(0, warmup, &src[..warmup * ns]).unwrap();
                    b.read_region(Component::Ez, [0; 3], [1; 3]).unwrap();
                    let t = Instant::now();
                    let mut done = 0;
                    while done < steps {
                        let c = 64.min(steps - done);
                        let n0 = warmup + done;
                        b.step(n0, c, &src[n0 * ns..(n0 + c) * ns]).unwrap();
                        done += c;
                    }
                    b.read_region(Component::Ez, [0; 3], [1; 3]).unwrap();
                    let s = t.elapsed().as_secs_f64();
                    let mc = model.grid.cells() as f64 * steps as f64 / s / 1e6;
                    println!(
                        "{n:>5} {cpml:>4} {shape:>8} {linear:>6} {:>10} {:>5} {:>9} {:>5} {:>7} {:>10.3} {:>10.1} {:>11}",
                        cap.map_or("-".into(), human_bytes),
                        align.map_or("-".into(), |a| a.to_string()),
                        unc,
                        b.pieces(),
                        b.steps_per_submit(),
                        s,
                        mc,
                        human_bytes(b.memory_plan().total())
                    );
                    if profile {
                        let n0 = warmup + steps;
                        match b.profile_steps(n0, 20, &src[n0 * ns..(n0 + 20) * ns]) {
                            Ok(rows) => {
                                let sum: f64 = rows.iter().map(|r| r.1).sum();
                                for (name, sec, count) in rows {
                                    println!(
                                        "        {name:<16} {count:>4} dispatches {:>9.1} us/step {:>5.1}%  {:>8.1} Mcells/s alone",
                                        sec * 1e6,
                                        100.0 * sec / sum,
                                        model.grid.cells() as f64 / sec / 1e6
                                    );
                                }
                                println!("        sum of kernels {:.1} us/step", sum * 1e6);
                            }
                            Err(e) => println!("        profile: {e}"),
                        }
                    }
                }
            }
        }
    }
}

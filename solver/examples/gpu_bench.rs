//! GPU kernel-shape benchmark: builds each benchmark cube once (the same scene as
//! `fdtd bench`: vacuum, 10-cell CPML, a soft dipole), then times the GPU backend with
//! several workgroup shapes / binding caps / bounds-check settings on it.
//!
//! ```text
//! cargo run --release --example gpu_bench -- --sizes 256,512 --steps 200 \
//!     --shapes 128x1,64x1,256x1,32x8 [--caps 256M] [--unchecked] [--dielectric] [--device NAME]
//! ```
//!
//! Prints one line per (size, variant): Mcells/s over the timed steps (after a warm-up),
//! steps per submission, x slabs, and the memory plan.
use fdtd::backend::gpu::{parse_bytes, GpuBackend, GpuConfig, Shapes};
use fdtd::backend::{Backend, BackendOptions};
use fdtd::model::Model;
use fdtd::plan::human_bytes;
use fdtd::Component;
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let mut sizes = vec![128usize, 256];
    let mut steps = 200usize;
    let mut shapes = vec!["128x1".to_string()];
    let mut caps: Vec<Option<u64>> = vec![None];
    let mut unchecked = vec![false];
    let mut dielectric = false;
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
        "{:>5} {:>8} {:>10} {:>9} {:>5} {:>7} {:>10} {:>10} {:>11}",
        "size", "shape", "cap", "unchecked", "slabs", "steps", "seconds", "Mcells/s", "plan"
    );
    for &n in &sizes {
        let t = Instant::now();
        let scene = fdtd::bench::bench_scene(n, 10, warmup + steps, dielectric);
        let model = Arc::new(Model::discretize(&scene).expect("model"));
        eprintln!("{n}^3: model built in {:.1} s", t.elapsed().as_secs_f64());
        let src = model.source_values(0, warmup + steps);
        let ns = model.sources.len();
        for shape in &shapes {
            for &cap in &caps {
                for &unc in &unchecked {
                    let cfg = GpuConfig {
                        binding_cap: cap,
                        shapes: Some(Shapes::parse(shape, 1024).expect("shape")),
                        unchecked: Some(unc),
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
                        "{n:>5} {shape:>8} {:>10} {:>9} {:>5} {:>7} {:>10.3} {:>10.1} {:>11}",
                        cap.map_or("-".into(), human_bytes),
                        unc,
                        b.pieces(),
                        b.steps_per_submit(),
                        s,
                        mc,
                        human_bytes(b.memory_plan().total())
                    );
                }
            }
        }
    }
}

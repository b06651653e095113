//! Experiment: cost of CPML faces per axis, and the fused sweep against two passes,
//! measured as ratios in one run:
//! `cargo run --release --example exp_cpml -- N THREADS`.
use fdtd_core::backend::Backend;
use fdtd_core::scene::Boundary;
use fdtd_cpu::{CpuBackend, Sweep};
use std::sync::Arc;

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let n = *args.first().unwrap_or(&128);
    let threads = *args.get(1).unwrap_or(&0);
    for round in 0..2 {
        for mask in ["", "x", "y", "z", "xyz"] {
            for schedule in [Sweep::Fused, Sweep::TwoPass] {
                let mut s = fdtd_core::workload::bench_scene(n, 10, 60, false);
                for a in 0..3 {
                    if !mask.contains(["x", "y", "z"][a]) {
                        s.boundaries.faces[2 * a] = Boundary::Pec;
                        s.boundaries.faces[2 * a + 1] = Boundary::Pec;
                    }
                }
                let m = Arc::new(fdtd_core::Simulation::standard(
                    fdtd_core::model::Model::discretize(&s).unwrap(),
                ));
                let mut b = CpuBackend::new(m.clone(), threads).unwrap();
                b.sweep = schedule;
                let src = m.source_values(0, 60);
                b.step(0, 10, &src[..10]).unwrap();
                let t = std::time::Instant::now();
                b.step(10, 50, &src[10..60]).unwrap();
                let dt = t.elapsed().as_secs_f64();
                println!(
                    "round {round} cpml on {mask:4} {schedule:?}: {:.1} Mcells/s",
                    (n * n * n * 50) as f64 / dt / 1e6
                );
            }
        }
    }
}

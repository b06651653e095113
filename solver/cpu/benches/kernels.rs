//! Criterion benches of the CPU kernels: one full Yee step (H and E sweeps with the
//! fused CPML corrections) on vacuum cubes, with and without CPML, and with a
//! dielectric sphere (mixed-material rows). Throughput is reported in cells.
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fdtd_core::backend::Backend;
use fdtd_core::model::Model;
use fdtd_core::scene::Boundary;
use fdtd_core::workload::bench_scene;
use fdtd_cpu::CpuBackend;
use std::sync::Arc;

fn step(c: &mut Criterion) {
    let mut g = c.benchmark_group("cpu_step");
    g.sample_size(10);
    for n in [64usize, 128] {
        for (label, cpml, dielectric) in [("pec", 0, false), ("cpml10", 10, false), ("cpml10_sphere", 10, true)] {
            let mut scene = bench_scene(n, cpml.max(1), 1_000_000, dielectric);
            if cpml == 0 {
                scene.boundaries.faces = std::array::from_fn(|_| Boundary::Pec);
            }
            let model = Arc::new(fdtd_core::Simulation::standard(Model::discretize(&scene).unwrap()));
            let mut backend = CpuBackend::new(model.clone(), 0).unwrap();
            let src = model.source_values(0, 1);
            g.throughput(Throughput::Elements(model.grid.cells()));
            g.bench_with_input(BenchmarkId::new(label, n), &n, |b, _| {
                b.iter(|| backend.step(0, 1, &src).unwrap());
            });
        }
    }
    g.finish();
}

criterion_group!(benches, step);
criterion_main!(benches);

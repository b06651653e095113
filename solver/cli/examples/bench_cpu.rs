//! Quick CPU benchmark without the CLI:
//! `cargo run --release --example bench_cpu -- SIZE STEPS CPML`.
fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let opts = fdtd::bench::BenchOptions {
        sizes: vec![*args.first().unwrap_or(&160)],
        steps: *args.get(1).unwrap_or(&100),
        cpml: *args.get(2).unwrap_or(&10),
        ..Default::default()
    };
    fdtd::bench::run(&opts, &mut std::io::stdout()).unwrap();
}

//! Subpixel averaging: the observed convergence order of a dielectric sphere's resonance
//! in a PEC box. The case, its scenes and its bounds are in
//! `fdtd_validation::cases::subpixel`.
//!
//! On the CPU only: averaging changes the coefficient tables and nothing else, and the
//! GPU backend reads the same tables (an averaged sphere and cylinder step bit for bit
//! alike on both backends: `tests/gpu_parity.rs`); the GPU instance of this case costs
//! 200 s on lavapipe (its cost is per step) and proves nothing more there. `fdtd
//! validate --backend gpu` runs it on a real GPU (the H200: order 3.88, as the CPU).
#[test]
fn a_resonance_converges_at_second_order_with_subpixel_averaging() {
    // Cylinder (E tangential to its surface): observed order with averaging > 1.6; its
    // error at 0.5 mm below a quarter of the staircase's. The sphere is logged.
    fdtd_validation::suite::check(
        fdtd_validation::cases::subpixel::CONVERGENCE,
        &fdtd_validation::cases::BackendSpec::cpu(),
        fdtd_validation::cases::Size::Full,
    );
}

/// The full study (not run by default: about two minutes on 2 cores): the resonance of
/// the cylinder and of the sphere at 2, 1, 0.8, 0.5, 0.4 and 0.25 mm (or the sizes in
/// mm of `SUBPIXEL_CELLS_MM`, comma-separated) with and without averaging, and the orders
/// of each halving (README's validation table). `cargo test --release -p fdtd-validation
/// --test subpixel -- --ignored --nocapture`.
#[test]
#[ignore]
fn study() {
    use fdtd_validation::cases::subpixel::{study, Object};
    let cells = std::env::var("SUBPIXEL_CELLS_MM").map_or(vec![2.0, 1.0, 0.8, 0.5, 0.4, 0.25], |s| {
        s.split(',')
            .map(|x| x.trim().parse().expect("SUBPIXEL_CELLS_MM: mm, comma-separated"))
            .collect()
    });
    let cells: Vec<f64> = cells.iter().map(|mm| mm * 1e-3).collect();
    for object in [Object::Cylinder, Object::Sphere]
        .into_iter()
        .filter(|o| std::env::var("SUBPIXEL_ONLY").map_or(true, |s| format!("{o:?}") == s))
    {
        for line in study(object, &cells).unwrap() {
            println!("{object:?} {line}");
        }
    }
}

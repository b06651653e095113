//! Energy in a closed lossless PEC cavity, and Courant stability. The energy case, its
//! scene and its bound are in `fdtd_validation::cases::energy`.
//!
//! The GPU runs the quick size (2 mm cells, 3200 steps; the same 1e-5 bound, argued in
//! the case): 10⁴ steps take minutes on a software GPU (lavapipe).
use fdtd::model::Model;
use fdtd_validation::cases::energy::cavity;

fdtd_validation::backend_tests! {
    /// The discrete energy of a PEC cavity with ε and μ objects drifts < 1e-5 over 10⁴
    /// steps at Courant 0.99.
    fn pec_cavity_conserves_discrete_energy_over_1e4_steps_at_courant_0_99 => energy::CASE, gpu: Quick;
}

#[test]
fn courant_above_one_is_refused() {
    let err = fdtd::scene::Scene::parse(&cavity(1.01, 1, 10200), "c.toml")
        .map(|s| Model::discretize(&s).map(|_| ()).map_err(|e| e.to_string()))
        .map_err(|e| e.to_string());
    let msg = match err {
        Err(e) | Ok(Err(e)) => e,
        Ok(Ok(())) => panic!("Courant 1.01 was accepted"),
    };
    assert!(msg.contains("ourant"), "{msg}");
}

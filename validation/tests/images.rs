//! Far fields over PEC/PMC faces (`fdtd_validation::cases::images`) on both backends: a
//! quarter-wave monopole over an infinite PEC ground against image theory and its PMC
//! half-model against the whole, and the co-/cross-polar split of a Hertzian dipole.
//!
//! Without an adapter the GPU half prints "skipped" and passes, unless `CI` is set.
fdtd_validation::backend_tests! {
    /// D within 0.15 dB of the dipole of 2h + 3.01 dB, pattern within 0.02, P_rad = P_acc within 2 %.
    fn monopole_over_pec_ground_is_image_theory => images::MONOPOLE, gpu: Quick;
    /// PMC half-model (and with a PEC ground too) = whole model: D 0.02 dB, pattern 0.005, P_rad 0.5 %.
    fn half_model_on_a_symmetry_plane_is_the_whole_model => images::HALF_MODEL, gpu: Quick;
    /// θ reference: cross-pol ≤ −40 dB, AR > 40 dB; Ludwig 3 (x): cross = 0 in the xz plane.
    fn dipole_polarization_is_linear_and_theta_polarised => images::POLARIZATION, gpu: Quick;
}

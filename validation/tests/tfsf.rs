//! TF/SF plane waves: leakage of an empty box into the scattered field (≤ −60 dB) and the
//! incident pulse inside it, along axes and obliquely, both polarisations, on both
//! backends (`fdtd_validation::cases::tfsf`, bounds argued there); the two backends'
//! runs agree within the regression tolerance.
fdtd_validation::backend_tests! {
    /// Along +z (E along x, then y) and +x: leakage ≤ −60 dB, the pulse within 2 %.
    fn tfsf_box_along_axes_leaks_nothing => tfsf::AXIS, gpu: Full;
    /// θ = 30°, φ = 20°, ψ = 0° and 90°: leakage ≤ −60 dB, the pulse within 2 %.
    fn tfsf_box_oblique_leaks_nothing => tfsf::OBLIQUE, gpu: Full;
}

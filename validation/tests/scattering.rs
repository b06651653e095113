//! Plane-wave results from one run: a sphere's cross sections balance (σ_ext = σ_sca +
//! σ_abs, lossless absorbs nothing) and a periodic unit cell's R and T match the slab
//! formula, on both backends (`fdtd_validation::cases::scattering`, bounds argued there).
fdtd_validation::backend_tests! {
    /// Lossy and lossless dielectric spheres lit at θ 30°, φ 20°.
    fn sphere_cross_sections_balance => scattering::ENERGY, gpu: Quick;
    /// A slab in a unit cell periodic in x and y, normal incidence.
    fn unit_cell_reflectance_and_transmittance => scattering::UNIT_CELL, gpu: Full;
    /// A dielectric sphere's σ_ext and σ_sca against the Mie series.
    fn dielectric_sphere_matches_mie => scattering::MIE, gpu: Quick;
    /// A PEC sphere's monostatic RCS against the Mie series.
    fn pec_sphere_rcs_matches_mie => scattering::RCS_PEC, gpu: Quick;
}

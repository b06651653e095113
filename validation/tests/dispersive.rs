//! Dispersive media: Debye and Lorentz half-spaces against the scheme's discrete ε and
//! against Fresnel (`fdtd_validation::cases::dispersive`, bounds argued there), on both
//! backends; CPU/GPU parity of a 3-D box with every pole type; bit-identical resume
//! of the poles' state on the CPU.
fdtd_validation::backend_tests! {
    /// r within 1e-4 of the discrete r_d at 1–5 GHz; |r| within 1 % of Fresnel at ≥ 25 cells/λ.
    fn debye_half_space_reflects_as_its_discrete_permittivity => dispersive::DEBYE, gpu: Full;
    /// The same for a Lorentz half-space.
    fn lorentz_half_space_reflects_as_its_discrete_permittivity => dispersive::LORENTZ, gpu: Full;
}

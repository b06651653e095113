//! Fresnel reflection and transmission at normal incidence on a dielectric half-space,
//! and a plane wave's attenuation in a lossy dielectric, in a periodic 1 × 1-cell column.
//! The cases, their scenes and their bounds are in `fdtd_validation::cases::fresnel` and
//! `fdtd_validation::cases::lossy`.
fdtd_validation::backend_tests! {
    /// |r| and |t| on ε_r = 4 within 1 % at 1–6 GHz; convergence order in [1.6, 2.6).
    fn normal_incidence_reflection_and_transmission_match_fresnel => fresnel::CASE, gpu: Full;
    /// α(ω) in ε_r = 2, σ = 0.05 S/m within 1 % at 2, 3 and 5 GHz.
    fn lossy_dielectric_attenuates_as_theory => lossy::CASE, gpu: Full;
}

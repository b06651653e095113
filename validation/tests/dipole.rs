//! Hertzian dipole in free space against the exact near + far field solution. The case,
//! its scene and its bound are in `fdtd_validation::cases::dipole`.
//!
//! The GPU runs the quick size (the same cells, source and receivers in a domain cut to
//! 48 × 32 × 42 cells; the same 1 % bound, argued in the case): the 80³ domain takes
//! minutes on a software GPU (lavapipe).
fdtd_validation::backend_tests! {
    /// Broadside Ez and 45° Ez/Ex, 20 mm away in 1 mm cells: within 1 % of the peak.
    fn hertzian_dipole_matches_analytic_field_within_1_percent => dipole::CASE, gpu: Quick;
}

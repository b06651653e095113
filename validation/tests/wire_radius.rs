//! Thin wires honour their `radius` (`fdtd_validation::cases::wire_radius`) on both
//! backends: a 3 mm-cell dipole of `wire` objects with radius 0.05, 0.2 and 0.45 Δ
//! against the thin-wire method of moments with the same radius and a one-cell gap.
//!
//! Without an adapter the GPU half prints "skipped" and passes, unless `CI` is set.
fdtd_validation::backend_tests! {
    /// Resonance shift from the bare wire within 0.3 % of the MoM's, |f/f_MoM − 1| ≤ 3 %, |R − R_MoM| ≤ 3 Ω.
    fn wire_radius_moves_the_dipole_resonance_like_the_moment_method => wire_radius::CASE, gpu: Full;
}

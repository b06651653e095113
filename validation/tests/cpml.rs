//! CPML reflection against a reference run in a domain whose boundary is not seen, and
//! thin layers. The cases, their scenes and their bounds are in
//! `fdtd_validation::cases::cpml`.
//!
//! The GPU runs the reflection case at the quick size, the same geometry in 2D (a slab
//! one cell thick with periodic faces; the same −60 dB bound, argued in the case): the
//! 180³ reference takes tens of minutes on a software GPU (lavapipe).
fdtd_validation::backend_tests! {
    /// A 10-cell CPML 2 cells from the probe reflects ≤ −60 dB of the pulse's peak.
    fn ten_cell_cpml_reflects_below_minus_60_db => cpml::REFLECTION, gpu: Quick;
    /// 1- and 2-cell layers run, stay finite and absorb (late field < 0.2 of the peak).
    fn thin_cpml_layers_run_and_absorb => cpml::THIN, gpu: Full;
}

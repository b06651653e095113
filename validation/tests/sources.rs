//! Source normalisation against 1D theory in a periodic column. The cases, their scenes
//! and their bounds are in `fdtd_validation::cases::sources`.
fdtd_validation::backend_tests! {
    /// A soft current sheet radiates E = −η0·K/2, within 1 % of the peak.
    fn current_sheet_radiates_minus_eta0_k_over_2 => sources::CURRENT_SHEET, gpu: Full;
    /// A hard source sets the field that propagates, within 1 % of the peak.
    fn hard_source_sets_the_field_that_propagates => sources::HARD, gpu: Full;
}

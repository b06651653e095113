//! PEC rectangular cavity: resonant frequencies, and PMC walls that admit the modes
//! theory predicts. The cases, their scenes and their bounds are in
//! `fdtd_validation::cases::cavity`.
//!
//! The GPU runs the quick size: 12000 steps of the full cavity take minutes on a
//! software GPU (lavapipe), whose cost is mostly per step. The quick size is the same
//! box and record in 2 mm cells; the Yee-dispersion bound is unchanged, the continuum
//! bound scales with (k·d)² (the case's `scene_text` argues both).
fdtd_validation::backend_tests! {
    /// Modes (1,1,0), (1,0,1), (0,1,1), (1,1,1) of the PEC box: ≤ 0.02 % from the Yee
    /// dispersion relation, ≤ 0.1 % from the continuum formula (0.4 % at the quick size).
    fn cavity_resonances_match_yee_dispersion_and_continuum => cavity::PEC, gpu: Quick;
    /// PMC walls at x: modes (0,1,0) and (0,0,1) present (> 1e-2 of mode 110), absent
    /// from the PEC box (< 1e-3); the PEC modes still at their frequencies.
    fn pmc_walls_admit_the_modes_theory_predicts => cavity::PMC, gpu: Quick;
}

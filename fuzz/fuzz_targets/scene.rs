//! Scene text → `Scene::parse` → `Model::discretize` → the pre-run checks: nothing may
//! panic, whatever the input. Larger grids are parsed but not discretised here (the
//! CLI refuses grids that do not fit against the available RAM instead).
#![no_main]
use fdtd_core::model::Model;
use fdtd_core::scene::Scene;
use libfuzzer_sys::fuzz_target;

/// Largest grid (samples per component) discretised here: small, so that the fuzzer
/// runs many inputs a second (material averaging is O(cells × objects)).
const MAX_SAMPLES: u64 = 1 << 15;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(scene) = Scene::parse(text, "fuzz.toml") else {
        return;
    };
    let samples: u64 = scene.domain.cells.iter().map(|&c| c as u64 + 1).product();
    if samples > MAX_SAMPLES {
        return;
    }
    let _ = scene.checkpoint();
    if let Ok(model) = Model::discretize(&scene) {
        let model = fdtd_core::Simulation::standard(model);
        let _ = model.source_values(0, 2);
        let _ = fdtd_core::runner::preflight(&model);
        let _ = fdtd_core::checkpoint::fingerprint(&scene, &model);
        let _ = fdtd_core::checkpoint::size(&model);
    }
});

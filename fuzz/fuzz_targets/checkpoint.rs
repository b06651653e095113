//! Arbitrary bytes as a checkpoint file of a small model: `checkpoint::decode` must
//! refuse anything that is not a valid checkpoint of that model with an error, never
//! panic, and never allocate more than the model's own arrays (a corrupt length field
//! must not become a huge allocation).
#![no_main]
use fdtd::checkpoint;
use fdtd::model::Model;
use fdtd::scene::Scene;
use libfuzzer_sys::fuzz_target;
use std::path::Path;
use std::sync::OnceLock;

const SCENE: &str = "[domain]\ncell = 1e-3\ncells = [5, 4, 3]\n[time]\nsteps = 10\n[boundaries]\nall = \"pec\"\n\
                     x_min = \"cpml\"\n[boundaries.cpml]\ncells = 2\n";

fn model() -> &'static Model {
    static M: OnceLock<Model> = OnceLock::new();
    M.get_or_init(|| Model::discretize(&Scene::parse(SCENE, "f.toml").unwrap()).unwrap())
}

fuzz_target!(|data: &[u8]| {
    let m = model();
    if let Ok(c) = checkpoint::decode(Path::new("fuzz.ckpt"), data, m) {
        // Whatever decodes is a state of exactly the model's shape.
        c.state.check(m).expect("a decoded state fits its model");
    }
});

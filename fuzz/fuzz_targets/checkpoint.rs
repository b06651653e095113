//! Arbitrary bytes as a checkpoint file of a small model: `checkpoint::decode` must
//! refuse anything that is not a valid checkpoint of that model with an error, never
//! panic, and never allocate more than the model's own arrays (a corrupt length field
//! must not become a huge allocation).
#![no_main]
use fdtd_core::checkpoint;
use fdtd_core::model::Model;
use fdtd_core::Simulation;
use fdtd_core::scene::Scene;
use libfuzzer_sys::fuzz_target;
use std::path::Path;
use std::sync::OnceLock;

const SCENE: &str = "[domain]\ncell = 1e-3\ncells = [5, 4, 3]\n[time]\nsteps = 10\n[boundaries]\nall = \"pec\"\n\
                     x_min = \"cpml\"\n[boundaries.cpml]\ncells = 2\n";

fn model() -> &'static Simulation {
    static M: OnceLock<Simulation> = OnceLock::new();
    M.get_or_init(|| Simulation::standard(Model::discretize(&Scene::parse(SCENE, "f.toml").unwrap()).unwrap()))
}

fn check(data: &[u8]) {
    let m = model();
    if let Ok(c) = checkpoint::decode(Path::new("fuzz.ckpt"), data, m) {
        // Whatever decodes is a state of exactly the model's shape.
        c.state.check(&m.schedule.state).expect("a decoded state fits its model");
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    // The same bytes with both CRCs made right, so that mutated lengths and counts get
    // past the checksums to the layout checks (the header length is at bytes 12..16).
    if data.len() >= 136 {
        let mut d = data.to_vec();
        let h = u32::from_le_bytes(d[12..16].try_into().unwrap()) as usize;
        if (8..=d.len().saturating_sub(4)).contains(&h) {
            let crc = crc32fast::hash(&d[..h - 4]);
            d[h - 4..h].copy_from_slice(&crc.to_le_bytes());
            let n = d.len();
            let crc = crc32fast::hash(&d[h..n - 4]);
            d[n - 4..].copy_from_slice(&crc.to_le_bytes());
            check(&d);
        }
    }
});

//! The scenes users start from discretise: `scenes/*.toml` and the complete example in
//! `docs/scene-format.md` (their parsing is checked in `fdtd-scene`).
use fdtd_core::model::Model;
use fdtd_core::scene::Scene;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Every scene shipped in `scenes/` discretises, has live sources and stays small
/// enough to run in about a minute on a laptop.
#[test]
fn example_scenes_discretise() {
    let mut count = 0;
    for entry in std::fs::read_dir(root().join("scenes")).expect("scenes/ directory") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let scene = Scene::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let name = path.display();
        let model = Model::discretize(&scene).unwrap_or_else(|e| panic!("{name}: {e}"));
        let work = model.grid.cells() as f64 * model.grid.steps as f64;
        // A scene with an end criterion stops well before its maximum (antenna.toml: at
        // 5720 of 10491 steps, 1.3e10 updates, 40 s on 2 cores; patch.toml at 13880 of
        // 34792, 1.9e10 updates, about 2 minutes): its maximum may be larger.
        let limit = if model.decay_db.is_some() { 6e10 } else { 3e9 };
        assert!(
            work <= limit,
            "{name}: {work:e} cell updates is too slow for an example"
        );
        assert!(!model.sources.is_empty(), "{name}: no live source");
        for s in &model.sources {
            assert!(s.scale != 0.0, "{name}: source {} sits on a PEC sample", s.name);
        }
        if let Some((f, cells_per_wavelength)) = model.resolution {
            assert!(
                cells_per_wavelength >= 10.0,
                "{name}: {cells_per_wavelength} cells/wavelength at {f:e} Hz"
            );
        }
        count += 1;
    }
    assert!(count >= 4, "expected the four example scenes");
}

/// The complete example in docs/scene-format.md discretises.
#[test]
fn documented_example_discretises() {
    let doc = std::fs::read_to_string(root().join("docs/scene-format.md")).expect("docs/scene-format.md");
    let start = doc.find("```toml\n").expect("a ```toml block") + "```toml\n".len();
    let end = start + doc[start..].find("```").expect("end of the block");
    let scene = Scene::parse(&doc[start..end], "scene-format.md").unwrap_or_else(|e| panic!("{e}"));
    Model::discretize(&scene).unwrap_or_else(|e| panic!("{e}"));
}

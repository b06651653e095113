//! Sweep-file text → `spec::parse` → expression evaluation and expansion against a small
//! base scene (each variant's scene written and parsed), without running or writing
//! anything: nothing may panic or overflow the stack, whatever the input.
#![no_main]
use fdtd_sweep::spec::{self, Overrides};
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

/// A small scene with every kind of key a sweep sets: numbers, integers, array
/// elements, array-of-tables entries, strings.
const BASE: &str = r#"
[domain]
cell = 1e-3
size = [0.01, 0.01, 0.01]
[time]
steps = 10
[boundaries]
all = "pec"
[materials.sub]
eps_r = 2.0
[[objects]]
shape = "sphere"
material = "sub"
center = [0.005, 0.005, 0.005]
radius = 0.002
[[sources]]
type = "current"
component = "Ez"
position = [0.005, 0.005, 0.005]
waveform = { type = "gaussian_derivative", frequency = 5e9, amplitude = 1.0 }
[[probes]]
name = "p"
position = [0.004, 0.005, 0.005]
components = ["Ez"]
"#;

/// Most variants expanded per input (each is a scene parse).
const MAX_VARIANTS: usize = 64;

fn base() -> &'static PathBuf {
    static BASE_PATH: OnceLock<PathBuf> = OnceLock::new();
    BASE_PATH.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("fdtd-fuzz-sweep-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let p = dir.join("base.toml");
        std::fs::write(&p, BASE).expect("base scene");
        p
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let overrides = Overrides {
        directory: None,
        base: Some(base().clone()),
    };
    let Ok(spec) = spec::parse_with(text, std::path::Path::new("fuzz/sweep.toml"), &overrides) else {
        return;
    };
    let n = spec
        .parameters
        .iter()
        .try_fold(1usize, |acc, p| acc.checked_mul(p.values.len()))
        .unwrap_or(usize::MAX);
    if n > MAX_VARIANTS {
        return;
    }
    if let Ok(variants) = fdtd_sweep::expand(&spec, |id| PathBuf::from(format!("fuzz/{id}/scene.toml"))) {
        let _ = fdtd_sweep::expand::check(&variants);
        for v in &variants {
            let _ = v.describe();
        }
    }
});

//! The explicit lumped-inductor update's stability bound
//! (`fdtd::model::lumped::inductor_limit`), checked against real runs on the CPU backend
//! just below and just above it, and the refusal and instability messages that name the
//! element.
use fdtd::backend::{create, BackendChoice, BackendOptions};
use fdtd::model::Model;
use fdtd::runner::{self, MemorySink, RunOptions};
use fdtd::scene::Scene;
use std::process::Command;
use std::sync::Arc;

/// A PEC box of 2 mm cells (Courant 0.99) with a one-edge inductor `coil` of `l` H.
fn scene(l: f64, steps: usize) -> String {
    format!(
        r#"
[domain]
cell = 2e-3
size = [0.04, 0.04, 0.04]
[time]
steps = {steps}
[boundaries]
all = "pec"
[[sources]]
name = "tx"
type = "current"
component = "Ez"
position = [0.012, 0.02, 0.02]
waveform = {{ type = "gaussian", frequency = 4e9 }}
[[lumped]]
name = "coil"
start = [0.02, 0.02, 0.018]
end = [0.02, 0.02, 0.020]
l = {l:e}
[[probes]]
name = "p"
position = [0.02, 0.02, 0.019]
components = ["Ez"]
"#
    )
}

fn model(l: f64, steps: usize) -> Model {
    Model::discretize(&Scene::parse(&scene(l, steps), "coil.toml").unwrap()).unwrap()
}

/// Run `model` on the CPU without the pre-flight check: Ok or the instability's message.
fn run_cpu(model: Model) -> Result<(), String> {
    let model = Arc::new(fdtd_core::Simulation::standard(model));
    let (mut backend, _) = create(model.clone(), BackendChoice::Cpu, &BackendOptions::default()).unwrap();
    let mut sink = MemorySink::new(&model);
    runner::run(&model, backend.as_mut(), &mut sink, &RunOptions::default(), None)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn runs_just_below_the_inductor_bound_diverge_and_just_above_run() {
    let steps = 6000;
    let (_, limit, l_min) = model(1e-9, steps).lumped[0]
        .inductor_stability(&model(1e-9, steps).grid)
        .unwrap();
    // The bound itself (without the margin), where cb·k meets inductor_limit.
    let l_crit = l_min / fdtd::model::lumped::INDUCTOR_MARGIN;
    assert!(
        (1.9..2.0).contains(&(limit * fdtd::model::lumped::INDUCTOR_MARGIN)),
        "{limit}"
    );
    assert!((0.40e-9..0.45e-9).contains(&l_crit), "{l_crit}");

    // 3 % below the bound: refused before running, and a run forced past the check
    // diverges with a message that names the inductor.
    let below = model(0.97 * l_crit, steps);
    let refusal = runner::preflight(&below).unwrap_err();
    assert!(
        refusal.contains("lumped element `coil`") && refusal.contains("smallest stable"),
        "{refusal}"
    );
    let diverged = run_cpu(below).unwrap_err();
    assert!(diverged.contains("numerical instability"), "{diverged}");
    assert!(diverged.contains("lumped element `coil`"), "{diverged}");
    let first_cause = diverged.lines().find(|l| l.trim_start().starts_with("- ")).unwrap();
    assert!(
        first_cause.contains("coil"),
        "the inductor is not named first: {diverged}"
    );

    // 3 % above the smallest stable L (margin included): accepted, and it runs.
    let above = model(1.03 * l_min, steps);
    runner::preflight(&above).unwrap();
    run_cpu(above).unwrap();
}

#[test]
fn check_refuses_an_inductor_below_the_bound_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("c.toml"), scene(0.3e-9, 100)).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_fdtd"))
        .args(["check", "c.toml"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("lumped element `coil`: l = 300 pH is below the smallest stable inductance"),
        "{err}"
    );
    assert!(!err.contains("Courant factor is"), "{err}");
}

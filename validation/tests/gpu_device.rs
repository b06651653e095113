//! GPU backend failure paths: device loss, plans that do not fit, adapter listing.
//!
//! Like `gpu_parity.rs`: without an adapter these print "skipped: no GPU adapter
//! (why)" and pass, unless `CI` is set (then they fail).
use fdtd::backend::gpu::{self, GpuBackend};
use fdtd::backend::{probe_buffers, Backend, BackendError, BackendOptions};
use fdtd::model::Model;
use fdtd::Component;
use fdtd_validation::scene;
use std::sync::Arc;

const SMALL: &str = r#"
[domain]
cell = 1e-3
cells = [12, 10, 8]
[time]
steps = 50
[boundaries]
all = "cpml"
[boundaries.cpml]
cells = 2
[[sources]]
type = "current"
component = "Ez"
position = [0.006, 0.005, 0.0045]
waveform = { type = "ricker", frequency = 40e9 }
[[probes]]
name = "p"
position = [0.008, 0.005, 0.004]
components = ["Ez"]
"#;

fn small() -> Arc<fdtd_core::Simulation> {
    Arc::new(fdtd_core::Simulation::standard(
        Model::discretize(&scene(SMALL)).unwrap(),
    ))
}

fn skip_or_fail(why: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("CI is set, so a GPU adapter (lavapipe) must exist, but: {why}");
    }
    eprintln!("skipped: no GPU adapter ({why})");
}

fn backend(m: &Arc<fdtd_core::Simulation>) -> Option<GpuBackend> {
    match GpuBackend::new(m.clone(), &BackendOptions::default()) {
        Ok(b) => Some(b),
        Err(BackendError::NoDevice(why)) => {
            skip_or_fail(&why);
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// A lost device (simulated by destroying it, as a driver reset does) is reported as
/// `DeviceLost` by the next call, with a message, and never hangs or panics.
#[test]
fn gpu_device_loss_is_an_error() {
    let m = small();
    let Some(mut b) = backend(&m) else { return };
    let src = m.source_values(0, 20);
    b.step(0, 20, &src).expect("steps before the loss");
    assert_eq!(probe_buffers(&m, b.drain_outputs().unwrap())[0][0].len(), 20);
    b.inject_device_loss();
    let src = m.source_values(20, 10);
    match b.step(20, 10, &src) {
        Err(BackendError::DeviceLost(msg)) => {
            println!("step after loss: {msg}");
            assert!(msg.contains("destroyed"), "{msg}");
        }
        other => panic!("expected DeviceLost, got {other:?}"),
    }
    assert!(matches!(b.read_field(Component::Ez), Err(BackendError::DeviceLost(_))));
    assert!(matches!(b.drain_outputs(), Err(BackendError::DeviceLost(_))));

    // Lost while a submission is still in flight (step returns before the last
    // submission finishes): the next call that waits reports it.
    let Some(mut b) = backend(&m) else { return };
    let src = m.source_values(0, 30);
    b.step(0, 30, &src).expect("steps before the loss");
    b.inject_device_loss();
    match b.drain_outputs() {
        Err(BackendError::DeviceLost(_)) => {}
        other => panic!("expected DeviceLost, got {:?}", other.map(|_| ())),
    }
}

/// The plan is checked before anything is allocated, and a plan that does not fit
/// says what was needed, what is available and what would fit.
#[test]
fn gpu_plan_reports_what_does_not_fit() {
    let m = small();
    let opts = BackendOptions::default();
    let (plan, dev) = match gpu::plan(&m, &opts) {
        Ok(x) => x,
        Err(BackendError::NoDevice(why)) => return skip_or_fail(&why),
        Err(e) => panic!("{e}"),
    };
    println!("{}\n{plan}", dev.short());
    assert!(plan.buffers.iter().any(|b| b.name.starts_with("fields E")));
    assert!(plan.buffers.iter().any(|b| b.name.starts_with("ghost planes")));
    // The grid's planes are 11 x 9 samples; a binding cap below 3 planes cannot work.
    match GpuBackend::with_binding_cap(m.clone(), &opts, Some(11 * 9 * 4 * 2)) {
        Err(BackendError::DoesNotFit(msg)) => {
            println!("{msg}");
            assert!(msg.contains("largest storage binding"), "{msg}");
        }
        Err(e) => panic!("expected DoesNotFit, got {e}"),
        Ok(_) => panic!("expected DoesNotFit"),
    }
    // A memory fraction so small that the plan exceeds it (only where the device
    // reports its memory; otherwise the plan relies on the limits alone).
    if let Some(avail) = dev.memory.available() {
        let big = Arc::new(fdtd_core::Simulation::standard(
            Model::discretize(&scene(&SMALL.replace("cells = [12, 10, 8]", "cells = [100, 100, 100]"))).unwrap(),
        ));
        let need = gpu::plan(&big, &opts).expect("a 100^3 plan fits").0.total();
        let tight = BackendOptions {
            gpu_memory_fraction: Some(need as f64 / avail as f64 / 2.0),
            ..Default::default()
        };
        match gpu::plan(&big, &tight) {
            Err(BackendError::DoesNotFit(msg)) => {
                println!("{msg}");
                assert!(msg.contains("What would fit"), "{msg}");
                assert!(msg.contains("CPU backend"), "{msg}");
                assert!(!msg.contains("--"), "library errors name no command-line flags: {msg}");
            }
            other => panic!("expected DoesNotFit, got {:?}", other.map(|(p, _)| p.total())),
        }
    }
}

/// `fdtd devices` text: every adapter, and which one `--backend gpu` uses.
#[test]
fn gpu_describe_devices_lists_adapters() {
    let text = gpu::describe_devices();
    println!("{text}");
    if text.starts_with("GPU adapters: none") {
        return skip_or_fail(&text);
    }
    assert!(text.contains("--backend gpu uses ["), "{text}");
    assert!(text.contains("max storage binding"), "{text}");
}

/// Selecting an adapter by name substring and by an index out of range.
#[test]
fn gpu_device_selection_by_name_and_index() {
    let m = small();
    let Some(b) = backend(&m) else { return };
    let name = b.device_info().name.clone();
    let part = name.split_whitespace().next().unwrap().to_uppercase();
    let by_name = GpuBackend::new(
        m.clone(),
        &BackendOptions {
            device: Some(part.clone()),
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("--device {part}: {e}"));
    assert!(by_name.device_info().name.to_uppercase().contains(&part));
    let bad = GpuBackend::new(
        m,
        &BackendOptions {
            device: Some("999".into()),
            ..Default::default()
        },
    );
    assert!(matches!(bad, Err(BackendError::NoDevice(_))));
}

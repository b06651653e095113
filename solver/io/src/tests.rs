//! Round trips through the HDF5 writer: a small run written to a temp file and read back.
use super::*;
use ::hdf5::types::VarLenUnicode;
use ::hdf5::{File, Location};
use fdtd_core::model::Model;
use fdtd_core::runner::{run, sample_time, MemorySink, Outcome, RunOptions};
use fdtd_core::scene::{
    Boundaries, Boundary, CpmlParams, Domain, Material, MaterialKind, Object, Probe, Region, Scene, Shape, Snapshot,
    Source, SourceKind, Time, TimeEnd,
};
use fdtd_core::waveform::Waveform;
use fdtd_core::Component::{self, *};
use fdtd_cpu::CpuBackend;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

const STEPS: usize = 40;

fn scene() -> Scene {
    let d = 1e-3;
    let cpml = Boundary::Cpml(CpmlParams {
        cells: 3,
        ..CpmlParams::default()
    });
    Scene {
        path: PathBuf::from("inline/test.toml"),
        text: "# a test scene\n[domain]\ncells = [12, 10, 8]\n".into(),
        domain: Domain {
            cells: [12, 10, 8],
            cell_size: [d, d, d],
        },
        time: Time {
            end: TimeEnd::Steps(STEPS),
            courant: 0.99,
            decay_db: None,
        },
        boundaries: Boundaries {
            faces: [
                cpml.clone(),
                cpml,
                Boundary::Pec,
                Boundary::Pec,
                Boundary::Pmc,
                Boundary::Pmc,
            ],
        },
        materials: vec![
            Material::vacuum(),
            Material::pec(),
            Material {
                name: "glass".into(),
                kind: MaterialKind::Dielectric {
                    eps_r: 4.0,
                    mu_r: 1.0,
                    sigma: 0.01,
                },
                poles: Vec::new(),
            },
        ],
        objects: vec![Object {
            material: 2,
            shape: Shape::Box {
                min: [7e-3, 2e-3, 2e-3],
                max: [10e-3, 8e-3, 6e-3],
            },
            subpixel: false,
        }],
        sources: vec![Source {
            name: "dipole".into(),
            kind: SourceKind::Current,
            component: Ez,
            position: [4e-3, 5e-3, 4e-3],
            waveform: Waveform::gaussian_from_frequency(1.0, 60e9),
        }],
        plane_waves: Vec::new(),
        probes: vec![
            Probe {
                name: "near".into(),
                position: [6.2e-3, 5.1e-3, 4.3e-3],
                components: vec![Ex, Ez, Hy],
                every: 1,
            },
            Probe {
                name: "hz_only".into(),
                position: [8e-3, 4e-3, 4e-3],
                components: vec![Hz],
                every: 3,
            },
        ],
        snapshots: vec![
            Snapshot {
                name: "zplane".into(),
                region: Region::Plane {
                    axis: 2,
                    position: 4e-3,
                },
                components: vec![Hx, Ez],
                every: 5,
            },
            Snapshot {
                name: "box".into(),
                region: Region::Box {
                    min: [2e-3, 2e-3, 1e-3],
                    max: [9e-3, 7e-3, 6e-3],
                },
                components: vec![Ex, Hz],
                every: 10,
            },
        ],
        monitors: vec![],
        farfields: vec![],
        cross_sections: vec![],
        ports: vec![],
        lumped: vec![],
        frequencies: None,
        drive_each: false,
    }
}

fn model() -> Arc<fdtd_core::Simulation> {
    Arc::new(fdtd_core::Simulation::standard(
        Model::discretize(&scene()).expect("test scene discretizes"),
    ))
}

fn memory_run(m: &Arc<fdtd_core::Simulation>) -> MemorySink {
    let mut b = CpuBackend::new(m.clone(), 1).unwrap();
    let mut sink = MemorySink::new(m);
    run(m, &mut b, &mut sink, &RunOptions::default(), None).unwrap();
    sink
}

fn s_attr(loc: &Location, name: &str) -> String {
    loc.attr(name)
        .unwrap_or_else(|e| panic!("attribute {name}: {e}"))
        .read_scalar::<VarLenUnicode>()
        .unwrap()
        .as_str()
        .to_string()
}

fn f_attr(loc: &Location, name: &str) -> f64 {
    loc.attr(name).unwrap().read_scalar::<f64>().unwrap()
}

fn u_attr(loc: &Location, name: &str) -> u64 {
    loc.attr(name).unwrap().read_scalar::<u64>().unwrap()
}

fn fv_attr(loc: &Location, name: &str) -> Vec<f64> {
    loc.attr(name).unwrap().read_raw::<f64>().unwrap()
}

fn uv_attr(loc: &Location, name: &str) -> Vec<u64> {
    loc.attr(name).unwrap().read_raw::<u64>().unwrap()
}

fn bits64(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn bits32(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn a_run_reads_back_bit_for_bit() {
    let sc = scene();
    let m = model();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.h5");

    let mut backend = CpuBackend::new(m.clone(), 1).unwrap();
    let desc = fdtd_core::backend::Backend::describe(&backend);
    let mut sink = Hdf5Sink::create(&path, &sc, &m, &desc, false).unwrap();
    // Small chunks: many appends per dataset.
    let opts = RunOptions {
        chunk: 7,
        ..RunOptions::default()
    };
    let summary = run(&m, &mut backend, &mut sink, &opts, None).unwrap();
    assert_eq!(summary.outcome, Outcome::Finished);
    assert!(sink.contents().iter().any(|c| c.contains("near")));
    sink.finish(summary.outcome).unwrap();
    let mem = memory_run(&m);

    let f = File::open(&path).unwrap();
    let g = &m.grid;
    // Root attributes.
    assert_eq!(s_attr(&f, "fdtd_version"), env!("CARGO_PKG_VERSION"));
    assert_eq!(s_attr(&f, "scene"), sc.text);
    assert_eq!(s_attr(&f, "scene_path"), "inline/test.toml");
    assert_eq!(s_attr(&f, "backend"), "cpu");
    // The device by name; the backend's whole line beside it.
    assert_eq!(s_attr(&f, "device"), crate::BackendLine::parse(&desc).device);
    assert!(s_attr(&f, "device").starts_with("CPU ("), "{}", s_attr(&f, "device"));
    assert_eq!(s_attr(&f, "device_detail"), desc);
    assert_eq!(s_attr(&f, "precision"), "float32");
    assert_eq!(f_attr(&f, "dx"), g.d[0]);
    assert_eq!(f_attr(&f, "dy"), g.d[1]);
    assert_eq!(f_attr(&f, "dz"), g.d[2]);
    assert_eq!(f_attr(&f, "dt"), g.dt);
    assert_eq!(f_attr(&f, "courant"), 0.99);
    assert_eq!(u_attr(&f, "steps"), STEPS as u64);
    assert_eq!(u_attr(&f, "steps_done"), STEPS as u64);
    assert_eq!(uv_attr(&f, "shape"), vec![12, 10, 8]);
    assert_eq!(s_attr(&f, "status"), "complete");
    assert_eq!(s_attr(&f, "index_convention"), INDEX_CONVENTION);

    // Probes.
    for (pi, p) in m.probes.iter().enumerate() {
        let grp = f.group(&format!("probes/{}", p.name)).unwrap();
        assert_eq!(fv_attr(&grp, "requested_position"), p.position.to_vec());
        let has_e = p.samples.iter().any(|s| s.component.is_electric());
        let has_h = p.samples.iter().any(|s| !s.component.is_electric());
        assert_eq!(grp.link_exists("time"), has_e, "{}", p.name);
        assert_eq!(grp.link_exists("time_h"), has_h, "{}", p.name);
        for (slot, s) in p.samples.iter().enumerate() {
            let c = s.component;
            let ds = grp.dataset(c.name()).unwrap();
            let (t_mem, v_mem) = &mem.probes[pi][slot];
            let n = STEPS / p.every;
            assert_eq!(ds.shape(), vec![n]);
            assert_eq!(v_mem.len(), n);
            let v: Vec<f32> = ds.read_raw().unwrap();
            assert_eq!(bits32(&v), bits32(v_mem), "{} {c}", p.name);
            assert!(v.iter().any(|x| *x != 0.0), "{} {c} recorded only zeros", p.name);
            let tname = if c.is_electric() { "time" } else { "time_h" };
            assert_eq!(s_attr(&ds, "time"), tname);
            let t: Vec<f64> = grp.dataset(tname).unwrap().read_raw().unwrap();
            assert_eq!(bits64(&t), bits64(t_mem), "{} {tname}", p.name);
            // Sample after step n = k·every − 1.
            assert_eq!(t[0], sample_time(c, p.every - 1, g.dt));
            assert_eq!(fv_attr(&ds, "position"), s.position.to_vec());
            assert_eq!(uv_attr(&ds, "index"), s.index.map(|x| x as u64).to_vec());
            assert_eq!(u_attr(&ds, "every"), p.every as u64);
            assert_eq!(s_attr(&ds, "units"), if c.is_electric() { "V/m" } else { "A/m" });
        }
    }

    // Snapshots.
    for (si, s) in m.snapshots.iter().enumerate() {
        let grp = f.group(&format!("snapshots/{}", s.name)).unwrap();
        let frames = STEPS / s.every;
        assert_eq!(u_attr(&grp, "every"), s.every as u64);
        let t: Vec<f64> = grp.dataset("time").unwrap().read_raw().unwrap();
        let expect_t: Vec<f64> = (1..=frames).map(|k| sample_time(Ex, k * s.every - 1, g.dt)).collect();
        assert_eq!(bits64(&t), bits64(&expect_t), "{} time", s.name);
        let mem_frames = &mem.snapshots[si];
        assert_eq!(mem_frames.len(), frames * s.components.len());
        for &c in &s.components {
            let ds = grp.dataset(c.name()).unwrap();
            let shape = s.component_shape(c, g);
            assert_eq!(ds.shape(), vec![frames, shape[0], shape[1], shape[2]]);
            assert_eq!(
                ds.chunk(),
                Some(vec![1, shape[0], shape[1], shape[2]]),
                "one frame per chunk"
            );
            let filters = ds.filters();
            assert!(filters.contains(&::hdf5::filters::Filter::Shuffle), "{filters:?}");
            assert!(filters.contains(&::hdf5::filters::Filter::Deflate(4)), "{filters:?}");
            let (lo, hi) = s.component_box(c, g);
            assert_eq!(uv_attr(&ds, "index_lo"), lo.map(|x| x as u64).to_vec());
            assert_eq!(uv_attr(&ds, "index_hi"), hi.map(|x| x as u64).to_vec());
            assert_eq!(fv_attr(&ds, "origin"), c.position(lo, g.d).to_vec());
            assert_eq!(fv_attr(&ds, "spacing"), g.d.to_vec());
            assert_eq!(u_attr(&ds, "every"), s.every as u64);
            if c.is_electric() {
                assert!(ds.attr("h_time_offset").is_err());
            } else {
                assert_eq!(f_attr(&ds, "h_time_offset"), -0.5 * g.dt);
            }
            let all: Vec<f32> = ds.read_raw().unwrap();
            let per = shape.iter().product::<usize>();
            let mem_c: Vec<&(Component, f64, Vec<f32>)> = mem_frames.iter().filter(|x| x.0 == c).collect();
            assert_eq!(mem_c.len(), frames);
            for (k, (_, time, data)) in mem_c.iter().enumerate() {
                assert_eq!(
                    bits32(&all[k * per..(k + 1) * per]),
                    bits32(data),
                    "{} {c} frame {k}",
                    s.name
                );
                let e_time = if c.is_electric() { *time } else { time + 0.5 * g.dt };
                assert!((t[k] - e_time).abs() <= 1e-9 * g.dt, "{} {c} frame {k} time", s.name);
            }
            assert!(all.iter().any(|x| *x != 0.0), "{} {c} is all zeros", s.name);
        }
    }

    // The XDMF companion points at every snapshot dataset.
    let x = std::fs::read_to_string(dir.path().join("run.xdmf")).unwrap();
    for s in &m.snapshots {
        for c in &s.components {
            assert!(x.contains(&format!("run.h5:/snapshots/{}/{}", s.name, c)), "{x}");
        }
    }
    assert_eq!(x.matches("<Time ").count(), STEPS / 5 + STEPS / 10);
}

#[test]
fn an_existing_file_is_refused_without_force() {
    let sc = scene();
    let m = model();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.h5");
    std::fs::write(&path, b"precious").unwrap();
    let err = Hdf5Sink::create(&path, &sc, &m, "cpu", false).err().expect("refused");
    assert!(matches!(err, OutputError::Exists { .. }));
    let msg = err.to_string();
    assert!(
        msg.contains(&path.display().to_string()) && msg.contains("already exists") && !msg.contains("--"),
        "{msg}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"precious");
    // With force it is overwritten.
    let sink = Hdf5Sink::create(&path, &sc, &m, "cpu", true).unwrap();
    sink.finish(Outcome::Finished).unwrap();
    let f = File::open(&path).unwrap();
    assert_eq!(s_attr(&f, "status"), "complete");
}

#[test]
fn an_unwritable_path_fails_at_create() {
    let sc = scene();
    let m = model();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no/such/dir/out.h5");
    let err = Hdf5Sink::create(&path, &sc, &m, "cpu", false).err().expect("fails");
    let msg = err.to_string();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("does not exist"), "{msg}");
}

#[test]
fn dropping_without_finish_leaves_a_valid_running_file() {
    let sc = scene();
    let m = model();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dropped.h5");
    {
        let mut sink = Hdf5Sink::create(&path, &sc, &m, "cpu (test)", false).unwrap();
        let mut backend = CpuBackend::new(m.clone(), 1).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let opts = RunOptions {
            chunk: 8,
            stop: Some(stop.clone()),
            ..RunOptions::default()
        };
        let mut calls = 0;
        let mut progress = |_: &fdtd_core::runner::ProgressInfo| {
            calls += 1;
            if calls == 2 {
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        };
        let s = run(&m, &mut backend, &mut sink, &opts, Some(&mut progress)).unwrap();
        assert_eq!(s.outcome, Outcome::Interrupted);
        assert!(s.steps_done < STEPS);
        // No finish: dropped as on a crash-free early exit.
    }
    let f = File::open(&path).unwrap();
    assert_eq!(s_attr(&f, "status"), "running");
    let done = u_attr(&f, "steps_done") as usize;
    assert!(done > 0 && done < STEPS, "{done}");
    let ez = f.dataset("probes/near/Ez").unwrap();
    assert_eq!(ez.shape(), vec![done]);
    assert_eq!(s_attr(&f, "device"), "CPU");
    assert_eq!(s_attr(&f, "device_detail"), "cpu (test)");
}

#[test]
fn an_interrupted_run_says_so() {
    let sc = scene();
    let m = model();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stopped.h5");
    let mut sink = Hdf5Sink::create(&path, &sc, &m, "cpu", false).unwrap();
    let mut backend = CpuBackend::new(m.clone(), 1).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let opts = RunOptions {
        chunk: 4,
        stop: Some(stop.clone()),
        ..RunOptions::default()
    };
    let mut progress = |p: &fdtd_core::runner::ProgressInfo| {
        if p.step >= 12 {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    };
    let s = run(&m, &mut backend, &mut sink, &opts, Some(&mut progress)).unwrap();
    assert_eq!(s.outcome, Outcome::Interrupted);
    sink.finish(s.outcome).unwrap();
    let f = File::open(&path).unwrap();
    assert_eq!(s_attr(&f, "status"), "interrupted");
    assert_eq!(u_attr(&f, "steps_done") as usize, s.steps_done);
    // The z-plane snapshot (every 5) has frames at steps 5 and 10.
    assert_eq!(f.dataset("snapshots/zplane/Ez").unwrap().shape()[0], s.steps_done / 5);
}

#[test]
fn a_failed_run_records_the_error_and_no_compression_is_an_option() {
    let sc = scene();
    let m = model();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("failed.h5");
    let opts = Hdf5Options {
        deflate: 0,
        xdmf: false,
        ..Hdf5Options::default()
    };
    let sink = Hdf5Sink::create_with(&path, &sc, &m, "cpu", &opts).unwrap();
    sink.fail("device lost").unwrap();
    let f = File::open(&path).unwrap();
    assert_eq!(s_attr(&f, "status"), "failed");
    assert_eq!(s_attr(&f, "error"), "device lost");
    assert!(f.dataset("snapshots/zplane/Ez").unwrap().filters().is_empty());
    assert!(!dir.path().join("failed.xdmf").exists());
}

#[test]
fn big_frames_are_split_into_bounded_chunks() {
    use super::hdf5::frame_chunk_for_tests as chunk;
    assert_eq!(chunk([10, 20, 30]), vec![1, 10, 20, 30]);
    let c = chunk([2000, 2000, 100]);
    assert_eq!(c[0], 1);
    assert!(c.iter().product::<usize>() * 4 <= 256 << 20, "{c:?}");
    assert_eq!(&c[2..], &[2000, 100]);
}

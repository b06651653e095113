//! The end of a run and the files beside its output (issue 19), through the real binary
//! and the session API: an output may not be the scene or one of its own companions,
//! `--force` replaces the old run's companions, a companion another program creates
//! during the run is never replaced, a full disk or a failure while the results are
//! written loses no stepping (exit 4 for a full disk, `--resume` writes the results),
//! and a stop right after set-up leaves a resumable run.
use fdtd::output::Hdf5Format;
use fdtd::session::{ErrorKind, RunReport, RunRequest, Session, SessionError};
use hdf5::types::VarLenUnicode;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

mod common;
use common::*;

/// A 50 Ω port on a 100 Ω resistor between two small PEC plates in a PEC box (the end
/// criterion stops it after about 1100 steps).
const PORT: &str = r#"
[domain]
cell = 1e-3
cells = [20, 20, 20]
[time]
steps = 8000
[boundaries]
all = "pec"
[[objects]]
shape = "box"
material = "pec"
min = [0.009, 0.009, 0.009]
max = [0.012, 0.011, 0.010]
[[objects]]
shape = "box"
material = "pec"
min = [0.009, 0.009, 0.011]
max = [0.012, 0.011, 0.012]
[frequencies]
start = 100e6
stop = 1e9
points = 10
[[ports]]
name = "p1"
start = [0.010, 0.010, 0.010]
end = [0.010, 0.010, 0.011]
[ports.waveform]
type = "gaussian"
frequency = 1e9
[[lumped]]
name = "load"
start = [0.011, 0.010, 0.010]
end = [0.011, 0.010, 0.011]
r = 100
"#;

/// A dipole in a PEC box with a probe and a snapshot (an XDMF companion, no ports).
const SNAP: &str = r#"
[domain]
cell = 1e-3
cells = [12, 12, 12]
[time]
steps = 200
[boundaries]
all = "pec"
[[sources]]
type = "current"
component = "Ez"
position = [0.006, 0.006, 0.006]
waveform = { type = "gaussian", frequency = 5e9 }
[[probes]]
name = "rx"
position = [0.004, 0.005, 0.006]
components = ["Ez"]
[[snapshots]]
name = "mid"
components = ["Ez"]
every = 50
"#;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn setup(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, body) in files {
        std::fs::write(dir.path().join(name), body).unwrap();
    }
    dir
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    v.sort();
    v
}

fn root_str(path: &Path, name: &str) -> String {
    let _g = fork_lock();
    let f = hdf5::File::open(path).unwrap_or_else(|e| panic!("{} does not open: {e}", path.display()));
    let v: VarLenUnicode = f.attr(name).unwrap().read_scalar().unwrap();
    v.as_str().to_string()
}

fn bits(path: &Path, name: &str) -> Vec<u64> {
    let _g = fork_lock();
    let f = hdf5::File::open(path).unwrap();
    let v: Vec<f64> = f.dataset(name).unwrap().read_raw().unwrap();
    v.iter().map(|x| x.to_bits()).collect()
}

/// The Touchstone data lines (the comments name the output file).
fn touchstone_data(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('!'))
        .map(String::from)
        .collect()
}

/// Prepare and run `req` on the CPU into HDF5, as `fdtd run` does.
fn lib_run(mut req: RunRequest) -> Result<RunReport, SessionError> {
    req.backend = fdtd::backend::BackendChoice::Cpu;
    let _g = fork_lock();
    Session::load(req)?
        .prepare(&fdtd::backend::engines(), &Hdf5Format::default())?
        .run()
}

/// An uninterrupted run of the port scene in a directory of its own (output `a.h5`).
fn reference() -> tempfile::TempDir {
    let dir = setup(&[("s.toml", PORT)]);
    let out = fdtd(dir.path(), &["run", "s.toml", "--backend", "cpu", "-q", "-o", "a.h5"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    dir
}

fn assert_same_results(reference: &Path, other: &Path) {
    for ds in ["/ports/p1/V", "/ports/p1/I", "/ports/p1/S", "/ports/p1/Z"] {
        assert_eq!(
            bits(&reference.join("a.h5"), ds),
            bits(&other.join("a.h5"), ds),
            "{ds} differs"
        );
    }
    assert_eq!(
        touchstone_data(&reference.join("a.s1p")),
        touchstone_data(&other.join("a.s1p"))
    );
    assert_eq!(
        std::fs::read(reference.join("a_ports.csv")).unwrap(),
        std::fs::read(other.join("a_ports.csv")).unwrap()
    );
}

#[test]
fn an_output_may_not_be_the_scene_nor_its_own_companion() {
    let dir = setup(&[("s.toml", PORT)]);
    let d = dir.path();
    // The Touchstone file of `-o b.s1p` is b.s1p itself.
    let out = fdtd(d, &["run", "s.toml", "--backend", "cpu", "-o", "b.s1p"]);
    let se = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{se}");
    assert!(
        se.contains("cannot write output file b.s1p: the run writes b.s1p beside it") && se.contains("b_ports.csv"),
        "{se}"
    );
    assert_eq!(names_in(d), ["s.toml"]);
    // The scene itself, by name or through a hard link, even with --force.
    std::fs::hard_link(d.join("s.toml"), d.join("h.h5")).unwrap();
    for o in ["s.toml", "./s.toml", "h.h5"] {
        let out = fdtd(d, &["run", "s.toml", "--backend", "cpu", "-o", o, "--force"]);
        let se = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{o}: {se}");
        assert!(se.contains("it is the scene being run"), "{o}: {se}");
        assert_eq!(std::fs::read_to_string(d.join("s.toml")).unwrap(), PORT);
    }
    assert_eq!(names_in(d), ["h.h5", "s.toml"]);
    // A companion that would overwrite the scene: a scene named like the Touchstone file.
    std::fs::write(d.join("c.s1p"), PORT).unwrap();
    let out = fdtd(d, &["run", "c.s1p", "--backend", "cpu", "-o", "c.h5"]);
    let se = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{se}");
    assert!(se.contains("which is the scene being run"), "{se}");
    assert_eq!(std::fs::read_to_string(d.join("c.s1p")).unwrap(), PORT);
}

#[test]
fn force_replaces_the_companions_of_the_old_run() {
    let dir = setup(&[("port.toml", PORT), ("snap.toml", SNAP)]);
    let d = dir.path();
    let run = |scene: &str, force: bool| {
        let mut a = vec!["run", scene, "--backend", "cpu", "-q", "-o", "a.h5"];
        if force {
            a.push("--force");
        }
        let out = fdtd(d, &a);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    };
    run("port.toml", false);
    // An older run's 3-port Touchstone file beside it, and another output's companions.
    std::fs::write(d.join("a.s3p"), "old").unwrap();
    std::fs::write(d.join("b.s1p"), "other output").unwrap();
    assert_eq!(
        names_in(d),
        [
            "a.h5",
            "a.s1p",
            "a.s3p",
            "a_ports.csv",
            "b.s1p",
            "port.toml",
            "snap.toml"
        ]
    );
    // No ports any more: no Touchstone or CSV file of the old run stays beside it.
    run("snap.toml", true);
    assert_eq!(names_in(d), ["a.h5", "a.xdmf", "b.s1p", "port.toml", "snap.toml"]);
    // No snapshots any more: the XDMF file goes.
    run("port.toml", true);
    assert_eq!(
        names_in(d),
        ["a.h5", "a.s1p", "a_ports.csv", "b.s1p", "port.toml", "snap.toml"]
    );
    assert_eq!(std::fs::read_to_string(d.join("b.s1p")).unwrap(), "other output");
}

#[test]
fn a_companion_created_during_the_run_is_kept_and_resume_writes_the_results() {
    let refdir = reference();
    let dir = setup(&[("s.toml", PORT)]);
    let d = dir.path();
    let mut req = RunRequest::new(d.join("s.toml"));
    req.output = Some(d.join("a.h5"));
    req.chunk = 16;
    let planted = Arc::new(AtomicBool::new(false));
    let (p, s1p) = (planted.clone(), d.join("a.s1p"));
    req.progress = Some(Box::new(move |_: &fdtd::runner::ProgressInfo| {
        if !p.swap(true, Ordering::SeqCst) {
            std::fs::write(&s1p, "another program's file").unwrap();
        }
    }));
    let e = lib_run(req).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, SessionError::Results { .. }), "{msg}");
    assert_eq!(e.kind(), ErrorKind::Runtime, "{msg}");
    assert!(
        msg.contains("a.s1p was created by another program during the run and is left as it is"),
        "{msg}"
    );
    assert!(msg.contains("the last checkpoint"), "{msg}");
    assert_eq!(
        std::fs::read_to_string(d.join("a.s1p")).unwrap(),
        "another program's file"
    );
    assert_eq!(root_str(&d.join("a.h5"), "status"), "failed");
    // Every step is in the checkpoint written before the results: once the file is
    // moved away, --resume writes the results without stepping again.
    assert!(d.join("a.h5.ckpt").exists(), "{:?}", names_in(d));
    std::fs::rename(d.join("a.s1p"), d.join("theirs.s1p")).unwrap();
    let out = fdtd(d, &["run", "s.toml", "--backend", "cpu", "-o", "a.h5", "--resume"]);
    let so = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{so}{}", text(&out.stderr));
    assert!(so.contains("resuming from step 1,120"), "{so}");
    assert_eq!(root_str(&d.join("a.h5"), "status"), "complete");
    assert_same_results(refdir.path(), d);
    assert!(!d.join("a.h5.ckpt").exists());
}

#[test]
fn an_xdmf_companion_replaced_during_the_run_is_left_alone() {
    let dir = setup(&[("s.toml", SNAP)]);
    let d = dir.path();
    let mut req = RunRequest::new(d.join("s.toml"));
    req.output = Some(d.join("a.h5"));
    req.chunk = 10;
    let planted = Arc::new(AtomicBool::new(false));
    let (p, x) = (planted.clone(), d.join("a.xdmf"));
    req.progress = Some(Box::new(move |_: &fdtd::runner::ProgressInfo| {
        if !p.swap(true, Ordering::SeqCst) {
            std::fs::remove_file(&x).unwrap();
            std::fs::write(&x, "mine").unwrap();
        }
    }));
    let e = lib_run(req).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("created by another program during the run"), "{msg}");
    assert_eq!(std::fs::read_to_string(d.join("a.xdmf")).unwrap(), "mine");
    assert_eq!(root_str(&d.join("a.h5"), "status"), "complete");
}

#[test]
fn a_full_disk_while_the_results_are_written_is_exit_4_and_resume_writes_them() {
    // 20 000 frequencies: the port results need about 2.6 MB in the file, which may
    // grow to 1.5 MB; the stepping fits.
    let scene = PORT.replace("points = 10", "points = 20000");
    let refdir = setup(&[("s.toml", &scene)]);
    let out = fdtd(
        refdir.path(),
        &["run", "s.toml", "--backend", "cpu", "-q", "-o", "a.h5"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let dir = setup(&[("s.toml", &scene)]);
    let d = dir.path();
    let args = ["run", "s.toml", "--backend", "cpu", "-q", "-o", "a.h5"];
    let out = output(cmd(d, &args).env("FDTD_FAULT_NO_SPACE_AFTER", "1500000"));
    let se = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{se}");
    assert!(
        se.contains("the run ended but its results could not be written"),
        "{se}"
    );
    assert!(se.contains("a.h5 is closed with status \"failed\""), "{se}");
    assert!(se.contains("--resume"), "{se}");
    assert_eq!(root_str(&d.join("a.h5"), "status"), "failed");
    assert!(d.join("a.h5.ckpt").exists());
    assert!(!d.join("a.s1p").exists());
    let mut resume = args.to_vec();
    resume.push("--resume");
    let out = fdtd(d, &resume);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(root_str(&d.join("a.h5"), "status"), "complete");
    assert_same_results(refdir.path(), d);
}

#[test]
fn a_stop_right_after_set_up_leaves_a_resumable_run() {
    let refdir = reference();
    let dir = setup(&[("s.toml", PORT)]);
    let d = dir.path();
    let stop = Arc::new(AtomicBool::new(false));
    let mut req = RunRequest::new(d.join("s.toml"));
    req.output = Some(d.join("a.h5"));
    req.stop = Some(stop.clone());
    req.backend = fdtd::backend::BackendChoice::Cpu;
    let report = {
        let _g = fork_lock();
        let prepared = Session::load(req)
            .unwrap()
            .prepare(&fdtd::backend::engines(), &Hdf5Format::default())
            .unwrap();
        // SIGTERM lands now: set-up is over, the output exists, no step has run.
        stop.store(true, Ordering::SeqCst);
        prepared.run().unwrap()
    };
    assert_eq!(report.kind(), Some(ErrorKind::Interrupted));
    assert_eq!(report.summary.steps_done, 0);
    assert!(
        matches!(report.advice, Some(fdtd::session::ResumeAdvice::From { step: 0, .. })),
        "{:?}",
        report.advice
    );
    assert_eq!(root_str(&d.join("a.h5"), "status"), "interrupted");
    let out = fdtd(d, &["run", "s.toml", "--backend", "cpu", "-o", "a.h5", "--resume"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_same_results(refdir.path(), d);
}

/// 300 ports across a one-cell-thin PEC box (port 0 driven, the rest matched loads),
/// 41 frequencies: the end criterion stops it after about 1440 steps, and writing the
/// results (1800 port datasets, a 31 MB `.s300p`) takes about 1.5 s after the checkpoint
/// of the last step.
fn many_ports() -> String {
    let mut s = String::from(
        "[domain]\ncell = 1e-3\ncells = [40, 40, 1]\n[time]\nsteps = 8000\n[boundaries]\nall = \"pec\"\n\
         [frequencies]\nstart = 100e6\nstop = 1e9\npoints = 41\n",
    );
    for k in 0..300 {
        let (i, j) = (k / 39 + 1, k % 39 + 1);
        s.push_str(&format!(
            "[[ports]]\nname = \"p{k}\"\nstart = [{i}e-3, {j}e-3, 0]\nend = [{i}e-3, {j}e-3, 1e-3]\n"
        ));
        if k == 0 {
            s.push_str("excite = true\n[ports.waveform]\ntype = \"gaussian\"\nfrequency = 1e9\n");
        }
    }
    s
}

/// Issue 19, item 3: a kill while 1000 ports' results were written left the root
/// attributes with a bad checksum ("not an fdtd result", `--resume` failed). The run is
/// killed (SIGKILL) at several moments after its progress log reports the checkpoint of
/// the last step (written before any result): the file must read (`info`, status
/// `running`) and `--resume` must write results bit-identical to an uninterrupted run's.
#[test]
fn a_kill_while_the_results_are_written_leaves_a_file_that_resume_completes() {
    use std::io::BufRead;
    let scene = many_ports();
    let refdir = setup(&[("s.toml", &scene)]);
    let args = ["run", "s.toml", "--backend", "cpu", "-o", "a.h5"];
    let out = fdtd(refdir.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let mut landed = 0;
    for delay_ms in [0u64, 150, 400, 900] {
        let dir = setup(&[("s.toml", &scene)]);
        let d = dir.path();
        let mut child = {
            let _g = fork_lock();
            cmd(d, &args)
                .env("FDTD_PROGRESS_EVERY", "0.2")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        // The checkpoint of the last step is logged before anything is computed. The log
        // is read to its end on a thread of its own, so the run never waits on the pipe.
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            let mut log = String::new();
            for l in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                if l.starts_with("checkpoint at step") && !l.contains("at step 0:") {
                    let _ = tx.send(());
                }
                log.push_str(&l);
                log.push('\n');
            }
            log
        });
        if rx.recv().is_err() {
            panic!("no checkpoint logged:\n{}", reader.join().unwrap());
        }
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        child.kill().unwrap();
        // A run that ended on its own before the kill landed exits 0; one killed between
        // closing its file as complete and exiting has removed its checkpoint too.
        let finished = child.wait().unwrap().code() == Some(0);
        reader.join().unwrap();
        let closed = finished || root_str(&d.join("a.h5"), "status") == "complete";
        assert!(d.join("a.h5.ckpt").exists() || closed, "delay {delay_ms} ms");
        let info = fdtd(d, &["info", "a.h5"]);
        let info_out = text(&info.stdout);
        assert_eq!(
            info.status.code(),
            Some(0),
            "delay {delay_ms} ms: {info_out}{}",
            text(&info.stderr)
        );
        let status = root_str(&d.join("a.h5"), "status");
        if status == "complete" {
            // The kill came after the file was closed: nothing to resume.
            continue;
        }
        landed += 1;
        assert_eq!(status, "running", "delay {delay_ms} ms");
        assert!(info_out.contains("status     running"), "{info_out}");
        let mut resume = args.to_vec();
        resume.push("--resume");
        let out = fdtd(d, &resume);
        assert_eq!(out.status.code(), Some(0), "delay {delay_ms} ms: {}", text(&out.stderr));
        assert_eq!(root_str(&d.join("a.h5"), "status"), "complete");
        for p in ["p0", "p1", "p150", "p299"] {
            for q in ["V", "I", "S", "Z"] {
                let ds = format!("/ports/{p}/{q}");
                assert_eq!(
                    bits(&refdir.path().join("a.h5"), &ds),
                    bits(&d.join("a.h5"), &ds),
                    "{ds} differs (kill {delay_ms} ms after the checkpoint)"
                );
            }
        }
        assert_eq!(
            touchstone_data(&refdir.path().join("a.s300p")),
            touchstone_data(&d.join("a.s300p"))
        );
        assert_eq!(
            std::fs::read(refdir.path().join("a_ports.csv")).unwrap(),
            std::fs::read(d.join("a_ports.csv")).unwrap()
        );
    }
    // The first kill follows the log line at once, seconds before the file is closed.
    assert!(landed >= 1, "no kill landed while the results were written");
}

/// Issue 19, item 16, with a real signal: SIGTERM sent the moment the output file
/// appears (set-up is creating it, or the first steps run). Whatever step it lands at:
/// exit 130, status `interrupted`, a checkpoint of that step (step 0 when no chunk had
/// ended: before issue 19 there was none and `--resume` was refused), and `--resume`
/// completes with the results of an uninterrupted run, bit for bit.
#[test]
fn a_real_sigterm_right_after_set_up_leaves_a_resumable_run() {
    let refdir = reference();
    for attempt in 0..3 {
        let dir = setup(&[("s.toml", PORT)]);
        let d = dir.path();
        let args = ["run", "s.toml", "--backend", "cpu", "-o", "a.h5"];
        let child = {
            let _g = fork_lock();
            cmd(d, &args)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        let h5 = d.join("a.h5");
        let t0 = std::time::Instant::now();
        while !h5.exists() {
            assert!(t0.elapsed().as_secs() < 60, "the run did not start");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let kill = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let out = child.wait_with_output().unwrap();
        let (so, se) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(130), "attempt {attempt}: {so}\n{se}");
        assert!(se.contains("--resume"), "{se}");
        assert_eq!(root_str(&h5, "status"), "interrupted");
        assert!(d.join("a.h5.ckpt").exists(), "no checkpoint: {se}");
        let done = {
            let _g = fork_lock();
            let f = hdf5::File::open(&h5).unwrap();
            f.attr("steps_done").unwrap().read_scalar::<u64>().unwrap()
        };
        eprintln!("attempt {attempt}: SIGTERM landed at step {done}");
        let mut resume = args.to_vec();
        resume.push("--resume");
        let out = fdtd(d, &resume);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(root_str(&h5, "status"), "complete");
        assert_same_results(refdir.path(), d);
    }
}

/// Issue 19, item 2: under an address-space limit (`prlimit --as`, as some batch systems
/// set) a 1000-port run passed the plan and aborted (134) allocating its Touchstone text
/// after the last step, with status `running`. The plan now counts the worker threads'
/// address-space reservations (`resources::THREAD_RESERVE`). The test searches (by
/// bisection, to 8 MiB) for the smallest limit the plan accepts and requires every run
/// on the way to be refused before it starts (exit 4, no output)
/// or to complete (exit 0, status `complete`, the Touchstone file written): never an
/// abort. Before the fix the run at the smallest accepted limit aborted (measured on the
/// 2-core machine: accepted from about 0.94 GB, aborting up to about 0.97 GB).
#[test]
fn under_an_address_space_limit_the_end_of_a_run_is_refused_or_completes() {
    let mut scene = many_ports().replace("steps = 8000", "steps = 50");
    for k in 300..1000 {
        let (i, j) = (k / 39 + 1, k % 39 + 1);
        scene.push_str(&format!(
            "[[ports]]\nname = \"p{k}\"\nstart = [{i}e-3, {j}e-3, 0]\nend = [{i}e-3, {j}e-3, 1e-3]\n"
        ));
    }
    let dir = setup(&[("many.toml", &scene)]);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64 + 2;
    let reserve = threads * (72 << 20);
    // Run under `limit` bytes: true when the plan accepted it (and it completed).
    let run = |limit: u64| -> bool {
        let out = format!("o{limit}.h5");
        let o = output(
            Command::new("prlimit")
                .arg(format!("--as={limit}"))
                .arg(BIN)
                .args(["run", "many.toml", "-o", &out, "--backend", "cpu", "--force"])
                .current_dir(dir.path())
                .env("XDG_RUNTIME_DIR", std::env::temp_dir()),
        );
        let err = text(&o.stderr);
        let path = dir.path().join(&out);
        match o.status.code() {
            Some(4) => {
                // Far below, the grid itself is refused; near the edge, the results.
                assert!(err.contains("does not fit in RAM"), "{limit}: {err}");
                if limit > reserve + (1 << 30) {
                    assert!(err.contains("after the last step for the results"), "{limit}: {err}");
                }
                assert!(!path.exists(), "{limit}: refused before the output is made");
                false
            }
            Some(0) => {
                assert_eq!(root_str(&path, "status"), "complete", "{limit}");
                assert!(dir.path().join(format!("o{limit}.s1000p")).exists(), "{limit}");
                for f in [path, dir.path().join(format!("o{limit}.s1000p"))] {
                    std::fs::remove_file(f).unwrap();
                }
                true
            }
            code => panic!("limit {limit} B: exit {code:?} (an abort is 134, a signal None)\n{err}"),
        }
    };
    let (mut lo, mut hi) = (256u64 << 20, reserve + (4u64 << 30));
    assert!(!run(lo), "the results alone need more than {lo} B");
    assert!(run(hi), "{hi} B is enough for this run");
    while hi - lo > 8 << 20 {
        let mid = lo + (hi - lo) / 2;
        if run(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    eprintln!("smallest accepted address-space limit: {hi} B");
}

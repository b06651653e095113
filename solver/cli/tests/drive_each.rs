//! Every port driven in turn (`[drive] ports = "each"`, `fdtd run --drive-each`): the
//! full S-matrix in the Touchstone file, `/s_matrix` in the HDF5 output, what `fdtd
//! info` reads back, a run stopped during a later drive resumed to the same matrix, and
//! the frequencies a run does not resolve marked in every file.
use fdtd::output::{Hdf5Format, ResultFile};
use fdtd::session::{ErrorKind, RunRequest, Session};
use fdtd_validation::cases::ports::reciprocal_two_port;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

mod common;
use common::*;

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

/// The Touchstone data rows as numbers.
fn touchstone_rows(path: &Path) -> Vec<Vec<f64>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with(['!', '#']))
        .map(|l| l.split_whitespace().map(|x| x.parse::<f64>().unwrap()).collect())
        .collect()
}

fn scene() -> String {
    reciprocal_two_port(6000)
}

/// The scene's `[drive]` section and the command-line flag give the same full `.s2p`:
/// no nan, S21 = S12 (the Touchstone file's 10 digits: within 1e-6, see the
/// port-reciprocity validation case for the argument), `/s_matrix` as [out][in][freq]
/// equal to the Touchstone entries, and `fdtd info` reports it.
#[test]
fn drive_each_writes_the_full_s_matrix() {
    let with_key = scene();
    let without = with_key.replace("[drive]\nports = \"each\"\n", "");
    assert_ne!(with_key, without);
    let dir = setup(&[("s.toml", &with_key), ("t.toml", &without)]);
    let d = dir.path();
    let out = fdtd(d, &["run", "s.toml", "--backend", "cpu", "-o", "a.h5"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("s-matrix 2 × 2"), "{stdout}");
    assert!(
        text(&out.stderr).contains("drive 2/2: port p2"),
        "{}",
        text(&out.stderr)
    );
    let rows = touchstone_rows(&d.join("a.s2p"));
    assert_eq!(rows.len(), 100);
    for r in &rows {
        assert_eq!(r.len(), 9);
        assert!(r.iter().all(|x| x.is_finite()), "{r:?}");
        // S21 (columns 3, 4) against S12 (5, 6).
        let diff = (r[3] - r[5]).hypot(r[4] - r[6]);
        assert!(diff < 1e-6, "S21 − S12 = {diff} at {} Hz", r[0]);
    }
    let header = std::fs::read_to_string(d.join("a.s2p")).unwrap();
    assert!(header.contains("the full S-matrix"), "{header}");
    assert!(!header.contains("nan"), "{header}");

    let f = {
        let _g = fork_lock();
        ResultFile::open(d.join("a.h5")).unwrap()
    };
    let m = f.s_matrix.as_ref().expect("/s_matrix");
    assert_eq!(m.ports, ["p1", "p2"]);
    assert_eq!(m.frequency.len(), 100);
    for (k, r) in rows.iter().enumerate() {
        // Touchstone order S11 S21 S12 S22 = [0][0], [1][0], [0][1], [1][1].
        for (c, (o, i)) in [(0, 0), (1, 0), (0, 1), (1, 1)].into_iter().enumerate() {
            let s = m.get(o, i, k);
            assert!(
                (s[0] - r[1 + 2 * c]).abs() < 1e-8 && (s[1] - r[2 + 2 * c]).abs() < 1e-8,
                "S[{o}][{i}] at {k}"
            );
        }
    }
    assert_eq!(f.ports.len(), 2, "the ports' groups are still read");
    assert!(f.other_groups.iter().all(|g| g != "s_matrix"));
    drop(f);
    let info = fdtd(d, &["info", "a.h5"]);
    assert_eq!(info.status.code(), Some(0), "{}", text(&info.stderr));
    assert!(
        text(&info.stdout).contains("s-matrix       2 × 2"),
        "{}",
        text(&info.stdout)
    );

    // The flag on a scene without [drive]: the same matrix.
    let out = fdtd(
        d,
        &["run", "t.toml", "--backend", "cpu", "-q", "-o", "b.h5", "--drive-each"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(touchstone_rows(&d.join("b.s2p")), rows);
}

/// A run stopped during the second drive is closed as interrupted with no result files;
/// `--resume` continues from the checkpoint written after the first drive, repeats the
/// second drive in full (a matrix is never assembled from drives of different runs) and
/// gives the same matrix, bit for bit, as an uninterrupted run.
#[test]
fn a_drive_each_run_stopped_in_a_later_drive_resumes_to_the_same_matrix() {
    let dir = setup(&[("s.toml", &scene())]);
    let d = dir.path();
    let out = fdtd(d, &["run", "s.toml", "--backend", "cpu", "-q", "-o", "ref.h5"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let reference = touchstone_rows(&d.join("ref.s2p"));

    let stop = Arc::new(AtomicBool::new(false));
    let mut req = RunRequest::new(d.join("s.toml"));
    req.output = Some(d.join("a.h5"));
    req.backend = fdtd::backend::BackendChoice::Cpu;
    req.stop = Some(stop.clone());
    let flag = stop.clone();
    req.progress = Some(Box::new(move |p| {
        if p.drive == Some((2, 2)) && p.step >= 200 {
            flag.store(true, Ordering::SeqCst);
        }
    }));
    let report = {
        let _g = fork_lock();
        Session::load(req)
            .unwrap()
            .prepare(&fdtd::backend::engines(), &Hdf5Format::default())
            .unwrap()
            .run()
            .unwrap()
    };
    assert_eq!(report.kind(), Some(ErrorKind::Interrupted));
    assert!(report.results.s_matrix.is_none());
    assert!(!d.join("a.s2p").exists(), "no Touchstone file of an unfinished matrix");
    assert!(
        matches!(report.advice, Some(fdtd::session::ResumeAdvice::From { .. })),
        "{:?}",
        report.advice
    );
    let out = fdtd(d, &["run", "s.toml", "--backend", "cpu", "-o", "a.h5", "--resume"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("drive 2/2"), "{}", text(&out.stderr));
    assert_eq!(touchstone_rows(&d.join("a.s2p")), reference);
}

/// Frequencies outside the band the waveforms drive are marked: `! unresolved:` in the
/// Touchstone file, a `resolved` column of 0 in the CSV, `resolved` = 0 in
/// `/ports/<name>/resolved` and `/s_matrix/resolved`; the resolved ones are 1.
#[test]
fn unresolved_frequencies_are_marked_in_every_file() {
    // A 1 GHz Gaussian drives nothing at 30 GHz (far below −40 dB of its peak).
    let text_ = scene().replace("start = 10e6\nstop = 1e9\npoints = 100", "list = [0.5e9, 1e9, 30e9]")
        + "[[monitors]]\nname = \"gap\"\ntype = \"dft\"\ncomponents = [\"Ez\"]\n\
           plane = { axis = \"x\", position = 0.013 }\nfrequencies = [1e9, 30e9]\n";
    let dir = setup(&[("s.toml", &text_)]);
    let d = dir.path();
    let out = fdtd(d, &["run", "s.toml", "--backend", "cpu", "-q", "-o", "a.h5"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let ts = std::fs::read_to_string(d.join("a.s2p")).unwrap();
    let note = ts
        .lines()
        .find(|l| l.starts_with("! unresolved"))
        .unwrap_or_else(|| panic!("{ts}"));
    assert!(note.contains("1 of 3") && note.contains("3.000000000e10"), "{note}");
    let csv = std::fs::read_to_string(d.join("a_ports.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].ends_with(",resolved"), "{}", lines[0]);
    let flags: Vec<&str> = lines[1..].iter().map(|l| l.rsplit(',').next().unwrap()).collect();
    assert_eq!(flags, ["1", "1", "0"]);
    let f = {
        let _g = fork_lock();
        ResultFile::open(d.join("a.h5")).unwrap()
    };
    for p in &f.ports {
        assert_eq!(p.resolved, [true, true, false], "{}", p.name);
    }
    assert_eq!(f.s_matrix.as_ref().unwrap().resolved, [true, true, false]);
    drop(f);
    let _g = fork_lock();
    let h = hdf5::File::open(d.join("a.h5")).unwrap();
    let flags: Vec<u8> = h.dataset("monitors/gap/resolved").unwrap().read_raw().unwrap();
    assert_eq!(flags, [1, 0], "the monitor's frequencies");
}

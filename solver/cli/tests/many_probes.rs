//! Scenes with many probes through the binary: `fdtd check` and the run summary stay
//! short, the probes go to tables (`/probes/every_<k>/values`), and the file costs what
//! the probes record.
use hdf5::types::VarLenUnicode;
use std::fmt::Write;
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_fdtd");
const PROBES: usize = 3000;
const STEPS: usize = 20;

/// A 20³ PEC box with a dipole and `PROBES` Ez probes, one per node.
fn scene() -> String {
    let mut s = format!(
        "[domain]\ncell = 1e-3\ncells = [20, 20, 20]\n[time]\nsteps = {STEPS}\n[boundaries]\nall = \"pec\"\n\
         [[sources]]\ntype = \"current\"\ncomponent = \"Ez\"\nposition = [0.01, 0.01, 0.01]\n\
         waveform = {{ type = \"gaussian\", frequency = 3e9 }}\n"
    );
    for i in 0..PROBES {
        let (x, y, z) = (i % 18 + 1, (i / 18) % 18 + 1, i / 324 + 1);
        writeln!(
            s,
            "[[probes]]\nname = \"p{i}\"\nposition = [{}, {}, {}]\ncomponents = [\"Ez\"]",
            x as f64 * 1e-3,
            y as f64 * 1e-3,
            z as f64 * 1e-3
        )
        .unwrap();
    }
    s
}

fn fdtd(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .expect("run the fdtd binary")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn many_probes_are_listed_briefly_and_written_as_a_table() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("many.toml"), scene()).unwrap();

    let out = fdtd(dir.path(), &["check", "many.toml", "--backend", "cpu"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains(&format!("probes ({PROBES})")), "{stdout}");
    assert!(stdout.contains("  p63 ") && !stdout.contains("  p64 "), "{stdout}");
    assert!(stdout.contains("... and 2,936 more"), "{stdout}");
    assert!(
        stdout.contains("output     up to ") && stdout.contains("probes as tables"),
        "{stdout}"
    );
    assert!(stdout.lines().count() < 150, "{} lines", stdout.lines().count());

    let out = fdtd(dir.path(), &["run", "many.toml", "--backend", "cpu", "--no-checkpoint"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let summary = stdout
        .lines()
        .find(|l| l.starts_with("complete:"))
        .expect("a summary line");
    assert!(
        summary.contains("p0, p1, p2, p3, p4, p5, p6, p7 and 2992 more"),
        "{summary}"
    );
    assert!(summary.len() < 300, "{summary}");

    let path = dir.path().join("many.h5");
    let f = hdf5::File::open(&path).unwrap();
    let layout = f.group("probes").unwrap().attr("layout").unwrap();
    assert_eq!(layout.read_scalar::<VarLenUnicode>().unwrap().as_str(), "table");
    let values = f.dataset("probes/every_1/values").unwrap();
    assert_eq!(values.shape(), [STEPS, PROBES]);
    let v = values.read_2d::<f32>().unwrap();
    assert!(v.iter().any(|x| *x != 0.0), "the table holds only zeros");
    // 240 KB of values, ~100 B of metadata per probe and the scene text (~260 KB);
    // one group of datasets per probe took about 6 MB.
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size < 1_500_000, "{size} bytes");
}

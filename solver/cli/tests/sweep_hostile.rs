//! `fdtd sweep` on hostile input (issue 19): sweep files that point outside their
//! folder, directories of other sweeps, planted symbolic links, a second runner, a
//! doctored manifest and expressions deep enough to overflow a stack.
mod sweep_common;
use std::os::unix::fs::symlink;
use std::path::Path;
use sweep_common::*;

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every file below `dir` with its contents (links are listed as links).
fn snapshot(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let t = e.file_type().unwrap();
            let name = p.strip_prefix(dir).unwrap().display().to_string();
            if t.is_symlink() {
                out.push((name, format!("-> {}", std::fs::read_link(&p).unwrap().display())));
            } else if t.is_dir() {
                stack.push(p);
            } else {
                out.push((name, String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned()));
            }
        }
    }
    out.sort();
    out
}

const SMALL: &str = "[sweep]\nbase = \"base.toml\"\ndirectory = \"out\"\n[parameters]\narm = [0.018, 0.02]\n\
                     [set]\n\"objects[0].min[2]\" = \"0.060 - arm\"\n";

/// Item 7: `directory` and `base` stay in the sweep file's folder; a non-empty
/// directory that is not this sweep's is refused; `--directory` names any path.
#[test]
fn a_sweep_file_cannot_write_or_read_outside_its_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let dir = root.join("sweeps");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("base.toml"), DIPOLE).unwrap();
    // Another sweep's directory with a result in it, and an unrelated folder.
    let victim = root.join("victim");
    std::fs::create_dir_all(victim.join("variants/v000")).unwrap();
    std::fs::write(victim.join("manifest.json"), "{}").unwrap();
    std::fs::write(victim.join("variants/v000/result.h5"), "precious").unwrap();
    let before = snapshot(root);

    for (sweep, what) in [
        (
            "directory = \"../victim\"",
            "sweep.directory: the directory \"../victim\" leaves the sweep file's folder",
        ),
        (
            &*format!("directory = {:?}", victim.display().to_string()),
            "is an absolute path",
        ),
        (
            "base = \"../victim/variants/v000/result.h5\"",
            "sweep.base: the base scene path",
        ),
        (
            "base = \"/etc/passwd\"",
            "sweep.base: the base scene path \"/etc/passwd\" is an absolute path",
        ),
    ] {
        let text = if sweep.starts_with("base") {
            SMALL.replace("base = \"base.toml\"", sweep)
        } else {
            SMALL.replace("directory = \"out\"", sweep)
        };
        std::fs::write(dir.join("sweep.toml"), &text).unwrap();
        let o = fdtd(&dir, &["sweep", "plan", "sweep.toml", "--backend", "cpu"]);
        assert_eq!(o.status.code(), Some(2), "{sweep}");
        let e = stderr(&o);
        assert!(e.contains("sweep.toml:") && e.contains(what), "{sweep}: {e}");
        assert!(e.contains("on the command line"), "{e}");
    }
    std::fs::remove_file(dir.join("sweep.toml")).unwrap();
    assert_eq!(snapshot(root), before, "a refused sweep wrote something");

    // A non-empty directory that is not this sweep's (another sweep's, given on the
    // command line) is refused; so is one with unrelated files.
    std::fs::write(dir.join("sweep.toml"), SMALL).unwrap();
    let v = victim.display().to_string();
    let o = fdtd(
        &dir,
        &["sweep", "plan", "sweep.toml", "--directory", &v, "--backend", "cpu"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not empty") && stderr(&o).contains("not this sweep's directory"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(victim.join("variants/v000/result.h5")).unwrap(),
        "precious"
    );

    // Planned into its own directory, then a second sweep file naming that directory.
    let o = fdtd(&dir, &["sweep", "plan", "sweep.toml", "--backend", "cpu"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = fdtd(&dir, &["sweep", "plan", "sweep.toml", "--backend", "cpu"]);
    assert_eq!(o.status.code(), Some(0), "planning again is fine: {}", stderr(&o));
    std::fs::write(dir.join("other.toml"), SMALL.replace("0.018", "0.016")).unwrap();
    let manifest = std::fs::read_to_string(dir.join("out/manifest.json")).unwrap();
    let o = fdtd(&dir, &["sweep", "plan", "other.toml", "--backend", "cpu"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is the directory of another sweep"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("out/manifest.json")).unwrap(),
        manifest
    );

    // The command line may name any directory and base scene.
    let elsewhere = root.join("elsewhere/out");
    let base = dir.join("base.toml").display().to_string();
    std::fs::write(
        dir.join("abs.toml"),
        SMALL.replace("base = \"base.toml\"", "base = \"/nonexistent.toml\""),
    )
    .unwrap();
    let o = fdtd(
        &dir,
        &[
            "sweep",
            "plan",
            "abs.toml",
            "--directory",
            &elsewhere.display().to_string(),
            "--base",
            &base,
            "--backend",
            "cpu",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(elsewhere.join("variants/v001/scene.toml").exists());
}

/// Item 8: symbolic links planted at every name the sweep writes: nothing outside the
/// sweep is touched, and the run is refused with the link named.
#[test]
fn planted_links_are_never_written_through() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let dir = root.join("s");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("base.toml"), DIPOLE).unwrap();
    std::fs::write(dir.join("sweep.toml"), SMALL).unwrap();
    let outside = root.join("outside");
    std::fs::create_dir(&outside).unwrap();
    let o = fdtd(&dir, &["sweep", "plan", "sweep.toml", "--backend", "cpu"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    let out = dir.join("out");
    let manifest = std::fs::read(out.join("manifest.json")).unwrap();
    // A target file per name, and a link to it at that name.
    let top = [
        "sweep.toml",
        "manifest.json",
        "summary.h5",
        "summary.csv",
        "lock",
        ".fdtd-sweep",
    ];
    let per_variant = [
        "scene.toml",
        "status",
        "status.tmp",
        "log",
        "result.h5",
        "result.h5.ckpt",
        "result.h5.ckpt.prev",
    ];
    let mut n = 0;
    let mut plant = |at: &Path| {
        let target = outside.join(format!("t{n}"));
        n += 1;
        std::fs::write(&target, format!("outside file {n}")).unwrap();
        let _ = std::fs::remove_file(at);
        symlink(&target, at).unwrap();
    };
    for name in per_variant {
        plant(&out.join("variants/v000").join(name));
    }
    // The marker first: the lock and the other files are checked after it.
    plant(&out.join(".fdtd-sweep"));
    let before = snapshot(&outside);
    for args in [
        &["sweep", "plan", "sweep.toml", "--backend", "cpu"][..],
        &["sweep", "run", "sweep.toml", "--backend", "cpu"][..],
        &["sweep", "submit", "sweep.toml", "--slurm", "--dry-run"][..],
    ] {
        let o = fdtd(&dir, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains("is a symbolic link"), "{}", stderr(&o));
    }
    std::fs::remove_file(out.join(".fdtd-sweep")).unwrap();
    for name in top {
        plant(&out.join(name));
    }
    let before_top = snapshot(&outside);
    for args in [
        &["sweep", "plan", "sweep.toml", "--backend", "cpu"][..],
        &["sweep", "run", "sweep.toml", "--backend", "cpu"][..],
    ] {
        let o = fdtd(&dir, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains("is a symbolic link"), "{}", stderr(&o));
    }
    // Status and collect read nothing through the links (a linked manifest is refused)
    // and write the summary beside them.
    let o = fdtd(&dir, &["sweep", "status", "out"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("manifest.json"), "{}", stderr(&o));
    std::fs::remove_file(out.join("manifest.json")).unwrap();
    std::fs::write(out.join("manifest.json"), &manifest).unwrap();
    let o = fdtd(&dir, &["sweep", "status", "out"]);
    assert!(!stdout(&o).contains("outside file"), "{}", stdout(&o));
    let o = fdtd(&dir, &["sweep", "collect", "out"]);
    assert!(!stdout(&o).contains("outside file"), "{}", stdout(&o));
    assert!(!std::fs::symlink_metadata(out.join("summary.csv"))
        .unwrap()
        .file_type()
        .is_symlink());
    // A linked variants folder or sweep directory is refused too.
    let vars = out.join("variants");
    std::fs::rename(&vars, root.join("moved")).unwrap();
    symlink(root.join("moved"), &vars).unwrap();
    let o = fdtd(&dir, &["sweep", "run", "sweep.toml", "--backend", "cpu"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(snapshot(&outside), before_top);
    assert_eq!(before.len() + top.len(), before_top.len());
    assert!(snapshot(&outside).iter().any(|(_, t)| t == "outside file 9"));
    // Every target still holds what it held.
    for (name, text) in &before_top {
        assert!(text.starts_with("outside file"), "{name}: {text}");
    }
    std::fs::write(dir.join("linked.toml"), SMALL.replace("\"out\"", "\"ln\"")).unwrap();
    symlink(&outside, dir.join("ln")).unwrap();
    let o = fdtd(&dir, &["sweep", "plan", "linked.toml", "--backend", "cpu"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("ln: is a symbolic link"), "{}", stderr(&o));
    assert_eq!(snapshot(&outside), before_top);
}

/// Item 15: a second `sweep run` on a directory in use is refused with one message
/// (exit 3) and touches no variant's status; manifest ids are validated.
#[test]
fn a_second_runner_is_refused_and_manifest_ids_are_checked() {
    use std::time::{Duration, Instant};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // Long enough (13k steps a variant) to be running while the second one starts.
    write_sweep(dir, &[0.02, 0.022], "\"time.duration\" = 5e-8\n");
    let mut first = std::process::Command::new(BIN)
        .args(["sweep", "run", "sweep.toml", "--backend", "cpu"])
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let status = dir.join("out/variants/v000/status");
    let t0 = Instant::now();
    while !std::fs::read_to_string(&status).is_ok_and(|s| s.starts_with("state=running")) {
        assert!(t0.elapsed() < Duration::from_secs(120), "the first run never started");
        std::thread::sleep(Duration::from_millis(100));
    }
    for args in [
        &["sweep", "run", "sweep.toml", "--backend", "cpu"][..],
        &["sweep", "plan", "sweep.toml", "--backend", "cpu"][..],
    ] {
        let o = fdtd(dir, args);
        assert_eq!(o.status.code(), Some(3), "{args:?}");
        let e = stderr(&o);
        assert!(
            e.contains("is in use by another fdtd sweep (fdtd sweep run, pid "),
            "{e}"
        );
        assert!(!stdout(&o).contains("FAILED"), "{}", stdout(&o));
    }
    assert!(first.try_wait().unwrap().is_none(), "the first run ended early");
    assert!(std::fs::read_to_string(&status).unwrap().starts_with("state=running"));
    // Stop the first (Ctrl-C): its variant is interrupted, not failed.
    assert!(std::process::Command::new("kill")
        .args(["-INT", &first.id().to_string()])
        .status()
        .unwrap()
        .success());
    assert_eq!(first.wait().unwrap().code(), Some(130));
    let st = std::fs::read_to_string(&status).unwrap();
    assert!(st.starts_with("state=interrupted"), "{st}");

    // A doctored manifest: an id that leaves the sweep directory.
    std::fs::write(dir.join("secret"), "do not print").unwrap();
    let m = std::fs::read_to_string(dir.join("out/manifest.json")).unwrap();
    std::fs::write(
        dir.join("out/manifest.json"),
        m.replacen("\"id\": \"v000\"", "\"id\": \"../../../secret\"", 1),
    )
    .unwrap();
    for cmd in ["status", "collect"] {
        let o = fdtd(dir, &["sweep", cmd, "out"]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        assert!(
            stderr(&o).contains("variant id \"../../../secret\" is not v followed by digits"),
            "{}",
            stderr(&o)
        );
        assert!(!stdout(&o).contains("do not print"));
    }
}

/// Item 6: 10 000 parentheses and a 30 000-term sum are a bad-input error (exit 2) at the
/// sweep file's line and column, not a stack overflow (exit 134).
#[test]
fn deep_expressions_are_refused_with_a_position() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("base.toml"), DIPOLE).unwrap();
    let deep = format!("{}0.01{}", "(".repeat(10_000), ")".repeat(10_000));
    let sum = vec!["arm"; 30_000].join(" + ");
    let chain = vec!["arm"; 500].join("+");
    for (e, what) in [
        (deep, "characters long, more than 4096"),
        (sum, "characters long, more than 4096"),
        (chain, "nested too deeply"),
    ] {
        std::fs::write(
            dir.join("sweep.toml"),
            SMALL.replace("\"0.060 - arm\"", &format!("\"{e}\"")),
        )
        .unwrap();
        let o = fdtd(dir, &["sweep", "plan", "sweep.toml", "--backend", "cpu"]);
        assert_eq!(o.status.code(), Some(2));
        let err = stderr(&o);
        assert!(err.contains("sweep.toml:7:") && err.contains(what), "{err}");
        assert!(
            err.len() < 1000,
            "the message repeats the whole expression: {} bytes",
            err.len()
        );
    }
}

//! Files that survive, through the real binary: a scene cannot name a file, nothing is
//! removed that the run did not write, `--force` never loses the file it replaces, two
//! runs never share an output, the XDMF companion follows the output's rules, and a
//! full disk (simulated, and a real small tmpfs filled by another writer) stops the run
//! with a readable file that `--resume` continues.
use hdf5::types::VarLenUnicode;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::*;

/// A 30³-cell dipole in a PEC box: a probe and a full-volume snapshot every 500 steps
/// (119 KiB a frame, uncompressed with `--compression 0`), a checkpoint of 0.7 MB.
const SCENE: &str = r#"
[domain]
cell = 1e-3
size = [0.03, 0.03, 0.03]

[time]
steps = 2000

[boundaries]
all = "pec"

[[sources]]
type = "current"
component = "Ez"
position = [0.015, 0.015, 0.015]
waveform = { type = "gaussian", frequency = 5e9 }

[[probes]]
name = "rx"
position = [0.01, 0.012, 0.014]
components = ["Ez", "Hy"]

[[snapshots]]
name = "all"
components = ["Ez"]
every = 500
"#;

fn spawn(dir: &Path, args: &[&str]) -> Child {
    let _g = fork_lock();
    cmd(dir, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the fdtd binary")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn setup(scene: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), scene).unwrap();
    dir
}

/// (status, steps_done, run_id) of an output file.
fn status_of(path: &Path) -> (String, u64, u64) {
    let _g = fork_lock();
    let f = hdf5::File::open(path).unwrap_or_else(|e| panic!("{} does not open: {e}", path.display()));
    let s = f.attr("status").unwrap().read_scalar::<VarLenUnicode>().unwrap();
    let n = f.attr("steps_done").unwrap().read_scalar::<u64>().unwrap();
    let id = f.attr("run_id").unwrap().read_scalar::<u64>().unwrap();
    (s.as_str().to_string(), n, id)
}

/// Every probe and snapshot dataset, read whole (so a broken chunk index shows), as bits.
fn datasets(path: &Path) -> Vec<(String, Vec<usize>, Vec<u64>)> {
    let _g = fork_lock();
    let f = hdf5::File::open(path).unwrap();
    let mut out = Vec::new();
    for top in ["probes", "snapshots"] {
        let g = f.group(top).unwrap();
        for name in g.member_names().unwrap() {
            let sub = g.group(&name).unwrap();
            for ds_name in sub.member_names().unwrap() {
                let ds = sub.dataset(&ds_name).unwrap();
                let bits: Vec<u64> = if ds_name.starts_with("time") {
                    ds.read_raw::<f64>().unwrap().iter().map(|x| x.to_bits()).collect()
                } else {
                    ds.read_raw::<f32>()
                        .unwrap()
                        .iter()
                        .map(|x| x.to_bits() as u64)
                        .collect()
                };
                out.push((format!("/{top}/{name}/{ds_name}"), ds.shape(), bits));
            }
        }
    }
    out.sort();
    out
}

fn assert_identical(reference: &Path, resumed: &Path) {
    let (want, got) = (datasets(reference), datasets(resumed));
    assert_eq!(want.len(), got.len());
    for ((kw, sw, bw), (kg, sg, bg)) in want.iter().zip(&got) {
        assert_eq!((kw, sw), (kg, sg), "dataset shapes differ");
        assert!(bw == bg, "{kw}: the resumed output differs from the uninterrupted run");
    }
}

/// A failed file holds exactly its flushed steps: every dataset agrees with steps_done.
fn assert_consistent(path: &Path, steps_done: u64) {
    for (name, shape, _) in datasets(path) {
        let want = if name.starts_with("/snapshots/") {
            steps_done / 500
        } else {
            steps_done
        };
        assert_eq!(
            shape[0] as u64,
            want,
            "{name} in {} after {steps_done} steps",
            path.display()
        );
    }
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

const RUN: &[&str] = &[
    "run",
    "s.toml",
    "--backend",
    "cpu",
    "--threads",
    "1",
    "-q",
    "--compression",
    "0",
];

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    RUN.iter().copied().chain(extra.iter().copied()).collect()
}

#[test]
fn a_scene_cannot_name_a_checkpoint_file() {
    let dir = setup(&format!("{SCENE}\n[checkpoint]\npath = \"victim.txt\"\n"));
    let d = dir.path();
    for f in ["victim.txt", "victim.txt.prev", "victim.txt.tmp", "s.h5"] {
        std::fs::write(d.join(f), "keep me").unwrap();
    }
    let out = fdtd(d, &args(&["--force"]));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("s.toml:") && stderr.contains(": checkpoint.path: a scene cannot say where checkpoints go"),
        "{stderr}"
    );
    assert!(stderr.contains("--checkpoint-dir DIR"), "{stderr}");
    for f in ["victim.txt", "victim.txt.prev", "victim.txt.tmp", "s.h5"] {
        assert_eq!(std::fs::read_to_string(d.join(f)).unwrap(), "keep me", "{f}");
    }
}

#[test]
fn checkpoints_go_beside_the_output_or_in_the_checkpoint_dir() {
    let dir = setup(SCENE);
    let d = dir.path();
    std::fs::create_dir(d.join("ck")).unwrap();
    // Stopped (a simulated device loss) after a checkpoint at step 1000.
    let run = args(&["-o", "a.h5", "--checkpoint-dir", "ck", "--checkpoint-every", "1000"]);
    let out = output(cmd(d, &run).env("FDTD_FAULT_AT_STEP", "1200"));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert_eq!(names_in(&d.join("ck")), ["a.h5.ckpt"]);
    assert!(!d.join("a.h5.ckpt").exists());
    assert!(
        stderr.contains("is in ck/a.h5.ckpt; continue with `fdtd run s.toml --resume -o a.h5 --checkpoint-dir ck`"),
        "{stderr}"
    );
    // Resumed from there; the complete run removes its checkpoints.
    let out = fdtd(d, &args(&["-o", "a.h5", "--checkpoint-dir", "ck", "--resume"]));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(status_of(&d.join("a.h5")).0, "complete");
    assert!(names_in(&d.join("ck")).is_empty());
}

#[test]
fn nothing_is_removed_that_the_run_did_not_write() {
    let dir = setup(SCENE);
    let d = dir.path();
    // A file that is not a checkpoint at a checkpoint name: refused, left alone.
    std::fs::write(d.join("s.h5.ckpt.prev"), "my notes").unwrap();
    let out = fdtd(d, &args(&[]));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("s.h5.ckpt.prev is in the way: it is not an fdtd checkpoint"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(d.join("s.h5.ckpt.prev")).unwrap(), "my notes");
    assert!(!d.join("s.h5").exists());
    std::fs::remove_file(d.join("s.h5.ckpt.prev")).unwrap();

    // Two outputs of one name in a shared checkpoint directory: the second run does
    // not take the first one's checkpoints, and the first still resumes from them.
    for sub in ["a", "b", "ck"] {
        std::fs::create_dir(d.join(sub)).unwrap();
    }
    let first = args(&["-o", "a/x.h5", "--checkpoint-dir", "ck", "--checkpoint-every", "1000"]);
    let out = output(cmd(d, &first).env("FDTD_FAULT_AT_STEP", "1200"));
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let saved = std::fs::read(d.join("ck/x.h5.ckpt")).unwrap();
    let out = fdtd(d, &args(&["-o", "b/x.h5", "--checkpoint-dir", "ck"]));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("ck/x.h5.ckpt is in the way: it is a checkpoint of another run"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(d.join("ck/x.h5.ckpt")).unwrap(), saved);
    let out = fdtd(d, &args(&["-o", "a/x.h5", "--checkpoint-dir", "ck", "--resume"]));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    // A forced new run removes the stale checkpoints of the output it replaces, beside
    // it, and nothing else.
    let out = output(cmd(d, &args(&["--checkpoint-every", "1000"])).env("FDTD_FAULT_AT_STEP", "1200"));
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(d.join("s.h5.ckpt").exists());
    std::fs::write(d.join("s.h5.ckpt.old"), "keep").unwrap();
    let out = fdtd(d, &args(&["--force"]));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("removed 1 stale checkpoint file(s)"), "{stderr}");
    assert!(!d.join("s.h5.ckpt").exists());
    assert_eq!(std::fs::read_to_string(d.join("s.h5.ckpt.old")).unwrap(), "keep");
}

/// Whether this process may mount file systems (root, in a mount namespace that allows it).
fn mount_tmpfs(dir: &Path, options: &str) -> Result<(), String> {
    let _g = fork_lock();
    let out = Command::new("mount")
        .args(["-t", "tmpfs", "-o", options, "tmpfs"])
        .arg(dir)
        .output()
        .map_err(|e| format!("cannot run mount: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("mount -t tmpfs failed: {}", text(&out.stderr).trim()))
    }
}

/// Unmounts on drop.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _g = fork_lock();
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// A tmpfs mounted at `dir`, or `None` with the reason printed (a failure under CI,
/// which runs as root on a machine where mounting works).
fn tmpfs_or_skip(dir: &Path, options: &str, test: &str) -> Option<Mounted> {
    match mount_tmpfs(dir, options) {
        Ok(()) => Some(Mounted(dir.to_path_buf())),
        Err(why) => {
            // CI fails here unless its runner found it cannot mount at all and said so
            // (`.ci/run` sets FDTD_TEST_NO_MOUNT with the reason, printed in its log).
            assert!(
                std::env::var_os("CI").is_none() || std::env::var_os("FDTD_TEST_NO_MOUNT").is_some(),
                "{test}: a tmpfs is needed and CI can mount one: {why}"
            );
            eprintln!("skipping {test}: {why}");
            None
        }
    }
}

#[test]
fn a_checkpoint_directory_that_cannot_be_written_is_refused_before_the_run() {
    let dir = setup(SCENE);
    let d = dir.path();
    let ro = d.join("ro");
    std::fs::create_dir(&ro).unwrap();
    // Root writes through permission bits: a read-only mount then; else the bits.
    let is_root = text(&output(Command::new("id").arg("-u")).stdout).trim() == "0";
    let _mounted = if is_root {
        match tmpfs_or_skip(&ro, "ro,size=1m", "a_checkpoint_directory_that_cannot_be_written") {
            Some(m) => Some(m),
            None => return,
        }
    } else {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        None
    };
    let t = Instant::now();
    let out = fdtd(d, &args(&["--checkpoint-dir", "ro"]));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot write checkpoints to ro/s.h5.ckpt: cannot create files in directory ro"),
        "{stderr}"
    );
    assert!(!d.join("s.h5").exists(), "refused before the output was created");
    assert!(t.elapsed() < Duration::from_secs(20));
}

/// Wait until `path` exists and is at least `bytes` long (or panic after `limit`).
fn wait_for_size(path: &Path, bytes: u64, limit: Duration, child: &mut Child) {
    let t = Instant::now();
    while std::fs::metadata(path).map_or(true, |m| m.len() < bytes) {
        if let Ok(Some(status)) = child.try_wait() {
            panic!(
                "the run ended ({status}) before {} reached {bytes} bytes",
                path.display()
            );
        }
        assert!(t.elapsed() < limit, "{} never reached {bytes} bytes", path.display());
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn two_runs_on_one_output_never_lose_it() {
    let long = SCENE.replace("steps = 2000", "steps = 30000");
    let dir = setup(&long);
    let d = dir.path();
    // The first run holds its output; a second, forced one refuses and changes nothing.
    let mut first = spawn(d, &args(&["--force", "-o", "same.h5"]));
    wait_for_size(&d.join("same.h5"), 1, Duration::from_secs(60), &mut first);
    let out = fdtd(d, &args(&["--force", "-o", "same.h5"]));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("output file same.h5 is in use by another process"),
        "{stderr}"
    );
    let out = first.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (status, steps, id) = status_of(&d.join("same.h5"));
    assert_eq!((status.as_str(), steps), ("complete", 30000));

    // A reader holds the file open (HDF5 takes a shared lock, as in h5py): a forced run
    // refuses and the old file stays whole.
    let out = {
        let _g = fork_lock();
        let reader = hdf5::File::open(d.join("same.h5")).unwrap();
        let out = cmd(d, &args(&["--force", "-o", "same.h5"])).output().unwrap();
        drop(reader);
        out
    };
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("is in use by another process"), "{stderr}");
    assert_eq!(status_of(&d.join("same.h5")), ("complete".to_string(), 30000, id));
    // Nothing but the outputs: no temporary left behind.
    assert_eq!(names_in(d), ["s.toml", "same.h5", "same.xdmf"]);
}

/// Whether process `pid` has a handler for SIGTERM (bit 15 of `SigCgt`).
fn catches_sigterm(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
        .is_some_and(|m| m & (1 << (15 - 1)) != 0)
}

#[test]
fn a_forced_run_replaces_the_old_file_only_when_its_own_is_complete() {
    let dir = setup(SCENE);
    let d = dir.path();
    let out = fdtd(d, &args(&[]));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (_, _, old_id) = status_of(&d.join("s.h5"));
    // A forced run whose set-up fails after the backend (a bad snapshot name cannot be
    // an HDF5 group) keeps the old file.
    std::fs::write(d.join("bad.toml"), SCENE.replace("name = \"all\"", "name = \".\"")).unwrap();
    let out = fdtd(
        d,
        &["run", "bad.toml", "--backend", "cpu", "-q", "-o", "s.h5", "--force"],
    );
    let stderr = text(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(status_of(&d.join("s.h5")).2, old_id, "{stderr}");
    // SIGTERM during set-up (a big grid discretising): exit 130, the old file whole.
    let big = SCENE.replace("size = [0.03, 0.03, 0.03]", "size = [0.2, 0.2, 0.2]");
    std::fs::write(d.join("big.toml"), big).unwrap();
    let child = spawn(
        d,
        &["run", "big.toml", "--backend", "cpu", "-q", "-o", "s.h5", "--force"],
    );
    let t0 = Instant::now();
    while !catches_sigterm(child.id()) {
        assert!(t0.elapsed() < Duration::from_secs(20), "no SIGTERM handler installed");
        std::thread::sleep(Duration::from_millis(2));
    }
    let kill = output(Command::new("kill").args(["-TERM", &child.id().to_string()]));
    assert!(kill.status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    assert_eq!(status_of(&d.join("s.h5")), ("complete".to_string(), 2000, old_id));
    assert_eq!(names_in(d), ["bad.toml", "big.toml", "s.h5", "s.toml", "s.xdmf"]);
    // A forced run that completes replaces it.
    let out = fdtd(d, &args(&["--force"]));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_ne!(status_of(&d.join("s.h5")).2, old_id);
}

#[test]
fn the_xdmf_companion_follows_the_output_rules() {
    let dir = setup(SCENE);
    let d = dir.path();
    // Without --force an existing companion is refused, untouched, and nothing is written.
    std::fs::write(d.join("s.xdmf"), "mine").unwrap();
    let out = fdtd(d, &args(&[]));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the XDMF companion s.xdmf of output file s.h5 already exists"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(d.join("s.xdmf")).unwrap(), "mine");
    assert!(!d.join("s.h5").exists());
    // Links planted at the old temporary name and at the name are not followed.
    std::fs::write(d.join("victim.txt"), "keep me").unwrap();
    std::os::unix::fs::symlink(d.join("victim.txt"), d.join("s.xdmf.tmp")).unwrap();
    std::fs::remove_file(d.join("s.xdmf")).unwrap();
    std::os::unix::fs::symlink(d.join("victim.txt"), d.join("s.xdmf")).unwrap();
    let out = fdtd(d, &args(&["--force"]));
    let stderr = text(&out.stderr);
    // A link at the companion's name is not a regular file: refused.
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("s.xdmf: it is a symbolic link"), "{stderr}");
    std::fs::remove_file(d.join("s.xdmf")).unwrap();
    let out = fdtd(d, &args(&["--force"]));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(d.join("victim.txt")).unwrap(), "keep me");
    assert!(std::fs::read_to_string(d.join("s.xdmf")).unwrap().contains("<Xdmf"));

    // Outputs that are not regular files: a device, a FIFO, a directory.
    for (o, what) in [
        ("/dev/null", "a character device"),
        ("fifo.h5", "a FIFO"),
        ("dir.h5", "a directory"),
    ] {
        if o == "fifo.h5" {
            assert!(output(Command::new("mkfifo").arg(d.join(o))).status.success());
        }
        if o == "dir.h5" {
            std::fs::create_dir(d.join(o)).unwrap();
        }
        let out = fdtd(d, &args(&["--force", "-o", o]));
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{o}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "cannot overwrite output file {o}: it is {what}, not a regular file"
            )),
            "{stderr}"
        );
    }
    assert!(!Path::new("/dev/null.xdmf").exists());
}

/// The reference: an uninterrupted run of `s.toml` into `dir/name`.
fn reference(dir: &Path, name: &str) {
    let out = fdtd(dir, &args(&["-o", name]));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn a_simulated_full_disk_stops_the_run_and_resume_continues() {
    let dir = setup(SCENE);
    let d = dir.path();
    reference(d, "ref.h5");
    // The file may grow to 1.5 MB: room for the first frames only.
    let run = args(&["--checkpoint-every", "500"]);
    let out = output(cmd(d, &run).env("FDTD_FAULT_NO_SPACE_AFTER", "1500000"));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("the disk is full"), "{stderr}");
    assert!(stderr.contains("s.h5 is closed with status \"failed\""), "{stderr}");
    assert!(stderr.contains("free some disk space, then:"), "{stderr}");
    let (status, steps, _) = status_of(&d.join("s.h5"));
    assert_eq!(status, "failed");
    assert!((500..2000).contains(&steps), "{steps}");
    assert_consistent(&d.join("s.h5"), steps);
    // Space freed: the run continues from its last checkpoint, bit-identical.
    let out = fdtd(d, &args(&["--resume"]));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(status_of(&d.join("s.h5")).0, "complete");
    assert_identical(&d.join("ref.h5"), &d.join("s.h5"));
    // The space reserved ahead is given back when the file is closed.
    use std::os::unix::fs::MetadataExt;
    for f in ["ref.h5", "s.h5"] {
        let m = std::fs::metadata(d.join(f)).unwrap();
        assert!(
            m.blocks() * 512 < m.len() + (256 << 10),
            "{f}: {} bytes allocated for {} bytes",
            m.blocks() * 512,
            m.len()
        );
    }
}

/// Write zeros to `path` until the disk is full (another process's data).
fn fill_disk(path: &Path) -> u64 {
    let mut f = std::fs::File::create(path).unwrap();
    let block = vec![0u8; 16 << 10];
    let mut n = 0u64;
    while f.write_all(&block).is_ok() {
        n += block.len() as u64;
    }
    // The rest, byte by byte in smaller pieces.
    let small = [0u8; 512];
    while f.write_all(&small).is_ok() {
        n += 512;
    }
    let _ = f.sync_all();
    n
}

#[test]
fn a_disk_filled_by_another_writer_loses_nothing() {
    let scene = SCENE.replace("steps = 2000", "steps = 12000");
    let dir = setup(&scene);
    let d = dir.path();
    let disk = d.join("disk");
    std::fs::create_dir(&disk).unwrap();
    let Some(_mounted) = tmpfs_or_skip(&disk, "size=8m", "a_disk_filled_by_another_writer_loses_nothing") else {
        return;
    };
    reference(d, "ref.h5");
    std::fs::copy(d.join("s.toml"), disk.join("s.toml")).unwrap();
    // 24 frames of 119 KiB and two checkpoints of 0.7 MB fit in 8 MiB; once three
    // frames are in, another writer takes all the free space.
    let run = args(&["--checkpoint-every", "1000"]);
    let mut child = spawn(&disk, &run);
    wait_for_size(&disk.join("s.h5"), 3 * 119_000, Duration::from_secs(120), &mut child);
    wait_for_size(&disk.join("s.h5.ckpt"), 1, Duration::from_secs(120), &mut child);
    let filled = fill_disk(&disk.join("filler"));
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "filled {filled} bytes: {stderr}");
    assert!(stderr.contains("the disk is full"), "{stderr}");
    assert!(stderr.contains("s.h5 is closed with status \"failed\""), "{stderr}");
    // Readable (h5dump too), failed, holding exactly its flushed steps.
    let (status, steps, _) = status_of(&disk.join("s.h5"));
    assert_eq!(status, "failed");
    assert!(steps < 12000, "{steps}");
    assert_consistent(&disk.join("s.h5"), steps);
    let dump = {
        let _g = fork_lock();
        Command::new("h5dump").arg("-H").arg(disk.join("s.h5")).output()
    };
    if let Ok(dump) = dump {
        assert!(dump.status.success(), "h5dump: {}", text(&dump.stderr));
    }
    // Space freed: --resume continues from the last checkpoint, bit-identical.
    std::fs::remove_file(disk.join("filler")).unwrap();
    let out = fdtd(&disk, &args(&["--resume"]));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\nafter the failed run ({steps} steps, files {:?}): {stderr}",
        text(&out.stderr),
        names_in(&disk)
    );
    assert_eq!(status_of(&disk.join("s.h5")).0, "complete");
    assert_identical(&d.join("ref.h5"), &disk.join("s.h5"));
}

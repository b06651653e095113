//! `fdtd sweep` on this machine: plan, run through the library session, skip complete
//! variants, collect; invalid sweeps are refused before anything runs.
mod sweep_common;
use sweep_common::*;

#[test]
fn sweep_runs_locally_and_collects_a_resonance_that_moves_with_arm_length() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_sweep(dir, &[0.018, 0.024, 0.030], "");

    let o = fdtd(dir, &["sweep", "plan", "sweep.toml", "--backend", "cpu"]);
    assert!(o.status.success());
    let s = stdout(&o);
    assert!(s.contains("3 variant(s)"), "{s}");
    assert!(s.contains("v002     0.03"), "{s}");
    let scene = std::fs::read_to_string(dir.join("out/variants/v001/scene.toml")).unwrap();
    assert!(scene.contains("min = [0.030, 0.030, 0.036]   # lower arm"), "{scene}");
    assert!(scene.contains("max = [0.032, 0.032, 0.086]"), "{scene}");
    assert!(scene.starts_with("# Variant v001"), "{scene}");

    let o = fdtd(dir, &["sweep", "run", "sweep.toml", "-j", "2", "--backend", "cpu"]);
    assert_eq!(o.status.code(), Some(0));
    let s = stdout(&o);
    assert!(s.contains("3 done, 0 skipped"), "{s}");
    for id in ["v000", "v001", "v002"] {
        let st = std::fs::read_to_string(dir.join(format!("out/variants/{id}/status"))).unwrap();
        assert!(st.starts_with("state=done\n"), "{id}: {st}");
        assert!(st.contains("exit_code=0"), "{st}");
    }

    let o = fdtd(dir, &["sweep", "status", "out"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("3 variant(s): 3 done"), "{}", stdout(&o));

    let o = fdtd(dir, &["sweep", "collect", "out"]);
    assert_eq!(o.status.code(), Some(0));
    let rows = read_csv(&dir.join("out/summary.csv"));
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r["backend"] == "cpu"), "{rows:?}");
    assert!(rows.iter().all(|r| r["run_time_s"].parse::<f64>().unwrap() > 0.0));
    assert!(rows.iter().all(|r| r["max_gap_Ez"].parse::<f64>().unwrap() > 0.0));
    check_resonances(&resonances(&rows));
    // The HDF5 summary holds the same columns.
    let f = hdf5::File::open(dir.join("out/summary.h5")).unwrap();
    let f0 = f.dataset("columns/z_in_f0_hz").unwrap().read_raw::<f64>().unwrap();
    assert_eq!(f0.len(), 3);
    assert_eq!(f0[1].to_string(), rows[1]["z_in_f0_hz"]);
    assert_eq!(f.attr("n_done").unwrap().read_scalar::<u64>().unwrap(), 3);

    // Running again skips the complete variants; a changed variant runs again.
    let o = fdtd(dir, &["sweep", "run", "sweep.toml", "--backend", "cpu"]);
    assert!(stdout(&o).contains("0 done, 3 skipped"), "{}", stdout(&o));
    write_sweep(dir, &[0.018, 0.024, 0.028], "");
    let o = fdtd(dir, &["sweep", "run", "sweep.toml", "--backend", "cpu"]);
    assert!(stdout(&o).contains("1 done, 2 skipped"), "{}", stdout(&o));
}

#[test]
fn invalid_variants_are_all_reported_before_anything_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("base.toml"), DIPOLE).unwrap();
    // A feed that leaves the domain (z up to 0.12 m) for the last two values.
    std::fs::write(
        dir.join("sweep.toml"),
        "[sweep]\nbase = \"base.toml\"\ndirectory = \"out\"\n[parameters]\narm = [0.0, 0.07, 0.08]\n\
         [set]\n\"sources[0].position[2]\" = \"0.061 + arm\"\n",
    )
    .unwrap();
    let o = fdtd(dir, &["sweep", "run", "sweep.toml", "--backend", "cpu"]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("2 of 3 variants are invalid (nothing was run or submitted)"),
        "{e}"
    );
    assert!(e.contains("variant v001 (arm=0.07)"), "{e}");
    assert!(e.contains("variant v002 (arm=0.08)"), "{e}");
    assert!(e.contains("out/variants/v001/scene.toml:"), "{e}");
    assert!(e.contains("sources[0].position"), "{e}");
    assert!(!dir.join("out/variants/v000/result.h5").exists());
    assert!(!dir.join("out/variants/v000/status").exists());

    // A key the base scene does not have, at the sweep file's line and column.
    std::fs::write(
        dir.join("sweep.toml"),
        "[sweep]\nbase = \"base.toml\"\n[parameters]\nf = { values = [1e9], key = \"sources[0].waveform.freq\" }\n",
    )
    .unwrap();
    let o = fdtd(dir, &["sweep", "plan", "sweep.toml"]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("sweep.toml:4:29: parameters.f.key: the base scene does not set sources[0].waveform.freq"),
        "{e}"
    );
    assert!(
        e.contains("help: sources[0].waveform has \"type\", \"frequency\""),
        "{e}"
    );

    // Not a sweep directory.
    let o = fdtd(dir, &["sweep", "status", "."]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not a sweep directory"));
}

/// The job-array task script on its own (as Slurm runs it, without Slurm): SIGTERM to the
/// batch shell (what `--signal=B:TERM@secs` and preemption send) makes the run checkpoint
/// and the task end `interrupted`; the next task for the variant resumes from the checkpoint.
#[test]
fn an_array_task_checkpoints_on_sigterm_and_the_next_task_resumes() {
    use std::time::{Duration, Instant};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // One variant, long enough (13k steps) to be stopped while it steps.
    write_sweep(dir, &[0.02], "\"time.duration\" = 5e-8\n");
    let o = fdtd(
        dir,
        &[
            "sweep",
            "submit",
            "sweep.toml",
            "--slurm",
            "--dry-run",
            "--backend",
            "cpu",
        ],
    );
    assert!(o.status.success());
    assert!(stdout(&o).contains("not submitted (--dry-run)"), "{}", stdout(&o));
    let script = dir.join("out/slurm/array.sbatch");
    assert!(!dir.join("out/slurm/jobs").exists(), "a dry run submits nothing");
    let task = |job: &str| {
        std::process::Command::new("bash")
            .arg(&script)
            .env("SLURM_ARRAY_TASK_ID", "0")
            .env("SLURM_ARRAY_JOB_ID", job)
            .spawn()
            .unwrap()
    };
    let vdir = dir.join("out/variants/v000");
    let mut child = task("41");
    // Wait until it steps (its output exists and has been flushed at least once).
    let t0 = Instant::now();
    while !vdir.join("result.h5").exists() {
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "the task never started its run"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run finished before it could be stopped"
    );
    let pid = child.id().to_string();
    assert!(std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let code = child.wait().unwrap().code();
    assert_eq!(
        code,
        Some(130),
        "log:\n{}",
        std::fs::read_to_string(vdir.join("log")).unwrap_or_default()
    );
    let st = std::fs::read_to_string(vdir.join("status")).unwrap();
    assert!(
        st.starts_with("state=interrupted\n") && st.contains("exit_code=130") && st.contains("job=41_0"),
        "{st}"
    );
    assert!(vdir.join("result.h5.ckpt").exists(), "no checkpoint after SIGTERM");
    let o = fdtd(dir, &["sweep", "status", "out"]);
    assert!(stdout(&o).contains("interrupted"), "{}", stdout(&o));

    // The next task (a requeue or a resubmission) resumes.
    let status = task("42").wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let log = std::fs::read_to_string(vdir.join("log")).unwrap();
    assert!(log.contains("--resume"), "{log}");
    assert!(log.contains("resuming from step"), "{log}");
    let st = std::fs::read_to_string(vdir.join("status")).unwrap();
    assert!(st.starts_with("state=done\n") && st.contains("job=42_0"), "{st}");
    let o = fdtd(dir, &["sweep", "collect", "out"]);
    assert_eq!(o.status.code(), Some(0));
}

/// Issue 18: a sweep of a port-fed scene has its resonance, match, −10 dB band and
/// far-field figures in the summary without hand-placed probes or figures, and `steps`
/// is the steps each variant ran (the end criterion stops it before the maximum).
#[test]
fn a_port_fed_sweep_summarises_its_ports_and_far_fields() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("base.toml"), PORT_DIPOLE).unwrap();
    std::fs::write(
        dir.join("sweep.toml"),
        "[sweep]\nbase = \"base.toml\"\ndirectory = \"out\"\n[parameters]\narm = [0.020, 0.024]\n\
         [derived]\nlength = \"2 * arm + 0.002\"\n\
         [set]\n\"objects[0].min[2]\" = \"0.060 - arm\"\n\"objects[1].max[2]\" = \"0.062 + arm\"\n",
    )
    .unwrap();
    let o = fdtd(dir, &["sweep", "run", "sweep.toml", "-j", "2", "--backend", "cpu"]);
    assert_eq!(o.status.code(), Some(0));
    let o = fdtd(dir, &["sweep", "collect", "out"]);
    assert_eq!(o.status.code(), Some(0));
    let table = stdout(&o);
    assert!(
        table.contains("port_feed_f0_hz") && table.contains("end_reason"),
        "{table}"
    );
    assert!(
        !table.contains("ports_feed_first_edge_index"),
        "raw attributes are not printed: {table}"
    );
    let rows = read_csv(&dir.join("out/summary.csv"));
    let num = |r: &std::collections::BTreeMap<String, String>, k: &str| -> f64 {
        r.get(k)
            .unwrap_or_else(|| panic!("no column {k}: {:?}", r.keys()))
            .parse()
            .unwrap_or_else(|e| panic!("{k} = {:?}: {e}", r[k]))
    };
    let mut res = Vec::new();
    for r in &rows {
        let (l, f0) = (num(r, "length"), num(r, "port_feed_f0_hz"));
        res.push((l, f0));
        // Re Z at the series resonance of a thick dipole: tens of ohms.
        let re = num(r, "port_feed_f0_re_ohm");
        assert!((20.0..150.0).contains(&re), "Re Z {re}");
        // The best match lies in the band and near the resonance (73 Ω port).
        let (db, fm) = (num(r, "port_feed_s11_min_db"), num(r, "port_feed_s11_min_hz"));
        assert!(
            db < -10.0 && (fm - f0).abs() < 0.2 * f0,
            "min |S11| {db} dB at {fm}, f0 {f0}"
        );
        let (lo, hi) = (num(r, "port_feed_band_lo_hz"), num(r, "port_feed_band_hi_hz"));
        assert!(
            lo < fm && fm < hi && lo >= 0.8e9 && hi <= 5e9,
            "band {lo}..{hi}, min at {fm}"
        );
        // A dipole's peak directivity is 1.6-2.5 dBi; the gain column is the peak of the
        // file's gain pattern.
        let file = hdf5::File::open(dir.join(format!("out/variants/{}/result.h5", r["id"]))).unwrap();
        let gain = file.dataset("farfield/ff/gain_dBi").unwrap();
        let per = gain.size() / 2;
        let gain = gain.read_raw::<f64>().unwrap();
        for (k, f) in ["2GHz", "3GHz"].into_iter().enumerate() {
            let d = num(r, &format!("ff_ff_d_dbi_{f}"));
            let g = num(r, &format!("ff_ff_gain_dbi_{f}"));
            assert!((1.0..3.5).contains(&d), "D({f}) = {d}");
            let peak = gain[k * per..(k + 1) * per].iter().cloned().fold(f64::MIN, f64::max);
            assert!((g - peak).abs() < 1e-6, "G({f}) = {g}, the pattern's peak {peak}");
        }
        // The steps run, not the maximum: the end criterion stopped it.
        assert_eq!(r["end_reason"], "decayed", "{r:?}");
        assert!(num(r, "steps") < num(r, "steps_max"), "{r:?}");
        let done = file.attr("steps_done").unwrap().read_scalar::<u64>().unwrap();
        assert_eq!(num(r, "steps"), done as f64);
    }
    // The same physics as the probe figure: a longer dipole resonates lower, f0·L ≈ 0.46 c.
    check_resonances(&res);
    let f = hdf5::File::open(dir.join("out/summary.h5")).unwrap();
    let f0 = f.dataset("columns/port_feed_f0_hz").unwrap().read_raw::<f64>().unwrap();
    assert_eq!(f0[1].to_string(), rows[1]["port_feed_f0_hz"]);
}

/// Issue 18: a sweep of a two-port scene that drives each port has the transmission
/// columns of the full S-matrix (`s_<out>_<in>_…`) and every port's own columns, taken
/// from `/s_matrix` at the frequencies the run resolved.
#[test]
fn a_drive_each_sweep_summarises_the_s_matrix() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let base = fdtd_validation::cases::ports::reciprocal_two_port(6000);
    std::fs::write(dir.join("base.toml"), base).unwrap();
    std::fs::write(
        dir.join("sweep.toml"),
        "[sweep]\nbase = \"base.toml\"\ndirectory = \"out\"\n[parameters]\nc = [1e-12, 4e-12]\n\
         [set]\n\"lumped[0].c\" = \"c\"\n",
    )
    .unwrap();
    let o = fdtd(dir, &["sweep", "run", "sweep.toml", "-j", "2", "--backend", "cpu"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let o = fdtd(dir, &["sweep", "collect", "out"]);
    assert_eq!(o.status.code(), Some(0));
    let rows = read_csv(&dir.join("out/summary.csv"));
    let num = |r: &std::collections::BTreeMap<String, String>, k: &str| -> f64 {
        r.get(k)
            .unwrap_or_else(|| panic!("no column {k}: {:?}", r.keys()))
            .parse()
            .unwrap_or_else(|e| panic!("{k} = {:?}: {e}", r[k]))
    };
    let mut peaks = Vec::new();
    for r in &rows {
        let file = hdf5::File::open(dir.join(format!("out/variants/{}/result.h5", r["id"]))).unwrap();
        let freq = file.dataset("s_matrix/frequency").unwrap().read_raw::<f64>().unwrap();
        let db = file.dataset("s_matrix/S_dB").unwrap().read_raw::<f64>().unwrap();
        let ok = file.dataset("s_matrix/resolved").unwrap().read_raw::<u8>().unwrap();
        let nf = freq.len();
        // S_dB[out][in][freq]: S21 is out 1, in 0.
        let s21 = &db[2 * nf..3 * nf];
        let k = (0..nf)
            .filter(|&k| ok[k] == 1)
            .max_by(|&a, &b| s21[a].total_cmp(&s21[b]))
            .unwrap();
        assert!((num(r, "s_p2_p1_max_db") - s21[k]).abs() < 1e-9, "{r:?}");
        assert_eq!(num(r, "s_p2_p1_max_hz"), freq[k]);
        // Reciprocal: S12 = S21 (1e-6 in the validation case: a small fraction of a dB).
        assert!(
            (num(r, "s_p1_p2_max_db") - num(r, "s_p2_p1_max_db")).abs() < 1e-4,
            "{r:?}"
        );
        assert!(num(r, "s_p2_p1_band3_lo_hz") <= freq[k] && freq[k] <= num(r, "s_p2_p1_band3_hi_hz"));
        // The second port's own match, from the matrix's diagonal.
        assert!(num(r, "port_p2_s11_min_db").is_finite(), "{r:?}");
        peaks.push((num(r, "c"), num(r, "s_p2_p1_band3_hi_hz")));
    }
    // A larger shunt capacitor narrows the passband.
    peaks.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert!(peaks[1].1 <= peaks[0].1, "{peaks:?}");
}

/// A 2-D GPR survey (y periodic, two cells): a Ricker line source and a receiver 4 cm
/// apart move over a moist Debye soil with a PEC pipe at x = 0.4 m, 16 cm deep (its top).
const GPR_2D: &str = r#"
[domain]
cell = 1e-2
cells = [80, 2, 50]
[time]
duration = 15e-9
[boundaries]
y = "periodic"
[materials.soil]
eps_r = 6.0
sigma = 2e-3
poles = [{ type = "debye", delta_eps = 3.0, tau = 1e-9 }]
[[objects]]
shape = "box"
material = "soil"
min = [0.0, 0.0, 0.0]
max = [0.8, 0.02, 0.3]
[[objects]]
shape = "cylinder"
material = "pec"
a = [0.4, 0.0, 0.12]
b = [0.4, 0.02, 0.12]
radius = 0.02
[[sources]]
name = "tx"
type = "current"
component = "Ey"
position = [0.38, 0.0, 0.32]
waveform = { type = "ricker", frequency = 3e8, amplitude = 1e-3 }
[[probes]]
name = "rx"
position = [0.42, 0.0, 0.32]
components = ["Ey"]
"#;

/// Issue 20: `fdtd plot` of a B-scan sweep draws the radargram, and the data it draws
/// has the pipe's hyperbola: with the mean trace removed, the echo (the largest |Ey| of
/// each trace) comes first where the pair is over the pipe (x = 0.4 m, one 5 cm step).
#[test]
fn a_gpr_sweep_plots_a_radargram_with_the_pipe_at_its_apex() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("gpr.toml"), GPR_2D).unwrap();
    std::fs::write(
        dir.join("bscan.toml"),
        "[sweep]\nbase = \"gpr.toml\"\ndirectory = \"out\"\n[parameters]\nx = { linspace = [0.15, 0.65, 11] }\n\
         [set]\n\"sources[0].position[0]\" = \"x - 0.02\"\n\"probes[0].position[0]\" = \"x + 0.02\"\n",
    )
    .unwrap();
    let o = fdtd(dir, &["sweep", "run", "bscan.toml", "-j", "2", "--backend", "cpu"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let o = fdtd(dir, &["plot", "out", "-o", "figs"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let png = dir.join("figs/out_bscan_rx_Ey.png");
    assert!(png.exists(), "{}", String::from_utf8_lossy(&o.stdout));

    // The same data, read independently: traces by x, mean removed, echo times.
    let mut traces = Vec::new();
    for i in 0..11 {
        let x = 0.15 + 0.05 * i as f64;
        let f = hdf5::File::open(dir.join(format!("out/variants/v{i:03}/result.h5"))).unwrap();
        let v = f.dataset("probes/rx/Ey").unwrap().read_raw::<f32>().unwrap();
        traces.push((x, v));
    }
    let n = traces.iter().map(|t| t.1.len()).min().unwrap();
    let mean: Vec<f64> = (0..n)
        .map(|k| traces.iter().map(|t| t.1[k] as f64).sum::<f64>() / 11.0)
        .collect();
    let peak = traces
        .iter()
        .flat_map(|(_, v)| (0..n).map(|k| (v[k] as f64 - mean[k]).abs()))
        .fold(0.0, f64::max);
    // The echo's arrival: the first sample above half the largest residual.
    let arrival: Vec<(f64, usize)> = traces
        .iter()
        .map(|(x, v)| {
            let k = (0..n)
                .find(|&k| (v[k] as f64 - mean[k]).abs() > 0.5 * peak)
                .unwrap_or(n);
            (*x, k)
        })
        .collect();
    println!("echo arrival (x, step): {arrival:?}");
    let apex = arrival.iter().min_by_key(|a| a.1).unwrap();
    assert!(
        (apex.0 - 0.4).abs() <= 0.05 + 1e-9,
        "apex at x = {}: {arrival:?}",
        apex.0
    );
    // A hyperbola: later and later away from the apex, on both sides, over the two
    // steps each way where the pipe's echo is the largest residual (farther out, the
    // pair nears the x CPML and the residual of the direct wave competes).
    for i in 3..5 {
        assert!(arrival[i].1 > arrival[i + 1].1, "{arrival:?}");
        assert!(arrival[10 - i].1 > arrival[9 - i].1, "{arrival:?}");
    }
}

/// The B-scan sweep's base is a copy of scenes/gpr.toml (a sweep names files in its own
/// folder): the two must not drift apart.
#[test]
fn the_bscan_base_is_the_gpr_scene() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let a = std::fs::read_to_string(root.join("scenes/gpr.toml")).unwrap();
    let b = std::fs::read_to_string(root.join("scenes/sweeps/gpr.toml")).unwrap();
    assert_eq!(a, b, "scenes/sweeps/gpr.toml differs from scenes/gpr.toml");
}

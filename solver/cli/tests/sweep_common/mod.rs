//! A tiny dipole sweep shared by the local and the Slurm sweep tests: three arm lengths
//! on 2 mm cells (54k cells, ~520 steps each), with the feed gap's impedance figure.
#![allow(dead_code)]
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const BIN: &str = env!("CARGO_BIN_EXE_fdtd");

/// A centre-fed PEC wire dipole along z at (x, y) = (30, 30) mm, gap z in [60, 62] mm,
/// soft current source in the gap, H probes half a cell around the fed edge.
pub const DIPOLE: &str = r#"
[domain]
cell = 2e-3
size = [0.06, 0.06, 0.12]

[time]
duration = 2e-9

[boundaries]
all = "cpml"
[boundaries.cpml]
cells = 8

[[objects]]
shape = "box"
material = "pec"
min = [0.030, 0.030, 0.036]   # lower arm
max = [0.032, 0.032, 0.060]

[[objects]]
shape = "box"
material = "pec"
min = [0.030, 0.030, 0.062]   # upper arm
max = [0.032, 0.032, 0.086]

[[sources]]
name = "feed"
type = "current"
component = "Ez"
position = [0.030, 0.030, 0.061]
waveform = { type = "gaussian_derivative", frequency = 2.5e9, amplitude = 1e-3 }

[[probes]]
name = "gap"
position = [0.030, 0.030, 0.061]
components = ["Ez"]

[[probes]]
name = "h_xp"
position = [0.031, 0.030, 0.061]
components = ["Hy"]

[[probes]]
name = "h_xm"
position = [0.029, 0.030, 0.061]
components = ["Hy"]

[[probes]]
name = "h_yp"
position = [0.030, 0.031, 0.061]
components = ["Hx"]

[[probes]]
name = "h_ym"
position = [0.030, 0.029, 0.061]
components = ["Hx"]
"#;

/// The sweep file over [`DIPOLE`] (in `base.toml` next to it), `arms` in m.
pub fn sweep_file(arms: &[f64], extra: &str) -> String {
    let list = arms.iter().map(|a| format!("{a}")).collect::<Vec<_>>().join(", ");
    format!(
        r#"[sweep]
base = "base.toml"
directory = "out"

[parameters]
arm = [{list}]

[derived]
length = "2 * arm + 0.002"

[set]
"objects[0].min[2]" = "0.060 - arm"
"objects[1].max[2]" = "0.062 + arm"
{extra}
[[figures]]
name = "z_in"
kind = "impedance"
voltage = "gap"
current = ["h_xp", "h_xm", "h_yp", "h_ym"]
band = [0.8e9, 5e9]
"#
    )
}

/// Write the base scene and the sweep file into `dir`; returns the sweep file.
pub fn write_sweep(dir: &Path, arms: &[f64], extra: &str) -> PathBuf {
    std::fs::write(dir.join("base.toml"), DIPOLE).unwrap();
    let p = dir.join("sweep.toml");
    std::fs::write(&p, sweep_file(arms, extra)).unwrap();
    p
}

pub fn fdtd(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .expect("run fdtd");
    eprintln!(
        "$ fdtd {}\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// One CSV line: fields split at commas outside double quotes ("" is a quote).
fn csv_fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().unwrap().push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out
}

/// The summary CSV as rows of `column -> value`.
pub fn read_csv(path: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = csv_fields(lines.next().unwrap());
    lines
        .map(|l| {
            let cells = csv_fields(l);
            assert_eq!(cells.len(), header.len(), "{l}");
            header.iter().cloned().zip(cells).collect()
        })
        .collect()
}

/// The first resonance of each variant, in variant order, with the tip-to-tip length.
pub fn resonances(rows: &[std::collections::BTreeMap<String, String>]) -> Vec<(f64, f64)> {
    rows.iter()
        .filter(|r| r["state"] == "done")
        .map(|r| (r["length"].parse().unwrap(), r["z_in_f0_hz"].parse().unwrap()))
        .collect()
}

/// Physics: the first resonance falls as the dipole gets longer, and f0·L stays near
/// 0.47 c (a thick dipole, 2 mm square wire, resonates below L = λ/2; the coarse grid
/// shifts it a few percent).
pub fn check_resonances(res: &[(f64, f64)]) {
    assert!(res.len() >= 2, "{res:?}");
    for w in res.windows(2) {
        assert!(
            w[1].0 > w[0].0 && w[1].1 < w[0].1,
            "resonance must fall as the arm grows: {res:?}"
        );
    }
    for &(l, f0) in res {
        let k = f0 * l / 299_792_458.0;
        assert!((0.38..0.52).contains(&k), "f0·L/c = {k} for L = {l} m, f0 = {f0} Hz");
    }
}

/// [`DIPOLE`] fed by a 73 Ω lumped port in its gap instead of a current source and
/// probes, with results at 0.8-5 GHz, an end criterion and a far field at two
/// frequencies: what a sweep of a port-fed scene summarises without hand-placed probes.
pub const PORT_DIPOLE: &str = r#"
[domain]
cell = 2e-3
size = [0.06, 0.06, 0.12]

[time]
duration = 4e-9
decay_db = 30

[frequencies]
start = 0.8e9
stop = 5e9
points = 85

[boundaries]
all = "cpml"
[boundaries.cpml]
cells = 8

[[objects]]
shape = "box"
material = "pec"
min = [0.030, 0.030, 0.036]   # lower arm
max = [0.032, 0.032, 0.060]

[[objects]]
shape = "box"
material = "pec"
min = [0.030, 0.030, 0.062]   # upper arm
max = [0.032, 0.032, 0.086]

[[ports]]
name = "feed"
start = [0.030, 0.030, 0.060]
end = [0.030, 0.030, 0.062]
impedance = 73
[ports.waveform]
type = "gaussian_derivative"
frequency = 2.5e9

[[farfield]]
name = "ff"
frequencies = [2e9, 3e9]
"#;

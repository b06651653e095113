//! The summary's port and far-field columns, read from a variant's result file (the
//! `/ports` and `/farfield` groups of `docs/output-format.md`), so a port-fed scene has
//! its resonance, match and band in the sweep summary without hand-placed probes.
//!
//! Per driven port `<p>` (name with characters other than letters, digits and `_` as
//! `_`): `port_<p>_f0_hz` (the first resonance: Im Z crosses 0 from below, linearly
//! interpolated) and `port_<p>_f0_re_ohm` (Re Z there), `port_<p>_s11_min_db` and
//! `port_<p>_s11_min_hz`, `port_<p>_band_lo_hz` and `port_<p>_band_hi_hz` (the −10 dB
//! band around the minimum; an edge at the end of the frequency range is that end).
//! Per far field `<f>` and frequency (`<label>`, e.g. `1.5GHz`): `ff_<f>_d_dbi_<label>`
//! (peak directivity) and `ff_<f>_gain_dbi_<label>` (peak gain, D + 10·log10 η, with a
//! driven port). Per transmission term S_qp (out `<q>`, in `<p>`): `s_<q>_<p>_max_db`
//! and `s_<q>_<p>_max_hz` (the largest |S_qp|), `s_<q>_<p>_band3_lo_hz` and
//! `s_<q>_<p>_band3_hi_hz` (the band within 3 dB of it: a filter's passband); from the
//! full matrix (`/s_matrix`, a run that drove every port), every port's own columns too,
//! else the undriven ports' S_{q,driven} of the one drive. Values that are not finite (a
//! port that was not driven, NaN in the file) and frequencies the run could not resolve
//! (`resolved` = 0: outside the drive's band, above Nyquist) are left out, never printed
//! as numbers.
use hdf5::{File, Group, Location};

/// Most values read from one dataset or attribute (a result file is not trusted to be
/// sane: its declared sizes are checked before anything is read).
const MAX_VALUES: usize = 1 << 24;

/// A name as part of a column: letters, digits and `_` (others become `_`).
pub fn column_part(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
        .collect()
}

/// A frequency as a column suffix: `2.45GHz`, `900MHz`, `50kHz`, `10Hz`.
pub fn freq_label(f: f64) -> String {
    let (scale, unit) = if f >= 1e9 {
        (1e9, "GHz")
    } else if f >= 1e6 {
        (1e6, "MHz")
    } else if f >= 1e3 {
        (1e3, "kHz")
    } else {
        (1.0, "Hz")
    };
    format!("{}{unit}", crate::format_num(crate::round_sig(f / scale)))
}

fn read_vec(g: &Group, name: &str) -> Option<Vec<f64>> {
    let ds = g.dataset(name).ok()?;
    if ds.size() > MAX_VALUES {
        return None;
    }
    ds.read_raw::<f64>().ok()
}

fn read_attr_vec(loc: &Location, name: &str) -> Option<Vec<f64>> {
    let a = loc.attr(name).ok()?;
    if a.size() > MAX_VALUES {
        return None;
    }
    a.read_raw::<f64>().ok()
}

fn driven(loc: &Location) -> bool {
    let Ok(a) = loc.attr("driven") else {
        return false;
    };
    a.read_scalar::<u8>()
        .map(|x| x != 0)
        .or_else(|_| a.read_scalar::<bool>())
        .unwrap_or(false)
}

/// The port figures of one port: frequencies, Z (re, im) and S (re, im).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PortFigures {
    /// First resonance (Hz) and Re Z there (Ω).
    pub f0: Option<(f64, f64)>,
    /// Minimum |S11| (dB) and its frequency (Hz).
    pub s11_min: Option<(f64, f64)>,
    /// The −10 dB band (Hz).
    pub band: Option<(f64, f64)>,
}

/// Port figures from the transforms, ignoring samples that are not finite.
pub fn port_figures(freq: &[f64], z: &[[f64; 2]], s: &[[f64; 2]]) -> PortFigures {
    let mut out = PortFigures::default();
    for k in 1..freq.len().min(z.len()) {
        let (z0, z1) = (z[k - 1], z[k]);
        if !(z0.iter().chain(&z1).all(|x| x.is_finite()) && freq[k - 1].is_finite() && freq[k].is_finite()) {
            continue;
        }
        if z0[1] < 0.0 && z1[1] >= 0.0 {
            let t = z0[1] / (z0[1] - z1[1]);
            out.f0 = Some((freq[k - 1] + t * (freq[k] - freq[k - 1]), z0[0] + t * (z1[0] - z0[0])));
            break;
        }
    }
    let sdb = db_of(s, freq.len());
    let kmin = (0..sdb.len())
        .filter(|&k| sdb[k].is_finite() && freq[k].is_finite())
        .min_by(|&a, &b| sdb[a].total_cmp(&sdb[b]));
    if let Some(k) = kmin {
        out.s11_min = Some((sdb[k], freq[k]));
        if sdb[k] <= -10.0 {
            out.band = Some(band_around(freq, &sdb, k, -10.0));
        }
    }
    out
}

/// 20·log10|s| per frequency (an exact zero is −300 dB, as far-field nulls are; NaN
/// stays NaN).
fn db_of(s: &[[f64; 2]], n: usize) -> Vec<f64> {
    s.iter()
        .take(n)
        .map(|v| {
            let m = v[0].hypot(v[1]);
            if m.is_nan() {
                f64::NAN
            } else {
                20.0 * m.max(1e-15).log10()
            }
        })
        .collect()
}

/// The band of frequencies around sample `k` on the same side of `level` dB as `k`
/// (below it for a match, above it for a passband), its edges interpolated linearly in
/// dB; an edge at the end of the range (or next to a NaN) is that sample.
fn band_around(freq: &[f64], db: &[f64], k: usize, level: f64) -> (f64, f64) {
    let below = db[k] <= level;
    let inside = |i: usize| db[i].is_finite() && (db[i] <= level) == below;
    let cross = |i: usize, j: usize| {
        if db[j].is_finite() {
            let t = (level - db[i]) / (db[j] - db[i]);
            freq[i] + t * (freq[j] - freq[i])
        } else {
            freq[i]
        }
    };
    let (mut lo, mut hi) = (k, k);
    while lo > 0 && inside(lo - 1) {
        lo -= 1;
    }
    while hi + 1 < db.len() && inside(hi + 1) {
        hi += 1;
    }
    let flo = if lo == 0 { freq[0] } else { cross(lo, lo - 1) };
    let fhi = if hi + 1 == db.len() {
        freq[hi]
    } else {
        cross(hi, hi + 1)
    };
    (flo, fhi)
}

/// The figures of a transmission term S_qp: its largest |S| (dB) and frequency, and the
/// band within 3 dB of it (a filter's passband). `None` when no sample is finite.
pub fn transmission_figures(freq: &[f64], s: &[[f64; 2]]) -> Option<(f64, f64, (f64, f64))> {
    let db = db_of(s, freq.len());
    let k = (0..db.len())
        .filter(|&k| db[k].is_finite() && freq[k].is_finite())
        .max_by(|&a, &b| db[a].total_cmp(&db[b]))?;
    Some((db[k], freq[k], band_around(freq, &db, k, db[k] - 3.0)))
}

/// Samples at frequencies the run could not resolve (`resolved` = 0: outside the drive's
/// band or above Nyquist, see docs/output-format.md) become NaN, so no figure is taken
/// from them.
fn mask_unresolved(v: &mut [[f64; 2]], resolved: Option<&[u8]>) {
    if let Some(r) = resolved {
        for (x, &ok) in v.iter_mut().zip(r) {
            if ok == 0 {
                *x = [f64::NAN; 2];
            }
        }
    }
}

fn read_resolved(g: &Group, n: usize) -> Option<Vec<u8>> {
    let ds = g.dataset("resolved").ok()?;
    if ds.size() != n {
        return None;
    }
    ds.read_raw::<u8>().ok()
}

fn pairs(v: Vec<f64>, n: usize) -> Option<Vec<[f64; 2]>> {
    (v.len() == 2 * n).then(|| v.chunks_exact(2).map(|c| [c[0], c[1]]).collect())
}

fn push(cols: &mut Vec<(String, f64)>, name: String, x: f64) {
    if x.is_finite() {
        cols.push((name, x));
    }
}

/// `port_<p>_f0_hz` ... `port_<p>_band_hi_hz` (see the module doc).
fn push_port(cols: &mut Vec<(String, f64)>, p: &str, f: &PortFigures) {
    if let Some((f0, re)) = f.f0 {
        push(cols, format!("{p}_f0_hz"), f0);
        push(cols, format!("{p}_f0_re_ohm"), re);
    }
    if let Some((db, fm)) = f.s11_min {
        push(cols, format!("{p}_s11_min_db"), db);
        push(cols, format!("{p}_s11_min_hz"), fm);
    }
    if let Some((lo, hi)) = f.band {
        push(cols, format!("{p}_band_lo_hz"), lo);
        push(cols, format!("{p}_band_hi_hz"), hi);
    }
}

/// `s_<out>_<in>_max_db`, `_max_hz`, `_band3_lo_hz`, `_band3_hi_hz` (see the module doc).
fn push_transmission(cols: &mut Vec<(String, f64)>, out: &str, inp: &str, freq: &[f64], s: &[[f64; 2]]) {
    if let Some((db, f, (lo, hi))) = transmission_figures(freq, s) {
        let c = format!("s_{}_{}", column_part(out), column_part(inp));
        push(cols, format!("{c}_max_db"), db);
        push(cols, format!("{c}_max_hz"), f);
        push(cols, format!("{c}_band3_lo_hz"), lo);
        push(cols, format!("{c}_band3_hi_hz"), hi);
    }
}

/// The full S-matrix of a run that drove every port (`/s_matrix`).
struct Matrix {
    ports: Vec<String>,
    z0: Vec<f64>,
    freq: Vec<f64>,
    /// `s[out][in]`, per frequency, unresolved samples NaN.
    s: Vec<Vec<Vec<[f64; 2]>>>,
    /// Which port drove the first drive (its own figures come from `/ports`).
    first: Option<usize>,
}

fn read_matrix(file: &File, notes: &mut Vec<String>) -> Option<Matrix> {
    let g = file.group("s_matrix").ok()?;
    let loc: &Location = &g;
    let ports: Vec<String> = loc
        .attr("ports")
        .ok()
        .and_then(|a| a.read_scalar::<hdf5::types::VarLenUnicode>().ok())
        .map(|s| s.as_str().lines().map(str::to_string).collect())
        .unwrap_or_default();
    let (Some(freq), Some(raw), Some(z0)) = (read_vec(&g, "frequency"), read_vec(&g, "S"), read_attr_vec(loc, "z0"))
    else {
        notes.push("/s_matrix: frequency, S or z0 unreadable".into());
        return None;
    };
    let (np, nf) = (ports.len(), freq.len());
    if np == 0 || z0.len() != np || raw.len() != np * np * nf * 2 {
        notes.push(format!(
            "/s_matrix: S is not [{np}, {np}, {nf}, 2] for the ports it names"
        ));
        return None;
    }
    let resolved = read_resolved(&g, nf);
    let s = (0..np)
        .map(|o| {
            (0..np)
                .map(|i| {
                    let at = (o * np + i) * nf * 2;
                    let mut v = pairs(raw[at..at + nf * 2].to_vec(), nf).unwrap_or_default();
                    mask_unresolved(&mut v, resolved.as_deref());
                    v
                })
                .collect()
        })
        .collect();
    let first = file
        .group("ports")
        .ok()
        .and_then(|pg| ports.iter().position(|p| pg.group(p).is_ok_and(|g| driven(&g))));
    Some(Matrix {
        ports,
        z0,
        freq,
        s,
        first,
    })
}

impl Matrix {
    /// Every off-diagonal term's transmission columns, and the port columns of every port
    /// but the first drive's (Z = Z0·(1 + S_pp)/(1 − S_pp) from its own drive).
    fn push_columns(&self, cols: &mut Vec<(String, f64)>) {
        let np = self.ports.len();
        for p in 0..np {
            if Some(p) == self.first {
                continue;
            }
            let s = &self.s[p][p];
            let z: Vec<[f64; 2]> = s
                .iter()
                .map(|v| {
                    let g = num_complex::Complex64::new(v[0], v[1]);
                    let z = self.z0[p] * (1.0 + g) / (1.0 - g);
                    [z.re, z.im]
                })
                .collect();
            let name = format!("port_{}", column_part(&self.ports[p]));
            push_port(cols, &name, &port_figures(&self.freq, &z, s));
        }
        for o in 0..np {
            for i in 0..np {
                if o != i {
                    push_transmission(cols, &self.ports[o], &self.ports[i], &self.freq, &self.s[o][i]);
                }
            }
        }
    }
}

/// The port and far-field columns of an open result file, in file order, and notes on
/// what could not be read.
pub fn read(file: &File) -> (Vec<(String, f64)>, Vec<String>) {
    let mut cols = Vec::new();
    let mut notes = Vec::new();
    let matrix = read_matrix(file, &mut notes);
    if let Ok(ports) = file.group("ports") {
        let mut names = ports.member_names().unwrap_or_default();
        names.sort();
        let driven_name = names.iter().find(|n| ports.group(n).is_ok_and(|g| driven(&g))).cloned();
        for name in names {
            let Ok(g) = ports.group(&name) else { continue };
            if !g.link_exists("frequency") {
                continue;
            }
            let is_driven = driven(&g);
            // Transmission into an undriven port: from the matrix when the run drove
            // every port, else S_{q,driven} of the one drive.
            if !is_driven && matrix.is_some() {
                continue;
            }
            let p = format!("port_{}", column_part(&name));
            let Some(freq) = read_vec(&g, "frequency") else {
                notes.push(format!("/ports/{name}/frequency unreadable"));
                continue;
            };
            let n = freq.len();
            let resolved = read_resolved(&g, n);
            let (Some(mut z), Some(mut s)) = (
                read_vec(&g, "Z").and_then(|v| pairs(v, n)),
                read_vec(&g, "S").and_then(|v| pairs(v, n)),
            ) else {
                notes.push(format!("/ports/{name}: Z or S missing or not [{n}, 2]"));
                continue;
            };
            mask_unresolved(&mut z, resolved.as_deref());
            mask_unresolved(&mut s, resolved.as_deref());
            if !is_driven {
                if let Some(d) = &driven_name {
                    push_transmission(&mut cols, &name, d, &freq, &s);
                }
                continue;
            }
            push_port(&mut cols, &p, &port_figures(&freq, &z, &s));
        }
    }
    if let Some(m) = &matrix {
        m.push_columns(&mut cols);
    }
    if let Ok(ffs) = file.group("farfield") {
        let mut names = ffs.member_names().unwrap_or_default();
        names.sort();
        for name in names {
            let Ok(g) = ffs.group(&name) else { continue };
            let loc: &Location = &g;
            let (Some(freq), Some(d)) = (read_vec(&g, "frequency"), read_attr_vec(loc, "max_directivity_dBi")) else {
                notes.push(format!("/farfield/{name}: no frequency or max_directivity_dBi"));
                continue;
            };
            if d.len() != freq.len() {
                notes.push(format!(
                    "/farfield/{name}: max_directivity_dBi is not one value per frequency"
                ));
                continue;
            }
            let eff = read_attr_vec(loc, "efficiency").filter(|e| e.len() == freq.len());
            let ff = format!("ff_{}", column_part(&name));
            for (k, &f) in freq.iter().enumerate() {
                if !f.is_finite() {
                    continue;
                }
                let label = freq_label(f);
                push(&mut cols, format!("{ff}_d_dbi_{label}"), d[k]);
                if let Some(e) = &eff {
                    if e[k] > 0.0 {
                        push(&mut cols, format!("{ff}_gain_dbi_{label}"), d[k] + 10.0 * e[k].log10());
                    }
                }
            }
        }
    }
    (cols, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resonance_minimum_and_band_from_a_series_rlc() {
        // A series RLC at 1 GHz, R = 50 Ω, against Z0 = 50 Ω.
        let (r, l) = (50.0f64, 8e-9);
        let c = 1.0 / ((2.0 * std::f64::consts::PI * 1e9).powi(2) * l);
        let freq: Vec<f64> = (0..201).map(|i| 0.5e9 + i as f64 * 5e6).collect();
        let z: Vec<[f64; 2]> = freq
            .iter()
            .map(|&f| {
                let w = 2.0 * std::f64::consts::PI * f;
                [r, w * l - 1.0 / (w * c)]
            })
            .collect();
        let s: Vec<[f64; 2]> = z
            .iter()
            .map(|z| {
                let n = num_complex::Complex64::new(z[0] - 50.0, z[1]);
                let d = num_complex::Complex64::new(z[0] + 50.0, z[1]);
                let g = n / d;
                [g.re, g.im]
            })
            .collect();
        let p = port_figures(&freq, &z, &s);
        let (f0, re) = p.f0.unwrap();
        assert!((f0 - 1e9).abs() < 1e5, "{f0}");
        assert!((re - 50.0).abs() < 1e-9);
        let (db, fm) = p.s11_min.unwrap();
        assert!(db == -300.0 && (fm - 1e9).abs() < 1.0, "{db} {fm}");
        let (lo, hi) = p.band.unwrap();
        assert!(lo < 1e9 && hi > 1e9 && lo > 0.5e9 && hi < 1.5e9, "{lo} {hi}");
        // |Γ| = 1/√10 at the edges: |X| = 2R/3 ... check with the formula.
        let x_edge = |f: f64| {
            let w = 2.0 * std::f64::consts::PI * f;
            (w * l - 1.0 / (w * c)).abs()
        };
        for f in [lo, hi] {
            let g = x_edge(f) / (100.0f64.powi(2) + x_edge(f).powi(2)).sqrt();
            assert!((20.0 * g.log10() + 10.0).abs() < 0.1, "{f}: {}", 20.0 * g.log10());
        }
    }

    /// A two-port result file: port `a` driven (a match at 2 GHz, which `resolved` marks
    /// unresolved, and a shallower one at 1.5 GHz), port `b` seeing a passband at 1.2 GHz.
    fn two_port_file(path: &std::path::Path, matrix: bool) {
        use hdf5::types::VarLenUnicode;
        let f = File::create(path).unwrap();
        let freq: Vec<f64> = (0..21).map(|i| 1e9 + i as f64 * 0.05e9).collect();
        let n = freq.len();
        let s11: Vec<f64> = freq
            .iter()
            .flat_map(|&f| {
                let m = if f == 2e9 {
                    0.001
                } else {
                    0.3 + (f - 1.5e9).abs() * 1e-9
                };
                [m, 0.0]
            })
            .collect();
        let s21: Vec<f64> = freq
            .iter()
            .flat_map(|&f| [(-((f - 1.2e9) / 0.2e9).powi(2)).exp(), 0.0])
            .collect();
        let z = |s: &[f64]| -> Vec<f64> {
            s.chunks(2)
                .flat_map(|c| {
                    let g = num_complex::Complex64::new(c[0], c[1]);
                    let z = 50.0 * (1.0 + g) / (1.0 - g);
                    [z.re, z.im]
                })
                .collect()
        };
        let mut resolved = vec![1u8; n];
        resolved[n - 1] = 0;
        let pg = f.create_group("ports").unwrap();
        for (name, drv, sv) in [("a", 1u8, &s11), ("b", 0u8, &s21)] {
            let g = pg.create_group(name).unwrap();
            g.new_attr::<u8>()
                .shape(())
                .create("driven")
                .unwrap()
                .write_scalar(&drv)
                .unwrap();
            g.new_dataset_builder().with_data(&freq).create("frequency").unwrap();
            g.new_dataset::<f64>()
                .shape([n, 2])
                .create("S")
                .unwrap()
                .write_raw(sv)
                .unwrap();
            g.new_dataset::<f64>()
                .shape([n, 2])
                .create("Z")
                .unwrap()
                .write_raw(&z(sv))
                .unwrap();
            g.new_dataset_builder().with_data(&resolved).create("resolved").unwrap();
        }
        if matrix {
            let g = f.create_group("s_matrix").unwrap();
            let names: VarLenUnicode = "a\nb".parse().unwrap();
            g.new_attr::<VarLenUnicode>()
                .shape(())
                .create("ports")
                .unwrap()
                .write_scalar(&names)
                .unwrap();
            g.new_attr_builder().with_data(&[50.0, 50.0]).create("z0").unwrap();
            g.new_dataset_builder().with_data(&freq).create("frequency").unwrap();
            g.new_dataset_builder().with_data(&resolved).create("resolved").unwrap();
            // S[out][in]: a symmetric, reciprocal two-port.
            let all: Vec<f64> = [&s11, &s21, &s21, &s11]
                .iter()
                .flat_map(|v| v.iter().copied())
                .collect();
            g.new_dataset::<f64>()
                .shape([2, 2, n, 2])
                .create("S")
                .unwrap()
                .write_raw(&all)
                .unwrap();
        }
    }

    fn col(cols: &[(String, f64)], name: &str) -> Option<f64> {
        cols.iter().find(|(n, _)| n == name).map(|c| c.1)
    }

    #[test]
    fn transmission_columns_and_unresolved_frequencies() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.h5");
        two_port_file(&path, false);
        let (cols, notes) = read(&File::open(&path).unwrap());
        assert!(notes.is_empty(), "{notes:?}");
        // The 2 GHz match is at an unresolved frequency: not a finding.
        let db = col(&cols, "port_a_s11_min_db").unwrap();
        assert!((db - 20.0 * 0.3f64.log10()).abs() < 1e-9, "{db}");
        assert_eq!(col(&cols, "port_a_s11_min_hz"), Some(1.5e9));
        // S_ba: peak 0 dB at 1.2 GHz, −3 dB where exp(−x²) = 10^(−3/20).
        assert!(col(&cols, "s_b_a_max_db").unwrap().abs() < 1e-9);
        assert_eq!(col(&cols, "s_b_a_max_hz"), Some(1.2e9));
        let half = 0.2e9 * (3.0 / 20.0 * 10f64.ln()).sqrt();
        let (lo, hi) = (
            col(&cols, "s_b_a_band3_lo_hz").unwrap(),
            col(&cols, "s_b_a_band3_hi_hz").unwrap(),
        );
        assert!(
            (lo - (1.2e9 - half)).abs() < 5e6 && (hi - (1.2e9 + half)).abs() < 5e6,
            "{lo} {hi}"
        );
        assert!(col(&cols, "port_b_s11_min_db").is_none() && col(&cols, "s_a_b_max_db").is_none());

        // With the full matrix: every port's own columns and both transmission terms, once.
        two_port_file(&path, true);
        let (cols, notes) = read(&File::open(&path).unwrap());
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(col(&cols, "port_b_s11_min_hz"), Some(1.5e9));
        assert_eq!(col(&cols, "s_a_b_max_hz"), Some(1.2e9));
        assert_eq!(col(&cols, "s_b_a_max_hz"), Some(1.2e9));
        let mut names: Vec<&str> = cols.iter().map(|c| c.0.as_str()).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "duplicate columns");
    }

    #[test]
    fn nan_samples_are_left_out_never_printed_as_numbers() {
        let freq = [1e9, 2e9, 3e9];
        let nan = [f64::NAN, f64::NAN];
        let p = port_figures(&freq, &[nan; 3], &[nan; 3]);
        assert_eq!(p, PortFigures::default());
        let p = port_figures(
            &freq,
            &[[50.0, -1.0], nan, [50.0, 1.0]],
            &[[0.5, 0.0], nan, [0.05, 0.0]],
        );
        assert_eq!(p.f0, None);
        let (db, f) = p.s11_min.unwrap();
        assert!((db + 26.02).abs() < 0.01 && f == 3e9, "{db}");
        assert_eq!(p.band, Some((3e9, 3e9)));
        assert_eq!(freq_label(2.45e9), "2.45GHz");
        assert_eq!(freq_label(9e8), "900MHz");
        assert_eq!(column_part("feed-1 a"), "feed_1_a");
    }
}

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
//! driven port). Values that are not finite (a port that was not driven, NaN in the
//! file) are left out, never printed as numbers.
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
    let sdb: Vec<f64> = s
        .iter()
        .take(freq.len())
        .map(|v| {
            // An exact match is −300 dB (as far-field nulls are), NaN stays NaN.
            let m = v[0].hypot(v[1]);
            if m.is_nan() {
                f64::NAN
            } else {
                20.0 * m.max(1e-15).log10()
            }
        })
        .collect();
    let kmin = (0..sdb.len())
        .filter(|&k| sdb[k].is_finite() && freq[k].is_finite())
        .min_by(|&a, &b| sdb[a].total_cmp(&sdb[b]));
    if let Some(k) = kmin {
        out.s11_min = Some((sdb[k], freq[k]));
        if sdb[k] <= -10.0 {
            let below = |i: usize| sdb[i].is_finite() && sdb[i] <= -10.0;
            let cross = |i: usize, j: usize| {
                let t = (-10.0 - sdb[i]) / (sdb[j] - sdb[i]);
                if sdb[j].is_finite() {
                    freq[i] + t * (freq[j] - freq[i])
                } else {
                    freq[i]
                }
            };
            let (mut lo, mut hi) = (k, k);
            while lo > 0 && below(lo - 1) {
                lo -= 1;
            }
            while hi + 1 < sdb.len() && below(hi + 1) {
                hi += 1;
            }
            let flo = if lo == 0 { freq[0] } else { cross(lo, lo - 1) };
            let fhi = if hi + 1 == sdb.len() {
                freq[hi]
            } else {
                cross(hi, hi + 1)
            };
            out.band = Some((flo, fhi));
        }
    }
    out
}

fn pairs(v: Vec<f64>, n: usize) -> Option<Vec<[f64; 2]>> {
    (v.len() == 2 * n).then(|| v.chunks_exact(2).map(|c| [c[0], c[1]]).collect())
}

/// The port and far-field columns of an open result file, in file order, and notes on
/// what could not be read.
pub fn read(file: &File) -> (Vec<(String, f64)>, Vec<String>) {
    let mut cols = Vec::new();
    let mut notes = Vec::new();
    let push = |cols: &mut Vec<(String, f64)>, name: String, x: f64| {
        if x.is_finite() {
            cols.push((name, x));
        }
    };
    if let Ok(ports) = file.group("ports") {
        let mut names = ports.member_names().unwrap_or_default();
        names.sort();
        for name in names {
            let Ok(g) = ports.group(&name) else { continue };
            if !driven(&g) || !g.link_exists("frequency") {
                continue;
            }
            let p = format!("port_{}", column_part(&name));
            let Some(freq) = read_vec(&g, "frequency") else {
                notes.push(format!("/ports/{name}/frequency unreadable"));
                continue;
            };
            let n = freq.len();
            let (Some(z), Some(s)) = (
                read_vec(&g, "Z").and_then(|v| pairs(v, n)),
                read_vec(&g, "S").and_then(|v| pairs(v, n)),
            ) else {
                notes.push(format!("/ports/{name}: Z or S missing or not [{n}, 2]"));
                continue;
            };
            let f = port_figures(&freq, &z, &s);
            if let Some((f0, re)) = f.f0 {
                push(&mut cols, format!("{p}_f0_hz"), f0);
                push(&mut cols, format!("{p}_f0_re_ohm"), re);
            }
            if let Some((db, fm)) = f.s11_min {
                push(&mut cols, format!("{p}_s11_min_db"), db);
                push(&mut cols, format!("{p}_s11_min_hz"), fm);
            }
            if let Some((lo, hi)) = f.band {
                push(&mut cols, format!("{p}_band_lo_hz"), lo);
                push(&mut cols, format!("{p}_band_hi_hz"), hi);
            }
        }
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

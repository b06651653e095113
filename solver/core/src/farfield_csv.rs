//! The far-field pattern as text: one CSV per `[[farfield]]` (`<output stem>_farfield_<name>.csv`,
//! see docs/output-format.md), one row per frequency and direction.
use crate::farfield::{ar_db, db, FarField};
use std::fmt::Write;

/// The columns, in order (gain columns only when every frequency has a driven port).
pub const COLUMNS: [&str; 16] = [
    "frequency_hz",
    "theta_deg",
    "phi_deg",
    "e_theta_abs_v",
    "e_theta_phase_deg",
    "e_phi_abs_v",
    "e_phi_phase_deg",
    "e_co_abs_v",
    "e_co_phase_deg",
    "e_cross_abs_v",
    "e_cross_phase_deg",
    "directivity_dbi",
    "directivity_co_dbi",
    "directivity_cross_dbi",
    "axial_ratio_db",
    "sense",
];

/// The CSV of the far fields `ffs` (one name, any number of frequencies): r·E_θ, r·E_φ,
/// co- and cross-polar r·E (magnitude in V, phase in degrees), directivity and its co-
/// and cross-polar parts (dBi, −300 for a null), axial ratio (dB, 300 = linear), sense
/// (`RHCP`, `LHCP`, `linear`), and with a driven port gain and realized gain (dBi).
pub fn csv(ffs: &[&FarField]) -> String {
    let gains = !ffs.is_empty() && ffs.iter().all(|f| f.gain.is_some() && f.realized_gain.is_some());
    let mut s = COLUMNS.join(",");
    if gains {
        s += ",gain_dbi,realized_gain_dbi";
    }
    s.push('\n');
    for f in ffs {
        let np = f.phi.len();
        let (co, cross) = f.co_cross();
        let (dco, dcross) = f.co_cross_directivity();
        let (ar, sense) = f.axial_ratio();
        for i in 0..f.directivity.len() {
            let (t, p) = (f.theta[i / np].to_degrees(), f.phi[i % np].to_degrees());
            let _ = write!(s, "{:.9e},{t:.6},{p:.6}", f.freq);
            for z in [f.e_theta[i], f.e_phi[i], co[i], cross[i]] {
                let _ = write!(s, ",{:.9e},{:.4}", z.norm(), z.arg().to_degrees());
            }
            let hand = match sense[i] {
                1 => "RHCP",
                -1 => "LHCP",
                _ => "linear",
            };
            let _ = write!(
                s,
                ",{:.4},{:.4},{:.4},{:.4},{hand}",
                db(f.directivity[i]),
                db(dco[i]),
                db(dcross[i]),
                ar_db(ar[i])
            );
            if let (true, Some(g), Some(r)) = (gains, &f.gain, &f.realized_gain) {
                let _ = write!(s, ",{:.4},{:.4}", db(g[i]), db(r[i]));
            }
            s.push('\n');
        }
    }
    s
}

/// The far fields of `ffs` grouped by name, in first-seen order: what each CSV holds.
pub fn by_name(ffs: &[FarField]) -> Vec<(String, Vec<&FarField>)> {
    let mut out: Vec<(String, Vec<&FarField>)> = Vec::new();
    for f in ffs {
        match out.iter_mut().find(|(n, _)| *n == f.name) {
            Some((_, v)) => v.push(f),
            None => out.push((f.name.clone(), vec![f])),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::farfield::Complex64;

    /// Header, one row per frequency and direction, the values of each column (magnitude
    /// and phase, the θ reference's co = E_θ, the ellipse of a circular field), gain
    /// columns only with a port.
    #[test]
    fn rows_hold_the_documented_columns() {
        let ff = |freq: f64, port: bool| FarField {
            name: "ff".into(),
            freq,
            theta: vec![0.0, std::f64::consts::FRAC_PI_2],
            phi: vec![0.0, std::f64::consts::PI],
            // θ̂ − jφ̂: right-hand circular; then linear θ̂·j.
            e_theta: vec![
                Complex64::new(1.0, 0.0),
                Complex64::new(0.0, 2.0),
                Complex64::new(0.0, 0.0),
                Complex64::new(1.0, 0.0),
            ],
            e_phi: vec![
                Complex64::new(0.0, -1.0),
                Complex64::new(0.0, 0.0),
                Complex64::new(0.0, 0.0),
                Complex64::new(0.0, 0.0),
            ],
            directivity: vec![2.0, 1.0, 0.0, 0.5],
            gain: port.then(|| vec![1.0; 4]),
            realized_gain: port.then(|| vec![0.5; 4]),
            ..Default::default()
        };
        let (a, b) = (ff(1e9, true), ff(2e9, true));
        let text = csv(&[&a, &b]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + 8);
        let head: Vec<&str> = lines[0].split(',').collect();
        assert_eq!(head.len(), 18);
        assert_eq!(&head[..16], &COLUMNS[..]);
        let row: Vec<&str> = lines[1].split(',').collect();
        let num = |i: usize| row[i].parse::<f64>().unwrap();
        assert_eq!((num(0), num(1), num(2)), (1e9, 0.0, 0.0));
        assert_eq!((num(3), num(4), num(5), num(6)), (1.0, 0.0, 1.0, -90.0));
        assert_eq!((num(7), num(9)), (1.0, 1.0));
        assert!((num(11) - 10.0 * 2f64.log10()).abs() < 1e-4);
        assert!((num(12) - 10.0 * 1f64.log10()).abs() < 1e-4, "co half of D = 2");
        assert_eq!((num(14), row[15]), (0.0, "RHCP"));
        assert_eq!((num(16), num(17)), (0.0, (10.0 * 0.5f64.log10() * 1e4).round() / 1e4));
        let row2: Vec<&str> = lines[2].split(',').collect();
        assert_eq!(
            (row2[2], row2[4], row2[14], row2[15]),
            ("180.000000", "90.0000", "300.0000", "linear")
        );
        let row3: Vec<&str> = lines[3].split(',').collect();
        assert_eq!(row3[11], "-300.0000");
        assert!(lines[5].starts_with("2.000000000e9"));
        // Without a port: no gain columns.
        let text = csv(&[&ff(1e9, false)]);
        assert_eq!(text.lines().next().unwrap().split(',').count(), 16);
        assert_eq!(by_name(&[a.clone(), b, a]).len(), 1);
    }
}

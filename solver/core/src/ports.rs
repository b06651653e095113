//! Port results: from the V and I time series of every port to Z, S and powers at the
//! model's frequencies, and the one-screen summary of a port (resonances, best match,
//! −10 dB bandwidth).
//!
//! Transforms follow `results.rs`: X(f) = Σ_n x(t_n)·e^{−j2πf t_n}·Δt in f64, with the
//! sample's own time: V after step n at (n+1)·dt, I at (n+½)·dt (the half-step
//! correction of the current is therefore exact: each series is transformed at its own
//! times).
use crate::model::Model;
use crate::results::{PortResult, SMatrix};
use crate::C0;
use num_complex::Complex64;
use std::f64::consts::TAU;

/// X(f) = Σ_n x_n·e^{−j2πf(t0 + n·dt)}·dt for every f of `freqs`.
pub fn dft(x: &[f64], t0: f64, dt: f64, freqs: &[f64]) -> Vec<Complex64> {
    freqs
        .iter()
        .map(|&f| {
            // A rotating phasor, re-synchronised every 512 samples (keeps f64 exact to ~1e-13).
            let step = Complex64::from_polar(1.0, -TAU * f * dt);
            let mut acc = Complex64::new(0.0, 0.0);
            let mut w = Complex64::new(1.0, 0.0);
            for (n, &v) in x.iter().enumerate() {
                if n % 512 == 0 {
                    let t = t0 + n as f64 * dt;
                    w = Complex64::from_polar(1.0, -TAU * (f * t).fract());
                }
                acc += w * v;
                w *= step;
            }
            acc * dt
        })
        .collect()
}

/// Every port's result from its full V and I series (one value per step from step 0),
/// at `model.frequencies`. S is relative to the driven port's incident wave and powers
/// are per 1 W incident there; without a driven port, S is each port's own reflection
/// b/a and powers are raw.
pub fn results(model: &Model, series: &[(Vec<f64>, Vec<f64>)]) -> Vec<PortResult> {
    results_at(model, series, &model.frequencies)
}

/// [`results`] at the frequencies `freq` (those of a monitor, say) instead of the model's.
pub fn results_at(model: &Model, series: &[(Vec<f64>, Vec<f64>)], freq: &[f64]) -> Vec<PortResult> {
    let dt = model.grid.dt;
    let freq = freq.to_vec();
    let pairs = model.line_pairs();
    let plane = |k: usize, j: usize| {
        let at = pairs.iter().position(|&q| q == (k, j))?;
        series.get(model.ports.len() + at)
    };
    let mut out: Vec<PortResult> = model
        .ports
        .iter()
        .zip(series)
        .enumerate()
        .map(|(k, (p, (v, i)))| {
            let z0 = p.z0;
            if let (Some(line), Some((va, ia)), Some((vb, ib))) = (&p.line, plane(k, 0), plane(k, 1)) {
                let tr = |x: &[f64], t0: f64| dft(x, t0, dt, &freq);
                let (va, ia, vb, ib) = (tr(va, dt), tr(ia, 0.5 * dt), tr(vb, dt), tr(ib, 0.5 * dt));
                let mut r = PortResult {
                    name: p.name.clone(),
                    z0,
                    driven: p.driven,
                    reference_plane: p.reference_plane,
                    eps_eff: f64::NAN,
                    freq: freq.clone(),
                    to_line: line.to_line,
                    ..PortResult::default()
                };
                for q in 0..freq.len() {
                    let w = line_waves(va[q], ia[q], vb[q], ib[q], line.spacing);
                    let (v, i) = w.at(p.reference_plane - line.offset);
                    r.v.push(v);
                    r.i.push(i);
                    r.z.push(v / i);
                    if line.to_line {
                        // The line's own waves there: a = V+/√Z_L, b = V−/√Z_L.
                        let k = 1.0 / w.z_line.re.abs().sqrt();
                        let (fwd, _) = LineWaves {
                            v_minus: Complex64::new(0.0, 0.0),
                            ..w
                        }
                        .at(p.reference_plane - line.offset);
                        r.a.push(fwd * k);
                        r.b.push((v - fwd) * k);
                    } else {
                        let k = 1.0 / (2.0 * z0.sqrt());
                        r.a.push((v + i * z0) * k);
                        r.b.push((v - i * z0) * k);
                    }
                    r.line_z.push(w.z_line);
                    r.gamma.push(w.gamma);
                    r.line_ok.push(w.cond <= LINE_COND_MAX);
                }
                return r;
            }
            let vf = dft(v, dt, dt, &freq);
            let if_ = dft(i, 0.5 * dt, dt, &freq);
            let k = 1.0 / (2.0 * z0.sqrt());
            let mut a: Vec<Complex64> = vf.iter().zip(&if_).map(|(v, i)| (v + i * z0) * k).collect();
            let mut b: Vec<Complex64> = vf.iter().zip(&if_).map(|(v, i)| (v - i * z0) * k).collect();
            shift_waves(&mut a, &mut b, &freq, p.reference_plane, p.eps_eff);
            // Z at the reference plane: Z0·(a + b)/(a − b) (V/I at the port's edges for d = 0).
            let z = match p.reference_plane {
                0.0 => vf.iter().zip(&if_).map(|(v, i)| v / i).collect(),
                _ => a.iter().zip(&b).map(|(a, b)| z0 * (a + b) / (a - b)).collect(),
            };
            PortResult {
                name: p.name.clone(),
                z0,
                driven: p.driven,
                reference_plane: p.reference_plane,
                eps_eff: p.eps_eff,
                freq: freq.clone(),
                v: vf,
                i: if_,
                z,
                a,
                b,
                ..PortResult::default()
            }
        })
        .collect();
    let driven = out.iter().position(|r| r.driven);
    let a_ref: Option<Vec<Complex64>> = driven.map(|d| out[d].a.clone());
    for r in &mut out {
        let a_ref = a_ref.clone().unwrap_or_else(|| r.a.clone());
        let norm: Vec<f64> = match driven {
            Some(_) => a_ref.iter().map(|a| a.norm_sqr()).collect(),
            None => vec![2.0; a_ref.len()],
        };
        r.s = r.b.iter().zip(&a_ref).map(|(b, a)| b / a).collect();
        r.p_inc = r.a.iter().zip(&norm).map(|(a, n)| a.norm_sqr() / n).collect();
        r.p_acc =
            r.a.iter()
                .zip(&r.b)
                .zip(&norm)
                .map(|((a, b), n)| (a.norm_sqr() - b.norm_sqr()) / n)
                .collect();
    }
    out
}

/// The waves `a`, `b` of a port moved to its reference plane, `d` metres along a matched
/// lossless feed line of effective permittivity `eps_eff` (β = ω√ε_eff/c0; positive d
/// toward the structure): the incident wave arrives there later (a·e^{−jβd}), the
/// reflected one earlier (b·e^{+jβd}), so S_ij gains e^{jβ_i·d_i}·e^{jβ_j·d_j} and Z
/// follows the line's impedance transformation (`reference_plane_is_the_line_transform`).
pub fn shift_waves(a: &mut [Complex64], b: &mut [Complex64], freq: &[f64], d: f64, eps_eff: f64) {
    if d == 0.0 {
        return;
    }
    for ((a, b), f) in a.iter_mut().zip(b.iter_mut()).zip(freq) {
        let phase = TAU * f * eps_eff.sqrt() / C0 * d;
        *a *= Complex64::from_polar(1.0, -phase);
        *b *= Complex64::from_polar(1.0, phase);
    }
}

/// A uniform line's waves at one frequency, from its voltage and (node-mean) current at
/// two planes a and b, b a distance `spacing` beyond a (away from the feed): V_a, I_a,
/// V_b, I_b of a `LineProbe`.
///
/// On a uniform line V = F + B and Z·I = F − B at every plane (F, B the forward and
/// backward voltage waves), with F·B the same at both planes. Hence the two-plane
/// formulas Z² = (V_a² − V_b²)/(I_a² − I_b²) (root with Re ≥ 0: a passive line), and
/// then F and B at each plane; e^{−γD} is the least-squares fit of F_b = F_a·x and
/// B_a = B_b·x (well conditioned whichever wave dominates), γ = −ln(x)/D.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineWaves {
    /// Characteristic impedance (Ω) and propagation constant (1/m).
    pub z_line: Complex64,
    pub gamma: Complex64,
    /// Forward and backward voltage waves at plane a.
    pub v_plus: Complex64,
    pub v_minus: Complex64,
    /// How much the measurement's errors are magnified: the larger of
    /// (|V_a|² + |V_b|²)/|V_a² − V_b²| and the same of I. Large where the two planes see
    /// the same |V| or |I| (a standing wave symmetric about them, |Γ| → 1), and ~1/(βD)
    /// on a matched line.
    pub cond: f64,
}

impl LineWaves {
    /// V and I at `d` metres beyond plane a (away from the feed; negative: toward it).
    pub fn at(&self, d: f64) -> (Complex64, Complex64) {
        let fwd = self.v_plus * (-self.gamma * d).exp();
        let bwd = self.v_minus * (self.gamma * d).exp();
        (fwd + bwd, (fwd - bwd) / self.z_line)
    }
}

/// [`LineWaves`] from the four phasors of a line port's planes.
pub fn line_waves(va: Complex64, ia: Complex64, vb: Complex64, ib: Complex64, spacing: f64) -> LineWaves {
    let (dv, di) = (va * va - vb * vb, ia * ia - ib * ib);
    let mut z = (dv / di).sqrt();
    if z.re < 0.0 {
        z = -z;
    }
    let (fa, ba) = ((va + z * ia) / 2.0, (va - z * ia) / 2.0);
    let (fb, bb) = ((vb + z * ib) / 2.0, (vb - z * ib) / 2.0);
    let x = (fa.conj() * fb + bb.conj() * ba) / (fa.norm_sqr() + bb.norm_sqr());
    let cond = ((va.norm_sqr() + vb.norm_sqr()) / dv.norm()).max((ia.norm_sqr() + ib.norm_sqr()) / di.norm());
    LineWaves {
        z_line: z,
        gamma: -x.ln() / spacing,
        v_plus: fa,
        v_minus: ba,
        cond: if cond.is_finite() { cond } else { f64::INFINITY },
    }
}

/// Above this [`LineWaves::cond`], a line port's result at that frequency is marked
/// unresolved: a matched line has cond ≈ 1/(βD) (≤ 10 over a band of 20:1 with βD = π/2
/// at its top), and what is left of the feed's near field on the planes (~1e-4 of V)
/// times 30 keeps Z_L and γ within ~0.3 %.
pub const LINE_COND_MAX: f64 = 30.0;

/// A line's effective permittivity (β·c0/ω)² from its propagation constant at `f`.
pub fn eps_eff(gamma: Complex64, f: f64) -> f64 {
    (gamma.im * C0 / (TAU * f)).powi(2)
}

/// |S| in dB; NaN when S is not finite (a port that was never driven, or an impedance
/// so extreme that the waves overflow), never a floor such as −6000 dB that reads as a
/// level.
pub fn db(s: Complex64) -> f64 {
    let m = s.norm();
    if m.is_finite() {
        20.0 * m.max(1e-300).log10()
    } else {
        f64::NAN
    }
}

/// What the run summary says about one port.
#[derive(Clone, Debug, PartialEq)]
pub struct PortSummary {
    pub name: String,
    pub driven: bool,
    /// Resonances: frequencies where Im Z crosses zero (linear interpolation), with
    /// Re Z there, and whether Im Z rises through zero (series resonance) or falls
    /// (anti-resonance).
    pub resonances: Vec<(f64, f64, bool)>,
    /// Minimum |S| (dB) and its frequency (the driven port's own S is S11).
    pub min_s_db: Option<(f64, f64)>,
    /// The −10 dB band around the minimum (Hz), when |S| goes below −10 dB; an edge at
    /// the end of the frequency range is that end.
    pub band_10db: Option<(f64, f64)>,
    /// Z at the minimum.
    pub z_at_min: Option<Complex64>,
}

/// The summary of a port result.
pub fn summarize(r: &PortResult) -> PortSummary {
    let f = &r.freq;
    let mut resonances = Vec::new();
    for k in 1..r.z.len() {
        let (x0, x1) = (r.z[k - 1].im, r.z[k].im);
        if (x0 < 0.0 && x1 >= 0.0) || (x0 > 0.0 && x1 <= 0.0) {
            let t = if x1 == x0 { 0.0 } else { x0 / (x0 - x1) };
            let fr = f[k - 1] + t * (f[k] - f[k - 1]);
            let re = r.z[k - 1].re + t * (r.z[k].re - r.z[k - 1].re);
            resonances.push((fr, re, x1 > x0));
        }
    }
    let sdb: Vec<f64> = r.s.iter().map(|&s| db(s)).collect();
    // Only levels count: a NaN S (see [`db`]) is neither a minimum nor inside a band.
    let kmin = (0..sdb.len())
        .filter(|&k| sdb[k].is_finite())
        .min_by(|&a, &b| sdb[a].total_cmp(&sdb[b]));
    let min_s_db = kmin.map(|k| (f[k], sdb[k]));
    let band_10db = kmin.filter(|&k| sdb[k] <= -10.0).map(|k| {
        let cross = |i: usize, j: usize| {
            // Where the dB curve crosses −10 between samples i (below) and j (above).
            let t = (-10.0 - sdb[i]) / (sdb[j] - sdb[i]);
            if t.is_finite() {
                f[i] + t * (f[j] - f[i])
            } else {
                f[i]
            }
        };
        let mut lo = k;
        while lo > 0 && sdb[lo - 1] <= -10.0 {
            lo -= 1;
        }
        let mut hi = k;
        while hi + 1 < sdb.len() && sdb[hi + 1] <= -10.0 {
            hi += 1;
        }
        let flo = if lo == 0 { f[0] } else { cross(lo, lo - 1) };
        let fhi = if hi + 1 == sdb.len() { f[hi] } else { cross(hi, hi + 1) };
        (flo, fhi)
    });
    PortSummary {
        name: r.name.clone(),
        driven: r.driven,
        resonances,
        min_s_db: if r.driven { min_s_db } else { None },
        band_10db: if r.driven { band_10db } else { None },
        z_at_min: if r.driven { kmin.map(|k| r.z[k]) } else { None },
    }
}

/// The full S-matrix from the port results of every drive: `drives[k]` = (the driven
/// port's index, every port's result of that drive). With A and B the matrices of the
/// incident and reflected waves (column k: a_j and b_j of every port j in drive k), S =
/// B·A⁻¹ at each frequency. This is exact whatever the undriven ports' terminations: a
/// lumped port's load is its resistor in parallel with its own cell's capacitance (and
/// the resistor's discrete conductance is G·cos(ω·dt/2)), so a_j of an undriven port is
/// small but not zero, and b_j / a_driven of one drive alone is off by O(ω·C_cell·Z0)
/// (2·10⁻⁴ at 1 GHz in the port-reciprocity validation case, 1 mm cells) — enough to
/// break S12 = S21 visibly when the ports' Z0 differ. None unless every port was driven once or A is singular.
pub fn s_matrix(drives: &[(usize, Vec<PortResult>)]) -> Option<SMatrix> {
    let first = &drives.first()?.1;
    let n = first.len();
    let nf = first.first()?.freq.len();
    if drives.len() != n {
        return None;
    }
    // Columns ordered by driven port.
    let mut col: Vec<Option<&Vec<PortResult>>> = vec![None; n];
    for (d, results) in drives {
        if *d >= n || results.len() != n || col[*d].is_some() {
            return None;
        }
        if results.iter().any(|r| r.a.len() != nf || r.b.len() != nf) {
            return None;
        }
        col[*d] = Some(results);
    }
    let col: Vec<&Vec<PortResult>> = col.into_iter().collect::<Option<_>>()?;
    let mut s = vec![Complex64::new(0.0, 0.0); n * n * nf];
    for k in 0..nf {
        let a: Vec<Complex64> = (0..n * n).map(|x| col[x % n][x / n].a[k]).collect();
        let b: Vec<Complex64> = (0..n * n).map(|x| col[x % n][x / n].b[k]).collect();
        // S·A = B, i.e. Aᵀ·Sᵀ = Bᵀ: solve for each row of S.
        let sk = solve_right(&a, &b, n)?;
        for out in 0..n {
            for inp in 0..n {
                s[(out * n + inp) * nf + k] = sk[out * n + inp];
            }
        }
    }
    Some(SMatrix {
        ports: first.iter().map(|r| r.name.clone()).collect(),
        z0: first.iter().map(|r| r.z0).collect(),
        freq: first[0].freq.clone(),
        s,
    })
}

/// X = B·A⁻¹ for N×N row-major complex matrices (Gauss-Jordan with partial pivoting on
/// Aᵀ); None when A is singular.
fn solve_right(a: &[Complex64], b: &[Complex64], n: usize) -> Option<Vec<Complex64>> {
    // X·A = B ⇔ Aᵀ·Xᵀ = Bᵀ. Work on [Aᵀ | Bᵀ].
    let mut m: Vec<Complex64> = (0..n * n).map(|x| a[(x % n) * n + x / n]).collect();
    let mut r: Vec<Complex64> = (0..n * n).map(|x| b[(x % n) * n + x / n]).collect();
    for c in 0..n {
        let p = (c..n).max_by(|&i, &j| m[i * n + c].norm().total_cmp(&m[j * n + c].norm()))?;
        let piv = m[p * n + c];
        if piv.norm() <= 0.0 || !piv.norm().is_finite() {
            return None;
        }
        for j in 0..n {
            m.swap(c * n + j, p * n + j);
            r.swap(c * n + j, p * n + j);
        }
        let inv = piv.inv();
        for j in 0..n {
            m[c * n + j] *= inv;
            r[c * n + j] *= inv;
        }
        for i in (0..n).filter(|&i| i != c) {
            let f = m[i * n + c];
            if f == Complex64::new(0.0, 0.0) {
                continue;
            }
            for j in 0..n {
                let (mc, rc) = (m[c * n + j], r[c * n + j]);
                m[i * n + j] -= f * mc;
                r[i * n + j] -= f * rc;
            }
        }
    }
    // r = Xᵀ.
    Some((0..n * n).map(|x| r[(x % n) * n + x / n]).collect())
}

/// The `! unresolved: ...` comment of the frequencies a run does not resolve (`resolved`
/// per frequency of `freq`; empty: not assessed), or None when every one is resolved.
pub fn unresolved_note(freq: &[f64], resolved: &[bool]) -> Option<String> {
    let list: Vec<String> = freq
        .iter()
        .zip(resolved)
        .filter(|(_, &r)| !r)
        .map(|(f, _)| format!("{f:.9e}"))
        .collect();
    (!list.is_empty()).then(|| {
        format!(
            "unresolved (outside the driving band or not below the grid's Nyquist frequency; not results): {} of {} frequencies (Hz): {}",
            list.len(),
            freq.len(),
            list.join(" ")
        )
    })
}

/// A Touchstone 1.1 file (`# Hz S RI R z0`). With `matrix` (a run that drove every
/// port), the full S-matrix. Otherwise the driven port's column: per frequency,
/// S_{j,driven} for every port j; a one-port file is the usual `.s1p`; with more ports
/// the columns of the ports that were not driven are unknown from one run and written
/// as `nan` (noted in the header). `resolved` (per frequency, may be empty) adds an
/// `! unresolved:` comment naming the frequencies the run does not resolve.
pub fn touchstone(results: &[PortResult], matrix: Option<&SMatrix>, resolved: &[bool], scene_name: &str) -> String {
    use std::fmt::Write;
    let n = results.len();
    let d = results.iter().position(|r| r.driven).unwrap_or(0);
    let z0 = results.first().map_or(50.0, |r| r.z0);
    let matrix = matrix.filter(|m| m.n() == n && results.first().is_some_and(|r| r.freq == m.freq));
    let mut s = String::new();
    let _ = writeln!(s, "! fdtd {} port result of {scene_name}", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(
        s,
        "! ports: {}",
        results.iter().map(|r| r.name.as_str()).collect::<Vec<_>>().join(", ")
    );
    let shifted: Vec<String> = results
        .iter()
        .filter(|r| r.reference_plane != 0.0 && r.line_z.is_empty())
        .map(|r| format!("{} by {} m (eps_eff {})", r.name, r.reference_plane, r.eps_eff))
        .collect();
    for r in results.iter().filter(|r| !r.line_z.is_empty()) {
        let _ = writeln!(
            s,
            "! line port {}: S at {} m from its feed along its line, de-embedded with the line's measured propagation constant{}",
            r.name,
            r.reference_plane,
            match r.to_line {
                true => "; referred to the line's measured impedance (/ports/NAME/Z_line), not to R below",
                false => "",
            }
        );
    }
    if !shifted.is_empty() {
        let _ = writeln!(
            s,
            "! reference planes moved along matched feed lines: {}",
            shifted.join(", ")
        );
    }
    if n > 1 {
        match matrix {
            Some(_) => {
                let _ = writeln!(
                    s,
                    "! every port driven in turn (drive.ports = \"each\"): the full S-matrix"
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "! one run drives port {} ({}): only column {} of the S-matrix is known; the other columns are nan",
                    d + 1,
                    results[d].name,
                    d + 1
                );
            }
        }
    }
    if results.iter().any(|r| r.z0 != z0) {
        let _ = writeln!(s, "! the ports' reference impedances differ; the header gives port 1's");
    }
    if let Some(note) = results.first().and_then(|r| unresolved_note(&r.freq, resolved)) {
        let _ = writeln!(s, "! {note}");
    }
    let _ = writeln!(s, "# Hz S RI R {}", z0);
    let nf = results.first().map_or(0, |r| r.freq.len());
    for k in 0..nf {
        let _ = write!(s, "{:.9e}", results[0].freq[k]);
        // Touchstone order: rows i, columns j (S_ij); for N = 2: S11 S21 S12 S22.
        let entry = |i: usize, j: usize| -> Complex64 {
            match matrix {
                Some(m) => m.get(i, j, k),
                None if j == d => results[i].s[k],
                None => Complex64::new(f64::NAN, f64::NAN),
            }
        };
        let order: Vec<(usize, usize)> = if n == 2 {
            vec![(0, 0), (1, 0), (0, 1), (1, 1)]
        } else {
            (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).collect()
        };
        // Three or more ports: each matrix row on its own line(s), at most 4 pairs a line.
        for (i, j) in order {
            let v = entry(i, j);
            if n > 2 && (j % 4 == 0) && !(i == 0 && j == 0) {
                s.push('\n');
            }
            let _ = write!(s, " {:.9e} {:.9e}", v.re, v.im);
        }
        s.push('\n');
    }
    s
}

/// The ports as CSV: one row per frequency, per port Re/Im Z, Re/Im S, |S| dB, P_inc,
/// P_acc; with `resolved` (per frequency) a last column `resolved` (1: a result, 0: a
/// frequency the run does not resolve). A column rather than a comment line: CSV
/// readers take the first line as the header.
pub fn csv(results: &[PortResult], resolved: &[bool]) -> String {
    use std::fmt::Write;
    let nf = results.first().map_or(0, |r| r.freq.len());
    let flag = resolved.len() == nf && nf > 0;
    let mut s = String::from("frequency_hz");
    for r in results {
        for col in ["z_re", "z_im", "s_re", "s_im", "s_db", "p_inc", "p_acc"] {
            let _ = write!(s, ",{}", csv_field(&format!("{}_{col}", r.name)));
        }
    }
    if flag {
        s.push_str(",resolved");
    }
    s.push('\n');
    for k in 0..nf {
        let _ = write!(s, "{:.9e}", results[0].freq[k]);
        for r in results {
            let _ = write!(
                s,
                ",{:.9e},{:.9e},{:.9e},{:.9e},{:.6},{:.9e},{:.9e}",
                r.z[k].re,
                r.z[k].im,
                r.s[k].re,
                r.s[k].im,
                db(r.s[k]),
                r.p_inc[k],
                r.p_acc[k]
            );
        }
        if flag {
            s.push_str(if resolved.get(k) == Some(&true) { ",1" } else { ",0" });
        }
        s.push('\n');
    }
    s
}

/// A CSV field as RFC 4180 writes it: quoted (quotes doubled) when it holds a comma, a
/// quote or a line break.
fn csv_field(v: &str) -> String {
    if v.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", v.replace('"', "\"\""))
    } else {
        v.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_headers_are_quoted_when_a_name_needs_it() {
        let port = |name: &str| PortResult {
            name: name.into(),
            z0: 50.0,
            driven: true,
            freq: vec![1e9],
            s: vec![Complex64::new(0.5, 0.0)],
            z: vec![Complex64::new(50.0, 0.0)],
            p_inc: vec![1.0],
            p_acc: vec![0.75],
            ..PortResult::default()
        };
        let text = csv(&[port("in, left"), port("say \"hi\""), port("plain")], &[]);
        let header = text.lines().next().unwrap();
        assert!(
            header.starts_with("frequency_hz,\"in, left_z_re\",\"in, left_z_im\""),
            "{header}"
        );
        assert!(header.contains(",\"say \"\"hi\"\"_s_db\","), "{header}");
        assert!(header.contains(",plain_p_acc"), "{header}");
        // Every row has as many columns as the header (a simple RFC 4180 reader).
        let columns = |line: &str| {
            let (mut n, mut quoted) = (1, false);
            for c in line.chars() {
                match c {
                    '"' => quoted = !quoted,
                    ',' if !quoted => n += 1,
                    _ => {}
                }
            }
            n
        };
        let row = text.lines().nth(1).unwrap();
        assert_eq!(columns(header), 1 + 3 * 7);
        assert_eq!(columns(row), columns(header), "{row}");
    }

    #[test]
    fn dft_of_a_sampled_exponential_matches_the_continuous_transform() {
        // x(t) = exp(−t/τ) for t ≥ 0: X(f) = τ/(1 + j2πfτ) (sampling error O(dt²)).
        let (tau, dt) = (1e-9, 1e-12);
        let x: Vec<f64> = (0..40000).map(|n| (-(n as f64 * dt) / tau).exp()).collect();
        let f = [1e8, 5e8, 2e9];
        let got = dft(&x, 0.0, dt, &f);
        for (g, f) in got.iter().zip(f) {
            let want = Complex64::new(tau, 0.0) / Complex64::new(1.0, TAU * f * tau);
            // The rectangle rule adds dt/2 (the sample at t = 0 counts fully).
            assert!((g - want - dt / 2.0).norm() < 1e-4 * want.norm(), "{g} vs {want}");
        }
    }

    #[test]
    fn touchstone_layout() {
        let port = |name: &str, driven: bool, s: f64| PortResult {
            name: name.into(),
            z0: 50.0,
            driven,
            freq: vec![1e9, 2e9],
            s: vec![Complex64::new(s, 0.0); 2],
            ..PortResult::default()
        };
        let one = touchstone(&[port("a", true, 0.5)], None, &[], "x");
        assert!(
            one.contains("# Hz S RI R 50\n1.000000000e9 5.000000000e-1 0.000000000e0\n"),
            "{one}"
        );
        // Two ports driven at port 2: S12 and S22 known, S11 and S21 nan (order S11 S21 S12 S22).
        let two = touchstone(&[port("a", false, 0.1), port("b", true, 0.2)], None, &[], "x");
        let row = two.lines().find(|l| l.starts_with("2.0")).unwrap();
        let v: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(
            (v[1], v[3], v[5], v[7]),
            ("NaN", "NaN", "1.000000000e-1", "2.000000000e-1"),
            "{two}"
        );
        // Three ports: one line per matrix row.
        let three = touchstone(
            &[port("a", true, 0.1), port("b", false, 0.2), port("c", false, 0.3)],
            None,
            &[],
            "x",
        );
        assert_eq!(
            three.lines().filter(|l| !l.starts_with(['!', '#'])).count(),
            6,
            "{three}"
        );
    }

    /// S = B·A⁻¹ recovers a known matrix from drives whose undriven ports are not
    /// perfectly matched (a_j ≠ 0), where b_j / a_driven alone would not.
    #[test]
    fn s_matrix_inverts_the_incident_waves() {
        let c = |re: f64, im: f64| Complex64::new(re, im);
        let s_true = [
            [c(0.1, 0.2), c(0.7, -0.1), c(0.05, 0.3)],
            [c(0.7, -0.1), c(-0.2, 0.1), c(0.4, 0.4)],
            [c(0.05, 0.3), c(0.4, 0.4), c(0.3, -0.3)],
        ];
        let drives: Vec<(usize, Vec<PortResult>)> = (0..3)
            .map(|k| {
                // Driven port k with a = 1; the others 2 % mismatch reflections.
                let a: Vec<Complex64> = (0..3)
                    .map(|j| {
                        if j == k {
                            c(1.0, 0.0)
                        } else {
                            c(0.02 * (j + 1) as f64, -0.01)
                        }
                    })
                    .collect();
                let b: Vec<Complex64> = (0..3).map(|i| (0..3).map(|j| s_true[i][j] * a[j]).sum()).collect();
                let results = (0..3)
                    .map(|j| PortResult {
                        name: format!("p{j}"),
                        z0: 50.0,
                        driven: j == k,
                        freq: vec![1e9],
                        a: vec![a[j]],
                        b: vec![b[j]],
                        s: vec![b[j] / a[k]],
                        z: vec![c(50.0, 0.0)],
                        p_inc: vec![1.0],
                        p_acc: vec![0.5],
                        ..PortResult::default()
                    })
                    .collect();
                (k, results)
            })
            .collect();
        // Given in any order of drives.
        let shuffled = vec![drives[2].clone(), drives[0].clone(), drives[1].clone()];
        let m = s_matrix(&shuffled).unwrap();
        for (i, row) in s_true.iter().enumerate() {
            for (j, want) in row.iter().enumerate() {
                assert!((m.get(i, j, 0) - want).norm() < 1e-12, "S{i}{j}");
            }
        }
        // The single-drive column is off by the mismatch: what the inversion corrects.
        assert!((drives[0].1[1].s[0] - s_true[1][0]).norm() > 1e-3);
        // A port driven twice, or one never driven: no matrix.
        assert!(s_matrix(&[drives[0].clone(), drives[0].clone(), drives[1].clone()]).is_none());
        assert!(s_matrix(&drives[..2]).is_none());

        // The Touchstone file of the matrix: every entry, no nan, the unresolved note.
        let ports: Vec<PortResult> = drives[0].1.clone();
        let text = touchstone(&ports, Some(&m), &[false], "x");
        assert!(!text.contains("NaN") && text.contains("the full S-matrix"), "{text}");
        assert!(
            text.contains("! unresolved") && text.contains("1.000000000e9"),
            "{text}"
        );
        let data: Vec<&str> = text.lines().filter(|l| !l.starts_with(['!', '#'])).collect();
        let first: Vec<f64> = data[0].split_whitespace().map(|x| x.parse().unwrap()).collect();
        // Row 1: S11 S12 S13 (three ports: one matrix row per line).
        assert!((first[3] - 0.7).abs() < 1e-9 && (first[4] + 0.1).abs() < 1e-9, "{text}");
        assert_eq!(data.len(), 3);
        assert!(unresolved_note(&[1e9, 2e9], &[true, true]).is_none());
        let csv_text = csv(&ports, &[false]);
        assert!(csv_text.lines().next().unwrap().ends_with(",resolved"));
        assert!(csv_text.lines().nth(1).unwrap().ends_with(",0"));
    }

    #[test]
    fn summary_finds_resonance_minimum_and_band() {
        // A series RLC around 1 GHz on a 50 Ω port.
        let freq: Vec<f64> = (0..=200).map(|k| 0.5e9 + k as f64 * 5e6).collect();
        let (r, l, c) = (50.0, 20e-9, 1.0 / ((TAU * 1e9).powi(2) * 20e-9));
        let z: Vec<Complex64> = freq
            .iter()
            .map(|f| Complex64::new(r, TAU * f * l - 1.0 / (TAU * f * c)))
            .collect();
        let s: Vec<Complex64> = z.iter().map(|z| (z - 50.0) / (z + 50.0)).collect();
        let res = PortResult {
            name: "p".into(),
            z0: 50.0,
            driven: true,
            freq,
            z,
            s,
            ..PortResult::default()
        };
        let sum = summarize(&res);
        assert_eq!(sum.resonances.len(), 1);
        assert!((sum.resonances[0].0 - 1e9).abs() < 1e6);
        assert!((sum.resonances[0].1 - 50.0).abs() < 1e-9);
        let (fmin, dbmin) = sum.min_s_db.unwrap();
        assert!((fmin - 1e9).abs() < 1e6 && dbmin < -40.0);
        // |Γ| = 1/√10 where |X| = 2·50/3·... : the band is symmetric-ish around 1 GHz.
        let (lo, hi) = sum.band_10db.unwrap();
        assert!(lo < 1e9 && hi > 1e9 && hi - lo > 1e7, "{lo} {hi}");
    }

    /// A load Z_L seen through a line of length d (Z0, ε_eff) appears at the port as
    /// Z0·(Z_L + jZ0·tan βd)/(Z0 + jZ_L·tan βd) (the textbook line transform). Moving
    /// the port's reference plane by d along that line recovers Z_L and Γ_L exactly,
    /// and |S| does not change; a negative d (toward the source) goes the other way.
    #[test]
    fn reference_plane_is_the_line_transform() {
        let (z0, eps, d) = (50.0, 3.4, 0.0123);
        let j = Complex64::new(0.0, 1.0);
        for (f, zl) in [
            (0.3e9, Complex64::new(20.0, -35.0)),
            (2.7e9, Complex64::new(130.0, 60.0)),
            (9.1e9, Complex64::new(5.0, 0.0)),
        ] {
            let beta = TAU * f * f64::sqrt(eps) / C0;
            let t = (beta * d).tan();
            let zp = z0 * (zl + j * z0 * t) / (z0 + j * zl * t);
            // The port's waves for V = Zp·I with I = 1 A.
            let (v, i) = (zp, Complex64::new(1.0, 0.0));
            let k = 1.0 / (2.0 * f64::sqrt(z0));
            let (mut a, mut b) = (vec![(v + i * z0) * k], vec![(v - i * z0) * k]);
            let s_port = b[0] / a[0];
            shift_waves(&mut a, &mut b, &[f], d, eps);
            let z_plane = z0 * (a[0] + b[0]) / (a[0] - b[0]);
            assert!(
                (z_plane - zl).norm() < 1e-9 * zl.norm().max(1.0),
                "{f}: {z_plane} vs {zl}"
            );
            let gl = (zl - z0) / (zl + z0);
            assert!((b[0] / a[0] - gl).norm() < 1e-12);
            assert!(((b[0] / a[0]).norm() - s_port.norm()).abs() < 1e-12);
            // And back: −d from the load plane gives the port's Z again.
            shift_waves(&mut a, &mut b, &[f], -d, eps);
            assert!((z0 * (a[0] + b[0]) / (a[0] - b[0]) - zp).norm() < 1e-9 * zp.norm());
        }
    }
}

#[cfg(test)]
mod line_tests {
    use super::*;

    /// The phasors at planes a (z = 0) and b (z = D) of a line of impedance `z` and
    /// propagation constant `g` carrying F, B at a, and the waves read back.
    fn line(z: Complex64, g: Complex64, f: Complex64, b: Complex64, d: f64) -> LineWaves {
        let v = |x: f64| f * (-g * x).exp() + b * (g * x).exp();
        let i = |x: f64| (f * (-g * x).exp() - b * (g * x).exp()) / z;
        line_waves(v(0.0), i(0.0), v(d), i(d), d)
    }

    #[test]
    fn a_line_and_its_waves_are_recovered_exactly() {
        let c = Complex64::new;
        let d = 4e-3;
        for (z, g) in [
            (c(50.0, 0.0), c(0.0, 40.0)),   // lossless, βD = 0.16
            (c(75.0, -0.8), c(0.9, 350.0)), // lossy, βD = 1.4
            (c(30.0, 0.0), c(0.0, 5.0)),    // βD = 0.02: a low frequency
        ] {
            for (f, b) in [
                (c(1.0, 0.0), c(0.0, 0.0)),
                (c(0.3, -0.7), c(-0.2, 0.45)),
                (c(0.0, 0.0), c(1.0, 0.0)),
            ] {
                let w = line(z, g, f, b, d);
                assert!((w.z_line - z).norm() < 1e-9 * z.norm(), "{w:?} vs {z}");
                assert!((w.gamma - g).norm() < 1e-8 * g.norm(), "{w:?} vs {g}");
                assert!((w.v_plus - f).norm() < 1e-9 && (w.v_minus - b).norm() < 1e-9, "{w:?}");
                let (v, _) = w.at(-1e-3);
                assert!((v - (f * (g * 1e-3).exp() + b * (-g * 1e-3).exp())).norm() < 1e-9);
            }
        }
    }

    #[test]
    fn conditioning_is_low_on_a_matched_line_and_high_at_a_symmetric_standing_wave() {
        let c = Complex64::new;
        let (z, g, d) = (c(50.0, 0.0), c(0.0, 200.0), 4e-3); // βD = 0.8
        let w = line(z, g, c(1.0, 0.0), c(0.0, 0.0), d);
        assert!(w.cond < 2.0, "{}", w.cond);
        // A short midway between the planes: |V| and |I| equal on both, nothing to solve.
        let b = -(-g * d).exp();
        let w = line(z, g, c(1.0, 0.0), b, d);
        assert!(w.cond > LINE_COND_MAX, "{}", w.cond);
        // A short one plane beyond b: solvable.
        let b = -(-g * 2.0 * d).exp();
        let w = line(z, g, c(1.0, 0.0), b, d);
        assert!(
            w.cond < LINE_COND_MAX && (w.v_minus + (-g * 2.0 * d).exp()).norm() < 1e-9,
            "{w:?}"
        );
    }
}

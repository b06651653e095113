//! Frequency-domain figures from probe series: the peak of a spectrum and a gap's input
//! impedance (the first resonance, where Im Z crosses zero from below). Direct DFTs at
//! [`POINTS`] frequencies across the band, so the resolution does not depend on the run
//! length (the run length still limits what is physically resolved).
use crate::results::{RunResult, Series};
use crate::spec::Figure;
use fdtd_scene::waveform::Waveform;

/// Frequencies evaluated across a figure's band.
pub const POINTS: usize = 2000;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct C {
    pub re: f64,
    pub im: f64,
}

impl C {
    fn div(self, o: C) -> C {
        let d = o.re * o.re + o.im * o.im;
        C {
            re: (self.re * o.re + self.im * o.im) / d,
            im: (self.im * o.re - self.re * o.im) / d,
        }
    }
    pub fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }
}

/// `Σ x(t_n) e^{-i 2π f t_n}`.
pub fn dft(values: &[f64], times: &[f64], f: f64) -> C {
    let w = -std::f64::consts::TAU * f;
    let (mut re, mut im) = (0.0, 0.0);
    for (x, t) in values.iter().zip(times) {
        let (s, c) = (w * t).sin_cos();
        re += x * c;
        im += x * s;
    }
    C { re, im }
}

fn band_freqs(band: [f64; 2]) -> Vec<f64> {
    (0..POINTS)
        .map(|i| band[0] + (band[1] - band[0]) * i as f64 / (POINTS - 1) as f64)
        .collect()
}

fn f64s(s: &Series) -> Vec<f64> {
    s.values.iter().map(|&v| v as f64).collect()
}

/// The frequency of the largest `|spectrum(f)|` in `band`, refined by a parabola through
/// the peak and its neighbours. `None` for an all-zero spectrum.
pub fn peak(freqs: &[f64], mag: &[f64]) -> Option<f64> {
    let (k, &m) = mag.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1))?;
    if m <= 0.0 || !m.is_finite() {
        return None;
    }
    if k == 0 || k + 1 == mag.len() {
        return Some(freqs[k]);
    }
    let (a, b, c) = (mag[k - 1], mag[k], mag[k + 1]);
    let den = a - 2.0 * b + c;
    let shift = if den != 0.0 { 0.5 * (a - c) / den } else { 0.0 };
    Some(freqs[k] + shift.clamp(-0.5, 0.5) * (freqs[k + 1] - freqs[k]))
}

/// The first frequency where `im` crosses zero from below, and `re` there (linear
/// interpolation between the two samples around the crossing).
pub fn first_rising_zero(freqs: &[f64], re: &[f64], im: &[f64]) -> Option<(f64, f64)> {
    (0..freqs.len().saturating_sub(1)).find_map(|k| {
        (im[k] < 0.0 && im[k + 1] >= 0.0).then(|| {
            let t = -im[k] / (im[k + 1] - im[k]);
            (
                freqs[k] + t * (freqs[k + 1] - freqs[k]),
                re[k] + t * (re[k + 1] - re[k]),
            )
        })
    })
}

/// The columns a figure adds to the summary.
pub fn columns(fig: &Figure) -> Vec<String> {
    match fig {
        Figure::Peak { name, .. } => vec![format!("{name}_hz")],
        Figure::Impedance { name, .. } => vec![format!("{name}_f0_hz"), format!("{name}_re_ohm")],
    }
}

/// A figure's values for one run (in the order of [`columns`]); `Err` says why it cannot
/// be computed from this output.
pub fn evaluate(fig: &Figure, run: &RunResult, source: Option<&Waveform>) -> Result<Vec<f64>, String> {
    match fig {
        Figure::Peak {
            probe,
            component,
            band,
            per_source,
            ..
        } => {
            let s = run
                .series(probe, component)
                .ok_or_else(|| format!("the output has no probe {probe:?} with component {component:?}"))?;
            let x = f64s(s);
            let freqs = band_freqs(*band);
            let src: Option<Vec<f64>> = match (per_source, source) {
                (false, _) => None,
                (true, Some(w)) => Some(s.times.iter().map(|&t| w.eval(t)).collect()),
                (true, None) => return Err("per_source needs a source in the scene".into()),
            };
            let mag: Vec<f64> = freqs
                .iter()
                .map(|&f| {
                    let v = dft(&x, &s.times, f);
                    match &src {
                        Some(w) => v.abs() / dft(w, &s.times, f).abs(),
                        None => v.abs(),
                    }
                })
                .collect();
            Ok(vec![peak(&freqs, &mag).unwrap_or(f64::NAN)])
        }
        Figure::Impedance {
            voltage, current, band, ..
        } => {
            let v = run.single(voltage, true)?;
            let axis = match v.component.as_str() {
                "Ex" => 0,
                "Ey" => 1,
                _ => 2,
            };
            let (b, c) = ((axis + 1) % 3, (axis + 2) % 3);
            let h: Vec<&Series> = current.iter().map(|p| run.single(p, false)).collect::<Result<_, _>>()?;
            let n = h
                .iter()
                .map(|s| s.values.len())
                .chain([v.values.len()])
                .min()
                .unwrap_or(0);
            if n < 2 {
                return Err("the probes hold fewer than 2 samples".into());
            }
            // I = d_c (H_c(b+) − H_c(b−)) − d_b (H_b(c+) − H_b(c−)) (Ampère around the gap).
            let i: Vec<f64> = (0..n)
                .map(|k| {
                    let at = |s: &Series| s.values[k] as f64;
                    run.d[c] * (at(h[0]) - at(h[1])) - run.d[b] * (at(h[2]) - at(h[3]))
                })
                .collect();
            let volts: Vec<f64> = v.values[..n].iter().map(|&e| -(e as f64) * run.d[axis]).collect();
            let freqs = band_freqs(*band);
            let (mut re, mut im) = (Vec::new(), Vec::new());
            for &f in &freqs {
                let z = dft(&volts, &v.times[..n], f).div(dft(&i, &h[0].times[..n], f));
                re.push(z.re);
                im.push(z.im);
            }
            Ok(match first_rising_zero(&freqs, &re, &im) {
                Some((f0, r)) => vec![f0, r],
                None => vec![f64::NAN, f64::NAN],
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peak_finds_a_damped_sine() {
        let dt = 1e-11;
        let times: Vec<f64> = (0..4000).map(|n| n as f64 * dt).collect();
        let x: Vec<f64> = times
            .iter()
            .map(|t| (std::f64::consts::TAU * 1.7e9 * t).sin() * (-t / 2e-9).exp())
            .collect();
        let freqs = band_freqs([0.5e9, 3e9]);
        let mag: Vec<f64> = freqs.iter().map(|&f| dft(&x, &times, f).abs()).collect();
        let f = peak(&freqs, &mag).unwrap();
        assert!((f - 1.7e9).abs() < 5e6, "{f}");
        assert_eq!(peak(&freqs, &vec![0.0; freqs.len()]), None);
    }

    #[test]
    fn rising_zero_is_interpolated() {
        let f = [1.0, 2.0, 3.0, 4.0];
        let im = [-2.0, -1.0, 1.0, -1.0];
        let re = [10.0, 20.0, 40.0, 0.0];
        assert_eq!(first_rising_zero(&f, &re, &im), Some((2.5, 30.0)));
        assert_eq!(first_rising_zero(&f, &re, &[1.0, 1.0, 1.0, 1.0]), None);
    }

    #[test]
    fn impedance_of_a_series_rlc_resonates_where_theory_says() {
        // v = L di/dt + R i + (1/C) ∫ i dt for a broadband current pulse: Z = R + i(ωL − 1/(ωC)),
        // Im Z = 0 at f0 = 1/(2π√(LC)) with Re Z = R. Sampled as a run would be:
        // "voltage" probe Ez with d = 1 (so V = -Ez), four H probes giving I = Hy(x+) = i.
        let (r, l, c): (f64, f64, f64) = (50.0, 10e-9, 1e-12);
        let f0 = 1.0 / (std::f64::consts::TAU * (l * c).sqrt());
        let dt = 1e-12;
        let n = 20000;
        let t0 = 0.2e-9;
        let tau = 0.05e-9;
        // A current pulse with no net charge (so V returns to 0 within the record):
        // i = ((t − t0)/τ) g, g = exp(−((t − t0)/τ)²); q = ∫ i dt = −(τ/2) g.
        let g = |t: f64| (-((t - t0) / tau).powi(2)).exp();
        let cur = |t: f64| (t - t0) / tau * g(t);
        let dcur = |t: f64| g(t) / tau * (1.0 - 2.0 * ((t - t0) / tau).powi(2));
        let q = |t: f64| -0.5 * tau * g(t);
        let mut e = Vec::new();
        let mut hy = Vec::new();
        let mut times = Vec::new();
        for k in 0..n {
            let t = k as f64 * dt;
            times.push(t);
            e.push(-(l * dcur(t) + r * cur(t) + q(t) / c) as f32);
            hy.push(cur(t) as f32);
        }
        let series = |probe: &str, comp: &str, values: Vec<f32>| Series {
            probe: probe.into(),
            component: comp.into(),
            values,
            times: times.clone(),
        };
        let zeros = vec![0.0f32; n];
        let run = RunResult {
            backend: "cpu".into(),
            device: String::new(),
            steps_done: n as u64,
            dt,
            d: [1.0, 1.0, 1.0],
            scene: String::new(),
            series: vec![
                series("gap", "Ez", e),
                series("xp", "Hy", hy),
                series("xm", "Hy", zeros.clone()),
                series("yp", "Hx", zeros.clone()),
                series("ym", "Hx", zeros),
            ],
            extra: vec![],
            end_reason: String::new(),
            port_columns: vec![],
            port_notes: vec![],
        };
        let fig = Figure::Impedance {
            name: "z".into(),
            voltage: "gap".into(),
            current: ["xp".into(), "xm".into(), "yp".into(), "ym".into()],
            band: [0.5e9, 3e9],
        };
        let out = evaluate(&fig, &run, None).unwrap();
        assert!((out[0] / f0 - 1.0).abs() < 0.01, "f0 {} vs {f0}", out[0]);
        assert!((out[1] - r).abs() < 2.0, "Re Z {}", out[1]);
    }
}

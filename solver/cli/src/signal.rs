//! Signal figures of a recorded series: its peak, and its amplitude spectrum (a zero-padded
//! radix-2 FFT, so a spectrum of 10⁵ samples takes milliseconds, not a direct DFT's minutes).

/// The sample of largest magnitude: (index, value). None for an empty series.
pub fn peak(values: &[f32]) -> Option<(usize, f32)> {
    values
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, v)| v.is_finite())
        .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
}

/// An amplitude spectrum: `amplitude[k]` at `frequency[k]` (Hz), from 0 to the Nyquist
/// frequency of the series.
#[derive(Clone, Debug, PartialEq)]
pub struct Spectrum {
    pub frequency: Vec<f64>,
    pub amplitude: Vec<f64>,
}

/// The longest series [`Spectrum::of`] transforms (2²⁴ samples: 16 M steps). Its memory
/// is 16 bytes per point; a series read from a file may declare 10⁸ samples.
pub const MAX_SAMPLES: usize = 1 << 24;
/// Zero padding stops at this many points (or the series' own power of two).
const MAX_PADDED: usize = 1 << 21;

impl Spectrum {
    /// |DFT| of `values` sampled every `dt` seconds, zero-padded to at least `8·n`
    /// points (a power of two, up to 2²¹) so that peaks fall near their true frequency.
    /// Empty for an empty series, a `dt` that is not a finite positive step, or more than
    /// [`MAX_SAMPLES`] samples.
    pub fn of(values: &[f32], dt: f64) -> Spectrum {
        let n = values.len();
        if n == 0 || n > MAX_SAMPLES || !(dt.is_finite() && dt > 0.0) {
            return Spectrum {
                frequency: vec![],
                amplitude: vec![],
            };
        }
        let m = (8 * n)
            .next_power_of_two()
            .min(n.next_power_of_two().max(MAX_PADDED))
            .max(2);
        let mut re: Vec<f64> = values.iter().map(|&v| v as f64).collect();
        re.resize(m, 0.0);
        let mut im = vec![0.0; m];
        fft(&mut re, &mut im);
        let half = m / 2 + 1;
        Spectrum {
            frequency: (0..half).map(|k| k as f64 / (m as f64 * dt)).collect(),
            amplitude: (0..half).map(|k| (re[k] * re[k] + im[k] * im[k]).sqrt() * dt).collect(),
        }
    }

    /// The frequency of the largest amplitude above `f_min` (Hz), skipping DC.
    pub fn peak_frequency(&self, f_min: f64) -> Option<f64> {
        self.frequency
            .iter()
            .zip(&self.amplitude)
            .filter(|(f, _)| **f > f_min)
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(f, _)| *f)
    }
}

/// In-place iterative radix-2 FFT (`re.len()` a power of two).
fn fft(re: &mut [f64], im: &mut [f64]) {
    let n = re.len();
    let mut j = 0;
    for i in 1..n {
        let mut bit = n >> 1;
        while j & bit != 0 {
            j ^= bit;
            bit >>= 1;
        }
        j |= bit;
        if i < j {
            re.swap(i, j);
            im.swap(i, j);
        }
    }
    let mut len = 2;
    while len <= n {
        let ang = -std::f64::consts::TAU / len as f64;
        for start in (0..n).step_by(len) {
            for k in 0..len / 2 {
                let (s, c) = (ang * k as f64).sin_cos();
                let (a, b) = (start + k, start + k + len / 2);
                let (xr, xi) = (re[b] * c - im[b] * s, re[b] * s + im[b] * c);
                re[b] = re[a] - xr;
                im[b] = im[a] - xi;
                re[a] += xr;
                im[a] += xi;
            }
        }
        len <<= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spectrum_of_a_sine_peaks_at_its_frequency() {
        let dt = 1e-11;
        let f0 = 2.3e9;
        let v: Vec<f32> = (0..2000)
            .map(|n| (std::f64::consts::TAU * f0 * n as f64 * dt).sin() as f32)
            .collect();
        let s = Spectrum::of(&v, dt);
        let f = s.peak_frequency(1e8).unwrap();
        assert!((f - f0).abs() < 0.01 * f0, "peak at {f}");
        assert_eq!(peak(&[1.0, -3.0, 2.0]), Some((1, -3.0)));
    }

    #[test]
    fn fft_matches_a_direct_dft() {
        let x = [1.0, 2.0, -1.0, 0.5, 0.0, 3.0, -2.0, 1.0];
        let (mut re, mut im) = (x.to_vec(), vec![0.0; 8]);
        fft(&mut re, &mut im);
        for k in 0..8 {
            let (mut r, mut i) = (0.0, 0.0);
            for (n, v) in x.iter().enumerate() {
                let a = -std::f64::consts::TAU * (k * n) as f64 / 8.0;
                r += v * a.cos();
                i += v * a.sin();
            }
            assert!((re[k] - r).abs() < 1e-12 && (im[k] - i).abs() < 1e-12);
        }
    }
}

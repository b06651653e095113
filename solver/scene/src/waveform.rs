//! Source time functions with physical parameters.
//!
//! Every waveform is evaluated in f64 on the host and handed to the backends as
//! f32 samples, so both backends see bit-identical source values.
use std::f64::consts::PI;

/// A time function `amplitude · shape(t − delay)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Waveform {
    pub shape: WaveShape,
    /// Peak value (units depend on the source: A·m, V·m, V/m or A/m).
    pub amplitude: f64,
    /// Time of the pulse centre (s); for `Sine` the start of the ramp.
    pub delay: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum WaveShape {
    /// `exp(−(t/τ)²)`.
    Gaussian { tau: f64 },
    /// The derivative of a gaussian, normalised to peak 1:
    /// `−√(2e)·(t/τ)·exp(−(t/τ)²)`, peaks ±1 at t = ∓τ/√2.
    GaussianDerivative { tau: f64 },
    /// Ricker wavelet (negative normalised second derivative of a gaussian) with peak
    /// spectral frequency f: `(1 − 2(πft)²)·exp(−(πft)²)`; peak 1 at t = 0.
    Ricker { frequency: f64 },
    /// `exp(−(t/τ)²)·sin(2πf·t)`.
    ModulatedGaussian { frequency: f64, tau: f64 },
    /// `sin(2πf·t)` switched on with a raised-cosine ramp of length `ramp` (s).
    Sine { frequency: f64, ramp: f64 },
}

impl Waveform {
    /// Value at time `t` (s).
    pub fn eval(&self, t: f64) -> f64 {
        let x = t - self.delay;
        self.amplitude
            * match self.shape {
                WaveShape::Gaussian { tau } => (-(x / tau).powi(2)).exp(),
                WaveShape::GaussianDerivative { tau } => {
                    -(2.0 * std::f64::consts::E).sqrt() * (x / tau) * (-(x / tau).powi(2)).exp()
                }
                WaveShape::Ricker { frequency } => {
                    let a = (PI * frequency * x).powi(2);
                    (1.0 - 2.0 * a) * (-a).exp()
                }
                WaveShape::ModulatedGaussian { frequency, tau } => {
                    (-(x / tau).powi(2)).exp() * (2.0 * PI * frequency * x).sin()
                }
                WaveShape::Sine { frequency, ramp } => {
                    if x <= 0.0 {
                        0.0
                    } else {
                        let r = if x >= ramp {
                            1.0
                        } else {
                            0.5 * (1.0 - (PI * x / ramp).cos())
                        };
                        r * (2.0 * PI * frequency * x).sin()
                    }
                }
            }
    }

    /// gprMax's `gaussian` with characteristic frequency f: τ = 1/(π√2·f), delay 1/f.
    pub fn gaussian_from_frequency(amplitude: f64, frequency: f64) -> Waveform {
        Waveform {
            shape: WaveShape::Gaussian {
                tau: 1.0 / (PI * 2f64.sqrt() * frequency),
            },
            amplitude,
            delay: 1.0 / frequency,
        }
    }

    /// The highest frequency (Hz) with significant content (about −40 dB or more
    /// below the spectral peak), used to warn about under-resolved grids.
    pub fn max_frequency(&self) -> f64 {
        match self.shape {
            // |F| ∝ exp(−(πτf)²): −40 dB (factor 0.01) at πτf = sqrt(ln 100).
            WaveShape::Gaussian { tau } | WaveShape::GaussianDerivative { tau } => (100f64).ln().sqrt() / (PI * tau),
            // |F| ∝ f² exp(−f²/f0²): −40 dB at about 3.2 f0.
            WaveShape::Ricker { frequency } => 3.2 * frequency,
            WaveShape::ModulatedGaussian { frequency, tau } => frequency + (100f64).ln().sqrt() / (PI * tau),
            WaveShape::Sine { frequency, ramp } => frequency + 2.0 / ramp.max(f64::MIN_POSITIVE),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn w(shape: WaveShape) -> Waveform {
        Waveform {
            shape,
            amplitude: 2.0,
            delay: 1e-9,
        }
    }

    #[test]
    fn gaussian_peaks_at_delay() {
        let g = w(WaveShape::Gaussian { tau: 1e-10 });
        assert_relative_eq!(g.eval(1e-9), 2.0);
        assert_relative_eq!(g.eval(1e-9 + 1e-10), 2.0 / std::f64::consts::E, max_relative = 1e-12);
    }

    #[test]
    fn gaussian_derivative_is_normalised_derivative() {
        let tau = 1e-10;
        let g = w(WaveShape::GaussianDerivative { tau });
        let t_peak = 1e-9 - tau / 2f64.sqrt();
        assert_relative_eq!(g.eval(t_peak), 2.0, max_relative = 1e-12);
        // Proportional to the numerical derivative of the gaussian.
        let gauss = w(WaveShape::Gaussian { tau });
        let t = 1e-9 + 0.3 * tau;
        let h = 1e-16;
        let dg = (gauss.eval(t + h) - gauss.eval(t - h)) / (2.0 * h);
        let scale = tau * (2.0 * std::f64::consts::E).sqrt() / 2.0; // d/dt exp(−(x/τ)²) = −2x/τ²·exp(..)
        assert_relative_eq!(g.eval(t), dg * scale, max_relative = 1e-5);
    }

    #[test]
    fn ricker_matches_gprmax_definition() {
        // gprMax: −(2ζ(t−χ)² − 1)·exp(−ζ(t−χ)²), ζ = π²f², χ = √2/f.
        let f = 1.5e9;
        let r = Waveform {
            shape: WaveShape::Ricker { frequency: f },
            amplitude: 1.0,
            delay: 2f64.sqrt() / f,
        };
        for t in [0.0, 3e-10, 9.4e-10, 2e-9] {
            let zeta = (PI * f).powi(2);
            let chi = 2f64.sqrt() / f;
            let expect = -(2.0 * zeta * (t - chi).powi(2) - 1.0) * (-zeta * (t - chi).powi(2)).exp();
            assert_relative_eq!(r.eval(t), expect, epsilon = 1e-12);
        }
    }

    #[test]
    fn gaussian_from_frequency_matches_gprmax() {
        // gprMax: exp(−ζ(t−χ)²), ζ = 2π²f², χ = 1/f.
        let f = 1e9;
        let g = Waveform::gaussian_from_frequency(1.0, f);
        for t in [0.0, 5e-10, 1e-9, 1.7e-9] {
            let expect = (-2.0 * (PI * f).powi(2) * (t - 1.0 / f).powi(2)).exp();
            assert_relative_eq!(g.eval(t), expect, epsilon = 1e-12);
        }
    }

    #[test]
    fn sine_ramps_smoothly_from_zero() {
        let s = Waveform {
            shape: WaveShape::Sine {
                frequency: 1e9,
                ramp: 3e-9,
            },
            amplitude: 1.0,
            delay: 0.0,
        };
        assert_eq!(s.eval(-1e-9), 0.0);
        assert!(s.eval(1e-12).abs() < 1e-6);
        // After the ramp it is a plain sine.
        let t = 5.25e-9;
        assert_relative_eq!(s.eval(t), (2.0 * PI * 1e9 * t).sin(), epsilon = 1e-12);
    }

    #[test]
    fn modulated_gaussian_envelope() {
        let m = w(WaveShape::ModulatedGaussian {
            frequency: 1e9,
            tau: 1e-9,
        });
        let t = 1e-9 + 0.25e-9; // quarter period after the centre: sin = 1
        assert_relative_eq!(m.eval(t), 2.0 * (-(0.25f64).powi(2)).exp(), max_relative = 1e-12);
    }
}

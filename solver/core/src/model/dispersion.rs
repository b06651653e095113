//! Dispersive media: the poles' update coefficients and the scheme's exact discrete
//! permittivity (`docs/materials.md` derives both).
//!
//! Every pole is a polarisation P_p obeying an ordinary differential equation driven by
//! E (Debye: τP' + P = ε0Δε·E; Drude: J' + γJ = ε0ωp²·E with J = P'; Lorentz:
//! P'' + γP' + ω0²P = ε0Δεω0²·E), discretised with the trapezoidal rule (the bilinear
//! transform) on E at integer steps. The E update is
//!
//! ```text
//! ε0ε∞(E¹ − E⁰)/Δt + σ(E¹ + E⁰)/2 = ∇×H − Σ_p (P_p¹ − P_p⁰)/Δt
//! ```
//!
//! and each pole's current `(P¹ − P⁰)/Δt = κ·s⁰ + β(E⁰ + E¹)` splits into an explicit
//! part (its state s⁰, known before the step) and an implicit part β(E⁰ + E¹) that folds
//! into the material's ca/cb row, so the bulk kernels are unchanged. The AfterE pass
//! `dispersive` subtracts cb·Σκ·s⁰ and then advances `s¹ = s⁰ + D·s⁰ + g(E⁰ + E¹)`.
//!
//! Because the whole E equation is the bilinear transform of the continuous one, the
//! scheme's permittivity is the continuous ε at a warped frequency:
//! `ε_d(ω) = ε(Ω)`, `Ω = (2/Δt)·tan(ωΔt/2)` ([`eps_discrete`]), relative to the Yee time
//! operator as for any non-dispersive ε. The trapezoidal rule maps every stable pole
//! inside the unit circle for any Δt (A-stability), so no pole can make the run unstable;
//! a pole faster than 2/Δt is refused by the scene (`MAX_RATE_DT`) because its discrete
//! response then rings at the Nyquist frequency instead of relaxing.
use crate::scene::Pole;
use crate::EPS0;
use num_complex::Complex64;
use std::f64::consts::TAU;

/// A pole's update coefficients for one time step, in f64. State units: P/ε0 and
/// J·Δt/ε0 (V/m), so the f32 state stays near the field's own magnitude.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoleCoefs {
    /// 1 (Debye: s = P/ε0; Drude: s = J·Δt/ε0) or 2 (Lorentz: s = (P/ε0, J·Δt/ε0)).
    pub order: usize,
    /// The pole's current at n+½ is `ε0/Δt·kappa·s` + β(E⁰ + E¹) (A/m²): the explicit part.
    pub kappa: [f64; 2],
    /// `s¹ − s⁰ = d·s⁰ + g·(E⁰ + E¹)`: the state's increment (kept as an increment so
    /// the f32 state does not lose the small 1 − G to rounding).
    pub d: [[f64; 2]; 2],
    pub g: [f64; 2],
    /// The implicit part's coefficient (S/m): it joins the row's ca/cb.
    pub beta: f64,
}

impl PoleCoefs {
    /// Trapezoidal-rule coefficients of `pole` at time step `dt` (`docs/materials.md`).
    pub fn new(pole: &Pole, dt: f64) -> PoleCoefs {
        let h = dt / 2.0;
        match *pole {
            Pole::Debye { delta_eps, tau } => {
                // P¹ = G P⁰ + g (E⁰ + E¹), G = (2τ − Δt)/(2τ + Δt), g = ε0Δε Δt/(2τ + Δt);
                // (P¹ − P⁰)/Δt = (G − 1)/Δt·P⁰ + g/Δt·(E⁰ + E¹). State s = P/ε0.
                let den = 2.0 * tau + dt;
                let d = -2.0 * dt / den;
                let g = delta_eps * dt / den;
                PoleCoefs {
                    order: 1,
                    kappa: [d, 0.0],
                    d: [[d, 0.0], [0.0, 0.0]],
                    g: [g, 0.0],
                    beta: EPS0 * g / dt,
                }
            }
            Pole::Drude {
                plasma_frequency,
                damping,
            } => {
                // J¹ = G J⁰ + g (E⁰ + E¹), G = (1 − hγ)/(1 + hγ), g = hε0ωp²/(1 + hγ);
                // (P¹ − P⁰)/Δt = (J⁰ + J¹)/2 = J⁰/(1 + hγ) + g/2·(E⁰ + E¹). s = JΔt/ε0.
                let (wp, gam) = (TAU * plasma_frequency, TAU * damping);
                let den = 1.0 + h * gam;
                let d = -2.0 * h * gam / den;
                let g = h * wp * wp * dt / den; // g·Δt/ε0
                PoleCoefs {
                    order: 1,
                    kappa: [1.0 / den, 0.0],
                    d: [[d, 0.0], [0.0, 0.0]],
                    g: [g, 0.0],
                    beta: EPS0 * g / (2.0 * dt),
                }
            }
            Pole::Lorentz {
                delta_eps,
                frequency,
                damping,
            } => {
                // x = (P, J): x' = A x + B E, A = [[0, 1], [−ω0², −γ]], B = (0, ε0Δεω0²).
                // (I − hA) x¹ = (I + hA) x⁰ + hB (E⁰ + E¹); det = 1 + hγ + h²ω0².
                let (w0, gam) = (TAU * frequency, TAU * damping);
                let w2 = w0 * w0;
                let det = 1.0 + h * gam + h * h * w2;
                // G − I in x = (P, J) units.
                let dx = [
                    [-2.0 * h * h * w2 / det, 2.0 * h / det],
                    [-2.0 * h * w2 / det, (-2.0 * h * gam - 2.0 * h * h * w2) / det],
                ];
                let gx = [h * h * EPS0 * delta_eps * w2 / det, h * EPS0 * delta_eps * w2 / det];
                // s = S⁻¹x, S = diag(ε0, ε0/Δt): d = S⁻¹ (G − I) S, g = S⁻¹ gx.
                let sc = [EPS0, EPS0 / dt];
                let d = [
                    [dx[0][0], dx[0][1] * sc[1] / sc[0]],
                    [dx[1][0] * sc[0] / sc[1], dx[1][1]],
                ];
                let g = [gx[0] / sc[0], gx[1] / sc[1]];
                // (P¹ − P⁰)/Δt = (J⁰ + J¹)/2 = ((G21 P⁰ + (G22 + 1) J⁰) + g_J (E⁰ + E¹))/2.
                // In s units, the explicit part × Δt/ε0: (G21 ε0 s_P + (G22 + 1)(ε0/Δt) s_J)·Δt/(2ε0).
                let kappa = [dx[1][0] * dt / 2.0, (dx[1][1] + 2.0) / 2.0];
                PoleCoefs {
                    order: 2,
                    kappa,
                    d,
                    g,
                    beta: gx[1] / 2.0,
                }
            }
        }
    }

    /// State floats of this pole per sample.
    pub fn state_len(&self) -> usize {
        self.order
    }
}

/// A pole's update in the *stored-state form* the `dispersive` pass runs: it keeps
/// r = G·s + g·E (G = I + d, after each step) instead of s and the previous E, so a
/// sample's state is its poles' floats alone. With r⁰ = G·s⁰ + g·E⁰, s⁰ = G⁻¹(r⁰ − g·E⁰),
/// and the step becomes
///
/// ```text
/// E¹ = E' − (cb·ε0/Δt)·Σ kappa·r⁰     E': the bulk update with ca' = ca + (cb·ε0/Δt)·Σ fold
/// r¹ = r⁰ + d·r⁰ + h·E¹               (r¹ = G·s¹ + g·E¹ with s¹ = r⁰ + g·E¹)
/// ```
///
/// with kappa = κ·G⁻¹, fold = κ·G⁻¹·g and h = (2I + d)·g: the same recursion in exact
/// arithmetic (`stored_form_is_the_same_recursion`). det G ≥ `MIN_MEMORY` (the scene
/// refuses a pole below it), so G⁻¹ amplifies rounding at most 16 times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stored {
    pub order: usize,
    pub kappa: [f64; 2],
    pub d: [[f64; 2]; 2],
    pub h: [f64; 2],
    pub fold: f64,
}

impl PoleCoefs {
    /// This pole's update in the stored-state form ([`Stored`]).
    pub fn stored(&self) -> Stored {
        let d = self.d;
        let g = self.g;
        // G⁻¹ (G = I + d); for a first-order pole the 2×2 algebra reduces to scalars.
        let inv = if self.order == 1 {
            [[1.0 / (1.0 + d[0][0]), 0.0], [0.0, 0.0]]
        } else {
            let m = [[1.0 + d[0][0], d[0][1]], [d[1][0], 1.0 + d[1][1]]];
            let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
            [[m[1][1] / det, -m[0][1] / det], [-m[1][0] / det, m[0][0] / det]]
        };
        let kappa = [
            self.kappa[0] * inv[0][0] + self.kappa[1] * inv[1][0],
            self.kappa[0] * inv[0][1] + self.kappa[1] * inv[1][1],
        ];
        let h = [
            (2.0 + d[0][0]) * g[0] + d[0][1] * g[1],
            d[1][0] * g[0] + (2.0 + d[1][1]) * g[1],
        ];
        Stored {
            order: self.order,
            kappa,
            d,
            h,
            fold: kappa[0] * g[0] + kappa[1] * g[1],
        }
    }
}

/// `[ca, cb]` of an E row with ε∞ = `eps_inf`, conductivity `sigma` and `poles`: the
/// implicit parts β of the poles' currents join σ/2 (`docs/materials.md`), and ca
/// takes the stored-state form's fold ([`Stored`]), computed with cb as the f32 table
/// holds it, the same cb the pass's kappa is scaled by.
pub fn e_coefs(eps_inf: f64, sigma: f64, poles: &[Pole], dt: f64) -> (f64, f64) {
    let beta: f64 = poles.iter().map(|p| PoleCoefs::new(p, dt).beta).sum();
    let a = EPS0 * eps_inf / dt;
    let b = sigma / 2.0 + beta;
    let (ca, cb) = ((a - b) / (a + b), 1.0 / (a + b));
    let fold: f64 = poles.iter().map(|p| PoleCoefs::new(p, dt).stored().fold).sum();
    (ca + (cb as f32) as f64 * EPS0 / dt * fold, cb)
}

/// The continuous relative permittivity ε(ω) = ε∞ + Σ poles − jσ/(ωε0) (exp(+jωt)).
pub fn eps_continuous(eps_inf: f64, sigma: f64, poles: &[Pole], w: f64) -> Complex64 {
    let mut e = Complex64::new(eps_inf, -sigma / (w * EPS0));
    for p in poles {
        let (re, im) = p.chi(w);
        e += Complex64::new(re, im);
    }
    e
}

/// The update's exact discrete permittivity at angular frequency `w`: the continuous one
/// at the bilinear transform's warped frequency Ω = (2/Δt)·tan(ωΔt/2).
pub fn eps_discrete(eps_inf: f64, sigma: f64, poles: &[Pole], w: f64, dt: f64) -> Complex64 {
    eps_continuous(eps_inf, sigma, poles, 2.0 / dt * (w * dt / 2.0).tan())
}

/// The same discrete permittivity computed from the recursion itself (the z-transform
/// of the coefficients [`PoleCoefs`] and the row's σ at z = exp(jωΔt)): what the tests
/// hold [`eps_discrete`] to, so a coefficient slip cannot hide behind the closed form.
pub fn eps_of_recursion(eps_inf: f64, sigma: f64, poles: &[Pole], w: f64, dt: f64) -> Complex64 {
    let z = Complex64::from_polar(1.0, w * dt);
    let one = Complex64::new(1.0, 0.0);
    // Σ currents / E, with E at integer steps and the currents at n+½ (the factor z
    // of the half-step pairing cancels against the Yee operator's (z − 1)).
    let mut cur = sigma * (z + one) / 2.0;
    for p in poles {
        let c = PoleCoefs::new(p, dt);
        // s = (zI − I − d)⁻¹ g (z + 1) E.
        let s = if c.order == 1 {
            [c.g[0] * (z + one) / (z - one - c.d[0][0]), Complex64::new(0.0, 0.0)]
        } else {
            let off = |x: f64| Complex64::new(-x, 0.0);
            let m = [
                [z - one - c.d[0][0], off(c.d[0][1])],
                [off(c.d[1][0]), z - one - c.d[1][1]],
            ];
            let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
            let (g0, g1) = (c.g[0] * (z + one), c.g[1] * (z + one));
            [(m[1][1] * g0 - m[0][1] * g1) / det, (m[0][0] * g1 - m[1][0] * g0) / det]
        };
        cur += (s[0] * c.kappa[0] + s[1] * c.kappa[1]) * (EPS0 / dt) + c.beta * (z + one);
    }
    eps_inf + cur * dt / (EPS0 * (z - one))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poles() -> Vec<Pole> {
        vec![
            Pole::Debye {
                delta_eps: 75.2,
                tau: 9.4e-12,
            },
            Pole::Drude {
                plasma_frequency: 3e9,
                damping: 1e9,
            },
            Pole::Lorentz {
                delta_eps: 1.5,
                frequency: 4e9,
                damping: 6e8,
            },
        ]
    }

    /// The recursion's z-transform is the closed form ε(Ω) to rounding, per pole type and
    /// together, across the band up to a quarter of the sampling rate.
    #[test]
    fn the_recursion_has_the_closed_form_discrete_permittivity() {
        let dt = 1e-12;
        let all = poles();
        for set in [&all[0..1], &all[1..2], &all[2..3], &all[..]] {
            for f in [1e8, 1e9, 3e9, 4e9, 2e10, 1e11] {
                let w = TAU * f;
                let a = eps_discrete(4.9, 0.01, set, w, dt);
                let b = eps_of_recursion(4.9, 0.01, set, w, dt);
                assert!((a - b).norm() <= 1e-9 * a.norm(), "{set:?} at {f}: {a} vs {b}");
            }
        }
    }

    /// At many samples per period the discrete ε is the continuous one to O((ωΔt)²).
    #[test]
    fn the_discrete_permittivity_converges_to_the_continuous_one() {
        let dt = 1e-13;
        let w = TAU * 2e9;
        let a = eps_discrete(4.9, 0.0, &poles(), w, dt);
        let b = eps_continuous(4.9, 0.0, &poles(), w);
        assert!((a - b).norm() / b.norm() < (w * dt).powi(2), "{a} vs {b}");
    }

    /// The stored-state form (what the pass runs) and the textbook form (s and the
    /// previous E kept) give the same E sequence for one sample driven by an arbitrary
    /// curl term, in f64, for every pole type and for poles near the scene's
    /// `MIN_MEMORY` bound.
    #[test]
    fn stored_form_is_the_same_recursion() {
        let dt = 1e-12;
        let mut sets = vec![poles()];
        sets.push(vec![Pole::Debye {
            delta_eps: 4.0,
            tau: 0.57 * dt,
        }]);
        sets.push(vec![Pole::Lorentz {
            delta_eps: 2.0,
            frequency: 1e9,
            damping: 0.27 / dt,
        }]);
        for set in sets {
            for p in &set {
                assert!(p.memory(dt) >= crate::scene::MIN_MEMORY, "{p:?}");
            }
            let (eps, sigma) = (2.0, 0.01);
            // Textbook: E¹ = ca E⁰ + cb c − cb ε0/Δt Σκ s⁰; s¹ = s⁰ + d s⁰ + g (E⁰ + E¹).
            let beta: f64 = set.iter().map(|p| PoleCoefs::new(p, dt).beta).sum();
            let (a, b) = (EPS0 * eps / dt, sigma / 2.0 + beta);
            let (ca, cb) = ((a - b) / (a + b), 1.0 / (a + b));
            let (ca2, cb2) = e_coefs(eps, sigma, &set, dt);
            assert_eq!(cb, cb2);
            let k = (cb as f32) as f64 * EPS0 / dt;
            let cs: Vec<PoleCoefs> = set.iter().map(|p| PoleCoefs::new(p, dt)).collect();
            let (mut e1, mut s) = (0.0f64, vec![[0.0f64; 2]; set.len()]);
            let (mut e2, mut r) = (0.0f64, vec![[0.0f64; 2]; set.len()]);
            let mut worst = 0.0f64;
            for n in 0..400 {
                let curl = ((n as f64) * 0.37).sin() * (-((n as f64) - 60.0).powi(2) / 800.0).exp() * 1e3;
                let acc: f64 = cs
                    .iter()
                    .zip(&s)
                    .map(|(c, s)| c.kappa[0] * s[0] + c.kappa[1] * s[1])
                    .sum();
                let new = ca * e1 + cb * curl - k * acc;
                for (c, s) in cs.iter().zip(s.iter_mut()) {
                    let se = new + e1;
                    let s0 = *s;
                    s[0] = s0[0] + c.d[0][0] * s0[0] + c.d[0][1] * s0[1] + c.g[0] * se;
                    s[1] = s0[1] + c.d[1][0] * s0[0] + c.d[1][1] * s0[1] + c.g[1] * se;
                }
                e1 = new;
                let acc: f64 = cs
                    .iter()
                    .zip(&r)
                    .map(|(c, r)| {
                        let st = c.stored();
                        st.kappa[0] * r[0] + st.kappa[1] * r[1]
                    })
                    .sum();
                let new = ca2 * e2 + cb * curl - k * acc;
                for (c, r) in cs.iter().zip(r.iter_mut()) {
                    let st = c.stored();
                    let r0 = *r;
                    r[0] = r0[0] + st.d[0][0] * r0[0] + st.d[0][1] * r0[1] + st.h[0] * new;
                    r[1] = r0[1] + st.d[1][0] * r0[0] + st.d[1][1] * r0[1] + st.h[1] * new;
                }
                e2 = new;
                worst = worst.max((e1 - e2).abs());
            }
            let scale = 1e3 * cb;
            assert!(worst < 1e-9 * scale, "{set:?}: {worst:e} vs {scale:e}");
        }
    }
}

//! `poles = [...]` of a `[materials.NAME]` table (a child of `parse`, with its spanned
//! walker): Debye, Drude and Lorentz poles, checked for passivity and for whether the
//! run's time step resolves them (`docs/materials.md`).
use super::{choice, num, Val, R};
use crate::Pole;

/// Largest `rate·Δt` the update accepts for a pole (see [`Pole::rate`]): above it the
/// bilinear (trapezoidal) recursion maps the pole to a negative real z, a response that
/// rings at the Nyquist frequency instead of relaxing.
pub const MAX_RATE_DT: f64 = 2.0;

/// The poles of material `name`; `dt` is the run's time step when it is known.
pub(super) fn poles(v: &Val, name: &str, dt: Option<f64>) -> R<Vec<Pole>> {
    let mut out = Vec::new();
    for (i, item) in v.items()?.iter().enumerate() {
        let t = item.table()?;
        let ty = choice(&t.req("type")?, "pole type", &["debye", "drude", "lorentz"], |_| None)?;
        let keys: &[&str] = match ty {
            "debye" => &["type", "delta_eps", "tau"],
            "drude" => &["type", "plasma_frequency", "damping"],
            _ => &["type", "delta_eps", "frequency", "damping"],
        };
        t.check_keys(keys)?;
        // Strength > 0: a zero pole does nothing, a negative one is an active (gain) medium.
        let strength = |key: &str| -> R<f64> {
            let v = t.req(key)?;
            let x = v.num()?;
            if x > 0.0 {
                Ok(x)
            } else {
                Err(v
                    .err(format!("a {ty} pole needs {key} > 0 (got {})", num(x)))
                    .hint("a zero pole does nothing (leave it out); a negative one is a gain medium, which the update does not model"))
            }
        };
        let damping = || -> R<f64> {
            let v = t.req("damping")?;
            let x = v.num()?;
            if x >= 0.0 {
                Ok(x)
            } else {
                Err(v
                    .err(format!("damping must be >= 0 Hz (got {})", num(x)))
                    .hint("a negative damping makes the pole grow without bound"))
            }
        };
        let pole = match ty {
            "debye" => {
                let tau = t.req("tau")?;
                let x = tau.num()?;
                if x <= 0.0 {
                    return Err(tau
                        .err(format!("tau must be > 0 s (got {})", num(x)))
                        .hint("tau is the relaxation time in seconds"));
                }
                Pole::Debye {
                    delta_eps: strength("delta_eps")?,
                    tau: x,
                }
            }
            "drude" => Pole::Drude {
                plasma_frequency: strength("plasma_frequency")?,
                damping: damping()?,
            },
            _ => Pole::Lorentz {
                delta_eps: strength("delta_eps")?,
                frequency: strength("frequency")?,
                damping: damping()?,
            },
        };
        if let Some(dt) = dt {
            if let Some((message, hint)) = too_fast(&pole, i, name, dt) {
                return Err(item.err(message).hint(hint));
            }
        }
        out.push(pole);
    }
    Ok(out)
}

/// Whether the update resolves `pole` at time step `dt`: `rate·dt <= MAX_RATE_DT` and a
/// one-step state determinant of at least [`crate::MIN_MEMORY`].
fn resolved(pole: &Pole, dt: f64) -> bool {
    pole.rate() * dt <= MAX_RATE_DT && pole.memory(dt) >= crate::MIN_MEMORY
}

/// The largest time step that resolves `pole` (bisection below `MAX_RATE_DT / rate`;
/// every step below it resolves the pole too, see `resolved_below_the_largest_step`).
fn largest_dt(pole: &Pole) -> f64 {
    let (mut lo, mut hi) = (0.0, MAX_RATE_DT / pole.rate());
    if resolved(pole, hi) {
        return hi;
    }
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if resolved(pole, mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The refusal of a pole the time step `dt` cannot resolve (message and hint), if it
/// is one; `i` is its index in the material `name`.
pub(super) fn too_fast(pole: &Pole, i: usize, name: &str, dt: f64) -> Option<(String, String)> {
    if resolved(pole, dt) {
        return None;
    }
    let rate = pole.rate();
    let (ty, what) = match *pole {
        Pole::Debye { tau, .. } => ("debye", format!("tau = {} s", num(tau))),
        Pole::Drude { damping, .. } => ("drude", format!("damping = {} Hz", num(damping))),
        Pole::Lorentz { frequency, damping, .. } => (
            "lorentz",
            format!("frequency = {} Hz, damping = {} Hz", num(frequency), num(damping)),
        ),
    };
    let why = if rate * dt > MAX_RATE_DT {
        format!("its rate·dt = {} > {}", num(rate * dt), num(MAX_RATE_DT))
    } else {
        format!(
            "a step keeps only {} of its state (at least {} is needed)",
            num(pole.memory(dt)),
            num(crate::MIN_MEMORY)
        )
    };
    let best = largest_dt(pole);
    Some((
        format!("material {name:?}, pole {i} ({ty}, {what}) is faster than the time step resolves: {why}"),
        format!(
            "the largest time step for this pole is {} s (now {} s): make the cells or time.courant smaller by {}×, or drop a pole far above the band",
            num(best),
            num(dt),
            num((dt / best * 1000.0).ceil() / 1000.0)
        ),
    ))
}

#[cfg(test)]
mod tests {
    use crate::{Pole, Scene};

    /// The issue's example parses to its poles, and ε(ω) follows the documented formulas.
    #[test]
    fn water_and_gold_parse_with_their_poles() {
        let text = r#"
[domain]
cell = 1e-9
cells = [10, 10, 10]
[time]
steps = 10
[boundaries]
all = "pec"
[materials.water]
eps_r = 4.9
poles = [{ type = "debye", delta_eps = 75.2, tau = 9.4e-12 }]
[materials.gold]
eps_r = 1.0
poles = [{ type = "drude", plasma_frequency = 2.18e15, damping = 6.45e12 },
         { type = "lorentz", delta_eps = 1.09, frequency = 6.2e14, damping = 1.2e14 }]
"#;
        let s = Scene::parse(text, "t.toml").unwrap();
        let water = &s.materials[2];
        assert_eq!(
            water.poles,
            vec![Pole::Debye {
                delta_eps: 75.2,
                tau: 9.4e-12
            }]
        );
        // Static limit: eps_r + delta_eps; at ωτ = 1: half the step, loss −Δε/2.
        let (re, im) = water.eps_at(1e-3).unwrap();
        assert!((re - 80.1).abs() < 1e-9 && im.abs() < 1e-9);
        let (re, im) = water.eps_at(1.0 / 9.4e-12).unwrap();
        assert!((re - (4.9 + 37.6)).abs() < 1e-9 && (im + 37.6).abs() < 1e-9);
        let gold = &s.materials[3];
        assert_eq!(gold.poles.len(), 2);
        // Below the plasma frequency a Drude metal has Re ε < 0, and every pole is lossy (Im < 0).
        let (re, im) = gold.eps_at(2.0 * std::f64::consts::PI * 3e14).unwrap();
        assert!(re < -10.0 && im < 0.0, "{re} {im}");
    }

    /// The guard: a Debye pole needs τ ≥ 17Δt/30 (one-step determinant 1/16), a Drude
    /// pole γΔt ≤ 30/17; the hint's largest step resolves the pole and every smaller
    /// step does too, for poles of each type over six decades of rate.
    #[test]
    fn resolved_below_the_largest_step() {
        use super::{largest_dt, resolved, too_fast};
        let dt = 1e-12;
        let debye = |tau: f64| Pole::Debye { delta_eps: 1.0, tau };
        assert!(resolved(&debye(17.0 / 30.0 * dt * (1.0 + 1e-9)), dt));
        assert!(!resolved(&debye(17.0 / 30.0 * dt * (1.0 - 1e-9)), dt));
        // Above the old rate bound (τ ≥ Δt/2) but keeping less than 1/16 of its state.
        let (msg, hint) = too_fast(&debye(0.55 * dt), 0, "m", dt).unwrap();
        assert!(
            msg.contains("keeps only 0.047") && msg.contains("at least 0.0625"),
            "{msg}"
        );
        assert!(
            hint.contains("largest time step for this pole is 9.70588235294e-13 s"),
            "{hint}"
        );
        let drude = |g: f64| Pole::Drude {
            plasma_frequency: 1e12,
            damping: g,
        };
        let g = 30.0 / 17.0 / (std::f64::consts::TAU * dt);
        assert!(resolved(&drude(g * (1.0 - 1e-9)), dt) && !resolved(&drude(g * (1.0 + 1e-9)), dt));
        for e in -3..3 {
            let r = 10f64.powi(e) / dt;
            let f = r / std::f64::consts::TAU;
            for pole in [
                debye(1.0 / r),
                drude(f),
                Pole::Lorentz {
                    delta_eps: 1.0,
                    frequency: f,
                    damping: f,
                },
                Pole::Lorentz {
                    delta_eps: 1.0,
                    frequency: f / 30.0,
                    damping: f,
                },
                Pole::Lorentz {
                    delta_eps: 1.0,
                    frequency: f,
                    damping: 0.0,
                },
            ] {
                let best = largest_dt(&pole);
                assert!(best > 0.0 && resolved(&pole, best), "{pole:?}");
                assert!(!resolved(&pole, best * 1.001), "{pole:?}");
                assert!((1..100).all(|k| resolved(&pole, best * k as f64 / 100.0)), "{pole:?}");
            }
        }
    }
}

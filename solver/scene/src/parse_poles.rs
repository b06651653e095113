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

/// The refusal of a pole the time step `dt` cannot resolve (message and hint), if it
/// is one; `i` is its index in the material `name`.
pub(super) fn too_fast(pole: &Pole, i: usize, name: &str, dt: f64) -> Option<(String, String)> {
    let rate = pole.rate();
    if rate * dt <= MAX_RATE_DT {
        return None;
    }
    let (ty, what) = match *pole {
        Pole::Debye { tau, .. } => ("debye", format!("tau = {} s", num(tau))),
        Pole::Drude { damping, .. } => ("drude", format!("damping = {} Hz", num(damping))),
        Pole::Lorentz { frequency, damping, .. } => (
            "lorentz",
            format!("frequency = {} Hz, damping = {} Hz", num(frequency), num(damping)),
        ),
    };
    Some((
        format!(
            "material {name:?}, pole {i} ({ty}, {what}) is faster than the time step resolves: its rate·dt = {} > {}",
            num(rate * dt),
            num(MAX_RATE_DT)
        ),
        format!(
            "the largest time step for this pole is {} s (now {} s): make the cells or time.courant smaller by {}×, or drop a pole far above the band",
            num(MAX_RATE_DT / rate),
            num(dt),
            num((rate * dt / MAX_RATE_DT * 1000.0).ceil() / 1000.0)
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
}

//! Materials by name (`material = "water"`), usable like `pec` without a
//! `[materials.NAME]` table. A table of the same name in the scene wins.
//!
//! Each entry's source and the band it holds in are in docs/materials.md:
//! - `water`: pure water at 20 °C, one Debye pole, from the temperature fits in Ulaby &
//!   Long, *Microwave Radar and Radiometric Remote Sensing* (2014): εs(T) = 88.045 −
//!   0.4147 T + 6.295e-4 T² + 1.075e-5 T³, ε∞ = 4.9, 2πτ(T) = 1.1109e-10 − 3.824e-12 T +
//!   6.938e-14 T² − 5.096e-16 T³ s (T in °C); good through the main relaxation (to a few
//!   tens of GHz).
//! - `gold`, `silver`, `copper`, `aluminium`: the Lorentz–Drude fits of Rakić, Djurišić,
//!   Elazar & Majewski, Appl. Opt. 37, 5271 (1998), 0.1–5 eV (0.25–12.4 µm): ε(ω) = 1 −
//!   f0·ωp²/(ω² − jωΓ0) + Σ fj·ωp²/(ωj² − ω² + jωΓj), with ħωp, ħΓ, ħωj in eV as
//!   published. These are optical fits: on a microwave grid their poles are far faster
//!   than the time step and the scene is refused with a hint (a metal at RF is `pec`, or
//!   a conductivity).
use crate::{Material, MaterialKind, Pole};

/// Hz per eV (e/h).
const HZ_PER_EV: f64 = 2.417_989_242e14;

/// The names the library holds.
pub const NAMES: [&str; 5] = ["water", "gold", "silver", "copper", "aluminium"];

/// Pure water's (ε∞, Δε, τ) at `t` °C (Ulaby & Long 2014).
pub fn water_debye(t: f64) -> (f64, f64, f64) {
    let eps_s = 88.045 - 0.4147 * t + 6.295e-4 * t * t + 1.075e-5 * t * t * t;
    let two_pi_tau = 1.1109e-10 - 3.824e-12 * t + 6.938e-14 * t * t - 5.096e-16 * t * t * t;
    (4.9, eps_s - 4.9, two_pi_tau / std::f64::consts::TAU)
}

/// A Rakić LD fit: ħωp and (f0, ħΓ0) of the Drude term, (fj, ħΓj, ħωj) of each Lorentz
/// term, all energies in eV, as the paper's table gives them.
struct Rakic {
    wp: f64,
    f0: f64,
    g0: f64,
    lorentz: &'static [(f64, f64, f64)],
}

const GOLD: Rakic = Rakic {
    wp: 9.03,
    f0: 0.760,
    g0: 0.053,
    lorentz: &[
        (0.024, 0.241, 0.415),
        (0.010, 0.345, 0.830),
        (0.071, 0.870, 2.969),
        (0.601, 2.494, 4.304),
        (4.384, 2.214, 13.32),
    ],
};
const SILVER: Rakic = Rakic {
    wp: 9.01,
    f0: 0.845,
    g0: 0.048,
    lorentz: &[
        (0.065, 3.886, 0.816),
        (0.124, 0.452, 4.481),
        (0.011, 0.065, 8.185),
        (0.840, 0.916, 9.083),
        (5.646, 2.419, 20.29),
    ],
};
const COPPER: Rakic = Rakic {
    wp: 10.83,
    f0: 0.575,
    g0: 0.030,
    lorentz: &[
        (0.061, 0.378, 0.291),
        (0.104, 1.056, 2.957),
        (0.723, 3.213, 5.300),
        (0.638, 4.305, 11.18),
    ],
};
const ALUMINIUM: Rakic = Rakic {
    wp: 14.98,
    f0: 0.523,
    g0: 0.047,
    lorentz: &[
        (0.227, 0.333, 0.162),
        (0.050, 0.312, 1.544),
        (0.166, 1.351, 1.808),
        (0.030, 3.382, 3.473),
    ],
};

impl Rakic {
    /// The fit as this engine's poles: Drude −ωp'²/(ω² − jωγ) with ωp' = √f0·ωp; Lorentz
    /// Δε·ω0²/(ω0² − ω² + jωγ) with Δε = fj·ωp²/ωj² (ω = 2π × the frequency in Hz).
    fn poles(&self) -> Vec<Pole> {
        let mut p = vec![Pole::Drude {
            plasma_frequency: self.f0.sqrt() * self.wp * HZ_PER_EV,
            damping: self.g0 * HZ_PER_EV,
        }];
        for &(f, g, w) in self.lorentz {
            p.push(Pole::Lorentz {
                delta_eps: f * self.wp * self.wp / (w * w),
                frequency: w * HZ_PER_EV,
                damping: g * HZ_PER_EV,
            });
        }
        p
    }
}

/// The library's material `name`, if it has one.
pub fn material(name: &str) -> Option<Material> {
    let dielectric = |eps_r| MaterialKind::Dielectric {
        eps_r,
        mu_r: 1.0,
        sigma: 0.0,
    };
    let (kind, poles) = match name {
        "water" => {
            let (inf, delta_eps, tau) = water_debye(20.0);
            (dielectric(inf), vec![Pole::Debye { delta_eps, tau }])
        }
        "gold" => (dielectric(1.0), GOLD.poles()),
        "silver" => (dielectric(1.0), SILVER.poles()),
        "copper" => (dielectric(1.0), COPPER.poles()),
        "aluminium" => (dielectric(1.0), ALUMINIUM.poles()),
        _ => return None,
    };
    Some(Material {
        name: name.to_string(),
        kind,
        poles,
    })
}

/// Whether `name` is one of the library's optical metal fits (for the refusal's hint).
pub fn is_optical_metal(name: &str) -> bool {
    matches!(name, "gold" | "silver" | "copper" | "aluminium")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::TAU;

    /// ε of the Rakić LD model at photon energy `e` (eV), exp(+jωt), computed directly
    /// from the paper's form in eV (independent of the pole conversion).
    fn rakic_eps(r: &Rakic, e: f64) -> (f64, f64) {
        use num_complex::Complex64 as C;
        let j = C::new(0.0, 1.0);
        let mut eps = C::new(1.0, 0.0) - r.f0 * r.wp * r.wp / (e * e - j * e * r.g0);
        for &(f, g, w) in r.lorentz {
            eps += f * r.wp * r.wp / (w * w - e * e + j * e * g);
        }
        (eps.re, eps.im)
    }

    #[test]
    fn metals_match_the_rakic_formula_and_published_values() {
        for (name, r) in [
            ("gold", &GOLD),
            ("silver", &SILVER),
            ("copper", &COPPER),
            ("aluminium", &ALUMINIUM),
        ] {
            let m = material(name).unwrap();
            for e in [0.5, 1.0, 1.5, 2.0, 3.0, 4.0] {
                let (re, im) = m.eps_at(TAU * e * HZ_PER_EV).unwrap();
                let (fr, fi) = rakic_eps(r, e);
                let err = ((re - fr).powi(2) + (im - fi).powi(2)).sqrt() / fr.hypot(fi);
                assert!(err < 1e-9, "{name} at {e} eV: {re} {im} vs {fr} {fi}");
            }
        }
        // Against measurements, loosely: the bounds catch a unit slip (2π, eV → Hz, the
        // sign convention: loss is Im ε < 0 with exp(+jωt)), not the fit's accuracy. Gold
        // at 1.55 eV (800 nm): the fit gives −20.3 − 2.1j, Johnson & Christy measure
        // −22.9 − 1.4j. Silver at 2.0 eV (620 nm): Johnson & Christy −17.2 − 0.5j.
        let (re, im) = material("gold").unwrap().eps_at(TAU * 1.55 * HZ_PER_EV).unwrap();
        assert!((-30.0..-15.0).contains(&re) && (-4.0..-0.3).contains(&im), "{re} {im}");
        let (re, im) = material("silver").unwrap().eps_at(TAU * 2.0 * HZ_PER_EV).unwrap();
        assert!((-25.0..-12.0).contains(&re) && (-3.0..0.0).contains(&im), "{re} {im}");
    }

    #[test]
    fn water_at_20_c_is_the_ulaby_long_debye() {
        let (inf, d, tau) = water_debye(20.0);
        // εs = 80.09 and τ = 9.28 ps at 20 °C.
        assert!((inf + d - 80.09).abs() < 0.01, "{}", inf + d);
        assert!((tau - 9.276e-12).abs() < 2e-15, "{tau}");
        let m = material("water").unwrap();
        // By hand from the Debye formula: 79.84 − 4.37j at 1 GHz, 61.0 − 32.7j at 10 GHz
        // (measured pure water at 20 °C: about 80 − 4.5j and 62 − 31j).
        let (re, im) = m.eps_at(TAU * 1e9).unwrap();
        assert!((re - 79.84).abs() < 0.02 && (im + 4.37).abs() < 0.02, "{re} {im}");
        let (re, im) = m.eps_at(TAU * 10e9).unwrap();
        assert!((re - 61.0).abs() < 0.1 && (im + 32.7).abs() < 0.1, "{re} {im}");
    }

    #[test]
    fn names_are_all_in_the_library() {
        for n in NAMES {
            assert!(material(n).is_some(), "{n}");
        }
        assert!(material("glass").is_none());
    }

    fn scene(extra: &str, cell: f64) -> Result<crate::Scene, String> {
        let text = format!(
            "[domain]\ncell = {cell}\ncells = [40, 40, 40]\n[time]\nsteps = 10\n{extra}\n[[objects]]\nshape = \"box\"\n\
             material = \"water\"\nmin = [0, 0, 0]\nmax = [{h}, {h}, {h}]\n",
            h = 10.0 * cell
        );
        crate::Scene::parse(&text, "s.toml").map_err(|e| e.to_string())
    }

    #[test]
    fn a_scene_uses_a_library_name_and_its_own_table_wins() {
        let s = scene("", 1e-3).unwrap();
        let m = &s.materials[s.objects[0].material];
        assert_eq!(m.name, "water");
        assert_eq!(m.poles.len(), 1);
        let s = scene("[materials.water]\neps_r = 81", 1e-3).unwrap();
        let m = &s.materials[s.objects[0].material];
        assert!(m.poles.is_empty() && matches!(m.kind, MaterialKind::Dielectric { eps_r, .. } if eps_r == 81.0));
    }

    #[test]
    fn an_optical_metal_on_a_microwave_grid_is_refused_with_the_reason() {
        let text = "[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[objects]]\nshape = \"box\"\n\
                    material = \"gold\"\nmin = [0, 0, 0]\nmax = [0.01, 0.01, 0.01]\n";
        let err = crate::Scene::parse(text, "s.toml").unwrap_err().to_string();
        assert!(
            err.contains("objects[0].material") && err.contains("material \"gold\", pole 0"),
            "{err}"
        );
        assert!(err.contains("optical fit") && err.contains("\"pec\""), "{err}");
        // On a 2 nm grid (dt ≈ 3.9e-18 s) gold is accepted with its six poles.
        let text = text.replace("cell = 1e-3", "cell = 2e-9").replace("0.01", "1e-8");
        let s = crate::Scene::parse(&text, "s.toml").unwrap();
        assert_eq!(s.materials[s.objects[0].material].poles.len(), 6);
        // An unknown name suggests the library's.
        let err = crate::Scene::parse(&text.replace("\"gold\"", "\"silvr\""), "s.toml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("did you mean \"silver\"?"), "{err}");
    }
}

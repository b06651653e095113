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
//! - `soil_dry`, `soil_10pct`, `soil_20pct`: Peplinski, Ulaby & Dobson, IEEE TGRS 33(3),
//!   803 (1995), 0.3–1.3 GHz, for gprMax's example soil (50 % sand, 50 % clay, bulk
//!   density 2.0 g/cm³, particle density 2.66 g/cm³) at volumetric water content 0.01,
//!   0.10, 0.20: one Debye pole at water's τ and a conductivity carry the model's ε''
//!   exactly (as gprMax's `#soil_peplinski` does), ε∞ is the least-squares fit of ε' over
//!   0.3–1.3 GHz ([`soil_debye`], computed at lookup).
//! - `dry_sand`: ε = 4, σ = 0.01 mS/m, the middle of Davis & Annan, Geophys. Prospect.
//!   37, 531 (1989), Table 1 (ε 3–5): no dispersion.
//! - `concrete`: ITU-R P.2040 Table 3 (ε' = 5.24, σ = 0.0462·f^0.7822 S/m, f in GHz,
//!   1–100 GHz), fitted over 1–3 GHz with one Debye pole + σ by
//!   `scripts/fit-library-materials.py`.
//! - `fr4`: the Djordjevic–Sarkar wideband model (IEEE Trans. EMC 43(4), 662 (2001)) with
//!   ε' = 4.3, tan δ = 0.02 at 1 GHz, ω1 = 2π·1 kHz, ω2 = 2π·1 THz, fitted over
//!   0.1–10 GHz by 9 Debye poles (two a decade, 10 MHz–100 GHz) by the same script.
use crate::{Material, MaterialKind, Pole};

/// Hz per eV (e/h).
const HZ_PER_EV: f64 = 2.417_989_242e14;

/// The names the library holds.
pub const NAMES: [&str; 11] = [
    "water",
    "gold",
    "silver",
    "copper",
    "aluminium",
    "soil_dry",
    "soil_10pct",
    "soil_20pct",
    "dry_sand",
    "concrete",
    "fr4",
];

/// The soils' volumetric water content mv (m³/m³), by name.
pub const SOILS: [(&str, f64); 3] = [("soil_dry", 0.01), ("soil_10pct", 0.10), ("soil_20pct", 0.20)];

/// The soil of the Peplinski soils: sand and clay mass fractions, bulk density ρb and
/// particle density ρs (g/cm³), gprMax's example (`#soil_peplinski: 0.5 0.5 2.0 2.66 ...`).
const SOIL: (f64, f64, f64, f64) = (0.5, 0.5, 2.0, 2.66);

/// The band the soils' ε∞ is fitted over and the Peplinski model holds in (Hz).
pub const SOIL_BAND: (f64, f64) = (0.3e9, 1.3e9);

/// ε' of Peplinski et al. (1995) eq. for 0.3–1.3 GHz at angular frequency `w` for
/// water content `mv`: 1.15·[1 + (ρb/ρs)(εs^α − 1) + mv^β′·ε′fw^α − mv]^(1/α) − 0.68, with
/// α = 0.65, εs = (1.01 + 0.44ρs)² − 0.062, β′ = 1.2748 − 0.519S − 0.152C and ε′fw the
/// real part of the library's water at 20 °C.
pub fn peplinski_re(mv: f64, w: f64) -> f64 {
    let (s, c, rb, rs) = SOIL;
    let a = 0.65;
    let es = (1.01 + 0.44 * rs).powi(2) - 0.062;
    let b1 = 1.2748 - 0.519 * s - 0.152 * c;
    let (inf, d, tau) = water_debye(20.0);
    let efw = inf + d / (1.0 + (w * tau).powi(2));
    let x = 1.0 + rb / rs * (es.powf(a) - 1.0) + mv.powf(b1) * efw.powf(a) - mv;
    1.15 * x.powf(1.0 / a) - 0.68
}

/// The soil with water content `mv` as (ε∞, Δε, τ, σ): Peplinski's
/// ε'' = mv^(β″/α)·ε″fw, with ε″fw = water's Debye loss + σeff(ρs − ρb)/(ωε0ρs·mv) and
/// σeff = 0.0467 + 0.2204ρb − 0.4111S + 0.6614C (0.3–1.3 GHz), is exactly a Debye pole at
/// water's τ with Δε = mv^(β″/α)·Δεw plus σ = mv^(β″/α)·σeff(ρs − ρb)/(ρs·mv); ε∞ is the
/// least-squares fit of that pole's ε' to [`peplinski_re`] on 101 log-spaced frequencies
/// of [`SOIL_BAND`] (gprMax instead matches ε' at 1.3 GHz).
pub fn soil_debye(mv: f64) -> (f64, f64, f64, f64) {
    let (s, c, rb, rs) = SOIL;
    let b2 = 1.33797 - 0.603 * s - 0.166 * c;
    let scale = mv.powf(b2 / 0.65);
    let (_, dw, tau) = water_debye(20.0);
    let sigma_eff = 0.0467 + 0.2204 * rb - 0.4111 * s + 0.6614 * c;
    let (delta_eps, sigma) = (scale * dw, scale * sigma_eff * (rs - rb) / (rs * mv));
    let n = 101;
    let (lo, hi) = (SOIL_BAND.0.ln(), SOIL_BAND.1.ln());
    let mean = (0..n)
        .map(|i| {
            let w = std::f64::consts::TAU * (lo + (hi - lo) * i as f64 / (n - 1) as f64).exp();
            peplinski_re(mv, w) - delta_eps / (1.0 + (w * tau).powi(2))
        })
        .sum::<f64>()
        / n as f64;
    (mean, delta_eps, tau, sigma)
}

/// Concrete: ε∞, (Δε, τ) and σ, fitted to ITU-R P.2040 Table 3 over 1–3 GHz by
/// `scripts/fit-library-materials.py`.
const CONCRETE: (f64, (f64, f64), f64) = (1.006717540, (4.254027634, 5.834239203e-12), 0.04170434691);

/// FR-4: ε∞ and the Debye amplitudes at 10^(7 + k/2) Hz, k = 0..8, fitted to the
/// Djordjevic–Sarkar model over 0.1–10 GHz by `scripts/fit-library-materials.py`.
const FR4: (f64, [f64; 9]) = (
    4.009107824,
    [
        0.06755929872,
        0.07065863333,
        0.06366764983,
        0.06264204898,
        0.06338532274,
        0.06263922696,
        0.06369676196,
        0.07049631411,
        0.06236773898,
    ],
);

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
        "dry_sand" => (
            MaterialKind::Dielectric {
                eps_r: 4.0,
                mu_r: 1.0,
                sigma: 1e-5,
            },
            vec![],
        ),
        "concrete" => {
            let (inf, (delta_eps, tau), sigma) = CONCRETE;
            let kind = MaterialKind::Dielectric {
                eps_r: inf,
                mu_r: 1.0,
                sigma,
            };
            (kind, vec![Pole::Debye { delta_eps, tau }])
        }
        "fr4" => {
            let poles = (FR4.1.iter().enumerate())
                .map(|(k, &delta_eps)| Pole::Debye {
                    delta_eps,
                    tau: 1.0 / (std::f64::consts::TAU * 10f64.powf(7.0 + k as f64 / 2.0)),
                })
                .collect();
            (dielectric(FR4.0), poles)
        }
        _ => {
            let &(_, mv) = SOILS.iter().find(|(n, _)| *n == name)?;
            let (inf, delta_eps, tau, sigma) = soil_debye(mv);
            let kind = MaterialKind::Dielectric {
                eps_r: inf,
                mu_r: 1.0,
                sigma,
            };
            (kind, vec![Pole::Debye { delta_eps, tau }])
        }
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

    /// `n` log-spaced frequencies (Hz) from `lo` to `hi`.
    fn band(lo: f64, hi: f64, n: usize) -> impl Iterator<Item = f64> {
        (0..n).map(move |i| lo * (hi / lo).powf(i as f64 / (n - 1) as f64))
    }

    /// ε = ε' − jε'' of Peplinski, Ulaby & Dobson (1995) for 0.3–1.3 GHz, written out
    /// from the paper for this test: the soil of `SOIL`, water at 20 °C (library water).
    fn peplinski(mv: f64, f: f64) -> (f64, f64) {
        let (s, c, rb, rs) = (0.5, 0.5, 2.0, 2.66);
        let (a, w) = (0.65, TAU * f);
        let (inf, d, tau) = water_debye(20.0);
        let sigma_eff = 0.0467 + 0.2204 * rb - 0.4111 * s + 0.6614 * c;
        let efw_re = inf + d / (1.0 + (w * tau).powi(2));
        let efw_im = w * tau * d / (1.0 + (w * tau).powi(2)) + sigma_eff / (w * crate::EPS0) * (rs - rb) / (rs * mv);
        let es = (1.01 + 0.44 * rs).powi(2) - 0.062;
        let (b1, b2) = (1.2748 - 0.519 * s - 0.152 * c, 1.33797 - 0.603 * s - 0.166 * c);
        let re = 1.15 * (1.0 + rb / rs * (es.powf(a) - 1.0) + mv.powf(b1) * efw_re.powf(a) - mv).powf(1.0 / a) - 0.68;
        let im = (mv.powf(b2) * efw_im.powf(a)).powf(1.0 / a);
        (re, -im)
    }

    /// Max relative error of the library's `name` against `source` (ε' and ε'') over
    /// `lo`–`hi` Hz, and of |ε|.
    fn worst(name: &str, lo: f64, hi: f64, source: impl Fn(f64) -> (f64, f64)) -> [f64; 3] {
        let m = material(name).unwrap();
        let mut e = [0.0f64; 3];
        for f in band(lo, hi, 401) {
            let (re, im) = m.eps_at(TAU * f).unwrap();
            let (sr, si) = source(f);
            e[0] = e[0].max((re - sr).abs() / sr.abs());
            e[1] = e[1].max((im - si).abs() / si.abs());
            e[2] = e[2].max((re - sr).hypot(im - si) / sr.hypot(si));
        }
        e
    }

    #[test]
    fn soils_hold_the_peplinski_model_in_its_band() {
        for (name, mv) in SOILS {
            let e = worst(name, SOIL_BAND.0, SOIL_BAND.1, |f| peplinski(mv, f));
            let wide = worst(name, 0.1e9, 2e9, |f| peplinski(mv, f));
            let m = material(name).unwrap();
            eprintln!(
                "{name}: {:?} {:?}; 0.3-1.3 GHz {e:?}, 0.1-2 GHz {wide:?}",
                m.kind, m.poles
            );
            // ε'' is the model's exactly; ε' is a one-parameter fit: measured ≤ 0.083 % in
            // the band (≤ 0.25 % over 0.1–2 GHz, where the model is extrapolated).
            assert!(e[0] < 0.002 && e[1] < 1e-9 && wide[0] < 0.005, "{name}: {e:?} {wide:?}");
            assert!(m.poles.len() == 1);
        }
        // By hand from the formulas, soil_10pct at 1 GHz: εs^α = 2.731, mv^β′ = 0.1150,
        // ε′fw^α = 79.84^0.65 = 17.24, so ε' = 1.15·4.185^(1/0.65) − 0.68 = 9.72; ε'' =
        // 0.1^1.467·(4.37 + 27.31) = 1.08 (water's loss + the σeff term).
        let (re, im) = peplinski(0.10, 1e9);
        assert!((re - 9.72).abs() < 0.01 && (im + 1.08).abs() < 0.01, "{re} {im}");
        let (re, im) = material("soil_10pct").unwrap().eps_at(TAU * 1e9).unwrap();
        assert!((re - 9.72).abs() < 0.02 && (im + 1.08).abs() < 0.01, "{re} {im}");
    }

    /// ε of Djordjevic–Sarkar FR-4 (εr 4.3, tan δ 0.02 at 1 GHz, ω1 = 2π·1 kHz,
    /// ω2 = 2π·1 THz): ε∞ + k·log10((ω2 + jω)/(ω1 + jω)), k = Δε/(m2 − m1).
    fn djordjevic_sarkar(f: f64) -> (f64, f64) {
        use num_complex::Complex64 as C;
        let (w1, w2) = (TAU * 1e3, TAU * 1e12);
        let l = |f: f64| (C::new(w2, TAU * f) / C::new(w1, TAU * f)).log10();
        let k = -(4.3 * 0.02) / l(1e9).im;
        let inf = 4.3 - k * l(1e9).re;
        let e = inf + k * l(f);
        (e.re, e.im)
    }

    #[test]
    fn fr4_holds_djordjevic_sarkar_from_100_mhz_to_10_ghz() {
        let (re, im) = djordjevic_sarkar(1e9);
        assert!((re - 4.3).abs() < 1e-12 && (im + 0.086).abs() < 1e-12);
        let e = worst("fr4", 1e8, 1e10, djordjevic_sarkar);
        eprintln!("fr4: {e:?}");
        // The 0.5 % on |ε|; measured 1.6e-4 (ε'' within 0.09 %, so tan δ too).
        assert!(e[2] < 0.005 && e[0] < 5e-4 && e[1] < 2e-3, "{e:?}");
    }

    #[test]
    fn concrete_holds_itu_r_p2040_from_1_to_3_ghz() {
        let itu = |f: f64| (5.24, -0.0462 * (f / 1e9).powf(0.7822) / (TAU * f * crate::EPS0));
        let e = worst("concrete", 1e9, 3e9, itu);
        eprintln!("concrete: {e:?}");
        // Measured: ε' 0.6 %, ε'' 9 % (one pole cannot follow ITU's σ ∝ f^0.78 exactly).
        assert!(e[0] < 0.01 && e[1] < 0.1 && e[2] < 0.02, "{e:?}");
        let (re, im) = material("dry_sand").unwrap().eps_at(TAU * 1e8).unwrap();
        assert!(re == 4.0 && (-2e-3..0.0).contains(&im), "{re} {im}");
    }

    #[test]
    fn every_library_material_is_passive_from_1_mhz_to_100_ghz() {
        for n in NAMES {
            let m = material(n).unwrap();
            for f in band(1e6, 1e11, 201) {
                let (re, im) = m.eps_at(TAU * f).unwrap();
                assert!(im <= 0.0 && re.is_finite(), "{n} at {f} Hz: {re} {im}");
            }
        }
    }

    #[test]
    fn the_rf_materials_parse_on_a_1_mm_grid() {
        // dt ≈ 1.9 ps: fr4's fastest pole (100 GHz, τ = 1.6 ps) has rate·dt ≈ 1.2 ≤ 2.
        for n in ["soil_dry", "soil_10pct", "soil_20pct", "dry_sand", "concrete", "fr4"] {
            let s = scene_of(n, "", 1e-3).unwrap_or_else(|e| panic!("{n}: {e}"));
            assert_eq!(s.materials[s.objects[0].material].name, n);
        }
        // A misspelt one is suggested.
        let err = scene_of("soil_10pc", "", 1e-3).unwrap_err();
        assert!(err.contains("did you mean \"soil_10pct\"?"), "{err}");
    }

    #[test]
    fn a_gpr_scene_with_a_soil_and_a_board_parses_with_their_poles() {
        // Both library names in one scene (1 mm cells, dt ≈ 1.9 ps), each added once.
        let text = "[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n\
                    [[objects]]\nshape = \"box\"\nmaterial = \"soil_10pct\"\nmin = [0, 0, 0]\nmax = [0.04, 0.04, 0.02]\n\
                    [[objects]]\nshape = \"box\"\nmaterial = \"fr4\"\nmin = [0.01, 0.01, 0.025]\nmax = [0.03, 0.03, 0.027]\n\
                    [[objects]]\nshape = \"box\"\nmaterial = \"soil_10pct\"\nmin = [0, 0, 0.03]\nmax = [0.01, 0.01, 0.04]\n";
        let s = crate::Scene::parse(text, "s.toml").unwrap();
        let (soil, board) = (&s.materials[s.objects[0].material], &s.materials[s.objects[1].material]);
        assert_eq!(s.objects[0].material, s.objects[2].material);
        assert_eq!((soil.name.as_str(), soil.poles.len()), ("soil_10pct", 1));
        assert_eq!((board.name.as_str(), board.poles.len()), ("fr4", 9));
        let (re, im) = board.eps_at(TAU * 1e9).unwrap();
        assert!((re - 4.3).abs() < 2e-3 && (im + 0.086).abs() < 2e-4, "{re} {im}");
        // On 2 mm cells (dt ≈ 3.9 ps) fr4's 100 GHz pole is refused with its limit.
        let err = crate::Scene::parse(&text.replace("cell = 1e-3", "cell = 2e-3"), "s.toml")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("material \"fr4\", pole 8") && err.contains("objects[1].material"),
            "{err}"
        );
    }

    #[test]
    fn names_are_all_in_the_library() {
        for n in NAMES {
            assert!(material(n).is_some(), "{n}");
        }
        assert!(material("glass").is_none());
    }

    fn scene(extra: &str, cell: f64) -> Result<crate::Scene, String> {
        scene_of("water", extra, cell)
    }

    fn scene_of(name: &str, extra: &str, cell: f64) -> Result<crate::Scene, String> {
        let text = format!(
            "[domain]\ncell = {cell}\ncells = [40, 40, 40]\n[time]\nsteps = 10\n{extra}\n[[objects]]\nshape = \"box\"\n\
             material = \"{name}\"\nmin = [0, 0, 0]\nmax = [{h}, {h}, {h}]\n",
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

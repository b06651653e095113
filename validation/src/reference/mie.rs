//! Mie series: plane-wave scattering by a homogeneous sphere in vacuum, the reference for
//! FDTD cross sections (extinction, scattering, absorption; the monostatic RCS of a PEC
//! sphere).
//!
//! The recurrences are Bohren & Huffman's BHMIE (*Absorption and Scattering of Light by
//! Small Particles*, 1983, appendix A): the Riccati–Bessel functions ψ_n(x), χ_n(x) by
//! upward recurrence from n = 0, the logarithmic derivative D_n(mx) = ψ_n'(mx)/ψ_n(mx)
//! by *downward* recurrence from n_mx = max(n_stop, |mx|) + 15 (stable for absorbing
//! spheres), and n_stop = x + 4·x^{1/3} + 2 terms (Wiscombe's criterion). With
//! ξ_n = ψ_n − iχ_n:
//!
//! ```text
//! a_n = [(D_n/m + n/x)·ψ_n − ψ_{n−1}] / [(D_n/m + n/x)·ξ_n − ξ_{n−1}]
//! b_n = [(m·D_n + n/x)·ψ_n − ψ_{n−1}] / [(m·D_n + n/x)·ξ_n − ξ_{n−1}]
//! Q_ext = (2/x²) Σ (2n+1) Re(a_n + b_n)     Q_sca = (2/x²) Σ (2n+1)(|a_n|² + |b_n|²)
//! Q_back = (1/x²) |Σ (2n+1)(−1)^n (a_n − b_n)|²
//! ```
//!
//! Q_abs = Q_ext − Q_sca; a cross section is σ = Q·πa². The monostatic radar cross
//! section is σ_b = Q_back·πa² (= 4π|S₁(π)|²/k²). A perfect conductor is the limit
//! m → ∞: a_n = ψ_n'(x)/ξ_n'(x), b_n = ψ_n(x)/ξ_n(x).
//!
//! Conventions: x = k·a = 2πf·a/c; the relative permittivity is ε = ε' + iε'' with ε'' ≥ 0
//! for a lossy sphere (B&H's e^{−iωt}); an engineer's ε' − jε'' (e^{jωt}) is the same
//! sphere with the same ε''. [`permittivity`] makes it from ε_r and σ at a frequency.
use num_complex::Complex64 as C;
use std::f64::consts::PI;

const EPS0: f64 = 8.854_187_812_8e-12;
const C0: f64 = 299_792_458.0;

/// What the series gives for one sphere at one size parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Efficiencies {
    /// Size parameter x = k·a.
    pub x: f64,
    pub q_ext: f64,
    pub q_sca: f64,
    /// Q_ext − Q_sca (0 for a lossless sphere, to rounding).
    pub q_abs: f64,
    /// Backscattering efficiency: the monostatic RCS over πa².
    pub q_back: f64,
    /// Terms summed.
    pub terms: usize,
}

/// The sphere's material.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sphere {
    /// Relative permittivity ε' + iε'' (μ = 1).
    Dielectric(C),
    /// Perfect electric conductor.
    Pec,
}

/// ε' + iε'' of a material with relative permittivity `eps_r` and conductivity `sigma`
/// (S/m) at frequency `f` (Hz): ε'' = σ/(2πf·ε0).
pub fn permittivity(eps_r: f64, sigma: f64, f: f64) -> C {
    C::new(eps_r, sigma / (2.0 * PI * f * EPS0))
}

/// Size parameter k·a of a sphere of radius `a` (m) at frequency `f` (Hz) in vacuum.
pub fn size_parameter(a: f64, f: f64) -> f64 {
    2.0 * PI * f * a / C0
}

/// Number of terms: x + 4·x^{1/3} + 2 (Wiscombe 1980; B&H's BHMIE).
pub fn terms(x: f64) -> usize {
    (x + 4.0 * x.cbrt() + 2.0).floor() as usize
}

/// The Mie efficiencies of `sphere` at size parameter `x` (> 0).
pub fn efficiencies(sphere: Sphere, x: f64) -> Efficiencies {
    assert!(x > 0.0 && x.is_finite(), "size parameter must be > 0 (got {x})");
    let nstop = terms(x);
    // D_n(mx) by downward recurrence (dielectric only).
    let d = match sphere {
        Sphere::Dielectric(eps) => {
            let m = eps.sqrt();
            let y = m * x;
            let nmx = (nstop as f64).max(y.norm()).ceil() as usize + 15;
            let mut d = vec![C::new(0.0, 0.0); nmx + 1];
            for n in (2..=nmx).rev() {
                let r = n as f64 / y;
                d[n - 1] = r - 1.0 / (d[n] + r);
            }
            Some((m, d))
        }
        Sphere::Pec => None,
    };
    let (mut psi0, mut psi1) = (x.cos(), x.sin());
    let (mut chi0, mut chi1) = (-x.sin(), x.cos());
    let mut xi1 = C::new(psi1, -chi1);
    let (mut q_ext, mut q_sca) = (0.0, 0.0);
    let mut back = C::new(0.0, 0.0);
    for n in 1..=nstop {
        let nf = n as f64;
        let psi = (2.0 * nf - 1.0) / x * psi1 - psi0;
        let chi = (2.0 * nf - 1.0) / x * chi1 - chi0;
        let xi = C::new(psi, -chi);
        let (an, bn) = match &d {
            Some((m, d)) => {
                let ta = d[n] / m + nf / x;
                let tb = d[n] * m + nf / x;
                ((ta * psi - psi1) / (ta * xi - xi1), (tb * psi - psi1) / (tb * xi - xi1))
            }
            None => {
                let t = nf / x;
                ((t * psi - psi1) / (t * xi - xi1), psi / xi)
            }
        };
        let w = 2.0 * nf + 1.0;
        q_ext += w * (an + bn).re;
        q_sca += w * (an.norm_sqr() + bn.norm_sqr());
        let sign = if n % 2 == 0 { 1.0 } else { -1.0 };
        back += w * sign * (an - bn);
        psi0 = psi1;
        psi1 = psi;
        chi0 = chi1;
        chi1 = chi;
        xi1 = C::new(psi1, -chi1);
    }
    let x2 = x * x;
    let (q_ext, q_sca) = (2.0 * q_ext / x2, 2.0 * q_sca / x2);
    Efficiencies {
        x,
        q_ext,
        q_sca,
        q_abs: q_ext - q_sca,
        q_back: back.norm_sqr() / x2,
        terms: nstop,
    }
}

/// Cross sections (m²) of a sphere of radius `a` (m) at frequency `f` (Hz):
/// (σ_ext, σ_sca, σ_abs, σ_back), each Q·πa². `eps` gives the permittivity at `f`
/// (a dispersive or lossy sphere: [`permittivity`]); `None` for a perfect conductor.
pub fn cross_sections(a: f64, f: f64, eps: Option<C>) -> [f64; 4] {
    let sphere = eps.map_or(Sphere::Pec, Sphere::Dielectric);
    let q = efficiencies(sphere, size_parameter(a, f));
    let g = PI * a * a;
    [q.q_ext * g, q.q_sca * g, q.q_abs * g, q.q_back * g]
}

/// The monostatic radar cross section (m²) of a PEC sphere of radius `a` at `f`.
pub fn pec_rcs(a: f64, f: f64) -> f64 {
    cross_sections(a, f, None)[3]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    /// B&H appendix A's worked example (BHMIE, m = 1.55, x = 2π·0.525/0.6328 = 5.213):
    /// Q_ext = Q_sca = 3.10543, Q_back = 2.92534 (the printed output, 5 decimals).
    #[test]
    fn bhmie_worked_example() {
        let x = 2.0 * PI * 0.525 / 0.6328;
        let q = efficiencies(Sphere::Dielectric(C::new(1.55 * 1.55, 0.0)), x);
        assert!((q.q_ext - 3.10543).abs() < 2e-5, "{q:?}");
        assert!((q.q_sca - 3.10543).abs() < 2e-5, "{q:?}");
        assert!((q.q_back - 2.92534).abs() < 2e-5, "{q:?}");
        // Lossless: nothing absorbed, to rounding.
        assert!(q.q_abs.abs() < 1e-12, "{q:?}");
        assert_eq!(q.terms, 14); // 5.213 + 4·1.734 + 2
    }

    /// The Rayleigh limit x ≪ 1: Q_sca = (8/3)x⁴|K|², Q_abs = 4x·Im K, K = (ε−1)/(ε+2);
    /// the next terms are O(x²) relative, 1e-4 at x = 0.01.
    #[test]
    fn rayleigh_limit() {
        let eps = C::new(2.25, 0.3);
        let k = (eps - 1.0) / (eps + 2.0);
        let x = 0.01;
        let q = efficiencies(Sphere::Dielectric(eps), x);
        assert!(rel(q.q_sca, 8.0 / 3.0 * x.powi(4) * k.norm_sqr()) < 1e-3, "{q:?}");
        assert!(rel(q.q_abs, 4.0 * x * k.im) < 1e-3, "{q:?}");
        // PEC: Q_sca = (10/3)x⁴, Q_back = 9x⁴ (electric and magnetic dipoles, 1 and −½).
        let q = efficiencies(Sphere::Pec, x);
        assert!(rel(q.q_sca, 10.0 / 3.0 * x.powi(4)) < 1e-3, "{q:?}");
        assert!(rel(q.q_back, 9.0 * x.powi(4)) < 1e-3, "{q:?}");
        assert!(q.q_abs.abs() < 1e-3 * q.q_sca, "{q:?}");
    }

    /// The PEC sphere's monostatic RCS: the first (resonance) maximum of σ_b/πa² ≈ 3.65
    /// near ka ≈ 1 (Ruck et al., *Radar Cross Section Handbook*, 1970, fig. 3-6; Knott,
    /// *Radar Cross Section*, fig. 5.7), and the optical limit σ_b → πa² (ka = 200: the
    /// creeping wave's ripple is down to ~1 %).
    #[test]
    fn pec_sphere_rcs() {
        let q1 = efficiencies(Sphere::Pec, 1.0).q_back;
        // 3.6376 here; the handbook curves read 3.6–3.7 at ka = 1.
        assert!((3.60..3.68).contains(&q1), "{q1}");
        let peak = (800..1200)
            .map(|i| efficiencies(Sphere::Pec, i as f64 * 1e-3))
            .max_by(|a, b| a.q_back.total_cmp(&b.q_back))
            .unwrap();
        // 3.655 at ka = 1.028 here.
        assert!(
            (3.63..3.68).contains(&peak.q_back) && (0.98..1.08).contains(&peak.x),
            "{peak:?}"
        );
        let q = efficiencies(Sphere::Pec, 200.0);
        // 0.99992 and Q_ext 2.0047 here.
        assert!((q.q_back - 1.0).abs() < 0.02, "{q:?}");
        // Extinction paradox: Q_ext → 2 for a large opaque sphere.
        assert!((q.q_ext - 2.0).abs() < 0.02, "{q:?}");
        // In metres: a 10 cm sphere at ka = 1.
        let a = 0.1;
        let f = C0 / (2.0 * PI * a);
        assert!(rel(pec_rcs(a, f), q1 * PI * a * a) < 1e-12);
    }

    /// A large absorbing sphere: Q_ext → 2, Q_abs → 1 − (reflectance) as x → ∞; and a
    /// lossy sphere's absorption is positive at every size.
    #[test]
    fn large_and_lossy_spheres() {
        let eps = C::new(1.33, 0.1).powi(2);
        let q = efficiencies(Sphere::Dielectric(eps), 1000.0);
        assert!((q.q_ext - 2.0).abs() < 0.02, "{q:?}");
        assert!(q.q_abs > 0.8 && q.q_abs < 1.0, "{q:?}");
        for x in [0.1, 1.0, 3.0, 10.0, 30.0] {
            let q = efficiencies(Sphere::Dielectric(permittivity(4.0, 0.05, 1e9)), x);
            assert!(q.q_abs > 0.0 && q.q_sca > 0.0, "{q:?}");
        }
    }
}

//! Method-of-moments reference for the input impedance of a thin-wire dipole.
//!
//! An independent (non-FDTD) solution for a straight, centre-fed, perfectly conducting
//! dipole of total length `L` and radius `a` in free space, fed by a voltage gap at its
//! centre. Phasors are e^{+jωt}; `Z_in = V/I` with `I` the current into the upper arm, so
//! `R > 0` and a short dipole is capacitive (`X < 0`).
//!
//! # Formulation
//!
//! * **Equation.** The electric-field integral equation (Pocklington) in mixed-potential
//!   form on the surface of the wire, `E_z^scat = −jωA_z − ∂Φ/∂z = −E_z^inc`, with the
//!   **exact (tube) kernel**: the current `I(z)` flows on the surface `ρ = a` and the field
//!   is tested on the same surface,
//!   `K(z) = 1/(4π)·1/(2π) ∫₀^{2π} e^{−jkR}/R dφ`, `R = √(z² + 4a² sin²(φ/2))`.
//!   Unlike the reduced kernel (current on the axis), which makes the problem ill-posed
//!   once segments get shorter than about the radius, the exact kernel gives a well-posed
//!   problem at any segment length.
//! * **Discretisation.** `N` (even) equal segments, triangular (rooftop) basis functions on
//!   the `N − 1` interior nodes (so `I = 0` at the open ends) and **Galerkin** testing:
//!   `Z_mn = jωμ0 ∫∫Λ_m Λ_n K + 1/(jωε0) ∫∫Λ'_m Λ'_n K` (the charge term by parts). The
//!   segment-pair integrals reduce to one-dimensional integrals of `K` against the
//!   autocorrelation of the basis halves. `K` is split into its static part, in closed form
//!   `1/(4π)·(2/π)·K_ell(m)/√(z²+4a²)` (complete elliptic integral, `m = 4a²/(z²+4a²)`, by
//!   the arithmetic–geometric mean), and the smooth remainder `(e^{−jkR} − 1)/R`, integrated
//!   over φ by 16-point Gauss–Legendre. The logarithmic singularity of the self and
//!   adjacent terms is integrated with 8-point Gauss–Legendre on panels graded
//!   geometrically (×½, 40 levels) towards it, so the entries are accurate to ~1e-12 at
//!   any `Δ/a`. The matrix is Toeplitz (straight wire, uniform segments); the system is
//!   folded by the symmetry `I(z) = I(−z)` and solved by Gaussian elimination.
//! * **Feed.** A band generator: a uniform field `E_z^inc = V/g` on `|z| < g/2`
//!   ([`dipole_impedance_gap`]), or a delta gap `E_z^inc = V·δ(z)` for `g = 0`
//!   ([`dipole_impedance`]). The admittance is the reaction `Y = Σ_m V_m I_m / V²`
//!   (variational; for the delta gap it is the feed-node current).
//!
//! # Accuracy (measured by the tests below)
//!
//! * **Delta gap.** With the exact kernel a zero-width gap has infinite capacitance: the
//!   current has a logarithmic singularity at the gap (G. Fikioris and T. T. Wu, "On the
//!   application of numerical methods to Hallén's equation", IEEE Trans. Antennas Propag.
//!   49(3), 2001), so the computed susceptance grows without bound with `N`. Near the gap the
//!   field is that of a slit in a thin tube, `E = V/(π|z|)` on both faces, i.e. a line
//!   charge `4ε0aV/|z|`, and `B` grows by `4ka·ln 2/η0` per doubling of `N` — which the
//!   solver reproduces to 1 % (`delta_gap_susceptance_grows_like_the_slit_capacitance`).
//!   Negligible for thin wires (`L/a ≥ 1000` at `L ≈ λ/2`: < 0.1 % per doubling), decisive
//!   for thick ones (`L/a = 50`: 5 % per doubling). Use a finite gap for anything thick, and
//!   the FDTD's actual gap (one cell) when comparing with the FDTD.
//! * **Finite gap.** Converges; the open ends of the tube (edge singularity) make the
//!   convergence first order in `1/N` once segments reach the radius. At resonance, `Z`
//!   changes by 0.24 % (`L/a = 100`) and 0.33 % (`L/a = 1000`) from `N = 400` to 800, half
//!   that from 800 to 1600 (gap = one diameter).
//! * **Thin limit.** At `L = λ/2` the impedance tends, logarithmically slowly, to the
//!   induced-EMF value of an infinitely thin wire with a sinusoidal current,
//!   `30[γ + ln 2π − Ci 2π] + j·30·Si 2π = 73.08 + j42.51 Ω`
//!   (e.g. S. J. Orfanidis, *Electromagnetic Waves and Antennas*, toolbox `imped.m`:
//!   `imped(0.5, 0) = 73.079 + 42.515j`). The deviation of the true current from the
//!   sinusoid is first order in Hallén's thickness parameter `1/Ω`, `Ω = 2 ln(L/a)`, with a
//!   coefficient of order 100 Ω: here `79.6 + j45.4 Ω` at `L/a = 1e4` (Ω = 18.4),
//!   `77.7 + j44.5` at `1e5` (Ω = 23), `74.6 + j43.1` at `1e12` (Ω = 55).
//! * **Resonance** (first `X = 0`, gap = one diameter, `N = 400`):
//!
//!   | L/a   | L/λ at resonance | R_res (Ω) |
//!   |-------|------------------|-----------|
//!   | 50    | 0.4567           | 73.95     |
//!   | 100   | 0.4632           | 72.80     |
//!   | 1000  | 0.4783           | 71.99     |
//!   | 1e4   | 0.4851           | 72.09     |
//!   | 1e6   | 0.4908           | 72.35     |
//!   | 1e12  | 0.4957           | 72.70     |
//!
//!   The shortening `0.5 − L/λ ≈ 0.25/Ω` vanishes logarithmically as `a → 0`, and `R_res`
//!   tends to 73.1 Ω. For thin wires this is the textbook picture (resonant length
//!   "typically 0.47λ to 0.48λ", shorter for thicker wires: e.g. learnemc.com, *EMC
//!   question of the week*, 14 June 2021; the ARRL "K factor" chart, L. B. Cebik,
//!   *Calibrating K to NEC*; `R_res ≈ 72 Ω` for a thin resonant dipole, as NEC gives).
//!   For thick wires (`L/a ≲ 200`) `R_res` depends on the feed region: a narrower gap adds
//!   shunt capacitance, which moves the zero of `X` up in frequency and raises `R_res`
//!   (`L/a = 50`: 77.3 Ω for a gap of a/2, 72.7 Ω for 8a). The exact-kernel model does
//!   **not** show the "R_res falls to ~65 Ω for thick wires" of some older charts, which
//!   depend on their own feed model; for thin wires (`L/a ≥ 500`) it lies within
//!   72.0–73.1 Ω, decreasing slightly with thickness down to `L/a ≈ 1000`.
//!
//! # The FDTD wire's equivalent radius
//!
//! A wire made of a line of PEC E-edges in a cubic Yee grid (spacing Δ) behaves, in its
//! transverse quasi-static (TEM) field, like a round wire of radius `r_eq = c·Δ`:
//!
//! * **c = e^{−γ}/(2√2) ≈ 0.1985** ([`FDTD_WIRE_RADIUS`]): exact for the Yee grid in the
//!   quasi-static limit. Around a line of zeroed `E_z` the transverse potential φ (giving
//!   `E_x, E_y`) and the vector potential `A_z` (giving `H_x, H_y`) both live on the nodes of
//!   the 2-D square lattice and obey its 5-point Laplacian, so the per-unit-length `C` and
//!   `L` follow from the lattice Green's function, whose far field is
//!   `(1/2π)[ln(r/Δ) + γ + (3/2) ln 2]` (potential kernel of the square lattice: F. Spitzer,
//!   *Principles of Random Walk*, §15; on the diagonal exactly
//!   `a(n,n) = (4/π) Σ_{j≤n} 1/(2j−1)`, checked in `lattice_equivalent_radius`).
//!   Matching to `(1/2π) ln(r/r_eq)` gives `r_eq = e^{−γ}Δ/(2√2)`. This agrees with the
//!   value found by FDTD computation of the characteristic impedance of a wire above
//!   ground, 0.199Δ: T. Asada, Y. Baba, N. Nagaoka, A. Ametani, "An improved thin wire
//!   representation for FDTD transient simulations", IEEE Trans. EMC 57(3), 2015, and
//!   "Representation of a straight thin wire in a lossy medium and an oblique thin wire in
//!   air for FDTD simulations", IEEE Trans. EMC, doi:10.1109/TEMC.2015.2424976.
//! * **c = e^{−2} ≈ 0.135**: the radius at which the in-cell (contour-path) thin-wire model
//!   of K. R. Umashankar, A. Taflove, B. Beker, "Calculation and experimental validation of
//!   induced currents on coupled wires in an arbitrary shaped cavity", IEEE Trans.
//!   Antennas Propag. 35(11), 1987 (Taflove & Hagness, *Computational Electrodynamics*,
//!   thin-wire section) reduces to the plain Yee update: its `H` coefficient next to the
//!   wire carries `2/ln(Δ/r0)` in place of 1, equal when `ln(Δ/r0) = 2`. That model assumes
//!   a 1/ρ field inside the cell; for the FDTD in 2-D cylindrical coordinates 0.135Δ is
//!   exact (Y. Taniguchi, Y. Baba, N. Nagaoka, A. Ametani, "Representation of an
//!   arbitrary-radius wire for FDTD calculations in the 2-D cylindrical coordinate system",
//!   IEEE Trans. EMC 50(4), 2008, doi:10.1109/TEMC.2008.2004466).
//! * **c ≈ 0.23**: T. Noda, S. Yokoyama, "Thin wire representation in finite difference
//!   time domain surge simulation", IEEE Trans. Power Delivery 17(3), 840–847, 2002, from
//!   the surge impedance of a vertical wire in 3-D Cartesian FDTD.
//!
//! The sources disagree at the ±25 % level in `c` ([`FDTD_WIRE_RADIUS_RANGE`] = 0.135–0.23);
//! the wire's impedance depends on it only through `ln(L/r_eq)`, so for a half-wave dipole
//! at `L/Δ ≈ 140` the spread moves the resonance by about ±0.3 % (see
//! `fdtd_validation_cases`). Use 0.1985 (the Cartesian-grid value) and the FDTD's gap (one
//! cell): [`fdtd_wire_dipole`] / [`fdtd_wire_resonance`] do that.
//!
//! # Numbers for the FDTD validation (Δ = 1 mm, gap 1 mm, segments Δ/2)
//!
//! | L (mm) | radius            | L/a  | f_res (GHz) | L/λ    | R_res (Ω) | Z(c/2L) (Ω)  |
//! |--------|-------------------|------|-------------|--------|-----------|--------------|
//! | 143    | 0.1985Δ           | 720  | 0.9996      | 0.4768 | 71.96     | 84.65+j47.40 |
//! | 143    | 0.135Δ            | 1059 | 1.0032      | 0.4785 | 71.95     | 83.38+j47.03 |
//! | 143    | 0.230Δ            | 622  | 0.9981      | 0.4761 | 71.97     | 85.22+j47.53 |
//! | 143    | 0.5 mm            | 286  | 0.9887      | 0.4716 | 72.15     | 89.30+j47.80 |
//! | 143    | 1 mm              | 143  | 0.9789      | 0.4669 | 72.78     | 95.49+j46.14 |
//! | 93     | 0.1985Δ           | 468  | 1.5301      | 0.4747 | 71.96     | 86.10+j47.60 |
//! | 93     | 0.135Δ            | 689  | 1.5366      | 0.4767 | 71.93     | 84.54+j47.28 |
//! | 93     | 0.230Δ            | 404  | 1.5274      | 0.4738 | 71.98     | 86.80+j47.69 |
//! | 93     | 0.5 mm            | 186  | 1.5109      | 0.4687 | 72.31     | 91.95+j47.32 |
//! | 93     | 1 mm              | 93   | 1.4948      | 0.4637 | 73.40     | 99.84+j43.56 |
//!
//! Discretisation error of these: halving the segments moves `f_res` by −0.03 % (143 mm)
//! and −0.05 % (93 mm) and `R_res` by < 0.01 Ω; extrapolated, `f_res` is ~0.08 % (143 mm)
//! to ~0.12 % (93 mm) below the tabulated value. Near resonance `X` changes by ~10 Ω per
//! 1 % of frequency.
use fdtd_core::{C0, EPS0, MU0};
use num_complex::Complex64;
use std::f64::consts::PI;

/// Equivalent radius, in cells, of an FDTD wire made of one line of PEC E-edges in a cubic
/// Yee grid: `e^{−γ}/(2√2)` (quasi-static lattice value; see the module doc).
pub const FDTD_WIRE_RADIUS: f64 = 0.198_505_904_095_820_7;

/// The spread of published values of [`FDTD_WIRE_RADIUS`] (cells): 0.135 (in-cell model
/// limit, 2-D cylindrical FDTD) to 0.230 (Noda & Yokoyama 2002).
pub const FDTD_WIRE_RADIUS_RANGE: (f64, f64) = (0.135, 0.230);

/// Gauss–Legendre nodes and weights on [0, 1].
struct Rule {
    x: Vec<f64>,
    w: Vec<f64>,
}

impl Rule {
    fn new(n: usize) -> Rule {
        let (mut x, mut w) = (vec![0.0; n], vec![0.0; n]);
        for i in 0..n {
            // Newton on P_n from the Chebyshev-like first guess.
            let mut t = (PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
            let mut dp = 1.0;
            for _ in 0..100 {
                let (mut p0, mut p1) = (1.0, t);
                for k in 2..=n {
                    let p2 = ((2 * k - 1) as f64 * t * p1 - (k - 1) as f64 * p0) / k as f64;
                    p0 = p1;
                    p1 = p2;
                }
                dp = n as f64 * (t * p1 - p0) / (t * t - 1.0);
                let dt = p1 / dp;
                t -= dt;
                if dt.abs() < 1e-15 {
                    break;
                }
            }
            x[i] = 0.5 * (1.0 - t);
            w[i] = 1.0 / ((1.0 - t * t) * dp * dp);
        }
        Rule { x, w }
    }
}

/// The exact (cylindrical-tube) kernel without its 1/(4π):
/// `K(x) = 1/(2π) ∫₀^{2π} e^{−jkR}/R dφ`, `R = √(x² + 4a² sin²(φ/2))`,
/// as a static part in closed form, `2/π · K(m)/√(x²+4a²)` with `K` the complete elliptic
/// integral (`m = 4a²/(x²+4a²)`, computed by the arithmetic–geometric mean), plus the
/// smooth remainder `(e^{−jkR} − 1)/R` integrated by Gauss–Legendre over φ.
struct Kernel {
    a: f64,
    k: f64,
    psi: Rule,
}

impl Kernel {
    fn eval(&self, x: f64) -> Complex64 {
        let s = (x * x + 4.0 * self.a * self.a).sqrt();
        // 2/π·K(m)/s = 1/(AGM(1, k')·s), k' = |x|/s.
        let (mut p, mut q) = (1.0, x.abs() / s);
        for _ in 0..64 {
            let m = 0.5 * (p + q);
            q = (p * q).sqrt();
            p = m;
            if (p - q).abs() <= 1e-15 * p {
                break;
            }
        }
        let stat = 1.0 / (p * s);
        // (2/π) ∫₀^{π/2} (e^{−jkR} − 1)/R dψ, φ = 2ψ (the integrand is even about ψ = π/2).
        let mut dynamic = Complex64::new(0.0, 0.0);
        for (&t, &w) in self.psi.x.iter().zip(&self.psi.w) {
            let sn = (t * PI / 2.0).sin();
            let r = (x * x + 4.0 * self.a * self.a * sn * sn).sqrt();
            let kr = self.k * r;
            let re = -2.0 * (0.5 * kr).sin().powi(2) / r;
            let im = -kr.sin() / r;
            dynamic += Complex64::new(re, im) * w;
        }
        Complex64::new(stat, 0.0) + dynamic
    }
}

/// Segment–segment integrals for one offset `d = test segment − source segment`, in units
/// where the segment length is 1 (scaled by Δ² by the caller): `[rr, rf, fr, ff, q]` with
/// `r`/`f` the rising (`t`) and falling (`1 − t`) halves of the triangles and `q` the
/// pulse–pulse integral, each `∫∫ f(t) g(t') K((d + t − t')Δ) dt dt'`.
fn segment_integrals(d: i64, delta: f64, kern: &Kernel, panel: &Rule, two: &Rule) -> [Complex64; 5] {
    let mut out = [Complex64::new(0.0, 0.0); 5];
    // ∫∫ f(t) g(t') K(..) dt dt' = ∫_{−1}^{1} K((d+s)Δ) W(s) ds, W(s) = ∫ f(t) g(t−s) dt.
    let weights = |s: f64| -> [f64; 5] {
        let (lo, hi) = (s.max(0.0), (1.0 + s).min(1.0));
        let mut acc = [0.0; 5];
        for (&x, &w) in two.x.iter().zip(&two.w) {
            let t = lo + (hi - lo) * x;
            let tp = t - s;
            let ww = w * (hi - lo);
            let (fr, ff, gr, gf) = (t, 1.0 - t, tp, 1.0 - tp);
            acc[0] += ww * fr * gr;
            acc[1] += ww * fr * gf;
            acc[2] += ww * ff * gr;
            acc[3] += ww * ff * gf;
            acc[4] += ww;
        }
        acc
    };
    let mut add = |s: f64, w: f64| {
        let kv = kern.eval((d as f64 + s) * delta) * w;
        let ws = weights(s);
        for i in 0..5 {
            out[i] += kv * ws[i];
        }
    };
    for (lo, hi) in [(-1.0, 0.0), (0.0, 1.0)] {
        let (xlo, xhi) = (d as f64 + lo, d as f64 + hi);
        if xlo == 0.0 || xhi == 0.0 {
            // Logarithmic singularity at one end: geometrically graded panels towards it.
            let (sing, other) = if xlo == 0.0 { (lo, hi) } else { (hi, lo) };
            let dir = other - sing;
            let levels = 40;
            for j in 0..=levels {
                let (a, b) = if j == levels {
                    (0.0, 0.5f64.powi(levels))
                } else {
                    (0.5f64.powi(j + 1), 0.5f64.powi(j))
                };
                for (&x, &w) in panel.x.iter().zip(&panel.w) {
                    let t = a + (b - a) * x;
                    add(sing + dir * t, w * (b - a));
                }
            }
        } else {
            for (&x, &w) in panel.x.iter().zip(&panel.w) {
                add(lo + (hi - lo) * x, w * (hi - lo));
            }
        }
    }
    out
}

/// Input impedance (Ω) of a centre-fed dipole of total `length` and wire `radius` (m) at
/// `freq` (Hz), with `segments` (even, ≥ 4) equal segments and a feed gap of width `gap`
/// (m; 0 for a delta gap). See the module doc for the formulation and its accuracy. The
/// graded quadrature resolves the kernel for segment/radius ratios up to ~1e10.
pub fn dipole_impedance_gap(length: f64, radius: f64, gap: f64, freq: f64, segments: usize) -> Complex64 {
    assert!(
        segments >= 4 && segments.is_multiple_of(2),
        "segments must be even and ≥ 4"
    );
    assert!(length > 0.0 && radius > 0.0 && freq > 0.0 && gap >= 0.0);
    let n = segments;
    let delta = length / n as f64;
    let omega = 2.0 * PI * freq;
    let k = omega / C0;
    let kern = Kernel {
        a: radius,
        k,
        psi: Rule::new(16),
    };
    let panel = Rule::new(8);
    let two = Rule::new(2);
    // Integrals for offsets d = −n..=n (index d + n).
    let ints: Vec<[Complex64; 5]> = (-(n as i64)..=n as i64)
        .map(|d| segment_integrals(d, delta, &kern, &panel, &two))
        .collect();
    let at = |d: i64| &ints[(d + n as i64) as usize];
    let g = delta * delta / (4.0 * PI);
    let j = Complex64::new(0.0, 1.0);
    // Z(m − n) for interior nodes: vector- and scalar-potential parts.
    let zk = |kk: i64| -> Complex64 {
        let a = at(kk)[0] + at(kk - 1)[1] + at(kk + 1)[2] + at(kk)[3];
        let b = (at(kk)[4] * 2.0 - at(kk - 1)[4] - at(kk + 1)[4]) / (delta * delta);
        (j * omega * MU0 * a + b / (j * omega * EPS0)) * g
    };
    let c = n / 2;
    // Symmetric currents I_i = I_{n−i}: unknowns at nodes 1..=c, equations at nodes 1..=c.
    let mut mat = vec![vec![Complex64::new(0.0, 0.0); c]; c];
    for (mi, row) in mat.iter_mut().enumerate() {
        let m = (mi + 1) as i64;
        for (ni, v) in row.iter_mut().enumerate() {
            let nn = (ni + 1) as i64;
            *v = zk(m - nn);
            if ni + 1 < c {
                *v += zk(m - (n as i64 - nn));
            }
        }
    }
    // Excitation: V_m = ∫ Λ_m E_inc dz with E_inc = 1/gap on the gap (1 V), or Λ_m(0).
    let excite = |m: usize| -> f64 {
        let zm = (m as f64 - c as f64) * delta;
        let tri = |z: f64| (1.0 - (z - zm).abs() / delta).max(0.0);
        if gap == 0.0 {
            return tri(0.0);
        }
        let (lo, hi) = (-gap / 2.0, gap / 2.0);
        let mut cuts = vec![lo, hi, zm - delta, zm, zm + delta];
        cuts.retain(|&z| z >= lo && z <= hi);
        cuts.sort_by(|a, b| a.partial_cmp(b).unwrap());
        cuts.windows(2)
            .map(|w| (w[1] - w[0]) * 0.5 * (tri(w[0]) + tri(w[1])))
            .sum::<f64>()
            / gap
    };
    let v: Vec<f64> = (1..=c).map(excite).collect();
    let mut rhs: Vec<Complex64> = v.iter().map(|&x| Complex64::new(x, 0.0)).collect();
    solve(&mut mat, &mut rhs);
    // Admittance as the reaction Σ V_m I_m over all nodes (both halves), V = 1.
    let y: Complex64 = (0..c)
        .map(|i| rhs[i] * v[i] * if i + 1 == c { 1.0 } else { 2.0 })
        .sum::<Complex64>();
    1.0 / y
}

/// Gaussian elimination with partial pivoting; the solution replaces `b`.
fn solve(a: &mut [Vec<Complex64>], b: &mut [Complex64]) {
    let n = b.len();
    for col in 0..n {
        let p = (col..n)
            .max_by(|&i, &j| a[i][col].norm().partial_cmp(&a[j][col].norm()).unwrap())
            .unwrap();
        a.swap(col, p);
        b.swap(col, p);
        let piv = a[col][col];
        for r in col + 1..n {
            let f = a[r][col] / piv;
            if f != Complex64::new(0.0, 0.0) {
                let (top, bot) = a.split_at_mut(r);
                for (x, y) in bot[0][col..].iter_mut().zip(&top[col][col..]) {
                    *x -= f * y;
                }
                let t = f * b[col];
                b[r] -= t;
            }
        }
    }
    for r in (0..n).rev() {
        let s: Complex64 = (r + 1..n).map(|c| a[r][c] * b[c]).sum();
        b[r] = (b[r] - s) / a[r][r];
    }
}

/// Input impedance (Ω) of a delta-gap-fed dipole; see [`dipole_impedance_gap`] and the
/// module doc (the delta gap's susceptance grows like `ln N` for thick wires).
pub fn dipole_impedance(length: f64, radius: f64, freq: f64, segments: usize) -> Complex64 {
    dipole_impedance_gap(length, radius, 0.0, freq, segments)
}

/// Segments used by [`resonance`] and [`resonant_length_ratio`].
pub const DEFAULT_SEGMENTS: usize = 400;

/// First resonance (X = 0, going from capacitive to inductive) of a dipole in
/// `[f_lo, f_hi]`: `(f_res, R_res)`, or `None` if X does not cross zero upwards there. The
/// feed gap is one wire diameter wide (`2·radius`) and [`DEFAULT_SEGMENTS`] segments are
/// used; see [`resonance_gap`] to choose both.
pub fn resonance(length: f64, radius: f64, f_lo: f64, f_hi: f64) -> Option<(f64, f64)> {
    resonance_gap(length, radius, 2.0 * radius, f_lo, f_hi, DEFAULT_SEGMENTS)
}

/// [`resonance`] with a feed gap of width `gap` (m, 0 for a delta gap) and `segments`
/// segments: a scan of 9 frequencies brackets the first upward zero of X, and the Illinois
/// variant of regula falsi refines it to 1e-10 relative.
pub fn resonance_gap(length: f64, radius: f64, gap: f64, f_lo: f64, f_hi: f64, segments: usize) -> Option<(f64, f64)> {
    let z = |f: f64| dipole_impedance_gap(length, radius, gap, f, segments);
    let scan = 8;
    let mut prev = (f_lo, z(f_lo).im);
    for i in 1..=scan {
        let f = f_lo + (f_hi - f_lo) * i as f64 / scan as f64;
        let x = z(f).im;
        if prev.1 < 0.0 && x >= 0.0 {
            let (mut a, mut b) = (prev, (f, x));
            let mut side = 0;
            for _ in 0..100 {
                let fm = (a.0 * b.1 - b.0 * a.1) / (b.1 - a.1);
                let zm = z(fm);
                if zm.im.abs() < 1e-9 || (b.0 - a.0).abs() < 1e-10 * fm {
                    return Some((fm, zm.re));
                }
                if zm.im < 0.0 {
                    a = (fm, zm.im);
                    if side == -1 {
                        b.1 /= 2.0;
                    }
                    side = -1;
                } else {
                    b = (fm, zm.im);
                    if side == 1 {
                        a.1 /= 2.0;
                    }
                    side = 1;
                }
            }
            let fm = 0.5 * (a.0 + b.0);
            return Some((fm, z(fm).re));
        }
        prev = (f, x);
    }
    None
}

/// Resonant length and resistance of a dipole with length/radius ratio `l_over_a`:
/// `(L/λ, R_res)` at the first resonance, from [`resonance`] (gap = one diameter).
pub fn resonant_length_ratio(l_over_a: f64) -> Option<(f64, f64)> {
    let length = 1.0;
    let (f, r) = resonance(length, length / l_over_a, 0.40 * C0, 0.52 * C0)?;
    Some((f * length / C0, r))
}

/// The MoM counterpart of an FDTD dipole made of one line of PEC E-edges in a cubic grid
/// of spacing `cell`, fed by a one-cell source gap: input impedance at `freq` of a tube of
/// radius [`FDTD_WIRE_RADIUS`]`·cell` with a feed gap of one cell, on segments of half a
/// cell (the gap spans two segments; at `L = 143` cells the resonance moves by 0.03 % from
/// these segments to half of them).
pub fn fdtd_wire_dipole(length: f64, cell: f64, freq: f64) -> Complex64 {
    dipole_impedance_gap(length, FDTD_WIRE_RADIUS * cell, cell, freq, fdtd_segments(length, cell))
}

/// First resonance `(f_res, R_res)` in `[f_lo, f_hi]` of [`fdtd_wire_dipole`].
pub fn fdtd_wire_resonance(length: f64, cell: f64, f_lo: f64, f_hi: f64) -> Option<(f64, f64)> {
    resonance_gap(
        length,
        FDTD_WIRE_RADIUS * cell,
        cell,
        f_lo,
        f_hi,
        fdtd_segments(length, cell),
    )
}

/// Even number of segments of about half a cell.
pub fn fdtd_segments(length: f64, cell: f64) -> usize {
    (((length / cell).round() as usize).max(2)) * 2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Induced-EMF impedance of an infinitely thin half-wave dipole (sinusoidal current):
    /// `30[γ + ln 2π − Ci 2π] + j·30·Si 2π`.
    const Z_EMF: Complex64 = Complex64::new(73.079, 42.515);

    #[test]
    fn kernel_matches_direct_quadrature() {
        // Off the singularity the φ integral is smooth and periodic: the trapezoid rule
        // with many points is exact to rounding.
        let (a, k) = (1e-3, 2.0 * PI);
        let kern = Kernel {
            a,
            k,
            psi: Rule::new(16),
        };
        for x in [0.3e-3, 2e-3, 0.05, 0.4] {
            let m = 4000;
            let direct: Complex64 = (0..m)
                .map(|i| {
                    let phi = 2.0 * PI * (i as f64 + 0.5) / m as f64;
                    let r = (x * x + 4.0 * a * a * (phi / 2.0).sin().powi(2)).sqrt();
                    Complex64::new(0.0, -k * r).exp() / r
                })
                .sum::<Complex64>()
                / m as f64;
            let got = kern.eval(x);
            assert!((got - direct).norm() < 1e-9 * direct.norm(), "x {x}: {got} vs {direct}");
        }
    }

    #[test]
    fn thin_limit_tends_to_the_induced_emf_value() {
        // L = λ/2. The deviation from the sinusoidal-current value is first order in 1/Ω,
        // Ω = 2 ln(L/a), with a coefficient below 150 Ω (Hallén's expansion), and must
        // shrink as the wire thins.
        let (l, f) = (0.5, C0);
        let mut last = f64::INFINITY;
        for la in [1e4, 1e5, 1e12] {
            let z = dipole_impedance(l, l / la, f, 160);
            let omega = 2.0 * la.ln();
            let dev = (z - Z_EMF).norm();
            println!("L = λ/2, L/a = {la:e}: Z = {z:.2} Ω, |Z − Z_emf| = {dev:.2} Ω, Ω = {omega:.1}");
            assert!(dev < 150.0 / omega, "L/a {la}: {z}");
            assert!(z.re > Z_EMF.re && z.im > Z_EMF.im, "approached from above: {z}");
            assert!(dev < last);
            last = dev;
        }
        // Within a few ohms for L/a = 1e4–1e5 (bound 150/Ω = 8.1 and 6.5 Ω), and 2 Ω at 1e12.
        assert!(last < 2.0);
    }

    #[test]
    fn delta_gap_susceptance_grows_like_the_slit_capacitance() {
        // A zero-width gap in a tube of radius a carries the line charge 4ε0aV/|z|, so the
        // feed susceptance grows by 4ka·ln2/η0 per doubling of N (module doc).
        let (l, a, f) = (0.5, 0.01, C0);
        let k = 2.0 * PI * f / C0;
        let b = |n| (1.0 / dipole_impedance(l, a, f, n)).im;
        let expect = 4.0 * k * a * 2f64.ln() / (MU0 * C0);
        let got = b(320) - b(160);
        println!("ΔB per doubling {got:.4e} S, slit theory {expect:.4e} S");
        assert!((got / expect - 1.0).abs() < 0.02, "{got} vs {expect}");
        // A finite gap removes the growth.
        let bg = |n| (1.0 / dipole_impedance_gap(l, a, l / 40.0, f, n)).im;
        assert!((bg(320) - bg(160)).abs() < 0.1 * expect);
    }

    /// `|Z(N) − Z(2N)| / |Z(2N)|` at the resonance found with `N` segments.
    fn change_at_resonance(l_over_a: f64, n: usize) -> f64 {
        let (l, a) = (1.0, 1.0 / l_over_a);
        let (f, _) = resonance_gap(l, a, 2.0 * a, 0.42 * C0, 0.5 * C0, n).unwrap();
        let z1 = dipole_impedance_gap(l, a, 2.0 * a, f, n);
        let z2 = dipole_impedance_gap(l, a, 2.0 * a, f, 2 * n);
        println!(
            "L/a {l_over_a}: Z({n}) = {z1:.3}, Z({}) = {z2:.3} at f = {:.5} c/L",
            2 * n,
            f / C0
        );
        (z1 - z2).norm() / z2.norm()
    }

    #[test]
    fn converges_in_segments_at_resonance_thick() {
        let d = change_at_resonance(100.0, 400);
        assert!(d < 0.005, "{d}");
    }

    #[test]
    fn converges_in_segments_at_resonance_thin() {
        let d = change_at_resonance(1000.0, 400);
        assert!(d < 0.005, "{d}");
    }

    #[test]
    fn resonance_shortens_with_thickness() {
        // Gap = one diameter. Thin wires: L/λ ≈ 0.47–0.49 and R_res ≈ 72 Ω (module doc for
        // the published values); the resonance moves down (shorter L/λ) with thickness.
        let mut last = 1.0;
        for (la, lo, hi) in [
            (1e4, 0.483, 0.487),
            (1000.0, 0.476, 0.480),
            (100.0, 0.461, 0.465),
            (50.0, 0.455, 0.459),
        ] {
            let (ratio, r) = resonant_length_ratio(la).unwrap();
            println!("L/a {la}: resonance at L/λ = {ratio:.4}, R = {r:.2} Ω");
            assert!(ratio > lo && ratio < hi, "L/a {la}: {ratio}");
            assert!(ratio < last);
            last = ratio;
            assert!(r > 71.0 && r < 75.0, "L/a {la}: {r}");
        }
    }

    #[test]
    fn lattice_equivalent_radius() {
        // Square-lattice potential kernel on the diagonal, a(n,n) = (4/π)Σ_{j≤n} 1/(2j−1)
        // (random-walk normalisation; the 5-point Green's function is a/4). A node with line
        // charge q has φ(0) − φ(x) = q/(2πε)·(π/2)·a(x) = q/(2πε)·ln(|x|/r_eq).
        let r_eq = |n: usize| {
            let a: f64 = (1..=n).map(|j| 1.0 / (2 * j - 1) as f64).sum::<f64>() * 4.0 / PI;
            n as f64 * 2f64.sqrt() * (-PI / 2.0 * a).exp()
        };
        // a(1,1) = 4/π: the diagonal resistance 2/π of the infinite unit resistor grid.
        assert!((r_eq(1000) - FDTD_WIRE_RADIUS).abs() < 1e-6, "{}", r_eq(1000));
        assert!((r_eq(10) - FDTD_WIRE_RADIUS).abs() < 1e-3);
        let (lo, hi) = FDTD_WIRE_RADIUS_RANGE;
        assert!(lo < FDTD_WIRE_RADIUS && FDTD_WIRE_RADIUS < hi);
        assert!((lo - (-2f64).exp()).abs() < 1e-3, "0.135 = e^-2 (in-cell model)");
    }

    #[test]
    fn fdtd_validation_cases() {
        // Numbers for the FDTD dipole validation (run with --nocapture): Δ = 1 mm, feed gap
        // one cell, MoM segments of Δ/2. Radii: the FDTD wire's equivalent radius (lattice
        // value and the published extremes) and two physical radii.
        let delta = 1e-3;
        for l in [0.143f64, 0.093] {
            let n = fdtd_segments(l, delta);
            let f_half = C0 / (2.0 * l);
            let cases = [
                (format!("r_eq = {FDTD_WIRE_RADIUS:.4}Δ"), FDTD_WIRE_RADIUS * delta),
                ("r_eq = 0.135Δ".into(), 0.135 * delta),
                ("r_eq = 0.230Δ".into(), 0.230 * delta),
                ("r = 0.5 mm".into(), 0.5e-3),
                ("r = 1 mm".into(), 1e-3),
            ];
            let mut last = f64::INFINITY;
            for (i, (name, a)) in cases.iter().enumerate() {
                let (f, r) = resonance_gap(l, *a, delta, 0.85 * f_half, f_half, n).unwrap();
                if i == 0 {
                    assert_eq!(fdtd_wire_resonance(l, delta, 0.85 * f_half, f_half), Some((f, r)));
                }
                let z = |f| dipole_impedance_gap(l, *a, delta, f, n);
                println!(
                    "L = {:.0} mm, {name} (L/a = {:.0}), gap 1 mm, N = {n}: f_res = {:.4} GHz (L/λ = {:.4}), \
                     R_res = {r:.2} Ω; Z(0.9 f_res) = {:.2}, Z(1.1 f_res) = {:.2}, Z(c/2L = {:.4} GHz) = {:.2} Ω",
                    l * 1e3,
                    l / a,
                    f * 1e-9,
                    f * l / C0,
                    z(0.9 * f),
                    z(1.1 * f),
                    f_half * 1e-9,
                    z(f_half)
                );
                assert!(r > 71.0 && r < 74.0, "{name}: {r}");
                // Thicker resonates lower (r: 0.135Δ < 0.1985Δ < 0.23Δ < 0.5 mm < 1 mm).
                if i != 1 {
                    assert!(f < last, "{name}");
                    last = f;
                }
            }
        }
    }
}

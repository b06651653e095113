//! The exact discrete quasi-static line of a Yee cross-section: characteristic impedance
//! and effective permittivity of a two-conductor line from the grid's own electrostatics.
//!
//! At low frequency the quasi-TEM mode of a line on the Yee grid is the solution of the
//! discrete electrostatic problem on the cross-section's node plane: node potentials φ,
//! edge permittivities as the FDTD averages them (ε of the E edge joining two nodes),
//! conductors' nodes held at 1 (signal) and 0 (return, box). The capacitance per length
//! is the charge on the signal conductor, C = ε0·Σ ε_e·(1 − φ_n)·(dual face / edge
//! length); with the substrate replaced by vacuum it is C₀, and on the lattice the
//! inductance per length is 1/(c²C₀) (the air line's wave travels at c). So
//! Z0 = 1/(c·√(C·C₀)) and ε_eff = C/C₀: what a line port must measure on the same grid
//! at frequencies where the line's dispersion is negligible, independent of FDTD stepping
//! and of the port's extraction. Solved by conjugate gradients to 1e-12.
//!
//! [`microstrip`] builds the cross-section of a zero-thickness strip on a substrate over
//! a ground plane in a PEC box, which is also how a validation scene with PEC walls
//! discretises it; with a large box and fine cells it converges to the
//! Hammerstad–Jensen formula ([`hammerstad_jensen`]).

const EPS0: f64 = 8.854_187_812_8e-12;
const C0: f64 = 299_792_458.0;

/// A node-plane cross-section: `nu + 1` × `nw + 1` nodes of spacing `du`, `dw`.
#[derive(Clone, Debug)]
pub struct Section {
    pub nu: usize,
    pub nw: usize,
    pub du: f64,
    pub dw: f64,
    /// ε_r of the u-edge from node (u, w) to (u + 1, w): `eu[u * (nw + 1) + w]`.
    pub eu: Vec<f64>,
    /// ε_r of the w-edge from node (u, w) to (u, w + 1): `ew[u * nw + w]`.
    pub ew: Vec<f64>,
    /// Per node: Some(potential) on a conductor, None free.
    pub fixed: Vec<Option<f64>>,
}

/// Z0 (Ω) and ε_eff of a section's line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StaticLine {
    pub z0: f64,
    pub eps_eff: f64,
}

impl Section {
    fn node(&self, u: usize, w: usize) -> usize {
        u * (self.nw + 1) + w
    }

    /// The node's neighbours: (node, coupling ε·dual/edge).
    fn links(&self, u: usize, w: usize, vacuum: bool) -> Vec<(usize, f64)> {
        let e = |x: f64| if vacuum { 1.0 } else { x };
        let (ku, kw) = (self.dw / self.du, self.du / self.dw);
        let mut out = Vec::with_capacity(4);
        if u > 0 {
            out.push((self.node(u - 1, w), e(self.eu[(u - 1) * (self.nw + 1) + w]) * ku));
        }
        if u < self.nu {
            out.push((self.node(u + 1, w), e(self.eu[u * (self.nw + 1) + w]) * ku));
        }
        if w > 0 {
            out.push((self.node(u, w - 1), e(self.ew[u * self.nw + w - 1]) * kw));
        }
        if w < self.nw {
            out.push((self.node(u, w + 1), e(self.ew[u * self.nw + w]) * kw));
        }
        out
    }

    /// The signal conductor's charge per length (C/m at 1 V), with the substrate or in vacuum.
    fn charge(&self, vacuum: bool) -> f64 {
        let n = (self.nu + 1) * (self.nw + 1);
        let free: Vec<usize> = (0..n).filter(|&k| self.fixed[k].is_none()).collect();
        let mut slot = vec![usize::MAX; n];
        for (s, &k) in free.iter().enumerate() {
            slot[k] = s;
        }
        let links: Vec<Vec<(usize, f64)>> = (0..n)
            .map(|k| self.links(k / (self.nw + 1), k % (self.nw + 1), vacuum))
            .collect();
        // A·x = b over the free nodes: Σ c·(x_k − x_n) = 0, fixed neighbours to b.
        let mut b = vec![0.0; free.len()];
        let mut diag = vec![0.0; free.len()];
        for (s, &k) in free.iter().enumerate() {
            for &(m, c) in &links[k] {
                diag[s] += c;
                if let Some(v) = self.fixed[m] {
                    b[s] += c * v;
                }
            }
        }
        let apply = |x: &[f64], y: &mut [f64]| {
            for (s, &k) in free.iter().enumerate() {
                let mut acc = diag[s] * x[s];
                for &(m, c) in &links[k] {
                    if slot[m] != usize::MAX {
                        acc -= c * x[slot[m]];
                    }
                }
                y[s] = acc;
            }
        };
        // Jacobi-preconditioned conjugate gradients.
        let mut x = vec![0.0; free.len()];
        let mut r = b.clone();
        let mut z: Vec<f64> = r.iter().zip(&diag).map(|(r, d)| r / d).collect();
        let mut p = z.clone();
        let mut rz: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
        let b_norm = b.iter().map(|v| v * v).sum::<f64>().sqrt().max(1e-300);
        let mut ap = vec![0.0; free.len()];
        for _ in 0..20 * free.len().max(1) {
            apply(&p, &mut ap);
            let alpha = rz / p.iter().zip(&ap).map(|(a, b)| a * b).sum::<f64>();
            for s in 0..x.len() {
                x[s] += alpha * p[s];
                r[s] -= alpha * ap[s];
            }
            if r.iter().map(|v| v * v).sum::<f64>().sqrt() < 1e-12 * b_norm {
                break;
            }
            for s in 0..z.len() {
                z[s] = r[s] / diag[s];
            }
            let rz_new: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
            for s in 0..p.len() {
                p[s] = z[s] + rz_new / rz * p[s];
            }
            rz = rz_new;
        }
        let phi = |k: usize| self.fixed[k].unwrap_or_else(|| x[slot[k]]);
        let mut q = 0.0;
        for (links, _) in links.iter().zip(&self.fixed).filter(|(_, f)| **f == Some(1.0)) {
            for &(m, c) in links {
                q += c * (1.0 - phi(m));
            }
        }
        EPS0 * q
    }

    /// The line's Z0 and ε_eff.
    pub fn line(&self) -> StaticLine {
        let (c, c0) = (self.charge(false), self.charge(true));
        StaticLine {
            z0: 1.0 / (C0 * (c * c0).sqrt()),
            eps_eff: c / c0,
        }
    }
}

/// A zero-thickness strip `w_cells` wide at height `h_cells` on a substrate of `eps_r`
/// filling the box below it, over the ground (w = 0), centred in a PEC box of
/// `nu` × `nw` cells of size `d` (square cells): the node plane as a Yee grid averages it
/// (edges in the substrate's top plane: (ε_r + 1)/2).
pub fn microstrip(nu: usize, nw: usize, d: f64, w_cells: usize, h_cells: usize, eps_r: f64) -> Section {
    let u0 = (nu - w_cells) / 2;
    let mut fixed = vec![None; (nu + 1) * (nw + 1)];
    for u in 0..=nu {
        for w in 0..=nw {
            if u == 0 || u == nu || w == 0 || w == nw {
                fixed[u * (nw + 1) + w] = Some(0.0);
            }
        }
    }
    for u in u0..=u0 + w_cells {
        fixed[u * (nw + 1) + h_cells] = Some(1.0);
    }
    let top = (eps_r + 1.0) / 2.0;
    let eu = (0..nu * (nw + 1))
        .map(|k| match (k % (nw + 1)).cmp(&h_cells) {
            std::cmp::Ordering::Less => eps_r,
            std::cmp::Ordering::Equal => top,
            std::cmp::Ordering::Greater => 1.0,
        })
        .collect();
    let ew = (0..(nu + 1) * nw)
        .map(|k| if k % nw < h_cells { eps_r } else { 1.0 })
        .collect();
    Section {
        nu,
        nw,
        du: d,
        dw: d,
        eu,
        ew,
        fixed,
    }
}

/// Hammerstad & Jensen (1980): Z0 (Ω) and ε_eff of a zero-thickness microstrip of width
/// `w` on a substrate of height `h` and `eps_r` (quoted accuracy 0.2 % for
/// 0.01 ≤ w/h ≤ 100).
pub fn hammerstad_jensen(w: f64, h: f64, eps_r: f64) -> StaticLine {
    let u = w / h;
    let a = 1.0
        + ((u.powi(4) + (u / 52.0).powi(2)) / (u.powi(4) + 0.432)).ln() / 49.0
        + (1.0 + (u / 18.1).powi(3)).ln() / 18.7;
    let b = 0.564 * ((eps_r - 0.9) / (eps_r + 3.0)).powf(0.053);
    let eps_eff = (eps_r + 1.0) / 2.0 + (eps_r - 1.0) / 2.0 * (1.0 + 10.0 / u).powf(-a * b);
    let f = 6.0 + (std::f64::consts::TAU - 6.0) * (-(30.666 / u).powf(0.7528)).exp();
    let eta0 = 376.730_313_668;
    let z01 = eta0 / std::f64::consts::TAU * (f / u + (1.0 + 4.0 / (u * u)).sqrt()).ln();
    StaticLine {
        z0: z01 / eps_eff.sqrt(),
        eps_eff,
    }
}

/// The square coax: a `a_cells` square inner conductor centred in a `b_cells` square
/// shield, filled with `eps_r`.
pub fn square_coax(b_cells: usize, a_cells: usize, d: f64, eps_r: f64) -> Section {
    let n = b_cells;
    let lo = (b_cells - a_cells) / 2;
    let mut fixed = vec![None; (n + 1) * (n + 1)];
    for u in 0..=n {
        for w in 0..=n {
            if u == 0 || u == n || w == 0 || w == n {
                fixed[u * (n + 1) + w] = Some(0.0);
            }
            if (lo..=lo + a_cells).contains(&u) && (lo..=lo + a_cells).contains(&w) {
                fixed[u * (n + 1) + w] = Some(1.0);
            }
        }
    }
    Section {
        nu: n,
        nw: n,
        du: d,
        dw: d,
        eu: vec![eps_r; n * (n + 1)],
        ew: vec![eps_r; (n + 1) * n],
        fixed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_homogeneous_line_has_eps_eff_eps_r_and_the_parallel_plate_limit() {
        // Square coax in a dielectric: ε_eff = ε_r exactly, Z0 = Z0(air)/√ε_r.
        let air = square_coax(40, 16, 1e-3, 1.0).line();
        let die = square_coax(40, 16, 1e-3, 4.0).line();
        assert!((die.eps_eff - 4.0).abs() < 1e-9, "{die:?}");
        assert!((die.z0 - air.z0 / 2.0).abs() < 1e-9 * air.z0);
        // A thin square coax (gap of 2 cells around a 60-cell inner): nearly four parallel
        // plates, Z0 → η0·g/(4·(a + g)) (the corners add a little capacitance).
        // Bounds: plates as wide as the inner side (no corners) and as wide as the gap's
        // midline.
        let thin = square_coax(64, 60, 1e-3, 1.0).line();
        let eta = 376.730_313_668;
        let (hi, lo) = (eta * 2.0 / (4.0 * 60.0), eta * 2.0 / (4.0 * 62.0));
        assert!(thin.z0 < hi && thin.z0 > lo, "{thin:?} vs {lo} … {hi}");
    }

    #[test]
    fn the_grids_microstrip_converges_to_hammerstad_jensen() {
        // w/h = 15/8 on ε_r 4.3 (≈ 51 Ω) in a box 20 strip widths wide (the walls' share
        // is ~0.2 %). Measured: Z0 −2.98 % at h = 8 cells, −1.60 % at 16, −0.90 % at 32
        // (the zero-thickness strip's edges make the grid's strip look wider: about first
        // order in the cell); ε_eff within 0.2 %.
        let hj = hammerstad_jensen(15.0, 8.0, 4.3);
        let mut errs = Vec::new();
        for k in [1usize, 2] {
            let s = microstrip(300 * k, 150 * k, 1.0 / k as f64, 15 * k, 8 * k, 4.3).line();
            errs.push(((s.z0 / hj.z0 - 1.0), (s.eps_eff / hj.eps_eff - 1.0)));
        }
        assert!(errs[0].0 < -0.025 && errs[0].0 > -0.035, "{errs:?}");
        assert!(
            errs[1].0 < -0.012 && errs[1].0 > -0.02,
            "h = 16 cells: within 2 %: {errs:?}"
        );
        assert!(errs.iter().all(|e| e.1.abs() < 0.005), "{errs:?}");
    }
}

//! CPML (Roden & Gedney 2000) layers: graded profiles and update constants.
//!
//! A layer of `L` cells at a face absorbs inside the grid; its outer face is PEC.
//! For the field derivative along the layer's axis, each sample gets the recursive
//! convolution constants
//!
//! ```text
//! b = exp(−(σ/κ + α)·dt/ε0),   a = σ/(σκ + κ²α)·(b − 1),
//! ψ ← b·ψ + a·∂F,   correction = (1/κ − 1)·∂F + ψ
//! ```
//!
//! with σ(ρ) = σ_max·ρ^m, κ(ρ) = 1 + (κ_max − 1)·ρ^m, α(ρ) = α_max·(1 − ρ), and ρ
//! the depth into the layer (0 at its inner edge, 1 at the PEC wall). The bulk
//! kernels update with κ = 1 and no ψ; the CPML pass adds `coef·correction` on top,
//! so CPML work is done only inside the layers.
use super::{Grid, ModelError};
use crate::scene::{Boundaries, Boundary};
use crate::{EPS0, ETA0};

/// One CPML layer on one face.
#[derive(Clone, Debug, PartialEq)]
pub struct CpmlLayer {
    /// Axis normal to the face (0 = x, 1 = y, 2 = z).
    pub axis: usize,
    /// Whether the layer is at the high face of the axis.
    pub high: bool,
    /// Thickness in cells.
    pub cells: usize,
    /// First grid index (along `axis`) of E samples with a ψ, and their constants.
    pub e_first: usize,
    pub e: Profile,
    /// First grid index (along `axis`) of H samples with a ψ, and their constants.
    pub h_first: usize,
    pub h: Profile,
}

/// Update constants for consecutive samples along the layer's axis.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    pub b: Vec<f32>,
    pub a: Vec<f32>,
    /// 1/κ − 1.
    pub kinv: Vec<f32>,
}

impl Profile {
    pub fn len(&self) -> usize {
        self.b.len()
    }
    pub fn is_empty(&self) -> bool {
        self.b.is_empty()
    }
}

impl CpmlLayer {
    /// Dimensions of a ψ array for this layer: the grid's dims with the layer axis
    /// replaced by the number of profiled samples (`e` or `h`).
    pub fn psi_dims(&self, grid: &Grid, electric: bool) -> [usize; 3] {
        let mut d = grid.dims();
        d[self.axis] = if electric { self.e.len() } else { self.h.len() };
        d
    }
}

pub(super) fn layers(grid: &Grid, b: &Boundaries) -> Result<Vec<CpmlLayer>, ModelError> {
    let mut out = Vec::new();
    for axis in 0..3 {
        let n = grid.n[axis];
        let mut total = 0;
        for high in [false, true] {
            if let Boundary::Cpml(p) = b.face(axis, high) {
                total += p.cells;
            }
        }
        if total > 0 && total >= n {
            return Err(ModelError::CpmlTooThick {
                axis: ['x', 'y', 'z'][axis],
                cells: total,
                n,
            });
        }
        for high in [false, true] {
            let Boundary::Cpml(p) = b.face(axis, high) else {
                continue;
            };
            let l = p.cells;
            if l == 0 {
                continue;
            }
            let d = grid.d[axis];
            let width = l as f64 * d;
            let sigma_max = p.sigma_factor * 0.8 * (p.order + 1.0) / (ETA0 * d);
            let constants = |depth: f64| {
                let rho = (depth / width).clamp(0.0, 1.0);
                let sigma = sigma_max * rho.powf(p.order);
                let kappa = 1.0 + (p.kappa_max - 1.0) * rho.powf(p.order);
                let alpha = p.alpha_max * (1.0 - rho);
                let b = (-(sigma / kappa + alpha) * grid.dt / EPS0).exp();
                let denom = sigma * kappa + kappa * kappa * alpha;
                let a = if denom > 0.0 { sigma / denom * (b - 1.0) } else { 0.0 };
                (b as f32, a as f32, (1.0 / kappa - 1.0) as f32)
            };
            let fill = |positions: &mut dyn Iterator<Item = f64>| {
                let mut pr = Profile::default();
                for depth in positions {
                    let (b, a, k) = constants(depth);
                    pr.b.push(b);
                    pr.a.push(a);
                    pr.kinv.push(k);
                }
                pr
            };
            // E samples sit on integer planes; the wall plane (depth L) is PEC and the
            // inner plane (depth 0) has σ = 0, so profiled E planes are depths L-1 .. 1.
            // H samples sit on half-integer planes, depths L-½ .. ½.
            let (e_first, e, h_first, h) = if !high {
                let e = fill(&mut (1..l).map(|i| (l - i) as f64 * d));
                let h = fill(&mut (0..l).map(|i| (l as f64 - i as f64 - 0.5) * d));
                (1, e, 0, h)
            } else {
                let s = n - l;
                let e = fill(&mut (s + 1..n).map(|i| (i - s) as f64 * d));
                let h = fill(&mut (s..n).map(|i| (i as f64 + 0.5 - s as f64) * d));
                (s + 1, e, s, h)
            };
            out.push(CpmlLayer {
                axis,
                high,
                cells: l,
                e_first,
                e,
                h_first,
                h,
            });
        }
    }
    Ok(out)
}

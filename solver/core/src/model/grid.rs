//! Grid dimensions, time step and flat indexing.
use crate::scene::TimeEnd;
use crate::C0;

/// The Yee grid: `n` cells of size `d`, time step `dt`, `steps` steps.
/// Half-open index range `lo..hi` along one axis.
pub type Range = (usize, usize);
/// Half-open index box, per axis.
pub type Box3 = [Range; 3];

#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    pub n: [usize; 3],
    pub d: [f64; 3],
    pub dt: f64,
    pub steps: usize,
    pub courant: f64,
}

impl Grid {
    pub fn new(n: [usize; 3], d: [f64; 3], courant: f64, end: TimeEnd) -> Grid {
        let dt = courant / (C0 * d.iter().map(|x| 1.0 / (x * x)).sum::<f64>().sqrt());
        let steps = match end {
            TimeEnd::Steps(s) => s,
            // Tolerate rounding: a duration of exactly k·dt gives k steps.
            TimeEnd::Duration(t) => (t / dt - 1e-9).ceil().max(0.0) as usize,
        };
        Grid {
            n,
            d,
            dt,
            steps,
            courant,
        }
    }

    /// Array dimensions of every component: `n + 1` along each axis.
    pub fn dims(&self) -> [usize; 3] {
        self.n.map(|x| x + 1)
    }

    /// Samples per component array (64-bit: products of dimensions can pass 2³¹).
    pub fn len(&self) -> usize {
        let d = self.dims();
        d[0] * d[1] * d[2]
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of Yee cells (the figure of merit counts these).
    pub fn cells(&self) -> u64 {
        self.n.iter().map(|&x| x as u64).product()
    }

    /// Flat index of `(i, j, k)`; z is contiguous.
    #[inline(always)]
    pub fn idx(&self, i: usize, j: usize, k: usize) -> usize {
        let d = self.dims();
        (i * d[1] + j) * d[2] + k
    }

    /// Strides of the flat index along x, y, z.
    pub fn strides(&self) -> [usize; 3] {
        let d = self.dims();
        [d[1] * d[2], d[2], 1]
    }

    /// 1/dx, 1/dy, 1/dz as f32, the kernels' spatial difference factors.
    pub fn inv_d(&self) -> [f32; 3] {
        self.d.map(|x| (1.0 / x) as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn dt_from_courant() {
        let g = Grid::new([10, 10, 10], [1e-3; 3], 1.0, TimeEnd::Steps(1));
        assert_relative_eq!(g.dt, 1e-3 / (C0 * 3f64.sqrt()), max_relative = 1e-15);
        let g = Grid::new([10, 10, 10], [1e-3, 2e-3, 4e-3], 0.5, TimeEnd::Steps(1));
        let expect = 0.5 / (C0 * (1e6 + 0.25e6 + 0.0625e6f64).sqrt());
        assert_relative_eq!(g.dt, expect, max_relative = 1e-15);
    }

    #[test]
    fn steps_from_duration() {
        let g = Grid::new([4, 4, 4], [1e-3; 3], 0.99, TimeEnd::Duration(1e-9));
        assert_eq!(g.steps, (1e-9 / g.dt).ceil() as usize);
        let exact = Grid::new([4, 4, 4], [1e-3; 3], 0.99, TimeEnd::Duration(10.0 * g.dt));
        assert_eq!(exact.steps, 10);
    }

    #[test]
    fn flat_index_is_c_order() {
        let g = Grid::new([3, 4, 5], [1.0; 3], 1.0, TimeEnd::Steps(1));
        assert_eq!(g.dims(), [4, 5, 6]);
        assert_eq!(g.idx(0, 0, 1), 1);
        assert_eq!(g.idx(0, 1, 0), 6);
        assert_eq!(g.idx(1, 0, 0), 30);
        assert_eq!(g.idx(3, 4, 5), g.len() - 1);
        assert_eq!(g.strides(), [30, 6, 1]);
    }
}

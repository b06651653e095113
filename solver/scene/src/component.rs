//! Field components and where they sit on the Yee cell.
//!
//! Index convention (used everywhere: CPU, WGSL, HDF5 output, docs):
//! a grid of `n = [nx, ny, nz]` cells of size `d = [dx, dy, dz]`; every component is
//! stored in an array of shape `(nx+1, ny+1, nz+1)`, C order (z contiguous), and the
//! sample `F[i, j, k]` sits at
//!
//! | comp | x          | y          | z          |
//! |------|------------|------------|------------|
//! | Ex   | (i+½)·dx   | j·dy       | k·dz       |
//! | Ey   | i·dx       | (j+½)·dy   | k·dz       |
//! | Ez   | i·dx       | j·dy       | (k+½)·dz   |
//! | Hx   | i·dx       | (j+½)·dy   | (k+½)·dz   |
//! | Hy   | (i+½)·dx   | j·dy       | (k+½)·dz   |
//! | Hz   | (i+½)·dx   | (j+½)·dy   | k·dz       |
//!
//! so E lives on cell edges and H on face centres, measured from the domain's
//! minimum corner. Samples whose half-integer position falls outside the domain
//! (e.g. `Ex[nx, ..]`) are padding and stay zero.
use std::fmt;
use std::str::FromStr;

/// One of the six Cartesian field components.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Component {
    Ex,
    Ey,
    Ez,
    Hx,
    Hy,
    Hz,
}

impl Component {
    pub const ALL: [Component; 6] = [
        Component::Ex,
        Component::Ey,
        Component::Ez,
        Component::Hx,
        Component::Hy,
        Component::Hz,
    ];

    /// 0..6 in the order Ex, Ey, Ez, Hx, Hy, Hz.
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn is_electric(self) -> bool {
        self.index() < 3
    }

    /// Cartesian axis the component points along (0 = x, 1 = y, 2 = z).
    pub fn axis(self) -> usize {
        self.index() % 3
    }

    /// Half-cell offsets of the sample along each axis (true = +½).
    pub fn stagger(self) -> [bool; 3] {
        let a = self.axis();
        let mut s = [false; 3];
        if self.is_electric() {
            s[a] = true;
        } else {
            s = [true; 3];
            s[a] = false;
        }
        s
    }

    /// Number of real (non-padding) samples along each axis for `n` cells.
    pub fn extent(self, n: [usize; 3]) -> [usize; 3] {
        let s = self.stagger();
        [0, 1, 2].map(|a| if s[a] { n[a] } else { n[a] + 1 })
    }

    /// Physical position (m) of sample `idx`, relative to the domain's minimum corner.
    pub fn position(self, idx: [usize; 3], d: [f64; 3]) -> [f64; 3] {
        let s = self.stagger();
        [0, 1, 2].map(|a| (idx[a] as f64 + if s[a] { 0.5 } else { 0.0 }) * d[a])
    }

    pub fn name(self) -> &'static str {
        ["Ex", "Ey", "Ez", "Hx", "Hy", "Hz"][self.index()]
    }
}

impl fmt::Display for Component {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Component {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Component::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown field component `{s}` (expected one of Ex, Ey, Ez, Hx, Hy, Hz)"))
    }
}

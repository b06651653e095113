//! Near-to-far-field transformation: from equivalent surface currents on a closed
//! surface around the sources (J = n̂×H, M = −n̂×E), the far field E_θ, E_φ on a
//! (θ, φ) grid, radiation intensity, radiated power and directivity.
//!
//! The recording side (a DFT box of tangential E and H, interpolated to face centres)
//! is the `farfield` monitor pass; this module is pure math on host phasors.
//!
//! **Image planes.** A PEC or PMC face of the domain is an infinite plane: the surface
//! is completed by its mirror images in every such plane ([`ImagePlane`]), with the
//! image fields of image theory (PEC: tangential E and normal H reversed; PMC: normal E
//! and tangential H reversed, so that J = n̂×H and M = −n̂×E get the textbook images:
//! PEC: J tangential reversed, normal kept, M the reverse; PMC the dual). The union of a
//! box and its images is a closed surface in free space whose currents radiate the
//! field of the sources and of their images; a box face lying on the plane is interior
//! to that union and is left out (the monitor does not record it). A *ground* plane
//! (a wall: nothing exists behind it) keeps the half-space in front: the field behind
//! it is zero and P_rad is the union's power over that half-space (half of it, by the
//! mirror symmetry of |E|). A *symmetry* plane (a symmetric half-model: the mirror half
//! is part of the structure) keeps the whole sphere and the union's whole power.
pub use crate::scene::Polarization;
pub use num_complex::Complex64;

/// What lies behind an [`ImagePlane`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaneRole {
    /// A wall or an infinite ground plane: no space behind it.
    Ground,
    /// A symmetry plane of a half-model: the structure's mirror half behind it.
    Symmetry,
}

/// A PEC (`pec = true`) or PMC plane `x_axis = position` (m) in which the surface is
/// mirrored; the modelled space lies on the side `side` (+1 or −1) along `axis`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImagePlane {
    pub axis: usize,
    pub position: f64,
    pub side: f64,
    pub pec: bool,
    pub role: PlaneRole,
}

impl ImagePlane {
    /// `sample` mirrored in this plane, with the image fields (see the module doc).
    pub fn mirror(&self, p: &SurfaceSample) -> SurfaceSample {
        let a = self.axis;
        let mut q = p.clone();
        q.pos[a] = 2.0 * self.position - p.pos[a];
        q.normal[a] = -p.normal[a];
        // PEC: E' = −R·E, H' = R·H; PMC: E' = R·E, H' = −R·H (R flips component a).
        let (se, sh) = if self.pec { (-1.0, 1.0) } else { (1.0, -1.0) };
        for c in 0..3 {
            let flip = if c == a { -1.0 } else { 1.0 };
            q.e[c] = p.e[c] * (se * flip);
            q.h[c] = p.h[c] * (sh * flip);
        }
        q
    }

    /// Whether the direction `r` points behind a ground plane (strictly).
    fn hides(&self, r: [f64; 3]) -> bool {
        self.role == PlaneRole::Ground && r[self.axis] * self.side < -1e-12
    }

    /// "PEC z_min (ground)" and the like.
    pub fn describe(&self) -> String {
        let face = ["x", "y", "z"][self.axis];
        let end = if self.side > 0.0 { "min" } else { "max" };
        let role = match self.role {
            PlaneRole::Ground => "ground",
            PlaneRole::Symmetry => "symmetry",
        };
        format!("{} {face}_{end} ({role})", if self.pec { "PEC" } else { "PMC" })
    }
}

/// One sample of a closed surface: a patch of area `area` (m²) centred at `pos` (m)
/// with outward unit normal `normal`, and the E (V/m·s) and H (A/m·s) phasors there
/// (all three components; only the tangential parts are used).
#[derive(Clone, Debug, PartialEq)]
pub struct SurfaceSample {
    pub pos: [f64; 3],
    pub area: f64,
    pub normal: [f64; 3],
    pub e: [Complex64; 3],
    pub h: [Complex64; 3],
}

/// A closed surface at one frequency, in a homogeneous medium of relative
/// permittivity `eps_r` and permeability `mu_r` (vacuum: 1, 1); closed together with
/// its images in `images` when there are any (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Surface {
    pub freq: f64,
    pub eps_r: f64,
    pub mu_r: f64,
    pub samples: Vec<SurfaceSample>,
    /// PEC/PMC planes to mirror the samples in (at most one per axis).
    pub images: Vec<ImagePlane>,
}

impl Surface {
    /// The samples and all their images (2^planes copies).
    pub fn with_images(&self) -> std::borrow::Cow<'_, [SurfaceSample]> {
        if self.images.is_empty() {
            return std::borrow::Cow::Borrowed(&self.samples);
        }
        let mut all = self.samples.clone();
        for plane in &self.images {
            let n = all.len();
            for i in 0..n {
                let q = plane.mirror(&all[i]);
                all.push(q);
            }
        }
        std::borrow::Cow::Owned(all)
    }

    /// The ground planes' share of the union's power: 2^−(ground planes).
    fn power_share(&self) -> f64 {
        let g = self.images.iter().filter(|p| p.role == PlaneRole::Ground).count();
        0.5f64.powi(g as i32)
    }

    /// Whether the direction (θ, φ) lies behind a ground plane (no space there).
    pub fn hidden(&self, theta: f64, phi: f64) -> bool {
        let (st, ct) = theta.sin_cos();
        let (sp, cp) = phi.sin_cos();
        let r = [st * cp, st * sp, ct];
        self.images.iter().any(|p| p.hides(r))
    }
}

/// The far field of one surface at one frequency on a (θ, φ) grid.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FarField {
    /// The monitor's name.
    pub name: String,
    pub freq: f64,
    /// Polar and azimuthal angles (rad).
    pub theta: Vec<f64>,
    pub phi: Vec<f64>,
    /// r·E_θ and r·E_φ (V·s) with the e^{−jkr} factor removed, `[theta][phi]` flat.
    pub e_theta: Vec<Complex64>,
    pub e_phi: Vec<Complex64>,
    /// Radiation intensity U = r²·|E|²/(2η) (W/sr, normalised as `results` says).
    pub intensity: Vec<f64>,
    /// Total radiated power, the integral of U over the space that exists (the full
    /// sphere, or the half-space in front of each ground plane) (W).
    pub radiated_power: f64,
    /// Directivity D = 4πU/P_rad per direction (linear), and its maximum.
    pub directivity: Vec<f64>,
    pub max_directivity: f64,
    /// Where the maximum is (rad).
    pub max_at: (f64, f64),
    /// With a driven port: P_rad / P_acc, and gain / realized gain (linear) per direction.
    pub efficiency: Option<f64>,
    pub gain: Option<Vec<f64>>,
    pub realized_gain: Option<Vec<f64>>,
    /// The reference of the co-/cross-polar split ([`FarField::co_cross`]).
    pub polarization: Polarization,
    /// The image planes the transform used (see the module doc); directions behind a
    /// ground plane have zero field.
    pub images: Vec<ImagePlane>,
    /// With a plane wave: the bistatic radar cross section 4πU/I per direction (m²), and
    /// the monostatic one (θ, φ of the backscatter direction −k̂ in rad, σ in m²).
    pub rcs: Option<Vec<f64>>,
    pub monostatic: Option<(f64, f64, f64)>,
}

/// Axial ratios above this (dB) are reported as linear polarisation.
pub const LINEAR_AR_DB: f64 = 40.0;

impl FarField {
    /// The co- and cross-polar unit vectors' (θ̂, φ̂) components at azimuth `phi` for
    /// `self.polarization`.
    fn basis(&self, phi: f64) -> ([f64; 2], [f64; 2]) {
        match self.polarization {
            Polarization::Theta => ([1.0, 0.0], [0.0, 1.0]),
            Polarization::Phi => ([0.0, 1.0], [-1.0, 0.0]),
            Polarization::Ludwig3 { angle } => {
                let (s, c) = (phi - angle.to_radians()).sin_cos();
                ([c, -s], [s, c])
            }
        }
    }

    /// r·E_co and r·E_cross per direction (`[theta][phi]` flat): the projections of
    /// (E_θ, E_φ) on the co- and cross-polar unit vectors of `polarization`
    /// (Ludwig 3: co = cos(φ−ψ) θ̂ − sin(φ−ψ) φ̂, cross = sin(φ−ψ) θ̂ + cos(φ−ψ) φ̂).
    pub fn co_cross(&self) -> (Vec<Complex64>, Vec<Complex64>) {
        let np = self.phi.len().max(1);
        let mut co = Vec::with_capacity(self.e_theta.len());
        let mut cross = Vec::with_capacity(self.e_theta.len());
        for (i, (&et, &ep)) in self.e_theta.iter().zip(&self.e_phi).enumerate() {
            let (c, x) = self.basis(self.phi.get(i % np).copied().unwrap_or(0.0));
            co.push(et * c[0] + ep * c[1]);
            cross.push(et * x[0] + ep * x[1]);
        }
        (co, cross)
    }

    /// The co- and cross-polar partial directivities (linear): D times each part's
    /// share of |E|²; they add up to D.
    pub fn co_cross_directivity(&self) -> (Vec<f64>, Vec<f64>) {
        let (co, cross) = self.co_cross();
        let part = |v: &[Complex64]| -> Vec<f64> {
            v.iter()
                .zip(self.e_theta.iter().zip(&self.e_phi))
                .zip(&self.directivity)
                .map(|((c, (et, ep)), d)| {
                    let all = et.norm_sqr() + ep.norm_sqr();
                    if all > 0.0 {
                        d * c.norm_sqr() / all
                    } else {
                        0.0
                    }
                })
                .collect()
        };
        (part(&co), part(&cross))
    }

    /// The polarisation ellipse per direction: the axial ratio (linear, ≥ 1; ∞ for a
    /// linear field or none) and its sense, +1 right-hand (RHCP), −1 left-hand, 0 linear
    /// or no field (IEEE Std 145: the sense seen along the direction of propagation r̂).
    /// With e^{+jωt}, right-hand is θ̂ − jφ̂, so E_R = (E_θ + jE_φ)/√2 and
    /// E_L = (E_θ − jE_φ)/√2; AR = (|E_R| + |E_L|) / ||E_R| − |E_L||.
    pub fn axial_ratio(&self) -> (Vec<f64>, Vec<i8>) {
        let j = Complex64::new(0.0, 1.0);
        self.e_theta
            .iter()
            .zip(&self.e_phi)
            .map(|(&et, &ep)| {
                let r = (et + j * ep).norm();
                let l = (et - j * ep).norm();
                let diff = r - l;
                if diff.abs() <= 1e-12 * (r + l) || r + l == 0.0 {
                    (f64::INFINITY, 0)
                } else {
                    ((r + l) / diff.abs(), if diff > 0.0 { 1 } else { -1 })
                }
            })
            .unzip()
    }
}

/// An axial ratio (linear) in dB, ∞ (linear polarisation) clamped to 300 like [`db`].
pub fn ar_db(ar: f64) -> f64 {
    if ar.is_finite() {
        (20.0 * ar.log10()).min(300.0)
    } else {
        300.0
    }
}

/// The port's incident and accepted power at the far field's frequency (W, normalised as
/// [`crate::results`] says), for efficiency, gain and realized gain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PortPower {
    pub p_inc: f64,
    pub p_acc: f64,
}

/// Wavenumber k (rad/m) and wave impedance η (Ω) of the surface's medium.
pub fn medium(s: &Surface) -> (f64, f64) {
    let n = (s.eps_r * s.mu_r).sqrt();
    let k = 2.0 * std::f64::consts::PI * s.freq * n / crate::C0;
    let eta = crate::ETA0 * (s.mu_r / s.eps_r).sqrt();
    (k, eta)
}

fn cross(a: [f64; 3], b: [Complex64; 3]) -> [Complex64; 3] {
    [
        b[2] * a[1] - b[1] * a[2],
        b[0] * a[2] - b[2] * a[0],
        b[1] * a[0] - b[0] * a[1],
    ]
}

/// A row of face samples sharing their normal axis `a` and their coordinate along one
/// tangential axis `u` (indices `ia`, `iu` into the distinct coordinates), varying along
/// the other, `v`: samples `start..start + len` of its group.
struct Row {
    ia: u32,
    iu: u32,
    start: u32,
    len: u32,
}

/// The samples whose outward normal is ±(axis `a`), in rows. Their currents are
/// tangential, so only the `u`, `v` components are kept: per sample
/// [J_u, J_v, M_u, M_v]·dA and the index of its `v` coordinate. Rows run along z
/// (v = z) on x and y faces, along y on z faces (see [`tangential`]).
struct AxisGroup {
    axis: usize,
    u: usize,
    v: usize,
    rows: Vec<Row>,
    iv: Vec<u32>,
    cur: Vec<[Complex64; 4]>,
}

/// The tangential axes (u, v) of a face normal to `a`, rows along v: v = z whenever z
/// is tangential, because every direction of one θ has the same r̂_z = cos θ, so those
/// rows' sums serve a whole φ sweep.
fn tangential(a: usize) -> (usize, usize) {
    match a {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    }
}

/// A surface turned into what the radiation integrals need: the equivalent currents
/// times area, J·dA = n̂×H·dA and M·dA = −n̂×E·dA.
///
/// The phase e^{jk r'·r̂} is the product of three per-axis factors. Samples on faces
/// normal to an axis (a box's) are grouped by that axis and cut into rows along one
/// tangential axis v, so per direction the factors are computed once per distinct
/// coordinate, each row's sum Σ e^{jk v r̂_v}·(J_u, J_v, M_u, M_v) costs four complex
/// multiply-adds per sample, and the row's remaining phase one product per row. On x
/// and y faces the rows run along z, and their sums are made once per θ for all φ
/// (r̂_z = cos θ), leaving one product and four multiply-adds per row and direction:
/// only the z faces cost per sample and direction. Any other sample (a tilted normal,
/// or coordinates too scattered for the tables to pay) takes the direct path: its own
/// phase and all three components.
struct Currents {
    k: f64,
    eta: f64,
    coords: [Vec<f64>; 3],
    groups: Vec<AxisGroup>,
    /// Direct samples: position, J·dA, M·dA.
    other: Vec<([f64; 3], [Complex64; 3], [Complex64; 3])>,
}

impl Currents {
    fn new(s: &Surface) -> Currents {
        let (k, eta) = medium(s);
        let samples = s.with_images();
        let mut coords: [Vec<f64>; 3] = Default::default();
        for (a, c) in coords.iter_mut().enumerate() {
            *c = samples.iter().map(|p| p.pos[a]).collect();
            c.sort_by(f64::total_cmp);
            c.dedup();
        }
        let distinct: usize = coords.iter().map(Vec::len).sum();
        let tables = distinct <= samples.len() && samples.len() < u32::MAX as usize;
        let axis_of =
            |n: [f64; 3]| (0..3).find(|&a| n[a].abs() == 1.0 && n[(a + 1) % 3] == 0.0 && n[(a + 2) % 3] == 0.0);
        let index = |a: usize, x: f64| coords[a].binary_search_by(|v| v.total_cmp(&x)).unwrap_or(0) as u32;
        // (axis, ia, iu, iv, currents) of every tabled sample, then sorted into rows.
        let mut tabled: Vec<(usize, u32, u32, u32, [Complex64; 4])> = Vec::new();
        let mut other = Vec::new();
        for p in samples.iter() {
            let j = cross(p.normal, p.h).map(|c| c * p.area);
            let m = cross(p.normal, p.e).map(|c| -c * p.area);
            match axis_of(p.normal).filter(|_| tables) {
                Some(a) => {
                    let (u, v) = tangential(a);
                    tabled.push((
                        a,
                        index(a, p.pos[a]),
                        index(u, p.pos[u]),
                        index(v, p.pos[v]),
                        [j[u], j[v], m[u], m[v]],
                    ));
                }
                None => other.push((p.pos, j, m)),
            }
        }
        tabled.sort_by_key(|t| (t.0, t.1, t.2, t.3));
        let mut groups: Vec<AxisGroup> = Vec::new();
        for (a, ia, iu, iv, c) in tabled {
            if groups.last().is_none_or(|g| g.axis != a) {
                let (u, v) = tangential(a);
                groups.push(AxisGroup {
                    axis: a,
                    u,
                    v,
                    rows: Vec::new(),
                    iv: Vec::new(),
                    cur: Vec::new(),
                });
            }
            let g = groups.last_mut().expect("pushed");
            let at = g.iv.len() as u32;
            match g.rows.last_mut() {
                Some(r) if r.ia == ia && r.iu == iu => r.len += 1,
                _ => g.rows.push(Row {
                    ia,
                    iu,
                    start: at,
                    len: 1,
                }),
            }
            g.iv.push(iv);
            g.cur.push(c);
        }
        Currents {
            k,
            eta,
            coords,
            groups,
            other,
        }
    }

    fn is_empty(&self) -> bool {
        self.groups.is_empty() && self.other.is_empty()
    }

    /// The sums Σ e^{jk z r̂_z}·(J_u, J_v, M_u, M_v) of every row along z (groups with
    /// v = z; empty for the others), for the z phase table `pz`.
    fn z_row_sums(&self, pz: &[Complex64]) -> Vec<Vec<[Complex64; 4]>> {
        self.groups
            .iter()
            .map(|g| {
                if g.v != 2 {
                    return Vec::new();
                }
                g.rows.iter().map(|row| Self::row_sum(g, row, pz)).collect()
            })
            .collect()
    }

    fn row_sum(g: &AxisGroup, row: &Row, pv: &[Complex64]) -> [Complex64; 4] {
        let range = row.start as usize..(row.start + row.len) as usize;
        let mut s = [Complex64::new(0.0, 0.0); 4];
        for (c, &iv) in g.cur[range.clone()].iter().zip(&g.iv[range]) {
            let p = pv[iv as usize];
            s[0] += c[0] * p;
            s[1] += c[1] * p;
            s[2] += c[2] * p;
            s[3] += c[3] * p;
        }
        s
    }

    /// The radiation vectors N = Σ J·e^{jk r'·r̂}·dA and L = Σ M·e^{jk r'·r̂}·dA for the
    /// direction `r`, with `tables` the per-axis phase factors of `coords` for `r` and
    /// `zsums` the rows' sums along z for `r`'s θ ([`Currents::z_row_sums`]).
    fn radiation(
        &self,
        r: [f64; 3],
        tables: &[Vec<Complex64>; 3],
        zsums: &[Vec<[Complex64; 4]>],
    ) -> ([Complex64; 3], [Complex64; 3]) {
        let z = Complex64::new(0.0, 0.0);
        let mut n = [z; 3];
        let mut l = [z; 3];
        for (g, sums) in self.groups.iter().zip(zsums) {
            let (a, u, v) = (g.axis, g.u, g.v);
            let (pa, pu, pv) = (&tables[a], &tables[u], &tables[v]);
            for (k, row) in g.rows.iter().enumerate() {
                let s = if g.v == 2 { sums[k] } else { Self::row_sum(g, row, pv) };
                let ph = pa[row.ia as usize] * pu[row.iu as usize];
                n[u] += s[0] * ph;
                n[v] += s[1] * ph;
                l[u] += s[2] * ph;
                l[v] += s[3] * ph;
            }
        }
        for (p, j, m) in &self.other {
            let ph = Complex64::from_polar(1.0, self.k * (p[0] * r[0] + p[1] * r[1] + p[2] * r[2]));
            for a in 0..3 {
                n[a] += j[a] * ph;
                l[a] += m[a] * ph;
            }
        }
        (n, l)
    }

    fn table(&self, a: usize, ra: f64, out: &mut Vec<Complex64>) {
        out.clear();
        let kr = self.k * ra;
        out.extend(self.coords[a].iter().map(|&x| Complex64::from_polar(1.0, kr * x)));
    }

    /// r·E_θ and r·E_φ (e^{−jkr} removed) at polar angle `theta` for every `phi`.
    ///
    /// With e^{+jωt} (Balanis, *Antenna Theory*, 4th ed., eq. 12-10; Taflove ch. 8 with
    /// j → −j): E_θ = −jk·e^{−jkr}/(4πr)·(L_φ + η·N_θ), E_φ = +jk·e^{−jkr}/(4πr)·(L_θ − η·N_φ).
    fn fields_at_theta(&self, theta: f64, phi: &[f64]) -> Vec<(Complex64, Complex64)> {
        let (st, ct) = theta.sin_cos();
        let mut tables: [Vec<Complex64>; 3] = Default::default();
        self.table(2, ct, &mut tables[2]);
        let zsums = self.z_row_sums(&tables[2]);
        let c = Complex64::new(0.0, self.k / (4.0 * std::f64::consts::PI));
        let dot = |v: &[Complex64; 3], u: &[f64; 3]| v[0] * u[0] + v[1] * u[1] + v[2] * u[2];
        phi.iter()
            .map(|&p| {
                let (sp, cp) = p.sin_cos();
                let r = [st * cp, st * sp, ct];
                let [tx, ty, _] = &mut tables;
                self.table(0, r[0], tx);
                self.table(1, r[1], ty);
                let (n, l) = self.radiation(r, &tables, &zsums);
                let th = [ct * cp, ct * sp, -st];
                let ph = [-sp, cp, 0.0];
                let (n_t, n_p, l_t, l_p) = (dot(&n, &th), dot(&n, &ph), dot(&l, &th), dot(&l, &ph));
                (-c * (l_p + n_t * self.eta), c * (l_t - n_p * self.eta))
            })
            .collect()
    }

    /// The fields on the grid `theta` × `phi` (`[theta][phi]` flat), in parallel over θ.
    fn fields(&self, theta: &[f64], phi: &[f64]) -> Vec<(Complex64, Complex64)> {
        use rayon::prelude::*;
        let rows: Vec<Vec<(Complex64, Complex64)>> = theta.par_iter().map(|&t| self.fields_at_theta(t, phi)).collect();
        rows.concat()
    }

    fn intensity(&self, e: (Complex64, Complex64)) -> f64 {
        (e.0.norm_sqr() + e.1.norm_sqr()) / (2.0 * self.eta)
    }
}

/// Gauss–Legendre nodes and weights on [−1, 1] (Newton on P_n from the Tricomi initial
/// guesses; exact for polynomials of degree ≤ 2n − 1).
pub fn gauss_legendre(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut x = vec![0.0; n];
    let mut w = vec![0.0; n];
    let nf = n as f64;
    for i in 0..n.div_ceil(2) {
        let mut z = (std::f64::consts::PI * (i as f64 + 0.75) / (nf + 0.5)).cos();
        let mut dp = 1.0;
        for _ in 0..100 {
            // P_n(z) (p1) and P_{n-1}(z) (p0) by the three-term recurrence, then P_n'.
            let (mut p0, mut p1) = (1.0, z);
            for kk in 2..=n {
                let k = kk as f64;
                let p2 = ((2.0 * k - 1.0) * z * p1 - (k - 1.0) * p0) / k;
                p0 = p1;
                p1 = p2;
            }
            dp = nf * (z * p1 - p0) / (z * z - 1.0);
            let dz = p1 / dp;
            z -= dz;
            if dz.abs() < 1e-15 {
                break;
            }
        }
        x[i] = -z;
        x[n - 1 - i] = z;
        w[i] = 2.0 / ((1.0 - z * z) * dp * dp);
        w[n - 1 - i] = w[i];
    }
    (x, w)
}

/// The quadrature sizes (θ nodes, φ points) for ∫U dΩ over the sphere of a surface whose
/// samples lie within `radius` (m) of their centre, at wavenumber `k`.
///
/// The radiation vectors N, L are band-limited on the sphere: about the surface's
/// centre, e^{jk r'·r̂} has spherical-harmonic content of degree ≲ kR + a few (kR)^{1/3}
/// (the spherical Bessel j_l(kR) falls off super-exponentially beyond l ≈ kR), and U
/// (a product of two such functions, independent of the phase origin) has degree ≲ 2kR.
/// Gauss–Legendre with n nodes in cos θ is exact to degree 2n − 1 and the trapezoid
/// rule with m points in φ to degree m − 1, so n = kR + 12 and m = 2n are exact up to a
/// tail far below 1e-6.
pub fn quadrature_size(k: f64, radius: f64) -> (usize, usize) {
    let kr = (k * radius).max(0.0);
    let n = (kr + 3.0 * kr.cbrt() + 12.0).ceil() as usize;
    (n, 2 * n)
}

/// The radius (m) of the samples and their images about the centre of their bounding box.
fn surface_radius(s: &Surface) -> f64 {
    let samples = s.with_images();
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in samples.iter() {
        for a in 0..3 {
            lo[a] = lo[a].min(p.pos[a]);
            hi[a] = hi[a].max(p.pos[a]);
        }
    }
    let c: Vec<f64> = (0..3).map(|a| 0.5 * (lo[a] + hi[a])).collect();
    samples
        .iter()
        .map(|p| (0..3).map(|a| (p.pos[a] - c[a]).powi(2)).sum::<f64>().sqrt())
        .fold(0.0, f64::max)
}

/// Total radiated power ∫U dΩ of a surface, by the quadrature of [`quadrature_size`]
/// (independent of any output grid), over the space that exists: the surface and its
/// images radiate over the whole sphere, and each ground plane keeps half of that.
pub fn radiated_power(s: &Surface) -> f64 {
    let cur = Currents::new(s);
    s.power_share() * radiated_power_of(&cur, surface_radius(s))
}

fn radiated_power_of(cur: &Currents, radius: f64) -> f64 {
    if cur.is_empty() {
        return 0.0;
    }
    let (nt, np) = quadrature_size(cur.k, radius);
    let (x, w) = gauss_legendre(nt);
    let dphi = 2.0 * std::f64::consts::PI / np as f64;
    let theta: Vec<f64> = x.iter().map(|c| c.acos()).collect();
    let phi: Vec<f64> = (0..np).map(|j| j as f64 * dphi).collect();
    let u = cur.fields(&theta, &phi);
    u.chunks(np)
        .zip(&w)
        .map(|(row, wi)| wi * dphi * row.iter().map(|&e| cur.intensity(e)).sum::<f64>())
        .sum()
}

/// The far field of the closed surface `s` on the grid `theta` × `phi` (rad), with the
/// radiated power from an accurate quadrature of the whole sphere (not from this grid),
/// and with `port` (the driving port's powers at `s.freq`) the efficiency, gain and
/// realized gain. With image planes (`s.images`) the samples' images take part, the
/// field behind a ground plane is zero and P_rad covers the space in front of it.
///
/// Equivalent currents J = n̂×H, M = −n̂×E on each sample; radiation vectors
/// N = Σ J·e^{jk r'·r̂}·dA, L = Σ M·e^{jk r'·r̂}·dA (the midpoint rule on each patch);
/// r·E_θ = −jk/(4π)·(L_φ + η·N_θ), r·E_φ = +jk/(4π)·(L_θ − η·N_φ) (e^{+jωt}, phase
/// referred to the coordinate origin); U = (|rE_θ|² + |rE_φ|²)/(2η); D = 4πU/P_rad.
/// Directions are evaluated in parallel over θ (rayon); the phase e^{jk r'·r̂} is built
/// from per-axis tables of the distinct coordinates, row by row, with the z rows of x
/// and y faces summed once per θ (see `Currents`).
pub fn compute(name: &str, s: &Surface, theta: &[f64], phi: &[f64], port: Option<PortPower>) -> FarField {
    let cur = Currents::new(s);
    let dirs: Vec<(f64, f64)> = theta.iter().flat_map(|&t| phi.iter().map(move |&p| (t, p))).collect();
    let zero = (Complex64::new(0.0, 0.0), Complex64::new(0.0, 0.0));
    let mut fields = if cur.is_empty() {
        vec![zero; dirs.len()]
    } else {
        cur.fields(theta, phi)
    };
    for (e, &(t, p)) in fields.iter_mut().zip(&dirs) {
        if s.hidden(t, p) {
            *e = zero;
        }
    }
    let intensity: Vec<f64> = fields.iter().map(|&e| cur.intensity(e)).collect();
    let p_rad = s.power_share() * radiated_power_of(&cur, surface_radius(s));
    let four_pi = 4.0 * std::f64::consts::PI;
    let ratio = |p: f64| -> Option<Vec<f64>> {
        (p > 0.0 && p.is_finite()).then(|| intensity.iter().map(|u| four_pi * u / p).collect())
    };
    let directivity = ratio(p_rad).unwrap_or_else(|| vec![0.0; intensity.len()]);
    let (imax, max_directivity) =
        directivity
            .iter()
            .copied()
            .enumerate()
            .fold((0, 0.0), |b, (i, d)| if d > b.1 { (i, d) } else { b });
    let max_at = dirs.get(imax).copied().unwrap_or((0.0, 0.0));
    let (efficiency, gain, realized_gain) = match port {
        Some(pp) => (
            (pp.p_acc > 0.0).then(|| p_rad / pp.p_acc),
            ratio(pp.p_acc),
            ratio(pp.p_inc),
        ),
        None => (None, None, None),
    };
    FarField {
        name: name.to_string(),
        freq: s.freq,
        theta: theta.to_vec(),
        phi: phi.to_vec(),
        e_theta: fields.iter().map(|e| e.0).collect(),
        e_phi: fields.iter().map(|e| e.1).collect(),
        intensity,
        radiated_power: p_rad,
        directivity,
        max_directivity,
        max_at,
        efficiency,
        gain,
        realized_gain,
        polarization: Polarization::default(),
        images: s.images.clone(),
        rcs: None,
        monostatic: None,
    }
}

/// The driven port's incident and accepted power at `freq`, linearly interpolated
/// between the port's frequencies (exact at one of them); None outside its band or for
/// a port that was not driven.
pub fn port_power(port: &crate::results::PortResult, freq: f64) -> Option<PortPower> {
    if !port.driven {
        return None;
    }
    let f = &port.freq;
    let n = f.len().min(port.p_inc.len()).min(port.p_acc.len());
    let at = |i: usize| PortPower {
        p_inc: port.p_inc[i],
        p_acc: port.p_acc[i],
    };
    if let Some(i) = f[..n].iter().position(|&x| x == freq) {
        return Some(at(i));
    }
    let i = f[..n].windows(2).position(|w| (w[0] - freq) * (w[1] - freq) < 0.0)?;
    let t = (freq - f[i]) / (f[i + 1] - f[i]);
    let lerp = |a: f64, b: f64| a + t * (b - a);
    Some(PortPower {
        p_inc: lerp(port.p_inc[i], port.p_inc[i + 1]),
        p_acc: lerp(port.p_acc[i], port.p_acc[i + 1]),
    })
}

/// [`compute`] for every surface (one per frequency) of the far field `name`, with the
/// gain from the driven port among `ports` when there is one (powers from
/// [`port_power`] at each surface's frequency): what a finished run stores in
/// `RunResults::farfields`.
pub fn compute_all(
    name: &str,
    surfaces: &[Surface],
    theta: &[f64],
    phi: &[f64],
    ports: &[crate::results::PortResult],
) -> Vec<FarField> {
    let driven = ports.iter().find(|p| p.driven);
    surfaces
        .iter()
        .map(|s| compute(name, s, theta, phi, driven.and_then(|p| port_power(p, s.freq))))
        .collect()
}

/// The angles `0, step, .., stop` (degrees, `stop` included when it is a multiple of
/// `step`) in radians: the output grid of a `theta_step`/`phi_step`.
pub fn grid(step_deg: f64, stop_deg: f64) -> Vec<f64> {
    if step_deg <= 0.0 || !step_deg.is_finite() {
        return vec![0.0];
    }
    let n = (stop_deg / step_deg + 1e-9).floor() as usize;
    (0..=n).map(|i| (i as f64 * step_deg).to_radians()).collect()
}

/// A principal-plane cut of a pattern: the plane, and the values along a full turn
/// `angle` (degrees in [0, 360)) measured in that plane (from +z towards +x for
/// `phi=0`, from +z towards +y for `phi=90`, from +x towards +y for `theta=90`).
#[derive(Clone, Debug, PartialEq)]
pub struct Cut {
    /// `xz (φ = 0°)`, `yz (φ = 90°)` or `xy (θ = 90°)`, with the grid angles actually used.
    pub label: String,
    pub angle: Vec<f64>,
    pub values: Vec<f64>,
}

/// The index of the grid angle nearest to `target` (degrees, modulo 360), if within half
/// the grid's spacing (or 0.5° for a single angle).
fn nearest(grid_deg: &[f64], target: f64, periodic: bool) -> Option<usize> {
    let wrap = |d: f64| {
        if periodic {
            let d = d.rem_euclid(360.0);
            d.min(360.0 - d)
        } else {
            d.abs()
        }
    };
    let (i, d) = grid_deg
        .iter()
        .enumerate()
        .map(|(i, &g)| (i, wrap(g - target)))
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    let step = grid_deg
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .filter(|s| *s > 0.0)
        .fold(f64::INFINITY, f64::min);
    let tol = if step.is_finite() { 0.5 * step + 1e-9 } else { 0.5 };
    (d <= tol).then_some(i)
}

/// The principal-plane cuts (φ = 0°, φ = 90°, θ = 90°) of `values` on the grid
/// `theta_deg` × `phi_deg` (degrees, `values` `[theta][phi]` flat). A φ cut joins the
/// column at φ₀ (angle θ) with the column at φ₀ + 180° (angle 360° − θ); a plane whose
/// angles the grid lacks (within half a step) is left out.
pub fn principal_cuts(theta_deg: &[f64], phi_deg: &[f64], values: &[f64]) -> Vec<Cut> {
    let np = phi_deg.len();
    let mut cuts = Vec::new();
    if values.len() != theta_deg.len() * np || np == 0 {
        return cuts;
    }
    for (name, p0) in [("xz", 0.0), ("yz", 90.0)] {
        let Some(j0) = nearest(phi_deg, p0, true) else { continue };
        let back = nearest(phi_deg, p0 + 180.0, true);
        let mut pts: Vec<(f64, f64)> = theta_deg
            .iter()
            .enumerate()
            .map(|(i, &t)| (t, values[i * np + j0]))
            .collect();
        if let Some(j1) = back {
            for (i, &t) in theta_deg.iter().enumerate() {
                let a = 360.0 - t;
                if a < 360.0 && !pts.iter().any(|q| (q.0 - a).abs() < 1e-9) {
                    pts.push((a, values[i * np + j1]));
                }
            }
        }
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let label = match back {
            Some(j1) => format!("{name} (φ = {}° / {}°)", phi_deg[j0], phi_deg[j1]),
            None => format!("{name} (φ = {}°)", phi_deg[j0]),
        };
        cuts.push(Cut {
            label,
            angle: pts.iter().map(|p| p.0).collect(),
            values: pts.iter().map(|p| p.1).collect(),
        });
    }
    if let Some(i0) = nearest(theta_deg, 90.0, false) {
        let mut pts: Vec<(f64, f64)> = phi_deg
            .iter()
            .enumerate()
            .map(|(j, &p)| (p.rem_euclid(360.0), values[i0 * np + j]))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        pts.dedup_by(|a, b| (a.0 - b.0).abs() < 1e-9);
        cuts.push(Cut {
            label: format!("xy (θ = {}°)", theta_deg[i0]),
            angle: pts.iter().map(|p| p.0).collect(),
            values: pts.iter().map(|p| p.1).collect(),
        });
    }
    cuts
}

/// Linear power ratio in dB (dBi for directivity and gain); −∞ clamped to −300.
pub fn db(x: f64) -> f64 {
    if x > 0.0 {
        10.0 * x.log10()
    } else {
        -300.0
    }
}

/// Lines for the run summary, per far field and frequency: radiated power, efficiency,
/// peak directivity and where, peak gain and realized gain (the last three with a
/// driven port), e.g. `far field ff at 1 GHz: P_rad 982.1 mW, D_max 2.15 dBi at
/// (θ 90°, φ 0°), efficiency 98.2 %, G_max 2.07 dBi, realized 1.95 dBi`.
pub fn summary_lines(ffs: &[FarField]) -> Vec<String> {
    use crate::fmt::{hz, sig};
    let mut out = Vec::new();
    for f in ffs {
        let (t, p) = f.max_at;
        // Without a driven port the power is in transform units (see `results`).
        let power = match f.efficiency {
            Some(_) => crate::fmt::si(f.radiated_power, "W"),
            None => format!("{} (transform units: no driven port)", sig(f.radiated_power, 4)),
        };
        let mut line = format!(
            "far field {} at {}: P_rad {power}, D_max {} dBi at (θ {}°, φ {}°)",
            f.name,
            hz(f.freq),
            crate::fmt::fixed(db(f.max_directivity), 2),
            sig(t.to_degrees(), 4),
            sig(p.to_degrees(), 4),
        );
        if let Some(e) = f.efficiency {
            line += &format!(", efficiency {} %", crate::fmt::fixed(100.0 * e, 1));
        }
        let peak = |v: &Option<Vec<f64>>| v.as_ref().map(|v| v.iter().copied().fold(0.0, f64::max));
        if let Some(g) = peak(&f.gain) {
            line += &format!(", G_max {} dBi", crate::fmt::fixed(db(g), 2));
        }
        if let Some(g) = peak(&f.realized_gain) {
            line += &format!(", realized {} dBi", crate::fmt::fixed(db(g), 2));
        }
        if let Some((t, p, sigma)) = f.monostatic {
            line += &format!(
                ", monostatic RCS {} dBsm (backscatter θ {}°, φ {}°)",
                crate::fmt::fixed(db(sigma), 2),
                sig(t.to_degrees(), 4),
                sig(p.to_degrees(), 4)
            );
        }
        if !f.images.is_empty() {
            let planes: Vec<String> = f.images.iter().map(ImagePlane::describe).collect();
            line += &format!(", image planes {}", planes.join(", "));
        }
        out.push(line);
        if let Some(p) = polarization_line(f) {
            out.push(p);
        }
    }
    out
}

/// The polarisation at the peak: the cross-polar level below the co-polar one for the
/// far field's reference, and the axial ratio with its sense (or "linear").
fn polarization_line(f: &FarField) -> Option<String> {
    let np = f.phi.len();
    let it = f.theta.iter().position(|&t| t == f.max_at.0)?;
    let ip = f.phi.iter().position(|&p| p == f.max_at.1)?;
    let i = it * np + ip;
    let (co, cross) = f.co_cross();
    let (ar, sense) = f.axial_ratio();
    let (c, x) = (co.get(i)?.norm_sqr(), cross.get(i)?.norm_sqr());
    if c + x == 0.0 {
        return None;
    }
    let reference = match f.polarization {
        Polarization::Theta => "θ".to_string(),
        Polarization::Phi => "φ".to_string(),
        Polarization::Ludwig3 { angle } => format!("Ludwig 3, {}° from x", crate::fmt::sig(angle, 4)),
    };
    let level = if x == 0.0 || c / x > 1e10 {
        "cross-pol more than 100 dB below co-pol".to_string()
    } else {
        format!("cross-pol {:.1} dB relative to co-pol", 10.0 * (x / c).log10())
    };
    let ar_db = ar_db(ar[i]);
    let ellipse = if ar_db > LINEAR_AR_DB {
        format!("axial ratio > {LINEAR_AR_DB:.0} dB (linear)")
    } else {
        let hand = if sense[i] > 0 { "RHCP" } else { "LHCP" };
        format!("axial ratio {ar_db:.2} dB ({hand})")
    };
    Some(format!("  at the peak: {level} (co = {reference}), {ellipse}"))
}

#[cfg(test)]
#[path = "farfield_tests.rs"]
mod tests;

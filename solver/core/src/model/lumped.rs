//! Lumped ports and lumped R, L, C elements on E edges.
//!
//! An element spans N series edges along its axis (from the snapped `start` node to the
//! `end` node) and M parallel columns (when the endpoints also differ across the axis).
//! Each edge of an element of total R, L, C (parallel topology) holds
//!
//! * R_e = R·M/N: an extra conductivity σ = l/(R_e·A) on the edge,
//! * C_e = C·N/M: an extra permittivity Δε_r = C_e·l/(ε0·A),
//! * L_e = L·M/N: an auxiliary current density J_L (the `lumped_l` pass),
//!
//! with l the cell length along the axis and A the cell face normal to it, so that a
//! column of N edges in series is R·M (C/M, L·M) and M columns in parallel give R (C, L).
//! R and C become a new row of the coefficient table, so the bulk kernels apply them.
//!
//! A port is a resistor R = Z0 (as above) in parallel with a Norton current source: the
//! voltage source V_s(t) in series with R·M of each column, split over its N edges, is
//! (V_s/N in series with R_e) per edge, i.e. a current I_e = V_s/(R·M) along start→end
//! in parallel with R_e, a current density J = I_e/A. `ε∂E/∂t = ∇×H − σE − J` gives
//! `E += −cb·J`: a soft current source ([`PointSource`], moment I_e·l) per edge, applied
//! by the `sources_e` pass at (n+½)·dt on both backends.
use super::points::PointSource;
use super::{CoefTable, Grid, ModelError};
use crate::scene::{Lumped, Port, Scene, SourceKind};
use crate::waveform::Waveform;
use crate::{Component, EPS0};

/// A lumped port as discretised.
#[derive(Clone, Debug, PartialEq)]
pub struct PortModel {
    pub name: String,
    /// Reference impedance and internal resistance (Ω).
    pub z0: f64,
    pub driven: bool,
    pub axis: usize,
    /// +1 when `end` is above `start` along the axis, else −1.
    pub sign: f64,
    /// N edges in series per column, M parallel columns.
    pub series: usize,
    pub columns: usize,
    /// Edge length l along the axis (m).
    pub length: f64,
    /// Resistance per edge R·M/N (Ω).
    pub r_edge: f64,
    /// The E samples of the port (component `axis`), column by column, N per column.
    pub edges: Vec<[usize; 3]>,
    /// The H samples of the loop around the middle cross-section and their weights:
    /// I along +axis = Σ w·H (A).
    pub loop_h: Vec<(Component, [usize; 3], f64)>,
    pub waveform: Option<Waveform>,
    /// The reference plane's shift along a matched feed line (m) and that line's
    /// effective permittivity ([`crate::scene::Port::reference_plane`]).
    pub reference_plane: f64,
    pub eps_eff: f64,
    /// A line port's measurement planes on its line (`line.rs`); None for a lumped port.
    pub line: Option<super::line::LineProbe>,
}

impl PortModel {
    /// The port voltage V = −∫_start^end E·dl from the port's E samples (in `edges`
    /// order), averaged over the parallel columns.
    pub fn voltage(&self, e: &[f32]) -> f64 {
        let sum: f64 = e.iter().map(|&x| x as f64).sum();
        -self.sign * self.length * sum / self.columns as f64
    }

    /// The port current (leaving the positive terminal) from the loop's H samples.
    pub fn current(&self, h: &[f32]) -> f64 {
        self.sign
            * self
                .loop_h
                .iter()
                .zip(h)
                .map(|((_, _, w), &x)| w * x as f64)
                .sum::<f64>()
    }

    /// The E component of the port's edges.
    pub fn component(&self) -> Component {
        Component::ALL[self.axis]
    }
}

/// A lumped element as discretised (per-edge values).
#[derive(Clone, Debug, PartialEq)]
pub struct LumpedModel {
    pub name: String,
    pub axis: usize,
    pub series: usize,
    pub columns: usize,
    pub edges: Vec<[usize; 3]>,
    /// Per edge (Ω, H, F).
    pub r_edge: Option<f64>,
    pub l_edge: Option<f64>,
    pub c_edge: Option<f64>,
    /// For an inductor: J_L += k·E each step, k = dt·l/(L_e·A) (S/m), and the edge's cb.
    pub l_coef: Option<f32>,
    pub cb: Vec<f32>,
}

/// How far below the computed limit an inductor's `cb·k` must stay: the limit is that of
/// a vacuum lattice (quadrature error ~1e-12), and f32 rounding and the edge's
/// neighbours (a dielectric, another inductor) shift it by a little.
pub const INDUCTOR_MARGIN: f64 = 1.02;

/// The largest stable `cb·k` (= ω₀²·dt², ω₀ = 1/√(L_e·C_e) of the edge's inductance and
/// its cell's capacitance ε·A/l) of one inductor edge along `axis` on `grid`.
///
/// The update is leapfrog: E (with the curl) against H and the inductor current J_L
/// together, stable while every eigenvalue of the stiffness K (the lattice's curl-curl
/// plus ω₀² on the edge) stays below 4/dt². A large ω₀² pulls one eigenvalue out of the
/// lattice's band, localised on the edge, at the λ with ω₀²·G(λ) = 1, G(λ) the lattice
/// Green's function on the edge, ⟨(1 − f)/(λ − c²|s|²) + f/λ⟩ over the Brillouin zone
/// (s_a = 2 sin(q_a d_a/2)/d_a; f = s_axis²/|s|² is the edge's share of the gradient,
/// static, mode). So the bound is ω₀²dt² < 1/(dt⁻²·G(4/dt²)): 1.94 at Courant 0.99 on
/// cubic cells (an isolated LC would allow 4), 3.64 at 0.5. Measured on the CPU backend:
/// 2 mm cubic cells, Courant 0.99: L = 0.42 nH diverges, 0.44 nH runs; the bound says
/// 0.423 nH (`tests/inductor_bound.rs`).
pub fn inductor_limit(grid: &Grid, axis: usize) -> f64 {
    // Midpoint quadrature over θ_a = q_a·d_a/2 in (0, π/2): the integrand is smooth and
    // periodic, so 24 points per axis give 1e-12.
    const N: usize = 24;
    let w = grid.d.map(|d| 4.0 * (crate::C0 * grid.dt / d).powi(2));
    let u: Vec<f64> = (0..N)
        .map(|k| {
            ((k as f64 + 0.5) * std::f64::consts::FRAC_PI_2 / N as f64)
                .sin()
                .powi(2)
        })
        .collect();
    let mut g = 0.0;
    for &a in &u {
        for &b in &u {
            for &c in &u {
                let uu = [a, b, c];
                let lam = w[0] * a + w[1] * b + w[2] * c;
                let f = w[axis] * uu[axis] / lam;
                g += (1.0 - f) / (4.0 - lam).max(1e-12) + f / 4.0;
            }
        }
    }
    (N * N * N) as f64 / g
}

impl LumpedModel {
    /// For an inductor: (its `cb·k`, the limit of [`inductor_limit`] over
    /// [`INDUCTOR_MARGIN`], the smallest stable total L in H). None without an `l`.
    pub fn inductor_stability(&self, grid: &Grid) -> Option<(f64, f64, f64)> {
        let (l_edge, k) = (self.l_edge?, self.l_coef? as f64);
        let cb = self.cb.iter().fold(0f64, |m, &c| m.max(c.abs() as f64));
        let ck = cb * k;
        let limit = inductor_limit(grid, self.axis) / INDUCTOR_MARGIN;
        // cb·k ∝ 1/L: the total L (L_e·N/M) at which it meets the limit.
        let l_total = l_edge * self.series as f64 / self.columns.max(1) as f64;
        Some((ck, limit, l_total * ck / limit))
    }
}

/// Node index range of an element: (axis, lo, hi, sign), edges `lo[axis]..hi[axis]`,
/// columns over nodes `lo..=hi` of the other axes.
fn span(start: [f64; 3], end: [f64; 3], axis: usize, grid: &Grid) -> ([usize; 3], [usize; 3], f64) {
    let node = |a: usize, x: f64| ((x / grid.d[a]).round().max(0.0) as usize).min(grid.n[a]);
    let ns = [0, 1, 2].map(|a| node(a, start[a]));
    let ne = [0, 1, 2].map(|a| node(a, end[a]));
    let lo = [0, 1, 2].map(|a| ns[a].min(ne[a]));
    let hi = [0, 1, 2].map(|a| ns[a].max(ne[a]));
    let sign = if ne[axis] >= ns[axis] { 1.0 } else { -1.0 };
    (lo, hi, sign)
}

/// Every E edge of the span, column by column (columns in C order of the other axes).
fn edges(axis: usize, lo: [usize; 3], hi: [usize; 3]) -> Vec<[usize; 3]> {
    let mut out = Vec::new();
    let others: Vec<usize> = (0..3).filter(|&x| x != axis).collect();
    for u in lo[others[0]]..=hi[others[0]] {
        for v in lo[others[1]]..=hi[others[1]] {
            for m in lo[axis]..hi[axis] {
                let mut p = [0; 3];
                p[axis] = m;
                p[others[0]] = u;
                p[others[1]] = v;
                out.push(p);
            }
        }
    }
    out
}

/// The H loop around the cross-section `lo..=hi` (transverse nodes) at edge layer `m`.
pub(super) fn current_loop(
    axis: usize,
    lo: [usize; 3],
    hi: [usize; 3],
    m: usize,
    grid: &Grid,
) -> Vec<(Component, [usize; 3], f64)> {
    let (t1, t2) = ((axis + 1) % 3, (axis + 2) % 3);
    let h1 = Component::ALL[3 + t1];
    let h2 = Component::ALL[3 + t2];
    let mut out = Vec::new();
    // H along t2 on the t1 = hi+½ (weight +d_t2) and lo−½ (−d_t2) sides.
    for j in lo[t2]..=hi[t2] {
        for (i, w) in [(hi[t1], grid.d[t2]), (lo[t1] - 1, -grid.d[t2])] {
            let mut p = [0; 3];
            p[axis] = m;
            p[t1] = i;
            p[t2] = j;
            out.push((h2, p, w));
        }
    }
    // H along t1 on the t2 = hi+½ (−d_t1) and lo−½ (+d_t1) sides.
    for i in lo[t1]..=hi[t1] {
        for (j, w) in [(hi[t2], -grid.d[t1]), (lo[t2] - 1, grid.d[t1])] {
            let mut p = [0; 3];
            p[axis] = m;
            p[t1] = i;
            p[t2] = j;
            out.push((h1, p, w));
        }
    }
    out
}

/// Refuse edges on a boundary face that is not a plain interior (PEC or CPML walls force
/// tangential E to zero; periodic/PMC faces are not supported for elements).
fn check_faces(
    what: &'static str,
    name: &str,
    axis: usize,
    lo: [usize; 3],
    hi: [usize; 3],
    grid: &Grid,
) -> Result<(), ModelError> {
    for a in (0..3).filter(|&a| a != axis) {
        if lo[a] == 0 || hi[a] >= grid.n[a] {
            return Err(ModelError::Element {
                what,
                name: name.to_string(),
                why: format!(
                    "its edges lie on the {} boundary face, where the boundary fixes E; move it inside the domain",
                    ["x", "y", "z"][a]
                ),
            });
        }
    }
    Ok(())
}

/// Apply the scene's lumped elements and ports to the material indices and coefficient
/// table; returns them discretised, and the ports' sources.
pub(super) fn build(
    scene: &Scene,
    grid: &Grid,
    coefs: &mut CoefTable,
    mat: &mut [Vec<u16>; 6],
) -> Result<Elements, ModelError> {
    let mut lumped = Vec::new();
    for el in &scene.lumped {
        lumped.push(lumped_element(el, grid, coefs, mat)?);
    }
    let mut ports = Vec::new();
    let mut sources = Vec::new();
    for p in &scene.ports {
        let (pm, src) = port(p, grid, coefs, mat)?;
        ports.push(pm);
        sources.extend(src);
    }
    if coefs.e.len() > u16::MAX as usize {
        return Err(ModelError::TooManyMaterials(coefs.e.len()));
    }
    Ok(Elements { ports, lumped, sources })
}

/// What [`build`] makes of the scene's ports and lumped elements.
pub(super) struct Elements {
    pub ports: Vec<PortModel>,
    pub lumped: Vec<LumpedModel>,
    /// The driven ports' Norton sources.
    pub sources: Vec<PointSource>,
}

/// Add (Δε_r, Δσ) to every edge's averaged material; returns each edge's new cb.
#[allow(clippy::too_many_arguments)]
fn load_edges(
    what: &'static str,
    name: &str,
    c: Component,
    list: &[[usize; 3]],
    d_eps: f64,
    d_sigma: f64,
    grid: &Grid,
    coefs: &mut CoefTable,
    mat: &mut [Vec<u16>; 6],
) -> Result<Vec<f32>, ModelError> {
    if list.is_empty() {
        // The scene parser refuses this on the scene's own grid; a grid changed after
        // parsing (a coarser cell in a test or a front end) can still snap both ends
        // of a short element to one node.
        return Err(ModelError::Element {
            what,
            name: name.to_string(),
            why: "its ends snap to the same grid node on this grid: it covers no edge".into(),
        });
    }
    let mut cbs = Vec::with_capacity(list.len());
    for &p in list {
        let flat = grid.idx(p[0], p[1], p[2]);
        let m = mat[c.index()][flat] as usize;
        let Some((eps, sigma)) = coefs.e_props[m] else {
            return Err(ModelError::Element {
                what,
                name: name.to_string(),
                why: format!("its edge {c}{p:?} is inside a PEC object (shorted); leave a gap in the conductor for it"),
            });
        };
        if !coefs.e_poles[m].is_empty() {
            return Err(ModelError::Element {
                what,
                name: name.to_string(),
                why: format!("its edge {c}{p:?} is in a dispersive material, which lumped loads do not support yet; move it to a non-dispersive gap"),
            });
        }
        let row = coefs.e_row(Some((eps + d_eps, sigma + d_sigma)), grid.dt);
        mat[c.index()][flat] = row;
        cbs.push(coefs.e[row as usize][1]);
    }
    Ok(cbs)
}

fn geometry(axis: usize, grid: &Grid) -> (f64, f64) {
    let l = grid.d[axis];
    let area = grid.d[(axis + 1) % 3] * grid.d[(axis + 2) % 3];
    (l, area)
}

fn lumped_element(
    el: &Lumped,
    grid: &Grid,
    coefs: &mut CoefTable,
    mat: &mut [Vec<u16>; 6],
) -> Result<LumpedModel, ModelError> {
    let (lo, hi, _) = span(el.start, el.end, el.axis, grid);
    check_faces("lumped element", &el.name, el.axis, lo, hi, grid)?;
    let list = edges(el.axis, lo, hi);
    let n = hi[el.axis] - lo[el.axis];
    let m = list.len() / n.max(1);
    let (l, area) = geometry(el.axis, grid);
    let ratio = m as f64 / n as f64;
    let r_edge = el.r.map(|r| r * ratio);
    let l_edge = el.l.map(|x| x * ratio);
    let c_edge = el.c.map(|c| c / ratio);
    let d_sigma = r_edge.map_or(0.0, |r| l / (r * area));
    let d_eps = c_edge.map_or(0.0, |c| c * l / (EPS0 * area));
    let comp = Component::ALL[el.axis];
    let cb = load_edges(
        "lumped element",
        &el.name,
        comp,
        &list,
        d_eps,
        d_sigma,
        grid,
        coefs,
        mat,
    )?;
    Ok(LumpedModel {
        name: el.name.clone(),
        axis: el.axis,
        series: n,
        columns: m,
        edges: list,
        r_edge,
        l_edge,
        c_edge,
        l_coef: l_edge.map(|le| (grid.dt * l / (le * area)) as f32),
        cb,
    })
}

fn port(
    p: &Port,
    grid: &Grid,
    coefs: &mut CoefTable,
    mat: &mut [Vec<u16>; 6],
) -> Result<(PortModel, Vec<PointSource>), ModelError> {
    let a = p.axis;
    let (mut lo, mut hi, sign) = span(p.start, p.end, a, grid);
    if let Some(l) = p.line.filter(|l| l.te10) {
        // A waveguide port's start and end are the guide's inner corners: its feed's
        // columns stop one node short of the side walls (E along the axis is zero there).
        let w = 3 - a - l.axis;
        if hi[w] >= lo[w] + 2 {
            lo[w] += 1;
            hi[w] -= 1;
        }
    }
    check_faces("port", &p.name, a, lo, hi, grid)?;
    let list = edges(a, lo, hi);
    let n = hi[a] - lo[a];
    let m = list.len() / n.max(1);
    let (l, area) = geometry(a, grid);
    let r_edge = p.impedance * m as f64 / n as f64;
    let comp = Component::ALL[a];
    let cb = load_edges("port", &p.name, comp, &list, 0.0, l / (r_edge * area), grid, coefs, mat)?;
    let vol = l * area;
    let mut sources = Vec::new();
    if p.excite {
        if let Some(w) = &p.waveform {
            for (q, (&e, &cb)) in list.iter().zip(&cb).enumerate() {
                // Moment I_e·l with I_e = V_s/(R·M) along start→end: scale = −cb/vol·(±l/(R·M)).
                let scale = -(cb as f64) / vol * sign * l / (p.impedance * m as f64);
                sources.push(PointSource {
                    name: format!("port {} edge {q}", p.name),
                    kind: SourceKind::Current,
                    component: comp,
                    index: e,
                    flat: grid.idx(e[0], e[1], e[2]),
                    scale,
                    waveform: w.clone(),
                    line: false,
                });
            }
        }
    }
    let mid = lo[a] + n / 2;
    let loop_h = current_loop(a, lo, hi, mid, grid);
    Ok((
        PortModel {
            name: p.name.clone(),
            z0: p.impedance,
            driven: p.excite,
            axis: a,
            sign,
            series: n,
            columns: m,
            length: l,
            r_edge,
            edges: list,
            loop_h,
            waveform: p.waveform.clone(),
            reference_plane: p.reference_plane,
            eps_eff: p.eps_eff,
            line: None,
        },
        sources,
    ))
}

//! Transmission-line ports: the V and I of a line measured behind a lumped feed.
//!
//! A port with `line = "+x"` is the feed of a line (microstrip, stripline, coax, …) that
//! runs from it along +x: the feed (the lumped port of `lumped.rs`) launches the wave, and
//! the line's voltage and current are measured at two planes down the line, which is
//! enough to separate the forward and backward waves and to measure the line itself
//! (`ports::line_waves`):
//!
//! * V at node planes a (`measure` from the feed) and b = a + D (the feed's E edges moved
//!   along the line: the path from the return conductor to the signal conductor);
//! * I at the same planes: the mean of the ∮H loops half a cell before and after each
//!   (loops on the dual grid around the signal conductor's cross-section: the conductor
//!   at the feed's `end`, found by a flood fill of PEC edges in the plane, with one
//!   half-cell of margin). On a uniform line the mean of the two half-plane currents
//!   is (F − B)·cosh(γΔ/2)/Z_B with F, B the forward and backward voltage waves at the
//!   node: V and this current obey the continuous line's relations at the node with
//!   Z = Z_B/cosh(γΔ/2), so the classic two-plane formulas apply exactly.
//!
//! D is a quarter of the shortest guided wavelength the run asks for (the top of
//! `[frequencies]` in the scene's densest material), so βD ≤ π/2: the line's phase
//! between the planes is large against the measurement's errors (planes one cell apart
//! magnify them by 1/(βΔ), ~100 at 1 GHz on a 0.2 mm grid), and the planes are never half
//! a wavelength apart, where both see the same |V|.
//!
//! What limits the measurement is what is left on the planes of the near field of the
//! feed and of the far end (a discontinuity's quasi-static field above a ground plane
//! falls off as a power of the distance, not exponentially): on a 0.2 mm grid, an
//! air microstrip 1.6 mm high measured ε_eff 4 % high with planes 6 and 15 mm from the
//! feed and 5 mm from the far end, 1 % with both planes 12–21 mm from either. So the
//! default `measure` is 2.5 times the line's cross-section (the signal conductor's
//! largest side at the feed plus the feed's length on either side; at least 5 cells),
//! and a line port wants its line that long, plus D, before any discontinuity. (A coax
//! fed by one column of edges excites its higher modes strongly: on a 0.5 mm grid, a
//! square coax 10 mm across measured ε_eff 3 % high 12 mm from the feed, 0.35 % at 25 mm.)
use super::{CoefTable, CpmlLayer, FaceKind, Grid, ModelError, PortModel};
use crate::scene::Port;
use crate::Component;
use std::collections::VecDeque;

/// The measurement planes of a line port.
#[derive(Clone, Debug, PartialEq)]
pub struct LineProbe {
    /// The line's axis and direction (+1/−1) away from the feed.
    pub axis: usize,
    pub sign: f64,
    /// Distance D (m) between planes a and b.
    pub spacing: f64,
    /// Distance (m) from the feed plane to plane a.
    pub offset: f64,
    /// V paths at node planes a and b: the feed's edges (in `PortModel::edges` order) moved
    /// along the line; V = −∫E·dl from the return to the signal conductor.
    pub v: [Vec<[usize; 3]>; 2],
    /// V = Σ w·E over `v` (per plane, the same weights).
    pub v_w: Vec<f64>,
    /// I at planes a and b: (component, index, weight) of the two loops half a cell
    /// before and after the plane, weights halved: I = Σ w·H, the mean current flowing
    /// away from the feed on the signal conductor.
    pub i: [Vec<(Component, [usize; 3], f64)>; 2],
    /// The signal conductor's cross-section (transverse node ranges, the line axis's entry
    /// is plane a), for reports.
    pub conductor: ([usize; 3], [usize; 3]),
    /// `impedance = "line"`: a, b and S are the line's own waves (referred to Z_line).
    pub to_line: bool,
    /// A waveguide's TE10 port (V and I the mode's amplitudes; `conductor` is the guide's
    /// inner cross-section).
    pub te10: bool,
}

impl LineProbe {
    /// Samples per step of this probe: (E, H).
    pub fn samples(&self) -> (usize, usize) {
        (self.v[0].len() + self.v[1].len(), self.i[0].len() + self.i[1].len())
    }
}

/// Attach the measurement planes of every line port (ports in scene order); `f_max`
/// is the top of the run's frequencies.
pub(super) fn attach(
    scene_ports: &[Port],
    f_max: f64,
    ports: &mut [PortModel],
    at: &Plane<'_>,
    cpml: &[CpmlLayer],
) -> Result<(), ModelError> {
    for (sp, pm) in scene_ports.iter().zip(ports.iter_mut()) {
        if let Some(line) = sp.line {
            let mut probe = match line.te10 {
                true => te10(pm, line.axis, line.sign, line.measure, f_max, at, cpml)?,
                false => probe(pm, line.axis, line.sign, line.measure, f_max, at, cpml)?,
            };
            probe.to_line = line.to_line;
            probe.te10 = line.te10;
            pm.line = Some(probe);
        }
    }
    Ok(())
}

/// The discretised scene as the line search sees it: which E edges are PEC, and faces.
pub(super) struct Plane<'a> {
    pub grid: &'a Grid,
    pub faces: &'a [FaceKind; 6],
    pub coefs: &'a CoefTable,
    pub mat: &'a [Vec<u16>; 6],
}

impl Plane<'_> {
    /// Whether the E edge of component `c` at `p` is PEC (false outside the array).
    fn pec_edge(&self, c: usize, p: [i64; 3]) -> bool {
        let g = self.grid;
        let mut dims = [g.n[0] + 1, g.n[1] + 1, g.n[2] + 1];
        dims[c] -= 1;
        if (0..3).any(|a| p[a] < 0 || p[a] >= dims[a] as i64) {
            return false;
        }
        let flat = g.idx(p[0] as usize, p[1] as usize, p[2] as usize);
        self.coefs.e_props[self.mat[c][flat] as usize].is_none()
    }

    /// Whether node `p` lies on a conductor: an incident PEC edge, or a PEC boundary face.
    fn conductor(&self, p: [i64; 3]) -> bool {
        (0..3).any(|a| {
            let mut q = p;
            q[a] -= 1;
            let on_face = (p[a] == 0 && self.faces[2 * a] == FaceKind::Pec)
                || (p[a] == self.grid.n[a] as i64 && self.faces[2 * a + 1] == FaceKind::Pec);
            on_face || self.pec_edge(a, p) || self.pec_edge(a, q)
        })
    }

    /// The conductor through `seeds` in the node plane `axis = plane`: nodes joined by PEC
    /// edges in the plane. Err(node) if it reaches the domain's edge at `node`.
    fn component(&self, axis: usize, plane: usize, seeds: &[[usize; 3]]) -> Result<Vec<[usize; 3]>, [usize; 3]> {
        let n = self.grid.n;
        let mut seen = std::collections::HashSet::new();
        let mut queue: VecDeque<[usize; 3]> = VecDeque::new();
        for s in seeds {
            let mut s = *s;
            s[axis] = plane;
            if seen.insert(s) {
                queue.push_back(s);
            }
        }
        let mut out = Vec::new();
        while let Some(p) = queue.pop_front() {
            out.push(p);
            for a in (0..3).filter(|&a| a != axis) {
                if p[a] == 0 || p[a] == n[a] {
                    return Err(p);
                }
                for up in [false, true] {
                    let mut q = p;
                    q[a] = if up { p[a] + 1 } else { p[a] - 1 };
                    let edge = if up { p } else { q };
                    let e = edge.map(|x| x as i64);
                    if self.pec_edge(a, e) && seen.insert(q) {
                        queue.push_back(q);
                    }
                }
            }
            if out.len() > 4_000_000 {
                return Err(p);
            }
        }
        Ok(out)
    }
}

fn err(p: &PortModel, why: String) -> ModelError {
    ModelError::Element {
        what: "port",
        name: p.name.clone(),
        why,
    }
}

fn probe(
    p: &PortModel,
    axis: usize,
    sign: f64,
    measure: Option<f64>,
    f_max: f64,
    at: &Plane<'_>,
    cpml: &[CpmlLayer],
) -> Result<LineProbe, ModelError> {
    let g = at.grid;
    let names = ["x", "y", "z"];
    let d = g.d[axis];
    let feed = p.edges[0][axis];
    // The feed's extent across the line (both transverse axes), for the default distance.
    // The feed's node box: along the port's axis its edges m span nodes m and m + 1.
    let (lo, mut hi) = bounds(&p.edges, usize::MAX);
    hi[p.axis] += 1;
    // Seeds: the feed's end nodes (signal) and start nodes (return), in the plane.
    let end_side = if p.sign > 0.0 { hi[p.axis] } else { lo[p.axis] };
    let start_side = if p.sign > 0.0 { lo[p.axis] } else { hi[p.axis] };
    let seeds = |side: usize| -> Vec<[usize; 3]> {
        let mut v: Vec<[usize; 3]> = p
            .edges
            .iter()
            .map(|e| {
                let mut q = *e;
                q[p.axis] = side;
                q
            })
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let (sig_seeds, ret_seeds) = (seeds(end_side), seeds(start_side));
    // The line's cross-section: the signal conductor's (at the feed) and the feed's
    // length on either side of it (the gap to the return conductor).
    let feed_len = (hi[p.axis] - lo[p.axis]) as f64 * g.d[p.axis];
    let sig_size = at.component(axis, feed, &sig_seeds).map_or(0.0, |c| {
        let (l, h) = bounds(&c, axis);
        (0..3)
            .filter(|&a| a != axis)
            .map(|a| (h[a] - l[a]) as f64 * g.d[a])
            .fold(0.0, f64::max)
    });
    let k0 = match measure {
        Some(m) => (m / d).round().max(2.0) as i64,
        None => ((2.5 * (sig_size + 2.0 * feed_len) / d).ceil() as i64).max(5),
    };
    let span = quarter_wave(at, f_max, d);
    let s = sign as i64;
    let node = |k: i64| feed as i64 + s * k;
    // Planes a = k0 and b = k0 + span; the loops reach nodes k0 − 1 … k0 + span + 1.
    inside(p, g, cpml, axis, (node(k0 - 1), node(k0 + span + 1)), "line")?;
    let pa = node(k0) as usize;
    let pb = node(k0 + span) as usize;
    // Node planes whose conductors the loops need: each V plane and its two neighbours.
    let planes = [
        node(k0 - 1),
        node(k0),
        node(k0 + 1),
        node(k0 + span - 1),
        node(k0 + span),
        node(k0 + span + 1),
    ]
    .map(|x| x as usize);
    let mut comps = Vec::new();
    for plane in planes {
        let pos = |q: [usize; 3]| fmt3(q, g);
        for q in &sig_seeds {
            let mut q = *q;
            q[axis] = plane;
            if !at.conductor(q.map(|x| x as i64)) {
                return Err(err(
                    p,
                    format!(
                        "no signal conductor at the port's end {} m in the line's measurement plane {} = {} m: \
                         the port's `end` must touch the line's signal conductor (strip, inner conductor), \
                         and the line must run from the feed past the measurement planes ({} m)",
                        pos(q),
                        names[axis],
                        fmt(plane as f64 * d),
                        fmt((k0 + span + 1) as f64 * d)
                    ),
                ));
            }
        }
        for q in &ret_seeds {
            let mut q = *q;
            q[axis] = plane;
            if !at.conductor(q.map(|x| x as i64)) {
                return Err(err(
                    p,
                    format!(
                        "no return conductor at the port's start {} m in the line's measurement plane {} = {} m: \
                         the port's `start` must touch the line's ground or shield along the line",
                        pos(q),
                        names[axis],
                        fmt(plane as f64 * d)
                    ),
                ));
            }
        }
        let comp = at.component(axis, plane, &sig_seeds).map_err(|q| {
            err(
                p,
                format!(
                    "the conductor at the port's end reaches the domain's edge at {} m in the measurement plane: a line port's \
                     `end` is on the signal conductor (strip, inner conductor) and its `start` on the return (ground, shield)",
                    pos(q)
                ),
            )
        })?;
        let mut q = ret_seeds[0];
        q[axis] = plane;
        if comp.contains(&q) {
            return Err(err(
                p,
                format!(
                    "its start and end touch one conductor in the measurement plane {} = {} m: the line is shorted there",
                    names[axis],
                    fmt(plane as f64 * d)
                ),
            ));
        }
        comps.push(comp);
    }
    // V paths: the feed's edges moved to planes a and b, through no conductor.
    let path = |plane: usize| -> Result<Vec<[usize; 3]>, ModelError> {
        let v: Vec<[usize; 3]> = p
            .edges
            .iter()
            .map(|e| {
                let mut q = *e;
                q[axis] = plane;
                q
            })
            .collect();
        if let Some(q) = v.iter().find(|q| at.pec_edge(p.axis, q.map(|x| x as i64))) {
            return Err(err(
                p,
                format!(
                    "the voltage path from the return to the signal conductor crosses a conductor at {} m in the measurement plane",
                    fmt3(*q, g)
                ),
            ));
        }
        Ok(v)
    };
    let v = [path(pa)?, path(pb)?];
    // I loops around the signal conductor half a cell before and after a and b.
    let t: Vec<usize> = (0..3).filter(|&a| a != axis).collect();
    let loop_at = |c0: &[[usize; 3]],
                   c1: &[[usize; 3]],
                   half: usize|
     -> Result<Vec<(Component, [usize; 3], f64)>, ModelError> {
        let mut blo = [usize::MAX; 3];
        let mut bhi = [0usize; 3];
        for q in c0.iter().chain(c1) {
            for &a in &t {
                blo[a] = blo[a].min(q[a]);
                bhi[a] = bhi[a].max(q[a]);
            }
        }
        for &a in &t {
            let (ilo, ihi) = interior(g, cpml, a);
            if blo[a] < ilo.max(1) || bhi[a] + 1 > ihi {
                return Err(err(
                    p,
                    format!(
                        "the current loop around the signal conductor would leave the domain's interior along {} (CPML included)",
                        names[a]
                    ),
                ));
            }
        }
        // Every conductor node inside the loop must be the signal conductor's.
        for plane in [half, half + 1] {
            let comp: &[[usize; 3]] = if c0.first().map(|q| q[axis]) == Some(plane) {
                c0
            } else {
                c1
            };
            for u in blo[t[0]]..=bhi[t[0]] {
                for w in blo[t[1]]..=bhi[t[1]] {
                    let mut q = [0usize; 3];
                    q[axis] = plane;
                    q[t[0]] = u;
                    q[t[1]] = w;
                    if at.conductor(q.map(|x| x as i64)) && !comp.contains(&q) {
                        return Err(err(
                            p,
                            format!(
                                "the current loop around the signal conductor (the box of its cross-section and half a cell) \
                                 would enclose another conductor at {} m: move the return conductor away from it \
                                 (at least one cell of gap all around)",
                                fmt3(q, g)
                            ),
                        ));
                    }
                }
            }
        }
        let mut lo3 = blo;
        let mut hi3 = bhi;
        lo3[axis] = half;
        hi3[axis] = half;
        Ok(super::lumped::current_loop(axis, lo3, hi3, half, g)
            .into_iter()
            .map(|(c, q, w)| (c, q, 0.5 * w * sign))
            .collect())
    };
    // Half planes between node planes p and p + 1 hold H index p.
    let mut i_a = loop_at(&comps[0], &comps[1], planes[0].min(planes[1]))?;
    i_a.extend(loop_at(&comps[1], &comps[2], planes[1].min(planes[2]))?);
    let mut i_b = loop_at(&comps[3], &comps[4], planes[3].min(planes[4]))?;
    i_b.extend(loop_at(&comps[4], &comps[5], planes[4].min(planes[5]))?);
    let (mut clo, mut chi) = bounds(&comps[1], axis);
    clo[axis] = pa;
    chi[axis] = pa;
    Ok(LineProbe {
        axis,
        sign,
        spacing: span as f64 * d,
        offset: k0 as f64 * d,
        v,
        v_w: vec![-p.sign * p.length / p.columns as f64; p.edges.len()],
        i: [i_a, i_b],
        conductor: (clo, chi),
        to_line: false,
        te10: false,
    })
}

/// Refuse measurement planes (node range `nodes` along `axis`) outside the interior.
fn inside(
    p: &PortModel,
    g: &Grid,
    cpml: &[CpmlLayer],
    axis: usize,
    nodes: (i64, i64),
    what: &str,
) -> Result<(), ModelError> {
    let names = ["x", "y", "z"];
    let (lo, hi) = interior(g, cpml, axis);
    let (first, last) = nodes;
    if first.min(last) >= lo as i64 && first.max(last) <= hi as i64 {
        return Ok(());
    }
    Err(err(
        p,
        format!(
            "its {what}'s measurement planes ({} = {} … {} m) leave the domain's interior along {} (CPML included); \
             give a smaller `measure` or a longer {what}",
            names[axis],
            fmt(first as f64 * g.d[axis]),
            fmt(last as f64 * g.d[axis]),
            names[axis]
        ),
    ))
}

/// D, a quarter of the shortest guided wavelength asked for (densest material), in cells of `d`.
fn quarter_wave(at: &Plane<'_>, f_max: f64, d: f64) -> i64 {
    let n_max = at.coefs.e_props.iter().flatten().map(|&(e, _)| e).fold(1.0, f64::max)
        * at.coefs.h_props.iter().copied().fold(1.0, f64::max);
    let lambda = crate::C0 / (f_max.max(1.0) * n_max.sqrt());
    ((lambda / (4.0 * d)).floor() as i64).clamp(1, 400)
}

/// A rectangular waveguide's TE10 port (`mode = "TE10"`): V and I are the mode's
/// amplitudes at planes a and b. With u across the broad side (width A, from the port's
/// start to end) and e the port's axis (E's direction, height B):
/// V = Σ_u (2/A)·sin(πu/A)·Δu · (−∫E_e de) and I the same sum of ∫H_u de, signed so that
/// power flowing away from the feed is positive, the mean of the two half planes. For
/// the TE10 field E_e = E0·sin(πu/A), H_u = ∓E0/Z_TE·sin(πu/A): V = E0·B, I = E0·B/Z_TE,
/// so Z_line is the mode's wave impedance and the line's waves are the mode's.
fn te10(
    p: &PortModel,
    axis: usize,
    sign: f64,
    measure: Option<f64>,
    f_max: f64,
    at: &Plane<'_>,
    cpml: &[CpmlLayer],
) -> Result<LineProbe, ModelError> {
    let g = at.grid;
    let names = ["x", "y", "z"];
    let e = p.axis;
    let u = 3 - e - axis;
    let d = g.d[axis];
    let feed = p.edges[0][axis];
    let (lo, mut hi) = bounds(&p.edges, usize::MAX);
    hi[e] += 1;
    // The guide's broad side: the feed's columns are one node inside each wall.
    let (u0, u1) = (lo[u] - 1, hi[u] + 1);
    let width = (u1 - u0) as f64 * g.d[u];
    let height = (hi[e] - lo[e]) as f64 * g.d[e];
    let k0 = match measure {
        Some(m) => (m / d).round().max(2.0) as i64,
        None => ((2.5 * width.max(height) / d).ceil() as i64).max(5),
    };
    let span = quarter_wave(at, f_max, d);
    let s = sign as i64;
    let node = |k: i64| feed as i64 + s * k;
    inside(p, g, cpml, axis, (node(k0 - 1), node(k0 + span + 1)), "guide")?;
    // The walls: every node on the cross-section's rim is on a conductor, no E edge
    // inside it is (an empty guide between the port's corners).
    let walls = |plane: usize| -> Result<(), ModelError> {
        for a in u0..=u1 {
            for b in lo[e]..=hi[e] {
                let mut q = [0usize; 3];
                q[axis] = plane;
                q[u] = a;
                q[e] = b;
                let rim = a == u0 || a == u1 || b == lo[e] || b == hi[e];
                let qi = q.map(|x| x as i64);
                if rim && !at.conductor(qi) {
                    return Err(err(
                        p,
                        format!(
                            "no guide wall at {} m in the measurement plane {} = {} m: a waveguide port's start and end \
                             are the guide's inner corners, and the guide must run past the measurement planes",
                            fmt3(q, g),
                            names[axis],
                            fmt(plane as f64 * d)
                        ),
                    ));
                }
                if !rim && b < hi[e] && at.pec_edge(e, qi) {
                    return Err(err(
                        p,
                        format!(
                            "a conductor inside the guide at {} m in the measurement plane",
                            fmt3(q, g)
                        ),
                    ));
                }
            }
        }
        Ok(())
    };
    let planes = [node(k0), node(k0 + span)].map(|x| x as usize);
    for k in [k0 - 1, k0, k0 + 1, k0 + span - 1, k0 + span, k0 + span + 1] {
        walls(node(k) as usize)?;
    }
    let weight = |a: usize| 2.0 / width * (std::f64::consts::PI * (a - u0) as f64 * g.d[u] / width).sin() * g.d[u];
    // V: −∫E_e de per column (E from start to end along e: the port's sign).
    let mut v = [Vec::new(), Vec::new()];
    let mut v_w = Vec::new();
    for (k, &plane) in planes.iter().enumerate() {
        for a in u0 + 1..u1 {
            for b in lo[e]..hi[e] {
                let mut q = [0usize; 3];
                q[axis] = plane;
                q[u] = a;
                q[e] = b;
                v[k].push(q);
                if k == 0 {
                    v_w.push(-p.sign * g.d[e] * weight(a));
                }
            }
        }
    }
    // I: Σ w·∫H_u de; power along +line is (e × u)·linê · E_e·H_u > 0 ⇔ …, so the sign
    // that makes a forward wave's I have V's sign is −(ê × û)·(line direction)·(port sign).
    let cross = {
        let mut c = [0.0f64; 3];
        let (ev, uv) = (unit(e), unit(u));
        c[0] = ev[1] * uv[2] - ev[2] * uv[1];
        c[1] = ev[2] * uv[0] - ev[0] * uv[2];
        c[2] = ev[0] * uv[1] - ev[1] * uv[0];
        c[axis]
    };
    let h_sign = -cross * sign * p.sign;
    let hu = Component::ALL[3 + u];
    let loops = |plane: usize| -> Vec<(Component, [usize; 3], f64)> {
        let mut out = Vec::new();
        for half in [plane.min(node_at(plane, -s)), plane.min(node_at(plane, s))] {
            for a in u0 + 1..u1 {
                for b in lo[e]..hi[e] {
                    let mut q = [0usize; 3];
                    q[axis] = half;
                    q[u] = a;
                    q[e] = b;
                    out.push((hu, q, 0.5 * h_sign * g.d[e] * weight(a)));
                }
            }
        }
        out
    };
    let (mut clo, mut chi) = (lo, hi);
    clo[u] = u0;
    chi[u] = u1;
    clo[axis] = planes[0];
    chi[axis] = planes[0];
    Ok(LineProbe {
        axis,
        sign,
        spacing: span as f64 * d,
        offset: k0 as f64 * d,
        i: [loops(planes[0]), loops(planes[1])],
        v,
        v_w,
        conductor: (clo, chi),
        to_line: true,
        te10: true,
    })
}

fn unit(a: usize) -> [f64; 3] {
    let mut v = [0.0; 3];
    v[a] = 1.0;
    v
}

/// The node one step from `plane` toward `s` (±1).
fn node_at(plane: usize, s: i64) -> usize {
    (plane as i64 + s) as usize
}

/// Node bounds of a set of nodes (the `skip` axis's entries are those of the first).
fn bounds(nodes: &[[usize; 3]], skip: usize) -> ([usize; 3], [usize; 3]) {
    let mut lo = nodes[0];
    let mut hi = nodes[0];
    for q in nodes {
        for a in (0..3).filter(|&a| a != skip) {
            lo[a] = lo[a].min(q[a]);
            hi[a] = hi[a].max(q[a]);
        }
    }
    (lo, hi)
}

/// The node range along `axis` outside the CPML layers.
fn interior(g: &Grid, cpml: &[CpmlLayer], axis: usize) -> (usize, usize) {
    let mut lo = 0;
    let mut hi = g.n[axis];
    for l in cpml.iter().filter(|l| l.axis == axis) {
        if l.high {
            hi = hi.min(g.n[axis].saturating_sub(l.cells));
        } else {
            lo = lo.max(l.cells);
        }
    }
    (lo, hi)
}

fn fmt(x: f64) -> String {
    crate::fmt::sig(x, 6)
}

fn fmt3(q: [usize; 3], g: &Grid) -> String {
    format!(
        "[{}, {}, {}]",
        fmt(q[0] as f64 * g.d[0]),
        fmt(q[1] as f64 * g.d[1]),
        fmt(q[2] as f64 * g.d[2])
    )
}

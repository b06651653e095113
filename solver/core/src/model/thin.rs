//! Thin perfect conductors: wires and plates thinner than a cell, as PEC E edges.
//!
//! Cells take their material from the cell centre ([`super::materials::paint`]), so a PEC
//! object that contains no cell centre would vanish. Such objects are represented by E
//! edges instead, the way gprMax represents edges and plates:
//!
//! * `shape = "wire"` (a polyline): each segment's ends snap to the nearest grid nodes, and
//!   the segment becomes the chain of E edges along a staircase between them ([`staircase`]:
//!   a 3-D stepping that takes, at each node, the axis whose next half-step the straight
//!   segment crosses first; an axis-aligned segment is the straight run of edges along its
//!   axis on the nearest grid line).
//! * `shape = "plate"` (a rectangle, normal `axis`): the tangential E edges (both
//!   components) of the grid plane nearest to its mid-plane, over the rectangle with its
//!   corners snapped to the nearest nodes, its rim included.
//! * A PEC `box` that covers no cell: its corners snap to the nearest nodes. Flat along two
//!   axes (same node) it is the wire along the third; flat along one, the plate normal to it.
//! * A PEC `stl` solid that covers no cell (a sheet exported as a thin solid): the E
//!   edges whose node window it reaches ([`super::stl`]: the nearest node plane of a sheet).
//! * A PEC `cylinder` that covers no cell: the wire from `a` to `b`. If that is no edge (a
//!   disc thinner than a cell) and the cylinder is axis-aligned, the plate of the nearest
//!   grid plane, limited to the edges whose centre lies within `radius` of the axis.
//!
//! Objects that cover at least one cell keep the cell description unchanged.
//!
//! **Order rule.** Thin edges are stamped after all cell painting and edge averaging,
//! whatever their position in the scene: a later solid (a dielectric substrate around a
//! wire, say) does not erase them. Only a thin conductor makes an edge PEC here, and a
//! thin conductor cannot be removed by another object.
//!
//! A wire one edge wide has an effective radius of about 0.2·Δ (Δ the cell size across
//! it: 0.1985·Δ on a cubic lattice, [`LATTICE_WIRE_RADIUS`], published values
//! 0.135–0.23·Δ; see `validation/src/reference/wire_mom.rs`).
//!
//! **Thin-wire radius** ([`wire_fixes`]). A `wire` with a `radius` r0 gets the in-cell
//! (contour-path) correction of Umashankar, Taflove and Beker (IEEE TAP 35(11), 1987;
//! Taflove & Hagness, *Computational Electrodynamics*, thin wires): near the wire H_φ
//! and the radial E vary as 1/ρ, so Faraday's law on the contour from the wire's surface
//! (ρ = r0) to the next node (ρ = Δ) gives, for an H sample circling a wire edge,
//! `μ ∂H/∂t = (2/ln(Δ/r0))·E_nb/Δ − (radial term, unchanged)`: the coefficient of the
//! parallel E at the neighbouring node (E_nb) is multiplied by `2/ln(Δ/r0)`. This solver
//! uses the *calibrated* form of that factor, `f = ln(Δ/a)/ln(Δ/r0)` with a = 0.1985·Δ
//! the bare lattice wire's own radius, so that a wire with r0 = a is the uncorrected
//! chain. Both forms have the same r0-dependence (f ∝ 1/ln(Δ/r0)); they differ by a
//! constant ratio 2/ln(1/0.1985) = 1.24, and the plain form makes a wire of r0 =
//! e⁻²·Δ = 0.135·Δ the bare chain, which the 3-D lattice analysis and the MoM comparison
//! (`validation/src/cases/wire_radius.rs`, docs/antennas.md "Thin-wire radius") put at
//! 0.1985·Δ instead.
//!
//! The correction is an `AfterH` pass (`passes::thin_wire`): `H += (f − 1)·c·E_nb` per
//! corrected H sample, c the H sample's own curl coefficient of that term (its material's
//! `db`, divided by the cell size along the neighbour's direction, so nonuniform cells
//! and μr ≠ 1 are honoured). A feed gap (a port or lumped element edge continuing a
//! corrected wire) is corrected with the wire, its own E entering the contour:
//! `H += (f − 1)·c·(E_nb − E_gap)`; its loop is then a stiffer local mode, and
//! [`gap_courant`] shortens the step where it needs. Corrected are the H samples whose
//! four stencil E edges hold exactly one wire edge (of any chain: wires, thin boxes,
//! thin cylinders, or a feed gap), that edge belonging to a wire with a radius, and
//! whose neighbour E is not PEC: straight runs
//! and the inner samples of staircases; at a corner (bend, staircase step) the H sample
//! inside the corner touches two wire edges and keeps the plain update, as does a
//! sample inside a CPML layer. A wire without `radius` is untouched (bit-identical).
use super::{CoefTable, CpmlLayer, Grid};
use crate::scene::{MaterialKind, Scene, Shape};

/// One E sample on a cell edge: the component axis (0 = Ex, 1 = Ey, 2 = Ez) and its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Edge {
    pub axis: usize,
    pub index: [usize; 3],
}

/// What one scene object covers on the grid.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectCoverage {
    /// Index in `scene.objects` (`objects[index]` in the file).
    pub index: usize,
    /// `box`, `sphere`, `cylinder`, `wire`, `plate`, `stl`.
    pub shape: &'static str,
    /// The material's name.
    pub material: String,
    /// Cells whose centre the object contains (before later objects repaint them).
    pub cells: u64,
    /// Whether the object is represented by E edges (a wire, a plate, or a PEC solid that
    /// covers no cell).
    pub thin: bool,
    /// Distinct E edges it makes PEC (thin objects only).
    pub edges: u64,
}

impl ObjectCoverage {
    /// `objects[2] (box of "glass")`.
    pub fn label(&self) -> String {
        format!("objects[{}] ({} of {:?})", self.index, self.shape, self.material)
    }

    /// `12 cells` or `40 E edges (thin conductor)`.
    pub fn amount(&self) -> String {
        if self.thin {
            format!("{} E edge{} (thin conductor)", self.edges, plural(self.edges))
        } else {
            format!("{} cell{}", self.cells, plural(self.cells))
        }
    }

    /// Whether the object leaves no trace on the grid.
    pub fn is_empty(&self) -> bool {
        if self.thin {
            self.edges == 0
        } else {
            self.cells == 0
        }
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Cells whose centre `shape` contains, with the same ranges and test as `paint`.
pub fn cell_count(shape: &Shape, grid: &Grid) -> u64 {
    let d = grid.d;
    let (lo, hi) = shape.bounds();
    let range = |a: usize| {
        let first = ((lo[a] / d[a] - 0.5).ceil().max(0.0)) as usize;
        let last = ((hi[a] / d[a] - 0.5).floor()).min(grid.n[a] as f64 - 1.0);
        if last < 0.0 {
            (0, 0)
        } else {
            (first, last as usize + 1)
        }
    };
    let (ri, rj, rk) = (range(0), range(1), range(2));
    if matches!(shape, Shape::Box { .. }) {
        // Every centre in a box's ranges is inside it.
        let n = |r: (usize, usize)| r.1.saturating_sub(r.0) as u64;
        return n(ri) * n(rj) * n(rk);
    }
    if let Shape::Stl(mesh) = shape {
        let c = |a: usize| super::stl::centres(grid, a, [ri, rj, rk][a]);
        let (xs, ys, zs) = (c(0), c(1), c(2));
        return super::stl::voxelize(mesh, &xs, &ys, &zs).iter().filter(|&&x| x).count() as u64;
    }
    use rayon::prelude::*;
    (ri.0..ri.1.max(ri.0))
        .into_par_iter()
        .map(|i| {
            let mut n = 0u64;
            for j in rj.0..rj.1 {
                for k in rk.0..rk.1 {
                    let c = [
                        (i as f64 + 0.5) * d[0],
                        (j as f64 + 0.5) * d[1],
                        (k as f64 + 0.5) * d[2],
                    ];
                    n += shape.contains(c) as u64;
                }
            }
            n
        })
        .sum()
}

/// The nearest grid node along axis `a` to coordinate `x` (m), clamped to the grid.
fn node(grid: &Grid, a: usize, x: f64) -> usize {
    ((x / grid.d[a]).round().max(0.0) as usize).min(grid.n[a])
}

fn node3(grid: &Grid, p: [f64; 3]) -> [usize; 3] {
    [0, 1, 2].map(|a| node(grid, a, p[a]))
}

/// The E edges of the node path from node `p` to node `q`: `|q − p|₁` unit steps, each
/// along the axis whose next half-step the straight segment reaches first (ties: lowest
/// axis). Axis-aligned segments give the straight chain between them.
pub fn staircase(p: [usize; 3], q: [usize; 3]) -> Vec<Edge> {
    let len = [0, 1, 2].map(|a| p[a].abs_diff(q[a]) as u64);
    let mut taken = [0u64; 3];
    let mut cur = p;
    let mut out = Vec::with_capacity(len.iter().sum::<u64>() as usize);
    loop {
        // Axis a's next half-step is at parameter (taken + ½)/len: compare exactly.
        let mut best: Option<usize> = None;
        for a in 0..3 {
            if taken[a] == len[a] {
                continue;
            }
            best = match best {
                Some(b) if (2 * taken[b] + 1) * len[a] <= (2 * taken[a] + 1) * len[b] => Some(b),
                _ => Some(a),
            };
        }
        let Some(a) = best else { break };
        let next = if q[a] > p[a] { cur[a] + 1 } else { cur[a] - 1 };
        let mut index = cur;
        index[a] = cur[a].min(next);
        out.push(Edge { axis: a, index });
        cur[a] = next;
        taken[a] += 1;
    }
    out
}

/// A thin object on the grid: a list of edges (wires, sorted and without repeats), or a
/// plate, walked without a list (a ground plane may have many edges).
enum Stamp {
    Chain(Vec<Edge>),
    /// The tangential E edges of the plane normal to `axis` at node `plane`, over nodes
    /// `lo..=hi` along the other two axes; with `disc = (centre, radius)`, only the edges
    /// whose centre lies within `radius` of the line through `centre` along `axis`.
    Plate {
        axis: usize,
        plane: usize,
        lo: [usize; 3],
        hi: [usize; 3],
        disc: Option<([f64; 3], f64)>,
    },
}

impl Stamp {
    fn for_each(&self, grid: &Grid, mut f: impl FnMut(Edge)) {
        let (axis, plane, lo, hi, disc) = match self {
            Stamp::Chain(edges) => return edges.iter().copied().for_each(f),
            Stamp::Plate {
                axis,
                plane,
                lo,
                hi,
                disc,
            } => (*axis, *plane, *lo, *hi, *disc),
        };
        let (b, c) = ((axis + 1) % 3, (axis + 2) % 3);
        for (along, across) in [(b, c), (c, b)] {
            for e in lo[along]..hi[along] {
                for n in lo[across]..=hi[across] {
                    let mut index = [0; 3];
                    index[axis] = plane;
                    index[along] = e;
                    index[across] = n;
                    if let Some((centre, radius)) = disc {
                        let mut p = index.map(|x| x as f64);
                        p[along] += 0.5;
                        let r2: f64 = [along, across]
                            .iter()
                            .map(|&x| (p[x] * grid.d[x] - centre[x]).powi(2))
                            .sum();
                        if r2 > radius * radius {
                            continue;
                        }
                    }
                    f(Edge { axis: along, index });
                }
            }
        }
    }

    fn count(&self, grid: &Grid) -> u64 {
        match self {
            Stamp::Chain(edges) => edges.len() as u64,
            Stamp::Plate {
                axis,
                lo,
                hi,
                disc: None,
                ..
            } => {
                let (b, c) = ((axis + 1) % 3, (axis + 2) % 3);
                let n = |a: usize| (hi[a] - lo[a]) as u64;
                n(b) * (n(c) + 1) + n(c) * (n(b) + 1)
            }
            Stamp::Plate { .. } => {
                let mut n = 0;
                self.for_each(grid, |_| n += 1);
                n
            }
        }
    }

    fn edges(&self, grid: &Grid) -> Vec<Edge> {
        let mut out = Vec::new();
        self.for_each(grid, |e| out.push(e));
        out
    }
}

/// A thin object's stamp, or `None` for an object described by its cells. `cells` gives
/// the object's [`cell_count`] (only asked for PEC boxes and cylinders).
fn stamp(scene: &Scene, obj: usize, grid: &Grid, cells: impl Fn() -> u64) -> Option<Stamp> {
    let o = &scene.objects[obj];
    let pec = matches!(scene.materials[o.material].kind, MaterialKind::Pec);
    let chain = |mut edges: Vec<Edge>| {
        edges.sort_unstable();
        edges.dedup();
        Stamp::Chain(edges)
    };
    Some(match &o.shape {
        Shape::Wire { points, .. } => chain(
            points
                .windows(2)
                .flat_map(|s| staircase(node3(grid, s[0]), node3(grid, s[1])))
                .collect(),
        ),
        Shape::Plate { min, max, axis } => Stamp::Plate {
            axis: *axis,
            plane: node(grid, *axis, 0.5 * (min[*axis] + max[*axis])),
            lo: node3(grid, *min),
            hi: node3(grid, *max),
            disc: None,
        },
        Shape::Box { min, max } if pec && cells() == 0 => {
            let (lo, hi) = (node3(grid, *min), node3(grid, *max));
            let flat: Vec<usize> = (0..3).filter(|&a| lo[a] == hi[a]).collect();
            match flat.len() {
                2 => chain(staircase(lo, hi)),
                1 => Stamp::Plate {
                    axis: flat[0],
                    plane: lo[flat[0]],
                    lo,
                    hi,
                    disc: None,
                },
                _ => Stamp::Chain(Vec::new()),
            }
        }
        Shape::Cylinder { a, b, radius } if pec && cells() == 0 => {
            let wire = staircase(node3(grid, *a), node3(grid, *b));
            let along: Vec<usize> = (0..3).filter(|&i| a[i] != b[i]).collect();
            if wire.is_empty() && along.len() == 1 {
                // A disc thinner than a cell: the nearest plane, within the radius.
                let n = along[0];
                let (lo, hi) = o.shape.bounds();
                Stamp::Plate {
                    axis: n,
                    plane: node(grid, n, 0.5 * (a[n] + b[n])),
                    lo: node3(grid, lo),
                    hi: node3(grid, hi),
                    disc: Some((*a, *radius)),
                }
            } else {
                chain(wire)
            }
        }
        Shape::Stl(mesh) if pec && cells() == 0 => {
            let nodes: [Vec<f64>; 3] = std::array::from_fn(|a| super::stl::nodes(grid, a));
            Stamp::Chain(super::stl::thin_edges(mesh, [&nodes[0], &nodes[1], &nodes[2]]))
        }
        _ => return None,
    })
}

/// Every object's coverage, in scene order (what `fdtd check` lists and warns about).
pub fn coverage(scene: &Scene, grid: &Grid) -> Vec<ObjectCoverage> {
    (0..scene.objects.len())
        .map(|i| {
            let o = &scene.objects[i];
            let cells = cell_count(&o.shape, grid);
            let stamp = stamp(scene, i, grid, || cells);
            ObjectCoverage {
                index: i,
                shape: o.shape.name(),
                material: scene.materials[o.material].name.clone(),
                cells,
                thin: stamp.is_some(),
                edges: stamp.map_or(0, |s| s.count(grid)),
            }
        })
        .collect()
}

fn stamps(scene: &Scene, grid: &Grid) -> Vec<(usize, Stamp)> {
    (0..scene.objects.len())
        .filter_map(|i| stamp(scene, i, grid, || cell_count(&scene.objects[i].shape, grid)).map(|s| (i, s)))
        .collect()
}

/// Every thin object's edges, in scene order: `(object index, edges)`.
pub fn thin_edges(scene: &Scene, grid: &Grid) -> Vec<(usize, Vec<Edge>)> {
    stamps(scene, grid)
        .into_iter()
        .map(|(i, s)| (i, s.edges(grid)))
        .collect()
}

/// Stamp every thin object's edges PEC in `mat` (after cell painting; see the module doc).
pub(super) fn apply(scene: &Scene, grid: &Grid, coefs: &mut CoefTable, mat: &mut [Vec<u16>; 6]) {
    let stamps = stamps(scene, grid);
    if stamps.iter().all(|(_, s)| s.count(grid) == 0) {
        return;
    }
    let pec = match coefs.e_props.iter().position(Option::is_none) {
        Some(i) => i as u16,
        None => {
            coefs.e.push([0.0, 0.0]);
            coefs.e_props.push(None);
            coefs.e_poles.push(Vec::new());
            (coefs.e.len() - 1) as u16
        }
    };
    for (_, s) in stamps {
        s.for_each(grid, |e| {
            mat[e.axis][grid.idx(e.index[0], e.index[1], e.index[2])] = pec
        });
    }
}

/// Equivalent radius, in cells, of a wire of one line of PEC E edges on a cubic Yee
/// lattice: `e^{−γ}/(2√2)` (`validation/src/reference/wire_mom.rs`, `FDTD_WIRE_RADIUS`).
pub const LATTICE_WIRE_RADIUS: f64 = 0.198_505_904_095_820_7;

/// The smallest wire radius (in cells) the thin-wire correction is validated for; a
/// smaller one draws a warning.
pub const MIN_VALIDATED_RADIUS: f64 = 0.05;

/// The largest wire radius (in cells across the wire) the scene accepts: the contour
/// model assumes the wire inside the cell around its edge (the scene refuses r ≥ ½ Δ).
pub const MAX_RADIUS: f64 = 0.5;

/// The thin-wire factor of the curl term of the parallel E at the neighbouring node, for
/// a wire of radius `r0` and cell size `d` towards that node (see the module doc): the
/// calibrated contour-path factor `ln(1/0.1985)/ln(d/r0)`.
pub fn contour_factor(d: f64, r0: f64) -> f64 {
    (1.0 / LATTICE_WIRE_RADIUS).ln() / (d / r0).ln()
}

/// One H sample the thin-wire correction acts on: after the H update,
/// `H[h][at] += coef·(E_nb − E_self)`, E_nb the wire's parallel E at the neighbouring
/// node and E_self the E of the edge the H sample circles, counted only for a feed gap
/// (a PEC wire edge has E_self = 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HFix {
    /// H component (3..5, `Component::index`) and its sample.
    pub h: usize,
    pub at: [usize; 3],
    /// E component (0..2): the wire's axis.
    pub e: usize,
    /// The axis from the wire to the neighbour.
    pub dir: usize,
    /// The neighbour is at `at + e_dir` (the circled edge at `at`), else at `at` (the
    /// circled edge at `at + e_dir`).
    pub plus: bool,
    /// The circled edge is a feed gap (a port or lumped element continuing the wire).
    pub gap: bool,
    /// `(f − 1)·s·db/Δ_dir`: s the sign of E_nb's term in the H update.
    pub coef: f32,
    /// f − 1.
    pub factor_minus_one: f64,
}

impl HFix {
    /// The neighbour E sample's grid index.
    pub fn nb_at(&self) -> [usize; 3] {
        let mut n = self.at;
        if self.plus {
            n[self.dir] += 1;
        }
        n
    }

    /// The circled edge's grid index.
    pub fn self_at(&self) -> [usize; 3] {
        let mut n = self.at;
        if !self.plus {
            n[self.dir] += 1;
        }
        n
    }
}

/// A wire with a radius, as corrected: for `fdtd check`.
#[derive(Clone, Debug, PartialEq)]
pub struct WireFix {
    /// Index in `scene.objects`.
    pub object: usize,
    pub radius: f64,
    /// Smallest and largest factor f over its corrected samples (they differ with the
    /// cell size towards the neighbour).
    pub factor: (f64, f64),
    /// Corrected H samples, and the H samples around its edges left plain (corners,
    /// ends against other conductors, CPML).
    pub samples: usize,
    pub skipped: usize,
    /// Feed-gap edges (ports, lumped elements) continuing it, corrected with it.
    pub gaps: usize,
}

/// The thin-wire corrections of every wire with a `radius` (see the module doc), after
/// all edges are stamped: the H samples and, per wire, a summary. `gaps` are the E
/// edges of ports and lumped elements `(axis, index)`: one that continues a corrected
/// wire along its axis is corrected as part of it (its H loop circles a tube of the
/// wire's radius, with the gap's field on its surface).
pub(super) fn wire_fixes(
    scene: &Scene,
    grid: &Grid,
    coefs: &CoefTable,
    mat: &[Vec<u16>; 6],
    cpml: &[CpmlLayer],
    gaps: &[Edge],
) -> (Vec<HFix>, Vec<WireFix>) {
    let radius_of = |i: usize| match &scene.objects[i].shape {
        Shape::Wire { radius: Some(r), .. } => Some(*r),
        _ => None,
    };
    if !(0..scene.objects.len()).any(|i| radius_of(i).is_some()) {
        return (Vec::new(), Vec::new());
    }
    let stamps = stamps(scene, grid);
    // Every chain edge (wires of any kind, thin boxes and cylinders), and the corrected
    // wires' edges with their wire (the first in scene order).
    let mut chain = std::collections::HashSet::new();
    let mut owner = std::collections::HashMap::new();
    let mut wires = Vec::new();
    for (obj, s) in &stamps {
        if let Stamp::Chain(edges) = s {
            chain.extend(edges.iter().copied());
            if let Some(r0) = radius_of(*obj) {
                for e in edges {
                    owner.entry(*e).or_insert(wires.len());
                }
                wires.push(WireFix {
                    object: *obj,
                    radius: r0,
                    factor: (f64::INFINITY, f64::NEG_INFINITY),
                    samples: 0,
                    skipped: 0,
                    gaps: 0,
                });
            }
        }
    }
    let n = grid.n;
    // The edges to correct around: (wire, edge, is a gap), in wire order then edge order.
    let mut lines: Vec<(usize, Edge, bool)> = owner.iter().map(|(e, &w)| (w, *e, false)).collect();
    for &g in gaps {
        let w = g.axis;
        let along = |up: bool| {
            let mut q = g.index;
            if up {
                q[w] += 1;
            } else if q[w] == 0 {
                return None;
            } else {
                q[w] -= 1;
            }
            owner.get(&Edge { axis: w, index: q }).copied()
        };
        if chain.contains(&g) {
            continue;
        }
        if let Some(wi) = along(false).or_else(|| along(true)) {
            lines.push((wi, g, true));
            wires[wi].gaps += 1;
        }
    }
    lines.sort_unstable_by_key(|&(w, e, _)| (w, e));
    lines.dedup_by_key(|l| l.1);
    let wire_like: std::collections::HashSet<Edge> = chain.iter().copied().chain(lines.iter().map(|l| l.1)).collect();
    let in_cpml = |at: [usize; 3]| {
        cpml.iter()
            .any(|l| (l.h_first..l.h_first + l.h.len()).contains(&at[l.axis]))
    };
    let is_pec = |e: Edge| {
        let m = mat[e.axis][grid.idx(e.index[0], e.index[1], e.index[2])];
        coefs.e_props[m as usize].is_none()
    };
    // H_a at index n: its stencil edges are E_c at n and n + e_b, E_b at n and n + e_c
    // (b = a+1, c = a+2 mod 3), with coefficients +db/d_b, −db/d_b, −db/d_c, +db/d_c
    // (update.rs: H_a −= db·((E_c[n+e_b] − E_c[n])/d_b − (E_b[n+e_c] − E_b[n])/d_c)).
    let h_ok = |a: usize, at: [usize; 3]| (0..3).all(|x| if x == a { at[x] <= n[x] } else { at[x] < n[x] });
    let stencil = |a: usize, at: [usize; 3]| {
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        let step = |x: usize| {
            let mut q = at;
            q[x] += 1;
            q
        };
        [
            Edge { axis: c, index: at },
            Edge {
                axis: c,
                index: step(b),
            },
            Edge { axis: b, index: at },
            Edge {
                axis: b,
                index: step(c),
            },
        ]
    };
    let mut fixes = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for &(wi, wire, gap) in &lines {
        let w = &mut wires[wi];
        let m = wire.index;
        for a in (0..3).filter(|&a| a != wire.axis) {
            let (b, c) = ((a + 1) % 3, (a + 2) % 3);
            // The direction (axis) of the neighbour, seen from the wire.
            let dir = if wire.axis == c { b } else { c };
            // Two H samples: the circled edge at n (neighbour at n + e_dir), or at
            // n + e_dir (neighbour at n).
            for plus in [true, false] {
                let at = if plus {
                    m
                } else {
                    if m[dir] == 0 {
                        continue;
                    }
                    let mut q = m;
                    q[dir] -= 1;
                    q
                };
                if !h_ok(a, at) || !seen.insert((a, at)) {
                    continue;
                }
                let mut nb = at;
                if plus {
                    nb[dir] += 1;
                }
                let nb = Edge {
                    axis: wire.axis,
                    index: nb,
                };
                let ok = (gap || is_pec(wire))
                    && nb.index[dir] <= n[dir]
                    && stencil(a, at).iter().filter(|e| wire_like.contains(e)).count() == 1
                    && !is_pec(nb)
                    && !in_cpml(at);
                if !ok {
                    w.skipped += 1;
                    continue;
                }
                // Sign of E_nb's term in H_a's update (see the stencil above).
                let s = if (wire.axis == c) != plus { 1.0 } else { -1.0 };
                let db = coefs.h[mat[3 + a][grid.idx(at[0], at[1], at[2])] as usize] as f64;
                let f = contour_factor(grid.d[dir], w.radius);
                w.factor = (w.factor.0.min(f), w.factor.1.max(f));
                w.samples += 1;
                fixes.push(HFix {
                    h: 3 + a,
                    at,
                    e: wire.axis,
                    dir,
                    plus,
                    gap,
                    coef: ((f - 1.0) * s * db / grid.d[dir]) as f32,
                    factor_minus_one: f - 1.0,
                });
            }
        }
    }
    (fixes, wires)
}

/// The largest Courant factor (of the 3-D limit) at which the corrections `fixes` on
/// `grid` stay stable, if they limit it: `None` when they do not. Only a feed gap's
/// corrections do: there the H loop's coupling to the gap's own E is multiplied by f as
/// well, and a local mode of the gap edge and its loop grows above `c·Δt ≤
/// √(GAP_STABILITY/(3f))·Δ` (Δ the cell towards the neighbour). Measured on cubic
/// cells in a closed PEC box, 10⁵ steps: f = 1.76 runs at 0.95 and diverges at 0.99,
/// f = 2.02 at 0.9 / 0.95, f = 2.33 at 0.85 / 0.9, i.e. a limit of about √(1.7/f); the
/// rule's 1.6 keeps a margin. A PEC wire edge's corrections alone were stable at 0.99
/// up to r0 = 0.499·Δ (f = 2.33).
pub fn gap_courant(grid: &Grid, fixes: &[HFix]) -> Option<f64> {
    let c0 = crate::C0;
    let dt_cfl = 1.0 / (c0 * grid.d.iter().map(|d| 1.0 / (d * d)).sum::<f64>().sqrt());
    fixes
        .iter()
        .filter(|f| f.gap)
        .filter_map(|f| {
            let factor = 1.0 + f.factor_minus_one;
            (factor > 1.0).then(|| (GAP_STABILITY / (3.0 * factor)).sqrt() * grid.d[f.dir] / c0 / dt_cfl)
        })
        .reduce(f64::min)
        .filter(|&s| s < 1.0)
}

/// One line for `fdtd check`: `objects[0] (wire of "pec"): radius 0.6 mm, thin-wire
/// factor 1.000 on 200 H samples (4 plain: corners, ends), 1 feed-gap edge`.
pub fn describe_fix(w: &WireFix, label: Option<String>) -> String {
    let f = if w.samples == 0 {
        "no H sample to correct".to_string()
    } else if (w.factor.1 - w.factor.0).abs() < 1e-9 {
        format!("thin-wire factor {:.3} on {} H samples", w.factor.0, w.samples)
    } else {
        format!(
            "thin-wire factor {:.3}–{:.3} on {} H samples",
            w.factor.0, w.factor.1, w.samples
        )
    };
    let mut out = format!(
        "{}: radius {} m corrected: {f}",
        label.unwrap_or_else(|| format!("objects[{}]", w.object)),
        crate::fmt::sig(w.radius, 4)
    );
    if w.skipped > 0 {
        out += &format!(" ({} left plain: corners, ends against conductors, CPML)", w.skipped);
    }
    if w.gaps > 0 {
        out += &format!(", {} feed-gap edge{} with it", w.gaps, plural(w.gaps as u64));
    }
    out
}

/// See [`gap_courant`].
pub const GAP_STABILITY: f64 = 1.6;

/// Warnings about objects: one that leaves no trace on the grid, a wire radius below what
/// the thin-wire correction is validated for, a PEC STL with walls thinner than a cell.
pub fn warnings(scene: &Scene, grid: &Grid) -> Vec<String> {
    let mut out = Vec::new();
    let dmin = grid.d.iter().copied().fold(f64::INFINITY, f64::min);
    let mut holes = Vec::new();
    for c in coverage(scene, grid) {
        let o = &scene.objects[c.index];
        let pec = matches!(scene.materials[o.material].kind, MaterialKind::Pec);
        if c.is_empty() {
            let why = match (&o.shape, c.thin) {
                (Shape::Wire { .. }, _) => "it is shorter than half a cell and snaps to no grid edge".to_string(),
                (Shape::Plate { .. }, _) => {
                    "it is narrower than half a cell in its plane and snaps to no grid edge".to_string()
                }
                (_, true) => "it is smaller than a cell along every axis and snaps to no grid edge".to_string(),
                (_, false) if matches!(scene.materials[o.material].kind, MaterialKind::Pec) => {
                    "it contains no cell centre".to_string()
                }
                (_, false) => "it contains no cell centre (only PEC objects thinner than a cell become grid \
                               edges; a thin dielectric or lossy sheet is dropped)"
                    .to_string(),
            };
            out.push(format!(
                "{}: covers nothing on the grid and is ignored: {why}; make it at least one cell thick or \
                 refine the grid",
                c.label()
            ));
        }
        if let Shape::Wire { radius: Some(r), .. } = &o.shape {
            if *r < MIN_VALIDATED_RADIUS * dmin {
                out.push(format!(
                    "{}: radius {} m is below {} cell ({} m), the smallest radius the thin-wire correction is \
                     validated for (it weakens the wire's coupling as 1/ln(Δ/r)); results for thinner wires \
                     are extrapolated",
                    c.label(),
                    crate::fmt::sig(*r, 4),
                    MIN_VALIDATED_RADIUS,
                    crate::fmt::sig(MIN_VALIDATED_RADIUS * dmin, 4)
                ));
            }
        }
        if let Shape::Stl(mesh) = &o.shape {
            if pec && c.cells > 0 {
                holes.push((c.label(), mesh));
            }
        }
    }
    if !holes.is_empty() {
        out.extend(stl_holes(scene, grid, &holes));
    }
    out
}

/// Share of a PEC STL's edges (by the thin-part rule) that may stay off the painted
/// conductor before [`warnings`] speaks: convex corners of a curved surface leave a few.
pub const STL_HOLE_FRACTION: f64 = 0.01;

/// PEC STL solids described by their cells whose surface also reaches E edges that touch
/// no PEC cell (by the thin-part rule of `stl.rs`): walls thinner than a cell that contain
/// no cell centre there, holes in the conductor.
fn stl_holes(scene: &Scene, grid: &Grid, stls: &[(String, &std::sync::Arc<crate::scene::mesh::Mesh>)]) -> Vec<String> {
    let cells = super::materials::paint(scene, grid);
    let [_, ny, nz] = grid.n;
    let pec_cell = |q: [isize; 3]| {
        if (0..3).any(|a| q[a] < 0 || q[a] >= grid.n[a] as isize) {
            return false;
        }
        let m = cells[(q[0] as usize * ny + q[1] as usize) * nz + q[2] as usize];
        matches!(scene.materials[m as usize].kind, MaterialKind::Pec)
    };
    let nodes: [Vec<f64>; 3] = std::array::from_fn(|a| super::stl::nodes(grid, a));
    let mut out = Vec::new();
    for (label, mesh) in stls {
        let edges = super::stl::thin_edges(mesh, [&nodes[0], &nodes[1], &nodes[2]]);
        let missing = edges
            .iter()
            .filter(|e| {
                let (b, c) = ((e.axis + 1) % 3, (e.axis + 2) % 3);
                let p = e.index.map(|x| x as isize);
                ![(0, 0), (-1, 0), (0, -1), (-1, -1)].iter().any(|&(db, dc)| {
                    let mut q = p;
                    q[b] += db;
                    q[c] += dc;
                    pec_cell(q)
                })
            })
            .count();
        if missing > 0 && missing as f64 > STL_HOLE_FRACTION * edges.len() as f64 {
            out.push(format!(
                "{label}: {missing} of the {} E edges its surface reaches touch no PEC cell: parts of it thinner \
                 than a cell contain no cell centre and leave holes in the conductor (only a PEC STL that covers \
                 no cell at all becomes grid edges); make its walls at least a cell thick, or refine the grid",
                edges.len()
            ));
        }
    }
    out
}

#[cfg(test)]
#[path = "thin_tests.rs"]
mod tests;

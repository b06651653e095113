//! STL solids on the grid.
//!
//! * **Cells** ([`voxelize`]): a cell takes the solid's material when its centre is
//!   inside, like every other shape. The centres are tested a grid line at a time: one
//!   line along z per (x, y) column, its surface crossings found through the mesh's bins
//!   and sorted, then parity along the column ([`fdtd_scene::mesh`]). Columns run in
//!   parallel. The sample coordinates come in as one array per axis, so a rectilinear
//!   (graded) grid uses the same code with its own line coordinates.
//! * **Thin PEC parts** ([`thin_edges`]): a PEC STL that contains no cell centre (a sheet
//!   antenna exported as a thin closed solid) becomes E edges, the way a thin PEC box
//!   becomes a plate (`thin.rs`). Each node owns the half-open window from the midpoint
//!   before it to the midpoint after it along every axis. An E edge along `a` is PEC when
//!   the line through its midpoint along one of the other two axes `n` is inside the
//!   solid somewhere in the window of the edge's node along `n`. A sheet normal to z thus
//!   becomes the tangential E edges of the node plane nearest to it (its mid-plane's
//!   window), over the sheet's outline: an x edge where the point (midpoint x, node y)
//!   lies over the sheet, a y edge where (node x, midpoint y) does. A sheet through a
//!   plane of cell centres contains centres: it is painted as cells, one cell thick.
//!   Sheets at an angle to the grid give the staircase of such edges.
use super::thin::Edge;
use super::Grid;
use crate::scene::mesh::Mesh;
use rayon::prelude::*;

/// Inside flags of the points `xs × ys × zs` (each ascending), C order (z fastest).
pub fn voxelize(mesh: &Mesh, xs: &[f64], ys: &[f64], zs: &[f64]) -> Vec<bool> {
    let (ny, nz) = (ys.len(), zs.len());
    let mut out = vec![false; xs.len() * ny * nz];
    if out.is_empty() {
        return out;
    }
    out.par_chunks_mut(ny * nz)
        .enumerate()
        .for_each_init(Vec::new, |scratch, (i, slab)| {
            for (j, col) in slab.chunks_mut(nz).enumerate() {
                mesh.line_inside(2, xs[i], ys[j], zs, col, scratch);
            }
        });
    out
}

/// The cell centres along axis `a` of `grid` for cells `r.0..r.1`.
pub fn centres(grid: &Grid, a: usize, r: (usize, usize)) -> Vec<f64> {
    (r.0..r.1).map(|i| (i as f64 + 0.5) * grid.d[a]).collect()
}

/// The node coordinates along axis `a` of `grid` (`n + 1` of them).
pub fn nodes(grid: &Grid, a: usize) -> Vec<f64> {
    (0..=grid.n[a]).map(|i| i as f64 * grid.d[a]).collect()
}

/// The E edges of a thin PEC solid (see the module doc), sorted, without repeats, on
/// the grid whose nodes along each axis are `nodes[a]` (ascending).
pub fn thin_edges(mesh: &Mesh, nodes: [&[f64]; 3]) -> Vec<Edge> {
    let (lo, hi) = mesh.bounds();
    // Midpoints between nodes: the windows' boundaries.
    let mids: [Vec<f64>; 3] = std::array::from_fn(|a| nodes[a].windows(2).map(|w| 0.5 * (w[0] + w[1])).collect());
    // Indices along axis `a` whose coordinate in `xs` lies within the mesh's bounds.
    let within = |xs: &[f64], a: usize| {
        let first = xs.partition_point(|&x| x < lo[a]);
        let last = xs.partition_point(|&x| x <= hi[a]);
        first..last.max(first)
    };
    let mut jobs = Vec::new();
    for n in 0..3 {
        for a in (0..3).filter(|&a| a != n) {
            let t = 3 - n - a;
            for i in within(&mids[a], a) {
                jobs.push((n, a, t, i));
            }
        }
    }
    let mut edges: Vec<Edge> = jobs
        .into_par_iter()
        .flat_map_iter(|(n, a, t, i)| {
            let mut scratch = Vec::new();
            let mut out = Vec::new();
            for j in within(nodes[t], t) {
                let mut x = [0.0; 3];
                x[a] = mids[a][i];
                x[t] = nodes[t][j];
                for [c0, c1] in mesh.line_intervals(n, x[(n + 1) % 3], x[(n + 2) % 3], &mut scratch) {
                    // Node k's window along n is [mids[k-1], mids[k]).
                    let first = mids[n].partition_point(|&m| m <= c0);
                    let last = mids[n].partition_point(|&m| m <= c1);
                    for k in first..=last {
                        let mut index = [0; 3];
                        index[a] = i;
                        index[t] = j;
                        index[n] = k;
                        out.push(Edge { axis: a, index });
                    }
                }
            }
            out
        })
        .collect();
    edges.par_sort_unstable();
    edges.dedup();
    edges
}

#[cfg(test)]
#[path = "stl_tests.rs"]
mod tests;

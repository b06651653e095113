//! `shape = "wire"` and `shape = "plate"`: thin perfect conductors (docs/scene-format.md).
//! The material (PEC only) is checked by the caller; the grid snapping is fdtd-core's
//! (`model/thin.rs`).
use super::{num, point, vec3, Tbl, AXES, R};
use crate::Shape;

/// `points = [[x, y, z], ...]` (at least 2, inside the domain), optional `radius`.
pub(super) fn wire(t: &Tbl, size: [f64; 3]) -> R<Shape> {
    let points_v = t.req("points")?;
    let items = points_v.items().map_err(|_| {
        points_v
            .expected("an array of points [[x, y, z], ...]")
            .hint("a wire is a polyline: points = [[x0, y0, z0], [x1, y1, z1], ...]")
    })?;
    if items.len() < 2 {
        return Err(points_v
            .err(format!("a wire needs at least 2 points, found {}", items.len()))
            .hint("give both ends: points = [[x0, y0, z0], [x1, y1, z1]] (more points make a polyline)"));
    }
    let mut points = Vec::with_capacity(items.len());
    for item in &items {
        points.push(point(item, size)?);
    }
    if points.iter().all(|p| *p == points[0]) {
        return Err(points_v
            .err(format!("the wire has zero length (every point is {})", vec3(points[0])))
            .hint("give two different end points"));
    }
    let radius = t.get("radius").map(|v| v.positive()).transpose()?;
    Ok(Shape::Wire { points, radius })
}

/// `min`, `max` with exactly one axis thinner than a cell: the plate's normal.
pub(super) fn plate(t: &Tbl, cell: [f64; 3]) -> R<Shape> {
    let min = t.req("min")?.vec3()?;
    let max_v = t.req("max")?;
    let max = max_v.vec3()?;
    if let Some(a) = (0..3).find(|&a| min[a] > max[a]) {
        return Err(max_v.err(format!(
            "max is below min along {} ({} < {})",
            AXES[a],
            num(max[a]),
            num(min[a])
        )));
    }
    // Extent in cells along each axis; the plate's normal is the thinnest, and it must
    // be thinner than a cell.
    let cells = [0, 1, 2].map(|a| (max[a] - min[a]) / cell[a]);
    let axis = (0..3).min_by(|&a, &b| cells[a].total_cmp(&cells[b])).unwrap_or(0);
    if cells[axis] >= 1.0 {
        return Err(max_v
            .err(format!(
                "a plate must be thinner than a cell along one axis; this one is {} x {} x {} cells",
                num(cells[0]),
                num(cells[1]),
                num(cells[2])
            ))
            .hint("give min and max the same coordinate along the plate's normal, or use shape = \"box\""));
    }
    let zero = |a: usize| cells[a] < 1e-9;
    if (0..3).filter(|&a| zero(a)).count() >= 2 {
        return Err(max_v
            .err("the plate has zero extent along two axes: it is a line")
            .hint("use shape = \"wire\" with points = [min, max]"));
    }
    Ok(Shape::Plate { min, max, axis })
}

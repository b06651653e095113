//! `shape = "wire"` and `shape = "plate"`: thin perfect conductors (docs/scene-format.md).
//! The material (PEC only) is checked by the caller; the grid snapping is fdtd-core's
//! (`model/thin.rs`).
use super::{num, point, vec3, Tbl, AXES, R};
use crate::Shape;

/// The largest wire radius, in cells across the wire: the thin-wire (contour-path)
/// correction assumes the wire inside the cell around its edge (`fdtd-core`
/// `model/thin.rs`, `MAX_RADIUS`).
const MAX_RADIUS_CELLS: f64 = 0.5;

/// `points = [[x, y, z], ...]` (at least 2, inside the domain), optional `radius`
/// (below half the cell across every axis the wire runs along).
pub(super) fn wire(t: &Tbl, size: [f64; 3], cell: [f64; 3]) -> R<Shape> {
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
    let radius = match t.get("radius") {
        None => None,
        Some(v) => {
            let r = v.positive()?;
            // The cell sizes across the wire: normal to every axis it runs along.
            let runs: Vec<usize> = (0..3)
                .filter(|&a| points.windows(2).any(|s| s[0][a] != s[1][a]))
                .collect();
            let across = (0..3)
                .filter(|&b| runs.iter().any(|&a| a != b))
                .min_by(|&a, &b| cell[a].total_cmp(&cell[b]))
                .unwrap_or(0);
            let limit = MAX_RADIUS_CELLS * cell[across];
            if r >= limit {
                return Err(v
                    .err(format!(
                        "radius {} m is not below half the cell across the wire ({} m along {}): the thin-wire \
                         correction models a wire inside the cell around its grid edge",
                        num(r),
                        num(cell[across]),
                        AXES[across]
                    ))
                    .hint("describe a wire this thick as a cylinder (at least a cell across), or refine the grid"));
            }
            Some(r)
        }
    };
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

#[cfg(test)]
mod tests {
    use crate::{Scene, Shape};

    // Lines 1-8: a 40-cell cube of 1 mm, and a dielectric.
    const HEAD: &str =
        "[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[materials.copper]\nsigma = 5.8e7\n[[objects]]\n";

    fn parse(body: &str) -> Result<Scene, String> {
        Scene::parse(&format!("{HEAD}{body}"), "bad.toml").map_err(|e| e.to_string())
    }

    #[test]
    fn wires_and_plates_parse() {
        let s = parse(
            "shape = \"wire\"\nmaterial = \"pec\"\npoints = [[0.01, 0.01, 0.01], [0.01, 0.01, 0.02], [0.02, 0.02, 0.02]]\nradius = 1e-4\n\
             [[objects]]\nshape = \"plate\"\nmaterial = \"pec\"\nmin = [0.01, 0.005, 0.02]\nmax = [0.02, 0.0052, 0.03]\n",
        )
        .unwrap();
        assert_eq!(
            s.objects[0].shape,
            Shape::Wire {
                points: vec![[0.01, 0.01, 0.01], [0.01, 0.01, 0.02], [0.02, 0.02, 0.02]],
                radius: Some(1e-4)
            }
        );
        assert_eq!(
            s.objects[1].shape,
            Shape::Plate {
                min: [0.01, 0.005, 0.02],
                max: [0.02, 0.0052, 0.03],
                axis: 1
            }
        );
        assert_eq!(s.objects[1].shape.name(), "plate");
        let w = parse("shape = \"wire\"\nmaterial = \"pec\"\npoints = [[0, 0, 0], [0.04, 0, 0]]\n").unwrap();
        assert_eq!(
            w.objects[0].shape,
            Shape::Wire {
                points: vec![[0.0; 3], [0.04, 0.0, 0.0]],
                radius: None
            }
        );
    }

    #[test]
    fn bad_wires_and_plates_are_rejected_with_positions() {
        // (body, needles, line, column); the body starts on line 9.
        let cases: &[(&str, &[&str], usize, usize)] = &[
            (
                "shape = \"wire\"\nmaterial = \"copper\"\npoints = [[0, 0, 0], [0.01, 0, 0]]\n",
                &[
                    "objects[0].material: a wire is a thin perfect conductor: its material must be \"pec\" (got \"copper\")",
                    "help: for a lossy or dielectric conductor use a box or cylinder",
                ],
                10,
                12,
            ),
            (
                "shape = \"plate\"\nmaterial = \"vacuum\"\nmin = [0, 0, 0]\nmax = [0.01, 0.01, 0]\n",
                &["objects[0].material: a plate is a thin perfect conductor: its material must be \"pec\""],
                10,
                12,
            ),
            (
                "shape = \"wire\"\nmaterial = \"pec\"\npoints = [[0.01, 0.01, 0.01]]\n",
                &["objects[0].points: a wire needs at least 2 points, found 1", "help: give both ends"],
                11,
                10,
            ),
            (
                "shape = \"wire\"\nmaterial = \"pec\"\npoints = [0.01, 0.01, 0.01]\n",
                &["objects[0].points[0]: expected an array of 3 numbers [x, y, z], found float 0.01"],
                11,
                11,
            ),
            (
                "shape = \"wire\"\nmaterial = \"pec\"\npoints = [[0.01, 0.01, 0.01], [0.01, 0.05, 0.01]]\n",
                &["objects[0].points[1]: position [0.01, 0.05, 0.01] m is outside the domain"],
                11,
                31,
            ),
            (
                "shape = \"wire\"\nmaterial = \"pec\"\npoints = [[0.01, 0.01, 0.01], [0.01, 0.01, 0.01]]\n",
                &["objects[0].points: the wire has zero length"],
                11,
                10,
            ),
            (
                "shape = \"wire\"\nmaterial = \"pec\"\npoints = [[0, 0, 0], [0.01, 0, 0]]\nradius = -1\n",
                &["objects[0].radius: must be > 0 (got -1)"],
                12,
                10,
            ),
            (
                "shape = \"wire\"\nmaterial = \"pec\"\npoints = [[0, 0, 0], [0.01, 0, 0]]\nradius = 5e-4\n",
                &[
                    "objects[0].radius: radius",
                    "is not below half the cell across the wire",
                    "help: describe a wire this thick as a cylinder",
                ],
                12,
                10,
            ),
            (
                "shape = \"wire\"\nmaterial = \"pec\"\nmin = [0, 0, 0]\n",
                &["objects[0].min: \"min\" does not apply to a wire", "help: a wire takes \"points\", \"radius\""],
                11,
                1,
            ),
            (
                "shape = \"plate\"\nmaterial = \"pec\"\nmin = [0, 0, 0]\nmax = [0.01, 0.01, 0.01]\n",
                &[
                    "objects[0].max: a plate must be thinner than a cell along one axis; this one is 10 x 10 x 10 cells",
                    "help: give min and max the same coordinate along the plate's normal",
                ],
                12,
                7,
            ),
            (
                "shape = \"plate\"\nmaterial = \"pec\"\nmin = [0, 0.01, 0.01]\nmax = [0.01, 0.01, 0.01]\n",
                &["objects[0].max: the plate has zero extent along two axes: it is a line", "shape = \"wire\""],
                12,
                7,
            ),
            (
                "shape = \"plate\"\nmaterial = \"pec\"\nmin = [0, 0.01, 0.01]\nmax = [0.01, 0.005, 0.01]\n",
                &["objects[0].max: max is below min along y"],
                12,
                7,
            ),
            (
                "shape = \"wir\"\n",
                &["objects[0].shape: unknown shape \"wir\"", "did you mean \"wire\"?"],
                9,
                9,
            ),
        ];
        let mut failures = Vec::new();
        for (i, (body, needles, line, column)) in cases.iter().enumerate() {
            let msg = match parse(body) {
                Ok(_) => {
                    failures.push(format!("case {i}: parsed without error"));
                    continue;
                }
                Err(m) => m,
            };
            if !msg.starts_with(&format!("bad.toml:{line}:{column}: ")) {
                failures.push(format!("case {i}: expected position {line}:{column}, got:\n{msg}"));
            }
            for n in needles.iter() {
                if !msg.contains(n) {
                    failures.push(format!("case {i}: message lacks {n:?}:\n{msg}"));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    }
}

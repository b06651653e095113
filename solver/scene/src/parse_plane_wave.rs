//! `[[sources]]` entries of `type = "plane_wave"` (a child of `parse`, with its spanned
//! walker): the angles, the total-field box and where it may lie.
use super::{domain_desc, num, vec3, waveform, within, Tbl, Val, AXES, R};
use crate::{Boundaries, Boundary, Domain, Material, Object, PlaneWave};

/// What a plane wave's box is checked against: the grid, its CPML and the objects.
pub(super) struct Context<'s> {
    pub domain: &'s Domain,
    pub boundaries: Option<&'s Boundaries>,
    pub objects: &'s [Object],
    pub materials: Option<&'s [Material]>,
}

/// Cells between a box face and the CPML (or the domain's face): the H samples half a
/// cell outside the box must be ordinary vacuum samples, off the absorbing layer.
pub const MARGIN_CELLS: usize = 2;

const KEYS: [&str; 7] = ["name", "type", "theta", "phi", "polarization", "box", "waveform"];

/// A plane-wave entry (its `name` already taken by the caller).
pub(super) fn plane_wave(t: &Tbl, name: String, ctx: &Context) -> R<PlaneWave> {
    t.check_keys_with(&KEYS, |k| match k {
        "component" | "position" => Some((
            format!("{k:?} does not apply to a plane wave"),
            Some("a plane wave is given by theta, phi, polarization and its total-field box".into()),
        )),
        _ => None,
    })?;
    let angle = |key: &str, hi: f64| -> R<f64> {
        match t.get(key) {
            Some(v) => v.within(0.0, hi, "degrees"),
            None => Ok(0.0),
        }
    };
    let theta = angle("theta", 180.0)?;
    let phi = angle("phi", 360.0)?;
    let polarization = angle("polarization", 360.0)?;
    let box_v = t.req("box")?;
    let (min, max) = tfsf_box(&box_v, ctx)?;
    // Spanning a periodic axis, the incident field must be periodic too: k ⟂ that axis
    // (oblique incidence in a unit cell needs Bloch-periodic boundaries: not yet).
    let (th, ph) = (theta.to_radians(), phi.to_radians());
    let k = [th.sin() * ph.cos(), th.sin() * ph.sin(), th.cos()];
    let spans = spanned(min, max, ctx);
    if let Some(a) = (0..3).find(|&a| spans[a] && k[a].abs() > 1e-9) {
        let at = t.get("theta").or_else(|| t.get("phi")).unwrap_or(box_v);
        return Err(at
            .err(format!(
                "the total-field box spans the periodic cell along {}, and k has a component {} along it: oblique \
                 incidence in a periodic unit cell needs Bloch-periodic boundaries, which are not supported yet",
                AXES[a],
                num(k[a])
            ))
            .hint("light a unit cell at normal incidence (theta = 0 or 180 for a cell periodic in x and y)"));
    }
    let waveform = waveform(&t.req("waveform")?.table()?)?;
    Ok(PlaneWave {
        name,
        theta,
        phi,
        polarization,
        min,
        max,
        waveform,
    })
}

/// The grid nodes a box's faces snap to (`round(x / d)`), per axis (low, high).
pub fn box_nodes(min: [f64; 3], max: [f64; 3], d: [f64; 3]) -> [[usize; 2]; 3] {
    [0, 1, 2].map(|a| {
        [
            (min[a] / d[a]).round().max(0.0) as usize,
            (max[a] / d[a]).round().max(0.0) as usize,
        ]
    })
}

/// Per axis, whether the box spans a periodic domain from face to face (a unit cell: the
/// box has no faces along that axis).
pub(super) fn spanned(min: [f64; 3], max: [f64; 3], ctx: &Context) -> [bool; 3] {
    let nodes = box_nodes(min, max, ctx.domain.cell_size);
    [0, 1, 2].map(|a| {
        let periodic = ctx
            .boundaries
            .is_some_and(|b| matches!(b.face(a, false), Boundary::Periodic));
        periodic && nodes[a] == [0, ctx.domain.cells[a]]
    })
}

fn tfsf_box(v: &Val, ctx: &Context) -> R<([f64; 3], [f64; 3])> {
    let b = v.table()?;
    b.check_keys(&["min", "max"])?;
    let (min_v, max_v) = (b.req("min")?, b.req("max")?);
    let (min, max) = (min_v.vec3()?, max_v.vec3()?);
    let size = ctx.domain.size();
    let d = ctx.domain.cell_size;
    for (v, p) in [(&min_v, min), (&max_v, max)] {
        if let Some(a) = (0..3).find(|&a| !within(p[a], size[a])) {
            return Err(v
                .err(format!("{} m is outside the domain {}", vec3(p), domain_desc(size)))
                .hint(format!(
                    "the total-field box must lie inside the domain and its CPML: {} between 0 and {} m",
                    AXES[a],
                    num(size[a])
                )));
        }
    }
    let nodes = box_nodes(min, max, d);
    if let Some(a) = (0..3).find(|&a| nodes[a][1] <= nodes[a][0]) {
        return Err(max_v
            .err(format!(
                "the total-field box has zero size along {} once its faces snap to the grid ({} to {} m, cells of {} m)",
                AXES[a],
                num(min[a]),
                num(max[a]),
                num(d[a])
            ))
            .hint("give the box at least one cell along every axis"));
    }
    let spans = spanned(min, max, ctx);
    if let Some(bounds) = ctx.boundaries {
        for a in (0..3).filter(|&a| !spans[a]) {
            let n = ctx.domain.cells[a];
            let layer = |high: bool| match bounds.face(a, high) {
                Boundary::Cpml(c) => c.cells,
                _ => 0,
            };
            let lo = layer(false) + MARGIN_CELLS;
            let hi = n.saturating_sub(layer(true) + MARGIN_CELLS);
            for (high, node, val) in [(false, nodes[a][0], &min_v), (true, nodes[a][1], &max_v)] {
                if node < lo || node > hi {
                    let face = format!("{}{}", AXES[a], if high { "+" } else { "-" });
                    let what = match layer(high) {
                        0 => format!("within {MARGIN_CELLS} cells of the {face} face of the domain"),
                        c => {
                            format!("inside or within {MARGIN_CELLS} cells of the CPML of the {face} face ({c} cells)")
                        }
                    };
                    return Err(val.err(format!("the total-field box reaches {what}")).hint(format!(
                        "keep {} between {} and {} m: the scattered field around the box must lie in the \
                             interior, off the absorbing layer",
                        AXES[a],
                        num(lo as f64 * d[a]),
                        num(hi.max(lo) as f64 * d[a])
                    )));
                }
            }
        }
    }
    // Objects may lie inside the box or outside it, not across its faces: the incident
    // field is a vacuum plane wave on the faces (and half a cell outside them).
    let lo = [0, 1, 2].map(|a| nodes[a][0] as f64 * d[a]);
    let hi = [0, 1, 2].map(|a| nodes[a][1] as f64 * d[a]);
    for (i, o) in ctx.objects.iter().enumerate() {
        if o.material == 0 {
            continue;
        }
        let (olo, ohi) = o.shape.bounds();
        let tol = 1e-9;
        let inside =
            (0..3).all(|a| spans[a] || (olo[a] >= lo[a] + d[a] * (1.0 - tol) && ohi[a] <= hi[a] - d[a] * (1.0 - tol)));
        let outside =
            (0..3).any(|a| !spans[a] && (ohi[a] <= lo[a] - d[a] * (1.0 - tol) || olo[a] >= hi[a] + d[a] * (1.0 - tol)));
        if !(inside || outside) {
            let mat = ctx
                .materials
                .and_then(|m| m.get(o.material))
                .map_or(String::new(), |m| format!(" of {:?}", m.name));
            return Err(v
                .err(format!(
                    "a face of the total-field box (faces at {} .. {} m) cuts objects[{i}] (a {}{mat}, bounds {} .. {} m)",
                    vec3(lo),
                    vec3(hi),
                    o.shape.name(),
                    vec3(olo),
                    vec3(ohi)
                ))
                .hint(
                    "the incident field is a plane wave in vacuum on the box's faces: keep each object's bounds at \
                     least one cell inside the box or one cell outside it (docs/scene-format.md, plane waves)",
                ));
        }
    }
    Ok((min, max))
}

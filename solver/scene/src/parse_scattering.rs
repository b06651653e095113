//! `[[cross_sections]]` and how `[[farfield]]` boxes sit around a plane wave's
//! total-field box (a child of `parse`, after the sources: both need the plane waves).
//!
//! A cross section is two flux boxes: one in the scattered field (outside the total-field
//! box: the scattered power) and one in the total field (inside it, around every object
//! in it: the absorbed power). A far-field box in a scene with a plane wave must enclose
//! the total-field box (its fields are then the scattered field alone, and the far field
//! is the radar cross section); one that cuts the box or lies inside it would transform a
//! mix of incident and scattered field.
use super::monitors::{bounds, frequencies};
use super::{list, vec3, Diag, Names, Problems, Tbl, Val, AXES, R};
use crate::monitor::{CrossSection, FarFieldBox};
use crate::{Boundaries, Boundary, Domain, Object, PlaneWave};

/// What the boxes are checked against.
pub(super) struct Context<'s> {
    pub domain: &'s Domain,
    pub boundaries: &'s Boundaries,
    pub objects: &'s [Object],
    pub plane_waves: &'s [PlaneWave],
}

const KEYS: [&str; 5] = ["name", "source", "frequencies", "scattered", "total"];

/// Every `[[cross_sections]]` entry, and the checks of the far-field boxes against the
/// plane waves; problems go to `p`.
pub(super) fn cross_sections(
    root: &Tbl,
    ctx: &Context,
    farfields: &[FarFieldBox],
    p: &mut Problems,
) -> Vec<CrossSection> {
    // A plane wave that failed to parse has its own error: checks against the plane
    // waves would only add confusing ones ("the scene has none").
    let declared = list(root.get("sources"), "sources")
        .unwrap_or_default()
        .iter()
        .filter(|t| t.get("type").and_then(|v| v.str().ok()) == Some("plane_wave"))
        .count();
    if declared > ctx.plane_waves.len() {
        return Vec::new();
    }
    let mut names = Names::default();
    let mut out = Vec::new();
    for (i, t) in p
        .keep(list(root.get("cross_sections"), "cross_sections"))
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        out.extend(p.keep(cross_section(t, i, ctx, &mut names)));
    }
    let tables = p.keep(list(root.get("farfield"), "farfield")).unwrap_or_default();
    if tables.len() == farfields.len() {
        for (t, f) in tables.iter().zip(farfields) {
            p.keep(farfield(t, f, ctx));
        }
    }
    out
}

/// The plane wave's total-field box in grid nodes (low, high) per axis, and whether it
/// spans each axis (a periodic unit cell: no faces there).
fn nodes(w: &PlaneWave, d: &Domain) -> ([[usize; 2]; 3], [bool; 3]) {
    let n = super::plane_wave::box_nodes(w.min, w.max, d.cell_size);
    (n, [0, 1, 2].map(|a| n[a] == [0, d.cells[a]]))
}

/// A box (m) in grid nodes.
fn snap(b: ([f64; 3], [f64; 3]), d: &Domain) -> [[usize; 2]; 3] {
    super::plane_wave::box_nodes(b.0, b.1, d.cell_size)
}

fn cross_section(t: &Tbl, i: usize, ctx: &Context, names: &mut Names) -> R<CrossSection> {
    t.check_keys(&KEYS)?;
    let name = names.take(t, "cross_section", i)?;
    let wave = which_wave(t, ctx.plane_waves, "a cross section")?;
    let w = &ctx.plane_waves[wave];
    let d = ctx.domain;
    let (tf, spans) = nodes(w, d);
    if let Some(a) = (0..3).find(|&a| spans[a]) {
        return Err(Diag::new(
            t.span.clone(),
            &t.path,
            format!(
                "plane wave {:?} spans the periodic cell along {} (a unit cell, no box faces there): cross sections \
             need a total-field box closed on every side",
                w.name, AXES[a]
            ),
        )
        .hint(
            "in a periodic unit cell, put flux planes ([[monitors]] type = \"flux\") below and above the structure: \
               their `normalized` flux gives R and T",
        ));
    }
    let frequencies = t.get("frequencies").map(|v| frequencies(&v)).transpose()?;
    let size = d.size();
    let layer = |a: usize, high: bool| match ctx.boundaries.face(a, high) {
        Boundary::Cpml(c) => c.cells,
        _ => 0,
    };
    let scattered =
        match t.get("scattered") {
            None => None,
            Some(v) => {
                let b = bounds(&v.table()?, size, true)?;
                let s = snap(b, d);
                for a in 0..3 {
                    if !(s[a][0] < tf[a][0] && s[a][1] > tf[a][1]) {
                        return Err(v.err(format!(
                        "the scattered-field box ({} .. {} m) does not enclose the total-field box of plane wave {:?} \
                         along {} with a cell to spare",
                        vec3(b.0),
                        vec3(b.1),
                        w.name,
                        AXES[a]
                    ))
                    .hint("it measures the scattered power: its faces must lie in the scattered field, outside the \
                           total-field box"));
                    }
                    if s[a][0] < layer(a, false) + 1 || s[a][1] + layer(a, true) + 1 > d.cells[a] {
                        return Err(v
                            .err(format!(
                                "the scattered-field box reaches the CPML (or the domain's face) along {}",
                                AXES[a]
                            ))
                            .hint("keep it at least one cell inside the absorbing layer"));
                    }
                }
                Some(b)
            }
        };
    let total = match t.get("total") {
        None => {
            if let Some(a) = (0..3).find(|&a| tf[a][1] < tf[a][0] + 3) {
                return Err(Diag::new(
                    t.span.clone(),
                    &t.path,
                    format!(
                    "the total-field box of plane wave {:?} is {} cell(s) along {}: the absorption box one cell inside \
                     it needs at least 3",
                    w.name,
                    tf[a][1] - tf[a][0],
                    AXES[a]
                ),
                ));
            }
            None
        }
        Some(v) => {
            let b = bounds(&v.table()?, size, true)?;
            let s = snap(b, d);
            if let Some(a) = (0..3).find(|&a| !(s[a][0] > tf[a][0] && s[a][1] < tf[a][1])) {
                return Err(v.err(format!(
                    "the absorption box ({} .. {} m) is not inside the total-field box of plane wave {:?} along {} \
                     with a cell to spare",
                    vec3(b.0),
                    vec3(b.1),
                    w.name,
                    AXES[a]
                ))
                .hint("it measures the absorbed power in the total field: keep it inside the total-field box, around \
                       the objects"));
            }
            Some(b)
        }
    };
    // Every object inside the total-field box must lie inside the absorption box.
    let ab = total.map(|b| snap(b, d)).unwrap_or(tf.map(|[l, h]| [l + 1, h - 1]));
    let (lo, hi) = (
        [0, 1, 2].map(|a| ab[a][0] as f64 * d.cell_size[a]),
        [0, 1, 2].map(|a| ab[a][1] as f64 * d.cell_size[a]),
    );
    let tf_lo = [0, 1, 2].map(|a| tf[a][0] as f64 * d.cell_size[a]);
    let tf_hi = [0, 1, 2].map(|a| tf[a][1] as f64 * d.cell_size[a]);
    for (k, o) in ctx.objects.iter().enumerate().filter(|(_, o)| o.material != 0) {
        let (olo, ohi) = o.shape.bounds();
        let tol = 1e-9 * d.cell_size[0];
        let in_tf = (0..3).all(|a| olo[a] >= tf_lo[a] - tol && ohi[a] <= tf_hi[a] + tol);
        let in_ab = (0..3).all(|a| olo[a] >= lo[a] - tol && ohi[a] <= hi[a] + tol);
        if in_tf && !in_ab {
            let at = t
                .get("total")
                .map_or(Diag::new(t.span.clone(), &t.path, ""), |v| v.err(""));
            return Err(Diag {
                message: format!(
                    "objects[{k}] (a {}, bounds {} .. {} m) is not inside the absorption box ({} .. {} m): its loss \
                     would not be counted",
                    o.shape.name(),
                    vec3(olo),
                    vec3(ohi),
                    vec3(lo),
                    vec3(hi)
                ),
                ..at
            }
            .hint("make the total-field box larger, or give `total = { min, max }` around every object in it"));
        }
    }
    Ok(CrossSection {
        name,
        wave,
        frequencies,
        scattered,
        total,
    })
}

/// The plane wave an entry refers to: its `source`, or the scene's only one.
fn which_wave(t: &Tbl, waves: &[PlaneWave], what: &str) -> R<usize> {
    if waves.is_empty() {
        let at = t
            .get("source")
            .map_or(Diag::new(t.span.clone(), &t.path, ""), |v| v.err(""));
        return Err(Diag {
            message: format!("{what} needs a plane wave, and the scene has none"),
            ..at
        }
        .hint("add a [[sources]] entry with type = \"plane_wave\" (docs/scene-format.md, plane waves)"));
    }
    match t.get("source") {
        Some(v) => {
            let s = v.str()?;
            waves.iter().position(|w| w.name == s).ok_or_else(|| {
                v.err(format!("no plane wave is named {s:?}")).hint(format!(
                    "the plane waves are {}",
                    super::quoted(&waves.iter().map(|w| w.name.as_str()).collect::<Vec<_>>())
                ))
            })
        }
        None if waves.len() == 1 => Ok(0),
        None => Err(Diag::new(
            t.span.clone(),
            &t.path,
            format!("the scene has {} plane waves", waves.len()),
        )
        .hint("say which with source = \"<name>\"")),
    }
}

/// A far-field box against the plane waves: `rcs = true` needs one; with one, the box
/// (given or the default) must enclose its total-field box.
fn farfield(t: &Tbl, f: &FarFieldBox, ctx: &Context) -> R<()> {
    let rcs_v = t.get("rcs");
    if ctx.plane_waves.is_empty() {
        if let (Some(v), Some(true)) = (&rcs_v, f.rcs) {
            return Err(v
                .err("rcs = true needs a plane wave, and the scene has none")
                .hint("a radar cross section is the far field of what a plane wave lights: add a [[sources]] entry with type = \"plane_wave\""));
        }
        return Ok(());
    }
    let d = ctx.domain;
    let Some(region) = f.region else {
        // The default box is built around the total-field box (fdtd-core).
        return Ok(());
    };
    let fb = snap(region, d);
    for w in ctx.plane_waves {
        let (tf, spans) = nodes(w, d);
        let encloses = (0..3).all(|a| fb[a][0] < tf[a][0] && fb[a][1] > tf[a][1]);
        if spans.iter().any(|&s| s) {
            continue;
        }
        if !encloses {
            let at = t.get("box").expect("a region comes from `box`");
            return Err(at
                .err(format!(
                    "the far-field box ({} .. {} m) does not enclose the total-field box of plane wave {:?} ({} .. {} m) \
                     with a cell to spare",
                    vec3(region.0),
                    vec3(region.1),
                    w.name,
                    vec3(w.min),
                    vec3(w.max)
                ))
                .hint("with a plane wave the far-field box must lie in the scattered field, around the total-field \
                       box (or leave out `box`: the default encloses it)"));
        }
    }
    Ok(())
}

/// `rcs = true | false`.
pub(super) fn rcs(v: &Val) -> R<bool> {
    v.boolean()
}

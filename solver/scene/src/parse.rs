//! Scene TOML → [`Scene`].
//!
//! A small typed walker over `toml`'s spanned document tree ([`DeTable`]), so every
//! problem is reported with its `line:column`, its dotted key path and, where one is
//! close, a did-you-mean suggestion. The format is documented in `docs/scene-format.md`.
use super::{
    Boundaries, Boundary, CheckpointSection, CpmlParams, Domain, Frequencies, LinePort, Lumped, Material, MaterialKind,
    Object, Port, Probe, Region, Scene, SceneError, Shape, Snapshot, Source, SourceKind, Time, TimeEnd, Topology,
};
use crate::waveform::{WaveShape, Waveform};
use crate::{Component, C0};
use std::collections::HashMap;
use std::f64::consts::PI;
use std::ops::Range;
use std::path::Path;
use toml::de::{DeInteger, DeTable, DeValue};
use toml::Spanned;

mod thin;

/// Grids above this many cells are rejected outright (the memory plan checks finer).
#[path = "parse_monitors.rs"]
mod monitors;
#[path = "parse_plane_wave.rs"]
pub(crate) mod plane_wave;
#[path = "parse_poles.rs"]
mod poles;

const MAX_CELLS: f64 = 1_099_511_627_776.0; // 2^40

const TOP_KEYS: [&str; 15] = [
    "domain",
    "ports",
    "drive",
    "lumped",
    "frequencies",
    "time",
    "boundaries",
    "materials",
    "objects",
    "sources",
    "probes",
    "snapshots",
    "checkpoint",
    "monitors",
    "farfield",
];
const AXES: [&str; 3] = ["x", "y", "z"];
const COMPONENT_NAMES: [&str; 6] = ["Ex", "Ey", "Ez", "Hx", "Hy", "Hz"];

pub(super) fn parse(text: &str, path: &Path) -> Result<Scene, SceneError> {
    let doc = DeTable::parse(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        Diag::new(span, "", format!("invalid TOML: {}", e.message().trim())).into_error(text, path)
    })?;
    let root = Tbl {
        t: doc.get_ref(),
        span: 0..0,
        path: String::new(),
    };
    scene(&root, text, path).map_err(|mut diags| {
        // By position; problems of the document as a whole (a missing section) last.
        diags.sort_by_key(|d| (d.span == (0..0), d.span.start));
        // Line starts found once: positions of many problems (40 000 duplicate names) in
        // linear time, not one scan of the text each.
        let lines: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let mut errors: Vec<SceneError> = diags.into_iter().map(|d| d.into_error_in(text, &lines, path)).collect();
        if errors.len() == 1 {
            errors.remove(0)
        } else {
            SceneError::Several(errors)
        }
    })
}

/// Problems found so far: each section and list entry is checked on its own, so one
/// pass reports every problem that does not hide behind another.
#[derive(Default)]
struct Problems(Vec<Diag>);

impl Problems {
    fn keep<T>(&mut self, r: R<T>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(d) => {
                self.0.push(d);
                None
            }
        }
    }
}

fn scene(root: &Tbl, text: &str, path: &Path) -> Result<Scene, Vec<Diag>> {
    let mut p = Problems::default();
    p.keep(root.check_keys_with(&TOP_KEYS, planned_section));
    let dom = p.keep(root.req("domain").and_then(|v| v.table()).and_then(|t| domain(&t)));
    // Time, boundaries and the bounds of every point need the domain.
    let time = dom.as_ref().and_then(|(d, _)| {
        p.keep(
            root.req("time")
                .and_then(|v| v.table())
                .and_then(|t| time(&t, d.cell_size)),
        )
    });
    let boundaries = dom.as_ref().and_then(|(d, grid_at)| {
        p.keep(
            root.get("boundaries")
                .map(|v| v.table())
                .transpose()
                .and_then(|t| boundaries(t, d, grid_at)),
        )
    });
    // Without a valid time step the Courant check of materials is skipped (courant 0).
    let courant = time.as_ref().map_or(0.0, |t| t.courant);
    // The time step the grid will take (Grid::new), for the poles' resolution check.
    let dt = dom
        .as_ref()
        .filter(|_| courant > 0.0)
        .map(|(d, _)| courant / (C0 * d.cell_size.iter().map(|x| 1.0 / (x * x)).sum::<f64>().sqrt()));
    let mut materials = p.keep(materials(root.get("materials"), courant, dt));
    p.keep(checkpoint(root.get("checkpoint")));
    let size = dom.as_ref().map(|(d, _)| d.size());
    let mut objects = Vec::new();
    if let (Some(mats), Some((d, _))) = (&mut materials, &dom) {
        for t in p.keep(list(root.get("objects"), "objects")).unwrap_or_default() {
            objects.extend(p.keep(object(&t, mats, d.size(), d.cell_size, dt)));
        }
    }
    let mut srcs = Vec::new();
    let mut plane_waves = Vec::new();
    let mut probes = Vec::new();
    let mut snapshots = Vec::new();
    let (mut monitors, mut farfields) = (Vec::new(), Vec::new());
    if let Some(size) = size {
        (monitors, farfields) = monitors::monitors_and_farfields(root, size, &mut p);
        if let (Some(tables), Some((d, _))) = (p.keep(list(root.get("sources"), "sources")), &dom) {
            let ctx = plane_wave::Context {
                domain: d,
                boundaries: boundaries.as_ref(),
                objects: &objects,
                materials: materials.as_deref(),
            };
            for r in sources(tables, size, &ctx) {
                match p.keep(r) {
                    Some(Src::Point(s)) => srcs.push(s),
                    Some(Src::Plane(w)) => plane_waves.push(w),
                    None => {}
                }
            }
        }
        let mut names = Names::default();
        for (i, t) in p
            .keep(list(root.get("probes"), "probes"))
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            probes.extend(p.keep(probe(t, i, size, &mut names)));
        }
        for (i, t) in p
            .keep(list(root.get("snapshots"), "snapshots"))
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            snapshots.extend(p.keep(snapshot(t, i, size, &mut names)));
        }
    }
    let frequencies = p
        .keep(root.get("frequencies").map(|v| frequencies(&v)).transpose())
        .flatten();
    let drive_each = p.keep(drive(root.get("drive"))).unwrap_or(false);
    let mut ports = Vec::new();
    let mut lumped = Vec::new();
    if let Some((d, _)) = &dom {
        let mut names = Names::default();
        let mut taken: Vec<(String, Edges)> = Vec::new();
        let tables = p.keep(list(root.get("ports"), "ports")).unwrap_or_default();
        let stop = frequencies.as_ref().map(|f| f.values().into_iter().fold(0.0, f64::max));
        for (i, t) in tables.iter().enumerate() {
            ports.extend(p.keep(port(t, i, d, stop, drive_each, &mut names, &mut taken)));
        }
        if drive_each {
            let first = srcs.first().map(|s| &s.name).or(plane_waves.first().map(|w| &w.name));
            if let (Some(v), Some(name)) = (root.get("drive"), first) {
                p.0.push(
                    v.err(
                        "drive.ports = \"each\" with [[sources]]: the S-matrix needs the ports as the only excitation",
                    )
                    .hint(format!("remove the [[sources]] ({name}) or drive one port per run")),
                );
            }
            if ports.is_empty() {
                if let Some(v) = root.get("drive") {
                    p.0.push(v.err("drive.ports = \"each\" but the scene has no [[ports]]"));
                }
            }
        }
        if ports.iter().filter(|p| p.excite).count() > 1 {
            let second = ports.iter().filter(|p| p.excite).nth(1).map(|p| p.name.clone());
            let at = tables
                .iter()
                .find(|t| t.get("name").and_then(|v| v.str().ok().map(String::from)) == second)
                .or(tables.get(1));
            if let Some(t) = at {
                p.0.push(
                    Diag::new(t.span.clone(), &t.path, "more than one port is driven (excite = true)")
                        .hint("drive one port per run; the others are matched loads (excite = false)"),
                );
            }
        }
        for (i, t) in p
            .keep(list(root.get("lumped"), "lumped"))
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            lumped.extend(p.keep(lumped_element(t, i, d, &mut names, &mut taken)));
        }
    }
    match (dom, time, boundaries, materials) {
        (Some((domain, _)), Some(time), Some(boundaries), Some(materials)) if p.0.is_empty() => Ok(Scene {
            path: path.to_path_buf(),
            text: text.to_string(),
            domain,
            time,
            boundaries,
            materials,
            objects,
            sources: srcs,
            plane_waves,
            probes,
            snapshots,
            monitors,
            farfields,
            ports,
            lumped,
            frequencies,
            drive_each,
        }),
        _ => Err(p.0),
    }
}

/// Top-level names of planned features, so users get "not implemented yet"
/// rather than "unknown key".
fn planned_section(key: &str) -> Note {
    let (message, hint) = match key {
        "lumped_ports" | "port" => ("unknown section", "lumped ports are [[ports]] entries"),
        "dft" | "flux" => (
            "not a section",
            "frequency-domain monitors are [[monitors]] with type = \"dft\" or \"flux\"",
        ),
        "far_field" | "farfields" | "ntff" => ("not a section", "far-field boxes are [[farfield]]"),
        "plane_wave" | "tfsf" => (
            "not a section",
            "a plane wave is a [[sources]] entry with type = \"plane_wave\"",
        ),
        _ => return None,
    };
    Some((message.into(), Some(hint.into())))
}

// ---------------------------------------------------------------------------
// Sections
// ---------------------------------------------------------------------------

/// `[domain]`; also returns the `size`/`cells` value, where grid-size problems point.
fn domain<'a>(t: &Tbl<'a>) -> R<(Domain, Val<'a>)> {
    t.check_keys(&["cell", "size", "cells"])?;
    let cell_v = t.req("cell")?;
    let cell_size = match cell_v.value() {
        DeValue::Array(_) => cell_v.vec3_with(|v| v.positive())?,
        DeValue::Integer(_) | DeValue::Float(_) => [cell_v.positive()?; 3],
        _ => return Err(cell_v.expected("a number or an array of 3 numbers [dx, dy, dz]")),
    };
    let (cells, grid_at) = match t.one_of("size", "cells")? {
        OneOf::First(v) => (cells_from_size(&v, cell_size)?, v),
        OneOf::Second(v) => {
            let items = v.items_n(3, "3 integers [nx, ny, nz]")?;
            let mut n = [0usize; 3];
            for (a, item) in items.iter().enumerate() {
                n[a] = item.uint(1)?;
            }
            (n, v)
        }
    };
    let total: f64 = cells.iter().map(|&n| n as f64).product();
    if total > MAX_CELLS {
        return Err(grid_at
            .err(format!(
                "a grid of {} x {} x {} = {} cells is too large",
                cells[0],
                cells[1],
                cells[2],
                num(total)
            ))
            .hint("the limit is 2^40 (about 1.1e12) cells; use larger cells or a smaller domain"));
    }
    Ok((Domain { cells, cell_size }, grid_at))
}

fn cells_from_size(v: &Val, d: [f64; 3]) -> R<[usize; 3]> {
    let items = v.items_n(3, "3 numbers [x, y, z]")?;
    let size = [items[0].positive()?, items[1].positive()?, items[2].positive()?];
    let exact = [0, 1, 2].map(|a| size[a] / d[a]);
    let nearest = exact.map(|n| n.round().max(1.0));
    if let Some(a) = (0..3).find(|&a| exact[a] > MAX_CELLS) {
        return Err(items[a]
            .err(format!(
                "{} m in cells of {} m is far too many cells",
                num(size[a]),
                num(d[a])
            ))
            .hint("the limit is 2^40 (about 1.1e12) cells in all"));
    }
    for (a, item) in items.iter().enumerate() {
        if (exact[a] - nearest[a]).abs() > 1e-6 * nearest[a] {
            let what = if exact[a] < 0.5 {
                format!("{} m is smaller than one cell ({} m)", num(size[a]), num(d[a]))
            } else {
                format!(
                    "{} m is not a whole number of cells of {} m ({} cells)",
                    num(size[a]),
                    num(d[a]),
                    num(exact[a])
                )
            };
            let valid = [0, 1, 2].map(|b| nearest[b] * d[b]);
            return Err(item.err(what).hint(format!(
                "nearest valid size: size = {} ({} x {} x {} cells), or give `cells` instead",
                vec3(valid),
                nearest[0],
                nearest[1],
                nearest[2]
            )));
        }
    }
    Ok(nearest.map(|n| n as usize))
}

/// A `duration` needing more steps than this is almost surely a unit mistake.
const MAX_DURATION_STEPS: f64 = 1e9;

fn time(t: &Tbl, cell_size: [f64; 3]) -> R<Time> {
    t.check_keys(&["duration", "steps", "courant", "decay_db"])?;
    let decay_db = t.get("decay_db").map(|v| v.nonneg()).transpose()?;
    let courant = match t.get("courant") {
        None => 0.99,
        Some(v) => {
            let s = v.positive()?;
            if s > 1.0 {
                return Err(v
                    .err(format!(
                        "Courant factor {} > 1: the Yee scheme is unstable above 1",
                        num(s)
                    ))
                    .hint("use a value in (0, 1]; the default is 0.99"));
            }
            s
        }
    };
    let end = match t.one_of("duration", "steps")? {
        OneOf::First(v) => {
            let duration = v.positive()?;
            // The same dt as model::Grid.
            let dt = courant / (C0 * cell_size.iter().map(|d| 1.0 / (d * d)).sum::<f64>().sqrt());
            let steps = duration / dt;
            if steps < 1.0 - 1e-9 {
                return Err(v.err(format!(
                    "{} s is shorter than one time step (dt = {} s)",
                    num(duration),
                    num(dt)
                )));
            }
            if steps > MAX_DURATION_STEPS {
                return Err(v
                    .err(format!(
                        "{} s would take {} time steps of {} s",
                        num(duration),
                        num(steps.ceil()),
                        num(dt)
                    ))
                    .hint("durations are in seconds (1 ns = 1e-9); give `steps` to really run this long"));
            }
            TimeEnd::Duration(duration)
        }
        OneOf::Second(v) => TimeEnd::Steps(v.uint(1)?),
    };
    Ok(Time { end, courant, decay_db })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum FaceKind {
    Pec,
    Pmc,
    Periodic,
    Cpml,
}

/// Which key set a face: its span, its name and its precedence (0 all, 1 axis, 2 face).
struct FaceSetting {
    kind: FaceKind,
    level: u8,
    key: &'static str,
    span: Range<usize>,
}

fn boundaries(t: Option<Tbl>, domain: &Domain, grid_at: &Val) -> R<Boundaries> {
    let mut faces: [Option<FaceSetting>; 6] = Default::default();
    let mut params = CpmlParams::default();
    let mut cpml_cells_at = None;
    if let Some(t) = &t {
        let mut allowed = vec!["all", "x", "y", "z", "cpml"];
        allowed.extend(Boundaries::FACE_NAMES);
        t.check_keys(&allowed)?;
        let keys = std::iter::once(("all", 0, vec![0, 1, 2, 3, 4, 5]))
            .chain(AXES.iter().enumerate().map(|(a, &k)| (k, 1, vec![2 * a, 2 * a + 1])))
            .chain(Boundaries::FACE_NAMES.iter().enumerate().map(|(f, &k)| (k, 2, vec![f])));
        for (key, level, targets) in keys {
            let Some(v) = t.get(key) else { continue };
            let kind = boundary_kind(&v)?;
            let span = t.key_span(key);
            for f in targets {
                if let Some(prev) = &faces[f] {
                    if prev.level == 1 && level == 2 {
                        return Err(Diag::new(
                            span,
                            &v.path,
                            format!("face {key} is set twice, by {:?} and by {key:?}", prev.key),
                        )
                        .hint("remove one of them (a face key overrides only \"all\")"));
                    }
                }
                faces[f] = Some(FaceSetting {
                    kind,
                    level,
                    key,
                    span: span.clone(),
                });
            }
        }
        if let Some(c) = t.get("cpml") {
            let c = c.table()?;
            params = cpml_params(&c)?;
            cpml_cells_at = c.get("cells");
        }
    }
    check_periodic(&faces)?;
    let kinds = faces.map(|f| f.map_or(FaceKind::Cpml, |f| f.kind));
    for (a, axis) in AXES.iter().enumerate() {
        let layers = (0..2).filter(|h| kinds[2 * a + h] == FaceKind::Cpml).count();
        let total = layers.saturating_mul(params.cells);
        let n = domain.cells[a];
        if total > 0 && total >= n {
            let at = cpml_cells_at.as_ref().unwrap_or(grid_at);
            return Err(at
                .err(format!(
                    "CPML layers ({total} cells in all) leave no interior along {axis}, which has {n} cells"
                ))
                .hint("enlarge the domain, or make [boundaries.cpml] cells smaller"));
        }
    }
    Ok(Boundaries {
        faces: kinds.map(|k| match k {
            FaceKind::Pec => Boundary::Pec,
            FaceKind::Pmc => Boundary::Pmc,
            FaceKind::Periodic => Boundary::Periodic,
            FaceKind::Cpml => Boundary::Cpml(params.clone()),
        }),
    })
}

fn boundary_kind(v: &Val) -> R<FaceKind> {
    let name = choice(v, "boundary", &["pec", "pmc", "periodic", "cpml"], |s| {
        matches!(s, "pml" | "abc" | "mur" | "absorbing" | "open").then(|| {
            (
                format!("unknown boundary {s:?}"),
                Some("absorbing boundaries are \"cpml\"".into()),
            )
        })
    })?;
    Ok(match name {
        "pec" => FaceKind::Pec,
        "pmc" => FaceKind::Pmc,
        "periodic" => FaceKind::Periodic,
        _ => FaceKind::Cpml,
    })
}

fn check_periodic(faces: &[Option<FaceSetting>; 6]) -> R<()> {
    let periodic = |f: usize| faces[f].as_ref().is_some_and(|s| s.kind == FaceKind::Periodic);
    for (a, axis) in AXES.iter().enumerate() {
        let (lo, hi) = (2 * a, 2 * a + 1);
        if periodic(lo) == periodic(hi) {
            continue;
        }
        let (p, other) = if periodic(lo) { (lo, hi) } else { (hi, lo) };
        // Blame the face key that broke the symmetry (an axis key or `all` set both).
        let Some(blame) = [p, other]
            .into_iter()
            .filter_map(|f| faces[f].as_ref())
            .find(|s| s.level == 2)
            .or(faces[p].as_ref())
        else {
            continue; // unreachable: a periodic face was set by some key
        };
        return Err(Diag::new(
            blame.span.clone(),
            &format!("boundaries.{}", blame.key),
            format!(
                "periodic boundary on {} needs {} periodic too",
                Boundaries::FACE_NAMES[p],
                Boundaries::FACE_NAMES[other]
            ),
        )
        .hint(format!("set {axis} = \"periodic\" to make both faces periodic")));
    }
    Ok(())
}

fn cpml_params(t: &Tbl) -> R<CpmlParams> {
    t.check_keys(&["cells", "order", "sigma_factor", "kappa_max", "alpha_max"])?;
    let d = CpmlParams::default();
    // Bounded well past any useful grading: larger values overflow the profiles (1e308
    // gave NaN fields).
    let kappa_max = opt(t, "kappa_max", d.kappa_max, |v| v.within(1.0, 1e3, ""))?;
    Ok(CpmlParams {
        cells: t.get("cells").map_or(Ok(d.cells), |v| v.uint(1))?,
        order: opt(t, "order", d.order, |v| v.within(0.0, 20.0, ""))?,
        sigma_factor: opt(t, "sigma_factor", d.sigma_factor, |v| v.within(0.0, 100.0, ""))?,
        kappa_max,
        alpha_max: opt(t, "alpha_max", d.alpha_max, |v| v.within(0.0, 100.0, ""))?,
    })
}

fn materials(v: Option<Val>, courant: f64, dt: Option<f64>) -> R<Vec<Material>> {
    let mut out = vec![Material::vacuum(), Material::pec()];
    let Some(v) = v else { return Ok(out) };
    let DeValue::Table(_) = v.value() else {
        return Err(v
            .expected("a table of materials")
            .hint("define each material as [materials.NAME] with eps_r, mu_r, sigma"));
    };
    let t = v.table()?;
    for (name, span, m) in t.entries() {
        if name == "vacuum" || name == "pec" {
            return Err(
                Diag::new(span, &m.path, format!("built-in material {name:?} cannot be redefined"))
                    .hint("\"vacuum\" and \"pec\" always exist; give your material another name"),
            );
        }
        if name.trim().is_empty() {
            return Err(Diag::new(span, &m.path, "a material name must not be empty"));
        }
        let m = m.table()?;
        m.check_keys_with(&["eps_r", "mu_r", "sigma", "poles"], |k| {
            matches!(k, "debye" | "lorentz" | "drude").then(|| {
                (
                    format!("{k:?} is a pole type, not a material key"),
                    Some(format!("write poles = [{{ type = \"{k}\", ... }}] (docs/materials.md)")),
                )
            })
        })?;
        let poles = m
            .get("poles")
            .map(|v| poles::poles(&v, name, dt))
            .transpose()?
            .unwrap_or_default();
        let eps_r = match m.get("eps_r") {
            None => 1.0,
            Some(v) => {
                let e = v.num()?;
                if e < 1.0 {
                    return Err(v.err(format!("eps_r = {} < 1 is not a passive material", num(e))).hint(
                        "non-dispersive materials need eps_r >= 1; model metals with \"pec\" or a conductivity `sigma`",
                    ));
                }
                e
            }
        };
        let mu_r = opt(&m, "mu_r", 1.0, Val::positive)?;
        // Waves travel at c/sqrt(eps_r·mu_r): faster than c when the product is below 1,
        // and the Yee scheme is stable only while courant·(that speed)/c <= 1.
        if courant * courant > eps_r * mu_r {
            let at = m.get("mu_r").or_else(|| m.get("eps_r")).expect("mu_r < 1 was given");
            let limit = (eps_r * mu_r).sqrt();
            return Err(at
                .err(format!(
                    "eps_r·mu_r = {} makes waves faster than light here, and the run unstable at Courant factor {}",
                    num(eps_r * mu_r),
                    num(courant)
                ))
                .hint(format!(
                    "the local Courant factor courant/sqrt(eps_r·mu_r) must stay <= 1: set time.courant <= {}",
                    num((limit * 1e6).floor() / 1e6)
                )));
        }
        out.push(Material {
            name: name.to_string(),
            kind: MaterialKind::Dielectric {
                eps_r,
                mu_r,
                sigma: opt(&m, "sigma", 0.0, Val::nonneg)?,
            },
            poles,
        });
    }
    Ok(out)
}

/// Longest `[checkpoint] every_seconds` accepted.
const MAX_CHECKPOINT_SECONDS: f64 = 1e9;

/// Why `[checkpoint] path` is refused, and where checkpoints go instead.
const CHECKPOINT_PATH_HINT: &str = "checkpoints are named after the output file (`<output>.ckpt`, \
`.ckpt.prev`) and written beside it, or in a checkpoint directory given when the run is started; \
remove `path`";

/// `[checkpoint]` (optional): periodic checkpoints of a run.
fn checkpoint(v: Option<Val>) -> R<CheckpointSection> {
    let mut out = CheckpointSection::default();
    let Some(v) = v else { return Ok(out) };
    let t = v.table()?;
    t.check_keys(&["every_steps", "every_seconds", "path", "enabled"])?;
    if let Some(v) = t.get("every_steps") {
        out.every_steps = Some(v.uint(1)?);
    }
    if let Some(v) = t.get("every_seconds") {
        // A wall-time interval; beyond ~30 years it is a typo, and not a duration.
        let secs = v.positive()?;
        if secs > MAX_CHECKPOINT_SECONDS {
            return Err(v.err(format!(
                "must be at most {} s (about 30 years; got {})",
                num(MAX_CHECKPOINT_SECONDS),
                num(secs)
            )));
        }
        out.every_seconds = Some(secs);
    }
    if let Some(v) = t.get("path") {
        // A scene names no files: a path here could overwrite or delete any file the
        // user can write (or the run's own output).
        return Err(v
            .err("a scene cannot say where checkpoints go")
            .hint(CHECKPOINT_PATH_HINT));
    }
    if let Some(v) = t.get("enabled") {
        match v.value() {
            DeValue::Boolean(b) => out.enabled = *b,
            _ => return Err(v.expected("true or false")),
        }
    }
    Ok(out)
}

/// The `[checkpoint]` section of scene text that [`parse`] accepted (defaults when absent).
pub(super) fn checkpoint_section(text: &str) -> CheckpointSection {
    let Ok(doc) = DeTable::parse(text) else {
        return CheckpointSection::default();
    };
    let root = Tbl {
        t: doc.get_ref(),
        span: 0..0,
        path: String::new(),
    };
    checkpoint(root.get("checkpoint")).unwrap_or_default()
}

const SHAPE_KEYS: [(&str, &[&str]); 5] = [
    ("box", &["min", "max"]),
    ("sphere", &["center", "radius"]),
    ("cylinder", &["a", "b", "radius"]),
    ("wire", &["points", "radius"]),
    ("plate", &["min", "max"]),
];

fn object(t: &Tbl, materials: &mut Vec<Material>, size: [f64; 3], cell: [f64; 3], dt: Option<f64>) -> R<Object> {
    let shape_v = t.req("shape")?;
    let names: Vec<&str> = SHAPE_KEYS.iter().map(|(s, _)| *s).collect();
    let shape_name = choice(&shape_v, "shape", &names, |_| None)?;
    let geometry = SHAPE_KEYS
        .iter()
        .find(|(s, _)| *s == shape_name)
        .map_or(&[][..], |(_, k)| k);
    let mut allowed = vec!["shape", "material"];
    allowed.extend(geometry);
    if !matches!(shape_name, "wire" | "plate") {
        allowed.push("subpixel");
    }
    t.check_keys_with(&allowed, |k| {
        let users: Vec<&str> = SHAPE_KEYS
            .iter()
            .filter(|(_, ks)| ks.contains(&k))
            .map(|(s, _)| *s)
            .collect();
        if k == "subpixel" {
            return Some((
                format!("\"subpixel\" does not apply to a {shape_name}"),
                Some(format!(
                    "a {shape_name} is a thin perfect conductor on grid edges; subpixel averaging is for the surfaces of boxes, spheres and cylinders"
                )),
            ));
        }
        (!users.is_empty()).then(|| {
            (
                format!("{k:?} does not apply to a {shape_name}"),
                Some(format!("a {shape_name} takes {}", quoted(geometry))),
            )
        })
    })?;
    let material_v = t.req("material")?;
    let material = material_ref(&material_v, materials, dt)?;
    if matches!(shape_name, "wire" | "plate") && materials[material].kind != MaterialKind::Pec {
        return Err(material_v
            .err(format!(
                "a {shape_name} is a thin perfect conductor: its material must be \"pec\" (got {:?})",
                materials[material].name
            ))
            .hint("for a lossy or dielectric conductor use a box or cylinder at least one cell thick"));
    }
    let shape = match shape_name {
        "wire" => thin::wire(t, size, cell)?,
        "plate" => thin::plate(t, cell)?,
        "box" => {
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
            Shape::Box { min, max }
        }
        "sphere" => Shape::Sphere {
            center: t.req("center")?.vec3()?,
            radius: t.req("radius")?.positive()?,
        },
        _ => {
            let a = t.req("a")?.vec3()?;
            let b_v = t.req("b")?;
            let b = b_v.vec3()?;
            if a == b {
                return Err(b_v.err("the cylinder's axis has zero length (a == b)"));
            }
            Shape::Cylinder {
                a,
                b,
                radius: t.req("radius")?.positive()?,
            }
        }
    };
    // Default: on for a sphere's or cylinder's dielectric (PEC and dispersive objects keep
    // the staircase, so the flag says where averaging happens).
    let subpixel = match t.get("subpixel") {
        None => {
            let m = &materials[material];
            shape.subpixel_default() && m.kind != MaterialKind::Pec && m.poles.is_empty()
        }
        Some(v) => {
            let on = v.value().as_bool().ok_or_else(|| v.expected("true or false"))?;
            let m = &materials[material];
            if on && (m.kind == MaterialKind::Pec || !m.poles.is_empty()) {
                let what = if m.kind == MaterialKind::Pec {
                    "perfect conductor"
                } else {
                    "dispersive material"
                };
                return Err(v
                    .err(format!(
                        "subpixel averaging applies to non-dispersive dielectrics; {:?} is a {what}",
                        m.name
                    ))
                    .hint(
                        "a PEC or dispersive object keeps the staircase (the 4 cells around each edge); remove the key",
                    ));
            }
            on
        }
    };
    let (lo, hi) = shape.bounds();
    if (0..3).any(|a| !(hi[a] >= 0.0 && lo[a] <= size[a])) {
        return Err(Diag::new(
            t.span.clone(),
            &t.path,
            format!(
                "the {shape_name} (bounds {} to {}) lies entirely outside the domain {}",
                vec3(lo),
                vec3(hi),
                domain_desc(size)
            ),
        ));
    }
    Ok(Object {
        material,
        shape,
        subpixel,
    })
}

/// The index of the material `v` names: one of the scene's (they win over the library's
/// of the same name), else one of the library's (`library.rs`), added to `materials` the
/// first time it is used, its poles checked against the time step like a scene's.
fn material_ref(v: &Val, materials: &mut Vec<Material>, dt: Option<f64>) -> R<usize> {
    let name = v.str()?;
    if let Some(i) = materials.iter().position(|m| m.name == name) {
        return Ok(i);
    }
    if let Some(m) = crate::library::material(name) {
        if let Some(dt) = dt {
            for (i, pole) in m.poles.iter().enumerate() {
                if let Some((message, hint)) = poles::too_fast(pole, i, name, dt) {
                    let hint = match crate::library::is_optical_metal(name) {
                        true => format!(
                            "the library's {name:?} is an optical fit (Rakić et al. 1998, 0.25–12.4 µm, docs/materials.md): \
                             its poles need a time step of optical grids; at radio frequencies a metal is \"pec\" or a \
                             [materials] table with a conductivity `sigma`"
                        ),
                        false => hint,
                    };
                    return Err(v.err(message).hint(hint));
                }
            }
        }
        materials.push(m);
        return Ok(materials.len() - 1);
    }
    let mut names: Vec<&str> = materials.iter().map(|m| m.name.as_str()).collect();
    let defined = names.len();
    names.extend(crate::library::NAMES);
    let hint = match suggest(name, &names) {
        Some(s) => format!("did you mean {s:?}?"),
        None => format!(
            "defined materials: {}; the library's: {} (docs/materials.md)",
            quoted(&names[..defined]),
            quoted(&names[defined..])
        ),
    };
    Err(v.err(format!("unknown material {name:?}")).hint(hint))
}

/// A `[[sources]]` entry: a point source or a plane wave.
enum Src {
    Point(Source),
    Plane(crate::PlaneWave),
}

/// Each source, or the problem with it.
fn sources(tables: Vec<Tbl>, size: [f64; 3], ctx: &plane_wave::Context) -> Vec<R<Src>> {
    let mut names = Names::default();
    tables
        .iter()
        .enumerate()
        .map(|(i, t)| {
            if t.get("type").and_then(|v| v.str().ok()) == Some("plane_wave") {
                let name = names.take(t, "source", i)?;
                return plane_wave::plane_wave(t, name, ctx).map(Src::Plane);
            }
            t.check_keys(&["name", "type", "component", "position", "waveform"])?;
            let name = names.take(t, "source", i)?;
            let kind = source_kind(&t.req("type")?)?;
            let component = component(&t.req("component")?)?;
            let position = point(&t.req("position")?, size)?;
            let waveform = waveform(&t.req("waveform")?.table()?)?;
            Ok(Src::Point(Source {
                name,
                kind,
                component,
                position,
                waveform,
            }))
        })
        .collect()
}

fn source_kind(v: &Val) -> R<SourceKind> {
    let planned = |s: &str| -> Note {
        match s {
            "tfsf" | "planewave" | "plane" => Some((
                format!("unknown source type {s:?}"),
                Some("a total-field/scattered-field plane wave is type = \"plane_wave\"".into()),
            )),
            "port" | "lumped_port" => Some((
                "a lumped port is not a source type".into(),
                Some("add a [[ports]] entry (start, end, impedance, [ports.waveform])".into()),
            )),
            _ => None,
        }
    };
    Ok(
        match choice(v, "source type", &["current", "hard", "plane_wave"], planned)? {
            "current" => SourceKind::Current,
            _ => SourceKind::Hard,
        },
    )
}

/// The range of a waveform's times (`tau`, `ramp`, `delay`), frequencies and amplitude.
const MIN_TIME: f64 = 1e-21;
const MAX_TIME: f64 = 1e3;
const MIN_FREQUENCY: f64 = 1e-3;
const MAX_FREQUENCY: f64 = 1e21;
/// Up to 1e25: anything stronger overflows f32 within a few steps; between, the run's
/// instability check names the source as the likely cause.
const MAX_AMPLITUDE: f64 = 1e25;
/// A port's reference impedance (Ω): 1e308 or 1e-300 gave NaN S.
const Z0_RANGE: (f64, f64) = (1e-3, 1e6);

/// The resistance (Ω) of a waveguide port's feed sheet: a hundred times the guide's
/// TE10 wave impedance scale (η0 = 377 Ω and above), so a wave coming back through the
/// sheet sees it as a shunt reflecting |Γ| ≈ Z_TE/(2R) ≈ 0.5 %.
pub const WAVEGUIDE_FEED: f64 = 5e4;

/// Keys each waveform type accepts besides `type`, `amplitude` and `delay`.
const WAVEFORM_KEYS: [(&str, &[&str]); 5] = [
    ("gaussian", &["frequency", "tau"]),
    ("gaussian_derivative", &["frequency", "tau"]),
    ("ricker", &["frequency"]),
    ("modulated_gaussian", &["frequency", "tau", "bandwidth"]),
    ("sine", &["frequency", "ramp"]),
];

fn waveform(t: &Tbl) -> R<Waveform> {
    let types = WAVEFORM_KEYS.map(|(k, _)| k);
    let ty = choice(&t.req("type")?, "waveform type", &types, |_| None)?;
    let own = WAVEFORM_KEYS
        .iter()
        .find(|(k, _)| *k == ty)
        .map_or(&[][..], |(_, keys)| keys);
    let mut allowed = vec!["type", "amplitude", "delay"];
    allowed.extend(own);
    t.check_keys_with(&allowed, |k| {
        let users: Vec<&str> = WAVEFORM_KEYS
            .iter()
            .filter(|(_, ks)| ks.contains(&k))
            .map(|(w, _)| *w)
            .collect();
        (!users.is_empty()).then(|| {
            (
                format!("{k:?} does not apply to waveform type {ty:?}"),
                Some(format!("it is used by {}", quoted(&users))),
            )
        })
    })?;
    // Times from 10⁻²¹ s and frequencies up to 10²¹ Hz: a `tau` of 5e-324 passes as
    // positive but makes the pulse NaN; an amplitude of 1e308 overflows f32 fields.
    let amplitude = opt(t, "amplitude", 1.0, |v| v.within(-MAX_AMPLITUDE, MAX_AMPLITUDE, ""))?;
    let positive = |key: &str| {
        t.get(key)
            .map(|v| match key {
                "frequency" | "bandwidth" => v.within(MIN_FREQUENCY, MAX_FREQUENCY, "Hz"),
                _ => v.within(MIN_TIME, MAX_TIME, "s"),
            })
            .transpose()
    };
    // Shape and default delay.
    let (shape, delay) = match ty {
        "gaussian" | "gaussian_derivative" => {
            let (tau, delay) = match t.one_of("frequency", "tau")? {
                OneOf::First(f) => gprmax_gaussian(f.within(MIN_FREQUENCY, MAX_FREQUENCY, "Hz")?),
                OneOf::Second(tau) => {
                    let tau = tau.within(MIN_TIME, MAX_TIME, "s")?;
                    (tau, 4.5 * tau)
                }
            };
            if ty == "gaussian" {
                (WaveShape::Gaussian { tau }, delay)
            } else {
                (WaveShape::GaussianDerivative { tau }, delay)
            }
        }
        "ricker" => {
            let frequency = t.req("frequency")?.within(MIN_FREQUENCY, MAX_FREQUENCY, "Hz")?;
            (WaveShape::Ricker { frequency }, 2f64.sqrt() / frequency)
        }
        "modulated_gaussian" => {
            let frequency = t.req("frequency")?.within(MIN_FREQUENCY, MAX_FREQUENCY, "Hz")?;
            t.exclusive("tau", "bandwidth")?;
            let tau = match (positive("tau")?, positive("bandwidth")?) {
                (Some(tau), _) => tau,
                (None, bandwidth) => 2.0 / (PI * bandwidth.unwrap_or(frequency)),
            };
            (WaveShape::ModulatedGaussian { frequency, tau }, 4.5 * tau)
        }
        _ => {
            let frequency = t.req("frequency")?.within(MIN_FREQUENCY, MAX_FREQUENCY, "Hz")?;
            let ramp = positive("ramp")?.unwrap_or(2.0 / frequency);
            (WaveShape::Sine { frequency, ramp }, 0.0)
        }
    };
    let delay = opt(t, "delay", delay, |v| v.within(0.0, MAX_TIME, "s"))?;
    let derived = match shape {
        WaveShape::Gaussian { tau } | WaveShape::GaussianDerivative { tau } => [tau, tau],
        WaveShape::Ricker { frequency } => [frequency, frequency],
        WaveShape::ModulatedGaussian { frequency, tau } => [frequency, tau],
        WaveShape::Sine { frequency, ramp } => [frequency, ramp],
    };
    // Extreme (e.g. subnormal) inputs can overflow tau, delay or ramp.
    if !(delay.is_finite() && derived.iter().all(|x| x.is_finite() && *x > 0.0)) {
        return Err(Diag::new(
            t.span.clone(),
            &t.path,
            format!("the waveform's parameters are out of range ({shape:?}, delay {delay:e} s)"),
        ));
    }
    Ok(Waveform {
        shape,
        amplitude,
        delay,
    })
}

/// `[frequencies]`: `start`, `stop`, `points` (default 201), or `list`.
fn frequencies(v: &Val) -> R<Frequencies> {
    let t = v.table()?;
    t.check_keys(&["start", "stop", "points", "list"])?;
    if let Some(l) = t.get("list") {
        for k in ["start", "stop", "points"] {
            if t.get(k).is_some() {
                return Err(Diag::new(
                    t.key_span(k),
                    &t.sub_path(k),
                    format!("both \"list\" and {k:?} are given"),
                )
                .hint("give either a list or start/stop/points"));
            }
        }
        let items = l.items()?;
        if items.is_empty() {
            return Err(l.err("the list of frequencies is empty"));
        }
        if items.len() > 1_000_000 {
            return Err(l.err(format!("{} frequencies is too many (at most 1000000)", items.len())));
        }
        let mut list = Vec::with_capacity(items.len());
        for item in &items {
            let f = item.positive()?;
            // Touchstone files (and the tables of every result) need increasing
            // frequencies, each once.
            if let Some(&before) = list.last() {
                if f <= before {
                    return Err(item
                        .err(format!(
                            "{} Hz follows {} Hz: the list must be increasing, without repeats",
                            num(f),
                            num(before)
                        ))
                        .hint("sort the list and remove repeated frequencies"));
                }
            }
            list.push(f);
        }
        return Ok(Frequencies::List(list));
    }
    let start = t.req("start")?.nonneg()?;
    let stop_v = t.req("stop")?;
    let stop = stop_v.positive()?;
    if stop < start {
        return Err(stop_v.err(format!("stop ({} Hz) is below start ({} Hz)", num(stop), num(start))));
    }
    let points = t.get("points").map_or(Ok(201), |v| v.uint(1))?;
    if points > 1_000_000 {
        return Err(t
            .req("points")?
            .err(format!("{points} points is too many (at most 1000000)")));
    }
    Ok(Frequencies::Range { start, stop, points })
}

/// The E edges a port or lumped element covers, in grid-node indices: along `axis`
/// from node `lo[axis]` to `hi[axis]` (edges `lo..hi`), and every node `lo..=hi` of the
/// other axes (parallel columns).
#[derive(Clone, Copy)]
struct Edges {
    axis: usize,
    lo: [i64; 3],
    hi: [i64; 3],
}

impl Edges {
    fn overlaps(&self, o: &Edges) -> bool {
        self.axis == o.axis
            && (0..3).all(|a| {
                if a == self.axis {
                    self.lo[a] < o.hi[a] && o.lo[a] < self.hi[a]
                } else {
                    self.lo[a] <= o.hi[a] && o.lo[a] <= self.hi[a]
                }
            })
    }
}

/// `start`, `end` and optional `axis` of a port or lumped element, snapped to grid nodes.
fn edge_span(t: &Tbl, d: &Domain, what: &str) -> R<([f64; 3], [f64; 3], usize, Edges)> {
    let size = d.size();
    let start = point(&t.req("start")?, size)?;
    let end_v = t.req("end")?;
    let end = point(&end_v, size)?;
    let node = |a: usize, x: f64| (x / d.cell_size[a]).round() as i64;
    let ns = [0, 1, 2].map(|a| node(a, start[a]));
    let ne = [0, 1, 2].map(|a| node(a, end[a]));
    let differ: Vec<usize> = (0..3).filter(|&a| ns[a] != ne[a]).collect();
    let axis = match t.get("axis") {
        Some(v) => {
            let name = choice(&v, "axis", &AXES, |_| None)?;
            let a = AXES.iter().position(|&x| x == name).unwrap_or(0);
            if ns[a] == ne[a] {
                return Err(v.err(format!(
                    "start and end snap to the same grid plane {name} = {} m: the {what} has no edge along {name}",
                    num(ns[a] as f64 * d.cell_size[a])
                )));
            }
            a
        }
        None => match differ[..] {
            [a] => a,
            [] if start == end => {
                return Err(end_v
                    .err(format!("zero-length {what}: start and end are the same point"))
                    .hint(format!("a {what} spans at least one cell edge between start and end")))
            }
            [] => {
                return Err(end_v
                    .err(format!(
                        "start and end snap to the same grid node ({} m): the {what} covers no edge",
                        vec3([0, 1, 2].map(|a| ns[a] as f64 * d.cell_size[a]))
                    ))
                    .hint(format!(
                        "the cell is {} m: move end at least one cell away along the {what}'s axis",
                        vec3(d.cell_size)
                    )))
            }
            _ => {
                let names: Vec<&str> = differ.iter().map(|&a| AXES[a]).collect();
                return Err(end_v
                    .err(format!(
                        "start and end differ along {}: the {what}'s axis is ambiguous",
                        names.join(" and ")
                    ))
                    .hint("give `axis` (the others then span parallel edges, e.g. a strip-wide port)"));
            }
        },
    };
    let lo = [0, 1, 2].map(|a| ns[a].min(ne[a]));
    let hi = [0, 1, 2].map(|a| ns[a].max(ne[a]));
    Ok((start, end, axis, Edges { axis, lo, hi }))
}

/// Refuse an element that shares an edge with an earlier port or lumped element.
fn claim(t: &Tbl, name: &str, e: Edges, taken: &mut Vec<(String, Edges)>) -> R<()> {
    if let Some((other, _)) = taken.iter().find(|(_, o)| o.overlaps(&e)) {
        return Err(Diag::new(
            t.span.clone(),
            &t.path,
            format!("`{name}` shares cell edges with `{other}`"),
        )
        .hint("ports and lumped elements must not overlap: move one of them"));
    }
    taken.push((name.to_string(), e));
    Ok(())
}

/// `[drive]` (optional): `ports = "each"` runs every port in turn (the full S-matrix
/// in one run), `"excited"` (the default) only the port with `excite = true`.
fn drive(v: Option<Val>) -> R<bool> {
    let Some(v) = v else { return Ok(false) };
    let t = v.table()?;
    t.check_keys(&["ports"])?;
    match t.get("ports") {
        None => Ok(false),
        Some(v) => match v.str()? {
            "each" => Ok(true),
            "excited" => Ok(false),
            other => Err(v
                .err(format!("unknown drive \"{other}\""))
                .hint("\"each\" (every port in turn: the full S-matrix) or \"excited\" (the port with excite = true)")),
        },
    }
}

#[allow(clippy::too_many_arguments)]
fn port(
    t: &Tbl,
    i: usize,
    d: &Domain,
    stop: Option<f64>,
    drive_each: bool,
    names: &mut Names,
    taken: &mut Vec<(String, Edges)>,
) -> R<Port> {
    t.check_keys(&[
        "name",
        "start",
        "end",
        "axis",
        "impedance",
        "excite",
        "waveform",
        "reference_plane",
        "eps_eff",
        "line",
        "measure",
        "mode",
    ])?;
    let name = names.take(t, "port", i)?;
    let (start, end, axis, edges) = edge_span(t, d, "port")?;
    // `impedance = "line"` (a line port): S referred to the line's own measured
    // impedance; the feed is then 50 Ω.
    let to_line = t.get("impedance").is_some_and(|v| v.value().as_str().is_some());
    let impedance = match to_line || t.get("mode").is_some() {
        // A waveguide port's feed is a nearly transparent current sheet (WAVEGUIDE_FEED
        // across the guide): what it sends back goes on into the guide behind it.
        _ if t.get("mode").is_some() => WAVEGUIDE_FEED,
        true => 50.0,
        false => opt(t, "impedance", 50.0, |v| v.within(Z0_RANGE.0, Z0_RANGE.1, "Ω"))?,
    };
    if let Some(v) = t.get("impedance").filter(|_| to_line) {
        if v.str()? != "line" || t.get("line").is_none() {
            return Err(v
                .err("impedance is a number of ohms, or \"line\" for a line port (S referred to the line's measured impedance)")
                .hint(match t.get("line") {
                    Some(_) => "e.g. impedance = 50, or impedance = \"line\"",
                    None => "\"line\" needs a line port: add line = \"+x\" (the direction of the line the port feeds)",
                }));
        }
    }
    let excite = match t.get("excite") {
        None => i == 0,
        Some(v) => v.value().as_bool().ok_or_else(|| v.expected("true or false"))?,
    };
    let waveform = match t.get("waveform") {
        Some(w) => Some(waveform(&w.table()?)?),
        None if excite || drive_each => match stop {
            Some(f) if f > 0.0 => Some(Waveform::gaussian_from_frequency(1.0, f / 2.0)),
            _ => {
                let why = match excite {
                    true => "a driven port needs a waveform",
                    false => "drive.ports = \"each\" drives every port: this one needs a waveform",
                };
                return Err(Diag::new(t.span.clone(), &t.path, why)
                    .hint("add [ports.waveform] (the source voltage, V), or a [frequencies] section to derive one"));
            }
        },
        None => None,
    };
    // A shift of the reference plane: any length, in metres (a typo in mm is caught by
    // its size against the domain: at most 100 domain diagonals either way).
    let reference_plane = match t.get("reference_plane") {
        None => 0.0,
        Some(v) => {
            let x = v.num()?;
            let far = 100.0 * d.size().iter().map(|s| s * s).sum::<f64>().sqrt();
            if !x.is_finite() || x.abs() > far {
                return Err(v
                    .err(format!(
                        "reference_plane = {} m is more than 100 domain diagonals ({} m) from the port",
                        num(x),
                        num(far)
                    ))
                    .hint("the shift is in metres along the port's feed line (e.g. 0.012 for 12 mm)"));
            }
            x
        }
    };
    let eps_eff = opt(t, "eps_eff", 1.0, |v| v.within(1.0, 1e4, ""))?;
    if t.get("eps_eff").is_some() && t.get("reference_plane").is_none() {
        let v = t.get("eps_eff").expect("checked");
        return Err(v
            .err("eps_eff is the feed line's effective permittivity for reference_plane, which is not given")
            .hint("add reference_plane = LENGTH (m), or drop eps_eff"));
    }
    let line = line_port(t, d, axis, &edges)?;
    if let (Some(_), Some(v)) = (line, t.get("eps_eff")) {
        return Err(v
            .err("a line port measures its line's propagation constant: eps_eff does not apply")
            .hint("drop eps_eff; reference_plane is the distance from the feed along the line"));
    }
    claim(t, &name, edges, taken)?;
    Ok(Port {
        name,
        start,
        end,
        axis,
        impedance,
        excite,
        waveform,
        reference_plane,
        eps_eff,
        line,
    })
}

/// `line = "+x"` (and `measure`) of a port: the direction of the line the port feeds.
fn line_port(t: &Tbl, d: &Domain, axis: usize, edges: &Edges) -> R<Option<LinePort>> {
    let Some(v) = t.get("line") else {
        if let Some(m) = t.get("mode") {
            return Err(m
                .err("mode is a waveguide port's, and this port has no line")
                .hint("add line = \"+z\" (the direction of the guide from the port)"));
        }
        if let Some(m) = t.get("measure") {
            return Err(m
                .err("measure is the distance to a line port's measurement planes, and this port has no line")
                .hint("add line = \"+x\" (the direction of the line the port feeds), or drop measure"));
        }
        return Ok(None);
    };
    const DIRS: [&str; 6] = ["+x", "-x", "+y", "-y", "+z", "-z"];
    let name = choice(&v, "line", &DIRS, |_| None)?;
    let k = DIRS.iter().position(|&x| x == name).unwrap_or(0);
    let (line_axis, sign) = (k / 2, if k % 2 == 0 { 1.0 } else { -1.0 });
    if line_axis == axis {
        return Err(v
            .err(format!(
                "the line runs along the port's own axis ({}): the feed spans the line's cross-section, from the return conductor to the signal conductor",
                AXES[axis]
            ))
            .hint("the line's direction is across the port: e.g. a port along z (ground to strip) feeds a line along x or y"));
    }
    if edges.lo[line_axis] != edges.hi[line_axis] {
        return Err(v
            .err(format!(
                "the port's start and end snap to different {} planes: a line port's feed lies in one plane across the line",
                AXES[line_axis]
            ))
            .hint(format!("give start and end the same {} coordinate", AXES[line_axis])));
    }
    let measure = match t.get("measure") {
        None => None,
        Some(m) => {
            let x = m.num()?;
            let cell = d.cell_size[line_axis];
            let len = d.size()[line_axis];
            if !(x.is_finite() && x >= 2.0 * cell && x < len) {
                return Err(m
                    .err(format!(
                        "measure = {} m: the measurement planes lie between 2 cells ({} m) and the domain's length along the line ({} m) from the feed",
                        num(x),
                        num(2.0 * cell),
                        num(len)
                    ))
                    .hint("measure is in metres, the distance from the feed to the planes where V and I are measured on the line"));
            }
            Some(x)
        }
    };
    let te10 = match t.get("mode") {
        None => false,
        Some(m) => {
            choice(&m, "mode", &["TE10"], |_| None)?;
            if let Some(z) = t.get("impedance").filter(|z| z.value().as_str().is_none()) {
                return Err(z
                    .err("a waveguide port's S is referred to its mode's wave impedance: impedance does not apply")
                    .hint("drop impedance (the feed is 50 Ω per column, S uses the measured TE10 wave impedance)"));
            }
            true
        }
    };
    let to_line = te10 || t.get("impedance").is_some_and(|v| v.value().as_str() == Some("line"));
    Ok(Some(LinePort {
        axis: line_axis,
        sign,
        measure,
        to_line,
        te10,
    }))
}

fn lumped_element(t: &Tbl, i: usize, d: &Domain, names: &mut Names, taken: &mut Vec<(String, Edges)>) -> R<Lumped> {
    t.check_keys(&["name", "start", "end", "axis", "r", "l", "c", "topology"])?;
    let name = names.take(t, "lumped", i)?;
    let (start, end, axis, edges) = edge_span(t, d, "lumped element")?;
    let get = |k: &str| t.get(k).map(|v| v.positive()).transpose();
    let (r, l, c) = (get("r")?, get("l")?, get("c")?);
    if r.is_none() && l.is_none() && c.is_none() {
        return Err(Diag::new(
            t.span.clone(),
            &t.path,
            "a lumped element needs at least one of r, l, c",
        )
        .hint("r in ohm, l in henry, c in farad"));
    }
    let topology = match t.get("topology") {
        None => Topology::Parallel,
        Some(v) => match choice(&v, "topology", &["parallel", "series"], |_| None)? {
            "parallel" => Topology::Parallel,
            _ => {
                return Err(v
                    .err("series RLC elements are not implemented yet")
                    .hint("use topology = \"parallel\" (R, L and C side by side on the edges)"))
            }
        },
    };
    claim(t, &name, edges, taken)?;
    Ok(Lumped {
        name,
        start,
        end,
        axis,
        r,
        l,
        c,
        topology,
    })
}

/// gprMax's gaussian for a frequency f: `(tau, delay)` = (1/(pi·sqrt(2)·f), 1/f),
/// taken from [`Waveform::gaussian_from_frequency`] so the numbers are identical.
fn gprmax_gaussian(f: f64) -> (f64, f64) {
    let g = Waveform::gaussian_from_frequency(1.0, f);
    match g.shape {
        WaveShape::Gaussian { tau } => (tau, g.delay),
        _ => (1.0 / (PI * 2f64.sqrt() * f), 1.0 / f),
    }
}

fn probe(t: &Tbl, i: usize, size: [f64; 3], names: &mut Names) -> R<Probe> {
    t.check_keys(&["name", "position", "components", "every"])?;
    Ok(Probe {
        name: names.take(t, "probe", i)?,
        position: point(&t.req("position")?, size)?,
        components: t
            .get("components")
            .map_or(Ok(Component::ALL.to_vec()), |v| components(&v))?,
        every: t.get("every").map_or(Ok(1), |v| v.uint(1))?,
    })
}

fn snapshot(t: &Tbl, i: usize, size: [f64; 3], names: &mut Names) -> R<Snapshot> {
    t.check_keys(&["name", "components", "every", "plane", "box"])?;
    let name = names.take(t, "snapshot", i)?;
    t.exclusive("plane", "box")?;
    let region = if let Some(p) = t.get("plane") {
        let p = p.table()?;
        p.check_keys(&["axis", "position"])?;
        let axis_name = choice(&p.req("axis")?, "axis", &AXES, |_| None)?;
        let axis = AXES.iter().position(|&a| a == axis_name).unwrap_or(0);
        let pos_v = p.req("position")?;
        let position = pos_v.num()?;
        if !within(position, size[axis]) {
            return Err(pos_v.err(format!(
                "plane {axis_name} = {} m is outside the domain (0 to {} m)",
                num(position),
                num(size[axis])
            )));
        }
        Region::Plane { axis, position }
    } else if let Some(b) = t.get("box") {
        let b = b.table()?;
        b.check_keys(&["min", "max"])?;
        let min = b.req("min")?.vec3()?;
        let max_v = b.req("max")?;
        let max = max_v.vec3()?;
        if let Some(a) = (0..3).find(|&a| min[a] > max[a]) {
            return Err(max_v.err(format!("max is below min along {}", AXES[a])));
        }
        if (0..3).any(|a| max[a] < 0.0 || min[a] > size[a]) {
            return Err(Diag::new(
                b.span.clone(),
                &b.path,
                format!("the box lies entirely outside the domain {}", domain_desc(size)),
            ));
        }
        Region::Box { min, max }
    } else {
        Region::All
    };
    Ok(Snapshot {
        name,
        region,
        components: t
            .get("components")
            .map_or(Ok(vec![Component::Ex, Component::Ey, Component::Ez]), |v| {
                components(&v)
            })?,
        every: t.get("every").map_or(Ok(10), |v| v.uint(1))?,
    })
}

// ---------------------------------------------------------------------------
// Shared value helpers
// ---------------------------------------------------------------------------

/// An optional array of tables (`[[objects]]`, ...); absent means empty.
fn list<'a>(v: Option<Val<'a>>, name: &str) -> R<Vec<Tbl<'a>>> {
    let Some(v) = v else { return Ok(Vec::new()) };
    let DeValue::Array(_) = v.value() else {
        return Err(v
            .expected("an array of tables")
            .hint(format!("write [[{name}]] (double brackets) once per entry")));
    };
    v.items()?.iter().map(Val::table).collect()
}

/// Unique names for sources, or for probes and snapshots together: each name and the
/// path of the entry that took it (a hash map: a scene may name 100000 probes).
#[derive(Default)]
struct Names(HashMap<String, String>);

/// The longest name of a source, probe, port, snapshot or monitor, in characters and in
/// bytes: names become parts of file names (`fdtd plot` adds the result's stem and a
/// suffix), and a file name holds at most 255 bytes on common file systems.
const MAX_NAME: usize = 100;
const MAX_NAME_BYTES: usize = 128;

impl Names {
    /// The entry's `name`, or `{prefix}{i+1}`; an error if already taken.
    fn take(&mut self, t: &Tbl, prefix: &str, i: usize) -> R<String> {
        let (name, at) = match t.get("name") {
            Some(v) => {
                let s = v.str()?;
                if s.trim().is_empty() {
                    return Err(v.err("a name must not be empty"));
                }
                // Names become HDF5 group names and parts of file names (`fdtd plot`):
                // `.` and `..` name the group itself or its parent there.
                if s.chars().any(|c| c == '/' || c.is_control()) || s == "." || s == ".." {
                    return Err(v
                        .err(format!("invalid name {s:?}"))
                        .hint("names are used in the output file: no '/' or control characters, not `.` or `..`"));
                }
                let chars = s.chars().count();
                if chars > MAX_NAME || s.len() > MAX_NAME_BYTES {
                    let size = match chars > MAX_NAME {
                        true => format!("{chars} characters"),
                        false => format!("{} bytes", s.len()),
                    };
                    return Err(v
                        .err(format!(
                            "a name of {size} is too long (at most {MAX_NAME} characters and {MAX_NAME_BYTES} bytes)"
                        ))
                        .hint("names become parts of file names (plots, tables), which hold at most 255 bytes"));
                }
                (s.to_string(), v.err(""))
            }
            None => (format!("{prefix}{}", i + 1), Diag::new(t.span.clone(), &t.path, "")),
        };
        if let Some(other) = self.0.get(&name) {
            return Err(Diag {
                message: format!("duplicate name {name:?} (also used by {other})"),
                ..at
            }
            .hint("names must be unique"));
        }
        self.0.insert(name.clone(), t.path.clone());
        Ok(name)
    }
}

fn component(v: &Val) -> R<Component> {
    let s = v.str()?;
    s.parse().map_err(|_| {
        let hint = match suggest(s, &COMPONENT_NAMES) {
            Some(c) => format!("did you mean {c:?}?"),
            None => "expected one of Ex, Ey, Ez, Hx, Hy, Hz".into(),
        };
        v.err(format!("unknown field component {s:?}")).hint(hint)
    })
}

/// A list of components; a single string is accepted as a list of one.
fn components(v: &Val) -> R<Vec<Component>> {
    if let DeValue::String(_) = v.value() {
        return Ok(vec![component(v)?]);
    }
    let items = match v.value() {
        DeValue::Array(_) => v.items()?,
        _ => return Err(v.expected("an array of field components like [\"Ex\", \"Hz\"]")),
    };
    if items.is_empty() {
        return Err(v
            .err("the list of components is empty")
            .hint("list at least one of Ex, Ey, Ez, Hx, Hy, Hz"));
    }
    let mut out = Vec::with_capacity(items.len());
    for item in &items {
        let c = component(item)?;
        if out.contains(&c) {
            return Err(item.err(format!("component {c} is listed twice")));
        }
        out.push(c);
    }
    Ok(out)
}

/// A position that must lie inside the domain (faces included).
fn point(v: &Val, size: [f64; 3]) -> R<[f64; 3]> {
    let p = v.vec3()?;
    if let Some(a) = (0..3).find(|&a| !within(p[a], size[a])) {
        return Err(v
            .err(format!(
                "position {} m is outside the domain {}",
                vec3(p),
                domain_desc(size)
            ))
            .hint(format!("{} must be between 0 and {} m", AXES[a], num(size[a]))));
    }
    // On the domain's face up to rounding: on it.
    Ok([0, 1, 2].map(|a| p[a].clamp(0.0, size[a])))
}

/// `0 <= x <= size`, with a little slack for rounding in the user's arithmetic (a cell
/// typed to 7 digits, 1.0390909e-3 for 22.86 mm / 22, leaves the domain 9e-9 short).
fn within(x: f64, size: f64) -> bool {
    let tol = 1e-6 * size;
    x >= -tol && x <= size + tol
}

/// An optional number with a default, checked by `check` when present.
fn opt<'a>(t: &Tbl<'a>, key: &str, default: f64, check: impl Fn(&Val<'a>) -> R<f64>) -> R<f64> {
    t.get(key).map_or(Ok(default), |v| check(&v))
}

/// A string that must be one of `options`.
fn choice<'o>(v: &Val, what: &str, options: &[&'o str], special: impl Fn(&str) -> Note) -> R<&'o str> {
    let s = v.str()?;
    if let Some(o) = options.iter().find(|&&o| o == s) {
        return Ok(o);
    }
    if let Some((message, hint)) = special(s) {
        return Err(Diag { hint, ..v.err(message) });
    }
    let hint = match suggest(s, options) {
        Some(o) => format!("did you mean {o:?}?"),
        None => format!("expected one of {}", quoted(options)),
    };
    Err(v.err(format!("unknown {what} {s:?}")).hint(hint))
}

/// The closest candidate to a misspelt `word`, if any is close enough.
pub(crate) fn suggest<'c>(word: &str, candidates: &[&'c str]) -> Option<&'c str> {
    let w = word.to_lowercase();
    let len = w.chars().count();
    let max_edits = match len {
        0 | 1 => 0,
        2 | 3 => 1,
        _ => 2,
    };
    candidates
        .iter()
        .filter_map(|&c| {
            let cl = c.to_lowercase();
            let edits = strsim::damerau_levenshtein(&w, &cl);
            let jw = strsim::jaro_winkler(&w, &cl);
            (edits <= max_edits || (len >= 4 && jw >= 0.9)).then_some((edits, jw, c))
        })
        .min_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)))
        .map(|(_, _, c)| c)
}

fn quoted(names: &[&str]) -> String {
    names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
}

/// A number for messages: 12 significant digits, exponent form when very small or large.
pub(crate) fn num(x: f64) -> String {
    let y: f64 = format!("{x:.11e}").parse().unwrap_or(x);
    if y != 0.0 && y.is_finite() && (y.abs() < 1e-3 || y.abs() >= 1e6) {
        format!("{y:e}")
    } else {
        format!("{y}")
    }
}

fn vec3(v: [f64; 3]) -> String {
    format!("[{}, {}, {}]", num(v[0]), num(v[1]), num(v[2]))
}

fn domain_desc(size: [f64; 3]) -> String {
    format!(
        "[0, {}] x [0, {}] x [0, {}] m",
        num(size[0]),
        num(size[1]),
        num(size[2])
    )
}

fn int_value(i: &DeInteger) -> Option<i128> {
    i128::from_str_radix(i.as_str(), i.radix()).ok()
}

/// A key for a dotted path: bare if it is a TOML bare key, else quoted.
fn key_segment(key: &str) -> String {
    let bare = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        key.to_string()
    } else {
        format!("{key:?}")
    }
}

// ---------------------------------------------------------------------------
// The spanned walker
// ---------------------------------------------------------------------------

/// A problem at a byte span, before it is turned into line:column.
#[derive(Debug)]
struct Diag {
    span: Range<usize>,
    key: String,
    message: String,
    hint: Option<String>,
}

type R<T> = Result<T, Diag>;

/// A message and optional hint for a recognised-but-unsupported name.
type Note = Option<(String, Option<String>)>;

impl Diag {
    fn new(span: Range<usize>, key: &str, message: impl Into<String>) -> Diag {
        Diag {
            span,
            key: key.to_string(),
            message: message.into(),
            hint: None,
        }
    }

    fn hint(self, hint: impl Into<String>) -> Diag {
        Diag {
            hint: Some(hint.into()),
            ..self
        }
    }

    fn into_error(self, text: &str, path: &Path) -> SceneError {
        let (line, column) = line_col(text, self.span.start);
        self.at(path, line, column)
    }

    /// [`Diag::into_error`] with the line starts of `text` (`lines`) known.
    fn into_error_in(self, text: &str, lines: &[usize], path: &Path) -> SceneError {
        let mut offset = self.span.start.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = lines.partition_point(|&start| start <= offset).max(1);
        let column = text[lines[line - 1]..offset].chars().count() + 1;
        self.at(path, line, column)
    }

    fn at(self, path: &Path, line: usize, column: usize) -> SceneError {
        SceneError::Invalid {
            path: path.to_path_buf(),
            line,
            column,
            key: self.key,
            message: self.message,
            hint: self.hint,
        }
    }
}

/// 1-based line and column (in characters) of byte `offset`.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

fn describe(v: &DeValue) -> String {
    match v {
        DeValue::String(s) if s.chars().count() <= 40 => format!("string {s:?}"),
        DeValue::Integer(i) => format!("integer {i}"),
        DeValue::Float(f) => format!("float {f}"),
        DeValue::Boolean(b) => format!("boolean {b}"),
        DeValue::Array(a) if a.is_empty() => "an empty array".into(),
        DeValue::Array(_) => "an array".into(),
        other => format!("a {}", other.type_str()),
    }
}

/// A value with its dotted key path.
#[derive(Clone)]
struct Val<'a> {
    v: &'a Spanned<DeValue<'a>>,
    path: String,
}

impl<'a> Val<'a> {
    fn value(&self) -> &'a DeValue<'a> {
        self.v.get_ref()
    }

    fn err(&self, message: impl Into<String>) -> Diag {
        Diag::new(self.v.span(), &self.path, message)
    }

    fn expected(&self, what: &str) -> Diag {
        self.err(format!("expected {what}, found {}", describe(self.value())))
    }

    /// A finite number; integers are accepted.
    fn num(&self) -> R<f64> {
        let x = match self.value() {
            DeValue::Float(f) => f.as_str().parse::<f64>().ok(),
            DeValue::Integer(i) => int_value(i).map(|n| n as f64),
            _ => return Err(self.expected("a number")),
        };
        match x {
            Some(x) if x.is_finite() => Ok(x),
            _ => Err(self.err("expected a finite number")),
        }
    }

    fn positive(&self) -> R<f64> {
        let x = self.num()?;
        if x > 0.0 {
            Ok(x)
        } else {
            Err(self.err(format!("must be > 0 (got {})", num(x))))
        }
    }

    fn nonneg(&self) -> R<f64> {
        self.at_least(0.0)
    }

    /// A number in `lo..=hi`: for keys whose extremes pass as numbers but overflow the
    /// update (a `sigma_factor` of 1e308, a `tau` of 5e-324) or are surely a unit mistake.
    fn within(&self, lo: f64, hi: f64, unit: &str) -> R<f64> {
        let x = self.num()?;
        if (lo..=hi).contains(&x) {
            Ok(x)
        } else {
            let unit = if unit.is_empty() {
                String::new()
            } else {
                format!(" {unit}")
            };
            Err(self.err(format!(
                "must be from {} to {}{unit} (got {}{unit})",
                num(lo),
                num(hi),
                num(x)
            )))
        }
    }

    fn at_least(&self, min: f64) -> R<f64> {
        let x = self.num()?;
        if x >= min {
            Ok(x)
        } else {
            Err(self.err(format!("must be >= {} (got {})", num(min), num(x))))
        }
    }

    /// An integer `>= min` that fits a usize.
    fn uint(&self, min: u64) -> R<usize> {
        let DeValue::Integer(i) = self.value() else {
            return Err(self.expected("an integer"));
        };
        let n = int_value(i).ok_or_else(|| self.err("integer out of range"))?;
        if n < min as i128 {
            return Err(self.err(format!("must be >= {min} (got {n})")));
        }
        usize::try_from(n).map_err(|_| self.err(format!("{n} is too large")))
    }

    fn str(&self) -> R<&'a str> {
        self.value().as_str().ok_or_else(|| self.expected("a string"))
    }

    fn table(&self) -> R<Tbl<'a>> {
        match self.value() {
            DeValue::Table(t) => Ok(Tbl {
                t,
                span: self.v.span(),
                path: self.path.clone(),
            }),
            _ => Err(self.expected("a table")),
        }
    }

    /// Array elements, with paths `key[i]`.
    fn items(&self) -> R<Vec<Val<'a>>> {
        match self.value() {
            DeValue::Array(a) => Ok(a
                .iter()
                .enumerate()
                .map(|(i, v)| Val {
                    v,
                    path: format!("{}[{i}]", self.path),
                })
                .collect()),
            _ => Err(self.expected("an array")),
        }
    }

    /// An array of exactly `n` elements.
    fn items_n(&self, n: usize, what: &str) -> R<Vec<Val<'a>>> {
        let DeValue::Array(a) = self.value() else {
            return Err(self.expected(&format!("an array of {what}")));
        };
        if a.len() != n {
            return Err(self.err(format!("expected {what}, found {} element(s)", a.len())));
        }
        self.items()
    }

    fn vec3(&self) -> R<[f64; 3]> {
        self.vec3_with(Val::num)
    }

    fn vec3_with(&self, check: impl Fn(&Val<'a>) -> R<f64>) -> R<[f64; 3]> {
        let items = self.items_n(3, "3 numbers [x, y, z]")?;
        Ok([check(&items[0])?, check(&items[1])?, check(&items[2])?])
    }
}

/// A table with its span (its header, or the inline table) and dotted key path.
struct Tbl<'a> {
    t: &'a DeTable<'a>,
    span: Range<usize>,
    path: String,
}

enum OneOf<'a> {
    First(Val<'a>),
    Second(Val<'a>),
}

impl<'a> Tbl<'a> {
    fn sub_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key_segment(key)
        } else {
            format!("{}.{}", self.path, key_segment(key))
        }
    }

    fn get(&self, key: &str) -> Option<Val<'a>> {
        self.t.get(key).map(|v| Val {
            v,
            path: self.sub_path(key),
        })
    }

    fn req(&self, key: &str) -> R<Val<'a>> {
        self.get(key).ok_or_else(|| self.missing(&format!("{key:?}")))
    }

    fn missing(&self, what: &str) -> Diag {
        if self.path.is_empty() {
            let name = what.replace('"', "");
            Diag::new(self.span.clone(), "", format!("missing section [{name}]")).hint(format!("add a [{name}] table"))
        } else {
            Diag::new(self.span.clone(), &self.path, format!("missing key {what}"))
        }
    }

    fn key_span(&self, key: &str) -> Range<usize> {
        self.t.get_key_value(key).map_or(self.span.clone(), |(k, _)| k.span())
    }

    /// Entries in file order: (key, key span, value).
    fn entries(&self) -> Vec<(&'a str, Range<usize>, Val<'a>)> {
        let mut e: Vec<_> = self
            .t
            .iter()
            .map(|(k, v)| {
                let key: &'a str = k.get_ref();
                (
                    key,
                    k.span(),
                    Val {
                        v,
                        path: self.sub_path(key),
                    },
                )
            })
            .collect();
        e.sort_by_key(|(_, span, _)| span.start);
        e
    }

    fn check_keys(&self, allowed: &[&str]) -> R<()> {
        self.check_keys_with(allowed, |_| None)
    }

    /// Rejects keys outside `allowed`; `special` gives tailored messages for some.
    fn check_keys_with(&self, allowed: &[&str], special: impl Fn(&str) -> Note) -> R<()> {
        for (key, span, v) in self.entries() {
            if allowed.contains(&key) {
                continue;
            }
            if let Some((message, hint)) = special(key) {
                return Err(Diag {
                    hint,
                    ..Diag::new(span, &v.path, message)
                });
            }
            let hint = match suggest(key, allowed) {
                Some(s) => format!("did you mean {s:?}?"),
                None => format!("expected one of {}", quoted(allowed)),
            };
            return Err(Diag::new(span, &v.path, format!("unknown key {key:?}")).hint(hint));
        }
        Ok(())
    }

    /// At most one of `a` and `b`; an error at the later one if both are given.
    fn exclusive(&self, a: &str, b: &str) -> R<()> {
        if let (Some(_), Some(_)) = (self.get(a), self.get(b)) {
            let (sa, sb) = (self.key_span(a), self.key_span(b));
            let (later, span) = if sb.start > sa.start { (b, sb) } else { (a, sa) };
            return Err(
                Diag::new(span, &self.sub_path(later), format!("both {a:?} and {b:?} are given"))
                    .hint("give only one of them"),
            );
        }
        Ok(())
    }

    /// Exactly one of `a` and `b`.
    fn one_of(&self, a: &str, b: &str) -> R<OneOf<'a>> {
        self.exclusive(a, b)?;
        match (self.get(a), self.get(b)) {
            (Some(v), _) => Ok(OneOf::First(v)),
            (None, Some(v)) => Ok(OneOf::Second(v)),
            (None, None) => Err(self.missing(&format!("{a:?} or {b:?}"))),
        }
    }
}

/// The byte span of the value at dotted key path `key` (`ports[0].start`,
/// `frequencies.list`, `farfield[1].box.min`) in `text`, if the text has it.
pub(crate) fn locate(text: &str, key: &str) -> Option<Range<usize>> {
    let doc = DeTable::parse(text).ok()?;
    let mut table: &DeTable = doc.get_ref();
    let mut found: Option<&Spanned<DeValue>> = None;
    for seg in key.split('.') {
        if let Some(v) = found {
            match v.get_ref() {
                DeValue::Table(t) => table = t,
                _ => return None,
            }
        }
        let (name, index) = match seg.split_once('[') {
            Some((n, rest)) => (n, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (seg, None),
        };
        let mut v = table.get(name)?;
        if let Some(i) = index {
            match v.get_ref() {
                DeValue::Array(a) => v = a.get(i)?,
                _ => return None,
            }
        }
        found = Some(v);
    }
    let span = found?.span();
    Some(span)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scene;
    use approx::assert_relative_eq;

    const FULL: &str = r#"
[domain]
cell = [1e-3, 2e-3, 1e-3]
size = [0.02, 0.03, 0.015]

[time]
duration = 1e-9
courant = 0.9

[boundaries]
all = "pec"
x = "periodic"
z_max = "cpml"
[boundaries.cpml]
cells = 4
order = 4
kappa_max = 2.5

[materials.zeta]
eps_r = 4
sigma = 0.01
[materials.alpha]
mu_r = 2.0

[[objects]]
shape = "box"
material = "zeta"
min = [0, 0, 0]
max = [0.01, 0.01, 0.01]

[[objects]]
shape = "sphere"
material = "pec"
center = [0.01, 0.015, 0.0075]
radius = 0.003

[[objects]]
shape = "cylinder"
material = "alpha"
a = [0.005, 0.005, 0.0]
b = [0.005, 0.005, 0.015]
radius = 0.002

[[sources]]
type = "current"
component = "Ez"
position = [0.01, 0.015, 0.0075]
waveform = { type = "gaussian", frequency = 2e9 }

[[sources]]
name = "b"
type = "hard"
component = "hx"
position = [0.001, 0.002, 0.003]
[sources.waveform]
type = "gaussian_derivative"
tau = 1e-10
amplitude = -2

[[sources]]
type = "current"
component = "Hy"
position = [0.02, 0.03, 0.015]
waveform = { type = "ricker", frequency = 1e9 }

[[sources]]
type = "current"
component = "Ex"
position = [0, 0, 0]
waveform = { type = "modulated_gaussian", frequency = 4e9 }

[[sources]]
type = "current"
component = "Ey"
position = [0, 0, 0]
waveform = { type = "modulated_gaussian", frequency = 4e9, tau = 3e-10, delay = 0 }

[[sources]]
type = "current"
component = "Ez"
position = [0, 0, 0]
waveform = { type = "sine", frequency = 5e8, amplitude = 3 }

[[sources]]
type = "current"
component = "Ez"
position = [0, 0, 0]
waveform = { type = "gaussian_derivative", frequency = 1e9, delay = 2e-9 }

[[probes]]
position = [0.01, 0.01, 0.01]

[[probes]]
name = "rx"
position = [0.012, 0.01, 0.01]
components = ["Ez", "hx"]
every = 5

[[snapshots]]

[[snapshots]]
name = "mid"
components = ["Hz"]
every = 20
plane = { axis = "y", position = 0.015 }

[[snapshots]]
box = { min = [0, 0, 0], max = [0.01, 0.02, 0.005] }
"#;

    fn ok(text: &str) -> Scene {
        match parse(text, Path::new("test.toml")) {
            Ok(s) => s,
            Err(e) => panic!("unexpected error:\n{e}"),
        }
    }

    /// `[drive] ports = "each"`: every port gets a waveform (its own, or the one
    /// derived from [frequencies]); the drive order starts at the excited port; bad
    /// values, [[sources]], no ports or no waveform to derive are errors at the key.
    #[test]
    fn drive_each_ports() {
        let base = "[domain]\ncell = 1e-3\ncells = [20, 20, 20]\n[time]\nsteps = 10\n[boundaries]\nall = \"pec\"\n";
        let port = |name: &str, x: u32, extra: &str| {
            format!("[[ports]]\nname = \"{name}\"\nstart = [{x}e-3, 0.01, 0.01]\nend = [{x}e-3, 0.01, 0.011]\n{extra}")
        };
        let two = format!(
            "{base}[frequencies]\nstart = 1e8\nstop = 1e9\npoints = 3\n[drive]\nports = \"each\"\n{}{}",
            port("a", 5, "excite = false\n"),
            port("b", 10, "excite = true\n")
        );
        let s = ok(&two);
        assert!(s.drive_each);
        assert!(s.ports.iter().all(|p| p.waveform.is_some()));
        assert_eq!(s.drive_order(), [1, 0]);
        let d = s.with_driven_port(0);
        assert_eq!(d.ports.iter().map(|p| p.excite).collect::<Vec<_>>(), [true, false]);
        assert!(!ok(&two.replace("ports = \"each\"", "ports = \"excited\"")).drive_each);
        let msg = |text: &str| parse(text, Path::new("t.toml")).unwrap_err().to_string();
        let e = msg(&two.replace("ports = \"each\"", "ports = \"all\""));
        assert!(e.contains("unknown drive \"all\"") && e.contains("t.toml:"), "{e}");
        let e = msg(&format!(
            "{two}[[sources]]\nname = \"s\"\ntype = \"current\"\ncomponent = \"Ez\"\nposition = [0.002, 0.002, 0.002]\n\
             waveform = {{ type = \"gaussian\", frequency = 1e9 }}\n"
        ));
        assert!(e.contains("the S-matrix needs the ports as the only excitation"), "{e}");
        let e = msg(&format!("{base}[drive]\nports = \"each\"\n"));
        assert!(e.contains("no [[ports]]"), "{e}");
        let no_freq = format!(
            "{base}[drive]\nports = \"each\"\n{}{}",
            port("a", 5, "[ports.waveform]\ntype = \"gaussian\"\nfrequency = 1e9\n"),
            port("b", 10, "excite = false\n")
        );
        let e = msg(&no_freq);
        assert!(e.contains("drives every port: this one needs a waveform"), "{e}");
        // The front end's switch on a scene without the key: the same rules.
        let mut plain = ok(&no_freq.replace("[drive]\nports = \"each\"\n", ""));
        assert!(plain.set_drive_each().unwrap_err().contains("port b has no waveform"));
        let mut fine = ok(&two.replace("[drive]\nports = \"each\"\n", ""));
        assert!(!fine.drive_each && fine.ports[0].waveform.is_none());
        fine.set_drive_each().unwrap();
        assert!(fine.drive_each && fine.ports[0].waveform.is_some());
    }

    #[test]
    fn full_scene_resolves_every_value() {
        let s = ok(FULL);
        assert_eq!(s.path, Path::new("test.toml"));
        assert_eq!(s.text, FULL);
        assert_eq!(s.domain.cell_size, [1e-3, 2e-3, 1e-3]);
        assert_eq!(s.domain.cells, [20, 15, 15]);
        assert_eq!(
            s.time,
            Time {
                end: TimeEnd::Duration(1e-9),
                courant: 0.9,
                decay_db: None,
            }
        );

        let cpml = CpmlParams {
            cells: 4,
            order: 4.0,
            sigma_factor: 1.0,
            kappa_max: 2.5,
            alpha_max: 0.05, // the default
        };
        use Boundary::*;
        assert_eq!(s.boundaries.faces, [Periodic, Periodic, Pec, Pec, Pec, Cpml(cpml)]);

        // Built-ins first, then user materials in file order (not alphabetical).
        let names: Vec<&str> = s.materials.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["vacuum", "pec", "zeta", "alpha"]);
        assert_eq!(s.materials[0], Material::vacuum());
        assert_eq!(s.materials[1], Material::pec());
        assert_eq!(
            s.materials[2].kind,
            MaterialKind::Dielectric {
                eps_r: 4.0,
                mu_r: 1.0,
                sigma: 0.01
            }
        );
        assert_eq!(
            s.materials[3].kind,
            MaterialKind::Dielectric {
                eps_r: 1.0,
                mu_r: 2.0,
                sigma: 0.0
            }
        );

        assert_eq!(
            s.objects,
            vec![
                Object {
                    material: 2,
                    shape: Shape::Box {
                        min: [0.0; 3],
                        max: [0.01; 3]
                    },
                    subpixel: false,
                },
                Object {
                    material: 1,
                    shape: Shape::Sphere {
                        center: [0.01, 0.015, 0.0075],
                        radius: 0.003
                    },
                    subpixel: false,
                },
                Object {
                    material: 3,
                    shape: Shape::Cylinder {
                        a: [0.005, 0.005, 0.0],
                        b: [0.005, 0.005, 0.015],
                        radius: 0.002
                    },
                    subpixel: true,
                },
            ]
        );

        let src = &s.sources;
        assert_eq!(src.len(), 7);
        let names: Vec<&str> = src.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            ["source1", "b", "source3", "source4", "source5", "source6", "source7"]
        );
        assert_eq!(src[0].kind, SourceKind::Current);
        assert_eq!(src[0].component, Component::Ez);
        assert_eq!(src[0].position, [0.01, 0.015, 0.0075]);
        // gaussian from a frequency: exactly gprMax's.
        assert_eq!(src[0].waveform, Waveform::gaussian_from_frequency(1.0, 2e9));
        assert_relative_eq!(
            tau_of(&src[0].waveform),
            1.0 / (PI * 2f64.sqrt() * 2e9),
            max_relative = 1e-15
        );
        assert_relative_eq!(src[0].waveform.delay, 0.5e-9, max_relative = 1e-15);

        assert_eq!(src[1].kind, SourceKind::Hard);
        assert_eq!(src[1].component, Component::Hx);
        assert_eq!(
            src[1].waveform,
            Waveform {
                shape: WaveShape::GaussianDerivative { tau: 1e-10 },
                amplitude: -2.0,
                delay: 4.5e-10
            }
        );

        assert_eq!(src[2].component, Component::Hy);
        assert_eq!(src[2].position, [0.02, 0.03, 0.015]);
        assert_eq!(src[2].waveform.shape, WaveShape::Ricker { frequency: 1e9 });
        assert_relative_eq!(src[2].waveform.delay, 2f64.sqrt() / 1e9, max_relative = 1e-15);

        // Default bandwidth = carrier: tau = 2/(pi·4e9).
        let tau = 2.0 / (PI * 4e9);
        assert_eq!(
            src[3].waveform.shape,
            WaveShape::ModulatedGaussian { frequency: 4e9, tau }
        );
        assert_relative_eq!(src[3].waveform.delay, 4.5 * tau, max_relative = 1e-15);
        assert_eq!(
            src[4].waveform.shape,
            WaveShape::ModulatedGaussian {
                frequency: 4e9,
                tau: 3e-10
            }
        );
        assert_eq!(src[4].waveform.delay, 0.0);

        assert_eq!(
            src[5].waveform,
            Waveform {
                shape: WaveShape::Sine {
                    frequency: 5e8,
                    ramp: 2.0 / 5e8
                },
                amplitude: 3.0,
                delay: 0.0
            }
        );
        // gaussian_derivative from a frequency: gprMax's tau, delay overridden.
        assert_relative_eq!(
            tau_of(&src[6].waveform),
            1.0 / (PI * 2f64.sqrt() * 1e9),
            max_relative = 1e-15
        );
        assert!(matches!(src[6].waveform.shape, WaveShape::GaussianDerivative { .. }));
        assert_eq!(src[6].waveform.delay, 2e-9);

        assert_eq!(
            s.probes,
            vec![
                Probe {
                    name: "probe1".into(),
                    position: [0.01; 3],
                    components: Component::ALL.to_vec(),
                    every: 1
                },
                Probe {
                    name: "rx".into(),
                    position: [0.012, 0.01, 0.01],
                    components: vec![Component::Ez, Component::Hx],
                    every: 5
                },
            ]
        );
        assert_eq!(
            s.snapshots,
            vec![
                Snapshot {
                    name: "snapshot1".into(),
                    region: Region::All,
                    components: vec![Component::Ex, Component::Ey, Component::Ez],
                    every: 10
                },
                Snapshot {
                    name: "mid".into(),
                    region: Region::Plane {
                        axis: 1,
                        position: 0.015
                    },
                    components: vec![Component::Hz],
                    every: 20
                },
                Snapshot {
                    name: "snapshot3".into(),
                    region: Region::Box {
                        min: [0.0; 3],
                        max: [0.01, 0.02, 0.005]
                    },
                    components: vec![Component::Ex, Component::Ey, Component::Ez],
                    every: 10
                },
            ]
        );
    }

    fn tau_of(w: &Waveform) -> f64 {
        match w.shape {
            WaveShape::Gaussian { tau } | WaveShape::GaussianDerivative { tau } => tau,
            _ => panic!("not a gaussian"),
        }
    }

    #[test]
    fn ports_lumped_and_frequencies() {
        let s = ok(r#"
[domain]
cell = 1e-3
cells = [20, 20, 20]
[boundaries]
all = "pec"
[time]
steps = 10
[frequencies]
start = 1e9
stop = 2e9
points = 11
[[ports]]
name = "feed"
start = [0.01, 0.01, 0.012]
end = [0.01, 0.01, 0.0101]
impedance = 73
[[ports]]
name = "strip"
start = [0.005, 0.004, 0.005]
end = [0.007, 0.004, 0.006]
axis = "z"
[[lumped]]
start = [0.015, 0.01, 0.01]
end = [0.015, 0.011, 0.01]
r = 100
l = 1e-9
"#);
        assert_eq!(s.ports.len(), 2);
        let p = &s.ports[0];
        assert_eq!((p.axis, p.impedance, p.excite), (2, 73.0, true));
        // No waveform: from [frequencies], a gaussian up to the band's top.
        assert!(matches!(
            p.waveform.as_ref().map(|w| &w.shape),
            Some(WaveShape::Gaussian { .. })
        ));
        assert_eq!(
            (s.ports[1].axis, s.ports[1].excite, s.ports[1].impedance),
            (2, false, 50.0)
        );
        assert_eq!(s.lumped[0].name, "lumped1");
        assert_eq!(
            (s.lumped[0].axis, s.lumped[0].r, s.lumped[0].l, s.lumped[0].c),
            (1, Some(100.0), Some(1e-9), None)
        );
        assert_eq!(s.frequency_list().len(), 11);
        assert_eq!(s.frequency_list()[10], 2e9);
        assert_eq!(s.decay_db(), Some(crate::DEFAULT_DECAY_DB));
        let t = ok("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\ndecay_db = 40\n[frequencies]\nlist = [1e9, 3e9]\n");
        assert_eq!((t.decay_db(), t.frequency_list()), (Some(40.0), vec![1e9, 3e9]));
        let u = ok("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n");
        assert_eq!(u.decay_db(), None);
    }

    #[test]
    fn minimal_scene_gets_defaults() {
        let s = ok("[domain]\ncell = 1e-3\nsize = [0.1, 0.07, 0.03]\n[time]\nsteps = 100\n");
        // 0.07/1e-3 = 70.00000000000001 in floating point: still 70 cells.
        assert_eq!(s.domain.cells, [100, 70, 30]);
        assert_eq!(s.domain.cell_size, [1e-3; 3]);
        assert_eq!(s.time.end, TimeEnd::Steps(100));
        assert_eq!(s.time.courant, 0.99);
        assert_eq!(
            s.boundaries.faces,
            std::array::from_fn(|_| Boundary::Cpml(CpmlParams::default()))
        );
        assert_eq!(s.materials, vec![Material::vacuum(), Material::pec()]);
        assert!(s.objects.is_empty() && s.sources.is_empty() && s.probes.is_empty() && s.snapshots.is_empty());
    }

    #[test]
    fn boundary_precedence() {
        let head = "[domain]\ncell = 1e-3\ncells = [30, 30, 30]\n[time]\nsteps = 1\n";
        let s = ok(&format!(
            "{head}[boundaries]\nall = \"pmc\"\ny = \"pec\"\nz_min = \"cpml\"\nx_max = \"pec\"\n[boundaries.cpml]\nalpha_max = 0.05\nsigma_factor = 0.8\n"
        ));
        let cpml = CpmlParams {
            alpha_max: 0.05,
            sigma_factor: 0.8,
            ..CpmlParams::default()
        };
        use Boundary::*;
        assert_eq!(s.boundaries.faces, [Pmc, Pec, Pec, Pec, Cpml(cpml), Pmc]);
        // Axis keys without `all`: the rest default to cpml.
        let s = ok(&format!("{head}[boundaries]\nz = \"periodic\"\n"));
        let c = Cpml(CpmlParams::default());
        assert_eq!(
            s.boundaries.faces,
            [c.clone(), c.clone(), c.clone(), c, Periodic, Periodic]
        );
    }

    /// (scene, substrings the message must contain, line, column)
    type Case = (&'static str, &'static [&'static str], usize, usize);

    // Lines 1-5; a 40-cell cube of 1 mm (0.04 m) with default CPML.
    const HEAD: &str = "[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n";

    const BAD: &[Case] = &[
        // --- syntax, top level
        ("[domain\ncell = 1e-3\n", &["invalid TOML"], 1, 8),
        ("[time]\nsteps = 10\n", &["missing section [domain]", "add a [domain] table"], 1, 1),
        // Both problems, the positioned one first: the default 10-cell CPML does not fit.
        ("[domain]\ncell = 1e-3\ncells = [4, 4, 4]\n", &["leave no interior", "missing section [time]"], 3, 9),
        ("#!\n[[sorces]]\n", &["sorces: unknown key \"sorces\"", "help: did you mean \"sources\"?"], 2, 3),
        ("[dft]\n", &["dft: not a section", "help: frequency-domain monitors are [[monitors]]"], 1, 2),
        ("checkpoint = 100\n[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n", &["checkpoint: expected a table, found integer 100"], 1, 14),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[checkpoint]\nevery_steps = 0\n", &["checkpoint.every_steps: must be >= 1 (got 0)"], 7, 15),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[checkpoint]\nevery_seconds = -5\n", &["checkpoint.every_seconds: must be > 0 (got -5)"], 7, 17),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[checkpoint]\nevery_seconds = 1e308\n", &["checkpoint.every_seconds: must be at most 1e9 s", "got 1e308"], 7, 17),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[checkpoint]\nevery = 10\n", &["checkpoint.every: unknown key \"every\""], 7, 1),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[checkpoint]\npath = \"victim.txt\"\n", &["checkpoint.path: a scene cannot say where checkpoints go", "named after the output file"], 7, 8),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[checkpoint]\nenabled = \"no\"\n", &["checkpoint.enabled: expected true or false, found string \"no\""], 7, 11),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[materials.meta]\nmu_r = 0.5\n", &["materials.meta.mu_r: eps_r·mu_r = 0.5 makes waves faster than light here, and the run unstable at Courant factor 0.99", "help: the local Courant factor courant/sqrt(eps_r·mu_r) must stay <= 1: set time.courant <= 0.707106"], 7, 8),
        ("[tfsf]\n", &["tfsf: not a section", "type = \"plane_wave\""], 1, 2),
        ("[domain]\ncell = 1e-3\nsise = [0.04, 0.04, 0.04]\n", &["domain.sise: unknown key \"sise\"", "did you mean \"size\"?"], 3, 1),
        // --- domain
        ("[domain]\ncell = 1e-3\ncells = [40, 40]\n", &["domain.cells: expected 3 integers [nx, ny, nz], found 2 element(s)"], 3, 9),
        ("[domain]\ncell = 1e-3\ncells = [0, 1, 1]\n", &["domain.cells[0]: must be >= 1 (got 0)"], 3, 10),
        ("[domain]\ncell = 1e-3\ncells = [40, 40.0, 40]\n", &["domain.cells[1]: expected an integer, found float 40.0"], 3, 14),
        ("[domain]\ncell = -1e-3\ncells = [4, 4, 4]\n", &["domain.cell: must be > 0 (got -0.001)"], 2, 8),
        ("[domain]\ncell = nan\ncells = [4, 4, 4]\n", &["domain.cell: expected a finite number"], 2, 8),
        ("[domain]\ncell = []\ncells = [4, 4, 4]\n", &["domain.cell: expected 3 numbers [x, y, z], found 0 element(s)"], 2, 8),
        ("[domain]\ncell = \"1mm\"\ncells = [4, 4, 4]\n", &["domain.cell: expected a number or an array of 3 numbers [dx, dy, dz], found string \"1mm\""], 2, 8),
        ("[domain]\ncell = 1e-3\nsize = [0.04, 0.0404, 0.04]\n", &["domain.size[1]: 0.0404 m is not a whole number of cells of 0.001 m (40.4 cells)", "help: nearest valid size: size = [0.04, 0.04, 0.04] (40 x 40 x 40 cells)"], 3, 15),
        ("[domain]\ncell = 1e-3\nsize = [0.04, 0.04, 1e-4]\n", &["domain.size[2]: 1e-4 m is smaller than one cell (0.001 m)", "size = [0.04, 0.04, 0.001] (40 x 40 x 1 cells)"], 3, 21),
        ("[domain]\ncell = 1e-3\nsize = [0.04, 0.04, 0.04]\ncells = [40, 40, 40]\n", &["domain.cells: both \"size\" and \"cells\" are given"], 4, 1),
        ("[domain]\ncell = 1e-3\n", &["domain: missing key \"size\" or \"cells\""], 1, 1),
        ("[domain]\ncell = 1e-3\ncells = [100000, 100000, 1000]\n", &["domain.cells: a grid of 100000 x 100000 x 1000 = 1e13 cells is too large", "2^40"], 3, 9),
        ("[domain]\ncell = 1e-3\ncells = [9223372036854775807, 1, 1]\n", &["is too large"], 3, 9),
        ("[domain]\ncell = 1e-300\nsize = [1e300, 1, 1]\n", &["domain.size[0]: 1e300 m in cells of 1e-300 m is far too many cells"], 3, 9),
        // --- time
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = \"ten\"\n", &["time.steps: expected an integer, found string \"ten\""], 5, 9),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 0\n", &["time.steps: must be >= 1 (got 0)"], 5, 9),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = -5\n", &["time.steps: must be >= 1 (got -5)"], 5, 9),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\ncourant = 0.5\n", &["time: missing key \"duration\" or \"steps\""], 4, 1),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\ncourant = 1.5\n", &["time.courant: Courant factor 1.5 > 1: the Yee scheme is unstable above 1"], 6, 11),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\ncourant = 0\n", &["time.courant: must be > 0 (got 0)"], 6, 11),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nduration = 5\n", &["time.duration: 5 s would take 2.62250388375e12 time steps of 1.90657486953e-12 s", "help: durations are in seconds"], 5, 12),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nduration = 1e-13\n", &["time.duration: 1e-13 s is shorter than one time step (dt = 1.90657486953e-12 s)"], 5, 12),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nduration = 1e-9\nsteps = 10\n", &["time.steps: both \"duration\" and \"steps\" are given"], 6, 1),
        // --- boundaries
        ("[domain]\ncell = 1e-3\ncells = [15, 40, 40]\n[time]\nsteps = 10\n", &["domain.cells: CPML layers (20 cells in all) leave no interior along x, which has 15 cells"], 3, 9),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[boundaries]\nall = \"pml\"\n", &["boundaries.all: unknown boundary \"pml\"", "help: absorbing boundaries are \"cpml\""], 7, 7),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[boundaries]\nx_min = \"pecc\"\n", &["unknown boundary \"pecc\"", "did you mean \"pec\"?"], 7, 9),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[boundaries]\nall = \"pec\"\nx_min = \"periodic\"\n", &["boundaries.x_min: periodic boundary on x_min needs x_max periodic too", "x = \"periodic\""], 8, 1),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[boundaries]\nz_max = \"pec\"\nz = \"periodic\"\n", &["boundaries.z_max: face z_max is set twice, by \"z\" and by \"z_max\""], 7, 1),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[boundaries]\nxmin = \"pec\"\n", &["boundaries.xmin: unknown key \"xmin\"", "did you mean \"x_min\"?"], 7, 1),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[boundaries.cpml]\ncells = 30\n", &["boundaries.cpml.cells: CPML layers (60 cells in all) leave no interior along x"], 7, 9),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[boundaries.cpml]\ncells = 9223372036854775807\n", &["boundaries.cpml.cells: CPML layers (18446744073709551614 cells in all)"], 7, 9),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[boundaries.cpml]\nkappa_max = 0.5\n", &["boundaries.cpml.kappa_max: must be from 1 to 1000 (got 0.5)"], 7, 13),
        // --- materials
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[materials.foo]\neps_r = 0.5\n", &["materials.foo.eps_r: eps_r = 0.5 < 1 is not a passive material", "help: non-dispersive"], 7, 9),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[materials.pec]\nsigma = 1\n", &["materials.pec: built-in material \"pec\" cannot be redefined"], 6, 12),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[materials.gold]\ndrude = { wp = 1 }\n", &["materials.gold.drude: \"drude\" is a pole type, not a material key", "poles = [{ type = \"drude\""], 7, 1),
        // --- dispersive poles (docs/materials.md)
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[materials.m]\npoles = [{ type = \"debye\", delta_eps = 2, tau = -1e-12 }]\n", &["materials.m.poles[0].tau: tau must be > 0 s (got -1e-12)"], 7, 49),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[materials.m]\npoles = [{ type = \"drude\", plasma_frequency = 1e9, damping = -1e6 }]\n", &["materials.m.poles[0].damping: damping must be >= 0 Hz"], 7, 62),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[materials.m]\npoles = [{ type = \"lorentz\", delta_eps = 0, frequency = 1e9, damping = 1e6 }]\n", &["materials.m.poles[0].delta_eps: a lorentz pole needs delta_eps > 0 (got 0)", "gain medium"], 7, 42),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[materials.m]\npoles = [{ type = \"debey\", delta_eps = 2, tau = 1e-12 }]\n", &["materials.m.poles[0].type: unknown pole type \"debey\"", "did you mean \"debye\"?"], 7, 19),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[materials.m]\npoles = [{ type = \"debye\", delta_eps = 2, tau = 1e-11, omega = 1 }]\n", &["materials.m.poles[0].omega: unknown key \"omega\""], 7, 56),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[materials.m]\npoles = [{ type = \"debye\", delta_eps = 1, tau = 1e-9 }, { type = \"lorentz\", delta_eps = 1, frequency = 1e12, damping = 0 }]\n", &["materials.m.poles[1]: material \"m\", pole 1 (lorentz, frequency = 1e12 Hz, damping = 0 Hz) is faster than the time step resolves", "the largest time step for this pole is 3.18309"], 7, 57),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[materials.pec]\npoles = [{ type = \"drude\", plasma_frequency = 1e9, damping = 0 }]\n", &["materials.pec: built-in material \"pec\" cannot be redefined"], 6, 12),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[materials.\"my glass\"]\nsigma = -1\n", &["materials.\"my glass\".sigma: must be >= 0 (got -1)"], 7, 9),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[materials]]\neps_r = 2\n", &["materials: expected a table of materials, found an array", "[materials.NAME]"], 6, 1),
        // --- objects
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[materials.glass]\neps_r = 4\n[[objects]]\nshape = \"box\"\nmaterial = \"glas\"\nmin = [0, 0, 0]\nmax = [0.01, 0.01, 0.01]\n", &["objects[0].material: unknown material \"glas\"", "help: did you mean \"glass\"?"], 10, 12),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[objects]]\nshape = \"sphere\"\nmaterial = \"pec\"\ncenter = [1, 1, 1]\nradius = 0.01\n", &["objects[0]: the sphere (bounds [0.99, 0.99, 0.99] to [1.01, 1.01, 1.01]) lies entirely outside the domain [0, 0.04] x [0, 0.04] x [0, 0.04] m"], 6, 1),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[objects]]\nshape = \"box\"\nmaterial = \"pec\"\nmin = [0, 0.02, 0]\nmax = [0.01, 0.01, 0.01]\n", &["objects[0].max: max is below min along y (0.01 < 0.02)"], 10, 7),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[objects]]\nshape = \"cylinder\"\nmaterial = \"pec\"\na = [0, 0, 0]\nb = [0, 0, 0.01]\nradius = 0\n", &["objects[0].radius: must be > 0 (got 0)"], 11, 10),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[objects]]\nshape = \"box\"\nmaterial = \"pec\"\nradius = 1\n", &["objects[0].radius: \"radius\" does not apply to a box", "help: a box takes \"min\", \"max\""], 9, 1),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[objects]]\nshape = \"cube\"\n", &["objects[0].shape: unknown shape \"cube\"", "expected one of \"box\", \"sphere\", \"cylinder\""], 7, 9),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[objects]\nshape = \"box\"\n", &["objects: expected an array of tables, found a table", "[[objects]]"], 6, 1),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[materials.glass]\neps_r = 4\n[[objects]]\nshape = \"sphere\"\nmaterial = \"glass\"\ncenter = [0.02, 0.02, 0.02]\nradius = 0.01\nsubpixel = \"no\"\n", &["objects[0].subpixel: expected true or false"], 13, 12),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[objects]]\nshape = \"sphere\"\nmaterial = \"pec\"\ncenter = [0.02, 0.02, 0.02]\nradius = 0.01\nsubpixel = true\n", &["objects[0].subpixel: subpixel averaging applies to non-dispersive dielectrics; \"pec\" is a perfect conductor", "keeps the staircase"], 11, 12),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[objects]]\nshape = \"wire\"\nmaterial = \"pec\"\npoints = [[0.01, 0.01, 0.01], [0.01, 0.01, 0.02]]\nsubpixel = false\n", &["objects[0].subpixel: \"subpixel\" does not apply to a wire", "thin perfect conductor"], 10, 1),
        // --- sources
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"current\"\ncomponent = \"Ez\"\nposition = [0.05, 0.01, 0.01]\n", &["sources[0].position: position [0.05, 0.01, 0.01] m is outside the domain", "help: x must be between 0 and 0.04 m"], 9, 12),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"current\"\ncomponent = \"Ez\"\nposition = [0, 0, 0]\nwaveform = { type = \"ricker\", frequency = 1e9 }\n[[sources]]\ntype = \"current\"\ncomponent = \"Eq\"\n", &["sources[1].component: unknown field component \"Eq\"\n  help: did you mean \"Ex\"?"], 13, 13),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"tfsf\"\n", &["sources[0].type: unknown source type \"tfsf\"", "type = \"plane_wave\""], 7, 8),
        // --- plane waves (TF/SF): angles, the box against the domain, the CPML and objects
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"plane_wave\"\ntheta = 200\nbox = { min = [0.015, 0.015, 0.015], max = [0.025, 0.025, 0.025] }\nwaveform = { type = \"gaussian\", frequency = 1e9 }\n", &["sources[0].theta: must be from 0 to 180 degrees (got 200 degrees)"], 8, 9),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"plane_wave\"\nphi = -10\nbox = { min = [0.015, 0.015, 0.015], max = [0.025, 0.025, 0.025] }\nwaveform = { type = \"gaussian\", frequency = 1e9 }\n", &["sources[0].phi: must be from 0 to 360 degrees (got -10 degrees)"], 8, 7),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"plane_wave\"\npolarization = 400\nbox = { min = [0.015, 0.015, 0.015], max = [0.025, 0.025, 0.025] }\nwaveform = { type = \"gaussian\", frequency = 1e9 }\n", &["sources[0].polarization: must be from 0 to 360 degrees"], 8, 16),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"plane_wave\"\nbox = { min = [-0.01, 0.015, 0.015], max = [0.025, 0.025, 0.025] }\nwaveform = { type = \"gaussian\", frequency = 1e9 }\n", &["sources[0].box.min: [-0.01, 0.015, 0.015] m is outside the domain", "must lie inside the domain"], 8, 15),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"plane_wave\"\nbox = { min = [0.005, 0.015, 0.015], max = [0.025, 0.025, 0.025] }\nwaveform = { type = \"gaussian\", frequency = 1e9 }\n", &["sources[0].box.min: the total-field box reaches inside or within 2 cells of the CPML of the x- face (10 cells)", "keep x between 0.012 and 0.028 m"], 8, 15),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"plane_wave\"\nbox = { min = [0.015, 0.015, 0.015], max = [0.025, 0.025, 0.029] }\nwaveform = { type = \"gaussian\", frequency = 1e9 }\n", &["the total-field box reaches inside or within 2 cells of the CPML of the z+ face"], 8, 44),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"plane_wave\"\nbox = { min = [0.015, 0.015, 0.015], max = [0.0152, 0.025, 0.025] }\nwaveform = { type = \"gaussian\", frequency = 1e9 }\n", &["sources[0].box.max: the total-field box has zero size along x once its faces snap to the grid"], 8, 44),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[objects]]\nshape = \"box\"\nmaterial = \"pec\"\nmin = [0.02, 0.02, 0.02]\nmax = [0.03, 0.03, 0.03]\n[[sources]]\ntype = \"plane_wave\"\nbox = { min = [0.015, 0.015, 0.015], max = [0.025, 0.025, 0.025] }\nwaveform = { type = \"gaussian\", frequency = 1e9 }\n", &["sources[0].box: a face of the total-field box", "cuts objects[0] (a box of \"pec\"", "one cell inside the box or one cell outside it"], 13, 7),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"plane_wave\"\ncomponent = \"Ez\"\nbox = { min = [0.015, 0.015, 0.015], max = [0.025, 0.025, 0.025] }\nwaveform = { type = \"gaussian\", frequency = 1e9 }\n", &["sources[0].component: \"component\" does not apply to a plane wave"], 8, 1),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"plane_wave\"\nwaveform = { type = \"gaussian\", frequency = 1e9 }\n", &["sources[0]: missing key \"box\""], 6, 1),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"current\"\ncomponent = \"Ez\"\nposition = [0, 0, 0]\n", &["sources[0]: missing key \"waveform\""], 6, 1),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"current\"\ncomponent = \"Ez\"\nposition = [0, 0, 0]\nwaveform = { type = \"gaussian\", frequency = 1e9, tau = 1e-10 }\n", &["sources[0].waveform.tau: both \"frequency\" and \"tau\" are given"], 10, 50),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"current\"\ncomponent = \"Ez\"\nposition = [0, 0, 0]\n[sources.waveform]\ntype = \"ricker\"\ntau = 1e-10\n", &["sources[0].waveform.tau: \"tau\" does not apply to waveform type \"ricker\"", "used by \"gaussian\", \"gaussian_derivative\", \"modulated_gaussian\""], 12, 1),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"current\"\ncomponent = \"Ez\"\nposition = [0, 0, 0]\n[sources.waveform]\ntype = \"ricker\"\n", &["sources[0].waveform: missing key \"frequency\""], 10, 1),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"current\"\ncomponent = \"Ez\"\nposition = [0, 0, 0]\nwaveform = { type = \"gausian\", frequency = 1e9 }\n", &["sources[0].waveform.type: unknown waveform type \"gausian\"", "did you mean \"gaussian\"?"], 10, 21),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"current\"\ncomponent = \"Ez\"\nposition = [0, 0, 0]\nwaveform = { type = \"sine\", frequency = 1e9, ramp = -1 }\n", &["sources[0].waveform.ramp: must be from 1e-21 to 1000 s (got -1 s)"], 10, 53),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\nname = \"a\"\ntype = \"current\"\ncomponent = \"Ez\"\nposition = [0, 0, 0]\nwaveform = { type = \"ricker\", frequency = 1e9 }\n[[sources]]\nname = \"a\"\n", &["sources[1].name: duplicate name \"a\" (also used by sources[0])"], 13, 8),
        // --- probes and snapshots
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"current\"\ncomponent = \"Ez\"\nposition = [0, 0, 0]\nwaveform = { type = \"ricker\", frequency = 5e-324 }\n", &["sources[0].waveform.frequency: must be from 0.001 to 1e21 Hz (got 5e-324 Hz)"], 10, 43),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[probes]]\nname = \"a/b\"\n", &["probes[0].name: invalid name \"a/b\"", "no '/'"], 7, 8),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[probes]]\nposition = [-0.001, 0, 0]\n", &["probes[0].position: position [-0.001, 0, 0] m is outside the domain"], 7, 12),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[probes]]\nposition = [0, 0, 0]\nevery = 0\n", &["probes[0].every: must be >= 1 (got 0)"], 8, 9),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[probes]]\nposition = [0, 0, 0]\nevery = 2.5\n", &["probes[0].every: expected an integer, found float 2.5"], 8, 9),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[probes]]\nposition = [0, 0, 0]\ncomponents = []\n", &["probes[0].components: the list of components is empty"], 8, 14),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[probes]]\nposition = [0, 0, 0]\ncomponents = [\"Ez\", \"ez\"]\n", &["probes[0].components[1]: component Ez is listed twice"], 8, 21),
        ("probes = [{ name = \"ü€\", position = [0, 0, 0], every = 0 }]\n[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n", &["probes[0].every: must be >= 1 (got 0)"], 1, 56),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[probes]]\nname = \"p\"\nposition = [0, 0, 0]\n[[snapshots]]\nname = \"p\"\n", &["snapshots[0].name: duplicate name \"p\" (also used by probes[0])"], 10, 8),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[snapshots]]\nplane = { axis = \"z\", position = 0.01 }\nbox = { min = [0, 0, 0], max = [0.01, 0.01, 0.01] }\n", &["snapshots[0].box: both \"plane\" and \"box\" are given"], 8, 1),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[snapshots]]\nplane = { axis = \"w\", position = 0.01 }\n", &["snapshots[0].plane.axis: unknown axis \"w\"", "expected one of \"x\", \"y\", \"z\""], 7, 18),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[snapshots]]\nplane = { axis = \"z\", position = 0.5 }\n", &["snapshots[0].plane.position: plane z = 0.5 m is outside the domain (0 to 0.04 m)"], 7, 34),
        // --- ports, lumped elements, frequencies
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.01]\n[ports.waveform]\ntype = \"ricker\"\nfrequency = 1e9\n", &["ports[0].end: zero-length port"], 8, 7),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.0104]\n[ports.waveform]\ntype = \"ricker\"\nfrequency = 1e9\n", &["ports[0].end: start and end snap to the same grid node", "move end at least one cell"], 8, 7),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[ports]]\nstart = [0.05, 0.01, 0.01]\nend = [0.01, 0.01, 0.011]\n[ports.waveform]\ntype = \"ricker\"\nfrequency = 1e9\n", &["ports[0].start: position [0.05, 0.01, 0.01] m is outside the domain"], 7, 9),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.011, 0.01, 0.011]\n[ports.waveform]\ntype = \"ricker\"\nfrequency = 1e9\n", &["ports[0].end: start and end differ along x and z", "give `axis`"], 8, 7),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.012]\n[ports.waveform]\ntype = \"ricker\"\nfrequency = 1e9\n[[ports]]\nstart = [0.01, 0.01, 0.011]\nend = [0.01, 0.01, 0.013]\n", &["ports[1]: `port2` shares cell edges with `port1`"], 12, 1),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.011]\nimpedence = 50\n", &["ports[0].impedence: unknown key \"impedence\"", "did you mean \"impedance\"?"], 9, 1),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.011]\n", &["ports[0]: a driven port needs a waveform", "[frequencies]"], 6, 1),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[frequencies]\nstart = 1e9\nstop = 2e9\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.011]\nreference_plane = 12\n", &["ports[0].reference_plane: reference_plane = 12 m is more than 100 domain diagonals", "in metres"], 12, 19),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[frequencies]\nstart = 1e9\nstop = 2e9\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.011]\neps_eff = 3\n", &["ports[0].eps_eff: eps_eff is the feed line's effective permittivity for reference_plane, which is not given"], 12, 11),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[frequencies]\nstart = 1e9\nstop = 2e9\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.011]\nreference_plane = 0.01\neps_eff = 0.5\n", &["ports[0].eps_eff"], 13, 11),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[frequencies]\nstart = 1e9\nstop = 2e9\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.011]\nline = \"+z\"\n", &["ports[0].line: the line runs along the port's own axis (z)"], 12, 8),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[frequencies]\nstart = 1e9\nstop = 2e9\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.011]\nline = \"sideways\"\n", &["ports[0].line"], 12, 8),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[frequencies]\nstart = 1e9\nstop = 2e9\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.011]\nmeasure = 0.01\n", &["ports[0].measure: measure is the distance to a line port's measurement planes, and this port has no line"], 12, 11),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[frequencies]\nstart = 1e9\nstop = 2e9\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.011]\nline = \"+x\"\nmeasure = 1e-4\n", &["ports[0].measure: measure = 1e-4 m: the measurement planes lie between 2 cells (0.002 m)"], 13, 11),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[frequencies]\nstart = 1e9\nstop = 2e9\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.011]\nline = \"+x\"\nreference_plane = 0.01\neps_eff = 3\n", &["ports[0].eps_eff: a line port measures its line's propagation constant: eps_eff does not apply"], 14, 11),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[frequencies]\nstart = 1e9\nstop = 2e9\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.011]\nimpedance = \"line\"\n", &["ports[0].impedance", "\"line\" needs a line port"], 12, 13),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[frequencies]\nstart = 1e9\nstop = 2e9\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.012, 0.01, 0.011]\naxis = \"z\"\nline = \"+x\"\n", &["ports[0].line: the port's start and end snap to different x planes"], 13, 8),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[frequencies]\nstart = 1e9\nstop = 2e9\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.011]\nmode = \"TE10\"\n", &["ports[0].mode: mode is a waveguide port's, and this port has no line"], 12, 8),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[frequencies]\nstart = 1e9\nstop = 2e9\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.011]\nline = \"+x\"\nmode = \"TE20\"\n", &["ports[0].mode"], 13, 8),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[frequencies]\nstart = 1e9\nstop = 2e9\n[[ports]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.011]\nline = \"+x\"\nmode = \"TE10\"\nimpedance = 50\n", &["ports[0].impedance: a waveguide port's S is referred to its mode's wave impedance"], 14, 13),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[lumped]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.011]\nc = 1e-12\ntopology = \"series\"\n", &["lumped[0].topology: series RLC elements are not implemented yet"], 10, 12),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[lumped]]\nstart = [0.01, 0.01, 0.01]\nend = [0.01, 0.01, 0.011]\n", &["lumped[0]: a lumped element needs at least one of r, l, c"], 6, 1),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[frequencies]\nstart = 2e9\nstop = 1e9\n", &["frequencies.stop: stop (1e9 Hz) is below start (2e9 Hz)"], 8, 8),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\ndecay_db = -3\n", &["time.decay_db: must be >= 0 (got -3)"], 6, 12),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[sources]]\ntype = \"port\"\n", &["sources[0].type: a lumped port is not a source type", "[[ports]]"], 7, 8),
        ("[domain]\ncell = 1e-3\ncells = [40, 40, 40]\n[time]\nsteps = 10\n[[snapshots]]\ncompnents = [\"Ez\"]\n", &["snapshots[0].compnents: unknown key \"compnents\"", "did you mean \"components\"?"], 7, 1),
    ];

    /// A plane wave parses with its angles, box and waveform; objects may lie inside the
    /// box (a cell from its faces) or outside it; it sets the default band.
    #[test]
    fn plane_waves_parse_with_objects_inside_or_outside_the_box() {
        let text = format!(
            "{HEAD}[[objects]]\nshape = \"sphere\"\nmaterial = \"pec\"\ncenter = [0.02, 0.02, 0.02]\nradius = 0.003\n\
             [[objects]]\nshape = \"box\"\nmaterial = \"pec\"\nmin = [0.012, 0.012, 0.012]\nmax = [0.013, 0.013, 0.013]\n\
             [[sources]]\nname = \"pw\"\ntype = \"plane_wave\"\ntheta = 30\nphi = 20\npolarization = 90\n\
             box = {{ min = [0.015, 0.015, 0.015], max = [0.025, 0.025, 0.025] }}\n\
             waveform = {{ type = \"gaussian\", frequency = 10e9, amplitude = 2.0 }}\n"
        );
        let s = parse(&text, Path::new("pw.toml")).unwrap();
        assert!(s.sources.is_empty());
        let w = &s.plane_waves[0];
        assert_eq!(
            (w.name.as_str(), w.theta, w.phi, w.polarization),
            ("pw", 30.0, 20.0, 90.0)
        );
        assert_eq!((w.min, w.max), ([0.015; 3], [0.025; 3]));
        assert_eq!(w.waveform.amplitude, 2.0);
        assert!(!s.frequency_list().is_empty());
        // Angles default to 0 (along +z, E along x).
        let text = format!(
            "{HEAD}[[sources]]\ntype = \"plane_wave\"\nbox = {{ min = [0.015, 0.015, 0.015], max = [0.025, 0.025, 0.025] }}\n\
             waveform = {{ type = \"ricker\", frequency = 10e9 }}\n"
        );
        let w = &parse(&text, Path::new("pw.toml")).unwrap().plane_waves[0];
        assert_eq!((w.theta, w.phi, w.polarization), (0.0, 0.0, 0.0));
    }

    #[test]
    fn malformed_scenes_are_rejected_with_positions() {
        assert!(BAD.len() >= 25);
        let mut failures = Vec::new();
        for (i, (text, needles, line, column)) in BAD.iter().enumerate() {
            let err = match parse(text, Path::new("bad.toml")) {
                Ok(_) => {
                    failures.push(format!("case {i}: parsed without error:\n{text}"));
                    continue;
                }
                Err(e) => e,
            };
            let msg = err.to_string();
            if std::env::var_os("SHOW_SCENE_ERRORS").is_some() {
                eprintln!("{msg}\n");
            }
            let prefix = format!("bad.toml:{line}:{column}: ");
            if !msg.starts_with(&prefix) || err.position() != Some((*line, *column)) {
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

    #[test]
    fn every_problem_is_reported_in_one_pass_sorted_by_position() {
        let text = format!(
            "{HEAD}[[probes]]\nname = \"p\"\nposition = [0.5, 0.01, 0.01]\ncomponents = [\"Ez\"]\n\
             [[sources]]\ntype = \"current\"\ncomponent = \"Eq\"\nposition = [0.01, 0.01, 0.01]\n\
             waveform = {{ type = \"gaussian\", frequency = 1e9 }}\n[materials.m]\neps_r = 0.5\n"
        );
        let err = parse(&text, Path::new("bad.toml")).unwrap_err();
        let SceneError::Several(all) = &err else {
            panic!("expected several errors, got {err}");
        };
        let keys: Vec<String> = all
            .iter()
            .map(|e| match e {
                SceneError::Invalid { key, .. } => key.clone(),
                other => other.to_string(),
            })
            .collect();
        assert_eq!(
            keys,
            ["probes[0].position", "sources[0].component", "materials.m.eps_r"],
            "{err}"
        );
        let lines: Vec<usize> = all.iter().filter_map(|e| e.position()).map(|p| p.0).collect();
        assert!(lines.windows(2).all(|w| w[0] < w[1]), "{lines:?}");
        assert_eq!(err.position(), all[0].position());
        assert!(err.to_string().contains("(3 problems)"), "{err}");
    }

    #[test]
    fn checkpoint_section() {
        let s = ok(&format!(
            "{HEAD}[checkpoint]\nevery_steps = 5\nevery_seconds = 30\nenabled = false\n"
        ));
        assert_eq!(
            s.checkpoint(),
            CheckpointSection {
                every_steps: Some(5),
                every_seconds: Some(30.0),
                enabled: false,
            }
        );
        assert_eq!(ok(HEAD).checkpoint(), CheckpointSection::default());
        assert!(ok(HEAD).checkpoint().enabled);
        // A slow material is fine at any Courant factor; a fast one only below its limit.
        ok(&format!("{HEAD}[materials.m]\nmu_r = 0.5\neps_r = 2\n"));
        ok(&(HEAD.replace("steps = 10", "steps = 10\ncourant = 0.7") + "[materials.m]\nmu_r = 0.5\n"));
    }

    #[test]
    fn display_is_compiler_style() {
        let err = parse(
            &format!("{HEAD}[[sources]]\ntype = \"current\"\ncomponent = \"Eq\"\n"),
            Path::new("scenes/foo.toml"),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "scenes/foo.toml:8:13: sources[0].component: unknown field component \"Eq\"\n  help: did you mean \"Ex\"?"
        );
    }

    #[test]
    fn line_col_counts_characters() {
        let text = "ab\nü€x\n\nz";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 3), (2, 1));
        assert_eq!(line_col(text, 8), (2, 3)); // 'x' after 2 multi-byte chars
        assert_eq!(line_col(text, 4), (2, 1)); // inside 'ü': clamps to its start
        assert_eq!(line_col(text, 11), (4, 1));
        assert_eq!(line_col(text, 999), (4, 2));
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest("Eq", &COMPONENT_NAMES), Some("Ex"));
        assert_eq!(suggest("EZ", &COMPONENT_NAMES), Some("Ez"));
        assert_eq!(
            suggest("gaussian_deriv", &["gaussian", "gaussian_derivative"]),
            Some("gaussian_derivative")
        );
        assert_eq!(suggest("w", &AXES), None);
        assert_eq!(suggest("frequncy", &["frequency", "tau"]), Some("frequency"));
        assert_eq!(suggest("zzzz", &["frequency", "tau"]), None);
    }

    /// Every scene shipped in `scenes/` parses, discretises, has live sources and
    /// stays small enough to run in about a minute on a laptop.
    #[test]
    fn example_scenes_are_valid() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
        let mut count = 0;
        for entry in std::fs::read_dir(&dir).expect("scenes/ directory") {
            let path = entry.expect("directory entry").path();
            if path.extension().is_none_or(|e| e != "toml") {
                continue;
            }
            let scene = Scene::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
            let name = path.display();
            assert!(scene.text.starts_with('#'), "{name}: start with a comment header");
            let driven = scene.ports.iter().any(|p| p.excite);
            assert!(
                !scene.sources.is_empty() || !scene.plane_waves.is_empty() || driven,
                "{name}: no source and no driven port"
            );
            let records = [
                scene.probes.len(),
                scene.snapshots.len(),
                scene.ports.len(),
                scene.farfields.len(),
            ];
            assert!(records.iter().any(|&n| n > 0), "{name}: records nothing");
            // Discretised, timed and checked for live sources in `fdtd-core` (tests/scenes.rs).
            count += 1;
        }
        assert!(count >= 4, "expected the four example scenes in {}", dir.display());
    }

    /// The complete example in docs/scene-format.md is valid.
    #[test]
    fn documented_example_is_valid() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scene-format.md");
        let doc = std::fs::read_to_string(&path).expect("docs/scene-format.md");
        let start = doc.find("```toml\n").expect("a ```toml block") + "```toml\n".len();
        let end = start + doc[start..].find("```").expect("end of the block");
        let scene = ok(&doc[start..end]);
        assert_eq!(scene.domain.cells, [100, 100, 100]);
        assert_eq!(scene.objects.len(), 2);
    }

    /// No prefix or mangling of a valid scene may panic the parser.
    #[test]
    fn never_panics() {
        let mut texts: Vec<String> = FULL.char_indices().map(|(i, _)| FULL[..i].to_string()).collect();
        for (from, to) in [
            ("0.01", "1e308"),
            ("0.01", "-0.0"),
            ("0.01", "inf"),
            ("4", "99999999999999999999"),
            ("\"", "'"),
            ("[", "{"),
            ("= ", "= [] #"),
            ("Ez", "€\u{0}"),
        ] {
            texts.push(FULL.replace(from, to));
            texts.push(FULL.replacen(from, to, 1));
        }
        for t in &texts {
            let _ = parse(t, Path::new("x.toml"));
        }
    }
}

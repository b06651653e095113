//! `[[monitors]]` and `[[farfield]]` (a child of `parse`, with its spanned walker).
use super::{choice, components, domain_desc, list, num, within, Diag, Names, Problems, Tbl, Val, AXES, R};
use crate::monitor::{FarFieldBox, Frequencies, Monitor, MonitorKind, MonitorRegion, Polarization};
use crate::Component;
use toml::de::DeValue;

/// Most frequencies a monitor may list (each costs two state floats per sample).
const MAX_POINTS: usize = 100_000;

/// Every `[[monitors]]` and `[[farfield]]` entry; problems go to `p`.
pub(super) fn monitors_and_farfields(root: &Tbl, size: [f64; 3], p: &mut Problems) -> (Vec<Monitor>, Vec<FarFieldBox>) {
    let mut names = Names::default();
    let mut monitors = Vec::new();
    for (i, t) in p
        .keep(list(root.get("monitors"), "monitors"))
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        monitors.extend(p.keep(monitor(t, i, size, &mut names)));
    }
    let mut farfields = Vec::new();
    for (i, t) in p
        .keep(list(root.get("farfield"), "farfield"))
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        farfields.extend(p.keep(farfield(t, i, size, &mut names)));
    }
    (monitors, farfields)
}

fn monitor(t: &Tbl, i: usize, size: [f64; 3], names: &mut Names) -> R<Monitor> {
    let ty = choice(&t.req("type")?, "monitor type", &["dft", "flux"], |s| {
        matches!(s, "farfield" | "far_field" | "ntff").then(|| {
            (
                format!("{s:?} is not a monitor type"),
                Some("far fields have their own section: [[farfield]]".into()),
            )
        })
    })?;
    let mut allowed = vec!["name", "type", "frequencies", "plane", "box"];
    if ty == "dft" {
        allowed.push("components");
    }
    t.check_keys_with(&allowed, |k| {
        (k == "components").then(|| {
            (
                "\"components\" applies to type \"dft\" only".into(),
                Some("a flux monitor records the tangential E and H it needs".into()),
            )
        })
    })?;
    let name = names.take(t, "monitor", i)?;
    let frequencies = t.get("frequencies").map(|v| frequencies(&v)).transpose()?;
    t.exclusive("plane", "box")?;
    let region = if let Some(v) = t.get("plane") {
        plane(&v.table()?, size)?
    } else if let Some(v) = t.get("box") {
        let b = v.table()?;
        let (min, max) = bounds(&b, size, ty == "flux")?;
        MonitorRegion::Box { min, max }
    } else {
        return Err(Diag::new(t.span.clone(), &t.path, "missing key \"plane\" or \"box\"")
            .hint("e.g. plane = { axis = \"z\", position = 0.01 } or box = { min = [...], max = [...] }"));
    };
    let kind = match ty {
        "dft" => MonitorKind::Dft {
            components: t
                .get("components")
                .map_or(Ok(Component::ALL.to_vec()), |v| components(&v))?,
        },
        _ => MonitorKind::Flux,
    };
    Ok(Monitor {
        name,
        kind,
        frequencies,
        region,
    })
}

fn plane(p: &Tbl, size: [f64; 3]) -> R<MonitorRegion> {
    p.check_keys(&["axis", "position", "min", "max"])?;
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
    let min = p.get("min").map(|v| v.vec3()).transpose()?;
    let max = p.get("max").map(|v| v.vec3()).transpose()?;
    if let (Some(lo), Some(hi), Some(v)) = (min, max, p.get("max")) {
        if let Some(a) = (0..3).find(|&a| a != axis && lo[a] >= hi[a]) {
            return Err(v.err(format!("max is not above min along {}", AXES[a])));
        }
    }
    Ok(MonitorRegion::Plane {
        axis,
        position,
        min,
        max,
    })
}

/// A box's `min` and `max`, inside the domain (strictly, for a closed surface).
pub(super) fn bounds(b: &Tbl, size: [f64; 3], closed: bool) -> R<([f64; 3], [f64; 3])> {
    b.check_keys(&["min", "max"])?;
    let min_v = b.req("min")?;
    let min = min_v.vec3()?;
    let max_v = b.req("max")?;
    let max = max_v.vec3()?;
    // A closed surface needs a volume; a DFT box may be flat or a single point.
    if let Some(a) = (0..3).find(|&a| if closed { min[a] >= max[a] } else { min[a] > max[a] }) {
        return Err(max_v.err(format!("max is not above min along {}", AXES[a])));
    }
    for (v, p) in [(&min_v, min), (&max_v, max)] {
        if let Some(a) = (0..3).find(|&a| !within(p[a], size[a])) {
            let d = v.err(format!(
                "{} m is outside the domain {}",
                super::vec3(p),
                domain_desc(size)
            ));
            return Err(if closed {
                d.hint(format!(
                    "a closed box must lie inside the domain (and inside its CPML): {} between 0 and {} m",
                    AXES[a],
                    num(size[a])
                ))
            } else {
                d
            });
        }
    }
    Ok((min, max))
}

/// The finest far-field angle step (degrees).
const MIN_ANGLE_STEP: f64 = 0.01;
/// The most directions of a far-field grid per frequency (0.1° × 0.1° is 6.5 million).
const MAX_DIRECTIONS: f64 = 1e7;

fn farfield(t: &Tbl, i: usize, size: [f64; 3], names: &mut Names) -> R<FarFieldBox> {
    t.check_keys(&[
        "name",
        "frequencies",
        "box",
        "theta_step",
        "phi_step",
        "polarization",
        "rcs",
    ])?;
    let name = names.take(t, "farfield", i)?;
    let frequencies = t.get("frequencies").map(|v| frequencies(&v)).transpose()?;
    let region = t.get("box").map(|v| bounds(&v.table()?, size, true)).transpose()?;
    let step = |key: &str, default: f64, max: f64| -> R<f64> {
        match t.get(key) {
            None => Ok(default),
            Some(v) => {
                let s = v.positive()?;
                if s > max {
                    return Err(v.err(format!("{key} = {} degrees is larger than {max}", num(s))));
                }
                if s < MIN_ANGLE_STEP {
                    return Err(v.err(format!(
                        "{key} = {} degrees is finer than {MIN_ANGLE_STEP} degrees (the pattern is computed and \
                         stored at every direction of the grid)",
                        num(s)
                    )));
                }
                Ok(s)
            }
        }
    };
    let theta_step = step("theta_step", 2.0, 180.0)?;
    let phi_step = step("phi_step", 5.0, 360.0)?;
    let directions = (180.0 / theta_step + 1.0).floor() * (360.0 / phi_step + 1.0).floor();
    // (The defaults give 91 × 73 directions: a key is given when this is exceeded.)
    let at = t.get("phi_step").or_else(|| t.get("theta_step"));
    if let Some(v) = at.filter(|_| directions > MAX_DIRECTIONS) {
        let msg = format!(
            "theta_step = {} and phi_step = {} degrees give {} directions per frequency, more than {} (the \
             pattern is computed, kept in memory and stored at each); use steps of at least 0.1 degrees",
            num(theta_step),
            num(phi_step),
            directions as u64,
            MAX_DIRECTIONS as u64
        );
        return Err(v.err(msg));
    }
    Ok(FarFieldBox {
        name,
        frequencies,
        region,
        theta_step,
        phi_step,
        polarization: t
            .get("polarization")
            .map(|v| polarization(&v))
            .transpose()?
            .unwrap_or_default(),
        rcs: t.get("rcs").map(|v| super::scattering::rcs(&v)).transpose()?,
    })
}

/// `polarization = "theta" | "phi" | "x" | "y"` or an angle in degrees (Ludwig 3).
fn polarization(v: &Val) -> R<Polarization> {
    if let DeValue::Integer(_) | DeValue::Float(_) = v.value() {
        let a = v.num()?;
        if a.abs() > 360.0 {
            return Err(v.err(format!("polarization angle {} degrees is outside -360 .. 360", num(a))));
        }
        return Ok(Polarization::Ludwig3 { angle: a });
    }
    let s = choice(v, "polarization", &["theta", "phi", "x", "y"], |_| None)?;
    Ok(match s {
        "theta" => Polarization::Theta,
        "phi" => Polarization::Phi,
        "x" => Polarization::Ludwig3 { angle: 0.0 },
        _ => Polarization::Ludwig3 { angle: 90.0 },
    })
}

/// `frequencies = [f1, f2, ...]` or `{ start, stop, points }` (Hz).
pub(super) fn frequencies(v: &Val) -> R<Frequencies> {
    let f = match v.value() {
        DeValue::Array(_) => {
            let items = v.items()?;
            if items.is_empty() {
                return Err(v.err("the list of frequencies is empty"));
            }
            if items.len() > MAX_POINTS {
                return Err(v.err(format!("{} frequencies; at most {MAX_POINTS}", items.len())));
            }
            Frequencies::List(items.iter().map(Val::positive).collect::<R<Vec<f64>>>()?)
        }
        DeValue::Table(_) => {
            let t = v.table()?;
            t.check_keys(&["start", "stop", "points"])?;
            let start = t.req("start")?.positive()?;
            let stop_v = t.req("stop")?;
            let stop = stop_v.positive()?;
            if stop < start {
                return Err(stop_v.err(format!("stop {} Hz is below start {} Hz", num(stop), num(start))));
            }
            let points = match t.get("points") {
                None => 201,
                Some(p) => {
                    let n = p.uint(1)?;
                    if n > MAX_POINTS {
                        return Err(p.err(format!("{n} points; at most {MAX_POINTS}")));
                    }
                    n
                }
            };
            Frequencies::Range { start, stop, points }
        }
        _ => {
            return Err(v
                .expected("a list of frequencies (Hz) or a table { start, stop, points }")
                .hint("e.g. frequencies = [1e9, 2e9] or frequencies = { start = 1e9, stop = 3e9, points = 21 }"))
        }
    };
    Ok(f)
}

#[cfg(test)]
mod tests {
    use crate::monitor::{Frequencies, MonitorKind, MonitorRegion, Polarization};
    use crate::{Component, Scene, SceneError};

    const BASE: &str = "[domain]\ncell = 1e-3\ncells = [20, 20, 20]\n[time]\nsteps = 10\n[boundaries]\nall = \"pec\"\n";

    fn parse(extra: &str) -> Result<Scene, SceneError> {
        Scene::parse(&format!("{BASE}{extra}"), "m.toml")
    }

    /// (line, column, key, message, hint) of every problem.
    fn errors(extra: &str) -> Vec<(usize, usize, String, String, Option<String>)> {
        let e = parse(extra).expect_err("invalid");
        let all = match e {
            SceneError::Several(v) => v,
            e => vec![e],
        };
        all.into_iter()
            .map(|e| match e {
                SceneError::Invalid {
                    line,
                    column,
                    key,
                    message,
                    hint,
                    ..
                } => (line, column, key, message, hint),
                e => panic!("{e}"),
            })
            .collect()
    }

    #[test]
    fn monitors_and_farfields_parse() {
        let s = parse(
            r#"
[[monitors]]
name = "p"
type = "dft"
components = ["Ez", "Hx"]
frequencies = [1e9, 2e9]
plane = { axis = "z", position = 0.01, min = [0.002, 0.003, 0], max = [0.018, 0.017, 0] }
[[monitors]]
type = "flux"
frequencies = { start = 1e9, stop = 3e9, points = 3 }
box = { min = [0.005, 0.005, 0.005], max = [0.015, 0.015, 0.015] }
[[farfield]]
name = "ff"
theta_step = 1
"#,
        )
        .unwrap();
        assert_eq!(s.monitors.len(), 2);
        assert_eq!(s.monitors[0].name, "p");
        assert_eq!(
            s.monitors[0].kind,
            MonitorKind::Dft {
                components: vec![Component::Ez, Component::Hx]
            }
        );
        assert_eq!(
            s.monitors[0].region,
            MonitorRegion::Plane {
                axis: 2,
                position: 0.01,
                min: Some([0.002, 0.003, 0.0]),
                max: Some([0.018, 0.017, 0.0])
            }
        );
        assert_eq!(s.monitors[1].name, "monitor2");
        assert_eq!(s.monitors[1].kind, MonitorKind::Flux);
        assert_eq!(
            s.monitors[1].frequencies.as_ref().unwrap().values(),
            vec![1e9, 2e9, 3e9]
        );
        assert_eq!(
            s.monitors[1].frequencies,
            Some(Frequencies::Range {
                start: 1e9,
                stop: 3e9,
                points: 3
            })
        );
        let f = &s.farfields[0];
        assert_eq!(
            (f.name.as_str(), f.theta_step, f.phi_step, f.region),
            ("ff", 1.0, 5.0, None)
        );
    }

    #[test]
    fn monitor_errors_have_line_column_key_and_hint() {
        let e = errors(
            r#"
[[monitors]]
type = "dtf"
plane = { axis = "z", position = 0.01 }
[[monitors]]
type = "flux"
components = ["Ez"]
box = { min = [0, 0, 0], max = [0.01, 0.01, 0.01] }
[[monitors]]
type = "dft"
frequencies = { start = 2e9, stop = 1e9 }
plane = { axis = "w", position = 0.01 }
[[monitors]]
type = "dft"
[[farfield]]
box = { min = [0.005, 0.005, 0.005], max = [0.015, 0.015, 0.03] }
phi_step = 0
"#,
        );
        let keys: Vec<&str> = e.iter().map(|x| x.2.as_str()).collect();
        assert_eq!(
            keys,
            [
                "monitors[0].type",
                "monitors[1].components",
                "monitors[2].frequencies.stop",
                "monitors[3]",
                "farfield[0].box.max",
            ],
            "{e:#?}"
        );
        // The BASE has 7 lines, then an empty one.
        assert_eq!((e[0].0, e[0].1), (10, 8));
        assert_eq!(e[0].4.as_deref(), Some("did you mean \"dft\"?"));
        assert!(e[1].3.contains("applies to type \"dft\" only"), "{}", e[1].3);
        assert!(e[2].3.contains("below start"), "{}", e[2].3);
        assert!(e[3].3.contains("\"plane\" or \"box\""), "{}", e[3].3);
        assert!(e[4].3.contains("outside the domain"), "{}", e[4].3);
        assert!(e[4].4.as_deref().unwrap_or("").contains("closed box"));
    }

    #[test]
    fn frequency_lists_names_and_many_problems() {
        // Unsorted or repeated: refused at the item, with line and column.
        for list in ["[2e9, 1e9]", "[1e9, 2e9, 2e9]"] {
            let e = errors(&format!("[frequencies]\nlist = {list}\n"));
            assert!(e[0].3.contains("must be increasing, without repeats"), "{e:?}");
            assert_eq!(e[0].0, 9, "{e:?}");
            assert!(e[0].1 > 9, "{e:?}");
        }
        parse("[frequencies]\nlist = [1e9, 2e9, 3e9]\n").unwrap();
        // A name that cannot become a file name.
        let long = "n".repeat(300);
        let e = errors(&format!(
            "[[probes]]\nname = \"{long}\"\nposition = [0.01, 0.01, 0.01]\n"
        ));
        assert!(
            e[0].3
                .contains("300 characters is too long (at most 100 characters and 128 bytes)"),
            "{e:?}"
        );
        // Few characters, too many bytes (70 two-byte characters).
        let long = "é".repeat(70);
        let e = errors(&format!(
            "[[probes]]\nname = \"{long}\"\nposition = [0.01, 0.01, 0.01]\n"
        ));
        assert!(e[0].3.contains("140 bytes is too long"), "{e:?}");
        // 40 000 duplicate names: every one reported, in linear time (33 s before).
        let mut text = String::new();
        for _ in 0..40_000 {
            text.push_str("[[probes]]\nname = \"p\"\nposition = [0.01, 0.01, 0.01]\n");
        }
        let t = std::time::Instant::now();
        let e = errors(&text);
        assert_eq!(e.len(), 39_999);
        assert_eq!(e[39_998].0, 8 + 3 * 39_999 + 1, "{:?}", e[39_998]);
        assert!(t.elapsed().as_secs_f64() < 10.0, "{:?}", t.elapsed());
    }

    #[test]
    fn far_field_grids_are_bounded() {
        let e = errors("[[farfield]]\ntheta_step = 1e-6\n");
        assert_eq!(e[0].2, "farfield[0].theta_step", "{e:?}");
        assert!(e[0].3.contains("finer than 0.01 degrees"), "{e:?}");
        assert_eq!(e[0].0, 9, "{e:?}");
        let e = errors("[[farfield]]\ntheta_step = 0.05\nphi_step = 0.05\n");
        assert_eq!(e[0].2, "farfield[0].phi_step", "{e:?}");
        assert!(e[0].3.contains("25930801 directions"), "{e:?}");
        parse("[[farfield]]\ntheta_step = 0.1\nphi_step = 0.1\n").unwrap();
    }

    #[test]
    fn farfield_polarization_parses_names_and_angles() {
        let pol = |v: &str| parse(&format!("[[farfield]]\npolarization = {v}\n")).unwrap().farfields[0].polarization;
        assert_eq!(
            parse("[[farfield]]\n").unwrap().farfields[0].polarization,
            Polarization::Theta
        );
        assert_eq!(pol("\"theta\""), Polarization::Theta);
        assert_eq!(pol("\"phi\""), Polarization::Phi);
        assert_eq!(pol("\"x\""), Polarization::Ludwig3 { angle: 0.0 });
        assert_eq!(pol("\"y\""), Polarization::Ludwig3 { angle: 90.0 });
        assert_eq!(pol("45"), Polarization::Ludwig3 { angle: 45.0 });
        let e = errors("[[farfield]]\npolarization = \"thet\"\n");
        assert_eq!(e[0].2, "farfield[0].polarization", "{e:?}");
        assert_eq!(e[0].4.as_deref(), Some("did you mean \"theta\"?"));
        let e = errors("[[farfield]]\npolarization = 400\n");
        assert!(e[0].3.contains("outside -360 .. 360"), "{e:?}");
    }

    #[test]
    fn misnamed_sections_point_to_the_right_ones() {
        let e = errors("[[dft]]\nname = \"a\"\n");
        assert!(e[0].4.as_deref().unwrap_or("").contains("[[monitors]]"), "{e:?}");
        let e = errors("[[monitors]]\ntype = \"farfield\"\n");
        assert!(e[0].4.as_deref().unwrap_or("").contains("[[farfield]]"), "{e:?}");
        let e = errors(
            "[[monitors]]\ntype = \"dft\"\nbox = { min = [0, 0, 0], max = [0.01, 0.01, 0.01] }\nfrequencies = []\n",
        );
        assert!(e[0].3.contains("empty"), "{e:?}");
    }
}

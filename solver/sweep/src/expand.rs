//! Sweep → variants: combine the parameters, compute the derived values, write them into
//! the base scene's TOML and validate every variant's scene before anything runs.
use crate::keys::{self, KeyPath, SceneValue};
use crate::spec::{error_at, Combine, Located, Setting, SweepSpec};
use crate::{round_sig, SweepError, VariantError};
use fdtd_scene::Scene;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml_edit::DocumentMut;

/// One point of the sweep.
#[derive(Debug)]
pub struct Variant {
    /// 0-based position in the sweep.
    pub index: usize,
    /// `v000`, `v001`, ... (zero-padded to the sweep's size).
    pub id: String,
    /// Parameters, then derived values, in file order.
    pub values: Vec<(String, SceneValue)>,
    /// The variant's scene (the base scene's text with the values written in).
    pub text: String,
    /// The parsed scene, or why it is invalid.
    pub scene: Result<Scene, fdtd_scene::SceneError>,
}

impl Variant {
    /// `arm=0.046 half=0.023`.
    pub fn describe(&self) -> String {
        self.values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The ids of a sweep of `n` variants.
pub fn variant_id(index: usize, n: usize) -> String {
    let width = n.saturating_sub(1).to_string().len().max(3);
    format!("v{index:0width$}")
}

/// Index combinations: every element is one index per parameter.
fn combinations(spec: &SweepSpec) -> Vec<Vec<usize>> {
    let lens: Vec<usize> = spec.parameters.iter().map(|p| p.values.len()).collect();
    match spec.combine {
        Combine::Zip => (0..lens[0]).map(|i| vec![i; lens.len()]).collect(),
        Combine::Grid => {
            let mut out = vec![vec![]];
            for &n in &lens {
                out = out
                    .into_iter()
                    .flat_map(|prefix| {
                        (0..n).map(move |i| {
                            let mut p = prefix.clone();
                            p.push(i);
                            p
                        })
                    })
                    .collect();
            }
            out
        }
    }
}

/// Expand `spec` against its base scene. `scene_path(id)` is where each variant's scene
/// lives (it names the scene in messages). Fails on sweep-file problems (a key the base
/// scene lacks); an invalid variant scene is kept in [`Variant::scene`] so that all of
/// them can be reported at once ([`check`]).
pub fn expand(spec: &SweepSpec, scene_path: impl Fn(&str) -> PathBuf) -> Result<Vec<Variant>, SweepError> {
    let base_text =
        std::fs::read_to_string(&spec.base).map_err(|e| SweepError::io(&spec.base, "reading the base scene", e))?;
    Scene::parse(&base_text, &spec.base).map_err(SweepError::Base)?;
    let base: DocumentMut = base_text.parse().map_err(|e: toml_edit::TomlError| {
        SweepError::Invalid(error_at(
            spec,
            0,
            "sweep.base",
            format!("the base scene is not valid TOML: {e}"),
            None,
        ))
    })?;

    let combos = combinations(spec);
    let n = combos.len();
    let mut out = Vec::with_capacity(n);
    for (index, combo) in combos.into_iter().enumerate() {
        let id = variant_id(index, n);
        let mut values: Vec<(String, SceneValue)> = Vec::new();
        let mut vars: BTreeMap<String, f64> = BTreeMap::new();
        for (p, &i) in spec.parameters.iter().zip(&combo) {
            let v = p.values[i].clone();
            if let SceneValue::Num(x) = v {
                vars.insert(p.name.clone(), x);
            }
            values.push((p.name.clone(), v));
        }
        let describe = |values: &[(String, SceneValue)]| {
            values
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let eval_err =
            |loc: &Located<crate::expr::Expr>, values: &[(String, SceneValue)], e: crate::expr::ExprError| {
                SweepError::Invalid(error_at(
                    spec,
                    loc.span.start,
                    &loc.key,
                    format!(
                        "for variant {id} ({}): {} = {}",
                        describe(values),
                        crate::expr::shorten(loc.value.text()),
                        e.message
                    ),
                    e.hint,
                ))
            };
        for (name, d) in spec.derived.iter().map(|d| (d.key.trim_start_matches("derived."), d)) {
            let x = round_sig(d.value.eval(&vars).map_err(|e| eval_err(d, &values, e))?);
            vars.insert(name.to_string(), x);
            values.push((name.to_string(), SceneValue::Num(x)));
        }
        let mut doc = base.clone();
        let mut write = |key: &Located<KeyPath>, v: &SceneValue| -> Result<(), SweepError> {
            keys::set(&mut doc, &key.value, v).map_err(|e| {
                SweepError::Invalid(error_at(
                    spec,
                    key.span.start,
                    &key.key,
                    format!("{} (in {})", e.message, spec.base.display()),
                    e.hint,
                ))
            })
        };
        for (p, &i) in spec.parameters.iter().zip(&combo) {
            for k in &p.keys {
                write(k, &p.values[i])?;
            }
        }
        for (key, setting) in &spec.set {
            let v = match &setting.value {
                Setting::Literal(v) => v.clone(),
                Setting::Expr(e) => {
                    let loc = Located {
                        value: e.clone(),
                        span: setting.span.clone(),
                        key: setting.key.clone(),
                    };
                    SceneValue::Num(round_sig(e.eval(&vars).map_err(|er| eval_err(&loc, &values, er))?))
                }
            };
            write(key, &v)?;
        }
        anchor_files(&mut doc, &spec.base);
        let text = format!(
            "# Variant {id} of sweep {:?} ({}): {}\n# Generated by `fdtd sweep` from {}; edit the sweep file, not this one.\n{}",
            spec.name,
            spec.path.display(),
            describe(&values),
            spec.base.display(),
            doc
        );
        let path = scene_path(&id);
        let scene = Scene::parse(&text, &path);
        out.push(Variant {
            index,
            id,
            values,
            text,
            scene,
        });
    }
    Ok(out)
}

/// The `file` of every `shape = "stl"` object, relative to the base scene's directory,
/// made absolute: a variant's scene lives in the sweep directory.
fn anchor_files(doc: &mut DocumentMut, base: &Path) {
    let dir = base.parent().unwrap_or(Path::new(""));
    let Some(objects) = doc.get_mut("objects").and_then(|v| v.as_array_of_tables_mut()) else {
        return;
    };
    for t in objects.iter_mut() {
        if t.get("shape").and_then(|v| v.as_str()) != Some("stl") {
            continue;
        }
        let Some(file) = t.get("file").and_then(|v| v.as_str()) else {
            continue;
        };
        if Path::new(file).is_absolute() {
            continue;
        }
        let joined = dir.join(file);
        let abs = std::path::absolute(&joined).unwrap_or(joined);
        t["file"] = toml_edit::value(abs.to_string_lossy().into_owned());
    }
}

/// Every invalid variant at once, or `Ok`.
pub fn check(variants: &[Variant]) -> Result<(), SweepError> {
    let errors: Vec<VariantError> = variants
        .iter()
        .filter_map(|v| {
            v.scene.as_ref().err().map(|e| VariantError {
                id: v.id.clone(),
                params: v.describe(),
                message: e.to_string(),
            })
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(SweepError::Variants {
            total: variants.len(),
            errors,
        })
    }
}

/// A path relative to `base`'s directory when it is inside it (for readable tables).
pub fn relative_to(path: &Path, base: &Path) -> PathBuf {
    path.strip_prefix(base)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_padded_to_the_sweep() {
        assert_eq!(variant_id(3, 7), "v003");
        assert_eq!(variant_id(42, 1000), "v042");
        assert_eq!(variant_id(42, 1001), "v0042");
    }
}

#[cfg(test)]
mod expand_tests {
    use super::*;
    use crate::spec;

    const BASE: &str = "[domain]\ncell = 1e-3\nsize = [0.01, 0.01, 0.01]\n[time]\nsteps = 10\n\
                        [materials.sub]\neps_r = 2.0\n[[objects]]\nshape = \"sphere\"\nmaterial = \"sub\"\n\
                        center = [0.005, 0.005, 0.005]\nradius = 0.002\n[boundaries]\nall = \"pec\"\n";

    fn variants(sweep: &str) -> Result<Vec<Variant>, SweepError> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("base.toml"), BASE).unwrap();
        let path = dir.path().join("s.toml");
        let spec = spec::parse(sweep, &path)?;
        expand(&spec, |id| dir.path().join(id).join("scene.toml"))
    }

    fn num(v: &Variant, k: &str) -> f64 {
        match v.values.iter().find(|(n, _)| n == k).map(|(_, x)| x) {
            Some(SceneValue::Num(x)) => *x,
            other => panic!("{k}: {other:?}"),
        }
    }

    #[test]
    fn stl_files_stay_found_from_the_sweep_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("models")).unwrap();
        let cube = fdtd_scene::mesh::cuboid([2.0; 3], [6.0; 3]);
        let f32s: Vec<[[f32; 3]; 3]> = cube.iter().map(|t| t.map(|v| v.map(|x| x as f32))).collect();
        std::fs::write(dir.path().join("models/c.stl"), fdtd_scene::mesh::binary_stl(&f32s)).unwrap();
        let base = BASE.replace(
            "shape = \"sphere\"\nmaterial = \"sub\"\ncenter = [0.005, 0.005, 0.005]\nradius = 0.002",
            "shape = \"stl\"\nmaterial = \"sub\"\nfile = \"models/c.stl\"\nscale = 1e-3",
        );
        std::fs::write(dir.path().join("base.toml"), base).unwrap();
        let path = dir.path().join("s.toml");
        let sweep = "[sweep]\nbase = \"base.toml\"\n[parameters]\ns = { values = [1e-3, 1.2e-3], key = \"objects[0].scale\" }\n";
        let spec = spec::parse(sweep, &path).unwrap();
        let v = expand(&spec, |id| dir.path().join("run").join(id).join("scene.toml")).unwrap();
        for x in &v {
            let s = x.scene.as_ref().unwrap_or_else(|e| panic!("{e}"));
            assert!(matches!(s.objects[0].shape, fdtd_scene::Shape::Stl(_)));
        }
        let (_, hi0) = v[0].scene.as_ref().unwrap().objects[0].shape.bounds();
        let (_, hi1) = v[1].scene.as_ref().unwrap().objects[0].shape.bounds();
        assert!((hi0[0] - 6e-3).abs() < 1e-12 && (hi1[0] - 7.2e-3).abs() < 1e-12);
    }

    #[test]
    fn grid_and_zip_combine_with_derived_values() {
        let head = "[sweep]\nbase = \"base.toml\"\n";
        let v = variants(&format!(
            "{head}[parameters]\neps = {{ values = [2, 3], key = \"materials.sub.eps_r\" }}\nr = [0.001, 0.002, 0.003]\n\
             [derived]\nd = \"2 * r\"\n[set]\n\"objects[0].radius\" = \"r\"\n\"objects[0].center[0]\" = \"0.01 - d\"\n"
        ))
        .unwrap();
        assert_eq!(v.len(), 6);
        // The first parameter varies slowest.
        let pairs: Vec<(f64, f64)> = v.iter().map(|v| (num(v, "eps"), num(v, "r"))).collect();
        assert_eq!(
            pairs,
            [
                (2.0, 0.001),
                (2.0, 0.002),
                (2.0, 0.003),
                (3.0, 0.001),
                (3.0, 0.002),
                (3.0, 0.003)
            ]
        );
        assert_eq!(num(&v[4], "d"), 0.004);
        let s = v[4].scene.as_ref().unwrap();
        assert_eq!(
            s.materials[2].kind,
            fdtd_scene::MaterialKind::Dielectric {
                eps_r: 3.0,
                mu_r: 1.0,
                sigma: 0.0
            }
        );
        assert_eq!(
            s.objects[0].shape,
            fdtd_scene::Shape::Sphere {
                center: [0.006, 0.005, 0.005],
                radius: 0.002
            }
        );
        assert_eq!(v[4].id, "v004");
        assert_eq!(v[4].describe(), "eps=3 r=0.002 d=0.004");

        let v = variants(&format!(
            "{head}combine = \"zip\"\n[parameters]\neps = {{ values = [2, 3], key = \"materials.sub.eps_r\" }}\n\
             r = {{ values = [0.001, 0.002], key = \"objects[0].radius\" }}\n"
        ))
        .unwrap();
        let pairs: Vec<(f64, f64)> = v.iter().map(|v| (num(v, "eps"), num(v, "r"))).collect();
        assert_eq!(pairs, [(2.0, 0.001), (3.0, 0.002)]);
    }

    #[test]
    fn invalid_variants_are_kept_and_reported_together() {
        let v = variants(
            "[sweep]\nbase = \"base.toml\"\n[parameters]\neps = { values = [2, 0.5, 0.25], key = \"materials.sub.eps_r\" }\n",
        )
        .unwrap();
        assert!(v[0].scene.is_ok());
        let e = check(&v).unwrap_err().to_string();
        assert!(
            e.starts_with("2 of 3 variants are invalid (nothing was run or submitted):"),
            "{e}"
        );
        assert!(e.contains("variant v001 (eps=0.5): "), "{e}");
        assert!(
            e.contains("v001/scene.toml:9:9: materials.sub.eps_r: eps_r = 0.5 < 1"),
            "{e}"
        );
        assert!(e.contains("variant v002 (eps=0.25)"), "{e}");
    }

    #[test]
    fn keys_missing_from_the_base_scene_point_at_the_sweep_file() {
        let e = variants("[sweep]\nbase = \"base.toml\"\n[parameters]\nr = [1]\n[set]\n\"objects[0].radiu\" = \"r\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("s.toml:6:1: set.\"objects[0].radiu\": the base scene does not set objects[0].radiu"),
            "{e}"
        );
        assert!(e.contains("did you mean \"radius\"?"), "{e}");
        let e = variants(
            "[sweep]\nbase = \"base.toml\"\n[parameters]\nr = [0]\n[set]\n\"objects[0].radius\" = \"1 / r\"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("for variant v000 (r=0): 1 / r = the value is not a finite number"),
            "{e}"
        );
        let e =
            variants("[sweep]\nbase = \"nope.toml\"\n[parameters]\nr = [0]\n[set]\n\"objects[0].radius\" = \"r\"\n")
                .unwrap_err()
                .to_string();
        assert!(e.contains("reading the base scene"), "{e}");
    }
}

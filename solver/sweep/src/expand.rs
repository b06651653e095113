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
                        loc.value.text(),
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

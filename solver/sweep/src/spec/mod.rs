//! The sweep file (TOML) → [`SweepSpec`], with `file:line:col` errors like scenes'.
//!
//! ```toml
//! [sweep]
//! base = "../antenna.toml"     # the base scene, relative to this file
//! combine = "grid"             # or "zip"
//! directory = "antenna_arm"    # the sweep directory (default: <this file's stem>)
//!
//! [parameters]
//! arm = { linspace = [0.040, 0.052, 7] }         # or range = [start, stop, step],
//! eps = [1.0, 2.2]                               # or values = [...], or a bare list
//! f = { values = [1e9, 2e9], key = "sources[0].waveform.frequency" }
//!
//! [derived]
//! half = "arm / 2"
//!
//! [set]
//! "objects[0].min[2]" = "0.080 - arm"
//!
//! [[figures]]
//! name = "z_in"
//! kind = "impedance"
//! voltage = "gap"
//! current = ["h_xp", "h_xm", "h_yp", "h_ym"]
//! band = [0.5e9, 3e9]
//! ```
use crate::expr::{Expr, CONSTANTS};
use crate::keys::{KeyPath, SceneValue};
use crate::{format_num, round_sig, SweepError};
use fdtd_scene::diagnostic::{invalid, suggest};
use fdtd_scene::SceneError;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// Most variants one sweep may have (a typo in a linspace count should not fill a disk).
pub const MAX_VARIANTS: usize = 100_000;

/// How parameters combine into variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    /// Every combination; the first parameter varies slowest.
    Grid,
    /// The i-th value of every parameter together (all lists have the same length).
    Zip,
}

/// A sweep parameter: its name, values and the scene keys it sets directly.
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    pub name: String,
    pub values: Vec<SceneValue>,
    pub keys: Vec<Located<KeyPath>>,
    /// Where the parameter is defined (for errors about its values).
    pub span: Range<usize>,
}

/// Something from the sweep file with the byte span it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Located<T> {
    pub value: T,
    pub span: Range<usize>,
    /// Its dotted key in the sweep file, for messages.
    pub key: String,
}

/// What a `[set]` entry writes: a parameter-free literal or an expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Setting {
    Literal(SceneValue),
    Expr(Expr),
}

/// A derived result `collect` computes from each variant's probes.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Figure {
    /// The frequency where |spectrum| peaks in `band`; with `per_source`, of the probe's
    /// spectrum divided by the first source's waveform spectrum (a transfer function).
    Peak {
        name: String,
        probe: String,
        component: String,
        band: [f64; 2],
        per_source: bool,
    },
    /// A gap's input impedance Z(f) = V/I: V = -E·d across the gap (the `voltage`
    /// probe's E component), I = ∮H·dl from four H probes around it, in the order
    /// [b+, b-, c+, c-] for a gap along axis a (cyclic a, b, c); the first resonance
    /// (Im Z crosses 0 from below) in `band` and Re Z there.
    Impedance {
        name: String,
        voltage: String,
        current: [String; 4],
        band: [f64; 2],
    },
}

impl Figure {
    pub fn name(&self) -> &str {
        match self {
            Figure::Peak { name, .. } | Figure::Impedance { name, .. } => name,
        }
    }
}

/// A parsed sweep file.
#[derive(Clone, Debug)]
pub struct SweepSpec {
    /// The sweep file.
    pub path: PathBuf,
    pub text: String,
    /// The sweep's name (the directory's name unless given).
    pub name: String,
    /// The base scene (resolved against the sweep file's directory).
    pub base: PathBuf,
    /// The sweep directory (resolved against the sweep file's directory).
    pub directory: PathBuf,
    /// The part of `directory` that is trusted as it is (the sweep file's folder, or the
    /// parent of a directory given on the command line); below it, every level is
    /// created or checked as a real directory, not a link.
    pub directory_anchor: PathBuf,
    pub combine: Combine,
    pub parameters: Vec<Parameter>,
    /// Named expressions over the parameters, in file order (each may use earlier ones).
    pub derived: Vec<Located<Expr>>,
    /// Scene keys and what to write into them.
    pub set: Vec<(Located<KeyPath>, Located<Setting>)>,
    pub figures: Vec<Figure>,
}

type R<T> = Result<T, Diag>;

struct Diag {
    at: usize,
    key: String,
    message: String,
    hint: Option<String>,
}

impl Diag {
    fn new(at: usize, key: &str, message: impl Into<String>) -> Diag {
        Diag {
            at,
            key: key.to_string(),
            message: message.into(),
            hint: None,
        }
    }
    fn hint(mut self, h: impl Into<String>) -> Diag {
        self.hint = Some(h.into());
        self
    }
}

/// An error in the sweep file at byte `at` (for errors found after parsing, e.g. a key
/// the base scene lacks).
pub fn error_at(
    spec: &SweepSpec,
    at: usize,
    key: &str,
    message: impl Into<String>,
    hint: Option<String>,
) -> SceneError {
    invalid(&spec.text, &spec.path, at, key, message, hint)
}

#[derive(Clone, Copy)]
struct V<'a> {
    v: &'a Spanned<DeValue<'a>>,
}

impl<'a> V<'a> {
    fn at(&self) -> usize {
        self.v.span().start
    }
    fn describe(&self) -> String {
        match self.v.get_ref() {
            DeValue::String(s) => format!("string {s:?}"),
            DeValue::Integer(i) => format!("integer {i}"),
            DeValue::Float(f) => format!("float {f}"),
            DeValue::Boolean(b) => format!("boolean {b}"),
            DeValue::Array(_) => "an array".into(),
            DeValue::Table(_) => "a table".into(),
            DeValue::Datetime(_) => "a datetime".into(),
        }
    }
    fn expected(&self, key: &str, what: &str) -> Diag {
        Diag::new(self.at(), key, format!("expected {what}, found {}", self.describe()))
    }
    fn num(&self, key: &str) -> R<f64> {
        let x = match self.v.get_ref() {
            DeValue::Float(f) => f.as_str().replace('_', "").parse::<f64>().ok(),
            DeValue::Integer(i) => i128::from_str_radix(&i.as_str().replace('_', ""), i.radix())
                .ok()
                .map(|n| n as f64),
            _ => return Err(self.expected(key, "a number")),
        };
        x.filter(|x| x.is_finite())
            .ok_or_else(|| Diag::new(self.at(), key, "expected a finite number"))
    }
    fn str(&self, key: &str) -> R<&'a str> {
        self.v.get_ref().as_str().ok_or_else(|| self.expected(key, "a string"))
    }
    fn items(&self, key: &str) -> R<Vec<V<'a>>> {
        match self.v.get_ref() {
            DeValue::Array(a) => Ok(a.iter().map(|v| V { v }).collect()),
            _ => Err(self.expected(key, "an array")),
        }
    }
    fn table(&self, key: &str) -> R<&'a DeTable<'a>> {
        match self.v.get_ref() {
            DeValue::Table(t) => Ok(t),
            _ => Err(self.expected(key, "a table")),
        }
    }
    fn scene_value(&self, key: &str) -> R<SceneValue> {
        match self.v.get_ref() {
            DeValue::Integer(_) | DeValue::Float(_) => Ok(SceneValue::Num(self.num(key)?)),
            DeValue::String(s) => Ok(SceneValue::Str(s.to_string())),
            DeValue::Boolean(b) => Ok(SceneValue::Bool(*b)),
            _ => Err(self.expected(key, "a number, a string or a boolean")),
        }
    }
}

/// Entries in file order: (key, key span, value).
fn entries<'a>(t: &'a DeTable<'a>) -> Vec<(&'a str, Range<usize>, V<'a>)> {
    let mut e: Vec<_> = t.iter().map(|(k, v)| (&**k.get_ref(), k.span(), V { v })).collect();
    e.sort_by_key(|(_, s, _)| s.start);
    e
}

fn check_keys(t: &DeTable, path: &str, allowed: &[&str]) -> R<()> {
    for (k, span, _) in entries(t) {
        if !allowed.contains(&k) {
            let hint = match suggest(k, allowed) {
                Some(s) => format!("did you mean {s:?}?"),
                None => format!(
                    "expected one of {}",
                    allowed.iter().map(|a| format!("{a:?}")).collect::<Vec<_>>().join(", ")
                ),
            };
            return Err(Diag::new(span.start, &join(path, k), format!("unknown key {k:?}")).hint(hint));
        }
    }
    Ok(())
}

fn join(path: &str, key: &str) -> String {
    let bare = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let k = if bare { key.to_string() } else { format!("{key:?}") };
    if path.is_empty() {
        k
    } else {
        format!("{path}.{k}")
    }
}

fn get<'a>(t: &'a DeTable<'a>, key: &str) -> Option<V<'a>> {
    t.get(key).map(|v| V { v })
}

/// Paths given on the command line instead of the sweep file's (they may be absolute
/// or leave the sweep file's folder; the file's own may not).
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub directory: Option<PathBuf>,
    pub base: Option<PathBuf>,
}

/// Parse the sweep file at `path`.
pub fn load(path: &Path) -> Result<SweepSpec, SweepError> {
    load_with(path, &Overrides::default())
}

/// Parse the sweep file at `path`, with paths from the command line.
pub fn load_with(path: &Path, overrides: &Overrides) -> Result<SweepSpec, SweepError> {
    let text = std::fs::read_to_string(path).map_err(|source| SweepError::Io {
        path: path.to_path_buf(),
        what: "reading the sweep file",
        source,
    })?;
    parse_with(&text, path, overrides)
}

/// Parse sweep-file text; `path` names it and anchors its relative paths.
pub fn parse(text: &str, path: &Path) -> Result<SweepSpec, SweepError> {
    parse_with(text, path, &Overrides::default())
}

/// [`parse`] with paths from the command line.
pub fn parse_with(text: &str, path: &Path, overrides: &Overrides) -> Result<SweepSpec, SweepError> {
    let doc = DeTable::parse(text).map_err(|e| {
        let at = e.span().map_or(0, |s| s.start);
        SweepError::Invalid(invalid(
            text,
            path,
            at,
            "",
            format!("invalid TOML: {}", e.message().trim()),
            None,
        ))
    })?;
    let root = doc.get_ref();
    spec(root, text, path, overrides)
        .map_err(|d| SweepError::Invalid(invalid(text, path, d.at, &d.key, d.message, d.hint)))
}

/// A path from the sweep file: relative to it and inside its folder (no `..`, not
/// absolute), so a sweep file cannot make `fdtd sweep` read or write anywhere else.
fn confined(v: V, key: &str, what: &str, flag: &str) -> R<PathBuf> {
    use std::path::Component;
    let s = v.str(key)?;
    if s.trim().is_empty() {
        return Err(Diag::new(v.at(), key, format!("the {what} is empty")));
    }
    let p = Path::new(s);
    let hint = format!(
        "a sweep file names paths inside its own folder; give any other path on the command line ({flag} PATH)"
    );
    if p.is_absolute() {
        return Err(Diag::new(v.at(), key, format!("the {what} {s:?} is an absolute path")).hint(hint));
    }
    if p.components().any(|c| c == Component::ParentDir) {
        return Err(Diag::new(
            v.at(),
            key,
            format!("the {what} {s:?} leaves the sweep file's folder (`..`)"),
        )
        .hint(hint));
    }
    if s.contains('\0') {
        return Err(Diag::new(v.at(), key, format!("the {what} holds a NUL character")));
    }
    Ok(normalize(p))
}

fn spec(root: &DeTable, text: &str, path: &Path, overrides: &Overrides) -> R<SweepSpec> {
    check_keys(root, "", &["sweep", "parameters", "derived", "set", "figures"])?;
    let sweep_v = get(root, "sweep").ok_or_else(|| {
        Diag::new(0, "", "missing section [sweep]").hint("add [sweep] with base = \"path/to/scene.toml\"")
    })?;
    let sweep = sweep_v.table("sweep")?;
    check_keys(sweep, "sweep", &["base", "combine", "directory", "name"])?;
    let here = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let base_v =
        get(sweep, "base").ok_or_else(|| Diag::new(sweep_v.at(), "sweep", "missing key \"base\" (the base scene)"))?;
    let base = match &overrides.base {
        Some(b) => {
            base_v.str("sweep.base")?;
            normalize(b)
        }
        None => normalize(&here.join(confined(base_v, "sweep.base", "base scene path", "--base")?)),
    };
    let stem = path
        .file_stem()
        .map_or("sweep".into(), |s| s.to_string_lossy().into_owned());
    let (directory_anchor, directory) = match (&overrides.directory, get(sweep, "directory")) {
        (Some(d), v) => {
            if let Some(v) = v {
                v.str("sweep.directory")?;
            }
            let d = normalize(d);
            let anchor = d.parent().map(Path::to_path_buf).unwrap_or_default();
            (anchor, d)
        }
        (None, Some(v)) => {
            let rel = confined(v, "sweep.directory", "directory", "--directory")?;
            if rel.as_os_str().is_empty() {
                return Err(Diag::new(
                    v.at(),
                    "sweep.directory",
                    "the directory is the sweep file's own folder",
                )
                .hint("name a folder for the sweep (its files and variants go there)"));
            }
            (here.clone(), normalize(&here.join(rel)))
        }
        (None, None) => (here.clone(), normalize(&here.join(&stem))),
    };
    let name = match get(sweep, "name") {
        Some(v) => v.str("sweep.name")?.to_string(),
        None => directory
            .file_name()
            .map_or(stem.clone(), |s| s.to_string_lossy().into_owned()),
    };
    let combine = match get(sweep, "combine") {
        None => Combine::Grid,
        Some(v) => match v.str("sweep.combine")? {
            "grid" | "product" => Combine::Grid,
            "zip" => Combine::Zip,
            other => {
                let h = suggest(other, &["grid", "zip"]).map_or("expected \"grid\" or \"zip\"".to_string(), |s| {
                    format!("did you mean {s:?}?")
                });
                return Err(Diag::new(v.at(), "sweep.combine", format!("unknown combination {other:?}")).hint(h));
            }
        },
    };

    let params_v = get(root, "parameters").ok_or_else(|| {
        Diag::new(0, "", "missing section [parameters]").hint("add [parameters] with name = [values]")
    })?;
    let mut parameters = Vec::new();
    for (name, span, v) in entries(params_v.table("parameters")?) {
        parameters.push(parameter(name, span, v)?);
    }
    if parameters.is_empty() {
        return Err(Diag::new(
            params_v.at(),
            "parameters",
            "no parameters: a sweep needs at least one",
        ));
    }
    let mut known: Vec<String> = parameters.iter().map(|p| p.name.clone()).collect();
    for (c, _) in CONSTANTS {
        if let Some(p) = parameters.iter().find(|p| p.name == c) {
            return Err(Diag::new(
                p.span.start,
                &join("parameters", c),
                format!("{c:?} is a constant in expressions"),
            )
            .hint("give the parameter another name"));
        }
    }

    let mut derived = Vec::new();
    if let Some(d) = get(root, "derived") {
        for (name, span, v) in entries(d.table("derived")?) {
            let key = join("derived", name);
            if known.iter().any(|k| k == name) || CONSTANTS.iter().any(|(c, _)| *c == name) {
                return Err(Diag::new(span.start, &key, format!("{name:?} is already defined"))
                    .hint("each parameter and derived value needs its own name"));
            }
            if !valid_name(name) {
                return Err(
                    Diag::new(span.start, &key, format!("{name:?} cannot be used in expressions"))
                        .hint("use letters, digits and _ (not starting with a digit)"),
                );
            }
            let e = expression(v, &key, text, &known)?;
            known.push(name.to_string());
            derived.push(Located {
                value: e,
                span: v.v.span(),
                key,
            });
        }
    }

    let mut set = Vec::new();
    if let Some(s) = get(root, "set") {
        for (k, span, v) in entries(s.table("set")?) {
            let key = join("set", k);
            let kp = KeyPath::parse(k).map_err(|e| {
                let d = Diag::new(span.start, &key, e.message);
                match e.hint {
                    Some(h) => d.hint(h),
                    None => d,
                }
            })?;
            let setting = match v.v.get_ref() {
                DeValue::String(_) => {
                    // A string is an expression, unless it is meant as a string value:
                    // `'"ricker"'` (quoted inside) writes the string.
                    let s = v.str(&key)?;
                    let t = s.trim();
                    if t.len() >= 2 && t.starts_with('"') && t.ends_with('"') {
                        Setting::Literal(SceneValue::Str(t[1..t.len() - 1].to_string()))
                    } else {
                        Setting::Expr(expression(v, &key, text, &known)?)
                    }
                }
                _ => Setting::Literal(v.scene_value(&key)?),
            };
            set.push((
                Located {
                    value: kp,
                    span: span.clone(),
                    key: key.clone(),
                },
                Located {
                    value: setting,
                    span: v.v.span(),
                    key,
                },
            ));
        }
    }
    for p in &parameters {
        for k in &p.keys {
            if let Some((other, _)) = set.iter().find(|(s, _)| s.value == k.value) {
                return Err(Diag::new(
                    other.span.start,
                    &other.key,
                    format!("{} is also set by parameter {:?}", k.value, p.name),
                )
                .hint("set each scene key once"));
            }
        }
    }
    let mut seen: Vec<&KeyPath> = Vec::new();
    for p in &parameters {
        for k in &p.keys {
            if seen.contains(&&k.value) {
                return Err(Diag::new(
                    k.span.start,
                    &k.key,
                    format!("{} is set by two parameters", k.value),
                ));
            }
            seen.push(&k.value);
        }
    }
    if set.is_empty() && parameters.iter().all(|p| p.keys.is_empty()) {
        return Err(Diag::new(params_v.at(), "parameters", "no parameter changes the scene")
            .hint("map parameters onto scene keys: key = \"objects[0].max[2]\" in the parameter, or a [set] table"));
    }

    let mut figures = Vec::new();
    if let Some(f) = get(root, "figures") {
        for (i, item) in f.items("figures")?.into_iter().enumerate() {
            figures.push(figure(item, &format!("figures[{i}]"))?);
        }
        for (i, fig) in figures.iter().enumerate() {
            if figures[..i].iter().any(|g| g.name() == fig.name()) {
                let at = f.items("figures")?[i].at();
                return Err(Diag::new(
                    at,
                    &format!("figures[{i}].name"),
                    format!("two figures are named {:?}", fig.name()),
                ));
            }
        }
    }

    let spec = SweepSpec {
        path: path.to_path_buf(),
        text: text.to_string(),
        name,
        base,
        directory,
        directory_anchor,
        combine,
        parameters,
        derived,
        set,
        figures,
    };
    count_check(&spec, params_v.at())?;
    Ok(spec)
}

/// `a/b/../c` → `a/c`, `./a` → `a` (lexically: for messages and tables).
fn normalize(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn count_check(spec: &SweepSpec, at: usize) -> R<()> {
    match spec.combine {
        Combine::Grid => {
            let n = spec
                .parameters
                .iter()
                .try_fold(1usize, |acc, p| acc.checked_mul(p.values.len()))
                .unwrap_or(usize::MAX);
            if n > MAX_VARIANTS {
                return Err(Diag::new(
                    at,
                    "parameters",
                    format!("the full grid has {n} variants, more than {MAX_VARIANTS}"),
                )
                .hint("use fewer values, or combine = \"zip\""));
            }
        }
        Combine::Zip => {
            let first = &spec.parameters[0];
            if let Some(p) = spec.parameters.iter().find(|p| p.values.len() != first.values.len()) {
                return Err(Diag::new(
                    p.span.start,
                    &join("parameters", &p.name),
                    format!(
                        "combine = \"zip\" needs lists of one length: {:?} has {} values, {:?} has {}",
                        first.name,
                        first.values.len(),
                        p.name,
                        p.values.len()
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn valid_name(name: &str) -> bool {
    let mut c = name.chars();
    c.next().is_some_and(|f| f.is_alphabetic() || f == '_') && c.all(|x| x.is_alphanumeric() || x == '_')
}

/// An expression string, its names checked against `known` (parameters and earlier
/// derived values); errors point at the character in the string.
fn expression(v: V, key: &str, text: &str, known: &[String]) -> R<Expr> {
    let s = v.str(key)?;
    // The string's first character: after the opening quote(s) in the file.
    let span = v.v.span();
    let raw = &text[span.clone()];
    let quote = if raw.starts_with("\"\"\"") || raw.starts_with("'''") {
        3
    } else {
        1
    };
    let char_at = |c: usize| span.start + quote + s.chars().take(c).map(char::len_utf8).sum::<usize>();
    let shown = crate::expr::shorten(s);
    let e = Expr::parse(s).map_err(|e| {
        let d = Diag::new(
            char_at(e.at),
            key,
            format!("in the expression {shown:?}: {}", e.message),
        );
        match e.hint {
            Some(h) => d.hint(h),
            None => d,
        }
    })?;
    for (name, at) in e.names() {
        if !known.contains(&name) && !CONSTANTS.iter().any(|(c, _)| *c == name) {
            let mut names: Vec<&str> = known.iter().map(|s| s.as_str()).collect();
            names.extend(CONSTANTS.iter().map(|(c, _)| *c));
            let hint = match suggest(&name, &names) {
                Some(s) => format!("did you mean {s:?}?"),
                None => format!("expressions may use {}", names.join(", ")),
            };
            return Err(Diag::new(char_at(at), key, format!("unknown name {name:?} in {s:?}")).hint(hint));
        }
    }
    Ok(e)
}

fn parameter(name: &str, span: Range<usize>, v: V) -> R<Parameter> {
    let key = join("parameters", name);
    if !valid_name(name) {
        return Err(
            Diag::new(span.start, &key, format!("{name:?} cannot be used in expressions"))
                .hint("use letters, digits and _ (not starting with a digit)"),
        );
    }
    let (values, keys) = match v.v.get_ref() {
        DeValue::Array(_) => (list(v, &key)?, Vec::new()),
        DeValue::Table(t) => {
            check_keys(t, &key, &["values", "range", "linspace", "key", "keys"])?;
            let given: Vec<&str> = ["values", "range", "linspace"]
                .into_iter()
                .filter(|k| t.get(*k).is_some())
                .collect();
            if given.len() != 1 {
                let d = Diag::new(span.start, &key, match given.len() {
                    0 => "no values: give one of values = [...], range = [start, stop, step], linspace = [start, stop, count]".to_string(),
                    _ => format!("give only one of {}", given.join(", ")),
                });
                return Err(d);
            }
            let k = join(&key, given[0]);
            let vv = get(t, given[0]).expect("present");
            let values = match given[0] {
                "values" => list(vv, &k)?,
                "range" => range(vv, &k)?,
                _ => linspace(vv, &k)?,
            };
            let mut keys = Vec::new();
            let mut key_values = Vec::new();
            if let Some(kv) = get(t, "key") {
                key_values.push((kv, join(&key, "key")));
            }
            if let Some(ks) = get(t, "keys") {
                for (i, item) in ks.items(&join(&key, "keys"))?.into_iter().enumerate() {
                    key_values.push((item, format!("{}[{i}]", join(&key, "keys"))));
                }
            }
            for (kv, kk) in key_values {
                let s = kv.str(&kk)?;
                let kp = KeyPath::parse(s).map_err(|e| {
                    let d = Diag::new(kv.at(), &kk, e.message);
                    match e.hint {
                        Some(h) => d.hint(h),
                        None => d,
                    }
                })?;
                keys.push(Located {
                    value: kp,
                    span: kv.v.span(),
                    key: kk,
                });
            }
            (values, keys)
        }
        _ => return Err(v.expected(&key, "a list of values or a table (values, range, linspace, key)")),
    };
    if values.is_empty() {
        return Err(Diag::new(v.at(), &key, "no values"));
    }
    Ok(Parameter {
        name: name.to_string(),
        values,
        keys,
        span,
    })
}

fn list(v: V, key: &str) -> R<Vec<SceneValue>> {
    let items = v.items(key)?;
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        out.push(item.scene_value(&format!("{key}[{i}]"))?);
    }
    if out.len() > MAX_VARIANTS {
        return Err(Diag::new(
            v.at(),
            key,
            format!("{} values is more than {MAX_VARIANTS}", out.len()),
        ));
    }
    let nums = out.iter().filter(|x| matches!(x, SceneValue::Num(_))).count();
    if nums != 0 && nums != out.len() {
        return Err(Diag::new(v.at(), key, "mixes numbers with other values")
            .hint("a parameter's values are all numbers, or all strings/booleans"));
    }
    Ok(out)
}

fn three(v: V, key: &str, what: &str) -> R<[f64; 3]> {
    let items = v.items(key)?;
    if items.len() != 3 {
        return Err(Diag::new(
            v.at(),
            key,
            format!("expected {what}, found {} element(s)", items.len()),
        ));
    }
    Ok([items[0].num(key)?, items[1].num(key)?, items[2].num(key)?])
}

/// `[start, stop, step]`: start, start + step, ... up to stop (included when it falls
/// on the grid, within 1e-9 of a step).
fn range(v: V, key: &str) -> R<Vec<SceneValue>> {
    let [start, stop, step] = three(v, key, "[start, stop, step]")?;
    if step == 0.0 || (stop - start) * step < 0.0 {
        return Err(Diag::new(
            v.at(),
            key,
            format!(
                "a step of {} never goes from {} to {}",
                format_num(step),
                format_num(start),
                format_num(stop)
            ),
        ));
    }
    let n = ((stop - start) / step + 1e-9).floor();
    if n + 1.0 > MAX_VARIANTS as f64 {
        return Err(Diag::new(
            v.at(),
            key,
            format!("{} values is more than {MAX_VARIANTS}", n + 1.0),
        ));
    }
    Ok((0..=n as usize)
        .map(|i| SceneValue::Num(round_sig(start + i as f64 * step)))
        .collect())
}

/// `[start, stop, count]`: `count` evenly spaced values, both ends included.
fn linspace(v: V, key: &str) -> R<Vec<SceneValue>> {
    let items = v.items(key)?;
    if items.len() != 3 {
        return Err(Diag::new(
            v.at(),
            key,
            format!("expected [start, stop, count], found {} element(s)", items.len()),
        ));
    }
    let (start, stop) = (items[0].num(key)?, items[1].num(key)?);
    let DeValue::Integer(_) = items[2].v.get_ref() else {
        return Err(items[2].expected(key, "a whole number of values"));
    };
    let count = items[2].num(key)?;
    if !(1.0..=MAX_VARIANTS as f64).contains(&count) {
        return Err(Diag::new(
            items[2].at(),
            key,
            format!("the count must be 1 to {MAX_VARIANTS} (got {count})"),
        ));
    }
    let n = count as usize;
    Ok((0..n)
        .map(|i| {
            let t = if n == 1 { 0.0 } else { i as f64 / (n - 1) as f64 };
            SceneValue::Num(round_sig(start + t * (stop - start)))
        })
        .collect())
}

fn band(t: &DeTable, key: &str, at: usize) -> R<[f64; 2]> {
    let v = get(t, "band").ok_or_else(|| Diag::new(at, key, "missing key \"band\" ([f_min, f_max] in Hz)"))?;
    let k = join(key, "band");
    let items = v.items(&k)?;
    if items.len() != 2 {
        return Err(Diag::new(v.at(), &k, "expected [f_min, f_max] (Hz)"));
    }
    let b = [items[0].num(&k)?, items[1].num(&k)?];
    if !(b[0] >= 0.0 && b[1] > b[0]) {
        return Err(Diag::new(v.at(), &k, "expected 0 <= f_min < f_max"));
    }
    Ok(b)
}

fn figure(v: V, key: &str) -> R<Figure> {
    let t = v.table(key)?;
    let req_str = |k: &str| -> R<String> {
        let val = get(t, k).ok_or_else(|| Diag::new(v.at(), key, format!("missing key {k:?}")))?;
        Ok(val.str(&join(key, k))?.to_string())
    };
    let name = req_str("name")?;
    if !valid_name(&name) {
        return Err(Diag::new(
            v.at(),
            &join(key, "name"),
            format!("{name:?} is not usable as a column name"),
        )
        .hint("use letters, digits and _"));
    }
    let kind = req_str("kind")?;
    match kind.as_str() {
        "peak" => {
            check_keys(t, key, &["name", "kind", "probe", "component", "band", "per_source"])?;
            let per_source = match get(t, "per_source") {
                None => false,
                Some(b) => {
                    b.v.get_ref()
                        .as_bool()
                        .ok_or_else(|| b.expected(&join(key, "per_source"), "true or false"))?
                }
            };
            Ok(Figure::Peak {
                name,
                probe: req_str("probe")?,
                component: req_str("component")?,
                band: band(t, key, v.at())?,
                per_source,
            })
        }
        "impedance" => {
            check_keys(t, key, &["name", "kind", "voltage", "current", "band"])?;
            let cv = get(t, "current").ok_or_else(|| Diag::new(v.at(), key, "missing key \"current\" (4 H probes)"))?;
            let ck = join(key, "current");
            let items = cv.items(&ck)?;
            if items.len() != 4 {
                return Err(Diag::new(
                    cv.at(),
                    &ck,
                    "expected 4 H probes around the gap: [b+, b-, c+, c-]",
                ));
            }
            let c: Vec<String> = items.iter().map(|i| i.str(&ck).map(str::to_string)).collect::<R<_>>()?;
            Ok(Figure::Impedance {
                name,
                voltage: req_str("voltage")?,
                current: [c[0].clone(), c[1].clone(), c[2].clone(), c[3].clone()],
                band: band(t, key, v.at())?,
            })
        }
        other => {
            let kv = get(t, "kind").expect("read above");
            let h = suggest(other, &["peak", "impedance"]).map_or("expected \"peak\" or \"impedance\"".into(), |s| {
                format!("did you mean {s:?}?")
            });
            Err(Diag::new(kv.at(), &join(key, "kind"), format!("unknown figure kind {other:?}")).hint(h))
        }
    }
}

#[cfg(test)]
mod tests;

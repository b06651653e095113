//! Scene keys as sweeps name them (`materials.sub.eps_r`, `objects[0].max[2]`,
//! `sources[0].waveform.frequency`), looked up and replaced in the base scene's TOML
//! with `toml_edit`, so a variant's scene keeps the base scene's layout and comments.
use std::fmt;
use toml_edit::{DocumentMut, Item, Table, Value};

/// One step of a key path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    Key(String),
    Index(usize),
}

/// A dotted key path with `[i]` indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyPath {
    pub segments: Vec<Segment>,
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_prefix(f, &self.segments)
    }
}

fn write_prefix(f: &mut impl fmt::Write, segs: &[Segment]) -> fmt::Result {
    for (i, s) in segs.iter().enumerate() {
        match s {
            Segment::Key(k) => {
                if i > 0 {
                    f.write_char('.')?;
                }
                let bare = !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                if bare {
                    f.write_str(k)?;
                } else {
                    write!(f, "{k:?}")?;
                }
            }
            Segment::Index(n) => write!(f, "[{n}]")?,
        }
    }
    Ok(())
}

fn prefix(segs: &[Segment]) -> String {
    let mut s = String::new();
    let _ = write_prefix(&mut s, segs);
    s
}

/// Why a key path is malformed or names nothing in the base scene.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyError {
    pub message: String,
    pub hint: Option<String>,
}

fn key_err(message: impl Into<String>, hint: Option<String>) -> KeyError {
    KeyError {
        message: message.into(),
        hint,
    }
}

impl KeyPath {
    /// Parse `a.b[0].c`; keys are bare (`A-Za-z0-9_-`) or double-quoted.
    pub fn parse(text: &str) -> Result<KeyPath, KeyError> {
        let chars: Vec<char> = text.trim().chars().collect();
        let mut segs = Vec::new();
        let mut i = 0;
        let mut expect_key = true;
        while i < chars.len() {
            let c = chars[i];
            if expect_key {
                if c == '"' {
                    let start = i + 1;
                    let Some(len) = chars[start..].iter().position(|&c| c == '"') else {
                        return Err(key_err(format!("unterminated quoted key in {text:?}"), None));
                    };
                    segs.push(Segment::Key(chars[start..start + len].iter().collect()));
                    i = start + len + 1;
                } else {
                    let start = i;
                    while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == '-') {
                        i += 1;
                    }
                    if i == start {
                        return Err(key_err(
                            format!("expected a key name at character {} of {text:?}", start + 1),
                            Some("scene keys look like `materials.sub.eps_r` or `objects[0].max[2]`".into()),
                        ));
                    }
                    segs.push(Segment::Key(chars[start..i].iter().collect()));
                }
                expect_key = false;
            } else if c == '[' {
                let start = i + 1;
                let Some(len) = chars[start..].iter().position(|&c| c == ']') else {
                    return Err(key_err(format!("unclosed `[` in {text:?}"), None));
                };
                let s: String = chars[start..start + len].iter().collect();
                let n = s.trim().parse::<usize>().map_err(|_| {
                    key_err(
                        format!("`[{s}]` in {text:?} is not an index (a whole number from 0)"),
                        None,
                    )
                })?;
                segs.push(Segment::Index(n));
                i = start + len + 1;
            } else if c == '.' {
                expect_key = true;
                i += 1;
            } else {
                return Err(key_err(
                    format!("unexpected {c:?} at character {} of {text:?}", i + 1),
                    Some("scene keys look like `materials.sub.eps_r` or `objects[0].max[2]`".into()),
                ));
            }
        }
        if expect_key {
            return Err(key_err(format!("{text:?} ends where a key name is expected"), None));
        }
        Ok(KeyPath { segments: segs })
    }
}

/// A value a sweep writes into a scene.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum SceneValue {
    Num(f64),
    Str(String),
    Bool(bool),
}

impl fmt::Display for SceneValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SceneValue::Num(x) => f.write_str(&crate::format_num(*x)),
            SceneValue::Str(s) => f.write_str(s),
            SceneValue::Bool(b) => write!(f, "{b}"),
        }
    }
}

enum Node<'a> {
    Item(&'a mut Item),
    Table(&'a mut Table),
    Value(&'a mut Value),
}

fn kind(n: &Node) -> &'static str {
    match n {
        Node::Table(_) => "a table",
        Node::Item(Item::Table(_)) => "a table",
        Node::Item(Item::ArrayOfTables(_)) => "an array of tables",
        Node::Item(Item::None) => "nothing",
        Node::Item(Item::Value(v)) => value_kind(v),
        Node::Value(v) => value_kind(v),
    }
}

fn value_kind(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a float",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a datetime",
        Value::Array(_) => "an array",
        Value::InlineTable(_) => "a table",
    }
}

fn keys_of(n: &Node) -> Vec<String> {
    let table = |t: &Table| t.iter().map(|(k, _)| k.to_string()).collect();
    let inline = |t: &toml_edit::InlineTable| t.iter().map(|(k, _)| k.to_string()).collect();
    match n {
        Node::Table(t) => table(t),
        Node::Item(Item::Table(t)) => table(t),
        Node::Item(Item::Value(Value::InlineTable(t))) => inline(t),
        Node::Value(Value::InlineTable(t)) => inline(t),
        _ => Vec::new(),
    }
}

fn missing_key(at: &[Segment], key: &str, keys: &[String]) -> KeyError {
    let path = prefix(at);
    let names: Vec<&str> = keys.iter().map(|s| s.as_str()).collect();
    let hint = match fdtd_scene::diagnostic::suggest(key, &names) {
        Some(s) => Some(format!("did you mean {s:?}?")),
        None if names.is_empty() => None,
        None => Some(format!(
            "{} has {}",
            if path.is_empty() { "the scene" } else { &path },
            names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
        )),
    };
    let whole = prefix(&[at, &[Segment::Key(key.into())]].concat());
    let message = if path.is_empty() {
        format!("the base scene has no [{key}]")
    } else {
        format!("the base scene does not set {whole}")
    };
    let hint = hint.or_else(|| {
        Some(format!(
            "a sweep can only replace values the base scene gives: add {key} to {path} in the base scene"
        ))
    });
    key_err(message, hint)
}

/// Replace the value at `path` in `doc` with `value`, keeping its comments. The value
/// must exist in the document and be a number, string or boolean (or an array element).
pub fn set(doc: &mut DocumentMut, path: &KeyPath, value: &SceneValue) -> Result<(), KeyError> {
    let mut node = Node::Table(doc.as_table_mut());
    let segs = &path.segments;
    for (i, seg) in segs.iter().enumerate() {
        let here = &segs[..i];
        node = match (seg, node) {
            (Segment::Key(k), n) => {
                let keys = keys_of(&n);
                let what = kind(&n);
                let next = match n {
                    Node::Table(t) | Node::Item(Item::Table(t)) => t.get_mut(k).map(Node::Item),
                    Node::Item(Item::Value(Value::InlineTable(t))) | Node::Value(Value::InlineTable(t)) => {
                        t.get_mut(k).map(Node::Value)
                    }
                    _ => {
                        return Err(key_err(
                            format!("{} is {what}, so it has no key {k:?}", prefix(here)),
                            None,
                        ))
                    }
                };
                match next {
                    Some(Node::Item(Item::None)) | None => return Err(missing_key(here, k, &keys)),
                    Some(n) => n,
                }
            }
            (Segment::Index(ix), n) => {
                let what = kind(&n);
                let (next, len) = match n {
                    Node::Item(Item::ArrayOfTables(a)) => {
                        let len = a.len();
                        (a.get_mut(*ix).map(Node::Table), len)
                    }
                    Node::Item(Item::Value(Value::Array(a))) | Node::Value(Value::Array(a)) => {
                        let len = a.len();
                        (a.get_mut(*ix).map(Node::Value), len)
                    }
                    _ => {
                        return Err(key_err(
                            format!("{} is {what}, not an array, so it has no element [{ix}]", prefix(here)),
                            None,
                        ))
                    }
                };
                match next {
                    Some(n) => n,
                    None => {
                        return Err(key_err(
                            format!(
                                "{} has {len} element(s) in the base scene, so there is no [{ix}]",
                                prefix(here)
                            ),
                            Some(format!("indices count from 0: the last is [{}]", len.saturating_sub(1))),
                        ))
                    }
                }
            }
        };
    }
    let what = kind(&node);
    let target: &mut Value = match node {
        Node::Item(Item::Value(v)) | Node::Value(v) => v,
        _ => {
            return Err(key_err(
                format!("{path} is {what}; a sweep replaces single values"),
                Some(format!("name one of its values, e.g. {path}.<key> or {path}[0]")),
            ))
        }
    };
    let new = match (value, &*target) {
        (SceneValue::Num(x), Value::Integer(_)) if x.fract() == 0.0 && x.abs() < 9.0e15 => Value::from(*x as i64),
        (SceneValue::Num(x), _) => Value::from(*x),
        (SceneValue::Str(s), _) => Value::from(s.as_str()),
        (SceneValue::Bool(b), _) => Value::from(*b),
    };
    if matches!(target, Value::Array(_) | Value::InlineTable(_)) {
        return Err(key_err(
            format!("{path} is {}; a sweep replaces single values", value_kind(target)),
            Some(format!("name one of its values, e.g. {path}[0]")),
        ));
    }
    let decor = target.decor().clone();
    *target = new;
    *target.decor_mut() = decor;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENE: &str = r#"# a comment
[domain]
cell = 1e-3        # m
cells = [10, 10, 10]

[materials.sub]
eps_r = 4.0

[[objects]]
shape = "box"
material = "sub"
min = [0.0, 0.0, 0.0]
max = [0.005, 0.005, 0.002]   # top

[[sources]]
component = "Ez"
waveform = { type = "gaussian", frequency = 3e9 }
"#;

    fn set_str(key: &str, v: SceneValue) -> Result<String, KeyError> {
        let mut doc: DocumentMut = SCENE.parse().unwrap();
        set(&mut doc, &KeyPath::parse(key)?, &v)?;
        Ok(doc.to_string())
    }

    #[test]
    fn paths_parse_and_print() {
        let p = KeyPath::parse("objects[0].max[2]").unwrap();
        assert_eq!(
            p.segments,
            [
                Segment::Key("objects".into()),
                Segment::Index(0),
                Segment::Key("max".into()),
                Segment::Index(2)
            ]
        );
        assert_eq!(p.to_string(), "objects[0].max[2]");
        assert_eq!(
            KeyPath::parse("materials.\"my sub\".eps_r").unwrap().to_string(),
            "materials.\"my sub\".eps_r"
        );
        for bad in ["", "a.", ".a", "a[x]", "a[0", "a b", "a..b"] {
            assert!(KeyPath::parse(bad).is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn values_are_replaced_keeping_comments() {
        let out = set_str("objects[0].max[2]", SceneValue::Num(0.003)).unwrap();
        assert!(out.contains("max = [0.005, 0.005, 0.003]   # top"), "{out}");
        let out = set_str("materials.sub.eps_r", SceneValue::Num(2.5)).unwrap();
        assert!(out.contains("eps_r = 2.5\n"), "{out}");
        let out = set_str("domain.cell", SceneValue::Num(5e-4)).unwrap();
        assert!(out.contains("cell = 0.0005        # m"), "{out}");
        let out = set_str("sources[0].waveform.frequency", SceneValue::Num(2e9)).unwrap();
        assert!(out.contains("frequency = 2000000000.0"), "{out}");
        // Integers stay integers where the scene has one.
        let out = set_str("domain.cells[1]", SceneValue::Num(12.0)).unwrap();
        assert!(out.contains("cells = [10, 12, 10]"), "{out}");
        let out = set_str("sources[0].waveform.type", SceneValue::Str("ricker".into())).unwrap();
        assert!(out.contains("type = \"ricker\""), "{out}");
        assert!(out.starts_with("# a comment\n"));
    }

    #[test]
    fn missing_keys_are_named_with_a_suggestion() {
        let e = set_str("materials.sub.epsr", SceneValue::Num(1.0)).unwrap_err();
        assert_eq!(e.message, "the base scene does not set materials.sub.epsr");
        assert_eq!(e.hint.as_deref(), Some("did you mean \"eps_r\"?"));
        let e = set_str("materials.sub.sigma", SceneValue::Num(1.0)).unwrap_err();
        assert!(e.hint.unwrap().contains("materials.sub has \"eps_r\""));
        let e = set_str("objects[1].max[2]", SceneValue::Num(1.0)).unwrap_err();
        assert_eq!(
            e.message,
            "objects has 1 element(s) in the base scene, so there is no [1]"
        );
        let e = set_str("objects[0].max[3]", SceneValue::Num(1.0)).unwrap_err();
        assert!(e.message.contains("objects[0].max has 3 element(s)"), "{}", e.message);
        let e = set_str("objects[0].max", SceneValue::Num(1.0)).unwrap_err();
        assert!(e.message.contains("is an array"), "{}", e.message);
        let e = set_str("domain.cell[0]", SceneValue::Num(1.0)).unwrap_err();
        assert!(
            e.message.contains("domain.cell is a float, not an array"),
            "{}",
            e.message
        );
        let e = set_str("probes[0].position", SceneValue::Num(1.0)).unwrap_err();
        assert_eq!(e.message, "the base scene has no [probes]");
        let e = set_str("domain.cell.x", SceneValue::Num(1.0)).unwrap_err();
        assert!(e.message.contains("is a float, so it has no key"), "{}", e.message);
    }
}

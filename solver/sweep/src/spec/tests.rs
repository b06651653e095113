use super::*;
use std::path::Path;

fn parse_ok(text: &str) -> SweepSpec {
    parse(text, Path::new("sweeps/s.toml")).unwrap_or_else(|e| panic!("{e}"))
}

fn parse_err(text: &str) -> String {
    match parse(text, Path::new("sweeps/s.toml")) {
        Ok(_) => panic!("parsed:\n{text}"),
        Err(e) => e.to_string(),
    }
}

const HEAD: &str = "[sweep]\nbase = \"scenes/antenna.toml\"\n";

#[test]
fn lists_ranges_and_linspaces() {
    let s = parse_ok(&format!(
        "{HEAD}[parameters]\na = [1, 2.5]\nb = {{ range = [0.04, 0.052, 0.002], key = \"domain.cell\" }}\n\
         c = {{ linspace = [1e9, 2e9, 3], keys = [\"sources[0].waveform.frequency\"] }}\nd = {{ values = [\"x\", \"y\"] }}\n\
         [set]\n\"objects[0].min[2]\" = \"0.08 - a\"\n"
    ));
    assert_eq!(s.parameters.len(), 4);
    assert_eq!(s.parameters[0].name, "a");
    assert_eq!(s.parameters[0].values, [SceneValue::Num(1.0), SceneValue::Num(2.5)]);
    let b: Vec<f64> = s.parameters[1]
        .values
        .iter()
        .map(|v| match v {
            SceneValue::Num(x) => *x,
            _ => panic!(),
        })
        .collect();
    assert_eq!(b, [0.04, 0.042, 0.044, 0.046, 0.048, 0.05, 0.052]);
    assert_eq!(s.parameters[1].keys[0].value.to_string(), "domain.cell");
    assert_eq!(
        s.parameters[2].values,
        [SceneValue::Num(1e9), SceneValue::Num(1.5e9), SceneValue::Num(2e9)]
    );
    assert_eq!(s.parameters[3].values[1], SceneValue::Str("y".into()));
    assert_eq!(s.combine, Combine::Grid);
    assert_eq!(s.base, Path::new("sweeps/scenes/antenna.toml"));
    assert_eq!(s.directory, Path::new("sweeps/s"));
    assert_eq!(s.name, "s");
}

#[test]
fn errors_have_positions_keys_and_hints() {
    let e = parse_err(&format!(
        "{HEAD}[parameters]\narm = [1]\n[set]\n\"objects[0].min[2]\" = \"0.08 - amr\"\n"
    ));
    assert_eq!(
        e,
        "sweeps/s.toml:6:31: set.\"objects[0].min[2]\": unknown name \"amr\" in \"0.08 - amr\"\n  help: did you mean \"arm\"?"
    );
    let e = parse_err(&format!("{HEAD}[parameters]\narm = [1]\n[sett]\n"));
    assert!(e.starts_with("sweeps/s.toml:5:2: sett: unknown key \"sett\""), "{e}");
    assert!(e.contains("did you mean \"set\"?"), "{e}");
    let e = parse_err(&format!("{HEAD}combine = \"zipp\"\n[parameters]\na = [1]\n"));
    assert!(
        e.contains("sweep.combine: unknown combination \"zipp\"") && e.contains("did you mean \"zip\"?"),
        "{e}"
    );
    let e = parse_err(&format!(
        "{HEAD}combine = \"zip\"\n[parameters]\na = {{ values = [1, 2], key = \"domain.cell\" }}\nb = {{ values = [1], key = \"time.duration\" }}\n"
    ));
    assert!(
        e.contains(":6:1: parameters.b: combine = \"zip\" needs lists of one length"),
        "{e}"
    );
    let e = parse_err(&format!(
        "{HEAD}[parameters]\na = {{ range = [1, 0, 0.5], key = \"domain.cell\" }}\n"
    ));
    assert!(
        e.contains("parameters.a.range: a step of 0.5 never goes from 1 to 0"),
        "{e}"
    );
    let e = parse_err(&format!(
        "{HEAD}[parameters]\na = {{ linspace = [1, 2, 2.5], key = \"domain.cell\" }}\n"
    ));
    assert!(e.contains("expected a whole number of values"), "{e}");
    let e = parse_err(&format!(
        "{HEAD}[parameters]\na = {{ value = [1], key = \"domain.cell\" }}\n"
    ));
    assert!(e.contains("did you mean \"values\"?"), "{e}");
    let e = parse_err(&format!("{HEAD}[parameters]\na = [1, 2]\n"));
    assert!(e.contains("no parameter changes the scene"), "{e}");
    let e = parse_err(&format!(
        "{HEAD}[parameters]\na = {{ values = [1], key = \"objects[x]\" }}\n"
    ));
    assert!(e.contains("parameters.a.key: `[x]`"), "{e}");
    let e = parse_err(&format!("{HEAD}[parameters]\na = [1, \"x\"]\n"));
    assert!(e.contains("mixes numbers"), "{e}");
    let e = parse_err(&format!(
        "{HEAD}[parameters]\npi = {{ values = [1], key = \"domain.cell\" }}\n"
    ));
    assert!(e.contains("\"pi\" is a constant"), "{e}");
    let e = parse_err(&format!(
        "{HEAD}[parameters]\na = {{ values = [1], key = \"domain.cell\" }}\n[set]\n\"domain.cell\" = 2\n"
    ));
    assert!(e.contains("domain.cell is also set by parameter \"a\""), "{e}");
    let e = parse_err(&format!(
        "{HEAD}[parameters]\na = [1]\n[derived]\nb = \"a * 2\"\nc = \"d + 1\"\n[set]\n\"domain.cell\" = \"c\"\n"
    ));
    assert!(e.contains("derived.c: unknown name \"d\""), "{e}");
    let e = parse_err("[parameters]\na = [1]\n");
    assert!(e.contains("missing section [sweep]"), "{e}");
    let e = parse_err(&format!(
        "{HEAD}[parameters]\na = {{ values = [1], key = \"domain.cell\" }}\n[[figures]]\nname = \"f\"\nkind = \"peek\"\n"
    ));
    assert!(
        e.contains("figures[0].kind: unknown figure kind \"peek\"") && e.contains("did you mean \"peak\"?"),
        "{e}"
    );
    let e = parse_err("[sweep\n");
    assert!(e.starts_with("sweeps/s.toml:1:"), "{e}");
    assert!(e.contains("invalid TOML"), "{e}");
}

#[test]
fn derived_values_and_figures() {
    let s = parse_ok(&format!(
        "{HEAD}[parameters]\narm = [0.04]\n[derived]\nhalf = \"arm / 2\"\nquarter = \"half / 2\"\n\
         [set]\n\"objects[0].min[2]\" = \"0.08 - half\"\n\"sources[0].waveform.type\" = '\"ricker\"'\n\
         [[figures]]\nname = \"z\"\nkind = \"impedance\"\nvoltage = \"gap\"\ncurrent = [\"a\", \"b\", \"c\", \"d\"]\nband = [0.5e9, 3e9]\n\
         [[figures]]\nname = \"p\"\nkind = \"peak\"\nprobe = \"gap\"\ncomponent = \"Ez\"\nband = [1e9, 2e9]\nper_source = true\n"
    ));
    assert_eq!(s.derived.len(), 2);
    assert_eq!(s.derived[1].key, "derived.quarter");
    assert!(matches!(&s.set[1].1.value, Setting::Literal(SceneValue::Str(x)) if x == "ricker"));
    assert_eq!(s.figures.len(), 2);
    assert!(matches!(&s.figures[1], Figure::Peak { per_source: true, .. }));
}

#[test]
fn paths_are_normalised() {
    assert_eq!(normalize(Path::new("a/b/../c")), Path::new("a/c"));
    assert_eq!(normalize(Path::new("./a/./b")), Path::new("a/b"));
    assert_eq!(normalize(Path::new("../a")), Path::new("../a"));
    assert_eq!(normalize(Path::new("a/../../b")), Path::new("../b"));
    assert_eq!(normalize(Path::new("/x/../y")), Path::new("/y"));
}

/// A sweep file's `directory` and `base` stay inside its folder (issue 19 item 7); the
/// command line may name any path.
#[test]
fn directory_and_base_are_confined_to_the_sweep_files_folder() {
    let tail = "[parameters]\na = { values = [1], key = \"domain.cell\" }\n";
    for (sweep, what) in [
        (
            "base = \"/etc/passwd\"",
            "sweep.base: the base scene path \"/etc/passwd\" is an absolute path",
        ),
        (
            "base = \"../../x.toml\"",
            "sweep.base: the base scene path \"../../x.toml\" leaves the sweep file's folder",
        ),
        ("base = \"a/../../x.toml\"", "leaves the sweep file's folder"),
        (
            "base = \"b.toml\"\ndirectory = \"/tmp/x\"",
            "sweep.directory: the directory \"/tmp/x\" is an absolute path",
        ),
        (
            "base = \"b.toml\"\ndirectory = \"../..\"",
            "sweep.directory: the directory \"../..\" leaves the sweep file's folder",
        ),
        (
            "base = \"b.toml\"\ndirectory = \"out/../../o\"",
            "leaves the sweep file's folder",
        ),
        (
            "base = \"b.toml\"\ndirectory = \"./.\"",
            "the directory is the sweep file's own folder",
        ),
    ] {
        let e = parse_err(&format!("[sweep]\n{sweep}\n{tail}"));
        assert!(e.starts_with("sweeps/s.toml:"), "{e}");
        assert!(e.contains(what), "{sweep}: {e}");
    }
    let e = parse_err(&format!("[sweep]\nbase = \"b.toml\"\ndirectory = \"/tmp/x\"\n{tail}"));
    assert!(e.contains("--directory PATH"), "{e}");
    // From the command line, anything goes; the file's keys are then not used.
    let o = Overrides {
        directory: Some("/tmp/elsewhere/out".into()),
        base: Some("../scenes/antenna.toml".into()),
    };
    let s = parse_with(
        &format!("[sweep]\nbase = \"/abs.toml\"\ndirectory = \"/x\"\n{tail}"),
        Path::new("sweeps/s.toml"),
        &o,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.directory, Path::new("/tmp/elsewhere/out"));
    assert_eq!(s.directory_anchor, Path::new("/tmp/elsewhere"));
    assert_eq!(s.base, Path::new("../scenes/antenna.toml"));
    let s = parse_ok(&format!("[sweep]\nbase = \"./b.toml\"\ndirectory = \"runs/a\"\n{tail}"));
    assert_eq!(s.directory, Path::new("sweeps/runs/a"));
    assert_eq!(s.directory_anchor, Path::new("sweeps"));
    assert_eq!(s.base, Path::new("sweeps/b.toml"));
}

/// Expressions too deep or too long are an error at the sweep file's line and column
/// (they used to overflow the stack).
#[test]
fn deep_expressions_are_errors_with_positions() {
    let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
    let e = parse_err(&format!(
        "{HEAD}[parameters]\na = [1]\n[set]\n\"domain.cell\" = \"{deep}\"\n"
    ));
    assert!(e.starts_with("sweeps/s.toml:6:"), "{}", &e[..200]);
    assert!(e.contains("more than 4096"), "{}", &e[..300]);
    let sum = vec!["a"; 300].join("+");
    let e = parse_err(&format!(
        "{HEAD}[parameters]\na = [1]\n[derived]\nb = \"{sum}\"\n[set]\n\"domain.cell\" = \"b\"\n"
    ));
    assert!(e.starts_with("sweeps/s.toml:6:"), "{}", &e[..200]);
    assert!(
        e.contains("derived.b:") && e.contains("nested too deeply"),
        "{}",
        &e[..200]
    );
}

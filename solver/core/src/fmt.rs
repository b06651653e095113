//! Number formatting for messages: SI prefixes, thousands separators, durations.

/// `x` with an SI prefix and 4 significant digits: `si(1.5e-3, "m")` = `1.5 mm`.
pub fn si(x: f64, unit: &str) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x} {unit}");
    }
    const PREFIXES: [(f64, &str); 9] = [
        (1e12, "T"),
        (1e9, "G"),
        (1e6, "M"),
        (1e3, "k"),
        (1.0, ""),
        (1e-3, "m"),
        (1e-6, "µ"),
        (1e-9, "n"),
        (1e-12, "p"),
    ];
    let a = x.abs();
    let (scale, p) = PREFIXES
        .iter()
        .copied()
        .find(|(s, _)| a >= *s * 0.999_95)
        .unwrap_or((1e-15, "f"));
    format!("{} {p}{unit}", sig(x / scale, 4))
}

/// `x` to `digits` significant digits, without trailing zeros.
pub fn sig(x: f64, digits: usize) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let mag = x.abs().log10().floor() as i32;
    let decimals = (digits as i32 - 1 - mag).max(0) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `[a, b, c]` of lengths as `1 mm × 2 mm × 1 mm`.
pub fn lengths(v: [f64; 3]) -> String {
    v.map(|x| si(x, "m")).join(" × ")
}

/// A position `(1 mm, 2 mm, 0 m)`.
pub fn point(v: [f64; 3]) -> String {
    format!("({})", v.map(|x| si(x, "m")).join(", "))
}

/// A frequency with its unit: `2 GHz`.
pub fn hz(f: f64) -> String {
    si(f, "Hz")
}

/// Seconds as `12.3 s`, `2 min 5 s`, `1 h 02 min`.
pub fn duration(s: f64) -> String {
    if s < 60.0 {
        format!("{} s", sig(s, 3))
    } else if s < 3600.0 {
        format!("{} min {:02.0} s", (s / 60.0).floor(), s % 60.0)
    } else {
        format!("{} h {:02.0} min", (s / 3600.0).floor(), (s % 3600.0) / 60.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(si(1.5e-3, "m"), "1.5 mm");
        assert_eq!(si(1e-3, "m"), "1 mm");
        assert_eq!(si(1.906e-12, "s"), "1.906 ps");
        assert_eq!(si(2e9, "Hz"), "2 GHz");
        assert_eq!(si(0.02, "m"), "20 mm");
        assert_eq!(si(0.0, "m"), "0 m");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(999), "999");
        assert_eq!(sig(12.345, 3), "12.3");
        assert_eq!(duration(125.0), "2 min 05 s");
    }
}

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
    if !(1e-15..1e15).contains(&a) {
        return format!("{} {unit}", sig(x, 4));
    }
    let (scale, p) = PREFIXES
        .iter()
        .copied()
        .find(|(s, _)| a >= *s * 0.999_95)
        .unwrap_or((1e-15, "f"));
    format!("{} {p}{unit}", sig(x / scale, 4))
}

/// `x` to `digits` significant digits, without trailing zeros; in scientific notation
/// (`1.23e308`) outside 1e-6..1e15, so no value prints with hundreds of digits.
pub fn sig(x: f64, digits: usize) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let digits = digits.clamp(1, 17);
    let mag = x.abs().log10().floor() as i32;
    if !(-6..15).contains(&mag) {
        let s = format!("{:.*e}", digits - 1, x);
        // Trailing zeros of the mantissa: 1.500e9 → 1.5e9.
        return match s.split_once('e') {
            Some((m, e)) if m.contains('.') => format!("{}e{e}", m.trim_end_matches('0').trim_end_matches('.')),
            _ => s,
        };
    }
    let decimals = (digits as i32 - 1 - mag).max(0) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// `x` with `decimals` decimals (`{:.2}`) while that is short, else [`sig`] to 6
/// digits: a level or a percentage read from a file may be 1e308.
pub fn fixed(x: f64, decimals: usize) -> String {
    if x.is_finite() && x.abs() < 1e9 {
        format!("{x:.decimals$}")
    } else {
        sig(x, 6)
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

/// `1.50 GiB`-style sizes.
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.2} {}", UNITS[u])
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

    #[test]
    fn extreme_values_print_in_few_digits() {
        assert_eq!(sig(1e308, 4), "1e308");
        assert_eq!(sig(-1.5e-300, 4), "-1.5e-300");
        assert_eq!(sig(f64::MIN_POSITIVE * 1e-10, 3), "2.23e-318");
        assert_eq!(sig(123456.0, 3), "123456");
        assert_eq!(sig(2.5e-6, 3), "0.0000025");
        assert_eq!(si(1e308, "Ω"), "1e308 Ω");
        assert_eq!(fixed(-6000.0, 1), "-6000.0");
        assert_eq!(fixed(1e308, 2), "1e308");
        for x in [1e308, -1e300, 1e-300, 5e-324, 1.7976931348623157e308, 123.456] {
            assert!(
                sig(x, 4).len() <= 12 && si(x, "m").len() <= 16 && fixed(x, 2).len() <= 16,
                "{x}"
            );
        }
    }
}

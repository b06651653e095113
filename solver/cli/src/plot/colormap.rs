//! Colours: a symmetric diverging map for fields (blue, white at zero, red) and fixed
//! colours for materials (vacuum white, PEC dark grey, then a qualitative palette).
use plotters::style::RGBColor;

/// Control points of the diverging map on [-1, 1] (ColorBrewer RdBu, reversed).
const RDBU: [(f64, [u8; 3]); 9] = [
    (-1.0, [5, 48, 97]),
    (-0.75, [33, 102, 172]),
    (-0.5, [67, 147, 195]),
    (-0.25, [146, 197, 222]),
    (0.0, [247, 247, 247]),
    (0.25, [244, 165, 130]),
    (0.5, [214, 96, 77]),
    (0.75, [178, 24, 43]),
    (1.0, [103, 0, 31]),
];

/// The colour of `x` in [-1, 1] (clamped); NaN is mid grey.
pub fn diverging(x: f64) -> RGBColor {
    if x.is_nan() {
        return RGBColor(128, 128, 128);
    }
    let x = x.clamp(-1.0, 1.0);
    let i = RDBU.iter().rposition(|(p, _)| *p <= x).unwrap_or(0).min(RDBU.len() - 2);
    let (p0, c0) = RDBU[i];
    let (p1, c1) = RDBU[i + 1];
    let t = (x - p0) / (p1 - p0);
    let mix = |a: u8, b: u8| (a as f64 + t * (b as f64 - a as f64)).round() as u8;
    RGBColor(mix(c0[0], c1[0]), mix(c0[1], c1[1]), mix(c0[2], c1[2]))
}

/// Tableau 10, for materials after vacuum and PEC.
const PALETTE: [[u8; 3]; 10] = [
    [78, 121, 167],
    [242, 142, 43],
    [89, 161, 79],
    [225, 87, 89],
    [176, 122, 161],
    [237, 201, 72],
    [118, 183, 178],
    [255, 157, 167],
    [156, 117, 95],
    [186, 176, 172],
];

/// The colour of scene material `index` (0 vacuum, 1 PEC, as in every scene) in
/// geometry plots.
pub fn material_colour(index: usize) -> RGBColor {
    match index {
        0 => RGBColor(255, 255, 255),
        1 => RGBColor(64, 64, 64),
        i => {
            let c = PALETTE[(i - 2) % PALETTE.len()];
            RGBColor(c[0], c[1], c[2])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diverging_is_white_at_zero_and_symmetric_in_lightness() {
        assert_eq!(diverging(0.0), RGBColor(247, 247, 247));
        assert_eq!(diverging(1.0), RGBColor(103, 0, 31));
        assert_eq!(diverging(-2.0), RGBColor(5, 48, 97));
        let lum = |c: RGBColor| 0.3 * c.0 as f64 + 0.59 * c.1 as f64 + 0.11 * c.2 as f64;
        for x in [0.25, 0.5, 0.75] {
            assert!((lum(diverging(x)) - lum(diverging(-x))).abs() < 40.0);
        }
    }
}

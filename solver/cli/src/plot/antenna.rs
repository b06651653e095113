//! Antenna figures: a driven port's |S| in dB (with the −10 dB line), its input
//! impedance and a Smith chart; an undriven port's transmission |S| and phase (no
//! −10 dB line, no Smith chart: those are about reflection); a far field's principal-plane cuts as polar patterns (dBi) and its
//! directivity over the (θ, φ) grid as a colour map.
//!
//! Polar panels are in normalised Cartesian coordinates: the point at angle ψ of a cut
//! with level L dBi sits at radius ρ = (L − floor)/(top − floor), clamped to [0, 1], at
//! (ρ·sin ψ, ρ·cos ψ) for the φ cuts (ψ = θ from +z, up, towards +x or +y, right) and at
//! (ρ·cos φ, ρ·sin φ) for the θ = 90° cut (x right, y up). `top` is the largest value
//! over the cuts rounded up to 1 dB; `floor` is `top − POLAR_RANGE_DB`.
use super::font::{ensure, FAMILY};
use super::series::COLOURS;
use super::{axis, draw_err, panel_of, si_scale, Canvas, Figure, Panel, PlotError};
use crate::fmt::{fixed, hz, sig};
use crate::output::read::{FarFieldInfo, PortInfo};
use fdtd_core::farfield::{principal_cuts, Cut};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// The dynamic range of a polar pattern (dB).
pub const POLAR_RANGE_DB: f64 = 40.0;
/// The lowest level of a θ–φ map's colour scale below its peak (dB).
pub const MAP_RANGE_DB: f64 = 30.0;

fn axes_style<'a, DB: DrawingBackend>(
    chart: &mut super::Chart<'a, DB>,
    x: &str,
    y: &str,
    xfmt: &dyn Fn(&f64) -> String,
) -> Result<(), PlotError> {
    chart
        .configure_mesh()
        .x_desc(x)
        .y_desc(y)
        .x_label_formatter(xfmt)
        .light_line_style(BLACK.mix(0.05))
        .bold_line_style(BLACK.mix(0.15))
        .label_style((FAMILY, 12).into_font())
        .axis_desc_style((FAMILY, 13).into_font())
        .draw()
        .map_err(draw_err("the axes"))
}

fn legend<'a, DB: DrawingBackend + 'a>(
    chart: &mut super::Chart<'a, DB>,
    pos: SeriesLabelPosition,
) -> Result<(), PlotError> {
    chart
        .configure_series_labels()
        .position(pos)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.4))
        .label_font((FAMILY, 12).into_font())
        .draw()
        .map_err(draw_err("the legend"))
}

fn range(v: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = v
        .filter(|x| x.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
    if !lo.is_finite() {
        return (-1.0, 1.0);
    }
    let span = (hi - lo).max(1e-9 * hi.abs().max(1.0));
    (lo - 0.05 * span, hi + 0.05 * span)
}

/// One port's figure: |S| (dB) against frequency with the −10 dB line, Z = R + jX
/// against frequency, and the reflection coefficient on a Smith chart (Z0 of the port).
/// Panels: `S_dB`, `Z`, `smith` (x = Re Γ, y = Im Γ). An undriven port gets the
/// transmission figure instead (panels `S_dB`, `phase`; see `transmission_png`).
pub fn port_png(p: &PortInfo, path: &Path) -> Result<Figure, PlotError> {
    ensure();
    if p.frequency.is_empty() {
        return Err(PlotError::Data(format!("port {} has no frequencies", p.name)));
    }
    if !p.driven {
        return transmission_png(p, path);
    }
    // Only the frequencies the run resolves are drawn (the others are noise outside the
    // drive's band, and would put a false minimum on the chart).
    let kept: Vec<usize> = (0..p.frequency.len())
        .filter(|&i| p.resolved.get(i).copied().unwrap_or(true))
        .collect();
    if kept.is_empty() {
        return Err(PlotError::Data(format!(
            "port {}: the run resolves none of its frequencies (all outside the drive's band): no figure",
            p.name
        )));
    }
    let pick = |v: &[[f64; 2]]| kept.iter().filter_map(|&i| v.get(i).copied()).collect::<Vec<_>>();
    let resolved_only = PortInfo {
        frequency: kept.iter().map(|&i| p.frequency[i]).collect(),
        z: pick(&p.z),
        s: pick(&p.s),
        s_db: kept.iter().filter_map(|&i| p.s_db.get(i).copied()).collect(),
        resolved: Vec::new(),
        ..p.clone()
    };
    let p = &resolved_only;
    let (width, height) = (1200u32, 940u32);
    let f0 = p.frequency.iter().copied().fold(f64::INFINITY, f64::min);
    let f1 = p.frequency.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (f0, f1) = if f1 > f0 {
        axis(f0, f1)
    } else {
        axis(f0 * 0.99, f0 * 1.01 + 1.0)
    };
    let (fs, fp) = si_scale(f1);
    let ffmt = move |f: &f64| sig(f * fs, 4);
    let sname = if p.driven { "S11" } else { "S (to the driven port)" };
    let mut canvas = Canvas::new(width, height);
    let mut panels = Vec::new();
    {
        let root = BitMapBackend::with_buffer(&mut canvas.rgb, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err("the background"))?;
        let title = format!(
            "port {}: {} and input impedance (Z0 = {} Ω{})",
            p.name,
            sname,
            sig(p.z0, 4),
            if p.driven { ", driven" } else { ", matched load" }
        );
        let root = root
            .titled(&title, (FAMILY, 18).into_font())
            .map_err(draw_err("the title"))?;
        let (top, bottom) = root.split_vertically(430);
        let (left, right) = bottom.split_horizontally(width - 480);

        // |S| in dB.
        let lo = p
            .s_db
            .iter()
            .copied()
            .filter(|x| x.is_finite())
            .fold(-10.0, f64::min)
            .max(-80.0);
        let y = ((lo / 5.0).floor() * 5.0 - 2.0, 2.0);
        let mut chart = ChartBuilder::on(&top)
            .margin(10)
            .margin_right(24)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(f0..f1, y.0..y.1)
            .map_err(draw_err("the S panel"))?;
        axes_style(
            &mut chart,
            &format!("frequency ({fp}Hz)"),
            &format!("|{sname}| (dB)"),
            &ffmt,
        )?;
        let grey = BLACK.mix(0.6).stroke_width(1);
        chart
            .draw_series(DashedLineSeries::new([(f0, -10.0), (f1, -10.0)], 6, 4, grey))
            .map_err(draw_err("the −10 dB line"))?
            .label("−10 dB")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], grey));
        let blue = COLOURS[0];
        chart
            .draw_series(LineSeries::new(
                // A NaN |S| (no drive) is left out, not drawn at the floor as a level.
                p.frequency
                    .iter()
                    .zip(&p.s_db)
                    .filter(|(_, d)| d.is_finite())
                    .map(|(&f, &d)| (f, d.max(y.0))),
                blue.stroke_width(2),
            ))
            .map_err(draw_err("|S|"))?
            .label(format!("|{sname}|"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], blue.stroke_width(2)));
        legend(&mut chart, SeriesLabelPosition::LowerRight)?;
        panels.push(panel_of("S_dB", &chart, (f0, f1), y));

        // Z = R + jX.
        let zr = range(p.z.iter().flat_map(|z| [z[0], z[1]]).chain([0.0]));
        let zr = axis(zr.0, zr.1);
        let mut chart = ChartBuilder::on(&left)
            .margin(10)
            .margin_right(24)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(f0..f1, zr.0..zr.1)
            .map_err(draw_err("the Z panel"))?;
        axes_style(&mut chart, &format!("frequency ({fp}Hz)"), "Z_in (Ω)", &ffmt)?;
        chart
            .draw_series(LineSeries::new([(f0, 0.0), (f1, 0.0)], BLACK.mix(0.4)))
            .map_err(draw_err("the zero line"))?;
        for (k, (label, part)) in [("R = Re Z", 0usize), ("X = Im Z", 1)].into_iter().enumerate() {
            let c = COLOURS[k];
            chart
                .draw_series(LineSeries::new(
                    p.frequency.iter().zip(&p.z).map(|(&f, z)| (f, z[part])),
                    c.stroke_width(2),
                ))
                .map_err(draw_err("Z"))?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        panels.push(panel_of("Z", &chart, (f0, f1), zr));

        // Smith chart.
        panels.push(smith(&right, p)?);
        root.present().map_err(draw_err("the figure"))?;
    }
    canvas.save_png(path)?;
    Ok(Figure {
        path: path.to_path_buf(),
        width,
        height,
        panels,
    })
}

/// The frequency where |S| is lowest, and the band around it where |S| ≤ `level` dB
/// (ends interpolated linearly between samples; None when the minimum is above `level`).
/// An end at the first or last sample means the band runs past the data.
pub fn band_below(freq: &[f64], s_db: &[f64], level: f64) -> Option<(usize, f64, f64)> {
    let n = freq.len().min(s_db.len());
    let (i, min) = s_db[..n]
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, d)| d.is_finite())
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    if min > level {
        return None;
    }
    let cross = |a: usize, b: usize| {
        if !s_db[b].is_finite() {
            // No level there (NaN S): the band ends at the last sample that has one.
            return freq[a];
        }
        let t = (level - s_db[a]) / (s_db[b] - s_db[a]);
        freq[a] + t * (freq[b] - freq[a])
    };
    let outside = |d: f64| d.is_nan() || d > level;
    let mut lo = freq[i];
    let mut j = i;
    while j > 0 {
        if outside(s_db[j - 1]) {
            lo = cross(j - 1, j);
            break;
        }
        j -= 1;
        lo = freq[j];
    }
    let mut hi = freq[i];
    let mut j = i;
    while j + 1 < n {
        if outside(s_db[j + 1]) {
            hi = cross(j, j + 1);
            break;
        }
        j += 1;
        hi = freq[j];
    }
    Some((i, lo, hi))
}

/// An undriven port's figure: its S is a transmission term (from the driven port into
/// this matched load), so no −10 dB line, no input impedance and no Smith chart (which
/// are about reflection): |S| in dB and its phase (degrees, unwrapped). Frequencies the
/// run does not resolve (`resolved`) are left out of both curves.
fn transmission_png(p: &PortInfo, path: &Path) -> Result<Figure, PlotError> {
    let (width, height) = (1200u32, 820u32);
    let f0 = p.frequency.iter().copied().fold(f64::INFINITY, f64::min);
    let f1 = p.frequency.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (f0, f1) = if f1 > f0 {
        axis(f0, f1)
    } else {
        axis(f0 * 0.99, f0 * 1.01 + 1.0)
    };
    let (fs, fp) = si_scale(f1);
    let ffmt = move |f: &f64| sig(f * fs, 4);
    let n = p.frequency.len().min(p.s.len()).min(p.s_db.len());
    let shown = |i: &usize| p.s_db[*i].is_finite() && p.resolved.get(*i).copied().unwrap_or(true);
    // The phase, unwrapped along the shown frequencies.
    let mut phase: Vec<(f64, f64)> = Vec::new();
    for i in (0..n).filter(shown) {
        let mut a = p.s[i][1].atan2(p.s[i][0]).to_degrees();
        if let Some(&(_, prev)) = phase.last() {
            a += 360.0 * ((prev - a) / 360.0).round();
        }
        phase.push((p.frequency[i], a));
    }
    let db: Vec<(f64, f64)> = (0..n).filter(shown).map(|i| (p.frequency[i], p.s_db[i])).collect();
    let mut canvas = Canvas::new(width, height);
    let mut panels = Vec::new();
    {
        let root = BitMapBackend::with_buffer(&mut canvas.rgb, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err("the background"))?;
        let title = format!(
            "port {}: transmission S from the driven port (matched load, Z0 = {} Ω)",
            p.name,
            sig(p.z0, 4)
        );
        let root = root
            .titled(&title, (FAMILY, 18).into_font())
            .map_err(draw_err("the title"))?;
        let (top, bottom) = root.split_vertically(400);
        let hi = db.iter().map(|x| x.1).fold(-40.0, f64::max).min(40.0);
        let lo = db.iter().map(|x| x.1).fold(hi - 10.0, f64::min).max(hi - 100.0);
        let y = ((lo / 5.0).floor() * 5.0, (hi / 5.0).ceil() * 5.0 + 2.0);
        let blue = COLOURS[0];
        let mut chart = ChartBuilder::on(&top)
            .margin(10)
            .margin_right(24)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(f0..f1, y.0..y.1)
            .map_err(draw_err("the S panel"))?;
        axes_style(&mut chart, &format!("frequency ({fp}Hz)"), "|S| (dB)", &ffmt)?;
        chart
            .draw_series(LineSeries::new(
                db.iter().map(|&(f, d)| (f, d.max(y.0))),
                blue.stroke_width(2),
            ))
            .map_err(draw_err("|S|"))?
            .label("|S|")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], blue.stroke_width(2)));
        legend(&mut chart, SeriesLabelPosition::LowerRight)?;
        panels.push(panel_of("S_dB", &chart, (f0, f1), y));
        let pr = range(phase.iter().map(|x| x.1).chain([0.0]));
        let pr = axis(pr.0, pr.1);
        let mut chart = ChartBuilder::on(&bottom)
            .margin(10)
            .margin_right(24)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(f0..f1, pr.0..pr.1)
            .map_err(draw_err("the phase panel"))?;
        axes_style(
            &mut chart,
            &format!("frequency ({fp}Hz)"),
            "arg S (degrees, unwrapped)",
            &ffmt,
        )?;
        chart
            .draw_series(LineSeries::new(phase.iter().copied(), blue.stroke_width(2)))
            .map_err(draw_err("arg S"))?;
        panels.push(panel_of("phase", &chart, (f0, f1), pr));
        root.present().map_err(draw_err("the figure"))?;
    }
    canvas.save_png(path)?;
    Ok(Figure {
        path: path.to_path_buf(),
        width,
        height,
        panels,
    })
}

/// Γ of the normalised impedance z.
fn gamma(r: f64, x: f64) -> (f64, f64) {
    // (z − 1)/(z + 1)
    let (a, b) = (r - 1.0, x);
    let (c, d) = (r + 1.0, x);
    let den = c * c + d * d;
    ((a * c + b * d) / den, (b * c - a * d) / den)
}

fn smith<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: &PortInfo) -> Result<Panel, PlotError> {
    let lim = (-1.08, 1.08);
    let mut chart = ChartBuilder::on(area)
        .caption("Smith chart (Γ)", (FAMILY, 14).into_font())
        .margin(16)
        .build_cartesian_2d(lim.0..lim.1, lim.0..lim.1)
        .map_err(draw_err("the Smith chart"))?;
    let grid = BLACK.mix(0.25);
    let circle = |c: (f64, f64), r: f64| {
        (0..=180).map(move |i| {
            let a = i as f64 * std::f64::consts::TAU / 180.0;
            (c.0 + r * a.cos(), c.1 + r * a.sin())
        })
    };
    chart
        .draw_series(LineSeries::new(circle((0.0, 0.0), 1.0), BLACK.mix(0.7)))
        .map_err(draw_err("the Smith chart"))?;
    chart
        .draw_series(LineSeries::new([(-1.0, 0.0), (1.0, 0.0)], grid))
        .map_err(draw_err("the Smith chart"))?;
    for r in [0.2, 0.5, 1.0, 2.0, 5.0] {
        chart
            .draw_series(LineSeries::new(circle((r / (1.0 + r), 0.0), 1.0 / (1.0 + r)), grid))
            .map_err(draw_err("the Smith chart"))?;
    }
    for x in [0.2, 0.5, 1.0, 2.0, 5.0] {
        for s in [1.0, -1.0] {
            let pts = (0..=200).map(|i| {
                let r = (10f64).powf(-3.0 + 5.0 * i as f64 / 200.0);
                gamma(r, s * x)
            });
            let pts: Vec<(f64, f64)> = std::iter::once(gamma(0.0, s * x)).chain(pts).collect();
            chart
                .draw_series(LineSeries::new(pts, grid))
                .map_err(draw_err("the Smith chart"))?;
        }
    }
    let blue = COLOURS[0];
    chart
        .draw_series(LineSeries::new(p.s.iter().map(|s| (s[0], s[1])), blue.stroke_width(2)))
        .map_err(draw_err("Γ"))?;
    if let Some((i, _)) = p
        .s_db
        .iter()
        .enumerate()
        .filter(|(_, d)| d.is_finite())
        .min_by(|a, b| a.1.total_cmp(b.1))
    {
        let (Some(s), Some(f)) = (p.s.get(i), p.frequency.get(i)) else {
            return Ok(panel_of("smith", &chart, lim, lim));
        };
        chart
            .draw_series([Circle::new((s[0], s[1]), 4, COLOURS[1].filled())])
            .map_err(draw_err("the minimum"))?;
        chart
            .draw_series([Text::new(
                format!("min at {}", hz(*f)),
                (s[0] + 0.04, s[1] - 0.04),
                (FAMILY, 12).into_font(),
            )])
            .map_err(draw_err("the minimum"))?;
    }
    Ok(panel_of("smith", &chart, lim, lim))
}

/// Where a cut's point (angle ψ in degrees, radius ρ in [0, 1]) is drawn in its polar
/// panel (see the module doc).
pub fn polar_xy(cut_label: &str, psi_deg: f64, rho: f64) -> (f64, f64) {
    let a = psi_deg.to_radians();
    if cut_label.starts_with("xy") {
        (rho * a.cos(), rho * a.sin())
    } else {
        (rho * a.sin(), rho * a.cos())
    }
}

/// The radius of level `v` (dB) on a polar panel of outer level `top`.
pub fn polar_rho(v: f64, top: f64) -> f64 {
    ((v - (top - POLAR_RANGE_DB)) / POLAR_RANGE_DB).clamp(0.0, 1.0)
}

/// A sequential colour scale (viridis control points) for x in [0, 1].
fn sequential(x: f64) -> RGBColor {
    const V: [[u8; 3]; 6] = [
        [68, 1, 84],
        [65, 68, 135],
        [42, 120, 142],
        [34, 168, 132],
        [122, 209, 81],
        [253, 231, 37],
    ];
    let x = if x.is_finite() { x.clamp(0.0, 1.0) } else { 0.0 };
    let t = x * (V.len() - 1) as f64;
    let i = (t.floor() as usize).min(V.len() - 2);
    let f = t - i as f64;
    let m = |a: u8, b: u8| (a as f64 + f * (b as f64 - a as f64)).round() as u8;
    RGBColor(
        m(V[i][0], V[i + 1][0]),
        m(V[i][1], V[i + 1][1]),
        m(V[i][2], V[i + 1][2]),
    )
}

/// One far field at one frequency: the three principal-plane cuts of `values` (dBi,
/// `[theta][phi]` over `ff`'s grid) as polar patterns and the whole grid as a θ–φ map.
/// `what` names the quantity (`directivity`). Panels: one per cut (named by the cut's
/// label, data coordinates as in the module doc) and `map` (x = φ, y = θ, degrees).
pub fn farfield_png(
    ff: &FarFieldInfo,
    freq_index: usize,
    values: &[f64],
    what: &str,
    path: &Path,
) -> Result<Figure, PlotError> {
    ensure();
    let (nt, np) = (ff.theta.len(), ff.phi.len());
    if values.len() != nt * np || values.is_empty() {
        return Err(PlotError::Data(format!(
            "far field {}: {} values for a {nt} × {np} grid",
            ff.name,
            values.len()
        )));
    }
    let cuts = principal_cuts(&ff.theta, &ff.phi, values);
    let (width, height) = (1200u32, 1160u32);
    let freq = ff.freq.get(freq_index).copied().unwrap_or(f64::NAN);
    let peak = values
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .fold(f64::NEG_INFINITY, f64::max);
    let mut canvas = Canvas::new(width, height);
    let mut panels = Vec::new();
    {
        let root = BitMapBackend::with_buffer(&mut canvas.rgb, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err("the background"))?;
        let unit = unit_of(what);
        let mut title = format!(
            "far field {} at {}: {what}, peak {} {unit}",
            ff.name,
            hz(freq),
            fixed(peak, 2)
        );
        if let Some(m) = ff.monostatic_rcs_dbsm.as_ref().and_then(|m| m.get(freq_index)) {
            title += &format!(", monostatic {} dBsm", fixed(*m, 2));
        }
        if let Some(p) = ff.radiated_power.get(freq_index).filter(|_| unit == "dBi") {
            title += &format!(", P_rad {}", crate::fmt::si(*p, "W"));
        }
        if let Some(e) = ff.efficiency.as_ref().and_then(|e| e.get(freq_index)) {
            title += &format!(", efficiency {} %", fixed(100.0 * e, 1));
        }
        let root = root
            .titled(&title, (FAMILY, 17).into_font())
            .map_err(draw_err("the title"))?;
        let areas = root.split_evenly((2, 2));
        let top = (peak.max(-200.0)).ceil();
        for (cut, area) in cuts.iter().zip(&areas) {
            panels.push(polar(area, cut, top)?);
        }
        panels.push(map(&areas[3], ff, values, peak, what)?);
        root.present().map_err(draw_err("the figure"))?;
    }
    canvas.save_png(path)?;
    Ok(Figure {
        path: path.to_path_buf(),
        width,
        height,
        panels,
    })
}

/// The unit of a far-field quantity's values: dBsm for a radar cross section, else dBi.
fn unit_of(what: &str) -> &'static str {
    if what.starts_with("RCS") {
        "dBsm"
    } else {
        "dBi"
    }
}

fn polar<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, cut: &Cut, top: f64) -> Result<Panel, PlotError> {
    let lim = (-1.2, 1.2);
    let (w, h) = area.dim_in_pixel();
    // A square plotting area: pad the longer side.
    let side = w.min(h.saturating_sub(30));
    let area = area.margin(
        (h.saturating_sub(side + 30)) / 2 + 24,
        (h.saturating_sub(side + 30)) / 2,
        (w - side) / 2,
        (w - side) / 2,
    );
    let mut chart = ChartBuilder::on(&area)
        .caption(&cut.label, (FAMILY, 14).into_font())
        .margin(4)
        .build_cartesian_2d(lim.0..lim.1, lim.0..lim.1)
        .map_err(draw_err("a polar pattern"))?;
    let grid = BLACK.mix(0.2);
    let ring = |r: f64| {
        (0..=180).map(move |i| {
            let a = i as f64 * std::f64::consts::TAU / 180.0;
            (r * a.cos(), r * a.sin())
        })
    };
    for k in 0..=4 {
        let rho = k as f64 / 4.0;
        let style = if k == 4 { BLACK.mix(0.6) } else { grid };
        chart
            .draw_series(LineSeries::new(ring(rho), style))
            .map_err(draw_err("a polar grid"))?;
        if k > 0 {
            let level = top - POLAR_RANGE_DB * (1.0 - rho);
            let (x, y) = polar_xy(&cut.label, 20.0, rho);
            chart
                .draw_series([Text::new(
                    fixed(level, 0),
                    (x, y),
                    (FAMILY, 11).into_font().color(&BLACK.mix(0.6)),
                )])
                .map_err(draw_err("a polar label"))?;
        }
    }
    for k in 0..12 {
        let a = k as f64 * 30.0;
        chart
            .draw_series(LineSeries::new(
                [polar_xy(&cut.label, a, 0.0), polar_xy(&cut.label, a, 1.0)],
                grid,
            ))
            .map_err(draw_err("a polar grid"))?;
        let (x, y) = polar_xy(&cut.label, a, 1.1);
        chart
            .draw_series([Text::new(
                format!("{a:.0}°"),
                (x - 0.06, y + 0.03),
                (FAMILY, 11).into_font(),
            )])
            .map_err(draw_err("a polar label"))?;
    }
    let mut pts: Vec<(f64, f64)> = cut
        .angle
        .iter()
        .zip(&cut.values)
        .map(|(&a, &v)| polar_xy(&cut.label, a, polar_rho(v, top)))
        .collect();
    // Close the curve when the cut spans the whole turn.
    if cut.angle.first().is_some_and(|a| *a < 1e-9) && cut.angle.last().is_some_and(|a| *a > 180.0) {
        pts.push(pts[0]);
    }
    chart
        .draw_series(LineSeries::new(pts, COLOURS[1].stroke_width(2)))
        .map_err(draw_err("a pattern"))?;
    let (a, b) = if cut.label.starts_with("xy") {
        ("+x", "+y")
    } else {
        ("+z", if cut.label.starts_with("xz") { "+x" } else { "+y" })
    };
    let (ax, ay) = if cut.label.starts_with("xy") {
        (1.12, -0.07)
    } else {
        (0.08, 1.17)
    };
    let (bx, by) = if cut.label.starts_with("xy") {
        (0.08, 1.17)
    } else {
        (1.12, -0.07)
    };
    chart
        .draw_series([
            Text::new(a.to_string(), (ax, ay), (FAMILY, 12).into_font()),
            Text::new(b.to_string(), (bx, by), (FAMILY, 12).into_font()),
        ])
        .map_err(draw_err("a polar label"))?;
    Ok(panel_of(&cut.label, &chart, lim, lim))
}

fn map<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    ff: &FarFieldInfo,
    values: &[f64],
    peak: f64,
    what: &str,
) -> Result<Panel, PlotError> {
    let (w, _) = area.dim_in_pixel();
    let (main, bar) = area.split_horizontally(w.saturating_sub(90));
    let (np, nt) = (ff.phi.len(), ff.theta.len());
    let p0 = ff.phi.first().copied().unwrap_or(0.0);
    let p1 = ff.phi.last().copied().unwrap_or(360.0);
    let t0 = ff.theta.first().copied().unwrap_or(0.0);
    let t1 = ff.theta.last().copied().unwrap_or(180.0);
    // Cell edges halfway between grid angles.
    let edges = |v: &[f64], i: usize| {
        let lo = if i == 0 { v[0] } else { 0.5 * (v[i - 1] + v[i]) };
        let hi = if i + 1 == v.len() {
            v[i]
        } else {
            0.5 * (v[i] + v[i + 1])
        };
        (lo, hi)
    };
    let x = axis(p0, if p1 > p0 { p1 } else { p0 + 1.0 });
    let y = axis(t1.max(t0 + 1.0), t0);
    let mut chart = ChartBuilder::on(&main)
        .caption(
            format!("{what} over the sphere ({})", unit_of(what)),
            (FAMILY, 14).into_font(),
        )
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(52)
        .build_cartesian_2d(x.0..x.1, y.0..y.1)
        .map_err(draw_err("the θ–φ map"))?;
    let (lo, peak) = axis(peak - MAP_RANGE_DB, peak);
    let mut rects = Vec::with_capacity(nt * np);
    for i in 0..nt {
        let (ta, tb) = edges(&ff.theta, i);
        for j in 0..np {
            let (pa, pb) = edges(&ff.phi, j);
            let c = sequential((values[i * np + j] - lo) / MAP_RANGE_DB);
            rects.push(Rectangle::new([(pa, ta), (pb, tb)], c.filled()));
        }
    }
    chart.draw_series(rects).map_err(draw_err("the θ–φ map"))?;
    let dfmt = |v: &f64| fixed(*v, 0);
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("φ (°)")
        .y_desc("θ (°)")
        .x_label_formatter(&dfmt)
        .y_label_formatter(&dfmt)
        .label_style((FAMILY, 12).into_font())
        .axis_desc_style((FAMILY, 13).into_font())
        .draw()
        .map_err(draw_err("the map axes"))?;
    let panel = panel_of("map", &chart, x, y);
    let mut cb = ChartBuilder::on(&bar)
        .margin_top(40)
        .margin_bottom(50)
        .margin_right(4)
        .set_label_area_size(LabelAreaPosition::Right, 44)
        .build_cartesian_2d(0.0..1.0, lo..peak)
        .map_err(draw_err("the colour bar"))?;
    cb.configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_label_formatter(&|v: &f64| fixed(*v, 0))
        .label_style((FAMILY, 11).into_font())
        .draw()
        .map_err(draw_err("the colour bar"))?;
    let steps = 64;
    cb.draw_series((0..steps).map(|i| {
        let a = lo + MAP_RANGE_DB * i as f64 / steps as f64;
        let b = lo + MAP_RANGE_DB * (i + 1) as f64 / steps as f64;
        Rectangle::new(
            [(0.0, a), (1.0, b)],
            sequential((i as f64 + 0.5) / steps as f64).filled(),
        )
    }))
    .map_err(draw_err("the colour bar"))?;
    Ok(panel)
}

//! A cross section's spectra: σ_ext, σ_sca and σ_abs (m², on a logarithmic axis) over
//! frequency, the frequencies the run does not resolve left out.
use super::font::{ensure, FAMILY};
use super::series::COLOURS;
use super::{axis, draw_err, panel_of, si_scale, Canvas, Figure, Panel, PlotError};
use crate::fmt::sig;
use crate::output::read::CrossSectionInfo;
use plotters::prelude::*;
use std::path::Path;

/// The figure of one `/cross_sections/<name>` group. One panel, `cross_section`
/// (x: frequency in Hz, y: log10 of σ in m²).
pub fn cross_section_png(c: &CrossSectionInfo, path: &Path) -> Result<Figure, PlotError> {
    ensure();
    let ok = |k: usize| c.resolved.get(k).copied().unwrap_or(c.resolved.is_empty());
    let curves: [(&str, &Vec<f64>); 3] = [
        ("extinction", &c.extinction),
        ("scattering", &c.scattering),
        ("absorption", &c.absorption),
    ];
    let points: Vec<Vec<(f64, f64)>> = curves
        .iter()
        .map(|(_, v)| {
            (0..c.freq.len())
                .filter(|&k| ok(k) && v[k].is_finite() && v[k] > 0.0 && c.freq[k].is_finite())
                .map(|k| (c.freq[k], v[k].log10()))
                .collect()
        })
        .collect();
    let all: Vec<&(f64, f64)> = points.iter().flatten().collect();
    if all.is_empty() {
        return Err(PlotError::Data(format!(
            "cross section {}: no resolved frequency with a positive cross section",
            c.name
        )));
    }
    let (f0, f1) = all
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let top = all.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    // At most six decades below the largest σ: a lossless target's σ_abs is rounding.
    let bottom = all.iter().map(|p| p.1).fold(f64::INFINITY, f64::min).max(top - 6.0);
    let (y0, y1) = ((bottom - 0.1).floor(), (top + 0.1).ceil());
    let (x0, x1) = axis(f0, f1.max(f0 * 1.000001 + 1.0));
    let (fs, fp) = si_scale(x1);
    let (width, height) = (900u32, 560u32);
    let mut canvas = Canvas::new(width, height);
    let panel: Panel;
    {
        let root = BitMapBackend::with_buffer(&mut canvas.rgb, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err("the background"))?;
        let root = root
            .titled(
                &format!("cross section {} (plane wave {})", c.name, c.plane_wave),
                (FAMILY, 18).into_font(),
            )
            .map_err(draw_err("the title"))?;
        let fmt_x = move |f: &f64| sig(f * fs, 4);
        let fmt_y = |y: &f64| format!("1e{}", y.round() as i64);
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .margin_right(24)
            .x_label_area_size(40)
            .y_label_area_size(72)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(draw_err("the panel"))?;
        chart
            .configure_mesh()
            .x_desc(format!("frequency ({fp}Hz)"))
            .y_desc("σ (m²)")
            .x_label_formatter(&fmt_x)
            .y_label_formatter(&fmt_y)
            .y_labels((y1 - y0) as usize + 1)
            .light_line_style(BLACK.mix(0.05))
            .bold_line_style(BLACK.mix(0.15))
            .label_style((FAMILY, 12).into_font())
            .axis_desc_style((FAMILY, 13).into_font())
            .draw()
            .map_err(draw_err("the axes"))?;
        for (k, ((label, _), pts)) in curves.iter().zip(&points).enumerate() {
            let colour = COLOURS[k % COLOURS.len()];
            chart
                // Below the axis (rounding, for a lossless target): not drawn.
                .draw_series(LineSeries::new(
                    pts.iter().filter(|p| p.1 >= y0).map(|&(f, y)| (f, y.min(y1))),
                    colour.stroke_width(2),
                ))
                .map_err(draw_err("a spectrum"))?
                .label(*label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .label_font((FAMILY, 12).into_font())
            .draw()
            .map_err(draw_err("the legend"))?;
        panel = panel_of("cross_section", &chart, (x0, x1), (y0, y1));
        root.present().map_err(draw_err("the figure"))?;
    }
    canvas.save_png(path)?;
    Ok(Figure {
        path: path.to_path_buf(),
        width,
        height,
        panels: vec![panel],
    })
}

//! Probe figures: each component's time series (one panel per component, in its units) and
//! their amplitude spectra in dB relative to each component's own peak.
use super::font::{ensure, FAMILY};
use super::{axis, draw_err, panel_of, si_scale, Canvas, Figure, Panel, PlotError};
use crate::fmt::sig;
use crate::signal::Spectrum;
use plotters::prelude::*;
use std::path::Path;

/// Line colours of a probe's components, in the order they are listed.
pub const COLOURS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
];

/// One recorded series of a probe.
#[derive(Clone, Debug)]
pub struct Series {
    /// Component name (`Ez`).
    pub name: String,
    pub units: String,
    pub time: Vec<f64>,
    pub values: Vec<f32>,
}

const WIDTH: u32 = 900;

/// Range of `v` with a margin, never empty.
fn value_range(v: &[f32]) -> (f64, f64) {
    let (lo, hi) = v
        .iter()
        .filter(|x| x.is_finite())
        .fold((0f64, 0f64), |(a, b), &x| (a.min(x as f64), b.max(x as f64)));
    let span = (hi - lo).max(hi.abs().max(lo.abs()) * 1e-6).max(1e-30);
    (lo - 0.05 * span, hi + 0.05 * span)
}

/// The time series of a probe's components, stacked, sharing the time axis.
pub fn time_png(probe: &str, series: &[Series], path: &Path) -> Result<Figure, PlotError> {
    ensure();
    if series.is_empty() {
        return Err(PlotError::Data(format!("probe {probe} recorded no component")));
    }
    let panel_h = 240u32;
    let height = 40 + panel_h * series.len() as u32;
    let t_max = series
        .iter()
        .flat_map(|s| s.time.last().copied())
        .filter(|t| t.is_finite())
        .fold(0.0, f64::max);
    let (_, t_max) = axis(0.0, t_max);
    let (ts, tp) = si_scale(t_max);
    let mut canvas = Canvas::new(WIDTH, height);
    let mut panels = Vec::new();
    {
        let root = BitMapBackend::with_buffer(&mut canvas.rgb, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err("the background"))?;
        let root = root
            .titled(&format!("probe {probe}: time series"), (FAMILY, 18).into_font())
            .map_err(draw_err("the title"))?;
        let areas = root.split_evenly((series.len(), 1));
        for (k, (s, area)) in series.iter().zip(&areas).enumerate() {
            let (y0, y1) = axis(value_range(&s.values).0, value_range(&s.values).1);
            let (vs, vp) = si_scale(y0.abs().max(y1.abs()));
            let tfmt = move |t: &f64| sig(t * ts, 4);
            let vfmt = move |v: &f64| sig(v * vs, 4);
            let mut chart = ChartBuilder::on(area)
                .margin(8)
                .margin_right(24)
                .x_label_area_size(36)
                .y_label_area_size(72)
                .build_cartesian_2d(0.0..t_max, y0..y1)
                .map_err(draw_err("a time-series panel"))?;
            chart
                .configure_mesh()
                .x_desc(format!("t ({tp}s)"))
                .y_desc(format!("{} ({vp}{})", s.name, s.units))
                .x_label_formatter(&tfmt)
                .y_label_formatter(&vfmt)
                .light_line_style(BLACK.mix(0.05))
                .bold_line_style(BLACK.mix(0.15))
                .label_style((FAMILY, 12).into_font())
                .axis_desc_style((FAMILY, 13).into_font())
                .draw()
                .map_err(draw_err("the axes"))?;
            let colour = COLOURS[k % COLOURS.len()];
            chart
                .draw_series(LineSeries::new(
                    s.time.iter().zip(&s.values).map(|(&t, &v)| (t, v as f64)),
                    colour.stroke_width(2),
                ))
                .map_err(draw_err("a time series"))?;
            panels.push(panel_of(&s.name, &chart, (0.0, t_max), (y0, y1)));
        }
        root.present().map_err(draw_err("the figure"))?;
    }
    canvas.save_png(path)?;
    Ok(Figure {
        path: path.to_path_buf(),
        width: WIDTH,
        height,
        panels,
    })
}

/// Lowest level shown on a spectrum (dB below each component's peak).
pub const FLOOR_DB: f64 = -60.0;

/// A component's spectrum in dB relative to its own peak, up to `f_max`.
pub fn db_spectrum(s: &Series, f_max: f64) -> Vec<(f64, f64)> {
    let dt = if s.time.len() > 1 { s.time[1] - s.time[0] } else { 0.0 };
    let sp = Spectrum::of(&s.values, dt);
    let peak = sp
        .frequency
        .iter()
        .zip(&sp.amplitude)
        .filter(|(f, _)| **f <= f_max)
        .map(|(_, a)| *a)
        .fold(0.0, f64::max);
    sp.frequency
        .iter()
        .zip(&sp.amplitude)
        .take_while(|(f, _)| **f <= f_max)
        .map(|(&f, &a)| {
            let db = if peak > 0.0 && a > 0.0 {
                20.0 * (a / peak).log10()
            } else {
                FLOOR_DB
            };
            (f, db.max(FLOOR_DB))
        })
        .collect()
}

/// The amplitude spectra of a probe's components, up to `f_max` (Hz), with the sources'
/// frequencies marked (`markers`: label and Hz).
pub fn spectrum_png(
    probe: &str,
    series: &[Series],
    f_max: f64,
    markers: &[(String, f64)],
    path: &Path,
) -> Result<Figure, PlotError> {
    ensure();
    let (width, height) = (WIDTH, 520u32);
    let (_, f_max) = axis(0.0, f_max);
    let (fs, fp) = si_scale(f_max);
    let mut canvas = Canvas::new(width, height);
    let panel: Panel;
    {
        let root = BitMapBackend::with_buffer(&mut canvas.rgb, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err("the background"))?;
        let ffmt = move |f: &f64| sig(f * fs, 4);
        let y = (FLOOR_DB, 3.0);
        let mut chart = ChartBuilder::on(&root)
            .caption(format!("probe {probe}: spectrum"), (FAMILY, 18).into_font())
            .margin(10)
            .margin_right(24)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(0.0..f_max, y.0..y.1)
            .map_err(draw_err("the spectrum"))?;
        chart
            .configure_mesh()
            .x_desc(format!("frequency ({fp}Hz)"))
            .y_desc("|F(f)| (dB re peak)")
            .x_label_formatter(&ffmt)
            .light_line_style(BLACK.mix(0.05))
            .bold_line_style(BLACK.mix(0.15))
            .label_style((FAMILY, 12).into_font())
            .axis_desc_style((FAMILY, 13).into_font())
            .draw()
            .map_err(draw_err("the axes"))?;
        for (label, f) in markers {
            let style = BLACK.mix(0.5).stroke_width(1);
            chart
                .draw_series(DashedLineSeries::new([(*f, y.0), (*f, y.1)], 5, 4, style))
                .map_err(draw_err("a frequency marker"))?
                .label(label.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        }
        for (k, s) in series.iter().enumerate() {
            let colour = COLOURS[k % COLOURS.len()];
            chart
                .draw_series(LineSeries::new(db_spectrum(s, f_max), colour.stroke_width(2)))
                .map_err(draw_err("a spectrum"))?
                .label(s.name.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK.mix(0.4))
            .label_font((FAMILY, 13).into_font())
            .draw()
            .map_err(draw_err("the legend"))?;
        panel = panel_of("spectrum", &chart, (0.0, f_max), y);
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

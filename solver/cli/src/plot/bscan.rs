//! The radargram (B-scan) of a sweep: one receiver time series per position, side by
//! side, time downward, as ground-penetrating-radar users read them.
//!
//! The traces come from the variants of a sweep that moves a source and a receiver along
//! a line (`scenes/sweeps/gpr_bscan.toml`). Everything that does not change with the
//! position (the direct wave from transmitter to receiver, the reflection of a flat
//! ground) is the same in every trace and hides the weak echoes of what is buried, so
//! the mean trace is subtracted first ("background removal", the usual first step of
//! GPR processing); a buried object's echo arrives later where the antenna is farther
//! from it and draws a hyperbola whose apex lies over it. The colour scale is symmetric
//! (zero is white) and clipped at the 99.5th percentile of |value|, which the figure
//! says, so one strong sample does not wash the echoes out. No time gain is applied.
use super::colormap::diverging;
use super::font::{ensure, FAMILY};
use super::{axis, draw_err, panel_of, si_scale, Canvas, Figure, Panel, PlotError};
use crate::fmt::sig;
use plotters::prelude::*;
use std::path::Path;

/// One receiver trace at one position of the sweep.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The swept parameter's value (m for a position).
    pub x: f64,
    /// Sample times (s) and values.
    pub t: Vec<f64>,
    pub v: Vec<f32>,
}

/// Traces on one time axis, sorted by position, with the mean trace removed.
#[derive(Clone, Debug)]
pub struct Bscan {
    pub xs: Vec<f64>,
    pub t: Vec<f64>,
    /// `values[ix][it]`.
    pub values: Vec<Vec<f64>>,
    /// The symmetric colour scale's end and the fraction of samples beyond it.
    pub vmax: f64,
    pub clipped: f64,
}

/// Quantile of |value| the colour scale ends at.
const CLIP_QUANTILE: f64 = 0.995;

impl Bscan {
    /// Sort the traces by position, cut them to the shortest, and remove the mean trace.
    /// Traces sampled at different times are refused (variants of one sweep share dt
    /// unless the sweep changes the grid).
    pub fn new(mut traces: Vec<Trace>) -> Result<Bscan, PlotError> {
        traces.retain(|tr| tr.x.is_finite() && !tr.v.is_empty());
        if traces.len() < 2 {
            return Err(PlotError::Data(format!(
                "a radargram needs at least two finished variants with the receiver's series ({} found)",
                traces.len()
            )));
        }
        traces.sort_by(|a, b| a.x.total_cmp(&b.x));
        let n = traces.iter().map(|tr| tr.v.len().min(tr.t.len())).min().unwrap_or(0);
        let t: Vec<f64> = traces[0].t[..n].to_vec();
        for tr in &traces[1..] {
            let same = tr.t[..n]
                .iter()
                .zip(&t)
                .all(|(a, b)| (a - b).abs() <= 1e-9 * b.abs().max(1e-15));
            if !same {
                return Err(PlotError::Data(format!(
                    "the traces are sampled at different times (the variant at {} has another time step): a \
                     radargram needs one time axis",
                    tr.x
                )));
            }
        }
        let mean: Vec<f64> = (0..n)
            .map(|k| traces.iter().map(|tr| tr.v[k] as f64).sum::<f64>() / traces.len() as f64)
            .collect();
        let values: Vec<Vec<f64>> = traces
            .iter()
            .map(|tr| (0..n).map(|k| tr.v[k] as f64 - mean[k]).collect())
            .collect();
        let mut mags: Vec<f64> = values
            .iter()
            .flatten()
            .map(|v| v.abs())
            .filter(|v| v.is_finite())
            .collect();
        mags.sort_by(f64::total_cmp);
        let vmax = mags
            .get(((mags.len() as f64 - 1.0) * CLIP_QUANTILE).round() as usize)
            .copied()
            .filter(|v| *v > 0.0)
            .unwrap_or(1.0);
        let clipped = mags.iter().filter(|&&m| m > vmax).count() as f64 / mags.len().max(1) as f64;
        Ok(Bscan {
            xs: traces.iter().map(|tr| tr.x).collect(),
            t,
            values,
            vmax,
            clipped,
        })
    }
}

/// Draw the radargram: `x_name` labels the position axis (its unit m), `what` the
/// receiver (`rx Ey`), `units` the value's.
pub fn bscan_png(
    b: &Bscan,
    title: &str,
    x_name: &str,
    what: &str,
    units: &str,
    path: &Path,
) -> Result<Figure, PlotError> {
    ensure();
    let (width, height) = (760u32, 560u32);
    let nx = b.xs.len();
    // Each trace is a column as wide as the spacing to its neighbours.
    let dx = if nx > 1 {
        (b.xs[nx - 1] - b.xs[0]) / (nx - 1) as f64
    } else {
        1.0
    };
    let (x0, x1) = axis(b.xs[0] - 0.5 * dx, b.xs[nx - 1] + 0.5 * dx);
    let t_end = b.t.last().copied().unwrap_or(1.0);
    let (ts, tp) = si_scale(t_end);
    let (xs, xp) = si_scale(x0.abs().max(x1.abs()));
    let mut canvas = Canvas::new(width, height);
    let panel: Panel;
    {
        let root = BitMapBackend::with_buffer(&mut canvas.rgb, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err("the background"))?;
        let root = root
            .titled(title, (FAMILY, 15).into_font())
            .map_err(draw_err("the title"))?;
        let (main, bar) = root.split_horizontally(width - 130);
        let (main, note) = main.split_vertically(height - 60);
        let xfmt = move |x: &f64| sig(x * xs, 4);
        let tfmt = move |t: &f64| sig(t * ts, 4);
        let (t0, t1) = axis(t_end, 0.0);
        let mut chart = ChartBuilder::on(&main)
            .margin_top(10)
            .margin_right(16)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(x0..x1, t0..t1)
            .map_err(draw_err("the radargram"))?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc(format!("{x_name} ({xp}m)"))
            .y_desc(format!("t ({tp}s)"))
            .x_label_formatter(&xfmt)
            .y_label_formatter(&tfmt)
            .label_style((FAMILY, 12).into_font())
            .axis_desc_style((FAMILY, 13).into_font())
            .draw()
            .map_err(draw_err("the axes"))?;
        let nt = b.t.len();
        let st = (nt as f64 / 480.0).ceil().max(1.0) as usize;
        let mut rects = Vec::with_capacity(nx * (nt / st + 1));
        for (ix, col) in b.values.iter().enumerate() {
            let xa = if ix == 0 { x0 } else { 0.5 * (b.xs[ix - 1] + b.xs[ix]) };
            let xb = if ix + 1 == nx {
                x1
            } else {
                0.5 * (b.xs[ix] + b.xs[ix + 1])
            };
            for it in (0..nt).step_by(st) {
                let ta = b.t[it];
                let tb = b.t[(it + st).min(nt - 1)].max(ta);
                let c = diverging((col[it] / b.vmax).clamp(-1.0, 1.0));
                rects.push(Rectangle::new([(xa, ta), (xb, tb)], c.filled()));
            }
        }
        chart.draw_series(rects).map_err(draw_err("the traces"))?;
        panel = panel_of(what, &chart, (x0, x1), (t0, t1));

        let line = format!(
            "mean trace removed; colour scale clipped at ±{} {units} (the {:.1}th percentile of |value|: {:.2} % of \
             samples beyond it); no time gain",
            sig(b.vmax, 3),
            100.0 * CLIP_QUANTILE,
            100.0 * b.clipped
        );
        note.draw(&Text::new(line, (12, 20), (FAMILY, 12).into_font()))
            .map_err(draw_err("the note"))?;

        let (vs, vp) = si_scale(b.vmax);
        let vmax = b.vmax;
        // Ticks are sums of steps: print rounding noise at zero as 0.
        let vfmt = move |x: &f64| {
            if x.abs() < 1e-9 * vmax {
                "0".into()
            } else {
                sig(x * vs, 3)
            }
        };
        let mut cb = ChartBuilder::on(&bar)
            .margin_top(10)
            .margin_bottom(100)
            .margin_right(8)
            .set_label_area_size(LabelAreaPosition::Right, 64)
            .build_cartesian_2d(0.0..1.0, -vmax..vmax)
            .map_err(draw_err("the colour bar"))?;
        cb.configure_mesh()
            .disable_mesh()
            .disable_x_axis()
            .y_desc(format!("{what} ({vp}{units})"))
            .y_label_formatter(&vfmt)
            .y_labels(7)
            .label_style((FAMILY, 12).into_font())
            .axis_desc_style((FAMILY, 13).into_font())
            .draw()
            .map_err(draw_err("the colour bar axis"))?;
        let steps = 128;
        cb.draw_series((0..steps).map(|i| {
            let a = -vmax + 2.0 * vmax * i as f64 / steps as f64;
            let c = -vmax + 2.0 * vmax * (i + 1) as f64 / steps as f64;
            Rectangle::new([(0.0, a), (1.0, c)], diverging((a + c) / (2.0 * vmax)).filled())
        }))
        .map_err(draw_err("the colour bar"))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A Ricker wavelet of peak frequency `f` centred on `t0`.
    fn ricker(t: f64, t0: f64, f: f64) -> f64 {
        let a = (std::f64::consts::PI * f * (t - t0)).powi(2);
        (1.0 - 2.0 * a) * (-a).exp()
    }

    /// Synthetic traces: a strong direct wave at 1 ns in every trace and a weak echo from
    /// a point 0.1 m deep at x = 0.25 m in a medium of v = 0.1 m/ns, arriving at
    /// 1 ns + 2·√(d² + (x − 0.25)²)/v.
    fn traces() -> Vec<Trace> {
        let t: Vec<f64> = (0..800).map(|k| k as f64 * 10e-12).collect();
        (0..17)
            .map(|i| {
                let x = 0.09 + 0.02 * i as f64;
                let echo = 1e-9 + 2.0 * (0.1f64.powi(2) + (x - 0.25f64).powi(2)).sqrt() / 1e8;
                let v = t
                    .iter()
                    .map(|&s| (ricker(s, 1e-9, 1e9) + 0.05 * ricker(s, echo, 1e9)) as f32)
                    .collect();
                Trace { x, t: t.clone(), v }
            })
            .rev()
            .collect()
    }

    #[test]
    fn the_direct_wave_is_removed_and_the_echo_apex_is_found_in_the_figure() {
        let b = Bscan::new(traces()).unwrap();
        assert!(b.xs.windows(2).all(|w| w[0] < w[1]), "sorted");
        // Background removal: the direct wave is gone, the echo left at ~0.05 of it.
        let peak = b.values.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
        assert!(peak < 0.06, "{peak}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.png");
        let fig = bscan_png(&b, "B-scan", "x", "rx Ey", "V/m", &path).unwrap();
        let img = Canvas::load_png(&path).unwrap();
        let p = &fig.panels[0];
        // In each trace's column, where the echo's positive lobe is (the red pixels within
        // 5 % of the column's reddest, their mean row); the hyperbola's apex is the column
        // where it comes first: x = 0.25 within one step, at the apex's two-way time
        // (3 ns) within 0.3 ns (a Ricker's main lobe).
        let t_of = |py: f64| p.y.0 + (py - p.py.0 as f64) / (p.py.1 - p.py.0) as f64 * (p.y.1 - p.y.0);
        let (py0, py1) = (p.py.0.min(p.py.1), p.py.0.max(p.py.1));
        let mut first = (f64::MAX, 0.0);
        for &x in &b.xs {
            let px = p.pixel(x, 0.0).0;
            let red: Vec<(i32, i32)> = (py0..py1)
                .filter_map(|y| img.pixel(px, y).map(|[r, g, _]| (y, r as i32 - g as i32)))
                .collect();
            let top = red.iter().map(|r| r.1).max().unwrap_or(0);
            assert!(top > 100, "no echo in the column of x = {x}");
            let rows: Vec<i32> = red.iter().filter(|r| r.1 * 20 >= top * 19).map(|r| r.0).collect();
            let t = t_of(rows.iter().sum::<i32>() as f64 / rows.len() as f64);
            if t < first.0 {
                first = (t, x);
            }
        }
        let (t, x) = first;
        assert!((x - 0.25).abs() <= 0.02 + 1e-9, "apex column at x = {x}");
        assert!((t - 3e-9).abs() <= 0.3e-9, "apex row at t = {t}");
        // Time runs downward: the top of the panel is t = 0.
        assert!(p.pixel(0.25, 0.0).1 < p.pixel(0.25, 5e-9).1);
    }

    #[test]
    fn traces_on_different_time_axes_or_too_few_are_refused() {
        let mut tr = traces();
        tr[3].t = tr[3].t.iter().map(|t| t * 1.5).collect();
        assert!(matches!(Bscan::new(tr), Err(PlotError::Data(m)) if m.contains("different times")));
        let one = traces().into_iter().take(1).collect();
        assert!(matches!(Bscan::new(one), Err(PlotError::Data(m)) if m.contains("at least two")));
    }
}

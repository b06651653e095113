//! Snapshot slices as colour maps: a symmetric diverging scale (zero is white), a colour
//! bar in the field's units, and the geometry drawn over the field; as a PNG of one frame
//! or an animated GIF of all of them on one fixed scale.
use super::colormap::diverging;
use super::font::{ensure, FAMILY};
use super::geometry::plot_width;
use super::{axis, draw_err, panel_of, plane_axes, si_scale, Canvas, Figure, Geometry, Panel, PlotError, AXIS_NAMES};
use crate::fmt::sig;
use crate::output::read::SnapshotComponent;
use plotters::prelude::*;
use std::path::Path;

/// One plane of a snapshot frame.
#[derive(Clone, Debug)]
pub struct Slice {
    /// The axis normal to the plane, and the plane's position along it (m).
    pub normal: usize,
    pub at: f64,
    /// Samples along the in-plane axes (see [`plane_axes`]).
    pub nu: usize,
    pub nv: usize,
    /// Position of sample (0, 0) and the spacing (m).
    pub origin: [f64; 2],
    pub spacing: [f64; 2],
    /// `values[iu·nv + iv]`.
    pub values: Vec<f32>,
}

impl Slice {
    /// The plane of `frame` (C order over `c.shape`): the frame itself when it is a plane,
    /// else its middle plane across its thinnest axis.
    pub fn from_frame(frame: &[f32], c: &SnapshotComponent) -> Slice {
        let sh = c.shape;
        let normal = (0..3)
            .find(|&a| sh[a] == 1)
            .unwrap_or_else(|| (0..3).min_by_key(|&a| sh[a]).unwrap_or(2));
        let k0 = sh[normal] / 2;
        let (u, v) = plane_axes(normal);
        let (nu, nv) = (sh[u], sh[v]);
        let mut values = Vec::with_capacity(nu * nv);
        for iu in 0..nu {
            for iv in 0..nv {
                let mut i = [0; 3];
                i[normal] = k0;
                i[u] = iu;
                i[v] = iv;
                // A frame shorter than its shape (never from a readable file) reads NaN.
                values.push(
                    frame
                        .get((i[0] * sh[1] + i[1]) * sh[2] + i[2])
                        .copied()
                        .unwrap_or(f32::NAN),
                );
            }
        }
        Slice {
            normal,
            at: c.origin[normal] + k0 as f64 * c.spacing[normal],
            nu,
            nv,
            origin: [c.origin[u], c.origin[v]],
            spacing: [c.spacing[u], c.spacing[v]],
            values,
        }
    }

    /// The `q`-quantile of |value| (0 < q ≤ 1), or the largest magnitude when that is
    /// zero. A colour scale at the 99.5 % quantile keeps the wave visible next to a
    /// source cell whose near field is orders of magnitude larger.
    pub fn quantile_abs(&self, q: f64) -> f32 {
        let mut a: Vec<f32> = self.values.iter().filter(|v| v.is_finite()).map(|v| v.abs()).collect();
        if a.is_empty() {
            return 0.0;
        }
        let i = ((a.len() - 1) as f64 * q.clamp(0.0, 1.0)).floor() as usize;
        let (_, x, _) = a.select_nth_unstable_by(i, f32::total_cmp);
        if *x > 0.0 {
            *x
        } else {
            self.max_abs()
        }
    }

    /// Largest magnitude (0 for an all-zero or empty slice).
    pub fn max_abs(&self) -> f32 {
        self.values
            .iter()
            .filter(|v| v.is_finite())
            .fold(0.0, |m, v| m.max(v.abs()))
    }
}

/// What to draw around a slice.
pub struct Style<'a> {
    pub title: String,
    /// Component name and units, for the colour bar (`Ez`, `V/m`).
    pub component: String,
    pub units: String,
    /// The domain's size (m): the axes span it.
    pub domain: [f64; 3],
    pub geometry: Option<&'a Geometry>,
}

const PLOT_H: u32 = 460;
const LEFT: u32 = 70;
const BOTTOM: u32 = 44;
const TOP: u32 = 40;
const BAR: u32 = 120;

/// The figure's pixel size for a plane of the domain normal to `normal`.
fn layout(domain: [f64; 3], normal: usize) -> (u32, u32, u32) {
    let (u, v) = plane_axes(normal);
    let pw = plot_width(domain[u], domain[v], PLOT_H);
    (LEFT + pw + 24 + BAR, TOP + PLOT_H + BOTTOM, pw)
}

/// The colour scale of a slice drawn at ±`vmax`: the axis' rounded end.
fn scale_end(vmax: f64) -> f64 {
    if vmax > 0.0 && vmax.is_finite() {
        axis(-vmax, vmax).1
    } else {
        1.0
    }
}

/// `title`, followed by a note when the colour scale ±`vmax` (as drawn) clips samples
/// of `slice`: the scale's end and the share of samples beyond it, so a saturated
/// colour is not read as the field's peak.
pub fn clip_note(title: &str, slice: &Slice, vmax: f64) -> String {
    let end = scale_end(vmax);
    let beyond = slice.values.iter().filter(|v| (v.abs() as f64) > end).count();
    if beyond == 0 {
        return title.to_string();
    }
    let share = 100.0 * beyond as f64 / slice.values.len() as f64;
    let peak = slice.values.iter().fold(0.0f32, |m, v| m.max(v.abs())) as f64;
    format!(
        "{title} · colour scale clipped at ±{} ({} % of samples beyond, peak {})",
        sig(end, 3),
        sig(share, 2),
        sig(peak, 3)
    )
}

/// Draw `slice` on the scale ±`vmax` into a new canvas.
fn render(slice: &Slice, vmax: f64, style: &Style) -> Result<(Canvas, Panel), PlotError> {
    ensure();
    let (width, height, pw) = layout(style.domain, slice.normal);
    let (u, v) = plane_axes(slice.normal);
    let ((_, lu), (_, lv)) = (axis(0.0, style.domain[u]), axis(0.0, style.domain[v]));
    let (ls, lp) = si_scale(lu.max(lv));
    let title = clip_note(&style.title, slice, vmax);
    let vmax = scale_end(vmax);
    let mut canvas = Canvas::new(width, height);
    let panel;
    {
        let root = BitMapBackend::with_buffer(&mut canvas.rgb, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err("the background"))?;
        let root = root
            .titled(&title, (FAMILY, 15).into_font())
            .map_err(draw_err("the title"))?;
        let (main, bar) = root.split_horizontally(LEFT + pw + 24);
        let lfmt = move |x: &f64| sig(x * ls, 4);
        let mut chart = ChartBuilder::on(&main)
            .margin_top(10)
            .margin_right(24)
            .x_label_area_size(BOTTOM)
            .y_label_area_size(LEFT)
            .build_cartesian_2d(0.0..lu, 0.0..lv)
            .map_err(draw_err("the slice"))?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc(format!("{} ({lp}m)", AXIS_NAMES[u]))
            .y_desc(format!("{} ({lp}m)", AXIS_NAMES[v]))
            .x_label_formatter(&lfmt)
            .y_label_formatter(&lfmt)
            .label_style((FAMILY, 12).into_font())
            .axis_desc_style((FAMILY, 13).into_font())
            .draw()
            .map_err(draw_err("the axes"))?;
        // One rectangle per sample, centred on it; thinned to about one per pixel.
        let su = (slice.nu as f64 / pw as f64).ceil().max(1.0) as usize;
        let sv = (slice.nv as f64 / PLOT_H as f64).ceil().max(1.0) as usize;
        let [du, dv] = slice.spacing;
        let mut rects = Vec::with_capacity((slice.nu / su + 1) * (slice.nv / sv + 1));
        for iu in (0..slice.nu).step_by(su) {
            for iv in (0..slice.nv).step_by(sv) {
                let x = slice.origin[0] + iu as f64 * du;
                let y = slice.origin[1] + iv as f64 * dv;
                let c = diverging(slice.values[iu * slice.nv + iv] as f64 / vmax);
                rects.push(Rectangle::new(
                    [
                        (x - 0.5 * du, y - 0.5 * dv),
                        (x + (su as f64 - 0.5) * du, y + (sv as f64 - 0.5) * dv),
                    ],
                    c.filled(),
                ));
            }
        }
        chart.draw_series(rects).map_err(draw_err("the field"))?;
        if let Some(g) = style.geometry {
            g.draw_overlay(&mut chart, slice.normal, slice.at)?;
        }
        panel = panel_of(&style.component, &chart, (0.0, lu), (0.0, lv));

        // The colour bar, in the component's units.
        let (vs, vp) = si_scale(vmax);
        let vfmt = move |x: &f64| sig(x * vs, 3);
        let mut cb = ChartBuilder::on(&bar)
            .margin_top(10)
            .margin_bottom(BOTTOM)
            .margin_right(8)
            .set_label_area_size(LabelAreaPosition::Right, 64)
            .build_cartesian_2d(0.0..1.0, -vmax..vmax)
            .map_err(draw_err("the colour bar"))?;
        cb.configure_mesh()
            .disable_mesh()
            .disable_x_axis()
            .y_desc(format!("{} ({vp}{})", style.component, style.units))
            .y_label_formatter(&vfmt)
            .y_labels(7)
            .label_style((FAMILY, 12).into_font())
            .axis_desc_style((FAMILY, 13).into_font())
            .draw()
            .map_err(draw_err("the colour bar axis"))?;
        let steps = 128;
        cb.draw_series((0..steps).map(|i| {
            let a = -vmax + 2.0 * vmax * i as f64 / steps as f64;
            let b = -vmax + 2.0 * vmax * (i + 1) as f64 / steps as f64;
            Rectangle::new([(0.0, a), (1.0, b)], diverging((a + b) / (2.0 * vmax)).filled())
        }))
        .map_err(draw_err("the colour bar"))?;
        root.present().map_err(draw_err("the figure"))?;
    }
    Ok((canvas, panel))
}

/// One slice as a PNG, on the scale ±`vmax`.
pub fn slice_png(slice: &Slice, vmax: f64, style: &Style, path: &Path) -> Result<Figure, PlotError> {
    let (canvas, panel) = render(slice, vmax, style)?;
    canvas.save_png(path)?;
    Ok(Figure {
        path: path.to_path_buf(),
        width: canvas.width,
        height: canvas.height,
        panels: vec![panel],
    })
}

/// An animated GIF of `frames` (a slice and its title each), all on the scale ±`vmax`,
/// `delay_cs` hundredths of a second apart, looping.
pub fn slice_gif(
    frames: impl IntoIterator<Item = Result<(Slice, String), PlotError>>,
    vmax: f64,
    style: &Style,
    delay_cs: u16,
    path: &Path,
) -> Result<Figure, PlotError> {
    let mut out = super::canvas::NewFile::create(path)?;
    let file = out.writer()?;
    let enc_err = |e: gif::EncodingError| PlotError::Encode {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let mut encoder: Option<gif::Encoder<std::io::BufWriter<std::fs::File>>> = None;
    let mut file = Some(std::io::BufWriter::new(file));
    let mut first: Option<(u32, u32, Panel)> = None;
    for item in frames {
        let (slice, title) = item?;
        let st = Style {
            title,
            component: style.component.clone(),
            units: style.units.clone(),
            domain: style.domain,
            geometry: style.geometry,
        };
        let (canvas, panel) = render(&slice, vmax, &st)?;
        let (w, h) = (canvas.width, canvas.height);
        if encoder.is_none() {
            let (Ok(w16), Ok(h16)) = (u16::try_from(w), u16::try_from(h)) else {
                return Err(PlotError::Data(format!("a {w}×{h} figure is too large for a GIF")));
            };
            let mut e = gif::Encoder::new(file.take().expect("one encoder"), w16, h16, &[]).map_err(enc_err)?;
            e.set_repeat(gif::Repeat::Infinite).map_err(enc_err)?;
            encoder = Some(e);
            first = Some((w, h, panel));
        }
        let mut frame = gif::Frame::from_rgb_speed(w as u16, h as u16, &canvas.rgb, 20);
        frame.delay = delay_cs;
        if let Some(e) = encoder.as_mut() {
            e.write_frame(&frame).map_err(enc_err)?;
        }
    }
    let (width, height, panel) = first.ok_or_else(|| PlotError::Data("the snapshot has no frames".into()))?;
    if let Some(e) = encoder {
        use std::io::Write;
        e.into_inner()
            .map_err(enc_err)?
            .flush()
            .map_err(|source| PlotError::Write {
                path: path.to_path_buf(),
                source,
            })?;
    }
    out.commit(path)?;
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

    /// One spike of 100 among 399 samples of at most 1: a scale at ±1 clips it and the
    /// title says so (share and peak); a scale that holds every sample adds nothing.
    #[test]
    fn a_clipped_colour_scale_is_stated_in_the_title() {
        let mut values: Vec<f32> = (0..400).map(|i| ((i as f32) * 0.37).sin()).collect();
        values[123] = 100.0;
        let slice = Slice {
            normal: 2,
            at: 0.0,
            nu: 20,
            nv: 20,
            origin: [0.0, 0.0],
            spacing: [1e-3, 1e-3],
            values,
        };
        let t = clip_note("snapshot s · Ez", &slice, 1.0);
        assert_eq!(
            t,
            "snapshot s · Ez · colour scale clipped at ±1 (0.25 % of samples beyond, peak 100)"
        );
        assert_eq!(clip_note("snapshot s · Ez", &slice, 100.0), "snapshot s · Ez");
    }
}

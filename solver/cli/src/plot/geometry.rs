//! The discretised scene as a picture: the material of every cell on the three planes
//! through a point, with the CPML region, sources and probes drawn over it; and the same
//! outlines over snapshot slices ([`Geometry::draw_overlay`]).
use super::colormap::material_colour;
use super::font::{ensure, FAMILY};
use super::{draw_err, panel_of, plane_axes, si_scale, Canvas, Chart, Figure, PlotError, AXIS_NAMES};
use crate::model::thin::{thin_edges, Edge};
use crate::model::{cell_materials, Model};
use crate::scene::{Boundary, MaterialKind, Scene};
use plotters::prelude::*;
use std::path::Path;

/// A named point drawn as a marker.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    pub name: String,
    /// Where the sample really is (m).
    pub position: [f64; 3],
}

/// What a figure needs of the discretised scene.
#[derive(Clone, Debug)]
pub struct Geometry {
    /// Cells per axis and cell size (m).
    pub n: [usize; 3],
    pub d: [f64; 3],
    /// Scene material index of every cell, C order (z fastest).
    pub cells: Vec<u16>,
    /// Name and a short description (`eps_r 4`, `PEC`) of each scene material.
    pub materials: Vec<(String, String)>,
    /// CPML thickness in cells on each face (x-, x+, y-, y+, z-, z+), 0 where none.
    pub cpml: [usize; 6],
    pub sources: Vec<Marker>,
    pub probes: Vec<Marker>,
    /// PEC E edges of thin conductors (wires, plates, PEC solids thinner than a cell),
    /// which the per-cell map cannot show.
    pub thin: Vec<Edge>,
    /// Closed flux boxes and far-field boxes: name and (min, max) corners (m), as snapped.
    pub boxes: Vec<(String, [f64; 3], [f64; 3])>,
}

impl Geometry {
    /// The geometry of a scene discretised as `model`.
    pub fn new(scene: &Scene, model: &Model) -> Geometry {
        let g = &model.grid;
        let materials = scene
            .materials
            .iter()
            .map(|m| {
                let what = match m.kind {
                    MaterialKind::Pec => "PEC".to_string(),
                    MaterialKind::Dielectric { eps_r, mu_r, sigma } => {
                        let mut s = format!("εr {}", crate::fmt::sig(eps_r, 3));
                        if mu_r != 1.0 {
                            s.push_str(&format!(", μr {}", crate::fmt::sig(mu_r, 3)));
                        }
                        if sigma != 0.0 {
                            s.push_str(&format!(", σ {} S/m", crate::fmt::sig(sigma, 3)));
                        }
                        s
                    }
                };
                (m.name.clone(), what)
            })
            .collect();
        let cpml = std::array::from_fn(|f| match &scene.boundaries.faces[f] {
            Boundary::Cpml(p) => p.cells,
            _ => 0,
        });
        Geometry {
            n: g.n,
            d: g.d,
            cells: cell_materials(scene, g),
            thin: thin_edges(scene, g).into_iter().flat_map(|(_, e)| e).collect(),
            materials,
            cpml,
            boxes: model
                .monitors
                .iter()
                .filter(|m| m.faces.len() == 6)
                .map(|m| {
                    let mut lo = [f64::INFINITY; 3];
                    let mut hi = [f64::NEG_INFINITY; 3];
                    for f in &m.faces {
                        let x = f.plane as f64 * g.d[f.axis];
                        lo[f.axis] = lo[f.axis].min(x);
                        hi[f.axis] = hi[f.axis].max(x);
                    }
                    (m.name.clone(), lo, hi)
                })
                .collect(),
            sources: model
                .sources
                .iter()
                .filter(|s| !s.line)
                .map(|s| Marker {
                    name: s.name.clone(),
                    position: s.component.position(s.index, g.d),
                })
                .collect(),
            probes: model
                .probes
                .iter()
                .map(|p| Marker {
                    name: p.name.clone(),
                    position: p.samples.first().map_or(p.position, |s| s.position),
                })
                .collect(),
        }
    }

    /// The domain's size (m).
    pub fn size(&self) -> [f64; 3] {
        [0, 1, 2].map(|a| self.n[a] as f64 * self.d[a])
    }

    /// Material of cell `(i, j, k)`.
    pub fn cell(&self, c: [usize; 3]) -> u16 {
        self.cells[(c[0] * self.n[1] + c[1]) * self.n[2] + c[2]]
    }

    /// The cell along `axis` that holds coordinate `x` (m), clamped to the grid.
    pub fn cell_index(&self, axis: usize, x: f64) -> usize {
        ((x / self.d[axis]).floor().max(0.0) as usize).min(self.n[axis] - 1)
    }

    /// The default point of a geometry plot: the first source, else the domain's centre.
    pub fn default_point(&self) -> [f64; 3] {
        self.sources
            .first()
            .map_or_else(|| self.size().map(|s| s / 2.0), |s| s.position)
    }

    /// Materials of the cell plane normal to `axis` at cell `index`: `(nu, nv, m[u·nv + v])`.
    fn plane(&self, axis: usize, index: usize) -> (usize, usize, Vec<u16>) {
        let (u, v) = plane_axes(axis);
        let (nu, nv) = (self.n[u], self.n[v]);
        let mut out = Vec::with_capacity(nu * nv);
        for iu in 0..nu {
            for iv in 0..nv {
                let mut c = [0; 3];
                c[axis] = index;
                c[u] = iu;
                c[v] = iv;
                out.push(self.cell(c));
            }
        }
        (nu, nv, out)
    }

    /// Fill each cell of the plane with its material's colour (runs along v merged).
    fn fill<DB: DrawingBackend>(&self, chart: &mut Chart<'_, DB>, axis: usize, index: usize) -> Result<(), PlotError> {
        let (u, v) = plane_axes(axis);
        let (nu, nv, m) = self.plane(axis, index);
        let (du, dv) = (self.d[u], self.d[v]);
        let mut rects = Vec::new();
        for iu in 0..nu {
            let mut start = 0;
            for iv in 1..=nv {
                if iv == nv || m[iu * nv + iv] != m[iu * nv + start] {
                    let colour = material_colour(m[iu * nv + start] as usize);
                    rects.push(Rectangle::new(
                        [
                            (iu as f64 * du, start as f64 * dv),
                            ((iu + 1) as f64 * du, iv as f64 * dv),
                        ],
                        colour.filled(),
                    ));
                    start = iv;
                }
            }
        }
        chart.draw_series(rects).map_err(draw_err("the material map"))?;
        Ok(())
    }

    /// Lines between cells of different materials on the plane normal to `axis` at cell `index`.
    fn outlines<DB: DrawingBackend>(
        &self,
        chart: &mut Chart<'_, DB>,
        axis: usize,
        index: usize,
        style: ShapeStyle,
    ) -> Result<(), PlotError> {
        let (u, v) = plane_axes(axis);
        let (nu, nv, m) = self.plane(axis, index);
        let (du, dv) = (self.d[u], self.d[v]);
        let mut segs = Vec::new();
        for iu in 0..nu {
            for iv in 0..nv {
                let here = m[iu * nv + iv];
                if iu + 1 < nu && m[(iu + 1) * nv + iv] != here {
                    let x = (iu + 1) as f64 * du;
                    segs.push(PathElement::new(
                        vec![(x, iv as f64 * dv), (x, (iv + 1) as f64 * dv)],
                        style,
                    ));
                }
                if iv + 1 < nv && m[iu * nv + iv + 1] != here {
                    let y = (iv + 1) as f64 * dv;
                    segs.push(PathElement::new(
                        vec![(iu as f64 * du, y), ((iu + 1) as f64 * du, y)],
                        style,
                    ));
                }
            }
        }
        chart.draw_series(segs).map_err(draw_err("the geometry outlines"))?;
        Ok(())
    }

    /// Thin PEC edges near the plane `axis = at` (m): those on the nearest node plane as
    /// thick lines, those crossing the plane as dots.
    fn thin_edges<DB: DrawingBackend>(&self, chart: &mut Chart<'_, DB>, axis: usize, at: f64) -> Result<(), PlotError> {
        if self.thin.is_empty() {
            return Ok(());
        }
        let (u, v) = plane_axes(axis);
        let d = self.d;
        let node = ((at / d[axis]).round().max(0.0) as usize).min(self.n[axis]);
        let style = THIN_PEC.stroke_width(3);
        let mut lines = Vec::new();
        let mut dots = Vec::new();
        for e in &self.thin {
            let p = e.index;
            if e.axis == axis {
                let (lo, hi) = (p[axis] as f64 * d[axis], (p[axis] + 1) as f64 * d[axis]);
                if lo <= at && at <= hi {
                    dots.push(Circle::new(
                        (p[u] as f64 * d[u], p[v] as f64 * d[v]),
                        3,
                        THIN_PEC.filled(),
                    ));
                }
            } else if p[axis] == node {
                let a = (p[u] as f64 * d[u], p[v] as f64 * d[v]);
                let b = if e.axis == u {
                    (a.0 + d[u], a.1)
                } else {
                    (a.0, a.1 + d[v])
                };
                lines.push(PathElement::new(vec![a, b], style));
            }
        }
        chart.draw_series(lines).map_err(draw_err("the thin conductors"))?;
        chart.draw_series(dots).map_err(draw_err("the thin conductors"))?;
        Ok(())
    }

    /// The CPML: its layers shaded, its inner edge dashed.
    fn cpml<DB: DrawingBackend>(&self, chart: &mut Chart<'_, DB>, axis: usize) -> Result<(), PlotError> {
        let (u, v) = plane_axes(axis);
        let size = self.size();
        let lo = [u, v].map(|a| self.cpml[2 * a] as f64 * self.d[a]);
        let hi = [u, v].map(|a| size[a] - self.cpml[2 * a + 1] as f64 * self.d[a]);
        if lo == [0.0, 0.0] && hi == [size[u], size[v]] {
            return Ok(());
        }
        let shade = BLACK.mix(0.10).filled();
        let bands = [
            [(0.0, 0.0), (lo[0], size[v])],
            [(hi[0], 0.0), (size[u], size[v])],
            [(lo[0], 0.0), (hi[0], lo[1])],
            [(lo[0], hi[1]), (hi[0], size[v])],
        ];
        chart
            .draw_series(bands.iter().map(|b| Rectangle::new(*b, shade)))
            .map_err(draw_err("the CPML region"))?;
        let edge = [
            (lo[0], lo[1]),
            (hi[0], lo[1]),
            (hi[0], hi[1]),
            (lo[0], hi[1]),
            (lo[0], lo[1]),
        ];
        chart
            .draw_series(DashedLineSeries::new(edge, 6, 4, BLACK.mix(0.6).stroke_width(1)))
            .map_err(draw_err("the CPML edge"))?;
        Ok(())
    }

    /// Flux and far-field boxes that the plane `axis = at` (m) cuts: dashed green
    /// rectangles with their names.
    fn boxes<DB: DrawingBackend>(&self, chart: &mut Chart<'_, DB>, axis: usize, at: f64) -> Result<(), PlotError> {
        let (u, v) = plane_axes(axis);
        let label = (FAMILY, 12).into_font().color(&GREEN.mix(0.9));
        for (name, lo, hi) in &self.boxes {
            if at < lo[axis] - 1e-12 || at > hi[axis] + 1e-12 {
                continue;
            }
            let edge = [
                (lo[u], lo[v]),
                (hi[u], lo[v]),
                (hi[u], hi[v]),
                (lo[u], hi[v]),
                (lo[u], lo[v]),
            ];
            chart
                .draw_series(DashedLineSeries::new(edge, 8, 4, GREEN.stroke_width(2)))
                .map_err(draw_err("a monitor box"))?;
            let t = EmptyElement::at((lo[u], hi[v])) + Text::new(name.clone(), (4, 4), label.clone());
            chart
                .draw_series(std::iter::once(t))
                .map_err(draw_err("a monitor box's name"))?;
        }
        Ok(())
    }

    /// Sources (red crosses) and probes (blue circles) within one cell of the plane
    /// `axis = at` (m), with their names.
    fn markers<DB: DrawingBackend>(&self, chart: &mut Chart<'_, DB>, axis: usize, at: f64) -> Result<(), PlotError> {
        let (u, v) = plane_axes(axis);
        let near = |m: &&Marker| (m.position[axis] - at).abs() <= self.d[axis] * 1.0001;
        let label = (FAMILY, 12).into_font().color(&BLACK);
        let sources: Vec<&Marker> = self.sources.iter().filter(near).collect();
        let probes: Vec<&Marker> = self.probes.iter().filter(near).collect();
        // Names where they do not overprint one already written (probes a cell apart).
        let mut labelled: Vec<(i32, i32)> = Vec::new();
        for (list, source) in [(&sources, true), (&probes, false)] {
            for m in list.iter() {
                let p = (m.position[u], m.position[v]);
                let (px, py) = chart.backend_coord(&p);
                let named = !labelled
                    .iter()
                    .any(|&(x, y)| (x - px).abs() < 48 && (y - py).abs() < 14);
                if named {
                    labelled.push((px, py));
                }
                let shape: DynElement<DB, (f64, f64)> = if source {
                    Cross::new(p, 6, RED.stroke_width(2)).into_dyn()
                } else {
                    Circle::new(p, 5, BLUE.stroke_width(2)).into_dyn()
                };
                chart
                    .draw_series(std::iter::once(shape))
                    .map_err(draw_err("the markers"))?;
                if named {
                    let t = EmptyElement::at(p) + Text::new(m.name.clone(), (8, -16), label.clone());
                    chart
                        .draw_series(std::iter::once(t))
                        .map_err(draw_err("the marker names"))?;
                }
            }
        }
        Ok(())
    }

    /// Everything drawn over a field slice normal to `axis` at `at` (m): material
    /// outlines, the CPML region, sources and probes.
    pub(crate) fn draw_overlay<DB: DrawingBackend>(
        &self,
        chart: &mut Chart<'_, DB>,
        axis: usize,
        at: f64,
    ) -> Result<(), PlotError> {
        let index = self.cell_index(axis, at);
        self.outlines(chart, axis, index, BLACK.stroke_width(1))?;
        self.thin_edges(chart, axis, at)?;
        self.cpml(chart, axis)?;
        self.boxes(chart, axis, at)?;
        self.markers(chart, axis, at)
    }

    /// Materials that occur on a plane.
    fn present(&self, axis: usize, index: usize, into: &mut Vec<u16>) {
        let (_, _, m) = self.plane(axis, index);
        for x in m {
            if !into.contains(&x) {
                into.push(x);
            }
        }
    }
}

/// Thin PEC edges (wires, plates) on geometry figures and overlays.
const THIN_PEC: RGBColor = RGBColor(150, 40, 0);

/// Pixel height of each panel's plotting area in a geometry figure.
const PANEL_H: u32 = 380;

/// Plot-area width of a plane `lu × lv` at `PANEL_H` high, within bounds so a needle-thin
/// domain still shows.
pub(crate) fn plot_width(lu: f64, lv: f64, height: u32) -> u32 {
    ((height as f64 * lu / lv).round() as u32).clamp(120, 1100)
}

/// The material map on the three planes through `at` (m): `yz`, `xz`, `xy` side by side,
/// with a legend of materials, sources, probes and the CPML.
pub fn geometry_png(geom: &Geometry, at: [f64; 3], path: &Path, title: &str) -> Result<Figure, PlotError> {
    ensure();
    let size = geom.size();
    let (scale, prefix) = si_scale(size.iter().cloned().fold(0.0, f64::max));
    let unit = format!("{prefix}m");
    let (left, right, top, bottom) = (64u32, 16u32, 34u32, 44u32);
    let widths: Vec<u32> = [0, 1, 2]
        .map(|a| {
            let (u, v) = plane_axes(a);
            plot_width(size[u], size[v], PANEL_H) + left + right
        })
        .to_vec();
    let legend_h = 56;
    let width = widths.iter().sum::<u32>().max(640);
    let height = PANEL_H + top + bottom + legend_h + 30;
    let mut canvas = Canvas::new(width, height);
    let mut panels = Vec::new();
    let mut present = Vec::new();
    {
        let root = BitMapBackend::with_buffer(&mut canvas.rgb, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err("the background"))?;
        let root = root
            .titled(title, (FAMILY, 18).into_font())
            .map_err(draw_err("the title"))?;
        let (plots, legend) = root.split_vertically(PANEL_H + top + bottom);
        let breaks: Vec<u32> = widths
            .iter()
            .scan(0, |s, w| {
                *s += w;
                Some(*s)
            })
            .take(2)
            .collect();
        let areas = plots.split_by_breakpoints(breaks, Vec::<u32>::new());
        let fmt = move |x: &f64| crate::fmt::sig(x * scale, 4);
        for (axis, area) in areas.iter().enumerate().take(3) {
            let (u, v) = plane_axes(axis);
            let index = geom.cell_index(axis, at[axis]);
            geom.present(axis, index, &mut present);
            let name = format!("{}{}", AXIS_NAMES[u], AXIS_NAMES[v]);
            let caption = format!(
                "{name} plane at {} = {} {unit}",
                AXIS_NAMES[axis],
                crate::fmt::sig(at[axis] * scale, 4)
            );
            let mut chart = ChartBuilder::on(area)
                .caption(caption, (FAMILY, 14).into_font())
                .margin_right(right)
                .x_label_area_size(bottom - 4)
                .y_label_area_size(left - 8)
                .build_cartesian_2d(0.0..size[u], 0.0..size[v])
                .map_err(draw_err("a geometry panel"))?;
            chart
                .configure_mesh()
                .disable_mesh()
                .x_desc(format!("{} ({unit})", AXIS_NAMES[u]))
                .y_desc(format!("{} ({unit})", AXIS_NAMES[v]))
                .x_label_formatter(&fmt)
                .y_label_formatter(&fmt)
                .x_labels(5)
                .y_labels(6)
                .label_style((FAMILY, 11).into_font())
                .axis_desc_style((FAMILY, 12).into_font())
                .draw()
                .map_err(draw_err("the axes"))?;
            geom.fill(&mut chart, axis, index)?;
            geom.outlines(&mut chart, axis, index, BLACK.mix(0.5).stroke_width(1))?;
            geom.thin_edges(&mut chart, axis, at[axis])?;
            geom.cpml(&mut chart, axis)?;
            geom.boxes(&mut chart, axis, at[axis])?;
            geom.markers(&mut chart, axis, at[axis])?;
            panels.push(panel_of(&name, &chart, (0.0, size[u]), (0.0, size[v])));
        }
        // Legend: one swatch per material on any plane, then markers and the CPML.
        present.sort();
        let font = (FAMILY, 13).into_font();
        let mut x = 12i32;
        let y = 14i32;
        for m in present {
            let (name, what) = geom.materials.get(m as usize).cloned().unwrap_or_default();
            legend
                .draw(&Rectangle::new(
                    [(x, y), (x + 16, y + 16)],
                    material_colour(m as usize).filled(),
                ))
                .and_then(|_| legend.draw(&Rectangle::new([(x, y), (x + 16, y + 16)], BLACK.stroke_width(1))))
                .map_err(draw_err("the legend"))?;
            let text = format!("{name} ({what})");
            legend
                .draw(&Text::new(text.clone(), (x + 22, y + 1), font.clone()))
                .map_err(draw_err("the legend"))?;
            x += 30 + 7 * text.chars().count() as i32;
        }
        legend
            .draw(&Cross::new((x + 8, y + 8), 6, RED.stroke_width(2)))
            .and_then(|_| legend.draw(&Text::new("source", (x + 20, y + 1), font.clone())))
            .and_then(|_| legend.draw(&Circle::new((x + 88, y + 8), 5, BLUE.stroke_width(2))))
            .and_then(|_| legend.draw(&Text::new("probe", (x + 100, y + 1), font.clone())))
            .map_err(draw_err("the legend"))?;
        let mut x = x + 160;
        if !geom.thin.is_empty() {
            legend
                .draw(&PathElement::new(
                    vec![(x, y + 8), (x + 16, y + 8)],
                    THIN_PEC.stroke_width(3),
                ))
                .and_then(|_| legend.draw(&Text::new("thin PEC", (x + 22, y + 1), font.clone())))
                .map_err(draw_err("the legend"))?;
            x += 100;
        }
        if geom.cpml.iter().any(|&c| c > 0) {
            legend
                .draw(&Rectangle::new([(x, y), (x + 16, y + 16)], BLACK.mix(0.10).filled()))
                .and_then(|_| legend.draw(&Text::new("CPML", (x + 22, y + 1), font.clone())))
                .map_err(draw_err("the legend"))?;
        }
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

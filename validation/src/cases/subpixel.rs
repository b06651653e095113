//! Subpixel averaging: the observed convergence order of a resonance shifted by a
//! dielectric cylinder or sphere, with and without averaging.
//!
//! A PEC box of 24 × 20 × 16 mm holds an object of ε_r = 4 whose surface lies off the grid
//! of every resolution: a cylinder along z through the whole box (radius 5.2 mm, axis at
//! x = 12.13, y = 9.87 mm, caps outside the box), or a sphere (radius 5.2 mm, centre
//! 12.13, 9.87, 8.21 mm). An Ez current on the box's axis excites the TM110-like mode,
//! the lowest (the empty box's 9.76 GHz, pulled to about 7.3 GHz by the cylinder and 8.1
//! GHz by the sphere); an Ez probe records it for 3.5 ns (25–29 periods), and the
//! Blackman–Harris peak gives its frequency (the nearest mode the Ez source and probe
//! couple to is ≥ 1.3× higher, > 7 bins away).
//!
//! At cell sizes h, h/2, h/4 the observed order is
//! p = log2((f_h − f_{h/2}) / (f_{h/2} − f_{h/4})). Both runs share the Yee scheme's
//! smooth O(h²) dispersion error; what differs is the object's surface. The staircase
//! moves whole cells as h changes, an O(h) error whose sign and size depend on how the
//! surface meets each grid: erratic, the order it shows is anything from below 1 to
//! negative.
//!
//! **Cylinder (bounded).** The mode's E is along z, tangential to the cylinder's side
//! everywhere: the edges take the arithmetic mean weighted by the exact fill fraction,
//! the rule that is second-order for a tangential field, and the observed order must be
//! ≥ 2 (see [`run`]). Measured (the study in `tests/subpixel.rs`), averaged against
//! staircase: 5.866726 / 6.014237 GHz at 2 mm, 5.879765 / 5.903756 at 1 mm, 5.877820 /
//! 5.870849 at 0.5 mm, 5.877678 / 5.881960 at 0.25 mm, 5.877543 / 5.877942 at 0.125 mm.
//! Below ~3e-5 relative (0.5 mm on) the averaged runs stop converging regularly; not
//! from the 1/256 rounding of the fill fractions (4096 steps gave the same numbers to
//! 2e-5), most likely the spectral estimate of a 3.5 ns record.
//!
//! **Sphere (logged).** Around a sphere the field also crosses the surface obliquely;
//! the projected rule keeps only the diagonal of the averaged tensor (a Yee edge holds one
//! component), and the dropped off-diagonal terms leave a *smooth* first-order error
//! (Werner & Cary, J. Comput. Phys. 226, 1085 (2007) find first order at sharp oblique
//! interfaces even with averaging; Meep's second order needs the off-diagonal terms,
//! Oskooi et al. 2009). Measured (the full study, `tests/subpixel.rs`): averaged
//! f ≈ f∞ − 0.036 GHz/mm·h, monotone, against a staircase about twice as far off and
//! irregular. The case logs it; its order is no bound.
use super::{BackendSpec, Bound, Case, CaseError, CaseResult, Ctx, Size};
use crate::spectral_peak;
use fdtd_core::Component;

pub const CONVERGENCE: Case = Case {
    name: "subpixel-order",
    about: "dielectric cylinder (and sphere) in a PEC box, 3 resolutions: observed order of the resonance ≈ 2 with subpixel averaging",
    run,
};

/// The averaged object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Object {
    /// Along z through the whole box: E tangential to its side.
    Cylinder,
    Sphere,
}

/// The box, object, source and probe at cell size `d` (m), with or without averaging.
/// The cylinder's problem is two-dimensional (the TM110 mode has no z dependence): its
/// box is one cell thick with periodic z faces, so its runs cost 1/(cells along z) of
/// the sphere's.
pub fn scene_text(object: Object, d: f64, subpixel: bool) -> String {
    let thin = object == Object::Cylinder;
    let size = [0.024, 0.020, if thin { d } else { 0.016 }];
    let cells = size.map(|s| (s / d).round() as usize);
    assert!(
        (0..3).all(|i| (cells[i] as f64 * d - size[i]).abs() < 1e-12),
        "{d} must divide the box"
    );
    // 3.5 ns at the Courant number 0.99.
    let dt = 0.99 * d / (299_792_458.0 * 3f64.sqrt());
    let steps = (3.5e-9 / dt).ceil() as usize;
    let (shape, z_faces, zs, zp) = match object {
        // Through the one-cell box and well past it: no dual volume reaches its caps.
        Object::Cylinder => (
            "shape = \"cylinder\"\na = [0.01213, 0.00987, -0.004]\nb = [0.01213, 0.00987, 0.006]",
            "z = \"periodic\"\n",
            0.5 * d,
            0.5 * d,
        ),
        Object::Sphere => (
            "shape = \"sphere\"\ncenter = [0.01213, 0.00987, 0.00821]",
            "",
            0.0035,
            0.0125,
        ),
    };
    format!(
        r#"
[domain]
cell = {d}
cells = [{}, {}, {}]
[time]
steps = {steps}
courant = 0.99
[boundaries]
all = "pec"
{z_faces}[materials.glass]
eps_r = 4.0
[[objects]]
{shape}
material = "glass"
radius = 0.0052
subpixel = {subpixel}
[[sources]]
type = "current"
component = "Ez"
position = [0.012, 0.010, {zs}]
waveform = {{ type = "ricker", frequency = 8e9 }}
[[probes]]
name = "p"
position = [0.012, 0.010, {zp}]
components = ["Ez"]
"#,
        cells[0], cells[1], cells[2]
    )
}

/// Cell sizes (m) of the cylinder (2D: 1, 0.5, 0.25 mm, radius 5.2–21 cells; at
/// [`Size::Quick`], for a software GPU whose cost is per step, 2, 1, 0.5 mm: the bounds
/// are the same, checked one halving coarser, where the averaged error is 3.3e-4 against
/// the staircase's 4.4e-3 and its order 2.5) and of the sphere (3D: 2, 1, 0.5 mm,
/// radius 2.6–10 cells).
pub fn cylinder_cells(size: Size) -> [f64; 3] {
    match size {
        Size::Full => [1e-3, 0.5e-3, 0.25e-3],
        Size::Quick => [2e-3, 1e-3, 0.5e-3],
    }
}
pub const SPHERE_CELLS: [f64; 3] = [2e-3, 1e-3, 0.5e-3];

/// The lowest resonance (Hz) of the box with `object` at cell size `d`.
pub(crate) fn resonance(cx: &mut Ctx, object: Object, d: f64, subpixel: bool) -> Result<f64, CaseError> {
    let label = format!(
        "{object:?} {} {} mm",
        if subpixel { "averaged" } else { "staircase" },
        d * 1e3
    )
    .to_lowercase();
    let (model, sink) = cx.run(&label, &scene_text(object, d, subpixel))?;
    let (_, v) = sink.series(&model, "p", Component::Ez).unwrap();
    let x: Vec<f64> = v.iter().map(|&x| x as f64).collect();
    // The empty box's TM110 is 9.76 GHz; the object pulls it down by 15–25 %: search
    // 5–9.7 GHz (the next mode the source and probe couple to is above 12 GHz).
    let f = spectral_peak(&x, model.grid.dt, 5.0e9, 9.7e9);
    cx.log(format!("{label}: {:.6} GHz", f / 1e9));
    Ok(f)
}

/// Observed order from three values at h, h/2, h/4 (NaN when the differences change
/// sign: no order at all).
pub fn observed_order(f: [f64; 3]) -> f64 {
    ((f[0] - f[1]) / (f[1] - f[2])).log2()
}

/// The cylinder (bounded): its averaged resonance at 1, 0.5 and 0.25 mm, the staircase
/// at 1 and 0.5 mm, errors taken against the averaged 0.25 mm run.
///
/// * Observed order of the averaged runs, log2(e(1 mm)/e(0.5 mm)) > 1.6: second order
///   (or better: the Yee dispersion's O(h²) error, negative, and the averaging's, positive
///   here, partly cancel) with room for the reference's own error; a first-order
///   surface error gives ≈ 1.
/// * The averaged error at 0.5 mm below a quarter of the staircase's: the staircase's
///   O(h) error is ~d/4 of interface displacement here (∂f/∂R ≈ 0.75 GHz/mm), ~1e-3
///   relative at 0.5 mm though erratic in size, the averaged error a few 1e-5.
///
/// The sphere is run and logged at [`Size::Full`] (see the module's note).
pub fn run(spec: &BackendSpec, size: Size) -> Result<CaseResult, CaseError> {
    let mut cx = Ctx::new(CONVERGENCE.name, spec, size);
    let h = cylinder_cells(size);
    let mut on = [0.0; 3];
    for i in 0..3 {
        on[i] = resonance(&mut cx, Object::Cylinder, h[i], true)?;
    }
    let off = [
        resonance(&mut cx, Object::Cylinder, h[0], false)?,
        resonance(&mut cx, Object::Cylinder, h[1], false)?,
    ];
    let reference = on[2];
    let e = |f: f64| (f - reference).abs() / reference;
    let (e_on, e_off) = ([e(on[0]), e(on[1])], [e(off[0]), e(off[1])]);
    let p_on = (e_on[0] / e_on[1]).log2();
    let mm = |d: f64| d * 1e3;
    cx.log(format!(
        "cylinder: errors against the averaged {} mm run: averaged {:.2e}, {:.2e} ({} and {} mm), order {p_on:.2}; staircase {:.2e}, {:.2e}, order {:.2}",
        mm(h[2]),
        e_on[0],
        e_on[1],
        mm(h[0]),
        mm(h[1]),
        e_off[0],
        e_off[1],
        (e_off[0] / e_off[1]).log2()
    ));
    cx.check(
        format!("cylinder: observed order, averaged ({} → {} mm)", mm(h[0]), mm(h[1])),
        Bound::Above(1.6),
        p_on,
        "",
    );
    cx.check(
        format!("cylinder: error at {} mm, averaged / staircase", mm(h[1])),
        Bound::Below(0.25),
        e_on[1] / e_off[1],
        "",
    );
    if size == Size::Full {
        let mut on = [0.0; 3];
        let mut off = [0.0; 3];
        for (i, &d) in SPHERE_CELLS.iter().enumerate() {
            on[i] = resonance(&mut cx, Object::Sphere, d, true)?;
            off[i] = resonance(&mut cx, Object::Sphere, d, false)?;
        }
        cx.log(format!(
            "sphere: observed order (2, 1, 0.5 mm) averaged {:.2}, staircase {:.2}",
            observed_order(on),
            observed_order(off)
        ));
    }
    Ok(cx.finish())
}

/// The resonance at every cell size of `cells` (m), with and without averaging, on the
/// CPU: one line per size (cell size, averaged GHz, staircase GHz), then the observed
/// orders of each consecutive halving present.
pub fn study(object: Object, cells: &[f64]) -> Result<Vec<String>, CaseError> {
    let spec = BackendSpec::cpu();
    let mut cx = Ctx::new(CONVERGENCE.name, &spec, Size::Full);
    let mut rows = Vec::new();
    for &d in cells {
        let on = resonance(&mut cx, object, d, true)?;
        let off = resonance(&mut cx, object, d, false)?;
        rows.push((d, on, off));
    }
    let mut out: Vec<String> = rows
        .iter()
        .map(|(d, on, off)| {
            format!(
                "{:.3} mm: averaged {:.6} GHz, staircase {:.6} GHz",
                d * 1e3,
                on / 1e9,
                off / 1e9
            )
        })
        .collect();
    for a in &rows {
        let half = |x: f64| rows.iter().find(|r| (r.0 - x).abs() < 1e-9 * x);
        if let (Some(b), Some(c)) = (half(a.0 / 2.0), half(a.0 / 4.0)) {
            out.push(format!(
                "h = {:.3} mm: order averaged {:.2}, staircase {:.2}",
                a.0 * 1e3,
                observed_order([a.1, b.1, c.1]),
                observed_order([a.2, b.2, c.2])
            ));
        }
    }
    Ok(out)
}

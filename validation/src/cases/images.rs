//! Far fields over PEC/PMC boundary faces (image planes) and the co-/cross-polar split,
//! end to end: a thin-wire quarter-wave monopole over an infinite PEC ground (`z_min =
//! "pec"`) against image theory, its symmetric half-model (a PMC symmetry plane through
//! the wire) against the whole monopole, and the polarisation of a Hertzian dipole.
use super::antenna::{dbi, pattern_error, run_results, sinusoidal_dipole};
use super::{largest, BackendSpec, Bound, Case, CaseError, CaseResult, Ctx, Size};
use crate::reference::wire_mom;
use fdtd_core::farfield::{ar_db, FarField};

pub const MONOPOLE: Case = Case {
    name: "antenna-monopole-image",
    about: "a λ/4 monopole over z_min = \"pec\": D vs image theory (+3.01 dB) within 0.15 dB, P_rad = P_acc",
    run: monopole,
};

pub const HALF_MODEL: Case = Case {
    name: "antenna-half-model",
    about: "a Hertzian dipole's half-model on a PMC symmetry plane (and over PEC ground) = the whole model in D, pattern, P_rad",
    run: half_model,
};

pub const POLARIZATION: Case = Case {
    name: "antenna-polarization",
    about: "a z Hertzian dipole: cross-pol ≤ −40 dB (θ reference), AR ≥ 40 dB, Ludwig 3 (x) cross = 0 in the xz plane",
    run: polarization,
};

/// A thin-wire monopole of `h` cells (a one-cell port at the ground, then `h − 1` cells of
/// wire) on the PEC face z_min, 50 Ω port, the far field at `f_far` with the default box
/// (which stands on the ground plane). Vacuum margins as the half-wave dipole's (≥ 40 mm
/// in x, y, ≥ 29 mm above), 10-cell CPML elsewhere.
fn monopole_scene(d: f64, h: usize, f_far: f64) -> String {
    let mx = (0.040 / d).ceil() as usize + 10;
    let mz = (0.029 / d).ceil() as usize + 10;
    let nx = 2 * mx;
    let nz = h + mz;
    let xw = mx as f64 * d;
    let (z1, zt) = (d, h as f64 * d);
    format!(
        r#"
[domain]
cell = {d}
cells = [{nx}, {nx}, {nz}]
[time]
duration = 30e-9
[boundaries]
all = "cpml"
z_min = "pec"
[frequencies]
start = 0.7e9
stop = 1.3e9
points = 61
[[objects]]
shape = "wire"
material = "pec"
points = [[{xw}, {xw}, {z1}], [{xw}, {xw}, {zt}]]
[[ports]]
name = "feed"
start = [{xw}, {xw}, 0]
end = [{xw}, {xw}, {z1}]
impedance = 50
[[farfield]]
name = "ff"
frequencies = [{f_far}]
theta_step = 3
phi_step = 15
"#
    )
}

fn far_field(results: &fdtd_core::results::RunResults, label: &str) -> Result<FarField, CaseError> {
    results
        .farfields
        .first()
        .cloned()
        .ok_or_else(|| CaseError::Failed(format!("{label}: no far field")))
}

/// Image theory: a monopole of height h over an infinite PEC ground radiates into the
/// upper half-space the field of the dipole of length 2h that it and its image make, with
/// half that dipole's power, so D = D_dipole + 3.01 dB and the pattern is the dipole's
/// above the ground and nothing below. The reference is the same as the half-wave
/// dipole case's: the sinusoidal-current dipole of the discrete length 2h·Δ at the
/// thin-wire MoM resonance of that wire (`wire_mom::fdtd_wire_resonance`), here
/// 2.12-2.13 dBi + 3.01 dB = 5.14 dBi (the textbook 5.16 dBi is the λ/4 limit).
///
/// Bounds: the FDTD half-wave dipole meets the same reference within 0.15 dB (measured
/// 0.01-0.03 dB); the image adds no error of its own in the transform (unit tests: 1e-3
/// dB on analytic fields), so 0.15 dB (the issue's) holds with margin. Pattern: 0.02 of
/// the peak, as for the dipole. Lossless: P_rad = P_acc within 2 %, as for the dipole
/// (before image planes this monopole reported an efficiency of 39 %).
fn monopole(spec: &BackendSpec, size: Size) -> Result<CaseResult, CaseError> {
    let mut cx = Ctx::new(MONOPOLE.name, spec, size);
    let (d, h) = match size {
        Size::Quick => (4e-3, 18),
        Size::Full => (2e-3, 36),
    };
    let l = 2.0 * h as f64 * d;
    let label = format!("{:.0} mm cells, h = {:.0} mm", d * 1e3, 0.5 * l * 1e3);
    let (f_mom, _) = wire_mom::fdtd_wire_resonance(l, d, 0.7e9, 1.3e9)
        .ok_or_else(|| CaseError::Failed(format!("{label}: no MoM resonance in 0.7-1.3 GHz")))?;
    let (d_dipole, shape) = sinusoidal_dipole(l, f_mom);
    let d_ref = dbi(d_dipole) + 10.0 * 2f64.log10();
    let (_, whole) = run_results(&mut cx, &monopole_scene(d, h, f_mom))?;
    let ff = far_field(&whole, &label)?;
    cx.log(format!(
        "{label}: at {:.4} GHz D_max {:.3} dBi at θ {:.0}° (image theory: dipole of 2h {:.3} dBi + 3.01 dB = {d_ref:.3} dBi), \
         P_rad {:.4} W, efficiency {:.1} %",
        ff.freq / 1e9,
        dbi(ff.max_directivity),
        ff.max_at.0.to_degrees(),
        dbi(d_dipole),
        ff.radiated_power,
        100.0 * ff.efficiency.unwrap_or(f64::NAN)
    ));
    cx.check(
        format!("{label}: |D_max − D_image theory| (dB)"),
        Bound::AtMost(0.15),
        (dbi(ff.max_directivity) - d_ref).abs(),
        "",
    );
    let above = |t: f64| {
        if t > 0.5 * std::f64::consts::PI + 1e-9 {
            0.0
        } else {
            shape(t)
        }
    };
    let (w, e) = pattern_error(&ff, above);
    cx.check_worst(
        format!("{label}: |D/D_max − dipole pattern above the ground|"),
        Bound::AtMost(0.02),
        e,
        "",
        w,
    );
    cx.check(
        format!("{label}: |P_rad / P_acc − 1| (lossless)"),
        Bound::AtMost(0.02),
        (ff.efficiency.unwrap_or(f64::NAN) - 1.0).abs(),
        "",
    );
    cx.series("directivity", ff.directivity.clone());
    Ok(cx.finish())
}

/// The Hertzian dipole of `antenna-hertzian` (a z-directed current element) at 4 GHz:
/// its field is E_θ alone, so with the θ reference the cross-polar part is what the
/// grid's anisotropy and the box leave (bound −40 dB of the co-polar peak) and the
/// polarisation is linear (axial ratio ≥ 40 dB wherever the field is within 10 dB of
/// its peak); with Ludwig 3 about x, co = E_θ cos φ and cross = E_θ sin φ: cross ≤ −40 dB
/// of the peak in the xz plane (φ = 0°, 180°) and co ≤ −40 dB in the yz plane.
fn polarization(spec: &BackendSpec, size: Size) -> Result<CaseResult, CaseError> {
    let mut cx = Ctx::new(POLARIZATION.name, spec, size);
    let text = super::monitors::hertzian_cube(&format!(
        r#"[[farfield]]
name = "ff"
frequencies = [4e9]
box = {}
theta_step = 5
phi_step = 15
polarization = "theta"
"#,
        super::monitors::centred_box(11.0)
    ));
    let (_, results) = run_results(&mut cx, &text)?;
    let mut ff = far_field(&results, "dipole")?;
    let np = ff.phi.len();
    let (co, cross) = ff.co_cross();
    let peak = co.iter().map(|c| c.norm()).fold(0.0, f64::max);
    let rel_db = |x: f64| 20.0 * (x / peak).max(1e-15).log10();
    let (w, e) = largest(cross.iter().enumerate().map(|(i, x)| {
        (
            format!(
                "θ {:.0}°, φ {:.0}°",
                ff.theta[i / np].to_degrees(),
                ff.phi[i % np].to_degrees()
            ),
            rel_db(x.norm()),
        )
    }));
    cx.check_worst(
        "θ reference: cross-pol / co-pol peak (dB)",
        Bound::AtMost(-40.0),
        e,
        "",
        w.clone(),
    );
    let (ar, _) = ff.axial_ratio();
    let strong: Vec<usize> = (0..co.len()).filter(|&i| co[i].norm() > 0.316 * peak).collect();
    let ar_min = strong.iter().map(|&i| ar_db(ar[i])).fold(f64::INFINITY, f64::min);
    cx.log(format!(
        "θ reference: worst cross-pol {e:.1} dB at {w}; smallest axial ratio within 10 dB of the peak {ar_min:.1} dB"
    ));
    cx.check(
        "axial ratio within 10 dB of the peak (dB)",
        Bound::Above(40.0),
        ar_min,
        "",
    );
    ff.polarization = fdtd_core::farfield::Polarization::Ludwig3 { angle: 0.0 };
    let (co, cross) = ff.co_cross();
    let planes = |v: &[fdtd_core::farfield::Complex64], phi0: f64| {
        largest(
            (0..v.len())
                .filter(|i| ((ff.phi[i % np].to_degrees() - phi0).rem_euclid(180.0)).abs() < 1e-6)
                .map(|i| {
                    (
                        format!(
                            "θ {:.0}°, φ {:.0}°",
                            ff.theta[i / np].to_degrees(),
                            ff.phi[i % np].to_degrees()
                        ),
                        rel_db(v[i].norm()),
                    )
                }),
        )
    };
    let (w, e) = planes(&cross, 0.0);
    cx.check_worst(
        "Ludwig 3 (x): cross-pol in the xz plane / peak (dB)",
        Bound::AtMost(-40.0),
        e,
        "",
        w,
    );
    let (w, e) = planes(&co, 90.0);
    cx.check_worst(
        "Ludwig 3 (x): co-pol in the yz plane / peak (dB)",
        Bound::AtMost(-40.0),
        e,
        "",
        w,
    );
    Ok(cx.finish())
}

/// The Hertzian dipole of `antenna-hertzian` (a z-directed soft current element in a 44³
/// cube of 1 mm cells), its far field at 4 and 6 GHz on a box 11 cells around it; with
/// `ground` the domain's z_min is PEC (the dipole 22.5 mm above an infinite ground, the
/// box standing on it); with `half` only y ≥ source (22 cells): the plane y = 0 through
/// the source is PMC (its current is tangential there), and the box stands on it.
fn hertzian_scene(ground: bool, half: bool) -> String {
    let (lo, hi) = (11e-3, 33e-3);
    let y0 = if half { 22e-3 } else { 0.0 };
    let zlo = if ground { 0.0 } else { lo };
    let mut text = super::monitors::hertzian_cube(&format!(
        r#"[[farfield]]
name = "ff"
frequencies = [4e9, 6e9]
box = {{ min = [{lo}, {ylo}, {zlo}], max = [{hi}, {yhi}, {hi}] }}
theta_step = 5
phi_step = 15
"#,
        ylo = if half { 0.0 } else { lo },
        yhi = hi - y0,
    ));
    if half {
        // Drop the cells y < 22 mm: the source's Ez edge is on the plane y = 0.
        text = text
            .replacen("cells = [44, 44, 44]", "cells = [44, 22, 44]", 1)
            .replacen("position = [0.022, 0.022,", "position = [0.022, 0,", 1)
            .replacen("all = \"cpml\"", "all = \"cpml\"\ny_min = \"pmc\"", 1);
    }
    if ground {
        text = text.replacen("all = \"cpml\"", "all = \"cpml\"\nz_min = \"pec\"", 1);
    }
    text
}

/// A symmetric half-model against the whole model, run for run: the z dipole cut by the
/// plane y = 0 through it (a PMC symmetry plane: the current is tangential to it) in free
/// space (full size only) and over an infinite PEC ground z_min (a PEC ground plane and a
/// PMC symmetry plane together). The half-model holds the same fields as the whole
/// model's y ≥ 0 half (the PMC face plane is updated with the mirror image of H, the
/// source on it radiates into both halves alike) and the transform completes it by the
/// image; what differs is the CPML's reflections (< −40 dB) on the domains' different
/// shapes. Bounds: D_max within 0.02 dB, the pattern within 0.005 of the peak, P_rad
/// within 0.5 % (transform units: no port).
fn half_model(spec: &BackendSpec, size: Size) -> Result<CaseResult, CaseError> {
    let mut cx = Ctx::new(HALF_MODEL.name, spec, size);
    let grounds: &[bool] = match size {
        Size::Quick => &[true],
        Size::Full => &[false, true],
    };
    for &ground in grounds {
        let label = if ground { "over PEC ground" } else { "free space" };
        let (_, whole) = run_results(&mut cx, &hertzian_scene(ground, false))?;
        let (_, half) = run_results(&mut cx, &hertzian_scene(ground, true))?;
        if whole.farfields.len() != 2 || half.farfields.len() != 2 {
            return Err(CaseError::Failed(format!("{label}: expected 2 far fields each")));
        }
        for (a, b) in whole.farfields.iter().zip(&half.farfields) {
            let tag = format!("{label}, {:.0} GHz", a.freq / 1e9);
            let np = a.phi.len();
            let (w, e) = largest((0..a.directivity.len()).map(|i| {
                (
                    format!(
                        "θ {:.0}°, φ {:.0}°",
                        a.theta[i / np].to_degrees(),
                        a.phi[i % np].to_degrees()
                    ),
                    (b.directivity.get(i).copied().unwrap_or(f64::NAN) - a.directivity[i]).abs() / a.max_directivity,
                )
            }));
            cx.log(format!(
                "{tag}: D_max whole {:.4} dBi, half-model {:.4} dBi; P_rad ratio {:.5}; pattern worst {e:.2e} at {w}",
                dbi(a.max_directivity),
                dbi(b.max_directivity),
                b.radiated_power / a.radiated_power
            ));
            cx.check(
                format!("{tag}: |D_max(half) − D_max(whole)| (dB)"),
                Bound::AtMost(0.02),
                (dbi(b.max_directivity) - dbi(a.max_directivity)).abs(),
                "",
            );
            cx.check_worst(
                format!("{tag}: |D(half) − D(whole)| / D_max"),
                Bound::AtMost(0.005),
                e,
                "",
                w,
            );
            cx.check(
                format!("{tag}: |P_rad(half) / P_rad(whole) − 1|"),
                Bound::AtMost(0.005),
                (b.radiated_power / a.radiated_power - 1.0).abs(),
                "",
            );
        }
    }
    Ok(cx.finish())
}

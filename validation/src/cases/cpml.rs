//! CPML reflection against a reference run in a domain whose boundary is not seen, and
//! thin layers that must still run and absorb.
use super::{largest, BackendSpec, Bound, Case, CaseError, CaseResult, Ctx, Size};
use fdtd_core::Component;

/// A Ricker current source with a probe 2 cells from the +x CPML (and near a corner
/// region in y), in a domain of `n` cells per side with a `cpml`-cell CPML, run for
/// `steps`. The source sits at a fixed offset from the probe, so domains of any size
/// share the geometry relative to source and probe.
///
/// `slab`: a 2D version, one cell thick in x with periodic x faces, the source an
/// infinite line current along x and the CPML on the y and z faces only: the same
/// geometry turned so that x becomes z and z becomes x (the probe 2 cells from the +z
/// CPML; components Ex, Ez, Hy for Ez, Ex, Hy). Rows along z stay long, which is what
/// the backends' kernels need to run a thin domain fast.
fn scene_text(n: usize, cpml: usize, steps: usize, slab: bool) -> String {
    let d = 1e-3;
    let centre = n / 2;
    // The source's axis, the axis from source to the near CPML, and the other one.
    let (dip, off, side) = if slab { (0, 2, 1) } else { (2, 0, 1) };
    let mut cells = [n; 3];
    let mut s = [centre as f64 * d; 3];
    if slab {
        cells[dip] = 1;
        s[dip] = 0.5 * d;
    } else {
        s[dip] = (centre as f64 + 0.5) * d;
    }
    // Interior half-width of the small domain is 12 cells: the probe is 10 cells +x of
    // the source, i.e. 2 cells from the +x CPML, and 6 cells +y of it.
    // +0.2 cell keeps every component away from a rounding tie when snapping.
    let mut p = s;
    p[off] += 10.2 * d;
    p[side] += 6.2 * d;
    p[dip] += 0.2 * d;
    let axis = ["x", "y", "z"];
    format!(
        r#"
[domain]
cell = {d}
cells = [{n0}, {n1}, {n2}]
[time]
steps = {steps}
courant = 0.99
[boundaries]
all = "cpml"
{periodic}[boundaries.cpml]
cells = {cpml}
[[sources]]
type = "current"
component = "E{a}"
position = [{s0}, {s1}, {s2}]
waveform = {{ type = "ricker", frequency = 10e9, amplitude = 1e-3 }}
[[probes]]
name = "p"
position = [{p0}, {p1}, {p2}]
components = ["E{a}", "E{b}", "H{c}"]
"#,
        n0 = cells[0],
        n1 = cells[1],
        n2 = cells[2],
        periodic = if slab { "x = \"periodic\"\n" } else { "" },
        a = axis[dip],
        b = axis[off],
        c = axis[side],
        s0 = s[0],
        s1 = s[1],
        s2 = s[2],
        p0 = p[0],
        p1 = p[1],
        p2 = p[2],
    )
}

pub const REFLECTION: Case = Case {
    name: "cpml-reflection",
    about: "10-cell CPML: reference run in a domain whose boundary is not seen",
    run: reflection,
};

pub const THIN: Case = Case {
    name: "cpml-thin",
    about: "1- and 2-cell CPML layers run and absorb",
    run: thin,
};

/// A 10-cell CPML reflects below −60 dB: the small domain (24-cell interior + 10-cell
/// CPML on each side) against a reference whose boundary is too far away to be seen
/// within the record.
///
/// Full: 260 steps. In 260 steps light crosses 149 cells; with 80 cells from the source
/// to every face of the 180³ reference (plus its own CPML), no reflection reaches the
/// probe in the window.
///
/// [`Size::Quick`]: the same in 2D (`scene_text`'s slab: 44 × 44 and 180 × 180 cells,
/// one thick, 1/44 and 1/180 of the cell updates): the same CPML profile, distances and
/// record, so the same angles of incidence (the corner region included), but a line
/// source, whose wave falls as 1/√r instead of 1/r. The echoes of the far faces are
/// therefore weaker relative to the direct pulse by less than in 3D: by at most
/// √(34/12) ≈ 1.7 (4.5 dB) for the −x face (34 cells of path against the direct 12),
/// against a margin of over 30 dB (−94 dB measured in 3D, −92 dB in 2D): −60 dB holds.
pub fn reflection(spec: &BackendSpec, size: Size) -> Result<CaseResult, CaseError> {
    let mut cx = Ctx::new(REFLECTION.name, spec, size);
    let slab = size == Size::Quick;
    let (m_small, small) = cx.run("small", &scene_text(44, 10, 260, slab))?;
    let (m_ref, reference) = cx.run("reference", &scene_text(180, 10, 260, slab))?;
    let mut worst = 0f64;
    let comps = if slab {
        [Component::Ex, Component::Ez, Component::Hy]
    } else {
        [Component::Ez, Component::Ex, Component::Hy]
    };
    for c in comps {
        let (_, a) = small.series(&m_small, "p", c).unwrap();
        let (_, b) = reference.series(&m_ref, "p", c).unwrap();
        let peak = b.iter().fold(0f32, |m, x| m.max(x.abs())) as f64;
        let diff = a.iter().zip(b).map(|(x, y)| (x - y).abs() as f64).fold(0.0, f64::max);
        if peak == 0.0 && diff == 0.0 {
            cx.log(format!("{c}: zero in both runs"));
        } else {
            cx.log(format!(
                "{c}: peak {peak:.3e}, max difference {diff:.3e} ({:.1} dB)",
                20.0 * (diff / peak).log10()
            ));
        }
        if c == comps[0] {
            worst = diff / peak;
        }
    }
    let db = 20.0 * worst.log10();
    cx.log(format!("reflection {db:.1} dB"));
    cx.check(
        format!("{} reflection: max |small − ref.| / peak", comps[0]),
        Bound::AtMost(-60.0),
        db,
        "dB",
    );
    Ok(cx.finish())
}

/// Thin layers (1 and 2 cells, where the E profile has 0 and 1 planes) must run and
/// absorb something, never fail: a regression test for a 1-cell layer.
pub fn thin(spec: &BackendSpec, size: Size) -> Result<CaseResult, CaseError> {
    let mut cx = Ctx::new(THIN.name, spec, size);
    let (mut non_finite, mut late_peak) = (0, Vec::new());
    for cells in [1, 2] {
        let (m, sink) = cx.run(&format!("cpml{cells}"), &scene_text(30, cells, 260, false))?;
        let (_, v) = sink.series(&m, "p", Component::Ez).unwrap();
        non_finite += v.iter().filter(|x| !x.is_finite()).count();
        // Late-time field far below the pulse peak: the layer absorbs.
        let peak = v.iter().fold(0f32, |a, x| a.max(x.abs()));
        let late = v[v.len() - 20..].iter().fold(0f32, |a, x| a.max(x.abs()));
        cx.log(format!("{cells}-cell CPML: late/peak {:.2e}", late / peak));
        late_peak.push((format!("{cells}-cell"), (late / peak) as f64));
    }
    cx.check(
        "non-finite Ez samples, 1- and 2-cell CPML",
        Bound::AtMost(0.0),
        non_finite as f64,
        "",
    );
    let (which, r) = largest(late_peak);
    cx.check_worst("late |Ez| / peak (last 20 steps)", Bound::Below(0.2), r, "", which);
    Ok(cx.finish())
}

//! PEC rectangular cavity: resonant frequencies against the Yee grid's dispersion
//! relation and the continuum formula; the same box with PMC walls at x, whose extra
//! modes theory predicts.
use super::{largest, smallest, BackendSpec, Bound, Case, CaseError, CaseResult, Ctx, Size};
use crate::{cavity_mode, cavity_mode_yee, spectral_peak, windowed_dtft};
use fdtd_core::Component;

/// 30 × 24 × 18 cells of 1 mm, all faces PEC, excited off-centre by a broadband
/// gaussian current; Ez, Hx recorded at another off-centre point every step.
const CAVITY: &str = r#"
[domain]
cell = 1e-3
cells = [30, 24, 18]
[time]
steps = 12000
courant = 0.99
[boundaries]
all = "pec"
[[sources]]
type = "current"
component = "Ez"
position = [0.0071, 0.0053, 0.0043]
waveform = { type = "gaussian", frequency = 20e9 }
[[sources]]
type = "current"
component = "Hx"
position = [0.0211, 0.0173, 0.0111]
waveform = { type = "gaussian", frequency = 20e9, amplitude = 300.0 }
[[sources]]
type = "current"
component = "Ex"
position = [0.0121, 0.0093, 0.0127]
waveform = { type = "gaussian", frequency = 20e9 }
[[probes]]
name = "p"
position = [0.0213, 0.0147, 0.0062]
components = ["Ex", "Ez", "Ey", "Hx"]
"#;

const SIZE: [f64; 3] = [0.030, 0.024, 0.018];

/// Modes checked: (1,1,0) TM, (1,0,1), (0,1,1) and (1,1,1); each is separated from the
/// others by many spectral bins of the 23 ns record.
const MODES: [[u32; 3]; 4] = [[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]];

/// The cavity scene; `pmc`: PMC walls at x = 0 and x = a.
///
/// [`Size::Full`]: 1 mm cells, 12000 steps (a 23 ns record). The record length is what
/// resolves the lines: the (1,1,1) mode (11.55 GHz) has a neighbour, (2,1,0) at
/// 11.79 GHz, 5.5 bins away in 23 ns; a much shorter record would put it inside the
/// Blackman–Harris main lobe (±4 bins) and bias the estimate.
///
/// [`Size::Quick`]: the same box in 2 mm cells (15 × 12 × 9, 1/8 of the cells) for 6000
/// steps, the same 23 ns record at twice the step (so the same resolution of the same
/// lines). The Yee dispersion relation is exact on any grid: its bound (0.02 %) is
/// unchanged. The continuum bound is 4× the full size's, 0.4 %: the Yee dispersion
/// error grows as (k·d)², and at 9–15 cells per half wavelength theory puts these modes
/// 0.06–0.34 % below the continuum (`cavity_mode_yee` against `cavity_mode`).
fn scene_text(pmc: bool, size: Size) -> String {
    let text = match size {
        Size::Full => CAVITY.to_string(),
        Size::Quick => CAVITY
            .replace("cell = 1e-3\ncells = [30, 24, 18]", "cell = 2e-3\ncells = [15, 12, 9]")
            .replace("steps = 12000", "steps = 6000"),
    };
    assert!(size == Size::Full || text.contains("steps = 6000\n") && text.contains("cells = [15, 12, 9]"));
    if pmc {
        text.replace(r#"all = "pec""#, "all = \"pec\"\nx = \"pmc\"")
    } else {
        text
    }
}

/// The bound on the distance from the continuum formula at `size` (see [`scene_text`]).
fn continuum_bound(size: Size) -> f64 {
    match size {
        Size::Full => 1e-3,
        Size::Quick => 4e-3,
    }
}

pub const PEC: Case = Case {
    name: "cavity-pec",
    about: "PEC cavity, 4 modes: Yee dispersion relation and continuum formula",
    run: pec,
};

pub const PMC: Case = Case {
    name: "cavity-pmc",
    about: "PMC walls at x: modes (0,1,0), (0,0,1) present, absent with PEC walls",
    run: pmc,
};

/// The four modes of the PEC box at their Yee frequencies (≤ 0.02 %) and near their
/// continuum frequencies (≤ 0.1 %; 0.4 % at the quick size, see [`scene_text`]).
pub fn pec(spec: &BackendSpec, size: Size) -> Result<CaseResult, CaseError> {
    let mut cx = Ctx::new(PEC.name, spec, size);
    let mut errors = Vec::new();
    modes(&mut cx, "pec", &scene_text(false, size), &MODES, &mut errors)?;
    mode_checks(&mut cx, &errors, size);
    Ok(cx.finish())
}

/// The same box with PMC walls at x = 0 and x = a: tangential E follows cos(mπx/a)
/// instead of sin(mπx/a). That admits modes a PEC box lacks: (0,1,0) (Ez ∝ sin(πy/b),
/// uniform in x) and (0,0,1) (Ey ∝ sin(πz/d)), at c/2b and c/2d. They must appear at
/// their Yee frequencies here, and be absent from the PEC box; the modes of the PEC
/// box must still be there (their PMC counterparts share the frequencies).
pub fn pmc(spec: &BackendSpec, size: Size) -> Result<CaseResult, CaseError> {
    let mut cx = Ctx::new(PMC.name, spec, size);
    let mut errors = Vec::new();
    let pmc = modes(
        &mut cx,
        "pmc",
        &scene_text(true, size),
        &[[0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 1, 1]],
        &mut errors,
    )?;
    let pec = modes(&mut cx, "pec", &scene_text(false, size), &[[1, 1, 0]], &mut errors)?;
    mode_checks(&mut cx, &errors, size);
    let (mut absent, mut present) = (Vec::new(), Vec::new());
    for mode in [[0, 1, 0], [0, 0, 1]] {
        let f = cavity_mode_yee(SIZE, mode, pec.d, pec.dt);
        let reference = windowed_dtft(&pec.series, pec.dt, cavity_mode_yee(SIZE, [1, 1, 0], pec.d, pec.dt));
        let a = windowed_dtft(&pec.series, pec.dt, f) / reference;
        let p = windowed_dtft(&pmc.series, pmc.dt, f)
            / windowed_dtft(&pmc.series, pmc.dt, cavity_mode_yee(SIZE, [1, 1, 0], pmc.d, pmc.dt));
        cx.log(format!(
            "mode {mode:?}: PEC box {a:.2e}, PMC-x box {p:.2e} (relative to mode 110)"
        ));
        absent.push((mode_name(mode), a));
        present.push((mode_name(mode), p));
    }
    let (which, a) = largest(absent);
    cx.check_worst(
        "PEC box line at PMC-only mode / (1,1,0)",
        Bound::Below(1e-3),
        a,
        "",
        which,
    );
    let (which, p) = smallest(present);
    cx.check_worst(
        "PMC-x box line at that mode / (1,1,0)",
        Bound::Above(1e-2),
        p,
        "",
        which,
    );
    Ok(cx.finish())
}

/// `(m,n,p)`.
fn mode_name(m: [u32; 3]) -> String {
    format!("({},{},{})", m[0], m[1], m[2])
}

/// A cavity run: its probes summed (each normalised to its peak), cell size and dt.
struct Record {
    series: Vec<f64>,
    d: [f64; 3],
    dt: f64,
}

/// Frequency errors of one mode: (run and mode, vs Yee, vs continuum).
type ModeError = (String, f64, f64);

/// Run a cavity scene and measure `modes` against theory.
fn modes(
    cx: &mut Ctx,
    label: &str,
    scene_text: &str,
    modes: &[[u32; 3]],
    errors: &mut Vec<ModeError>,
) -> Result<Record, CaseError> {
    let (model, sink) = cx.run(label, scene_text)?;
    let g = &model.grid;
    let mut series: Vec<f64> = Vec::new();
    for c in [Component::Ex, Component::Ez, Component::Ey, Component::Hx] {
        let (_, v) = sink.series(&model, "p", c).unwrap();
        let peak = v.iter().fold(0f32, |m, x| m.max(x.abs())) as f64;
        if series.is_empty() {
            series = v.iter().map(|&x| x as f64 / peak).collect();
        } else {
            for (s, &x) in series.iter_mut().zip(v) {
                *s += x as f64 / peak;
            }
        }
    }
    for &mode in modes {
        let f_yee = cavity_mode_yee(SIZE, mode, g.d, g.dt);
        let f_cont = cavity_mode(SIZE, mode);
        let f = spectral_peak(&series, g.dt, f_yee * 0.99, f_yee * 1.01);
        let e_yee = (f - f_yee).abs() / f_yee;
        let e_cont = (f - f_cont).abs() / f_cont;
        cx.log(format!(
            "{label} mode {mode:?}: fdtd {f:.6e} Hz, yee {f_yee:.6e} ({e_yee:.2e}), continuum {f_cont:.6e} ({e_cont:.2e})"
        ));
        errors.push((format!("{label} {}", mode_name(mode)), e_yee, e_cont));
    }
    Ok(Record {
        series,
        d: g.d,
        dt: g.dt,
    })
}

fn mode_checks(cx: &mut Ctx, errors: &[ModeError], size: Size) {
    // The Yee grid's own dispersion relation is exact for a grid mode; what is left is
    // the spectral estimator's bias from the neighbouring lines (<1e-5 for this
    // record) and f32 rounding: 0.02 % holds with two orders of margin.
    let (which, e) = largest(errors.iter().map(|(w, e, _)| (w.clone(), *e)));
    cx.check_worst(
        "frequency vs Yee dispersion relation",
        Bound::AtMost(2e-4),
        e,
        "",
        which,
    );
    // At 18–30 cells per half wavelength the Yee dispersion error is
    // (k·d)²/24 per axis ≈ 5e-4 at most, minus the Courant correction: ≤ 0.1 %
    // (at full size; see `scene_text` for the quick size).
    let (which, e) = largest(errors.iter().map(|(w, _, e)| (w.clone(), *e)));
    cx.check_worst(
        "frequency vs continuum formula",
        Bound::AtMost(continuum_bound(size)),
        e,
        "",
        which,
    );
}

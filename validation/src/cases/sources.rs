//! Source normalisation against 1D theory: in a 1 × 1-cell column with periodic x and
//! y faces a point source is an infinite sheet, so its plane waves have closed forms.
use super::{BackendSpec, Bound, Case, CaseError, CaseResult, Ctx, Size};
use fdtd_core::{Component, C0, ETA0};

fn column(kind: &str, amplitude: f64) -> String {
    format!(
        r#"
[domain]
cell = 1e-3
cells = [1, 1, 300]
[time]
steps = 700
[boundaries]
x = "periodic"
y = "periodic"
z = "cpml"
[boundaries.cpml]
cells = 20
[[sources]]
type = "{kind}"
component = "Ex"
position = [0.0005, 0.0, 0.1]
waveform = {{ type = "gaussian", frequency = 4e9, amplitude = {amplitude} }}
[[probes]]
name = "p"
position = [0.0005, 0.0, 0.2]
components = ["Ex"]
"#
    )
}

/// max |a(t) − b(t)| / max |b(t)| over the probe's samples.
fn peak_error(times: &[f64], values: &[f32], expect: impl Fn(f64) -> f64) -> f64 {
    let (mut num, mut den) = (0f64, 0f64);
    for (&t, &v) in times.iter().zip(values) {
        let e = expect(t);
        num = num.max((v as f64 - e).abs());
        den = den.max(e.abs());
    }
    num / den
}

pub const CURRENT_SHEET: Case = Case {
    name: "source-current",
    about: "soft current sheet in a periodic column: E = −η0·K/2",
    run: current_sheet,
};

pub const HARD: Case = Case {
    name: "source-hard",
    about: "hard source in a periodic column: E = f(t − d/c)",
    run: hard,
};

/// A current moment m (A·m) in one 1 mm cell of a periodic column is a sheet current
/// K = m/(dx·dy) (A/m); a sheet radiates E = −η0·K/2 both ways (Jackson 7.x / Balanis
/// 5.x), delayed by the distance over c. The pulse (content to ~12 GHz, ≥ 25 cells per
/// wavelength) travels 100 cells: grid dispersion delays its high end slightly; 1 % of
/// the peak bounds it. Every size is the same (300 cells).
pub fn current_sheet(spec: &BackendSpec, size: Size) -> Result<CaseResult, CaseError> {
    let mut cx = Ctx::new(CURRENT_SHEET.name, spec, size);
    let m = 1e-6;
    let (model, sink) = cx.run("sheet", &column("current", m))?;
    let w = model.sources[0].waveform.clone();
    let dist = 0.1;
    let (t, v) = sink.series(&model, "p", Component::Ex).unwrap();
    let sheet = |t: f64| w.eval(t) / (1e-3 * 1e-3); // K = m/(dx·dy)
    let err = peak_error(t, v, |t| -ETA0 * sheet(t - dist / C0) / 2.0);
    cx.log(format!("current sheet: error {err:.4} of the peak"));
    cx.check("max |E − (−η0·K/2)| / peak", Bound::Below(0.01), err, "");
    Ok(cx.finish())
}

/// A hard source forces E = f(t) on its plane; in 1D the wave leaving it is f itself.
/// Every size is the same (300 cells).
pub fn hard(spec: &BackendSpec, size: Size) -> Result<CaseResult, CaseError> {
    let mut cx = Ctx::new(HARD.name, spec, size);
    let (model, sink) = cx.run("hard", &column("hard", 3.0))?;
    let w = model.sources[0].waveform.clone();
    let (t, v) = sink.series(&model, "p", Component::Ex).unwrap();
    let err = peak_error(t, v, |t| w.eval(t - 0.1 / C0));
    cx.log(format!("hard source: error {err:.4} of the peak"));
    cx.check("max |E − f(t − d/c)| / peak", Bound::Below(0.01), err, "");
    Ok(cx.finish())
}

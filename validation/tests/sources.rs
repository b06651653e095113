//! Source normalisation against 1D theory: in a 1 × 1-cell column with periodic x and
//! y faces a point source is an infinite sheet, so its plane waves have closed forms.
use fdtd::backend::BackendChoice;
use fdtd::{Component, C0, ETA0};
use fdtd_validation::*;

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

#[test]
fn current_sheet_radiates_minus_eta0_k_over_2() {
    // A current moment m (A·m) in one 1 mm cell of a periodic column is a sheet current
    // K = m/(dx·dy) (A/m); a sheet radiates E = −η0·K/2 both ways (Jackson 7.x /
    // Balanis 5.x), delayed by the distance over c.
    let m = 1e-6;
    let (model, sink) = run_scene(&column("current", m), BackendChoice::Cpu);
    let w = model.sources[0].waveform.clone();
    let dist = 0.1;
    let (t, v) = sink.series(&model, "p", Component::Ex).unwrap();
    let sheet = |t: f64| w.eval(t) / (1e-3 * 1e-3); // K = m/(dx·dy)
    let err = peak_error(t, v, |t| -ETA0 * sheet(t - dist / C0) / 2.0);
    println!("current sheet: error {err:.4} of the peak");
    // The pulse (content to ~12 GHz, ≥ 25 cells per wavelength) travels 100 cells:
    // grid dispersion delays its high end slightly; 1 % of the peak bounds it.
    assert!(err < 0.01, "current sheet field off by {err:.4} of its peak");
}

#[test]
fn hard_source_sets_the_field_that_propagates() {
    // A hard source forces E = f(t) on its plane; in 1D the wave leaving it is f itself.
    let (model, sink) = run_scene(&column("hard", 3.0), BackendChoice::Cpu);
    let w = model.sources[0].waveform.clone();
    let (t, v) = sink.series(&model, "p", Component::Ex).unwrap();
    let err = peak_error(t, v, |t| w.eval(t - 0.1 / C0));
    println!("hard source: error {err:.4} of the peak");
    assert!(err < 0.01, "hard source field off by {err:.4} of its peak");
}

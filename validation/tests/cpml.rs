//! CPML reflection against a reference run in a domain whose boundary is not seen.
use fdtd::backend::BackendChoice;
use fdtd::Component;
use fdtd_validation::*;

/// A Ricker current source with a probe 2 cells from the +x CPML (and near a corner
/// region in y), in a domain of `n` cells per side with a `cpml`-cell CPML. The source
/// sits at a fixed offset from the probe, so domains of any size share the geometry
/// relative to source and probe.
fn scene_text(n: usize, cpml: usize, extra: &str) -> String {
    let d = 1e-3;
    let centre = n / 2;
    // Interior half-width of the small domain is 12 cells: the probe is 10 cells +x of
    // the source, i.e. 2 cells from the +x CPML, and 6 cells +y of it.
    let s = [centre as f64 * d, centre as f64 * d, (centre as f64 + 0.5) * d];
    // +0.2 cell keeps every component away from a rounding tie when snapping.
    let p = [s[0] + 10.2 * d, s[1] + 6.2 * d, s[2] + 0.2 * d];
    format!(
        r#"
[domain]
cell = {d}
cells = [{n}, {n}, {n}]
[time]
steps = 260
courant = 0.99
[boundaries]
all = "cpml"
[boundaries.cpml]
cells = {cpml}
{extra}
[[sources]]
type = "current"
component = "Ez"
position = [{s0}, {s1}, {s2}]
waveform = {{ type = "ricker", frequency = 10e9, amplitude = 1e-3 }}
[[probes]]
name = "p"
position = [{p0}, {p1}, {p2}]
components = ["Ez", "Ex", "Hy"]
"#,
        s0 = s[0],
        s1 = s[1],
        s2 = s[2],
        p0 = p[0],
        p1 = p[1],
        p2 = p[2],
    )
}

fn reflection(extra: &str) -> f64 {
    // Small: 24-cell interior + 10-cell CPML on each side.
    let (m_small, small) = run_scene(&scene_text(44, 10, extra), BackendChoice::Cpu);
    // Reference: in 260 steps light crosses 149 cells; with 80 cells from the source to
    // every face (plus its own CPML), no reflection reaches the probe in the window.
    let (m_ref, reference) = run_scene(&scene_text(180, 10, ""), BackendChoice::Cpu);
    let mut worst = 0f64;
    for c in [Component::Ez, Component::Ex, Component::Hy] {
        let (_, a) = small.series(&m_small, "p", c).unwrap();
        let (_, b) = reference.series(&m_ref, "p", c).unwrap();
        let peak = b.iter().fold(0f32, |m, x| m.max(x.abs())) as f64;
        let diff = a.iter().zip(b).map(|(x, y)| (x - y).abs() as f64).fold(0.0, f64::max);
        println!(
            "{c}: peak {peak:.3e}, max difference {diff:.3e} ({:.1} dB)",
            20.0 * (diff / peak).log10()
        );
        if c == Component::Ez {
            worst = diff / peak;
        }
    }
    worst
}

#[test]
fn ten_cell_cpml_reflects_below_minus_60_db() {
    let r = reflection("");
    let db = 20.0 * r.log10();
    println!("reflection {db:.1} dB");
    assert!(db <= -60.0, "CPML reflection {db:.1} dB");
}

/// Thin layers (1 and 2 cells, where the E profile has 0 and 1 planes) must run and
/// absorb something, never fail: a regression test for a 1-cell layer.
#[test]
fn thin_cpml_layers_run_and_absorb() {
    for cells in [1, 2] {
        let text = scene_text(30, cells, "");
        let (m, sink) = run_scene(&text, BackendChoice::Cpu);
        let (_, v) = sink.series(&m, "p", Component::Ez).unwrap();
        assert!(v.iter().all(|x| x.is_finite()), "{cells}-cell CPML went non-finite");
        // Late-time field far below the pulse peak: the layer absorbs.
        let peak = v.iter().fold(0f32, |a, x| a.max(x.abs()));
        let late = v[v.len() - 20..].iter().fold(0f32, |a, x| a.max(x.abs()));
        println!("{cells}-cell CPML: late/peak {:.2e}", late / peak);
        assert!(
            late < 0.2 * peak,
            "{cells}-cell CPML does not absorb: late/peak {}",
            late / peak
        );
    }
}

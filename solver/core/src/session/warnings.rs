//! Warnings that catch unit mistakes and empty outputs before a run: a source whose
//! spectrum the run cannot see (`frequency = 3` meant as GHz is 3 Hz, far below what a
//! few nanoseconds resolve; `3e12` is far above what the cells resolve), no source at all,
//! a probe or snapshot that records nothing. Each such run would otherwise finish with
//! zeros (or noise) and exit 0.
use crate::fmt::{hz, si, sig};
use crate::model::Model;
use crate::scene::{MaterialKind, Scene};
use crate::waveform::{WaveShape, Waveform};
use crate::C0;

/// The frequency a user wrote for `w` (the `frequency` key), or its equivalent.
fn written_frequency(w: &Waveform) -> f64 {
    match w.shape {
        // Gaussians are written as their characteristic frequency 1/(π√2·τ).
        WaveShape::Gaussian { tau } | WaveShape::GaussianDerivative { tau } => {
            1.0 / (std::f64::consts::PI * std::f64::consts::SQRT_2 * tau)
        }
        WaveShape::Ricker { frequency }
        | WaveShape::ModulatedGaussian { frequency, .. }
        | WaveShape::Sine { frequency, .. } => frequency,
    }
}

/// The frequency `f` was probably meant as: `f` times or divided by 10³ⁿ, the first such
/// that lands in `lo..=hi` (`3` → `3 GHz` when the run resolves 0.5 to 30 GHz).
fn meant(f: f64, lo: f64, hi: f64) -> Option<String> {
    const K: [f64; 4] = [1e3, 1e6, 1e9, 1e12];
    K.iter()
        .map(|k| f * k)
        .chain(K.iter().map(|k| f / k))
        .find(|g| (lo..=hi).contains(g))
        .map(|g| {
            // Six significant digits: the gaussian's frequency comes back through τ.
            let g: f64 = format!("{g:.5e}").parse().unwrap_or(g);
            format!("{} (frequency = {g:e})", hz(g))
        })
}

/// Drives that give no defined result (issue 19): a driven port of amplitude 0 (its S
/// is b/a with a = 0: NaN at every frequency), and a hard source on a PEC edge (it sets
/// the field inside a conductor, which the PEC update then holds at zero or not, by
/// backend order: either way not what a scene means).
fn drive_warnings(scene: &Scene, model: &Model) -> Vec<String> {
    let mut out = Vec::new();
    for p in scene.ports.iter().filter(|p| p.excite) {
        if p.waveform.as_ref().is_some_and(|w| w.amplitude == 0.0) {
            out.push(format!(
                "port {}: driven with amplitude 0: the incident wave is zero, so its S (and the Touchstone file) \
                 is not a number at every frequency; give the waveform a non-zero amplitude",
                p.name
            ));
        }
    }
    for s in model.sources.iter().filter(|s| !s.line) {
        let on_pec =
            s.component.is_electric() && model.coefs.e_props[model.mat[s.component.index()][s.flat] as usize].is_none();
        if on_pec && s.kind == crate::scene::SourceKind::Hard {
            out.push(format!(
                "source {}: a hard source on a PEC edge ({} sample {:?}): it forces a field inside a conductor; \
                 move it off the conductor or into a gap",
                s.name, s.component, s.index
            ));
        }
    }
    out
}

/// Everything worth a warning about `scene` as discretised in `model`, in scene order.
pub fn scene_warnings(scene: &Scene, model: &Model) -> Vec<String> {
    let mut out = Vec::new();
    let g = &model.grid;
    let t_end = g.steps as f64 * g.dt;
    if scene.sources.is_empty() && scene.plane_waves.is_empty() && !scene.ports.iter().any(|p| p.excite) {
        out.push(
            "the scene has no sources: every field stays zero (add a [[sources]] entry or a driven [[ports]] entry)"
                .to_string(),
        );
    }
    // Objects that leave no trace on the grid, wire radii a cylinder describes better.
    out.extend(crate::model::thin::warnings(scene, g));
    if let Some((asked, used)) = model.wire_courant {
        out.push(format!(
            "the time step is {} % of what [time] courant = {} gives (Courant factor {}): the thin-wire correction \
             at a feed gap of a wire thicker than about 0.3 cell needs a shorter step to stay stable; the run \
             takes {} steps",
            crate::fmt::sig(100.0 * used / asked, 3),
            asked,
            crate::fmt::sig(used, 3),
            g.steps
        ));
    }
    out.extend(drive_warnings(scene, model));
    // A current source on a PEC edge (a wire driven without a gap) is scaled by the
    // edge's zero coefficient.
    for s in model.sources.iter().filter(|s| !s.line) {
        let on_pec =
            s.component.is_electric() && model.coefs.e_props[model.mat[s.component.index()][s.flat] as usize].is_none();
        if on_pec && s.kind == crate::scene::SourceKind::Current {
            out.push(format!(
                "source {}: its {} sample {:?} is a PEC edge, so the current adds nothing; leave a one-edge gap \
                 in the conductor there",
                s.name, s.component, s.index
            ));
        }
    }
    // The band the run resolves: at least one period within the run, and 10 cells per
    // wavelength in the slowest material.
    let nmax = scene
        .materials
        .iter()
        .map(|m| match m.kind {
            MaterialKind::Pec => 1.0,
            MaterialKind::Dielectric { eps_r, mu_r, .. } => (eps_r * mu_r).sqrt(),
        })
        .fold(1.0, f64::max);
    let dmax = g.d.iter().copied().fold(0.0, f64::max);
    let f_lo = 1.0 / t_end;
    let f_hi = C0 / (nmax * dmax * 10.0);
    for (i, s) in scene.sources.iter().enumerate() {
        let w = &s.waveform;
        let key = format!("sources[{i}] ({})", s.name);
        if w.amplitude == 0.0 {
            out.push(format!("{key}: amplitude 0: this source adds nothing"));
            continue;
        }
        let f = written_frequency(w);
        let top = w.max_frequency();
        let hint = |lo: f64, hi: f64| match meant(f, lo, hi) {
            Some(m) => format!("; did you mean {m}?"),
            None => String::new(),
        };
        if top < f_lo {
            out.push(format!(
                "{key}: frequency {} is far below what the run resolves: the whole spectrum lies under {}, one \
                 period of the {} simulated{}",
                hz(f),
                hz(f_lo),
                si(t_end, "s"),
                hint(f_lo, f_hi)
            ));
        } else if w.delay > t_end && !matches!(w.shape, WaveShape::Sine { .. }) {
            out.push(format!(
                "{key}: the pulse peaks at t = {}, after the run ends ({} simulated): probes see almost nothing",
                si(w.delay, "s"),
                si(t_end, "s")
            ));
        }
        let cpw = C0 / (nmax * f * dmax);
        if cpw < 2.0 {
            out.push(format!(
                "{key}: frequency {} is above what the cells resolve ({} cells per wavelength; the grid aliases \
                 below 2){}",
                hz(f),
                sig(cpw, 2),
                hint(f_lo, f_hi)
            ));
        }
    }
    // Frequencies, lengths, ports, objects and boxes that give wrong numbers (guards.rs).
    out.extend(super::guards::warnings(scene, model));
    for p in &model.probes {
        if p.every > g.steps {
            out.push(format!(
                "probe {}: every = {} is more than the run's {} steps: it records nothing",
                p.name, p.every, g.steps
            ));
        }
    }
    for s in &model.snapshots {
        if s.every > g.steps {
            out.push(format!(
                "snapshot {}: every = {} is more than the run's {} steps: it records nothing",
                s.name, s.every, g.steps
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warnings(toml: &str) -> Vec<String> {
        let scene = Scene::parse(toml, "t.toml").unwrap();
        let model = Model::discretize(&scene).unwrap();
        scene_warnings(&scene, &model)
    }

    const BASE: &str = r#"
[domain]
cell = 1e-3
size = [0.02, 0.02, 0.02]
[time]
duration = 2e-9
[boundaries]
all = "pec"
"#;

    fn with_source(freq: &str) -> String {
        format!(
            "{BASE}[[sources]]\ntype = \"current\"\ncomponent = \"Ez\"\nposition = [0.01, 0.01, 0.01]\n\
             waveform = {{ type = \"gaussian\", frequency = {freq} }}\n"
        )
    }

    #[test]
    fn a_frequency_without_its_unit_is_caught_with_the_likely_one() {
        let w = warnings(&with_source("3"));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("far below what the run resolves"), "{}", w[0]);
        assert!(w[0].contains("did you mean 3 GHz (frequency = 3e9)?"), "{}", w[0]);
        let w = warnings(&with_source("3e13"));
        assert!(w.iter().any(|m| m.contains("above what the cells resolve")), "{w:?}");
        assert!(warnings(&with_source("3e9")).is_empty());
    }

    #[test]
    fn no_source_and_silent_outputs_are_caught() {
        let toml = format!(
            "{BASE}[[probes]]\nname = \"p\"\nposition = [0.01, 0.01, 0.01]\ncomponents = [\"Ez\"]\nevery = 100000\n"
        );
        let w = warnings(&toml);
        assert!(w.iter().any(|m| m.contains("no sources")), "{w:?}");
        assert!(w.iter().any(|m| m.contains("probe p: every = 100000")), "{w:?}");
    }

    #[test]
    fn a_hard_source_in_pec_and_a_port_of_zero_drive_are_caught() {
        let hard = |pos: &str| {
            format!(
                "{BASE}[[objects]]\nshape = \"box\"\nmaterial = \"pec\"\n\
                 min = [0.005, 0.005, 0.005]\nmax = [0.012, 0.012, 0.012]\n[[sources]]\nname = \"h\"\ntype = \"hard\"\n\
                 component = \"Ez\"\nposition = {pos}\nwaveform = {{ type = \"gaussian\", frequency = 3e9 }}\n"
            )
        };
        let w = warnings(&hard("[0.008, 0.008, 0.008]"));
        assert!(
            w.iter().any(|m| m.contains("source h: a hard source on a PEC edge")),
            "{w:?}"
        );
        let w = warnings(&hard("[0.016, 0.016, 0.016]"));
        assert!(!w.iter().any(|m| m.contains("PEC edge")), "{w:?}");

        let port = |amp: &str| {
            format!(
                "{BASE}[frequencies]\nstart = 1e9\nstop = 5e9\n[[ports]]\nname = \"p\"\nstart = [0.01, 0.01, 0.009]\n\
                 end = [0.01, 0.01, 0.011]\nwaveform = {{ type = \"gaussian\", frequency = 3e9, amplitude = {amp} }}\n"
            )
        };
        let w = warnings(&port("0"));
        assert!(w.iter().any(|m| m.contains("port p: driven with amplitude 0")), "{w:?}");
        let w = warnings(&port("1"));
        assert!(!w.iter().any(|m| m.contains("amplitude 0")), "{w:?}");
    }
}

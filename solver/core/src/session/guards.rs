//! Guards against confident wrong answers: scene mistakes that a run would otherwise
//! turn into plausible numbers with exit code 0. Computed once here, from the scene and
//! its model, and shown by both `fdtd check` and `fdtd run` (through
//! [`super::scene_warnings`] and [`super::load`]); each message starts with the
//! `file:line:col: key` of the value it is about ([`Scene::at`]).
//!
//! * frequencies asked for (`[frequencies]`, a monitor's or far field's `frequencies`)
//!   outside the band of the waveforms that drive the run (below −40 dB of their
//!   spectrum's peak), above the grid's Nyquist frequency, or with under 10 cells per
//!   wavelength; with a unit hint when scaling by 10³ⁿ would put them in the band;
//! * lengths that only make sense in millimetres;
//! * a port whose ends touch no conductor;
//! * an object reaching into a CPML layer;
//! * (errors) a flux or far-field box that crosses an object, a non-vacuum material,
//!   a port or the CPML; a far-field box in a domain with a PEC/PMC face it does not
//!   lie on.
use crate::fmt::{hz, sig};
use crate::model::{FaceKind, Model};
use crate::monitors::Kind;
use crate::scene::{Boundaries, Boundary, MaterialKind, Scene, SceneError};
use crate::waveform::Waveform;
use crate::{Component, C0};

/// Spectrum level (relative to the peak) below which a frequency is out of band: −40 dB.
pub const BAND_FLOOR: f64 = 0.01;

/// The magnitude spectrum of one driving waveform over the run, as the run sees it
/// (truncated at its end).
struct Spectrum {
    /// Samples of the waveform where it is not negligible (a time shift leaves |S| as is).
    samples: Vec<f64>,
    h: f64,
    /// Above this the waveform has nothing significant ([`Waveform::max_frequency`]).
    top: f64,
    peak: f64,
}

impl Spectrum {
    fn new(w: &Waveform, t_end: f64) -> Spectrum {
        let top = w.max_frequency();
        let h = 1.0 / (20.0 * top.max(1.0 / t_end));
        let n = ((t_end / h).ceil() as usize).clamp(2, 4_000_000);
        let h = t_end / n as f64;
        let all: Vec<f64> = (0..=n).map(|i| w.eval(i as f64 * h)).collect();
        let amax = all.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let first = all.iter().position(|v| v.abs() > 1e-9 * amax).unwrap_or(0);
        let last = all.iter().rposition(|v| v.abs() > 1e-9 * amax).unwrap_or(n);
        let mut s = Spectrum {
            samples: all[first..=last.max(first)].to_vec(),
            h,
            top,
            peak: 0.0,
        };
        s.peak = (0..=400).map(|i| s.raw(top * i as f64 / 400.0)).fold(0.0, f64::max);
        s
    }

    /// |S(f)| (unnormalised), by a rotating phasor.
    fn raw(&self, f: f64) -> f64 {
        let w = 2.0 * std::f64::consts::PI * f * self.h;
        let (ds, dc) = w.sin_cos();
        let (mut c, mut s) = (1.0, 0.0);
        let (mut re, mut im) = (0.0, 0.0);
        for &v in &self.samples {
            re += v * c;
            im -= v * s;
            (c, s) = (c * dc - s * ds, s * dc + c * ds);
        }
        (re * re + im * im).sqrt()
    }

    /// |S(f)| relative to its peak (0 above the waveform's top frequency).
    fn level(&self, f: f64) -> f64 {
        if self.peak.is_nan() || self.peak <= 0.0 || f > self.top {
            return 0.0;
        }
        self.raw(f) / self.peak
    }
}

/// The waveforms that drive a set of results, and their band.
pub struct Drive {
    spectra: Vec<Spectrum>,
}

impl Drive {
    /// The driving waveforms of port results (the driven ports' waveforms when the
    /// scene has ports), or of fields (every source and driven port).
    pub fn new(scene: &Scene, t_end: f64, ports: bool) -> Drive {
        let port_waves: Vec<&Waveform> = scene.ports.iter().filter_map(|p| p.waveform.as_ref()).collect();
        let waves: Vec<&Waveform> = if ports && !port_waves.is_empty() {
            port_waves
        } else {
            scene.sources.iter().map(|s| &s.waveform).chain(port_waves).collect()
        };
        Drive {
            spectra: waves
                .into_iter()
                .filter(|w| w.amplitude != 0.0)
                .map(|w| Spectrum::new(w, t_end))
                .collect(),
        }
    }

    /// Whether nothing drives the run (no band to test against).
    pub fn is_empty(&self) -> bool {
        self.spectra.is_empty()
    }

    /// Whether `f` is within −40 dB of some driving waveform's peak.
    pub fn in_band(&self, f: f64) -> bool {
        self.is_empty() || self.spectra.iter().any(|s| s.level(f) >= BAND_FLOOR)
    }

    /// The lowest and highest in-band frequency (a 400-point scan).
    fn band(&self) -> (f64, f64) {
        let top = self.spectra.iter().map(|s| s.top).fold(0.0, f64::max);
        let scan: Vec<f64> = (0..=400)
            .map(|i| top * i as f64 / 400.0)
            .filter(|&f| self.in_band(f))
            .collect();
        (
            scan.first().copied().unwrap_or(0.0),
            scan.last().copied().unwrap_or(top),
        )
    }
}

/// The grid's Nyquist frequency 1/(2 dt).
pub fn nyquist(model: &Model) -> f64 {
    0.5 / model.grid.dt
}

/// For each of `freqs`, whether the run cannot resolve it: outside the driving band
/// ([`Drive`]) or not below the grid's Nyquist frequency. `ports`: port results (driven
/// by the ports' waveforms) rather than fields.
pub fn unresolved(scene: &Scene, model: &Model, freqs: &[f64], ports: bool) -> Vec<bool> {
    let t_end = model.grid.steps as f64 * model.grid.dt;
    let drive = Drive::new(scene, t_end, ports);
    let ny = nyquist(model);
    freqs.iter().map(|&f| f >= ny || !drive.in_band(f)).collect()
}

/// The largest ε_r·μ_r refractive index of the scene's materials.
fn max_index(scene: &Scene) -> f64 {
    scene
        .materials
        .iter()
        .map(|m| match m.kind {
            MaterialKind::Pec => 1.0,
            MaterialKind::Dielectric { eps_r, mu_r, .. } => (eps_r * mu_r).sqrt(),
        })
        .fold(1.0, f64::max)
}

/// Warnings (each `file:line:col: key: message`).
pub fn warnings(scene: &Scene, model: &Model) -> Vec<String> {
    let mut out = Vec::new();
    frequency_keys(scene, model, &mut out);
    length_units(scene, model, &mut out);
    port_ends(scene, model, &mut out);
    objects_in_cpml(scene, model, &mut out);
    out
}

/// Errors: recorded surfaces that would give wrong numbers.
pub fn errors(scene: &Scene, model: &Model) -> Vec<SceneError> {
    let mut out = Vec::new();
    let mut fi = 0;
    let mut mi = 0;
    for m in &model.monitors {
        let key = match m.kind {
            Kind::FarField { .. } => {
                fi += 1;
                let i = fi - 1;
                match scene.farfields.get(i).is_some_and(|f| f.region.is_some()) {
                    true => format!("farfield[{i}].box"),
                    false => format!("farfield[{i}]"),
                }
            }
            _ => {
                mi += 1;
                format!("monitors[{}].box", mi - 1)
            }
        };
        if m.faces.is_empty() || matches!(m.kind, Kind::Dft) {
            continue;
        }
        // Only closed boxes (six faces); a flux plane may cross what it likes.
        if m.faces.len() != 6 {
            continue;
        }
        if let Some(e) = surface_problem(scene, model, m, &key) {
            out.push(e);
        }
    }
    out
}

/// The frequency keys: out of band, above Nyquist, under-resolved, with a unit hint.
fn frequency_keys(scene: &Scene, model: &Model, out: &mut Vec<String>) {
    let g = &model.grid;
    let t_end = g.steps as f64 * g.dt;
    let mut keys: Vec<(String, Vec<f64>, bool)> = Vec::new();
    if let Some(f) = &scene.frequencies {
        let key = match f {
            crate::scene::Frequencies::List(_) => "frequencies.list",
            crate::scene::Frequencies::Range { .. } => "frequencies.start",
        };
        keys.push((key.into(), f.values(), !scene.ports.is_empty()));
    }
    for (i, m) in scene.monitors.iter().enumerate() {
        if let Some(f) = &m.frequencies {
            keys.push((format!("monitors[{i}].frequencies"), f.values(), false));
        }
    }
    for (i, m) in scene.farfields.iter().enumerate() {
        if let Some(f) = &m.frequencies {
            keys.push((format!("farfield[{i}].frequencies"), f.values(), false));
        }
    }
    let ny = nyquist(model);
    let dmax = g.d.iter().copied().fold(0.0, f64::max);
    let cpw = |f: f64| C0 / (max_index(scene) * f * dmax);
    for (key, freqs, ports) in keys {
        if freqs.is_empty() {
            continue;
        }
        let drive = Drive::new(scene, t_end, ports);
        let at = scene.at(&key);
        let what = if ports {
            "the driven ports' waveforms"
        } else {
            "the sources and driven ports"
        };
        let (fmin, fmax) = freqs
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(a, b), &f| (a.min(f), b.max(f)));
        // What any run on this grid and for this long resolves: a period within the run,
        // 10 cells per wavelength.
        let (f_lo, f_hi) = (1.0 / t_end, C0 / (max_index(scene) * dmax * 10.0));
        let fits = |f: f64| (f_lo..=f_hi).contains(&f) && f < ny;
        if fmax < f_lo {
            out.push(format!(
                "{at}: frequencies {} .. {} are far below what the run resolves (one period of the {} simulated is {}): results there are meaningless and left out of the summary's findings{}",
                hz(fmin),
                hz(fmax),
                crate::fmt::si(t_end, "s"),
                hz(f_lo),
                unit_hint(&freqs, &fits)
            ));
            continue;
        }
        if cpw(fmin) < 2.0 {
            out.push(format!(
                "{at}: frequencies {} .. {} are above what the cells resolve ({} cells per wavelength at {}; the \
                 grid aliases below 2): results there are left out of the summary's findings{}",
                hz(fmin),
                hz(fmax),
                sig(cpw(fmin), 2),
                hz(fmin),
                unit_hint(&freqs, &fits)
            ));
            continue;
        }
        // A band the run cannot see itself (a source in Hz) has its own warning.
        let visible = drive.band().1 >= f_lo;
        let outside: Vec<f64> = freqs
            .iter()
            .copied()
            .filter(|&f| visible && !drive.in_band(f))
            .collect();
        if !outside.is_empty() {
            let (lo, hi) = drive.band();
            out.push(format!(
                "{at}: {} of {} frequencies ({} .. {}) lie outside the band of {what} ({} .. {}, above −40 dB of \
                 the spectrum's peak): results there divide noise by almost nothing and are left out of the summary's findings{}",
                outside.len(),
                freqs.len(),
                hz(outside[0]),
                hz(outside[outside.len() - 1]),
                hz(lo),
                hz(hi),
                unit_hint(&freqs, &|f| f < ny && drive.in_band(f))
            ));
        }
        let above: Vec<f64> = freqs.iter().copied().filter(|&f| f >= ny).collect();
        if !above.is_empty() {
            out.push(format!(
                "{at}: {} of {} frequencies (from {}) are not below the grid's Nyquist frequency {} (1/(2 dt)): \
                 the run cannot represent them; they are left out of the summary's findings",
                above.len(),
                freqs.len(),
                hz(above[0]),
                hz(ny)
            ));
        } else if outside.is_empty() {
            let fmax = freqs.iter().copied().fold(0.0, f64::max);
            let c = cpw(fmax);
            if c < 10.0 && model.resolution.is_none_or(|(_, r)| r >= 10.0) {
                out.push(format!(
                    "{at}: at {} the cells give only {} cells per wavelength (in the slowest material); FDTD \
                     needs at least 10 (20 for accurate phase)",
                    hz(fmax),
                    sig(c, 2)
                ));
            }
        }
    }
}

/// `; did you mean GHz (...)?` when scaling every one of `freqs` by 10³ⁿ makes all `ok`.
fn unit_hint(freqs: &[f64], ok: &dyn Fn(f64) -> bool) -> String {
    let units = [(1e3, "kHz"), (1e6, "MHz"), (1e9, "GHz"), (1e12, "THz")];
    let scaled = units
        .iter()
        .map(|&(k, u)| (k, format!("{u} (the values × {k:e}")))
        .chain([1e-3, 1e-6, 1e-9, 1e-12].map(|k| (k, format!("Hz (the values × {k:e}"))));
    for (k, unit) in scaled {
        if freqs.iter().all(|&f| ok(f * k)) {
            let (a, b) = (freqs[0] * k, freqs[freqs.len() - 1] * k);
            return format!("; did you mean {unit}: {} .. {})?", hz(a), hz(b));
        }
    }
    String::new()
}

/// Lengths typed in millimetres: far too few cells per wavelength, and a thousand
/// times more would be a normal grid.
fn length_units(scene: &Scene, model: &Model, out: &mut Vec<String>) {
    let Some((f, cpw)) = model.resolution else { return };
    if !(cpw < 0.5 && cpw * 1e3 >= 10.0) {
        return;
    }
    let d = model.grid.d;
    let size = scene.domain.size();
    out.push(format!(
        "{}: cells of {} m in a domain of {} m give {} cells per wavelength at {}: the lengths look like \
         millimetres; did you mean mm (cell = {}, and every length × 1e-3)?",
        scene.at("domain.cell"),
        fmtv(d),
        fmtv(size),
        sig(cpw, 2),
        hz(f),
        fmtv(d.map(|x| x * 1e-3)),
    ));
}

fn fmtv(v: [f64; 3]) -> String {
    if v[0] == v[1] && v[1] == v[2] {
        format!("{}", v[0])
    } else {
        format!("[{}, {}, {}]", v[0], v[1], v[2])
    }
}

/// Whether the E edge `(c, i)` is PEC on the model's grid.
fn pec_edge(model: &Model, c: usize, i: [usize; 3]) -> bool {
    let flat = model.grid.idx(i[0], i[1], i[2]);
    model.coefs.e_props[model.mat[c][flat] as usize].is_none()
}

/// Whether grid node `p` touches a conductor: a PEC E edge ending at it, a PEC domain
/// face through it, or another port's or lumped element's edge ending at it.
fn node_touches(model: &Model, p: [usize; 3], skip_port: usize) -> bool {
    let n = model.grid.n;
    for a in 0..3 {
        if (p[a] == 0 && model.faces[2 * a] == FaceKind::Pec)
            || (p[a] == n[a] && model.faces[2 * a + 1] == FaceKind::Pec)
        {
            return true;
        }
    }
    let ends_here = |c: usize, e: [usize; 3]| {
        let mut q = e;
        q[c] += 1;
        e == p || q == p
    };
    for (k, port) in model.ports.iter().enumerate() {
        if k != skip_port && port.edges.iter().any(|&e| ends_here(port.axis, e)) {
            return true;
        }
    }
    if model
        .lumped
        .iter()
        .any(|l| l.edges.iter().any(|&e| ends_here(l.axis, e)))
    {
        return true;
    }
    for c in 0..3 {
        for back in [true, false] {
            let mut e = p;
            if back {
                if p[c] == 0 {
                    continue;
                }
                e[c] -= 1;
            } else if p[c] >= n[c] {
                continue;
            }
            if pec_edge(model, c, e) {
                return true;
            }
        }
    }
    false
}

/// Ports whose ends touch no conductor: a voltage across nothing.
fn port_ends(scene: &Scene, model: &Model, out: &mut Vec<String>) {
    for (k, p) in model.ports.iter().enumerate() {
        let a = p.axis;
        let (lo, hi) = p
            .edges
            .iter()
            .fold((usize::MAX, 0), |(lo, hi), e| (lo.min(e[a]), hi.max(e[a] + 1)));
        let touches = |plane: usize| {
            p.edges.iter().any(|e| {
                let mut q = *e;
                q[a] = plane;
                node_touches(model, q, k)
            })
        };
        let Some(i) = scene.ports.iter().position(|s| s.name == p.name) else {
            continue;
        };
        let (lo_ok, hi_ok) = (touches(lo), touches(hi));
        let (start_lo, _) = if p.sign > 0.0 {
            ("start", "end")
        } else {
            ("end", "start")
        };
        let loose: Vec<&str> = match (lo_ok, hi_ok) {
            (true, true) => continue,
            (false, false) => vec!["start", "end"],
            (false, true) => vec![start_lo],
            (true, false) => vec![if start_lo == "start" { "end" } else { "start" }],
        };
        let key = format!("ports[{i}].{}", loose[0]);
        out.push(format!(
            "{}: port {}: its {} touch{} no conductor (no PEC edge, wire, plate or other element ends at {}): \
             the port measures a gap in empty space; run it from one conductor to the other",
            scene.at(&key),
            p.name,
            loose.join(" and "),
            if loose.len() == 1 { "es" } else { "" },
            if loose.len() == 1 { "that node" } else { "those nodes" },
        ));
    }
}

/// Objects (other than vacuum) that reach into a CPML layer: the layer absorbs what
/// should reflect, and a conductor through it is a different antenna.
fn objects_in_cpml(scene: &Scene, model: &Model, out: &mut Vec<String>) {
    let g = &model.grid;
    for (i, o) in scene.objects.iter().enumerate() {
        let m = &scene.materials[o.material];
        if matches!(m.kind, MaterialKind::Dielectric { eps_r, mu_r, sigma } if eps_r == 1.0 && mu_r == 1.0 && sigma == 0.0)
        {
            continue;
        }
        let (lo, hi) = o.shape.bounds();
        let size = scene.domain.size();
        // Outside the domain along some axis: it leaves no trace anyway.
        if (0..3).any(|a| hi[a] < 0.0 || lo[a] > size[a]) {
            continue;
        }
        let mut faces = Vec::new();
        // Faces where the object ends inside the layer (a finite part cut by the
        // absorber), as opposed to running through it to the domain's edge.
        let mut ends_inside = false;
        for (f, b) in scene.boundaries.faces.iter().enumerate() {
            let Boundary::Cpml(p) = b else { continue };
            let a = f / 2;
            let depth = p.cells as f64 - 0.5;
            let (reaches, through) = if f % 2 == 0 {
                (lo[a] < depth * g.d[a], lo[a] <= 0.0)
            } else {
                (hi[a] > (g.n[a] as f64 - depth) * g.d[a], hi[a] >= size[a])
            };
            if reaches {
                faces.push(Boundaries::FACE_NAMES[f]);
                ends_inside |= !through;
            }
        }
        if faces.is_empty() {
            continue;
        }
        let why = if ends_inside {
            "the layer absorbs what the object should carry or reflect (a ground plane or substrate through it is \
             a different, lossy structure); keep objects out of the outer CPML cells, or enlarge the domain"
        } else {
            "it runs through the layer to the domain's edge, so it is modelled as extending to infinity there \
             (right for a soil half-space, a substrate or an infinite line; for a finite object keep it out of \
             the CPML or enlarge the domain)"
        };
        out.push(format!(
            "{}: objects[{i}] ({} of {:?}) reaches into the CPML layer of {}: {why}",
            scene.at(&format!("objects[{i}]")),
            o.shape.name(),
            m.name,
            faces.join(", "),
        ));
    }
}

/// The first reason monitor `m`'s closed surface is not a valid one, as a scene error.
fn surface_problem(scene: &Scene, model: &Model, m: &crate::monitors::Monitor, key: &str) -> Option<SceneError> {
    let g = &model.grid;
    let farfield = matches!(m.kind, Kind::FarField { .. });
    let what = if farfield { "far-field box" } else { "flux box" };
    let mut lo = [usize::MAX; 3];
    let mut hi = [0; 3];
    for f in &m.faces {
        lo[f.axis] = lo[f.axis].min(f.plane);
        hi[f.axis] = hi[f.axis].max(f.plane);
    }
    let hint_box = if farfield && scene.farfields.iter().any(|f| f.name == m.name && f.region.is_none()) {
        Some("the default box is the domain inset 3 cells inside the CPML; give `box` with min/max that enclose every object and stay in vacuum".to_string())
    } else {
        Some("move the box so that it encloses every object, in vacuum, clear of the CPML".to_string())
    };
    // The CPML: the box's H samples half a cell outside it must be outside the layer.
    for (f, b) in scene.boundaries.faces.iter().enumerate() {
        let Boundary::Cpml(p) = b else { continue };
        let a = f / 2;
        let inside = if f % 2 == 0 {
            lo[a] <= p.cells
        } else {
            hi[a] + p.cells >= g.n[a]
        };
        if inside {
            return Some(scene.invalid(
                key,
                format!(
                    "{what} `{}` lies in the CPML layer of {} ({} cells): the layer's fields are not free-space fields",
                    m.name,
                    Boundaries::FACE_NAMES[f],
                    p.cells
                ),
                hint_box,
            ));
        }
    }
    // A PEC/PMC wall: the far-field transform assumes free space around the box; the
    // wall's image is missing unless the box's face lies on the wall (image planes).
    if farfield {
        for (f, k) in model.faces.iter().enumerate() {
            if !matches!(k, FaceKind::Pec | FaceKind::Pmc) {
                continue;
            }
            let a = f / 2;
            let on_wall = if f % 2 == 0 { lo[a] == 0 } else { hi[a] == g.n[a] };
            if !on_wall {
                return Some(scene.invalid(
                    key,
                    format!(
                        "{what} `{}`: the domain's {} face is {}: the far-field transform assumes free space outside \
                         the box, and the wall's reflection (its image) is not in it",
                        m.name,
                        Boundaries::FACE_NAMES[f],
                        if *k == FaceKind::Pec { "PEC" } else { "PMC" },
                    ),
                    Some(format!("make {} a cpml face", Boundaries::FACE_NAMES[f])),
                ));
            }
        }
    }
    // Every sample of the surface (E on the face plane, E normal to it on both sides,
    // H half a cell on both sides) in vacuum.
    for f in &m.faces {
        let a = f.axis;
        let (clo, chi) = f.cells;
        for c in 0..6 {
            let comp = Component::ALL[c];
            let st = comp.stagger();
            let planes: Vec<usize> = if st[a] {
                vec![f.plane - 1, f.plane]
            } else {
                vec![f.plane]
            };
            let range = |t: usize| {
                if st[t] {
                    clo[t]..chi[t]
                } else {
                    clo[t]..chi[t] + 1
                }
            };
            let (t1, t2) = ((a + 1) % 3, (a + 2) % 3);
            for &p in &planes {
                for u in range(t1) {
                    for v in range(t2) {
                        let mut i = [0; 3];
                        i[a] = p;
                        i[t1] = u;
                        i[t2] = v;
                        let flat = g.idx(i[0], i[1], i[2]);
                        let mi = model.mat[c][flat] as usize;
                        let vacuum = if c < 3 {
                            model.coefs.e_props[mi] == Some((1.0, 0.0))
                        } else {
                            model.coefs.h_props[mi] == 1.0
                        };
                        if !vacuum {
                            let pos = comp.position(i, g.d);
                            return Some(scene.invalid(
                                key,
                                format!(
                                    "{what} `{}` crosses {} at {} ({comp} sample {i:?}): the surface must lie in \
                                     vacuum and enclose every object, or its {} come out wrong",
                                    m.name,
                                    culprit(scene, model, c, i, pos),
                                    crate::fmt::point(pos),
                                    if farfield { "pattern and efficiency" } else { "power" }
                                ),
                                hint_box,
                            ));
                        }
                    }
                }
            }
        }
    }
    None
}

/// What sits on sample `i` of component `c` (at `pos`): a port or lumped element's
/// edge, else the last object whose bounds (one cell wider) hold it.
fn culprit(scene: &Scene, model: &Model, c: usize, i: [usize; 3], pos: [f64; 3]) -> String {
    if let Some(p) = model.ports.iter().find(|p| p.axis == c && p.edges.contains(&i)) {
        return format!("port {}", p.name);
    }
    if let Some(l) = model.lumped.iter().find(|l| l.axis == c && l.edges.contains(&i)) {
        return format!("lumped element {}", l.name);
    }
    let d = model.grid.d;
    for (k, o) in scene.objects.iter().enumerate().rev() {
        let (lo, hi) = o.shape.bounds();
        if (0..3).all(|a| pos[a] >= lo[a] - d[a] && pos[a] <= hi[a] + d[a]) {
            return format!(
                "objects[{k}] ({} of {:?})",
                o.shape.name(),
                scene.materials[o.material].name
            );
        }
    }
    "a material other than vacuum".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(toml: &str) -> (Scene, Model) {
        let scene = Scene::parse(toml, "g.toml").unwrap();
        let model = Model::discretize(&scene).unwrap();
        (scene, model)
    }

    fn warned(toml: &str) -> Vec<String> {
        let (scene, model) = parse(toml);
        warnings(&scene, &model)
    }

    fn refused(toml: &str) -> Vec<String> {
        let (scene, model) = parse(toml);
        errors(&scene, &model).iter().map(|e| e.to_string()).collect()
    }

    /// A half-wave dipole (wires, 1 mm cells) fed by a port, CPML all round.
    fn dipole(frequencies: &str, waveform: &str, extra: &str) -> String {
        format!(
            r#"
[domain]
cell = 1e-3
size = [0.04, 0.04, 0.08]
[time]
duration = 3e-9
{frequencies}
[boundaries]
all = "cpml"
[[objects]]
shape = "wire"
material = "pec"
points = [[0.02, 0.02, 0.02], [0.02, 0.02, 0.039]]
[[objects]]
shape = "wire"
material = "pec"
points = [[0.02, 0.02, 0.040], [0.02, 0.02, 0.06]]
[[ports]]
name = "feed"
start = [0.02, 0.02, 0.039]
end = [0.02, 0.02, 0.040]
impedance = 73
{waveform}
{extra}
"#
        )
    }

    const BAND: &str = "[frequencies]\nstart = 2e9\nstop = 5e9\npoints = 31";
    const WAVE: &str = "waveform = { type = \"gaussian\", frequency = 4e9 }";

    #[test]
    fn the_dipole_as_written_has_no_guard_warning() {
        assert_eq!(warned(&dipole(BAND, WAVE, "")), Vec::<String>::new());
        assert!(refused(&dipole(BAND, WAVE, "")).is_empty());
    }

    #[test]
    fn frequencies_outside_the_driving_band_are_caught_and_marked() {
        // A gaussian derivative at 0.3 GHz has nothing left at 2-5 GHz.
        let low = "waveform = { type = \"gaussian_derivative\", frequency = 0.3e9 }";
        let w = warned(&dipole(BAND, low, ""));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("g.toml:8:9: frequencies.start: "), "{}", w[0]);
        assert!(
            w[0].contains("31 of 31 frequencies") && w[0].contains("outside the band"),
            "{}",
            w[0]
        );
        let (scene, model) = parse(&dipole(BAND, low, ""));
        assert!(unresolved(&scene, &model, &[5e8, 3e9], true) == [false, true]);
        let (scene, model) = parse(&dipole(BAND, WAVE, ""));
        assert!(unresolved(&scene, &model, &[3e9, 1e13], true) == [false, true]);
    }

    #[test]
    fn frequencies_typed_without_their_unit_get_the_likely_one() {
        // GHz typed as Hz (the port's waveform derives from them, so the band is no guide).
        let w = warned(&dipole("[frequencies]\nlist = [2.4, 2.45, 2.5]", "", ""));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("g.toml:8:8: frequencies.list: "), "{}", w[0]);
        assert!(
            w[0].contains("did you mean GHz (the values × 1e9: 2.4 GHz .. 2.5 GHz)?"),
            "{}",
            w[0]
        );
        // A far field's and a monitor's own frequencies too.
        let ff = "[[farfield]]\nname = \"ff\"\nfrequencies = [3, 4]\n\
                  [[monitors]]\nname = \"m\"\ntype = \"dft\"\ncomponents = [\"Ez\"]\nfrequencies = [3000]\n\
                  plane = { axis = \"z\", position = 0.03 }";
        let w = warned(&dipole(BAND, WAVE, ff));
        assert!(
            w.iter().any(|m| m.contains("monitors[0].frequencies")
                && m.contains("far below what the run resolves")
                && m.contains("did you mean MHz")),
            "{w:?}"
        );
        assert!(
            w.iter()
                .any(|m| m.contains("farfield[0].frequencies") && m.contains("did you mean GHz")),
            "{w:?}"
        );
    }

    #[test]
    fn port_frequencies_above_nyquist_are_caught() {
        let w = warned(&dipole("[frequencies]\nlist = [3e9, 3e11]", WAVE, ""));
        assert!(
            w.iter().any(|m| m.contains("not below the grid's Nyquist frequency")),
            "{w:?}"
        );
    }

    #[test]
    fn lengths_in_millimetres_get_a_hint() {
        let mm = r#"
[domain]
cell = 1
size = [80, 80, 80]
[time]
steps = 10
[boundaries]
all = "cpml"
[[sources]]
type = "current"
component = "Ez"
position = [40, 40, 40]
waveform = { type = "gaussian", frequency = 3e9 }
"#;
        let w = warned(mm);
        assert!(
            w.iter()
                .any(|m| m.starts_with("g.toml:3:8: domain.cell:") && m.contains("did you mean mm")),
            "{w:?}"
        );
        assert!(warned(
            &mm.replace("cell = 1\n", "cell = 1e-3\n")
                .replace("[80, 80, 80]", "[0.08, 0.08, 0.08]")
                .replace("[40, 40, 40]", "[0.04, 0.04, 0.04]")
        )
        .is_empty());
    }

    #[test]
    fn a_port_touching_no_conductor_is_caught() {
        let air = dipole(BAND, WAVE, "")
            .replace("start = [0.02, 0.02, 0.039]", "start = [0.03, 0.02, 0.039]")
            .replace("end = [0.02, 0.02, 0.040]", "end = [0.03, 0.02, 0.040]");
        let w = warned(&air);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("ports[0].start: port feed: its start and end touch no conductor"),
            "{}",
            w[0]
        );
        // One end on the wire, one in the air.
        let half = dipole(BAND, WAVE, "").replace(
            "points = [[0.02, 0.02, 0.040], [0.02, 0.02, 0.06]]",
            "points = [[0.02, 0.02, 0.041], [0.02, 0.02, 0.06]]",
        );
        let w = warned(&half);
        assert!(
            w.len() == 1 && w[0].contains("ports[0].end: port feed: its end touches no conductor"),
            "{w:?}"
        );
    }

    #[test]
    fn an_object_in_the_cpml_is_named_with_its_face() {
        let plate =
            "[[objects]]\nshape = \"plate\"\nmaterial = \"pec\"\nmin = [0.0, 0.005, 0.019]\nmax = [0.04, 0.035, 0.019]";
        let w = warned(&dipole(BAND, WAVE, plate));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("objects[2] (plate of \"pec\") reaches into the CPML layer of x_min, x_max"),
            "{}",
            w[0]
        );
        assert!(w[0].contains("objects[2]: "), "{}", w[0]);
        // It ends inside the y layers (0.005 and 0.035 m): a finite plate cut by the absorber.
        assert!(w[0].contains("the layer absorbs what the object"), "{}", w[0]);
        // Running through the x layers to the domain's edges, clear of the y layers:
        // modelled as infinite there (a substrate or a soil half-space), said so.
        let through = plate
            .replace("min = [0.0, 0.005,", "min = [0.0, 0.011,")
            .replace("max = [0.04, 0.035,", "max = [0.04, 0.029,");
        let w = warned(&dipole(BAND, WAVE, &through));
        assert!(
            w.len() == 1 && w[0].contains("CPML layer of x_min, x_max: it runs through") && w[0].contains("infinity"),
            "{w:?}"
        );
    }

    #[test]
    fn a_box_that_crosses_an_object_a_material_or_the_cpml_is_refused() {
        let ff = |b: &str| format!("[[farfield]]\nname = \"ff\"\nfrequencies = [3e9]\n{b}");
        let ok = ff("box = { min = [0.012, 0.012, 0.014], max = [0.028, 0.028, 0.066] }");
        assert!(refused(&dipole(BAND, WAVE, &ok)).is_empty());
        // Cuts the dipole's arms.
        let cut = ff("box = { min = [0.012, 0.012, 0.03], max = [0.028, 0.028, 0.05] }");
        let e = refused(&dipole(BAND, WAVE, &cut));
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].contains("farfield[0].box: far-field box `ff` crosses objects[0] (wire of \"pec\")"),
            "{}",
            e[0]
        );
        // A dielectric slab through the default box.
        let slab = format!(
            "{}\n[materials.glass]\neps_r = 4\n[[objects]]\nshape = \"box\"\nmaterial = \"glass\"\n\
                            min = [0.0, 0.0, 0.065]\nmax = [0.04, 0.04, 0.066]",
            ff("")
        );
        let e = refused(&dipole(BAND, WAVE, &slab));
        assert!(
            e.len() == 1 && e[0].contains("crosses objects[2] (box of \"glass\")"),
            "{e:?}"
        );
        // In the CPML; a flux box too.
        let cpml = ff("box = { min = [0.005, 0.005, 0.005], max = [0.035, 0.035, 0.075] }");
        let e = refused(&dipole(BAND, WAVE, &cpml));
        assert!(
            e.len() == 1 && e[0].contains("lies in the CPML layer of x_min"),
            "{e:?}"
        );
        let flux = "[[monitors]]\nname = \"p\"\ntype = \"flux\"\nbox = { min = [0.015, 0.015, 0.03], max = [0.025, 0.025, 0.05] }";
        let e = refused(&dipole(BAND, WAVE, flux));
        assert!(
            e.len() == 1 && e[0].contains("monitors[0].box: flux box `p` crosses"),
            "{e:?}"
        );
    }

    #[test]
    fn a_far_field_box_beside_a_pec_wall_is_refused() {
        let ff = "[[farfield]]\nname = \"ff\"\nfrequencies = [3e9]\n\
                  box = { min = [0.012, 0.012, 0.014], max = [0.028, 0.028, 0.066] }";
        let toml = dipole(BAND, WAVE, ff).replace("all = \"cpml\"", "all = \"cpml\"\nz_min = \"pec\"");
        let e = refused(&toml);
        assert!(e.len() == 1 && e[0].contains("the domain's z_min face is PEC"), "{e:?}");
    }
}

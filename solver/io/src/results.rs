//! Frequency-domain results of a finished run (`fdtd_core::results::RunResults`):
//! `/monitors` (here). Ports (`/ports`) and far fields (`/farfield`) are written by their
//! own functions beside this one.
//!
//! ```text
//! /monitors/<name>           attrs: type ("dft" | "flux" | "farfield"), units
//! /monitors/<name>/frequency f64[F]  Hz
//! dft:   /monitors/<name>/<Ex..Hz>_re, <Ex..Hz>_im   f64[F, a, b, c] (C order), attrs:
//!            origin (m, the position of sample [0, 0, 0]), spacing [dx, dy, dz] (m),
//!            units (V·s/m or A·s/m: transforms of V/m and A/m)
//! flux:  /monitors/<name>/flux  f64[F]  W·s² (½ Re ∮ E×H*·n dS of the transforms)
//! flux planes with one plane wave: /monitors/<name>/incident_power f64[F] (the incident
//!            wave's power through the plane's area), /monitors/<name>/normalized f64[F]
//!            (flux / incident_power: T behind a structure, −R in the scattered field)
//! farfield boxes: /monitors/<name>/flux  f64[F] (the box's flux, for the energy balance),
//!            /monitors/<name>/surface/{position f64[S,3], normal f64[S,3], area f64[S],
//!            e_re, e_im, h_re, h_im f64[F, S, 3]}: the closed surface the far field comes from
//! /cross_sections/<name>    attrs: plane_wave, units ("m^2")
//! /cross_sections/<name>/{frequency, scattering, absorption, extinction, incident_intensity}
//!            f64[F] (Hz; m²; m²; m²; W·s²/m²)
//! ```
use fdtd_core::monitors::post;
use fdtd_core::results::{FarFieldRecording, MonitorResult, RunResults};
use hdf5::{Group, H5Type, Location};
use ndarray::{Array, IxDyn};

fn attr_str(loc: &Location, name: &str, v: &str) -> hdf5::Result<()> {
    let v: hdf5::types::VarLenUnicode = v.replace('\0', "\u{fffd}").parse().expect("no NUL left");
    loc.new_attr::<hdf5::types::VarLenUnicode>()
        .shape(())
        .create(name)?
        .write_scalar(&v)
}

fn attr_arr<T: H5Type>(loc: &Location, name: &str, v: &[T]) -> hdf5::Result<()> {
    loc.new_attr_builder().with_data(v).create(name).map(|_| ())
}

fn dataset(g: &Group, name: &str, shape: &[usize], data: Vec<f64>) -> hdf5::Result<hdf5::Dataset> {
    let a = Array::from_shape_vec(IxDyn(shape), data).map_err(|e| hdf5::Error::from(e.to_string().as_str()))?;
    g.new_dataset_builder().with_data(&a).create(name)
}

/// The group `path` (created if missing).
fn group(parent: &Group, name: &str) -> hdf5::Result<Group> {
    parent.group(name).or_else(|_| parent.create_group(name))
}

/// Bytes `write_monitors` adds, about (for the disk reservation).
pub fn bytes(r: &RunResults) -> u64 {
    let m: usize = r
        .monitors
        .iter()
        .map(|m| 8 * (m.freq.len() + m.flux.len()) + m.fields.iter().map(|f| 16 * f.2.len()).sum::<usize>())
        .sum();
    let s: usize = r
        .surfaces
        .iter()
        .map(|s| {
            s.surfaces
                .iter()
                .map(|x| x.samples.len() * 7 * 8 + x.samples.len() * 96)
                .sum::<usize>()
        })
        .sum();
    (m + s) as u64 + 4096 * (r.monitors.len() + r.surfaces.len()) as u64
}

/// `/monitors`: every monitor's result and every far-field box's surface; nothing when
/// there are none.
pub fn write_monitors(root: &Group, r: &RunResults) -> hdf5::Result<()> {
    if r.monitors.is_empty() && r.surfaces.is_empty() {
        return Ok(());
    }
    // A run that failed while writing them and was resumed: write them afresh.
    if root.link_exists("monitors") {
        root.unlink("monitors")?;
    }
    let top = group(root, "monitors")?;
    for (i, m) in r.monitors.iter().enumerate() {
        monitor(&top, m, r.per_watt_incident)?;
        // Which frequencies the run resolves (1) or not (0); see docs/output-format.md.
        if let Some(flags) = r.resolved.monitors.get(i).filter(|f| f.len() == m.freq.len()) {
            let g = top.group(&m.name)?;
            let v: Vec<u8> = flags.iter().map(|&x| x as u8).collect();
            g.new_dataset_builder().with_data(&v).create("resolved")?;
        }
    }
    for s in &r.surfaces {
        surface(&top, s)?;
    }
    Ok(())
}

fn monitor(top: &Group, m: &MonitorResult, per_watt: bool) -> hdf5::Result<()> {
    let g = top.create_group(&m.name)?;
    attr_str(&g, "type", &m.kind)?;
    dataset(&g, "frequency", &[m.freq.len()], m.freq.clone())?;
    for (i, (name, dims, v)) in m.fields.iter().enumerate() {
        let shape = [m.freq.len(), dims[0], dims[1], dims[2]];
        for (suffix, part) in [("re", 0), ("im", 1)] {
            let data: Vec<f64> = v.iter().map(|z| if part == 0 { z.re } else { z.im }).collect();
            let ds = dataset(&g, &format!("{name}_{suffix}"), &shape, data)?;
            if let Some(o) = m.origin.get(i) {
                attr_arr(&ds, "origin", o)?;
            }
            attr_arr(&ds, "spacing", &m.spacing)?;
            let units = match (name.starts_with('E'), per_watt) {
                (true, false) => "V*s/m",
                (false, false) => "A*s/m",
                (true, true) => "V/m per sqrt(W) incident",
                (false, true) => "A/m per sqrt(W) incident",
            };
            attr_str(&ds, "units", units)?;
        }
    }
    if !m.flux.is_empty() {
        let ds = dataset(&g, "flux", &[m.flux.len()], m.flux.clone())?;
        attr_str(&ds, "units", if per_watt { "W per W incident" } else { "W*s^2" })?;
    }
    if !m.normalized.is_empty() {
        let ds = dataset(
            &g,
            "incident_power",
            &[m.incident_power.len()],
            m.incident_power.clone(),
        )?;
        attr_str(&ds, "units", "W*s^2")?;
        let ds = dataset(&g, "normalized", &[m.normalized.len()], m.normalized.clone())?;
        attr_str(&ds, "units", "1 (flux / incident_power)")?;
    }
    Ok(())
}

/// `/cross_sections`: one group per `[[cross_sections]]` entry; nothing when there are none.
pub fn write_cross_sections(root: &Group, r: &RunResults) -> hdf5::Result<()> {
    if r.cross_sections.is_empty() {
        return Ok(());
    }
    if root.link_exists("cross_sections") {
        root.unlink("cross_sections")?;
    }
    let top = group(root, "cross_sections")?;
    for (i, c) in r.cross_sections.iter().enumerate() {
        let g = top.create_group(&c.name)?;
        attr_str(&g, "plane_wave", &c.wave)?;
        attr_str(&g, "units", "m^2")?;
        let n = c.freq.len();
        dataset(&g, "frequency", &[n], c.freq.clone())?;
        for (name, v) in [
            ("scattering", &c.scattering),
            ("absorption", &c.absorption),
            ("extinction", &c.extinction),
            ("incident_intensity", &c.incident_intensity),
        ] {
            dataset(&g, name, &[n], v.clone())?;
        }
        if let Some(flags) = r.resolved.cross_sections.get(i).filter(|f| f.len() == n) {
            let v: Vec<u8> = flags.iter().map(|&x| x as u8).collect();
            g.new_dataset_builder().with_data(&v).create("resolved")?;
        }
    }
    Ok(())
}

fn surface(top: &Group, r: &FarFieldRecording) -> hdf5::Result<()> {
    let g = top.create_group(&r.name)?;
    attr_str(&g, "type", "farfield")?;
    attr_arr(&g, "theta_step", &[r.theta_step])?;
    attr_arr(&g, "phi_step", &[r.phi_step])?;
    let freq: Vec<f64> = r.surfaces.iter().map(|s| s.freq).collect();
    dataset(&g, "frequency", &[freq.len()], freq)?;
    dataset(
        &g,
        "flux",
        &[r.surfaces.len()],
        r.surfaces.iter().map(post::flux).collect(),
    )?;
    let Some(first) = r.surfaces.first() else {
        return Ok(());
    };
    let s = group(&g, "surface")?;
    let n = first.samples.len();
    let flat3 = |f: &dyn Fn(&fdtd_core::farfield::SurfaceSample) -> [f64; 3]| -> Vec<f64> {
        first.samples.iter().flat_map(f).collect()
    };
    dataset(&s, "position", &[n, 3], flat3(&|x| x.pos))?;
    dataset(&s, "normal", &[n, 3], flat3(&|x| x.normal))?;
    dataset(&s, "area", &[n], first.samples.iter().map(|x| x.area).collect())?;
    let nf = r.surfaces.len();
    for (name, pick) in [("e", 0), ("h", 1)] {
        for (suffix, part) in [("re", 0), ("im", 1)] {
            let data: Vec<f64> = r
                .surfaces
                .iter()
                .flat_map(|sf| sf.samples.iter())
                .flat_map(|x| if pick == 0 { x.e } else { x.h })
                .map(|z| if part == 0 { z.re } else { z.im })
                .collect();
            dataset(&s, &format!("{name}_{suffix}"), &[nf, n, 3], data)?;
        }
    }
    Ok(())
}

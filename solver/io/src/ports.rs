//! `/ports` (lumped ports: V, I series and the frequency-domain results), `/energy`
//! (the end criterion's field energy at each scan), and the Touchstone and CSV
//! companions of a run with ports.
use crate::hdf5::{append, put, put_arr, put_str, series, OutputError, Series};
use fdtd_core::model::Model;
use fdtd_core::ports;
use fdtd_core::results::RunResults;
use fdtd_core::runner::{EndReason, RunSummary};
use hdf5::{Dataset, File, Group, Location};
use std::path::{Path, PathBuf};

/// One port's appendable series.
pub(crate) struct PortOut {
    v: Series,
    i: Series,
    /// The sample times; None for a line port's plane (they share the port's).
    time: Option<(Series, Series)>,
}

/// The datasets of a line port's plane `k` (a, b) in its port's group.
fn line_names(k: usize) -> [&'static str; 2] {
    [["V_line_a", "I_line_a"], ["V_line_b", "I_line_b"]][k]
}

/// The sink's port and energy datasets.
#[derive(Default)]
pub(crate) struct PortsOut {
    ports: Vec<PortOut>,
    /// The ports' names (for the run summary).
    pub(crate) names: Vec<String>,
    /// (`/energy/step`, `/energy/value`) of a run with an end criterion.
    energy: Option<(Series, Series)>,
    dt: f64,
}

/// The Touchstone (`<stem>.sNp`) and CSV (`<stem>_ports.csv`) companions of `path`.
pub(crate) fn companions(path: &Path, model: &Model) -> Vec<PathBuf> {
    if model.ports.is_empty() {
        return Vec::new();
    }
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = path.parent().unwrap_or(Path::new(""));
    vec![
        dir.join(format!("{stem}.s{}p", model.ports.len())),
        dir.join(format!("{stem}_ports.csv")),
    ]
}

impl PortsOut {
    pub(crate) fn create(file: &File, model: &Model) -> hdf5::Result<PortsOut> {
        let g = &model.grid;
        let mut out = PortsOut {
            dt: g.dt,
            names: model.ports.iter().map(|p| p.name.clone()).collect(),
            ..PortsOut::default()
        };
        if !model.ports.is_empty() {
            let pg = file.create_group("ports")?;
            for p in &model.ports {
                let grp = pg.create_group(&p.name)?;
                describe_port(&grp, model, p)?;
                let mk = |name: &str, units: &str| -> hdf5::Result<Series> {
                    let s = series::<f64>(&grp, name, g.steps)?;
                    put_str(&s.ds, "units", units)?;
                    Ok(s)
                };
                out.ports.push(PortOut {
                    v: mk("V", "V")?,
                    i: mk("I", "A")?,
                    time: Some((mk("time", "s")?, mk("time_h", "s")?)),
                });
            }
            for (k, plane) in model.line_pairs() {
                let grp = pg.group(&model.ports[k].name)?;
                let [vn, iname] = line_names(plane);
                let v = series::<f64>(&grp, vn, g.steps)?;
                put_str(&v.ds, "units", "V")?;
                let i = series::<f64>(&grp, iname, g.steps)?;
                put_str(&i.ds, "units", "A")?;
                out.ports.push(PortOut { v, i, time: None });
            }
        }
        if model.decay_db.is_some() {
            let eg = file.create_group("energy")?;
            put_str(
                &eg,
                "description",
                "total field energy at the end criterion's field scans",
            )?;
            let step = series::<u64>(&eg, "step", 256)?;
            let value = series::<f64>(&eg, "value", 256)?;
            put_str(&value.ds, "units", "J")?;
            out.energy = Some((step, value));
        }
        Ok(out)
    }

    /// Reopen for a run resumed after `step` steps: every series cut to `step` samples,
    /// the energy record to the scans at or before `step`.
    pub(crate) fn resume(path: &Path, file: &File, model: &Model, step: usize) -> Result<PortsOut, OutputError> {
        let ctx = |what: String| {
            move |source| OutputError::Hdf5 {
                path: path.to_path_buf(),
                what,
                source,
            }
        };
        let cut = |ds: Dataset, len: usize, name: &str| -> Result<Series, OutputError> {
            let have = ds.shape().first().copied().unwrap_or(0);
            if have < len {
                return Err(OutputError::NotResumable {
                    path: path.to_path_buf(),
                    why: format!("{name} holds {have} samples, the checkpoint at step {step} needs {len}"),
                });
            }
            if have > len {
                ds.resize(vec![len]).map_err(ctx(format!("truncating {name}")))?;
            }
            Ok(Series { ds, len })
        };
        let mut out = PortsOut {
            dt: model.grid.dt,
            names: model.ports.iter().map(|p| p.name.clone()).collect(),
            ..PortsOut::default()
        };
        for p in &model.ports {
            let open = |n: &str| -> Result<Series, OutputError> {
                let name = format!("/ports/{}/{n}", p.name);
                let ds = file.dataset(&name).map_err(ctx(format!("opening {name}")))?;
                cut(ds, step, &name)
            };
            out.ports.push(PortOut {
                v: open("V")?,
                i: open("I")?,
                time: Some((open("time")?, open("time_h")?)),
            });
        }
        for (k, plane) in model.line_pairs() {
            let [vn, iname] = line_names(plane);
            let open = |n: &str| -> Result<Series, OutputError> {
                let name = format!("/ports/{}/{n}", model.ports[k].name);
                let ds = file.dataset(&name).map_err(ctx(format!("opening {name}")))?;
                cut(ds, step, &name)
            };
            out.ports.push(PortOut {
                v: open(vn)?,
                i: open(iname)?,
                time: None,
            });
        }
        if model.decay_db.is_some() {
            let s = file
                .dataset("/energy/step")
                .map_err(ctx("opening /energy/step".into()))?;
            let v = file
                .dataset("/energy/value")
                .map_err(ctx("opening /energy/value".into()))?;
            let steps: Vec<u64> = s.read_raw().map_err(ctx("reading /energy/step".into()))?;
            let keep = steps.iter().take_while(|&&k| k as usize <= step).count();
            out.energy = Some((cut(s, keep, "/energy/step")?, cut(v, keep, "/energy/value")?));
        }
        Ok(out)
    }

    pub(crate) fn series_mut(&mut self) -> Vec<&mut Series> {
        let mut v = Vec::new();
        for p in &mut self.ports {
            v.extend([&mut p.v, &mut p.i]);
            if let Some((a, b)) = p.time.as_mut() {
                v.extend([a, b]);
            }
        }
        if let Some((a, b)) = self.energy.as_mut() {
            v.extend([a, b]);
        }
        v
    }

    pub(crate) fn write_port(&mut self, port: usize, n0: usize, v: &[f64], i: &[f64]) -> hdf5::Result<()> {
        let dt = self.dt;
        let Some(p) = self.ports.get_mut(port) else {
            return Err(hdf5::Error::from(format!("no port {port}")));
        };
        let te: Vec<f64> = (0..v.len()).map(|k| (n0 + k + 1) as f64 * dt).collect();
        let th: Vec<f64> = (0..i.len()).map(|k| ((n0 + k) as f64 + 0.5) * dt).collect();
        append(&mut p.v, v)?;
        append(&mut p.i, i)?;
        if let Some((a, b)) = p.time.as_mut() {
            append(a, &te)?;
            append(b, &th)?;
        }
        Ok(())
    }

    pub(crate) fn write_energy(&mut self, step: usize, energy: f64) -> hdf5::Result<()> {
        if let Some((s, v)) = self.energy.as_mut() {
            append(s, &[step as u64])?;
            append(v, &[energy])?;
        }
        Ok(())
    }

    pub(crate) fn energy_peak(&self) -> f64 {
        self.energy
            .as_ref()
            .and_then(|(_, v)| v.ds.read_raw::<f64>().ok())
            .map_or(0.0, |v| v.into_iter().fold(0.0, f64::max))
    }

    /// Every port's (V, I) as written so far.
    pub(crate) fn read(&self) -> hdf5::Result<Vec<(Vec<f64>, Vec<f64>)>> {
        self.ports
            .iter()
            .map(|p| Ok((p.v.ds.read_raw::<f64>()?, p.i.ds.read_raw::<f64>()?)))
            .collect()
    }

    pub(crate) fn clear(&mut self) {
        self.ports.clear();
        self.energy = None;
    }
}

fn describe_port(grp: &Group, model: &Model, p: &fdtd_core::model::PortModel) -> hdf5::Result<()> {
    put(grp, "z0", p.z0)?;
    put(grp, "driven", p.driven as u8)?;
    put(grp, "reference_plane", p.reference_plane)?;
    put(grp, "eps_eff", p.eps_eff)?;
    put_str(grp, "axis", ["x", "y", "z"][p.axis])?;
    put(grp, "series_edges", p.series as u64)?;
    put(grp, "parallel_edges", p.columns as u64)?;
    put(grp, "r_edge", p.r_edge)?;
    let first = p.edges.first().copied().unwrap_or_default();
    put_arr(grp, "first_edge_index", &first.map(|x| x as u64))?;
    put_arr(grp, "first_edge_position", &p.component().position(first, model.grid.d))?;
    if let Some(l) = &p.line {
        put_str(
            grp,
            "line",
            &format!("{}{}", if l.sign > 0.0 { "+" } else { "-" }, ["x", "y", "z"][l.axis]),
        )?;
        put(grp, "line_measure", l.offset)?;
        put(grp, "line_spacing", l.spacing)?;
        put_str(
            grp,
            "line_convention",
            "a line port: V, I (V_f, I_f), Z, a, b and S at the reference plane, reference_plane metres from the \
             feed along the line, from the waves measured at line_measure (V_line_a, I_line_a: the mean of the loops \
             half a cell before and after) and line_measure + line_spacing (V_line_b, I_line_b); Z_line and gamma are \
             the line's, measured",
        )?;
    }
    put_str(
        grp,
        "convention",
        "V = -integral of E from start to end (positive terminal at end); I = current leaving the positive \
         terminal into the structure (H loop around the middle cross-section); V at time = (n+1) dt, I at time_h = \
         (n+1/2) dt",
    )
}

/// Root attributes of the end criterion: `end_reason`, `decay_db`, `decayed_at_step`,
/// `energy_decay_db_reached`.
pub(crate) fn record_end(file: &File, model: &Model, summary: &RunSummary) -> hdf5::Result<()> {
    let root: &Location = file;
    set_or_put_str(root, "end_reason", summary.end.name())?;
    if let Some(db) = model.decay_db {
        set_or_put_f64(root, "decay_db", db)?;
    }
    if let EndReason::Decayed(step) = summary.end {
        set_or_put_u64(root, "decayed_at_step", step as u64)?;
    }
    if let Some(l) = summary.energy_db {
        set_or_put_f64(root, "energy_final_db", l)?;
    }
    Ok(())
}

fn set_or_put_str(loc: &Location, name: &str, v: &str) -> hdf5::Result<()> {
    if loc.attr(name).is_ok() {
        loc.delete_attr(name)?;
    }
    put_str(loc, name, v)
}

fn set_or_put_f64(loc: &Location, name: &str, v: f64) -> hdf5::Result<()> {
    if loc.attr(name).is_ok() {
        loc.delete_attr(name)?;
    }
    put(loc, name, v)
}

fn set_or_put_u64(loc: &Location, name: &str, v: u64) -> hdf5::Result<()> {
    if loc.attr(name).is_ok() {
        loc.delete_attr(name)?;
    }
    put(loc, name, v)
}

/// `/ports/<name>/{frequency, Z, S, S_dB, p_inc, p_acc, resolved}` (Z and S as `[n, 2]`:
/// re, im), and `/s_matrix` of a run that drove every port.
pub(crate) fn write_results(file: &File, results: &RunResults) -> hdf5::Result<()> {
    write_s_matrix(file, results)?;
    for r in &results.ports {
        let grp = file.group(&format!("ports/{}", r.name))?;
        for name in [
            "frequency",
            "Z",
            "S",
            "S_dB",
            "p_inc",
            "p_acc",
            "V_f",
            "I_f",
            "resolved",
            "Z_line",
            "gamma",
            "eps_eff_line",
        ] {
            if grp.link_exists(name) {
                grp.unlink(name)?;
            }
        }
        let ri = |v: &[num_complex::Complex64]| -> ndarray::Array2<f64> {
            ndarray::Array2::from_shape_fn((v.len(), 2), |(k, c)| if c == 0 { v[k].re } else { v[k].im })
        };
        let f = grp.new_dataset_builder().with_data(&r.freq).create("frequency")?;
        put_str(&f, "units", "Hz")?;
        let z = grp.new_dataset_builder().with_data(&ri(&r.z)).create("Z")?;
        put_str(&z, "units", "ohm")?;
        put_str(&z, "columns", "re, im")?;
        let s = grp.new_dataset_builder().with_data(&ri(&r.s)).create("S")?;
        put_str(&s, "columns", "re, im")?;
        put_str(&s, "description", "b of this port / a of the driven port")?;
        let sdb: Vec<f64> = r.s.iter().map(|&x| ports::db(x)).collect();
        let d = grp.new_dataset_builder().with_data(&sdb).create("S_dB")?;
        put_str(&d, "units", "dB")?;
        for (name, v) in [("p_inc", &r.p_inc), ("p_acc", &r.p_acc)] {
            let ds = grp.new_dataset_builder().with_data(v.as_slice()).create(name)?;
            put_str(&ds, "units", "W per W incident at the driven port")?;
        }
        let vf = grp.new_dataset_builder().with_data(&ri(&r.v)).create("V_f")?;
        put_str(&vf, "units", "V s")?;
        let i_f = grp.new_dataset_builder().with_data(&ri(&r.i)).create("I_f")?;
        put_str(&i_f, "units", "A s")?;
        if !r.line_z.is_empty() {
            let z = grp.new_dataset_builder().with_data(&ri(&r.line_z)).create("Z_line")?;
            put_str(&z, "units", "ohm")?;
            put_str(&z, "columns", "re, im")?;
            put_str(
                &z,
                "description",
                "the line's characteristic (Bloch) impedance, measured from the fields",
            )?;
            let g = grp.new_dataset_builder().with_data(&ri(&r.gamma)).create("gamma")?;
            put_str(&g, "units", "1/m")?;
            put_str(&g, "columns", "alpha (Np/m), beta (rad/m)")?;
            let e: Vec<f64> = r
                .gamma
                .iter()
                .zip(&r.freq)
                .map(|(g, f)| ports::eps_eff(*g, *f))
                .collect();
            let d = grp.new_dataset_builder().with_data(&e).create("eps_eff_line")?;
            put_str(
                &d,
                "description",
                "(beta c0 / omega)^2: the line's effective permittivity, measured",
            )?;
        }
        if results.resolved.ports.len() == r.freq.len() {
            let flags: Vec<u8> = results.resolved.ports.iter().map(|&x| x as u8).collect();
            let ds = grp.new_dataset_builder().with_data(&flags).create("resolved")?;
            put_str(&ds, "description", RESOLVED)?;
        }
    }
    Ok(())
}

const RESOLVED: &str = "1: the run resolves this frequency; 0: outside the band the waveforms drive (below -40 dB \
                        of their spectrum's peak) or not below the grid's Nyquist frequency: not a result";

/// `/s_matrix` (a run that drove every port in turn): `S` as `[out][in][freq][2]` (re,
/// im), `S_dB` `[out][in][freq]`, `frequency`, `resolved`, attributes `ports` (the row
/// and column order), `z0`. Outside `/ports`, whose members are the ports' groups (every
/// reader lists them as ports).
fn write_s_matrix(file: &File, results: &RunResults) -> hdf5::Result<()> {
    if file.link_exists("s_matrix") {
        file.unlink("s_matrix")?;
    }
    let Some(m) = &results.s_matrix else {
        return Ok(());
    };
    let (n, nf) = (m.n(), m.freq.len());
    let g = file.create_group("s_matrix")?;
    put_str(
        &g,
        "description",
        "full scattering matrix: every port driven in turn (drive.ports = \"each\"), the others matched loads; \
         S[out][in][freq] = b_out / a_in",
    )?;
    put_str(&g, "ports", &m.ports.join("\n"))?;
    put_str(
        &g,
        "layout",
        "S[out][in][freq][re, im]; ports (rows and columns) in the order of the attribute ports",
    )?;
    put_arr(&g, "z0", &m.z0)?;
    let f = g.new_dataset_builder().with_data(&m.freq).create("frequency")?;
    put_str(&f, "units", "Hz")?;
    let s = ndarray::Array4::from_shape_fn((n, n, nf, 2), |(o, i, k, c)| {
        let v = m.get(o, i, k);
        if c == 0 {
            v.re
        } else {
            v.im
        }
    });
    let ds = g.new_dataset_builder().with_data(&s).create("S")?;
    put_str(&ds, "columns", "re, im")?;
    let db = ndarray::Array3::from_shape_fn((n, n, nf), |(o, i, k)| ports::db(m.get(o, i, k)));
    let ds = g.new_dataset_builder().with_data(&db).create("S_dB")?;
    put_str(&ds, "units", "dB")?;
    if results.resolved.ports.len() == nf {
        let flags: Vec<u8> = results.resolved.ports.iter().map(|&x| x as u8).collect();
        let ds = g.new_dataset_builder().with_data(&flags).create("resolved")?;
        put_str(&ds, "description", RESOLVED)?;
    }
    Ok(())
}

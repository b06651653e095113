//! Far-field results in a result file: `/farfield/<name>/` (see docs/output-format.md).
//!
//! ```text
//! /farfield/<name>             attrs: radiated_power f64[nf] (W), max_directivity_dBi f64[nf],
//!                                     max_direction f64[nf, 2] (θ, φ in degrees),
//!                                     efficiency f64[nf] (with a driven port),
//!                                     units_E ("V": r·E, the e^{−jkr} factor removed)
//! /farfield/<name>/frequency   f64[nf]  Hz
//! /farfield/<name>/theta       f64[nθ]  degrees
//! /farfield/<name>/phi         f64[nφ]  degrees
//! /farfield/<name>/E_theta     f64[nf, nθ, nφ, 2]  r·E_θ, (re, im)
//! /farfield/<name>/E_phi       f64[nf, nθ, nφ, 2]  r·E_φ, (re, im)
//! /farfield/<name>/directivity_dBi    f64[nf, nθ, nφ]
//! /farfield/<name>/gain_dBi           f64[nf, nθ, nφ]  with a driven port
//! /farfield/<name>/realized_gain_dBi  f64[nf, nθ, nφ]  with a driven port
//! /farfield/<name>/E_co, E_cross      f64[nf, nθ, nφ, 2]  co-/cross-polar r·E (attrs
//!                                     polarization, polarization_angle say the reference)
//! /farfield/<name>/directivity_co_dBi, directivity_cross_dBi  f64[nf, nθ, nφ]
//! /farfield/<name>/axial_ratio_dB     f64[nf, nθ, nφ]  300 = linear
//! /farfield/<name>/sense              i8[nf, nθ, nφ]   +1 RHCP, −1 LHCP, 0 linear
//! ```
use fdtd_core::farfield::{db, Complex64, FarField, Polarization};
use fdtd_core::model::Model;
use hdf5::{Group, H5Type, Location};
use std::path::{Path, PathBuf};

/// The CSV companions of `path` (`<stem>_farfield_<name>.csv`), one per far-field box
/// of `model`: written once the run's results are (see [`write_csv_companions`]).
pub(crate) fn csv_companions(path: &Path, model: &Model) -> Vec<(String, PathBuf)> {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = path.parent().unwrap_or(Path::new(""));
    model
        .monitors
        .iter()
        .filter(|m| matches!(m.kind, fdtd_core::monitors::Kind::FarField { .. }))
        .map(|m| (m.name.clone(), dir.join(format!("{stem}_farfield_{}.csv", m.name))))
        .collect()
}

/// Write the pattern CSV of every far field of `ffs` to its companion of `path` (each
/// under a temporary name, created new, then renamed: `xdmf::write_atomic`); the paths
/// written, or the one that failed and why.
pub(crate) fn write_csv_companions(
    path: &Path,
    model: &Model,
    ffs: &[FarField],
) -> Result<Vec<PathBuf>, (PathBuf, std::io::Error)> {
    let names = csv_companions(path, model);
    let mut written = Vec::new();
    for (name, set) in fdtd_core::farfield_csv::by_name(ffs) {
        let Some((_, file)) = names.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        crate::xdmf::write_atomic(file, &fdtd_core::farfield_csv::csv(&set)).map_err(|e| (file.clone(), e))?;
        written.push(file.clone());
    }
    Ok(written)
}

fn put_arr<T: H5Type>(loc: &Location, name: &str, v: &[T]) -> hdf5::Result<()> {
    loc.new_attr_builder().with_data(v).create(name).map(|_| ())
}

fn dataset(g: &Group, name: &str, shape: Vec<usize>, data: &[f64]) -> hdf5::Result<()> {
    g.new_dataset::<f64>().shape(shape).create(name)?.write_raw(data)
}

/// Write `ffs` (any number of far fields, one per name and frequency) under
/// `/farfield` of `root` (a file or group): one group per name, its frequencies in the
/// order given. All the far fields of one name must share one (θ, φ) grid; gain datasets
/// are written when every frequency of that name has them (a driven port).
/// Mark each `/farfield/<name>` group of `root` (written by [`write_farfields`] from the
/// same `ffs`) with the attribute `resolved`: per frequency (the group's order), 1 when
/// the run resolves it, 0 when not (outside the driving band or not below the grid's
/// Nyquist frequency; see docs/output-format.md). `resolved` is per entry of `ffs`;
/// empty: nothing is written.
pub fn mark_resolved(root: &Group, ffs: &[FarField], resolved: &[bool]) -> hdf5::Result<()> {
    if resolved.len() != ffs.len() || ffs.is_empty() {
        return Ok(());
    }
    let top = root.group("farfield")?;
    let mut names: Vec<&str> = Vec::new();
    for f in ffs {
        if !names.contains(&f.name.as_str()) {
            names.push(&f.name);
        }
    }
    for name in names {
        let flags: Vec<u8> = ffs
            .iter()
            .zip(resolved)
            .filter(|(f, _)| f.name == name)
            .map(|(_, &r)| r as u8)
            .collect();
        let g = top.group(name)?;
        if g.attr("resolved").is_ok() {
            g.delete_attr("resolved")?;
        }
        put_arr(&g, "resolved", &flags)?;
    }
    Ok(())
}

pub fn write_farfields(root: &Group, ffs: &[FarField]) -> hdf5::Result<()> {
    if ffs.is_empty() {
        return Ok(());
    }
    let top = match root.group("farfield") {
        Ok(g) => g,
        Err(_) => root.create_group("farfield")?,
    };
    let mut names: Vec<&str> = Vec::new();
    for f in ffs {
        if !names.contains(&f.name.as_str()) {
            names.push(&f.name);
        }
    }
    for name in names {
        let set: Vec<&FarField> = ffs.iter().filter(|f| f.name == name).collect();
        write_one(&top, name, &set)?;
    }
    Ok(())
}

fn write_one(top: &Group, name: &str, set: &[&FarField]) -> hdf5::Result<()> {
    if name.is_empty() || name == "." || name.contains('/') {
        return Err(format!("far field name `{name}` cannot be an HDF5 group name").into());
    }
    let first = set[0];
    let (nt, np) = (first.theta.len(), first.phi.len());
    let n = nt * np;
    for f in set {
        if f.theta != first.theta || f.phi != first.phi || f.e_theta.len() != n || f.directivity.len() != n {
            return Err(format!("far field `{name}`: its frequencies do not share one (θ, φ) grid").into());
        }
    }
    let nf = set.len();
    let g = top.create_group(name)?;
    let deg = |v: &[f64]| v.iter().map(|x| x.to_degrees()).collect::<Vec<f64>>();
    dataset(
        &g,
        "frequency",
        vec![nf],
        &set.iter().map(|f| f.freq).collect::<Vec<_>>(),
    )?;
    dataset(&g, "theta", vec![nt], &deg(&first.theta))?;
    dataset(&g, "phi", vec![np], &deg(&first.phi))?;
    let complex = |get: fn(&FarField) -> &Vec<Complex64>| {
        let mut out = Vec::with_capacity(nf * n * 2);
        for f in set {
            for c in get(f) {
                out.push(c.re);
                out.push(c.im);
            }
        }
        out
    };
    dataset(&g, "E_theta", vec![nf, nt, np, 2], &complex(|f| &f.e_theta))?;
    dataset(&g, "E_phi", vec![nf, nt, np, 2], &complex(|f| &f.e_phi))?;
    let dbs = |get: &dyn Fn(&FarField) -> Option<&Vec<f64>>| -> Option<Vec<f64>> {
        let mut out = Vec::with_capacity(nf * n);
        for f in set {
            out.extend(get(f)?.iter().map(|&x| db(x)));
        }
        Some(out)
    };
    let shape = vec![nf, nt, np];
    if let Some(d) = dbs(&|f| Some(&f.directivity)) {
        dataset(&g, "directivity_dBi", shape.clone(), &d)?;
    }
    if let Some(d) = dbs(&|f| f.gain.as_ref()) {
        dataset(&g, "gain_dBi", shape.clone(), &d)?;
    }
    if let Some(d) = dbs(&|f| f.realized_gain.as_ref()) {
        dataset(&g, "realized_gain_dBi", shape.clone(), &d)?;
    }
    if let Some(d) = dbs(&|f| f.rcs.as_ref()) {
        // dB relative to 1 m².
        dataset(&g, "rcs_dBsm", shape.clone(), &d)?;
    }
    if set.iter().all(|f| f.monostatic.is_some()) {
        let mono: Vec<(f64, f64, f64)> = set.iter().filter_map(|f| f.monostatic).collect();
        put_arr(
            &g,
            "monostatic_rcs_dBsm",
            &mono.iter().map(|m| db(m.2)).collect::<Vec<_>>(),
        )?;
        let dirs: Vec<f64> = mono.iter().flat_map(|m| [m.0.to_degrees(), m.1.to_degrees()]).collect();
        g.new_attr::<f64>()
            .shape([nf, 2])
            .create("monostatic_direction")?
            .write_raw(&dirs)?;
    }
    put_arr(
        &g,
        "radiated_power",
        &set.iter().map(|f| f.radiated_power).collect::<Vec<_>>(),
    )?;
    put_arr(
        &g,
        "max_directivity_dBi",
        &set.iter().map(|f| db(f.max_directivity)).collect::<Vec<_>>(),
    )?;
    let dirs: Vec<f64> = set
        .iter()
        .flat_map(|f| [f.max_at.0.to_degrees(), f.max_at.1.to_degrees()])
        .collect();
    g.new_attr::<f64>()
        .shape([nf, 2])
        .create("max_direction")?
        .write_raw(&dirs)?;
    if set.iter().all(|f| f.efficiency.is_some()) {
        put_arr(
            &g,
            "efficiency",
            &set.iter().map(|f| f.efficiency.unwrap_or(f64::NAN)).collect::<Vec<_>>(),
        )?;
    }
    put_text(&g, "units_E", "V")?;
    write_polarization(&g, set, &shape)?;
    if !first.images.is_empty() {
        let planes: Vec<String> = first.images.iter().map(|p| p.describe()).collect();
        put_text(&g, "image_planes", &planes.join(", "))?;
    }
    Ok(())
}

fn put_text(g: &Group, name: &str, text: &str) -> hdf5::Result<()> {
    let v: hdf5::types::VarLenUnicode = text.parse().map_err(|_| format!("attribute {name}: NUL in text"))?;
    g.new_attr::<hdf5::types::VarLenUnicode>()
        .shape(())
        .create(name)?
        .write_scalar(&v)
}

/// The co-/cross-polar split and the polarisation ellipse (docs/output-format.md):
/// `E_co`, `E_cross` (re, im), `directivity_co_dBi`, `directivity_cross_dBi`,
/// `axial_ratio_dB` (300 = linear), `sense` (+1 RHCP, −1 LHCP, 0 linear), and the
/// reference as attributes `polarization` ("theta", "phi", "ludwig3") and, for Ludwig
/// 3, `polarization_angle` (degrees from x).
fn write_polarization(g: &Group, set: &[&FarField], shape: &[usize]) -> hdf5::Result<()> {
    let n: usize = shape.iter().product();
    let (mut co, mut cross) = (Vec::with_capacity(2 * n), Vec::with_capacity(2 * n));
    let (mut dco, mut dcross) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut ar, mut sense) = (Vec::with_capacity(n), Vec::<i8>::with_capacity(n));
    for f in set {
        let (c, x) = f.co_cross();
        co.extend(c.iter().flat_map(|z| [z.re, z.im]));
        cross.extend(x.iter().flat_map(|z| [z.re, z.im]));
        let (dc, dx) = f.co_cross_directivity();
        dco.extend(dc.iter().map(|&d| db(d)));
        dcross.extend(dx.iter().map(|&d| db(d)));
        let (a, s) = f.axial_ratio();
        ar.extend(a.iter().map(|&a| fdtd_core::farfield::ar_db(a)));
        sense.extend(s);
    }
    let complex_shape = [shape, &[2]].concat();
    dataset(g, "E_co", complex_shape.clone(), &co)?;
    dataset(g, "E_cross", complex_shape, &cross)?;
    dataset(g, "directivity_co_dBi", shape.to_vec(), &dco)?;
    dataset(g, "directivity_cross_dBi", shape.to_vec(), &dcross)?;
    dataset(g, "axial_ratio_dB", shape.to_vec(), &ar)?;
    g.new_dataset::<i8>()
        .shape(shape.to_vec())
        .create("sense")?
        .write_raw(&sense)?;
    match set[0].polarization {
        Polarization::Theta => put_text(g, "polarization", "theta"),
        Polarization::Phi => put_text(g, "polarization", "phi"),
        Polarization::Ludwig3 { angle } => {
            put_text(g, "polarization", "ludwig3")?;
            put_arr(g, "polarization_angle", &[angle])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ResultFile;

    fn ff(name: &str, freq: f64, port: bool) -> FarField {
        let theta = vec![0.0, 0.5 * std::f64::consts::PI, std::f64::consts::PI];
        let phi = vec![0.0, std::f64::consts::PI];
        let d = vec![0.0, 0.0, 1.5, 1.5, 1e-3, 1e-3];
        FarField {
            name: name.into(),
            freq,
            e_theta: (0..6).map(|i| Complex64::new(i as f64, -(i as f64))).collect(),
            e_phi: vec![Complex64::new(0.5, 0.25); 6],
            intensity: d.clone(),
            radiated_power: 2.0,
            max_directivity: 1.5,
            max_at: (0.5 * std::f64::consts::PI, 0.0),
            efficiency: port.then_some(0.5),
            gain: port.then(|| d.iter().map(|x| 0.5 * x).collect()),
            realized_gain: port.then(|| d.iter().map(|x| 0.25 * x).collect()),
            directivity: d,
            theta,
            phi,
            ..Default::default()
        }
    }

    /// The layout of docs/output-format.md: shapes, degrees, (re, im) pairs, dBi with
    /// nulls at −300, per-frequency attributes; gains only when every frequency has them;
    /// read back by `ResultFile`.
    #[test]
    fn far_fields_are_written_in_the_documented_layout() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ff.h5");
        {
            let f = hdf5::File::create(&path).unwrap();
            let s: hdf5::types::VarLenUnicode = "complete".parse().unwrap();
            f.new_attr::<hdf5::types::VarLenUnicode>()
                .shape(())
                .create("status")
                .unwrap()
                .write_scalar(&s)
                .unwrap();
            let all = [ff("a", 1e9, true), ff("b", 2e9, false), ff("a", 1.5e9, true)];
            write_farfields(&f, &all).unwrap();
            // A far field whose frequencies disagree on the grid is refused, naming it.
            let mut bad = ff("c", 1e9, false);
            bad.theta.pop();
            let err = write_farfields(&f, &[ff("c", 2e9, false), bad])
                .unwrap_err()
                .to_string();
            assert!(err.contains("`c`"), "{err}");
            // A far field of another layout (no theta): named by the reader, not fatal.
            let g = f.group("farfield").unwrap().create_group("odd").unwrap();
            g.new_dataset_builder().with_data(&[1e9]).create("frequency").unwrap();
        }
        let f = hdf5::File::open(&path).unwrap();
        let g = f.group("farfield/a").unwrap();
        assert_eq!(
            g.dataset("frequency").unwrap().read_raw::<f64>().unwrap(),
            vec![1e9, 1.5e9]
        );
        assert_eq!(
            g.dataset("theta").unwrap().read_raw::<f64>().unwrap(),
            vec![0.0, 90.0, 180.0]
        );
        assert_eq!(g.dataset("E_theta").unwrap().shape(), vec![2, 3, 2, 2]);
        let e = g.dataset("E_theta").unwrap().read_raw::<f64>().unwrap();
        assert_eq!(&e[..4], &[0.0, 0.0, 1.0, -1.0]);
        let d = g.dataset("directivity_dBi").unwrap().read_raw::<f64>().unwrap();
        assert_eq!(d.len(), 12);
        assert_eq!(d[0], -300.0);
        assert!((d[2] - 10.0 * 1.5f64.log10()).abs() < 1e-12);
        assert!(g.dataset("realized_gain_dBi").is_ok());
        let eff = g.attr("efficiency").unwrap().read_raw::<f64>().unwrap();
        assert_eq!(eff, vec![0.5, 0.5]);
        let dir = g.attr("max_direction").unwrap().read_raw::<f64>().unwrap();
        assert_eq!(dir, vec![90.0, 0.0, 90.0, 0.0]);
        // Co/cross with the default θ reference: E_co = E_θ, E_cross = E_φ; the ellipse
        // of (i − ji, 0.5 + 0.25j) and the reference as attributes.
        assert_eq!(g.dataset("E_co").unwrap().shape(), vec![2, 3, 2, 2]);
        let co = g.dataset("E_co").unwrap().read_raw::<f64>().unwrap();
        assert_eq!(co, e);
        let x = g.dataset("E_cross").unwrap().read_raw::<f64>().unwrap();
        assert_eq!(&x[..2], &[0.5, 0.25]);
        let ar = g.dataset("axial_ratio_dB").unwrap().read_raw::<f64>().unwrap();
        let sense = g.dataset("sense").unwrap().read_raw::<i8>().unwrap();
        assert_eq!((ar.len(), sense.len()), (12, 12));
        let j = Complex64::new(0.0, 1.0);
        let (et, ep) = (Complex64::new(1.0, -1.0), Complex64::new(0.5, 0.25));
        let (r, l) = ((et + j * ep).norm(), (et - j * ep).norm());
        assert!(
            (ar[1] - 20.0 * ((r + l) / (r - l).abs()).log10()).abs() < 1e-9,
            "{ar:?}"
        );
        assert_eq!(sense[1], if r > l { 1 } else { -1 });
        assert!(g.dataset("directivity_cross_dBi").is_ok() && g.dataset("directivity_co_dBi").is_ok());
        let pol: hdf5::types::VarLenUnicode = g.attr("polarization").unwrap().read_scalar().unwrap();
        assert_eq!(pol.as_str(), "theta");
        let b = f.group("farfield/b").unwrap();
        assert!(b.dataset("gain_dBi").is_err() && b.attr("efficiency").is_err());
        drop(f);
        let r = ResultFile::open(&path).unwrap();
        assert_eq!(r.farfields.len(), 2);
        assert_eq!(r.other_groups, vec!["farfield/odd".to_string()]);
        let a = r.farfield("a").unwrap();
        assert_eq!(a.radiated_power, vec![2.0, 2.0]);
        assert_eq!(a.phi, vec![0.0, 180.0]);
        let g = r.farfield_pattern("a", "gain_dBi", 1).unwrap();
        assert!((g[2] - 10.0 * 0.75f64.log10()).abs() < 1e-12);
        assert!(r.farfield_pattern("b", "gain_dBi", 0).is_err());
    }
}

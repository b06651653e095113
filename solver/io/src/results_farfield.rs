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
//! ```
use fdtd_core::farfield::{db, Complex64, FarField};
use hdf5::{Group, H5Type, Location};

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
        dataset(&g, "realized_gain_dBi", shape, &d)?;
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
    let units: hdf5::types::VarLenUnicode = "V".parse().expect("no NUL");
    g.new_attr::<hdf5::types::VarLenUnicode>()
        .shape(())
        .create("units_E")?
        .write_scalar(&units)?;
    Ok(())
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

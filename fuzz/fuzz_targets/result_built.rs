#![no_main]
//! `fdtd info` and `fdtd plot` on result files that are valid HDF5 but hostile fdtd
//! results: the fuzz input drives how a file is *built* (with libhdf5, as a writer
//! would), not its bytes. `result_file` mutates bytes, and most of its executions end in
//! libhdf5 1.10's own parser of damaged metadata (crashes and loops in `H5HG_read`,
//! `H5C_protect`: see docs/robustness.md), before fdtd's reader sees anything; this one
//! reaches `fdtd_io::ResultFile` with every shape, length, type, NaN, infinity and
//! declared size the bytes choose. Nothing may panic, no read may allocate beyond
//! `READ_LIMIT`, and what is read has the shapes the reader promises.
use fdtd_io::ResultFile;
use hdf5::types::VarLenUnicode;
use libfuzzer_sys::fuzz_target;

mod read_back;

/// The fuzz input as a stream of choices (zeros once it runs out).
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        let (b, rest) = self.0.split_first().map(|(b, r)| (*b, r)).unwrap_or((0, &[]));
        self.0 = rest;
        b
    }
    fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }
    /// A length: mostly small, sometimes at a boundary, at most `max`.
    fn len(&mut self, max: usize) -> usize {
        match self.u8() % 8 {
            0 => 0,
            1 => 1,
            2 => max,
            _ => (self.u8() as usize * 7 + self.u8() as usize) % (max + 1),
        }
    }
    /// A value: ordinary, or one of the floats that break arithmetic.
    fn f64(&mut self) -> f64 {
        match self.u8() % 12 {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => f64::NEG_INFINITY,
            3 => 0.0,
            4 => 1e308,
            5 => -1e308,
            6 => 5e-324,
            7 => f64::from_bits(u64::from_le_bytes([
                self.u8(),
                self.u8(),
                self.u8(),
                self.u8(),
                self.u8(),
                self.u8(),
                self.u8(),
                self.u8(),
            ])),
            k => (self.u8() as f64 - 128.0) * 10f64.powi(k as i32 * 3 - 30),
        }
    }
    fn f64s(&mut self, n: usize) -> Vec<f64> {
        // A series: a start, a step, and a few values the bytes pick.
        let (a, d) = (self.f64(), self.f64());
        let mut v: Vec<f64> = (0..n).map(|k| a + d * k as f64).collect();
        for _ in 0..self.u8() % 4 {
            if n > 0 {
                let i = self.u8() as usize % n;
                v[i] = self.f64();
            }
        }
        v
    }
    /// A shape of `rank` axes; a declared one may be huge (2²⁰ to 2³⁹ per axis, 2⁴⁰ over
    /// its huge axes), within what the writer's own element count holds in a usize.
    fn shape(&mut self, rank: usize, huge: bool) -> Vec<usize> {
        let mut bits = 0u32;
        (0..rank)
            .map(|_| {
                let e = 20 + (self.u8() % 20) as u32;
                if huge && self.u8() % 4 == 0 && bits + e <= 40 {
                    bits += e;
                    1usize << e
                } else {
                    bits += 5;
                    self.len(24)
                }
            })
            .collect()
    }
}

type H = hdf5::Result<()>;

fn str_attr(loc: &hdf5::Location, name: &str, v: &str) -> H {
    let v: VarLenUnicode = v.parse().map_err(|_| hdf5::Error::from("string"))?;
    loc.new_attr::<VarLenUnicode>().create(name)?.write_scalar(&v)
}

/// An attribute the reader looks up: absent, of the expected kind, or of another.
fn num_attr(b: &mut Bytes, loc: &hdf5::Location, name: &str, n: usize) -> H {
    match b.u8() % 6 {
        0 => Ok(()),
        1 => str_attr(loc, name, "12"),
        2 => loc
            .new_attr::<u64>()
            .shape(n)
            .create(name)?
            .write_raw(&vec![b.u8() as u64; n]),
        3 => {
            let m = b.len(4);
            loc.new_attr::<f64>().shape(m).create(name)?.write_raw(&b.f64s(m))
        }
        _ if n == 1 && b.bool() => loc.new_attr::<f64>().create(name)?.write_scalar(&b.f64()),
        _ => loc.new_attr::<f64>().shape(n).create(name)?.write_raw(&b.f64s(n)),
    }
}

/// A dataset at `name` in `g`: f64 or f32 data of a chosen shape, a chunked dataset that
/// declares a (possibly huge) shape and stores nothing, a string, or nothing.
fn dataset(b: &mut Bytes, g: &hdf5::Group, name: &str, rank: usize) -> H {
    let rank = if b.u8() % 8 == 0 { b.len(4) } else { rank };
    match b.u8() % 8 {
        0 => Ok(()),
        1 => {
            let shape = b.shape(rank, true);
            let chunk: Vec<usize> = shape.iter().map(|&n| n.clamp(1, 16)).collect();
            let ds = g.new_dataset::<f32>().shape(shape.clone());
            if shape.iter().all(|&n| n > 0) {
                ds.chunk(chunk).create(name).map(|_| ())
            } else {
                ds.create(name).map(|_| ())
            }
        }
        2 => {
            let v: VarLenUnicode = "x".parse().unwrap();
            g.new_dataset::<VarLenUnicode>().shape(1).create(name)?.write_raw(&[v])
        }
        3 | 4 => {
            let shape = b.shape(rank, false);
            let n: usize = shape.iter().product();
            let v: Vec<f32> = b.f64s(n).iter().map(|&x| x as f32).collect();
            g.new_dataset::<f32>().shape(shape).create(name)?.write_raw(&v)
        }
        _ => {
            let shape = b.shape(rank, false);
            let n: usize = shape.iter().product();
            g.new_dataset::<f64>().shape(shape).create(name)?.write_raw(&b.f64s(n))
        }
    }
}

/// A small scene whose stored text parses (10 × 10 × 10 cells of 1 mm).
const SCENE: &str = "[domain]\ncell = 1e-3\nsize = [0.01, 0.01, 0.01]\n[time]\nsteps = 100\n\
                     [boundaries]\nall = \"pec\"\n";

fn build(b: &mut Bytes, path: &std::path::Path) -> H {
    let f = hdf5::File::create(path)?;
    let statuses = ["complete", "running", "failed", "interrupted", "", "complete\0x"];
    str_attr(&f, "status", statuses[b.u8() as usize % statuses.len()])?;
    str_attr(&f, "fdtd_version", "0.1.0")?;
    let scenes = [
        SCENE,
        "",
        "[domain]\ncell = 0\n",
        "[domain]\ncell = 1e-9\nsize = [1, 1, 1]\n",
    ];
    if b.u8() % 8 != 0 {
        str_attr(&f, "scene", scenes[b.u8() as usize % scenes.len()])?;
    }
    for k in ["scene_path", "backend", "device", "precision"] {
        if b.u8() % 8 != 0 {
            str_attr(&f, k, "x")?;
        }
    }
    for k in ["dx", "dy", "dz", "dt", "courant"] {
        num_attr(b, &f, k, 1)?;
    }
    if b.u8() % 8 != 0 {
        let shape = [b.len(40) as u64, b.len(40) as u64, b.len(40) as u64];
        f.new_attr::<u64>().shape(3).create("shape")?.write_raw(&shape)?;
    }
    for k in ["steps_done", "steps", "end_step"] {
        if b.bool() {
            f.new_attr::<u64>().create(k)?.write_scalar(&(b.u8() as u64))?;
        }
    }
    // Probes.
    if b.u8() % 4 != 0 {
        let pg = f.create_group("probes")?;
        for i in 0..b.u8() % 3 {
            let g = pg.create_group(&format!("p{i}"))?;
            num_attr(b, &g, "requested_position", 3)?;
            for c in ["Ez", "Hx"] {
                if b.bool() {
                    dataset(b, &g, c, 1)?;
                    if let Ok(ds) = g.dataset(c) {
                        str_attr(&ds, "units", "V/m")?;
                        num_attr(b, &ds, "position", 3)?;
                    }
                }
            }
            dataset(b, &g, "time", 1)?;
            if b.bool() {
                dataset(b, &g, "time_h", 1)?;
            }
        }
    }
    // Snapshots.
    if b.u8() % 4 != 0 {
        let sg = f.create_group("snapshots")?;
        for i in 0..b.u8() % 3 {
            let g = sg.create_group(&format!("s{i}"))?;
            dataset(b, &g, "time", 1)?;
            dataset(b, &g, "Ez", 4)?;
            if let Ok(ds) = g.dataset("Ez") {
                num_attr(b, &ds, "origin", 3)?;
                num_attr(b, &ds, "spacing", 3)?;
                str_attr(&ds, "units", "V/m")?;
            }
        }
    }
    // Ports.
    if b.u8() % 4 != 0 {
        let pg = f.create_group("ports")?;
        for i in 0..b.u8() % 3 {
            let g = pg.create_group(&format!("p{i}"))?;
            num_attr(b, &g, "z0", 1)?;
            if b.bool() {
                g.new_attr::<u8>().create("driven")?.write_scalar(&(b.u8() % 3))?;
            }
            dataset(b, &g, "frequency", 1)?;
            dataset(b, &g, "S", 2)?;
            dataset(b, &g, "S_dB", 1)?;
            dataset(b, &g, "Z", 2)?;
            for k in ["V", "I", "time"] {
                if b.u8() % 4 == 0 {
                    dataset(b, &g, k, 1)?;
                }
            }
        }
    }
    // Far fields.
    if b.u8() % 4 != 0 {
        let fg = f.create_group("farfield")?;
        for i in 0..b.u8() % 2 + 1 {
            let g = fg.create_group(&format!("ff{i}"))?;
            num_attr(b, &g, "radiated_power", 1)?;
            num_attr(b, &g, "max_directivity_dBi", 1)?;
            num_attr(b, &g, "max_direction", 2)?;
            for k in ["frequency", "theta", "phi"] {
                dataset(b, &g, k, 1)?;
            }
            for k in ["directivity_dBi", "gain_dBi", "realized_gain_dBi"] {
                if b.bool() {
                    dataset(b, &g, k, 3)?;
                }
            }
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("fdtd-fuzz-built-{}.h5", std::process::id()));
    let _ = std::fs::remove_file(&path);
    if build(&mut Bytes(data), &path).is_err() {
        return;
    }
    let Ok(f) = ResultFile::open(&path) else { return };
    read_back::read_back(&f);
});

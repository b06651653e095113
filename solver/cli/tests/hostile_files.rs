//! `fdtd info` and `fdtd plot` on result files they did not write: a corpus of hostile
//! files built here with the hdf5 crate (wrong shapes, NaN and infinities, empty and
//! degenerate axes, shapes that declare terabytes, wrong types, missing attributes,
//! strings where numbers belong). Each command runs as the real binary under a time
//! limit and an address-space limit (`prlimit --as`), and must end cleanly: exit 0 with
//! a result, or a bad-input/runtime exit (2/3) with a message, never a panic (101), an
//! abort (134), a signal or a hang.
use hdf5::types::VarLenUnicode;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_fdtd");
/// The address-space limit of every command, in bytes (`prlimit` takes no suffix): the
/// 4 TB a hostile file declares must be refused well below it.
const AS_LIMIT: u64 = 3 << 30;
/// Wall-clock limit of one command (s).
const TIME_LIMIT: u64 = 60;

/// A value of an attribute or a dataset.
#[derive(Clone, Debug)]
enum V {
    F64(Vec<f64>, Vec<usize>),
    F32(Vec<f32>, Vec<usize>),
    U64(Vec<u64>),
    U8(u8),
    Str(String),
    /// A chunked f32 dataset that declares this shape and stores nothing.
    Declared(Vec<usize>),
    /// A contiguous f64 dataset of this shape that was never written.
    Contiguous(Vec<usize>),
}

fn f64s(v: &[f64]) -> V {
    V::F64(v.to_vec(), vec![v.len()])
}

/// One group or dataset with its attributes (`data: None`: a group).
#[derive(Clone, Debug)]
struct Obj {
    path: String,
    data: Option<V>,
    attrs: Vec<(String, V)>,
}

#[derive(Clone, Debug)]
struct Spec {
    root: Vec<(String, V)>,
    objs: Vec<Obj>,
}

impl Spec {
    fn obj(&mut self, path: &str) -> &mut Obj {
        self.objs
            .iter_mut()
            .find(|o| o.path == path)
            .unwrap_or_else(|| panic!("no {path}"))
    }
    fn set(&mut self, path: &str, v: V) -> &mut Self {
        self.obj(path).data = Some(v);
        self
    }
    fn attr(&mut self, path: &str, name: &str, v: V) -> &mut Self {
        let attrs = if path == "/" {
            &mut self.root
        } else {
            &mut self.obj(path).attrs
        };
        attrs.retain(|(n, _)| n != name);
        attrs.push((name.into(), v));
        self
    }
    fn drop_attr(&mut self, path: &str, name: &str) -> &mut Self {
        let attrs = if path == "/" {
            &mut self.root
        } else {
            &mut self.obj(path).attrs
        };
        attrs.retain(|(n, _)| n != name);
        self
    }
    fn remove(&mut self, path: &str) -> &mut Self {
        self.objs.retain(|o| o.path != path);
        self
    }
    fn add(&mut self, path: &str, v: Option<V>) -> &mut Self {
        self.objs.push(Obj {
            path: path.into(),
            data: v,
            attrs: vec![],
        });
        self
    }
}

/// A small scene whose stored text parses and discretises (10 × 10 × 10 cells of 1 mm).
const SCENE: &str = r#"
[domain]
cell = 1e-3
size = [0.01, 0.01, 0.01]
[time]
steps = 100
[boundaries]
all = "pec"
[[sources]]
name = "tx"
type = "current"
component = "Ez"
position = [0.005, 0.005, 0.005]
waveform = { type = "modulated_gaussian", frequency = 20e9 }
"#;

/// A valid result file: a probe, a snapshot plane, a port and a far field.
fn base() -> Spec {
    let n = 100;
    let t: Vec<f64> = (0..n).map(|k| k as f64 * 1e-12).collect();
    let ez: Vec<f32> = (0..n)
        .map(|k| (k as f32 * 0.3).sin() * (-((k as f32 - 40.0) / 10.0).powi(2)).exp())
        .collect();
    let frames = 3;
    let snap: Vec<f32> = (0..frames * 100).map(|i| ((i % 17) as f32 - 8.0) * 0.1).collect();
    let freq: Vec<f64> = (0..5).map(|k| 1e9 + k as f64 * 1e8).collect();
    let s: Vec<f64> = (0..5).flat_map(|k| [0.1 * k as f64 - 0.2, 0.05]).collect();
    let sdb: Vec<f64> = s.chunks(2).map(|c| 20.0 * c[0].hypot(c[1]).log10()).collect();
    let z: Vec<f64> = (0..5).flat_map(|k| [50.0 + k as f64, -3.0 + k as f64]).collect();
    let theta: Vec<f64> = (0..=18).map(|i| i as f64 * 10.0).collect();
    let phi: Vec<f64> = (0..=24).map(|i| i as f64 * 15.0).collect();
    let pattern: Vec<f64> = theta
        .iter()
        .flat_map(|t| {
            phi.iter()
                .map(move |_| 1.76 + 10.0 * (t.to_radians().sin().powi(2) + 1e-3).log10())
        })
        .collect();
    let str_ = |s: &str| V::Str(s.into());
    Spec {
        root: vec![
            ("status".into(), str_("complete")),
            ("fdtd_version".into(), str_("0.1.0")),
            ("scene".into(), str_(SCENE)),
            ("scene_path".into(), str_("s.toml")),
            ("backend".into(), str_("cpu")),
            ("device".into(), str_("CPU")),
            ("precision".into(), str_("f32")),
            ("dx".into(), V::F64(vec![1e-3], vec![])),
            ("dy".into(), V::F64(vec![1e-3], vec![])),
            ("dz".into(), V::F64(vec![1e-3], vec![])),
            ("dt".into(), V::F64(vec![1e-12], vec![])),
            ("courant".into(), V::F64(vec![0.5], vec![])),
            ("shape".into(), V::U64(vec![10, 10, 10])),
        ],
        objs: vec![
            Obj {
                path: "probes/rx".into(),
                data: None,
                attrs: vec![("requested_position".into(), f64s(&[0.005, 0.005, 0.005]))],
            },
            Obj {
                path: "probes/rx/Ez".into(),
                data: Some(V::F32(ez, vec![n])),
                attrs: vec![("units".into(), str_("V/m")), ("position".into(), f64s(&[0.005; 3]))],
            },
            Obj {
                path: "probes/rx/time".into(),
                data: Some(f64s(&t)),
                attrs: vec![],
            },
            Obj {
                path: "snapshots/mid".into(),
                data: None,
                attrs: vec![],
            },
            Obj {
                path: "snapshots/mid/time".into(),
                data: Some(f64s(&[1e-11, 2e-11, 3e-11])),
                attrs: vec![],
            },
            Obj {
                path: "snapshots/mid/Ez".into(),
                data: Some(V::F32(snap, vec![frames, 10, 10, 1])),
                attrs: vec![
                    ("origin".into(), f64s(&[0.0, 0.0, 0.005])),
                    ("spacing".into(), f64s(&[1e-3; 3])),
                    ("units".into(), str_("V/m")),
                ],
            },
            Obj {
                path: "ports/p1".into(),
                data: None,
                attrs: vec![("z0".into(), V::F64(vec![50.0], vec![])), ("driven".into(), V::U8(1))],
            },
            Obj {
                path: "ports/p1/frequency".into(),
                data: Some(f64s(&freq)),
                attrs: vec![],
            },
            Obj {
                path: "ports/p1/S".into(),
                data: Some(V::F64(s, vec![5, 2])),
                attrs: vec![],
            },
            Obj {
                path: "ports/p1/S_dB".into(),
                data: Some(f64s(&sdb)),
                attrs: vec![],
            },
            Obj {
                path: "ports/p1/Z".into(),
                data: Some(V::F64(z, vec![5, 2])),
                attrs: vec![],
            },
            Obj {
                path: "farfield/ff".into(),
                data: None,
                attrs: vec![
                    ("radiated_power".into(), f64s(&[1e-3])),
                    ("max_directivity_dBi".into(), f64s(&[1.76])),
                    ("max_direction".into(), f64s(&[90.0, 0.0])),
                ],
            },
            Obj {
                path: "farfield/ff/frequency".into(),
                data: Some(f64s(&[1.2e9])),
                attrs: vec![],
            },
            Obj {
                path: "farfield/ff/theta".into(),
                data: Some(f64s(&theta)),
                attrs: vec![],
            },
            Obj {
                path: "farfield/ff/phi".into(),
                data: Some(f64s(&phi)),
                attrs: vec![],
            },
            Obj {
                path: "farfield/ff/directivity_dBi".into(),
                data: Some(V::F64(pattern, vec![1, 19, 25])),
                attrs: vec![],
            },
        ],
    }
}

fn write_attr(loc: &hdf5::Location, name: &str, v: &V) {
    match v {
        V::F64(x, shape) if shape.is_empty() => loc.new_attr::<f64>().create(name).unwrap().write_scalar(&x[0]),
        V::F64(x, _) => loc.new_attr::<f64>().shape(x.len()).create(name).unwrap().write_raw(x),
        V::F32(x, _) => loc.new_attr::<f32>().shape(x.len()).create(name).unwrap().write_raw(x),
        V::U64(x) => loc.new_attr::<u64>().shape(x.len()).create(name).unwrap().write_raw(x),
        V::U8(x) => loc.new_attr::<u8>().create(name).unwrap().write_scalar(x),
        V::Str(s) => loc
            .new_attr::<VarLenUnicode>()
            .create(name)
            .unwrap()
            .write_scalar(&s.parse::<VarLenUnicode>().unwrap()),
        V::Declared(_) | V::Contiguous(_) => unreachable!("datasets only"),
    }
    .unwrap();
}

fn write(spec: &Spec, path: &Path) {
    let f = hdf5::File::create(path).unwrap();
    for (n, v) in &spec.root {
        write_attr(&f, n, v);
    }
    for o in &spec.objs {
        let (parent, name) = o.path.rsplit_once('/').unwrap_or(("", &o.path));
        let mut g: hdf5::Group = f.group("/").unwrap();
        for part in parent.split('/').filter(|p| !p.is_empty()) {
            g = g.group(part).or_else(|_| g.create_group(part)).unwrap();
        }
        let loc: hdf5::Location = match &o.data {
            None => (*g.create_group(name).unwrap()).clone(),
            Some(V::F64(x, shape)) => {
                let ds = g.new_dataset::<f64>().shape(shape.clone()).create(name).unwrap();
                ds.write_raw(x).unwrap();
                (**ds).clone()
            }
            Some(V::F32(x, shape)) => {
                let ds = g.new_dataset::<f32>().shape(shape.clone()).create(name).unwrap();
                ds.write_raw(x).unwrap();
                (**ds).clone()
            }
            Some(V::U64(x)) => {
                let ds = g.new_dataset::<u64>().shape(x.len()).create(name).unwrap();
                ds.write_raw(x).unwrap();
                (**ds).clone()
            }
            Some(V::U8(x)) => {
                let ds = g.new_dataset::<u8>().shape(1).create(name).unwrap();
                ds.write_raw(&[*x]).unwrap();
                (**ds).clone()
            }
            Some(V::Str(s)) => {
                let ds = g.new_dataset::<VarLenUnicode>().shape(1).create(name).unwrap();
                ds.write_raw(&[s.parse::<VarLenUnicode>().unwrap()]).unwrap();
                (**ds).clone()
            }
            Some(V::Declared(shape)) => {
                let chunk: Vec<usize> = shape.iter().map(|&n| n.clamp(1, 16)).collect();
                (**g.new_dataset::<f32>()
                    .chunk(chunk)
                    .shape(shape.clone())
                    .create(name)
                    .unwrap())
                .clone()
            }
            Some(V::Contiguous(shape)) => (**g.new_dataset::<f64>().shape(shape.clone()).create(name).unwrap()).clone(),
        };
        for (n, v) in &o.attrs {
            write_attr(&loc, n, v);
        }
    }
}

/// The hostile cases: name and how each differs from [`base`].
fn cases() -> Vec<(&'static str, Spec)> {
    let tb = 1usize << 40;
    let mut out: Vec<(&'static str, Spec)> = Vec::new();
    let mut case = |name: &'static str, f: &dyn Fn(&mut Spec)| {
        let mut s = base();
        f(&mut s);
        out.push((name, s));
    };
    case("valid", &|_| {});
    // Probes.
    case("probe NaN and inf values", &|s| {
        s.set(
            "probes/rx/Ez",
            V::F32(vec![f32::NAN, f32::INFINITY, -f32::INFINITY, 1.0], vec![4]),
        );
    });
    case("probe all NaN", &|s| {
        s.set("probes/rx/Ez", V::F32(vec![f32::NAN; 100], vec![100]));
    });
    case("probe time NaN", &|s| {
        s.set("probes/rx/time", f64s(&[f64::NAN; 100]));
    });
    case("probe time infinite", &|s| {
        let t: Vec<f64> = (0..100)
            .map(|k| if k == 99 { f64::INFINITY } else { k as f64 })
            .collect();
        s.set("probes/rx/time", f64s(&t));
    });
    case("probe time constant", &|s| {
        s.set("probes/rx/time", f64s(&[1.0; 100]));
    });
    case("probe time decreasing", &|s| {
        let t: Vec<f64> = (0..100).map(|k| -(k as f64) * 1e-12).collect();
        s.set("probes/rx/time", f64s(&t));
    });
    case("probe time 1e308 apart", &|s| {
        let t: Vec<f64> = (0..100).map(|k| if k == 0 { -1e308 } else { 1e308 }).collect();
        s.set("probes/rx/time", f64s(&t));
    });
    case("probe time subnormal", &|s| {
        let t: Vec<f64> = (0..100).map(|k| k as f64 * 5e-324).collect();
        s.set("probes/rx/time", f64s(&t));
    });
    case("probe zero length", &|s| {
        s.set("probes/rx/Ez", V::F32(vec![], vec![0]));
        s.set("probes/rx/time", f64s(&[]));
    });
    case("probe declares 4 TB", &|s| {
        s.set("probes/rx/Ez", V::Declared(vec![tb]));
    });
    case("probe time declares 4 TB contiguous", &|s| {
        s.set("probes/rx/time", V::Contiguous(vec![tb / 2]));
    });
    case("probe values are strings", &|s| {
        s.set("probes/rx/Ez", V::Str("1.0".into()));
    });
    case("probe is two-dimensional", &|s| {
        s.set("probes/rx/Ez", V::F32(vec![1.0; 100], vec![10, 10]));
    });
    case("probe time missing", &|s| {
        s.remove("probes/rx/time");
    });
    case("probe position is a string", &|s| {
        s.attr("probes/rx/Ez", "position", V::Str("here".into()));
    });
    case("many probes each declaring 400 MB", &|s| {
        for k in 0..24 {
            let name: &'static str = Box::leak(format!("probes/p{k}").into_boxed_str());
            s.add(name, None);
            let ez: &'static str = Box::leak(format!("probes/p{k}/Ez").into_boxed_str());
            let t: &'static str = Box::leak(format!("probes/p{k}/time").into_boxed_str());
            s.add(ez, Some(V::Declared(vec![100 << 20])));
            s.add(t, Some(V::F64((0..10).map(|k| k as f64).collect(), vec![10])));
        }
    });
    // Root attributes.
    case("cell size NaN", &|s| {
        s.attr("/", "dx", V::F64(vec![f64::NAN], vec![]));
    });
    case("cell size zero", &|s| {
        s.attr("/", "dy", V::F64(vec![0.0], vec![]));
    });
    case("cell size negative and 1e308", &|s| {
        s.attr("/", "dx", V::F64(vec![-1.0], vec![]));
        s.attr("/", "dz", V::F64(vec![1e308], vec![]));
    });
    case("dt NaN and steps huge", &|s| {
        s.attr("/", "dt", V::F64(vec![f64::NAN], vec![]));
        s.attr("/", "steps", V::U64(vec![u64::MAX]));
    });
    case("shape missing", &|s| {
        s.drop_attr("/", "shape");
    });
    case("shape huge", &|s| {
        s.attr("/", "shape", V::U64(vec![u64::MAX, u64::MAX, 3]));
    });
    case("status is a number", &|s| {
        s.attr("/", "status", V::F64(vec![1.0], vec![]));
    });
    case("status missing", &|s| {
        s.drop_attr("/", "status");
    });
    case("scene is garbage", &|s| {
        s.attr("/", "scene", V::Str("[domain\nsize = ".into()));
    });
    case("scene declares 10^15 cells", &|s| {
        s.attr(
            "/",
            "scene",
            V::Str(SCENE.replace("size = [0.01, 0.01, 0.01]", "size = [100.0, 100.0, 100.0]")),
        );
    });
    case("scene declares 6.4·10^10 cells", &|s| {
        s.attr(
            "/",
            "scene",
            V::Str(SCENE.replace("size = [0.01, 0.01, 0.01]", "size = [4.0, 4.0, 4.0]")),
        );
    });
    case("courant and wall time 1e308", &|s| {
        s.attr("/", "courant", V::F64(vec![1e308], vec![]));
        s.attr("/", "wall_seconds", V::F64(vec![1e-308], vec![]));
    });
    // Snapshots.
    case("snapshot NaN frames", &|s| {
        s.set("snapshots/mid/Ez", V::F32(vec![f32::NAN; 300], vec![3, 10, 10, 1]));
    });
    case("snapshot inf frames", &|s| {
        s.set("snapshots/mid/Ez", V::F32(vec![f32::INFINITY; 300], vec![3, 10, 10, 1]));
    });
    case("snapshot empty axis", &|s| {
        s.set("snapshots/mid/Ez", V::F32(vec![], vec![3, 0, 10, 1]));
    });
    case("snapshot larger than the grid", &|s| {
        s.set("snapshots/mid/Ez", V::F32(vec![0.5; 3 * 50 * 10], vec![3, 50, 10, 1]));
    });
    case("snapshot declares 10^12 frames", &|s| {
        s.set("snapshots/mid/Ez", V::Declared(vec![tb, 10, 10, 1]));
    });
    case("snapshot declares a 4 TB frame", &|s| {
        s.set("snapshots/mid/Ez", V::Declared(vec![2, 1 << 20, 1 << 20, 1]));
        s.drop_attr("/", "shape");
    });
    case("snapshot spacing NaN", &|s| {
        s.attr("snapshots/mid/Ez", "spacing", f64s(&[f64::NAN, 0.0, 1e-3]));
    });
    case("snapshot origin is a string", &|s| {
        s.attr("snapshots/mid/Ez", "origin", V::Str("0".into()));
    });
    case("snapshot time declares 4 TB", &|s| {
        s.set("snapshots/mid/time", V::Declared(vec![tb]));
    });
    case("snapshot three-dimensional", &|s| {
        s.set("snapshots/mid/Ez", V::F32(vec![0.0; 100], vec![10, 10, 1]));
    });
    // Ports.
    case("port S of the wrong shape", &|s| {
        s.set("ports/p1/S", f64s(&[0.1; 7]));
    });
    case("port S_dB longer than frequency", &|s| {
        s.set("ports/p1/S_dB", f64s(&[-12.0; 9]));
        s.remove("ports/p1/S");
    });
    case("port S missing", &|s| {
        s.remove("ports/p1/S");
    });
    case("port S all NaN", &|s| {
        s.set("ports/p1/S", V::F64(vec![f64::NAN; 10], vec![5, 2]));
        s.set("ports/p1/S_dB", f64s(&[f64::NAN; 5]));
    });
    case("port S_dB -6000 and NaN", &|s| {
        s.set("ports/p1/S_dB", f64s(&[-6000.0, f64::NAN, -5.0, f64::NAN, -20.0]));
    });
    case("port frequency NaN", &|s| {
        s.set("ports/p1/frequency", f64s(&[f64::NAN, 1.0, 2.0, 3.0, 4.0]));
    });
    case("port frequency all equal", &|s| {
        s.set("ports/p1/frequency", f64s(&[1e9; 5]));
    });
    case("port frequency zero length", &|s| {
        s.set("ports/p1/frequency", f64s(&[]));
        s.remove("ports/p1/S").remove("ports/p1/S_dB").remove("ports/p1/Z");
    });
    case("port Z 1e308 and z0 1e308", &|s| {
        s.set(
            "ports/p1/Z",
            V::F64(
                vec![1e308, -1e308, 1e308, 1e308, 0.0, 0.0, 1.0, 1.0, 2.0, 2.0],
                vec![5, 2],
            ),
        );
        s.attr("ports/p1", "z0", V::F64(vec![1e308], vec![]));
    });
    case("port z0 is a string", &|s| {
        s.attr("ports/p1", "z0", V::Str("fifty".into()));
    });
    case("port S declares 4 TB", &|s| {
        s.set("ports/p1/S", V::Declared(vec![tb, 2]));
    });
    case("port frequency is a string", &|s| {
        s.set("ports/p1/frequency", V::Str("1e9".into()));
    });
    // Far fields.
    case("far field theta NaN", &|s| {
        let mut t: Vec<f64> = (0..=18).map(|i| i as f64 * 10.0).collect();
        t[3] = f64::NAN;
        s.set("farfield/ff/theta", f64s(&t));
    });
    case("far field pattern of the wrong shape", &|s| {
        s.set("farfield/ff/directivity_dBi", V::F64(vec![1.0; 20], vec![1, 4, 5]));
    });
    case("far field pattern NaN and 1e308", &|s| {
        let v: Vec<f64> = (0..19 * 25)
            .map(|i| if i % 2 == 0 { f64::NAN } else { 1e308 })
            .collect();
        s.set("farfield/ff/directivity_dBi", V::F64(v, vec![1, 19, 25]));
    });
    case("far field one direction", &|s| {
        s.set("farfield/ff/theta", f64s(&[90.0]));
        s.set("farfield/ff/phi", f64s(&[0.0]));
        s.set("farfield/ff/directivity_dBi", V::F64(vec![3.0], vec![1, 1, 1]));
    });
    case("far field 10^6 theta points", &|s| {
        let t: Vec<f64> = (0..1_000_000).map(|i| i as f64 * 1.8e-4).collect();
        s.set("farfield/ff/theta", f64s(&t));
    });
    case("far field pattern declares 4 TB", &|s| {
        s.set(
            "farfield/ff/directivity_dBi",
            V::Declared(vec![1 << 20, 1 << 10, 1 << 10]),
        );
    });
    case("far field efficiency 1e308", &|s| {
        s.attr("farfield/ff", "efficiency", f64s(&[1e308]));
        s.attr("farfield/ff", "max_directivity_dBi", f64s(&[-1e308]));
    });
    out
}

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    secs: f64,
}

fn run(dir: &Path, args: &[&str]) -> Ran {
    let t0 = Instant::now();
    let o = Command::new("timeout")
        .args([
            "-s",
            "KILL",
            &TIME_LIMIT.to_string(),
            "prlimit",
            &format!("--as={AS_LIMIT}"),
            BIN,
        ])
        .args(args)
        .current_dir(dir)
        // The tests of this binary write files with libhdf5 in parallel threads while
        // others fork children: a child forked while a file is being written inherits its
        // descriptor (libhdf5 opens without O_CLOEXEC) and so its lock, and a reader of
        // that file then fails with "unable to lock file" (errno 11) under load. The
        // readers here need no lock.
        .env("HDF5_USE_FILE_LOCKING", "FALSE")
        .output()
        .expect("run timeout/prlimit/fdtd");
    Ran {
        code: o.status.code(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        secs: t0.elapsed().as_secs_f64(),
    }
}

/// Whether a command ended cleanly (see the module doc), with a description otherwise.
fn clean(r: &Ran) -> Result<(), String> {
    let ok = matches!(r.code, Some(0) | Some(2) | Some(3))
        && !r.stderr.contains("panicked")
        && r.secs < TIME_LIMIT as f64 - 1.0;
    if !ok {
        return Err(format!(
            "exit {:?} after {:.1} s\nstderr: {}",
            r.code,
            r.secs,
            r.stderr.chars().take(2000).collect::<String>()
        ));
    }
    if r.code != Some(0) && !r.stderr.contains("error") {
        return Err(format!("exit {:?} without an error message: {}", r.code, r.stderr));
    }
    // NaN is never printed as a level or a band.
    let all = format!("{}{}", r.stdout, r.stderr);
    for bad in ["NaN dB", "nan dB", "-6000", "−6000"] {
        if all.contains(bad) {
            return Err(format!("prints `{bad}`:\n{all}"));
        }
    }
    if let Some(w) = all
        .split_whitespace()
        .find(|w| w.chars().filter(|c| c.is_ascii_digit()).count() > 40)
    {
        return Err(format!("prints a number of {} characters: {w:.60}…", w.len()));
    }
    Ok(())
}

#[test]
fn info_and_plot_end_cleanly_on_every_hostile_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut summary = Vec::new();
    for (k, (name, spec)) in cases().into_iter().enumerate() {
        let file = format!("c{k}.h5");
        write(&spec, &dir.path().join(&file));
        let size = std::fs::metadata(dir.path().join(&file)).unwrap().len();
        let info = run(dir.path(), &["info", &file]);
        let json = run(dir.path(), &["info", &file, "--json"]);
        let plot = run(dir.path(), &["plot", &file, "-o", &format!("p{k}")]);
        for (what, r) in [("info", &info), ("info --json", &json), ("plot", &plot)] {
            if let Err(e) = clean(r) {
                failures.push(format!("{name} ({size} B), {what}: {e}"));
            }
        }
        if name == "valid" {
            assert_eq!(info.code, Some(0), "{}", info.stderr);
            assert_eq!(plot.code, Some(0), "{}", plot.stderr);
            assert!(plot.stdout.matches("wrote").count() >= 6, "{}", plot.stdout);
        }
        summary.push(format!(
            "{name:<40} {size:>9} B  info {:?} {:.1} s  plot {:?} {:.1} s  {}",
            info.code,
            info.secs,
            plot.code,
            plot.secs,
            plot.stderr
                .lines()
                .chain(info.stderr.lines())
                .find(|l| l.starts_with("error"))
                .unwrap_or("")
        ));
    }
    println!("{}", summary.join("\n"));
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Files that declare more than they hold are refused by name, with the budget, and the
/// wrongly shaped port that used to panic says which dataset and what it expected.
#[test]
fn refusals_name_the_dataset_and_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let check = |name: &str, f: &dyn Fn(&mut Spec), cmd: &str, expect: &[&str]| {
        let mut s = base();
        f(&mut s);
        let file = format!("{}.h5", name);
        write(&s, &dir.path().join(&file));
        let r = run(dir.path(), &[cmd, &file]);
        assert_eq!(r.code, Some(2), "{name}: {}", r.stderr);
        for e in expect {
            assert!(r.stderr.contains(e), "{name}: no `{e}` in {}", r.stderr);
        }
    };
    check(
        "bad_s",
        &|s| {
            s.set("ports/p1/S", f64s(&[0.1; 7]));
        },
        "plot",
        &["/ports/p1/S", "7 values for 5 frequencies"],
    );
    check(
        "huge_probe",
        &|s| {
            s.set("probes/rx/Ez", V::Declared(vec![1 << 40]));
        },
        "info",
        &[
            "/probes/rx/Ez",
            "1099511627776 values",
            "more than one read may hold in memory (512 MiB)",
        ],
    );
    check(
        "contiguous",
        &|s| {
            s.set("probes/rx/time", V::Contiguous(vec![1 << 26]));
        },
        "info",
        &["/probes/rx/time", "the file is truncated or damaged"],
    );
    check(
        "total",
        &|s| {
            for k in 0..8 {
                let p: &'static str = Box::leak(format!("probes/q{k}").into_boxed_str());
                let ez: &'static str = Box::leak(format!("probes/q{k}/Ez").into_boxed_str());
                let t: &'static str = Box::leak(format!("probes/q{k}/time").into_boxed_str());
                s.add(p, None);
                s.add(ez, Some(V::Declared(vec![100 << 20])));
                s.add(t, Some(f64s(&[0.0, 1.0])));
            }
        },
        "info",
        &["more than 1 GiB", "declares far more data than it holds"],
    );
    check(
        "snapshot_grid",
        &|s| {
            s.set("snapshots/mid/Ez", V::F32(vec![0.5; 3 * 50 * 10], vec![3, 50, 10, 1]));
        },
        "info",
        &["/snapshots/mid/Ez", "larger than the grid"],
    );
}

/// The stored scene of 6.4·10¹⁰ cells is not discretised again for outlines (it would
/// need 800 GB); the figures are still made, with a note.
#[test]
fn a_huge_stored_scene_gets_no_outlines_but_the_figures_are_made() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = base();
    s.attr(
        "/",
        "scene",
        V::Str(SCENE.replace("size = [0.01, 0.01, 0.01]", "size = [4.0, 4.0, 4.0]")),
    );
    write(&s, &dir.path().join("big.h5"));
    let r = run(dir.path(), &["plot", "big.h5", "-o", "out"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stderr.contains("too many to discretise again for outlines"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.contains("wrote"), "{}", r.stdout);
    let _ = Duration::from_secs(0);
}

/// Links planted at the figure names (pointing at files outside) are replaced, never
/// written through; an output directory that is a link is refused.
#[test]
fn plot_does_not_write_through_planted_links() {
    let dir = tempfile::tempdir().unwrap();
    write(&base(), &dir.path().join("r.h5"));
    let first = run(dir.path(), &["plot", "r.h5", "-o", "out"]);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let names: Vec<String> = std::fs::read_dir(dir.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.len() >= 6 && names.iter().any(|n| n.ends_with(".gif")),
        "{names:?}"
    );
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    for (k, n) in names.iter().enumerate() {
        let victim = outside.join(format!("victim{k}"));
        std::fs::write(&victim, "keep").unwrap();
        let at = dir.path().join("out").join(n);
        std::fs::remove_file(&at).unwrap();
        std::os::unix::fs::symlink(&victim, &at).unwrap();
    }
    let again = run(dir.path(), &["plot", "r.h5", "-o", "out"]);
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    for (k, n) in names.iter().enumerate() {
        assert_eq!(
            std::fs::read_to_string(outside.join(format!("victim{k}"))).unwrap(),
            "keep",
            "{n}"
        );
        let m = std::fs::symlink_metadata(dir.path().join("out").join(n)).unwrap();
        assert!(m.file_type().is_file() && m.len() > 100, "{n}: {m:?}");
    }
    // No temporary files are left behind.
    assert_eq!(std::fs::read_dir(dir.path().join("out")).unwrap().count(), names.len());

    std::os::unix::fs::symlink(&outside, dir.path().join("linked")).unwrap();
    let linked = run(dir.path(), &["plot", "r.h5", "-o", "linked"]);
    assert_eq!(linked.code, Some(2), "{}", linked.stderr);
    assert!(linked.stderr.contains("is a symbolic link"), "{}", linked.stderr);
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), names.len());
}

/// Seeds of the `result_file` fuzz target (`fuzz/fuzz_targets/result_file.rs`): every
/// hostile file of [`cases`] of at most 100 000 bytes (the campaign's `-max_len`),
/// written to `$FDTD_FUZZ_SEEDS` (`scripts/fuzz-result-seeds.sh` runs it; the files are
/// not committed: tens of kilobytes each).
#[test]
#[ignore = "writes the fuzz seeds; run by scripts/fuzz-result-seeds.sh"]
fn write_fuzz_seeds() {
    let out = std::path::PathBuf::from(std::env::var_os("FDTD_FUZZ_SEEDS").expect("FDTD_FUZZ_SEEDS=DIR"));
    std::fs::create_dir_all(&out).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut kept = 0;
    for (k, (name, spec)) in cases().into_iter().enumerate() {
        let path = tmp.path().join(format!("c{k}.h5"));
        write(&spec, &path);
        let bytes = std::fs::read(&path).unwrap();
        if bytes.len() <= 100_000 {
            std::fs::write(out.join(format!("hostile-{k:02}.h5")), &bytes).unwrap();
            kept += 1;
        } else {
            println!("left out: {name} ({} bytes)", bytes.len());
        }
    }
    assert!(kept > 40, "{kept} seeds");
    println!("{kept} seeds in {}", out.display());
}

/// A 36 KB file found by the `result_file` fuzz target (a mutation of the valid base
/// file) on which libhdf5 1.10 loops for ever in `H5HG_read` while `ResultFile::open`
/// reads a string attribute: `info` and `plot` give each read a deadline
/// (`FDTD_READ_TIMEOUT`, 120 s by default; 2 s here) and end with exit 2 naming the file,
/// where they used to spin until killed.
#[test]
fn a_file_libhdf5_loops_on_ends_at_the_read_deadline() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/libhdf5-loops.h5");
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&data, dir.path().join("loops.h5")).unwrap();
    for args in [&["info", "loops.h5"][..], &["plot", "loops.h5", "-o", "p"][..]] {
        let mut child = std::process::Command::new(BIN)
            .args(args)
            .current_dir(dir.path())
            .env("FDTD_READ_TIMEOUT", "2")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // A guard against the loop itself: the deadline ends it long before this.
        let t0 = std::time::Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if t0.elapsed().as_secs() > 60 {
                child.kill().unwrap();
                panic!("{args:?} still runs after 60 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert_eq!(status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr
                .contains("loops.h5: reading its attributes and layout: the HDF5 library did not return within 2.0 s"),
            "{args:?}: {stderr}"
        );
    }
}

/// `info` and `plot` read the file in a child process (`cli/isolate.rs`): a child that
/// dies by a signal, as libhdf5 1.10 does on some damaged files, becomes exit 2 with a
/// message naming the file, never a crash of the command. Deterministic on any libhdf5:
/// the child raises the signal itself (`FDTD_FAULT_READ_SIGNAL`) on a valid file.
#[test]
fn a_crash_while_reading_is_a_clear_error_not_a_signal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("s.toml"), SCENE).unwrap();
    let o = cli(d, &["run", "s.toml", "-o", "ok.h5", "--backend", "cpu"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    for (sig, name) in [(11, "SIGSEGV"), (6, "SIGABRT"), (7, "SIGBUS")] {
        for args in [&["info", "ok.h5"][..], &["plot", "ok.h5", "-o", "p"][..]] {
            let o = cli(d, args, &[("FDTD_FAULT_READ_SIGNAL", &sig.to_string())]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{args:?} {name}: {err}");
            assert!(
                err.contains(&format!(
                    "ok.h5: not a readable fdtd result: reading it crashed the HDF5 library ({name})"
                )),
                "{args:?}: {err}"
            );
        }
    }
    // Without the fault the same file reads (the child's output is the command's).
    let o = cli(d, &["info", "ok.h5"], &[]);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("status     complete"));
}

/// A 26 KB mutation of a result file found by the `result_file` fuzz target, on which
/// libhdf5 1.10 (Debian's) dies with SIGSEGV in `ResultFile::open`: `info` and `plot`
/// end with exit 2 and a message naming the file (the crash message with that library;
/// another libhdf5 may refuse the file with its own error, also exit 2).
#[test]
fn a_file_that_crashes_libhdf5_is_refused_with_exit_2() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/libhdf5-segv.h5");
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&data, dir.path().join("segv.h5")).unwrap();
    for args in [&["info", "segv.h5"][..], &["plot", "segv.h5", "-o", "p"][..]] {
        let o = cli(dir.path(), args, &[("FDTD_READ_TIMEOUT", "20")]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("segv.h5"), "{args:?}: {err}");
    }
}

/// `fdtd ARGS` in `dir` with `env`, to completion.
fn cli(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .envs(env.iter().copied())
        .output()
        .expect("run fdtd")
}

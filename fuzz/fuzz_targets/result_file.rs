#![no_main]
//! `fdtd info` and `fdtd plot` read result files they did not write: arbitrary bytes (in
//! practice mutations of small valid result files, `corpus/result`) written as a file and
//! read with `fdtd_io::ResultFile` the way `info` and `plot` read it: open, every probe
//! series, snapshot times and frames, far-field patterns. Nothing may panic, and what is
//! read must have the shapes the reader promises (the figures index with them). Run with
//! `-malloc_limit_mb` above `fdtd_io::read::READ_LIMIT` (512 MiB): no read may allocate
//! more, whatever the file declares.
use fdtd_io::ResultFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // libhdf5 opens files by name: one scratch file per fuzzing process.
    let path = std::env::temp_dir().join(format!("fdtd-fuzz-result-{}.h5", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let Ok(f) = ResultFile::open(&path) else { return };
    for p in &f.probes {
        for c in &p.components {
            if let Ok((t, v)) = f.probe_series(&p.name, &c.name) {
                assert_eq!(t.len(), v.len());
            }
        }
    }
    for s in &f.snapshots {
        let _ = f.snapshot_times(&s.name);
        for c in &s.components {
            let n: usize = c.shape.iter().product();
            for k in [0, c.frames / 2, c.frames.saturating_sub(1)] {
                if let Ok(v) = f.snapshot_frame(&s.name, &c.name, k) {
                    assert!(k < c.frames && v.len() == n);
                }
            }
        }
    }
    for ff in &f.farfields {
        for q in &ff.patterns {
            for k in 0..ff.freq.len().min(2) {
                if let Ok(v) = f.farfield_pattern(&ff.name, q, k) {
                    assert_eq!(v.len(), ff.theta.len() * ff.phi.len());
                }
            }
        }
    }
    for p in &f.ports {
        let n = p.frequency.len();
        assert!(p.s.is_empty() || p.s.len() == n);
        assert!(p.z.is_empty() || p.z.len() == n);
        assert!(p.s_db.is_empty() || p.s_db.len() == n);
    }
});

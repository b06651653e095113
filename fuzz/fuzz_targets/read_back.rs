//! What both result-file targets do with a file that opened: read it the way `fdtd info`
//! and `fdtd plot` do (every probe series, snapshot times and frames, far-field patterns,
//! port arrays) and hold what was read to the shapes the reader promises.
use fdtd_io::ResultFile;

pub fn read_back(f: &ResultFile) {
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
}

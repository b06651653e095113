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

mod read_back;

fuzz_target!(|data: &[u8]| {
    // libhdf5 opens files by name: one scratch file per fuzzing process.
    let path = std::env::temp_dir().join(format!("fdtd-fuzz-result-{}.h5", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let Ok(f) = ResultFile::open(&path) else { return };
    read_back::read_back(&f);
});

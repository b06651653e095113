//! Standard output and error as reports. What the commands print is for a reader; when
//! the reader has gone (`fdtd run scene.toml | head -1`, a closed terminal) the report
//! ends, not the command: the run goes on, its files and its exit code are what they
//! would have been. (`println!` would panic on the broken pipe, leaving a run's output
//! file `running`.)
use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a write to stdout failed: the rest of the report is dropped.
static STDOUT_GONE: AtomicBool = AtomicBool::new(false);

/// Standard output for reports: writes after the reader has gone are dropped; a failure
/// other than a broken pipe (a full disk under `> report.txt`) is said once on stderr.
pub struct Report;

impl Report {
    fn guard(r: io::Result<()>) {
        if let Err(e) = r {
            if !STDOUT_GONE.swap(true, Ordering::SeqCst) && e.kind() != io::ErrorKind::BrokenPipe {
                err_line(format_args!(
                    "warning: cannot write to standard output ({e}); the rest of the report is dropped"
                ));
            }
        }
    }
}

impl Write for Report {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !STDOUT_GONE.load(Ordering::SeqCst) {
            Report::guard(io::stdout().lock().write_all(buf));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !STDOUT_GONE.load(Ordering::SeqCst) {
            Report::guard(io::stdout().lock().flush());
        }
        Ok(())
    }
}

/// One line on stdout (see [`Report`]).
pub fn line(args: fmt::Arguments<'_>) {
    let mut out = io::stdout().lock();
    if !STDOUT_GONE.load(Ordering::SeqCst) {
        Report::guard(out.write_fmt(args).and_then(|()| out.write_all(b"\n")));
    }
}

/// Text on stdout without a newline (see [`Report`]).
pub fn text(args: fmt::Arguments<'_>) {
    let mut out = io::stdout().lock();
    if !STDOUT_GONE.load(Ordering::SeqCst) {
        Report::guard(out.write_fmt(args));
    }
}

/// One line on stderr; a closed stderr drops it (there is nowhere left to say so).
pub fn err_line(args: fmt::Arguments<'_>) {
    let mut err = io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.write_all(b"\n"));
}

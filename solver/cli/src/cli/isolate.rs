//! `fdtd info` and `fdtd plot` read their file in a child process.
//!
//! They read files fdtd may not have written, through libhdf5, whose parser of damaged
//! metadata is not hardened (1.10, as Debian and Ubuntu ship it): the `result_file` fuzz
//! target finds inputs that crash it (SIGSEGV in the global heap, aborts), allocate
//! without bound, or loop (see docs/robustness.md). A call into C cannot be made safe
//! from Rust, so the command runs in a child (this binary again, with [`ENV`] set) under
//! an address-space limit, and the parent turns a child that dies by a signal into a
//! clear error naming the file, exit code 2 like any damaged file. The child inherits
//! stdin, stdout and stderr, so its output and exit code are the command's; a loop ends
//! at the read deadline (`fdtd_io::read::deadline`) inside the child.
use super::exit;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;

/// Set in the child: run the command in this process.
pub const ENV: &str = "FDTD_READ_CHILD";
/// Fault injection for tests: the child raises this signal (a number) before reading, as
/// libhdf5 does on some damaged files, whatever version of it the machine has.
pub const FAULT_ENV: &str = "FDTD_FAULT_READ_SIGNAL";

/// The child's address-space limit: the RAM available now plus 1 GiB of slack for
/// mappings that are never touched (libraries, thread stacks), at least 2 GiB. A damaged
/// file that declares a 14 GB metadata block then fails to allocate (an error, or an
/// abort that the parent reports) instead of driving the machine into swap or the
/// out-of-memory killer.
fn address_space_limit() -> u64 {
    let avail = fdtd::session::resources::available_ram().unwrap_or(u64::MAX / 2);
    avail.saturating_add(1 << 30).max(2 << 30)
}

/// Run this command in a child and return its exit code, or `None` in the child itself
/// (and where no child can be started: then the command runs here, unprotected).
pub fn in_child(file: &Path) -> Option<i32> {
    if std::env::var_os(ENV).is_some() {
        limit_address_space();
        if let Some(sig) = std::env::var(FAULT_ENV).ok().and_then(|v| v.trim().parse::<i32>().ok()) {
            // SAFETY: these only set this process's disposition of `sig` to the default (Rust
            // handles SIGSEGV and SIGBUS itself, to report stack overflows) and deliver it.
            unsafe {
                libc::signal(sig, libc::SIG_DFL);
                libc::raise(sig);
            }
        }
        return None;
    }
    let exe = std::env::current_exe().ok()?;
    let status = Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env(ENV, "1")
        .status()
        .ok()?;
    if let Some(code) = status.code() {
        return Some(code);
    }
    let sig = status.signal().unwrap_or(0);
    let code = match sig {
        libc::SIGINT | libc::SIGTERM | libc::SIGHUP => {
            errln!("error: {}: interrupted", file.display());
            exit::INTERRUPTED
        }
        libc::SIGKILL => {
            errln!(
                "error: {}: reading it was killed (SIGKILL: out of memory, or by someone); a damaged file can \
                 declare sizes that make libhdf5 allocate without bound",
                file.display()
            );
            exit::BAD_INPUT
        }
        _ => {
            errln!(
                "error: {}: not a readable fdtd result: reading it crashed the HDF5 library ({}); the file is \
                 damaged (libhdf5 does not survive every damaged file: docs/robustness.md)",
                file.display(),
                signal_name(sig)
            );
            exit::BAD_INPUT
        }
    };
    Some(code)
}

fn signal_name(sig: i32) -> String {
    match sig {
        libc::SIGSEGV => "SIGSEGV".into(),
        libc::SIGABRT => "SIGABRT".into(),
        libc::SIGBUS => "SIGBUS".into(),
        libc::SIGFPE => "SIGFPE".into(),
        libc::SIGILL => "SIGILL".into(),
        s => format!("signal {s}"),
    }
}

fn limit_address_space() {
    let limit = address_space_limit();
    let lim = libc::rlimit {
        rlim_cur: limit as libc::rlim_t,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: setrlimit reads the struct we pass and changes only this process's limit.
    // A failure (a lower hard limit already set) leaves that limit, which is fine.
    unsafe {
        libc::setrlimit(libc::RLIMIT_AS, &lim);
    }
}

//! The `fdtd` binary: see `fdtd --help` and [`cli`].
mod cli;

fn main() {
    // Probing GPU adapters loads Mesa's EGL, which prints "XDG_RUNTIME_DIR is invalid or
    // not set" on headless machines (servers, CI, containers) where the variable is
    // missing. Give it the temp dir, before any thread exists, so users see no noise.
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
    }
    cli::install_panic_hook();
    std::process::exit(cli::main());
}

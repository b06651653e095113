//! The `fdtd` binary: see `fdtd --help` and [`cli`].
mod cli;

fn main() {
    std::process::exit(cli::main());
}

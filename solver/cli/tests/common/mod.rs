//! What the CLI tests share: running the `fdtd` binary, hermetically.
#![allow(dead_code)] // each test binary uses a part of it

use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};

pub const BIN: &str = env!("CARGO_BIN_EXE_fdtd");

/// Held while this process has an HDF5 file open and while it starts a child: HDF5 opens
/// files without close-on-exec, so a child started meanwhile by another test would
/// inherit the descriptor, and with it the file's lock, for as long as it runs.
static FORK: Mutex<()> = Mutex::new(());

pub fn fork_lock() -> MutexGuard<'static, ()> {
    FORK.lock().unwrap_or_else(|e| e.into_inner())
}

/// `fdtd ARGS` in `dir`. None of the `FDTD_*` knobs of the environment the tests run in
/// (fault injection, budgets, RAM limits) reach it: a test sets the ones it means.
/// `XDG_RUNTIME_DIR` is set because Mesa (software GPU adapters) complains without it.
pub fn cmd(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .current_dir(dir)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir());
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("FDTD_") {
            c.env_remove(k);
        }
    }
    c
}

/// Run `c` to completion (under [`fork_lock`]).
pub fn output(c: &mut Command) -> Output {
    let _g = fork_lock();
    c.output().expect("run a command")
}

/// `fdtd ARGS` in `dir`, to completion.
pub fn fdtd(dir: &Path, args: &[&str]) -> Output {
    output(&mut cmd(dir, args))
}

/// `fdtd ARGS` in `dir` with `env` set, to completion.
pub fn fdtd_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = cmd(dir, args);
    c.envs(env.iter().copied());
    output(&mut c)
}

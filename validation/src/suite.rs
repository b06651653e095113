//! The analytic suite per backend, for `cargo test`: [`backend_tests!`](crate::backend_tests)
//! emits one `#[test]` per case in a `mod cpu` and again in a `mod gpu` (the way burn
//! generates its test suite per backend), each asserting the case's analytic bounds.
//!
//! Without a usable GPU adapter a GPU test prints "skipped: no GPU adapter (why)" and
//! passes, unless the environment variable `CI` is set: CI installs lavapipe, so there a
//! missing adapter is a failure, never a silent skip (the rule of `tests/gpu_parity.rs`).
use crate::cases::{BackendSpec, Case, CaseError, CaseResult, Size};
use fdtd_core::backend::BackendChoice;

/// A GPU test found no adapter: fail under CI, else say why it is skipped.
pub fn no_gpu(why: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("CI is set, so a GPU adapter (lavapipe) must exist, but: {why}");
    }
    eprintln!("skipped: no GPU adapter ({why})");
}

/// Run `case` on `spec` at `size`, print what it found and assert every bound. Returns
/// the result, or None when a GPU test was skipped for want of an adapter.
pub fn check(case: Case, spec: &BackendSpec, size: Size) -> Option<CaseResult> {
    let r = match (case.run)(spec, size) {
        Ok(r) => r,
        Err(CaseError::NoDevice(why)) if spec.choice == BackendChoice::Gpu => {
            no_gpu(&why);
            return None;
        }
        Err(e) => panic!("{} on {}: {e}", case.name, spec.name()),
    };
    println!(
        "{} on {} ({}, {} size): {:.1} Mcells/s, {:.1} s",
        r.case,
        r.device,
        r.backend,
        r.size,
        r.mcells_per_s(),
        r.wall_s
    );
    for line in &r.log {
        println!("{line}");
    }
    for c in &r.checks {
        println!("{} {c}", if c.pass() { "pass" } else { "FAIL" });
    }
    let failed: Vec<String> = r.failures().map(|c| c.to_string()).collect();
    assert!(failed.is_empty(), "{} on {}: {}", r.case, r.backend, failed.join("; "));
    Some(r)
}

/// One `#[test]` per case and backend: `mod cpu` runs each case on the CPU backend at
/// [`Size::Full`], `mod gpu` on the GPU backend at the size given per case (`Full`, or
/// `Quick` where a software GPU cannot afford the full size: the case documents that
/// size and why its bounds still hold).
///
/// ```ignore
/// fdtd_validation::backend_tests! {
///     /// What the test holds the backend to.
///     fn cavity_resonances_match_yee_dispersion_and_continuum => cavity::PEC, gpu: Full;
/// }
/// ```
#[macro_export]
macro_rules! backend_tests {
    ($($(#[$meta:meta])* fn $name:ident => $module:ident :: $case:ident, gpu: $gpu_size:ident;)*) => {
        /// The analytic cases on the CPU backend, at full size.
        mod cpu {
            $(
                $(#[$meta])*
                #[test]
                fn $name() {
                    $crate::suite::check(
                        $crate::cases::$module::$case,
                        &$crate::cases::BackendSpec::cpu(),
                        $crate::cases::Size::Full,
                    );
                }
            )*
        }

        /// The same cases and bounds on the GPU backend (skipped without an adapter,
        /// unless `CI` is set).
        mod gpu {
            $(
                $(#[$meta])*
                #[test]
                fn $name() {
                    $crate::suite::check(
                        $crate::cases::$module::$case,
                        &$crate::cases::BackendSpec::gpu(),
                        $crate::cases::Size::$gpu_size,
                    );
                }
            )*
        }
    };
}

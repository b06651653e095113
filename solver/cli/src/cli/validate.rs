//! `fdtd validate`: the analytic validation suite (`fdtd_validation::cases`), from the
//! binary: the same case functions `cargo test` runs, on the CPU, the GPU or both, with
//! the two held to each other where both ran.
use super::{exit, CliError, ValidateArgs, ValidateBackend};
use fdtd::backend::BackendOptions;
use fdtd_validation::cases::{self, parity, value, BackendSpec, CaseError, CaseResult, Size, PARITY_TOLERANCE};
use std::time::Instant;

/// Column widths of the table.
const W: [usize; 7] = [15, 7, 52, 14, 10, 6, 8];

fn row(cells: [&str; 7]) {
    let mut line = String::new();
    for (i, (c, w)) in cells.iter().zip(W).enumerate() {
        if i > 0 {
            line.push_str("  ");
        }
        // Numbers right-aligned, text left-aligned.
        if i >= 3 && i != 5 {
            line.push_str(&format!("{c:>w$}"));
        } else {
            line.push_str(&format!("{c:<w$}"));
        }
    }
    outln!("{}", line.trim_end());
}

/// Rows for one backend's result of one case; returns the number of failed checks.
fn print_result(r: &CaseResult) -> usize {
    let speed = format!("{:.1}", r.mcells_per_s());
    for (i, c) in r.checks.iter().enumerate() {
        let what = if c.worst.is_empty() {
            c.what.clone()
        } else {
            format!("{} [{}]", c.what, c.worst)
        };
        row([
            if i == 0 { r.case } else { "" },
            r.backend,
            &what,
            &c.bound.show(c.unit),
            &value(c.measured, c.unit),
            if c.pass() { "pass" } else { "FAIL" },
            if i == 0 { &speed } else { "" },
        ]);
    }
    let failed = r.failures().count();
    if failed > 0 {
        for line in r.log.iter().flat_map(|l| l.lines()) {
            outln!("      {line}");
        }
    }
    failed
}

/// The GPU to include: `Ok(Some(device))` to run it, `Ok(None)` with a note when `all`
/// leaves it out, `Err` when `--backend gpu` finds none.
fn gpu_target(a: &ValidateArgs, opts: &BackendOptions) -> Result<Option<String>, CliError> {
    let required = a.backend == ValidateBackend::Gpu;
    match cases::probe_gpu(opts) {
        Ok(t) if t.software && opts.device.is_none() && !required => {
            outln!(
                "gpu: skipped: the GPU adapter, {}, is software and far slower than the CPU \
                 (name it with --device to include it)",
                t.device
            );
            Ok(None)
        }
        Ok(t) => Ok(Some(t.device)),
        Err(e) if required => Err(CliError::runtime(format!("--backend gpu: {e}"))),
        Err(e) => {
            outln!("gpu: skipped: {e}");
            Ok(None)
        }
    }
}

pub fn validate(a: &ValidateArgs) -> Result<i32, CliError> {
    let start = Instant::now();
    let size = if a.quick { Size::Quick } else { Size::Full };
    let cpu_opts = BackendOptions {
        threads: a.threads,
        ..Default::default()
    };
    let gpu_opts = BackendOptions {
        device: a.device.clone(),
        ..Default::default()
    };
    let mut specs = Vec::new();
    if a.backend != ValidateBackend::Gpu {
        specs.push(BackendSpec::new(fdtd::backend::BackendChoice::Cpu, cpu_opts));
    }
    if a.backend != ValidateBackend::Cpu {
        if let Some(device) = gpu_target(a, &gpu_opts)? {
            outln!("gpu: {device}");
            specs.push(BackendSpec::new(fdtd::backend::BackendChoice::Gpu, gpu_opts));
        }
    }
    let both = specs.len() == 2;
    outln!(
        "fdtd validate: {} analytic cases on {}, {} size{}",
        cases::ALL.len(),
        specs.iter().map(|s| s.name()).collect::<Vec<_>>().join(" and "),
        size,
        if both { ", CPU and GPU held to each other" } else { "" }
    );
    outln!();
    row(["case", "backend", "check", "bound", "measured", "result", "Mcells/s"]);
    row(["----", "-------", "-----", "-----", "--------", "------", "--------"]);
    let (mut checks, mut failed) = (0usize, 0usize);
    let mut devices: Vec<(&'static str, String)> = Vec::new();
    for case in cases::ALL {
        let mut results: Vec<CaseResult> = Vec::new();
        for spec in &specs {
            match (case.run)(spec, size) {
                Ok(r) => {
                    if !devices.iter().any(|(b, _)| *b == r.backend) {
                        devices.push((r.backend, r.device.clone()));
                    }
                    checks += r.checks.len();
                    failed += print_result(&r);
                    results.push(r);
                }
                Err(e) => {
                    checks += 1;
                    failed += 1;
                    let why = match &e {
                        CaseError::NoDevice(_) => e.to_string(),
                        CaseError::Failed(msg) => format!("error: {msg}"),
                    };
                    row([case.name, spec.name(), &why, "", "", "FAIL", ""]);
                }
            }
        }
        if let [cpu, gpu] = &results[..] {
            let p = parity(cpu, gpu);
            checks += 1;
            let what = match &p.mismatch {
                Some(m) => m.clone(),
                None => format!("max rel. difference, {} series [{}]", p.count, p.series),
            };
            row([
                "",
                "cpu=gpu",
                &what,
                &format!("≤ {}", value(PARITY_TOLERANCE, "")),
                &value(p.worst, ""),
                if p.pass() { "pass" } else { "FAIL" },
                "",
            ]);
            if !p.pass() {
                failed += 1;
            }
        }
    }
    outln!();
    for (b, d) in &devices {
        outln!("{b}: {d}");
    }
    let wall = start.elapsed().as_secs_f64();
    if failed == 0 {
        outln!("all {checks} checks passed ({wall:.1} s)");
        Ok(exit::OK)
    } else {
        outln!("{failed} of {checks} checks FAILED ({wall:.1} s)");
        Ok(exit::RUNTIME)
    }
}

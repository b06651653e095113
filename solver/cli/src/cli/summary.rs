//! The one-screen summary of a finished run's frequency-domain results (`fdtd run`):
//! the end criterion, then per port its resonances, best match, −10 dB band and Z there.
//! Far-field lines (radiated power, directivity, gain) go in [`farfield_lines`].
use fdtd::fmt::{fixed, hz, sig};

/// Why a port's S can be NaN, for the line that says it is.
const NAN_WHY: &str = "the incident wave is zero: the driven port's amplitude is 0, or the run recorded no drive";
use fdtd::runner::{EndReason, Outcome};
use fdtd::session::RunReport;

/// Lines about the end criterion and the ports of `report` (empty when it has neither).
pub fn lines(report: &RunReport) -> Vec<String> {
    let mut out = Vec::new();
    let s = &report.summary;
    if let Some(db) = report.decay_db {
        let measured = s
            .energy_db
            .map_or(String::new(), |l| format!(", last measured {} dB", fixed(l, 1)));
        match s.end {
            EndReason::Decayed(step) => out.push(format!(
                "  end      energy decayed {} dB below its peak at step {step} of at most {}{measured}",
                sig(db, 3),
                report.steps
            )),
            EndReason::MaxSteps if s.outcome == Outcome::Finished => out.push(format!(
                "  end      the maximum duration came first: the energy did not decay {} dB{measured}",
                sig(db, 3)
            )),
            _ => {}
        }
    }
    let early = report.decay_db.is_some() && !matches!(s.end, EndReason::Decayed(_));
    for (k, full) in report.results.ports.iter().enumerate() {
        let role = if full.driven { "driven" } else { "matched load" };
        out.push(format!("  port     {} ({role}, Z0 = {} Ω)", full.name, sig(full.z0, 4)));
        // Findings come from the frequencies the run resolves only.
        let skip = report.unresolved.ports.get(k).cloned().unwrap_or_default();
        let left_out: Vec<f64> = full
            .freq
            .iter()
            .zip(&skip)
            .filter(|(_, &u)| u)
            .map(|(f, _)| *f)
            .collect();
        // A line port's frequencies where its planes see a symmetric standing wave.
        let unmeasured: Vec<f64> = full
            .freq
            .iter()
            .zip(&full.line_ok)
            .filter(|(_, &ok)| !ok)
            .map(|(f, _)| *f)
            .collect();
        if !unmeasured.is_empty() {
            out.push(format!(
                "           {} of {} frequencies ({} .. {}): its line's two measurement planes see the same |V| or |I| \
                 (a standing wave symmetric about them), so the line is not measured there: left out of the findings below",
                unmeasured.len(),
                full.freq.len(),
                hz(unmeasured[0]),
                hz(unmeasured[unmeasured.len() - 1])
            ));
        }
        if left_out.len() > unmeasured.len() {
            out.push(format!(
                "           {} of {} frequencies ({} .. {}) are outside what the run resolves (see the warning): \
                 left out of the findings below",
                left_out.len() - unmeasured.len(),
                full.freq.len(),
                hz(left_out[0]),
                hz(left_out[left_out.len() - 1])
            ));
        }
        if !left_out.is_empty() && left_out.len() == full.freq.len() {
            out.push("           no finding: none of the frequencies is resolved".into());
            continue;
        }
        let kept = resolved_only(full, &skip);
        let p = &kept;
        let sum = fdtd::ports::summarize(p);
        if p.driven {
            let res: Vec<String> = sum
                .resonances
                .iter()
                .take(4)
                .map(|(f, r, _)| format!("{} (Re Z {} Ω)", hz(*f), sig(*r, 4)))
                .collect();
            if res.is_empty() {
                out.push("           resonances (Im Z = 0): none in the band".into());
            } else {
                out.push(format!("           resonances (Im Z = 0): {}", res.join(", ")));
            }
            let nan = p.s.iter().filter(|s| !(s.re.is_finite() && s.im.is_finite())).count();
            if let (Some((f, db)), Some(z)) = (sum.min_s_db, sum.z_at_min) {
                out.push(format!(
                    "           min |S11| {} dB at {}, Z_in = {} {} j{} Ω",
                    fixed(db, 2),
                    hz(f),
                    sig(z.re, 4),
                    if z.im < 0.0 { "-" } else { "+" },
                    sig(z.im.abs(), 4)
                ));
            }
            match sum.band_10db {
                _ if sum.min_s_db.is_none() => out.push(format!(
                    "           |S11| n/a: S is not a number at any of the {} frequencies ({})",
                    p.s.len(),
                    NAN_WHY
                )),
                Some((lo, hi)) => out.push(format!(
                    "           -10 dB band {} to {} ({} wide)",
                    hz(lo),
                    hz(hi),
                    hz(hi - lo)
                )),
                None => out.push("           |S11| stays above -10 dB in the band".into()),
            }
            if nan > 0 && sum.min_s_db.is_some() {
                out.push(format!(
                    "           |S11| n/a at {nan} of {} frequencies ({NAN_WHY})",
                    p.s.len()
                ));
            }
        } else {
            let finite = (0..p.s.len()).filter(|&k| fdtd::ports::db(p.s[k]).is_finite());
            match finite.max_by(|&a, &b| p.s[a].norm().total_cmp(&p.s[b].norm())) {
                Some(k) => out.push(format!(
                    "           max |S| {} dB at {}",
                    fixed(fdtd::ports::db(p.s[k]), 2),
                    p.freq.get(k).map_or("?".into(), |f| hz(*f))
                )),
                None if !p.s.is_empty() => out.push(format!("           |S| n/a: S is not a number ({NAN_WHY})")),
                None => {}
            }
        }
    }
    if let Some(m) = &report.results.s_matrix {
        out.extend(s_matrix_lines(m, &report.results.resolved.ports, &report.drives));
    }
    if early && !report.results.ports.is_empty() {
        out.push(
            "warning: the port results come from a run that ended before its end criterion: the fields had not \
             decayed, so Z and S may be off; raise [time] duration"
                .into(),
        );
    }
    out.extend(farfield_lines(report));
    out
}

/// The full S-matrix of a run that drove every port: each further drive's end, and the
/// largest |S_ij − S_ji| over the resolved frequencies (a reciprocal structure gives 0
/// up to rounding and the end criterion).
fn s_matrix_lines(m: &fdtd::results::SMatrix, resolved: &[bool], drives: &[fdtd::session::DriveReport]) -> Vec<String> {
    let n = m.n();
    let mut out = vec![format!(
        "  s-matrix {n} × {n}, every port driven in turn ({} drives)",
        drives.len() + 1
    )];
    for d in drives {
        let end = match d.summary.end {
            EndReason::Decayed(step) => format!("decayed at step {step}"),
            _ => format!("{} steps (no decay)", d.summary.steps_done),
        };
        out.push(format!("           drive of {}: {end}", d.port));
    }
    let mut worst: Option<(f64, usize, usize, usize)> = None;
    for k in 0..m.freq.len() {
        if !resolved.get(k).copied().unwrap_or(true) {
            continue;
        }
        for i in 0..n {
            for j in 0..i {
                let d = (m.get(i, j, k) - m.get(j, i, k)).norm();
                if worst.is_none_or(|w| d > w.0) {
                    worst = Some((d, i, j, k));
                }
            }
        }
    }
    if let Some((d, i, j, k)) = worst {
        out.push(format!(
            "           max |S{}{} − S{}{}| {} at {}",
            i + 1,
            j + 1,
            j + 1,
            i + 1,
            sig(d, 3),
            hz(m.freq[k])
        ));
    }
    out
}

/// The items of `v` whose `skip` flag is false.
fn kept<T: Copy>(v: &[T], skip: &[bool]) -> Vec<T> {
    v.iter().zip(skip).filter(|(_, &u)| !u).map(|(x, _)| *x).collect()
}

/// `r` at the frequencies whose `skip` flag is false (all of them when none is set).
fn resolved_only(r: &fdtd::results::PortResult, skip: &[bool]) -> fdtd::results::PortResult {
    if !skip.iter().any(|&u| u) || skip.len() != r.freq.len() {
        return r.clone();
    }
    fdtd::results::PortResult {
        name: r.name.clone(),
        z0: r.z0,
        driven: r.driven,
        reference_plane: r.reference_plane,
        eps_eff: r.eps_eff,
        freq: kept(&r.freq, skip),
        v: kept(&r.v, skip),
        i: kept(&r.i, skip),
        z: kept(&r.z, skip),
        a: kept(&r.a, skip),
        b: kept(&r.b, skip),
        s: kept(&r.s, skip),
        p_inc: kept(&r.p_inc, skip),
        p_acc: kept(&r.p_acc, skip),
        line_z: kept(&r.line_z, skip),
        gamma: kept(&r.gamma, skip),
        to_line: r.to_line,
        line_ok: r
            .line_ok
            .iter()
            .zip(skip)
            .filter(|(_, &u)| !u)
            .map(|(x, _)| *x)
            .collect(),
    }
}

/// Far-field lines (radiated power, peak directivity and gain) at the frequencies the
/// run resolves; one line naming each frequency it does not.
pub fn farfield_lines(report: &RunReport) -> Vec<String> {
    let ffs = &report.results.farfields;
    let skip = |k: usize| report.unresolved.farfields.get(k).copied().unwrap_or(false);
    let resolved: Vec<_> = ffs
        .iter()
        .enumerate()
        .filter(|(k, _)| !skip(*k))
        .map(|(_, f)| f.clone())
        .collect();
    let mut out: Vec<String> = fdtd::farfield::summary_lines(&resolved)
        .into_iter()
        .map(|l| format!("  {l}"))
        .collect();
    for (_, f) in ffs.iter().enumerate().filter(|(k, _)| skip(*k)) {
        out.push(format!(
            "  far field {} at {}: no finding (the run does not resolve this frequency: outside the band its \
             sources drive, or above the grid's Nyquist frequency; see the warning)",
            f.name,
            hz(f.freq)
        ));
    }
    out
}

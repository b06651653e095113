//! The one-screen summary of a finished run's frequency-domain results (`fdtd run`):
//! the end criterion, then per port its resonances, best match, −10 dB band and Z there.
//! Far-field lines (radiated power, directivity, gain) go in [`farfield_lines`].
use fdtd::fmt::{hz, sig};
use fdtd::runner::{EndReason, Outcome};
use fdtd::session::RunReport;

/// Lines about the end criterion and the ports of `report` (empty when it has neither).
pub fn lines(report: &RunReport) -> Vec<String> {
    let mut out = Vec::new();
    let s = &report.summary;
    if let Some(db) = report.decay_db {
        let measured = s
            .energy_db
            .map_or(String::new(), |l| format!(", last measured {:.1} dB", l));
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
    for p in &report.results.ports {
        let sum = fdtd::ports::summarize(p);
        let role = if p.driven { "driven" } else { "matched load" };
        out.push(format!("  port     {} ({role}, Z0 = {} Ω)", p.name, sig(p.z0, 4)));
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
            if let (Some((f, db)), Some(z)) = (sum.min_s_db, sum.z_at_min) {
                out.push(format!(
                    "           min |S11| {:.2} dB at {}, Z_in = {} {} j{} Ω",
                    db,
                    hz(f),
                    sig(z.re, 4),
                    if z.im < 0.0 { "-" } else { "+" },
                    sig(z.im.abs(), 4)
                ));
            }
            match sum.band_10db {
                Some((lo, hi)) => out.push(format!(
                    "           -10 dB band {} to {} ({} wide)",
                    hz(lo),
                    hz(hi),
                    hz(hi - lo)
                )),
                None => out.push("           |S11| stays above -10 dB in the band".into()),
            }
        } else if let Some(k) = (0..p.s.len()).max_by(|&a, &b| p.s[a].norm().total_cmp(&p.s[b].norm())) {
            out.push(format!(
                "           max |S| {:.2} dB at {}",
                fdtd::ports::db(p.s[k]),
                hz(p.freq[k])
            ));
        }
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

/// Far-field lines (radiated power, peak directivity and gain): filled in by the far-field work.
pub fn farfield_lines(report: &RunReport) -> Vec<String> {
    fdtd::farfield::summary_lines(&report.results.farfields)
        .into_iter()
        .map(|l| format!("  {l}"))
        .collect()
}

//! `fdtd sweep collect`: one row per variant (every variant: the failed and unfinished
//! ones too, with their state and why), the finished ones with their results, written
//! as `summary.csv` and `summary.h5` in the sweep directory.
//!
//! Columns, in order: `id`, `state`, the parameters and derived values, `backend`,
//! `device`, `run_time_s`, `cells`, `steps` (the steps run), `steps_max` (planned),
//! `end_reason` (`decayed`: the end criterion stopped it, `all steps`),
//! `max_<probe>_<component>` (max |value| of every probe series), the figures' columns
//! (`<figure>_hz`, `<figure>_f0_hz`, `<figure>_re_ohm`), the port and far-field figures
//! ([`crate::port_columns`]: `port_<p>_f0_hz`, `ff_<f>_d_dbi_<freq>`, ...), the numeric attributes of the outputs' port and far-field groups
//! (`ports_<name>_<attr>`, `farfield_<name>_<attr>`; see [`results::RESULT_GROUPS`]),
//! and `note` (why a value is missing).
use crate::keys::SceneValue;
use crate::layout::{Layout, Manifest};
use crate::results::{self, RunResult};
use crate::spectrum;
use crate::status::{collect_status, SchedulerView, State, VariantStatus};
use crate::SweepError;
use fdtd_core::atomic_file::NewFile;
use hdf5::types::VarLenUnicode;
use std::collections::BTreeMap;

/// A value in the summary table.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Num(f64),
    Text(String),
}

impl Cell {
    fn csv(&self) -> String {
        match self {
            Cell::Num(x) if x.is_nan() => String::new(),
            Cell::Num(x) => format!("{x}"),
            Cell::Text(s) if s.contains([',', '"', '\n']) => format!("\"{}\"", s.replace('"', "\"\"")),
            Cell::Text(s) => s.clone(),
        }
    }
}

/// The collected sweep.
#[derive(Clone, Debug)]
pub struct Summary {
    pub name: String,
    pub columns: Vec<String>,
    /// One per variant, in sweep order, each with one cell per column.
    pub rows: Vec<Vec<Cell>>,
    pub done: Vec<String>,
    /// `(id, why)`.
    pub failed: Vec<(String, String)>,
    /// Not finished (pending, queued, running, interrupted): `(id, state)`.
    pub missing: Vec<(String, String)>,
}

impl Summary {
    pub fn column(&self, name: &str) -> Option<Vec<&Cell>> {
        let i = self.columns.iter().position(|c| c == name)?;
        Some(self.rows.iter().map(|r| &r[i]).collect())
    }
}

/// Gather every variant of the sweep in `layout` (`scheduler`: the Slurm view, when the
/// sweep was submitted).
pub fn collect(layout: &Layout, scheduler: Option<&SchedulerView>) -> Result<Summary, SweepError> {
    let manifest = Manifest::read(layout)?;
    let statuses = collect_status(layout, &manifest, scheduler);
    let mut done = Vec::new();
    let mut failed = Vec::new();
    let mut missing = Vec::new();
    // Per variant: its result columns, or why there are none.
    let mut per: Vec<(BTreeMap<String, Cell>, String)> = Vec::new();
    let mut result_columns: Vec<String> = Vec::new();
    let mut port_columns: Vec<String> = Vec::new();
    let mut extra_columns: Vec<String> = Vec::new();
    let figure_columns: Vec<String> = manifest.figures.iter().flat_map(spectrum::columns).collect();
    for (st, entry) in statuses.iter().zip(&manifest.variants) {
        let mut cols = BTreeMap::new();
        let note;
        match &st.state {
            State::Done => match results::read(&layout.output(&st.id)) {
                Ok(run) => {
                    done.push(st.id.clone());
                    note = fill(
                        &manifest,
                        &run,
                        st,
                        &mut cols,
                        [&mut result_columns, &mut port_columns, &mut extra_columns],
                    );
                }
                Err(e) => {
                    let why = format!("{}: {e}", layout.output(&st.id).display());
                    failed.push((st.id.clone(), why.clone()));
                    note = why;
                }
            },
            State::Failed { exit_code, reason } => {
                let why = match exit_code {
                    Some(c) => format!("{reason} (exit code {c})"),
                    None => reason.clone(),
                };
                let why = match st.last_message() {
                    Some(l) => format!("{why}: {l}"),
                    None => why,
                };
                failed.push((st.id.clone(), why.clone()));
                note = why;
            }
            other => {
                missing.push((st.id.clone(), other.label().to_string()));
                note = format!("not finished ({})", other.label());
            }
        }
        cols.insert("cells".into(), Cell::Num(entry.cells as f64));
        cols.insert("steps_max".into(), Cell::Num(entry.steps as f64));
        per.push((cols, note));
    }
    extra_columns.sort();
    let mut columns: Vec<String> = vec!["id".into(), "state".into()];
    columns.extend(manifest.columns.iter().cloned());
    columns.extend(
        [
            "backend",
            "device",
            "run_time_s",
            "cells",
            "steps",
            "steps_max",
            "end_reason",
        ]
        .map(String::from),
    );
    columns.extend(result_columns.iter().cloned());
    columns.extend(figure_columns.iter().cloned());
    columns.extend(port_columns.iter().cloned());
    columns.extend(extra_columns.iter().cloned());
    columns.push("note".into());
    let text_cols = ["backend", "device", "end_reason", "note"];
    let rows = statuses
        .iter()
        .zip(&manifest.variants)
        .zip(per)
        .map(|((st, entry), (cols, note))| {
            let mut row = vec![Cell::Text(st.id.clone()), Cell::Text(st.state.label().into())];
            row.extend(entry.values.iter().map(|v| match v {
                SceneValue::Num(x) => Cell::Num(*x),
                other => Cell::Text(other.to_string()),
            }));
            for c in &columns[2 + manifest.columns.len()..columns.len() - 1] {
                row.push(cols.get(c).cloned().unwrap_or_else(|| {
                    if text_cols.contains(&c.as_str()) {
                        Cell::Text(String::new())
                    } else {
                        Cell::Num(f64::NAN)
                    }
                }));
            }
            row.push(Cell::Text(note));
            row
        })
        .collect();
    Ok(Summary {
        name: manifest.name.clone(),
        columns,
        rows,
        done,
        failed,
        missing,
    })
}

/// The result columns of a finished run; returns the note (figures that could not be
/// computed).
fn fill(
    manifest: &Manifest,
    run: &RunResult,
    st: &VariantStatus,
    cols: &mut BTreeMap<String, Cell>,
    [result_columns, port_columns, extra_columns]: [&mut Vec<String>; 3],
) -> String {
    let mut notes = Vec::new();
    cols.insert("steps".into(), Cell::Num(run.steps_done as f64));
    let end = match run.end_reason.as_str() {
        "decayed" => "decayed",
        "max_steps" => "all steps",
        "stopped" => "stopped",
        "" => "",
        _ => "unknown",
    };
    cols.insert("end_reason".into(), Cell::Text(end.into()));
    for (name, x) in &run.port_columns {
        if !port_columns.contains(name) {
            port_columns.push(name.clone());
        }
        cols.insert(name.clone(), Cell::Num(*x));
    }
    notes.extend(run.port_notes.iter().cloned());
    cols.insert("backend".into(), Cell::Text(run.backend.clone()));
    cols.insert("device".into(), Cell::Text(run.device.clone()));
    cols.insert("run_time_s".into(), Cell::Num(st.run_time().unwrap_or(f64::NAN)));
    for s in &run.series {
        let name = format!("max_{}_{}", s.probe, s.component);
        if !result_columns.contains(&name) {
            result_columns.push(name.clone());
        }
        cols.insert(name, Cell::Num(s.max_abs()));
    }
    let source = fdtd_scene::Scene::parse(&run.scene, "result.h5")
        .ok()
        .and_then(|s| s.sources.first().map(|s| s.waveform.clone()));
    for fig in &manifest.figures {
        let names = spectrum::columns(fig);
        match spectrum::evaluate(fig, run, source.as_ref()) {
            Ok(vals) => {
                for (n, v) in names.into_iter().zip(vals) {
                    cols.insert(n, Cell::Num(v));
                }
            }
            Err(e) => notes.push(format!("{}: {e}", fig.name())),
        }
    }
    for (name, x) in &run.extra {
        if !extra_columns.contains(name) {
            extra_columns.push(name.clone());
        }
        cols.insert(name.clone(), Cell::Num(*x));
    }
    notes.join("; ")
}

/// Write `summary.csv` and `summary.h5` into the sweep directory.
pub fn write(summary: &Summary, layout: &Layout) -> Result<(), SweepError> {
    let mut csv = summary.columns.join(",");
    csv.push('\n');
    for r in &summary.rows {
        csv.push_str(&r.iter().map(Cell::csv).collect::<Vec<_>>().join(","));
        csv.push('\n');
    }
    crate::layout::write_atomic(&layout.summary_csv(), csv.as_bytes())?;
    let path = layout.summary_h5();
    // A fresh temporary (O_EXCL, never a planted link) that HDF5 then truncates.
    let out = NewFile::create(&path).map_err(|e| SweepError::io(&path, "creating a temporary beside", e))?;
    write_h5(summary, out.temp()).map_err(|e| SweepError::Hdf5 {
        path: out.temp().to_path_buf(),
        message: format!("writing the summary: {e}"),
    })?;
    out.commit().map_err(|e| crate::fsafe::commit_error(&path, e))
}

fn vlu(s: &str) -> VarLenUnicode {
    s.replace('\0', "\u{fffd}").parse().expect("no NUL left")
}

fn write_h5(summary: &Summary, path: &std::path::Path) -> hdf5::Result<()> {
    let file = hdf5::File::create(path)?;
    let strs = |v: &[String]| v.iter().map(|s| vlu(s)).collect::<Vec<_>>();
    file.new_attr::<VarLenUnicode>()
        .shape(())
        .create("sweep")?
        .write_scalar(&vlu(&summary.name))?;
    file.new_attr::<VarLenUnicode>()
        .shape(())
        .create("fdtd_version")?
        .write_scalar(&vlu(env!("CARGO_PKG_VERSION")))?;
    file.new_attr_builder()
        .with_data(&strs(&summary.columns))
        .create("columns")?;
    let ids = |v: &[(String, String)]| v.iter().map(|(i, _)| i.clone()).collect::<Vec<_>>();
    for (name, list) in [
        ("done", summary.done.clone()),
        ("failed", ids(&summary.failed)),
        ("missing", ids(&summary.missing)),
    ] {
        file.new_attr::<u64>()
            .shape(())
            .create(&format!("n_{name}")[..])?
            .write_scalar(&(list.len() as u64))?;
        if !list.is_empty() {
            file.new_attr_builder().with_data(&strs(&list)).create(name)?;
        }
    }
    let g = file.create_group("columns")?;
    for (i, c) in summary.columns.iter().enumerate() {
        let cells: Vec<&Cell> = summary.rows.iter().map(|r| &r[i]).collect();
        let ds = if cells.iter().all(|c| matches!(c, Cell::Num(_))) {
            let v: Vec<f64> = cells
                .iter()
                .map(|c| match c {
                    Cell::Num(x) => *x,
                    Cell::Text(_) => f64::NAN,
                })
                .collect();
            g.new_dataset_builder().with_data(&v).create(c.as_str())?
        } else {
            let v: Vec<VarLenUnicode> = cells
                .iter()
                .map(|c| match c {
                    Cell::Num(x) if x.is_nan() => vlu(""),
                    Cell::Num(x) => vlu(&x.to_string()),
                    Cell::Text(s) => vlu(s),
                })
                .collect();
            g.new_dataset_builder().with_data(&v).create(c.as_str())?
        };
        ds.new_attr::<u64>()
            .shape(())
            .create("column")?
            .write_scalar(&(i as u64))?;
    }
    Ok(())
}

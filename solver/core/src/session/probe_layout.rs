//! How an output file lays out a run's probes, shared by the writer (fdtd-io) and the
//! estimates ([`super::resources::output_bytes`], [`super::resources::host_plan`]), so
//! that what is planned is what is written.
//!
//! Up to [`PROBE_TABLE_THRESHOLD`] probes, each probe is a group with one dataset per
//! component and its time datasets ([`ProbeLayout::Groups`]): easy to read by name, but
//! every dataset costs about 2.5 KB of file metadata and tens of kilobytes of library
//! memory while open. Above it, the probes are written as tables
//! ([`ProbeLayout::Table`]): one per distinct `every`, with one column per (probe,
//! component) channel, so a probe costs what it records. See `docs/output-format.md`.
use crate::model::Model;
use std::collections::BTreeMap;

/// Above this many probes, the probes are written as tables ([`ProbeLayout::Table`]).
pub const PROBE_TABLE_THRESHOLD: usize = 256;
/// Rows of one chunk of a probe table's `values` (at most; fewer when the run records
/// fewer): one runner chunk of steps (64 by default) at `every = 1` fills whole chunks.
pub const PROBE_TABLE_ROWS: usize = 64;
/// Bytes of one chunk of a probe table's `values` (at most, unless one row of one
/// column is more): HDF5's default chunk cache (1 MiB) holds one chunk.
pub const PROBE_TABLE_CHUNK_BYTES: usize = 1 << 20;
/// Elements per chunk of a 1-D probe dataset (per-probe series, table times), at most.
pub const PROBE_CHUNK: usize = 4096;

/// How a file holds its probes (the `/probes` attribute `layout`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeLayout {
    /// `/probes/<name>/<component>`, one group per probe.
    Groups,
    /// `/probes/every_<k>/values` [rows, channels], one table per distinct `every`.
    Table,
}

impl ProbeLayout {
    /// The layout for `probes` probes: tables above `threshold`.
    pub fn for_count(probes: usize, threshold: usize) -> ProbeLayout {
        if probes > threshold {
            ProbeLayout::Table
        } else {
            ProbeLayout::Groups
        }
    }

    /// The layout of `model`'s probes with the default threshold.
    pub fn of(model: &Model) -> ProbeLayout {
        ProbeLayout::for_count(model.probes.len(), PROBE_TABLE_THRESHOLD)
    }

    /// The value of the `/probes` attribute `layout`.
    pub fn name(self) -> &'static str {
        match self {
            ProbeLayout::Groups => "groups",
            ProbeLayout::Table => "table",
        }
    }

    /// The layout named `name` (an attribute value).
    pub fn from_name(name: &str) -> Option<ProbeLayout> {
        match name {
            "groups" => Some(ProbeLayout::Groups),
            "table" => Some(ProbeLayout::Table),
            _ => None,
        }
    }
}

/// One probe table: the probes sampled every `every` steps, their channels in model
/// order (probe by probe, each probe's components in its sample order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeTable {
    pub every: usize,
    /// Indices into `model.probes`.
    pub probes: Vec<usize>,
    /// Columns: the probes' samples added up.
    pub channels: usize,
}

impl ProbeTable {
    /// The group name under `/probes`.
    pub fn group(&self) -> String {
        format!("every_{}", self.every)
    }
}

/// The probe tables of `model`, by ascending `every`.
pub fn probe_tables(model: &Model) -> Vec<ProbeTable> {
    let mut by_every: BTreeMap<usize, ProbeTable> = BTreeMap::new();
    for (i, p) in model.probes.iter().enumerate() {
        let every = p.every.max(1);
        let t = by_every.entry(every).or_insert_with(|| ProbeTable {
            every,
            probes: Vec::new(),
            channels: 0,
        });
        t.probes.push(i);
        t.channels += p.samples.len();
    }
    by_every.into_values().collect()
}

/// Chunk shape `[rows, columns]` of a probe table's `values` for a run that records
/// `rows` rows of `channels` columns: at most [`PROBE_TABLE_ROWS`] rows (no more than the
/// run records: a chunk is allocated whole) and [`PROBE_TABLE_CHUNK_BYTES`].
pub fn table_chunk(rows: usize, channels: usize) -> [usize; 2] {
    let r = rows.clamp(1, PROBE_TABLE_ROWS);
    let c = (PROBE_TABLE_CHUNK_BYTES / (4 * r)).clamp(1, channels.max(1));
    [r, c]
}

/// Elements per chunk of a 1-D probe dataset expected to hold `expected` elements.
pub fn series_chunk(expected: usize) -> usize {
    expected.clamp(1, PROBE_CHUNK)
}

/// Elements a chunked axis of `chunk` allocates for `to` entries, less what it had
/// surely allocated for `from` (whole chunks below `from`).
fn chunked_growth(from: usize, to: usize, chunk: usize) -> u64 {
    let chunk = chunk.max(1) as u64;
    let (from, to) = (from.min(to) as u64, to as u64);
    to.div_ceil(chunk) * chunk - from / chunk * chunk
}

/// File metadata of one per-probe group (object header, link in `/probes`, attributes),
/// without its datasets. Measured (HDF5 1.8 object formats, 200 probes of 1, 2 and 6
/// components, 1 and 1000 samples): ~300 B.
const GROUP_META: u64 = 512;
/// File metadata of one component dataset (header, its chunk B-tree's first node, five
/// attributes). Measured: ~2670 B.
const COMPONENT_META: u64 = 3072;
/// File metadata of one time dataset (header, chunk B-tree node, `units`). Measured:
/// ~2460 B.
const TIME_META: u64 = 2816;
/// Chunk-index bytes per chunk of an extendable dataset (a B-tree node of 2.3 KB per 64
/// chunks).
const PER_CHUNK_INDEX: u64 = 48;
/// File metadata of one probe table group (its datasets' headers, attributes).
const TABLE_META: u64 = 16 << 10;
/// Metadata per table column: `probe` (a variable-length string: 16 B in the dataset
/// and a global-heap object, plus the name), `component`, `units`, `index`, `position`,
/// `requested_position`.
const COLUMN_META: u64 = 160;

/// An upper bound of the bytes the probes add to the file while steps `from..` of the
/// run go, in `layout`; with their metadata when `from` is 0 (a new file).
pub fn probe_bytes(model: &Model, from: usize, layout: ProbeLayout) -> u64 {
    let steps = model.grid.steps;
    let from = from.min(steps);
    let new = from == 0;
    let mut bytes: u64 = 0;
    match layout {
        ProbeLayout::Groups => {
            for p in &model.probes {
                let every = p.every.max(1);
                let (r0, r1) = (from / every, steps / every);
                let chunk = series_chunk(r1);
                let rows = chunked_growth(r0, r1, chunk);
                let chunks = rows / chunk as u64 + 1;
                let has_e = p.samples.iter().any(|s| s.component.is_electric()) as u64;
                let has_h = p.samples.iter().any(|s| !s.component.is_electric()) as u64;
                let comps = p.samples.len() as u64;
                let times = has_e + has_h;
                let data = rows * (4 * comps + 8 * times) + chunks * PER_CHUNK_INDEX * (comps + times);
                let meta = if new {
                    GROUP_META + 2 * p.name.len() as u64 + comps * COMPONENT_META + times * TIME_META
                } else {
                    0
                };
                bytes = bytes.saturating_add(data + meta);
            }
        }
        ProbeLayout::Table => {
            for t in probe_tables(model) {
                let (r0, r1) = (from / t.every, steps / t.every);
                let [cr, cc] = table_chunk(r1, t.channels);
                let rows = chunked_growth(r0, r1, cr);
                let cols = chunked_growth(0, t.channels, cc);
                let chunks = (rows / cr as u64) * (cols / cc as u64);
                let tchunk = series_chunk(r1);
                let trows = chunked_growth(r0, r1, tchunk);
                let data =
                    rows * cols * 4 + 2 * trows * 8 + (chunks + 2 * (trows / tchunk as u64 + 1)) * PER_CHUNK_INDEX;
                let meta = if new {
                    let names: u64 = t
                        .probes
                        .iter()
                        .map(|&i| {
                            let p = &model.probes[i];
                            p.samples.len() as u64 * p.name.len() as u64
                        })
                        .sum();
                    TABLE_META + t.channels as u64 * COLUMN_META + names
                } else {
                    0
                };
                bytes = bytes.saturating_add(data + meta);
            }
        }
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_chunks_are_bounded_and_no_taller_than_the_run() {
        assert_eq!(table_chunk(10, 100_000), [10, (1 << 20) / 40]);
        assert_eq!(table_chunk(10_000, 3), [64, 3]);
        assert_eq!(table_chunk(0, 0), [1, 1]);
        let [r, c] = table_chunk(1_000_000, 1_000_000);
        assert!(r * c * 4 <= PROBE_TABLE_CHUNK_BYTES && r == PROBE_TABLE_ROWS);
        assert_eq!(ProbeLayout::for_count(256, PROBE_TABLE_THRESHOLD), ProbeLayout::Groups);
        assert_eq!(ProbeLayout::for_count(257, PROBE_TABLE_THRESHOLD), ProbeLayout::Table);
        for l in [ProbeLayout::Groups, ProbeLayout::Table] {
            assert_eq!(ProbeLayout::from_name(l.name()), Some(l));
        }
    }

    /// A 10³ PEC box with `n` Ez probes, 10 steps.
    fn model(n: usize) -> Model {
        let mut text = String::from(
            "[domain]\ncell = 1e-3\ncells = [10, 10, 10]\n[time]\nsteps = 10\n[boundaries]\nall = \"pec\"\n",
        );
        for i in 0..n {
            let (x, y) = (i % 9 + 1, (i / 9) % 9 + 1);
            text.push_str(&format!(
                "[[probes]]\nname = \"p{i}\"\nposition = [{x}e-3, {y}e-3, 5e-3]\ncomponents = [\"Ez\"]\n"
            ));
        }
        let scene = crate::scene::Scene::parse(&text, "probes.toml").unwrap();
        Model::discretize(&scene).unwrap()
    }

    fn output_memory(m: &Model) -> u64 {
        let p = super::super::resources::host_plan(
            &crate::Simulation::standard(m.clone()),
            super::super::resources::StateIn::Device { in_ram: 0 },
            None,
            &[],
            64,
            false,
            0,
        );
        p.buffers
            .iter()
            .filter(|b| b.name.starts_with("output:"))
            .map(|b| b.bytes)
            .sum()
    }

    #[test]
    fn host_plan_counts_open_datasets_for_groups_and_one_chunk_for_tables() {
        // Groups: three datasets per probe (one component, time, time_h counted), 32 KB
        // measured per open dataset.
        let groups = model(PROBE_TABLE_THRESHOLD);
        assert_eq!(ProbeLayout::of(&groups), ProbeLayout::Groups);
        assert!(output_memory(&groups) >= PROBE_TABLE_THRESHOLD as u64 * 3 * (32 << 10));
        // Tables: a chunk of rows, the caches (up to a chunk each) and the column
        // metadata: kilobytes per probe.
        let tables = model(3000);
        assert_eq!(ProbeLayout::of(&tables), ProbeLayout::Table);
        let bytes = output_memory(&tables);
        let chunk = table_chunk(10, 3000);
        assert!(
            bytes >= 3000 * 10 * 4 + 3000 * 160 + 2 * (40 << 10) + (chunk[0] * chunk[1] * 4) as u64,
            "{bytes}"
        );
        assert!(bytes <= 3000 * 1024 + (2 << 20), "{bytes}");
    }

    /// A 10³ PEC box, `steps` steps, `n` Ez probes, probe `i` every `every(i)` steps.
    fn model_every(n: usize, steps: usize, every: impl Fn(usize) -> usize) -> Model {
        let mut text = format!(
            "[domain]\ncell = 1e-3\ncells = [10, 10, 10]\n[time]\nsteps = {steps}\n[boundaries]\nall = \"pec\"\n"
        );
        for i in 0..n {
            let (x, y) = (i % 9 + 1, (i / 9) % 9 + 1);
            text.push_str(&format!(
                "[[probes]]\nname = \"p{i}\"\nposition = [{x}e-3, {y}e-3, 5e-3]\ncomponents = [\"Ez\"]\nevery = {}\n",
                every(i)
            ));
        }
        let scene = crate::scene::Scene::parse(&text, "probes.toml").unwrap();
        Model::discretize(&scene).unwrap()
    }

    #[test]
    fn tables_cost_their_open_datasets_and_what_they_record() {
        use super::super::resources::{probe_cost, probe_staging, table_memory, RamCheck};
        // 1000 tables of one column (distinct `every`): two open datasets each (values,
        // time) and caches of a chunk; was 1 MiB + 10 datasets a table (1.4 GiB here).
        let distinct = model_every(1000, 1000, |i| i + 1);
        let t = table_memory(&distinct, 64);
        assert_eq!(t.tables, 1000);
        assert!(t.per_table >= 1000 * 2 * (40 << 10), "{t:?}");
        assert!(t.per_table <= 1000 * (2 * (40 << 10) + (40 << 10)), "{t:?}");
        assert!(t.contents < 1000 * 1024, "{t:?}");
        // Staging: only the samples due in a chunk (probe i: 64/(i+1)+1 at most, none
        // past the run).
        let due: u64 = (1..=1000u64).map(|e| (64 / e + 1).min(1000 / e) * 12).sum();
        assert_eq!(probe_staging(&distinct, 64), due);
        let late = model_every(300, 100, |i| 200 + i);
        assert_eq!(probe_staging(&late, 64), 0, "probes past the run record nothing");
        // One table of 1000 columns at every step: what it records drives the cost.
        let one = model_every(1000, 1000, |_| 1);
        let c = probe_cost(&one, 64);
        assert_eq!(c.tables, 1);
        assert!(c.recorded > c.per_table, "{c:?}");
        assert!(c.recorded >= 64 * 1000 * 12, "{c:?}");

        // Refusals name the probes and the fix, not coarser cells.
        let refuse = |m: &Model| {
            // The rest of the run (1 MiB) fits; the probes do not.
            let probes = probe_cost(m, 64).total();
            RamCheck {
                need: probes + (1 << 20),
                available: Some((1 << 20) + probes / 4),
            }
            .does_not_fit(m)
            .unwrap()
            .to_string()
        };
        let msg = refuse(&distinct);
        assert!(
            msg.contains("for the output of 1000 probes (1000 probe tables, one per distinct `every`")
                && msg.contains("fewer distinct `every` values")
                && !msg.contains("cells of"),
            "{msg}"
        );
        let msg = refuse(&one);
        assert!(
            msg.contains("for the output of 1000 probes (the samples of one chunk")
                && msg.contains("a larger `every`")
                && !msg.contains("cells of"),
            "{msg}"
        );
    }

    #[test]
    fn chunked_growth_counts_whole_chunks() {
        assert_eq!(chunked_growth(0, 10, 4), 12);
        assert_eq!(chunked_growth(5, 10, 4), 8);
        assert_eq!(chunked_growth(8, 10, 4), 4);
        assert_eq!(chunked_growth(10, 10, 4), 4);
        assert_eq!(chunked_growth(0, 0, 4), 0);
    }
}

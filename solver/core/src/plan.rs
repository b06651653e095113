//! Memory plan: every buffer a backend will allocate, counted before allocation.
pub use crate::fmt::human_bytes;
use crate::simulation::Simulation;
use std::fmt;

/// One named buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    pub name: String,
    pub bytes: u64,
}

/// Every buffer of a run on one backend, with their total.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    pub buffers: Vec<Buffer>,
    /// Buffers a device backend keeps in host memory (mappable staging, packed uploads):
    /// not in [`Plan::total`], which is the device's; the host plan adds them.
    pub host: Vec<Buffer>,
}

impl Plan {
    pub fn add(&mut self, name: impl Into<String>, bytes: u64) {
        self.buffers.push(Buffer {
            name: name.into(),
            bytes,
        });
    }

    /// A buffer in host memory ([`Plan::host`]).
    pub fn add_host(&mut self, name: impl Into<String>, bytes: u64) {
        self.host.push(Buffer {
            name: name.into(),
            bytes,
        });
    }

    pub fn total(&self) -> u64 {
        self.buffers.iter().map(|b| b.bytes).sum()
    }

    /// The buffers shared by both backends' layouts: fields, material indices, row
    /// flags, coefficient tables, CPML ψ arrays. `index_bytes` is the width of one
    /// material index as the backend stores it.
    pub fn common(model: &Simulation, index_bytes: u64) -> Plan {
        let g = &model.grid;
        let n = g.len() as u64;
        let mut p = Plan::default();
        p.add("fields E (Ex, Ey, Ez; f32)", 3 * 4 * n);
        p.add("fields H (Hx, Hy, Hz; f32)", 3 * 4 * n);
        p.add(
            format!("material indices (6 components; {index_bytes} B each)"),
            6 * index_bytes * n,
        );
        let rows = 6 * 4 * (model.row_count() as u64);
        p.add("uniform-row flags (6 components; u32)", rows);
        p.add(
            "coefficient tables",
            (model.coefs.e.len() * 8 + model.coefs.h.len() * 4) as u64,
        );
        let psi: u64 = model
            .cpml
            .iter()
            .map(|l| {
                let e = l.psi_dims(g, true).iter().map(|&x| x as u64).product::<u64>();
                let h = l.psi_dims(g, false).iter().map(|&x| x as u64).product::<u64>();
                2 * 4 * (e + h)
            })
            .sum();
        if psi > 0 {
            p.add(format!("CPML auxiliaries ψ ({} layers; f32)", model.cpml.len()), psi);
        }
        // Extension passes' own state arrays (sources and probes have none).
        for sp in &model.schedule.passes {
            let floats: u64 = sp.state.iter().map(|&a| model.schedule.state[a].len() as u64).sum();
            if floats > 0 {
                p.add(format!("pass {} state (f32)", sp.pass.name()), 4 * floats);
            }
        }
        p
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in &self.buffers {
            writeln!(f, "  {:<52} {:>12}", b.name, human_bytes(b.bytes))?;
        }
        write!(f, "  {:<52} {:>12}", "total", human_bytes(self.total()))
    }
}

/// `123`, `512k`, `64M`, `1.5G`, `2T` (binary multiples; an optional `B` or `iB` after
/// the letter) in bytes; `None` for anything else.
pub fn parse_bytes(s: &str) -> Option<u64> {
    let t = s.trim();
    let t = t.strip_suffix("iB").or_else(|| t.strip_suffix('B')).unwrap_or(t);
    let (num, mult) = match t.chars().last()? {
        'k' | 'K' => (&t[..t.len() - 1], 1u64 << 10),
        'm' | 'M' => (&t[..t.len() - 1], 1 << 20),
        'g' | 'G' => (&t[..t.len() - 1], 1 << 30),
        't' | 'T' => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1),
    };
    let v: f64 = num.trim().parse().ok()?;
    let bytes = v * mult as f64;
    (v.is_finite() && v >= 0.0 && bytes < u64::MAX as f64).then_some(bytes as u64)
}

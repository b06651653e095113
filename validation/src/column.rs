//! The periodic 1 × 1 column: the bench of the one-dimensional cases.
//!
//! One 1 mm cell across, periodic x and y faces and a 20-cell z CPML turn a point Ex
//! current into a plane wave at normal incidence, in a grid of a few hundred cells: the
//! Fresnel, lossy and dispersive cases and tests all run in it, with a slab of some
//! medium and probes along z.

/// A column scene; [`Column::toml`] writes it. Positions are in metres along z.
#[derive(Clone, Debug)]
pub struct Column<'a> {
    /// Cells along z (1 mm each).
    pub cells: usize,
    pub steps: usize,
    /// A slab of a medium: its `[materials]` keys (TOML lines) and its z extent.
    pub slab: Option<(&'a str, f64, f64)>,
    /// The source plane and its waveform's `type` (10 GHz centre).
    pub source: (f64, &'a str),
    /// Ex probes: name and plane.
    pub probes: &'a [(&'a str, f64)],
}

impl Column<'_> {
    /// The scene text.
    pub fn toml(&self) -> String {
        let slab = match self.slab {
            Some((keys, from, to)) => format!(
                "[materials.medium]\n{keys}\n[[objects]]\nshape = \"box\"\nmaterial = \"medium\"\n\
                 min = [0.0, 0.0, {from}]\nmax = [0.001, 0.001, {to}]\n"
            ),
            None => String::new(),
        };
        let probes: String = self
            .probes
            .iter()
            .map(|(name, z)| {
                format!("[[probes]]\nname = \"{name}\"\nposition = [0.0005, 0.0, {z}]\ncomponents = [\"Ex\"]\n")
            })
            .collect();
        let (source, waveform) = self.source;
        format!(
            r#"
[domain]
cell = 1e-3
cells = [1, 1, {cells}]
[time]
steps = {steps}
[boundaries]
x = "periodic"
y = "periodic"
z = "cpml"
[boundaries.cpml]
cells = 20
{slab}
[[sources]]
type = "current"
component = "Ex"
position = [0.0005, 0.0, {source}]
waveform = {{ type = "{waveform}", frequency = 10e9 }}
{probes}"#,
            cells = self.cells,
            steps = self.steps,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_parses_with_its_slab_and_probes() {
        let keys = "eps_r = 2\npoles = [{ type = \"debye\", delta_eps = 3, tau = 3e-11 }]";
        let c = Column {
            cells: 100,
            steps: 10,
            slab: Some((keys, 0.05, 0.1)),
            source: (0.02, "gaussian"),
            probes: &[("front", 0.03), ("inside", 0.07)],
        };
        let s = crate::scene(&c.toml());
        assert_eq!(s.probes.len(), 2);
        assert_eq!(s.objects.len(), 1);
        assert_eq!(s.sources.len(), 1);
    }
}

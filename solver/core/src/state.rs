//! The solver state as a table of named arrays.
//!
//! Everything that evolves during a run is one array of `f32` with a name: the six
//! field components, the ψ arrays of every CPML layer, and whatever array a pass of
//! the [schedule](crate::schedule) registers. The table's order and shapes come from
//! the model ([`crate::schedule::Schedule::state`]), so every backend saves and loads
//! the same table, checkpoints store it as it is (format 2), and an array added by a
//! new pass is saved, restored and carried across backends without new code.
use crate::Component;

/// One array of the state table: its name and shape (C order, z fastest).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArraySpec {
    /// Unique within a model: `Ex`..`Hz`, `cpml/x-/psi_Ey`, `<pass>/<array>`.
    pub name: String,
    pub dims: [usize; 3],
}

impl ArraySpec {
    pub fn new(name: impl Into<String>, dims: [usize; 3]) -> ArraySpec {
        ArraySpec {
            name: name.into(),
            dims,
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.dims.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One named array of values.
#[derive(Clone, Debug, PartialEq)]
pub struct StateArray {
    pub name: String,
    pub data: Vec<f32>,
}

/// Everything that evolves during a run, in a backend-independent layout: the arrays of
/// [`crate::schedule::Schedule::state`], in that order, each in C order. The first six
/// are always the field components `Ex, Ey, Ez, Hx, Hy, Hz` (shape `grid.dims()`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolverState {
    pub arrays: Vec<StateArray>,
}

/// Why a state does not fit a model.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the state does not match the model: {0}")]
pub struct StateMismatch(pub String);

impl SolverState {
    /// The zero state of a state table (every array, zero-filled): pass
    /// `&simulation.schedule.state`.
    pub fn zeros(table: &[ArraySpec]) -> SolverState {
        SolverState {
            arrays: table
                .iter()
                .map(|s| StateArray {
                    name: s.name.clone(),
                    data: vec![0.0; s.len()],
                })
                .collect(),
        }
    }

    /// The array called `name`.
    pub fn get(&self, name: &str) -> Option<&[f32]> {
        self.arrays.iter().find(|a| a.name == name).map(|a| &a.data[..])
    }

    /// The array called `name`, writable.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Vec<f32>> {
        self.arrays.iter_mut().find(|a| a.name == name).map(|a| &mut a.data)
    }

    /// Field component `c` (always present: the first six arrays).
    pub fn field(&self, c: Component) -> &[f32] {
        &self.arrays[c.index()].data
    }

    /// Field component `c`, writable.
    pub fn field_mut(&mut self, c: Component) -> &mut Vec<f32> {
        &mut self.arrays[c.index()].data
    }

    /// Check that the state has exactly the arrays of `want` (a schedule's state
    /// table): names, order and sizes.
    pub fn check(&self, want: &[ArraySpec]) -> Result<(), StateMismatch> {
        if self.arrays.len() != want.len() {
            return Err(StateMismatch(format!(
                "{} arrays, the model has {}",
                self.arrays.len(),
                want.len()
            )));
        }
        for (a, s) in self.arrays.iter().zip(want) {
            if a.name != s.name {
                return Err(StateMismatch(format!(
                    "array `{}` where the model has `{}`",
                    a.name, s.name
                )));
            }
            if a.data.len() != s.len() {
                return Err(StateMismatch(format!(
                    "array `{}` has {} values, the model {}",
                    a.name,
                    a.data.len(),
                    s.len()
                )));
            }
        }
        Ok(())
    }
}

//! The passes every model gets from its scene: the thin-wire correction, point sources,
//! lumped elements, dispersive media, probes, monitors and port samplers. Each lives in
//! its own file with its CPU code, and its WGSL kernel in `shaders/passes/`.
pub mod dft;
pub mod dispersive;
pub mod lumped;
pub mod probes;
pub mod sources;
pub mod tfsf;
pub mod thin_wire;

use crate::model::Model;
use crate::pass::Pass;
use std::sync::Arc;

/// The scene's passes, in the order they run within each hook: magnetic sources
/// (after H), electric sources (after E), probes (end of step). A pass with nothing
/// to do is left out.
pub fn standard(model: &Model) -> Vec<Arc<dyn Pass>> {
    let mut out: Vec<Arc<dyn Pass>> = Vec::new();
    // First at AfterH: the thin-wire correction completes the H update (before the
    // magnetic sources add to it).
    if let Some(w) = thin_wire::ThinWire::new(model) {
        out.push(Arc::new(w));
    }
    for electric in [false, true] {
        if let Some(s) = sources::Sources::new(model, electric) {
            out.push(Arc::new(s));
        }
    }
    // After the electric sources (ports' Norton currents): E −= cb·J_L on final E.
    if let Some(l) = lumped::Inductors::new(model) {
        out.push(Arc::new(l));
    }
    // Plane waves: corrections after H and after E (vacuum samples only, so before or
    // after the dispersive update alike), and their incident lines.
    for i in 0..model.plane_waves.len() {
        out.push(Arc::new(tfsf::PlaneWavePass::new(model, i)));
    }
    // Last at AfterE: the poles' state update must see the final E¹ (sources included).
    if let Some(d) = dispersive::Dispersive::new(model) {
        out.push(Arc::new(d));
    }
    if let Some(p) = probes::Probes::new(model) {
        out.push(Arc::new(p));
    }
    // Frequency-domain monitors: one DFT pass each, after the probes (end of step).
    for m in &model.monitors {
        out.push(Arc::new(dft::Dft::new(model, m)));
    }
    if let Some(p) = lumped::port_sampler(model) {
        out.push(Arc::new(p));
    }
    out
}

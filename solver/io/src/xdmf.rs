//! The XDMF 3 companion of an output file, so ParaView (and VisIt) open the snapshots.
//!
//! Each snapshot becomes a temporal collection; each of its frames a spatial collection
//! with one `3DCoRectMesh` grid per component (components sit at different staggered
//! positions and may have different shapes), whose point data is a hyperslab (one
//! frame) of `/snapshots/<name>/<component>` in the `.h5` file beside it.
//!
//! Axis order: XDMF lists dimensions slowest first and ParaView draws the fastest one
//! as its X. The arrays are C order with x slowest and z fastest, so ParaView's X axis
//! is the scene's z and its Z axis the scene's x (origins and spacings are listed in
//! the same slowest-first order, so positions stay consistent). Frame times are the
//! E components' times; H components are half a step earlier (`h_time_offset`).
use fdtd_core::Component as Comp;
use std::fmt::Write as _;
use std::io;
use std::path::Path;

/// One component of a snapshot as stored in the `.h5` file.
pub struct Component {
    pub component: Comp,
    /// Frame shape `[a, b, c]` (x, y, z).
    pub shape: [usize; 3],
    /// Position of the frame's first sample (m).
    pub origin: [f64; 3],
    /// Frames in the dataset.
    pub frames: usize,
}

/// One snapshot: its name, frame times and components.
pub struct Snapshot<'a> {
    pub name: &'a str,
    pub times: &'a [f64],
    pub components: Vec<Component>,
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The XDMF text for `snapshots` stored in `h5_name` (a file name relative to the XDMF file).
pub fn document(h5_name: &str, spacing: [f64; 3], snapshots: &[Snapshot]) -> String {
    let mut x = String::new();
    let h5 = esc(h5_name);
    x.push_str("<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n");
    x.push_str(
        "<!-- Written by fdtd. Arrays are x-slowest, z-fastest: ParaView shows the scene's z as X and x as Z. -->\n",
    );
    x.push_str("<Xdmf Version=\"3.0\" xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n <Domain>\n");
    let [dx, dy, dz] = spacing;
    for s in snapshots {
        let name = esc(s.name);
        let frames = s
            .components
            .iter()
            .map(|c| c.frames)
            .min()
            .unwrap_or(0)
            .min(s.times.len());
        let _ = writeln!(
            x,
            "  <Grid Name=\"{name}\" GridType=\"Collection\" CollectionType=\"Temporal\">"
        );
        for (f, t) in s.times.iter().take(frames).enumerate() {
            let _ = writeln!(
                x,
                "   <Grid Name=\"{name}_{f}\" GridType=\"Collection\" CollectionType=\"Spatial\">"
            );
            let _ = writeln!(x, "    <Time Value=\"{t:e}\"/>");
            for c in &s.components {
                let [a, b, cc] = c.shape;
                let [ox, oy, oz] = c.origin;
                let comp = c.component.name();
                let _ = write!(
                    x,
                    "    <Grid Name=\"{name}_{comp}_{f}\" GridType=\"Uniform\">\n\
                     \x20     <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"{a} {b} {cc}\"/>\n\
                     \x20     <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n\
                     \x20       <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">{ox:e} {oy:e} {oz:e}</DataItem>\n\
                     \x20       <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">{dx:e} {dy:e} {dz:e}</DataItem>\n\
                     \x20     </Geometry>\n\
                     \x20     <Attribute Name=\"{comp}\" AttributeType=\"Scalar\" Center=\"Node\">\n\
                     \x20       <DataItem ItemType=\"HyperSlab\" Dimensions=\"{a} {b} {cc}\" Type=\"HyperSlab\">\n\
                     \x20         <DataItem Dimensions=\"3 4\" NumberType=\"UInt\" Format=\"XML\">{f} 0 0 0 1 1 1 1 1 {a} {b} {cc}</DataItem>\n\
                     \x20         <DataItem Dimensions=\"{frames_all} {a} {b} {cc}\" NumberType=\"Float\" Precision=\"4\" Format=\"HDF\">{h5}:/snapshots/{name}/{comp}</DataItem>\n\
                     \x20       </DataItem>\n\
                     \x20     </Attribute>\n\
                     \x20   </Grid>\n",
                    frames_all = c.frames,
                );
            }
            x.push_str("   </Grid>\n");
        }
        x.push_str("  </Grid>\n");
    }
    x.push_str(" </Domain>\n</Xdmf>\n");
    x
}

/// Write `text` to `path` whole, never through a link planted at its name
/// ([`fdtd_core::atomic_file`]).
pub fn write_atomic(path: &Path, text: &str) -> io::Result<()> {
    fdtd_core::atomic_file::write(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_planted_link_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, "keep me").unwrap();
        let x = dir.path().join("run.xdmf");
        // Links at the old temporary name and at the name itself.
        std::os::unix::fs::symlink(&victim, dir.path().join("run.xdmf.tmp")).unwrap();
        std::os::unix::fs::symlink(&victim, &x).unwrap();
        write_atomic(&x, "<Xdmf/>").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
        assert!(std::fs::symlink_metadata(&x).unwrap().file_type().is_file());
        assert_eq!(std::fs::read_to_string(&x).unwrap(), "<Xdmf/>");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".tmp") && n != "run.xdmf.tmp")
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn document_points_into_the_h5_file() {
        let times = [1e-12, 2e-12];
        let snaps = [Snapshot {
            name: "mid",
            times: &times,
            components: vec![Component {
                component: Comp::Ez,
                shape: [3, 4, 1],
                origin: [0.0, 0.0, 0.5e-3],
                frames: 2,
            }],
        }];
        let doc = document("run.h5", [1e-3; 3], &snaps);
        assert!(doc.contains("CollectionType=\"Temporal\""));
        assert!(doc.contains("Dimensions=\"3 4 1\""));
        assert!(doc.contains("run.h5:/snapshots/mid/Ez"));
        assert!(doc.contains("<Time Value=\"2e-12\"/>"));
        assert!(doc.contains(">1 0 0 0 1 1 1 1 1 3 4 1<"));
        assert_eq!(doc.matches("GridType=\"Uniform\"").count(), 2);
    }
}

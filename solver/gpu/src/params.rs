//! What the host writes for the kernels: parameter blocks (uniforms) and the step
//! record (pass kernels take plain u32 tables, `shaders/passes/abi.wgsl`). Each type is the `#[repr(C)]` twin of the WGSL
//! struct of the same name and field names in `shaders/prelude.wgsl`; the shader tests
//! (`kernels/tests.rs`) check that their sizes and field offsets are those naga lays
//! out for the WGSL structs.
//!
//! Uniform layout rules apply to the parameter blocks: arrays and vectors of 4 are
//! 16-byte aligned, which the explicit `_pad` fields keep (Pod: no implicit padding).
use bytemuck::{Pod, Zeroable};

/// A CPML layer as seen by one piece (`Grid::lay`, index 2·axis + high; `len` 0: no
/// layer there).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Layer {
    /// First profiled index along the layer's axis, number of profiled samples.
    pub first: u32,
    pub len: u32,
    /// ψ arrays of this layer on this piece: first global x plane they hold, and their
    /// strides along x and y.
    pub x0: u32,
    pub psx: u32,
    pub psy: u32,
    /// Offset of this layer's arrays in the piece's two ψ buffers (floats).
    pub base: u32,
    /// Offset of the profile (b, a, 1/κ − 1) in the phase's coefficient table.
    pub prof: u32,
    pub _pad: u32,
}

/// Parameters of update_h / update_e on one piece.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Grid {
    pub nx: u32,
    pub ny: u32,
    pub nz: u32,
    /// First owned x plane of the piece, and how many it owns.
    pub i0: u32,
    pub planes: u32,
    /// Local strides along x and y.
    pub sx: u32,
    pub sy: u32,
    pub _pad0: u32,
    pub inv_dx: f32,
    pub inv_dy: f32,
    pub inv_dz: f32,
    pub _pad1: f32,
    /// update_e only: box of Ex, Ey, Ez samples the CPML corrects, `[component][axis]`
    /// (exclusive ends; the 4th word unused).
    pub lo: [[u32; 4]; 3],
    pub hi: [[u32; 4]; 3],
    /// The schedule's CPML corrections of this phase, `[component within the phase][layer
    /// axis]`: the ψ buffer (0: `psi0`, 1: `psi1`; `CpmlPass::slot % 2`) and the sign
    /// (`CpmlPass::sign`). See [`cpml_table`](crate::build::cpml_table).
    pub cpml_slot: [[u32; 4]; 3],
    pub cpml_sign: [[f32; 4]; 3],
    pub lay: [Layer; 6],
}

/// One face job of update_e_faces (one face plane of one E component on one piece).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct FaceJob {
    /// nx, ny, nz, unused.
    pub n: [u32; 4],
    /// Face kinds (`FaceKind::code`) of x−, x+, y−, y+ and z−, z+ (then unused).
    pub faces0: [u32; 4],
    pub faces1: [u32; 4],
    /// 1/dx, 1/dy, 1/dz, unused.
    pub inv_d: [f32; 4],
    /// E component, the plane's normal axis and the other tangential axis.
    pub a: u32,
    pub t: u32,
    pub u: u32,
    pub plane: u32,
    /// Samples: p[a] in `ra0 .. ra0 + wa`, p[u] from `ru0`; `count` of them.
    pub ra0: u32,
    pub wa: u32,
    pub ru0: u32,
    pub count: u32,
    /// Piece: first owned x plane, local strides; threads per dispatch row.
    pub i0: u32,
    pub sx: u32,
    pub sy: u32,
    pub stride: u32,
}

/// Periodic copies along y (`axis` 1) or z (2) on one piece (periodic_yz).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Periodic {
    pub axis: u32,
    pub ny: u32,
    pub nz: u32,
    pub sx: u32,
    pub sy: u32,
    pub count: u32,
    /// Threads per dispatch row.
    pub stride: u32,
    pub _pad: u32,
}

/// One copy (copy_between, copy_within) or gather.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct CopyJob {
    pub src_off: u32,
    pub dst_off: u32,
    pub count: u32,
    /// Threads per dispatch row.
    pub stride: u32,
    /// gather only: the box's (y, z) widths and the piece's local strides.
    pub wy: u32,
    pub wz: u32,
    pub sx: u32,
    pub sy: u32,
}

/// The step record of one step of a submission, read by extension passes (group 1 of
/// the point-pass ABI, `shaders/passes/abi.wgsl`, at a dynamic offset per step).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Step {
    /// Step within the submission, global step, first step of the submission, number
    /// of model sources (row length of the source values).
    pub s: u32,
    pub n: u32,
    pub n0: u32,
    pub ns: u32,
}

/// A parameter block of a linear kernel: it carries the threads per dispatch row,
/// known once the dispatch is shaped (`build::linear`).
pub trait Linear: Pod {
    fn set_stride(&mut self, stride: u32);
}

impl Linear for FaceJob {
    fn set_stride(&mut self, stride: u32) {
        self.stride = stride;
    }
}

impl Linear for Periodic {
    fn set_stride(&mut self, stride: u32) {
        self.stride = stride;
    }
}

impl Linear for CopyJob {
    fn set_stride(&mut self, stride: u32) {
        self.stride = stride;
    }
}

// Prelude of every kernel: kernels.rs prepends this file to each shader when it loads
// it (WGSL has no includes), so what is declared here is visible in every kernel file.
//
// It holds what the kernels share: the parameter blocks the host writes (each struct
// here has a `#[repr(C)]` twin of the same name and field names in
// solver/gpu/src/params.rs, checked by the shader tests in solver/gpu/src/kernels/
// against naga's layout) and the material-index helpers.

// Row flag of a row whose samples do not all have one material (see `half`).
const MIXED: u32 = 0xffffffffu;

// Material index of local sample l from its word of packed u16 indices.
fn half(word: u32, l: u32) -> u32 {
    return (word >> ((l & 1u) * 16u)) & 0xffffu;
}

// ---- update_h.wgsl, update_e.wgsl ------------------------------------------------

// A CPML layer as seen by one piece. Index 2*axis + high; len = 0: no layer there.
struct Layer {
    // First profiled index along the layer's axis, number of profiled samples.
    first: u32,
    len: u32,
    // psi arrays of this layer on this piece: first global x plane they hold, and
    // their strides along x and y (z is contiguous), as in the CPU layout.
    x0: u32,
    psx: u32,
    psy: u32,
    // Offset of this layer's arrays in psi0 and psi1 (floats; the same in both).
    base: u32,
    // Offset of the profile (b[len], a[len], (1/kappa - 1)[len]) in `tab`.
    prof: u32,
    _pad: u32,
}

// Parameters of the bulk kernels on one piece (one block per piece and phase).
struct Grid {
    nx: u32,
    ny: u32,
    nz: u32,
    // Global x index of the piece's first owned plane, and how many planes it owns.
    i0: u32,
    planes: u32,
    // Strides of the local flat index along x and y (z is contiguous).
    sx: u32,
    sy: u32,
    _pad0: u32,
    inv_dx: f32,
    inv_dy: f32,
    inv_dz: f32,
    _pad1: f32,
    // E kernel only: box of samples of Ex, Ey, Ez the CPML corrects (exclusive ends;
    // .w unused).
    lo: array<vec4<u32>, 3>,
    hi: array<vec4<u32>, 3>,
    // The schedule's CPML corrections of this phase (CpmlPass): for component c (0..2
    // within the phase) and layer axis a, cpml_slot[c][a] is the psi buffer (0: psi0 =
    // slot 0 / 2, 1: psi1 = slot 1 / 3) and cpml_sign[c][a] the sign (.w and a == c
    // unused).
    cpml_slot: array<vec4<u32>, 3>,
    cpml_sign: array<vec4<f32>, 3>,
    lay: array<Layer, 6>,
}

// ---- boundary.wgsl -----------------------------------------------------------------

// One face job of update_e_faces: one face plane of one E component on one piece.
struct FaceJob {
    // nx, ny, nz (.w unused).
    n: vec4<u32>,
    // Face kinds (FaceKind::code) of x-, x+, y-, y+ and z-, z+ (faces1.zw unused).
    faces0: vec4<u32>,
    faces1: vec4<u32>,
    // 1/dx, 1/dy, 1/dz (.w unused).
    inv_d: vec4<f32>,
    // E component a, the plane's normal axis t and the other tangential axis u.
    a: u32,
    t: u32,
    u: u32,
    plane: u32,
    // Samples: p[a] in [ra0, ra0 + wa), p[u] from ru0; count of them.
    ra0: u32,
    wa: u32,
    ru0: u32,
    count: u32,
    // Piece: first owned x plane; local strides; threads per dispatch row.
    i0: u32,
    sx: u32,
    sy: u32,
    stride: u32,
}

// Periodic copies along y or z on one piece (periodic_yz).
struct Periodic {
    // 1 = y, 2 = z.
    axis: u32,
    ny: u32,
    nz: u32,
    sx: u32,
    sy: u32,
    count: u32,
    // Threads per dispatch row.
    stride: u32,
    _pad: u32,
}

// ---- copy.wgsl ---------------------------------------------------------------------

// One copy or gather.
struct CopyJob {
    src_off: u32,
    dst_off: u32,
    count: u32,
    // Threads per dispatch row (gid.y stride).
    stride: u32,
    // gather only: the box's (y, z) widths and the piece's local strides.
    wy: u32,
    wz: u32,
    sx: u32,
    sy: u32,
}

// ---- extension passes (passes/abi.wgsl) --------------------------------------------

// The step record (one per step of a submission, read at a dynamic offset).
struct Step {
    // Step within this submission, global step n, first step of the submission,
    // number of model sources (row length of `values`).
    s: u32,
    n: u32,
    n0: u32,
    ns: u32,
}

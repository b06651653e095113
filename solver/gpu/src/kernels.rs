//! The WGSL kernels (`shaders/*.wgsl`, compiled into the binary), their bind group
//! layouts and pipelines.
//!
//! WGSL has no includes: each shader module is assembled from files ([`MODULES`]):
//! `prelude.wgsl` (the parameter structs, twins of [`crate::params`], and shared
//! helpers), for the bulk kernels `cpml.wgsl` (their CPML helpers), then the kernels'
//! own file. An extension pass's module is [`PASS_PREFIX`] (the prelude and
//! `passes/abi.wgsl`, the point-pass bindings) and the pass's own file. The tests in `kernels/tests.rs` check every module with naga: parsing and
//! validation (errors as `file:line:col` of the file they are in), the bindings each
//! entry point uses against the tables of [`Kernel::bindings`], the parameter structs
//! against [`crate::params`], and translation through naga's SPIR-V, MSL, HLSL and GLSL
//! back-ends.
use crate::layout::MAX_STEPS;
use fdtd_core::backend::BackendError;
use fdtd_core::pass::{DevicePass, Entry, Scope};
use std::borrow::Cow;

/// Every WGSL file, by name, as compiled into the binary.
pub const SHADERS: &[(&str, &str)] = &[
    ("prelude.wgsl", include_str!("../../../shaders/prelude.wgsl")),
    ("cpml.wgsl", include_str!("../../../shaders/cpml.wgsl")),
    ("update_h.wgsl", include_str!("../../../shaders/update_h.wgsl")),
    ("update_e.wgsl", include_str!("../../../shaders/update_e.wgsl")),
    ("boundary.wgsl", include_str!("../../../shaders/boundary.wgsl")),
    ("copy.wgsl", include_str!("../../../shaders/copy.wgsl")),
    ("passes/abi.wgsl", include_str!("../../../shaders/passes/abi.wgsl")),
];

/// The shader modules, each the concatenation of these files in this order; a module
/// is named after its last file, the one with its entry points.
pub const MODULES: &[&[&str]] = &[
    &["prelude.wgsl", "cpml.wgsl", "update_h.wgsl"],
    &["prelude.wgsl", "cpml.wgsl", "update_e.wgsl"],
    &["prelude.wgsl", "boundary.wgsl"],
    &["prelude.wgsl", "copy.wgsl"],
];

/// The files before an extension pass's own WGSL file in its module.
pub const PASS_PREFIX: &[&str] = &["prelude.wgsl", "passes/abi.wgsl"];

/// One shader module's WGSL: its files concatenated, each starting on a new line.
pub struct ModuleSource {
    pub text: String,
    /// Each file and the byte offset in `text` where it starts, in order.
    pub parts: Vec<(&'static str, usize)>,
}

/// Assemble the module made of `files`, `read` giving the text of each.
pub fn assemble<'a>(files: &[&'static str], read: impl Fn(&'static str) -> Cow<'a, str>) -> ModuleSource {
    let mut text = String::new();
    let mut parts = Vec::with_capacity(files.len());
    for &f in files {
        parts.push((f, text.len()));
        text.push_str(&read(f));
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    ModuleSource { text, parts }
}

/// The compiled-in text of shader file `name`.
fn compiled(name: &str) -> &'static str {
    SHADERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .expect("file listed in SHADERS")
}

/// One compute entry point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    UpdateH,
    UpdateE,
    Faces,
    PeriodicYz,
    CopyBetween,
    CopyWithin,
    Gather,
}

/// How a kernel uses a buffer binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// `var<uniform>`.
    Uniform,
    /// `var<storage, read>`.
    Ro,
    /// `var<storage, read_write>`.
    Rw,
}

use Ty::{Ro, Rw, Uniform};

/// One buffer binding of a kernel: bind group, binding number, the WGSL variable's
/// name (build.rs binds buffers by it) and its use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    pub group: u32,
    pub binding: u32,
    pub name: &'static str,
    pub ty: Ty,
}

/// A binding of group 0 (a bind group per dispatch).
const fn b(binding: u32, name: &'static str, ty: Ty) -> Binding {
    Binding {
        group: 0,
        binding,
        name,
        ty,
    }
}

/// The step record (`Step`): group 1 of the kernels that read it, one uniform buffer
/// bound at a dynamic offset per step (see [`Kernels::step_layout`]).
const STEP: Binding = Binding {
    group: 1,
    binding: 0,
    name: "step",
    ty: Uniform,
};

// The binding tables, one per kernel: every binding its entry point uses, as the
// shader declares it (checked against the WGSL by the tests).

const UPDATE_H: &[Binding] = &[
    b(0, "g", Uniform),
    b(1, "ex", Ro),
    b(2, "ey", Ro),
    b(3, "ez", Ro),
    b(4, "hx", Rw),
    b(5, "hy", Rw),
    b(6, "hz", Rw),
    b(7, "mat_hx", Ro),
    b(8, "mat_hy", Ro),
    b(9, "mat_hz", Ro),
    b(10, "rows", Ro),
    b(11, "tab", Ro),
    b(12, "psi0", Rw),
    b(13, "psi1", Rw),
];

const UPDATE_E: &[Binding] = &[
    b(0, "g", Uniform),
    b(1, "ex", Rw),
    b(2, "ey", Rw),
    b(3, "ez", Rw),
    b(4, "hx", Ro),
    b(5, "hy", Ro),
    b(6, "hz", Ro),
    b(7, "mat_ex", Ro),
    b(8, "mat_ey", Ro),
    b(9, "mat_ez", Ro),
    b(10, "rows", Ro),
    b(11, "tab", Ro),
    b(12, "psi0", Rw),
    b(13, "psi1", Rw),
];

const FACES: &[Binding] = &[
    b(0, "job", Uniform),
    b(1, "ex", Rw),
    b(2, "ey", Rw),
    b(3, "ez", Rw),
    b(4, "hx", Ro),
    b(5, "hy", Ro),
    b(6, "hz", Ro),
    b(7, "mat_ex", Ro),
    b(8, "mat_ey", Ro),
    b(9, "mat_ez", Ro),
    b(10, "coef", Ro),
];

const PERIODIC_YZ: &[Binding] = &[b(1, "ex", Rw), b(2, "ey", Rw), b(3, "ez", Rw), b(11, "per", Uniform)];

/// copy_between and gather.
const COPY_BETWEEN: &[Binding] = &[b(0, "cp", Uniform), b(1, "src", Ro), b(2, "dst", Rw)];

const COPY_WITHIN: &[Binding] = &[b(0, "cp", Uniform), b(3, "buf", Rw)];

/// Group 0 of the point-pass ABI (`fdtd_core::pass`, `shaders/passes/abi.wgsl`) and the
/// step record: the bind group layout of every extension pass. A pass's entry point uses
/// a subset of it.
pub const POINT_PASS: &[Binding] = &[
    STEP,
    b(0, "ex", Rw),
    b(1, "ey", Rw),
    b(2, "ez", Rw),
    b(3, "hx", Rw),
    b(4, "hy", Rw),
    b(5, "hz", Rw),
    b(6, "records", Ro),
    b(7, "values", Ro),
    b(8, "out", Rw),
    b(9, "state", Rw),
    b(10, "params", Ro),
];

impl Kernel {
    pub const ALL: [Kernel; 7] = [
        Kernel::UpdateH,
        Kernel::UpdateE,
        Kernel::Faces,
        Kernel::PeriodicYz,
        Kernel::CopyBetween,
        Kernel::CopyWithin,
        Kernel::Gather,
    ];

    /// The file with its entry point (and the name of its module in [`MODULES`]).
    pub fn shader(self) -> &'static str {
        match self {
            Kernel::UpdateH => "update_h.wgsl",
            Kernel::UpdateE => "update_e.wgsl",
            Kernel::Faces | Kernel::PeriodicYz => "boundary.wgsl",
            Kernel::CopyBetween | Kernel::CopyWithin | Kernel::Gather => "copy.wgsl",
        }
    }

    pub fn entry(self) -> &'static str {
        match self {
            Kernel::UpdateH => "update_h",
            Kernel::UpdateE => "update_e",
            Kernel::Faces => "update_e_faces",
            Kernel::PeriodicYz => "periodic_yz",
            Kernel::CopyBetween => "copy_between",
            Kernel::CopyWithin => "copy_within",
            Kernel::Gather => "gather",
        }
    }

    /// Every binding the entry point uses.
    pub fn bindings(self) -> &'static [Binding] {
        match self {
            Kernel::UpdateH => UPDATE_H,
            Kernel::UpdateE => UPDATE_E,
            Kernel::Faces => FACES,
            Kernel::PeriodicYz => PERIODIC_YZ,
            Kernel::CopyBetween | Kernel::Gather => COPY_BETWEEN,
            Kernel::CopyWithin => COPY_WITHIN,
        }
    }

    /// The group 0 binding number of the WGSL variable `name`.
    pub fn binding(self, name: &str) -> u32 {
        match self.bindings().iter().find(|b| b.group == 0 && b.name == name) {
            Some(b) => b.binding,
            None => panic!("{} has no group 0 binding named {name:?}", self.entry()),
        }
    }

    /// Values of the shader's `override` constants.
    pub fn constants(self, shapes: Shapes) -> Vec<(&'static str, f64)> {
        match self {
            Kernel::UpdateH | Kernel::UpdateE => {
                vec![("WG_X", shapes.bulk[0] as f64), ("WG_Y", shapes.bulk[1] as f64)]
            }
            Kernel::CopyBetween | Kernel::CopyWithin | Kernel::Gather => vec![("WG", 256.0)],
            _ => vec![("WG", shapes.linear as f64)],
        }
    }
}

/// Workgroup shapes (WGSL `override` constants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shapes {
    /// Bulk H/E kernels: threads along z (contiguous) and along y.
    pub bulk: [u32; 2],
    /// Linear kernels (faces, periodic copies, probes).
    pub linear: u32,
}

impl Default for Shapes {
    /// 128×1 along z: on the H200 this shape ran 2.5× faster than 8×4×4 (memory lines
    /// read whole; see docs/performance.md).
    fn default() -> Self {
        Shapes {
            bulk: [128, 1],
            linear: 64,
        }
    }
}

/// Environment variable choosing the bulk workgroup shape, `XxY` (e.g. `256x1`, `32x8`).
pub const WORKGROUP_ENV: &str = "FDTD_GPU_WORKGROUP";

impl Shapes {
    /// Default shape, or the one from [`WORKGROUP_ENV`].
    pub fn from_env(max_invocations: u32) -> Result<Shapes, BackendError> {
        match std::env::var(WORKGROUP_ENV) {
            Ok(v) => {
                Shapes::parse(&v, max_invocations).map_err(|e| BackendError::Gpu(format!("{WORKGROUP_ENV}={v:?}: {e}")))
            }
            Err(_) => Ok(Shapes::default()),
        }
    }

    /// `XxY` (e.g. `128x1`, `32x8`) as the bulk shape, the rest default.
    pub fn parse(v: &str, max_invocations: u32) -> Result<Shapes, String> {
        let mut s = Shapes::default();
        {
            let parsed = v
                .split(['x', 'X'])
                .map(|p| p.trim().parse::<u32>().ok())
                .collect::<Option<Vec<u32>>>();
            match parsed.as_deref() {
                Some(&[x]) | Some(&[x, 1]) | Some(&[x, 1, 1]) if x >= 1 => s.bulk = [x, 1],
                Some(&[x, y]) | Some(&[x, y, 1]) if x >= 1 && y >= 1 => s.bulk = [x, y],
                _ => return Err("expected a shape like 128x1 or 32x8".into()),
            }
            if s.bulk[0] * s.bulk[1] > max_invocations {
                return Err(format!(
                    "{} invocations per workgroup, the device allows {max_invocations}",
                    s.bulk[0] * s.bulk[1]
                ));
            }
        }
        Ok(s)
    }
}

/// Environment variable: `1` compiles the kernels without wgpu's runtime bounds checks
/// on storage-buffer indices (a benchmarking aid; the default keeps them).
pub const UNCHECKED_ENV: &str = "FDTD_GPU_UNCHECKED";

/// Environment variable naming a directory of WGSL files that replace the compiled-in
/// copies of the same name (kernel experiments without a rebuild; the bindings must
/// stay those of [`Kernel`]). Files missing there keep the compiled-in text. The prelude
/// can be replaced too; line numbers in wgpu's errors count the assembled module
/// ([`MODULES`]).
pub const SHADER_DIR_ENV: &str = "FDTD_GPU_SHADERS";

/// A [`SHADER_DIR_ENV`] that names no directory is an error, not a silent fall-back to
/// the compiled-in kernels: whoever set it expects their kernels to run.
pub fn check_shader_dir() -> Result<(), BackendError> {
    match std::env::var_os(SHADER_DIR_ENV) {
        Some(dir) if !std::path::Path::new(&dir).is_dir() => Err(BackendError::Gpu(format!(
            "{SHADER_DIR_ENV}={}: not a directory (it names a directory of WGSL files that replace the built-in \
             kernels); unset it to run the built-in kernels",
            std::path::Path::new(&dir).display()
        ))),
        _ => Ok(()),
    }
}

/// The WGSL text of shader `name`: from [`SHADER_DIR_ENV`] if set and present there.
fn shader_source(name: &str, compiled: &'static str) -> Cow<'static, str> {
    if let Some(dir) = std::env::var_os(SHADER_DIR_ENV) {
        if let Ok(text) = std::fs::read_to_string(std::path::Path::new(&dir).join(name)) {
            return text.into();
        }
    }
    compiled.into()
}

/// The pipelines and their bind group layouts, indexed like [`Kernel::ALL`].
pub struct Kernels {
    pub pipelines: Vec<wgpu::ComputePipeline>,
    pub layouts: Vec<wgpu::BindGroupLayout>,
    /// Group 1 of the extension passes: the step record, one uniform at a dynamic offset.
    pub step_layout: wgpu::BindGroupLayout,
    unchecked: bool,
}

/// The compiled kernels of one extension pass (point-pass ABI): one pipeline per
/// [`Entry`] of the pass, all on one bind group layout, so one bind group per piece
/// (one state buffer) serves every entry.
pub struct PassKernel {
    pub pipelines: Vec<wgpu::ComputePipeline>,
    pub layout: wgpu::BindGroupLayout,
    /// Threads per workgroup, per entry (1 for a serial pass or a once-per-step entry).
    pub wgs: Vec<u32>,
}

/// The override constants of an extension pass with `wg` threads per workgroup.
pub fn pass_constants(wg: u32) -> Vec<(&'static str, f64)> {
    vec![("WG", wg as f64), ("SLOTS", MAX_STEPS as f64)]
}

/// The bind group layout entries of the group 0 bindings of `bindings`.
fn layout_entries(bindings: &[Binding]) -> Vec<wgpu::BindGroupLayoutEntry> {
    bindings
        .iter()
        .filter(|b| b.group == 0)
        .map(|&Binding { binding, ty, .. }| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: match ty {
                    Uniform => wgpu::BufferBindingType::Uniform,
                    Ro => wgpu::BufferBindingType::Storage { read_only: true },
                    Rw => wgpu::BufferBindingType::Storage { read_only: false },
                },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        })
        .collect()
}

impl Kernels {
    /// Compile every kernel; `unchecked` drops wgpu's runtime bounds checks.
    pub fn new(device: &wgpu::Device, shapes: Shapes, unchecked: bool) -> Kernels {
        let modules: Vec<(&str, wgpu::ShaderModule)> = MODULES
            .iter()
            .map(|files| {
                let name = files[files.len() - 1];
                let src = assemble(files, |f| shader_source(f, compiled(f)));
                // "prelude.wgsl + … + update_e.wgsl": wgpu's messages name the module.
                let label = src.parts.iter().map(|p| p.0).collect::<Vec<_>>().join(" + ");
                let desc = wgpu::ShaderModuleDescriptor {
                    label: Some(&label),
                    source: wgpu::ShaderSource::Wgsl(src.text.into()),
                };
                let module = if unchecked {
                    // SAFETY: every index the kernels compute stays inside its binding
                    // (layout.rs sizes each buffer for the ranges build.rs dispatches; the
                    // parity tests run with the checks on and compare every sample).
                    unsafe { device.create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked()) }
                } else {
                    device.create_shader_module(desc)
                };
                (name, module)
            })
            .collect();
        let step_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("step record"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: STEP.binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: true,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let mut pipelines = Vec::new();
        let mut layouts = Vec::new();
        for k in Kernel::ALL {
            let bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(k.entry()),
                entries: &layout_entries(k.bindings()),
            });
            let groups: Vec<Option<&wgpu::BindGroupLayout>> = vec![Some(&bgl)];
            let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(k.entry()),
                bind_group_layouts: &groups,
                immediate_size: 0,
            });
            let module = &modules.iter().find(|(n, _)| *n == k.shader()).expect("shader listed").1;
            let constants = k.constants(shapes);
            let p = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(k.entry()),
                layout: Some(&pl),
                module,
                entry_point: Some(k.entry()),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &constants,
                    zero_initialize_workgroup_memory: false,
                },
                cache: None,
            });
            pipelines.push(p);
            layouts.push(bgl);
        }
        Kernels {
            pipelines,
            layouts,
            step_layout,
            unchecked,
        }
    }

    /// Compile the kernel of an extension pass: its WGSL file after [`PASS_PREFIX`],
    /// with the point-pass layout ([`POINT_PASS`]) and the overrides `WG` (threads per
    /// workgroup; 1 for a serial pass) and `SLOTS` ([`MAX_STEPS`]).
    pub fn pass_kernel(&self, device: &wgpu::Device, dp: &DevicePass, entries: &[Entry], shapes: Shapes) -> PassKernel {
        let files: Vec<&'static str> = PASS_PREFIX.iter().copied().chain([dp.file]).collect();
        let src = assemble(&files, |f| {
            if f == dp.file {
                shader_source(f, dp.wgsl)
            } else {
                shader_source(f, compiled(f))
            }
        });
        let label = files.join(" + ");
        let desc = wgpu::ShaderModuleDescriptor {
            label: Some(&label),
            source: wgpu::ShaderSource::Wgsl(src.text.into()),
        };
        let module = if self.unchecked {
            // SAFETY: as for the built-in kernels: the backend splits the records by
            // piece and sizes every buffer the ABI binds (build.rs).
            unsafe { device.create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked()) }
        } else {
            device.create_shader_module(desc)
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(dp.entry),
            entries: &layout_entries(POINT_PASS),
        });
        let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(dp.entry),
            bind_group_layouts: &[Some(&layout), Some(&self.step_layout)],
            immediate_size: 0,
        });
        let (mut pipelines, mut wgs) = (Vec::new(), Vec::new());
        for e in entries {
            let entry = if e.entry.is_empty() { dp.entry } else { e.entry };
            let wg = if dp.serial || e.scope == Scope::Once {
                1
            } else {
                shapes.linear
            };
            let constants = pass_constants(wg);
            pipelines.push(device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&pl),
                module: &module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &constants,
                    zero_initialize_workgroup_memory: false,
                },
                cache: None,
            }));
            wgs.push(wg);
        }
        PassKernel { pipelines, layout, wgs }
    }

    pub fn pipeline(&self, k: Kernel) -> &wgpu::ComputePipeline {
        &self.pipelines[k as usize]
    }

    pub fn layout(&self, k: Kernel) -> &wgpu::BindGroupLayout {
        &self.layouts[k as usize]
    }

    /// Workgroups per linear kernel kind.
    pub fn linear_wg(k: Kernel, shapes: Shapes) -> u32 {
        match k {
            Kernel::CopyBetween | Kernel::CopyWithin | Kernel::Gather => 256,
            _ => shapes.linear,
        }
    }
}

#[cfg(test)]
mod tests;

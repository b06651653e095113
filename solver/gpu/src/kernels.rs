//! The WGSL kernels (`shaders/*.wgsl`, compiled into the binary), their bind group
//! layouts and pipelines.
use crate::layout::MAX_STEPS;
use fdtd_core::backend::BackendError;
use fdtd_core::pass::DevicePass;

/// Every shader file, by name, as compiled into the binary.
pub const SHADERS: &[(&str, &str)] = &[
    ("update_h.wgsl", include_str!("../../../shaders/update_h.wgsl")),
    ("update_e.wgsl", include_str!("../../../shaders/update_e.wgsl")),
    ("boundary.wgsl", include_str!("../../../shaders/boundary.wgsl")),
    ("copy.wgsl", include_str!("../../../shaders/copy.wgsl")),
];

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

/// How a binding is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Uniform,
    Ro,
    Rw,
}

use Ty::{Ro, Rw, Uniform};

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

    fn shader(self) -> &'static str {
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

    /// Group 0 bindings, in the shader's numbering.
    fn bindings(self) -> &'static [(u32, Ty)] {
        match self {
            Kernel::UpdateH => &[
                (0, Uniform),
                (1, Ro),
                (2, Ro),
                (3, Ro),
                (4, Rw),
                (5, Rw),
                (6, Rw),
                (7, Ro),
                (8, Ro),
                (9, Ro),
                (10, Ro),
                (11, Ro),
                (12, Rw),
                (13, Rw),
            ],
            Kernel::UpdateE => &[
                (0, Uniform),
                (1, Rw),
                (2, Rw),
                (3, Rw),
                (4, Ro),
                (5, Ro),
                (6, Ro),
                (7, Ro),
                (8, Ro),
                (9, Ro),
                (10, Ro),
                (11, Ro),
                (12, Rw),
                (13, Rw),
            ],
            Kernel::Faces => &[
                (0, Uniform),
                (1, Rw),
                (2, Rw),
                (3, Rw),
                (4, Ro),
                (5, Ro),
                (6, Ro),
                (7, Ro),
                (8, Ro),
                (9, Ro),
                (10, Ro),
            ],
            Kernel::PeriodicYz => &[(1, Rw), (2, Rw), (3, Rw), (11, Uniform)],
            Kernel::CopyBetween | Kernel::Gather => &[(0, Uniform), (1, Ro), (2, Rw)],
            Kernel::CopyWithin => &[(0, Uniform), (3, Rw)],
        }
    }
}

/// Group 0 of the point-pass ABI (`fdtd_core::pass`): the six fields, the records, the
/// source values, the output streams and the pass's state; group 1 is the step record.
const POINT_PASS: [(u32, Ty); 10] = [
    (0, Rw),
    (1, Rw),
    (2, Rw),
    (3, Rw),
    (4, Rw),
    (5, Rw),
    (6, Ro),
    (7, Ro),
    (8, Rw),
    (9, Rw),
];

fn layout_entries(bindings: &[(u32, Ty)]) -> Vec<wgpu::BindGroupLayoutEntry> {
    bindings
        .iter()
        .map(|&(binding, ty)| wgpu::BindGroupLayoutEntry {
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

/// The compiled kernel of one extension pass (point-pass ABI).
pub struct PassKernel {
    pub pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
    /// Threads per workgroup (1 for a serial pass).
    pub wg: u32,
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
/// stay those of [`Kernel`]). Files missing there keep the compiled-in text.
pub const SHADER_DIR_ENV: &str = "FDTD_GPU_SHADERS";

/// The WGSL text of shader `name`: from [`SHADER_DIR_ENV`] if set and present there.
fn shader_source(name: &str, compiled: &'static str) -> std::borrow::Cow<'static, str> {
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
    /// Group 1 of the step-reading kernels: one uniform with a dynamic offset.
    pub step_layout: wgpu::BindGroupLayout,
    unchecked: bool,
}

impl Kernels {
    /// Compile every kernel; `unchecked` drops wgpu's runtime bounds checks.
    pub fn new(device: &wgpu::Device, shapes: Shapes, unchecked: bool) -> Kernels {
        let modules: Vec<(&str, wgpu::ShaderModule)> = SHADERS
            .iter()
            .map(|(name, src)| {
                let desc = wgpu::ShaderModuleDescriptor {
                    label: Some(name),
                    source: wgpu::ShaderSource::Wgsl(shader_source(name, src)),
                };
                let module = if unchecked {
                    // SAFETY: every index the kernels compute stays inside its binding
                    // (layout.rs sizes each buffer for the ranges build.rs dispatches; the
                    // parity tests run with the checks on and compare every sample).
                    unsafe { device.create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked()) }
                } else {
                    device.create_shader_module(desc)
                };
                (*name, module)
            })
            .collect();
        let step_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("step record"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
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
            let constants: Vec<(&str, f64)> = match k {
                Kernel::UpdateH | Kernel::UpdateE => {
                    vec![("WG_X", shapes.bulk[0] as f64), ("WG_Y", shapes.bulk[1] as f64)]
                }
                Kernel::CopyBetween | Kernel::CopyWithin | Kernel::Gather => vec![("WG", 256.0)],
                _ => vec![("WG", shapes.linear as f64)],
            };
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

    /// Compile the kernel of an extension pass (its WGSL with the point-pass ABI).
    /// `outputs`: whether it writes output streams (then it declares `override SLOTS`).
    /// A non-serial kernel declares `override WG` (threads per workgroup).
    pub fn pass_kernel(&self, device: &wgpu::Device, dp: &DevicePass, outputs: bool, shapes: Shapes) -> PassKernel {
        let desc = wgpu::ShaderModuleDescriptor {
            label: Some(dp.file),
            source: wgpu::ShaderSource::Wgsl(shader_source(dp.file, dp.wgsl)),
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
            entries: &layout_entries(&POINT_PASS),
        });
        let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(dp.entry),
            bind_group_layouts: &[Some(&layout), Some(&self.step_layout)],
            immediate_size: 0,
        });
        let wg = if dp.serial { 1 } else { shapes.linear };
        let mut constants: Vec<(&str, f64)> = Vec::new();
        if !dp.serial {
            constants.push(("WG", wg as f64));
        }
        if outputs {
            constants.push(("SLOTS", MAX_STEPS as f64));
        }
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(dp.entry),
            layout: Some(&pl),
            module: &module,
            entry_point: Some(dp.entry),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &constants,
                zero_initialize_workgroup_memory: false,
            },
            cache: None,
        });
        PassKernel { pipeline, layout, wg }
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
mod tests {
    use super::SHADERS;

    /// Parse and validate every WGSL file with naga, so a broken shader fails here with
    /// `file:line:col` before any GPU is touched. Also checks that every file in
    /// `shaders/` is compiled into the binary.
    #[test]
    fn gpu_shaders_parse_and_validate() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shaders");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .expect("shaders/ directory")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".wgsl"))
            .collect();
        on_disk.sort();
        let mut listed: Vec<String> = SHADERS.iter().map(|(n, _)| n.to_string()).collect();
        listed.sort();
        assert_eq!(on_disk, listed, "shaders/ and kernels::SHADERS disagree");
        let mut failures = Vec::new();
        for name in &on_disk {
            let path = dir.join(name);
            let src = std::fs::read_to_string(&path).unwrap();
            let shown = format!("shaders/{name}");
            match naga::front::wgsl::parse_str(&src) {
                Err(e) => failures.push(e.emit_to_string_with_path(&src, &shown)),
                Ok(module) => {
                    let mut v = naga::valid::Validator::new(
                        naga::valid::ValidationFlags::all(),
                        naga::valid::Capabilities::default(),
                    );
                    if let Err(e) = v.validate(&module) {
                        failures.push(e.emit_to_string_with_path(&src, &shown));
                    }
                }
            }
        }
        assert!(failures.is_empty(), "invalid WGSL:\n{}", failures.join("\n"));
    }
}

//! What the GPU's memory allows, measured with minimal WGSL kernels on the same
//! array sizes as an `n³` run of the GPU backend (rows padded like the backend's):
//!
//! * `copy`: `b[i] = a[i]`, 8 bytes per element: the copy bandwidth;
//! * `stream`: 6 arrays read and 3 written at the same index, 36 bytes per element:
//!   the traffic of one bulk kernel without its neighbours;
//! * `yee_h`: the plain H update (uniform coefficient, no row flags, no CPML, every
//!   sample of the padded box) with the bulk kernel's thread mapping (k, j, i), 128×1.
//!
//! ```text
//! cargo run --release --example gpu_roofline -- [--size 512] [--reps 20]
//! ```
//!
//! Prints GB/s (bytes the kernel must move / time) and, for the kernels shaped like a
//! bulk update, the Gcells/s the pair H + E would reach at that speed.
use std::time::Instant;

const SRC: &str = r#"
struct P { n: u32, stride: u32, nz1: u32, ny1: u32, planes: u32, sx: u32, sy: u32, _p: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> a0: array<f32>;
@group(0) @binding(2) var<storage, read_write> a1: array<f32>;
@group(0) @binding(3) var<storage, read_write> a2: array<f32>;
@group(0) @binding(4) var<storage, read_write> b0: array<f32>;
@group(0) @binding(5) var<storage, read_write> b1: array<f32>;
@group(0) @binding(6) var<storage, read_write> b2: array<f32>;

@compute @workgroup_size(256, 1, 1)
fn copy(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * p.stride;
    if (i >= p.n) { return; }
    b0[i] = a0[i];
}

@compute @workgroup_size(256, 1, 1)
fn stream(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * p.stride;
    if (i >= p.n) { return; }
    let c = 0.5;
    b0[i] = b0[i] - c * (a1[i] - a2[i]);
    b1[i] = b1[i] - c * (a2[i] - a0[i]);
    b2[i] = b2[i] - c * (a0[i] - a1[i]);
}

@compute @workgroup_size(128, 1, 1)
fn yee_h(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    let j = gid.y;
    let li = gid.z;
    if (k >= p.nz1 || j >= p.ny1 || li >= p.planes) { return; }
    let l = (li + 1u) * p.sx + j * p.sy + k;
    let c = 0.5;
    let ex0 = a0[l]; let ey0 = a1[l]; let ez0 = a2[l];
    b0[l] = b0[l] - c * ((a2[l + p.sy] - ez0) - (a1[l + 1u] - ey0));
    b1[l] = b1[l] - c * ((a0[l + 1u] - ex0) - (a2[l + p.sx] - ez0));
    b2[l] = b2[l] - c * ((a1[l + p.sx] - ey0) - (a0[l + p.sy] - ex0));
}
"#;

fn main() {
    let mut n = 512usize;
    let mut reps = 20u32;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().expect("missing value");
        match a.as_str() {
            "--size" => n = val().parse().unwrap(),
            "--reps" => reps = val().parse().unwrap(),
            _ => panic!("unknown argument {a}"),
        }
    }
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN;
    let instance = wgpu::Instance::new(desc);
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    }))
    .expect("a Vulkan adapter");
    println!("adapter: {}", adapter.get_info().name);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: None,
        required_features: wgpu::Features::empty(),
        required_limits: adapter.limits(),
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::MemoryUsage,
        trace: wgpu::Trace::Off,
    }))
    .expect("device");
    // The backend's geometry: rows of nz+1 samples padded to 32, planes + 2 ghosts.
    let sy = (n + 1).next_multiple_of(32);
    let sx = (n + 1) * sy;
    let planes = n + 1;
    let len = (planes + 2) * sx;
    let bufs: Vec<wgpu::Buffer> = (0..6)
        .map(|_| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: 4 * len as u64,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            })
        })
        .collect();
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(SRC.into()),
    });
    let max_dim = device.limits().max_compute_workgroups_per_dimension as usize;
    // (entry, elements, bytes per element, groups)
    let lin = |wg: usize| {
        let groups = len.div_ceil(wg);
        let x = groups.min(max_dim);
        ([x as u32, groups.div_ceil(x) as u32, 1], (x * wg) as u32)
    };
    let (g256, stride) = lin(256);
    let cells = (n * n * n) as f64;
    let jobs: [(&str, f64, [u32; 3]); 3] = [
        ("copy", 8.0 * len as f64, g256),
        ("stream", 36.0 * len as f64, g256),
        (
            "yee_h",
            36.0 * (planes * (n + 1) * (n + 1)) as f64,
            [(n + 1).div_ceil(128) as u32, (n + 1) as u32, planes as u32],
        ),
    ];
    let words: [u32; 8] = [
        len as u32,
        stride,
        (n + 1) as u32,
        (n + 1) as u32,
        planes as u32,
        sx as u32,
        sy as u32,
        0,
    ];
    let ub = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 256,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(&ub, 0, bytemuck::cast_slice(&words));
    let mut entries = vec![wgpu::BindGroupEntry {
        binding: 0,
        resource: ub.as_entire_binding(),
    }];
    for (i, b) in bufs.iter().enumerate() {
        entries.push(wgpu::BindGroupEntry {
            binding: i as u32 + 1,
            resource: b.as_entire_binding(),
        });
    }
    let ty = |b: u32| wgpu::BindGroupLayoutEntry {
        binding: b,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: if b == 0 {
                wgpu::BufferBindingType::Uniform
            } else {
                wgpu::BufferBindingType::Storage { read_only: false }
            },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    };
    let bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &(0..7).map(ty).collect::<Vec<_>>(),
    });
    let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: &[Some(&bgl)],
        immediate_size: 0,
    });
    let bg = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &bgl,
        entries: &entries,
    });
    println!(
        "{n}^3 geometry: {len} floats per array ({:.2} GiB)",
        4.0 * len as f64 / (1u64 << 30) as f64
    );
    for (entry, bytes, groups) in jobs {
        let pipe = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: Some(&pl),
            module: &module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        });
        let run = |count: u32| {
            let mut enc = device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_compute_pass(&Default::default());
                pass.set_pipeline(&pipe);
                pass.set_bind_group(0, &bg, &[]);
                for _ in 0..count {
                    pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
                }
            }
            queue.submit([enc.finish()]);
            device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
        };
        run(2);
        let t = Instant::now();
        run(reps);
        let s = t.elapsed().as_secs_f64() / reps as f64;
        let pair = if entry == "copy" {
            String::new()
        } else {
            format!("   H+E pair at this speed: {:.1} Gcells/s", cells / (2.0 * s) / 1e9)
        };
        println!("{entry:<7} {:>8.1} us  {:>7.0} GB/s{pair}", s * 1e6, bytes / s / 1e9);
    }
}

//! The kernels checked with naga before any GPU is touched: every module (prelude
//! prepended) parses and validates, with errors reported at `file:line:col` of the file
//! they are in; the bindings each entry point uses are those of the Rust tables
//! ([`Kernel::bindings`]); the parameter structs of [`crate::params`] have the sizes and
//! field offsets naga lays out for their WGSL twins; and every entry point translates
//! through the SPIR-V (Vulkan), MSL (Metal), HLSL (DX12) and GLSL (GL) back-ends.
//! Extension-pass kernels (every file in `shaders/passes/` but `abi.wgsl`) are held to
//! the point-pass ABI ([`POINT_PASS`]) and translated the same way.
use super::{
    assemble, compiled, pass_constants, Binding, Kernel, ModuleSource, Shapes, Ty, MODULES, PASS_PREFIX, POINT_PASS,
    SHADERS,
};
use crate::params;
use naga::valid::{Capabilities, GlobalUse, ModuleInfo, ValidationFlags, Validator};
use naga::{AddressSpace, Module, ShaderStage, Span, StorageAccess, TypeInner};

/// `shaders/file:line:col` (1-based) of byte `offset` of the assembled module.
fn locate(src: &ModuleSource, offset: usize) -> String {
    let (file, start) = src
        .parts
        .iter()
        .rev()
        .find(|p| p.1 <= offset)
        .copied()
        .expect("offset in the module");
    let before = &src.text[start..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(start, |i| start + i + 1);
    let col = src.text[line_start..offset].chars().count() + 1;
    format!("shaders/{file}:{line}:{col}")
}

/// A naga diagnostic with every span given in the file it falls in, and its line.
fn report(src: &ModuleSource, message: &str, labels: &[(Span, String)], notes: &[String]) -> String {
    let mut out = format!("error: {message}\n");
    for (span, label) in labels {
        let Some(r) = span.to_range() else {
            continue;
        };
        let line_start = src.text[..r.start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = src.text[r.start..].find('\n').map_or(src.text.len(), |i| r.start + i);
        out += &format!(
            "  --> {}: {label}\n   | {}\n",
            locate(src, r.start),
            &src.text[line_start..line_end]
        );
    }
    for n in notes {
        out += &format!("   = note: {n}\n");
    }
    out
}

/// Parse and validate one assembled module; errors as [`report`]s.
fn compile(src: &ModuleSource) -> Result<(Module, ModuleInfo), String> {
    let module = naga::front::wgsl::parse_str(&src.text).map_err(|e| {
        let labels: Vec<(Span, String)> = e.labels().map(|(s, l)| (s, l.to_string())).collect();
        let notes: Vec<String> = e.notes().map(str::to_string).collect();
        report(src, e.message(), &labels, &notes)
    })?;
    let info = Validator::new(ValidationFlags::all(), Capabilities::default())
        .validate(&module)
        .map_err(|e| {
            let labels: Vec<(Span, String)> = e.spans().cloned().collect();
            let mut notes = Vec::new();
            let mut cause: &dyn std::error::Error = e.as_inner();
            while let Some(next) = cause.source() {
                notes.push(next.to_string());
                cause = next;
            }
            report(src, &e.as_inner().to_string(), &labels, &notes)
        })?;
    Ok((module, info))
}

/// Every module as compiled into the binary, parsed and validated.
fn modules() -> Vec<(&'static str, Module, ModuleInfo)> {
    let mut failures = Vec::new();
    let mut out = Vec::new();
    for files in MODULES {
        let src = assemble(files, |f| compiled(f).into());
        match compile(&src) {
            Ok((m, i)) => out.push((files[files.len() - 1], m, i)),
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "invalid WGSL:\n{}", failures.join("\n"));
    out
}

/// `shaders/` in the source tree.
fn shader_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shaders")
}

/// Every extension-pass kernel file (`passes/<name>.wgsl` but the ABI), read from disk
/// and assembled after [`PASS_PREFIX`], parsed and validated.
fn pass_modules() -> Vec<(&'static str, Module, ModuleInfo)> {
    let mut files: Vec<String> = std::fs::read_dir(shader_dir().join("passes"))
        .expect("shaders/passes/ directory")
        .filter_map(|e| e.ok())
        .map(|e| format!("passes/{}", e.file_name().to_string_lossy()))
        .filter(|n| n.ends_with(".wgsl") && !PASS_PREFIX.contains(&n.as_str()))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    let mut out = Vec::new();
    for f in files {
        let f: &'static str = Box::leak(f.into_boxed_str());
        let text = std::fs::read_to_string(shader_dir().join(f)).unwrap();
        let parts: Vec<&'static str> = PASS_PREFIX.iter().copied().chain([f]).collect();
        let src = assemble(&parts, |p| {
            if p == f {
                text.clone().into()
            } else {
                compiled(p).into()
            }
        });
        match compile(&src) {
            Ok((m, i)) => out.push((f, m, i)),
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "invalid WGSL:\n{}", failures.join("\n"));
    out
}

/// The bindings entry point `ep` of `module` uses, as declared: sorted (group, binding).
fn used_bindings(module: &Module, info: &ModuleInfo, ep: usize, failures: &mut Vec<String>) -> Vec<Declared> {
    let uses = info.get_entry_point(ep);
    let mut declared: Vec<Declared> = Vec::new();
    for (h, var) in module.global_variables.iter() {
        let Some(rb) = &var.binding else {
            continue;
        };
        if uses[h].is_empty() {
            continue;
        }
        let name = var.name.clone().unwrap_or_default();
        let ty = match var.space {
            AddressSpace::Uniform => Ty::Uniform,
            AddressSpace::Storage { access } if access.contains(StorageAccess::STORE) => Ty::Rw,
            AddressSpace::Storage { .. } => Ty::Ro,
            s => {
                failures.push(format!("{}: {name}: address space {s:?}", module.entry_points[ep].name));
                continue;
            }
        };
        declared.push((rb.group, rb.binding, name, ty));
    }
    declared.sort_by_key(|a| (a.0, a.1));
    declared
}

/// Every WGSL file in `shaders/` is compiled into the binary and part of a module, and
/// every module parses and validates (errors as `shaders/file:line:col`).
#[test]
fn gpu_shaders_parse_and_validate() {
    let mut on_disk: Vec<String> = std::fs::read_dir(shader_dir())
        .expect("shaders/ directory")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".wgsl"))
        .chain(["passes/abi.wgsl".to_string()])
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = SHADERS.iter().map(|(n, _)| n.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "shaders/ and kernels::SHADERS disagree");
    for (name, _) in SHADERS {
        assert!(
            MODULES.iter().any(|m| m.contains(name)) || PASS_PREFIX.contains(name),
            "shaders/{name} is part of no module (kernels::MODULES)"
        );
    }
    assert_eq!(PASS_PREFIX[0], "prelude.wgsl");
    for files in MODULES {
        assert_eq!(
            files[0], "prelude.wgsl",
            "{files:?}: every module starts with the prelude"
        );
    }
    // The prelude stands on its own (it is parsed alone for the struct layouts).
    compile(&assemble(&["prelude.wgsl"], |f| compiled(f).into())).unwrap_or_else(|e| panic!("{e}"));
    modules();
    assert!(!pass_modules().is_empty(), "no pass kernels found in shaders/passes/");
}

/// Errors in an assembled module are reported in the file and line they are in.
#[test]
fn gpu_shader_errors_name_their_file() {
    let broken = "// line 1\n\nfn f() -> u32 {\n    return undefined_name;\n}\n";
    let src = assemble(&["prelude.wgsl", "broken.wgsl"], |f| match f {
        "broken.wgsl" => broken.into(),
        f => compiled(f).into(),
    });
    let e = compile(&src).expect_err("an undefined name is an error");
    assert!(e.contains("shaders/broken.wgsl:4:12"), "{e}");
    assert!(e.contains("return undefined_name;"), "{e}");
    // A type error found by the validator rather than the parser.
    let broken = "\n@group(0) @binding(0) var<uniform> g: Grid;\nfn f() -> f32 {\n    return g.nx;\n}\n";
    let src = assemble(&["prelude.wgsl", "broken.wgsl"], |f| match f {
        "broken.wgsl" => broken.into(),
        f => compiled(f).into(),
    });
    let e = compile(&src).expect_err("returning u32 as f32 is an error");
    assert!(e.contains("shaders/broken.wgsl:4:"), "{e}");
    assert!(!e.contains("prelude.wgsl:"), "{e}");
    // Offsets in the prelude map to the prelude, the others to the file after it.
    assert_eq!(locate(&src, 0), "shaders/prelude.wgsl:1:1");
    let last = format!("shaders/prelude.wgsl:{}:", compiled("prelude.wgsl").lines().count());
    assert!(locate(&src, src.parts[1].1 - 1).starts_with(&last));
    assert_eq!(locate(&src, src.parts[1].1), "shaders/broken.wgsl:1:1");
    assert_eq!(locate(&src, src.parts[1].1 + 1), "shaders/broken.wgsl:2:1");
}

/// A binding as the shader declares it: (group, binding, name, use).
type Declared = (u32, u32, String, Ty);

/// For every kernel, the bindings its entry point uses (naga's analysis of the module
/// with the prelude) are exactly those of its Rust table, with the same use (uniform,
/// read-only or read-write storage); read-write ones are written. Every bound variable
/// is used by a listed kernel, and every entry point is a listed kernel.
#[test]
fn gpu_bindings_match_shaders() {
    let modules = modules();
    let mut failures = Vec::new();
    for k in Kernel::ALL {
        let mut table: Vec<Declared> = k
            .bindings()
            .iter()
            .map(|b| (b.group, b.binding, b.name.to_string(), b.ty))
            .collect();
        table.sort_by_key(|a| (a.0, a.1));
        for w in table.windows(2) {
            assert!(
                (w[0].0, w[0].1) != (w[1].0, w[1].1),
                "{k:?}: binding listed twice: {w:?}"
            );
        }
        for b in k.bindings() {
            assert!(
                b.group == 0 || *b == super::STEP,
                "{k:?}: {b:?}: group 1 holds only the step record"
            );
            assert_eq!(
                k.bindings().iter().filter(|c| c.name == b.name).count(),
                1,
                "{k:?}: {b:?}"
            );
        }
        let (_, module, info) = modules
            .iter()
            .find(|m| m.0 == k.shader())
            .expect("module of the kernel");
        let Some(ep) = module.entry_points.iter().position(|e| e.name == k.entry()) else {
            failures.push(format!("{k:?}: no entry point {} in {}", k.entry(), k.shader()));
            continue;
        };
        assert_eq!(module.entry_points[ep].stage, ShaderStage::Compute);
        let uses = info.get_entry_point(ep);
        let declared = used_bindings(module, info, ep, &mut failures);
        for (h, var) in module.global_variables.iter() {
            if matches!(var.space, AddressSpace::Storage { access } if access.contains(StorageAccess::STORE))
                && var.binding.is_some()
                && !uses[h].is_empty()
                && !uses[h].contains(GlobalUse::WRITE)
            {
                failures.push(format!(
                    "{k:?}: {:?} is read_write but {} never writes it",
                    var.name,
                    k.entry()
                ));
            }
        }
        if declared != table {
            failures.push(format!(
                "{k:?} ({} in {}): the shader uses\n    {declared:?}\n  the Rust table (kernels.rs) says\n    {table:?}",
                k.entry(),
                k.shader()
            ));
        }
    }
    for (name, module, info) in &modules {
        for ep in &module.entry_points {
            if !Kernel::ALL.iter().any(|k| k.shader() == *name && k.entry() == ep.name) {
                failures.push(format!("{name}: entry point {} is no Kernel", ep.name));
            }
        }
        for (h, var) in module.global_variables.iter() {
            if var.binding.is_some() && (0..module.entry_points.len()).all(|i| info.get_entry_point(i)[h].is_empty()) {
                failures.push(format!("{name}: {:?} is bound but used by no entry point", var.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every entry point of every extension-pass kernel uses only bindings of the point-pass
/// ABI ([`POINT_PASS`]), as the ABI declares them; and the passes a model schedules
/// (sources, probes, monitors, ports, inductors, a plane wave, dispersive media) name kernel files and entry points that exist, with the text
/// in `shaders/passes/`.
#[test]
fn gpu_pass_kernels_use_the_point_pass_abi() {
    let abi: Vec<Declared> = POINT_PASS
        .iter()
        .map(|b| (b.group, b.binding, b.name.to_string(), b.ty))
        .collect();
    let modules = pass_modules();
    let mut failures = Vec::new();
    for (file, module, info) in &modules {
        if module.entry_points.is_empty() {
            failures.push(format!("{file}: no entry point"));
        }
        for (ep, e) in module.entry_points.iter().enumerate() {
            if e.stage != ShaderStage::Compute {
                failures.push(format!("{file}: {} is no compute entry point", e.name));
            }
            for d in used_bindings(module, info, ep, &mut failures) {
                if !abi.contains(&d) {
                    failures.push(format!(
                        "{file}: {} uses {d:?}, which is not in the point-pass ABI",
                        e.name
                    ));
                }
            }
        }
    }
    let scene = "[domain]\ncell = 1e-3\ncells = [8, 8, 8]\n[time]\nsteps = 4\n[boundaries]\nall = \"pec\"\n\
                 [[sources]]\nname = \"s\"\ntype = \"current\"\ncomponent = \"Ez\"\nposition = [0.004, 0.004, 0.004]\n\
                 [sources.waveform]\ntype = \"gaussian_derivative\"\nfrequency = 1e9\namplitude = 1e-3\n\
                 [[probes]]\nname = \"rx\"\nposition = [0.004, 0.004, 0.004]\ncomponents = [\"Ez\"]\n\
                 [[monitors]]\nname = \"m\"\ntype = \"dft\"\nfrequencies = [1e9]\n\
                 plane = { axis = \"z\", position = 0.004 }\n\
                 [[ports]]\nname = \"p\"\nstart = [0.002, 0.002, 0.002]\nend = [0.002, 0.002, 0.003]\n\
                 [ports.waveform]\ntype = \"ricker\"\nfrequency = 1e9\n\
                 [[lumped]]\nname = \"l\"\nstart = [0.006, 0.006, 0.002]\nend = [0.006, 0.006, 0.003]\nl = 1e-9\n\
                 [materials.d]\npoles = [{ type = \"lorentz\", delta_eps = 1, frequency = 1e9, damping = 1e8 }]\n\
                 [[objects]]\nshape = \"box\"\nmaterial = \"d\"\nmin = [0.0, 0.0, 0.005]\nmax = [0.008, 0.008, 0.008]\n\
                 [[objects]]\nshape = \"wire\"\nmaterial = \"pec\"\nradius = 1e-4\npoints = [[0.004, 0.002, 0.001], [0.004, 0.002, 0.004]]\n\
                 [[sources]]\nname = \"pw\"\ntype = \"plane_wave\"\ntheta = 30\nphi = 20\n\
                 box = { min = [0.003, 0.003, 0.002], max = [0.005, 0.005, 0.004] }\n\
                 waveform = { type = \"ricker\", frequency = 1e9 }\n";
    let scene = fdtd_core::scene::Scene::parse(scene, "test.toml").expect("test scene");
    let model = fdtd_core::Simulation::standard(fdtd_core::model::Model::discretize(&scene).expect("test model"));
    assert!(
        model.schedule.passes.len() >= 7,
        "the thin wire, sources, probes, the monitor, the port sampler, inductors, the plane wave and the dispersive media are passes"
    );
    for sp in &model.schedule.passes {
        let dp = sp.pass.device();
        let Some((_, module, _)) = modules.iter().find(|m| m.0 == dp.file) else {
            failures.push(format!("pass {}: no kernel file shaders/{}", sp.pass.name(), dp.file));
            continue;
        };
        if !module.entry_points.iter().any(|e| e.name == dp.entry) {
            failures.push(format!(
                "pass {}: no entry point {} in {}",
                sp.pass.name(),
                dp.entry,
                dp.file
            ));
        }
        let on_disk = std::fs::read_to_string(shader_dir().join(dp.file)).unwrap();
        assert_eq!(
            dp.wgsl,
            on_disk,
            "pass {}: compiled-in text of {}",
            sp.pass.name(),
            dp.file
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A Rust parameter type: name, size and (field, offset) in declaration order.
struct Twin {
    name: &'static str,
    size: usize,
    fields: Vec<(&'static str, usize)>,
}

/// The [`Twin`] of `params::$t`; the fields must be listed in full (the pattern does
/// not compile otherwise).
macro_rules! twin {
    ($t:ident { $($f:ident),* $(,)? }) => {{
        let params::$t { $($f: _),* } = params::$t::default();
        Twin {
            name: stringify!($t),
            size: std::mem::size_of::<params::$t>(),
            fields: vec![$((stringify!($f), std::mem::offset_of!(params::$t, $f))),*],
        }
    }};
}

fn twins() -> Vec<Twin> {
    vec![
        twin!(Layer {
            first,
            len,
            x0,
            psx,
            psy,
            base,
            prof,
            _pad
        }),
        twin!(Grid {
            nx,
            ny,
            nz,
            i0,
            planes,
            sx,
            sy,
            _pad0,
            inv_dx,
            inv_dy,
            inv_dz,
            _pad1,
            lo,
            hi,
            cpml_slot,
            cpml_sign,
            lay
        }),
        twin!(FaceJob {
            n,
            faces0,
            faces1,
            inv_d,
            a,
            t,
            u,
            plane,
            ra0,
            wa,
            ru0,
            count,
            i0,
            sx,
            sy,
            stride
        }),
        twin!(Periodic {
            axis,
            ny,
            nz,
            sx,
            sy,
            count,
            stride,
            _pad
        }),
        twin!(CopyJob {
            src_off,
            dst_off,
            count,
            stride,
            wy,
            wz,
            sx,
            sy
        }),
        twin!(Step { s, n, n0, ns }),
    ]
}

/// Each Rust parameter type has the size and field offsets naga's layouter gives the
/// WGSL struct of the same name, and every struct a kernel binds has a Rust twin.
#[test]
fn gpu_param_structs_match_wgsl() {
    let src = assemble(&["prelude.wgsl"], |f| compiled(f).into());
    let (module, _) = compile(&src).unwrap_or_else(|e| panic!("{e}"));
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).expect("layout of the prelude");
    let mut failures = Vec::new();
    let twins = twins();
    for t in &twins {
        let Some((h, ty)) = module.types.iter().find(|(_, ty)| ty.name.as_deref() == Some(t.name)) else {
            failures.push(format!("params::{} has no struct {} in prelude.wgsl", t.name, t.name));
            continue;
        };
        let TypeInner::Struct { members, span } = &ty.inner else {
            failures.push(format!("{} is no struct in prelude.wgsl", t.name));
            continue;
        };
        assert_eq!(layouter[h].size, *span);
        if t.size != *span as usize {
            failures.push(format!(
                "params::{}: {} bytes, WGSL {}: {span} bytes",
                t.name, t.size, t.name
            ));
        }
        let wgsl: Vec<(&str, usize)> = members
            .iter()
            .map(|m| (m.name.as_deref().unwrap_or(""), m.offset as usize))
            .collect();
        if wgsl != t.fields {
            failures.push(format!(
                "params::{}: fields (name, offset)\n    {:?}\n  WGSL {}:\n    {wgsl:?}",
                t.name, t.fields, t.name
            ));
        }
    }
    // Every struct behind a binding of a kernel is one of the twins.
    for (name, module, _) in modules().into_iter().chain(pass_modules()) {
        for (_, var) in module.global_variables.iter() {
            if var.binding.is_none() {
                continue;
            }
            let mut ty = &module.types[var.ty];
            if let TypeInner::Array { base, .. } = ty.inner {
                ty = &module.types[base];
            }
            if let TypeInner::Struct { .. } = ty.inner {
                let s = ty.name.as_deref().unwrap_or("");
                if !twins.iter().any(|t| t.name == s) {
                    failures.push(format!(
                        "{name}: {:?} is a {s}, which has no twin in params.rs",
                        var.name
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Translate every entry point (overrides set as `Kernels::new` sets them) through
/// naga's SPIR-V, MSL, HLSL and GLSL back-ends, with and without bounds checks, so a
/// construct one platform's back-end rejects fails here. Bindings map as wgpu maps
/// them: MSL buffer slots and HLSL registers from the Rust tables, with no fake ones.
#[test]
fn gpu_shaders_translate() {
    let mut failures = Vec::new();
    for (_, module, info) in &modules() {
        for k in Kernel::ALL
            .iter()
            .filter(|k| module.entry_points.iter().any(|e| e.name == k.entry()))
        {
            let kernel = format!("{k:?} ({} in {})", k.entry(), k.shader());
            let constants = k.constants(Shapes::default());
            translate(
                &kernel,
                module,
                info,
                k.entry(),
                k.bindings(),
                &constants,
                &mut failures,
            );
        }
    }
    for (file, module, info) in &pass_modules() {
        for e in &module.entry_points {
            let kernel = format!("pass kernel {} in {file}", e.name);
            for wg in [1, Shapes::default().linear] {
                translate(
                    &kernel,
                    module,
                    info,
                    &e.name,
                    POINT_PASS,
                    &pass_constants(wg),
                    &mut failures,
                );
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Translate entry point `entry` of `module` with `constants` through the four
/// back-ends, `bindings` being its bind group layouts; failures pushed as `kernel, …`.
fn translate(
    kernel: &str,
    module: &Module,
    info: &ModuleInfo,
    entry: &str,
    bindings: &[Binding],
    constants: &[(&str, f64)],
    failures: &mut Vec<String>,
) {
    use naga::back::{glsl, hlsl, msl, spv};
    use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy};

    let mut fail = |what: &str, e: &dyn std::fmt::Display| failures.push(format!("{kernel}, {what}: {e}"));
    let mut pipeline_constants = naga::back::PipelineConstants::default();
    for (name, v) in constants {
        pipeline_constants.insert(name.to_string(), *v);
    }
    let (module, info) = match naga::back::pipeline_constants::process_overrides(
        module,
        info,
        Some((ShaderStage::Compute, entry)),
        &pipeline_constants,
    ) {
        Ok(r) => r,
        Err(e) => {
            fail("overrides", &e);
            return;
        }
    };
    let entry = entry.to_string();
    for policy in [
        BoundsCheckPolicy::Unchecked,
        BoundsCheckPolicy::Restrict,
        BoundsCheckPolicy::ReadZeroSkipWrite,
    ] {
        let policies = BoundsCheckPolicies {
            index: policy,
            buffer: policy,
            image_load: policy,
            binding_array: BoundsCheckPolicy::Unchecked,
        };

        // SPIR-V (Vulkan).
        for lang_version in [(1, 0), (1, 3)] {
            let options = spv::Options {
                lang_version,
                bounds_check_policies: policies,
                ..Default::default()
            };
            let pipeline = spv::PipelineOptions {
                shader_stage: ShaderStage::Compute,
                entry_point: entry.clone(),
            };
            match spv::write_vec(&module, &info, &options, Some(&pipeline)) {
                Err(e) => fail(&format!("SPIR-V {lang_version:?}, {policy:?}"), &e),
                Ok(words) => assert_eq!(words.first(), Some(&0x0723_0203), "SPIR-V magic number"),
            }
        }

        // MSL (Metal): buffer slots in table order, then the array sizes buffer.
        let mut resources = msl::EntryPointResources::default();
        for (slot, b) in bindings.iter().enumerate() {
            resources.resources.insert(
                naga::ResourceBinding {
                    group: b.group,
                    binding: b.binding,
                },
                msl::BindTarget {
                    buffer: Some(slot as u8),
                    mutable: b.ty == Ty::Rw,
                    ..Default::default()
                },
            );
        }
        resources.sizes_buffer = Some(bindings.len() as u8);
        for lang_version in [(2, 0), (3, 0)] {
            let options = msl::Options {
                lang_version,
                per_entry_point_map: [(entry.clone(), resources.clone())].into_iter().collect(),
                fake_missing_bindings: false,
                bounds_check_policies: policies,
                zero_initialize_workgroup_memory: false,
                ..Default::default()
            };
            let pipeline = msl::PipelineOptions {
                entry_point: Some((ShaderStage::Compute, entry.clone())),
                ..Default::default()
            };
            match msl::write_string(&module, &info, &options, &pipeline) {
                Err(e) => fail(&format!("MSL {lang_version:?}, {policy:?}"), &e),
                Ok((text, t)) => {
                    assert!(text.contains("kernel void"), "{text}");
                    for r in &t.entry_point_names {
                        if let Err(e) = r {
                            fail(&format!("MSL {lang_version:?}, {policy:?}"), e);
                        }
                    }
                }
            }
        }

        // HLSL (DX12): register = binding, space = group.
        let mut binding_map = hlsl::BindingMap::default();
        for b in bindings {
            binding_map.insert(
                naga::ResourceBinding {
                    group: b.group,
                    binding: b.binding,
                },
                hlsl::BindTarget {
                    space: b.group as u8,
                    register: b.binding,
                    ..Default::default()
                },
            );
        }
        for shader_model in [hlsl::ShaderModel::V5_1, hlsl::ShaderModel::V6_0] {
            let options = hlsl::Options {
                shader_model,
                binding_map: binding_map.clone(),
                fake_missing_bindings: false,
                zero_initialize_workgroup_memory: false,
                restrict_indexing: policy != BoundsCheckPolicy::Unchecked,
                ..Default::default()
            };
            let pipeline = hlsl::PipelineOptions {
                entry_point: Some((ShaderStage::Compute, entry.clone())),
            };
            let mut out = String::new();
            match hlsl::Writer::new(&mut out, &options, &pipeline).write(&module, &info, None) {
                Err(e) => fail(&format!("HLSL {shader_model:?}, {policy:?}"), &e),
                Ok(r) => {
                    assert!(out.contains("[numthreads("), "{out}");
                    for r in &r.entry_point_names {
                        if let Err(e) = r {
                            fail(&format!("HLSL {shader_model:?}, {policy:?}"), e);
                        }
                    }
                }
            }
        }

        // GLSL (GL, GLES): uniform blocks and storage blocks numbered apart.
        let mut binding_map = glsl::BindingMap::default();
        let (mut ubo, mut ssbo) = (0u8, 0u8);
        for b in bindings {
            let n = if b.ty == Ty::Uniform { &mut ubo } else { &mut ssbo };
            binding_map.insert(
                naga::ResourceBinding {
                    group: b.group,
                    binding: b.binding,
                },
                *n,
            );
            *n += 1;
        }
        for version in [glsl::Version::Desktop(430), glsl::Version::new_gles(310)] {
            let options = glsl::Options {
                version,
                writer_flags: glsl::WriterFlags::empty(),
                binding_map: binding_map.clone(),
                zero_initialize_workgroup_memory: false,
            };
            let pipeline = glsl::PipelineOptions {
                shader_stage: ShaderStage::Compute,
                entry_point: entry.clone(),
                multiview: None,
            };
            let mut out = String::new();
            let written =
                glsl::Writer::new(&mut out, &module, &info, &options, &pipeline, policies).and_then(|mut w| w.write());
            match written {
                Err(e) => fail(&format!("GLSL {version}, {policy:?}"), &e),
                Ok(_) => assert!(out.contains("void main()"), "{out}"),
            }
        }
    }
}

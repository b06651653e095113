//! Adapters: enumeration, description (`fdtd devices`), selection and memory queries.
//!
//! wgpu has no portable way to ask how much memory a device has. On Vulkan we ask the
//! driver through ash: the device-local heap sizes, and the budget and current usage
//! where `VK_EXT_memory_budget` exists (NVIDIA yes, lavapipe no). On other backends the
//! budget is unknown and the plan is held to the adapter's buffer limits only.
use fdtd_core::backend::BackendError;
use fdtd_core::plan::human_bytes;
use std::fmt::Write as _;

/// Environment variable that lowers the storage-binding cap used to cut the grid into
/// x slabs (bytes; `k`, `M`, `G` suffixes for KiB, MiB, GiB). Tests use it to exercise
/// the multi-slab path on small grids.
pub const MAX_BINDING_ENV: &str = "FDTD_GPU_MAX_BINDING";
/// Environment variable: the device memory a GPU run may use (`512M`, `80G`), instead of
/// the driver's budget: to share a GPU between runs, to test the refusals and "what
/// would fit" on a device without a budget query (lavapipe), or to test what happens
/// when the driver fails an allocation the plan accepted (set it above the real size).
pub const BUDGET_ENV: &str = "FDTD_GPU_BUDGET";

/// Storage buffers one kernel binds at most (update_e / update_h: 3 + 3 fields,
/// 3 material-index arrays, row flags, coefficients and CPML profiles, 2 CPML ψ).
pub const STORAGE_BUFFERS_NEEDED: u32 = 13;

/// What the device can give, as far as we can tell.
#[derive(Clone, Debug, PartialEq)]
pub enum Memory {
    /// `VK_EXT_memory_budget`: largest device-local heap, the process budget on it and
    /// what the process uses already.
    Budget { heap: u64, budget: u64, usage: u64 },
    /// Set by [`BUDGET_ENV`]: the device memory a run may use, whatever the driver says.
    Limit { bytes: u64 },
    /// Vulkan without the budget extension: the largest device-local heap.
    Heap { heap: u64 },
    /// Other backends: no memory query.
    Unknown,
}

impl Memory {
    /// Bytes the plan may use before headroom: budget − usage, else the heap size.
    pub fn available(&self) -> Option<u64> {
        match *self {
            Memory::Budget { budget, usage, .. } => Some(budget.saturating_sub(usage)),
            Memory::Heap { heap } => Some(heap),
            Memory::Limit { bytes } => Some(bytes),
            Memory::Unknown => None,
        }
    }

    pub fn describe(&self) -> String {
        match *self {
            Memory::Budget { heap, budget, usage } => format!(
                "device-local heap {}, budget {} ({} in use)",
                human_bytes(heap),
                human_bytes(budget),
                human_bytes(usage)
            ),
            Memory::Heap { heap } => format!("device-local heap {} (no budget extension)", human_bytes(heap)),
            Memory::Limit { bytes } => format!("{} set by {BUDGET_ENV}", human_bytes(bytes)),
            Memory::Unknown => "budget unknown (no memory query on this backend), relying on limits".into(),
        }
    }
}

/// One adapter as `fdtd devices` lists it, with the numbers the plan needs.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceInfo {
    /// Position in the enumeration (`--device <index>`).
    pub index: usize,
    pub name: String,
    pub backend: wgpu::Backend,
    pub device_type: wgpu::DeviceType,
    pub driver: String,
    pub driver_info: String,
    pub max_buffer_size: u64,
    /// The adapter's storage binding limit.
    pub max_binding: u64,
    /// The binding cap the backend slabs the grid with: the limit, the largest buffer,
    /// and [`MAX_BINDING_ENV`], whichever is lowest.
    pub binding_cap: u64,
    pub max_storage_buffers_per_stage: u32,
    pub max_workgroups_per_dim: u32,
    pub memory: Memory,
}

impl DeviceInfo {
    /// A software rasteriser (lavapipe, llvmpipe, WARP...): usable, but slow.
    pub fn is_software(&self) -> bool {
        self.device_type == wgpu::DeviceType::Cpu
    }

    /// Why this adapter cannot run the backend at all, if it cannot.
    pub fn unusable(&self) -> Option<String> {
        if self.max_storage_buffers_per_stage < STORAGE_BUFFERS_NEEDED {
            return Some(format!(
                "it allows {} storage buffers per shader stage; the kernels need {}",
                self.max_storage_buffers_per_stage, STORAGE_BUFFERS_NEEDED
            ));
        }
        None
    }

    /// `NVIDIA H200 (Vulkan, discrete GPU)`.
    pub fn short(&self) -> String {
        format!("{} ({:?}, {})", self.name, self.backend, type_name(self.device_type))
    }
}

pub fn type_name(t: wgpu::DeviceType) -> &'static str {
    match t {
        wgpu::DeviceType::DiscreteGpu => "discrete GPU",
        wgpu::DeviceType::IntegratedGpu => "integrated GPU",
        wgpu::DeviceType::VirtualGpu => "virtual GPU",
        wgpu::DeviceType::Cpu => "software (CPU) device",
        wgpu::DeviceType::Other => "other device",
    }
}

/// Lower rank = preferred: discrete > integrated > virtual > other > software.
fn type_rank(t: wgpu::DeviceType) -> u32 {
    match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

/// Native APIs before GL: Vulkan, Metal, DX12, then GL.
fn backend_rank(b: wgpu::Backend) -> u32 {
    match b {
        wgpu::Backend::Vulkan => 0,
        wgpu::Backend::Metal => 1,
        wgpu::Backend::Dx12 => 2,
        wgpu::Backend::Gl => 3,
        _ => 4,
    }
}

pub use fdtd_core::plan::parse_bytes;

/// The binding cap override from [`MAX_BINDING_ENV`], if set and valid.
pub fn binding_override() -> Result<Option<u64>, BackendError> {
    match std::env::var(MAX_BINDING_ENV) {
        Ok(v) => match parse_bytes(&v) {
            Some(b) if b >= 1024 => Ok(Some(b)),
            _ => Err(BackendError::Gpu(format!(
                "{MAX_BINDING_ENV}={v:?} is not a size of at least 1024 bytes (e.g. 65536, 512k, 64M)"
            ))),
        },
        Err(_) => Ok(None),
    }
}

pub fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::all();
    wgpu::Instance::new(desc)
}

pub fn adapters(instance: &wgpu::Instance) -> Vec<wgpu::Adapter> {
    pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()))
}

pub fn info(index: usize, adapter: &wgpu::Adapter, cap_override: Option<u64>) -> DeviceInfo {
    let i = adapter.get_info();
    let l = adapter.limits();
    let mut cap = l.max_storage_buffer_binding_size.min(l.max_buffer_size);
    if let Some(o) = cap_override {
        cap = cap.min(o);
    }
    DeviceInfo {
        index,
        name: i.name,
        backend: i.backend,
        device_type: i.device_type,
        driver: i.driver,
        driver_info: i.driver_info,
        max_buffer_size: l.max_buffer_size,
        max_binding: l.max_storage_buffer_binding_size,
        binding_cap: cap & !3,
        max_storage_buffers_per_stage: l.max_storage_buffers_per_shader_stage,
        max_workgroups_per_dim: l.max_compute_workgroups_per_dimension,
        memory: budget_override().unwrap_or_else(|| memory(adapter)),
    }
}

/// Refuse a [`BUDGET_ENV`] that is set but not a size.
pub fn check_budget_env() -> Result<(), BackendError> {
    match std::env::var(BUDGET_ENV) {
        Ok(v) if parse_bytes(&v).is_none() => Err(BackendError::Gpu(format!(
            "{BUDGET_ENV}={v:?} is not a size (e.g. 512M, 80G)"
        ))),
        _ => Ok(()),
    }
}

/// [`BUDGET_ENV`], if set to a size.
fn budget_override() -> Option<Memory> {
    let v = std::env::var(BUDGET_ENV).ok()?;
    parse_bytes(&v).map(|bytes| Memory::Limit { bytes })
}

/// What this process uses of the device-local heap the plan is held to, as the driver
/// reports it (`VK_EXT_memory_budget`); `None` where it does not say.
pub fn heap_usage(adapter: &wgpu::Adapter) -> Option<u64> {
    match memory(adapter) {
        Memory::Budget { usage, .. } => Some(usage),
        _ => None,
    }
}

/// Device-local memory of a Vulkan adapter (see the module docs).
fn memory(adapter: &wgpu::Adapter) -> Memory {
    // SAFETY: we only read properties of the physical device through the instance that
    // wgpu created; no handle escapes and nothing is destroyed.
    unsafe {
        let Some(hal) = adapter.as_hal::<wgpu::hal::api::Vulkan>() else {
            return Memory::Unknown;
        };
        let shared = hal.shared_instance();
        let raw = shared.raw_instance();
        let pd = hal.raw_physical_device();
        let caps = hal.physical_device_capabilities();
        let v11 = ash::vk::API_VERSION_1_1;
        let can_v2 = shared.instance_api_version() >= v11 && caps.properties().api_version >= v11;
        let has_budget = can_v2 && caps.supports_extension(ash::ext::memory_budget::NAME);
        let mut budget = ash::vk::PhysicalDeviceMemoryBudgetPropertiesEXT::default();
        let props = if can_v2 {
            let mut p2 = ash::vk::PhysicalDeviceMemoryProperties2::default();
            if has_budget {
                p2 = p2.push_next(&mut budget);
            }
            raw.get_physical_device_memory_properties2(pd, &mut p2);
            p2.memory_properties
        } else {
            raw.get_physical_device_memory_properties(pd)
        };
        let mut best: Option<(usize, u64)> = None;
        for h in 0..props.memory_heap_count as usize {
            let heap = props.memory_heaps[h];
            if heap.flags.contains(ash::vk::MemoryHeapFlags::DEVICE_LOCAL) && best.is_none_or(|(_, s)| heap.size > s) {
                best = Some((h, heap.size));
            }
        }
        match best {
            None => Memory::Unknown,
            Some((h, heap)) if has_budget && budget.heap_budget[h] > 0 => Memory::Budget {
                heap,
                budget: budget.heap_budget[h],
                usage: budget.heap_usage[h],
            },
            Some((_, heap)) => Memory::Heap { heap },
        }
    }
}

/// Whether a Vulkan loader (libvulkan) can be opened at all.
fn vulkan_loader() -> Result<(), String> {
    // SAFETY: loading the system Vulkan loader runs its initialisers; this is what wgpu
    // itself does when it creates a Vulkan instance.
    match unsafe { ash::Entry::load() } {
        Ok(_) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

/// Index into `infos` of the preferred adapter, among the usable ones.
fn preferred(infos: &[DeviceInfo]) -> Option<usize> {
    infos
        .iter()
        .filter(|d| d.unusable().is_none())
        .min_by_key(|d| (type_rank(d.device_type), backend_rank(d.backend), d.index))
        .map(|d| d.index)
}

/// Pick an adapter: `want` is an index from `fdtd devices` or a case-insensitive name
/// substring; without it, the preferred usable adapter.
pub fn choose(infos: &[DeviceInfo], want: Option<&str>) -> Result<usize, BackendError> {
    if infos.is_empty() {
        return Err(BackendError::NoDevice(no_adapter_reason()));
    }
    let list = || {
        infos
            .iter()
            .map(|d| format!("{}: {}", d.index, d.short()))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let pick = match want.map(str::trim).filter(|w| !w.is_empty()) {
        None => preferred(infos).ok_or_else(|| {
            BackendError::NoDevice(format!(
                "no adapter can run the kernels ({}): {}",
                list(),
                infos.iter().filter_map(|d| d.unusable()).collect::<Vec<_>>().join("; ")
            ))
        })?,
        Some(w) => {
            if let Ok(i) = w.parse::<usize>() {
                if i >= infos.len() {
                    return Err(BackendError::NoDevice(format!(
                        "device {i}: there are {} adapters ({})",
                        infos.len(),
                        list()
                    )));
                }
                i
            } else {
                let lw = w.to_lowercase();
                let hits: Vec<&DeviceInfo> = infos.iter().filter(|d| d.name.to_lowercase().contains(&lw)).collect();
                match hits.as_slice() {
                    [] => {
                        return Err(BackendError::NoDevice(format!(
                            "device {w:?} matches no adapter name ({})",
                            list()
                        )))
                    }
                    // Same device on several backends: take the preferred backend.
                    many => {
                        many.iter()
                            .min_by_key(|d| (type_rank(d.device_type), backend_rank(d.backend), d.index))
                            .unwrap()
                            .index
                    }
                }
            }
        }
    };
    if let Some(why) = infos[pick].unusable() {
        return Err(BackendError::NoDevice(format!(
            "adapter {} cannot run the kernels: {why}",
            infos[pick].short()
        )));
    }
    Ok(pick)
}

/// Why there is no adapter at all.
pub fn no_adapter_reason() -> String {
    match vulkan_loader() {
        Err(e) => format!(
            "no GPU adapter found, and no Vulkan loader could be opened ({e}); install the \
             Vulkan loader and a driver (Debian/Ubuntu: `apt install libvulkan1 mesa-vulkan-drivers` \
             gives the software device lavapipe), or run on the CPU backend"
        ),
        Ok(()) => "no GPU adapter found: the Vulkan loader is present but no driver reports a device \
                   (install your GPU's Vulkan driver, or mesa-vulkan-drivers for the software device \
                   lavapipe), or run on the CPU backend"
            .into(),
    }
}

/// Every adapter with its limits and memory, and which one `--backend gpu` would use.
pub fn describe_devices() -> String {
    let cap = binding_override();
    let inst = instance();
    let ads = adapters(&inst);
    let infos: Vec<DeviceInfo> = ads
        .iter()
        .enumerate()
        .map(|(i, a)| info(i, a, cap.as_ref().ok().copied().flatten()))
        .collect();
    let mut s = String::new();
    if infos.is_empty() {
        let _ = writeln!(s, "GPU adapters: none");
        let _ = writeln!(s, "  {}", no_adapter_reason());
        let _ = write!(s, "--backend gpu: unavailable; --backend auto will use the CPU");
        return s;
    }
    let _ = writeln!(s, "GPU adapters ({}):", infos.len());
    for d in &infos {
        let _ = writeln!(s, "  [{}] {}", d.index, d.name);
        let _ = writeln!(
            s,
            "      backend {:?}, {}, driver {} {}",
            d.backend,
            type_name(d.device_type),
            if d.driver.is_empty() { "?" } else { &d.driver },
            d.driver_info
        );
        let _ = writeln!(
            s,
            "      max buffer {}, max storage binding {}, {} storage buffers per stage",
            human_bytes(d.max_buffer_size),
            human_bytes(d.max_binding),
            d.max_storage_buffers_per_stage
        );
        let _ = writeln!(s, "      memory: {}", d.memory.describe());
        if let Some(why) = d.unusable() {
            let _ = writeln!(s, "      not usable: {why}");
        }
    }
    if let Err(e) = &cap {
        let _ = writeln!(s, "warning: {e}");
    } else if let Ok(Some(c)) = cap {
        let _ = writeln!(s, "{MAX_BINDING_ENV} caps storage bindings at {}", human_bytes(c));
    }
    match preferred(&infos) {
        Some(i) => {
            let d = &infos[i];
            let _ = write!(s, "--backend gpu uses [{}] {}", i, d.short());
            if d.is_software() {
                let _ = write!(
                    s,
                    " -- a software device that runs on the CPU: correct but slow, meant for tests; \
                     --backend cpu is faster here"
                );
            }
            let _ = write!(s, "\n(select another with --device <index> or a part of its name)");
        }
        None => {
            let _ = write!(s, "--backend gpu: no adapter can run the kernels");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_parse_bytes() {
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes("64k"), Some(65536));
        assert_eq!(parse_bytes("2M"), Some(2 << 20));
        assert_eq!(parse_bytes("1G"), Some(1 << 30));
        assert_eq!(parse_bytes("x"), None);
        assert_eq!(parse_bytes(""), None);
    }

    fn dev(index: usize, name: &str, t: wgpu::DeviceType, b: wgpu::Backend) -> DeviceInfo {
        DeviceInfo {
            index,
            name: name.into(),
            backend: b,
            device_type: t,
            driver: String::new(),
            driver_info: String::new(),
            max_buffer_size: 1 << 30,
            max_binding: 1 << 27,
            binding_cap: 1 << 27,
            max_storage_buffers_per_stage: 16,
            max_workgroups_per_dim: 65535,
            memory: Memory::Unknown,
        }
    }

    #[test]
    fn gpu_choose_prefers_discrete_and_vulkan() {
        use wgpu::{Backend::*, DeviceType::*};
        let infos = vec![
            dev(0, "llvmpipe", Cpu, Vulkan),
            dev(1, "Intel UHD", IntegratedGpu, Gl),
            dev(2, "NVIDIA H200", DiscreteGpu, Gl),
            dev(3, "NVIDIA H200", DiscreteGpu, Vulkan),
        ];
        assert_eq!(choose(&infos, None).unwrap(), 3);
        assert_eq!(choose(&infos, Some("1")).unwrap(), 1);
        assert_eq!(choose(&infos, Some("h200")).unwrap(), 3);
        assert_eq!(choose(&infos, Some("LLVM")).unwrap(), 0);
        assert!(choose(&infos, Some("7")).is_err());
        assert!(choose(&infos, Some("radeon")).is_err());
        let mut weak = infos.clone();
        weak[3].max_storage_buffers_per_stage = 8;
        assert_eq!(choose(&weak, None).unwrap(), 2);
        assert!(choose(&weak, Some("3")).is_err());
        assert!(choose(&[], None).is_err());
    }
}

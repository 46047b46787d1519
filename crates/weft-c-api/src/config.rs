//! `wasm_config_t` and `wasm_engine_t`, with `weft/config.h` and
//! `weft/engine.h`.

use crate::error::{err_ptr, weft_error_t};
use crate::guard;
use crate::host_env::HostEnv;
use std::ffi::{c_char, c_void, CStr};
use weft::{Config, Engine, OptLevel};

/// `wasm_config_t`: an engine configuration.
pub struct wasm_config_t {
    pub(crate) config: Config,
}

/// `wasm_engine_t`: an engine (shared; `weft_engine_clone` adds a reference).
pub struct wasm_engine_t {
    pub(crate) engine: Engine,
}

/// A new default configuration.
#[no_mangle]
pub extern "C" fn wasm_config_new() -> Option<Box<wasm_config_t>> {
    guard(|| None, || Some(Box::new(wasm_config_t { config: Config::new() })))
}

/// Deletes a configuration.
#[no_mangle]
pub extern "C" fn wasm_config_delete(config: Option<Box<wasm_config_t>>) {
    guard(|| (), || drop(config))
}

/// A new engine with the default configuration.
#[no_mangle]
pub extern "C" fn wasm_engine_new() -> Option<Box<wasm_engine_t>> {
    guard(
        || None,
        || {
            Some(Box::new(wasm_engine_t {
                engine: Engine::default(),
            }))
        },
    )
}

/// A new engine with `config` (consumed); null if the configuration is
/// invalid.
#[no_mangle]
pub extern "C" fn wasm_engine_new_with_config(config: Option<Box<wasm_config_t>>) -> Option<Box<wasm_engine_t>> {
    guard(
        || None,
        || {
            let config = config?;
            match Engine::new(&config.config) {
                Ok(engine) => Some(Box::new(wasm_engine_t { engine })),
                Err(e) => {
                    eprintln!("weft: invalid engine configuration: {e:?}");
                    None
                }
            }
        },
    )
}

/// Deletes an engine reference.
#[no_mangle]
pub extern "C" fn wasm_engine_delete(engine: Option<Box<wasm_engine_t>>) {
    guard(|| (), || drop(engine))
}

/// A new reference to the same engine.
#[no_mangle]
pub extern "C" fn weft_engine_clone(engine: Option<&wasm_engine_t>) -> Option<Box<wasm_engine_t>> {
    guard(
        || None,
        || {
            Some(Box::new(wasm_engine_t {
                engine: engine?.engine.clone(),
            }))
        },
    )
}

/// Increments the engine's epoch.
#[no_mangle]
pub extern "C" fn weft_engine_increment_epoch(engine: Option<&wasm_engine_t>) {
    guard(
        || (),
        || {
            if let Some(e) = engine {
                e.engine.increment_epoch()
            }
        },
    )
}

/// Whether the engine runs Pulley bytecode: never for Weft.
#[no_mangle]
pub extern "C" fn weft_engine_is_pulley(_engine: Option<&wasm_engine_t>) -> bool {
    false
}

/// Async support: always on in Weft (as `weft::Config::async_support`,
/// deprecated there), so this changes nothing; accepted for programs
/// written for Wasmtime versions that had it.
#[no_mangle]
pub extern "C" fn weft_config_async_support_set(_config: Option<&mut wasm_config_t>, _enable: bool) {}

/// Declares a boolean setter of `Config`.
macro_rules! bool_setter {
    ($(($cname:ident, $method:ident, $doc:literal)),* $(,)?) => {$(
        #[doc = $doc]
        #[no_mangle]
        pub extern "C" fn $cname(config: Option<&mut wasm_config_t>, enable: bool) {
            guard(|| (), || {
                if let Some(c) = config {
                    c.config.$method(enable);
                }
            })
        }
    )*};
}

bool_setter!(
    (
        weft_config_consume_fuel_set,
        consume_fuel,
        "Whether wasm consumes fuel."
    ),
    (
        weft_config_epoch_interruption_set,
        epoch_interruption,
        "Whether wasm checks epoch deadlines."
    ),
    (
        weft_config_wasm_tail_call_set,
        wasm_tail_call,
        "The tail-call proposal."
    ),
    (
        weft_config_wasm_reference_types_set,
        wasm_reference_types,
        "The reference-types proposal."
    ),
    (
        weft_config_wasm_function_references_set,
        wasm_function_references,
        "Typed function references."
    ),
    (weft_config_wasm_simd_set, wasm_simd, "The SIMD proposal."),
    (
        weft_config_wasm_relaxed_simd_set,
        wasm_relaxed_simd,
        "The relaxed-SIMD proposal."
    ),
    (
        weft_config_wasm_relaxed_simd_deterministic_set,
        relaxed_simd_deterministic,
        "Deterministic relaxed SIMD."
    ),
    (
        weft_config_wasm_bulk_memory_set,
        wasm_bulk_memory,
        "The bulk-memory proposal."
    ),
    (
        weft_config_wasm_multi_value_set,
        wasm_multi_value,
        "The multi-value proposal."
    ),
    (
        weft_config_wasm_multi_memory_set,
        wasm_multi_memory,
        "The multi-memory proposal."
    ),
    (weft_config_wasm_memory64_set, wasm_memory64, "The memory64 proposal."),
    (
        weft_config_wasm_exceptions_set,
        wasm_exceptions,
        "The exception-handling proposal."
    ),
    (
        weft_config_parallel_compilation_set,
        parallel_compilation,
        "Parallel compilation."
    ),
    (
        weft_config_wasm_component_model_set,
        wasm_component_model,
        "The component model."
    ),
    (
        weft_config_wasm_component_model_async_set,
        wasm_component_model_async,
        "The component model's async ABI."
    ),
    (
        weft_config_wasm_component_model_more_async_builtins_set,
        wasm_component_model_more_async_builtins,
        "More async built-ins of the component model."
    ),
    (
        weft_config_wasm_component_model_async_builtins_set,
        wasm_component_model_async_builtins,
        "The older name of `weft_config_wasm_component_model_more_async_builtins_set`."
    ),
    (
        weft_config_wasm_component_model_async_stackful_set,
        wasm_component_model_async_stackful,
        "Stackful async lifts of the component model."
    ),
    (
        weft_config_wasm_gc_set,
        wasm_gc,
        "The GC proposal: struct and array types, `i31ref` and the `any` hierarchy."
    ),
    (
        weft_config_wasm_threads_set,
        wasm_threads,
        "The threads proposal: shared memories (across stores and threads) and atomics."
    ),
    (
        weft_config_shared_memory_set,
        shared_memory,
        "Whether shared memories may be made (`Config::shared_memory`)."
    ),
    (
        weft_config_wasm_wide_arithmetic_set,
        wasm_wide_arithmetic,
        "The wide arithmetic proposal."
    ),
    (
        weft_config_wasm_custom_page_sizes_set,
        wasm_custom_page_sizes,
        "The custom page sizes proposal: memories of 1-byte pages."
    ),
    (
        weft_config_wasm_custom_descriptors_set,
        wasm_custom_descriptors,
        "The custom descriptors proposal, in part (needs the GC proposal)."
    ),
);

/// `wasm_config_t` setters Weft accepts but that change nothing: Weft has
/// no such feature (or it is always on), as documented in `weft/config.h`.
macro_rules! ignored_bool_setter {
    ($(($cname:ident, $doc:literal)),* $(,)?) => {$(
        #[doc = $doc]
        #[no_mangle]
        pub extern "C" fn $cname(_config: Option<&mut wasm_config_t>, _enable: bool) {}
    )*};
}

ignored_bool_setter!(
    (
        weft_config_debug_info_set,
        "DWARF for native debuggers: not produced by Weft; ignored."
    ),
    (
        weft_config_gc_support_set,
        "GC support at run time: always there in Weft (each store's GC heap is made on first use); ignored."
    ),
    (
        weft_config_wasm_branch_hinting_set,
        "Branch hints: always accepted by Weft; ignored."
    ),
    (
        weft_config_wasm_stack_switching_set,
        "Stack switching: not supported by Weft; ignored."
    ),
    (
        weft_config_cranelift_debug_verifier_set,
        "Cranelift's verifier: ignored."
    ),
    (
        weft_config_cranelift_nan_canonicalization_set,
        "NaN canonicalization: ignored."
    ),
    (weft_config_memory_may_move_set, "Weft's memories never move; ignored."),
    (weft_config_native_unwind_info_set, "Unwind information: ignored."),
    (weft_config_macos_use_mach_ports_set, "Mach ports: ignored."),
    (
        weft_config_signals_based_traps_set,
        "Weft always uses signals for traps; ignored."
    ),
    (
        weft_config_memory_init_cow_set,
        "Weft always uses copy-on-write images when it can; ignored."
    ),
    (
        weft_config_concurrency_support_set,
        "Concurrency support: always on with the component model; ignored."
    ),
    (
        weft_config_wasm_component_model_map_set,
        "Component `map` types: always on in Weft; ignored."
    ),
);

/// The maximum size of the wasm stack, in bytes.
#[no_mangle]
pub extern "C" fn weft_config_max_wasm_stack_set(config: Option<&mut wasm_config_t>, size: usize) {
    guard(
        || (),
        || {
            if let Some(c) = config {
                c.config.max_wasm_stack(size);
            }
        },
    )
}

/// The size of the stacks of async calls, in bytes.
#[no_mangle]
pub extern "C" fn weft_config_async_stack_size_set(config: Option<&mut wasm_config_t>, size: usize) {
    guard(
        || (),
        || {
            if let Some(c) = config {
                c.config.async_stack_size(size);
            }
        },
    )
}

/// `weft_strategy_t`: the compiler (only Cranelift in Weft).
pub type weft_strategy_t = u8;
/// `weft_opt_level_t`: Cranelift's optimization level.
pub type weft_opt_level_t = u8;
/// `weft_profiling_strategy_t`: the profiler (none in Weft).
pub type weft_profiling_strategy_t = u8;
/// `weft_regalloc_algorithm_t`: Cranelift's register allocator.
pub type weft_regalloc_algorithm_t = u8;

/// Chooses the compiler: `WEFT_STRATEGY_AUTO` and `WEFT_STRATEGY_CRANELIFT`
/// are Cranelift; Weft has no other (Winch is taken as Cranelift too).
#[no_mangle]
pub extern "C" fn weft_config_strategy_set(_config: Option<&mut wasm_config_t>, _strategy: weft_strategy_t) {}

/// Cranelift's optimization level.
#[no_mangle]
pub extern "C" fn weft_config_cranelift_opt_level_set(config: Option<&mut wasm_config_t>, level: weft_opt_level_t) {
    guard(
        || (),
        || {
            if let Some(c) = config {
                c.config.cranelift_opt_level(match level {
                    0 => OptLevel::None,
                    2 => OptLevel::SpeedAndSize,
                    _ => OptLevel::Speed,
                });
            }
        },
    )
}

/// The register allocator: Weft uses Cranelift's default; ignored.
#[no_mangle]
pub extern "C" fn weft_config_cranelift_regalloc_algorithm_set(
    _config: Option<&mut wasm_config_t>,
    _algorithm: weft_regalloc_algorithm_t,
) {
}

/// The profiler: Weft has none; ignored.
#[no_mangle]
pub extern "C" fn weft_config_profiler_set(_config: Option<&mut wasm_config_t>, _strategy: weft_profiling_strategy_t) {}

/// Memory reservation: Weft reserves 8 GiB per 32-bit memory; ignored.
#[no_mangle]
pub extern "C" fn weft_config_memory_reservation_set(_config: Option<&mut wasm_config_t>, _size: u64) {}

/// Guard size: Weft's is fixed; ignored.
#[no_mangle]
pub extern "C" fn weft_config_memory_guard_size_set(_config: Option<&mut wasm_config_t>, _size: u64) {}

/// Reservation for growth: ignored.
#[no_mangle]
pub extern "C" fn weft_config_memory_reservation_for_growth_set(_config: Option<&mut wasm_config_t>, _size: u64) {}

/// A Cranelift flag: Weft sets its own flags; ignored.
#[no_mangle]
pub extern "C" fn weft_config_cranelift_flag_enable(_config: Option<&mut wasm_config_t>, _flag: *const c_char) {}

/// A Cranelift flag with a value: ignored.
#[no_mangle]
pub extern "C" fn weft_config_cranelift_flag_set(
    _config: Option<&mut wasm_config_t>,
    _key: *const c_char,
    _value: *const c_char,
) {
}

/// The compilation cache: Weft has none, so this fails.
#[no_mangle]
pub extern "C" fn weft_config_cache_config_load(
    _config: Option<&mut wasm_config_t>,
    _path: *const c_char,
) -> Option<Box<weft_error_t>> {
    err_ptr(Err(anyhow::anyhow!("weft has no compilation cache")))
}

/// The target triple: only the host is supported.
///
/// # Safety
///
/// `target` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn weft_config_target_set(
    _config: Option<&mut wasm_config_t>,
    target: *const c_char,
) -> Option<Box<weft_error_t>> {
    err_ptr(crate::guard_result(|| {
        if target.is_null() {
            return Err(crate::null_error("target"));
        }
        // SAFETY: the caller passes a NUL-terminated string.
        let t = unsafe { CStr::from_ptr(target) }.to_string_lossy();
        let host = format!("{}-", std::env::consts::ARCH);
        if t.starts_with(&host) {
            Ok(())
        } else {
            Err(anyhow::anyhow!("weft compiles for the host only, not for `{t}`"))
        }
    }))
}

/// `weft_memory_get_callback_t`: the base, size and capacity of a host
/// memory.
pub type weft_memory_get_callback_t = Option<unsafe extern "C" fn(*mut c_void, *mut usize, *mut usize) -> *mut u8>;

/// `weft_memory_grow_callback_t`: grows a host memory to a new size.
pub type weft_memory_grow_callback_t = Option<unsafe extern "C" fn(*mut c_void, usize) -> Option<Box<weft_error_t>>>;

/// `weft_linear_memory_t`: a memory the host made.
#[repr(C)]
pub struct weft_linear_memory_t {
    env: *mut c_void,
    get_memory: weft_memory_get_callback_t,
    grow_memory: weft_memory_grow_callback_t,
    finalizer: crate::host_env::Finalizer,
}

/// `weft_new_memory_callback_t`.
pub type weft_new_memory_callback_t = Option<
    unsafe extern "C" fn(
        *mut c_void,
        *const crate::types::wasm_memorytype_t,
        usize,
        usize,
        usize,
        usize,
        *mut weft_linear_memory_t,
    ) -> Option<Box<weft_error_t>>,
>;

/// `weft_memory_creator_t`: the host's maker of memories.
#[repr(C)]
pub struct weft_memory_creator_t {
    env: *mut c_void,
    new_memory: weft_new_memory_callback_t,
    finalizer: crate::host_env::Finalizer,
}

/// A host memory as weft's `LinearMemory`.
struct HostLinearMemory {
    get: unsafe extern "C" fn(*mut c_void, *mut usize, *mut usize) -> *mut u8,
    grow: unsafe extern "C" fn(*mut c_void, usize) -> Option<Box<weft_error_t>>,
    env: HostEnv,
}

impl HostLinearMemory {
    /// The base, size and capacity the host reports.
    fn get(&self) -> (*mut u8, usize, usize) {
        let (mut size, mut capacity) = (0usize, 0usize);
        // SAFETY: the host's callback with its data and two writable sizes.
        let base = unsafe { (self.get)(self.env.data(), &mut size, &mut capacity) };
        (base, size, capacity)
    }
}

// SAFETY: the host's contract (`weft/config.h`): `get_memory`'s base and
// size describe memory it owns until the finalizer runs (when this value is
// dropped), readable and writable from any thread; `grow_memory` zeroes the
// new bytes; and the base never moves within the reservation asked.
unsafe impl weft::LinearMemory for HostLinearMemory {
    fn byte_size(&self) -> usize {
        self.get().1
    }
    fn byte_capacity(&self) -> usize {
        self.get().2
    }
    fn grow_to(&mut self, new_size: usize) -> anyhow::Result<()> {
        // SAFETY: the host's callback with its data.
        match unsafe { (self.grow)(self.env.data(), new_size) } {
            Some(e) => Err(e
                .error
                .context(format!("the host failed to grow its memory to {new_size} bytes"))),
            None => Ok(()),
        }
    }
    fn as_ptr(&self) -> *mut u8 {
        self.get().0
    }
}

/// The host's memory creator as weft's `MemoryCreator`.
struct HostMemoryCreator {
    new_memory: unsafe extern "C" fn(
        *mut c_void,
        *const crate::types::wasm_memorytype_t,
        usize,
        usize,
        usize,
        usize,
        *mut weft_linear_memory_t,
    ) -> Option<Box<weft_error_t>>,
    env: HostEnv,
}

// SAFETY: the host's contract (`weft/config.h`): each memory it makes
// reserves `reserved_size_in_bytes` and never moves within it.
unsafe impl weft::MemoryCreator for HostMemoryCreator {
    fn new_memory(
        &self,
        ty: weft::MemoryType,
        minimum: usize,
        maximum: Option<usize>,
        reserved_size_in_bytes: Option<usize>,
        guard_size_in_bytes: usize,
    ) -> Result<Box<dyn weft::LinearMemory>, String> {
        let cty = crate::types::wasm_externtype_t::new(&weft::ExternType::Memory(ty));
        let mut out = weft_linear_memory_t {
            env: std::ptr::null_mut(),
            get_memory: None,
            grow_memory: None,
            finalizer: None,
        };
        // SAFETY: the host's callback with its data, a type valid for the
        // call, and a writable out-parameter.
        let err = unsafe {
            (self.new_memory)(
                self.env.data(),
                &cty,
                minimum,
                maximum.unwrap_or(usize::MAX),
                reserved_size_in_bytes.unwrap_or(0),
                guard_size_in_bytes,
                &mut out,
            )
        };
        if let Some(e) = err {
            return Err(format!("the host's memory creator failed: {:#}", e.error));
        }
        let env = HostEnv::new(out.env, out.finalizer);
        let (Some(get), Some(grow)) = (out.get_memory, out.grow_memory) else {
            return Err("the host's memory creator gave a memory without get_memory or grow_memory".to_string());
        };
        Ok(Box::new(HostLinearMemory { get, grow, env }))
    }
}

/// Makes the engine's linear memories in memory the host's `creator` makes
/// (copied; its `env` is finalized with the configuration's engines).
///
/// # Safety
///
/// `creator` is null or points to a valid `weft_memory_creator_t`.
#[no_mangle]
pub unsafe extern "C" fn weft_config_host_memory_creator_set(
    config: Option<&mut wasm_config_t>,
    creator: *const weft_memory_creator_t,
) {
    guard(
        || (),
        || {
            if creator.is_null() {
                return;
            }
            // SAFETY: the caller's contract.
            let c = unsafe { &*creator };
            let env = HostEnv::new(c.env, c.finalizer);
            let (Some(config), Some(new_memory)) = (config, c.new_memory) else {
                return;
            };
            config
                .config
                .with_host_memory(std::sync::Arc::new(HostMemoryCreator { new_memory, env }));
        },
    )
}

/// `weft_pooling_allocation_config_t`: the limits of a pooling allocator.
pub struct weft_pooling_allocation_config_t {
    config: weft::PoolingAllocationConfig,
}

/// New limits, with Wasmtime's defaults.
#[no_mangle]
pub extern "C" fn weft_pooling_allocation_config_new() -> Option<Box<weft_pooling_allocation_config_t>> {
    guard(
        || None,
        || {
            Some(Box::new(weft_pooling_allocation_config_t {
                config: weft::PoolingAllocationConfig::new(),
            }))
        },
    )
}

/// Deletes limits.
#[no_mangle]
pub extern "C" fn weft_pooling_allocation_config_delete(config: Option<Box<weft_pooling_allocation_config_t>>) {
    guard(|| (), || drop(config))
}

macro_rules! pooling_props {
    ($($fn_name:ident => $method:ident: $ty:ty;)*) => {$(
        #[doc = concat!("Sets `", stringify!($method), "` of the pooling allocator's limits.")]
        #[no_mangle]
        pub extern "C" fn $fn_name(config: Option<&mut weft_pooling_allocation_config_t>, value: $ty) {
            guard(
                || (),
                || {
                    if let Some(c) = config {
                        c.config.$method(value);
                    }
                },
            )
        }
    )*};
}

pooling_props! {
    weft_pooling_allocation_config_max_unused_warm_slots_set => max_unused_warm_slots: u32;
    weft_pooling_allocation_config_decommit_batch_size_set => decommit_batch_size: usize;
    weft_pooling_allocation_config_async_stack_keep_resident_set => async_stack_keep_resident: usize;
    weft_pooling_allocation_config_linear_memory_keep_resident_set => linear_memory_keep_resident: usize;
    weft_pooling_allocation_config_table_keep_resident_set => table_keep_resident: usize;
    weft_pooling_allocation_config_total_component_instances_set => total_component_instances: u32;
    weft_pooling_allocation_config_max_component_instance_size_set => max_component_instance_size: usize;
    weft_pooling_allocation_config_max_core_instances_per_component_set => max_core_instances_per_component: u32;
    weft_pooling_allocation_config_max_memories_per_component_set => max_memories_per_component: u32;
    weft_pooling_allocation_config_max_tables_per_component_set => max_tables_per_component: u32;
    weft_pooling_allocation_config_total_memories_set => total_memories: u32;
    weft_pooling_allocation_config_total_tables_set => total_tables: u32;
    weft_pooling_allocation_config_total_stacks_set => total_stacks: u32;
    weft_pooling_allocation_config_total_core_instances_set => total_core_instances: u32;
    weft_pooling_allocation_config_max_core_instance_size_set => max_core_instance_size: usize;
    weft_pooling_allocation_config_max_tables_per_module_set => max_tables_per_module: u32;
    weft_pooling_allocation_config_table_elements_set => table_elements: usize;
    weft_pooling_allocation_config_max_memories_per_module_set => max_memories_per_module: u32;
    weft_pooling_allocation_config_max_memory_size_set => max_memory_size: usize;
    weft_pooling_allocation_config_total_gc_heaps_set => total_gc_heaps: u32;
}

/// Makes the engine allocate from a pool with `pc`'s limits (copied, not
/// taken).
#[no_mangle]
pub extern "C" fn weft_pooling_allocation_strategy_set(
    config: Option<&mut wasm_config_t>,
    pc: Option<&weft_pooling_allocation_config_t>,
) {
    guard(
        || (),
        || {
            if let (Some(c), Some(pc)) = (config, pc) {
                c.config.allocation_strategy(pc.config.clone());
            }
        },
    )
}

/// `weft_pooling_allocation_strategy_set` under the name the issue gives it.
#[no_mangle]
pub extern "C" fn weft_config_pooling_allocation_strategy_set(
    config: Option<&mut wasm_config_t>,
    pc: Option<&weft_pooling_allocation_config_t>,
) {
    weft_pooling_allocation_strategy_set(config, pc)
}

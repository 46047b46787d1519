//! `wasm_config_t` and `wasm_engine_t`, with `weft/config.h` and
//! `weft/engine.h`.

use crate::error::{err_ptr, weft_error_t};
use crate::guard;
use std::ffi::{c_char, CStr};
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
        weft_config_wasm_threads_set,
        wasm_threads,
        "The threads proposal: shared memories (across stores and threads) and atomics."
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
        weft_config_shared_memory_set,
        "Accepted and ignored: shared memories come with the threads proposal."
    ),
    (
        weft_config_wasm_gc_set,
        "The GC proposal: not supported by Weft; ignored."
    ),
    (
        weft_config_gc_support_set,
        "GC support: not supported by Weft; ignored."
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

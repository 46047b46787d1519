/**
 * \file weft/conf.h
 *
 * \brief The features libweft was built with (`WEFT_FEATURE_*`), as
 * Wasmtime's `wasmtime/conf.h` has them.
 *
 * Only the features Weft's C API offers are defined.
 */

#ifndef WEFT_CONF_H
#define WEFT_CONF_H

/// `weft_wat2wasm` and text modules.
#define WEFT_FEATURE_WAT
/// Parallel compilation.
#define WEFT_FEATURE_PARALLEL_COMPILATION
/// Cranelift, Weft's compiler.
#define WEFT_FEATURE_CRANELIFT
/// Any compiler: module compilation and validation.
#define WEFT_FEATURE_COMPILER

/// The component model: `weft/component.h`.
#define WEFT_FEATURE_COMPONENT_MODEL
/// The component model's async functions (`weft_component_func_call_async`, ...).
#define WEFT_FEATURE_COMPONENT_MODEL_ASYNC

/// Async calls and host functions: `weft/async.h`.
#define WEFT_FEATURE_ASYNC
/// GC references and types: `weft/anyref.h`, `eqref.h`, `structref.h`,
/// `arrayref.h`, `exnref.h`, `externref.h`, `weft/types/*.h`.
#define WEFT_FEATURE_GC
/// WASI: `wasi.h`, `weft_linker_define_wasi`, the WASI 0.2 component linkers.
#define WEFT_FEATURE_WASI
/// `wasi:http` for components (`weft_component_linker_add_wasi_http`, ...).
#define WEFT_FEATURE_WASI_HTTP
/// The guest profiler: `weft/profiling.h`.
#define WEFT_FEATURE_PROFILING
/// The pooling allocator (`weft_pooling_allocation_config_*`).
#define WEFT_FEATURE_POOLING_ALLOCATOR
/// Threads and shared memories: `weft/sharedmemory.h`.
#define WEFT_FEATURE_THREADS

// Not defined, because Weft does not do what they stand for: CACHE (no
// compilation cache: `weft_config_cache_config_load` fails), LOGGING and
// DISABLE_LOGGING, COREDUMP, ADDR2LINE, DEMANGLE, DEBUG_BUILTINS, GC_DRC and
// GC_NULL (Weft has its own collector), WINCH, PULLEY and ALL_ARCH.

#endif // WEFT_CONF_H

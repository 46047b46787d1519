/**
 * \file weft/config.h
 *
 * \brief Engine configuration: what Weft adds to `wasm_config_t`.
 *
 * Each setter changes the configuration in place; the configuration is
 * consumed by `wasm_engine_new_with_config`. A setter given a NULL
 * configuration does nothing. Options of Wasmtime that Weft has no use for
 * are accepted and ignored, as each one's documentation says.
 */

#ifndef WEFT_CONFIG_H
#define WEFT_CONFIG_H

#include <wasm.h>
#include <weft/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief The compiler (#weft_strategy_enum).
typedef uint8_t weft_strategy_t;

/// \brief The compilers. Weft has one, Cranelift.
enum weft_strategy_enum {
  /// The default: Cranelift.
  WEFT_STRATEGY_AUTO,
  /// Cranelift.
  WEFT_STRATEGY_CRANELIFT,
  /// Winch: not in Weft; Cranelift is used.
  WEFT_STRATEGY_WINCH,
};

/// \brief Cranelift's optimization level (#weft_opt_level_enum).
typedef uint8_t weft_opt_level_t;

/// \brief Optimization levels.
enum weft_opt_level_enum {
  /// No optimizations.
  WEFT_OPT_LEVEL_NONE,
  /// Optimize for speed (the default).
  WEFT_OPT_LEVEL_SPEED,
  /// Optimize for speed and size.
  WEFT_OPT_LEVEL_SPEED_AND_SIZE,
};

/// \brief The profiler (#weft_profiling_strategy_enum).
typedef uint8_t weft_profiling_strategy_t;

/// \brief Profilers. Weft supports none.
enum weft_profiling_strategy_enum {
  /// No profiler (the default).
  WEFT_PROFILING_STRATEGY_NONE,
  /// jitdump: not in Weft.
  WEFT_PROFILING_STRATEGY_JITDUMP,
  /// VTune: not in Weft.
  WEFT_PROFILING_STRATEGY_VTUNE,
  /// perf maps: not in Weft.
  WEFT_PROFILING_STRATEGY_PERFMAP,
};

/// \brief Cranelift's register allocator (#weft_regalloc_algorithm_enum).
typedef uint8_t weft_regalloc_algorithm_t;

/// \brief Register allocators.
enum weft_regalloc_algorithm_enum {
  /// The backtracking allocator (the default).
  WEFT_REGALLOC_BACKTRACKING,
  /// The single-pass allocator.
  WEFT_REGALLOC_SINGLE_PASS,
};

/**
 * \def WEFT_CONFIG_PROP(ret, name, ty)
 * \brief Declares the setter `weft_config_<name>_set`.
 */
#define WEFT_CONFIG_PROP(ret, name, ty) WASM_API_EXTERN ret weft_config_##name##_set(wasm_config_t *, ty);

/**
 * \fn void weft_config_debug_info_set(wasm_config_t *, bool)
 * \brief Whether to emit DWARF debug information for native debuggers. Weft emits none; ignored.
 */
WEFT_CONFIG_PROP(void, debug_info, bool)
/**
 * \fn void weft_config_consume_fuel_set(wasm_config_t *, bool)
 * \brief Whether wasm consumes fuel (default false): each operator costs fuel, and a store out of fuel traps with #WEFT_TRAP_CODE_OUT_OF_FUEL. Stores start with no fuel (see #weft_context_set_fuel).
 */
WEFT_CONFIG_PROP(void, consume_fuel, bool)
/**
 * \fn void weft_config_epoch_interruption_set(wasm_config_t *, bool)
 * \brief Whether wasm checks the store's epoch deadline (default false): when on, a store traps with #WEFT_TRAP_CODE_INTERRUPT at its deadline (see #weft_context_set_epoch_deadline).
 */
WEFT_CONFIG_PROP(void, epoch_interruption, bool)
/**
 * \fn void weft_config_wasm_threads_set(wasm_config_t *, bool)
 * \brief The threads proposal: shared memories (shared between stores and
 * threads, see weft/sharedmemory.h) and atomics. Default false.
 */
WEFT_CONFIG_PROP(void, wasm_threads, bool)
/**
 * \fn void weft_config_shared_memory_set(wasm_config_t *, bool)
 * \brief Accepted and ignored: shared memories (weft/sharedmemory.h) come
 * with the threads proposal (#weft_config_wasm_threads_set).
 */
WEFT_CONFIG_PROP(void, shared_memory, bool)
/**
 * \fn void weft_config_wasm_tail_call_set(wasm_config_t *, bool)
 * \brief The tail-call proposal (default on in Weft).
 */
WEFT_CONFIG_PROP(void, wasm_tail_call, bool)
/**
 * \fn void weft_config_wasm_reference_types_set(wasm_config_t *, bool)
 * \brief The reference-types proposal (default on).
 */
WEFT_CONFIG_PROP(void, wasm_reference_types, bool)
/**
 * \fn void weft_config_wasm_function_references_set(wasm_config_t *, bool)
 * \brief The typed function references proposal (default on in Weft).
 */
WEFT_CONFIG_PROP(void, wasm_function_references, bool)
/**
 * \fn void weft_config_wasm_gc_set(wasm_config_t *, bool)
 * \brief The GC proposal. Not supported by Weft; ignored.
 */
WEFT_CONFIG_PROP(void, wasm_gc, bool)
/**
 * \fn void weft_config_gc_support_set(wasm_config_t *, bool)
 * \brief Support for GC types at run time. Not supported by Weft; ignored.
 */
WEFT_CONFIG_PROP(void, gc_support, bool)
/**
 * \fn void weft_config_wasm_simd_set(wasm_config_t *, bool)
 * \brief The SIMD proposal (default on).
 */
WEFT_CONFIG_PROP(void, wasm_simd, bool)
/**
 * \fn void weft_config_wasm_relaxed_simd_set(wasm_config_t *, bool)
 * \brief The relaxed-SIMD proposal (default on in Weft).
 */
WEFT_CONFIG_PROP(void, wasm_relaxed_simd, bool)
/**
 * \fn void weft_config_wasm_relaxed_simd_deterministic_set(wasm_config_t *, bool)
 * \brief Whether relaxed SIMD gives the same results on every machine (default false).
 */
WEFT_CONFIG_PROP(void, wasm_relaxed_simd_deterministic, bool)
/**
 * \fn void weft_config_wasm_bulk_memory_set(wasm_config_t *, bool)
 * \brief The bulk-memory proposal (default on).
 */
WEFT_CONFIG_PROP(void, wasm_bulk_memory, bool)
/**
 * \fn void weft_config_wasm_multi_value_set(wasm_config_t *, bool)
 * \brief The multi-value proposal (default on).
 */
WEFT_CONFIG_PROP(void, wasm_multi_value, bool)
/**
 * \fn void weft_config_wasm_multi_memory_set(wasm_config_t *, bool)
 * \brief The multi-memory proposal (default on in Weft).
 */
WEFT_CONFIG_PROP(void, wasm_multi_memory, bool)
/**
 * \fn void weft_config_wasm_memory64_set(wasm_config_t *, bool)
 * \brief The memory64 proposal (default on in Weft).
 */
WEFT_CONFIG_PROP(void, wasm_memory64, bool)
/**
 * \fn void weft_config_wasm_wide_arithmetic_set(wasm_config_t *, bool)
 * \brief The wide-arithmetic proposal. Default false.
 */
WEFT_CONFIG_PROP(void, wasm_wide_arithmetic, bool)
/**
 * \fn void weft_config_wasm_branch_hinting_set(wasm_config_t *, bool)
 * \brief Branch hints. Weft accepts and ignores them; ignored.
 */
WEFT_CONFIG_PROP(void, wasm_branch_hinting, bool)
/**
 * \fn void weft_config_wasm_exceptions_set(wasm_config_t *, bool)
 * \brief The exception-handling proposal (default on in Weft).
 */
WEFT_CONFIG_PROP(void, wasm_exceptions, bool)
/**
 * \fn void weft_config_wasm_custom_page_sizes_set(wasm_config_t *, bool)
 * \brief Custom page sizes: memories of 1-byte pages. Default false.
 */
WEFT_CONFIG_PROP(void, wasm_custom_page_sizes, bool)
/**
 * \fn void weft_config_wasm_stack_switching_set(wasm_config_t *, bool)
 * \brief Stack switching. Not supported by Weft; ignored.
 */
WEFT_CONFIG_PROP(void, wasm_stack_switching, bool)
/**
 * \fn void weft_config_parallel_compilation_set(wasm_config_t *, bool)
 * \brief Whether functions compile in parallel (default true).
 */
WEFT_CONFIG_PROP(void, parallel_compilation, bool)
/**
 * \fn void weft_config_cranelift_debug_verifier_set(wasm_config_t *, bool)
 * \brief Cranelift's IR verifier. Ignored by Weft.
 */
WEFT_CONFIG_PROP(void, cranelift_debug_verifier, bool)
/**
 * \fn void weft_config_cranelift_nan_canonicalization_set(wasm_config_t *, bool)
 * \brief NaN canonicalization. Ignored by Weft.
 */
WEFT_CONFIG_PROP(void, cranelift_nan_canonicalization, bool)
/**
 * \fn void weft_config_memory_may_move_set(wasm_config_t *, bool)
 * \brief Whether linear memories may move when they grow. Weft's never move; ignored.
 */
WEFT_CONFIG_PROP(void, memory_may_move, bool)
/**
 * \fn void weft_config_native_unwind_info_set(wasm_config_t *, bool)
 * \brief Native unwind information. Ignored by Weft.
 */
WEFT_CONFIG_PROP(void, native_unwind_info, bool)
/**
 * \fn void weft_config_macos_use_mach_ports_set(wasm_config_t *, bool)
 * \brief Mach ports for traps on macOS. Ignored by Weft.
 */
WEFT_CONFIG_PROP(void, macos_use_mach_ports, bool)
/**
 * \fn void weft_config_signals_based_traps_set(wasm_config_t *, bool)
 * \brief Signal-based traps. Weft always uses them; ignored.
 */
WEFT_CONFIG_PROP(void, signals_based_traps, bool)
/**
 * \fn void weft_config_memory_init_cow_set(wasm_config_t *, bool)
 * \brief Copy-on-write initialization of memories. Weft uses it where it can; ignored.
 */
WEFT_CONFIG_PROP(void, memory_init_cow, bool)
/**
 * \fn void weft_config_wasm_component_model_set(wasm_config_t *, bool)
 * \brief The component model (default on). Weft's C API has no component functions yet.
 */
WEFT_CONFIG_PROP(void, wasm_component_model, bool)
/**
 * \fn void weft_config_concurrency_support_set(wasm_config_t *, bool)
 * \brief Concurrency support of the component model. Always on in Weft; ignored.
 */
WEFT_CONFIG_PROP(void, concurrency_support, bool)
/**
 * \fn void weft_config_wasm_component_model_map_set(wasm_config_t *, bool)
 * \brief Component `map` types. Always on in Weft; ignored.
 */
WEFT_CONFIG_PROP(void, wasm_component_model_map, bool)
/**
 * \fn void weft_config_wasm_component_model_async_set(wasm_config_t *, bool)
 * \brief The component model's async ABI (default on).
 */
WEFT_CONFIG_PROP(void, wasm_component_model_async, bool)
/**
 * \fn void weft_config_wasm_component_model_more_async_builtins_set(wasm_config_t *, bool)
 * \brief More async built-ins of the component model (default off).
 */
WEFT_CONFIG_PROP(void, wasm_component_model_more_async_builtins, bool)
/**
 * \fn void weft_config_wasm_component_model_async_builtins_set(wasm_config_t *, bool)
 * \brief The older name of #weft_config_wasm_component_model_more_async_builtins_set.
 */
WEFT_CONFIG_PROP(void, wasm_component_model_async_builtins, bool)
/**
 * \fn void weft_config_wasm_component_model_async_stackful_set(wasm_config_t *, bool)
 * \brief Stackful async lifts of the component model (default off).
 */
WEFT_CONFIG_PROP(void, wasm_component_model_async_stackful, bool)
/**
 * \fn void weft_config_max_wasm_stack_set(wasm_config_t *, size_t)
 * \brief The most stack wasm may use, in bytes (default 2 MiB); past it,
 * wasm traps with #WEFT_TRAP_CODE_STACK_OVERFLOW.
 */
WEFT_CONFIG_PROP(void, max_wasm_stack, size_t)

/**
 * \fn void weft_config_async_support_set(wasm_config_t *, bool)
 * \brief Async support (the functions of weft/async.h): always available
 * in Weft, so this changes nothing; accepted for programs written for
 * Wasmtime versions that had it.
 */
WEFT_CONFIG_PROP(void, async_support, bool)

/**
 * \fn void weft_config_async_stack_size_set(wasm_config_t *, size_t)
 * \brief The size of the stacks of async calls, in bytes (default 2 MiB;
 * at least the wasm stack).
 */
WEFT_CONFIG_PROP(void, async_stack_size, size_t)

/**
 * \fn void weft_config_strategy_set(wasm_config_t *, weft_strategy_t)
 * \brief The compiler: Weft always uses Cranelift.
 */
WEFT_CONFIG_PROP(void, strategy, weft_strategy_t)

/**
 * \fn void weft_config_cranelift_opt_level_set(wasm_config_t *, weft_opt_level_t)
 * \brief Cranelift's optimization level (default #WEFT_OPT_LEVEL_SPEED).
 */
WEFT_CONFIG_PROP(void, cranelift_opt_level, weft_opt_level_t)

/**
 * \fn void weft_config_cranelift_regalloc_algorithm_set(wasm_config_t *, weft_regalloc_algorithm_t)
 * \brief Cranelift's register allocator. Ignored by Weft.
 */
WEFT_CONFIG_PROP(void, cranelift_regalloc_algorithm, weft_regalloc_algorithm_t)

/**
 * \fn void weft_config_profiler_set(wasm_config_t *, weft_profiling_strategy_t)
 * \brief The profiler. Weft has none; ignored.
 */
WEFT_CONFIG_PROP(void, profiler, weft_profiling_strategy_t)

/**
 * \fn void weft_config_memory_reservation_set(wasm_config_t *, uint64_t)
 * \brief The address space reserved per memory. Weft's is fixed; ignored.
 */
WEFT_CONFIG_PROP(void, memory_reservation, uint64_t)

/**
 * \fn void weft_config_memory_guard_size_set(wasm_config_t *, uint64_t)
 * \brief The guard region after each memory. Weft's is fixed; ignored.
 */
WEFT_CONFIG_PROP(void, memory_guard_size, uint64_t)

/**
 * \fn void weft_config_memory_reservation_for_growth_set(wasm_config_t *, uint64_t)
 * \brief Extra reservation for growth. Ignored by Weft.
 */
WEFT_CONFIG_PROP(void, memory_reservation_for_growth, uint64_t)

/**
 * \brief Loads a compilation cache configuration. Weft has no cache, so
 * this always returns an error.
 */
WASM_API_EXTERN weft_error_t *weft_config_cache_config_load(wasm_config_t *, const char *);

/**
 * \brief The target triple to compile for. Weft compiles for the host only:
 * a triple of another architecture is an error.
 */
WASM_API_EXTERN weft_error_t *weft_config_target_set(wasm_config_t *, const char *);

/// \brief Enables a Cranelift flag. Ignored by Weft.
WASM_API_EXTERN void weft_config_cranelift_flag_enable(wasm_config_t *, const char *);

/// \brief Sets a Cranelift flag. Ignored by Weft.
WASM_API_EXTERN void weft_config_cranelift_flag_set(wasm_config_t *, const char *key, const char *value);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_CONFIG_H

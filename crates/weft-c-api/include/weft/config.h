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
 * threads, see weft/sharedmemory.h) and atomics. Default true, as in
 * Wasmtime; making shared memories also needs
 * #weft_config_shared_memory_set.
 */
WEFT_CONFIG_PROP(void, wasm_threads, bool)
/**
 * \fn void weft_config_shared_memory_set(wasm_config_t *, bool)
 * \brief Whether shared memories may be made: #weft_sharedmemory_new and
 * the shared memories modules define, at instantiation (default false, as
 * in Wasmtime). Without it both fail with an error naming
 * `Config::shared_memory`.
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
 * \brief The GC proposal: struct and array types, `i31ref` and the `any`
 * hierarchy (default off). See `weft/anyref.h`, `weft/structref.h` and
 * `weft/arrayref.h` for its references from C.
 */
WEFT_CONFIG_PROP(void, wasm_gc, bool)
/**
 * \fn void weft_config_gc_support_set(wasm_config_t *, bool)
 * \brief Support for GC types at run time: always there in Weft (a store's
 * GC heap is made on first use); ignored.
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
 * \fn void weft_config_wasm_custom_descriptors_set(wasm_config_t *, bool)
 * \brief The custom descriptors proposal, in part: exact reference types
 * and struct descriptors. Needs the GC proposal. Default false.
 */
WEFT_CONFIG_PROP(void, wasm_custom_descriptors, bool)
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

/**
 * \brief Gives the base of a host memory, and sets `*byte_size` to its
 * accessible size and `*byte_capacity` to the size it may grow to without
 * moving.
 */
typedef uint8_t *(*weft_memory_get_callback_t)(void *env, size_t *byte_size, size_t *byte_capacity);

/**
 * \brief Grows a host memory to `new_size` bytes (the new bytes zeroed), or
 * returns an error (the wasm `memory.grow` then returns -1).
 */
typedef weft_error_t *(*weft_memory_grow_callback_t)(void *env, size_t new_size);

/**
 * \brief A linear memory's memory, made by a #weft_memory_creator_t (owned
 * by Weft once given).
 *
 * Its base and size (from `get_memory`) must stay readable and writable
 * until `finalizer` runs, and the base must never move while the memory
 * grows within the reservation it was made with.
 */
typedef struct weft_linear_memory {
  /// The data passed to the callbacks.
  void *env;
  /// Gives the base, size and capacity.
  weft_memory_get_callback_t get_memory;
  /// Grows the memory.
  weft_memory_grow_callback_t grow_memory;
  /// Frees `env` and the memory when the linear memory is dropped (may be NULL).
  void (*finalizer)(void *);
} weft_linear_memory_t;

/**
 * \brief Makes the memory of a linear memory of type `ty` (borrowed for the
 * call): `minimum` bytes accessible, growing to at most `maximum` bytes
 * (`SIZE_MAX`: no maximum), reserving `reserved_size_in_bytes` bytes
 * (0: none asked) it never moves within, followed by `guard_size_in_bytes`
 * inaccessible bytes (Weft asks for none, and checks every access's
 * bounds). Fills `*memory_ret` or returns an error. Must be thread-safe.
 */
typedef weft_error_t *(*weft_new_memory_callback_t)(void *env, const wasm_memorytype_t *ty, size_t minimum,
                                                    size_t maximum, size_t reserved_size_in_bytes,
                                                    size_t guard_size_in_bytes, weft_linear_memory_t *memory_ret);

/// \brief A maker of linear memories' memory.
typedef struct weft_memory_creator {
  /// The data passed to `new_memory`.
  void *env;
  /// Makes a memory.
  weft_new_memory_callback_t new_memory;
  /// Called once when the engines using the creator are gone (may be NULL).
  void (*finalizer)(void *);
} weft_memory_creator_t;

/**
 * \brief Makes every non-shared linear memory of the engine's stores in
 * memory `creator` makes (the struct is copied; its `env` is owned by the
 * configuration from now on). Code the engine compiles then checks the
 * bounds of every memory access.
 */
WASM_API_EXTERN void weft_config_host_memory_creator_set(wasm_config_t *, weft_memory_creator_t *);

/**
 * \brief The limits of the pooling allocator (owned by the caller; delete
 * with #weft_pooling_allocation_config_delete).
 *
 * With the pooling strategy an engine keeps one pool for all its stores:
 * each linear memory takes a slot (a reservation made once and reused after
 * the store holding it is deleted, reset to zeros in between), and core
 * instances, memories and tables are counted against the pool's totals;
 * going past a limit fails the instantiation with an error naming it.
 */
typedef struct weft_pooling_allocation_config_t weft_pooling_allocation_config_t;

/// \brief New limits, with Wasmtime's defaults.
WASM_API_EXTERN weft_pooling_allocation_config_t *weft_pooling_allocation_config_new(void);

/// \brief Deletes limits.
WASM_API_EXTERN void weft_pooling_allocation_config_delete(weft_pooling_allocation_config_t *);

/**
 * \def WEFT_POOLING_ALLOCATION_CONFIG_PROP(name, ty)
 * \brief Declares `weft_pooling_allocation_config_<name>_set`.
 */
#define WEFT_POOLING_ALLOCATION_CONFIG_PROP(name, ty)                                                                 \
  WASM_API_EXTERN void weft_pooling_allocation_config_##name##_set(weft_pooling_allocation_config_t *, ty);

/**
 * \fn void weft_pooling_allocation_config_max_unused_warm_slots_set(weft_pooling_allocation_config_t *, uint32_t)
 * \brief Unused memory slots kept warm (default 100; accepted, Weft resets every slot given back).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(max_unused_warm_slots, uint32_t)

/**
 * \fn void weft_pooling_allocation_config_decommit_batch_size_set(weft_pooling_allocation_config_t *, size_t)
 * \brief Slots decommitted together (default 1; accepted, no effect).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(decommit_batch_size, size_t)

/**
 * \fn void weft_pooling_allocation_config_async_stack_keep_resident_set(weft_pooling_allocation_config_t *, size_t)
 * \brief Bytes of an async stack kept resident (default 0; accepted, no effect).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(async_stack_keep_resident, size_t)

/**
 * \fn void weft_pooling_allocation_config_linear_memory_keep_resident_set(weft_pooling_allocation_config_t *, size_t)
 * \brief Bytes of a memory slot kept resident (default 0; accepted, no effect).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(linear_memory_keep_resident, size_t)

/**
 * \fn void weft_pooling_allocation_config_table_keep_resident_set(weft_pooling_allocation_config_t *, size_t)
 * \brief Bytes of a table kept resident (default 0; accepted, no effect).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(table_keep_resident, size_t)

/**
 * \fn void weft_pooling_allocation_config_total_component_instances_set(weft_pooling_allocation_config_t *, uint32_t)
 * \brief Component instances live at once in all the engine's stores (default 1000).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(total_component_instances, uint32_t)

/**
 * \fn void weft_pooling_allocation_config_max_component_instance_size_set(weft_pooling_allocation_config_t *, size_t)
 * \brief The most bytes of a component instance's state (default 1 MiB; accepted, not enforced yet).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(max_component_instance_size, size_t)

/**
 * \fn void weft_pooling_allocation_config_max_core_instances_per_component_set(weft_pooling_allocation_config_t *, uint32_t)
 * \brief Core instances of one component (default unlimited; accepted, not enforced yet).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(max_core_instances_per_component, uint32_t)

/**
 * \fn void weft_pooling_allocation_config_max_memories_per_component_set(weft_pooling_allocation_config_t *, uint32_t)
 * \brief Memories of one component (default unlimited; accepted, not enforced yet).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(max_memories_per_component, uint32_t)

/**
 * \fn void weft_pooling_allocation_config_max_tables_per_component_set(weft_pooling_allocation_config_t *, uint32_t)
 * \brief Tables of one component (default unlimited; accepted, not enforced yet).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(max_tables_per_component, uint32_t)

/**
 * \fn void weft_pooling_allocation_config_total_memories_set(weft_pooling_allocation_config_t *, uint32_t)
 * \brief Linear memories live at once in all the engine's stores, and the most memory slots reserved (default 1000).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(total_memories, uint32_t)

/**
 * \fn void weft_pooling_allocation_config_total_tables_set(weft_pooling_allocation_config_t *, uint32_t)
 * \brief Tables of instances live at once (default 1000).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(total_tables, uint32_t)

/**
 * \fn void weft_pooling_allocation_config_total_stacks_set(weft_pooling_allocation_config_t *, uint32_t)
 * \brief Async stacks lent at once (default 1000): an async call started past it fails.
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(total_stacks, uint32_t)

/**
 * \fn void weft_pooling_allocation_config_total_core_instances_set(weft_pooling_allocation_config_t *, uint32_t)
 * \brief Core instances live at once in all the engine's stores (default 1000).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(total_core_instances, uint32_t)

/**
 * \fn void weft_pooling_allocation_config_max_core_instance_size_set(weft_pooling_allocation_config_t *, size_t)
 * \brief The most bytes of a core instance's state (default 1 MiB).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(max_core_instance_size, size_t)

/**
 * \fn void weft_pooling_allocation_config_max_tables_per_module_set(weft_pooling_allocation_config_t *, uint32_t)
 * \brief Tables one module may define (default 1).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(max_tables_per_module, uint32_t)

/**
 * \fn void weft_pooling_allocation_config_table_elements_set(weft_pooling_allocation_config_t *, size_t)
 * \brief The most elements of a table, initially and by growing (default 20000).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(table_elements, size_t)

/**
 * \fn void weft_pooling_allocation_config_max_memories_per_module_set(weft_pooling_allocation_config_t *, uint32_t)
 * \brief Memories one module may define (default 1).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(max_memories_per_module, uint32_t)

/**
 * \fn void weft_pooling_allocation_config_max_memory_size_set(weft_pooling_allocation_config_t *, size_t)
 * \brief The most bytes of a linear memory, initially and by growing (default 4 GiB).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(max_memory_size, size_t)

/**
 * \fn void weft_pooling_allocation_config_total_gc_heaps_set(weft_pooling_allocation_config_t *, uint32_t)
 * \brief GC heaps (default 1000; accepted, Weft's GC heaps are not pooled).
 */
WEFT_POOLING_ALLOCATION_CONFIG_PROP(total_gc_heaps, uint32_t)

/**
 * \brief Makes the engine allocate instances, memories and tables from a
 * pool with the limits `pc` (copied, not taken).
 */
WASM_API_EXTERN void weft_pooling_allocation_strategy_set(wasm_config_t *, const weft_pooling_allocation_config_t *pc);

/// \brief #weft_pooling_allocation_strategy_set under the name issue 16 gives it.
WASM_API_EXTERN void weft_config_pooling_allocation_strategy_set(wasm_config_t *,
                                                                 const weft_pooling_allocation_config_t *pc);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_CONFIG_H

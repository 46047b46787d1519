/**
 * \file weft/config.hh
 *
 * \brief C++ API: `Config`, `PoolAllocationConfig` and the enums of the
 * configuration (as Wasmtime 48's `wasmtime/config.hh`).
 */

#ifndef WEFT_CONFIG_HH
#define WEFT_CONFIG_HH

#include <weft/error.hh>

namespace weft {

/// The compiler (#weft_strategy_t).
enum class Strategy : uint8_t {
  /// The default.
  Auto = WEFT_STRATEGY_AUTO,
  /// Cranelift.
  Cranelift = WEFT_STRATEGY_CRANELIFT,
  /// Winch.
  Winch = WEFT_STRATEGY_WINCH,
};

/// Cranelift's optimization level (#weft_opt_level_t).
enum class OptLevel : uint8_t {
  /// No optimization.
  None = WEFT_OPT_LEVEL_NONE,
  /// For speed.
  Speed = WEFT_OPT_LEVEL_SPEED,
  /// For speed and size.
  SpeedAndSize = WEFT_OPT_LEVEL_SPEED_AND_SIZE,
};

/// The profiler (#weft_profiling_strategy_t).
enum class ProfilingStrategy : uint8_t {
  /// None.
  None = WEFT_PROFILING_STRATEGY_NONE,
  /// `perf`'s jitdump files.
  Jitdump = WEFT_PROFILING_STRATEGY_JITDUMP,
  /// VTune.
  Vtune = WEFT_PROFILING_STRATEGY_VTUNE,
  /// `perf`'s map files.
  Perfmap = WEFT_PROFILING_STRATEGY_PERFMAP,
};

/// Cranelift's register allocator (#weft_regalloc_algorithm_t).
enum class RegallocAlgorithm : uint8_t {
  /// Backtracking.
  Backtracking = WEFT_REGALLOC_BACKTRACKING,
  /// Single pass.
  SinglePass = WEFT_REGALLOC_SINGLE_PASS,
};

/// The limits of the pooling allocator (see `weft/config.h`).
class PoolAllocationConfig {
  friend class Config;
  struct Deleter {
    void operator()(weft_pooling_allocation_config_t *c) const { weft_pooling_allocation_config_delete(c); }
  };
  std::unique_ptr<weft_pooling_allocation_config_t, Deleter> ptr;

public:
  /// The default limits.
  PoolAllocationConfig() : ptr(weft_pooling_allocation_config_new()) {}
  /// Sets `max_unused_warm_slots` (see #weft_pooling_allocation_config_max_unused_warm_slots_set).
  void max_unused_warm_slots(uint32_t value) { weft_pooling_allocation_config_max_unused_warm_slots_set(ptr.get(), value); }
  /// Sets `decommit_batch_size` (see #weft_pooling_allocation_config_decommit_batch_size_set).
  void decommit_batch_size(size_t value) { weft_pooling_allocation_config_decommit_batch_size_set(ptr.get(), value); }
  /// Sets `async_stack_keep_resident` (see #weft_pooling_allocation_config_async_stack_keep_resident_set).
  void async_stack_keep_resident(size_t value) { weft_pooling_allocation_config_async_stack_keep_resident_set(ptr.get(), value); }
  /// Sets `linear_memory_keep_resident` (see #weft_pooling_allocation_config_linear_memory_keep_resident_set).
  void linear_memory_keep_resident(size_t value) { weft_pooling_allocation_config_linear_memory_keep_resident_set(ptr.get(), value); }
  /// Sets `table_keep_resident` (see #weft_pooling_allocation_config_table_keep_resident_set).
  void table_keep_resident(size_t value) { weft_pooling_allocation_config_table_keep_resident_set(ptr.get(), value); }
  /// Sets `total_component_instances` (see #weft_pooling_allocation_config_total_component_instances_set).
  void total_component_instances(uint32_t value) { weft_pooling_allocation_config_total_component_instances_set(ptr.get(), value); }
  /// Sets `max_component_instance_size` (see #weft_pooling_allocation_config_max_component_instance_size_set).
  void max_component_instance_size(size_t value) { weft_pooling_allocation_config_max_component_instance_size_set(ptr.get(), value); }
  /// Sets `max_core_instances_per_component` (see #weft_pooling_allocation_config_max_core_instances_per_component_set).
  void max_core_instances_per_component(uint32_t value) { weft_pooling_allocation_config_max_core_instances_per_component_set(ptr.get(), value); }
  /// Sets `max_memories_per_component` (see #weft_pooling_allocation_config_max_memories_per_component_set).
  void max_memories_per_component(uint32_t value) { weft_pooling_allocation_config_max_memories_per_component_set(ptr.get(), value); }
  /// Sets `max_tables_per_component` (see #weft_pooling_allocation_config_max_tables_per_component_set).
  void max_tables_per_component(uint32_t value) { weft_pooling_allocation_config_max_tables_per_component_set(ptr.get(), value); }
  /// Sets `total_memories` (see #weft_pooling_allocation_config_total_memories_set).
  void total_memories(uint32_t value) { weft_pooling_allocation_config_total_memories_set(ptr.get(), value); }
  /// Sets `total_tables` (see #weft_pooling_allocation_config_total_tables_set).
  void total_tables(uint32_t value) { weft_pooling_allocation_config_total_tables_set(ptr.get(), value); }
  /// Sets `total_stacks` (see #weft_pooling_allocation_config_total_stacks_set).
  void total_stacks(uint32_t value) { weft_pooling_allocation_config_total_stacks_set(ptr.get(), value); }
  /// Sets `total_core_instances` (see #weft_pooling_allocation_config_total_core_instances_set).
  void total_core_instances(uint32_t value) { weft_pooling_allocation_config_total_core_instances_set(ptr.get(), value); }
  /// Sets `max_core_instance_size` (see #weft_pooling_allocation_config_max_core_instance_size_set).
  void max_core_instance_size(size_t value) { weft_pooling_allocation_config_max_core_instance_size_set(ptr.get(), value); }
  /// Sets `max_tables_per_module` (see #weft_pooling_allocation_config_max_tables_per_module_set).
  void max_tables_per_module(uint32_t value) { weft_pooling_allocation_config_max_tables_per_module_set(ptr.get(), value); }
  /// Sets `table_elements` (see #weft_pooling_allocation_config_table_elements_set).
  void table_elements(size_t value) { weft_pooling_allocation_config_table_elements_set(ptr.get(), value); }
  /// Sets `max_memories_per_module` (see #weft_pooling_allocation_config_max_memories_per_module_set).
  void max_memories_per_module(uint32_t value) { weft_pooling_allocation_config_max_memories_per_module_set(ptr.get(), value); }
  /// Sets `max_memory_size` (see #weft_pooling_allocation_config_max_memory_size_set).
  void max_memory_size(size_t value) { weft_pooling_allocation_config_max_memory_size_set(ptr.get(), value); }
  /// Sets `total_gc_heaps` (see #weft_pooling_allocation_config_total_gc_heaps_set).
  void total_gc_heaps(uint32_t value) { weft_pooling_allocation_config_total_gc_heaps_set(ptr.get(), value); }
  /// The C object.
  weft_pooling_allocation_config_t *capi() const { return ptr.get(); }
};

/// An engine configuration (consumed by `Engine`).
class Config {
  friend class Engine;
  struct Deleter {
    void operator()(wasm_config_t *c) const { wasm_config_delete(c); }
  };
  std::unique_ptr<wasm_config_t, Deleter> ptr;

public:
  /// The default configuration.
  Config() : ptr(wasm_config_new()) {}
  /// Sets `debug_info` (see #weft_config_debug_info_set).
  void debug_info(bool value) { weft_config_debug_info_set(ptr.get(), value); }
  /// Sets `consume_fuel` (see #weft_config_consume_fuel_set).
  void consume_fuel(bool value) { weft_config_consume_fuel_set(ptr.get(), value); }
  /// Sets `epoch_interruption` (see #weft_config_epoch_interruption_set).
  void epoch_interruption(bool value) { weft_config_epoch_interruption_set(ptr.get(), value); }
  /// Sets `wasm_threads` (see #weft_config_wasm_threads_set).
  void wasm_threads(bool value) { weft_config_wasm_threads_set(ptr.get(), value); }
  /// Sets `shared_memory` (see #weft_config_shared_memory_set).
  void shared_memory(bool value) { weft_config_shared_memory_set(ptr.get(), value); }
  /// Sets `wasm_tail_call` (see #weft_config_wasm_tail_call_set).
  void wasm_tail_call(bool value) { weft_config_wasm_tail_call_set(ptr.get(), value); }
  /// Sets `wasm_reference_types` (see #weft_config_wasm_reference_types_set).
  void wasm_reference_types(bool value) { weft_config_wasm_reference_types_set(ptr.get(), value); }
  /// Sets `wasm_function_references` (see #weft_config_wasm_function_references_set).
  void wasm_function_references(bool value) { weft_config_wasm_function_references_set(ptr.get(), value); }
  /// Sets `wasm_gc` (see #weft_config_wasm_gc_set).
  void wasm_gc(bool value) { weft_config_wasm_gc_set(ptr.get(), value); }
  /// Sets `gc_support` (see #weft_config_gc_support_set).
  void gc_support(bool value) { weft_config_gc_support_set(ptr.get(), value); }
  /// Sets `wasm_simd` (see #weft_config_wasm_simd_set).
  void wasm_simd(bool value) { weft_config_wasm_simd_set(ptr.get(), value); }
  /// Sets `wasm_relaxed_simd` (see #weft_config_wasm_relaxed_simd_set).
  void wasm_relaxed_simd(bool value) { weft_config_wasm_relaxed_simd_set(ptr.get(), value); }
  /// Sets `wasm_relaxed_simd_deterministic` (see #weft_config_wasm_relaxed_simd_deterministic_set).
  void wasm_relaxed_simd_deterministic(bool value) { weft_config_wasm_relaxed_simd_deterministic_set(ptr.get(), value); }
  /// Sets `wasm_bulk_memory` (see #weft_config_wasm_bulk_memory_set).
  void wasm_bulk_memory(bool value) { weft_config_wasm_bulk_memory_set(ptr.get(), value); }
  /// Sets `wasm_multi_value` (see #weft_config_wasm_multi_value_set).
  void wasm_multi_value(bool value) { weft_config_wasm_multi_value_set(ptr.get(), value); }
  /// Sets `wasm_multi_memory` (see #weft_config_wasm_multi_memory_set).
  void wasm_multi_memory(bool value) { weft_config_wasm_multi_memory_set(ptr.get(), value); }
  /// Sets `wasm_memory64` (see #weft_config_wasm_memory64_set).
  void wasm_memory64(bool value) { weft_config_wasm_memory64_set(ptr.get(), value); }
  /// Sets `wasm_wide_arithmetic` (see #weft_config_wasm_wide_arithmetic_set).
  void wasm_wide_arithmetic(bool value) { weft_config_wasm_wide_arithmetic_set(ptr.get(), value); }
  /// Sets `wasm_branch_hinting` (see #weft_config_wasm_branch_hinting_set).
  void wasm_branch_hinting(bool value) { weft_config_wasm_branch_hinting_set(ptr.get(), value); }
  /// Sets `wasm_exceptions` (see #weft_config_wasm_exceptions_set).
  void wasm_exceptions(bool value) { weft_config_wasm_exceptions_set(ptr.get(), value); }
  /// Sets `wasm_custom_page_sizes` (see #weft_config_wasm_custom_page_sizes_set).
  void wasm_custom_page_sizes(bool value) { weft_config_wasm_custom_page_sizes_set(ptr.get(), value); }
  /// Sets `wasm_custom_descriptors` (see #weft_config_wasm_custom_descriptors_set).
  void wasm_custom_descriptors(bool value) { weft_config_wasm_custom_descriptors_set(ptr.get(), value); }
  /// Sets `wasm_stack_switching` (see #weft_config_wasm_stack_switching_set).
  void wasm_stack_switching(bool value) { weft_config_wasm_stack_switching_set(ptr.get(), value); }
  /// Sets `parallel_compilation` (see #weft_config_parallel_compilation_set).
  void parallel_compilation(bool value) { weft_config_parallel_compilation_set(ptr.get(), value); }
  /// Sets `cranelift_debug_verifier` (see #weft_config_cranelift_debug_verifier_set).
  void cranelift_debug_verifier(bool value) { weft_config_cranelift_debug_verifier_set(ptr.get(), value); }
  /// Sets `cranelift_nan_canonicalization` (see #weft_config_cranelift_nan_canonicalization_set).
  void cranelift_nan_canonicalization(bool value) { weft_config_cranelift_nan_canonicalization_set(ptr.get(), value); }
  /// Sets `memory_may_move` (see #weft_config_memory_may_move_set).
  void memory_may_move(bool value) { weft_config_memory_may_move_set(ptr.get(), value); }
  /// Sets `native_unwind_info` (see #weft_config_native_unwind_info_set).
  void native_unwind_info(bool value) { weft_config_native_unwind_info_set(ptr.get(), value); }
  /// Sets `macos_use_mach_ports` (see #weft_config_macos_use_mach_ports_set).
  void macos_use_mach_ports(bool value) { weft_config_macos_use_mach_ports_set(ptr.get(), value); }
  /// Sets `signals_based_traps` (see #weft_config_signals_based_traps_set).
  void signals_based_traps(bool value) { weft_config_signals_based_traps_set(ptr.get(), value); }
  /// Sets `memory_init_cow` (see #weft_config_memory_init_cow_set).
  void memory_init_cow(bool value) { weft_config_memory_init_cow_set(ptr.get(), value); }
  /// Sets `wasm_component_model` (see #weft_config_wasm_component_model_set).
  void wasm_component_model(bool value) { weft_config_wasm_component_model_set(ptr.get(), value); }
  /// Sets `concurrency_support` (see #weft_config_concurrency_support_set).
  void concurrency_support(bool value) { weft_config_concurrency_support_set(ptr.get(), value); }
  /// Sets `wasm_component_model_map` (see #weft_config_wasm_component_model_map_set).
  void wasm_component_model_map(bool value) { weft_config_wasm_component_model_map_set(ptr.get(), value); }
  /// Sets `wasm_component_model_async` (see #weft_config_wasm_component_model_async_set).
  void wasm_component_model_async(bool value) { weft_config_wasm_component_model_async_set(ptr.get(), value); }
  /// Sets `wasm_component_model_more_async_builtins` (see #weft_config_wasm_component_model_more_async_builtins_set).
  void wasm_component_model_more_async_builtins(bool value) { weft_config_wasm_component_model_more_async_builtins_set(ptr.get(), value); }
  /// Sets `wasm_component_model_async_builtins` (see #weft_config_wasm_component_model_async_builtins_set).
  void wasm_component_model_async_builtins(bool value) { weft_config_wasm_component_model_async_builtins_set(ptr.get(), value); }
  /// Sets `wasm_component_model_async_stackful` (see #weft_config_wasm_component_model_async_stackful_set).
  void wasm_component_model_async_stackful(bool value) { weft_config_wasm_component_model_async_stackful_set(ptr.get(), value); }
  /// Sets `max_wasm_stack` (see #weft_config_max_wasm_stack_set).
  void max_wasm_stack(size_t value) { weft_config_max_wasm_stack_set(ptr.get(), value); }
  /// Sets `async_support` (see #weft_config_async_support_set).
  void async_support(bool value) { weft_config_async_support_set(ptr.get(), value); }
  /// Sets `async_stack_size` (see #weft_config_async_stack_size_set).
  void async_stack_size(size_t value) { weft_config_async_stack_size_set(ptr.get(), value); }
  /// Sets `strategy` (see #weft_config_strategy_set).
  void strategy(Strategy value) { weft_config_strategy_set(ptr.get(), static_cast<weft_strategy_t>(value)); }
  /// Sets `cranelift_opt_level` (see #weft_config_cranelift_opt_level_set).
  void cranelift_opt_level(OptLevel value) { weft_config_cranelift_opt_level_set(ptr.get(), static_cast<weft_opt_level_t>(value)); }
  /// Sets `cranelift_regalloc_algorithm` (see #weft_config_cranelift_regalloc_algorithm_set).
  void cranelift_regalloc_algorithm(RegallocAlgorithm value) { weft_config_cranelift_regalloc_algorithm_set(ptr.get(), static_cast<weft_regalloc_algorithm_t>(value)); }
  /// Sets `profiler` (see #weft_config_profiler_set).
  void profiler(ProfilingStrategy value) { weft_config_profiler_set(ptr.get(), static_cast<weft_profiling_strategy_t>(value)); }
  /// Sets `memory_reservation` (see #weft_config_memory_reservation_set).
  void memory_reservation(uint64_t value) { weft_config_memory_reservation_set(ptr.get(), value); }
  /// Sets `memory_guard_size` (see #weft_config_memory_guard_size_set).
  void memory_guard_size(uint64_t value) { weft_config_memory_guard_size_set(ptr.get(), value); }
  /// Sets `memory_reservation_for_growth` (see #weft_config_memory_reservation_for_growth_set).
  void memory_reservation_for_growth(uint64_t value) { weft_config_memory_reservation_for_growth_set(ptr.get(), value); }
  /// Enables the Cranelift flag `flag`.
  void cranelift_flag_enable(const std::string &flag) { weft_config_cranelift_flag_enable(ptr.get(), flag.c_str()); }
  /// Sets the Cranelift flag `flag` to `value`.
  void cranelift_flag_set(const std::string &flag, const std::string &value) {
    weft_config_cranelift_flag_set(ptr.get(), flag.c_str(), value.c_str());
  }
  /// Compiles for the target triple `target`.
  Result<std::monostate> target(const std::string &target) {
    if (weft_error_t *e = weft_config_target_set(ptr.get(), target.c_str()))
      return Error(e);
    return std::monostate();
  }
  /// Loads the default cache configuration.
  Result<std::monostate> cache_load_default() {
    if (weft_error_t *e = weft_config_cache_config_load(ptr.get(), nullptr))
      return Error(e);
    return std::monostate();
  }
  /// Loads the cache configuration at `path`.
  Result<std::monostate> cache_load(const std::string &path) {
    if (weft_error_t *e = weft_config_cache_config_load(ptr.get(), path.c_str()))
      return Error(e);
    return std::monostate();
  }
  /// Makes every non-shared linear memory of the engine's stores in memory
  /// `creator` makes (see #weft_config_host_memory_creator_set): `creator`
  /// (shared by all threads) has `Result<M> new_memory(const
  /// MemoryType::Ref &ty, size_t minimum, size_t maximum, size_t
  /// reserved_size_in_bytes, size_t guard_size_in_bytes)`, and `M` has
  /// `uint8_t *get_memory(size_t *byte_size, size_t *byte_capacity)` and
  /// `Result<std::monostate> grow_memory(size_t new_size)`. (Defined in
  /// `weft/types.hh`, which this header includes through
  /// `weft/engine.hh`.)
  template <typename T> void host_memory_creator(T creator);
  /// Allocates from a pool with the limits `config` (copied).
  void pooling_allocation_strategy(const PoolAllocationConfig &config) {
    weft_pooling_allocation_strategy_set(ptr.get(), config.ptr.get());
  }
  /// The C object.
  wasm_config_t *capi() const { return ptr.get(); }
};

} // namespace weft

// `Engine` and, through it, the definition of `Config::host_memory_creator`.
#include <weft/engine.hh>

#endif // WEFT_CONFIG_HH

/**
 * \file weft/engine.hh
 *
 * \brief C++ API: `Engine` (as Wasmtime 48's `wasmtime/engine.hh`).
 */

#ifndef WEFT_ENGINE_HH
#define WEFT_ENGINE_HH

#include <weft/config.hh>

namespace weft {

/// An engine (copies share it).
class Engine {
  struct Deleter {
    void operator()(wasm_engine_t *e) const { wasm_engine_delete(e); }
  };
  std::unique_ptr<wasm_engine_t, Deleter> ptr;

public:
  /// An engine with the default configuration.
  Engine() : ptr(wasm_engine_new()) {}
  /// An engine with `config` (consumed).
  explicit Engine(Config config) : ptr(wasm_engine_new_with_config(config.ptr.release())) {}
  /// Another reference to the same engine.
  Engine(const Engine &other) : ptr(weft_engine_clone(other.ptr.get())) {}
  /// Another reference to the same engine.
  Engine &operator=(const Engine &other) {
    ptr.reset(weft_engine_clone(other.ptr.get()));
    return *this;
  }
  /// Moves the reference.
  Engine(Engine &&) = default;
  /// Moves the reference.
  Engine &operator=(Engine &&) = default;
  /// Increments the epoch.
  void increment_epoch() const { weft_engine_increment_epoch(ptr.get()); }
  /// Whether the engine runs Pulley bytecode (never).
  bool is_pulley() const { return weft_engine_is_pulley(ptr.get()); }
  /// The C object.
  wasm_engine_t *capi() const { return ptr.get(); }
};

} // namespace weft

// The definition of `Config::host_memory_creator`.
#include <weft/types.hh>

#endif // WEFT_ENGINE_HH

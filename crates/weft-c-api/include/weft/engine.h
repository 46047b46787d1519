/**
 * \file weft/engine.h
 *
 * \brief Engines: what `wasm.h` lacks.
 */

#ifndef WEFT_ENGINE_H
#define WEFT_ENGINE_H

#include <wasm.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief A new reference to the same engine; free it with
 * `wasm_engine_delete`.
 */
WASM_API_EXTERN wasm_engine_t *weft_engine_clone(const wasm_engine_t *engine);

/**
 * \brief Increments the engine's epoch, which interrupts wasm in stores
 * whose epoch deadline it reaches (with #weft_config_epoch_interruption_set).
 *
 * May be called from any thread.
 */
WASM_API_EXTERN void weft_engine_increment_epoch(const wasm_engine_t *engine);

/// \brief Whether the engine runs Pulley bytecode: always false in Weft.
WASM_API_EXTERN bool weft_engine_is_pulley(const wasm_engine_t *engine);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_ENGINE_H

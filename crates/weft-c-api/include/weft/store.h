/**
 * \file weft/store.h
 *
 * \brief Stores (#weft_store_t) and their contexts (#weft_context_t).
 */

#ifndef WEFT_STORE_H
#define WEFT_STORE_H

#include <wasi.h>
#include <wasm.h>
#include <weft/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \typedef weft_store_t
 * \brief A store: the home of instances, functions, globals, tables and
 * memories. Owned by its creator; it may move between threads but not be
 * used by two at once.
 */
typedef struct weft_store weft_store_t;

/**
 * \typedef weft_context_t
 * \brief The context of a store, through which every function works on it.
 *
 * A pointer into the store, valid as long as it. Inside a host function,
 * #weft_caller_context gives the same context.
 */
typedef struct weft_context weft_context_t;

/**
 * \brief A new store of `engine`, holding the host data `data`.
 *
 * `finalizer`, if not NULL, is called with the data when the store is
 * deleted. The caller owns the store (#weft_store_delete).
 */
WASM_API_EXTERN weft_store_t *weft_store_new(wasm_engine_t *engine, void *data, void (*finalizer)(void *));

/// \brief The store's context (valid as long as the store).
WASM_API_EXTERN weft_context_t *weft_store_context(weft_store_t *store);

/**
 * \brief Limits what the store may grow and create. A negative value keeps
 * the default: no limit on memory size and table elements, 10,000
 * instances, tables and memories. Applies to later growth and creations.
 */
WASM_API_EXTERN void weft_store_limiter(weft_store_t *store, int64_t memory_size, int64_t table_elements,
                                        int64_t instances, int64_t tables, int64_t memories);

/// \brief Deletes a store, and with it every object it holds.
WASM_API_EXTERN void weft_store_delete(weft_store_t *store);

/// \brief The store's host data.
WASM_API_EXTERN void *weft_context_get_data(const weft_context_t *context);

/**
 * \brief Replaces the store's host data. The finalizer given to
 * #weft_store_new is not called now; it is called with the new data when
 * the store is deleted.
 */
WASM_API_EXTERN void weft_context_set_data(weft_context_t *context, void *data);

/**
 * \brief Gives the store the WASI contexts configured by `wasi` (taken, even
 * on error): WASI preview1's, for the functions #weft_linker_define_wasi
 * defines, and WASI 0.2's, for those of #weft_component_linker_add_wasip2.
 * Fails if a preopened directory or a standard stream's file cannot be
 * opened again.
 */
WASM_API_EXTERN weft_error_t *weft_context_set_wasi(weft_context_t *context, wasi_config_t *wasi);

/**
 * \brief Gives the store a new `wasi:http` context, for the functions
 * #weft_component_linker_add_wasi_http (and `_async`) define. Call it after
 * #weft_context_set_wasi and before instantiating: `wasi:http`'s resources
 * live in the store's WASI 0.2 resource table. Outgoing requests
 * (`wasi:http/outgoing-handler`) are refused with `HTTP-request-denied`.
 * A store without this call gets a default context when the guest first
 * uses `wasi:http`. Does nothing if `context` is NULL.
 */
WASM_API_EXTERN void weft_context_set_wasi_http(weft_context_t *context);

/// \brief Collects the store's GC heap: frees the objects no root (wasm, or a reference C has not unrooted) reaches.
WASM_API_EXTERN weft_error_t *weft_context_gc(weft_context_t *context);

/**
 * \brief Sets the fuel of the store; an error unless fuel is configured
 * (#weft_config_consume_fuel_set). Stores start with none.
 */
WASM_API_EXTERN weft_error_t *weft_context_set_fuel(weft_context_t *store, uint64_t fuel);

/// \brief The fuel left in the store; an error unless fuel is configured.
WASM_API_EXTERN weft_error_t *weft_context_get_fuel(const weft_context_t *context, uint64_t *fuel);

/**
 * \brief Sets the store's epoch deadline `ticks_beyond_current` ticks
 * after the engine's current epoch (#weft_engine_increment_epoch).
 */
WASM_API_EXTERN void weft_context_set_epoch_deadline(weft_context_t *context, uint64_t ticks_beyond_current);

/// \brief What an epoch deadline callback asks for.
typedef uint8_t weft_update_deadline_kind_t;
/// Continue with a new deadline.
#define WEFT_UPDATE_DEADLINE_CONTINUE 0
/// Yield (async calls only), then continue with a new deadline.
#define WEFT_UPDATE_DEADLINE_YIELD 1

/**
 * \brief Calls `func` whenever wasm in the store reaches its epoch deadline.
 *
 * The callback returns an error to stop the wasm (the call fails with it),
 * or NULL after setting `*epoch_deadline_delta` (the next deadline, in
 * ticks from now) and optionally `*update_kind`. `finalizer`, if not NULL,
 * is called with `data` when the store is deleted.
 */
WASM_API_EXTERN void weft_store_epoch_deadline_callback(
    weft_store_t *store,
    weft_error_t *(*func)(weft_context_t *context, void *data, uint64_t *epoch_deadline_delta,
                          weft_update_deadline_kind_t *update_kind),
    void *data, void (*finalizer)(void *));

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_STORE_H

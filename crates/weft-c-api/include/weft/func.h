/**
 * \file weft/func.h
 *
 * \brief Host functions, calls and callers.
 */

#ifndef WEFT_FUNC_H
#define WEFT_FUNC_H

#include <wasm.h>
#include <weft/error.h>
#include <weft/extern.h>
#include <weft/store.h>
#include <weft/val.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \typedef weft_caller_t
 * \brief The caller of a host function: valid only during the call, never
 * owned by the host.
 */
typedef struct weft_caller weft_caller_t;

/**
 * \brief A host function's callback.
 *
 * `args` holds `nargs` values of the function's parameter types, lent for
 * the call (clone an `anyref` to keep it). The callback writes `nresults`
 * values of the result types to `results` (a value of another type makes
 * the call fail; an `anyref` written there is given to Weft, which unroots
 * it) and returns NULL, or returns a trap, whose ownership passes to Weft,
 * to fail the call.
 */
typedef wasm_trap_t *(*weft_func_callback_t)(void *env, weft_caller_t *caller, const weft_val_t *args, size_t nargs,
                                             weft_val_t *results, size_t nresults);

/**
 * \brief A host function's callback on raw values.
 *
 * The buffer holds max(params, results) values: the arguments from index
 * 0, which the callback overwrites with the results from index 0.
 */
typedef wasm_trap_t *(*weft_func_unchecked_callback_t)(void *env, weft_caller_t *caller,
                                                       weft_val_raw_t *args_and_results,
                                                       size_t num_args_and_results);

/**
 * \brief A new host function of type `type` in the store, in `ret`.
 *
 * `env` is passed to each call of `callback`; `finalizer`, if not NULL, is
 * called with it when the store is deleted. The function is usable only
 * with this store.
 */
WASM_API_EXTERN void weft_func_new(weft_context_t *store, const wasm_functype_t *type, weft_func_callback_t callback,
                                   void *env, void (*finalizer)(void *), weft_func_t *ret);

/// \brief Like #weft_func_new, with a callback on raw values.
WASM_API_EXTERN void weft_func_new_unchecked(weft_context_t *store, const wasm_functype_t *type,
                                             weft_func_unchecked_callback_t callback, void *env,
                                             void (*finalizer)(void *), weft_func_t *ret);

/// \brief The function's type (NULL if invalid); the caller owns it.
WASM_API_EXTERN wasm_functype_t *weft_func_type(const weft_context_t *store, const weft_func_t *func);

/**
 * \brief Calls `func` with `nargs` arguments, writing its `nresults` results.
 *
 * Returns an error for misuse (argument count or types, result count,
 * objects of another store) or a host function's plain error; sets `*trap`
 * (which must not be NULL) if wasm trapped; both NULL on success. `args` and
 * `results` may be NULL when their length is 0.
 */
WASM_API_EXTERN weft_error_t *weft_func_call(weft_context_t *store, const weft_func_t *func, const weft_val_t *args,
                                             size_t nargs, weft_val_t *results, size_t nresults, wasm_trap_t **trap);

/**
 * \brief Calls `func` with raw values: the arguments at the start of
 * `args_and_results`, which receives the results from index 0.
 *
 * The buffer must hold max(params, results) values and the arguments must
 * have the function's types; a buffer too short is an error.
 */
WASM_API_EXTERN weft_error_t *weft_func_call_unchecked(weft_context_t *store, const weft_func_t *func,
                                                       weft_val_raw_t *args_and_results, size_t args_and_results_len,
                                                       wasm_trap_t **trap);

/**
 * \brief The export `name` of the instance whose wasm called the host
 * function, in `item`; false (and `item` untouched) if there is none.
 */
WASM_API_EXTERN bool weft_caller_export_get(weft_caller_t *caller, const char *name, size_t name_len,
                                            weft_extern_t *item);

/// \brief The store context of a caller, for every function of the store.
WASM_API_EXTERN weft_context_t *weft_caller_context(weft_caller_t *caller);

/**
 * \brief The function of a raw funcref value made by #weft_func_to_raw for
 * this store, in `ret` (untouched if the value is not one).
 */
WASM_API_EXTERN void weft_func_from_raw(weft_context_t *context, void *raw, weft_func_t *ret);

/// \brief The raw funcref value of `func` (NULL if it is invalid).
WASM_API_EXTERN void *weft_func_to_raw(weft_context_t *context, const weft_func_t *func);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_FUNC_H

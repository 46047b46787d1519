/**
 * \file weft/exnref.h
 *
 * \brief `exnref`: exceptions thrown by wasm, read from C, and exceptions
 * made and thrown by the host.
 *
 * A non-null #weft_exnref_t is a root owned by the caller, as in Wasmtime:
 * #weft_exnref_clone makes a new one, #weft_exnref_unroot releases it, and
 * an exception nothing reaches any more (no root, no wasm value) is
 * collected. Every non-null reference Weft hands out must be unrooted.
 *
 * A host callback throws with #weft_exnref_new, then
 * `return weft_context_set_exception(context, &exn);`: the exception goes
 * into the callback's wasm caller, where `try_table` may catch it.
 */

#ifndef WEFT_EXNREF_H
#define WEFT_EXNREF_H

#include <wasm.h>
#include <weft/error.h>
#include <weft/store.h>
#include <weft/tag.h>
#include <weft/types/exnref.h>
#include <weft/val.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief Makes `ref` a null reference.
static inline void weft_exnref_set_null(weft_exnref_t *ref) { ref->store_id = 0; }

/// \brief Whether `ref` is a null reference.
static inline bool weft_exnref_is_null(const weft_exnref_t *ref) { return ref->store_id == 0; }

/// \brief Copies `ref` to `out` (nothing to root).
WASM_API_EXTERN void weft_exnref_clone(const weft_exnref_t *ref, weft_exnref_t *out);

/// \brief Releases `ref` (nothing to do in Weft).
WASM_API_EXTERN void weft_exnref_unroot(weft_exnref_t *ref);

/// \brief The reference of a raw value of #weft_exnref_to_raw in `out` (null for 0 or an unknown value).
WASM_API_EXTERN void weft_exnref_from_raw(weft_context_t *context, uint32_t raw, weft_exnref_t *out);

/// \brief The raw value of `ref` (0 for null or invalid).
WASM_API_EXTERN uint32_t weft_exnref_to_raw(weft_context_t *context, const weft_exnref_t *ref);

/// \brief The tag the exception was thrown with, in `*tag_ret`.
WASM_API_EXTERN weft_error_t *weft_exnref_tag(weft_context_t *store, const weft_exnref_t *exn, weft_tag_t *tag_ret);

/// \brief The number of values of the exception's payload (0 for null).
WASM_API_EXTERN size_t weft_exnref_field_count(weft_context_t *store, const weft_exnref_t *exn);

/// \brief Value `index` of the exception's payload in `val_ret` (caller-owned); an error if out of bounds.
WASM_API_EXTERN weft_error_t *weft_exnref_field(weft_context_t *store, const weft_exnref_t *exn, size_t index,
                                                weft_val_t *val_ret);

/**
 * \brief A new exception of the store, to be thrown with `tag`, whose
 * payload is the `nfields` values at `fields` (not consumed), in
 * `*exn_ret`.
 *
 * The values must match the parameters of the tag's type in number and
 * type, and belong to the store, as the tag must: otherwise an error says
 * what is wrong. The caller unroots the result with #weft_exnref_unroot.
 */
WASM_API_EXTERN weft_error_t *weft_exnref_new(weft_context_t *store, const weft_tag_t *tag, const weft_val_t *fields,
                                              size_t nfields, weft_exnref_t *exn_ret);

/**
 * \brief Makes `exn` the store's pending exception and returns the trap
 * (owned by the caller) that a host callback must return to throw it.
 *
 * Returned from the callback, the trap throws the exception into the
 * callback's wasm caller, where `try_table` may catch it; uncaught, the
 * embedder's call fails with a trap and #weft_context_take_exception gives
 * the exception. A null, invalid or foreign `exn` throws nothing: the trap
 * then says what is wrong, and returning it makes the wasm caller trap.
 */
WASM_API_EXTERN wasm_trap_t *weft_context_set_exception(weft_context_t *store, const weft_exnref_t *exn);

/**
 * \brief Takes the pending exception (one that escaped wasm: the call
 * failed with an uncaught-exception trap; inside a host function, one that
 * escaped its own call into wasm) into `exn_ret`; false if there is none.
 */
WASM_API_EXTERN bool weft_context_take_exception(weft_context_t *store, weft_exnref_t *exn_ret);

/// \brief Whether an exception is pending (see #weft_context_take_exception), inside a host function too.
WASM_API_EXTERN bool weft_context_has_exception(weft_context_t *store);

/// \brief The exception's type (caller-owned), or NULL for null.
WASM_API_EXTERN weft_exn_type_t *weft_exnref_type(weft_context_t *context, const weft_exnref_t *exnref);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_EXNREF_H

/**
 * \file weft/externref.h
 *
 * \brief Host references (`externref`) in #weft_val_t.
 *
 * Weft keeps an extern reference until its store is deleted: cloning and
 * unrooting do nothing, and the finalizer of its data runs when the store
 * is deleted.
 */

#ifndef WEFT_EXTERNREF_H
#define WEFT_EXTERNREF_H

#include <wasm.h>
#include <weft/store.h>
#include <weft/val.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief Makes `ref` a null reference.
static inline void weft_externref_set_null(weft_externref_t *ref) { ref->store_id = 0; }

/// \brief Whether `ref` is a null reference.
static inline bool weft_externref_is_null(const weft_externref_t *ref) { return ref->store_id == 0; }

/**
 * \brief A new extern reference in the store holding `data`, in `*out`;
 * false if it could not be made. `finalizer`, if not NULL, is called with
 * `data` when the store is deleted.
 */
WASM_API_EXTERN bool weft_externref_new(weft_context_t *context, void *data, void (*finalizer)(void *),
                                        weft_externref_t *out);

/**
 * \brief The data given to #weft_externref_new (NULL for a null reference,
 * one of another store, or one made through `wasm.h`).
 */
WASM_API_EXTERN void *weft_externref_data(weft_context_t *context, const weft_externref_t *data);

/// \brief Copies the reference to `out`.
WASM_API_EXTERN void weft_externref_clone(const weft_externref_t *ref, weft_externref_t *out);

/// \brief Releases the reference (nothing to do in Weft).
WASM_API_EXTERN void weft_externref_unroot(weft_externref_t *ref);

/**
 * \brief The reference of a raw value from #weft_externref_to_raw (or a
 * #weft_val_raw_t), in `*out`: null for 0 or a value the store does not
 * know.
 */
WASM_API_EXTERN void weft_externref_from_raw(weft_context_t *context, uint32_t raw, weft_externref_t *out);

/// \brief The raw value of a reference: 0 for null (or invalid).
WASM_API_EXTERN uint32_t weft_externref_to_raw(weft_context_t *context, const weft_externref_t *ref);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_EXTERNREF_H

/**
 * \file weft/arrayref.h
 *
 * \brief Arrays of the GC proposal made, read and written from C. Rooted
 * as #weft_anyref_t.
 */

#ifndef WEFT_ARRAYREF_H
#define WEFT_ARRAYREF_H

#include <wasm.h>
#include <weft/error.h>
#include <weft/store.h>
#include <weft/types/arrayref.h>
#include <weft/val.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief An allocator of arrays of one type in one store.
typedef struct weft_array_ref_pre weft_array_ref_pre_t;

/// \brief An allocator of arrays of type `ty` (not taken) in the store (caller-owned), or NULL on a null argument.
WASM_API_EXTERN weft_array_ref_pre_t *weft_array_ref_pre_new(weft_context_t *context, const weft_array_type_t *ty);

/// \brief Deletes the allocator.
WASM_API_EXTERN void weft_array_ref_pre_delete(weft_array_ref_pre_t *pre);

/// \brief Makes `ref` a null reference.
static inline void weft_arrayref_set_null(weft_arrayref_t *ref) { ref->store_id = 0; }

/// \brief Whether `ref` is a null reference.
static inline bool weft_arrayref_is_null(const weft_arrayref_t *ref) { return ref->store_id == 0; }

/**
 * \brief A new array of `pre`'s type of `len` elements, each `elem` (not
 * consumed), in `out` (a root). An error if `elem` does not match the
 * element type or the GC heap is out of memory.
 */
WASM_API_EXTERN weft_error_t *weft_arrayref_new(weft_context_t *context, const weft_array_ref_pre_t *pre,
                                                const weft_val_t *elem, uint32_t len, weft_arrayref_t *out);

/// \brief A new root of the array in `out`.
WASM_API_EXTERN void weft_arrayref_clone(const weft_arrayref_t *arrayref, weft_arrayref_t *out);

/// \brief Releases the root of `ref`, which is null afterwards.
WASM_API_EXTERN void weft_arrayref_unroot(weft_arrayref_t *ref);

/// \brief The array as an `anyref` (a new root).
WASM_API_EXTERN void weft_arrayref_to_anyref(const weft_arrayref_t *arrayref, weft_anyref_t *out);

/// \brief The array as an `eqref` (a new root).
WASM_API_EXTERN void weft_arrayref_to_eqref(const weft_arrayref_t *arrayref, weft_eqref_t *out);

/// \brief The array's length in `*out`.
WASM_API_EXTERN weft_error_t *weft_arrayref_len(weft_context_t *context, const weft_arrayref_t *arrayref,
                                                uint32_t *out);

/// \brief Element `index` of the array in `out` (caller-owned: #weft_val_unroot). An error if out of bounds.
WASM_API_EXTERN weft_error_t *weft_arrayref_get(weft_context_t *context, const weft_arrayref_t *arrayref,
                                                uint32_t index, weft_val_t *out);

/// \brief Sets element `index` of the array to `val` (not consumed). An error if out of bounds, immutable or of another type.
WASM_API_EXTERN weft_error_t *weft_arrayref_set(weft_context_t *context, const weft_arrayref_t *arrayref,
                                                uint32_t index, const weft_val_t *val);

/// \brief The array's type (caller-owned), or NULL for a null reference.
WASM_API_EXTERN weft_array_type_t *weft_arrayref_type(weft_context_t *context, const weft_arrayref_t *arrayref);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_ARRAYREF_H

/**
 * \file weft/structref.h
 *
 * \brief Structs of the GC proposal made, read and written from C. Rooted
 * as #weft_anyref_t.
 */

#ifndef WEFT_STRUCTREF_H
#define WEFT_STRUCTREF_H

#include <wasm.h>
#include <weft/error.h>
#include <weft/store.h>
#include <weft/types/structref.h>
#include <weft/val.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief An allocator of structs of one type in one store.
typedef struct weft_struct_ref_pre weft_struct_ref_pre_t;

/// \brief An allocator of structs of type `ty` (not taken) in the store (caller-owned), or NULL on a null argument.
WASM_API_EXTERN weft_struct_ref_pre_t *weft_struct_ref_pre_new(weft_context_t *context,
                                                               const weft_struct_type_t *ty);

/// \brief Deletes the allocator.
WASM_API_EXTERN void weft_struct_ref_pre_delete(weft_struct_ref_pre_t *pre);

/// \brief Makes `ref` a null reference.
static inline void weft_structref_set_null(weft_structref_t *ref) { ref->store_id = 0; }

/// \brief Whether `ref` is a null reference.
static inline bool weft_structref_is_null(const weft_structref_t *ref) { return ref->store_id == 0; }

/**
 * \brief A new struct of `pre`'s type with the `nfields` values `fields`
 * (not consumed), in `out` (a root). An error if a value does not match its
 * field's type, the count is wrong, or the GC heap is out of memory.
 */
WASM_API_EXTERN weft_error_t *weft_structref_new(weft_context_t *context, const weft_struct_ref_pre_t *pre,
                                                 const weft_val_t *fields, size_t nfields, weft_structref_t *out);

/// \brief A new root of the struct in `out`.
WASM_API_EXTERN void weft_structref_clone(const weft_structref_t *structref, weft_structref_t *out);

/// \brief Releases the root of `ref`, which is null afterwards.
WASM_API_EXTERN void weft_structref_unroot(weft_structref_t *ref);

/// \brief The struct as an `anyref` (a new root).
WASM_API_EXTERN void weft_structref_to_anyref(const weft_structref_t *structref, weft_anyref_t *out);

/// \brief The struct as an `eqref` (a new root).
WASM_API_EXTERN void weft_structref_to_eqref(const weft_structref_t *structref, weft_eqref_t *out);

/// \brief Field `index` of the struct in `out` (caller-owned: #weft_val_unroot). An error if out of bounds.
WASM_API_EXTERN weft_error_t *weft_structref_field(weft_context_t *context, const weft_structref_t *structref,
                                                   size_t index, weft_val_t *out);

/// \brief Sets field `index` of the struct to `val` (not consumed). An error if out of bounds, immutable or of another type.
WASM_API_EXTERN weft_error_t *weft_structref_set_field(weft_context_t *context, const weft_structref_t *structref,
                                                       size_t index, const weft_val_t *val);

/// \brief The struct's type (caller-owned), or NULL for a null reference.
WASM_API_EXTERN weft_struct_type_t *weft_structref_type(weft_context_t *context, const weft_structref_t *structref);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_STRUCTREF_H

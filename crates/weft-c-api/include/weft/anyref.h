/**
 * \file weft/anyref.h
 *
 * \brief `anyref`: references of the GC proposal's `any` hierarchy
 * (structs, arrays, `i31ref`s, host references made internal).
 *
 * A non-null #weft_anyref_t is a root owned by the caller: release it with
 * #weft_anyref_unroot (after which it is null), even after its store is
 * deleted. Clones and downcasts make new roots. Raw values
 * (#weft_anyref_to_raw) keep their object alive until the store is deleted.
 */

#ifndef WEFT_ANYREF_H
#define WEFT_ANYREF_H

#include <wasm.h>
#include <weft/store.h>
#include <weft/types/val.h>
#include <weft/val.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief Makes `ref` a null reference.
static inline void weft_anyref_set_null(weft_anyref_t *ref) { ref->store_id = 0; }

/// \brief Whether `ref` is a null reference.
static inline bool weft_anyref_is_null(const weft_anyref_t *ref) { return ref->store_id == 0; }

/// \brief A new root of the object of `anyref` in `out` (null for null).
WASM_API_EXTERN void weft_anyref_clone(const weft_anyref_t *anyref, weft_anyref_t *out);

/// \brief Releases the root of `ref`, which is null afterwards (nothing for null).
WASM_API_EXTERN void weft_anyref_unroot(weft_anyref_t *ref);

/// \brief The reference of a raw value of #weft_anyref_to_raw in `out` (null for 0 or an unknown value).
WASM_API_EXTERN void weft_anyref_from_raw(weft_context_t *context, uint32_t raw, weft_anyref_t *out);

/**
 * \brief The raw value of `ref` (0 for null or invalid), for
 * #weft_val_raw_t. The store keeps the object alive until it is deleted.
 */
WASM_API_EXTERN uint32_t weft_anyref_to_raw(weft_context_t *context, const weft_anyref_t *ref);

/// \brief The `i31ref` of `i31val` (its top bit dropped) in `out`.
WASM_API_EXTERN void weft_anyref_from_i31(weft_context_t *context, uint32_t i31val, weft_anyref_t *out);

/// \brief Whether `anyref` is an `i31ref` (false for null).
WASM_API_EXTERN bool weft_anyref_is_i31(weft_context_t *context, const weft_anyref_t *anyref);

/// \brief The value of the `i31ref`, zero-extended, in `*dst`; false if `anyref` is not one.
WASM_API_EXTERN bool weft_anyref_i31_get_u(weft_context_t *context, const weft_anyref_t *anyref, uint32_t *dst);

/// \brief The value of the `i31ref`, sign-extended, in `*dst`; false if `anyref` is not one.
WASM_API_EXTERN bool weft_anyref_i31_get_s(weft_context_t *context, const weft_anyref_t *anyref, int32_t *dst);

/// \brief Whether `anyref` is an `eqref` (a struct, an array or an `i31ref`; false for null).
WASM_API_EXTERN bool weft_anyref_is_eqref(weft_context_t *context, const weft_anyref_t *anyref);

/// \brief `anyref` as an `eqref` (a new root) in `out`; false, `out` null, if it is not one.
WASM_API_EXTERN bool weft_anyref_as_eqref(weft_context_t *context, const weft_anyref_t *anyref, weft_eqref_t *out);

/// \brief Whether `anyref` is a struct (false for null).
WASM_API_EXTERN bool weft_anyref_is_struct(weft_context_t *context, const weft_anyref_t *anyref);

/// \brief `anyref` as a `structref` (a new root) in `out`; false, `out` null, if it is not one.
WASM_API_EXTERN bool weft_anyref_as_struct(weft_context_t *context, const weft_anyref_t *anyref,
                                           weft_structref_t *out);

/// \brief Whether `anyref` is an array (false for null).
WASM_API_EXTERN bool weft_anyref_is_array(weft_context_t *context, const weft_anyref_t *anyref);

/// \brief `anyref` as an `arrayref` (a new root) in `out`; false, `out` null, if it is not one.
WASM_API_EXTERN bool weft_anyref_as_array(weft_context_t *context, const weft_anyref_t *anyref, weft_arrayref_t *out);

/**
 * \brief The heap type of the object in `out` (caller-owned:
 * #weft_heaptype_delete): `i31`, its concrete struct or array type, or `any`
 * for a host reference made internal. False for null.
 */
WASM_API_EXTERN bool weft_anyref_type(weft_context_t *context, const weft_anyref_t *anyref, weft_heaptype_t *out);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_ANYREF_H

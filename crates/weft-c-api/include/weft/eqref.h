/**
 * \file weft/eqref.h
 *
 * \brief `eqref`: structs, arrays and `i31ref`s. Rooted as #weft_anyref_t.
 */

#ifndef WEFT_EQREF_H
#define WEFT_EQREF_H

#include <wasm.h>
#include <weft/store.h>
#include <weft/types/val.h>
#include <weft/val.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief Makes `ref` a null reference.
static inline void weft_eqref_set_null(weft_eqref_t *ref) { ref->store_id = 0; }

/// \brief Whether `ref` is a null reference.
static inline bool weft_eqref_is_null(const weft_eqref_t *ref) { return ref->store_id == 0; }

/// \brief A new root of the object of `eqref` in `out`.
WASM_API_EXTERN void weft_eqref_clone(const weft_eqref_t *eqref, weft_eqref_t *out);

/// \brief Releases the root of `ref`, which is null afterwards.
WASM_API_EXTERN void weft_eqref_unroot(weft_eqref_t *ref);

/// \brief `eqref` as an `anyref` (a new root; `eqref` is not consumed).
WASM_API_EXTERN void weft_eqref_to_anyref(const weft_eqref_t *eqref, weft_anyref_t *out);

/// \brief The `i31ref` of `i31val` (its top bit dropped) in `out`.
WASM_API_EXTERN void weft_eqref_from_i31(weft_context_t *context, uint32_t i31val, weft_eqref_t *out);

/// \brief Whether `eqref` is an `i31ref`.
WASM_API_EXTERN bool weft_eqref_is_i31(weft_context_t *context, const weft_eqref_t *eqref);

/// \brief The value of the `i31ref`, zero-extended; false if `eqref` is not one.
WASM_API_EXTERN bool weft_eqref_i31_get_u(weft_context_t *context, const weft_eqref_t *eqref, uint32_t *dst);

/// \brief The value of the `i31ref`, sign-extended; false if `eqref` is not one.
WASM_API_EXTERN bool weft_eqref_i31_get_s(weft_context_t *context, const weft_eqref_t *eqref, int32_t *dst);

/// \brief Whether `eqref` is an array.
WASM_API_EXTERN bool weft_eqref_is_array(weft_context_t *context, const weft_eqref_t *eqref);

/// \brief `eqref` as an `arrayref` (a new root) in `out`; false, `out` null, if it is not one.
WASM_API_EXTERN bool weft_eqref_as_array(weft_context_t *context, const weft_eqref_t *eqref, weft_arrayref_t *out);

/// \brief Whether `eqref` is a struct.
WASM_API_EXTERN bool weft_eqref_is_struct(weft_context_t *context, const weft_eqref_t *eqref);

/// \brief `eqref` as a `structref` (a new root) in `out`; false, `out` null, if it is not one.
WASM_API_EXTERN bool weft_eqref_as_struct(weft_context_t *context, const weft_eqref_t *eqref, weft_structref_t *out);

/// \brief The heap type of the object (see #weft_anyref_type).
WASM_API_EXTERN bool weft_eqref_type(weft_context_t *context, const weft_eqref_t *eqref, weft_heaptype_t *out);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_EQREF_H

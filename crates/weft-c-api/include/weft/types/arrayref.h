/**
 * \file weft/types/arrayref.h
 *
 * \brief Array types of the GC proposal.
 */

#ifndef WEFT_TYPES_ARRAYREF_H
#define WEFT_TYPES_ARRAYREF_H

#include <wasm.h>
#include <weft/types/structref.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief A final array type of elements `field` (not taken), registered in
 * `engine` (caller-owned: #weft_array_type_delete), or NULL if `field` is
 * invalid.
 */
WASM_API_EXTERN weft_array_type_t *weft_array_type_new(const wasm_engine_t *engine, const weft_field_type_t *field);

/// \brief A copy of `ty` (caller-owned).
WASM_API_EXTERN weft_array_type_t *weft_array_type_copy(const weft_array_type_t *ty);

/// \brief Deletes `ty`.
WASM_API_EXTERN void weft_array_type_delete(weft_array_type_t *ty);

/// \brief The type of the elements of `ty` in `out` (delete it later).
WASM_API_EXTERN void weft_array_type_element(const weft_array_type_t *ty, weft_field_type_t *out);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_TYPES_ARRAYREF_H

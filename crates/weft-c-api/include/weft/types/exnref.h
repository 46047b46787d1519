/**
 * \file weft/types/exnref.h
 *
 * \brief Exception types: the payload of a tag.
 */

#ifndef WEFT_TYPES_EXNREF_H
#define WEFT_TYPES_EXNREF_H

#include <wasm.h>
#include <weft/error.h>
#include <weft/types/val.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief The exception type with payload `params` (not taken), in `*out` (caller-owned).
WASM_API_EXTERN weft_error_t *weft_exn_type_new(const wasm_engine_t *engine, const wasm_valtype_vec_t *params,
                                                weft_exn_type_t **out);

/// \brief Deletes `ty`.
WASM_API_EXTERN void weft_exn_type_delete(weft_exn_type_t *ty);

/// \brief A copy of `ty` (caller-owned).
WASM_API_EXTERN weft_exn_type_t *weft_exn_type_copy(const weft_exn_type_t *ty);

/// \brief The tag type of `ty` (caller-owned).
WASM_API_EXTERN wasm_tagtype_t *weft_exn_type_tag_type(const weft_exn_type_t *ty);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_TYPES_EXNREF_H

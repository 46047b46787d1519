/**
 * \file weft/tag.h
 *
 * \brief Exception tags.
 */

#ifndef WEFT_TAG_H
#define WEFT_TAG_H

#include <wasm.h>
#include <weft/error.h>
#include <weft/extern.h>
#include <weft/store.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief A new tag of type `tt`, in `ret`: a new identity every time.
WASM_API_EXTERN weft_error_t *weft_tag_new(weft_context_t *store, const wasm_tagtype_t *tt, weft_tag_t *ret);

/// \brief The tag's type (NULL if invalid); the caller owns it.
WASM_API_EXTERN wasm_tagtype_t *weft_tag_type(const weft_context_t *store, const weft_tag_t *tag);

/// \brief Whether two tags are the same definition.
WASM_API_EXTERN bool weft_tag_eq(const weft_context_t *store, const weft_tag_t *a, const weft_tag_t *b);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_TAG_H

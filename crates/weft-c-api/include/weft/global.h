/**
 * \file weft/global.h
 *
 * \brief Globals.
 */

#ifndef WEFT_GLOBAL_H
#define WEFT_GLOBAL_H

#include <wasm.h>
#include <weft/extern.h>
#include <weft/store.h>
#include <weft/val.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief A new global of type `type` holding `val`, in `ret`; an error if
 * the value does not match the type or belongs to another store.
 */
WASM_API_EXTERN weft_error_t *weft_global_new(weft_context_t *store, const wasm_globaltype_t *type,
                                              const weft_val_t *val, weft_global_t *ret);

/// \brief The global's type (NULL if invalid); the caller owns it.
WASM_API_EXTERN wasm_globaltype_t *weft_global_type(const weft_context_t *store, const weft_global_t *global);

/// \brief The global's value, in `out` (untouched if the global is invalid).
WASM_API_EXTERN void weft_global_get(weft_context_t *store, const weft_global_t *global, weft_val_t *out);

/// \brief Sets the global's value; an error if it is constant or mistyped.
WASM_API_EXTERN weft_error_t *weft_global_set(weft_context_t *store, const weft_global_t *global,
                                              const weft_val_t *val);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_GLOBAL_H

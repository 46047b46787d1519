/**
 * \file weft/table.h
 *
 * \brief Tables.
 */

#ifndef WEFT_TABLE_H
#define WEFT_TABLE_H

#include <wasm.h>
#include <weft/extern.h>
#include <weft/store.h>
#include <weft/val.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief A new table of type `ty`, every element `init`, in `table`; an
 * error if `init` does not match the element type.
 */
WASM_API_EXTERN weft_error_t *weft_table_new(weft_context_t *store, const wasm_tabletype_t *ty,
                                             const weft_val_t *init, weft_table_t *table);

/// \brief The table's type (NULL if invalid); the caller owns it.
WASM_API_EXTERN wasm_tabletype_t *weft_table_type(const weft_context_t *store, const weft_table_t *table);

/// \brief The element at `index`, in `val`; false if out of bounds.
WASM_API_EXTERN bool weft_table_get(weft_context_t *store, const weft_table_t *table, uint64_t index, weft_val_t *val);

/// \brief Sets the element at `index`; an error if out of bounds or mistyped.
WASM_API_EXTERN weft_error_t *weft_table_set(weft_context_t *store, const weft_table_t *table, uint64_t index,
                                             const weft_val_t *value);

/// \brief The table's size in elements.
WASM_API_EXTERN uint64_t weft_table_size(const weft_context_t *store, const weft_table_t *table);

/**
 * \brief Grows the table by `delta` elements set to `init`; the old size in
 * `*prev_size`. An error past the maximum or for a mistyped `init`.
 */
WASM_API_EXTERN weft_error_t *weft_table_grow(weft_context_t *store, const weft_table_t *table, uint64_t delta,
                                              const weft_val_t *init, uint64_t *prev_size);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_TABLE_H

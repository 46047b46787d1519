/**
 * \file weft/memory.h
 *
 * \brief Linear memories, and 64-bit memory types.
 */

#ifndef WEFT_MEMORY_H
#define WEFT_MEMORY_H

#include <wasm.h>
#include <weft/error.h>
#include <weft/extern.h>
#include <weft/store.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief A new memory type, in `ret`: `min` and `max` in pages, `is_64` for
 * memory64, `shared` for a shared memory (it needs a maximum), and
 * `page_size_log2` 16 or 0 (1-byte pages); other values are an error.
 */
WASM_API_EXTERN weft_error_t *weft_memorytype_new(uint64_t min, bool max_present, uint64_t max, bool is_64,
                                                  bool shared, uint8_t page_size_log2, wasm_memorytype_t **ret);

/// \brief The minimum size in pages.
WASM_API_EXTERN uint64_t weft_memorytype_minimum(const wasm_memorytype_t *ty);

/// \brief The maximum size in pages in `*max`; false if there is none.
WASM_API_EXTERN bool weft_memorytype_maximum(const wasm_memorytype_t *ty, uint64_t *max);

/// \brief Whether the memory type is 64-bit.
WASM_API_EXTERN bool weft_memorytype_is64(const wasm_memorytype_t *ty);

/// \brief Whether the memory type is shared.
WASM_API_EXTERN bool weft_memorytype_isshared(const wasm_memorytype_t *ty);

/// \brief The page size in bytes (65536).
WASM_API_EXTERN uint64_t weft_memorytype_page_size(const wasm_memorytype_t *ty);

/// \brief The base-2 logarithm of the page size (16).
WASM_API_EXTERN uint8_t weft_memorytype_page_size_log2(const wasm_memorytype_t *ty);

/// \brief A new memory of type `ty`, in `ret`.
WASM_API_EXTERN weft_error_t *weft_memory_new(weft_context_t *store, const wasm_memorytype_t *ty,
                                              weft_memory_t *ret);

/// \brief The memory's type (NULL if invalid); the caller owns it.
WASM_API_EXTERN wasm_memorytype_t *weft_memory_type(const weft_context_t *store, const weft_memory_t *memory);

/**
 * \brief The memory's first byte (NULL if invalid). Valid until the memory
 * grows or the store is deleted.
 */
WASM_API_EXTERN uint8_t *weft_memory_data(const weft_context_t *store, const weft_memory_t *memory);

/// \brief The memory's size in bytes.
WASM_API_EXTERN size_t weft_memory_data_size(const weft_context_t *store, const weft_memory_t *memory);

/// \brief The memory's size in pages.
WASM_API_EXTERN uint64_t weft_memory_size(const weft_context_t *store, const weft_memory_t *memory);

/**
 * \brief Grows the memory by `delta` pages; the old size in `*prev_size`
 * (untouched on error). An error past the maximum or a limit.
 */
WASM_API_EXTERN weft_error_t *weft_memory_grow(weft_context_t *store, const weft_memory_t *memory, uint64_t delta,
                                               uint64_t *prev_size);

/// \brief The memory's page size in bytes.
WASM_API_EXTERN uint64_t weft_memory_page_size(const weft_context_t *store, const weft_memory_t *memory);

/// \brief The base-2 logarithm of the memory's page size.
WASM_API_EXTERN uint8_t weft_memory_page_size_log2(const weft_context_t *store, const weft_memory_t *memory);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_MEMORY_H

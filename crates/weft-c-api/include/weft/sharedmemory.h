/**
 * \file weft/sharedmemory.h
 *
 * \brief Linear memories shared between threads and stores (the threads
 * proposal).
 *
 * A shared memory belongs to an engine, not to a store: instances of any
 * store of its engine may import it (through a #weft_extern_t of kind
 * #WEFT_EXTERN_SHAREDMEMORY, e.g. with #weft_linker_define), on any thread
 * at the same time. Its whole maximum is reserved when it is made, so its
 * data never moves when it grows, and it never shrinks.
 */

#ifndef WEFT_SHAREDMEMORY_H
#define WEFT_SHAREDMEMORY_H

#include <wasm.h>
#include <weft/error.h>
#include <weft/extern.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief A new shared memory of type `ty` (which must be shared, with a
 * maximum: see #weft_memorytype_new) for the stores of `engine`, in `ret`.
 *
 * Fails when the type is not shared or the engine lacks the threads
 * proposal (#weft_config_wasm_threads_set). The caller owns the result and
 * releases it with #weft_sharedmemory_delete.
 */
WASM_API_EXTERN weft_error_t *weft_sharedmemory_new(const wasm_engine_t *engine, const wasm_memorytype_t *ty,
                                                    weft_sharedmemory_t **ret);

/// \brief Releases a handle; the memory lives on while other handles or
/// instances use it.
WASM_API_EXTERN void weft_sharedmemory_delete(weft_sharedmemory_t *memory);

/// \brief Another handle of the same memory (a shallow copy); the caller
/// owns it.
WASM_API_EXTERN weft_sharedmemory_t *weft_sharedmemory_clone(const weft_sharedmemory_t *memory);

/// \brief The type the memory was made with (its minimum is the initial
/// size: see #weft_sharedmemory_size); the caller owns it.
WASM_API_EXTERN wasm_memorytype_t *weft_sharedmemory_type(const weft_sharedmemory_t *memory);

/**
 * \brief The first byte of the memory. Other threads may read and write it
 * at any time: use atomics or the program's own synchronization.
 */
WASM_API_EXTERN uint8_t *weft_sharedmemory_data(const weft_sharedmemory_t *memory);

/// \brief The size in bytes (another thread may grow it meanwhile).
WASM_API_EXTERN size_t weft_sharedmemory_data_size(const weft_sharedmemory_t *memory);

/// \brief The size in pages.
WASM_API_EXTERN uint64_t weft_sharedmemory_size(const weft_sharedmemory_t *memory);

/**
 * \brief Grows the memory by `delta` pages; the old size in pages goes to
 * `prev_size`. Fails when the memory would exceed its maximum.
 */
WASM_API_EXTERN weft_error_t *weft_sharedmemory_grow(const weft_sharedmemory_t *memory, uint64_t delta,
                                                     uint64_t *prev_size);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_SHAREDMEMORY_H

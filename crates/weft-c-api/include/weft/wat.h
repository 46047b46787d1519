/**
 * \file weft/wat.h
 *
 * \brief The WebAssembly text format.
 */

#ifndef WEFT_WAT_H
#define WEFT_WAT_H

#include <wasm.h>
#include <weft/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Assembles `wat_len` bytes of WebAssembly text into a binary in
 * `ret`, which the caller frees with `wasm_byte_vec_delete` (untouched on
 * error).
 */
WASM_API_EXTERN weft_error_t *weft_wat2wasm(const char *wat, size_t wat_len, wasm_byte_vec_t *ret);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_WAT_H

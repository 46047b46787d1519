/**
 * \file weft/error.h
 *
 * \brief Errors: #weft_error_t.
 */

#ifndef WEFT_ERROR_H
#define WEFT_ERROR_H

#include <wasm.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \typedef weft_error_t
 * \brief An error, owned by whoever received it.
 *
 * Free it with #weft_error_delete. Errors may move between threads.
 */
typedef struct weft_error weft_error_t;

/**
 * \brief A new error with the message `msg` (a NUL-terminated string).
 *
 * The caller owns the result.
 */
WASM_API_EXTERN weft_error_t *weft_error_new(const char *msg);

/// \brief Deletes an error.
WASM_API_EXTERN void weft_error_delete(weft_error_t *error);

/**
 * \brief The error's message, with its causes, in `message`.
 *
 * `message` is uninitialized on entry; the caller frees it with
 * `wasm_byte_vec_delete`. It is not NUL-terminated.
 */
WASM_API_EXTERN void weft_error_message(const weft_error_t *error, wasm_name_t *message);

/**
 * \brief Whether the error is a WASI exit (preview1's `proc_exit`, or WASI
 * 0.2's `wasi:cli/exit`); if so writes its status.
 */
WASM_API_EXTERN bool weft_error_exit_status(const weft_error_t *, int *status);

/**
 * \brief The wasm backtrace of the error, innermost frame first, in `out`
 * (empty if it has none). The caller frees `out` with
 * `wasm_frame_vec_delete`.
 */
WASM_API_EXTERN void weft_error_wasm_trace(const weft_error_t *, wasm_frame_vec_t *out);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_ERROR_H

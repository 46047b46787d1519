/**
 * \file weft/async.h
 *
 * \brief Async calls polled from C: call futures, and the continuations of
 * async host functions.
 *
 * An async call returns a #weft_call_future_t that the host polls with
 * #weft_call_future_poll until it reports completion, then deletes. Every
 * argument of a function returning a future must stay alive and unchanged
 * until the future is deleted, and no other function may be called on that
 * store while a future is alive. An async host function gives back a
 * #weft_async_continuation_t, polled at each poll of the future until it
 * reports that the host call is done; its arguments stay alive until then.
 */

#ifndef WEFT_ASYNC_H
#define WEFT_ASYNC_H

#include <wasm.h>
#include <weft/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief The callback of a continuation: true when the host call is done.
typedef bool (*weft_func_async_continuation_callback_t)(void *env);

/// \brief What an async host function gives back: polled until done.
typedef struct weft_async_continuation_t {
  /// Called at each poll; returns true when the host call finished.
  weft_func_async_continuation_callback_t callback;
  /// The data passed to `callback`.
  void *env;
  /// Frees `env` when the continuation is done with (may be NULL).
  void (*finalizer)(void *);
} weft_async_continuation_t;

/// \brief An async call or instantiation in progress (owned by the caller).
typedef struct weft_call_future weft_call_future_t;

/**
 * \brief Runs the call until it completes (true: do not poll again) or
 * yields (false: poll again).
 */
WASM_API_EXTERN bool weft_call_future_poll(weft_call_future_t *future);

/// \brief Deletes a future, cancelling its call if it has not completed.
WASM_API_EXTERN void weft_call_future_delete(weft_call_future_t *future);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_ASYNC_H

/**
 * \file weft/component/func.h
 *
 * \brief Functions of component instances, called synchronously or as
 * futures.
 */

#ifndef WEFT_COMPONENT_FUNC_H
#define WEFT_COMPONENT_FUNC_H

#include <wasm.h>
#include <weft/async.h>
#include <weft/component/types/func.h>
#include <weft/component/val.h>
#include <weft/error.h>
#include <weft/store.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief A function of a component instance (a plain value).
typedef struct weft_component_func {
  /// The store and the first private field.
  struct {
    /// The id of the store the function belongs to (never 0).
    uint64_t store_id;
    /// Private to Weft.
    uint32_t __private1;
  };
  /// Private to Weft.
  uint32_t __private2;
} weft_component_func_t;

/// \brief The function's type (free with #weft_component_func_type_delete).
WASM_API_EXTERN weft_component_func_type_t *weft_component_func_type(const weft_component_func_t *func,
                                                                     weft_context_t *context);

/**
 * \brief Calls the function with `args` (borrowed); `results_size` must be
 * its result count, and each `results[i]` (initialized, e.g. a `false`
 * #WEFT_COMPONENT_BOOL) is overwritten on success. A trap comes back as the
 * error.
 */
WASM_API_EXTERN weft_error_t *weft_component_func_call(const weft_component_func_t *func, weft_context_t *context,
                                                       const weft_component_val_t *args, size_t args_size,
                                                       weft_component_val_t *results, size_t results_size);

/// \brief Does nothing (calls run `post-return` themselves); returns NULL.
WASM_API_EXTERN weft_error_t *weft_component_func_post_return(const weft_component_func_t *func,
                                                              weft_context_t *context);

/**
 * \brief Starts the call of #weft_component_func_call as a future: poll it
 * with #weft_call_future_poll; when it completes, `*error_ret` holds the
 * error (or NULL) and `results` the results. Every argument must outlive
 * the future.
 */
WASM_API_EXTERN weft_call_future_t *weft_component_func_call_async(const weft_component_func_t *func,
                                                                   weft_context_t *context,
                                                                   const weft_component_val_t *args,
                                                                   size_t args_size, weft_component_val_t *results,
                                                                   size_t results_size, weft_error_t **error_ret);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_COMPONENT_FUNC_H

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
#include <weft/config.h>
#include <weft/error.h>
#include <weft/func.h>
#include <weft/instance.h>
#include <weft/linker.h>
#include <weft/module.h>
#include <weft/store.h>

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

/**
 * \brief An async host function: `(env, caller, args, nargs, results,
 * nresults, trap_ret, continuation_ret)`. It sets `*trap_ret` (given to
 * Weft) to trap, or fills `*continuation_ret`; the results must be written
 * by the time the continuation reports done.
 */
typedef void (*weft_func_async_callback_t)(void *env, weft_caller_t *caller, const weft_val_t *args, size_t nargs,
                                           weft_val_t *results, size_t nresults, wasm_trap_t **trap_ret,
                                           weft_async_continuation_t *continuation_ret);

/**
 * \brief With async calls, hands fuel to wasm in slices of `interval` and
 * yields (the future's poll returns false) between slices; 0 never yields.
 * Fails unless fuel is configured, or inside a host function.
 */
WASM_API_EXTERN weft_error_t *weft_context_fuel_async_yield_interval(weft_context_t *context, uint64_t interval);

/**
 * \brief At the epoch deadline, async calls yield and continue with a
 * deadline `delta` ticks later (fails inside a host function).
 */
WASM_API_EXTERN weft_error_t *weft_context_epoch_deadline_async_yield_and_update(weft_context_t *context,
                                                                                 uint64_t delta);

/**
 * \brief Starts the call of #weft_func_call as a future; when it completes,
 * `*trap_ret` and `*error_ret` (both non-NULL) tell its outcome as
 * #weft_func_call's would, and `results` hold the results.
 */
WASM_API_EXTERN weft_call_future_t *weft_func_call_async(weft_context_t *context, const weft_func_t *func,
                                                         const weft_val_t *args, size_t nargs, weft_val_t *results,
                                                         size_t nresults, wasm_trap_t **trap_ret,
                                                         weft_error_t **error_ret);

/// \brief Defines `module::name` as an async host function of type `ty` (see #weft_func_async_callback_t).
WASM_API_EXTERN weft_error_t *weft_linker_define_async_func(weft_linker_t *linker, const char *module,
                                                            size_t module_len, const char *name, size_t name_len,
                                                            const wasm_functype_t *ty, weft_func_async_callback_t cb,
                                                            void *data, void (*finalizer)(void *));

/// \brief Starts #weft_linker_instantiate as a future.
WASM_API_EXTERN weft_call_future_t *weft_linker_instantiate_async(const weft_linker_t *linker, weft_context_t *store,
                                                                  const weft_module_t *module,
                                                                  weft_instance_t *instance, wasm_trap_t **trap_ret,
                                                                  weft_error_t **error_ret);

/// \brief Starts #weft_instance_pre_instantiate as a future.
WASM_API_EXTERN weft_call_future_t *weft_instance_pre_instantiate_async(const weft_instance_pre_t *instance_pre,
                                                                        weft_context_t *store,
                                                                        weft_instance_t *instance,
                                                                        wasm_trap_t **trap_ret,
                                                                        weft_error_t **error_ret);

/**
 * \brief Gives the stack memory of a #weft_stack_memory_t: returns the top
 * of the stack (its highest address, page-aligned) and sets `*out_len` to
 * its usable length (guard pages excluded, a multiple of the page size).
 */
typedef uint8_t *(*weft_stack_memory_get_callback_t)(void *env, size_t *out_len);

/// \brief A stack made by a #weft_stack_creator_t (owned by Weft once given).
typedef struct {
  /// The data passed to `get_stack_memory`.
  void *env;
  /// Gives the stack's top and length; its memory stays valid until `finalizer` runs.
  weft_stack_memory_get_callback_t get_stack_memory;
  /// Called once when the stack is no longer used (frees `env` and the memory; may be NULL).
  void (*finalizer)(void *);
} weft_stack_memory_t;

/**
 * \brief Makes a stack of at least `size` usable bytes (zeroed if
 * `zeroed`) in `*stack_ret`, or returns an error. Called from whichever
 * thread starts an async call, so it must be thread-safe.
 */
typedef weft_error_t *(*weft_new_stack_memory_callback_t)(void *env, size_t size, bool zeroed,
                                                         weft_stack_memory_t *stack_ret);

/// \brief A maker of the stacks async calls run on.
typedef struct {
  /// The data passed to `new_stack`.
  void *env;
  /// Makes a stack.
  weft_new_stack_memory_callback_t new_stack;
  /// Called once when the engines using the creator are gone (may be NULL).
  void (*finalizer)(void *);
} weft_stack_creator_t;

/**
 * \brief Makes the stacks of async calls with `creator` (the struct is
 * copied; its `env` is owned by the configuration from now on): an async
 * call that finds no idle stack asks it for one of
 * #weft_config_async_stack_size_set bytes; a stack whose call ended is kept
 * for the next call (up to 16 idle ones) and given back (its finalizer)
 * when the engine is deleted, as Wasmtime reuses stacks rather than asking
 * for one per call. A stack that is not page-aligned, is smaller than asked
 * or is empty makes the call fail with an error saying so.
 */
WASM_API_EXTERN void weft_config_host_stack_creator_set(wasm_config_t *config, weft_stack_creator_t *creator);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_ASYNC_H

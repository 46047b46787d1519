/**
 * \file weft/component/linker.h
 *
 * \brief Component linkers: host functions, resources, modules and
 * instances that components import.
 */

#ifndef WEFT_COMPONENT_LINKER_H
#define WEFT_COMPONENT_LINKER_H

#include <wasm.h>
#include <weft/async.h>
#include <weft/component/component.h>
#include <weft/component/instance.h>
#include <weft/component/types/func.h>
#include <weft/component/types/resource.h>
#include <weft/component/val.h>
#include <weft/error.h>
#include <weft/module.h>
#include <weft/store.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief A linker of components.
typedef struct weft_component_linker_t weft_component_linker_t;

/// \brief An instance being defined in a linker.
typedef struct weft_component_linker_instance_t weft_component_linker_instance_t;

/**
 * \brief A host function: `(data, context, type, args, nargs, results,
 * nresults)`. The arguments belong to Weft (freed after the call); the
 * results arrive as `false` values and must be overwritten with values Weft
 * then takes. A returned error becomes a trap in the guest.
 */
typedef weft_error_t *(*weft_component_func_callback_t)(void *, weft_context_t *,
                                                        const weft_component_func_type_t *,
                                                        weft_component_val_t *, size_t, weft_component_val_t *,
                                                        size_t);

/// \brief The destructor of a host resource type: `(data, context, rep)`.
typedef weft_error_t *(*weft_component_resource_destructor_t)(void *, weft_context_t *, uint32_t);

/**
 * \brief An async host function: as #weft_component_func_callback_t, but it
 * sets `*error_ret` to fail, or fills `*continuation_ret`, polled until it
 * reports done; the results must be written by then. The arguments stay
 * alive until the continuation is done.
 */
typedef void (*weft_component_func_async_callback_t)(void *env, weft_context_t *context,
                                                     const weft_component_func_type_t *ty,
                                                     weft_component_val_t *args, size_t nargs,
                                                     weft_component_val_t *results, size_t nresults,
                                                     weft_error_t **error_ret,
                                                     weft_async_continuation_t *continuation_ret);

/// \brief A new, empty linker.
WASM_API_EXTERN weft_component_linker_t *weft_component_linker_new(const wasm_engine_t *engine);

/// \brief Whether later definitions may replace earlier ones (default false).
WASM_API_EXTERN void weft_component_linker_allow_shadowing(weft_component_linker_t *linker, bool allow);

/**
 * \brief The root instance of the linker. It has exclusive use of the
 * linker: do not use `linker` until it is deleted.
 */
WASM_API_EXTERN weft_component_linker_instance_t *weft_component_linker_root(weft_component_linker_t *linker);

/// \brief Instantiates `component` in `*instance_out`; traps come back as the error.
WASM_API_EXTERN weft_error_t *weft_component_linker_instantiate(const weft_component_linker_t *linker,
                                                                weft_context_t *context,
                                                                const weft_component_t *component,
                                                                weft_component_instance_t *instance_out);

/**
 * \brief Starts #weft_component_linker_instantiate as a future (see
 * weft/async.h); `*error_ret` holds the outcome when it completes.
 */
WASM_API_EXTERN weft_call_future_t *weft_component_linker_instantiate_async(const weft_component_linker_t *linker,
                                                                            weft_context_t *context,
                                                                            const weft_component_t *component,
                                                                            weft_component_instance_t *instance_out,
                                                                            weft_error_t **error_ret);

/// \brief Defines each import of `component` the linker lacks as a function that traps.
WASM_API_EXTERN weft_error_t *weft_component_linker_define_unknown_imports_as_traps(weft_component_linker_t *linker,
                                                                                    const weft_component_t *component);

/**
 * \brief Adds every import of WASI 0.2's `wasi:cli/command` world (any
 * 0.2.x release), for synchronous instantiation and calls.
 *
 * The functions use the WASI context of the store that calls them, given by
 * #weft_context_set_wasi (a store without one gives the guest no arguments,
 * no environment, a closed stdin, discarded stdout and stderr and no
 * directories).
 */
WASM_API_EXTERN weft_error_t *weft_component_linker_add_wasip2(weft_component_linker_t *linker);

/**
 * \brief Adds `wasi:http/types` and `wasi:http/outgoing-handler` (the
 * `wasi:http` part of the `wasi:http/proxy` world), for synchronous calls.
 * Add WASI 0.2 first (#weft_component_linker_add_wasip2): `wasi:http` uses
 * its `wasi:io` streams. The store's context is that of
 * #weft_context_set_wasi_http; outgoing requests are refused with
 * `HTTP-request-denied`. An error if `linker` is NULL or already defines
 * these names.
 */
WASM_API_EXTERN weft_error_t *weft_component_linker_add_wasi_http(weft_component_linker_t *linker);

/**
 * \brief Adds WASI 0.2 as #weft_component_linker_add_wasip2 does, for
 * components instantiated with #weft_component_linker_instantiate_async and
 * called with #weft_component_func_call_async.
 */
WASM_API_EXTERN weft_error_t *weft_component_linker_add_wasip2_async(weft_component_linker_t *linker);

/**
 * \brief Adds `wasi:http` as #weft_component_linker_add_wasi_http does, for
 * guests instantiated and called asynchronously (after
 * #weft_component_linker_add_wasip2_async).
 */
WASM_API_EXTERN weft_error_t *weft_component_linker_add_wasi_http_async(weft_component_linker_t *linker);

/// \brief Deletes the linker.
WASM_API_EXTERN void weft_component_linker_delete(weft_component_linker_t *linker);

/**
 * \brief Defines (or opens) the instance `name` inside this one, in
 * `*linker_instance_out`; do not use the parent until the child is deleted.
 */
WASM_API_EXTERN weft_error_t *
weft_component_linker_instance_add_instance(weft_component_linker_instance_t *linker_instance, const char *name,
                                            size_t name_len,
                                            weft_component_linker_instance_t **linker_instance_out);

/// \brief Defines `name` as a core module.
WASM_API_EXTERN weft_error_t *weft_component_linker_instance_add_module(weft_component_linker_instance_t *linker_instance,
                                                                        const char *name, size_t name_len,
                                                                        const weft_module_t *module);

/// \brief Defines `name` as a host function calling `callback` with `data` (freed by `finalizer`).
WASM_API_EXTERN weft_error_t *weft_component_linker_instance_add_func(weft_component_linker_instance_t *linker_instance,
                                                                      const char *name, size_t name_len,
                                                                      weft_component_func_callback_t callback,
                                                                      void *data, void (*finalizer)(void *));

/**
 * \brief Defines `name` as an async host function: while its continuation
 * is not done, the call (made with #weft_component_func_call_async) yields
 * to the host's poll loop.
 */
WASM_API_EXTERN weft_error_t *
weft_component_linker_instance_add_func_async(weft_component_linker_instance_t *linker_instance, const char *name,
                                              size_t name_len, weft_component_func_async_callback_t callback,
                                              void *data, void (*finalizer)(void *));

/**
 * \brief Defines `name` as the host resource type `resource`; `destructor`
 * (may be NULL) runs when the guest drops an `own` handle.
 */
WASM_API_EXTERN weft_error_t *
weft_component_linker_instance_add_resource(weft_component_linker_instance_t *linker_instance, const char *name,
                                            size_t name_len, const weft_component_resource_type_t *resource,
                                            weft_component_resource_destructor_t destructor, void *data,
                                            void (*finalizer)(void *));

/// \brief Deletes the linker instance, giving its parent (or linker) back.
WASM_API_EXTERN void weft_component_linker_instance_delete(weft_component_linker_instance_t *linker_instance);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_COMPONENT_LINKER_H

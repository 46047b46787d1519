/**
 * \file weft/linker.h
 *
 * \brief Linkers: definitions by name (#weft_linker_t).
 */

#ifndef WEFT_LINKER_H
#define WEFT_LINKER_H

#include <wasm.h>
#include <weft/error.h>
#include <weft/extern.h>
#include <weft/func.h>
#include <weft/instance.h>
#include <weft/module.h>
#include <weft/store.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \typedef weft_linker_t
 * \brief Definitions by module and name, to instantiate modules with.
 * Freed with #weft_linker_delete.
 */
typedef struct weft_linker weft_linker_t;

/// \brief A new, empty linker for `engine`.
WASM_API_EXTERN weft_linker_t *weft_linker_new(wasm_engine_t *engine);

/// \brief A copy of the linker.
WASM_API_EXTERN weft_linker_t *weft_linker_clone(const weft_linker_t *linker);

/// \brief Deletes a linker.
WASM_API_EXTERN void weft_linker_delete(weft_linker_t *linker);

/**
 * \brief Whether a definition may replace an earlier one of the same name
 * (default false: redefining is an error).
 */
WASM_API_EXTERN void weft_linker_allow_shadowing(weft_linker_t *linker, bool allow_shadowing);

/**
 * \brief Defines each function import of `module` that the linker lacks as
 * a function that fails when called.
 */
WASM_API_EXTERN weft_error_t *weft_linker_define_unknown_imports_as_traps(weft_linker_t *linker,
                                                                          const weft_module_t *module);

/**
 * \brief Defines each import of `module` that the linker lacks as an item
 * of default contents made in `store`: a function returning default values
 * (zeros and null references), a global of such a value, a table of nulls,
 * a memory of its minimum size, or a new tag. Fails, naming the import, when
 * its type has no default (a non-nullable reference).
 */
WASM_API_EXTERN weft_error_t *weft_linker_define_unknown_imports_as_default_values(weft_linker_t *linker,
                                                                                   weft_context_t *store,
                                                                                   const weft_module_t *module);

/// \brief Defines `module::name` as `item` (an object of `store`).
WASM_API_EXTERN weft_error_t *weft_linker_define(weft_linker_t *linker, weft_context_t *store, const char *module,
                                                 size_t module_len, const char *name, size_t name_len,
                                                 const weft_extern_t *item);

/**
 * \brief Defines `module::name` as a host function of type `ty`, usable
 * with any store; the callback is as #weft_func_new's. `finalizer`, if not
 * NULL, is called with `data` when the definition is dropped (with the
 * linker and every store using it).
 */
WASM_API_EXTERN weft_error_t *weft_linker_define_func(weft_linker_t *linker, const char *module, size_t module_len,
                                                      const char *name, size_t name_len, const wasm_functype_t *ty,
                                                      weft_func_callback_t cb, void *data, void (*finalizer)(void *));

/// \brief Like #weft_linker_define_func, with a callback on raw values.
WASM_API_EXTERN weft_error_t *weft_linker_define_func_unchecked(weft_linker_t *linker, const char *module,
                                                                size_t module_len, const char *name,
                                                                size_t name_len, const wasm_functype_t *ty,
                                                                weft_func_unchecked_callback_t cb, void *data,
                                                                void (*finalizer)(void *));

/**
 * \brief Defines WASI preview1 (`wasi_snapshot_preview1`), which uses the
 * WASI context of the calling store (#weft_context_set_wasi; a store
 * without one gets an empty context).
 */
WASM_API_EXTERN weft_error_t *weft_linker_define_wasi(weft_linker_t *linker);

/// \brief Defines every export of `instance` under the module name `name`.
WASM_API_EXTERN weft_error_t *weft_linker_define_instance(weft_linker_t *linker, weft_context_t *store,
                                                          const char *name, size_t name_len,
                                                          const weft_instance_t *instance);

/**
 * \brief Instantiates `module` with the linker's definitions, in
 * `*instance`: an error if an import is undefined or mistyped, `*trap` if
 * the start function trapped.
 */
WASM_API_EXTERN weft_error_t *weft_linker_instantiate(const weft_linker_t *linker, weft_context_t *store,
                                                      const weft_module_t *module, weft_instance_t *instance,
                                                      wasm_trap_t **trap);

/**
 * \brief Instantiates `module` (running its `_initialize` export, if any)
 * and defines its exports under `name`.
 */
WASM_API_EXTERN weft_error_t *weft_linker_module(weft_linker_t *linker, weft_context_t *store, const char *name,
                                                 size_t name_len, const weft_module_t *module);

/**
 * \brief The default function of module `name` (its export `""`, else
 * `_start`, else a function doing nothing), in `*func`.
 */
WASM_API_EXTERN weft_error_t *weft_linker_get_default(const weft_linker_t *linker, weft_context_t *store,
                                                      const char *name, size_t name_len, weft_func_t *func);

/// \brief The definition of `module::name` in `*item`; false if none.
WASM_API_EXTERN bool weft_linker_get(const weft_linker_t *linker, weft_context_t *store, const char *module,
                                     size_t module_len, const char *name, size_t name_len, weft_extern_t *item);

/**
 * \brief Resolves `module`'s imports in the linker, in `*instance_pre`
 * (the caller owns it); an error if one is undefined.
 */
WASM_API_EXTERN weft_error_t *weft_linker_instantiate_pre(const weft_linker_t *linker, const weft_module_t *module,
                                                          weft_instance_pre_t **instance_pre);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_LINKER_H

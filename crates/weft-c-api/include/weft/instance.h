/**
 * \file weft/instance.h
 *
 * \brief Instances, and modules pre-linked for instantiation.
 */

#ifndef WEFT_INSTANCE_H
#define WEFT_INSTANCE_H

#include <wasm.h>
#include <weft/extern.h>
#include <weft/module.h>
#include <weft/store.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief An instance of a module in a store.
typedef struct weft_instance {
  /// The id of the store the instance belongs to (never 0).
  uint64_t store_id;
  /// Private to Weft.
  size_t __private;
} weft_instance_t;

/**
 * \brief Instantiates `module` with `imports` (`nimports` of them, in the
 * module's import order, all of `store`), in `*instance`.
 *
 * Returns an error for a link error (count, types, other stores); sets
 * `*trap` if the start function trapped; both NULL on success.
 */
WASM_API_EXTERN weft_error_t *weft_instance_new(weft_context_t *store, const weft_module_t *module,
                                                const weft_extern_t *imports, size_t nimports,
                                                weft_instance_t *instance, wasm_trap_t **trap);

/**
 * \brief The export `name` of the instance, in `*item`; false if there is
 * none.
 */
WASM_API_EXTERN bool weft_instance_export_get(weft_context_t *store, const weft_instance_t *instance,
                                              const char *name, size_t name_len, weft_extern_t *item);

/**
 * \brief The export at `index`: its name in `*name` and `*name_len` (owned
 * by the store, not NUL-terminated) and the item in `*item`; false past the
 * last export.
 */
WASM_API_EXTERN bool weft_instance_export_nth(weft_context_t *store, const weft_instance_t *instance, size_t index,
                                              char **name, size_t *name_len, weft_extern_t *item);

/**
 * \typedef weft_instance_pre_t
 * \brief A module whose imports a linker has resolved, ready to instantiate
 * in any store of the engine. Freed with #weft_instance_pre_delete.
 */
typedef struct weft_instance_pre weft_instance_pre_t;

/// \brief Deletes an instance-pre.
WASM_API_EXTERN void weft_instance_pre_delete(weft_instance_pre_t *instance_pre);

/**
 * \brief Instantiates the pre-linked module in `store`, with the three
 * outcomes of #weft_instance_new.
 */
WASM_API_EXTERN weft_error_t *weft_instance_pre_instantiate(const weft_instance_pre_t *instance_pre,
                                                            weft_context_t *store, weft_instance_t *instance,
                                                            wasm_trap_t **trap_ptr);

/// \brief The module of the instance-pre (a new reference, to delete).
WASM_API_EXTERN weft_module_t *weft_instance_pre_module(const weft_instance_pre_t *instance_pre);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_INSTANCE_H

/**
 * \file weft/component/instance.h
 *
 * \brief Instances of components.
 */

#ifndef WEFT_COMPONENT_INSTANCE_H
#define WEFT_COMPONENT_INSTANCE_H

#include <wasm.h>
#include <weft/component/component.h>
#include <weft/component/func.h>
#include <weft/store.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief An instance of a component in a store (a plain value).
typedef struct weft_component_instance {
  /// The id of the store the instance belongs to (never 0).
  uint64_t store_id;
  /// Private to Weft.
  uint32_t __private;
} weft_component_instance_t;

/**
 * \brief The export `name` of the instance, or of its exported instance
 * `instance_export_index` (if not NULL); NULL if there is none.
 */
WASM_API_EXTERN weft_component_export_index_t *
weft_component_instance_get_export_index(const weft_component_instance_t *instance, weft_context_t *context,
                                         const weft_component_export_index_t *instance_export_index,
                                         const char *name, size_t name_len);

/**
 * \brief The function at `export_index`, in `*func_out`; false if that
 * export is not a function.
 */
WASM_API_EXTERN bool weft_component_instance_get_func(const weft_component_instance_t *instance,
                                                      weft_context_t *context,
                                                      const weft_component_export_index_t *export_index,
                                                      weft_component_func_t *func_out);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_COMPONENT_INSTANCE_H

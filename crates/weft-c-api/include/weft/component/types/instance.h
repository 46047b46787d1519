/**
 * \file weft/component/types/instance.h
 *
 * \brief Component instance types.
 */

#ifndef WEFT_COMPONENT_TYPES_INSTANCE_H
#define WEFT_COMPONENT_TYPES_INSTANCE_H

#include <wasm.h>

#ifdef __cplusplus
extern "C" {
#endif

struct weft_component_item_t;

/// \brief A component instance's type.
typedef struct weft_component_instance_type weft_component_instance_type_t;
/// \brief A copy of the type (free with #weft_component_instance_type_delete).
WASM_API_EXTERN weft_component_instance_type_t *weft_component_instance_type_clone(const weft_component_instance_type_t *ty);
/// \brief Deletes the type.
WASM_API_EXTERN void weft_component_instance_type_delete(weft_component_instance_type_t *ty);

/// \brief The number of exports of the instance type.
WASM_API_EXTERN size_t weft_component_instance_type_export_count(const weft_component_instance_type_t *ty, const wasm_engine_t *engine);
/// \brief The export `name`, in `*ret`; false if there is none.
WASM_API_EXTERN bool weft_component_instance_type_export_get(const weft_component_instance_type_t *ty, const wasm_engine_t *engine, const char *name, size_t name_len, struct weft_component_item_t *ret);
/// \brief The export `nth`: name (pointing into the type) and item; false past the last.
WASM_API_EXTERN bool weft_component_instance_type_export_nth(const weft_component_instance_type_t *ty, const wasm_engine_t *engine, size_t nth, const char **name_ret, size_t *name_len_ret, struct weft_component_item_t *type_ret);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_COMPONENT_TYPES_INSTANCE_H

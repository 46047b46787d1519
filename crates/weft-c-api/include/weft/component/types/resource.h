/**
 * \file weft/component/types/resource.h
 *
 * \brief Resource types.
 */

#ifndef WEFT_COMPONENT_TYPES_RESOURCE_H
#define WEFT_COMPONENT_TYPES_RESOURCE_H

#include <wasm.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief A resource type.
typedef struct weft_component_resource_type weft_component_resource_type_t;
/// \brief A copy of the type (free with #weft_component_resource_type_delete).
WASM_API_EXTERN weft_component_resource_type_t *weft_component_resource_type_clone(const weft_component_resource_type_t *ty);
/// \brief Whether the two types are the same.
WASM_API_EXTERN bool weft_component_resource_type_equal(const weft_component_resource_type_t *a, const weft_component_resource_type_t *b);
/// \brief Deletes the type.
WASM_API_EXTERN void weft_component_resource_type_delete(weft_component_resource_type_t *ty);

/// \brief The host resource type named by `ty` (different payloads, different types).
WASM_API_EXTERN weft_component_resource_type_t *weft_component_resource_type_new_host(uint32_t ty);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_COMPONENT_TYPES_RESOURCE_H

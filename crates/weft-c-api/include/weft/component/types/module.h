/**
 * \file weft/component/types/module.h
 *
 * \brief Core module types, as components see them.
 */

#ifndef WEFT_COMPONENT_TYPES_MODULE_H
#define WEFT_COMPONENT_TYPES_MODULE_H

#include <wasm.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief A core module's type.
typedef struct weft_module_type weft_module_type_t;
/// \brief A copy of the type (free with #weft_module_type_delete).
WASM_API_EXTERN weft_module_type_t *weft_module_type_clone(const weft_module_type_t *ty);
/// \brief Deletes the type.
WASM_API_EXTERN void weft_module_type_delete(weft_module_type_t *ty);

/// \brief The number of imports of the module type.
WASM_API_EXTERN size_t weft_module_type_import_count(const weft_module_type_t *ty, const wasm_engine_t *engine);
/// \brief The number of exports of the module type.
WASM_API_EXTERN size_t weft_module_type_export_count(const weft_module_type_t *ty, const wasm_engine_t *engine);
/// \brief The import `nth` (free with `wasm_importtype_delete`), or NULL past the last.
WASM_API_EXTERN wasm_importtype_t *weft_module_type_import_nth(const weft_module_type_t *ty,
                                                               const wasm_engine_t *engine, size_t nth);
/// \brief The export `nth` (free with `wasm_exporttype_delete`), or NULL past the last.
WASM_API_EXTERN wasm_exporttype_t *weft_module_type_export_nth(const weft_module_type_t *ty,
                                                               const wasm_engine_t *engine, size_t nth);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_COMPONENT_TYPES_MODULE_H

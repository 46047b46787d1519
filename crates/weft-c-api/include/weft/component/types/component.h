/**
 * \file weft/component/types/component.h
 *
 * \brief Component types and the items they import and export.
 */

#ifndef WEFT_COMPONENT_TYPES_COMPONENT_H
#define WEFT_COMPONENT_TYPES_COMPONENT_H

#include <wasm.h>
#include <weft/component/types/func.h>
#include <weft/component/types/instance.h>
#include <weft/component/types/module.h>
#include <weft/component/types/resource.h>
#include <weft/component/types/val.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief A component's type.
typedef struct weft_component_type_t weft_component_type_t;
/// \brief A copy of the type (free with #weft_component_type_delete).
WASM_API_EXTERN weft_component_type_t *weft_component_type_clone(const weft_component_type_t *ty);
/// \brief Deletes the type.
WASM_API_EXTERN void weft_component_type_delete(weft_component_type_t *ty);

/// \brief The kind of a #weft_component_item_t.
typedef uint8_t weft_component_item_kind_t;
/// \brief A component.
#define WEFT_COMPONENT_ITEM_COMPONENT 0
/// \brief A component instance.
#define WEFT_COMPONENT_ITEM_COMPONENT_INSTANCE 1
/// \brief A core module.
#define WEFT_COMPONENT_ITEM_MODULE 2
/// \brief A component function.
#define WEFT_COMPONENT_ITEM_COMPONENT_FUNC 3
/// \brief A resource type.
#define WEFT_COMPONENT_ITEM_RESOURCE 4
/// \brief A core function (Weft's types never give one).
#define WEFT_COMPONENT_ITEM_CORE_FUNC 5
/// \brief A value type.
#define WEFT_COMPONENT_ITEM_TYPE 6

/// \brief The type of a #weft_component_item_t.
typedef union weft_component_item_union {
  /// #WEFT_COMPONENT_ITEM_COMPONENT.
  weft_component_type_t *component;
  /// #WEFT_COMPONENT_ITEM_COMPONENT_INSTANCE.
  weft_component_instance_type_t *component_instance;
  /// #WEFT_COMPONENT_ITEM_MODULE.
  weft_module_type_t *module;
  /// #WEFT_COMPONENT_ITEM_COMPONENT_FUNC.
  weft_component_func_type_t *component_func;
  /// #WEFT_COMPONENT_ITEM_RESOURCE.
  weft_component_resource_type_t *resource;
  /// #WEFT_COMPONENT_ITEM_CORE_FUNC.
  wasm_functype_t *core_func;
  /// #WEFT_COMPONENT_ITEM_TYPE.
  weft_component_valtype_t type;
} weft_component_item_union_t;

/// \brief An item a component imports or exports (owned by whoever it was written for).
typedef struct weft_component_item_t {
  /// The kind.
  weft_component_item_kind_t kind;
  /// Its type.
  weft_component_item_union_t of;
} weft_component_item_t;

/// \brief Writes a copy of `*item` to `*out`.
WASM_API_EXTERN void weft_component_item_clone(const weft_component_item_t *item, weft_component_item_t *out);
/// \brief Frees what the item owns.
WASM_API_EXTERN void weft_component_item_delete(weft_component_item_t *ptr);

/// \brief The number of imports.
WASM_API_EXTERN size_t weft_component_type_import_count(const weft_component_type_t *ty, const wasm_engine_t *engine);
/// \brief The import `name`, in `*ret`; false if there is none.
WASM_API_EXTERN bool weft_component_type_import_get(const weft_component_type_t *ty, const wasm_engine_t *engine, const char *name, size_t name_len, weft_component_item_t *ret);
/// \brief The import `nth`: name (pointing into the type) and item; false past the last.
WASM_API_EXTERN bool weft_component_type_import_nth(const weft_component_type_t *ty, const wasm_engine_t *engine, size_t nth, const char **name_ret, size_t *name_len_ret, weft_component_item_t *type_ret);
/// \brief The number of exports.
WASM_API_EXTERN size_t weft_component_type_export_count(const weft_component_type_t *ty, const wasm_engine_t *engine);
/// \brief The export `name`, in `*ret`; false if there is none.
WASM_API_EXTERN bool weft_component_type_export_get(const weft_component_type_t *ty, const wasm_engine_t *engine, const char *name, size_t name_len, weft_component_item_t *ret);
/// \brief The export `nth`: name (pointing into the type) and item; false past the last.
WASM_API_EXTERN bool weft_component_type_export_nth(const weft_component_type_t *ty, const wasm_engine_t *engine, size_t nth, const char **name_ret, size_t *name_len_ret, weft_component_item_t *type_ret);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_COMPONENT_TYPES_COMPONENT_H

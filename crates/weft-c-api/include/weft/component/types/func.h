/**
 * \file weft/component/types/func.h
 *
 * \brief Component function types.
 */

#ifndef WEFT_COMPONENT_TYPES_FUNC_H
#define WEFT_COMPONENT_TYPES_FUNC_H

#include <wasm.h>
#include <weft/component/types/val.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief A component function's type.
typedef struct weft_component_func_type_t weft_component_func_type_t;
/// \brief A copy of the type (free with #weft_component_func_type_delete).
WASM_API_EXTERN weft_component_func_type_t *weft_component_func_type_clone(const weft_component_func_type_t *ty);
/// \brief Deletes the type.
WASM_API_EXTERN void weft_component_func_type_delete(weft_component_func_type_t *ty);

/// \brief Whether the function is an `async func`.
WASM_API_EXTERN bool weft_component_func_type_async(const weft_component_func_type_t *ty);
/// \brief The number of parameters.
WASM_API_EXTERN size_t weft_component_func_type_param_count(const weft_component_func_type_t *ty);
/// \brief The parameter `nth`: name (pointing into the type) and type; false past the last.
WASM_API_EXTERN bool weft_component_func_type_param_nth(const weft_component_func_type_t *ty, size_t nth, const char **name_ret, size_t *name_len_ret, weft_component_valtype_t *type_ret);
/// \brief The result type; false if the function has none.
WASM_API_EXTERN bool weft_component_func_type_result(const weft_component_func_type_t *ty, weft_component_valtype_t *type_ret);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_COMPONENT_TYPES_FUNC_H

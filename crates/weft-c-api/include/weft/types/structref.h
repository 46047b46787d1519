/**
 * \file weft/types/structref.h
 *
 * \brief Storage, field and struct types of the GC proposal.
 */

#ifndef WEFT_TYPES_STRUCTREF_H
#define WEFT_TYPES_STRUCTREF_H

#include <wasm.h>
#include <weft/types/val.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief The kind of a #weft_storage_type_t.
typedef uint8_t weft_storage_type_kind_t;
/// A packed 8-bit integer (read as `i32`)
#define WEFT_STORAGE_TYPE_KIND_I8 0
/// A packed 16-bit integer (read as `i32`)
#define WEFT_STORAGE_TYPE_KIND_I16 1
/// A value type (`valtype`)
#define WEFT_STORAGE_TYPE_KIND_VALTYPE 2

/// \brief What a field or an array element stores.
typedef struct weft_storage_type {
  /// `WEFT_STORAGE_TYPE_KIND_*`
  weft_storage_type_kind_t kind;
  /// The value type (owned), set if and only if the kind is #WEFT_STORAGE_TYPE_KIND_VALTYPE.
  wasm_valtype_t *valtype;
} weft_storage_type_t;

/// \brief Copies `storage` to `out` (delete `out` later).
WASM_API_EXTERN void weft_storage_type_clone(const weft_storage_type_t *storage, weft_storage_type_t *out);

/// \brief Frees the value type of `storage`.
WASM_API_EXTERN void weft_storage_type_delete(weft_storage_type_t *storage);

/// \brief The type of a struct field or of array elements.
typedef struct weft_field_type {
  /// Whether it may be changed.
  bool mutable_;
  /// What it stores.
  weft_storage_type_t storage;
} weft_field_type_t;

/// \brief Copies `field` to `out` (delete `out` later).
WASM_API_EXTERN void weft_field_type_clone(const weft_field_type_t *field, weft_field_type_t *out);

/// \brief Frees the value type of the field's storage type.
WASM_API_EXTERN void weft_field_type_delete(weft_field_type_t *field);

/**
 * \brief A final struct type with the `nfields` fields `fields` (not taken),
 * registered in `engine` (caller-owned: #weft_struct_type_delete), or NULL
 * if a field is invalid. Types of the same fields are the same type: the
 * wasm type `(struct (field ...))` of a module of the engine matches it.
 */
WASM_API_EXTERN weft_struct_type_t *weft_struct_type_new(const wasm_engine_t *engine, const weft_field_type_t *fields,
                                                         size_t nfields);

/// \brief A copy of `ty` (caller-owned).
WASM_API_EXTERN weft_struct_type_t *weft_struct_type_copy(const weft_struct_type_t *ty);

/// \brief Deletes `ty`.
WASM_API_EXTERN void weft_struct_type_delete(weft_struct_type_t *ty);

/// \brief The number of fields of `ty`.
WASM_API_EXTERN size_t weft_struct_type_num_fields(const weft_struct_type_t *ty);

/// \brief Field `index` of `ty` in `out` (delete it later); false, `out` untouched, if there is no such field.
WASM_API_EXTERN bool weft_struct_type_field(const weft_struct_type_t *ty, size_t index, weft_field_type_t *out);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_TYPES_STRUCTREF_H

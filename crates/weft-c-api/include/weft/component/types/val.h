/**
 * \file weft/component/types/val.h
 *
 * \brief Component value types.
 */

#ifndef WEFT_COMPONENT_TYPES_VAL_H
#define WEFT_COMPONENT_TYPES_VAL_H

#include <wasm.h>
#include <weft/component/types/resource.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief A `list` type.
typedef struct weft_component_list_type weft_component_list_type_t;
/// \brief A copy of the type (free with #weft_component_list_type_delete).
WASM_API_EXTERN weft_component_list_type_t *weft_component_list_type_clone(const weft_component_list_type_t *ty);
/// \brief Whether the two types are the same.
WASM_API_EXTERN bool weft_component_list_type_equal(const weft_component_list_type_t *a, const weft_component_list_type_t *b);
/// \brief Deletes the type.
WASM_API_EXTERN void weft_component_list_type_delete(weft_component_list_type_t *ty);

/// \brief A `record` type.
typedef struct weft_component_record_type weft_component_record_type_t;
/// \brief A copy of the type (free with #weft_component_record_type_delete).
WASM_API_EXTERN weft_component_record_type_t *weft_component_record_type_clone(const weft_component_record_type_t *ty);
/// \brief Whether the two types are the same.
WASM_API_EXTERN bool weft_component_record_type_equal(const weft_component_record_type_t *a, const weft_component_record_type_t *b);
/// \brief Deletes the type.
WASM_API_EXTERN void weft_component_record_type_delete(weft_component_record_type_t *ty);

/// \brief A `tuple` type.
typedef struct weft_component_tuple_type weft_component_tuple_type_t;
/// \brief A copy of the type (free with #weft_component_tuple_type_delete).
WASM_API_EXTERN weft_component_tuple_type_t *weft_component_tuple_type_clone(const weft_component_tuple_type_t *ty);
/// \brief Whether the two types are the same.
WASM_API_EXTERN bool weft_component_tuple_type_equal(const weft_component_tuple_type_t *a, const weft_component_tuple_type_t *b);
/// \brief Deletes the type.
WASM_API_EXTERN void weft_component_tuple_type_delete(weft_component_tuple_type_t *ty);

/// \brief A `variant` type.
typedef struct weft_component_variant_type weft_component_variant_type_t;
/// \brief A copy of the type (free with #weft_component_variant_type_delete).
WASM_API_EXTERN weft_component_variant_type_t *weft_component_variant_type_clone(const weft_component_variant_type_t *ty);
/// \brief Whether the two types are the same.
WASM_API_EXTERN bool weft_component_variant_type_equal(const weft_component_variant_type_t *a, const weft_component_variant_type_t *b);
/// \brief Deletes the type.
WASM_API_EXTERN void weft_component_variant_type_delete(weft_component_variant_type_t *ty);

/// \brief An `enum` type.
typedef struct weft_component_enum_type weft_component_enum_type_t;
/// \brief A copy of the type (free with #weft_component_enum_type_delete).
WASM_API_EXTERN weft_component_enum_type_t *weft_component_enum_type_clone(const weft_component_enum_type_t *ty);
/// \brief Whether the two types are the same.
WASM_API_EXTERN bool weft_component_enum_type_equal(const weft_component_enum_type_t *a, const weft_component_enum_type_t *b);
/// \brief Deletes the type.
WASM_API_EXTERN void weft_component_enum_type_delete(weft_component_enum_type_t *ty);

/// \brief An `option` type.
typedef struct weft_component_option_type weft_component_option_type_t;
/// \brief A copy of the type (free with #weft_component_option_type_delete).
WASM_API_EXTERN weft_component_option_type_t *weft_component_option_type_clone(const weft_component_option_type_t *ty);
/// \brief Whether the two types are the same.
WASM_API_EXTERN bool weft_component_option_type_equal(const weft_component_option_type_t *a, const weft_component_option_type_t *b);
/// \brief Deletes the type.
WASM_API_EXTERN void weft_component_option_type_delete(weft_component_option_type_t *ty);

/// \brief A `result` type.
typedef struct weft_component_result_type weft_component_result_type_t;
/// \brief A copy of the type (free with #weft_component_result_type_delete).
WASM_API_EXTERN weft_component_result_type_t *weft_component_result_type_clone(const weft_component_result_type_t *ty);
/// \brief Whether the two types are the same.
WASM_API_EXTERN bool weft_component_result_type_equal(const weft_component_result_type_t *a, const weft_component_result_type_t *b);
/// \brief Deletes the type.
WASM_API_EXTERN void weft_component_result_type_delete(weft_component_result_type_t *ty);

/// \brief A `flags` type.
typedef struct weft_component_flags_type weft_component_flags_type_t;
/// \brief A copy of the type (free with #weft_component_flags_type_delete).
WASM_API_EXTERN weft_component_flags_type_t *weft_component_flags_type_clone(const weft_component_flags_type_t *ty);
/// \brief Whether the two types are the same.
WASM_API_EXTERN bool weft_component_flags_type_equal(const weft_component_flags_type_t *a, const weft_component_flags_type_t *b);
/// \brief Deletes the type.
WASM_API_EXTERN void weft_component_flags_type_delete(weft_component_flags_type_t *ty);

/// \brief A `future` type.
typedef struct weft_component_future_type weft_component_future_type_t;
/// \brief A copy of the type (free with #weft_component_future_type_delete).
WASM_API_EXTERN weft_component_future_type_t *weft_component_future_type_clone(const weft_component_future_type_t *ty);
/// \brief Whether the two types are the same.
WASM_API_EXTERN bool weft_component_future_type_equal(const weft_component_future_type_t *a, const weft_component_future_type_t *b);
/// \brief Deletes the type.
WASM_API_EXTERN void weft_component_future_type_delete(weft_component_future_type_t *ty);

/// \brief A `stream` type.
typedef struct weft_component_stream_type weft_component_stream_type_t;
/// \brief A copy of the type (free with #weft_component_stream_type_delete).
WASM_API_EXTERN weft_component_stream_type_t *weft_component_stream_type_clone(const weft_component_stream_type_t *ty);
/// \brief Whether the two types are the same.
WASM_API_EXTERN bool weft_component_stream_type_equal(const weft_component_stream_type_t *a, const weft_component_stream_type_t *b);
/// \brief Deletes the type.
WASM_API_EXTERN void weft_component_stream_type_delete(weft_component_stream_type_t *ty);

/// \brief A `map` type.
typedef struct weft_component_map_type weft_component_map_type_t;
/// \brief A copy of the type (free with #weft_component_map_type_delete).
WASM_API_EXTERN weft_component_map_type_t *weft_component_map_type_clone(const weft_component_map_type_t *ty);
/// \brief Whether the two types are the same.
WASM_API_EXTERN bool weft_component_map_type_equal(const weft_component_map_type_t *a, const weft_component_map_type_t *b);
/// \brief Deletes the type.
WASM_API_EXTERN void weft_component_map_type_delete(weft_component_map_type_t *ty);

/// \brief The kind of a #weft_component_valtype_t (signed integers before unsigned).
typedef uint8_t weft_component_valtype_kind_t;
/// \brief The kind of `bool`.
#define WEFT_COMPONENT_VALTYPE_BOOL 0
/// \brief The kind of `s8`.
#define WEFT_COMPONENT_VALTYPE_S8 1
/// \brief The kind of `s16`.
#define WEFT_COMPONENT_VALTYPE_S16 2
/// \brief The kind of `s32`.
#define WEFT_COMPONENT_VALTYPE_S32 3
/// \brief The kind of `s64`.
#define WEFT_COMPONENT_VALTYPE_S64 4
/// \brief The kind of `u8`.
#define WEFT_COMPONENT_VALTYPE_U8 5
/// \brief The kind of `u16`.
#define WEFT_COMPONENT_VALTYPE_U16 6
/// \brief The kind of `u32`.
#define WEFT_COMPONENT_VALTYPE_U32 7
/// \brief The kind of `u64`.
#define WEFT_COMPONENT_VALTYPE_U64 8
/// \brief The kind of `f32`.
#define WEFT_COMPONENT_VALTYPE_F32 9
/// \brief The kind of `f64`.
#define WEFT_COMPONENT_VALTYPE_F64 10
/// \brief The kind of `char`.
#define WEFT_COMPONENT_VALTYPE_CHAR 11
/// \brief The kind of `string`.
#define WEFT_COMPONENT_VALTYPE_STRING 12
/// \brief The kind of `list`.
#define WEFT_COMPONENT_VALTYPE_LIST 13
/// \brief The kind of `record`.
#define WEFT_COMPONENT_VALTYPE_RECORD 14
/// \brief The kind of `tuple`.
#define WEFT_COMPONENT_VALTYPE_TUPLE 15
/// \brief The kind of `variant`.
#define WEFT_COMPONENT_VALTYPE_VARIANT 16
/// \brief The kind of `enum`.
#define WEFT_COMPONENT_VALTYPE_ENUM 17
/// \brief The kind of `option`.
#define WEFT_COMPONENT_VALTYPE_OPTION 18
/// \brief The kind of `result`.
#define WEFT_COMPONENT_VALTYPE_RESULT 19
/// \brief The kind of `flags`.
#define WEFT_COMPONENT_VALTYPE_FLAGS 20
/// \brief The kind of `own`.
#define WEFT_COMPONENT_VALTYPE_OWN 21
/// \brief The kind of `borrow`.
#define WEFT_COMPONENT_VALTYPE_BORROW 22
/// \brief The kind of `future`.
#define WEFT_COMPONENT_VALTYPE_FUTURE 23
/// \brief The kind of `stream`.
#define WEFT_COMPONENT_VALTYPE_STREAM 24
/// \brief The kind of `error-context`.
#define WEFT_COMPONENT_VALTYPE_ERROR_CONTEXT 25
/// \brief The kind of `map`.
#define WEFT_COMPONENT_VALTYPE_MAP 26

/// \brief The payload of a #weft_component_valtype_t (none for primitives and `error-context`).
typedef union weft_component_valtype_union {
  /// #WEFT_COMPONENT_VALTYPE_LIST (also `list<T, N>`).
  weft_component_list_type_t *list;
  /// #WEFT_COMPONENT_VALTYPE_RECORD.
  weft_component_record_type_t *record;
  /// #WEFT_COMPONENT_VALTYPE_TUPLE.
  weft_component_tuple_type_t *tuple;
  /// #WEFT_COMPONENT_VALTYPE_VARIANT.
  weft_component_variant_type_t *variant;
  /// #WEFT_COMPONENT_VALTYPE_ENUM.
  weft_component_enum_type_t *enum_;
  /// #WEFT_COMPONENT_VALTYPE_OPTION.
  weft_component_option_type_t *option;
  /// #WEFT_COMPONENT_VALTYPE_RESULT.
  weft_component_result_type_t *result;
  /// #WEFT_COMPONENT_VALTYPE_FLAGS.
  weft_component_flags_type_t *flags;
  /// #WEFT_COMPONENT_VALTYPE_OWN.
  weft_component_resource_type_t *own;
  /// #WEFT_COMPONENT_VALTYPE_BORROW.
  weft_component_resource_type_t *borrow;
  /// #WEFT_COMPONENT_VALTYPE_FUTURE.
  weft_component_future_type_t *future;
  /// #WEFT_COMPONENT_VALTYPE_STREAM.
  weft_component_stream_type_t *stream;
  /// #WEFT_COMPONENT_VALTYPE_MAP.
  weft_component_map_type_t *map;
} weft_component_valtype_union_t;

/// \brief A component value type (owned by whoever it was written for).
typedef struct weft_component_valtype_t {
  /// The kind.
  weft_component_valtype_kind_t kind;
  /// The payload.
  weft_component_valtype_union_t of;
} weft_component_valtype_t;

/// \brief Writes a copy of `*ty` to `*out`.
WASM_API_EXTERN void weft_component_valtype_clone(const weft_component_valtype_t *ty, weft_component_valtype_t *out);
/// \brief Whether the two value types are the same.
WASM_API_EXTERN bool weft_component_valtype_equal(const weft_component_valtype_t *a, const weft_component_valtype_t *b);
/// \brief Frees what the value type owns.
WASM_API_EXTERN void weft_component_valtype_delete(weft_component_valtype_t *ptr);

/// \brief The element type of a list, in `*type_ret`.
WASM_API_EXTERN void weft_component_list_type_element(const weft_component_list_type_t *ty, weft_component_valtype_t *type_ret);
/// \brief The number of fields of a record.
WASM_API_EXTERN size_t weft_component_record_type_field_count(const weft_component_record_type_t *ty);
/// \brief The field `nth` of a record (its name points into the type); false past the last.
WASM_API_EXTERN bool weft_component_record_type_field_nth(const weft_component_record_type_t *ty, size_t nth, const char **name_ret, size_t *name_len_ret, weft_component_valtype_t *type_ret);
/// \brief The number of types of a tuple.
WASM_API_EXTERN size_t weft_component_tuple_type_types_count(const weft_component_tuple_type_t *ty);
/// \brief The type `nth` of a tuple; false past the last.
WASM_API_EXTERN bool weft_component_tuple_type_types_nth(const weft_component_tuple_type_t *ty, size_t nth, weft_component_valtype_t *type_ret);
/// \brief The number of cases of a variant.
WASM_API_EXTERN size_t weft_component_variant_type_case_count(const weft_component_variant_type_t *ty);
/// \brief The case `nth` of a variant: name, whether it has a payload, and its type; false past the last.
WASM_API_EXTERN bool weft_component_variant_type_case_nth(const weft_component_variant_type_t *ty, size_t nth, const char **name_ret, size_t *name_len_ret, bool *has_payload_ret, weft_component_valtype_t *payload_ret);
/// \brief The number of names of an enum.
WASM_API_EXTERN size_t weft_component_enum_type_names_count(const weft_component_enum_type_t *ty);
/// \brief The name `nth` of an enum; false past the last.
WASM_API_EXTERN bool weft_component_enum_type_names_nth(const weft_component_enum_type_t *ty, size_t nth, const char **name_ret, size_t *name_len_ret);
/// \brief The payload type of an option.
WASM_API_EXTERN void weft_component_option_type_ty(const weft_component_option_type_t *ty, weft_component_valtype_t *type_ret);
/// \brief The `ok` type of a result; false if it has none.
WASM_API_EXTERN bool weft_component_result_type_ok(const weft_component_result_type_t *ty, weft_component_valtype_t *type_ret);
/// \brief The `err` type of a result; false if it has none.
WASM_API_EXTERN bool weft_component_result_type_err(const weft_component_result_type_t *ty, weft_component_valtype_t *type_ret);
/// \brief The number of names of a flags type.
WASM_API_EXTERN size_t weft_component_flags_type_names_count(const weft_component_flags_type_t *ty);
/// \brief The name `nth` of a flags type; false past the last.
WASM_API_EXTERN bool weft_component_flags_type_names_nth(const weft_component_flags_type_t *ty, size_t nth, const char **name_ret, size_t *name_len_ret);
/// \brief The payload type of a future; false if it has none.
WASM_API_EXTERN bool weft_component_future_type_ty(const weft_component_future_type_t *ty, weft_component_valtype_t *type_ret);
/// \brief The element type of a stream; false if it has none.
WASM_API_EXTERN bool weft_component_stream_type_ty(const weft_component_stream_type_t *ty, weft_component_valtype_t *type_ret);
/// \brief The key type of a map.
WASM_API_EXTERN void weft_component_map_type_key(const weft_component_map_type_t *ty, weft_component_valtype_t *type_ret);
/// \brief The value type of a map.
WASM_API_EXTERN void weft_component_map_type_value(const weft_component_map_type_t *ty, weft_component_valtype_t *type_ret);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_COMPONENT_TYPES_VAL_H

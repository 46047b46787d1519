/**
 * \file weft/component/val.h
 *
 * \brief Component values (#weft_component_val_t) and resources held by
 * the host.
 */

#ifndef WEFT_COMPONENT_VAL_H
#define WEFT_COMPONENT_VAL_H

#include <wasm.h>
#include <weft/component/types/resource.h>
#include <weft/error.h>
#include <weft/store.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief A resource handle (guest- or host-defined) held by the host. For
 * each logical resource call #weft_component_resource_any_drop (or convert
 * it with #weft_component_resource_any_to_host); for each handle object
 * call #weft_component_resource_any_delete.
 */
typedef struct weft_component_resource_any weft_component_resource_any_t;

/// \brief The resource's type (free with #weft_component_resource_type_delete).
WASM_API_EXTERN weft_component_resource_type_t *
weft_component_resource_any_type(const weft_component_resource_any_t *resource);
/// \brief A new handle object for the same resource.
WASM_API_EXTERN weft_component_resource_any_t *
weft_component_resource_any_clone(const weft_component_resource_any_t *resource);
/// \brief Whether the handle is an `own` (else a `borrow`).
WASM_API_EXTERN bool weft_component_resource_any_owned(const weft_component_resource_any_t *resource);
/// \brief Drops the resource, running its destructor for an `own` that came
/// from a guest (a handle the host made with
/// #weft_component_resource_host_to_any runs none, as in Wasmtime).
WASM_API_EXTERN weft_error_t *weft_component_resource_any_drop(weft_context_t *ctx,
                                                               const weft_component_resource_any_t *resource);
/// \brief Frees the handle object (not the resource).
WASM_API_EXTERN void weft_component_resource_any_delete(weft_component_resource_any_t *resource);

/// \brief A host resource: a representation and a type payload, both the host's.
typedef struct weft_component_resource_host weft_component_resource_host_t;

/// \brief A new host resource (free with #weft_component_resource_host_delete).
WASM_API_EXTERN weft_component_resource_host_t *weft_component_resource_host_new(bool owned, uint32_t rep,
                                                                                 uint32_t ty);
/// \brief A copy of the host resource.
WASM_API_EXTERN weft_component_resource_host_t *
weft_component_resource_host_clone(const weft_component_resource_host_t *resource);
/// \brief The representation.
WASM_API_EXTERN uint32_t weft_component_resource_host_rep(const weft_component_resource_host_t *resource);
/// \brief The type payload (as given to #weft_component_resource_type_new_host).
WASM_API_EXTERN uint32_t weft_component_resource_host_type(const weft_component_resource_host_t *resource);
/// \brief Whether it is an `own`.
WASM_API_EXTERN bool weft_component_resource_host_owned(const weft_component_resource_host_t *resource);
/// \brief Frees the host resource object.
WASM_API_EXTERN void weft_component_resource_host_delete(weft_component_resource_host_t *resource);
/// \brief The host resource held by `resource` in `*ret`; an error for a guest-defined resource.
WASM_API_EXTERN weft_error_t *weft_component_resource_any_to_host(weft_context_t *ctx,
                                                                  const weft_component_resource_any_t *resource,
                                                                  weft_component_resource_host_t **ret);
/// \brief `resource` as a handle of the store, in `*ret`.
WASM_API_EXTERN weft_error_t *weft_component_resource_host_to_any(weft_context_t *ctx,
                                                                  const weft_component_resource_host_t *resource,
                                                                  weft_component_resource_any_t **ret);

/// \brief The kind of a #weft_component_val_t.
typedef uint8_t weft_component_valkind_t;

/// \brief The kind of a `bool` value.
#define WEFT_COMPONENT_BOOL 0
/// \brief The kind of a `s8` value.
#define WEFT_COMPONENT_S8 1
/// \brief The kind of a `u8` value.
#define WEFT_COMPONENT_U8 2
/// \brief The kind of a `s16` value.
#define WEFT_COMPONENT_S16 3
/// \brief The kind of a `u16` value.
#define WEFT_COMPONENT_U16 4
/// \brief The kind of a `s32` value.
#define WEFT_COMPONENT_S32 5
/// \brief The kind of a `u32` value.
#define WEFT_COMPONENT_U32 6
/// \brief The kind of a `s64` value.
#define WEFT_COMPONENT_S64 7
/// \brief The kind of a `u64` value.
#define WEFT_COMPONENT_U64 8
/// \brief The kind of a `f32` value.
#define WEFT_COMPONENT_F32 9
/// \brief The kind of a `f64` value.
#define WEFT_COMPONENT_F64 10
/// \brief The kind of a `char` value.
#define WEFT_COMPONENT_CHAR 11
/// \brief The kind of a `string` value.
#define WEFT_COMPONENT_STRING 12
/// \brief The kind of a `list` value.
#define WEFT_COMPONENT_LIST 13
/// \brief The kind of a `record` value.
#define WEFT_COMPONENT_RECORD 14
/// \brief The kind of a `tuple` value.
#define WEFT_COMPONENT_TUPLE 15
/// \brief The kind of a `variant` value.
#define WEFT_COMPONENT_VARIANT 16
/// \brief The kind of a `enum` value.
#define WEFT_COMPONENT_ENUM 17
/// \brief The kind of a `option` value.
#define WEFT_COMPONENT_OPTION 18
/// \brief The kind of a `result` value.
#define WEFT_COMPONENT_RESULT 19
/// \brief The kind of a `flags` value.
#define WEFT_COMPONENT_FLAGS 20
/// \brief The kind of a `resource` value.
#define WEFT_COMPONENT_RESOURCE 21
/// \brief The kind of a `map` value.
#define WEFT_COMPONENT_MAP 22

struct weft_component_val;
struct weft_component_valrecord_entry;
struct weft_component_valmap_entry;

/// \brief A vector of a list's values.
typedef struct weft_component_vallist {
  /// The number of elements.
  size_t size;
  /// The elements.
  struct weft_component_val *data;
} weft_component_vallist_t;

/// \brief Sets `*out` to the `size` elements at `ptr`, taking them.
WASM_API_EXTERN void weft_component_vallist_new(weft_component_vallist_t *out, size_t size, const struct weft_component_val *ptr);
/// \brief Sets `*out` to an empty vector.
WASM_API_EXTERN void weft_component_vallist_new_empty(weft_component_vallist_t *out);
/// \brief Sets `*out` to `size` default elements (`false` values, empty names).
WASM_API_EXTERN void weft_component_vallist_new_uninit(weft_component_vallist_t *out, size_t size);
/// \brief Sets `*dst` to a deep copy of `*src`.
WASM_API_EXTERN void weft_component_vallist_copy(weft_component_vallist_t *dst, const weft_component_vallist_t *src);
/// \brief Frees the elements and the buffer.
WASM_API_EXTERN void weft_component_vallist_delete(weft_component_vallist_t *value);

/// \brief A vector of a record's fields.
typedef struct weft_component_valrecord {
  /// The number of elements.
  size_t size;
  /// The elements.
  struct weft_component_valrecord_entry *data;
} weft_component_valrecord_t;

/// \brief Sets `*out` to the `size` elements at `ptr`, taking them.
WASM_API_EXTERN void weft_component_valrecord_new(weft_component_valrecord_t *out, size_t size, const struct weft_component_valrecord_entry *ptr);
/// \brief Sets `*out` to an empty vector.
WASM_API_EXTERN void weft_component_valrecord_new_empty(weft_component_valrecord_t *out);
/// \brief Sets `*out` to `size` default elements (`false` values, empty names).
WASM_API_EXTERN void weft_component_valrecord_new_uninit(weft_component_valrecord_t *out, size_t size);
/// \brief Sets `*dst` to a deep copy of `*src`.
WASM_API_EXTERN void weft_component_valrecord_copy(weft_component_valrecord_t *dst, const weft_component_valrecord_t *src);
/// \brief Frees the elements and the buffer.
WASM_API_EXTERN void weft_component_valrecord_delete(weft_component_valrecord_t *value);

/// \brief A vector of a tuple's values.
typedef struct weft_component_valtuple {
  /// The number of elements.
  size_t size;
  /// The elements.
  struct weft_component_val *data;
} weft_component_valtuple_t;

/// \brief Sets `*out` to the `size` elements at `ptr`, taking them.
WASM_API_EXTERN void weft_component_valtuple_new(weft_component_valtuple_t *out, size_t size, const struct weft_component_val *ptr);
/// \brief Sets `*out` to an empty vector.
WASM_API_EXTERN void weft_component_valtuple_new_empty(weft_component_valtuple_t *out);
/// \brief Sets `*out` to `size` default elements (`false` values, empty names).
WASM_API_EXTERN void weft_component_valtuple_new_uninit(weft_component_valtuple_t *out, size_t size);
/// \brief Sets `*dst` to a deep copy of `*src`.
WASM_API_EXTERN void weft_component_valtuple_copy(weft_component_valtuple_t *dst, const weft_component_valtuple_t *src);
/// \brief Frees the elements and the buffer.
WASM_API_EXTERN void weft_component_valtuple_delete(weft_component_valtuple_t *value);

/// \brief A vector of the names of the set flags.
typedef struct weft_component_valflags {
  /// The number of elements.
  size_t size;
  /// The elements.
  wasm_name_t *data;
} weft_component_valflags_t;

/// \brief Sets `*out` to the `size` elements at `ptr`, taking them.
WASM_API_EXTERN void weft_component_valflags_new(weft_component_valflags_t *out, size_t size, const wasm_name_t *ptr);
/// \brief Sets `*out` to an empty vector.
WASM_API_EXTERN void weft_component_valflags_new_empty(weft_component_valflags_t *out);
/// \brief Sets `*out` to `size` default elements (`false` values, empty names).
WASM_API_EXTERN void weft_component_valflags_new_uninit(weft_component_valflags_t *out, size_t size);
/// \brief Sets `*dst` to a deep copy of `*src`.
WASM_API_EXTERN void weft_component_valflags_copy(weft_component_valflags_t *dst, const weft_component_valflags_t *src);
/// \brief Frees the elements and the buffer.
WASM_API_EXTERN void weft_component_valflags_delete(weft_component_valflags_t *value);

/// \brief A vector of a map's entries.
typedef struct weft_component_valmap {
  /// The number of elements.
  size_t size;
  /// The elements.
  struct weft_component_valmap_entry *data;
} weft_component_valmap_t;

/// \brief Sets `*out` to the `size` elements at `ptr`, taking them.
WASM_API_EXTERN void weft_component_valmap_new(weft_component_valmap_t *out, size_t size, const struct weft_component_valmap_entry *ptr);
/// \brief Sets `*out` to an empty vector.
WASM_API_EXTERN void weft_component_valmap_new_empty(weft_component_valmap_t *out);
/// \brief Sets `*out` to `size` default elements (`false` values, empty names).
WASM_API_EXTERN void weft_component_valmap_new_uninit(weft_component_valmap_t *out, size_t size);
/// \brief Sets `*dst` to a deep copy of `*src`.
WASM_API_EXTERN void weft_component_valmap_copy(weft_component_valmap_t *dst, const weft_component_valmap_t *src);
/// \brief Frees the elements and the buffer.
WASM_API_EXTERN void weft_component_valmap_delete(weft_component_valmap_t *value);

/// \brief A variant's case and payload.
typedef struct {
  /// The case's name.
  wasm_name_t discriminant;
  /// The payload (from #weft_component_val_new), or NULL.
  struct weft_component_val *val;
} weft_component_valvariant_t;

/// \brief A result's side and payload.
typedef struct {
  /// Whether it is `ok` (else `err`).
  bool is_ok;
  /// The payload (from #weft_component_val_new), or NULL.
  struct weft_component_val *val;
} weft_component_valresult_t;

/// \brief The payload of a #weft_component_val_t.
typedef union {
  /// #WEFT_COMPONENT_BOOL.
  bool boolean;
  /// #WEFT_COMPONENT_S8.
  int8_t s8;
  /// #WEFT_COMPONENT_U8.
  uint8_t u8;
  /// #WEFT_COMPONENT_S16.
  int16_t s16;
  /// #WEFT_COMPONENT_U16.
  uint16_t u16;
  /// #WEFT_COMPONENT_S32.
  int32_t s32;
  /// #WEFT_COMPONENT_U32.
  uint32_t u32;
  /// #WEFT_COMPONENT_S64.
  int64_t s64;
  /// #WEFT_COMPONENT_U64.
  uint64_t u64;
  /// #WEFT_COMPONENT_F32.
  float32_t f32;
  /// #WEFT_COMPONENT_F64.
  float64_t f64;
  /// #WEFT_COMPONENT_CHAR: a Unicode scalar value.
  uint32_t character;
  /// #WEFT_COMPONENT_STRING (UTF-8).
  wasm_name_t string;
  /// #WEFT_COMPONENT_LIST.
  weft_component_vallist_t list;
  /// #WEFT_COMPONENT_RECORD.
  weft_component_valrecord_t record;
  /// #WEFT_COMPONENT_TUPLE.
  weft_component_valtuple_t tuple;
  /// #WEFT_COMPONENT_VARIANT.
  weft_component_valvariant_t variant;
  /// #WEFT_COMPONENT_ENUM: the case's name.
  wasm_name_t enumeration;
  /// #WEFT_COMPONENT_OPTION: NULL for `none`.
  struct weft_component_val *option;
  /// #WEFT_COMPONENT_RESULT.
  weft_component_valresult_t result;
  /// #WEFT_COMPONENT_FLAGS: the names of the set flags.
  weft_component_valflags_t flags;
  /// #WEFT_COMPONENT_MAP.
  weft_component_valmap_t map;
  /// #WEFT_COMPONENT_RESOURCE (owned by the value).
  weft_component_resource_any_t *resource;
} weft_component_valunion_t;

/// \brief A component value: a kind and its payload.
typedef struct weft_component_val {
  /// The kind.
  weft_component_valkind_t kind;
  /// The payload.
  weft_component_valunion_t of;
} weft_component_val_t;

/// \brief A record's field.
typedef struct weft_component_valrecord_entry {
  /// The field's name.
  wasm_name_t name;
  /// Its value.
  weft_component_val_t val;
} weft_component_valrecord_entry_t;

/// \brief A map's entry.
typedef struct weft_component_valmap_entry {
  /// The key.
  weft_component_val_t key;
  /// The value.
  weft_component_val_t value;
} weft_component_valmap_entry_t;

/**
 * \brief Moves `*val` to a new heap value (for payload pointers), leaving a
 * `false` value in its place; free with #weft_component_val_free.
 */
WASM_API_EXTERN weft_component_val_t *weft_component_val_new(weft_component_val_t *val);
/// \brief Frees a value of #weft_component_val_new and what it owns.
WASM_API_EXTERN void weft_component_val_free(weft_component_val_t *ptr);
/// \brief Writes a deep copy of `*src` to `*dst` (delete it later).
WASM_API_EXTERN void weft_component_val_clone(const weft_component_val_t *src, weft_component_val_t *dst);
/// \brief Frees what `*value` owns (not the struct), leaving a `false` value.
WASM_API_EXTERN void weft_component_val_delete(weft_component_val_t *value);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_COMPONENT_VAL_H

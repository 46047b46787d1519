/**
 * \file weft/extern.h
 *
 * \brief Store objects as plain values, and #weft_extern_t.
 */

#ifndef WEFT_EXTERN_H
#define WEFT_EXTERN_H

#include <wasm.h>
#include <weft/store.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief A function of a store.
 *
 * A `store_id` of 0 is a null funcref (inside a #weft_val_t only).
 */
typedef struct weft_func {
  /// The id of the store the function belongs to.
  uint64_t store_id;
  /// Private to Weft.
  void *__private;
} weft_func_t;

/// \brief A table of a store.
typedef struct weft_table {
  struct {
    /// The id of the store the table belongs to.
    uint64_t store_id;
    /// Private to Weft.
    uint32_t __private1;
  };
  /// Private to Weft.
  uint32_t __private2;
} weft_table_t;

/// \brief A memory of a store.
typedef struct weft_memory {
  struct {
    /// The id of the store the memory belongs to.
    uint64_t store_id;
    /// Private to Weft.
    uint32_t __private1;
  };
  /// Private to Weft.
  uint32_t __private2;
} weft_memory_t;

/// \brief A global of a store.
typedef struct weft_global {
  /// The id of the store the global belongs to.
  uint64_t store_id;
  /// Private to Weft.
  uint32_t __private1;
  /// Private to Weft.
  uint32_t __private2;
  /// Private to Weft.
  uint32_t __private3;
} weft_global_t;

/// \brief A tag of a store.
typedef struct weft_tag {
  struct {
    /// The id of the store the tag belongs to.
    uint64_t store_id;
    /// Private to Weft.
    uint32_t __private1;
  };
  /// Private to Weft.
  uint32_t __private2;
} weft_tag_t;

/// \brief The kind of a #weft_extern_t.
typedef uint8_t weft_extern_kind_t;
/// A function.
#define WEFT_EXTERN_FUNC 0
/// A global.
#define WEFT_EXTERN_GLOBAL 1
/// A table.
#define WEFT_EXTERN_TABLE 2
/// A memory.
#define WEFT_EXTERN_MEMORY 3
/// A shared memory (see weft/sharedmemory.h).
#define WEFT_EXTERN_SHAREDMEMORY 4
/// A tag.
#define WEFT_EXTERN_TAG 5

/// \brief A shared memory (see weft/sharedmemory.h).
typedef struct weft_sharedmemory weft_sharedmemory_t;

/// \brief The object of a #weft_extern_t.
typedef union weft_extern_union {
  /// #WEFT_EXTERN_FUNC
  weft_func_t func;
  /// #WEFT_EXTERN_GLOBAL
  weft_global_t global;
  /// #WEFT_EXTERN_TABLE
  weft_table_t table;
  /// #WEFT_EXTERN_MEMORY
  weft_memory_t memory;
  /// #WEFT_EXTERN_SHAREDMEMORY: owned by the extern when Weft returns it
  struct weft_sharedmemory *sharedmemory;
  /// #WEFT_EXTERN_TAG
  weft_tag_t tag;
} weft_extern_union_t;

/**
 * \brief An object a module may import or export.
 *
 * Functions taking one do not take ownership; functions returning one give
 * it to the caller, who releases it with #weft_extern_delete.
 */
typedef struct weft_extern {
  /// The kind (`WEFT_EXTERN_*`).
  weft_extern_kind_t kind;
  /// The object.
  weft_extern_union_t of;
} weft_extern_t;

/// \brief Releases an extern (only shared memories own anything).
WASM_API_EXTERN void weft_extern_delete(weft_extern_t *val);

/// \brief The type of an extern (NULL if it is invalid); the caller owns it.
WASM_API_EXTERN wasm_externtype_t *weft_extern_type(weft_context_t *context, weft_extern_t *val);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_EXTERN_H

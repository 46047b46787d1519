/**
 * \file weft/val.h
 *
 * \brief Values: #weft_val_t and #weft_val_raw_t.
 */

#ifndef WEFT_VAL_H
#define WEFT_VAL_H

#include <wasm.h>
#include <weft/extern.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief The kind of a #weft_val_t.
typedef uint8_t weft_valkind_t;
/// `i32`
#define WEFT_I32 0
/// `i64`
#define WEFT_I64 1
/// `f32`
#define WEFT_F32 2
/// `f64`
#define WEFT_F64 3
/// `v128`
#define WEFT_V128 4
/// `funcref`
#define WEFT_FUNCREF 5
/// `externref` (see `weft/externref.h`)
#define WEFT_EXTERNREF 6
/// `anyref` (see `weft/anyref.h`)
#define WEFT_ANYREF 7
/// `exnref` (see `weft/exnref.h`)
#define WEFT_EXNREF 8

/// \brief A `v128`, as 16 little-endian bytes.
typedef uint8_t weft_v128[16];

/**
 * \brief A GC reference: `store_id` 0 is null.
 *
 * A non-null `anyref` (and #weft_eqref_t, #weft_structref_t,
 * #weft_arrayref_t, which share its layout) is a root owned by the caller:
 * release it with #weft_anyref_unroot (or the `_unroot` of its kind, or
 * #weft_val_unroot), even after its store is deleted. Extern references
 * (#weft_externref_new) and exception references live as long as their
 * store; unrooting them does nothing.
 */
typedef struct weft_anyref {
  /// The id of the store (0: null).
  uint64_t store_id;
  /// Private to Weft.
  uint32_t __private1;
  /// Private to Weft.
  uint32_t __private2;
  /// Private to Weft.
  void *__private3;
} weft_anyref_t;

// Each kind of reference is a struct of its own with the layout of
// #weft_anyref_t, as in Wasmtime: passing one kind where another is expected
// is a compile error; the `_to_`/`_from_` functions convert.

/// \brief An `externref` (same layout as #weft_anyref_t).
typedef struct weft_externref {
  /// The id of the store (0: null).
  uint64_t store_id;
  /// Private to Weft.
  uint32_t __private1;
  /// Private to Weft.
  uint32_t __private2;
  /// Private to Weft.
  void *__private3;
} weft_externref_t;

/// \brief An `exnref` (same layout as #weft_anyref_t).
typedef struct weft_exnref {
  /// The id of the store (0: null).
  uint64_t store_id;
  /// Private to Weft.
  uint32_t __private1;
  /// Private to Weft.
  uint32_t __private2;
  /// Private to Weft.
  void *__private3;
} weft_exnref_t;

/// \brief An `eqref` (same layout and rooting as #weft_anyref_t).
typedef struct weft_eqref {
  /// The id of the store (0: null).
  uint64_t store_id;
  /// Private to Weft.
  uint32_t __private1;
  /// Private to Weft.
  uint32_t __private2;
  /// Private to Weft.
  void *__private3;
} weft_eqref_t;

/// \brief A `structref` (same layout and rooting as #weft_anyref_t).
typedef struct weft_structref {
  /// The id of the store (0: null).
  uint64_t store_id;
  /// Private to Weft.
  uint32_t __private1;
  /// Private to Weft.
  uint32_t __private2;
  /// Private to Weft.
  void *__private3;
} weft_structref_t;

/// \brief An `arrayref` (same layout and rooting as #weft_anyref_t).
typedef struct weft_arrayref {
  /// The id of the store (0: null).
  uint64_t store_id;
  /// Private to Weft.
  uint32_t __private1;
  /// Private to Weft.
  uint32_t __private2;
  /// Private to Weft.
  void *__private3;
} weft_arrayref_t;

/// \brief The payload of a #weft_val_t.
typedef union weft_valunion {
  /// #WEFT_I32
  int32_t i32;
  /// #WEFT_I64
  int64_t i64;
  /// #WEFT_F32
  float32_t f32;
  /// #WEFT_F64
  float64_t f64;
  /// #WEFT_ANYREF
  weft_anyref_t anyref;
  /// #WEFT_EXTERNREF
  weft_externref_t externref;
  /// #WEFT_EXNREF
  weft_exnref_t exnref;
  /// #WEFT_FUNCREF (`store_id` 0: null)
  weft_func_t funcref;
  /// #WEFT_V128
  weft_v128 v128;
} weft_valunion_t;

/**
 * \brief A typed value.
 *
 * Functions taking one do not take ownership; values returned are the
 * caller's (release them with #weft_val_unroot: an `anyref` holds a root).
 */
typedef struct weft_val {
  /// The kind (`WEFT_I32`, ...).
  weft_valkind_t kind;
  /// The payload.
  weft_valunion_t of;
} weft_val_t;

/**
 * \brief A value without its type, for the `*_unchecked` functions. All
 * fields are little-endian.
 */
typedef union weft_val_raw {
  /// `i32`
  int32_t i32;
  /// `i64`
  int64_t i64;
  /// `f32`
  float32_t f32;
  /// `f64`
  float64_t f64;
  /// `v128`
  weft_v128 v128;
  /// `anyref`: 0 is null, else a value of #weft_anyref_to_raw.
  uint32_t anyref;
  /// `externref`: 0 is null, else a value of #weft_externref_to_raw.
  uint32_t externref;
  /// `exnref`: 0 is null, else a value of #weft_exnref_to_raw.
  uint32_t exnref;
  /// `funcref`: NULL, or a value of #weft_func_to_raw.
  void *funcref;
} weft_val_raw_t;

/// \brief Makes `func` a null funcref.
static inline void weft_funcref_set_null(weft_func_t *func) { func->store_id = 0; }

/// \brief Whether `func` is a null funcref.
static inline bool weft_funcref_is_null(const weft_func_t *func) { return func->store_id == 0; }

/// \brief Releases the GC root of `val` (an `anyref`'s; nothing for other kinds). `val` is undefined afterwards.
WASM_API_EXTERN void weft_val_unroot(weft_val_t *val);

/// \brief Copies `src` to `dst`, with a new root for an `anyref` (unroot `dst` later).
WASM_API_EXTERN void weft_val_clone(const weft_val_t *src, weft_val_t *dst);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_VAL_H

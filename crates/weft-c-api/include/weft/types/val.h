/**
 * \file weft/types/val.h
 *
 * \brief Value, reference and heap types of the full type system
 * (#weft_valtype_t, #weft_reftype_t, #weft_heaptype_t), beside `wasm.h`'s
 * `wasm_valtype_t`.
 *
 * Weft's heap types have no concrete struct, array or exception types:
 * #weft_valtype_to_wasm turns #WEFT_HEAPTYPE_KIND_CONCRETE_STRUCT,
 * #WEFT_HEAPTYPE_KIND_CONCRETE_ARRAY and #WEFT_HEAPTYPE_KIND_CONCRETE_EXN
 * into `struct`, `array` and `exn`. The types of references
 * (#weft_anyref_type, #weft_structref_type, ...) are concrete.
 */

#ifndef WEFT_TYPES_VAL_H
#define WEFT_TYPES_VAL_H

#include <wasm.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief A struct type (see `weft/types/structref.h`).
typedef struct weft_struct_type weft_struct_type_t;
/// \brief An array type (see `weft/types/arrayref.h`).
typedef struct weft_array_type weft_array_type_t;
/// \brief An exception type (see `weft/types/exnref.h`).
typedef struct weft_exn_type weft_exn_type_t;

/**
 * \brief The `wasm_valkind_t` that `wasm_valtype_kind` gives the reference
 * types of the `any` hierarchy (`anyref`, `eqref`, `i31ref`, `structref`,
 * `arrayref`, their concrete and `none` types), which `wasm.h` has no kind
 * for; a reference kind (`wasm_valkind_is_ref` holds). `wasm_valtype_new`
 * turns it into `anyref`. #weft_valtype_new gives the precise type.
 */
#define WEFT_WASM_ANYREF 130
/**
 * \brief The `wasm_valkind_t` that `wasm_valtype_kind` gives the reference
 * types of the `exn` hierarchy (`exnref`, `nullexnref`); a reference kind.
 * `wasm_valtype_new` turns it into `exnref`.
 */
#define WEFT_WASM_EXNREF 131

/// \brief The `v128` value type (caller-owned).
WASM_API_EXTERN wasm_valtype_t *weft_wasm_valtype_v128(void);

/// \brief Whether `a` and `b` are the same value type (false if either is NULL).
WASM_API_EXTERN bool weft_wasm_valtype_equal(const wasm_valtype_t *a, const wasm_valtype_t *b);

/// \brief The kind of a #weft_heaptype_t.
typedef uint8_t weft_heaptype_kind_t;
/// `extern`
#define WEFT_HEAPTYPE_KIND_EXTERN 0
/// `noextern`
#define WEFT_HEAPTYPE_KIND_NOEXTERN 1
/// `func`
#define WEFT_HEAPTYPE_KIND_FUNC 2
/// A concrete function type (`of.concrete_func`)
#define WEFT_HEAPTYPE_KIND_CONCRETE_FUNC 3
/// `nofunc`
#define WEFT_HEAPTYPE_KIND_NOFUNC 4
/// `any`
#define WEFT_HEAPTYPE_KIND_ANY 5
/// `none`
#define WEFT_HEAPTYPE_KIND_NONE 6
/// `eq`
#define WEFT_HEAPTYPE_KIND_EQ 7
/// `i31`
#define WEFT_HEAPTYPE_KIND_I31 8
/// `array`
#define WEFT_HEAPTYPE_KIND_ARRAY 9
/// A concrete array type (`of.concrete_array`)
#define WEFT_HEAPTYPE_KIND_CONCRETE_ARRAY 10
/// `struct`
#define WEFT_HEAPTYPE_KIND_STRUCT 11
/// A concrete struct type (`of.concrete_struct`)
#define WEFT_HEAPTYPE_KIND_CONCRETE_STRUCT 12
/// `exn`
#define WEFT_HEAPTYPE_KIND_EXN 13
/// A concrete exception type (`of.concrete_exn`)
#define WEFT_HEAPTYPE_KIND_CONCRETE_EXN 14
/// `noexn`
#define WEFT_HEAPTYPE_KIND_NOEXN 15

/// \brief The concrete type of a #weft_heaptype_t (owned by it).
typedef union weft_heaptype_union {
  /// #WEFT_HEAPTYPE_KIND_CONCRETE_FUNC
  wasm_functype_t *concrete_func;
  /// #WEFT_HEAPTYPE_KIND_CONCRETE_ARRAY
  weft_array_type_t *concrete_array;
  /// #WEFT_HEAPTYPE_KIND_CONCRETE_STRUCT
  weft_struct_type_t *concrete_struct;
  /// #WEFT_HEAPTYPE_KIND_CONCRETE_EXN
  weft_exn_type_t *concrete_exn;
} weft_heaptype_union_t;

/// \brief A heap type: its kind and, for the concrete kinds, the type (owned: see #weft_heaptype_delete).
typedef struct weft_heaptype {
  /// `WEFT_HEAPTYPE_KIND_*`
  weft_heaptype_kind_t kind;
  /// The concrete type, for the concrete kinds.
  weft_heaptype_union_t of;
} weft_heaptype_t;

/// \brief Copies `ty` to `out` (the concrete type cloned; delete `out` later).
WASM_API_EXTERN void weft_heaptype_clone(const weft_heaptype_t *ty, weft_heaptype_t *out);

/// \brief Frees the concrete type of `ty` (needed only for the concrete kinds).
WASM_API_EXTERN void weft_heaptype_delete(weft_heaptype_t *ty);

/// \brief A reference type.
typedef struct weft_reftype {
  /// Whether `null` is a value of the type.
  bool nullable;
  /// The heap type.
  weft_heaptype_t heaptype;
} weft_reftype_t;

/// \brief Copies `ty` to `out` (delete `out` later).
WASM_API_EXTERN void weft_reftype_clone(const weft_reftype_t *ty, weft_reftype_t *out);

/// \brief Frees the concrete heap type of `ty`.
WASM_API_EXTERN void weft_reftype_delete(weft_reftype_t *ty);

/// \brief The kind of a #weft_valtype_t.
typedef uint8_t weft_valtype_kind_t;
/// `i32`
#define WEFT_VALTYPE_KIND_I32 0
/// `i64`
#define WEFT_VALTYPE_KIND_I64 1
/// `f32`
#define WEFT_VALTYPE_KIND_F32 2
/// `f64`
#define WEFT_VALTYPE_KIND_F64 3
/// `v128`
#define WEFT_VALTYPE_KIND_V128 4
/// A reference type (`reftype`)
#define WEFT_VALTYPE_KIND_REF 5

/// \brief A value type of the full type system (parallel to `wasm_valtype_t`).
typedef struct weft_valtype {
  /// `WEFT_VALTYPE_KIND_*`
  weft_valtype_kind_t kind;
  /// The reference type, for #WEFT_VALTYPE_KIND_REF only.
  weft_reftype_t reftype;
} weft_valtype_t;

/// \brief The #weft_valtype_t of `ty`, in `out` (delete it later).
WASM_API_EXTERN void weft_valtype_new(const wasm_valtype_t *ty, weft_valtype_t *out);

/// \brief Copies `ty` to `out` (delete `out` later).
WASM_API_EXTERN void weft_valtype_clone(const weft_valtype_t *ty, weft_valtype_t *out);

/// \brief Frees the concrete heap type of a reference type (nothing for other kinds).
WASM_API_EXTERN void weft_valtype_delete(weft_valtype_t *ty);

/**
 * \brief The `wasm_valtype_t` of `ty` (caller-owned), or NULL if `ty` is
 * malformed. Concrete struct, array and exception heap types become
 * `struct`, `array` and `exn` (see the file's description).
 */
WASM_API_EXTERN wasm_valtype_t *weft_valtype_to_wasm(const wasm_engine_t *engine, const weft_valtype_t *ty);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_TYPES_VAL_H

/**
 * \file doc-wasm.h
 *
 * \brief Documentation of the standard C API (`wasm.h`) as Weft implements
 * it. This file declares nothing and is never included: `wasm.h` is the
 * WebAssembly community group's header, shipped unchanged, and this file
 * documents each of its functions for Doxygen.
 *
 * Conventions of `wasm.h`: `own` marks ownership passed to the callee (for
 * parameters) or to the caller (for results and `out` parameters); every
 * owned object is freed with its `_delete` function. A NULL object where
 * one is required gives a NULL, false or empty result in Weft, never
 * undefined behaviour; no panic of Weft's unwinds into C.
 *
 * Where Weft goes beyond Wasmtime: `wasm_X_same`, host info with finalizers,
 * `wasm_foreign_new` and `wasm_ref_as_X` are implemented. `wasm_frame_instance`
 * returns NULL: Weft's backtraces do not record instances.
 */

/**
 * \fn void wasm_byte_vec_new_empty(wasm_byte_vec_t* out)
 * \brief Sets `out` to an empty vector.
 */

/**
 * \fn void wasm_byte_vec_new_uninitialized(wasm_byte_vec_t* out, size_t)
 * \brief Sets `out` to a vector of `size` default elements (null pointers; `i32` zeros for values; zero bytes).
 */

/**
 * \fn void wasm_byte_vec_new(wasm_byte_vec_t* out, size_t, wasm_byte_t const[])
 * \brief Sets `out` to a vector of the `size` elements of the array, taking ownership of the elements (the array itself stays the caller's).
 */

/**
 * \fn void wasm_byte_vec_copy(wasm_byte_vec_t* out, const wasm_byte_vec_t*)
 * \brief Sets `out` to a deep copy of the vector (every element copied).
 */

/**
 * \fn void wasm_byte_vec_delete(wasm_byte_vec_t*)
 * \brief Deletes the vector's elements and storage, leaving it empty.
 */

/**
 * \fn void wasm_config_delete(wasm_config_t*)
 * \brief Deletes a configuration.
 */

/**
 * \fn wasm_config_t* wasm_config_new(void)
 * \brief A new default configuration.
 */

/**
 * \fn void wasm_engine_delete(wasm_engine_t*)
 * \brief Deletes an engine reference.
 */

/**
 * \fn wasm_engine_t* wasm_engine_new(void)
 * \brief A new engine with the default configuration.
 */

/**
 * \fn wasm_engine_t* wasm_engine_new_with_config(wasm_config_t*)
 * \brief A new engine with `config` (consumed); null if the configuration is invalid.
 */

/**
 * \fn void wasm_store_delete(wasm_store_t*)
 * \brief Deletes a store (it lives on while objects of it do).
 */

/**
 * \fn wasm_store_t* wasm_store_new(wasm_engine_t*)
 * \brief A new store of `engine`.
 */

/**
 * \fn void wasm_valtype_delete(wasm_valtype_t*)
 * \brief Deletes a value type.
 */

/**
 * \fn void wasm_valtype_vec_new_empty(wasm_valtype_vec_t* out)
 * \brief Sets `out` to an empty vector.
 */

/**
 * \fn void wasm_valtype_vec_new_uninitialized(wasm_valtype_vec_t* out, size_t)
 * \brief Sets `out` to a vector of `size` default elements (null pointers; `i32` zeros for values; zero bytes).
 */

/**
 * \fn void wasm_valtype_vec_new(wasm_valtype_vec_t* out, size_t, wasm_valtype_t * const[])
 * \brief Sets `out` to a vector of the `size` elements of the array, taking ownership of the elements (the array itself stays the caller's).
 */

/**
 * \fn void wasm_valtype_vec_copy(wasm_valtype_vec_t* out, const wasm_valtype_vec_t*)
 * \brief Sets `out` to a deep copy of the vector (every element copied).
 */

/**
 * \fn void wasm_valtype_vec_delete(wasm_valtype_vec_t*)
 * \brief Deletes the vector's elements and storage, leaving it empty.
 */

/**
 * \fn wasm_valtype_t* wasm_valtype_copy(const wasm_valtype_t*)
 * \brief A copy of a value type.
 */

/**
 * \fn wasm_valtype_t* wasm_valtype_new(wasm_valkind_t)
 * \brief A new value type of kind `kind` (null for an unknown kind).
 */

/**
 * \fn wasm_valkind_t wasm_valtype_kind(const wasm_valtype_t*)
 * \brief The kind of a value type.
 */

/**
 * \fn void wasm_functype_delete(wasm_functype_t*)
 * \brief Deletes the `wasm_functype_t` (a reference: the object lives on while other references to it do).
 */

/**
 * \fn void wasm_functype_vec_new_empty(wasm_functype_vec_t* out)
 * \brief Sets `out` to an empty vector.
 */

/**
 * \fn void wasm_functype_vec_new_uninitialized(wasm_functype_vec_t* out, size_t)
 * \brief Sets `out` to a vector of `size` default elements (null pointers; `i32` zeros for values; zero bytes).
 */

/**
 * \fn void wasm_functype_vec_new(wasm_functype_vec_t* out, size_t, wasm_functype_t * const[])
 * \brief Sets `out` to a vector of the `size` elements of the array, taking ownership of the elements (the array itself stays the caller's).
 */

/**
 * \fn void wasm_functype_vec_copy(wasm_functype_vec_t* out, const wasm_functype_vec_t*)
 * \brief Sets `out` to a deep copy of the vector (every element copied).
 */

/**
 * \fn void wasm_functype_vec_delete(wasm_functype_vec_t*)
 * \brief Deletes the vector's elements and storage, leaving it empty.
 */

/**
 * \fn wasm_functype_t* wasm_functype_copy(const wasm_functype_t*)
 * \brief A copy of the `wasm_functype_t` (for references: a new reference to the same object), owned by the caller.
 */

/**
 * \fn wasm_functype_t* wasm_functype_new(wasm_valtype_vec_t* params, wasm_valtype_vec_t* results)
 * \brief A new function type, taking the contents of `params` and `results`.
 */

/**
 * \fn const wasm_valtype_vec_t* wasm_functype_params(const wasm_functype_t*)
 * \brief The parameter types (owned by the function type).
 */

/**
 * \fn const wasm_valtype_vec_t* wasm_functype_results(const wasm_functype_t*)
 * \brief The result types (owned by the function type).
 */

/**
 * \fn void wasm_globaltype_delete(wasm_globaltype_t*)
 * \brief Deletes the `wasm_globaltype_t` (a reference: the object lives on while other references to it do).
 */

/**
 * \fn void wasm_globaltype_vec_new_empty(wasm_globaltype_vec_t* out)
 * \brief Sets `out` to an empty vector.
 */

/**
 * \fn void wasm_globaltype_vec_new_uninitialized(wasm_globaltype_vec_t* out, size_t)
 * \brief Sets `out` to a vector of `size` default elements (null pointers; `i32` zeros for values; zero bytes).
 */

/**
 * \fn void wasm_globaltype_vec_new(wasm_globaltype_vec_t* out, size_t, wasm_globaltype_t * const[])
 * \brief Sets `out` to a vector of the `size` elements of the array, taking ownership of the elements (the array itself stays the caller's).
 */

/**
 * \fn void wasm_globaltype_vec_copy(wasm_globaltype_vec_t* out, const wasm_globaltype_vec_t*)
 * \brief Sets `out` to a deep copy of the vector (every element copied).
 */

/**
 * \fn void wasm_globaltype_vec_delete(wasm_globaltype_vec_t*)
 * \brief Deletes the vector's elements and storage, leaving it empty.
 */

/**
 * \fn wasm_globaltype_t* wasm_globaltype_copy(const wasm_globaltype_t*)
 * \brief A copy of the `wasm_globaltype_t` (for references: a new reference to the same object), owned by the caller.
 */

/**
 * \fn wasm_globaltype_t* wasm_globaltype_new(wasm_valtype_t*, wasm_mutability_t)
 * \brief A new global type, taking `content`.
 */

/**
 * \fn const wasm_valtype_t* wasm_globaltype_content(const wasm_globaltype_t*)
 * \brief The type of the global's value (owned by the global type).
 */

/**
 * \fn wasm_mutability_t wasm_globaltype_mutability(const wasm_globaltype_t*)
 * \brief Whether the global is mutable (`WASM_VAR`) or not (`WASM_CONST`).
 */

/**
 * \fn void wasm_tabletype_delete(wasm_tabletype_t*)
 * \brief Deletes the `wasm_tabletype_t` (a reference: the object lives on while other references to it do).
 */

/**
 * \fn void wasm_tabletype_vec_new_empty(wasm_tabletype_vec_t* out)
 * \brief Sets `out` to an empty vector.
 */

/**
 * \fn void wasm_tabletype_vec_new_uninitialized(wasm_tabletype_vec_t* out, size_t)
 * \brief Sets `out` to a vector of `size` default elements (null pointers; `i32` zeros for values; zero bytes).
 */

/**
 * \fn void wasm_tabletype_vec_new(wasm_tabletype_vec_t* out, size_t, wasm_tabletype_t * const[])
 * \brief Sets `out` to a vector of the `size` elements of the array, taking ownership of the elements (the array itself stays the caller's).
 */

/**
 * \fn void wasm_tabletype_vec_copy(wasm_tabletype_vec_t* out, const wasm_tabletype_vec_t*)
 * \brief Sets `out` to a deep copy of the vector (every element copied).
 */

/**
 * \fn void wasm_tabletype_vec_delete(wasm_tabletype_vec_t*)
 * \brief Deletes the vector's elements and storage, leaving it empty.
 */

/**
 * \fn wasm_tabletype_t* wasm_tabletype_copy(const wasm_tabletype_t*)
 * \brief A copy of the `wasm_tabletype_t` (for references: a new reference to the same object), owned by the caller.
 */

/**
 * \fn wasm_tabletype_t* wasm_tabletype_new(wasm_valtype_t*, const wasm_limits_t*)
 * \brief A new table type, taking `element`.
 */

/**
 * \fn const wasm_valtype_t* wasm_tabletype_element(const wasm_tabletype_t*)
 * \brief The element type (owned by the table type).
 */

/**
 * \fn const wasm_limits_t* wasm_tabletype_limits(const wasm_tabletype_t*)
 * \brief The limits (owned by the table type).
 */

/**
 * \fn void wasm_memorytype_delete(wasm_memorytype_t*)
 * \brief Deletes the `wasm_memorytype_t` (a reference: the object lives on while other references to it do).
 */

/**
 * \fn void wasm_memorytype_vec_new_empty(wasm_memorytype_vec_t* out)
 * \brief Sets `out` to an empty vector.
 */

/**
 * \fn void wasm_memorytype_vec_new_uninitialized(wasm_memorytype_vec_t* out, size_t)
 * \brief Sets `out` to a vector of `size` default elements (null pointers; `i32` zeros for values; zero bytes).
 */

/**
 * \fn void wasm_memorytype_vec_new(wasm_memorytype_vec_t* out, size_t, wasm_memorytype_t * const[])
 * \brief Sets `out` to a vector of the `size` elements of the array, taking ownership of the elements (the array itself stays the caller's).
 */

/**
 * \fn void wasm_memorytype_vec_copy(wasm_memorytype_vec_t* out, const wasm_memorytype_vec_t*)
 * \brief Sets `out` to a deep copy of the vector (every element copied).
 */

/**
 * \fn void wasm_memorytype_vec_delete(wasm_memorytype_vec_t*)
 * \brief Deletes the vector's elements and storage, leaving it empty.
 */

/**
 * \fn wasm_memorytype_t* wasm_memorytype_copy(const wasm_memorytype_t*)
 * \brief A copy of the `wasm_memorytype_t` (for references: a new reference to the same object), owned by the caller.
 */

/**
 * \fn wasm_memorytype_t* wasm_memorytype_new(const wasm_limits_t*)
 * \brief A new memory type.
 */

/**
 * \fn const wasm_limits_t* wasm_memorytype_limits(const wasm_memorytype_t*)
 * \brief The limits (owned by the memory type).
 */

/**
 * \fn void wasm_tagtype_delete(wasm_tagtype_t*)
 * \brief Deletes the `wasm_tagtype_t` (a reference: the object lives on while other references to it do).
 */

/**
 * \fn void wasm_tagtype_vec_new_empty(wasm_tagtype_vec_t* out)
 * \brief Sets `out` to an empty vector.
 */

/**
 * \fn void wasm_tagtype_vec_new_uninitialized(wasm_tagtype_vec_t* out, size_t)
 * \brief Sets `out` to a vector of `size` default elements (null pointers; `i32` zeros for values; zero bytes).
 */

/**
 * \fn void wasm_tagtype_vec_new(wasm_tagtype_vec_t* out, size_t, wasm_tagtype_t * const[])
 * \brief Sets `out` to a vector of the `size` elements of the array, taking ownership of the elements (the array itself stays the caller's).
 */

/**
 * \fn void wasm_tagtype_vec_copy(wasm_tagtype_vec_t* out, const wasm_tagtype_vec_t*)
 * \brief Sets `out` to a deep copy of the vector (every element copied).
 */

/**
 * \fn void wasm_tagtype_vec_delete(wasm_tagtype_vec_t*)
 * \brief Deletes the vector's elements and storage, leaving it empty.
 */

/**
 * \fn wasm_tagtype_t* wasm_tagtype_copy(const wasm_tagtype_t*)
 * \brief A copy of the `wasm_tagtype_t` (for references: a new reference to the same object), owned by the caller.
 */

/**
 * \fn wasm_tagtype_t* wasm_tagtype_new(wasm_functype_t*)
 * \brief A new tag type, taking `functype`.
 */

/**
 * \fn const wasm_functype_t* wasm_tagtype_functype(const wasm_tagtype_t*)
 * \brief The function type of a tag type (owned by the tag type).
 */

/**
 * \fn void wasm_externtype_delete(wasm_externtype_t*)
 * \brief Deletes an extern type.
 */

/**
 * \fn void wasm_externtype_vec_new_empty(wasm_externtype_vec_t* out)
 * \brief Sets `out` to an empty vector.
 */

/**
 * \fn void wasm_externtype_vec_new_uninitialized(wasm_externtype_vec_t* out, size_t)
 * \brief Sets `out` to a vector of `size` default elements (null pointers; `i32` zeros for values; zero bytes).
 */

/**
 * \fn void wasm_externtype_vec_new(wasm_externtype_vec_t* out, size_t, wasm_externtype_t * const[])
 * \brief Sets `out` to a vector of the `size` elements of the array, taking ownership of the elements (the array itself stays the caller's).
 */

/**
 * \fn void wasm_externtype_vec_copy(wasm_externtype_vec_t* out, const wasm_externtype_vec_t*)
 * \brief Sets `out` to a deep copy of the vector (every element copied).
 */

/**
 * \fn void wasm_externtype_vec_delete(wasm_externtype_vec_t*)
 * \brief Deletes the vector's elements and storage, leaving it empty.
 */

/**
 * \fn wasm_externtype_t* wasm_externtype_copy(const wasm_externtype_t*)
 * \brief A copy of an extern type.
 */

/**
 * \fn wasm_externkind_t wasm_externtype_kind(const wasm_externtype_t*)
 * \brief The kind of an extern type.
 */

/**
 * \fn wasm_externtype_t* wasm_functype_as_externtype(wasm_functype_t*)
 * \brief The `wasm_functype_t` as a `wasm_externtype_t` (the same pointer).
 */

/**
 * \fn wasm_externtype_t* wasm_globaltype_as_externtype(wasm_globaltype_t*)
 * \brief The `wasm_globaltype_t` as a `wasm_externtype_t` (the same pointer).
 */

/**
 * \fn wasm_externtype_t* wasm_tabletype_as_externtype(wasm_tabletype_t*)
 * \brief The `wasm_tabletype_t` as a `wasm_externtype_t` (the same pointer).
 */

/**
 * \fn wasm_externtype_t* wasm_memorytype_as_externtype(wasm_memorytype_t*)
 * \brief The `wasm_memorytype_t` as a `wasm_externtype_t` (the same pointer).
 */

/**
 * \fn wasm_externtype_t* wasm_tagtype_as_externtype(wasm_tagtype_t*)
 * \brief The `wasm_tagtype_t` as a `wasm_externtype_t` (the same pointer).
 */

/**
 * \fn wasm_functype_t* wasm_externtype_as_functype(wasm_externtype_t*)
 * \brief The `wasm_externtype_t` as a `wasm_functype_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn wasm_globaltype_t* wasm_externtype_as_globaltype(wasm_externtype_t*)
 * \brief The `wasm_externtype_t` as a `wasm_globaltype_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn wasm_tabletype_t* wasm_externtype_as_tabletype(wasm_externtype_t*)
 * \brief The `wasm_externtype_t` as a `wasm_tabletype_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn wasm_memorytype_t* wasm_externtype_as_memorytype(wasm_externtype_t*)
 * \brief The `wasm_externtype_t` as a `wasm_memorytype_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn wasm_tagtype_t* wasm_externtype_as_tagtype(wasm_externtype_t*)
 * \brief The `wasm_externtype_t` as a `wasm_tagtype_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn const wasm_externtype_t* wasm_functype_as_externtype_const(const wasm_functype_t*)
 * \brief The `wasm_functype_t` as a `wasm_externtype_t` (the same pointer).
 */

/**
 * \fn const wasm_externtype_t* wasm_globaltype_as_externtype_const(const wasm_globaltype_t*)
 * \brief The `wasm_globaltype_t` as a `wasm_externtype_t` (the same pointer).
 */

/**
 * \fn const wasm_externtype_t* wasm_tabletype_as_externtype_const(const wasm_tabletype_t*)
 * \brief The `wasm_tabletype_t` as a `wasm_externtype_t` (the same pointer).
 */

/**
 * \fn const wasm_externtype_t* wasm_memorytype_as_externtype_const(const wasm_memorytype_t*)
 * \brief The `wasm_memorytype_t` as a `wasm_externtype_t` (the same pointer).
 */

/**
 * \fn const wasm_externtype_t* wasm_tagtype_as_externtype_const(const wasm_tagtype_t*)
 * \brief The `wasm_tagtype_t` as a `wasm_externtype_t` (the same pointer).
 */

/**
 * \fn const wasm_functype_t* wasm_externtype_as_functype_const(const wasm_externtype_t*)
 * \brief The `wasm_externtype_t` as a `wasm_functype_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn const wasm_globaltype_t* wasm_externtype_as_globaltype_const(const wasm_externtype_t*)
 * \brief The `wasm_externtype_t` as a `wasm_globaltype_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn const wasm_tabletype_t* wasm_externtype_as_tabletype_const(const wasm_externtype_t*)
 * \brief The `wasm_externtype_t` as a `wasm_tabletype_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn const wasm_memorytype_t* wasm_externtype_as_memorytype_const(const wasm_externtype_t*)
 * \brief The `wasm_externtype_t` as a `wasm_memorytype_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn const wasm_tagtype_t* wasm_externtype_as_tagtype_const(const wasm_externtype_t*)
 * \brief The `wasm_externtype_t` as a `wasm_tagtype_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn void wasm_importtype_delete(wasm_importtype_t*)
 * \brief Deletes an import type.
 */

/**
 * \fn void wasm_importtype_vec_new_empty(wasm_importtype_vec_t* out)
 * \brief Sets `out` to an empty vector.
 */

/**
 * \fn void wasm_importtype_vec_new_uninitialized(wasm_importtype_vec_t* out, size_t)
 * \brief Sets `out` to a vector of `size` default elements (null pointers; `i32` zeros for values; zero bytes).
 */

/**
 * \fn void wasm_importtype_vec_new(wasm_importtype_vec_t* out, size_t, wasm_importtype_t * const[])
 * \brief Sets `out` to a vector of the `size` elements of the array, taking ownership of the elements (the array itself stays the caller's).
 */

/**
 * \fn void wasm_importtype_vec_copy(wasm_importtype_vec_t* out, const wasm_importtype_vec_t*)
 * \brief Sets `out` to a deep copy of the vector (every element copied).
 */

/**
 * \fn void wasm_importtype_vec_delete(wasm_importtype_vec_t*)
 * \brief Deletes the vector's elements and storage, leaving it empty.
 */

/**
 * \fn wasm_importtype_t* wasm_importtype_copy(const wasm_importtype_t*)
 * \brief A copy of an import type.
 */

/**
 * \fn wasm_importtype_t* wasm_importtype_new(wasm_name_t* module, wasm_name_t* name, wasm_externtype_t*)
 * \brief A new import type, taking the names and the type.
 */

/**
 * \fn const wasm_name_t* wasm_importtype_module(const wasm_importtype_t*)
 * \brief The import's module name (owned by the import type).
 */

/**
 * \fn const wasm_name_t* wasm_importtype_name(const wasm_importtype_t*)
 * \brief The import's name (owned by the import type).
 */

/**
 * \fn const wasm_externtype_t* wasm_importtype_type(const wasm_importtype_t*)
 * \brief The import's type (owned by the import type).
 */

/**
 * \fn void wasm_exporttype_delete(wasm_exporttype_t*)
 * \brief Deletes an export type.
 */

/**
 * \fn void wasm_exporttype_vec_new_empty(wasm_exporttype_vec_t* out)
 * \brief Sets `out` to an empty vector.
 */

/**
 * \fn void wasm_exporttype_vec_new_uninitialized(wasm_exporttype_vec_t* out, size_t)
 * \brief Sets `out` to a vector of `size` default elements (null pointers; `i32` zeros for values; zero bytes).
 */

/**
 * \fn void wasm_exporttype_vec_new(wasm_exporttype_vec_t* out, size_t, wasm_exporttype_t * const[])
 * \brief Sets `out` to a vector of the `size` elements of the array, taking ownership of the elements (the array itself stays the caller's).
 */

/**
 * \fn void wasm_exporttype_vec_copy(wasm_exporttype_vec_t* out, const wasm_exporttype_vec_t*)
 * \brief Sets `out` to a deep copy of the vector (every element copied).
 */

/**
 * \fn void wasm_exporttype_vec_delete(wasm_exporttype_vec_t*)
 * \brief Deletes the vector's elements and storage, leaving it empty.
 */

/**
 * \fn wasm_exporttype_t* wasm_exporttype_copy(const wasm_exporttype_t*)
 * \brief A copy of an export type.
 */

/**
 * \fn wasm_exporttype_t* wasm_exporttype_new(wasm_name_t*, wasm_externtype_t*)
 * \brief A new export type, taking the name and the type.
 */

/**
 * \fn const wasm_name_t* wasm_exporttype_name(const wasm_exporttype_t*)
 * \brief The export's name (owned by the export type).
 */

/**
 * \fn const wasm_externtype_t* wasm_exporttype_type(const wasm_exporttype_t*)
 * \brief The export's type (owned by the export type).
 */

/**
 * \fn void wasm_val_delete(wasm_val_t* v)
 * \brief Releases the reference a value owns.
 */

/**
 * \fn void wasm_val_copy(wasm_val_t* out, const wasm_val_t*)
 * \brief Sets `out` to a copy of `src` (references copied).
 */

/**
 * \fn void wasm_val_vec_new_empty(wasm_val_vec_t* out)
 * \brief Sets `out` to an empty vector.
 */

/**
 * \fn void wasm_val_vec_new_uninitialized(wasm_val_vec_t* out, size_t)
 * \brief Sets `out` to a vector of `size` default elements (null pointers; `i32` zeros for values; zero bytes).
 */

/**
 * \fn void wasm_val_vec_new(wasm_val_vec_t* out, size_t, wasm_val_t const[])
 * \brief Sets `out` to a vector of the `size` elements of the array, taking ownership of the elements (the array itself stays the caller's).
 */

/**
 * \fn void wasm_val_vec_copy(wasm_val_vec_t* out, const wasm_val_vec_t*)
 * \brief Sets `out` to a deep copy of the vector (every element copied).
 */

/**
 * \fn void wasm_val_vec_delete(wasm_val_vec_t*)
 * \brief Deletes the vector's elements and storage, leaving it empty.
 */

/**
 * \fn void wasm_ref_delete(wasm_ref_t*)
 * \brief Deletes the `wasm_ref_t` (a reference: the object lives on while other references to it do).
 */

/**
 * \fn wasm_ref_t* wasm_ref_copy(const wasm_ref_t*)
 * \brief A copy of the `wasm_ref_t` (for references: a new reference to the same object), owned by the caller.
 */

/**
 * \fn _Bool wasm_ref_same(const wasm_ref_t*, const wasm_ref_t*)
 * \brief Whether two `wasm_ref_t` references point to the same object (two nulls are the same).
 */

/**
 * \fn void* wasm_ref_get_host_info(const wasm_ref_t*)
 * \brief The host info of the object (NULL if none). Host info belongs to the object: every reference to it sees the same.
 */

/**
 * \fn void wasm_ref_set_host_info(wasm_ref_t*, void*)
 * \brief Sets the host info of the object (replacing any, whose finalizer then runs).
 */

/**
 * \fn void wasm_ref_set_host_info_with_finalizer(wasm_ref_t*, void*, void (*)(void*))
 * \brief Sets the host info of the object with a finalizer, called with the info when the object goes away (for store objects: when the store is deleted) or the info is replaced.
 */

/**
 * \fn void wasm_frame_delete(wasm_frame_t*)
 * \brief Deletes a frame.
 */

/**
 * \fn void wasm_frame_vec_new_empty(wasm_frame_vec_t* out)
 * \brief Sets `out` to an empty vector.
 */

/**
 * \fn void wasm_frame_vec_new_uninitialized(wasm_frame_vec_t* out, size_t)
 * \brief Sets `out` to a vector of `size` default elements (null pointers; `i32` zeros for values; zero bytes).
 */

/**
 * \fn void wasm_frame_vec_new(wasm_frame_vec_t* out, size_t, wasm_frame_t * const[])
 * \brief Sets `out` to a vector of the `size` elements of the array, taking ownership of the elements (the array itself stays the caller's).
 */

/**
 * \fn void wasm_frame_vec_copy(wasm_frame_vec_t* out, const wasm_frame_vec_t*)
 * \brief Sets `out` to a deep copy of the vector (every element copied).
 */

/**
 * \fn void wasm_frame_vec_delete(wasm_frame_vec_t*)
 * \brief Deletes the vector's elements and storage, leaving it empty.
 */

/**
 * \fn wasm_frame_t* wasm_frame_copy(const wasm_frame_t*)
 * \brief A copy of a frame.
 */

/**
 * \fn struct wasm_instance_t* wasm_frame_instance(const wasm_frame_t*)
 * \brief The instance of the frame: Weft's backtraces do not record instances, so this is always null.
 */

/**
 * \fn uint32_t wasm_frame_func_index(const wasm_frame_t*)
 * \brief The index of the frame's function in its module.
 */

/**
 * \fn size_t wasm_frame_func_offset(const wasm_frame_t*)
 * \brief The offset of the frame's instruction from the start of its function (`SIZE_MAX` if unknown).
 */

/**
 * \fn size_t wasm_frame_module_offset(const wasm_frame_t*)
 * \brief The offset of the frame's instruction in the module's binary (`SIZE_MAX` if unknown).
 */

/**
 * \fn void wasm_trap_delete(wasm_trap_t*)
 * \brief Deletes the `wasm_trap_t` (a reference: the object lives on while other references to it do).
 */

/**
 * \fn wasm_trap_t* wasm_trap_copy(const wasm_trap_t*)
 * \brief A copy of the `wasm_trap_t` (for references: a new reference to the same object), owned by the caller.
 */

/**
 * \fn _Bool wasm_trap_same(const wasm_trap_t*, const wasm_trap_t*)
 * \brief Whether two `wasm_trap_t` references point to the same object (two nulls are the same).
 */

/**
 * \fn void* wasm_trap_get_host_info(const wasm_trap_t*)
 * \brief The host info of the object (NULL if none). Host info belongs to the object: every reference to it sees the same.
 */

/**
 * \fn void wasm_trap_set_host_info(wasm_trap_t*, void*)
 * \brief Sets the host info of the object (replacing any, whose finalizer then runs).
 */

/**
 * \fn void wasm_trap_set_host_info_with_finalizer(wasm_trap_t*, void*, void (*)(void*))
 * \brief Sets the host info of the object with a finalizer, called with the info when the object goes away (for store objects: when the store is deleted) or the info is replaced.
 */

/**
 * \fn wasm_ref_t* wasm_trap_as_ref(wasm_trap_t*)
 * \brief The `wasm_trap_t` as a `wasm_ref_t` (the same pointer, not a new reference).
 */

/**
 * \fn wasm_trap_t* wasm_ref_as_trap(wasm_ref_t*)
 * \brief The `wasm_ref_t` as a `wasm_trap_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn const wasm_ref_t* wasm_trap_as_ref_const(const wasm_trap_t*)
 * \brief The `wasm_trap_t` as a `wasm_ref_t` (the same pointer, not a new reference).
 */

/**
 * \fn const wasm_trap_t* wasm_ref_as_trap_const(const wasm_ref_t*)
 * \brief The `wasm_ref_t` as a `wasm_trap_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn wasm_trap_t* wasm_trap_new(wasm_store_t* store, const wasm_message_t*)
 * \brief A new trap with `message` (a NUL-terminated name; the NUL is dropped).
 */

/**
 * \fn void wasm_trap_message(const wasm_trap_t*, wasm_message_t* out)
 * \brief The trap's message, NUL-terminated.
 */

/**
 * \fn wasm_frame_t* wasm_trap_origin(const wasm_trap_t*)
 * \brief The innermost frame of the trap's backtrace (null if none).
 */

/**
 * \fn void wasm_trap_trace(const wasm_trap_t*, wasm_frame_vec_t* out)
 * \brief The trap's backtrace, innermost frame first.
 */

/**
 * \fn void wasm_foreign_delete(wasm_foreign_t*)
 * \brief Deletes the `wasm_foreign_t` (a reference: the object lives on while other references to it do).
 */

/**
 * \fn wasm_foreign_t* wasm_foreign_copy(const wasm_foreign_t*)
 * \brief A copy of the `wasm_foreign_t` (for references: a new reference to the same object), owned by the caller.
 */

/**
 * \fn _Bool wasm_foreign_same(const wasm_foreign_t*, const wasm_foreign_t*)
 * \brief Whether two `wasm_foreign_t` references point to the same object (two nulls are the same).
 */

/**
 * \fn void* wasm_foreign_get_host_info(const wasm_foreign_t*)
 * \brief The host info of the object (NULL if none). Host info belongs to the object: every reference to it sees the same.
 */

/**
 * \fn void wasm_foreign_set_host_info(wasm_foreign_t*, void*)
 * \brief Sets the host info of the object (replacing any, whose finalizer then runs).
 */

/**
 * \fn void wasm_foreign_set_host_info_with_finalizer(wasm_foreign_t*, void*, void (*)(void*))
 * \brief Sets the host info of the object with a finalizer, called with the info when the object goes away (for store objects: when the store is deleted) or the info is replaced.
 */

/**
 * \fn wasm_ref_t* wasm_foreign_as_ref(wasm_foreign_t*)
 * \brief The `wasm_foreign_t` as a `wasm_ref_t` (the same pointer, not a new reference).
 */

/**
 * \fn wasm_foreign_t* wasm_ref_as_foreign(wasm_ref_t*)
 * \brief The `wasm_ref_t` as a `wasm_foreign_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn const wasm_ref_t* wasm_foreign_as_ref_const(const wasm_foreign_t*)
 * \brief The `wasm_foreign_t` as a `wasm_ref_t` (the same pointer, not a new reference).
 */

/**
 * \fn const wasm_foreign_t* wasm_ref_as_foreign_const(const wasm_ref_t*)
 * \brief The `wasm_ref_t` as a `wasm_foreign_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn wasm_foreign_t* wasm_foreign_new(wasm_store_t*)
 * \brief A new foreign object (its store is not needed: it belongs to none).
 */

/**
 * \fn void wasm_module_delete(wasm_module_t*)
 * \brief Deletes the `wasm_module_t` (a reference: the object lives on while other references to it do).
 */

/**
 * \fn wasm_module_t* wasm_module_copy(const wasm_module_t*)
 * \brief A copy of the `wasm_module_t` (for references: a new reference to the same object), owned by the caller.
 */

/**
 * \fn _Bool wasm_module_same(const wasm_module_t*, const wasm_module_t*)
 * \brief Whether two `wasm_module_t` references point to the same object (two nulls are the same).
 */

/**
 * \fn void* wasm_module_get_host_info(const wasm_module_t*)
 * \brief The host info of the object (NULL if none). Host info belongs to the object: every reference to it sees the same.
 */

/**
 * \fn void wasm_module_set_host_info(wasm_module_t*, void*)
 * \brief Sets the host info of the object (replacing any, whose finalizer then runs).
 */

/**
 * \fn void wasm_module_set_host_info_with_finalizer(wasm_module_t*, void*, void (*)(void*))
 * \brief Sets the host info of the object with a finalizer, called with the info when the object goes away (for store objects: when the store is deleted) or the info is replaced.
 */

/**
 * \fn wasm_ref_t* wasm_module_as_ref(wasm_module_t*)
 * \brief The `wasm_module_t` as a `wasm_ref_t` (the same pointer, not a new reference).
 */

/**
 * \fn wasm_module_t* wasm_ref_as_module(wasm_ref_t*)
 * \brief The `wasm_ref_t` as a `wasm_module_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn const wasm_ref_t* wasm_module_as_ref_const(const wasm_module_t*)
 * \brief The `wasm_module_t` as a `wasm_ref_t` (the same pointer, not a new reference).
 */

/**
 * \fn const wasm_module_t* wasm_ref_as_module_const(const wasm_ref_t*)
 * \brief The `wasm_ref_t` as a `wasm_module_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn void wasm_shared_module_delete(wasm_shared_module_t*)
 * \brief Deletes a shared module.
 */

/**
 * \fn wasm_shared_module_t* wasm_module_share(const wasm_module_t*)
 * \brief A shareable handle to the module.
 */

/**
 * \fn wasm_module_t* wasm_module_obtain(wasm_store_t*, const wasm_shared_module_t*)
 * \brief The shared module as a module of `store` (null if of another engine).
 */

/**
 * \fn wasm_module_t* wasm_module_new(wasm_store_t*, const wasm_byte_vec_t* binary)
 * \brief Compiles `binary` with the store's engine (null if invalid).
 */

/**
 * \fn _Bool wasm_module_validate(wasm_store_t*, const wasm_byte_vec_t* binary)
 * \brief Whether `binary` is a valid module for the store's engine.
 */

/**
 * \fn void wasm_module_imports(const wasm_module_t*, wasm_importtype_vec_t* out)
 * \brief The module's imports.
 */

/**
 * \fn void wasm_module_exports(const wasm_module_t*, wasm_exporttype_vec_t* out)
 * \brief The module's exports.
 */

/**
 * \fn void wasm_module_serialize(const wasm_module_t*, wasm_byte_vec_t* out)
 * \brief The module's precompiled form (empty on failure).
 */

/**
 * \fn wasm_module_t* wasm_module_deserialize(wasm_store_t*, const wasm_byte_vec_t*)
 * \brief A module from the output of `wasm_module_serialize` (null if refused).
 */

/**
 * \fn void wasm_func_delete(wasm_func_t*)
 * \brief Deletes the `wasm_func_t` (a reference: the object lives on while other references to it do).
 */

/**
 * \fn wasm_func_t* wasm_func_copy(const wasm_func_t*)
 * \brief A copy of the `wasm_func_t` (for references: a new reference to the same object), owned by the caller.
 */

/**
 * \fn _Bool wasm_func_same(const wasm_func_t*, const wasm_func_t*)
 * \brief Whether two `wasm_func_t` references point to the same object (two nulls are the same).
 */

/**
 * \fn void* wasm_func_get_host_info(const wasm_func_t*)
 * \brief The host info of the object (NULL if none). Host info belongs to the object: every reference to it sees the same.
 */

/**
 * \fn void wasm_func_set_host_info(wasm_func_t*, void*)
 * \brief Sets the host info of the object (replacing any, whose finalizer then runs).
 */

/**
 * \fn void wasm_func_set_host_info_with_finalizer(wasm_func_t*, void*, void (*)(void*))
 * \brief Sets the host info of the object with a finalizer, called with the info when the object goes away (for store objects: when the store is deleted) or the info is replaced.
 */

/**
 * \fn wasm_ref_t* wasm_func_as_ref(wasm_func_t*)
 * \brief The `wasm_func_t` as a `wasm_ref_t` (the same pointer, not a new reference).
 */

/**
 * \fn wasm_func_t* wasm_ref_as_func(wasm_ref_t*)
 * \brief The `wasm_ref_t` as a `wasm_func_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn const wasm_ref_t* wasm_func_as_ref_const(const wasm_func_t*)
 * \brief The `wasm_func_t` as a `wasm_ref_t` (the same pointer, not a new reference).
 */

/**
 * \fn const wasm_func_t* wasm_ref_as_func_const(const wasm_ref_t*)
 * \brief The `wasm_ref_t` as a `wasm_func_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn wasm_func_t* wasm_func_new(wasm_store_t*, const wasm_functype_t*, wasm_func_callback_t)
 * \brief A new host function calling `callback`.
 */

/**
 * \fn wasm_func_t* wasm_func_new_with_env(wasm_store_t*, const wasm_functype_t* type, wasm_func_callback_with_env_t, void* env, void (*finalizer)(void*))
 * \brief A new host function calling `callback` with `env` (finalized with the store).
 */

/**
 * \fn wasm_functype_t* wasm_func_type(const wasm_func_t*)
 * \brief The function's type.
 */

/**
 * \fn size_t wasm_func_param_arity(const wasm_func_t*)
 * \brief The number of parameters.
 */

/**
 * \fn size_t wasm_func_result_arity(const wasm_func_t*)
 * \brief The number of results.
 */

/**
 * \fn wasm_trap_t* wasm_func_call(const wasm_func_t*, const wasm_val_vec_t* args, wasm_val_vec_t* results)
 * \brief Calls the function with `args`, writing its results to `results` (which must have the result arity); a trap on failure.
 */

/**
 * \fn void wasm_global_delete(wasm_global_t*)
 * \brief Deletes the `wasm_global_t` (a reference: the object lives on while other references to it do).
 */

/**
 * \fn wasm_global_t* wasm_global_copy(const wasm_global_t*)
 * \brief A copy of the `wasm_global_t` (for references: a new reference to the same object), owned by the caller.
 */

/**
 * \fn _Bool wasm_global_same(const wasm_global_t*, const wasm_global_t*)
 * \brief Whether two `wasm_global_t` references point to the same object (two nulls are the same).
 */

/**
 * \fn void* wasm_global_get_host_info(const wasm_global_t*)
 * \brief The host info of the object (NULL if none). Host info belongs to the object: every reference to it sees the same.
 */

/**
 * \fn void wasm_global_set_host_info(wasm_global_t*, void*)
 * \brief Sets the host info of the object (replacing any, whose finalizer then runs).
 */

/**
 * \fn void wasm_global_set_host_info_with_finalizer(wasm_global_t*, void*, void (*)(void*))
 * \brief Sets the host info of the object with a finalizer, called with the info when the object goes away (for store objects: when the store is deleted) or the info is replaced.
 */

/**
 * \fn wasm_ref_t* wasm_global_as_ref(wasm_global_t*)
 * \brief The `wasm_global_t` as a `wasm_ref_t` (the same pointer, not a new reference).
 */

/**
 * \fn wasm_global_t* wasm_ref_as_global(wasm_ref_t*)
 * \brief The `wasm_ref_t` as a `wasm_global_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn const wasm_ref_t* wasm_global_as_ref_const(const wasm_global_t*)
 * \brief The `wasm_global_t` as a `wasm_ref_t` (the same pointer, not a new reference).
 */

/**
 * \fn const wasm_global_t* wasm_ref_as_global_const(const wasm_ref_t*)
 * \brief The `wasm_ref_t` as a `wasm_global_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn wasm_global_t* wasm_global_new(wasm_store_t*, const wasm_globaltype_t*, const wasm_val_t*)
 * \brief A new global of type `ty` holding `val` (null on a type mismatch).
 */

/**
 * \fn wasm_globaltype_t* wasm_global_type(const wasm_global_t*)
 * \brief The global's type.
 */

/**
 * \fn void wasm_global_get(const wasm_global_t*, wasm_val_t* out)
 * \brief Writes the global's value to `out`.
 */

/**
 * \fn void wasm_global_set(wasm_global_t*, const wasm_val_t*)
 * \brief Sets the global's value (nothing on a type mismatch or a constant global).
 */

/**
 * \fn void wasm_table_delete(wasm_table_t*)
 * \brief Deletes the `wasm_table_t` (a reference: the object lives on while other references to it do).
 */

/**
 * \fn wasm_table_t* wasm_table_copy(const wasm_table_t*)
 * \brief A copy of the `wasm_table_t` (for references: a new reference to the same object), owned by the caller.
 */

/**
 * \fn _Bool wasm_table_same(const wasm_table_t*, const wasm_table_t*)
 * \brief Whether two `wasm_table_t` references point to the same object (two nulls are the same).
 */

/**
 * \fn void* wasm_table_get_host_info(const wasm_table_t*)
 * \brief The host info of the object (NULL if none). Host info belongs to the object: every reference to it sees the same.
 */

/**
 * \fn void wasm_table_set_host_info(wasm_table_t*, void*)
 * \brief Sets the host info of the object (replacing any, whose finalizer then runs).
 */

/**
 * \fn void wasm_table_set_host_info_with_finalizer(wasm_table_t*, void*, void (*)(void*))
 * \brief Sets the host info of the object with a finalizer, called with the info when the object goes away (for store objects: when the store is deleted) or the info is replaced.
 */

/**
 * \fn wasm_ref_t* wasm_table_as_ref(wasm_table_t*)
 * \brief The `wasm_table_t` as a `wasm_ref_t` (the same pointer, not a new reference).
 */

/**
 * \fn wasm_table_t* wasm_ref_as_table(wasm_ref_t*)
 * \brief The `wasm_ref_t` as a `wasm_table_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn const wasm_ref_t* wasm_table_as_ref_const(const wasm_table_t*)
 * \brief The `wasm_table_t` as a `wasm_ref_t` (the same pointer, not a new reference).
 */

/**
 * \fn const wasm_table_t* wasm_ref_as_table_const(const wasm_ref_t*)
 * \brief The `wasm_ref_t` as a `wasm_table_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn wasm_table_t* wasm_table_new(wasm_store_t*, const wasm_tabletype_t*, wasm_ref_t* init)
 * \brief A new table of type `ty`, its elements `init` (null: null references).
 */

/**
 * \fn wasm_tabletype_t* wasm_table_type(const wasm_table_t*)
 * \brief The table's type.
 */

/**
 * \fn wasm_ref_t* wasm_table_get(const wasm_table_t*, wasm_table_size_t index)
 * \brief The element at `index` (null if null or out of bounds).
 */

/**
 * \fn _Bool wasm_table_set(wasm_table_t*, wasm_table_size_t index, wasm_ref_t*)
 * \brief Sets the element at `index`; false if out of bounds or mistyped.
 */

/**
 * \fn wasm_table_size_t wasm_table_size(const wasm_table_t*)
 * \brief The table's size.
 */

/**
 * \fn _Bool wasm_table_grow(wasm_table_t*, wasm_table_size_t delta, wasm_ref_t* init)
 * \brief Grows the table by `delta` elements set to `init`; false on failure.
 */

/**
 * \fn void wasm_memory_delete(wasm_memory_t*)
 * \brief Deletes the `wasm_memory_t` (a reference: the object lives on while other references to it do).
 */

/**
 * \fn wasm_memory_t* wasm_memory_copy(const wasm_memory_t*)
 * \brief A copy of the `wasm_memory_t` (for references: a new reference to the same object), owned by the caller.
 */

/**
 * \fn _Bool wasm_memory_same(const wasm_memory_t*, const wasm_memory_t*)
 * \brief Whether two `wasm_memory_t` references point to the same object (two nulls are the same).
 */

/**
 * \fn void* wasm_memory_get_host_info(const wasm_memory_t*)
 * \brief The host info of the object (NULL if none). Host info belongs to the object: every reference to it sees the same.
 */

/**
 * \fn void wasm_memory_set_host_info(wasm_memory_t*, void*)
 * \brief Sets the host info of the object (replacing any, whose finalizer then runs).
 */

/**
 * \fn void wasm_memory_set_host_info_with_finalizer(wasm_memory_t*, void*, void (*)(void*))
 * \brief Sets the host info of the object with a finalizer, called with the info when the object goes away (for store objects: when the store is deleted) or the info is replaced.
 */

/**
 * \fn wasm_ref_t* wasm_memory_as_ref(wasm_memory_t*)
 * \brief The `wasm_memory_t` as a `wasm_ref_t` (the same pointer, not a new reference).
 */

/**
 * \fn wasm_memory_t* wasm_ref_as_memory(wasm_ref_t*)
 * \brief The `wasm_ref_t` as a `wasm_memory_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn const wasm_ref_t* wasm_memory_as_ref_const(const wasm_memory_t*)
 * \brief The `wasm_memory_t` as a `wasm_ref_t` (the same pointer, not a new reference).
 */

/**
 * \fn const wasm_memory_t* wasm_ref_as_memory_const(const wasm_ref_t*)
 * \brief The `wasm_ref_t` as a `wasm_memory_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn wasm_memory_t* wasm_memory_new(wasm_store_t*, const wasm_memorytype_t*)
 * \brief A new memory of type `ty`.
 */

/**
 * \fn wasm_memorytype_t* wasm_memory_type(const wasm_memory_t*)
 * \brief The memory's type.
 */

/**
 * \fn byte_t* wasm_memory_data(wasm_memory_t*)
 * \brief The memory's bytes (valid until it grows).
 */

/**
 * \fn size_t wasm_memory_data_size(const wasm_memory_t*)
 * \brief The memory's size in bytes.
 */

/**
 * \fn wasm_memory_pages_t wasm_memory_size(const wasm_memory_t*)
 * \brief The memory's size in pages.
 */

/**
 * \fn _Bool wasm_memory_grow(wasm_memory_t*, wasm_memory_pages_t delta)
 * \brief Grows the memory by `delta` pages; false on failure.
 */

/**
 * \fn void wasm_extern_delete(wasm_extern_t*)
 * \brief Deletes the `wasm_extern_t` (a reference: the object lives on while other references to it do).
 */

/**
 * \fn wasm_extern_t* wasm_extern_copy(const wasm_extern_t*)
 * \brief A copy of the `wasm_extern_t` (for references: a new reference to the same object), owned by the caller.
 */

/**
 * \fn _Bool wasm_extern_same(const wasm_extern_t*, const wasm_extern_t*)
 * \brief Whether two `wasm_extern_t` references point to the same object (two nulls are the same).
 */

/**
 * \fn void* wasm_extern_get_host_info(const wasm_extern_t*)
 * \brief The host info of the object (NULL if none). Host info belongs to the object: every reference to it sees the same.
 */

/**
 * \fn void wasm_extern_set_host_info(wasm_extern_t*, void*)
 * \brief Sets the host info of the object (replacing any, whose finalizer then runs).
 */

/**
 * \fn void wasm_extern_set_host_info_with_finalizer(wasm_extern_t*, void*, void (*)(void*))
 * \brief Sets the host info of the object with a finalizer, called with the info when the object goes away (for store objects: when the store is deleted) or the info is replaced.
 */

/**
 * \fn wasm_ref_t* wasm_extern_as_ref(wasm_extern_t*)
 * \brief The `wasm_extern_t` as a `wasm_ref_t` (the same pointer, not a new reference).
 */

/**
 * \fn wasm_extern_t* wasm_ref_as_extern(wasm_ref_t*)
 * \brief The `wasm_ref_t` as a `wasm_extern_t` (the same pointer, not a new reference).
 */

/**
 * \fn const wasm_ref_t* wasm_extern_as_ref_const(const wasm_extern_t*)
 * \brief The `wasm_extern_t` as a `wasm_ref_t` (the same pointer, not a new reference).
 */

/**
 * \fn const wasm_extern_t* wasm_ref_as_extern_const(const wasm_ref_t*)
 * \brief The `wasm_ref_t` as a `wasm_extern_t` (the same pointer, not a new reference).
 */

/**
 * \fn void wasm_extern_vec_new_empty(wasm_extern_vec_t* out)
 * \brief Sets `out` to an empty vector.
 */

/**
 * \fn void wasm_extern_vec_new_uninitialized(wasm_extern_vec_t* out, size_t)
 * \brief Sets `out` to a vector of `size` default elements (null pointers; `i32` zeros for values; zero bytes).
 */

/**
 * \fn void wasm_extern_vec_new(wasm_extern_vec_t* out, size_t, wasm_extern_t * const[])
 * \brief Sets `out` to a vector of the `size` elements of the array, taking ownership of the elements (the array itself stays the caller's).
 */

/**
 * \fn void wasm_extern_vec_copy(wasm_extern_vec_t* out, const wasm_extern_vec_t*)
 * \brief Sets `out` to a deep copy of the vector (every element copied).
 */

/**
 * \fn void wasm_extern_vec_delete(wasm_extern_vec_t*)
 * \brief Deletes the vector's elements and storage, leaving it empty.
 */

/**
 * \fn wasm_externkind_t wasm_extern_kind(const wasm_extern_t*)
 * \brief The kind of an extern (`WASM_EXTERN_FUNC`, ...).
 */

/**
 * \fn wasm_externtype_t* wasm_extern_type(const wasm_extern_t*)
 * \brief The type of an extern.
 */

/**
 * \fn wasm_extern_t* wasm_func_as_extern(wasm_func_t*)
 * \brief The `wasm_func_t` as a `wasm_extern_t` (the same pointer, not a new reference).
 */

/**
 * \fn wasm_extern_t* wasm_global_as_extern(wasm_global_t*)
 * \brief The `wasm_global_t` as a `wasm_extern_t` (the same pointer, not a new reference).
 */

/**
 * \fn wasm_extern_t* wasm_table_as_extern(wasm_table_t*)
 * \brief The `wasm_table_t` as a `wasm_extern_t` (the same pointer, not a new reference).
 */

/**
 * \fn wasm_extern_t* wasm_memory_as_extern(wasm_memory_t*)
 * \brief The `wasm_memory_t` as a `wasm_extern_t` (the same pointer, not a new reference).
 */

/**
 * \fn wasm_func_t* wasm_extern_as_func(wasm_extern_t*)
 * \brief The `wasm_extern_t` as a `wasm_func_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn wasm_global_t* wasm_extern_as_global(wasm_extern_t*)
 * \brief The `wasm_extern_t` as a `wasm_global_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn wasm_table_t* wasm_extern_as_table(wasm_extern_t*)
 * \brief The `wasm_extern_t` as a `wasm_table_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn wasm_memory_t* wasm_extern_as_memory(wasm_extern_t*)
 * \brief The `wasm_extern_t` as a `wasm_memory_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn const wasm_extern_t* wasm_func_as_extern_const(const wasm_func_t*)
 * \brief The `wasm_func_t` as a `wasm_extern_t` (the same pointer, not a new reference).
 */

/**
 * \fn const wasm_extern_t* wasm_global_as_extern_const(const wasm_global_t*)
 * \brief The `wasm_global_t` as a `wasm_extern_t` (the same pointer, not a new reference).
 */

/**
 * \fn const wasm_extern_t* wasm_table_as_extern_const(const wasm_table_t*)
 * \brief The `wasm_table_t` as a `wasm_extern_t` (the same pointer, not a new reference).
 */

/**
 * \fn const wasm_extern_t* wasm_memory_as_extern_const(const wasm_memory_t*)
 * \brief The `wasm_memory_t` as a `wasm_extern_t` (the same pointer, not a new reference).
 */

/**
 * \fn const wasm_func_t* wasm_extern_as_func_const(const wasm_extern_t*)
 * \brief The `wasm_extern_t` as a `wasm_func_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn const wasm_global_t* wasm_extern_as_global_const(const wasm_extern_t*)
 * \brief The `wasm_extern_t` as a `wasm_global_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn const wasm_table_t* wasm_extern_as_table_const(const wasm_extern_t*)
 * \brief The `wasm_extern_t` as a `wasm_table_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn const wasm_memory_t* wasm_extern_as_memory_const(const wasm_extern_t*)
 * \brief The `wasm_extern_t` as a `wasm_memory_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn void wasm_instance_delete(wasm_instance_t*)
 * \brief Deletes the `wasm_instance_t` (a reference: the object lives on while other references to it do).
 */

/**
 * \fn wasm_instance_t* wasm_instance_copy(const wasm_instance_t*)
 * \brief A copy of the `wasm_instance_t` (for references: a new reference to the same object), owned by the caller.
 */

/**
 * \fn _Bool wasm_instance_same(const wasm_instance_t*, const wasm_instance_t*)
 * \brief Whether two `wasm_instance_t` references point to the same object (two nulls are the same).
 */

/**
 * \fn void* wasm_instance_get_host_info(const wasm_instance_t*)
 * \brief The host info of the object (NULL if none). Host info belongs to the object: every reference to it sees the same.
 */

/**
 * \fn void wasm_instance_set_host_info(wasm_instance_t*, void*)
 * \brief Sets the host info of the object (replacing any, whose finalizer then runs).
 */

/**
 * \fn void wasm_instance_set_host_info_with_finalizer(wasm_instance_t*, void*, void (*)(void*))
 * \brief Sets the host info of the object with a finalizer, called with the info when the object goes away (for store objects: when the store is deleted) or the info is replaced.
 */

/**
 * \fn wasm_ref_t* wasm_instance_as_ref(wasm_instance_t*)
 * \brief The `wasm_instance_t` as a `wasm_ref_t` (the same pointer, not a new reference).
 */

/**
 * \fn wasm_instance_t* wasm_ref_as_instance(wasm_ref_t*)
 * \brief The `wasm_ref_t` as a `wasm_instance_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn const wasm_ref_t* wasm_instance_as_ref_const(const wasm_instance_t*)
 * \brief The `wasm_instance_t` as a `wasm_ref_t` (the same pointer, not a new reference).
 */

/**
 * \fn const wasm_instance_t* wasm_ref_as_instance_const(const wasm_ref_t*)
 * \brief The `wasm_ref_t` as a `wasm_instance_t`: the same pointer, or NULL if it is not one.
 */

/**
 * \fn wasm_instance_t* wasm_instance_new(wasm_store_t*, const wasm_module_t*, const wasm_extern_vec_t* imports, wasm_trap_t** )
 * \brief Instantiates `module` with `imports` (in the module's import order). On failure returns null and, if `trap` is not null, sets it to a trap saying why.
 */

/**
 * \fn void wasm_instance_exports(const wasm_instance_t*, wasm_extern_vec_t* out)
 * \brief The instance's exports, in the module's order.
 */

/**
 * \struct wasm_byte_vec_t
 * \brief A vector of `wasm_byte_t`, owning its elements.
 *
 * \var wasm_byte_vec_t::size
 * \brief The number of elements.
 *
 * \var wasm_byte_vec_t::data
 * \brief The elements (NULL when the vector is empty).
 */
/**
 * \struct wasm_exporttype_vec_t
 * \brief A vector of `wasm_exporttype_t` pointers, owning its elements.
 *
 * \var wasm_exporttype_vec_t::size
 * \brief The number of elements.
 *
 * \var wasm_exporttype_vec_t::data
 * \brief The elements (NULL when the vector is empty).
 */
/**
 * \struct wasm_extern_vec_t
 * \brief A vector of `wasm_extern_t` pointers, owning its elements.
 *
 * \var wasm_extern_vec_t::size
 * \brief The number of elements.
 *
 * \var wasm_extern_vec_t::data
 * \brief The elements (NULL when the vector is empty).
 */
/**
 * \struct wasm_externtype_vec_t
 * \brief A vector of `wasm_externtype_t` pointers, owning its elements.
 *
 * \var wasm_externtype_vec_t::size
 * \brief The number of elements.
 *
 * \var wasm_externtype_vec_t::data
 * \brief The elements (NULL when the vector is empty).
 */
/**
 * \struct wasm_frame_vec_t
 * \brief A vector of `wasm_frame_t` pointers, owning its elements.
 *
 * \var wasm_frame_vec_t::size
 * \brief The number of elements.
 *
 * \var wasm_frame_vec_t::data
 * \brief The elements (NULL when the vector is empty).
 */
/**
 * \struct wasm_functype_vec_t
 * \brief A vector of `wasm_functype_t` pointers, owning its elements.
 *
 * \var wasm_functype_vec_t::size
 * \brief The number of elements.
 *
 * \var wasm_functype_vec_t::data
 * \brief The elements (NULL when the vector is empty).
 */
/**
 * \struct wasm_globaltype_vec_t
 * \brief A vector of `wasm_globaltype_t` pointers, owning its elements.
 *
 * \var wasm_globaltype_vec_t::size
 * \brief The number of elements.
 *
 * \var wasm_globaltype_vec_t::data
 * \brief The elements (NULL when the vector is empty).
 */
/**
 * \struct wasm_importtype_vec_t
 * \brief A vector of `wasm_importtype_t` pointers, owning its elements.
 *
 * \var wasm_importtype_vec_t::size
 * \brief The number of elements.
 *
 * \var wasm_importtype_vec_t::data
 * \brief The elements (NULL when the vector is empty).
 */
/**
 * \struct wasm_memorytype_vec_t
 * \brief A vector of `wasm_memorytype_t` pointers, owning its elements.
 *
 * \var wasm_memorytype_vec_t::size
 * \brief The number of elements.
 *
 * \var wasm_memorytype_vec_t::data
 * \brief The elements (NULL when the vector is empty).
 */
/**
 * \struct wasm_tabletype_vec_t
 * \brief A vector of `wasm_tabletype_t` pointers, owning its elements.
 *
 * \var wasm_tabletype_vec_t::size
 * \brief The number of elements.
 *
 * \var wasm_tabletype_vec_t::data
 * \brief The elements (NULL when the vector is empty).
 */
/**
 * \struct wasm_tagtype_vec_t
 * \brief A vector of `wasm_tagtype_t` pointers, owning its elements.
 *
 * \var wasm_tagtype_vec_t::size
 * \brief The number of elements.
 *
 * \var wasm_tagtype_vec_t::data
 * \brief The elements (NULL when the vector is empty).
 */
/**
 * \struct wasm_val_vec_t
 * \brief A vector of `wasm_val_t`, owning its elements.
 *
 * \var wasm_val_vec_t::size
 * \brief The number of elements.
 *
 * \var wasm_val_vec_t::data
 * \brief The elements (NULL when the vector is empty).
 */
/**
 * \struct wasm_valtype_vec_t
 * \brief A vector of `wasm_valtype_t` pointers, owning its elements.
 *
 * \var wasm_valtype_vec_t::size
 * \brief The number of elements.
 *
 * \var wasm_valtype_vec_t::data
 * \brief The elements (NULL when the vector is empty).
 */
/**
 * \struct wasm_limits_t
 * \brief The limits of a table or memory type.
 *
 * \var wasm_limits_t::min
 * \brief The minimum size (elements or pages).
 *
 * \var wasm_limits_t::max
 * \brief The maximum size, or `wasm_limits_max_default` (0xffffffff) for none.
 */

/**
 * \struct wasm_val_t
 * \brief A value: its kind and its payload. A reference in it is owned by
 * it (released by `wasm_val_delete`).
 *
 * \var wasm_val_t::kind
 * \brief The kind (`WASM_I32`, ..., `WASM_EXTERNREF`, `WASM_FUNCREF`).
 *
 * \var wasm_val_t::of
 * \brief The payload: `i32`, `i64`, `f32`, `f64` or `ref` (NULL for a null
 * reference).
 */

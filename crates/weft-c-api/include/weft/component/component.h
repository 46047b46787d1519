/**
 * \file weft/component/component.h
 *
 * \brief Compiled components and the indices of their exports.
 */

#ifndef WEFT_COMPONENT_COMPONENT_H
#define WEFT_COMPONENT_COMPONENT_H

#include <wasm.h>
#include <weft/component/types/component.h>
#include <weft/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief A compiled component.
typedef struct weft_component_t weft_component_t;

/// \brief The index of an export of a component (owned by the caller).
typedef struct weft_component_export_index_t weft_component_export_index_t;

/**
 * \brief Compiles the component binary (or text) `buf` of `len` bytes into
 * `*component_out`.
 */
WASM_API_EXTERN weft_error_t *weft_component_new(const wasm_engine_t *engine, const uint8_t *buf, size_t len,
                                                 weft_component_t **component_out);

/**
 * \brief Writes the component's precompiled form to `*ret` (caller-owned):
 * the compiled code of its core modules and adapters and its translation,
 * which #weft_component_deserialize loads without compiling, in an engine
 * of the same Weft version and configuration on the same kind of CPU.
 */
WASM_API_EXTERN weft_error_t *weft_component_serialize(const weft_component_t *component, wasm_byte_vec_t *ret);

/**
 * \brief Loads a component written by #weft_component_serialize (or
 * `weft compile`) from the `len` bytes at `buf`, without compiling it.
 * Fails, saying why, if the bytes are not a precompiled component (a core
 * module's, a component binary, truncated) or were made by another Weft
 * version, for another CPU or by an engine configured otherwise.
 *
 * The bytes are trusted: their machine code is mapped and run as written.
 * Pass only bytes Weft wrote and nobody else could change (as with
 * Wasmtime's `wasmtime_component_deserialize`).
 */
WASM_API_EXTERN weft_error_t *weft_component_deserialize(const wasm_engine_t *engine, const uint8_t *buf, size_t len,
                                                         weft_component_t **component_out);

/**
 * \brief #weft_component_deserialize of the contents of the file `path`
 * (a NUL-terminated UTF-8 string); the same trust applies to the file.
 */
WASM_API_EXTERN weft_error_t *weft_component_deserialize_file(const wasm_engine_t *engine, const char *path,
                                                              weft_component_t **component_out);

/// \brief A new reference to the component.
WASM_API_EXTERN weft_component_t *weft_component_clone(const weft_component_t *component);

/// \brief The component's type (free with #weft_component_type_delete).
WASM_API_EXTERN weft_component_type_t *weft_component_type(const weft_component_t *component);

/// \brief Deletes the component.
WASM_API_EXTERN void weft_component_delete(weft_component_t *component);

/**
 * \brief The export `name` of the component, or of its exported instance
 * `instance_export_index` (if not NULL); NULL if there is none.
 */
WASM_API_EXTERN weft_component_export_index_t *
weft_component_get_export_index(const weft_component_t *component,
                                const weft_component_export_index_t *instance_export_index, const char *name,
                                size_t name_len);

/// \brief A copy of the export index.
WASM_API_EXTERN weft_component_export_index_t *
weft_component_export_index_clone(const weft_component_export_index_t *index);

/// \brief Deletes the export index.
WASM_API_EXTERN void weft_component_export_index_delete(weft_component_export_index_t *export_index);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_COMPONENT_COMPONENT_H

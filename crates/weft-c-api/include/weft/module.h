/**
 * \file weft/module.h
 *
 * \brief Compiled modules (#weft_module_t).
 */

#ifndef WEFT_MODULE_H
#define WEFT_MODULE_H

#include <wasm.h>
#include <weft/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \typedef weft_module_t
 * \brief A compiled module: usable with any store of its engine, from any
 * thread. Freed with #weft_module_delete.
 */
typedef struct weft_module weft_module_t;

/**
 * \brief Compiles the module binary `wasm` (`wasm_len` bytes) for `engine`,
 * in `*ret` (untouched on error). The caller owns the module.
 */
WASM_API_EXTERN weft_error_t *weft_module_new(wasm_engine_t *engine, const uint8_t *wasm, size_t wasm_len,
                                              weft_module_t **ret);

/// \brief Deletes a module reference.
WASM_API_EXTERN void weft_module_delete(weft_module_t *m);

/// \brief A new reference to the same module (cheap).
WASM_API_EXTERN weft_module_t *weft_module_clone(const weft_module_t *m);

/// \brief The module's imports, in `out` (the caller owns it).
WASM_API_EXTERN void weft_module_imports(const weft_module_t *module, wasm_importtype_vec_t *out);

/// \brief The module's exports, in `out` (the caller owns it).
WASM_API_EXTERN void weft_module_exports(const weft_module_t *module, wasm_exporttype_vec_t *out);

/// \brief Validates a module binary: NULL if it is valid, else why not.
WASM_API_EXTERN weft_error_t *weft_module_validate(wasm_engine_t *engine, const uint8_t *wasm, size_t wasm_len);

/**
 * \brief The module's precompiled form (machine code and metadata) in
 * `ret`, which the caller frees with `wasm_byte_vec_delete`.
 */
WASM_API_EXTERN weft_error_t *weft_module_serialize(const weft_module_t *module, wasm_byte_vec_t *ret);

/**
 * \brief A module from the output of #weft_module_serialize, in `*ret`.
 *
 * Output of another Weft version, configuration or CPU is refused with an
 * error. The bytes are mapped as machine code: pass only trusted output.
 */
WASM_API_EXTERN weft_error_t *weft_module_deserialize(wasm_engine_t *engine, const uint8_t *bytes, size_t bytes_len,
                                                      weft_module_t **ret);

/// \brief Like #weft_module_deserialize, from the file at `path`.
WASM_API_EXTERN weft_error_t *weft_module_deserialize_file(wasm_engine_t *engine, const char *path,
                                                           weft_module_t **ret);

/**
 * \brief The address range of the module's code image. Weft does not
 * expose it: both are set to NULL.
 */
WASM_API_EXTERN void weft_module_image_range(const weft_module_t *module, void **start, void **end);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_MODULE_H

/**
 * \file wasi.h
 *
 * \brief WASI configurations: the arguments, environment, standard
 * streams, preopened directories and network access of a guest, given to a
 * store with #weft_context_set_wasi. One configuration serves both WASI
 * preview1 (core modules, #weft_linker_define_wasi) and WASI 0.2
 * (components, #weft_component_linker_add_wasip2).
 */

#ifndef WASI_H
#define WASI_H

#include <stddef.h>
#include <stdint.h>
#include <wasm.h>

#ifndef WASI_API_EXTERN
/// \brief How `wasi.h`'s functions are declared.
#define WASI_API_EXTERN WASM_API_EXTERN
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// \brief A WASI configuration (owned by the caller until given to a store).
typedef struct wasi_config_t wasi_config_t;

/// \brief Deletes a configuration.
WASI_API_EXTERN void wasi_config_delete(wasi_config_t *);

/// \brief A bitmask of file permissions (unused by any function, as in Wasmtime 48).
typedef size_t wasi_file_perms;

/**
 * \brief A new configuration: no arguments, an empty environment, an empty
 * stdin, stdout and stderr thrown away, no preopened directories.
 */
WASI_API_EXTERN wasi_config_t *wasi_config_new(void);

/**
 * \brief Lets a WASI 0.2 guest's sockets bind, connect and send to every
 * address (by default every address is refused). WASI preview1 opens no
 * sockets.
 */
WASI_API_EXTERN void wasi_config_inherit_network(wasi_config_t *config);

/**
 * \brief Whether a WASI 0.2 guest may resolve host names
 * (`wasi:sockets/ip-name-lookup`; by default not). WASI preview1 has no
 * name lookups.
 */
WASI_API_EXTERN void wasi_config_allow_ip_name_lookup(wasi_config_t *config, bool enable);

/// \brief The guest's arguments (copied); false if one is not UTF-8.
WASI_API_EXTERN bool wasi_config_set_argv(wasi_config_t *config, size_t argc, const char *argv[]);

/// \brief The guest's arguments are the host process's.
WASI_API_EXTERN void wasi_config_inherit_argv(wasi_config_t *config);

/// \brief The guest's environment (copied); false if a name or value is not UTF-8.
WASI_API_EXTERN bool wasi_config_set_env(wasi_config_t *config, size_t envc, const char *names[],
                                         const char *values[]);

/// \brief The guest's environment is the host process's.
WASI_API_EXTERN void wasi_config_inherit_env(wasi_config_t *config);

/// \brief The guest's stdin reads the file `path`; false if it cannot be opened.
WASI_API_EXTERN bool wasi_config_set_stdin_file(wasi_config_t *config, const char *path);

/// \brief The guest's stdin reads `binary` (taken).
WASI_API_EXTERN void wasi_config_set_stdin_bytes(wasi_config_t *config, wasm_byte_vec_t *binary);

/// \brief The guest's stdin is the host process's.
WASI_API_EXTERN void wasi_config_inherit_stdin(wasi_config_t *config);

/// \brief The guest's stdout writes the file `path` (created or truncated); false if it cannot be opened.
WASI_API_EXTERN bool wasi_config_set_stdout_file(wasi_config_t *config, const char *path);

/// \brief The guest's stdout is the host process's.
WASI_API_EXTERN void wasi_config_inherit_stdout(wasi_config_t *config);

/**
 * \brief The guest's stdout calls `callback(data, bytes, len)` with each
 * write; it returns the number of bytes written, or a negative OS error
 * code. `finalizer` (may be NULL) frees `data`.
 */
WASI_API_EXTERN void wasi_config_set_stdout_custom(wasi_config_t *config,
                                                   ptrdiff_t (*callback)(void *, const unsigned char *, size_t),
                                                   void *data, void (*finalizer)(void *));

/// \brief The guest's stderr writes the file `path`; false if it cannot be opened.
WASI_API_EXTERN bool wasi_config_set_stderr_file(wasi_config_t *config, const char *path);

/// \brief The guest's stderr is the host process's.
WASI_API_EXTERN void wasi_config_inherit_stderr(wasi_config_t *config);

/// \brief The guest's stderr calls `callback` with each write (as #wasi_config_set_stdout_custom).
WASI_API_EXTERN void wasi_config_set_stderr_custom(wasi_config_t *config,
                                                   ptrdiff_t (*callback)(void *, const unsigned char *, size_t),
                                                   void *data, void (*finalizer)(void *));

/**
 * \brief Gives the guest the host directory `host_path` as `guest_path`,
 * read-only unless `fs_mutable`; false on bad UTF-8 or if the directory
 * cannot be opened.
 */
WASI_API_EXTERN bool wasi_config_preopen_dir(wasi_config_t *config, const char *host_path, const char *guest_path,
                                             bool fs_mutable);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WASI_H

/**
 * \file weft/profiling.h
 *
 * \brief The guest profiler: samples of the wasm stack written in the
 * Firefox profiler's processed format.
 */

#ifndef WEFT_PROFILING_H
#define WEFT_PROFILING_H

#include <wasm.h>
#include <weft/error.h>
#include <weft/module.h>
#include <weft/store.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief A guest profiler.
typedef struct weft_guestprofiler weft_guestprofiler_t;

/// \brief A module given to #weft_guestprofiler_new.
typedef struct weft_guestprofiler_modules {
  /// The name recorded in the profile for the module.
  const wasm_name_t *name;
  /// The module.
  const weft_module_t *mod;
} weft_guestprofiler_modules_t;

/**
 * \brief Deletes a profiler without writing its profile.
 */
WASM_API_EXTERN void weft_guestprofiler_delete(weft_guestprofiler_t *guestprofiler);

/**
 * \brief A new profiler for the program `module_name`, sampled about every
 * `interval_nanos`, running the `modules_len` modules of `modules`. The
 * arguments are not taken; the caller owns the result. Null when an
 * argument is null or a module was compiled by another engine than
 * `engine`. Only frames of the listed modules appear in the samples.
 */
WASM_API_EXTERN weft_guestprofiler_t *weft_guestprofiler_new(const wasm_engine_t *engine,
                                                             const wasm_name_t *module_name,
                                                             uint64_t interval_nanos,
                                                             const weft_guestprofiler_modules_t *modules,
                                                             size_t modules_len);

/**
 * \brief Adds a sample of the wasm stack of `store` now, `delta_nanos` of
 * CPU time after the previous sample (0 is fine). Call it from a host
 * function or an epoch callback.
 */
WASM_API_EXTERN void weft_guestprofiler_sample(weft_guestprofiler_t *guestprofiler, const weft_store_t *store,
                                               uint64_t delta_nanos);

/**
 * \brief Writes the profile (JSON) to `out`, which the caller frees with
 * `wasm_byte_vec_delete`, and deletes the profiler.
 */
WASM_API_EXTERN weft_error_t *weft_guestprofiler_finish(weft_guestprofiler_t *guestprofiler, wasm_byte_vec_t *out);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_PROFILING_H

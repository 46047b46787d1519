/**
 * \file weft/conf.h
 *
 * \brief The features libweft was built with (`WEFT_FEATURE_*`), as
 * Wasmtime's `wasmtime/conf.h` has them.
 *
 * Only the features Weft's C API offers are defined.
 */

#ifndef WEFT_CONF_H
#define WEFT_CONF_H

/// `weft_wat2wasm` and text modules.
#define WEFT_FEATURE_WAT
/// Parallel compilation.
#define WEFT_FEATURE_PARALLEL_COMPILATION
/// Cranelift, Weft's compiler.
#define WEFT_FEATURE_CRANELIFT
/// Any compiler: module compilation and validation.
#define WEFT_FEATURE_COMPILER

/// The component model: `weft/component.h`.
#define WEFT_FEATURE_COMPONENT_MODEL
/// The component model's async functions (`weft_component_func_call_async`, ...).
#define WEFT_FEATURE_COMPONENT_MODEL_ASYNC

#endif // WEFT_CONF_H

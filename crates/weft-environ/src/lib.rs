//! `weft-environ` turns the bytes of a WebAssembly module into plain data.
//!
//! It owns the validation of a module (through `wasmparser`), the
//! [`ModuleTranslation`] that later stages consume (types, imports, exports,
//! table/memory/global declarations, data and element segments, names and the
//! borrowed function bodies), the layout of the per-instance `VMContext`
//! ([`VMOffsets`]), the list of runtime builtins that compiled code may call
//! ([`BuiltinFunction`]) and the [`Trap`] codes shared by code generation and
//! the runtime.
//!
//! This crate never generates code, never touches memory protection and never
//! holds runtime state. It contains no `unsafe` code, so any runtime can reuse
//! it.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod builtins;
mod gc_check;
mod module;
mod translate;
mod trap;
mod types;
mod vmoffsets;

pub use builtins::{BuiltinFunction, BuiltinType};
pub use module::*;
pub use translate::{translate_module, ModuleTranslation, TranslateError};
pub use trap::Trap;
pub use types::*;
pub use vmoffsets::*;

/// The features of WebAssembly that Weft can compile today: WebAssembly 2.0
/// (SIMD included) plus the WebAssembly 3.0 proposals that need no garbage
/// collector and no exceptions: relaxed SIMD, tail calls, multi-memory,
/// memory64 and table64, extended constant expressions and typed function
/// references.
pub fn supported_features() -> wasmparser::WasmFeatures {
    use wasmparser::WasmFeatures as F;
    F::WASM2
        .union(F::RELAXED_SIMD)
        .union(F::TAIL_CALL)
        .union(F::MULTI_MEMORY)
        .union(F::MEMORY64)
        .union(F::EXTENDED_CONST)
        .union(F::FUNCTION_REFERENCES)
}

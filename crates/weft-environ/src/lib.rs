//! `weft-environ` turns the bytes of a WebAssembly module into plain data.
//!
//! It owns the validation of a module (through `wasmparser`), the
//! [`ModuleTranslation`] that later stages consume (types, imports, exports,
//! table/memory/global declarations, data and element segments, names and the
//! borrowed function bodies), the layout of the per-instance `VMContext`
//! ([`VMOffsets`]), the list of runtime builtins that compiled code may call
//! ([`BuiltinFunction`]), the [`Trap`] codes shared by code generation and
//! the runtime, and the record of a module's compiled code
//! ([`CompiledModule`]: plain data that code generation fills and
//! precompiled modules carry). With the `component-model` feature it also
//! owns the translation of components (module `component`): the static core
//! modules they contain, a flat instantiation plan with nested components
//! resolved, the registry of component types with the canonical ABI's
//! layouts, and the generation of the fused adapter modules through which
//! one component calls another (wasm, not machine code).
//!
//! This crate never generates machine code, never touches memory protection
//! and never holds runtime state. It contains no `unsafe` code, so any
//! runtime can reuse it.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod builtins;
mod compiled;
#[cfg(feature = "component-model")]
pub mod component;
mod error;
mod gc_check;
mod gc_types;
mod module;
mod translate;
mod trap;
mod types;
mod vmoffsets;

pub use builtins::{
    BuiltinFunction, BuiltinType, ATOMIC_OUT_OF_BOUNDS, ATOMIC_WAIT_NOT_SHARED, EXTERN_HOLDS_ANY, GC_EXTERN_BOX_TYPE,
    GC_OUT_OF_BOUNDS, GC_OUT_OF_MEMORY, GC_TEST_ARRAY, GC_TEST_CONCRETE, GC_TEST_FUNC_SUBTYPE, GC_TEST_STRUCT,
    GROW_ERROR,
};
pub use compiled::{CompiledModule, ExceptionHandler, FunctionLoc, NO_TRAMPOLINE};
pub use error::TranslateError;
pub use gc_types::*;
pub use module::*;
pub use translate::{
    translate_module, translate_module_deferring_bodies, translate_module_trusting_bodies, ModuleTranslation,
};
pub use trap::Trap;
pub use types::*;
pub use vmoffsets::*;

/// Choices that change the code generated for a module, fixed per engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Tunables {
    /// Count fuel in the store context and call
    /// [`BuiltinFunction::OutOfFuel`] when it runs out (checked at function
    /// entries and loop headers).
    pub consume_fuel: bool,
    /// Compare the engine's epoch with the store's deadline at function
    /// entries and loop headers, calling [`BuiltinFunction::NewEpoch`] when it
    /// is reached.
    pub epoch_interruption: bool,
    /// Relaxed SIMD instructions compute the deterministic results of the
    /// spec instead of the fastest ones of the machine.
    pub relaxed_simd_deterministic: bool,
    /// Exception handling is enabled: calls in the scope of a handler
    /// record where an exception thrown below them resumes, and a function
    /// that has no handler for an exception unwinds to the one that has
    /// (see `vmstore::PENDING_EXN`). Without it no module may use tags, so
    /// no exception can ever be pending.
    pub exceptions: bool,
    /// Every access to a linear memory is checked against its current
    /// length, 32-bit memories of 64 KiB pages included: their memory may
    /// come from the embedder (`Config::with_host_memory`), without the
    /// guard region that otherwise makes those checks unnecessary.
    pub explicit_bounds_checks: bool,
}

/// The features of WebAssembly that Weft can compile today: WebAssembly 2.0
/// (SIMD included) plus the proposals of WebAssembly 3.0: relaxed SIMD,
/// tail calls, multi-memory, memory64 and table64, extended constant
/// expressions, typed function references, exception handling and garbage
/// collection; and wide arithmetic, custom page sizes, legacy exception
/// handling and threads. GC and the last four are off unless asked for, as
/// in Wasmtime ([`default_off_features`]).
pub fn supported_features() -> wasmparser::WasmFeatures {
    use wasmparser::WasmFeatures as F;
    F::WASM2
        .union(F::RELAXED_SIMD)
        .union(F::TAIL_CALL)
        .union(F::MULTI_MEMORY)
        .union(F::MEMORY64)
        .union(F::EXTENDED_CONST)
        .union(F::FUNCTION_REFERENCES)
        .union(F::EXCEPTIONS)
        .union(F::WIDE_ARITHMETIC)
        .union(F::CUSTOM_PAGE_SIZES)
        .union(F::LEGACY_EXCEPTIONS)
        .union(F::THREADS)
        .union(F::GC)
}

/// The features that can be enabled although Weft supports them only in
/// part: custom descriptors (exact reference types, `describes` and
/// `descriptor` clauses, the `_desc` instructions; not every spec file of
/// the proposal passes). Off by default; GC was here until its spec files
/// all passed.
pub fn partial_features() -> wasmparser::WasmFeatures {
    wasmparser::WasmFeatures::CUSTOM_DESCRIPTORS
}

/// The supported features that are off unless asked for, as in Wasmtime:
/// garbage collection, wide arithmetic, custom page sizes and legacy
/// exception handling. (Threads are on, as in Wasmtime 48, whose engines
/// need `Config::shared_memory` besides to make shared memories.)
pub fn default_off_features() -> wasmparser::WasmFeatures {
    use wasmparser::WasmFeatures as F;
    F::GC
        .union(F::WIDE_ARITHMETIC)
        .union(F::CUSTOM_PAGE_SIZES)
        .union(F::LEGACY_EXCEPTIONS)
}

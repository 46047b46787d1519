//! `weft-cranelift` compiles the functions of a translated WebAssembly module
//! ([`weft_environ::ModuleTranslation`]) to machine code with Cranelift.
//!
//! It owns the translation of wasm operators to Cranelift IR, the calling
//! conventions shared by all compiled code (see [`Compiler`]), the
//! host-to-wasm ("array call") and wasm-to-host trampolines, the linking of
//! direct calls between the functions of one module, and the trap table that
//! maps code offsets to [`weft_environ::Trap`]s.
//!
//! It never touches memory protection or a store, and never executes what it
//! produces: its output is plain data (bytes plus metadata:
//! [`weft_environ::CompiledModule`]) that the runtime copies into executable
//! memory. It contains no `unsafe` code.
//!
//! # Conventions
//!
//! * Pointers, `funcref`, `externref` and `exnref` values are `i64`; a null
//!   reference is 0.
//! * With exception handling on (`Tunables::exceptions`), a call to wasm in
//!   the scope of a handler is a `try_call`, whose landing pad an exception
//!   thrown below it resumes at; other calls are plain calls (see
//!   `ops_exceptions.rs`).
//! * Every wasm function, defined or imported, uses Cranelift's `tail` calling
//!   convention with parameters `(callee_vmctx, caller_vmctx, wasm params...)`
//!   and the wasm results as results.
//! * A `v128` is an `i8x16` wherever it is stored or passed; operators
//!   bitcast it to the lane type they need.
//! * Linear memories have a 4 GiB reservation plus a 4 GiB guard region
//!   (unless `Tunables::explicit_bounds_checks`: memories in memory the
//!   embedder provides, all of whose accesses are checked as 64-bit ones):
//!   accesses to 32-bit memories are not bounds-checked, an out-of-bounds
//!   access faults and the fault's pc is found in the trap table as
//!   [`weft_environ::Trap::MemoryOutOfBounds`]. Accesses to 64-bit memories
//!   are checked against the current length, and an out-of-bounds one is
//!   sent to address 0 (with `select_spectre_guard`), where it faults. The base of a linear memory
//!   never moves (only its accessible length grows), so compiled code may
//!   keep `VMMemoryDefinition::base` in a register across calls; the current
//!   length is reloaded after every call.
//! * Table elements, `VMTableDefinition` fields and mutable globals are
//!   reloaded after every call; `VMContext` fields, `VMFuncRef`s and the
//!   values of immutable globals are assumed never to change once the
//!   instance is initialized.
//! * Every function checks the stack pointer against
//!   `VMStoreContext::stack_limit` in its prologue.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod builtins;
mod compiler;
mod func_translator;
mod gc_stack_maps;
mod interrupts;
mod link;
mod ops_atomics;
mod ops_exceptions;
mod ops_func_refs;
mod ops_gc;
mod ops_memory;
mod ops_numeric;
mod ops_relaxed;
mod ops_simd;
mod ops_simd_arith;
mod ops_simd_memory;
mod ops_table;
mod placement;
mod trampolines;
mod types;

pub use compiler::{CompiledTrampoline, Compiler};
pub use link::CompiledFunction;

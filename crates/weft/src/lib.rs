//! Weft: a WebAssembly runtime with Wasmtime's embedding API.
//!
//! This crate is the public facade. It owns the API that embedders use
//! ([`Engine`], [`Store`], [`Module`], [`Linker`], [`Instance`], [`Func`],
//! [`Memory`], [`Table`], [`Global`], ...) and composes the layers below it:
//! `weft-environ` translates modules, `weft-types` canonicalizes function
//! types, `weft-cranelift` compiles, and `weft-runtime` runs the code. Names,
//! signatures and semantics follow Wasmtime's, so a program written against
//! Wasmtime's core API compiles against Weft by renaming the crate.
//!
//! # Async calls and drop safety
//!
//! `Func::call_async`, `TypedFunc::call_async`,
//! `Instance::new_async` and `Linker::instantiate_async` run wasm on a fiber
//! of their own, so that async host functions (`Func::wrap_async`,
//! `Linker::func_wrap_async`), fuel yields (`Store::fuel_async_yield_interval`)
//! and epoch yields (`Store::epoch_deadline_async_yield_and_update`) suspend
//! the call instead of blocking the thread. The futures are `Send` when the
//! store's data is, and run under any executor. A store keeps the fiber of
//! its last async call, idle, and runs its next one on it: a call makes no
//! fiber and takes no stack; the stack goes back to the pool with the store.
//!
//! **Guarantee.** The future of an async call may be dropped at any point:
//! before its first poll, after any number of polls, while an async host
//! function is pending, or while wasm yields for fuel or an epoch. Dropping
//! it resumes the fiber with a cancellation: every wait on it fails, the
//! pending host function returns an error, the wasm frames unwind through the
//! trap path, and the fiber ends and its stack returns to the engine's pool.
//! Nothing panics, nothing leaks, and the store stays usable: the next call
//! on it runs normally or returns a clean `Err`. A sync call that reaches an
//! async host function, or a yield, fails with an `Err` as well.
//!
//! This crate contains no `unsafe` code, and no input or misuse of the API
//! (values of another store, wrong types or argument counts) panics: such
//! mistakes come back as [`Error`]s.
//!
//! ```
//! use weft::*;
//! let engine = Engine::default();
//! let wasm = wat::parse_str(r#"(module (func (export "add") (param i32 i32) (result i32)
//!     local.get 0 local.get 1 i32.add))"#)?;
//! let module = Module::new(&engine, wasm)?;
//! let mut store = Store::new(&engine, ());
//! let instance = Instance::new(&mut store, &module, &[])?;
//! let add = instance.get_typed_func::<(i32, i32), i32>(&mut store, "add")?;
//! assert_eq!(add.call(&mut store, (2, 3))?, 5);
//! # Ok::<(), weft::Error>(())
//! ```

// No `unsafe` code: the only items allowed past this lint are the
// declarations of `Module::deserialize` and `Module::deserialize_file`, whose
// contract (trusted bytes) is unsafe while their bodies are not, and of the
// unsafe trait `MemoryCreator` (its memories are trusted by compiled code).
#![deny(unsafe_code)]
#![deny(missing_docs)]

// The derive macros name `weft::component::__internal`; in-crate tests
// that use them resolve `weft` to this crate.
#[cfg(test)]
extern crate self as weft;

#[cfg(feature = "async")]
mod async_support;
mod call_hook;
#[cfg(feature = "component-model")]
pub mod component;
mod config;
mod default_values;
mod engine;
mod exceptions;
mod externals;
mod func;
mod gc_objects;
mod gc_refs;
mod id_map;
mod instance;
mod interrupts;
mod limits;
mod linker;
mod module;
#[cfg(feature = "profiling")]
mod profiling;
mod serialize;
mod shared_memory;
mod store;
mod trap;
mod types;
mod values;

pub use anyhow::{bail, ensure, format_err, Context};
pub use call_hook::CallHook;
pub use config::{
    Collector, Config, InstanceAllocationStrategy, LinearMemory, MemoryCreator, OptLevel, PoolingAllocationConfig,
};
#[cfg(feature = "async")]
pub use config::{StackCreator, StackMemory};
pub use engine::{Engine, Precompiled};
pub use exceptions::{ExnRefPre, ExnType};
pub use externals::{Extern, Global, Memory, MemoryAccessError, Table, Tag};
pub use func::{Func, IntoFunc, TypedFunc, WasmParams, WasmResults, WasmRet, WasmTy};
pub use gc_objects::{ArrayRef, ArrayRefPre, EqRef, StructRef, StructRefPre};
pub use gc_refs::{AnyRef, OwnedRooted, RootScope, I31};
pub use instance::{Export, Instance};
pub use interrupts::UpdateDeadline;
#[cfg(feature = "async")]
pub use limits::ResourceLimiterAsync;
pub use limits::{ResourceLimiter, DEFAULT_INSTANCE_LIMIT, DEFAULT_MEMORY_LIMIT, DEFAULT_TABLE_LIMIT};
pub use linker::Linker;
pub use module::Module;
#[cfg(feature = "profiling")]
pub use profiling::GuestProfiler;
pub use shared_memory::{SharedMemory, WaitResult};
pub use store::{AsContext, AsContextMut, Caller, Store, StoreContext, StoreContextMut};
pub use trap::{FrameInfo, ThrownException, Trap, WasmBacktrace};
pub use types::{
    ArrayType, ExportType, ExternType, FieldType, FuncType, GlobalType, HeapType, ImportType, MemoryType,
    MemoryTypeBuilder, Mutability, RefType, StorageType, StructType, TableType, TagType, ValType,
};
pub use values::{ExnRef, ExternRef, GcHeapOutOfMemory, Ref, Rooted, Val, V128};

/// The error type of Weft: `anyhow::Error`, so `?` mixes with anyhow.
pub type Error = anyhow::Error;

/// A result with Weft's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

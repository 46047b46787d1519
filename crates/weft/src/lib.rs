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

#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "async")]
mod async_support;
mod compile;
mod config;
mod engine;
mod externals;
mod func;
mod instance;
mod interrupts;
mod limits;
mod linker;
mod module;
mod store;
mod trap;
mod types;
mod values;

pub use anyhow::{bail, ensure, format_err, Context};
pub use config::{Config, OptLevel};
pub use engine::Engine;
pub use externals::{Extern, Global, Memory, MemoryAccessError, Table};
pub use func::{Func, IntoFunc, TypedFunc, WasmParams, WasmResults, WasmRet, WasmTy};
pub use instance::{Export, Instance};
pub use interrupts::UpdateDeadline;
#[cfg(feature = "async")]
pub use limits::ResourceLimiterAsync;
pub use limits::{ResourceLimiter, DEFAULT_INSTANCE_LIMIT, DEFAULT_MEMORY_LIMIT, DEFAULT_TABLE_LIMIT};
pub use linker::Linker;
pub use module::Module;
pub use store::{AsContext, AsContextMut, Caller, Store, StoreContext, StoreContextMut};
pub use trap::{FrameInfo, Trap, WasmBacktrace};
pub use types::{
    ExportType, ExternType, FuncType, GlobalType, HeapType, ImportType, MemoryType, Mutability, RefType, TableType,
    ValType,
};
pub use values::{ExternRef, GcHeapOutOfMemory, Ref, Rooted, Val, V128};

/// The error type of Weft: `anyhow::Error`, so `?` mixes with anyhow.
pub type Error = anyhow::Error;

/// A result with Weft's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

//! WASI preview1 (`wasi_snapshot_preview1`) for core modules, on Weft.
//!
//! This crate owns the host side of WASI preview1: the context a store
//! holds for its guest ([`WasiP1Ctx`], built with [`WasiCtxBuilder`]: its
//! arguments, environment, standard streams, preopened directories and
//! sockets), the table of the guest's file descriptors with their rights,
//! and the host functions that [`preview1::add_to_linker_sync`] (and, with
//! the default `async` feature, `preview1::add_to_linker_async`) put in a
//! [`weft::Linker`]. It is written against the public `weft` API only
//! (`Linker::func_wrap`, `Caller`, `Memory::data_and_store_mut`), as any
//! embedder's host functions would be.
//!
//! It never uses `unsafe`, never panics on what a guest passes (a pointer
//! or length outside memory is `fault`, bad flags are `inval`), and never
//! resolves a guest's path itself: every path is resolved by `cap-std`
//! inside the handle of a preopened directory, so a guest reaches nothing
//! outside its preopens — not by `..`, absolute paths, symlinks (however
//! nested, including its own), renames or hard links. `proc_exit` ends the
//! guest's call with an error that downcasts to [`I32Exit`].
//!
//! With the `p2` feature it is also WASI 0.2 (`p2`) and, with `p3`,
//! WASI 0.3 (`p3`) for components, shaped as Wasmtime 48's
//! `wasmtime_wasi`: one `WasiCtx` made of a sub-context per package
//! (`cli`, `clocks`, `filesystem`, `random`, `sockets`, each with its
//! `HasData` type, its `*CtxView` and its `Wasi*View` trait, which every
//! `WasiView` implements), so that single interfaces can be linked for a
//! store that lends only their part.
//!
//! ```
//! use weft::{Engine, Linker, Module, Store};
//! use weft_wasi::preview1::{self, WasiP1Ctx};
//! use weft_wasi::{I32Exit, WasiCtxBuilder};
//!
//! let engine = Engine::default();
//! let mut linker: Linker<WasiP1Ctx> = Linker::new(&engine);
//! preview1::add_to_linker_sync(&mut linker, |t| t)?;
//! let mut store = Store::new(&engine, WasiCtxBuilder::new().build_p1());
//! let module = Module::new(&engine, r#"(module
//!     (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
//!     (memory (export "memory") 1)
//!     (func (export "_start") (call $exit (i32.const 3))))"#)?;
//! linker.module(&mut store, "", &module)?;
//! let err = linker.get_default(&mut store, "")?.typed::<(), ()>(&store)?.call(&mut store, ()).unwrap_err();
//! assert_eq!(err.downcast_ref::<I32Exit>(), Some(&I32Exit(3)));
//! # Ok::<(), anyhow::Error>(())
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod builder;
pub mod cli;
mod cli_streams;
#[cfg(feature = "p2")]
pub mod clocks;
mod ctx;
mod errno;
mod fd;
mod filestat;
#[cfg(feature = "p2")]
pub mod filesystem;
mod memory;
mod p1_clocks;
#[cfg(feature = "p2")]
pub mod p2;
#[cfg(feature = "p3")]
pub mod p3;
mod path;
mod perms;
mod poll;
pub mod preview1;
mod proc;
#[cfg(feature = "p2")]
pub mod random;
pub mod runtime;
#[cfg(feature = "async")]
mod sleep;
mod sock;
#[cfg(feature = "p2")]
pub mod sockets;
mod stdio;
mod types;
#[cfg(feature = "p2")]
mod view;

/// The attribute of `impl`s of `p2::Pollable`, `p2::InputStream` and
/// `p2::OutputStream` (re-exported as Wasmtime's
/// `wasmtime_wasi::async_trait`).
pub use async_trait::async_trait;
pub use builder::WasiCtxBuilder;
#[cfg(feature = "p2")]
pub use clocks::{HostMonotonicClock, HostWallClock};
pub use ctx::WasiP1Ctx;
pub use errno::Errno;
#[cfg(feature = "p2")]
pub use filesystem::OpenMode;
pub use perms::FsPerms;
pub use preview1 as p1;
pub use proc::I32Exit;
#[cfg(feature = "p2")]
pub use rand::Rng;
#[cfg(feature = "p2")]
pub use random::{thread_rng, Deterministic};
pub use stdio::{
    stderr, stdin, stdout, ClosedInputStream, ClosedOutputStream, InputFile, IsTerminal, MemoryInputPipe,
    MemoryOutputPipe, OutputFile, SinkOutputStream, Stderr, Stdin, StdinStream, Stdout, StdoutStream,
};
#[cfg(feature = "p2")]
pub use view::{WasiCtx, WasiCtxView, WasiView};
#[cfg(feature = "p2")]
pub use weft::component::{ResourceTable, ResourceTableError};

/// In-memory pipes, under the module path Wasmtime gives them.
pub mod pipe {
    pub use crate::stdio::{
        ClosedInputStream, ClosedOutputStream, MemoryInputPipe, MemoryOutputPipe, SinkOutputStream,
    };
}

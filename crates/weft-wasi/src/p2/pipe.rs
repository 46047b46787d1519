//! In-memory streams, under the module path Wasmtime gives them
//! (`wasmtime_wasi::p2::pipe`): give them to [`crate::WasiCtxBuilder`] as
//! standard streams.

pub use crate::stdio::{ClosedInputStream, MemoryInputPipe, MemoryOutputPipe, SinkOutputStream};

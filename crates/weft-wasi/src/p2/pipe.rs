//! In-memory and adapter streams, under the module path Wasmtime gives
//! them (`wasmtime_wasi::p2::pipe`): give them to
//! [`crate::WasiCtxBuilder`] as standard streams, or use them as WASI 0.2
//! streams of your own.

pub use super::adapters::{AsyncReadStream, AsyncWriteStream};
pub use crate::stdio::{ClosedInputStream, ClosedOutputStream, MemoryInputPipe, MemoryOutputPipe, SinkOutputStream};

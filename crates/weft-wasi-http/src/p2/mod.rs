//! `wasi:http` 0.2 (`wasi:http/proxy@0.2.x`), shaped as Wasmtime 48's
//! `wasmtime_wasi_http::p2`.

pub mod bindings;
pub mod body;
pub(crate) mod error;
pub(crate) mod future;
mod host;
pub mod types;

pub use bindings::http::types::ErrorCode;
pub use error::{
    http_request_error, hyper_request_error, hyper_response_error, HeaderError, HeaderResult, HttpError, HttpResult,
};

use crate::{WasiHttp, WasiHttpCtxView, WasiHttpView};

/// How many writes to an outgoing body's output stream are buffered by
/// default ([`crate::WasiHttpHooks::p2_outgoing_body_buffer_chunks`]).
pub const DEFAULT_OUTGOING_BODY_BUFFER_CHUNKS: usize = crate::ctx::P2_DEFAULT_OUTGOING_BODY_BUFFER_CHUNKS;

/// The most bytes one write to an outgoing body's output stream carries
/// by default ([`crate::WasiHttpHooks::p2_outgoing_body_chunk_size`]).
pub const DEFAULT_OUTGOING_BODY_CHUNK_SIZE: usize = crate::ctx::P2_DEFAULT_OUTGOING_BODY_CHUNK_SIZE;
use weft::component::Linker;
use weft_wasi::p2::WasiView;

fn http_getter<T: WasiHttpView>(t: &mut T) -> WasiHttpCtxView<'_> {
    t.http()
}

/// Adds every import of the `wasi:http/proxy` world to `linker`: the
/// `wasi:io`, `wasi:clocks`, `wasi:random` and `wasi:cli` standard-stream
/// interfaces of `weft_wasi::p2` (whose waiting functions are async and
/// await the pollables' futures) and `wasi:http`'s `types` and
/// `outgoing-handler`. Components are instantiated and called with the
/// async API. For components that import the rest of `wasi:cli/command`
/// too, use `weft_wasi::p2::add_to_linker_async` and
/// [`add_only_http_to_linker_async`] instead.
pub fn add_to_linker_async<T: WasiHttpView + WasiView + 'static>(linker: &mut Linker<T>) -> anyhow::Result<()> {
    weft_wasi::p2::add_to_linker_proxy_interfaces_async(linker)?;
    add_only_http_to_linker_async(linker)
}

/// [`add_to_linker_async`] for components instantiated and called with
/// the synchronous API: the waiting functions of `wasi:io` block their
/// thread until a waker fires.
pub fn add_to_linker_sync<T: WasiHttpView + WasiView + 'static>(linker: &mut Linker<T>) -> anyhow::Result<()> {
    weft_wasi::p2::add_to_linker_proxy_interfaces_sync(linker)?;
    add_only_http_to_linker_sync(linker)
}

/// Adds only `wasi:http/types` and `wasi:http/outgoing-handler` to
/// `linker` (the rest comes from `weft_wasi::p2::add_to_linker_async`).
/// Their functions do not wait, so they are the same in both flavours.
pub fn add_only_http_to_linker_async<T: WasiHttpView + 'static>(linker: &mut Linker<T>) -> anyhow::Result<()> {
    add_only_http_to_linker_sync(linker)
}

/// [`add_only_http_to_linker_async`] for the synchronous API.
pub fn add_only_http_to_linker_sync<T: WasiHttpView + 'static>(linker: &mut Linker<T>) -> anyhow::Result<()> {
    let get: fn(&mut T) -> WasiHttpCtxView<'_> = http_getter::<T>;
    bindings::http::types::add_to_linker::<T, WasiHttp>(linker, &(&bindings::LinkOptions::default()).into(), get)?;
    bindings::http::outgoing_handler::add_to_linker::<T, WasiHttp>(linker, get)?;
    Ok(())
}

//! `wasi:http` 0.2 for Weft components, shaped as Wasmtime 48's
//! `wasmtime_wasi_http`: the `wasi:http/proxy` world on `hyper`.
//!
//! A store's data implements [`WasiHttpView`] (lending a [`WasiHttpCtx`],
//! the [`ResourceTable`] it shares with `weft_wasi::p2`, and the embedder's
//! [`WasiHttpHooks`]) and `weft_wasi::p2::WasiView`;
//! [`p2::add_to_linker_async`] (or [`p2::add_to_linker_sync`]) links the
//! proxy world's imports. For each request the host makes an
//! `incoming-request` with [`WasiHttpCtxView::new_incoming_request`] and a
//! `response-outparam` with [`WasiHttpCtxView::new_response_outparam`],
//! then calls the guest's `wasi:http/incoming-handler.handle`; the response
//! arrives on the oneshot channel as a `hyper::Response` whose body streams
//! what the guest writes.
//!
//! Outgoing requests (`wasi:http/outgoing-handler.handle`, 0.3
//! `wasi:http/client.send`) go through [`WasiHttpHooks::send_request`].
//! As in Wasmtime 48, its default (feature `default-send-request`, on by
//! default) sends them with `default_send_request` (plain HTTP/1, on
//! the caller's tokio runtime); an embedder that keeps the guest off the
//! network overrides it, for instance with [`refuse_request`]
//! (`error-code.HTTP-request-denied`), as `weft serve` does unless
//! `-S http-outgoing` is given. Errors on the way are [`Error`]s, which
//! the hooks (`p2_error_from_hyper` and the others) turn into the guest's
//! error codes. The `handler` module (feature `p3`) serves requests with
//! reused instances.
//!
//! ```no_run
//! use weft::component::{Component, Linker, ResourceTable};
//! use weft::{Engine, Store};
//! use weft_wasi::p2::{WasiCtx, WasiCtxView, WasiView};
//! use weft_wasi_http::p2::bindings::sync::ProxyPre;
//! use weft_wasi_http::p2::bindings::http::types::Scheme;
//! use weft_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};
//!
//! struct State { wasi: WasiCtx, http: WasiHttpCtx, table: ResourceTable }
//! impl WasiView for State {
//!     fn ctx(&mut self) -> WasiCtxView<'_> { WasiCtxView { ctx: &mut self.wasi, table: &mut self.table } }
//! }
//! impl WasiHttpView for State {
//!     fn http(&mut self) -> WasiHttpCtxView<'_> {
//!         WasiHttpCtxView { ctx: &mut self.http, table: &mut self.table, hooks: Default::default() }
//!     }
//! }
//!
//! # fn main() -> anyhow::Result<()> {
//! let engine = Engine::default();
//! let component = Component::from_file(&engine, "proxy.wasm")?;
//! let mut linker = Linker::<State>::new(&engine);
//! weft_wasi_http::p2::add_to_linker_sync(&mut linker)?;
//! let pre = ProxyPre::new(linker.instantiate_pre(&component)?)?;
//! let state = State { wasi: WasiCtx::builder().build(), http: WasiHttpCtx::new(), table: ResourceTable::new() };
//! let mut store = Store::new(&engine, state);
//! let request = hyper::Request::get("http://localhost/").body(http_body_util::Empty::<bytes::Bytes>::new())?;
//! let (tx, rx) = tokio::sync::oneshot::channel();
//! let req = store.data_mut().http().new_incoming_request(Scheme::Http, request)?;
//! let out = store.data_mut().http().new_response_outparam(tx)?;
//! let proxy = pre.instantiate(&mut store)?;
//! proxy.wasi_http_incoming_handler().call_handle(&mut store, req, out)?;
//! let response = rx.blocking_recv()??;
//! println!("{}", response.status());
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

mod ctx;
mod error;
mod field_map;
#[cfg(feature = "p3")]
pub mod handler;
pub mod p2;
#[cfg(feature = "p3")]
pub mod p3;
#[cfg(feature = "default-send-request")]
mod send;

#[cfg(feature = "default-send-request")]
pub use ctx::default_hooks;
pub use ctx::{
    refuse_request, WasiBody, WasiHttp, WasiHttpCtx, WasiHttpCtxView, WasiHttpHooks, WasiHttpView,
    DEFAULT_FORBIDDEN_HEADERS,
};
pub use error::{Error, Result};
pub use field_map::{FieldMap, FieldMapError};
#[cfg(feature = "default-send-request")]
pub use send::default_send_request;
pub use weft::component::ResourceTable;

use std::time::Duration;

/// The timeouts of an outgoing request (`wasi:http/types.request-options`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestOptions {
    /// How long to wait for the connection to be made.
    pub connect_timeout: Option<Duration>,
    /// How long to wait for the first byte of the response.
    pub first_byte_timeout: Option<Duration>,
    /// How long to wait between two bytes of the response.
    pub between_bytes_timeout: Option<Duration>,
}

//! `wasi:http` 0.3 (`wasi:http/service@0.3.0`), on the component model's
//! async ABI, shaped as Wasmtime 48's `wasmtime_wasi_http::p3`.
//!
//! [`add_to_linker`] links `wasi:http/types` and `wasi:http/client`; the
//! rest of the `service` world (`wasi:cli`, `wasi:clocks`, `wasi:random`)
//! comes from `weft_wasi::p3`. Requests and responses are [`Request`] and
//! [`Response`], with bodies as `stream<u8>` and trailers as futures;
//! [`Request::from_http`] and [`Response::into_http`] convert them from
//! and to the `http` crate's types, and [`Service::handle`] calls the
//! guest's `wasi:http/handler.handle` inside `Store::run_concurrent`.
//!
//! `client.send` goes through [`crate::WasiHttpHooks::send_request`] (the
//! hook of 0.2 too): by default it sends with
//! `default_send_request` (see the crate's documentation).
//!
//! ```no_run
//! use weft::component::{Component, Linker, ResourceTable};
//! use weft::{Config, Engine, Store};
//! use weft_wasi::p3::{WasiCtx, WasiCtxView, WasiView};
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
//! # async fn run() -> weft::Result<()> {
//! let engine = Engine::new(Config::new().wasm_component_model_async(true))?;
//! let component = Component::from_file(&engine, "service.wasm")?;
//! let mut linker = Linker::<State>::new(&engine);
//! weft_wasi::p3::add_to_linker(&mut linker)?;
//! weft_wasi_http::p3::add_to_linker(&mut linker)?;
//! let state = State { wasi: WasiCtx::builder().build(), http: WasiHttpCtx::new(), table: ResourceTable::new() };
//! let mut store = Store::new(&engine, state);
//! let service = weft_wasi_http::p3::Service::instantiate_async(&mut store, &component, &linker).await?;
//! let request = http::Request::get("http://localhost/").body(http_body_util::Empty::<bytes::Bytes>::new())?;
//! store
//!     .run_concurrent(async move |store| -> weft::Result<()> {
//!         let response = service.handle(store, request).await?;
//!         let response = match response {
//!             Ok(r) => store.with(|access| r.into_http(access, async { Ok(()) }))?,
//!             Err(code) => return Err(weft::Error::msg(format!("{code:?}"))),
//!         };
//!         println!("{}", response.status());
//!         Ok(())
//!     })
//!     .await??;
//! # Ok(())
//! # }
//! ```

pub mod bindings;
mod body;
pub(crate) mod errors;
mod host;
mod maybe_mutable;
mod message;

pub use bindings::http::types::ErrorCode;
pub use bindings::{exports, wasi, LinkOptions, Service, ServiceIndices, ServicePre};
pub use body::{empty_body, HttpBody, TrailersResult, QUEUE_LIMIT};
pub use errors::{
    from_p2, hyper_request_error, hyper_response_error, to_p2, HeaderError, HeaderResult, HttpError, HttpResult,
    RequestOptionsError, RequestOptionsResult,
};
pub use maybe_mutable::{MaybeMutable, SharedRequestOptions};
pub use message::{Request, Response};

use crate::{WasiHttp, WasiHttpCtxView, WasiHttpView};
use weft::component::{Accessor, Linker};

/// The largest chunk in which a guest body reaches hyper by default
/// (`WasiHttpHooks::p3_outgoing_body_chunk_size`; as Wasmtime's constant; the
/// guest's writes are queued up to [`QUEUE_LIMIT`] bytes).
pub const DEFAULT_OUTGOING_BODY_CHUNK_SIZE: usize = crate::ctx::P3_DEFAULT_OUTGOING_BODY_CHUNK_SIZE;

fn http_getter<T: WasiHttpView>(t: &mut T) -> WasiHttpCtxView<'_> {
    t.http()
}

/// Adds `wasi:http/types@0.3.0` and `wasi:http/client@0.3.0` to `linker`.
pub fn add_to_linker<T: WasiHttpView + 'static>(linker: &mut Linker<T>) -> weft::Result<()> {
    let get: fn(&mut T) -> WasiHttpCtxView<'_> = http_getter::<T>;
    bindings::http::types::add_to_linker::<T, WasiHttp>(linker, get)?;
    bindings::http::client::add_to_linker::<T, WasiHttp>(linker, get)?;
    Ok(())
}

impl Service {
    /// Calls the guest's `wasi:http/handler.handle` with `req` (put in the
    /// store's table) and takes its response back out of the table. Call
    /// it inside `Store::run_concurrent`; the store must stay there while
    /// a guest body is read. The outer error is a trap; the inner one the
    /// guest's `error-code`.
    pub async fn handle<T: WasiHttpView + 'static>(
        &self,
        store: &Accessor<T>,
        req: impl Into<Request>,
    ) -> weft::Result<Result<Response, ErrorCode>> {
        let req = req.into();
        let req = store.with(|mut access| access.data_mut().http().table.push(req))?;
        match self.wasi_http_handler().call_handle(store, req).await? {
            Ok(res) => Ok(Ok(store.with(|mut access| access.data_mut().http().table.delete(res))?)),
            Err(code) => Ok(Err(code)),
        }
    }
}

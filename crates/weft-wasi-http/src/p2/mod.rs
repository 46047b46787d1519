//! `wasi:http` 0.2 (`wasi:http/proxy@0.2.x`), shaped as Wasmtime 48's
//! `wasmtime_wasi_http::p2`.

pub mod bindings;
pub mod body;
mod host;
pub mod types;

use crate::{WasiHttp, WasiHttpCtxView, WasiHttpView};
use bindings::http::types::ErrorCode;
use weft::component::Linker;
use weft_wasi::p2::{HasWasi, TrappableError, WasiCtxView, WasiView};

/// How many bytes an outgoing body buffers by default before its stream
/// reports no room to write: 1 MiB.
pub const DEFAULT_OUTGOING_BODY_BUFFER_SIZE: usize = 1024 * 1024;

/// An `error-code` for the guest, or a trap.
pub type HttpError = TrappableError<ErrorCode>;
/// The result of a host function that may fail with an `error-code`.
pub type HttpResult<T, E = HttpError> = Result<T, E>;
/// A `header-error` for the guest, or a trap.
pub type HeaderError = TrappableError<bindings::http::types::HeaderError>;
/// The result of a host function that may fail with a `header-error`.
pub type HeaderResult<T, E = HeaderError> = Result<T, E>;

impl From<crate::FieldMapError> for HeaderError {
    fn from(e: crate::FieldMapError) -> HeaderError {
        use crate::FieldMapError as F;
        use bindings::http::types::HeaderError as H;
        match e {
            F::Immutable => H::Immutable.into(),
            F::Forbidden => H::Forbidden.into(),
            F::InvalidHeaderName | F::InvalidHeaderValue | F::TotalSizeTooBig => H::InvalidSyntax.into(),
        }
    }
}

/// The `error-code` of an `http::Error` met while building a request.
pub fn http_request_error(err: http::Error) -> ErrorCode {
    if err.is::<http::uri::InvalidUri>() || err.is::<http::uri::InvalidUriParts>() {
        return ErrorCode::HttpRequestUriInvalid;
    }
    ErrorCode::InternalError(Some(err.to_string()))
}

/// The `error-code` of a `hyper::Error` met while sending a request.
pub fn hyper_request_error(err: hyper::Error) -> ErrorCode {
    hyper_error(&err)
}

/// The `error-code` of a `hyper::Error` met while receiving a response
/// (or an incoming request's body).
pub fn hyper_response_error(err: hyper::Error) -> ErrorCode {
    if err.is_timeout() {
        return ErrorCode::HttpResponseTimeout;
    }
    hyper_error(&err)
}

fn hyper_error(err: &hyper::Error) -> ErrorCode {
    if let Some(code) = std::error::Error::source(err).and_then(|e| e.downcast_ref::<ErrorCode>()) {
        return code.clone();
    }
    if err.is_incomplete_message() || err.is_closed() {
        return ErrorCode::ConnectionTerminated;
    }
    if err.is_parse() {
        return ErrorCode::HttpProtocolError;
    }
    ErrorCode::InternalError(Some(err.to_string()))
}

fn http_getter<T: WasiHttpView>(t: &mut T) -> WasiHttpCtxView<'_> {
    t.http()
}

fn wasi_getter<T: WasiView>(t: &mut T) -> WasiCtxView<'_> {
    t.ctx()
}

/// Adds every import of the `wasi:http/proxy` world to `linker`: the
/// `wasi:io`, `wasi:clocks`, `wasi:random` and `wasi:cli` standard-stream
/// interfaces of `weft_wasi::p2` and `wasi:http`'s `types` and
/// `outgoing-handler`. For components that import the rest of
/// `wasi:cli/command` too, use `weft_wasi::p2::add_to_linker_async` and
/// [`add_only_http_to_linker_async`] instead.
pub fn add_to_linker_async<T: WasiHttpView + WasiView + 'static>(linker: &mut Linker<T>) -> anyhow::Result<()> {
    add_to_linker_sync(linker)
}

/// [`add_to_linker_async`] for components instantiated and called with
/// the synchronous API.
pub fn add_to_linker_sync<T: WasiHttpView + WasiView + 'static>(linker: &mut Linker<T>) -> anyhow::Result<()> {
    use weft_wasi::p2::bindings::wasi::*;
    let get: fn(&mut T) -> WasiCtxView<'_> = wasi_getter::<T>;
    io::error::add_to_linker::<T, HasWasi>(linker, get)?;
    io::poll::add_to_linker::<T, HasWasi>(linker, get)?;
    io::streams::add_to_linker::<T, HasWasi>(linker, get)?;
    clocks::wall_clock::add_to_linker::<T, HasWasi>(linker, get)?;
    clocks::monotonic_clock::add_to_linker::<T, HasWasi>(linker, get)?;
    random::random::add_to_linker::<T, HasWasi>(linker, get)?;
    cli::stdin::add_to_linker::<T, HasWasi>(linker, get)?;
    cli::stdout::add_to_linker::<T, HasWasi>(linker, get)?;
    cli::stderr::add_to_linker::<T, HasWasi>(linker, get)?;
    add_only_http_to_linker_sync(linker)
}

/// Adds only `wasi:http/types` and `wasi:http/outgoing-handler` to
/// `linker` (the rest comes from `weft_wasi::p2::add_to_linker_async`).
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

//! The context, the view and the hooks of `wasi:http`.

use crate::error::{Error, Result};
use crate::RequestOptions;
use bytes::Bytes;
use http::header::HeaderName;
use http::uri::Scheme;
use std::future::Future;
use weft::component::{HasData, ResourceTable};

/// The headers no guest may set, and that are taken off incoming
/// requests before the guest sees them: they belong to the connection,
/// not to the message.
pub const DEFAULT_FORBIDDEN_HEADERS: [HeaderName; 9] = [
    http::header::CONNECTION,
    HeaderName::from_static("keep-alive"),
    http::header::PROXY_AUTHENTICATE,
    http::header::PROXY_AUTHORIZATION,
    HeaderName::from_static("proxy-connection"),
    http::header::TRANSFER_ENCODING,
    http::header::UPGRADE,
    http::header::HOST,
    HeaderName::from_static("http2-settings"),
];

/// The default of [`WasiHttpHooks::p3_outgoing_body_chunk_size`]
/// (`p3::DEFAULT_OUTGOING_BODY_CHUNK_SIZE`, defined here, below its
/// users): 1 MiB.
#[cfg(feature = "p3")]
pub(crate) const P3_DEFAULT_OUTGOING_BODY_CHUNK_SIZE: usize = 1024 * 1024;

/// The default of [`WasiHttpHooks::p2_outgoing_body_buffer_chunks`]
/// (`p2::DEFAULT_OUTGOING_BODY_BUFFER_CHUNKS`, defined here, below its
/// users): 1.
pub(crate) const P2_DEFAULT_OUTGOING_BODY_BUFFER_CHUNKS: usize = 1;

/// The default of [`WasiHttpHooks::p2_outgoing_body_chunk_size`]
/// (`p2::DEFAULT_OUTGOING_BODY_CHUNK_SIZE`): 1 MiB.
pub(crate) const P2_DEFAULT_OUTGOING_BODY_CHUNK_SIZE: usize = 1024 * 1024;

/// The body of every request and response that crosses between the guest
/// and the host (Wasmtime's `WasiBody`).
pub type WasiBody = http_body_util::combinators::UnsyncBoxBody<Bytes, Error>;

/// The `wasi:http` state of one store (Wasmtime's `WasiHttpCtx`).
#[derive(Debug, Clone)]
pub struct WasiHttpCtx {
    pub(crate) field_size_limit: usize,
}

/// The default limit of the size of a `fields` resource the guest makes:
/// 128 KiB.
pub(crate) const DEFAULT_FIELD_SIZE_LIMIT: usize = 128 * 1024;

impl WasiHttpCtx {
    /// A context with the default limits (a `fields` resource holds at most
    /// 128 KiB of names and values).
    pub fn new() -> WasiHttpCtx {
        WasiHttpCtx {
            field_size_limit: DEFAULT_FIELD_SIZE_LIMIT,
        }
    }

    /// Sets the most bytes of names and values a `fields` resource the
    /// guest builds may hold.
    pub fn set_field_size_limit(&mut self, limit: usize) {
        self.field_size_limit = limit;
    }
}

impl Default for WasiHttpCtx {
    fn default() -> WasiHttpCtx {
        WasiHttpCtx::new()
    }
}

/// What the embedder decides about the guest's HTTP traffic (Wasmtime's
/// `WasiHttpHooks`). Every method has a default (`send_request` only with
/// feature `default-send-request`, on by default).
pub trait WasiHttpHooks: Send {
    /// Whether the guest may not set header `name` (nor see it on an
    /// incoming request). Default: [`DEFAULT_FORBIDDEN_HEADERS`].
    fn is_forbidden_header(&mut self, name: &HeaderName) -> bool {
        DEFAULT_FORBIDDEN_HEADERS.contains(name)
    }

    /// Whether the guest's outgoing requests may use `scheme`. Default:
    /// `http` and `https`. A request with another scheme fails with
    /// `error-code.HTTP-protocol-error` before it reaches
    /// [`WasiHttpHooks::send_request`].
    fn is_supported_scheme(&mut self, scheme: &Scheme) -> bool {
        *scheme == Scheme::HTTP || *scheme == Scheme::HTTPS
    }

    /// Whether the `host` header of an outgoing request is set from its
    /// authority (replacing any the guest set) before it goes to
    /// [`WasiHttpHooks::send_request`]. Default: `true`.
    fn set_host_header(&mut self) -> bool {
        true
    }

    /// The scheme of an outgoing request whose guest set none, and of an
    /// incoming `wasi:http` 0.3 request whose URI has none
    /// (`p3::Request::from_http`, feature `p3`). Default: `https`. `None`: an
    /// outgoing request without a scheme fails with
    /// `error-code.HTTP-protocol-error` (an incoming one stays without).
    fn default_scheme(&mut self) -> Option<Scheme> {
        Some(Scheme::HTTPS)
    }

    /// The largest chunk in which a guest's `wasi:http` 0.3 body (of a
    /// request it sends or a response it returns) is handed to hyper.
    /// Default: [`crate::p3::DEFAULT_OUTGOING_BODY_CHUNK_SIZE`] (1 MiB).
    /// Values below 1 count as 1.
    #[cfg(feature = "p3")]
    fn p3_outgoing_body_chunk_size(&mut self) -> usize {
        P3_DEFAULT_OUTGOING_BODY_CHUNK_SIZE
    }

    /// Sends an outgoing request of the guest (0.2
    /// `wasi:http/outgoing-handler.handle` and 0.3 `wasi:http/client.send`)
    /// and returns the response and a future of the request's transmission
    /// (its `Err` is reported to the guest: in 0.3 on the future
    /// `request.new` returned). `fut` ends with the guest's processing of
    /// the response (0.3 `response.consume-body`; 0.2 has none and gives a
    /// future that is ready at once).
    ///
    /// The default (feature `default-send-request`, on by default, as in
    /// Wasmtime 48) sends it with [`crate::default_send_request`]: HTTP/1,
    /// over TLS for `https`, which
    /// needs a tokio runtime (the 0.2 host runs the future on the runtime
    /// of the calling thread, if any; without one the request fails with
    /// an internal error). An embedder that must not let the guest reach
    /// the network overrides this and refuses, for instance with
    /// [`refuse_request`]; `weft serve` does so unless `-S http-outgoing`
    /// is given.
    #[cfg(feature = "default-send-request")]
    #[allow(clippy::type_complexity, reason = "Wasmtime 48's signature, spelled out")]
    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        fut: Box<dyn Future<Output = Result<(), Error>> + Send>,
    ) -> Box<
        dyn Future<
                Output = Result<(
                    http::Response<WasiBody>,
                    Box<dyn Future<Output = Result<(), Error>> + Send>,
                )>,
            > + Send,
    > {
        drop(fut);
        Box::new(async move {
            use http_body_util::BodyExt;
            let (response, io) = crate::default_send_request(request, options).await?;
            let io: Box<dyn Future<Output = Result<(), Error>> + Send> = Box::new(io);
            Ok((response.map(BodyExt::boxed_unsync), io))
        })
    }

    /// Sends an outgoing request of the guest: see the method of the same
    /// name with feature `default-send-request`; without that feature
    /// every embedder says how (or refuses, with [`refuse_request`]).
    #[cfg(not(feature = "default-send-request"))]
    #[allow(clippy::type_complexity, reason = "Wasmtime 48's signature, spelled out")]
    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        fut: Box<dyn Future<Output = Result<(), Error>> + Send>,
    ) -> Box<
        dyn Future<
                Output = Result<(
                    http::Response<WasiBody>,
                    Box<dyn Future<Output = Result<(), Error>> + Send>,
                )>,
            > + Send,
    >;

    /// How many writes to a 0.2 outgoing body's output stream are buffered
    /// before `check-write` reports no room (default
    /// [`crate::p2::DEFAULT_OUTGOING_BODY_BUFFER_CHUNKS`], 1; values below
    /// 1 count as 1).
    fn p2_outgoing_body_buffer_chunks(&mut self) -> usize {
        P2_DEFAULT_OUTGOING_BODY_BUFFER_CHUNKS
    }

    /// The most bytes one write to a 0.2 outgoing body's output stream
    /// may carry (`check-write` offers this much; default
    /// [`crate::p2::DEFAULT_OUTGOING_BODY_CHUNK_SIZE`], 1 MiB; values below
    /// 1 count as 1).
    fn p2_outgoing_body_chunk_size(&mut self) -> usize {
        P2_DEFAULT_OUTGOING_BODY_CHUNK_SIZE
    }

    /// The 0.2 `error-code` the guest sees for a hyper error. Default: the
    /// code the error stands for (a `wasi:http` error carried inside it,
    /// `connection-terminated` for a connection closed early,
    /// `HTTP-response-timeout`, `HTTP-protocol-error` for a parse error,
    /// else `internal-error` with hyper's message; Wasmtime 48 answers
    /// `HTTP-protocol-error` for all but the first).
    fn p2_error_from_hyper(&mut self, err: &hyper::Error) -> crate::p2::ErrorCode {
        crate::p2::error::hyper_error_code(err)
    }

    /// The 0.2 `error-code` of a failed connection (default
    /// `connection-refused`).
    fn p2_error_from_connect(&mut self, err: &std::io::Error) -> crate::p2::ErrorCode {
        let _ = err;
        crate::p2::ErrorCode::ConnectionRefused
    }

    /// The 0.2 `error-code` of a failed TLS handshake (default
    /// `TLS-protocol-error`).
    fn p2_error_from_tls(&mut self, err: &std::io::Error) -> crate::p2::ErrorCode {
        let _ = err;
        crate::p2::ErrorCode::TlsProtocolError
    }

    /// The 0.2 `error-code` of an invalid DNS name (default `DNS-error`
    /// with rcode "invalid dns name").
    #[cfg(feature = "default-send-request")]
    fn p2_error_from_dns(&mut self, err: &rustls_pki_types::InvalidDnsNameError) -> crate::p2::ErrorCode {
        let _ = err;
        crate::p2::error::invalid_dns_name()
    }

    /// [`WasiHttpHooks::p2_error_from_hyper`] for 0.3.
    #[cfg(feature = "p3")]
    fn p3_error_from_hyper(&mut self, err: &hyper::Error) -> crate::p3::ErrorCode {
        crate::p3::from_p2(crate::p2::error::hyper_error_code(err))
    }

    /// [`WasiHttpHooks::p2_error_from_connect`] for 0.3.
    #[cfg(feature = "p3")]
    fn p3_error_from_connect(&mut self, err: &std::io::Error) -> crate::p3::ErrorCode {
        let _ = err;
        crate::p3::ErrorCode::ConnectionRefused
    }

    /// [`WasiHttpHooks::p2_error_from_tls`] for 0.3.
    #[cfg(feature = "p3")]
    fn p3_error_from_tls(&mut self, err: &std::io::Error) -> crate::p3::ErrorCode {
        let _ = err;
        crate::p3::ErrorCode::TlsProtocolError
    }

    /// [`WasiHttpHooks::p2_error_from_dns`] for 0.3.
    #[cfg(all(feature = "p3", feature = "default-send-request"))]
    fn p3_error_from_dns(&mut self, err: &rustls_pki_types::InvalidDnsNameError) -> crate::p3::ErrorCode {
        let _ = err;
        crate::p3::from_p2(crate::p2::error::invalid_dns_name())
    }
}

/// A `send_request` that refuses every request with
/// `HTTP-request-denied`: for [`WasiHttpHooks::send_request`] of an
/// embedder that keeps its guests off the network.
#[allow(clippy::type_complexity, reason = "the signature of `WasiHttpHooks::send_request`")]
pub fn refuse_request(
    request: http::Request<WasiBody>,
    options: Option<RequestOptions>,
    fut: Box<dyn Future<Output = Result<(), Error>> + Send>,
) -> Box<
    dyn Future<
            Output = Result<(
                http::Response<WasiBody>,
                Box<dyn Future<Output = Result<(), Error>> + Send>,
            )>,
        > + Send,
> {
    drop((request, options, fut));
    Box::new(std::future::ready(Err(Error::HttpRequestDenied)))
}

/// The hooks that keep every default.
#[cfg(feature = "default-send-request")]
struct DefaultHooks;

#[cfg(feature = "default-send-request")]
impl WasiHttpHooks for DefaultHooks {}

/// The default hooks (see [`WasiHttpHooks`]): outgoing requests are sent
/// with [`crate::default_send_request`], as in Wasmtime 48.
#[cfg(feature = "default-send-request")]
pub fn default_hooks() -> &'static mut dyn WasiHttpHooks {
    // A box of a zero-sized type allocates nothing: leaking it costs
    // nothing however often this is called.
    Box::leak(Box::new(DefaultHooks))
}

#[cfg(feature = "default-send-request")]
impl Default for &mut dyn WasiHttpHooks {
    fn default() -> Self {
        default_hooks()
    }
}

// The guest's error codes of an `Error`: here, with the hooks they ask
// (the conversions without hooks are in `p2::error` and `p3::errors`,
// below this file).

/// The `error-code` of `err`, with the hooks' say for the host libraries'
/// errors (`p2_error_from_hyper` and the others).
pub(crate) fn p2_error_code(hooks: &mut dyn WasiHttpHooks, err: &Error) -> crate::p2::ErrorCode {
    match err {
        Error::Hyper(e) => hooks.p2_error_from_hyper(e),
        Error::Connect(e) => hooks.p2_error_from_connect(e),
        Error::Tls(e) => hooks.p2_error_from_tls(e),
        #[cfg(feature = "default-send-request")]
        Error::InvalidDnsNameError(e) => hooks.p2_error_from_dns(e),
        other => crate::p2::error::plain_code(other.clone_lossy()),
    }
}

/// The 0.3 `error-code` of `err`, with the hooks' say for the host
/// libraries' errors (`p3_error_from_hyper` and the others).
#[cfg(feature = "p3")]
pub(crate) fn p3_error_code(hooks: &mut dyn WasiHttpHooks, err: &Error) -> crate::p3::ErrorCode {
    match err {
        Error::Hyper(e) => hooks.p3_error_from_hyper(e),
        Error::Connect(e) => hooks.p3_error_from_connect(e),
        Error::Tls(e) => hooks.p3_error_from_tls(e),
        #[cfg(feature = "default-send-request")]
        Error::InvalidDnsNameError(e) => hooks.p3_error_from_dns(e),
        other => crate::p3::errors::plain_code(other.clone_lossy()),
    }
}

/// What the `wasi:http` host functions reach in the store's data: the
/// context, the resource table (shared with `weft_wasi::p2`: body streams
/// are its `wasi:io` streams) and the hooks (Wasmtime's
/// `WasiHttpCtxView`).
pub struct WasiHttpCtxView<'a> {
    /// The `wasi:http` context.
    pub ctx: &'a mut WasiHttpCtx,
    /// The table of the guest's resources.
    pub table: &'a mut ResourceTable,
    /// The embedder's decisions (use `Default::default()` for the
    /// defaults).
    pub hooks: &'a mut dyn WasiHttpHooks,
}

impl std::fmt::Debug for WasiHttpCtxView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasiHttpCtxView")
            .field("ctx", &self.ctx)
            .finish_non_exhaustive()
    }
}

/// Implemented by a store's data to lend `wasi:http` its context, table
/// and hooks (Wasmtime's `WasiHttpView`).
pub trait WasiHttpView: Send {
    /// The context, the resource table and the hooks.
    fn http(&mut self) -> WasiHttpCtxView<'_>;
}

impl<T: WasiHttpView + ?Sized> WasiHttpView for &mut T {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        T::http(self)
    }
}

impl<T: WasiHttpView + ?Sized> WasiHttpView for Box<T> {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        T::http(self)
    }
}

/// [`HasData`] for the `wasi:http` host functions: they see a
/// [`WasiHttpCtxView`].
pub struct WasiHttp;

impl HasData for WasiHttp {
    type Data<'a> = WasiHttpCtxView<'a>;
}

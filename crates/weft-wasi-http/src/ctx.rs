//! The context, the view and the hooks of `wasi:http`.

use crate::p2::bindings::http::types::ErrorCode;
use crate::p2::body::{HyperOutgoingBody, DEFAULT_OUTGOING_BODY_BUFFER_SIZE};
use crate::p2::error::HttpResult;
use crate::p2::future::HostFutureIncomingResponse;
use crate::RequestOptions;
use http::header::HeaderName;
use http::uri::Scheme;
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
/// `WasiHttpHooks`). Every method has a default.
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
    /// ([`crate::p3::Request::from_http`]). Default: `https`. `None`: an
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

    /// Sends an outgoing request of the guest
    /// (`wasi:http/outgoing-handler.handle`). The default refuses it with
    /// `error-code.HTTP-request-denied`: an embedder that lets the guest
    /// reach the network overrides this, for instance with
    /// [`crate::default_send_request`] spawned on its tokio runtime and
    /// wrapped in [`HostFutureIncomingResponse::pending`].
    fn send_request(
        &mut self,
        request: http::Request<HyperOutgoingBody>,
        options: Option<RequestOptions>,
    ) -> HttpResult<HostFutureIncomingResponse> {
        let _ = (request, options);
        Err(ErrorCode::HttpRequestDenied.into())
    }

    /// How many bytes a guest may have written to an outgoing body that
    /// the other side has not taken yet (default 1 MiB); past this, the
    /// body's output stream reports no room to write.
    fn p2_outgoing_body_buffer_size(&mut self) -> usize {
        DEFAULT_OUTGOING_BODY_BUFFER_SIZE
    }
}

/// The hooks that keep every default: outgoing requests are refused.
struct DefaultHooks;

impl WasiHttpHooks for DefaultHooks {}

/// The default hooks (see [`WasiHttpHooks`]): outgoing requests are
/// refused.
pub fn default_hooks() -> &'static mut dyn WasiHttpHooks {
    // A box of a zero-sized type allocates nothing: leaking it costs
    // nothing however often this is called.
    Box::leak(Box::new(DefaultHooks))
}

impl Default for &mut dyn WasiHttpHooks {
    fn default() -> Self {
        default_hooks()
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

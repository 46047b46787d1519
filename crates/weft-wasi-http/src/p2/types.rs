//! The host values of the `wasi:http/types` resources, and how the host
//! makes the ones it hands to the guest.

use super::bindings::http::types::{ErrorCode, Method, Scheme};
use super::body::{poll_once, HostIncomingBody, HyperIncomingBody, HyperOutgoingBody};
use crate::{FieldMap, WasiHttpCtxView};
use bytes::Bytes;
use http_body::Body;
use http_body_util::BodyExt;
use std::future::Future;
use std::pin::Pin;
use std::task::Poll;
use weft::component::Resource;

/// The host value of `wasi:http/types.incoming-request`.
pub struct HostIncomingRequest {
    pub(crate) method: http::Method,
    pub(crate) uri: http::Uri,
    pub(crate) scheme: Scheme,
    pub(crate) authority: String,
    pub(crate) headers: FieldMap,
    /// The body, until the guest consumes it.
    pub body: Option<HostIncomingBody>,
}

/// What answers the guest's response: the host's side of
/// `wasi:http/types.response-outparam`.
pub struct HostResponseOutparam {
    /// Called once, with the guest's response or error.
    pub send: Box<dyn FnOnce(Result<hyper::Response<HyperOutgoingBody>, ErrorCode>) + Send + Sync>,
}

/// The host value of `wasi:http/types.outgoing-response`.
pub struct HostOutgoingResponse {
    /// The status code.
    pub status: http::StatusCode,
    /// The headers.
    pub headers: FieldMap,
    /// hyper's side of the body, once the guest asked for the body.
    pub body: Option<HyperOutgoingBody>,
}

impl TryFrom<HostOutgoingResponse> for hyper::Response<HyperOutgoingBody> {
    type Error = http::Error;

    fn try_from(resp: HostOutgoingResponse) -> Result<Self, http::Error> {
        let mut builder = hyper::Response::builder().status(resp.status);
        if let Some(h) = builder.headers_mut() {
            *h = resp.headers.into();
        }
        let body = resp.body.unwrap_or_else(empty_body);
        builder.body(body)
    }
}

/// An empty body.
pub(crate) fn empty_body() -> HyperOutgoingBody {
    http_body_util::Empty::<Bytes>::new()
        .map_err(|never| match never {})
        .boxed_unsync()
}

/// The host value of `wasi:http/types.outgoing-request`.
pub struct HostOutgoingRequest {
    /// The method.
    pub method: Method,
    /// The scheme, if set.
    pub scheme: Option<Scheme>,
    /// The authority, if set.
    pub authority: Option<String>,
    /// The path and query, if set.
    pub path_with_query: Option<String>,
    /// The headers.
    pub headers: FieldMap,
    /// hyper's side of the body, once the guest asked for the body.
    pub body: Option<HyperOutgoingBody>,
}

/// The host value of `wasi:http/types.incoming-response`.
pub struct HostIncomingResponse {
    /// The status code.
    pub status: u16,
    /// The headers.
    pub headers: FieldMap,
    /// The body, until the guest consumes it.
    pub body: Option<HostIncomingBody>,
}

/// The response an outgoing request will get.
pub type FutureIncomingResponseHandle =
    Pin<Box<dyn Future<Output = Result<http::Response<HyperIncomingBody>, ErrorCode>> + Send>>;

/// The host value of `wasi:http/types.future-incoming-response`.
pub enum HostFutureIncomingResponse {
    /// The response has not come yet.
    Pending(FutureIncomingResponseHandle),
    /// The response (or the request's error) is there.
    Ready(Result<http::Response<HyperIncomingBody>, ErrorCode>),
    /// The guest took it.
    Consumed,
}

impl HostFutureIncomingResponse {
    /// A response that comes when `fut` ends. `fut` is polled from the
    /// guest's thread without a tokio context: anything that needs the
    /// runtime (a hyper connection) must be spawned on it, with `fut`
    /// awaiting the task's join handle.
    pub fn pending(
        fut: impl Future<Output = Result<http::Response<HyperIncomingBody>, ErrorCode>> + Send + 'static,
    ) -> HostFutureIncomingResponse {
        HostFutureIncomingResponse::Pending(Box::pin(fut))
    }

    /// A response that is there already.
    pub fn ready(result: Result<http::Response<HyperIncomingBody>, ErrorCode>) -> HostFutureIncomingResponse {
        HostFutureIncomingResponse::Ready(result)
    }

    /// Whether the response (or its error) has come.
    pub fn is_ready(&mut self) -> bool {
        if let HostFutureIncomingResponse::Pending(fut) = self {
            match poll_once(fut) {
                Poll::Ready(r) => *self = HostFutureIncomingResponse::Ready(r),
                Poll::Pending => return false,
            }
        }
        true
    }
}

impl weft_wasi::p2::Pollable for HostFutureIncomingResponse {
    fn readiness(&mut self) -> weft_wasi::p2::Readiness {
        if self.is_ready() {
            weft_wasi::p2::Readiness::Ready
        } else {
            weft_wasi::p2::Readiness::Later
        }
    }
}

/// Turns any body into an incoming body, its errors into error codes.
pub(crate) fn incoming_body<B>(body: B) -> HyperIncomingBody
where
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    body.map_err(|e| {
        let e: Box<dyn std::error::Error + Send + Sync> = e.into();
        if let Some(code) = e.downcast_ref::<ErrorCode>() {
            return code.clone();
        }
        match e.downcast::<hyper::Error>() {
            Ok(h) => super::hyper_response_error(*h),
            Err(e) => ErrorCode::InternalError(Some(e.to_string())),
        }
    })
    .boxed_unsync()
}

impl WasiHttpCtxView<'_> {
    /// Puts `req` (received with `scheme`) in the table as an
    /// `incoming-request` for the guest. Its authority is the URI's, or
    /// else the `host` header's; the headers the hooks forbid are taken
    /// off.
    pub fn new_incoming_request<B>(
        &mut self,
        scheme: Scheme,
        req: hyper::Request<B>,
    ) -> anyhow::Result<Resource<HostIncomingRequest>>
    where
        B: Body<Data = Bytes> + Send + 'static,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let (parts, body) = req.into_parts();
        let authority = match parts.uri.authority() {
            Some(a) => a.to_string(),
            None => match parts.headers.get(http::header::HOST).and_then(|h| h.to_str().ok()) {
                Some(h) => h.to_string(),
                None => anyhow::bail!("invalid HTTP request missing authority in URI and host header"),
            },
        };
        let headers = FieldMap::new_immutable(self.hooks, parts.headers);
        let request = HostIncomingRequest {
            method: parts.method,
            uri: parts.uri,
            scheme,
            authority,
            headers,
            body: Some(HostIncomingBody::new(incoming_body(body))),
        };
        Ok(self.table.push(request)?)
    }

    /// Puts a `response-outparam` in the table whose response (or error)
    /// is sent on `result`. A receiver that has gone is no error.
    pub fn new_response_outparam(
        &mut self,
        result: tokio::sync::oneshot::Sender<Result<hyper::Response<HyperOutgoingBody>, ErrorCode>>,
    ) -> anyhow::Result<Resource<HostResponseOutparam>> {
        self.new_response_outparam_from_callback(move |r| {
            let _ = result.send(r);
        })
    }

    /// Puts a `response-outparam` in the table whose response (or error)
    /// is given to `callback`.
    pub fn new_response_outparam_from_callback(
        &mut self,
        callback: impl FnOnce(Result<hyper::Response<HyperOutgoingBody>, ErrorCode>) + Send + Sync + 'static,
    ) -> anyhow::Result<Resource<HostResponseOutparam>> {
        Ok(self.table.push(HostResponseOutparam {
            send: Box::new(callback),
        })?)
    }
}

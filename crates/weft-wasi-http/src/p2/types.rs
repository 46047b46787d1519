//! The host values of the `wasi:http/types` resources, and how the host
//! makes the ones it hands to the guest.

use super::bindings::http::types::{ErrorCode, Method, Scheme};
use super::body::{HostIncomingBody, HyperIncomingBody, HyperOutgoingBody};
pub use super::future::{FutureIncomingResponseHandle, HostFutureIncomingResponse};
use crate::Error;
use crate::FieldMap;
use bytes::Bytes;
use http_body::Body;
use http_body_util::BodyExt;

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

/// Turns any body into an incoming body, its errors into [`Error`]s.
pub(crate) fn incoming_body<B>(body: B) -> HyperIncomingBody
where
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Error>,
{
    body.map_err(Into::into).boxed_unsync()
}

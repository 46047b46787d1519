//! [`Request`] and [`Response`]: the host values of `wasi:http/types`'s
//! `request` and `response` resources, and their conversions from and to
//! `http::Request` and `http::Response`.

use super::bindings::http::types::ErrorCode;
use super::body::{
    guest_to_http, host_to_guest, result_receiver, to_http_body, BodyKind, ExpectedLength, Getter, HttpBody,
    ResultFuture, TrailersResult,
};
use super::errors::{plain_code, HttpError, HttpResult};
use crate::{Error, FieldMap, RequestOptions, WasiBody, WasiHttpCtxView, WasiHttpHooks, WasiHttpView};
use bytes::Bytes;
use http::uri::{Authority, PathAndQuery, Scheme};
use http::{Method, StatusCode};
use http_body_util::BodyExt;
use std::future::Future;
use std::sync::Arc;
use weft::component::{FutureReader, StreamReader};
use weft::AsContextMut;

/// The result of a conversion of a message to its `http` form: an
/// `error-code` for the guest inside, a trap outside.
pub(crate) type ConvResult<T> = weft::Result<Result<T, ErrorCode>>;

/// A [`ConvResult`] as a trappable [`HttpResult`].
fn trappable<T>(r: ConvResult<T>) -> HttpResult<T> {
    match r {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(code)) => Err(code.into()),
        Err(trap) => Err(HttpError::trap(trap)),
    }
}

fn getter_of<T: WasiHttpView>(t: &mut T) -> WasiHttpCtxView<'_> {
    t.http()
}

/// A `wasi:http` 0.3 request (the host value of `request`).
pub struct Request {
    /// The method.
    pub method: Method,
    /// The scheme, if any.
    pub scheme: Option<Scheme>,
    /// The authority, if any.
    pub authority: Option<Authority>,
    /// The path and query, if any.
    pub path_with_query: Option<PathAndQuery>,
    /// The headers.
    pub headers: FieldMap,
    /// The options for sending it, if any.
    pub options: Option<Arc<RequestOptions>>,
    pub(crate) body: BodyKind,
}

impl std::fmt::Debug for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Request")
            .field("method", &self.method)
            .field("scheme", &self.scheme)
            .field("authority", &self.authority)
            .field("path_with_query", &self.path_with_query)
            .field("headers", &self.headers)
            .finish_non_exhaustive()
    }
}

/// A `wasi:http` 0.3 response (the host value of `response`).
pub struct Response {
    /// The status code.
    pub status: StatusCode,
    /// The headers.
    pub headers: FieldMap,
    pub(crate) body: BodyKind,
}

impl std::fmt::Debug for Response {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Response")
            .field("status", &self.status)
            .field("headers", &self.headers)
            .finish_non_exhaustive()
    }
}

/// A host body and the future of the guest's report on it.
fn host_body(body: HttpBody) -> (BodyKind, impl Future<Output = Result<(), Error>> + Send + 'static) {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let fut = result_receiver(rx);
    (BodyKind::Host { body, result: tx }, async move {
        fut.await.map_err(Error::from)
    })
}

/// A guest's report future in 0.3 `error-code`s.
async fn report_future(fut: impl Future<Output = Result<(), Error>> + Send + 'static) -> Result<(), ErrorCode> {
    fut.await.map_err(plain_code)
}

/// A body for hyper, its errors as [`Error`]s.
fn wasi_body(body: HttpBody) -> WasiBody {
    body.map_err(Error::from).boxed_unsync()
}

/// The body of `kind` for hyper, and the future that reports its
/// transmission: `report` when given, else the body's own (`Ok` once it
/// was read to its end). The guest learns the result through the future
/// `new` gave it.
fn body_to_http<T: 'static>(
    kind: BodyKind,
    mut store: impl AsContextMut<Data = T>,
    getter: Getter<T>,
    report: Option<ResultFuture>,
    length: ExpectedLength,
) -> weft::Result<HttpBody> {
    match kind {
        BodyKind::Guest {
            contents,
            trailers,
            result,
        } => {
            let (body, own_report) = guest_to_http(&mut store, getter, contents, trailers, length)?;
            let _ = result.send(report.unwrap_or(own_report));
            Ok(body)
        }
        BodyKind::Host { body, result } => {
            if let Some(report) = report {
                let _ = result.send(report);
            }
            Ok(body)
        }
    }
}

/// The stream and trailers future `consume-body` gives the guest for the
/// body `kind`; `res` is the guest's report on its handling of it.
pub(crate) fn consume_body<T: 'static>(
    kind: BodyKind,
    mut store: impl AsContextMut<Data = T>,
    getter: Getter<T>,
    res: FutureReader<Result<(), ErrorCode>>,
) -> weft::Result<(StreamReader<u8>, FutureReader<TrailersResult>)> {
    let report = super::body::guest_result(&mut store, res)?;
    match kind {
        BodyKind::Guest {
            contents,
            trailers,
            result,
        } => {
            let _ = result.send(report);
            let contents = match contents {
                Some(c) => c,
                None => StreamReader::new(&mut store, Vec::<u8>::new())?,
            };
            Ok((contents, trailers))
        }
        BodyKind::Host { body, result } => {
            let _ = result.send(report);
            host_to_guest(&mut store, getter, body)
        }
    }
}

impl Request {
    /// A request with `body`. The future resolves to the guest's report
    /// on its handling of the body (the `res` future it passes to
    /// `consume-body`; `Ok` if it never consumes the body).
    #[allow(
        clippy::too_many_arguments,
        reason = "the fields of a request, as Wasmtime's `Request::new`"
    )]
    pub fn new<B>(
        method: Method,
        scheme: Option<Scheme>,
        authority: Option<Authority>,
        path_with_query: Option<PathAndQuery>,
        headers: impl Into<FieldMap>,
        options: Option<Arc<RequestOptions>>,
        body: B,
    ) -> (Self, impl Future<Output = Result<(), Error>> + Send + 'static)
    where
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<Error>,
    {
        let (body, fut) = host_body(to_http_body(body, body_error));
        let req = Request {
            method,
            scheme,
            authority,
            path_with_query,
            headers: headers.into(),
            options,
            body,
        };
        (req, fut)
    }

    /// The request of an `http::Request` (as received by a server):
    /// its scheme (the hooks' [`WasiHttpHooks::default_scheme`] when the
    /// URI has none), authority and path from the URI (the authority from
    /// the `host` header when the URI has none), its headers without the
    /// ones `hooks` forbid, immutable. Body errors that are
    /// `hyper::Error`s become their `error-code`s.
    pub fn from_http<B>(
        hooks: &mut dyn WasiHttpHooks,
        req: http::Request<B>,
    ) -> (Self, impl Future<Output = Result<(), Error>> + Send + 'static)
    where
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<Error>,
    {
        let (parts, body) = req.into_parts();
        let authority = parts.uri.authority().cloned().or_else(|| {
            parts
                .headers
                .get(http::header::HOST)
                .and_then(|h| h.to_str().ok())
                .and_then(|h| h.parse().ok())
        });
        let headers = FieldMap::new_immutable(hooks, parts.headers);
        let (body, fut) = host_body(to_http_body(body, body_error));
        let req = Request {
            method: parts.method,
            scheme: parts.uri.scheme().cloned().or_else(|| hooks.default_scheme()),
            authority,
            path_with_query: parts.uri.path_and_query().cloned(),
            headers,
            options: None,
            body,
        };
        (req, fut)
    }

    /// The `http::Request` of this request, with a body for hyper and the
    /// request's options. A guest body is read on the store's event loop
    /// (the store must be in `run_concurrent` while the body is read);
    /// `fut` reports its transmission to the guest. Fails with
    /// `HTTP-request-method-invalid` or `HTTP-request-URI-invalid` when
    /// the parts make no valid request (the [`HttpError`] downcasts to the
    /// `error-code`; any other error is a trap).
    pub fn into_http<T: WasiHttpView + 'static>(
        self,
        store: impl AsContextMut<Data = T>,
        fut: impl Future<Output = Result<(), Error>> + Send + 'static,
    ) -> HttpResult<(http::Request<WasiBody>, Option<Arc<RequestOptions>>)> {
        self.into_http_with_getter(store, fut, getter_of::<T>)
    }

    /// [`Request::into_http`] with the getter of the `wasi:http` view.
    pub fn into_http_with_getter<T: 'static>(
        self,
        store: impl AsContextMut<Data = T>,
        fut: impl Future<Output = Result<(), Error>> + Send + 'static,
        getter: fn(&mut T) -> WasiHttpCtxView<'_>,
    ) -> HttpResult<(http::Request<WasiBody>, Option<Arc<RequestOptions>>)> {
        let (req, options) = trappable(self.convert_to_http(store, getter, Some(Box::pin(report_future(fut)))))?;
        Ok((req.map(wasi_body), options))
    }

    /// [`Request::into_http`] where the guest learns the transmission's
    /// result from the body itself: `Ok` once hyper read it to its end,
    /// `connection-terminated` if it dropped it before.
    pub(crate) fn convert_to_http<T: 'static>(
        self,
        mut store: impl AsContextMut<Data = T>,
        getter: Getter<T>,
        report: Option<ResultFuture>,
    ) -> ConvResult<(http::Request<HttpBody>, Option<Arc<RequestOptions>>)> {
        let mut uri = http::Uri::builder();
        if let Some(scheme) = self.scheme {
            uri = uri.scheme(scheme);
        }
        if let Some(authority) = self.authority {
            uri = uri.authority(authority);
        }
        uri = uri.path_and_query(self.path_with_query.unwrap_or_else(|| PathAndQuery::from_static("/")));
        let uri = match uri.build() {
            Ok(u) => u,
            Err(_) => return Ok(Err(ErrorCode::HttpRequestUriInvalid)),
        };
        let length = self
            .headers
            .content_length()
            .map(|n| (n, ErrorCode::HttpRequestBodySize as fn(_) -> _));
        let body = body_to_http(self.body, &mut store, getter, report, length)?;
        let mut req = http::Request::new(body);
        *req.method_mut() = self.method;
        *req.uri_mut() = uri;
        *req.headers_mut() = self.headers.into();
        Ok(Ok((req, self.options)))
    }
}

/// The `error-code` of a body error.
fn body_error<E: Into<Error>>(e: E) -> ErrorCode {
    plain_code(e.into())
}

impl Response {
    /// A response with `body`. The future resolves to the guest's report
    /// on its handling of the body.
    pub fn new<B>(
        status: StatusCode,
        headers: impl Into<FieldMap>,
        body: B,
    ) -> (Self, impl Future<Output = Result<(), Error>> + Send + 'static)
    where
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<Error>,
    {
        let (body, fut) = host_body(to_http_body(body, body_error));
        (
            Response {
                status,
                headers: headers.into(),
                body,
            },
            fut,
        )
    }

    /// The response of an `http::Response` (as a client received it): its
    /// headers without the ones `hooks` forbid, immutable.
    pub fn from_http<B>(
        hooks: &mut dyn WasiHttpHooks,
        res: http::Response<B>,
    ) -> (Self, impl Future<Output = Result<(), Error>> + Send + 'static)
    where
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<Error>,
    {
        let (parts, body) = res.into_parts();
        let headers = FieldMap::new_immutable(hooks, parts.headers);
        let (body, fut) = host_body(to_http_body(body, body_error));
        (
            Response {
                status: parts.status,
                headers,
                body,
            },
            fut,
        )
    }

    /// The `http::Response` of this response, with a body for hyper. A
    /// guest body is read on the store's event loop (the store must be in
    /// `run_concurrent` while the body is read); `fut` reports its
    /// transmission to the guest.
    pub fn into_http<T: WasiHttpView + 'static>(
        self,
        store: impl AsContextMut<Data = T>,
        fut: impl Future<Output = Result<(), Error>> + Send + 'static,
    ) -> weft::Result<http::Response<WasiBody>> {
        self.into_http_with_getter(store, fut, getter_of::<T>)
    }

    /// [`Response::into_http`] with the getter of the `wasi:http` view.
    pub fn into_http_with_getter<T: 'static>(
        self,
        store: impl AsContextMut<Data = T>,
        fut: impl Future<Output = Result<(), Error>> + Send + 'static,
        getter: fn(&mut T) -> WasiHttpCtxView<'_>,
    ) -> weft::Result<http::Response<WasiBody>> {
        let res = self.convert_to_http(store, getter, Some(Box::pin(report_future(fut))))?;
        Ok(res.map(wasi_body))
    }

    /// [`Response::into_http`] where the guest learns the transmission's
    /// result from the body itself: `Ok` once hyper read it to its end
    /// (trailers included), `connection-terminated` if it dropped it
    /// before.
    pub fn into_http_reporting<T: WasiHttpView + 'static>(
        self,
        store: impl AsContextMut<Data = T>,
    ) -> weft::Result<http::Response<WasiBody>> {
        Ok(self.convert_to_http(store, getter_of::<T>, None)?.map(wasi_body))
    }

    pub(crate) fn convert_to_http<T: 'static>(
        self,
        mut store: impl AsContextMut<Data = T>,
        getter: Getter<T>,
        report: Option<ResultFuture>,
    ) -> weft::Result<http::Response<HttpBody>> {
        let length = self
            .headers
            .content_length()
            .map(|n| (n, ErrorCode::HttpResponseBodySize as fn(_) -> _));
        let body = body_to_http(self.body, &mut store, getter, report, length)?;
        let mut res = http::Response::new(body);
        *res.status_mut() = self.status;
        *res.headers_mut() = self.headers.into();
        Ok(res)
    }
}

#[cfg(feature = "default-send-request")]
impl<B> From<http::Request<B>> for Request
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Error>,
{
    /// [`Request::from_http`] with the default hooks (the guest's report
    /// on the body is dropped).
    fn from(req: http::Request<B>) -> Request {
        Request::from_http(crate::default_hooks(), req).0
    }
}

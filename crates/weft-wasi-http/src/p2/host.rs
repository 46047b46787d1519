//! The `wasi:http/types` and `wasi:http/outgoing-handler` host functions.

use super::bindings::http::outgoing_handler;
use super::bindings::http::types::{self, ErrorCode, Method, Scheme};
use super::body::{
    HostFutureTrailers, HostIncomingBody, HostOutgoingBody, HyperIncomingBody, HyperOutgoingBody, StreamContext,
};
use super::error::{http_request_error, HeaderError, HeaderResult, HttpError, HttpResult};
use super::types::incoming_body;
use super::types::{
    empty_body, HostFutureIncomingResponse, HostIncomingRequest, HostIncomingResponse, HostOutgoingRequest,
    HostOutgoingResponse, HostResponseOutparam,
};
use crate::ctx::p2_error_code as error_code;
use crate::{Error, FieldMap, RequestOptions, WasiHttpCtxView};
use bytes::Bytes;
use http::header::HeaderValue;
use http_body::Body;
use std::time::Duration;
use weft::component::Resource;
use weft_wasi::p2::{DynInputStream, DynOutputStream, DynPollable, IoError};

type Fields = FieldMap;

/// The WIT method of an `http::Method`.
fn method_to_wit(m: &http::Method) -> Method {
    match *m {
        http::Method::GET => Method::Get,
        http::Method::HEAD => Method::Head,
        http::Method::POST => Method::Post,
        http::Method::PUT => Method::Put,
        http::Method::DELETE => Method::Delete,
        http::Method::CONNECT => Method::Connect,
        http::Method::OPTIONS => Method::Options,
        http::Method::TRACE => Method::Trace,
        http::Method::PATCH => Method::Patch,
        _ => Method::Other(m.as_str().to_string()),
    }
}

/// The `http::Method` of a WIT method; `None` when `other` is no valid
/// method name.
fn method_from_wit(m: &Method) -> Option<http::Method> {
    Some(match m {
        Method::Get => http::Method::GET,
        Method::Head => http::Method::HEAD,
        Method::Post => http::Method::POST,
        Method::Put => http::Method::PUT,
        Method::Delete => http::Method::DELETE,
        Method::Connect => http::Method::CONNECT,
        Method::Options => http::Method::OPTIONS,
        Method::Trace => http::Method::TRACE,
        Method::Patch => http::Method::PATCH,
        Method::Other(s) => http::Method::from_bytes(s.as_bytes()).ok()?,
    })
}

fn scheme_to_http(s: &Scheme) -> Option<http::uri::Scheme> {
    match s {
        Scheme::Http => Some(http::uri::Scheme::HTTP),
        Scheme::Https => Some(http::uri::Scheme::HTTPS),
        Scheme::Other(o) => o.parse().ok(),
    }
}

fn scheme_clone(s: &Scheme) -> Scheme {
    match s {
        Scheme::Http => Scheme::Http,
        Scheme::Https => Scheme::Https,
        Scheme::Other(o) => Scheme::Other(o.clone()),
    }
}

fn method_clone(m: &Method) -> Method {
    match m {
        Method::Other(s) => Method::Other(s.clone()),
        m => method_to_wit(&method_from_wit(m).unwrap_or(http::Method::GET)),
    }
}

impl types::Host for WasiHttpCtxView<'_> {
    fn http_error_code(&mut self, err: Resource<IoError>) -> anyhow::Result<Option<ErrorCode>> {
        let err = self.table.get(&err)?;
        if let Some(e) = err.downcast_ref::<Error>() {
            return Ok(Some(error_code(self.hooks, e)));
        }
        Ok(err.downcast_ref::<ErrorCode>().cloned())
    }

    fn convert_error_code(&mut self, err: HttpError) -> anyhow::Result<ErrorCode> {
        err.downcast()
    }

    fn convert_header_error(&mut self, err: HeaderError) -> anyhow::Result<types::HeaderError> {
        err.downcast()
    }
}

impl WasiHttpCtxView<'_> {
    /// Pushes an immutable copy of `fields`.
    fn push_immutable(&mut self, fields: &FieldMap) -> anyhow::Result<Resource<Fields>> {
        let mut copy = fields.clone();
        copy.set_immutable();
        Ok(self.table.push(copy)?)
    }
}

impl types::HostFields for WasiHttpCtxView<'_> {
    fn new(&mut self) -> anyhow::Result<Resource<Fields>> {
        Ok(self.table.push(FieldMap::new_mutable(self.ctx.field_size_limit))?)
    }

    fn from_list(&mut self, entries: Vec<(String, Vec<u8>)>) -> HeaderResult<Resource<Fields>> {
        let mut map = FieldMap::new_mutable(self.ctx.field_size_limit);
        for (name, value) in entries {
            map.append(self.hooks, name, value)?;
        }
        self.table.push(map).map_err(HeaderError::trap)
    }

    fn get(&mut self, self_: Resource<Fields>, name: String) -> anyhow::Result<Vec<Vec<u8>>> {
        Ok(self.table.get(&self_)?.values(&name))
    }

    fn has(&mut self, self_: Resource<Fields>, name: String) -> anyhow::Result<bool> {
        Ok(self.table.get(&self_)?.has(&name))
    }

    fn set(&mut self, self_: Resource<Fields>, name: String, value: Vec<Vec<u8>>) -> HeaderResult<()> {
        let fields = self.table.get_mut(&self_).map_err(HeaderError::trap)?;
        fields.set(self.hooks, name, value)?;
        Ok(())
    }

    fn delete(&mut self, self_: Resource<Fields>, name: String) -> HeaderResult<()> {
        let fields = self.table.get_mut(&self_).map_err(HeaderError::trap)?;
        fields.remove_all(self.hooks, name)?;
        Ok(())
    }

    fn append(&mut self, self_: Resource<Fields>, name: String, value: Vec<u8>) -> HeaderResult<()> {
        let fields = self.table.get_mut(&self_).map_err(HeaderError::trap)?;
        fields.append(self.hooks, name, value)?;
        Ok(())
    }

    fn entries(&mut self, self_: Resource<Fields>) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
        Ok(self.table.get(&self_)?.entries())
    }

    fn clone(&mut self, self_: Resource<Fields>) -> anyhow::Result<Resource<Fields>> {
        let mut copy = self.table.get(&self_)?.clone();
        copy.set_mutable(self.ctx.field_size_limit);
        Ok(self.table.push(copy)?)
    }

    fn drop(&mut self, rep: Resource<Fields>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl types::HostIncomingRequest for WasiHttpCtxView<'_> {
    fn method(&mut self, self_: Resource<HostIncomingRequest>) -> anyhow::Result<Method> {
        Ok(method_to_wit(&self.table.get(&self_)?.method))
    }

    fn path_with_query(&mut self, self_: Resource<HostIncomingRequest>) -> anyhow::Result<Option<String>> {
        Ok(self
            .table
            .get(&self_)?
            .uri
            .path_and_query()
            .map(|p| p.as_str().to_string()))
    }

    fn scheme(&mut self, self_: Resource<HostIncomingRequest>) -> anyhow::Result<Option<Scheme>> {
        Ok(Some(scheme_clone(&self.table.get(&self_)?.scheme)))
    }

    fn authority(&mut self, self_: Resource<HostIncomingRequest>) -> anyhow::Result<Option<String>> {
        Ok(Some(self.table.get(&self_)?.authority.clone()))
    }

    fn headers(&mut self, self_: Resource<HostIncomingRequest>) -> anyhow::Result<Resource<Fields>> {
        let headers = self.table.get(&self_)?.headers.clone();
        self.push_immutable(&headers)
    }

    fn consume(
        &mut self,
        self_: Resource<HostIncomingRequest>,
    ) -> anyhow::Result<Result<Resource<HostIncomingBody>, ()>> {
        match self.table.get_mut(&self_)?.body.take() {
            Some(body) => Ok(Ok(self.table.push_child(body, &self_)?)),
            None => Ok(Err(())),
        }
    }

    fn drop(&mut self, rep: Resource<HostIncomingRequest>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl types::HostOutgoingRequest for WasiHttpCtxView<'_> {
    fn new(&mut self, headers: Resource<Fields>) -> anyhow::Result<Resource<HostOutgoingRequest>> {
        let headers = self.table.delete(headers)?;
        Ok(self.table.push(HostOutgoingRequest {
            method: Method::Get,
            scheme: None,
            authority: None,
            path_with_query: None,
            headers,
            body: None,
        })?)
    }

    fn body(&mut self, self_: Resource<HostOutgoingRequest>) -> anyhow::Result<Result<Resource<HostOutgoingBody>, ()>> {
        let chunks = self.hooks.p2_outgoing_body_buffer_chunks();
        let chunk_size = self.hooks.p2_outgoing_body_chunk_size();
        let req = self.table.get_mut(&self_)?;
        if req.body.is_some() {
            return Ok(Err(()));
        }
        let size = req.headers.content_length();
        let (host, hyper) = HostOutgoingBody::new(StreamContext::Request, size, chunks, chunk_size);
        req.body = Some(hyper);
        Ok(Ok(self.table.push(host)?))
    }

    fn method(&mut self, self_: Resource<HostOutgoingRequest>) -> anyhow::Result<Method> {
        Ok(method_clone(&self.table.get(&self_)?.method))
    }

    fn set_method(&mut self, self_: Resource<HostOutgoingRequest>, method: Method) -> anyhow::Result<Result<(), ()>> {
        if method_from_wit(&method).is_none() {
            return Ok(Err(()));
        }
        self.table.get_mut(&self_)?.method = method;
        Ok(Ok(()))
    }

    fn path_with_query(&mut self, self_: Resource<HostOutgoingRequest>) -> anyhow::Result<Option<String>> {
        Ok(self.table.get(&self_)?.path_with_query.clone())
    }

    fn set_path_with_query(
        &mut self,
        self_: Resource<HostOutgoingRequest>,
        path_with_query: Option<String>,
    ) -> anyhow::Result<Result<(), ()>> {
        if let Some(p) = &path_with_query {
            if p.parse::<http::uri::PathAndQuery>().is_err() {
                return Ok(Err(()));
            }
        }
        self.table.get_mut(&self_)?.path_with_query = path_with_query;
        Ok(Ok(()))
    }

    fn scheme(&mut self, self_: Resource<HostOutgoingRequest>) -> anyhow::Result<Option<Scheme>> {
        Ok(self.table.get(&self_)?.scheme.as_ref().map(scheme_clone))
    }

    fn set_scheme(
        &mut self,
        self_: Resource<HostOutgoingRequest>,
        scheme: Option<Scheme>,
    ) -> anyhow::Result<Result<(), ()>> {
        if let Some(s) = &scheme {
            if scheme_to_http(s).is_none() {
                return Ok(Err(()));
            }
        }
        self.table.get_mut(&self_)?.scheme = scheme;
        Ok(Ok(()))
    }

    fn authority(&mut self, self_: Resource<HostOutgoingRequest>) -> anyhow::Result<Option<String>> {
        Ok(self.table.get(&self_)?.authority.clone())
    }

    fn set_authority(
        &mut self,
        self_: Resource<HostOutgoingRequest>,
        authority: Option<String>,
    ) -> anyhow::Result<Result<(), ()>> {
        if let Some(a) = &authority {
            if a.parse::<http::uri::Authority>().is_err() {
                return Ok(Err(()));
            }
        }
        self.table.get_mut(&self_)?.authority = authority;
        Ok(Ok(()))
    }

    fn headers(&mut self, self_: Resource<HostOutgoingRequest>) -> anyhow::Result<Resource<Fields>> {
        let headers = self.table.get(&self_)?.headers.clone();
        self.push_immutable(&headers)
    }

    fn drop(&mut self, rep: Resource<HostOutgoingRequest>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

/// A WIT duration (nanoseconds) as a `Duration`.
fn to_duration(d: Option<u64>) -> Option<Duration> {
    d.map(Duration::from_nanos)
}

/// A `Duration` as a WIT duration, saturated.
fn from_duration(d: Option<Duration>) -> Option<u64> {
    d.map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

impl types::HostRequestOptions for WasiHttpCtxView<'_> {
    fn new(&mut self) -> anyhow::Result<Resource<RequestOptions>> {
        Ok(self.table.push(RequestOptions::default())?)
    }

    fn connect_timeout(&mut self, self_: Resource<RequestOptions>) -> anyhow::Result<Option<u64>> {
        Ok(from_duration(self.table.get(&self_)?.connect_timeout))
    }

    fn set_connect_timeout(
        &mut self,
        self_: Resource<RequestOptions>,
        duration: Option<u64>,
    ) -> anyhow::Result<Result<(), ()>> {
        self.table.get_mut(&self_)?.connect_timeout = to_duration(duration);
        Ok(Ok(()))
    }

    fn first_byte_timeout(&mut self, self_: Resource<RequestOptions>) -> anyhow::Result<Option<u64>> {
        Ok(from_duration(self.table.get(&self_)?.first_byte_timeout))
    }

    fn set_first_byte_timeout(
        &mut self,
        self_: Resource<RequestOptions>,
        duration: Option<u64>,
    ) -> anyhow::Result<Result<(), ()>> {
        self.table.get_mut(&self_)?.first_byte_timeout = to_duration(duration);
        Ok(Ok(()))
    }

    fn between_bytes_timeout(&mut self, self_: Resource<RequestOptions>) -> anyhow::Result<Option<u64>> {
        Ok(from_duration(self.table.get(&self_)?.between_bytes_timeout))
    }

    fn set_between_bytes_timeout(
        &mut self,
        self_: Resource<RequestOptions>,
        duration: Option<u64>,
    ) -> anyhow::Result<Result<(), ()>> {
        self.table.get_mut(&self_)?.between_bytes_timeout = to_duration(duration);
        Ok(Ok(()))
    }

    fn drop(&mut self, rep: Resource<RequestOptions>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl types::HostResponseOutparam for WasiHttpCtxView<'_> {
    fn send_informational(
        &mut self,
        _self_: Resource<HostResponseOutparam>,
        _status: u16,
        headers: Resource<Fields>,
    ) -> HttpResult<()> {
        // `@unstable(feature = informational-outbound-responses)`: only
        // linked when asked for, and not implemented (as in Wasmtime).
        self.table.delete(headers).map_err(HttpError::trap)?;
        Err(ErrorCode::InternalError(Some("informational responses are not supported".into())).into())
    }

    fn set(
        &mut self,
        param: Resource<HostResponseOutparam>,
        response: Result<Resource<HostOutgoingResponse>, ErrorCode>,
    ) -> anyhow::Result<()> {
        let param = self.table.delete(param)?;
        let response = match response {
            Ok(r) => {
                let r = self.table.delete(r)?;
                match hyper::Response::try_from(r) {
                    Ok(r) => Ok(r),
                    Err(e) => Err(ErrorCode::InternalError(Some(e.to_string()))),
                }
            }
            Err(code) => Err(code),
        };
        (param.send)(response);
        Ok(())
    }

    fn drop(&mut self, rep: Resource<HostResponseOutparam>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl types::HostIncomingResponse for WasiHttpCtxView<'_> {
    fn status(&mut self, self_: Resource<HostIncomingResponse>) -> anyhow::Result<u16> {
        Ok(self.table.get(&self_)?.status)
    }

    fn headers(&mut self, self_: Resource<HostIncomingResponse>) -> anyhow::Result<Resource<Fields>> {
        let headers = self.table.get(&self_)?.headers.clone();
        self.push_immutable(&headers)
    }

    fn consume(
        &mut self,
        self_: Resource<HostIncomingResponse>,
    ) -> anyhow::Result<Result<Resource<HostIncomingBody>, ()>> {
        match self.table.get_mut(&self_)?.body.take() {
            Some(body) => Ok(Ok(self.table.push_child(body, &self_)?)),
            None => Ok(Err(())),
        }
    }

    fn drop(&mut self, rep: Resource<HostIncomingResponse>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl types::HostIncomingBody for WasiHttpCtxView<'_> {
    fn stream(&mut self, self_: Resource<HostIncomingBody>) -> anyhow::Result<Result<Resource<DynInputStream>, ()>> {
        match self.table.get_mut(&self_)?.take_stream() {
            Some(stream) => {
                let stream: DynInputStream = Box::new(stream);
                Ok(Ok(self.table.push_child(stream, &self_)?))
            }
            None => Ok(Err(())),
        }
    }

    fn finish(&mut self, this: Resource<HostIncomingBody>) -> anyhow::Result<Resource<HostFutureTrailers>> {
        let body = self.table.delete(this)?;
        Ok(self.table.push(body.into_future_trailers())?)
    }

    fn drop(&mut self, rep: Resource<HostIncomingBody>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl types::HostFutureTrailers for WasiHttpCtxView<'_> {
    fn subscribe(&mut self, self_: Resource<HostFutureTrailers>) -> anyhow::Result<Resource<DynPollable>> {
        weft_wasi::p2::subscribe(self.table, self_)
    }

    fn get(
        &mut self,
        self_: Resource<HostFutureTrailers>,
    ) -> anyhow::Result<Option<Result<Result<Option<Resource<Fields>>, ErrorCode>, ()>>> {
        let got = self.table.get_mut(&self_)?.get();
        Ok(match got {
            None => None,
            Some(Err(())) => Some(Err(())),
            Some(Ok(Err(e))) => Some(Ok(Err(error_code(self.hooks, &e)))),
            Some(Ok(Ok(None))) => Some(Ok(Ok(None))),
            Some(Ok(Ok(Some(map)))) => {
                let fields = FieldMap::new_immutable(self.hooks, map);
                Some(Ok(Ok(Some(self.table.push(fields)?))))
            }
        })
    }

    fn drop(&mut self, rep: Resource<HostFutureTrailers>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl types::HostOutgoingResponse for WasiHttpCtxView<'_> {
    fn new(&mut self, headers: Resource<Fields>) -> anyhow::Result<Resource<HostOutgoingResponse>> {
        let headers = self.table.delete(headers)?;
        Ok(self.table.push(HostOutgoingResponse {
            status: http::StatusCode::OK,
            headers,
            body: None,
        })?)
    }

    fn status_code(&mut self, self_: Resource<HostOutgoingResponse>) -> anyhow::Result<u16> {
        Ok(self.table.get(&self_)?.status.as_u16())
    }

    fn set_status_code(
        &mut self,
        self_: Resource<HostOutgoingResponse>,
        status_code: u16,
    ) -> anyhow::Result<Result<(), ()>> {
        match http::StatusCode::from_u16(status_code) {
            Ok(s) => {
                self.table.get_mut(&self_)?.status = s;
                Ok(Ok(()))
            }
            Err(_) => Ok(Err(())),
        }
    }

    fn headers(&mut self, self_: Resource<HostOutgoingResponse>) -> anyhow::Result<Resource<Fields>> {
        let headers = self.table.get(&self_)?.headers.clone();
        self.push_immutable(&headers)
    }

    fn body(
        &mut self,
        self_: Resource<HostOutgoingResponse>,
    ) -> anyhow::Result<Result<Resource<HostOutgoingBody>, ()>> {
        let chunks = self.hooks.p2_outgoing_body_buffer_chunks();
        let chunk_size = self.hooks.p2_outgoing_body_chunk_size();
        let resp = self.table.get_mut(&self_)?;
        if resp.body.is_some() {
            return Ok(Err(()));
        }
        let size = resp.headers.content_length();
        let (host, hyper) = HostOutgoingBody::new(StreamContext::Response, size, chunks, chunk_size);
        resp.body = Some(hyper);
        Ok(Ok(self.table.push(host)?))
    }

    fn drop(&mut self, rep: Resource<HostOutgoingResponse>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl types::HostOutgoingBody for WasiHttpCtxView<'_> {
    fn write(&mut self, self_: Resource<HostOutgoingBody>) -> anyhow::Result<Result<Resource<DynOutputStream>, ()>> {
        match self.table.get_mut(&self_)?.take_output_stream() {
            Some(stream) => Ok(Ok(self.table.push_child(stream, &self_)?)),
            None => Ok(Err(())),
        }
    }

    fn finish(&mut self, this: Resource<HostOutgoingBody>, trailers: Option<Resource<Fields>>) -> HttpResult<()> {
        let body = self.table.delete(this).map_err(HttpError::trap)?;
        let trailers = match trailers {
            Some(t) => Some(self.table.delete(t).map_err(HttpError::trap)?.into()),
            None => None,
        };
        body.finish(trailers).map_err(|e| error_code(self.hooks, &e))?;
        Ok(())
    }

    fn drop(&mut self, rep: Resource<HostOutgoingBody>) -> anyhow::Result<()> {
        self.table.delete(rep)?.abort();
        Ok(())
    }
}

impl types::HostFutureIncomingResponse for WasiHttpCtxView<'_> {
    fn subscribe(&mut self, self_: Resource<HostFutureIncomingResponse>) -> anyhow::Result<Resource<DynPollable>> {
        weft_wasi::p2::subscribe(self.table, self_)
    }

    fn get(
        &mut self,
        self_: Resource<HostFutureIncomingResponse>,
    ) -> anyhow::Result<Option<Result<Result<Resource<HostIncomingResponse>, ErrorCode>, ()>>> {
        let fut = self.table.get_mut(&self_)?;
        if !fut.is_ready() {
            return Ok(None);
        }
        match std::mem::replace(fut, HostFutureIncomingResponse::Consumed) {
            HostFutureIncomingResponse::Consumed => Ok(Some(Err(()))),
            HostFutureIncomingResponse::Pending(_) => Ok(None),
            HostFutureIncomingResponse::Ready(Err(e)) => Ok(Some(Ok(Err(error_code(self.hooks, &e))))),
            HostFutureIncomingResponse::Ready(Ok(resp)) => {
                let (parts, body) = resp.into_parts();
                let response = HostIncomingResponse {
                    status: parts.status.as_u16(),
                    headers: FieldMap::new_immutable(self.hooks, parts.headers),
                    body: Some(HostIncomingBody::new(body)),
                };
                Ok(Some(Ok(Ok(self.table.push(response)?))))
            }
        }
    }

    fn drop(&mut self, rep: Resource<HostFutureIncomingResponse>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl outgoing_handler::Host for WasiHttpCtxView<'_> {
    fn handle(
        &mut self,
        request: Resource<HostOutgoingRequest>,
        options: Option<Resource<RequestOptions>>,
    ) -> HttpResult<Resource<HostFutureIncomingResponse>> {
        let req = self.table.delete(request).map_err(HttpError::trap)?;
        let options = match options {
            Some(o) => Some(self.table.delete(o).map_err(HttpError::trap)?),
            None => None,
        };
        let method = method_from_wit(&req.method).ok_or(ErrorCode::HttpRequestMethodInvalid)?;
        let scheme = match &req.scheme {
            Some(s) => scheme_to_http(s).ok_or(ErrorCode::HttpProtocolError)?,
            None => self.hooks.default_scheme().ok_or(ErrorCode::HttpProtocolError)?,
        };
        if !self.hooks.is_supported_scheme(&scheme) {
            return Err(ErrorCode::HttpProtocolError.into());
        }
        let authority = req.authority.clone().ok_or(ErrorCode::HttpRequestUriInvalid)?;
        let uri = http::Uri::builder()
            .scheme(scheme)
            .authority(authority.as_str())
            .path_and_query(req.path_with_query.as_deref().unwrap_or("/"))
            .build()
            .map_err(http_request_error)?;
        let mut builder = http::Request::builder().method(method).uri(uri);
        if let Some(h) = builder.headers_mut() {
            *h = req.headers.into();
            if self.hooks.set_host_header() {
                let host = HeaderValue::from_str(&authority).map_err(|_| ErrorCode::HttpRequestUriInvalid)?;
                h.insert(http::header::HOST, host);
            }
        }
        let request = builder
            .body(req.body.unwrap_or_else(empty_body))
            .map_err(http_request_error)?;
        // 0.2 has no result of the guest's processing of the response.
        let processed: Box<dyn std::future::Future<Output = Result<(), Error>> + Send> =
            Box::new(std::future::ready(Ok(())));
        let mut sent = Box::into_pin(self.hooks.send_request(request, options, processed));
        // A request the hooks refuse at once (`refuse_request`) fails
        // `handle` itself; any other result comes through the future.
        match super::body::poll_once(&mut sent) {
            std::task::Poll::Ready(Err(e)) => return Err(error_code(self.hooks, &e).into()),
            // (A future that ended must not be polled again.)
            std::task::Poll::Ready(Ok(sent_now)) => sent = Box::pin(std::future::ready(Ok(sent_now))),
            std::task::Poll::Pending => {}
        }
        let fut = HostFutureIncomingResponse::pending(spawn_send(sent));
        self.table.push(fut).map_err(HttpError::trap)
    }
}

/// What `send_request` returns.
type SendFuture = std::pin::Pin<
    Box<
        dyn std::future::Future<
                Output = crate::Result<(
                    http::Response<crate::WasiBody>,
                    Box<dyn std::future::Future<Output = crate::Result<()>> + Send>,
                )>,
            > + Send,
    >,
>;

/// Runs the hooks' `send_request` future: on the tokio runtime of the
/// calling thread when there is one (0.2's host functions poll the
/// response from the guest's thread, which may have none, and hyper
/// needs one), else where the response is polled. The future of the
/// request's transmission runs on to its end by itself (on the runtime,
/// or else on a thread of its own); 0.2 has nowhere to report its error.
fn spawn_send(sent: SendFuture) -> impl std::future::Future<Output = crate::Result<http::Response<HyperIncomingBody>>> {
    let runtime = tokio::runtime::Handle::try_current().ok();
    let (task, inline) = match &runtime {
        Some(rt) => (Some(rt.spawn(sent)), None),
        None => (None, Some(sent)),
    };
    async move {
        let sent = match (task, inline) {
            (Some(task), _) => task
                .await
                .map_err(|e| Error::InternalError(Some(format!("the outgoing request's task failed: {e}"))))?,
            (None, Some(fut)) => fut.await,
            (None, None) => return Err(Error::InternalError(Some("no request to send".into()))),
        };
        let (response, io) = sent?;
        let io = Box::into_pin(io);
        match &runtime {
            Some(rt) => {
                rt.spawn(io);
            }
            None => {
                let spawned = std::thread::Builder::new()
                    .name("weft-wasi-http-send".into())
                    .spawn(move || weft_wasi::runtime::in_tokio(io));
                if let Err(e) = spawned {
                    return Err(Error::InternalError(Some(format!(
                        "cannot start a thread for the outgoing request: {e}"
                    ))));
                }
            }
        }
        Ok(response)
    }
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
        B::Error: Into<Error>,
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

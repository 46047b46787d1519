//! The `wasi:http/types` and `wasi:http/client` 0.3 host functions.

use super::bindings::http::client;
use super::bindings::http::types::{
    self, ErrorCode, HeaderError, Method as WitMethod, RequestOptionsError, Scheme as WitScheme,
};
use super::body::TrailersResult;
use super::errors::{HeaderResult, HttpError, HttpResult, RequestOptionsResult};
use super::maybe_mutable::MaybeMutable;
use super::message::{Request, Response};
use crate::{FieldMap, FieldMapError, RequestOptions, WasiHttp, WasiHttpCtxView};
use http_body_util::BodyExt;
use std::time::Duration;
use weft::component::{Access, Accessor, FutureReader, Resource, StreamReader};

/// The `header-error` of a refused change of fields.
fn header_error(e: FieldMapError) -> HeaderError {
    match e {
        FieldMapError::Immutable => HeaderError::Immutable,
        FieldMapError::Forbidden => HeaderError::Forbidden,
        FieldMapError::TotalSizeTooBig => HeaderError::SizeExceeded,
        FieldMapError::InvalidHeaderName | FieldMapError::InvalidHeaderValue => HeaderError::InvalidSyntax,
    }
}

/// The WIT method of an `http::Method`.
fn method_to_wit(m: &http::Method) -> WitMethod {
    match *m {
        http::Method::GET => WitMethod::Get,
        http::Method::HEAD => WitMethod::Head,
        http::Method::POST => WitMethod::Post,
        http::Method::PUT => WitMethod::Put,
        http::Method::DELETE => WitMethod::Delete,
        http::Method::CONNECT => WitMethod::Connect,
        http::Method::OPTIONS => WitMethod::Options,
        http::Method::TRACE => WitMethod::Trace,
        http::Method::PATCH => WitMethod::Patch,
        _ => WitMethod::Other(m.as_str().to_string()),
    }
}

/// The `http::Method` of a WIT method; `None` when `other` is no valid
/// method name.
fn method_from_wit(m: &WitMethod) -> Option<http::Method> {
    Some(match m {
        WitMethod::Get => http::Method::GET,
        WitMethod::Head => http::Method::HEAD,
        WitMethod::Post => http::Method::POST,
        WitMethod::Put => http::Method::PUT,
        WitMethod::Delete => http::Method::DELETE,
        WitMethod::Connect => http::Method::CONNECT,
        WitMethod::Options => http::Method::OPTIONS,
        WitMethod::Trace => http::Method::TRACE,
        WitMethod::Patch => http::Method::PATCH,
        WitMethod::Other(s) => http::Method::from_bytes(s.as_bytes()).ok()?,
    })
}

fn scheme_to_wit(s: &http::uri::Scheme) -> WitScheme {
    if *s == http::uri::Scheme::HTTP {
        WitScheme::Http
    } else if *s == http::uri::Scheme::HTTPS {
        WitScheme::Https
    } else {
        WitScheme::Other(s.as_str().to_string())
    }
}

fn scheme_from_wit(s: &WitScheme) -> Option<http::uri::Scheme> {
    match s {
        WitScheme::Http => Some(http::uri::Scheme::HTTP),
        WitScheme::Https => Some(http::uri::Scheme::HTTPS),
        WitScheme::Other(o) => o.parse().ok(),
    }
}

impl types::Host for WasiHttpCtxView<'_> {
    fn convert_error_code(&mut self, err: HttpError) -> weft::Result<ErrorCode> {
        err.downcast()
    }

    fn convert_header_error(&mut self, err: super::errors::HeaderError) -> weft::Result<HeaderError> {
        err.downcast()
    }

    fn convert_request_options_error(
        &mut self,
        err: super::errors::RequestOptionsError,
    ) -> weft::Result<RequestOptionsError> {
        err.downcast()
    }
}

/// A trap with `err` as a trappable `header-error`.
fn header_trap(err: impl Into<weft::Error>) -> super::errors::HeaderError {
    super::errors::HeaderError::trap(err)
}

impl WasiHttpCtxView<'_> {
    /// Pushes an immutable copy of `fields`.
    fn push_immutable_fields(&mut self, fields: &FieldMap) -> weft::Result<Resource<FieldMap>> {
        let mut copy = fields.clone();
        copy.set_immutable();
        Ok(self.table.push(copy)?)
    }
}

impl types::HostFields for WasiHttpCtxView<'_> {
    fn new(&mut self) -> weft::Result<Resource<FieldMap>> {
        Ok(self.table.push(FieldMap::new_mutable(self.ctx.field_size_limit))?)
    }

    fn from_list(&mut self, entries: Vec<(String, Vec<u8>)>) -> HeaderResult<Resource<FieldMap>> {
        let mut map = FieldMap::new_mutable(self.ctx.field_size_limit);
        for (name, value) in entries {
            map.append(self.hooks, name, value).map_err(header_error)?;
        }
        self.table.push(map).map_err(header_trap)
    }

    fn get(&mut self, self_: Resource<FieldMap>, name: String) -> weft::Result<Vec<Vec<u8>>> {
        Ok(self.table.get(&self_)?.values(&name))
    }

    fn has(&mut self, self_: Resource<FieldMap>, name: String) -> weft::Result<bool> {
        Ok(self.table.get(&self_)?.has(&name))
    }

    fn set(&mut self, self_: Resource<FieldMap>, name: String, value: Vec<Vec<u8>>) -> HeaderResult<()> {
        let fields = self.table.get_mut(&self_).map_err(header_trap)?;
        Ok(fields.set(self.hooks, name, value).map_err(header_error)?)
    }

    fn delete(&mut self, self_: Resource<FieldMap>, name: String) -> HeaderResult<()> {
        let fields = self.table.get_mut(&self_).map_err(header_trap)?;
        fields.remove_all(self.hooks, name).map_err(header_error)?;
        Ok(())
    }

    fn get_and_delete(&mut self, self_: Resource<FieldMap>, name: String) -> HeaderResult<Vec<Vec<u8>>> {
        let fields = self.table.get_mut(&self_).map_err(header_trap)?;
        let values = fields.remove_all(self.hooks, name).map_err(header_error)?;
        Ok(values.iter().map(|v| v.as_bytes().to_vec()).collect())
    }

    fn append(&mut self, self_: Resource<FieldMap>, name: String, value: Vec<u8>) -> HeaderResult<()> {
        let fields = self.table.get_mut(&self_).map_err(header_trap)?;
        fields.append(self.hooks, name, value).map_err(header_error)?;
        Ok(())
    }

    fn copy_all(&mut self, self_: Resource<FieldMap>) -> weft::Result<Vec<(String, Vec<u8>)>> {
        Ok(self.table.get(&self_)?.entries())
    }

    fn clone(&mut self, self_: Resource<FieldMap>) -> weft::Result<Resource<FieldMap>> {
        let mut copy = self.table.get(&self_)?.clone();
        copy.set_mutable(self.ctx.field_size_limit);
        Ok(self.table.push(copy)?)
    }

    fn drop(&mut self, rep: Resource<FieldMap>) -> weft::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl types::HostRequest for WasiHttpCtxView<'_> {
    fn get_method(&mut self, self_: Resource<Request>) -> weft::Result<WitMethod> {
        Ok(method_to_wit(&self.table.get(&self_)?.method))
    }

    fn set_method(&mut self, self_: Resource<Request>, method: WitMethod) -> weft::Result<Result<(), ()>> {
        let Some(method) = method_from_wit(&method) else {
            return Ok(Err(()));
        };
        self.table.get_mut(&self_)?.method = method;
        Ok(Ok(()))
    }

    fn get_path_with_query(&mut self, self_: Resource<Request>) -> weft::Result<Option<String>> {
        Ok(self
            .table
            .get(&self_)?
            .path_with_query
            .as_ref()
            .map(|p| p.as_str().to_string()))
    }

    fn set_path_with_query(
        &mut self,
        self_: Resource<Request>,
        path_with_query: Option<String>,
    ) -> weft::Result<Result<(), ()>> {
        let value = match path_with_query {
            None => None,
            Some(p) => match p.parse() {
                Ok(p) => Some(p),
                Err(_) => return Ok(Err(())),
            },
        };
        self.table.get_mut(&self_)?.path_with_query = value;
        Ok(Ok(()))
    }

    fn get_scheme(&mut self, self_: Resource<Request>) -> weft::Result<Option<WitScheme>> {
        Ok(self.table.get(&self_)?.scheme.as_ref().map(scheme_to_wit))
    }

    fn set_scheme(&mut self, self_: Resource<Request>, scheme: Option<WitScheme>) -> weft::Result<Result<(), ()>> {
        let value = match scheme {
            None => None,
            Some(s) => match scheme_from_wit(&s) {
                Some(s) => Some(s),
                None => return Ok(Err(())),
            },
        };
        self.table.get_mut(&self_)?.scheme = value;
        Ok(Ok(()))
    }

    fn get_authority(&mut self, self_: Resource<Request>) -> weft::Result<Option<String>> {
        Ok(self
            .table
            .get(&self_)?
            .authority
            .as_ref()
            .map(|a| a.as_str().to_string()))
    }

    fn set_authority(&mut self, self_: Resource<Request>, authority: Option<String>) -> weft::Result<Result<(), ()>> {
        let value = match authority {
            None => None,
            Some(a) => match a.parse() {
                Ok(a) => Some(a),
                Err(_) => return Ok(Err(())),
            },
        };
        self.table.get_mut(&self_)?.authority = value;
        Ok(Ok(()))
    }

    fn get_options(
        &mut self,
        self_: Resource<Request>,
    ) -> weft::Result<Option<Resource<MaybeMutable<RequestOptions>>>> {
        let Some(options) = self.table.get(&self_)?.options.clone() else {
            return Ok(None);
        };
        Ok(Some(
            self.table.push_child(MaybeMutable::new_immutable(options), &self_)?,
        ))
    }

    fn get_headers(&mut self, self_: Resource<Request>) -> weft::Result<Resource<FieldMap>> {
        let headers = self.table.get(&self_)?.headers.clone();
        self.push_immutable_fields(&headers)
    }

    fn drop(&mut self, rep: Resource<Request>) -> weft::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

/// Where the host sends the result of transmitting a message.
type ResultSender = tokio::sync::oneshot::Sender<super::body::ResultFuture>;

/// The guest's future of the result of transmitting its message.
fn transmission_future<T: 'static>(
    host: &mut Access<'_, T, WasiHttp>,
) -> weft::Result<(ResultSender, FutureReader<Result<(), ErrorCode>>)> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let fut = super::body::result_receiver(rx);
    let reader = FutureReader::new(host, async move { Ok::<_, weft::Error>(fut.await) })?;
    Ok((tx, reader))
}

/// The headers of a new message: the guest's fields, now immutable.
fn take_headers<T: 'static>(host: &mut Access<'_, T, WasiHttp>, headers: Resource<FieldMap>) -> weft::Result<FieldMap> {
    let mut headers = host.get().table.delete(headers)?;
    headers.set_immutable();
    Ok(headers)
}

impl<T: 'static> types::HostRequestWithStore<T> for WasiHttp {
    fn new(
        mut host: Access<'_, T, Self>,
        headers: Resource<FieldMap>,
        contents: Option<StreamReader<u8>>,
        trailers: FutureReader<TrailersResult>,
        options: Option<Resource<MaybeMutable<RequestOptions>>>,
    ) -> weft::Result<(Resource<Request>, FutureReader<Result<(), ErrorCode>>)> {
        let headers = take_headers(&mut host, headers)?;
        let options = match options {
            Some(o) => Some(host.get().table.delete(o)?.into_arc()),
            None => None,
        };
        let (result, future) = transmission_future(&mut host)?;
        let req = Request {
            method: http::Method::GET,
            scheme: None,
            authority: None,
            path_with_query: None,
            headers,
            options,
            body: super::body::BodyKind::Guest {
                contents,
                trailers,
                result,
            },
        };
        Ok((host.get().table.push(req)?, future))
    }

    fn consume_body(
        mut host: Access<'_, T, Self>,
        this: Resource<Request>,
        res: FutureReader<Result<(), ErrorCode>>,
    ) -> weft::Result<(StreamReader<u8>, FutureReader<TrailersResult>)> {
        let getter = host.getter();
        let req = host.get().table.delete(this)?;
        super::message::consume_body(req.body, &mut host, getter, res)
    }
}

fn to_duration(d: Option<u64>) -> Option<Duration> {
    d.map(Duration::from_nanos)
}

fn from_duration(d: Option<Duration>) -> Option<u64> {
    d.map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

type Options = MaybeMutable<RequestOptions>;

impl WasiHttpCtxView<'_> {
    /// Changes the options `self_` through `set`, unless they are
    /// immutable.
    fn set_option(
        &mut self,
        self_: Resource<Options>,
        set: impl FnOnce(&mut RequestOptions),
    ) -> RequestOptionsResult<()> {
        let options = self
            .table
            .get_mut(&self_)
            .map_err(super::errors::RequestOptionsError::trap)?;
        match options.get_mut() {
            Some(o) => {
                set(o);
                Ok(())
            }
            None => Err(RequestOptionsError::Immutable.into()),
        }
    }
}

impl types::HostRequestOptions for WasiHttpCtxView<'_> {
    fn new(&mut self) -> weft::Result<Resource<Options>> {
        Ok(self.table.push(MaybeMutable::new_mutable_default())?)
    }

    fn get_connect_timeout(&mut self, self_: Resource<Options>) -> weft::Result<Option<u64>> {
        Ok(from_duration(self.table.get(&self_)?.connect_timeout))
    }

    fn set_connect_timeout(&mut self, self_: Resource<Options>, duration: Option<u64>) -> RequestOptionsResult<()> {
        self.set_option(self_, |o| o.connect_timeout = to_duration(duration))
    }

    fn get_first_byte_timeout(&mut self, self_: Resource<Options>) -> weft::Result<Option<u64>> {
        Ok(from_duration(self.table.get(&self_)?.first_byte_timeout))
    }

    fn set_first_byte_timeout(&mut self, self_: Resource<Options>, duration: Option<u64>) -> RequestOptionsResult<()> {
        self.set_option(self_, |o| o.first_byte_timeout = to_duration(duration))
    }

    fn get_between_bytes_timeout(&mut self, self_: Resource<Options>) -> weft::Result<Option<u64>> {
        Ok(from_duration(self.table.get(&self_)?.between_bytes_timeout))
    }

    fn set_between_bytes_timeout(
        &mut self,
        self_: Resource<Options>,
        duration: Option<u64>,
    ) -> RequestOptionsResult<()> {
        self.set_option(self_, |o| o.between_bytes_timeout = to_duration(duration))
    }

    fn clone(&mut self, self_: Resource<Options>) -> weft::Result<Resource<Options>> {
        let copy: RequestOptions = ***self.table.get(&self_)?;
        Ok(self.table.push(MaybeMutable::new_mutable(copy))?)
    }

    fn drop(&mut self, rep: Resource<Options>) -> weft::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl types::HostResponse for WasiHttpCtxView<'_> {
    fn get_status_code(&mut self, self_: Resource<Response>) -> weft::Result<u16> {
        Ok(self.table.get(&self_)?.status.as_u16())
    }

    fn set_status_code(&mut self, self_: Resource<Response>, status_code: u16) -> weft::Result<Result<(), ()>> {
        match http::StatusCode::from_u16(status_code) {
            Ok(s) => {
                self.table.get_mut(&self_)?.status = s;
                Ok(Ok(()))
            }
            Err(_) => Ok(Err(())),
        }
    }

    fn get_headers(&mut self, self_: Resource<Response>) -> weft::Result<Resource<FieldMap>> {
        let headers = self.table.get(&self_)?.headers.clone();
        self.push_immutable_fields(&headers)
    }

    fn drop(&mut self, rep: Resource<Response>) -> weft::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl<T: 'static> types::HostResponseWithStore<T> for WasiHttp {
    fn new(
        mut host: Access<'_, T, Self>,
        headers: Resource<FieldMap>,
        contents: Option<StreamReader<u8>>,
        trailers: FutureReader<TrailersResult>,
    ) -> weft::Result<(Resource<Response>, FutureReader<Result<(), ErrorCode>>)> {
        let headers = take_headers(&mut host, headers)?;
        let (result, future) = transmission_future(&mut host)?;
        let res = Response {
            status: http::StatusCode::OK,
            headers,
            body: super::body::BodyKind::Guest {
                contents,
                trailers,
                result,
            },
        };
        Ok((host.get().table.push(res)?, future))
    }

    fn consume_body(
        mut host: Access<'_, T, Self>,
        this: Resource<Response>,
        res: FutureReader<Result<(), ErrorCode>>,
    ) -> weft::Result<(StreamReader<u8>, FutureReader<TrailersResult>)> {
        let getter = host.getter();
        let response = host.get().table.delete(this)?;
        super::message::consume_body(response.body, &mut host, getter, res)
    }
}

impl client::Host for WasiHttpCtxView<'_> {}

/// What the hooks' `send_request` returns.
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

/// Hands the guest's request to the hooks' `send_request` (the one of
/// `wasi:http` 0.2 too): the future of the response, or the error code.
/// The guest's report on its handling of the response (the future it
/// gives `response.consume-body`) is what `send_request` gets as `fut`;
/// the future `send_request` returns with the response reports the
/// request's transmission to the guest (on the future `request.new` gave
/// it).
fn start_send<T: 'static>(
    host: &mut Access<'_, T, WasiHttp>,
    request: Resource<Request>,
) -> weft::Result<Result<(SendFuture, ResponseReport), ErrorCode>> {
    let getter = host.getter();
    let mut req = host.get().table.delete(request)?;
    let hooks = &mut *host.get().hooks;
    let scheme = match req.scheme.take().or_else(|| hooks.default_scheme()) {
        Some(s) => s,
        None => return Ok(Err(ErrorCode::HttpProtocolError)),
    };
    if !hooks.is_supported_scheme(&scheme) {
        return Ok(Err(ErrorCode::HttpProtocolError));
    }
    let set_host = hooks.set_host_header();
    req.scheme = Some(scheme);
    let Some(authority) = req.authority.clone() else {
        return Ok(Err(ErrorCode::HttpRequestUriInvalid));
    };
    // The request's transmission is reported by the future `send_request`
    // returns: it reaches the guest through this channel.
    let (sent_tx, sent_rx) = tokio::sync::oneshot::channel::<super::body::ResultFuture>();
    let report: super::body::ResultFuture = Box::pin(async move { super::body::result_receiver(sent_rx).await });
    let (mut http_req, options) = match req.convert_to_http(&mut *host, getter, Some(report))? {
        Ok(r) => r,
        Err(code) => return Ok(Err(code)),
    };
    if set_host {
        match http::HeaderValue::from_str(authority.as_str()) {
            Ok(v) => {
                http_req.headers_mut().insert(http::header::HOST, v);
            }
            Err(_) => return Ok(Err(ErrorCode::HttpRequestUriInvalid)),
        }
    }
    let http_req = http_req.map(|b| b.map_err(crate::Error::from).boxed_unsync());
    let options = options.map(|o| *o);
    let (processed_tx, processed_rx) = tokio::sync::oneshot::channel::<ProcessedFuture>();
    let processed: Box<dyn std::future::Future<Output = crate::Result<()>> + Send> = Box::new(async move {
        match processed_rx.await {
            Ok(fut) => fut.await,
            // No response reached the guest: nothing was processed.
            Err(_) => Ok(()),
        }
    });
    let fut = Box::into_pin(host.get().hooks.send_request(http_req, options, processed));
    Ok(Ok((
        fut,
        ResponseReport {
            processed: processed_tx,
            sent: sent_tx,
        },
    )))
}

/// The guest's report on its processing of a response.
type ProcessedFuture = std::pin::Pin<Box<dyn std::future::Future<Output = crate::Result<()>> + Send>>;

/// Where the results around a sent request go: the guest's processing of
/// the response to `send_request`'s `fut`, the request's transmission to
/// the guest.
struct ResponseReport {
    processed: tokio::sync::oneshot::Sender<ProcessedFuture>,
    sent: tokio::sync::oneshot::Sender<super::body::ResultFuture>,
}

impl<T: 'static> client::HostWithStore<T> for WasiHttp {
    async fn send(accessor: &Accessor<T, Self>, request: Resource<Request>) -> HttpResult<Resource<Response>> {
        let started = accessor
            .with(|mut host| start_send(&mut host, request))
            .map_err(HttpError::trap)?;
        let (fut, report) = started?;
        let (response, io) = match fut.await {
            Ok(r) => r,
            Err(e) => {
                let code = accessor.with(|mut host| crate::ctx::p3_error_code(host.get().hooks, &e));
                let _ = report.sent.send(Box::pin(std::future::ready(Err(code.clone()))));
                return Err(code.into());
            }
        };
        // The transmission's result, in the guest's error codes (with the
        // hooks' defaults: the future runs where no hooks are at hand).
        let io = Box::into_pin(io);
        let _ = report
            .sent
            .send(Box::pin(async move { io.await.map_err(super::errors::plain_code) }));
        accessor.with(|mut host| {
            let view = host.get();
            let (response, processed) = Response::from_http(view.hooks, response);
            // The guest's report on the response body goes to `fut`.
            let _ = report.processed.send(Box::pin(processed));
            view.table.push(response).map_err(HttpError::trap)
        })
    }
}

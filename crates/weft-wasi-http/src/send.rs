//! `default_send_request`: an HTTP/1 client on hyper and tokio.

use crate::p2::bindings::http::types::ErrorCode;
use crate::p2::body::{HyperIncomingBody, HyperOutgoingBody};
use crate::p2::types::incoming_body;
use crate::RequestOptions;
use std::time::Duration;

async fn with_timeout<T>(
    limit: Option<Duration>,
    err: ErrorCode,
    fut: impl std::future::Future<Output = T>,
) -> Result<T, ErrorCode> {
    match limit {
        Some(d) => tokio::time::timeout(d, fut).await.map_err(|_| err),
        None => Ok(fut.await),
    }
}

/// Sends `request` over a new HTTP/1 connection (plain `http` only: there
/// is no TLS) and returns the response, whose body streams from the
/// connection. Must run on a tokio runtime (with its time and I/O
/// drivers): spawn it and wrap the join handle in
/// [`crate::p2::types::HostFutureIncomingResponse::pending`] from
/// [`crate::WasiHttpHooks::send_request`].
pub async fn default_send_request(
    request: http::Request<HyperOutgoingBody>,
    options: Option<RequestOptions>,
) -> Result<http::Response<HyperIncomingBody>, ErrorCode> {
    let options = options.unwrap_or_default();
    let uri = request.uri().clone();
    if uri.scheme() != Some(&http::uri::Scheme::HTTP) {
        return Err(ErrorCode::HttpProtocolError);
    }
    let host = uri.host().ok_or(ErrorCode::HttpRequestUriInvalid)?.to_string();
    let port = uri.port_u16().unwrap_or(80);
    let authority = uri.authority().ok_or(ErrorCode::HttpRequestUriInvalid)?.clone();
    // On a direct connection the request target is the origin form (the
    // path and query); the authority goes in the `host` header.
    let mut request = request;
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    *request.uri_mut() = path.parse().map_err(|_| ErrorCode::HttpRequestUriInvalid)?;
    if !request.headers().contains_key(http::header::HOST) {
        let value = http::HeaderValue::from_str(authority.as_str()).map_err(|_| ErrorCode::HttpRequestUriInvalid)?;
        request.headers_mut().insert(http::header::HOST, value);
    }
    let stream = with_timeout(
        options.connect_timeout,
        ErrorCode::ConnectionTimeout,
        tokio::net::TcpStream::connect((host.as_str(), port)),
    )
    .await?
    .map_err(|e| match e.kind() {
        std::io::ErrorKind::ConnectionRefused => ErrorCode::ConnectionRefused,
        _ => ErrorCode::DestinationUnavailable,
    })?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
        .await
        .map_err(crate::p2::hyper_request_error)?;
    tokio::spawn(async move {
        // A connection error reaches the response (or its body) too.
        let _ = conn.await;
    });
    let response = with_timeout(
        options.first_byte_timeout,
        ErrorCode::ConnectionReadTimeout,
        sender.send_request(request),
    )
    .await?
    .map_err(crate::p2::hyper_request_error)?;
    let (parts, body) = response.into_parts();
    Ok(http::Response::from_parts(parts, incoming_body(body)))
}

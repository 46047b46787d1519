//! `default_send_request`: an HTTP/1 client on hyper and tokio.

use crate::{Error, RequestOptions};
use bytes::Bytes;
use http_body::Body;
use http_body_util::BodyExt;
use std::future::Future;
use std::time::Duration;

async fn with_timeout<T>(limit: Option<Duration>, err: Error, fut: impl Future<Output = T>) -> Result<T, Error> {
    match limit {
        Some(d) => tokio::time::timeout(d, fut).await.map_err(|_| err),
        None => Ok(fut.await),
    }
}

/// Sends `request` over a new HTTP/1 connection (plain `http` only: Weft
/// has no TLS client, so `https` fails with [`Error::HttpProtocolError`])
/// and returns the response, whose body streams from the connection, and
/// the future that drives the connection (Wasmtime 48's shape): poll it
/// (spawn it) until it ends, or the request and the response body stall.
/// Its error is the connection's.
///
/// Must run on a tokio runtime with its time and I/O drivers; without one
/// it fails with [`Error::InternalError`]. A failed connection is
/// [`Error::Connect`], a connection or first-byte timeout of `options`
/// [`Error::ConnectionTimeout`] or [`Error::ConnectionReadTimeout`]. The
/// body's `content-length` is not checked here (the hosts of 0.2 and 0.3
/// check the guest's).
pub async fn default_send_request(
    request: http::Request<impl Body<Data = Bytes, Error = Error> + Send + 'static>,
    options: Option<RequestOptions>,
) -> Result<
    (
        http::Response<impl Body<Data = Bytes, Error = Error>>,
        impl Future<Output = Result<(), Error>> + Send,
    ),
    Error,
> {
    if tokio::runtime::Handle::try_current().is_err() {
        return Err(Error::InternalError(Some(
            "default_send_request must run on a tokio runtime".into(),
        )));
    }
    let options = options.unwrap_or_default();
    let uri = request.uri().clone();
    if uri.scheme() != Some(&http::uri::Scheme::HTTP) {
        return Err(Error::HttpProtocolError);
    }
    let host = uri.host().ok_or(Error::HttpRequestUriInvalid)?.to_string();
    let port = uri.port_u16().unwrap_or(80);
    let authority = uri.authority().ok_or(Error::HttpRequestUriInvalid)?.clone();
    // On a direct connection the request target is the origin form (the
    // path and query); the authority goes in the `host` header.
    let mut request = request;
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    *request.uri_mut() = path.parse().map_err(|_| Error::HttpRequestUriInvalid)?;
    if !request.headers().contains_key(http::header::HOST) {
        let value = http::HeaderValue::from_str(authority.as_str()).map_err(|_| Error::HttpRequestUriInvalid)?;
        request.headers_mut().insert(http::header::HOST, value);
    }
    let stream = with_timeout(
        options.connect_timeout,
        Error::ConnectionTimeout,
        tokio::net::TcpStream::connect((host.as_str(), port)),
    )
    .await?
    .map_err(Error::Connect)?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await?;
    // The connection runs while the response is awaited; then the caller
    // drives it with the future returned.
    let mut conn = Some(Box::pin(conn));
    let send = sender.send_request(request);
    let response = with_timeout(options.first_byte_timeout, Error::ConnectionReadTimeout, async {
        let mut send = std::pin::pin!(send);
        std::future::poll_fn(|cx| {
            use std::task::Poll;
            if let Poll::Ready(r) = send.as_mut().poll(cx) {
                return Poll::Ready(r.map_err(Error::from));
            }
            if let Some(c) = conn.as_mut() {
                if let Poll::Ready(r) = c.as_mut().poll(cx) {
                    conn = None;
                    if let Err(e) = r {
                        // The connection failed before the response came:
                        // the request fails with it.
                        return Poll::Ready(Err(Error::Hyper(e)));
                    }
                }
            }
            Poll::Pending
        })
        .await
    })
    .await??;
    let io = async move {
        match conn {
            Some(c) => c.await.map_err(Error::Hyper),
            None => Ok(()),
        }
    };
    Ok((response.map(|body| body.map_err(Error::Hyper)), io))
}

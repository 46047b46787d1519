//! `default_send_request`: an HTTP/1 client on hyper and tokio, with TLS
//! (rustls) for `https`.

use crate::{Error, RequestOptions};
use bytes::Bytes;
use http_body::Body;
use http_body_util::BodyExt;
use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};

/// A connection's byte stream: a TCP stream, or TLS over one.
trait Io: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> Io for T {}

/// The TLS client configuration of `https` requests, made at the first
/// one: the Mozilla root certificates of `webpki-roots` (as Wasmtime 48's
/// client trusts), and the PEM certificates of the file that the
/// environment variable `SSL_CERT_FILE` names, when it is set (as OpenSSL
/// and curl read it), so a private CA can be trusted. A file that cannot
/// be read or holds a certificate that is not one fails every `https`
/// request with [`Error::InternalError`] naming the file.
fn tls_config() -> Result<Arc<rustls::ClientConfig>, Error> {
    static CONFIG: OnceLock<Result<Arc<rustls::ClientConfig>, String>> = OnceLock::new();
    let made = CONFIG.get_or_init(|| {
        let mut roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        if let Some(path) = std::env::var_os("SSL_CERT_FILE") {
            use rustls_pki_types::pem::PemObject;
            let shown = std::path::Path::new(&path).display().to_string();
            let certs = rustls_pki_types::CertificateDer::pem_file_iter(&path)
                .map_err(|e| format!("SSL_CERT_FILE {shown}: {e}"))?;
            for cert in certs {
                let cert = cert.map_err(|e| format!("SSL_CERT_FILE {shown}: {e}"))?;
                roots
                    .add(cert)
                    .map_err(|e| format!("SSL_CERT_FILE {shown}: a certificate that is not one: {e}"))?;
            }
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("the TLS configuration: {e}"))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(Arc::new(config))
    });
    made.clone().map_err(|e| Error::InternalError(Some(e)))
}

/// Opens the connection to `host:port`, with TLS for `https` (the
/// server's certificate checked against [`tls_config`]'s roots, for the
/// name `host`).
async fn connect(host: &str, port: u16, https: bool) -> Result<Box<dyn Io>, Error> {
    // The server's name and the roots are known (or fail) before any
    // connection is made.
    let tls = if https {
        Some((
            rustls_pki_types::ServerName::try_from(host.to_string())?,
            tokio_rustls::TlsConnector::from(tls_config()?),
        ))
    } else {
        None
    };
    let stream = tokio::net::TcpStream::connect((host, port))
        .await
        .map_err(Error::Connect)?;
    match tls {
        Some((name, tls)) => Ok(Box::new(tls.connect(name, stream).await.map_err(Error::Tls)?)),
        None => Ok(Box::new(stream)),
    }
}

async fn with_timeout<T>(limit: Option<Duration>, err: Error, fut: impl Future<Output = T>) -> Result<T, Error> {
    match limit {
        Some(d) => tokio::time::timeout(d, fut).await.map_err(|_| err),
        None => Ok(fut.await),
    }
}

/// Sends `request` over a new HTTP/1 connection (`http`, or `https` over
/// TLS, trusting the Mozilla root certificates of `webpki-roots` and the
/// PEM certificates of the file the environment variable `SSL_CERT_FILE`
/// names, when set; a file that cannot be read fails `https` requests
/// with [`Error::InternalError`]) and returns the
/// response, whose body streams from the connection, and the future that
/// drives the connection (Wasmtime 48's shape): poll it (spawn it) until
/// it ends, or the request and the response body stall. Its error is the
/// connection's.
///
/// Must run on a tokio runtime with its time and I/O drivers; without one
/// it fails with [`Error::InternalError`]. Another scheme is
/// [`Error::HttpProtocolError`], a failed connection [`Error::Connect`], a
/// failed TLS handshake (a certificate not trusted, say) [`Error::Tls`], a
/// host that is no DNS name or IP address for TLS
/// [`Error::InvalidDnsNameError`], and a connection (with the TLS
/// handshake) or first-byte timeout of `options`
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
    let https = match uri.scheme() {
        Some(s) if *s == http::uri::Scheme::HTTP => false,
        Some(s) if *s == http::uri::Scheme::HTTPS => true,
        _ => return Err(Error::HttpProtocolError),
    };
    // An IPv6 address comes in brackets.
    let host = uri.host().ok_or(Error::HttpRequestUriInvalid)?;
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host)
        .to_string();
    let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
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
        connect(&host, port, https),
    )
    .await??;
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

//! The crate-level error of `wasi:http` (Wasmtime 48's
//! `wasmtime_wasi_http::Error`): what goes wrong while a request or a
//! response travels between the guest and hyper. The error-code variants
//! mirror the cases of `wasi:http/types.error-code`; `Hyper`, `Connect`,
//! `Tls` and `InvalidDnsNameError` carry the host library's own error,
//! which the hooks (`WasiHttpHooks::p2_error_from_hyper` and the others)
//! turn into an error code when the guest is told.

use std::fmt;
use std::io;

/// An error of an HTTP exchange: a host library's error, or one of the
/// cases of `wasi:http/types.error-code`.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// hyper failed (parsing, a closed connection, ...).
    Hyper(hyper::Error),
    /// The connection could not be made.
    Connect(io::Error),
    /// The TLS handshake failed.
    Tls(io::Error),
    /// The host name is no valid DNS name.
    #[cfg(feature = "default-send-request")]
    InvalidDnsNameError(rustls_pki_types::InvalidDnsNameError),
    /// The request body had another size than announced.
    HttpRequestBodySize(Option<u64>),
    /// `DNS-timeout`.
    DnsTimeout,
    /// `DNS-error`.
    DnsError {
        /// The DNS response code.
        rcode: Option<String>,
        /// The extended DNS error code.
        info_code: Option<u16>,
    },
    /// `destination-not-found`.
    DestinationNotFound,
    /// `destination-unavailable`.
    DestinationUnavailable,
    /// `destination-IP-prohibited`.
    DestinationIpProhibited,
    /// `destination-IP-unroutable`.
    DestinationIpUnroutable,
    /// `connection-refused`.
    ConnectionRefused,
    /// `connection-terminated`.
    ConnectionTerminated,
    /// `connection-timeout`.
    ConnectionTimeout,
    /// `connection-read-timeout`.
    ConnectionReadTimeout,
    /// `connection-write-timeout`.
    ConnectionWriteTimeout,
    /// `connection-limit-reached`.
    ConnectionLimitReached,
    /// `TLS-protocol-error`.
    TlsProtocolError,
    /// `TLS-certificate-error`.
    TlsCertificateError,
    /// `TLS-alert-received`.
    TlsAlertReceived {
        /// The alert's id.
        alert_id: Option<u8>,
        /// The alert's message.
        alert_message: Option<String>,
    },
    /// `HTTP-request-denied`.
    HttpRequestDenied,
    /// `HTTP-request-length-required`.
    HttpRequestLengthRequired,
    /// `HTTP-request-method-invalid`.
    HttpRequestMethodInvalid,
    /// `HTTP-request-URI-invalid`.
    HttpRequestUriInvalid,
    /// `HTTP-request-URI-too-long`.
    HttpRequestUriTooLong,
    /// `HTTP-request-header-section-size`.
    HttpRequestHeaderSectionSize(Option<u32>),
    /// `HTTP-request-header-size`.
    HttpRequestHeaderSize {
        /// The field's name.
        field_name: Option<String>,
        /// The field's size.
        field_size: Option<u32>,
    },
    /// `HTTP-request-trailer-section-size`.
    HttpRequestTrailerSectionSize(Option<u32>),
    /// `HTTP-request-trailer-size`.
    HttpRequestTrailerSize {
        /// The field's name.
        field_name: Option<String>,
        /// The field's size.
        field_size: Option<u32>,
    },
    /// `HTTP-response-incomplete`.
    HttpResponseIncomplete,
    /// `HTTP-response-header-section-size`.
    HttpResponseHeaderSectionSize(Option<u32>),
    /// `HTTP-response-header-size`.
    HttpResponseHeaderSize {
        /// The field's name.
        field_name: Option<String>,
        /// The field's size.
        field_size: Option<u32>,
    },
    /// `HTTP-response-body-size`.
    HttpResponseBodySize(Option<u64>),
    /// `HTTP-response-trailer-section-size`.
    HttpResponseTrailerSectionSize(Option<u32>),
    /// `HTTP-response-trailer-size`.
    HttpResponseTrailerSize {
        /// The field's name.
        field_name: Option<String>,
        /// The field's size.
        field_size: Option<u32>,
    },
    /// `HTTP-response-transfer-coding`.
    HttpResponseTransferCoding(Option<String>),
    /// `HTTP-response-content-coding`.
    HttpResponseContentCoding(Option<String>),
    /// `HTTP-response-timeout`.
    HttpResponseTimeout,
    /// `HTTP-upgrade-failed`.
    HttpUpgradeFailed,
    /// `HTTP-protocol-error`.
    HttpProtocolError,
    /// `loop-detected`.
    LoopDetected,
    /// `configuration-error`.
    ConfigurationError,
    /// `internal-error`, with a message.
    InternalError(Option<String>),
}

/// A result whose error is [`Error`] by default.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<hyper::Error> for Error {
    fn from(err: hyper::Error) -> Error {
        Error::Hyper(err)
    }
}

impl From<std::convert::Infallible> for Error {
    fn from(never: std::convert::Infallible) -> Error {
        match never {}
    }
}

#[cfg(feature = "default-send-request")]
impl From<rustls_pki_types::InvalidDnsNameError> for Error {
    fn from(err: rustls_pki_types::InvalidDnsNameError) -> Error {
        Error::InvalidDnsNameError(err)
    }
}

fn opt<T: fmt::Display>(f: &mut fmt::Formatter<'_>, what: &str, v: &Option<T>) -> fmt::Result {
    match v {
        Some(v) => write!(f, "{what}: {v}"),
        None => f.write_str(what),
    }
}

fn field(f: &mut fmt::Formatter<'_>, what: &str, name: &Option<String>, size: &Option<u32>) -> fmt::Result {
    f.write_str(what)?;
    if let Some(name) = name {
        write!(f, ": field `{name}`")?;
    }
    if let Some(size) = size {
        write!(f, " ({size} bytes)")?;
    }
    Ok(())
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Hyper(e) => write!(f, "hyper error: {e}"),
            Error::Connect(e) => write!(f, "connection error: {e}"),
            Error::Tls(e) => write!(f, "TLS error: {e}"),
            #[cfg(feature = "default-send-request")]
            Error::InvalidDnsNameError(e) => write!(f, "invalid DNS name: {e}"),
            Error::HttpRequestBodySize(n) => opt(f, "HTTP request body of the wrong size, bytes written", n),
            Error::DnsTimeout => f.write_str("DNS lookup timed out"),
            Error::DnsError { rcode, info_code } => {
                f.write_str("DNS error")?;
                if let Some(rcode) = rcode {
                    write!(f, ": rcode {rcode}")?;
                }
                if let Some(code) = info_code {
                    write!(f, " (info code {code})")?;
                }
                Ok(())
            }
            Error::DestinationNotFound => f.write_str("destination not found"),
            Error::DestinationUnavailable => f.write_str("destination unavailable"),
            Error::DestinationIpProhibited => f.write_str("destination IP address prohibited"),
            Error::DestinationIpUnroutable => f.write_str("destination IP address unroutable"),
            Error::ConnectionRefused => f.write_str("connection refused"),
            Error::ConnectionTerminated => f.write_str("connection terminated"),
            Error::ConnectionTimeout => f.write_str("connection timed out"),
            Error::ConnectionReadTimeout => f.write_str("connection read timed out"),
            Error::ConnectionWriteTimeout => f.write_str("connection write timed out"),
            Error::ConnectionLimitReached => f.write_str("connection limit reached"),
            Error::TlsProtocolError => f.write_str("TLS protocol error"),
            Error::TlsCertificateError => f.write_str("TLS certificate error"),
            Error::TlsAlertReceived {
                alert_id,
                alert_message,
            } => {
                f.write_str("TLS alert received")?;
                if let Some(id) = alert_id {
                    write!(f, ": alert {id}")?;
                }
                if let Some(msg) = alert_message {
                    write!(f, ": {msg}")?;
                }
                Ok(())
            }
            Error::HttpRequestDenied => f.write_str("HTTP request denied"),
            Error::HttpRequestLengthRequired => f.write_str("HTTP request length required"),
            Error::HttpRequestMethodInvalid => f.write_str("invalid HTTP request method"),
            Error::HttpRequestUriInvalid => f.write_str("invalid HTTP request URI"),
            Error::HttpRequestUriTooLong => f.write_str("HTTP request URI too long"),
            Error::HttpRequestHeaderSectionSize(n) => opt(f, "HTTP request header section too large", n),
            Error::HttpRequestHeaderSize { field_name, field_size } => {
                field(f, "HTTP request header too large", field_name, field_size)
            }
            Error::HttpRequestTrailerSectionSize(n) => opt(f, "HTTP request trailer section too large", n),
            Error::HttpRequestTrailerSize { field_name, field_size } => {
                field(f, "HTTP request trailer too large", field_name, field_size)
            }
            Error::HttpResponseIncomplete => f.write_str("HTTP response incomplete"),
            Error::HttpResponseHeaderSectionSize(n) => opt(f, "HTTP response header section too large", n),
            Error::HttpResponseHeaderSize { field_name, field_size } => {
                field(f, "HTTP response header too large", field_name, field_size)
            }
            Error::HttpResponseBodySize(n) => opt(f, "HTTP response body of the wrong size, bytes written", n),
            Error::HttpResponseTrailerSectionSize(n) => opt(f, "HTTP response trailer section too large", n),
            Error::HttpResponseTrailerSize { field_name, field_size } => {
                field(f, "HTTP response trailer too large", field_name, field_size)
            }
            Error::HttpResponseTransferCoding(c) => opt(f, "HTTP response transfer coding error", c),
            Error::HttpResponseContentCoding(c) => opt(f, "HTTP response content coding error", c),
            Error::HttpResponseTimeout => f.write_str("HTTP response timed out"),
            Error::HttpUpgradeFailed => f.write_str("HTTP upgrade failed"),
            Error::HttpProtocolError => f.write_str("HTTP protocol error"),
            Error::LoopDetected => f.write_str("loop detected"),
            Error::ConfigurationError => f.write_str("configuration error"),
            Error::InternalError(m) => opt(f, "internal error", m),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Hyper(e) => Some(e),
            Error::Connect(e) | Error::Tls(e) => Some(e),
            _ => None,
        }
    }
}

impl Error {
    /// A copy of the error, for the second place that reports it (an
    /// incoming body's error reaches both its stream and its trailers).
    /// The host libraries' errors cannot be cloned: an I/O error keeps its
    /// kind and message, a hyper error becomes the error code it stands
    /// for, an invalid DNS name becomes `DNS-error`.
    pub(crate) fn clone_lossy(&self) -> Error {
        use Error as E;
        match self {
            E::Hyper(e) => hyper_error_kind(e),
            E::Connect(e) => E::Connect(io::Error::new(e.kind(), e.to_string())),
            E::Tls(e) => E::Tls(io::Error::new(e.kind(), e.to_string())),
            #[cfg(feature = "default-send-request")]
            E::InvalidDnsNameError(_) => E::DnsError {
                rcode: Some("invalid dns name".into()),
                info_code: None,
            },
            E::HttpRequestBodySize(n) => E::HttpRequestBodySize(*n),
            E::DnsTimeout => E::DnsTimeout,
            E::DnsError { rcode, info_code } => E::DnsError {
                rcode: rcode.clone(),
                info_code: *info_code,
            },
            E::DestinationNotFound => E::DestinationNotFound,
            E::DestinationUnavailable => E::DestinationUnavailable,
            E::DestinationIpProhibited => E::DestinationIpProhibited,
            E::DestinationIpUnroutable => E::DestinationIpUnroutable,
            E::ConnectionRefused => E::ConnectionRefused,
            E::ConnectionTerminated => E::ConnectionTerminated,
            E::ConnectionTimeout => E::ConnectionTimeout,
            E::ConnectionReadTimeout => E::ConnectionReadTimeout,
            E::ConnectionWriteTimeout => E::ConnectionWriteTimeout,
            E::ConnectionLimitReached => E::ConnectionLimitReached,
            E::TlsProtocolError => E::TlsProtocolError,
            E::TlsCertificateError => E::TlsCertificateError,
            E::TlsAlertReceived {
                alert_id,
                alert_message,
            } => E::TlsAlertReceived {
                alert_id: *alert_id,
                alert_message: alert_message.clone(),
            },
            E::HttpRequestDenied => E::HttpRequestDenied,
            E::HttpRequestLengthRequired => E::HttpRequestLengthRequired,
            E::HttpRequestMethodInvalid => E::HttpRequestMethodInvalid,
            E::HttpRequestUriInvalid => E::HttpRequestUriInvalid,
            E::HttpRequestUriTooLong => E::HttpRequestUriTooLong,
            E::HttpRequestHeaderSectionSize(n) => E::HttpRequestHeaderSectionSize(*n),
            E::HttpRequestHeaderSize { field_name, field_size } => E::HttpRequestHeaderSize {
                field_name: field_name.clone(),
                field_size: *field_size,
            },
            E::HttpRequestTrailerSectionSize(n) => E::HttpRequestTrailerSectionSize(*n),
            E::HttpRequestTrailerSize { field_name, field_size } => E::HttpRequestTrailerSize {
                field_name: field_name.clone(),
                field_size: *field_size,
            },
            E::HttpResponseIncomplete => E::HttpResponseIncomplete,
            E::HttpResponseHeaderSectionSize(n) => E::HttpResponseHeaderSectionSize(*n),
            E::HttpResponseHeaderSize { field_name, field_size } => E::HttpResponseHeaderSize {
                field_name: field_name.clone(),
                field_size: *field_size,
            },
            E::HttpResponseBodySize(n) => E::HttpResponseBodySize(*n),
            E::HttpResponseTrailerSectionSize(n) => E::HttpResponseTrailerSectionSize(*n),
            E::HttpResponseTrailerSize { field_name, field_size } => E::HttpResponseTrailerSize {
                field_name: field_name.clone(),
                field_size: *field_size,
            },
            E::HttpResponseTransferCoding(c) => E::HttpResponseTransferCoding(c.clone()),
            E::HttpResponseContentCoding(c) => E::HttpResponseContentCoding(c.clone()),
            E::HttpResponseTimeout => E::HttpResponseTimeout,
            E::HttpUpgradeFailed => E::HttpUpgradeFailed,
            E::HttpProtocolError => E::HttpProtocolError,
            E::LoopDetected => E::LoopDetected,
            E::ConfigurationError => E::ConfigurationError,
            E::InternalError(m) => E::InternalError(m.clone()),
        }
    }
}

/// The error-code variant a hyper error stands for: an [`Error`] carried
/// inside it (a body's error passed through hyper) comes back out;
/// a connection closed early is `connection-terminated`, a timeout
/// `HTTP-response-timeout`, a parse error `HTTP-protocol-error`, anything
/// else an internal error with hyper's message.
pub(crate) fn hyper_error_kind(err: &hyper::Error) -> Error {
    let mut source = std::error::Error::source(err);
    while let Some(e) = source {
        if let Some(inner) = e.downcast_ref::<Error>() {
            return inner.clone_lossy();
        }
        source = e.source();
    }
    if err.is_incomplete_message() || err.is_closed() || err.is_canceled() {
        return Error::ConnectionTerminated;
    }
    if err.is_timeout() {
        return Error::HttpResponseTimeout;
    }
    if err.is_parse() || err.is_parse_status() {
        return Error::HttpProtocolError;
    }
    Error::InternalError(Some(err.to_string()))
}

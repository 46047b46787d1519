//! The trappable errors of `wasi:http` and the error codes of hyper's and
//! http's errors.

use super::bindings::http::types::{DnsErrorPayload, ErrorCode, FieldSizePayload, TlsAlertReceivedPayload};
use crate::error::{hyper_error_kind, Error};
use weft_wasi::p2::TrappableError;

/// An `error-code` for the guest, or a trap.
pub type HttpError = TrappableError<ErrorCode>;
/// The result of a host function that may fail with an `error-code`.
pub type HttpResult<T, E = HttpError> = Result<T, E>;
/// A `header-error` for the guest, or a trap.
pub type HeaderError = TrappableError<super::bindings::http::types::HeaderError>;
/// The result of a host function that may fail with a `header-error`.
pub type HeaderResult<T, E = HeaderError> = Result<T, E>;

/// The `error-code` of an `http::Error` met while building a request.
pub fn http_request_error(err: http::Error) -> ErrorCode {
    if err.is::<http::uri::InvalidUri>() || err.is::<http::uri::InvalidUriParts>() {
        return ErrorCode::HttpRequestUriInvalid;
    }
    ErrorCode::InternalError(Some(err.to_string()))
}

/// The `error-code` of a `hyper::Error` met while sending a request.
pub fn hyper_request_error(err: hyper::Error) -> ErrorCode {
    hyper_error_code(&err)
}

/// The `error-code` of a `hyper::Error` met while receiving a response
/// (or an incoming request's body).
pub fn hyper_response_error(err: hyper::Error) -> ErrorCode {
    hyper_error_code(&err)
}

/// The `error-code` a hyper error stands for (the default of
/// [`crate::WasiHttpHooks::p2_error_from_hyper`]): a `wasi:http` error
/// carried inside it comes back out; a connection closed early is
/// `connection-terminated`, a timeout `HTTP-response-timeout`, a parse
/// error `HTTP-protocol-error`, anything else an internal error with
/// hyper's message.
pub(crate) fn hyper_error_code(err: &hyper::Error) -> ErrorCode {
    let mut source = std::error::Error::source(err);
    while let Some(e) = source {
        if let Some(code) = e.downcast_ref::<ErrorCode>() {
            return code.clone();
        }
        source = e.source();
    }
    plain_code(hyper_error_kind(err))
}

/// The `error-code` of `err` with the hooks' defaults.
pub(crate) fn plain_code(err: Error) -> ErrorCode {
    use ErrorCode as C;
    match err {
        Error::Hyper(e) => hyper_error_code(&e),
        Error::Connect(_) => C::ConnectionRefused,
        Error::Tls(_) => C::TlsProtocolError,
        #[cfg(feature = "default-send-request")]
        Error::InvalidDnsNameError(_) => invalid_dns_name(),
        Error::HttpRequestBodySize(n) => C::HttpRequestBodySize(n),
        Error::DnsTimeout => C::DnsTimeout,
        Error::DnsError { rcode, info_code } => C::DnsError(DnsErrorPayload { rcode, info_code }),
        Error::DestinationNotFound => C::DestinationNotFound,
        Error::DestinationUnavailable => C::DestinationUnavailable,
        Error::DestinationIpProhibited => C::DestinationIpProhibited,
        Error::DestinationIpUnroutable => C::DestinationIpUnroutable,
        Error::ConnectionRefused => C::ConnectionRefused,
        Error::ConnectionTerminated => C::ConnectionTerminated,
        Error::ConnectionTimeout => C::ConnectionTimeout,
        Error::ConnectionReadTimeout => C::ConnectionReadTimeout,
        Error::ConnectionWriteTimeout => C::ConnectionWriteTimeout,
        Error::ConnectionLimitReached => C::ConnectionLimitReached,
        Error::TlsProtocolError => C::TlsProtocolError,
        Error::TlsCertificateError => C::TlsCertificateError,
        Error::TlsAlertReceived {
            alert_id,
            alert_message,
        } => C::TlsAlertReceived(TlsAlertReceivedPayload {
            alert_id,
            alert_message,
        }),
        Error::HttpRequestDenied => C::HttpRequestDenied,
        Error::HttpRequestLengthRequired => C::HttpRequestLengthRequired,
        Error::HttpRequestMethodInvalid => C::HttpRequestMethodInvalid,
        Error::HttpRequestUriInvalid => C::HttpRequestUriInvalid,
        Error::HttpRequestUriTooLong => C::HttpRequestUriTooLong,
        Error::HttpRequestHeaderSectionSize(n) => C::HttpRequestHeaderSectionSize(n),
        Error::HttpRequestHeaderSize { field_name, field_size } => {
            C::HttpRequestHeaderSize(Some(FieldSizePayload { field_name, field_size }))
        }
        Error::HttpRequestTrailerSectionSize(n) => C::HttpRequestTrailerSectionSize(n),
        Error::HttpRequestTrailerSize { field_name, field_size } => {
            C::HttpRequestTrailerSize(FieldSizePayload { field_name, field_size })
        }
        Error::HttpResponseIncomplete => C::HttpResponseIncomplete,
        Error::HttpResponseHeaderSectionSize(n) => C::HttpResponseHeaderSectionSize(n),
        Error::HttpResponseHeaderSize { field_name, field_size } => {
            C::HttpResponseHeaderSize(FieldSizePayload { field_name, field_size })
        }
        Error::HttpResponseBodySize(n) => C::HttpResponseBodySize(n),
        Error::HttpResponseTrailerSectionSize(n) => C::HttpResponseTrailerSectionSize(n),
        Error::HttpResponseTrailerSize { field_name, field_size } => {
            C::HttpResponseTrailerSize(FieldSizePayload { field_name, field_size })
        }
        Error::HttpResponseTransferCoding(c) => C::HttpResponseTransferCoding(c),
        Error::HttpResponseContentCoding(c) => C::HttpResponseContentCoding(c),
        Error::HttpResponseTimeout => C::HttpResponseTimeout,
        Error::HttpUpgradeFailed => C::HttpUpgradeFailed,
        Error::HttpProtocolError => C::HttpProtocolError,
        Error::LoopDetected => C::LoopDetected,
        Error::ConfigurationError => C::ConfigurationError,
        Error::InternalError(m) => C::InternalError(m),
    }
}

/// `DNS-error` with rcode "invalid dns name" (the default of
/// [`crate::WasiHttpHooks::p2_error_from_dns`]).
#[cfg(feature = "default-send-request")]
pub(crate) fn invalid_dns_name() -> ErrorCode {
    ErrorCode::DnsError(DnsErrorPayload {
        rcode: Some("invalid dns name".into()),
        info_code: None,
    })
}

impl From<ErrorCode> for Error {
    fn from(code: ErrorCode) -> Error {
        use ErrorCode as C;
        let size = |p: FieldSizePayload| (p.field_name, p.field_size);
        match code {
            C::DnsTimeout => Error::DnsTimeout,
            C::DnsError(p) => Error::DnsError {
                rcode: p.rcode,
                info_code: p.info_code,
            },
            C::DestinationNotFound => Error::DestinationNotFound,
            C::DestinationUnavailable => Error::DestinationUnavailable,
            C::DestinationIpProhibited => Error::DestinationIpProhibited,
            C::DestinationIpUnroutable => Error::DestinationIpUnroutable,
            C::ConnectionRefused => Error::ConnectionRefused,
            C::ConnectionTerminated => Error::ConnectionTerminated,
            C::ConnectionTimeout => Error::ConnectionTimeout,
            C::ConnectionReadTimeout => Error::ConnectionReadTimeout,
            C::ConnectionWriteTimeout => Error::ConnectionWriteTimeout,
            C::ConnectionLimitReached => Error::ConnectionLimitReached,
            C::TlsProtocolError => Error::TlsProtocolError,
            C::TlsCertificateError => Error::TlsCertificateError,
            C::TlsAlertReceived(p) => Error::TlsAlertReceived {
                alert_id: p.alert_id,
                alert_message: p.alert_message,
            },
            C::HttpRequestDenied => Error::HttpRequestDenied,
            C::HttpRequestLengthRequired => Error::HttpRequestLengthRequired,
            C::HttpRequestBodySize(n) => Error::HttpRequestBodySize(n),
            C::HttpRequestMethodInvalid => Error::HttpRequestMethodInvalid,
            C::HttpRequestUriInvalid => Error::HttpRequestUriInvalid,
            C::HttpRequestUriTooLong => Error::HttpRequestUriTooLong,
            C::HttpRequestHeaderSectionSize(n) => Error::HttpRequestHeaderSectionSize(n),
            C::HttpRequestHeaderSize(p) => {
                let (field_name, field_size) = p.map(size).unwrap_or((None, None));
                Error::HttpRequestHeaderSize { field_name, field_size }
            }
            C::HttpRequestTrailerSectionSize(n) => Error::HttpRequestTrailerSectionSize(n),
            C::HttpRequestTrailerSize(p) => {
                let (field_name, field_size) = size(p);
                Error::HttpRequestTrailerSize { field_name, field_size }
            }
            C::HttpResponseIncomplete => Error::HttpResponseIncomplete,
            C::HttpResponseHeaderSectionSize(n) => Error::HttpResponseHeaderSectionSize(n),
            C::HttpResponseHeaderSize(p) => {
                let (field_name, field_size) = size(p);
                Error::HttpResponseHeaderSize { field_name, field_size }
            }
            C::HttpResponseBodySize(n) => Error::HttpResponseBodySize(n),
            C::HttpResponseTrailerSectionSize(n) => Error::HttpResponseTrailerSectionSize(n),
            C::HttpResponseTrailerSize(p) => {
                let (field_name, field_size) = size(p);
                Error::HttpResponseTrailerSize { field_name, field_size }
            }
            C::HttpResponseTransferCoding(c) => Error::HttpResponseTransferCoding(c),
            C::HttpResponseContentCoding(c) => Error::HttpResponseContentCoding(c),
            C::HttpResponseTimeout => Error::HttpResponseTimeout,
            C::HttpUpgradeFailed => Error::HttpUpgradeFailed,
            C::HttpProtocolError => Error::HttpProtocolError,
            C::LoopDetected => Error::LoopDetected,
            C::ConfigurationError => Error::ConfigurationError,
            C::InternalError(m) => Error::InternalError(m),
        }
    }
}

//! `error-code` of `wasi:http` 0.3, and its conversions from and to 0.2's
//! (the two WIT variants have the same cases), so the hooks of 0.2
//! (`WasiHttpHooks::send_request`) serve 0.3 as well.

use super::bindings::http::types::{self, ErrorCode};
use crate::p2::bindings::http::types as p2;
use weft_wasi::p2::TrappableError;

/// An `error-code` for the guest, or a trap (Wasmtime's
/// `p3::HttpError`).
pub type HttpError = TrappableError<ErrorCode>;
/// The result of a host function that may fail with an `error-code`, or
/// trap.
pub type HttpResult<T, E = HttpError> = Result<T, E>;
/// A `header-error` for the guest, or a trap.
pub type HeaderError = TrappableError<types::HeaderError>;
/// The result of a host function that may fail with a `header-error`, or
/// trap.
pub type HeaderResult<T, E = HeaderError> = Result<T, E>;
/// A `request-options-error` for the guest, or a trap.
pub type RequestOptionsError = TrappableError<types::RequestOptionsError>;
/// The result of a host function that may fail with a
/// `request-options-error`, or trap.
pub type RequestOptionsResult<T, E = RequestOptionsError> = Result<T, E>;

macro_rules! convert {
    ($from:ident, $to:ident, $code:expr, $dns:ident, $tls:ident, $field:ident) => {{
        let field = |p: $from::FieldSizePayload| $to::$field {
            field_name: p.field_name,
            field_size: p.field_size,
        };
        use $from::ErrorCode as F;
        use $to::ErrorCode as T;
        match $code {
            F::DnsTimeout => T::DnsTimeout,
            F::DnsError(p) => T::DnsError($to::$dns {
                rcode: p.rcode,
                info_code: p.info_code,
            }),
            F::DestinationNotFound => T::DestinationNotFound,
            F::DestinationUnavailable => T::DestinationUnavailable,
            F::DestinationIpProhibited => T::DestinationIpProhibited,
            F::DestinationIpUnroutable => T::DestinationIpUnroutable,
            F::ConnectionRefused => T::ConnectionRefused,
            F::ConnectionTerminated => T::ConnectionTerminated,
            F::ConnectionTimeout => T::ConnectionTimeout,
            F::ConnectionReadTimeout => T::ConnectionReadTimeout,
            F::ConnectionWriteTimeout => T::ConnectionWriteTimeout,
            F::ConnectionLimitReached => T::ConnectionLimitReached,
            F::TlsProtocolError => T::TlsProtocolError,
            F::TlsCertificateError => T::TlsCertificateError,
            F::TlsAlertReceived(p) => T::TlsAlertReceived($to::$tls {
                alert_id: p.alert_id,
                alert_message: p.alert_message,
            }),
            F::HttpRequestDenied => T::HttpRequestDenied,
            F::HttpRequestLengthRequired => T::HttpRequestLengthRequired,
            F::HttpRequestBodySize(n) => T::HttpRequestBodySize(n),
            F::HttpRequestMethodInvalid => T::HttpRequestMethodInvalid,
            F::HttpRequestUriInvalid => T::HttpRequestUriInvalid,
            F::HttpRequestUriTooLong => T::HttpRequestUriTooLong,
            F::HttpRequestHeaderSectionSize(n) => T::HttpRequestHeaderSectionSize(n),
            F::HttpRequestHeaderSize(p) => T::HttpRequestHeaderSize(p.map(field)),
            F::HttpRequestTrailerSectionSize(n) => T::HttpRequestTrailerSectionSize(n),
            F::HttpRequestTrailerSize(p) => T::HttpRequestTrailerSize(field(p)),
            F::HttpResponseIncomplete => T::HttpResponseIncomplete,
            F::HttpResponseHeaderSectionSize(n) => T::HttpResponseHeaderSectionSize(n),
            F::HttpResponseHeaderSize(p) => T::HttpResponseHeaderSize(field(p)),
            F::HttpResponseBodySize(n) => T::HttpResponseBodySize(n),
            F::HttpResponseTrailerSectionSize(n) => T::HttpResponseTrailerSectionSize(n),
            F::HttpResponseTrailerSize(p) => T::HttpResponseTrailerSize(field(p)),
            F::HttpResponseTransferCoding(s) => T::HttpResponseTransferCoding(s),
            F::HttpResponseContentCoding(s) => T::HttpResponseContentCoding(s),
            F::HttpResponseTimeout => T::HttpResponseTimeout,
            F::HttpUpgradeFailed => T::HttpUpgradeFailed,
            F::HttpProtocolError => T::HttpProtocolError,
            F::LoopDetected => T::LoopDetected,
            F::ConfigurationError => T::ConfigurationError,
            F::InternalError(s) => T::InternalError(s),
        }
    }};
}

mod p3 {
    pub(super) use super::super::bindings::http::types::{
        DnsErrorPayload, ErrorCode, FieldSizePayload, TlsAlertReceivedPayload,
    };
}

/// The 0.3 `error-code` of a 0.2 one.
pub fn from_p2(code: p2::ErrorCode) -> ErrorCode {
    convert!(p2, p3, code, DnsErrorPayload, TlsAlertReceivedPayload, FieldSizePayload)
}

/// The 0.2 `error-code` of a 0.3 one.
pub fn to_p2(code: ErrorCode) -> p2::ErrorCode {
    convert!(p3, p2, code, DnsErrorPayload, TlsAlertReceivedPayload, FieldSizePayload)
}

/// The `error-code` of a `hyper::Error` met while receiving a request or
/// response body.
pub fn hyper_response_error(err: hyper::Error) -> ErrorCode {
    from_p2(crate::p2::hyper_response_error(err))
}

/// The `error-code` of a `hyper::Error` met while sending a request.
pub fn hyper_request_error(err: hyper::Error) -> ErrorCode {
    from_p2(crate::p2::hyper_request_error(err))
}

impl From<ErrorCode> for crate::Error {
    fn from(code: ErrorCode) -> crate::Error {
        crate::Error::from(to_p2(code))
    }
}

/// The 0.3 `error-code` of `err` with the hooks' defaults.
pub(crate) fn plain_code(err: crate::Error) -> ErrorCode {
    from_p2(crate::p2::error::plain_code(err))
}

//! The trappable errors of `wasi:http` and the error codes of hyper's and
//! http's errors.

use super::bindings::http::types::ErrorCode;
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
    hyper_error(&err)
}

/// The `error-code` of a `hyper::Error` met while receiving a response
/// (or an incoming request's body).
pub fn hyper_response_error(err: hyper::Error) -> ErrorCode {
    if err.is_timeout() {
        return ErrorCode::HttpResponseTimeout;
    }
    hyper_error(&err)
}

fn hyper_error(err: &hyper::Error) -> ErrorCode {
    if let Some(code) = std::error::Error::source(err).and_then(|e| e.downcast_ref::<ErrorCode>()) {
        return code.clone();
    }
    if err.is_incomplete_message() || err.is_closed() {
        return ErrorCode::ConnectionTerminated;
    }
    if err.is_parse() {
        return ErrorCode::HttpProtocolError;
    }
    ErrorCode::InternalError(Some(err.to_string()))
}

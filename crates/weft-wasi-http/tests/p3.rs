//! wasi:http 0.3: service components written in WAT on the async ABI (see
//! `p3_guest`) called through `p3::Service::handle` inside
//! `Store::run_concurrent`, with requests made by `Request::from_http` and
//! responses read back through `Response::into_http_reporting`.

#![cfg(feature = "p3")]

#[allow(dead_code, reason = "each test binary uses a part of the guests")]
mod p3_guest;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use p3_guest::{service, Mode, FIXED_BODY};
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use weft::component::{Component, Linker, ResourceTable};
use weft::{Engine, Store};
use weft_wasi::p3::{WasiCtx, WasiCtxView, WasiView};
use weft_wasi_http::p3::{ErrorCode, Service};
use weft_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

struct State {
    wasi: WasiCtx,
    http: WasiHttpCtx,
    table: ResourceTable,
}

impl WasiView for State {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl WasiHttpView for State {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        WasiHttpCtxView {
            ctx: &mut self.http,
            table: &mut self.table,
            hooks: Default::default(),
        }
    }
}

/// Runs `future` on this thread, parking between polls.
fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park_timeout(std::time::Duration::from_millis(50));
    }
}

/// The answer of a guest: its status, headers, body and trailers.
struct Answer {
    status: http::StatusCode,
    headers: http::HeaderMap,
    body: Bytes,
    trailers: Option<http::HeaderMap>,
}

/// Calls the guest `mode` with `request`: the guest's answer, its error
/// code, or the error (a trap) that ended the call.
fn call(mode: Mode, request: http::Request<Full<Bytes>>) -> weft::Result<Result<Answer, ErrorCode>> {
    let engine = Engine::default();
    let component = Component::new(&engine, wat::parse_str(service(mode, "example.com"))?)?;
    let mut linker = Linker::<State>::new(&engine);
    weft_wasi::p3::add_to_linker(&mut linker)?;
    weft_wasi_http::p3::add_to_linker(&mut linker)?;
    let mut store = Store::new(
        &engine,
        State {
            wasi: WasiCtx::builder().build(),
            http: WasiHttpCtx::new(),
            table: ResourceTable::new(),
        },
    );
    block_on(async {
        let service = Service::instantiate_async(&mut store, &component, &linker).await?;
        store
            .run_concurrent(async move |store| -> weft::Result<Result<Answer, ErrorCode>> {
                let response = match service.handle(store, request).await? {
                    Ok(r) => r,
                    Err(code) => return Ok(Err(code)),
                };
                let response = store.with(|access| response.into_http_reporting(access))?;
                let (parts, body) = response.into_parts();
                let collected = body
                    .collect()
                    .await
                    .map_err(|code| weft::Error::msg(format!("the body failed: {code:?}")))?;
                let trailers = collected.trailers().cloned();
                Ok(Ok(Answer {
                    status: parts.status,
                    headers: parts.headers,
                    body: collected.to_bytes(),
                    trailers,
                }))
            })
            .await?
    })
}

fn get(body: &'static str) -> http::Request<Full<Bytes>> {
    http::Request::post("http://localhost/p3?x=1")
        .header("x-request", "yes")
        .body(Full::new(Bytes::from_static(body.as_bytes())))
        .unwrap()
}

#[test]
fn fixed_status_headers_and_streamed_body() {
    let answer = call(Mode::Fixed, get("")).unwrap().unwrap();
    assert_eq!(answer.status, 201);
    assert_eq!(answer.headers.get("content-type").unwrap(), "text/plain");
    assert_eq!(answer.headers.get("x-weft").unwrap(), "p3");
    assert_eq!(answer.body, FIXED_BODY.as_bytes());
    assert!(answer.trailers.is_none());
}

#[test]
fn trailers_written_to_the_future_reach_the_http_body() {
    let answer = call(Mode::Trailers, get("")).unwrap().unwrap();
    assert_eq!(answer.status, 201);
    assert_eq!(answer.body, FIXED_BODY.as_bytes());
    let trailers = answer.trailers.expect("the trailers");
    assert_eq!(trailers.get("x-trailer").unwrap(), "done");
}

#[test]
fn a_body_longer_than_its_content_length_fails() {
    let err = match call(Mode::WrongLength, get("")) {
        Err(err) => err,
        Ok(Ok(answer)) => panic!("the body was read whole: {:?}", answer.body),
        Ok(Err(code)) => panic!("the guest answered {code:?}"),
    };
    assert!(format!("{err}").contains("HttpResponseBodySize(Some(33))"), "{err}");
}

#[test]
fn echoes_the_request_body_read_through_consume_body() {
    let body: &'static str = Box::leak((0..3000).map(|i| format!("{i} ")).collect::<String>().into_boxed_str());
    assert!(body.len() > 4096 * 2, "the body spans several reads");
    let answer = call(Mode::Echo, get(body)).unwrap().unwrap();
    assert_eq!(answer.status, 200);
    assert_eq!(answer.body, body.as_bytes());
}

#[test]
fn client_send_is_refused_by_default() {
    let answer = call(Mode::Send, get("")).unwrap().unwrap();
    assert_eq!(answer.status, 403, "body: {:?}", answer.body);
    assert_eq!(answer.body, "denied\n");
}

#[test]
fn forbidden_and_immutable_headers_are_refused() {
    let answer = call(Mode::Headers, get("")).unwrap().unwrap();
    assert_eq!(answer.status, 200, "500/501: not forbidden; 502/503: not immutable");
    assert_eq!(answer.body, FIXED_BODY.as_bytes());
}

#[test]
fn a_trap_in_the_handler_is_an_error() {
    let err = match call(Mode::Trap, get("")) {
        Err(err) => err,
        Ok(_) => panic!("the trapping guest answered"),
    };
    assert!(err.downcast_ref::<weft::Trap>().is_some(), "not a trap: {err:?}");
}

/// `Request::from_http` and `Response::from_http` take what an `http`
/// message says (headers the hooks forbid taken off), and `into_http`
/// gives it back, body included, with no guest involved.
#[test]
fn requests_and_responses_convert_from_and_to_http() {
    use weft_wasi_http::p3::{Request, Response};
    let engine = Engine::default();
    let mut store = Store::new(
        &engine,
        State {
            wasi: WasiCtx::builder().build(),
            http: WasiHttpCtx::new(),
            table: ResourceTable::new(),
        },
    );
    let req = http::Request::put("http://example.com:8080/a?b=c")
        .header("x-a", "1")
        .header("connection", "close")
        .body(Full::new(Bytes::from_static(b"request body")))
        .unwrap();
    let (req, _handled) = Request::from_http(weft_wasi_http::default_hooks(), req);
    assert_eq!(req.method, http::Method::PUT);
    assert_eq!(req.scheme, Some(http::uri::Scheme::HTTP));
    assert_eq!(req.authority.as_ref().unwrap().as_str(), "example.com:8080");
    assert_eq!(req.path_with_query.as_ref().unwrap().as_str(), "/a?b=c");
    assert_eq!(req.headers.as_header_map().get("x-a").unwrap(), "1");
    assert!(
        req.headers.as_header_map().get("connection").is_none(),
        "a forbidden header stays"
    );
    assert!(!req.headers.is_mutable());
    let (back, options) = req.into_http(&mut store, async { Ok(()) }).unwrap().unwrap();
    assert!(options.is_none());
    assert_eq!(back.method(), http::Method::PUT);
    assert_eq!(back.uri(), "http://example.com:8080/a?b=c");
    assert_eq!(back.headers().get("x-a").unwrap(), "1");
    let body = block_on(back.into_body().collect()).unwrap().to_bytes();
    assert_eq!(body, "request body");

    let res = http::Response::builder()
        .status(404)
        .header("x-b", "2")
        .header("transfer-encoding", "chunked")
        .body(Full::new(Bytes::from_static(b"not here")))
        .unwrap();
    let (res, _handled) = Response::from_http(weft_wasi_http::default_hooks(), res);
    assert_eq!(res.status, 404);
    assert!(res.headers.as_header_map().get("transfer-encoding").is_none());
    let back = res.into_http(&mut store, async { Ok(()) }).unwrap();
    assert_eq!(back.status(), 404);
    assert_eq!(back.headers().get("x-b").unwrap(), "2");
    let body = block_on(back.into_body().collect()).unwrap().to_bytes();
    assert_eq!(body, "not here");
}

/// The error codes of 0.2 and 0.3 convert into each other, payloads
/// included.
#[test]
fn error_codes_convert_between_p2_and_p3() {
    use weft_wasi_http::p2::bindings::http::types as p2;
    use weft_wasi_http::p3::{from_p2, to_p2};
    let codes = [
        p2::ErrorCode::HttpRequestDenied,
        p2::ErrorCode::DnsError(p2::DnsErrorPayload {
            rcode: Some("nx".into()),
            info_code: Some(3),
        }),
        p2::ErrorCode::HttpResponseTrailerSize(p2::FieldSizePayload {
            field_name: Some("x".into()),
            field_size: Some(9),
        }),
        p2::ErrorCode::InternalError(Some("why".into())),
    ];
    for code in codes {
        let p3 = from_p2(code.clone());
        assert_eq!(format!("{p3:?}"), format!("{code:?}"));
        assert_eq!(format!("{:?}", to_p2(p3)), format!("{code:?}"));
    }
    assert!(matches!(
        from_p2(p2::ErrorCode::HttpRequestDenied),
        ErrorCode::HttpRequestDenied
    ));
}

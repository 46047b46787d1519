//! The `wasi:http/proxy` world in process: proxy components written in WAT
//! (see `common`) handle requests made on the host through
//! `new_incoming_request`/`new_response_outparam`, with `ProxyPre` and
//! the synchronous and async bindings.

#![allow(
    clippy::type_complexity,
    reason = "the hooks' send_request has Wasmtime 48's signature, spelled out"
)]

#[allow(dead_code, reason = "each test binary uses a part of the guests")]
use crate::common;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use std::future::Future;
use weft::component::{Component, Linker, ResourceTable};
use weft::{Engine, Store};
use weft_wasi::p2::{WasiCtx, WasiCtxView, WasiView};
use weft_wasi_http::p2::bindings::http::types::{ErrorCode, Scheme};
use weft_wasi_http::p2::bindings::sync::ProxyPre;
use weft_wasi_http::{RequestOptions, WasiBody, WasiHttpCtx, WasiHttpCtxView, WasiHttpHooks, WasiHttpView};

/// The URI and `host` header of a request given to `send_request`.
type Sent = (String, Option<String>);

/// Hooks that answer every outgoing request with 200 and no body (and
/// record its URI and `host` header), with the scheme and host-header
/// decisions of the test.
struct AllowAll {
    seen: std::sync::Arc<std::sync::Mutex<Vec<Sent>>>,
    default_scheme: Option<http::uri::Scheme>,
    https_supported: bool,
    set_host: bool,
}

impl AllowAll {
    fn new() -> AllowAll {
        AllowAll {
            seen: Default::default(),
            default_scheme: Some(http::uri::Scheme::HTTPS),
            https_supported: true,
            set_host: true,
        }
    }
}

impl WasiHttpHooks for AllowAll {
    fn default_scheme(&mut self) -> Option<http::uri::Scheme> {
        self.default_scheme.clone()
    }
    fn is_supported_scheme(&mut self, scheme: &http::uri::Scheme) -> bool {
        *scheme == http::uri::Scheme::HTTP || (self.https_supported && *scheme == http::uri::Scheme::HTTPS)
    }
    fn set_host_header(&mut self) -> bool {
        self.set_host
    }
    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        _options: Option<RequestOptions>,
        _fut: Box<dyn Future<Output = weft_wasi_http::Result<()>> + Send>,
    ) -> Box<
        dyn Future<
                Output = weft_wasi_http::Result<(
                    http::Response<WasiBody>,
                    Box<dyn Future<Output = weft_wasi_http::Result<()>> + Send>,
                )>,
            > + Send,
    > {
        let host = request
            .headers()
            .get(http::header::HOST)
            .map(|h| h.to_str().unwrap().to_string());
        self.seen.lock().unwrap().push((request.uri().to_string(), host));
        let body = http_body_util::Empty::<Bytes>::new()
            .map_err(|never| match never {})
            .boxed_unsync();
        let io: Box<dyn Future<Output = weft_wasi_http::Result<()>> + Send> = Box::new(std::future::ready(Ok(())));
        Box::new(std::future::ready(Ok((http::Response::new(body), io))))
    }
}

/// The hooks of a test that sends nothing: outgoing requests are refused
/// (`refuse_request`), and an outgoing body buffers `buffer_chunks`
/// writes of at most `chunk_size` bytes (the tests read a response body
/// after the guest has returned: its writes must all fit in the buffer).
struct Refuse {
    buffer_chunks: usize,
    chunk_size: usize,
}

impl WasiHttpHooks for Refuse {
    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        fut: Box<dyn Future<Output = weft_wasi_http::Result<()>> + Send>,
    ) -> Box<
        dyn Future<
                Output = weft_wasi_http::Result<(
                    http::Response<WasiBody>,
                    Box<dyn Future<Output = weft_wasi_http::Result<()>> + Send>,
                )>,
            > + Send,
    > {
        weft_wasi_http::refuse_request(request, options, fut)
    }
    fn p2_outgoing_body_buffer_chunks(&mut self) -> usize {
        self.buffer_chunks
    }
    fn p2_outgoing_body_chunk_size(&mut self) -> usize {
        self.chunk_size
    }
}

struct State {
    wasi: WasiCtx,
    http: WasiHttpCtx,
    table: ResourceTable,
    allow: bool,
    allow_all: AllowAll,
    refuse: Refuse,
}

impl State {
    fn new() -> State {
        State {
            wasi: WasiCtx::builder().build(),
            http: WasiHttpCtx::new(),
            table: ResourceTable::new(),
            allow: false,
            allow_all: AllowAll::new(),
            refuse: Refuse {
                buffer_chunks: 64,
                chunk_size: weft_wasi_http::p2::DEFAULT_OUTGOING_BODY_CHUNK_SIZE,
            },
        }
    }
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
            hooks: if self.allow {
                &mut self.allow_all
            } else {
                &mut self.refuse
            },
        }
    }
}

fn pre(engine: &Engine, version: &str, guest: &str) -> weft::Result<ProxyPre<State>> {
    let component = Component::new(engine, wat::parse_str(common::proxy(version, guest))?)?;
    let mut linker = Linker::<State>::new(engine);
    weft_wasi_http::p2::add_to_linker_sync(&mut linker)?;
    ProxyPre::new(linker.instantiate_pre(&component)?)
}

/// What a handled request gave: the call's result, then the response
/// (status, headers, body) if the guest set one.
type Handled = (
    weft::Result<()>,
    Option<Result<(http::StatusCode, http::HeaderMap, Vec<u8>), ErrorCode>>,
);

fn handle(pre: &ProxyPre<State>, state: State, req: http::Request<Full<Bytes>>) -> weft::Result<Handled> {
    let mut store = Store::new(pre.engine(), state);
    let (tx, rx) = tokio::sync::oneshot::channel();
    let req = store.data_mut().http().new_incoming_request(Scheme::Http, req)?;
    let out = store.data_mut().http().new_response_outparam(tx)?;
    let proxy = pre.instantiate(&mut store)?;
    let result = proxy.wasi_http_incoming_handler().call_handle(&mut store, req, out);
    // A guest that did not answer leaves the outparam (and its sender) in
    // the store's table.
    drop(store);
    let rt = tokio::runtime::Builder::new_current_thread().build()?;
    let response = match rx.blocking_recv() {
        Err(_) => None,
        Ok(Err(code)) => Some(Err(code)),
        Ok(Ok(resp)) => {
            let (parts, body) = resp.into_parts();
            let body = rt.block_on(body.collect()).map_err(|e| anyhow::anyhow!("body: {e}"))?;
            Some(Ok((parts.status, parts.headers, body.to_bytes().to_vec())))
        }
    };
    Ok((result, response))
}

fn get(uri: &str) -> http::Request<Full<Bytes>> {
    http::Request::get(uri).body(Full::new(Bytes::new())).unwrap()
}

#[test]
fn a_fixed_answer() -> weft::Result<()> {
    let engine = Engine::default();
    let pre = pre(&engine, "0.2.12", common::FIXED)?;
    for _ in 0..3 {
        let (result, response) = handle(&pre, State::new(), get("http://localhost/"))?;
        result?;
        let (status, headers, body) = response.expect("a response").expect("no error code");
        assert_eq!(status, 200);
        assert_eq!(headers["content-type"], "text/plain");
        assert_eq!(body, common::FIXED_BODY.as_bytes());
    }
    Ok(())
}

#[test]
fn the_echo_gives_back_headers_path_and_body() -> weft::Result<()> {
    let engine = Engine::default();
    // Imports of an older patch release link to the 0.2.12 definitions.
    let pre = pre(&engine, "0.2.3", common::ECHO)?;
    let body: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    let req = http::Request::post("http://example.org/some/path?q=1")
        .header("x-custom", "a")
        .header("x-custom", "b")
        .header("content-length", body.len().to_string())
        // Forbidden headers never reach the guest.
        .header("connection", "keep-alive")
        .body(Full::new(Bytes::from(body.clone())))?;
    let (result, response) = handle(&pre, State::new(), req)?;
    result?;
    let (status, headers, got) = response.expect("a response").expect("no error code");
    assert_eq!(status, 200);
    let custom: Vec<_> = headers.get_all("x-custom").iter().collect();
    assert_eq!(custom, ["a", "b"]);
    assert_eq!(headers["x-path"], "/some/path?q=1");
    assert_eq!(headers["content-length"], body.len().to_string());
    assert!(headers.get("connection").is_none());
    assert_eq!(got, body);
    Ok(())
}

#[test]
fn a_trap_is_the_calls_error_and_no_response() -> weft::Result<()> {
    let engine = Engine::default();
    let pre = pre(&engine, "0.2.12", common::TRAP)?;
    let (result, response) = handle(&pre, State::new(), get("http://localhost/"))?;
    let err = result.expect_err("the guest traps");
    assert!(format!("{err:?}").contains("unreachable"), "{err:?}");
    assert!(response.is_none());
    Ok(())
}

#[test]
fn an_error_code_answer_reaches_the_host() -> weft::Result<()> {
    let engine = Engine::default();
    let pre = pre(&engine, "0.2.12", common::ERROR_CODE_ANSWER)?;
    let (result, response) = handle(&pre, State::new(), get("http://localhost/"))?;
    result?;
    match response {
        Some(Err(ErrorCode::InternalError(None))) => Ok(()),
        other => panic!(
            "expected internal-error(none), got {:?}",
            other.map(|r| r.map(|(s, _, _)| s))
        ),
    }
}

#[test]
fn outgoing_requests_are_denied_by_refuse_request_and_sent_when_allowed() -> weft::Result<()> {
    let engine = Engine::default();
    let pre = pre(&engine, "0.2.12", common::OUTGOING)?;
    let (result, response) = handle(&pre, State::new(), get("http://localhost/"))?;
    result?;
    let (status, _, body) = response.expect("a response").expect("no error code");
    assert_eq!((status.as_u16(), &body[..]), (403, &b"denied\n"[..]));

    let mut state = State::new();
    state.allow = true;
    let seen = state.allow_all.seen.clone();
    let (result, response) = handle(&pre, state, get("http://localhost/"))?;
    result?;
    let (status, _, body) = response.expect("a response").expect("no error code");
    assert_eq!((status.as_u16(), &body[..]), (200, &b"sent\n"[..]));
    assert_eq!(
        seen.lock().unwrap().pop(),
        Some(("https://example.com/".to_string(), Some("example.com".to_string())))
    );
    Ok(())
}

/// `outgoing-handler.handle` asks the hooks: a request without a scheme
/// gets `default_scheme` (none: `HTTP-protocol-error`), a scheme
/// `is_supported_scheme` refuses is `HTTP-protocol-error`, and `host` is
/// set from the authority only when `set_host_header` says so.
#[test]
fn outgoing_requests_use_the_scheme_and_host_hooks() -> weft::Result<()> {
    let engine = Engine::default();
    let pre = pre(&engine, "0.2.12", common::OUTGOING)?;
    // The guest's answer, and what `send_request` saw.
    let send = |configure: &dyn Fn(&mut AllowAll)| -> weft::Result<(u16, Option<Sent>)> {
        let mut state = State::new();
        state.allow = true;
        configure(&mut state.allow_all);
        let seen = state.allow_all.seen.clone();
        let (result, response) = handle(&pre, state, get("http://localhost/"))?;
        result?;
        let (status, _, _) = response.expect("a response").expect("no error code");
        let seen = seen.lock().unwrap().pop();
        Ok((status.as_u16(), seen))
    };
    let (status, seen) = send(&|h| h.default_scheme = Some(http::uri::Scheme::HTTP))?;
    assert_eq!(status, 200);
    assert_eq!(
        seen,
        Some(("http://example.com/".to_string(), Some("example.com".to_string())))
    );
    let (status, seen) = send(&|h| h.set_host = false)?;
    assert_eq!(status, 200);
    assert_eq!(seen, Some(("https://example.com/".to_string(), None)));
    // 502: the guest got another error code than HTTP-request-denied.
    assert_eq!(send(&|h| h.default_scheme = None)?, (502, None));
    assert_eq!(send(&|h| h.https_supported = false)?, (502, None));
    Ok(())
}

#[test]
fn a_request_without_authority_is_refused() -> weft::Result<()> {
    let engine = Engine::default();
    let mut store = Store::new(&engine, State::new());
    let req = http::Request::get("/no-host").body(Full::new(Bytes::new()))?;
    let err = store
        .data_mut()
        .http()
        .new_incoming_request(Scheme::Http, req)
        .expect_err("no authority");
    assert!(err.to_string().contains("missing authority"), "{err}");
    Ok(())
}

/// The async flavour: `add_to_linker_async`, `ProxyPre::instantiate_async`
/// and `call_handle(..).await` on a tokio runtime.
#[cfg(feature = "async")]
#[test]
fn the_async_proxy_answers_on_tokio() -> weft::Result<()> {
    let engine = Engine::default();
    let component = Component::new(&engine, wat::parse_str(common::proxy("0.2.12", common::FIXED))?)?;
    let mut linker = Linker::<State>::new(&engine);
    weft_wasi_http::p2::add_to_linker_async(&mut linker)?;
    let pre = weft_wasi_http::p2::bindings::ProxyPre::new(linker.instantiate_pre(&component)?)?;
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).build()?;
    rt.block_on(async {
        let mut store = Store::new(&engine, State::new());
        let (tx, rx) = tokio::sync::oneshot::channel();
        let req = store
            .data_mut()
            .http()
            .new_incoming_request(Scheme::Http, get("http://localhost/"))?;
        let out = store.data_mut().http().new_response_outparam(tx)?;
        let proxy = pre.instantiate_async(&mut store).await?;
        proxy
            .wasi_http_incoming_handler()
            .call_handle(&mut store, req, out)
            .await?;
        let resp = rx.await?.map_err(|e| anyhow::anyhow!("{e}"))?;
        assert_eq!(resp.status(), 200);
        let body = resp.into_body().collect().await.map_err(|e| anyhow::anyhow!("{e}"))?;
        assert_eq!(body.to_bytes(), common::FIXED_BODY.as_bytes());
        Ok(())
    })
}

/// The `p2_outgoing_body_chunk_size` hook caps what `check-write` offers:
/// the echo (which writes what `check-write` allows) reaches hyper in
/// frames of at most that many bytes, and whole.
#[test]
fn the_chunk_size_hook_caps_each_write_of_an_outgoing_body() -> weft::Result<()> {
    let engine = Engine::default();
    let pre = pre(&engine, "0.2.12", common::ECHO)?;
    let body: Vec<u8> = (0..20_000u32).map(|i| (i % 251) as u8).collect();
    let req = http::Request::post("http://example.org/")
        .header("content-length", body.len().to_string())
        .body(Full::new(Bytes::from(body.clone())))?;
    let mut state = State::new();
    state.refuse = Refuse {
        buffer_chunks: 1000,
        chunk_size: 1000,
    };
    let mut store = Store::new(pre.engine(), state);
    let (tx, rx) = tokio::sync::oneshot::channel();
    let req = store.data_mut().http().new_incoming_request(Scheme::Http, req)?;
    let out = store.data_mut().http().new_response_outparam(tx)?;
    let proxy = pre.instantiate(&mut store)?;
    proxy.wasi_http_incoming_handler().call_handle(&mut store, req, out)?;
    let resp = rx.blocking_recv()?.map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let rt = tokio::runtime::Builder::new_current_thread().build()?;
    let mut body_stream = resp.into_body();
    let mut got = Vec::new();
    let mut frames = 0;
    while let Some(frame) = rt.block_on(body_stream.frame()) {
        if let Ok(data) = frame.map_err(|e| anyhow::anyhow!("{e}"))?.into_data() {
            assert!(data.len() <= 1000, "a frame of {} bytes", data.len());
            frames += 1;
            got.extend_from_slice(&data);
        }
    }
    assert_eq!(got, body);
    assert!(frames >= 20, "{frames} frames");
    Ok(())
}

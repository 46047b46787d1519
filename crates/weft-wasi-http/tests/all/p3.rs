//! wasi:http 0.3: service components written in WAT on the async ABI (see
//! `p3_guest`) called through `p3::Service::handle` inside
//! `Store::run_concurrent`, with requests made by `Request::from_http` and
//! responses read back through `Response::into_http_reporting`.

#![allow(
    clippy::type_complexity,
    reason = "the hooks' send_request has Wasmtime 48's signature, spelled out"
)]
#![cfg(feature = "p3")]

#[allow(dead_code, reason = "each test binary uses a part of the guests")]
use crate::p3_guest;

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
use weft_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpHooks, WasiHttpView};

struct State {
    wasi: WasiCtx,
    http: WasiHttpCtx,
    table: ResourceTable,
    hooks: Box<dyn WasiHttpHooks>,
}

/// Hooks that keep every default.
struct DefaultHooks;

impl WasiHttpHooks for DefaultHooks {}

impl State {
    fn new(hooks: Box<dyn WasiHttpHooks>) -> State {
        State {
            wasi: WasiCtx::builder().build(),
            http: WasiHttpCtx::new(),
            table: ResourceTable::new(),
            hooks,
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
            hooks: &mut *self.hooks,
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
    /// The sizes of the body's data frames, in order.
    chunks: Vec<usize>,
    trailers: Option<http::HeaderMap>,
}

/// Calls the guest `mode` with `request`: the guest's answer, its error
/// code, or the error (a trap) that ended the call.
fn call(mode: Mode, request: http::Request<Full<Bytes>>) -> weft::Result<Result<Answer, ErrorCode>> {
    call_with(mode, request, Box::new(DefaultHooks))
}

/// [`call`] with the store's hooks `hooks`.
fn call_with(
    mode: Mode,
    request: http::Request<Full<Bytes>>,
    hooks: Box<dyn WasiHttpHooks>,
) -> weft::Result<Result<Answer, ErrorCode>> {
    let engine = Engine::default();
    let component = Component::new(&engine, wat::parse_str(service(mode, "example.com"))?)?;
    let mut linker = Linker::<State>::new(&engine);
    weft_wasi::p3::add_to_linker(&mut linker)?;
    weft_wasi_http::p3::add_to_linker(&mut linker)?;
    let mut store = Store::new(&engine, State::new(hooks));
    block_on(async {
        let service = Service::instantiate_async(&mut store, &component, &linker).await?;
        store
            .run_concurrent(async move |store| -> weft::Result<Result<Answer, ErrorCode>> {
                let response = match service.handle(store, request).await? {
                    Ok(r) => r,
                    Err(code) => return Ok(Err(code)),
                };
                let response = store.with(|access| response.into_http_reporting(access))?;
                let (parts, mut body) = response.into_parts();
                let mut data = Vec::new();
                let mut chunks = Vec::new();
                let mut trailers = None;
                while let Some(frame) = body.frame().await {
                    let frame = frame.map_err(|code| weft::Error::msg(format!("the body failed: {code:?}")))?;
                    match frame.into_data() {
                        Ok(d) => {
                            chunks.push(d.len());
                            data.extend_from_slice(&d);
                        }
                        Err(frame) => trailers = frame.into_trailers().ok(),
                    }
                }
                Ok(Ok(Answer {
                    status: parts.status,
                    headers: parts.headers,
                    body: data.into(),
                    chunks,
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

/// Hooks whose `send_request` is `refuse_request`.
struct Refuse;

impl WasiHttpHooks for Refuse {
    fn send_request(
        &mut self,
        request: http::Request<weft_wasi_http::WasiBody>,
        options: Option<weft_wasi_http::RequestOptions>,
        fut: Box<dyn std::future::Future<Output = weft_wasi_http::Result<()>> + Send>,
    ) -> Box<
        dyn std::future::Future<
                Output = weft_wasi_http::Result<(
                    http::Response<weft_wasi_http::WasiBody>,
                    Box<dyn std::future::Future<Output = weft_wasi_http::Result<()>> + Send>,
                )>,
            > + Send,
    > {
        weft_wasi_http::refuse_request(request, options, fut)
    }
}

#[test]
fn client_send_is_refused_by_refuse_request() {
    let answer = call_with(Mode::Send, get(""), Box::new(Refuse)).unwrap().unwrap();
    assert_eq!(answer.status, 403, "body: {:?}", answer.body);
    assert_eq!(answer.body, "denied\n");
}

/// The default hooks send with `default_send_request`, which needs a
/// tokio runtime: here (none) the guest gets an error code (its 502),
/// and nothing panics.
#[test]
fn client_send_with_the_default_hooks_and_no_runtime_fails_cleanly() {
    let answer = call(Mode::Send, get("")).unwrap().unwrap();
    assert_eq!(answer.status, 502, "body: {:?}", answer.body);
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
    let mut store = Store::new(&engine, State::new(Box::new(DefaultHooks)));
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
    let (back, options) = req.into_http(&mut store, async { Ok(()) }).unwrap();
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

/// What [`RecordingHooks`] saw of the requests given to `send_request`:
/// their URIs and `host` headers.
type Seen = std::sync::Arc<std::sync::Mutex<Vec<(String, Option<String>)>>>;

/// Hooks that record the requests they are asked to send (then refuse
/// them with `HTTP-request-denied`), with the scheme and host-header
/// decisions and the chunk size of the test.
struct RecordingHooks {
    seen: Seen,
    supported: &'static [&'static str],
    default_scheme: Option<http::uri::Scheme>,
    set_host: bool,
    chunk_size: usize,
}

impl RecordingHooks {
    fn new(seen: &Seen) -> RecordingHooks {
        RecordingHooks {
            seen: seen.clone(),
            supported: &["http", "https"],
            default_scheme: Some(http::uri::Scheme::HTTPS),
            set_host: true,
            chunk_size: weft_wasi_http::p3::DEFAULT_OUTGOING_BODY_CHUNK_SIZE,
        }
    }
}

impl WasiHttpHooks for RecordingHooks {
    fn is_supported_scheme(&mut self, scheme: &http::uri::Scheme) -> bool {
        self.supported.contains(&scheme.as_str())
    }
    fn set_host_header(&mut self) -> bool {
        self.set_host
    }
    fn default_scheme(&mut self) -> Option<http::uri::Scheme> {
        self.default_scheme.clone()
    }
    fn p3_outgoing_body_chunk_size(&mut self) -> usize {
        self.chunk_size
    }
    fn send_request(
        &mut self,
        request: http::Request<weft_wasi_http::WasiBody>,
        options: Option<weft_wasi_http::RequestOptions>,
        fut: Box<dyn std::future::Future<Output = weft_wasi_http::Result<()>> + Send>,
    ) -> Box<
        dyn std::future::Future<
                Output = weft_wasi_http::Result<(
                    http::Response<weft_wasi_http::WasiBody>,
                    Box<dyn std::future::Future<Output = weft_wasi_http::Result<()>> + Send>,
                )>,
            > + Send,
    > {
        let host = request
            .headers()
            .get(http::header::HOST)
            .map(|h| h.to_str().unwrap().to_string());
        self.seen.lock().unwrap().push((request.uri().to_string(), host));
        weft_wasi_http::refuse_request(request, options, fut)
    }
}

/// `client.send` asks the hooks: the scheme of a request without one is
/// `default_scheme` (none: `HTTP-protocol-error`), a scheme
/// `is_supported_scheme` refuses is `HTTP-protocol-error`, and the `host`
/// header is set from the authority only when `set_host_header` says so.
#[test]
fn client_send_uses_the_scheme_and_host_hooks() {
    // The guest answers 403 when its request reached `send_request` (and
    // was refused), 502 for any other error code.
    let send = |mode, hooks: RecordingHooks| call_with(mode, get(""), Box::new(hooks)).unwrap().unwrap().status;
    let seen = Seen::default();

    assert_eq!(send(Mode::Send, RecordingHooks::new(&seen)), 403);
    assert_eq!(
        seen.lock().unwrap().pop(),
        Some(("http://example.com/".to_string(), Some("example.com".to_string())))
    );

    let no_host = RecordingHooks {
        set_host: false,
        ..RecordingHooks::new(&seen)
    };
    assert_eq!(send(Mode::Send, no_host), 403);
    assert_eq!(
        seen.lock().unwrap().pop(),
        Some(("http://example.com/".to_string(), None))
    );

    assert_eq!(send(Mode::SendNoScheme, RecordingHooks::new(&seen)), 403);
    assert_eq!(
        seen.lock().unwrap().pop(),
        Some(("https://example.com/".to_string(), Some("example.com".to_string())))
    );
    let http_default = RecordingHooks {
        default_scheme: Some(http::uri::Scheme::HTTP),
        ..RecordingHooks::new(&seen)
    };
    assert_eq!(send(Mode::SendNoScheme, http_default), 403);
    assert_eq!(seen.lock().unwrap().pop().unwrap().0, "http://example.com/");

    let no_default = RecordingHooks {
        default_scheme: None,
        ..RecordingHooks::new(&seen)
    };
    assert_eq!(send(Mode::SendNoScheme, no_default), 502);
    let https_only = RecordingHooks {
        supported: &["https"],
        ..RecordingHooks::new(&seen)
    };
    assert_eq!(send(Mode::Send, https_only), 502);
    assert!(seen.lock().unwrap().is_empty(), "a refused scheme reached send_request");
}

/// `Request::from_http` gives a URI without a scheme the hooks'
/// `default_scheme` (and none when that is `None`).
#[test]
fn from_http_takes_the_default_scheme_for_a_uri_without_one() {
    use weft_wasi_http::p3::Request;
    let origin_form = || http::Request::get("/x").body(Full::new(Bytes::new())).unwrap();
    let (req, _) = Request::from_http(weft_wasi_http::default_hooks(), origin_form());
    assert_eq!(req.scheme, Some(http::uri::Scheme::HTTPS));
    let seen = Seen::default();
    let mut hooks = RecordingHooks {
        default_scheme: None,
        ..RecordingHooks::new(&seen)
    };
    let (req, _) = Request::from_http(&mut hooks, origin_form());
    assert_eq!(req.scheme, None);
}

/// A guest body reaches hyper in chunks of at most
/// `p3_outgoing_body_chunk_size` bytes, whole and in order.
#[test]
fn guest_bodies_are_cut_at_the_chunk_size_hook() {
    let seen = Seen::default();
    let hooks = RecordingHooks {
        chunk_size: 7,
        ..RecordingHooks::new(&seen)
    };
    let answer = call_with(Mode::Fixed, get(""), Box::new(hooks)).unwrap().unwrap();
    assert_eq!(answer.body, FIXED_BODY.as_bytes());
    assert!(
        answer.chunks.len() >= FIXED_BODY.len().div_ceil(7),
        "{:?}",
        answer.chunks
    );
    assert!(answer.chunks.iter().all(|&n| n <= 7), "{:?}", answer.chunks);
    // With the default (1 MiB) the body comes in one chunk.
    let answer = call(Mode::Fixed, get("")).unwrap().unwrap();
    assert_eq!(answer.chunks, [FIXED_BODY.len()]);
}

/// Calls the guest `mode` once in a new instance in `store` with the
/// request body `body`: its status (`None` for an error code), after
/// reading the response's body whole (`read`) or dropping the response
/// with its body unread.
fn handle_once(
    store: &mut Store<State>,
    linker: &Linker<State>,
    component: &Component,
    read: bool,
) -> weft::Result<Option<u16>> {
    block_on(async {
        let service = Service::instantiate_async(&mut *store, component, linker).await?;
        store
            .run_concurrent(async move |store| -> weft::Result<Option<u16>> {
                let response = match service.handle(store, get("a request body")).await? {
                    Ok(r) => r,
                    Err(_) => return Ok(None),
                };
                let status = response.status.as_u16();
                if read {
                    let response = store.with(|access| response.into_http_reporting(access))?;
                    response
                        .into_body()
                        .collect()
                        .await
                        .map_err(|code| weft::Error::msg(format!("the body failed: {code:?}")))?;
                }
                // Otherwise the response is dropped here, body unread.
                Ok(Some(status))
            })
            .await?
    })
}

/// The size of `store`'s concurrent state once its event loop has run
/// until nothing changes any more (the guests finished what they do after
/// answering, and what the host dropped is released).
fn settled_size(store: &mut Store<State>) -> usize {
    /// Pending once, so that the event loop runs.
    struct YieldOnce(bool);
    impl Future for YieldOnce {
        type Output = ();
        fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            if self.0 {
                return Poll::Ready(());
            }
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
    let mut last = usize::MAX;
    for _ in 0..50 {
        block_on(store.run_concurrent(async |_| {
            for _ in 0..10 {
                YieldOnce(false).await;
            }
        }))
        .unwrap();
        let size = store.concurrent_state_table_size();
        if size == last {
            return size;
        }
        last = size;
    }
    panic!(
        "the concurrent state does not settle: {}",
        store.debug_concurrent_state()
    );
}

/// Calls the guest `mode` four times in one store with `hooks`, each in a
/// new instance: reading the response's body whole, dropping the
/// response with its body unread (its `stream<u8>` and trailers future),
/// then both again. Checks after each call that the store's task state
/// adds up and its resource table is empty, and that a call whose
/// response was dropped leaves no more in the store's concurrent state
/// than one whose response was read (a leaked stream or future handle
/// would stay there). Gives the statuses of the four calls.
fn drop_unread_response_then_reuse(mode: Mode, hooks: Box<dyn WasiHttpHooks>) -> weft::Result<Vec<Option<u16>>> {
    let engine = Engine::default();
    let component = Component::new(&engine, wat::parse_str(service(mode, "example.com"))?)?;
    let mut linker = Linker::<State>::new(&engine);
    weft_wasi::p3::add_to_linker(&mut linker)?;
    weft_wasi_http::p3::add_to_linker(&mut linker)?;
    let mut store = Store::new(&engine, State::new(hooks));
    let mut sizes = vec![settled_size(&mut store)];
    let mut statuses = Vec::new();
    for read in [true, false, true, false] {
        statuses.push(handle_once(&mut store, &linker, &component, read)?);
        store
            .check_concurrent_state()
            .map_err(|e| e.context(format!("{mode:?}, read {read}")))?;
        assert_eq!(
            store.data().table.len(),
            0,
            "resources left in the table ({mode:?}, read {read})"
        );
        sizes.push(settled_size(&mut store));
    }
    let growth: Vec<isize> = sizes.windows(2).map(|w| w[1] as isize - w[0] as isize).collect();
    assert!(
        growth.iter().all(|&g| g == growth[0]),
        "{mode:?}: a call with its response dropped left more behind than one read whole \
         (growth of the concurrent state per call: {growth:?}):\n{}",
        store.debug_concurrent_state()
    );
    Ok(statuses)
}

/// A response whose guest body (a stream the guest writes after
/// returning, and a trailers future) is never read: dropping it releases
/// the stream and future through the store, with nothing left behind.
#[test]
fn dropping_a_response_with_an_unread_guest_body_leaks_nothing() {
    for mode in [Mode::Fixed, Mode::Trailers] {
        let statuses = drop_unread_response_then_reuse(mode, Box::new(DefaultHooks)).unwrap();
        assert_eq!(statuses, [Some(201); 4], "{mode:?}");
    }
}

/// A request that owns a guest body (its trailers future) dropped by the
/// host without being read (the hooks refuse to send it), and an
/// incoming request the guest drops without consuming its body: nothing
/// is left behind and the store stays usable.
#[test]
fn dropping_unconsumed_requests_leaks_nothing() {
    let seen = Seen::default();
    let statuses = drop_unread_response_then_reuse(Mode::Send, Box::new(RecordingHooks::new(&seen))).unwrap();
    assert_eq!(statuses, [Some(403); 4]);
    assert_eq!(seen.lock().unwrap().len(), 4);
    // `Mode::Headers` drops the incoming request (and its host body)
    // without calling `consume-body`.
    let statuses = drop_unread_response_then_reuse(Mode::Headers, Box::new(DefaultHooks)).unwrap();
    assert_eq!(statuses, [Some(200); 4]);
}

/// The error types are Wasmtime 48's: `p3::HttpResult` holds an
/// `HttpError` that downcasts to the `error-code` (or is a trap), and
/// `HeaderError` / `RequestOptionsError` wrap theirs the same way.
#[test]
fn p3_errors_are_trappable_error_types() {
    use weft_wasi_http::p3::bindings::http::types as wit;
    use weft_wasi_http::p3::{HeaderError, HttpError, HttpResult, Request, RequestOptionsError};
    let engine = Engine::default();
    let mut store = Store::new(&engine, State::new(Box::new(DefaultHooks)));
    // A request whose parts make no URI: an authority with no scheme.
    let (mut req, _) = Request::new(
        http::Method::GET,
        None,
        Some(http::uri::Authority::from_static("example.com")),
        None,
        weft_wasi_http::FieldMap::new_mutable(1024),
        None,
        http_body_util::Empty::<Bytes>::new(),
    );
    req.scheme = None;
    let result: HttpResult<_> = req.into_http(&mut store, async { Ok(()) });
    let Err(err) = result else {
        panic!("no URI, no request: yet into_http made one")
    };
    let err: HttpError = err;
    assert!(
        matches!(err.downcast_ref(), Some(ErrorCode::HttpRequestUriInvalid)),
        "{err:?}"
    );
    assert!(matches!(err.downcast(), Ok(ErrorCode::HttpRequestUriInvalid)));

    let header: HeaderError = wit::HeaderError::Forbidden.into();
    assert!(matches!(header.downcast(), Ok(wit::HeaderError::Forbidden)));
    let options: RequestOptionsError = wit::RequestOptionsError::Immutable.into();
    assert!(matches!(options.downcast(), Ok(wit::RequestOptionsError::Immutable)));
    let trap = HttpError::trap(weft::Error::msg("boom"));
    assert!(trap.downcast_ref().is_none());
    assert!(format!("{:#}", trap.downcast().unwrap_err()).contains("boom"));
}

//! Code written against Wasmtime 48's `wasmtime_wasi_http` compiles
//! against `weft_wasi_http` with the crates renamed, and runs: hooks with
//! 48's `send_request` signature and error hooks, and a `HandlerState`
//! (with its `WorkerState` and `WorkerExpiration`) serving requests
//! through a `ProxyHandler`, reusing an instance and dropping it after a
//! trap.

#![allow(
    clippy::type_complexity,
    reason = "the hooks' send_request has Wasmtime 48's signature, spelled out"
)]
#![cfg(feature = "p3")]

#[allow(dead_code, reason = "each test binary uses a part of the guests")]
use crate::common;

use bytes::Bytes;
use http_body_util::BodyExt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;
use weft::component::{Component, GuestTaskId, Linker, ResourceTable};
use weft::{Engine, Store, StoreContextMut};
use weft_wasi::p2::{WasiCtx, WasiCtxView, WasiView};
use weft_wasi_http::handler::{
    HandlerState, Instance, ProxyHandler, ProxyPre, ShouldAccept, TrapOrPanicError, WorkerExpiration, WorkerState,
    WorkerStatus,
};
use weft_wasi_http::p2::bindings::http::types::ErrorCode;
use weft_wasi_http::{Error, RequestOptions, WasiBody, WasiHttpCtx, WasiHttpCtxView, WasiHttpHooks, WasiHttpView};

// ---- hooks, as an embedder writes them for Wasmtime 48 ----

/// The URIs the hooks were asked to send.
type Seen = Arc<Mutex<Vec<String>>>;

struct MyHooks {
    seen: Seen,
}

impl WasiHttpHooks for MyHooks {
    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        _options: Option<RequestOptions>,
        fut: Box<dyn Future<Output = Result<(), Error>> + Send>,
    ) -> Box<
        dyn Future<
                Output = weft_wasi_http::Result<(
                    http::Response<WasiBody>,
                    Box<dyn Future<Output = Result<(), Error>> + Send>,
                )>,
            > + Send,
    > {
        _ = fut;
        self.seen.lock().unwrap().push(request.uri().to_string());
        Box::new(async move {
            let body = http_body_util::Empty::<Bytes>::new()
                .map_err(|never| match never {})
                .boxed_unsync();
            let io: Box<dyn Future<Output = Result<(), Error>> + Send> = Box::new(async { Ok(()) });
            Ok((http::Response::new(body), io))
        })
    }

    fn p2_outgoing_body_buffer_chunks(&mut self) -> usize {
        4
    }

    fn p2_outgoing_body_chunk_size(&mut self) -> usize {
        64 * 1024
    }

    fn p2_error_from_hyper(&mut self, _err: &hyper::Error) -> ErrorCode {
        ErrorCode::HttpProtocolError
    }

    fn p2_error_from_connect(&mut self, _err: &std::io::Error) -> ErrorCode {
        ErrorCode::ConnectionRefused
    }

    fn p3_error_from_tls(&mut self, _err: &std::io::Error) -> weft_wasi_http::p3::ErrorCode {
        weft_wasi_http::p3::ErrorCode::TlsProtocolError
    }
}

struct MyState {
    wasi: WasiCtx,
    http: WasiHttpCtx,
    table: ResourceTable,
    hooks: MyHooks,
}

impl MyState {
    fn new(seen: &Seen) -> MyState {
        MyState {
            wasi: WasiCtx::builder().build(),
            http: WasiHttpCtx::new(),
            table: ResourceTable::new(),
            hooks: MyHooks { seen: seen.clone() },
        }
    }
}

impl WasiView for MyState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl WasiHttpView for MyState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        WasiHttpCtxView {
            ctx: &mut self.http,
            table: &mut self.table,
            hooks: &mut self.hooks,
        }
    }
}

// ---- a handler, as `wasmtime serve` builds one ----

/// What the test learns of the workers.
#[derive(Default)]
struct Counts {
    instantiated: AtomicUsize,
    dropped_ok: AtomicUsize,
    dropped_err: AtomicUsize,
    /// Why the workers that ended with an error did.
    errors: Mutex<Vec<weft::Error>>,
    started: AtomicUsize,
    /// The statuses the workers' expirations were polled with.
    statuses: Mutex<Vec<WorkerStatus>>,
}

/// How a test's handler behaves beyond its guest and reuse count.
#[derive(Clone, Copy, Default)]
struct Options {
    /// Each request expires this long after it starts.
    request_timeout: Option<std::time::Duration>,
    /// A worker expires when polled with this status.
    expire_on: Option<WorkerStatus>,
}

struct MyHandler {
    engine: Engine,
    pre: ProxyPre<MyState>,
    seen: Seen,
    counts: Arc<Counts>,
    reuse: usize,
    options: Options,
}

struct MyWorker {
    counts: Arc<Counts>,
    reuse: usize,
    request_timeout: Option<std::time::Duration>,
}

/// Records the statuses it is polled with, and expires on
/// `Options::expire_on`.
struct Watch {
    counts: Arc<Counts>,
    expire_on: Option<WorkerStatus>,
}

impl WorkerExpiration for Watch {
    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>, state: WorkerStatus, _start: Instant) -> Poll<()> {
        self.counts.statuses.lock().unwrap().push(state);
        if self.expire_on == Some(state) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

/// Never expires: the test's workers end by their reuse count.
struct Never;

impl WorkerExpiration for Never {
    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>, _state: WorkerStatus, _start: Instant) -> Poll<()> {
        Poll::Pending
    }
}

impl WorkerState for MyWorker {
    type StoreData = MyState;
    type RequestData = u32;

    fn should_accept_request(&self, concurrent_count: usize, total_count: usize) -> ShouldAccept {
        if total_count >= self.reuse {
            ShouldAccept::Never
        } else if concurrent_count >= 1 {
            ShouldAccept::No
        } else {
            ShouldAccept::Yes
        }
    }

    fn on_request_start(
        &self,
        _store: StoreContextMut<'_, MyState>,
        data: u32,
        _task: GuestTaskId,
    ) -> Pin<Box<dyn Future<Output = ()> + 'static + Send + Sync>> {
        assert_eq!(data, 7);
        self.counts.started.fetch_add(1, Ordering::SeqCst);
        match self.request_timeout {
            Some(t) => Box::pin(tokio::time::sleep(t)),
            None => Box::pin(std::future::pending()),
        }
    }

    fn drop(&self, store: Store<MyState>, result: Result<(), weft::Error>) {
        drop(store);
        match result {
            Ok(()) => self.counts.dropped_ok.fetch_add(1, Ordering::SeqCst),
            Err(e) => {
                self.counts.errors.lock().unwrap().push(e);
                self.counts.dropped_err.fetch_add(1, Ordering::SeqCst)
            }
        };
    }
}

fn my_view(state: &mut MyState) -> WasiHttpCtxView<'_> {
    state.http()
}

impl HandlerState for MyHandler {
    type StoreData = MyState;
    type WorkerExpiration = Watch;
    type WorkerState = MyWorker;

    async fn instantiate(&self) -> weft::Result<Instance<MyState, Watch, MyWorker>> {
        self.counts.instantiated.fetch_add(1, Ordering::SeqCst);
        let mut store = Store::new(&self.engine, MyState::new(&self.seen));
        let proxy = self.pre.instantiate_async(&mut store).await?;
        Ok(Instance {
            store,
            proxy,
            view: my_view,
            expiration: Watch {
                counts: self.counts.clone(),
                expire_on: self.options.expire_on,
            },
            state: MyWorker {
                counts: self.counts.clone(),
                reuse: self.reuse,
                request_timeout: self.options.request_timeout,
            },
        })
    }
}

fn handler(guest: &str, reuse: usize) -> weft::Result<(ProxyHandler<MyHandler>, Arc<Counts>, Seen)> {
    handler_with(guest, reuse, Options::default())
}

fn handler_with(
    guest: &str,
    reuse: usize,
    options: Options,
) -> weft::Result<(ProxyHandler<MyHandler>, Arc<Counts>, Seen)> {
    let engine = Engine::default();
    let component = Component::new(&engine, wat::parse_str(common::proxy("0.2.12", guest))?)?;
    let mut linker = Linker::<MyState>::new(&engine);
    // The async WASI 0.2 functions, as a 48 embedding links them: the
    // guest's call runs on a fiber of the store's event loop and waits in
    // them holding the store.
    weft_wasi_http::p2::add_to_linker_async(&mut linker)?;
    let pre = ProxyPre::P2(weft_wasi_http::p2::bindings::ProxyPre::new(
        linker.instantiate_pre(&component)?,
    )?);
    let counts = Arc::new(Counts::default());
    let seen = Seen::default();
    let state = MyHandler {
        engine,
        pre,
        seen: seen.clone(),
        counts: counts.clone(),
        reuse,
        options,
    };
    Ok((ProxyHandler::new(state), counts, seen))
}

fn request(path: &str) -> weft_wasi_http::handler::Request {
    let body = http_body_util::Empty::<Bytes>::new()
        .map_err(|never| match never {})
        .boxed_unsync();
    http::Request::get(format!("http://localhost{path}"))
        .body(body)
        .unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_handler_state_serves_requests_and_reuses_its_instance() -> weft::Result<()> {
    let (handler, counts, _) = handler(common::FIXED, 3)?;
    let rt = runtime();
    rt.block_on(async {
        for _ in 0..5 {
            let response = handler.handle(7, request("/")).await?;
            assert_eq!(response.status(), 200);
            let body = response
                .into_body()
                .collect()
                .await
                .map_err(weft::Error::msg)?
                .to_bytes();
            assert_eq!(body, common::FIXED_BODY.as_bytes());
            // The worker takes the next request once this call returned.
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        Ok::<_, weft::Error>(())
    })?;
    assert_eq!(counts.started.load(Ordering::SeqCst), 5);
    // Three requests on the first instance, two on the second.
    assert_eq!(counts.instantiated.load(Ordering::SeqCst), 2);
    assert_eq!(counts.dropped_ok.load(Ordering::SeqCst), 1);
    // Without a handler the idle worker ends (and the runtime can stop).
    drop(handler);
    drop(rt);
    assert_eq!(counts.dropped_ok.load(Ordering::SeqCst), 2);
    Ok(())
}

#[test]
fn a_trap_drops_the_instance_and_fails_the_request() -> weft::Result<()> {
    let (handler, counts, _) = handler(common::TRAP, 10)?;
    runtime().block_on(async {
        for _ in 0..2 {
            let err = handler.handle(7, request("/")).await.expect_err("the guest traps");
            assert!(err.downcast_ref::<TrapOrPanicError>().is_some(), "{err:?}");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    });
    // Each trap ended its worker: each request had an instance of its own.
    assert_eq!(counts.dropped_err.load(Ordering::SeqCst), 2);
    assert_eq!(counts.instantiated.load(Ordering::SeqCst), 2);
    Ok(())
}

#[test]
fn hooks_with_the_48_send_request_receive_the_guests_request() -> weft::Result<()> {
    let (handler, _, seen) = handler(common::OUTGOING, 1)?;
    runtime().block_on(async {
        let response = handler.handle(7, request("/")).await?;
        assert_eq!(response.status(), 200);
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(weft::Error::msg)?
            .to_bytes();
        assert_eq!(body, "sent\n");
        Ok::<_, weft::Error>(())
    })?;
    assert_eq!(*seen.lock().unwrap(), ["https://example.com/"]);
    Ok(())
}

#[test]
fn handle_outside_a_tokio_runtime_is_an_error() -> weft::Result<()> {
    let (handler, counts, _) = handler(common::FIXED, 1)?;
    let err = common_block_on(handler.handle(7, request("/"))).expect_err("no runtime");
    assert!(format!("{err}").contains("tokio runtime"), "{err}");
    assert_eq!(counts.instantiated.load(Ordering::SeqCst), 0);
    Ok(())
}

/// Polls `fut` on this thread (no tokio runtime).
fn common_block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let mut cx = Context::from_waker(std::task::Waker::noop());
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}

/// A `HandlerState` whose instantiation fails.
struct Failing;

impl HandlerState for Failing {
    type StoreData = MyState;
    type WorkerExpiration = Never;
    type WorkerState = MyWorker;

    async fn instantiate(&self) -> weft::Result<Instance<MyState, Never, MyWorker>> {
        Err(weft::Error::msg("no instance today"))
    }
}

#[test]
fn a_failed_instantiation_is_each_requests_error() {
    use weft_wasi_http::handler::InstantiationError;
    let handler = ProxyHandler::new(Failing);
    let rt = runtime();
    rt.block_on(async {
        let requests: Vec<_> = (0..3)
            .map(|i| {
                let handler = handler.clone();
                tokio::spawn(async move { handler.handle(7 + i, request(&format!("/{i}"))).await })
            })
            .collect();
        let mut back = Vec::new();
        for r in requests {
            let err = r.await.unwrap().expect_err("no instance");
            // The request and its data come back with the error (as the
            // worker state's `RequestData`, `u32` here).
            let err = err
                .downcast_ref::<InstantiationError<u32>>()
                .expect("an instantiation error");
            assert!(format!("{err}").contains("no instance today"), "{err}");
            let path = err.request.lock().unwrap().uri().path().to_string();
            back.push((err.request_data, path));
        }
        back.sort();
        assert_eq!(
            back,
            [(7, "/0".to_string()), (8, "/1".to_string()), (9, "/2".to_string())]
        );
    });
}

/// A 0.2 request whose guest waits (holding the store, in an async WASI
/// function) past the request's expiration fails with `ExpirationError`;
/// the worker ends with that error, and the next request gets a fresh
/// instance.
#[test]
fn a_p2_request_that_expires_while_the_guest_waits_fails_and_ends_the_worker() -> weft::Result<()> {
    use weft_wasi_http::handler::ExpirationError;
    let options = Options {
        request_timeout: Some(std::time::Duration::from_millis(50)),
        ..Options::default()
    };
    let (handler, counts, _) = handler_with(common::READ_FIRST, 10, options)?;
    let rt = runtime();
    let result = rt.block_on(async {
        // A body that never ends: the guest waits for more of it before
        // it answers.
        let (body_tx, body_rx) = tokio::sync::mpsc::channel(1);
        body_tx
            .send(Bytes::from_static(b"part"))
            .await
            .map_err(weft::Error::msg)?;
        let endless = http::Request::post("http://localhost/")
            .body(crate::handler_p3::ChannelBody(body_rx).boxed_unsync())
            .unwrap();
        let err = match handler.handle(7, endless).await {
            Ok(response) => return Err(weft::Error::msg(format!("answered: {response:?}"))),
            Err(e) => e,
        };
        assert!(err.downcast_ref::<ExpirationError>().is_some(), "{err:?}");
        // The guest was stopped where it waited: the worker ended, with
        // the expiration as its error.
        for _ in 0..100 {
            if counts.dropped_err.load(Ordering::SeqCst) == 1 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert_eq!(counts.dropped_err.load(Ordering::SeqCst), 1);
        {
            let errors = counts.errors.lock().unwrap();
            assert!(errors[0].downcast_ref::<ExpirationError>().is_some(), "{:?}", errors[0]);
        }
        drop(body_tx);
        // The next request gets a fresh instance, and its answer.
        let response = handler.handle(7, request("/")).await?;
        assert_eq!(response.status(), 200);
        Ok::<_, weft::Error>(())
    });
    // Dropping the handler ends the idle worker (and lets the runtime stop).
    drop(handler);
    drop(rt);
    result?;
    assert_eq!(counts.instantiated.load(Ordering::SeqCst), 2);
    // While the guest waited, the worker's expiration saw a request
    // running.
    assert!(counts.statuses.lock().unwrap().contains(&WorkerStatus::Requests));
    Ok(())
}

/// Once a 0.2 guest has given its response and still works (here: it
/// echoes a request body that is still arriving), its worker's expiration
/// is polled with `PostReturn`; expiring then stops the guest, and the
/// worker ends without an error.
#[test]
fn a_p2_worker_is_post_return_while_the_guest_writes_the_body() -> weft::Result<()> {
    let options = Options {
        expire_on: Some(WorkerStatus::PostReturn),
        ..Options::default()
    };
    let (handler, counts, _) = handler_with(common::ECHO, 10, options)?;
    let rt = runtime();
    let result = rt.block_on(async {
        // A body that never ends: the guest waits for more of it.
        let (body_tx, body_rx) = tokio::sync::mpsc::channel(1);
        body_tx
            .send(Bytes::from_static(b"part"))
            .await
            .map_err(weft::Error::msg)?;
        let body = crate::handler_p3::ChannelBody(body_rx).boxed_unsync();
        let request = http::Request::post("http://localhost/echo").body(body).unwrap();
        let response = handler.handle(7, request).await?;
        assert_eq!(response.status(), 200);
        for _ in 0..100 {
            if counts.dropped_ok.load(Ordering::SeqCst) == 1 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert_eq!(counts.dropped_ok.load(Ordering::SeqCst), 1, "the worker ended");
        assert_eq!(counts.dropped_err.load(Ordering::SeqCst), 0);
        drop(body_tx);
        Ok::<_, weft::Error>(())
    });
    drop(handler);
    drop(rt);
    result?;
    let statuses = counts.statuses.lock().unwrap();
    assert_eq!(statuses.last(), Some(&WorkerStatus::PostReturn), "{statuses:?}");
    Ok(())
}

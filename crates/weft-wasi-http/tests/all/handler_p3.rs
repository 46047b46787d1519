//! The `handler` module serving a WASI 0.3 service in process: one
//! instance serves requests one after the other, each answered whole, and
//! several at once, each task with its own state; a trapping guest's
//! instance is dropped.

#![cfg(feature = "p3")]

#[allow(dead_code, reason = "each test binary uses a part of the guests")]
use crate::p3_guest;

use bytes::Bytes;
use http_body_util::BodyExt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;
use weft::component::{Component, GuestTaskId, Linker, ResourceTable};
use weft::{Engine, Store, StoreContextMut};
use weft_wasi::p3::{WasiCtx, WasiCtxView, WasiView};
use weft_wasi_http::handler::{
    HandlerState, Instance, ProxyHandler, ProxyPre, ShouldAccept, TrapOrPanicError, WorkerExpiration, WorkerState,
    WorkerStatus,
};
use weft_wasi_http::p3::ServicePre;
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

fn view(state: &mut State) -> WasiHttpCtxView<'_> {
    state.http()
}

struct Never;

impl WorkerExpiration for Never {
    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>, _state: WorkerStatus, _start: Instant) -> Poll<()> {
        Poll::Pending
    }
}

struct Worker {
    dropped_err: Arc<AtomicUsize>,
    /// How many requests the worker takes at once.
    at_once: usize,
}

impl WorkerState for Worker {
    type StoreData = State;
    type RequestData = ();

    fn should_accept_request(&self, concurrent_count: usize, total_count: usize) -> ShouldAccept {
        match (concurrent_count, total_count) {
            (_, 100..) => ShouldAccept::Never,
            (n, _) if n < self.at_once => ShouldAccept::Yes,
            _ => ShouldAccept::No,
        }
    }

    fn on_request_start(
        &self,
        _store: StoreContextMut<'_, State>,
        _data: (),
        _task: GuestTaskId,
    ) -> Pin<Box<dyn Future<Output = ()> + 'static + Send + Sync>> {
        Box::pin(std::future::pending())
    }

    fn drop(&self, store: Store<State>, result: Result<(), weft::Error>) {
        drop(store);
        if result.is_err() {
            self.dropped_err.fetch_add(1, Ordering::SeqCst);
        }
    }
}

struct Server {
    engine: Engine,
    pre: ProxyPre<State>,
    instantiated: Arc<AtomicUsize>,
    dropped_err: Arc<AtomicUsize>,
    at_once: usize,
}

impl HandlerState for Server {
    type StoreData = State;
    type WorkerExpiration = Never;
    type WorkerState = Worker;

    async fn instantiate(&self) -> weft::Result<Instance<State, Never, Worker>> {
        self.instantiated.fetch_add(1, Ordering::SeqCst);
        let state = State {
            wasi: WasiCtx::builder().build(),
            http: WasiHttpCtx::new(),
            table: ResourceTable::new(),
        };
        let mut store = Store::new(&self.engine, state);
        let proxy = self.pre.instantiate_async(&mut store).await?;
        Ok(Instance {
            store,
            proxy,
            view,
            expiration: Never,
            state: Worker {
                dropped_err: self.dropped_err.clone(),
                at_once: self.at_once,
            },
        })
    }
}

/// A server of the guest `mode` whose workers take `at_once` requests at
/// once.
fn server(mode: p3_guest::Mode, at_once: usize) -> weft::Result<Server> {
    let engine = Engine::default();
    let component = Component::new(&engine, wat::parse_str(p3_guest::service(mode, ""))?)?;
    let mut linker = Linker::<State>::new(&engine);
    weft_wasi::p3::add_to_linker(&mut linker)?;
    weft_wasi_http::p3::add_to_linker(&mut linker)?;
    let pre = ProxyPre::P3(ServicePre::new(linker.instantiate_pre(&component)?)?);
    Ok(Server {
        engine,
        pre,
        instantiated: Default::default(),
        dropped_err: Default::default(),
        at_once,
    })
}

fn request() -> weft_wasi_http::handler::Request {
    let body = http_body_util::Empty::<Bytes>::new()
        .map_err(|never| match never {})
        .boxed_unsync();
    http::Request::get("http://localhost/").body(body).unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn one_instance_serves_requests_one_after_the_other() -> weft::Result<()> {
    let server = server(p3_guest::Mode::Fixed, 1)?;
    let instantiated = server.instantiated.clone();
    let handler = ProxyHandler::new(server);
    let rt = runtime();
    rt.block_on(async {
        for _ in 0..5 {
            let response = handler.handle((), request()).await?;
            assert_eq!(response.status(), 201);
            let body = response
                .into_body()
                .collect()
                .await
                .map_err(weft::Error::msg)?
                .to_bytes();
            assert_eq!(body, p3_guest::FIXED_BODY.as_bytes());
            // The request is done once hyper (here: the test) dropped the
            // body; then the worker takes the next.
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        Ok::<_, weft::Error>(())
    })?;
    assert_eq!(instantiated.load(Ordering::SeqCst), 1);
    drop(handler);
    drop(rt);
    Ok(())
}

#[test]
fn a_trapping_service_gets_a_fresh_instance_per_request() -> weft::Result<()> {
    let server = server(p3_guest::Mode::Trap, 1)?;
    let (instantiated, dropped_err) = (server.instantiated.clone(), server.dropped_err.clone());
    let handler = ProxyHandler::new(server);
    let rt = runtime();
    rt.block_on(async {
        for _ in 0..2 {
            let err = handler.handle((), request()).await.expect_err("the guest traps");
            assert!(err.downcast_ref::<TrapOrPanicError>().is_some(), "{err:?}");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    });
    assert_eq!(instantiated.load(Ordering::SeqCst), 2);
    assert_eq!(dropped_err.load(Ordering::SeqCst), 2);
    drop(handler);
    drop(rt);
    Ok(())
}

/// One instance serves several requests at once: in each round, four echo
/// requests whose bodies are still arriving are all answered (their
/// response heads come) before any body ends, and each response echoes its
/// own request's body, whatever order the bodies end in. Five rounds take
/// more requests than the guest has task blocks, so the blocks of ended
/// tasks are used again. The worker always takes another request, so one
/// instance serves them all.
#[test]
fn one_instance_serves_requests_at_once() -> weft::Result<()> {
    use std::time::Duration;
    const AT_ONCE: usize = 4;
    const ROUNDS: usize = 5;
    const _: () = assert!(ROUNDS * AT_ONCE > p3_guest::TASKS);
    let server = server(p3_guest::Mode::Echo, usize::MAX)?;
    let instantiated = server.instantiated.clone();
    let handler = ProxyHandler::new(server);
    let rt = runtime();
    let limit = Duration::from_secs(30);
    let result = rt.block_on(async {
        for round in 0..ROUNDS {
            let mut open = Vec::new();
            for i in 0..AT_ONCE {
                let (tx, rx) = tokio::sync::mpsc::channel(1);
                tx.send(Bytes::from(format!("round {round}, request {i}, part 1\n")))
                    .await
                    .map_err(weft::Error::msg)?;
                let request = http::Request::post("http://localhost/")
                    .body(ChannelBody(rx).boxed_unsync())
                    .unwrap();
                // The earlier requests' bodies are still open: a guest
                // that served one request at a time would not answer.
                let response = tokio::time::timeout(limit, handler.handle((), request)).await??;
                assert_eq!(response.status(), 200);
                open.push((tx, response));
            }
            let mut responses = Vec::new();
            for (i, (tx, response)) in open.into_iter().enumerate().rev() {
                tx.send(Bytes::from(format!("round {round}, request {i}, part 2\n")))
                    .await
                    .map_err(weft::Error::msg)?;
                drop(tx);
                responses.push((i, response));
            }
            for (i, response) in responses {
                let body = tokio::time::timeout(limit, response.into_body().collect())
                    .await?
                    .map_err(weft::Error::msg)?
                    .to_bytes();
                let want = format!("round {round}, request {i}, part 1\nround {round}, request {i}, part 2\n");
                assert_eq!(body, want.as_bytes());
            }
        }
        Ok::<_, weft::Error>(())
    });
    drop(handler);
    // A worker stuck in a request would keep the runtime from stopping.
    rt.shutdown_timeout(limit);
    result?;
    assert_eq!(instantiated.load(Ordering::SeqCst), 1);
    Ok(())
}

/// A request body whose data comes from a channel, ending when the sender
/// is dropped.
pub(crate) struct ChannelBody(pub tokio::sync::mpsc::Receiver<bytes::Bytes>);

impl http_body::Body for ChannelBody {
    type Data = bytes::Bytes;
    type Error = weft_wasi_http::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<bytes::Bytes>, Self::Error>>> {
        self.0
            .poll_recv(cx)
            .map(|data| data.map(|d| Ok(http_body::Frame::data(d))))
    }
}

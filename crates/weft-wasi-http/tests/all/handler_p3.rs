//! The `handler` module serving a WASI 0.3 service in process: one
//! instance serves requests one after the other (the test guest keeps a
//! request's state in globals, so one at a time), each answered whole,
//! and a trapping guest's instance is dropped.

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
}

impl WorkerState for Worker {
    type StoreData = State;
    type RequestData = ();

    fn should_accept_request(&self, concurrent_count: usize, total_count: usize) -> ShouldAccept {
        match (concurrent_count, total_count) {
            (_, 100..) => ShouldAccept::Never,
            (0, _) => ShouldAccept::Yes,
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
            },
        })
    }
}

fn server(mode: p3_guest::Mode) -> weft::Result<Server> {
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
    let server = server(p3_guest::Mode::Fixed)?;
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
    let server = server(p3_guest::Mode::Trap)?;
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

//! Requests per second of a `wasi:http` proxy handled in process (the
//! fixed-answer guest of the tests): each request gets a store and an
//! instance from one `ProxyPre`, as `weft serve` does, without the network.
//! Run with `cargo run --release -p weft-wasi-http --example proxy_rps
//! [REQUESTS] [THREADS]`.

#[allow(dead_code, reason = "the example uses one of the guests")]
#[path = "../tests/all/common/mod.rs"]
mod common;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use weft::component::{Component, Linker, ResourceTable};
use weft::{Engine, Store};
use weft_wasi::p2::{WasiCtx, WasiCtxView, WasiView};
use weft_wasi_http::p2::bindings::http::types::Scheme;
use weft_wasi_http::p2::bindings::sync::ProxyPre;
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

/// One request through the guest; the body's length.
fn round_trip(pre: &ProxyPre<State>) -> anyhow::Result<usize> {
    let state = State {
        wasi: WasiCtx::builder().build(),
        http: WasiHttpCtx::new(),
        table: ResourceTable::new(),
    };
    let mut store = Store::new(pre.engine(), state);
    let (tx, mut rx) = tokio::sync::oneshot::channel();
    let req = http::Request::get("http://localhost/").body(Empty::<Bytes>::new())?;
    let req = store.data_mut().http().new_incoming_request(Scheme::Http, req)?;
    let out = store.data_mut().http().new_response_outparam(tx)?;
    let proxy = pre.instantiate(&mut store)?;
    proxy.wasi_http_incoming_handler().call_handle(&mut store, req, out)?;
    let resp = rx.try_recv()?.map_err(|e| anyhow::anyhow!("{e}"))?;
    // The guest has finished the body: every frame is there already.
    let body = futures_lite_block_on(resp.into_body().collect()).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(body.to_bytes().len())
}

/// Polls a future that is ready without waiting.
fn futures_lite_block_on<F: std::future::Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let requests: usize = args.next().map_or(Ok(1000), |a| a.parse())?;
    let threads: usize = args.next().map_or(Ok(2), |a| a.parse())?;
    let engine = Engine::default();
    let component = Component::new(&engine, wat::parse_str(common::proxy("0.2.12", common::FIXED))?)?;
    let mut linker = Linker::<State>::new(&engine);
    weft_wasi_http::p2::add_to_linker_sync(&mut linker)?;
    let pre = ProxyPre::new(linker.instantiate_pre(&component)?)?;
    round_trip(&pre)?;

    let start = Instant::now();
    for _ in 0..requests {
        assert_eq!(round_trip(&pre)?, common::FIXED_BODY.len());
    }
    let t = start.elapsed().as_secs_f64();
    println!(
        "in process, one thread: {requests} requests in {t:.3} s ({:.0} requests/s)",
        requests as f64 / t
    );

    let next = AtomicUsize::new(0);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while next.fetch_add(1, Ordering::Relaxed) < requests {
                    assert_eq!(round_trip(&pre).expect("round trip"), common::FIXED_BODY.len());
                }
            });
        }
    });
    let t = start.elapsed().as_secs_f64();
    println!(
        "in process, {threads} threads: {requests} requests in {t:.3} s ({:.0} requests/s)",
        requests as f64 / t
    );
    Ok(())
}

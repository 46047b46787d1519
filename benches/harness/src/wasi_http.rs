//! `wasi-http-round-trip`: one `wasi:http` request through a proxy
//! component in process, as `wasmtime serve` and `weft serve` handle each
//! request once the component is compiled: a store with WASI and
//! `wasi:http` contexts, an instance from one `ProxyPre`, the request and
//! response-outparam resources, a call of `wasi:http/incoming-handler.handle`
//! and the response's body read to its end. No network: the row measures
//! the engine and its `wasi:http` host, not the sockets.
//!
//! The guest is the fixed-answer proxy of weft-wasi-http's tests (200,
//! `content-type: text/plain`, a 22-byte body), written in WAT there.

#[allow(dead_code, reason = "the row uses one of the test guests")]
#[path = "../../../crates/weft-wasi-http/tests/all/common/mod.rs"]
mod guests;

/// The proxy's component text.
fn proxy() -> String {
    guests::proxy("0.2.3", guests::FIXED)
}

/// Polls a future that needs no waiting (the guest has finished the body
/// before the call returns), yielding the thread between polls.
fn ready<F: std::future::Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}

macro_rules! wasi_http_engine {
    ($name:ident, $rt:ident, $wasi:ident, $http:ident, $err:ty) => {
        pub mod $name {
            use crate::sample;
            use bytes::Bytes;
            use http_body_util::BodyExt;
            use std::time::Instant;
            use $http::p2::bindings::http::types::Scheme;
            use $http::p2::bindings::sync::ProxyPre;
            use $http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};
            use $rt::component::{Component, Linker, ResourceTable};
            use $rt::{Config, Engine, Store};
            use $wasi::{WasiCtx, WasiCtxView, WasiView};

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

            /// One request through the proxy; the length of the body.
            fn round_trip(pre: &ProxyPre<State>) -> anyhow::Result<usize> {
                let state = State {
                    wasi: WasiCtx::builder().build(),
                    http: WasiHttpCtx::new(),
                    table: ResourceTable::new(),
                };
                let mut store = Store::new(pre.engine(), state);
                let (tx, mut rx) = tokio::sync::oneshot::channel();
                // An empty body whose error type the host takes.
                let body = http_body_util::Empty::<Bytes>::new().map_err(|never| -> $err { match never {} });
                let req = http::Request::get("http://localhost/").body(body)?;
                let req = store.data_mut().http().new_incoming_request(Scheme::Http, req)?;
                let out = store.data_mut().http().new_response_outparam(tx)?;
                let proxy = pre.instantiate(&mut store)?;
                proxy.wasi_http_incoming_handler().call_handle(&mut store, req, out)?;
                let resp = rx.try_recv()?.map_err(|e| anyhow::anyhow!("{e:?}"))?;
                let body = super::ready(resp.into_body().collect()).map_err(|e| anyhow::anyhow!("{e:?}"))?;
                Ok(body.to_bytes().len())
            }

            pub fn run(reps: usize) -> anyhow::Result<()> {
                let engine = Engine::new(&Config::new())?;
                let component = Component::new(&engine, super::proxy())?;
                let mut linker = Linker::<State>::new(&engine);
                $http::p2::add_to_linker_sync(&mut linker)?;
                let pre = ProxyPre::new(linker.instantiate_pre(&component)?)?;
                // A warm-up request, then the timed ones.
                for rep in 0..=reps {
                    let start = Instant::now();
                    let len = round_trip(&pre)?;
                    let elapsed = start.elapsed();
                    anyhow::ensure!(len == super::guests::FIXED_BODY.len(), "a body of {len} bytes");
                    if rep > 0 {
                        sample("round_trip", elapsed);
                    }
                }
                Ok(())
            }
        }
    };
}

wasi_http_engine!(weft_http, weft, weft_wasi, weft_wasi_http, std::convert::Infallible);
wasi_http_engine!(
    wasmtime_http,
    wasmtime,
    wasmtime_wasi,
    wasmtime_wasi_http,
    wasmtime_wasi_http::p2::bindings::http::types::ErrorCode
);

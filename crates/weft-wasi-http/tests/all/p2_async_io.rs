//! The async `wasi:http/proxy` linker with a body read and written
//! through `wasi:io`: the guest's blocking reads of the request body and
//! writes of the response body await the bodies' futures (hyper's side
//! reads the response while the guest writes it).

#![cfg(feature = "async")]

#[allow(dead_code, reason = "each test binary uses a part of the guests")]
use crate::common;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use weft::component::{Component, Linker, ResourceTable};
use weft::{Engine, Store};
use weft_wasi::p2::{WasiCtx, WasiCtxView, WasiView};
use weft_wasi_http::p2::bindings::http::types::Scheme;
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

#[test]
fn the_async_proxy_echoes_a_body() -> weft::Result<()> {
    let engine = Engine::default();
    let component = Component::new(&engine, wat::parse_str(common::proxy("0.2.12", common::ECHO))?)?;
    let mut linker = Linker::<State>::new(&engine);
    weft_wasi_http::p2::add_to_linker_async(&mut linker)?;
    let pre = weft_wasi_http::p2::bindings::ProxyPre::new(linker.instantiate_pre(&component)?)?;
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).build()?;
    let body: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    rt.block_on(async {
        let state = State {
            wasi: WasiCtx::builder().build(),
            http: WasiHttpCtx::new(),
            table: ResourceTable::new(),
        };
        let mut store = Store::new(&engine, state);
        let (tx, rx) = tokio::sync::oneshot::channel();
        let req = http::Request::post("http://example.org/echo")
            .header("content-length", body.len().to_string())
            .body(Full::new(Bytes::from(body.clone())))?;
        let req = store.data_mut().http().new_incoming_request(Scheme::Http, req)?;
        let out = store.data_mut().http().new_response_outparam(tx)?;
        let proxy = pre.instantiate_async(&mut store).await?;
        let reader = tokio::spawn(async move {
            let resp = rx.await?.map_err(|e| anyhow::anyhow!("{e}"))?;
            let status = resp.status();
            let got = resp.into_body().collect().await.map_err(|e| anyhow::anyhow!("{e}"))?;
            Ok::<_, anyhow::Error>((status, got.to_bytes()))
        });
        proxy
            .wasi_http_incoming_handler()
            .call_handle(&mut store, req, out)
            .await?;
        drop(store);
        let (status, got) = reader.await??;
        assert_eq!(status, 200);
        assert_eq!(got, body);
        Ok(())
    })
}

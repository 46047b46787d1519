//! Many WASI 0.3 sockets waiting at once cost no thread each: 200 guests
//! (one store each, all on one single-threaded executor) listen and wait
//! in `accept` at the same time, and the process's thread count stays
//! about where it was; then each gets its connection and sends on it.
//! (The sockets wait on tokio's I/O driver; they used to start a helper
//! thread per wait.) In its own test binary, so no other test's threads
//! are counted.

#![cfg(feature = "p3")]

#[allow(dead_code, reason = "each test binary uses a part of the guests")]
#[path = "all/p3_guest/mod.rs"]
mod p3_guest;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use weft::component::{Component, Linker, ResourceTable};
use weft::{Engine, Store};
use weft_wasi::p3::bindings::Command;
use weft_wasi::p3::{add_to_linker, WasiCtx, WasiCtxView, WasiView};
use weft_wasi::sockets::SocketAddrUse;
use weft_wasi::WasiCtxBuilder;

const GUESTS: usize = 200;

struct State {
    ctx: WasiCtx,
    table: ResourceTable,
}

impl WasiView for State {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.ctx,
            table: &mut self.table,
        }
    }
}

/// The threads of this process now.
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map(|d| d.count()).unwrap_or(0)
}

#[test]
fn two_hundred_waiting_sockets_start_no_thread_each() -> weft::Result<()> {
    let engine = Engine::default();
    // Port 0: each guest listens on a port of the system's choice, which
    // the address check (asked about the listening address) records.
    let component = Component::new(
        &engine,
        wat::parse_str(p3_guest::tcp_component(p3_guest::TcpMode::Listen(0), "accepted"))?,
    )?;
    let mut linker = Linker::<State>::new(&engine);
    add_to_linker(&mut linker)?;
    let ports = Arc::new(Mutex::new(Vec::new()));

    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let local = tokio::task::LocalSet::new();
    let before = threads();
    let (during, results) = local.block_on(&rt, async {
        let mut guests = Vec::new();
        for _ in 0..GUESTS {
            let seen = ports.clone();
            let ctx = WasiCtxBuilder::new()
                .allow_tcp(true)
                .socket_addr_check(move |addr, use_| {
                    if use_ == SocketAddrUse::TcpListen {
                        seen.lock().unwrap().push(addr.port());
                    }
                    Box::pin(async move { addr.ip().is_loopback() })
                })
                .build();
            let mut store = Store::new(
                &engine,
                State {
                    ctx,
                    table: ResourceTable::new(),
                },
            );
            let (component, linker) = (component.clone(), linker.clone());
            guests.push(tokio::task::spawn_local(async move {
                let command = Command::instantiate_async(&mut store, &component, &linker).await?;
                store
                    .run_concurrent(async move |store| command.wasi_cli_run().call_run(store).await)
                    .await?
            }));
        }
        // Until every guest listens (and so waits in `accept`).
        let deadline = Instant::now() + Duration::from_secs(60);
        while ports.lock().unwrap().len() < GUESTS {
            assert!(
                Instant::now() < deadline,
                "only {} guests listen",
                ports.lock().unwrap().len()
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // Let them wait a while (a helper thread per wait lived 100 ms
        // and was replaced), counting the threads meanwhile.
        let mut during = 0;
        for _ in 0..10 {
            tokio::time::sleep(Duration::from_millis(30)).await;
            during = during.max(threads());
        }
        // Each guest accepts its connection and sends on it.
        let ports: Vec<u16> = ports.lock().unwrap().clone();
        let mut clients = Vec::new();
        for port in ports {
            clients.push(tokio::task::spawn_local(async move {
                let mut conn = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
                let mut got = Vec::new();
                tokio::io::AsyncReadExt::read_to_end(&mut conn, &mut got).await?;
                Ok::<_, std::io::Error>(got)
            }));
        }
        let mut results = Vec::new();
        for (guest, client) in guests.into_iter().zip(clients) {
            results.push((guest.await.expect("guest task"), client.await.expect("client task")));
        }
        (during, results)
    });
    for (guest, client) in results {
        assert_eq!(guest?, Ok(()));
        assert_eq!(String::from_utf8_lossy(&client?), "accepted");
    }
    // This crate's runtime (one worker) may start meanwhile, and tokio
    // keeps a few blocking threads; 200 waits must not be 200 threads.
    assert!(
        during < before + 16,
        "{before} threads before, {during} while {GUESTS} sockets waited"
    );
    Ok(())
}

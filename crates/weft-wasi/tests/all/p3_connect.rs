//! WASI 0.3 `tcp-socket.connect` is a non-blocking `connect(2)` whose
//! outcome the guest's task awaits: a connection is made, and a refused
//! one is `connection-refused` (the socket stays unconnected).

#![cfg(feature = "p3")]

use crate::common::State;
use crate::p3_guest;

use weft::component::{Component, Linker, ResourceTable};
use weft::{Engine, Store};
use weft_wasi::p3::add_to_linker;
use weft_wasi::p3::bindings::Command;
use weft_wasi::{I32Exit, WasiCtxBuilder};

/// Runs the TCP guest connecting to `port` on a current-thread runtime.
fn connect_to(port: u16) -> weft::Result<Result<(), ()>> {
    let engine = Engine::default();
    let wat = p3_guest::tcp_component(p3_guest::TcpMode::Connect(port), "hi");
    let component = Component::new(&engine, wat::parse_str(wat)?)?;
    let mut linker = Linker::<State>::new(&engine);
    add_to_linker(&mut linker)?;
    let ctx = WasiCtxBuilder::new()
        .allow_tcp(true)
        .socket_addr_check(|addr, _| Box::pin(async move { addr.ip().is_loopback() }))
        .build();
    let mut store = Store::new(
        &engine,
        State {
            ctx,
            table: ResourceTable::new(),
        },
    );
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    rt.block_on(async {
        let command = Command::instantiate_async(&mut store, &component, &linker).await?;
        store
            .run_concurrent(async move |store| command.wasi_cli_run().call_run(store).await)
            .await?
    })
}

#[test]
fn connect_succeeds_and_a_refused_connect_is_connection_refused() -> weft::Result<()> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let reader = std::thread::spawn(move || -> std::io::Result<Vec<u8>> {
        let (mut conn, _) = listener.accept()?;
        let mut got = Vec::new();
        std::io::Read::read_to_end(&mut conn, &mut got)?;
        Ok(got)
    });
    assert_eq!(connect_to(port)?, Ok(()));
    assert_eq!(reader.join().expect("reader")?, b"hi");

    // Nobody listens on a port just freed: `connect` fails with
    // `connection-refused` (case 9), and the guest exits with 120 + 9.
    let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let err = connect_to(port).unwrap_err();
    assert_eq!(err.downcast_ref::<I32Exit>(), Some(&I32Exit(129)), "{err:?}");
    Ok(())
}

//! The pollables of WASI 0.2 are futures woken by their wakers: a `poll`
//! on a TCP socket's stream is woken by tokio's reactor when the peer's
//! bytes arrive, whatever executor polls it. The test drives the async
//! host functions with an executor of its own that counts how often each
//! call's future is polled: a woken future is polled once more, so a
//! round trip costs at most two polls — where a loop that re-checks on a
//! timer would cost one poll per check.

#![cfg(feature = "p2")]

use std::future::Future;
use std::io::{Read, Write};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use weft::component::{Resource, ResourceTable};
use weft_wasi::p2::bindings::wasi::io::poll::{Host as _, HostPollable};
use weft_wasi::p2::bindings::wasi::io::streams::{HostInputStream, HostOutputStream};
use weft_wasi::p2::bindings::wasi::sockets::instance_network::Host as _;
use weft_wasi::p2::bindings::wasi::sockets::network::{IpAddressFamily, IpSocketAddress, Ipv4SocketAddress};
use weft_wasi::p2::bindings::wasi::sockets::tcp::HostTcpSocket as Tcp;
use weft_wasi::p2::bindings::wasi::sockets::tcp_create_socket::Host as _;
use weft_wasi::p2::SocketResult;
use weft_wasi::sockets::WasiSocketsCtxView;
use weft_wasi::WasiCtxBuilder;

struct ThreadWaker(std::thread::Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs `fut` to its end on this thread (no tokio runtime here), parking
/// between polls; also returns how many times it was polled.
fn block_on_counting<F: Future>(fut: F) -> (F::Output, u32) {
    let mut fut = std::pin::pin!(fut);
    let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut polls = 0;
    loop {
        polls += 1;
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return (v, polls);
        }
        std::thread::park();
    }
}

#[track_caller]
fn ok<T>(r: SocketResult<T>) -> T {
    r.map_err(|e| format!("{e}")).expect("the call succeeds")
}

const ROUND_TRIPS: u32 = 200;

#[test]
fn a_poll_on_a_tcp_stream_is_woken_by_the_reactor() -> weft::Result<()> {
    // The peer: echoes every message it gets, from a thread of its own.
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let echo = std::thread::spawn(move || -> std::io::Result<u32> {
        let (mut conn, _) = listener.accept()?;
        let mut buf = [0u8; 64];
        let mut echoed = 0;
        loop {
            let n = conn.read(&mut buf)?;
            if n == 0 {
                return Ok(echoed);
            }
            conn.write_all(&buf[..n])?;
            echoed += 1;
        }
    });

    let mut ctx = WasiCtxBuilder::new()
        .allow_tcp(true)
        .socket_addr_check(|addr, _| Box::pin(async move { addr.ip().is_loopback() }))
        .build();
    let mut table = ResourceTable::new();
    let mut v = WasiSocketsCtxView {
        ctx: ctx.sockets(),
        table: &mut table,
    };
    let net = v.instance_network()?;
    let client = ok(v.create_tcp_socket(IpAddressFamily::Ipv4));
    let addr = IpSocketAddress::Ipv4(Ipv4SocketAddress {
        port,
        address: (127, 0, 0, 1),
    });
    ok(Tcp::start_connect(&mut v, client, net, addr));
    let connected = Tcp::subscribe(&mut v, Resource::new_borrow(client.rep()))?;
    let (r, _) = block_on_counting(HostPollable::block(
        &mut *v.table,
        Resource::new_borrow(connected.rep()),
    ));
    r?;
    HostPollable::drop(&mut *v.table, connected)?;
    let (input, output) = ok(Tcp::finish_connect(&mut v, client));
    let readable = HostInputStream::subscribe(&mut *v.table, Resource::new_borrow(input.rep()))?;

    let mut polls = 0;
    let mut waited = 0;
    for i in 0..ROUND_TRIPS {
        let msg = format!("ping {i}").into_bytes();
        let (r, _) = block_on_counting(HostOutputStream::blocking_write_and_flush(
            &mut *v.table,
            Resource::new_borrow(output.rep()),
            msg.clone(),
        ));
        r.map_err(|e| anyhow::anyhow!("{e}"))?;
        // Wait for the echo with `poll`, then read it without blocking.
        let mut got = Vec::new();
        while got.len() < msg.len() {
            let (ready, n) = block_on_counting(v.table.poll(vec![Resource::new_borrow(readable.rep())]));
            assert_eq!(ready?, vec![0]);
            polls += n;
            waited += 1;
            let bytes = HostInputStream::read(&mut *v.table, Resource::new_borrow(input.rep()), 64)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            got.extend(bytes);
        }
        assert_eq!(got, msg);
    }
    // Each wait was polled once and, if it was not ready then, once more
    // when the reactor woke it: never more.
    assert!(
        polls <= 2 * waited,
        "{polls} polls for {waited} waits: a wait was polled without being woken by its event"
    );
    assert!(waited >= ROUND_TRIPS);
    eprintln!("{waited} waits, {polls} polls");

    HostPollable::drop(&mut *v.table, readable)?;
    let (r, _) = block_on_counting(HostInputStream::drop(&mut *v.table, input));
    r?;
    let (r, _) = block_on_counting(HostOutputStream::drop(&mut *v.table, output));
    r?;
    Tcp::drop(&mut v, client)?;
    let echoed = echo.join().expect("the echo thread ends")?;
    assert_eq!(echoed, ROUND_TRIPS);
    Ok(())
}

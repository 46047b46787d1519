//! `wasi:sockets` of WASI 0.2, called through the host traits of
//! `p2::bindings` (the sync flavour's `tcp` and `udp`, which run the async
//! flavour's functions to their end) as a guest's calls reach them: TCP
//! and UDP over loopback, name lookup, and everything refused unless the
//! context allows it.

#![cfg(feature = "p2")]

use std::net::Ipv4Addr;
use weft::component::{Resource, ResourceTable};
use weft_wasi::p2::bindings::sync::wasi::io::poll::{Host as _, HostPollable};
use weft_wasi::p2::bindings::sync::wasi::io::streams::{HostInputStream as _, HostOutputStream as _};
use weft_wasi::p2::bindings::sync::wasi::sockets::tcp::{HostTcpSocket as Tcp, ShutdownType};
use weft_wasi::p2::bindings::sync::wasi::sockets::udp::{
    HostIncomingDatagramStream as Incoming, HostOutgoingDatagramStream as _, HostUdpSocket as Udp, OutgoingDatagram,
};
use weft_wasi::p2::bindings::sync::wasi::sockets::udp_create_socket::Host as _;
use weft_wasi::p2::bindings::wasi::sockets::instance_network::Host as _;
use weft_wasi::p2::bindings::wasi::sockets::ip_name_lookup::{Host as _, HostResolveAddressStream as Resolve};
use weft_wasi::p2::bindings::wasi::sockets::network::{
    ErrorCode, IpAddress, IpAddressFamily, IpSocketAddress, Ipv4SocketAddress,
};
use weft_wasi::p2::bindings::wasi::sockets::tcp_create_socket::Host as _;
use weft_wasi::p2::{SocketResult, StreamError, WasiCtx};
use weft_wasi::sockets::WasiSocketsCtxView;
use weft_wasi::WasiCtxBuilder;

/// The error code of a failed call.
#[track_caller]
fn code<T>(r: SocketResult<T>) -> ErrorCode {
    match r {
        Ok(_) => panic!("the call succeeded"),
        Err(e) => e.downcast().expect("an error code, not a trap"),
    }
}

#[track_caller]
fn ok<T>(r: SocketResult<T>) -> T {
    r.map_err(|e| format!("{e}")).expect("the call succeeds")
}

fn loopback(port: u16) -> IpSocketAddress {
    IpSocketAddress::Ipv4(Ipv4SocketAddress {
        port,
        address: (127, 0, 0, 1),
    })
}

fn port(a: IpSocketAddress) -> u16 {
    match a {
        IpSocketAddress::Ipv4(a) => a.port,
        IpSocketAddress::Ipv6(a) => a.port,
    }
}

/// A context that allows TCP, UDP and name lookup on loopback only.
fn loopback_ctx() -> WasiCtx {
    WasiCtxBuilder::new()
        .allow_tcp(true)
        .allow_udp(true)
        .allow_ip_name_lookup(true)
        .socket_addr_check(|addr, _| Box::pin(async move { addr.ip().is_loopback() }))
        .build()
}

// A guest subscribes through a borrow of its socket (an owned handle would
// be deleted with the pollable), so the calls below pass borrows.
#[test]
fn tcp_echo_over_loopback() -> weft::Result<()> {
    let mut ctx = loopback_ctx();
    let mut table = ResourceTable::new();
    let mut v = WasiSocketsCtxView {
        ctx: ctx.sockets(),
        table: &mut table,
    };
    let net = v.instance_network()?;
    let server = ok(v.create_tcp_socket(IpAddressFamily::Ipv4));
    ok(Tcp::start_bind(&mut v, server, net, loopback(0)));
    ok(Tcp::finish_bind(&mut v, server));
    ok(Tcp::start_listen(&mut v, server));
    ok(Tcp::finish_listen(&mut v, server));
    assert!(Tcp::is_listening(&mut v, server)?);
    let server_port = port(ok(Tcp::local_address(&mut v, server)));
    assert_ne!(server_port, 0);
    // Nothing to accept yet.
    assert_eq!(code(Tcp::accept(&mut v, server)), ErrorCode::WouldBlock);

    let client = ok(v.create_tcp_socket(IpAddressFamily::Ipv4));
    assert_eq!(code(Tcp::finish_connect(&mut v, client)), ErrorCode::NotInProgress);
    ok(Tcp::start_connect(&mut v, client, net, loopback(server_port)));
    // The connection is made in the background; the socket's pollable is
    // ready when it is.
    let connected = Tcp::subscribe(&mut v, Resource::new_borrow(client.rep()))?;
    HostPollable::block(&mut *v.table, Resource::new_borrow(connected.rep()))?;
    HostPollable::drop(&mut *v.table, connected)?;
    let (c_in, c_out) = ok(Tcp::finish_connect(&mut v, client));
    assert_eq!(port(ok(Tcp::remote_address(&mut v, client))), server_port);

    // The listener's pollable becomes ready with the connection.
    let ready = Tcp::subscribe(&mut v, Resource::new_borrow(server.rep()))?;
    assert_eq!(v.table.poll(vec![Resource::new_borrow(ready.rep())])?, vec![0]);
    HostPollable::drop(&mut *v.table, ready)?;
    let (conn, s_in, s_out) = ok(Tcp::accept(&mut v, server));
    assert_eq!(port(ok(Tcp::local_address(&mut v, conn))), server_port);

    v.table
        .blocking_write_and_flush(c_out, b"ping".to_vec())
        .map_err(|e| format!("{e}"))
        .unwrap();
    let got = v.table.blocking_read(s_in, 100).map_err(|e| format!("{e}")).unwrap();
    assert_eq!(got, b"ping");
    v.table
        .blocking_write_and_flush(s_out, b"pong".to_vec())
        .map_err(|e| format!("{e}"))
        .unwrap();
    let got = v.table.blocking_read(c_in, 100).map_err(|e| format!("{e}")).unwrap();
    assert_eq!(got, b"pong");

    // After the server shuts its side, the client reads the end.
    ok(Tcp::shutdown(&mut v, conn, ShutdownType::Send));
    assert!(matches!(v.table.blocking_read(c_in, 100), Err(StreamError::Closed)));

    // A port nobody listens on refuses the connection.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let refused = ok(v.create_tcp_socket(IpAddressFamily::Ipv4));
    ok(Tcp::start_connect(&mut v, refused, net, loopback(closed)));
    let done = Tcp::subscribe(&mut v, Resource::new_borrow(refused.rep()))?;
    HostPollable::block(&mut *v.table, Resource::new_borrow(done.rep()))?;
    HostPollable::drop(&mut *v.table, done)?;
    assert_eq!(code(Tcp::finish_connect(&mut v, refused)), ErrorCode::ConnectionRefused);
    Ok(())
}

#[test]
fn sockets_are_refused_unless_allowed() -> weft::Result<()> {
    // By default: no TCP, no UDP, no lookups.
    let mut ctx = WasiCtxBuilder::new().build();
    let mut table = ResourceTable::new();
    let mut v = WasiSocketsCtxView {
        ctx: ctx.sockets(),
        table: &mut table,
    };
    let net = v.instance_network()?;
    assert_eq!(
        code(v.create_tcp_socket(IpAddressFamily::Ipv4)),
        ErrorCode::AccessDenied
    );
    assert_eq!(
        code(v.create_udp_socket(IpAddressFamily::Ipv4)),
        ErrorCode::AccessDenied
    );
    assert_eq!(
        code(v.resolve_addresses(net, "localhost".into())),
        ErrorCode::AccessDenied
    );

    // TCP allowed, but no address: binding and connecting are refused.
    let mut ctx = WasiCtxBuilder::new().allow_tcp(true).build();
    let mut v = WasiSocketsCtxView {
        ctx: ctx.sockets(),
        table: &mut table,
    };
    let net = v.instance_network()?;
    let s = ok(v.create_tcp_socket(IpAddressFamily::Ipv4));
    assert_eq!(
        code(Tcp::start_bind(&mut v, s, net, loopback(0))),
        ErrorCode::AccessDenied
    );
    assert_eq!(
        code(Tcp::start_connect(&mut v, s, net, loopback(9))),
        ErrorCode::AccessDenied
    );

    // Loopback only: the wildcard address is refused, before any traffic.
    let mut ctx = loopback_ctx();
    let mut v = WasiSocketsCtxView {
        ctx: ctx.sockets(),
        table: &mut table,
    };
    let net = v.instance_network()?;
    let s = ok(v.create_tcp_socket(IpAddressFamily::Ipv4));
    let any = IpSocketAddress::Ipv4(Ipv4SocketAddress {
        port: 0,
        address: (0, 0, 0, 0),
    });
    assert_eq!(code(Tcp::start_bind(&mut v, s, net, any)), ErrorCode::AccessDenied);
    // A bad state and a bad family are errors too.
    assert_eq!(code(Tcp::start_listen(&mut v, s)), ErrorCode::InvalidState);
    let v6 = ok(v.create_tcp_socket(IpAddressFamily::Ipv6));
    assert_eq!(
        code(Tcp::start_bind(&mut v, v6, net, loopback(0))),
        ErrorCode::InvalidArgument
    );
    Ok(())
}

#[test]
fn udp_datagrams_over_loopback() -> weft::Result<()> {
    let mut ctx = loopback_ctx();
    let mut table = ResourceTable::new();
    let mut v = WasiSocketsCtxView {
        ctx: ctx.sockets(),
        table: &mut table,
    };
    let net = v.instance_network()?;
    let a = ok(v.create_udp_socket(IpAddressFamily::Ipv4));
    let b = ok(v.create_udp_socket(IpAddressFamily::Ipv4));
    for s in [a, b] {
        ok(Udp::start_bind(&mut v, s, net, loopback(0)));
        ok(Udp::finish_bind(&mut v, s));
    }
    let b_port = port(ok(Udp::local_address(&mut v, b)));
    let (_a_in, a_out) = ok(Udp::stream(&mut v, a, None));
    let (b_in, _b_out) = ok(Udp::stream(&mut v, b, None));
    let permits = ok(v.check_send(a_out));
    assert!(permits >= 2);
    let sent = ok(v.send(
        a_out,
        vec![
            OutgoingDatagram {
                data: b"one".to_vec(),
                remote_address: Some(loopback(b_port)),
            },
            OutgoingDatagram {
                data: b"two".to_vec(),
                remote_address: Some(loopback(b_port)),
            },
        ],
    ));
    assert_eq!(sent, 2);
    let ready = Incoming::subscribe(&mut v, Resource::new_borrow(b_in.rep()))?;
    v.table.block(Resource::new_borrow(ready.rep()))?;
    HostPollable::drop(&mut *v.table, ready)?;
    let mut got = Vec::new();
    for _ in 0..100 {
        got.extend(ok(v.receive(b_in, 10)));
        if got.len() == 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let data: Vec<&[u8]> = got.iter().map(|d| &d.data[..]).collect();
    assert_eq!(data, [&b"one"[..], &b"two"[..]]);
    assert_eq!(port(got[0].remote_address), port(ok(Udp::local_address(&mut v, a))));
    Ok(())
}

#[test]
fn names_resolve_when_allowed() -> weft::Result<()> {
    let mut ctx = loopback_ctx();
    let mut table = ResourceTable::new();
    let mut v = WasiSocketsCtxView {
        ctx: ctx.sockets(),
        table: &mut table,
    };
    let net = v.instance_network()?;
    let s = ok(v.resolve_addresses(net, "127.0.0.1".into()));
    assert!(matches!(
        ok(v.resolve_next_address(s)),
        Some(IpAddress::Ipv4((127, 0, 0, 1)))
    ));
    assert!(ok(v.resolve_next_address(s)).is_none());
    let s = ok(v.resolve_addresses(net, "localhost".into()));
    // The lookup runs in the background; its pollable is ready when it
    // is done.
    let done = Resolve::subscribe(&mut v, Resource::new_borrow(s.rep()))?;
    HostPollable::block(&mut *v.table, Resource::new_borrow(done.rep()))?;
    HostPollable::drop(&mut *v.table, done)?;
    let mut found = Vec::new();
    while let Some(a) = ok(v.resolve_next_address(s)) {
        found.push(a);
    }
    assert!(!found.is_empty());
    for a in found {
        let ip: std::net::IpAddr = match a {
            IpAddress::Ipv4((x, y, z, w)) => Ipv4Addr::new(x, y, z, w).into(),
            IpAddress::Ipv6((a, b, c, d, e, f, g, h)) => std::net::Ipv6Addr::new(a, b, c, d, e, f, g, h).into(),
        };
        assert!(ip.is_loopback(), "{ip}");
    }
    assert_eq!(
        code(v.resolve_addresses(net, "no such name".into())),
        ErrorCode::InvalidArgument
    );
    Ok(())
}

/// 48's `socket_addr_check` is asked, through its future, about listening
/// (`SocketAddrUse::TcpListen`, with the bound local address) apart from
/// binding: a check that allows binds but not listens refuses `listen`.
#[test]
fn listening_is_checked_apart_from_binding() -> weft::Result<()> {
    use weft_wasi::sockets::SocketAddrUse;
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    let mut ctx = WasiCtxBuilder::new()
        .allow_tcp(true)
        .socket_addr_check(move |addr, what| {
            log.lock().unwrap().push((addr, what));
            Box::pin(async move { what != SocketAddrUse::TcpListen })
        })
        .build();
    let mut table = ResourceTable::new();
    let mut v = WasiSocketsCtxView {
        ctx: ctx.sockets(),
        table: &mut table,
    };
    let net = v.instance_network()?;
    let server = ok(v.create_tcp_socket(IpAddressFamily::Ipv4));
    ok(Tcp::start_bind(&mut v, server, net, loopback(0)));
    ok(Tcp::finish_bind(&mut v, server));
    let bound = ok(Tcp::local_address(&mut v, server));
    assert_eq!(code(Tcp::start_listen(&mut v, server)), ErrorCode::AccessDenied);
    assert!(!Tcp::is_listening(&mut v, server)?);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[0].1, SocketAddrUse::TcpBind);
    assert_eq!(seen[1].1, SocketAddrUse::TcpListen);
    assert_eq!(seen[1].0.port(), port(bound));
    assert!(seen[1].0.ip().is_loopback());
    Ok(())
}

/// The async flavour's `start-bind`, `start-listen` and UDP `stream` await
/// the embedder's check on the caller's executor (48 made them `async` for
/// this): a check answered by another task of the same current-thread
/// runtime is answered. (The sync flavour blocks its thread on the check,
/// so such a check could not be answered there.)
#[test]
fn the_async_flavour_awaits_the_check_on_the_callers_runtime() -> weft::Result<()> {
    use std::net::SocketAddr;
    use tokio::sync::{mpsc, oneshot};
    use weft_wasi::p2::bindings::wasi::sockets::network::HostNetwork;
    use weft_wasi::p2::bindings::wasi::sockets::tcp::HostTcpSocket as AsyncTcp;
    use weft_wasi::p2::bindings::wasi::sockets::udp::{
        HostOutgoingDatagramStream as AsyncOutgoing, HostUdpSocket as AsyncUdp,
    };
    use weft_wasi::p2::bindings::wasi::sockets::udp_create_socket::Host as AsyncUdpCreate;
    use weft_wasi::sockets::SocketAddrUse;

    type Question = (SocketAddr, SocketAddrUse, oneshot::Sender<bool>);
    let (ask, mut questions) = mpsc::unbounded_channel::<Question>();
    let mut ctx = WasiCtxBuilder::new()
        .allow_tcp(true)
        .allow_udp(true)
        .socket_addr_check(move |addr, what| {
            let (reply, answer) = oneshot::channel();
            let asked = ask.send((addr, what, reply)).is_ok();
            Box::pin(async move { asked && answer.await.unwrap_or(false) })
        })
        .build();
    let runtime = tokio::runtime::Builder::new_current_thread().build()?;
    let asked = runtime.block_on(async {
        // The answers come from a task of this runtime, which runs only
        // while the host function's future waits.
        let answers = tokio::spawn(async move {
            let mut asked = Vec::new();
            while let Some((addr, what, reply)) = questions.recv().await {
                asked.push(what);
                let _ = reply.send(addr.ip().is_loopback() && what != SocketAddrUse::TcpListen);
            }
            asked
        });
        let mut table = ResourceTable::new();
        let mut v = WasiSocketsCtxView {
            ctx: ctx.sockets(),
            table: &mut table,
        };
        let net = v.instance_network()?;
        let server = ok(v.create_tcp_socket(IpAddressFamily::Ipv4));
        ok(AsyncTcp::start_bind(&mut v, server, net, loopback(0)).await);
        ok(Tcp::finish_bind(&mut v, server));
        assert_eq!(
            code(AsyncTcp::start_listen(&mut v, server).await),
            ErrorCode::AccessDenied
        );

        let a = ok(AsyncUdpCreate::create_udp_socket(&mut v, IpAddressFamily::Ipv4).await);
        ok(AsyncUdp::start_bind(&mut v, Resource::new_borrow(a.rep()), net, loopback(0)).await);
        ok(Udp::finish_bind(&mut v, Resource::new_borrow(a.rep())));
        let to = ok(Udp::local_address(&mut v, Resource::new_borrow(a.rep())));
        let (incoming, outgoing) = ok(AsyncUdp::stream(&mut v, Resource::new_borrow(a.rep()), Some(to)).await);
        AsyncOutgoing::drop(&mut v, outgoing).await?;
        Incoming::drop(&mut v, incoming)?;
        Udp::drop(&mut v, a)?;
        Tcp::drop(&mut v, server)?;
        HostNetwork::drop(&mut v, net)?;
        assert!(table.is_empty());
        drop(ctx);
        Ok::<_, weft::Error>(answers.await?)
    })?;
    use SocketAddrUse::*;
    assert_eq!(asked, [TcpBind, TcpListen, UdpBind, UdpSend]);
    Ok(())
}

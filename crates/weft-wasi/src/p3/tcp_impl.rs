//! `wasi:sockets/types@0.3`: TCP and UDP sockets over WASI 0.2's socket
//! values (a 0.3 `tcp-socket` is a [`crate::p2::TcpSocket`], a
//! `udp-socket` a [`crate::p2::UdpSocket`], in the same table), with the
//! same context checks: TCP and UDP must be allowed
//! ([`crate::WasiCtxBuilder::allow_tcp`], `allow_udp`) and every address a
//! socket binds, connects or sends to, or accepts or receives from, must
//! pass the context's address check (a refused peer's connection or
//! datagram is dropped).
//!
//! Nothing blocks the event loop: `connect` starts a non-blocking
//! `connect(2)` and awaits its outcome; reads, writes, accepts, sends and
//! receives try the socket first: when the socket is not ready, the task waits on
//! the socket's registration with tokio's I/O driver (the [`Reactor`] of
//! WASI 0.2's sockets, on this crate's runtime), which wakes it; no thread
//! is spent on a socket.

use super::bindings::wasi::sockets::types::{
    self as t, ErrorCode, IpAddressFamily, IpSocketAddress, Ipv4SocketAddress, Ipv6SocketAddress,
};
use super::slot::ResultSlot;
use crate::p2::bindings::wasi::sockets::network::{ErrorCode as P2Code, IpAddressFamily as P2Family};
use crate::p2::reactor::{Reactor, Want, Watchable};
use crate::p2::sockets::{
    buffer_size, check_family, domain, error_code, hop_limit, keepalive_duration, set_hop_limit, std_addr, TcpState,
};
use crate::p2::{SocketError, TcpSocket, UdpSocket};
use crate::sockets::{SocketAddrUse, WasiSockets, WasiSocketsCtx, WasiSocketsCtxView, WasiSocketsView};
use socket2::{SockRef, Socket, Type};
use std::future::Future;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use weft::component::{
    Access, Accessor, Destination, FutureReader, Resource, Source, StreamConsumer, StreamProducer, StreamReader,
    StreamResult, VecBuffer,
};
use weft::StoreContextMut;

/// The result of a `wasi:sockets` 0.3 function: a trap, or the guest's
/// result.
type Res<T> = weft::Result<Result<T, ErrorCode>>;

/// WASI 0.2's error code as 0.3's.
fn code(c: P2Code) -> ErrorCode {
    match c {
        P2Code::AccessDenied => ErrorCode::AccessDenied,
        P2Code::NotSupported => ErrorCode::NotSupported,
        P2Code::InvalidArgument => ErrorCode::InvalidArgument,
        P2Code::OutOfMemory => ErrorCode::OutOfMemory,
        P2Code::Timeout => ErrorCode::Timeout,
        P2Code::InvalidState | P2Code::NotInProgress => ErrorCode::InvalidState,
        P2Code::AddressNotBindable => ErrorCode::AddressNotBindable,
        P2Code::AddressInUse => ErrorCode::AddressInUse,
        P2Code::RemoteUnreachable => ErrorCode::RemoteUnreachable,
        P2Code::ConnectionRefused => ErrorCode::ConnectionRefused,
        P2Code::ConnectionReset => ErrorCode::ConnectionReset,
        P2Code::ConnectionAborted => ErrorCode::ConnectionAborted,
        P2Code::DatagramTooLarge => ErrorCode::DatagramTooLarge,
        other => ErrorCode::Other(Some(format!("{other:?}"))),
    }
}

/// A WASI 0.2 result as a 0.3 one.
fn conv<T>(r: Result<T, SocketError>) -> Res<T> {
    match r {
        Ok(v) => Ok(Ok(v)),
        Err(e) => e.downcast().map(|c| Err(code(c))),
    }
}

/// A host error as the guest's error code.
fn io_code(e: &io::Error) -> ErrorCode {
    code(error_code(e))
}

fn p2_family(f: IpAddressFamily) -> P2Family {
    match f {
        IpAddressFamily::Ipv4 => P2Family::Ipv4,
        IpAddressFamily::Ipv6 => P2Family::Ipv6,
    }
}

fn p3_family(f: P2Family) -> IpAddressFamily {
    match f {
        P2Family::Ipv4 => IpAddressFamily::Ipv4,
        P2Family::Ipv6 => IpAddressFamily::Ipv6,
    }
}

fn to_std(addr: IpSocketAddress) -> SocketAddr {
    match addr {
        IpSocketAddress::Ipv4(a) => {
            let (x, y, z, w) = a.address;
            SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::new(x, y, z, w), a.port))
        }
        IpSocketAddress::Ipv6(a) => {
            let (b0, b1, b2, b3, b4, b5, b6, b7) = a.address;
            SocketAddr::V6(SocketAddrV6::new(
                Ipv6Addr::new(b0, b1, b2, b3, b4, b5, b6, b7),
                a.port,
                a.flow_info,
                a.scope_id,
            ))
        }
    }
}

fn from_std(addr: SocketAddr) -> IpSocketAddress {
    match addr {
        SocketAddr::V4(a) => {
            let [x, y, z, w] = a.ip().octets();
            IpSocketAddress::Ipv4(Ipv4SocketAddress {
                port: a.port(),
                address: (x, y, z, w),
            })
        }
        SocketAddr::V6(a) => {
            let [b0, b1, b2, b3, b4, b5, b6, b7] = a.ip().segments();
            IpSocketAddress::Ipv6(Ipv6SocketAddress {
                port: a.port(),
                flow_info: a.flowinfo(),
                address: (b0, b1, b2, b3, b4, b5, b6, b7),
                scope_id: a.scope_id(),
            })
        }
    }
}

/// The wait of a stream's producer or consumer for its socket to become
/// ready: a future of the socket's [`Reactor`] (tokio's I/O driver, on
/// this crate's runtime), kept between polls, so no thread waits.
#[derive(Default)]
struct Readiness {
    reactor: Reactor,
    wait: Option<Pin<Box<dyn Future<Output = ()> + Send + Sync>>>,
}

impl Readiness {
    fn new(reactor: Reactor) -> Readiness {
        Readiness { reactor, wait: None }
    }

    /// Ready when `socket` may be ready for `want` (the caller then
    /// retries its operation); pending, with `cx` woken by the reactor,
    /// until then.
    fn poll_ready<S: Watchable>(&mut self, socket: &Arc<S>, want: Want, cx: &mut Context<'_>) -> Poll<()> {
        let reactor = &self.reactor;
        let wait = self.wait.get_or_insert_with(|| {
            let (reactor, socket) = (reactor.clone(), socket.clone());
            Box::pin(async move { reactor.wait(&socket, want).await })
        });
        match wait.as_mut().poll(cx) {
            Poll::Ready(()) => {
                self.wait = None;
                Poll::Ready(())
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Whether `connect(2)` goes on in the background (`EINPROGRESS`).
fn in_progress(e: &io::Error) -> bool {
    e.raw_os_error() == Some(rustix::io::Errno::INPROGRESS.raw_os_error()) || would_block(e)
}

/// Whether an I/O error means "not now".
fn would_block(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted)
}

impl t::Host for WasiSocketsCtxView<'_> {}

impl WasiSocketsCtxView<'_> {
    fn tcp3(&mut self, s: &Resource<TcpSocket>) -> weft::Result<&mut TcpSocket> {
        Ok(self.table.get_mut(s)?)
    }
}

impl t::HostTcpSocket for WasiSocketsCtxView<'_> {
    fn create(&mut self, address_family: IpAddressFamily) -> Res<Resource<TcpSocket>> {
        if !self.ctx.allow_tcp {
            return Ok(Err(ErrorCode::AccessDenied));
        }
        let family = p2_family(address_family);
        let socket = match Socket::new(domain(family), Type::STREAM, None) {
            Ok(s) => s,
            Err(e) => return Ok(Err(io_code(&e))),
        };
        if address_family == IpAddressFamily::Ipv6 {
            if let Err(e) = socket.set_only_v6(true) {
                return Ok(Err(io_code(&e)));
            }
        }
        let s = TcpSocket {
            socket: Arc::new(socket),
            family,
            state: TcpState::Default,
            backlog: 128,
            ctx: self.ctx.clone(),
            reactor: Default::default(),
        };
        Ok(Ok(self.table.push(s)?))
    }
    fn bind(&mut self, self_: Resource<TcpSocket>, local_address: IpSocketAddress) -> Res<()> {
        let s = self.tcp3(&self_)?;
        if !matches!(s.state, TcpState::Default) {
            return Ok(Err(ErrorCode::InvalidState));
        }
        let addr = to_std(local_address);
        conv((|| {
            check_family(s.family, &addr)?;
            s.ctx.check(addr, SocketAddrUse::TcpBind)?;
            s.socket.set_reuse_address(true)?;
            s.socket.bind(&addr.into())?;
            s.state = TcpState::Bound;
            Ok(())
        })())
    }
    fn get_local_address(&mut self, self_: Resource<TcpSocket>) -> Res<IpSocketAddress> {
        let s = self.tcp3(&self_)?;
        if matches!(s.state, TcpState::Default) {
            return Ok(Err(ErrorCode::InvalidState));
        }
        conv(std_addr(s.socket.local_addr()).map(from_std))
    }
    fn get_remote_address(&mut self, self_: Resource<TcpSocket>) -> Res<IpSocketAddress> {
        let s = self.tcp3(&self_)?;
        if !matches!(s.state, TcpState::Connected) {
            return Ok(Err(ErrorCode::InvalidState));
        }
        conv(std_addr(s.socket.peer_addr()).map(from_std))
    }
    fn get_is_listening(&mut self, self_: Resource<TcpSocket>) -> weft::Result<bool> {
        Ok(matches!(self.tcp3(&self_)?.state, TcpState::Listening))
    }
    fn get_address_family(&mut self, self_: Resource<TcpSocket>) -> weft::Result<IpAddressFamily> {
        Ok(p3_family(self.tcp3(&self_)?.family))
    }
    fn set_listen_backlog_size(&mut self, self_: Resource<TcpSocket>, value: u64) -> Res<()> {
        let s = self.tcp3(&self_)?;
        if value == 0 {
            return Ok(Err(ErrorCode::InvalidArgument));
        }
        s.backlog = i32::try_from(value).unwrap_or(i32::MAX);
        match s.state {
            TcpState::Default | TcpState::Bound => Ok(Ok(())),
            TcpState::Listening => conv(s.socket.listen(s.backlog).map_err(SocketError::from)),
            _ => Ok(Err(ErrorCode::InvalidState)),
        }
    }
    fn get_keep_alive_enabled(&mut self, self_: Resource<TcpSocket>) -> Res<bool> {
        conv(self.tcp3(&self_)?.socket.keepalive().map_err(SocketError::from))
    }
    fn set_keep_alive_enabled(&mut self, self_: Resource<TcpSocket>, value: bool) -> Res<()> {
        conv(
            self.tcp3(&self_)?
                .socket
                .set_keepalive(value)
                .map_err(SocketError::from),
        )
    }
    fn get_keep_alive_idle_time(&mut self, self_: Resource<TcpSocket>) -> Res<u64> {
        let r = self.tcp3(&self_)?.socket.tcp_keepalive_time();
        conv(
            r.map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
                .map_err(SocketError::from),
        )
    }
    fn set_keep_alive_idle_time(&mut self, self_: Resource<TcpSocket>, value: u64) -> Res<()> {
        let s = self.tcp3(&self_)?;
        conv(keepalive_duration(value).and_then(|d| {
            let params = socket2::TcpKeepalive::new().with_time(d);
            Ok(s.socket.set_tcp_keepalive(&params)?)
        }))
    }
    fn get_keep_alive_interval(&mut self, self_: Resource<TcpSocket>) -> Res<u64> {
        let r = self.tcp3(&self_)?.socket.tcp_keepalive_interval();
        conv(
            r.map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
                .map_err(SocketError::from),
        )
    }
    fn set_keep_alive_interval(&mut self, self_: Resource<TcpSocket>, value: u64) -> Res<()> {
        let s = self.tcp3(&self_)?;
        conv(keepalive_duration(value).and_then(|d| {
            let params = socket2::TcpKeepalive::new().with_interval(d);
            Ok(s.socket.set_tcp_keepalive(&params)?)
        }))
    }
    fn get_keep_alive_count(&mut self, self_: Resource<TcpSocket>) -> Res<u32> {
        conv(
            self.tcp3(&self_)?
                .socket
                .tcp_keepalive_retries()
                .map_err(SocketError::from),
        )
    }
    fn set_keep_alive_count(&mut self, self_: Resource<TcpSocket>, value: u32) -> Res<()> {
        if value == 0 {
            return Ok(Err(ErrorCode::InvalidArgument));
        }
        let params = socket2::TcpKeepalive::new().with_retries(value);
        conv(
            self.tcp3(&self_)?
                .socket
                .set_tcp_keepalive(&params)
                .map_err(SocketError::from),
        )
    }
    fn get_hop_limit(&mut self, self_: Resource<TcpSocket>) -> Res<u8> {
        let s = self.tcp3(&self_)?;
        conv(hop_limit(&s.socket, s.family))
    }
    fn set_hop_limit(&mut self, self_: Resource<TcpSocket>, value: u8) -> Res<()> {
        let s = self.tcp3(&self_)?;
        conv(set_hop_limit(&s.socket, s.family, value))
    }
    fn get_receive_buffer_size(&mut self, self_: Resource<TcpSocket>) -> Res<u64> {
        conv(
            self.tcp3(&self_)?
                .socket
                .recv_buffer_size()
                .map(|n| n as u64)
                .map_err(SocketError::from),
        )
    }
    fn set_receive_buffer_size(&mut self, self_: Resource<TcpSocket>, value: u64) -> Res<()> {
        let s = self.tcp3(&self_)?;
        conv(buffer_size(value).and_then(|n| Ok(s.socket.set_recv_buffer_size(n)?)))
    }
    fn get_send_buffer_size(&mut self, self_: Resource<TcpSocket>) -> Res<u64> {
        conv(
            self.tcp3(&self_)?
                .socket
                .send_buffer_size()
                .map(|n| n as u64)
                .map_err(SocketError::from),
        )
    }
    fn set_send_buffer_size(&mut self, self_: Resource<TcpSocket>, value: u64) -> Res<()> {
        let s = self.tcp3(&self_)?;
        conv(buffer_size(value).and_then(|n| Ok(s.socket.set_send_buffer_size(n)?)))
    }
    fn drop(&mut self, rep: Resource<TcpSocket>) -> weft::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

/// Accepts the connections of a listening socket, for a guest reading
/// the `stream<tcp-socket>` of `listen`.
struct Acceptor {
    socket: Arc<Socket>,
    family: P2Family,
    ctx: WasiSocketsCtx,
    ready: Readiness,
}

impl<D: WasiSocketsView + 'static> StreamProducer<D> for Acceptor {
    type Item = Resource<TcpSocket>;
    type Buffer = Option<Resource<TcpSocket>>;

    fn poll_produce<'a>(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut store: StoreContextMut<'a, D>,
        mut destination: Destination<'a, Resource<TcpSocket>, Option<Resource<TcpSocket>>>,
        finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        loop {
            match self.socket.accept() {
                Ok((conn, peer)) => {
                    // A connection from a refused peer is dropped.
                    if !peer
                        .as_socket()
                        .is_some_and(|p| self.ctx.allows(p, SocketAddrUse::TcpAccept))
                    {
                        continue;
                    }
                    if conn.set_nonblocking(true).is_err() {
                        continue;
                    }
                    let accepted = TcpSocket {
                        socket: Arc::new(conn),
                        family: self.family,
                        state: TcpState::Connected,
                        backlog: 128,
                        ctx: self.ctx.clone(),
                        reactor: Default::default(),
                    };
                    let r = store.data_mut().sockets().table.push(accepted)?;
                    destination.set_buffer(Some(r));
                    return Poll::Ready(Ok(StreamResult::Completed));
                }
                Err(e) if would_block(&e) => {
                    if finish {
                        return Poll::Ready(Ok(StreamResult::Cancelled));
                    }
                    let this = &mut *self;
                    match this.ready.poll_ready(&this.socket, Want::Read, cx) {
                        Poll::Ready(()) => continue,
                        Poll::Pending => return Poll::Pending,
                    }
                }
                // The listener failed: the stream ends.
                Err(_) => return Poll::Ready(Ok(StreamResult::Dropped)),
            }
        }
    }
}

/// Writes what a guest writes to `send`'s stream to a connected socket.
struct Sender {
    socket: Arc<Socket>,
    slot: ResultSlot<ErrorCode>,
    ready: Readiness,
}

impl Drop for Sender {
    fn drop(&mut self) {
        let _ = self.socket.shutdown(std::net::Shutdown::Write);
        self.slot.set(Ok(()));
    }
}

impl<D: 'static> StreamConsumer<D> for Sender {
    type Item = u8;

    fn poll_consume(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        store: StoreContextMut<D>,
        source: Source<'_, u8>,
        finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        let this = self.get_mut();
        let mut src = source.as_direct(store);
        if src.remaining().is_empty() {
            return Poll::Ready(Ok(StreamResult::Completed));
        }
        loop {
            match io::Write::write(&mut &*this.socket, src.remaining()) {
                Ok(n) => {
                    src.mark_read(n);
                    return Poll::Ready(Ok(StreamResult::Completed));
                }
                Err(e) if would_block(&e) => {
                    if finish {
                        return Poll::Ready(Ok(StreamResult::Cancelled));
                    }
                    if this.ready.poll_ready(&this.socket, Want::Write, cx).is_pending() {
                        return Poll::Pending;
                    }
                }
                Err(e) => {
                    this.slot.set(Err(io_code(&e)));
                    return Poll::Ready(Ok(StreamResult::Dropped));
                }
            }
        }
    }
}

/// Reads a connected socket, for a guest reading `receive`'s stream.
struct Receiver {
    socket: Arc<Socket>,
    slot: ResultSlot<ErrorCode>,
    ready: Readiness,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.slot.set(Ok(()));
    }
}

impl<D: 'static> StreamProducer<D> for Receiver {
    type Item = u8;
    type Buffer = VecBuffer<u8>;

    fn poll_produce<'a>(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut store: StoreContextMut<'a, D>,
        destination: Destination<'a, u8, VecBuffer<u8>>,
        finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        let room = destination.remaining(&mut store).unwrap_or(64 << 10);
        if room == 0 {
            return Poll::Ready(Ok(StreamResult::Completed));
        }
        let this = self.get_mut();
        let mut buf = vec![0; room.min(1 << 20)];
        loop {
            match io::Read::read(&mut &*this.socket, &mut buf) {
                Ok(0) => return Poll::Ready(Ok(StreamResult::Dropped)),
                Ok(n) => {
                    let mut dst = destination.as_direct(store, n);
                    io::Write::write(&mut dst, &buf[..n])?;
                    return Poll::Ready(Ok(StreamResult::Completed));
                }
                Err(e) if would_block(&e) => {
                    if finish {
                        return Poll::Ready(Ok(StreamResult::Cancelled));
                    }
                    if this.ready.poll_ready(&this.socket, Want::Read, cx).is_pending() {
                        return Poll::Pending;
                    }
                }
                Err(e) => {
                    this.slot.set(Err(io_code(&e)));
                    return Poll::Ready(Ok(StreamResult::Dropped));
                }
            }
        }
    }
}

/// A future that is ready with `Err(code)`.
fn failed_future<T: 'static>(
    host: &mut Access<'_, T, WasiSockets>,
    code: ErrorCode,
) -> weft::Result<FutureReader<Result<(), ErrorCode>>> {
    let slot = ResultSlot::default();
    slot.set(Err(code));
    FutureReader::new(host, slot.wait())
}

impl<T: WasiSocketsView + 'static> t::HostTcpSocketWithStore<T> for WasiSockets {
    async fn connect(
        accessor: &Accessor<T, Self>,
        self_: Resource<TcpSocket>,
        remote_address: IpSocketAddress,
    ) -> Res<()> {
        // Starts a non-blocking `connect(2)`; its outcome, if it is not
        // known at once, is awaited on the socket's reactor.
        let started = accessor.with(|mut access| -> Res<Option<(Arc<Socket>, Reactor, TcpState)>> {
            let mut view = access.get();
            let s = view.tcp3(&self_)?;
            if !matches!(s.state, TcpState::Default | TcpState::Bound) {
                return Ok(Err(ErrorCode::InvalidState));
            }
            let addr = to_std(remote_address);
            let r = (|| -> Result<bool, SocketError> {
                check_family(s.family, &addr)?;
                if addr.ip().is_unspecified() || addr.port() == 0 {
                    return Err(P2Code::InvalidArgument.into());
                }
                s.ctx.check(addr, SocketAddrUse::TcpConnect)?;
                s.socket.set_nonblocking(true)?;
                match s.socket.connect(&addr.into()) {
                    Ok(()) => Ok(true),
                    Err(e) if in_progress(&e) => Ok(false),
                    Err(e) => Err(e.into()),
                }
            })();
            match r {
                Ok(true) => {
                    s.state = TcpState::Connected;
                    Ok(Ok(None))
                }
                Ok(false) => {
                    let before = std::mem::replace(&mut s.state, TcpState::Connecting(Ok(false)));
                    Ok(Ok(Some((s.socket.clone(), s.reactor.clone(), before))))
                }
                Err(e) => conv(Err(e)).map(|r| r.map(|()| None)),
            }
        })?;
        let (socket, reactor, before) = match started {
            Ok(Some(waiting)) => waiting,
            Ok(None) => return Ok(Ok(())),
            Err(e) => return Ok(Err(e)),
        };
        reactor.wait(&socket, Want::Write).await;
        let outcome = match socket.take_error() {
            Ok(None) => match socket.peer_addr() {
                Ok(_) => Ok(()),
                Err(e) => Err(io_code(&e)),
            },
            Ok(Some(e)) | Err(e) => Err(io_code(&e)),
        };
        accessor.with(|mut access| {
            let mut view = access.get();
            // The guest may have dropped the socket meanwhile.
            if let Ok(s) = view.tcp3(&self_) {
                s.state = match outcome {
                    Ok(()) => TcpState::Connected,
                    Err(_) => before,
                };
            }
        });
        Ok(outcome)
    }
    fn listen(mut host: Access<'_, T, Self>, self_: Resource<TcpSocket>) -> Res<StreamReader<Resource<TcpSocket>>> {
        let acceptor = {
            let mut view = host.get();
            let s = view.tcp3(&self_)?;
            if !matches!(s.state, TcpState::Bound) {
                return Ok(Err(ErrorCode::InvalidState));
            }
            match s.socket.local_addr().ok().and_then(|a| a.as_socket()) {
                Some(addr) if s.ctx.allows(addr, SocketAddrUse::TcpListen) => {}
                Some(_) => return Ok(Err(ErrorCode::AccessDenied)),
                None => return Ok(Err(ErrorCode::InvalidState)),
            }
            let r = (|| {
                s.socket.listen(s.backlog)?;
                s.socket.set_nonblocking(true)?;
                Ok::<_, io::Error>(())
            })();
            if let Err(e) = r {
                return Ok(Err(io_code(&e)));
            }
            s.state = TcpState::Listening;
            Acceptor {
                socket: s.socket.clone(),
                family: s.family,
                ctx: s.ctx.clone(),
                ready: Readiness::new(s.reactor.clone()),
            }
        };
        Ok(Ok(StreamReader::new(&mut host, acceptor)?))
    }
    fn send(
        mut host: Access<'_, T, Self>,
        self_: Resource<TcpSocket>,
        data: StreamReader<u8>,
    ) -> weft::Result<FutureReader<Result<(), ErrorCode>>> {
        let socket = {
            let mut view = host.get();
            let s = view.tcp3(&self_)?;
            matches!(s.state, TcpState::Connected).then(|| (s.socket.clone(), s.reactor.clone()))
        };
        let Some((socket, reactor)) = socket else {
            let mut data = data;
            data.close(&mut host)?;
            return failed_future(&mut host, ErrorCode::InvalidState);
        };
        let slot = ResultSlot::default();
        data.pipe(
            &mut host,
            Sender {
                socket,
                slot: slot.clone(),
                ready: Readiness::new(reactor),
            },
        )?;
        FutureReader::new(&mut host, slot.wait())
    }
    fn receive(
        mut host: Access<'_, T, Self>,
        self_: Resource<TcpSocket>,
    ) -> weft::Result<(StreamReader<u8>, FutureReader<Result<(), ErrorCode>>)> {
        let socket = {
            let mut view = host.get();
            let s = view.tcp3(&self_)?;
            matches!(s.state, TcpState::Connected).then(|| (s.socket.clone(), s.reactor.clone()))
        };
        let slot = ResultSlot::default();
        let stream = match socket {
            Some((socket, reactor)) => StreamReader::new(
                &mut host,
                Receiver {
                    socket,
                    slot: slot.clone(),
                    ready: Readiness::new(reactor),
                },
            )?,
            None => {
                slot.set(Err(ErrorCode::InvalidState));
                StreamReader::new(&mut host, Ended)?
            }
        };
        Ok((stream, FutureReader::new(&mut host, slot.wait())?))
    }
}

/// A byte stream that ends at once.
struct Ended;

impl<D: 'static> StreamProducer<D> for Ended {
    type Item = u8;
    type Buffer = VecBuffer<u8>;

    fn poll_produce<'a>(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        _store: StoreContextMut<'a, D>,
        _destination: Destination<'a, u8, VecBuffer<u8>>,
        _finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        Poll::Ready(Ok(StreamResult::Dropped))
    }
}

/// The largest datagram `receive` returns.
const MAX_DATAGRAM: usize = 64 * 1024;

impl WasiSocketsCtxView<'_> {
    fn udp3(&mut self, s: &Resource<UdpSocket>) -> weft::Result<&mut UdpSocket> {
        Ok(self.table.get_mut(s)?)
    }
}

impl t::HostUdpSocket for WasiSocketsCtxView<'_> {
    fn create(&mut self, address_family: IpAddressFamily) -> Res<Resource<UdpSocket>> {
        if !self.ctx.allow_udp {
            return Ok(Err(ErrorCode::AccessDenied));
        }
        let family = p2_family(address_family);
        let made = (|| {
            let socket = Socket::new(domain(family), Type::DGRAM, None)?;
            if address_family == IpAddressFamily::Ipv6 {
                socket.set_only_v6(true)?;
            }
            socket.set_nonblocking(true)?;
            Ok::<_, io::Error>(std::net::UdpSocket::from(socket))
        })();
        let socket = match made {
            Ok(s) => s,
            Err(e) => return Ok(Err(io_code(&e))),
        };
        let s = UdpSocket {
            socket: Arc::new(socket),
            family,
            bound: false,
            bind_started: false,
            remote: None,
            ctx: self.ctx.clone(),
            reactor: Default::default(),
        };
        Ok(Ok(self.table.push(s)?))
    }
    fn bind(&mut self, self_: Resource<UdpSocket>, local_address: IpSocketAddress) -> Res<()> {
        let s = self.udp3(&self_)?;
        if s.bound {
            return Ok(Err(ErrorCode::InvalidState));
        }
        let addr = to_std(local_address);
        conv((|| {
            check_family(s.family, &addr)?;
            s.ctx.check(addr, SocketAddrUse::UdpBind)?;
            SockRef::from(&*s.socket).bind(&addr.into())?;
            s.bound = true;
            Ok(())
        })())
    }
    fn connect(&mut self, self_: Resource<UdpSocket>, remote_address: IpSocketAddress) -> Res<()> {
        let s = self.udp3(&self_)?;
        let addr = to_std(remote_address);
        conv((|| {
            check_family(s.family, &addr)?;
            if addr.ip().is_unspecified() || addr.port() == 0 {
                return Err(P2Code::InvalidArgument.into());
            }
            s.ctx.check(addr, SocketAddrUse::UdpSend)?;
            s.socket.connect(addr)?;
            s.bound = true;
            s.remote = Some(addr);
            Ok(())
        })())
    }
    fn disconnect(&mut self, self_: Resource<UdpSocket>) -> Res<()> {
        let s = self.udp3(&self_)?;
        if s.remote.is_none() {
            return Ok(Err(ErrorCode::InvalidState));
        }
        // Dissolving the association needs `connect(2)` to `AF_UNSPEC`,
        // which neither std nor socket2 offers without `unsafe`: not done.
        Ok(Err(ErrorCode::NotSupported))
    }
    fn get_local_address(&mut self, self_: Resource<UdpSocket>) -> Res<IpSocketAddress> {
        let s = self.udp3(&self_)?;
        if !s.bound {
            return Ok(Err(ErrorCode::InvalidState));
        }
        conv(std_addr(SockRef::from(&*s.socket).local_addr()).map(from_std))
    }
    fn get_remote_address(&mut self, self_: Resource<UdpSocket>) -> Res<IpSocketAddress> {
        let s = self.udp3(&self_)?;
        Ok(s.remote.map(from_std).ok_or(ErrorCode::InvalidState))
    }
    fn get_address_family(&mut self, self_: Resource<UdpSocket>) -> weft::Result<IpAddressFamily> {
        Ok(p3_family(self.udp3(&self_)?.family))
    }
    fn get_unicast_hop_limit(&mut self, self_: Resource<UdpSocket>) -> Res<u8> {
        let s = self.udp3(&self_)?;
        let sock = SockRef::from(&*s.socket);
        let v = match s.family {
            P2Family::Ipv4 => sock.ttl_v4(),
            P2Family::Ipv6 => sock.unicast_hops_v6(),
        };
        conv(v.map(|v| v.min(255) as u8).map_err(SocketError::from))
    }
    fn set_unicast_hop_limit(&mut self, self_: Resource<UdpSocket>, value: u8) -> Res<()> {
        if value == 0 {
            return Ok(Err(ErrorCode::InvalidArgument));
        }
        let s = self.udp3(&self_)?;
        let sock = SockRef::from(&*s.socket);
        let r = match s.family {
            P2Family::Ipv4 => sock.set_ttl_v4(value.into()),
            P2Family::Ipv6 => sock.set_unicast_hops_v6(value.into()),
        };
        conv(r.map_err(SocketError::from))
    }
    fn get_receive_buffer_size(&mut self, self_: Resource<UdpSocket>) -> Res<u64> {
        let s = self.udp3(&self_)?;
        conv(
            SockRef::from(&*s.socket)
                .recv_buffer_size()
                .map(|n| n as u64)
                .map_err(SocketError::from),
        )
    }
    fn set_receive_buffer_size(&mut self, self_: Resource<UdpSocket>, value: u64) -> Res<()> {
        let s = self.udp3(&self_)?;
        conv(buffer_size(value).and_then(|n| Ok(SockRef::from(&*s.socket).set_recv_buffer_size(n)?)))
    }
    fn get_send_buffer_size(&mut self, self_: Resource<UdpSocket>) -> Res<u64> {
        let s = self.udp3(&self_)?;
        conv(
            SockRef::from(&*s.socket)
                .send_buffer_size()
                .map(|n| n as u64)
                .map_err(SocketError::from),
        )
    }
    fn set_send_buffer_size(&mut self, self_: Resource<UdpSocket>, value: u64) -> Res<()> {
        let s = self.udp3(&self_)?;
        conv(buffer_size(value).and_then(|n| Ok(SockRef::from(&*s.socket).set_send_buffer_size(n)?)))
    }
    fn drop(&mut self, rep: Resource<UdpSocket>) -> weft::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl<T: WasiSocketsView + 'static> t::HostUdpSocketWithStore<T> for WasiSockets {
    async fn send(
        accessor: &Accessor<T, Self>,
        self_: Resource<UdpSocket>,
        data: Vec<u8>,
        remote_address: Option<IpSocketAddress>,
    ) -> Res<()> {
        let checked = accessor.with(|mut access| -> Res<_> {
            let mut view = access.get();
            let s = view.udp3(&self_)?;
            let to = match (remote_address.map(to_std), s.remote) {
                (Some(a), Some(r)) if a != r => return Ok(Err(ErrorCode::InvalidArgument)),
                (Some(a), _) => a,
                (None, Some(r)) => r,
                (None, None) => return Ok(Err(ErrorCode::InvalidArgument)),
            };
            if let Err(e) = (|| {
                check_family(s.family, &to)?;
                if to.ip().is_unspecified() || to.port() == 0 {
                    return Err(SocketError::from(P2Code::InvalidArgument));
                }
                s.ctx.check(to, SocketAddrUse::UdpSend)
            })() {
                return conv(Err(e));
            }
            Ok(Ok((s.socket.clone(), to, s.remote.is_some(), s.reactor.clone())))
        })?;
        let (socket, to, connected, reactor) = match checked {
            Ok(c) => c,
            Err(e) => return Ok(Err(e)),
        };
        loop {
            let r = if connected {
                socket.send(&data)
            } else {
                socket.send_to(&data, to)
            };
            match r {
                Ok(_) => return Ok(Ok(())),
                Err(e) if would_block(&e) => reactor.wait(&socket, Want::Write).await,
                Err(e) => return Ok(Err(io_code(&e))),
            }
        }
    }
    async fn receive(accessor: &Accessor<T, Self>, self_: Resource<UdpSocket>) -> Res<(Vec<u8>, IpSocketAddress)> {
        let state = accessor.with(|mut access| -> weft::Result<_> {
            let mut view = access.get();
            let s = view.udp3(&self_)?;
            Ok(s.bound
                .then(|| (s.socket.clone(), s.remote, s.ctx.clone(), s.reactor.clone())))
        })?;
        let Some((socket, remote, ctx, reactor)) = state else {
            return Ok(Err(ErrorCode::InvalidState));
        };
        loop {
            let mut buf = vec![0; MAX_DATAGRAM];
            match socket.recv_from(&mut buf) {
                Ok((n, from)) => {
                    // A datagram from a refused or unconnected peer is dropped.
                    if remote.is_some_and(|r| r != from) || !ctx.allows(from, SocketAddrUse::UdpReceive) {
                        continue;
                    }
                    buf.truncate(n);
                    return Ok(Ok((buf, from_std(from))));
                }
                Err(e) if would_block(&e) => reactor.wait(&socket, Want::Read).await,
                Err(e) => return Ok(Err(io_code(&e))),
            }
        }
    }
}

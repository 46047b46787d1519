//! `wasi:sockets`: TCP, UDP and name lookup, with what the context allows.
//!
//! Nothing is allowed by default: TCP, UDP and name lookup must each be
//! switched on ([`crate::WasiCtxBuilder::allow_tcp`], `allow_udp`,
//! `allow_ip_name_lookup`), and every address a socket binds, connects,
//! sends to, or accepts or receives from must pass the context's check
//! ([`crate::WasiCtxBuilder::socket_addr_check`], or `inherit_network`
//! for every address). A refused address is `access-denied` (an accepted
//! connection or a received datagram from one is dropped).
//!
//! Sockets are the host's own (made with `socket2`), non-blocking, and
//! registered with tokio's reactor when a guest first waits for one:
//! reads, accepts, receives and connects never block, and a pollable of a
//! socket is ready when the reactor says the socket is.

use super::bindings::wasi::sockets::network::{
    ErrorCode, IpAddress, IpAddressFamily, IpSocketAddress, Ipv4SocketAddress, Ipv6SocketAddress,
};
use super::bindings::wasi::sockets::{
    instance_network, ip_name_lookup, network, tcp, tcp_create_socket, udp, udp_create_socket,
};
use super::io::{
    subscribe, DynInputStream, DynOutputStream, DynPollable, InputStream, IoError, OutputStream, Pollable, StreamError,
    StreamResult,
};
use super::reactor::{ready_now, Reactor, Want};
use super::TrappableError;
use crate::runtime::AbortOnDropJoinHandle;
use crate::sockets::{SocketAddrUse, WasiSocketsCtx, WasiSocketsCtxView};
use bytes::Bytes;
use socket2::{Domain, SockAddr, SockRef, Socket, Type};
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::sync::Arc;
use std::time::Duration;
use weft::component::{Resource, ResourceTableError};

/// The error of a `wasi:sockets` function: an error code for the guest or
/// a trap.
pub type SocketError = TrappableError<ErrorCode>;
/// The result of a `wasi:sockets` function.
pub type SocketResult<T> = Result<T, SocketError>;

impl From<io::Error> for SocketError {
    fn from(e: io::Error) -> SocketError {
        error_code(&e).into()
    }
}

impl From<ResourceTableError> for SocketError {
    fn from(e: ResourceTableError) -> SocketError {
        SocketError::trap(e)
    }
}

/// The error code of a host socket error.
pub(crate) fn error_code(e: &io::Error) -> ErrorCode {
    use rustix::io::Errno as E;
    if let Some(errno) = E::from_io_error(e) {
        return match errno {
            E::ACCESS | E::PERM => ErrorCode::AccessDenied,
            E::ADDRINUSE => ErrorCode::AddressInUse,
            E::ADDRNOTAVAIL => ErrorCode::AddressNotBindable,
            E::CONNREFUSED => ErrorCode::ConnectionRefused,
            E::CONNRESET | E::PIPE => ErrorCode::ConnectionReset,
            E::CONNABORTED => ErrorCode::ConnectionAborted,
            E::HOSTUNREACH | E::NETUNREACH | E::NETDOWN => ErrorCode::RemoteUnreachable,
            E::INVAL | E::AFNOSUPPORT => ErrorCode::InvalidArgument,
            E::AGAIN | E::INPROGRESS => ErrorCode::WouldBlock,
            E::TIMEDOUT => ErrorCode::Timeout,
            E::NOMEM | E::NOBUFS => ErrorCode::OutOfMemory,
            E::MSGSIZE => ErrorCode::DatagramTooLarge,
            E::OPNOTSUPP | E::NOPROTOOPT => ErrorCode::NotSupported,
            E::MFILE | E::NFILE => ErrorCode::NewSocketLimit,
            E::ISCONN | E::ALREADY | E::NOTCONN => ErrorCode::InvalidState,
            _ => ErrorCode::Unknown,
        };
    }
    match e.kind() {
        io::ErrorKind::PermissionDenied => ErrorCode::AccessDenied,
        io::ErrorKind::WouldBlock => ErrorCode::WouldBlock,
        io::ErrorKind::InvalidInput => ErrorCode::InvalidArgument,
        _ => ErrorCode::Unknown,
    }
}

fn fail<T>(code: ErrorCode) -> SocketResult<T> {
    Err(code.into())
}

impl WasiSocketsCtx {
    pub(crate) fn check(&self, addr: SocketAddr, what: SocketAddrUse) -> SocketResult<()> {
        if self.allows(addr, what) {
            Ok(())
        } else {
            fail(ErrorCode::AccessDenied)
        }
    }

    /// Whether the embedder's check allows `addr` for `what`. Its future
    /// is driven to its end on the calling thread, inside the crate's
    /// tokio runtime (the check is called from synchronous code).
    pub(crate) fn allows(&self, addr: SocketAddr, what: SocketAddrUse) -> bool {
        // Without a check the answer is known: no runtime is entered.
        self.addr_check.is_some() && crate::runtime::in_tokio(self.allowed(addr, what))
    }

    /// [`Self::allows`] for async host functions: awaits the check.
    pub(crate) async fn allowed(&self, addr: SocketAddr, what: SocketAddrUse) -> bool {
        match &self.addr_check {
            Some(check) => check(addr, what).await,
            None => false,
        }
    }

    /// [`Self::check`] for async host functions: awaits the check.
    async fn check_async(&self, addr: SocketAddr, what: SocketAddrUse) -> SocketResult<()> {
        if self.allowed(addr, what).await {
            Ok(())
        } else {
            fail(ErrorCode::AccessDenied)
        }
    }
}

/// The host value of `wasi:sockets/network.network`: what its sockets may
/// do (the context's permissions when it was handed out).
pub struct Network {
    ctx: WasiSocketsCtx,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network").finish_non_exhaustive()
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
            let s = a.ip().segments();
            IpSocketAddress::Ipv6(Ipv6SocketAddress {
                port: a.port(),
                flow_info: a.flowinfo(),
                address: (s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]),
                scope_id: a.scope_id(),
            })
        }
    }
}

fn ip_from_std(ip: IpAddr) -> IpAddress {
    match ip {
        IpAddr::V4(v) => {
            let [x, y, z, w] = v.octets();
            IpAddress::Ipv4((x, y, z, w))
        }
        IpAddr::V6(v) => {
            let s = v.segments();
            IpAddress::Ipv6((s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]))
        }
    }
}

fn family_of(addr: &SocketAddr) -> IpAddressFamily {
    match addr {
        SocketAddr::V4(_) => IpAddressFamily::Ipv4,
        SocketAddr::V6(_) => IpAddressFamily::Ipv6,
    }
}

pub(crate) fn domain(family: IpAddressFamily) -> Domain {
    match family {
        IpAddressFamily::Ipv4 => Domain::IPV4,
        IpAddressFamily::Ipv6 => Domain::IPV6,
    }
}

/// The address of a socket, as std's type.
pub(crate) fn std_addr(a: io::Result<SockAddr>) -> SocketResult<SocketAddr> {
    a?.as_socket().ok_or_else(|| ErrorCode::InvalidState.into())
}

/// Checks that `addr` is of the socket's family and is not a wildcard or
/// broadcast destination where one makes no sense.
pub(crate) fn check_family(family: IpAddressFamily, addr: &SocketAddr) -> SocketResult<()> {
    if family_of(addr) != family {
        return fail(ErrorCode::InvalidArgument);
    }
    Ok(())
}

fn readable(sock: &impl std::os::fd::AsFd) -> bool {
    ready_now(sock, Want::Read)
}

fn writable(sock: &impl std::os::fd::AsFd) -> bool {
    ready_now(sock, Want::Write)
}

pub(crate) enum TcpState {
    Default,
    BindStarted,
    Bound,
    ListenStarted,
    Listening,
    /// `Ok(false)`: the connection is being made.
    Connecting(Result<bool, ErrorCode>),
    Connected,
    Closed,
}

/// The host value of `wasi:sockets/tcp.tcp-socket`.
pub struct TcpSocket {
    pub(crate) socket: Arc<Socket>,
    pub(crate) family: IpAddressFamily,
    pub(crate) state: TcpState,
    pub(crate) backlog: i32,
    pub(crate) ctx: WasiSocketsCtx,
    pub(crate) reactor: Reactor,
}

impl std::fmt::Debug for TcpSocket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TcpSocket")
            .field("family", &self.family)
            .finish_non_exhaustive()
    }
}

#[async_trait::async_trait]
impl Pollable for TcpSocket {
    async fn ready(&mut self) {
        match self.state {
            TcpState::Listening => self.reactor.wait(&self.socket, Want::Read).await,
            TcpState::Connecting(Ok(false)) => self.reactor.wait(&self.socket, Want::Write).await,
            _ => {}
        }
    }
}

/// The stream a guest reads from a connected TCP socket.
struct TcpReader(Arc<Socket>, Reactor);

#[async_trait::async_trait]
impl Pollable for TcpReader {
    async fn ready(&mut self) {
        self.1.wait(&self.0, Want::Read).await
    }
}

impl InputStream for TcpReader {
    fn read(&mut self, size: usize) -> StreamResult<Bytes> {
        if size == 0 || !readable(&self.0) {
            return Ok(Bytes::new());
        }
        let mut buf = vec![0; size];
        match io::Read::read(&mut &*self.0, &mut buf) {
            Ok(0) => Err(StreamError::Closed),
            Ok(n) => {
                buf.truncate(n);
                Ok(buf.into())
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock || e.kind() == io::ErrorKind::Interrupted => {
                Ok(Bytes::new())
            }
            Err(e) => Err(StreamError::LastOperationFailed(e.into())),
        }
    }
}

/// How many bytes a TCP stream accepts in one write when it is writable.
const TCP_BUDGET: usize = 64 * 1024;

/// The stream a guest writes to a connected TCP socket. What the socket
/// did not take at once waits in `pending` and goes out as the socket has
/// room; no more is accepted until it has.
struct TcpWriter {
    socket: Arc<Socket>,
    reactor: Reactor,
    pending: Bytes,
    /// The error of writing `pending`, reported by the next operation.
    error: Option<io::Error>,
}

impl TcpWriter {
    /// Writes what it can of `pending` without blocking.
    fn push(&mut self) {
        while !self.pending.is_empty() && self.error.is_none() {
            match io::Write::write(&mut &*self.socket, &self.pending) {
                Ok(0) => self.error = Some(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    let _ = self.pending.split_to(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) => self.error = Some(e),
            }
        }
    }

    fn check(&mut self) -> StreamResult<()> {
        match self.error.take() {
            Some(e) => Err(StreamError::LastOperationFailed(e.into())),
            None => Ok(()),
        }
    }
}

#[async_trait::async_trait]
impl Pollable for TcpWriter {
    async fn ready(&mut self) {
        loop {
            self.reactor.wait(&self.socket, Want::Write).await;
            self.push();
            if self.pending.is_empty() || self.error.is_some() {
                return;
            }
        }
    }
}

impl OutputStream for TcpWriter {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.check()?;
        if !self.pending.is_empty() || bytes.len() > TCP_BUDGET {
            return Err(StreamError::trap("write of more bytes than `check-write` allowed"));
        }
        self.pending = bytes;
        self.push();
        self.check()
    }
    fn flush(&mut self) -> StreamResult<()> {
        self.push();
        self.check()
    }
    fn check_write(&mut self) -> StreamResult<usize> {
        self.push();
        self.check()?;
        Ok(if self.pending.is_empty() && writable(&self.socket) {
            TCP_BUDGET
        } else {
            0
        })
    }
}

fn streams(
    view: &mut WasiSocketsCtxView<'_>,
    socket: &Arc<Socket>,
    reactor: &Reactor,
) -> SocketResult<(Resource<DynInputStream>, Resource<DynOutputStream>)> {
    let input: DynInputStream = Box::new(TcpReader(socket.clone(), reactor.clone()));
    let output: DynOutputStream = Box::new(TcpWriter {
        socket: socket.clone(),
        reactor: reactor.clone(),
        pending: Bytes::new(),
        error: None,
    });
    Ok((view.table.push(input)?, view.table.push(output)?))
}

impl network::Host for WasiSocketsCtxView<'_> {
    fn convert_error_code(&mut self, err: SocketError) -> anyhow::Result<ErrorCode> {
        err.downcast()
    }
    fn network_error_code(&mut self, err: Resource<IoError>) -> anyhow::Result<Option<ErrorCode>> {
        let err = self.table.get(&err)?;
        Ok(err.downcast_ref::<io::Error>().map(error_code))
    }
}

impl network::HostNetwork for WasiSocketsCtxView<'_> {
    fn drop(&mut self, rep: Resource<Network>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl instance_network::Host for WasiSocketsCtxView<'_> {
    fn instance_network(&mut self) -> anyhow::Result<Resource<Network>> {
        let ctx = self.ctx.clone();
        Ok(self.table.push(Network { ctx })?)
    }
}

impl tcp_create_socket::Host for WasiSocketsCtxView<'_> {
    fn create_tcp_socket(&mut self, address_family: IpAddressFamily) -> SocketResult<Resource<TcpSocket>> {
        if !self.ctx.allow_tcp {
            return fail(ErrorCode::AccessDenied);
        }
        let socket = Socket::new(domain(address_family), Type::STREAM, None)?;
        if address_family == IpAddressFamily::Ipv6 {
            socket.set_only_v6(true)?;
        }
        socket.set_nonblocking(true)?;
        let s = TcpSocket {
            socket: Arc::new(socket),
            family: address_family,
            state: TcpState::Default,
            backlog: 128,
            ctx: self.ctx.clone(),
            reactor: Reactor::default(),
        };
        Ok(self.table.push(s)?)
    }
}

impl tcp::Host for WasiSocketsCtxView<'_> {}

impl WasiSocketsCtxView<'_> {
    fn tcp(&mut self, s: &Resource<TcpSocket>) -> SocketResult<&mut TcpSocket> {
        Ok(self.table.get_mut(s)?)
    }
}

impl tcp::HostTcpSocket for WasiSocketsCtxView<'_> {
    async fn start_bind(
        &mut self,
        self_: Resource<TcpSocket>,
        network: Resource<Network>,
        local_address: IpSocketAddress,
    ) -> SocketResult<()> {
        let net = self.table.get(&network)?.ctx.clone();
        let s = self.tcp(&self_)?;
        if !matches!(s.state, TcpState::Default) {
            return fail(ErrorCode::InvalidState);
        }
        let addr = to_std(local_address);
        check_family(s.family, &addr)?;
        net.check_async(addr, SocketAddrUse::TcpBind).await?;
        let s = self.tcp(&self_)?;
        s.socket.set_reuse_address(true)?;
        s.socket.bind(&addr.into())?;
        s.state = TcpState::BindStarted;
        Ok(())
    }
    fn finish_bind(&mut self, self_: Resource<TcpSocket>) -> SocketResult<()> {
        let s = self.tcp(&self_)?;
        match s.state {
            TcpState::BindStarted => {
                s.state = TcpState::Bound;
                Ok(())
            }
            _ => fail(ErrorCode::NotInProgress),
        }
    }
    fn start_connect(
        &mut self,
        self_: Resource<TcpSocket>,
        network: Resource<Network>,
        remote_address: IpSocketAddress,
    ) -> SocketResult<()> {
        let net = self.table.get(&network)?.ctx.clone();
        let s = self.tcp(&self_)?;
        if !matches!(s.state, TcpState::Default | TcpState::Bound) {
            return fail(ErrorCode::InvalidState);
        }
        let addr = to_std(remote_address);
        check_family(s.family, &addr)?;
        if addr.ip().is_unspecified() || addr.port() == 0 {
            return fail(ErrorCode::InvalidArgument);
        }
        net.check(addr, SocketAddrUse::TcpConnect)?;
        let result = match s.socket.connect(&addr.into()) {
            Ok(()) => Ok(true),
            Err(e) if e.raw_os_error() == Some(rustix::io::Errno::INPROGRESS.raw_os_error()) => Ok(false),
            Err(e) => Err(error_code(&e)),
        };
        s.state = TcpState::Connecting(result);
        Ok(())
    }
    fn finish_connect(
        &mut self,
        self_: Resource<TcpSocket>,
    ) -> SocketResult<(Resource<DynInputStream>, Resource<DynOutputStream>)> {
        let s = self.tcp(&self_)?;
        match s.state {
            TcpState::Connecting(Ok(true)) => {}
            TcpState::Connecting(Ok(false)) => {
                if !writable(&s.socket) {
                    return fail(ErrorCode::WouldBlock);
                }
                // The connection was made, or failed.
                let outcome = match s.socket.take_error() {
                    Ok(None) => Ok(()),
                    Ok(Some(e)) | Err(e) => Err(error_code(&e)),
                };
                if let Err(e) = outcome {
                    s.state = TcpState::Closed;
                    return fail(e);
                }
            }
            TcpState::Connecting(Err(e)) => {
                s.state = TcpState::Closed;
                return fail(e);
            }
            _ => return fail(ErrorCode::NotInProgress),
        }
        s.state = TcpState::Connected;
        let socket = s.socket.clone();
        let reactor = s.reactor.clone();
        streams(self, &socket, &reactor)
    }
    async fn start_listen(&mut self, self_: Resource<TcpSocket>) -> SocketResult<()> {
        let s = self.tcp(&self_)?;
        if !matches!(s.state, TcpState::Bound) {
            return fail(ErrorCode::InvalidState);
        }
        let local = s.socket.local_addr()?.as_socket();
        let ctx = s.ctx.clone();
        match local {
            Some(addr) => ctx.check_async(addr, SocketAddrUse::TcpListen).await?,
            None => return fail(ErrorCode::InvalidState),
        }
        let s = self.tcp(&self_)?;
        s.socket.listen(s.backlog)?;
        s.state = TcpState::ListenStarted;
        Ok(())
    }
    fn finish_listen(&mut self, self_: Resource<TcpSocket>) -> SocketResult<()> {
        let s = self.tcp(&self_)?;
        match s.state {
            TcpState::ListenStarted => {
                s.state = TcpState::Listening;
                Ok(())
            }
            _ => fail(ErrorCode::NotInProgress),
        }
    }
    fn accept(
        &mut self,
        self_: Resource<TcpSocket>,
    ) -> SocketResult<(Resource<TcpSocket>, Resource<DynInputStream>, Resource<DynOutputStream>)> {
        let s = self.tcp(&self_)?;
        if !matches!(s.state, TcpState::Listening) {
            return fail(ErrorCode::InvalidState);
        }
        let (family, ctx) = (s.family, s.ctx.clone());
        let socket = loop {
            let (conn, peer) = s.socket.accept()?;
            // A connection from a refused peer is dropped.
            match peer.as_socket() {
                Some(peer) if ctx.allows(peer, SocketAddrUse::TcpAccept) => break conn,
                _ => continue,
            }
        };
        socket.set_nonblocking(true)?;
        let socket = Arc::new(socket);
        let reactor = Reactor::default();
        let (input, output) = streams(self, &socket, &reactor)?;
        let accepted = TcpSocket {
            socket,
            family,
            state: TcpState::Connected,
            backlog: 128,
            ctx,
            reactor,
        };
        Ok((self.table.push(accepted)?, input, output))
    }
    fn local_address(&mut self, self_: Resource<TcpSocket>) -> SocketResult<IpSocketAddress> {
        let s = self.tcp(&self_)?;
        if matches!(s.state, TcpState::Default | TcpState::BindStarted) {
            return fail(ErrorCode::InvalidState);
        }
        Ok(from_std(std_addr(s.socket.local_addr())?))
    }
    fn remote_address(&mut self, self_: Resource<TcpSocket>) -> SocketResult<IpSocketAddress> {
        let s = self.tcp(&self_)?;
        if !matches!(s.state, TcpState::Connected) {
            return fail(ErrorCode::InvalidState);
        }
        Ok(from_std(std_addr(s.socket.peer_addr())?))
    }
    fn is_listening(&mut self, self_: Resource<TcpSocket>) -> anyhow::Result<bool> {
        Ok(matches!(self.table.get(&self_)?.state, TcpState::Listening))
    }
    fn address_family(&mut self, self_: Resource<TcpSocket>) -> anyhow::Result<IpAddressFamily> {
        Ok(self.table.get(&self_)?.family)
    }
    fn set_listen_backlog_size(&mut self, self_: Resource<TcpSocket>, value: u64) -> SocketResult<()> {
        let s = self.tcp(&self_)?;
        if value == 0 {
            return fail(ErrorCode::InvalidArgument);
        }
        s.backlog = i32::try_from(value).unwrap_or(i32::MAX);
        match s.state {
            TcpState::Default | TcpState::BindStarted | TcpState::Bound => Ok(()),
            TcpState::Listening | TcpState::ListenStarted => Ok(s.socket.listen(s.backlog)?),
            _ => fail(ErrorCode::InvalidState),
        }
    }
    fn keep_alive_enabled(&mut self, self_: Resource<TcpSocket>) -> SocketResult<bool> {
        Ok(self.tcp(&self_)?.socket.keepalive()?)
    }
    fn set_keep_alive_enabled(&mut self, self_: Resource<TcpSocket>, value: bool) -> SocketResult<()> {
        Ok(self.tcp(&self_)?.socket.set_keepalive(value)?)
    }
    fn keep_alive_idle_time(&mut self, self_: Resource<TcpSocket>) -> SocketResult<u64> {
        Ok(self.tcp(&self_)?.socket.tcp_keepalive_time()?.as_nanos() as u64)
    }
    fn set_keep_alive_idle_time(&mut self, self_: Resource<TcpSocket>, value: u64) -> SocketResult<()> {
        let d = keepalive_duration(value)?;
        let params = socket2::TcpKeepalive::new().with_time(d);
        Ok(self.tcp(&self_)?.socket.set_tcp_keepalive(&params)?)
    }
    fn keep_alive_interval(&mut self, self_: Resource<TcpSocket>) -> SocketResult<u64> {
        Ok(self.tcp(&self_)?.socket.tcp_keepalive_interval()?.as_nanos() as u64)
    }
    fn set_keep_alive_interval(&mut self, self_: Resource<TcpSocket>, value: u64) -> SocketResult<()> {
        let d = keepalive_duration(value)?;
        let params = socket2::TcpKeepalive::new().with_interval(d);
        Ok(self.tcp(&self_)?.socket.set_tcp_keepalive(&params)?)
    }
    fn keep_alive_count(&mut self, self_: Resource<TcpSocket>) -> SocketResult<u32> {
        Ok(self.tcp(&self_)?.socket.tcp_keepalive_retries()?)
    }
    fn set_keep_alive_count(&mut self, self_: Resource<TcpSocket>, value: u32) -> SocketResult<()> {
        if value == 0 {
            return fail(ErrorCode::InvalidArgument);
        }
        let params = socket2::TcpKeepalive::new().with_retries(value);
        Ok(self.tcp(&self_)?.socket.set_tcp_keepalive(&params)?)
    }
    fn hop_limit(&mut self, self_: Resource<TcpSocket>) -> SocketResult<u8> {
        let s = self.tcp(&self_)?;
        hop_limit(&s.socket, s.family)
    }
    fn set_hop_limit(&mut self, self_: Resource<TcpSocket>, value: u8) -> SocketResult<()> {
        let s = self.tcp(&self_)?;
        set_hop_limit(&s.socket, s.family, value)
    }
    fn receive_buffer_size(&mut self, self_: Resource<TcpSocket>) -> SocketResult<u64> {
        Ok(self.tcp(&self_)?.socket.recv_buffer_size()? as u64)
    }
    fn set_receive_buffer_size(&mut self, self_: Resource<TcpSocket>, value: u64) -> SocketResult<()> {
        Ok(self.tcp(&self_)?.socket.set_recv_buffer_size(buffer_size(value)?)?)
    }
    fn send_buffer_size(&mut self, self_: Resource<TcpSocket>) -> SocketResult<u64> {
        Ok(self.tcp(&self_)?.socket.send_buffer_size()? as u64)
    }
    fn set_send_buffer_size(&mut self, self_: Resource<TcpSocket>, value: u64) -> SocketResult<()> {
        Ok(self.tcp(&self_)?.socket.set_send_buffer_size(buffer_size(value)?)?)
    }
    fn subscribe(&mut self, self_: Resource<TcpSocket>) -> anyhow::Result<Resource<DynPollable>> {
        subscribe(self.table, self_)
    }
    fn shutdown(&mut self, self_: Resource<TcpSocket>, shutdown_type: tcp::ShutdownType) -> SocketResult<()> {
        let s = self.tcp(&self_)?;
        if !matches!(s.state, TcpState::Connected) {
            return fail(ErrorCode::InvalidState);
        }
        let how = match shutdown_type {
            tcp::ShutdownType::Receive => std::net::Shutdown::Read,
            tcp::ShutdownType::Send => std::net::Shutdown::Write,
            tcp::ShutdownType::Both => std::net::Shutdown::Both,
        };
        Ok(s.socket.shutdown(how)?)
    }
    fn drop(&mut self, rep: Resource<TcpSocket>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

pub(crate) fn keepalive_duration(nanos: u64) -> SocketResult<Duration> {
    if nanos == 0 {
        return fail(ErrorCode::InvalidArgument);
    }
    // The kernel counts whole seconds: round up.
    Ok(Duration::from_secs(nanos.div_ceil(1_000_000_000).min(i32::MAX as u64)))
}

pub(crate) fn buffer_size(value: u64) -> SocketResult<usize> {
    if value == 0 {
        return fail(ErrorCode::InvalidArgument);
    }
    Ok(usize::try_from(value).unwrap_or(usize::MAX).min(i32::MAX as usize))
}

pub(crate) fn hop_limit(socket: &Socket, family: IpAddressFamily) -> SocketResult<u8> {
    let v = match family {
        IpAddressFamily::Ipv4 => socket.ttl_v4()?,
        IpAddressFamily::Ipv6 => socket.unicast_hops_v6()?,
    };
    Ok(v.min(255) as u8)
}

pub(crate) fn set_hop_limit(socket: &Socket, family: IpAddressFamily, value: u8) -> SocketResult<()> {
    if value == 0 {
        return fail(ErrorCode::InvalidArgument);
    }
    match family {
        IpAddressFamily::Ipv4 => socket.set_ttl_v4(value.into())?,
        IpAddressFamily::Ipv6 => socket.set_unicast_hops_v6(value.into())?,
    }
    Ok(())
}

/// The host value of `wasi:sockets/udp.udp-socket`.
pub struct UdpSocket {
    pub(crate) socket: Arc<std::net::UdpSocket>,
    pub(crate) family: IpAddressFamily,
    pub(crate) bound: bool,
    pub(crate) bind_started: bool,
    pub(crate) remote: Option<SocketAddr>,
    pub(crate) ctx: WasiSocketsCtx,
    pub(crate) reactor: Reactor,
}

impl std::fmt::Debug for UdpSocket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UdpSocket")
            .field("family", &self.family)
            .finish_non_exhaustive()
    }
}

#[async_trait::async_trait]
impl Pollable for UdpSocket {
    async fn ready(&mut self) {}
}

/// The host value of `wasi:sockets/udp.incoming-datagram-stream`.
pub struct IncomingDatagramStream {
    socket: Arc<std::net::UdpSocket>,
    reactor: Reactor,
    remote: Option<SocketAddr>,
    ctx: WasiSocketsCtx,
}

impl std::fmt::Debug for IncomingDatagramStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IncomingDatagramStream").finish_non_exhaustive()
    }
}

#[async_trait::async_trait]
impl Pollable for IncomingDatagramStream {
    async fn ready(&mut self) {
        self.reactor.wait(&self.socket, Want::Read).await
    }
}

/// How many datagrams `check-send` allows at once.
const UDP_PERMITS: u64 = 16;
/// The largest datagram received.
const MAX_DATAGRAM: usize = 65536;

/// The host value of `wasi:sockets/udp.outgoing-datagram-stream`.
pub struct OutgoingDatagramStream {
    socket: Arc<std::net::UdpSocket>,
    reactor: Reactor,
    family: IpAddressFamily,
    remote: Option<SocketAddr>,
    permits: u64,
    ctx: WasiSocketsCtx,
}

impl std::fmt::Debug for OutgoingDatagramStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutgoingDatagramStream").finish_non_exhaustive()
    }
}

#[async_trait::async_trait]
impl Pollable for OutgoingDatagramStream {
    async fn ready(&mut self) {
        self.reactor.wait(&self.socket, Want::Write).await
    }
}

impl udp_create_socket::Host for WasiSocketsCtxView<'_> {
    async fn create_udp_socket(&mut self, address_family: IpAddressFamily) -> SocketResult<Resource<UdpSocket>> {
        if !self.ctx.allow_udp {
            return fail(ErrorCode::AccessDenied);
        }
        let socket = Socket::new(domain(address_family), Type::DGRAM, None)?;
        if address_family == IpAddressFamily::Ipv6 {
            socket.set_only_v6(true)?;
        }
        socket.set_nonblocking(true)?;
        let socket: std::net::UdpSocket = socket.into();
        let s = UdpSocket {
            socket: Arc::new(socket),
            family: address_family,
            bound: false,
            bind_started: false,
            remote: None,
            ctx: self.ctx.clone(),
            reactor: Reactor::default(),
        };
        Ok(self.table.push(s)?)
    }
}

impl udp::Host for WasiSocketsCtxView<'_> {}

impl udp::HostUdpSocket for WasiSocketsCtxView<'_> {
    async fn start_bind(
        &mut self,
        self_: Resource<UdpSocket>,
        network: Resource<Network>,
        local_address: IpSocketAddress,
    ) -> SocketResult<()> {
        let net = self.table.get(&network)?.ctx.clone();
        let s = self.table.get_mut(&self_)?;
        if s.bound || s.bind_started {
            return fail(ErrorCode::InvalidState);
        }
        let addr = to_std(local_address);
        check_family(s.family, &addr)?;
        net.check_async(addr, SocketAddrUse::UdpBind).await?;
        let s = self.table.get_mut(&self_)?;
        SockRef::from(&*s.socket).bind(&addr.into())?;
        s.bind_started = true;
        Ok(())
    }
    fn finish_bind(&mut self, self_: Resource<UdpSocket>) -> SocketResult<()> {
        let s = self.table.get_mut(&self_)?;
        if !s.bind_started {
            return fail(ErrorCode::NotInProgress);
        }
        s.bind_started = false;
        s.bound = true;
        Ok(())
    }
    async fn stream(
        &mut self,
        self_: Resource<UdpSocket>,
        remote_address: Option<IpSocketAddress>,
    ) -> SocketResult<(Resource<IncomingDatagramStream>, Resource<OutgoingDatagramStream>)> {
        let s = self.table.get(&self_)?;
        if !s.bound {
            return fail(ErrorCode::InvalidState);
        }
        let remote = match remote_address {
            Some(a) => {
                let addr = to_std(a);
                check_family(s.family, &addr)?;
                if addr.ip().is_unspecified() || addr.port() == 0 {
                    return fail(ErrorCode::InvalidArgument);
                }
                let ctx = s.ctx.clone();
                ctx.check_async(addr, SocketAddrUse::UdpSend).await?;
                self.table.get(&self_)?.socket.connect(addr)?;
                Some(addr)
            }
            None => None,
        };
        let s = self.table.get_mut(&self_)?;
        s.remote = remote;
        let incoming = IncomingDatagramStream {
            socket: s.socket.clone(),
            reactor: s.reactor.clone(),
            remote,
            ctx: s.ctx.clone(),
        };
        let outgoing = OutgoingDatagramStream {
            socket: s.socket.clone(),
            reactor: s.reactor.clone(),
            family: s.family,
            remote,
            permits: 0,
            ctx: s.ctx.clone(),
        };
        Ok((self.table.push(incoming)?, self.table.push(outgoing)?))
    }
    fn local_address(&mut self, self_: Resource<UdpSocket>) -> SocketResult<IpSocketAddress> {
        let s = self.table.get(&self_)?;
        if !s.bound {
            return fail(ErrorCode::InvalidState);
        }
        Ok(from_std(std_addr(SockRef::from(&*s.socket).local_addr())?))
    }
    fn remote_address(&mut self, self_: Resource<UdpSocket>) -> SocketResult<IpSocketAddress> {
        match self.table.get(&self_)?.remote {
            Some(a) => Ok(from_std(a)),
            None => fail(ErrorCode::InvalidState),
        }
    }
    fn address_family(&mut self, self_: Resource<UdpSocket>) -> anyhow::Result<IpAddressFamily> {
        Ok(self.table.get(&self_)?.family)
    }
    fn unicast_hop_limit(&mut self, self_: Resource<UdpSocket>) -> SocketResult<u8> {
        let s = self.table.get(&self_)?;
        hop_limit(&SockRef::from(&*s.socket), s.family)
    }
    fn set_unicast_hop_limit(&mut self, self_: Resource<UdpSocket>, value: u8) -> SocketResult<()> {
        let s = self.table.get(&self_)?;
        set_hop_limit(&SockRef::from(&*s.socket), s.family, value)
    }
    fn receive_buffer_size(&mut self, self_: Resource<UdpSocket>) -> SocketResult<u64> {
        Ok(SockRef::from(&*self.table.get(&self_)?.socket).recv_buffer_size()? as u64)
    }
    fn set_receive_buffer_size(&mut self, self_: Resource<UdpSocket>, value: u64) -> SocketResult<()> {
        Ok(SockRef::from(&*self.table.get(&self_)?.socket).set_recv_buffer_size(buffer_size(value)?)?)
    }
    fn send_buffer_size(&mut self, self_: Resource<UdpSocket>) -> SocketResult<u64> {
        Ok(SockRef::from(&*self.table.get(&self_)?.socket).send_buffer_size()? as u64)
    }
    fn set_send_buffer_size(&mut self, self_: Resource<UdpSocket>, value: u64) -> SocketResult<()> {
        Ok(SockRef::from(&*self.table.get(&self_)?.socket).set_send_buffer_size(buffer_size(value)?)?)
    }
    fn subscribe(&mut self, self_: Resource<UdpSocket>) -> anyhow::Result<Resource<DynPollable>> {
        subscribe(self.table, self_)
    }
    fn drop(&mut self, rep: Resource<UdpSocket>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl udp::HostIncomingDatagramStream for WasiSocketsCtxView<'_> {
    fn receive(
        &mut self,
        self_: Resource<IncomingDatagramStream>,
        max_results: u64,
    ) -> SocketResult<Vec<udp::IncomingDatagram>> {
        let s = self.table.get(&self_)?;
        let mut out = Vec::new();
        while (out.len() as u64) < max_results {
            let mut buf = vec![0u8; MAX_DATAGRAM];
            let (n, from) = match s.socket.recv_from(&mut buf) {
                Ok(r) => r,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if out.is_empty() => return Err(e.into()),
                Err(_) => break,
            };
            if s.remote.is_some_and(|r| r != from) || !s.ctx.allows(from, SocketAddrUse::UdpReceive) {
                continue;
            }
            buf.truncate(n);
            let data = buf;
            out.push(udp::IncomingDatagram {
                data,
                remote_address: from_std(from),
            });
        }
        Ok(out)
    }
    fn subscribe(&mut self, self_: Resource<IncomingDatagramStream>) -> anyhow::Result<Resource<DynPollable>> {
        subscribe(self.table, self_)
    }
    fn drop(&mut self, rep: Resource<IncomingDatagramStream>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl udp::HostOutgoingDatagramStream for WasiSocketsCtxView<'_> {
    fn check_send(&mut self, self_: Resource<OutgoingDatagramStream>) -> SocketResult<u64> {
        let s = self.table.get_mut(&self_)?;
        s.permits = if writable(&s.socket) { UDP_PERMITS } else { 0 };
        Ok(s.permits)
    }
    fn send(
        &mut self,
        self_: Resource<OutgoingDatagramStream>,
        datagrams: Vec<udp::OutgoingDatagram>,
    ) -> SocketResult<u64> {
        let s = self.table.get_mut(&self_)?;
        if datagrams.len() as u64 > s.permits {
            return Err(SocketError::trap(anyhow::anyhow!(
                "send of more datagrams than `check-send` allowed"
            )));
        }
        s.permits -= datagrams.len() as u64;
        let mut sent = 0;
        for d in datagrams {
            let to = match (d.remote_address.map(to_std), s.remote) {
                (Some(a), Some(r)) if a != r => return fail(ErrorCode::InvalidArgument),
                (Some(a), _) => a,
                (None, Some(r)) => r,
                (None, None) => return fail(ErrorCode::InvalidArgument),
            };
            check_family(s.family, &to)?;
            s.ctx.check(to, SocketAddrUse::UdpSend)?;
            let r = if s.remote.is_some() {
                s.socket.send(&d.data)
            } else {
                s.socket.send_to(&d.data, to)
            };
            match r {
                Ok(_) => sent += 1,
                Err(e) if sent == 0 => return Err(e.into()),
                Err(_) => break,
            }
        }
        Ok(sent)
    }
    fn subscribe(&mut self, self_: Resource<OutgoingDatagramStream>) -> anyhow::Result<Resource<DynPollable>> {
        subscribe(self.table, self_)
    }
    async fn drop(&mut self, rep: Resource<OutgoingDatagramStream>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

/// The host value of `wasi:sockets/ip-name-lookup.resolve-address-stream`:
/// the addresses a name resolves to, looked up on a blocking thread of the
/// runtime while the guest goes on.
#[derive(Debug)]
pub enum ResolveAddressStream {
    /// The lookup runs.
    Waiting(AbortOnDropJoinHandle<Result<Vec<IpAddr>, ErrorCode>>),
    /// The addresses (or the lookup's error, reported once).
    Done(Result<std::vec::IntoIter<IpAddr>, ErrorCode>),
}

impl ResolveAddressStream {
    /// Takes the lookup's outcome if it has come.
    fn settle(&mut self) {
        let outcome = match self {
            ResolveAddressStream::Waiting(h) => crate::runtime::poll_noop(std::pin::pin!(h.join())),
            ResolveAddressStream::Done(_) => None,
        };
        if let Some(r) = outcome {
            let r = r.unwrap_or(Err(ErrorCode::Unknown));
            *self = ResolveAddressStream::Done(r.map(Vec::into_iter));
        }
    }
}

#[async_trait::async_trait]
impl Pollable for ResolveAddressStream {
    async fn ready(&mut self) {
        let outcome = match self {
            ResolveAddressStream::Waiting(h) => Some(h.join().await),
            ResolveAddressStream::Done(_) => None,
        };
        if let Some(r) = outcome {
            let r = r.unwrap_or(Err(ErrorCode::Unknown));
            *self = ResolveAddressStream::Done(r.map(Vec::into_iter));
        }
    }
}

/// What `resolve-addresses` does with a name: an IP address (bracketed or
/// not) is its own answer, a host name is looked up; `invalid-argument`
/// for a name that cannot be a host's.
pub(crate) enum Lookup {
    /// The name is an address.
    Address(IpAddr),
    /// The name must be looked up.
    Host(String),
}

/// Parses `name` for `resolve_addresses`: an IP address, or a host name
/// for [`lookup_host`].
pub(crate) fn parse_name(name: &str) -> Result<Lookup, ErrorCode> {
    let host = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')).unwrap_or(name);
    match host.parse::<IpAddr>() {
        Ok(ip) => Ok(Lookup::Address(ip)),
        Err(_) => {
            if host.is_empty() || host.contains(|c: char| c == ':' || c.is_whitespace() || c == '/') {
                return Err(ErrorCode::InvalidArgument);
            }
            Ok(Lookup::Host(host.to_string()))
        }
    }
}

/// Looks up the host `host` (blocking), without duplicates:
/// `name-unresolvable` when the resolver finds nothing.
pub(crate) fn lookup_host(host: &str) -> Result<Vec<IpAddr>, ErrorCode> {
    let mut seen = Vec::new();
    let found = std::net::ToSocketAddrs::to_socket_addrs(&(host, 0)).map_err(|_| ErrorCode::NameUnresolvable)?;
    for a in found {
        if !seen.contains(&a.ip()) {
            seen.push(a.ip());
        }
    }
    Ok(seen)
}

impl ip_name_lookup::Host for WasiSocketsCtxView<'_> {
    fn resolve_addresses(
        &mut self,
        network: Resource<Network>,
        name: String,
    ) -> SocketResult<Resource<ResolveAddressStream>> {
        let net = self.table.get(&network)?;
        if !net.ctx.allow_ip_name_lookup {
            return fail(ErrorCode::AccessDenied);
        }
        let stream = match parse_name(&name).map_err(SocketError::from)? {
            Lookup::Address(ip) => ResolveAddressStream::Done(Ok(vec![ip].into_iter())),
            Lookup::Host(host) => {
                ResolveAddressStream::Waiting(crate::runtime::try_spawn_blocking(move || lookup_host(&host))?)
            }
        };
        Ok(self.table.push(stream)?)
    }
}

impl ip_name_lookup::HostResolveAddressStream for WasiSocketsCtxView<'_> {
    fn resolve_next_address(&mut self, self_: Resource<ResolveAddressStream>) -> SocketResult<Option<IpAddress>> {
        let s = self.table.get_mut(&self_)?;
        s.settle();
        match s {
            ResolveAddressStream::Waiting(_) => fail(ErrorCode::WouldBlock),
            ResolveAddressStream::Done(Ok(addresses)) => Ok(addresses.next().map(ip_from_std)),
            ResolveAddressStream::Done(Err(e)) => {
                let e = *e;
                *s = ResolveAddressStream::Done(Ok(Vec::new().into_iter()));
                fail(e)
            }
        }
    }
    fn subscribe(&mut self, self_: Resource<ResolveAddressStream>) -> anyhow::Result<Resource<DynPollable>> {
        subscribe(self.table, self_)
    }
    fn drop(&mut self, rep: Resource<ResolveAddressStream>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

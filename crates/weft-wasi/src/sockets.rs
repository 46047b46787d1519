//! `wasi:sockets`: what sockets may do, and the part of the context the
//! `wasi:sockets` interfaces see, under the module path Wasmtime 48 gives
//! them (`wasmtime_wasi::sockets`).

pub use crate::p2::{TcpSocket, UdpSocket};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use weft::component::{HasData, ResourceTable};

/// What an address is used for, as the context's check of socket
/// addresses sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SocketAddrUse {
    /// Binding a TCP socket.
    TcpBind,
    /// Listening on a bound TCP socket (its local address).
    TcpListen,
    /// Connecting a TCP socket.
    TcpConnect,
    /// Accepting a connection from this peer.
    TcpAccept,
    /// Binding a UDP socket.
    UdpBind,
    /// Connecting a UDP socket, or sending a datagram.
    UdpSend,
    /// Receiving a datagram from this peer.
    UdpReceive,
}

/// The context's check of the addresses sockets use: the future gives
/// `true` to allow.
pub(crate) type AddrCheck =
    Arc<dyn Fn(std::net::SocketAddr, SocketAddrUse) -> Pin<Box<dyn Future<Output = bool> + Send + Sync>> + Send + Sync>;

/// The [`HasData`] type of the `wasi:sockets` host functions: they see a
/// [`WasiSocketsCtxView`].
pub struct WasiSockets;

impl HasData for WasiSockets {
    type Data<'a> = WasiSocketsCtxView<'a>;
}

/// The part of the WASI context `wasi:sockets` sees: whether TCP, UDP
/// and name lookup are allowed, and the check of the addresses sockets
/// use. The default allows nothing.
#[derive(Clone, Default)]
pub struct WasiSocketsCtx {
    pub(crate) allow_tcp: bool,
    pub(crate) allow_udp: bool,
    pub(crate) allow_ip_name_lookup: bool,
    pub(crate) addr_check: Option<AddrCheck>,
}

impl std::fmt::Debug for WasiSocketsCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasiSocketsCtx")
            .field("allow_tcp", &self.allow_tcp)
            .field("allow_udp", &self.allow_udp)
            .field("allow_ip_name_lookup", &self.allow_ip_name_lookup)
            .field("addr_check", &self.addr_check.is_some())
            .finish()
    }
}

/// What the `wasi:sockets` host functions reach in the store's data.
pub struct WasiSocketsCtxView<'a> {
    /// The `wasi:sockets` part of the context.
    pub ctx: &'a mut WasiSocketsCtx,
    /// The table of the guest's resources (sockets, streams, pollables).
    pub table: &'a mut ResourceTable,
}

/// Implemented by a store's data to lend `wasi:sockets` its context and
/// table. Every [`crate::WasiView`] implements it.
pub trait WasiSocketsView: Send {
    /// The `wasi:sockets` context and the resource table.
    fn sockets(&mut self) -> WasiSocketsCtxView<'_>;
}

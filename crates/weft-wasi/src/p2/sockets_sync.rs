//! The synchronous `wasi:sockets/tcp`, `udp` and `udp-create-socket` host
//! functions of [`super::add_to_linker_sync`] (Wasmtime 48's
//! `host/tcp_sync.rs` and `udp_sync.rs`). The async flavour's functions
//! that await the embedder's socket address check (`start-bind`,
//! `start-listen`, UDP's `stream`) and its other async ones run to their
//! end on the calling thread ([`in_tokio`]); the rest are the async
//! flavour's synchronous functions, called as they are. Both flavours
//! bind the same host types, so a socket made by either is the same
//! value in the [`weft::component::ResourceTable`].

use super::bindings::sync::wasi::sockets::{tcp as sync_tcp, udp as sync_udp, udp_create_socket as sync_create};
use super::bindings::wasi::sockets::network::{IpAddressFamily, IpSocketAddress};
use super::bindings::wasi::sockets::{tcp, udp, udp_create_socket};
use super::io::{DynInputStream, DynOutputStream, DynPollable};
use super::sockets::{IncomingDatagramStream, Network, OutgoingDatagramStream, SocketResult, TcpSocket, UdpSocket};
use crate::runtime::in_tokio;
use crate::sockets::WasiSocketsCtxView;
use weft::component::Resource;

impl From<sync_tcp::ShutdownType> for tcp::ShutdownType {
    fn from(t: sync_tcp::ShutdownType) -> tcp::ShutdownType {
        match t {
            sync_tcp::ShutdownType::Receive => tcp::ShutdownType::Receive,
            sync_tcp::ShutdownType::Send => tcp::ShutdownType::Send,
            sync_tcp::ShutdownType::Both => tcp::ShutdownType::Both,
        }
    }
}

impl From<udp::IncomingDatagram> for sync_udp::IncomingDatagram {
    fn from(d: udp::IncomingDatagram) -> sync_udp::IncomingDatagram {
        sync_udp::IncomingDatagram {
            data: d.data,
            remote_address: d.remote_address,
        }
    }
}

impl From<sync_udp::OutgoingDatagram> for udp::OutgoingDatagram {
    fn from(d: sync_udp::OutgoingDatagram) -> udp::OutgoingDatagram {
        udp::OutgoingDatagram {
            data: d.data,
            remote_address: d.remote_address,
        }
    }
}

impl sync_tcp::Host for WasiSocketsCtxView<'_> {}

impl sync_tcp::HostTcpSocket for WasiSocketsCtxView<'_> {
    fn start_bind(
        &mut self,
        self_: Resource<TcpSocket>,
        network: Resource<Network>,
        local_address: IpSocketAddress,
    ) -> SocketResult<()> {
        in_tokio(tcp::HostTcpSocket::start_bind(self, self_, network, local_address))
    }
    fn finish_bind(&mut self, self_: Resource<TcpSocket>) -> SocketResult<()> {
        tcp::HostTcpSocket::finish_bind(self, self_)
    }
    fn start_connect(
        &mut self,
        self_: Resource<TcpSocket>,
        network: Resource<Network>,
        remote_address: IpSocketAddress,
    ) -> SocketResult<()> {
        tcp::HostTcpSocket::start_connect(self, self_, network, remote_address)
    }
    fn finish_connect(
        &mut self,
        self_: Resource<TcpSocket>,
    ) -> SocketResult<(Resource<DynInputStream>, Resource<DynOutputStream>)> {
        tcp::HostTcpSocket::finish_connect(self, self_)
    }
    fn start_listen(&mut self, self_: Resource<TcpSocket>) -> SocketResult<()> {
        in_tokio(tcp::HostTcpSocket::start_listen(self, self_))
    }
    fn finish_listen(&mut self, self_: Resource<TcpSocket>) -> SocketResult<()> {
        tcp::HostTcpSocket::finish_listen(self, self_)
    }
    fn accept(
        &mut self,
        self_: Resource<TcpSocket>,
    ) -> SocketResult<(Resource<TcpSocket>, Resource<DynInputStream>, Resource<DynOutputStream>)> {
        tcp::HostTcpSocket::accept(self, self_)
    }
    fn local_address(&mut self, self_: Resource<TcpSocket>) -> SocketResult<IpSocketAddress> {
        tcp::HostTcpSocket::local_address(self, self_)
    }
    fn remote_address(&mut self, self_: Resource<TcpSocket>) -> SocketResult<IpSocketAddress> {
        tcp::HostTcpSocket::remote_address(self, self_)
    }
    fn is_listening(&mut self, self_: Resource<TcpSocket>) -> anyhow::Result<bool> {
        tcp::HostTcpSocket::is_listening(self, self_)
    }
    fn address_family(&mut self, self_: Resource<TcpSocket>) -> anyhow::Result<IpAddressFamily> {
        tcp::HostTcpSocket::address_family(self, self_)
    }
    fn set_listen_backlog_size(&mut self, self_: Resource<TcpSocket>, value: u64) -> SocketResult<()> {
        tcp::HostTcpSocket::set_listen_backlog_size(self, self_, value)
    }
    fn keep_alive_enabled(&mut self, self_: Resource<TcpSocket>) -> SocketResult<bool> {
        tcp::HostTcpSocket::keep_alive_enabled(self, self_)
    }
    fn set_keep_alive_enabled(&mut self, self_: Resource<TcpSocket>, value: bool) -> SocketResult<()> {
        tcp::HostTcpSocket::set_keep_alive_enabled(self, self_, value)
    }
    fn keep_alive_idle_time(&mut self, self_: Resource<TcpSocket>) -> SocketResult<u64> {
        tcp::HostTcpSocket::keep_alive_idle_time(self, self_)
    }
    fn set_keep_alive_idle_time(&mut self, self_: Resource<TcpSocket>, value: u64) -> SocketResult<()> {
        tcp::HostTcpSocket::set_keep_alive_idle_time(self, self_, value)
    }
    fn keep_alive_interval(&mut self, self_: Resource<TcpSocket>) -> SocketResult<u64> {
        tcp::HostTcpSocket::keep_alive_interval(self, self_)
    }
    fn set_keep_alive_interval(&mut self, self_: Resource<TcpSocket>, value: u64) -> SocketResult<()> {
        tcp::HostTcpSocket::set_keep_alive_interval(self, self_, value)
    }
    fn keep_alive_count(&mut self, self_: Resource<TcpSocket>) -> SocketResult<u32> {
        tcp::HostTcpSocket::keep_alive_count(self, self_)
    }
    fn set_keep_alive_count(&mut self, self_: Resource<TcpSocket>, value: u32) -> SocketResult<()> {
        tcp::HostTcpSocket::set_keep_alive_count(self, self_, value)
    }
    fn hop_limit(&mut self, self_: Resource<TcpSocket>) -> SocketResult<u8> {
        tcp::HostTcpSocket::hop_limit(self, self_)
    }
    fn set_hop_limit(&mut self, self_: Resource<TcpSocket>, value: u8) -> SocketResult<()> {
        tcp::HostTcpSocket::set_hop_limit(self, self_, value)
    }
    fn receive_buffer_size(&mut self, self_: Resource<TcpSocket>) -> SocketResult<u64> {
        tcp::HostTcpSocket::receive_buffer_size(self, self_)
    }
    fn set_receive_buffer_size(&mut self, self_: Resource<TcpSocket>, value: u64) -> SocketResult<()> {
        tcp::HostTcpSocket::set_receive_buffer_size(self, self_, value)
    }
    fn send_buffer_size(&mut self, self_: Resource<TcpSocket>) -> SocketResult<u64> {
        tcp::HostTcpSocket::send_buffer_size(self, self_)
    }
    fn set_send_buffer_size(&mut self, self_: Resource<TcpSocket>, value: u64) -> SocketResult<()> {
        tcp::HostTcpSocket::set_send_buffer_size(self, self_, value)
    }
    fn subscribe(&mut self, self_: Resource<TcpSocket>) -> anyhow::Result<Resource<DynPollable>> {
        tcp::HostTcpSocket::subscribe(self, self_)
    }
    fn shutdown(&mut self, self_: Resource<TcpSocket>, shutdown_type: sync_tcp::ShutdownType) -> SocketResult<()> {
        tcp::HostTcpSocket::shutdown(self, self_, shutdown_type.into())
    }
    fn drop(&mut self, rep: Resource<TcpSocket>) -> anyhow::Result<()> {
        tcp::HostTcpSocket::drop(self, rep)
    }
}

impl sync_create::Host for WasiSocketsCtxView<'_> {
    fn create_udp_socket(&mut self, address_family: IpAddressFamily) -> SocketResult<Resource<UdpSocket>> {
        in_tokio(udp_create_socket::Host::create_udp_socket(self, address_family))
    }
}

impl sync_udp::Host for WasiSocketsCtxView<'_> {}

impl sync_udp::HostUdpSocket for WasiSocketsCtxView<'_> {
    fn start_bind(
        &mut self,
        self_: Resource<UdpSocket>,
        network: Resource<Network>,
        local_address: IpSocketAddress,
    ) -> SocketResult<()> {
        in_tokio(udp::HostUdpSocket::start_bind(self, self_, network, local_address))
    }
    fn finish_bind(&mut self, self_: Resource<UdpSocket>) -> SocketResult<()> {
        udp::HostUdpSocket::finish_bind(self, self_)
    }
    fn stream(
        &mut self,
        self_: Resource<UdpSocket>,
        remote_address: Option<IpSocketAddress>,
    ) -> SocketResult<(Resource<IncomingDatagramStream>, Resource<OutgoingDatagramStream>)> {
        in_tokio(udp::HostUdpSocket::stream(self, self_, remote_address))
    }
    fn local_address(&mut self, self_: Resource<UdpSocket>) -> SocketResult<IpSocketAddress> {
        udp::HostUdpSocket::local_address(self, self_)
    }
    fn remote_address(&mut self, self_: Resource<UdpSocket>) -> SocketResult<IpSocketAddress> {
        udp::HostUdpSocket::remote_address(self, self_)
    }
    fn address_family(&mut self, self_: Resource<UdpSocket>) -> anyhow::Result<IpAddressFamily> {
        udp::HostUdpSocket::address_family(self, self_)
    }
    fn unicast_hop_limit(&mut self, self_: Resource<UdpSocket>) -> SocketResult<u8> {
        udp::HostUdpSocket::unicast_hop_limit(self, self_)
    }
    fn set_unicast_hop_limit(&mut self, self_: Resource<UdpSocket>, value: u8) -> SocketResult<()> {
        udp::HostUdpSocket::set_unicast_hop_limit(self, self_, value)
    }
    fn receive_buffer_size(&mut self, self_: Resource<UdpSocket>) -> SocketResult<u64> {
        udp::HostUdpSocket::receive_buffer_size(self, self_)
    }
    fn set_receive_buffer_size(&mut self, self_: Resource<UdpSocket>, value: u64) -> SocketResult<()> {
        udp::HostUdpSocket::set_receive_buffer_size(self, self_, value)
    }
    fn send_buffer_size(&mut self, self_: Resource<UdpSocket>) -> SocketResult<u64> {
        udp::HostUdpSocket::send_buffer_size(self, self_)
    }
    fn set_send_buffer_size(&mut self, self_: Resource<UdpSocket>, value: u64) -> SocketResult<()> {
        udp::HostUdpSocket::set_send_buffer_size(self, self_, value)
    }
    fn subscribe(&mut self, self_: Resource<UdpSocket>) -> anyhow::Result<Resource<DynPollable>> {
        udp::HostUdpSocket::subscribe(self, self_)
    }
    fn drop(&mut self, rep: Resource<UdpSocket>) -> anyhow::Result<()> {
        udp::HostUdpSocket::drop(self, rep)
    }
}

impl sync_udp::HostIncomingDatagramStream for WasiSocketsCtxView<'_> {
    fn receive(
        &mut self,
        self_: Resource<IncomingDatagramStream>,
        max_results: u64,
    ) -> SocketResult<Vec<sync_udp::IncomingDatagram>> {
        let got = udp::HostIncomingDatagramStream::receive(self, self_, max_results)?;
        Ok(got.into_iter().map(Into::into).collect())
    }
    fn subscribe(&mut self, self_: Resource<IncomingDatagramStream>) -> anyhow::Result<Resource<DynPollable>> {
        udp::HostIncomingDatagramStream::subscribe(self, self_)
    }
    fn drop(&mut self, rep: Resource<IncomingDatagramStream>) -> anyhow::Result<()> {
        udp::HostIncomingDatagramStream::drop(self, rep)
    }
}

impl sync_udp::HostOutgoingDatagramStream for WasiSocketsCtxView<'_> {
    fn check_send(&mut self, self_: Resource<OutgoingDatagramStream>) -> SocketResult<u64> {
        udp::HostOutgoingDatagramStream::check_send(self, self_)
    }
    fn send(
        &mut self,
        self_: Resource<OutgoingDatagramStream>,
        datagrams: Vec<sync_udp::OutgoingDatagram>,
    ) -> SocketResult<u64> {
        let datagrams = datagrams.into_iter().map(Into::into).collect();
        udp::HostOutgoingDatagramStream::send(self, self_, datagrams)
    }
    fn subscribe(&mut self, self_: Resource<OutgoingDatagramStream>) -> anyhow::Result<Resource<DynPollable>> {
        udp::HostOutgoingDatagramStream::subscribe(self, self_)
    }
    fn drop(&mut self, rep: Resource<OutgoingDatagramStream>) -> anyhow::Result<()> {
        in_tokio(udp::HostOutgoingDatagramStream::drop(self, rep))
    }
}

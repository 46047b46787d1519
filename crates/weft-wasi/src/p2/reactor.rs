//! Host sockets registered with tokio's reactor: a guest waiting for a
//! socket awaits the reactor's readiness event.
//!
//! The reactor watches a duplicate of the socket's descriptor (the same
//! open socket: readiness is the socket's), held by a tokio socket made
//! with tokio's safe `from_std`; reads and writes go through the
//! original, as before.

use std::io;
use std::os::fd::AsFd;
use std::sync::{Arc, OnceLock};
use tokio::io::Interest;

/// What a guest waits for on a socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    /// Bytes, a datagram, a connection to accept, or end of input.
    Read,
    /// Room to write, or a connection's outcome.
    Write,
}

impl Want {
    fn interest(self) -> Interest {
        match self {
            Want::Read => Interest::READABLE,
            Want::Write => Interest::WRITABLE,
        }
    }
}

/// The tokio socket that watches a duplicate of a host socket's
/// descriptor.
pub(crate) enum Source {
    Tcp(tokio::net::TcpStream),
    Udp(tokio::net::UdpSocket),
}

/// A host socket the reactor can watch.
pub(crate) trait Watchable: AsFd + Send + Sync + 'static {
    /// Registers a duplicate of the descriptor with the current runtime.
    fn watch(&self) -> io::Result<Source>;
}

impl Watchable for socket2::Socket {
    fn watch(&self) -> io::Result<Source> {
        let dup = self.try_clone()?;
        dup.set_nonblocking(true)?;
        if self.r#type()? == socket2::Type::DGRAM {
            Ok(Source::Udp(tokio::net::UdpSocket::from_std(dup.into())?))
        } else {
            Ok(Source::Tcp(tokio::net::TcpStream::from_std(dup.into())?))
        }
    }
}

impl Watchable for std::net::UdpSocket {
    fn watch(&self) -> io::Result<Source> {
        let dup = self.try_clone()?;
        dup.set_nonblocking(true)?;
        Ok(Source::Udp(tokio::net::UdpSocket::from_std(dup)?))
    }
}

/// A socket's registration with the reactor, made on its first wait and
/// shared by the socket and its streams.
#[derive(Clone, Default)]
pub(crate) struct Reactor(Arc<OnceLock<Option<Source>>>);

impl std::fmt::Debug for Reactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Reactor")
    }
}

/// Whether `fd` is ready for `want` now (or failed, or hung up: a read or
/// write then reports it).
pub(crate) fn ready_now(fd: &impl AsFd, want: Want) -> bool {
    let flags = match want {
        Want::Read => rustix::event::PollFlags::IN,
        Want::Write => rustix::event::PollFlags::OUT,
    };
    let fd = fd.as_fd();
    let mut fds = [rustix::event::PollFd::new(&fd, flags)];
    matches!(
        rustix::event::poll(&mut fds, Some(&rustix::time::Timespec { tv_sec: 0, tv_nsec: 0 })),
        Ok(n) if n > 0
    )
}

impl Reactor {
    fn source<S: Watchable>(&self, socket: &S) -> Option<&Source> {
        self.0
            .get_or_init(|| crate::runtime::in_runtime(|| socket.watch()).ok()?.ok())
            .as_ref()
    }

    /// Completes when `socket` is ready for `want`, woken by the reactor.
    /// If the socket cannot be registered, it completes at once (the
    /// guest's next operation then meets the socket as it is).
    pub(crate) async fn wait<S: Watchable>(&self, socket: &Arc<S>, want: Want) {
        loop {
            if ready_now(&**socket, want) {
                return;
            }
            let Some(source) = self.source(&**socket) else {
                return;
            };
            // The reactor's event may be stale (the bytes were read since):
            // its readiness is cleared unless the socket is ready, checked
            // after the event was taken, so no new event is lost.
            let check = || {
                if ready_now(&**socket, want) {
                    Ok(())
                } else {
                    Err(io::Error::from(io::ErrorKind::WouldBlock))
                }
            };
            let r = match source {
                Source::Tcp(s) => match s.ready(want.interest()).await {
                    Ok(_) => s.try_io(want.interest(), check),
                    Err(e) => Err(e),
                },
                Source::Udp(s) => match s.ready(want.interest()).await {
                    Ok(_) => s.try_io(want.interest(), check),
                    Err(e) => Err(e),
                },
            };
            match r {
                Ok(()) => return,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(_) => return,
            }
        }
    }
}

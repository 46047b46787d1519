//! WASI 0.2 (`wasi:*@0.2.x`) for components, shaped as Wasmtime 48's
//! `wasmtime_wasi::p2`.
//!
//! A store's data implements [`WasiView`], which lends the [`WasiCtx`]
//! (arguments, environment, standard streams, preopened directories,
//! clocks, random numbers, what sockets may do) and the [`ResourceTable`]
//! that holds every resource the guest has (streams, pollables,
//! descriptors). [`add_to_linker_sync`] (or [`add_to_linker_async`]) puts
//! every import of the `wasi:cli/command` world in a component
//! [`Linker`]; a guest built against any 0.2.x release links to them (the
//! linker matches imports by semver compatibility).
//!
//! Single interfaces are linked as with Wasmtime 48:
//! `bindings::<pkg>::<iface>::add_to_linker::<T, D>(linker, getter)`
//! (`bindings::sync::..` for the synchronous flavour), with `D` the
//! `HasData` type of the package ([`crate::cli::WasiCli`],
//! [`crate::clocks::WasiClocks`], [`crate::random::WasiRandom`],
//! [`crate::filesystem::WasiFilesystem`], [`crate::sockets::WasiSockets`])
//! and `getter` lending its part of the context, e.g.
//! `bindings::sockets::tcp::add_to_linker::<T, WasiSockets>(&mut linker, |s| s.sockets())`.
//! The store's data then need only implement that package's view
//! ([`crate::sockets::WasiSocketsView`], ...), which every [`WasiView`]
//! does. (`wasi:sockets/network`'s takes the link options too.) The
//! `wasi:io` host traits are implemented for the [`ResourceTable`] itself.
//!
//! The file system is the sandbox of preview1: every path is resolved by
//! `cap-std` inside the handle of a preopened directory, so nothing outside
//! a preopen is read, written or created, whatever `..`, absolute paths,
//! symlinks, renames or hard links try.
//!
//! ```
//! use weft::component::{Component, Linker, ResourceTable};
//! use weft::{Engine, Store};
//! use weft_wasi::p2::{add_to_linker_sync, WasiCtx, WasiCtxView, WasiView};
//! use weft_wasi::WasiCtxBuilder;
//!
//! struct State { ctx: WasiCtx, table: ResourceTable }
//! impl WasiView for State {
//!     fn ctx(&mut self) -> WasiCtxView<'_> {
//!         WasiCtxView { ctx: &mut self.ctx, table: &mut self.table }
//!     }
//! }
//!
//! let engine = Engine::default();
//! let mut linker = Linker::<State>::new(&engine);
//! add_to_linker_sync(&mut linker)?;
//! let state = State { ctx: WasiCtxBuilder::new().arg("prog").build(), table: ResourceTable::new() };
//! let mut store = Store::new(&engine, state);
//! let component = Component::new(&engine, "(component)")?;
//! linker.instantiate(&mut store, &component)?;
//! # Ok::<(), anyhow::Error>(())
//! ```

pub(crate) mod adapters;
pub mod bindings;
mod cli;
mod clocks;
pub(crate) mod file_streams;
pub(crate) mod filesystem;
mod filesystem_sync;
mod io;
mod io_host;
mod io_sync;
pub mod pipe;
mod random;
pub(crate) mod reactor;
pub(crate) mod sockets;
mod sockets_sync;

pub use self::cli::{IsATTY, TerminalInput, TerminalOutput};
pub use self::filesystem::{Descriptor, Dir, File, FsError, FsResult, OpenMode, ReaddirIterator};
pub use self::io::{
    subscribe, DynFuture, DynInputStream, DynOutputStream, DynPollable, InputStream, IoError, MakeFuture, OutputStream,
    Pollable, StreamError, StreamResult,
};
pub use self::sockets::{
    IncomingDatagramStream, Network, OutgoingDatagramStream, ResolveAddressStream, SocketError, SocketResult,
    TcpSocket, UdpSocket,
};
pub use crate::clocks::{HostMonotonicClock, HostWallClock, MonotonicClock, WallClock};
pub use crate::random::DEFAULT_MAX_SIZE;
pub use weft::component::{ResourceTable, ResourceTableError};

pub use crate::sockets::SocketAddrUse;

use crate::filesystem::{WasiFilesystem, WasiFilesystemCtxView, WasiFilesystemView};
use crate::sockets::{WasiSockets, WasiSocketsCtxView, WasiSocketsView};
pub use crate::view::{WasiCtx, WasiCtxView, WasiView};
use weft::component::{HasData, Linker};

/// [`HasData`] for the `wasi:io` host functions: they see the
/// [`ResourceTable`] alone (as Wasmtime's `wasmtime_wasi_io`, whose host
/// traits are implemented for the table).
pub(crate) struct HasIo;

impl HasData for HasIo {
    type Data<'a> = &'a mut ResourceTable;
}

/// The getter of the `wasi:io` host functions.
fn io_table<T: WasiView>(t: &mut T) -> &mut ResourceTable {
    t.ctx().table
}

/// Either a WIT error value `T` for the guest, or a trap (Wasmtime's
/// `TrappableError`).
pub struct TrappableError<T> {
    err: anyhow::Error,
    _marker: std::marker::PhantomData<fn() -> T>,
}

impl<T> TrappableError<T> {
    /// A trap with `err`.
    pub fn trap(err: impl Into<anyhow::Error>) -> TrappableError<T> {
        TrappableError {
            err: err.into(),
            _marker: std::marker::PhantomData,
        }
    }

    /// The WIT error value, or the trap as the error.
    pub fn downcast(self) -> anyhow::Result<T>
    where
        T: std::error::Error + Send + Sync + 'static,
    {
        self.err.downcast::<T>()
    }

    /// The WIT error value, if this is one.
    pub fn downcast_ref(&self) -> Option<&T>
    where
        T: std::error::Error + Send + Sync + 'static,
    {
        self.err.downcast_ref::<T>()
    }
}

impl<T: std::error::Error + Send + Sync + 'static> From<T> for TrappableError<T> {
    fn from(e: T) -> TrappableError<T> {
        TrappableError {
            err: e.into(),
            _marker: std::marker::PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for TrappableError<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.err)
    }
}

impl<T> std::fmt::Display for TrappableError<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.err)
    }
}

impl<T> std::error::Error for TrappableError<T> {}

/// Adds every import of the `wasi:cli/command` world (`wasi:io`,
/// `wasi:clocks`, `wasi:random`, `wasi:cli`, `wasi:filesystem`,
/// `wasi:sockets`) to `linker`, with synchronous host functions: one that
/// waits (a blocking read, `poll`) blocks its thread on the pollables'
/// futures until a waker fires ([`crate::runtime::in_tokio`]). Components
/// are instantiated and called with the synchronous API
/// ([`bindings::sync::Command`]).
pub fn add_to_linker_sync<T: WasiView + 'static>(linker: &mut Linker<T>) -> anyhow::Result<()> {
    add_to_linker_with_options_sync(linker, &bindings::sync::LinkOptions::default())
}

/// [`add_to_linker_sync`] with the `@unstable` features of `options`
/// (none of them is implemented: `wasi:clocks/timezone` is not linked).
pub fn add_to_linker_with_options_sync<T: WasiView + 'static>(
    linker: &mut Linker<T>,
    options: &bindings::sync::LinkOptions,
) -> anyhow::Result<()> {
    let get: fn(&mut T) -> &mut ResourceTable = io_table::<T>;
    {
        use bindings::sync::wasi::io;
        io::error::add_to_linker::<T, HasIo>(linker, get)?;
        io::poll::add_to_linker::<T, HasIo>(linker, get)?;
        io::streams::add_to_linker::<T, HasIo>(linker, get)?;
    }
    let fs_get: fn(&mut T) -> WasiFilesystemCtxView<'_> = T::filesystem;
    bindings::sync::wasi::filesystem::types::add_to_linker::<T, WasiFilesystem>(linker, fs_get)?;
    {
        use bindings::sync::wasi::sockets;
        let sockets_get: fn(&mut T) -> WasiSocketsCtxView<'_> = T::sockets;
        sockets::tcp::add_to_linker::<T, WasiSockets>(linker, sockets_get)?;
        sockets::udp::add_to_linker::<T, WasiSockets>(linker, sockets_get)?;
        sockets::udp_create_socket::add_to_linker::<T, WasiSockets>(linker, sockets_get)?;
    }
    add_nonblocking_to_linker(linker, &options.into())
}

/// Adds the interfaces the sync and async flavours share (none of their
/// functions waits; `wasi:filesystem/types`, `wasi:sockets/tcp`, `udp` and
/// `udp-create-socket` are each flavour's own), each
/// with its own `HasData` type and getter, as an embedder linking single
/// interfaces would.
fn add_nonblocking_to_linker<T: WasiView + 'static>(
    linker: &mut Linker<T>,
    network: &bindings::sockets::network::LinkOptions,
) -> anyhow::Result<()> {
    use crate::cli::{WasiCli, WasiCliCtxView, WasiCliView};
    use crate::clocks::{WasiClocks, WasiClocksCtxView, WasiClocksView};
    use crate::random::{WasiRandom, WasiRandomCtx, WasiRandomView};
    use bindings::wasi::*;
    let clocks_get: fn(&mut T) -> WasiClocksCtxView<'_> = T::clocks;
    clocks::wall_clock::add_to_linker::<T, WasiClocks>(linker, clocks_get)?;
    clocks::monotonic_clock::add_to_linker::<T, WasiClocks>(linker, clocks_get)?;
    let random_get: fn(&mut T) -> &mut WasiRandomCtx = T::random;
    random::random::add_to_linker::<T, WasiRandom>(linker, random_get)?;
    random::insecure::add_to_linker::<T, WasiRandom>(linker, random_get)?;
    random::insecure_seed::add_to_linker::<T, WasiRandom>(linker, random_get)?;
    let cli_get: fn(&mut T) -> WasiCliCtxView<'_> = T::cli;
    cli::environment::add_to_linker::<T, WasiCli>(linker, cli_get)?;
    cli::exit::add_to_linker::<T, WasiCli>(linker, cli_get)?;
    cli::stdin::add_to_linker::<T, WasiCli>(linker, cli_get)?;
    cli::stdout::add_to_linker::<T, WasiCli>(linker, cli_get)?;
    cli::stderr::add_to_linker::<T, WasiCli>(linker, cli_get)?;
    cli::terminal_input::add_to_linker::<T, WasiCli>(linker, cli_get)?;
    cli::terminal_output::add_to_linker::<T, WasiCli>(linker, cli_get)?;
    cli::terminal_stdin::add_to_linker::<T, WasiCli>(linker, cli_get)?;
    cli::terminal_stdout::add_to_linker::<T, WasiCli>(linker, cli_get)?;
    cli::terminal_stderr::add_to_linker::<T, WasiCli>(linker, cli_get)?;
    let fs_get: fn(&mut T) -> WasiFilesystemCtxView<'_> = T::filesystem;
    filesystem::preopens::add_to_linker::<T, WasiFilesystem>(linker, fs_get)?;
    let sockets_get: fn(&mut T) -> WasiSocketsCtxView<'_> = T::sockets;
    sockets::network::add_to_linker::<T, WasiSockets>(linker, network, sockets_get)?;
    sockets::instance_network::add_to_linker::<T, WasiSockets>(linker, sockets_get)?;
    sockets::tcp_create_socket::add_to_linker::<T, WasiSockets>(linker, sockets_get)?;
    sockets::ip_name_lookup::add_to_linker::<T, WasiSockets>(linker, sockets_get)?;
    Ok(())
}

/// Adds the same imports as [`add_to_linker_sync`] to a linker whose
/// components are instantiated and called with the async API
/// (`instantiate_async`, `call_async`, [`bindings::Command`]). The host
/// functions that wait are async: they await the pollables' futures,
/// which their wakers (the socket reactor, timers, channels) wake, so a
/// waiting guest holds no thread. The file-system functions that touch the
/// disk run that work on a thread of weft-wasi's blocking pool and await
/// it, unless the context allows blocking the calling thread
/// ([`crate::WasiCtxBuilder::allow_blocking_current_thread`]).
pub fn add_to_linker_async<T: WasiView + 'static>(linker: &mut Linker<T>) -> anyhow::Result<()> {
    add_to_linker_with_options_async(linker, &bindings::LinkOptions::default())
}

/// [`add_to_linker_async`] with the `@unstable` features of `options`.
pub fn add_to_linker_with_options_async<T: WasiView + 'static>(
    linker: &mut Linker<T>,
    options: &bindings::LinkOptions,
) -> anyhow::Result<()> {
    let get: fn(&mut T) -> &mut ResourceTable = io_table::<T>;
    {
        use bindings::wasi::io;
        io::error::add_to_linker::<T, HasIo>(linker, get)?;
        io::poll::add_to_linker::<T, HasIo>(linker, get)?;
        io::streams::add_to_linker::<T, HasIo>(linker, get)?;
    }
    let fs_get: fn(&mut T) -> WasiFilesystemCtxView<'_> = T::filesystem;
    bindings::wasi::filesystem::types::add_to_linker::<T, WasiFilesystem>(linker, fs_get)?;
    {
        use bindings::wasi::sockets;
        let sockets_get: fn(&mut T) -> WasiSocketsCtxView<'_> = T::sockets;
        sockets::tcp::add_to_linker::<T, WasiSockets>(linker, sockets_get)?;
        sockets::udp::add_to_linker::<T, WasiSockets>(linker, sockets_get)?;
        sockets::udp_create_socket::add_to_linker::<T, WasiSockets>(linker, sockets_get)?;
    }
    add_nonblocking_to_linker(linker, &options.into())
}

/// Adds only what the `wasi:http/proxy` world needs besides `wasi:http`
/// (`wasi:io`, the clocks, `wasi:random/random` and the standard streams
/// of `wasi:cli`), with async host functions.
pub fn add_to_linker_proxy_interfaces_async<T: WasiView + 'static>(linker: &mut Linker<T>) -> anyhow::Result<()> {
    let get: fn(&mut T) -> &mut ResourceTable = io_table::<T>;
    use bindings::wasi::*;
    io::error::add_to_linker::<T, HasIo>(linker, get)?;
    io::poll::add_to_linker::<T, HasIo>(linker, get)?;
    io::streams::add_to_linker::<T, HasIo>(linker, get)?;
    add_proxy_nonblocking(linker)
}

/// [`add_to_linker_proxy_interfaces_async`] with synchronous host
/// functions.
#[doc(hidden)]
pub fn add_to_linker_proxy_interfaces_sync<T: WasiView + 'static>(linker: &mut Linker<T>) -> anyhow::Result<()> {
    let get: fn(&mut T) -> &mut ResourceTable = io_table::<T>;
    use bindings::sync::wasi::io;
    io::error::add_to_linker::<T, HasIo>(linker, get)?;
    io::poll::add_to_linker::<T, HasIo>(linker, get)?;
    io::streams::add_to_linker::<T, HasIo>(linker, get)?;
    add_proxy_nonblocking(linker)
}

/// The proxy world's interfaces without waiting functions.
fn add_proxy_nonblocking<T: WasiView + 'static>(linker: &mut Linker<T>) -> anyhow::Result<()> {
    use crate::cli::{WasiCli, WasiCliCtxView, WasiCliView};
    use crate::clocks::{WasiClocks, WasiClocksCtxView, WasiClocksView};
    use crate::random::{WasiRandom, WasiRandomCtx, WasiRandomView};
    use bindings::wasi::*;
    let clocks_get: fn(&mut T) -> WasiClocksCtxView<'_> = T::clocks;
    clocks::wall_clock::add_to_linker::<T, WasiClocks>(linker, clocks_get)?;
    clocks::monotonic_clock::add_to_linker::<T, WasiClocks>(linker, clocks_get)?;
    let random_get: fn(&mut T) -> &mut WasiRandomCtx = T::random;
    random::random::add_to_linker::<T, WasiRandom>(linker, random_get)?;
    let cli_get: fn(&mut T) -> WasiCliCtxView<'_> = T::cli;
    cli::stdin::add_to_linker::<T, WasiCli>(linker, cli_get)?;
    cli::stdout::add_to_linker::<T, WasiCli>(linker, cli_get)?;
    cli::stderr::add_to_linker::<T, WasiCli>(linker, cli_get)?;
    Ok(())
}

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
mod filesystem;
mod io;
mod io_host;
mod io_sync;
pub mod pipe;
mod random;
mod reactor;
pub(crate) mod sockets;

pub use self::cli::{IsATTY, TerminalInput, TerminalOutput};
pub use self::clocks::{HostMonotonicClock, HostWallClock, MonotonicClock, WallClock};
pub use self::filesystem::{Descriptor, Dir, File, FsError, FsResult, OpenMode, ReaddirIterator};
pub use self::io::{
    subscribe, DynFuture, DynInputStream, DynOutputStream, DynPollable, InputStream, IoError, MakeFuture, OutputStream,
    Pollable, StreamError, StreamResult,
};
pub use self::random::DEFAULT_MAX_SIZE;
pub use self::sockets::{
    IncomingDatagramStream, Network, OutgoingDatagramStream, ResolveAddressStream, SocketError, SocketResult,
    TcpSocket, UdpSocket,
};
pub use weft::component::{ResourceTable, ResourceTableError};

/// A random seed from the operating system.
pub(crate) fn random_seed() -> u128 {
    u128::from_le_bytes(os_random::<16>())
}

/// The insecure generator: SplitMix64, seeded from the operating system.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix(pub(crate) u64);

impl SplitMix {
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Random bytes from the operating system.
fn os_random<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    // Without an OS generator the bytes stay as they are; that only weakens
    // the insecure generator's seed.
    let _ = getrandom::fill(&mut b);
    b
}

/// What an address is used for, as the context's check of socket
/// addresses sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SocketAddrUse {
    /// Binding a TCP socket.
    TcpBind,
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

/// The context's check of the addresses sockets use: `true` allows.
pub(crate) type AddrCheck = Arc<dyn Fn(std::net::SocketAddr, SocketAddrUse) -> bool + Send + Sync>;

/// What the guest may do with sockets (nothing by default).
#[derive(Clone, Default)]
pub(crate) struct SocketsCtx {
    pub(crate) allow_tcp: bool,
    pub(crate) allow_udp: bool,
    pub(crate) allow_ip_name_lookup: bool,
    pub(crate) addr_check: Option<AddrCheck>,
}

use crate::stdio::{StdinStream, StdoutStream};
// Import loop kept on purpose: `WasiCtx::builder()` returns the builder
// that builds it (as Wasmtime's), and the builder makes the context.
use crate::WasiCtxBuilder;
use std::sync::{Arc, Mutex};
use weft::component::{HasData, Linker};

/// The WASI 0.2 state of one store (Wasmtime's `WasiCtx`): what the guest
/// sees and may touch. Built by [`crate::WasiCtxBuilder::build`].
pub struct WasiCtx {
    pub(crate) args: Vec<String>,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) initial_cwd: Option<String>,
    pub(crate) stdin: Arc<Mutex<Box<dyn StdinStream>>>,
    pub(crate) stdout: Arc<Mutex<Box<dyn StdoutStream>>>,
    pub(crate) stderr: Arc<Mutex<Box<dyn StdoutStream>>>,
    pub(crate) preopens: Vec<(Descriptor, String)>,
    pub(crate) wall_clock: Box<dyn HostWallClock>,
    pub(crate) monotonic_clock: Box<dyn HostMonotonicClock>,
    pub(crate) insecure_random: SplitMix,
    pub(crate) insecure_random_seed: u128,
    pub(crate) max_random_size: u64,
    pub(crate) sockets: SocketsCtx,
}

impl std::fmt::Debug for WasiCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasiCtx")
            .field("args", &self.args)
            .field("env", &self.env)
            .field("preopens", &self.preopens.iter().map(|(_, n)| n).collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl WasiCtx {
    /// A builder of a context (see [`crate::WasiCtxBuilder`]).
    pub fn builder() -> WasiCtxBuilder {
        WasiCtxBuilder::new()
    }

    /// The arguments the guest sees.
    pub fn args(&self) -> &[String] {
        &self.args
    }

    /// The environment variables the guest sees.
    pub fn env(&self) -> &[(String, String)] {
        &self.env
    }
}

/// What host functions of WASI 0.2 reach in the store's data: the context
/// and the resource table (Wasmtime's `WasiCtxView`).
pub struct WasiCtxView<'a> {
    /// The WASI context.
    pub ctx: &'a mut WasiCtx,
    /// The table of the guest's resources.
    pub table: &'a mut ResourceTable,
}

impl std::fmt::Debug for WasiCtxView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasiCtxView")
            .field("ctx", &self.ctx)
            .finish_non_exhaustive()
    }
}

/// Implemented by a store's data to lend WASI 0.2 its context and table
/// (Wasmtime's `WasiView`).
pub trait WasiView: Send {
    /// The context and the resource table.
    fn ctx(&mut self) -> WasiCtxView<'_>;
}

impl<T: WasiView + ?Sized> WasiView for &mut T {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        T::ctx(self)
    }
}

impl<T: WasiView + ?Sized> WasiView for Box<T> {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        T::ctx(self)
    }
}

/// [`HasData`] for the WASI 0.2 host functions: they see a
/// [`WasiCtxView`].
pub struct HasWasi;

impl HasData for HasWasi {
    type Data<'a> = WasiCtxView<'a>;
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

/// The getter of the WASI 0.2 host functions.
fn wasi_ctx<T: WasiView>(t: &mut T) -> WasiCtxView<'_> {
    t.ctx()
}

/// [`add_to_linker_sync`] with the `@unstable` features of `options`
/// (none of them is implemented: `wasi:clocks/timezone` is not linked).
pub fn add_to_linker_with_options_sync<T: WasiView + 'static>(
    linker: &mut Linker<T>,
    options: &bindings::sync::LinkOptions,
) -> anyhow::Result<()> {
    let get: fn(&mut T) -> WasiCtxView<'_> = wasi_ctx::<T>;
    {
        use bindings::sync::wasi::io;
        io::error::add_to_linker::<T, HasWasi>(linker, get)?;
        io::poll::add_to_linker::<T, HasWasi>(linker, get)?;
        io::streams::add_to_linker::<T, HasWasi>(linker, get)?;
    }
    add_nonblocking_to_linker(linker, &options.into())
}

/// Adds the interfaces the sync and async flavours share (none of their
/// functions waits).
fn add_nonblocking_to_linker<T: WasiView + 'static>(
    linker: &mut Linker<T>,
    network: &bindings::sockets::network::LinkOptions,
) -> anyhow::Result<()> {
    use bindings::wasi::*;
    let get: fn(&mut T) -> WasiCtxView<'_> = wasi_ctx::<T>;
    clocks::wall_clock::add_to_linker::<T, HasWasi>(linker, get)?;
    clocks::monotonic_clock::add_to_linker::<T, HasWasi>(linker, get)?;
    random::random::add_to_linker::<T, HasWasi>(linker, get)?;
    random::insecure::add_to_linker::<T, HasWasi>(linker, get)?;
    random::insecure_seed::add_to_linker::<T, HasWasi>(linker, get)?;
    cli::environment::add_to_linker::<T, HasWasi>(linker, get)?;
    cli::exit::add_to_linker::<T, HasWasi>(linker, get)?;
    cli::stdin::add_to_linker::<T, HasWasi>(linker, get)?;
    cli::stdout::add_to_linker::<T, HasWasi>(linker, get)?;
    cli::stderr::add_to_linker::<T, HasWasi>(linker, get)?;
    cli::terminal_input::add_to_linker::<T, HasWasi>(linker, get)?;
    cli::terminal_output::add_to_linker::<T, HasWasi>(linker, get)?;
    cli::terminal_stdin::add_to_linker::<T, HasWasi>(linker, get)?;
    cli::terminal_stdout::add_to_linker::<T, HasWasi>(linker, get)?;
    cli::terminal_stderr::add_to_linker::<T, HasWasi>(linker, get)?;
    filesystem::types::add_to_linker::<T, HasWasi>(linker, get)?;
    filesystem::preopens::add_to_linker::<T, HasWasi>(linker, get)?;
    sockets::network::add_to_linker::<T, HasWasi>(linker, network, get)?;
    sockets::instance_network::add_to_linker::<T, HasWasi>(linker, get)?;
    sockets::tcp::add_to_linker::<T, HasWasi>(linker, get)?;
    sockets::tcp_create_socket::add_to_linker::<T, HasWasi>(linker, get)?;
    sockets::udp::add_to_linker::<T, HasWasi>(linker, get)?;
    sockets::udp_create_socket::add_to_linker::<T, HasWasi>(linker, get)?;
    sockets::ip_name_lookup::add_to_linker::<T, HasWasi>(linker, get)?;
    Ok(())
}

/// Adds the same imports as [`add_to_linker_sync`] to a linker whose
/// components are instantiated and called with the async API
/// (`instantiate_async`, `call_async`, [`bindings::Command`]). The host
/// functions that wait are async: they await the pollables' futures,
/// which their wakers (the socket reactor, timers, channels) wake, so a
/// waiting guest holds no thread.
pub fn add_to_linker_async<T: WasiView + 'static>(linker: &mut Linker<T>) -> anyhow::Result<()> {
    add_to_linker_with_options_async(linker, &bindings::LinkOptions::default())
}

/// [`add_to_linker_async`] with the `@unstable` features of `options`.
pub fn add_to_linker_with_options_async<T: WasiView + 'static>(
    linker: &mut Linker<T>,
    options: &bindings::LinkOptions,
) -> anyhow::Result<()> {
    let get: fn(&mut T) -> WasiCtxView<'_> = wasi_ctx::<T>;
    {
        use bindings::wasi::io;
        io::error::add_to_linker::<T, HasWasi>(linker, get)?;
        io::poll::add_to_linker::<T, HasWasi>(linker, get)?;
        io::streams::add_to_linker::<T, HasWasi>(linker, get)?;
    }
    add_nonblocking_to_linker(linker, &options.into())
}

/// Adds only what the `wasi:http/proxy` world needs besides `wasi:http`
/// (`wasi:io`, the clocks, `wasi:random/random` and the standard streams
/// of `wasi:cli`), with async host functions.
pub fn add_to_linker_proxy_interfaces_async<T: WasiView + 'static>(linker: &mut Linker<T>) -> anyhow::Result<()> {
    let get: fn(&mut T) -> WasiCtxView<'_> = wasi_ctx::<T>;
    use bindings::wasi::*;
    io::error::add_to_linker::<T, HasWasi>(linker, get)?;
    io::poll::add_to_linker::<T, HasWasi>(linker, get)?;
    io::streams::add_to_linker::<T, HasWasi>(linker, get)?;
    add_proxy_nonblocking(linker)
}

/// [`add_to_linker_proxy_interfaces_async`] with synchronous host
/// functions.
#[doc(hidden)]
pub fn add_to_linker_proxy_interfaces_sync<T: WasiView + 'static>(linker: &mut Linker<T>) -> anyhow::Result<()> {
    let get: fn(&mut T) -> WasiCtxView<'_> = wasi_ctx::<T>;
    use bindings::sync::wasi::io;
    io::error::add_to_linker::<T, HasWasi>(linker, get)?;
    io::poll::add_to_linker::<T, HasWasi>(linker, get)?;
    io::streams::add_to_linker::<T, HasWasi>(linker, get)?;
    add_proxy_nonblocking(linker)
}

/// The proxy world's interfaces without waiting functions.
fn add_proxy_nonblocking<T: WasiView + 'static>(linker: &mut Linker<T>) -> anyhow::Result<()> {
    let get: fn(&mut T) -> WasiCtxView<'_> = wasi_ctx::<T>;
    use bindings::wasi::*;
    clocks::wall_clock::add_to_linker::<T, HasWasi>(linker, get)?;
    clocks::monotonic_clock::add_to_linker::<T, HasWasi>(linker, get)?;
    random::random::add_to_linker::<T, HasWasi>(linker, get)?;
    cli::stdin::add_to_linker::<T, HasWasi>(linker, get)?;
    cli::stdout::add_to_linker::<T, HasWasi>(linker, get)?;
    cli::stderr::add_to_linker::<T, HasWasi>(linker, get)?;
    Ok(())
}

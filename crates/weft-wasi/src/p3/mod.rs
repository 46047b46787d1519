//! WASI 0.3 (`wasi:*@0.3.0`) for components, on the component model's
//! async ABI, shaped as Wasmtime 48's `wasmtime_wasi::p3`.
//!
//! It shares the context with WASI 0.2 (as Wasmtime does): a store's data
//! implements [`WasiView`], lending the [`WasiCtx`] built by
//! [`crate::WasiCtxBuilder`] and the [`ResourceTable`](weft::component::ResourceTable).
//! [`add_to_linker`] puts the imports of `wasi:cli/command@0.3.0` that are
//! implemented so far in a component [`Linker`]: `wasi:cli` (environment,
//! exit, the standard streams as `stream<u8>`, terminals),
//! `wasi:clocks` (monotonic and system clocks, `wait-for`/`wait-until`)
//! `wasi:random` and `wasi:filesystem` (over WASI 0.2's descriptors, so
//! the same sandbox) and `wasi:sockets` (TCP and UDP sockets and name
//! lookup, over WASI 0.2's sockets and the same context permissions:
//! nothing allowed by default).
//!
//! The guest's `wasi:cli/run` is an `async` export: call it inside
//! `Store::run_concurrent`, as with Wasmtime:
//!
//! ```no_run
//! use weft::component::{Component, Linker, ResourceTable};
//! use weft::{Engine, Store};
//! use weft_wasi::p3::{WasiCtx, WasiCtxView, WasiView};
//!
//! struct State { ctx: WasiCtx, table: ResourceTable }
//! impl WasiView for State {
//!     fn ctx(&mut self) -> WasiCtxView<'_> {
//!         WasiCtxView { ctx: &mut self.ctx, table: &mut self.table }
//!     }
//! }
//!
//! async fn run(engine: &Engine, component: &Component, mut store: Store<State>) -> weft::Result<()> {
//!     let mut linker = Linker::<State>::new(engine);
//!     weft_wasi::p3::add_to_linker(&mut linker)?;
//!     let command = weft_wasi::p3::bindings::Command::instantiate_async(&mut store, component, &linker).await?;
//!     let status: Result<(), ()> = store
//!         .run_concurrent(async move |store| command.wasi_cli_run().call_run(store).await)
//!         .await??;
//!     println!("run returned {status:?}");
//!     Ok(())
//! }
//! ```

pub mod bindings;
mod cli_impl;
mod clocks_impl;
mod filesystem_impl;
mod random_impl;
mod slot;
mod sockets_impl;
mod tcp_impl;

pub use crate::p2::{TerminalInput, TerminalOutput, WasiCtx, WasiCtxView, WasiView};
use weft::component::Linker;

/// Adds every implemented import of `wasi:cli/command@0.3.0` to `linker`:
/// `wasi:cli`, `wasi:clocks`, `wasi:random`, `wasi:filesystem` and
/// `wasi:sockets`.
pub fn add_to_linker<T: WasiView + 'static>(linker: &mut Linker<T>) -> weft::Result<()> {
    add_to_linker_with_options(linker, &bindings::LinkOptions::default())
}

/// [`add_to_linker`] with the `@unstable` features of `options` (unused, as
/// in Wasmtime 48: `wasi:clocks/timezone` is not linked).
pub fn add_to_linker_with_options<T: WasiView + 'static>(
    linker: &mut Linker<T>,
    _options: &bindings::LinkOptions,
) -> weft::Result<()> {
    cli::add_to_linker(linker)?;
    clocks::add_to_linker(linker)?;
    random::add_to_linker(linker)?;
    filesystem::add_to_linker(linker)?;
    sockets::add_to_linker(linker)?;
    Ok(())
}

/// `wasi:cli@0.3.0`.
pub mod cli {
    use super::{bindings::wasi::cli::*, Linker};
    pub use super::{TerminalInput, TerminalOutput};
    use crate::cli::{WasiCli, WasiCliCtxView, WasiCliView};

    /// Adds `wasi:cli/{environment, exit, types, stdin, stdout, stderr,
    /// terminal-*}` to `linker`; the store's data need only lend the
    /// `wasi:cli` part of the context ([`WasiCliView`]).
    pub fn add_to_linker<T: WasiCliView + 'static>(linker: &mut Linker<T>) -> weft::Result<()> {
        let get: fn(&mut T) -> WasiCliCtxView<'_> = T::cli;
        environment::add_to_linker::<T, WasiCli>(linker, get)?;
        exit::add_to_linker::<T, WasiCli>(linker, get)?;
        types::add_to_linker::<T, WasiCli>(linker, get)?;
        stdin::add_to_linker::<T, WasiCli>(linker, get)?;
        stdout::add_to_linker::<T, WasiCli>(linker, get)?;
        stderr::add_to_linker::<T, WasiCli>(linker, get)?;
        terminal_input::add_to_linker::<T, WasiCli>(linker, get)?;
        terminal_output::add_to_linker::<T, WasiCli>(linker, get)?;
        terminal_stdin::add_to_linker::<T, WasiCli>(linker, get)?;
        terminal_stdout::add_to_linker::<T, WasiCli>(linker, get)?;
        terminal_stderr::add_to_linker::<T, WasiCli>(linker, get)?;
        Ok(())
    }
}

/// `wasi:clocks@0.3.0`.
pub mod clocks {
    use super::{bindings::wasi::clocks::*, Linker};
    use crate::clocks::{WasiClocks, WasiClocksCtxView, WasiClocksView};

    /// Adds `wasi:clocks/{types, monotonic-clock, system-clock}` to
    /// `linker`; the store's data need only lend the `wasi:clocks` part
    /// of the context ([`WasiClocksView`]).
    pub fn add_to_linker<T: WasiClocksView + 'static>(linker: &mut Linker<T>) -> weft::Result<()> {
        let get: fn(&mut T) -> WasiClocksCtxView<'_> = T::clocks;
        types::add_to_linker::<T, WasiClocks>(linker, get)?;
        monotonic_clock::add_to_linker::<T, WasiClocks>(linker, get)?;
        system_clock::add_to_linker::<T, WasiClocks>(linker, get)?;
        Ok(())
    }
}

/// `wasi:random@0.3.0`.
pub mod random {
    use super::{bindings::wasi::random::*, Linker};
    use crate::random::{WasiRandom, WasiRandomCtx, WasiRandomView};

    /// Adds `wasi:random/{random, insecure, insecure-seed}` to `linker`;
    /// the store's data need only lend the [`WasiRandomCtx`]
    /// ([`WasiRandomView`]).
    pub fn add_to_linker<T: WasiRandomView + 'static>(linker: &mut Linker<T>) -> weft::Result<()> {
        let get: fn(&mut T) -> &mut WasiRandomCtx = T::random;
        random::add_to_linker::<T, WasiRandom>(linker, get)?;
        insecure::add_to_linker::<T, WasiRandom>(linker, get)?;
        insecure_seed::add_to_linker::<T, WasiRandom>(linker, get)?;
        Ok(())
    }
}

/// `wasi:filesystem@0.3.0`.
pub mod filesystem {
    use super::{bindings::wasi::filesystem::*, Linker};
    use crate::filesystem::{WasiFilesystem, WasiFilesystemCtxView, WasiFilesystemView};

    /// A `wasi:filesystem` error code for the guest, or a trap.
    pub type FilesystemError = crate::p2::TrappableError<types::ErrorCode>;
    /// The result of a `wasi:filesystem` host function.
    pub type FilesystemResult<T> = Result<T, FilesystemError>;

    /// Adds `wasi:filesystem/{types, preopens}` to `linker`; the store's
    /// data need only lend the `wasi:filesystem` part of the context
    /// ([`WasiFilesystemView`]).
    pub fn add_to_linker<T: WasiFilesystemView + 'static>(linker: &mut Linker<T>) -> weft::Result<()> {
        let get: fn(&mut T) -> WasiFilesystemCtxView<'_> = T::filesystem;
        types::add_to_linker::<T, WasiFilesystem>(linker, get)?;
        preopens::add_to_linker::<T, WasiFilesystem>(linker, get)?;
        Ok(())
    }
}

/// `wasi:sockets@0.3.0`: TCP and UDP sockets and name lookup.
pub mod sockets {
    use super::{bindings::wasi::sockets::*, Linker};
    use crate::sockets::{WasiSockets, WasiSocketsCtxView, WasiSocketsView};

    /// A `wasi:sockets` error code for the guest, or a trap.
    pub type SocketError = crate::p2::TrappableError<types::ErrorCode>;
    /// The result of a `wasi:sockets` host function.
    pub type SocketResult<T> = Result<T, SocketError>;

    /// Adds `wasi:sockets/{types, ip-name-lookup}` to `linker`; the
    /// store's data need only lend the `wasi:sockets` part of the context
    /// ([`WasiSocketsView`]). Each is refused with `access-denied` unless
    /// the context allows it ([`crate::WasiCtxBuilder::allow_tcp`],
    /// `allow_udp`, `allow_ip_name_lookup`, and the address check of
    /// [`crate::WasiCtxBuilder::socket_addr_check`] or `inherit_network`).
    pub fn add_to_linker<T: WasiSocketsView + 'static>(linker: &mut Linker<T>) -> weft::Result<()> {
        let get: fn(&mut T) -> WasiSocketsCtxView<'_> = T::sockets;
        types::add_to_linker::<T, WasiSockets>(linker, get)?;
        ip_name_lookup::add_to_linker::<T, WasiSockets>(linker, get)?;
        Ok(())
    }
}

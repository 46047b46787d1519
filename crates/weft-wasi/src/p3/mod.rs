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

use crate::p2::HasWasi;
pub use crate::p2::{TerminalInput, TerminalOutput, WasiCtx, WasiCtxView, WasiView};
use weft::component::Linker;

/// The getter every `add_to_linker` of this module passes to the
/// generated bindings.
fn getter<T: WasiView + 'static>() -> fn(&mut T) -> WasiCtxView<'_> {
    fn get<T: WasiView>(t: &mut T) -> WasiCtxView<'_> {
        t.ctx()
    }
    get::<T>
}

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
    use super::{bindings::wasi::cli::*, getter, HasWasi, Linker, WasiView};
    pub use super::{TerminalInput, TerminalOutput};

    /// Adds `wasi:cli/{environment, exit, types, stdin, stdout, stderr,
    /// terminal-*}` to `linker`.
    pub fn add_to_linker<T: WasiView + 'static>(linker: &mut Linker<T>) -> weft::Result<()> {
        let get = getter::<T>();
        environment::add_to_linker::<T, HasWasi>(linker, get)?;
        exit::add_to_linker::<T, HasWasi>(linker, get)?;
        types::add_to_linker::<T, HasWasi>(linker, get)?;
        stdin::add_to_linker::<T, HasWasi>(linker, get)?;
        stdout::add_to_linker::<T, HasWasi>(linker, get)?;
        stderr::add_to_linker::<T, HasWasi>(linker, get)?;
        terminal_input::add_to_linker::<T, HasWasi>(linker, get)?;
        terminal_output::add_to_linker::<T, HasWasi>(linker, get)?;
        terminal_stdin::add_to_linker::<T, HasWasi>(linker, get)?;
        terminal_stdout::add_to_linker::<T, HasWasi>(linker, get)?;
        terminal_stderr::add_to_linker::<T, HasWasi>(linker, get)?;
        Ok(())
    }
}

/// `wasi:clocks@0.3.0`.
pub mod clocks {
    use super::{bindings::wasi::clocks::*, getter, HasWasi, Linker, WasiView};

    /// Adds `wasi:clocks/{types, monotonic-clock, system-clock}` to
    /// `linker`.
    pub fn add_to_linker<T: WasiView + 'static>(linker: &mut Linker<T>) -> weft::Result<()> {
        let get = getter::<T>();
        types::add_to_linker::<T, HasWasi>(linker, get)?;
        monotonic_clock::add_to_linker::<T, HasWasi>(linker, get)?;
        system_clock::add_to_linker::<T, HasWasi>(linker, get)?;
        Ok(())
    }
}

/// `wasi:random@0.3.0`.
pub mod random {
    use super::{bindings::wasi::random::*, getter, HasWasi, Linker, WasiView};

    /// Adds `wasi:random/{random, insecure, insecure-seed}` to `linker`.
    pub fn add_to_linker<T: WasiView + 'static>(linker: &mut Linker<T>) -> weft::Result<()> {
        let get = getter::<T>();
        random::add_to_linker::<T, HasWasi>(linker, get)?;
        insecure::add_to_linker::<T, HasWasi>(linker, get)?;
        insecure_seed::add_to_linker::<T, HasWasi>(linker, get)?;
        Ok(())
    }
}

/// `wasi:filesystem@0.3.0`.
pub mod filesystem {
    use super::{bindings::wasi::filesystem::*, getter, HasWasi, Linker, WasiView};

    /// A `wasi:filesystem` error code for the guest, or a trap.
    pub type FilesystemError = crate::p2::TrappableError<types::ErrorCode>;
    /// The result of a `wasi:filesystem` host function.
    pub type FilesystemResult<T> = Result<T, FilesystemError>;

    /// Adds `wasi:filesystem/{types, preopens}` to `linker`.
    pub fn add_to_linker<T: WasiView + 'static>(linker: &mut Linker<T>) -> weft::Result<()> {
        let get = getter::<T>();
        types::add_to_linker::<T, HasWasi>(linker, get)?;
        preopens::add_to_linker::<T, HasWasi>(linker, get)?;
        Ok(())
    }
}

/// `wasi:sockets@0.3.0`: TCP and UDP sockets and name lookup.
pub mod sockets {
    use super::{bindings::wasi::sockets::*, getter, HasWasi, Linker, WasiView};

    /// Adds `wasi:sockets/{types, ip-name-lookup}` to `linker`. Each is
    /// refused with `access-denied` unless the context allows it
    /// ([`crate::WasiCtxBuilder::allow_tcp`], `allow_udp`,
    /// `allow_ip_name_lookup`, and the address check of
    /// [`crate::WasiCtxBuilder::socket_addr_check`] or `inherit_network`).
    pub fn add_to_linker<T: WasiView + 'static>(linker: &mut Linker<T>) -> weft::Result<()> {
        let get = getter::<T>();
        types::add_to_linker::<T, HasWasi>(linker, get)?;
        ip_name_lookup::add_to_linker::<T, HasWasi>(linker, get)?;
        Ok(())
    }
}

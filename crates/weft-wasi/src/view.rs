//! The WASI context of a component's store and the view of it the store
//! data lends (Wasmtime 48's `WasiCtx`, `WasiCtxView` and `WasiView`),
//! with the blanket impls that make every `WasiView` a view of each
//! package's part ([`crate::cli::WasiCliView`], ...).

use crate::cli::{WasiCliCtxView, WasiCliView};
use crate::clocks::{WasiClocksCtxView, WasiClocksView};
use crate::filesystem::{WasiFilesystemCtxView, WasiFilesystemView};
use crate::random::{WasiRandomCtx, WasiRandomView};
use crate::sockets::{WasiSocketsCtxView, WasiSocketsView};
// Import loop kept on purpose: `WasiCtx::builder()` returns the builder
// that builds it (as Wasmtime's), and the builder makes the context.
use crate::WasiCtxBuilder;
use weft::component::ResourceTable;

/// The WASI state of one store (Wasmtime's `WasiCtx`): what the guest
/// sees and may touch, in one sub-context per WASI package. Built by
/// [`crate::WasiCtxBuilder::build`].
#[derive(Default)]
pub struct WasiCtx {
    pub(crate) cli: crate::cli::WasiCliCtx,
    pub(crate) clocks: crate::clocks::WasiClocksCtx,
    pub(crate) filesystem: crate::filesystem::WasiFilesystemCtx,
    pub(crate) random: crate::random::WasiRandomCtx,
    pub(crate) sockets: crate::sockets::WasiSocketsCtx,
}

impl std::fmt::Debug for WasiCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasiCtx")
            .field("cli", &self.cli)
            .field("clocks", &self.clocks)
            .field("filesystem", &self.filesystem)
            .field("random", &self.random)
            .field("sockets", &self.sockets)
            .finish()
    }
}

impl WasiCtx {
    /// A builder of a context (see [`crate::WasiCtxBuilder`]).
    pub fn builder() -> WasiCtxBuilder {
        WasiCtxBuilder::new()
    }

    /// The `wasi:random` part of the context.
    pub fn random(&mut self) -> &mut crate::random::WasiRandomCtx {
        &mut self.random
    }

    /// The `wasi:clocks` part of the context.
    pub fn clocks(&mut self) -> &mut crate::clocks::WasiClocksCtx {
        &mut self.clocks
    }

    /// The `wasi:filesystem` part of the context.
    pub fn filesystem(&mut self) -> &mut crate::filesystem::WasiFilesystemCtx {
        &mut self.filesystem
    }

    /// The `wasi:cli` part of the context.
    pub fn cli(&mut self) -> &mut crate::cli::WasiCliCtx {
        &mut self.cli
    }

    /// The `wasi:sockets` part of the context.
    pub fn sockets(&mut self) -> &mut crate::sockets::WasiSocketsCtx {
        &mut self.sockets
    }

    /// The arguments the guest sees.
    pub fn args(&self) -> &[String] {
        &self.cli.args
    }

    /// The environment variables the guest sees.
    pub fn env(&self) -> &[(String, String)] {
        &self.cli.env
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

impl<T: WasiView + ?Sized> WasiCliView for T {
    fn cli(&mut self) -> WasiCliCtxView<'_> {
        let view = self.ctx();
        WasiCliCtxView {
            ctx: &mut view.ctx.cli,
            table: view.table,
        }
    }
}

impl<T: WasiView + ?Sized> WasiClocksView for T {
    fn clocks(&mut self) -> WasiClocksCtxView<'_> {
        let view = self.ctx();
        WasiClocksCtxView {
            ctx: &mut view.ctx.clocks,
            table: view.table,
        }
    }
}

impl<T: WasiView + ?Sized> WasiFilesystemView for T {
    fn filesystem(&mut self) -> WasiFilesystemCtxView<'_> {
        let view = self.ctx();
        WasiFilesystemCtxView {
            ctx: &mut view.ctx.filesystem,
            table: view.table,
        }
    }
}

impl<T: WasiView + ?Sized> WasiSocketsView for T {
    fn sockets(&mut self) -> WasiSocketsCtxView<'_> {
        let view = self.ctx();
        WasiSocketsCtxView {
            ctx: &mut view.ctx.sockets,
            table: view.table,
        }
    }
}

impl<T: WasiView + ?Sized> WasiRandomView for T {
    fn random(&mut self) -> &mut WasiRandomCtx {
        &mut self.ctx().ctx.random
    }
}

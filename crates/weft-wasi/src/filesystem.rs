//! `wasi:filesystem`: descriptors and the part of the context the
//! `wasi:filesystem` interfaces see, under the module path Wasmtime 48
//! gives them (`wasmtime_wasi::filesystem`).

pub use crate::p2::{Descriptor, Dir, File, OpenMode};
pub use crate::perms::FsPerms;
use weft::component::{HasData, ResourceTable};

/// The [`HasData`] type of the `wasi:filesystem` host functions: they see
/// a [`WasiFilesystemCtxView`].
pub struct WasiFilesystem;

impl HasData for WasiFilesystem {
    type Data<'a> = WasiFilesystemCtxView<'a>;
}

/// The part of the WASI context `wasi:filesystem` sees: the preopened
/// directories (none by default) and whether blocking file-system work
/// may run on the calling thread.
#[derive(Clone, Default)]
pub struct WasiFilesystemCtx {
    pub(crate) allow_blocking_current_thread: bool,
    pub(crate) preopens: Vec<(Descriptor, String)>,
}

impl std::fmt::Debug for WasiFilesystemCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasiFilesystemCtx")
            .field("allow_blocking_current_thread", &self.allow_blocking_current_thread)
            .field("preopens", &self.preopens.iter().map(|(_, n)| n).collect::<Vec<_>>())
            .finish()
    }
}

/// What the `wasi:filesystem` host functions reach in the store's data.
pub struct WasiFilesystemCtxView<'a> {
    /// The `wasi:filesystem` part of the context.
    pub ctx: &'a mut WasiFilesystemCtx,
    /// The table of the guest's resources (descriptors, streams).
    pub table: &'a mut ResourceTable,
}

/// Implemented by a store's data to lend `wasi:filesystem` its context
/// and table. Every [`crate::WasiView`] implements it.
pub trait WasiFilesystemView: Send {
    /// The `wasi:filesystem` context and the resource table.
    fn filesystem(&mut self) -> WasiFilesystemCtxView<'_>;
}

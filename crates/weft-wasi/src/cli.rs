//! `wasi:cli`: the standard-stream traits and streams, and (with the `p2`
//! feature) the part of the context the `wasi:cli` interfaces see, under
//! the module path Wasmtime 48 gives them (`wasmtime_wasi::cli`).
//!
//! An embedder that links only `wasi:cli` implements `WasiCliView` for
//! its store data (every `WasiView` does already) and passes `WasiCli` as
//! the `HasData` type of the per-interface `add_to_linker` functions.

pub use crate::cli_streams::{AsyncStdinStream, AsyncStdoutStream};
pub use crate::stdio::{
    stderr, stdin, stdout, InputFile, IsTerminal, OutputFile, Stderr, Stdin, StdinStream, Stdout, StdoutStream,
};

#[cfg(feature = "p2")]
pub use self::view::*;

#[cfg(feature = "p2")]
mod view {
    use crate::stdio::{ClosedInputStream, SinkOutputStream, StdinStream, StdoutStream};
    use std::sync::{Arc, Mutex};
    use weft::component::{HasData, ResourceTable};

    /// The [`HasData`] type of the `wasi:cli` host functions: they see a
    /// [`WasiCliCtxView`].
    pub struct WasiCli;

    impl HasData for WasiCli {
        type Data<'a> = WasiCliCtxView<'a>;
    }

    /// The part of the WASI context `wasi:cli` sees: arguments,
    /// environment, initial working directory and standard streams.
    /// The default has none of the first three, an empty stdin and
    /// stdout and stderr that discard what is written.
    pub struct WasiCliCtx {
        pub(crate) args: Vec<String>,
        pub(crate) env: Vec<(String, String)>,
        pub(crate) initial_cwd: Option<String>,
        pub(crate) stdin: Arc<Mutex<Box<dyn StdinStream>>>,
        pub(crate) stdout: Arc<Mutex<Box<dyn StdoutStream>>>,
        pub(crate) stderr: Arc<Mutex<Box<dyn StdoutStream>>>,
    }

    impl Default for WasiCliCtx {
        fn default() -> Self {
            WasiCliCtx {
                args: Vec::new(),
                env: Vec::new(),
                initial_cwd: None,
                stdin: Arc::new(Mutex::new(Box::new(ClosedInputStream))),
                stdout: Arc::new(Mutex::new(Box::new(SinkOutputStream))),
                stderr: Arc::new(Mutex::new(Box::new(SinkOutputStream))),
            }
        }
    }

    impl std::fmt::Debug for WasiCliCtx {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("WasiCliCtx")
                .field("args", &self.args)
                .field("env", &self.env)
                .field("initial_cwd", &self.initial_cwd)
                .finish_non_exhaustive()
        }
    }

    /// What the `wasi:cli` host functions reach in the store's data.
    pub struct WasiCliCtxView<'a> {
        /// The `wasi:cli` part of the context.
        pub ctx: &'a mut WasiCliCtx,
        /// The table of the guest's resources.
        pub table: &'a mut ResourceTable,
    }

    /// Implemented by a store's data to lend `wasi:cli` its context and
    /// table. Every [`crate::WasiView`] implements it.
    pub trait WasiCliView: Send {
        /// The `wasi:cli` context and the resource table.
        fn cli(&mut self) -> WasiCliCtxView<'_>;
    }
}

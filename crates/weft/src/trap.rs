//! Traps and wasm backtraces.

use crate::{AsContext, Module};
use std::fmt;

pub use weft_environ::Trap;

pub(crate) trait TrapExt {
    fn from_runtime(trap: Trap) -> Trap;
}

impl TrapExt for Trap {
    fn from_runtime(trap: Trap) -> Trap {
        trap
    }
}

/// One wasm frame of a backtrace.
#[derive(Debug, Clone)]
pub struct FrameInfo {
    module_name: Option<String>,
    func_index: u32,
    func_name: Option<String>,
    module_offset: Option<u32>,
    func_start: Option<u32>,
}

impl FrameInfo {
    pub(crate) fn new(
        module: &Module,
        func_index: u32,
        module_offset: Option<u32>,
        func_start: Option<u32>,
    ) -> FrameInfo {
        FrameInfo {
            module_name: module.name().map(str::to_string),
            func_index,
            func_name: module.inner.env.func_names.get(func_index).map(str::to_string),
            module_offset,
            func_start,
        }
    }
    /// The offset in the module's binary of the instruction this frame was
    /// executing (for a calling frame, the instruction after the call
    /// may be named), if the code has an address for it.
    pub fn module_offset(&self) -> Option<usize> {
        self.module_offset.map(|o| o as usize)
    }
    /// [`FrameInfo::module_offset`] relative to the start of the
    /// function's body.
    pub fn func_offset(&self) -> Option<usize> {
        Some(self.module_offset?.checked_sub(self.func_start?)? as usize)
    }
    /// The index of the function in its module.
    pub fn func_index(&self) -> u32 {
        self.func_index
    }
    /// The function's name from the name section, if any.
    pub fn func_name(&self) -> Option<&str> {
        self.func_name.as_deref()
    }
    /// The module's name from the name section, if any.
    pub fn module_name(&self) -> Option<&str> {
        self.module_name.as_deref()
    }
}

/// The wasm frames active when a trap or host error happened, innermost
/// first. Attached as context to the errors of calls.
#[derive(Debug, Clone)]
pub struct WasmBacktrace {
    pub(crate) frames: Vec<FrameInfo>,
}

impl WasmBacktrace {
    /// The wasm frames of `store` on the stack now, innermost first, named
    /// as trap backtraces name them (function index, module, offsets):
    /// called from a host function that wasm called, the frames of that
    /// wasm and of every activation below it; empty when no wasm runs.
    ///
    /// Wasmtime returns an empty backtrace here when backtraces are
    /// disabled in its `Config`; Weft always records them, so this is
    /// [`WasmBacktrace::force_capture`]. From an epoch deadline callback or
    /// a fuel callback, the frames are those of the interrupted wasm (its
    /// innermost frame first) and of the activations below it.
    pub fn capture(store: impl AsContext) -> WasmBacktrace {
        WasmBacktrace::force_capture(store)
    }

    /// Like [`WasmBacktrace::capture`], whatever the configuration says.
    pub fn force_capture(store: impl AsContext) -> WasmBacktrace {
        let ctx = store.as_context();
        let opaque = &ctx.0.opaque;
        let pcs = opaque.objects.context().wasm_frame_pcs();
        opaque.backtrace(&pcs)
    }

    /// The frames, innermost first.
    pub fn frames(&self) -> &[FrameInfo] {
        &self.frames
    }
}

impl fmt::Display for WasmBacktrace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "error while executing at wasm backtrace:")?;
        for (i, frame) in self.frames.iter().enumerate() {
            let module = frame.module_name().unwrap_or("<unknown>");
            write!(f, "  {i:>3}: ")?;
            if let Some(offset) = frame.module_offset() {
                write!(f, "{offset:#8x} - ")?;
            }
            write!(f, "{module}!")?;
            match frame.func_name() {
                Some(name) => write!(f, "{name}")?,
                None => write!(f, "<wasm function {}>", frame.func_index)?,
            }
            if i + 1 < self.frames.len() {
                writeln!(f)?;
            }
        }
        Ok(())
    }
}

/// The error of a call whose wasm threw an exception that no wasm handler
/// caught: the exception reached the host that made the call, which may
/// take it with [`crate::Store::take_pending_exception`]. The store stays
/// usable.
///
/// It is also the error of [`crate::Store::throw`] (and `Caller::throw`,
/// `StoreContextMut::throw`): a host function that returns it throws the
/// store's pending exception into its wasm caller, where `try_table` may
/// catch it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThrownException {
    /// The store index of the exception's tag.
    pub(crate) tag: u32,
    /// Why `throw` threw nothing (an exception of another store, or none
    /// of this one); `None` when an exception is pending.
    pub(crate) refused: Option<String>,
}

impl std::fmt::Display for ThrownException {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.refused {
            Some(why) => write!(f, "cannot throw the exception: {why}; nothing was thrown"),
            None => write!(f, "uncaught wasm exception (thrown with tag {} of the store)", self.tag),
        }
    }
}

impl std::error::Error for ThrownException {}

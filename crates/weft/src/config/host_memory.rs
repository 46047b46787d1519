//! Linear memories in memory the embedder provides:
//! `Config::with_host_memory`, [`MemoryCreator`] and [`LinearMemory`] (as
//! Wasmtime's).
//!
//! Code compiled by an engine with a memory creator checks the bounds of
//! every memory access (the creator is asked for no guard region), and
//! each memory is asked to reserve the most it may ever grow to, so that
//! its base never moves.

// An import loop by design: this file adds `Config::with_host_memory` to the
// `Config` that holds what it configures.
use super::Config;
// An import loop by design: a memory creator is shown the memory's
// `MemoryType`, whose file reaches the engine and its `Config`.
use crate::types::{MemoryType, MemoryTypeBuilder};
use std::sync::Arc;
pub use weft_runtime::HostLinearMemory as LinearMemory;
use weft_runtime::{HostMemoryCreator, HostMemorySpec};

/// Makes the memory of linear memories (Wasmtime's `MemoryCreator`), set
/// with [`Config::with_host_memory`].
///
/// # Safety
///
/// Each memory returned must satisfy [`LinearMemory`]'s contract for the
/// reservation asked: `as_ptr()` never changes while the memory grows up to
/// `reserved_size_in_bytes` (when given), and `guard_size_in_bytes` bytes
/// after the reservation are left inaccessible.
#[allow(
    unsafe_code,
    reason = "MemoryCreator is an unsafe trait, as in Wasmtime: its memories are trusted by compiled code; only its declaration is here"
)]
pub unsafe trait MemoryCreator: Send + Sync {
    /// A memory of type `ty`, `minimum` bytes long, that may grow to
    /// `maximum` bytes (`None`: no maximum but Weft's 4 GiB), reserving
    /// `reserved_size_in_bytes` bytes it never moves within, followed by
    /// `guard_size_in_bytes` inaccessible bytes.
    fn new_memory(
        &self,
        ty: MemoryType,
        minimum: usize,
        maximum: Option<usize>,
        reserved_size_in_bytes: Option<usize>,
        guard_size_in_bytes: usize,
    ) -> Result<Box<dyn LinearMemory>, String>;
}

/// The configured creator, as the runtime asks for memories.
#[derive(Clone)]
pub(crate) struct HostMemory(pub(crate) Arc<dyn MemoryCreator>);

impl std::fmt::Debug for HostMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HostMemory(..)")
    }
}

impl HostMemoryCreator for HostMemory {
    fn new_memory(&self, spec: &HostMemorySpec) -> anyhow::Result<Box<dyn LinearMemory>> {
        let ty = MemoryTypeBuilder::new()
            .min(spec.minimum_pages)
            .max(spec.maximum_pages)
            .memory64(spec.memory64)
            .page_size_log2(spec.page_size_log2)
            .build()?;
        self.0
            .new_memory(
                ty,
                spec.minimum_bytes,
                spec.maximum_bytes,
                spec.reserved_size_in_bytes,
                spec.guard_size_in_bytes,
            )
            .map_err(|e| anyhow::anyhow!("{e}"))
    }
}

impl Config {
    /// Makes every (non-shared) linear memory of the engine's stores in
    /// memory `mem_creator` provides, as Wasmtime's
    /// `Config::with_host_memory`. The engine then compiles code that checks
    /// the bounds of every memory access, since the creator is asked for no
    /// guard region; each memory is asked to reserve the most it may grow
    /// to, and must never move within that reservation.
    pub fn with_host_memory(&mut self, mem_creator: Arc<dyn MemoryCreator>) -> &mut Self {
        self.host_memory = Some(HostMemory(mem_creator));
        self
    }
}

//! Memories shared between threads and stores (the threads proposal).

use crate::types::MemoryType;
use crate::{Engine, Trap};
use std::cell::UnsafeCell;
use std::time::Duration;
use weft_runtime::{SharedAccessError, SharedLinearMemory};

/// A linear memory shared between threads: of an engine rather than of a
/// store, it may be imported by instances of any store of its engine, on
/// any thread, at the same time. Cloning it makes another handle of the
/// same memory.
///
/// Its whole maximum size is reserved when it is made, so it never moves
/// when it grows, and it never shrinks. Wasm and the host may read and
/// write it from several threads at once; [`SharedMemory::data`] hands out
/// its bytes as [`UnsafeCell`]s for that reason.
///
/// ```
/// use weft::*;
/// let mut config = Config::new();
/// config.shared_memory(true);
/// let engine = Engine::new(&config)?;
/// let memory = SharedMemory::new(&engine, MemoryType::shared(1, 2))?;
/// assert_eq!(memory.grow(1)?, 1);
/// assert_eq!(memory.data_size(), 2 * 65536);
/// # Ok::<(), weft::Error>(())
/// ```
#[derive(Clone)]
pub struct SharedMemory {
    memory: SharedLinearMemory,
    ty: MemoryType,
    engine: Engine,
}

/// How [`SharedMemory::atomic_wait32`] or
/// [`SharedMemory::atomic_wait64`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitResult {
    /// A notify woke the waiter.
    Ok,
    /// The memory did not hold the expected value: no wait happened.
    Mismatch,
    /// The timeout passed before any notify.
    TimedOut,
}

impl std::fmt::Debug for SharedMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedMemory")
            .field("ty", &self.ty)
            .field("data_size", &self.data_size())
            .finish()
    }
}

impl SharedMemory {
    /// A new shared memory of type `ty` for the stores of `engine`. Fails
    /// when `ty` is not shared, when the engine lacks the threads proposal
    /// (`Config::wasm_threads`) or another proposal the type needs, or when
    /// the address space cannot be reserved.
    pub fn new(engine: &Engine, ty: MemoryType) -> crate::Result<SharedMemory> {
        if !ty.is_shared() {
            crate::bail!("shared memory must have a `shared` memory type");
        }
        check_memory_type(engine, &ty)?;
        let memory = SharedLinearMemory::new(ty.minimum(), ty.maximum(), ty.is_64(), ty.page_size_log2())?;
        Ok(SharedMemory {
            memory,
            ty,
            engine: engine.clone(),
        })
    }

    /// A handle of the shared memory `memory` of an instance, of declared
    /// type `ty`.
    pub(crate) fn from_runtime(engine: &Engine, memory: SharedLinearMemory, ty: MemoryType) -> SharedMemory {
        SharedMemory {
            memory,
            ty,
            engine: engine.clone(),
        }
    }

    pub(crate) fn runtime(&self) -> &SharedLinearMemory {
        &self.memory
    }

    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The type the memory was made with (as in Wasmtime, its minimum is
    /// the initial size, not the current one: see [`SharedMemory::size`]).
    pub fn ty(&self) -> MemoryType {
        self.ty.clone()
    }

    /// The type with the current size as minimum, as imports are matched.
    pub(crate) fn current_ty(&self) -> MemoryType {
        self.ty.with_minimum(self.size())
    }

    /// The size in pages.
    pub fn size(&self) -> u64 {
        self.memory.pages()
    }

    /// The size of this memory's pages in bytes (65536, or 1 with the
    /// custom page sizes proposal).
    pub fn page_size(&self) -> u64 {
        1 << self.memory.page_size_log2()
    }

    /// The size in bytes. Another thread may grow the memory at any time,
    /// so this is a lower bound by the time it returns.
    pub fn data_size(&self) -> usize {
        self.memory.byte_size()
    }

    /// Grows by `delta` pages and returns the old size in pages. Growths
    /// from several threads (the host's or wasm's `memory.grow`) are
    /// serialized. Fails when the memory would exceed its maximum.
    pub fn grow(&self, delta: u64) -> crate::Result<u64> {
        self.memory.grow(delta).ok_or_else(|| {
            crate::format_err!(
                "failed to grow shared memory by `{delta}` pages: the memory has {} pages and may have at most {}",
                self.size(),
                self.memory.maximum_pages()
            )
        })
    }

    /// The accessible bytes. Other threads may read and write them at any
    /// time, so they are cells: access them with atomics or raw pointers,
    /// as the program's own synchronization allows. The slice covers the
    /// size at the time of the call; the memory never shrinks, so it stays
    /// valid.
    pub fn data(&self) -> &[UnsafeCell<u8>] {
        self.memory.data()
    }

    /// Wakes up to `count` threads waiting at `addr` (as
    /// `memory.atomic.notify`), in any store; returns how many woke. Traps
    /// with [`Trap::HeapMisaligned`] when `addr` is not a multiple of 4,
    /// and [`Trap::MemoryOutOfBounds`] when it is past the end.
    pub fn atomic_notify(&self, addr: u64, count: u32) -> Result<u32, Trap> {
        self.memory.atomic_notify(addr, count).map_err(trap)
    }

    /// Blocks the current thread while the 4 bytes at `addr` hold
    /// `expected`, until a notify of `addr` (from wasm or the host, in any
    /// store) or until `timeout` passes (`None`: no timeout), as
    /// `memory.atomic.wait32`. Traps as [`SharedMemory::atomic_notify`].
    pub fn atomic_wait32(&self, addr: u64, expected: u32, timeout: Option<Duration>) -> Result<WaitResult, Trap> {
        self.wait(addr, u64::from(expected), 4, timeout)
    }

    /// [`SharedMemory::atomic_wait32`] for the 8 bytes at `addr` (a multiple
    /// of 8), as `memory.atomic.wait64`.
    pub fn atomic_wait64(&self, addr: u64, expected: u64, timeout: Option<Duration>) -> Result<WaitResult, Trap> {
        self.wait(addr, expected, 8, timeout)
    }

    fn wait(&self, addr: u64, expected: u64, size: usize, timeout: Option<Duration>) -> Result<WaitResult, Trap> {
        let result = self.memory.atomic_wait(addr, expected, size, timeout).map_err(trap)?;
        Ok(match result {
            weft_runtime::WaitResult::Ok => WaitResult::Ok,
            weft_runtime::WaitResult::Mismatch => WaitResult::Mismatch,
            weft_runtime::WaitResult::TimedOut => WaitResult::TimedOut,
        })
    }
}

fn trap(e: SharedAccessError) -> Trap {
    match e {
        SharedAccessError::Misaligned => Trap::HeapMisaligned,
        SharedAccessError::OutOfBounds => Trap::MemoryOutOfBounds,
    }
}

/// The error of making a shared memory on an engine without
/// `Config::shared_memory` (Wasmtime's words).
pub(crate) const SHARED_MEMORY_DISABLED: &str =
    "shared memory support is disabled for this engine -- see `Config::shared_memory`";

/// Checks that `engine` supports memories of type `ty`: the proposals
/// they need, and a maximum for shared ones.
pub(crate) fn check_memory_type(engine: &Engine, ty: &MemoryType) -> crate::Result<()> {
    let features = engine.config().features;
    if ty.is_shared() && !features.contains(wasmparser::WasmFeatures::THREADS) {
        crate::bail!("shared memories need the threads proposal (`Config::wasm_threads`)");
    }
    if ty.is_shared() && !engine.config().shared_memory {
        crate::bail!("{SHARED_MEMORY_DISABLED}");
    }
    if ty.is_shared() && ty.maximum().is_none() {
        crate::bail!("a shared memory must have a maximum size");
    }
    if ty.is_64() && !features.contains(wasmparser::WasmFeatures::MEMORY64) {
        crate::bail!("64-bit memories need the memory64 proposal (`Config::wasm_memory64`)");
    }
    if ty.page_size_log2() != weft_environ::WASM_PAGE_SIZE_LOG2
        && !features.contains(wasmparser::WasmFeatures::CUSTOM_PAGE_SIZES)
    {
        crate::bail!(
            "memories with 1-byte pages need the custom page sizes proposal (`Config::wasm_custom_page_sizes`)"
        );
    }
    Ok(())
}

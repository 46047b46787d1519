//! Executable code: mapped read-write, filled, then made read-execute, and
//! registered so that the trap handler can recognize its program counters.

use crate::mmap::{page_size, round_up, Mmap};
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use weft_environ::Trap;

/// Code and its trap table, kept alive while any handle refers to it.
#[derive(Debug)]
pub struct CodeMemory {
    mmap: Mmap,
    len: usize,
    info: Arc<CodeInfo>,
}

/// What the trap handler knows about a range of code.
#[derive(Debug)]
struct CodeInfo {
    start: usize,
    end: usize,
    /// Sorted by offset.
    traps: Vec<(u32, Trap)>,
}

/// Code ranges by their start address.
static REGISTRY: RwLock<BTreeMap<usize, Arc<CodeInfo>>> = RwLock::new(BTreeMap::new());

impl CodeMemory {
    /// Maps `code` as executable and registers its trap table (sorted by
    /// offset; unsorted input is sorted here).
    pub fn new(code: &[u8], mut traps: Vec<(u32, Trap)>) -> anyhow::Result<CodeMemory> {
        let len = round_up(code.len().max(1), page_size());
        let mut mmap = Mmap::reserve(len).map_err(|e| anyhow::anyhow!("failed to map code memory: {e}"))?;
        mmap.make_accessible(0, len)
            .map_err(|e| anyhow::anyhow!("failed to map code memory: {e}"))?;
        // SAFETY: the mapping is at least `code.len()` bytes, writable, fresh
        // and not aliased.
        unsafe { std::ptr::copy_nonoverlapping(code.as_ptr(), mmap.as_ptr(), code.len()) };
        mmap.make_executable(0, len)
            .map_err(|e| anyhow::anyhow!("failed to make code executable: {e}"))?;
        traps.sort_by_key(|t| t.0);
        let start = mmap.as_ptr() as usize;
        let info = Arc::new(CodeInfo {
            start,
            end: start + code.len(),
            traps,
        });
        REGISTRY
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(start, info.clone());
        Ok(CodeMemory {
            mmap,
            len: code.len(),
            info,
        })
    }

    /// The address of the code at `offset`.
    pub fn ptr_at(&self, offset: u32) -> CodePtr {
        CodePtr(self.mmap.as_ptr() as usize + (offset as usize).min(self.len))
    }

    /// The range `[start, end)` of the code.
    pub fn range(&self) -> (usize, usize) {
        (self.info.start, self.info.end)
    }
}

impl Drop for CodeMemory {
    fn drop(&mut self) {
        REGISTRY
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.info.start);
    }
}

/// The address of compiled code with the wasm calling convention or of a
/// trampoline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodePtr(pub(crate) usize);

impl CodePtr {
    /// The address.
    pub fn addr(self) -> usize {
        self.0
    }
}

/// Whether `pc` is inside registered code; and if so, the trap recorded at
/// exactly `pc`, if any.
///
/// Called from the signal handler: it only takes a read lock and reads. The
/// lock is a blocking one: a thread running wasm never holds the write lock
/// (only module creation and drop take it, briefly), so waiting cannot
/// deadlock, while giving up would turn a trap into a crash whenever another
/// thread happens to be loading code.
pub(crate) fn lookup(pc: usize) -> Option<Option<Trap>> {
    let registry = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
    let (_, info) = registry.range(..=pc).next_back()?;
    if pc >= info.end {
        return None;
    }
    let offset = (pc - info.start) as u32;
    let trap = info
        .traps
        .binary_search_by_key(&offset, |t| t.0)
        .ok()
        .map(|i| info.traps[i].1);
    Some(trap)
}

/// Whether `pc` is inside registered code.
pub fn is_wasm_pc(pc: usize) -> bool {
    lookup(pc).is_some()
}

impl CodePtr {
    /// A code pointer that points nowhere; never called.
    pub fn null() -> CodePtr {
        CodePtr(0)
    }
}

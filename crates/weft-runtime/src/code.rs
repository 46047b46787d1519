//! Executable code: mapped read-write, filled, then made read-execute, and
//! registered so that the trap handler can recognize its program counters.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use weft_environ::Trap;

/// Code and its trap table, kept alive while any handle refers to it.
pub struct CodeMemory {
    /// The memory that holds the code, from `info.start` on.
    _backing: Backing,
    len: usize,
    info: Arc<CodeInfo>,
}

/// What holds a [`CodeMemory`]'s code (kept for its drop, which unmaps it).
#[allow(dead_code, reason = "held only to be dropped with the code")]
enum Backing {
    /// Memory of its own, the code copied in.
    Alloc(region::Allocation),
    /// A precompiled file, the code executed where it lies.
    File(crate::MappedFile),
}

/// What the trap handler knows about a range of code.
#[derive(Debug)]
struct CodeInfo {
    start: usize,
    end: usize,
    /// Sorted by offset.
    traps: Vec<(u32, Trap)>,
    /// The stack maps of the calls that may collect: the offset of each
    /// call's return address, sorted, with the offsets from the stack
    /// pointer at the call of the 8-byte slots holding references.
    stack_maps: Vec<(u32, Box<[u32]>)>,
}

/// Code ranges by their start address.
static REGISTRY: RwLock<BTreeMap<usize, Arc<CodeInfo>>> = RwLock::new(BTreeMap::new());

impl std::fmt::Debug for CodeMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeMemory")
            .field("start", &self.info.start)
            .field("len", &self.len)
            .finish()
    }
}

// SAFETY: the allocation is immutable executable memory after `new`.
unsafe impl Send for CodeMemory {}
// SAFETY: as for `Send`.
unsafe impl Sync for CodeMemory {}

impl CodeMemory {
    #[doc(hidden)]
    /// Maps `code` as executable and registers its trap table (sorted by
    /// offset; unsorted input is sorted here).
    pub fn new(code: &[u8], traps: Vec<(u32, Trap)>) -> anyhow::Result<CodeMemory> {
        Self::new_with_stack_maps(code, traps, Vec::new())
    }

    #[doc(hidden)]
    /// [`CodeMemory::new`] with the stack maps of the code's calls (see
    /// `weft_environ::CompiledModule::stack_maps`; unsorted input is sorted
    /// here).
    pub fn new_with_stack_maps(
        code: &[u8],
        traps: Vec<(u32, Trap)>,
        stack_maps: Vec<(u32, Box<[u32]>)>,
    ) -> anyhow::Result<CodeMemory> {
        let mut alloc = region::alloc(code.len().max(1), region::Protection::READ_WRITE)
            .map_err(|e| anyhow::anyhow!("failed to map code memory: {e}"))?;
        let base = alloc.as_mut_ptr::<u8>();
        populate(base, alloc.len());
        // SAFETY: the allocation is at least `code.len()` bytes, writable,
        // fresh and not aliased.
        unsafe { std::ptr::copy_nonoverlapping(code.as_ptr(), base, code.len()) };
        // SAFETY: the range is exactly our own allocation; nothing refers to
        // its contents as data any more.
        unsafe { region::protect(base, alloc.len(), region::Protection::READ_EXECUTE) }
            .map_err(|e| anyhow::anyhow!("failed to make code executable: {e}"))?;
        Ok(Self::register(
            Backing::Alloc(alloc),
            base as usize,
            code.len(),
            traps,
            stack_maps,
        ))
    }

    #[doc(hidden)]
    /// [`CodeMemory::new_with_stack_maps`] for code that lies in `file` at
    /// `[start, start + len)`: with `start` a multiple of the page size,
    /// that range is made executable where it lies, without a copy. Where
    /// that cannot be done (the file's mount forbids executing it, say),
    /// the code is copied as `new_with_stack_maps` copies it. Fails when
    /// the range is not inside the file.
    pub fn from_mapped_file(
        mut file: crate::MappedFile,
        start: usize,
        len: usize,
        traps: Vec<(u32, Trap)>,
        stack_maps: Vec<(u32, Box<[u32]>)>,
    ) -> anyhow::Result<CodeMemory> {
        let Some(end) = start.checked_add(len).filter(|end| *end <= file.bytes().len()) else {
            anyhow::bail!("the code lies outside the mapped file");
        };
        if len == 0 || !start.is_multiple_of(crate::page_size()) || file.make_executable(start, len).is_err() {
            return Self::new_with_stack_maps(&file.bytes()[start..end], traps, stack_maps);
        }
        let base = file.bytes().as_ptr() as usize + start;
        Ok(Self::register(Backing::File(file), base, len, traps, stack_maps))
    }

    /// Sorts the tables and registers the code at `[start, start + len)`,
    /// executable now and held by `backing`, for the trap handler.
    fn register(
        backing: Backing,
        start: usize,
        len: usize,
        mut traps: Vec<(u32, Trap)>,
        mut stack_maps: Vec<(u32, Box<[u32]>)>,
    ) -> CodeMemory {
        traps.sort_by_key(|t| t.0);
        stack_maps.sort_by_key(|t| t.0);
        let info = Arc::new(CodeInfo {
            start,
            end: start + len,
            traps,
            stack_maps,
        });
        REGISTRY
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(start, info.clone());
        CodeMemory {
            _backing: backing,
            len,
            info,
        }
    }

    #[doc(hidden)]
    /// The address of the code at `offset`.
    pub fn ptr_at(&self, offset: u32) -> CodePtr {
        CodePtr(self.info.start + (offset as usize).min(self.len))
    }

    /// The range `[start, end)` of the code.
    pub fn range(&self) -> (usize, usize) {
        (self.info.start, self.info.end)
    }

    /// The machine code, as mapped (for serializing a module).
    pub fn code(&self) -> &[u8] {
        // SAFETY: `[start, start + len)` lies in our own allocation or
        // mapped file, readable (and executable) until `self` is dropped,
        // and never written after it was made read-execute.
        unsafe { std::slice::from_raw_parts(self.info.start as *const u8, self.len) }
    }

    /// The trap table, sorted by code offset.
    pub fn traps(&self) -> &[(u32, Trap)] {
        &self.info.traps
    }

    /// The stack maps, sorted by code offset.
    pub fn stack_maps(&self) -> &[(u32, Box<[u32]>)] {
        &self.info.stack_maps
    }
}

/// Calls `f` with each stack-pointer offset of the stack map of the call
/// returning to `pc`, if `pc` is in registered code and has one.
pub(crate) fn for_each_stack_slot(pc: usize, mut f: impl FnMut(u32)) {
    let registry = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
    let Some((_, info)) = registry.range(..=pc).next_back() else {
        return;
    };
    if pc >= info.end {
        return;
    }
    let offset = (pc - info.start) as u32;
    if let Ok(i) = info.stack_maps.binary_search_by_key(&offset, |t| t.0) {
        for slot in info.stack_maps[i].1.iter() {
            f(*slot);
        }
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

/// Asks the kernel to back the fresh writable mapping `[base, base + len)`
/// with pages now, in one call, rather than at one page fault per page as
/// the code is copied in: for a large module, those faults cost more than
/// the copy itself. Only a hint: on kernels without
/// `MADV_POPULATE_WRITE` (before Linux 5.14) or other systems, nothing
/// happens and the copy faults the pages in as before.
fn populate(base: *mut u8, len: usize) {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        // SAFETY: `[base, base + len)` is a whole private anonymous mapping
        // of ours, readable and writable; populating it only allocates the
        // zero pages it would read as anyway, and changes no contents.
        let _ = unsafe { libc::madvise(base.cast(), len, libc::MADV_POPULATE_WRITE) };
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let _ = (base, len);
}

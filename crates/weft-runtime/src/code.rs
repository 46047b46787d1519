//! Executable code: mapped read-write, filled, then made read-execute, and
//! registered so that the trap handler can recognize its program counters.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use weft_environ::{ExceptionHandler, Trap};

/// Code and its trap table, kept alive while any handle refers to it.
pub struct CodeMemory {
    /// The memory the code was copied into, unless it runs where it lies
    /// in a mapped file (`info.file`); kept for its drop, which unmaps it.
    _alloc: Option<region::Allocation>,
    len: usize,
    info: Arc<CodeInfo>,
}

/// What the trap handler knows about a range of code.
#[derive(Debug)]
struct CodeInfo {
    start: usize,
    end: usize,
    traps: TrapTable,
    /// The stack maps of the calls that may collect: the offset of each
    /// call's return address, sorted, with the offsets from the stack
    /// pointer at the call of the 8-byte slots holding references.
    stack_maps: Vec<(u32, Box<[u32]>)>,
    /// The calls in the scope of an exception handler, sorted by the
    /// offset of their return address (see `unwind.rs`).
    exception_handlers: Vec<ExceptionHandler>,
    /// The precompiled file the code was loaded from, if it was: the code
    /// may run where it lies in it, and tables be read where they lie.
    file: Option<crate::MappedFile>,
}

/// A trap table: the code offsets at which a trap may happen, sorted, each
/// with its trap.
#[derive(Debug)]
pub enum TrapTable {
    /// Decoded pairs (unsorted input is sorted when the code is made).
    Decoded(Vec<(u32, Trap)>),
    /// The table as precompiled bytes carry it, at this range of the mapped
    /// file the code comes from ([`CodeMemory::from_mapped_file`]): 5-byte
    /// records (a little-endian `u32` offset, then the trap as a byte),
    /// sorted by offset. Read where it lies, never decoded as a whole; a
    /// corrupt table only makes a trap be reported as another, or a fault
    /// as no trap.
    InFile(std::ops::Range<usize>),
}

/// The width of a record of [`TrapTable::InFile`].
pub const TRAP_RECORD: usize = 5;

impl TrapTable {
    /// The empty table.
    pub fn empty() -> TrapTable {
        TrapTable::Decoded(Vec::new())
    }

    fn sorted(self) -> TrapTable {
        match self {
            TrapTable::Decoded(mut traps) => {
                traps.sort_by_key(|t| t.0);
                TrapTable::Decoded(traps)
            }
            in_file => in_file,
        }
    }
}

impl CodeInfo {
    /// The records of an [`TrapTable::InFile`] table (none when the range
    /// is not in the file; a trailing partial record is never read).
    fn trap_records(&self, range: &std::ops::Range<usize>) -> &[[u8; TRAP_RECORD]] {
        let bytes: &[u8] = self
            .file
            .as_ref()
            .and_then(|f| f.bytes().get(range.clone()))
            .unwrap_or_default();
        bytes.as_chunks().0
    }

    /// The trap recorded at exactly code offset `offset`, if any.
    fn trap_at(&self, offset: u32) -> Option<Trap> {
        match &self.traps {
            TrapTable::Decoded(traps) => traps.binary_search_by_key(&offset, |t| t.0).ok().map(|i| traps[i].1),
            TrapTable::InFile(range) => {
                let records = self.trap_records(range);
                let i = records.binary_search_by_key(&offset, |r| trap_record(r).0).ok()?;
                trap_record(&records[i]).1
            }
        }
    }

    /// Every entry of the trap table, in order.
    fn traps(&self) -> Vec<(u32, Trap)> {
        match &self.traps {
            TrapTable::Decoded(traps) => traps.clone(),
            TrapTable::InFile(range) => self
                .trap_records(range)
                .iter()
                .filter_map(|r| match trap_record(r) {
                    (offset, Some(trap)) => Some((offset, trap)),
                    (_, None) => None,
                })
                .collect(),
        }
    }
}

/// A record of a [`TrapTable::InFile`] table: its code offset, and its trap
/// (`None` for a byte that names no trap).
pub fn trap_record(record: &[u8; TRAP_RECORD]) -> (u32, Option<Trap>) {
    let [a, b, c, d, trap] = *record;
    (u32::from_le_bytes([a, b, c, d]), trap_of_byte(trap))
}

/// The trap whose code (`trap as u8`) is `byte`, if any.
fn trap_of_byte(byte: u8) -> Option<Trap> {
    match Trap::ALL.get(byte as usize) {
        // `ALL` lists the traps in the order of their codes.
        Some(trap) if *trap as u8 == byte => Some(*trap),
        _ => Trap::ALL.iter().copied().find(|t| *t as u8 == byte),
    }
}

/// Copies `code` into fresh memory and makes it executable; returns the
/// memory (unmapped on drop) and the address the code starts at.
fn copy_executable(code: &[u8]) -> anyhow::Result<(region::Allocation, usize)> {
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
    Ok((alloc, base as usize))
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
        Self::new_with_stack_maps(code, traps, Vec::new(), Vec::new())
    }

    #[doc(hidden)]
    /// [`CodeMemory::new`] with the stack maps and the exception handlers
    /// of the code's calls (see `weft_environ::CompiledModule::stack_maps`
    /// and `exception_handlers`; unsorted input is sorted here).
    pub fn new_with_stack_maps(
        code: &[u8],
        traps: Vec<(u32, Trap)>,
        stack_maps: Vec<(u32, Box<[u32]>)>,
        exception_handlers: Vec<ExceptionHandler>,
    ) -> anyhow::Result<CodeMemory> {
        let (alloc, base) = copy_executable(code)?;
        Ok(Self::register(
            Some(alloc),
            CodeInfo {
                start: base,
                end: base + code.len(),
                traps: TrapTable::Decoded(traps),
                stack_maps,
                exception_handlers,
                file: None,
            },
        ))
    }

    #[doc(hidden)]
    /// [`CodeMemory::new_with_stack_maps`] for code that lies in `file` at
    /// `[start, start + len)`: with `start` a multiple of the page size,
    /// that range is made executable where it lies, without a copy. Where
    /// that cannot be done (the file's mount forbids executing it, say),
    /// the code is copied as `new_with_stack_maps` copies it. The file is
    /// kept either way, so that `traps` may lie in it too. Fails when the
    /// range is not inside the file.
    pub fn from_mapped_file(
        mut file: crate::MappedFile,
        start: usize,
        len: usize,
        traps: TrapTable,
        stack_maps: Vec<(u32, Box<[u32]>)>,
        exception_handlers: Vec<ExceptionHandler>,
    ) -> anyhow::Result<CodeMemory> {
        let Some(end) = start.checked_add(len).filter(|end| *end <= file.bytes().len()) else {
            anyhow::bail!("the code lies outside the mapped file");
        };
        let in_place = len != 0 && start.is_multiple_of(crate::page_size()) && file.make_executable(start, len).is_ok();
        let (alloc, base) = if in_place {
            (None, file.bytes().as_ptr() as usize + start)
        } else {
            let (alloc, base) = copy_executable(&file.bytes()[start..end])?;
            (Some(alloc), base)
        };
        Ok(Self::register(
            alloc,
            CodeInfo {
                start: base,
                end: base + len,
                traps,
                stack_maps,
                exception_handlers,
                file: Some(file),
            },
        ))
    }

    /// Sorts the tables of `info` and registers its code, executable now
    /// and held by `alloc` or `info.file`, for the trap handler.
    fn register(alloc: Option<region::Allocation>, mut info: CodeInfo) -> CodeMemory {
        info.traps = std::mem::replace(&mut info.traps, TrapTable::empty()).sorted();
        info.stack_maps.sort_by_key(|t| t.0);
        info.exception_handlers.sort_by_key(|h| h.ret);
        let len = info.end - info.start;
        let info = Arc::new(info);
        REGISTRY
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(info.start, info.clone());
        CodeMemory {
            _alloc: alloc,
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

    /// The bytes of the precompiled file the code was loaded from, if it
    /// was loaded from one (tables of the module may lie in them).
    pub fn file_bytes(&self) -> Option<&[u8]> {
        self.info.file.as_ref().map(crate::MappedFile::bytes)
    }

    /// The trap table, sorted by code offset.
    pub fn traps(&self) -> Vec<(u32, Trap)> {
        self.info.traps()
    }

    /// The stack maps, sorted by code offset.
    pub fn stack_maps(&self) -> &[(u32, Box<[u32]>)] {
        &self.info.stack_maps
    }

    /// The exception handlers, sorted by the offset of the return address.
    pub fn exception_handlers(&self) -> &[ExceptionHandler] {
        &self.info.exception_handlers
    }
}

/// `None` when `pc` is not in registered code; else the landing pad of the
/// call returning to `pc` and the offset of its frame's stack pointer
/// below its frame pointer, if the call is in the scope of an exception
/// handler. (A landing pad outside the code, from a corrupt table, counts
/// as none.)
pub(crate) fn exception_handler_at(pc: usize) -> Option<Option<(usize, u32)>> {
    let registry = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
    let (_, info) = registry.range(..=pc).next_back()?;
    if pc >= info.end {
        return None;
    }
    let offset = (pc - info.start) as u32;
    let handlers = &info.exception_handlers;
    Some(
        handlers
            .binary_search_by_key(&offset, |h| h.ret)
            .ok()
            .map(|i| handlers[i])
            .filter(|h| (h.handler as usize) < info.end - info.start)
            .map(|h| (info.start + h.handler as usize, h.frame_offset)),
    )
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
    Some(info.trap_at((pc - info.start) as u32))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trap_tables_in_a_file_are_searched_where_they_lie() {
        // A byte, 16 bytes of "code" (`ret`s, never run), then the trap
        // table's records: the code is not page-aligned in the file, so it
        // is copied, and the table is still read from the file.
        let mut bytes = vec![0u8];
        bytes.extend([0xc3; 16]);
        let table_start = bytes.len();
        for (offset, trap) in [(2u32, Trap::IntegerDivisionByZero), (9, Trap::MemoryOutOfBounds)] {
            bytes.extend(offset.to_le_bytes());
            bytes.push(trap as u8);
        }
        let path = std::env::temp_dir().join(format!("weft-trap-table-{}", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let file = crate::MappedFile::map(std::fs::File::open(&path).unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        let code = CodeMemory::from_mapped_file(
            file,
            1,
            16,
            TrapTable::InFile(table_start..bytes.len()),
            Vec::new(),
            Vec::new(),
        )
        .unwrap();
        assert_eq!(code.code(), &[0xc3; 16]);
        assert_eq!(code.file_bytes(), Some(&bytes[..]));
        let (start, end) = code.range();
        assert_eq!(lookup(start + 2), Some(Some(Trap::IntegerDivisionByZero)));
        assert_eq!(lookup(start + 9), Some(Some(Trap::MemoryOutOfBounds)));
        assert_eq!(lookup(start + 3), Some(None));
        assert_eq!(lookup(end), None);
        assert_eq!(
            code.traps(),
            vec![(2, Trap::IntegerDivisionByZero), (9, Trap::MemoryOutOfBounds)]
        );
        // Every trap's byte names it back.
        for trap in Trap::ALL {
            assert_eq!(trap_of_byte(*trap as u8), Some(*trap));
        }
    }
}

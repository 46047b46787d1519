//! The layout of runtime structures that compiled code reads and writes.
//!
//! All offsets are in bytes, for 64-bit targets (pointers are 8 bytes).
//!
//! A `VMContext` (one per instance) is laid out as:
//!
//! | offset | field |
//! |---|---|
//! | 0 | magic (`u32`, [`VMCONTEXT_MAGIC`]) |
//! | 8 | `*mut VMStoreContext` |
//! | 16 | `*const [builtin fn; N]` |
//! | 24 | `*mut` runtime instance (opaque to compiled code) |
//! | 32.. | `defined_globals: [VMGlobalDefinition; num_defined_globals]` |
//! | ... | `memory_bases: [*mut u8; num_memories]` |
//! | ... | `type_ids: [u32; num_types]` engine-wide canonical type ids |
//! | ... | `func_refs: [*const VMFuncRef; num_funcs]` |
//! | ... | `memories: [*mut VMMemoryDefinition; num_memories]` |
//! | ... | `tables: [*mut VMTableDefinition; num_tables]` |
//! | ... | `imported_globals: [*mut VMGlobalDefinition; num_imported_globals]` |
//! | ... | `defined_func_refs: [VMFuncRef; num_defined_funcs]` |
//! | ... | `tags: [*const VMTagDefinition; num_tags]` |
//!
//! Every function, memory and table, imported or defined, is reached
//! through a pointer, so imports and definitions look the same to code.
//! Globals are the exception: a defined global's value lies in the vmctx,
//! next to the header that every function's stack check reads, so that an
//! access (a C program's stack pointer is one, in most functions) is one
//! load, not two; an imported global is reached through its pointer.
//! And the base of every memory, which never moves (a memory is a fixed
//! reservation whose accessible part grows), is copied into the vmctx
//! beside them, so that code finds it with one load; its length is read
//! through the memory's pointer.

use crate::Module;

/// The value of the first word of every `VMContext`.
pub const VMCONTEXT_MAGIC: u32 = u32::from_le_bytes(*b"weft");

/// Offsets of a `VMFuncRef`: `{ code, vmctx, type_id: u32, store_index: u32 }`.
///
/// `code` is the function's entry with the wasm calling convention,
/// `vmctx` the context to pass as its callee vmctx, `type_id` its canonical
/// type id and `store_index` the runtime's own handle for the function.
pub mod vmfuncref {
    /// Offset of the code pointer.
    pub const CODE: u32 = 0;
    /// Offset of the callee vmctx.
    pub const VMCTX: u32 = 8;
    /// Offset of the canonical type id (`u32`).
    pub const TYPE_ID: u32 = 16;
    /// Offset of the store's handle (`u32`).
    pub const STORE_INDEX: u32 = 20;
    /// Size of a `VMFuncRef`.
    pub const SIZE: u32 = 24;
}

/// Offsets of a `VMMemoryDefinition`: `{ base: *mut u8, current_length: usize }`.
pub mod vmmemory {
    /// Offset of the base pointer.
    pub const BASE: u32 = 0;
    /// Offset of the current length in bytes.
    pub const CURRENT_LENGTH: u32 = 8;
    /// Size of the definition.
    pub const SIZE: u32 = 16;
}

/// Offsets of a `VMTableDefinition`: `{ base: *mut usize, current_elements: usize }`.
///
/// Elements are pointer-sized: a `*const VMFuncRef` for function references
/// and an opaque non-zero word for extern references; 0 is null.
pub mod vmtable {
    /// Offset of the base pointer.
    pub const BASE: u32 = 0;
    /// Offset of the current number of elements.
    pub const CURRENT_ELEMENTS: u32 = 8;
    /// Size of the definition.
    pub const SIZE: u32 = 16;
    /// Size of one element.
    pub const ELEMENT_SIZE: u32 = 8;
}

/// A `VMGlobalDefinition` is 16 bytes; the value is stored little-endian at
/// offset 0 (`i32`, `i64`, `f32` and `f64` bits, references as a pointer).
pub mod vmglobal {
    /// Size of a global's storage.
    pub const SIZE: u32 = 16;
}

/// Offsets of the `VMStoreContext`, one per store, shared by its instances.
pub mod vmstore {
    /// The lowest stack pointer that wasm may use (`usize`).
    pub const STACK_LIMIT: u32 = 0;
    /// Fuel left, as a negative count of units still available (`i64`).
    pub const FUEL_CONSUMED: u32 = 8;
    /// The epoch at which execution is interrupted (`u64`).
    pub const EPOCH_DEADLINE: u32 = 16;
    /// Frame pointer of the last wasm-to-host trampoline (`usize`).
    pub const LAST_WASM_EXIT_FP: u32 = 24;
    /// Return address into wasm of the last wasm-to-host call (`usize`).
    pub const LAST_WASM_EXIT_PC: u32 = 32;
    /// Frame pointer of the host-to-wasm trampoline of the current call.
    pub const LAST_WASM_ENTRY_FP: u32 = 40;
    /// Address of the engine's epoch counter (`*const u64`).
    pub const EPOCH_PTR: u32 = 56;
    /// The exception being thrown (an exnref word, 0 when none): set by the
    /// `Throw` and `ThrowRef` builtins and by host functions that throw,
    /// cleared when a handler catches it.
    pub const PENDING_EXN: u32 = 64;
    /// The tag identity (`*const VMTagDefinition`) of the pending exception.
    pub const PENDING_EXN_TAG: u32 = 72;
    /// The base address of the store's GC heap (heap words are offsets
    /// from it); null until the store's first GC allocation.
    pub const GC_HEAP_BASE: u32 = 80;
    /// Size of the part of the store context compiled code reads.
    pub const SIZE: u32 = 88;
}

/// Offsets in a host function context, the `vmctx` of a host function's
/// `VMFuncRef`: word 0 is the host shim
/// `extern "C" fn(host_vmctx, caller_vmctx, values: *mut ValRaw, len: usize) -> u8`,
/// which returns 0 when the call must trap with [`crate::Trap::HostError`].
pub mod vmhostctx {
    /// Offset of the shim's address.
    pub const SHIM: u32 = 0;
}

/// Size of one slot of the values array of trampolines (`ValRaw`).
pub const VALRAW_SIZE: u32 = 16;

/// The layout of the `VMContext` of instances of one module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VMOffsets {
    /// Number of module types.
    pub num_types: u32,
    /// Number of functions, imported and defined.
    pub num_funcs: u32,
    /// Number of defined functions.
    pub num_defined_funcs: u32,
    /// Number of memories.
    pub num_memories: u32,
    /// Number of tables.
    pub num_tables: u32,
    /// Number of globals, imported and defined.
    pub num_globals: u32,
    /// Number of imported globals (the first globals).
    pub num_imported_globals: u32,
    /// Number of tags.
    pub num_tags: u32,
}

impl VMOffsets {
    /// The layout for instances of `module`.
    pub fn new(module: &Module) -> Self {
        VMOffsets {
            num_types: module.types.len() as u32,
            num_funcs: module.functions.len() as u32,
            num_defined_funcs: module.num_defined_funcs(),
            num_memories: module.memories.len() as u32,
            num_tables: module.tables.len() as u32,
            num_globals: module.globals.len() as u32,
            num_imported_globals: module.num_imported_globals,
            num_tags: module.tags.len() as u32,
        }
    }

    /// Offset of the magic word.
    pub const fn vmctx_magic(&self) -> u32 {
        0
    }
    /// Offset of the `*mut VMStoreContext`.
    pub const fn vmctx_store_context(&self) -> u32 {
        8
    }
    /// Offset of the pointer to the builtins array.
    pub const fn vmctx_builtins(&self) -> u32 {
        16
    }
    /// Offset of the runtime's instance pointer.
    pub const fn vmctx_instance(&self) -> u32 {
        24
    }
    /// Number of defined globals.
    pub fn num_defined_globals(&self) -> u32 {
        self.num_globals.saturating_sub(self.num_imported_globals)
    }
    /// Offset of `defined_globals[0]` (16-aligned, as the vmctx is).
    pub const fn vmctx_defined_globals_begin(&self) -> u32 {
        32
    }
    /// Offset of `defined_globals[defined_index]`, the value of global
    /// `num_imported_globals + defined_index` (a `VMGlobalDefinition`).
    pub fn vmctx_defined_global(&self, defined_index: u32) -> u32 {
        self.vmctx_defined_globals_begin() + vmglobal::SIZE * defined_index
    }
    /// Offset of `memory_bases[0]`.
    pub fn vmctx_memory_bases_begin(&self) -> u32 {
        self.vmctx_defined_global(self.num_defined_globals())
    }
    /// Offset of `memory_bases[index]` (`*mut u8`: the first byte of memory
    /// `index`, imported or defined).
    pub fn vmctx_memory_base(&self, index: u32) -> u32 {
        self.vmctx_memory_bases_begin() + 8 * index
    }
    /// Offset of `type_ids[0]`.
    pub fn vmctx_type_ids_begin(&self) -> u32 {
        self.vmctx_memory_base(self.num_memories)
    }
    /// Offset of `type_ids[index]` (`u32`).
    pub fn vmctx_type_id(&self, index: u32) -> u32 {
        self.vmctx_type_ids_begin() + 4 * index
    }
    /// Offset of `func_refs[0]`.
    pub fn vmctx_func_refs_begin(&self) -> u32 {
        align8(self.vmctx_type_ids_begin() + 4 * self.num_types)
    }
    /// Offset of `func_refs[index]` (`*const VMFuncRef`).
    pub fn vmctx_func_ref(&self, index: u32) -> u32 {
        self.vmctx_func_refs_begin() + 8 * index
    }
    /// Offset of `memories[0]`.
    pub fn vmctx_memories_begin(&self) -> u32 {
        self.vmctx_func_refs_begin() + 8 * self.num_funcs
    }
    /// Offset of `memories[index]` (`*mut VMMemoryDefinition`).
    pub fn vmctx_memory(&self, index: u32) -> u32 {
        self.vmctx_memories_begin() + 8 * index
    }
    /// Offset of `tables[0]`.
    pub fn vmctx_tables_begin(&self) -> u32 {
        self.vmctx_memories_begin() + 8 * self.num_memories
    }
    /// Offset of `tables[index]` (`*mut VMTableDefinition`).
    pub fn vmctx_table(&self, index: u32) -> u32 {
        self.vmctx_tables_begin() + 8 * index
    }
    /// Offset of `imported_globals[0]`.
    pub fn vmctx_imported_globals_begin(&self) -> u32 {
        self.vmctx_tables_begin() + 8 * self.num_tables
    }
    /// Offset of `imported_globals[index]` (`*mut VMGlobalDefinition`),
    /// for a global `index` below `num_imported_globals`.
    pub fn vmctx_imported_global(&self, index: u32) -> u32 {
        self.vmctx_imported_globals_begin() + 8 * index
    }
    /// Offset of `defined_func_refs[0]`.
    pub fn vmctx_defined_func_refs_begin(&self) -> u32 {
        self.vmctx_imported_globals_begin() + 8 * self.num_imported_globals
    }
    /// Offset of `defined_func_refs[index]` (a `VMFuncRef`).
    pub fn vmctx_defined_func_ref(&self, defined_index: u32) -> u32 {
        self.vmctx_defined_func_refs_begin() + vmfuncref::SIZE * defined_index
    }
    /// Offset of `tags[0]`.
    pub fn vmctx_tags_begin(&self) -> u32 {
        self.vmctx_defined_func_refs_begin() + vmfuncref::SIZE * self.num_defined_funcs
    }
    /// Offset of `tags[index]` (`*const VMTagDefinition`, the tag's
    /// identity: two tags are the same tag when these pointers are equal).
    pub fn vmctx_tag(&self, index: u32) -> u32 {
        self.vmctx_tags_begin() + 8 * index
    }
    /// Total size of the `VMContext`.
    pub fn size(&self) -> u32 {
        self.vmctx_tags_begin() + 8 * self.num_tags
    }
}

fn align8(n: u32) -> u32 {
    (n + 7) & !7
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defined_globals_and_memory_bases_follow_the_header_and_the_regions_do_not_overlap() {
        let o = VMOffsets {
            num_types: 3,
            num_funcs: 5,
            num_defined_funcs: 2,
            num_memories: 1,
            num_tables: 2,
            num_globals: 4,
            num_imported_globals: 1,
            num_tags: 1,
        };
        assert_eq!(o.num_defined_globals(), 3);
        assert_eq!(o.vmctx_defined_global(0), o.vmctx_instance() + 8);
        for i in 0..3 {
            assert_eq!(o.vmctx_defined_global(i) % 16, 0, "a global's value is 16-aligned");
        }
        // Each region begins where the one before it ends.
        assert_eq!(o.vmctx_memory_bases_begin(), o.vmctx_defined_global(3));
        assert_eq!(o.vmctx_type_ids_begin(), o.vmctx_memory_base(1));
        assert!(o.vmctx_func_refs_begin() >= o.vmctx_type_id(3));
        assert_eq!(o.vmctx_memories_begin(), o.vmctx_func_ref(5));
        assert_eq!(o.vmctx_tables_begin(), o.vmctx_memory(1));
        assert_eq!(o.vmctx_imported_globals_begin(), o.vmctx_table(2));
        assert_eq!(o.vmctx_defined_func_refs_begin(), o.vmctx_imported_global(1));
        assert_eq!(o.vmctx_tags_begin(), o.vmctx_defined_func_ref(2));
        assert_eq!(o.size(), o.vmctx_tag(1));
        // A module importing more globals than it has (a corrupt count)
        // defines none, rather than wrapping.
        let odd = VMOffsets {
            num_imported_globals: 9,
            ..o
        };
        assert_eq!(odd.num_defined_globals(), 0);
    }
}

//! Instances: a `VMContext` and the runtime state behind it.

use crate::memory::LinearMemory;
use crate::table::Table;
use crate::vm::{FuncRefPtr, VMFuncRef, VMStoreContext, ValRaw};
use std::alloc::Layout;
use std::cell::UnsafeCell;
use std::ptr::NonNull;
use std::sync::Arc;
use weft_environ::{Module, VMOffsets, VMCONTEXT_MAGIC};

/// The runtime state of one instance. Lives in a `Box` owned by its store,
/// so its address (stored in the vmctx) is stable.
pub struct Instance {
    vmctx: NonNull<u8>,
    layout: Layout,
    pub(crate) offsets: VMOffsets,
    pub(crate) module: Arc<Module>,
    pub(crate) memories: Vec<*mut LinearMemory>,
    pub(crate) tables: Vec<*mut Table>,
    pub(crate) globals: Vec<*mut UnsafeCell<ValRaw>>,
    pub(crate) dropped_data: Vec<bool>,
    /// Per memory: whether its data segments came from a memory image at
    /// allocation, so that `initialize` does not copy them again.
    pub(crate) memory_from_image: Vec<bool>,
    /// Evaluated element segments (empty once dropped).
    pub(crate) elements: Vec<Vec<usize>>,
    /// The store's handle of this instance.
    pub store_index: u32,
}

// SAFETY: all pointers point into allocations owned by the same store, which
// moves between threads as a whole.
unsafe impl Send for Instance {}
// SAFETY: as for `Send`; mutation requires `&mut` access to the store.
unsafe impl Sync for Instance {}

impl Instance {
    pub(crate) fn new(module: Arc<Module>, offsets: VMOffsets, store_index: u32) -> anyhow::Result<Box<Instance>> {
        let size = (offsets.size() as usize).max(8);
        let layout = Layout::from_size_align(size, 16)?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        let vmctx = NonNull::new(ptr).ok_or_else(|| anyhow::anyhow!("out of memory allocating a vmctx"))?;
        Ok(Box::new(Instance {
            vmctx,
            layout,
            offsets,
            dropped_data: vec![false; module.data.len()],
            memory_from_image: Vec::with_capacity(module.memories.len()),
            elements: Vec::new(),
            memories: Vec::with_capacity(module.memories.len()),
            tables: Vec::with_capacity(module.tables.len()),
            globals: Vec::with_capacity(module.globals.len()),
            module,
            store_index,
        }))
    }

    /// The vmctx pointer handed to compiled code.
    pub(crate) fn vmctx_ptr(&self) -> *mut u8 {
        self.vmctx.as_ptr()
    }

    /// The address of the `T` at `offset` in the vmctx, which must lie
    /// within it. `VMOffsets` places every field at its natural alignment
    /// (the vmctx is 16-aligned), so the address is aligned for `T`.
    fn field_ptr<T>(&self, offset: u32) -> NonNull<T> {
        let end = offset as usize + std::mem::size_of::<T>();
        assert!(end <= self.layout.size(), "vmctx field out of bounds");
        // SAFETY: in bounds (checked above) of the vmctx allocation.
        unsafe { self.vmctx.add(offset as usize).cast() }
    }

    /// Writes a word-sized field of the vmctx.
    pub(crate) fn write<T: Copy>(&mut self, offset: u32, value: T) {
        // SAFETY: in bounds and aligned (`field_ptr`).
        unsafe { self.field_ptr::<T>(offset).write(value) }
    }

    /// Reads a field of the vmctx.
    pub(crate) fn read<T: Copy>(&self, offset: u32) -> T {
        // SAFETY: as in `write`.
        unsafe { self.field_ptr::<T>(offset).read() }
    }

    /// Fills in the header of the vmctx.
    pub(crate) fn init_header(&mut self, store: *const VMStoreContext, builtins: *const usize) {
        self.write(self.offsets.vmctx_magic(), VMCONTEXT_MAGIC);
        self.write(self.offsets.vmctx_store_context(), store as usize);
        self.write(self.offsets.vmctx_builtins(), builtins as usize);
        let me = self as *mut Instance as usize;
        self.write(self.offsets.vmctx_instance(), me);
    }

    #[doc(hidden)]
    /// The function reference of function `index`.
    pub fn func_ref(&self, index: u32) -> FuncRefPtr {
        FuncRefPtr(self.read::<usize>(self.offsets.vmctx_func_ref(index)) as *const VMFuncRef)
    }

    /// The address of the defined function reference `defined_index`.
    pub(crate) fn defined_func_ref_ptr(&self, defined_index: u32) -> *mut VMFuncRef {
        // SAFETY: the offset lies within the vmctx allocation.
        unsafe {
            self.vmctx
                .as_ptr()
                .add(self.offsets.vmctx_defined_func_ref(defined_index) as usize)
                .cast()
        }
    }

    /// Where the value of the defined global `defined_index` lies in the
    /// vmctx.
    pub(crate) fn defined_global_ptr(&self, defined_index: u32) -> NonNull<UnsafeCell<ValRaw>> {
        self.field_ptr(self.offsets.vmctx_defined_global(defined_index))
    }

    /// The instance whose vmctx is `vmctx`.
    ///
    /// # Safety
    ///
    /// `vmctx` must be the vmctx of a live instance.
    pub(crate) unsafe fn from_vmctx<'a>(vmctx: *mut u8) -> &'a mut Instance {
        // SAFETY: every vmctx stores its instance's address at this offset.
        unsafe { &mut *(*(vmctx.add(24) as *const usize) as *mut Instance) }
    }

    /// The memory `index` of this instance.
    pub(crate) fn memory(&self, index: u32) -> Option<&LinearMemory> {
        // SAFETY: memory pointers point to boxes owned by the same store.
        self.memories.get(index as usize).map(|m| unsafe { &**m })
    }

    /// The memory `index` of this instance, writable.
    pub(crate) fn memory_mut(&mut self, index: u32) -> Option<&mut LinearMemory> {
        // SAFETY: memory pointers point to boxes owned by the same store;
        // `&mut self` stands for exclusive access to the store's objects.
        self.memories.get(index as usize).map(|m| unsafe { &mut **m })
    }

    /// The table `index` of this instance.
    pub(crate) fn table(&self, index: u32) -> Option<&Table> {
        // SAFETY: table pointers point to boxes owned by the same store.
        self.tables.get(index as usize).map(|t| unsafe { &**t })
    }

    /// The table `index` of this instance, writable.
    pub(crate) fn table_mut(&mut self, index: u32) -> Option<&mut Table> {
        // SAFETY: as in `memory_mut`.
        self.tables.get(index as usize).map(|t| unsafe { &mut **t })
    }

    /// The value of global `index`.
    pub(crate) fn global(&self, index: u32) -> ValRaw {
        // SAFETY: global pointers point to values owned by the same store.
        self.globals
            .get(index as usize)
            .map(|g| unsafe { *(**g).get() })
            .unwrap_or_default()
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.vmctx.as_ptr(), self.layout) }
    }
}

//! The objects of one store: memories, tables, globals, instances and host
//! functions, each in a `Box` so that compiled code may keep their addresses.

use crate::builtins::BUILTINS;
use crate::code::CodePtr;
use crate::host::{HostFunc, HostFuncContextHeader};
use crate::instance::Instance;
use crate::memory::{LinearMemory, SharedLinearMemory};
use crate::memory_image::MemoryImage;
use crate::table::Table;
use crate::vm::{FuncRefPtr, InterruptFn, InterruptHandler, VMFuncRef, VMStoreContext, VMTagDefinition, ValRaw};
use std::cell::UnsafeCell;
use std::ptr::NonNull;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use weft_environ::{ConstExpr, ConstOp, DataKind, ElemItems, ElemKind, Module, Trap, VMOffsets};

/// A memory of a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemoryId(pub usize);
/// A table of a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TableId(pub usize);
/// A global of a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GlobalId(pub usize);
/// A tag of a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TagId(pub usize);
/// An instance of a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InstanceId(pub usize);

/// Everything a store owns on behalf of compiled code.
// The boxes are needed: compiled code keeps the addresses of these objects,
// which must not move when the vectors grow.
#[allow(
    clippy::vec_box,
    reason = "each object is boxed so that compiled code may keep its address"
)]
pub struct StoreObjects {
    ctx: Box<VMStoreContext>,
    memories: Vec<Box<LinearMemory>>,
    tables: Vec<Box<Table>>,
    /// Where each global's value lies: in a box of `host_globals`, or in
    /// the vmctx of the instance that defines it (see `VMOffsets`); both
    /// live as long as the store.
    globals: Vec<NonNull<UnsafeCell<ValRaw>>>,
    /// The values of the globals the host made (`add_global`).
    host_globals: Vec<Box<UnsafeCell<ValRaw>>>,
    tags: Vec<Box<VMTagDefinition>>,
    instances: Vec<Box<Instance>>,
    /// The host functions' contexts, in chunks (each a
    /// `Vec<HostFuncContextHeader<S>>`) that are never pushed beyond the
    /// capacity they were made with, so a context never moves; each chunk
    /// is twice the size of the one before, up to [`HOST_CHUNK_MAX`].
    host_funcs: Vec<Box<dyn std::any::Any>>,
    instance_entities: Vec<InstanceEntities>,
    epoch: Option<Arc<AtomicU64>>,
    /// The maker of the store's (non-shared) memories, if the embedder
    /// provides their memory.
    memory_creator: Option<Arc<dyn crate::HostMemoryCreator>>,
    /// The pooling allocator's pool of the engine, if it has one, and the
    /// instances and tables this store holds of it.
    pool: Option<Arc<crate::InstancePool>>,
    pool_instances: u32,
    pool_tables: u32,
    pool_component_instances: u32,
}

/// The number of host-function contexts in a store's first chunk.
const HOST_CHUNK_MIN: usize = 8;
/// The most host-function contexts in one chunk.
const HOST_CHUNK_MAX: usize = 1024;

/// Where a store keeps a host function's context: see
/// [`StoreObjects::add_host_func`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostFuncSlot {
    chunk: u32,
    index: u32,
}

/// Pushes `context` onto `chunk`, which has room for it (so that no context
/// already there moves), with its function reference's `vmctx` pointing at
/// it; its function reference and index. No reference to the chunk's other
/// contexts is made: compiled code and running host calls may hold them.
fn place_host_func<S: 'static>(
    chunk: &mut Vec<HostFuncContextHeader<S>>,
    mut context: HostFuncContextHeader<S>,
) -> (FuncRefPtr, u32) {
    let index = chunk.len();
    // Within the capacity, the next element's address is this one.
    let at = chunk.as_mut_ptr().wrapping_add(index);
    context.func_ref.vmctx = at.cast();
    chunk.push(context);
    let func_ref = at
        .cast::<u8>()
        .wrapping_add(std::mem::offset_of!(HostFuncContextHeader<S>, func_ref))
        .cast::<VMFuncRef>();
    (FuncRefPtr(func_ref), index as u32)
}

impl Drop for StoreObjects {
    fn drop(&mut self) {
        // The memories give their slots back as they drop.
        if let Some(pool) = &self.pool {
            pool.release(self.pool_instances, self.pool_tables);
            pool.release_component_instances(self.pool_component_instances);
        }
    }
}

// SAFETY: everything inside is owned by this value; raw pointers only point
// into its own boxes.
unsafe impl Send for StoreObjects {}
// SAFETY: mutation requires `&mut self`.
unsafe impl Sync for StoreObjects {}

impl Default for StoreObjects {
    fn default() -> Self {
        Self::new()
    }
}

impl StoreObjects {
    /// An empty store.
    pub fn new() -> Self {
        StoreObjects {
            ctx: Box::default(),
            memories: Vec::new(),
            tables: Vec::new(),
            globals: Vec::new(),
            host_globals: Vec::new(),
            tags: Vec::new(),
            instances: Vec::new(),
            host_funcs: Vec::new(),
            instance_entities: Vec::new(),
            epoch: None,
            memory_creator: None,
            pool: None,
            pool_instances: 0,
            pool_tables: 0,
            pool_component_instances: 0,
        }
    }

    /// Allocates the store's instances, memories and tables from `pool`
    /// (the engine's pooling allocator) from now on.
    pub fn set_instance_pool(&mut self, pool: Option<Arc<crate::InstancePool>>) {
        self.pool = pool;
    }

    /// Makes the store's memories (but shared ones) in memory `creator`
    /// provides, from now on.
    pub fn set_memory_creator(&mut self, creator: Option<Arc<dyn crate::HostMemoryCreator>>) {
        self.memory_creator = creator;
    }

    /// Takes a component instance of the pool, if the store has one (given
    /// back when the store drops).
    pub fn take_component_instance(&mut self) -> anyhow::Result<()> {
        if let Some(pool) = &self.pool {
            pool.take_component_instance()?;
            self.pool_component_instances += 1;
        }
        Ok(())
    }

    /// A new table of the store made by the host: with a pool, one of the
    /// pool's tables, capped at its `table_elements`.
    pub fn new_table(
        &mut self,
        element: weft_environ::WasmRefType,
        minimum: u64,
        maximum: Option<u64>,
        init: usize,
    ) -> anyhow::Result<Table> {
        let Some(pool) = self.pool.clone() else {
            return Table::new(element, minimum, maximum, init);
        };
        let cap = pool.limits().table_elements as u64;
        if minimum > cap {
            anyhow::bail!(
                "a table of {minimum} elements is past the pooling allocator's limit `table_elements` ({cap})"
            );
        }
        pool.take_tables(1)?;
        match Table::new(element, minimum, Some(maximum.map_or(cap, |m| m.min(cap))), init) {
            Ok(table) => {
                self.pool_tables += 1;
                Ok(table)
            }
            Err(e) => {
                pool.release(0, 1);
                Err(e)
            }
        }
    }

    /// A new non-shared memory of the store: in memory of its creator if it
    /// has one, else its own reservation.
    pub fn new_memory(
        &self,
        minimum: u64,
        maximum: Option<u64>,
        memory64: bool,
        page_size_log2: u8,
    ) -> anyhow::Result<LinearMemory> {
        match (&self.memory_creator, &self.pool) {
            (Some(c), _) => LinearMemory::from_host(&**c, minimum, maximum, memory64, page_size_log2),
            (None, Some(pool)) => {
                Ok(LinearMemory::from_pool(pool, minimum, maximum, memory64, page_size_log2, None)?.0)
            }
            (None, None) => LinearMemory::new(minimum, maximum, memory64, page_size_log2),
        }
    }

    /// The store context read by compiled code.
    pub fn context(&self) -> &VMStoreContext {
        &self.ctx
    }

    /// Points compiled code at the engine's epoch counter, kept alive by
    /// this store.
    pub fn set_epoch_counter(&mut self, counter: Arc<AtomicU64>) {
        self.ctx.epoch_ptr.set(counter.as_ptr().cast_const());
        self.epoch = Some(counter);
    }

    /// Fuel consumed so far: negative while fuel remains.
    pub fn fuel_consumed(&self) -> i64 {
        self.ctx.fuel_consumed.get()
    }

    /// Sets the fuel counter (negative: that much fuel remains).
    pub fn set_fuel_consumed(&mut self, value: i64) {
        self.ctx.fuel_consumed.set(value);
    }

    /// The epoch at which compiled code calls the interrupt handler.
    pub fn epoch_deadline(&self) -> u64 {
        self.ctx.epoch_deadline.get()
    }

    /// Sets the epoch deadline.
    pub fn set_epoch_deadline(&mut self, deadline: u64) {
        self.ctx.epoch_deadline.set(deadline);
    }

    #[doc(hidden)]
    /// Installs the function the `OutOfFuel` and `NewEpoch` builtins call,
    /// with the store (`S`, the type given to [`crate::invoke`]). An `Err`
    /// stops the wasm call with that error.
    pub fn set_interrupt_handler<S: 'static>(&mut self, handler: InterruptFn<S>) {
        self.ctx.interrupt.set(Some(InterruptHandler {
            shim: crate::host::interrupt_shim::<S>,
            handler: handler as usize,
        }));
    }

    /// The number of memories.
    pub fn num_memories(&self) -> usize {
        self.memories.len()
    }

    /// The number of tables.
    pub fn num_tables(&self) -> usize {
        self.tables.len()
    }

    /// Adds a memory.
    pub fn add_memory(&mut self, memory: LinearMemory) -> MemoryId {
        self.memories.push(Box::new(memory));
        MemoryId(self.memories.len() - 1)
    }
    /// The memory `id` (which this store gave out).
    pub fn memory(&self, id: MemoryId) -> &LinearMemory {
        &self.memories[id.0]
    }
    /// A memory, writable.
    pub fn memory_mut(&mut self, id: MemoryId) -> &mut LinearMemory {
        &mut self.memories[id.0]
    }
    /// Adds a table.
    pub fn add_table(&mut self, table: Table) -> TableId {
        let table = Box::new(table);
        if table.element_type().heap_type.top() != weft_environ::WasmHeapType::Func {
            self.ctx.register_table_root(&*table);
        }
        self.tables.push(table);
        TableId(self.tables.len() - 1)
    }
    /// The table `id` (which this store gave out).
    pub fn table(&self, id: TableId) -> &Table {
        &self.tables[id.0]
    }
    /// A table, writable.
    pub fn table_mut(&mut self, id: TableId) -> &mut Table {
        &mut self.tables[id.0]
    }
    #[doc(hidden)]
    /// Adds a global with its initial value.
    pub fn add_global(&mut self, value: ValRaw) -> GlobalId {
        let mut global = Box::new(UnsafeCell::new(value));
        let at = NonNull::from(&mut *global);
        self.host_globals.push(global);
        self.push_global(at)
    }
    /// Gives the global whose value lies at `at` (in a box or a vmctx of
    /// this store) its id, and roots its value.
    fn push_global(&mut self, at: NonNull<UnsafeCell<ValRaw>>) -> GlobalId {
        self.ctx.register_global_root(at.as_ptr());
        self.globals.push(at);
        GlobalId(self.globals.len() - 1)
    }
    /// The value of a global.
    pub fn global_get(&self, id: GlobalId) -> ValRaw {
        // SAFETY: the pointer is to a live value of this store (see
        // `globals`); no compiled code runs while the store is borrowed
        // here.
        unsafe { *self.globals[id.0].as_ref().get() }
    }
    #[doc(hidden)]
    /// Sets the value of a global.
    pub fn global_set(&mut self, id: GlobalId, value: ValRaw) {
        // SAFETY: as in `global_get`; `&mut self` excludes other accesses.
        unsafe { *self.globals[id.0].as_ref().get() = value }
    }
    /// Adds a tag (a new identity) of canonical function type `type_id`.
    pub fn add_tag(&mut self, type_id: u32) -> TagId {
        let store_index = self.tags.len() as u32;
        self.tags.push(Box::new(VMTagDefinition { type_id, store_index }));
        TagId(self.tags.len() - 1)
    }
    /// The canonical function type id of a tag.
    pub fn tag_type_id(&self, id: TagId) -> u32 {
        self.tags[id.0].type_id
    }
    /// The number of tags.
    pub fn num_tags(&self) -> usize {
        self.tags.len()
    }
    /// The address of a tag's definition: its identity for compiled code.
    fn tag_ptr(&self, id: TagId) -> *const VMTagDefinition {
        &*self.tags[id.0]
    }
    /// The number of live exceptions of this store: thrown and not yet
    /// freed (an exception caught without an `exnref` is freed at once,
    /// others by the collections that find them unreachable).
    pub fn num_exceptions(&self) -> usize {
        self.ctx.exceptions.borrow().live()
    }
    /// The tag and payload of exception `exn` (an exnref word of this
    /// store), or `None` when it names no live exception (null, another
    /// store's word, or an exception freed since: see `exn.rs`).
    pub fn exception(&self, exn: usize) -> Option<(TagId, Vec<ValRaw>)> {
        let exceptions = self.ctx.exceptions.borrow();
        let e = exceptions.get(exn)?;
        // SAFETY: exception tags point to tag definitions boxed in this
        // store, which `&self` keeps alive.
        let tag = unsafe { (*e.tag).store_index };
        Some((TagId(tag as usize), e.values.to_vec()))
    }
    /// Adds an exception made by the host: thrown with tag `tag`, with
    /// `values` as payload (one value per parameter of the tag's type, which
    /// the caller checked, each rooted by the caller). Returns its exnref
    /// word, rooted by the host until the current root scope ends (as
    /// `VMStoreContext::new_externref` roots its reference); `None` when the
    /// tag is not one of the store's (or no slot is left).
    ///
    /// When the number of live exceptions has grown enough, this collects
    /// (after rooting the new exception).
    pub fn new_exception(&self, tag: TagId, values: Box<[ValRaw]>) -> Option<usize> {
        let tag = &**self.tags.get(tag.0)?;
        let word = self.ctx.exceptions.borrow_mut().insert(crate::exn::ExnObject {
            tag,
            values,
            exposed: true,
        })?;
        self.ctx.push_host_root(word as u64);
        self.ctx.maybe_collect_exceptions();
        Some(word)
    }
    /// An instance.
    pub fn instance(&self, id: InstanceId) -> &Instance {
        &self.instances[id.0]
    }

    #[doc(hidden)]
    /// Adds a host function of canonical type `type_id`, reached from wasm
    /// through `trampoline` (a wasm-to-host trampoline of its type). `S` is
    /// the type that [`crate::invoke`] is called with for this store.
    /// Returns its function reference and where [`StoreObjects::host_func`]
    /// finds its closure.
    pub fn add_host_func<S: crate::VMStore>(
        &mut self,
        type_id: u32,
        trampoline: CodePtr,
        store_index: u32,
        func: HostFunc<S>,
    ) -> (FuncRefPtr, HostFuncSlot) {
        let (shim, func, data) = func.into_parts();
        let header = HostFuncContextHeader::<S> {
            shim,
            func_ref: VMFuncRef {
                code: trampoline.0,
                vmctx: std::ptr::null_mut(),
                type_id,
                store_index,
            },
            func,
            data,
        };
        // The context goes at the end of the last chunk, which
        // `reserve_host_funcs` leaves with room for it (and holding contexts
        // of this `S`). The vector does not grow past its capacity, so no
        // context moves.
        self.reserve_host_funcs::<S>(1);
        let chunks = &mut self.host_funcs;
        let count = chunks.len();
        let (chunk_index, (ptr, index)) = match chunks
            .last_mut()
            .and_then(|c| c.downcast_mut::<Vec<HostFuncContextHeader<S>>>())
        {
            Some(chunk) if chunk.len() < chunk.capacity() => (count - 1, place_host_func(chunk, header)),
            // Not reached after `reserve_host_funcs`; a new chunk is right
            // all the same.
            _ => {
                let mut chunk = Vec::with_capacity(HOST_CHUNK_MIN);
                let placed = place_host_func(&mut chunk, header);
                // Moving the vector into its box moves its pointer and
                // lengths, not the buffer the contexts are in.
                chunks.push(Box::new(chunk));
                (count, placed)
            }
        };
        let slot = HostFuncSlot {
            chunk: chunk_index as u32,
            index,
        };
        (ptr, slot)
    }

    #[doc(hidden)]
    /// Makes room for `n` more host functions of store type `S` in one
    /// chunk, so that adding them allocates at most once (an instantiation
    /// that adds many says how many first).
    pub fn reserve_host_funcs<S: 'static>(&mut self, n: usize) {
        let last = self
            .host_funcs
            .last()
            .and_then(|c| c.downcast_ref::<Vec<HostFuncContextHeader<S>>>());
        if last.is_some_and(|c| c.capacity() - c.len() >= n) {
            return;
        }
        let grown = last.map_or(HOST_CHUNK_MIN, |c| (c.capacity() * 2).min(HOST_CHUNK_MAX));
        let chunk: Vec<HostFuncContextHeader<S>> = Vec::with_capacity(grown.max(n));
        // Moving the vector into its box moves its pointer and lengths,
        // not the buffer the contexts will be in.
        self.host_funcs.push(Box::new(chunk));
    }

    /// The host function added by [`StoreObjects::add_host_func`] at
    /// `slot`, if it is there and was added with the same `S`.
    pub fn host_func<S: 'static>(&self, slot: HostFuncSlot) -> Option<HostFunc<S>> {
        let chunk = self
            .host_funcs
            .get(slot.chunk as usize)?
            .downcast_ref::<Vec<HostFuncContextHeader<S>>>()?;
        let header = chunk.get(slot.index as usize)?;
        Some(HostFunc::from_parts(header.shim, header.func.clone(), header.data))
    }

    #[doc(hidden)]
    /// Creates an instance of `module`: allocates its defined memories,
    /// tables and globals and fills in its vmctx. Call
    /// [`StoreObjects::initialize`] next.
    ///
    /// `memory_images` holds, for each defined memory, its image from
    /// [`MemoryImage::for_module`] (of the same module) or `None`; it may be
    /// empty.
    #[allow(
        clippy::too_many_arguments,
        reason = "the parts of an instantiation, each a different kind"
    )]
    pub fn instantiate(
        &mut self,
        module: &Arc<Module>,
        type_ids: &[u32],
        func_code: &[CodePtr],
        imports: &InstanceImports<'_>,
        memory_images: &[Option<MemoryImage>],
        first_func_store_index: u32,
        store_index: u32,
    ) -> anyhow::Result<InstanceId> {
        let offsets = VMOffsets::new(module);
        anyhow::ensure!(type_ids.len() == module.types.len(), "type ids do not match the module");
        anyhow::ensure!(
            func_code.len() == module.num_defined_funcs() as usize,
            "code does not match the module"
        );
        anyhow::ensure!(
            imports.funcs.len() == module.num_imported_funcs as usize
                && imports.tables.len() == module.num_imported_tables as usize
                && imports.memories.len() == module.num_imported_memories as usize
                && imports.globals.len() == module.num_imported_globals as usize
                && imports.tags.len() == module.num_imported_tags as usize,
            "imports do not match the module"
        );
        if let Some(pool) = &self.pool {
            pool.check_module(module, offsets.size() as usize)?;
            let tables = module.tables.len() as u32 - module.num_imported_tables;
            pool.take_instance(tables)?;
            self.pool_instances += 1;
            self.pool_tables += tables;
        }
        let mut instance = Instance::new(module.clone(), offsets, store_index)?;
        instance.init_header(&*self.ctx, BUILTINS.0.as_ptr().cast());
        for (i, id) in type_ids.iter().enumerate() {
            instance.write(offsets.vmctx_type_id(i as u32), *id);
        }
        // Functions.
        for (i, f) in imports.funcs.iter().enumerate() {
            instance.write(offsets.vmctx_func_ref(i as u32), f.0 as usize);
        }
        let vmctx = instance.vmctx_ptr();
        let defined_types = module
            .functions
            .get(module.num_imported_funcs as usize..)
            .unwrap_or_default();
        anyhow::ensure!(defined_types.len() == func_code.len(), "code does not match the module");
        let refs = instance.defined_func_ref_ptr(0);
        // SAFETY: the offset of the first defined function's slot lies
        // within the vmctx allocation (the slots run to `memories_begin`).
        let slots = unsafe {
            vmctx
                .add(offsets.vmctx_func_ref(module.num_imported_funcs) as usize)
                .cast::<usize>()
        };
        for (i, (code, ty)) in func_code.iter().zip(defined_types).enumerate() {
            let func_ref = VMFuncRef {
                code: code.0,
                vmctx,
                type_id: type_ids[*ty as usize],
                store_index: first_func_store_index + i as u32,
            };
            // SAFETY: `i` is below the number of defined functions, so
            // `refs + i` is a `VMFuncRef` slot of the vmctx (aligned to 8)
            // and `slots + i` the pointer slot of function
            // `num_imported_funcs + i`; the vmctx is this instance's own.
            unsafe {
                let ptr = refs.add(i);
                ptr.write(func_ref);
                slots.add(i).write(ptr as usize);
            }
        }
        // Memories.
        let mut memories = Vec::with_capacity(module.memories.len());
        memories.extend_from_slice(imports.memories);
        instance.memory_from_image.resize(imports.memories.len(), false);
        self.memories
            .reserve(module.memories.len().saturating_sub(imports.memories.len()));
        for (i, m) in module.memories[module.num_imported_memories as usize..]
            .iter()
            .enumerate()
        {
            let (memory, from_image) = if m.shared {
                // Shared memories get their data segments copied: an image
                // would be mapped over memory other threads may use.
                let shared = SharedLinearMemory::new(m.minimum, m.maximum, m.memory64, m.page_size_log2)?;
                (LinearMemory::from_shared(shared), false)
            } else if let Some(creator) = &self.memory_creator {
                // Host memory: the data segments are copied into it.
                let memory = LinearMemory::from_host(&**creator, m.minimum, m.maximum, m.memory64, m.page_size_log2)?;
                (memory, false)
            } else if let Some(pool) = &self.pool {
                let image = memory_images.get(i).and_then(Option::as_ref);
                LinearMemory::from_pool(pool, m.minimum, m.maximum, m.memory64, m.page_size_log2, image)?
            } else {
                let image = memory_images.get(i).and_then(Option::as_ref);
                LinearMemory::with_image(m.minimum, m.maximum, m.memory64, m.page_size_log2, image)?
            };
            memories.push(self.add_memory(memory));
            instance.memory_from_image.push(from_image);
        }
        for (i, id) in memories.iter().enumerate() {
            let mem: *mut LinearMemory = &mut *self.memories[id.0];
            instance.memories.push(mem);
            // SAFETY: `mem` points to a live box of this store.
            let (def, base) = unsafe { ((*mem).definition_ptr(), (*mem).base()) };
            instance.write(offsets.vmctx_memory(i as u32), def as usize);
            // The base never moves (see `VMOffsets`): code reads this copy.
            instance.write(offsets.vmctx_memory_base(i as u32), base as usize);
        }
        // Tables (filled with null; initializers run in `initialize`).
        let mut tables = Vec::with_capacity(module.tables.len());
        tables.extend_from_slice(imports.tables);
        self.tables
            .reserve(module.tables.len().saturating_sub(imports.tables.len()));
        for t in &module.tables[module.num_imported_tables as usize..] {
            // A pool caps every table at its `table_elements`.
            let maximum = match &self.pool {
                Some(pool) => {
                    let cap = pool.limits().table_elements as u64;
                    Some(t.maximum.map_or(cap, |m| m.min(cap)))
                }
                None => t.maximum,
            };
            tables.push(self.add_table(Table::new(t.element, t.minimum, maximum, 0)?));
        }
        for (i, id) in tables.iter().enumerate() {
            let table: *mut Table = &mut *self.tables[id.0];
            instance.tables.push(table);
            // SAFETY: `table` points to a live box of this store.
            let def = unsafe { (*table).definition_ptr() };
            instance.write(offsets.vmctx_table(i as u32), def as usize);
        }
        // Globals: imported ones through their pointers, defined ones in
        // the vmctx (zero; initializers run in `initialize`), which gets
        // their ids once it is the store's.
        let mut globals = Vec::with_capacity(module.globals.len());
        globals.extend_from_slice(imports.globals);
        for (i, id) in imports.globals.iter().enumerate() {
            let global = self.globals[id.0].as_ptr();
            instance.globals.push(global);
            instance.write(offsets.vmctx_imported_global(i as u32), global as usize);
        }
        for i in 0..offsets.num_defined_globals() {
            let at = instance.defined_global_ptr(i);
            instance.globals.push(at.as_ptr());
        }
        // Tags: each instance defines new ones (tags are generative).
        let mut tags = Vec::with_capacity(module.tags.len());
        tags.extend_from_slice(imports.tags);
        for ty in &module.tags[module.num_imported_tags as usize..] {
            tags.push(self.add_tag(type_ids[*ty as usize]));
        }
        for (i, id) in tags.iter().enumerate() {
            instance.write(offsets.vmctx_tag(i as u32), self.tag_ptr(*id) as usize);
        }
        self.ctx.register_elements_root(&instance.elements);
        self.instances.push(instance);
        let id = InstanceId(self.instances.len() - 1);
        self.globals.reserve(offsets.num_defined_globals() as usize);
        for i in 0..offsets.num_defined_globals() {
            let at = self.instances[id.0].defined_global_ptr(i);
            globals.push(self.push_global(at));
        }
        self.instance_entities.push(InstanceEntities {
            memories,
            tables,
            globals,
            tags,
        });
        Ok(id)
    }

    /// The store ids of the memories, tables and globals of an instance, by
    /// their index in the module.
    pub fn instance_entities(&self, id: InstanceId) -> &InstanceEntities {
        &self.instance_entities[id.0]
    }

    /// Runs the initializers of an instance: globals, table initializers,
    /// element segments, then data segments, as the spec orders them. An
    /// out-of-bounds segment traps, leaving earlier segments applied.
    pub fn initialize(&mut self, id: InstanceId) -> Result<(), Trap> {
        // The values being computed are in no root the collector sees.
        let _no_gc = self.ctx.inhibit_gc();
        let instance = &mut *self.instances[id.0];
        let module = instance.module.clone();
        for (i, init) in module.global_inits.iter().enumerate() {
            let value = eval_const(instance, init)?;
            let index = module.num_imported_globals as usize + i;
            // SAFETY: global pointers point to values owned by this store.
            unsafe { *(*instance.globals[index]).get() = value };
        }
        for (i, init) in module.table_inits.iter().enumerate() {
            if let Some(init) = init {
                let value = eval_const(instance, init)?.get_word();
                let index = module.num_imported_tables + i as u32;
                if let Some(table) = instance.table_mut(index) {
                    table.elements_mut().fill(value);
                }
            }
        }
        let mut elements = Vec::with_capacity(module.elems.len());
        for seg in &module.elems {
            let words: Vec<usize> = match &seg.items {
                ElemItems::Functions(funcs) => funcs.iter().map(|f| instance.func_ref(*f).to_word()).collect(),
                ElemItems::Expressions(exprs) => exprs
                    .iter()
                    .map(|e| eval_const(instance, e).map(|v| v.get_word()))
                    .collect::<Result<_, _>>()?,
            };
            elements.push(words);
        }
        instance.elements = elements;
        for (i, seg) in module.elems.iter().enumerate() {
            match &seg.kind {
                ElemKind::Active { table, offset } => {
                    let offset = eval_const(instance, offset)?;
                    let table64 = module.tables.get(*table as usize).is_some_and(|t| t.table64);
                    let dst = if table64 {
                        offset.get_i64() as u64
                    } else {
                        offset.get_i32() as u32 as u64
                    };
                    let words = std::mem::take(&mut instance.elements[i]);
                    let Some(table) = instance.table_mut(*table) else {
                        return Err(Trap::TableOutOfBounds);
                    };
                    let end = dst.checked_add(words.len() as u64).filter(|e| *e <= table.size());
                    if end.is_none() {
                        return Err(Trap::TableOutOfBounds);
                    }
                    table.elements_mut()[dst as usize..dst as usize + words.len()].copy_from_slice(&words);
                }
                ElemKind::Declared => instance.elements[i].clear(),
                ElemKind::Passive => {}
            }
        }
        for (i, seg) in module.data.iter().enumerate() {
            if let DataKind::Active { memory, offset } = &seg.kind {
                instance.dropped_data[i] = true;
                if instance.memory_from_image.get(*memory as usize) == Some(&true) {
                    // Already in place: the image holds every active segment
                    // of this memory, applied in order.
                    continue;
                }
                let offset = eval_const(instance, offset)?;
                let memory64 = module.memories.get(*memory as usize).is_some_and(|m| m.memory64);
                let dst = if memory64 {
                    offset.get_i64() as u64
                } else {
                    offset.get_i32() as u32 as u64
                };
                let dst = usize::try_from(dst).unwrap_or(usize::MAX);
                let Some(mem) = instance.memory_mut(*memory) else {
                    return Err(Trap::MemoryOutOfBounds);
                };
                if dst.checked_add(seg.data.len()).is_none_or(|end| end > mem.byte_size()) {
                    return Err(Trap::MemoryOutOfBounds);
                }
                // SAFETY: `[dst, dst + len)` is inside the accessible memory
                // (checked above). Raw writes, not a `&mut [u8]`: a shared
                // memory may be in use by other threads.
                unsafe { std::ptr::copy_nonoverlapping(seg.data.as_ptr(), mem.base().add(dst), seg.data.len()) };
            }
        }
        Ok(())
    }
}

/// The store ids of an instance's memories, tables and globals, by index.
#[derive(Debug, Clone, Default)]
pub struct InstanceEntities {
    /// Memories, imports first.
    pub memories: Vec<MemoryId>,
    /// Tables, imports first.
    pub tables: Vec<TableId>,
    /// Globals, imports first.
    pub globals: Vec<GlobalId>,
    /// Tags, imports first.
    pub tags: Vec<TagId>,
}

/// What an instance imports, by index space.
#[derive(Debug, Clone, Copy)]
pub struct InstanceImports<'a> {
    /// Imported functions.
    pub funcs: &'a [FuncRefPtr],
    /// Imported tables.
    pub tables: &'a [TableId],
    /// Imported memories.
    pub memories: &'a [MemoryId],
    /// Imported globals.
    pub globals: &'a [GlobalId],
    /// Imported tags.
    pub tags: &'a [TagId],
}

/// Evaluates a constant expression in the context of an instance. Only the
/// GC proposal's allocations can fail (the GC heap is out of memory).
fn eval_const(instance: &Instance, expr: &ConstExpr) -> Result<ValRaw, Trap> {
    // Most expressions are one operand (an offset, an initial value): they
    // need no stack, and instantiation allocates nothing for them.
    if let [op] = expr.ops.as_slice() {
        if let Some(v) = eval_operand(instance, op) {
            return Ok(v);
        }
    }
    let mut stack: Vec<ValRaw> = Vec::with_capacity(2);
    for op in &expr.ops {
        let v = match *op {
            ConstOp::I32Add | ConstOp::I32Sub | ConstOp::I32Mul => {
                let b = stack.pop().unwrap_or_default().get_i32();
                let a = stack.pop().unwrap_or_default().get_i32();
                ValRaw::i32(match *op {
                    ConstOp::I32Add => a.wrapping_add(b),
                    ConstOp::I32Sub => a.wrapping_sub(b),
                    _ => a.wrapping_mul(b),
                })
            }
            ConstOp::I64Add | ConstOp::I64Sub | ConstOp::I64Mul => {
                let b = stack.pop().unwrap_or_default().get_i64();
                let a = stack.pop().unwrap_or_default().get_i64();
                ValRaw::i64(match *op {
                    ConstOp::I64Add => a.wrapping_add(b),
                    ConstOp::I64Sub => a.wrapping_sub(b),
                    _ => a.wrapping_mul(b),
                })
            }
            ConstOp::RefI31
            | ConstOp::StructNew(_)
            | ConstOp::StructNewDefault(_)
            | ConstOp::StructNewDesc(_)
            | ConstOp::StructNewDefaultDesc(_)
            | ConstOp::ArrayNew(_)
            | ConstOp::ArrayNewDefault(_)
            | ConstOp::ArrayNewFixed(..)
            | ConstOp::AnyConvertExtern
            | ConstOp::ExternConvertAny => crate::builtins_gc::eval_gc_const(instance, op, &mut stack)?,
            // The operands, each of which `eval_operand` evaluates.
            _ => eval_operand(instance, op).unwrap_or_default(),
        };
        stack.push(v);
    }
    Ok(stack.pop().unwrap_or_default())
}

/// The value of a constant instruction that takes nothing from the stack,
/// or `None` for an operator.
fn eval_operand(instance: &Instance, op: &ConstOp) -> Option<ValRaw> {
    Some(match *op {
        ConstOp::I32Const(v) => ValRaw::i32(v),
        ConstOp::I64Const(v) => ValRaw::i64(v),
        ConstOp::F32Const(v) => ValRaw::f32(v),
        ConstOp::F64Const(v) => ValRaw::f64(v),
        ConstOp::V128Const(v) => ValRaw::v128(v),
        ConstOp::GlobalGet(g) => instance.global(g),
        ConstOp::RefNull(_) => ValRaw::word(0),
        ConstOp::RefFunc(f) => ValRaw::word(instance.func_ref(f).to_word()),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::HostCaller;

    struct TestStore(StoreObjects);

    impl crate::VMStore for TestStore {
        fn objects(&self) -> &StoreObjects {
            &self.0
        }
    }

    #[test]
    fn host_funcs_stay_in_place_across_chunks() {
        let mut objects = StoreObjects::new();
        // Enough to fill several chunks (8, 16, 32, 64, 128, ...).
        let n = 300u32;
        let mut added = Vec::new();
        for i in 0..n {
            let f = HostFunc::<TestStore>::new(move |_: &mut TestStore, _: HostCaller, values: &mut [ValRaw]| {
                values[0] = ValRaw::i32(i as i32);
                Ok(())
            });
            added.push(objects.add_host_func(7, CodePtr::null(), i, f));
        }
        let mut store = TestStore(objects);
        for (i, (ptr, slot)) in added.iter().enumerate() {
            // SAFETY: the function reference points into a context of the
            // store, which never moves and lives as long as the store.
            let func_ref = unsafe { &*ptr.0 };
            assert_eq!(func_ref.store_index, i as u32, "context {i} moved or was overwritten");
            assert_eq!(func_ref.type_id, 7);
            let header = (func_ref.vmctx as *const u8)
                .wrapping_add(std::mem::offset_of!(HostFuncContextHeader<TestStore>, func_ref));
            assert_eq!(
                header,
                ptr.0.cast::<u8>(),
                "vmctx of context {i} is not its own context"
            );
            let f = store
                .0
                .host_func::<TestStore>(*slot)
                .expect("the slot finds its function");
            let mut values = [ValRaw::default()];
            f.call(&mut store, 0, &mut values).unwrap();
            assert_eq!(values[0].get_i32(), i as i32);
            // A store type the function was not added with finds nothing.
            assert!(store.0.host_func::<StoreObjectsOfAnotherType>(*slot).is_none());
        }
        assert!(
            store.0.host_funcs.len() < 10,
            "{} chunks for {n} functions",
            store.0.host_funcs.len()
        );
    }

    struct StoreObjectsOfAnotherType;
}

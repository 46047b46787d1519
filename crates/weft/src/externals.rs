//! Memories, tables, globals and the `Extern` that holds any of them.

use crate::store::{AsContext, AsContextMut, StoreId, StoreOpaque};
use crate::types::{ExternType, GlobalType, MemoryType, Mutability, TableType, TagType};
use crate::values::{Ref, Val};
use crate::{Func, SharedMemory};
use weft_runtime::{GlobalId, LinearMemory, MemoryId, TableId, TagId};

/// Something an instance can import or export.
#[derive(Debug, Clone)]
pub enum Extern {
    /// A function of a store (defined by an instance or by the host).
    Func(Func),
    /// A global of a store, with its type and value.
    Global(Global),
    /// A table of references of a store.
    Table(Table),
    /// A linear memory of a store.
    Memory(Memory),
    /// An exception tag of a store, whose identity tells exceptions apart.
    Tag(Tag),
    /// A linear memory shared between threads, of an engine rather than of
    /// a store.
    SharedMemory(SharedMemory),
}

impl Extern {
    /// The tag, if this is one.
    pub fn into_tag(self) -> Option<Tag> {
        match self {
            Extern::Tag(t) => Some(t),
            _ => None,
        }
    }
    /// The function, if this is one.
    pub fn into_func(self) -> Option<Func> {
        match self {
            Extern::Func(f) => Some(f),
            _ => None,
        }
    }
    /// The global, if this is one.
    pub fn into_global(self) -> Option<Global> {
        match self {
            Extern::Global(g) => Some(g),
            _ => None,
        }
    }
    /// The table, if this is one.
    pub fn into_table(self) -> Option<Table> {
        match self {
            Extern::Table(t) => Some(t),
            _ => None,
        }
    }
    /// The memory, if this is one.
    pub fn into_memory(self) -> Option<Memory> {
        match self {
            Extern::Memory(m) => Some(m),
            _ => None,
        }
    }
    /// The shared memory, if this is one.
    pub fn into_shared_memory(self) -> Option<SharedMemory> {
        match self {
            Extern::SharedMemory(m) => Some(m),
            _ => None,
        }
    }
    /// The type of the item (function, global, table, memory or tag type).
    pub fn ty(&self, store: impl AsContext) -> ExternType {
        let store = store.as_context();
        match self {
            Extern::Func(f) => ExternType::Func(f.ty(&store)),
            Extern::Global(g) => ExternType::Global(g.ty(&store)),
            Extern::Table(t) => ExternType::Table(t.ty(&store)),
            Extern::Memory(m) => ExternType::Memory(m.ty(&store)),
            Extern::Tag(t) => ExternType::Tag(t.ty(&store)),
            Extern::SharedMemory(m) => ExternType::Memory(m.ty()),
        }
    }
    /// The store the item belongs to (`None` for a shared memory, which
    /// belongs to an engine).
    pub(crate) fn store_id(&self) -> Option<StoreId> {
        match self {
            Extern::Func(f) => Some(f.store),
            Extern::Global(g) => Some(g.store),
            Extern::Table(t) => Some(t.store),
            Extern::Memory(m) => Some(m.store),
            Extern::Tag(t) => Some(t.store),
            Extern::SharedMemory(_) => None,
        }
    }
}

impl From<Func> for Extern {
    fn from(f: Func) -> Extern {
        Extern::Func(f)
    }
}
impl From<Global> for Extern {
    fn from(g: Global) -> Extern {
        Extern::Global(g)
    }
}
impl From<Table> for Extern {
    fn from(t: Table) -> Extern {
        Extern::Table(t)
    }
}
impl From<Tag> for Extern {
    fn from(t: Tag) -> Extern {
        Extern::Tag(t)
    }
}
impl From<Memory> for Extern {
    fn from(m: Memory) -> Extern {
        Extern::Memory(m)
    }
}
impl From<SharedMemory> for Extern {
    fn from(m: SharedMemory) -> Extern {
        Extern::SharedMemory(m)
    }
}

/// A linear memory of a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Memory {
    pub(crate) store: StoreId,
    pub(crate) id: MemoryId,
}

/// An access outside the bounds of a memory by [`Memory::read`] or
/// [`Memory::write`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryAccessError {
    _private: (),
}

impl std::fmt::Display for MemoryAccessError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("out of bounds memory access")
    }
}

impl std::error::Error for MemoryAccessError {}

impl Memory {
    /// A new memory of type `ty` in the store.
    pub fn new(mut store: impl AsContextMut, ty: MemoryType) -> crate::Result<Memory> {
        let store = store.as_context_mut().0.opaque_mut();
        if ty.is_shared() {
            crate::bail!("shared memories must be created through `SharedMemory`");
        }
        crate::shared_memory::check_memory_type(&store.engine, &ty)?;
        let memory = store
            .objects
            .new_memory(ty.minimum(), ty.maximum(), ty.is_64(), ty.page_size_log2())?;
        let id = store.objects.add_memory(memory);
        store.memory_types.insert(id.0, ty);
        Ok(Memory { store: store.id(), id })
    }

    fn mem<'a>(&self, store: &'a StoreOpaque) -> Option<&'a LinearMemory> {
        (store.id() == self.store).then(|| store.objects.memory(self.id))
    }

    /// The type the memory was made with (declared minimum and maximum;
    /// [`Memory::size`] gives its current size), as in Wasmtime.
    pub fn ty(&self, store: impl AsContext) -> MemoryType {
        let store = store.as_context();
        let opaque = store.0.opaque();
        if opaque.id() != self.store {
            return MemoryType::new(0, None);
        }
        opaque.declared_memory_type(self.id)
    }

    /// The contents (empty when the memory belongs to another store).
    pub fn data<'a, T: 'static + 'a>(&self, store: impl Into<crate::StoreContext<'a, T>>) -> &'a [u8] {
        let store = store.into();
        match self.mem(store.0.opaque()) {
            Some(m) => m.data(),
            None => &[],
        }
    }

    /// The contents, writable (empty when the memory belongs to another
    /// store).
    pub fn data_mut<'a, T: 'static + 'a>(&self, store: impl Into<crate::StoreContextMut<'a, T>>) -> &'a mut [u8] {
        let store = store.into();
        let opaque = store.0.opaque_mut();
        if opaque.id() != self.store {
            return &mut [];
        }
        opaque.objects.memory_mut(self.id).data_mut()
    }

    /// The contents, writable, together with the store's host data, as
    /// Wasmtime's `Memory::data_and_store_mut`: host functions that move
    /// bytes between guest memory and their own state (WASI, for example)
    /// need both at once. The contents are empty when the memory belongs to
    /// another store.
    pub fn data_and_store_mut<'a, T: 'static + 'a>(
        &self,
        store: impl Into<crate::StoreContextMut<'a, T>>,
    ) -> (&'a mut [u8], &'a mut T) {
        let inner = store.into().0;
        let data = &mut inner.data;
        if inner.opaque.id() != self.store {
            return (&mut [], data);
        }
        (inner.opaque.objects.memory_mut(self.id).data_mut(), data)
    }

    /// The address of the first byte.
    pub fn data_ptr(&self, store: impl AsContext) -> *mut u8 {
        let store = store.as_context();
        self.mem(store.0.opaque())
            .map(|m| m.base())
            .unwrap_or(std::ptr::null_mut())
    }

    /// The size in bytes.
    pub fn data_size(&self, store: impl AsContext) -> usize {
        let store = store.as_context();
        self.mem(store.0.opaque()).map(|m| m.byte_size()).unwrap_or(0)
    }

    /// The size in pages.
    pub fn size(&self, store: impl AsContext) -> u64 {
        let store = store.as_context();
        self.mem(store.0.opaque()).map(|m| m.pages()).unwrap_or(0)
    }

    /// The size of this memory's pages in bytes (65536, or 1 with the custom
    /// page sizes proposal).
    pub fn page_size(&self, store: impl AsContext) -> u64 {
        let store = store.as_context();
        self.mem(store.0.opaque())
            .map_or(weft_environ::WASM_PAGE_SIZE, |m| m.page_size())
    }

    /// `log2` of [`Memory::page_size`].
    pub fn page_size_log2(&self, store: impl AsContext) -> u8 {
        let store = store.as_context();
        self.mem(store.0.opaque())
            .map_or(weft_environ::WASM_PAGE_SIZE_LOG2, |m| m.page_size_log2())
    }

    /// Grows by `delta` pages and returns the old size in pages. Fails when
    /// the memory would exceed its maximum or the store's resource limiter
    /// refuses.
    pub fn grow(&self, mut store: impl AsContextMut, delta: u64) -> crate::Result<u64> {
        let store = store.as_context_mut().0;
        store.opaque.check(self.store, "memory")?;
        let mem = store.opaque.objects.memory(self.id);
        let (old, max) = (mem.pages(), mem.maximum_pages());
        let page = mem.page_size();
        let desired = old.saturating_add(delta).saturating_mul(page).min(usize::MAX as u64) as usize;
        let maximum = mem.declared_maximum().map(|m| m.saturating_mul(page) as usize);
        if !store.may_grow(crate::limits::Growth::Memory, mem.byte_size(), desired, maximum)? {
            crate::bail!("failed to grow memory by `{delta}` pages: the resource limiter refused");
        }
        let mem = store.opaque.objects.memory_mut(self.id);
        mem.grow(delta).ok_or_else(|| {
            crate::format_err!(
                "failed to grow memory by `{delta}` pages: the memory has {old} pages and may have at most {max}"
            )
        })
    }

    /// Copies `buffer.len()` bytes at `offset` into `buffer`.
    pub fn read(&self, store: impl AsContext, offset: usize, buffer: &mut [u8]) -> Result<(), MemoryAccessError> {
        let store = store.as_context();
        let data = self.mem(store.0.opaque()).map(|m| m.data()).unwrap_or(&[]);
        let end = offset
            .checked_add(buffer.len())
            .filter(|e| *e <= data.len())
            .ok_or(MemoryAccessError { _private: () })?;
        buffer.copy_from_slice(&data[offset..end]);
        Ok(())
    }

    /// Copies `buffer` into the memory at `offset`.
    pub fn write(&self, mut store: impl AsContextMut, offset: usize, buffer: &[u8]) -> Result<(), MemoryAccessError> {
        let store = store.as_context_mut().0.opaque_mut();
        if store.id() != self.store {
            return Err(MemoryAccessError { _private: () });
        }
        let data = store.objects.memory_mut(self.id).data_mut();
        let end = offset
            .checked_add(buffer.len())
            .filter(|e| *e <= data.len())
            .ok_or(MemoryAccessError { _private: () })?;
        data[offset..end].copy_from_slice(buffer);
        Ok(())
    }
}

/// A table of a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Table {
    pub(crate) store: StoreId,
    pub(crate) id: TableId,
}

impl Table {
    /// A new table of type `ty` with every element set to `init`.
    pub fn new(mut store: impl AsContextMut, ty: TableType, init: Ref) -> crate::Result<Table> {
        let store = store.as_context_mut().0.opaque_mut();
        let word = init.to_word(store, ty.element())?;
        let table = store
            .objects
            .new_table(ty.element().to_wasm(), ty.minimum(), ty.maximum(), word)?;
        let id = store.objects.add_table(table);
        store.table_types.insert(id.0, ty);
        Ok(Table { store: store.id(), id })
    }

    /// The type the table was made with (declared minimum and maximum;
    /// [`Table::size`] gives its current size), as in Wasmtime.
    pub fn ty(&self, store: impl AsContext) -> TableType {
        let store = store.as_context();
        let opaque = store.0.opaque();
        if opaque.id() != self.store {
            return TableType::new(crate::RefType::FUNCREF, 0, None);
        }
        opaque.declared_table_type(self.id)
    }

    /// The element at `index`, or `None` when out of bounds.
    pub fn get(&self, store: impl AsContext, index: u64) -> Option<Ref> {
        let store = store.as_context();
        let opaque = store.0.opaque();
        if opaque.id() != self.store {
            return None;
        }
        let word = opaque.objects.table(self.id).get(index)?;
        let ty = opaque.table_type(self.id);
        Some(Ref::from_word(opaque, word, ty.element().heap_type()))
    }

    /// Sets the element at `index`.
    pub fn set(&self, mut store: impl AsContextMut, index: u64, value: Ref) -> crate::Result<()> {
        let store = store.as_context_mut().0.opaque_mut();
        store.check(self.store, "table")?;
        let ty = store.table_type(self.id);
        let word = value.to_word(store, ty.element())?;
        if !store.objects.table_mut(self.id).set(index, word) {
            crate::bail!("table index {index} is out of bounds");
        }
        Ok(())
    }

    /// The number of elements.
    pub fn size(&self, store: impl AsContext) -> u64 {
        let store = store.as_context();
        let opaque = store.0.opaque();
        if opaque.id() != self.store {
            return 0;
        }
        opaque.objects.table(self.id).size()
    }

    /// Grows by `delta` elements set to `init`; returns the old size. Fails
    /// when the table would exceed its maximum or the store's resource
    /// limiter refuses.
    pub fn grow(&self, mut store: impl AsContextMut, delta: u64, init: Ref) -> crate::Result<u64> {
        let store = store.as_context_mut().0;
        store.opaque.check(self.store, "table")?;
        let table = store.opaque.objects.table(self.id);
        let (old, maximum) = (table.size(), table.declared_maximum().map(|m| m as usize));
        let ty = store.opaque.table_type(self.id);
        let word = init.to_word(&store.opaque, ty.element())?;
        let desired = old.saturating_add(delta).min(usize::MAX as u64) as usize;
        if !store.may_grow(crate::limits::Growth::Table, old as usize, desired, maximum)? {
            crate::bail!("failed to grow table of {old} elements by {delta}: the resource limiter refused");
        }
        let table = store.opaque.objects.table_mut(self.id);
        table
            .grow(delta, word)
            .ok_or_else(|| crate::format_err!("failed to grow table of {old} elements by {delta}"))
    }
}

/// A global of a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Global {
    pub(crate) store: StoreId,
    pub(crate) id: GlobalId,
}

impl Global {
    /// A new global of type `ty` holding `value`.
    pub fn new(mut store: impl AsContextMut, ty: GlobalType, value: Val) -> crate::Result<Global> {
        let store = store.as_context_mut().0.opaque_mut();
        let raw = value.to_raw(store, ty.content())?;
        let id = store.objects.add_global(raw);
        store.global_types.insert(id.0, ty);
        Ok(Global { store: store.id(), id })
    }

    /// The global's value type and mutability.
    pub fn ty(&self, store: impl AsContext) -> GlobalType {
        let store = store.as_context();
        store.0.opaque().global_type(self.id)
    }

    /// The global's current value.
    pub fn get(&self, store: impl AsContextMut) -> Val {
        let store = store.as_context();
        let opaque = store.0.opaque();
        let ty = opaque.global_type(self.id);
        if opaque.id() != self.store {
            return Val::I32(0);
        }
        Val::from_raw(opaque, opaque.objects.global_get(self.id), ty.content())
    }

    /// Sets the value; fails when the global is immutable or `value` has
    /// another type.
    pub fn set(&self, mut store: impl AsContextMut, value: Val) -> crate::Result<()> {
        let store = store.as_context_mut().0.opaque_mut();
        store.check(self.store, "global")?;
        let ty = store.global_type(self.id);
        if ty.mutability() == Mutability::Const {
            crate::bail!("immutable global cannot be set");
        }
        let raw = value.to_raw(store, ty.content())?;
        store.objects.global_set(self.id, raw);
        Ok(())
    }
}

/// An exception tag of a store. Tags are generative: every [`Tag::new`] and
/// every instance defining a tag makes a new tag, distinct from all others
/// even of the same type; an exception is caught by a `catch` clause only
/// for the very tag it was thrown with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tag {
    pub(crate) store: StoreId,
    pub(crate) id: TagId,
}

impl Tag {
    /// A new tag of type `ty` in the store. Fails when the type has results
    /// (tags have none) or belongs to another engine.
    pub fn new(mut store: impl AsContextMut, ty: &TagType) -> crate::Result<Tag> {
        let store = store.as_context_mut().0.opaque_mut();
        if !crate::Engine::same(ty.ty().engine(), &store.engine) {
            crate::bail!("the tag type belongs to a different engine than the store");
        }
        if ty.ty().results().len() != 0 {
            crate::bail!("tag types have no results, but `{}` has some", ty.ty());
        }
        let id = store.objects.add_tag(ty.ty().type_index());
        store.tag_types.insert(id.0, ty.clone());
        Ok(Tag { store: store.id(), id })
    }

    /// The type of the tag.
    pub fn ty(&self, store: impl AsContext) -> TagType {
        let store = store.as_context();
        store.0.opaque().tag_type(self.id)
    }

    /// Whether `a` and `b` are the same tag (of `store`).
    pub fn eq(a: &Tag, b: &Tag, _store: impl AsContext) -> bool {
        a == b
    }
}

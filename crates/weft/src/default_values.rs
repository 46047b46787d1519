//! `default_value` of each type, as in Wasmtime's API: the items of default
//! contents that `Linker::define_unknown_imports_as_default_values` defines.
//! Kept apart from `types.rs`, which the items' own files import.

use crate::store::AsContextMut;
use crate::{
    Extern, ExternType, Func, FuncType, Global, GlobalType, Memory, MemoryType, Ref, SharedMemory, Table, TableType,
    Tag, TagType, Val, ValType,
};

impl ValType {
    /// The default value of the type: zero, or null for a nullable
    /// reference; `None` for a non-nullable reference, which has none.
    pub fn default_value(&self) -> Option<Val> {
        Val::default_for_ty(self)
    }
}

impl FuncType {
    /// A new host function of this type in `store` that ignores its
    /// arguments and returns the default value of each result type; fails
    /// when one has none (a non-nullable reference).
    pub fn default_value(&self, store: impl AsContextMut) -> crate::Result<Func> {
        let results = self
            .results()
            .map(|t| {
                t.default_value()
                    .ok_or_else(|| crate::format_err!("result type {t} of {self} has no default value"))
            })
            .collect::<crate::Result<Vec<_>>>()?;
        Ok(Func::new(store, self.clone(), move |_, _, out| {
            out.clone_from_slice(&results);
            Ok(())
        }))
    }
}

impl GlobalType {
    /// A new global of this type in `store`, holding the default value of
    /// its content type; fails when that type has none.
    pub fn default_value(&self, store: impl AsContextMut) -> crate::Result<Global> {
        let value = self
            .content()
            .default_value()
            .ok_or_else(|| crate::format_err!("global type {self} has no default value"))?;
        Global::new(store, self.clone(), value)
    }
}

impl TableType {
    /// A new table of this type in `store`, of its minimum size and filled
    /// with null; fails when its element type is not nullable.
    pub fn default_value(&self, store: impl AsContextMut) -> crate::Result<Table> {
        if !self.element().is_nullable() {
            crate::bail!("table type {self} has no default element: its element type is not nullable");
        }
        Table::new(store, self.clone(), Ref::null(self.element().heap_type()))
    }
}

impl MemoryType {
    /// A new memory of this type, of its minimum size: a
    /// [`SharedMemory`] of `store`'s engine when the type is shared,
    /// else a [`Memory`] of `store`.
    pub fn default_value(&self, mut store: impl AsContextMut) -> crate::Result<Extern> {
        Ok(if self.is_shared() {
            let engine = store.as_context_mut().engine().clone();
            Extern::SharedMemory(SharedMemory::new(&engine, self.clone())?)
        } else {
            Extern::Memory(Memory::new(store, self.clone())?)
        })
    }
}

impl TagType {
    /// A new tag of this type in `store`.
    pub fn default_value(&self, store: impl AsContextMut) -> crate::Result<Tag> {
        Tag::new(store, self)
    }
}

impl ExternType {
    /// A new item of this type in `store` with default contents: a function
    /// that ignores its arguments and returns default values, a global of
    /// the default value, a table of nulls, a memory of its minimum size,
    /// a tag. Fails when a value type in it has no default (a non-nullable
    /// reference).
    pub fn default_value(&self, store: impl AsContextMut) -> crate::Result<Extern> {
        Ok(match self {
            ExternType::Func(t) => Extern::Func(t.default_value(store)?),
            ExternType::Global(t) => Extern::Global(t.default_value(store)?),
            ExternType::Table(t) => Extern::Table(t.default_value(store)?),
            ExternType::Memory(t) => t.default_value(store)?,
            ExternType::Tag(t) => Extern::Tag(t.default_value(store)?),
        })
    }
}

//! `weft-types` is the engine-wide registry of canonical function types.
//!
//! Two structurally equal function types registered in the same registry get
//! the same [`VMSharedTypeIndex`], so `call_indirect` and every other type
//! check of compiled code is one integer compare. Entries are hash-consed and
//! reference counted: an id stays valid while any registration holds it, and
//! ids are never reused, so a stale id can never alias a newer type.
//!
//! With the `component-model` feature, [`component`] has the engine-wide
//! registry of component types, [`component::ComponentTypeRegistry`]: each
//! compiled component registers the types of its translation there, and
//! structurally equal types of different components get the same engine id.
//! The per-translation registry and the canonical ABI's layout functions
//! are re-exported from `weft_environ::component`, because translation
//! produces their indices as it goes (and `weft-environ` cannot depend on
//! this crate).
//!
//! This crate holds data and pure logic only: no `unsafe`, no code generation,
//! no runtime state beyond the registry itself.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "component-model")]
mod component_registry;

/// Component types: the engine-wide [`component::ComponentTypeRegistry`],
/// and, re-exported from `weft_environ::component`, the hash-consed
/// [`component::ComponentTypes`] registry of one translation, value,
/// function, instance, component and resource types, and the canonical
/// ABI's layout functions in [`component::abi`].
#[cfg(feature = "component-model")]
pub mod component {
    pub use crate::component_registry::{ComponentTypeRegistry, RegisteredTypes};
    pub use weft_environ::component::abi;
    pub use weft_environ::component::types::*;
}

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use weft_environ::{EngineOrModuleTypeIndex, WasmFuncType, WasmHeapType, WasmValType};

/// An engine-wide canonical type id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VMSharedTypeIndex(pub u32);

/// What identifies a canonical type: the type alone, or, for a member of an
/// explicit recursion group, the whole group (members naming each other with
/// [`EngineOrModuleTypeIndex::RecGroup`]) and the member's position.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Single(Arc<WasmFuncType>),
    Group(Arc<[WasmFuncType]>, u32),
}

impl Key {
    fn ty(&self) -> Arc<WasmFuncType> {
        match self {
            Key::Single(ty) => ty.clone(),
            Key::Group(group, i) => Arc::new(group[*i as usize].clone()),
        }
    }
}

#[derive(Default)]
struct Inner {
    by_type: HashMap<Key, VMSharedTypeIndex>,
    by_index: HashMap<VMSharedTypeIndex, (Key, Arc<WasmFuncType>, usize)>,
    next: u32,
}

/// The registry of canonical types of one engine. Cheap to share (`Arc`).
#[derive(Default)]
pub struct TypeRegistry {
    inner: RwLock<Inner>,
}

impl TypeRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers one use of `ty` and returns its canonical id. Each call must
    /// be balanced by one [`TypeRegistry::release`].
    ///
    /// `ty` must be canonical: its concrete reference types name other
    /// types by their engine ids ([`EngineOrModuleTypeIndex::Engine`]),
    /// which must be registered; a new entry holds one use of each of them
    /// for as long as it lives.
    pub fn register(&self, ty: &WasmFuncType) -> VMSharedTypeIndex {
        self.register_key(Key::Single(Arc::new(ty.clone())))
    }

    /// Registers one use of each type of an explicit recursion group and
    /// returns their canonical ids, in order. Each id must be released once.
    ///
    /// The members name each other with [`EngineOrModuleTypeIndex::RecGroup`]
    /// and other types by engine ids, as in [`TypeRegistry::register`]. A
    /// member is the same type as the member at the same position of a
    /// structurally equal group, and distinct from every other type.
    pub fn register_group(&self, group: &[WasmFuncType]) -> Vec<VMSharedTypeIndex> {
        let group: Arc<[WasmFuncType]> = group.into();
        (0..group.len() as u32)
            .map(|i| self.register_key(Key::Group(group.clone(), i)))
            .collect()
    }

    fn register_key(&self, key: Key) -> VMSharedTypeIndex {
        let mut inner = self.inner.write().unwrap_or_else(|e| e.into_inner());
        if let Some(&index) = inner.by_type.get(&key) {
            if let Some(entry) = inner.by_index.get_mut(&index) {
                entry.2 += 1;
            }
            return index;
        }
        let ty = key.ty();
        for referenced in referenced_types(&ty) {
            if let Some(entry) = inner.by_index.get_mut(&referenced) {
                entry.2 += 1;
            }
        }
        let index = VMSharedTypeIndex(inner.next);
        inner.next += 1;
        inner.by_type.insert(key.clone(), index);
        inner.by_index.insert(index, (key, ty, 1));
        index
    }

    /// Registers one more use of the registered `index` (to be balanced by
    /// one [`TypeRegistry::release`]); `false` when it is not registered.
    pub fn add_use(&self, index: VMSharedTypeIndex) -> bool {
        let mut inner = self.inner.write().unwrap_or_else(|e| e.into_inner());
        match inner.by_index.get_mut(&index) {
            Some(entry) => {
                entry.2 += 1;
                true
            }
            None => false,
        }
    }

    /// Releases one use of `index`; the entry is freed with its last use,
    /// releasing the types it refers to.
    pub fn release(&self, index: VMSharedTypeIndex) {
        let mut inner = self.inner.write().unwrap_or_else(|e| e.into_inner());
        let mut pending = vec![index];
        while let Some(index) = pending.pop() {
            let remove = match inner.by_index.get_mut(&index) {
                Some(entry) => {
                    entry.2 -= 1;
                    entry.2 == 0
                }
                None => false,
            };
            if remove {
                if let Some((key, ty, _)) = inner.by_index.remove(&index) {
                    inner.by_type.remove(&key);
                    pending.extend(referenced_types(&ty));
                }
            }
        }
    }

    /// The type registered as `index`, if it is still registered.
    pub fn lookup(&self, index: VMSharedTypeIndex) -> Option<Arc<WasmFuncType>> {
        let inner = self.inner.read().unwrap_or_else(|e| e.into_inner());
        inner.by_index.get(&index).map(|(_, ty, _)| ty.clone())
    }

    /// The number of distinct types registered now.
    pub fn len(&self) -> usize {
        self.inner.read().unwrap_or_else(|e| e.into_inner()).by_index.len()
    }

    /// Whether no type is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The engine ids of the types that the concrete reference types of `ty`
/// name.
fn referenced_types(ty: &WasmFuncType) -> Vec<VMSharedTypeIndex> {
    ty.params
        .iter()
        .chain(ty.results.iter())
        .filter_map(|t| match t {
            WasmValType::Ref(r) => match r.heap_type {
                WasmHeapType::ConcreteFunc(EngineOrModuleTypeIndex::Engine(i)) => Some(VMSharedTypeIndex(i)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_environ::WasmValType;

    #[test]
    fn equal_types_share_an_id_and_ids_are_not_reused() {
        let r = TypeRegistry::new();
        let a = WasmFuncType::new(vec![WasmValType::I32], vec![]);
        let b = WasmFuncType::new(vec![WasmValType::I64], vec![]);
        let ia = r.register(&a);
        assert_eq!(r.register(&a), ia);
        let ib = r.register(&b);
        assert_ne!(ia, ib);
        r.release(ia);
        assert!(r.lookup(ia).is_some());
        r.release(ia);
        assert!(r.lookup(ia).is_none());
        let ia2 = r.register(&a);
        assert_ne!(ia2, ia);
        assert_eq!(r.len(), 2);
    }

    #[test]
    fn members_of_recursion_groups_are_distinct_types() {
        let r = TypeRegistry::new();
        let empty = WasmFuncType::new(vec![], vec![]);
        let single = r.register(&empty);
        let group = r.register_group(&[empty.clone(), empty.clone()]);
        assert_eq!(group.len(), 2);
        assert_ne!(group[0], group[1]);
        assert!(!group.contains(&single));
        assert_eq!(r.register_group(&[empty.clone(), empty.clone()]), group);
        assert_eq!(r.lookup(group[1]).as_deref(), Some(&empty));
        for id in group.iter().chain(&group) {
            r.release(*id);
        }
        r.release(single);
        assert!(r.is_empty());
    }

    #[test]
    fn types_keep_the_types_they_refer_to() {
        use weft_environ::WasmRefType;
        let r = TypeRegistry::new();
        let inner = r.register(&WasmFuncType::new(vec![], vec![]));
        let reference = WasmValType::Ref(WasmRefType {
            nullable: false,
            heap_type: WasmHeapType::ConcreteFunc(EngineOrModuleTypeIndex::Engine(inner.0)),
        });
        let outer = r.register(&WasmFuncType::new(vec![reference], vec![]));
        r.release(inner);
        assert!(r.lookup(inner).is_some());
        r.release(outer);
        assert!(r.lookup(inner).is_none());
        assert!(r.is_empty());
    }
}

//! `weft-types` is the engine-wide registry of canonical function types.
//!
//! Two structurally equal function types registered in the same registry get
//! the same [`VMSharedTypeIndex`], so `call_indirect` and every other type
//! check of compiled code is one integer compare. Entries are hash-consed and
//! reference counted: an id stays valid while any registration holds it, and
//! ids are never reused, so a stale id can never alias a newer type.
//!
//! With the `component-model` feature, module `component` has the
//! engine-wide registry of component types, `ComponentTypeRegistry`: each
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
use weft_environ::{EngineOrModuleTypeIndex, WasmFuncType, WasmSubType};

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
    /// A member of a recursion group that only the GC proposal can express
    /// (struct and array types, subtypes, types that are not final).
    Sub(Arc<[WasmSubType]>, u32),
}

impl Key {
    fn sub_type(&self) -> WasmSubType {
        match self {
            Key::Single(ty) => WasmSubType::func((**ty).clone()),
            Key::Group(group, i) => WasmSubType::func(group[*i as usize].clone()),
            Key::Sub(group, i) => group[*i as usize].clone(),
        }
    }
}

/// One registered type.
struct Entry {
    key: Key,
    /// The function type (empty for struct and array types).
    func: Arc<WasmFuncType>,
    /// The whole type.
    sub: Arc<WasmSubType>,
    /// The supertype display: the chain of supertypes from the root down to
    /// the type itself, so that `a <: b` is `display(a)[depth(b)] == b`.
    display: Arc<[VMSharedTypeIndex]>,
    uses: usize,
}

#[derive(Default)]
struct Inner {
    by_type: HashMap<Key, VMSharedTypeIndex>,
    by_index: HashMap<VMSharedTypeIndex, Entry>,
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
        inner.register_key(key, None)
    }

    /// Registers one use of each type of a recursion group as the GC
    /// proposal declares it (struct, array and function types, `final`,
    /// supertypes) and returns their canonical ids, in order. Each id must
    /// be released once.
    ///
    /// The members name each other with [`EngineOrModuleTypeIndex::RecGroup`]
    /// (their supertypes included) and other types by engine ids. A group of
    /// final function types without supertypes is registered as
    /// [`TypeRegistry::register`] (one type) or
    /// [`TypeRegistry::register_group`] would, so that modules with and
    /// without GC types share the ids of their function types. The group
    /// must be valid: a supertype is a type registered before, or a member
    /// before this one, of the same kind.
    pub fn register_sub_group(&self, group: &[WasmSubType]) -> Vec<VMSharedTypeIndex> {
        if group.iter().all(WasmSubType::is_plain_func) {
            let funcs: Vec<WasmFuncType> = group.iter().filter_map(|t| t.as_func().cloned()).collect();
            if let [single] = funcs.as_slice() {
                let single = single.map_index(|i| match i {
                    EngineOrModuleTypeIndex::RecGroup(0) => EngineOrModuleTypeIndex::RecSelf,
                    other => other,
                });
                return vec![self.register(&single)];
            }
            return self.register_group(&funcs);
        }
        let group: Arc<[WasmSubType]> = group.into();
        let mut inner = self.inner.write().unwrap_or_else(|e| e.into_inner());
        let mut ids: Vec<VMSharedTypeIndex> = Vec::with_capacity(group.len());
        for (i, member) in group.iter().enumerate() {
            let supertype = match member.supertype {
                Some(EngineOrModuleTypeIndex::Engine(s)) => Some(VMSharedTypeIndex(s)),
                Some(EngineOrModuleTypeIndex::RecGroup(j)) => ids.get(j as usize).copied(),
                _ => None,
            };
            let parent_display = supertype.and_then(|s| inner.by_index.get(&s).map(|e| e.display.clone()));
            let id = inner.register_key(Key::Sub(group.clone(), i as u32), parent_display);
            ids.push(id);
        }
        ids
    }

    /// The supertype display of `index`: its chain of supertypes from the
    /// root down to `index` itself.
    pub fn supertypes(&self, index: VMSharedTypeIndex) -> Option<Arc<[VMSharedTypeIndex]>> {
        let inner = self.inner.read().unwrap_or_else(|e| e.into_inner());
        inner.by_index.get(&index).map(|e| e.display.clone())
    }

    /// Whether the registered type `a` is `b` or declares `b` as a direct
    /// or indirect supertype. O(1): one lookup of `b`'s depth and one of
    /// `a`'s display at that depth.
    pub fn is_subtype(&self, a: VMSharedTypeIndex, b: VMSharedTypeIndex) -> bool {
        if a == b {
            return true;
        }
        let inner = self.inner.read().unwrap_or_else(|e| e.into_inner());
        let (Some(ea), Some(eb)) = (inner.by_index.get(&a), inner.by_index.get(&b)) else {
            return false;
        };
        ea.display.get(eb.display.len() - 1) == Some(&b)
    }

    /// The whole type registered as `index` (struct and array types
    /// included), if it is still registered.
    pub fn lookup_sub(&self, index: VMSharedTypeIndex) -> Option<Arc<WasmSubType>> {
        let inner = self.inner.read().unwrap_or_else(|e| e.into_inner());
        inner.by_index.get(&index).map(|e| e.sub.clone())
    }

    /// Registers one more use of the registered `index` (to be balanced by
    /// one [`TypeRegistry::release`]); `false` when it is not registered.
    pub fn add_use(&self, index: VMSharedTypeIndex) -> bool {
        let mut inner = self.inner.write().unwrap_or_else(|e| e.into_inner());
        match inner.by_index.get_mut(&index) {
            Some(entry) => {
                entry.uses += 1;
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
                    entry.uses -= 1;
                    entry.uses == 0
                }
                None => false,
            };
            if remove {
                if let Some(entry) = inner.by_index.remove(&index) {
                    inner.by_type.remove(&entry.key);
                    pending.extend(referenced_types(&entry.sub));
                }
            }
        }
    }

    /// The type registered as `index`, if it is still registered.
    pub fn lookup(&self, index: VMSharedTypeIndex) -> Option<Arc<WasmFuncType>> {
        let inner = self.inner.read().unwrap_or_else(|e| e.into_inner());
        inner.by_index.get(&index).map(|e| e.func.clone())
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

impl Inner {
    /// Registers one use of `key`; a new entry's display is its supertype's
    /// (`parent_display`) followed by itself.
    fn register_key(&mut self, key: Key, parent_display: Option<Arc<[VMSharedTypeIndex]>>) -> VMSharedTypeIndex {
        if let Some(&index) = self.by_type.get(&key) {
            if let Some(entry) = self.by_index.get_mut(&index) {
                entry.uses += 1;
            }
            return index;
        }
        let sub = key.sub_type();
        for referenced in referenced_types(&sub) {
            if let Some(entry) = self.by_index.get_mut(&referenced) {
                entry.uses += 1;
            }
        }
        let index = VMSharedTypeIndex(self.next);
        self.next += 1;
        let mut display: Vec<VMSharedTypeIndex> = parent_display.as_deref().unwrap_or(&[]).to_vec();
        display.push(index);
        let func = Arc::new(sub.as_func().cloned().unwrap_or_default());
        self.by_type.insert(key.clone(), index);
        self.by_index.insert(
            index,
            Entry {
                key,
                func,
                sub: Arc::new(sub),
                display: display.into(),
                uses: 1,
            },
        );
        index
    }
}

/// The engine ids of the types that `ty` names (in its concrete reference
/// types and as its supertype).
fn referenced_types(ty: &WasmSubType) -> Vec<VMSharedTypeIndex> {
    let mut out: Vec<VMSharedTypeIndex> = ty
        .composite
        .indices()
        .into_iter()
        .filter_map(|i| match i {
            EngineOrModuleTypeIndex::Engine(i) => Some(VMSharedTypeIndex(i)),
            _ => None,
        })
        .collect();
    if let Some(EngineOrModuleTypeIndex::Engine(s)) = ty.supertype {
        out.push(VMSharedTypeIndex(s));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_environ::{WasmCompositeType, WasmFieldType, WasmHeapType, WasmStorageType, WasmStructType, WasmValType};

    fn struct_type(is_final: bool, supertype: Option<EngineOrModuleTypeIndex>, fields: &[WasmValType]) -> WasmSubType {
        WasmSubType {
            is_final,
            supertype,
            composite: WasmCompositeType::Struct(WasmStructType {
                fields: fields
                    .iter()
                    .map(|t| WasmFieldType {
                        element_type: WasmStorageType::Val(*t),
                        mutable: false,
                    })
                    .collect(),
                ..WasmStructType::default()
            }),
        }
    }

    fn ref_to(nullable: bool, heap_type: WasmHeapType) -> WasmValType {
        WasmValType::Ref(weft_environ::WasmRefType::new(nullable, heap_type))
    }

    #[test]
    fn gc_groups_are_canonical_and_subtyping_is_by_display() {
        let r = TypeRegistry::new();
        // (type $a (sub (struct)))
        let a = r.register_sub_group(&[struct_type(false, None, &[])])[0];
        // (type $b (sub $a (struct (field i32))))
        let b_ty = struct_type(false, Some(EngineOrModuleTypeIndex::Engine(a.0)), &[WasmValType::I32]);
        let b = r.register_sub_group(std::slice::from_ref(&b_ty))[0];
        // (rec (type $c (sub $b (struct (field i32) (field (ref null $d)))))
        //      (type $d (sub final $c (struct (field i32) (field (ref null $d))))))
        let d_ref = ref_to(true, WasmHeapType::ConcreteStruct(EngineOrModuleTypeIndex::RecGroup(1)));
        let group = [
            struct_type(
                false,
                Some(EngineOrModuleTypeIndex::Engine(b.0)),
                &[WasmValType::I32, d_ref],
            ),
            struct_type(
                true,
                Some(EngineOrModuleTypeIndex::RecGroup(0)),
                &[WasmValType::I32, d_ref],
            ),
        ];
        let cd = r.register_sub_group(&group);
        let (c, d) = (cd[0], cd[1]);
        // Another module with an equal group gets the same ids.
        assert_eq!(r.register_sub_group(&group), cd);
        assert_eq!(r.register_sub_group(std::slice::from_ref(&b_ty)), vec![b]);
        assert_eq!(&*r.supertypes(d).unwrap(), &[a, b, c, d]);
        assert!(r.is_subtype(d, a) && r.is_subtype(d, b) && r.is_subtype(d, c) && r.is_subtype(c, a));
        assert!(!r.is_subtype(a, d) && !r.is_subtype(b, c));
        // A final type differs from an otherwise equal one that is not.
        let a_final = r.register_sub_group(&[struct_type(true, None, &[])])[0];
        assert_ne!(a_final, a);
        assert!(!r.is_subtype(a_final, a) && !r.is_subtype(a, a_final));
        assert!(r.lookup_sub(c).unwrap().as_struct().is_some());
        assert!(r.lookup(c).unwrap().params.is_empty());
        // Every use released frees everything, supertypes last.
        for id in [a, b, c, d, c, d, b, a_final] {
            r.release(id);
        }
        assert!(r.is_empty(), "{} types left", r.len());
    }

    #[test]
    fn plain_function_groups_keep_their_ids() {
        let r = TypeRegistry::new();
        let f = WasmFuncType::new(vec![WasmValType::I32], vec![]);
        let plain = r.register(&f);
        assert_eq!(r.register_sub_group(&[WasmSubType::func(f.clone())]), vec![plain]);
        let pair = r.register_group(&[f.clone(), f.clone()]);
        assert_eq!(
            r.register_sub_group(&[WasmSubType::func(f.clone()), WasmSubType::func(f.clone())]),
            pair
        );
        // The same function type, not final, is another type.
        let open = WasmSubType {
            is_final: false,
            ..WasmSubType::func(f.clone())
        };
        let open = r.register_sub_group(&[open])[0];
        assert_ne!(open, plain);
        assert_eq!(r.lookup(open).as_deref(), Some(&f));
        // A self-referencing function type: RecGroup(0) is RecSelf.
        let self_ref = ref_to(true, WasmHeapType::ConcreteFunc(EngineOrModuleTypeIndex::RecSelf));
        let rec = r.register(&WasmFuncType::new(vec![self_ref], vec![]));
        let via_group = WasmFuncType::new(
            vec![ref_to(
                true,
                WasmHeapType::ConcreteFunc(EngineOrModuleTypeIndex::RecGroup(0)),
            )],
            vec![],
        );
        assert_eq!(r.register_sub_group(&[WasmSubType::func(via_group)]), vec![rec]);
    }

    #[test]
    fn exact_references_are_other_types_and_match_only_their_own_type() {
        use weft_environ::WasmRefType;
        let r = TypeRegistry::new();
        // (type $a (sub (struct))) (type $b (sub $a (struct)))
        let a = r.register_sub_group(&[struct_type(false, None, &[])])[0];
        let b = r.register_sub_group(&[struct_type(false, Some(EngineOrModuleTypeIndex::Engine(a.0)), &[])])[0];
        let to = |i: VMSharedTypeIndex, exact: bool| WasmRefType {
            nullable: true,
            heap_type: WasmHeapType::ConcreteStruct(EngineOrModuleTypeIndex::Engine(i.0)),
            exact,
        };
        // A field of `(ref null (exact $a))` makes another type than one of
        // `(ref null $a)`.
        let inexact_field = r.register_sub_group(&[struct_type(true, None, &[WasmValType::Ref(to(a, false))])])[0];
        let exact_field = r.register_sub_group(&[struct_type(true, None, &[WasmValType::Ref(to(a, true))])])[0];
        assert_ne!(inexact_field, exact_field);
        assert_eq!(
            r.register_sub_group(&[struct_type(true, None, &[WasmValType::Ref(to(a, true))])]),
            vec![exact_field]
        );
        let mut declared = |x: EngineOrModuleTypeIndex, y: EngineOrModuleTypeIndex| match (x, y) {
            (EngineOrModuleTypeIndex::Engine(x), EngineOrModuleTypeIndex::Engine(y)) => {
                r.is_subtype(VMSharedTypeIndex(x), VMSharedTypeIndex(y))
            }
            _ => false,
        };
        // exact $b <: $b <: $a, exact $b <: $a, but not exact $b <: exact $a.
        assert!(to(b, true).matches_with(&to(b, false), &mut declared));
        assert!(to(b, true).matches_with(&to(a, false), &mut declared));
        assert!(to(b, true).matches_with(&to(b, true), &mut declared));
        assert!(!to(b, true).matches_with(&to(a, true), &mut declared));
        assert!(!to(b, false).matches_with(&to(b, true), &mut declared));
        // The bottom type is below every exact type of its hierarchy.
        let none = WasmRefType::new(true, WasmHeapType::None);
        assert!(none.matches_with(&to(a, true), &mut declared));
        assert!(!WasmRefType::new(true, WasmHeapType::NoFunc).matches_with(&to(a, true), &mut declared));
        for id in [exact_field, exact_field, inexact_field, b, a] {
            r.release(id);
        }
        assert!(r.is_empty(), "{} types left", r.len());
    }

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
        let reference = WasmValType::Ref(WasmRefType::new(
            false,
            WasmHeapType::ConcreteFunc(EngineOrModuleTypeIndex::Engine(inner.0)),
        ));
        let outer = r.register(&WasmFuncType::new(vec![reference], vec![]));
        r.release(inner);
        assert!(r.lookup(inner).is_some());
        r.release(outer);
        assert!(r.lookup(inner).is_none());
        assert!(r.is_empty());
    }
}

//! The engine-wide registry of component types.
//!
//! Component translation interns types in a registry of its own
//! ([`ComponentTypes`], one per component). Registering a component's
//! registry here maps each of its types to an engine-wide id: the type is
//! rebuilt with the engine ids of the types it names and hash-consed, so
//! structurally equal types of *different* components get the same id, and
//! comparing two types of any components is one integer compare.
//!
//! Resource types are identities, not structure: each resource of a
//! registered component gets an engine id of its own, so a type that names a
//! resource is equal only to types of the same component that name the same
//! resource.
//!
//! Entries are reference counted: a registration holds one reference to the
//! engine entry of each of its types (and a component's registry contains
//! every type its types name, so an entry never outlives an entry it names).
//! [`ComponentTypeRegistry::unregister`] releases them, and an entry is
//! freed when its count reaches zero. Ids are never reused.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use weft_environ::component::types::{
    AbstractResourceIndex, AnyType, ComponentType, ComponentTypes, DefinedType, FuncType, InstanceType, InterfaceType,
    ItemType, ModuleType, ResourceType, TypeComponentIndex, TypeDefinedIndex, TypeFuncIndex, TypeInstanceIndex,
    TypeModuleIndex, TypeResourceIndex,
};

/// A hash-consing table whose entries count their references.
struct Table<T> {
    by_value: HashMap<T, u32>,
    by_id: HashMap<u32, (T, usize)>,
    next: u32,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table {
            by_value: HashMap::new(),
            by_id: HashMap::new(),
            next: 0,
        }
    }
}

impl<T: Clone + Eq + Hash> Table<T> {
    /// One more reference to `value`'s entry, made if needed.
    fn acquire(&mut self, value: T) -> u32 {
        if let Some(&id) = self.by_value.get(&value) {
            if let Some((_, refs)) = self.by_id.get_mut(&id) {
                *refs += 1;
            }
            return id;
        }
        let id = self.next;
        self.next += 1;
        self.by_value.insert(value.clone(), id);
        self.by_id.insert(id, (value, 1));
        id
    }

    /// One reference fewer to entry `id`; freed at zero.
    fn release(&mut self, id: u32) {
        let Some((value, refs)) = self.by_id.get_mut(&id) else {
            return;
        };
        *refs -= 1;
        if *refs == 0 {
            let value = value.clone();
            self.by_id.remove(&id);
            self.by_value.remove(&value);
        }
    }

    fn get(&self, id: u32) -> Option<&T> {
        self.by_id.get(&id).map(|(v, _)| v)
    }
}

#[derive(Default)]
struct Inner {
    defined: Table<DefinedType>,
    funcs: Table<FuncType>,
    instances: Table<InstanceType>,
    components: Table<ComponentType>,
    modules: Table<ModuleType>,
    resources: Table<ResourceType>,
    next_resource: u32,
}

/// The engine ids of one component's types, by the component's own type
/// indices. Made by [`ComponentTypeRegistry::register`]; give it back to
/// [`ComponentTypeRegistry::unregister`] when the component is dropped.
#[derive(Debug, Default)]
pub struct RegisteredTypes {
    defined: Box<[TypeDefinedIndex]>,
    funcs: Box<[TypeFuncIndex]>,
    instances: Box<[TypeInstanceIndex]>,
    components: Box<[TypeComponentIndex]>,
    modules: Box<[TypeModuleIndex]>,
    resources: Box<[TypeResourceIndex]>,
}

macro_rules! lookups {
    ($($(#[$doc:meta])* $name:ident: $index:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(&self, index: $index) -> Option<$index> {
            self.$name.get(index.0 as usize).copied()
        }
    )*};
}

impl RegisteredTypes {
    lookups! {
        /// The engine id of the component's defined value type `index`.
        defined: TypeDefinedIndex;
        /// The engine id of the component's function type `index`.
        funcs: TypeFuncIndex;
        /// The engine id of the component's instance type `index`.
        instances: TypeInstanceIndex;
        /// The engine id of the component's component type `index`.
        components: TypeComponentIndex;
        /// The engine id of the component's core module type `index`.
        modules: TypeModuleIndex;
        /// The engine id of the component's resource type `index`.
        resources: TypeResourceIndex;
    }

    /// The engine id of one of the component's value types: the type
    /// itself, with the engine ids of the types it names.
    pub fn value(&self, ty: InterfaceType) -> Option<InterfaceType> {
        Some(match ty {
            InterfaceType::Defined(d) => InterfaceType::Defined(self.defined(d)?),
            InterfaceType::Own(r) => InterfaceType::Own(self.resources(r)?),
            InterfaceType::Borrow(r) => InterfaceType::Borrow(self.resources(r)?),
            other => other,
        })
    }

    /// The engine id of one of the component's item types.
    pub fn item(&self, ty: ItemType) -> Option<ItemType> {
        Some(match ty {
            ItemType::Module(m) => ItemType::Module(self.modules(m)?),
            ItemType::Func(f) => ItemType::Func(self.funcs(f)?),
            ItemType::Value(v) => ItemType::Value(self.value(v)?),
            ItemType::Type(t) => ItemType::Type(self.any(t)?),
            ItemType::Instance(i) => ItemType::Instance(self.instances(i)?),
            ItemType::Component(c) => ItemType::Component(self.components(c)?),
        })
    }

    /// The engine id of one of the component's types.
    pub fn any(&self, ty: AnyType) -> Option<AnyType> {
        Some(match ty {
            AnyType::Value(v) => AnyType::Value(self.value(v)?),
            AnyType::Func(f) => AnyType::Func(self.funcs(f)?),
            AnyType::Instance(i) => AnyType::Instance(self.instances(i)?),
            AnyType::Component(c) => AnyType::Component(self.components(c)?),
            AnyType::Resource(r) => AnyType::Resource(self.resources(r)?),
        })
    }
}

/// The component types of one engine. Shared by every component the engine
/// compiles; all methods take `&self`.
#[derive(Default)]
pub struct ComponentTypeRegistry {
    inner: Mutex<Inner>,
}

/// Maps the types of one component registry to engine ids, memoized.
struct Mapper<'a> {
    local: &'a ComponentTypes,
    inner: &'a mut Inner,
    ids: RegisteredTypes,
    done: [Vec<bool>; 5],
}

impl Mapper<'_> {
    fn value(&mut self, ty: InterfaceType) -> InterfaceType {
        match ty {
            InterfaceType::Defined(d) => InterfaceType::Defined(self.defined(d)),
            InterfaceType::Own(r) => InterfaceType::Own(self.resource(r)),
            InterfaceType::Borrow(r) => InterfaceType::Borrow(self.resource(r)),
            other => other,
        }
    }

    fn resource(&mut self, r: TypeResourceIndex) -> TypeResourceIndex {
        // Every resource was given an engine id before any other type.
        self.ids.resources.get(r.0 as usize).copied().unwrap_or(r)
    }

    fn defined(&mut self, d: TypeDefinedIndex) -> TypeDefinedIndex {
        let i = d.0 as usize;
        if self.done[0].get(i) == Some(&true) {
            return self.ids.defined[i];
        }
        let Some(def) = self.local.defined(d).cloned() else {
            return d;
        };
        let def = def.map_types(&mut |t| self.value(t));
        let id = TypeDefinedIndex(self.inner.defined.acquire(def));
        self.ids.defined[i] = id;
        self.done[0][i] = true;
        id
    }

    fn func(&mut self, f: TypeFuncIndex) -> TypeFuncIndex {
        let i = f.0 as usize;
        if self.done[1].get(i) == Some(&true) {
            return self.ids.funcs[i];
        }
        let Some(ty) = self.local.func(f).cloned() else {
            return f;
        };
        let ty = FuncType {
            is_async: ty.is_async,
            params: ty.params.iter().map(|(n, t)| (n.clone(), self.value(*t))).collect(),
            result: ty.result.map(|t| self.value(t)),
        };
        let id = TypeFuncIndex(self.inner.funcs.acquire(ty));
        self.ids.funcs[i] = id;
        self.done[1][i] = true;
        id
    }

    fn items(&mut self, items: &[(String, ItemType)]) -> Box<[(String, ItemType)]> {
        items.iter().map(|(n, t)| (n.clone(), self.item(*t))).collect()
    }

    fn item(&mut self, ty: ItemType) -> ItemType {
        match ty {
            ItemType::Module(m) => ItemType::Module(self.module(m)),
            ItemType::Func(f) => ItemType::Func(self.func(f)),
            ItemType::Value(v) => ItemType::Value(self.value(v)),
            ItemType::Type(t) => ItemType::Type(self.any(t)),
            ItemType::Instance(i) => ItemType::Instance(self.instance(i)),
            ItemType::Component(c) => ItemType::Component(self.component(c)),
        }
    }

    fn any(&mut self, ty: AnyType) -> AnyType {
        match ty {
            AnyType::Value(v) => AnyType::Value(self.value(v)),
            AnyType::Func(f) => AnyType::Func(self.func(f)),
            AnyType::Instance(i) => AnyType::Instance(self.instance(i)),
            AnyType::Component(c) => AnyType::Component(self.component(c)),
            AnyType::Resource(r) => AnyType::Resource(self.resource(r)),
        }
    }

    fn instance(&mut self, x: TypeInstanceIndex) -> TypeInstanceIndex {
        let i = x.0 as usize;
        if self.done[2].get(i) == Some(&true) {
            return self.ids.instances[i];
        }
        let Some(ty) = self.local.instance(x).cloned() else {
            return x;
        };
        let ty = InstanceType {
            exports: self.items(&ty.exports),
        };
        let id = TypeInstanceIndex(self.inner.instances.acquire(ty));
        self.ids.instances[i] = id;
        self.done[2][i] = true;
        id
    }

    fn component(&mut self, x: TypeComponentIndex) -> TypeComponentIndex {
        let i = x.0 as usize;
        if self.done[3].get(i) == Some(&true) {
            return self.ids.components[i];
        }
        let Some(ty) = self.local.component(x).cloned() else {
            return x;
        };
        let ty = ComponentType {
            imports: self.items(&ty.imports),
            exports: self.items(&ty.exports),
        };
        let id = TypeComponentIndex(self.inner.components.acquire(ty));
        self.ids.components[i] = id;
        self.done[3][i] = true;
        id
    }

    fn module(&mut self, x: TypeModuleIndex) -> TypeModuleIndex {
        let i = x.0 as usize;
        if self.done[4].get(i) == Some(&true) {
            return self.ids.modules[i];
        }
        let Some(ty) = self.local.module(x).cloned() else {
            return x;
        };
        let id = TypeModuleIndex(self.inner.modules.acquire(ty));
        self.ids.modules[i] = id;
        self.done[4][i] = true;
        id
    }
}

impl ComponentTypeRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers every type of `local` (one component's registry) and
    /// returns their engine ids. Balance each call with one
    /// [`ComponentTypeRegistry::unregister`].
    pub fn register(&self, local: &ComponentTypes) -> RegisteredTypes {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let [defined, funcs, instances, components, modules, resources] = local.counts();
        let mut ids = RegisteredTypes {
            defined: vec![TypeDefinedIndex(0); defined].into(),
            funcs: vec![TypeFuncIndex(0); funcs].into(),
            instances: vec![TypeInstanceIndex(0); instances].into(),
            components: vec![TypeComponentIndex(0); components].into(),
            modules: vec![TypeModuleIndex(0); modules].into(),
            resources: vec![TypeResourceIndex(0); resources].into(),
        };
        // Each resource of the component is an identity of its own.
        for r in ids.resources.iter_mut() {
            let fresh = AbstractResourceIndex(inner.next_resource);
            inner.next_resource += 1;
            *r = TypeResourceIndex(inner.resources.acquire(ResourceType::Abstract(fresh)));
        }
        let mut mapper = Mapper {
            local,
            inner: &mut inner,
            ids,
            done: [
                vec![false; defined],
                vec![false; funcs],
                vec![false; instances],
                vec![false; components],
                vec![false; modules],
            ],
        };
        for i in 0..defined {
            mapper.defined(TypeDefinedIndex(i as u32));
        }
        for i in 0..funcs {
            mapper.func(TypeFuncIndex(i as u32));
        }
        for i in 0..instances {
            mapper.instance(TypeInstanceIndex(i as u32));
        }
        for i in 0..components {
            mapper.component(TypeComponentIndex(i as u32));
        }
        for i in 0..modules {
            mapper.module(TypeModuleIndex(i as u32));
        }
        mapper.ids
    }

    /// Releases the references [`ComponentTypeRegistry::register`] took.
    pub fn unregister(&self, ids: &RegisteredTypes) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        for id in ids.defined.iter() {
            inner.defined.release(id.0);
        }
        for id in ids.funcs.iter() {
            inner.funcs.release(id.0);
        }
        for id in ids.instances.iter() {
            inner.instances.release(id.0);
        }
        for id in ids.components.iter() {
            inner.components.release(id.0);
        }
        for id in ids.modules.iter() {
            inner.modules.release(id.0);
        }
        for id in ids.resources.iter() {
            inner.resources.release(id.0);
        }
    }

    /// The function type with engine id `id`, if it is registered.
    pub fn func(&self, id: TypeFuncIndex) -> Option<FuncType> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.funcs.get(id.0).cloned()
    }

    /// The defined value type with engine id `id`, if it is registered.
    pub fn defined(&self, id: TypeDefinedIndex) -> Option<DefinedType> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.defined.get(id.0).cloned()
    }

    /// The number of registered entries of every kind together.
    pub fn len(&self) -> usize {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.defined.by_id.len()
            + inner.funcs.by_id.len()
            + inner.instances.by_id.len()
            + inner.components.by_id.len()
            + inner.modules.by_id.len()
            + inner.resources.by_id.len()
    }

    /// Whether nothing is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_environ::component::types::Field;

    fn record(types: &mut ComponentTypes, field: InterfaceType) -> TypeDefinedIndex {
        types.intern_defined(DefinedType::Record(
            [Field {
                name: "a".into(),
                ty: field,
            }]
            .into(),
        ))
    }

    #[test]
    fn equal_types_of_two_components_get_one_id() {
        let registry = ComponentTypeRegistry::new();
        let mut a = ComponentTypes::new();
        // Different local indices for the same structure.
        a.intern_defined(DefinedType::List(InterfaceType::U8));
        let ra = record(&mut a, InterfaceType::String);
        let fa = a.intern_func(FuncType {
            is_async: false,
            params: [("x".to_string(), InterfaceType::Defined(ra))].into(),
            result: None,
        });
        let mut b = ComponentTypes::new();
        let rb = record(&mut b, InterfaceType::String);
        let fb = b.intern_func(FuncType {
            is_async: false,
            params: [("x".to_string(), InterfaceType::Defined(rb))].into(),
            result: None,
        });
        let other = record(&mut b, InterfaceType::U32);
        let ia = registry.register(&a);
        let ib = registry.register(&b);
        assert_ne!(ra, rb);
        assert_eq!(ia.defined(ra), ib.defined(rb));
        assert_eq!(ia.funcs(fa), ib.funcs(fb));
        assert_ne!(ib.defined(other), ib.defined(rb));
        let f = registry.func(ia.funcs(fa).unwrap()).unwrap();
        assert_eq!(f.params[0].1, InterfaceType::Defined(ia.defined(ra).unwrap()));
    }

    #[test]
    fn resources_of_two_components_differ() {
        let registry = ComponentTypeRegistry::new();
        let mut a = ComponentTypes::new();
        let r = a.fresh_abstract_resource();
        let own = record(&mut a, InterfaceType::Own(r));
        let ia = registry.register(&a);
        let ib = registry.register(&a);
        assert_ne!(ia.resources(r), ib.resources(r));
        assert_ne!(ia.defined(own), ib.defined(own));
        // Within one registration, the same resource is the same identity.
        assert_eq!(ia.value(InterfaceType::Own(r)), ia.value(InterfaceType::Own(r)));
    }

    #[test]
    fn entries_are_freed_when_the_last_registration_goes() {
        let registry = ComponentTypeRegistry::new();
        let mut a = ComponentTypes::new();
        let list = a.intern_defined(DefinedType::List(InterfaceType::String));
        a.intern_instance(InstanceType {
            exports: [(
                "l".to_string(),
                ItemType::Type(AnyType::Value(InterfaceType::Defined(list))),
            )]
            .into(),
        });
        let first = registry.register(&a);
        let count = registry.len();
        assert_eq!(count, 2);
        let second = registry.register(&a);
        assert_eq!(registry.len(), count);
        registry.unregister(&first);
        assert_eq!(registry.len(), count);
        let id = second.defined(list).unwrap();
        assert!(registry.defined(id).is_some());
        registry.unregister(&second);
        assert!(registry.is_empty());
        assert!(registry.defined(id).is_none());
        // Ids are not reused.
        let third = registry.register(&a);
        assert_ne!(third.defined(list), Some(id));
    }
}

//! What script runners (`weft wast`) need beyond the rest of the API, as
//! Wasmtime offers it: [`Linker::define_unknown_imports_as_traps`] and the
//! arity of a [`Func`].

use super::linker::{Definition, HostFunc};
use super::{Component, Func, Linker};
use std::collections::BTreeMap;
use std::sync::Arc;
use weft_environ::component::{ComponentTypes, ItemType};

impl<T: 'static> Linker<T> {
    /// Defines every import of `component` that the linker does not define
    /// yet as a function that fails when called (with an error naming the
    /// import), as Wasmtime's `Linker::define_unknown_imports_as_traps`.
    ///
    /// Function imports, and the functions of instance imports (at any
    /// depth), are defined; imports of other kinds (core modules,
    /// components, types) are left alone, so instantiation still fails on
    /// them. A name already defined as something else is left alone too.
    pub fn define_unknown_imports_as_traps(&mut self, component: &Component) -> crate::Result<()> {
        let types = &*component.inner.types;
        for import in &component.inner.plan.imports {
            define_trap(&mut self.root, &import.name, &import.name, import.ty, types, 0);
        }
        Ok(())
    }
}

/// How deep instance types are followed (their nesting is finite; this only
/// bounds the recursion on malformed type registries).
const MAX_DEPTH: usize = 64;

fn define_trap<T: 'static>(
    map: &mut BTreeMap<String, Definition<T>>,
    name: &str,
    path: &str,
    ty: ItemType,
    types: &ComponentTypes,
    depth: usize,
) {
    match ty {
        ItemType::Func(f) if !map.contains_key(name) => {
            let path = path.to_string();
            #[cfg(feature = "component-model-async")]
            if types.func(f).is_some_and(|t| t.is_async) {
                let func: super::linker::ConcurrentHostFunc<T> =
                    Arc::new(move |_, _, _, _| crate::bail!("unknown import: `{path}` has not been defined"));
                map.insert(name.to_string(), Definition::ConcurrentFunc(func, None));
                return;
            }
            let _ = f;
            let func: HostFunc<T> =
                Arc::new(move |_, _, _, _| crate::bail!("unknown import: `{path}` has not been defined"));
            map.insert(name.to_string(), Definition::Func(func, None, None));
        }
        ItemType::Instance(index) if depth < MAX_DEPTH => {
            let Some(instance) = types.instance(index) else {
                return;
            };
            let def = map
                .entry(name.to_string())
                .or_insert_with(|| Definition::Instance(BTreeMap::new()));
            if let Definition::Instance(inner) = def {
                for (export, ty) in instance.exports.iter() {
                    let path = format!("{path}#{export}");
                    define_trap(inner, export, &path, *ty, types, depth + 1);
                }
            }
        }
        _ => {}
    }
}

impl Func {
    /// How many parameters and results (zero or one) the function has, or
    /// `None` if it does not belong to `store`.
    pub fn arity(&self, mut store: impl crate::AsContextMut) -> Option<(usize, usize)> {
        let store = store.as_context_mut();
        let opaque = store.0.opaque();
        opaque.check(self.store, "component function").ok()?;
        let f = opaque.components.funcs.get(self.index as usize)?;
        let ty = f.types.func(f.ty)?;
        Some((ty.params.len(), usize::from(ty.result.is_some())))
    }
}

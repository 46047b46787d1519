//! `InstancePre`: a component with its imports resolved, ready to be
//! instantiated many times.

use super::linker::Definition;
use super::{Component, Instance, Linker};
use crate::{AsContextMut, Engine};

/// A component whose imports a [`Linker`] has resolved: instantiating it
/// again does no name lookups. Made by [`Linker::instantiate_pre`].
pub struct InstancePre<T: 'static> {
    component: Component,
    imports: Vec<Definition<T>>,
    /// The definition of each runtime import, found ahead.
    runtime: Vec<Definition<T>>,
    /// The definition of each imported resource, found ahead.
    resources: Vec<Definition<T>>,
}

impl<T: 'static> Clone for InstancePre<T> {
    fn clone(&self) -> Self {
        InstancePre {
            component: self.component.clone(),
            imports: self.imports.clone(),
            runtime: self.runtime.clone(),
            resources: self.resources.clone(),
        }
    }
}

impl<T: 'static> Linker<T> {
    /// Resolves the imports of `component` with this linker's definitions,
    /// failing (naming the import) when one is missing or of the wrong
    /// kind.
    pub fn instantiate_pre(&self, component: &Component) -> crate::Result<InstancePre<T>> {
        if !Engine::same(component.engine(), self.engine()) {
            crate::bail!("the component was compiled for another engine than the linker's");
        }
        let imports = self.resolve_imports(component)?;
        let (runtime, resources) = super::instance::resolve_ahead(component, &imports);
        Ok(InstancePre {
            component: component.clone(),
            imports,
            runtime,
            resources,
        })
    }
}

impl<T: 'static> InstancePre<T> {
    /// The component this pre-instance instantiates.
    pub fn component(&self) -> &Component {
        &self.component
    }

    /// Instantiates the component in `store`.
    pub fn instantiate(&self, mut store: impl AsContextMut<Data = T>) -> crate::Result<Instance> {
        let store = store.as_context_mut();
        if !Engine::same(self.component.engine(), store.engine()) {
            crate::bail!("the component was compiled for another engine than the store's");
        }
        let imports = super::instance::Imports {
            roots: &self.imports,
            runtime: &self.runtime,
            resources: &self.resources,
        };
        super::instance::instantiate(store, &self.component, imports)
    }
}

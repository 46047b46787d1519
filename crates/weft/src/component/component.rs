//! `Component`: a compiled component, ready to be instantiated.

use crate::{Engine, Module};
use std::path::Path;
use std::sync::Arc;
use weft_environ::component::{self as env, ComponentTypes};

/// A compiled WebAssembly component: its core modules compiled, its
/// instantiation plan and its types. Cheap to clone and shareable across
/// threads, like [`crate::Module`].
#[derive(Clone)]
pub struct Component {
    pub(crate) inner: Arc<ComponentInner>,
}

pub(crate) struct ComponentInner {
    pub(crate) engine: Engine,
    /// The instantiation plan, imports and exports.
    pub(crate) plan: env::Component,
    /// The types every type index of `plan` points into.
    pub(crate) types: Arc<ComponentTypes>,
    /// The compiled core modules, by `StaticModuleIndex`.
    pub(crate) modules: Vec<Module>,
}

impl std::fmt::Debug for Component {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Component")
            .field("imports", &self.inner.plan.imports.len())
            .field("exports", &self.inner.plan.exports.len())
            .field("modules", &self.inner.modules.len())
            .finish()
    }
}

impl Component {
    /// Compiles a component from its binary or, with the `wat` feature,
    /// its text format.
    pub fn new(engine: &Engine, bytes: impl AsRef<[u8]>) -> crate::Result<Component> {
        let bytes = bytes.as_ref();
        #[cfg(feature = "wat")]
        let bytes = wat::parse_bytes(bytes)?;
        Component::from_binary(engine, &bytes)
    }

    /// Compiles the component in the file at `path` (binary or text).
    pub fn from_file(engine: &Engine, path: impl AsRef<Path>) -> crate::Result<Component> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| crate::format_err!("failed to read `{}`: {e}", path.display()))?;
        Component::new(engine, bytes).map_err(|e| e.context(format!("failed to compile `{}`", path.display())))
    }

    /// Compiles a component from its binary format. A core module's bytes
    /// are refused: use [`crate::Module`] for those.
    pub fn from_binary(engine: &Engine, binary: &[u8]) -> crate::Result<Component> {
        let features = engine.inner.config.features | weft_environ::component::supported_component_features();
        let translation = env::translate_component(binary, features)?;
        let mut modules = Vec::with_capacity(translation.modules.len());
        for m in translation.modules {
            let module = Module::compile_translation(engine, m.translation, m.bytes)
                .map_err(|e| e.context(format!("in the core module at offset {:#x}", m.offset)))?;
            modules.push(module);
        }
        Ok(Component {
            inner: Arc::new(ComponentInner {
                engine: engine.clone(),
                plan: translation.component,
                types: Arc::new(translation.types),
                modules,
            }),
        })
    }

    /// The engine this component was compiled for.
    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// The component's type: its imports and exports.
    pub fn component_type(&self) -> super::types::Component {
        super::types::Component::root(&self.inner.types, &self.inner.plan)
    }

    /// The names of the component's imports, in order.
    pub fn import_names(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.inner.plan.imports.iter().map(|i| i.name.as_str())
    }

    /// The names of the component's exports, in order.
    pub fn export_names(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.inner.plan.exports.iter().map(|(n, _)| n.as_str())
    }
}

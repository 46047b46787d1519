//! `Component`: a compiled component, ready to be instantiated.

use crate::{Engine, Module};
use std::path::Path;
use std::sync::{Arc, OnceLock};
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
    /// `types` registered with the engine: what the public types hold.
    pub(crate) type_space: Arc<super::types::TypeSpace>,
    /// The type of each export of the root that has one, in order.
    pub(crate) export_types: Arc<[(String, env::ItemType)]>,
    /// The compiled core modules, by `StaticModuleIndex`.
    pub(crate) modules: Vec<Module>,
    /// The fused adapter of each component-to-component
    /// `Lower` step, by step index.
    pub(crate) adapters: std::collections::HashMap<usize, Module>,
    /// The core function type of each step that makes a host function (a
    /// `Lower` of a host function, `resource.new`, `.rep`, `.drop`), by step
    /// index: made on the first instantiation and shared by the later ones.
    pub(crate) lowered: Box<[OnceLock<LoweredCore>]>,
    /// About how many functions an instance adds to its store (those of
    /// its static core modules and adapters, and one per step that may make
    /// a host function): instantiation reserves room for them at once.
    pub(crate) store_funcs: usize,
    /// How many of those are host functions (see [`ComponentInner::host_funcs`]).
    pub(crate) host_funcs: usize,
}

/// What every instance's core function of one step (a `canon lower` of a
/// host function, or a resource built-in) shares: its core type (registered
/// once with the engine) and its wasm-to-host trampoline.
pub(crate) struct LoweredCore {
    /// The flattened core signature.
    pub(crate) ty: Arc<crate::FuncType>,
    /// Its parameter types, for host functions of flat values.
    pub(crate) params: Arc<[crate::ValType]>,
    /// The trampoline of `ty`, found on first use.
    pub(crate) trampoline: OnceLock<crate::func::HostTrampoline>,
    /// The closure of the step's typed host function, made by the first
    /// instantiation (an `instance::SharedLowered<T>`): later ones with the
    /// same host function share it, each with its own options in the store.
    pub(crate) host: OnceLock<Box<dyn std::any::Any + Send + Sync>>,
}

impl ComponentInner {
    /// One empty slot per step of `plan`, for [`ComponentInner::lowered`].
    pub(crate) fn lowered_slots(plan: &env::Component) -> Box<[OnceLock<LoweredCore>]> {
        plan.steps.iter().map(|_| OnceLock::new()).collect()
    }

    /// The value of [`ComponentInner::store_funcs`] for `plan`, whose core
    /// modules (static ones and fused adapters) are `modules`.
    pub(crate) fn store_funcs<'a>(plan: &env::Component, modules: impl IntoIterator<Item = &'a Module>) -> usize {
        let defined: usize = modules
            .into_iter()
            .map(|m| {
                m.inner
                    .env
                    .functions
                    .len()
                    .saturating_sub(m.inner.env.num_imported_funcs as usize)
            })
            .sum();
        defined + Self::host_funcs(plan)
    }

    /// How many steps of `plan` may each make a host function (lowerings,
    /// built-ins): an instance adds at most that many to its store.
    pub(crate) fn host_funcs(plan: &env::Component) -> usize {
        plan.steps
            .iter()
            .filter(|s| !matches!(s, env::Step::InstantiateModule { .. } | env::Step::AliasExport { .. }))
            .count()
    }

    /// The shared core function type of the step `step`, made with `make`
    /// the first time.
    pub(crate) fn lowered_core(
        &self,
        step: usize,
        make: impl FnOnce() -> crate::Result<crate::FuncType>,
    ) -> crate::Result<&LoweredCore> {
        let slot = self
            .lowered
            .get(step)
            .ok_or_else(|| crate::format_err!("the plan has no step {step}"))?;
        if let Some(core) = slot.get() {
            return Ok(core);
        }
        let ty = make()?;
        let core = LoweredCore {
            params: ty.params().collect(),
            ty: Arc::new(ty),
            trampoline: OnceLock::new(),
            host: OnceLock::new(),
        };
        // Another thread may have made it meanwhile: either is the same.
        Ok(slot.get_or_init(|| core))
    }
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
        let bytes = std::borrow::Cow::Borrowed(bytes.as_ref());
        #[cfg(feature = "wat")]
        let bytes = wat::parse_bytes(&bytes)?;
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
        let features = component_features(&engine.inner.config);
        let translation = env::translate_component(binary, features)?;
        let module_types: Vec<env::ModuleType> = translation
            .modules
            .iter()
            .map(|m| env::ModuleType::of_module(&m.translation.module))
            .collect();
        let mut modules = Vec::with_capacity(translation.modules.len());
        for m in translation.modules {
            let module = Module::compile_translation(engine, m.translation)
                .map_err(|e| e.context(format!("in the core module at offset {:#x}", m.offset)))?;
            modules.push(module);
        }
        let adapters = compile_adapters(engine, &translation.component, &translation.types)?;
        let mut types = translation.types;
        let export_types = translation
            .component
            .exports
            .iter()
            .filter_map(|(n, e)| {
                export_type(&mut types, &translation.component, &module_types, e).map(|t| (n.clone(), t))
            })
            .collect();
        let types = Arc::new(types);
        let type_space = Arc::new(super::types::TypeSpace::new(engine, types.clone()));
        Ok(Component {
            inner: Arc::new(ComponentInner {
                engine: engine.clone(),
                lowered: ComponentInner::lowered_slots(&translation.component),
                store_funcs: ComponentInner::store_funcs(
                    &translation.component,
                    modules.iter().chain(adapters.values()),
                ),
                host_funcs: ComponentInner::host_funcs(&translation.component),
                plan: translation.component,
                types,
                type_space,
                export_types,
                modules,
                adapters,
            }),
        })
    }

    /// How many component-to-component calls of this component go through
    /// a fused adapter: every one.
    #[doc(hidden)]
    pub fn fused_adapters(&self) -> usize {
        self.inner.adapters.len()
    }

    /// The engine this component was compiled for.
    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// The component's type: its imports and exports.
    pub fn component_type(&self) -> super::types::Component {
        super::types::Component::root(&self.inner.type_space, &self.inner.plan, &self.inner.export_types)
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

/// The features a component is validated with: the engine's core
/// features, the component-model extensions Weft always accepts (those of
/// `supported_component_features` other than the component model itself and
/// GC, which follows `Config::wasm_gc`), and the component model and its
/// async, threading and error-context extensions as the
/// `Config::wasm_component_model*` switches set them.
pub(crate) fn component_features(config: &crate::Config) -> wasmparser::WasmFeatures {
    use wasmparser::WasmFeatures as F;
    let always = env::supported_component_features().difference(F::COMPONENT_MODEL | F::GC);
    config.features | always | config.component_features
}

/// The type of an export of the root: functions and types as the plan
/// records them, instances of exports with an instance type made of their
/// items' types, items of the imports (instances, core modules) with the
/// type the import declares, and the component's own core modules with the
/// type of their imports and exports (`module_types`, by static module
/// index). `None` only for an export the plan does not resolve.
fn export_type(
    types: &mut ComponentTypes,
    plan: &env::Component,
    module_types: &[env::ModuleType],
    e: &env::Export,
) -> Option<env::ItemType> {
    use env::{Export, ItemType, ModuleRef};
    // The type of an import of the root, or of an item inside one.
    let imported = |types: &ComponentTypes, at: &env::RuntimeImportIndex| {
        let at = plan.runtime_imports.get(at.0 as usize)?;
        let mut ty = plan.imports.get(at.import.0 as usize)?.ty;
        for name in at.path.iter() {
            ty = match ty {
                ItemType::Instance(i) => types.instance(i)?.export(name)?,
                _ => return None,
            };
        }
        Some(ty)
    };
    match e {
        Export::LiftedFunction { ty, .. } | Export::ImportedFunction { ty, .. } => Some(ItemType::Func(*ty)),
        Export::Type(t) => Some(ItemType::Type(*t)),
        Export::Instance(items) => {
            let exports = items
                .iter()
                .filter_map(|(n, e)| export_type(types, plan, module_types, e).map(|t| (n.clone(), t)))
                .collect();
            Some(ItemType::Instance(types.intern_instance(env::InstanceType { exports })))
        }
        Export::ImportedInstance(at) | Export::Module(ModuleRef::Import(at)) => imported(types, at),
        Export::Module(ModuleRef::Static(m)) => {
            let ty = module_types.get(m.0 as usize)?.clone();
            Some(ItemType::Module(types.intern_module(ty)))
        }
    }
}

/// Compiles the fused adapters of `plan`, one module per function type and
/// pair of canonical options ([`super::adapter::Sides`]); fails when one
/// cannot be generated.
fn compile_adapters(
    engine: &Engine,
    plan: &env::Component,
    types: &ComponentTypes,
) -> crate::Result<std::collections::HashMap<usize, Module>> {
    use super::adapter::{Side, Sides};
    let mut by_type: std::collections::HashMap<(env::TypeFuncIndex, Sides), Module> = Default::default();
    let mut out = std::collections::HashMap::new();
    for (i, step) in plan.steps.iter().enumerate() {
        let env::Step::Lower {
            callee: env::LowerCallee::Lifted { options: callee, .. },
            ty,
            options: caller,
            ..
        } = step
        else {
            continue;
        };
        let Some(fty) = types.func(*ty) else {
            crate::bail!("the plan names function type {} that does not exist", ty.0);
        };
        let side = |o: &env::CanonicalOptions| Side {
            encoding: o.string_encoding,
            memory: o.memory.is_some(),
            realloc: o.realloc.is_some(),
            is_async: o.is_async,
            callback: o.callback.is_some(),
        };
        let sides = Sides {
            post_return: callee.post_return.is_some(),
            caller: side(caller),
            callee: side(callee),
        };
        let key = (*ty, sides);
        let module = match by_type.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => e.get().clone(),
            std::collections::hash_map::Entry::Vacant(slot) => {
                let bytes = super::adapter::adapter_module(types, fty, sides)
                    .map_err(|e| crate::format_err!("failed to generate a fused adapter: {e}"))?;
                let module =
                    Module::from_binary(engine, &bytes).map_err(|e| e.context("failed to compile a fused adapter"))?;
                slot.insert(module).clone()
            }
        };
        out.insert(i, module);
    }
    Ok(out)
}

//! Instantiation of components: the steps of the plan run against a store.
//!
//! Core modules are instantiated with [`crate::Instance::new`]; `canon
//! lower` of a host import becomes a host [`crate::Func`] that lifts its
//! arguments, calls the host and lowers the results; `canon lower` of a
//! function lifted by another component of the same plan becomes a host
//! function that lifts with the caller's options and calls the lifted
//! function (which lowers with the callee's options). `canon lift` records
//! a [`LiftedFunc`] in the store.

use super::call::{
    call_lifted, check_may_leave, drop_handle, lift_args_from_core, lift_async_args, lower_async_results,
    lower_sync_results,
};
use super::handles::{enter_call, exit_call, lift_resources};
// Import loop kept on purpose: instantiation resolves a component's imports
// against the linker's definitions, and the linker's `instantiate` makes an
// `Instance`.
use super::linker::{Definition, DirectFunc, HostFunc};
use super::resources::{Handle, HandleTable};
use super::store::{
    ComponentInstanceData, ComponentInstanceRef, DefinedResource, ExportItem, Flags, LiftedFunc, Options,
};
use super::types::{ResourceKind, ResourceType};
use super::{Component, Val};
use crate::{AsContextMut, Extern, StoreContextMut, ValType};
use std::sync::Arc;
use weft_environ::component::abi::{self, AbiOptions, Context, FlatType};
use weft_environ::component::{
    self as env, CanonicalOptions, CoreItemIndex, Export, LowerCallee, ModuleRef, RuntimeImportIndex, Step,
    TypeFuncIndex,
};

/// An instance of a component in a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Instance {
    pub(crate) store: crate::store::StoreId,
    pub(crate) index: u32,
}

/// The index of an export of a component instance, for looking up the
/// exports of an exported instance ([`Instance::get_export_index`]).
#[derive(Debug, Clone)]
pub struct ComponentExportIndex {
    store: crate::store::StoreId,
    instance: u32,
    path: Vec<usize>,
}

impl Instance {
    /// The export `name` of this instance (`instance` `None`), or of the
    /// exported instance `instance`, as an index for further lookups.
    pub fn get_export_index(
        &self,
        mut store: impl AsContextMut,
        instance: Option<&ComponentExportIndex>,
        name: &str,
    ) -> Option<ComponentExportIndex> {
        let store = store.as_context_mut();
        let opaque = store.0.opaque();
        let data = opaque.components.instances.get(self.index as usize)?;
        if opaque.check(self.store, "component instance").is_err() {
            return None;
        }
        let mut exports = &data.exports;
        let mut path = Vec::new();
        if let Some(parent) = instance {
            if parent.store != self.store || parent.instance != self.index {
                return None;
            }
            for &i in &parent.path {
                match exports.get(i) {
                    Some((_, ExportItem::Instance(inner))) => exports = inner,
                    _ => return None,
                }
                path.push(i);
            }
        }
        let i = exports
            .iter()
            .position(|(n, _)| n == name)
            .or_else(|| super::semver::semver_match(name, exports.iter().map(|(n, _)| n.as_str())))?;
        path.push(i);
        Some(ComponentExportIndex {
            store: self.store,
            instance: self.index,
            path,
        })
    }

    fn export_item<'a>(&self, data: &'a ComponentInstanceData, index: &ComponentExportIndex) -> Option<&'a ExportItem> {
        if index.store != self.store || index.instance != self.index {
            return None;
        }
        let (last, parents) = index.path.split_last()?;
        let mut exports: &'a [(String, ExportItem)] = &data.exports;
        for &i in parents {
            match &exports.get(i)?.1 {
                ExportItem::Instance(inner) => exports = inner,
                _ => return None,
            }
        }
        Some(&exports.get(*last)?.1)
    }

    /// The exported function `name` (a name of the root's exports, or a
    /// [`ComponentExportIndex`] from [`Instance::get_export_index`]).
    pub fn get_func(&self, mut store: impl AsContextMut, name: impl InstanceExportLookup) -> Option<super::Func> {
        let store = store.as_context_mut();
        let opaque = store.0.opaque();
        opaque.check(self.store, "component instance").ok()?;
        let data = opaque.components.instances.get(self.index as usize)?;
        let index = name.lookup(self, &store)?;
        match self.export_item(data, &index)? {
            ExportItem::Func(f) => Some(super::Func {
                store: self.store,
                index: *f,
            }),
            _ => None,
        }
    }

    /// The export `name` of this instance (`instance` `None`), or of the
    /// exported instance `instance`: its type and its index for further
    /// lookups, as Wasmtime's `Instance::get_export`. Core modules are
    /// found by [`Instance::get_module`] (they have no recorded type).
    pub fn get_export(
        &self,
        mut store: impl AsContextMut,
        instance: Option<&ComponentExportIndex>,
        name: &str,
    ) -> Option<(super::types::ComponentItem, ComponentExportIndex)> {
        let index = self.get_export_index(&mut store, instance, name)?;
        let store = store.as_context_mut();
        let item = self.item_type(&store, &index)?;
        Some((item, index))
    }

    /// The type of the export at `index`.
    fn item_type<T>(
        &self,
        store: &StoreContextMut<'_, T>,
        index: &ComponentExportIndex,
    ) -> Option<super::types::ComponentItem> {
        use super::types::ComponentItem;
        if index.store != self.store || index.instance != self.index {
            return None;
        }
        let data = store.components().instances.get(self.index as usize)?;
        let root = data.component.component_type();
        let mut exports: &[(String, ExportItem)] = &data.exports;
        let mut item: Option<ComponentItem> = None;
        for &i in &index.path {
            let (n, e) = exports.get(i)?;
            item = Some(match item {
                None => root.get_export(store.engine(), n)?,
                Some(ComponentItem::ComponentInstance(ty)) => ty.get_export(n)?,
                Some(_) => return None,
            });
            if let ExportItem::Instance(inner) = e {
                exports = inner;
            }
        }
        item
    }

    /// The runtime identity of the exported resource type `name` of this
    /// instance (or of the export a [`ComponentExportIndex`] names), as
    /// Wasmtime's `Instance::get_resource`.
    pub fn get_resource(&self, mut store: impl AsContextMut, name: impl InstanceExportLookup) -> Option<ResourceType> {
        let store = store.as_context_mut();
        let index = name.lookup(self, &store)?;
        let super::types::ComponentItem::Resource(ty) = self.item_type(&store, &index)? else {
            return None;
        };
        let data = store.components().instances.get(self.index as usize)?;
        super::types::runtime_resource(&ty, &data.component.inner.type_space, &data.resource_types)
    }

    /// The exported core module `name`, if the export is one.
    pub fn get_module(&self, mut store: impl AsContextMut, name: impl InstanceExportLookup) -> Option<crate::Module> {
        let store = store.as_context_mut();
        let opaque = store.0.opaque();
        opaque.check(self.store, "component instance").ok()?;
        let data = opaque.components.instances.get(self.index as usize)?;
        let index = name.lookup(self, &store)?;
        match self.export_item(data, &index)? {
            ExportItem::Module(m) => Some(m.clone()),
            _ => None,
        }
    }
}

/// A way to name an export: its name, or a [`ComponentExportIndex`].
pub trait InstanceExportLookup {
    #[doc(hidden)]
    fn lookup<T>(&self, instance: &Instance, store: &StoreContextMut<'_, T>) -> Option<ComponentExportIndex>;
    #[doc(hidden)]
    fn describe(&self) -> String;
}

impl InstanceExportLookup for &str {
    fn lookup<T>(&self, instance: &Instance, store: &StoreContextMut<'_, T>) -> Option<ComponentExportIndex> {
        let data = store.components().instances.get(instance.index as usize)?;
        let i = data.exports.iter().position(|(n, _)| n == self)?;
        Some(ComponentExportIndex {
            store: instance.store,
            instance: instance.index,
            path: vec![i],
        })
    }
    fn describe(&self) -> String {
        self.to_string()
    }
}

impl InstanceExportLookup for &String {
    fn lookup<T>(&self, instance: &Instance, store: &StoreContextMut<'_, T>) -> Option<ComponentExportIndex> {
        self.as_str().lookup(instance, store)
    }
    fn describe(&self) -> String {
        self.to_string()
    }
}

impl InstanceExportLookup for &ComponentExportIndex {
    fn lookup<T>(&self, _: &Instance, _: &StoreContextMut<'_, T>) -> Option<ComponentExportIndex> {
        Some((*self).clone())
    }
    fn describe(&self) -> String {
        format!("{:?}", self.path)
    }
}

/// What the steps of an instantiation plan have made so far: the core
/// instances, the core items (exports of core instances and lowered
/// functions) and the lifted functions, indexed as the plan numbers them.
pub(super) struct InstantiationItems {
    core_instances: Vec<crate::Instance>,
    items: Vec<Extern>,
    lifted: Vec<u32>,
}

impl InstantiationItems {
    pub(super) fn item(&self, i: CoreItemIndex) -> crate::Result<Extern> {
        self.items
            .get(i.0 as usize)
            .cloned()
            .ok_or_else(|| crate::format_err!("the instantiation plan names core item {} before making it", i.0))
    }
}

/// The definitions an instantiation takes: one per import of the
/// component, and, from an [`super::InstancePre`], the definition of each
/// runtime import (an import's path through instances) found ahead, so that
/// instantiating does no name lookups.
pub(crate) struct Imports<'a, T: 'static> {
    /// One definition per import of the component.
    pub(crate) roots: &'a [Definition<T>],
    /// Empty, or one definition per runtime import of the plan.
    pub(crate) runtime: &'a [Definition<T>],
    /// Empty, or the definition of each imported resource of the plan.
    pub(crate) resources: &'a [Definition<T>],
}

impl<T: 'static> Clone for Imports<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: 'static> Copy for Imports<'_, T> {}

/// The definition of every runtime import of `component` in `roots`, in the
/// plan's order, and of every imported resource; each list is empty when
/// one of its definitions is missing (instantiation then names it).
pub(crate) fn resolve_ahead<T>(
    component: &Component,
    roots: &[Definition<T>],
) -> (Vec<Definition<T>>, Vec<Definition<T>>) {
    let plan = &component.inner.plan;
    let runtime = plan
        .runtime_imports
        .iter()
        .map(|rt| import_at(component, roots, rt).cloned())
        .collect::<crate::Result<Vec<_>>>()
        .unwrap_or_default();
    let resources = imported_resource_defs(component, roots)
        .map(|defs| defs.into_iter().cloned().collect())
        .unwrap_or_default();
    (runtime, resources)
}

/// The definitions of the imported resources: those found ahead, or found
/// now in the roots.
fn imported_resources<'a, T>(component: &Component, imports: Imports<'a, T>) -> crate::Result<Vec<&'a Definition<T>>> {
    if imports.resources.len() == component.inner.plan.imported_resources.len() {
        return Ok(imports.resources.iter().collect());
    }
    imported_resource_defs(component, imports.roots)
}

/// Instantiates `component` in `store` with `imports`.
pub(crate) fn instantiate<T: 'static>(
    mut store: StoreContextMut<'_, T>,
    component: &Component,
    imports: Imports<'_, T>,
) -> crate::Result<Instance> {
    // The pooling allocator's `total_component_instances`.
    store.0.opaque_mut().objects.take_component_instance()?;
    let inner = &component.inner;
    let plan = &inner.plan;
    let instance_index = store.components().instances.len() as u32;
    let store_id = store.0.opaque().id();
    let imported = imported_resources(component, imports)?;
    let resource_types = resource_types(component, &imported, store_id, instance_index)?;
    for def in imported {
        if let Definition::Resource(rt, dtor) = def {
            store.components_mut().host_dtors.insert(*rt, dtor.clone());
        }
    }
    store.0.opaque_mut().funcs.reserve(inner.store_funcs);
    store
        .0
        .opaque_mut()
        .objects
        .reserve_host_funcs::<crate::store::StoreInner<T>>(inner.host_funcs);
    store.components_mut().lowered_options.reserve(inner.host_funcs);
    let n = plan.num_component_instances as usize;
    #[cfg(feature = "component-model-async")]
    let task_tables = (0..n).map(|_| store.components_mut().tasks.new_instance()).collect();
    store.components_mut().instances.push(ComponentInstanceData {
        component: component.clone(),
        exports: Vec::new(),
        flags: vec![Flags::default(); n],
        handles: vec![HandleTable::default(); n],
        resource_types,
        defined: Vec::new(),
        #[cfg(feature = "component-model-async")]
        task_tables,
    });
    let mut t = InstantiationItems {
        core_instances: Vec::with_capacity(plan.num_core_instances as usize),
        items: Vec::with_capacity(plan.num_core_items as usize),
        lifted: Vec::with_capacity(plan.num_lifted_funcs as usize),
    };
    for (i, step) in plan.steps.iter().enumerate() {
        run_step(&mut store, component, instance_index, imports, &mut t, i, step)?;
    }
    let exports = plan
        .exports
        .iter()
        .map(|(name, e)| Ok((name.clone(), export_item(component, imports, &t, e)?)))
        .collect::<crate::Result<Vec<_>>>()?;
    if let Some(data) = store.components_mut().instances.get_mut(instance_index as usize) {
        data.exports = exports;
    }
    Ok(Instance {
        store: store_id,
        index: instance_index,
    })
}

fn run_step<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    component: &Component,
    instance_index: u32,
    imports: Imports<'_, T>,
    t: &mut InstantiationItems,
    step_index: usize,
    step: &Step,
) -> crate::Result<()> {
    let inner = &component.inner;
    match step {
        Step::InstantiateModule { module, args, .. } => {
            let module = match module {
                ModuleRef::Static(i) => inner
                    .modules
                    .get(i.0 as usize)
                    .cloned()
                    .ok_or_else(|| crate::format_err!("the plan names core module {} that does not exist", i.0))?,
                ModuleRef::Import(rt) => match runtime_import(component, imports, *rt)? {
                    Definition::Module(m) => m.clone(),
                    other => crate::bail!("expected a core module, found {}", other.describe()),
                },
            };
            let args = args.iter().map(|a| t.item(*a)).collect::<crate::Result<Vec<_>>>()?;
            let instance = crate::Instance::new(&mut *store, &module, &args)?;
            t.core_instances.push(instance);
        }
        Step::AliasExport { instance, name, .. } => {
            let core =
                t.core_instances.get(instance.0 as usize).copied().ok_or_else(|| {
                    crate::format_err!("the plan names core instance {} before making it", instance.0)
                })?;
            let item = core
                .get_export(&mut *store, name)
                .ok_or_else(|| crate::format_err!("core instance {} has no export `{name}`", instance.0))?;
            t.items.push(item);
        }
        Step::Lift {
            core_func, ty, options, ..
        } => {
            let core = match t.item(*core_func)? {
                Extern::Func(f) => f,
                _ => crate::bail!("`canon lift` of a core item that is not a function"),
            };
            let options = resolve_options(t, instance_index, options)?;
            let sig = crate::component::call::lift_sig(&inner.type_space, *ty, &options)?;
            let funcs = &mut store.components_mut().funcs;
            funcs.push(LiftedFunc {
                core,
                ty: *ty,
                types: inner.type_space.clone(),
                options,
                sig: Arc::new(sig),
            });
            t.lifted.push((funcs.len() - 1) as u32);
        }
        Step::Lower {
            callee:
                LowerCallee::Lifted {
                    func: lifted,
                    core_func,
                    options: callee_options,
                },
            ty,
            options,
            ..
        } if inner.adapters.contains_key(&step_index) => {
            let caller = resolve_options(t, instance_index, options)?;
            let callee = resolve_options(t, instance_index, callee_options)?;
            let lifted =
                t.lifted.get(lifted.0 as usize).copied().ok_or_else(|| {
                    crate::format_err!("the plan lowers lifted function {} before lifting it", lifted.0)
                })?;
            let func = fused_call(
                store,
                component,
                t,
                (step_index, *ty),
                (lifted, *core_func),
                &caller,
                &callee,
            )?;
            t.items.push(Extern::Func(func));
        }
        Step::Lower {
            callee, ty, options, ..
        } => {
            // Component-to-component calls all have a fused adapter (above).
            if let LowerCallee::Lifted { .. } = callee {
                crate::bail!("no fused adapter for the component-to-component call of step {step_index}");
            }
            let options = resolve_options(t, instance_index, options)?;
            let target = match callee {
                LowerCallee::Import(rt) => match runtime_import(component, imports, *rt)? {
                    Definition::Func(f, _, direct) => Callee::Host(f.clone(), direct.clone()),
                    #[cfg(feature = "component-model-async")]
                    Definition::ConcurrentFunc(f, _) => Callee::Concurrent(f.clone()),
                    other => crate::bail!("expected a function, found {}", other.describe()),
                },
                LowerCallee::Lifted { func, .. } => {
                    Callee::Lifted(t.lifted.get(func.0 as usize).copied().ok_or_else(|| {
                        crate::format_err!("the plan lowers lifted function {} before lifting it", func.0)
                    })?)
                }
            };
            let func = lowered_func(store, component, (step_index, *ty), options, target)?;
            t.items.push(Extern::Func(func));
        }
        Step::DefineResource { dtor, instance, .. } => {
            let dtor = match dtor.map(|d| t.item(d)).transpose()? {
                None => None,
                Some(Extern::Func(f)) => Some(f),
                Some(_) => crate::bail!("the destructor of a resource is not a function"),
            };
            let data = store
                .components_mut()
                .instances
                .get_mut(instance_index as usize)
                .ok_or_else(|| crate::format_err!("component instance not found in store"))?;
            data.defined.push(DefinedResource {
                component_instance: instance.0,
                dtor,
            });
        }
        Step::ResourceNew { resource, instance, .. } => {
            let f = resource_builtin(
                store,
                (component, step_index),
                instance_index,
                *instance,
                *resource,
                true,
                |store, at, ty, rep| {
                    check_may_leave(store, at)?;
                    let index = store.components_mut().handles(at)?.add(Handle::owned(ty, rep))?;
                    Ok(Some(index))
                },
            )?;
            t.items.push(Extern::Func(f));
        }
        Step::Builtin { builtin, instance, .. } => {
            let at = ComponentInstanceRef {
                instance: instance_index,
                component_instance: instance.0,
            };
            let f = super::concurrent::builtin(store, component, t, at, builtin)?;
            t.items.push(Extern::Func(f));
        }
        Step::ResourceRep { resource, instance, .. } => {
            let f = resource_builtin(
                store,
                (component, step_index),
                instance_index,
                *instance,
                *resource,
                true,
                |store, at, ty, index| {
                    let h = store.components_mut().handles(at)?.get_of(index, ty)?;
                    Ok(Some(h.rep))
                },
            )?;
            t.items.push(Extern::Func(f));
        }
        Step::ResourceDrop { resource, instance, .. } => {
            let f = resource_builtin(
                store,
                (component, step_index),
                instance_index,
                *instance,
                *resource,
                false,
                |store, at, ty, index| {
                    check_may_leave(store, at)?;
                    let mut handles = store.components_mut().handles(at)?;
                    let h = handles.get_of(index, ty)?;
                    if h.num_lends != 0 {
                        return Err(crate::component::trap("cannot drop a resource handle that is lent out"));
                    }
                    handles.remove(index)?;
                    drop_handle(store, h, Some(at))?;
                    Ok(None)
                },
            )?;
            t.items.push(Extern::Func(f));
        }
    }
    Ok(())
}

/// The definition of a runtime import: the root import, then the path of
/// export names through instances.
fn runtime_import<'a, T>(
    component: &Component,
    imports: Imports<'a, T>,
    index: RuntimeImportIndex,
) -> crate::Result<&'a Definition<T>> {
    if let Some(def) = imports.runtime.get(index.0 as usize) {
        return Ok(def);
    }
    let plan = &component.inner.plan;
    let rt = plan
        .runtime_imports
        .get(index.0 as usize)
        .ok_or_else(|| crate::format_err!("the plan names runtime import {} that does not exist", index.0))?;
    import_at(component, imports.roots, rt)
}

/// The definition at a runtime import's path.
fn import_at<'a, T>(
    component: &Component,
    imports: &'a [Definition<T>],
    rt: &env::RuntimeImport,
) -> crate::Result<&'a Definition<T>> {
    let plan = &component.inner.plan;
    let import_name = plan
        .imports
        .get(rt.import.0 as usize)
        .map(|i| i.name.as_str())
        .unwrap_or("?");
    let mut def = imports
        .get(rt.import.0 as usize)
        .ok_or_else(|| crate::format_err!("import `{import_name}` is not defined"))?;
    // The path so far, for errors only.
    let path = |depth: usize| {
        let mut path = import_name.to_string();
        for name in rt.path.iter().take(depth) {
            path = format!("{path}/{name}");
        }
        path
    };
    for (depth, name) in rt.path.iter().enumerate() {
        def = match def {
            Definition::Instance(map) => map.get(name).ok_or_else(|| {
                crate::format_err!(
                    "component imports `{name}` of instance `{}`, but the linker does not define it",
                    path(depth)
                )
            })?,
            other => crate::bail!(
                "`{}` is defined as {}, not as an instance",
                path(depth),
                other.describe()
            ),
        };
    }
    Ok(def)
}

/// The store's items for canonical options.
pub(super) fn resolve_options(
    t: &InstantiationItems,
    instance: u32,
    options: &CanonicalOptions,
) -> crate::Result<Options> {
    let memory = match options.memory.map(|m| t.item(m)).transpose()? {
        None => None,
        Some(Extern::Memory(m)) => Some(m),
        Some(_) => crate::bail!("the `memory` option names a core item that is not a memory"),
    };
    let func = |i: Option<CoreItemIndex>, what: &str| -> crate::Result<Option<crate::Func>> {
        match i.map(|i| t.item(i)).transpose()? {
            None => Ok(None),
            Some(Extern::Func(f)) => Ok(Some(f)),
            Some(_) => crate::bail!("the `{what}` option names a core item that is not a function"),
        }
    };
    Ok(Options {
        memory,
        realloc: func(options.realloc, "realloc")?,
        post_return: func(options.post_return, "post-return")?,
        encoding: options.string_encoding,
        is_async: options.is_async,
        callback: func(options.callback, "callback")?,
        flags: ComponentInstanceRef {
            instance,
            component_instance: options.instance.0,
        },
    })
}

/// The core function of a component-to-component `Lower` with a fused
/// adapter: an instance of the adapter module wired to the callee's core
/// function, both sides' options and the adapter's host built-ins.
fn fused_call<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    component: &Component,
    t: &InstantiationItems,
    (step_index, ty): (usize, TypeFuncIndex),
    (lifted, core_func): (u32, CoreItemIndex),
    caller_options: &Options,
    callee_options: &Options,
) -> crate::Result<crate::Func> {
    let Some(module) = component.inner.adapters.get(&step_index) else {
        crate::bail!("no fused adapter for step {step_index}");
    };
    let call = super::adapter::AdapterCall {
        lifted,
        callee_core: t.item(core_func)?,
        types: &component.inner.types,
        ty,
        caller: caller_options,
        callee: callee_options,
    };
    super::adapter::instantiate(store, module, call)
}

/// What a lowered function calls.
#[derive(Clone)]
enum Callee<T: 'static> {
    /// A host function, with the direct path of a typed one.
    Host(HostFunc<T>, Option<DirectFunc<T>>),
    /// A concurrent host function: its calls are host tasks.
    #[cfg(feature = "component-model-async")]
    Concurrent(super::linker::ConcurrentHostFunc<T>),
    Lifted(u32),
}

fn core_type(t: FlatType) -> ValType {
    match t {
        FlatType::I32 => ValType::I32,
        FlatType::I64 => ValType::I64,
        FlatType::F32 => ValType::F32,
        FlatType::F64 => ValType::F64,
    }
}

/// A lowered typed host function's closure with the host function it
/// calls, as a step of a component keeps it
/// ([`LoweredCore::host`](super::component::LoweredCore::host)).
struct SharedLowered<T: 'static> {
    direct: DirectFunc<T>,
    host: crate::func::HostClosure<T>,
}

/// The closure of a lowered typed host function `direct` of type `ty`,
/// called synchronously: its function's word ([`weft_runtime::HostCaller::data`])
/// is the index of the lowering's options in the store.
fn lowered_host<T: 'static>(
    types: Arc<env::ComponentTypes>,
    ty: TypeFuncIndex,
    lowered: &super::component::LoweredCore,
    direct: DirectFunc<T>,
) -> crate::func::HostClosure<T> {
    let result = lowered.ty.results().next();
    crate::func::flat_host_closure(lowered.params.clone(), result, move |mut store, data, flat| {
        let Some(func_ty) = types.func(ty) else {
            crate::bail!("function type {} not found", ty.0);
        };
        let Some(options) = store.components().lowered_options.get(data).cloned() else {
            crate::bail!("the options of lowered function {data} are not in the store");
        };
        check_may_leave(&store, options.flags)?;
        let scope = enter_call(&mut store);
        let r = call_direct(&mut store, (&types, func_ty), &options, &direct, flat, scope);
        let exited = exit_call(&mut store, scope, false);
        let out = r?;
        exited.map(|()| out)
    })
}

/// The core function of a `canon lower` of a function of type `ty`.
fn lowered_func<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    component: &Component,
    (step, ty): (usize, TypeFuncIndex),
    options: Options,
    callee: Callee<T>,
) -> crate::Result<crate::Func> {
    let types = component.inner.types.clone();
    let func_ty = types
        .func(ty)
        .ok_or_else(|| crate::format_err!("the plan names function type {} that does not exist", ty.0))?;
    let lowered = component.inner.lowered_core(step, || {
        let abi_options = AbiOptions {
            is_async: options.is_async,
            ..AbiOptions::default()
        };
        let flat = abi::flatten_functype(&types, func_ty, abi_options, Context::Lower);
        Ok(crate::FuncType::new(
            store.engine(),
            flat.params.iter().map(|t| core_type(*t)),
            flat.results.iter().map(|t| core_type(*t)),
        ))
    })?;
    // A typed host function called synchronously: flat values straight to
    // Rust values and back, without a `Val` of either kind. Its closure is
    // the component's, shared by every instantiation with the same host
    // function; the function's word is the index of its options.
    if let (Callee::Host(_, Some(direct)), false) = (&callee, options.is_async) {
        let components = store.components_mut();
        let data = components.lowered_options.len();
        components.lowered_options.push(options);
        let shared = lowered
            .host
            .get()
            .and_then(|h| h.downcast_ref::<SharedLowered<T>>())
            .filter(|h| Arc::ptr_eq(&h.direct, direct));
        let host = match shared {
            Some(shared) => shared.host.with_data(data),
            None => {
                let host = lowered_host(types, ty, lowered, direct.clone());
                let shared = SharedLowered {
                    direct: direct.clone(),
                    host: host.clone(),
                };
                // The first instantiation's closure is kept; another host
                // function for the step gets a closure of its own each time.
                let _ = lowered.host.set(Box::new(shared));
                host.with_data(data)
            }
        };
        return Ok(crate::func::new_host_with(
            store.0,
            lowered.ty.clone(),
            host,
            Some(&lowered.trampoline),
        ));
    }
    let import_ty = super::types::ComponentFunc::new(&component.inner.type_space, ty);
    let host = crate::func::host_closure_dynamic(lowered.ty.clone(), move |mut caller, params, results| {
        let mut store = caller.as_context_mut();
        let Some(func_ty) = types.func(ty) else {
            crate::bail!("function type {} not found", ty.0);
        };
        check_may_leave(&store, options.flags)?;
        if let Callee::Lifted(index) = &callee {
            let components = &store.components();
            let to = components
                .funcs
                .get(*index as usize)
                .map(|f| f.options.flags)
                .ok_or_else(|| crate::format_err!("component function not found in store"))?;
            components.check_enter(options.flags, to)?;
        }
        let scope = enter_call(&mut store);
        #[cfg(feature = "component-model-async")]
        if let Callee::Concurrent(f) = &callee {
            let call = |store: &mut StoreContextMut<'_, T>, args: Vec<Val>, results: usize| {
                f(store, import_ty.clone(), args, results)
            };
            let r = super::concurrent::call_host(&mut store, &types, ty, &options, &call, params, results, scope);
            let exited = exit_call(&mut store, scope, false);
            return r.and(exited);
        }
        #[cfg(feature = "component-model-async")]
        if let Callee::Lifted(index) = &callee {
            if super::concurrent::is_async_typed(&store, *index) {
                let r = super::concurrent::call_lowered(
                    &mut store, &types, ty, &options, *index, params, results, scope, None,
                );
                let exited = exit_call(&mut store, scope, false);
                return r.and(exited);
            }
        }
        if options.is_async {
            let r = call_lowered_async(
                &mut store, &types, func_ty, &import_ty, &options, &callee, params, results, scope,
            );
            let exited = exit_call(&mut store, scope, false);
            return r.and(exited);
        }
        let r = (|| {
            let mut args = lift_args_from_core(&mut store, &types, func_ty, &options, params)?;
            lift_resources(
                &mut store,
                &types,
                func_ty.param_types(),
                &mut args,
                options.flags,
                scope,
            )?;
            // At most one result: no allocation for it.
            let mut out = [Val::Bool(false)];
            let out = &mut out[..usize::from(func_ty.result.is_some())];
            match &callee {
                Callee::Host(f, _) => f(store.as_context_mut(), &import_ty, args, out)?,
                Callee::Lifted(index) => call_lifted(&mut store, *index, &args, out)?,
                #[cfg(feature = "component-model-async")]
                Callee::Concurrent(_) => {
                    crate::bail!("internal error: a concurrent host function called synchronously")
                }
            }
            lower_sync_results(&mut store, &types, func_ty, &options, params, out, results)
        })();
        let exited = exit_call(&mut store, scope, false);
        r.and(exited)
    });
    Ok(crate::func::new_host_with(
        store.0,
        lowered.ty.clone(),
        host,
        Some(&lowered.trampoline),
    ))
}

/// A call of the typed host function `direct` of type `ty` through a
/// synchronous `canon lower` with `options`: its flat core arguments
/// `params` (the last the pointer for the results when they do not fit in
/// one flat value); its flat result, if it has one.
fn call_direct<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    (types, ty): (&env::ComponentTypes, &env::FuncType),
    options: &Options,
    direct: &DirectFunc<T>,
    params: &[u64],
    scope: usize,
) -> crate::Result<Option<u64>> {
    let spilled = super::flat::results_spill(types, ty);
    let (flat, out_param) = match (spilled, params.split_last()) {
        (false, _) => (params, None),
        (true, Some((ptr, flat))) => (flat, Some(*ptr as u32)),
        (true, None) => crate::bail!("the lowered function has no pointer for its results"),
    };
    let mut out = Vec::new();
    direct(
        &mut super::direct::HostCall::new(store, types, options, scope),
        ty,
        flat,
        out_param,
        &mut out,
    )?;
    let expected = usize::from(ty.result.is_some() && !spilled);
    match out[..] {
        [] if expected == 0 => Ok(None),
        [v] if expected == 1 => Ok(Some(v)),
        _ => crate::bail!("the lowered results do not match the core signature"),
    }
}

/// A call through a function lowered `async`. The callee runs to
/// completion (an async callee that would block fails with "not supported
/// yet"), so the caller gets `RETURNED` (2: no subtask is made) and the
/// result at its result pointer.
#[allow(
    clippy::too_many_arguments,
    reason = "canon_lower's inputs: the caller's types, options, core arguments and results"
)]
fn call_lowered_async<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    types: &env::ComponentTypes,
    func_ty: &env::FuncType,
    import_ty: &super::types::ComponentFunc,
    options: &Options,
    callee: &Callee<T>,
    params: &[crate::Val],
    results: &mut [crate::Val],
    scope: usize,
) -> crate::Result<()> {
    /// `Subtask.State.RETURNED`.
    const RETURNED: i32 = 2;
    let (mut args, retptr) = lift_async_args(store, types, func_ty, options, params)?;
    let param_tys: Vec<_> = func_ty.param_types().collect();
    lift_resources(store, types, param_tys.iter().copied(), &mut args, options.flags, scope)?;
    let mut out = vec![Val::Bool(false); usize::from(func_ty.result.is_some())];
    match callee {
        Callee::Host(f, _) => f(store.as_context_mut(), import_ty, args, &mut out)?,
        Callee::Lifted(index) => call_lifted(store, *index, &args, &mut out)?,
        #[cfg(feature = "component-model-async")]
        Callee::Concurrent(_) => crate::bail!("internal error: a concurrent host function called synchronously"),
    }
    lower_async_results(store, types, func_ty, options, retptr, &mut out)?;
    match results.first_mut() {
        Some(r) => *r = crate::Val::I32(RETURNED),
        None => crate::bail!("an async lowered function returns its status"),
    }
    Ok(())
}

/// The store item of an export of the root.
fn export_item<T>(
    component: &Component,
    imports: Imports<'_, T>,
    t: &InstantiationItems,
    e: &Export,
) -> crate::Result<ExportItem> {
    Ok(match e {
        Export::LiftedFunction { func, .. } => ExportItem::Func(
            t.lifted
                .get(func.0 as usize)
                .copied()
                .ok_or_else(|| crate::format_err!("the plan exports lifted function {} that was not lifted", func.0))?,
        ),
        Export::ImportedFunction { .. } => crate::bail!("unsupported: exporting an imported function again"),
        Export::Instance(exports) => ExportItem::Instance(
            exports
                .iter()
                .map(|(n, e)| Ok((n.clone(), export_item(component, imports, t, e)?)))
                .collect::<crate::Result<Vec<_>>>()?,
        ),
        Export::ImportedInstance(_) => crate::bail!("unsupported: exporting an imported instance again"),
        Export::Module(ModuleRef::Static(i)) => ExportItem::Module(
            component
                .inner
                .modules
                .get(i.0 as usize)
                .cloned()
                .ok_or_else(|| crate::format_err!("the plan exports core module {} that does not exist", i.0))?,
        ),
        Export::Module(ModuleRef::Import(rt)) => match runtime_import(component, imports, *rt)? {
            Definition::Module(m) => ExportItem::Module(m.clone()),
            other => crate::bail!("expected a core module, found {}", other.describe()),
        },
        Export::Type(_) => ExportItem::Type,
    })
}

/// The core function of a `canon resource.new`, `.rep` or `.drop` of
/// `resource` called by the plan's component instance `instance`:
/// `(i32) -> (i32)` when `returns`, else `(i32) -> ()`. `body` gets the
/// calling instance, the resource's runtime type and the `i32` argument,
/// and returns the result.
fn resource_builtin<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    (component, step): (&Component, usize),
    instance_index: u32,
    instance: env::ComponentInstanceIndex,
    resource: env::TypeResourceIndex,
    returns: bool,
    body: impl Fn(&mut StoreContextMut<'_, T>, ComponentInstanceRef, ResourceType, u32) -> crate::Result<Option<u32>>
        + Send
        + Sync
        + 'static,
) -> crate::Result<crate::Func> {
    let at = ComponentInstanceRef {
        instance: instance_index,
        component_instance: instance.0,
    };
    let lowered = component.inner.lowered_core(step, || {
        let results: &[ValType] = if returns { &[ValType::I32] } else { &[] };
        Ok(crate::FuncType::new(
            store.engine(),
            [ValType::I32],
            results.iter().cloned(),
        ))
    })?;
    let host = crate::func::host_closure_dynamic(lowered.ty.clone(), move |mut caller, params, results| {
        let mut store = caller.as_context_mut();
        let arg = match params.first() {
            Some(crate::Val::I32(v)) => *v as u32,
            _ => crate::bail!("expected an i32 argument"),
        };
        let ty = store.components().resource_type(at.instance, resource)?;
        let result = body(&mut store, at, ty, arg)?;
        if let (Some(r), Some(v)) = (results.first_mut(), result) {
            *r = crate::Val::I32(v as i32);
        }
        Ok(())
    });
    Ok(crate::func::new_host_with(
        store.0,
        lowered.ty.clone(),
        host,
        Some(&lowered.trampoline),
    ))
}

/// The definitions of the resource types the component imports, in the
/// order of `imported_resources`.
pub(super) fn imported_resource_defs<'a, T>(
    component: &Component,
    imports: &'a [Definition<T>],
) -> crate::Result<Vec<&'a Definition<T>>> {
    let plan = &component.inner.plan;
    plan.imported_resources
        .iter()
        .map(|r| {
            let def = import_at(component, imports, &r.at)?;
            match def {
                Definition::Resource(..) => Ok(def),
                other => crate::bail!("expected a resource type, found {}", other.describe()),
            }
        })
        .collect()
}

/// The identity of every resource of the component's types as far as
/// linking knows it: imported resources have the linker's definitions,
/// resources the component defines have their static identity (no host
/// type is one), resource variables are unknown (`None`).
pub(super) fn link_time_resource_types<T>(
    component: &Component,
    imports: &[Definition<T>],
) -> Vec<Option<ResourceType>> {
    let space = &component.inner.type_space;
    let imported = imported_resource_defs(component, imports).unwrap_or_default();
    (0..space.counts()[5])
        .map(|i| {
            let index = env::TypeResourceIndex(i as u32);
            match space.resource(index) {
                Some(env::ResourceType::Defined(_)) => Some(super::types::static_resource(space, index)),
                Some(env::ResourceType::Imported(k)) => match imported.get(k.0 as usize) {
                    Some(Definition::Resource(rt, _)) => Some(*rt),
                    _ => None,
                },
                Some(env::ResourceType::Abstract(_)) | None => None,
            }
        })
        .collect()
}

/// The runtime identity of every resource of the component's types.
fn resource_types<T>(
    component: &Component,
    imported: &[&Definition<T>],
    store: crate::store::StoreId,
    instance: u32,
) -> crate::Result<Vec<Option<ResourceType>>> {
    let types = &component.inner.types;
    let count = types.counts()[5];
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let rt = match types.resource(env::TypeResourceIndex(i as u32)) {
            Some(env::ResourceType::Defined(d)) => Some(ResourceType(ResourceKind::Guest {
                store,
                instance,
                resource: d.0,
            })),
            Some(env::ResourceType::Imported(k)) => match imported.get(k.0 as usize) {
                Some(Definition::Resource(rt, _)) => Some(*rt),
                _ => crate::bail!("imported resource {} is not defined", k.0),
            },
            Some(env::ResourceType::Abstract(_)) | None => None,
        };
        out.push(rt);
    }
    Ok(out)
}

//! `Linker`: host definitions by name, for instantiating components.

use super::semver::{split_version, Version};
use super::{Component, Instance, ResourceType, Val};
use crate::{AsContextMut, Engine, StoreContextMut};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A host function of the component model: called with the import's type
/// and the lifted arguments (its own, so a typed function lifts them
/// without a copy), it writes the results to be lowered.
pub(crate) type HostFunc<T> = Arc<
    dyn Fn(StoreContextMut<'_, T>, &super::types::ComponentFunc, Vec<Val>, &mut [Val]) -> crate::Result<()>
        + Send
        + Sync
        + 'static,
>;

/// The direct path of a typed host function (`func_wrap`): given the call,
/// the function's type, its flat core arguments and the pointer for its
/// results (when they do not fit in flat values), it lifts the arguments,
/// calls the function and lowers the results (flat ones pushed to the
/// vector).
pub(crate) type DirectFunc<T> = Arc<
    dyn for<'a, 's> Fn(
            &mut super::direct::HostCall<'a, 's, T>,
            &weft_environ::component::FuncType,
            &[u64],
            Option<u32>,
            &mut Vec<u64>,
        ) -> crate::Result<()>
        + Send
        + Sync
        + 'static,
>;

/// A concurrent host function of the component model
/// (`func_wrap_concurrent`, `func_new_concurrent`): called with the
/// import's type, the lifted arguments and the number of results, it gives
/// the future of the call, which yields the results to be lowered.
#[cfg(feature = "component-model-async")]
pub(crate) type ConcurrentHostFunc<T> = Arc<
    dyn Fn(
            &mut StoreContextMut<'_, T>,
            super::types::ComponentFunc,
            Vec<Val>,
            usize,
        ) -> crate::Result<super::concurrent::HostFuture>
        + Send
        + Sync
        + 'static,
>;

/// The destructor of a host resource type, called with the
/// representation of a dropped `own` handle.
pub(crate) type HostDtor<T> = Arc<dyn Fn(StoreContextMut<'_, T>, u32) -> crate::Result<()> + Send + Sync + 'static>;

/// The type check of a typed host function
/// ([`LinkerInstance::func_wrap`]) against the type of the import it
/// satisfies.
pub(crate) type TypeCheck = Arc<
    dyn Fn(weft_environ::component::TypeFuncIndex, &super::typed::InstanceType<'_>) -> crate::Result<()>
        + Send
        + Sync
        + 'static,
>;

/// What a name of a [`Linker`] is defined as.
pub(crate) enum Definition<T: 'static> {
    /// A host function, with its type check if it is typed.
    ///
    /// A typed host function (`func_wrap`) also has its direct path.
    Func(HostFunc<T>, Option<TypeCheck>, Option<DirectFunc<T>>),
    /// A concurrent host function, with its type check if it is typed.
    #[cfg(feature = "component-model-async")]
    ConcurrentFunc(ConcurrentHostFunc<T>, Option<TypeCheck>),
    /// An instance: more definitions by name.
    Instance(BTreeMap<String, Definition<T>>),
    /// A core module, given as is to a module import.
    Module(crate::Module),
    /// A resource type of the host, with its destructor: a `HostDtor<T>`,
    /// kept as the store keeps it, so instantiating shares it without a
    /// new allocation.
    Resource(ResourceType, Arc<dyn std::any::Any + Send + Sync>),
}

impl<T: 'static> Clone for Definition<T> {
    fn clone(&self) -> Self {
        match self {
            Definition::Func(f, c, d) => Definition::Func(f.clone(), c.clone(), d.clone()),
            #[cfg(feature = "component-model-async")]
            Definition::ConcurrentFunc(f, c) => Definition::ConcurrentFunc(f.clone(), c.clone()),
            Definition::Instance(m) => Definition::Instance(m.clone()),
            Definition::Module(m) => Definition::Module(m.clone()),
            Definition::Resource(t, d) => Definition::Resource(*t, d.clone()),
        }
    }
}

impl<T: 'static> Definition<T> {
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            Definition::Func(..) => "a function",
            #[cfg(feature = "component-model-async")]
            Definition::ConcurrentFunc(..) => "a concurrent function",
            Definition::Instance(_) => "an instance",
            Definition::Module(_) => "a module",
            Definition::Resource(..) => "a resource type",
        }
    }
}

/// Host definitions by name (functions, instances of them, core modules)
/// that satisfy the imports of components, as Wasmtime's
/// `component::Linker`.
pub struct Linker<T: 'static> {
    engine: Engine,
    pub(super) root: BTreeMap<String, Definition<T>>,
    allow_shadowing: bool,
}

impl<T: 'static> Clone for Linker<T> {
    fn clone(&self) -> Self {
        Linker {
            engine: self.engine.clone(),
            root: self.root.clone(),
            allow_shadowing: self.allow_shadowing,
        }
    }
}

/// The definitions of one instance of a [`Linker`] (the root, or an
/// instance found by [`Linker::instance`] or [`LinkerInstance::instance`]).
pub struct LinkerInstance<'a, T: 'static> {
    map: &'a mut BTreeMap<String, Definition<T>>,
    allow_shadowing: bool,
    /// Whether the engine allows concurrent host functions.
    pub(super) concurrency_support: bool,
}

impl<T: 'static> Linker<T> {
    /// An empty linker for components of `engine`.
    pub fn new(engine: &Engine) -> Linker<T> {
        Linker {
            engine: engine.clone(),
            root: BTreeMap::new(),
            allow_shadowing: false,
        }
    }

    /// The engine the linker's definitions belong to.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Whether a definition may replace an earlier one of the same name
    /// (off by default: defining a name twice is an error).
    pub fn allow_shadowing(&mut self, allow: bool) -> &mut Self {
        self.allow_shadowing = allow;
        self
    }

    /// The root instance: the definitions that match the component's
    /// imports by name.
    pub fn root(&mut self) -> LinkerInstance<'_, T> {
        LinkerInstance {
            map: &mut self.root,
            allow_shadowing: self.allow_shadowing,
            concurrency_support: self.engine.get_concurrency_support(),
        }
    }

    /// The instance `name` of the root, made empty if it does not exist.
    pub fn instance(&mut self, name: &str) -> crate::Result<LinkerInstance<'_, T>> {
        self.root().into_instance(name)
    }

    /// Instantiates `component` with the linker's definitions as its
    /// imports. Fails, naming the import, when a definition is missing or
    /// of the wrong kind or type, or when instantiation traps.
    pub fn instantiate(
        &self,
        mut store: impl AsContextMut<Data = T>,
        component: &Component,
    ) -> crate::Result<Instance> {
        let store = store.as_context_mut();
        if !Engine::same(component.engine(), store.engine()) {
            crate::bail!("the component was compiled for another engine than the store's");
        }
        let imports = self.resolve_imports(component)?;
        let imports = super::instance::Imports {
            roots: &imports,
            runtime: &[],
            resources: &[],
        };
        super::instance::instantiate(store, component, imports)
    }

    /// The definition of an import named `name`: the definition of that
    /// name, or else, when the name ends in a semver version
    /// (`wasi:cli/environment@0.2.3`), the definition of the same name with
    /// the highest compatible version (as Wasmtime: the same major version,
    /// and for `0.x` the same minor, neither with a pre-release).
    fn lookup(&self, name: &str) -> Option<&Definition<T>> {
        if let Some(def) = self.root.get(name) {
            return Some(def);
        }
        let (base, version) = split_version(name)?;
        let key = version.compatibility_key()?;
        let mut best: Option<(Version, &Definition<T>)> = None;
        // Every versioned name with this base sorts from `base@` on.
        let start = format!("{base}@");
        for (defined, def) in self.root.range(start.clone()..) {
            if !defined.starts_with(&start) {
                break;
            }
            let Some((b, v)) = split_version(defined) else {
                continue;
            };
            if b != base || v.compatibility_key() != Some(key) {
                continue;
            }
            if best.as_ref().is_none_or(|(bv, _)| v > *bv) {
                best = Some((v, def));
            }
        }
        best.map(|(_, def)| def)
    }

    /// The definition of each import of `component`, in order.
    pub(super) fn resolve_imports(&self, component: &Component) -> crate::Result<Vec<Definition<T>>> {
        let plan = &component.inner.plan;
        let mut out = Vec::with_capacity(plan.imports.len());
        for import in &plan.imports {
            let def = self.lookup(&import.name).ok_or_else(|| {
                crate::format_err!("component imports `{}`, but the linker does not define it", import.name)
            })?;
            out.push(def.clone());
        }
        let resources = super::instance::link_time_resource_types(component, &out);
        let types = super::typed::InstanceType::new(&component.inner.type_space, &resources);
        for (import, def) in plan.imports.iter().zip(&out) {
            super::func_wrap::check_import(&types, import.ty, def, &import.name)?;
        }
        Ok(out)
    }
}

impl<T: 'static> LinkerInstance<'_, T> {
    pub(crate) fn insert(&mut self, name: &str, def: Definition<T>) -> crate::Result<()> {
        if !self.allow_shadowing {
            if let Some(old) = self.map.get(name) {
                crate::bail!("`{name}` is already defined (as {})", old.describe());
            }
        }
        self.map.insert(name.to_string(), def);
        Ok(())
    }

    /// Defines `name` as a host function taking and returning dynamic
    /// [`Val`]s. The component's import type decides how many arguments
    /// and results there are; the function must write every result.
    pub fn func_new(
        &mut self,
        name: &str,
        func: impl Fn(StoreContextMut<'_, T>, &[Val], &mut [Val]) -> crate::Result<()> + Send + Sync + 'static,
    ) -> crate::Result<()> {
        let func: HostFunc<T> = Arc::new(move |store, _ty, args, results| func(store, &args, results));
        self.insert(name, Definition::Func(func, None, None))
    }

    /// Defines `name` as a host function taking and returning dynamic
    /// [`Val`]s, like [`LinkerInstance::func_new`], which is also given
    /// the type of the import it is called as (the parameter and result
    /// types, as the C API's host functions receive them). (Wasmtime 48's
    /// `func_new` passes the type; Weft's keeps its shorter signature and
    /// offers this one beside it.)
    pub fn func_new_with_func_type(
        &mut self,
        name: &str,
        func: impl Fn(StoreContextMut<'_, T>, &super::types::ComponentFunc, &[Val], &mut [Val]) -> crate::Result<()>
            + Send
            + Sync
            + 'static,
    ) -> crate::Result<()> {
        let func: HostFunc<T> = Arc::new(move |store, ty, args, results| func(store, ty, &args, results));
        self.insert(name, Definition::Func(func, None, None))
    }

    /// Defines `name` as a host function of the component function type
    /// `ty` (a type of some component, e.g. from
    /// [`Component::component_type`](super::Component::component_type)),
    /// taking and returning dynamic [`Val`]s like
    /// [`LinkerInstance::func_new`]. Instantiating a component whose import
    /// `name` has another type fails, naming the import: the check compares
    /// the two types' engine ids. (This method is Weft's; Wasmtime has no
    /// counterpart.)
    pub fn func_new_with_type(
        &mut self,
        name: &str,
        ty: &super::types::ComponentFunc,
        func: impl Fn(StoreContextMut<'_, T>, &[Val], &mut [Val]) -> crate::Result<()> + Send + Sync + 'static,
    ) -> crate::Result<()> {
        let expected = ty.engine_id();
        let check: TypeCheck = Arc::new(move |index, types| {
            let found = types.space().ids().funcs(index);
            if expected.is_some() && found == expected {
                Ok(())
            } else {
                crate::bail!("the function's type differs from the type of the import")
            }
        });
        let func: HostFunc<T> = Arc::new(move |store, _ty, args, results| func(store, &args, results));
        self.insert(name, Definition::Func(func, Some(check), None))
    }

    /// Defines `name` as the resource type `ty` of the host (usually
    /// [`ResourceType::host::<T>()`]), whose `own` handles the guest drops
    /// by calling `dtor` with their representation.
    pub fn resource(
        &mut self,
        name: &str,
        ty: ResourceType,
        dtor: impl Fn(StoreContextMut<'_, T>, u32) -> crate::Result<()> + Send + Sync + 'static,
    ) -> crate::Result<()> {
        let dtor: HostDtor<T> = Arc::new(dtor);
        self.insert(name, Definition::Resource(ty, Arc::new(dtor)))
    }

    /// Defines `name` as a core module (for components that import one).
    pub fn module(&mut self, name: &str, module: &crate::Module) -> crate::Result<()> {
        self.insert(name, Definition::Module(module.clone()))
    }

    /// The instance `name` of this instance, made empty if it does not
    /// exist. Fails when `name` is defined as something else.
    pub fn instance(&mut self, name: &str) -> crate::Result<LinkerInstance<'_, T>> {
        LinkerInstance {
            map: &mut *self.map,
            allow_shadowing: self.allow_shadowing,
            concurrency_support: self.concurrency_support,
        }
        .into_instance(name)
    }

    /// [`LinkerInstance::instance`], consuming this one.
    pub fn into_instance(self, name: &str) -> crate::Result<Self> {
        let (allow_shadowing, concurrency_support) = (self.allow_shadowing, self.concurrency_support);
        let def = self
            .map
            .entry(name.to_string())
            .or_insert_with(|| Definition::Instance(BTreeMap::new()));
        match def {
            Definition::Instance(map) => Ok(LinkerInstance {
                map,
                allow_shadowing,
                concurrency_support,
            }),
            other => crate::bail!(
                "`{name}` is already defined as {}, not as an instance",
                other.describe()
            ),
        }
    }
}

#[cfg(test)]
mod semver_tests {
    use super::super::semver::{semver_match, split_version};
    use super::*;
    use crate::component::Component;
    use crate::{Engine, Store};

    #[test]
    fn versions_parse() {
        let (base, v) = split_version("wasi:cli/environment@0.2.3").unwrap();
        assert_eq!(base, "wasi:cli/environment");
        assert_eq!((v.major, v.minor, v.patch, v.extra), (0, 2, 3, false));
        assert!(split_version("wasi:cli/environment").is_none());
        assert!(split_version("a@1.2").is_none());
        assert!(split_version("a@1.02.3").is_none());
        assert!(split_version("a@1.2.3.4").is_none());
        assert!(split_version("a@1.2.3-rc1").unwrap().1.extra);
        let names = ["a:b/run@0.2.3", "a:b/run@0.3.0", "a:b/run@0.2.1", "a:b/other@0.2.9"];
        assert_eq!(semver_match("a:b/run@0.2.12", names.into_iter()), Some(0));
        assert_eq!(semver_match("a:b/run@0.3.5", names.into_iter()), Some(1));
        assert_eq!(semver_match("a:b/run@1.0.0", names.into_iter()), None);
    }

    /// A component importing `iface@{version}` with one function `f`
    /// returning a `u32`, exported as `run`.
    fn importer(engine: &Engine, name: &str) -> crate::Result<Component> {
        let text = format!(
            r#"(component
                (import "{name}" (instance $i (export "f" (func (result u32)))))
                (alias export $i "f" (func $f))
                (core func $fl (canon lower (func $f)))
                (core module $m (import "" "f" (func $f (result i32)))
                    (func (export "run") (result i32) (call $f)))
                (core instance $mi (instantiate $m (with "" (instance (export "f" (func $fl))))))
                (func (export "run") (result u32) (canon lift (core func $mi "run"))))"#
        );
        Component::new(engine, wat::parse_str(text)?)
    }

    fn run(linker: &Linker<()>, component: &Component) -> crate::Result<u32> {
        let mut store = Store::new(linker.engine(), ());
        let instance = linker.instantiate(&mut store, component)?;
        let f = instance.get_typed_func::<(), (u32,)>(&mut store, "run")?;
        Ok(f.call(&mut store, ())?.0)
    }

    #[test]
    fn imports_link_to_the_highest_compatible_version() -> crate::Result<()> {
        let engine = Engine::default();
        let mut linker = Linker::<()>::new(&engine);
        for (version, value) in [
            ("0.2.1", 1u32),
            ("0.2.12", 12),
            ("0.2.9", 9),
            ("0.3.0", 30),
            ("1.4.0", 140),
            ("1.2.0", 120),
        ] {
            linker
                .instance(&format!("wasi:cli/environment@{version}"))?
                .func_wrap("f", move |_, ()| Ok((value,)))?;
        }
        linker
            .instance("wasi:cli/environment@0.2.13-rc")?
            .func_wrap("f", |_, ()| Ok((99u32,)))?;
        // An exact match wins; otherwise the highest patch of 0.2 (a newer
        // import than defined links too: the types are still checked).
        assert_eq!(run(&linker, &importer(&engine, "wasi:cli/environment@0.2.9")?)?, 9);
        assert_eq!(run(&linker, &importer(&engine, "wasi:cli/environment@0.2.3")?)?, 12);
        assert_eq!(run(&linker, &importer(&engine, "wasi:cli/environment@0.2.20")?)?, 12);
        assert_eq!(run(&linker, &importer(&engine, "wasi:cli/environment@0.3.1")?)?, 30);
        // For 1.x, any minor of the same major.
        assert_eq!(run(&linker, &importer(&engine, "wasi:cli/environment@1.0.0")?)?, 140);
        // Other minors of 0.x, other majors, pre-releases and unversioned
        // names do not match.
        for name in [
            "wasi:cli/environment@0.1.0",
            "wasi:cli/environment@2.0.0",
            "wasi:cli/environment@0.2.3-rc",
            "wasi:cli/environment",
            "wasi:cli/other@0.2.3",
        ] {
            let err = run(&linker, &importer(&engine, name)?).unwrap_err();
            assert!(format!("{err}").contains("does not define it"), "{name}: {err}");
        }
        Ok(())
    }
}

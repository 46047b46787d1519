//! Linking imports by name.

use crate::externals::Extern;
use crate::func::HostTrampoline;
use crate::func::IntoFunc;
use crate::store::{AsContext, AsContextMut, Caller, StoreInner};
use crate::types::FuncType;
use crate::values::Val;
use crate::{Engine, Func, Instance, Module};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// Resolves the imports of modules by `module::name`, as Wasmtime's
/// `Linker`.
pub struct Linker<T: 'static> {
    engine: Engine,
    /// Definitions by module name, then name: looked up without allocating.
    map: HashMap<String, HashMap<String, Definition<T>>>,
    allow_shadowing: bool,
}

enum Definition<T: 'static> {
    Extern(Extern),
    /// A host function: its type (shared by every store it is made in),
    /// its closure, and its wasm-to-host trampoline once looked up.
    HostFunc(
        Arc<FuncType>,
        crate::func::HostClosure<T>,
        Arc<OnceLock<HostTrampoline>>,
    ),
}

impl<T: 'static> Clone for Definition<T> {
    fn clone(&self) -> Self {
        match self {
            Definition::Extern(e) => Definition::Extern(e.clone()),
            Definition::HostFunc(t, f, tramp) => Definition::HostFunc(t.clone(), f.clone(), tramp.clone()),
        }
    }
}

impl<T: 'static> Clone for Linker<T> {
    fn clone(&self) -> Self {
        Linker {
            engine: self.engine.clone(),
            map: self.map.clone(),
            allow_shadowing: self.allow_shadowing,
        }
    }
}

impl<T: 'static> Linker<T> {
    /// An empty linker.
    pub fn new(engine: &Engine) -> Linker<T> {
        Linker {
            engine: engine.clone(),
            map: HashMap::new(),
            allow_shadowing: false,
        }
    }

    /// The engine the linker's definitions belong to.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Whether a later definition of the same name replaces an earlier one
    /// (default: it is an error).
    pub fn allow_shadowing(&mut self, allow: bool) -> &mut Self {
        self.allow_shadowing = allow;
        self
    }

    fn insert(&mut self, module: &str, name: &str, def: Definition<T>) -> crate::Result<&mut Self> {
        let names = self.map.entry(module.to_string()).or_default();
        if !self.allow_shadowing && names.contains_key(name) {
            crate::bail!("import of `{module}::{name}` defined twice");
        }
        names.insert(name.to_string(), def);
        Ok(self)
    }

    /// Defines `module::name` as `item`.
    pub fn define(
        &mut self,
        _store: impl AsContext<Data = T>,
        module: &str,
        name: &str,
        item: impl Into<Extern>,
    ) -> crate::Result<&mut Self> {
        self.insert(module, name, Definition::Extern(item.into()))
    }

    /// Defines `module::name` as a host function wrapping a closure (see
    /// [`Func::wrap`]); usable in any store of this linker's data type.
    pub fn func_wrap<Params, Args>(
        &mut self,
        module: &str,
        name: &str,
        func: impl IntoFunc<T, Params, Args>,
    ) -> crate::Result<&mut Self> {
        let (ty, host) = func.into_func(&self.engine);
        self.insert(
            module,
            name,
            Definition::HostFunc(Arc::new(ty), host, Default::default()),
        )
    }

    #[cfg(feature = "async")]
    pub(crate) fn define_host(
        &mut self,
        module: &str,
        name: &str,
        ty: FuncType,
        host: crate::func::HostClosure<T>,
    ) -> crate::Result<&mut Self> {
        self.insert(
            module,
            name,
            Definition::HostFunc(Arc::new(ty), host, Default::default()),
        )
    }

    /// Defines `module::name` as a host function of type `ty` (see
    /// [`Func::new`]).
    pub fn func_new(
        &mut self,
        module: &str,
        name: &str,
        ty: FuncType,
        func: impl Fn(Caller<'_, T>, &[Val], &mut [Val]) -> crate::Result<()> + Send + Sync + 'static,
    ) -> crate::Result<&mut Self> {
        let ty = Arc::new(ty);
        let host = crate::func::host_closure_dynamic(ty.clone(), func);
        self.insert(module, name, Definition::HostFunc(ty, host, Default::default()))
    }

    /// Whether `module::name` is defined, whatever its type.
    fn is_defined(&self, module: &str, name: &str) -> bool {
        self.map.get(module).is_some_and(|names| names.contains_key(name))
    }

    /// Defines each function import of `module` that this linker does not
    /// define (by name) as a function that fails with an error naming the
    /// import, as Wasmtime's: a module whose unknown imports are never
    /// called can then be instantiated.
    pub fn define_unknown_imports_as_traps(&mut self, module: &Module) -> crate::Result<()> {
        for import in module.imports() {
            let (m, n) = (import.module(), import.name());
            if self.is_defined(m, n) {
                continue;
            }
            if let crate::ExternType::Func(ty) = import.ty() {
                let message = format!("unknown import: `{m}::{n}` has not been defined");
                self.func_new(m, n, ty, move |_, _, _| Err(crate::format_err!("{message}")))?;
            }
        }
        Ok(())
    }

    /// Defines each import of `module` that this linker does not define
    /// (by name) as an item of its type with default contents, made in
    /// `store` (see [`crate::ExternType::default_value`]): functions that
    /// return zeros and nulls, globals of those, tables of nulls, memories
    /// of their minimum size, new tags. Fails, naming the import, when a
    /// type has no default.
    pub fn define_unknown_imports_as_default_values(
        &mut self,
        mut store: impl AsContextMut<Data = T>,
        module: &Module,
    ) -> crate::Result<()> {
        for import in module.imports() {
            let (m, n) = (import.module(), import.name());
            if self.is_defined(m, n) {
                continue;
            }
            let ty = import.ty();
            let item = ty
                .default_value(&mut store)
                .map_err(|e| e.context(format!("no default value for the import `{m}::{n}` of type {ty}")))?;
            self.define(&store, m, n, item)?;
        }
        Ok(())
    }

    /// Defines every export of `instance` under `module_name`.
    pub fn instance(
        &mut self,
        mut store: impl AsContextMut<Data = T>,
        module_name: &str,
        instance: Instance,
    ) -> crate::Result<&mut Self> {
        let exports: Vec<(String, Extern)> = instance
            .exports(store.as_context_mut())
            .map(|e| (e.name().to_string(), e.into_extern()))
            .collect();
        for (name, item) in exports {
            self.insert(module_name, &name, Definition::Extern(item))?;
        }
        Ok(self)
    }

    /// Instantiates `module` (running `_initialize` when it exports one) and
    /// defines its exports under `module_name`.
    pub fn module(
        &mut self,
        mut store: impl AsContextMut<Data = T>,
        module_name: &str,
        module: &Module,
    ) -> crate::Result<&mut Self> {
        let instance = self.instantiate(&mut store, module)?;
        if let Some(init) = instance.get_func(&mut store, "_initialize") {
            init.call(&mut store, &[], &mut [])?;
        }
        self.instance(store, module_name, instance)
    }

    /// The definition of `module::name` in `store`, if any.
    pub fn get(&self, mut store: impl AsContextMut<Data = T>, module: &str, name: &str) -> Option<Extern> {
        let def = self.map.get(module)?.get(name)?;
        Some(self.materialize(store.as_context_mut().0, def))
    }

    fn materialize(&self, store: &mut StoreInner<T>, def: &Definition<T>) -> Extern {
        match def {
            Definition::Extern(e) => e.clone(),
            Definition::HostFunc(ty, host, tramp) => {
                // The cached trampoline belongs to the linker's engine.
                let cache = Engine::same(&self.engine, &store.opaque.engine).then_some(&**tramp);
                Extern::Func(crate::func::new_host_with(store, ty.clone(), host.clone(), cache))
            }
        }
    }

    /// The default function of `module`: its export `""`, else `_start`, else
    /// a function that does nothing.
    pub fn get_default(&self, mut store: impl AsContextMut<Data = T>, module: &str) -> crate::Result<Func> {
        for name in ["", "_start"] {
            if let Some(e) = self.get(&mut store, module, name) {
                return e
                    .into_func()
                    .ok_or_else(|| crate::format_err!("default export `{module}::{name}` is not a function"));
            }
        }
        Ok(Func::wrap(store, || {}))
    }

    /// Instantiates `module`, resolving its imports by name.
    pub fn instantiate(&self, mut store: impl AsContextMut<Data = T>, module: &Module) -> crate::Result<Instance> {
        let store = store.as_context_mut().0;
        // By name only: `Module::imports` would also build each import's
        // public type, which instantiation checks in its own form.
        let wanted = &module.inner.env.imports;
        let mut imports = Vec::with_capacity(wanted.len());
        store.opaque.funcs.reserve(wanted.len());
        for import in wanted {
            match self
                .map
                .get(&*import.module)
                .and_then(|names| names.get(&*import.field))
            {
                Some(def) => imports.push(self.materialize(store, def)),
                None => crate::bail!(
                    "unknown import: `{}::{}` has not been defined",
                    import.module,
                    import.field
                ),
            }
        }
        crate::instance::instantiate(store, module, &imports)
    }
}

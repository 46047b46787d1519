//! Linking imports by name.

use crate::externals::Extern;
use crate::func::IntoFunc;
use crate::store::{AsContext, AsContextMut, Caller, StoreInner};
use crate::types::FuncType;
use crate::values::Val;
use crate::{Engine, Func, Instance, Module};
use std::collections::HashMap;
use std::sync::Arc;
use weft_runtime::HostFn;

/// Resolves the imports of modules by `module::name`, as Wasmtime's
/// `Linker`.
pub struct Linker<T: 'static> {
    engine: Engine,
    map: HashMap<(String, String), Definition<T>>,
    allow_shadowing: bool,
}

enum Definition<T: 'static> {
    Extern(Extern),
    HostFunc(FuncType, Arc<HostFn<StoreInner<T>>>),
}

impl<T: 'static> Clone for Definition<T> {
    fn clone(&self) -> Self {
        match self {
            Definition::Extern(e) => Definition::Extern(e.clone()),
            Definition::HostFunc(t, f) => Definition::HostFunc(t.clone(), f.clone()),
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

    /// The engine.
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
        let key = (module.to_string(), name.to_string());
        if !self.allow_shadowing && self.map.contains_key(&key) {
            crate::bail!("import of `{module}::{name}` defined twice");
        }
        self.map.insert(key, def);
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
        self.insert(module, name, Definition::HostFunc(ty, host))
    }

    #[cfg(feature = "async")]
    pub(crate) fn define_host(
        &mut self,
        module: &str,
        name: &str,
        ty: FuncType,
        host: Arc<HostFn<StoreInner<T>>>,
    ) -> crate::Result<&mut Self> {
        self.insert(module, name, Definition::HostFunc(ty, host))
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
        let host = crate::func::host_closure_dynamic(ty.clone(), func);
        self.insert(module, name, Definition::HostFunc(ty, host))
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
        let def = self.map.get(&(module.to_string(), name.to_string()))?;
        Some(self.materialize(store.as_context_mut().0, def))
    }

    fn materialize(&self, store: &mut StoreInner<T>, def: &Definition<T>) -> Extern {
        match def {
            Definition::Extern(e) => e.clone(),
            Definition::HostFunc(ty, host) => Extern::Func(crate::func::new_host(store, ty.clone(), host.clone())),
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
        let mut imports = Vec::new();
        for import in module.imports() {
            let key = (import.module().to_string(), import.name().to_string());
            match self.map.get(&key) {
                Some(def) => imports.push(self.materialize(store, def)),
                None => crate::bail!(
                    "unknown import: `{}::{}` has not been defined",
                    import.module(),
                    import.name()
                ),
            }
        }
        crate::instance::instantiate(store, module, &imports)
    }
}

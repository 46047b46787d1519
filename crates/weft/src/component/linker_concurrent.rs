//! Host functions that wait for futures: the `*_concurrent` ones run as
//! host tasks beside the store's other tasks and reach the store through
//! an [`Accessor`]; the `*_async` ones hold the store for the whole call
//! and wait on the fiber of a `call_async` (as in Wasmtime 48).

use super::concurrent::{block_on_store, Accessor, HostFuture};
use super::func_wrap::{results_of, typecheck_check, write_results};
use super::linker::{ConcurrentHostFunc, Definition, HostFunc};
use super::typed::{ComponentNamedList, Lift, Lower};
use super::types::ComponentFunc;
use super::{LinkerInstance, ResourceType, Val};
use crate::{AsContextMut, StoreContextMut};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

impl<T: 'static> LinkerInstance<'_, T> {
    fn check_concurrent(&self) -> crate::Result<()> {
        if !self.concurrency_support {
            crate::bail!("concurrent host functions require `Config::concurrency_support`");
        }
        Ok(())
    }

    /// Defines `name` as a concurrent host function with typed parameters
    /// and results (as Wasmtime's `func_wrap_concurrent`): each call is a
    /// host task that runs beside the store's other tasks, reaching the
    /// store through the [`Accessor`]. Satisfies `async func` imports (and
    /// synchronous ones, whose callers then wait).
    pub fn func_wrap_concurrent<Params, Return, F>(&mut self, name: &str, f: F) -> crate::Result<()>
    where
        F: Fn(&Accessor<T>, Params) -> Pin<Box<dyn Future<Output = crate::Result<Return>> + Send + '_>>
            + Send
            + Sync
            + 'static,
        Params: ComponentNamedList + Lift + 'static,
        Return: ComponentNamedList + Lower + 'static,
    {
        self.check_concurrent()?;
        let f = Arc::new(f);
        let func: ConcurrentHostFunc<T> = Arc::new(move |store, _ty, args, _results| {
            let params = Params::lift(store, Val::Tuple(args))?;
            let accessor = Accessor::<T>::whole();
            // The closure's synchronous part may use the accessor too.
            let call = weft_fiber::lend_store(&mut *store.0, || f(accessor, params));
            let future: HostFuture = Box::pin(async move {
                let ret = call.await?;
                accessor.try_with(|mut access| results_of(&mut access.as_context_mut(), ret))?
            });
            Ok(future)
        });
        let check = typecheck_check::<Params, Return>();
        self.insert(name, Definition::ConcurrentFunc(func, Some(check)))
    }

    /// Defines `name` as a concurrent host function taking and returning
    /// dynamic [`Val`]s (as Wasmtime's `func_new_concurrent`; see
    /// [`LinkerInstance::func_wrap_concurrent`]).
    pub fn func_new_concurrent<F>(&mut self, name: &str, f: F) -> crate::Result<()>
    where
        F: for<'a> Fn(
                &'a Accessor<T>,
                ComponentFunc,
                &'a [Val],
                &'a mut [Val],
            ) -> Pin<Box<dyn Future<Output = crate::Result<()>> + Send + 'a>>
            + Send
            + Sync
            + 'static,
    {
        self.check_concurrent()?;
        let f = Arc::new(f);
        let func: ConcurrentHostFunc<T> = Arc::new(move |_store, ty, args, results| {
            let f = f.clone();
            let future: HostFuture = Box::pin(async move {
                let accessor = Accessor::<T>::new_self();
                let mut out = vec![Val::Bool(false); results];
                f(&accessor, ty, &args, &mut out).await?;
                Ok(out)
            });
            Ok(future)
        });
        self.insert(name, Definition::ConcurrentFunc(func, None))
    }

    /// Defines `name` as a resource type of the host whose destructor is a
    /// future (as Wasmtime's `resource_concurrent`): a dropped handle's
    /// destructor runs as a host task beside the store's other tasks.
    pub fn resource_concurrent<F>(&mut self, name: &str, ty: ResourceType, dtor: F) -> crate::Result<()>
    where
        T: Send,
        F: Fn(&Accessor<T>, u32) -> Pin<Box<dyn Future<Output = crate::Result<()>> + Send + '_>>
            + Send
            + Sync
            + 'static,
    {
        self.check_concurrent()?;
        let dtor = Arc::new(dtor);
        self.resource(name, ty, move |mut store, rep| {
            let dtor = dtor.clone();
            let future: HostFuture = Box::pin(async move {
                let accessor = Accessor::<T>::new_self();
                dtor(&accessor, rep).await.map(|()| Vec::new())
            });
            super::concurrent::start_detached(&mut store, future)
        })
    }

    /// Defines `name` as a host function whose body is a future holding
    /// the store (as Wasmtime's `func_wrap_async`): the call waits for it
    /// on the fiber of the `call_async` that runs the guest or, called by a
    /// task of the component model's async ABI, on the task's fiber while
    /// nothing else in the store runs; it fails under a synchronous `call`. It cannot satisfy an `async func` import
    /// (use [`LinkerInstance::func_wrap_concurrent`]).
    pub fn func_wrap_async<Params, Return, F>(&mut self, name: &str, f: F) -> crate::Result<()>
    where
        F: Fn(StoreContextMut<'_, T>, Params) -> Box<dyn Future<Output = crate::Result<Return>> + Send + '_>
            + Send
            + Sync
            + 'static,
        Params: ComponentNamedList + Lift + 'static,
        Return: ComponentNamedList + Lower + 'static,
    {
        let host: HostFunc<T> = Arc::new(
            move |mut store: StoreContextMut<'_, T>, _ty: &ComponentFunc, args: Vec<Val>, results: &mut [Val]| {
                let params = Params::lift(&mut store, Val::Tuple(args))?;
                let ret = block_on_store(&mut store, |s| Box::into_pin(f(s, params)))??;
                write_results(results, results_of(&mut store, ret)?)
            },
        );
        let check = typecheck_check::<Params, Return>();
        self.insert(name, Definition::Func(host, Some(check), None))
    }

    /// Defines `name` as a host function taking and returning dynamic
    /// [`Val`]s whose body is a future holding the store (as Wasmtime's
    /// `func_new_async`; see [`LinkerInstance::func_wrap_async`]).
    pub fn func_new_async<F>(&mut self, name: &str, f: F) -> crate::Result<()>
    where
        F: for<'a> Fn(
                StoreContextMut<'a, T>,
                ComponentFunc,
                &'a [Val],
                &'a mut [Val],
            ) -> Box<dyn Future<Output = crate::Result<()>> + Send + 'a>
            + Send
            + Sync
            + 'static,
    {
        let host: HostFunc<T> = Arc::new(
            move |mut store: StoreContextMut<'_, T>, ty: &ComponentFunc, args: Vec<Val>, results: &mut [Val]| {
                block_on_store(&mut store, |s| Box::into_pin(f(s, ty.clone(), &args, results)))?
            },
        );
        self.insert(name, Definition::Func(host, None, None))
    }

    /// Defines `name` as a resource type of the host whose destructor is a
    /// future holding the store (as Wasmtime's `resource_async`): it runs
    /// on the fiber of the `call_async` that drops the handle.
    pub fn resource_async<F>(&mut self, name: &str, ty: ResourceType, dtor: F) -> crate::Result<()>
    where
        T: Send,
        F: Fn(StoreContextMut<'_, T>, u32) -> Box<dyn Future<Output = crate::Result<()>> + Send + '_>
            + Send
            + Sync
            + 'static,
    {
        self.resource(name, ty, move |mut store, rep| {
            block_on_store(&mut store, |s| Box::into_pin(dtor(s, rep)))?
        })
    }
}

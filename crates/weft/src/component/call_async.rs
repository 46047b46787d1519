//! Async calls into components (feature `async`): each runs the
//! synchronous call on a fiber, so that async host functions, fuel and epoch
//! yields can suspend it. As for core calls, the future may be dropped at
//! any poll; the call is then cancelled, its fiber unwound, and the store
//! stays usable (the instance a cancelled call was running in is left as a
//! trap leaves it: not entered again).

use super::{
    Component, ComponentNamedList, Func, Instance, InstancePre, Lift, Linker, Lower, ResourceAny, TypedFunc, Val,
};
use crate::async_support::on_fiber;
use crate::{AsContextMut, StoreContextMut};

impl Func {
    /// Calls the function on a fiber (see [`Func::call`]).
    pub async fn call_async<T: Send + 'static>(
        &self,
        mut store: impl AsContextMut<Data = T> + Send,
        params: &[Val],
        results: &mut [Val],
    ) -> crate::Result<()> {
        let func = *self;
        let store = store.as_context_mut().0;
        on_fiber(store, move |store| func.call(StoreContextMut(store), params, results)).await
    }

    /// Does nothing, as [`Func::post_return`]: `call_async` runs the
    /// `post-return` function itself. Kept so that programs written for
    /// Wasmtime compile.
    #[deprecated(note = "no longer has any effect: calls run `post-return` themselves")]
    pub async fn post_return_async<T: Send + 'static>(
        &self,
        _store: impl AsContextMut<Data = T> + Send,
    ) -> crate::Result<()> {
        Ok(())
    }
}

impl<Params, Results> TypedFunc<Params, Results>
where
    Params: ComponentNamedList + Lower + Send + Sync,
    Results: ComponentNamedList + Lift + Send + Sync,
{
    /// Calls the function on a fiber (see [`TypedFunc::call`]).
    pub async fn call_async<T: Send + 'static>(
        &self,
        mut store: impl AsContextMut<Data = T> + Send,
        params: Params,
    ) -> crate::Result<Results> {
        let store = store.as_context_mut().0;
        on_fiber(store, move |store| self.call(StoreContextMut(store), params)).await
    }

    /// Does nothing, as [`TypedFunc::post_return`]. Kept so that programs
    /// written for Wasmtime compile.
    #[deprecated(note = "no longer has any effect: calls run `post-return` themselves")]
    pub async fn post_return_async<T: Send + 'static>(
        &self,
        _store: impl AsContextMut<Data = T> + Send,
    ) -> crate::Result<()> {
        Ok(())
    }
}

impl<T: Send + 'static> Linker<T> {
    /// Instantiates on a fiber (see [`Linker::instantiate`]).
    pub async fn instantiate_async(
        &self,
        mut store: impl AsContextMut<Data = T> + Send,
        component: &Component,
    ) -> crate::Result<Instance> {
        let store = store.as_context_mut().0;
        on_fiber(store, move |store| self.instantiate(StoreContextMut(store), component)).await
    }
}

impl<T: Send + 'static> InstancePre<T> {
    /// Instantiates on a fiber (see [`InstancePre::instantiate`]).
    pub async fn instantiate_async(&self, mut store: impl AsContextMut<Data = T> + Send) -> crate::Result<Instance> {
        let store = store.as_context_mut().0;
        on_fiber(store, move |store| self.instantiate(StoreContextMut(store))).await
    }
}

impl ResourceAny {
    /// Drops the resource on a fiber, running its destructor (see
    /// [`ResourceAny::resource_drop`]).
    pub async fn resource_drop_async<T: Send + 'static>(
        self,
        mut store: impl AsContextMut<Data = T> + Send,
    ) -> crate::Result<()> {
        let store = store.as_context_mut().0;
        on_fiber(store, move |store| self.resource_drop(StoreContextMut(store))).await
    }
}

//! Async calls: wasm runs on a fiber from `weft-fiber`, and host functions
//! may await futures. The drop-safety guarantee is stated in the crate docs.

use crate::func::{WasmParams, WasmRet};
use crate::store::{Caller, StoreContextMut, StoreInner};
use crate::types::FuncType;
use crate::values::Val;
use crate::{AsContextMut, Extern, Func, Instance, Linker, Module, TypedFunc, WasmResults};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use weft_fiber::AsyncCx;
use weft_runtime::{CallState, HostCaller, ValRaw};

/// What a store knows about the async call it is running.
pub(crate) struct AsyncState {
    cx: AsyncCx,
    /// This thread's chain of wasm calls when the fiber was entered.
    entry: CallState,
    /// How many call-hook transitions were open when the fiber was
    /// entered: those above are the fiber's own.
    hook_depth: usize,
}

impl<T: 'static> StoreInner<T> {
    /// Waits for `future` on the fiber of the current async call.
    pub(crate) fn block_on<F: Future + ?Sized>(&mut self, future: Pin<&mut F>) -> crate::Result<F::Output> {
        let Some(state) = self.opaque.async_state.as_ref() else {
            crate::bail!("cannot wait for a future: the wasm call is not async (use `call_async`)");
        };
        let (cx, entry, depth) = (state.cx.clone(), state.entry, state.hook_depth);
        let mut future = future;
        loop {
            if let Poll::Ready(v) = cx.poll(future.as_mut())? {
                return Ok(v);
            }
            // The call hook hears the fiber's transitions close while it
            // is suspended, and open again when it resumes.
            let saved = self.suspend_call_hooks(depth)?;
            let mut pending = Pending(false);
            let waited = block_on(&cx, entry, Pin::new(&mut pending));
            self.resume_call_hooks(saved)?;
            waited?;
        }
    }
}

impl AsyncState {
    pub(crate) fn parts(&self) -> (AsyncCx, CallState) {
        (self.cx.clone(), self.entry)
    }
}

impl crate::store::StoreOpaque {
    /// The fiber context of the `call_async` running now, for an async host
    /// function to wait on; an error under a synchronous call.
    pub(crate) fn async_parts(&self) -> crate::Result<(AsyncCx, CallState)> {
        match self.async_state.as_ref() {
            Some(state) => Ok(state.parts()),
            None => crate::bail!("cannot call an async host function from a sync call: use `call_async`"),
        }
    }
}

/// Waits for `future` on the fiber of `cx`, suspending it while pending.
pub(crate) fn block_on<F: Future + ?Sized>(
    cx: &AsyncCx,
    entry: CallState,
    mut future: Pin<&mut F>,
) -> crate::Result<F::Output> {
    loop {
        if let Poll::Ready(v) = cx.poll(future.as_mut())? {
            return Ok(v);
        }
        if !cx.can_suspend() {
            crate::bail!(
                "unsupported: waiting for the host (an async host function, or a fuel or epoch yield) \
                 inside a task of the component model's async ABI"
            );
        }
        // The wasm frames below stay on this fiber's stack; take their
        // trap-handling state along while suspended.
        let ours = weft_runtime::replace_call_state(entry);
        let resumed = cx.suspend();
        weft_runtime::replace_call_state(ours);
        resumed?;
    }
}

/// A future that is pending once (without waking anyone: the future the
/// fiber waits for was polled and registered its waker), then ready: one
/// suspension of the fiber.
struct Pending(bool);

impl Future for Pending {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            Poll::Pending
        }
    }
}

/// A future that is pending once, waking itself, then ready.
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

impl<T: 'static> StoreInner<T> {
    /// Yields to the executor once (fuel and epoch yields).
    pub(crate) fn async_yield_impl(&mut self) -> crate::Result<()> {
        let mut y = YieldNow(false);
        self.block_on(Pin::new(&mut y))
    }
}

/// Runs `f` with the store on a fiber of the engine's pool: the store's
/// worker fiber, kept for its next async call (it goes, and its stack back
/// to the pool, with the store, or when a call is cancelled).
pub(crate) async fn on_fiber<T: Send + 'static, R: Send>(
    store: &mut StoreInner<T>,
    f: impl FnOnce(&mut StoreInner<T>) -> crate::Result<R> + Send,
) -> crate::Result<R> {
    let (worker, cx) = match (store.opaque.fiber_worker.take(), store.opaque.fiber_cx.take()) {
        (Some(worker), Some(cx)) if worker.owns(&cx) => (worker, cx),
        _ => {
            let worker = weft_fiber::FiberWorker::new(store.opaque.engine.inner.fiber_pool.clone());
            let cx = worker.cx();
            (worker, cx)
        }
    };
    let on_store = &mut *store;
    let future = worker.on_fiber(move |_| {
        let entry = weft_runtime::current_call_state();
        let hook_depth = on_store.call_hook_depth();
        let prev = on_store
            .opaque
            .async_state
            .replace(AsyncState { cx, entry, hook_depth });
        // A host panic unwinds through here: put the store back first.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut *on_store)));
        let ours = std::mem::replace(&mut on_store.opaque.async_state, prev);
        on_store.opaque.fiber_cx = ours.map(|state| state.cx);
        result.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })?;
    let (result, worker) = future.await;
    store.opaque.fiber_worker = Some(worker);
    result
}

impl Func {
    /// Calls the function on a fiber, so that async host functions, fuel and
    /// epoch yields can suspend it.
    ///
    /// The future may be dropped at any point; the call is then cancelled,
    /// its fiber unwound and its stack reused, and the store stays usable
    /// (see "Async calls and drop safety" in the crate docs).
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

    /// A host function from an async closure: it gets a [`Caller`] and its
    /// parameters and returns a boxed future of its results.
    pub fn wrap_async<T: Send + 'static, P, R, F>(mut store: impl AsContextMut<Data = T>, func: F) -> Func
    where
        F: for<'a> Fn(Caller<'a, T>, P) -> Box<dyn Future<Output = R> + Send + 'a> + Send + Sync + 'static,
        P: WasmParams + 'static,
        R: WasmRet + 'static,
    {
        let store = store.as_context_mut().0;
        let engine = store.opaque.engine.clone();
        let (ty, host) = wrap_async_host(&engine, func);
        crate::func::new_host(store, ty, host)
    }

    /// A host function of type `ty` from an async closure over [`Val`]s.
    pub fn new_async<T: Send + 'static, F>(mut store: impl AsContextMut<Data = T>, ty: FuncType, func: F) -> Func
    where
        F: for<'a> Fn(
                Caller<'a, T>,
                &'a [Val],
                &'a mut [Val],
            ) -> Box<dyn Future<Output = crate::Result<()>> + Send + 'a>
            + Send
            + Sync
            + 'static,
    {
        let host = new_async_host(ty.clone(), func);
        crate::func::new_host(store.as_context_mut().0, ty, host)
    }
}

fn wrap_async_host<T: Send + 'static, P, R, F>(
    engine: &crate::Engine,
    func: F,
) -> (FuncType, crate::func::HostClosure<T>)
where
    F: for<'a> Fn(Caller<'a, T>, P) -> Box<dyn Future<Output = R> + Send + 'a> + Send + Sync + 'static,
    P: WasmParams + 'static,
    R: WasmRet + 'static,
{
    let ty = FuncType::new(engine, P::types(), R::Ok::types());
    let host = weft_runtime::HostFunc::new(
        move |store: &mut StoreInner<T>, caller: HostCaller, values: &mut [ValRaw]| {
            let (cx, entry) = store.opaque.async_parts()?;
            let params = P::load(&store.opaque, values);
            let instance = store.opaque.instance_by_runtime_index(caller.instance);
            let result = {
                let caller = Caller {
                    store: StoreContextMut(&mut *store),
                    caller: instance,
                };
                let mut future = Box::into_pin(func(caller, params));
                block_on(&cx, entry, future.as_mut())?
            };
            result.into_result()?.store(&store.opaque, values)
        },
    );
    (ty, host)
}

fn new_async_host<T: Send + 'static, F>(ty: FuncType, func: F) -> crate::func::HostClosure<T>
where
    F: for<'a> Fn(Caller<'a, T>, &'a [Val], &'a mut [Val]) -> Box<dyn Future<Output = crate::Result<()>> + Send + 'a>
        + Send
        + Sync
        + 'static,
{
    weft_runtime::HostFunc::new(
        move |store: &mut StoreInner<T>, caller: HostCaller, values: &mut [ValRaw]| {
            let (cx, entry) = store.opaque.async_parts()?;
            let params: Vec<Val> = ty
                .params()
                .enumerate()
                .map(|(i, t)| Val::from_raw(&store.opaque, values[i], &t))
                .collect();
            let mut results: Vec<Val> = ty
                .results()
                .map(|t| Val::default_for_ty(&t).unwrap_or(Val::I32(0)))
                .collect();
            let instance = store.opaque.instance_by_runtime_index(caller.instance);
            {
                let caller = Caller {
                    store: StoreContextMut(&mut *store),
                    caller: instance,
                };
                let mut future = Box::into_pin(func(caller, &params, &mut results));
                block_on(&cx, entry, future.as_mut())??;
            }
            for (i, (r, t)) in results.iter().zip(ty.results()).enumerate() {
                values[i] = r
                    .to_raw(&store.opaque, &t)
                    .map_err(|e| e.context(format!("result {i} of a host function")))?;
            }
            Ok(())
        },
    )
}

impl<Params: WasmParams + Send, Results: WasmResults + Send> TypedFunc<Params, Results> {
    /// Calls the function on a fiber (see [`Func::call_async`]).
    pub async fn call_async<T: Send + 'static>(
        &self,
        mut store: impl AsContextMut<Data = T> + Send,
        params: Params,
    ) -> crate::Result<Results> {
        let typed = *self;
        let store = store.as_context_mut().0;
        on_fiber(store, move |store| typed.call(StoreContextMut(store), params)).await
    }
}

impl Instance {
    /// Instantiates on a fiber, so that the start function may call async
    /// host functions (see [`Instance::new`]).
    pub async fn new_async<T: Send + 'static>(
        mut store: impl AsContextMut<Data = T> + Send,
        module: &Module,
        imports: &[Extern],
    ) -> crate::Result<Instance> {
        let store = store.as_context_mut().0;
        on_fiber(store, move |store| crate::instance::instantiate(store, module, imports)).await
    }
}

impl<T: Send + 'static> Linker<T> {
    /// Instantiates on a fiber (see [`Linker::instantiate`]).
    pub async fn instantiate_async(
        &self,
        mut store: impl AsContextMut<Data = T> + Send,
        module: &Module,
    ) -> crate::Result<Instance> {
        let store = store.as_context_mut().0;
        on_fiber(store, move |store| self.instantiate(StoreContextMut(store), module)).await
    }

    /// Defines `module::name` as an async host function (see
    /// [`Func::wrap_async`]).
    pub fn func_wrap_async<P, R, F>(&mut self, module: &str, name: &str, func: F) -> crate::Result<&mut Self>
    where
        F: for<'a> Fn(Caller<'a, T>, P) -> Box<dyn Future<Output = R> + Send + 'a> + Send + Sync + 'static,
        P: WasmParams + 'static,
        R: WasmRet + 'static,
    {
        let (ty, host) = wrap_async_host(self.engine(), func);
        self.define_host(module, name, ty, host)
    }

    /// Defines `module::name` as an async host function of type `ty` (see
    /// [`Func::new_async`]).
    pub fn func_new_async<F>(&mut self, module: &str, name: &str, ty: FuncType, func: F) -> crate::Result<&mut Self>
    where
        F: for<'a> Fn(
                Caller<'a, T>,
                &'a [Val],
                &'a mut [Val],
            ) -> Box<dyn Future<Output = crate::Result<()>> + Send + 'a>
            + Send
            + Sync
            + 'static,
    {
        let host = new_async_host(ty.clone(), func);
        self.define_host(module, name, ty, host)
    }
}

impl crate::Engine {
    /// The number of async stacks lent to running or suspended async calls
    /// now (a diagnostic: it returns to zero once every call future has
    /// completed or been dropped).
    pub fn async_stacks_in_use(&self) -> usize {
        self.inner.fiber_pool.stacks_in_use()
    }
}

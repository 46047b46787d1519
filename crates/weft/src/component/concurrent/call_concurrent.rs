//! Calls from the host that run concurrently with the store's other tasks:
//! `call_concurrent`, `start_call_concurrent` and
//! `finish_call_concurrent` (as in Wasmtime). The host's hold on the
//! callee's task is a reference in the task table; a call future or
//! `*CallConcurrent` value dropped at any point gives it back through the
//! store's queue of dropped holds, which the store empties the next time
//! it runs, so no drop needs the store and none leaks.

use super::accessor::AsAccessor;
use super::calls::{HostCallArgs, TaskResult};
use super::{calls, host};
use crate::component::call::{check_call, lifted_ref};
use crate::component::typed::tuple_vals;
use crate::component::{trap, ComponentNamedList, Func, Lift, Lower, TypedFunc, Val};
use crate::{AsContextMut, StoreContextMut};
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};
use std::task::Poll;
use weft_tasks::EntryId;

/// The id of a guest task started by the host (as Wasmtime's
/// `GuestTaskId`).
#[derive(Debug, Copy, Clone, Ord, PartialOrd, Eq, PartialEq, Hash)]
pub struct GuestTaskId(u32);

impl<T: 'static> StoreContextMut<'_, T> {
    /// The guest tasks of the call running now, the current one first and
    /// then each caller's (as Wasmtime's `async_call_stack`): empty when no
    /// guest task runs (the host's own code).
    pub fn async_call_stack(&mut self) -> crate::Result<impl Iterator<Item = GuestTaskId>> {
        Ok(calls::call_stack(self).into_iter().map(|t| GuestTaskId(t.index())))
    }

    /// [`Store::concurrent_state_table_size`](crate::Store::concurrent_state_table_size)
    /// through a context.
    #[doc(hidden)]
    pub fn concurrent_state_table_size(&mut self) -> usize {
        let components = self.components();
        components.tasks.live_entries() + components.tasks.live_threads() + components.sched.host.len()
    }

    /// Panics unless the store's concurrent state is empty: no task,
    /// thread, waitable, waitable set, host task or suspended fiber is
    /// left (as Wasmtime's `assert_concurrent_state_empty`, for tests).
    /// [`Store::check_concurrent_state`](crate::Store::check_concurrent_state)
    /// is the non-panicking check of the reference counts.
    #[doc(hidden)]
    pub fn assert_concurrent_state_empty(mut self) {
        host::release_dropped(&mut self);
        let size = self.concurrent_state_table_size();
        let fibers = self.components().sched.fiber_count();
        assert!(
            size == 0 && fibers == 0,
            "the concurrent state is not empty ({size} entries, {fibers} fibers):\n{}",
            super::describe_state(self.components())
        );
    }
}

/// The host's reference to a task it called; given back when dropped.
struct TaskHold {
    task: Option<EntryId>,
    dropped: Arc<Mutex<Vec<EntryId>>>,
}

impl Drop for TaskHold {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            crate::component::lock(&self.dropped).push(task);
        }
    }
}

/// A call started by the host and not finished yet.
struct PendingCall {
    func: Func,
    /// The callee's task.
    hold: TaskHold,
    id: GuestTaskId,
    /// The call's task group (when a hook is installed).
    group: Option<super::hooks::TaskGroupId>,
}

impl PendingCall {
    fn start<T: Send + 'static>(
        func: Func,
        store: &mut StoreContextMut<'_, T>,
        params: HostCallArgs,
        results: usize,
    ) -> crate::Result<PendingCall> {
        store.0.opaque().check(func.store, "component function")?;
        host::check_concurrency_support(store)?;
        host::release_dropped(store);
        let dropped = store.components().sched.host.dropped.clone();
        check_call(store, lifted_ref(store, func.index)?, results)?;
        let group = super::hooks::start(store)?;
        let task = if calls::is_async_typed(store, func.index) {
            calls::start_host_call(store, func.index, params, group)
        } else {
            match params {
                HostCallArgs::Vals(v) => calls::start_sync_host_call(store, func.index, v, group),
                HostCallArgs::Flat(_) => Err(crate::format_err!(
                    "internal error: flat arguments for a synchronous function"
                )),
            }
        };
        let task = match task {
            Ok(task) => task,
            Err(e) => {
                if let Some(g) = group {
                    let _ = super::hooks::finish(store, g);
                }
                return Err(e);
            }
        };
        Ok(PendingCall {
            func,
            hold: TaskHold {
                task: Some(task),
                dropped,
            },
            id: GuestTaskId(task.index()),
            group,
        })
    }

    /// Waits, through `accessor`, for the call's results (flat when they
    /// were returned so, see [`TaskResult::Flat`]).
    async fn finish<A: AsAccessor>(mut self, accessor: A) -> crate::Result<TaskResult> {
        let accessor = accessor.as_accessor();
        let (func, group) = (self.func, self.group);
        std::future::poll_fn(|cx| {
            let Some(task) = self.hold.task else {
                return Poll::Ready(Err(crate::format_err!("the call's results were taken already")));
            };
            let polled = accessor.try_with(|mut access| {
                let mut store = access.as_context_mut();
                store.0.opaque().check(func.store, "component function")?;
                Ok::<_, crate::Error>(match calls::poll_host_call(&mut store, task, cx.waker()) {
                    Poll::Pending => Poll::Pending,
                    Poll::Ready(r) => {
                        let finished = match group {
                            Some(g) => super::hooks::finish(&mut store, g),
                            None => Ok(()),
                        };
                        Poll::Ready(finished.and(r))
                    }
                })
            });
            match polled.and_then(|r| r) {
                Ok(Poll::Pending) => Poll::Pending,
                Ok(Poll::Ready(r)) => {
                    self.hold.task = None;
                    Poll::Ready(r.and_then(|vals| vals.ok_or_else(|| trap("the call was cancelled"))))
                }
                Err(e) => Poll::Ready(Err(e)),
            }
        })
        .await
    }
}

/// A call started by [`Func::start_call_concurrent`], to finish with
/// [`Func::finish_call_concurrent`]. Dropping it lets the task go on
/// without anyone waiting for its results.
pub struct FuncCallConcurrent<'a, T> {
    call: PendingCall,
    results: &'a mut [Val],
    _marker: PhantomData<fn() -> T>,
}

impl<T> FuncCallConcurrent<'_, T> {
    /// The callee's task.
    pub fn task(&self) -> GuestTaskId {
        self.call.id
    }
}

/// A call started by [`TypedFunc::start_call_concurrent`], to finish with
/// [`TypedFunc::finish_call_concurrent`].
pub struct TypedFuncCallConcurrent<T, Params, Return> {
    call: PendingCall,
    _marker: PhantomData<fn(T, Params) -> Return>,
}

impl<T, P, R> TypedFuncCallConcurrent<T, P, R> {
    /// The callee's task.
    pub fn task(&self) -> GuestTaskId {
        self.call.id
    }
}

impl Func {
    /// Calls the function concurrently with the store's other tasks: the
    /// future is ready when the callee's task returned (as Wasmtime's
    /// `call_concurrent`). Polled inside the store's event loop
    /// ([`StoreContextMut::run_concurrent`]); dropping it leaves the task
    /// running without a waiter.
    pub async fn call_concurrent<A>(self, accessor: A, params: &[Val], results: &mut [Val]) -> crate::Result<()>
    where
        A: AsAccessor,
        A::Data: Send,
    {
        let call = accessor
            .as_accessor()
            .try_with(|mut access| self.start_call_concurrent(access.as_context_mut(), params, results))??;
        self.finish_call_concurrent(accessor, call).await
    }

    /// Starts a concurrent call: the callee's task runs until it returns
    /// or blocks. Finish it with [`Func::finish_call_concurrent`].
    pub fn start_call_concurrent<'a, T: Send + 'static>(
        self,
        mut store: impl AsContextMut<Data = T>,
        params: &'a [Val],
        results: &'a mut [Val],
    ) -> crate::Result<FuncCallConcurrent<'a, T>> {
        let mut store = store.as_context_mut();
        let args = calls::host_call_args(&store, self.index, params);
        let call = PendingCall::start(self, &mut store, args, results.len())?;
        Ok(FuncCallConcurrent {
            call,
            results,
            _marker: PhantomData,
        })
    }

    /// Waits for the results of a call started by
    /// [`Func::start_call_concurrent`] and writes them.
    pub async fn finish_call_concurrent<T: Send + 'static, A>(
        self,
        accessor: A,
        call: FuncCallConcurrent<'_, T>,
    ) -> crate::Result<()>
    where
        A: AsAccessor<Data = T>,
    {
        if call.call.func != self {
            crate::bail!("the call was started by another function");
        }
        let FuncCallConcurrent { call, results, .. } = call;
        let accessor = accessor.as_accessor();
        let vals = call.finish(accessor).await?;
        let vals = accessor.try_with(|mut access| {
            let store = access.as_context_mut();
            vals.into_vals(crate::component::call::lifted_ref(&store, self.index)?)
        })??;
        if vals.len() != results.len() {
            crate::bail!("expected {} results, got {}", vals.len(), results.len());
        }
        for (r, v) in results.iter_mut().zip(vals) {
            *r = v;
        }
        Ok(())
    }
}

impl<Params, Return> TypedFunc<Params, Return>
where
    Params: ComponentNamedList + Lower,
    Return: ComponentNamedList + Lift,
{
    /// Calls the function concurrently with the store's other tasks (see
    /// [`Func::call_concurrent`]).
    pub async fn call_concurrent<A>(self, accessor: A, params: Params) -> crate::Result<Return>
    where
        A: AsAccessor,
        A::Data: Send,
        Params: 'static,
        Return: 'static,
    {
        let call = accessor
            .as_accessor()
            .try_with(|mut access| self.start_call_concurrent(access.as_context_mut(), params))??;
        self.finish_call_concurrent(accessor, call).await
    }

    /// Starts a concurrent call (see [`Func::start_call_concurrent`]).
    pub fn start_call_concurrent<T>(
        self,
        mut store: impl AsContextMut<Data = T>,
        params: Params,
    ) -> crate::Result<TypedFuncCallConcurrent<T, Params, Return>>
    where
        T: Send + 'static,
        Params: 'static,
        Return: 'static,
    {
        let mut store = store.as_context_mut();
        // Integer and `bool` parameters go as their flat values.
        let mut flat = [0u64; calls::MAX_HOST_FLAT_ARGS];
        let args = match params.lower_scalars(&mut flat) {
            Some(len) if calls::takes_flat_args(&store, self.func().index, len) => {
                HostCallArgs::Flat(calls::FlatArgs { len, vals: flat })
            }
            _ => HostCallArgs::Vals(tuple_vals(params.lower(&mut store)?, Params::LEN)?),
        };
        let call = PendingCall::start(*self.func(), &mut store, args, Return::LEN)?;
        Ok(TypedFuncCallConcurrent {
            call,
            _marker: PhantomData,
        })
    }

    /// Waits for the results of a call started by
    /// [`TypedFunc::start_call_concurrent`].
    pub async fn finish_call_concurrent<T, A>(
        self,
        accessor: A,
        call: TypedFuncCallConcurrent<T, Params, Return>,
    ) -> crate::Result<Return>
    where
        T: Send + 'static,
        A: AsAccessor<Data = T>,
        Params: 'static,
        Return: 'static,
    {
        if call.call.func != *self.func() {
            crate::bail!("the call was started by another function");
        }
        let accessor_ref = accessor.as_accessor().clone();
        let result = call.call.finish(&accessor_ref).await?;
        // A flat result is lifted here, with no component value made.
        if let TaskResult::Flat(flat) = &result {
            if let Some((r, used)) = Return::lift_scalars(flat.as_slice()) {
                if used == flat.iter().len() {
                    return Ok(r);
                }
            }
        }
        let index = self.func().index;
        accessor_ref.try_with(|mut access| {
            let mut store = access.as_context_mut();
            let vals = result.into_vals(crate::component::call::lifted_ref(&store, index)?)?;
            Return::lift(&mut store, Val::Tuple(vals))
        })?
    }
}

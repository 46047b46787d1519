//! The accessor family of the concurrent API: how host code that runs
//! concurrently with guest tasks (inside [`Store::run_concurrent`], a
//! concurrent host function, a spawned task) reaches the store, briefly and
//! never across an `await`.
//!
//! The event loop lends the store to the futures it polls
//! (`weft_fiber::lend_store`); [`Accessor::with`] takes it for the length
//! of its closure. An `Accessor` itself holds no reference to the store,
//! so it is `Send` and `Sync` whatever `T` is, and futures that hold one
//! stay `'static`.
//!
//! [`Store::run_concurrent`]: crate::Store::run_concurrent

// `super::host` (spawning, the idle check) is reached by path: the
// accessor and the event loop that lends it the store are one mechanism.
pub use crate::component::has_data::{HasData, HasSelf};
use crate::store::StoreInner;
use crate::{AsContext, AsContextMut, StoreContext, StoreContextMut};
use std::future::Future;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// The getter of [`HasSelf`].
fn whole<T>(data: &mut T) -> &mut T {
    data
}

/// Host code's way to the store of the event loop it runs in (as
/// Wasmtime's `Accessor`). It borrows nothing, so a future may keep it
/// across `await`s; each [`Accessor::with`] reaches the store for the length
/// of a closure.
pub struct Accessor<T: 'static, D: HasData + ?Sized = HasSelf<T>> {
    get: fn(&mut T) -> D::Data<'_>,
    _marker: PhantomData<fn() -> T>,
}

impl<T: 'static> Accessor<T> {
    /// The accessor of the whole store data, as a constant (so that a
    /// `'static` reference to it exists).
    const WHOLE: Accessor<T> = Accessor {
        get: whole::<T>,
        _marker: PhantomData,
    };

    /// A `'static` accessor of the whole store data, for futures that
    /// borrow their accessor and outlive any local.
    pub(crate) fn whole() -> &'static Accessor<T> {
        &Self::WHOLE
    }

    /// The accessor of the whole store data.
    pub(crate) fn new_self() -> Accessor<T> {
        Accessor {
            get: whole::<T>,
            _marker: PhantomData,
        }
    }
}

impl<T: 'static, D: HasData + ?Sized> Accessor<T, D> {
    /// Runs `fun` with the store. Fails when called outside the store's
    /// event loop (from another thread, or from a future that the event
    /// loop does not poll), or from inside another `with` of the same
    /// store. (Weft's own: [`Accessor::with`] panics in those cases, as in
    /// Wasmtime.)
    pub fn try_with<R>(&self, fun: impl FnOnce(Access<'_, T, D>) -> R) -> crate::Result<R> {
        weft_fiber::with_lent_store::<StoreInner<T>, R>(|inner| {
            fun(Access {
                store: StoreContextMut(inner),
                get: self.get,
            })
        })
        .ok_or_else(|| {
            crate::format_err!(
                "the store is not reachable here: `Accessor::with` must be called by a future that the \
                 store's event loop polls (`run_concurrent`, a concurrent host function, a spawned task), \
                 and not from inside another `with`"
            )
        })
    }

    /// Runs `fun` with the store (as Wasmtime's `Accessor::with`).
    ///
    /// # Panics
    ///
    /// When called outside the store's event loop or from inside another
    /// `with`, as Wasmtime does; [`Accessor::try_with`] returns an error
    /// instead.
    pub fn with<R>(&self, fun: impl FnOnce(Access<'_, T, D>) -> R) -> R {
        match self.try_with(fun) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        }
    }

    /// The getter that projects the store data to `D::Data`.
    pub fn getter(&self) -> fn(&mut T) -> D::Data<'_> {
        self.get
    }

    /// An accessor of the same store with another projection of its data.
    pub fn with_getter<D2: HasData + ?Sized>(&self, get_data: fn(&mut T) -> D2::Data<'_>) -> Accessor<T, D2> {
        Accessor {
            get: get_data,
            _marker: PhantomData,
        }
    }

    /// Spawns `task` on the store's event loop: it runs concurrently with
    /// everything else there, until it finishes or its [`JoinHandle`] is
    /// aborted. Fails outside the event loop.
    pub fn spawn(&self, task: impl AccessorTask<T, D>) -> crate::Result<JoinHandle>
    where
        T: 'static,
    {
        let get = self.get;
        self.try_with(|mut access| super::host::spawn(&mut access.store, get, task))?
    }

    /// Ready when the store's event loop has no guest task, host task or
    /// spawned task left other than the one polling this (Wasmtime's hook
    /// for embedders that wait for quiet). Pending otherwise, with `cx`'s
    /// waker woken when that changes.
    pub fn poll_no_interesting_tasks(&self, cx: &mut Context<'_>) -> Poll<()> {
        let idle = self
            .try_with(|mut access| super::host::is_idle(&mut access.store, cx))
            .unwrap_or(true);
        if idle {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }

    /// Ready when a concurrent call of `func` may start now. Weft starts
    /// every call at once (a call that meets backpressure waits inside the
    /// callee's task), so this is always ready.
    pub fn poll_ready_for_concurrent_call(&self, _func: super::super::Func, _cx: &mut Context<'_>) -> Poll<()> {
        Poll::Ready(())
    }
}

impl<T, D: HasData + ?Sized> Clone for Accessor<T, D> {
    fn clone(&self) -> Self {
        Accessor {
            get: self.get,
            _marker: PhantomData,
        }
    }
}

/// The store, reached through [`Accessor::with`] (as Wasmtime's `Access`):
/// a [`StoreContextMut`] and the accessor's getter.
pub struct Access<'a, T: 'static, D: HasData + ?Sized = HasSelf<T>> {
    store: StoreContextMut<'a, T>,
    get: fn(&mut T) -> D::Data<'_>,
}

impl<'a, T: 'static, D: HasData + ?Sized> Access<'a, T, D> {
    /// An `Access` of `store` with the getter `get_data`.
    pub fn new(store: StoreContextMut<'a, T>, get_data: fn(&mut T) -> D::Data<'_>) -> Self {
        Access { store, get: get_data }
    }

    /// The whole store data.
    pub fn data_mut(&mut self) -> &mut T {
        self.store.data_mut()
    }

    /// The store data as the getter projects it.
    pub fn get(&mut self) -> D::Data<'_> {
        (self.get)(self.store.data_mut())
    }

    /// The function that projects the store's data to `D`'s view.
    pub fn getter(&self) -> fn(&mut T) -> D::Data<'_> {
        self.get
    }

    /// Spawns `task` on the store's event loop (see [`Accessor::spawn`]).
    pub fn spawn(&mut self, task: impl AccessorTask<T, D>) -> crate::Result<JoinHandle>
    where
        T: 'static,
    {
        super::host::spawn(&mut self.store, self.get, task)
    }
}

impl<T: 'static, D: HasData + ?Sized> AsContext for Access<'_, T, D> {
    type Data = T;
    fn as_context(&self) -> StoreContext<'_, T> {
        self.store.as_context()
    }
}

impl<T: 'static, D: HasData + ?Sized> AsContextMut for Access<'_, T, D> {
    fn as_context_mut(&mut self) -> StoreContextMut<'_, T> {
        self.store.as_context_mut()
    }
}

/// Anything that gives an [`Accessor`] (as Wasmtime's `AsAccessor`): an
/// accessor, or a reference to one.
pub trait AsAccessor {
    /// The store's data type.
    type Data: 'static;
    /// The accessor's projection of the data.
    type AccessorData: HasData + ?Sized;
    /// The accessor.
    fn as_accessor(&self) -> &Accessor<Self::Data, Self::AccessorData>;
}

impl<T: 'static, D: HasData + ?Sized> AsAccessor for Accessor<T, D> {
    type Data = T;
    type AccessorData = D;
    fn as_accessor(&self) -> &Accessor<T, D> {
        self
    }
}

impl<A: AsAccessor + ?Sized> AsAccessor for &A {
    type Data = A::Data;
    type AccessorData = A::AccessorData;
    fn as_accessor(&self) -> &Accessor<A::Data, A::AccessorData> {
        (**self).as_accessor()
    }
}

/// A task to spawn on a store's event loop (as Wasmtime's `AccessorTask`):
/// it runs with an accessor of the store.
pub trait AccessorTask<T, D = HasSelf<T>>: Send + 'static
where
    D: HasData + ?Sized,
{
    /// Runs the task.
    fn run(self, accessor: &Accessor<T, D>) -> impl Future<Output = crate::Result<()>> + Send;
}

/// What a spawned task and its [`JoinHandle`]s share.
#[derive(Default)]
pub(crate) struct JoinState {
    inner: Mutex<JoinInner>,
    aborted: AtomicBool,
}

#[derive(Default)]
struct JoinInner {
    finished: bool,
    /// Who waits for the end (a polled `JoinHandle`).
    joiners: Vec<Waker>,
    /// The spawned task's own waker, to wake it when aborted.
    task: Option<Waker>,
}

impl JoinState {
    fn lock(&self) -> std::sync::MutexGuard<'_, JoinInner> {
        crate::component::lock(&self.inner)
    }

    /// Whether the task was aborted.
    pub(crate) fn is_aborted(&self) -> bool {
        self.aborted.load(Ordering::Acquire)
    }

    /// Records the spawned task's waker.
    pub(crate) fn set_task_waker(&self, waker: Waker) {
        self.lock().task = Some(waker);
    }

    /// Marks the task finished (returned, failed, aborted or dropped with
    /// its store) and wakes its joiners.
    pub(crate) fn finish(&self) {
        let joiners = {
            let mut inner = self.lock();
            inner.finished = true;
            inner.task = None;
            std::mem::take(&mut inner.joiners)
        };
        for w in joiners {
            w.wake();
        }
    }
}

/// The handle of a spawned task (as Wasmtime's `JoinHandle`): a future
/// that is ready once the task has finished or was aborted, and
/// [`JoinHandle::abort`]. Dropping the handle leaves the task running.
pub struct JoinHandle {
    pub(crate) state: Arc<JoinState>,
}

impl JoinHandle {
    /// Stops the task: its future is dropped the next time the event loop
    /// runs, without being polled again. Does nothing once it finished.
    pub fn abort(&self) {
        self.state.aborted.store(true, Ordering::Release);
        let task = self.state.lock().task.clone();
        if let Some(w) = task {
            w.wake();
        }
    }
}

impl std::fmt::Debug for JoinHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JoinHandle")
            .field("finished", &self.state.lock().finished)
            .field("aborted", &self.state.is_aborted())
            .finish()
    }
}

impl Future for JoinHandle {
    type Output = ();
    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut inner = self.state.lock();
        if inner.finished {
            return Poll::Ready(());
        }
        if !inner.joiners.iter().any(|w| w.will_wake(cx.waker())) {
            inner.joiners.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

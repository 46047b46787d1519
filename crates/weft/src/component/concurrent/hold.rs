//! Host functions whose future holds the store (`func_wrap_async`,
//! `func_new_async`, `resource_async`) called by a guest thread that runs
//! on a fiber of the event loop: the thread's fiber suspends while the
//! future is pending, keeping its borrow of the store (a *hold*), and
//! nothing else runs in the store until the future is ready, as in
//! Wasmtime 48 ("the future has exclusive access to the store").
//!
//! The rule that keeps this sound: after a thread suspends holding the
//! store, no code that uses the store runs until that thread is resumed.
//! - The event loop ([`step_held`]): while a hold is active it resumes
//!   only the holding thread, when its future's waker fired, and
//!   `run_concurrent` polls neither its main future nor any host task.
//! - Any other resumer (a task started by a guest's call, a thread switch,
//!   the host starting a call) waits in place ([`wait_in_place`]) until
//!   the hold ends: on the fiber of a `call_async`, which suspends, or by
//!   parking the thread.
//! - A hold whose driver goes away (a dropped `run_concurrent` or
//!   `call_async` future) is cancelled ([`cancel`]): the thread resumes, its
//!   host function fails, and the error unwinds its guest frames.

// Import loop kept on purpose: a hold is part of the event loop (see
// sched.rs): the loop's turn and the thread resumer consult it, and it
// resumes the holding thread through them.
use super::host;
use super::sched::Running;
use crate::{AsContextMut, StoreContextMut};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use weft_fiber::Suspender;
use weft_tasks::ThreadId;

/// The store's hold, while a host function of this kind runs on a guest
/// thread's fiber.
pub(crate) struct Hold {
    /// The thread whose fiber runs the host function.
    pub(crate) thread: ThreadId,
    /// The future's wake-up id in the host tasks' ready queue.
    id: u64,
    /// What the host function shares with the scheduler.
    shared: Arc<HoldShared>,
    /// The tasks of synchronous calls running above the thread's own on
    /// its stack, set aside while it is suspended.
    pub(crate) above: Vec<Running>,
}

#[derive(Default)]
struct HoldShared {
    /// Set while the thread is suspended holding the store.
    active: AtomicBool,
    /// Set when the hold's driver went away: the host function fails.
    cancelled: AtomicBool,
    /// Set when the host function's future is gone (its [`HoldHandle`]
    /// dropped): the hold is over.
    done: AtomicBool,
}

/// What a host function of this kind uses to wait, without the store
/// (its future borrows it).
pub(crate) struct HoldHandle {
    suspender: Suspender,
    waker: Waker,
    shared: Arc<HoldShared>,
}

impl Drop for HoldHandle {
    fn drop(&mut self) {
        self.shared.active.store(false, Ordering::SeqCst);
        self.shared.done.store(true, Ordering::SeqCst);
    }
}

/// Waits for the future `make` builds from `store`, for a host function
/// whose future holds the store: through a hold on a guest thread's fiber
/// (see the module docs), else on the fiber of the `call_async` running
/// now (an error under a synchronous call).
pub(crate) fn block_on_store<'s, T: 'static, R>(
    store: &'s mut StoreContextMut<'_, T>,
    make: impl FnOnce(StoreContextMut<'s, T>) -> Pin<Box<dyn Future<Output = R> + Send + 's>>,
) -> crate::Result<R> {
    match prepare(store)? {
        Some(hold) => {
            let mut future = make(store.as_context_mut());
            hold.block_on(future.as_mut())
        }
        None => {
            let (cx, entry) = store.0.opaque().async_parts()?;
            let mut future = make(store.as_context_mut());
            crate::async_support::block_on(&cx, entry, future.as_mut())
        }
    }
}

impl HoldHandle {
    /// Polls `future` until it is ready, suspending the thread's fiber
    /// (holding the store) while it is pending.
    pub(crate) fn block_on<F: Future + ?Sized>(&self, mut future: Pin<&mut F>) -> crate::Result<F::Output> {
        let mut cx = Context::from_waker(&self.waker);
        loop {
            if self.shared.cancelled.load(Ordering::SeqCst) {
                crate::bail!(
                    "the async host function was stopped: the `run_concurrent` or `call_async` future \
                     driving its store was dropped"
                );
            }
            if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
                return Ok(v);
            }
            self.shared.active.store(true, Ordering::SeqCst);
            let suspended = self.suspender.suspend_holding_store();
            self.shared.active.store(false, Ordering::SeqCst);
            suspended.map_err(|e| crate::format_err!("{e}"))?;
        }
    }
}

/// A handle for a host function of this kind that is about to make its
/// future: `Some` when the current code runs on a guest thread's fiber in a
/// concurrent context (a `call_async` or `run_concurrent`), `None` when the
/// caller's own way of waiting applies (the fiber of a `call_async` that
/// runs no guest thread, or none: a synchronous call, which fails).
/// Dropping the handle ends the hold.
fn prepare<T: 'static>(store: &mut StoreContextMut<'_, T>) -> crate::Result<Option<HoldHandle>> {
    let concurrent = store.0.opaque().async_state.is_some() || host::in_run_concurrent(store);
    let sched = &store.components().sched;
    let Some(thread) = sched
        .running
        .iter()
        .rev()
        .find(|r| sched.has_fiber(r.thread))
        .map(|r| r.thread)
    else {
        return Ok(None);
    };
    if !concurrent {
        return Ok(None);
    }
    if sched
        .hold
        .as_ref()
        .is_some_and(|h| !h.shared.done.load(Ordering::SeqCst))
    {
        crate::bail!(
            "unsupported: an async host function waiting while another async host function's future \
             holds the store"
        );
    }
    let Some(suspender) = sched.suspender(thread) else {
        crate::bail!("internal error: the current thread has no fiber");
    };
    if let Some(old) = store.components_mut().sched.hold.take() {
        host::take_wake_id(store, old.id);
    }
    let (id, waker) = host::new_wake_id(store);
    let shared = Arc::new(HoldShared::default());
    store.components_mut().sched.hold = Some(Hold {
        thread,
        id,
        shared: shared.clone(),
        above: Vec::new(),
    });
    Ok(Some(HoldHandle {
        suspender,
        waker,
        shared,
    }))
}

/// The holding thread while its fiber is suspended holding the store.
pub(crate) fn active<T>(store: &StoreContextMut<'_, T>) -> Option<ThreadId> {
    let hold = store.components().sched.hold.as_ref()?;
    hold.shared.active.load(Ordering::SeqCst).then_some(hold.thread)
}

/// The event loop's turn while a hold is active: resumes the holding
/// thread when its future was woken (`Some(Ok(true))`), else does nothing
/// (`Some(Ok(false))`: the loop sleeps). `None` without an active hold.
pub(crate) fn step_held<T: 'static>(store: &mut StoreContextMut<'_, T>) -> Option<crate::Result<bool>> {
    let thread = active(store)?;
    let id = hold_id(store)?;
    if !host::take_wake_id(store, id) {
        return Some(Ok(false));
    }
    // As a loop's turn: should the thread hold the store again, the
    // caller's loop waits for it (no nesting, however many waits).
    Some(host::resume_from_loop(store, thread).map(|()| true))
}

/// Called by a resumer of `thread` that is not the event loop's own turn,
/// after the thread suspended: while the thread holds the store, waits for
/// its future's wake-ups and resumes it, so that the resumer goes on only
/// when the store is free again.
pub(crate) fn wait_in_place<T: 'static>(store: &mut StoreContextMut<'_, T>, thread: ThreadId) -> crate::Result<()> {
    while active(store) == Some(thread) {
        match step_held(store) {
            Some(Ok(true)) => continue,
            Some(Ok(false)) => {}
            Some(Err(e)) => return Err(e),
            None => break,
        }
        let Some(id) = hold_id(store) else {
            break;
        };
        if let Err(e) = host::sleep_for_wake(store, id) {
            cancel(store);
            return Err(e);
        }
    }
    Ok(())
}

/// Ends an active hold whose driver went away: the holding thread resumes
/// and its host function fails, unwinding the future and the guest frames
/// above it.
pub(crate) fn cancel<T: 'static>(store: &mut StoreContextMut<'_, T>) {
    let Some(thread) = active(store) else {
        return;
    };
    if let Some(hold) = store.components().sched.hold.as_ref() {
        hold.shared.cancelled.store(true, Ordering::SeqCst);
    }
    // The error is the thread's own (routed to its task's caller).
    let _ = host::resume_from_loop(store, thread);
}

/// The wake-up id of the store's hold.
pub(crate) fn hold_id<T>(store: &StoreContextMut<'_, T>) -> Option<u64> {
    store.components().sched.hold.as_ref().map(|h| h.id)
}

//! Fibers that borrow a store only while they run: the scheduler of the
//! component model's async ABI runs each guest thread on one, and any number
//! of them may be suspended at once.

use crate::{Cancelled, FiberPool};
use std::cell::Cell;
use std::fmt;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::Arc;
use wasmtime_fiber::{Fiber, Suspend};

enum Resume {
    Run,
    Cancel,
}

/// Why the fiber switched back to its resumer without returning.
enum Yielded {
    /// Its job suspended (`Suspender::suspend`).
    Suspended,
    /// Its job returned: the fiber waits, idle, for another one.
    Idle,
}

type StoreSuspend = Suspend<Resume, Yielded, ()>;

/// A body a fiber runs (see [`StoreFiber::reuse`]).
type Job<S> = Box<dyn FnOnce(&mut S, Suspender) + Send>;

/// What a [`StoreFiber`] shares with the [`Suspender`]s of its body.
struct Shared {
    /// The fiber's `Suspend`, while its body runs.
    suspend: Cell<*mut StoreSuspend>,
    /// Whether the fiber is running now (resumed and not suspended).
    running: Cell<bool>,
    /// Set once the fiber is resumed to be cancelled.
    cancelled: Cell<bool>,
    /// The store lent by the `resume` that started the body (type-erased).
    store: Cell<*mut ()>,
    /// Whether the fiber finished its job and waits for another: it may
    /// then be given one ([`StoreFiber::reuse`]) or dropped without a
    /// store.
    idle: Cell<bool>,
}

/// A fiber whose body gets a `&mut S` and lends it back whenever it
/// suspends: [`StoreFiber::resume`] takes the store for as long as the body
/// runs, and [`Suspender::suspend`] gives it back to whoever resumed the
/// fiber. So many fibers can be suspended over one store, and the store is
/// only ever used by the code running now.
///
/// A fiber that is dropped while suspended cannot unwind without its store:
/// call [`StoreFiber::cancel`] first. Dropping it anyway leaks its stack
/// rather than free memory its frames still use.
pub struct StoreFiber<S: 'static> {
    fiber: Option<Fiber<'static, Resume, Yielded, ()>>,
    shared: Arc<Shared>,
    /// The next body to run, until the fiber starts it.
    job: Arc<JobSlot<S>>,
    pool: Arc<FiberPool>,
    _store: std::marker::PhantomData<fn(&mut S)>,
}

/// The body a [`StoreFiber`] runs next, shared with the fiber's loop.
struct JobSlot<S>(Cell<Option<Job<S>>>);

// SAFETY: the slot is filled by the owner of the `StoreFiber` (which holds
// `&mut self`) and emptied by the fiber's loop, which only runs inside that
// owner's `resume`: never both at once. The job itself is `Send`.
unsafe impl<S> Sync for JobSlot<S> {}
// SAFETY: as for `Sync`.
unsafe impl<S> Send for JobSlot<S> {}

// SAFETY: the fiber runs only inside `resume` and `cancel`, on the thread
// calling them, which holds `&mut self`; its body is `Send`, and its stack
// moves with it as plain memory. `Shared`'s cells are only touched by the
// thread resuming the fiber and the body it resumes, never at once.
unsafe impl<S: 'static> Send for StoreFiber<S> {}

impl<S: 'static> fmt::Debug for StoreFiber<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreFiber").field("done", &self.is_done()).finish()
    }
}

/// The handle through which a [`StoreFiber`]'s body suspends it.
#[derive(Clone)]
pub struct Suspender {
    shared: Arc<Shared>,
}

// SAFETY: as for `StoreFiber`: the cells are only used by the thread running
// the fiber, and `suspend` checks that it is called on the fiber itself.
unsafe impl Send for Suspender {}
// SAFETY: as for `Send`.
unsafe impl Sync for Suspender {}

impl fmt::Debug for Suspender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Suspender")
            .field("running", &self.shared.running.get())
            .finish()
    }
}

/// Why a [`Suspender::suspend`] did not suspend or came back cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuspendError {
    /// The fiber is being cancelled: unwind.
    Cancelled,
    /// `suspend` was called off the fiber (a runtime bug, caught safely).
    NotOnFiber,
}

impl fmt::Display for SuspendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SuspendError::Cancelled => fmt::Display::fmt(&Cancelled, f),
            SuspendError::NotOnFiber => f.write_str("internal error: a fiber was suspended from outside itself"),
        }
    }
}

impl std::error::Error for SuspendError {}

impl Suspender {
    /// Suspends the fiber this is called on, giving `store` back to the code
    /// that resumed it, until it is resumed again (with the same store).
    /// Fails with [`SuspendError::Cancelled`] when the fiber is resumed to
    /// be cancelled, and at once when called anywhere but on the fiber.
    pub fn suspend<S>(&self, store: &mut S) -> Result<(), SuspendError> {
        // The store is lent to the resumer for the duration of this call:
        // nothing on this fiber touches it until `suspend` returns.
        let _ = store;
        self.switch_out()
    }

    /// Suspends the fiber this is called on while code on it keeps its
    /// borrow of the store (a host future holding the store, waiting for
    /// I/O): the resumer gets control back but not the store, and must run
    /// nothing that uses the store until it resumes or cancels this fiber.
    /// Weft's scheduler keeps that rule by running nothing else in the
    /// store meanwhile. Fails as [`Suspender::suspend`] does.
    pub fn suspend_holding_store(&self) -> Result<(), SuspendError> {
        self.switch_out()
    }

    fn switch_out(&self) -> Result<(), SuspendError> {
        if self.shared.cancelled.get() {
            return Err(SuspendError::Cancelled);
        }
        let ours = Arc::as_ptr(&self.shared);
        let ptr = self.shared.suspend.get();
        if !crate::is_innermost(ours.cast()) || !self.shared.running.get() || ptr.is_null() {
            return Err(SuspendError::NotOnFiber);
        }
        self.shared.running.set(false);
        // SAFETY: `suspend` points at the `Suspend` of this fiber's body,
        // which is running now on this very stack (checked above: this
        // fiber is the innermost one resumed on this thread and is running).
        let resumed = crate::lent::switching(|| unsafe { (*ptr).suspend(Yielded::Suspended) });
        self.shared.running.set(true);
        match resumed {
            Resume::Run => Ok(()),
            Resume::Cancel => {
                self.shared.cancelled.set(true);
                Err(SuspendError::Cancelled)
            }
        }
    }

    /// Whether the fiber was resumed to be cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.shared.cancelled.get()
    }
}

/// How many times `cancel` resumes a fiber that keeps suspending.
const MAX_CANCEL_RESUMES: usize = 10_000;

impl<S: 'static> StoreFiber<S> {
    /// Prepares `body` to run on a fiber of `pool`; it starts at the first
    /// [`StoreFiber::resume`], with that call's store.
    pub fn new(pool: &Arc<FiberPool>, body: impl FnOnce(&mut S, Suspender) + Send + 'static) -> anyhow::Result<Self> {
        // The fiber and its suspenders share it, and never run at once (see
        // the `Send` impls): an `Arc` of a non-`Sync` type is what is meant.
        #[allow(
            clippy::arc_with_non_send_sync,
            reason = "shared by the fiber and its suspenders, which never run at once (see the Send impls)"
        )]
        let shared = Arc::new(Shared {
            suspend: Cell::new(std::ptr::null_mut()),
            running: Cell::new(false),
            cancelled: Cell::new(false),
            store: Cell::new(std::ptr::null_mut()),
            idle: Cell::new(false),
        });
        let job: Arc<JobSlot<S>> = Arc::new(JobSlot(Cell::new(Some(Box::new(body)))));
        let suspender = Suspender { shared: shared.clone() };
        let slot = job.clone();
        // The fiber runs one job after another: when a job returns it waits,
        // idle, until it is given the next one or dropped.
        let fiber_body = move |first: Resume, suspend: &mut StoreSuspend| {
            let mut how = first;
            loop {
                let Resume::Run = how else {
                    return;
                };
                let Some(job) = slot.0.take() else {
                    return;
                };
                suspender.shared.suspend.set(suspend);
                let store = suspender.shared.store.get().cast::<S>();
                // SAFETY: `resume` stored its `&mut S` right before starting
                // the job and lends it for as long as the job runs; whenever
                // the job suspends it lends the store back
                // (`Suspender::suspend`), and the fiber is only resumed by
                // code holding that same store.
                let store = unsafe { &mut *store };
                job(store, suspender.clone());
                suspender.shared.idle.set(true);
                how = suspend.suspend(Yielded::Idle);
            }
        };
        Ok(StoreFiber {
            fiber: Some(pool.new_fiber(fiber_body)?),
            shared,
            job,
            pool: pool.clone(),
            _store: std::marker::PhantomData,
        })
    }

    /// Gives a fiber whose body returned a new `body` to run, on the same
    /// stack, from its next [`StoreFiber::resume`] (with that call's
    /// store): cheaper than a new fiber. A fiber that did not finish its
    /// body normally (it is running, suspended, cancelled, or its body
    /// panicked) cannot be reused: `body` is given back.
    #[allow(clippy::type_complexity, reason = "the boxed body itself")]
    pub fn reuse(
        &mut self,
        body: Box<dyn FnOnce(&mut S, Suspender) + Send>,
    ) -> Result<(), Box<dyn FnOnce(&mut S, Suspender) + Send>> {
        let alive = self.fiber.as_ref().is_some_and(|f| !f.done());
        if !alive || !self.shared.idle.get() || self.shared.cancelled.get() {
            return Err(body);
        }
        self.shared.idle.set(false);
        self.shared.store.set(std::ptr::null_mut());
        self.job.0.set(Some(body));
        Ok(())
    }

    /// The handle through which the body suspends the fiber.
    pub fn suspender(&self) -> Suspender {
        Suspender {
            shared: self.shared.clone(),
        }
    }

    /// Whether the body has returned.
    pub fn is_done(&self) -> bool {
        self.shared.idle.get() || self.fiber.as_ref().is_none_or(|f| f.done())
    }

    /// Whether the fiber is running now.
    pub fn is_running(&self) -> bool {
        self.shared.running.get()
    }

    /// Runs the fiber with `store` until its body suspends (`false`) or
    /// returns (`true`; its stack goes back to the pool). A panic of the body
    /// continues in the caller. Resuming a finished fiber does nothing.
    pub fn resume(&mut self, store: &mut S) -> bool {
        self.run(store, Resume::Run)
    }

    fn run(&mut self, store: &mut S, how: Resume) -> bool {
        let Some(fiber) = self.fiber.as_ref() else {
            return true;
        };
        if self.shared.idle.get() {
            return true;
        }
        if fiber.done() || self.shared.running.get() {
            return fiber.done();
        }
        if self.shared.store.get().is_null() {
            self.shared.store.set((store as *mut S).cast());
        }
        self.shared.running.set(true);
        let id = Arc::as_ptr(&self.shared).cast();
        let result = crate::as_innermost(id, || catch_unwind(AssertUnwindSafe(|| fiber.resume(how))));
        self.shared.running.set(false);
        match result {
            Ok(Ok(())) => {
                self.finish();
                true
            }
            Ok(Err(Yielded::Idle)) => true,
            Ok(Err(Yielded::Suspended)) => false,
            Err(panic) => {
                self.finish();
                resume_unwind(panic)
            }
        }
    }

    /// Unwinds a suspended fiber: it is resumed with every wait failing
    /// with [`SuspendError::Cancelled`] until its body returns. Returns
    /// whether it did (a body that keeps suspending is given up on after
    /// many resumes, and its stack leaked). A panic while unwinding is
    /// dropped: nobody is left to receive it.
    pub fn cancel(&mut self, store: &mut S) -> bool {
        self.shared.cancelled.set(true);
        for _ in 0..MAX_CANCEL_RESUMES {
            match catch_unwind(AssertUnwindSafe(|| self.run(store, Resume::Cancel))) {
                Ok(true) | Err(_) => return true,
                Ok(false) => continue,
            }
        }
        false
    }

    fn finish(&mut self) {
        if let Some(fiber) = self.fiber.take() {
            if fiber.done() {
                self.pool.give_back(fiber.into_stack());
            } else {
                // A suspended fiber's frames still use its stack.
                std::mem::forget(fiber);
            }
        }
    }
}

impl<S: 'static> Drop for StoreFiber<S> {
    fn drop(&mut self) {
        // A fiber that never started, or that is idle between bodies,
        // returns at once when resumed to be cancelled; a suspended one
        // cannot unwind without its store, so `finish` leaks it (see the
        // type's docs).
        if let Some(fiber) = self.fiber.as_ref() {
            if !fiber.done() && (self.shared.suspend.get().is_null() || self.shared.idle.get()) {
                let _ = crate::lent::switching(|| catch_unwind(AssertUnwindSafe(|| fiber.resume(Resume::Cancel))));
            }
        }
        self.finish();
    }
}

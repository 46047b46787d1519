//! `weft-fiber` runs a wasm call on a fiber, so that the call can wait for
//! host futures without blocking its thread.
//!
//! It owns the pool of fiber stacks ([`FiberPool`]), the future that drives a
//! fiber ([`FiberFuture`]) and the handle through which code on the fiber
//! waits for futures ([`AsyncCx`]). When a [`FiberFuture`] is dropped while
//! its fiber is suspended, the fiber is resumed with a cancellation: every
//! wait on the fiber then fails with [`Cancelled`], the code on it unwinds
//! through its ordinary error paths, and the stack goes back to the pool. No
//! sequence of polls and drops panics or leaks a stack.
//!
//! This crate knows nothing of wasm, stores or code generation; the stack
//! switching itself is `wasmtime-fiber`'s. Its `unsafe` is limited to the
//! pointers that let code on the fiber reach the poll context of the
//! future that resumed it; each block says why it is sound.

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

use std::cell::Cell;
use std::fmt;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll};
use wasmtime_fiber::{Fiber, FiberStack, Suspend};

mod custom_stack;
mod lent;
mod store_fiber;
mod worker;
pub use custom_stack::{StackCreator, StackMemory};
pub use lent::{is_store_lent, lend_store, with_lent_store};
pub use store_fiber::{StoreFiber, SuspendError, Suspender};
pub use worker::{FiberWorker, WorkerFuture};

/// One fiber running on this thread, in the list [`INNERMOST`] heads: it
/// lives in the frame of the [`as_innermost`] that resumed the fiber.
struct Running {
    /// The address of the fiber's shared state.
    id: *const (),
    /// The fiber it runs on top of (resumed from), if any.
    outer: *const Running,
}

thread_local! {
    /// The fibers running on this thread now, innermost first, as a list
    /// through the frames of the [`as_innermost`] calls that resumed them.
    /// Only the innermost fiber may suspend, since a suspension switches
    /// away from the stack that is running; code that runs on this thread
    /// while a fiber is in the list runs inside that fiber's resumption (on
    /// its stack or on one started from it).
    static INNERMOST: Cell<*const Running> = const { Cell::new(std::ptr::null()) };
}

/// Runs `f` with the fiber whose shared state is at `id` marked innermost.
fn as_innermost<R>(id: *const (), f: impl FnOnce() -> R) -> R {
    /// Puts the outer fiber back at the head of the list, even if `f`
    /// unwinds, before `running` goes away.
    struct Restore(*const Running);
    impl Drop for Restore {
        fn drop(&mut self) {
            INNERMOST.with(|c| c.set(self.0));
        }
    }
    let outer = INNERMOST.with(|c| c.get());
    let running = Running { id, outer };
    INNERMOST.with(|c| c.set(&running));
    let _restore = Restore(outer);
    lent::switching(f)
}

/// Whether the fiber whose shared state is at `id` runs innermost on this
/// thread now.
fn is_innermost(id: *const ()) -> bool {
    let head = INNERMOST.with(|c| c.get());
    // SAFETY: the list only holds entries whose `as_innermost` frame is
    // still running (each restores the head before its frame ends).
    !head.is_null() && unsafe { (*head).id } == id
}

/// Whether the fiber whose shared state is at `id` is running on this
/// thread now, innermost or not.
fn is_running_here(id: *const ()) -> bool {
    let mut at = INNERMOST.with(|c| c.get());
    while !at.is_null() {
        // SAFETY: as in `is_innermost`: every entry of the list is alive.
        let running = unsafe { &*at };
        if running.id == id {
            return true;
        }
        at = running.outer;
    }
    false
}

/// A pool of fiber stacks of one size.
///
/// With a [`StackCreator`], the stacks are asked of the creator and kept
/// for reuse like the pool's own (as Wasmtime reuses a store's last stack
/// rather than asking its creator again for each call); they are dropped,
/// given back to the creator's memory, with the pool.
///
/// A stack is out of the pool while a fiber runs on it, and for as long as
/// a [`FiberWorker`] holds it (between its jobs too, as Wasmtime's stores
/// hold their last stack); the limit counts every stack out of the pool.
pub struct FiberPool {
    stack_size: usize,
    free: Mutex<Vec<FiberStack>>,
    /// The stacks out of the pool.
    in_use: AtomicUsize,
    /// The workers holding a stack, each by whether a job runs on it: an
    /// idle worker's stack is not in use. A worker sets its flag without
    /// taking any lock (see [`FiberPool::stacks_in_use`]).
    workers: Mutex<Vec<Weak<AtomicBool>>>,
    creator: Option<Arc<dyn StackCreator>>,
    /// The most stacks out of the pool at once (the pooling allocator's
    /// `total_stacks`).
    max_in_use: usize,
}

impl fmt::Debug for FiberPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FiberPool")
            .field("stack_size", &self.stack_size)
            .field("in_use", &self.stacks_in_use())
            .field("pooled", &self.stacks_pooled())
            .field("custom", &self.creator.is_some())
            .finish()
    }
}

/// How many idle stacks a pool keeps for reuse.
const MAX_POOLED: usize = 16;

impl FiberPool {
    /// A pool of stacks of `stack_size` bytes.
    pub fn new(stack_size: usize) -> FiberPool {
        FiberPool {
            stack_size,
            free: Mutex::new(Vec::new()),
            in_use: AtomicUsize::new(0),
            workers: Mutex::new(Vec::new()),
            creator: None,
            max_in_use: usize::MAX,
        }
    }

    /// The same pool lending at most `max` stacks at once: a fiber started
    /// past that fails with an error naming the pooling allocator's
    /// `total_stacks` limit.
    pub fn with_max_stacks(self, max: usize) -> FiberPool {
        FiberPool {
            max_in_use: max,
            ..self
        }
    }

    /// A pool of stacks of `stack_size` bytes, each made by `creator`
    /// (mmapped by the pool itself when `None`).
    pub fn with_creator(stack_size: usize, creator: Option<Arc<dyn StackCreator>>) -> FiberPool {
        FiberPool {
            creator,
            ..FiberPool::new(stack_size)
        }
    }

    /// The size of the stacks.
    pub fn stack_size(&self) -> usize {
        self.stack_size
    }

    /// The number of stacks that fibers run on now: running or suspended,
    /// but not the stacks of idle workers.
    pub fn stacks_in_use(&self) -> usize {
        let out = self.in_use.load(Ordering::SeqCst);
        let workers = self.workers.lock().unwrap_or_else(|e| e.into_inner());
        let idle = workers
            .iter()
            .filter(|w| w.upgrade().is_some_and(|busy| !busy.load(Ordering::Acquire)))
            .count();
        out.saturating_sub(idle)
    }

    /// Counts `busy`, the flag of a worker that took a stack, among the
    /// pool's workers until it is dropped.
    fn register_worker(&self, busy: &Arc<AtomicBool>) {
        let mut workers = self.workers.lock().unwrap_or_else(|e| e.into_inner());
        if workers.len() == workers.capacity() {
            // Forget dropped workers before the list grows.
            workers.retain(|w| w.strong_count() > 0);
        }
        workers.push(Arc::downgrade(busy));
    }

    /// The number of idle stacks kept for reuse.
    pub fn stacks_pooled(&self) -> usize {
        self.free.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    fn take(&self) -> anyhow::Result<FiberStack> {
        let max = self.max_in_use;
        self.in_use
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < max).then_some(n + 1))
            .map_err(|n| {
                anyhow::anyhow!(
                    "the pooling allocator's limit `total_stacks` ({max}) is reached: {n} async stacks in use"
                )
            })?;
        let pooled = self.free.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let stack = match (pooled, &self.creator) {
            (Some(stack), _) => Ok(stack),
            (None, Some(creator)) => custom_stack::new_stack(&**creator, self.stack_size),
            (None, None) => FiberStack::new(self.stack_size, false)
                .map_err(|e| anyhow::anyhow!("failed to allocate a fiber stack of {} bytes: {e}", self.stack_size)),
        };
        if stack.is_err() {
            self.in_use.fetch_sub(1, Ordering::SeqCst);
        }
        stack
    }

    /// A fiber running `body` on a stack of the pool (counted in use); the
    /// count is given back when the fiber cannot be made.
    fn new_fiber<'a, A, B, C>(
        &self,
        body: impl FnOnce(A, &mut Suspend<A, B, C>) -> C + 'a,
    ) -> anyhow::Result<Fiber<'a, A, B, C>> {
        let stack = self.take()?;
        Fiber::new(stack, body).map_err(|e| {
            self.in_use.fetch_sub(1, Ordering::SeqCst);
            anyhow::anyhow!("failed to create a fiber: {e}")
        })
    }

    fn give_back(&self, stack: FiberStack) {
        self.in_use.fetch_sub(1, Ordering::SeqCst);
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        if free.len() < MAX_POOLED {
            free.push(stack);
        }
    }
}

/// A wait on a fiber ended because its future was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

impl fmt::Display for Cancelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the async call was cancelled: its future was dropped")
    }
}

impl std::error::Error for Cancelled {}

enum Resume {
    Poll,
    Cancel,
    /// Ends an idle [`FiberWorker`]'s fiber.
    Exit,
}

type FiberSuspend<R> = Suspend<Resume, (), Option<R>>;

/// Suspends the fiber through a type-erased `Suspend`; returns whether the
/// fiber was resumed to be cancelled.
type SuspendFn = unsafe fn(*mut ()) -> bool;

/// What code on the fiber shares with the future driving it. Not `Sync`: it
/// is shared by the future and the fiber it runs, which never run at once.
struct Shared {
    /// The fiber's `Suspend`, while its body runs (type-erased).
    suspend: Cell<*mut ()>,
    /// Suspends the fiber through `suspend`; returns whether it was resumed
    /// to be cancelled.
    suspend_fn: Cell<Option<SuspendFn>>,
    /// The context of the poll that resumed the fiber, during that poll.
    poll_cx: Cell<*mut Context<'static>>,
    /// Set once the future was dropped (atomic: [`AsyncCx::is_cancelled`]
    /// may be asked from any thread).
    cancelled: AtomicBool,
    /// A [`FiberWorker`]'s next job, until its fiber takes it.
    job: Cell<Option<JobRef>>,
    /// Where a [`FiberWorker`]'s job puts its outcome: a slot of the future
    /// resuming it, during that resumption.
    out: Cell<*mut ()>,
}

/// A job for a [`FiberWorker`]'s fiber: where its closure is, and the
/// function that runs a closure of its type (`worker::run_job`).
#[derive(Clone, Copy)]
struct JobRef {
    /// The future's `Option<F>`.
    job: *mut (),
    /// Takes the closure out of `job`, runs it, and writes its outcome to
    /// the slot the shared state names.
    run: unsafe fn(*mut (), &AsyncCx),
}

impl Shared {
    /// The state of a fiber that has not started.
    fn new() -> Shared {
        Shared {
            suspend: Cell::new(std::ptr::null_mut()),
            suspend_fn: Cell::new(None),
            poll_cx: Cell::new(std::ptr::null_mut()),
            cancelled: AtomicBool::new(false),
            job: Cell::new(None),
            out: Cell::new(std::ptr::null_mut()),
        }
    }
}

/// The handle through which code running on a fiber waits for futures.
/// Cheap to clone; waits fail with [`Cancelled`] once the fiber's future
/// was dropped, and with an error when called off the fiber.
#[derive(Clone)]
pub struct AsyncCx {
    shared: Arc<Shared>,
}

impl fmt::Debug for AsyncCx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncCx")
            .field("cancelled", &self.shared.cancelled.load(Ordering::Relaxed))
            .finish()
    }
}

// SAFETY: the cells are only touched by the thread that is resuming the
// fiber: `FiberFuture::poll` and `Drop` (which hold `&mut FiberFuture`) and
// the code on the fiber they resume. A future is polled by one thread at a
// time, so no two threads reach the cells at once. An `AsyncCx` sent to
// another thread reads no cell there: `poll` and `suspend` first check that
// the fiber is running on the calling thread, and `cancelled` is atomic.
unsafe impl Send for AsyncCx {}
// SAFETY: as for `Send`.
unsafe impl Sync for AsyncCx {}

impl AsyncCx {
    /// Whether the future of this fiber was dropped.
    pub fn is_cancelled(&self) -> bool {
        self.shared.cancelled.load(Ordering::Relaxed)
    }

    fn id(&self) -> *const () {
        Arc::as_ptr(&self.shared).cast()
    }

    /// Polls `future` once with the context of the poll that is running the
    /// fiber now. Fails with [`Cancelled`] when the fiber's future was
    /// dropped, and when the fiber is not running on the calling thread (an
    /// `AsyncCx` sent to another thread, or kept after its fiber ended).
    pub fn poll<F: Future + ?Sized>(&self, future: Pin<&mut F>) -> Result<Poll<F::Output>, Cancelled> {
        if !is_running_here(self.id()) || self.is_cancelled() {
            return Err(Cancelled);
        }
        let cx = self.shared.poll_cx.get();
        if cx.is_null() {
            return Err(Cancelled);
        }
        // SAFETY: `poll_cx` is set by `FiberFuture::poll` to its own
        // `Context` for exactly the time the fiber runs inside that poll,
        // and we run inside that resumption, on its thread (checked above).
        let cx = unsafe { &mut *cx };
        Ok(future.poll(cx))
    }

    /// Whether this fiber is the innermost one running on this thread (only
    /// then can it suspend: a store fiber may run on top of it).
    pub fn can_suspend(&self) -> bool {
        is_innermost(self.id())
    }

    /// Suspends the fiber until its future is polled again. Fails with
    /// [`Cancelled`] when the future is dropped instead, and when this
    /// fiber is not the innermost one running on the calling thread.
    pub fn suspend(&self) -> Result<(), Cancelled> {
        // Another fiber runs on top of this one (a guest thread of the
        // component model), or this fiber does not run on this thread at
        // all: switching away from its suspension point is impossible from
        // here.
        if !is_innermost(self.id()) || self.is_cancelled() {
            return Err(Cancelled);
        }
        let (ptr, f) = (self.shared.suspend.get(), self.shared.suspend_fn.get());
        let Some(f) = f.filter(|_| !ptr.is_null()) else {
            return Err(Cancelled);
        };
        // SAFETY: `suspend` points at the fiber's `Suspend` while the fiber
        // body runs, and `suspend_fn` is the function for its type; we are
        // on that fiber (the pointer is only non-null while its body runs).
        let cancelled = lent::switching(|| unsafe { f(ptr) });
        if cancelled {
            self.shared.cancelled.store(true, Ordering::Relaxed);
            return Err(Cancelled);
        }
        Ok(())
    }

    /// Waits for `future` on the fiber: polls it, and suspends the fiber
    /// while it is pending.
    pub fn block_on<F: Future + ?Sized>(&self, mut future: Pin<&mut F>) -> Result<F::Output, Cancelled> {
        loop {
            if let Poll::Ready(v) = self.poll(future.as_mut())? {
                return Ok(v);
            }
            self.suspend()?;
        }
    }
}

/// A future that runs a closure on a fiber to completion.
///
/// Dropping it before completion cancels the fiber (see the crate docs).
pub struct FiberFuture<'a, R> {
    fiber: Option<Fiber<'a, Resume, (), Option<R>>>,
    shared: Arc<Shared>,
    pool: &'a FiberPool,
}

// SAFETY: the fiber only runs while the future is polled or dropped, on the
// thread doing so; the closure it runs is `Send`, and so is its result. Its
// stack moves with it as plain memory.
unsafe impl<R: Send> Send for FiberFuture<'_, R> {}

impl<R> Unpin for FiberFuture<'_, R> {}

impl<R> fmt::Debug for FiberFuture<'_, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FiberFuture")
            .field("done", &self.fiber.is_none())
            .finish()
    }
}

/// Suspends the fiber whose `Suspend` is at `ptr`; `true` when it was
/// resumed to be cancelled.
///
/// # Safety
///
/// `ptr` must point at the live `Suspend` of the fiber running this call.
unsafe fn suspend_erased<R>(ptr: *mut ()) -> bool {
    // SAFETY: guaranteed by the caller.
    let suspend = unsafe { &mut *ptr.cast::<FiberSuspend<R>>() };
    !matches!(suspend.suspend(()), Resume::Poll)
}

/// Prepares `f` to run on a fiber from `pool`; it starts at the first poll of
/// the returned future. `f` gets the [`AsyncCx`] to wait with.
pub fn on_fiber<'a, R: 'a>(
    pool: &'a FiberPool,
    f: impl FnOnce(&AsyncCx) -> R + Send + 'a,
) -> anyhow::Result<FiberFuture<'a, R>> {
    #[allow(
        clippy::arc_with_non_send_sync,
        reason = "shared by the future and its fiber, which never run at once (see the Send impls)"
    )]
    let shared = Arc::new(Shared::new());
    let cx = AsyncCx { shared: shared.clone() };
    let body = move |first: Resume, suspend: &mut FiberSuspend<R>| -> Option<R> {
        if !matches!(first, Resume::Poll) {
            return None;
        }
        cx.shared.suspend.set((suspend as *mut FiberSuspend<R>).cast());
        cx.shared.suspend_fn.set(Some(suspend_erased::<R>));
        let result = f(&cx);
        cx.shared.suspend.set(std::ptr::null_mut());
        Some(result)
    };
    Ok(FiberFuture {
        fiber: Some(pool.new_fiber(body)?),
        shared,
        pool,
    })
}

impl<R> FiberFuture<'_, R> {
    fn finish(&mut self) {
        if let Some(fiber) = self.fiber.take() {
            if fiber.done() {
                self.pool.give_back(fiber.into_stack());
            } else {
                // Cannot happen: callers only finish done fibers. Keep the
                // stack rather than free memory a suspended fiber uses.
                std::mem::forget(fiber);
            }
        }
    }
}

impl<R> Future for FiberFuture<'_, R> {
    type Output = R;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<R> {
        let this = self.get_mut();
        let Some(fiber) = this.fiber.as_ref() else {
            // Polled after completion: there is nothing left to produce.
            return Poll::Pending;
        };
        this.shared.poll_cx.set((cx as *mut Context<'_>).cast());
        let id = Arc::as_ptr(&this.shared).cast();
        let result = as_innermost(id, || catch_unwind(AssertUnwindSafe(|| fiber.resume(Resume::Poll))));
        this.shared.poll_cx.set(std::ptr::null_mut());
        match result {
            Ok(Ok(Some(value))) => {
                this.finish();
                Poll::Ready(value)
            }
            Ok(Ok(None)) => {
                this.finish();
                Poll::Pending
            }
            Ok(Err(())) => Poll::Pending,
            Err(panic) => {
                this.finish();
                std::panic::resume_unwind(panic)
            }
        }
    }
}

/// How many times a dropped future resumes its fiber to let it unwind
/// before giving up on it.
const MAX_CANCEL_RESUMES: usize = 10_000;

impl<R> Drop for FiberFuture<'_, R> {
    fn drop(&mut self) {
        let Some(fiber) = self.fiber.as_ref() else { return };
        if !fiber.done() {
            self.shared.cancelled.store(true, Ordering::Relaxed);
            let id = Arc::as_ptr(&self.shared).cast();
            for _ in 0..MAX_CANCEL_RESUMES {
                match as_innermost(id, || catch_unwind(AssertUnwindSafe(|| fiber.resume(Resume::Cancel)))) {
                    Ok(Err(())) => continue,
                    // Finished, or panicked while unwinding: the panic of
                    // a cancelled call has nobody to reach, so it is dropped.
                    Ok(Ok(_)) | Err(_) => break,
                }
            }
        }
        self.finish();
    }
}

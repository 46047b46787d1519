//! A fiber kept between jobs: a store runs its async calls one after
//! another on the same fiber, so that a call makes no fiber, takes no stack
//! from the pool and allocates nothing; it switches to the fiber and back.
//!
//! The worker's fiber runs a loop: take the job its future left in the
//! shared state, run it, write its outcome to the slot the future named for
//! the current resumption, and wait, idle, for the next job (or for the
//! order to exit, when the worker is dropped).

use crate::{as_innermost, AsyncCx, FiberPool, JobRef, Resume, Shared, MAX_CANCEL_RESUMES};
use std::fmt;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use wasmtime_fiber::{Fiber, Suspend};

/// What a worker's fiber hands back when it switches away.
enum Yielded {
    /// A job waits (its future is pending).
    Suspended,
    /// The job finished; the fiber waits for the next.
    Idle,
}

type WorkerSuspend = Suspend<Resume, Yielded, ()>;

/// The outcome of a job: its result, or the panic it ended with.
type Outcome<R> = Option<std::thread::Result<R>>;

/// Runs the job at `job` on the worker's fiber.
///
/// # Safety
///
/// `job` must point at the `Option<F>` of the future resuming the fiber
/// now, and the shared state's `out` at that future's `Outcome<R>`, for
/// every resumption until this returns.
unsafe fn run_job<F: FnOnce(&AsyncCx) -> R, R>(job: *mut (), cx: &AsyncCx) {
    // SAFETY: guaranteed by the caller: the closure is moved onto this
    // fiber's stack at once, so the future may move afterwards.
    let Some(f) = (unsafe { (*job.cast::<Option<F>>()).take() }) else {
        return;
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| f(cx)));
    let out = cx.shared.out.get().cast::<Outcome<R>>();
    // SAFETY: guaranteed by the caller: `out` names a slot of this type in
    // the future resuming the fiber now (set by each resumption).
    unsafe { *out = Some(outcome) };
}

/// The `run` of a [`WorkerFuture::step`] that starts no job.
fn no_job(_: *mut (), _: &AsyncCx) {}

/// Suspends a worker's fiber whose `Suspend` is at `ptr`; `true` when it
/// was resumed to be cancelled.
///
/// # Safety
///
/// `ptr` must point at the live `Suspend` of the worker fiber running this
/// call.
unsafe fn suspend_worker(ptr: *mut ()) -> bool {
    // SAFETY: guaranteed by the caller.
    let suspend = unsafe { &mut *ptr.cast::<WorkerSuspend>() };
    !matches!(suspend.suspend(Yielded::Suspended), Resume::Poll)
}

/// A fiber that runs closures one after another, for code that runs many
/// short async calls (a store keeps one: its calls then take no stack from
/// the pool and make no fiber).
///
/// A worker gets its stack from its pool at its first job (within the
/// pool's limit) and keeps it until it is dropped. Between jobs the stack
/// is idle: [`FiberPool::stacks_in_use`] counts it only while a job runs.
/// Starting and ending a job takes no lock and no atomic read-modify-write.
pub struct FiberWorker {
    /// Boxed, so that the futures that carry the worker stay small.
    inner: Box<Worker>,
}

/// A [`FiberWorker`]'s state.
struct Worker {
    pool: Arc<FiberPool>,
    shared: Arc<Shared>,
    /// The fiber, from the first job on.
    fiber: Option<Fiber<'static, Resume, Yielded, ()>>,
    /// Whether a job has started and not finished (read by the pool's
    /// count of stacks in use).
    busy: Arc<AtomicBool>,
}

// SAFETY: the fiber only runs inside the worker's future's `poll` and
// `Drop` and the worker's own `Drop`, on the thread calling them, which
// holds the worker by `&mut` or by value; an idle fiber holds nothing on
// its stack but its `AsyncCx`, and a job's closure and result are `Send`.
// The shared cells are only touched by that thread and the fiber it runs,
// never at once.
unsafe impl Send for Worker {}
// SAFETY: through `&FiberWorker` one can only clone or compare the handle
// of the shared state (its cells are not touched) and read the busy flag.
unsafe impl Sync for Worker {}

impl fmt::Debug for FiberWorker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FiberWorker")
            .field("started", &self.inner.fiber.is_some())
            .field("busy", &self.inner.busy.load(Ordering::Relaxed))
            .finish()
    }
}

impl FiberWorker {
    /// A worker whose stack will come from `pool` (at its first job).
    pub fn new(pool: Arc<FiberPool>) -> FiberWorker {
        #[allow(
            clippy::arc_with_non_send_sync,
            reason = "shared by the worker and its fiber, which never run at once (see the Send impls)"
        )]
        let shared = Arc::new(Shared::new());
        FiberWorker {
            inner: Box::new(Worker {
                pool,
                shared,
                fiber: None,
                busy: Arc::new(AtomicBool::new(false)),
            }),
        }
    }

    /// The handle through which the worker's jobs wait: the same for every
    /// job (one handle may be kept and used by each job in turn). It is
    /// cancelled while a job's future is being dropped.
    pub fn cx(&self) -> AsyncCx {
        AsyncCx {
            shared: self.inner.shared.clone(),
        }
    }

    /// Whether `cx` is this worker's handle ([`FiberWorker::cx`]).
    pub fn owns(&self, cx: &AsyncCx) -> bool {
        Arc::ptr_eq(&self.inner.shared, &cx.shared)
    }

    /// Prepares `f` to run on the worker's fiber; it starts at the first
    /// poll of the returned future, which gives back `f`'s result and the
    /// worker, for the next job. A future dropped before its job finished
    /// cancels the job (see the crate docs); the worker then goes with it,
    /// and its stack back to the pool.
    ///
    /// Fails when the worker has no stack yet and the pool's limit on
    /// stacks in use is reached, or a stack cannot be made.
    pub fn on_fiber<R, F: FnOnce(&AsyncCx) -> R + Send>(mut self, f: F) -> anyhow::Result<WorkerFuture<F, R>> {
        if self.inner.fiber.is_none() {
            self.inner.start()?;
        }
        Ok(WorkerFuture {
            worker: Some(self),
            job: Some(f),
            state: JobState::Ready,
            out: None,
        })
    }
}

impl Worker {
    /// Makes the worker's fiber, on a stack of its pool.
    fn start(&mut self) -> anyhow::Result<()> {
        let cx = AsyncCx {
            shared: self.shared.clone(),
        };
        let body = move |first: Resume, suspend: &mut WorkerSuspend| {
            let mut how = first;
            loop {
                if let Resume::Exit = how {
                    return;
                }
                if let Some(job) = cx.shared.job.take() {
                    cx.shared.suspend.set((suspend as *mut WorkerSuspend).cast());
                    cx.shared.suspend_fn.set(Some(suspend_worker));
                    // SAFETY: the future that set `job` resumed this fiber,
                    // with `job` and `out` pointing into itself
                    // (`WorkerFuture::step`), and resumes it, naming its
                    // `out` again each time, until the job returns.
                    unsafe { (job.run)(job.job, &cx) };
                    cx.shared.suspend.set(std::ptr::null_mut());
                }
                how = suspend.suspend(Yielded::Idle);
            }
        };
        self.fiber = Some(self.pool.new_fiber(body)?);
        self.pool.register_worker(&self.busy);
        Ok(())
    }

    /// Resumes the fiber with `how`, as the innermost fiber of this thread.
    fn resume(&self, how: Resume) -> Option<std::thread::Result<Result<(), Yielded>>> {
        let fiber = self.fiber.as_ref()?;
        let id = Arc::as_ptr(&self.shared).cast();
        Some(as_innermost(id, || {
            catch_unwind(AssertUnwindSafe(|| fiber.resume(how)))
        }))
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if self.busy.load(Ordering::Relaxed) {
            // A job that kept suspending after it was cancelled: its frames
            // still use the stack, which is kept rather than freed.
            if let Some(fiber) = self.fiber.take() {
                std::mem::forget(fiber);
            }
            return;
        }
        // Idle: the loop returns, and the stack goes back to the pool.
        if let Some(Ok(Ok(()))) = self.resume(Resume::Exit) {
            if let Some(fiber) = self.fiber.take() {
                self.pool.give_back(fiber.into_stack());
            }
        }
    }
}

/// Where a [`WorkerFuture`]'s job is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum JobState {
    /// Not started.
    Ready,
    /// Running or suspended on the worker's fiber (which is busy).
    Running,
    /// Finished, or given up on.
    Done,
}

/// The future of [`FiberWorker::on_fiber`]: the job's result, with the
/// worker to run the next job on.
pub struct WorkerFuture<F, R> {
    /// Until the future is ready, or its worker is lost.
    worker: Option<FiberWorker>,
    /// The job, until the worker's fiber takes it.
    job: Option<F>,
    state: JobState,
    /// Where the job's outcome is written.
    out: Outcome<R>,
}

// The closure is moved out of the future, onto the fiber's stack, at the
// first poll, and never pinned: the future may move freely.
impl<F, R> Unpin for WorkerFuture<F, R> {}

impl<F, R> fmt::Debug for WorkerFuture<F, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WorkerFuture")
            .field("started", &(self.state != JobState::Ready))
            .field("done", &(self.state == JobState::Done))
            .finish()
    }
}

impl<F: FnOnce(&AsyncCx) -> R + Send, R> Future for WorkerFuture<F, R> {
    type Output = (R, FiberWorker);

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<(R, FiberWorker)> {
        let this = self.get_mut();
        if this.state == JobState::Done {
            // Polled after completion: there is nothing left to produce.
            return Poll::Pending;
        }
        match this.step(Resume::Poll, Some(cx), run_job::<F, R>) {
            Some(Ok(Err(Yielded::Suspended))) => Poll::Pending,
            Some(Ok(Err(Yielded::Idle))) => match (this.out.take(), this.worker.take()) {
                (Some(Ok(value)), Some(worker)) => Poll::Ready((value, worker)),
                // The job panicked: the panic goes on in the caller, and the
                // worker (its fiber intact) with this future.
                (Some(Err(panic)), worker) => {
                    this.worker = worker;
                    std::panic::resume_unwind(panic)
                }
                // Cannot happen: an idle worker wrote its job's outcome, and
                // the worker is only taken here.
                (_, worker) => {
                    this.worker = worker;
                    Poll::Pending
                }
            },
            // The worker's loop itself panicked, or its fiber returned or
            // is missing: none of which it does. Nothing is left to run.
            Some(Err(panic)) => {
                this.lose_worker();
                std::panic::resume_unwind(panic)
            }
            Some(Ok(Ok(()))) | None => {
                this.lose_worker();
                Poll::Pending
            }
        }
    }
}

impl<F, R> WorkerFuture<F, R> {
    /// Resumes the worker's fiber with `how`, with this future's slot for
    /// the job's outcome (and `cx`, the context of the poll running it);
    /// the first time, the fiber takes the job, to run with `run` (the
    /// [`run_job`] of its type).
    fn step(
        &mut self,
        how: Resume,
        cx: Option<&mut Context<'_>>,
        run: unsafe fn(*mut (), &AsyncCx),
    ) -> Option<std::thread::Result<Result<(), Yielded>>> {
        let worker = self.worker.as_mut()?;
        let shared = &worker.inner.shared;
        if self.state == JobState::Ready {
            self.state = JobState::Running;
            worker.inner.busy.store(true, Ordering::Relaxed);
            shared.cancelled.store(false, Ordering::Relaxed);
            let job = (&mut self.job as *mut Option<F>).cast();
            shared.job.set(Some(JobRef { job, run }));
        }
        shared.out.set((&mut self.out as *mut Outcome<R>).cast());
        if let Some(cx) = cx {
            shared.poll_cx.set((cx as *mut Context<'_>).cast());
        }
        let result = worker.inner.resume(how);
        shared.poll_cx.set(std::ptr::null_mut());
        shared.out.set(std::ptr::null_mut());
        shared.job.set(None);
        if !matches!(result, Some(Ok(Err(Yielded::Suspended)))) {
            // The job is over (or the fiber is gone): its stack is idle.
            self.finish_job();
        }
        result
    }

    /// Marks the job over and the worker idle.
    fn finish_job(&mut self) {
        self.state = JobState::Done;
        if let Some(worker) = self.worker.as_mut() {
            worker.inner.busy.store(false, Ordering::Release);
        }
    }

    /// Drops a worker whose fiber can run no more jobs, keeping its stack
    /// out of the pool unless the fiber is done.
    fn lose_worker(&mut self) {
        if let Some(mut worker) = self.worker.take() {
            if let Some(fiber) = worker.inner.fiber.take() {
                if fiber.done() {
                    worker.inner.pool.give_back(fiber.into_stack());
                } else {
                    std::mem::forget(fiber);
                }
            }
        }
    }
}

impl<F, R> Drop for WorkerFuture<F, R> {
    fn drop(&mut self) {
        match self.state {
            // Never started, or over: the worker goes, idle.
            JobState::Ready | JobState::Done => return,
            JobState::Running => {}
        }
        let Some(worker) = self.worker.as_ref() else { return };
        // Cancel the suspended job: every wait on the fiber fails with
        // `Cancelled` until the job returns; its outcome is dropped with
        // this future.
        worker.inner.shared.cancelled.store(true, Ordering::Relaxed);
        for _ in 0..MAX_CANCEL_RESUMES {
            match self.step(Resume::Cancel, None, no_job) {
                Some(Ok(Err(Yielded::Suspended))) => continue,
                Some(Ok(Err(Yielded::Idle))) => return,
                // The loop panicked or ended: no more jobs on this fiber.
                Some(Err(_)) | Some(Ok(Ok(()))) | None => break,
            }
        }
        // The job could not be unwound (its stack stays out of the pool,
        // in use, if it is still suspended), or the fiber is gone.
        self.lose_worker();
    }
}

//! The tokio glue of WASI 0.2 (Wasmtime's `wasmtime_wasi::runtime`).
//!
//! Every socket, timer and background task of `weft_wasi::p2` is
//! registered with a tokio runtime: the one the calling thread is in
//! (an embedder's own runtime, when it drives `call_async` on tokio), or
//! else a runtime of this crate with one worker thread that runs the I/O
//! and timer drivers in the background. A future registered there is
//! woken by that driver whichever executor polls it, so the async host
//! functions work under any executor, and the synchronous ones
//! ([`in_tokio`]) park their thread until a waker fires — never a sleep
//! loop.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, Wake, Waker};

/// This crate's runtime, made on first use; the error says why it could
/// not be made.
fn own_runtime() -> Result<&'static tokio::runtime::Runtime, &'static std::io::Error> {
    static RUNTIME: OnceLock<std::io::Result<tokio::runtime::Runtime>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("weft-wasi-io")
                .enable_io()
                .enable_time()
                .build()
        })
        .as_ref()
}

/// A handle of the runtime new sockets, timers and tasks of this crate go
/// to: this crate's own, whatever runtime the calling thread is in. Its
/// worker thread drives them, so they are woken whether the embedder
/// polls them from a tokio runtime of its own (of either flavour), from
/// another executor, or blocks a thread on them ([`in_tokio`]) — even the
/// one thread of a current-thread runtime.
pub(crate) fn handle() -> std::io::Result<tokio::runtime::Handle> {
    match own_runtime() {
        Ok(rt) => Ok(rt.handle().clone()),
        Err(e) => Err(std::io::Error::new(
            e.kind(),
            format!("weft-wasi could not start its tokio runtime: {e}"),
        )),
    }
}

/// Runs `f` inside the context of this crate's runtime, so that the sockets and timers it makes are registered
/// with a reactor; the error says why no runtime could be started.
#[cfg_attr(not(feature = "p2"), allow(dead_code, reason = "used by the p2 sockets only"))]
pub(crate) fn in_runtime<R>(f: impl FnOnce() -> R) -> std::io::Result<R> {
    let h = handle()?;
    let _guard = h.enter();
    Ok(f())
}

/// Runs `f` inside a tokio runtime's context (Wasmtime's
/// `with_ambient_tokio_runtime`): the calling thread's if it is in one,
/// else this crate's background runtime. If no runtime can be started at
/// all (the system refuses a thread or an event queue), `f` runs without
/// one.
pub fn with_ambient_tokio_runtime<R>(f: impl FnOnce() -> R) -> R {
    if tokio::runtime::Handle::try_current().is_ok() {
        return f();
    }
    match handle() {
        Ok(h) => {
            let _guard = h.enter();
            f()
        }
        Err(_) => f(),
    }
}

/// Wakes a parked thread.
struct ThreadWaker(std::thread::Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs `f` to its end on the calling thread, inside a tokio runtime's
/// context (Wasmtime's `in_tokio`): this is how the synchronous host
/// functions of `p2::add_to_linker_sync` wait. The thread parks
/// until one of the futures `f` waits on is woken, never in a sleep loop.
///
/// `f` runs in the context of this crate's runtime, whose worker thread
/// drives the sockets and timers made inside it (and every socket, timer
/// and task of this crate), so it finishes wherever it is called:
///
/// - outside any runtime;
/// - in a task of a multi-thread tokio runtime: the wait is a
///   `tokio::task::block_in_place`, so the runtime moves its other tasks
///   and its drivers to another thread meanwhile, and `f` may wait on
///   them (a task spawned there, a socket registered with it);
/// - on the thread of a current-thread tokio runtime (in its `block_on`
///   or one of its tasks), as the synchronous WASI 0.2 host functions of
///   `weft run` are: that runtime cannot run while its only thread waits
///   here, so `f` must not wait on something only that runtime makes
///   progress on (one of its tasks, or an I/O object registered with its
///   reactor before the call); everything this crate makes, and whatever
///   `f` itself creates, is on this crate's runtime instead and works.
///
/// Unlike tokio's `block_on` (and Wasmtime's `in_tokio`), this never
/// panics for being called inside a runtime.
pub fn in_tokio<F: Future>(f: F) -> F::Output {
    let on_multi_thread_task = tokio::task::try_id().is_some()
        && tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
    if !on_multi_thread_task {
        return wait_in_own_runtime(f);
    }
    // `block_in_place` refuses (panics) before it runs anything when the
    // task is not a worker's after all (a current-thread runtime's task
    // that entered a multi-thread runtime's context): `f` is then still
    // in `slot`, and is waited for as on a current-thread runtime.
    let mut slot = Some(f);
    let tried = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tokio::task::block_in_place(|| slot.take().map(wait_in_own_runtime))
    }));
    match (tried, slot) {
        (Ok(Some(v)), _) => v,
        (_, Some(f)) => wait_in_own_runtime(f),
        // `f` ran and panicked (or `block_in_place` did after it): resume
        // that panic, as a direct call would have.
        (Err(payload), None) => std::panic::resume_unwind(payload),
        // `slot` held `f` when `block_in_place` ran its closure.
        (Ok(None), None) => unreachable_output(),
    }
}

/// Never called: [`in_tokio`]'s closure always finds `f` in its slot.
/// Diverges by parking forever rather than panicking.
fn unreachable_output<T>() -> T {
    loop {
        std::thread::park();
    }
}

/// Runs `f` to its end on the calling thread in the context of this
/// crate's runtime (or, if it could not be started, of a runtime without
/// an I/O driver that only has timers).
fn wait_in_own_runtime<F: Future>(f: F) -> F::Output {
    match own_runtime() {
        Ok(rt) => {
            let _guard = rt.enter();
            block_on(f)
        }
        Err(_) => match fallback_runtime() {
            // The fallback has no worker thread: its tasks (those of
            // `spawn` when no runtime could be started) run when a thread
            // drives it, which its `block_on` does, outside a runtime.
            Some(rt) if tokio::runtime::Handle::try_current().is_err() => rt.block_on(f),
            Some(rt) => {
                let _guard = rt.enter();
                block_on(f)
            }
            None => block_on(f),
        },
    }
}

/// The runtime of last resort when this crate's cannot be started (the
/// system refuses an event queue): one without a worker thread or an I/O
/// driver, with timers; `None` if even that cannot be made.
fn fallback_runtime() -> Option<&'static tokio::runtime::Runtime> {
    static RUNTIME: OnceLock<Option<tokio::runtime::Runtime>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| tokio::runtime::Builder::new_current_thread().enable_time().build().ok())
        .as_ref()
}

/// The handle of the runtime [`spawn`] and [`spawn_blocking`] use: the
/// ambient runtime (the calling thread's, else this crate's), else the
/// fallback; `None` if none of them can be had.
fn ambient_handle() -> Option<tokio::runtime::Handle> {
    if let Ok(h) = tokio::runtime::Handle::try_current() {
        return Some(h);
    }
    match own_runtime() {
        Ok(rt) => Some(rt.handle().clone()),
        Err(_) => fallback_runtime().map(|rt| rt.handle().clone()),
    }
}

/// A handle of a task that never runs (it was cancelled when made):
/// awaiting it never finishes. Only [`spawn`] without any runtime gives
/// it.
fn never_handle<T: Send + 'static>() -> AbortOnDropJoinHandle<T> {
    let set = tokio::task::LocalSet::new();
    AbortOnDropJoinHandle(set.spawn_local(std::future::pending()))
}

/// Spawns `f` as a task of the ambient tokio runtime (Wasmtime's
/// `spawn`): the calling thread's runtime if it is in one, else this
/// crate's background runtime. The task is aborted when the handle is
/// dropped.
///
/// If no runtime can be started at all (the system refuses an event
/// queue), the task goes to a runtime without I/O driver or worker
/// thread, which runs it while a thread waits in [`in_tokio`]; and if
/// even that cannot be made, the task never runs (awaiting its handle
/// never finishes), rather than panicking.
pub fn spawn<F>(f: F) -> AbortOnDropJoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    match ambient_handle() {
        Some(h) => AbortOnDropJoinHandle(h.spawn(f)),
        None => never_handle(),
    }
}

/// Runs `f` on a thread of the ambient tokio runtime's blocking pool
/// (Wasmtime's `spawn_blocking`), see [`spawn`] for which runtime that
/// is. As tokio's, this panics only if the system refuses the pool a
/// thread.
pub fn spawn_blocking<F, R>(f: F) -> AbortOnDropJoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    match ambient_handle() {
        Some(h) => AbortOnDropJoinHandle(h.spawn_blocking(f)),
        None => never_handle(),
    }
}

/// Polls `fut` until it ends, parking the thread in between.
fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}

/// Polls `future` once with a waker that does nothing: its output if it
/// is ready (Wasmtime's `poll_noop`).
pub fn poll_noop<F: Future + ?Sized>(future: Pin<&mut F>) -> Option<F::Output> {
    match future.poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => Some(v),
        Poll::Pending => None,
    }
}

/// A tokio task that is aborted when this handle is dropped; awaiting it
/// gives the task's output (Wasmtime's `AbortOnDropJoinHandle`).
#[derive(Debug)]
pub struct AbortOnDropJoinHandle<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDropJoinHandle<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl<T> std::ops::Deref for AbortOnDropJoinHandle<T> {
    type Target = tokio::task::JoinHandle<T>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl<T> std::ops::DerefMut for AbortOnDropJoinHandle<T> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl<T> From<tokio::task::JoinHandle<T>> for AbortOnDropJoinHandle<T> {
    fn from(h: tokio::task::JoinHandle<T>) -> Self {
        AbortOnDropJoinHandle(h)
    }
}

/// Why a task's output is missing: it panicked (or was cancelled, which
/// only dropping this handle does).
#[derive(Debug)]
pub struct TaskFailed(String);

impl std::fmt::Display for TaskFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a weft-wasi background task failed: {}", self.0)
    }
}

impl std::error::Error for TaskFailed {}

impl<T> AbortOnDropJoinHandle<T> {
    /// The task's output, or why there is none (it panicked). Unlike
    /// awaiting the handle itself, this never resumes the task's panic.
    pub async fn join(&mut self) -> Result<T, TaskFailed> {
        (&mut self.0).await.map_err(|e| TaskFailed(e.to_string()))
    }
}

impl<T> Future for AbortOnDropJoinHandle<T> {
    /// As Wasmtime's, the task's output. A task that panicked resumes its
    /// panic here; the tasks of this crate never panic (and use
    /// [`AbortOnDropJoinHandle::join`]).
    type Output = T;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        match Pin::new(&mut self.0).poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Ok(v)) => Poll::Ready(v),
            Poll::Ready(Err(e)) => match e.try_into_panic() {
                Ok(payload) => std::panic::resume_unwind(payload),
                // Only dropping the handle aborts the task, and then
                // nobody polls it: a cancelled task cannot be seen here.
                Err(_) => Poll::Pending,
            },
        }
    }
}

/// Runs `f` on a thread of the blocking pool of this crate's runtime
/// (whatever runtime the calling thread is in, so that a thread waiting
/// in [`in_tokio`] on a current-thread runtime sees it end); the error
/// says why that runtime could not be started.
#[cfg_attr(not(feature = "p2"), allow(dead_code, reason = "used by the p2 sockets only"))]
pub(crate) fn try_spawn_blocking<F, R>(f: F) -> std::io::Result<AbortOnDropJoinHandle<R>>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    Ok(AbortOnDropJoinHandle(handle()?.spawn_blocking(f)))
}

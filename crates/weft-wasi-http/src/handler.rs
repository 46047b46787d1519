//! Serving requests with instances that are reused (Wasmtime 48's
//! `wasmtime_wasi_http::handler`, used by `weft serve`; feature `p3`, or
//! its alias `component-model-async`).
//!
//! A [`ProxyHandler`] hands each request to a worker: a store and an
//! instance ([`Instance`]) made by the embedder's [`HandlerState`], which
//! serves requests until its [`WorkerState`] stops accepting them (a count
//! of requests, say) and the requests it took are done, until its
//! [`WorkerExpiration`] says so (an idle timeout, say), or until the guest
//! traps: a trap ends the worker, its instance is dropped with the store,
//! and the next request gets a worker with a fresh instance. When no
//! worker is free to take a request, a new one is started.
//!
//! A WASI 0.3 service ([`Proxy::P3`]) takes several requests at once:
//! each is a concurrent call of `wasi:http/handler.handle` in the store's
//! event loop (`Store::run_concurrent`), which runs as long as the worker
//! does. A WASI 0.2 proxy ([`Proxy::P2`]) takes one request at a time:
//! `incoming-handler.handle` runs to its end (the guest has written the
//! body) before the next request is taken. Its call is a task of the
//! store's event loop on a fiber: linked with the async WASI functions
//! (`weft_wasi_http::p2::add_to_linker_async`), it waits in them holding
//! the store; linked with the synchronous ones, their waits block the
//! worker's thread. Each worker runs on a thread of tokio's blocking pool,
//! so [`ProxyHandler::handle`] must be called on a tokio runtime.
//!
//! What a reused instance keeps between requests is what the guest keeps
//! in its own memory and tables (as in Wasmtime): the host's side of a
//! request (its resources in the table, its streams) is gone when the
//! request is done.

use crate::p2::bindings::http::types::Scheme as P2Scheme;
use crate::{p2, p3, WasiBody, WasiHttpCtxView};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Instant;
use tokio::sync::oneshot;
use weft::component::{Accessor, GuestTaskId, Resource, TypedFuncCallConcurrent};
use weft::{AsContextMut, Store, StoreContextMut};

/// A request as the handler takes it.
pub type Request = http::Request<WasiBody>;
/// A response as the handler gives it.
pub type Response = http::Response<WasiBody>;

/// The pre-instance of a served component: a WASI 0.2 proxy or a WASI
/// 0.3 service.
pub enum ProxyPre<T: 'static> {
    /// A `wasi:http/proxy` 0.2 component.
    P2(p2::bindings::ProxyPre<T>),
    /// A `wasi:http/service` 0.3 component.
    P3(p3::bindings::ServicePre<T>),
}

impl<T: 'static> ProxyPre<T> {
    /// Instantiates the component in `store`.
    pub async fn instantiate_async(&self, mut store: impl AsContextMut<Data = T>) -> weft::Result<Proxy>
    where
        T: Send,
    {
        let store = store.as_context_mut();
        Ok(match self {
            ProxyPre::P2(pre) => Proxy::P2(pre.instantiate_async(store).await?),
            ProxyPre::P3(pre) => Proxy::P3(pre.instantiate_async(store).await?),
        })
    }
}

/// An instance of a served component.
pub enum Proxy {
    /// A `wasi:http/proxy` 0.2 instance.
    P2(p2::bindings::Proxy),
    /// A `wasi:http/service` 0.3 instance.
    P3(p3::bindings::Service),
}

/// What a worker is doing, for its [`WorkerExpiration`].
#[derive(Clone, Copy, Eq, PartialEq, Debug)]
pub enum WorkerStatus {
    /// No request is being handled.
    Idle,
    /// One or more requests are being handled.
    Requests,
    /// Every request has its response, and the guest still works after
    /// giving it (a WASI 0.2 guest writing the body, before its
    /// `incoming-handler.handle` returns). (Weft's WASI 0.3 workers report
    /// [`WorkerStatus::Requests`] until hyper has read a response's body,
    /// and [`WorkerStatus::Idle`] after.)
    PostReturn,
}

/// When a worker ends (its instance is dropped).
pub trait WorkerExpiration: 'static + Send + Sync {
    /// `Poll::Ready(())` when the worker should end; else `Pending`, with
    /// `cx`'s waker woken when it should be asked again. `state` is what
    /// the worker does now and `start` when it began to (for
    /// [`WorkerStatus::Requests`]: when the latest request was taken; for
    /// [`WorkerStatus::PostReturn`]: when the worker first saw the
    /// response given). A WASI 0.2 worker's expiration is polled while its
    /// guest runs, too: `Ready` then stops the guest where it waits, and
    /// a request not yet answered fails with [`ExpirationError`].
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>, state: WorkerStatus, start: Instant) -> Poll<()>;
}

/// The embedder's state of one worker.
pub trait WorkerState: 'static + Send + Sync {
    /// The data of the worker's store.
    type StoreData: Send;
    /// What [`ProxyHandler::handle`] passes on to
    /// [`WorkerState::on_request_start`] with each request.
    type RequestData: Send + Sync;

    /// Whether the worker takes another request, now handling
    /// `concurrent_count` and having taken `total_count` in all.
    fn should_accept_request(&self, concurrent_count: usize, total_count: usize) -> ShouldAccept;

    /// The worker took a request (the guest task that handles it is
    /// `task`). When the future returned ends before the guest has
    /// responded, the request has expired: [`ProxyHandler::handle`] fails
    /// with [`ExpirationError`]. A WASI 0.2 proxy's worker then ends (its
    /// guest is stopped where it waits, and [`WorkerState::drop`] gets
    /// the `ExpirationError`): it handles one request at a time, and this
    /// one's call cannot be finished.
    fn on_request_start(
        &self,
        store: StoreContextMut<'_, Self::StoreData>,
        data: Self::RequestData,
        task: GuestTaskId,
    ) -> Pin<Box<dyn Future<Output = ()> + 'static + Send + Sync>>;

    /// The worker ended: its store, and `Err` with the error (a trap) that
    /// ended it.
    fn drop(&self, store: Store<Self::StoreData>, result: Result<(), weft::Error>);
}

/// A store with an instance, to serve requests with.
pub struct Instance<T: 'static, E: WorkerExpiration, S: WorkerState> {
    /// The store.
    pub store: Store<T>,
    /// The instance.
    pub proxy: Proxy,
    /// The getter of the store data's `wasi:http` view.
    pub view: fn(&mut T) -> WasiHttpCtxView<'_>,
    /// When the worker ends.
    pub expiration: E,
    /// The worker's state.
    pub state: S,
}

/// Whether a worker takes another request.
pub enum ShouldAccept {
    /// It does.
    Yes,
    /// Not now (ask again when one of its requests is done).
    No,
    /// Never again: the worker ends once its requests are done.
    Never,
}

/// The embedder's state of a server: how workers are made.
pub trait HandlerState: 'static + Sync + Send + Sized {
    /// The data of the workers' stores.
    type StoreData: Send;
    /// The expiration of a worker.
    type WorkerExpiration: WorkerExpiration;
    /// The state of a worker.
    type WorkerState: WorkerState<StoreData = Self::StoreData>;

    /// A new store and instance for a worker.
    fn instantiate(
        &self,
    ) -> impl Future<Output = weft::Result<Instance<Self::StoreData, Self::WorkerExpiration, Self::WorkerState>>> + Send;
}

/// [`ProxyHandler::handle`]'s error when no instance could be made for
/// the request: the request and its data come back with it (downcast the
/// `weft::Error` to `InstantiationError<RequestData>`, with the
/// [`WorkerState::RequestData`] of the handler).
pub struct InstantiationError<T> {
    /// The request's data.
    pub request_data: T,
    /// The request.
    pub request: Mutex<Request>,
    /// Why the instance could not be made.
    pub error: Arc<weft::Error>,
}

impl<T> std::fmt::Debug for InstantiationError<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InstantiationError")
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl<T> std::fmt::Display for InstantiationError<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "failed to instantiate the component: {:#}", self.error)
    }
}

impl<T> std::error::Error for InstantiationError<T> {}

/// [`ProxyHandler::handle`]'s error when the request expired before the
/// guest responded.
#[derive(Debug)]
pub struct ExpirationError;

impl std::fmt::Display for ExpirationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the request expired before the guest responded")
    }
}

impl std::error::Error for ExpirationError {}

/// [`ProxyHandler::handle`]'s error when the worker ended (the guest
/// trapped, or the worker's task failed) before the guest responded.
#[derive(Debug)]
pub struct TrapOrPanicError;

impl std::fmt::Display for TrapOrPanicError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the instance ended (a trap, or a failed worker) before the guest responded")
    }
}

impl std::error::Error for TrapOrPanicError {}

/// Where a request's response goes.
type ResponseSender = oneshot::Sender<Result<Response, weft::Error>>;

/// A request waiting for a worker.
struct Job<D> {
    data: D,
    request: Request,
    tx: ResponseSender,
}

type RequestData<S> = <<S as HandlerState>::WorkerState as WorkerState>::RequestData;

struct Inner<S: HandlerState> {
    state: S,
    queue: Mutex<VecDeque<Job<RequestData<S>>>>,
    /// Wakes the workers waiting for a request.
    arrived: tokio::sync::Notify,
    /// How many workers wait for a request (and may take one).
    waiting: AtomicUsize,
    /// Every `ProxyHandler` is gone: idle workers end.
    closed: AtomicBool,
}

impl<S: HandlerState> Inner<S> {
    fn queue(&self) -> MutexGuard<'_, VecDeque<Job<RequestData<S>>>> {
        // A panic while the lock was held left a plain queue behind.
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Serves requests with workers made by a [`HandlerState`] (see the
/// module's documentation). When the last clone is dropped, the workers
/// end once their requests are done.
pub struct ProxyHandler<S: HandlerState>(Arc<Owner<S>>);

/// What the clones of a `ProxyHandler` share; dropped with the last one.
struct Owner<S: HandlerState>(Arc<Inner<S>>);

impl<S: HandlerState> Drop for Owner<S> {
    fn drop(&mut self) {
        self.0.closed.store(true, Ordering::SeqCst);
        self.0.arrived.notify_waiters();
    }
}

impl<S: HandlerState> std::ops::Deref for Owner<S> {
    type Target = Arc<Inner<S>>;

    fn deref(&self) -> &Arc<Inner<S>> {
        &self.0
    }
}

impl<S: HandlerState> Clone for ProxyHandler<S> {
    fn clone(&self) -> Self {
        ProxyHandler(self.0.clone())
    }
}

impl<S: HandlerState> ProxyHandler<S> {
    /// A handler whose workers `state` makes.
    pub fn new(state: S) -> Self {
        ProxyHandler(Arc::new(Owner(Arc::new(Inner {
            state,
            queue: Mutex::new(VecDeque::new()),
            arrived: tokio::sync::Notify::new(),
            waiting: AtomicUsize::new(0),
            closed: AtomicBool::new(false),
        }))))
    }

    /// The handler's state.
    pub fn state(&self) -> &S {
        &self.0.state
    }

    /// Handles `request` with a worker (starting one when none is free):
    /// the guest's response, or an error — [`InstantiationError`],
    /// [`ExpirationError`], [`TrapOrPanicError`] (downcast the
    /// `weft::Error`), the guest's `error-code`, or that this was not
    /// called on a tokio runtime. No backpressure: requests wait in a
    /// queue for a worker.
    pub async fn handle(&self, data: RequestData<S>, request: Request) -> Result<Response, weft::Error> {
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| weft::Error::msg("ProxyHandler::handle must be called on a tokio runtime"))?;
        let (tx, rx) = oneshot::channel();
        let queued = {
            let mut queue = self.0.queue();
            queue.push_back(Job { data, request, tx });
            queue.len()
        };
        if queued > self.0.waiting.load(Ordering::SeqCst) {
            start_worker(&self.0, &runtime);
        }
        self.0.arrived.notify_waiters();
        match rx.await {
            Ok(result) => result,
            Err(_) => Err(TrapOrPanicError.into()),
        }
    }
}

/// Starts a worker on a thread of `runtime`'s blocking pool: 0.2 host
/// functions wait on it, and 0.3's event loop runs there.
fn start_worker<S: HandlerState>(inner: &Arc<Inner<S>>, runtime: &tokio::runtime::Handle) {
    let inner = inner.clone();
    let rt = runtime.clone();
    drop(runtime.spawn_blocking(move || rt.block_on(run_worker(inner))));
}

/// Takes the next request, if any.
fn take_job<S: HandlerState>(inner: &Inner<S>) -> Option<Job<RequestData<S>>> {
    inner.queue().pop_front()
}

/// Marks a worker as waiting for a request (or not), once.
struct Waiting<'a> {
    count: &'a AtomicUsize,
    on: bool,
}

impl Waiting<'_> {
    fn set(&mut self, on: bool) {
        if on != self.on {
            self.on = on;
            if on {
                self.count.fetch_add(1, Ordering::SeqCst);
            } else {
                self.count.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.set(false);
    }
}

async fn run_worker<S: HandlerState>(inner: Arc<Inner<S>>) {
    let instance = match inner.state.instantiate().await {
        Ok(i) => i,
        Err(error) => {
            // The request this worker was started for gets the error.
            if let Some(job) = take_job(&inner) {
                let error = InstantiationError {
                    request_data: job.data,
                    request: Mutex::new(job.request),
                    error: Arc::new(error),
                };
                let _ = job.tx.send(Err(weft::Error::new(error)));
            }
            restart_if_needed(&inner);
            return;
        }
    };
    let Instance {
        mut store,
        proxy,
        view,
        expiration,
        state,
    } = instance;
    let result = match &proxy {
        Proxy::P2(_) => serve_p2(&inner, &mut store, &proxy, view, expiration, &state).await,
        Proxy::P3(_) => {
            let inner2 = inner.clone();
            let run = store
                .run_concurrent(async |accessor| serve_p3(&inner2, accessor, &proxy, view, expiration, &state).await)
                .await;
            run.and_then(|r| r)
        }
    };
    state.drop(store, result);
    restart_if_needed(&inner);
}

/// Starts a worker for the requests that came while this one ended.
fn restart_if_needed<S: HandlerState>(inner: &Arc<Inner<S>>) {
    if !inner.queue().is_empty() {
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            start_worker(inner, &rt);
        }
    }
}

/// Waits for a request (with the worker idle since `since`): `None` when
/// the expiration ended the worker first.
async fn next_job<S: HandlerState>(
    inner: &Inner<S>,
    expiration: &mut Pin<&mut S::WorkerExpiration>,
    since: Instant,
) -> Option<Job<RequestData<S>>> {
    let mut waiting = Waiting {
        count: &inner.waiting,
        on: false,
    };
    let mut arrived = Box::pin(inner.arrived.notified());
    std::future::poll_fn(|cx| loop {
        // Registered before the queue is looked at: a request queued
        // after the look wakes this.
        if arrived.as_mut().poll(cx).is_ready() {
            arrived = Box::pin(inner.arrived.notified());
            continue;
        }
        if let Some(job) = take_job(inner) {
            waiting.set(false);
            return Poll::Ready(Some(job));
        }
        if inner.closed.load(Ordering::SeqCst) {
            waiting.set(false);
            return Poll::Ready(None);
        }
        waiting.set(true);
        if expiration.as_mut().poll(cx, WorkerStatus::Idle, since).is_ready() {
            waiting.set(false);
            return Poll::Ready(None);
        }
        return Poll::Pending;
    })
    .await
}

/// A WASI 0.2 worker: one request at a time.
async fn serve_p2<S: HandlerState>(
    inner: &Inner<S>,
    store: &mut Store<S::StoreData>,
    proxy: &Proxy,
    view: fn(&mut S::StoreData) -> WasiHttpCtxView<'_>,
    expiration: S::WorkerExpiration,
    state: &S::WorkerState,
) -> weft::Result<()> {
    let mut expiration = std::pin::pin!(expiration);
    let mut total = 0;
    let mut idle_since = Instant::now();
    loop {
        // One request at a time: `No` (with none running) ends the worker
        // as `Never` does.
        if !matches!(state.should_accept_request(0, total), ShouldAccept::Yes) {
            return Ok(());
        }
        let Some(job) = next_job(inner, &mut expiration, idle_since).await else {
            return Ok(());
        };
        total += 1;
        let Job { data, request, tx } = job;
        let prepared = Prepared::new(store.as_context_mut(), proxy, request, view, tx)?;
        let sender = prepared.p2_sender();
        let mut request_expired = state.on_request_start(store.as_context_mut(), data, prepared.task());
        let taken = Instant::now();
        let mut responded_at = None;
        // The guest's call runs in the store's event loop. The request's
        // and the worker's expirations are polled beside that loop, not in
        // it: while the guest waits in an async WASI function it holds the
        // store, and the loop then polls nothing else.
        // Leaving this block drops the event loop: that stops the guest's
        // call where it waits (its host function fails); the worker then
        // ends.
        let ended = {
            let run = store.run_concurrent(async |accessor| prepared.run(accessor, std::future::pending::<()>()).await);
            let mut run = std::pin::pin!(run);
            std::future::poll_fn(|cx| {
                if let Poll::Ready(result) = run.as_mut().poll(cx) {
                    return Poll::Ready(P2Ended::Done(result));
                }
                let responded = lock(&sender).is_none();
                if !responded && request_expired.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(P2Ended::RequestExpired);
                }
                let (status, since) = if responded {
                    (WorkerStatus::PostReturn, *responded_at.get_or_insert_with(Instant::now))
                } else {
                    (WorkerStatus::Requests, taken)
                };
                if expiration.as_mut().poll(cx, status, since).is_ready() {
                    return Poll::Ready(P2Ended::WorkerExpired);
                }
                Poll::Pending
            })
            .await
        };
        match ended {
            P2Ended::Done(result) => {
                result??;
            }
            P2Ended::RequestExpired => {
                if let Some(tx) = lock(&sender).take() {
                    let _ = tx.send(Err(ExpirationError.into()));
                }
                return Err(ExpirationError.into());
            }
            P2Ended::WorkerExpired => {
                if let Some(tx) = lock(&sender).take() {
                    let _ = tx.send(Err(ExpirationError.into()));
                }
                return Ok(());
            }
        }
        idle_since = Instant::now();
    }
}

/// How the call of a WASI 0.2 guest ended.
enum P2Ended {
    /// It returned (`Ok(Ok(true))`), or failed.
    Done(weft::Result<weft::Result<bool>>),
    /// The request expired before the guest responded.
    RequestExpired,
    /// The worker's expiration ended it.
    WorkerExpired,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A running request of a 0.3 worker.
type Running<'a> = Pin<Box<dyn Future<Output = weft::Result<()>> + Send + 'a>>;

/// A WASI 0.3 worker: requests run concurrently in the store's event
/// loop.
async fn serve_p3<S: HandlerState>(
    inner: &Inner<S>,
    accessor: &Accessor<S::StoreData>,
    proxy: &Proxy,
    view: fn(&mut S::StoreData) -> WasiHttpCtxView<'_>,
    expiration: S::WorkerExpiration,
    state: &S::WorkerState,
) -> weft::Result<()>
where
    S::StoreData: 'static,
{
    let mut expiration = std::pin::pin!(expiration);
    let mut running: Vec<Running<'_>> = Vec::new();
    let mut total = 0;
    let mut accepting = true;
    let mut since = Instant::now();
    let mut waiting = Waiting {
        count: &inner.waiting,
        on: false,
    };
    let mut arrived = Box::pin(inner.arrived.notified());
    std::future::poll_fn(|cx| loop {
        // The requests running: a trap ends the worker.
        let before = running.len();
        let mut i = 0;
        while i < running.len() {
            match running[i].as_mut().poll(cx) {
                Poll::Ready(Err(e)) => {
                    waiting.set(false);
                    return Poll::Ready(Err(e));
                }
                Poll::Ready(Ok(())) => {
                    drop(running.swap_remove(i));
                }
                Poll::Pending => i += 1,
            }
        }
        if running.len() < before && running.is_empty() {
            since = Instant::now();
        }
        if arrived.as_mut().poll(cx).is_ready() {
            arrived = Box::pin(inner.arrived.notified());
            continue;
        }
        // New requests, while the state takes them.
        let mut took = false;
        while accepting {
            match state.should_accept_request(running.len(), total) {
                ShouldAccept::Yes => {}
                ShouldAccept::No => break,
                ShouldAccept::Never => {
                    accepting = false;
                    break;
                }
            }
            let Some(job) = take_job(inner) else { break };
            total += 1;
            took = true;
            since = Instant::now();
            let Job { data, request, tx } = job;
            let started = accessor.with(|mut access| -> weft::Result<Running<'_>> {
                let prepared = Prepared::new(access.as_context_mut(), proxy, request, view, tx)?;
                let expired = state.on_request_start(access.as_context_mut(), data, prepared.task());
                Ok(Box::pin(async move { prepared.run(accessor, expired).await.map(drop) }))
            });
            match started {
                Ok(r) => running.push(r),
                Err(e) => {
                    waiting.set(false);
                    return Poll::Ready(Err(e));
                }
            }
        }
        let free = |accepting: bool, running: usize| {
            accepting && matches!(state.should_accept_request(running, total), ShouldAccept::Yes)
        };
        if took {
            // Whether the worker takes more is known before the new
            // requests are polled (and may respond): a request that comes
            // after a response finds the worker counted as free, and
            // starts no other worker.
            waiting.set(free(accepting, running.len()));
            // Poll the new requests once.
            continue;
        }
        if inner.closed.load(Ordering::SeqCst) && inner.queue().is_empty() {
            accepting = false;
        }
        waiting.set(free(accepting, running.len()));
        if !accepting && running.is_empty() {
            waiting.set(false);
            return Poll::Ready(Ok(()));
        }
        let status = if running.is_empty() {
            WorkerStatus::Idle
        } else {
            WorkerStatus::Requests
        };
        if expiration.as_mut().poll(cx, status, since).is_ready() {
            waiting.set(false);
            return Poll::Ready(Ok(()));
        }
        return Poll::Pending;
    })
    .await
}

/// The call of a 0.3 `wasi:http/handler.handle`.
type P2Call<T> = TypedFuncCallConcurrent<
    T,
    (
        Resource<p2::types::HostIncomingRequest>,
        Resource<p2::types::HostResponseOutparam>,
    ),
    (),
>;
type P3Call<T> = TypedFuncCallConcurrent<T, (Resource<p3::Request>,), (Result<Resource<p3::Response>, p3::ErrorCode>,)>;

/// A request handed to the guest, to run to its response
/// ([`Prepared::run`]).
pub enum Prepared<'a, T: 'static> {
    #[doc(hidden)]
    P2 {
        call: P2Call<T>,
        guest: &'a p2::bindings::Proxy,
        tx: Arc<Mutex<Option<ResponseSender>>>,
    },
    #[doc(hidden)]
    P3 {
        call: P3Call<T>,
        guest: &'a p3::bindings::Service,
        tx: ResponseSender,
        view: fn(&mut T) -> WasiHttpCtxView<'_>,
    },
}

impl<'a, T: Send> Prepared<'a, T> {
    /// Hands `request` to the guest `proxy` in `store`; the response goes
    /// to `tx`. The guest's call is started, and [`Prepared::run`] (in
    /// `Store::run_concurrent`) runs it and waits for its response.
    pub fn new(
        mut store: StoreContextMut<'_, T>,
        proxy: &'a Proxy,
        request: Request,
        view: fn(&mut T) -> WasiHttpCtxView<'_>,
        tx: oneshot::Sender<Result<Response, weft::Error>>,
    ) -> weft::Result<Prepared<'a, T>> {
        match proxy {
            Proxy::P2(guest) => {
                let tx = Arc::new(Mutex::new(Some(tx)));
                let req = view(store.data_mut()).new_incoming_request(P2Scheme::Http, request)?;
                let sender = tx.clone();
                let out = view(store.data_mut()).new_response_outparam_from_callback(move |result| {
                    if let Some(tx) = lock(&sender).take() {
                        let result = result
                            .map_err(|code| weft::Error::msg(format!("the guest answered with error code {code:?}")));
                        let _ = tx.send(result);
                    }
                })?;
                let func = guest.wasi_http_incoming_handler().func_handle();
                let call = func.start_call_concurrent(store.as_context_mut(), (req, out))?;
                Ok(Prepared::P2 { call, guest, tx })
            }
            Proxy::P3(guest) => {
                let hooks = view(store.data_mut()).hooks;
                let (request, _io) = p3::Request::from_http(hooks, request);
                let request = view(store.data_mut()).table.push(request)?;
                let func = guest.wasi_http_handler().func_handle();
                let call = func.start_call_concurrent(store.as_context_mut(), (request,))?;
                Ok(Prepared::P3 { call, guest, tx, view })
            }
        }
    }

    /// The sender of a WASI 0.2 request's response (`None` in it once the
    /// guest has responded); a 0.3 request's is never shared, so an empty
    /// one stands for it.
    fn p2_sender(&self) -> Arc<Mutex<Option<ResponseSender>>> {
        match self {
            Prepared::P2 { tx, .. } => tx.clone(),
            Prepared::P3 { .. } => Arc::new(Mutex::new(None)),
        }
    }

    /// The guest task that handles the request.
    fn task(&self) -> GuestTaskId {
        match self {
            Prepared::P2 { call, .. } => call.task(),
            Prepared::P3 { call, .. } => call.task(),
        }
    }

    /// Waits for the guest's response and sends it, then for hyper to have
    /// read its body (the guest writes a 0.3 body in the store's event
    /// loop). `Ok(false)` when `expiration` ended first (the request
    /// expired: [`ExpirationError`] is sent); `Err` is a trap.
    pub async fn run(self, accessor: &Accessor<T>, expiration: impl Future<Output = ()>) -> weft::Result<bool> {
        match self {
            Prepared::P2 { call, guest, tx } => {
                let func = guest.wasi_http_incoming_handler().func_handle();
                func.finish_call_concurrent(accessor, call).await?;
                if let Some(tx) = lock(&tx).take() {
                    let _ = tx.send(Err(weft::Error::msg("the guest returned without setting a response")));
                    return Ok(false);
                }
                Ok(true)
            }
            Prepared::P3 { call, guest, tx, view } => {
                let func = guest.wasi_http_handler().func_handle();
                let finished = func.finish_call_concurrent(accessor, call);
                let mut finished = std::pin::pin!(finished);
                let mut expiration = std::pin::pin!(expiration);
                let result = std::future::poll_fn(|cx| {
                    if let Poll::Ready(r) = finished.as_mut().poll(cx) {
                        return Poll::Ready(Some(r));
                    }
                    expiration.as_mut().poll(cx).map(|()| None)
                })
                .await;
                let result = match result {
                    None => {
                        let _ = tx.send(Err(ExpirationError.into()));
                        return Ok(false);
                    }
                    Some(Err(trap)) => {
                        let _ = tx.send(Err(TrapOrPanicError.into()));
                        return Err(trap);
                    }
                    Some(Ok((r,))) => r,
                };
                let response = match result {
                    Ok(r) => r,
                    Err(code) => {
                        let _ = tx.send(Err(weft::Error::msg(format!(
                            "the guest answered with error code {code:?}"
                        ))));
                        return Ok(true);
                    }
                };
                let response = accessor.with(|mut access| -> weft::Result<Response> {
                    let response = view(access.data_mut()).table.delete(response)?;
                    Ok(response.convert_to_http(access, view, None)?.map(|b| {
                        use http_body_util::BodyExt;
                        b.map_err(crate::Error::from).boxed_unsync()
                    }))
                });
                let response = match response {
                    Ok(r) => r,
                    Err(e) => {
                        let _ = tx.send(Err(weft::Error::msg(format!("{e:#}"))));
                        return Err(e);
                    }
                };
                // The body is read through the store's event loop: the
                // request runs until hyper is done with it.
                let (done_tx, done_rx) = oneshot::channel();
                let response = response.map(|inner| {
                    use http_body_util::BodyExt;
                    DoneBody { inner, _done: done_tx }.boxed_unsync()
                });
                if tx.send(Ok(response)).is_ok() {
                    let _ = done_rx.await;
                }
                Ok(true)
            }
        }
    }
}

/// A body that says when it is dropped (hyper is done with it).
struct DoneBody {
    inner: WasiBody,
    _done: oneshot::Sender<()>,
}

impl http_body::Body for DoneBody {
    type Data = bytes::Bytes;
    type Error = crate::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<bytes::Bytes>, crate::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

//! `wasi:io`: errors, pollables and streams, shaped as Wasmtime 48's
//! `wasmtime_wasi_io`.
//!
//! A pollable is a future: [`Pollable::ready`] completes when its
//! resource is ready, woken by a waker (the tokio reactor of a socket, a
//! timer, a channel). `poll` and `block` await the futures of the
//! pollables they are given; the synchronous host functions block on the
//! same futures with [`crate::runtime::in_tokio`].

use bytes::Bytes;
use std::any::Any;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use weft::component::{Resource, ResourceTable, ResourceTableError};

/// The host value of `wasi:io/error.error`: what went wrong in the last
/// stream operation.
pub type IoError = anyhow::Error;

/// Why a stream operation failed: the stream is closed, the operation
/// failed (the guest gets an `error` resource), or the guest must trap.
#[derive(Debug)]
pub enum StreamError {
    /// The stream is closed: no more bytes will come, or may be written.
    Closed,
    /// The operation failed; the stream is closed after it.
    LastOperationFailed(anyhow::Error),
    /// A failure the guest cannot recover from: its call traps.
    Trap(anyhow::Error),
}

impl StreamError {
    /// A trap with `msg`.
    pub fn trap(msg: &str) -> StreamError {
        StreamError::Trap(anyhow::anyhow!("{msg}"))
    }
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamError::Closed => f.write_str("closed"),
            StreamError::LastOperationFailed(e) => write!(f, "last operation failed: {e}"),
            StreamError::Trap(e) => write!(f, "trap: {e}"),
        }
    }
}

impl std::error::Error for StreamError {}

impl From<ResourceTableError> for StreamError {
    fn from(e: ResourceTableError) -> StreamError {
        StreamError::Trap(e.into())
    }
}

/// The result of a stream operation.
pub type StreamResult<T> = Result<T, StreamError>;

/// A boxed future of a pollable, borrowing the pollable's resource.
pub type DynFuture<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// Makes the readiness future of a resource, given the resource's value
/// in the table.
pub type MakeFuture = for<'a> fn(&'a mut dyn Any) -> DynFuture<'a>;

/// Something a guest may wait for: a stream that may become readable or
/// writable, a timer, a socket (Wasmtime's `Pollable`).
///
/// ```
/// use weft_wasi::async_trait;
/// use weft_wasi::p2::Pollable;
///
/// struct Tick(Option<tokio::sync::oneshot::Receiver<()>>);
///
/// #[async_trait]
/// impl Pollable for Tick {
///     async fn ready(&mut self) {
///         if let Some(rx) = self.0.take() {
///             let _ = rx.await;
///         }
///     }
/// }
/// ```
#[async_trait::async_trait]
pub trait Pollable: Send + 'static {
    /// Completes when the resource is ready (readable, writable, the
    /// deadline passed). It may be awaited again afterwards, and it may
    /// be dropped before it completes.
    async fn ready(&mut self);
}

/// The host value of `wasi:io/poll.pollable`: the readiness future of the
/// resource it was made from (see [`subscribe`]).
pub struct DynPollable {
    index: u32,
    make_future: MakeFuture,
    remove_index_on_delete: Option<fn(&mut ResourceTable, u32) -> anyhow::Result<()>>,
}

impl std::fmt::Debug for DynPollable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynPollable")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

/// The future of a resource of type `T`.
fn make_future<'a, T: Pollable>(resource: &'a mut dyn Any) -> DynFuture<'a> {
    match resource.downcast_mut::<T>() {
        Some(r) => r.ready(),
        // A pollable is a child of its resource, whose entry cannot change
        // type while it lives; were it to, the pollable is ready so that
        // the guest's next call meets the error.
        None => Box::pin(std::future::ready(())),
    }
}

/// Makes a pollable for `resource` (a child of it in `table`: the
/// resource cannot be deleted while the pollable lives). If `resource`
/// is owned, deleting the pollable deletes the resource too.
pub fn subscribe<T: Pollable>(
    table: &mut ResourceTable,
    resource: Resource<T>,
) -> anyhow::Result<Resource<DynPollable>> {
    fn remove<T: 'static>(table: &mut ResourceTable, index: u32) -> anyhow::Result<()> {
        table.delete(Resource::<T>::new_own(index))?;
        Ok(())
    }
    let pollable = DynPollable {
        index: resource.rep(),
        make_future: make_future::<T>,
        remove_index_on_delete: if resource.owned() { Some(remove::<T>) } else { None },
    };
    Ok(table.push_child(pollable, &resource)?)
}

/// Whether the pollable `p` is ready now (its future, polled once).
pub(crate) fn pollable_ready(table: &mut ResourceTable, p: &Resource<DynPollable>) -> anyhow::Result<bool> {
    let p = table.get(p)?;
    let (make, index) = (p.make_future, p.index);
    let entry = table.get_any_mut(index)?;
    let mut fut = make(entry);
    Ok(crate::runtime::poll_noop(fut.as_mut()).is_some())
}

/// Deletes the pollable `p`, and the resource it was made from if it
/// owned it.
pub(crate) fn delete_pollable(table: &mut ResourceTable, p: Resource<DynPollable>) -> anyhow::Result<()> {
    let p = table.delete(p)?;
    if let Some(remove) = p.remove_index_on_delete {
        remove(table, p.index)?;
    }
    Ok(())
}

/// Waits for the first ready of the pollables `list` and returns the
/// indices of every ready one.
pub(crate) async fn poll_list(table: &mut ResourceTable, list: &[Resource<DynPollable>]) -> anyhow::Result<Vec<u32>> {
    if list.is_empty() {
        anyhow::bail!("wasi:io/poll.poll: nothing to wait for (an empty list of pollables)");
    }
    // Pollables of one resource share its future.
    let mut by_resource: BTreeMap<u32, (MakeFuture, Vec<u32>)> = BTreeMap::new();
    for (i, p) in list.iter().enumerate() {
        let i = u32::try_from(i).map_err(|_| anyhow::anyhow!("wasi:io/poll.poll: too many pollables"))?;
        let p = table.get(p)?;
        by_resource
            .entry(p.index)
            .or_insert((p.make_future, Vec::new()))
            .1
            .push(i);
    }
    let mut futures = Vec::with_capacity(by_resource.len());
    for (entry, (make, indices)) in table.iter_entries(by_resource) {
        futures.push((make(entry?), indices));
    }
    Ok(PollList { futures }.await)
}

/// The futures of `poll`: ready when one of them is, with the indices of
/// all that are.
struct PollList<'a> {
    futures: Vec<(DynFuture<'a>, Vec<u32>)>,
}

impl Future for PollList<'_> {
    type Output = Vec<u32>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Vec<u32>> {
        let mut ready = Vec::new();
        for (fut, indices) in self.futures.iter_mut() {
            if fut.as_mut().poll(cx).is_ready() {
                ready.extend_from_slice(indices);
            }
        }
        if ready.is_empty() {
            Poll::Pending
        } else {
            ready.sort_unstable();
            Poll::Ready(ready)
        }
    }
}

/// How many times the default blocking operations wait for readiness
/// and find nothing before they give up (as Wasmtime's).
const MAX_BLOCKING_ATTEMPTS: u8 = 10;

/// A stream a guest reads (`wasi:io/streams.input-stream`; Wasmtime's
/// `InputStream`).
#[async_trait::async_trait]
pub trait InputStream: Pollable {
    /// Reads up to `size` bytes without blocking; empty when nothing is
    /// ready yet.
    fn read(&mut self, size: usize) -> StreamResult<Bytes>;

    /// Reads at least one byte (or fails), waiting for input: awaits
    /// [`Pollable::ready`] and reads, up to 10 times, then traps.
    async fn blocking_read(&mut self, size: usize) -> StreamResult<Bytes> {
        for _ in 0..MAX_BLOCKING_ATTEMPTS {
            self.ready().await;
            let data = self.read(size)?;
            if !data.is_empty() {
                return Ok(data);
            }
        }
        Err(StreamError::trap("max blocking attempts exceeded"))
    }

    /// Skips up to `nelem` bytes without blocking.
    fn skip(&mut self, nelem: usize) -> StreamResult<usize> {
        Ok(self.read(nelem)?.len())
    }

    /// Skips at least one byte, waiting for input.
    async fn blocking_skip(&mut self, nelem: usize) -> StreamResult<usize> {
        Ok(self.blocking_read(nelem).await?.len())
    }

    /// Called when the guest drops the stream: ends what the stream does
    /// in the background.
    async fn cancel(&mut self) {}
}

/// A stream a guest writes (`wasi:io/streams.output-stream`; Wasmtime's
/// `OutputStream`).
#[async_trait::async_trait]
pub trait OutputStream: Pollable {
    /// Writes `bytes`, which must not be longer than the last
    /// [`OutputStream::check_write`] allowed.
    fn write(&mut self, bytes: Bytes) -> StreamResult<()>;
    /// Starts flushing what was written.
    fn flush(&mut self) -> StreamResult<()>;
    /// How many bytes may be written now.
    fn check_write(&mut self) -> StreamResult<usize>;

    /// Writes all of `bytes` and flushes, waiting as needed. A stream that
    /// closes while flushing is no error.
    async fn blocking_write_and_flush(&mut self, mut bytes: Bytes) -> StreamResult<()> {
        loop {
            let permit = self.write_ready().await?;
            let chunk = bytes.split_to(bytes.len().min(permit));
            self.write(chunk)?;
            if bytes.is_empty() {
                break;
            }
        }
        match self.flush() {
            Ok(()) | Err(StreamError::Closed) => {}
            Err(e) => return Err(e),
        }
        match self.write_ready().await {
            Ok(_) | Err(StreamError::Closed) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Writes `nelem` zero bytes.
    fn write_zeroes(&mut self, nelem: usize) -> StreamResult<()> {
        self.write(Bytes::from(vec![0; nelem]))
    }

    /// Writes `nelem` zero bytes and flushes, waiting as needed.
    async fn blocking_write_zeroes_and_flush(&mut self, nelem: usize) -> StreamResult<()> {
        self.blocking_write_and_flush(Bytes::from(vec![0; nelem])).await
    }

    /// Waits until some bytes may be written and returns how many: awaits
    /// [`Pollable::ready`] and asks [`OutputStream::check_write`], up to 10
    /// times, then traps.
    async fn write_ready(&mut self) -> StreamResult<usize> {
        for _ in 0..=MAX_BLOCKING_ATTEMPTS {
            self.ready().await;
            let n = self.check_write()?;
            if n > 0 {
                return Ok(n);
            }
        }
        Err(StreamError::trap("max blocking attempts exceeded"))
    }

    /// Called when the guest drops the stream: ends what the stream does
    /// in the background.
    async fn cancel(&mut self) {}
}

/// The host value of `wasi:io/streams.input-stream`.
pub type DynInputStream = Box<dyn InputStream>;
/// The host value of `wasi:io/streams.output-stream`.
pub type DynOutputStream = Box<dyn OutputStream>;

#[async_trait::async_trait]
impl Pollable for DynInputStream {
    async fn ready(&mut self) {
        (**self).ready().await
    }
}

#[async_trait::async_trait]
impl Pollable for DynOutputStream {
    async fn ready(&mut self) {
        (**self).ready().await
    }
}

/// A pollable of a deadline of the monotonic clock (`subscribe-instant`,
/// `subscribe-duration`): a tokio timer.
pub(crate) enum Deadline {
    /// Ready now.
    Past,
    /// Ready when the timer fires.
    At(Pin<Box<tokio::time::Sleep>>),
    /// Never ready (beyond what a timer can express).
    Never,
}

impl Deadline {
    /// A deadline `after` from now.
    pub(crate) fn after(after: std::time::Duration) -> anyhow::Result<Deadline> {
        if after.is_zero() {
            return Ok(Deadline::Past);
        }
        match tokio::time::Instant::now().checked_add(after) {
            Some(t) => Ok(Deadline::At(crate::runtime::in_runtime(|| {
                Box::pin(tokio::time::sleep_until(t))
            })?)),
            None => Ok(Deadline::Never),
        }
    }
}

#[async_trait::async_trait]
impl Pollable for Deadline {
    async fn ready(&mut self) {
        match self {
            Deadline::Past => {}
            Deadline::At(sleep) => sleep.as_mut().await,
            Deadline::Never => std::future::pending().await,
        }
    }
}

//! Bodies of `wasi:http` 0.3 requests and responses: the guest's
//! `stream<u8>` and trailers future, or a host `http_body::Body`, and the
//! adapters between the two.
//!
//! A guest body becomes an [`HttpBody`] for hyper by piping its stream
//! into a consumer that queues the bytes (at most [`QUEUE_LIMIT`] waiting)
//! and reading its trailers future; both run on the store's event loop,
//! so the store must be in `run_concurrent` while the body is read. A host
//! body becomes a guest stream through a producer that polls its frames.

use super::bindings::http::types::ErrorCode;
use crate::{FieldMap, WasiHttpCtxView};
use bytes::Bytes;
use http::HeaderMap;
use http_body::{Body, Frame};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::BodyExt;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use weft::component::{
    Destination, FutureConsumer, FutureProducer, FutureReader, Resource, Source, StreamConsumer, StreamProducer,
    StreamReader, StreamResult, VecBuffer,
};
use weft::{AsContextMut, StoreContextMut};

/// The body of an `http::Request` or `http::Response` converted from or
/// to a `wasi:http` 0.3 one; its errors are `error-code`s.
pub type HttpBody = UnsyncBoxBody<Bytes, ErrorCode>;

/// The value of a trailers future: the trailers (a `fields` resource),
/// none, or the error that ended the body.
pub type TrailersResult = Result<Option<Resource<FieldMap>>, ErrorCode>;

/// The future of the result of transmitting a message, as the host
/// reports it to the guest.
pub(crate) type ResultFuture = Pin<Box<dyn Future<Output = Result<(), ErrorCode>> + Send>>;

/// The `content-length` a message's headers announce, if any, and the
/// error code of a body of another size.
pub(crate) type ExpectedLength = Option<(u64, fn(Option<u64>) -> ErrorCode)>;

/// How many bytes of a guest body may wait for hyper before the guest's
/// writes block.
pub const QUEUE_LIMIT: usize = 64 * 1024;

/// The getter of the `wasi:http` view of the store's data `T`.
pub(crate) type Getter<T> = fn(&mut T) -> WasiHttpCtxView<'_>;

fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// An empty body.
pub fn empty_body() -> HttpBody {
    http_body_util::Empty::<Bytes>::new()
        .map_err(|never| match never {})
        .boxed_unsync()
}

/// The body of a request or response.
pub(crate) enum BodyKind {
    /// Made by the guest (`request.new`, `response.new`).
    Guest {
        /// The contents, `None` for an empty body.
        contents: Option<StreamReader<u8>>,
        /// The trailers future.
        trailers: FutureReader<TrailersResult>,
        /// Where the result of the transmission goes, for the future
        /// `new` returned to the guest.
        result: tokio::sync::oneshot::Sender<ResultFuture>,
    },
    /// Made by the host from an `http_body::Body`.
    Host {
        /// The body.
        body: HttpBody,
        /// Where the guest's report of its handling of the body goes
        /// (the `res` future of `consume-body`).
        result: tokio::sync::oneshot::Sender<ResultFuture>,
    },
}

/// A future that resolves to what `rx` brings (a future of the result,
/// then its value), or `Ok` when the sender is dropped unused.
pub(crate) async fn result_receiver(rx: tokio::sync::oneshot::Receiver<ResultFuture>) -> Result<(), ErrorCode> {
    match rx.await {
        Ok(fut) => fut.await,
        Err(_) => Ok(()),
    }
}

/// What a guest body's stream and trailers consumers share with the
/// [`GuestBody`] hyper reads.
struct Queue {
    chunks: VecDeque<Bytes>,
    queued: usize,
    /// The guest's stream ended (its consumer was dropped).
    stream_done: bool,
    /// The trailers, once read (taken by the body).
    trailers: Option<Result<Option<HeaderMap>, ErrorCode>>,
    /// The trailers were taken (or the body ended).
    finished: bool,
    /// Hyper dropped the body.
    reader_gone: bool,
    body_waker: Option<Waker>,
    consumer_waker: Option<Waker>,
}

impl Queue {
    fn wake_body(&mut self) {
        if let Some(w) = self.body_waker.take() {
            w.wake();
        }
    }
    fn wake_consumer(&mut self) {
        if let Some(w) = self.consumer_waker.take() {
            w.wake();
        }
    }
}

/// Consumes a guest body's stream into the queue.
struct StreamToQueue {
    queue: Arc<Mutex<Queue>>,
    /// The largest chunk queued at once (the hooks'
    /// `p3_outgoing_body_chunk_size`, at least 1).
    chunk_size: usize,
}

impl Drop for StreamToQueue {
    fn drop(&mut self) {
        let mut q = lock(&self.queue);
        q.stream_done = true;
        q.wake_body();
    }
}

impl<D: 'static> StreamConsumer<D> for StreamToQueue {
    type Item = u8;

    fn poll_consume(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        store: StoreContextMut<D>,
        source: Source<'_, u8>,
        finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        let mut q = lock(&self.queue);
        if q.reader_gone {
            return Poll::Ready(Ok(StreamResult::Dropped));
        }
        if q.queued >= QUEUE_LIMIT {
            if finish {
                return Poll::Ready(Ok(StreamResult::Cancelled));
            }
            q.consumer_waker = Some(cx.waker().clone());
            return Poll::Pending;
        }
        let mut src = source.as_direct(store);
        let bytes = src.remaining();
        let n = bytes.len().min(QUEUE_LIMIT - q.queued).min(self.chunk_size);
        if n > 0 {
            q.chunks.push_back(Bytes::copy_from_slice(&bytes[..n]));
            q.queued += n;
            src.mark_read(n);
            q.wake_body();
        }
        Poll::Ready(Ok(StreamResult::Completed))
    }
}

/// Reads a guest body's trailers future into the queue.
struct TrailersToQueue<T: 'static> {
    queue: Arc<Mutex<Queue>>,
    getter: Getter<T>,
}

impl<T> Drop for TrailersToQueue<T> {
    fn drop(&mut self) {
        let mut q = lock(&self.queue);
        if q.trailers.is_none() && !q.finished {
            q.trailers = Some(Ok(None));
        }
        q.wake_body();
    }
}

impl<T> Unpin for TrailersToQueue<T> {}

impl<T: 'static> FutureConsumer<T> for TrailersToQueue<T> {
    type Item = TrailersResult;

    fn poll_consume(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        mut store: StoreContextMut<T>,
        mut source: Source<'_, TrailersResult>,
        _finish: bool,
    ) -> Poll<weft::Result<()>> {
        let mut value: Option<TrailersResult> = None;
        source.read(&mut store, &mut value)?;
        let trailers = match value {
            None => Ok(None),
            Some(Ok(None)) => Ok(None),
            Some(Ok(Some(res))) => {
                let fields = (self.getter)(store.data_mut()).table.delete(res)?;
                Ok(Some(HeaderMap::from(fields)))
            }
            Some(Err(code)) => Err(code),
        };
        let mut q = lock(&self.queue);
        q.trailers = Some(trailers);
        q.wake_body();
        Poll::Ready(Ok(()))
    }
}

/// The body hyper reads from a guest body.
struct GuestBody {
    queue: Arc<Mutex<Queue>>,
    /// The `content-length` the message's headers announce, and the
    /// error code of a body of another size (`HTTP-request-body-size` or
    /// `HTTP-response-body-size`).
    length: ExpectedLength,
    /// The bytes given to hyper so far.
    sent: u64,
    /// Reports the transmission: `Ok` once the whole body was read,
    /// `connection-terminated` when it is dropped before.
    report: Option<tokio::sync::oneshot::Sender<Result<(), ErrorCode>>>,
}

impl GuestBody {
    fn report(&mut self, result: Result<(), ErrorCode>) {
        if let Some(tx) = self.report.take() {
            let _ = tx.send(result);
        }
    }
}

impl Drop for GuestBody {
    fn drop(&mut self) {
        self.report(Err(ErrorCode::ConnectionTerminated));
        let mut q = lock(&self.queue);
        q.reader_gone = true;
        q.wake_consumer();
    }
}

impl Body for GuestBody {
    type Data = Bytes;
    type Error = ErrorCode;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, ErrorCode>>> {
        let mut q = lock(&self.queue);
        if q.finished {
            return Poll::Ready(None);
        }
        if let Some(chunk) = q.chunks.pop_front() {
            q.queued -= chunk.len();
            q.wake_consumer();
            drop(q);
            self.sent += chunk.len() as u64;
            if let Some((expected, error)) = self.length {
                if self.sent > expected {
                    // More than the headers announced: the body fails.
                    let code = error(Some(self.sent));
                    lock(&self.queue).finished = true;
                    self.report(Err(code.clone()));
                    return Poll::Ready(Some(Err(code)));
                }
            }
            return Poll::Ready(Some(Ok(Frame::data(chunk))));
        }
        if q.stream_done {
            if let Some((expected, error)) = self.length {
                if self.sent != expected {
                    // Less than the headers announced.
                    q.finished = true;
                    drop(q);
                    let code = error(Some(self.sent));
                    self.report(Err(code.clone()));
                    return Poll::Ready(Some(Err(code)));
                }
            }
            if let Some(trailers) = q.trailers.take() {
                q.finished = true;
                drop(q);
                return match trailers {
                    Ok(Some(map)) => {
                        self.report(Ok(()));
                        Poll::Ready(Some(Ok(Frame::trailers(map))))
                    }
                    Ok(None) => {
                        self.report(Ok(()));
                        Poll::Ready(None)
                    }
                    Err(code) => {
                        self.report(Err(code.clone()));
                        Poll::Ready(Some(Err(code)))
                    }
                };
            }
        }
        q.body_waker = Some(cx.waker().clone());
        Poll::Pending
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match self.length {
            Some((n, _)) => http_body::SizeHint::with_exact(n),
            None => http_body::SizeHint::default(),
        }
    }
}

/// Turns a guest body into a body for hyper: its stream and trailers are
/// read on the store's event loop, in chunks of at most the hooks'
/// `p3_outgoing_body_chunk_size` bytes. The returned future resolves when
/// hyper is done with the body (see [`GuestBody`]'s report). With
/// `length` (the `content-length` of the headers and the error code of a
/// body of another size), a body of another size fails with that code.
pub(crate) fn guest_to_http<T: 'static>(
    mut store: impl AsContextMut<Data = T>,
    getter: Getter<T>,
    contents: Option<StreamReader<u8>>,
    trailers: FutureReader<TrailersResult>,
    length: ExpectedLength,
) -> weft::Result<(HttpBody, ResultFuture)> {
    let queue = Arc::new(Mutex::new(Queue {
        chunks: VecDeque::new(),
        queued: 0,
        stream_done: contents.is_none(),
        trailers: None,
        finished: false,
        reader_gone: false,
        body_waker: None,
        consumer_waker: None,
    }));
    if let Some(contents) = contents {
        let chunk_size = getter(store.as_context_mut().data_mut())
            .hooks
            .p3_outgoing_body_chunk_size()
            .max(1);
        contents.pipe(
            &mut store,
            StreamToQueue {
                queue: queue.clone(),
                chunk_size,
            },
        )?;
    }
    trailers.pipe(
        &mut store,
        TrailersToQueue {
            queue: queue.clone(),
            getter,
        },
    )?;
    let (tx, rx) = tokio::sync::oneshot::channel();
    let body = GuestBody {
        queue,
        length,
        sent: 0,
        report: Some(tx),
    };
    let report: ResultFuture = Box::pin(async move { rx.await.unwrap_or(Err(ErrorCode::ConnectionTerminated)) });
    Ok((body.boxed_unsync(), report))
}

/// What a host body's stream producer and trailers producer share.
struct HostBodyState {
    body: Option<HttpBody>,
    /// Data taken from the body and not given to the guest yet.
    leftover: Bytes,
    /// How the body ended: its trailers or its error.
    end: Option<Result<Option<HeaderMap>, ErrorCode>>,
    /// The guest dropped the stream: the trailers producer reads the
    /// rest of the body itself.
    stream_gone: bool,
    trailers_waker: Option<Waker>,
}

impl HostBodyState {
    /// Polls the body for its next frame into `leftover` or `end`.
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let Some(body) = self.body.as_mut() else {
            return Poll::Ready(());
        };
        match Pin::new(body).poll_frame(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(None) => {
                self.finish(Ok(None));
                Poll::Ready(())
            }
            Poll::Ready(Some(Err(code))) => {
                self.finish(Err(code));
                Poll::Ready(())
            }
            Poll::Ready(Some(Ok(frame))) => {
                match frame.into_data() {
                    Ok(data) => self.leftover = data,
                    Err(frame) => {
                        if let Ok(trailers) = frame.into_trailers() {
                            self.finish(Ok(Some(trailers)));
                        }
                    }
                }
                Poll::Ready(())
            }
        }
    }

    fn finish(&mut self, end: Result<Option<HeaderMap>, ErrorCode>) {
        self.body = None;
        if self.end.is_none() {
            self.end = Some(end);
        }
        if let Some(w) = self.trailers_waker.take() {
            w.wake();
        }
    }
}

/// Produces a host body's bytes for a guest reading its stream.
struct HostBodyProducer {
    state: Arc<Mutex<HostBodyState>>,
}

impl Drop for HostBodyProducer {
    fn drop(&mut self) {
        let mut s = lock(&self.state);
        s.stream_gone = true;
        if let Some(w) = s.trailers_waker.take() {
            w.wake();
        }
    }
}

impl<D: 'static> StreamProducer<D> for HostBodyProducer {
    type Item = u8;
    type Buffer = VecBuffer<u8>;

    fn poll_produce<'a>(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut store: StoreContextMut<'a, D>,
        destination: Destination<'a, u8, VecBuffer<u8>>,
        finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        let room = destination.remaining(&mut store).unwrap_or(QUEUE_LIMIT);
        if room == 0 {
            return Poll::Ready(Ok(StreamResult::Completed));
        }
        let mut s = lock(&self.state);
        while s.leftover.is_empty() {
            if s.body.is_none() {
                return Poll::Ready(Ok(StreamResult::Dropped));
            }
            if s.poll_next(cx).is_pending() {
                if finish {
                    return Poll::Ready(Ok(StreamResult::Cancelled));
                }
                return Poll::Pending;
            }
        }
        let n = room.min(s.leftover.len());
        let chunk = s.leftover.split_to(n);
        drop(s);
        let mut dst = destination.as_direct(store, n);
        let out = dst.remaining();
        let m = out.len().min(chunk.len());
        out[..m].copy_from_slice(&chunk[..m]);
        dst.mark_written(m);
        if m < chunk.len() {
            // The reader took less than it had room for: keep the rest.
            let mut s = lock(&self.state);
            let rest = chunk.slice(m..);
            let old = std::mem::take(&mut s.leftover);
            s.leftover = if old.is_empty() {
                rest
            } else {
                [rest, old].concat().into()
            };
        }
        Poll::Ready(Ok(StreamResult::Completed))
    }
}

/// Produces a host body's trailers for the guest, once the body ended.
struct HostTrailersProducer<T: 'static> {
    state: Arc<Mutex<HostBodyState>>,
    getter: Getter<T>,
}

impl<T: 'static> FutureProducer<T> for HostTrailersProducer<T> {
    type Item = TrailersResult;

    fn poll_produce(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut store: StoreContextMut<T>,
        finish: bool,
    ) -> Poll<weft::Result<Option<TrailersResult>>> {
        let mut s = lock(&self.state);
        loop {
            if let Some(end) = s.end.take() {
                drop(s);
                return Poll::Ready(Ok(Some(match end {
                    Ok(None) => Ok(None),
                    Ok(Some(map)) => {
                        let view = (self.getter)(store.data_mut());
                        let fields = FieldMap::new_immutable(view.hooks, map);
                        Ok(Some(view.table.push(fields)?))
                    }
                    Err(code) => Err(code),
                })));
            }
            // Once the guest dropped the stream, the rest of the body is
            // read (and dropped) here to reach its trailers.
            if s.stream_gone && s.body.is_some() {
                s.leftover = Bytes::new();
                if s.poll_next(cx).is_ready() {
                    continue;
                }
            }
            if finish {
                return Poll::Ready(Ok(None));
            }
            s.trailers_waker = Some(cx.waker().clone());
            return Poll::Pending;
        }
    }
}

/// Hands a host body to the guest: its stream and its trailers future.
pub(crate) fn host_to_guest<T: 'static>(
    mut store: impl AsContextMut<Data = T>,
    getter: Getter<T>,
    body: HttpBody,
) -> weft::Result<(StreamReader<u8>, FutureReader<TrailersResult>)> {
    let state = Arc::new(Mutex::new(HostBodyState {
        body: Some(body),
        leftover: Bytes::new(),
        end: None,
        stream_gone: false,
        trailers_waker: None,
    }));
    let stream = StreamReader::new(&mut store, HostBodyProducer { state: state.clone() })?;
    let trailers = FutureReader::new(&mut store, HostTrailersProducer { state, getter })?;
    Ok((stream, trailers))
}

/// Reads a `future<result<_, error-code>>` of the guest (the `res` of
/// `consume-body`) into a oneshot channel.
struct ResultToChannel {
    tx: Option<tokio::sync::oneshot::Sender<Result<(), ErrorCode>>>,
}

impl Unpin for ResultToChannel {}

impl<D: 'static> FutureConsumer<D> for ResultToChannel {
    type Item = Result<(), ErrorCode>;

    fn poll_consume(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        mut store: StoreContextMut<D>,
        mut source: Source<'_, Result<(), ErrorCode>>,
        _finish: bool,
    ) -> Poll<weft::Result<()>> {
        let mut value = None;
        source.read(&mut store, &mut value)?;
        if let (Some(tx), Some(v)) = (self.tx.take(), value) {
            let _ = tx.send(v);
        }
        Poll::Ready(Ok(()))
    }
}

/// The future of the value the guest writes to `res` (`Ok` if it drops
/// `res` without writing).
pub(crate) fn guest_result<T: 'static>(
    mut store: impl AsContextMut<Data = T>,
    res: FutureReader<Result<(), ErrorCode>>,
) -> weft::Result<ResultFuture> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    res.pipe(&mut store, ResultToChannel { tx: Some(tx) })?;
    Ok(Box::pin(async move { rx.await.unwrap_or(Ok(())) }))
}

/// Converts any body into an [`HttpBody`], its errors into error codes
/// by `error`.
pub(crate) fn to_http_body<B>(body: B, error: fn(B::Error) -> ErrorCode) -> HttpBody
where
    B: Body<Data = Bytes> + Send + 'static,
{
    body.map_err(error).boxed_unsync()
}

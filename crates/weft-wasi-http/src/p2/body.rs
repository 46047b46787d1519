//! Bodies: an incoming body is read by the guest through a `wasi:io`
//! input stream, then its trailers through `future-trailers`; an outgoing
//! body is written through an output stream and handed to hyper as a
//! [`HyperOutgoingBody`].
//!
//! The streams and pollables are `weft_wasi::p2`'s async traits: a
//! guest waiting for a body's bytes, its trailers or room to write awaits
//! hyper's body (or the receiving side's notification), woken by its
//! waker; no tokio context is needed here.

use crate::Error;
use bytes::Bytes;
use http::HeaderMap;
use http_body::{Body, Frame};
use http_body_util::combinators::UnsyncBoxBody;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use tokio::sync::mpsc;
use weft_wasi::p2::{InputStream, OutputStream, Pollable, StreamError, StreamResult};

/// The body of an incoming request or response.
pub type HyperIncomingBody = UnsyncBoxBody<Bytes, Error>;
/// The body of an outgoing request or response.
pub type HyperOutgoingBody = UnsyncBoxBody<Bytes, Error>;

/// Polls `fut` once, with a waker that does nothing (the caller asks
/// again).
pub(crate) fn poll_once<F: Future + Unpin>(fut: &mut F) -> Poll<F::Output> {
    Pin::new(fut).poll(&mut Context::from_waker(Waker::noop()))
}

/// The state of an incoming body, shared by its stream and its trailers.
struct IncomingState {
    body: HyperIncomingBody,
    /// Data received and not read yet.
    leftover: Bytes,
    /// How the body ended, once it has: its trailers or its error.
    end: Option<Result<Option<HeaderMap>, Error>>,
    /// Whether the stream has reported the body's error.
    error_reported: bool,
}

impl IncomingState {
    /// Takes the next frame if one is there without waiting.
    fn pull(&mut self) {
        let _ = self.poll_pull(&mut Context::from_waker(Waker::noop()));
    }

    /// Takes frames until there are bytes to read or the body has ended:
    /// ready then; pending (with `cx`'s waker registered) while hyper has
    /// nothing yet.
    fn poll_pull(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        while self.leftover.is_empty() && self.end.is_none() {
            let next = match Pin::new(&mut self.body).poll_frame(cx) {
                Poll::Ready(v) => v,
                Poll::Pending => return Poll::Pending,
            };
            match next {
                None => self.end = Some(Ok(None)),
                Some(Err(e)) => self.end = Some(Err(e)),
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) => self.leftover = data,
                    Err(frame) => {
                        if let Ok(trailers) = frame.into_trailers() {
                            self.end = Some(Ok(Some(trailers)));
                        }
                    }
                },
            }
        }
        Poll::Ready(())
    }
}

fn lock(state: &Mutex<IncomingState>) -> MutexGuard<'_, IncomingState> {
    // A panic while the lock was held left plain data behind: keep going.
    state.lock().unwrap_or_else(|e| e.into_inner())
}

/// The host value of `wasi:http/types.incoming-body`.
pub struct HostIncomingBody {
    state: Arc<Mutex<IncomingState>>,
    stream_taken: bool,
}

impl HostIncomingBody {
    /// An incoming body reading `body`.
    pub fn new(body: HyperIncomingBody) -> HostIncomingBody {
        HostIncomingBody {
            state: Arc::new(Mutex::new(IncomingState {
                body,
                leftover: Bytes::new(),
                end: None,
                error_reported: false,
            })),
            stream_taken: false,
        }
    }

    /// The stream of the body's bytes, the first time only.
    pub fn take_stream(&mut self) -> Option<HostIncomingBodyStream> {
        if self.stream_taken {
            return None;
        }
        self.stream_taken = true;
        Some(HostIncomingBodyStream {
            state: self.state.clone(),
        })
    }

    /// The body's trailers, once the rest of it has been read (and
    /// dropped).
    pub fn into_future_trailers(self) -> HostFutureTrailers {
        HostFutureTrailers {
            state: Some(self.state),
        }
    }
}

/// The input stream of an incoming body.
pub struct HostIncomingBodyStream {
    state: Arc<Mutex<IncomingState>>,
}

impl HostIncomingBodyStream {
    fn read_inner(&mut self, size: usize) -> StreamResult<Bytes> {
        let mut s = lock(&self.state);
        s.pull();
        if !s.leftover.is_empty() {
            let n = size.min(s.leftover.len());
            return Ok(s.leftover.split_to(n));
        }
        match &s.end {
            None => Ok(Bytes::new()),
            Some(Ok(_)) => Err(StreamError::Closed),
            Some(Err(e)) if !s.error_reported => {
                // The stream reports the error itself; the trailers a copy.
                let e = e.clone_lossy();
                s.error_reported = true;
                Err(StreamError::LastOperationFailed(anyhow::Error::new(e)))
            }
            Some(Err(_)) => Err(StreamError::Closed),
        }
    }
}

#[weft_wasi::async_trait]
impl Pollable for HostIncomingBodyStream {
    async fn ready(&mut self) {
        std::future::poll_fn(|cx| lock(&self.state).poll_pull(cx)).await
    }
}

impl InputStream for HostIncomingBodyStream {
    fn read(&mut self, size: usize) -> StreamResult<Bytes> {
        self.read_inner(size)
    }
}

/// The host value of `wasi:http/types.future-trailers`: the trailers of
/// an incoming body, ready once the body has ended.
pub struct HostFutureTrailers {
    /// `None` once the trailers were taken.
    state: Option<Arc<Mutex<IncomingState>>>,
}

impl HostFutureTrailers {
    /// Reads on to the body's end, dropping the bytes the guest did not
    /// read: ready when it has come; pending (with `cx`'s waker
    /// registered) while it has not.
    fn poll_end(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let Some(state) = &self.state else {
            return Poll::Ready(());
        };
        let mut s = lock(state);
        loop {
            if s.poll_pull(cx).is_pending() {
                return Poll::Pending;
            }
            if s.end.is_some() {
                return Poll::Ready(());
            }
            s.leftover = Bytes::new();
        }
    }

    /// Reads on to the body's end without waiting; whether it has come.
    fn ready(&mut self) -> bool {
        self.poll_end(&mut Context::from_waker(Waker::noop())).is_ready()
    }

    /// The trailers (or the body's error) once the body has ended; `None`
    /// while it has not; `Some(Err(()))` when they were taken already.
    pub fn get(&mut self) -> Option<Result<Result<Option<HeaderMap>, Error>, ()>> {
        if self.state.is_none() {
            return Some(Err(()));
        }
        if !self.ready() {
            return None;
        }
        let state = self.state.take()?;
        let end = lock(&state).end.take();
        Some(Ok(end.unwrap_or(Ok(None))))
    }
}

#[weft_wasi::async_trait]
impl Pollable for HostFutureTrailers {
    async fn ready(&mut self) {
        std::future::poll_fn(|cx| self.poll_end(cx)).await
    }
}

/// Whether an outgoing body belongs to a request or a response (for the
/// error of a body of the wrong size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamContext {
    /// The body of an outgoing request.
    Request,
    /// The body of an outgoing response.
    Response,
}

impl StreamContext {
    /// The error of a body of `size` bytes where `content-length` said
    /// otherwise.
    pub fn as_body_size_error(&self, size: u64) -> Error {
        match self {
            StreamContext::Request => Error::HttpRequestBodySize(Some(size)),
            StreamContext::Response => Error::HttpResponseBodySize(Some(size)),
        }
    }
}

/// What travels from the guest's side of an outgoing body to hyper's.
enum OutFrame {
    Data(Bytes),
    End(Option<HeaderMap>),
    Abort(Error),
}

/// The accounting both sides of an outgoing body share.
struct OutShared {
    /// Writes not taken by hyper yet.
    buffered: AtomicUsize,
    /// The most writes buffered before the stream reports no room.
    buffer_chunks: usize,
    /// The most bytes one write carries.
    chunk_size: usize,
    /// Bytes written in all.
    written: AtomicU64,
    /// The size `content-length` announced.
    size: Option<u64>,
    context: StreamContext,
    /// Wakes writers waiting for room when hyper takes bytes or goes.
    room: tokio::sync::Notify,
}

/// The host value of `wasi:http/types.outgoing-body`.
pub struct HostOutgoingBody {
    tx: Option<mpsc::UnboundedSender<OutFrame>>,
    stream_taken: bool,
    shared: Arc<OutShared>,
}

impl HostOutgoingBody {
    /// An outgoing body of `size` bytes if known, buffering at most
    /// `buffer_chunks` writes of at most `chunk_size` bytes the other side
    /// has not taken yet (values below 1 count as 1), and the
    /// [`HyperOutgoingBody`] that hyper reads.
    pub fn new(
        context: StreamContext,
        size: Option<u64>,
        buffer_chunks: usize,
        chunk_size: usize,
    ) -> (HostOutgoingBody, HyperOutgoingBody) {
        let (tx, rx) = mpsc::unbounded_channel();
        let shared = Arc::new(OutShared {
            buffered: AtomicUsize::new(0),
            buffer_chunks: buffer_chunks.max(1),
            chunk_size: chunk_size.max(1),
            written: AtomicU64::new(0),
            size,
            context,
            room: tokio::sync::Notify::new(),
        });
        let body = OutgoingReceiver {
            rx,
            shared: shared.clone(),
            done: false,
        };
        (
            HostOutgoingBody {
                tx: Some(tx),
                stream_taken: false,
                shared,
            },
            UnsyncBoxBody::new(body),
        )
    }

    /// The output stream the guest writes the body to, the first time
    /// only.
    pub fn take_output_stream(&mut self) -> Option<Box<dyn OutputStream>> {
        if self.stream_taken {
            return None;
        }
        let tx = self.tx.clone()?;
        self.stream_taken = true;
        Some(Box::new(HostOutgoingBodyStream {
            tx,
            shared: self.shared.clone(),
        }))
    }

    /// Ends the body with `trailers`; an error (and the body aborted) if
    /// fewer bytes were written than `content-length` announced.
    pub fn finish(mut self, trailers: Option<HeaderMap>) -> Result<(), Error> {
        let Some(tx) = self.tx.take() else {
            return Ok(());
        };
        let written = self.shared.written.load(Ordering::SeqCst);
        if let Some(size) = self.shared.size {
            if written != size {
                let err = self.shared.context.as_body_size_error(written);
                let _ = tx.send(OutFrame::Abort(err.clone_lossy()));
                return Err(err);
            }
        }
        // The other side may have gone (the client hung up): nothing to
        // tell it then.
        let _ = tx.send(OutFrame::End(trailers));
        Ok(())
    }

    /// Ends the body with an error: the other side sees it broken off.
    pub fn abort(mut self) {
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(OutFrame::Abort(Error::InternalError(Some(
                "the outgoing body was dropped before `outgoing-body.finish`".into(),
            ))));
        }
    }
}

impl Drop for HostOutgoingBody {
    fn drop(&mut self) {
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(OutFrame::Abort(Error::InternalError(Some(
                "the outgoing body was dropped before `outgoing-body.finish`".into(),
            ))));
        }
    }
}

/// The output stream of an outgoing body.
struct HostOutgoingBodyStream {
    tx: mpsc::UnboundedSender<OutFrame>,
    shared: Arc<OutShared>,
}

impl HostOutgoingBodyStream {
    /// How many bytes the next write may carry: a chunk while at most
    /// `buffer_chunks` writes wait for hyper (the buffer, as Wasmtime's
    /// channel of that many chunks, and the write being handed over),
    /// else none.
    fn room(&self) -> usize {
        if self.shared.buffered.load(Ordering::SeqCst) <= self.shared.buffer_chunks {
            self.shared.chunk_size
        } else {
            0
        }
    }
}

#[weft_wasi::async_trait]
impl Pollable for HostOutgoingBodyStream {
    async fn ready(&mut self) {
        loop {
            let notified = self.shared.room.notified();
            let mut notified = std::pin::pin!(notified);
            // Registered before the check: a notification after it is not
            // lost.
            notified.as_mut().enable();
            if self.tx.is_closed() || self.room() > 0 {
                return;
            }
            notified.await;
        }
    }
}

impl OutputStream for HostOutgoingBodyStream {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        if self.tx.is_closed() {
            return Err(StreamError::Closed);
        }
        let len = bytes.len();
        if len > self.room() {
            return Err(StreamError::trap("write of more bytes than `check-write` allowed"));
        }
        let written = self.shared.written.fetch_add(len as u64, Ordering::SeqCst) + len as u64;
        if let Some(size) = self.shared.size {
            if written > size {
                let err = self.shared.context.as_body_size_error(written);
                let _ = self.tx.send(OutFrame::Abort(err.clone_lossy()));
                return Err(StreamError::LastOperationFailed(anyhow::Error::new(err)));
            }
        }
        if len == 0 {
            return Ok(());
        }
        self.shared.buffered.fetch_add(1, Ordering::SeqCst);
        self.tx.send(OutFrame::Data(bytes)).map_err(|_| StreamError::Closed)
    }

    fn flush(&mut self) -> StreamResult<()> {
        // Every write is handed over at once.
        if self.tx.is_closed() {
            return Err(StreamError::Closed);
        }
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        if self.tx.is_closed() {
            return Err(StreamError::Closed);
        }
        Ok(self.room())
    }
}

/// hyper's side of an outgoing body.
struct OutgoingReceiver {
    rx: mpsc::UnboundedReceiver<OutFrame>,
    shared: Arc<OutShared>,
    done: bool,
}

impl Drop for OutgoingReceiver {
    fn drop(&mut self) {
        // The writers see the stream closed.
        self.rx.close();
        self.shared.room.notify_waiters();
    }
}

impl Body for OutgoingReceiver {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        if self.done {
            return Poll::Ready(None);
        }
        let next = match self.rx.poll_recv(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(next) => next,
        };
        match next {
            Some(OutFrame::Data(bytes)) => {
                self.shared.buffered.fetch_sub(1, Ordering::SeqCst);
                self.shared.room.notify_waiters();
                Poll::Ready(Some(Ok(Frame::data(bytes))))
            }
            Some(OutFrame::End(trailers)) => {
                self.done = true;
                Poll::Ready(trailers.map(|t| Ok(Frame::trailers(t))))
            }
            Some(OutFrame::Abort(err)) => {
                self.done = true;
                Poll::Ready(Some(Err(err)))
            }
            None => {
                self.done = true;
                Poll::Ready(Some(Err(Error::InternalError(Some(
                    "the outgoing body was dropped before `outgoing-body.finish`".into(),
                )))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done
    }
}

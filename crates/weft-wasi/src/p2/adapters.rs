//! WASI 0.2 streams over tokio's `AsyncRead`/`AsyncWrite`
//! ([`AsyncReadStream`], [`AsyncWriteStream`], as Wasmtime's) and over
//! std's `Read`/`Write` for what never waits (files, the host's stdout).

use super::io::{InputStream, OutputStream, Pollable, StreamError, StreamResult};
use bytes::{Bytes, BytesMut};
use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// How many bytes an [`AsyncReadStream`] reads ahead at most.
const READ_CHUNK: usize = 64 * 1024;

/// An input stream over a tokio `AsyncRead` (Wasmtime's
/// `AsyncReadStream`): the reader is polled, inside this crate's runtime,
/// when the guest reads or waits; a waiting guest is woken by the
/// reader's waker.
pub struct AsyncReadStream {
    reader: Pin<Box<dyn AsyncRead + Send>>,
    /// Bytes read ahead by a wait, or how the reader ended.
    buffered: Option<io::Result<Bytes>>,
    closed: bool,
}

impl std::fmt::Debug for AsyncReadStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncReadStream").finish_non_exhaustive()
    }
}

impl AsyncReadStream {
    /// A stream reading `reader`.
    pub fn new<T: AsyncRead + Send + 'static>(reader: T) -> Self {
        AsyncReadStream {
            reader: Box::pin(reader),
            buffered: None,
            closed: false,
        }
    }

    /// Reads into `buffered` if it is empty: ready once it holds something.
    fn poll_fill(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if self.buffered.is_some() || self.closed {
            return Poll::Ready(());
        }
        let mut chunk = BytesMut::zeroed(READ_CHUNK);
        let mut buf = ReadBuf::new(&mut chunk);
        let r = crate::runtime::with_ambient_tokio_runtime(|| self.reader.as_mut().poll_read(cx, &mut buf));
        match r {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Ok(())) => {
                let n = buf.filled().len();
                chunk.truncate(n);
                self.buffered = Some(Ok(chunk.freeze()));
                Poll::Ready(())
            }
            Poll::Ready(Err(e)) => {
                self.buffered = Some(Err(e));
                Poll::Ready(())
            }
        }
    }
}

#[async_trait::async_trait]
impl Pollable for AsyncReadStream {
    async fn ready(&mut self) {
        poll_fn(|cx| self.poll_fill(cx)).await
    }
}

impl InputStream for AsyncReadStream {
    fn read(&mut self, size: usize) -> StreamResult<Bytes> {
        if self.closed {
            return Err(StreamError::Closed);
        }
        let _ = self.poll_fill(&mut Context::from_waker(Waker::noop()));
        match self.buffered.take() {
            None => Ok(Bytes::new()),
            Some(Err(e)) => {
                self.closed = true;
                Err(StreamError::LastOperationFailed(e.into()))
            }
            Some(Ok(b)) if b.is_empty() => {
                self.closed = true;
                Err(StreamError::Closed)
            }
            Some(Ok(mut b)) => {
                let got = b.split_to(size.min(b.len()));
                if !b.is_empty() {
                    self.buffered = Some(Ok(b));
                }
                Ok(got)
            }
        }
    }
}

/// An output stream over a tokio `AsyncWrite` (Wasmtime's
/// `AsyncWriteStream`): accepts up to `write_budget` bytes at a time and
/// writes them as the writer takes them, when the guest writes, flushes
/// or waits; a waiting guest is woken by the writer's waker.
pub struct AsyncWriteStream {
    writer: Pin<Box<dyn AsyncWrite + Send>>,
    budget: usize,
    pending: Bytes,
    flushing: bool,
    error: Option<io::Error>,
    closed: bool,
}

impl std::fmt::Debug for AsyncWriteStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncWriteStream")
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}

impl AsyncWriteStream {
    /// A stream writing to `writer`, accepting `write_budget` bytes at a
    /// time.
    pub fn new<T: AsyncWrite + Send + 'static>(write_budget: usize, writer: T) -> Self {
        AsyncWriteStream {
            writer: Box::pin(writer),
            budget: write_budget.max(1),
            pending: Bytes::new(),
            flushing: false,
            error: None,
            closed: false,
        }
    }

    /// Writes what is pending and flushes if asked: ready when done (or
    /// failed).
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        crate::runtime::with_ambient_tokio_runtime(|| {
            while !self.pending.is_empty() && self.error.is_none() {
                match self.writer.as_mut().poll_write(cx, &self.pending) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Ok(0)) => self.error = Some(io::ErrorKind::WriteZero.into()),
                    Poll::Ready(Ok(n)) => {
                        let _ = self.pending.split_to(n.min(self.pending.len()));
                    }
                    Poll::Ready(Err(e)) => self.error = Some(e),
                }
            }
            if self.flushing && self.error.is_none() {
                match self.writer.as_mut().poll_flush(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Ok(())) => self.flushing = false,
                    Poll::Ready(Err(e)) => self.error = Some(e),
                }
            }
            Poll::Ready(())
        })
    }

    fn check(&mut self) -> StreamResult<()> {
        if self.closed {
            return Err(StreamError::Closed);
        }
        match self.error.take() {
            Some(e) => {
                self.closed = true;
                Err(StreamError::LastOperationFailed(e.into()))
            }
            None => Ok(()),
        }
    }

    fn drain_now(&mut self) {
        let _ = self.poll_drain(&mut Context::from_waker(Waker::noop()));
    }
}

#[async_trait::async_trait]
impl Pollable for AsyncWriteStream {
    async fn ready(&mut self) {
        poll_fn(|cx| self.poll_drain(cx)).await
    }
}

#[async_trait::async_trait]
impl OutputStream for AsyncWriteStream {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.check()?;
        if !self.pending.is_empty() || bytes.len() > self.budget {
            return Err(StreamError::trap("write exceeded budget"));
        }
        self.pending = bytes;
        self.drain_now();
        self.check()
    }
    fn flush(&mut self) -> StreamResult<()> {
        self.check()?;
        self.flushing = true;
        self.drain_now();
        self.check()
    }
    fn check_write(&mut self) -> StreamResult<usize> {
        self.drain_now();
        self.check()?;
        Ok(if self.pending.is_empty() && !self.flushing {
            self.budget
        } else {
            0
        })
    }
    /// What was written reaches the writer before the stream goes.
    async fn cancel(&mut self) {
        self.flushing = true;
        poll_fn(|cx| self.poll_drain(cx)).await
    }
}

/// An input stream over a reader that never waits (a file): always
/// ready.
pub(crate) struct ReadStream<R>(R);

impl<R> ReadStream<R> {
    pub(crate) fn new(reader: R) -> Self {
        ReadStream(reader)
    }
}

#[async_trait::async_trait]
impl<R: io::Read + Send + 'static> Pollable for ReadStream<R> {
    async fn ready(&mut self) {}
}

impl<R: io::Read + Send + 'static> InputStream for ReadStream<R> {
    fn read(&mut self, size: usize) -> StreamResult<Bytes> {
        if size == 0 {
            return Ok(Bytes::new());
        }
        let mut buf = vec![0; size];
        let n = loop {
            match self.0.read(&mut buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                r => break r.map_err(|e| StreamError::LastOperationFailed(e.into()))?,
            }
        };
        if n == 0 {
            return Err(StreamError::Closed);
        }
        buf.truncate(n);
        Ok(buf.into())
    }
}

/// How many bytes a [`WriteStream`] accepts in one write.
const WRITE_BUDGET: usize = 1 << 20;

/// An output stream over a writer that never waits (a file, the host's
/// standard output): always ready, every write goes through at once.
pub(crate) struct WriteStream<W>(W);

impl<W> WriteStream<W> {
    pub(crate) fn new(writer: W) -> Self {
        WriteStream(writer)
    }
}

#[async_trait::async_trait]
impl<W: io::Write + Send + 'static> Pollable for WriteStream<W> {
    async fn ready(&mut self) {}
}

impl<W: io::Write + Send + 'static> OutputStream for WriteStream<W> {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        if bytes.len() > WRITE_BUDGET {
            return Err(StreamError::trap("write of more bytes than `check-write` allowed"));
        }
        self.0
            .write_all(&bytes)
            .map_err(|e| StreamError::LastOperationFailed(e.into()))
    }
    fn flush(&mut self) -> StreamResult<()> {
        self.0.flush().map_err(|e| StreamError::LastOperationFailed(e.into()))
    }
    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(WRITE_BUDGET)
    }
}

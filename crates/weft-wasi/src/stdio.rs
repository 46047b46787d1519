//! Standard input, output and error of a guest: the host's own, in-memory
//! pipes that tests can fill and read back, or files — shaped as Wasmtime
//! 48's `wasmtime_wasi::cli` traits ([`StdinStream`], [`StdoutStream`],
//! [`IsTerminal`]), so an embedder's own stream written for Wasmtime
//! compiles against Weft.
//!
//! A stream gives a tokio `AsyncRead`/`AsyncWrite` (what preview1 and
//! WASI 0.3 read and write, each call blocking on it) and, with the `p2`
//! feature, a WASI 0.2 stream (`p2_stream` of [`StdinStream`]); the built-in
//! streams give their own 0.2 streams, the defaults adapt the async ones.

use std::io::{self, Read, Write};
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::task::{Context, Poll, Waker};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};

/// Whether a stream is a terminal (Wasmtime's `IsTerminal`): the guest
/// then sees a character device (preview1) or a terminal (`wasi:cli`).
pub trait IsTerminal {
    /// Whether it is a terminal.
    fn is_terminal(&self) -> bool;
}

/// Where a guest's standard input comes from (Wasmtime's `StdinStream`).
pub trait StdinStream: IsTerminal + Send {
    /// A reader of the input. Readers of one stream share its position.
    fn async_stream(&self) -> Box<dyn AsyncRead + Send + Sync>;

    /// The input as a WASI 0.2 stream; by default an
    /// [`crate::p2::pipe::AsyncReadStream`] over [`StdinStream::async_stream`].
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::InputStream> {
        Box::new(crate::p2::adapters::AsyncReadStream::new(Box::into_pin(
            self.async_stream(),
        )))
    }

    /// Whether this is the host's descriptor 0, which preview1 reads and
    /// polls directly.
    #[doc(hidden)]
    fn host_stdin(&self) -> bool {
        false
    }
}

/// Where a guest's standard output or error goes (Wasmtime's
/// `StdoutStream`).
pub trait StdoutStream: IsTerminal + Send {
    /// A writer of the output.
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync>;

    /// The output as a WASI 0.2 stream; by default an
    /// [`crate::p2::pipe::AsyncWriteStream`] of 8 KiB over
    /// [`StdoutStream::async_stream`].
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::OutputStream> {
        Box::new(crate::p2::adapters::AsyncWriteStream::new(
            8192,
            Box::into_pin(self.async_stream()),
        ))
    }
}

impl<T: IsTerminal + ?Sized> IsTerminal for Box<T> {
    fn is_terminal(&self) -> bool {
        (**self).is_terminal()
    }
}

impl<T: IsTerminal + ?Sized> IsTerminal for Arc<T> {
    fn is_terminal(&self) -> bool {
        (**self).is_terminal()
    }
}

impl<T: StdinStream + ?Sized> StdinStream for Box<T> {
    fn async_stream(&self) -> Box<dyn AsyncRead + Send + Sync> {
        (**self).async_stream()
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::InputStream> {
        (**self).p2_stream()
    }
    fn host_stdin(&self) -> bool {
        (**self).host_stdin()
    }
}

impl<T: StdoutStream + ?Sized> StdoutStream for Box<T> {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        (**self).async_stream()
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::OutputStream> {
        (**self).p2_stream()
    }
}

impl<T: StdinStream + Sync + ?Sized> StdinStream for Arc<T> {
    fn async_stream(&self) -> Box<dyn AsyncRead + Send + Sync> {
        (**self).async_stream()
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::InputStream> {
        (**self).p2_stream()
    }
    fn host_stdin(&self) -> bool {
        (**self).host_stdin()
    }
}

impl<T: StdoutStream + Sync + ?Sized> StdoutStream for Arc<T> {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        (**self).async_stream()
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::OutputStream> {
        (**self).p2_stream()
    }
}

/// Reads up to `buf.len()` bytes of `input` (0: end of input), blocking
/// the thread until some come: what preview1 and WASI 0.3 do. The host's
/// descriptor 0 is read directly, past any buffer, so that what
/// `poll_oneoff` sees ready is exactly what the read returns.
pub(crate) fn read_blocking(input: &dyn StdinStream, buf: &mut [u8]) -> io::Result<usize> {
    if input.host_stdin() {
        return read_fd0(buf);
    }
    crate::runtime::in_tokio(async {
        let mut r = Box::into_pin(input.async_stream());
        r.read(buf).await
    })
}

/// Writes some of `buf` to `output` (how much: a short write is no error)
/// and flushes it, blocking the thread as long as it takes: what preview1
/// and WASI 0.3 do.
pub(crate) fn write_blocking(output: &dyn StdoutStream, buf: &[u8]) -> io::Result<usize> {
    crate::runtime::in_tokio(async {
        let mut w = Box::into_pin(output.async_stream());
        let n = w.write(buf).await?;
        w.flush().await?;
        Ok(n)
    })
}

/// Reads the host's descriptor 0 directly.
fn read_fd0(buf: &mut [u8]) -> io::Result<usize> {
    use std::os::fd::AsFd;
    let stdin = io::stdin();
    loop {
        match rustix::io::read(stdin.as_fd(), &mut *buf) {
            Ok(n) => return Ok(n),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// An `AsyncWrite` whose writes complete at once, through `write`.
struct SyncWriter<W>(W);

impl<W: Write + Unpin> AsyncWrite for SyncWriter<W> {
    fn poll_write(mut self: Pin<&mut Self>, _cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Poll::Ready(self.0.write(buf))
    }
    fn poll_flush(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.0.flush())
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush(cx)
    }
}

/// An `AsyncRead` whose reads complete at once, through `read`.
struct SyncReader<R>(R);

impl<R: Read + Unpin> AsyncRead for SyncReader<R> {
    fn poll_read(mut self: Pin<&mut Self>, _cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let n = match self.0.read(buf.initialize_unfilled()) {
            Ok(n) => n,
            Err(e) => return Poll::Ready(Err(e)),
        };
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

/// The host process's standard input (see [`stdin`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Stdin;
/// The host process's standard output (see [`stdout`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Stdout;
/// The host process's standard error (see [`stderr`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Stderr;

/// The host process's standard input, for [`crate::WasiCtxBuilder::stdin`].
pub fn stdin() -> Stdin {
    Stdin
}
/// The host process's standard output, for [`crate::WasiCtxBuilder::stdout`].
pub fn stdout() -> Stdout {
    Stdout
}
/// The host process's standard error, for [`crate::WasiCtxBuilder::stderr`].
pub fn stderr() -> Stderr {
    Stderr
}

/// The host's standard input, read by a worker thread when a guest waits
/// for it (as Wasmtime's): a waiting guest is woken by the worker instead
/// of blocking or re-checking.
pub(crate) struct HostStdin {
    state: Mutex<HostStdinState>,
    /// Wakes the worker when a read is wanted.
    wanted: Condvar,
}

#[derive(Default)]
struct HostStdinState {
    /// Bytes read and not taken yet.
    buf: Vec<u8>,
    /// Whether a guest waits for bytes.
    reading: bool,
    /// End of input was read.
    eof: bool,
    /// The read failed with this (reported once, then end of input).
    error: Option<io::Error>,
    /// Whether the worker thread runs.
    started: bool,
    /// The wakers of the waiting guests.
    wakers: Vec<Waker>,
}

/// What [`HostStdin::take`] found.
pub(crate) enum Taken {
    /// Bytes.
    Data(Vec<u8>),
    /// End of input.
    Eof,
    /// The read failed.
    Error(io::Error),
    /// Nothing yet (a read was asked for).
    Nothing,
}

/// The one reader of the host's descriptor 0 for WASI 0.2.
pub(crate) fn host_stdin() -> &'static HostStdin {
    static STDIN: OnceLock<HostStdin> = OnceLock::new();
    STDIN.get_or_init(|| HostStdin {
        state: Mutex::new(HostStdinState::default()),
        wanted: Condvar::new(),
    })
}

impl HostStdin {
    /// Asks the worker for input, starting it the first time.
    fn want(&'static self, s: &mut HostStdinState) -> io::Result<()> {
        s.reading = true;
        if !s.started {
            std::thread::Builder::new()
                .name("weft-wasi-stdin".into())
                .spawn(move || self.work())?;
            s.started = true;
        }
        self.wanted.notify_one();
        Ok(())
    }

    /// The worker: reads fd 0 whenever a guest wants input.
    fn work(&self) {
        let mut chunk = vec![0; 64 * 1024];
        loop {
            {
                let mut s = lock(&self.state);
                while !s.reading {
                    s = self.wanted.wait(s).unwrap_or_else(|p| p.into_inner());
                }
            }
            let r = read_fd0(&mut chunk);
            let (stop, wakers) = {
                let mut s = lock(&self.state);
                s.reading = false;
                match r {
                    Ok(0) => s.eof = true,
                    Ok(n) => s.buf.extend_from_slice(&chunk[..n]),
                    Err(e) => s.error = Some(e),
                }
                (s.eof || s.error.is_some(), std::mem::take(&mut s.wakers))
            };
            wakers.into_iter().for_each(Waker::wake);
            if stop {
                return;
            }
        }
    }

    /// Takes up to `size` bytes, or the end, or the error; asks for a
    /// read if there is nothing.
    pub(crate) fn take(&'static self, size: usize) -> Taken {
        let mut s = lock(&self.state);
        if !s.buf.is_empty() {
            let n = size.min(s.buf.len());
            let rest = s.buf.split_off(n);
            return Taken::Data(std::mem::replace(&mut s.buf, rest));
        }
        if let Some(e) = s.error.take() {
            s.eof = true;
            return Taken::Error(e);
        }
        if s.eof {
            return Taken::Eof;
        }
        if size > 0 {
            if let Err(e) = self.want(&mut s) {
                return Taken::Error(io::Error::new(e.kind(), format!("cannot start the stdin reader: {e}")));
            }
        }
        Taken::Nothing
    }

    /// Ready when there are bytes, the end or an error to take.
    pub(crate) fn poll_ready(&'static self, cx: &mut Context<'_>) -> Poll<()> {
        let mut s = lock(&self.state);
        if !s.buf.is_empty() || s.eof || s.error.is_some() {
            return Poll::Ready(());
        }
        if self.want(&mut s).is_err() {
            // No worker: the next take reports it.
            return Poll::Ready(());
        }
        if !s.wakers.iter().any(|w| w.will_wake(cx.waker())) {
            s.wakers.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

/// An `AsyncRead` of the host's standard input through the worker.
struct HostStdinReader;

impl AsyncRead for HostStdinReader {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        loop {
            match host_stdin().take(buf.remaining()) {
                Taken::Data(d) => {
                    buf.put_slice(&d);
                    return Poll::Ready(Ok(()));
                }
                Taken::Eof => return Poll::Ready(Ok(())),
                Taken::Error(e) => return Poll::Ready(Err(e)),
                Taken::Nothing if buf.remaining() == 0 => return Poll::Ready(Ok(())),
                Taken::Nothing => {
                    if host_stdin().poll_ready(cx).is_pending() {
                        return Poll::Pending;
                    }
                }
            }
        }
    }
}

impl IsTerminal for Stdin {
    fn is_terminal(&self) -> bool {
        io::IsTerminal::is_terminal(&io::stdin())
    }
}

impl StdinStream for Stdin {
    fn async_stream(&self) -> Box<dyn AsyncRead + Send + Sync> {
        Box::new(HostStdinReader)
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::InputStream> {
        Box::new(p2_streams::HostStdinStream)
    }
    fn host_stdin(&self) -> bool {
        true
    }
}

/// The host's standard output, written (and flushed) at once.
struct HostStdout;

impl Write for HostStdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // Unbuffered as far as the guest can tell: a guest that writes and
        // then traps or exits has its output on the terminal.
        let mut out = io::stdout().lock();
        out.write_all(buf)?;
        out.flush()?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        io::stdout().flush()
    }
}

/// The host's standard error, written at once.
struct HostStderr;

impl Write for HostStderr {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        io::stderr().lock().write_all(buf)?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl IsTerminal for Stdout {
    fn is_terminal(&self) -> bool {
        io::IsTerminal::is_terminal(&io::stdout())
    }
}

impl StdoutStream for Stdout {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(SyncWriter(HostStdout))
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::OutputStream> {
        Box::new(crate::p2::adapters::WriteStream::new(HostStdout))
    }
}

impl IsTerminal for Stderr {
    fn is_terminal(&self) -> bool {
        io::IsTerminal::is_terminal(&io::stderr())
    }
}

impl StdoutStream for Stderr {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(SyncWriter(HostStderr))
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::OutputStream> {
        Box::new(crate::p2::adapters::WriteStream::new(HostStderr))
    }
}

/// No input: every read is at end of input (the default stdin).
#[derive(Debug, Clone, Copy, Default)]
pub struct ClosedInputStream;

impl IsTerminal for ClosedInputStream {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdinStream for ClosedInputStream {
    fn async_stream(&self) -> Box<dyn AsyncRead + Send + Sync> {
        Box::new(tokio::io::empty())
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::InputStream> {
        Box::new(ClosedInputStream)
    }
}

/// Output that is thrown away (the default stdout and stderr).
#[derive(Debug, Clone, Copy, Default)]
pub struct SinkOutputStream;

impl IsTerminal for SinkOutputStream {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for SinkOutputStream {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(tokio::io::sink())
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::OutputStream> {
        Box::new(SinkOutputStream)
    }
}

/// Output that is closed: every write fails.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClosedOutputStream;

impl IsTerminal for ClosedOutputStream {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl Write for ClosedOutputStream {
    fn write(&mut self, _buf: &[u8]) -> io::Result<usize> {
        Err(io::ErrorKind::BrokenPipe.into())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl StdoutStream for ClosedOutputStream {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(SyncWriter(ClosedOutputStream))
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::OutputStream> {
        Box::new(ClosedOutputStream)
    }
}

pub(crate) fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Input from bytes held in memory. Clones share the read position.
#[derive(Debug, Clone)]
pub struct MemoryInputPipe {
    pub(crate) inner: Arc<Mutex<bytes::Bytes>>,
}

impl MemoryInputPipe {
    /// A pipe that yields `bytes` and then end of input.
    pub fn new(bytes: impl Into<bytes::Bytes>) -> Self {
        MemoryInputPipe {
            inner: Arc::new(Mutex::new(bytes.into())),
        }
    }

    /// Whether every byte was read.
    pub fn is_empty(&self) -> bool {
        lock(&self.inner).is_empty()
    }

    /// Takes up to `size` bytes.
    pub(crate) fn take(&self, size: usize) -> bytes::Bytes {
        let mut b = lock(&self.inner);
        let n = size.min(b.len());
        b.split_to(n)
    }
}

impl AsyncRead for MemoryInputPipe {
    fn poll_read(self: Pin<&mut Self>, _cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let got = MemoryInputPipe::take(&self, buf.remaining());
        buf.put_slice(&got);
        Poll::Ready(Ok(()))
    }
}

impl IsTerminal for MemoryInputPipe {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdinStream for MemoryInputPipe {
    fn async_stream(&self) -> Box<dyn AsyncRead + Send + Sync> {
        Box::new(self.clone())
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::InputStream> {
        Box::new(self.clone())
    }
}

/// Output collected in memory, up to a capacity. Clones share the buffer, so
/// a test keeps one clone and reads what the guest wrote with
/// [`MemoryOutputPipe::contents`].
#[derive(Debug, Clone)]
pub struct MemoryOutputPipe {
    pub(crate) capacity: usize,
    pub(crate) inner: Arc<Mutex<bytes::BytesMut>>,
}

impl MemoryOutputPipe {
    /// A pipe that accepts up to `capacity` bytes.
    pub fn new(capacity: usize) -> Self {
        MemoryOutputPipe {
            capacity,
            inner: Arc::new(Mutex::new(bytes::BytesMut::new())),
        }
    }

    /// A copy of everything written so far.
    pub fn contents(&self) -> bytes::Bytes {
        lock(&self.inner).clone().freeze()
    }

    /// The buffer, if this is the last clone.
    pub fn try_into_inner(self) -> Option<bytes::BytesMut> {
        Arc::try_unwrap(self.inner)
            .ok()
            .map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
    }

    /// How many more bytes fit.
    pub(crate) fn room(&self) -> usize {
        self.capacity.saturating_sub(lock(&self.inner).len())
    }

    /// Appends what fits of `buf`; how much did.
    pub(crate) fn append(&self, buf: &[u8]) -> usize {
        let mut data = lock(&self.inner);
        let n = self.capacity.saturating_sub(data.len()).min(buf.len());
        data.extend_from_slice(&buf[..n]);
        n
    }
}

impl AsyncWrite for MemoryOutputPipe {
    /// Writes what fits; a full pipe fails with `StorageFull`.
    fn poll_write(self: Pin<&mut Self>, _cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        if !buf.is_empty() && self.room() == 0 {
            return Poll::Ready(Err(io::Error::new(io::ErrorKind::StorageFull, "output pipe is full")));
        }
        Poll::Ready(Ok(self.append(buf)))
    }
    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl IsTerminal for MemoryOutputPipe {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for MemoryOutputPipe {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::OutputStream> {
        Box::new(self.clone())
    }
}

/// Input read from a host file.
#[derive(Debug, Clone)]
pub struct InputFile {
    pub(crate) file: Arc<std::fs::File>,
}

impl InputFile {
    /// Reads the guest's input from `file`.
    pub fn new(file: std::fs::File) -> Self {
        InputFile { file: Arc::new(file) }
    }
}

/// Reads of a shared file (at its shared position).
pub(crate) struct FileReader(pub(crate) Arc<std::fs::File>);

impl Read for FileReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        (&*self.0).read(buf)
    }
}

/// Writes of a shared file (at its shared position).
pub(crate) struct FileWriter(pub(crate) Arc<std::fs::File>);

impl Write for FileWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        (&*self.0).write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        (&*self.0).flush()
    }
}

impl IsTerminal for InputFile {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdinStream for InputFile {
    fn async_stream(&self) -> Box<dyn AsyncRead + Send + Sync> {
        Box::new(SyncReader(FileReader(self.file.clone())))
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::InputStream> {
        Box::new(crate::p2::adapters::ReadStream::new(FileReader(self.file.clone())))
    }
}

/// Output written to a host file.
#[derive(Debug, Clone)]
pub struct OutputFile {
    pub(crate) file: Arc<std::fs::File>,
}

impl OutputFile {
    /// Writes the guest's output to `file`.
    pub fn new(file: std::fs::File) -> Self {
        OutputFile { file: Arc::new(file) }
    }
}

impl IsTerminal for OutputFile {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for OutputFile {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(SyncWriter(FileWriter(self.file.clone())))
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::OutputStream> {
        Box::new(crate::p2::adapters::WriteStream::new(FileWriter(self.file.clone())))
    }
}

/// The WASI 0.2 streams of the built-in standard streams.
#[cfg(feature = "p2")]
mod p2_streams {
    use super::{host_stdin, ClosedInputStream, ClosedOutputStream, MemoryInputPipe, MemoryOutputPipe};
    use super::{SinkOutputStream, Taken};
    use crate::p2::{InputStream, OutputStream, Pollable, StreamError, StreamResult};
    use bytes::Bytes;

    /// The host's standard input as a WASI 0.2 stream, read by the
    /// worker thread of [`super::HostStdin`].
    pub(crate) struct HostStdinStream;

    #[async_trait::async_trait]
    impl Pollable for HostStdinStream {
        async fn ready(&mut self) {
            std::future::poll_fn(|cx| host_stdin().poll_ready(cx)).await
        }
    }

    impl InputStream for HostStdinStream {
        fn read(&mut self, size: usize) -> StreamResult<Bytes> {
            match host_stdin().take(size) {
                Taken::Data(d) => Ok(d.into()),
                Taken::Eof => Err(StreamError::Closed),
                Taken::Error(e) => Err(StreamError::LastOperationFailed(e.into())),
                Taken::Nothing => Ok(Bytes::new()),
            }
        }
    }

    /// Always ready: the bytes are there.
    #[async_trait::async_trait]
    impl Pollable for MemoryInputPipe {
        async fn ready(&mut self) {}
    }

    impl InputStream for MemoryInputPipe {
        /// Closed once every byte was read.
        fn read(&mut self, size: usize) -> StreamResult<Bytes> {
            if self.is_empty() {
                return Err(StreamError::Closed);
            }
            Ok(MemoryInputPipe::take(self, size))
        }
    }

    /// Always ready: writes never wait.
    #[async_trait::async_trait]
    impl Pollable for MemoryOutputPipe {
        async fn ready(&mut self) {}
    }

    impl OutputStream for MemoryOutputPipe {
        fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
            if bytes.len() > self.room() {
                return Err(StreamError::trap("write beyond capacity of MemoryOutputPipe"));
            }
            self.append(&bytes);
            Ok(())
        }
        fn flush(&mut self) -> StreamResult<()> {
            Ok(())
        }
        /// The room left; closed when there is none.
        fn check_write(&mut self) -> StreamResult<usize> {
            match self.room() {
                0 => Err(StreamError::Closed),
                n => Ok(n),
            }
        }
    }

    #[async_trait::async_trait]
    impl Pollable for ClosedInputStream {
        async fn ready(&mut self) {}
    }

    impl InputStream for ClosedInputStream {
        fn read(&mut self, _size: usize) -> StreamResult<Bytes> {
            Err(StreamError::Closed)
        }
    }

    #[async_trait::async_trait]
    impl Pollable for SinkOutputStream {
        async fn ready(&mut self) {}
    }

    impl OutputStream for SinkOutputStream {
        fn write(&mut self, _bytes: Bytes) -> StreamResult<()> {
            Ok(())
        }
        fn flush(&mut self) -> StreamResult<()> {
            Ok(())
        }
        fn check_write(&mut self) -> StreamResult<usize> {
            Ok(usize::MAX)
        }
    }

    #[async_trait::async_trait]
    impl Pollable for ClosedOutputStream {
        async fn ready(&mut self) {}
    }

    impl OutputStream for ClosedOutputStream {
        fn write(&mut self, _bytes: Bytes) -> StreamResult<()> {
            Err(StreamError::Closed)
        }
        fn flush(&mut self) -> StreamResult<()> {
            Err(StreamError::Closed)
        }
        fn check_write(&mut self) -> StreamResult<usize> {
            Err(StreamError::Closed)
        }
    }
}

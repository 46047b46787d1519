//! More standard streams, as Wasmtime 48's `wasmtime_wasi::cli` has them:
//! [`AsyncStdinStream`] and [`AsyncStdoutStream`] over any tokio reader
//! or writer, and the stream traits for std's and tokio's own standard
//! streams and empty streams.

use crate::stdio::{ClosedInputStream, IsTerminal, SinkOutputStream, Stderr, Stdin, StdinStream, Stdout, StdoutStream};
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A reader or writer shared by the streams made from one standard
/// stream, so they see one position.
struct Shared<T: ?Sized>(Arc<Mutex<Pin<Box<T>>>>);

impl<T: ?Sized> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T: AsyncRead + ?Sized> AsyncRead for Shared<T> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        crate::stdio::lock(&self.0).as_mut().poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + ?Sized> AsyncWrite for Shared<T> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        crate::stdio::lock(&self.0).as_mut().poll_write(cx, buf)
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        crate::stdio::lock(&self.0).as_mut().poll_flush(cx)
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        crate::stdio::lock(&self.0).as_mut().poll_shutdown(cx)
    }
}

/// Standard input from any tokio reader (Wasmtime's `AsyncStdinStream`):
/// every stream the guest gets reads the one reader, at one position.
#[derive(Clone)]
pub struct AsyncStdinStream(Shared<dyn AsyncRead + Send + Sync>);

impl AsyncStdinStream {
    /// Standard input read from `s`.
    pub fn new(s: impl AsyncRead + Send + Sync + 'static) -> Self {
        let reader: Pin<Box<dyn AsyncRead + Send + Sync>> = Box::pin(s);
        AsyncStdinStream(Shared(Arc::new(Mutex::new(reader))))
    }
}

impl IsTerminal for AsyncStdinStream {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdinStream for AsyncStdinStream {
    fn async_stream(&self) -> Box<dyn AsyncRead + Send + Sync> {
        Box::new(self.0.clone())
    }
}

/// Standard output to any tokio writer (Wasmtime's `AsyncStdoutStream`):
/// every stream the guest gets writes the one writer; a WASI 0.2 stream
/// takes up to `budget` bytes at a time.
#[derive(Clone)]
pub struct AsyncStdoutStream {
    writer: Shared<dyn AsyncWrite + Send + Sync>,
    #[cfg_attr(not(feature = "p2"), allow(dead_code, reason = "the budget of WASI 0.2 streams"))]
    budget: usize,
}

impl AsyncStdoutStream {
    /// Standard output written to `s`, `budget` bytes at a time.
    pub fn new(budget: usize, s: impl AsyncWrite + Send + Sync + 'static) -> Self {
        let writer: Pin<Box<dyn AsyncWrite + Send + Sync>> = Box::pin(s);
        AsyncStdoutStream {
            writer: Shared(Arc::new(Mutex::new(writer))),
            budget,
        }
    }
}

impl IsTerminal for AsyncStdoutStream {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for AsyncStdoutStream {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(self.writer.clone())
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::OutputStream> {
        Box::new(crate::p2::adapters::AsyncWriteStream::new(
            self.budget,
            self.writer.clone(),
        ))
    }
}

impl IsTerminal for io::Stdin {
    fn is_terminal(&self) -> bool {
        io::IsTerminal::is_terminal(self)
    }
}

/// The host's standard input, as [`crate::stdin()`].
impl StdinStream for io::Stdin {
    fn async_stream(&self) -> Box<dyn AsyncRead + Send + Sync> {
        Stdin.async_stream()
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::InputStream> {
        Stdin.p2_stream()
    }
    fn host_stdin(&self) -> bool {
        true
    }
}

impl IsTerminal for io::Stdout {
    fn is_terminal(&self) -> bool {
        io::IsTerminal::is_terminal(self)
    }
}

/// The host's standard output, as [`crate::stdout()`].
impl StdoutStream for io::Stdout {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Stdout.async_stream()
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::OutputStream> {
        Stdout.p2_stream()
    }
}

impl IsTerminal for io::Stderr {
    fn is_terminal(&self) -> bool {
        io::IsTerminal::is_terminal(self)
    }
}

/// The host's standard error, as [`crate::stderr()`].
impl StdoutStream for io::Stderr {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Stderr.async_stream()
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::OutputStream> {
        Stderr.p2_stream()
    }
}

impl IsTerminal for io::Empty {
    fn is_terminal(&self) -> bool {
        false
    }
}

/// No input, as [`ClosedInputStream`].
impl StdinStream for io::Empty {
    fn async_stream(&self) -> Box<dyn AsyncRead + Send + Sync> {
        ClosedInputStream.async_stream()
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::InputStream> {
        ClosedInputStream.p2_stream()
    }
}

/// Output thrown away, as [`SinkOutputStream`].
impl StdoutStream for io::Empty {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        SinkOutputStream.async_stream()
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::OutputStream> {
        SinkOutputStream.p2_stream()
    }
}

impl IsTerminal for tokio::io::Empty {
    fn is_terminal(&self) -> bool {
        false
    }
}

/// No input, as [`ClosedInputStream`].
impl StdinStream for tokio::io::Empty {
    fn async_stream(&self) -> Box<dyn AsyncRead + Send + Sync> {
        ClosedInputStream.async_stream()
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::InputStream> {
        ClosedInputStream.p2_stream()
    }
}

/// Output thrown away, as [`SinkOutputStream`].
impl StdoutStream for tokio::io::Empty {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        SinkOutputStream.async_stream()
    }
    #[cfg(feature = "p2")]
    fn p2_stream(&self) -> Box<dyn crate::p2::OutputStream> {
        SinkOutputStream.p2_stream()
    }
}

//! `wasi:cli@0.3`: environment, exit, terminals, and the standard streams
//! as component-model streams, over the context's standard streams (the
//! same ones WASI 0.2 and preview1 use).

use super::bindings::wasi::cli::types::ErrorCode;
use super::bindings::wasi::cli::{
    environment, exit, stderr, stdin, stdout, terminal_input, terminal_output, terminal_stderr, terminal_stdin,
    terminal_stdout, types,
};
use super::slot::ResultSlot;
use crate::cli::{WasiCli, WasiCliCtxView};
use crate::p2::{TerminalInput, TerminalOutput};
use crate::stdio::{IsTerminal, StdinStream, StdoutStream};
use crate::I32Exit;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use weft::component::{
    Access, Destination, FutureReader, Resource, Source, StreamConsumer, StreamProducer, StreamReader, StreamResult,
    VecBuffer,
};
use weft::StoreContextMut;

fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Writes what the guest writes to a stream into a standard output
/// stream's writer (its `async_stream`), polled with the stream's waker;
/// its slot gets `Ok` when the stream ends, `Err(io)` when a write fails.
struct OutputConsumer {
    out: Pin<Box<dyn AsyncWrite + Send + Sync>>,
    slot: ResultSlot<ErrorCode>,
}

impl Drop for OutputConsumer {
    fn drop(&mut self) {
        // The stream ended: the writer dropped its end (or the store went).
        let mut cx = Context::from_waker(Waker::noop());
        let _ = crate::runtime::with_ambient_tokio_runtime(|| self.out.as_mut().poll_flush(&mut cx));
        self.slot.set(Ok(()));
    }
}

/// The error code of a failed write.
fn write_error(e: &std::io::Error) -> ErrorCode {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        ErrorCode::Pipe
    } else {
        ErrorCode::Io
    }
}

impl<D: 'static> StreamConsumer<D> for OutputConsumer {
    type Item = u8;

    fn poll_consume(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        store: StoreContextMut<D>,
        source: Source<'_, u8>,
        finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        let this = self.get_mut();
        let mut src = source.as_direct(store);
        let mut wrote = false;
        loop {
            let bytes = src.remaining();
            if bytes.is_empty() {
                break;
            }
            let r = crate::runtime::with_ambient_tokio_runtime(|| this.out.as_mut().poll_write(cx, bytes));
            match r {
                // The writer wakes the stream when it can take more.
                Poll::Pending if wrote => break,
                Poll::Pending if finish => return Poll::Ready(Ok(StreamResult::Cancelled)),
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Ok(0)) => {
                    this.slot.set(Err(ErrorCode::Pipe));
                    return Poll::Ready(Ok(StreamResult::Dropped));
                }
                Poll::Ready(Ok(n)) => {
                    src.mark_read(n);
                    wrote = true;
                }
                Poll::Ready(Err(e)) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Poll::Ready(Err(e)) => {
                    this.slot.set(Err(write_error(&e)));
                    return Poll::Ready(Ok(StreamResult::Dropped));
                }
            }
        }
        // What was written goes out now (a writer that flushes later
        // is flushed again when the stream ends).
        let flushed = crate::runtime::with_ambient_tokio_runtime(|| this.out.as_mut().poll_flush(cx));
        if let Poll::Ready(Err(e)) = flushed {
            this.slot.set(Err(write_error(&e)));
            return Poll::Ready(Ok(StreamResult::Dropped));
        }
        Poll::Ready(Ok(StreamResult::Completed))
    }
}

/// Reads the context's standard input for a guest reading a stream (the
/// host's descriptor 0 directly, any other input through its
/// `async_stream`, polled with the stream's waker); its slot gets `Ok` at
/// the end of the input, `Err(io)` when a read fails.
struct InputProducer {
    input: Arc<Mutex<Box<dyn StdinStream>>>,
    /// The reader of an input other than the host's descriptor 0.
    reader: Option<Pin<Box<dyn AsyncRead + Send + Sync>>>,
    slot: ResultSlot<ErrorCode>,
    /// A helper thread waits for the host's stdin to be readable.
    waiting: Option<Arc<Mutex<Option<Waker>>>>,
}

impl Drop for InputProducer {
    fn drop(&mut self) {
        // The reader dropped the stream: that is success.
        self.slot.set(Ok(()));
    }
}

/// Whether the host's own standard input has bytes (or its end) to read
/// now.
fn host_stdin_ready(timeout: Option<&rustix::time::Timespec>) -> bool {
    use std::os::fd::AsFd;
    let stdin = std::io::stdin();
    let fd = stdin.as_fd();
    let mut fds = [rustix::event::PollFd::new(&fd, rustix::event::PollFlags::IN)];
    !matches!(rustix::event::poll(&mut fds, timeout), Ok(0))
}

impl InputProducer {
    /// Reads an input other than the host's descriptor 0 through its
    /// reader.
    fn poll_reader<'a, D: 'static>(
        &mut self,
        cx: &mut Context<'_>,
        store: StoreContextMut<'a, D>,
        destination: Destination<'a, u8, VecBuffer<u8>>,
        finish: bool,
        room: usize,
    ) -> Poll<weft::Result<StreamResult>> {
        let input = &self.input;
        let reader = self
            .reader
            .get_or_insert_with(|| Box::into_pin(lock(input).async_stream()));
        let mut dst = destination.as_direct(store, room);
        let buf = dst.remaining();
        let mut rb = ReadBuf::new(buf);
        let r = crate::runtime::with_ambient_tokio_runtime(|| reader.as_mut().poll_read(cx, &mut rb));
        match r {
            Poll::Pending if finish => Poll::Ready(Ok(StreamResult::Cancelled)),
            Poll::Pending => Poll::Pending,
            Poll::Ready(Ok(())) => {
                let n = rb.filled().len();
                if n == 0 {
                    return Poll::Ready(Ok(StreamResult::Dropped));
                }
                dst.mark_written(n);
                Poll::Ready(Ok(StreamResult::Completed))
            }
            Poll::Ready(Err(e)) if e.kind() == std::io::ErrorKind::Interrupted => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            Poll::Ready(Err(_)) => {
                self.slot.set(Err(ErrorCode::Io));
                Poll::Ready(Ok(StreamResult::Dropped))
            }
        }
    }
}

impl<D: 'static> StreamProducer<D> for InputProducer {
    type Item = u8;
    type Buffer = VecBuffer<u8>;

    fn poll_produce<'a>(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut store: StoreContextMut<'a, D>,
        destination: Destination<'a, u8, VecBuffer<u8>>,
        finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        // A host reader (a pipe into a host consumer) takes any amount.
        let room = destination.remaining(&mut store).unwrap_or(4096);
        if room == 0 {
            return Poll::Ready(Ok(StreamResult::Completed));
        }
        let host = lock(&self.input).host_stdin();
        if !host {
            return self.poll_reader(cx, store, destination, finish, room);
        }
        if !host_stdin_ready(Some(&rustix::time::Timespec { tv_sec: 0, tv_nsec: 0 })) {
            if finish {
                return Poll::Ready(Ok(StreamResult::Cancelled));
            }
            match &self.waiting {
                Some(w) => *lock(w) = Some(cx.waker().clone()),
                None => {
                    let shared = Arc::new(Mutex::new(Some(cx.waker().clone())));
                    let for_thread = shared.clone();
                    let spawned = std::thread::Builder::new()
                        .name("weft-wasi-stdin".to_string())
                        .spawn(move || {
                            host_stdin_ready(None);
                            if let Some(w) = lock(&for_thread).take() {
                                w.wake();
                            }
                        });
                    if spawned.is_err() {
                        // No thread: block for the input instead.
                        host_stdin_ready(None);
                        cx.waker().wake_by_ref();
                    } else {
                        self.waiting = Some(shared);
                    }
                }
            }
            return Poll::Pending;
        }
        self.waiting = None;
        let mut dst = destination.as_direct(store, room);
        let buf = dst.remaining();
        let read = crate::stdio::read_blocking(&**lock(&self.input), buf);
        match read {
            Ok(0) => Poll::Ready(Ok(StreamResult::Dropped)),
            Ok(n) => {
                dst.mark_written(n);
                Poll::Ready(Ok(StreamResult::Completed))
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            Err(_) => {
                self.slot.set(Err(ErrorCode::Io));
                Poll::Ready(Ok(StreamResult::Dropped))
            }
        }
    }
}

/// The future of a standard stream's result, for the guest.
fn result_future<T: 'static>(
    host: &mut Access<'_, T, WasiCli>,
    slot: ResultSlot<ErrorCode>,
) -> weft::Result<FutureReader<Result<(), ErrorCode>>> {
    FutureReader::new(host, slot.wait())
}

impl types::Host for WasiCliCtxView<'_> {}

impl stdin::Host for WasiCliCtxView<'_> {}

impl<T: 'static> stdin::HostWithStore<T> for WasiCli {
    fn read_via_stream(
        mut host: Access<'_, T, Self>,
    ) -> weft::Result<(StreamReader<u8>, FutureReader<Result<(), ErrorCode>>)> {
        let input = host.get().ctx.stdin.clone();
        let slot = ResultSlot::default();
        let producer = InputProducer {
            input,
            reader: None,
            slot: slot.clone(),
            waiting: None,
        };
        let stream = StreamReader::new(&mut host, producer)?;
        let future = result_future(&mut host, slot)?;
        Ok((stream, future))
    }
}

/// Pipes `data` into `out`, returning the future of the result.
fn write_via_stream<T: 'static>(
    host: &mut Access<'_, T, WasiCli>,
    out: Arc<Mutex<Box<dyn StdoutStream>>>,
    data: StreamReader<u8>,
) -> weft::Result<FutureReader<Result<(), ErrorCode>>> {
    let slot = ResultSlot::default();
    let out = Box::into_pin(lock(&out).async_stream());
    data.pipe(
        &mut *host,
        OutputConsumer {
            out,
            slot: slot.clone(),
        },
    )?;
    result_future(host, slot)
}

impl stdout::Host for WasiCliCtxView<'_> {}

impl<T: 'static> stdout::HostWithStore<T> for WasiCli {
    fn write_via_stream(
        mut host: Access<'_, T, Self>,
        data: StreamReader<u8>,
    ) -> weft::Result<FutureReader<Result<(), ErrorCode>>> {
        let out = host.get().ctx.stdout.clone();
        write_via_stream(&mut host, out, data)
    }
}

impl stderr::Host for WasiCliCtxView<'_> {}

impl<T: 'static> stderr::HostWithStore<T> for WasiCli {
    fn write_via_stream(
        mut host: Access<'_, T, Self>,
        data: StreamReader<u8>,
    ) -> weft::Result<FutureReader<Result<(), ErrorCode>>> {
        let out = host.get().ctx.stderr.clone();
        write_via_stream(&mut host, out, data)
    }
}

impl environment::Host for WasiCliCtxView<'_> {
    fn get_environment(&mut self) -> weft::Result<Vec<(String, String)>> {
        Ok(self.ctx.env.clone())
    }
    fn get_arguments(&mut self) -> weft::Result<Vec<String>> {
        Ok(self.ctx.args.clone())
    }
    fn get_initial_cwd(&mut self) -> weft::Result<Option<String>> {
        Ok(self.ctx.initial_cwd.clone())
    }
}

impl exit::Host for WasiCliCtxView<'_> {
    fn exit(&mut self, status: Result<(), ()>) -> weft::Result<()> {
        Err(I32Exit(if status.is_ok() { 0 } else { 1 }).into())
    }
    fn exit_with_code(&mut self, status_code: u8) -> weft::Result<()> {
        Err(I32Exit(status_code.into()).into())
    }
}

impl terminal_input::Host for WasiCliCtxView<'_> {}
impl terminal_input::HostTerminalInput for WasiCliCtxView<'_> {
    fn drop(&mut self, rep: Resource<TerminalInput>) -> weft::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}
impl terminal_output::Host for WasiCliCtxView<'_> {}
impl terminal_output::HostTerminalOutput for WasiCliCtxView<'_> {
    fn drop(&mut self, rep: Resource<TerminalOutput>) -> weft::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl terminal_stdin::Host for WasiCliCtxView<'_> {
    fn get_terminal_stdin(&mut self) -> weft::Result<Option<Resource<TerminalInput>>> {
        if lock(&self.ctx.stdin).is_terminal() {
            Ok(Some(self.table.push(TerminalInput)?))
        } else {
            Ok(None)
        }
    }
}

impl terminal_stdout::Host for WasiCliCtxView<'_> {
    fn get_terminal_stdout(&mut self) -> weft::Result<Option<Resource<TerminalOutput>>> {
        if lock(&self.ctx.stdout).is_terminal() {
            Ok(Some(self.table.push(TerminalOutput)?))
        } else {
            Ok(None)
        }
    }
}

impl terminal_stderr::Host for WasiCliCtxView<'_> {
    fn get_terminal_stderr(&mut self) -> weft::Result<Option<Resource<TerminalOutput>>> {
        if lock(&self.ctx.stderr).is_terminal() {
            Ok(Some(self.table.push(TerminalOutput)?))
        } else {
            Ok(None)
        }
    }
}

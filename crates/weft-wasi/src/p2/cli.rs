//! `wasi:cli`: environment, exit, standard streams and terminals.

use super::bindings::wasi::cli::{
    environment, exit, stderr, stdin, stdout, terminal_input, terminal_output, terminal_stderr, terminal_stdin,
    terminal_stdout,
};
use super::io::{DynInputStream, DynOutputStream, InputStream, OutputStream, Pollable, StreamError, StreamResult};
use super::WasiCtxView;
use crate::stdio::{StdinStream, StdoutStream};
use crate::I32Exit;
use bytes::Bytes;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use weft::component::Resource;

/// Whether a standard stream is a terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IsATTY {
    /// It is a terminal.
    Yes,
    /// It is not.
    No,
}

/// The host value of `wasi:cli/terminal-input.terminal-input`.
#[derive(Debug)]
pub struct TerminalInput;

/// The host value of `wasi:cli/terminal-output.terminal-output`.
#[derive(Debug)]
pub struct TerminalOutput;

fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The host's standard input, read by a worker thread when a guest waits
/// for it (as Wasmtime's): the guest's `poll` or blocking read awaits the
/// worker's notification instead of blocking or re-checking.
struct HostStdin {
    state: Mutex<HostStdinState>,
    /// Wakes the worker when a read is wanted.
    wanted: Condvar,
    /// Wakes the waiting guests when the worker has read.
    done: tokio::sync::Notify,
}

#[derive(Default)]
struct HostStdinState {
    /// Bytes read and not taken yet.
    buf: Vec<u8>,
    /// Whether the guest waits for bytes.
    reading: bool,
    /// End of input was read.
    eof: bool,
    /// The read failed with this (reported once, then end of input).
    error: Option<std::io::Error>,
    /// Whether the worker thread runs.
    started: bool,
}

impl HostStdinState {
    fn has_news(&self) -> bool {
        !self.buf.is_empty() || self.eof || self.error.is_some()
    }
}

/// The one reader of the host's descriptor 0.
fn host_stdin() -> &'static HostStdin {
    static STDIN: OnceLock<HostStdin> = OnceLock::new();
    STDIN.get_or_init(|| HostStdin {
        state: Mutex::new(HostStdinState::default()),
        wanted: Condvar::new(),
        done: tokio::sync::Notify::new(),
    })
}

impl HostStdin {
    /// Asks the worker for input, starting it the first time.
    fn want(&'static self, s: &mut HostStdinState) -> std::io::Result<()> {
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
        use std::os::fd::AsFd;
        let mut chunk = vec![0; 64 * 1024];
        loop {
            {
                let mut s = lock(&self.state);
                while !s.reading {
                    s = self.wanted.wait(s).unwrap_or_else(|p| p.into_inner());
                }
            }
            let stdin = std::io::stdin();
            let r = loop {
                match rustix::io::read(stdin.as_fd(), &mut chunk[..]) {
                    Err(rustix::io::Errno::INTR) => continue,
                    r => break r,
                }
            };
            let stop = {
                let mut s = lock(&self.state);
                s.reading = false;
                match r {
                    Ok(0) => s.eof = true,
                    Ok(n) => s.buf.extend_from_slice(&chunk[..n]),
                    Err(e) => s.error = Some(e.into()),
                }
                s.eof || s.error.is_some()
            };
            self.done.notify_waiters();
            if stop {
                return;
            }
        }
    }

    fn read(&'static self, size: usize) -> StreamResult<Bytes> {
        let mut s = lock(&self.state);
        if !s.buf.is_empty() {
            let n = size.min(s.buf.len());
            let rest = s.buf.split_off(n);
            return Ok(std::mem::replace(&mut s.buf, rest).into());
        }
        if let Some(e) = s.error.take() {
            s.eof = true;
            return Err(StreamError::LastOperationFailed(e.into()));
        }
        if s.eof {
            return Err(StreamError::Closed);
        }
        if size > 0 {
            self.want(&mut s)
                .map_err(|e| StreamError::LastOperationFailed(anyhow::anyhow!("cannot start the stdin reader: {e}")))?;
        }
        Ok(Bytes::new())
    }

    async fn ready(&'static self) {
        loop {
            let notified = self.done.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            {
                let mut s = lock(&self.state);
                if s.has_news() {
                    return;
                }
                if self.want(&mut s).is_err() {
                    // No worker: the next read reports it.
                    return;
                }
            }
            notified.await;
        }
    }
}

/// The guest's standard input as a WASI 0.2 stream.
pub(crate) struct StdinAdapter(pub(crate) Arc<Mutex<Box<dyn StdinStream>>>);

impl StdinAdapter {
    fn is_host_stdin(&self) -> bool {
        lock(&self.0).host_stdin()
    }
}

#[async_trait::async_trait]
impl Pollable for StdinAdapter {
    async fn ready(&mut self) {
        // Other inputs (memory, files) never wait.
        if self.is_host_stdin() {
            host_stdin().ready().await;
        }
    }
}

impl InputStream for StdinAdapter {
    fn read(&mut self, size: usize) -> StreamResult<Bytes> {
        if self.is_host_stdin() {
            return host_stdin().read(size);
        }
        if size == 0 {
            return Ok(Bytes::new());
        }
        let mut buf = vec![0; size];
        let n = lock(&self.0)
            .read(&mut buf)
            .map_err(|e| StreamError::LastOperationFailed(e.into()))?;
        if n == 0 {
            return Err(StreamError::Closed);
        }
        buf.truncate(n);
        Ok(buf.into())
    }
}

/// How many bytes a standard output stream accepts in one write.
const STDOUT_BUDGET: usize = 1 << 20;

/// The guest's standard output or error as a WASI 0.2 stream: always
/// ready, every write goes through at once.
pub(crate) struct StdoutAdapter(pub(crate) Arc<Mutex<Box<dyn StdoutStream>>>);

#[async_trait::async_trait]
impl Pollable for StdoutAdapter {
    async fn ready(&mut self) {}
}

impl OutputStream for StdoutAdapter {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        if bytes.len() > STDOUT_BUDGET {
            return Err(StreamError::trap("write of more bytes than `check-write` allowed"));
        }
        let mut out = lock(&self.0);
        let mut rest = &bytes[..];
        while !rest.is_empty() {
            match out.write(rest) {
                Ok(0) => {
                    return Err(StreamError::LastOperationFailed(anyhow::anyhow!(
                        "the output stream accepts no more bytes"
                    )))
                }
                Ok(n) => rest = &rest[n..],
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(StreamError::LastOperationFailed(e.into())),
            }
        }
        Ok(())
    }
    fn flush(&mut self) -> StreamResult<()> {
        lock(&self.0)
            .flush()
            .map_err(|e| StreamError::LastOperationFailed(e.into()))
    }
    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(STDOUT_BUDGET)
    }
}

impl environment::Host for WasiCtxView<'_> {
    fn get_environment(&mut self) -> anyhow::Result<Vec<(String, String)>> {
        Ok(self.ctx.env.clone())
    }
    fn get_arguments(&mut self) -> anyhow::Result<Vec<String>> {
        Ok(self.ctx.args.clone())
    }
    fn initial_cwd(&mut self) -> anyhow::Result<Option<String>> {
        Ok(self.ctx.initial_cwd.clone())
    }
}

impl exit::Host for WasiCtxView<'_> {
    fn exit(&mut self, status: Result<(), ()>) -> anyhow::Result<()> {
        Err(I32Exit(if status.is_ok() { 0 } else { 1 }).into())
    }
    fn exit_with_code(&mut self, status_code: u8) -> anyhow::Result<()> {
        Err(I32Exit(status_code.into()).into())
    }
}

impl stdin::Host for WasiCtxView<'_> {
    fn get_stdin(&mut self) -> anyhow::Result<Resource<DynInputStream>> {
        let s: DynInputStream = Box::new(StdinAdapter(self.ctx.stdin.clone()));
        Ok(self.table.push(s)?)
    }
}

impl stdout::Host for WasiCtxView<'_> {
    fn get_stdout(&mut self) -> anyhow::Result<Resource<DynOutputStream>> {
        let s: DynOutputStream = Box::new(StdoutAdapter(self.ctx.stdout.clone()));
        Ok(self.table.push(s)?)
    }
}

impl stderr::Host for WasiCtxView<'_> {
    fn get_stderr(&mut self) -> anyhow::Result<Resource<DynOutputStream>> {
        let s: DynOutputStream = Box::new(StdoutAdapter(self.ctx.stderr.clone()));
        Ok(self.table.push(s)?)
    }
}

impl terminal_input::Host for WasiCtxView<'_> {}
impl terminal_input::HostTerminalInput for WasiCtxView<'_> {
    fn drop(&mut self, rep: Resource<TerminalInput>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}
impl terminal_output::Host for WasiCtxView<'_> {}
impl terminal_output::HostTerminalOutput for WasiCtxView<'_> {
    fn drop(&mut self, rep: Resource<TerminalOutput>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl terminal_stdin::Host for WasiCtxView<'_> {
    fn get_terminal_stdin(&mut self) -> anyhow::Result<Option<Resource<TerminalInput>>> {
        if lock(&self.ctx.stdin).is_terminal() {
            Ok(Some(self.table.push(TerminalInput)?))
        } else {
            Ok(None)
        }
    }
}

impl terminal_stdout::Host for WasiCtxView<'_> {
    fn get_terminal_stdout(&mut self) -> anyhow::Result<Option<Resource<TerminalOutput>>> {
        if lock(&self.ctx.stdout).is_terminal() {
            Ok(Some(self.table.push(TerminalOutput)?))
        } else {
            Ok(None)
        }
    }
}

impl terminal_stderr::Host for WasiCtxView<'_> {
    fn get_terminal_stderr(&mut self) -> anyhow::Result<Option<Resource<TerminalOutput>>> {
        if lock(&self.ctx.stderr).is_terminal() {
            Ok(Some(self.table.push(TerminalOutput)?))
        } else {
            Ok(None)
        }
    }
}

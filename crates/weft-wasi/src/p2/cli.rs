//! `wasi:cli`: environment, exit, standard streams and terminals.

use super::bindings::wasi::cli::{
    environment, exit, stderr, stdin, stdout, terminal_input, terminal_output, terminal_stderr, terminal_stdin,
    terminal_stdout,
};
use super::io::{
    DynInputStream, DynOutputStream, InputStream, OutputStream, Pollable, Readiness, StreamError, StreamResult,
};
use super::WasiCtxView;
use crate::stdio::{StdinStream, StdoutStream};
use crate::I32Exit;
use bytes::Bytes;
use std::sync::{Arc, Mutex, MutexGuard};
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

/// The guest's standard input as a WASI 0.2 stream.
pub(crate) struct StdinAdapter(pub(crate) Arc<Mutex<Box<dyn StdinStream>>>);

impl Pollable for StdinAdapter {
    fn readiness(&mut self) -> Readiness {
        let s = lock(&self.0);
        if !s.host_stdin() {
            return Readiness::Ready;
        }
        use std::os::fd::AsFd;
        let stdin = std::io::stdin();
        let fd = stdin.as_fd();
        let mut fds = [rustix::event::PollFd::new(&fd, rustix::event::PollFlags::IN)];
        match rustix::event::poll(&mut fds, Some(&rustix::time::Timespec { tv_sec: 0, tv_nsec: 0 })) {
            Ok(0) => Readiness::Later,
            _ => Readiness::Ready,
        }
    }
}

impl InputStream for StdinAdapter {
    fn read(&mut self, size: usize) -> StreamResult<Bytes> {
        if size == 0 {
            return Ok(Bytes::new());
        }
        if self.readiness() != Readiness::Ready {
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

/// The guest's standard output or error as a WASI 0.2 stream.
pub(crate) struct StdoutAdapter(pub(crate) Arc<Mutex<Box<dyn StdoutStream>>>);

impl Pollable for StdoutAdapter {
    fn readiness(&mut self) -> Readiness {
        Readiness::Ready
    }
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

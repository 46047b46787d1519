//! Standard input, output and error of a guest: the host's own, in-memory
//! pipes that tests can fill and read back, or files.

use std::io::{self, IsTerminal, Read, Write};
use std::sync::{Arc, Mutex, MutexGuard};

/// Where a guest's standard input comes from.
pub trait StdinStream: Send + 'static {
    /// Reads up to `buf.len()` bytes; 0 means end of input.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize>;
    /// Whether this is a terminal (the guest then sees a character device).
    fn is_terminal(&self) -> bool {
        false
    }
    /// Whether a read may block: only such streams are waited for by
    /// `poll_oneoff`; every other stream is always ready.
    #[doc(hidden)]
    fn host_stdin(&self) -> bool {
        false
    }
}

/// Where a guest's standard output or error goes.
pub trait StdoutStream: Send + 'static {
    /// Writes some of `buf` and returns how much was written.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize>;
    /// Flushes buffered output.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
    /// Whether this is a terminal (the guest then sees a character device).
    fn is_terminal(&self) -> bool {
        false
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

impl StdinStream for Stdin {
    /// Reads the host's descriptor 0 directly, past std's buffer, so that
    /// what `poll_oneoff` sees ready is exactly what the next read returns.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
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
    fn is_terminal(&self) -> bool {
        io::stdin().is_terminal()
    }
    fn host_stdin(&self) -> bool {
        true
    }
}

impl StdoutStream for Stdout {
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
    fn is_terminal(&self) -> bool {
        io::stdout().is_terminal()
    }
}

impl StdoutStream for Stderr {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        io::stderr().lock().write_all(buf)?;
        Ok(buf.len())
    }
    fn is_terminal(&self) -> bool {
        io::stderr().is_terminal()
    }
}

/// No input: every read is at end of input (the default stdin).
#[derive(Debug, Clone, Copy, Default)]
pub struct ClosedInputStream;

impl StdinStream for ClosedInputStream {
    fn read(&mut self, _buf: &mut [u8]) -> io::Result<usize> {
        Ok(0)
    }
}

/// Output that is thrown away (the default stdout and stderr).
#[derive(Debug, Clone, Copy, Default)]
pub struct SinkOutputStream;

impl StdoutStream for SinkOutputStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Ok(buf.len())
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Input from bytes held in memory. Clones share the read position.
#[derive(Debug, Clone)]
pub struct MemoryInputPipe {
    inner: Arc<Mutex<io::Cursor<Vec<u8>>>>,
}

impl MemoryInputPipe {
    /// A pipe that yields `bytes` and then end of input.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        MemoryInputPipe {
            inner: Arc::new(Mutex::new(io::Cursor::new(bytes.into()))),
        }
    }
}

impl StdinStream for MemoryInputPipe {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        lock(&self.inner).read(buf)
    }
}

/// Output collected in memory, up to a capacity. Clones share the buffer, so
/// a test keeps one clone and reads what the guest wrote with
/// [`MemoryOutputPipe::contents`].
#[derive(Debug, Clone)]
pub struct MemoryOutputPipe {
    capacity: usize,
    inner: Arc<Mutex<Vec<u8>>>,
}

impl MemoryOutputPipe {
    /// A pipe that accepts up to `capacity` bytes; writes past it fail with
    /// `nospc`.
    pub fn new(capacity: usize) -> Self {
        MemoryOutputPipe {
            capacity,
            inner: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// Everything written so far.
    pub fn contents(&self) -> Vec<u8> {
        lock(&self.inner).clone()
    }

    /// The buffer, if this is the last clone.
    pub fn try_into_inner(self) -> Option<Vec<u8>> {
        Arc::try_unwrap(self.inner)
            .ok()
            .map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
    }
}

impl StdoutStream for MemoryOutputPipe {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut data = lock(&self.inner);
        let room = self.capacity.saturating_sub(data.len());
        if room == 0 && !buf.is_empty() {
            return Err(io::Error::new(io::ErrorKind::StorageFull, "output pipe is full"));
        }
        let n = room.min(buf.len());
        data.extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

/// Input read from a host file.
#[derive(Debug)]
pub struct InputFile {
    file: std::fs::File,
}

impl InputFile {
    /// Reads the guest's input from `file`.
    pub fn new(file: std::fs::File) -> Self {
        InputFile { file }
    }
}

impl StdinStream for InputFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.file.read(buf)
    }
}

/// Output written to a host file.
#[derive(Debug)]
pub struct OutputFile {
    file: std::fs::File,
}

impl OutputFile {
    /// Writes the guest's output to `file`.
    pub fn new(file: std::fs::File) -> Self {
        OutputFile { file }
    }
}

impl StdoutStream for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

//! `wasi:io`: errors, pollables and streams.
//!
//! A pollable says whether it is ready now, at a known instant (a timer),
//! or later (a host stream that is not ready yet and is checked again).
//! `poll` and `block` wait for the first ready one on the calling thread.

use super::bindings::wasi::io::{error, poll, streams};
use super::WasiCtxView;
use bytes::Bytes;
use std::sync::Arc;
use std::time::{Duration, Instant};
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

/// Whether a pollable is ready.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readiness {
    /// Ready now.
    Ready,
    /// Ready at this instant (a timer).
    At(Instant),
    /// Not ready yet: asked again after a short wait.
    Later,
}

/// Something a guest may wait for: a stream that may become readable or
/// writable, a timer.
pub trait Pollable: Send + 'static {
    /// Whether it is ready. It must not block.
    fn readiness(&mut self) -> Readiness;
}

type Check = Arc<dyn Fn(&mut ResourceTable) -> anyhow::Result<Readiness> + Send + Sync>;

/// The host value of `wasi:io/poll.pollable`: checks the readiness of the
/// resource it was made from (see [`subscribe`]), or of a deadline.
pub struct DynPollable {
    check: Check,
}

impl DynPollable {
    /// A pollable that is ready at `deadline`.
    pub fn deadline(deadline: Instant) -> DynPollable {
        DynPollable {
            check: Arc::new(move |_| Ok(Readiness::At(deadline))),
        }
    }

    /// A pollable that is always ready.
    pub fn ready() -> DynPollable {
        DynPollable {
            check: Arc::new(|_| Ok(Readiness::Ready)),
        }
    }
}

/// Makes a pollable for `resource` (a child of it in `table`: the
/// resource cannot be deleted while the pollable lives).
pub fn subscribe<T: Pollable>(
    table: &mut ResourceTable,
    resource: Resource<T>,
) -> anyhow::Result<Resource<DynPollable>> {
    let rep = resource.rep();
    let pollable = DynPollable {
        check: Arc::new(move |table: &mut ResourceTable| {
            let r = Resource::<T>::new_borrow(rep);
            Ok(table.get_mut(&r)?.readiness())
        }),
    };
    Ok(table.push_child(pollable, &resource)?)
}

/// The readiness of the pollable `p`.
fn readiness(table: &mut ResourceTable, p: &Resource<DynPollable>) -> anyhow::Result<Readiness> {
    let check = table.get(p)?.check.clone();
    check(table)
}

/// The longest wait between two checks of a pollable that is ready
/// `Later`.
const MAX_RECHECK: Duration = Duration::from_millis(20);

/// Waits until at least one of `list` is ready and returns the indices of
/// the ready ones.
pub(crate) fn wait_any(table: &mut ResourceTable, list: &[Resource<DynPollable>]) -> anyhow::Result<Vec<u32>> {
    let mut recheck = Duration::from_micros(100);
    loop {
        let now = Instant::now();
        let mut ready = Vec::new();
        let mut earliest: Option<Instant> = None;
        let mut later = false;
        for (i, p) in list.iter().enumerate() {
            match readiness(table, p)? {
                Readiness::Ready => ready.push(i as u32),
                Readiness::At(t) if t <= now => ready.push(i as u32),
                Readiness::At(t) => earliest = Some(earliest.map_or(t, |e| e.min(t))),
                Readiness::Later => later = true,
            }
        }
        if !ready.is_empty() {
            return Ok(ready);
        }
        let mut wait = match earliest {
            Some(t) => t - now,
            None if later => recheck,
            None => anyhow::bail!("wasi:io/poll: nothing to wait for (an empty list of pollables)"),
        };
        if later {
            wait = wait.min(recheck);
            recheck = (recheck * 2).min(MAX_RECHECK);
        }
        std::thread::sleep(wait);
    }
}

/// A stream a guest reads (`wasi:io/streams.input-stream`).
pub trait InputStream: Pollable {
    /// Reads up to `size` bytes without blocking; empty when nothing is
    /// ready yet.
    fn read(&mut self, size: usize) -> StreamResult<Bytes>;

    /// Reads at least one byte (or fails), waiting for input.
    fn blocking_read(&mut self, size: usize) -> StreamResult<Bytes> {
        let mut recheck = Duration::from_micros(100);
        loop {
            match self.readiness() {
                Readiness::Ready => {}
                Readiness::At(t) => std::thread::sleep(t.saturating_duration_since(Instant::now())),
                Readiness::Later => {
                    std::thread::sleep(recheck);
                    recheck = (recheck * 2).min(MAX_RECHECK);
                    continue;
                }
            }
            let bytes = self.read(size)?;
            if !bytes.is_empty() || size == 0 {
                return Ok(bytes);
            }
            std::thread::sleep(recheck);
            recheck = (recheck * 2).min(MAX_RECHECK);
        }
    }

    /// Skips up to `size` bytes without blocking.
    fn skip(&mut self, size: usize) -> StreamResult<usize> {
        Ok(self.read(size)?.len())
    }

    /// Skips at least one byte, waiting for input.
    fn blocking_skip(&mut self, size: usize) -> StreamResult<usize> {
        Ok(self.blocking_read(size)?.len())
    }
}

/// A stream a guest writes (`wasi:io/streams.output-stream`).
pub trait OutputStream: Pollable {
    /// Writes `bytes`, which must not be longer than the last
    /// [`OutputStream::check_write`] allowed.
    fn write(&mut self, bytes: Bytes) -> StreamResult<()>;
    /// Starts flushing what was written.
    fn flush(&mut self) -> StreamResult<()>;
    /// How many bytes may be written now.
    fn check_write(&mut self) -> StreamResult<usize>;

    /// Writes `n` zero bytes.
    fn write_zeroes(&mut self, n: usize) -> StreamResult<()> {
        self.write(Bytes::from(vec![0; n]))
    }

    /// Waits until some bytes may be written and returns how many.
    fn write_ready(&mut self) -> StreamResult<usize> {
        let mut recheck = Duration::from_micros(100);
        loop {
            let n = self.check_write()?;
            if n > 0 {
                return Ok(n);
            }
            std::thread::sleep(recheck);
            recheck = (recheck * 2).min(MAX_RECHECK);
        }
    }

    /// Writes all of `bytes` and flushes, waiting as needed.
    fn blocking_write_and_flush(&mut self, mut bytes: Bytes) -> StreamResult<()> {
        while !bytes.is_empty() {
            let n = self.write_ready()?.min(bytes.len());
            self.write(bytes.split_to(n))?;
        }
        self.flush()?;
        self.write_ready().map(|_| ())
    }
}

/// The host value of `wasi:io/streams.input-stream`.
pub type DynInputStream = Box<dyn InputStream>;
/// The host value of `wasi:io/streams.output-stream`.
pub type DynOutputStream = Box<dyn OutputStream>;

impl Pollable for DynInputStream {
    fn readiness(&mut self) -> Readiness {
        (**self).readiness()
    }
}

impl Pollable for DynOutputStream {
    fn readiness(&mut self) -> Readiness {
        (**self).readiness()
    }
}

/// At most this many bytes are read or skipped by one call (as Wasmtime's
/// 64 KiB), whatever length the guest asks for.
const MAX_READ: u64 = 64 * 1024;

fn read_len(len: u64) -> usize {
    len.min(MAX_READ) as usize
}

impl error::Host for WasiCtxView<'_> {}

impl error::HostError for WasiCtxView<'_> {
    fn to_debug_string(&mut self, self_: Resource<IoError>) -> anyhow::Result<String> {
        Ok(format!("{:?}", self.table.get(&self_)?))
    }
    fn drop(&mut self, rep: Resource<IoError>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl poll::Host for WasiCtxView<'_> {
    fn poll(&mut self, in_: Vec<Resource<DynPollable>>) -> anyhow::Result<Vec<u32>> {
        wait_any(self.table, &in_)
    }
}

impl poll::HostPollable for WasiCtxView<'_> {
    fn ready(&mut self, self_: Resource<DynPollable>) -> anyhow::Result<bool> {
        Ok(match readiness(self.table, &self_)? {
            Readiness::Ready => true,
            Readiness::At(t) => t <= Instant::now(),
            Readiness::Later => false,
        })
    }
    fn block(&mut self, self_: Resource<DynPollable>) -> anyhow::Result<()> {
        wait_any(self.table, &[self_])?;
        Ok(())
    }
    fn drop(&mut self, rep: Resource<DynPollable>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl streams::Host for WasiCtxView<'_> {
    fn convert_stream_error(&mut self, err: StreamError) -> anyhow::Result<streams::StreamError> {
        match err {
            StreamError::Closed => Ok(streams::StreamError::Closed),
            StreamError::LastOperationFailed(e) => Ok(streams::StreamError::LastOperationFailed(self.table.push(e)?)),
            StreamError::Trap(e) => Err(e),
        }
    }
}

impl streams::HostInputStream for WasiCtxView<'_> {
    fn read(&mut self, self_: Resource<DynInputStream>, len: u64) -> StreamResult<Vec<u8>> {
        Ok(self.table.get_mut(&self_)?.read(read_len(len))?.to_vec())
    }
    fn blocking_read(&mut self, self_: Resource<DynInputStream>, len: u64) -> StreamResult<Vec<u8>> {
        Ok(self.table.get_mut(&self_)?.blocking_read(read_len(len))?.to_vec())
    }
    fn skip(&mut self, self_: Resource<DynInputStream>, len: u64) -> StreamResult<u64> {
        Ok(self.table.get_mut(&self_)?.skip(read_len(len))? as u64)
    }
    fn blocking_skip(&mut self, self_: Resource<DynInputStream>, len: u64) -> StreamResult<u64> {
        Ok(self.table.get_mut(&self_)?.blocking_skip(read_len(len))? as u64)
    }
    fn subscribe(&mut self, self_: Resource<DynInputStream>) -> anyhow::Result<Resource<DynPollable>> {
        subscribe(self.table, self_)
    }
    fn drop(&mut self, rep: Resource<DynInputStream>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

/// The error of a write longer than `check-write` allowed.
fn too_long() -> StreamError {
    StreamError::trap("write of more bytes than `check-write` allowed")
}

impl streams::HostOutputStream for WasiCtxView<'_> {
    fn check_write(&mut self, self_: Resource<DynOutputStream>) -> StreamResult<u64> {
        Ok(self.table.get_mut(&self_)?.check_write()? as u64)
    }
    fn write(&mut self, self_: Resource<DynOutputStream>, contents: Vec<u8>) -> StreamResult<()> {
        self.table.get_mut(&self_)?.write(contents.into())
    }
    fn blocking_write_and_flush(&mut self, self_: Resource<DynOutputStream>, contents: Vec<u8>) -> StreamResult<()> {
        if contents.len() > 4096 {
            return Err(StreamError::trap(
                "blocking-write-and-flush of more than 4096 bytes (the interface's limit)",
            ));
        }
        self.table.get_mut(&self_)?.blocking_write_and_flush(contents.into())
    }
    fn flush(&mut self, self_: Resource<DynOutputStream>) -> StreamResult<()> {
        self.table.get_mut(&self_)?.flush()
    }
    fn blocking_flush(&mut self, self_: Resource<DynOutputStream>) -> StreamResult<()> {
        let s = self.table.get_mut(&self_)?;
        s.flush()?;
        s.write_ready().map(|_| ())
    }
    fn subscribe(&mut self, self_: Resource<DynOutputStream>) -> anyhow::Result<Resource<DynPollable>> {
        subscribe(self.table, self_)
    }
    fn write_zeroes(&mut self, self_: Resource<DynOutputStream>, len: u64) -> StreamResult<()> {
        let s = self.table.get_mut(&self_)?;
        let len = usize::try_from(len).map_err(|_| too_long())?;
        if len > s.check_write()? {
            return Err(too_long());
        }
        s.write_zeroes(len)
    }
    fn blocking_write_zeroes_and_flush(&mut self, self_: Resource<DynOutputStream>, len: u64) -> StreamResult<()> {
        if len > 4096 {
            return Err(StreamError::trap(
                "blocking-write-zeroes-and-flush of more than 4096 bytes (the interface's limit)",
            ));
        }
        self.table
            .get_mut(&self_)?
            .blocking_write_and_flush(Bytes::from(vec![0; len as usize]))
    }
    fn splice(
        &mut self,
        self_: Resource<DynOutputStream>,
        src: Resource<DynInputStream>,
        len: u64,
    ) -> StreamResult<u64> {
        let permit = self.table.get_mut(&self_)?.check_write()?;
        let n = read_len(len).min(permit);
        if n == 0 {
            return Ok(0);
        }
        let bytes = self.table.get_mut(&src)?.read(n)?;
        let got = bytes.len() as u64;
        self.table.get_mut(&self_)?.write(bytes)?;
        Ok(got)
    }
    fn blocking_splice(
        &mut self,
        self_: Resource<DynOutputStream>,
        src: Resource<DynInputStream>,
        len: u64,
    ) -> StreamResult<u64> {
        let permit = self.table.get_mut(&self_)?.write_ready()?;
        let n = read_len(len).min(permit);
        let bytes = self.table.get_mut(&src)?.blocking_read(n)?;
        let got = bytes.len() as u64;
        self.table.get_mut(&self_)?.write(bytes)?;
        Ok(got)
    }
    fn drop(&mut self, rep: Resource<DynOutputStream>) -> anyhow::Result<()> {
        let mut s = self.table.delete(rep)?;
        // What was written reaches its destination before the stream goes.
        let _ = s.flush();
        Ok(())
    }
}

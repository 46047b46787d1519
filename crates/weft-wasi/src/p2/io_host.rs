//! The `wasi:io` host functions of the async flavour of
//! [`super::bindings`]: `poll`, `block` and the blocking stream functions
//! await the pollables' futures (see `io.rs`).

use super::bindings::wasi::io::{error, poll, streams};
use super::io::{
    delete_pollable, poll_list, pollable_ready, subscribe, DynInputStream, DynOutputStream, DynPollable, IoError,
    StreamError, StreamResult,
};
use weft::component::Resource;
use weft::component::ResourceTable;

/// At most this many bytes are read or skipped by one call (as Wasmtime's
/// 64 KiB), whatever length the guest asks for.
const MAX_READ: u64 = 64 * 1024;

fn read_len(len: u64) -> usize {
    len.min(MAX_READ) as usize
}

/// The error of a write longer than `check-write` allowed.
fn too_long() -> StreamError {
    StreamError::trap("write of more bytes than `check-write` allowed")
}

impl error::Host for ResourceTable {}

impl error::HostError for ResourceTable {
    fn to_debug_string(&mut self, self_: Resource<IoError>) -> anyhow::Result<String> {
        Ok(format!("{:?}", self.get(&self_)?))
    }
    fn drop(&mut self, rep: Resource<IoError>) -> anyhow::Result<()> {
        self.delete(rep)?;
        Ok(())
    }
}

impl poll::Host for ResourceTable {
    async fn poll(&mut self, in_: Vec<Resource<DynPollable>>) -> anyhow::Result<Vec<u32>> {
        poll_list(self, &in_).await
    }
}

impl poll::HostPollable for ResourceTable {
    async fn ready(&mut self, self_: Resource<DynPollable>) -> anyhow::Result<bool> {
        pollable_ready(self, &self_)
    }
    async fn block(&mut self, self_: Resource<DynPollable>) -> anyhow::Result<()> {
        poll_list(self, &[self_]).await?;
        Ok(())
    }
    fn drop(&mut self, rep: Resource<DynPollable>) -> anyhow::Result<()> {
        delete_pollable(self, rep)
    }
}

impl streams::Host for ResourceTable {
    fn convert_stream_error(&mut self, err: StreamError) -> anyhow::Result<streams::StreamError> {
        match err {
            StreamError::Closed => Ok(streams::StreamError::Closed),
            StreamError::LastOperationFailed(e) => Ok(streams::StreamError::LastOperationFailed(self.push(e)?)),
            StreamError::Trap(e) => Err(e),
        }
    }
}

impl streams::HostInputStream for ResourceTable {
    fn read(&mut self, self_: Resource<DynInputStream>, len: u64) -> StreamResult<Vec<u8>> {
        Ok(self.get_mut(&self_)?.read(read_len(len))?.to_vec())
    }
    async fn blocking_read(&mut self, self_: Resource<DynInputStream>, len: u64) -> StreamResult<Vec<u8>> {
        let s = self.get_mut(&self_)?;
        if len == 0 {
            s.ready().await;
            return Ok(s.read(0)?.to_vec());
        }
        Ok(s.blocking_read(read_len(len)).await?.to_vec())
    }
    fn skip(&mut self, self_: Resource<DynInputStream>, len: u64) -> StreamResult<u64> {
        Ok(self.get_mut(&self_)?.skip(read_len(len))? as u64)
    }
    async fn blocking_skip(&mut self, self_: Resource<DynInputStream>, len: u64) -> StreamResult<u64> {
        let s = self.get_mut(&self_)?;
        if len == 0 {
            s.ready().await;
            return Ok(s.skip(0)? as u64);
        }
        Ok(s.blocking_skip(read_len(len)).await? as u64)
    }
    fn subscribe(&mut self, self_: Resource<DynInputStream>) -> anyhow::Result<Resource<DynPollable>> {
        subscribe(self, self_)
    }
    async fn drop(&mut self, rep: Resource<DynInputStream>) -> anyhow::Result<()> {
        self.delete(rep)?.cancel().await;
        Ok(())
    }
}

impl streams::HostOutputStream for ResourceTable {
    fn check_write(&mut self, self_: Resource<DynOutputStream>) -> StreamResult<u64> {
        Ok(self.get_mut(&self_)?.check_write()? as u64)
    }
    fn write(&mut self, self_: Resource<DynOutputStream>, contents: Vec<u8>) -> StreamResult<()> {
        self.get_mut(&self_)?.write(contents.into())
    }
    async fn blocking_write_and_flush(
        &mut self,
        self_: Resource<DynOutputStream>,
        contents: Vec<u8>,
    ) -> StreamResult<()> {
        if contents.len() > 4096 {
            return Err(StreamError::trap(
                "blocking-write-and-flush of more than 4096 bytes (the interface's limit)",
            ));
        }
        self.get_mut(&self_)?.blocking_write_and_flush(contents.into()).await
    }
    fn flush(&mut self, self_: Resource<DynOutputStream>) -> StreamResult<()> {
        self.get_mut(&self_)?.flush()
    }
    async fn blocking_flush(&mut self, self_: Resource<DynOutputStream>) -> StreamResult<()> {
        let s = self.get_mut(&self_)?;
        s.flush()?;
        s.write_ready().await.map(|_| ())
    }
    fn subscribe(&mut self, self_: Resource<DynOutputStream>) -> anyhow::Result<Resource<DynPollable>> {
        subscribe(self, self_)
    }
    fn write_zeroes(&mut self, self_: Resource<DynOutputStream>, len: u64) -> StreamResult<()> {
        let s = self.get_mut(&self_)?;
        let len = usize::try_from(len).map_err(|_| too_long())?;
        if len > s.check_write()? {
            return Err(too_long());
        }
        s.write_zeroes(len)
    }
    async fn blocking_write_zeroes_and_flush(
        &mut self,
        self_: Resource<DynOutputStream>,
        len: u64,
    ) -> StreamResult<()> {
        if len > 4096 {
            return Err(StreamError::trap(
                "blocking-write-zeroes-and-flush of more than 4096 bytes (the interface's limit)",
            ));
        }
        self.get_mut(&self_)?
            .blocking_write_zeroes_and_flush(len as usize)
            .await
    }
    fn splice(
        &mut self,
        self_: Resource<DynOutputStream>,
        src: Resource<DynInputStream>,
        len: u64,
    ) -> StreamResult<u64> {
        let permit = self.get_mut(&self_)?.check_write()?;
        let n = read_len(len).min(permit);
        if n == 0 {
            return Ok(0);
        }
        let bytes = self.get_mut(&src)?.read(n)?;
        let got = bytes.len() as u64;
        self.get_mut(&self_)?.write(bytes)?;
        Ok(got)
    }
    async fn blocking_splice(
        &mut self,
        self_: Resource<DynOutputStream>,
        src: Resource<DynInputStream>,
        len: u64,
    ) -> StreamResult<u64> {
        let permit = self.get_mut(&self_)?.write_ready().await?;
        let n = read_len(len).min(permit);
        let bytes = self.get_mut(&src)?.blocking_read(n).await?;
        let got = bytes.len() as u64;
        self.get_mut(&self_)?.write(bytes)?;
        Ok(got)
    }
    async fn drop(&mut self, rep: Resource<DynOutputStream>) -> anyhow::Result<()> {
        let mut s = self.delete(rep)?;
        // What was written reaches its destination before the stream goes.
        let _ = s.flush();
        s.cancel().await;
        Ok(())
    }
}

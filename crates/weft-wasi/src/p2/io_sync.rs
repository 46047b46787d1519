//! The synchronous `wasi:io` host functions of
//! [`super::add_to_linker_sync`]: each runs its async counterpart of
//! `io.rs` to its end on the calling thread ([`in_tokio`]), parked until
//! a waker fires.

use super::bindings::sync::wasi::io::{error, poll, streams};
use super::bindings::wasi::io as async_io;
use super::io::{DynInputStream, DynOutputStream, DynPollable, IoError, StreamError, StreamResult};
use crate::runtime::in_tokio;
use weft::component::Resource;
use weft::component::ResourceTable;

impl error::Host for ResourceTable {}

impl error::HostError for ResourceTable {
    fn to_debug_string(&mut self, self_: Resource<IoError>) -> anyhow::Result<String> {
        async_io::error::HostError::to_debug_string(self, self_)
    }
    fn drop(&mut self, rep: Resource<IoError>) -> anyhow::Result<()> {
        async_io::error::HostError::drop(self, rep)
    }
}

impl poll::Host for ResourceTable {
    fn poll(&mut self, in_: Vec<Resource<DynPollable>>) -> anyhow::Result<Vec<u32>> {
        in_tokio(async_io::poll::Host::poll(self, in_))
    }
}

impl poll::HostPollable for ResourceTable {
    fn ready(&mut self, self_: Resource<DynPollable>) -> anyhow::Result<bool> {
        in_tokio(async_io::poll::HostPollable::ready(self, self_))
    }
    fn block(&mut self, self_: Resource<DynPollable>) -> anyhow::Result<()> {
        in_tokio(async_io::poll::HostPollable::block(self, self_))
    }
    fn drop(&mut self, rep: Resource<DynPollable>) -> anyhow::Result<()> {
        async_io::poll::HostPollable::drop(self, rep)
    }
}

impl streams::Host for ResourceTable {
    fn convert_stream_error(&mut self, err: StreamError) -> anyhow::Result<streams::StreamError> {
        Ok(match async_io::streams::Host::convert_stream_error(self, err)? {
            async_io::streams::StreamError::Closed => streams::StreamError::Closed,
            async_io::streams::StreamError::LastOperationFailed(e) => streams::StreamError::LastOperationFailed(e),
        })
    }
}

impl streams::HostInputStream for ResourceTable {
    fn read(&mut self, self_: Resource<DynInputStream>, len: u64) -> StreamResult<Vec<u8>> {
        async_io::streams::HostInputStream::read(self, self_, len)
    }
    fn blocking_read(&mut self, self_: Resource<DynInputStream>, len: u64) -> StreamResult<Vec<u8>> {
        in_tokio(async_io::streams::HostInputStream::blocking_read(self, self_, len))
    }
    fn skip(&mut self, self_: Resource<DynInputStream>, len: u64) -> StreamResult<u64> {
        async_io::streams::HostInputStream::skip(self, self_, len)
    }
    fn blocking_skip(&mut self, self_: Resource<DynInputStream>, len: u64) -> StreamResult<u64> {
        in_tokio(async_io::streams::HostInputStream::blocking_skip(self, self_, len))
    }
    fn subscribe(&mut self, self_: Resource<DynInputStream>) -> anyhow::Result<Resource<DynPollable>> {
        async_io::streams::HostInputStream::subscribe(self, self_)
    }
    fn drop(&mut self, rep: Resource<DynInputStream>) -> anyhow::Result<()> {
        in_tokio(async_io::streams::HostInputStream::drop(self, rep))
    }
}

impl streams::HostOutputStream for ResourceTable {
    fn check_write(&mut self, self_: Resource<DynOutputStream>) -> StreamResult<u64> {
        async_io::streams::HostOutputStream::check_write(self, self_)
    }
    fn write(&mut self, self_: Resource<DynOutputStream>, contents: Vec<u8>) -> StreamResult<()> {
        async_io::streams::HostOutputStream::write(self, self_, contents)
    }
    fn blocking_write_and_flush(&mut self, self_: Resource<DynOutputStream>, contents: Vec<u8>) -> StreamResult<()> {
        in_tokio(async_io::streams::HostOutputStream::blocking_write_and_flush(
            self, self_, contents,
        ))
    }
    fn flush(&mut self, self_: Resource<DynOutputStream>) -> StreamResult<()> {
        async_io::streams::HostOutputStream::flush(self, self_)
    }
    fn blocking_flush(&mut self, self_: Resource<DynOutputStream>) -> StreamResult<()> {
        in_tokio(async_io::streams::HostOutputStream::blocking_flush(self, self_))
    }
    fn subscribe(&mut self, self_: Resource<DynOutputStream>) -> anyhow::Result<Resource<DynPollable>> {
        async_io::streams::HostOutputStream::subscribe(self, self_)
    }
    fn write_zeroes(&mut self, self_: Resource<DynOutputStream>, len: u64) -> StreamResult<()> {
        async_io::streams::HostOutputStream::write_zeroes(self, self_, len)
    }
    fn blocking_write_zeroes_and_flush(&mut self, self_: Resource<DynOutputStream>, len: u64) -> StreamResult<()> {
        in_tokio(async_io::streams::HostOutputStream::blocking_write_zeroes_and_flush(
            self, self_, len,
        ))
    }
    fn splice(
        &mut self,
        self_: Resource<DynOutputStream>,
        src: Resource<DynInputStream>,
        len: u64,
    ) -> StreamResult<u64> {
        async_io::streams::HostOutputStream::splice(self, self_, src, len)
    }
    fn blocking_splice(
        &mut self,
        self_: Resource<DynOutputStream>,
        src: Resource<DynInputStream>,
        len: u64,
    ) -> StreamResult<u64> {
        in_tokio(async_io::streams::HostOutputStream::blocking_splice(
            self, self_, src, len,
        ))
    }
    fn drop(&mut self, rep: Resource<DynOutputStream>) -> anyhow::Result<()> {
        in_tokio(async_io::streams::HostOutputStream::drop(self, rep))
    }
}

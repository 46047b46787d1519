//! The stream and pollable API of `weft_wasi::p2` as Wasmtime 48's
//! `wasmtime_wasi::p2` (and `wasmtime_wasi_io`) has it, used the way an
//! embedder uses it: its own `#[async_trait]` pollable resource with
//! `subscribe`, the pipes of `p2::pipe` as streams, the tokio adapters
//! `AsyncReadStream`/`AsyncWriteStream`, and `runtime::in_tokio`.

#![cfg(feature = "p2")]

use bytes::Bytes;
use std::any::Any;
use weft::component::{Resource, ResourceTable};
use weft_wasi::p2::bindings::wasi::io::poll::{Host as _, HostPollable};
use weft_wasi::p2::pipe::{
    AsyncReadStream, AsyncWriteStream, ClosedInputStream, ClosedOutputStream, MemoryInputPipe, MemoryOutputPipe,
    SinkOutputStream,
};
use weft_wasi::p2::{
    subscribe, DynFuture, DynInputStream, DynOutputStream, DynPollable, InputStream, MakeFuture, OutputStream,
    Pollable, StreamError, WasiCtxView,
};
use weft_wasi::runtime::{in_tokio, poll_noop};
use weft_wasi::WasiCtxBuilder;

/// An embedder's resource that is ready once its channel gets a value.
struct Signal(tokio::sync::watch::Receiver<bool>);

#[weft_wasi::async_trait]
impl Pollable for Signal {
    async fn ready(&mut self) {
        let _ = self.0.wait_for(|set| *set).await;
    }
}

fn borrow<T: 'static>(r: &Resource<T>) -> Resource<T> {
    Resource::new_borrow(r.rep())
}

#[test]
fn poll_waits_for_an_embedders_pollable_and_reports_the_ready_ones() -> anyhow::Result<()> {
    let mut ctx = WasiCtxBuilder::new().build();
    let mut table = ResourceTable::new();
    let (tx, rx) = tokio::sync::watch::channel(false);
    let signal = table.push(Signal(rx))?;
    let (_never_tx, never_rx) = tokio::sync::watch::channel(false);
    let never = table.push(Signal(never_rx))?;
    let p_signal = subscribe(&mut table, borrow(&signal))?;
    let p_never = subscribe(&mut table, borrow(&never))?;
    let v = WasiCtxView {
        ctx: &mut ctx,
        table: &mut table,
    };
    // `wasi:io`'s host functions see the resource table alone (as
    // `wasmtime_wasi_io`'s, implemented for `ResourceTable`).
    assert!(!in_tokio(HostPollable::ready(&mut *v.table, borrow(&p_signal)))?);
    // Another thread sets the signal; the poll is woken by it.
    let setter = std::thread::spawn(move || tx.send(true));
    let ready = in_tokio(
        v.table
            .poll(vec![borrow(&p_never), borrow(&p_signal), borrow(&p_signal)]),
    )?;
    assert_eq!(ready, vec![1, 2]);
    setter.join().expect("the setter ends")?;
    assert!(in_tokio(HostPollable::ready(&mut *v.table, borrow(&p_signal)))?);
    // An empty list is an error, not a wait forever.
    assert!(in_tokio(v.table.poll(Vec::new())).is_err());

    // A resource cannot go while its pollable lives; a pollable made
    // from an owned handle takes the resource with it.
    HostPollable::drop(&mut *v.table, p_signal)?;
    HostPollable::drop(&mut *v.table, p_never)?;
    let p_owned = subscribe(v.table, signal)?;
    HostPollable::drop(&mut *v.table, p_owned)?;
    assert!(v.table.get(&signal).is_err());
    assert!(v.table.get(&never).is_ok());
    Ok(())
}

#[test]
fn the_future_types_are_wasmtimes() {
    // `MakeFuture` makes a `DynFuture` of a resource's value.
    fn make<'a>(r: &'a mut dyn Any) -> DynFuture<'a> {
        match r.downcast_mut::<u32>() {
            Some(n) => Box::pin(async move { *n += 1 }),
            None => Box::pin(async {}),
        }
    }
    let f: MakeFuture = make;
    let mut n = 41u32;
    let mut fut = f(&mut n);
    assert_eq!(poll_noop(fut.as_mut()), Some(()));
    drop(fut);
    assert_eq!(n, 42);
    // `DynPollable` is the resource type of `wasi:io/poll.pollable`.
    let _: Option<Resource<DynPollable>> = None;
}

#[test]
fn memory_pipes_are_streams() -> anyhow::Result<()> {
    let mut input: DynInputStream = Box::new(MemoryInputPipe::new("abcdef"));
    assert_eq!(input.read(4).map_err(anyhow::Error::from)?, Bytes::from("abcd"));
    assert_eq!(
        in_tokio(input.blocking_read(10)).map_err(anyhow::Error::from)?,
        Bytes::from("ef")
    );
    assert!(matches!(input.read(1), Err(StreamError::Closed)));

    let pipe = MemoryOutputPipe::new(5);
    let mut output: DynOutputStream = Box::new(pipe.clone());
    assert_eq!(output.check_write().map_err(anyhow::Error::from)?, 5);
    in_tokio(output.blocking_write_and_flush(Bytes::from("hey"))).map_err(anyhow::Error::from)?;
    assert_eq!(output.check_write().map_err(anyhow::Error::from)?, 2);
    let err = output.write(Bytes::from("toolong")).unwrap_err();
    assert_eq!(err.to_string(), "trap: write beyond capacity of MemoryOutputPipe");
    output.write(Bytes::from("yo")).map_err(anyhow::Error::from)?;
    assert!(matches!(output.check_write(), Err(StreamError::Closed)));
    assert_eq!(&pipe.contents()[..], b"heyyo");

    assert!(matches!(ClosedInputStream.read(1), Err(StreamError::Closed)));
    assert!(matches!(ClosedOutputStream.check_write(), Err(StreamError::Closed)));
    SinkOutputStream
        .write(Bytes::from("gone"))
        .map_err(anyhow::Error::from)?;
    assert_eq!(StreamError::trap("boom").to_string(), "trap: boom");
    Ok(())
}

#[test]
fn tokio_readers_and_writers_are_streams() -> anyhow::Result<()> {
    // A duplex pipe: the guest's side reads what a thread of the embedder
    // writes later, woken by tokio's waker.
    let (ours, theirs) = tokio::io::duplex(64);
    let (their_read, mut their_write) = tokio::io::split(theirs);
    let (our_read, our_write) = tokio::io::split(ours);
    let mut input = AsyncReadStream::new(our_read);
    let mut output = AsyncWriteStream::new(16, our_write);
    assert_eq!(input.read(10).map_err(anyhow::Error::from)?, Bytes::new());
    let writer = std::thread::spawn(move || {
        in_tokio(async {
            use tokio::io::AsyncWriteExt;
            their_write.write_all(b"from the host").await?;
            their_write.shutdown().await
        })
    });
    let mut got = Vec::new();
    loop {
        match in_tokio(input.blocking_read(100)) {
            Ok(b) => got.extend_from_slice(&b),
            Err(StreamError::Closed) => break,
            Err(e) => return Err(e.into()),
        }
    }
    writer.join().expect("the writer ends")?;
    assert_eq!(got, b"from the host");

    // Writes go out as the reader takes them; more than the budget at
    // once is refused.
    assert_eq!(output.check_write().map_err(anyhow::Error::from)?, 16);
    assert!(output.write(Bytes::from(vec![0; 17])).is_err());
    in_tokio(output.blocking_write_and_flush(Bytes::from("to the host"))).map_err(anyhow::Error::from)?;
    let mut their_read = their_read;
    let mut buf = [0u8; 11];
    in_tokio(async {
        use tokio::io::AsyncReadExt;
        their_read.read_exact(&mut buf).await
    })?;
    assert_eq!(&buf, b"to the host");
    Ok(())
}

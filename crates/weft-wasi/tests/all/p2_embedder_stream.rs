//! An embedder's own standard output, written in Wasmtime 48's form — an
//! `#[async_trait]` `Pollable` and `OutputStream`, and a `StdoutStream`
//! with `IsTerminal`, `async_stream` and `p2_stream` — given to
//! `WasiCtxBuilder::stdout`, receives what a WASI 0.2 guest prints, with
//! the synchronous and the async linker. The stream takes 4 bytes at a
//! time and has room again only when a consumer thread, asked by
//! `ready()`, took them: the guest's `blocking-write-and-flush` waits on
//! `ready()` and is woken by the consumer.

#![cfg(feature = "p2")]

use crate::common::State;
use crate::p2_guest;

use std::sync::{mpsc, Arc, Mutex};
use weft::component::{Component, Linker, ResourceTable};
use weft::{Engine, Store};
use weft_wasi::p2::{OutputStream, Pollable, StreamError, StreamResult};
use weft_wasi::{IsTerminal, StdoutStream, WasiCtxBuilder};

/// How many bytes the stream takes before the consumer must catch up.
const ROOM: usize = 4;

/// The embedder's stream: bytes go to a consumer thread through a
/// channel; `credit` counts the room left, which the consumer gives back
/// when `want` asks for it.
struct SlowStream {
    tx: mpsc::Sender<bytes::Bytes>,
    want: mpsc::Sender<()>,
    credit: Arc<tokio::sync::Semaphore>,
    waits: Arc<Mutex<u32>>,
}

#[weft_wasi::async_trait]
impl Pollable for SlowStream {
    async fn ready(&mut self) {
        if self.credit.available_permits() == 0 {
            *self.waits.lock().unwrap() += 1;
            let _ = self.want.send(());
        }
        // Ready once there is room (the permit goes back at once).
        let _ = self.credit.acquire().await;
    }
}

#[weft_wasi::async_trait]
impl OutputStream for SlowStream {
    fn write(&mut self, bytes: bytes::Bytes) -> StreamResult<()> {
        let n = u32::try_from(bytes.len()).map_err(|_| StreamError::trap("too long"))?;
        match self.credit.try_acquire_many(n) {
            Ok(permits) => permits.forget(),
            Err(_) => return Err(StreamError::trap("write of more than check-write allowed")),
        }
        self.tx.send(bytes).map_err(|_| StreamError::Closed)
    }
    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }
    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(self.credit.available_permits())
    }
}

/// The `StdoutStream` of the context: each guest stream shares the
/// channel and the room.
struct SlowStdout {
    tx: Mutex<(mpsc::Sender<bytes::Bytes>, mpsc::Sender<()>)>,
    credit: Arc<tokio::sync::Semaphore>,
    waits: Arc<Mutex<u32>>,
}

impl IsTerminal for SlowStdout {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for SlowStdout {
    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        // Not used by WASI 0.2 (preview1 would write here).
        Box::new(tokio::io::sink())
    }
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        let (tx, want) = self.tx.lock().unwrap().clone();
        Box::new(SlowStream {
            tx,
            want,
            credit: self.credit.clone(),
            waits: self.waits.clone(),
        })
    }
}

/// The output the guest printed and how often it waited for room.
fn run_hello(use_async: bool) -> weft::Result<(String, u32)> {
    let (tx, rx) = mpsc::channel::<bytes::Bytes>();
    let (want_tx, want_rx) = mpsc::channel::<()>();
    let credit = Arc::new(tokio::sync::Semaphore::new(ROOM));
    let waits = Arc::new(Mutex::new(0));
    // The consumer: when the stream asks for room, takes the bytes written
    // so far and gives their room back.
    let consumer = {
        let credit = credit.clone();
        std::thread::spawn(move || {
            let mut got = Vec::new();
            for () in want_rx {
                let taken: Vec<bytes::Bytes> = rx.try_iter().collect();
                for b in taken {
                    got.extend_from_slice(&b);
                    credit.add_permits(b.len());
                }
            }
            got.extend(rx.into_iter().flatten());
            got
        })
    };
    let stdout = SlowStdout {
        tx: Mutex::new((tx, want_tx)),
        credit,
        waits: waits.clone(),
    };
    let engine = Engine::default();
    let component = Component::new(&engine, wat::parse_str(p2_guest::component("0.2.12", p2_guest::HELLO))?)?;
    let mut linker = Linker::<State>::new(&engine);
    let ctx = WasiCtxBuilder::new().arg("embedder").stdout(stdout).build();
    let mut store = Store::new(
        &engine,
        State {
            ctx,
            table: ResourceTable::new(),
        },
    );
    let result = if use_async {
        weft_wasi::p2::add_to_linker_async(&mut linker)?;
        weft_wasi::runtime::in_tokio(async {
            let command = weft_wasi::p2::bindings::Command::instantiate_async(&mut store, &component, &linker).await?;
            command.wasi_cli_run().call_run(&mut store).await
        })?
    } else {
        weft_wasi::p2::add_to_linker_sync(&mut linker)?;
        let command = weft_wasi::p2::bindings::sync::Command::instantiate(&mut store, &component, &linker)?;
        command.wasi_cli_run().call_run(&mut store)?
    };
    assert_eq!(result, Ok(()));
    // The store holds the last senders: the consumer ends with them.
    drop(store);
    let got = consumer.join().expect("the consumer thread ends");
    let waits = *waits.lock().unwrap();
    Ok((String::from_utf8(got)?, waits))
}

#[test]
fn an_embedder_stream_in_wasmtimes_form_is_the_guests_stdout() -> weft::Result<()> {
    for use_async in [false, true] {
        let (out, waits) = run_hello(use_async)?;
        assert_eq!(out, "hello from a component\nembedder\n", "async: {use_async}");
        // "hello from a component\n" is longer than the stream's room: the
        // guest waited for the consumer at least once.
        assert!(waits >= 1, "async: {use_async}: the guest never waited for room");
    }
    Ok(())
}

/// `cli::AsyncStdinStream` and `cli::AsyncStdoutStream` over tokio pipes
/// whose other ends are written and read by threads of the embedder: the
/// guest copies its stdin to its stdout, waiting for each.
#[test]
fn async_stdin_and_stdout_over_tokio_pipes() -> weft::Result<()> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use weft_wasi::cli::{AsyncStdinStream, AsyncStdoutStream};
    let (guest_in, mut host_out) = tokio::io::duplex(16);
    let (guest_out, mut host_in) = tokio::io::duplex(16);
    let input = "a line that is longer than the pipes' buffers\n".repeat(20);
    let feeder = {
        let input = input.clone();
        std::thread::spawn(move || {
            weft_wasi::runtime::in_tokio(async move {
                host_out.write_all(input.as_bytes()).await?;
                host_out.shutdown().await
            })
        })
    };
    let reader = std::thread::spawn(move || {
        weft_wasi::runtime::in_tokio(async move {
            let mut got = Vec::new();
            host_in.read_to_end(&mut got).await.map(|_| got)
        })
    });
    let engine = Engine::default();
    let component = Component::new(&engine, wat::parse_str(p2_guest::component("0.2.12", p2_guest::CAT))?)?;
    let mut linker = Linker::<State>::new(&engine);
    weft_wasi::p2::add_to_linker_sync(&mut linker)?;
    let ctx = WasiCtxBuilder::new()
        .stdin(AsyncStdinStream::new(guest_in))
        .stdout(AsyncStdoutStream::new(8, guest_out))
        .stderr(std::io::empty())
        .build();
    let mut store = Store::new(
        &engine,
        State {
            ctx,
            table: ResourceTable::new(),
        },
    );
    let command = weft_wasi::p2::bindings::sync::Command::instantiate(&mut store, &component, &linker)?;
    assert_eq!(command.wasi_cli_run().call_run(&mut store)?, Ok(()));
    // The store holds the writer: the reader's end closes with it.
    drop(store);
    feeder.join().expect("the feeder ends")?;
    let got = reader.join().expect("the reader ends")?;
    assert_eq!(String::from_utf8(got)?, input);
    Ok(())
}

/// Timers with the async linker under an executor that is not tokio's
/// (a thread parked until a waker fires): the guest's `poll` of a 60 s
/// and a 5 ms timer is woken by the 5 ms one.
#[test]
fn timers_wake_an_async_guest_under_any_executor() -> weft::Result<()> {
    use std::future::Future;
    use std::task::{Context, Poll, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    fn block_on<F: Future>(fut: F) -> F::Output {
        let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        let mut cx = Context::from_waker(&waker);
        let mut fut = std::pin::pin!(fut);
        loop {
            if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
                return v;
            }
            std::thread::park();
        }
    }
    let engine = Engine::default();
    let component = Component::new(
        &engine,
        wat::parse_str(p2_guest::component("0.2.12", p2_guest::CLOCKS))?,
    )?;
    let mut linker = Linker::<State>::new(&engine);
    weft_wasi::p2::add_to_linker_async(&mut linker)?;
    let stdout = weft_wasi::MemoryOutputPipe::new(1 << 16);
    let ctx = WasiCtxBuilder::new().stdout(stdout.clone()).build();
    let mut store = Store::new(
        &engine,
        State {
            ctx,
            table: ResourceTable::new(),
        },
    );
    let result = block_on(async {
        let command = weft_wasi::p2::bindings::Command::instantiate_async(&mut store, &component, &linker).await?;
        command.wasi_cli_run().call_run(&mut store).await
    })?;
    assert_eq!(result, Ok(()));
    assert_eq!(&stdout.contents()[..], b"wall ok\nslept\npoll 1 1\nrandom 16\n");
    Ok(())
}

//! `add_to_linker_async`: the same programs under `call_async`, driven by a
//! small executor; a `poll_oneoff` sleep suspends the guest instead of
//! blocking the thread.

use crate::common;

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use weft::{Config, Engine, Linker, Module, Store};
use weft_wasi::preview1::{self, WasiP1Ctx};
use weft_wasi::{I32Exit, MemoryInputPipe, MemoryOutputPipe, WasiCtxBuilder};

struct ThreadWaker(std::thread::Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs `fut` to completion on this thread; returns it with the number of
/// times it was pending.
fn block_on<F: Future>(fut: F) -> (F::Output, usize) {
    let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut fut = pin!(fut);
    let mut pending = 0;
    loop {
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(v) => return (v, pending),
            Poll::Pending => {
                pending += 1;
                std::thread::park();
            }
        }
    }
}

fn run_async(name: &str, builder: &mut WasiCtxBuilder) -> (anyhow::Result<()>, String, usize) {
    let stdout = MemoryOutputPipe::new(1 << 20);
    builder.stdout(stdout.clone());
    let config = Config::new();
    let engine = Engine::new(&config).unwrap();
    let mut linker: Linker<WasiP1Ctx> = Linker::new(&engine);
    preview1::add_to_linker_async(&mut linker, |t| t).unwrap();
    let module = Module::from_file(&engine, common::wat_path(name)).unwrap();
    let mut store = Store::new(&engine, builder.build_p1());
    let (result, pending) = block_on(async {
        let instance = linker.instantiate_async(&mut store, &module).await?;
        let start = instance.get_typed_func::<(), ()>(&mut store, "_start")?;
        start.call_async(&mut store, ()).await
    });
    (
        result,
        String::from_utf8_lossy(&stdout.contents()).into_owned(),
        pending,
    )
}

#[test]
fn clocks_and_poll_suspend_instead_of_blocking() {
    let (result, stdout, pending) = run_async(
        "clocks_poll.wat",
        WasiCtxBuilder::new().stdin(MemoryInputPipe::new("x")),
    );
    assert!(result.is_ok(), "{result:?}\n{stdout}");
    // The same output as the sync host (see programs.rs).
    assert!(
        stdout.starts_with("yes\nyes\nyes\nyes\nyes\n28\n28\n1\n42\n0\n0\nyes\n"),
        "{stdout}"
    );
    // The 20 ms sleep suspended the call at least once.
    assert!(pending >= 1, "the guest never suspended");
}

#[test]
fn files_and_exit_status() {
    let dir = common::temp_dir();
    let (result, stdout, _) = run_async(
        "files.wat",
        WasiCtxBuilder::new()
            .preopened_dir(dir.path(), ".", weft_wasi::FsPerms::ReadWrite)
            .unwrap(),
    );
    assert!(result.is_ok(), "{result:?}\n{stdout}");
    assert!(stdout.ends_with("hello++\n"), "{stdout}");

    let (result, stdout, _) = run_async("args_env.wat", WasiCtxBuilder::new().args(&["a", "b"]));
    assert_eq!(stdout, "a\nb\n");
    let err = result.unwrap_err();
    assert_eq!(err.downcast_ref::<I32Exit>(), Some(&I32Exit(2)), "{err:?}");
}

//! The cost of calls across the boundary, sync and async: an empty
//! host-to-wasm call, a wasm-to-host call, and their async forms.
//! Run with `cargo bench -p weft --bench calls`. Prints the median time per
//! call over repeated batches, with the spread (min..max of the batches).

use std::future::Future;
use std::hint::black_box;
use std::task::{Context, Poll, Waker};
use std::time::Instant;
use weft::*;

fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// Median, min and max nanoseconds per iteration over `batches` batches.
fn measure(name: &str, batches: usize, iters: usize, mut f: impl FnMut()) {
    for _ in 0..iters / 10 + 1 {
        f();
    }
    let mut per_iter: Vec<f64> = (0..batches)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..iters {
                f();
            }
            start.elapsed().as_nanos() as f64 / iters as f64
        })
        .collect();
    per_iter.sort_by(|a, b| a.total_cmp(b));
    let median = per_iter[per_iter.len() / 2];
    println!(
        "{name:<32} {median:>9.1} ns/call   (spread {:.1}..{:.1})",
        per_iter[0],
        per_iter[per_iter.len() - 1]
    );
}

fn main() -> Result<()> {
    let config = Config::new();
    let engine = Engine::new(&config)?;
    let module = Module::new(
        &engine,
        r#"(module
            (import "host" "nop" (func $nop))
            (import "host" "nop_async" (func $nop_async))
            (func (export "empty"))
            (func (export "call_host") call $nop)
            (func (export "call_host_async") call $nop_async))"#,
    )?;
    let mut linker = Linker::<()>::new(&engine);
    linker.func_wrap("host", "nop", || {})?;
    linker.func_wrap_async("host", "nop_async", |_c: Caller<'_, ()>, (): ()| Box::new(async {}))?;
    let mut store = Store::new(&engine, ());
    let instance = linker.instantiate(&mut store, &module)?;
    let empty = instance.get_typed_func::<(), ()>(&mut store, "empty")?;
    let call_host = instance.get_typed_func::<(), ()>(&mut store, "call_host")?;
    let call_host_async = instance.get_typed_func::<(), ()>(&mut store, "call_host_async")?;

    let (batches, iters) = (21, 20_000);
    measure("sync: empty host-to-wasm call", batches, iters, || {
        black_box(empty.call(&mut store, ())).unwrap();
    });
    measure("sync: wasm-to-host call", batches, iters, || {
        black_box(call_host.call(&mut store, ())).unwrap();
    });
    measure("async: empty call_async", batches, iters / 4, || {
        black_box(block_on(empty.call_async(&mut store, ()))).unwrap();
    });
    measure("async: async host call", batches, iters / 4, || {
        black_box(block_on(call_host_async.call_async(&mut store, ()))).unwrap();
    });
    Ok(())
}

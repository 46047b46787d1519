//! The drop-safety guarantee, checked over many random sequences: starting
//! async calls, polling them any number of times, dropping them at any
//! suspension point (async host function, fuel yield, epoch yield), making
//! sync calls in between, and panicking host functions never panic the
//! runtime, never leak a fiber stack, and every call that completes returns
//! the right result.

#![cfg(feature = "async")]

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use weft::*;

/// A deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

struct PendingTimes(u32);

impl Future for PendingTimes {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 == 0 {
            Poll::Ready(())
        } else {
            self.0 -= 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

const MODULE: &str = r#"(module
    (import "host" "wait" (func $wait (param i32) (result i32)))
    (import "host" "boom" (func $boom (param i32)))
    (func (export "wait") (param i32) (result i32) local.get 0 call $wait i32.const 1 i32.add)
    (func (export "twice") (param i32) (result i32) local.get 0 call $wait local.get 0 call $wait i32.add)
    (func (export "count") (param i32) (result i32)
      (loop $l local.get 0 i32.const 1 i32.sub local.tee 0 br_if $l) local.get 0)
    (func (export "trap") (param i32) (result i32) unreachable)
    (func (export "boom") (param i32) (result i32) local.get 0 call $boom local.get 0))"#;

/// What each export returns for argument `n` (None: traps or panics).
fn expected(name: &str, n: i32) -> Option<i32> {
    match name {
        "wait" => Some(n * 10 + 1),
        "twice" => Some(n * 20),
        "count" => Some(0),
        "boom" if n % 2 == 0 => Some(n),
        _ => None,
    }
}

#[test]
fn random_sequences_of_start_poll_drop_and_call() -> Result<()> {
    // The host function `boom` panics on purpose; keep the output readable.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.to_string().contains("host panic for") {
            default_hook(info);
        }
    }));
    let mut config = Config::new();
    config.consume_fuel(true).epoch_interruption(true);
    let engine = Engine::new(&config)?;
    let module = Module::new(&engine, wat::parse_str(MODULE)?)?;
    let mut linker = Linker::<()>::new(&engine);
    linker.func_wrap_async("host", "wait", |_c: Caller<'_, ()>, (n,): (i32,)| {
        Box::new(async move {
            PendingTimes(n as u32 % 4).await;
            n * 10
        })
    })?;
    linker.func_wrap("host", "boom", |n: i32| {
        if n % 2 == 1 {
            panic!("host panic for {n}");
        }
    })?;
    let names = ["wait", "twice", "count", "trap", "boom"];
    let mut rng = Rng(0x5eed_0000_0000_0001);
    let waker = Waker::noop();
    let mut completed = 0usize;
    let mut dropped = 0usize;
    const SEQUENCES: usize = 10_000;
    for seq in 0..SEQUENCES {
        let mut store = Store::new(&engine, ());
        store.set_fuel(1_000_000)?;
        store.fuel_async_yield_interval(Some(50 + rng.below(200)))?;
        store.set_epoch_deadline(1 + rng.below(3));
        store.epoch_deadline_async_yield_and_update(1);
        let instance = {
            let mut fut = Box::pin(linker.instantiate_async(&mut store, &module));
            let mut cx = Context::from_waker(waker);
            loop {
                if let Poll::Ready(r) = fut.as_mut().poll(&mut cx) {
                    break r?;
                }
            }
        };
        for _ in 0..1 + rng.below(5) {
            let name = names[rng.below(names.len() as u64) as usize];
            let n = rng.below(40) as i32 + 1;
            let f = instance.get_typed_func::<i32, i32>(&mut store, name)?;
            match rng.below(4) {
                // A sync call in between: works, or fails cleanly.
                0 => {
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f.call(&mut store, n)));
                    if let Ok(Ok(v)) = r {
                        assert_eq!(Some(v), expected(name, n), "sync {name}({n})");
                    }
                }
                // Start, poll a few times (ticking the epoch), drop.
                _ => {
                    let polls = rng.below(12) as usize;
                    let mut fut = Box::pin(f.call_async(&mut store, n));
                    let mut cx = Context::from_waker(waker);
                    let mut outcome = None;
                    for _ in 0..polls {
                        if rng.below(3) == 0 {
                            engine.increment_epoch();
                        }
                        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| fut.as_mut().poll(&mut cx)));
                        match r {
                            Ok(Poll::Ready(v)) => {
                                outcome = Some(v);
                                break;
                            }
                            Ok(Poll::Pending) => {}
                            Err(_) => {
                                assert_eq!(name, "boom", "only the panicking host function panics");
                                outcome = Some(Err(format_err!("panicked")));
                                break;
                            }
                        }
                    }
                    drop(fut);
                    match outcome {
                        Some(Ok(v)) => {
                            completed += 1;
                            assert_eq!(Some(v), expected(name, n), "async {name}({n}) in sequence {seq}");
                        }
                        Some(Err(_)) => assert!(expected(name, n).is_none() || name == "boom", "{name}({n}) failed"),
                        None => dropped += 1,
                    }
                }
            }
            assert_eq!(
                engine.async_stacks_in_use(),
                0,
                "a fiber stack leaked in sequence {seq}"
            );
        }
        // After everything, the store still runs calls normally.
        store.set_fuel(1_000_000)?;
        store.set_epoch_deadline(1_000_000);
        let wait = instance.get_typed_func::<i32, i32>(&mut store, "count")?;
        assert_eq!(wait.call(&mut store, 5)?, 0);
    }
    eprintln!("{SEQUENCES} sequences: {completed} async calls completed, {dropped} dropped while pending");
    assert!(
        completed > 1000 && dropped > 1000,
        "completed {completed}, dropped {dropped}"
    );
    Ok(())
}

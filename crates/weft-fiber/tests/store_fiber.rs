//! `StoreFiber`: fibers that borrow a store only while they run.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use weft_fiber::{on_fiber, FiberPool, StoreFiber, SuspendError};

#[derive(Default)]
struct Store {
    log: Vec<&'static str>,
}

#[test]
fn many_fibers_suspend_over_one_store() {
    let pool = Arc::new(FiberPool::new(1 << 20));
    let mut store = Store::default();
    let mut a = StoreFiber::new(&pool, |s: &mut Store, suspender| {
        s.log.push("a1");
        suspender.suspend(s).unwrap();
        s.log.push("a2");
    })
    .unwrap();
    let mut b = StoreFiber::new(&pool, |s: &mut Store, suspender| {
        s.log.push("b1");
        suspender.suspend(s).unwrap();
        s.log.push("b2");
    })
    .unwrap();
    assert!(!a.resume(&mut store));
    assert!(!b.resume(&mut store));
    store.log.push("host");
    assert!(b.resume(&mut store));
    assert!(a.resume(&mut store));
    assert_eq!(store.log, ["a1", "b1", "host", "b2", "a2"]);
    assert!(a.is_done() && b.is_done());
    // Resuming a finished fiber does nothing.
    assert!(a.resume(&mut store));
    drop((a, b));
    assert_eq!(pool.stacks_in_use(), 0);
}

#[test]
fn cancelling_a_suspended_fiber_unwinds_it() {
    let pool = Arc::new(FiberPool::new(1 << 20));
    let mut store = Store::default();
    let mut f = StoreFiber::new(&pool, |s: &mut Store, suspender| loop {
        match suspender.suspend(s) {
            Ok(()) => s.log.push("woken"),
            Err(e) => {
                assert_eq!(e, SuspendError::Cancelled);
                s.log.push("cancelled");
                return;
            }
        }
    })
    .unwrap();
    assert!(!f.resume(&mut store));
    assert!(!f.resume(&mut store));
    assert!(f.cancel(&mut store));
    assert_eq!(store.log, ["woken", "cancelled"]);
    drop(f);
    assert_eq!(pool.stacks_in_use(), 0);
}

#[test]
fn a_suspender_used_off_its_fiber_fails_safely() {
    let pool = Arc::new(FiberPool::new(1 << 20));
    let mut store = Store::default();
    let mut outer_suspender = None;
    let mut f = StoreFiber::new(&pool, |_: &mut Store, _| {}).unwrap();
    outer_suspender.get_or_insert(f.suspender());
    // Not running: suspending from here would switch away from this stack.
    assert_eq!(
        outer_suspender.unwrap().suspend(&mut store),
        Err(SuspendError::NotOnFiber)
    );
    assert!(f.resume(&mut store));
    // A fiber that never ran is dropped without leaking its stack.
    let never = StoreFiber::new(&pool, |_: &mut Store, _| {}).unwrap();
    drop(never);
    drop(f);
    assert_eq!(pool.stacks_in_use(), 0);
}

/// An async call's fiber cannot be suspended while a store fiber runs on top
/// of it: the wait fails instead of switching stacks from the wrong one.
#[test]
fn an_async_wait_under_a_store_fiber_fails_safely() {
    let pool = Arc::new(FiberPool::new(1 << 20));
    let inner_pool = pool.clone();
    let mut fut = on_fiber(&pool, move |cx| {
        let cx = cx.clone();
        let mut store = Store::default();
        let mut inner = StoreFiber::new(&inner_pool, move |s: &mut Store, _| {
            struct Never;
            impl Future for Never {
                type Output = ();
                fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
                    Poll::Pending
                }
            }
            let mut never = Never;
            let r = cx.block_on(Pin::new(&mut never));
            s.log.push(if r.is_err() { "refused" } else { "waited" });
        })
        .unwrap();
        assert!(inner.resume(&mut store));
        store.log
    })
    .unwrap();
    let mut cx = Context::from_waker(Waker::noop());
    match Pin::new(&mut fut).poll(&mut cx) {
        Poll::Ready(log) => assert_eq!(log, ["refused"]),
        Poll::Pending => panic!("the inner wait suspended the outer fiber"),
    }
}

/// A fiber whose body returned runs another body on the same stack, and a
/// fiber that was cancelled is not reused.
#[test]
fn a_finished_fiber_runs_the_next_body() {
    let pool = Arc::new(FiberPool::new(1 << 20));
    let mut store = Store::default();
    let mut f = StoreFiber::new(&pool, |s: &mut Store, suspender| {
        s.log.push("first");
        suspender.suspend(s).unwrap();
        s.log.push("first again");
    })
    .unwrap();
    // Not finished yet: no new body.
    assert!(f.reuse(Box::new(|_: &mut Store, _| {})).is_err());
    assert!(!f.resume(&mut store));
    assert!(f.resume(&mut store));
    assert!(f.is_done());
    assert_eq!(pool.stacks_in_use(), 1);
    f.reuse(Box::new(|s: &mut Store, suspender| {
        s.log.push("second");
        suspender.suspend(s).unwrap();
        s.log.push("second again");
    }))
    .unwrap_or_else(|_| panic!("a finished fiber takes a new body"));
    assert!(!f.is_done());
    assert!(!f.resume(&mut store));
    assert!(f.resume(&mut store));
    // Still one stack: the second body ran on the first one's.
    assert_eq!(pool.stacks_in_use(), 1);
    f.reuse(Box::new(|s: &mut Store, suspender| {
        s.log.push("third");
        let _ = suspender.suspend(s);
    }))
    .unwrap_or_else(|_| panic!("a finished fiber takes a new body"));
    assert!(!f.resume(&mut store));
    assert!(f.cancel(&mut store));
    assert!(
        f.reuse(Box::new(|_: &mut Store, _| {})).is_err(),
        "a cancelled fiber is not reused"
    );
    assert_eq!(store.log, ["first", "first again", "second", "second again", "third"]);
    // An idle fiber is dropped without a store, its stack given back.
    drop(f);
    assert_eq!(pool.stacks_in_use(), 0);
}

/// A body that panics ends its fiber: the panic reaches the resumer, and
/// the fiber takes no other body.
#[test]
fn a_fiber_whose_body_panicked_is_not_reused() {
    let pool = Arc::new(FiberPool::new(1 << 20));
    let mut store = Store::default();
    let mut f = StoreFiber::new(&pool, |_: &mut Store, _| panic!("body failed")).unwrap();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f.resume(&mut store)));
    assert!(r.is_err());
    assert!(f.reuse(Box::new(|_: &mut Store, _| {})).is_err());
    drop(f);
    assert_eq!(pool.stacks_in_use(), 0);
}

//! A lent stack runs one fiber after another without going back to the
//! pool, and goes back when nobody keeps it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use weft_fiber::{on_fiber_lent, FiberPool};

/// A future that is pending once.
struct Once(bool);

impl Future for Once {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            Poll::Pending
        }
    }
}

#[test]
fn a_lent_stack_is_taken_back_and_reused() {
    let pool = Arc::new(FiberPool::new(1 << 20));
    let mut cx = Context::from_waker(Waker::noop());
    let mut stack = pool.lend().unwrap();
    for i in 0..3 {
        let mut fut = on_fiber_lent(stack, move |_| i * 2).unwrap();
        assert!(fut.take_stack().is_none(), "no stack before the fiber is done");
        assert_eq!(Pin::new(&mut fut).poll(&mut cx), Poll::Ready(i * 2));
        stack = fut.take_stack().expect("the stack of a finished fiber");
        assert!(fut.take_stack().is_none(), "the stack is handed back once");
        drop(fut);
        assert_eq!(pool.stacks_in_use(), 1, "the stack stays lent");
        assert_eq!(pool.stacks_pooled(), 0);
    }
    drop(stack);
    assert_eq!(pool.stacks_in_use(), 0);
    assert_eq!(pool.stacks_pooled(), 1);
}

#[test]
fn a_lent_stack_nobody_takes_goes_back_to_the_pool() {
    let pool = Arc::new(FiberPool::new(1 << 20));
    let mut cx = Context::from_waker(Waker::noop());

    // Finished, its stack not taken.
    let mut fut = on_fiber_lent(pool.lend().unwrap(), |_| 1).unwrap();
    assert_eq!(Pin::new(&mut fut).poll(&mut cx), Poll::Ready(1));
    drop(fut);
    assert_eq!(pool.stacks_in_use(), 0);

    // Dropped while suspended: the fiber is cancelled and unwound.
    let mut fut = on_fiber_lent(pool.lend().unwrap(), |cx| {
        let mut once = Once(false);
        cx.block_on(Pin::new(&mut once)).is_err()
    })
    .unwrap();
    assert_eq!(Pin::new(&mut fut).poll(&mut cx), Poll::Pending);
    assert_eq!(pool.stacks_in_use(), 1);
    drop(fut);
    assert_eq!(pool.stacks_in_use(), 0);

    // Never polled.
    let fut = on_fiber_lent(pool.lend().unwrap(), |_| 2).unwrap();
    drop(fut);
    assert_eq!(pool.stacks_in_use(), 0);
    assert_eq!(pool.stacks_pooled(), 1, "one stack served every call");
}

#[test]
fn lending_respects_the_pools_limit() {
    let pool = Arc::new(FiberPool::new(1 << 20).with_max_stacks(1));
    let first = pool.lend().unwrap();
    let err = pool.lend().unwrap_err();
    assert!(format!("{err:#}").contains("total_stacks"), "{err:#}");
    drop(first);
    assert!(pool.lend().is_ok());
}

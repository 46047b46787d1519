//! A panic on a fiber reaches whoever polls its future, and the fiber is cleaned up.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::task::{Context, Poll, Waker};
use weft_fiber::{on_fiber, FiberPool};

#[test]
fn a_panic_caught_and_resumed_on_the_fiber_reaches_the_poller() {
    let pool = FiberPool::new(1 << 20);
    let mut fut = on_fiber(&pool, |_cx| {
        let caught = catch_unwind(|| panic!("inner"));
        let payload = caught.unwrap_err();
        let again = catch_unwind(AssertUnwindSafe(|| resume_unwind(payload)));
        assert!(again.is_err());
        7
    })
    .unwrap();
    let mut cx = Context::from_waker(Waker::noop());
    assert_eq!(std::pin::Pin::new(&mut fut).poll_ready(&mut cx), Poll::Ready(7));
    assert_eq!(pool.stacks_in_use(), 0);
}

trait PollReady: std::future::Future {
    fn poll_ready(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.poll(cx)
    }
}
impl<F: std::future::Future> PollReady for F {}

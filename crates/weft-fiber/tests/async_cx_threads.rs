//! An `AsyncCx` is `Send` and `Sync`, but it only waits on its fiber's own
//! thread while the fiber runs there: elsewhere, or after the fiber ended,
//! its waits fail instead of touching the running poll's context.

use std::future::{ready, Future};
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use weft_fiber::{on_fiber, AsyncCx, FiberPool};

fn poll_once<F: Future>(fut: std::pin::Pin<&mut F>) -> Poll<F::Output> {
    fut.poll(&mut Context::from_waker(Waker::noop()))
}

#[test]
fn an_async_cx_sent_to_another_thread_does_not_wait() {
    let pool = FiberPool::new(1 << 20);
    let kept: std::sync::Mutex<Option<AsyncCx>> = std::sync::Mutex::new(None);
    let mut fut = on_fiber(&pool, |cx| {
        // On the fiber, on its thread: waits work.
        assert_eq!(cx.block_on(pin!(ready(1))), Ok(1));
        let other = cx.clone();
        let from_other_thread = std::thread::spawn(move || {
            let polled = other.poll(pin!(ready(2))).is_err();
            let suspended = other.suspend().is_err();
            (polled, suspended, other.is_cancelled(), other.can_suspend())
        })
        .join()
        .unwrap();
        assert_eq!(from_other_thread, (true, true, false, false));
        *kept.lock().unwrap() = Some(cx.clone());
        // Still usable on its own thread afterwards.
        cx.block_on(pin!(ready(3))).unwrap()
    })
    .unwrap();
    assert_eq!(poll_once(pin!(&mut fut)), Poll::Ready(3));
    // The fiber is over: a kept handle waits on nothing.
    let cx = kept.lock().unwrap().take().unwrap();
    assert!(cx.poll(pin!(ready(4))).is_err());
    assert!(cx.suspend().is_err());
}

//! The result a stream's companion future reports (`future<result<_,
//! error-code>>` of `write-via-stream` and friends).

use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Poll, Waker};

fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A one-shot slot for the result a stream's future reports: set once by
/// the stream's producer or consumer (or, with `Ok`, when it is dropped),
/// read by the future.
pub(crate) struct ResultSlot<E>(Arc<Mutex<SlotState<E>>>);

struct SlotState<E> {
    result: Option<Result<(), E>>,
    waker: Option<Waker>,
}

impl<E> Clone for ResultSlot<E> {
    fn clone(&self) -> Self {
        ResultSlot(self.0.clone())
    }
}

impl<E> Default for ResultSlot<E> {
    fn default() -> Self {
        ResultSlot(Arc::new(Mutex::new(SlotState {
            result: None,
            waker: None,
        })))
    }
}

impl<E: Clone + Send + 'static> ResultSlot<E> {
    /// Sets the result, unless one is set already, and wakes the future.
    pub(crate) fn set(&self, result: Result<(), E>) {
        let waker = {
            let mut s = lock(&self.0);
            if s.result.is_some() {
                return;
            }
            s.result = Some(result);
            s.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// The future of the result.
    pub(crate) fn wait(self) -> impl std::future::Future<Output = weft::Result<Result<(), E>>> + Send {
        std::future::poll_fn(move |cx| {
            let mut s = lock(&self.0);
            match &s.result {
                Some(r) => Poll::Ready(Ok(r.clone())),
                None => {
                    s.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
    }
}

//! A sleep future for the async host that needs no async runtime: a helper
//! thread wakes the task when the time has come.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

/// Completes once its deadline has passed.
pub(crate) struct Sleep {
    deadline: Instant,
    /// The waker to call at the deadline; `None` inside once the helper
    /// thread has woken it. Absent until the first pending poll.
    shared: Option<Arc<Mutex<Option<Waker>>>>,
}

impl Sleep {
    pub(crate) fn new(duration: Duration) -> Sleep {
        let now = Instant::now();
        Sleep {
            deadline: now
                .checked_add(duration)
                .unwrap_or(now + Duration::from_secs(u32::MAX as u64)),
            shared: None,
        }
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if Instant::now() >= self.deadline {
            return Poll::Ready(());
        }
        match &self.shared {
            Some(shared) => {
                let mut slot = shared.lock().unwrap_or_else(|p| p.into_inner());
                *slot = Some(cx.waker().clone());
            }
            None => {
                let shared = Arc::new(Mutex::new(Some(cx.waker().clone())));
                let deadline = self.deadline;
                let for_thread = shared.clone();
                let spawned = std::thread::Builder::new()
                    .name("weft-wasi-sleep".to_string())
                    .spawn(move || {
                        let now = Instant::now();
                        if deadline > now {
                            std::thread::sleep(deadline - now);
                        }
                        let waker = for_thread.lock().unwrap_or_else(|p| p.into_inner()).take();
                        if let Some(w) = waker {
                            w.wake();
                        }
                    });
                if spawned.is_err() {
                    // No thread: block instead, which is still correct.
                    std::thread::sleep(self.deadline.saturating_duration_since(Instant::now()));
                    return Poll::Ready(());
                }
                self.shared = Some(shared);
            }
        }
        Poll::Pending
    }
}

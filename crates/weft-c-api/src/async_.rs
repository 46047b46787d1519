//! `weft/async.h`: call futures polled from C, and async host functions
//! with their continuations.
//!
//! A `weft_call_future_t` is a boxed Rust future that writes its outcome to
//! the out-parameters the host gave when it was made. Polling it once runs
//! the call until it completes or yields (an async host function whose
//! continuation is not done yet, a fuel or epoch yield); the host polls
//! again until it reports completion. The waker is a no-op: the host's
//! poll loop is the only thing that resumes a future.

use crate::error::weft_error_t;
use crate::guard;
use crate::store::Finalizer;
use std::ffi::c_void;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// `weft_call_future_t`: an async call or instantiation in progress.
pub struct weft_call_future_t {
    future: Option<Pin<Box<dyn Future<Output = ()>>>>,
}

impl weft_call_future_t {
    /// A future running `f`.
    pub(crate) fn new(f: impl Future<Output = ()> + 'static) -> Box<weft_call_future_t> {
        Box::new(weft_call_future_t {
            future: Some(Box::pin(f)),
        })
    }
}

/// Stores the outcome `r` in the host's error out-parameter.
pub(crate) fn set_error(error_ret: *mut Option<Box<weft_error_t>>, r: anyhow::Result<()>) {
    if error_ret.is_null() {
        return;
    }
    let e = r.err().map(|error| Box::new(weft_error_t { error }));
    // SAFETY: the C API's contract: `error_ret` is a writable pointer that
    // outlives the future; what it held before is not owned by Weft.
    unsafe { error_ret.write(e) };
}

/// Runs the future until it completes (true) or yields (false). A
/// completed future is not polled again (true again).
#[no_mangle]
pub extern "C" fn weft_call_future_poll(future: Option<&mut weft_call_future_t>) -> bool {
    guard(
        || true,
        || {
            let Some(f) = future else { return true };
            let Some(inner) = f.future.as_mut() else { return true };
            let mut cx = Context::from_waker(Waker::noop());
            match inner.as_mut().poll(&mut cx) {
                Poll::Ready(()) => {
                    f.future = None;
                    true
                }
                Poll::Pending => false,
            }
        },
    )
}

/// Deletes the future (cancelling the call if it has not completed).
#[no_mangle]
pub extern "C" fn weft_call_future_delete(future: Option<Box<weft_call_future_t>>) {
    guard(|| (), || drop(future))
}

/// `weft_func_async_continuation_callback_t`.
pub type weft_func_async_continuation_callback_t = Option<unsafe extern "C" fn(env: *mut c_void) -> bool>;

/// `weft_async_continuation_t`: what an async host function returns to be
/// polled until it reports done.
#[repr(C)]
pub struct weft_async_continuation_t {
    /// Called at each poll; true when the host call finished.
    pub callback: weft_func_async_continuation_callback_t,
    /// The callback's data.
    pub env: *mut c_void,
    /// Frees `env` (may be null).
    pub finalizer: Finalizer,
}

impl weft_async_continuation_t {
    /// An empty continuation (a callback that is immediately done).
    pub(crate) fn empty() -> weft_async_continuation_t {
        weft_async_continuation_t {
            callback: None,
            env: std::ptr::null_mut(),
            finalizer: None,
        }
    }
}

/// Polls a continuation until its callback reports done.
pub(crate) struct Continuation(pub(crate) weft_async_continuation_t);

// SAFETY: the C API's contract: the continuation's data is used only from
// the thread that polls the store's future.
unsafe impl Send for Continuation {}

impl Future for Continuation {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        let Some(cb) = self.0.callback else {
            return Poll::Ready(());
        };
        // SAFETY: the host's continuation callback with its data.
        if unsafe { cb(self.0.env) } {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl Drop for Continuation {
    fn drop(&mut self) {
        if let Some(f) = self.0.finalizer {
            // SAFETY: the finalizer the host gave for this data; runs once.
            unsafe { f(self.0.env) }
        }
    }
}

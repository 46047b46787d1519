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
use crate::host_env::Finalizer;
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

/// `weft_stack_memory_get_callback_t`.
pub type weft_stack_memory_get_callback_t = Option<unsafe extern "C" fn(*mut c_void, *mut usize) -> *mut u8>;

/// `weft_stack_memory_t`: a stack the host made.
#[repr(C)]
pub struct weft_stack_memory_t {
    env: *mut c_void,
    get_stack_memory: weft_stack_memory_get_callback_t,
    finalizer: Finalizer,
}

/// `weft_new_stack_memory_callback_t`.
pub type weft_new_stack_memory_callback_t =
    Option<unsafe extern "C" fn(*mut c_void, usize, bool, *mut weft_stack_memory_t) -> Option<Box<weft_error_t>>>;

/// `weft_stack_creator_t`: the host's maker of stacks.
#[repr(C)]
pub struct weft_stack_creator_t {
    env: *mut c_void,
    new_stack: weft_new_stack_memory_callback_t,
    finalizer: Finalizer,
}

/// A host stack as weft's `StackMemory`: its top and length, asked once.
struct HostStack {
    top: *mut u8,
    len: usize,
    /// Finalizes the host's `env` (and so frees the memory) when dropped.
    _env: crate::host_env::HostEnv,
}

// SAFETY: the C API's contract: the host's stack memory and its finalizer
// may be used from any thread (the callbacks must be thread-safe).
unsafe impl Send for HostStack {}
// SAFETY: as for `Send`; the value is only read.
unsafe impl Sync for HostStack {}

// SAFETY: the host's contract (`weft/async.h`): `top - len .. top` is memory
// it made for this stack, valid until the finalizer runs, which is when this
// value is dropped; weft-fiber checks alignment and size before use.
unsafe impl weft::StackMemory for HostStack {
    fn top(&self) -> *mut u8 {
        self.top
    }
    fn range(&self) -> std::ops::Range<usize> {
        self.top as usize - self.len..self.top as usize
    }
    fn guard_range(&self) -> std::ops::Range<*mut u8> {
        // The host reports no guard pages: an empty range below the stack.
        let bottom = self.top.wrapping_sub(self.len);
        bottom..bottom
    }
}

/// The host's stack creator as weft's `StackCreator`.
struct HostStackCreator {
    new_stack: unsafe extern "C" fn(*mut c_void, usize, bool, *mut weft_stack_memory_t) -> Option<Box<weft_error_t>>,
    env: crate::host_env::HostEnv,
}

// SAFETY: the host's contract: each stack it returns is `size` bytes or
// more of memory it owns until the stack's finalizer runs; `HostStack`
// checks the top and length it reports are consistent, and weft-fiber
// checks alignment and size.
unsafe impl weft::StackCreator for HostStackCreator {
    fn new_stack(&self, size: usize, zeroed: bool) -> anyhow::Result<Box<dyn weft::StackMemory>> {
        let mut out = weft_stack_memory_t {
            env: std::ptr::null_mut(),
            get_stack_memory: None,
            finalizer: None,
        };
        // SAFETY: the host's callback with its data and a writable
        // out-parameter.
        if let Some(e) = unsafe { (self.new_stack)(self.env.data(), size, zeroed, &mut out) } {
            return Err(e.error.context("the host's stack creator failed"));
        }
        let env = crate::host_env::HostEnv::new(out.env, out.finalizer);
        let get = out
            .get_stack_memory
            .ok_or_else(|| anyhow::anyhow!("the host's stack creator gave a stack without get_stack_memory"))?;
        let mut len = 0usize;
        // SAFETY: the host's callback with its data and a writable length.
        let top = unsafe { get(env.data(), &mut len) };
        if top.is_null() || len == 0 || (top as usize) < len {
            anyhow::bail!("the host's stack creator gave an empty or invalid stack (top {top:p}, length {len})");
        }
        Ok(Box::new(HostStack { top, len, _env: env }))
    }
}

/// Makes the stacks of async calls with the host's `creator` (copied; its
/// `env` is finalized with the configuration's engines).
///
/// # Safety
///
/// `creator` is null or points to a valid `weft_stack_creator_t`.
#[no_mangle]
pub unsafe extern "C" fn weft_config_host_stack_creator_set(
    config: Option<&mut crate::config::wasm_config_t>,
    creator: *const weft_stack_creator_t,
) {
    guard(
        || (),
        || {
            if creator.is_null() {
                return;
            }
            // SAFETY: the caller's contract.
            let c = unsafe { &*creator };
            let env = crate::host_env::HostEnv::new(c.env, c.finalizer);
            let (Some(config), Some(new_stack)) = (config, c.new_stack) else {
                return;
            };
            config
                .config
                .with_custom_stack(std::sync::Arc::new(HostStackCreator { new_stack, env }));
        },
    )
}

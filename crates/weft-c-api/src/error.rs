//! `weft/error.h`: `weft_error_t`.

// Import loop kept on purpose: an error's trace is the frames of a trap
// (trap.rs), and traps convert to and from errors.
use crate::trap::{frames_of, wasm_frame_vec_t};
use crate::vec::{name_from_str, wasm_name_t, write_out};
use crate::{guard, guard_result};
use std::ffi::{c_char, c_int, CStr};
use std::mem::MaybeUninit;

/// `weft_error_t`: an error the host owns (deleted with
/// `weft_error_delete`).
pub struct weft_error_t {
    pub(crate) error: anyhow::Error,
}

/// The message of an error as Wasmtime's C API gives it: the error, then
/// its causes under "Caused by:" (anyhow's `{:?}` without a Rust backtrace).
pub(crate) fn format_error(e: &anyhow::Error) -> String {
    let mut s = e.to_string();
    let mut causes = e.chain().skip(1).peekable();
    if causes.peek().is_some() {
        s.push_str("\n\nCaused by:");
        for (i, c) in causes.enumerate() {
            s.push_str(&format!("\n    {i}: {c}"));
        }
    }
    s
}

/// Null for `Ok`, an owned error for `Err`.
pub(crate) fn err_ptr(r: anyhow::Result<()>) -> Option<Box<weft_error_t>> {
    match r {
        Ok(()) => None,
        Err(error) => Some(Box::new(weft_error_t { error })),
    }
}

/// Runs `f` with panics caught and returns its error, if any.
pub(crate) fn catch_err(f: impl FnOnce() -> anyhow::Result<()>) -> Option<Box<weft_error_t>> {
    err_ptr(guard_result(f))
}

/// A new error with message `msg`.
///
/// # Safety
///
/// `msg` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn weft_error_new(msg: *const c_char) -> Option<Box<weft_error_t>> {
    guard(
        || None,
        || {
            let msg = if msg.is_null() {
                String::new()
            } else {
                // SAFETY: the caller passes a NUL-terminated string.
                unsafe { CStr::from_ptr(msg) }.to_string_lossy().into_owned()
            };
            Some(Box::new(weft_error_t {
                error: anyhow::Error::msg(msg),
            }))
        },
    )
}

/// Deletes an error.
#[no_mangle]
pub extern "C" fn weft_error_delete(error: Option<Box<weft_error_t>>) {
    guard(|| (), || drop(error))
}

/// The error's message, with its causes (as Wasmtime formats it).
#[no_mangle]
pub extern "C" fn weft_error_message(error: Option<&weft_error_t>, message: Option<&mut MaybeUninit<wasm_name_t>>) {
    guard(
        || (),
        || {
            let text = match error {
                Some(e) => format_error(&e.error),
                None => "null error".to_string(),
            };
            write_out(message, name_from_str(&text));
        },
    )
}

/// Whether the error is a WASI exit; writes its status to `status`.
#[no_mangle]
pub extern "C" fn weft_error_exit_status(error: Option<&weft_error_t>, status: Option<&mut c_int>) -> bool {
    guard(
        || false,
        || {
            let Some(e) = error else { return false };
            match exit_status(&e.error) {
                Some(code) => {
                    if let Some(s) = status {
                        *s = code;
                    }
                    true
                }
                None => false,
            }
        },
    )
}

/// The exit status of a WASI `proc_exit` error.
pub(crate) fn exit_status(error: &anyhow::Error) -> Option<c_int> {
    error.downcast_ref::<weft_wasi::I32Exit>().map(|e| e.0)
}

/// The wasm backtrace of the error, if it has one (else an empty vector).
#[no_mangle]
pub extern "C" fn weft_error_wasm_trace(error: Option<&weft_error_t>, out: Option<&mut MaybeUninit<wasm_frame_vec_t>>) {
    guard(
        || (),
        || {
            let frames = error.map(|e| frames_of(&e.error)).unwrap_or_default();
            write_out(out, crate::vec::CVec::from_vec(frames));
        },
    )
}

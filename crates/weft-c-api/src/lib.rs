//! `weft-c-api` is Weft's C API: `libweft.so` and `libweft.a`, with the
//! headers in `include/`.
//!
//! It owns the standard WebAssembly C API (`include/wasm.h`, the community
//! group's header, unchanged) and Weft's own headers (`include/weft.h` and
//! `include/weft/*.h`), which mirror Wasmtime 48's C API with `wasmtime_`
//! renamed `weft_`. Every function is implemented here on top of the public
//! `weft` API; this crate never reaches into Weft's internals, and it holds
//! no runtime logic of its own beyond the conversions between C values and
//! Weft's.
//!
//! Rules at the boundary: a panic never unwinds into C (each function
//! catches it and reports an error, a trap or a null result); a null pointer
//! where an object is required gives an error (or a null result, where the
//! function has no error channel), never undefined behaviour; objects of
//! another store are refused with an error.
//!
//! Which functions are `unsafe`: a parameter typed as a reference
//! (`Option<&T>`, `Option<&mut T>`, `Option<Box<T>>`) states its contract in
//! the signature (NULL, or a live object of this library), as in
//! Wasmtime's C API; such functions are safe `extern "C" fn`s. Functions that
//! read or write memory the caller describes with raw pointers and lengths
//! (names, byte buffers, value arrays), or that map caller-supplied machine
//! code, are `unsafe extern "C" fn`s with a `# Safety` section.
//!
//! The store model: a C store is a [`store::StoreShared`] in an `Rc`. Every
//! function reaches the store through it; while a host function runs, the
//! store is borrowed by its `weft::Caller`, and the store's functions go
//! through that caller instead, so no two mutable borrows of a store ever
//! coexist.

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![allow(
    non_camel_case_types,
    reason = "the C API's type names (wasm_func_t, ...) are part of its ABI"
)]

pub mod async_;
pub mod component;
pub mod config;
pub mod error;
pub mod extern_;
pub mod func;
mod host_env;
pub mod instance;
pub mod module;
pub mod r#ref;
pub mod store;
pub mod trap;
pub mod types;
pub mod val;
pub mod vec;
pub mod wasi;
pub mod wat;
pub mod weft_api;

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `f`; a panic becomes `fallback()` after a note on standard error,
/// so that no panic unwinds into C.
pub(crate) fn guard<R>(fallback: impl FnOnce() -> R, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            eprintln!("weft: internal panic in the C API: {}", panic_message(&payload));
            fallback()
        }
    }
}

/// Runs `f`, turning a panic into an error.
pub(crate) fn guard_result<R>(f: impl FnOnce() -> anyhow::Result<R>) -> anyhow::Result<R> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => Err(anyhow::anyhow!("panic in the C API: {}", panic_message(&payload))),
    }
}

/// The message of a panic payload.
pub(crate) fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// The error for a null pointer where an object was required.
pub(crate) fn null_error(what: &str) -> anyhow::Error {
    anyhow::anyhow!("null pointer passed for `{what}`")
}

/// A value that the C API's contract lets cross threads: C objects of one
/// store are used by one thread at a time, so wrapping them for Weft's
/// `Send + Sync` bounds does not share them.
pub(crate) struct AssertSendSync<T>(pub T);

// SAFETY: the C API's contract (see `AssertSendSync`): a store and every
// object of it are used by one thread at a time, and host data is the host's
// responsibility, as in Wasmtime's C API.
unsafe impl<T> Send for AssertSendSync<T> {}
// SAFETY: as for `Send` above.
unsafe impl<T> Sync for AssertSendSync<T> {}

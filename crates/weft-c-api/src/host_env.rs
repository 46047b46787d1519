//! Host data handed over with a finalizer, shared by the files that keep
//! it (host functions, callbacks, memory and stack creators).

use std::ffi::c_void;

/// A C finalizer of host data.
pub type Finalizer = Option<unsafe extern "C" fn(*mut c_void)>;

/// Host data with its finalizer, run when the host function (or callback)
/// holding it is dropped with its store.
pub struct HostEnv {
    data: *mut c_void,
    finalizer: Finalizer,
}

// SAFETY: the C API's contract: host data given with a function is the
// host's responsibility to make usable from wherever the store is used (as in
// Wasmtime's C API); Weft only passes the pointer back.
unsafe impl Send for HostEnv {}
// SAFETY: as for `Send`.
unsafe impl Sync for HostEnv {}

impl HostEnv {
    /// Host data `data`, finalized with `finalizer`.
    pub(crate) fn new(data: *mut c_void, finalizer: Finalizer) -> HostEnv {
        HostEnv { data, finalizer }
    }

    /// The data pointer.
    pub(crate) fn data(&self) -> *mut c_void {
        self.data
    }
}

impl Drop for HostEnv {
    fn drop(&mut self) {
        if let Some(f) = self.finalizer {
            // SAFETY: the finalizer the host gave for this data; it runs
            // once, when the function holding it is dropped.
            unsafe { f(self.data) }
        }
    }
}

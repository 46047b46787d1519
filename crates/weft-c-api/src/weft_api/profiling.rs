//! `weft/profiling.h`: the guest profiler (`weft::GuestProfiler`).

use crate::config::wasm_engine_t;
use crate::error::{catch_err, weft_error_t};
use crate::store::weft_store_t;
use crate::vec::{wasm_byte_vec_t, wasm_name_t, CVec};
use crate::weft_api::module::weft_module_t;
use std::mem::MaybeUninit;
use std::time::Duration;

/// `weft_guestprofiler_t`: a guest profiler owned by C.
pub struct weft_guestprofiler_t {
    profiler: weft::GuestProfiler,
}

/// One module given to `weft_guestprofiler_new`, with the name the profile
/// gives it.
#[repr(C)]
pub struct weft_guestprofiler_modules_t {
    /// The name recorded in the profile.
    pub name: *const wasm_name_t,
    /// The module.
    pub module: *const weft_module_t,
}

fn name_of(name: &wasm_name_t) -> String {
    String::from_utf8_lossy(name.as_slice()).into_owned()
}

/// A new guest profiler (see `weft::GuestProfiler::new`); null when an
/// argument is null or not valid (a module of another engine than
/// `engine`). The arguments are not taken.
///
/// # Safety
///
/// `modules` points to `modules_len` entries whose pointers are valid.
#[no_mangle]
pub unsafe extern "C" fn weft_guestprofiler_new(
    engine: Option<&wasm_engine_t>,
    module_name: Option<&wasm_name_t>,
    interval_nanos: u64,
    modules: *const weft_guestprofiler_modules_t,
    modules_len: usize,
) -> Option<Box<weft_guestprofiler_t>> {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let engine = &engine?.engine;
        let module_name = name_of(module_name?);
        let entries: &[weft_guestprofiler_modules_t] = if modules_len == 0 {
            &[]
        } else if modules.is_null() {
            return None;
        } else {
            // SAFETY: the caller gives `modules_len` entries at `modules`.
            unsafe { std::slice::from_raw_parts(modules, modules_len) }
        };
        let mut list = Vec::with_capacity(entries.len());
        for e in entries {
            // SAFETY: the caller gives valid (or null) pointers.
            let (name, module) = unsafe { (e.name.as_ref()?, e.module.as_ref()?) };
            list.push((name_of(name), module.module.clone()));
        }
        let profiler =
            weft::GuestProfiler::new(engine, &module_name, Duration::from_nanos(interval_nanos), list).ok()?;
        Some(Box::new(weft_guestprofiler_t { profiler }))
    }));
    result.ok().flatten()
}

/// Deletes a profiler without writing its profile.
#[no_mangle]
pub extern "C" fn weft_guestprofiler_delete(guestprofiler: Option<Box<weft_guestprofiler_t>>) {
    drop(guestprofiler);
}

/// Adds a sample of the wasm stack of `store` now (from a host function
/// or an epoch callback), `delta_nanos` of CPU time after the previous
/// one. Does nothing when an argument is null.
#[no_mangle]
pub extern "C" fn weft_guestprofiler_sample(
    guestprofiler: Option<&mut weft_guestprofiler_t>,
    store: Option<&weft_store_t>,
    delta_nanos: u64,
) {
    let (Some(p), Some(store)) = (guestprofiler, store) else {
        return;
    };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: a context used only inside this function.
        let ctx = unsafe { store.store.ctx() };
        p.profiler.sample(&ctx, Duration::from_nanos(delta_nanos));
    }));
}

/// Writes the profile (Firefox processed-format JSON) to `out`, which the
/// caller frees with `wasm_byte_vec_delete`, and deletes the profiler.
#[no_mangle]
pub extern "C" fn weft_guestprofiler_finish(
    guestprofiler: Option<Box<weft_guestprofiler_t>>,
    out: Option<&mut MaybeUninit<wasm_byte_vec_t>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let p = guestprofiler.ok_or_else(|| crate::null_error("guestprofiler"))?;
        let out = out.ok_or_else(|| crate::null_error("out"))?;
        let mut bytes = Vec::new();
        p.profiler.finish(&mut bytes)?;
        out.write(CVec::from_vec(bytes));
        Ok(())
    })
}

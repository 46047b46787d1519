//! `weft/module.h`.

use crate::config::wasm_engine_t;
use crate::error::{catch_err, weft_error_t};
use crate::guard;
use crate::types::{module_exports, module_imports, wasm_exporttype_vec_t, wasm_importtype_vec_t};
use crate::vec::{wasm_byte_vec_t, write_out, CVec};
use std::ffi::{c_char, c_void, CStr};
use std::mem::MaybeUninit;

/// `weft_module_t`: a compiled module (shared; `weft_module_clone` adds a
/// reference).
pub struct weft_module_t {
    pub(crate) module: weft::Module,
}

/// The bytes `(ptr, len)`.
///
/// # Safety
///
/// `ptr` points to `len` readable bytes (or is null with `len` 0).
unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> anyhow::Result<&'a [u8]> {
    if ptr.is_null() {
        if len == 0 {
            return Ok(&[]);
        }
        return Err(crate::null_error("wasm"));
    }
    // SAFETY: the caller gives `len` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Compiles the module binary `wasm` into `ret`.
///
/// # Safety
///
/// `wasm` points to `wasm_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_module_new(
    engine: Option<&wasm_engine_t>,
    wasm: *const u8,
    wasm_len: usize,
    ret: Option<&mut MaybeUninit<Option<Box<weft_module_t>>>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let engine = engine.ok_or_else(|| crate::null_error("engine"))?;
        // SAFETY: the caller gives `wasm_len` readable bytes.
        let bytes = unsafe { bytes(wasm, wasm_len) }?;
        let ret = ret.ok_or_else(|| crate::null_error("ret"))?;
        let module = weft::Module::from_binary(&engine.engine, bytes)?;
        ret.write(Some(Box::new(weft_module_t { module })));
        Ok(())
    })
}

/// Deletes a module reference.
#[no_mangle]
pub extern "C" fn weft_module_delete(m: Option<Box<weft_module_t>>) {
    guard(|| (), || drop(m))
}

/// A new reference to the same module.
#[no_mangle]
pub extern "C" fn weft_module_clone(m: Option<&weft_module_t>) -> Option<Box<weft_module_t>> {
    guard(
        || None,
        || {
            Some(Box::new(weft_module_t {
                module: m?.module.clone(),
            }))
        },
    )
}

/// The module's imports.
#[no_mangle]
pub extern "C" fn weft_module_imports(m: Option<&weft_module_t>, out: Option<&mut MaybeUninit<wasm_importtype_vec_t>>) {
    guard(
        || (),
        || write_out(out, m.map(|m| module_imports(&m.module)).unwrap_or_default()),
    )
}

/// The module's exports.
#[no_mangle]
pub extern "C" fn weft_module_exports(m: Option<&weft_module_t>, out: Option<&mut MaybeUninit<wasm_exporttype_vec_t>>) {
    guard(
        || (),
        || write_out(out, m.map(|m| module_exports(&m.module)).unwrap_or_default()),
    )
}

/// Validates the module binary `wasm` (null: valid).
///
/// # Safety
///
/// `wasm` points to `wasm_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_module_validate(
    engine: Option<&wasm_engine_t>,
    wasm: *const u8,
    wasm_len: usize,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let engine = engine.ok_or_else(|| crate::null_error("engine"))?;
        // SAFETY: the caller gives `wasm_len` readable bytes.
        let bytes = unsafe { bytes(wasm, wasm_len) }?;
        weft::Module::validate(&engine.engine, bytes)
    })
}

/// The module's precompiled form, in `ret`.
#[no_mangle]
pub extern "C" fn weft_module_serialize(
    m: Option<&weft_module_t>,
    ret: Option<&mut MaybeUninit<wasm_byte_vec_t>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let m = m.ok_or_else(|| crate::null_error("module"))?;
        let ret = ret.ok_or_else(|| crate::null_error("ret"))?;
        ret.write(CVec::from_vec(m.module.serialize()?));
        Ok(())
    })
}

/// A module from the output of `weft_module_serialize`, in `ret`.
///
/// # Safety
///
/// `bytes` points to `bytes_len` bytes of trusted Weft output: they are
/// mapped as machine code.
#[no_mangle]
pub unsafe extern "C" fn weft_module_deserialize(
    engine: Option<&wasm_engine_t>,
    bytes_ptr: *const u8,
    bytes_len: usize,
    ret: Option<&mut MaybeUninit<Option<Box<weft_module_t>>>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let engine = engine.ok_or_else(|| crate::null_error("engine"))?;
        // SAFETY: the caller gives `bytes_len` readable bytes.
        let b = unsafe { bytes(bytes_ptr, bytes_len) }?;
        let ret = ret.ok_or_else(|| crate::null_error("ret"))?;
        // SAFETY: the caller vouches for the bytes (this function's
        // contract, as `Module::deserialize`'s).
        let module = unsafe { weft::Module::deserialize(&engine.engine, b) }?;
        ret.write(Some(Box::new(weft_module_t { module })));
        Ok(())
    })
}

/// A module from a file written by `weft_module_serialize`, in `ret`.
///
/// # Safety
///
/// `path` is a NUL-terminated string naming a file of trusted Weft output.
#[no_mangle]
pub unsafe extern "C" fn weft_module_deserialize_file(
    engine: Option<&wasm_engine_t>,
    path: *const c_char,
    ret: Option<&mut MaybeUninit<Option<Box<weft_module_t>>>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let engine = engine.ok_or_else(|| crate::null_error("engine"))?;
        if path.is_null() {
            return Err(crate::null_error("path"));
        }
        // SAFETY: the caller passes a NUL-terminated string.
        let path = unsafe { CStr::from_ptr(path) }
            .to_str()
            .map_err(|_| anyhow::anyhow!("input was not valid utf-8"))?;
        let ret = ret.ok_or_else(|| crate::null_error("ret"))?;
        // SAFETY: the caller vouches for the file (this function's contract).
        let module = unsafe { weft::Module::deserialize_file(&engine.engine, path) }?;
        ret.write(Some(Box::new(weft_module_t { module })));
        Ok(())
    })
}

/// The range of the module's code image: Weft does not expose it, so both
/// are set to null.
#[no_mangle]
pub extern "C" fn weft_module_image_range(
    _m: Option<&weft_module_t>,
    start: Option<&mut *mut c_void>,
    end: Option<&mut *mut c_void>,
) {
    if let Some(s) = start {
        *s = std::ptr::null_mut();
    }
    if let Some(e) = end {
        *e = std::ptr::null_mut();
    }
}

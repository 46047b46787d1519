//! `weft/wat.h`: `weft_wat2wasm`.

use crate::error::{catch_err, weft_error_t};
use crate::vec::{wasm_byte_vec_t, CVec};
use std::ffi::c_char;
use std::mem::MaybeUninit;

/// Assembles the WebAssembly text `wat` (`wat_len` bytes of UTF-8) into a
/// binary in `ret` (untouched on error).
///
/// # Safety
///
/// `wat` points to `wat_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_wat2wasm(
    wat: *const c_char,
    wat_len: usize,
    ret: Option<&mut MaybeUninit<wasm_byte_vec_t>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let bytes = if wat.is_null() {
            if wat_len != 0 {
                return Err(crate::null_error("wat"));
            }
            &[][..]
        } else {
            // SAFETY: the caller gives `wat_len` readable bytes.
            unsafe { std::slice::from_raw_parts(wat.cast::<u8>(), wat_len) }
        };
        let text = std::str::from_utf8(bytes).map_err(|_| anyhow::anyhow!("input was not valid utf-8"))?;
        let binary = wat::parse_str(text)?;
        let ret = ret.ok_or_else(|| crate::null_error("ret"))?;
        ret.write(CVec::from_vec(binary));
        Ok(())
    })
}

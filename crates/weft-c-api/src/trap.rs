//! Traps and frames of `wasm.h`, with `weft/trap.h`.

use crate::guard;
use crate::r#ref::{wasm_instance_t, wasm_ref_t, wasm_trap_t};
use crate::store::wasm_store_t;
use crate::vec::{declare_vec, name_from_str, wasm_name_t, write_out, CVec};
use std::ffi::c_char;
use std::mem::MaybeUninit;
use weft::{FrameInfo, Trap, WasmBacktrace};

/// `wasm_frame_t`: one frame of a trap's backtrace.
#[derive(Clone)]
pub struct wasm_frame_t {
    func_index: u32,
    func_offset: usize,
    module_offset: usize,
    func_name: Option<wasm_name_t>,
    module_name: Option<wasm_name_t>,
}

impl wasm_frame_t {
    fn new(f: &FrameInfo) -> wasm_frame_t {
        wasm_frame_t {
            func_index: f.func_index(),
            func_offset: f.func_offset().unwrap_or(usize::MAX),
            module_offset: f.module_offset().unwrap_or(usize::MAX),
            func_name: f.func_name().map(name_from_str),
            module_name: f.module_name().map(name_from_str),
        }
    }
}

/// `wasm_frame_vec_t`.
pub type wasm_frame_vec_t = CVec<Option<Box<wasm_frame_t>>>;

declare_vec!(
    wasm_frame_vec_t,
    Option<Box<wasm_frame_t>>,
    wasm_frame_vec_new_empty,
    wasm_frame_vec_new_uninitialized,
    wasm_frame_vec_new,
    wasm_frame_vec_copy,
    wasm_frame_vec_delete
);

/// The frames of an error's wasm backtrace, innermost first.
pub(crate) fn frames_of(e: &anyhow::Error) -> Vec<Option<Box<wasm_frame_t>>> {
    match e.downcast_ref::<WasmBacktrace>() {
        Some(bt) => bt
            .frames()
            .iter()
            .map(|f| Some(Box::new(wasm_frame_t::new(f))))
            .collect(),
        None => Vec::new(),
    }
}

/// Deletes a frame.
#[no_mangle]
pub extern "C" fn wasm_frame_delete(f: Option<Box<wasm_frame_t>>) {
    guard(|| (), || drop(f))
}

/// A copy of a frame.
#[no_mangle]
pub extern "C" fn wasm_frame_copy(f: Option<&wasm_frame_t>) -> Option<Box<wasm_frame_t>> {
    guard(|| None, || f.map(|f| Box::new(f.clone())))
}

/// The instance of the frame: Weft's backtraces do not record instances,
/// so this is always null.
#[no_mangle]
pub extern "C" fn wasm_frame_instance(_f: Option<&wasm_frame_t>) -> *mut wasm_instance_t {
    std::ptr::null_mut()
}

/// The index of the frame's function in its module.
#[no_mangle]
pub extern "C" fn wasm_frame_func_index(f: Option<&wasm_frame_t>) -> u32 {
    f.map_or(0, |f| f.func_index)
}

/// The offset of the frame's instruction from the start of its function
/// (`SIZE_MAX` if unknown).
#[no_mangle]
pub extern "C" fn wasm_frame_func_offset(f: Option<&wasm_frame_t>) -> usize {
    f.map_or(usize::MAX, |f| f.func_offset)
}

/// The offset of the frame's instruction in the module's binary
/// (`SIZE_MAX` if unknown).
#[no_mangle]
pub extern "C" fn wasm_frame_module_offset(f: Option<&wasm_frame_t>) -> usize {
    f.map_or(usize::MAX, |f| f.module_offset)
}

/// The frame's function name from the name section (null if none).
#[no_mangle]
pub extern "C" fn weft_frame_func_name(f: Option<&wasm_frame_t>) -> *const wasm_name_t {
    f.and_then(|f| f.func_name.as_ref()).map_or(std::ptr::null(), |n| n)
}

/// The frame's module name from the name section (null if none).
#[no_mangle]
pub extern "C" fn weft_frame_module_name(f: Option<&wasm_frame_t>) -> *const wasm_name_t {
    f.and_then(|f| f.module_name.as_ref()).map_or(std::ptr::null(), |n| n)
}

/// A new trap with `message` (a NUL-terminated name; the NUL is dropped).
#[no_mangle]
pub extern "C" fn wasm_trap_new(
    _store: Option<&wasm_store_t>,
    message: Option<&wasm_name_t>,
) -> Option<Box<wasm_trap_t>> {
    guard(
        || None,
        || {
            let bytes = message.map(|m| m.as_slice()).unwrap_or_default();
            let bytes = bytes.strip_suffix(&[0]).unwrap_or(bytes);
            Some(wasm_ref_t::trap(anyhow::Error::msg(
                String::from_utf8_lossy(bytes).into_owned(),
            )))
        },
    )
}

/// The trap's message, NUL-terminated.
#[no_mangle]
pub extern "C" fn wasm_trap_message(t: Option<&wasm_trap_t>, out: Option<&mut MaybeUninit<wasm_name_t>>) {
    guard(
        || (),
        || {
            let mut bytes = match t.and_then(|t| t.trap_shared()) {
                Some(t) => crate::error::format_error(&t.error).into_bytes(),
                None => Vec::new(),
            };
            bytes.push(0);
            write_out(out, CVec::from_vec(bytes));
        },
    )
}

/// The innermost frame of the trap's backtrace (null if none).
#[no_mangle]
pub extern "C" fn wasm_trap_origin(t: Option<&wasm_trap_t>) -> Option<Box<wasm_frame_t>> {
    guard(
        || None,
        || frames_of(&t?.trap_shared()?.error).into_iter().next().flatten(),
    )
}

/// The trap's backtrace, innermost frame first.
#[no_mangle]
pub extern "C" fn wasm_trap_trace(t: Option<&wasm_trap_t>, out: Option<&mut MaybeUninit<wasm_frame_vec_t>>) {
    guard(
        || (),
        || {
            let frames = t
                .and_then(|t| t.trap_shared())
                .map(|t| frames_of(&t.error))
                .unwrap_or_default();
            write_out(out, CVec::from_vec(frames));
        },
    )
}

/// `weft_trap_code_t`.
pub type weft_trap_code_t = u8;

/// The `WEFT_TRAP_CODE_*` of a Weft trap.
fn trap_code(t: Trap) -> Option<u8> {
    Some(match t {
        Trap::StackOverflow => 0,
        Trap::MemoryOutOfBounds => 1,
        Trap::HeapMisaligned => 2,
        Trap::TableOutOfBounds => 3,
        Trap::IndirectCallToNull => 4,
        Trap::BadSignature => 5,
        Trap::IntegerOverflow => 6,
        Trap::IntegerDivisionByZero => 7,
        Trap::BadConversionToInteger => 8,
        Trap::UnreachableCodeReached => 9,
        Trap::Interrupt => 10,
        Trap::OutOfFuel => 11,
        Trap::AtomicWaitNonSharedMemory => 12,
        Trap::NullReference => 13,
        Trap::InvalidChar => 25,
        Trap::StringOutOfBounds => 30,
        Trap::ListOutOfBounds => 31,
        Trap::InvalidDiscriminant => 32,
        Trap::UnalignedPointer => 33,
        _ => return None,
    })
}

/// The Weft trap of a `WEFT_TRAP_CODE_*`.
fn trap_of_code(code: u8) -> Option<Trap> {
    Trap::ALL.iter().copied().find(|t| trap_code(*t) == Some(code))
}

/// The trap code of an error, if it is a wasm trap.
pub(crate) fn error_trap_code(e: &anyhow::Error) -> Option<u8> {
    e.downcast_ref::<Trap>().copied().and_then(trap_code)
}

/// A new trap with a message (`msg_len` bytes of UTF-8).
///
/// # Safety
///
/// `msg` points to `msg_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_trap_new(msg: *const c_char, msg_len: usize) -> Option<Box<wasm_trap_t>> {
    guard(
        || None,
        || {
            let bytes = if msg.is_null() {
                &[][..]
            } else {
                // SAFETY: the caller gives `msg_len` readable bytes.
                unsafe { std::slice::from_raw_parts(msg.cast::<u8>(), msg_len) }
            };
            Some(wasm_ref_t::trap(anyhow::Error::msg(
                String::from_utf8_lossy(bytes).into_owned(),
            )))
        },
    )
}

/// A new trap of code `code` (null for a code Weft never raises).
#[no_mangle]
pub extern "C" fn weft_trap_new_code(code: weft_trap_code_t) -> Option<Box<wasm_trap_t>> {
    guard(
        || None,
        || Some(wasm_ref_t::trap(anyhow::Error::new(trap_of_code(code)?))),
    )
}

/// Whether the trap is a wasm trap with a code; writes the code.
#[no_mangle]
pub extern "C" fn weft_trap_code(t: Option<&wasm_trap_t>, code: Option<&mut weft_trap_code_t>) -> bool {
    guard(
        || false,
        || {
            let Some(c) = t.and_then(|t| t.trap_shared()).and_then(|t| error_trap_code(&t.error)) else {
                return false;
            };
            if let Some(out) = code {
                *out = c;
            }
            true
        },
    )
}

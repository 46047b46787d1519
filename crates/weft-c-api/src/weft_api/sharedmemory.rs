//! `weft/sharedmemory.h`: memories shared between threads and stores.

use crate::config::wasm_engine_t;
use crate::error::{catch_err, weft_error_t};
use crate::guard;
use crate::types::{wasm_externtype_t, wasm_memorytype_t};
use std::mem::MaybeUninit;
use weft::{ExternType, SharedMemory};

/// `weft_sharedmemory_t`: an owned handle of a shared memory. Every handle
/// (from `weft_sharedmemory_new`, `_clone`, or an extern Weft returns) is
/// released with `weft_sharedmemory_delete`; the memory lives until its
/// last handle and the last instance using it are gone.
pub struct weft_sharedmemory_t {
    pub(crate) memory: SharedMemory,
}

/// A new shared memory of type `ty` for the stores of `engine`, in `ret`.
#[no_mangle]
pub extern "C" fn weft_sharedmemory_new(
    engine: Option<&wasm_engine_t>,
    ty: Option<&wasm_memorytype_t>,
    ret: Option<&mut MaybeUninit<Option<Box<weft_sharedmemory_t>>>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let engine = engine.ok_or_else(|| crate::null_error("engine"))?;
        let ty = ty
            .and_then(|t| t.memory())
            .ok_or_else(|| crate::null_error("type"))?
            .ty
            .clone();
        let ret = ret.ok_or_else(|| crate::null_error("ret"))?;
        let memory = SharedMemory::new(&engine.engine, ty)?;
        ret.write(Some(Box::new(weft_sharedmemory_t { memory })));
        Ok(())
    })
}

/// Releases a handle.
#[no_mangle]
pub extern "C" fn weft_sharedmemory_delete(memory: Option<Box<weft_sharedmemory_t>>) {
    guard(|| (), || drop(memory))
}

/// Another handle of the same memory (NULL if `memory` is NULL).
#[no_mangle]
pub extern "C" fn weft_sharedmemory_clone(memory: Option<&weft_sharedmemory_t>) -> Option<Box<weft_sharedmemory_t>> {
    guard(
        || None,
        || {
            Some(Box::new(weft_sharedmemory_t {
                memory: memory?.memory.clone(),
            }))
        },
    )
}

/// The type the memory was made with; the caller owns it.
#[no_mangle]
pub extern "C" fn weft_sharedmemory_type(memory: Option<&weft_sharedmemory_t>) -> Option<Box<wasm_memorytype_t>> {
    guard(
        || None,
        || {
            let ty = ExternType::Memory(memory?.memory.ty());
            Some(Box::new(wasm_externtype_t::new(&ty)))
        },
    )
}

/// The first byte of the memory (NULL if `memory` is NULL). It never moves.
#[no_mangle]
pub extern "C" fn weft_sharedmemory_data(memory: Option<&weft_sharedmemory_t>) -> *mut u8 {
    match memory {
        Some(m) => std::cell::UnsafeCell::raw_get(m.memory.data().as_ptr()),
        None => std::ptr::null_mut(),
    }
}

/// The size in bytes.
#[no_mangle]
pub extern "C" fn weft_sharedmemory_data_size(memory: Option<&weft_sharedmemory_t>) -> usize {
    memory.map_or(0, |m| m.memory.data_size())
}

/// The size in pages.
#[no_mangle]
pub extern "C" fn weft_sharedmemory_size(memory: Option<&weft_sharedmemory_t>) -> u64 {
    memory.map_or(0, |m| m.memory.size())
}

/// Grows by `delta` pages; the old size in pages goes to `prev_size`.
#[no_mangle]
pub extern "C" fn weft_sharedmemory_grow(
    memory: Option<&weft_sharedmemory_t>,
    delta: u64,
    prev_size: Option<&mut u64>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let memory = memory.ok_or_else(|| crate::null_error("memory"))?;
        let prev = memory.memory.grow(delta)?;
        if let Some(p) = prev_size {
            *p = prev;
        }
        Ok(())
    })
}

//! The builtin functions compiled code calls, in the order of
//! `weft_environ::BuiltinFunction::ALL`. Each takes the calling vmctx first.
//! Status results: 0 on success, 1 when compiled code must trap.

use crate::instance::Instance;

/// The builtins array every vmctx points to.
pub(crate) static BUILTINS: Builtins = Builtins([
    memory_grow as *const (),
    memory_fill as *const (),
    memory_copy as *const (),
    memory_init as *const (),
    data_drop as *const (),
    table_grow as *const (),
    table_fill as *const (),
    table_copy as *const (),
    table_init as *const (),
    elem_drop as *const (),
    fma_f32 as *const (),
    fma_f64 as *const (),
]);

/// The addresses of the builtins.
pub(crate) struct Builtins(pub(crate) [*const (); 12]);

// SAFETY: function addresses are immutable and valid on every thread.
unsafe impl Sync for Builtins {}

const _: () = assert!(BUILTINS.0.len() == weft_environ::BuiltinFunction::ALL.len());

fn instance<'a>(vmctx: *mut u8) -> &'a mut Instance {
    // SAFETY: builtins are only called by compiled code, which passes its
    // own live vmctx.
    unsafe { Instance::from_vmctx(vmctx) }
}

fn range(start: u64, len: u64, size: usize) -> Option<std::ops::Range<usize>> {
    let end = start.checked_add(len)?;
    if end > size as u64 {
        return None;
    }
    Some(start as usize..end as usize)
}

extern "C" fn memory_grow(vmctx: *mut u8, memory: u32, delta: u64) -> u64 {
    let instance = instance(vmctx);
    instance
        .memory_mut(memory)
        .and_then(|m| m.grow(delta))
        .unwrap_or(u64::MAX)
}

extern "C" fn memory_fill(vmctx: *mut u8, memory: u32, dst: u64, value: u32, len: u64) -> u32 {
    let Some(mem) = instance(vmctx).memory_mut(memory) else {
        return 1;
    };
    let data = mem.data_mut();
    match range(dst, len, data.len()) {
        Some(r) => {
            data[r].fill(value as u8);
            0
        }
        None => 1,
    }
}

extern "C" fn memory_copy(vmctx: *mut u8, dst_mem: u32, dst: u64, src_mem: u32, src: u64, len: u64) -> u32 {
    let instance = instance(vmctx);
    let (Some(d), Some(s)) = (instance.memory(dst_mem), instance.memory(src_mem)) else {
        return 1;
    };
    let (dst_base, dst_len) = (d.base(), d.byte_size());
    let (src_base, src_len) = (s.base(), s.byte_size());
    let (Some(dr), Some(sr)) = (range(dst, len, dst_len), range(src, len, src_len)) else {
        return 1;
    };
    // SAFETY: both ranges are inside their accessible memories; `copy`
    // allows overlap.
    unsafe { std::ptr::copy(src_base.add(sr.start), dst_base.add(dr.start), dr.len()) };
    0
}

extern "C" fn memory_init(vmctx: *mut u8, memory: u32, data: u32, dst: u64, src: u32, len: u32) -> u32 {
    let instance = instance(vmctx);
    let module = instance.module.clone();
    let bytes: &[u8] = match (module.data.get(data as usize), instance.dropped_data.get(data as usize)) {
        (Some(seg), Some(false)) => &seg.data,
        _ => &[],
    };
    let Some(mem) = instance.memory_mut(memory) else {
        return 1;
    };
    let mem = mem.data_mut();
    let (Some(dr), Some(sr)) = (
        range(dst, len as u64, mem.len()),
        range(src as u64, len as u64, bytes.len()),
    ) else {
        return 1;
    };
    mem[dr].copy_from_slice(&bytes[sr]);
    0
}

extern "C" fn data_drop(vmctx: *mut u8, data: u32) {
    if let Some(d) = instance(vmctx).dropped_data.get_mut(data as usize) {
        *d = true;
    }
}

extern "C" fn table_grow(vmctx: *mut u8, table: u32, delta: u64, init: usize) -> u64 {
    instance(vmctx)
        .table_mut(table)
        .and_then(|t| t.grow(delta, init))
        .unwrap_or(u64::MAX)
}

extern "C" fn table_fill(vmctx: *mut u8, table: u32, dst: u64, value: usize, len: u64) -> u32 {
    let Some(table) = instance(vmctx).table_mut(table) else {
        return 1;
    };
    let elements = table.elements_mut();
    match range(dst, len, elements.len()) {
        Some(r) => {
            elements[r].fill(value);
            0
        }
        None => 1,
    }
}

extern "C" fn table_copy(vmctx: *mut u8, dst_table: u32, src_table: u32, dst: u64, src: u64, len: u64) -> u32 {
    let instance = instance(vmctx);
    let Some(s) = instance.table(src_table) else { return 1 };
    let Some(sr) = range(src, len, s.elements().len()) else {
        return 1;
    };
    let words: Vec<usize> = s.elements()[sr].to_vec();
    let Some(d) = instance.table_mut(dst_table) else {
        return 1;
    };
    let elements = d.elements_mut();
    match range(dst, len, elements.len()) {
        Some(dr) => {
            elements[dr].copy_from_slice(&words);
            0
        }
        None => 1,
    }
}

extern "C" fn table_init(vmctx: *mut u8, table: u32, elem: u32, dst: u64, src: u32, len: u32) -> u32 {
    let instance = instance(vmctx);
    let words: Vec<usize> = match instance.elements.get(elem as usize) {
        Some(words) => match range(src as u64, len as u64, words.len()) {
            Some(r) => words[r].to_vec(),
            None => return 1,
        },
        None => return 1,
    };
    let Some(t) = instance.table_mut(table) else { return 1 };
    let elements = t.elements_mut();
    match range(dst, len as u64, elements.len()) {
        Some(dr) => {
            elements[dr].copy_from_slice(&words);
            0
        }
        None => 1,
    }
}

extern "C" fn elem_drop(vmctx: *mut u8, elem: u32) {
    if let Some(words) = instance(vmctx).elements.get_mut(elem as usize) {
        *words = Vec::new();
    }
}

extern "C" fn fma_f32(_vmctx: *mut u8, a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

extern "C" fn fma_f64(_vmctx: *mut u8, a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

//! The builtins of the GC proposal: allocation, the bulk array operations
//! and the casts that need an object's type (see `crate::gc`).

use crate::builtins::{instance, store_context};
use crate::instance::Instance;
use weft_environ::{array_layout, CompositeKind, GcArrayLayout, GC_OUT_OF_BOUNDS, GC_OUT_OF_MEMORY};

/// The engine type id of module type `index` of `instance`.
fn engine_type_id(instance: &Instance, index: u32) -> Option<u32> {
    if index as usize >= instance.module.types.len() {
        return None;
    }
    Some(instance.read::<u32>(instance.offsets.vmctx_type_id(index)))
}

/// The layout of module type `index`, an array type of `instance`.
fn array_type_layout(instance: &Instance, index: u32) -> Option<(GcArrayLayout, bool)> {
    let ty = instance.module.sub_types.get(index as usize)?.as_array()?;
    Some((array_layout(ty), ty.0.element_type.unpacked().is_gc_ref()))
}

pub(crate) extern "C" fn gc_alloc(vmctx: *mut u8, ty: u32, size: u64) -> u32 {
    let instance = instance(vmctx);
    let Some(id) = engine_type_id(instance, ty) else {
        return 0;
    };
    store_context(instance).gc_alloc(id, size).unwrap_or(0)
}

pub(crate) extern "C" fn gc_array_copy(
    vmctx: *mut u8,
    dst: u32,
    dst_index: u32,
    src: u32,
    src_index: u32,
    len: u32,
    elem_size: u32,
) -> u32 {
    let ctx = store_context(instance(vmctx));
    let elems_offset = GcArrayLayout::elems_offset_for(elem_size);
    ctx.with_gc_heap(|heap| {
        let (Some(dst_len), Some(src_len)) = (heap.array_len(dst), heap.array_len(src)) else {
            return 1;
        };
        let in_bounds = |at: u32, n: u32| u64::from(at) + u64::from(len) <= u64::from(n);
        if !in_bounds(dst_index, dst_len) || !in_bounds(src_index, src_len) {
            return 1;
        }
        let bytes = len as usize * elem_size as usize;
        let at = |word: u32, index: u32| word as usize + elems_offset as usize + index as usize * elem_size as usize;
        heap.copy_within(at(src, src_index), at(dst, dst_index), bytes);
        0
    })
    .unwrap_or(1)
}

/// The bytes of data segment `segment` of `instance`, or the words of its
/// element segment, as element bytes of `layout` (`None`: the range is out
/// of bounds).
fn segment_bytes(
    instance: &Instance,
    elems: bool,
    segment: u32,
    offset: u32,
    len: u32,
    layout: GcArrayLayout,
    gc_refs: bool,
) -> Option<Vec<u8>> {
    if elems {
        let words = instance.elements.get(segment as usize)?;
        let end = offset.checked_add(len)? as usize;
        let words = words.get(offset as usize..end)?;
        let mut out = Vec::with_capacity(words.len() * layout.elem_size as usize);
        for w in words {
            if gc_refs {
                out.extend_from_slice(&(*w as u32).to_le_bytes());
            } else {
                out.extend_from_slice(&(*w as u64).to_le_bytes());
            }
        }
        Some(out)
    } else {
        let dropped = instance.dropped_data.get(segment as usize).copied().unwrap_or(true);
        let data: &[u8] = match instance.module.data.get(segment as usize) {
            Some(seg) if !dropped => &seg.data,
            _ => &[],
        };
        let bytes = u64::from(len) * u64::from(layout.elem_size);
        let end = u64::from(offset).checked_add(bytes)?;
        if end > data.len() as u64 {
            return None;
        }
        Some(data[offset as usize..end as usize].to_vec())
    }
}

pub(crate) extern "C" fn gc_array_new_segment(
    vmctx: *mut u8,
    ty: u32,
    segment: u32,
    offset: u32,
    len: u32,
    elems: u32,
) -> u64 {
    let instance = instance(vmctx);
    let (Some((layout, gc_refs)), Some(id)) = (array_type_layout(instance, ty), engine_type_id(instance, ty)) else {
        return GC_OUT_OF_BOUNDS;
    };
    let Some(bytes) = segment_bytes(instance, elems != 0, segment, offset, len, layout, gc_refs) else {
        return GC_OUT_OF_BOUNDS;
    };
    let Some(size) = layout.size_for_len(len) else {
        return GC_OUT_OF_MEMORY;
    };
    let ctx = store_context(instance);
    let Ok(word) = ctx.gc_alloc(id, u64::from(size)) else {
        return GC_OUT_OF_MEMORY;
    };
    let written = ctx.with_gc_heap(|heap| {
        heap.set_array_len(word, len);
        match heap.object_bytes_mut(word, layout.elems_offset, bytes.len() as u32) {
            Some(dst) => {
                dst.copy_from_slice(&bytes);
                true
            }
            None => false,
        }
    });
    match written {
        Some(true) => u64::from(word),
        _ => GC_OUT_OF_MEMORY,
    }
}

#[allow(
    clippy::too_many_arguments,
    reason = "the builtin's signature is its operator's operands"
)]
pub(crate) extern "C" fn gc_array_init_segment(
    vmctx: *mut u8,
    ty: u32,
    array: u32,
    dst_index: u32,
    segment: u32,
    offset: u32,
    len: u32,
    elems: u32,
) -> u32 {
    let instance = instance(vmctx);
    let Some((layout, gc_refs)) = array_type_layout(instance, ty) else {
        return 1;
    };
    let ctx = store_context(instance);
    let Some(array_len) = ctx.with_gc_heap(|heap| heap.array_len(array)).flatten() else {
        return 1;
    };
    if u64::from(dst_index) + u64::from(len) > u64::from(array_len) {
        return 1;
    }
    let Some(bytes) = segment_bytes(instance, elems != 0, segment, offset, len, layout, gc_refs) else {
        return 2;
    };
    let at = layout.elems_offset + dst_index * layout.elem_size;
    ctx.with_gc_heap(|heap| match heap.object_bytes_mut(array, at, bytes.len() as u32) {
        Some(dst) => {
            dst.copy_from_slice(&bytes);
            0
        }
        None => 1,
    })
    .unwrap_or(1)
}

pub(crate) extern "C" fn gc_ref_test(vmctx: *mut u8, word: u32, test: u32, ty: u32) -> u32 {
    let instance = instance(vmctx);
    let ctx = store_context(instance);
    let Some(Some((object_type, _))) = ctx.with_gc_heap(|heap| heap.header(word)) else {
        return 0;
    };
    let types = ctx.gc_types.borrow();
    let Some(info) = types.get(&object_type) else {
        return 0;
    };
    let matched = match test {
        weft_environ::GC_TEST_STRUCT => info.kind == CompositeKind::Struct,
        weft_environ::GC_TEST_ARRAY => info.kind == CompositeKind::Array,
        _ => {
            let Some(target) = engine_type_id(instance, ty) else {
                return 0;
            };
            match types.get(&target) {
                // O(1): the target's depth, then the object type's display
                // at that depth.
                Some(t) => info.display.get(t.display.len().wrapping_sub(1)) == Some(&target),
                None => false,
            }
        }
    };
    u32::from(matched)
}

//! The builtins of the GC proposal: allocation, the bulk array operations
//! and the casts that need an object's type (see `crate::gc`).

// Import loop kept on purpose: the table of builtins (builtins.rs) lists
// every builtin compiled code calls, these included, and these reach their
// instance and store through the same helpers as the others.
use crate::builtins::{instance, store_context};
use crate::gc::GcHeap;
use crate::instance::Instance;
use crate::vm::{VMStoreContext, ValRaw};
use weft_environ::{
    array_layout, struct_layout, CompositeKind, ConstOp, GcArrayLayout, Trap, WasmStorageType, WasmValType,
    EXTERN_HOLDS_ANY, GC_EXTERN_BOX_TYPE, GC_OUT_OF_BOUNDS, GC_OUT_OF_MEMORY,
};

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
    let object_type = if test == weft_environ::GC_TEST_FUNC_SUBTYPE {
        word
    } else {
        match ctx.with_gc_heap(|heap| heap.header(word)) {
            Some(Some((object_type, _))) => object_type,
            _ => return 0,
        }
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

impl VMStoreContext {
    /// `any.convert_extern` of the externref word `e` (see
    /// [`weft_environ::EXTERN_HOLDS_ANY`]): the anyref heap word, or
    /// `AllocationTooLarge` when the GC heap has no room for a box.
    pub fn any_convert_extern(&self, e: usize) -> Result<u32, Trap> {
        any_convert_extern(self, e)
    }

    /// `extern.convert_any` of the anyref heap word `a`: the externref word.
    pub fn extern_convert_any(&self, a: u32) -> usize {
        extern_convert_any(self, a)
    }
}

/// `any.convert_extern` of the externref word `e`: null stays null, an
/// anyref made external comes back, and a host reference is boxed in a new
/// GC object.
fn any_convert_extern(ctx: &VMStoreContext, e: usize) -> Result<u32, Trap> {
    let e = e as u64;
    if e == 0 {
        return Ok(0);
    }
    if e & EXTERN_HOLDS_ANY != 0 {
        return Ok(e as u32);
    }
    let word = ctx
        .gc_alloc(GC_EXTERN_BOX_TYPE, 16)
        .map_err(|_| Trap::AllocationTooLarge)?;
    ctx.with_gc_heap(|heap| {
        if let Some(bytes) = heap.object_bytes_mut(word, 8, 8) {
            bytes.copy_from_slice(&e.to_le_bytes());
        }
    });
    Ok(word)
}

/// `extern.convert_any` of the anyref heap word `a`: a boxed host reference
/// is unboxed, any other non-null reference is tagged with
/// [`EXTERN_HOLDS_ANY`].
fn extern_convert_any(ctx: &VMStoreContext, a: u32) -> usize {
    if a == 0 {
        return 0;
    }
    let boxed = ctx.with_gc_heap(|heap| match heap.header(a) {
        Some((GC_EXTERN_BOX_TYPE, _)) => heap
            .object_bytes(a, 8, 8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes),
        _ => None,
    });
    match boxed.flatten() {
        Some(e) => e as usize,
        None => (u64::from(a) | EXTERN_HOLDS_ANY) as usize,
    }
}

pub(crate) extern "C" fn gc_any_convert_extern(vmctx: *mut u8, e: usize) -> u64 {
    let ctx = store_context(instance(vmctx));
    any_convert_extern(ctx, e).map_or(GC_OUT_OF_MEMORY, u64::from)
}

pub(crate) extern "C" fn gc_extern_convert_any(vmctx: *mut u8, a: u32) -> usize {
    extern_convert_any(store_context(instance(vmctx)), a)
}

/// The bytes of `value` as a field of storage type `ty`.
fn field_bytes(ty: WasmStorageType, value: ValRaw) -> Vec<u8> {
    match ty {
        WasmStorageType::I8 => vec![value.get_i32() as u8],
        WasmStorageType::I16 => (value.get_i32() as u16).to_le_bytes().to_vec(),
        WasmStorageType::Val(v) => match v {
            WasmValType::I32 => value.get_i32().to_le_bytes().to_vec(),
            WasmValType::I64 => value.get_i64().to_le_bytes().to_vec(),
            WasmValType::F32 => value.get_f32().to_le_bytes().to_vec(),
            WasmValType::F64 => value.get_f64().to_le_bytes().to_vec(),
            WasmValType::V128 => value.get_v128().to_le_bytes().to_vec(),
            v if v.is_gc_ref() => (value.get_word() as u32).to_le_bytes().to_vec(),
            WasmValType::Ref(_) => (value.get_word() as u64).to_le_bytes().to_vec(),
        },
    }
}

/// Allocates an object of module type `ty` of `instance` with `size`
/// bytes and writes `fields` (offset, storage type, value) into it.
fn alloc_with(instance: &Instance, ty: u32, size: u64, init: impl FnOnce(&mut GcHeap, u32)) -> Result<u32, Trap> {
    let id = engine_type_id(instance, ty).ok_or(Trap::AllocationTooLarge)?;
    let ctx = store_context(instance);
    let word = ctx.gc_alloc(id, size).map_err(|_| Trap::AllocationTooLarge)?;
    ctx.with_gc_heap(|heap| init(heap, word));
    Ok(word)
}

fn write_field(heap: &mut GcHeap, word: u32, offset: u32, ty: WasmStorageType, value: ValRaw) {
    let bytes = field_bytes(ty, value);
    if let Some(dst) = heap.object_bytes_mut(word, offset, bytes.len() as u32) {
        dst.copy_from_slice(&bytes);
    }
}

/// Evaluates an operator of the GC proposal in a constant expression,
/// popping its operands from `stack` (validation keeps them there).
pub(crate) fn eval_gc_const(instance: &Instance, op: &ConstOp, stack: &mut Vec<ValRaw>) -> Result<ValRaw, Trap> {
    fn pop(stack: &mut Vec<ValRaw>) -> ValRaw {
        stack.pop().unwrap_or_default()
    }
    let word = match *op {
        ConstOp::RefI31 => crate::gc::i31_word(pop(stack).get_i32()),
        ConstOp::AnyConvertExtern => any_convert_extern(store_context(instance), pop(stack).get_word())?,
        ConstOp::ExternConvertAny => {
            let a = pop(stack).get_word() as u32;
            return Ok(ValRaw::word(extern_convert_any(store_context(instance), a)));
        }
        ConstOp::StructNew(ty)
        | ConstOp::StructNewDefault(ty)
        | ConstOp::StructNewDesc(ty)
        | ConstOp::StructNewDefaultDesc(ty) => {
            let st = instance
                .module
                .sub_types
                .get(ty as usize)
                .and_then(|t| t.as_struct())
                .ok_or(Trap::AllocationTooLarge)?;
            let layout = struct_layout(st);
            // The descriptor (custom descriptors) is the last operand.
            let descriptor = match op {
                ConstOp::StructNewDesc(_) | ConstOp::StructNewDefaultDesc(_) => match pop(stack).get_word() as u32 {
                    0 => return Err(Trap::NullDescriptorReference),
                    d => Some(d),
                },
                _ => None,
            };
            let values = if matches!(op, ConstOp::StructNew(_) | ConstOp::StructNewDesc(_)) {
                let at = stack.len().saturating_sub(st.fields.len());
                stack.split_off(at)
            } else {
                Vec::new()
            };
            alloc_with(instance, ty, u64::from(layout.size), |heap, word| {
                if let (Some(d), Some(offset)) = (descriptor, layout.descriptor_offset) {
                    if let Some(dst) = heap.object_bytes_mut(word, offset, 4) {
                        dst.copy_from_slice(&d.to_le_bytes());
                    }
                }
                for ((field, offset), value) in st.fields.iter().zip(layout.field_offsets.iter()).zip(values) {
                    write_field(heap, word, *offset, field.element_type, value);
                }
            })?
        }
        ConstOp::ArrayNew(ty) | ConstOp::ArrayNewDefault(ty) | ConstOp::ArrayNewFixed(ty, _) => {
            let at = instance
                .module
                .sub_types
                .get(ty as usize)
                .and_then(|t| t.as_array())
                .copied()
                .ok_or(Trap::AllocationTooLarge)?;
            let layout = array_layout(&at);
            let values: Vec<ValRaw> = match *op {
                ConstOp::ArrayNewFixed(_, n) => {
                    let from = stack.len().saturating_sub(n as usize);
                    stack.split_off(from)
                }
                ConstOp::ArrayNew(_) => {
                    let len = pop(stack).get_i32() as u32;
                    let init = field_bytes(at.0.element_type, pop(stack));
                    let size = layout.size_for_len(len).ok_or(Trap::AllocationTooLarge)?;
                    let word = alloc_with(instance, ty, u64::from(size), |heap, word| {
                        heap.set_array_len(word, len);
                        let bytes = len as usize * init.len();
                        if let Some(dst) = heap.object_bytes_mut(word, layout.elems_offset, bytes as u32) {
                            for chunk in dst.chunks_exact_mut(init.len()) {
                                chunk.copy_from_slice(&init);
                            }
                        }
                    })?;
                    return Ok(ValRaw::word(word as usize));
                }
                _ => {
                    let len = pop(stack).get_i32() as u32;
                    let size = layout.size_for_len(len).ok_or(Trap::AllocationTooLarge)?;
                    let word = alloc_with(instance, ty, u64::from(size), |heap, word| {
                        heap.set_array_len(word, len)
                    })?;
                    return Ok(ValRaw::word(word as usize));
                }
            };
            let len = u32::try_from(values.len()).map_err(|_| Trap::AllocationTooLarge)?;
            let size = layout.size_for_len(len).ok_or(Trap::AllocationTooLarge)?;
            alloc_with(instance, ty, u64::from(size), |heap, word| {
                heap.set_array_len(word, len);
                for (i, value) in values.into_iter().enumerate() {
                    let offset = layout.elems_offset + i as u32 * layout.elem_size;
                    write_field(heap, word, offset, at.0.element_type, value);
                }
            })?
        }
        _ => return Err(Trap::UnreachableCodeReached),
    };
    Ok(ValRaw::word(word as usize))
}

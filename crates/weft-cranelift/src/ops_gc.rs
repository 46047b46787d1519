//! The operators of the GC proposal: structs, arrays, `i31ref`, `ref.eq`
//! and the casts (`ref.test`, `ref.cast`, `br_on_cast`, `br_on_cast_fail`).
//!
//! A reference of the `any` hierarchy is an `i64` holding a 32-bit heap
//! word (see `weft_runtime::gc`): 0 for null, `(value << 1) | 1` for an
//! `i31ref`, else an object's offset from the GC heap's base, which is read
//! from the store context (`vmstore::GC_HEAP_BASE`) at each access, since
//! the heap is made at the store's first allocation. Fields and elements
//! are read and written inline at the offsets of `weft_environ`'s layouts;
//! allocation, `array.copy`, the segment operators and the type tests of
//! objects call the runtime.

use crate::func_translator::{block_args, FuncTranslator};
use crate::types::{trap_to_code, trusted};
use anyhow::{anyhow, bail, Result};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{F32, F64, I32, I64, I8X16};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Type, Value};
use wasmparser::Operator;
use weft_environ::{
    array_layout, struct_layout, vmfuncref, vmstore, BuiltinFunction, GcArrayLayout, Trap, WasmArrayType, WasmHeapType,
    WasmRefType, WasmStorageType, WasmStructType, WasmValType, GC_ARRAY_LENGTH_OFFSET, GC_EXTERN_BOX_TYPE,
    GC_HEADER_TYPE_OFFSET, GC_OUT_OF_BOUNDS, GC_OUT_OF_MEMORY, GC_TEST_ARRAY, GC_TEST_CONCRETE, GC_TEST_FUNC_SUBTYPE,
    GC_TEST_STRUCT,
};

/// How a field is read: plain, or a packed field sign- or zero-extended.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Extend {
    None,
    Signed,
    Unsigned,
}

/// Flags for accesses to GC objects: never trap (every checked reference
/// points to a live object), little-endian, and not assumed aligned (a
/// `v128` field is only 8-byte aligned).
fn gc_flags() -> MemFlagsData {
    MemFlagsData::new()
        .with_notrap()
        .with_endianness(cranelift_codegen::ir::Endianness::Little)
}

impl FuncTranslator<'_, '_> {
    fn struct_type(&self, index: u32) -> Result<&WasmStructType> {
        self.module
            .sub_types
            .get(index as usize)
            .and_then(|t| t.as_struct())
            .ok_or_else(|| anyhow!("type {index} is not a struct type"))
    }

    fn array_type(&self, index: u32) -> Result<WasmArrayType> {
        self.module
            .sub_types
            .get(index as usize)
            .and_then(|t| t.as_array())
            .copied()
            .ok_or_else(|| anyhow!("type {index} is not an array type"))
    }

    /// The address of the object `word` (an `i64` heap word, not null).
    fn gc_object_addr(&mut self, word: Value) -> Value {
        let store = self.store_context();
        let base = self.b.ins().load(I64, trusted(), store, vmstore::GC_HEAP_BASE as i32);
        self.b.ins().iadd(base, word)
    }

    /// Pops a reference and traps with `NullReference` if it is null;
    /// returns the address of its object.
    fn pop_non_null_object(&mut self) -> Value {
        let word = self.pop();
        self.b.ins().trapz(word, trap_to_code(Trap::NullReference));
        self.gc_object_addr(word)
    }

    /// Loads a field of storage type `ty` at `addr + offset`.
    fn gc_load(&mut self, ty: WasmStorageType, extend: Extend, addr: Value, offset: u32) -> Result<Value> {
        let flags = gc_flags();
        let offset = i32::try_from(offset)?;
        let ins = self.b.ins();
        Ok(match ty {
            WasmStorageType::I8 if extend == Extend::Signed => ins.sload8(I32, flags, addr, offset),
            WasmStorageType::I8 => ins.uload8(I32, flags, addr, offset),
            WasmStorageType::I16 if extend == Extend::Signed => ins.sload16(I32, flags, addr, offset),
            WasmStorageType::I16 => ins.uload16(I32, flags, addr, offset),
            WasmStorageType::Val(v) if v.is_gc_ref() => ins.uload32(flags, addr, offset),
            WasmStorageType::Val(v) => ins.load(storage_clif_type(v), flags, addr, offset),
        })
    }

    /// Stores `value` as storage type `ty` at `addr + offset`.
    fn gc_store(&mut self, ty: WasmStorageType, value: Value, addr: Value, offset: u32) -> Result<()> {
        let flags = gc_flags();
        let offset = i32::try_from(offset)?;
        let ins = self.b.ins();
        match ty {
            WasmStorageType::I8 => ins.istore8(flags, value, addr, offset),
            WasmStorageType::I16 => ins.istore16(flags, value, addr, offset),
            WasmStorageType::Val(v) if v.is_gc_ref() => ins.istore32(flags, value, addr, offset),
            WasmStorageType::Val(_) => ins.store(flags, value, addr, offset),
        };
        Ok(())
    }

    /// Allocates an object of module type `ty` and `size` bytes (an `i64`),
    /// trapping with `AllocationTooLarge` when the heap cannot hold it;
    /// returns its heap word as an `i64`.
    fn gc_alloc(&mut self, ty: u32, size: Value) -> Result<Value> {
        let ty = self.i32_const(ty);
        let word = self
            .call_builtin(BuiltinFunction::GcAlloc, &[ty, size])?
            .ok_or_else(|| anyhow!("GcAlloc returns a word"))?;
        self.b.ins().trapz(word, trap_to_code(Trap::AllocationTooLarge));
        Ok(self.b.ins().uextend(I64, word))
    }

    /// Allocates an array of module type `ty` with `len` (an `i32`)
    /// elements, all zero, its length set; returns its heap word and the
    /// address of its object.
    fn gc_alloc_array(&mut self, ty: u32, layout: GcArrayLayout, len: Value) -> Result<(Value, Value)> {
        let len64 = self.b.ins().uextend(I64, len);
        let bytes = self.b.ins().imul_imm_u(len64, i64::from(layout.elem_size));
        let size = self.b.ins().iadd_imm_u(bytes, i64::from(layout.elems_offset));
        let word = self.gc_alloc(ty, size)?;
        let addr = self.gc_object_addr(word);
        self.b.ins().store(trusted(), len, addr, GC_ARRAY_LENGTH_OFFSET as i32);
        Ok((word, addr))
    }

    /// Stores `value` into `count` (an `i32`) consecutive elements starting
    /// at `start` (an address).
    fn gc_fill_loop(
        &mut self,
        elem: WasmStorageType,
        size: u32,
        start: Value,
        count: Value,
        value: Value,
    ) -> Result<()> {
        let header = self.b.create_block();
        let body = self.b.create_block();
        let done = self.b.create_block();
        self.b.append_block_param(header, I64);
        let count = self.b.ins().uextend(I64, count);
        let bytes = self.b.ins().imul_imm_u(count, i64::from(size));
        let end = self.b.ins().iadd(start, bytes);
        self.b.ins().jump(header, &block_args(&[start]));
        self.b.switch_to_block(header);
        let at = self.b.block_params(header)[0];
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, at, end);
        self.b.ins().brif(more, body, &[], done, &[]);
        self.b.seal_block(body);
        self.b.switch_to_block(body);
        self.gc_store(elem, value, at, 0)?;
        let next = self.b.ins().iadd_imm_u(at, i64::from(size));
        self.b.ins().jump(header, &block_args(&[next]));
        self.b.seal_block(header);
        self.b.seal_block(done);
        self.b.switch_to_block(done);
        Ok(())
    }

    /// Checks that `index` (an `i32`) plus `count` (an `i32`, or none for a
    /// single element) lies within the array at `addr`, trapping with
    /// `ArrayOutOfBounds`; returns the address of element `index`.
    fn gc_array_elem_addr(&mut self, layout: GcArrayLayout, addr: Value, index: Value, count: Option<Value>) -> Value {
        let len = self.b.ins().load(I32, trusted(), addr, GC_ARRAY_LENGTH_OFFSET as i32);
        let len = self.b.ins().uextend(I64, len);
        let index = self.b.ins().uextend(I64, index);
        let out = match count {
            None => self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, index, len),
            Some(count) => {
                let count = self.b.ins().uextend(I64, count);
                let end = self.b.ins().iadd(index, count);
                self.b.ins().icmp(IntCC::UnsignedGreaterThan, end, len)
            }
        };
        self.b.ins().trapnz(out, trap_to_code(Trap::ArrayOutOfBounds));
        let offset = self.b.ins().imul_imm_u(index, i64::from(layout.elem_size));
        let elems = self.b.ins().iadd(addr, offset);
        self.b.ins().iadd_imm_u(elems, i64::from(layout.elems_offset))
    }

    /// The heap type of a reference type of an operator's immediate,
    /// resolved to the kind of the type it names.
    fn gc_ref_type(&self, ty: wasmparser::RefType) -> Result<WasmRefType> {
        self.module.convert_ref_type(ty).map_err(|e| anyhow!(e))
    }

    /// Whether the reference `r` (an `i64`) is of type `ty`: an `i32`, 1 or
    /// 0.
    fn gc_ref_test(&mut self, r: Value, ty: WasmRefType) -> Result<Value> {
        let done = self.b.create_block();
        self.b.append_block_param(done, I32);
        let non_null = self.b.create_block();
        let null_result = self.i32_const(u32::from(ty.nullable));
        self.b.ins().brif(r, non_null, &[], done, &block_args(&[null_result]));
        self.b.seal_block(non_null);
        self.b.switch_to_block(non_null);
        use WasmHeapType as H;
        let result = match ty.heap_type {
            // An exact type (custom descriptors): the value's type id is the
            // type's own, one compare inline.
            H::ConcreteFunc(index) | H::ConcreteStruct(index) | H::ConcreteArray(index) if ty.exact => {
                let weft_environ::EngineOrModuleTypeIndex::Module(index) = index else {
                    bail!("unexpected type index {index:?}");
                };
                let actual = if let H::ConcreteFunc(_) = ty.heap_type {
                    self.b.ins().load(I32, trusted(), r, vmfuncref::TYPE_ID as i32)
                } else {
                    // An i31ref is no object.
                    let object = self.b.create_block();
                    let w = self.b.ins().ireduce(I32, r);
                    let tag = self.b.ins().band_imm_u(w, 1);
                    let zero = self.i32_const(0);
                    self.b.ins().brif(tag, done, &block_args(&[zero]), object, &[]);
                    self.b.seal_block(object);
                    self.b.switch_to_block(object);
                    let addr = self.gc_object_addr(r);
                    self.b.ins().load(I32, trusted(), addr, GC_HEADER_TYPE_OFFSET as i32)
                };
                let expected = self
                    .b
                    .ins()
                    .load(I32, trusted(), self.vmctx, self.offsets.vmctx_type_id(index) as i32);
                let same = self.b.ins().icmp(IntCC::Equal, expected, actual);
                self.b.ins().uextend(I32, same)
            }
            H::Any | H::Func | H::Extern | H::Exn => self.i32_const(1),
            H::Eq => {
                // Everything of `any` but the boxes of host references.
                let object = self.b.create_block();
                let w = self.b.ins().ireduce(I32, r);
                let tag = self.b.ins().band_imm_u(w, 1);
                let one = self.i32_const(1);
                self.b.ins().brif(tag, done, &block_args(&[one]), object, &[]);
                self.b.seal_block(object);
                self.b.switch_to_block(object);
                let addr = self.gc_object_addr(r);
                let ty = self.b.ins().load(I32, trusted(), addr, GC_HEADER_TYPE_OFFSET as i32);
                let boxed = self.b.ins().icmp_imm_u(IntCC::Equal, ty, i64::from(GC_EXTERN_BOX_TYPE));
                let eq = self.b.ins().bxor_imm_u(boxed, 1);
                self.b.ins().uextend(I32, eq)
            }
            H::None | H::NoFunc | H::NoExtern | H::NoExn => self.i32_const(0),
            H::I31 => {
                let w = self.b.ins().ireduce(I32, r);
                self.b.ins().band_imm_u(w, 1)
            }
            H::ConcreteFunc(index) => {
                let weft_environ::EngineOrModuleTypeIndex::Module(index) = index else {
                    bail!("unexpected type index {index:?}");
                };
                let actual = self.b.ins().load(I32, trusted(), r, vmfuncref::TYPE_ID as i32);
                self.func_type_matches(actual, index)?
            }
            H::Struct | H::Array | H::ConcreteStruct(_) | H::ConcreteArray(_) => {
                // An i31ref is no object.
                let object = self.b.create_block();
                let w = self.b.ins().ireduce(I32, r);
                let tag = self.b.ins().band_imm_u(w, 1);
                let zero = self.i32_const(0);
                self.b.ins().brif(tag, done, &block_args(&[zero]), object, &[]);
                self.b.seal_block(object);
                self.b.switch_to_block(object);
                let (test, index) = match ty.heap_type {
                    H::Struct => (GC_TEST_STRUCT, 0),
                    H::Array => (GC_TEST_ARRAY, 0),
                    H::ConcreteStruct(weft_environ::EngineOrModuleTypeIndex::Module(i))
                    | H::ConcreteArray(weft_environ::EngineOrModuleTypeIndex::Module(i)) => (GC_TEST_CONCRETE, i),
                    other => bail!("unexpected heap type {other}"),
                };
                let test = self.i32_const(test);
                let index = self.i32_const(index);
                self.call_builtin(BuiltinFunction::GcRefTest, &[w, test, index])?
                    .ok_or_else(|| anyhow!("GcRefTest returns a result"))?
            }
        };
        self.b.ins().jump(done, &block_args(&[result]));
        self.b.seal_block(done);
        self.b.switch_to_block(done);
        Ok(self.b.block_params(done)[0])
    }

    /// Whether the function type of engine id `actual` (an `i32`) is module
    /// type `index` or, when that is not final, one of its declared
    /// subtypes: an `i32`, 1 or 0. Final types (every type without GC) are
    /// one compare; the others ask the runtime when the ids differ.
    pub(crate) fn func_type_matches(&mut self, actual: Value, index: u32) -> Result<Value> {
        let expected = self
            .b
            .ins()
            .load(I32, trusted(), self.vmctx, self.offsets.vmctx_type_id(index) as i32);
        let same = self.b.ins().icmp(IntCC::Equal, expected, actual);
        let same = self.b.ins().uextend(I32, same);
        let is_final = self.module.sub_types.get(index as usize).is_none_or(|t| t.is_final);
        if is_final {
            return Ok(same);
        }
        let done = self.b.create_block();
        self.b.append_block_param(done, I32);
        let slow = self.b.create_block();
        self.b.ins().brif(same, done, &block_args(&[same]), slow, &[]);
        self.b.seal_block(slow);
        self.b.switch_to_block(slow);
        let test = self.i32_const(GC_TEST_FUNC_SUBTYPE);
        let index = self.i32_const(index);
        let sub = self
            .call_builtin(BuiltinFunction::GcRefTest, &[actual, test, index])?
            .ok_or_else(|| anyhow!("GcRefTest returns a result"))?;
        self.b.ins().jump(done, &block_args(&[sub]));
        self.b.seal_block(done);
        self.b.switch_to_block(done);
        Ok(self.b.block_params(done)[0])
    }

    /// Whether the reference `r` (an `i64`) is of type `ty` and has the
    /// descriptor `desc` (an `i64`, trapping with `NullDescriptorReference`
    /// when it is null): an `i32`, 1 or 0. A null `r` is of `ty` when it is
    /// nullable. The type test comes first, since only objects of subtypes
    /// of a type with a descriptor type hold a descriptor (at the offset
    /// the type's layout gives): inline when the object's type is `ty`'s
    /// own (always, for an exact `ty`), else through the runtime. Then the
    /// descriptors are compared by identity (custom descriptors).
    fn gc_ref_test_desc(&mut self, r: Value, desc: Value, ty: WasmRefType) -> Result<Value> {
        let index = match ty.heap_type {
            WasmHeapType::ConcreteStruct(weft_environ::EngineOrModuleTypeIndex::Module(i)) => i,
            _ => bail!("a descriptor cast to {ty}, which is not a concrete struct type"),
        };
        let Some(offset) = struct_layout(self.struct_type(index)?).descriptor_offset else {
            bail!("a descriptor cast to {ty}, a type without a descriptor type");
        };
        self.b.ins().trapz(desc, trap_to_code(Trap::NullDescriptorReference));
        let done = self.b.create_block();
        self.b.append_block_param(done, I32);
        let non_null = self.b.create_block();
        let object = self.b.create_block();
        let compare = self.b.create_block();
        let null_result = self.i32_const(u32::from(ty.nullable));
        self.b.ins().brif(r, non_null, &[], done, &block_args(&[null_result]));
        self.b.seal_block(non_null);
        self.b.switch_to_block(non_null);
        // An i31ref is no object.
        let w = self.b.ins().ireduce(I32, r);
        let tag = self.b.ins().band_imm_u(w, 1);
        let zero = self.i32_const(0);
        self.b.ins().brif(tag, done, &block_args(&[zero]), object, &[]);
        self.b.seal_block(object);
        self.b.switch_to_block(object);
        let addr = self.gc_object_addr(r);
        let actual = self.b.ins().load(I32, trusted(), addr, GC_HEADER_TYPE_OFFSET as i32);
        let expected = self
            .b
            .ins()
            .load(I32, trusted(), self.vmctx, self.offsets.vmctx_type_id(index) as i32);
        let same = self.b.ins().icmp(IntCC::Equal, actual, expected);
        if ty.exact {
            self.b.ins().brif(same, compare, &[], done, &block_args(&[zero]));
        } else {
            // A declared subtype of `ty`: the runtime's display test.
            let subtype = self.b.create_block();
            self.b.ins().brif(same, compare, &[], subtype, &[]);
            self.b.seal_block(subtype);
            self.b.switch_to_block(subtype);
            let test = self.i32_const(GC_TEST_CONCRETE);
            let index = self.i32_const(index);
            let sub = self
                .call_builtin(BuiltinFunction::GcRefTest, &[w, test, index])?
                .ok_or_else(|| anyhow!("GcRefTest returns a result"))?;
            self.b.ins().brif(sub, compare, &[], done, &block_args(&[zero]));
        }
        self.b.seal_block(compare);
        self.b.switch_to_block(compare);
        let held = self.b.ins().uload32(gc_flags(), addr, i32::try_from(offset)?);
        let same_desc = self.b.ins().icmp(IntCC::Equal, held, desc);
        let same_desc = self.b.ins().uextend(I32, same_desc);
        self.b.ins().jump(done, &block_args(&[same_desc]));
        self.b.seal_block(done);
        self.b.switch_to_block(done);
        Ok(self.b.block_params(done)[0])
    }

    /// `br_on_cast_desc_eq` (`on_success`) and `br_on_cast_desc_eq_fail`
    /// (not).
    fn br_on_cast_desc_eq(&mut self, relative_depth: u32, to: wasmparser::RefType, on_success: bool) -> Result<()> {
        let to = self.gc_ref_type(to)?;
        let desc = self.pop();
        let r = self.pop();
        let t = self.gc_ref_test_desc(r, desc, to)?;
        self.branch_on_test(t, r, relative_depth, on_success)
    }

    /// The branch of `br_on_cast` and its kin: to the frame at
    /// `relative_depth` with the reference `r` (and the values under it)
    /// when the test `t` is `on_success`, else on with `r` pushed back.
    fn branch_on_test(&mut self, t: Value, r: Value, relative_depth: u32, on_success: bool) -> Result<()> {
        let (target, arity) = self.branch_target(self.frame_index(relative_depth));
        let mut args = self.peekn(arity.saturating_sub(1));
        args.push(r);
        let args = block_args(&args);
        let next = self.b.create_block();
        if on_success {
            self.b.ins().brif(t, target, &args, next, &[]);
        } else {
            self.b.ins().brif(t, next, &[], target, &args);
        }
        self.b.seal_block(next);
        self.b.switch_to_block(next);
        self.push(r);
        Ok(())
    }

    /// `br_on_cast` (`on_success`) and `br_on_cast_fail` (not).
    fn br_on_cast(&mut self, relative_depth: u32, to: wasmparser::RefType, on_success: bool) -> Result<()> {
        let to = self.gc_ref_type(to)?;
        let r = self.pop();
        let t = self.gc_ref_test(r, to)?;
        self.branch_on_test(t, r, relative_depth, on_success)
    }

    /// Translates `op` if it is an operator of the GC proposal; returns
    /// whether it was.
    pub(crate) fn translate_gc(&mut self, op: &Operator<'_>) -> Result<bool> {
        use Operator as O;
        match *op {
            O::RefI31 => {
                let v = self.pop();
                let shifted = self.b.ins().ishl_imm_u(v, 1);
                let tagged = self.b.ins().bor_imm_u(shifted, 1);
                let word = self.b.ins().uextend(I64, tagged);
                self.push(word);
            }
            O::I31GetS | O::I31GetU => {
                let r = self.pop();
                self.b.ins().trapz(r, trap_to_code(Trap::NullReference));
                let w = self.b.ins().ireduce(I32, r);
                let v = if matches!(op, O::I31GetS) {
                    self.b.ins().sshr_imm_u(w, 1)
                } else {
                    self.b.ins().ushr_imm_u(w, 1)
                };
                self.push(v);
            }
            O::AnyConvertExtern => {
                let e = self.pop();
                let r = self
                    .call_builtin(BuiltinFunction::GcAnyConvertExtern, &[e])?
                    .ok_or_else(|| anyhow!("GcAnyConvertExtern returns a word"))?;
                let oom = self.b.ins().icmp_imm_u(IntCC::Equal, r, GC_OUT_OF_MEMORY as i64);
                self.b.ins().trapnz(oom, trap_to_code(Trap::AllocationTooLarge));
                self.push(r);
            }
            O::ExternConvertAny => {
                let a = self.pop();
                let e = self
                    .call_builtin(BuiltinFunction::GcExternConvertAny, &[a])?
                    .ok_or_else(|| anyhow!("GcExternConvertAny returns a word"))?;
                self.push(e);
            }
            O::RefEq => {
                let b = self.pop();
                let a = self.pop();
                let same = self.b.ins().icmp(IntCC::Equal, a, b);
                let v = self.b.ins().uextend(I32, same);
                self.push(v);
            }
            O::StructNew { struct_type_index }
            | O::StructNewDefault { struct_type_index }
            | O::StructNewDesc { struct_type_index }
            | O::StructNewDefaultDesc { struct_type_index } => {
                let ty = self.struct_type(struct_type_index)?.clone();
                let layout = struct_layout(&ty);
                // `_desc` (custom descriptors): the descriptor is the last
                // operand, and never null.
                let descriptor = match op {
                    O::StructNewDesc { .. } | O::StructNewDefaultDesc { .. } => {
                        let desc = self.pop();
                        self.b.ins().trapz(desc, trap_to_code(Trap::NullDescriptorReference));
                        Some(desc)
                    }
                    _ => None,
                };
                let values = if matches!(op, O::StructNew { .. } | O::StructNewDesc { .. }) {
                    self.popn(ty.fields.len())
                } else {
                    Vec::new()
                };
                let size = self.b.ins().iconst(I64, i64::from(layout.size));
                let word = self.gc_alloc(struct_type_index, size)?;
                if !values.is_empty() || descriptor.is_some() {
                    let addr = self.gc_object_addr(word);
                    if let (Some(desc), Some(offset)) = (descriptor, layout.descriptor_offset) {
                        self.b.ins().istore32(gc_flags(), desc, addr, i32::try_from(offset)?);
                    }
                    for ((field, offset), value) in ty.fields.iter().zip(layout.field_offsets.iter()).zip(values) {
                        self.gc_store(field.element_type, value, addr, *offset)?;
                    }
                }
                self.push(word);
            }
            O::RefGetDesc { type_index } => {
                let layout = struct_layout(self.struct_type(type_index)?);
                let Some(offset) = layout.descriptor_offset else {
                    bail!("type {type_index} has no descriptor type");
                };
                let addr = self.pop_non_null_object();
                let desc = self.b.ins().uload32(gc_flags(), addr, i32::try_from(offset)?);
                self.push(desc);
            }
            O::RefCastDescEqNonNull { hty } | O::RefCastDescEqNullable { hty } => {
                let ty = wasmparser::RefType::new(matches!(op, O::RefCastDescEqNullable { .. }), hty)
                    .ok_or_else(|| anyhow!("bad heap type"))?;
                let ty = self.gc_ref_type(ty)?;
                let desc = self.pop();
                let r = self.pop();
                let t = self.gc_ref_test_desc(r, desc, ty)?;
                self.b.ins().trapz(t, trap_to_code(Trap::DescriptorCastFailure));
                self.push(r);
            }
            O::BrOnCastDescEq {
                relative_depth,
                to_ref_type,
                ..
            } => self.br_on_cast_desc_eq(relative_depth, to_ref_type, true)?,
            O::BrOnCastDescEqFail {
                relative_depth,
                to_ref_type,
                ..
            } => self.br_on_cast_desc_eq(relative_depth, to_ref_type, false)?,
            O::StructGet {
                struct_type_index,
                field_index,
            }
            | O::StructGetS {
                struct_type_index,
                field_index,
            }
            | O::StructGetU {
                struct_type_index,
                field_index,
            } => {
                let ty = self.struct_type(struct_type_index)?.clone();
                let layout = struct_layout(&ty);
                let (Some(field), Some(offset)) = (
                    ty.fields.get(field_index as usize),
                    layout.field_offsets.get(field_index as usize),
                ) else {
                    bail!("field {field_index} out of range");
                };
                let extend = match op {
                    O::StructGetS { .. } => Extend::Signed,
                    O::StructGetU { .. } => Extend::Unsigned,
                    _ => Extend::None,
                };
                let addr = self.pop_non_null_object();
                let v = self.gc_load(field.element_type, extend, addr, *offset)?;
                self.push(v);
            }
            O::StructSet {
                struct_type_index,
                field_index,
            } => {
                let ty = self.struct_type(struct_type_index)?.clone();
                let layout = struct_layout(&ty);
                let (Some(field), Some(offset)) = (
                    ty.fields.get(field_index as usize),
                    layout.field_offsets.get(field_index as usize),
                ) else {
                    bail!("field {field_index} out of range");
                };
                let value = self.pop();
                let addr = self.pop_non_null_object();
                self.gc_store(field.element_type, value, addr, *offset)?;
            }
            O::ArrayNew { array_type_index } | O::ArrayNewDefault { array_type_index } => {
                let ty = self.array_type(array_type_index)?;
                let layout = array_layout(&ty);
                let len = self.pop();
                let init = matches!(op, O::ArrayNew { .. }).then(|| self.pop());
                let (word, addr) = self.gc_alloc_array(array_type_index, layout, len)?;
                if let Some(init) = init {
                    let start = self.b.ins().iadd_imm_u(addr, i64::from(layout.elems_offset));
                    self.gc_fill_loop(ty.0.element_type, layout.elem_size, start, len, init)?;
                }
                self.push(word);
            }
            O::ArrayNewFixed {
                array_type_index,
                array_size,
            } => {
                let ty = self.array_type(array_type_index)?;
                let layout = array_layout(&ty);
                let values = self.popn(array_size as usize);
                let len = self.i32_const(array_size);
                let (word, addr) = self.gc_alloc_array(array_type_index, layout, len)?;
                for (i, value) in values.into_iter().enumerate() {
                    let offset = u32::try_from(i)?
                        .checked_mul(layout.elem_size)
                        .and_then(|o| o.checked_add(layout.elems_offset))
                        .ok_or_else(|| anyhow!("array.new_fixed of {array_size} elements is too large"))?;
                    self.gc_store(ty.0.element_type, value, addr, offset)?;
                }
                self.push(word);
            }
            O::ArrayNewData {
                array_type_index,
                array_data_index: segment,
            }
            | O::ArrayNewElem {
                array_type_index,
                array_elem_index: segment,
            } => {
                let elems = matches!(op, O::ArrayNewElem { .. });
                let len = self.pop();
                let offset = self.pop();
                let ty = self.i32_const(array_type_index);
                let segment = self.i32_const(segment);
                let which = self.i32_const(u32::from(elems));
                let r = self
                    .call_builtin(BuiltinFunction::GcArrayNewSegment, &[ty, segment, offset, len, which])?
                    .ok_or_else(|| anyhow!("GcArrayNewSegment returns a word"))?;
                let oob = self.b.ins().icmp_imm_u(IntCC::Equal, r, GC_OUT_OF_BOUNDS as i64);
                let trap = if elems {
                    Trap::TableOutOfBounds
                } else {
                    Trap::MemoryOutOfBounds
                };
                self.b.ins().trapnz(oob, trap_to_code(trap));
                let oom = self.b.ins().icmp_imm_u(IntCC::Equal, r, GC_OUT_OF_MEMORY as i64);
                self.b.ins().trapnz(oom, trap_to_code(Trap::AllocationTooLarge));
                self.push(r);
            }
            O::ArrayGet { array_type_index }
            | O::ArrayGetS { array_type_index }
            | O::ArrayGetU { array_type_index } => {
                let ty = self.array_type(array_type_index)?;
                let layout = array_layout(&ty);
                let extend = match op {
                    O::ArrayGetS { .. } => Extend::Signed,
                    O::ArrayGetU { .. } => Extend::Unsigned,
                    _ => Extend::None,
                };
                let index = self.pop();
                let addr = self.pop_non_null_object();
                let at = self.gc_array_elem_addr(layout, addr, index, None);
                let v = self.gc_load(ty.0.element_type, extend, at, 0)?;
                self.push(v);
            }
            O::ArraySet { array_type_index } => {
                let ty = self.array_type(array_type_index)?;
                let layout = array_layout(&ty);
                let value = self.pop();
                let index = self.pop();
                let addr = self.pop_non_null_object();
                let at = self.gc_array_elem_addr(layout, addr, index, None);
                self.gc_store(ty.0.element_type, value, at, 0)?;
            }
            O::ArrayLen => {
                let addr = self.pop_non_null_object();
                let len = self.b.ins().load(I32, trusted(), addr, GC_ARRAY_LENGTH_OFFSET as i32);
                self.push(len);
            }
            O::ArrayFill { array_type_index } => {
                let ty = self.array_type(array_type_index)?;
                let layout = array_layout(&ty);
                let count = self.pop();
                let value = self.pop();
                let index = self.pop();
                let addr = self.pop_non_null_object();
                let start = self.gc_array_elem_addr(layout, addr, index, Some(count));
                self.gc_fill_loop(ty.0.element_type, layout.elem_size, start, count, value)?;
            }
            O::ArrayCopy {
                array_type_index_dst, ..
            } => {
                let ty = self.array_type(array_type_index_dst)?;
                let layout = array_layout(&ty);
                let count = self.pop();
                let src_index = self.pop();
                let src = self.pop();
                let dst_index = self.pop();
                let dst = self.pop();
                self.b.ins().trapz(src, trap_to_code(Trap::NullReference));
                self.b.ins().trapz(dst, trap_to_code(Trap::NullReference));
                let elem_size = self.i32_const(layout.elem_size);
                self.call_builtin_checked(
                    BuiltinFunction::GcArrayCopy,
                    &[dst, dst_index, src, src_index, count, elem_size],
                    Trap::ArrayOutOfBounds,
                )?;
            }
            O::ArrayInitData {
                array_type_index,
                array_data_index: segment,
            }
            | O::ArrayInitElem {
                array_type_index,
                array_elem_index: segment,
            } => {
                let elems = matches!(op, O::ArrayInitElem { .. });
                let count = self.pop();
                let src = self.pop();
                let dst_index = self.pop();
                let array = self.pop();
                self.b.ins().trapz(array, trap_to_code(Trap::NullReference));
                let ty = self.i32_const(array_type_index);
                let segment = self.i32_const(segment);
                let which = self.i32_const(u32::from(elems));
                let status = self
                    .call_builtin(
                        BuiltinFunction::GcArrayInitSegment,
                        &[ty, array, dst_index, segment, src, count, which],
                    )?
                    .ok_or_else(|| anyhow!("GcArrayInitSegment returns a status"))?;
                let array_oob = self.b.ins().icmp_imm_u(IntCC::Equal, status, 1);
                self.b.ins().trapnz(array_oob, trap_to_code(Trap::ArrayOutOfBounds));
                let segment_oob = self.b.ins().icmp_imm_u(IntCC::Equal, status, 2);
                let trap = if elems {
                    Trap::TableOutOfBounds
                } else {
                    Trap::MemoryOutOfBounds
                };
                self.b.ins().trapnz(segment_oob, trap_to_code(trap));
            }
            O::RefTestNonNull { hty } | O::RefTestNullable { hty } => {
                let ty = wasmparser::RefType::new(matches!(op, O::RefTestNullable { .. }), hty)
                    .ok_or_else(|| anyhow!("bad heap type"))?;
                let ty = self.gc_ref_type(ty)?;
                let r = self.pop();
                let t = self.gc_ref_test(r, ty)?;
                self.push(t);
            }
            O::RefCastNonNull { hty } | O::RefCastNullable { hty } => {
                let ty = wasmparser::RefType::new(matches!(op, O::RefCastNullable { .. }), hty)
                    .ok_or_else(|| anyhow!("bad heap type"))?;
                let ty = self.gc_ref_type(ty)?;
                let r = self.pop();
                let t = self.gc_ref_test(r, ty)?;
                self.b.ins().trapz(t, trap_to_code(Trap::CastFailure));
                self.push(r);
            }
            O::BrOnCast {
                relative_depth,
                to_ref_type,
                ..
            } => self.br_on_cast(relative_depth, to_ref_type, true)?,
            O::BrOnCastFail {
                relative_depth,
                to_ref_type,
                ..
            } => self.br_on_cast(relative_depth, to_ref_type, false)?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// The Cranelift type a field of value type `ty` is loaded as.
fn storage_clif_type(ty: WasmValType) -> Type {
    match ty {
        WasmValType::I32 => I32,
        WasmValType::I64 | WasmValType::Ref(_) => I64,
        WasmValType::F32 => F32,
        WasmValType::F64 => F64,
        WasmValType::V128 => I8X16,
    }
}

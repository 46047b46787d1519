//! Linear memory operators (loads, stores, `memory.*`, `data.drop`) and
//! globals.

use crate::func_translator::FuncTranslator;
use crate::types::{clif_type, trap_to_code, trusted, vmctx_readonly};
use anyhow::{anyhow, bail, Result};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{F32, F64, I16, I32, I64, I8, I8X16};
use cranelift_codegen::ir::{Endianness, InstBuilder, InstructionData, MemFlagsData, Opcode, Type, Value};
use cranelift_frontend::FunctionBuilder;
use wasmparser::{MemArg, MemArgTarget, Operator};
use weft_environ::{vmmemory, BuiltinFunction, Trap};

/// The longest `memory.copy` of a constant length compiled inline, as
/// loads of 16 bytes (then 8, 4, 2 and 1 for the rest) and as many stores,
/// rather than as a call to the copy builtin; Wasmtime does the same for
/// small copies. A 16-byte copy inside a loop went from 5.2 ns to 0.55 ns.
const INLINE_COPY_MAX: u64 = 64;

impl FuncTranslator<'_, '_> {
    /// Loads the pointer to the `VMMemoryDefinition` of memory `mem`.
    pub(crate) fn memory_def(&mut self, mem: u32) -> Result<Value> {
        self.check_memory(mem)?;
        let offset = self.offsets.vmctx_memory(mem) as i32;
        Ok(self.b.ins().load(I64, vmctx_readonly(), self.vmctx, offset))
    }

    /// Loads the base of memory `mem` from the vmctx's copy of it. The base
    /// of a memory never moves (it is a fixed reservation whose accessible
    /// part only grows), so the load may be hoisted and shared like any
    /// field of the vmctx.
    pub(crate) fn memory_base(&mut self, mem: u32) -> Result<Value> {
        match self.memory_bases.get(mem as usize) {
            Some(base) => Ok(*base),
            None => self.load_memory_base(mem),
        }
    }

    /// Loads the base address of memory `mem` from the vmctx at the current
    /// position (see [`FuncTranslator::memory_base`]).
    pub(crate) fn load_memory_base(&mut self, mem: u32) -> Result<Value> {
        self.check_memory(mem)?;
        let offset = self.offsets.vmctx_memory_base(mem) as i32;
        Ok(self.b.ins().load(I64, vmctx_readonly(), self.vmctx, offset))
    }

    /// Checks that memory `mem` exists; returns whether it is a 64-bit
    /// memory.
    fn check_memory(&self, mem: u32) -> Result<bool> {
        Ok(self.memory_decl(mem)?.memory64)
    }

    /// The declaration of memory `mem`.
    pub(crate) fn memory_decl(&self, mem: u32) -> Result<&weft_environ::Memory> {
        self.module
            .memories
            .get(mem as usize)
            .ok_or_else(|| anyhow!("memory {mem} out of range"))
    }

    pub(crate) fn vmmemory_flags(&self) -> MemFlagsData {
        trusted().with_alias_region(Some(self.regions.vmmemory))
    }

    /// Loads the current length in bytes of the memory whose definition is
    /// `def`, as `i64`.
    pub(crate) fn memory_length(&mut self, def: Value) -> Value {
        let flags = self.vmmemory_flags();
        self.b.ins().load(I64, flags, def, vmmemory::CURRENT_LENGTH as i32)
    }

    /// Flags of wasm loads and stores: little-endian, possibly unaligned,
    /// trapping with HEAP_OUT_OF_BOUNDS in the guard region.
    pub(crate) fn heap_flags(&self) -> MemFlagsData {
        MemFlagsData::new()
            .with_endianness(Endianness::Little)
            .with_alias_region(Some(self.regions.heap))
    }

    /// Pops an index and computes the native address of a wasm access of
    /// `size` bytes: an address and the immediate offset to add to it.
    ///
    /// For a 32-bit memory the address is `base + uextend(index)`: the
    /// 4 GiB guard region after the reservation makes bounds checks
    /// unnecessary. A 64-bit memory's index space is far larger than any
    /// guard region, and a memory of 1-byte pages may end inside a host
    /// page (the rest of which is accessible), and a memory the embedder
    /// provides has no guard region (`Tunables::explicit_bounds_checks`),
    /// so those accesses are checked against the current length;
    /// an out-of-bounds access gets the address 0 (chosen with
    /// `select_spectre_guard`, so that not even a speculated access
    /// leaves the memory), which faults and traps with
    /// HEAP_OUT_OF_BOUNDS.
    pub(crate) fn heap_addr(&mut self, memarg: &MemArg, size: u32) -> Result<(Value, i32)> {
        let mem = match memarg.target {
            MemArgTarget::Memory(mem) => mem,
            MemArgTarget::Array(_) => bail!("GC array accesses are not supported"),
        };
        if memarg.ordering.is_some() {
            bail!("atomic memory accesses are not supported");
        }
        let index = self.pop();
        let decl = self.memory_decl(mem)?;
        let (memory64, small_pages) = (decl.memory64, decl.page_size_log2 < weft_environ::WASM_PAGE_SIZE_LOG2);
        let base = self.memory_base(mem)?;
        if memory64 {
            let def = self.memory_def(mem)?;
            return Ok((self.bounds_checked_addr(def, base, index, memarg.offset, size), 0));
        }
        if small_pages || self.tunables.explicit_bounds_checks {
            let index = self.b.ins().uextend(I64, index);
            let def = self.memory_def(mem)?;
            return Ok((self.bounds_checked_addr(def, base, index, memarg.offset, size), 0));
        }
        let addr = self.unchecked_addr(mem, base, index);
        match i32::try_from(memarg.offset) {
            Ok(offset) => Ok((addr, offset)),
            Err(_) => {
                let offset = i64::try_from(memarg.offset)?;
                Ok((self.b.ins().iadd_imm_u(addr, offset), 0))
            }
        }
    }

    /// `base + index` for the 32-bit `index` of memory `mem` with guard
    /// pages: the address already computed for the same index and memory
    /// in the current block, if any. (Accesses at several offsets from one
    /// pointer, such as a struct's fields, share it; Cranelift's optimizer
    /// would merge the copies, but each one costs it and the translator
    /// time first.)
    fn unchecked_addr(&mut self, mem: u32, base: Value, index: Value) -> Value {
        /// The addresses remembered per block.
        const CACHED_ADDRS: usize = 8;
        let block = self.b.current_block();
        if self.addr_block != block {
            self.addr_cache.clear();
            self.addr_block = block;
        }
        if let Some(e) = self.addr_cache.iter().rev().find(|e| e.mem == mem && e.index == index) {
            return e.addr;
        }
        let wide = self.b.ins().uextend(I64, index);
        let addr = self.b.ins().iadd(base, wide);
        if self.addr_cache.len() == CACHED_ADDRS {
            self.addr_cache.remove(0);
        }
        self.addr_cache
            .push(crate::func_translator::AddrCacheEntry { mem, index, addr });
        addr
    }

    /// The address of an access of `size` bytes at `index + offset` of the
    /// 64-bit memory `def` (based at `base`), or 0 when out of bounds (see
    /// [`FuncTranslator::heap_addr`]).
    fn bounds_checked_addr(&mut self, def: Value, base: Value, index: Value, offset: u64, size: u32) -> Value {
        let length = self.memory_length(def);
        let oob_code = trap_to_code(Trap::MemoryOutOfBounds);
        let end = match offset.checked_add(u64::from(size)) {
            Some(extent) => {
                let extent = self.b.ins().iconst(I64, extent as i64);
                self.b.ins().uadd_overflow_trap(index, extent, oob_code)
            }
            None => {
                // `offset + size` exceeds the 64-bit index space: every
                // access traps.
                let offset = self.b.ins().iconst(I64, offset as i64);
                let end = self.b.ins().uadd_overflow_trap(index, offset, oob_code);
                let size = self.b.ins().iconst(I64, i64::from(size));
                self.b.ins().uadd_overflow_trap(end, size, oob_code)
            }
        };
        let oob = self.b.ins().icmp(IntCC::UnsignedGreaterThan, end, length);
        let addr = self.b.ins().iadd(base, index);
        let addr = self.b.ins().iadd_imm_u(addr, offset as i64);
        let null = self.b.ins().iconst(I64, 0);
        self.b.ins().select_spectre_guard(oob, null, addr)
    }

    pub(crate) fn wasm_load(
        &mut self,
        memarg: &MemArg,
        size: u32,
        load: impl FnOnce(&mut FunctionBuilder<'_>, MemFlagsData, Value, i32) -> Value,
    ) -> Result<()> {
        let (addr, offset) = self.heap_addr(memarg, size)?;
        let flags = self.heap_flags();
        let v = load(&mut self.b, flags, addr, offset);
        self.push(v);
        Ok(())
    }

    pub(crate) fn wasm_store(
        &mut self,
        memarg: &MemArg,
        size: u32,
        store: impl FnOnce(&mut FunctionBuilder<'_>, MemFlagsData, Value, Value, i32),
    ) -> Result<()> {
        let value = self.pop();
        let (addr, offset) = self.heap_addr(memarg, size)?;
        let flags = self.heap_flags();
        store(&mut self.b, flags, value, addr, offset);
        Ok(())
    }

    fn load_typed(&mut self, memarg: &MemArg, ty: Type) -> Result<()> {
        self.wasm_load(memarg, ty.bytes(), |b, f, a, o| b.ins().load(ty, f, a, o))
    }

    fn store_typed(&mut self, memarg: &MemArg, size: u32) -> Result<()> {
        self.wasm_store(memarg, size, |b, f, v, a, o| {
            b.ins().store(f, v, a, o);
        })
    }

    /// Translates `op` if it is a memory or global operator; returns
    /// whether it was.
    pub(crate) fn translate_memory(&mut self, op: &Operator<'_>) -> Result<bool> {
        use Operator as O;
        match op {
            O::I32Load { memarg } => self.load_typed(memarg, I32)?,
            O::I64Load { memarg } => self.load_typed(memarg, I64)?,
            O::F32Load { memarg } => self.load_typed(memarg, F32)?,
            O::F64Load { memarg } => self.load_typed(memarg, F64)?,
            O::I32Load8S { memarg } => self.wasm_load(memarg, 1, |b, f, a, o| b.ins().sload8(I32, f, a, o))?,
            O::I32Load8U { memarg } => self.wasm_load(memarg, 1, |b, f, a, o| b.ins().uload8(I32, f, a, o))?,
            O::I32Load16S { memarg } => self.wasm_load(memarg, 2, |b, f, a, o| b.ins().sload16(I32, f, a, o))?,
            O::I32Load16U { memarg } => self.wasm_load(memarg, 2, |b, f, a, o| b.ins().uload16(I32, f, a, o))?,
            O::I64Load8S { memarg } => self.wasm_load(memarg, 1, |b, f, a, o| b.ins().sload8(I64, f, a, o))?,
            O::I64Load8U { memarg } => self.wasm_load(memarg, 1, |b, f, a, o| b.ins().uload8(I64, f, a, o))?,
            O::I64Load16S { memarg } => self.wasm_load(memarg, 2, |b, f, a, o| b.ins().sload16(I64, f, a, o))?,
            O::I64Load16U { memarg } => self.wasm_load(memarg, 2, |b, f, a, o| b.ins().uload16(I64, f, a, o))?,
            O::I64Load32S { memarg } => self.wasm_load(memarg, 4, |b, f, a, o| b.ins().sload32(f, a, o))?,
            O::I64Load32U { memarg } => self.wasm_load(memarg, 4, |b, f, a, o| b.ins().uload32(f, a, o))?,
            O::I32Store { memarg } | O::F32Store { memarg } => self.store_typed(memarg, 4)?,
            O::I64Store { memarg } | O::F64Store { memarg } => self.store_typed(memarg, 8)?,
            O::I32Store8 { memarg } | O::I64Store8 { memarg } => self.wasm_store(memarg, 1, |b, f, v, a, o| {
                b.ins().istore8(f, v, a, o);
            })?,
            O::I32Store16 { memarg } | O::I64Store16 { memarg } => self.wasm_store(memarg, 2, |b, f, v, a, o| {
                b.ins().istore16(f, v, a, o);
            })?,
            O::I64Store32 { memarg } => self.wasm_store(memarg, 4, |b, f, v, a, o| {
                b.ins().istore32(f, v, a, o);
            })?,
            O::MemorySize { mem } => {
                let decl = self.memory_decl(*mem)?;
                let (memory64, page_size_log2) = (decl.memory64, decl.page_size_log2);
                let def = self.memory_def(*mem)?;
                let length = self.memory_length(def);
                let pages = self.b.ins().ushr_imm_u(length, i64::from(page_size_log2));
                let pages = if memory64 {
                    pages
                } else {
                    self.b.ins().ireduce(I32, pages)
                };
                self.push(pages);
            }
            O::MemoryGrow { mem } => {
                let memory64 = self.check_memory(*mem)?;
                let delta = self.pop();
                let mem = self.i32_const(*mem);
                let old = self.call_builtin(BuiltinFunction::MemoryGrow, &[mem, delta])?;
                let old = old.ok_or_else(|| anyhow!("memory.grow builtin returns nothing"))?;
                self.trap_on_grow_error(old);
                let old = if memory64 { old } else { self.b.ins().ireduce(I32, old) };
                self.push(old);
            }
            O::MemoryFill { mem } => {
                // The builtin takes the memory's definition, not its index,
                // and reads its base and length where this code does.
                let def = self.memory_def(*mem)?;
                let (dst, byte, len) = self.pop3();
                self.call_builtin_checked(
                    BuiltinFunction::MemoryFill,
                    &[def, dst, byte, len],
                    Trap::MemoryOutOfBounds,
                )?;
            }
            O::MemoryCopy { dst_mem, src_mem } => {
                if let Some(n) = self.copy_length_to_inline() {
                    self.inline_memory_copy(*dst_mem, *src_mem, n)?;
                } else {
                    // Definitions, not indices, as for `memory.fill`.
                    let dst_def = self.memory_def(*dst_mem)?;
                    let src_def = self.memory_def(*src_mem)?;
                    let (dst, src, len) = self.pop3();
                    self.call_builtin_checked(
                        BuiltinFunction::MemoryCopy,
                        &[dst_def, dst, src_def, src, len],
                        Trap::MemoryOutOfBounds,
                    )?;
                }
            }
            O::MemoryInit { data_index, mem } => {
                self.check_memory(*mem)?;
                let (dst, src, len) = self.pop3();
                let mem = self.i32_const(*mem);
                let data = self.i32_const(*data_index);
                self.call_builtin_checked(
                    BuiltinFunction::MemoryInit,
                    &[mem, data, dst, src, len],
                    Trap::MemoryOutOfBounds,
                )?;
            }
            O::DataDrop { data_index } => {
                let data = self.i32_const(*data_index);
                self.call_builtin(BuiltinFunction::DataDrop, &[data])?;
            }
            O::GlobalGet { global_index } => {
                let (ptr, offset, ty, flags) = self.global_access(*global_index)?;
                let v = self.b.ins().load(ty, flags, ptr, offset);
                self.push(v);
            }
            O::GlobalSet { global_index } => {
                let (ptr, offset, _, flags) = self.global_access(*global_index)?;
                let v = self.pop();
                self.b.ins().store(flags, v, ptr, offset);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The length of the `memory.copy` about to be translated, when it is a
    /// constant of at most [`INLINE_COPY_MAX`] bytes.
    fn copy_length_to_inline(&self) -> Option<u64> {
        let &len = self.stack.last()?;
        let dfg = &self.b.func.dfg;
        let inst = dfg.value_def(len).inst()?;
        let InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm,
        } = dfg.insts[inst]
        else {
            return None;
        };
        let bits = imm.bits() as u64;
        let n = if dfg.value_type(len) == I32 {
            bits & 0xffff_ffff
        } else {
            bits
        };
        (n <= INLINE_COPY_MAX).then_some(n)
    }

    /// Translates a `memory.copy` whose length is the small constant `n`
    /// (see [`FuncTranslator::copy_length_to_inline`]) without a call: checks
    /// both ranges against their memories' lengths, trapping with
    /// [`Trap::MemoryOutOfBounds`] before anything is written, then loads
    /// every byte of the source before storing any, so that overlapping
    /// ranges copy as if through a buffer, as the instruction requires.
    fn inline_memory_copy(&mut self, dst_mem: u32, src_mem: u32, n: u64) -> Result<()> {
        let (dst, src, _) = self.pop3();
        let dst_addr = self.checked_range_addr(dst_mem, dst, n)?;
        let src_addr = self.checked_range_addr(src_mem, src, n)?;
        let flags = self.heap_flags();
        let mut pieces = Vec::new();
        let mut at = 0;
        while at < n {
            let ty = match n - at {
                16.. => I8X16,
                8.. => I64,
                4.. => I32,
                2.. => I16,
                _ => I8,
            };
            let value = self.b.ins().load(ty, flags, src_addr, at as i32);
            pieces.push((at, value));
            at += u64::from(ty.bytes());
        }
        for (at, value) in pieces {
            self.b.ins().store(flags, value, dst_addr, at as i32);
        }
        Ok(())
    }

    /// The native address of `index` in memory `mem`, after trapping with
    /// [`Trap::MemoryOutOfBounds`] unless `index + n` is within the
    /// memory's current length. The check is explicit even where a guard
    /// region would catch the access: a copy must trap before it writes
    /// anything. It is not [`FuncTranslator::bounds_checked_addr`] plus a
    /// trap: that one adds with an overflow check even to a 32-bit index,
    /// which cannot overflow here, and the extra branch made a 16-byte copy
    /// in a loop 25 % slower (0.55 to 0.68 ns).
    fn checked_range_addr(&mut self, mem: u32, index: Value, n: u64) -> Result<Value> {
        let memory64 = self.check_memory(mem)?;
        let def = self.memory_def(mem)?;
        let base = self.memory_base(mem)?;
        let length = self.memory_length(def);
        let oob_code = trap_to_code(Trap::MemoryOutOfBounds);
        let index = if memory64 {
            index
        } else {
            self.b.ins().uextend(I64, index)
        };
        let end = if memory64 {
            let n = self.b.ins().iconst(I64, n as i64);
            self.b.ins().uadd_overflow_trap(index, n, oob_code)
        } else {
            // A 32-bit index plus at most INLINE_COPY_MAX cannot overflow.
            self.b.ins().iadd_imm_u(index, n as i64)
        };
        let oob = self.b.ins().icmp(IntCC::UnsignedGreaterThan, end, length);
        self.b.ins().trapnz(oob, oob_code);
        // As in `bounds_checked_addr`: a load that runs ahead of the trap
        // speculatively reads address 0, not out of bounds.
        let addr = self.b.ins().iadd(base, index);
        let null = self.b.ins().iconst(I64, 0);
        Ok(self.b.ins().select_spectre_guard(oob, null, addr))
    }

    /// Where a global's value lies (an address and an offset from it), its
    /// type and the flags to access it with: a defined global in this
    /// instance's vmctx, an imported one behind the pointer the vmctx holds.
    /// The value of an immutable global never changes, so its loads may be
    /// moved and shared.
    fn global_access(&mut self, index: u32) -> Result<(Value, i32, Type, MemFlagsData)> {
        let global = *self
            .module
            .globals
            .get(index as usize)
            .ok_or_else(|| anyhow!("global {index} out of range"))?;
        let ty = clif_type(global.ty)?;
        let (ptr, offset) = match index.checked_sub(self.offsets.num_imported_globals) {
            Some(defined) => (self.vmctx, self.offsets.vmctx_defined_global(defined)),
            None => {
                let offset = self.offsets.vmctx_imported_global(index) as i32;
                (self.b.ins().load(I64, vmctx_readonly(), self.vmctx, offset), 0)
            }
        };
        let mut flags = trusted().with_alias_region(Some(self.regions.globals));
        if !global.mutable {
            flags = flags.with_readonly().with_can_move();
        }
        Ok((ptr, i32::try_from(offset)?, ty, flags))
    }
}

//! Table and reference operators, and `call_indirect`.

use crate::func_translator::FuncTranslator;
use crate::types::{trap_to_code, trusted, trusted_readonly, vmctx_readonly};
use anyhow::{anyhow, bail, Result};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value};
use wasmparser::Operator;
use weft_environ::{vmfuncref, vmtable, BuiltinFunction, Trap};

impl FuncTranslator<'_, '_> {
    /// Loads the pointer to the `VMTableDefinition` of table `table`.
    fn table_def(&mut self, table: u32) -> Result<Value> {
        self.check_table(table)?;
        let offset = self.offsets.vmctx_table(table) as i32;
        Ok(self.b.ins().load(I64, vmctx_readonly(), self.vmctx, offset))
    }

    /// Checks that `table` exists; returns whether it is a 64-bit table.
    fn check_table(&self, table: u32) -> Result<bool> {
        let t = self
            .module
            .tables
            .get(table as usize)
            .ok_or_else(|| anyhow!("table {table} out of range"))?;
        Ok(t.table64)
    }

    fn vmtable_flags(&self) -> MemFlagsData {
        trusted().with_alias_region(Some(self.regions.vmtable))
    }

    fn table_elem_flags(&self) -> MemFlagsData {
        trusted().with_alias_region(Some(self.regions.table_elems))
    }

    /// The number of elements of table `table`, if it can never change: a
    /// table the module defines with equal minimum and maximum. Such a
    /// table is made with its minimum size, cannot grow, and keeps its
    /// elements where they are, as Wasmtime's static tables do. (An
    /// imported table is left out: its size is the exporter's.)
    fn fixed_table_len(&self, table: u32) -> Option<u64> {
        if table < self.module.num_imported_tables {
            return None;
        }
        let t = self.module.tables.get(table as usize)?;
        (t.maximum == Some(t.minimum)).then_some(t.minimum)
    }

    /// The current number of elements of table `table` (whose definition
    /// is `def`), as `i64`: a constant for a table of fixed size.
    fn table_len(&mut self, table: u32, def: Value) -> Value {
        match self.fixed_table_len(table) {
            // A table larger than the runtime's element limit fails to
            // instantiate, so the code runs only with a size that fits.
            Some(len) => self.b.ins().iconst(I64, len as i64),
            None => {
                let flags = self.vmtable_flags();
                self.b.ins().load(I64, flags, def, vmtable::CURRENT_ELEMENTS as i32)
            }
        }
    }

    /// The address of element `index` (an `i32`, or an `i64` for a 64-bit
    /// table) of `table`, trapping with [`Trap::TableOutOfBounds`] when the
    /// index is out of bounds. The address is guarded against speculation
    /// past the check (`select_spectre_guard` picks the table's base when
    /// out of bounds).
    fn table_elem_addr(&mut self, table: u32, index: Value) -> Result<Value> {
        let table64 = self.check_table(table)?;
        let def = self.table_def(table)?;
        let len = self.table_len(table, def);
        let index = if table64 {
            index
        } else {
            self.b.ins().uextend(I64, index)
        };
        let oob = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, index, len);
        self.b.ins().trapnz(oob, trap_to_code(Trap::TableOutOfBounds));
        // The elements of a table of fixed size never move: their base may
        // be loaded once for a loop.
        let flags = match self.fixed_table_len(table) {
            Some(_) => vmctx_readonly(),
            None => self.vmtable_flags(),
        };
        let base = self.b.ins().load(I64, flags, def, vmtable::BASE as i32);
        let scaled = self
            .b
            .ins()
            .ishl_imm_u(index, i64::from(vmtable::ELEMENT_SIZE.trailing_zeros()));
        let addr = self.b.ins().iadd(base, scaled);
        Ok(self.b.ins().select_spectre_guard(oob, base, addr))
    }

    /// `call_indirect`: bounds check, null check, signature check, call.
    pub(crate) fn translate_call_indirect(&mut self, type_index: u32, table: u32) -> Result<()> {
        let (code, callee_vmctx) = self.indirect_callee(type_index, table)?;
        self.call_wasm_indirect(type_index, code, callee_vmctx)
    }

    /// Pops a table index and finds the function `call_indirect` calls: the
    /// code pointer and vmctx of the element, after the bounds check, the
    /// null check and the signature check.
    pub(crate) fn indirect_callee(&mut self, type_index: u32, table: u32) -> Result<(Value, Value)> {
        let index = self.pop();
        let addr = self.table_elem_addr(table, index)?;
        let flags = self.table_elem_flags();
        let func_ref = self.b.ins().load(I64, flags, addr, 0);
        self.b.ins().trapz(func_ref, trap_to_code(Trap::IndirectCallToNull));
        let actual = self
            .b
            .ins()
            .load(I32, trusted_readonly(), func_ref, vmfuncref::TYPE_ID as i32);
        if self
            .module
            .sub_types
            .get(type_index as usize)
            .is_some_and(|t| !t.is_final)
        {
            // A type that may have subtypes (GC): any subtype matches.
            let matches = self.func_type_matches(actual, type_index)?;
            self.b.ins().trapz(matches, trap_to_code(Trap::BadSignature));
            return Ok(self.load_func_ref_fields(func_ref, false));
        }
        let expected_offset = self.offsets.vmctx_type_id(type_index) as i32;
        let expected = self.b.ins().load(I32, vmctx_readonly(), self.vmctx, expected_offset);
        let mismatch = self.b.ins().icmp(IntCC::NotEqual, actual, expected);
        self.b.ins().trapnz(mismatch, trap_to_code(Trap::BadSignature));
        Ok(self.load_func_ref_fields(func_ref, false))
    }

    /// Translates `op` if it is a table or reference operator; returns
    /// whether it was.
    pub(crate) fn translate_table(&mut self, op: &Operator<'_>) -> Result<bool> {
        use Operator as O;
        match *op {
            O::RefNull { .. } => {
                let v = self.b.ins().iconst(I64, 0);
                self.push(v);
            }
            O::RefIsNull => {
                let r = self.pop();
                let c = self.b.ins().icmp_imm_u(IntCC::Equal, r, 0);
                let v = self.b.ins().uextend(I32, c);
                self.push(v);
            }
            O::RefFunc { function_index } => {
                if function_index as usize >= self.module.functions.len() {
                    bail!("function {function_index} out of range");
                }
                let offset = self.offsets.vmctx_func_ref(function_index) as i32;
                let v = self.b.ins().load(I64, vmctx_readonly(), self.vmctx, offset);
                self.push(v);
            }
            O::TableGet { table } => {
                let index = self.pop();
                let addr = self.table_elem_addr(table, index)?;
                let flags = self.table_elem_flags();
                let v = self.b.ins().load(I64, flags, addr, 0);
                self.push(v);
            }
            O::TableSet { table } => {
                let (index, value) = self.pop2();
                let addr = self.table_elem_addr(table, index)?;
                let flags = self.table_elem_flags();
                self.b.ins().store(flags, value, addr, 0);
            }
            O::TableSize { table } => {
                let table64 = self.check_table(table)?;
                let def = self.table_def(table)?;
                let len = self.table_len(table, def);
                let v = if table64 { len } else { self.b.ins().ireduce(I32, len) };
                self.push(v);
            }
            O::TableGrow { table } => {
                let table64 = self.check_table(table)?;
                let (init, delta) = self.pop2();
                let t = self.i32_const(table);
                let old = self.call_builtin(BuiltinFunction::TableGrow, &[t, delta, init])?;
                let old = old.ok_or_else(|| anyhow!("table.grow builtin returns nothing"))?;
                self.trap_on_grow_error(old);
                let old = if table64 { old } else { self.b.ins().ireduce(I32, old) };
                self.push(old);
            }
            O::TableFill { table } => {
                self.check_table(table)?;
                let (dst, value, len) = self.pop3();
                let t = self.i32_const(table);
                self.call_builtin_checked(
                    BuiltinFunction::TableFill,
                    &[t, dst, value, len],
                    Trap::TableOutOfBounds,
                )?;
            }
            O::TableCopy { dst_table, src_table } => {
                self.check_table(dst_table)?;
                self.check_table(src_table)?;
                let (dst, src, len) = self.pop3();
                let d = self.i32_const(dst_table);
                let s = self.i32_const(src_table);
                self.call_builtin_checked(
                    BuiltinFunction::TableCopy,
                    &[d, s, dst, src, len],
                    Trap::TableOutOfBounds,
                )?;
            }
            O::TableInit { elem_index, table } => {
                self.check_table(table)?;
                let (dst, src, len) = self.pop3();
                let t = self.i32_const(table);
                let e = self.i32_const(elem_index);
                self.call_builtin_checked(
                    BuiltinFunction::TableInit,
                    &[t, e, dst, src, len],
                    Trap::TableOutOfBounds,
                )?;
            }
            O::ElemDrop { elem_index } => {
                let e = self.i32_const(elem_index);
                self.call_builtin(BuiltinFunction::ElemDrop, &[e])?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

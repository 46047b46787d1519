//! Small pieces of generated wasm shared by the adapter's translation: the
//! function body being built (its instructions and locals), the checks of
//! the canonical ABI (alignment, bounds), and the UTF-8 validator.

use super::trap::AdapterTrap;
use crate::component::abi::{FlatType, MAX_STRING_BYTE_LENGTH};
use wasm_encoder::{BlockType, Function, Instruction, MemArg, MemArgTarget, ValType};

const I32: ValType = ValType::I32;

/// The core value type of a flat type.
pub(super) fn val_type(t: FlatType) -> ValType {
    match t {
        FlatType::I32 => ValType::I32,
        FlatType::I64 => ValType::I64,
        FlatType::F32 => ValType::F32,
        FlatType::F64 => ValType::F64,
    }
}

/// A memory argument for memory `memory_index`, `align` as a power of two.
pub(super) fn mem(offset: u64, align: u32, memory_index: u32) -> MemArg {
    MemArg {
        offset,
        align,
        target: MemArgTarget::Memory(memory_index),
        ordering: None,
    }
}

/// The body of a function being generated: its instructions and the types
/// of its locals after the parameters.
pub(super) struct Body {
    pub(super) instrs: Vec<Instruction<'static>>,
    params: u32,
    locals: Vec<ValType>,
    /// The `trap` built-in, if the adapter imports it.
    trap: Option<u32>,
    /// Whether a check was emitted without a `trap` built-in to call (an
    /// internal error: the adapter's imports missed a check).
    trap_missing: bool,
}

/// Emits the branch of a failed check: when the `i32` on top of the stack
/// is not zero, calls the `trap` built-in `trap` with `code` (which does
/// not return).
fn emit_trap_if(f: &mut impl FnMut(Instruction<'static>), trap: u32, code: AdapterTrap) {
    f(Instruction::If(BlockType::Empty));
    f(Instruction::I32Const(code as i32));
    f(Instruction::Call(trap));
    f(Instruction::Unreachable);
    f(Instruction::End);
}

impl Body {
    /// An empty body of a function with `params` parameters, whose failed
    /// checks call the built-in `trap`.
    pub(super) fn new(params: u32, trap: Option<u32>) -> Body {
        Body {
            instrs: Vec::new(),
            params,
            locals: Vec::new(),
            trap,
            trap_missing: false,
        }
    }

    /// Appends one instruction.
    pub(super) fn i(&mut self, i: Instruction<'static>) {
        self.instrs.push(i);
    }

    /// A fresh local of type `t`.
    pub(super) fn local(&mut self, t: ValType) -> u32 {
        self.locals.push(t);
        self.params + self.locals.len() as u32 - 1
    }

    /// A fresh local of the flat type `t`.
    pub(super) fn flat_local(&mut self, t: FlatType) -> u32 {
        self.local(val_type(t))
    }

    /// Traps with `code` when the `i32` on top of the stack is not zero.
    pub(super) fn trap_if(&mut self, code: AdapterTrap) {
        match self.trap {
            Some(trap) => emit_trap_if(&mut |i| self.instrs.push(i), trap, code),
            None => {
                self.trap_missing = true;
                self.i(Instruction::If(BlockType::Empty));
                self.i(Instruction::Unreachable);
                self.i(Instruction::End);
            }
        }
    }

    /// Traps when the value of local `local` is not a multiple of `align`.
    pub(super) fn check_align(&mut self, local: u32, align: u32) {
        if align <= 1 {
            return;
        }
        self.i(Instruction::LocalGet(local));
        self.i(Instruction::I32Const(align as i32 - 1));
        self.i(Instruction::I32And);
        self.trap_if(AdapterTrap::UnalignedPointer);
    }

    /// Traps with `code` unless `ptr + len` is within memory `m`, where
    /// `ptr` is a local and `len` is pushed by `push_len` as an `i64`
    /// (computed in 64 bits, so that nothing wraps).
    fn check_range_with(&mut self, ptr: u32, m: u32, code: AdapterTrap, push_len: impl FnOnce(&mut Body)) {
        use Instruction as W;
        self.i(W::LocalGet(ptr));
        self.i(W::I64ExtendI32U);
        push_len(self);
        self.i(W::I64Add);
        self.i(W::MemorySize(m));
        self.i(W::I64ExtendI32U);
        self.i(W::I64Const(16));
        self.i(W::I64Shl);
        self.i(W::I64GtU);
        self.trap_if(code);
    }

    /// Traps with `code` unless the `len` bytes (a local) at `ptr` (a
    /// local) are within memory `m`.
    pub(super) fn check_range(&mut self, ptr: u32, len: u32, m: u32, code: AdapterTrap) {
        self.check_range_with(ptr, m, code, |b| {
            b.i(Instruction::LocalGet(len));
            b.i(Instruction::I64ExtendI32U);
        });
    }

    /// Traps with `code` unless the `size` bytes at `ptr` (a local) are
    /// within memory `m`.
    pub(super) fn check_range_const(&mut self, ptr: u32, size: u32, m: u32, code: AdapterTrap) {
        self.check_range_with(ptr, m, code, |b| b.i(Instruction::I64Const(i64::from(size))));
    }

    /// The finished function, or an error if it has a check but the
    /// adapter does not import the `trap` built-in.
    pub(super) fn finish(self) -> Result<Function, String> {
        if self.trap_missing {
            return Err("internal error: an adapter check without the `trap` built-in".into());
        }
        let mut f = Function::new(self.locals.iter().map(|t| (1, *t)));
        for i in &self.instrs {
            f.instruction(i);
        }
        f.instruction(&Instruction::End);
        Ok(f)
    }
}

/// Emits the load of a scalar of `size` bytes at `offset` from the address
/// in local `ptr` of memory `m`, as the flat type `t` (narrow integers
/// zero-extended, or sign-extended when `signed`).
pub(super) fn load(b: &mut Body, ptr: u32, offset: u32, size: u32, t: FlatType, signed: bool, m: u32) {
    use Instruction as W;
    b.i(W::LocalGet(ptr));
    let a = mem(u64::from(offset), size.trailing_zeros(), m);
    b.i(match (t, size, signed) {
        (FlatType::I32, 1, false) => W::I32Load8U(a),
        (FlatType::I32, 1, true) => W::I32Load8S(a),
        (FlatType::I32, 2, false) => W::I32Load16U(a),
        (FlatType::I32, 2, true) => W::I32Load16S(a),
        (FlatType::I32, _, _) => W::I32Load(a),
        (FlatType::I64, _, _) => W::I64Load(a),
        (FlatType::F32, _, _) => W::F32Load(a),
        (FlatType::F64, _, _) => W::F64Load(a),
    });
}

/// Emits the store of the value on the stack (below it, the address was
/// pushed first) as a scalar of `size` bytes at `offset` of memory `m`.
pub(super) fn store(b: &mut Body, offset: u32, size: u32, t: FlatType, m: u32) {
    use Instruction as W;
    let a = mem(u64::from(offset), size.trailing_zeros(), m);
    b.i(match (t, size) {
        (FlatType::I32, 1) => W::I32Store8(a),
        (FlatType::I32, 2) => W::I32Store16(a),
        (FlatType::I32, _) => W::I32Store(a),
        (FlatType::I64, _) => W::I64Store(a),
        (FlatType::F32, _) => W::F32Store(a),
        (FlatType::F64, _) => W::F64Store(a),
    });
}

/// Emits the coercion of a value carried in a slot of type `have` to the
/// payload's own type `want` (`lift_flat_variant`'s `CoerceValueIter`).
pub(super) fn coerce_lift(b: &mut Body, have: FlatType, want: FlatType) {
    use Instruction as W;
    match (have, want) {
        (FlatType::I32, FlatType::F32) => b.i(W::F32ReinterpretI32),
        (FlatType::I64, FlatType::I32) => b.i(W::I32WrapI64),
        (FlatType::I64, FlatType::F32) => {
            b.i(W::I32WrapI64);
            b.i(W::F32ReinterpretI32);
        }
        (FlatType::I64, FlatType::F64) => b.i(W::F64ReinterpretI64),
        _ => {}
    }
}

/// The other way: a payload value of type `have` into a slot of type
/// `want` (`lower_flat_variant`).
pub(super) fn coerce_lower(b: &mut Body, have: FlatType, want: FlatType) {
    use Instruction as W;
    match (have, want) {
        (FlatType::F32, FlatType::I32) => b.i(W::I32ReinterpretF32),
        (FlatType::I32, FlatType::I64) => b.i(W::I64ExtendI32U),
        (FlatType::F32, FlatType::I64) => {
            b.i(W::I32ReinterpretF32);
            b.i(W::I64ExtendI32U);
        }
        (FlatType::F64, FlatType::I64) => b.i(W::I64ReinterpretF64),
        _ => {}
    }
}

/// Traps with `code`, calling the `trap` built-in `trap`, unless
/// `ptr + len` is within memory `m` (for functions built on [`Function`]
/// directly). `ptr` and `len` are locals.
fn check_range(f: &mut Function, ptr: u32, len: u32, m: u32, trap: u32, code: AdapterTrap) {
    use Instruction as W;
    f.instruction(&W::LocalGet(ptr));
    f.instruction(&W::I64ExtendI32U);
    f.instruction(&W::LocalGet(len));
    f.instruction(&W::I64ExtendI32U);
    f.instruction(&W::I64Add);
    f.instruction(&W::MemorySize(m));
    f.instruction(&W::I64ExtendI32U);
    f.instruction(&W::I64Const(16));
    f.instruction(&W::I64Shl);
    f.instruction(&W::I64GtU);
    emit_trap_if(&mut |i| _ = f.instruction(&i), trap, code);
}

/// A function `(ptr, len)` that traps (calling the `trap` built-in `trap`)
/// unless the bytes `ptr..ptr + len` of memory `m` are in bounds and are
/// well-formed UTF-8 (no overlong forms, no surrogates, nothing past
/// U+10FFFF), as lifting a string requires.
pub(super) fn validate_utf8(m: u32, trap: u32) -> Function {
    use Instruction as W;
    let (ptr, len, i, b, c) = (0, 1, 2, 3, 4);
    let mut f = Function::new([(3, I32)]);
    // Every check past the length and bounds is of the encoding.
    let trap_if = |f: &mut Function| emit_trap_if(&mut |i| _ = f.instruction(&i), trap, AdapterTrap::InvalidUtf8);
    // Lengths past the limit trap before anything is read.
    f.instruction(&W::LocalGet(len));
    f.instruction(&W::I32Const(MAX_STRING_BYTE_LENGTH as i32));
    f.instruction(&W::I32GtU);
    emit_trap_if(&mut |i| _ = f.instruction(&i), trap, AdapterTrap::StringTooLong);
    check_range(&mut f, ptr, len, m, trap, AdapterTrap::StringOutOfBounds);
    // Byte `i + k` (k = 1..3) must exist and be a continuation byte; its
    // value is left in `c`.
    let continuation = |f: &mut Function, k: i32| {
        f.instruction(&W::LocalGet(i));
        f.instruction(&W::I32Const(k));
        f.instruction(&W::I32Add);
        f.instruction(&W::LocalGet(len));
        f.instruction(&W::I32GeU);
        trap_if(f);
        f.instruction(&W::LocalGet(ptr));
        f.instruction(&W::LocalGet(i));
        f.instruction(&W::I32Add);
        f.instruction(&W::I32Load8U(mem(k as u64, 0, m)));
        f.instruction(&W::LocalTee(c));
        f.instruction(&W::I32Const(0xc0));
        f.instruction(&W::I32And);
        f.instruction(&W::I32Const(0x80));
        f.instruction(&W::I32Ne);
        trap_if(f);
    };
    // `c` (the first continuation byte) must be within lo..=hi.
    let first_in = |f: &mut Function, lo: i32, hi: i32| {
        f.instruction(&W::LocalGet(c));
        f.instruction(&W::I32Const(lo));
        f.instruction(&W::I32LtU);
        f.instruction(&W::LocalGet(c));
        f.instruction(&W::I32Const(hi));
        f.instruction(&W::I32GtU);
        f.instruction(&W::I32Or);
        trap_if(f);
    };
    let advance = |f: &mut Function, n: i32| {
        f.instruction(&W::LocalGet(i));
        f.instruction(&W::I32Const(n));
        f.instruction(&W::I32Add);
        f.instruction(&W::LocalSet(i));
        f.instruction(&W::Br(1));
    };
    f.instruction(&W::Block(BlockType::Empty));
    f.instruction(&W::Loop(BlockType::Empty));
    f.instruction(&W::LocalGet(i));
    f.instruction(&W::LocalGet(len));
    f.instruction(&W::I32GeU);
    f.instruction(&W::BrIf(1));
    f.instruction(&W::LocalGet(ptr));
    f.instruction(&W::LocalGet(i));
    f.instruction(&W::I32Add);
    f.instruction(&W::I32Load8U(mem(0, 0, m)));
    f.instruction(&W::LocalSet(b));
    // ASCII.
    f.instruction(&W::LocalGet(b));
    f.instruction(&W::I32Const(0x80));
    f.instruction(&W::I32LtU);
    f.instruction(&W::If(BlockType::Empty));
    advance(&mut f, 1);
    f.instruction(&W::End);
    // Two bytes: C2..DF.
    f.instruction(&W::LocalGet(b));
    f.instruction(&W::I32Const(0xe0));
    f.instruction(&W::I32LtU);
    f.instruction(&W::If(BlockType::Empty));
    f.instruction(&W::LocalGet(b));
    f.instruction(&W::I32Const(0xc2));
    f.instruction(&W::I32LtU);
    trap_if(&mut f);
    continuation(&mut f, 1);
    advance(&mut f, 2);
    f.instruction(&W::End);
    // Three bytes: E0..EF (E0: no overlong, ED: no surrogates).
    f.instruction(&W::LocalGet(b));
    f.instruction(&W::I32Const(0xf0));
    f.instruction(&W::I32LtU);
    f.instruction(&W::If(BlockType::Empty));
    continuation(&mut f, 1);
    f.instruction(&W::LocalGet(b));
    f.instruction(&W::I32Const(0xe0));
    f.instruction(&W::I32Eq);
    f.instruction(&W::If(BlockType::Empty));
    first_in(&mut f, 0xa0, 0xbf);
    f.instruction(&W::End);
    f.instruction(&W::LocalGet(b));
    f.instruction(&W::I32Const(0xed));
    f.instruction(&W::I32Eq);
    f.instruction(&W::If(BlockType::Empty));
    first_in(&mut f, 0x80, 0x9f);
    f.instruction(&W::End);
    continuation(&mut f, 2);
    advance(&mut f, 3);
    f.instruction(&W::End);
    // Four bytes: F0..F4 (F0: no overlong, F4: nothing past U+10FFFF).
    f.instruction(&W::LocalGet(b));
    f.instruction(&W::I32Const(0xf4));
    f.instruction(&W::I32GtU);
    trap_if(&mut f);
    continuation(&mut f, 1);
    f.instruction(&W::LocalGet(b));
    f.instruction(&W::I32Const(0xf0));
    f.instruction(&W::I32Eq);
    f.instruction(&W::If(BlockType::Empty));
    first_in(&mut f, 0x90, 0xbf);
    f.instruction(&W::End);
    f.instruction(&W::LocalGet(b));
    f.instruction(&W::I32Const(0xf4));
    f.instruction(&W::I32Eq);
    f.instruction(&W::If(BlockType::Empty));
    first_in(&mut f, 0x80, 0x8f);
    f.instruction(&W::End);
    continuation(&mut f, 2);
    continuation(&mut f, 3);
    f.instruction(&W::LocalGet(i));
    f.instruction(&W::I32Const(4));
    f.instruction(&W::I32Add);
    f.instruction(&W::LocalSet(i));
    f.instruction(&W::Br(0));
    f.instruction(&W::End);
    f.instruction(&W::End);
    f.instruction(&W::End);
    f
}

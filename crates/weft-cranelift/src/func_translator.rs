//! Translation of one wasm function body to Cranelift IR.
//!
//! This file holds the translator's state, the value and control stacks,
//! locals, calls and the dispatch of operators; the operators themselves are
//! grouped in `ops_numeric.rs`, `ops_memory.rs` and `ops_table.rs`.

use crate::types::{clif_type, clif_type_of, trap_to_code, trusted, vmctx_readonly, wasm_signature};
use anyhow::{anyhow, bail, Context as _, Result};
use cranelift_codegen::ir::{
    types, AliasRegion, AliasRegionData, Block, BlockArg, ExceptionTableData, ExceptionTableItem, ExtFuncData,
    ExternalName, FuncRef, Function, GlobalValueData, InstBuilder, JumpTableData, SigRef, Signature, SourceLoc, Type,
    UserExternalName, Value,
};
use cranelift_codegen::isa::{CallConv, TargetIsa};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use std::collections::HashMap;
use wasmparser::{BlockType, FuncValidator, FunctionBody, Operator, OperatorsReader, ValidatorResources};
use weft_environ::{vmfuncref, vmstore, Module, Trap, Tunables, VMOffsets};

/// What kind of construct a control frame stands for.
enum FrameKind {
    /// The function body; its `dest` block returns.
    Function,
    /// A `block`.
    Block,
    /// A `loop`; branches go to `header`.
    Loop { header: Block },
    /// An `if`: `else_block` is entered when the condition is false; `params`
    /// are the block's parameters, restored at `else`.
    If {
        else_block: Block,
        params: Vec<Value>,
        has_else: bool,
    },
    /// A `try_table`: `dispatch` is the block that throw points inside it
    /// jump to (none when it has no `catch` clause).
    TryTable { dispatch: Option<Block> },
    /// A legacy `try` (see `ops_exceptions.rs`): throw points of its body
    /// jump to `dispatch`; `next` is the block where the test of the next
    /// `catch` clause goes (none after `catch_all`); `in_catch` once the
    /// first clause started (its handlers then no longer apply); `caught`
    /// holds the exception a clause caught, for `rethrow`.
    LegacyTry {
        dispatch: Block,
        next: Option<Block>,
        in_catch: bool,
        caught: Variable,
    },
}

/// One entry of the control stack.
struct ControlFrame {
    kind: FrameKind,
    /// The block after the construct's `end`, with one parameter per result.
    dest: Block,
    num_params: usize,
    num_results: usize,
    /// The height of the value stack below the frame's parameters.
    base: usize,
    /// Whether some branch jumps to `dest`.
    exit_reached: bool,
}

/// Alias regions: disjoint kinds of memory, so that Cranelift can keep a
/// loaded value across stores to unrelated memory.
pub(crate) struct Regions {
    /// Fields of `VMMemoryDefinition`s.
    pub(crate) vmmemory: AliasRegion,
    /// Fields of `VMTableDefinition`s.
    pub(crate) vmtable: AliasRegion,
    /// The contents of linear memories.
    pub(crate) heap: AliasRegion,
    /// The elements of tables.
    pub(crate) table_elems: AliasRegion,
    /// The storage of globals.
    pub(crate) globals: AliasRegion,
}

/// The state of the translation of one function.
pub(crate) struct FuncTranslator<'m, 'b> {
    pub(crate) b: FunctionBuilder<'b>,
    pub(crate) module: &'m Module,
    pub(crate) isa: &'m dyn TargetIsa,
    pub(crate) offsets: VMOffsets,
    pub(crate) default_call_conv: CallConv,
    /// The function's own vmctx (its first parameter).
    pub(crate) vmctx: Value,
    pub(crate) stack: Vec<Value>,
    pub(crate) regions: Regions,
    pub(crate) builtin_sigs: HashMap<usize, SigRef>,
    frames: Vec<ControlFrame>,
    pub(crate) reachable: bool,
    /// Nesting depth of blocks opened in unreachable code.
    unreachable_depth: u32,
    locals: Vec<Variable>,
    wasm_sigs: HashMap<u32, SigRef>,
    direct_funcs: HashMap<u32, FuncRef>,
    pub(crate) tunables: Tunables,
    /// Fuel charged by operators since it was last added to the store's
    /// counter.
    pub(crate) pending_fuel: i64,
    /// The block that returns with an exception pending (see
    /// `ops_exceptions.rs`), once some throw point needs it.
    pub(crate) propagate: Option<Block>,
    /// The types of the function's results.
    pub(crate) result_types: Vec<Type>,
    /// Whether the function has stack maps (see `gc_stack_maps.rs`).
    gc_stack_maps: bool,
    /// The values declared as needing a stack map.
    pub(crate) stack_map_values: std::collections::HashSet<Value>,
    /// The base address of each of the first [`CACHED_MEMORY_BASES`]
    /// memories, loaded once in the entry block (see
    /// [`FuncTranslator::memory_base`]).
    pub(crate) memory_bases: Vec<Value>,
    /// The addresses computed in `addr_block`, most recent last (see
    /// [`FuncTranslator::heap_addr`]).
    pub(crate) addr_cache: Vec<AddrCacheEntry>,
    /// The block `addr_cache` belongs to.
    pub(crate) addr_block: Option<Block>,
}

/// How many memories have their base address loaded once per function
/// rather than at each access: modules rarely have more than one.
const CACHED_MEMORY_BASES: u32 = 4;

/// An address `base + zero-extended index` that [`FuncTranslator::heap_addr`]
/// computed for memory `mem` and the 32-bit index `index`.
#[derive(Clone, Copy)]
pub(crate) struct AddrCacheEntry {
    pub(crate) mem: u32,
    pub(crate) index: Value,
    pub(crate) addr: Value,
}

/// Translates the body of a defined function into `func`, whose signature
/// must already be the wasm signature of the function's type `ty_index`.
///
/// The body must be valid, or `validator` must be the body's validator:
/// then each local declaration and operator is validated just before it
/// is translated (so the translation never sees an invalid one), and the
/// first that fails is the error.
///
/// `scan_first`: whether to scan the operators for traced references
/// before translating ([`crate::gc_stack_maps::module_may_trace`]) rather
/// than translate again when one is found.
#[allow(
    clippy::too_many_arguments,
    reason = "the translation's inputs, each used throughout"
)]
pub(crate) fn translate_function(
    isa: &dyn TargetIsa,
    tunables: Tunables,
    module: &Module,
    ty_index: u32,
    body: &FunctionBody<'_>,
    scan_first: bool,
    validator: Option<&mut FuncValidator<ValidatorResources>>,
    func: &mut Function,
    fctx: &mut FunctionBuilderContext,
) -> Result<()> {
    let stack_maps = crate::gc_stack_maps::declares_traced(module, ty_index, body)?
        || (scan_first && crate::gc_stack_maps::body_makes_traced(module, body)?);
    let input = (isa, tunables, module, ty_index, body);
    if translate_pass(input, validator, func, fctx, stack_maps)? == Pass::Done {
        return Ok(());
    }
    // An operator makes a traced reference: the function is translated
    // again, with stack maps. The body is valid: the first pass validated
    // the rest of it when it had a validator. The pass left the signature
    // and name as they were; they are kept across the clear.
    let signature = std::mem::replace(&mut func.signature, Signature::new(CallConv::Fast));
    let name = std::mem::take(&mut func.name);
    func.clear();
    func.signature = signature;
    func.name = name;
    *fctx = FunctionBuilderContext::new();
    match translate_pass(input, None, func, fctx, true)? {
        Pass::Done => Ok(()),
        Pass::NeedsStackMaps => bail!("a translation with stack maps asked for them again"),
    }
}

/// How a [`translate_pass`] ended.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Pass {
    /// The function is translated.
    Done,
    /// The pass, without stack maps, stopped at an operator that makes a
    /// traced reference, after validating the rest of the body (when it
    /// had a validator).
    NeedsStackMaps,
}

/// One translation of the function into `func`, with or without stack
/// maps (see `gc_stack_maps.rs`).
fn translate_pass(
    (isa, tunables, module, ty_index, body): (&dyn TargetIsa, Tunables, &Module, u32, &FunctionBody<'_>),
    mut validator: Option<&mut FuncValidator<ValidatorResources>>,
    func: &mut Function,
    fctx: &mut FunctionBuilderContext,
    gc_stack_maps: bool,
) -> Result<Pass> {
    let offsets = VMOffsets::new(module);
    let ty = &module.types[ty_index as usize];

    // The stack limit: vmctx -> store context -> stack limit.
    let vmctx_gv = func.create_global_value(GlobalValueData::VMContext);
    let gv_flags = func
        .dfg
        .mem_flags
        .insert(trusted().with_readonly())
        .map_err(|_| anyhow!("too many memory flags"))?;
    let store_gv = func.create_global_value(GlobalValueData::Load {
        base: vmctx_gv,
        offset: (offsets.vmctx_store_context() as i32).into(),
        global_type: types::I64,
        flags: gv_flags,
    });
    let limit_gv = func.create_global_value(GlobalValueData::Load {
        base: store_gv,
        offset: (vmstore::STACK_LIMIT as i32).into(),
        global_type: types::I64,
        flags: gv_flags,
    });
    func.stack_limit = Some(limit_gv);

    let mut region = |user_id: u32, description: &'static str| {
        func.dfg.alias_regions.insert(AliasRegionData {
            user_id,
            description: description.into(),
        })
    };
    let regions = Regions {
        vmmemory: region(1, "vmmemory"),
        vmtable: region(2, "vmtable"),
        heap: region(3, "heap"),
        table_elems: region(4, "table elements"),
        globals: region(5, "globals"),
    };

    let mut b = FunctionBuilder::new(func, fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let params = b.block_params(entry).to_vec();

    let mut t = FuncTranslator {
        b,
        module,
        isa,
        offsets,
        default_call_conv: isa.default_call_conv(),
        vmctx: params[0],
        stack: Vec::new(),
        regions,
        builtin_sigs: HashMap::new(),
        frames: Vec::new(),
        reachable: true,
        unreachable_depth: 0,
        locals: Vec::new(),
        wasm_sigs: HashMap::new(),
        direct_funcs: HashMap::new(),
        tunables,
        pending_fuel: 0,
        propagate: None,
        result_types: Vec::new(),
        gc_stack_maps,
        stack_map_values: std::collections::HashSet::new(),
        memory_bases: Vec::new(),
        addr_cache: Vec::new(),
        addr_block: None,
    };
    // Still in the entry block, which dominates every use. A base that no
    // access uses is dropped by Cranelift's optimizer like any unused pure
    // value; the load is `readonly` and `can_move`, so its place here does
    // not decide where the compiled code loads it.
    let cached = u32::try_from(module.memories.len())
        .unwrap_or(u32::MAX)
        .min(CACHED_MEMORY_BASES);
    for mem in 0..cached {
        let base = t.load_memory_base(mem)?;
        t.memory_bases.push(base);
    }

    for (i, p) in ty.params.iter().enumerate() {
        let var = t.b.declare_var(clif_type(*p)?);
        if t.gc_stack_maps && crate::gc_stack_maps::is_traced(module, *p) {
            t.b.declare_var_needs_stack_map(var);
        }
        t.b.def_var(var, params[i + 2]);
        t.locals.push(var);
    }
    t.declare_locals(body, validator.as_deref_mut())?;
    if t.tunables.consume_fuel {
        // Entering a function costs one unit of fuel, as in Wasmtime, so
        // even an empty function consumes some.
        t.pending_fuel = 1;
    }
    t.interrupt_checks()?;

    let results = ty.results.iter().map(|r| clif_type(*r)).collect::<Result<Vec<_>>>()?;
    t.result_types = results.clone();
    let dest = t.new_block_with_params(&results);
    t.frames.push(ControlFrame {
        kind: FrameKind::Function,
        dest,
        num_params: 0,
        num_results: results.len(),
        base: 0,
        exit_reached: false,
    });

    let mut reader = body.get_binary_reader_for_operators()?;
    if let Some(v) = &validator {
        // The operators are decoded as the validator's own reader would.
        reader.set_features(*v.features());
    }
    let mut reader = OperatorsReader::new(reader);
    while !reader.eof() {
        let (op, offset) = reader.read_with_offset()?;
        if let Some(v) = validator.as_deref_mut() {
            v.op(offset, &op)?;
        }
        if !t.gc_stack_maps && crate::gc_stack_maps::op_makes_traced(module, &op) {
            if let Some(v) = validator.as_deref_mut() {
                while !reader.eof() {
                    let (op, offset) = reader.read_with_offset()?;
                    v.op(offset, &op)?;
                }
                reader.finish()?;
            }
            return Ok(Pass::NeedsStackMaps);
        }
        t.b.set_srcloc(SourceLoc::new(u32::try_from(offset)?));
        t.translate_operator(op)
            .with_context(|| format!("at offset 0x{offset:x}"))?;
        if t.gc_stack_maps {
            t.declare_stack_refs();
        }
    }
    if validator.is_some() {
        reader.finish()?;
    }
    if !t.frames.is_empty() {
        bail!("function body ends before its last `end`");
    }
    t.finish_propagate_block()?;
    t.b.finalize(isa.frontend_config());
    Ok(Pass::Done)
}

impl FuncTranslator<'_, '_> {
    /// Declares the function's locals (after its parameters), each group
    /// validated first by `validator` when there is one.
    fn declare_locals(
        &mut self,
        body: &FunctionBody<'_>,
        mut validator: Option<&mut FuncValidator<ValidatorResources>>,
    ) -> Result<()> {
        let mut zeros: HashMap<Type, Value> = HashMap::new();
        let mut reader = body.get_locals_reader()?;
        for _ in 0..reader.get_count() {
            let offset = reader.original_position();
            let (count, wasm_ty) = reader.read()?;
            if let Some(v) = validator.as_deref_mut() {
                v.define_locals(offset, count, wasm_ty)?;
            }
            let ty = clif_type_of(wasm_ty)?;
            let traced = self.gc_stack_maps && crate::gc_stack_maps::is_traced_local(self.module, wasm_ty);
            let zero = match zeros.get(&ty) {
                Some(z) => *z,
                None => {
                    let z = self.zero(ty);
                    zeros.insert(ty, z);
                    z
                }
            };
            for _ in 0..count {
                let var = self.b.declare_var(ty);
                if traced {
                    self.b.declare_var_needs_stack_map(var);
                }
                self.b.def_var(var, zero);
                self.locals.push(var);
            }
        }
        Ok(())
    }

    /// The zero value of a type (null for references).
    pub(crate) fn zero(&mut self, ty: Type) -> Value {
        match ty {
            types::F32 => self.b.ins().f32const(0.0),
            types::F64 => self.b.ins().f64const(0.0),
            ty if ty.is_vector() => self.v128_const(ty, 0),
            _ => self.b.ins().iconst(ty, 0),
        }
    }

    // ----- value stack -----

    pub(crate) fn push(&mut self, v: Value) {
        self.stack.push(v);
    }

    pub(crate) fn pop(&mut self) -> Value {
        self.stack.pop().expect("validated wasm never pops an empty stack")
    }

    /// Pops two values, returned in the order they were pushed.
    pub(crate) fn pop2(&mut self) -> (Value, Value) {
        let b = self.pop();
        let a = self.pop();
        (a, b)
    }

    /// Pops three values, returned in the order they were pushed.
    pub(crate) fn pop3(&mut self) -> (Value, Value, Value) {
        let c = self.pop();
        let (a, b) = self.pop2();
        (a, b, c)
    }

    /// Pops `n` values, returned in the order they were pushed.
    pub(crate) fn popn(&mut self, n: usize) -> Vec<Value> {
        let at = self.stack.len() - n;
        self.stack.split_off(at)
    }

    /// The top `n` values, in the order they were pushed.
    pub(crate) fn peekn(&self, n: usize) -> Vec<Value> {
        self.stack[self.stack.len() - n..].to_vec()
    }

    // ----- blocks -----

    fn new_block_with_params(&mut self, tys: &[Type]) -> Block {
        let block = self.b.create_block();
        for ty in tys {
            self.b.append_block_param(block, *ty);
        }
        block
    }

    pub(crate) fn jump(&mut self, dest: Block, args: &[Value]) {
        let args = block_args(args);
        self.b.ins().jump(dest, &args);
    }

    fn block_type(&self, ty: BlockType) -> Result<(Vec<Type>, Vec<Type>)> {
        Ok(match ty {
            BlockType::Empty => (vec![], vec![]),
            BlockType::Type(t) => (vec![], vec![clif_type_of(t)?]),
            BlockType::FuncType(index) => {
                let ty = self
                    .module
                    .types
                    .get(index as usize)
                    .ok_or_else(|| anyhow!("block type index {index} out of range"))?;
                let params = ty.params.iter().map(|p| clif_type(*p)).collect::<Result<Vec<_>>>()?;
                let results = ty.results.iter().map(|r| clif_type(*r)).collect::<Result<Vec<_>>>()?;
                (params, results)
            }
        })
    }

    /// The block that a branch to the frame at `index` (counted from the
    /// bottom of the control stack) jumps to, and the number of values it
    /// passes.
    pub(crate) fn branch_target(&mut self, index: usize) -> (Block, usize) {
        let frame = &mut self.frames[index];
        match frame.kind {
            FrameKind::Loop { header } => (header, frame.num_params),
            _ => {
                frame.exit_reached = true;
                (frame.dest, frame.num_results)
            }
        }
    }

    /// Where an exception thrown here goes: the dispatch block of the
    /// innermost `try_table` with catch clauses or legacy `try` in its
    /// body, or the propagate block.
    pub(crate) fn handler_block(&mut self) -> Block {
        self.handler_block_within(self.frames.len())
    }

    /// [`FuncTranslator::handler_block`] as seen from inside the first
    /// `frames` frames only (for `delegate`).
    pub(crate) fn handler_block_within(&mut self, frames: usize) -> Block {
        self.local_handler_within(frames)
            .unwrap_or_else(|| self.propagate_block())
    }

    /// The dispatch block of the innermost handler in whose scope the
    /// current point is, if any.
    fn local_handler_block(&self) -> Option<Block> {
        if !self.tunables.exceptions {
            return None;
        }
        self.local_handler_within(self.frames.len())
    }

    fn local_handler_within(&self, frames: usize) -> Option<Block> {
        self.frames[..frames.min(self.frames.len())]
            .iter()
            .rev()
            .find_map(|frame| match frame.kind {
                FrameKind::TryTable { dispatch: Some(d) } => Some(d),
                FrameKind::LegacyTry {
                    dispatch,
                    in_catch: false,
                    ..
                } => Some(dispatch),
                _ => None,
            })
    }

    pub(crate) fn frame_index(&self, relative_depth: u32) -> usize {
        self.frames.len() - 1 - relative_depth as usize
    }

    // ----- operators -----

    fn translate_operator(&mut self, op: Operator<'_>) -> Result<()> {
        if !self.reachable {
            return self.translate_unreachable_operator(op);
        }
        if self.tunables.consume_fuel {
            self.charge_fuel(&op);
        }
        match op {
            Operator::Unreachable => {
                self.b.ins().trap(trap_to_code(Trap::UnreachableCodeReached));
                self.reachable = false;
            }
            Operator::Nop => {}
            Operator::Block { blockty } => {
                let (params, results) = self.block_type(blockty)?;
                let dest = self.new_block_with_params(&results);
                self.frames.push(ControlFrame {
                    kind: FrameKind::Block,
                    dest,
                    num_params: params.len(),
                    num_results: results.len(),
                    base: self.stack.len() - params.len(),
                    exit_reached: false,
                });
            }
            Operator::Loop { blockty } => {
                let (params, results) = self.block_type(blockty)?;
                let header = self.new_block_with_params(&params);
                let dest = self.new_block_with_params(&results);
                let args = self.popn(params.len());
                self.jump(header, &args);
                self.b.switch_to_block(header);
                let base = self.stack.len();
                let header_params = self.b.block_params(header).to_vec();
                self.interrupt_checks()?;
                self.stack.extend(header_params);
                self.frames.push(ControlFrame {
                    kind: FrameKind::Loop { header },
                    dest,
                    num_params: params.len(),
                    num_results: results.len(),
                    base,
                    exit_reached: false,
                });
            }
            Operator::If { blockty } => {
                let cond = self.pop();
                let (params, results) = self.block_type(blockty)?;
                let then_block = self.b.create_block();
                let else_block = self.b.create_block();
                let dest = self.new_block_with_params(&results);
                self.b.ins().brif(cond, then_block, &[], else_block, &[]);
                self.b.seal_block(then_block);
                self.b.seal_block(else_block);
                self.b.switch_to_block(then_block);
                let base = self.stack.len() - params.len();
                let saved = self.stack[base..].to_vec();
                self.frames.push(ControlFrame {
                    kind: FrameKind::If {
                        else_block,
                        params: saved,
                        has_else: false,
                    },
                    dest,
                    num_params: params.len(),
                    num_results: results.len(),
                    base,
                    exit_reached: false,
                });
            }
            Operator::TryTable { try_table } => {
                let (params, results) = self.block_type(try_table.ty)?;
                let dest = self.new_block_with_params(&results);
                let dispatch = if try_table.catches.is_empty() {
                    None
                } else {
                    // The dispatch block is emitted now, while the labels of
                    // the catch clauses are relative to the enclosing frames.
                    let body = self.b.create_block();
                    self.jump(body, &[]);
                    let dispatch = self.emit_dispatch(&try_table.catches)?;
                    self.b.seal_block(body);
                    self.b.switch_to_block(body);
                    Some(dispatch)
                };
                self.frames.push(ControlFrame {
                    kind: FrameKind::TryTable { dispatch },
                    dest,
                    num_params: params.len(),
                    num_results: results.len(),
                    base: self.stack.len() - params.len(),
                    exit_reached: false,
                });
            }
            Operator::Try { blockty } => {
                let (params, results) = self.block_type(blockty)?;
                let dest = self.new_block_with_params(&results);
                let dispatch = self.b.create_block();
                self.b.set_cold_block(dispatch);
                let caught = self.b.declare_var(cranelift_codegen::ir::types::I64);
                if self.gc_stack_maps {
                    // An exnref the collector must see (see
                    // `gc_stack_maps.rs`: a `try` always has stack maps).
                    self.b.declare_var_needs_stack_map(caught);
                }
                let zero = self.b.ins().iconst(cranelift_codegen::ir::types::I64, 0);
                self.b.def_var(caught, zero);
                self.frames.push(ControlFrame {
                    kind: FrameKind::LegacyTry {
                        dispatch,
                        next: Some(dispatch),
                        in_catch: false,
                        caught,
                    },
                    dest,
                    num_params: params.len(),
                    num_results: results.len(),
                    base: self.stack.len() - params.len(),
                    exit_reached: false,
                });
            }
            Operator::Catch { tag_index } => self.translate_legacy_catch(Some(tag_index))?,
            Operator::CatchAll => self.translate_legacy_catch(None)?,
            Operator::Delegate { relative_depth } => self.translate_delegate(relative_depth)?,
            Operator::Rethrow { relative_depth } => self.translate_rethrow(relative_depth)?,
            Operator::Else => self.translate_else()?,
            Operator::End => self.translate_end(),
            Operator::Br { relative_depth } => {
                let (target, arity) = self.branch_target(self.frame_index(relative_depth));
                let args = self.peekn(arity);
                self.jump(target, &args);
                self.reachable = false;
            }
            Operator::BrIf { relative_depth } => {
                let cond = self.pop();
                let (target, arity) = self.branch_target(self.frame_index(relative_depth));
                let args = block_args(&self.peekn(arity));
                let next = self.b.create_block();
                self.b.ins().brif(cond, target, &args, next, &[]);
                self.b.seal_block(next);
                self.b.switch_to_block(next);
            }
            Operator::BrTable { targets } => {
                let index = self.pop();
                let depths = targets.targets().collect::<Result<Vec<u32>, _>>()?;
                let (default_block, arity) = self.branch_target(self.frame_index(targets.default()));
                let args = block_args(&self.peekn(arity));
                let default_call = self.b.func.dfg.block_call(default_block, &args);
                let mut calls = Vec::with_capacity(depths.len());
                for depth in depths {
                    let (block, _) = self.branch_target(self.frame_index(depth));
                    calls.push(self.b.func.dfg.block_call(block, &args));
                }
                let jt = self.b.create_jump_table(JumpTableData::new(default_call, &calls));
                self.b.ins().br_table(index, jt);
                self.reachable = false;
            }
            Operator::Return => {
                let results = self.peekn(self.frames[0].num_results);
                self.b.ins().return_(&results);
                self.reachable = false;
            }
            Operator::Call { function_index } => self.translate_call(function_index)?,
            Operator::CallIndirect {
                type_index,
                table_index,
            } => self.translate_call_indirect(type_index, table_index)?,
            Operator::Drop => {
                self.pop();
            }
            Operator::Select | Operator::TypedSelect { .. } => {
                let (a, b, cond) = self.pop3();
                let v = self.b.ins().select(cond, a, b);
                self.push(v);
            }
            Operator::LocalGet { local_index } => {
                let v = self.b.use_var(self.locals[local_index as usize]);
                self.push(v);
            }
            Operator::LocalSet { local_index } => {
                let v = self.pop();
                self.b.def_var(self.locals[local_index as usize], v);
            }
            Operator::LocalTee { local_index } => {
                let v = *self.stack.last().expect("validated");
                self.b.def_var(self.locals[local_index as usize], v);
            }
            op => {
                let done = self.translate_numeric(&op)?
                    || self.translate_memory(&op)?
                    || self.translate_table(&op)?
                    || self.translate_func_refs(&op)?
                    || self.translate_simd(&op)?
                    || self.translate_simd_arith(&op)?
                    || self.translate_simd_memory(&op)?
                    || self.translate_relaxed_simd(&op)?
                    || self.translate_exceptions(&op)?
                    || self.translate_atomics(&op)?
                    || self.translate_gc(&op)?;
                if !done {
                    bail!("unsupported operator: {op:?}");
                }
            }
        }
        Ok(())
    }

    /// Operators in unreachable code are skipped; only the nesting of blocks
    /// is followed, to find the `else` or `end` that makes code reachable.
    fn translate_unreachable_operator(&mut self, op: Operator<'_>) -> Result<()> {
        match op {
            Operator::Block { .. }
            | Operator::Loop { .. }
            | Operator::If { .. }
            | Operator::TryTable { .. }
            | Operator::Try { .. } => self.unreachable_depth += 1,
            Operator::Else if self.unreachable_depth == 0 => self.translate_else()?,
            Operator::Catch { tag_index } if self.unreachable_depth == 0 => {
                self.translate_legacy_catch(Some(tag_index))?
            }
            Operator::CatchAll if self.unreachable_depth == 0 => self.translate_legacy_catch(None)?,
            Operator::Delegate { relative_depth } if self.unreachable_depth == 0 => {
                self.translate_delegate(relative_depth)?
            }
            Operator::End if self.unreachable_depth == 0 => self.translate_end(),
            Operator::End | Operator::Delegate { .. } => self.unreachable_depth -= 1,
            _ => {}
        }
        Ok(())
    }

    fn translate_else(&mut self) -> Result<()> {
        let reachable = self.reachable;
        let results = if reachable {
            let n = self.frames.last().map_or(0, |f| f.num_results);
            Some(self.peekn(n))
        } else {
            None
        };
        let frame = self
            .frames
            .last_mut()
            .ok_or_else(|| anyhow!("`else` outside of a block"))?;
        let FrameKind::If {
            else_block,
            params,
            has_else,
        } = &mut frame.kind
        else {
            bail!("`else` outside of an `if`");
        };
        *has_else = true;
        let else_block = *else_block;
        let params = params.clone();
        let dest = frame.dest;
        let base = frame.base;
        if let Some(results) = results {
            frame.exit_reached = true;
            self.jump(dest, &results);
        }
        self.stack.truncate(base);
        self.stack.extend(params);
        self.b.switch_to_block(else_block);
        self.reachable = true;
        Ok(())
    }

    fn translate_end(&mut self) {
        let mut frame = self.frames.pop().expect("validated wasm has matching `end`s");
        if self.reachable {
            let results = self.peekn(frame.num_results);
            self.jump(frame.dest, &results);
            frame.exit_reached = true;
        }
        match &frame.kind {
            FrameKind::If {
                else_block,
                params,
                has_else: false,
            } => {
                // An `if` without `else`: the false branch passes the
                // parameters on as results.
                self.b.switch_to_block(*else_block);
                let params = params.clone();
                self.jump(frame.dest, &params);
                frame.exit_reached = true;
            }
            FrameKind::Loop { header } => self.b.seal_block(*header),
            FrameKind::TryTable { dispatch: Some(d) } => self.b.seal_block(*d),
            FrameKind::LegacyTry {
                dispatch,
                next,
                in_catch,
                ..
            } => {
                if !*in_catch {
                    self.b.seal_block(*dispatch);
                }
                // An exception no clause caught goes on to the enclosing
                // handler.
                if let Some(test) = *next {
                    self.b.switch_to_block(test);
                    let outer = self.handler_block();
                    self.jump(outer, &[]);
                }
            }
            _ => {}
        }
        self.stack.truncate(frame.base);
        if !frame.exit_reached {
            self.reachable = false;
            return;
        }
        self.b.switch_to_block(frame.dest);
        self.b.seal_block(frame.dest);
        let params = self.b.block_params(frame.dest).to_vec();
        if let FrameKind::Function = frame.kind {
            self.b.ins().return_(&params);
            self.reachable = false;
        } else {
            self.stack.extend(params);
            self.reachable = true;
        }
    }

    // ----- calls -----

    /// The signature of wasm functions of module type `ty_index`.
    pub(crate) fn wasm_sig_ref(&mut self, ty_index: u32) -> Result<SigRef> {
        if let Some(sig) = self.wasm_sigs.get(&ty_index) {
            return Ok(*sig);
        }
        let ty = self
            .module
            .types
            .get(ty_index as usize)
            .ok_or_else(|| anyhow!("type index {ty_index} out of range"))?;
        let sig = self.b.import_signature(wasm_signature(ty)?);
        self.wasm_sigs.insert(ty_index, sig);
        Ok(sig)
    }

    /// The function reference of the trampoline of the `index`th of
    /// `gc_stack_maps::COLLECTING_BUILTINS` (namespace 1).
    pub(crate) fn builtin_trampoline_ref(&mut self, index: u32, sig: SigRef) -> FuncRef {
        let key = u32::MAX - index;
        if let Some(f) = self.direct_funcs.get(&key) {
            return *f;
        }
        let name = self
            .b
            .func
            .declare_imported_user_function(UserExternalName::new(1, index));
        let f = self.b.import_function(ExtFuncData {
            name: ExternalName::user(name),
            signature: sig,
            colocated: true,
            patchable: false,
        });
        self.direct_funcs.insert(key, f);
        f
    }

    pub(crate) fn direct_func_ref(&mut self, defined_index: u32, sig: SigRef) -> FuncRef {
        if let Some(f) = self.direct_funcs.get(&defined_index) {
            return *f;
        }
        let name = self
            .b
            .func
            .declare_imported_user_function(UserExternalName::new(0, defined_index));
        let f = self.b.import_function(ExtFuncData {
            name: ExternalName::user(name),
            signature: sig,
            colocated: true,
            patchable: false,
        });
        self.direct_funcs.insert(defined_index, f);
        f
    }

    fn translate_call(&mut self, function_index: u32) -> Result<()> {
        let ty_index = *self
            .module
            .functions
            .get(function_index as usize)
            .ok_or_else(|| anyhow!("function index {function_index} out of range"))?;
        let sig = self.wasm_sig_ref(ty_index)?;
        let num_params = self.module.types[ty_index as usize].params.len();
        let mut args = vec![self.vmctx, self.vmctx];
        args.extend(self.popn(num_params));
        let callee = if self.module.is_imported_func(function_index) {
            let func_ref = self.b.ins().load(
                types::I64,
                vmctx_readonly(),
                self.vmctx,
                self.offsets.vmctx_func_ref(function_index) as i32,
            );
            let (code, callee_vmctx) = self.load_func_ref_fields(func_ref, true);
            args[0] = callee_vmctx;
            Callee::Indirect(code)
        } else {
            Callee::Direct(self.direct_func_ref(function_index - self.module.num_imported_funcs, sig))
        };
        let results = self.call_wasm(callee, sig, &args);
        self.stack.extend(results);
        Ok(())
    }

    /// Loads the code pointer and vmctx of a `VMFuncRef`. `always_valid`
    /// says whether the pointer is valid everywhere in the function (an
    /// import), so that the loads may be hoisted.
    pub(crate) fn load_func_ref_fields(&mut self, func_ref: Value, always_valid: bool) -> (Value, Value) {
        let flags = if always_valid {
            vmctx_readonly()
        } else {
            crate::types::trusted_readonly()
        };
        let code = self.b.ins().load(types::I64, flags, func_ref, vmfuncref::CODE as i32);
        let vmctx = self.b.ins().load(types::I64, flags, func_ref, vmfuncref::VMCTX as i32);
        (code, vmctx)
    }

    /// Calls `code` with the wasm signature of module type `ty_index`,
    /// popping the arguments and pushing the results.
    pub(crate) fn call_wasm_indirect(&mut self, ty_index: u32, code: Value, callee_vmctx: Value) -> Result<()> {
        let sig = self.wasm_sig_ref(ty_index)?;
        let num_params = self.module.types[ty_index as usize].params.len();
        let mut args = vec![callee_vmctx, self.vmctx];
        args.extend(self.popn(num_params));
        let results = self.call_wasm(Callee::Indirect(code), sig, &args);
        self.stack.extend(results);
        Ok(())
    }

    /// Calls wasm code with signature `sig` and returns the results. In
    /// the scope of an exception handler the call is a `try_call` whose
    /// exceptional edge (taken when an exception thrown below it resumes
    /// here; see `ops_exceptions.rs`) leads to the handler; elsewhere it is
    /// a plain call, which an exception never returns to.
    fn call_wasm(&mut self, callee: Callee, sig: SigRef, args: &[Value]) -> Vec<Value> {
        let Some(handler) = self.local_handler_block() else {
            let inst = match callee {
                Callee::Direct(f) => self.b.ins().call(f, args),
                Callee::Indirect(code) => self.b.ins().call_indirect(sig, code, args),
            };
            return self.b.inst_results(inst).to_vec();
        };
        let returns: Vec<Type> = self.b.func.dfg.signatures[sig]
            .returns
            .iter()
            .map(|r| r.value_type)
            .collect();
        let next = self.b.create_block();
        for ty in &returns {
            self.b.append_block_param(next, *ty);
        }
        let landing = self.b.create_block();
        self.b.set_cold_block(landing);
        let results: Vec<BlockArg> = (0..returns.len() as u32).map(BlockArg::TryCallRet).collect();
        let normal = self.b.func.dfg.block_call(next, &results);
        let exceptional = self.b.func.dfg.block_call(landing, &[]);
        let table = ExceptionTableData::new(sig, normal, [ExceptionTableItem::Default(exceptional)]);
        let table = self.b.func.dfg.exception_tables.push(table);
        match callee {
            Callee::Direct(f) => self.b.ins().try_call(f, args, table),
            Callee::Indirect(code) => self.b.ins().try_call_indirect(code, args, table),
        };
        self.b.seal_block(landing);
        self.b.switch_to_block(landing);
        self.b.ins().jump(handler, &[]);
        self.b.seal_block(next);
        self.b.switch_to_block(next);
        self.b.block_params(next).to_vec()
    }
}

/// The callee of [`FuncTranslator::call_wasm`].
enum Callee {
    /// A function of the module, called directly.
    Direct(FuncRef),
    /// The code at an address.
    Indirect(Value),
}

pub(crate) fn block_args(values: &[Value]) -> Vec<BlockArg> {
    values.iter().map(|v| BlockArg::Value(*v)).collect()
}

/// The legacy exception handling instructions (see `ops_exceptions.rs`).
impl FuncTranslator<'_, '_> {
    /// `catch tag` (`Some`) or `catch_all` (`None`) of the innermost legacy
    /// `try`: ends its body or previous clause, and starts the clause with
    /// the test of its tag in the dispatch chain and the payload on the
    /// stack.
    fn translate_legacy_catch(&mut self, tag: Option<u32>) -> Result<()> {
        let frame = self
            .frames
            .last()
            .ok_or_else(|| anyhow!("`catch` outside of a `try`"))?;
        let FrameKind::LegacyTry {
            dispatch,
            next,
            in_catch,
            caught,
        } = frame.kind
        else {
            bail!("`catch` outside of a `try`");
        };
        let (dest, base, num_results) = (frame.dest, frame.base, frame.num_results);
        if self.reachable {
            let results = self.peekn(num_results);
            self.jump(dest, &results);
            if let Some(f) = self.frames.last_mut() {
                f.exit_reached = true;
            }
        }
        if !in_catch {
            // Every throw point of the body is known now.
            self.b.seal_block(dispatch);
        }
        let Some(test) = next else {
            bail!("`catch` after `catch_all`");
        };
        self.b.switch_to_block(test);
        let next = tag.map(|tag| self.test_pending_tag(tag));
        let exn = self.take_pending_exception();
        self.b.def_var(caught, exn);
        let payload = self.catch_exception(tag, exn, true)?;
        if let Some(f) = self.frames.last_mut() {
            f.kind = FrameKind::LegacyTry {
                dispatch,
                next,
                in_catch: true,
                caught,
            };
        }
        self.stack.truncate(base);
        self.stack.extend(payload);
        self.reachable = true;
        Ok(())
    }

    /// `delegate label`: ends the innermost legacy `try` (which has no
    /// clause), its body's exceptions going to the handler of `label`
    /// (counted from outside the `try`).
    fn translate_delegate(&mut self, relative_depth: u32) -> Result<()> {
        let frame = self
            .frames
            .last()
            .ok_or_else(|| anyhow!("`delegate` outside of a `try`"))?;
        let FrameKind::LegacyTry {
            dispatch,
            in_catch: false,
            ..
        } = frame.kind
        else {
            bail!("`delegate` outside of a `try` body");
        };
        let (dest, num_results) = (frame.dest, frame.num_results);
        if self.reachable {
            let results = self.peekn(num_results);
            self.jump(dest, &results);
            if let Some(f) = self.frames.last_mut() {
                f.exit_reached = true;
            }
            self.reachable = false;
        }
        // The frames up to the label's, inclusive; the `try` is the last.
        let outer = self
            .frames
            .len()
            .checked_sub(1 + relative_depth as usize)
            .ok_or_else(|| anyhow!("`delegate` label {relative_depth} out of range"))?;
        let target = self.handler_block_within(outer);
        self.b.seal_block(dispatch);
        self.b.switch_to_block(dispatch);
        self.jump(target, &[]);
        if let Some(f) = self.frames.last_mut() {
            f.kind = FrameKind::Block;
        }
        self.translate_end();
        Ok(())
    }

    /// `rethrow label`: throws again the exception that the clause of the
    /// legacy `try` at `label` caught.
    fn translate_rethrow(&mut self, relative_depth: u32) -> Result<()> {
        let index = self
            .frames
            .len()
            .checked_sub(1 + relative_depth as usize)
            .ok_or_else(|| anyhow!("`rethrow` label {relative_depth} out of range"))?;
        let FrameKind::LegacyTry {
            caught, in_catch: true, ..
        } = self.frames[index].kind
        else {
            bail!("`rethrow` of a label that is not a `catch` clause");
        };
        let exn = self.b.use_var(caught);
        self.call_builtin(weft_environ::BuiltinFunction::ThrowRef, &[exn])?;
        let handler = self.handler_block();
        self.jump(handler, &[]);
        self.reachable = false;
        Ok(())
    }
}

impl FuncTranslator<'_, '_> {
    /// Declares every `i64` value on the operand stack not declared yet as
    /// needing a stack map (after each operator of a function that has
    /// stack maps).
    /// (See `gc_stack_maps.rs`.)
    pub(crate) fn declare_stack_refs(&mut self) {
        for i in (0..self.stack.len()).rev() {
            let v = self.stack[i];
            if self.b.func.dfg.value_type(v) == types::I64 && self.stack_map_values.insert(v) {
                self.b.declare_value_needs_stack_map(v);
            }
        }
    }
}

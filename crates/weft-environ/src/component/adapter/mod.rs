//! Fused adapters: core wasm modules, generated here with `wasm-encoder`
//! from component types alone ([`adapter_module`]) and compiled by the
//! runtime like any module, through which one component calls a function
//! lifted by another component of the same plan without the host lifting
//! and lowering the values in between. The runtime instantiates them
//! against its host built-ins (the imports named by this module's
//! constants).
//!
//! Every component-to-component call has one. That of a call of an `async`
//! function type is described in `async_call.rs`: the runtime schedules the
//! callee's task, and the adapter's `start` and `return` functions move the
//! arguments and the result when it starts and when it returns. That of a
//! synchronous call exports one function with the caller's lowered core signature. It calls
//! `enter` (a host built-in that checks the caller's `may_leave`, checks
//! and clears the callee's `may_enter` and opens the call's resource
//! scope), moves every argument from the caller to the callee, calls the
//! callee's core function, moves the result back, calls the callee's
//! `post-return` with the callee's core results, then `exit` (which sets
//! `may_enter` again, returns the lends of the call and traps if the callee
//! kept a borrow). The `realloc` and `post-return` functions it imports
//! are host wrappers that clear their instance's `may_leave` while they
//! run, as CanonicalABI.md does.
//!
//! Moving a value is one recursive translation (`translate.rs`) from a
//! source to a destination, each either flat core values in locals or
//! memory at an address plus an offset, for every value type: numbers
//! (narrow integers truncated or sign-extended, NaNs canonicalized),
//! `bool`s normalized, `char`s checked, flags (unknown bits dropped),
//! records, tuples, fixed-length lists, variants, enums, options and
//! results (discriminant checked; flat payloads coerced out of and back
//! into their joined slots, unused slots zeroed; in memory at the payload
//! offset), strings, lists and maps of any element type (length limit,
//! alignment and bounds checked, allocated with the receiving side's
//! `realloc` and checked again, then copied with one two-memory
//! `memory.copy` when the elements are plain integers, else element by
//! element), and `own` and `borrow` handles (moved and lent by host
//! built-ins over the handle tables, which the runtime provides). Parameters past
//! `MAX_FLAT_PARAMS` are read from the tuple the caller points to and
//! written to one the adapter allocates with the callee's `realloc`;
//! results past `MAX_FLAT_RESULTS` are read from the callee's return area
//! and written through the caller's return pointer, both checked.
//!
//! Strings between two UTF-8 sides are validated in wasm (`wasm.rs`) and
//! copied; every other pair of encodings goes through a host built-in that
//! reads the source memory, checks and decodes the string as lifting does
//! (invalid UTF-8 and unpaired UTF-16 surrogates trap), and stores it with
//! the destination's `realloc` exactly as `store_string` of CanonicalABI.md
//! does (its allocations, shrinking reallocations and the tagged length of
//! `latin1+utf16`). Stream and future readable ends move, and error
//! contexts are shared, through one host built-in per direction over the
//! two instances' task tables (`lift_async_value`, then `lower_handle`).
//!
//! Every check that fails branches to a call of the `trap` built-in with
//! an [`AdapterTrap`] code, which raises the trap of that check with
//! Wasmtime's message (`Trap::UnalignedPointer`, ...); the checks that pass
//! call nothing.

mod async_call;
mod translate;
mod trap;
mod wasm;

pub use trap::AdapterTrap;

use crate::component::abi::{self, AbiOptions, Context, Despecialized, FlatType, PtrType};
use crate::component::{ComponentTypes, FuncType, InterfaceType, StringEncoding};
use translate::{AdapterFuncBuilder, CopyDirection, Place};
use wasm::val_type;
use wasm_encoder::{
    CodeSection, EntityType, ExportKind, ExportSection, FunctionSection, ImportSection, Instruction as W,
    Module as Encoder, TypeSection, ValType,
};

/// The callee's core function (the lifted function's core function).
pub const CALLEE: &str = "callee";
/// The built-in that checks the caller's `may_leave` and the callee's
/// `may_enter`, clears `may_enter` and opens the call's resource scope,
/// returning it: `() -> i32`.
pub const ENTER: &str = "enter";
/// The built-in that sets `may_enter` again and closes the call's resource
/// scope (returning its lends, trapping if the callee kept a borrow):
/// `(scope: i32) -> ()`.
pub const EXIT: &str = "exit";
/// The callee's `post-return` function, when it has one.
pub const POST_RETURN: &str = "post-return";
/// The caller's memory, when values need one.
pub const CALLER_MEMORY: &str = "caller-memory";
/// The callee's memory, when values need one.
pub const CALLEE_MEMORY: &str = "callee-memory";
/// The caller's `realloc`, when results need one.
pub const CALLER_REALLOC: &str = "caller-realloc";
/// The callee's `realloc`, when parameters need one.
pub const CALLEE_REALLOC: &str = "callee-realloc";
/// The built-in that moves a string of another encoding to the callee:
/// `(ptr: i32, tagged length: i32) -> (ptr: i32, tagged length: i32)`.
pub const TRANSCODE_TO_CALLEE: &str = "transcode-to-callee";
/// The built-in that moves a string of another encoding to the caller.
pub const TRANSCODE_TO_CALLER: &str = "transcode-to-caller";
/// The built-in that moves an `own` handle from the caller's table to the
/// callee's: `(resource type: i32, handle: i32) -> (handle: i32)`.
pub const OWN_TO_CALLEE: &str = "resource-transfer-own-to-callee";
/// The built-in that moves an `own` handle from the callee's table to the
/// caller's.
pub const OWN_TO_CALLER: &str = "resource-transfer-own-to-caller";
/// The built-in that lends a `borrow` of the caller's handle to the callee
/// for the call: `(resource type: i32, handle: i32, scope: i32) ->
/// (handle: i32)`.
pub const BORROW_TO_CALLEE: &str = "resource-transfer-borrow";
/// The built-in that moves a stream or future's readable end, or shares an
/// error context, from the caller's table to the callee's: `(kind: i32,
/// type: i32, handle: i32) -> (handle: i32)`, the kind one of
/// [`ASYNC_STREAM`], [`ASYNC_FUTURE`] and [`ASYNC_ERROR_CONTEXT`], the type
/// the index of the stream or future type (`u32::MAX` for an error
/// context).
pub const ASYNC_TO_CALLEE: &str = "async-value-to-callee";
/// The built-in that moves a stream or future end, or shares an error
/// context, from the callee's table to the caller's.
pub const ASYNC_TO_CALLER: &str = "async-value-to-caller";
/// The kind of a moved stream end.
pub const ASYNC_STREAM: u32 = 0;
/// The kind of a moved future end.
pub const ASYNC_FUTURE: u32 = 1;
/// The kind of a shared error context.
pub const ASYNC_ERROR_CONTEXT: u32 = 2;
/// The built-in called for values that cannot cross (`borrow` results,
/// which validation rejects): fails with `unsupported`.
pub const UNSUPPORTED: &str = "unsupported";
/// The built-in every failed check calls with an [`AdapterTrap`] code:
/// `(code: i32) -> ()`.
pub const TRAP: &str = "trap";
/// The adapter's export: a function of the caller's lowered signature.
pub const ADAPTER: &str = "adapter";
/// The built-in an `async` call's adapter passes the caller's core
/// arguments to: it starts the callee's task and returns the status of an
/// `async` lower, or waits and returns the flat result of a synchronous
/// one. Its type is the caller's lowered signature.
pub const START_CALL: &str = "start-call";
/// The export of an `async` call's adapter that the runtime calls when the
/// callee's task starts: `(caller's core arguments..., scope: i32) ->
/// (callee's core arguments...)`.
pub const START: &str = "start";
/// The export of an `async` call's adapter that the runtime calls when the
/// callee returns: `(callee's flat result or pointer..., caller's core
/// arguments...) -> (flat result of a synchronous lower)`.
pub const RETURN: &str = "return";

const PTR: PtrType = PtrType::I32;
const I32: ValType = ValType::I32;

/// What the canonical options of one side provide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Side {
    /// The string encoding of the side's canonical options.
    pub encoding: StringEncoding,
    /// Whether there is a memory.
    pub memory: bool,
    /// Whether there is a `realloc`.
    pub realloc: bool,
    /// The `async` option.
    pub is_async: bool,
    /// Whether there is a `callback` (an `async` lift's).
    pub callback: bool,
}

/// What the canonical options of the two sides provide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sides {
    /// Whether the callee has a `post-return` function.
    pub post_return: bool,
    /// The caller's (lowering) side.
    pub caller: Side,
    /// The callee's (lifting) side.
    pub callee: Side,
}

/// What values of some types contain.
#[derive(Default, Clone, Copy)]
struct Needs {
    strings: bool,
    lists: bool,
    own: bool,
    borrow: bool,
    /// Streams, futures or error contexts.
    async_values: bool,
    /// `char`s or variants, whose translation checks them.
    checked: bool,
}

fn scan(types: &ComponentTypes, ty: InterfaceType, n: &mut Needs, depth: u32) {
    use InterfaceType as I;
    if depth > 100 {
        return;
    }
    match abi::despecialize(types, ty) {
        Despecialized::Other(t) => match t {
            I::String => n.strings = true,
            I::Char => n.checked = true,
            I::Own(_) => n.own = true,
            I::Borrow(_) => n.borrow = true,
            I::ErrorContext | I::Defined(_) => n.async_values = true,
            _ => {}
        },
        Despecialized::Record(fields) => fields.iter().for_each(|t| scan(types, *t, n, depth + 1)),
        Despecialized::Variant(cases) => {
            n.checked = true;
            cases.iter().flatten().for_each(|t| scan(types, *t, n, depth + 1));
        }
        Despecialized::List(t, fixed) => {
            n.lists |= fixed.is_none();
            scan(types, t, n, depth + 1);
        }
        Despecialized::Flags(_) => {}
    }
}

/// The number of flat values of `ty`, counted only up to just past `cap`
/// (a `list<T, N>` may flatten to billions).
fn flat_len(types: &ComponentTypes, ty: InterfaceType, cap: usize, depth: u32) -> usize {
    use InterfaceType as I;
    let over = cap.saturating_add(1);
    if depth > 100 {
        return over;
    }
    match abi::despecialize(types, ty) {
        Despecialized::Other(I::String) => 2,
        // Everything else, stream and future handles too, is one value.
        Despecialized::Other(_) => 1,
        Despecialized::List(_, None) => 2,
        Despecialized::List(t, Some(n)) => (n as usize)
            .saturating_mul(flat_len(types, t, cap, depth + 1))
            .min(over),
        Despecialized::Flags(n) => n.div_ceil(32).min(over),
        Despecialized::Record(fields) => {
            let mut total = 0usize;
            for t in fields {
                total = total.saturating_add(flat_len(types, t, cap, depth + 1));
                if total > cap {
                    return over;
                }
            }
            total
        }
        Despecialized::Variant(cases) => cases
            .iter()
            .flatten()
            .map(|t| flat_len(types, *t, cap, depth + 1))
            .fold(0, usize::max)
            .saturating_add(1)
            .min(over),
    }
}

/// The alignment and size of a tuple of `tys` in memory.
fn tuple_layout(types: &ComponentTypes, tys: &[InterfaceType]) -> (u32, u32) {
    let mut offset = 0u32;
    let mut align = 1u32;
    for t in tys {
        let a = abi::alignment(types, *t, PTR);
        align = align.max(a);
        offset = abi::align_to(offset, a).saturating_add(abi::elem_size(types, *t, PTR));
    }
    (align, abi::align_to(offset, align))
}

/// Whether the adapter of a call of type `ty` between `sides` is that of an
/// `async` call (exporting [`START`] and [`RETURN`]).
pub fn is_async_call(ty: &FuncType, sides: &Sides) -> bool {
    ty.is_async || sides.caller.is_async || sides.callee.is_async
}

/// A function index allocator for imports, in order.
struct Imports {
    section: ImportSection,
    next: u32,
}

impl Imports {
    fn func(&mut self, name: &str, ty: u32) -> u32 {
        self.section.import("", name, EntityType::Function(ty));
        self.next += 1;
        self.next - 1
    }

    fn func_if(&mut self, wanted: bool, name: &str, ty: u32) -> Option<u32> {
        wanted.then(|| self.func(name, ty))
    }
}

/// Adds the types 4 to 10 of every adapter module, those of the built-ins
/// and helpers: 4 `realloc`, 5 UTF-8 validation, 6 `() -> i32` (`enter`),
/// 7 `(i32) -> ()` (`exit`, `trap`), 8 transcoding, 9 `own` moves, 10
/// `borrow` lends and async value moves. Types 0 to 3 are the module's own.
fn builtin_types(section: &mut TypeSection) {
    section.ty().function([I32, I32, I32, I32], [I32]);
    section.ty().function([I32, I32], []);
    section.ty().function([], [I32]);
    section.ty().function([I32], []);
    section.ty().function([I32, I32], [I32, I32]);
    section.ty().function([I32, I32], [I32]);
    section.ty().function([I32, I32, I32], [I32]);
}

/// What moving the values of a call needs beyond the values' own contents
/// ([`Needs`]).
struct MoveNeeds {
    callee_realloc: bool,
    caller_realloc: bool,
    memory: bool,
    /// Both sides are UTF-8 and strings cross: validated in wasm.
    validators: bool,
}

/// The two directions of a call's values, with the built-ins they call.
struct Moves {
    to_callee: CopyDirection,
    to_caller: CopyDirection,
    trap: Option<u32>,
}

/// Imports the built-ins that moving the parameters (`p`) and the result
/// (`r`) between `sides` calls, then the two memories when values need
/// them; the UTF-8 validators are the module's functions
/// `first_validator` and the next, counted from the functions it defines.
fn import_moves(
    imports: Imports,
    (p, r): (&Needs, &Needs),
    sides: &Sides,
    need: &MoveNeeds,
    first_validator: u32,
) -> (ImportSection, u32, Moves) {
    let mut imports = imports;
    let utf8 = sides.caller.encoding == StringEncoding::Utf8 && sides.callee.encoding == StringEncoding::Utf8;
    let callee_realloc = imports.func_if(need.callee_realloc, CALLEE_REALLOC, 4);
    let caller_realloc = imports.func_if(need.caller_realloc, CALLER_REALLOC, 4);
    let transcode_to_callee = imports.func_if(p.strings && !utf8, TRANSCODE_TO_CALLEE, 8);
    let transcode_to_caller = imports.func_if(r.strings && !utf8, TRANSCODE_TO_CALLER, 8);
    let own_to_callee = imports.func_if(p.own, OWN_TO_CALLEE, 9);
    let own_to_caller = imports.func_if(r.own, OWN_TO_CALLER, 9);
    let borrow_to_callee = imports.func_if(p.borrow, BORROW_TO_CALLEE, 10);
    let async_to_callee = imports.func_if(p.async_values, ASYNC_TO_CALLEE, 10);
    let async_to_caller = imports.func_if(r.async_values, ASYNC_TO_CALLER, 10);
    let unsupported = imports.func_if(r.borrow, UNSUPPORTED, 1);
    let traps = need.memory || p.checked || r.checked;
    let trap = imports.func_if(traps, TRAP, 7);
    let num_imported = imports.next;
    let mut section = imports.section;
    if need.memory {
        // Both are imported so that the caller's is memory 0 and the
        // callee's memory 1; the runtime passes an empty memory for a side
        // that has none (its values never touch it).
        let memory = EntityType::Memory(wasm_encoder::MemoryType {
            minimum: 0,
            maximum: None,
            memory64: false,
            shared: false,
            page_size_log2: None,
        });
        section.import("", CALLER_MEMORY, memory);
        section.import("", CALLEE_MEMORY, memory);
    }
    let validate = [num_imported + first_validator, num_imported + first_validator + 1];
    let to_callee = CopyDirection {
        from_mem: 0,
        to_mem: 1,
        from_enc: sides.caller.encoding,
        to_enc: sides.callee.encoding,
        realloc: callee_realloc,
        validate: need.validators.then_some(validate[0]),
        transcode: transcode_to_callee,
        own: own_to_callee,
        borrow: borrow_to_callee,
        async_value: async_to_callee,
        unsupported,
    };
    let to_caller = CopyDirection {
        from_mem: 1,
        to_mem: 0,
        from_enc: sides.callee.encoding,
        to_enc: sides.caller.encoding,
        realloc: caller_realloc,
        validate: need.validators.then_some(validate[1]),
        transcode: transcode_to_caller,
        own: own_to_caller,
        borrow: None,
        async_value: async_to_caller,
        unsupported,
    };
    let moves = Moves {
        to_callee,
        to_caller,
        trap,
    };
    (section, num_imported, moves)
}

/// Emits the move of the parameters `param_tys`: from the caller's flat
/// values (locals from 0) or, when `from_tuple`, the tuple local 0 points
/// to, to the callee's flat values or, when `to_tuple`, a tuple allocated
/// with its `realloc`. Returns the locals holding the callee's arguments.
fn move_params(
    g: &mut AdapterFuncBuilder<'_>,
    param_tys: &[InterfaceType],
    (from_tuple, to_tuple): (bool, bool),
    dir: &CopyDirection,
) -> Result<Vec<u32>, String> {
    let types = g.types;
    // Flattened only when one side passes them flat (then at most 16
    // values: a fixed-length list may flatten to billions).
    let flat: Vec<FlatType> = if from_tuple && to_tuple {
        Vec::new()
    } else {
        param_tys
            .iter()
            .flat_map(|t| abi::flatten_type(types, *t, PTR))
            .collect()
    };
    let tuple = tuple_layout(types, param_tys);
    let src = if from_tuple {
        g.b.check_align(0, tuple.0);
        g.b.check_range_const(0, tuple.1, 0, AdapterTrap::MemoryOutOfBounds);
        Place::Mem {
            mem: 0,
            addr: 0,
            offset: 0,
        }
    } else {
        Place::Flat(flat.iter().enumerate().map(|(i, t)| (i as u32, *t)).collect())
    };
    let (dst, args) = if to_tuple {
        let realloc = dir.realloc.ok_or("internal error: no callee realloc")?;
        let ptr = g.b.local(I32);
        g.b.i(W::I32Const(0));
        g.b.i(W::I32Const(0));
        g.b.i(W::I32Const(tuple.0 as i32));
        g.b.i(W::I32Const(tuple.1 as i32));
        g.b.i(W::Call(realloc));
        g.b.i(W::LocalSet(ptr));
        g.b.check_align(ptr, tuple.0);
        g.b.check_range_const(ptr, tuple.1, 1, AdapterTrap::MemoryOutOfBounds);
        let place = Place::Mem {
            mem: 1,
            addr: ptr,
            offset: 0,
        };
        (place, vec![ptr])
    } else {
        let locals = g.flat_locals(&flat);
        let args = locals.iter().map(|(l, _)| *l).collect();
        (Place::Flat(locals), args)
    };
    let srcs = g.fields(param_tys, &src)?;
    let dsts = g.fields(param_tys, &dst)?;
    for ((t, s), d) in param_tys.iter().zip(&srcs).zip(&dsts) {
        g.translate(*t, s, d, dir, 0)?;
    }
    Ok(args)
}

/// Emits the move of a result of type `t` to the caller: from the callee's
/// flat values `flat` or, when `from_ptr` is given, the memory 1 it points
/// to (checked), to the memory 0 local `retptr` points to (checked) or, when
/// it is `None`, to new locals of the flat types `to_flat`, returned.
fn move_result(
    g: &mut AdapterFuncBuilder<'_>,
    t: InterfaceType,
    (flat, from_ptr): (Vec<(u32, FlatType)>, Option<u32>),
    (retptr, to_flat): (Option<u32>, &[FlatType]),
    dir: &CopyDirection,
) -> Result<Vec<u32>, String> {
    let types = g.types;
    let align = abi::alignment(types, t, PTR);
    let size = abi::elem_size(types, t, PTR);
    let src = match from_ptr {
        Some(ptr) => {
            g.b.check_align(ptr, align);
            g.b.check_range_const(ptr, size, 1, AdapterTrap::MemoryOutOfBounds);
            Place::Mem {
                mem: 1,
                addr: ptr,
                offset: 0,
            }
        }
        None => Place::Flat(flat),
    };
    let mut results = Vec::new();
    let dst = match retptr {
        Some(retptr) => {
            g.b.check_align(retptr, align);
            g.b.check_range_const(retptr, size, 0, AdapterTrap::MemoryOutOfBounds);
            Place::Mem {
                mem: 0,
                addr: retptr,
                offset: 0,
            }
        }
        None => {
            let locals = g.flat_locals(to_flat);
            results = locals.iter().map(|(l, _)| *l).collect();
            Place::Flat(locals)
        }
    };
    g.translate(t, &src, &dst, dir, 0)?;
    Ok(results)
}

/// The binary of the adapter for calls of type `ty` between two sides with
/// the options `sides`, or an error saying why there can be none (options
/// lacking a memory or `realloc` the values need, or a type nested too
/// deeply).
pub fn adapter_module(types: &ComponentTypes, ty: &FuncType, sides: Sides) -> Result<Vec<u8>, String> {
    if is_async_call(ty, &sides) {
        return async_call::async_adapter_module(types, ty, sides);
    }
    let param_tys: Vec<InterfaceType> = ty.param_types().collect();
    let (mut p, mut r) = (Needs::default(), Needs::default());
    for t in &param_tys {
        scan(types, *t, &mut p, 0);
    }
    if let Some(t) = ty.result {
        scan(types, t, &mut r, 0);
    }
    let lower = abi::flatten_functype(types, ty, AbiOptions::default(), Context::Lower);
    let lift = abi::flatten_functype(types, ty, AbiOptions::default(), Context::Lift);
    let cap = abi::MAX_FLAT_PARAMS;
    let params_len = param_tys
        .iter()
        .fold(0usize, |n, t| n.saturating_add(flat_len(types, *t, cap, 0)));
    let params_spill = params_len > abi::MAX_FLAT_PARAMS;
    let results_spill = ty
        .result
        .is_some_and(|t| flat_len(types, t, abi::MAX_FLAT_RESULTS, 0) > abi::MAX_FLAT_RESULTS);

    let needs_memory = p.strings || p.lists || r.strings || r.lists || params_spill || results_spill;
    let callee_realloc = p.strings || p.lists || params_spill;
    let caller_realloc = r.strings || r.lists;
    if needs_memory && !(sides.caller.memory && sides.callee.memory) {
        return Err("the canonical options of a component-to-component call lack a memory".into());
    }
    if (callee_realloc && !sides.callee.realloc) || (caller_realloc && !sides.caller.realloc) {
        return Err("the canonical options of a component-to-component call lack a `realloc`".into());
    }
    let utf8 = sides.caller.encoding == StringEncoding::Utf8 && sides.callee.encoding == StringEncoding::Utf8;
    let validators = utf8 && (p.strings || r.strings);

    // Types: 0 the adapter (the caller's lowered signature), 1 `() -> ()`,
    // 2 post-return, 3 the callee (its lifted signature), 4 realloc,
    // 5 UTF-8 validation, 6 enter, 7 exit, 8 transcode, 9 own, 10 borrow.
    let lower_params: Vec<ValType> = lower.params.iter().map(|t| val_type(*t)).collect();
    let lower_results: Vec<ValType> = lower.results.iter().map(|t| val_type(*t)).collect();
    let lift_params: Vec<ValType> = lift.params.iter().map(|t| val_type(*t)).collect();
    let lift_results: Vec<ValType> = lift.results.iter().map(|t| val_type(*t)).collect();
    let mut type_section = TypeSection::new();
    type_section.ty().function(lower_params.clone(), lower_results.clone());
    type_section.ty().function([], []);
    type_section.ty().function(lift_results.clone(), []);
    type_section.ty().function(lift_params.clone(), lift_results.clone());
    builtin_types(&mut type_section);

    let mut imports = Imports {
        section: ImportSection::new(),
        next: 0,
    };
    let callee = imports.func(CALLEE, 3);
    let enter = imports.func(ENTER, 6);
    let exit = imports.func(EXIT, 7);
    let post_return = imports.func_if(sides.post_return, POST_RETURN, 2);
    let need = MoveNeeds {
        callee_realloc,
        caller_realloc,
        memory: needs_memory,
        validators,
    };
    // Functions: the adapter, then the two validators.
    let (imports, num_imported, moves) = import_moves(imports, (&p, &r), &sides, &need, 1);
    let Moves {
        to_callee,
        to_caller,
        trap,
    } = moves;

    let n = lower_params.len() as u32;
    let mut g = AdapterFuncBuilder::new(types, n, trap);
    g.b.i(W::Call(enter));
    g.b.i(W::LocalSet(g.scope));

    // Parameters: from the caller's flat values or the tuple it points to,
    // to the callee's flat values or a tuple allocated in its memory.
    let callee_args = move_params(&mut g, &param_tys, (params_spill, params_spill), &to_callee)?;
    for a in callee_args {
        g.b.i(W::LocalGet(a));
    }
    g.b.i(W::Call(callee));

    // The result: from the callee's flat value or its return area, to the
    // caller's flat value or its return pointer (its last parameter).
    let raw: Vec<(u32, FlatType)> = g.flat_locals(&lift.results);
    for (l, _) in raw.iter().rev() {
        g.b.i(W::LocalSet(*l));
    }
    let mut caller_results = Vec::new();
    if let Some(t) = ty.result {
        let from_ptr = if results_spill {
            Some(raw.first().ok_or("internal error: no return area")?.0)
        } else {
            None
        };
        let retptr = if results_spill {
            Some(n.checked_sub(1).ok_or("internal error: no return pointer")?)
        } else {
            None
        };
        caller_results = move_result(&mut g, t, (raw.clone(), from_ptr), (retptr, &lower.results), &to_caller)?;
    }
    if let Some(post_return) = post_return {
        for (l, _) in &raw {
            g.b.i(W::LocalGet(*l));
        }
        g.b.i(W::Call(post_return));
    }
    g.b.i(W::LocalGet(g.scope));
    g.b.i(W::Call(exit));
    for l in caller_results {
        g.b.i(W::LocalGet(l));
    }

    let mut functions = FunctionSection::new();
    functions.function(0);
    let mut code = CodeSection::new();
    code.function(&g.b.finish()?);
    if validators {
        let trap = trap.ok_or("internal error: no trap built-in")?;
        functions.function(5);
        functions.function(5);
        code.function(&wasm::validate_utf8(0, trap));
        code.function(&wasm::validate_utf8(1, trap));
    }
    let mut exports = ExportSection::new();
    exports.export(ADAPTER, ExportKind::Func, num_imported);
    let mut module = Encoder::new();
    module
        .section(&type_section)
        .section(&imports)
        .section(&functions)
        .section(&exports)
        .section(&code);
    Ok(module.finish())
}

//! [`CompiledModule`]: the machine code of a module and its tables, as plain
//! data, whether just compiled or read back from precompiled bytes.

use crate::Trap;
use std::borrow::Cow;

/// Where one function lies in [`CompiledModule::code`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FunctionLoc {
    /// Offset of the function's first byte.
    pub offset: u32,
    /// Length of the function in bytes.
    pub len: u32,
}

/// The machine code of a module: every defined function and one host-to-wasm
/// trampoline per module type that a function the host can call has,
/// linked together, with the tables the runtime
/// needs to run it. Code generation makes it (with owned `code`); reading a
/// precompiled module makes it again (with `code` borrowed from the bytes
/// read, copied once into executable memory).
#[derive(Debug, Clone, Default)]
pub struct CompiledModule<'a> {
    /// All functions and trampolines, each 16-byte aligned. The code is
    /// position independent: direct calls between functions are already
    /// resolved as pc-relative calls.
    pub code: Cow<'a, [u8]>,
    /// The location of each defined function, by defined function index.
    pub funcs: Vec<FunctionLoc>,
    /// The offset in `code` of the host-to-wasm trampoline of each module
    /// type, by module type index: `extern fn(callee_vmctx, caller_vmctx,
    /// code, values: *mut ValRaw)` with the platform's C calling convention.
    /// [`NO_TRAMPOLINE`] for a type no defined function the host may call
    /// has (see `Module::host_callable_types`).
    pub array_trampolines: Vec<u32>,
    /// The offset in `code` of each instruction that may trap, with its trap,
    /// sorted by offset.
    pub traps: Vec<(u32, Trap)>,
    /// `(code offset, wasm offset)` pairs sorted by code offset: the code
    /// from each code offset up to the next entry was generated for the
    /// operator at that byte offset of the module's binary. Prologues,
    /// epilogues and trampolines have no entry. For backtraces only.
    pub address_map: Vec<(u32, u32)>,
    /// The stack maps of the calls of functions that hold references the
    /// collector traces, sorted by code offset: the offset of each call's
    /// return address, with the offsets (from the stack pointer at the
    /// call) of the 8-byte slots holding those references.
    pub stack_maps: Vec<(u32, Box<[u32]>)>,
    /// The calls that are in the scope of an exception handler, sorted by
    /// the offset of their return address: where an exception thrown
    /// below one of them resumes.
    pub exception_handlers: Vec<ExceptionHandler>,
}

/// The entry of [`CompiledModule::array_trampolines`] for a type without a
/// trampoline.
pub const NO_TRAMPOLINE: u32 = u32::MAX;

/// A call in the scope of an exception handler: an exception thrown below
/// it resumes in its frame at `handler`, with the stack pointer at
/// `frame_offset` below the frame pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExceptionHandler {
    /// The code offset of the call's return address.
    pub ret: u32,
    /// The code offset of the handler's landing pad.
    pub handler: u32,
    /// The frame pointer minus the stack pointer, at the call.
    pub frame_offset: u32,
}

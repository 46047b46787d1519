//! Trap codes shared by code generation and the runtime.

use std::fmt;

/// Why WebAssembly execution stopped abnormally.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
#[non_exhaustive]
pub enum Trap {
    /// The wasm stack reached its limit (`Config::max_wasm_stack`).
    StackOverflow = 1,
    /// A load or store outside the bounds of a linear memory.
    MemoryOutOfBounds,
    /// An atomic access at an unaligned address.
    HeapMisaligned,
    /// An access outside the bounds of a table.
    TableOutOfBounds,
    /// `call_indirect` reached a null table element.
    IndirectCallToNull,
    /// `call_indirect` reached a function of another type.
    BadSignature,
    /// Integer arithmetic overflowed (`i32.div_s` of `MIN` by `-1`).
    IntegerOverflow,
    /// Integer division or remainder by zero.
    IntegerDivisionByZero,
    /// A float-to-integer conversion of NaN or of a value out of range.
    BadConversionToInteger,
    /// An `unreachable` instruction was executed.
    UnreachableCodeReached,
    /// Execution was interrupted by an epoch deadline.
    Interrupt,
    /// Execution ran out of fuel.
    OutOfFuel,
    /// A null reference was dereferenced.
    NullReference,
    /// A host function returned an error or panicked; the runtime carries
    /// the error itself. Never seen by users as a `Trap`.
    HostError,
    /// An exception no wasm handler caught reached the host-to-wasm
    /// trampoline, which traps so that the runtime ends the call with it
    /// (off the fast path of every call). Never seen by users as a `Trap`.
    UncaughtException,
    /// The canonical ABI met a pointer not aligned for its value (raised by
    /// a component's fused adapter).
    UnalignedPointer,
    /// The canonical ABI met a variant discriminant past the last case
    /// (raised by a component's fused adapter).
    InvalidDiscriminant,
    /// The canonical ABI met a `char` that is not a Unicode scalar value
    /// (raised by a component's fused adapter).
    InvalidChar,
    /// A list's contents are outside its memory (raised by a component's
    /// fused adapter).
    ListOutOfBounds,
    /// A string's contents are outside its memory (raised by a component's
    /// fused adapter).
    StringOutOfBounds,
    /// `memory.atomic.wait32`/`wait64` on a memory that is not shared.
    AtomicWaitNonSharedMemory,
    /// An array access outside the array's bounds (the GC proposal).
    ArrayOutOfBounds,
    /// A GC allocation that the GC heap cannot hold (too large, or the heap
    /// is out of memory).
    AllocationTooLarge,
    /// `ref.cast` of a reference that is not of the target type.
    CastFailure,
    /// A null descriptor given to `struct.new_desc`,
    /// `struct.new_default_desc`, `ref.cast_desc_eq` or
    /// `br_on_cast_desc_eq`/`_fail` (the custom descriptors proposal).
    NullDescriptorReference,
    /// `ref.cast_desc_eq` of a reference whose descriptor is not the given
    /// one (the custom descriptors proposal).
    DescriptorCastFailure,
}

impl Trap {
    /// All trap codes, in order of their numbers.
    pub const ALL: &'static [Trap] = &[
        Trap::StackOverflow,
        Trap::MemoryOutOfBounds,
        Trap::HeapMisaligned,
        Trap::TableOutOfBounds,
        Trap::IndirectCallToNull,
        Trap::BadSignature,
        Trap::IntegerOverflow,
        Trap::IntegerDivisionByZero,
        Trap::BadConversionToInteger,
        Trap::UnreachableCodeReached,
        Trap::Interrupt,
        Trap::OutOfFuel,
        Trap::NullReference,
        Trap::HostError,
        Trap::UncaughtException,
        Trap::UnalignedPointer,
        Trap::InvalidDiscriminant,
        Trap::InvalidChar,
        Trap::ListOutOfBounds,
        Trap::StringOutOfBounds,
        Trap::AtomicWaitNonSharedMemory,
        Trap::ArrayOutOfBounds,
        Trap::AllocationTooLarge,
        Trap::CastFailure,
        Trap::NullDescriptorReference,
        Trap::DescriptorCastFailure,
    ];

    /// The trap of number `code`, as given by `self as u8`.
    pub fn from_u8(code: u8) -> Option<Trap> {
        Trap::ALL.iter().copied().find(|t| *t as u8 == code)
    }

    /// The text of the trap, as Wasmtime words it.
    pub fn message(&self) -> &'static str {
        match self {
            Trap::StackOverflow => "call stack exhausted",
            Trap::MemoryOutOfBounds => "out of bounds memory access",
            Trap::HeapMisaligned => "unaligned atomic",
            Trap::TableOutOfBounds => "undefined element: out of bounds table access",
            Trap::IndirectCallToNull => "uninitialized element",
            Trap::BadSignature => "indirect call type mismatch",
            Trap::IntegerOverflow => "integer overflow",
            Trap::IntegerDivisionByZero => "integer divide by zero",
            Trap::BadConversionToInteger => "invalid conversion to integer",
            Trap::UnreachableCodeReached => "wasm `unreachable` instruction executed",
            Trap::Interrupt => "interrupt",
            Trap::OutOfFuel => "all fuel consumed by WebAssembly",
            Trap::NullReference => "null reference",
            Trap::HostError => "host function error",
            Trap::UncaughtException => "uncaught exception",
            Trap::UnalignedPointer => "unaligned pointer",
            Trap::InvalidDiscriminant => "invalid variant discriminant",
            Trap::InvalidChar => "invalid `char` bit pattern",
            Trap::ListOutOfBounds => "list content out-of-bounds",
            Trap::StringOutOfBounds => "string content out-of-bounds",
            Trap::AtomicWaitNonSharedMemory => "atomic wait on non-shared memory",
            Trap::ArrayOutOfBounds => "out of bounds array access",
            Trap::AllocationTooLarge => "allocation size too large",
            Trap::CastFailure => "cast failure",
            Trap::NullDescriptorReference => "null descriptor reference",
            Trap::DescriptorCastFailure => "descriptor cast failure",
        }
    }
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "wasm trap: {}", self.message())
    }
}

impl std::error::Error for Trap {}

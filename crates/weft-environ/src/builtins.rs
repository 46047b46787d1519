//! The builtin functions of the runtime that compiled code calls.
//!
//! Compiled code finds them in an array whose address is stored in every
//! `VMContext` (see [`crate::VMOffsets::vmctx_builtins`]), at the position
//! [`BuiltinFunction::index`]. They use the platform's C calling convention;
//! the first parameter is always the calling instance's `vmctx`. Builtins that
//! return `i32` status return 0 on success and non-zero when the operation must
//! trap (out of bounds memory access for memory builtins, out of bounds table
//! access for table builtins); compiled code raises the trap itself.

/// The type of a builtin parameter or result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuiltinType {
    /// The calling instance's `vmctx` pointer.
    Vmctx,
    /// A pointer-sized value (a reference).
    Pointer,
    /// A 32-bit integer.
    I32,
    /// A 64-bit integer.
    I64,
    /// A 32-bit float.
    F32,
    /// A 64-bit float.
    F64,
}

macro_rules! builtins {
    ($( $(#[$doc:meta])* $name:ident ( $($p:ident),* ) -> [ $($r:ident),* ]; )*) => {
        /// A builtin function of the runtime.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum BuiltinFunction {
            $( $(#[$doc])* $name, )*
        }

        impl BuiltinFunction {
            /// Every builtin, in array order.
            pub const ALL: &'static [BuiltinFunction] = &[$(BuiltinFunction::$name,)*];

            /// The parameter types.
            pub fn params(self) -> &'static [BuiltinType] {
                match self { $(BuiltinFunction::$name => &[$(BuiltinType::$p),*],)* }
            }

            /// The result types.
            pub fn results(self) -> &'static [BuiltinType] {
                match self { $(BuiltinFunction::$name => &[$(BuiltinType::$r),*],)* }
            }
        }
    };
}

builtins! {
    /// `memory.grow`: (vmctx, memory, delta pages) -> old size in pages, or -1.
    MemoryGrow(Vmctx, I32, I64) -> [I64];
    /// `memory.fill`: (vmctx, the memory's `VMMemoryDefinition`, dst, byte,
    /// len) -> status.
    MemoryFill(Vmctx, Pointer, I64, I32, I64) -> [I32];
    /// `memory.copy`: (vmctx, the destination memory's `VMMemoryDefinition`,
    /// dst, the source memory's, src, len) -> status.
    MemoryCopy(Vmctx, Pointer, I64, Pointer, I64, I64) -> [I32];
    /// `memory.init`: (vmctx, memory, data segment, dst, src, len) -> status.
    MemoryInit(Vmctx, I32, I32, I64, I32, I32) -> [I32];
    /// `data.drop`: (vmctx, data segment).
    DataDrop(Vmctx, I32) -> [];
    /// `table.grow`: (vmctx, table, delta, init value) -> old size, or -1.
    TableGrow(Vmctx, I32, I64, Pointer) -> [I64];
    /// `table.fill`: (vmctx, table, dst, value, len) -> status.
    TableFill(Vmctx, I32, I64, Pointer, I64) -> [I32];
    /// `table.copy`: (vmctx, dst table, src table, dst, src, len) -> status.
    TableCopy(Vmctx, I32, I32, I64, I64, I64) -> [I32];
    /// `table.init`: (vmctx, table, element segment, dst, src, len) -> status.
    TableInit(Vmctx, I32, I32, I64, I32, I32) -> [I32];
    /// `elem.drop`: (vmctx, element segment).
    ElemDrop(Vmctx, I32) -> [];
    /// Fuel ran out (the store's fuel counter is no longer negative): refuel and
    /// yield, or fail. (vmctx) -> status; non-zero traps with `HostError`.
    OutOfFuel(Vmctx) -> [I32];
    /// The epoch reached the store's deadline: update it, yield, or fail.
    /// (vmctx) -> status; non-zero traps with `HostError`.
    NewEpoch(Vmctx) -> [I32];
    /// Fused multiply-add of `f32`s, for deterministic relaxed SIMD on
    /// machines without FMA: (vmctx, a, b, c) -> a * b + c, rounded once.
    FmaF32(Vmctx, F32, F32, F32) -> [F32];
    /// Fused multiply-add of `f64`s: (vmctx, a, b, c) -> a * b + c.
    FmaF64(Vmctx, F64, F64, F64) -> [F64];
    /// `throw`: (vmctx, tag index, payload values array). Makes an
    /// exception of the instance's tag with the payload (one `ValRaw` per
    /// tag parameter) and sets it as the store's pending exception.
    Throw(Vmctx, I32, Pointer) -> [];
    /// `throw_ref`: (vmctx, non-null exnref). Sets a caught exception as
    /// the pending exception again.
    ThrowRef(Vmctx, Pointer) -> [];
    /// A handler caught an exception: (vmctx, exnref, out values array or
    /// null, keep). Copies the payload to the array, if any. With `keep`
    /// (a `catch_ref` or `catch_all_ref`, which give the exception to wasm
    /// as an `exnref`) the exception is kept until the store is dropped;
    /// without it, the exception is freed if no `exnref` to it was ever
    /// made, so that a throw-and-catch loop needs no memory.
    ExnCatch(Vmctx, Pointer, Pointer, I32) -> [];
    /// The pending exception leaves a function with no handler for it:
    /// (vmctx). Called through its trampoline (which records the exit),
    /// it resumes at the handler of the innermost calling wasm frame whose
    /// call is in the scope of one (see `weft_runtime`'s exception
    /// unwinding), and returns only when no frame of this call into wasm
    /// has one; compiled code then traps with `UncaughtException`.
    Unwind(Vmctx) -> [];
    /// `memory.atomic.wait32`: (vmctx, memory, effective address (aligned),
    /// expected, timeout in ns or negative for none) -> 0 woken, 1 not
    /// equal, 2 timed out, or [`ATOMIC_OUT_OF_BOUNDS`] /
    /// [`ATOMIC_WAIT_NOT_SHARED`], on which compiled code traps.
    MemoryAtomicWait32(Vmctx, I32, I64, I32, I64) -> [I32];
    /// `memory.atomic.wait64`: as `MemoryAtomicWait32` with an `i64`.
    MemoryAtomicWait64(Vmctx, I32, I64, I64, I64) -> [I32];
    /// `memory.atomic.notify`: (vmctx, memory, effective address (aligned),
    /// count) -> the number of waiters woken, or [`ATOMIC_OUT_OF_BOUNDS`].
    MemoryAtomicNotify(Vmctx, I32, I64, I32) -> [I32];
    /// GC allocation (`struct.new*`, `array.new*`): (vmctx, module type
    /// index, size in bytes, header included) -> the new object's heap word
    /// (every byte after the header zero), or 0 when the GC heap is out of
    /// memory (compiled code traps with `AllocationTooLarge`).
    GcAlloc(Vmctx, I32, I64) -> [I32];
    /// `array.copy`: (vmctx, dst array, dst index, src array, src index,
    /// len, element size) -> status (non-null arrays; 1 when a range is out
    /// of bounds, on which compiled code traps with `ArrayOutOfBounds`).
    GcArrayCopy(Vmctx, I32, I32, I32, I32, I32, I32) -> [I32];
    /// `array.new_data`/`array.new_elem`: (vmctx, module type index of the
    /// array, segment index, source offset, length, 0 for data or 1 for
    /// elements) -> the new array's heap word, or [`GC_OUT_OF_BOUNDS`] /
    /// [`GC_OUT_OF_MEMORY`].
    GcArrayNewSegment(Vmctx, I32, I32, I32, I32, I32) -> [I64];
    /// `array.init_data`/`array.init_elem`: (vmctx, module type index of the
    /// array, array (non-null), destination index, segment index, source
    /// offset, length, 0 for data or 1 for elements) -> status (1: the
    /// array range is out of bounds, 2: the segment range is).
    GcArrayInitSegment(Vmctx, I32, I32, I32, I32, I32, I32, I32) -> [I32];
    /// `ref.test`/`ref.cast`/`br_on_cast*` against a struct, array or
    /// concrete type: (vmctx, heap word of an object (not null, not an
    /// `i31ref`), what to test (see [`GC_TEST_STRUCT`]), module type
    /// index for concrete types) -> 1 when the object is of that type.
    GcRefTest(Vmctx, I32, I32, I32) -> [I32];
    /// `any.convert_extern`: (vmctx, externref word) -> the anyref heap
    /// word (a host reference is boxed in a GC object), or
    /// [`GC_OUT_OF_MEMORY`].
    GcAnyConvertExtern(Vmctx, Pointer) -> [I64];
    /// `extern.convert_any`: (vmctx, anyref heap word) -> the externref
    /// word (a boxed host reference is unboxed).
    GcExternConvertAny(Vmctx, I32) -> [Pointer];
}

/// The type id in the header of the GC objects that box a host reference
/// (`any.convert_extern`); no registered type has it.
pub const GC_EXTERN_BOX_TYPE: u32 = u32::MAX;

/// The bit set in an externref word that holds an anyref heap word (in its
/// low 32 bits), made by `extern.convert_any`.
pub const EXTERN_HOLDS_ANY: u64 = 1 << 63;

/// What `GcArrayNewSegment` returns for a segment range out of bounds
/// (compiled code traps with `MemoryOutOfBounds` for data,
/// `TableOutOfBounds` for elements).
pub const GC_OUT_OF_BOUNDS: u64 = u64::MAX;
/// What `GcArrayNewSegment` returns when the GC heap is out of memory
/// (compiled code traps with `AllocationTooLarge`).
pub const GC_OUT_OF_MEMORY: u64 = u64::MAX - 1;
/// `GcRefTest`: is the object a struct?
pub const GC_TEST_STRUCT: u32 = 0;
/// `GcRefTest`: is the object an array?
pub const GC_TEST_ARRAY: u32 = 1;
/// `GcRefTest`: is the object's type the given concrete type or one of its
/// declared subtypes?
pub const GC_TEST_CONCRETE: u32 = 2;
/// `GcRefTest`: is the function type whose engine id is passed instead of
/// a heap word the given (non-final) function type or one of its declared
/// subtypes? (`call_indirect`, `ref.test` of function references.)
pub const GC_TEST_FUNC_SUBTYPE: u32 = 3;

/// What the atomic wait and notify builtins return for an address out of
/// bounds (compiled code traps with `MemoryOutOfBounds`).
pub const ATOMIC_OUT_OF_BOUNDS: u32 = u32::MAX;
/// What the atomic wait builtins return for a memory that is not shared
/// (compiled code traps with `AtomicWaitNonSharedMemory`).
pub const ATOMIC_WAIT_NOT_SHARED: u32 = u32::MAX - 1;

impl BuiltinFunction {
    /// The position of this builtin in the builtins array.
    pub fn index(self) -> usize {
        Self::ALL.iter().position(|b| *b == self).unwrap_or(0)
    }
}

/// What the `MemoryGrow` and `TableGrow` builtins return when the store's
/// handler failed (a resource limiter's error): compiled code then traps with
/// `HostError`. Any other value is the old size, or `u64::MAX` (-1) when the
/// growth was refused.
pub const GROW_ERROR: u64 = u64::MAX - 1;

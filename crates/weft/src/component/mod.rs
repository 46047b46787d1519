//! The component model: components, linkers and instances, and the
//! canonical ABI's lifting and lowering of component values, following
//! `CanonicalABI.md` ("Loading", "Storing", "Flat Lifting", "Flat Lowering",
//! "Lifting and Lowering Values").
//!
//! * [`Val`] is a dynamically typed component value, shaped like Wasmtime's
//!   `wasmtime::component::Val`.
//! * [`load`] and [`store()`] read and write a value of a given
//!   [`InterfaceType`] at a pointer of a linear memory.
//! * [`lift_flat`] and [`lower_flat`] convert between a value and its flat
//!   core values, and [`lift_flat_values`] and [`lower_flat_values`] do so
//!   for a list of parameters or results, spilling to memory past
//!   `max_flat` core values.
//! * [`lower_params`] and [`lift_results`] (calling a lifted function) and
//!   [`lift_params`] and [`lower_results`] (implementing a lowered one) take
//!   a component function type and follow `flatten_functype` for the
//!   spilling of parameters and results (`async` lifts and lowers are in
//!   `concurrent/calls.rs`).
//! * The typed API ([`ComponentType`], [`Lift`], [`Lower`],
//!   [`ComponentNamedList`], [`TypedFunc`], [`LinkerInstance::func_wrap`],
//!   the derive macros and [`flags!`]) converts Rust values to and from
//!   [`Val`]s, after checking their types once.
//!
//! # Scope
//!
//! Only 32-bit memories are supported (pointers and lengths are `u32`).
//! Handles (`own`, `borrow`) are lifted as the raw index of the lifting
//! instance's handle table ([`Val::Resource`] of an unresolved
//! [`ResourceAny`]) and lowered from one; the call paths move them between
//! tables (`handles.rs`). Streams, futures and error contexts are lifted
//! as raw indices too and moved through the store (`concurrent/values.rs`).
//!
//! # Flat values
//!
//! Flat core values are untyped 64-bit slots (like Wasmtime's `ValRaw`): an
//! `i32` or `f32` (as its bits) is in the low 32 bits, an `i64` or `f64` (as
//! its bits) fills the slot. Lifting ignores the high 32 bits of a slot read
//! as an `i32` or `f32`; lowering writes them as zero. With this
//! representation the bitcasts of `lift_flat_variant` and
//! `lower_flat_variant` between joined types (`i32`/`f32` carried as `i32`,
//! anything carried as `i64`) are the identity, and wrapping an `i64` to an
//! `i32` is the truncation lifting does anyway.
//!
//! # Traps
//!
//! Every trap of the canonical ABI (misaligned or out-of-bounds pointers,
//! invalid `char`s, out-of-range discriminants, invalid strings, too long
//! strings or lists, a `realloc` result that is misaligned or out of bounds)
//! is an `Err` whose message starts with `wasm trap: `; no new
//! [`crate::Trap`] variant is used. A value that does not match its type
//! (a host mistake, not a guest trap) is an `Err` starting with
//! `type mismatch: `. No input panics.
//!
//! # Floats
//!
//! Lifting canonicalizes NaNs (`canonicalize_nan32`/`64`); lowering writes
//! the canonical NaN too (the deterministic profile, which the spec allows).

mod adapter;
mod async_values;
mod call;
#[cfg(feature = "async")]
mod call_async;
#[allow(
    clippy::module_inception,
    reason = "component::component holds Component, as in Wasmtime"
)]
mod component;
pub(crate) mod concurrent;
mod direct;
mod flat;
mod func_wrap;
mod handles;
mod has_data;
mod instance;
mod instance_pre;
mod linker;
#[cfg(feature = "component-model-async")]
mod linker_concurrent;
mod linker_wast;
mod load_store;
mod resource_table;
mod resources;
mod semver;
mod serialize;
// `store` (the component state of a store) and the files whose objects it
// holds (instances, lifted functions, resources and handle tables, tasks)
// import each other on purpose, as `crate::store` and the core objects do
// (see there); values reach into that loop through resources (`Val` holds
// `ResourceAny`s, which the store's handle tables resolve).
pub(crate) mod store;
#[cfg(test)]
mod tests;
mod typed;
pub mod types;
mod val;

pub use async_values::{ErrorContextAny, FutureAny, StreamAny};
pub use call::Func;
pub use component::Component;
#[cfg(feature = "component-model-async")]
pub use concurrent::{
    Access, Accessor, AccessorTask, AsAccessor, Destination, DirectDestination, DirectSource, ErrorContext,
    FuncCallConcurrent, FutureConsumer, FutureProducer, FutureReader, GuardedFutureReader, GuardedStreamReader,
    GuestTaskId, JoinHandle, ReadBuffer, Source, StreamConsumer, StreamProducer, StreamReader, StreamResult,
    TaskGroupHook, TaskGroupId, TypedFuncCallConcurrent, VecBuffer, WriteBuffer,
};
pub use has_data::{HasData, HasSelf};
pub use instance::{ComponentExportIndex, Instance, InstanceExportLookup};
pub use instance_pre::InstancePre;
pub use linker::{Linker, LinkerInstance};
pub use resource_table::{ResourceTable, ResourceTableError};
pub use resources::{Resource, ResourceAny, ResourceDynamic};
#[doc(hidden)]
pub use typed::__internal;
pub use typed::{ComponentNamedList, ComponentType, Lift, Lower, TypedFunc};
pub use types::ResourceType;
/// Generates Rust bindings for a WIT world (see the macro crate's
/// documentation); the generated `instantiate_async` needs the `async`
/// feature, async and concurrent imports `component-model-async`.
#[cfg(feature = "async")]
pub use weft_component_macro::bindgen;
pub use weft_component_macro::{flags, ComponentType, Lift, Lower};

pub use flat::{
    lift_flat, lift_flat_values, lift_params, lift_results, lower_flat, lower_flat_values, lower_params, lower_results,
};
pub use load_store::{load, store};
pub use val::Val;

/// Locks `m`, taking its data even when a panic poisoned it: the store's
/// queues and shared states stay usable after a host function panicked.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
pub use weft_environ::component::abi::{MAX_LIST_BYTE_LENGTH, MAX_STRING_BYTE_LENGTH};
pub use weft_environ::component::{ComponentTypes, InterfaceType, StringEncoding};

use crate::Result;
use anyhow::anyhow;

/// The tag bit of a `latin1+utf16` string length that says UTF-16 (32-bit
/// memories).
pub const UTF16_TAG: u32 = 1 << 31;

/// What lifting needs: the type registry, the memory (read only) and the
/// string encoding.
#[derive(Clone, Copy)]
pub struct LiftContext<'a> {
    /// The registry the types of the values belong to.
    pub types: &'a ComponentTypes,
    /// The linear memory values are loaded from.
    pub memory: &'a [u8],
    /// The string encoding of the canonical options.
    pub encoding: StringEncoding,
}

/// The linear memory of a lowering, with its `realloc`.
///
/// The memory is borrowed again after every `realloc`, so an implementation
/// may grow or move it there.
pub trait LowerMemory {
    /// The current contents of the memory.
    fn memory(&mut self) -> &mut [u8];

    /// The `realloc` of the canonical options: resize the allocation at
    /// `old_ptr` of `old_size` bytes (both 0 for a new allocation) to
    /// `new_size` bytes aligned to `align`, keeping its contents, and return
    /// its address. Lowering checks that the address is aligned and that the
    /// allocation is within the memory.
    fn realloc(&mut self, old_ptr: u32, old_size: u32, align: u32, new_size: u32) -> Result<u32>;
}

/// A [`LowerMemory`] made of a slice and a `realloc` callback, which gets the
/// memory as its first argument (to copy contents when it moves them) and
/// then `(old_ptr, old_size, align, new_size)`.
pub struct SliceMemory<'a> {
    /// The linear memory's bytes, read and written in place.
    pub memory: &'a mut [u8],
    /// The `realloc` callback.
    #[allow(
        clippy::type_complexity,
        reason = "the realloc callback's signature, spelled out once"
    )]
    pub realloc: &'a mut dyn FnMut(&mut [u8], u32, u32, u32, u32) -> Result<u32>,
}

impl LowerMemory for SliceMemory<'_> {
    fn memory(&mut self) -> &mut [u8] {
        self.memory
    }

    fn realloc(&mut self, old_ptr: u32, old_size: u32, align: u32, new_size: u32) -> Result<u32> {
        (self.realloc)(self.memory, old_ptr, old_size, align, new_size)
    }
}

/// What lowering needs: the type registry, the memory with its `realloc`,
/// and the string encoding.
pub struct LowerContext<'a> {
    /// The registry the types of the values belong to.
    pub types: &'a ComponentTypes,
    /// The linear memory values are stored to.
    pub memory: &'a mut dyn LowerMemory,
    /// The string encoding of the canonical options.
    pub encoding: StringEncoding,
}

/// A trap of the canonical ABI raised by the runtime (not by core wasm):
/// its message reads "wasm trap: ...". Like a core [`crate::Trap`],
/// it leaves the component instances it was raised in unenterable.
#[derive(Debug)]
pub(crate) struct AbiTrap(String);

impl std::fmt::Display for AbiTrap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "wasm trap: {}", self.0)
    }
}

impl std::error::Error for AbiTrap {}

/// A canonical ABI trap, as an error.
pub(crate) fn trap(message: impl std::fmt::Display) -> crate::Error {
    crate::Error::new(AbiTrap(message.to_string()))
}

/// `call_and_trap_on_throw`: the result of a core function called at a
/// component boundary, with an exception that escaped it turned into a trap
/// (and taken out of the store: nobody outside the component may catch it).
pub(crate) fn trap_on_throw<T>(store: &mut crate::StoreContextMut<'_, T>, r: Result<()>) -> Result<()> {
    match r {
        Err(e) if e.downcast_ref::<crate::ThrownException>().is_some() => {
            store.0.opaque_mut().pending_exception = None;
            Err(trap("an uncaught exception reached a component boundary"))
        }
        r => r,
    }
}

/// Whether `e` is a trap (of core wasm or of the canonical ABI), after
/// which the instance it left may not be entered again; other errors (a
/// host function's) leave it enterable.
pub(crate) fn is_trap(e: &crate::Error) -> bool {
    e.downcast_ref::<crate::Trap>().is_some() || e.downcast_ref::<AbiTrap>().is_some()
}

/// A value that does not have the type it is lifted or lowered as.
pub(crate) fn mismatch(expected: InterfaceType, found: &Val) -> crate::Error {
    anyhow!(
        "type mismatch: expected a value of type {expected:?}, found {}",
        found.kind()
    )
}

/// The bytes `ptr..ptr + len` of a memory of `memory_len` bytes, or a trap.
pub(crate) fn range(memory_len: usize, ptr: u32, len: u32) -> Result<std::ops::Range<usize>> {
    bounds(memory_len, ptr, len).ok_or_else(|| {
        trap(format_args!(
            "{len} bytes at address {ptr:#x} are out of the bounds of a {memory_len}-byte memory"
        ))
    })
}

/// [`range`] whose trap's message starts with `what` (the reference
/// wording of the check, such as "string pointer/length out of bounds of
/// memory"), followed by the details.
pub(crate) fn range_named(what: &str, memory_len: usize, ptr: u32, len: u32) -> Result<std::ops::Range<usize>> {
    bounds(memory_len, ptr, len).ok_or_else(|| {
        trap(format_args!(
            "{what} ({len} bytes at address {ptr:#x} of a {memory_len}-byte memory)"
        ))
    })
}

fn bounds(memory_len: usize, ptr: u32, len: u32) -> Option<std::ops::Range<usize>> {
    let end = u64::from(ptr) + u64::from(len);
    // Both fit in `usize` as they are at most `memory_len`.
    (end <= memory_len as u64).then_some(ptr as usize..end as usize)
}

/// Traps unless `ptr` is a multiple of `align`.
pub(crate) fn check_aligned(ptr: u32, align: u32) -> Result<()> {
    if !ptr.is_multiple_of(align.max(1)) {
        return Err(trap(format_args!("unaligned pointer {ptr:#x}, not aligned to {align}")));
    }
    Ok(())
}

/// `ptr + offset`, or a trap on overflow.
pub(crate) fn add(ptr: u32, offset: u32) -> Result<u32> {
    ptr.checked_add(offset)
        .ok_or_else(|| trap("address overflows the 32-bit address space"))
}

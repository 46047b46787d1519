//! Fiber stacks in memory the embedder provides (Wasmtime's `StackCreator`
//! and `StackMemory`), handed to `wasmtime-fiber` as custom stacks after
//! checking what the creator says of them.

use std::ops::Range;
use wasmtime_fiber::{FiberStack, RuntimeFiberStack};

/// A stack's memory, made by a [`StackCreator`] (Wasmtime's
/// `StackMemory`).
///
/// # Safety
///
/// The implementer guarantees that `range()` is memory readable and
/// writable by this thread for as long as the value lives, used by nothing
/// else meanwhile, and that `top()` is `range().end`; `guard_range()` is the
/// inaccessible memory just below `range()` (it may be empty, at the cost of
/// a stack overflow corrupting whatever lies below the stack).
pub unsafe trait StackMemory: Send + Sync {
    /// The top of the stack (stacks grow down): `range().end`.
    fn top(&self) -> *mut u8;
    /// The usable stack, guard pages excluded.
    fn range(&self) -> Range<usize>;
    /// The guard pages below the stack.
    fn guard_range(&self) -> Range<*mut u8>;
}

/// Makes the stacks async calls run on (Wasmtime's `StackCreator`), set with
/// `Config::with_custom_stack`.
///
/// # Safety
///
/// The implementer guarantees that each stack it returns satisfies
/// [`StackMemory`]'s contract, is at least `size` bytes long, and is zeroed
/// when `zeroed` is true.
pub unsafe trait StackCreator: Send + Sync {
    /// A new stack of at least `size` usable bytes.
    fn new_stack(&self, size: usize, zeroed: bool) -> anyhow::Result<Box<dyn StackMemory>>;
}

/// A [`StackMemory`] as `wasmtime-fiber` takes it.
struct Custom(Box<dyn StackMemory>);

// SAFETY: `StackMemory`'s contract is `RuntimeFiberStack`'s: `top` is the
// top of a usable range of memory that lives as long as the value, and the
// guard range lies below it.
unsafe impl RuntimeFiberStack for Custom {
    fn top(&self) -> *mut u8 {
        self.0.top()
    }
    fn range(&self) -> Range<usize> {
        self.0.range()
    }
    fn guard_range(&self) -> Range<*mut u8> {
        self.0.guard_range()
    }
}

/// The host's page size.
fn page_size() -> usize {
    region::page::size()
}

/// A stack of `size` bytes from `creator`, checked: its range must be
/// page-aligned, at least `size` long, and end at its top.
pub(crate) fn new_stack(creator: &dyn StackCreator, size: usize) -> anyhow::Result<FiberStack> {
    let memory = creator.new_stack(size, false).map_err(|e| {
        e.context(format!(
            "the custom stack creator failed to make a stack of {size} bytes"
        ))
    })?;
    let range = memory.range();
    let page = page_size();
    if range.start % page != 0 || range.end % page != 0 {
        anyhow::bail!(
            "the custom stack creator gave a stack at {:#x}..{:#x}, which is not aligned to the page size ({page:#x})",
            range.start,
            range.end
        );
    }
    if range.end < range.start || range.end - range.start < size {
        anyhow::bail!(
            "the custom stack creator gave a stack of {} bytes ({:#x}..{:#x}) where {size} were asked",
            range.end.saturating_sub(range.start),
            range.start,
            range.end
        );
    }
    if memory.top() as usize != range.end {
        anyhow::bail!(
            "the custom stack creator gave a stack whose top ({:p}) is not the end of its range ({:#x})",
            memory.top(),
            range.end
        );
    }
    FiberStack::from_custom(Box::new(Custom(memory)))
        .map_err(|e| anyhow::anyhow!("failed to use the custom stack of {size} bytes: {e}"))
}

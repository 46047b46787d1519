//! Custom fiber stacks: `Config::with_custom_stack`, over weft-fiber's
//! [`StackCreator`] and [`StackMemory`].

// An import loop by design: this file adds `Config::with_custom_stack` to the
// `Config` that holds what it configures.
use super::Config;
use std::sync::Arc;
pub use weft_fiber::{StackCreator, StackMemory};

/// The stack creator a configuration holds (compared and printed by
/// identity).
#[derive(Clone)]
pub(crate) struct CustomStacks(pub(crate) Arc<dyn StackCreator>);

impl std::fmt::Debug for CustomStacks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CustomStacks(..)")
    }
}

impl Config {
    /// Makes the stacks async calls run on with `stack_creator`, as
    /// Wasmtime's `Config::with_custom_stack`: an async call (or a
    /// component-model task that needs its own stack) that finds no idle
    /// stack asks it for one of [`Config::async_stack_size`] bytes; a
    /// stack whose call ended is kept for the next call (up to 16 idle
    /// ones) and dropped with the engine. A stack that is not
    /// page-aligned, is smaller than asked, or whose top is not the end of
    /// its range makes the call fail with an error saying so.
    pub fn with_custom_stack(&mut self, stack_creator: Arc<dyn StackCreator>) -> &mut Self {
        self.stack_creator = Some(CustomStacks(stack_creator));
        self
    }
}

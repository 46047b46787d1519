//! [`Store::call_hook`]: the embedder hears each transition between the
//! host and wasm (as Wasmtime's call hooks). The transitions stay balanced
//! across suspensions: when a fiber suspends (an async host function, a
//! fuel or epoch yield, a component-model task that waits), the hook hears
//! the open transitions close, innermost first, and open again when the
//! fiber resumes, so that time between the two belongs to neither side.
//! (An error of the hook at those points fails the waiting call when it
//! is a `call_async`'s fiber; for a component-model task's fiber there is
//! no call to fail, and it is not reported.) Host functions made with
//! `func_wrap_async`/`func_new_async` (core or component) hold the store
//! while they wait, so the hook hears nothing of their suspensions.

use crate::store::{StoreContextMut, StoreInner};
use crate::Store;

/// A transition between the host and wasm, as [`Store::call_hook`]'s
/// hook hears it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallHook {
    /// The host calls into wasm.
    CallingWasm,
    /// Wasm returns to the host.
    ReturningFromWasm,
    /// Wasm calls a host function.
    CallingHost,
    /// A host function returns to wasm.
    ReturningFromHost,
}

impl CallHook {
    /// Whether control enters the host (`CallingHost` or
    /// `ReturningFromWasm`).
    pub fn entering_host(&self) -> bool {
        matches!(self, CallHook::CallingHost | CallHook::ReturningFromWasm)
    }

    /// Whether control leaves the host (`CallingWasm` or
    /// `ReturningFromHost`).
    pub fn exiting_host(&self) -> bool {
        !self.entering_host()
    }

    /// The transition that closes this one.
    #[cfg(feature = "async")]
    fn closing(self) -> CallHook {
        match self {
            CallHook::CallingWasm => CallHook::ReturningFromWasm,
            CallHook::CallingHost => CallHook::ReturningFromHost,
            other => other,
        }
    }
}

/// The hook of a store whose data is `T`.
pub(crate) type CallHookFn<T> =
    Box<dyn FnMut(StoreContextMut<'_, T>, CallHook) -> crate::Result<()> + Send + Sync + 'static>;

/// The hook and the transitions it heard open.
pub(crate) struct CallHooks<T: 'static> {
    hook: Option<CallHookFn<T>>,
    /// The `Calling*` transitions not closed yet, outermost first.
    open: Vec<CallHook>,
}

impl<T> Default for CallHooks<T> {
    fn default() -> Self {
        CallHooks {
            hook: None,
            open: Vec::new(),
        }
    }
}

impl<T: 'static> Store<T> {
    /// Installs `hook`, called at every transition between the host and
    /// wasm of this store (see [`CallHook`]); an error it returns fails the
    /// call (as a trap would, from wasm's side). Replaces any earlier hook.
    pub fn call_hook(
        &mut self,
        hook: impl FnMut(StoreContextMut<'_, T>, CallHook) -> crate::Result<()> + Send + Sync + 'static,
    ) {
        crate::AsContextMut::as_context_mut(self).0.call_hooks.hook = Some(Box::new(hook));
    }
}

impl<T: 'static> StoreInner<T> {
    /// Tells the hook of `kind`, recording an opening transition or closing
    /// the innermost one. Inlined at every host call and return, so a store
    /// without a hook pays one test.
    #[inline]
    pub(crate) fn call_hook(&mut self, kind: CallHook) -> crate::Result<()> {
        if self.call_hooks.hook.is_none() {
            return Ok(());
        }
        self.call_hook_installed(kind)
    }

    /// [`StoreInner::call_hook`] when a hook is installed.
    #[cold]
    #[inline(never)]
    fn call_hook_installed(&mut self, kind: CallHook) -> crate::Result<()> {
        let Some(mut hook) = self.call_hooks.hook.take() else {
            return Ok(());
        };
        match kind {
            CallHook::CallingWasm | CallHook::CallingHost => self.call_hooks.open.push(kind),
            CallHook::ReturningFromWasm | CallHook::ReturningFromHost => {
                self.call_hooks.open.pop();
            }
        }
        let r = hook(StoreContextMut(self), kind);
        // The hook may have installed another one meanwhile.
        if self.call_hooks.hook.is_none() {
            self.call_hooks.hook = Some(hook);
        }
        r
    }

    /// How many transitions are open (the depth a fiber's own start at).
    #[cfg(feature = "async")]
    pub(crate) fn call_hook_depth(&self) -> usize {
        self.call_hooks.open.len()
    }

    /// A fiber suspends: closes the transitions opened above `depth`,
    /// innermost first, and returns them for [`StoreInner::resume_call_hooks`].
    #[cfg(feature = "async")]
    pub(crate) fn suspend_call_hooks(&mut self, depth: usize) -> crate::Result<Vec<CallHook>> {
        if self.call_hooks.hook.is_none() || self.call_hooks.open.len() <= depth {
            return Ok(Vec::new());
        }
        let saved = self.call_hooks.open[depth..].to_vec();
        for kind in saved.iter().rev() {
            self.call_hook(kind.closing())?;
        }
        Ok(saved)
    }

    /// A fiber resumes: opens again the transitions it suspended with.
    #[cfg(feature = "async")]
    pub(crate) fn resume_call_hooks(&mut self, saved: Vec<CallHook>) -> crate::Result<()> {
        for kind in saved {
            self.call_hook(kind)?;
        }
        Ok(())
    }
}

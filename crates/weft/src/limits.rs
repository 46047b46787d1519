//! Resource limiters: the host decides whether memories and tables may grow.

// Import loop kept on purpose: an async limiter waits on the fiber of the
// async call that grows (async_support.rs), whose calls may grow memories.
#[cfg(feature = "async")]
use crate::async_support;
use crate::store::{Store, StoreInner};

/// Decides whether the memories and tables of a store may grow, as
/// Wasmtime's `ResourceLimiter`. Installed with [`Store::limiter`].
pub trait ResourceLimiter {
    /// A memory wants to grow from `current` to `desired` bytes (`maximum`:
    /// its declared maximum). `Ok(false)` refuses: `memory.grow` returns -1
    /// and `Memory::grow` fails; `Err` stops the wasm call with that error.
    fn memory_growing(&mut self, current: usize, desired: usize, maximum: Option<usize>) -> crate::Result<bool>;

    /// A table wants to grow from `current` to `desired` elements.
    fn table_growing(&mut self, current: usize, desired: usize, maximum: Option<usize>) -> crate::Result<bool>;

    /// Growing a memory failed after it was allowed.
    fn memory_grow_failed(&mut self, error: crate::Error) -> crate::Result<()> {
        let _ = error;
        Ok(())
    }

    /// Growing a table failed after it was allowed.
    fn table_grow_failed(&mut self, error: crate::Error) -> crate::Result<()> {
        let _ = error;
        Ok(())
    }

    /// The most instances the store may hold.
    fn instances(&self) -> usize {
        DEFAULT_INSTANCE_LIMIT
    }

    /// The most tables the store may hold.
    fn tables(&self) -> usize {
        DEFAULT_TABLE_LIMIT
    }

    /// The most memories the store may hold.
    fn memories(&self) -> usize {
        DEFAULT_MEMORY_LIMIT
    }
}

/// The default of [`ResourceLimiter::instances`].
pub const DEFAULT_INSTANCE_LIMIT: usize = 10_000;
/// The default of [`ResourceLimiter::tables`].
pub const DEFAULT_TABLE_LIMIT: usize = 10_000;
/// The default of [`ResourceLimiter::memories`].
pub const DEFAULT_MEMORY_LIMIT: usize = 10_000;

/// The async form of [`ResourceLimiter`], installed with
/// `Store::limiter_async`; its growth hooks may await (async calls only).
#[cfg(feature = "async")]
#[async_trait::async_trait]
pub trait ResourceLimiterAsync {
    /// See [`ResourceLimiter::memory_growing`].
    async fn memory_growing(&mut self, current: usize, desired: usize, maximum: Option<usize>) -> crate::Result<bool>;

    /// See [`ResourceLimiter::table_growing`].
    async fn table_growing(&mut self, current: usize, desired: usize, maximum: Option<usize>) -> crate::Result<bool>;

    /// See [`ResourceLimiter::memory_grow_failed`].
    fn memory_grow_failed(&mut self, error: crate::Error) -> crate::Result<()> {
        let _ = error;
        Ok(())
    }

    /// See [`ResourceLimiter::table_grow_failed`].
    fn table_grow_failed(&mut self, error: crate::Error) -> crate::Result<()> {
        let _ = error;
        Ok(())
    }

    /// See [`ResourceLimiter::instances`].
    fn instances(&self) -> usize {
        DEFAULT_INSTANCE_LIMIT
    }

    /// See [`ResourceLimiter::tables`].
    fn tables(&self) -> usize {
        DEFAULT_TABLE_LIMIT
    }

    /// See [`ResourceLimiter::memories`].
    fn memories(&self) -> usize {
        DEFAULT_MEMORY_LIMIT
    }
}

type SyncGetter<T> = Box<dyn FnMut(&mut T) -> &mut (dyn ResourceLimiter) + Send + Sync>;
#[cfg(feature = "async")]
type AsyncGetter<T> = Box<dyn FnMut(&mut T) -> &mut (dyn ResourceLimiterAsync + Send) + Send + Sync>;

/// The limiter a store has.
pub(crate) enum Limiter<T: 'static> {
    Sync(SyncGetter<T>),
    #[cfg(feature = "async")]
    Async(AsyncGetter<T>),
}

/// What is asking to grow.
#[derive(Clone, Copy)]
pub(crate) enum Growth {
    Memory,
    Table,
}

impl<T: 'static> StoreInner<T> {
    /// Asks the store's limiter whether a memory or table may grow.
    pub(crate) fn may_grow(
        &mut self,
        what: Growth,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> crate::Result<bool> {
        let Some(limiter) = self.limiter.as_mut() else {
            return Ok(true);
        };
        match limiter {
            Limiter::Sync(get) => {
                let l = get(&mut self.data);
                match what {
                    Growth::Memory => l.memory_growing(current, desired, maximum),
                    Growth::Table => l.table_growing(current, desired, maximum),
                }
            }
            #[cfg(feature = "async")]
            Limiter::Async(get) => {
                let Some((cx, entry)) = self.opaque.async_state.as_ref().map(|s| s.parts()) else {
                    crate::bail!("an async resource limiter needs an async call (`call_async`, `Instance::new_async`)");
                };
                let l = get(&mut self.data);
                let mut future = match what {
                    Growth::Memory => l.memory_growing(current, desired, maximum),
                    Growth::Table => l.table_growing(current, desired, maximum),
                };
                async_support::block_on(&cx, entry, future.as_mut())?
            }
        }
    }

    /// The limits on the number of instances, tables and memories.
    pub(crate) fn count_limits(&mut self) -> (usize, usize, usize) {
        match self.limiter.as_mut() {
            None => (DEFAULT_INSTANCE_LIMIT, DEFAULT_TABLE_LIMIT, DEFAULT_MEMORY_LIMIT),
            Some(Limiter::Sync(get)) => {
                let l = get(&mut self.data);
                (l.instances(), l.tables(), l.memories())
            }
            #[cfg(feature = "async")]
            Some(Limiter::Async(get)) => {
                let l = get(&mut self.data);
                (l.instances(), l.tables(), l.memories())
            }
        }
    }
}

impl<T: 'static> Store<T> {
    /// Installs a resource limiter: `limiter` returns it from the store's
    /// data whenever a memory or table wants to grow.
    pub fn limiter(&mut self, limiter: impl FnMut(&mut T) -> &mut (dyn ResourceLimiter) + Send + Sync + 'static) {
        self.inner_mut().limiter = Some(Limiter::Sync(Box::new(limiter)));
    }

    /// Installs an async resource limiter (see [`Store::limiter`]); growth
    /// then needs an async call.
    #[cfg(feature = "async")]
    pub fn limiter_async(
        &mut self,
        limiter: impl FnMut(&mut T) -> &mut (dyn ResourceLimiterAsync + Send) + Send + Sync + 'static,
    ) {
        self.inner_mut().limiter = Some(Limiter::Async(Box::new(limiter)));
    }
}

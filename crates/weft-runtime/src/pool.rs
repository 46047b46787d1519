//! The pooling instance allocator's runtime half: the limits of an
//! engine's pool, the counts of what its stores hold, and the linear
//! memory slots (each a full reservation with its guard region) that are
//! reserved once and reused by every store of the engine.
//!
//! A slot given back is reset before it is reused: its whole reservation is
//! replaced by fresh inaccessible anonymous memory (dropping any pages
//! written and any memory image mapped in), so the next memory in it starts
//! zeroed, whatever the last one did.

use crate::mmap::{Mmap, MEMORY_RESERVATION};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use weft_environ::Module;

/// The limits of a pool (see the facade's `PoolingAllocationConfig`).
#[derive(Debug, Clone, Copy)]
pub struct PoolLimits {
    /// Core instances live at once in all stores of the engine.
    pub total_core_instances: u32,
    /// Linear memories (defined by instances or made by the host) live at
    /// once.
    pub total_memories: u32,
    /// Tables (defined by instances or made by the host) live at once.
    pub total_tables: u32,
    /// Memories one module may define.
    pub max_memories_per_module: u32,
    /// Tables one module may define.
    pub max_tables_per_module: u32,
    /// The most bytes a memory may have, initially or by growing.
    pub max_memory_size: usize,
    /// The most elements a table may have, initially or by growing.
    pub table_elements: usize,
    /// The most bytes of an instance's `VMContext`.
    pub max_core_instance_size: usize,
    /// Component instances live at once in all stores of the engine.
    pub total_component_instances: u32,
}

/// What a pool counts.
#[derive(Debug, Clone, Copy)]
enum Counted {
    ComponentInstances,
    Instances,
    Memories,
    Tables,
}

/// An engine's pool.
#[derive(Debug)]
pub struct InstancePool {
    limits: PoolLimits,
    component_instances: AtomicU32,
    instances: AtomicU32,
    memories: AtomicU32,
    tables: AtomicU32,
    /// Memory slots given back, reset, ready for reuse.
    free_slots: Mutex<Vec<Mmap>>,
    /// Slots reserved so far (never more than `total_memories`).
    reserved_slots: AtomicU32,
}

impl InstancePool {
    /// A pool with `limits`; no slot is reserved before it is needed.
    pub fn new(limits: PoolLimits) -> Arc<InstancePool> {
        Arc::new(InstancePool {
            limits,
            component_instances: AtomicU32::new(0),
            instances: AtomicU32::new(0),
            memories: AtomicU32::new(0),
            tables: AtomicU32::new(0),
            free_slots: Mutex::new(Vec::new()),
            reserved_slots: AtomicU32::new(0),
        })
    }

    /// The pool's limits.
    pub fn limits(&self) -> &PoolLimits {
        &self.limits
    }

    /// Core instances, memories and tables live now.
    pub fn live(&self) -> (u32, u32, u32) {
        (
            self.instances.load(Ordering::SeqCst),
            self.memories.load(Ordering::SeqCst),
            self.tables.load(Ordering::SeqCst),
        )
    }

    /// Memory slots reserved so far, and how many of them are free.
    pub fn memory_slots(&self) -> (u32, usize) {
        (
            self.reserved_slots.load(Ordering::SeqCst),
            self.free_slots.lock().unwrap_or_else(PoisonError::into_inner).len(),
        )
    }

    fn counter(&self, what: Counted) -> (&AtomicU32, u32, &'static str) {
        match what {
            Counted::ComponentInstances => (
                &self.component_instances,
                self.limits.total_component_instances,
                "total_component_instances",
            ),
            Counted::Instances => (
                &self.instances,
                self.limits.total_core_instances,
                "total_core_instances",
            ),
            Counted::Memories => (&self.memories, self.limits.total_memories, "total_memories"),
            Counted::Tables => (&self.tables, self.limits.total_tables, "total_tables"),
        }
    }

    /// Takes `n` of `what`, or fails naming the limit.
    fn take(&self, what: Counted, n: u32) -> anyhow::Result<()> {
        let (counter, limit, name) = self.counter(what);
        counter
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |live| {
                live.checked_add(n).filter(|total| *total <= limit)
            })
            .map(drop)
            .map_err(|live| {
                anyhow::anyhow!(
                    "the pooling allocator's limit `{name}` ({limit}) is reached: {live} in use, {n} more asked"
                )
            })
    }

    /// Gives back `n` of `what`.
    fn give_back(&self, what: Counted, n: u32) {
        let (counter, _, _) = self.counter(what);
        let _ = counter.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |live| Some(live.saturating_sub(n)));
    }

    /// Checks what `module` defines against the per-module limits (its
    /// memories, tables and an instance state of `vmctx_size` bytes): done
    /// when a module is made, as Wasmtime does, and again at each
    /// instantiation.
    pub fn check_module(&self, module: &Module, vmctx_size: usize) -> anyhow::Result<()> {
        let l = &self.limits;
        let memories = &module.memories[module.num_imported_memories as usize..];
        let tables = &module.tables[module.num_imported_tables as usize..];
        if memories.len() > l.max_memories_per_module as usize {
            anyhow::bail!(
                "the module defines {} memories, past the pooling allocator's limit `max_memories_per_module` ({})",
                memories.len(),
                l.max_memories_per_module
            );
        }
        if tables.len() > l.max_tables_per_module as usize {
            anyhow::bail!(
                "the module defines {} tables, past the pooling allocator's limit `max_tables_per_module` ({})",
                tables.len(),
                l.max_tables_per_module
            );
        }
        for (i, m) in memories.iter().enumerate() {
            let bytes = m.minimum.saturating_mul(m.page_size());
            if bytes > l.max_memory_size as u64 {
                anyhow::bail!(
                    "memory {i} of the module starts at {bytes} bytes, past the pooling allocator's limit `max_memory_size` ({})",
                    l.max_memory_size
                );
            }
        }
        for (i, t) in tables.iter().enumerate() {
            if t.minimum > l.table_elements as u64 {
                anyhow::bail!(
                    "table {i} of the module starts with {} elements, past the pooling allocator's limit `table_elements` ({})",
                    t.minimum,
                    l.table_elements
                );
            }
        }
        if vmctx_size > l.max_core_instance_size {
            anyhow::bail!(
                "the module's instance state takes {vmctx_size} bytes, past the pooling allocator's limit `max_core_instance_size` ({})",
                l.max_core_instance_size
            );
        }
        Ok(())
    }

    /// Takes one instance and `tables` tables (given back with
    /// [`InstancePool::release`]).
    pub(crate) fn take_instance(&self, tables: u32) -> anyhow::Result<()> {
        self.take(Counted::Instances, 1)?;
        if let Err(e) = self.take(Counted::Tables, tables) {
            self.give_back(Counted::Instances, 1);
            return Err(e);
        }
        Ok(())
    }

    /// Takes `n` tables (given back with [`InstancePool::release`]).
    pub(crate) fn take_tables(&self, n: u32) -> anyhow::Result<()> {
        self.take(Counted::Tables, n)
    }

    /// Takes one component instance (given back with
    /// [`InstancePool::release_component_instances`]).
    pub(crate) fn take_component_instance(&self) -> anyhow::Result<()> {
        self.take(Counted::ComponentInstances, 1)
    }

    /// Gives back `n` component instances.
    pub(crate) fn release_component_instances(&self, n: u32) {
        self.give_back(Counted::ComponentInstances, n);
    }

    /// Gives back `instances` instances and `tables` tables.
    pub(crate) fn release(&self, instances: u32, tables: u32) {
        self.give_back(Counted::Instances, instances);
        self.give_back(Counted::Tables, tables);
    }

    /// A memory slot: a reset free one, or a new reservation while fewer
    /// than `total_memories` exist. The memory count is taken with it and
    /// given back when the slot is.
    pub(crate) fn take_memory_slot(self: &Arc<Self>) -> anyhow::Result<PoolSlot> {
        self.take(Counted::Memories, 1)?;
        let free = self.free_slots.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let mmap = match free {
            Some(m) => m,
            None => match Mmap::reserve(MEMORY_RESERVATION) {
                Ok(m) => {
                    self.reserved_slots.fetch_add(1, Ordering::SeqCst);
                    m
                }
                Err(e) => {
                    self.give_back(Counted::Memories, 1);
                    anyhow::bail!("failed to reserve address space for a pooled linear memory: {e}");
                }
            },
        };
        Ok(PoolSlot {
            mmap: Some(mmap),
            pool: self.clone(),
        })
    }
}

/// A memory slot of a pool, given back (reset) when dropped.
#[derive(Debug)]
pub(crate) struct PoolSlot {
    mmap: Option<Mmap>,
    pool: Arc<InstancePool>,
}

impl PoolSlot {
    /// The slot's reservation.
    pub(crate) fn mmap(&mut self) -> Option<&mut Mmap> {
        self.mmap.as_mut()
    }

    /// The pool's limit on a memory's bytes.
    pub(crate) fn max_memory_size(&self) -> usize {
        self.pool.limits.max_memory_size
    }
}

impl Drop for PoolSlot {
    fn drop(&mut self) {
        if let Some(mut mmap) = self.mmap.take() {
            // A slot that cannot be reset is unmapped (dropped) instead of
            // reused; the pool reserves a new one when needed.
            if mmap.reset().is_ok() {
                self.pool
                    .free_slots
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(mmap);
            } else {
                self.pool.reserved_slots.fetch_sub(1, Ordering::SeqCst);
            }
        }
        self.pool.give_back(Counted::Memories, 1);
    }
}

//! The pooling instance allocator: [`PoolingAllocationConfig`],
//! [`InstanceAllocationStrategy`] and `Config::allocation_strategy`, as
//! Wasmtime's.
//!
//! With [`InstanceAllocationStrategy::Pooling`], an engine keeps one pool
//! for all its stores. Each linear memory takes a slot of the pool: a full
//! reservation (with its guard region), reserved the first time it is
//! needed and reused by later memories once the memory holding it is
//! dropped with its store, reset to zeros in between. Core instances,
//! memories and tables are counted against the pool's totals, and modules
//! are checked against its per-module limits; going past any of them fails
//! the instantiation (or `Memory::new`) with an error naming the limit.
//!
//! Enforced: `total_core_instances`, `total_memories`, `total_tables`,
//! `max_memories_per_module`, `max_tables_per_module`, `max_memory_size`
//! (initial size and growth), `table_elements` (initial size and growth),
//! `max_core_instance_size`, `total_stacks` (async stacks out of the pool at
//! once) and `total_component_instances`.
//! Accepted and kept, with no effect in Weft: the `*_keep_resident`,
//! `decommit_batch_size` and `max_unused_warm_slots` tunings (a slot is
//! always reset when it is given back), the per-component limits and
//! `total_gc_heaps`. Memories and tables the host makes (`Memory::new`,
//! `Table::new`) are taken from the pool too.

// An import loop by design: this file adds `Config::allocation_strategy` to the
// `Config` that holds what it configures.
use super::Config;
use std::sync::Arc;

/// The limits of the pooling allocator (Wasmtime's
/// `PoolingAllocationConfig`), with Wasmtime's defaults.
#[derive(Debug, Clone)]
pub struct PoolingAllocationConfig {
    max_unused_warm_slots: u32,
    decommit_batch_size: usize,
    async_stack_keep_resident: usize,
    linear_memory_keep_resident: usize,
    table_keep_resident: usize,
    total_component_instances: u32,
    max_component_instance_size: usize,
    max_core_instances_per_component: u32,
    max_memories_per_component: u32,
    max_tables_per_component: u32,
    total_memories: u32,
    total_tables: u32,
    total_stacks: u32,
    total_core_instances: u32,
    max_core_instance_size: usize,
    max_tables_per_module: u32,
    table_elements: usize,
    max_memories_per_module: u32,
    max_memory_size: usize,
    total_gc_heaps: u32,
}

impl Default for PoolingAllocationConfig {
    fn default() -> Self {
        PoolingAllocationConfig {
            max_unused_warm_slots: 100,
            decommit_batch_size: 1,
            async_stack_keep_resident: 0,
            linear_memory_keep_resident: 0,
            table_keep_resident: 0,
            total_component_instances: 1000,
            max_component_instance_size: 1 << 20,
            max_core_instances_per_component: u32::MAX,
            max_memories_per_component: u32::MAX,
            max_tables_per_component: u32::MAX,
            total_memories: 1000,
            total_tables: 1000,
            total_stacks: 1000,
            total_core_instances: 1000,
            max_core_instance_size: 1 << 20,
            max_tables_per_module: 1,
            table_elements: 20_000,
            max_memories_per_module: 1,
            max_memory_size: 4 << 30,
            total_gc_heaps: 1000,
        }
    }
}

macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident: $ty:ty;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(&mut self, value: $ty) -> &mut Self {
                self.$name = value;
                self
            }
        )*
    };
}

impl PoolingAllocationConfig {
    /// The default limits.
    pub fn new() -> Self {
        Self::default()
    }

    setters! {
        /// Unused memory slots kept warm (default 100). Accepted; Weft
        /// resets every slot given back.
        max_unused_warm_slots: u32;
        /// Slots decommitted together (default 1). Accepted; no effect.
        decommit_batch_size: usize;
        /// Bytes of an async stack kept resident (default 0). Accepted; no
        /// effect.
        async_stack_keep_resident: usize;
        /// Bytes of a memory slot kept resident (default 0). Accepted; no
        /// effect.
        linear_memory_keep_resident: usize;
        /// Bytes of a table kept resident (default 0). Accepted; no effect.
        table_keep_resident: usize;
        /// Component instances live at once in all the engine's stores
        /// (default 1000).
        total_component_instances: u32;
        /// The most bytes of a component instance's state (default 1 MiB).
        /// Accepted; not enforced by Weft yet.
        max_component_instance_size: usize;
        /// Core instances of one component (default unlimited). Accepted;
        /// not enforced by Weft yet.
        max_core_instances_per_component: u32;
        /// Memories of one component (default unlimited). Accepted; not
        /// enforced by Weft yet.
        max_memories_per_component: u32;
        /// Tables of one component (default unlimited). Accepted; not
        /// enforced by Weft yet.
        max_tables_per_component: u32;
        /// Linear memories live at once in all the engine's stores, and the
        /// most memory slots the pool reserves (default 1000).
        total_memories: u32;
        /// Tables live at once, of instances or made by the host (default
        /// 1000).
        total_tables: u32;
        /// Async stacks out of the pool at once (default 1000): those of
        /// running calls, and the one each store keeps, as in Wasmtime, for
        /// its next async call from its first to its drop. An async call
        /// that needs a stack past it fails.
        total_stacks: u32;
        /// Core instances live at once in all the engine's stores (default
        /// 1000).
        total_core_instances: u32;
        /// The most bytes of a core instance's state (its `VMContext`;
        /// default 1 MiB).
        max_core_instance_size: usize;
        /// Tables one module may define (default 1).
        max_tables_per_module: u32;
        /// The most elements of a table, initially and by growing (default
        /// 20000).
        table_elements: usize;
        /// Memories one module may define (default 1).
        max_memories_per_module: u32;
        /// The most bytes of a linear memory, initially and by growing
        /// (default 4 GiB).
        max_memory_size: usize;
        /// GC heaps (default 1000). Accepted; Weft's GC heaps are not
        /// pooled.
        total_gc_heaps: u32;
    }

    /// The runtime's limits.
    pub(crate) fn limits(&self) -> weft_runtime::PoolLimits {
        weft_runtime::PoolLimits {
            total_core_instances: self.total_core_instances,
            total_memories: self.total_memories,
            total_tables: self.total_tables,
            max_memories_per_module: self.max_memories_per_module,
            max_tables_per_module: self.max_tables_per_module,
            max_memory_size: self.max_memory_size,
            table_elements: self.table_elements,
            max_core_instance_size: self.max_core_instance_size,
            total_component_instances: self.total_component_instances,
        }
    }
}

/// How an engine allocates instances, memories and tables (Wasmtime's
/// `InstanceAllocationStrategy`).
#[derive(Debug, Clone, Default)]
pub enum InstanceAllocationStrategy {
    /// Each is allocated when it is made and freed when dropped (the
    /// default).
    #[default]
    OnDemand,
    /// From a pool with these limits (see [`PoolingAllocationConfig`]).
    Pooling(PoolingAllocationConfig),
}

impl InstanceAllocationStrategy {
    /// The pooling strategy with the default limits.
    pub fn pooling() -> Self {
        InstanceAllocationStrategy::Pooling(PoolingAllocationConfig::default())
    }
}

impl From<PoolingAllocationConfig> for InstanceAllocationStrategy {
    fn from(config: PoolingAllocationConfig) -> Self {
        InstanceAllocationStrategy::Pooling(config)
    }
}

impl Config {
    /// How the engine allocates instances, memories and tables (default
    /// [`InstanceAllocationStrategy::OnDemand`]).
    pub fn allocation_strategy(&mut self, strategy: impl Into<InstanceAllocationStrategy>) -> &mut Self {
        self.allocation_strategy = strategy.into();
        self
    }

    /// The most async stacks out of the pool at once: `total_stacks` with
    /// the pooling strategy.
    #[cfg(feature = "async")]
    pub(crate) fn max_async_stacks(&self) -> usize {
        match &self.allocation_strategy {
            InstanceAllocationStrategy::OnDemand => usize::MAX,
            InstanceAllocationStrategy::Pooling(p) => p.total_stacks as usize,
        }
    }

    /// The engine's pool, for the pooling strategy.
    pub(crate) fn instance_pool(&self) -> Option<Arc<weft_runtime::InstancePool>> {
        match &self.allocation_strategy {
            InstanceAllocationStrategy::OnDemand => None,
            InstanceAllocationStrategy::Pooling(p) => Some(weft_runtime::InstancePool::new(p.limits())),
        }
    }
}

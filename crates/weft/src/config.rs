//! Engine configuration.

mod host_memory;
mod pooling;
pub use pooling::{InstanceAllocationStrategy, PoolingAllocationConfig};
#[cfg(feature = "async")]
mod stack;
pub use host_memory::{LinearMemory, MemoryCreator};
#[cfg(feature = "async")]
pub use stack::{StackCreator, StackMemory};
use std::sync::Arc;

/// How much Cranelift optimizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum OptLevel {
    /// No optimizations.
    None,
    /// Optimize for speed.
    #[default]
    Speed,
    /// Optimize for speed and size.
    SpeedAndSize,
}

/// Global configuration of an [`crate::Engine`], as Wasmtime's `Config`.
#[derive(Debug, Clone)]
pub struct Config {
    pub(crate) max_wasm_stack: usize,
    pub(crate) opt_level: OptLevel,
    pub(crate) parallel_compilation: bool,
    pub(crate) features: wasmparser::WasmFeatures,
    pub(crate) tunables: weft_environ::Tunables,
    pub(crate) async_stack_size: usize,
    /// The component-model features components are validated with: the
    /// component model itself and its async, threading and error-context
    /// extensions (`Config::wasm_component_model*`). Kept apart from
    /// `features`, which core modules are compiled (and precompiled output
    /// is keyed) with.
    pub(crate) component_features: wasmparser::WasmFeatures,
    /// Whether the component model's concurrent API may be used
    /// (`Config::concurrency_support`).
    pub(crate) concurrency_support: bool,
    /// The seed of replayable scheduling
    /// (`Config::concurrency_schedule_seed`).
    pub(crate) concurrency_schedule_seed: Option<u64>,
    /// The garbage collector of GC objects (`Config::collector`).
    pub(crate) collector: Collector,
    /// How instances are allocated (`Config::allocation_strategy`).
    pub(crate) allocation_strategy: InstanceAllocationStrategy,
    /// The maker of linear memories' memory (`Config::with_host_memory`).
    pub(crate) host_memory: Option<host_memory::HostMemory>,
    /// The maker of async stacks (`Config::with_custom_stack`).
    #[cfg(feature = "async")]
    pub(crate) stack_creator: Option<stack::CustomStacks>,
    /// Whether shared memories may be made (`Config::shared_memory`).
    pub(crate) shared_memory: bool,
}

/// Which garbage collector manages a store's GC objects (the GC proposal's
/// structs and arrays), as in Wasmtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Collector {
    /// The engine's choice: Weft's tracing (mark-sweep) collector.
    #[default]
    Auto,
    /// Wasmtime's deferred reference-counting collector. Weft's tracing
    /// collector stands in for it (it frees what reference counting
    /// frees, and cycles too).
    DeferredReferenceCounting,
    /// Objects are never freed; an allocation past the GC heap's limit
    /// traps. `Store::gc` does nothing.
    Null,
}

impl Default for Config {
    /// The default configuration: every proposal Weft supports is enabled,
    /// as in Wasmtime (whose Cranelift default is the WebAssembly 3.0
    /// feature set, memory64 included), except those Wasmtime also leaves
    /// off (wide arithmetic, custom page sizes, legacy exceptions). As in
    /// Wasmtime, the threads proposal is on but making shared memories
    /// needs [`Config::shared_memory`].
    fn default() -> Self {
        Config {
            max_wasm_stack: 512 * 1024,
            opt_level: OptLevel::Speed,
            parallel_compilation: cfg!(feature = "parallel-compilation"),
            features: weft_environ::supported_features().difference(weft_environ::default_off_features()),
            tunables: weft_environ::Tunables::default(),
            async_stack_size: 2 << 20,
            component_features: default_component_features(),
            concurrency_support: cfg!(feature = "component-model-async"),
            concurrency_schedule_seed: None,
            collector: Collector::Auto,
            allocation_strategy: InstanceAllocationStrategy::OnDemand,
            host_memory: None,
            #[cfg(feature = "async")]
            stack_creator: None,
            shared_memory: false,
        }
    }
}

/// Wasmtime 48's defaults for the component-model switches: the component
/// model with the `component-model` feature, `async` with the
/// `component-model-async` feature, and the rest (more async built-ins, the
/// stackful ABI, threading, `error-context`) off.
fn default_component_features() -> wasmparser::WasmFeatures {
    use wasmparser::WasmFeatures as F;
    let mut features = F::empty();
    features.set(F::COMPONENT_MODEL, cfg!(feature = "component-model"));
    features.set(F::CM_ASYNC, cfg!(feature = "component-model-async"));
    features
}

/// The component-model features that need the async ABI's runtime (Weft's
/// `component-model-async` feature), as Wasmtime's "concurrency support".
const ASYNC_COMPONENT_SWITCHES: wasmparser::WasmFeatures = wasmparser::WasmFeatures::CM_ASYNC
    .union(wasmparser::WasmFeatures::CM_MORE_ASYNC_BUILTINS)
    .union(wasmparser::WasmFeatures::CM_ASYNC_STACKFUL)
    .union(wasmparser::WasmFeatures::CM_THREADING)
    .union(wasmparser::WasmFeatures::CM_ERROR_CONTEXT);

macro_rules! feature_switches {
    ($($(#[$doc:meta])* $name:ident => $flag:ident;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(&mut self, enable: bool) -> &mut Self {
                self.features.set(wasmparser::WasmFeatures::$flag, enable);
                self
            }
        )*
    };
}

impl Config {
    /// The default configuration.
    pub fn new() -> Self {
        Self::default()
    }

    /// The most stack, in bytes, that wasm may use before a call traps with
    /// a stack overflow (default 512 KiB).
    pub fn max_wasm_stack(&mut self, size: usize) -> &mut Self {
        self.max_wasm_stack = size;
        self
    }

    /// How much Cranelift optimizes (default: speed).
    pub fn cranelift_opt_level(&mut self, level: OptLevel) -> &mut Self {
        self.opt_level = level;
        self
    }

    /// Whether the functions of a module are compiled in parallel (default
    /// on with the `parallel-compilation` feature).
    pub fn parallel_compilation(&mut self, enable: bool) -> &mut Self {
        self.parallel_compilation = enable && cfg!(feature = "parallel-compilation");
        self
    }

    /// Whether relaxed SIMD instructions compute the deterministic results
    /// of the spec (default off: they compute the fastest results of the
    /// machine). Either way one instruction gives the same result every time
    /// on one machine; deterministic results are also the same on every
    /// machine.
    pub fn relaxed_simd_deterministic(&mut self, enable: bool) -> &mut Self {
        self.tunables.relaxed_simd_deterministic = enable;
        self
    }

    /// Whether shared memories may be made: [`crate::SharedMemory::new`],
    /// and the shared memories modules define when they are instantiated
    /// (default off, as in Wasmtime, while the threads proposal,
    /// [`Config::wasm_threads`], is on). Without it both fail with an error
    /// that names this switch; modules using shared memories still compile.
    pub fn shared_memory(&mut self, enable: bool) -> &mut Self {
        self.shared_memory = enable;
        self
    }

    /// Does nothing: as in Wasmtime 48, async calls (`Func::call_async`
    /// and friends) and async host functions are always available (with the
    /// `async` feature). Kept so that programs written for older Wasmtimes
    /// compile.
    #[deprecated(note = "async support is always enabled; this does nothing")]
    pub fn async_support(&mut self, _enable: bool) -> &mut Self {
        self
    }

    /// The size of the stacks that async calls run on (default 2 MiB); it
    /// must exceed `max_wasm_stack`.
    pub fn async_stack_size(&mut self, size: usize) -> &mut Self {
        self.async_stack_size = size;
        self
    }

    fn component_switch(&mut self, flag: wasmparser::WasmFeatures, enable: bool) -> &mut Self {
        self.component_features.set(flag, enable);
        self
    }

    /// Whether components may be compiled at all (the component model
    /// proposal, wasmparser's `component_model`). With it off,
    /// `component::Component::new` rejects every component.
    ///
    /// Default on with the `component-model` feature, which it needs.
    pub fn wasm_component_model(&mut self, enable: bool) -> &mut Self {
        self.component_switch(wasmparser::WasmFeatures::COMPONENT_MODEL, enable)
    }

    /// Whether components may use the component model's async ABI (🔀):
    /// `async` functions, the `async` canonical option of lifts and lowers,
    /// the `stream` and `future` types, and the `task.*`, `context.*`,
    /// `backpressure.*`, `waitable-set.*`, `waitable.*`, `subtask.*`,
    /// `stream.*`, `future.*` and `thread.yield` built-ins (wasmparser's
    /// `cm_async`). An `async` lift without a `callback` also needs
    /// [`Config::wasm_component_model_async_stackful`], `error-context`
    /// needs [`Config::wasm_component_model_error_context`], the async
    /// forms of the cancel built-ins need
    /// [`Config::wasm_component_model_more_async_builtins`] and the
    /// other `thread.*` built-ins [`Config::wasm_component_model_threading`].
    ///
    /// Default on with the `component-model-async` feature, which it needs
    /// (as in Wasmtime 48).
    pub fn wasm_component_model_async(&mut self, enable: bool) -> &mut Self {
        self.component_switch(wasmparser::WasmFeatures::CM_ASYNC, enable)
    }

    /// Whether components may use the async ABI's further built-ins and
    /// options on built-ins (🚝, wasmparser's `cm_more_async_builtins`):
    /// the synchronous forms of `stream.read`, `stream.write`,
    /// `future.read` and `future.write`, and the `async` forms of
    /// `subtask.cancel`, `stream.cancel-read`, `stream.cancel-write`,
    /// `future.cancel-read` and `future.cancel-write`. Needs
    /// [`Config::wasm_component_model_async`] for the built-ins themselves.
    ///
    /// Default off (as in Wasmtime 48); needs the `component-model-async`
    /// feature.
    pub fn wasm_component_model_more_async_builtins(&mut self, enable: bool) -> &mut Self {
        self.component_switch(wasmparser::WasmFeatures::CM_MORE_ASYNC_BUILTINS, enable)
    }

    /// Whether the component model's concurrent API may be used:
    /// `run_concurrent`, `call_concurrent`, the `*_concurrent` host
    /// functions, `spawn`, host streams and futures. With it off they fail
    /// with an error saying so.
    ///
    /// Default on with the `component-model-async` feature (as in Wasmtime
    /// 48); without that feature it stays off.
    pub fn concurrency_support(&mut self, enable: bool) -> &mut Self {
        self.concurrency_support = enable && cfg!(feature = "component-model-async");
        self
    }

    /// Makes the order in which a store's event loop runs ready guest
    /// threads and woken host tasks a function of `seed` and the inputs
    /// alone: among the work that is ready, a pseudo-random pick seeded
    /// with `seed` chooses what runs next. Two runs with the same seed and
    /// the same calls interleave the same way, so a failing interleaving
    /// replays exactly, and different seeds explore different (valid)
    /// interleavings. Without it the loop takes the oldest ready work
    /// first, which is faster. (Weft's own; Wasmtime has no counterpart.)
    pub fn concurrency_schedule_seed(&mut self, seed: u64) -> &mut Self {
        self.concurrency_schedule_seed = Some(seed);
        self
    }

    /// The older name of
    /// [`Config::wasm_component_model_more_async_builtins`], with the same
    /// effect (wasmparser's `cm_more_async_builtins`, once
    /// `cm_async_builtins`).
    ///
    /// Default off; needs the `component-model-async` feature.
    pub fn wasm_component_model_async_builtins(&mut self, enable: bool) -> &mut Self {
        self.wasm_component_model_more_async_builtins(enable)
    }

    /// Whether components may use the async ABI's stackful form (🚟,
    /// wasmparser's `cm_async_stackful`): an `async` lift without a
    /// `callback`, whose core function runs as its own thread of execution
    /// and may block in `waitable-set.wait`.
    ///
    /// Default off (as in Wasmtime 48); needs the `component-model-async`
    /// feature.
    pub fn wasm_component_model_async_stackful(&mut self, enable: bool) -> &mut Self {
        self.component_switch(wasmparser::WasmFeatures::CM_ASYNC_STACKFUL, enable)
    }

    /// Whether components may use the component model's threading
    /// built-ins (🧵, wasmparser's `cm_threading`): `thread.index`,
    /// `thread.new-indirect`, `thread.suspend`, `thread.resume-later`, the
    /// `thread.{suspend,yield}-then-{resume,promote}` built-ins, and
    /// `context.get`/`context.set` of slot 1.
    ///
    /// Default off (as in Wasmtime 48); needs the `component-model-async`
    /// feature.
    pub fn wasm_component_model_threading(&mut self, enable: bool) -> &mut Self {
        self.component_switch(wasmparser::WasmFeatures::CM_THREADING, enable)
    }

    /// Whether components may use `error-context` (📝, wasmparser's
    /// `cm_error_context`): the type and the `error-context.new`,
    /// `error-context.debug-message` and `error-context.drop` built-ins.
    ///
    /// Default off (as in Wasmtime 48); needs the `component-model-async`
    /// feature.
    pub fn wasm_component_model_error_context(&mut self, enable: bool) -> &mut Self {
        self.component_switch(wasmparser::WasmFeatures::CM_ERROR_CONTEXT, enable)
    }

    /// Whether wasm consumes fuel as it runs (see `Store::set_fuel`); out of
    /// fuel, it traps with `Trap::OutOfFuel` or, with async, may yield.
    pub fn consume_fuel(&mut self, enable: bool) -> &mut Self {
        self.tunables.consume_fuel = enable;
        self
    }

    /// Whether wasm checks the engine's epoch (see
    /// `Engine::increment_epoch` and `Store::set_epoch_deadline`) at function
    /// entries and loop back-edges.
    pub fn epoch_interruption(&mut self, enable: bool) -> &mut Self {
        self.tunables.epoch_interruption = enable;
        self
    }

    /// The garbage collector of GC objects (default [`Collector::Auto`]:
    /// the tracing collector).
    pub fn collector(&mut self, collector: Collector) -> &mut Self {
        self.collector = collector;
        self
    }

    feature_switches! {
        /// Enables the reference types proposal (default on).
        wasm_reference_types => REFERENCE_TYPES;
        /// Enables the multi-value proposal (default on).
        wasm_multi_value => MULTI_VALUE;
        /// Enables the bulk memory proposal (default on).
        wasm_bulk_memory => BULK_MEMORY;
        /// Enables the fixed-width SIMD proposal: `v128` and its
        /// instructions (default on).
        wasm_simd => SIMD;
        /// Enables the relaxed SIMD proposal (default on; needs
        /// [`Config::wasm_simd`]).
        wasm_relaxed_simd => RELAXED_SIMD;
        /// Enables the tail call proposal: `return_call`,
        /// `return_call_indirect` and `return_call_ref` (default on).
        wasm_tail_call => TAIL_CALL;
        /// Enables the multi-memory proposal (default on).
        wasm_multi_memory => MULTI_MEMORY;
        /// Enables the memory64 proposal: memories and tables indexed with
        /// `i64` (default on, as in Wasmtime).
        wasm_memory64 => MEMORY64;
        /// Enables the extended constant expressions proposal (default on).
        wasm_extended_const => EXTENDED_CONST;
        /// Enables the typed function references proposal (default on;
        /// needs [`Config::wasm_reference_types`]).
        wasm_function_references => FUNCTION_REFERENCES;
        /// Enables the exception handling proposal: tags, `throw`,
        /// `throw_ref`, `try_table` and `exnref` (default on).
        wasm_exceptions => EXCEPTIONS;
        /// Enables the wide arithmetic proposal: `i64.add128`,
        /// `i64.sub128`, `i64.mul_wide_s` and `i64.mul_wide_u` (default
        /// off, as in Wasmtime).
        wasm_wide_arithmetic => WIDE_ARITHMETIC;
        /// Enables the custom page sizes proposal: memories of 1-byte pages
        /// (`(pagesize 1)`, [`crate::MemoryTypeBuilder::page_size_log2`];
        /// default off, as in Wasmtime).
        wasm_custom_page_sizes => CUSTOM_PAGE_SIZES;
        /// Enables the legacy exception handling instructions: `try`,
        /// `catch`, `catch_all`, `rethrow` and `delegate` (default off, as in
        /// Wasmtime).
        wasm_legacy_exceptions => LEGACY_EXCEPTIONS;
        /// Enables the threads proposal: shared memories, atomic
        /// instructions, `memory.atomic.wait32`/`wait64`/`notify` and
        /// `atomic.fence` (default on, as in Wasmtime; making a shared
        /// memory also needs [`Config::shared_memory`]). A
        /// [`SharedMemory`](crate::SharedMemory) is shared by stores on
        /// several threads.
        wasm_threads => THREADS;
        /// Enables the garbage collection proposal: struct and array types,
        /// subtyping, `i31ref` and the `any`/`eq`/`struct`/`array`/`none`
        /// hierarchy (default off, as in Wasmtime). Objects live in a GC
        /// heap per store, collected by the collector
        /// [`Config::collector`] chooses.
        wasm_gc => GC;
        /// Enables the custom descriptors proposal: exact reference types
        /// (`(ref exact $t)`), struct types with `describes`/`descriptor`
        /// clauses, `struct.new_desc`, `struct.new_default_desc`,
        /// `ref.get_desc`, `ref.cast_desc_eq` and
        /// `br_on_cast_desc_eq`/`br_on_cast_desc_eq_fail` (default off;
        /// needs [`Config::wasm_gc`]). Weft's own switch: Wasmtime 48 has
        /// none. Supported in part: see the README for which of the
        /// proposal's spec files pass.
        wasm_custom_descriptors => CUSTOM_DESCRIPTORS;
    }

    /// Whether compiled code handles exceptions (the exception handling
    /// proposal or its legacy form is on): then calls in the scope of a
    /// handler record where a thrown exception resumes.
    pub(crate) fn exceptions_enabled(&self) -> bool {
        self.compile_tunables().exceptions
    }

    /// The tunables code is compiled with: the configured ones, plus whether
    /// exception handling is enabled.
    pub(crate) fn compile_tunables(&self) -> weft_environ::Tunables {
        let mut tunables = self.tunables;
        tunables.exceptions = self
            .features
            .intersects(wasmparser::WasmFeatures::EXCEPTIONS | wasmparser::WasmFeatures::LEGACY_EXCEPTIONS);
        tunables.explicit_bounds_checks = self.host_memory.is_some();
        tunables
    }

    /// The maker of the memory of the engine's stores' memories, if the
    /// embedder provides it.
    pub(crate) fn memory_creator(&self) -> Option<Arc<dyn weft_runtime::HostMemoryCreator>> {
        self.host_memory
            .clone()
            .map(|h| Arc::new(h) as Arc<dyn weft_runtime::HostMemoryCreator>)
    }

    /// Checks that the enabled proposals can work together.
    pub(crate) fn validate(&self) -> crate::Result<()> {
        use wasmparser::WasmFeatures as F;
        if self.features.contains(F::RELAXED_SIMD) && !self.features.contains(F::SIMD) {
            crate::bail!("cannot disable the simd proposal but enable the relaxed simd proposal");
        }
        if self.features.contains(F::FUNCTION_REFERENCES) && !self.features.contains(F::REFERENCE_TYPES) {
            crate::bail!("cannot disable the reference types proposal but enable the function references proposal");
        }
        if self.component_features.contains(F::COMPONENT_MODEL) && !cfg!(feature = "component-model") {
            crate::bail!("the component model needs Weft's `component-model` feature");
        }
        let needs_async = self.component_features & ASYNC_COMPONENT_SWITCHES;
        if !needs_async.is_empty() && !cfg!(feature = "component-model-async") {
            crate::bail!(
                "the component model async ABI needs Weft's `component-model-async` feature \
                 (enabled: {needs_async:?})"
            );
        }
        if self.features.contains(F::EXCEPTIONS) && !self.features.contains(F::REFERENCE_TYPES) {
            crate::bail!("cannot disable the reference types proposal but enable the exceptions proposal");
        }
        if self.features.contains(F::GC) && !self.features.contains(F::FUNCTION_REFERENCES) {
            crate::bail!("cannot disable the function references proposal but enable the GC proposal");
        }
        if self.features.contains(F::CUSTOM_DESCRIPTORS) && !self.features.contains(F::GC) {
            crate::bail!("cannot disable the GC proposal but enable the custom descriptors proposal");
        }
        let unsupported = self
            .features
            .difference(weft_environ::supported_features() | weft_environ::partial_features());
        if !unsupported.is_empty() {
            crate::bail!("Weft does not support these enabled WebAssembly features: {unsupported:?}");
        }
        Ok(())
    }
}

//! Stores and their contexts.

// Import loop kept on purpose: the store holds the data of the objects it
// owns (func.rs, values.rs, externals.rs, instance.rs, the state of
// limits.rs, interrupts.rs, call_hook.rs and async_support.rs, and
// component/store.rs) and each of them takes a store in its API, as
// Wasmtime's store does; breaking the loop would split each object's code
// between two files.
#[cfg(feature = "async")]
use crate::async_support;
#[cfg(feature = "component-model")]
use crate::component;
use crate::func::FuncData;
use crate::trap::{FrameInfo, TrapExt};
use crate::types::{FuncType, GlobalType, MemoryType, Mutability, RefType, TableType, TagType, ValType};
use crate::values::{ExnRef, ExternRef, Rooted};
use crate::{call_hook, interrupts, limits, CallHook, Extern, ThrownException};
use crate::{Engine, Func, Instance, Module, Trap, WasmBacktrace};
use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use weft_runtime::{FuncRefPtr, StoreObjects, UnwindReason, VMStore, ValRaw};

/// The unique id of a store, used to reject values of other stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StoreId(u64);

impl StoreId {
    /// No store: the id of a value not placed in a store yet.
    #[cfg(feature = "component-model")]
    pub(crate) const NONE: StoreId = StoreId(0);

    fn new() -> StoreId {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        StoreId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// A collection of instances and host state: all WebAssembly objects live in
/// a store and are dropped with it.
pub struct Store<T: 'static> {
    /// Always `Some`, except while [`Store::into_data`] takes it apart.
    inner: Option<Box<StoreInner<T>>>,
}

impl<T: 'static> Drop for Store<T> {
    fn drop(&mut self) {
        // Threads of the component model's async ABI suspended on fibers
        // unwind first, while the store they use is still whole.
        #[cfg(feature = "component-model-async")]
        if let Some(inner) = self.inner.as_mut() {
            component::concurrent::cancel_all(inner);
        }
    }
}

/// The store proper: the untyped part and the host's data.
pub struct StoreInner<T: 'static> {
    pub(crate) opaque: StoreOpaque,
    pub(crate) fuel: interrupts::FuelState,
    pub(crate) epoch_behavior: interrupts::EpochBehavior<T>,
    pub(crate) limiter: Option<limits::Limiter<T>>,
    /// The embedder's call hook (`Store::call_hook`).
    pub(crate) call_hooks: call_hook::CallHooks<T>,
    pub(crate) data: T,
}

impl<T: 'static> VMStore for StoreInner<T> {
    fn objects(&self) -> &StoreObjects {
        &self.opaque.objects
    }

    #[inline]
    fn host_call_hook(&mut self, entering: bool) -> anyhow::Result<()> {
        self.call_hook(if entering {
            CallHook::CallingHost
        } else {
            CallHook::ReturningFromHost
        })
    }

    /// A host function that returns a [`ThrownException`] error (from
    /// [`Store::throw`], or from its own call into wasm that an exception
    /// escaped) throws the store's pending exception into its wasm caller,
    /// as in Wasmtime. Without exception handling compiled code does not
    /// look for exceptions after calls, so the error stays an error (a
    /// trap of the caller, reaching the embedder with the exception still
    /// pending).
    fn host_throw(&mut self, error: &anyhow::Error) -> Option<usize> {
        if error.downcast_ref::<ThrownException>()?.refused.is_some() {
            return None;
        }
        if !self.opaque.engine.inner.config.exceptions_enabled() {
            return None;
        }
        self.opaque.pending_exception.take().map(|p| p.word)
    }
}

/// The exception that last escaped wasm (or that the host threw), until
/// the host takes it or throws it into wasm: its exnref word, and the
/// owned root that keeps it from being collected meanwhile.
pub(crate) struct PendingException {
    word: usize,
    _root: std::sync::Arc<()>,
}

pub(crate) struct InstanceData {
    pub(crate) module: Module,
    pub(crate) id: weft_runtime::InstanceId,
    /// Store index of function `i` of the module.
    pub(crate) funcs: Vec<u32>,
}

/// The part of a store that does not depend on its data type.
pub struct StoreOpaque {
    id: StoreId,
    pub(crate) engine: Engine,
    /// The engine's `Config::max_wasm_stack`, at hand for every call.
    pub(crate) max_wasm_stack: usize,
    pub(crate) objects: StoreObjects,
    pub(crate) funcs: Vec<FuncData>,
    pub(crate) instances: Vec<InstanceData>,
    pub(crate) global_types: crate::id_map::IdMap<usize, GlobalType>,
    pub(crate) table_types: crate::id_map::IdMap<usize, TableType>,
    /// The canonical value types of the globals wasm instances define, and
    /// the element types of their tables, when the public types above do
    /// not fully show them (concrete struct and array types, exactness);
    /// import matching compares these, else the public types' wasm form.
    pub(crate) wasm_global_types: crate::id_map::IdMap<usize, weft_environ::WasmValType>,
    pub(crate) wasm_table_elements: crate::id_map::IdMap<usize, weft_environ::WasmRefType>,
    pub(crate) memory_types: crate::id_map::IdMap<usize, MemoryType>,
    /// The store's memory of each shared memory it holds, by the shared
    /// memory's identity (kept valid by the store's own handle).
    pub(crate) shared_memories: crate::id_map::IdMap<usize, weft_runtime::MemoryId>,
    /// The types of the store's tags, by tag index.
    pub(crate) tag_types: crate::id_map::IdMap<usize, TagType>,
    /// The last exception that escaped wasm (an exnref word), until the
    /// host takes it.
    pub(crate) pending_exception: Option<PendingException>,
    #[cfg(feature = "async")]
    pub(crate) async_state: Option<async_support::AsyncState>,
    /// The fiber of the last async call, for the next one, and its handle
    /// (in `async_state` while a call runs).
    #[cfg(feature = "async")]
    pub(crate) fiber_worker: Option<weft_fiber::FiberWorker>,
    #[cfg(feature = "async")]
    pub(crate) fiber_cx: Option<weft_fiber::AsyncCx>,
    /// Lifted functions and component instances.
    #[cfg(feature = "component-model")]
    pub(crate) components: component::store::ComponentStore,
}

/// The error of an object used with a store it does not belong to (out of
/// line: every call checks, none should fail).
#[cold]
fn wrong_store(what: &str) -> crate::Error {
    crate::format_err!("{what} belongs to a different store than the one it is used with")
}

impl StoreOpaque {
    pub(crate) fn id(&self) -> StoreId {
        self.id
    }

    /// Fails unless `id` is this store.
    #[inline]
    pub(crate) fn check(&self, id: StoreId, what: &str) -> crate::Result<()> {
        if id != self.id {
            return Err(wrong_store(what));
        }
        Ok(())
    }

    pub(crate) fn func_ref(&self, f: &Func) -> crate::Result<FuncRefPtr> {
        self.check(f.store, "function")?;
        self.funcs
            .get(f.index as usize)
            .map(|d| d.func_ref)
            .ok_or_else(|| crate::format_err!("function not found in store"))
    }

    pub(crate) fn new_externref(&mut self, value: Box<dyn Any + Send + Sync>) -> crate::Result<Rooted<ExternRef>> {
        let word = self.objects.context().new_externref(value);
        Ok(Rooted {
            store: self.id,
            index: word - 1,
            _marker: std::marker::PhantomData,
        })
    }

    pub(crate) fn externref_word(&self, e: &Rooted<ExternRef>) -> crate::Result<usize> {
        self.check(e.store, "externref")?;
        Ok(e.index + 1)
    }

    pub(crate) fn externref_data(&self, e: &Rooted<ExternRef>) -> crate::Result<&(dyn Any + Send + Sync)> {
        self.check(e.store, "externref")?;
        self.objects
            .context()
            .externref(e.index.wrapping_add(1))
            .ok_or_else(|| {
                crate::format_err!("externref not found in store (its root scope ended and it was collected)")
            })
    }

    /// The backtrace of wasm frames at `pcs`.
    pub(crate) fn backtrace(&self, pcs: &[usize]) -> WasmBacktrace {
        let mut frames = Vec::new();
        for &pc in pcs {
            for inst in &self.instances {
                if let Some((index, offset, start)) = inst.module.frame_at_pc(pc) {
                    frames.push(FrameInfo::new(&inst.module, index, offset, start));
                    break;
                }
            }
        }
        WasmBacktrace { frames }
    }

    /// Turns why a call did not return into the error Wasmtime would give.
    pub(crate) fn unwind_to_error(&self, reason: UnwindReason) -> crate::Error {
        match reason {
            UnwindReason::Trap { trap, pcs } => {
                let trap = Trap::from_runtime(trap);
                crate::Error::new(trap).context(self.backtrace(&pcs))
            }
            UnwindReason::HostError { error, pcs } => {
                if error.downcast_ref::<WasmBacktrace>().is_some() {
                    error
                } else {
                    error.context(self.backtrace(&pcs))
                }
            }
            UnwindReason::UncaughtException { tag, .. } => crate::Error::new(ThrownException { tag, refused: None }),
            UnwindReason::Panic(payload) => std::panic::resume_unwind(payload),
        }
    }

    /// The declared type of a table of this store, with its current size as
    /// minimum.
    pub(crate) fn table_type(&self, id: weft_runtime::TableId) -> TableType {
        let size = self.objects.table(id).size();
        match self.table_types.get(&id.0) {
            Some(t) if t.is_64() => TableType::new64(t.element().clone(), size, t.maximum()),
            Some(t) => TableType::new(t.element().clone(), size as u32, t.maximum().map(|m| m as u32)),
            None => TableType::new(RefType::FUNCREF, size as u32, None),
        }
    }

    /// The type a memory of this store was made with (its declared
    /// minimum, not its current size), as Wasmtime's `Memory::ty` reports.
    pub(crate) fn declared_memory_type(&self, id: weft_runtime::MemoryId) -> MemoryType {
        match self.memory_types.get(&id.0) {
            Some(t) => t.clone(),
            None => self.memory_type(id),
        }
    }

    /// The type a table of this store was made with (its declared minimum,
    /// not its current size), as Wasmtime's `Table::ty` reports.
    pub(crate) fn declared_table_type(&self, id: weft_runtime::TableId) -> TableType {
        match self.table_types.get(&id.0) {
            Some(t) => t.clone(),
            None => self.table_type(id),
        }
    }

    /// The declared type of a memory of this store, with its current size
    /// as minimum (what import matching compares).
    pub(crate) fn memory_type(&self, id: weft_runtime::MemoryId) -> MemoryType {
        let size = self.objects.memory(id).pages();
        match self.memory_types.get(&id.0) {
            Some(t) => t.with_minimum(size),
            None => MemoryType::new(size as u32, None),
        }
    }

    /// The store's memory for the shared memory `memory`, added on its
    /// first import into this store.
    pub(crate) fn import_shared_memory(&mut self, memory: &crate::SharedMemory) -> weft_runtime::MemoryId {
        let identity = memory.runtime().identity();
        if let Some(id) = self.shared_memories.get(&identity) {
            return *id;
        }
        let linear = weft_runtime::LinearMemory::from_shared(memory.runtime().clone());
        let id = self.objects.add_memory(linear);
        self.memory_types.insert(id.0, memory.ty());
        self.shared_memories.insert(identity, id);
        id
    }

    /// Makes `exception` the store's pending exception and returns the
    /// error that throws it (see [`Store::throw`]); an exception of another
    /// store, or that this store does not have, is refused: the error says
    /// why and nothing is pending.
    fn throw(&mut self, exception: &Rooted<ExnRef>) -> ThrownException {
        let refused = |why: String| ThrownException {
            tag: u32::MAX,
            refused: Some(why),
        };
        if let Err(e) = self.check(exception.store, "the exception reference") {
            return refused(e.to_string());
        }
        let word = exception.index.wrapping_add(1);
        match self.objects.exception(word) {
            Some((tag, _)) => {
                self.set_pending_exception(word);
                ThrownException {
                    tag: u32::try_from(tag.0).unwrap_or(u32::MAX),
                    refused: None,
                }
            }
            None => refused("the exception reference names no exception of the store".to_string()),
        }
    }

    /// Makes `word` (an exnref word of this store) the exception waiting
    /// for the host, rooted until taken.
    pub(crate) fn set_pending_exception(&mut self, word: usize) {
        let root = self.objects.context().push_owned_root(word as u64);
        self.pending_exception = Some(PendingException { word, _root: root });
    }

    fn take_pending_exception(&mut self) -> Option<Rooted<ExnRef>> {
        let exn = self.pending_exception.take()?.word;
        // Rooted in the current scope before the owned root goes.
        self.objects.context().push_host_root(exn as u64);
        Some(Rooted {
            store: self.id,
            index: exn - 1,
            _marker: std::marker::PhantomData,
        })
    }

    pub(crate) fn tag_type(&self, id: weft_runtime::TagId) -> TagType {
        match self.tag_types.get(&id.0) {
            Some(t) => t.clone(),
            None => TagType::new(FuncType::new(&self.engine, [], [])),
        }
    }

    pub(crate) fn global_type(&self, id: weft_runtime::GlobalId) -> GlobalType {
        self.global_types
            .get(&id.0)
            .cloned()
            .unwrap_or_else(|| GlobalType::new(ValType::I32, Mutability::Const))
    }
}

impl<T: 'static> StoreInner<T> {
    /// Yields to the async executor running this store's current call.
    pub(crate) fn async_yield(&mut self) -> crate::Result<()> {
        // A thread of a component-model task yields to the store's event
        // loop, which yields to the executor in turn.
        #[cfg(feature = "component-model-async")]
        if let Some(r) = component::concurrent::yield_thread(self) {
            return r;
        }
        #[cfg(feature = "async")]
        if self.opaque.async_state.is_some() {
            return self.async_yield_impl();
        }
        crate::bail!("cannot yield to the executor: the wasm call is not async (use `call_async`)")
    }

    pub(crate) fn opaque(&self) -> &StoreOpaque {
        &self.opaque
    }
    pub(crate) fn opaque_mut(&mut self) -> &mut StoreOpaque {
        &mut self.opaque
    }

    /// Runs wasm: calls `callee` through `trampoline` with `values`.
    pub(crate) fn invoke(
        &mut self,
        callee: FuncRefPtr,
        trampoline: weft_runtime::CodePtr,
        values: &mut [ValRaw],
    ) -> crate::Result<()> {
        let max = self.opaque.max_wasm_stack;
        self.call_hook(CallHook::CallingWasm)?;
        let r = match weft_runtime::invoke(self, callee, trampoline, values, max) {
            Ok(()) => Ok(()),
            Err(reason) => {
                if let UnwindReason::UncaughtException { exn, .. } = reason {
                    self.opaque.set_pending_exception(exn);
                }
                Err(self.opaque.unwind_to_error(reason))
            }
        };
        let left = self.call_hook(CallHook::ReturningFromWasm);
        r.and(left)
    }
}

impl<T: 'static> Store<T> {
    /// A new store for `engine` holding `data`.
    pub fn new(engine: &Engine, data: T) -> Store<T> {
        let mut objects = StoreObjects::new();
        objects.set_epoch_counter(engine.inner.epoch.clone());
        objects.set_memory_creator(engine.inner.config.memory_creator());
        objects.set_instance_pool(engine.inner.instance_pool.clone());
        objects.set_epoch_deadline(0);
        objects.set_interrupt_handler::<StoreInner<T>>(interrupts::handle_interrupt::<T>);
        if engine.inner.config.collector == crate::Collector::Null {
            objects.context().set_null_collector();
        }
        Store {
            inner: Some(Box::new(StoreInner {
                opaque: StoreOpaque {
                    id: StoreId::new(),
                    engine: engine.clone(),
                    max_wasm_stack: engine.inner.config.max_wasm_stack,
                    objects,
                    funcs: Vec::new(),
                    instances: Vec::new(),
                    global_types: Default::default(),
                    table_types: Default::default(),
                    wasm_global_types: Default::default(),
                    wasm_table_elements: Default::default(),
                    memory_types: Default::default(),
                    shared_memories: Default::default(),
                    tag_types: Default::default(),
                    pending_exception: None,
                    #[cfg(feature = "async")]
                    async_state: None,
                    #[cfg(feature = "async")]
                    fiber_worker: None,
                    #[cfg(feature = "async")]
                    fiber_cx: None,
                    #[cfg(feature = "component-model")]
                    components: Default::default(),
                },
                fuel: Default::default(),
                epoch_behavior: interrupts::EpochBehavior::Trap,
                limiter: None,
                call_hooks: Default::default(),
                data,
            })),
        }
    }

    /// The store proper (see the field's invariant).
    pub(crate) fn inner(&self) -> &StoreInner<T> {
        match &self.inner {
            Some(inner) => inner,
            None => unreachable!("a store is only taken apart by `into_data`, which consumes it"),
        }
    }

    /// The store proper, writable.
    pub(crate) fn inner_mut(&mut self) -> &mut StoreInner<T> {
        match &mut self.inner {
            Some(inner) => inner,
            None => unreachable!("a store is only taken apart by `into_data`, which consumes it"),
        }
    }

    /// The host data.
    pub fn data(&self) -> &T {
        &self.inner().data
    }
    /// The host data, writable.
    pub fn data_mut(&mut self) -> &mut T {
        &mut self.inner_mut().data
    }
    /// Consumes the store and returns its data.
    pub fn into_data(mut self) -> T {
        #[cfg(feature = "component-model-async")]
        component::concurrent::cancel_all(self.inner_mut());
        match self.inner.take() {
            Some(inner) => inner.data,
            None => unreachable!("a store is only taken apart by `into_data`, which consumes it"),
        }
    }
    /// The engine of the store.
    pub fn engine(&self) -> &Engine {
        &self.inner().opaque.engine
    }
    /// Runs a garbage collection: frees every GC object and extern
    /// reference no root reaches (see [`Rooted`]). With `why`, the error of
    /// an allocation that failed, the heap is also made large enough for
    /// it, within its limit.
    pub fn gc(&mut self, why: Option<&crate::GcHeapOutOfMemory<()>>) -> crate::Result<()> {
        self.inner_mut().opaque.gc(why)
    }
    /// [`Store::gc`], for async stores (the collection itself does not
    /// yield).
    #[cfg(feature = "async")]
    pub async fn gc_async(&mut self, why: Option<&crate::GcHeapOutOfMemory<()>>) -> crate::Result<()> {
        self.gc(why)
    }
    /// Takes the exception that last escaped wasm (the call that returned a
    /// [`ThrownException`] error), if it was not taken yet.
    pub fn take_pending_exception(&mut self) -> Option<Rooted<ExnRef>> {
        self.inner_mut().opaque.take_pending_exception()
    }
    /// Whether an exception that escaped wasm waits to be taken.
    pub fn has_pending_exception(&self) -> bool {
        self.inner().opaque.pending_exception.is_some()
    }
    /// Throws `exception` from the host: makes it the store's pending
    /// exception and returns the error that, returned by a host function,
    /// throws it into the host function's wasm caller (where `try_table`
    /// may catch it; uncaught, it ends the embedder's call with this error
    /// and stays pending for [`Store::take_pending_exception`]). Always
    /// `Err`, for use with `?`. An exception of another store is refused:
    /// nothing is pending, and the error says so (a host function
    /// returning it traps).
    pub fn throw<R>(&mut self, exception: Rooted<ExnRef>) -> Result<R, ThrownException> {
        Err(self.inner_mut().opaque.throw(&exception))
    }
}

impl<T: Default + 'static> Default for Store<T> {
    /// A store on a default engine holding `T::default()`.
    fn default() -> Self {
        Store::new(&Engine::default(), T::default())
    }
}

impl<T: 'static> std::fmt::Debug for Store<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("id", &self.inner().opaque.id)
            .finish_non_exhaustive()
    }
}

/// A borrowed view of a store.
pub struct StoreContext<'a, T: 'static>(pub(crate) &'a StoreInner<T>);

/// A mutably borrowed view of a store.
pub struct StoreContextMut<'a, T: 'static>(pub(crate) &'a mut StoreInner<T>);

impl<'a, T: 'static> StoreContext<'a, T> {
    /// The host data.
    pub fn data(&self) -> &'a T {
        &self.0.data
    }
    /// The engine the store was made with.
    pub fn engine(&self) -> &'a Engine {
        &self.0.opaque.engine
    }
}

impl<'a, T: 'static> StoreContextMut<'a, T> {
    /// The host data.
    pub fn data(&self) -> &T {
        &self.0.data
    }
    /// The host data, writable.
    pub fn data_mut(&mut self) -> &mut T {
        &mut self.0.data
    }
    /// The engine the store was made with.
    pub fn engine(&self) -> &Engine {
        &self.0.opaque.engine
    }
    /// See [`Store::gc`].
    pub fn gc(&mut self, why: Option<&crate::GcHeapOutOfMemory<()>>) -> crate::Result<()> {
        self.0.opaque.gc(why)
    }
    /// See [`Store::gc_async`].
    #[cfg(feature = "async")]
    pub async fn gc_async(&mut self, why: Option<&crate::GcHeapOutOfMemory<()>>) -> crate::Result<()> {
        self.gc(why)
    }
    /// See [`Store::take_pending_exception`].
    pub fn take_pending_exception(&mut self) -> Option<Rooted<ExnRef>> {
        self.0.opaque.take_pending_exception()
    }
    /// See [`Store::has_pending_exception`].
    pub fn has_pending_exception(&self) -> bool {
        self.0.opaque.pending_exception.is_some()
    }
    /// See [`Store::throw`].
    pub fn throw<R>(&mut self, exception: Rooted<ExnRef>) -> Result<R, ThrownException> {
        Err(self.0.opaque.throw(&exception))
    }
    #[doc(hidden)]
    /// See `Store::live_exceptions`.
    pub fn live_exceptions(&self) -> usize {
        self.0.opaque.objects.num_exceptions()
    }
}

#[cfg(feature = "component-model")]
impl<T: 'static> StoreContextMut<'_, T> {
    /// The store's component-model state: lifted functions, component
    /// instances, handle tables (and, with the async ABI, tasks).
    pub(crate) fn components(&self) -> &component::store::ComponentStore {
        &self.0.opaque.components
    }

    /// The store's component-model state, writable.
    pub(crate) fn components_mut(&mut self) -> &mut component::store::ComponentStore {
        &mut self.0.opaque.components
    }
}

/// Types that give shared access to a store.
pub trait AsContext {
    /// The host data type of the store.
    type Data: 'static;
    /// The store, borrowed.
    fn as_context(&self) -> StoreContext<'_, Self::Data>;
}

/// Types that give exclusive access to a store.
pub trait AsContextMut: AsContext {
    /// The store, mutably borrowed.
    fn as_context_mut(&mut self) -> StoreContextMut<'_, Self::Data>;
}

impl<T: 'static> AsContext for Store<T> {
    type Data = T;
    fn as_context(&self) -> StoreContext<'_, T> {
        StoreContext(self.inner())
    }
}
impl<T: 'static> AsContextMut for Store<T> {
    fn as_context_mut(&mut self) -> StoreContextMut<'_, T> {
        StoreContextMut(self.inner_mut())
    }
}
impl<T: 'static> AsContext for StoreContext<'_, T> {
    type Data = T;
    fn as_context(&self) -> StoreContext<'_, T> {
        StoreContext(self.0)
    }
}
impl<T: 'static> AsContext for StoreContextMut<'_, T> {
    type Data = T;
    fn as_context(&self) -> StoreContext<'_, T> {
        StoreContext(self.0)
    }
}
impl<T: 'static> AsContextMut for StoreContextMut<'_, T> {
    fn as_context_mut(&mut self) -> StoreContextMut<'_, T> {
        StoreContextMut(self.0)
    }
}
impl<C: AsContext + ?Sized> AsContext for &C {
    type Data = C::Data;
    fn as_context(&self) -> StoreContext<'_, C::Data> {
        (**self).as_context()
    }
}
impl<C: AsContext + ?Sized> AsContext for &mut C {
    type Data = C::Data;
    fn as_context(&self) -> StoreContext<'_, C::Data> {
        (**self).as_context()
    }
}
impl<C: AsContextMut + ?Sized> AsContextMut for &mut C {
    fn as_context_mut(&mut self) -> StoreContextMut<'_, C::Data> {
        (**self).as_context_mut()
    }
}

impl<'a, T: 'static> From<StoreContextMut<'a, T>> for StoreContext<'a, T> {
    fn from(s: StoreContextMut<'a, T>) -> Self {
        StoreContext(s.0)
    }
}
impl<'a, T: 'static> From<&'a Store<T>> for StoreContext<'a, T> {
    fn from(s: &'a Store<T>) -> Self {
        StoreContext(s.inner())
    }
}
impl<'a, T: 'static> From<&'a mut Store<T>> for StoreContext<'a, T> {
    fn from(s: &'a mut Store<T>) -> Self {
        StoreContext(s.inner())
    }
}
impl<'a, T: 'static> From<&'a mut Store<T>> for StoreContextMut<'a, T> {
    fn from(s: &'a mut Store<T>) -> Self {
        StoreContextMut(s.inner_mut())
    }
}
impl<'a, 'b, T: 'static> From<&'a StoreContext<'b, T>> for StoreContext<'a, T> {
    fn from(s: &'a StoreContext<'b, T>) -> Self {
        StoreContext(s.0)
    }
}
impl<'a, 'b, T: 'static> From<&'a StoreContextMut<'b, T>> for StoreContext<'a, T> {
    fn from(s: &'a StoreContextMut<'b, T>) -> Self {
        StoreContext(s.0)
    }
}
impl<'a, 'b, T: 'static> From<&'a mut StoreContextMut<'b, T>> for StoreContextMut<'a, T> {
    fn from(s: &'a mut StoreContextMut<'b, T>) -> Self {
        StoreContextMut(s.0)
    }
}

/// The instance that called a host function, and the store.
pub struct Caller<'a, T: 'static> {
    pub(crate) store: StoreContextMut<'a, T>,
    pub(crate) caller: Option<Instance>,
}

impl<'a, T: 'static> Caller<'a, T> {
    /// The host data.
    pub fn data(&self) -> &T {
        &self.store.0.data
    }
    /// The host data, writable.
    pub fn data_mut(&mut self) -> &mut T {
        &mut self.store.0.data
    }
    /// The engine the store was made with.
    pub fn engine(&self) -> &Engine {
        &self.store.0.opaque.engine
    }
    /// The export `name` of the calling instance, if the caller is an
    /// instance and has such an export.
    pub fn get_export(&mut self, name: &str) -> Option<Extern> {
        let caller = self.caller?;
        caller.get_export(&mut self.store, name)
    }
    /// See [`Store::gc`].
    pub fn gc(&mut self, why: Option<&crate::GcHeapOutOfMemory<()>>) -> crate::Result<()> {
        self.store.0.opaque.gc(why)
    }
    /// See [`Store::throw`]: the host function throws `exception` into its
    /// wasm caller by returning this error.
    pub fn throw<R>(&mut self, exception: Rooted<ExnRef>) -> Result<R, ThrownException> {
        self.store.throw(exception)
    }
    /// See [`Store::take_pending_exception`]: inside a host function, the
    /// exception that escaped the host function's own call into wasm.
    pub fn take_pending_exception(&mut self) -> Option<Rooted<ExnRef>> {
        self.store.take_pending_exception()
    }
    /// See [`Store::has_pending_exception`].
    pub fn has_pending_exception(&self) -> bool {
        self.store.has_pending_exception()
    }
    #[doc(hidden)]
    /// See `Store::live_exceptions`.
    pub fn live_exceptions(&self) -> usize {
        self.store.0.opaque.objects.num_exceptions()
    }
}

impl<T: 'static> AsContext for Caller<'_, T> {
    type Data = T;
    fn as_context(&self) -> StoreContext<'_, T> {
        StoreContext(self.store.0)
    }
}
impl<T: 'static> AsContextMut for Caller<'_, T> {
    fn as_context_mut(&mut self) -> StoreContextMut<'_, T> {
        StoreContextMut(self.store.0)
    }
}
impl<'a, T: 'static> From<&'a Caller<'_, T>> for StoreContext<'a, T> {
    fn from(c: &'a Caller<'_, T>) -> Self {
        StoreContext(c.store.0)
    }
}
impl<'a, T: 'static> From<&'a mut Caller<'_, T>> for StoreContext<'a, T> {
    fn from(c: &'a mut Caller<'_, T>) -> Self {
        StoreContext(c.store.0)
    }
}
impl<'a, T: 'static> From<&'a mut Caller<'_, T>> for StoreContextMut<'a, T> {
    fn from(c: &'a mut Caller<'_, T>) -> Self {
        StoreContextMut(c.store.0)
    }
}

impl StoreOpaque {
    /// The instance whose runtime handle is `index`, if any.
    pub(crate) fn instance_by_runtime_index(&self, index: u32) -> Option<Instance> {
        ((index as usize) < self.instances.len()).then_some(Instance { store: self.id, index })
    }
}

#[cfg(all(test, feature = "wat"))]
mod tests {
    use crate::{AsContextMut, Engine, Instance, Module, Store};

    /// Exceptions caught without an `exnref` are freed at once, so a
    /// throw-and-catch loop needs no memory; exceptions caught with an
    /// `exnref`, and those that escape to the host, are kept until a
    /// collection finds them unreachable (see `tests/exn_collect.rs`).
    #[test]
    fn exceptions_caught_without_exnref_are_freed() {
        let engine = Engine::default();
        let mut store = Store::new(&engine, ());
        let module = Module::new(
            &engine,
            r#"(module
                (tag $e (param i32))
                (func $throw (param i32) (throw $e (local.get 0)))
                (func (export "loop") (param i32) (result i32)
                    (local $sum i32)
                    (loop $next
                        (block $h (result i32)
                            (try_table (catch $e $h) (call $throw (local.get 0)))
                            (unreachable))
                        (local.set $sum (i32.add (local.get $sum)))
                        (br_if $next (local.tee 0 (i32.sub (local.get 0) (i32.const 1)))))
                    (local.get $sum))
                (func (export "keep") (result exnref)
                    (block $h (result exnref)
                        (try_table (catch_all_ref $h) (call $throw (i32.const 1)))
                        (unreachable)))
                (func (export "escape") (call $throw (i32.const 2))))"#,
        )
        .unwrap();
        let instance = Instance::new(&mut store, &module, &[]).unwrap();
        let run = instance.get_typed_func::<i32, i32>(&mut store, "loop").unwrap();
        assert_eq!(run.call(&mut store, 1000).unwrap(), 500_500);
        assert_eq!(store.inner().opaque.objects.num_exceptions(), 0);
        let escape = instance.get_typed_func::<(), ()>(&mut store, "escape").unwrap();
        let keep = instance.get_func(&mut store, "keep").unwrap();
        let mut out = [crate::Val::I32(0)];
        keep.call(&mut store, &[], &mut out).unwrap();
        assert_eq!(store.inner().opaque.objects.num_exceptions(), 1);
        assert_eq!(run.call(&mut store, 10).unwrap(), 55);
        assert_eq!(store.inner().opaque.objects.num_exceptions(), 1);
        // An exception that escapes is kept for `take_pending_exception`.
        assert!(escape.call(&mut store, ()).is_err());
        assert_eq!(store.inner().opaque.objects.num_exceptions(), 2);
        store.gc(None).unwrap();
        assert_eq!(store.inner().opaque.objects.num_exceptions(), 2);
        // Once taken and its root gone, it is collected; the exnref `keep`
        // returned is still rooted by the store's outermost scope.
        {
            let mut scope = crate::RootScope::new(&mut store);
            assert!(scope.as_context_mut().take_pending_exception().is_some());
        }
        store.gc(None).unwrap();
        assert_eq!(store.inner().opaque.objects.num_exceptions(), 1);
    }
}

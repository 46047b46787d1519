//! Stores: `wasm_store_t`, and `weft/store.h` (`weft_store_t`,
//! `weft_context_t`).
//!
//! A store is a [`StoreShared`]: the `weft::Store` in an `UnsafeCell`, and
//! the way into it of the host function running now, if any. Every access
//! goes through [`StoreShared::ctx`], which borrows the running host
//! function's caller (the store itself is then borrowed by Weft for the
//! call) and the store otherwise.

use crate::config::wasm_engine_t;
use crate::error::{catch_err, weft_error_t};
use crate::guard;
// Import loop kept on purpose: a store owns the host information of its
// objects (ref.rs) and the environments of its host functions (func.rs),
// which reach their store.
use crate::host_env::HostEnv;
use crate::r#ref::{Entity, HostInfo};
use std::cell::{Cell, UnsafeCell};
use std::collections::HashMap;
use std::ffi::c_void;
use std::rc::{Rc, Weak};
use weft::{AsContextMut, Caller, Store, StoreContextMut};

use crate::host_env::Finalizer;

/// The data of a C store (`T` of its `weft::Store<T>`).
pub struct StoreData {
    /// The store itself, for objects made inside host functions.
    pub(crate) this: Weak<StoreShared>,
    /// `weft_store_new`'s data and finalizer.
    pub(crate) data: *mut c_void,
    pub(crate) finalizer: Finalizer,
    /// The host info of the store's functions, globals, tables, memories and
    /// instances (`wasm_X_set_host_info`), finalized with the store.
    pub(crate) host_info: HashMap<Entity, HostInfo>,
    /// The store objects handed to C as `weft_func_t`, `weft_global_t`, ...
    /// (whose private field is an index here), and their indices.
    pub(crate) handles: Vec<Entity>,
    pub(crate) handle_ids: HashMap<Entity, usize>,
    /// The extern references handed to C as `weft_externref_t` (whose
    /// private field is an index here plus one), and their indices by the
    /// address of their data.
    pub(crate) externrefs: Vec<weft::Rooted<weft::ExternRef>>,
    pub(crate) externref_ids: HashMap<usize, u32>,
    /// The limits of `weft_store_limiter`.
    pub(crate) limits: Limits,
    /// The component instances handed to C as
    /// `weft_component_instance_t` (whose private field is an index here).
    pub(crate) component_instances: Vec<weft::component::Instance>,
    /// The component functions handed to C as `weft_component_func_t`.
    pub(crate) component_funcs: Vec<weft::component::Func>,
    /// The WASI preview1 context of `weft_context_set_wasi`.
    pub(crate) wasi: Option<weft_wasi::WasiP1Ctx>,
    /// The WASI 0.2 context of `weft_context_set_wasi`, with the table of
    /// the guest's WASI resources.
    pub(crate) wasip2: Option<WasiP2>,
    /// The `wasi:http` context of `weft_context_set_wasi_http` (its
    /// resources live in the WASI 0.2 table of `wasip2`).
    pub(crate) wasi_http: Option<weft_wasi_http::WasiHttpCtx>,
    /// The roots of the raw `anyref` values given to C
    /// (`weft_anyref_to_raw`, raw values of unchecked calls): a raw value
    /// is an index here plus one, kept until the store is deleted.
    pub(crate) anyref_raws: Vec<(weft::Rooted<weft::AnyRef>, weft::OwnedRooted<weft::AnyRef>)>,
    /// The roots of the raw `exnref` values given to C
    /// (`weft_exnref_to_raw`, raw values of unchecked calls): a raw value
    /// is an index here plus one, kept until the store is deleted.
    pub(crate) exnref_raws: Vec<(weft::Rooted<weft::ExnRef>, weft::OwnedRooted<weft::ExnRef>)>,
}

/// A store's WASI 0.2 state.
pub(crate) struct WasiP2 {
    pub(crate) ctx: weft_wasi::p2::WasiCtx,
    pub(crate) table: weft::component::ResourceTable,
}

impl StoreData {
    /// The WASI 0.2 state of `weft_context_set_wasi`; a store without one
    /// gets an empty context (no arguments, no environment, closed stdin,
    /// stdout and stderr thrown away, no directories), as WASI preview1
    /// does.
    fn wasip2_or_default(&mut self) -> &mut WasiP2 {
        self.wasip2.get_or_insert_with(WasiP2::empty)
    }
}

impl WasiP2 {
    /// An empty context and table.
    fn empty() -> WasiP2 {
        WasiP2 {
            ctx: weft_wasi::WasiCtxBuilder::new().build(),
            table: weft::component::ResourceTable::new(),
        }
    }
}

impl weft_wasi::p2::WasiView for StoreData {
    /// The context of `weft_context_set_wasi`, or an empty one (see
    /// `wasip2_or_default`).
    fn ctx(&mut self) -> weft_wasi::p2::WasiCtxView<'_> {
        let p2 = self.wasip2_or_default();
        weft_wasi::p2::WasiCtxView {
            ctx: &mut p2.ctx,
            table: &mut p2.table,
        }
    }
}

impl weft_wasi_http::WasiHttpView for StoreData {
    /// The context of `weft_context_set_wasi_http` (a store without one
    /// gets a default context, as Wasmtime's `WasiHttpCtx::new()`), the
    /// WASI 0.2 resource table shared with `wasi:io` (body streams are its
    /// streams), and the default hooks: outgoing requests are refused with
    /// `HTTP-request-denied`, as the C API offers no way to send them.
    fn http(&mut self) -> weft_wasi_http::WasiHttpCtxView<'_> {
        let p2 = self.wasip2.get_or_insert_with(WasiP2::empty);
        let ctx = self.wasi_http.get_or_insert_with(weft_wasi_http::WasiHttpCtx::new);
        // A box of a zero-sized type allocates nothing.
        let hooks: &mut dyn weft_wasi_http::WasiHttpHooks = Box::leak(Box::new(RefuseOutgoing));
        weft_wasi_http::WasiHttpCtxView {
            ctx,
            table: &mut p2.table,
            hooks,
        }
    }
}

/// The C API's `wasi:http` hooks: the defaults, except that outgoing
/// requests are refused with `HTTP-request-denied` (the library default
/// sends them, as Wasmtime 48's; the C API offers no way to allow them).
struct RefuseOutgoing;

impl weft_wasi_http::WasiHttpHooks for RefuseOutgoing {
    fn send_request(
        &mut self,
        request: http::Request<weft_wasi_http::WasiBody>,
        options: Option<weft_wasi_http::RequestOptions>,
        fut: Box<dyn std::future::Future<Output = weft_wasi_http::Result<()>> + Send>,
    ) -> Box<
        dyn std::future::Future<
                Output = weft_wasi_http::Result<(
                    http::Response<weft_wasi_http::WasiBody>,
                    Box<dyn std::future::Future<Output = weft_wasi_http::Result<()>> + Send>,
                )>,
            > + Send,
    > {
        weft_wasi_http::refuse_request(request, options, fut)
    }
}

// SAFETY: the C API's contract: a store, with its data, is used by one
// thread at a time (as in Wasmtime's C API, whose store data is `Send` on
// the same terms); Weft needs `Send` data only for async calls, which the
// host polls from the thread that uses the store.
unsafe impl Send for StoreData {}

impl Drop for StoreData {
    fn drop(&mut self) {
        if let Some(f) = self.finalizer {
            // SAFETY: the host gave this finalizer for this data in
            // `weft_store_new`/`weft_context_set_data`; it runs once.
            unsafe { f(self.data) }
        }
    }
}

/// A store and the host call running in it.
pub struct StoreShared {
    store: UnsafeCell<Store<StoreData>>,
    /// The way into the store of the innermost host function (or epoch
    /// callback) running in it, lifetimes erased.
    current: Cell<Current>,
}

/// How the store is reached while a host function runs.
#[derive(Clone, Copy)]
pub(crate) enum Current {
    /// No host function runs: through the store.
    Store,
    /// Through a host function's `Caller`.
    Caller(*mut Caller<'static, StoreData>),
    /// Through the context given to an epoch deadline callback.
    Context(*mut StoreContextMut<'static, StoreData>),
}

/// `wasm_store_t`: a store of `wasm.h`.
pub struct wasm_store_t {
    pub(crate) store: Rc<StoreShared>,
}

/// `weft_store_t`: a store of `weft.h`. Its context (`weft_context_t`) is the
/// [`StoreShared`] inside.
pub type weft_store_t = wasm_store_t;

/// `weft_context_t`: the store's context, valid as long as the store.
pub type weft_context_t = StoreShared;

impl StoreShared {
    /// A new store for `engine`.
    pub(crate) fn new(engine: &weft::Engine, data: *mut c_void, finalizer: Finalizer) -> Rc<StoreShared> {
        Rc::new_cyclic(|this| StoreShared {
            store: UnsafeCell::new(Store::new(
                engine,
                StoreData {
                    this: this.clone(),
                    data,
                    finalizer,
                    host_info: HashMap::new(),
                    handles: Vec::new(),
                    handle_ids: HashMap::new(),
                    externrefs: Vec::new(),
                    externref_ids: HashMap::new(),
                    limits: Limits::default(),
                    component_instances: Vec::new(),
                    component_funcs: Vec::new(),
                    wasi: None,
                    wasip2: None,
                    wasi_http: None,
                    anyref_raws: Vec::new(),
                    exnref_raws: Vec::new(),
                },
            )),
            current: Cell::new(Current::Store),
        })
    }

    /// The store's context: through the running host function's caller if
    /// there is one, else the store.
    ///
    /// # Safety
    ///
    /// No other context of this store from this function is in use while the
    /// returned one is (each C function takes one and drops it before
    /// returning; nested calls from host functions go through the caller).
    pub(crate) unsafe fn ctx(&self) -> StoreContextMut<'_, StoreData> {
        match self.current.get() {
            // SAFETY: no host function runs, so Weft holds no borrow of the
            // store, and the caller of `ctx` holds no other context.
            Current::Store => unsafe { (*self.store.get()).as_context_mut() },
            // SAFETY: the pointer is the `Caller` of the host function
            // running now (`CallerScope` keeps it there only while the
            // function runs, and the function does not use it meanwhile);
            // the caller of `ctx` holds no other context.
            Current::Caller(caller) => unsafe { (*caller).as_context_mut() },
            // SAFETY: as for a caller, for the context of an epoch callback.
            Current::Context(cx) => unsafe { (*cx).as_context_mut() },
        }
    }

    /// The store, for what only `weft::Store` offers (None while a host
    /// function runs in it).
    ///
    /// # Safety
    ///
    /// No context of this store is in use.
    #[allow(
        clippy::mut_from_ref,
        reason = "the store is in an `UnsafeCell`; see the safety contract"
    )]
    pub(crate) unsafe fn store_mut(&self) -> Option<&mut Store<StoreData>> {
        if !matches!(self.current.get(), Current::Store) {
            return None;
        }
        // SAFETY: no host function runs (checked above), so Weft holds no
        // borrow of the store; the caller of `store_mut` holds no other.
        Some(unsafe { &mut *self.store.get() })
    }

    /// The engine of the store.
    pub(crate) fn engine(&self) -> weft::Engine {
        // SAFETY: a short-lived context, dropped before returning, and no
        // other is in use inside this function.
        unsafe { self.ctx() }.engine().clone()
    }

    /// The store's id, to tell stores apart.
    pub(crate) fn id(&self) -> u64 {
        self as *const StoreShared as usize as u64
    }
}

/// While alive, the store's functions go through a host function's caller
/// (or an epoch callback's context).
pub(crate) struct CallerScope<'a> {
    shared: &'a StoreShared,
    prev: Current,
}

impl<'a> CallerScope<'a> {
    /// Makes `caller` the store's way in until the scope ends. The caller
    /// must not be used directly while the scope lives.
    pub(crate) fn enter(shared: &'a StoreShared, caller: &mut Caller<'_, StoreData>) -> CallerScope<'a> {
        let ptr = (caller as *mut Caller<'_, StoreData>).cast::<Caller<'static, StoreData>>();
        let prev = shared.current.replace(Current::Caller(ptr));
        CallerScope { shared, prev }
    }

    /// Makes `cx` the store's way in until the scope ends.
    pub(crate) fn enter_context(shared: &'a StoreShared, cx: &mut StoreContextMut<'_, StoreData>) -> CallerScope<'a> {
        let ptr = (cx as *mut StoreContextMut<'_, StoreData>).cast::<StoreContextMut<'static, StoreData>>();
        let prev = shared.current.replace(Current::Context(ptr));
        CallerScope { shared, prev }
    }

    /// The caller of the running host function, if that is the way in.
    pub(crate) fn caller(shared: &StoreShared) -> Option<*mut Caller<'static, StoreData>> {
        match shared.current.get() {
            Current::Caller(c) => Some(c),
            _ => None,
        }
    }
}

impl Drop for CallerScope<'_> {
    fn drop(&mut self) {
        self.shared.current.set(self.prev);
    }
}

/// The `StoreShared` of a host function's caller.
pub(crate) fn shared_of(caller: &Caller<'_, StoreData>) -> Option<Rc<StoreShared>> {
    caller.data().this.upgrade()
}

/// A new store of `engine`.
#[no_mangle]
pub extern "C" fn wasm_store_new(engine: Option<&wasm_engine_t>) -> Option<Box<wasm_store_t>> {
    guard(
        || None,
        || {
            Some(Box::new(wasm_store_t {
                store: StoreShared::new(&engine?.engine, std::ptr::null_mut(), None),
            }))
        },
    )
}

/// Deletes a store (it lives on while objects of it do).
#[no_mangle]
pub extern "C" fn wasm_store_delete(store: Option<Box<wasm_store_t>>) {
    guard(|| (), || drop(store))
}

/// A new store of `engine` with host data `data` (finalized with the store).
#[no_mangle]
pub extern "C" fn weft_store_new(
    engine: Option<&wasm_engine_t>,
    data: *mut c_void,
    finalizer: Finalizer,
) -> Option<Box<weft_store_t>> {
    guard(
        || None,
        || {
            Some(Box::new(wasm_store_t {
                store: StoreShared::new(&engine?.engine, data, finalizer),
            }))
        },
    )
}

/// Deletes a store.
#[no_mangle]
pub extern "C" fn weft_store_delete(store: Option<Box<weft_store_t>>) {
    guard(|| (), || drop(store))
}

/// The store's context.
#[no_mangle]
pub extern "C" fn weft_store_context(store: Option<&weft_store_t>) -> *const weft_context_t {
    match store {
        Some(s) => Rc::as_ptr(&s.store),
        None => std::ptr::null(),
    }
}

/// Limits the store's growth and creations (negative: keep the default).
#[no_mangle]
pub extern "C" fn weft_store_limiter(
    store: Option<&weft_store_t>,
    memory_size: i64,
    table_elements: i64,
    instances: i64,
    tables: i64,
    memories: i64,
) {
    guard(
        || (),
        || {
            let Some(s) = store else { return };
            let or = |v: i64, d: usize| if v >= 0 { v as usize } else { d };
            let limits = Limits {
                memory_size: (memory_size >= 0).then_some(memory_size as usize),
                table_elements: (table_elements >= 0).then_some(table_elements as usize),
                instances: or(instances, weft::DEFAULT_INSTANCE_LIMIT),
                tables: or(tables, weft::DEFAULT_TABLE_LIMIT),
                memories: or(memories, weft::DEFAULT_MEMORY_LIMIT),
            };
            // SAFETY: no context of this store is in use in this function.
            if let Some(store) = unsafe { s.store.store_mut() } {
                store.data_mut().limits = limits;
                store.limiter(|data| &mut data.limits);
            }
        },
    )
}

/// The limits of `weft_store_limiter`.
pub(crate) struct Limits {
    memory_size: Option<usize>,
    table_elements: Option<usize>,
    instances: usize,
    tables: usize,
    memories: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            memory_size: None,
            table_elements: None,
            instances: weft::DEFAULT_INSTANCE_LIMIT,
            tables: weft::DEFAULT_TABLE_LIMIT,
            memories: weft::DEFAULT_MEMORY_LIMIT,
        }
    }
}

impl weft::ResourceLimiter for Limits {
    fn memory_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> weft::Result<bool> {
        Ok(self.memory_size.is_none_or(|m| desired <= m))
    }
    fn table_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> weft::Result<bool> {
        Ok(self.table_elements.is_none_or(|m| desired <= m))
    }
    fn instances(&self) -> usize {
        self.instances
    }
    fn tables(&self) -> usize {
        self.tables
    }
    fn memories(&self) -> usize {
        self.memories
    }
}

/// The store's host data.
#[no_mangle]
pub extern "C" fn weft_context_get_data(context: Option<&weft_context_t>) -> *mut c_void {
    guard(std::ptr::null_mut, || match context {
        // SAFETY: a context used only inside this function.
        Some(c) => unsafe { c.ctx() }.data().data,
        None => std::ptr::null_mut(),
    })
}

/// Replaces the store's host data (the finalizer runs on the new data when
/// the store is deleted).
#[no_mangle]
pub extern "C" fn weft_context_set_data(context: Option<&weft_context_t>, data: *mut c_void) {
    guard(
        || (),
        || {
            if let Some(c) = context {
                // SAFETY: a context used only inside this function.
                unsafe { c.ctx() }.data_mut().data = data;
            }
        },
    )
}

/// Collects the store's GC heap (objects no root reaches).
#[no_mangle]
pub extern "C" fn weft_context_gc(context: Option<&weft_context_t>) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let c = context.ok_or_else(|| crate::null_error("context"))?;
        // SAFETY: a context used only inside this function.
        unsafe { c.ctx() }.gc(None)?;
        Ok(())
    })
}

/// Sets the fuel of the store (fails unless fuel is configured).
#[no_mangle]
pub extern "C" fn weft_context_set_fuel(context: Option<&weft_context_t>, fuel: u64) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let c = context.ok_or_else(|| crate::null_error("context"))?;
        // SAFETY: a context used only inside this function.
        unsafe { c.ctx() }.set_fuel(fuel)
    })
}

/// The fuel left in the store (fails unless fuel is configured).
#[no_mangle]
pub extern "C" fn weft_context_get_fuel(
    context: Option<&weft_context_t>,
    fuel: Option<&mut u64>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let c = context.ok_or_else(|| crate::null_error("context"))?;
        // SAFETY: a context used only inside this function.
        let left = unsafe { c.ctx() }.get_fuel()?;
        if let Some(f) = fuel {
            *f = left;
        }
        Ok(())
    })
}

/// Sets the epoch deadline `ticks_beyond_current` ticks from now.
#[no_mangle]
pub extern "C" fn weft_context_set_epoch_deadline(context: Option<&weft_context_t>, ticks_beyond_current: u64) {
    guard(
        || (),
        || {
            if let Some(c) = context {
                // SAFETY: a context used only inside this function.
                unsafe { c.ctx() }.set_epoch_deadline(ticks_beyond_current);
            }
        },
    )
}

/// `weft_update_deadline_kind_t`: continue or yield at an epoch deadline.
pub type weft_update_deadline_kind_t = u8;

/// The epoch deadline callback of `weft_store_epoch_deadline_callback`.
pub type weft_epoch_deadline_callback_t = Option<
    unsafe extern "C" fn(
        context: *const weft_context_t,
        data: *mut c_void,
        epoch_deadline_delta: *mut u64,
        update_kind: *mut weft_update_deadline_kind_t,
    ) -> Option<Box<weft_error_t>>,
>;

/// Calls `func` at each epoch deadline: it returns an error to stop wasm,
/// or sets the next deadline (and whether to yield).
#[no_mangle]
pub extern "C" fn weft_store_epoch_deadline_callback(
    store: Option<&weft_store_t>,
    func: weft_epoch_deadline_callback_t,
    data: *mut c_void,
    finalizer: Finalizer,
) {
    guard(
        || (),
        || {
            let env = HostEnv::new(data, finalizer);
            let Some(s) = store else { return };
            let Some(func) = func else { return };
            let this = crate::AssertSendSync(Rc::downgrade(&s.store));
            // SAFETY: no context of this store is in use in this function.
            if let Some(store) = unsafe { s.store.store_mut() } {
                store.epoch_deadline_callback(move |mut cx| {
                    let mut delta = 0u64;
                    let mut kind: weft_update_deadline_kind_t = 0;
                    let this = &this;
                    let shared = this.0.upgrade().ok_or_else(|| anyhow::anyhow!("store is gone"))?;
                    let scope = CallerScope::enter_context(&shared, &mut cx);
                    // SAFETY: the host's callback, with its data, a context
                    // pointer valid for the store's life and two out-params
                    // that live across the call.
                    let err = unsafe { func(Rc::as_ptr(&shared), env.data(), &mut delta, &mut kind) };
                    drop(scope);
                    if let Some(e) = err {
                        return Err(e.error);
                    }
                    Ok(if kind == 1 {
                        weft::UpdateDeadline::Yield(delta)
                    } else {
                        weft::UpdateDeadline::Continue(delta)
                    })
                });
            }
        },
    )
}

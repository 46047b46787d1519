//! Functions: wasm functions of instances and host functions.

use crate::store::{AsContext, AsContextMut, Caller, StoreContextMut, StoreId, StoreInner, StoreOpaque};
use crate::types::{FuncType, ValType};
use crate::values::{ExternRef, Rooted, Val, V128};
use std::marker::PhantomData;
use std::sync::Arc;
use weft_runtime::{CodePtr, FuncRefPtr, HostCaller, ValRaw};

/// A function of a store: a wasm function of an instance or a host function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Func {
    pub(crate) store: StoreId,
    pub(crate) index: u32,
}

/// What a store knows about one of its functions.
pub(crate) struct FuncData {
    pub(crate) func_ref: FuncRefPtr,
    /// Its type; read it with [`FuncData::ty`].
    pub(crate) ty: FuncTy,
    /// The array-call trampoline of a wasm function.
    pub(crate) trampoline: Option<CodePtr>,
    /// Where the store keeps a host function's closure (a
    /// `HostClosure<T>`).
    pub(crate) host: Option<weft_runtime::HostFuncSlot>,
}

/// Where a store function's type is kept.
pub(crate) enum FuncTy {
    /// A host function's own.
    Host(Arc<FuncType>),
    /// A wasm function's: type `index` of the module of the store's
    /// instance `instance`, which every function of that type in every
    /// instance shares. Instantiation writes two numbers per function and
    /// touches no reference count.
    Wasm { instance: u32, index: u32 },
}

impl FuncData {
    /// The function's type.
    pub(crate) fn ty<'a>(&'a self, store: &'a StoreOpaque) -> crate::Result<&'a Arc<FuncType>> {
        match &self.ty {
            FuncTy::Host(ty) => Ok(ty),
            FuncTy::Wasm { instance, index } => store
                .instances
                .get(*instance as usize)
                .and_then(|i| i.module.inner.func_types(&i.module).get(*index as usize))
                .ok_or_else(func_not_found),
        }
    }
}

pub(crate) type HostClosure<T> = weft_runtime::HostFunc<StoreInner<T>>;

/// Calls with at most this many parameters or results pass their values in
/// a buffer on the stack.
const INLINE_VALUES: usize = 16;

#[cold]
fn func_not_found() -> crate::Error {
    crate::format_err!("function not found in store")
}

impl Func {
    pub(crate) fn from_store_index(store: StoreId, index: u32) -> Func {
        Func { store, index }
    }

    /// A host function of type `ty` that calls `func` with the arguments and
    /// a slice for the results.
    pub fn new<T: 'static>(
        mut store: impl AsContextMut<Data = T>,
        ty: FuncType,
        func: impl Fn(Caller<'_, T>, &[Val], &mut [Val]) -> crate::Result<()> + Send + Sync + 'static,
    ) -> Func {
        let ty = Arc::new(ty);
        let host = host_closure_dynamic(ty.clone(), func);
        new_host_with(store.as_context_mut().0, ty, host, None)
    }

    /// A host function from a Rust closure whose parameters and results are
    /// wasm types, optionally taking a leading [`Caller`].
    pub fn wrap<T: 'static, Params, Results>(
        mut store: impl AsContextMut<Data = T>,
        func: impl IntoFunc<T, Params, Results>,
    ) -> Func {
        let store = store.as_context_mut().0;
        let engine = store.opaque.engine.clone();
        let (ty, host) = func.into_func(&engine);
        new_host(store, ty, host)
    }

    /// The type of the function.
    pub fn ty(&self, store: impl AsContext) -> FuncType {
        let store = store.as_context();
        match self.func_ty(store.0.opaque()) {
            Ok(ty) => (**ty).clone(),
            Err(_) => FuncType::new(store.engine(), [], []),
        }
    }

    /// The function's type, as the store keeps it.
    pub(crate) fn func_ty<'a>(&self, store: &'a StoreOpaque) -> crate::Result<&'a Arc<FuncType>> {
        self.data(store)?.ty(store)
    }

    #[inline]
    pub(crate) fn data<'a>(&self, store: &'a StoreOpaque) -> crate::Result<&'a FuncData> {
        store.check(self.store, "function")?;
        match store.funcs.get(self.index as usize) {
            Some(data) => Ok(data),
            None => Err(func_not_found()),
        }
    }

    /// Calls the function with `params`, writing its results to `results`.
    ///
    /// Fails when the arguments do not match the function's type in number
    /// or types, when a value belongs to another store, or when the call
    /// traps (the error then downcasts to [`crate::Trap`]).
    pub fn call(&self, mut store: impl AsContextMut, params: &[Val], results: &mut [Val]) -> crate::Result<()> {
        let store = store.as_context_mut().0;
        let ty = self.func_ty(&store.opaque)?;
        let (n_params, n_results) = (ty.params().len(), ty.results().len());
        if params.len() != n_params {
            crate::bail!("expected {} arguments, got {}", n_params, params.len());
        }
        if results.len() != n_results {
            crate::bail!("expected {} results, got {}", n_results, results.len());
        }
        // Up to `INLINE_VALUES` values live on the stack: no allocation per call.
        let n = n_params.max(n_results).max(1);
        let mut inline = [ValRaw::default(); INLINE_VALUES];
        let mut heap = Vec::new();
        let values: &mut [ValRaw] = if n <= INLINE_VALUES {
            &mut inline[..n]
        } else {
            heap.resize(n, ValRaw::default());
            &mut heap
        };
        for (i, (p, t)) in params.iter().zip(ty.params()).enumerate() {
            values[i] = p
                .to_raw(&store.opaque, &t)
                .map_err(|e| e.context(format!("argument {i} of the call")))?;
        }
        self.call_raw(store, values)?;
        let ty = self.func_ty(&store.opaque)?;
        for (i, t) in ty.results().enumerate() {
            results[i] = Val::from_raw(&store.opaque, values[i], &t);
        }
        Ok(())
    }

    /// Calls with lowered values (arguments in, results out).
    pub(crate) fn call_raw<T: 'static>(&self, store: &mut StoreInner<T>, values: &mut [ValRaw]) -> crate::Result<()> {
        let data = self.data(&store.opaque)?;
        if let Some(slot) = data.host {
            let host = store
                .opaque
                .objects
                .host_func::<StoreInner<T>>(slot)
                .ok_or_else(|| crate::format_err!("host function belongs to a store of another type"))?;
            return host.call(store, u32::MAX, values);
        }
        let func_ref = data.func_ref;
        let trampoline = data
            .trampoline
            .ok_or_else(|| crate::format_err!("function has no entry trampoline"))?;
        store.invoke(func_ref, trampoline, values)
    }

    /// A typed view of the function; fails when `Params` and `Results` do not
    /// match its type.
    pub fn typed<Params: WasmParams, Results: WasmResults>(
        &self,
        store: impl AsContext,
    ) -> crate::Result<TypedFunc<Params, Results>> {
        let store = store.as_context();
        let ty = self.func_ty(store.0.opaque())?.clone();
        let params = Params::types();
        let results = Results::types();
        // A GC reference of an abstract type (`Rooted<StructRef>`) may be
        // given for a parameter of a concrete type (`(ref $t)`), as in
        // Wasmtime: each call then checks the value's type.
        let mut check_gc_params = false;
        let ok = params.len() == ty.params().len()
            && results.len() == ty.results().len()
            && ty.params().zip(&params).all(|(actual, want)| {
                want.matches(&actual)
                    || match (&actual, want) {
                        (ValType::Ref(a), ValType::Ref(w)) if is_concrete_gc(a) => {
                            let fits = a.heap_type().matches(w.heap_type());
                            check_gc_params |= fits;
                            fits
                        }
                        _ => false,
                    }
            })
            && ty.results().zip(&results).all(|(actual, want)| actual.matches(want));
        if !ok {
            crate::bail!(
                "type mismatch with parameters or results: the function has type {ty}, but the typed view is {}",
                FuncType::new(store.engine(), params, results)
            );
        }
        let data = self.data(store.0.opaque())?;
        let entry = match (&data.host, data.trampoline) {
            (None, Some(trampoline)) => Some((data.func_ref, trampoline)),
            _ => None,
        };
        Ok(TypedFunc {
            func: *self,
            entry,
            check_gc_params,
            _marker: PhantomData,
        })
    }
}

/// The canonical type id and wasm-to-host trampoline of a host function.
pub(crate) type HostTrampoline = (weft_types::VMSharedTypeIndex, CodePtr);

pub(crate) fn new_host<T: 'static>(store: &mut StoreInner<T>, ty: FuncType, host: HostClosure<T>) -> Func {
    new_host_with(store, Arc::new(ty), host, None)
}

/// A host function of the store; `cache` keeps its trampoline (of the
/// store's engine) across calls, as a linker does for each definition.
pub(crate) fn new_host_with<T: 'static>(
    store: &mut StoreInner<T>,
    ty: Arc<FuncType>,
    host: HostClosure<T>,
    cache: Option<&std::sync::OnceLock<HostTrampoline>>,
) -> Func {
    let index = store.opaque.funcs.len() as u32;
    let engine = &store.opaque.engine;
    let resolve = || match engine.host_trampoline(ty.as_wasm()) {
        Ok(t) => t,
        // Without a trampoline wasm cannot call the function; a poisoned
        // entry keeps host calls working and makes linking it an error.
        Err(_) => (weft_types::VMSharedTypeIndex(u32::MAX), weft_runtime::CodePtr::null()),
    };
    let (type_id, trampoline) = match cache {
        Some(cache) => *cache.get_or_init(resolve),
        None => resolve(),
    };
    let (func_ref, slot) = store
        .opaque
        .objects
        .add_host_func::<StoreInner<T>>(type_id.0, trampoline, index, host);
    store.opaque.funcs.push(FuncData {
        func_ref,
        ty: FuncTy::Host(ty),
        trampoline: None,
        host: Some(slot),
    });
    Func {
        store: store.opaque.id(),
        index,
    }
}

/// The host closure of a `Func::new` function.
pub(crate) fn host_closure_dynamic<T: 'static>(
    ty: Arc<FuncType>,
    func: impl Fn(Caller<'_, T>, &[Val], &mut [Val]) -> crate::Result<()> + Send + Sync + 'static,
) -> HostClosure<T> {
    weft_runtime::HostFunc::new(
        move |store: &mut StoreInner<T>, caller: HostCaller, values: &mut [ValRaw]| {
            // The call is a root scope of its own: the handles of its
            // reference parameters stop rooting when it returns.
            let depth = store.opaque.objects.context().host_roots_depth();
            let r = dynamic_host_call(&ty, &func, store, caller, values);
            store.opaque.objects.context().truncate_host_roots(depth);
            r
        },
    )
}

/// Calls the `Func::new` closure `func` of type `ty` with the raw
/// arguments in `values`, and writes its results back there.
fn dynamic_host_call<T: 'static>(
    ty: &FuncType,
    func: &impl Fn(Caller<'_, T>, &[Val], &mut [Val]) -> crate::Result<()>,
    store: &mut StoreInner<T>,
    caller: HostCaller,
    values: &mut [ValRaw],
) -> crate::Result<()> {
    let params: Vec<Val> = ty
        .params()
        .enumerate()
        .map(|(i, t)| Val::from_raw(&store.opaque, values[i], &t))
        .collect();
    let mut results: Vec<Val> = ty
        .results()
        .map(|t| Val::default_for_ty(&t).unwrap_or(Val::I32(0)))
        .collect();
    let caller_instance = store.opaque.instance_by_runtime_index(caller.instance);
    func(
        Caller {
            store: StoreContextMut(&mut *store),
            caller: caller_instance,
        },
        &params,
        &mut results,
    )?;
    for (i, (r, t)) in results.iter().zip(ty.results()).enumerate() {
        values[i] = r
            .to_raw(&store.opaque, &t)
            .map_err(|e| e.context(format!("result {i} of a host function")))?;
    }
    Ok(())
}

/// A host function of the store whose parameters and results are numbers
/// (`i32`, `i64`, `f32`, `f64`), seen by `func` as their bits zero-extended
/// to 64 (as the canonical ABI's flat values), with at most one result:
/// the component model's built-ins, called without making a [`Val`] of
/// each argument.
#[cfg(feature = "component-model-async")]
pub(crate) fn new_flat_host<T: 'static>(
    store: &mut StoreInner<T>,
    ty: FuncType,
    func: impl Fn(StoreContextMut<'_, T>, &[u64]) -> crate::Result<Option<u64>> + Send + Sync + 'static,
) -> Func {
    let host = flat_host_closure(ty.params().collect(), ty.results().next(), move |store, _, args| {
        func(store, args)
    });
    new_host(store, ty, host)
}

/// The closure of a host function with parameters `params` and result
/// `result`, all numbers, as [`new_flat_host`] describes: the built-ins, and
/// the typed host functions a component lowers (which share the closure
/// between instances, each function telling `func` its own state by the
/// word it gets: [`HostCaller::data`]).
#[cfg(feature = "component-model")]
pub(crate) fn flat_host_closure<T: 'static>(
    params: Arc<[ValType]>,
    result: Option<ValType>,
    func: impl Fn(StoreContextMut<'_, T>, usize, &[u64]) -> crate::Result<Option<u64>> + Send + Sync + 'static,
) -> HostClosure<T> {
    weft_runtime::HostFunc::new(
        move |store: &mut StoreInner<T>, caller: HostCaller, values: &mut [ValRaw]| {
            let mut inline = [0u64; INLINE_VALUES];
            let mut spilled = Vec::new();
            let args = if params.len() <= INLINE_VALUES {
                &mut inline[..params.len()]
            } else {
                spilled.resize(params.len(), 0);
                &mut spilled[..]
            };
            for ((slot, raw), t) in args.iter_mut().zip(values.iter()).zip(params.iter()) {
                *slot = match t {
                    ValType::I32 => u64::from(raw.get_i32() as u32),
                    ValType::I64 => raw.get_i64() as u64,
                    ValType::F32 => u64::from(raw.get_f32()),
                    ValType::F64 => raw.get_f64(),
                    _ => crate::bail!("a host function of flat values takes numbers only"),
                };
            }
            // A root scope of its own, as for other host calls.
            let depth = store.opaque.objects.context().host_roots_depth();
            let out = func(StoreContextMut(&mut *store), caller.data, args);
            store.opaque.objects.context().truncate_host_roots(depth);
            if let (Some(t), Some(v), Some(slot)) = (&result, out?, values.first_mut()) {
                *slot = match t {
                    ValType::I32 => ValRaw::i32(v as u32 as i32),
                    ValType::I64 => ValRaw::i64(v as i64),
                    ValType::F32 => ValRaw::f32(v as u32),
                    ValType::F64 => ValRaw::f64(v),
                    _ => crate::bail!("a host function of flat values returns numbers only"),
                };
            }
            Ok(())
        },
    )
}

/// Whether `r` is a reference to a concrete struct or array type.
fn is_concrete_gc(r: &crate::RefType) -> bool {
    r.heap_type().as_concrete_struct().is_some() || r.heap_type().as_concrete_array().is_some()
}

/// A function with statically known parameter and result types.
pub struct TypedFunc<Params, Results> {
    func: Func,
    /// A wasm function's reference and entry trampoline, read when the
    /// view was made: a call in the function's own store (checked each
    /// time) goes straight to them. They stay valid as long as the store.
    entry: Option<(FuncRefPtr, CodePtr)>,
    /// Whether a parameter of a concrete GC type is given as a reference
    /// of an abstract type, whose type each call checks.
    check_gc_params: bool,
    _marker: PhantomData<fn(Params) -> Results>,
}

impl<P, R> Clone for TypedFunc<P, R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P, R> Copy for TypedFunc<P, R> {}

impl<Params: WasmParams, Results: WasmResults> TypedFunc<Params, Results> {
    /// The `Func` this typed view calls.
    pub fn func(&self) -> &Func {
        &self.func
    }

    /// Calls the function.
    pub fn call(&self, mut store: impl AsContextMut, params: Params) -> crate::Result<Results> {
        let store = store.as_context_mut().0;
        // Typed lists have at most 16 values (`WasmParams` is implemented for
        // tuples of up to 16), so the values always fit on the stack. `n` is
        // a constant of the types: one branch is left, which clears at most
        // twice the slots the list needs.
        let n = Params::COUNT.max(Results::COUNT).max(1);
        if n <= 2 {
            self.call_in(store, params, &mut [ValRaw::default(); 2][..n])
        } else if n <= 4 {
            self.call_in(store, params, &mut [ValRaw::default(); 4][..n])
        } else if n <= 8 {
            self.call_in(store, params, &mut [ValRaw::default(); 8][..n])
        } else {
            self.call_in(store, params, &mut [ValRaw::default(); INLINE_VALUES][..n])
        }
    }

    #[inline]
    fn call_in<T: 'static>(
        &self,
        store: &mut StoreInner<T>,
        params: Params,
        values: &mut [ValRaw],
    ) -> crate::Result<Results> {
        params.store(&store.opaque, values)?;
        if self.check_gc_params {
            self.check_gc_params(&store.opaque, values)?;
        }
        match self.entry {
            Some((func_ref, trampoline)) if store.opaque.id() == self.func.store => {
                store.invoke(func_ref, trampoline, values)?
            }
            _ => self.func.call_raw(store, values)?,
        }
        Ok(Results::load(&store.opaque, values))
    }

    /// Checks that each argument for a parameter of a concrete GC type is
    /// of that type (a struct of another type would be read with the
    /// wrong layout).
    fn check_gc_params(&self, store: &StoreOpaque, values: &[ValRaw]) -> crate::Result<()> {
        let ty = self.func.func_ty(store)?.clone();
        for (i, (param, raw)) in ty.params().zip(values).enumerate() {
            if let ValType::Ref(r) = &param {
                if is_concrete_gc(r) && !store.gc_word_is_of(raw.get_word() as u64, r) {
                    crate::bail!("argument {i} of the call is not of the parameter's type {param}");
                }
            }
        }
        Ok(())
    }
}

/// A Rust type that is a wasm value type.
pub trait WasmTy: Send + Sized + 'static {
    /// Whether a value of the type may be a reference, which a host
    /// function's call roots while it runs (`true` unless the type is a
    /// number or a vector: a host function whose parameters are all
    /// numbers does no rooting work at all).
    const MAY_BE_REF: bool = true;

    /// The wasm type.
    fn valtype() -> ValType;
    /// Lowers the value for `store`.
    fn into_raw(self, store: &StoreOpaque) -> crate::Result<ValRaw>;
    /// Lifts a value of `store`.
    fn from_raw(store: &StoreOpaque, raw: ValRaw) -> Self;
    /// Lowers the value for `store` into `slot`. Numbers write only their
    /// own width (the reader reads that width), which makes a typed call's
    /// argument list one narrow store per value.
    #[doc(hidden)]
    #[inline]
    fn store_raw(self, store: &StoreOpaque, slot: &mut ValRaw) -> crate::Result<()> {
        *slot = self.into_raw(store)?;
        Ok(())
    }
}

macro_rules! num_wasm_ty {
    ($($t:ty => $vt:ident, |$v:ident| $to:expr, $set:ident($arg:expr), |$r:ident| $from:expr;)*) => {$(
        impl WasmTy for $t {
            const MAY_BE_REF: bool = false;
            fn valtype() -> ValType {
                ValType::$vt
            }
            #[inline]
            fn into_raw(self, _store: &StoreOpaque) -> crate::Result<ValRaw> {
                let $v = self;
                Ok($to)
            }
            #[inline]
            fn store_raw(self, _store: &StoreOpaque, slot: &mut ValRaw) -> crate::Result<()> {
                let $v = self;
                slot.$set($arg);
                Ok(())
            }
            #[inline]
            fn from_raw(_store: &StoreOpaque, raw: ValRaw) -> Self {
                let $r = raw;
                $from
            }
        }
    )*};
}

num_wasm_ty! {
    i32 => I32, |v| ValRaw::i32(v), set_i32(v), |r| r.get_i32();
    u32 => I32, |v| ValRaw::i32(v as i32), set_i32(v as i32), |r| r.get_i32() as u32;
    i64 => I64, |v| ValRaw::i64(v), set_i64(v), |r| r.get_i64();
    u64 => I64, |v| ValRaw::i64(v as i64), set_i64(v as i64), |r| r.get_i64() as u64;
    f32 => F32, |v| ValRaw::f32(v.to_bits()), set_f32(v.to_bits()), |r| f32::from_bits(r.get_f32());
    f64 => F64, |v| ValRaw::f64(v.to_bits()), set_f64(v.to_bits()), |r| f64::from_bits(r.get_f64());
}

impl WasmTy for V128 {
    const MAY_BE_REF: bool = false;
    fn valtype() -> ValType {
        ValType::V128
    }
    fn into_raw(self, _store: &StoreOpaque) -> crate::Result<ValRaw> {
        Ok(ValRaw::v128(self.as_u128()))
    }
    fn from_raw(_store: &StoreOpaque, raw: ValRaw) -> Self {
        V128::from(raw.get_v128())
    }
}

impl WasmTy for Option<Func> {
    fn valtype() -> ValType {
        ValType::FUNCREF
    }
    fn into_raw(self, store: &StoreOpaque) -> crate::Result<ValRaw> {
        Val::FuncRef(self).to_raw(store, &ValType::FUNCREF)
    }
    fn from_raw(store: &StoreOpaque, raw: ValRaw) -> Self {
        Val::from_raw(store, raw, &ValType::FUNCREF)
            .func_ref()
            .flatten()
            .copied()
    }
}

impl WasmTy for Option<Rooted<ExternRef>> {
    fn valtype() -> ValType {
        ValType::EXTERNREF
    }
    fn into_raw(self, store: &StoreOpaque) -> crate::Result<ValRaw> {
        Val::ExternRef(self).to_raw(store, &ValType::EXTERNREF)
    }
    fn from_raw(store: &StoreOpaque, raw: ValRaw) -> Self {
        Val::from_raw(store, raw, &ValType::EXTERNREF)
            .extern_ref()
            .flatten()
            .copied()
    }
}

/// A list of wasm values: `()`, a single [`WasmTy`], or a tuple of them.
pub trait WasmParams: Send + Sized {
    /// The number of values.
    #[doc(hidden)]
    const COUNT: usize;
    /// The wasm types, in order.
    fn types() -> Vec<ValType>;
    /// Lowers the values into `out`.
    fn store(self, store: &StoreOpaque, out: &mut [ValRaw]) -> crate::Result<()>;
    /// Lifts the values from `vals`.
    fn load(store: &StoreOpaque, vals: &[ValRaw]) -> Self;
}

/// The results of a typed function (the same lists as [`WasmParams`]).
pub trait WasmResults: WasmParams {}
impl<T: WasmParams> WasmResults for T {}

impl<A: WasmTy> WasmParams for A {
    const COUNT: usize = 1;
    fn types() -> Vec<ValType> {
        vec![A::valtype()]
    }
    #[inline]
    fn store(self, store: &StoreOpaque, out: &mut [ValRaw]) -> crate::Result<()> {
        let Some(slot) = out.first_mut() else {
            crate::bail!("a typed call has 1 value for 0 slots");
        };
        self.store_raw(store, slot)
    }
    #[inline]
    fn load(store: &StoreOpaque, vals: &[ValRaw]) -> Self {
        A::from_raw(store, vals[0])
    }
}

macro_rules! tuple_params {
    ($(($($t:ident $i:tt),*);)*) => {$(
        impl<$($t: WasmTy),*> WasmParams for ($($t,)*) {
            const COUNT: usize = <[&str]>::len(&[$(stringify!($t)),*]);
            fn types() -> Vec<ValType> {
                vec![$($t::valtype()),*]
            }
            #[allow(unused_variables, reason = "the macro expands for every arity, zero included")]
            #[inline]
            fn store(self, store: &StoreOpaque, out: &mut [ValRaw]) -> crate::Result<()> {
                // One length check for the list, not one per value.
                let Some(out) = out.get_mut(..Self::COUNT) else {
                    crate::bail!("a typed call has {} values for {} slots", Self::COUNT, out.len());
                };
                $(self.$i.store_raw(store, &mut out[$i])?;)*
                Ok(())
            }
            #[allow(unused_variables, clippy::unused_unit, reason = "the macro expands for every arity, zero included")]
            #[inline]
            fn load(store: &StoreOpaque, vals: &[ValRaw]) -> Self {
                ($($t::from_raw(store, vals[$i]),)*)
            }
        }
    )*};
}

tuple_params! {
    ();
    (A 0);
    (A 0, B 1);
    (A 0, B 1, C 2);
    (A 0, B 1, C 2, D 3);
    (A 0, B 1, C 2, D 3, E 4);
    (A 0, B 1, C 2, D 3, E 4, F 5);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13, O 14);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13, O 14, P 15);
}

/// What a host closure may return: values, a tuple, `()`, or a `Result` of
/// those.
pub trait WasmRet {
    /// The values returned on success.
    type Ok: WasmParams;
    /// Into a `Result`.
    fn into_result(self) -> crate::Result<Self::Ok>;
}

impl<T: WasmParams> WasmRet for T {
    type Ok = T;
    fn into_result(self) -> crate::Result<T> {
        Ok(self)
    }
}

impl<T: WasmParams> WasmRet for crate::Result<T> {
    type Ok = T;
    fn into_result(self) -> crate::Result<T> {
        self
    }
}

/// Closures that can become host functions (see [`Func::wrap`]).
pub trait IntoFunc<T: 'static, Params, Results>: Send + Sync + 'static {
    #[doc(hidden)]
    fn into_func(self, engine: &crate::Engine) -> (FuncType, HostClosure<T>);
}

/// Binds each argument of a host function, named after its type
/// parameter, from the values array, with one length check for all.
macro_rules! load_args {
    ($store:ident, $values:ident; $($t:ident),*) => {
        #[allow(
            non_snake_case,
            irrefutable_let_patterns,
            reason = "the type parameters double as variable names; with none the pattern always matches"
        )]
        let [$($t,)* ..] = &*$values else {
            crate::bail!("internal error: too few values for a host function's arguments");
        };
        $(#[allow(non_snake_case, reason = "the type parameters double as variable names")] let $t = $t::from_raw(&$store.opaque, *$t);)*
    };
}

macro_rules! into_func {
    ($(($($t:ident),*);)*) => {$(
        impl<T: 'static, Func_, R, $($t: WasmTy),*> IntoFunc<T, ($($t,)*), R> for Func_
        where
            Func_: Fn($($t),*) -> R + Send + Sync + 'static,
            R: WasmRet,
        {
            fn into_func(self, engine: &crate::Engine) -> (FuncType, HostClosure<T>) {
                let ty = FuncType::new(engine, vec![$($t::valtype()),*], R::Ok::types());
                let host = weft_runtime::HostFunc::new(move |store: &mut StoreInner<T>, _caller: HostCaller, values: &mut [ValRaw]| {
                    // Known when the shim is compiled: numbers need no roots.
                    let has_refs = false $(|| $t::MAY_BE_REF)*;
                    let depth = has_refs.then(|| store.opaque.objects.context().host_roots_depth());
                    load_args!(store, values; $($t),*);
                    let r = self($($t),*).into_result();
                    if let Some(depth) = depth {
                        store.opaque.objects.context().truncate_host_roots(depth);
                    }
                    r?.store(&store.opaque, values)
                });
                (ty, host)
            }
        }

        impl<T: 'static, Func_, R, $($t: WasmTy),*> IntoFunc<T, (Caller<'_, T>, $($t,)*), R> for Func_
        where
            Func_: Fn(Caller<'_, T>, $($t),*) -> R + Send + Sync + 'static,
            R: WasmRet,
        {
            fn into_func(self, engine: &crate::Engine) -> (FuncType, HostClosure<T>) {
                let ty = FuncType::new(engine, vec![$($t::valtype()),*], R::Ok::types());
                let host = weft_runtime::HostFunc::new(move |store: &mut StoreInner<T>, caller: HostCaller, values: &mut [ValRaw]| {
                    // Known when the shim is compiled: numbers need no roots.
                    let has_refs = false $(|| $t::MAY_BE_REF)*;
                    let depth = has_refs.then(|| store.opaque.objects.context().host_roots_depth());
                    load_args!(store, values; $($t),*);
                    let caller_instance = store.opaque.instance_by_runtime_index(caller.instance);
                    let r = self(Caller { store: StoreContextMut(&mut *store), caller: caller_instance }, $($t),*).into_result();
                    if let Some(depth) = depth {
                        store.opaque.objects.context().truncate_host_roots(depth);
                    }
                    r?.store(&store.opaque, values)
                });
                (ty, host)
            }
        }
    )*};
}

into_func! {
    ();
    (A);
    (A, B);
    (A, B, C);
    (A, B, C, D);
    (A, B, C, D, E);
    (A, B, C, D, E, F);
    (A, B, C, D, E, F, G);
    (A, B, C, D, E, F, G, H);
    (A, B, C, D, E, F, G, H, I);
    (A, B, C, D, E, F, G, H, I, J);
    (A, B, C, D, E, F, G, H, I, J, K);
    (A, B, C, D, E, F, G, H, I, J, K, L);
}

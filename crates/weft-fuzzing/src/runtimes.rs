//! The two engines behind one small interface: Weft, the engine under test,
//! and wasmi, the reference interpreter.

use crate::value::{Failure, Outcome, Trap, Value, ValueType};

/// What the differential oracle needs from an engine: instantiate a module
/// without imports, call its exports, and read its exported state.
pub trait Runtime {
    /// The engine's name, for reports.
    fn name(&self) -> &'static str;
    /// Compiles and instantiates `wasm` (running its start function),
    /// replacing any previous instance.
    fn instantiate(&mut self, wasm: &[u8]) -> Result<(), Failure>;
    /// Calls the exported function `name` with `args`.
    fn call(&mut self, name: &str, args: &[Value], results: &[ValueType]) -> Outcome;
    /// The value of the exported global `name`.
    fn global(&mut self, name: &str) -> Option<Value>;
    /// Sets the exported global `name`; false when that fails.
    fn set_global(&mut self, name: &str, value: Value) -> bool;
    /// The contents of the exported memory `name`.
    fn memory(&mut self, name: &str) -> Option<Vec<u8>>;
    /// The elements of the exported table `name`.
    fn table(&mut self, name: &str) -> Option<Vec<Value>>;
}

/// What the harness's host functions return for `args`: a hash of the
/// argument bits in every numeric result (so both engines must pass the
/// arguments exactly) and null references. The same on both engines.
pub fn host_results(args: &[Value], results: &[ValueType]) -> Vec<Value> {
    let mut h: u64 = 0x9e37_79b9;
    for a in args {
        let bits = match *a {
            Value::I32(x) => x as u32 as u64,
            Value::I64(x) => x as u64,
            Value::F32(x) => x as u64,
            Value::F64(x) => x,
            Value::FuncRef(x) => x as u64,
            Value::ExternRef(x) => x.map_or(u64::MAX, u64::from),
            Value::V128(x) => (x as u64) ^ (x >> 64) as u64,
        };
        h = (h ^ bits).wrapping_mul(0x100_0000_01b3).rotate_left(17);
    }
    results
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let h = h.wrapping_add(i as u64);
            match t {
                ValueType::I32 => Value::I32(h as i32),
                ValueType::I64 => Value::I64(h as i64),
                // Finite values, so no NaN payload question arises.
                ValueType::F32 => Value::F32(((h % 1000) as f32 / 8.0).to_bits()),
                ValueType::F64 => Value::F64(((h % 100_000) as f64 / 7.0).to_bits()),
                ValueType::FuncRef => Value::FuncRef(false),
                ValueType::ExternRef => Value::ExternRef(None),
                ValueType::V128 => Value::V128(((h as u128) << 64) | (h.rotate_left(7) as u128)),
            }
        })
        .collect()
}

/// The value of an imported global of type `ty` that the harness provides
/// (a small `i32`, as such globals often serve as segment offsets).
pub fn host_global_value(ty: ValueType) -> Value {
    match ty {
        ValueType::I32 => Value::I32(3),
        ValueType::I64 => Value::I64(-0x1234_5678_9abc),
        ValueType::F32 => Value::F32(1.5f32.to_bits()),
        ValueType::F64 => Value::F64((-2.25f64).to_bits()),
        ValueType::FuncRef => Value::FuncRef(false),
        ValueType::ExternRef => Value::ExternRef(None),
        ValueType::V128 => Value::V128(0x0123_4567_89ab_cdef_0011_2233_4455_6677),
    }
}

fn weft_value_type(ty: &weft::ValType) -> ValueType {
    match ty {
        weft::ValType::I32 => ValueType::I32,
        weft::ValType::I64 => ValueType::I64,
        weft::ValType::F32 => ValueType::F32,
        weft::ValType::F64 => ValueType::F64,
        weft::ValType::V128 => ValueType::V128,
        weft::ValType::Ref(r) if r.heap_type().is_extern() => ValueType::ExternRef,
        _ => ValueType::FuncRef,
    }
}

/// A Weft value without its store: extern references lose their payload.
fn weft_plain(val: &weft::Val) -> Value {
    match val {
        weft::Val::I32(x) => Value::I32(*x),
        weft::Val::I64(x) => Value::I64(*x),
        weft::Val::F32(x) => Value::F32(*x),
        weft::Val::F64(x) => Value::F64(*x),
        weft::Val::V128(x) => Value::V128(x.as_u128()),
        weft::Val::FuncRef(f) => Value::FuncRef(f.is_some()),
        weft::Val::ExternRef(r) => Value::ExternRef(r.map(|_| 0)),
        // The generators make no exception references; should one appear,
        // it reads as an opaque reference.
        weft::Val::ExnRef(r) => Value::ExternRef(r.map(|_| u32::MAX)),
        weft::Val::AnyRef(r) => Value::ExternRef(r.map(|_| u32::MAX)),
    }
}

/// A Weft value for a store-free [`Value`] (references are null).
fn weft_plain_val(value: Value) -> weft::Val {
    match value {
        Value::I32(x) => weft::Val::I32(x),
        Value::I64(x) => weft::Val::I64(x),
        Value::F32(x) => weft::Val::F32(x),
        Value::F64(x) => weft::Val::F64(x),
        Value::FuncRef(_) => weft::Val::FuncRef(None),
        Value::ExternRef(_) => weft::Val::ExternRef(None),
        Value::V128(x) => weft::Val::V128(x.into()),
    }
}

/// The harness's imports for a Weft module: host functions computing
/// [`host_results`], globals holding [`host_global_value`], and fresh
/// memories and tables of the imported types.
fn weft_imports(store: &mut weft::Store<()>, module: &weft::Module) -> weft::Result<Vec<weft::Extern>> {
    let mut imports = Vec::new();
    for import in module.imports() {
        imports.push(match import.ty() {
            weft::ExternType::Func(ty) => {
                let results: Vec<ValueType> = ty.results().map(|t| weft_value_type(&t)).collect();
                weft::Extern::Func(weft::Func::new(&mut *store, ty, move |_, params, out| {
                    let args: Vec<Value> = params.iter().map(weft_plain).collect();
                    for (slot, v) in out.iter_mut().zip(host_results(&args, &results)) {
                        *slot = weft_plain_val(v);
                    }
                    Ok(())
                }))
            }
            weft::ExternType::Global(ty) => {
                let value = weft_plain_val(host_global_value(weft_value_type(ty.content())));
                weft::Extern::Global(weft::Global::new(&mut *store, ty, value)?)
            }
            weft::ExternType::Memory(ty) if ty.is_shared() => {
                weft::Extern::SharedMemory(weft::SharedMemory::new(store.engine(), ty)?)
            }
            weft::ExternType::Memory(ty) => weft::Extern::Memory(weft::Memory::new(&mut *store, ty)?),
            weft::ExternType::Table(ty) => {
                let init = weft::Ref::null(ty.element().heap_type());
                weft::Extern::Table(weft::Table::new(&mut *store, ty, init)?)
            }
            weft::ExternType::Tag(ty) => weft::Extern::Tag(weft::Tag::new(&mut *store, &ty)?),
        });
    }
    Ok(imports)
}

/// The configuration of the fuzz targets' engines: Weft's defaults plus the
/// GC and threads proposals, which the generators use
/// (`GenOptions::gc`, `GenOptions::threads`). Here, below both the targets
/// and the differential oracle that use it.
pub fn fuzz_config() -> weft::Config {
    let mut config = weft::Config::new();
    config.wasm_gc(true).wasm_threads(true).shared_memory(true);
    config
}

/// Weft, configured as embedders get it by default.
pub struct WeftRuntime {
    engine: weft::Engine,
    store: weft::Store<()>,
    instance: Option<weft::Instance>,
    /// Whether a full collection (`Store::gc`) runs before every call, so
    /// that GC objects live in globals and tables are traced and kept.
    collect_before_calls: bool,
}

impl Default for WeftRuntime {
    fn default() -> Self {
        WeftRuntime::new(&weft::Config::new())
    }
}

impl WeftRuntime {
    /// A runtime with its own engine built from `config`.
    ///
    /// # Panics
    ///
    /// Panics if the configuration is rejected by [`weft::Engine::new`].
    pub fn new(config: &weft::Config) -> WeftRuntime {
        let engine = weft::Engine::new(config).expect("weft accepts the fuzzing configuration");
        let store = weft::Store::new(&engine, ());
        WeftRuntime {
            engine,
            store,
            instance: None,
            collect_before_calls: false,
        }
    }

    /// Makes the runtime run a full collection (`Store::gc`) before every
    /// call of an export.
    pub fn collecting_before_calls(mut self) -> WeftRuntime {
        self.collect_before_calls = true;
        self
    }

    fn val_to_engine(&mut self, value: Value) -> Result<weft::Val, Failure> {
        Ok(match value {
            Value::I32(x) => weft::Val::I32(x),
            Value::I64(x) => weft::Val::I64(x),
            Value::F32(x) => weft::Val::F32(x),
            Value::F64(x) => weft::Val::F64(x),
            Value::V128(x) => weft::Val::V128(x.into()),
            Value::FuncRef(_) => weft::Val::FuncRef(None),
            Value::ExternRef(None) => weft::Val::ExternRef(None),
            Value::ExternRef(Some(n)) => weft::Val::ExternRef(Some(
                weft::ExternRef::new(&mut self.store, n).map_err(|e| Failure::Error(format!("{e:#}")))?,
            )),
        })
    }

    fn val_from_engine(&self, val: &weft::Val) -> Value {
        match val {
            weft::Val::I32(x) => Value::I32(*x),
            weft::Val::I64(x) => Value::I64(*x),
            weft::Val::F32(x) => Value::F32(*x),
            weft::Val::F64(x) => Value::F64(*x),
            weft::Val::V128(x) => Value::V128(x.as_u128()),
            weft::Val::FuncRef(f) => Value::FuncRef(f.is_some()),
            weft::Val::ExternRef(None) => Value::ExternRef(None),
            weft::Val::ExnRef(r) => weft_plain(&weft::Val::ExnRef(*r)),
            weft::Val::AnyRef(r) => weft_plain(&weft::Val::AnyRef(*r)),
            weft::Val::ExternRef(Some(r)) => Value::ExternRef(Some(
                r.data(&self.store)
                    .ok()
                    .flatten()
                    .and_then(|d| d.downcast_ref::<u32>())
                    .copied()
                    .unwrap_or(u32::MAX),
            )),
        }
    }

    fn export(&mut self, name: &str) -> Option<weft::Extern> {
        self.instance?.get_export(&mut self.store, name)
    }
}

fn weft_failure(err: weft::Error) -> Failure {
    match err.downcast_ref::<weft::Trap>() {
        Some(trap) => Failure::Trap(*trap),
        None => Failure::Error(format!("{err:#}")),
    }
}

fn weft_default(ty: ValueType) -> weft::Val {
    match ty {
        ValueType::I32 => weft::Val::I32(0),
        ValueType::I64 => weft::Val::I64(0),
        ValueType::F32 => weft::Val::F32(0),
        ValueType::F64 => weft::Val::F64(0),
        ValueType::V128 => weft::Val::V128(0u128.into()),
        ValueType::FuncRef => weft::Val::FuncRef(None),
        ValueType::ExternRef => weft::Val::ExternRef(None),
    }
}

impl Runtime for WeftRuntime {
    fn name(&self) -> &'static str {
        "weft"
    }

    fn instantiate(&mut self, wasm: &[u8]) -> Result<(), Failure> {
        self.instance = None;
        self.store = weft::Store::new(&self.engine, ());
        let module = weft::Module::from_binary(&self.engine, wasm).map_err(|e| Failure::Error(format!("{e:#}")))?;
        let imports = weft_imports(&mut self.store, &module).map_err(|e| Failure::Error(format!("{e:#}")))?;
        let instance = weft::Instance::new(&mut self.store, &module, &imports).map_err(weft_failure)?;
        self.instance = Some(instance);
        Ok(())
    }

    fn call(&mut self, name: &str, args: &[Value], results: &[ValueType]) -> Outcome {
        let func = match self.export(name) {
            Some(weft::Extern::Func(f)) => f,
            _ => return Err(Failure::Error(format!("no exported function {name:?}"))),
        };
        let params = args
            .iter()
            .map(|a| self.val_to_engine(*a))
            .collect::<Result<Vec<_>, _>>()?;
        let mut out: Vec<weft::Val> = results.iter().map(|t| weft_default(*t)).collect();
        if self.collect_before_calls {
            self.store
                .gc(None)
                .map_err(|e| Failure::Error(format!("Store::gc failed: {e:#}")))?;
        }
        func.call(&mut self.store, &params, &mut out).map_err(weft_failure)?;
        Ok(out.iter().map(|v| self.val_from_engine(v)).collect())
    }

    fn global(&mut self, name: &str) -> Option<Value> {
        match self.export(name)? {
            weft::Extern::Global(g) => {
                let v = g.get(&mut self.store);
                Some(self.val_from_engine(&v))
            }
            _ => None,
        }
    }

    fn set_global(&mut self, name: &str, value: Value) -> bool {
        match (self.export(name), self.val_to_engine(value)) {
            (Some(weft::Extern::Global(g)), Ok(v)) => g.set(&mut self.store, v).is_ok(),
            _ => false,
        }
    }

    fn memory(&mut self, name: &str) -> Option<Vec<u8>> {
        match self.export(name)? {
            weft::Extern::Memory(m) => Some(m.data(&self.store).to_vec()),
            _ => None,
        }
    }

    fn table(&mut self, name: &str) -> Option<Vec<Value>> {
        match self.export(name)? {
            weft::Extern::Table(t) => {
                let size = t.size(&self.store);
                let mut elements = Vec::with_capacity(size as usize);
                for i in 0..size {
                    let r = t.get(&self.store, i)?;
                    elements.push(self.val_from_engine(&weft::Val::from(r)));
                }
                Some(elements)
            }
            _ => None,
        }
    }
}

/// wasmi, the reference interpreter, with the features Weft supports.
pub struct WasmiRuntime {
    engine: wasmi::Engine,
    store: wasmi::Store<()>,
    instance: Option<wasmi::Instance>,
    fuel: u64,
}

impl Default for WasmiRuntime {
    fn default() -> Self {
        WasmiRuntime::new()
    }
}

/// The fuel wasmi gets for each instantiation and each call: a step bound
/// that keeps a run finite even when a module escaped wasm-smith's
/// termination instrumentation (as shrunken modules can).
pub const WASMI_FUEL_PER_STEP: u64 = 20_000_000;

impl WasmiRuntime {
    /// A wasmi engine with the features of the generated modules (see
    /// [`crate::generate::smith_config`]), compiling
    /// eagerly so that every function is translated before it runs, with
    /// [`WASMI_FUEL_PER_STEP`] fuel per step.
    pub fn new() -> WasmiRuntime {
        WasmiRuntime::with_fuel(WASMI_FUEL_PER_STEP)
    }

    /// Like [`WasmiRuntime::new`] with `fuel` units of fuel per step. When
    /// wasmi runs out, the step fails with [`Trap::OutOfFuel`] and the
    /// oracle stops before running Weft, which has no such bound.
    pub fn with_fuel(fuel: u64) -> WasmiRuntime {
        let mut config = wasmi::Config::default();
        config
            .consume_fuel(true)
            // Deeper than Weft's default stack allows, so that wasmi's limit
            // is not what ends recursive runs (a stack overflow on either
            // side ends a differential run without a verdict).
            .set_max_recursion_depth(100_000)
            .set_max_stack_height(4_000_000)
            // The proposals Weft supports besides WebAssembly 2.0 (relaxed
            // SIMD aside: its results may legitimately differ).
            .wasm_tail_call(true)
            .wasm_extended_const(true)
            .wasm_multi_memory(true)
            .wasm_memory64(true)
            .wasm_simd(true)
            .wasm_relaxed_simd(false)
            .wasm_custom_page_sizes(false)
            .wasm_wide_arithmetic(false)
            .compilation_mode(wasmi::CompilationMode::Eager);
        let engine = wasmi::Engine::new(&config);
        let store = wasmi::Store::new(&engine, ());
        WasmiRuntime {
            engine,
            store,
            instance: None,
            fuel,
        }
    }

    fn refuel(&mut self) {
        // Fuel is enabled in the config, so setting it cannot fail.
        let _ = self.store.set_fuel(self.fuel);
    }

    fn val_to_engine(&mut self, value: Value) -> wasmi::Val {
        match value {
            Value::I32(x) => wasmi::Val::I32(x),
            Value::I64(x) => wasmi::Val::I64(x),
            Value::F32(x) => wasmi::Val::F32(wasmi::F32::from_bits(x)),
            Value::F64(x) => wasmi::Val::F64(wasmi::F64::from_bits(x)),
            Value::V128(x) => wasmi::Val::V128(wasmi::V128::from(x)),
            Value::FuncRef(_) => wasmi::Val::FuncRef(wasmi::Ref::Null),
            Value::ExternRef(None) => wasmi::Val::ExternRef(wasmi::Ref::Null),
            Value::ExternRef(Some(n)) => {
                wasmi::Val::ExternRef(wasmi::Ref::Val(wasmi::ExternRef::new(&mut self.store, n)))
            }
        }
    }

    fn val_from_engine(&self, val: &wasmi::Val) -> Value {
        match val {
            wasmi::Val::I32(x) => Value::I32(*x),
            wasmi::Val::I64(x) => Value::I64(*x),
            wasmi::Val::F32(x) => Value::F32(x.to_bits()),
            wasmi::Val::F64(x) => Value::F64(x.to_bits()),
            wasmi::Val::V128(x) => Value::V128(x.as_u128()),
            wasmi::Val::FuncRef(f) => Value::FuncRef(!f.is_null()),
            wasmi::Val::ExternRef(r) => Value::ExternRef(
                r.val()
                    .map(|r| r.data(&self.store).downcast_ref::<u32>().copied().unwrap_or(u32::MAX)),
            ),
        }
    }

    fn export(&self, name: &str) -> Option<wasmi::Extern> {
        self.instance?.get_export(&self.store, name)
    }
}

/// The Weft trap that corresponds to a wasmi trap code, if there is one.
pub fn trap_from_wasmi(code: wasmi::TrapCode) -> Option<Trap> {
    use wasmi::TrapCode as W;
    Some(match code {
        W::UnreachableCodeReached => Trap::UnreachableCodeReached,
        W::MemoryOutOfBounds => Trap::MemoryOutOfBounds,
        W::TableOutOfBounds => Trap::TableOutOfBounds,
        W::IndirectCallToNull => Trap::IndirectCallToNull,
        W::IntegerDivisionByZero => Trap::IntegerDivisionByZero,
        W::IntegerOverflow => Trap::IntegerOverflow,
        W::BadConversionToInteger => Trap::BadConversionToInteger,
        W::StackOverflow => Trap::StackOverflow,
        W::BadSignature => Trap::BadSignature,
        W::OutOfFuel => Trap::OutOfFuel,
        W::GrowthOperationLimited => return None,
    })
}

/// The Weft trap that corresponds to a wasmi error. Besides trap codes,
/// wasmi reports some traps of bulk table and memory instructions as table
/// or memory errors, and fuel exhaustion inside them as their `OutOfFuel`.
pub fn wasmi_error_trap(err: &wasmi::Error) -> Option<Trap> {
    use wasmi::errors::{ErrorKind, MemoryError, TableError};
    if let Some(code) = err.as_trap_code() {
        return trap_from_wasmi(code);
    }
    Some(match err.kind() {
        ErrorKind::Table(
            TableError::InitOutOfBounds
            | TableError::FillOutOfBounds
            | TableError::SetOutOfBounds
            | TableError::CopyOutOfBounds,
        ) => Trap::TableOutOfBounds,
        ErrorKind::Memory(MemoryError::OutOfBoundsAccess) => Trap::MemoryOutOfBounds,
        ErrorKind::Table(TableError::OutOfFuel { .. })
        | ErrorKind::Memory(MemoryError::OutOfFuel { .. })
        | ErrorKind::Fuel(_) => Trap::OutOfFuel,
        _ => return None,
    })
}

fn wasmi_failure(err: wasmi::Error) -> Failure {
    match wasmi_error_trap(&err) {
        Some(trap) => Failure::Trap(trap),
        None => Failure::Error(err.to_string()),
    }
}

fn wasmi_value_type(ty: &wasmi::ValType) -> ValueType {
    match ty {
        wasmi::ValType::I32 => ValueType::I32,
        wasmi::ValType::I64 => ValueType::I64,
        wasmi::ValType::F32 => ValueType::F32,
        wasmi::ValType::F64 => ValueType::F64,
        wasmi::ValType::V128 => ValueType::V128,
        wasmi::ValType::ExternRef => ValueType::ExternRef,
        _ => ValueType::FuncRef,
    }
}

/// A wasmi value without its store: extern references lose their payload.
fn wasmi_plain(val: &wasmi::Val) -> Value {
    match val {
        wasmi::Val::I32(x) => Value::I32(*x),
        wasmi::Val::I64(x) => Value::I64(*x),
        wasmi::Val::F32(x) => Value::F32(x.to_bits()),
        wasmi::Val::F64(x) => Value::F64(x.to_bits()),
        wasmi::Val::V128(x) => Value::V128(x.as_u128()),
        wasmi::Val::FuncRef(f) => Value::FuncRef(!f.is_null()),
        wasmi::Val::ExternRef(r) => Value::ExternRef(r.val().map(|_| 0)),
    }
}

/// A wasmi value for a store-free [`Value`] (references are null).
fn wasmi_plain_val(value: Value) -> wasmi::Val {
    match value {
        Value::I32(x) => wasmi::Val::I32(x),
        Value::I64(x) => wasmi::Val::I64(x),
        Value::F32(x) => wasmi::Val::F32(wasmi::F32::from_bits(x)),
        Value::F64(x) => wasmi::Val::F64(wasmi::F64::from_bits(x)),
        Value::FuncRef(_) => wasmi::Val::FuncRef(wasmi::Ref::Null),
        Value::ExternRef(_) => wasmi::Val::ExternRef(wasmi::Ref::Null),
        Value::V128(x) => wasmi::Val::V128(wasmi::V128::from(x)),
    }
}

/// The same imports as [`weft_imports`], for wasmi.
fn wasmi_imports(store: &mut wasmi::Store<()>, module: &wasmi::Module) -> Result<Vec<wasmi::Extern>, wasmi::Error> {
    let mut imports = Vec::new();
    for import in module.imports() {
        imports.push(match import.ty() {
            wasmi::ExternType::Func(ty) => {
                let results: Vec<ValueType> = ty.results().iter().map(wasmi_value_type).collect();
                wasmi::Extern::Func(wasmi::Func::new(&mut *store, ty.clone(), move |_, params, out| {
                    let args: Vec<Value> = params.iter().map(wasmi_plain).collect();
                    for (slot, v) in out.iter_mut().zip(host_results(&args, &results)) {
                        *slot = wasmi_plain_val(v);
                    }
                    Ok(())
                }))
            }
            wasmi::ExternType::Global(ty) => {
                let value = wasmi_plain_val(host_global_value(wasmi_value_type(&ty.content())));
                wasmi::Extern::Global(wasmi::Global::new(&mut *store, value, ty.mutability()))
            }
            wasmi::ExternType::Memory(ty) => wasmi::Extern::Memory(wasmi::Memory::new(&mut *store, *ty)?),
            wasmi::ExternType::Table(ty) => {
                let init = wasmi_default(wasmi_value_type(&ty.element()));
                wasmi::Extern::Table(wasmi::Table::new(&mut *store, *ty, init)?)
            }
        });
    }
    Ok(imports)
}

fn wasmi_default(ty: ValueType) -> wasmi::Val {
    match ty {
        ValueType::I32 => wasmi::Val::I32(0),
        ValueType::I64 => wasmi::Val::I64(0),
        ValueType::F32 => wasmi::Val::F32(wasmi::F32::from_bits(0)),
        ValueType::F64 => wasmi::Val::F64(wasmi::F64::from_bits(0)),
        ValueType::V128 => wasmi::Val::V128(wasmi::V128::from(0u128)),
        ValueType::FuncRef => wasmi::Val::FuncRef(wasmi::Ref::Null),
        ValueType::ExternRef => wasmi::Val::ExternRef(wasmi::Ref::Null),
    }
}

impl Runtime for WasmiRuntime {
    fn name(&self) -> &'static str {
        "wasmi"
    }

    fn instantiate(&mut self, wasm: &[u8]) -> Result<(), Failure> {
        self.instance = None;
        self.store = wasmi::Store::new(&self.engine, ());
        self.refuel();
        let module = wasmi::Module::new(&self.engine, wasm).map_err(|e| Failure::Error(e.to_string()))?;
        let imports = wasmi_imports(&mut self.store, &module).map_err(|e| Failure::Error(e.to_string()))?;
        let instance = wasmi::Instance::new(&mut self.store, &module, &imports).map_err(wasmi_failure)?;
        self.instance = Some(instance);
        Ok(())
    }

    fn call(&mut self, name: &str, args: &[Value], results: &[ValueType]) -> Outcome {
        let func = match self.export(name) {
            Some(wasmi::Extern::Func(f)) => f,
            _ => return Err(Failure::Error(format!("no exported function {name:?}"))),
        };
        let params: Vec<wasmi::Val> = args.iter().map(|a| self.val_to_engine(*a)).collect();
        let mut out: Vec<wasmi::Val> = results.iter().map(|t| wasmi_default(*t)).collect();
        self.refuel();
        func.call(&mut self.store, &params, &mut out).map_err(wasmi_failure)?;
        Ok(out.iter().map(|v| self.val_from_engine(v)).collect())
    }

    fn global(&mut self, name: &str) -> Option<Value> {
        match self.export(name)? {
            wasmi::Extern::Global(g) => Some(self.val_from_engine(&g.get(&self.store))),
            _ => None,
        }
    }

    fn set_global(&mut self, name: &str, value: Value) -> bool {
        let v = self.val_to_engine(value);
        match self.export(name) {
            Some(wasmi::Extern::Global(g)) => g.set(&mut self.store, v).is_ok(),
            _ => false,
        }
    }

    fn memory(&mut self, name: &str) -> Option<Vec<u8>> {
        match self.export(name)? {
            wasmi::Extern::Memory(m) => Some(m.data(&self.store).to_vec()),
            _ => None,
        }
    }

    fn table(&mut self, name: &str) -> Option<Vec<Value>> {
        match self.export(name)? {
            wasmi::Extern::Table(t) => {
                let size = t.size(&self.store);
                let mut elements = Vec::with_capacity(size as usize);
                for i in 0..size {
                    let r = t.get(&self.store, i)?;
                    elements.push(self.val_from_engine(&r));
                }
                Some(elements)
            }
            _ => None,
        }
    }
}

//! `api_calls`: generated sequences of embedding-API calls on stores
//! (instantiate, call, grow memories and tables, get and set globals and
//! table elements, read and write memory, drop instances and stores, use
//! handles of a dropped or another store, set fuel and epoch deadlines).
//! Every call returns `Ok` or `Err`; none may panic or crash. Run it with
//! [`crate::targets::interruptible_engine`] so fuel and epochs take effect.

use crate::generate::{generate_module_from, GenOptions};
use crate::targets::dummy_imports;
use arbitrary::{Arbitrary, Unstructured};
use weft::{Engine, Extern, ExternRef, Instance, Module, Ref, Store, Val};

/// One API call; indices pick among the objects created so far (modulo
/// their number), so every sequence is meaningful.
#[derive(Debug, Clone, Arbitrary)]
pub enum ApiCall {
    /// Instantiate a module (with host imports) in the current store.
    Instantiate {
        /// Which module.
        module: u8,
    },
    /// Call an exported function with arbitrary (possibly ill-typed) arguments.
    Call {
        /// Which export.
        export: u16,
        /// Argument bits.
        args: Vec<i64>,
        /// Whether to pass the wrong number of results.
        wrong_arity: bool,
    },
    /// Grow an exported memory.
    GrowMemory {
        /// Which export.
        export: u16,
        /// Pages.
        delta: u32,
    },
    /// Grow an exported table.
    GrowTable {
        /// Which export.
        export: u16,
        /// Elements.
        delta: u32,
    },
    /// Read an exported global.
    GetGlobal {
        /// Which export.
        export: u16,
    },
    /// Set an exported global (possibly with a value of the wrong type).
    SetGlobal {
        /// Which export.
        export: u16,
        /// The bits of the value.
        value: i64,
        /// Which type of value to pass.
        ty: u8,
    },
    /// Read a table element (possibly out of bounds).
    GetTable {
        /// Which export.
        export: u16,
        /// The element index (possibly out of bounds).
        index: u32,
    },
    /// Set a table element (possibly out of bounds, possibly ill-typed).
    SetTable {
        /// Which export.
        export: u16,
        /// The element index (possibly out of bounds).
        index: u32,
        /// Which reference to store.
        value: u8,
    },
    /// Read or write an exported memory through the API.
    AccessMemory {
        /// Which export.
        export: u16,
        /// The first byte (possibly out of bounds).
        offset: u32,
        /// The length.
        len: u16,
        /// Write instead of read.
        write: bool,
    },
    /// Forget an instance (its objects stay in the store, as in Wasmtime).
    DropInstance {
        /// Which instance.
        instance: u8,
    },
    /// Drop the current store and start a new one; handles of the old one
    /// are kept and must be refused from now on.
    DropStore,
    /// Increment the engine's epoch.
    IncrementEpoch,
    /// Set the store's fuel (refused unless the engine consumes fuel).
    SetFuel {
        /// The fuel to set.
        fuel: u32,
    },
    /// Set the store's epoch deadline, in ticks after the current epoch.
    SetEpochDeadline {
        /// Epoch ticks from now.
        ticks: u8,
    },
}

/// The state of a sequence: the stores, instances and exported handles.
struct State {
    engine: Engine,
    modules: Vec<Module>,
    store: Store<()>,
    instances: Vec<Instance>,
    /// Every exported item seen, including those of dropped stores.
    exports: Vec<Extern>,
}

/// Runs a generated sequence of API calls; the input first yields up to
/// three modules, then the calls.
pub fn api_calls_target(engine: &Engine, data: &[u8]) {
    let mut u = Unstructured::new(data);
    let options = GenOptions::everything();
    let mut modules = Vec::new();
    for _ in 0..u.int_in_range(1..=3).unwrap_or(1) {
        if let Ok(wasm) = generate_module_from(&mut u, &options) {
            modules.push(Module::new(engine, &wasm).expect("generated modules compile"));
        }
    }
    if modules.is_empty() {
        return;
    }
    let mut state = State {
        engine: engine.clone(),
        modules,
        store: new_store(engine),
        instances: Vec::new(),
        exports: Vec::new(),
    };
    let calls: Vec<ApiCall> = u.arbitrary().unwrap_or_default();
    for call in calls.into_iter().take(64) {
        state.apply(call);
    }
}

fn pick<T: Clone>(items: &[T], index: usize) -> Option<T> {
    if items.is_empty() {
        None
    } else {
        Some(items[index % items.len()].clone())
    }
}

impl State {
    fn export(&self, index: u16) -> Option<Extern> {
        pick(&self.exports, index as usize)
    }

    fn apply(&mut self, call: ApiCall) {
        match call {
            ApiCall::Instantiate { module } => {
                let Some(module) = pick(&self.modules, module as usize) else {
                    return;
                };
                let Ok(imports) = dummy_imports(&mut self.store, &module, false) else {
                    return;
                };
                if let Ok(instance) = Instance::new(&mut self.store, &module, &imports) {
                    let exports: Vec<Extern> = module
                        .exports()
                        .filter_map(|e| instance.get_export(&mut self.store, e.name()))
                        .collect();
                    self.exports.extend(exports);
                    self.instances.push(instance);
                }
            }
            ApiCall::Call {
                export,
                args,
                wrong_arity,
            } => {
                let Some(Extern::Func(func)) = self.export(export) else {
                    return;
                };
                let ty = func.ty(&self.store);
                let mut params: Vec<Val> = ty
                    .params()
                    .zip(args.iter().chain(std::iter::repeat(&0)))
                    .map(|(t, bits)| value_of(&mut self.store, &t, *bits))
                    .collect();
                let mut results: Vec<Val> = ty
                    .results()
                    .map(|t| Val::default_for_ty(&t).unwrap_or(Val::I32(0)))
                    .collect();
                if wrong_arity {
                    params.push(Val::I32(0));
                    results.pop();
                }
                let _ = func.call(&mut self.store, &params, &mut results);
            }
            ApiCall::GrowMemory { export, delta } => {
                if let Some(Extern::Memory(m)) = self.export(export) {
                    let _ = m.grow(&mut self.store, delta as u64);
                    let _ = m.size(&self.store);
                    let _ = m.data_size(&self.store);
                }
            }
            ApiCall::GrowTable { export, delta } => {
                if let Some(Extern::Table(t)) = self.export(export) {
                    let init = Ref::null(t.ty(&self.store).element().heap_type());
                    let _ = t.grow(&mut self.store, delta as u64, init);
                    let _ = t.size(&self.store);
                }
            }
            ApiCall::GetGlobal { export } => {
                if let Some(Extern::Global(g)) = self.export(export) {
                    let _ = g.get(&mut self.store);
                    let _ = g.ty(&self.store);
                }
            }
            ApiCall::SetGlobal { export, value, ty } => {
                if let Some(Extern::Global(g)) = self.export(export) {
                    let val = match ty % 6 {
                        0 => Val::I32(value as i32),
                        1 => Val::I64(value),
                        2 => Val::F32(value as u32),
                        3 => Val::F64(value as u64),
                        4 => Val::FuncRef(None),
                        _ => Val::ExternRef(ExternRef::new(&mut self.store, value as u32).ok()),
                    };
                    let _ = g.set(&mut self.store, val);
                }
            }
            ApiCall::GetTable { export, index } => {
                if let Some(Extern::Table(t)) = self.export(export) {
                    let _ = t.get(&self.store, index as u64);
                }
            }
            ApiCall::SetTable { export, index, value } => {
                if let Some(Extern::Table(t)) = self.export(export) {
                    let r = match value % 4 {
                        0 => Ref::Func(None),
                        1 => Ref::Extern(None),
                        2 => Ref::Extern(ExternRef::new(&mut self.store, value as u32).ok()),
                        _ => match pick(&self.exports, value as usize) {
                            Some(Extern::Func(f)) => Ref::Func(Some(f)),
                            _ => Ref::Func(None),
                        },
                    };
                    let _ = t.set(&mut self.store, index as u64, r);
                }
            }
            ApiCall::AccessMemory {
                export,
                offset,
                len,
                write,
            } => {
                if let Some(Extern::Memory(m)) = self.export(export) {
                    let mut buffer = vec![0x5a; len as usize];
                    if write {
                        let _ = m.write(&mut self.store, offset as usize, &buffer);
                    } else {
                        let _ = m.read(&self.store, offset as usize, &mut buffer);
                    }
                    let _ = m.data(&self.store).len();
                }
            }
            ApiCall::DropInstance { instance } => {
                if !self.instances.is_empty() {
                    let i = instance as usize % self.instances.len();
                    self.instances.remove(i);
                }
            }
            ApiCall::DropStore => {
                self.instances.clear();
                self.store = new_store(&self.engine);
            }
            ApiCall::IncrementEpoch => self.engine.increment_epoch(),
            ApiCall::SetFuel { fuel } => {
                let _ = self.store.set_fuel(fuel as u64);
                let _ = self.store.get_fuel();
            }
            ApiCall::SetEpochDeadline { ticks } => self.store.set_epoch_deadline(ticks as u64),
        }
    }
}

/// A store with plenty of fuel and a far epoch deadline (both refused
/// silently by engines without fuel or epochs), so calls run until a
/// generated `SetFuel` or `SetEpochDeadline` says otherwise.
fn new_store(engine: &Engine) -> Store<()> {
    let mut store = Store::new(engine, ());
    let _ = store.set_fuel(1_000_000);
    store.set_epoch_deadline(1_000);
    store
}

fn value_of(store: &mut Store<()>, ty: &weft::ValType, bits: i64) -> Val {
    match ty {
        weft::ValType::I32 => Val::I32(bits as i32),
        weft::ValType::I64 => Val::I64(bits),
        weft::ValType::F32 => Val::F32(bits as u32),
        weft::ValType::F64 => Val::F64(bits as u64),
        weft::ValType::Ref(r) if r.heap_type().is_extern() && bits & 1 == 1 => {
            Val::ExternRef(ExternRef::new(&mut *store, bits as u32).ok())
        }
        // Sometimes a value of the wrong type, which must be refused.
        _ if bits % 7 == 3 => Val::I64(bits),
        other => Val::default_for_ty(other).unwrap_or(Val::I32(0)),
    }
}

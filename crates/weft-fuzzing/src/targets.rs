//! The fuzz targets, as plain functions of their input bytes, shared by the
//! `cargo fuzz` project in `fuzz/` and by the stable-toolchain drivers
//! (`--bin crash`, `--bin diff` and the tests). Each returns normally unless
//! it finds a bug, which it reports by panicking.

use crate::differential::{differential, DiffOptions};
use crate::generate::{generate_module_from, GenOptions, Rng};
pub use crate::runtimes::fuzz_config;
use arbitrary::Unstructured;
use weft::{Engine, Extern, Func, Global, Instance, Memory, Module, Ref, Store, Table, Val, ValType};

/// `differential`: a generated module must behave the same on Weft and on
/// wasmi (or, for GC and threads modules, on two Weft configurations: see
/// [`differential`]). The first eight bytes seed the arguments.
pub fn differential_target(data: &[u8]) {
    if data.len() < 8 {
        return;
    }
    let arg_seed = u64::from_le_bytes(data[..8].try_into().expect("eight bytes"));
    let mut u = Unstructured::new(&data[8..]);
    let options = GenOptions {
        gc: true,
        threads: true,
        ..GenOptions::default()
    };
    let Ok(wasm) = generate_module_from(&mut u, &options) else {
        return;
    };
    if let Err(mismatch) = differential(&wasm, arg_seed, &DiffOptions::default()) {
        panic!("{mismatch}");
    }
}

/// `module_new`: arbitrary bytes into `Module::validate` and `Module::new`
/// return `Ok` or `Err` and never panic, and the two agree: a module that
/// validates compiles, and one that compiles validates.
pub fn module_new_target(engine: &Engine, data: &[u8]) {
    let valid = Module::validate(engine, data).is_ok();
    let compiled = Module::from_binary(engine, data).is_ok();
    assert_eq!(
        valid, compiled,
        "Module::validate says {valid} but Module::from_binary says {compiled}"
    );
    // Text input goes through the `wat` parser first.
    let _ = Module::new(engine, data);
}

/// Arguments for a Weft function of type `params`.
fn weft_args(store: &mut Store<()>, u: &mut Unstructured<'_>, params: &[ValType]) -> Vec<Val> {
    params
        .iter()
        .map(|t| match t {
            ValType::I32 => Val::I32(u.arbitrary().unwrap_or_default()),
            ValType::I64 => Val::I64(u.arbitrary().unwrap_or_default()),
            ValType::F32 => Val::F32(u.arbitrary().unwrap_or_default()),
            ValType::F64 => Val::F64(u.arbitrary().unwrap_or_default()),
            ValType::Ref(r) if r.heap_type().is_extern() && u.arbitrary().unwrap_or(false) => {
                let payload: u32 = u.arbitrary().unwrap_or_default();
                weft::ExternRef::new(&mut *store, payload)
                    .map(|r| Val::ExternRef(Some(r)))
                    .unwrap_or(Val::ExternRef(None))
            }
            other => Val::default_for_ty(other).unwrap_or(Val::I32(0)),
        })
        .collect()
}

/// Host objects that satisfy every import of `module`: functions that return
/// zeros (or trap, when `trap_in_host`), and fresh globals, memories (shared
/// ones for shared types) and tables of the imported types. An error when a
/// global or table of a non-nullable reference type is imported: the host
/// has no value for it.
pub fn dummy_imports(store: &mut Store<()>, module: &Module, trap_in_host: bool) -> weft::Result<Vec<Extern>> {
    let mut imports = Vec::new();
    for import in module.imports() {
        imports.push(match import.ty() {
            weft::ExternType::Func(ty) => {
                let results: Vec<ValType> = ty.results().collect();
                Extern::Func(Func::new(&mut *store, ty, move |_, _, out| {
                    if trap_in_host {
                        weft::bail!("host function failed on purpose");
                    }
                    for (slot, t) in out.iter_mut().zip(&results) {
                        *slot = Val::default_for_ty(t).unwrap_or(Val::I32(0));
                    }
                    Ok(())
                }))
            }
            weft::ExternType::Global(ty) => {
                let init = Val::default_for_ty(ty.content()).unwrap_or(Val::I32(0));
                Extern::Global(Global::new(&mut *store, ty, init)?)
            }
            weft::ExternType::Memory(ty) if ty.is_shared() => {
                Extern::SharedMemory(weft::SharedMemory::new(store.engine(), ty)?)
            }
            weft::ExternType::Memory(ty) => Extern::Memory(Memory::new(&mut *store, ty)?),
            weft::ExternType::Table(ty) => {
                let init = Ref::null(ty.element().heap_type());
                Extern::Table(Table::new(&mut *store, ty, init)?)
            }
            weft::ExternType::Tag(ty) => Extern::Tag(weft::Tag::new(&mut *store, &ty)?),
        });
    }
    Ok(imports)
}

/// The engine of the `module_new` target: [`fuzz_config`].
///
/// # Panics
///
/// Panics if Weft rejects the configuration.
pub fn module_new_engine() -> Engine {
    Engine::new(&fuzz_config()).expect("weft supports the GC and threads proposals")
}

/// The engine of the `instantiate_and_call` and `api_calls` targets:
/// [`fuzz_config`] with fuel and epoch interruption on, so that inputs draw
/// random deadlines.
///
/// # Panics
///
/// Panics if Weft rejects the configuration.
pub fn interruptible_engine() -> Engine {
    let mut config = fuzz_config();
    config.consume_fuel(true).epoch_interruption(true);
    Engine::new(&config).expect("weft supports fuel and epoch interruption")
}

/// `instantiate_and_call`: a generated module (with imports) goes through
/// compilation, instantiation and calls of every export with arbitrary
/// arguments, under a random fuel budget and epoch deadline (with the
/// engine of [`interruptible_engine`]; with another engine the deadlines
/// are refused, which is fine too); everything returns `Ok` or `Err` and
/// nothing panics.
///
/// Runs are finite thanks to wasm-smith's termination instrumentation (fuel
/// in a global) as well as Weft's own fuel.
pub fn instantiate_and_call_target(engine: &Engine, data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(wasm) = generate_module_from(&mut u, &GenOptions::everything()) else {
        return;
    };
    let module = Module::new(engine, &wasm).expect("weft compiles every module wasm-smith generates for it");
    let mut store = Store::new(engine, ());
    let _ = store.set_fuel(u.int_in_range(0..=200_000).unwrap_or(10_000));
    store.set_epoch_deadline(u.int_in_range(0..=4).unwrap_or(1));
    let trap_in_host = u.ratio(1, 8).unwrap_or(false);
    // Imports the host cannot make without wasm (a non-nullable reference
    // global or table) end the input here.
    let Ok(imports) = dummy_imports(&mut store, &module, trap_in_host) else {
        return;
    };
    let Ok(instance) = Instance::new(&mut store, &module, &imports) else {
        return;
    };
    let funcs: Vec<Func> = module
        .exports()
        .filter_map(|e| instance.get_func(&mut store, e.name()))
        .collect();
    for func in funcs {
        for _ in 0..2 {
            let ty = func.ty(&store);
            let params: Vec<ValType> = ty.params().collect();
            let args = weft_args(&mut store, &mut u, &params);
            let mut results: Vec<Val> = ty
                .results()
                .map(|t| Val::default_for_ty(&t).unwrap_or(Val::I32(0)))
                .collect();
            let _ = func.call(&mut store, &args, &mut results);
            match u.int_in_range(0..=7).unwrap_or(0) {
                0 => engine.increment_epoch(),
                1 => {
                    let _ = store.set_fuel(u.int_in_range(0..=200_000).unwrap_or(0));
                }
                2 => store.set_epoch_deadline(u.int_in_range(0..=4).unwrap_or(1)),
                _ => {}
            }
        }
    }
}

/// Runs `target` on `iterations` random inputs drawn from `seed`, with
/// input sizes up to `max_len`, and returns how many ran.
pub fn drive(seed: u64, iterations: u64, max_len: usize, mut target: impl FnMut(&[u8])) -> u64 {
    let mut rng = Rng::new(seed);
    for _ in 0..iterations {
        let len = rng.below(max_len as u64 + 1) as usize;
        let data = rng.bytes(len);
        target(&data);
    }
    iterations
}

/// An input for [`module_new_target`] that is mostly well formed: a
/// generated module with a few random byte edits (or, sometimes, plain
/// random bytes), so a run without coverage guidance still reaches deep
/// into validation and compilation.
pub fn mutated_module(rng: &mut Rng) -> Vec<u8> {
    if rng.below(8) == 0 {
        let len = rng.below(256) as usize;
        let mut bytes = b"\0asm\x01\0\0\0".to_vec();
        bytes.extend(rng.bytes(len));
        return bytes;
    }
    let len = rng.below(4096) as usize;
    let data = rng.bytes(len);
    let options = GenOptions {
        gc: true,
        threads: true,
        ..GenOptions::default()
    };
    let Ok(mut bytes) = crate::generate::generate_module(&data, &options) else {
        return Vec::new();
    };
    for _ in 0..rng.below(4) {
        if bytes.is_empty() {
            break;
        }
        let i = rng.below(bytes.len() as u64) as usize;
        match rng.below(4) {
            0 => bytes[i] = rng.next_u64() as u8,
            1 => bytes[i] ^= 1 << rng.below(8),
            2 => bytes.truncate(i.max(8)),
            _ => bytes.insert(i, rng.next_u64() as u8),
        }
    }
    bytes
}

//! Instances of `wasm.h`.

use crate::extern_::{from_extern, to_extern, wasm_extern_vec_t};
use crate::guard;
use crate::r#ref::{wasm_instance_t, wasm_module_t, wasm_ref_t, wasm_trap_t, Entity};
use crate::store::wasm_store_t;
use crate::vec::{write_out, CVec};
use std::mem::MaybeUninit;

/// Instantiates `module` with `imports` (in the module's import order).
/// On failure returns null and, if `trap` is not null, sets it to a trap
/// saying why.
#[no_mangle]
pub extern "C" fn wasm_instance_new(
    store: Option<&wasm_store_t>,
    module: Option<&wasm_module_t>,
    imports: Option<&wasm_extern_vec_t>,
    trap: Option<&mut MaybeUninit<Option<Box<wasm_trap_t>>>>,
) -> Option<Box<wasm_instance_t>> {
    let r = crate::guard_result(|| {
        let store = &store.ok_or_else(|| crate::null_error("store"))?.store;
        let module = module
            .and_then(|m| m.module())
            .ok_or_else(|| crate::null_error("module"))?;
        let mut externs = Vec::new();
        for e in imports.map(|v| v.as_slice()).unwrap_or_default() {
            let e = e.as_ref().ok_or_else(|| crate::null_error("import"))?;
            let (s, ent) = e
                .as_entity()
                .ok_or_else(|| anyhow::anyhow!("import is not an extern"))?;
            if s.id() != store.id() {
                anyhow::bail!("import belongs to another store");
            }
            externs.push(to_extern(ent).ok_or_else(|| anyhow::anyhow!("import is not an extern"))?);
        }
        // SAFETY: the only context in use here (a start function's host
        // calls go through their caller).
        let mut cx = unsafe { store.ctx() };
        let i = weft::Instance::new(&mut cx, &module.module, &externs)?;
        Ok(wasm_ref_t::entity(store, Entity::Instance(i)))
    });
    match r {
        Ok(i) => {
            write_out(trap, None);
            Some(i)
        }
        Err(e) => {
            write_out(trap, Some(wasm_ref_t::trap(e)));
            None
        }
    }
}

/// The instance's exports, in the module's order.
#[no_mangle]
pub extern "C" fn wasm_instance_exports(i: Option<&wasm_instance_t>, out: Option<&mut MaybeUninit<wasm_extern_vec_t>>) {
    guard(
        || (),
        || {
            let mut v = Vec::new();
            if let Some((store, i)) = i.and_then(|i| i.instance()) {
                // SAFETY: the only context in use in this block.
                let mut cx = unsafe { store.ctx() };
                let exports: Vec<weft::Extern> = i.exports(&mut cx).map(|e| e.into_extern()).collect();
                for e in exports {
                    v.push(from_extern(e).map(|ent| wasm_ref_t::entity(store, ent)));
                }
            }
            write_out(out, CVec::from_vec(v));
        },
    )
}

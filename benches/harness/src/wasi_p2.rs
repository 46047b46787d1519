//! `wasi-p2-start`: the start-up of a WASI 0.2 command component, as
//! `wasmtime run` pays it for each run once the component is compiled: a
//! WASI context, a store, instantiation through a linker with every
//! `wasi:cli/command` import, and a call of its `wasi:cli/run` export
//! (which does nothing and returns `ok`).
//!
//! The component imports `wasi:cli/environment` (it reads its arguments)
//! so that instantiation resolves a WASI import, as every real command's
//! does, and exports `wasi:cli/run@0.2.3`.

/// The command component: `run` calls `get-arguments` (the canonical ABI
/// writes the list through the module's `realloc`), checks that there is
/// one argument and returns `ok`.
pub const COMMAND: &str = r#"(component
    (import "wasi:cli/environment@0.2.3" (instance $env
        (export "get-arguments" (func (result (list string))))))
    (core module $libc
        (memory (export "memory") 1)
        (global $next (mut i32) (i32.const 1024))
        (func (export "realloc") (param i32 i32 i32 i32) (result i32) (local $p i32)
            (local.set $p (i32.and (i32.add (global.get $next) (i32.sub (local.get 2) (i32.const 1)))
                                   (i32.sub (i32.const 0) (local.get 2))))
            (global.set $next (i32.add (local.get $p) (local.get 3)))
            (local.get $p)))
    (core instance $libc (instantiate $libc))
    (core func $get-arguments (canon lower (func $env "get-arguments")
        (memory (core memory $libc "memory")) (realloc (core func $libc "realloc"))))
    (core module $main
        (import "env" "get-arguments" (func $get-arguments (param i32)))
        (import "libc" "memory" (memory 1))
        (func (export "run") (result i32)
            (call $get-arguments (i32.const 16))
            ;; err (1) unless there is exactly one argument.
            (i32.ne (i32.load (i32.const 20)) (i32.const 1))))
    (core instance $main (instantiate $main
        (with "env" (instance (export "get-arguments" (func $get-arguments))))
        (with "libc" (instance $libc))))
    (func $run (result (result)) (canon lift (core func $main "run")))
    (instance $run-instance (export "run" (func $run)))
    (export "wasi:cli/run@0.2.3" (instance $run-instance)))"#;

macro_rules! wasi_p2_engine {
    ($name:ident, $rt:ident, $wasi:ident) => {
        pub mod $name {
            use crate::sample;
            use std::time::Instant;
            use $rt::component::{Component, Linker, ResourceTable};
            use $rt::{Config, Engine, Store};
            use $wasi::{WasiCtx, WasiCtxView, WasiView};

            struct State {
                ctx: WasiCtx,
                table: ResourceTable,
            }

            impl WasiView for State {
                fn ctx(&mut self) -> WasiCtxView<'_> {
                    WasiCtxView {
                        ctx: &mut self.ctx,
                        table: &mut self.table,
                    }
                }
            }

            pub fn run(reps: usize) -> anyhow::Result<()> {
                let engine = Engine::new(&Config::new())?;
                let component = Component::new(&engine, super::COMMAND)?;
                let mut linker = Linker::<State>::new(&engine);
                $wasi::p2::add_to_linker_sync(&mut linker)?;
                // A warm-up run, then the timed ones.
                for rep in 0..=reps {
                    let start = Instant::now();
                    let ctx = WasiCtx::builder().arg("command").build();
                    let mut store = Store::new(
                        &engine,
                        State {
                            ctx,
                            table: ResourceTable::new(),
                        },
                    );
                    let command = $wasi::p2::bindings::sync::Command::instantiate(&mut store, &component, &linker)?;
                    let result = command.wasi_cli_run().call_run(&mut store)?;
                    let elapsed = start.elapsed();
                    assert_eq!(result, Ok(()));
                    if rep > 0 {
                        sample("start", elapsed);
                    }
                }
                Ok(())
            }
        }
    };
}

wasi_p2_engine!(weft_p2, weft, weft_wasi);
wasi_p2_engine!(wasmtime_p2, wasmtime, wasmtime_wasi);

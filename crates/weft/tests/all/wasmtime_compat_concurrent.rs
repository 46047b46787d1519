//! A program written the way Wasmtime 48's concurrent API is used (its
//! docs and tests), with only the crate renamed (`use weft as wasmtime`):
//! it must compile and behave the same against Weft.

#![cfg(feature = "component-model-async")]

use weft as wasmtime;

use std::future::Future;
use std::task::{Context, Poll, Waker};
use wasmtime::component::{Accessor, AccessorTask, Component, HasData, HasSelf, Linker, ResourceTable, TypedFunc};
use wasmtime::{Config, Engine, Result, Store};

fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

struct Ctx {
    #[allow(
        dead_code,
        reason = "embedders keep a table beside their state, as Wasmtime's examples do"
    )]
    table: ResourceTable,
    log: Vec<String>,
}

/// The part of `Ctx` a projection reaches.
struct Log;

impl HasData for Log {
    type Data<'a> = &'a mut Vec<String>;
}

fn log(ctx: &mut Ctx) -> &mut Vec<String> {
    &mut ctx.log
}

struct Tick(u32);

impl AccessorTask<Ctx, HasSelf<Ctx>> for Tick {
    async fn run(self, accessor: &Accessor<Ctx>) -> Result<()> {
        accessor.with(|mut access| access.get().log.push(format!("tick {}", self.0)));
        Ok(())
    }
}

const COMPONENT: &str = r#"(component
    (import "double" (func $double async (param "x" u32) (result u32)))
    (core func $double (canon lower (func $double)))
    (core module $m
        (import "" "double" (func $double (param i32) (result i32)))
        (func (export "quadruple") (param i32) (result i32)
            (call $double (call $double (local.get 0)))))
    (core instance $i (instantiate $m (with "" (instance (export "double" (func $double))))))
    (func (export "quadruple") async (param "x" u32) (result u32)
        (canon lift (core func $i "quadruple"))))"#;

#[test]
fn concurrent_host_functions_and_calls() -> Result<()> {
    let mut config = Config::new();
    config.wasm_component_model_async(true);
    config.wasm_component_model_async_stackful(true);
    config.concurrency_support(true);
    let engine = Engine::new(&config)?;
    let component = Component::new(&engine, COMPONENT)?;

    let mut linker = Linker::<Ctx>::new(&engine);
    linker
        .root()
        .func_wrap_concurrent("double", |accessor: &Accessor<Ctx>, (x,): (u32,)| {
            Box::pin(async move {
                let logger = accessor.with_getter::<Log>(log);
                logger.with(|mut access| access.get().push(format!("double {x}")));
                Ok((x * 2,))
            })
        })?;

    let mut store = Store::new(
        &engine,
        Ctx {
            table: ResourceTable::new(),
            log: Vec::new(),
        },
    );
    let instance = block_on(linker.instantiate_async(&mut store, &component))?;
    let quadruple: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "quadruple")?;

    let first = store.spawn(Tick(1))?;
    let result = block_on(store.run_concurrent(async |accessor| -> Result<u32> {
        let second = accessor.spawn(Tick(2))?;
        let (a,) = quadruple.call_concurrent(accessor, (3,)).await?;
        let (b,) = quadruple.call_concurrent(accessor, (a,)).await?;
        first.await;
        second.await;
        Ok(b)
    }))??;
    assert_eq!(result, 48);
    let log = &store.data().log;
    for line in ["double 3", "double 6", "double 12", "double 24", "tick 1", "tick 2"] {
        assert!(log.iter().any(|l| l == line), "{log:?}");
    }
    // And the plain async call of the same function.
    assert_eq!(block_on(quadruple.call_async(&mut store, (1,)))?, (4,));
    store.assert_concurrent_state_empty();
    Ok(())
}

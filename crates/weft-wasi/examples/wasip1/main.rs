// Example of instantiating a wasm module which uses WASI imports.
//
// This is Wasmtime's `examples/wasip1/main.rs` with `wasmtime` renamed to
// `weft` and `wasmtime_wasi` to `weft_wasi`. One line differs: the module's
// path. Wasmtime's example loads `target/wasm32-wasip1/debug/wasi.wasm`, a
// Rust program built for wasm32-wasip1 by its build; this repository has no
// such build step, so the example loads the same "Hello, world!" program
// written as text, `examples/wasip1/hello.wat`, which Weft compiles directly.
//
// Run it with:
//     cargo run -p weft-wasi --example wasip1

use weft::*;
use weft_wasi::preview1::{self, WasiP1Ctx};
use weft_wasi::WasiCtxBuilder;

fn main() -> Result<()> {
    // Define the WASI functions globally on the `Config`.
    let engine = Engine::default();
    let mut linker: Linker<WasiP1Ctx> = Linker::new(&engine);
    preview1::add_to_linker_sync(&mut linker, |t| t)?;

    // Create a WASI context and put it in a Store; all instances in the store
    // share this context. `WasiCtxBuilder` provides a number of ways to
    // configure what the target program will have access to.
    let wasi_ctx = WasiCtxBuilder::new().inherit_stdio().inherit_args().build_p1();
    let mut store = Store::new(&engine, wasi_ctx);

    // Instantiate our module with the imports we've created, and run it.
    let module = Module::from_file(
        &engine,
        concat!(env!("CARGO_MANIFEST_DIR"), "/examples/wasip1/hello.wat"),
    )?;
    linker.module(&mut store, "", &module)?;
    linker
        .get_default(&mut store, "")?
        .typed::<(), ()>(&store)?
        .call(&mut store, ())?;

    Ok(())
}

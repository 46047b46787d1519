//! Wasmtime's `interrupt` example with the crate renamed: an infinite loop
//! stopped by an epoch increment from another thread. Run from the
//! repository root: `cargo run -p weft --example interrupt`.

use std::time::Duration;
use weft::*;

fn main() -> Result<()> {
    // Enable epoch interruption code via `Config` which means that code will
    // get interrupted when `Engine::increment_epoch` happens.
    let engine = Engine::new(Config::new().epoch_interruption(true))?;
    let mut store = Store::new(&engine, ());
    store.set_epoch_deadline(1);

    // Compile and instantiate a small example with an infinite loop.
    let module = Module::from_file(&engine, "examples/interrupt.wat")?;
    let instance = Instance::new(&mut store, &module, &[])?;
    let run = instance.get_typed_func::<(), ()>(&mut store, "run")?;

    // Spin up a thread to send us an interrupt in a second
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(1));
        println!("Interrupting!");
        engine.increment_epoch();
    });

    println!("Entering infinite loop ...");
    let err = run.call(&mut store, ()).unwrap_err();

    println!("trapped: {err:?}");
    assert!(err.downcast_ref::<Trap>() == Some(&Trap::Interrupt));
    Ok(())
}

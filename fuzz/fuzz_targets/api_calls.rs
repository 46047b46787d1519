//! Generated sequences of embedding-API calls on stores (instantiate, call,
//! grow, get and set globals and tables, drop instances and stores, set
//! fuel and epoch deadlines): never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

static ENGINE: OnceLock<weft::Engine> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let engine = ENGINE.get_or_init(weft_fuzzing::targets::interruptible_engine);
    weft_fuzzing::api_calls::api_calls_target(engine, data);
});

//! Arbitrary bytes into `Module::validate` and `Module::new`: `Ok` or `Err`,
//! never a panic, and the two agree.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

static ENGINE: OnceLock<weft::Engine> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let engine = ENGINE.get_or_init(weft_fuzzing::targets::module_new_engine);
    weft_fuzzing::targets::module_new_target(engine, data);
});

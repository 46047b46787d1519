//! Generated modules (with host imports) through instantiation and calls of
//! every export with arbitrary arguments, under random fuel budgets and
//! epoch deadlines: never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

static ENGINE: OnceLock<weft::Engine> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let engine = ENGINE.get_or_init(weft_fuzzing::targets::interruptible_engine);
    weft_fuzzing::targets::instantiate_and_call_target(engine, data);
});

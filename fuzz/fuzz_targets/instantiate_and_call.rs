//! Generated modules (with host imports) through instantiation and calls of
//! every export with arbitrary arguments: never a panic. Runs terminate by
//! wasm-smith's fuel instrumentation (Weft has no fuel or epoch deadlines
//! yet).
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

static ENGINE: OnceLock<weft::Engine> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let engine = ENGINE.get_or_init(weft::Engine::default);
    weft_fuzzing::targets::instantiate_and_call_target(engine, data);
});

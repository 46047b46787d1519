//! Generated modules behave the same on Weft and on wasmi (results, traps,
//! memories, globals and tables after every call).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| weft_fuzzing::targets::differential_target(data));

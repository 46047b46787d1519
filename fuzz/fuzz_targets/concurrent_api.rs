//! Generated sequences of the component model's concurrent API (calls,
//! polls, drops, aborts, traps, failing and panicking host functions, under
//! schedule seeds): no panic but the host's own, right results, and the
//! task table empty at the end.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

static FIXTURE: OnceLock<weft_fuzzing::concurrent_api::Fixture> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let fixture = FIXTURE.get_or_init(|| {
        weft_fuzzing::concurrent_api::quiet_host_panics();
        weft_fuzzing::concurrent_api::fixture()
    });
    weft_fuzzing::concurrent_api::concurrent_api_target(fixture, data);
});

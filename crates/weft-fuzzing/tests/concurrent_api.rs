//! The API-sequence property test of the concurrent API (issue 14), with
//! seeded sequences: 10,000 in `cargo test`.
//!
//! `WEFT_CONCURRENT_SEQUENCES=N` sets the number of sequences and
//! `WEFT_CONCURRENT_FIRST=K` the first; a failure prints the sequence
//! number, which replays alone with `WEFT_CONCURRENT_SEQUENCE=K`.

use weft_fuzzing::concurrent_api::{fixture, outcome_counts, quiet_host_panics, run_sequence, Source};

fn env(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

#[test]
fn random_api_sequences_keep_every_guarantee() {
    let f = fixture();
    quiet_host_panics();
    if let Some(seed) = env("WEFT_CONCURRENT_SEQUENCE") {
        if let Err(e) = run_sequence(&f, seed, Source::seeded(seed)) {
            panic!("{e}");
        }
        return;
    }
    let count = env("WEFT_CONCURRENT_SEQUENCES").unwrap_or(10_000);
    let first = env("WEFT_CONCURRENT_FIRST").unwrap_or(0);
    let start = std::time::Instant::now();
    for seed in first..first + count {
        if let Err(e) = run_sequence(&f, seed, Source::seeded(seed)) {
            panic!("{e}\n(replay with WEFT_CONCURRENT_SEQUENCE={seed})");
        }
    }
    let counts = outcome_counts();
    eprintln!(
        "{count} sequences in {:.1} s: {counts:?} calls completed, failed, host panics, calls dropped, \
         stream items and future values to guests, to host consumers",
        start.elapsed().as_secs_f64()
    );
    if count >= 1000 {
        assert!(counts.iter().all(|c| *c > 0), "some outcome never happened: {counts:?}");
    }
}

/// A few fuzz-style inputs (bytes instead of a seed), as the fuzz target
/// takes them.
#[test]
fn byte_inputs_drive_sequences_too() {
    let f = fixture();
    quiet_host_panics();
    for input in [&[][..], &[0xff; 64][..], &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10][..]] {
        weft_fuzzing::concurrent_api::concurrent_api_target(&f, input);
    }
}

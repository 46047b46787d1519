//! The short, deterministic share of fuzzing that `cargo test --workspace`
//! runs: fixed seeds, a few thousand generated modules compared between
//! Weft and wasmi, and a few hundred inputs for each crash-freedom target.
//! A failure prints the command that replays it.

use weft_fuzzing::api_calls::api_calls_target;
use weft_fuzzing::differential::{differential_with, DiffOptions};
use weft_fuzzing::generate::{iteration_case, iteration_seed, GenOptions, Rng};
use weft_fuzzing::runtimes::{WasmiRuntime, WeftRuntime};
use weft_fuzzing::targets::{instantiate_and_call_target, interruptible_engine, module_new_target, mutated_module};

/// GC and threads modules per seed in [`differential_gc_and_threads`].
const GC_MODULES: u64 = 400;

/// Modules that may use GC and threads: those that do run on two Weft
/// configurations (see `weft_fuzzing::differential`), the rest on Weft and
/// wasmi as above.
#[test]
fn differential_gc_and_threads() {
    let gen = GenOptions {
        gc: true,
        threads: true,
        ..GenOptions::default()
    };
    let options = DiffOptions::default();
    let mut weft_only = 0;
    let mut calls = 0;
    for i in 0..GC_MODULES {
        let Some((wasm, arg_seed)) = iteration_case(2, i, MAX_INPUT, &gen) else {
            continue;
        };
        weft_only += weft_fuzzing::differential::needs_weft_reference(&wasm) as u64;
        match weft_fuzzing::differential(&wasm, arg_seed, &options) {
            Ok(stats) => calls += stats.calls,
            Err(mismatch) => panic!(
                "{mismatch}\nreplay and minimize: cargo run -p weft-fuzzing --bin diff -- --gc --seed 2 --start {i} --iterations 1"
            ),
        }
    }
    assert!(
        weft_only > GC_MODULES / 5,
        "only {weft_only} of {GC_MODULES} modules use GC or threads"
    );
    assert!(calls > GC_MODULES, "too few calls: {calls}");
}

/// Modules per seed; with two seeds, the run compares this many times two.
const MODULES_PER_SEED: u64 = 2000;
/// The input size the `diff` binary uses by default.
const MAX_INPUT: usize = 4096;

fn differential_run(seed: u64) {
    let gen = GenOptions::default();
    let options = DiffOptions::default();
    let mut weft_speed = WeftRuntime::default();
    let mut weft_none = WeftRuntime::new(weft::Config::new().cranelift_opt_level(weft::OptLevel::None));
    let mut wasmi = WasmiRuntime::new();
    let mut compared = 0;
    let mut calls = 0;
    for i in 0..MODULES_PER_SEED {
        let Some((wasm, arg_seed)) = iteration_case(seed, i, MAX_INPUT, &gen) else {
            continue;
        };
        // As the `diff` binary: odd iterations without Cranelift optimizations.
        let weft = if i % 2 == 0 { &mut weft_speed } else { &mut weft_none };
        match differential_with(weft, &mut wasmi, &wasm, arg_seed, &options) {
            Ok(stats) => calls += stats.calls,
            Err(mismatch) => panic!(
                "{mismatch}\nreplay and minimize: cargo run -p weft-fuzzing --bin diff -- --seed {seed} --start {i} --iterations 1"
            ),
        }
        compared += 1;
    }
    // wasm-smith declines about one input in ten (termination instrumentation).
    assert!(
        compared > MODULES_PER_SEED * 4 / 5,
        "too few modules generated: {compared}"
    );
    assert!(calls > compared, "too few calls: {calls} in {compared} modules");
}

#[test]
fn differential_seed_0() {
    differential_run(0);
}

#[test]
fn differential_seed_1() {
    differential_run(1);
}

fn crash_run(target: &str, iterations: u64, run: impl Fn(&[u8]), input: impl Fn(&mut Rng) -> Vec<u8>) {
    for i in 0..iterations {
        let mut rng = Rng::new(iteration_seed(0, i));
        let data = input(&mut rng);
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&data))).is_err() {
            panic!(
                "{target} panicked; replay: cargo run -p weft-fuzzing --bin crash -- --target {target} --seed 0 --iterations {}",
                i + 1
            );
        }
    }
}

fn random_input(rng: &mut Rng) -> Vec<u8> {
    let len = rng.below(8192) as usize;
    rng.bytes(len)
}

#[test]
fn module_new_never_panics() {
    let engine = weft_fuzzing::targets::module_new_engine();
    crash_run("module_new", 1000, |d| module_new_target(&engine, d), mutated_module);
}

#[test]
fn instantiate_and_call_never_panics() {
    let engine = interruptible_engine();
    crash_run(
        "instantiate_and_call",
        500,
        |d| instantiate_and_call_target(&engine, d),
        random_input,
    );
}

#[test]
fn api_calls_never_panic() {
    let engine = interruptible_engine();
    crash_run("api_calls", 300, |d| api_calls_target(&engine, d), random_input);
}

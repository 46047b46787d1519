//! `crash`: the crash-freedom targets on the stable toolchain, driven by a
//! seeded random source instead of libFuzzer.
//!
//! ```text
//! cargo run --release -p weft-fuzzing --bin crash -- --target api_calls --seconds 60 --seed 0
//! ```
//!
//! Targets: `module_new`, `instantiate_and_call`, `api_calls`,
//! `concurrent_api`, `differential`. A panic is a finding: the input that caused it is written
//! to `--findings` (default `fuzz-findings/`) and the exit status is 1.
//! Prints the number of executions and executions per second.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use weft_fuzzing::api_calls::api_calls_target;
use weft_fuzzing::generate::{iteration_seed, Rng};
use weft_fuzzing::targets::{
    differential_target, instantiate_and_call_target, interruptible_engine, module_new_target, mutated_module,
};

/// One crash-freedom target, fed one input.
type Target<'a> = Box<dyn Fn(&[u8]) + 'a>;

fn usage() -> ! {
    eprintln!("usage: crash --target NAME [--iterations N | --seconds N] [--seed S] [--findings DIR]");
    std::process::exit(2)
}

fn main() {
    let mut target = String::new();
    let mut iterations = u64::MAX;
    let mut seconds = u64::MAX;
    let mut seed = 0u64;
    let mut findings = PathBuf::from("fuzz-findings");
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| usage());
        match flag.as_str() {
            "--target" => target = value(),
            "--iterations" => iterations = value().parse().unwrap_or_else(|_| usage()),
            "--seconds" => seconds = value().parse().unwrap_or_else(|_| usage()),
            "--seed" => seed = value().parse().unwrap_or_else(|_| usage()),
            "--findings" => findings = PathBuf::from(value()),
            _ => usage(),
        }
    }
    if iterations == u64::MAX && seconds == u64::MAX {
        iterations = 1000;
    }
    let engine = weft_fuzzing::targets::module_new_engine();
    let interruptible = interruptible_engine();
    let concurrent = weft_fuzzing::concurrent_api::fixture();
    if target == "concurrent_api" {
        weft_fuzzing::concurrent_api::quiet_host_panics();
    }
    let run: Target<'_> = match target.as_str() {
        "module_new" => Box::new(|d: &[u8]| module_new_target(&engine, d)),
        "instantiate_and_call" => Box::new(|d: &[u8]| instantiate_and_call_target(&interruptible, d)),
        "api_calls" => Box::new(|d: &[u8]| api_calls_target(&interruptible, d)),
        "concurrent_api" => Box::new(|d: &[u8]| weft_fuzzing::concurrent_api::concurrent_api_target(&concurrent, d)),
        "differential" => Box::new(differential_target),
        _ => usage(),
    };
    let deadline = Instant::now() + Duration::from_secs(seconds.min(10 * 365 * 86400));
    let started = Instant::now();
    let mut done = 0u64;
    while done < iterations && Instant::now() < deadline {
        let mut rng = Rng::new(iteration_seed(seed, done));
        let data = if target == "module_new" {
            mutated_module(&mut rng)
        } else {
            let len = rng.below(8192) as usize;
            rng.bytes(len)
        };
        if catch_unwind(AssertUnwindSafe(|| run(&data))).is_err() {
            let _ = std::fs::create_dir_all(&findings);
            let path = findings.join(format!("crash-{target}-seed{seed}-iter{done}.bin"));
            let _ = std::fs::write(&path, &data);
            eprintln!(
                "crash: {target} panicked at iteration {done}; input written to {}",
                path.display()
            );
            std::process::exit(1);
        }
        done += 1;
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "crash: target {target} seed {seed}: {done} executions in {secs:.1}s ({:.1}/s), no crash",
        done as f64 / secs.max(1e-9)
    );
}

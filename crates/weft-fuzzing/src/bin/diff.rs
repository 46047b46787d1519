//! `diff`: differential fuzzing of Weft against wasmi on the stable
//! toolchain.
//!
//! ```text
//! cargo run --release -p weft-fuzzing --bin diff -- --iterations 100000 --seed 0
//! cargo run --release -p weft-fuzzing --bin diff -- --iterations 20000 --gc
//! cargo run --release -p weft-fuzzing --bin diff -- --replay findings/x.wasm --arg-seed 7
//! ```
//!
//! Iteration `i` of a run with seed `S` is generated from
//! `iteration_seed(S, i)` alone, so `--seed S --start i --iterations 1`
//! replays it. A mismatch is minimized and written to `--findings`
//! (default `fuzz-findings/`) as `.wasm`, `.wat`, `.wast` and `.txt` (with a
//! one-line reproduction command); the exit status is then 1.
//!
//! With `--gc`, modules may also use the GC and threads proposals; those
//! that do run on two Weft configurations instead of Weft and wasmi (see
//! `weft_fuzzing::differential`).

use std::path::PathBuf;
use std::time::Instant;
use weft_fuzzing::differential::{differential_with, needs_weft_reference, DiffOptions};
use weft_fuzzing::findings::{minimize, reproduction_command, write_finding};
use weft_fuzzing::generate::{iteration_case, GenOptions};
use weft_fuzzing::runtimes::{WasmiRuntime, WeftRuntime};
use weft_fuzzing::targets::fuzz_config;
use weft_fuzzing::Stats;

struct Args {
    iterations: u64,
    seed: u64,
    start: u64,
    findings: PathBuf,
    replay: Option<PathBuf>,
    arg_seed: u64,
    max_input: usize,
    fuel: u32,
    shrink_attempts: u32,
    keep_going: bool,
    verbose: bool,
    gc: bool,
}

fn usage() -> ! {
    eprintln!(
        "usage: diff [--iterations N] [--seed S] [--start I] [--findings DIR] [--max-input BYTES]\n\
         \x20           [--fuel N] [--shrink-attempts N] [--keep-going] [--verbose] [--gc]\n\
         \x20      diff --replay FILE.wasm|FILE.wat [--arg-seed N]"
    );
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut args = Args {
        iterations: 1000,
        seed: 0,
        start: 0,
        findings: PathBuf::from("fuzz-findings"),
        replay: None,
        arg_seed: 0,
        max_input: 4096,
        fuel: GenOptions::default().fuel,
        shrink_attempts: 2000,
        keep_going: false,
        verbose: false,
        gc: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| usage());
        let number = |s: String| s.parse::<u64>().unwrap_or_else(|_| usage());
        match flag.as_str() {
            "--iterations" => args.iterations = number(value()),
            "--seed" => args.seed = number(value()),
            "--start" => args.start = number(value()),
            "--findings" => args.findings = PathBuf::from(value()),
            "--replay" => args.replay = Some(PathBuf::from(value())),
            "--arg-seed" => args.arg_seed = number(value()),
            "--max-input" => args.max_input = number(value()) as usize,
            "--fuel" => args.fuel = number(value()) as u32,
            "--shrink-attempts" => args.shrink_attempts = number(value()) as u32,
            "--keep-going" => args.keep_going = true,
            "--verbose" => args.verbose = true,
            "--gc" => args.gc = true,
            _ => usage(),
        }
    }
    args
}

fn main() {
    let args = parse_args();
    let options = DiffOptions::default();
    if let Some(path) = &args.replay {
        // `.wat` files are accepted too.
        let wasm = wat::parse_file(path).unwrap_or_else(|e| {
            eprintln!("cannot read {}: {e}", path.display());
            std::process::exit(2)
        });
        match weft_fuzzing::differential(&wasm, args.arg_seed, &options) {
            Ok(stats) => println!("agree: {stats:?}"),
            Err(m) => {
                println!("{m}");
                std::process::exit(1)
            }
        }
        return;
    }

    let gen = GenOptions {
        fuel: args.fuel,
        gc: args.gc,
        threads: args.gc,
        ..GenOptions::default()
    };
    let started = Instant::now();
    // Even iterations run on Weft as configured by default (optimizing),
    // odd ones with Cranelift's optimizations off.
    let mut weft_speed = WeftRuntime::default();
    let mut weft_none = WeftRuntime::new(weft::Config::new().cranelift_opt_level(weft::OptLevel::None));
    let mut wasmi = WasmiRuntime::new();
    // GC and threads modules: Weft against Weft (see `differential`).
    let mut weft_gc = WeftRuntime::new(&fuzz_config());
    let mut weft_gc_reference =
        WeftRuntime::new(fuzz_config().cranelift_opt_level(weft::OptLevel::None)).collecting_before_calls();
    let mut weft_only = 0u64;
    let mut total = Stats::default();
    let mut mismatches = 0u64;
    let mut last_report = Instant::now();
    for i in args.start..args.start + args.iterations {
        let Some((wasm, arg_seed)) = iteration_case(args.seed, i, args.max_input, &gen) else {
            continue;
        };
        let result = if needs_weft_reference(&wasm) {
            weft_only += 1;
            differential_with(&mut weft_gc, &mut weft_gc_reference, &wasm, arg_seed, &options)
        } else {
            let weft = if i % 2 == 0 { &mut weft_speed } else { &mut weft_none };
            differential_with(weft, &mut wasmi, &wasm, arg_seed, &options)
        };
        if args.verbose {
            let info = weft_fuzzing::generate::ModuleInfo::parse(&wasm);
            eprintln!(
                "iteration {i}: {} bytes, {} exports: {:?}",
                wasm.len(),
                info.exports.len(),
                result.as_ref().map_err(|m| m.to_string())
            );
        }
        match result {
            Ok(stats) => total += stats,
            Err(mismatch) => {
                mismatches += 1;
                eprintln!("iteration {i}: {mismatch}");
                let small = minimize(&wasm, arg_seed, &options, mismatch.kind, args.shrink_attempts);
                let small_mismatch = weft_fuzzing::differential(&small, arg_seed, &options)
                    .err()
                    .unwrap_or(mismatch.clone());
                let name = format!("seed{}-iter{i}", args.seed);
                let _ = write_finding(&args.findings, &format!("{name}-full"), &wasm, arg_seed, &mismatch);
                match write_finding(&args.findings, &name, &small, arg_seed, &small_mismatch) {
                    Ok(path) => eprintln!(
                        "  minimized {} -> {} bytes: {small_mismatch}\n  reproduce: {}",
                        wasm.len(),
                        small.len(),
                        reproduction_command(&path, arg_seed)
                    ),
                    Err(e) => eprintln!("  cannot write finding: {e}"),
                }
                if !args.keep_going {
                    break;
                }
            }
        }
        if last_report.elapsed().as_secs() >= 30 {
            last_report = Instant::now();
            eprintln!(
                "... {} iterations, {:.0}s, {total:?}",
                i + 1 - args.start,
                started.elapsed().as_secs_f64()
            );
        }
    }
    println!(
        "diff: seed {} iterations {}..{}: {} mismatches, {weft_only} modules (GC or threads) on Weft against Weft, {total:?}, {:.1}s",
        args.seed,
        args.start,
        args.start + args.iterations,
        mismatches,
        started.elapsed().as_secs_f64()
    );
    if mismatches > 0 {
        std::process::exit(1);
    }
}

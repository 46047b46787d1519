//! Runs every sightglass benchmark program in `../shared/sightglass` (or
//! `$WEFT_SIGHTGLASS`) the way a user would,
//! `weft run --dir . -W unknown-imports-default=y PROGRAM.wasm` from the
//! program's folder, and compares its stdout and stderr with the
//! `*.stdout.expected` and `*.stderr.expected` files beside it. The programs
//! are WASI preview1 commands that read their inputs from `.` and import
//! `bench.start`/`bench.end`, which the switch stubs.
//!
//! Without the folder the tests print a note and pass, unless `CI` is set:
//! then they fail.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

fn sightglass_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("WEFT_SIGHTGLASS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/sightglass"),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var_os("CI").is_some() {
        panic!(
            "the sightglass programs are missing at {} (set WEFT_SIGHTGLASS)",
            dir.display()
        );
    }
    eprintln!(
        "note: skipping: no sightglass programs at {} (set WEFT_SIGHTGLASS)",
        dir.display()
    );
    None
}

/// Runs `folder/name.wasm` and compares its output with
/// `folder/<expected>.stdout.expected` and `.stderr.expected`.
fn run(folder: &str, name: &str, expected: &str) {
    let Some(root) = sightglass_dir() else { return };
    let dir = root.join(folder);
    let wasm = format!("{name}.wasm");
    assert!(dir.join(&wasm).is_file(), "missing {}", dir.join(&wasm).display());
    let start = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["run", "--dir", ".", "-W", "unknown-imports-default=y", &wasm])
        .current_dir(&dir)
        .output()
        .expect("failed to start weft");
    eprintln!("{folder}/{wasm}: {:.2?}", start.elapsed());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{folder}/{wasm} failed: {}\n{stderr}",
        output.status
    );
    let want_out = std::fs::read(dir.join(format!("{expected}.stdout.expected"))).expect("stdout.expected");
    let want_err = std::fs::read(dir.join(format!("{expected}.stderr.expected"))).expect("stderr.expected");
    assert!(
        output.stdout == want_out,
        "{folder}/{wasm}: stdout differs from {expected}.stdout.expected:\n{}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(
        output.stderr == want_err,
        "{folder}/{wasm}: stderr differs from {expected}.stderr.expected:\n{stderr}"
    );
}

macro_rules! benchmarks {
    ($($test:ident => $folder:literal;)*) => {$(
        #[test]
        fn $test() {
            run($folder, "benchmark", "benchmark");
        }
    )*};
}

macro_rules! shootout {
    ($($test:ident => $name:literal;)*) => {$(
        #[test]
        fn $test() {
            run("shootout", $name, $name);
        }
    )*};
}

benchmarks! {
    blake3_scalar => "blake3-scalar";
    bz2 => "bz2";
    noop => "noop";
    pulldown_cmark => "pulldown-cmark";
    quicksort => "quicksort";
}

shootout! {
    shootout_ackermann => "shootout-ackermann";
    shootout_base64 => "shootout-base64";
    shootout_ctype => "shootout-ctype";
    shootout_ed25519 => "shootout-ed25519";
    shootout_fib2 => "shootout-fib2";
    shootout_gimli => "shootout-gimli";
    shootout_heapsort => "shootout-heapsort";
    shootout_keccak => "shootout-keccak";
    shootout_matrix => "shootout-matrix";
    shootout_memmove => "shootout-memmove";
    shootout_minicsv => "shootout-minicsv";
    shootout_nestedloop => "shootout-nestedloop";
    shootout_random => "shootout-random";
    shootout_ratelimit => "shootout-ratelimit";
    shootout_seqhash => "shootout-seqhash";
    shootout_sieve => "shootout-sieve";
    shootout_switch => "shootout-switch";
    shootout_xblabla20 => "shootout-xblabla20";
    shootout_xchacha20 => "shootout-xchacha20";
}

/// Every program in the folder has a test above: a program added to
/// shared/ without one fails here instead of going untested.
#[test]
fn every_program_has_a_test() {
    let Some(root) = sightglass_dir() else { return };
    let known = [
        "blake3-scalar/benchmark.wasm",
        "bz2/benchmark.wasm",
        "noop/benchmark.wasm",
        "pulldown-cmark/benchmark.wasm",
        "quicksort/benchmark.wasm",
    ];
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&root).expect("read sightglass dir").flatten() {
        if !entry.path().is_dir() {
            continue;
        }
        for file in std::fs::read_dir(entry.path()).expect("read program dir").flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            let folder = entry.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".wasm") {
                continue;
            }
            let rel = format!("{folder}/{name}");
            let is_shootout = folder == "shootout" && SHOOTOUT.contains(&name.trim_end_matches(".wasm"));
            if !known.contains(&rel.as_str()) && !is_shootout {
                missing.push(rel);
            }
        }
    }
    assert!(missing.is_empty(), "sightglass programs without a test: {missing:?}");
}

const SHOOTOUT: &[&str] = &[
    "shootout-ackermann",
    "shootout-base64",
    "shootout-ctype",
    "shootout-ed25519",
    "shootout-fib2",
    "shootout-gimli",
    "shootout-heapsort",
    "shootout-keccak",
    "shootout-matrix",
    "shootout-memmove",
    "shootout-minicsv",
    "shootout-nestedloop",
    "shootout-random",
    "shootout-ratelimit",
    "shootout-seqhash",
    "shootout-sieve",
    "shootout-switch",
    "shootout-xblabla20",
    "shootout-xchacha20",
];

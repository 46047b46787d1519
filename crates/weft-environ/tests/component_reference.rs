//! Translates every component of the component model's reference tests
//! (`component-model/test/**/*.wast`, without `async/` and the files of
//! `nyi.txt`): valid components must translate or fail with an
//! `unsupported: ` error, and the components of `assert_invalid` and
//! `assert_malformed` must be rejected. Nothing may panic.
//!
//! The tests are read from `$WEFT_COMPONENT_TESTSUITE` if set, else from
//! `../shared/component-model/test` beside the repository. When they are
//! missing the test fails under CI (the `CI` environment variable is set)
//! and is skipped with a note otherwise.

#![cfg(feature = "component-model")]

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use wasmparser::WasmFeatures;
use weft_environ::component::*;

fn suite_dir() -> PathBuf {
    match std::env::var_os("WEFT_COMPONENT_TESTSUITE") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/component-model/test"),
    }
}

/// The features the reference tests are run with (their README's).
fn features() -> WasmFeatures {
    supported_component_features()
        | WasmFeatures::CM_ASYNC
        | WasmFeatures::CM_MORE_ASYNC_BUILTINS
        | WasmFeatures::CM_THREADING
        | WasmFeatures::CM_ASYNC_STACKFUL
        | WasmFeatures::CM_IMPLEMENTS
        | WasmFeatures::CM_FIXED_LENGTH_LISTS
        | WasmFeatures::CM_MAP
}

/// Valid components of the reference tests that `wasmparser` 0.263 (the
/// validator Weft uses) still rejects because the spec changed after it:
/// (file, line of the directive, why). They are counted, not failed; one
/// that translates is reported so that the entry can be removed.
const VALIDATOR_BEHIND_SPEC: &[(&str, usize, &str)] = &[
    (
        "binary/binary.wast",
        974,
        "the byte after `canon lift`'s options is no longer `cancellable` (component-model#716)",
    ),
    (
        "validation/kebab.wast",
        4,
        "`a1` and `a-1` no longer conflict as import names",
    ),
];

#[derive(Default)]
struct Counts {
    files: usize,
    valid_translated: usize,
    valid_unsupported: usize,
    invalid_rejected: usize,
    malformed_rejected_by_text_parser: usize,
    unsupported: BTreeMap<String, usize>,
    validator_behind: usize,
    notes: Vec<String>,
    failures: Vec<String>,
}

fn wast_files(dir: &Path, skip: &[String], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "async") {
                continue;
            }
            wast_files(&path, skip, out);
        } else if path.extension().is_some_and(|e| e == "wast")
            && !skip.iter().any(|s| path.ends_with(s.trim_start_matches("./")))
        {
            out.push(path);
        }
    }
}

/// Translates `bytes`, turning a panic into a failure.
fn translate(bytes: &[u8]) -> Result<Result<(), String>, String> {
    catch_unwind(AssertUnwindSafe(|| {
        translate_component(bytes, features())
            .map(|_| ())
            .map_err(|e| e.message)
    }))
    .map_err(|_| "translation panicked".to_string())
}

fn check_valid(bytes: &[u8], at: &str, counts: &mut Counts) {
    let known = VALIDATOR_BEHIND_SPEC
        .iter()
        .find(|(file, line, _)| at.ends_with(&format!("{file}:{line}")));
    match translate(bytes) {
        Ok(Ok(())) if known.is_some() => {
            counts.valid_translated += 1;
            counts
                .notes
                .push(format!("{at}: translates now; remove it from VALIDATOR_BEHIND_SPEC"));
        }
        Ok(Ok(())) => counts.valid_translated += 1,
        Ok(Err(_)) if known.is_some() => counts.validator_behind += 1,
        Ok(Err(message)) if message.starts_with("unsupported: ") => {
            counts.valid_unsupported += 1;
            // Group by the construct, without details like indices.
            let key = message.split(" (").next().unwrap_or(&message).to_string();
            *counts.unsupported.entry(key).or_default() += 1;
        }
        Ok(Err(message)) => counts
            .failures
            .push(format!("{at}: valid component rejected: {message}")),
        Err(panic) => counts.failures.push(format!("{at}: {panic}")),
    }
}

fn check_rejected(bytes: &[u8], at: &str, counts: &mut Counts) {
    match translate(bytes) {
        Ok(Ok(())) => counts.failures.push(format!("{at}: invalid component accepted")),
        Ok(Err(_)) => counts.invalid_rejected += 1,
        Err(panic) => counts.failures.push(format!("{at}: {panic}")),
    }
}

fn is_component(wat: &wast::QuoteWat<'_>) -> bool {
    matches!(
        wat,
        wast::QuoteWat::Wat(wast::Wat::Component(_)) | wast::QuoteWat::QuoteComponent(..)
    )
}

fn run_file(path: &Path, counts: &mut Counts) {
    counts.files += 1;
    let name = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => return counts.failures.push(format!("{name}: {e}")),
    };
    let buf = match wast::parser::ParseBuffer::new(&text) {
        Ok(buf) => buf,
        Err(e) => return counts.failures.push(format!("{name}: {e}")),
    };
    let script = match wast::parser::parse::<wast::Wast>(&buf) {
        Ok(script) => script,
        Err(e) => return counts.failures.push(format!("{name}: cannot parse the script: {e}")),
    };
    for directive in script.directives {
        let (line, _) = directive.span().linecol_in(&text);
        let at = format!("{name}:{}", line + 1);
        match directive {
            wast::WastDirective::Module(mut wat) | wast::WastDirective::ModuleDefinition(mut wat)
                if is_component(&wat) =>
            {
                match wat.encode() {
                    Ok(bytes) => check_valid(&bytes, &at, counts),
                    Err(e) => counts.failures.push(format!("{at}: cannot encode: {e}")),
                }
            }
            wast::WastDirective::AssertTrap {
                exec: wast::WastExecute::Wat(mut wat @ wast::Wat::Component(_)),
                ..
            }
            | wast::WastDirective::AssertUnlinkable {
                module: mut wat @ wast::Wat::Component(_),
                ..
            } => match wat.encode() {
                Ok(bytes) => check_valid(&bytes, &at, counts),
                Err(e) => counts.failures.push(format!("{at}: cannot encode: {e}")),
            },
            wast::WastDirective::AssertInvalid { mut module, .. }
            | wast::WastDirective::AssertMalformed { mut module, .. }
                if is_component(&module) =>
            {
                match module.encode() {
                    Ok(bytes) => check_rejected(&bytes, &at, counts),
                    Err(_) => counts.malformed_rejected_by_text_parser += 1,
                }
            }
            _ => {}
        }
    }
}

#[test]
fn reference_tests() {
    let dir = suite_dir();
    if !dir.is_dir() {
        let message = format!(
            "component model tests not found at `{}` (set WEFT_COMPONENT_TESTSUITE)",
            dir.display()
        );
        if std::env::var_os("CI").is_some() {
            panic!("{message}");
        }
        eprintln!("note: skipping: {message}");
        return;
    }
    let skip: Vec<String> = std::fs::read_to_string(dir.join("nyi.txt"))
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect();
    let mut files = Vec::new();
    wast_files(&dir, &skip, &mut files);
    assert!(!files.is_empty(), "no .wast files under {}", dir.display());

    // Deeply nested scripts need more stack than a test thread has.
    let counts = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let mut counts = Counts::default();
            for file in &files {
                run_file(file, &mut counts);
            }
            counts
        })
        .expect("spawn the script thread")
        .join()
        .expect("the script thread panicked");

    println!(
        "{} files: {} valid components translated, {} valid components unsupported, \
         {} invalid or malformed components rejected (+{} rejected by the text parser)",
        counts.files,
        counts.valid_translated,
        counts.valid_unsupported,
        counts.invalid_rejected,
        counts.malformed_rejected_by_text_parser
    );
    for (what, n) in &counts.unsupported {
        println!("  {n:4} x {what}");
    }
    println!(
        "{} valid components rejected by wasmparser, which is behind the spec (VALIDATOR_BEHIND_SPEC)",
        counts.validator_behind
    );
    for note in &counts.notes {
        println!("note: {note}");
    }
    assert!(
        counts.failures.is_empty(),
        "{} failures:\n{}",
        counts.failures.len(),
        counts.failures.join("\n")
    );
}

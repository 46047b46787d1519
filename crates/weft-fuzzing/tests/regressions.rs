//! The regression corpus: every mismatch or crash the fuzzers found, as the
//! minimized module (`tests/regressions/NAME.wat`) and the expected results
//! (`NAME.wast`: the module with assertions of the reference engine's
//! outcomes; its first line records the argument seed).
//!
//! Each case runs twice: the `.wast` script through Weft (`weft-wast`; only
//! for modules without imports, which a script cannot supply), and the
//! `.wat` module through the differential oracle against wasmi, which also
//! compares memories, globals and tables after every call.

use std::path::{Path, PathBuf};
use weft_fuzzing::{differential, DiffOptions};

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "wast"))
                .collect()
        })
        .unwrap_or_default();
    cases.sort();
    cases
}

fn arg_seed(script: &str) -> u64 {
    script
        .lines()
        .next()
        .and_then(|l| l.strip_prefix(";; arg-seed: "))
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0)
}

#[test]
fn regression_corpus() {
    let mut failures = Vec::new();
    for wast in cases() {
        let name = wast.file_stem().unwrap().to_string_lossy().to_string();
        let script = std::fs::read_to_string(&wast).expect("readable script");
        let wat = wast.with_extension("wat");
        let wasm = wat::parse_file(&wat).unwrap_or_else(|e| panic!("{}: {e}", wat.display()));
        // A script cannot supply the harness's host imports: modules with
        // imports are checked through the differential oracle only.
        let engine = weft::Engine::default();
        let has_imports = weft::Module::new(&engine, &wasm).is_ok_and(|m| m.imports().len() > 0);
        if !has_imports {
            let mut context = weft_wast::WastContext::new(weft::Store::new(&engine, ()));
            if let Err(e) = context.run_buffer(&wast.to_string_lossy(), script.as_bytes()) {
                failures.push(format!("{name}.wast: {e:#}"));
            }
        }
        if let Err(m) = differential(&wasm, arg_seed(&script), &DiffOptions::default()) {
            failures.push(format!("{name}.wat: {m}"));
        }
    }
    assert!(failures.is_empty(), "regressions:\n{}", failures.join("\n"));
}

//! Compiles the sightglass benchmark programs (real compiler output).

use weft_cranelift::Compiler;
use weft_environ::{supported_features, translate_module};

fn wasm_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            wasm_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "wasm") {
            out.push(path);
        }
    }
}

#[test]
fn sightglass_benchmarks_compile() {
    let mut files = Vec::new();
    wasm_files(std::path::Path::new("/work/shared/sightglass"), &mut files);
    files.sort();
    let compiler = Compiler::new_native().unwrap();
    let mut compiled = 0;
    for path in &files {
        let wasm = std::fs::read(path).unwrap();
        let translation = match translate_module(&wasm, supported_features()) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{}: not translatable: {e}", path.display());
                continue;
            }
        };
        let start = std::time::Instant::now();
        let module = compiler
            .compile_module(&translation, false)
            .unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
        eprintln!(
            "{}: {} functions, {} bytes of code in {:?}",
            path.display(),
            module.funcs.len(),
            module.code.len(),
            start.elapsed()
        );
        compiled += 1;
    }
    assert!(files.is_empty() || compiled > 0);
}

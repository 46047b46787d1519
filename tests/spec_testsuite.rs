//! Runs the scope-1 files of the WebAssembly spec testsuite (WebAssembly 2.0
//! without SIMD; see `shared/wasm-testsuite-scopes.md`) through
//! `weft_wast::WastContext`, one test per file.
//!
//! The suite is read from `$WEFT_TESTSUITE` if set, else from
//! `../shared/wasm-testsuite` beside the repository. When the suite or a file
//! is missing the test fails under CI (the `CI` environment variable is set)
//! and is skipped with a note otherwise.

use std::path::PathBuf;

use weft::{Engine, Store};
use weft_wast::{WastContext, WastFailures};

/// Stack size of the thread each script runs on: the script parser and
/// deeply nested test modules need more than a test thread's default.
const SCRIPT_THREAD_STACK: usize = 32 << 20;

/// The directory holding the spec testsuite's `.wast` files.
fn suite_dir() -> PathBuf {
    match std::env::var_os("WEFT_TESTSUITE") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("shared")
            .join("wasm-testsuite"),
    }
}

/// Runs one script of the suite with a fresh store, panicking with the list
/// of failed directives if any failed.
fn run_spec_file(file: &str) {
    let path = suite_dir().join(file);
    if !path.is_file() {
        let message = format!(
            "spec testsuite file `{}` not found (set WEFT_TESTSUITE to the suite directory)",
            path.display()
        );
        if std::env::var_os("CI").is_some() {
            panic!("{message}");
        }
        eprintln!("note: skipping {file}: {message}");
        return;
    }

    let script = path.clone();
    let outcome = std::thread::Builder::new()
        .name(file.to_string())
        .stack_size(SCRIPT_THREAD_STACK)
        .spawn(move || -> anyhow::Result<()> {
            let engine = Engine::new(&weft_wast::spec_config())?;
            let store = Store::new(&engine, ());
            let mut context = WastContext::new(store);
            context.register_spectest()?;
            context.run_file(&script)
        })
        .map_err(|e| format!("failed to start the script thread: {e}"))
        .and_then(|handle| handle.join().map_err(|_| "the script runner panicked".to_string()));

    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(err)) => match err.downcast_ref::<WastFailures>() {
            Some(failures) => {
                let lines: Vec<String> = failures.failures.iter().map(|f| format!("  {f}")).collect();
                panic!(
                    "{file}: {} of {} directives failed:\n{}",
                    failures.failures.len(),
                    failures.directives,
                    lines.join("\n")
                );
            }
            None => panic!("{file}: {err:#}"),
        },
        Err(message) => panic!("{file}: {message}"),
    }
}

/// Defines one `#[test]` per spec file.
macro_rules! spec_tests {
    ($($name:ident => $file:literal,)*) => {
        $(
            #[test]
            fn $name() {
                run_spec_file($file);
            }
        )*
    };
}

spec_tests! {
    annotations => "annotations.wast",
    binary_gc => "binary-gc.wast",
    binary => "binary.wast",
    block => "block.wast",
    br => "br.wast",
    bulk => "bulk.wast",
    call => "call.wast",
    call_indirect => "call_indirect.wast",
    comments => "comments.wast",
    r#const => "const.wast",
    conversions => "conversions.wast",
    custom => "custom.wast",
    endianness => "endianness.wast",
    f32 => "f32.wast",
    f32_bitwise => "f32_bitwise.wast",
    f32_cmp => "f32_cmp.wast",
    f64 => "f64.wast",
    f64_bitwise => "f64_bitwise.wast",
    f64_cmp => "f64_cmp.wast",
    fac => "fac.wast",
    float_exprs => "float_exprs.wast",
    float_literals => "float_literals.wast",
    float_memory => "float_memory.wast",
    float_misc => "float_misc.wast",
    forward => "forward.wast",
    func_ptrs => "func_ptrs.wast",
    i32 => "i32.wast",
    i64 => "i64.wast",
    id => "id.wast",
    r#if => "if.wast",
    inline_module => "inline-module.wast",
    int_exprs => "int_exprs.wast",
    int_literals => "int_literals.wast",
    labels => "labels.wast",
    left_to_right => "left-to-right.wast",
    load => "load.wast",
    local_get => "local_get.wast",
    local_set => "local_set.wast",
    r#loop => "loop.wast",
    memory_copy => "memory_copy.wast",
    memory_fill => "memory_fill.wast",
    memory_init => "memory_init.wast",
    memory_redundancy => "memory_redundancy.wast",
    memory_size => "memory_size.wast",
    memory_trap => "memory_trap.wast",
    names => "names.wast",
    nop => "nop.wast",
    obsolete_keywords => "obsolete-keywords.wast",
    ref_func => "ref_func.wast",
    r#return => "return.wast",
    skip_stack_guard_page => "skip-stack-guard-page.wast",
    stack => "stack.wast",
    start => "start.wast",
    store => "store.wast",
    switch => "switch.wast",
    table_copy => "table_copy.wast",
    table_fill => "table_fill.wast",
    table_get => "table_get.wast",
    table_grow => "table_grow.wast",
    table_set => "table_set.wast",
    table_size => "table_size.wast",
    token => "token.wast",
    traps => "traps.wast",
    r#type => "type.wast",
    unreachable => "unreachable.wast",
    unwind => "unwind.wast",
    utf8_custom_section_id => "utf8-custom-section-id.wast",
    utf8_import_field => "utf8-import-field.wast",
    utf8_import_module => "utf8-import-module.wast",
    utf8_invalid_encoding => "utf8-invalid-encoding.wast",
}

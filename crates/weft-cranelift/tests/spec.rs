//! Compiles every module of the spec testsuite that Weft can translate.
//!
//! Only compilation is checked (Cranelift's verifier runs in debug builds);
//! execution is tested by the runtime.

use std::path::{Path, PathBuf};
use wast::lexer::Lexer;
use wast::parser::{self, ParseBuffer};
use wast::{QuoteWat, Wast, WastDirective, WastExecute};
use weft_cranelift::Compiler;
use weft_environ::{supported_features, translate_module};

const TESTSUITE: &str = "/work/shared/wasm-testsuite";
const SCOPES: &str = "/work/shared/wasm-testsuite-scopes.md";

/// The files listed under a "## Scope N" heading.
fn scope_files(scope: u32) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(SCOPES).expect("scopes file");
    let heading = format!("## Scope {scope}");
    let mut files = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("## ") {
            inside = line == heading || line.starts_with(&format!("{heading} "));
            continue;
        }
        if let Some(name) = line.strip_prefix("- ").filter(|_| inside) {
            files.push(Path::new(TESTSUITE).join(name.trim()));
        }
    }
    files
}

#[derive(Default, Debug)]
struct Stats {
    compiled: usize,
    untranslatable: usize,
    unparsable_files: usize,
    failures: Vec<String>,
}

fn compile_wasm(compiler: &Compiler, wasm: &[u8], what: &str, stats: &mut Stats) {
    let translation = match translate_module(wasm, supported_features()) {
        Ok(t) => t,
        Err(_) => {
            stats.untranslatable += 1;
            return;
        }
    };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        compiler.compile_module(&translation, false)
    }));
    match result {
        Ok(Ok(_)) => stats.compiled += 1,
        Ok(Err(e)) => stats.failures.push(format!("{what}: {e:#}")),
        Err(_) => stats.failures.push(format!("{what}: panicked")),
    }
}

/// Compiles the modules of one script. A script that does not parse is an
/// error only if `must_parse` (the `wast` crate does not know every
/// proposal's syntax).
fn compile_file(compiler: &Compiler, path: &Path, must_parse: bool, stats: &mut Stats) {
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lexer = Lexer::new(&src);
    lexer.allow_confusing_unicode(true);
    let buf = match ParseBuffer::new_with_lexer(lexer) {
        Ok(buf) => buf,
        Err(e) => return stats.failures.push(format!("{}: lex error {e}", path.display())),
    };
    let wast = match parser::parse::<Wast>(&buf) {
        Ok(w) => w,
        Err(_) if !must_parse => {
            stats.unparsable_files += 1;
            return;
        }
        Err(e) => return stats.failures.push(format!("{}: parse error {e}", path.display())),
    };
    for directive in wast.directives {
        let (mut module, span) = match directive {
            WastDirective::Module(m) | WastDirective::ModuleDefinition(m) => {
                let span = match &m {
                    QuoteWat::Wat(w) => w.span(),
                    QuoteWat::QuoteModule(s, _) | QuoteWat::QuoteComponent(s, _) => *s,
                };
                (m, span)
            }
            WastDirective::AssertTrap {
                exec: WastExecute::Wat(w),
                span,
                ..
            } => (QuoteWat::Wat(w), span),
            WastDirective::AssertUnlinkable { module, span, .. } => (QuoteWat::Wat(module), span),
            _ => continue,
        };
        let (line, col) = span.linecol_in(&src);
        let what = format!("{}:{}:{}", path.display(), line + 1, col + 1);
        match module.encode() {
            Ok(wasm) => compile_wasm(compiler, &wasm, &what, stats),
            Err(_) => stats.untranslatable += 1,
        }
    }
}

fn run(files: &[PathBuf], must_parse: bool) -> Stats {
    let compiler = Compiler::new_native().unwrap();
    let mut stats = Stats::default();
    for f in files {
        compile_file(&compiler, f, must_parse, &mut stats);
    }
    stats
}

#[test]
fn spec_scope1_modules_compile() {
    let files = scope_files(1);
    assert_eq!(files.len(), 70, "scope 1 lists 70 files");
    let stats = run(&files, true);
    eprintln!(
        "scope 1: {} modules compiled, {} not translatable",
        stats.compiled, stats.untranslatable
    );
    assert!(
        stats.failures.is_empty(),
        "{} failures:\n{}",
        stats.failures.len(),
        stats.failures.join("\n")
    );
    assert!(stats.compiled > 500);
}

#[test]
fn spec_scope2_modules_compile() {
    let files = scope_files(2);
    assert_eq!(files.len(), 156, "scope 2 lists 156 files");
    let stats = run(&files, true);
    eprintln!(
        "scope 2: {} modules compiled, {} not translatable",
        stats.compiled, stats.untranslatable
    );
    assert!(
        stats.failures.is_empty(),
        "{} failures:\n{}",
        stats.failures.len(),
        stats.failures.join("\n")
    );
    assert!(stats.compiled > 1000);
}

/// Scopes 3 and 4 need features Weft lacks (GC, exceptions, threads, ...);
/// the modules of them that translate must compile too.
#[test]
fn spec_other_scopes_translatable_modules_compile() {
    let files: Vec<PathBuf> = (3..=4).flat_map(scope_files).collect();
    let stats = run(&files, false);
    eprintln!(
        "scopes 3-4: {} modules compiled, {} not translatable, {} scripts not parsable",
        stats.compiled, stats.untranslatable, stats.unparsable_files
    );
    assert!(
        stats.failures.is_empty(),
        "{} failures:\n{}",
        stats.failures.len(),
        stats.failures.join("\n")
    );
}

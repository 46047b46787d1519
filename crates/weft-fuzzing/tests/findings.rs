//! The files written for a finding replay on Weft: a `.wast` made from a
//! (forced) mismatch asserts wasmi's outcomes, which Weft reproduces.

use weft_fuzzing::differential::{differential_with, DiffOptions};
use weft_fuzzing::findings::{minimize, to_wast};
use weft_fuzzing::generate::{iteration_case, GenOptions};
use weft_fuzzing::runtimes::{Runtime, WasmiRuntime};
use weft_fuzzing::value::{Failure, Outcome, Value, ValueType};
use weft_fuzzing::MismatchKind;

/// wasmi, except that every successful call returning values returns one
/// more in its first `i32` result: a stand-in for a miscompiling engine.
struct OffByOne(WasmiRuntime);

impl Runtime for OffByOne {
    fn name(&self) -> &'static str {
        "off-by-one"
    }
    fn instantiate(&mut self, wasm: &[u8]) -> Result<(), Failure> {
        self.0.instantiate(wasm)
    }
    fn call(&mut self, name: &str, args: &[Value], results: &[ValueType]) -> Outcome {
        let mut out = self.0.call(name, args, results)?;
        if let Some(Value::I32(x)) = out.first_mut() {
            *x = x.wrapping_add(1);
        }
        Ok(out)
    }
    fn global(&mut self, name: &str) -> Option<Value> {
        self.0.global(name)
    }
    fn set_global(&mut self, name: &str, value: Value) -> bool {
        self.0.set_global(name, value)
    }
    fn memory(&mut self, name: &str) -> Option<Vec<u8>> {
        self.0.memory(name)
    }
    fn table(&mut self, name: &str) -> Option<Vec<Value>> {
        self.0.table(name)
    }
}

#[test]
fn wast_of_a_mismatch_replays_on_weft() {
    let options = DiffOptions::default();
    let mut found = 0;
    for i in 0..200 {
        let Some((wasm, arg_seed)) = iteration_case(7, i, 4096, &GenOptions::default()) else {
            continue;
        };
        let mut broken = OffByOne(WasmiRuntime::new());
        let mut reference = WasmiRuntime::new();
        let Err(mismatch) = differential_with(&mut broken, &mut reference, &wasm, arg_seed, &options) else {
            continue;
        };
        assert_eq!(mismatch.kind, MismatchKind::Call);
        // The script cannot supply the harness's host imports.
        let engine = weft::Engine::default();
        if weft::Module::new(&engine, &wasm).is_ok_and(|m| m.imports().len() > 0) {
            continue;
        }
        let wat = wasmprinter::print_bytes(&wasm).unwrap();
        let script = to_wast(&wat, arg_seed, &mismatch);
        let engine = weft::Engine::default();
        let mut context = weft_wast::WastContext::new(weft::Store::new(&engine, ()));
        if let Err(e) = context.run_buffer("finding.wast", script.as_bytes()) {
            panic!("{e:#}\n{script}");
        }
        found += 1;
        if found == 5 {
            break;
        }
    }
    assert_eq!(found, 5, "too few forced mismatches");
}

#[test]
fn minimize_keeps_the_mismatch_kind() {
    // A Weft-independent check of the reducer's plumbing: a module that
    // wasmi and Weft agree on does not shrink into a mismatch.
    let (wasm, arg_seed) = iteration_case(3, 0, 4096, &GenOptions::default()).unwrap();
    let out = minimize(&wasm, arg_seed, &DiffOptions::default(), MismatchKind::Call, 20);
    assert_eq!(out, wasm, "an agreeing module is returned unchanged");
}

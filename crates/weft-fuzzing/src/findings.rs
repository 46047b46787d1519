//! What happens to a mismatch: it is minimized and written down as files a
//! developer can replay and turn into a regression test.

use crate::differential::{differential, DiffOptions, Mismatch, MismatchKind, Step};
use crate::value::Failure;
use std::io;
use std::path::{Path, PathBuf};

/// Shrinks `wasm` with `wasm-shrink` while it still shows a mismatch of the
/// same `kind` with the same argument seed. Returns the smallest module
/// found (or the input when nothing smaller reproduces).
pub fn minimize(wasm: &[u8], arg_seed: u64, options: &DiffOptions, kind: MismatchKind, attempts: u32) -> Vec<u8> {
    let predicate = |candidate: &[u8]| -> anyhow::Result<bool> {
        Ok(matches!(differential(candidate, arg_seed, options), Err(m) if m.kind == kind))
    };
    match wasm_shrink::WasmShrink::default()
        .attempts(attempts)
        .seed(arg_seed)
        .run(wasm.to_vec(), predicate)
    {
        Ok(info) => info.output,
        Err(_) => wasm.to_vec(),
    }
}

/// The command that replays a finding.
pub fn reproduction_command(wasm_path: &Path, arg_seed: u64) -> String {
    format!(
        "cargo run --release -p weft-fuzzing --bin diff -- --replay {} --arg-seed {arg_seed}",
        wasm_path.display()
    )
}

/// Writes a finding into `dir`: `NAME.wasm`, `NAME.wat` (wasmprinter),
/// `NAME.wast` (the module with wasmi's results as assertions: the expected
/// results) and `NAME.txt` (the mismatch and a one-line reproduction
/// command). Returns the path of the `.wasm` file.
pub fn write_finding(dir: &Path, name: &str, wasm: &[u8], arg_seed: u64, mismatch: &Mismatch) -> io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let wasm_path = dir.join(format!("{name}.wasm"));
    std::fs::write(&wasm_path, wasm)?;
    let wat = wasmprinter::print_bytes(wasm).unwrap_or_else(|e| format!(";; wasmprinter failed: {e}\n"));
    std::fs::write(dir.join(format!("{name}.wat")), &wat)?;
    std::fs::write(dir.join(format!("{name}.wast")), to_wast(&wat, arg_seed, mismatch))?;
    let text = format!(
        "{mismatch}\nreproduce: {}\n",
        reproduction_command(&wasm_path, arg_seed)
    );
    std::fs::write(dir.join(format!("{name}.txt")), text)?;
    Ok(wasm_path)
}

fn wast_string(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' | b'\\' => out.push_str(&format!("\\{}", b as char)),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:02x}")),
        }
    }
    out.push('"');
    out
}

/// A `.wast` script of the steps of a mismatch, asserting wasmi's outcomes.
/// Its first line records the argument seed (`;; arg-seed: N`).
pub fn to_wast(wat: &str, arg_seed: u64, mismatch: &Mismatch) -> String {
    let mut out = format!(";; arg-seed: {arg_seed}\n;; {mismatch}\n");
    // The module is named `$M` so that the fuel-refilling helper module can
    // import its fuel global.
    let named = match wat.trim_end().strip_prefix("(module") {
        Some(rest) => format!("(module $M{rest}"),
        None => wat.trim_end().to_string(),
    };
    let mut refuel_helper = false;
    for step in &mismatch.steps {
        match step {
            Step::Instantiate(Ok(())) => out.push_str(&format!("{named}\n")),
            Step::Instantiate(Err(Failure::Trap(t))) => out.push_str(&format!(
                "(assert_trap {}\n  {})\n",
                wat.trim_end(),
                wast_string(t.message())
            )),
            Step::Refuel(fuel) => {
                if !refuel_helper {
                    refuel_helper = true;
                    out.push_str(&format!(
                        "(register \"fuzzed\" $M)\n(module $Refuel\n  (global $fuel (import \"fuzzed\" {}) (mut i32))\n  (func (export \"refuel\") (param i32) local.get 0 global.set $fuel))\n",
                        wast_string(crate::generate::FUEL_EXPORT)
                    ));
                }
                out.push_str(&format!("(invoke $Refuel \"refuel\" (i32.const {fuel}))\n"));
            }
            Step::Instantiate(Err(Failure::Error(e))) => {
                out.push_str(&format!(";; wasmi could not instantiate the module: {e}\n"));
                for line in wat.lines() {
                    out.push_str(&format!(";; {line}\n"));
                }
            }
            Step::Call { name, args, outcome } => {
                let invoke = format!(
                    "(invoke $M {}{})",
                    wast_string(name),
                    args.iter().map(|a| format!(" {}", a.to_wast())).collect::<String>()
                );
                match outcome {
                    Ok(results) => out.push_str(&format!(
                        "(assert_return {invoke}{})\n",
                        results
                            .iter()
                            .map(|r| format!(" {}", r.to_wast_expected()))
                            .collect::<String>()
                    )),
                    Err(Failure::Trap(t)) => {
                        out.push_str(&format!("(assert_trap {invoke} {})\n", wast_string(t.message())))
                    }
                    Err(Failure::Error(e)) => out.push_str(&format!(";; wasmi failed: {e}\n{invoke}\n")),
                }
            }
            Step::Global { name, value } => out.push_str(&format!(
                "(assert_return (get $M {}) {})\n",
                wast_string(name),
                value.to_wast_expected()
            )),
        }
    }
    out
}

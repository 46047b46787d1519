//! The differential oracle: run a module on Weft and on wasmi, call every
//! exported function with generated arguments, and compare results, traps
//! and the exported state (memories, globals, tables) after every step.

use crate::generate::{arbitrary_value, ExportKind, ModuleInfo, Rng};
use crate::runtimes::{Runtime, WasmiRuntime, WeftRuntime};
use crate::value::{describe, outcomes_agree, Failure, Outcome, Value, ValueType};
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// How a differential run exercises a module.
#[derive(Debug, Clone)]
pub struct DiffOptions {
    /// How many times each exported function is called (with fresh arguments).
    pub calls_per_export: usize,
    /// The fuel the module's fuel global ([`crate::generate::FUEL_EXPORT`])
    /// is refilled with before each call, when the module exports one.
    pub fuel_per_call: u32,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            calls_per_export: 2,
            fuel_per_call: crate::generate::GenOptions::default().fuel,
        }
    }
}

/// One step of a run, with the reference engine's (wasmi's) outcome.
#[derive(Debug, Clone)]
pub enum Step {
    /// Instantiation, and whether it failed.
    Instantiate(Result<(), Failure>),
    /// The fuel global was refilled with this much fuel.
    Refuel(u32),
    /// A call of an export with its arguments and outcome.
    Call {
        /// The export's name.
        name: String,
        /// The arguments.
        args: Vec<Value>,
        /// What wasmi returned.
        outcome: Outcome,
    },
    /// The value of an exported global after the previous step.
    Global {
        /// The export's name.
        name: String,
        /// Its value in wasmi.
        value: Value,
    },
}

/// What kind of disagreement was found; the reducer keeps it fixed while it
/// shrinks a module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MismatchKind {
    /// One engine instantiated the module and the other did not, or they
    /// trapped differently.
    Instantiation,
    /// A call returned different values, or trapped differently.
    Call,
    /// An exported global differs after a step.
    Global,
    /// An exported memory differs after a step.
    Memory,
    /// An exported table differs after a step.
    Table,
    /// Weft panicked.
    Panic,
}

/// A disagreement between Weft and wasmi.
#[derive(Debug, Clone)]
pub struct Mismatch {
    /// What disagreed.
    pub kind: MismatchKind,
    /// A human-readable account of it.
    pub message: String,
    /// The steps up to and including the one that disagreed, with wasmi's
    /// outcomes (the expected ones).
    pub steps: Vec<Step>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} mismatch: {}", self.kind, self.message)
    }
}

/// Counters of a run that agreed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Modules both engines instantiated.
    pub instantiated: u64,
    /// Calls compared.
    pub calls: u64,
    /// Calls that trapped (identically) on both engines.
    pub traps: u64,
    /// Runs stopped early because an engine overflowed its stack, whose
    /// depth legitimately differs between engines.
    pub stack_overflows: u64,
    /// How many of those overflowed in wasmi (the rest only in Weft).
    pub wasmi_stack_overflows: u64,
    /// Runs stopped because wasmi ran out of its step bound
    /// ([`crate::runtimes::WASMI_FUEL_PER_STEP`]); Weft is not run then.
    pub out_of_fuel: u64,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.instantiated += o.instantiated;
        self.calls += o.calls;
        self.traps += o.traps;
        self.stack_overflows += o.stack_overflows;
        self.wasmi_stack_overflows += o.wasmi_stack_overflows;
        self.out_of_fuel += o.out_of_fuel;
    }
}

/// Runs `wasm` on both engines and compares them. `arg_seed` seeds the
/// arguments of the calls, so a run is reproducible from the module and
/// the seed. Weft runs twice, as configured by default and with Cranelift's
/// optimizations off; the first disagreement is returned.
///
/// A module that needs a proposal wasmi lacks (GC, typed function
/// references or threads, see [`needs_weft_reference`]) runs on two Weft
/// configurations instead, with the GC and threads proposals on: the
/// default one, and, as the reference, Cranelift's optimizations off with a
/// full collection before every call (a collector that frees or moves a
/// live object, or a value that differs between the two compilations,
/// shows as a disagreement).
pub fn differential(wasm: &[u8], arg_seed: u64, options: &DiffOptions) -> Result<Stats, Mismatch> {
    if needs_weft_reference(wasm) {
        let mut weft = WeftRuntime::new(&crate::runtimes::fuzz_config());
        let mut config = crate::runtimes::fuzz_config();
        config.cranelift_opt_level(weft::OptLevel::None);
        let mut reference = WeftRuntime::new(&config).collecting_before_calls();
        return differential_with(&mut weft, &mut reference, wasm, arg_seed, options);
    }
    let mut wasmi = WasmiRuntime::new();
    let mut weft = WeftRuntime::default();
    let stats = differential_with(&mut weft, &mut wasmi, wasm, arg_seed, options)?;
    let mut weft = WeftRuntime::new(weft::Config::new().cranelift_opt_level(weft::OptLevel::None));
    differential_with(&mut weft, &mut wasmi, wasm, arg_seed, options)?;
    Ok(stats)
}

/// Whether `wasm` needs a proposal that wasmi, the reference interpreter,
/// lacks: it does not validate without GC, typed function references and
/// threads.
pub fn needs_weft_reference(wasm: &[u8]) -> bool {
    use wasmparser::WasmFeatures as F;
    let without = weft_environ::supported_features()
        .difference(F::GC | F::FUNCTION_REFERENCES | F::THREADS | F::SHARED_EVERYTHING_THREADS);
    wasmparser::Validator::new_with_features(without)
        .validate_all(wasm)
        .is_err()
}

/// Like [`differential()`], with engines the caller provides (and may reuse).
pub fn differential_with(
    weft: &mut dyn Runtime,
    reference: &mut dyn Runtime,
    wasm: &[u8],
    arg_seed: u64,
    options: &DiffOptions,
) -> Result<Stats, Mismatch> {
    let mut run = Run {
        weft,
        reference,
        steps: Vec::new(),
        stats: Stats::default(),
    };
    run.run(wasm, arg_seed, options)
}

fn out_of_fuel<T>(outcome: &Result<T, Failure>) -> bool {
    matches!(outcome, Err(Failure::Trap(crate::value::Trap::OutOfFuel)))
}

struct Run<'a> {
    weft: &'a mut dyn Runtime,
    reference: &'a mut dyn Runtime,
    steps: Vec<Step>,
    stats: Stats,
}

/// Runs `f` on Weft, turning a panic into a mismatch.
fn guarded<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic".to_string())
    })
}

impl Run<'_> {
    fn mismatch(&self, kind: MismatchKind, message: String) -> Mismatch {
        Mismatch {
            kind,
            message,
            steps: self.steps.clone(),
        }
    }

    fn run(&mut self, wasm: &[u8], arg_seed: u64, options: &DiffOptions) -> Result<Stats, Mismatch> {
        let info = ModuleInfo::parse(wasm);
        let expected = self.reference.instantiate(wasm);
        if out_of_fuel(&expected) {
            self.stats.out_of_fuel += 1;
            return Ok(self.stats);
        }
        let actual = guarded(|| self.weft.instantiate(wasm))
            .map_err(|p| self.mismatch(MismatchKind::Panic, format!("weft panicked instantiating: {p}")))?;
        self.steps.push(Step::Instantiate(expected.clone()));
        match (&expected, &actual) {
            (Ok(()), Ok(())) => {}
            (Err(e), _) | (_, Err(e)) if e.is_stack_overflow() => {
                self.stats.stack_overflows += 1;
                self.stats.wasmi_stack_overflows += matches!(&expected, Err(e) if e.is_stack_overflow()) as u64;
                return Ok(self.stats);
            }
            // Both refused or trapped: the kinds of errors at instantiation
            // differ between engines (a data segment out of bounds is an
            // error in one and a trap in another), so only two traps of
            // different kinds disagree.
            (Err(Failure::Trap(a)), Err(Failure::Trap(b))) if a != b => {
                return Err(self.mismatch(
                    MismatchKind::Instantiation,
                    format!("instantiation trapped with {a:?} in wasmi but {b:?} in weft"),
                ))
            }
            (Err(_), Err(_)) => return Ok(self.stats),
            (e, a) => {
                return Err(self.mismatch(
                    MismatchKind::Instantiation,
                    format!("instantiation: wasmi {e:?}, weft {a:?}"),
                ))
            }
        }
        self.stats.instantiated += 1;
        self.compare_state(&info)?;

        let mut rng = Rng::new(arg_seed);
        let fuel = info
            .exports
            .iter()
            .find(|e| e.kind == ExportKind::Fuel)
            .map(|e| e.name.clone());
        for export in &info.exports {
            let ExportKind::Func(Some((params, results))) = &export.kind else {
                continue;
            };
            for _ in 0..options.calls_per_export {
                if let Some(fuel) = &fuel {
                    let value = Value::I32(options.fuel_per_call as i32);
                    let refilled = self.reference.set_global(fuel, value);
                    let refilled_weft = guarded(|| self.weft.set_global(fuel, value)).map_err(|p| {
                        self.mismatch(MismatchKind::Panic, format!("weft panicked setting a global: {p}"))
                    })?;
                    if refilled != refilled_weft {
                        return Err(self.mismatch(
                            MismatchKind::Global,
                            format!("setting global {fuel:?}: wasmi {refilled}, weft {refilled_weft}"),
                        ));
                    }
                    self.steps.push(Step::Refuel(options.fuel_per_call));
                }
                let args: Vec<Value> = params.iter().map(|t| arbitrary_value(&mut rng, *t)).collect();
                if !self.call(&export.name, &args, results)? {
                    return Ok(self.stats);
                }
                self.compare_state(&info)?;
            }
        }
        Ok(self.stats)
    }

    /// Calls `name` on both engines; `Ok(false)` stops the run (a stack
    /// overflow on either side).
    fn call(&mut self, name: &str, args: &[Value], results: &[ValueType]) -> Result<bool, Mismatch> {
        let expected = self.reference.call(name, args, results);
        if out_of_fuel(&expected) {
            self.stats.out_of_fuel += 1;
            return Ok(false);
        }
        let actual = guarded(|| self.weft.call(name, args, results)).map_err(|p| {
            self.mismatch(
                MismatchKind::Panic,
                format!("weft panicked calling {name:?}{args:?}: {p}"),
            )
        })?;
        self.steps.push(Step::Call {
            name: name.to_string(),
            args: args.to_vec(),
            outcome: expected.clone(),
        });
        let overflow = |o: &Outcome| matches!(o, Err(f) if f.is_stack_overflow());
        if overflow(&expected) || overflow(&actual) {
            self.stats.stack_overflows += 1;
            self.stats.wasmi_stack_overflows += overflow(&expected) as u64;
            return Ok(false);
        }
        self.stats.calls += 1;
        if !outcomes_agree(&expected, &actual) {
            return Err(self.mismatch(
                MismatchKind::Call,
                format!(
                    "call {name:?}{args:?}: wasmi {}, weft {}",
                    describe(&expected),
                    describe(&actual)
                ),
            ));
        }
        if expected.is_err() {
            self.stats.traps += 1;
        }
        Ok(true)
    }

    fn compare_state(&mut self, info: &ModuleInfo) -> Result<(), Mismatch> {
        for export in &info.exports {
            let name = export.name.as_str();
            match export.kind {
                ExportKind::Global | ExportKind::Fuel => {
                    let expected = self.reference.global(name);
                    let actual = guarded(|| self.weft.global(name)).map_err(|p| {
                        self.mismatch(MismatchKind::Panic, format!("weft panicked reading global: {p}"))
                    })?;
                    if let Some(value) = expected {
                        self.steps.push(Step::Global {
                            name: name.to_string(),
                            value,
                        });
                    }
                    let agree = match (&expected, &actual) {
                        (Some(a), Some(b)) => a.agrees_with(b),
                        (a, b) => a == b,
                    };
                    if !agree {
                        return Err(self.mismatch(
                            MismatchKind::Global,
                            format!("global {name:?}: wasmi {expected:?}, weft {actual:?}"),
                        ));
                    }
                    self.steps.pop();
                }
                ExportKind::Memory => {
                    let expected = self.reference.memory(name);
                    let actual = guarded(|| self.weft.memory(name)).map_err(|p| {
                        self.mismatch(MismatchKind::Panic, format!("weft panicked reading memory: {p}"))
                    })?;
                    if expected != actual {
                        let message = match (&expected, &actual) {
                            (Some(a), Some(b)) if a.len() != b.len() => {
                                format!("memory {name:?} has {} bytes in wasmi, {} in weft", a.len(), b.len())
                            }
                            (Some(a), Some(b)) => {
                                let at = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(0);
                                format!("memory {name:?} differs at byte {at}: wasmi {}, weft {}", a[at], b[at])
                            }
                            _ => format!("memory {name:?} exported by only one engine"),
                        };
                        return Err(self.mismatch(MismatchKind::Memory, message));
                    }
                }
                ExportKind::Table => {
                    let expected = self.reference.table(name);
                    let actual = guarded(|| self.weft.table(name))
                        .map_err(|p| self.mismatch(MismatchKind::Panic, format!("weft panicked reading table: {p}")))?;
                    if expected != actual {
                        return Err(self.mismatch(
                            MismatchKind::Table,
                            format!("table {name:?}: wasmi {expected:?}, weft {actual:?}"),
                        ));
                    }
                }
                ExportKind::Func(_) => {}
            }
        }
        Ok(())
    }
}

//! weft-wast: runs WebAssembly spec scripts (`*.wast`) against the public
//! `weft` embedding API.
//!
//! This crate owns the interpretation of script directives (`module`,
//! `register`, `invoke`, `get`, `assert_return`, `assert_trap`,
//! `assert_exhaustion`, `assert_invalid`, `assert_malformed`,
//! `assert_unlinkable`, `module definition`, `module instance`), the
//! `spectest` host module, and the comparison of results against expected
//! values (including NaN patterns). Component-model scripts run too:
//! `(component ...)`, `component definition`, `component instance`, and the
//! actions and assertions on components, with component values (see the
//! `component` module; scripts may mix core modules and components). As in
//! `wasmtime-wast`, an instance the script names (`(module $m ...)`,
//! `(module instance $m ...)`, and the same with `component`) is also
//! defined in the linker under its name without the `$`, so later modules
//! and components import from it without `register`. It
//! reaches the runtime only through the
//! `weft` facade, exactly as an embedder would; it never touches runtime
//! internals, never uses `unsafe`, and never panics on its input: every
//! problem, including an unsupported directive, becomes an `Err` that names
//! the file, line, column and directive. A failed directive does not stop the
//! script; all failures of a file are collected and reported together.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod component;
mod host;
mod legacy;
mod threads;

use std::collections::HashMap;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;

use anyhow::{anyhow, bail, Context as _, Result};
use wast::core::{AbstractHeapType, HeapType, NanPattern, V128Pattern, WastArgCore, WastRetCore};
use wast::lexer::Lexer;
use wast::parser::{self, ParseBuffer};
use wast::token::{Id, F32, F64};
use wast::{QuoteWat, Wast, WastArg, WastDirective, WastExecute, WastInvoke, WastRet, Wat};
use weft::{
    ExternRef, Global, GlobalType, Instance, Linker, Memory, MemoryType, Module, Mutability, Ref, RefType,
    SharedMemory, Store, Table, TableType, Trap, Val, ValType, V128,
};

/// How many failure lines the `Display` of [`WastFailures`] prints before
/// summarising the rest; the full list stays available in
/// [`WastFailures::failures`].
const MAX_DISPLAYED_FAILURES: usize = 100;

/// The configuration spec scripts run with: every proposal of the
/// testsuite that Weft supports, stated explicitly so that scripts keep
/// running if defaults change. That includes every component-model
/// extension the reference tests use, some of which are off by default (as
/// in Wasmtime 48, whose wast runner turns them on for those scripts too):
/// the async ABI, its further built-ins, the stackful ABI, threading and
/// `error-context`.
pub fn spec_config() -> weft::Config {
    let mut config = weft::Config::new();
    config
        .wasm_simd(true)
        .wasm_relaxed_simd(true)
        .wasm_tail_call(true)
        .wasm_multi_memory(true)
        .wasm_memory64(true)
        .wasm_extended_const(true)
        .wasm_function_references(true)
        .wasm_exceptions(true)
        .wasm_wide_arithmetic(true)
        .wasm_custom_page_sizes(true)
        .wasm_legacy_exceptions(true)
        .wasm_threads(true)
        .shared_memory(true)
        .wasm_gc(true)
        .wasm_component_model(true)
        .wasm_component_model_async(true)
        .wasm_component_model_more_async_builtins(true)
        .wasm_component_model_async_stackful(true)
        .wasm_component_model_threading(true)
        .wasm_component_model_error_context(true);
    config
}

/// Whether the spec script at `path` predates proposals that
/// [`spec_config`] enables (see [`spec_config_for`]).
pub fn predates_proposals(path: &Path) -> bool {
    path.to_string_lossy().replace('\\', "/").contains("proposals/threads/")
}

/// Whether the spec script at `path` belongs to the custom descriptors
/// proposal, which [`spec_config_for`] enables for its scripts only (Weft
/// supports it in part, so it stays out of [`spec_config`]).
pub fn needs_custom_descriptors(path: &Path) -> bool {
    path.to_string_lossy()
        .replace('\\', "/")
        .contains("proposals/custom-descriptors/")
}

/// The configuration for the spec script at `path`: [`spec_config`], less
/// the proposals the script predates, plus custom descriptors for that
/// proposal's scripts. The threads proposal's scripts were
/// written before multi-memory and reference types, and check that a
/// second memory or table is invalid; Wasmtime's runner turns those off for
/// them too.
pub fn spec_config_for(path: &Path) -> weft::Config {
    let mut config = spec_config();
    if needs_custom_descriptors(path) {
        config.wasm_custom_descriptors(true);
    }
    if predates_proposals(path) {
        config
            .wasm_multi_memory(false)
            .wasm_reference_types(false)
            .wasm_function_references(false)
            .wasm_gc(false)
            .wasm_exceptions(false)
            .wasm_legacy_exceptions(false);
    }
    config
}

/// The state of one spec script run: a store, a linker holding the
/// registered instances, and the modules and instances named so far.
///
/// A context can run several scripts in turn; instances registered by one
/// stay visible to the next, as with `wasmtime_wast::WastContext`.
pub struct WastContext<T: 'static> {
    store: Store<T>,
    linker: Linker<T>,
    /// The instance that unnamed `invoke`, `get` and `register` refer to.
    /// `None` before the first module, and after a module directive failed
    /// (so that later directives do not silently run against a stale module).
    current: Option<Instance>,
    /// Where the module directive that failed and left `current` empty is
    /// (1-based line and column), for the messages of the directives after
    /// it.
    failed_module_at: Option<(usize, usize)>,
    /// Instances named in the script (`(module $m ...)`,
    /// `(module instance $i ...)`).
    instances: HashMap<String, Instance>,
    /// Compiled modules named by `(module definition $m ...)` (and by
    /// `(module $m ...)`).
    definitions: HashMap<String, Module>,
    /// The most recent `module definition`, for `(module instance)` without a
    /// module name.
    last_definition: Option<Module>,
    /// The component linker, and the components and component instances
    /// named so far.
    components: component::ComponentState<T>,
    /// In a `thread`'s context: the exports of the instance its
    /// `(shared (module $m))` names, by the module's name, for `register`.
    shared_modules: HashMap<String, Vec<(String, weft::Extern)>>,
}

/// One directive of a script that did not behave as the script expects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectiveFailure {
    /// The script's file name, as given to [`WastContext::run_buffer`].
    pub file: String,
    /// 1-based line of the directive.
    pub line: usize,
    /// 1-based column of the directive.
    pub column: usize,
    /// The directive's keyword, e.g. `assert_return`.
    pub directive: &'static str,
    /// What went wrong, on one line.
    pub message: String,
}

impl fmt::Display for DirectiveFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}: {}",
            self.file, self.line, self.column, self.directive, self.message
        )
    }
}

/// The error returned by [`WastContext::run_buffer`] when one or more
/// directives of a script failed. Downcast an `anyhow::Error` to it to get at
/// the individual failures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WastFailures {
    /// The script's file name.
    pub file: String,
    /// How many directives the script has.
    pub directives: usize,
    /// Every failed directive, in script order.
    pub failures: Vec<DirectiveFailure>,
}

impl fmt::Display for WastFailures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} of {} directives failed",
            self.file,
            self.failures.len(),
            self.directives
        )?;
        for failure in self.failures.iter().take(MAX_DISPLAYED_FAILURES) {
            write!(f, "\n  {failure}")?;
        }
        if self.failures.len() > MAX_DISPLAYED_FAILURES {
            write!(f, "\n  ... and {} more", self.failures.len() - MAX_DISPLAYED_FAILURES)?;
        }
        Ok(())
    }
}

impl std::error::Error for WastFailures {}

/// The result of running something that may legitimately fail at run time
/// (an invocation, an instantiation): `Ok(values)` or the runtime's error.
/// It is wrapped in an outer `Result` whose `Err` means the directive itself
/// could not be carried out (unknown export, bad argument, module that does
/// not compile, ...).
type Outcome = Result<Vec<Val>>;

/// The two reference-type hierarchies of WebAssembly 2.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RefFamily {
    Func,
    Extern,
    Exn,
    Any,
}

impl<T: 'static> WastContext<T> {
    /// Creates a context that runs scripts in `store`. Nothing is registered
    /// yet; call [`WastContext::register_spectest`] for the standard
    /// `spectest` module.
    pub fn new(store: Store<T>) -> Self {
        let mut linker = Linker::new(store.engine());
        linker.allow_shadowing(true);
        let components = component::ComponentState::new(store.engine());
        WastContext {
            store,
            linker,
            current: None,
            failed_module_at: None,
            instances: HashMap::new(),
            definitions: HashMap::new(),
            last_definition: None,
            components,
            shared_modules: HashMap::new(),
        }
    }

    /// The store scripts run in.
    pub fn store(&self) -> &Store<T> {
        &self.store
    }

    /// The store scripts run in, mutably.
    pub fn store_mut(&mut self) -> &mut Store<T> {
        &mut self.store
    }

    /// Defines the standard `spectest` module that spec scripts import from:
    /// the functions `print`, `print_i32`, `print_i64`, `print_f32`,
    /// `print_f64`, `print_i32_f32` and `print_f64_f64` (which do nothing),
    /// the immutable globals `global_i32` and `global_i64` (666) and
    /// `global_f32` and `global_f64` (666.6), the funcref table `table`
    /// (10 to 20 elements), the 64-bit funcref table `table64` (10 to 20
    /// elements), and the memory `memory` (1 to 2
    /// pages).
    pub fn register_spectest(&mut self) -> Result<()> {
        self.linker.func_wrap("spectest", "print", || {})?;
        self.linker.func_wrap("spectest", "print_i32", |_: i32| {})?;
        self.linker.func_wrap("spectest", "print_i64", |_: i64| {})?;
        self.linker.func_wrap("spectest", "print_f32", |_: f32| {})?;
        self.linker.func_wrap("spectest", "print_f64", |_: f64| {})?;
        self.linker
            .func_wrap("spectest", "print_i32_f32", |_: i32, _: f32| {})?;
        self.linker
            .func_wrap("spectest", "print_f64_f64", |_: f64, _: f64| {})?;

        let globals = [
            ("global_i32", ValType::I32, Val::I32(666)),
            ("global_i64", ValType::I64, Val::I64(666)),
            ("global_f32", ValType::F32, Val::F32(666.6f32.to_bits())),
            ("global_f64", ValType::F64, Val::F64(666.6f64.to_bits())),
        ];
        for (name, ty, value) in globals {
            let global = Global::new(&mut self.store, GlobalType::new(ty, Mutability::Const), value)?;
            self.linker.define(&self.store, "spectest", name, global)?;
        }

        let table = Table::new(
            &mut self.store,
            TableType::new(RefType::FUNCREF, 10, Some(20)),
            Ref::Func(None),
        )?;
        self.linker.define(&self.store, "spectest", "table", table)?;

        let table64 = Table::new(
            &mut self.store,
            TableType::new64(RefType::FUNCREF, 10, Some(20)),
            Ref::Func(None),
        )?;
        self.linker.define(&self.store, "spectest", "table64", table64)?;

        let memory = Memory::new(&mut self.store, MemoryType::new(1, Some(2)))?;
        self.linker.define(&self.store, "spectest", "memory", memory)?;
        let shared = SharedMemory::new(self.store.engine(), MemoryType::shared(1, 2))?;
        self.linker.define(&self.store, "spectest", "shared_memory", shared)?;
        Ok(())
    }

    /// Reads the script at `path` and runs it; see
    /// [`WastContext::run_buffer`].
    pub fn run_file(&mut self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).with_context(|| format!("failed to read `{}`", path.display()))?;
        self.run_buffer(&path.display().to_string(), &bytes)
    }

    /// Runs the script `wast` (the contents of a `.wast` file; `filename`
    /// is used in messages only).
    ///
    /// A script that does not parse is an error as a whole. Otherwise every
    /// directive runs, even after one failed, and if any failed the returned
    /// error is a [`WastFailures`] listing them all.
    pub fn run_buffer(&mut self, filename: &str, wast: &[u8]) -> Result<()> {
        let text = std::str::from_utf8(wast).map_err(|e| anyhow!("{filename}: the script is not valid UTF-8: {e}"))?;
        // Folded legacy `try` forms, which the parser no longer reads, made
        // flat (line breaks kept, so lines in messages stay right).
        let flattened = legacy::flatten_legacy_try(text);
        let text: &str = &flattened;
        let parse_error = |mut err: wast::Error| {
            err.set_path(Path::new(filename));
            err.set_text(text);
            anyhow!("failed to parse the script: {err}")
        };
        // Spec scripts use "confusing" unicode (bidi overrides and the like)
        // in names on purpose (names.wast), so the lexer must accept it.
        let mut lexer = Lexer::new(text);
        lexer.allow_confusing_unicode(true);
        let buf = ParseBuffer::new_with_lexer(lexer).map_err(parse_error)?;
        let script = parser::parse::<Wast>(&buf).map_err(parse_error)?;

        let directives = script.directives.len();
        let mut failures = Vec::new();
        self.run_directives(script.directives, filename, text, &mut failures);

        // Whatever the script left running, every reference of the store's
        // task table must be held by something live.
        if let Err(err) = self.store.check_concurrent_state() {
            failures.push(DirectiveFailure {
                file: filename.to_string(),
                line: 0,
                column: 0,
                directive: "end of script",
                message: one_line(&err),
            });
        }
        if failures.is_empty() {
            Ok(())
        } else {
            Err(WastFailures {
                file: filename.to_string(),
                directives,
                failures,
            }
            .into())
        }
    }

    /// Runs `directives` in order, adding those that fail to `failures`.
    /// A `thread` directive runs its own directives on a new OS thread, in
    /// a store of its own (see [`WastContext::spawn_thread`]); `wait` joins
    /// it and adds its failures. Threads not waited for are joined at the
    /// end.
    fn run_directives(
        &mut self,
        directives: Vec<WastDirective<'_>>,
        filename: &str,
        text: &str,
        failures: &mut Vec<DirectiveFailure>,
    ) {
        std::thread::scope(|scope| {
            let mut running: HashMap<String, threads::Child<'_>> = HashMap::new();
            for directive in directives {
                let (line, column) = directive.span().linecol_in(text);
                let name = directive_name(&directive);
                let outcome = match directive {
                    WastDirective::Thread(thread) => {
                        let child_name = thread.name.name().to_string();
                        self.spawn_thread(scope, thread, filename, text).map(|child| {
                            running.insert(child_name, child);
                        })
                    }
                    WastDirective::Wait { thread, .. } => match running.remove(thread.name()) {
                        Some(child) => child.join(failures),
                        None => Err(anyhow!("no running thread named `${}`", thread.name())),
                    },
                    directive => panic::catch_unwind(AssertUnwindSafe(|| self.run_directive(directive, text)))
                        .unwrap_or_else(|payload| Err(anyhow!("panicked: {}", panic_message(payload.as_ref())))),
                };
                let Err(err) = outcome else { continue };
                failures.push(DirectiveFailure {
                    file: filename.to_string(),
                    line: line + 1,
                    column: column + 1,
                    directive: name,
                    message: one_line(&err),
                });
            }
            for (name, child) in running {
                if let Err(err) = child.join(failures) {
                    failures.push(DirectiveFailure {
                        file: filename.to_string(),
                        line: 0,
                        column: 0,
                        directive: "end of script",
                        message: format!("thread `${name}` (never waited for): {}", one_line(&err)),
                    });
                }
            }
        });
    }

    /// Carries out one directive; `Err` means it did not behave as expected.
    fn run_directive(&mut self, directive: WastDirective<'_>, text: &str) -> Result<()> {
        let directive = match self.component_directive(directive, text) {
            component::Handled::Done(result) => return result,
            component::Handled::Core(directive) => directive,
        };
        match directive {
            WastDirective::Module(mut module) => {
                self.components.current = None;
                let name = module.name().map(|id| id.name().to_string());
                let (line, column) = module.span().linecol_in(text);
                let result = self.compile_quote(&mut module, text).and_then(|compiled| {
                    let instance = self
                        .instantiate(&compiled)
                        .map_err(|e| e.context("failed to instantiate module"))?;
                    Ok((compiled, instance))
                });
                match result {
                    Ok((compiled, instance)) => {
                        self.current = Some(instance);
                        self.failed_module_at = None;
                        if let Some(name) = name {
                            self.instances.insert(name.clone(), instance);
                            self.definitions.insert(name.clone(), compiled);
                            self.define_named_instance(&name, instance)?;
                        }
                        Ok(())
                    }
                    Err(err) => {
                        self.current = None;
                        self.failed_module_at = Some((line + 1, column + 1));
                        if let Some(name) = name {
                            self.instances.remove(&name);
                            self.definitions.remove(&name);
                        }
                        Err(err)
                    }
                }
            }

            WastDirective::ModuleDefinition(mut module) => {
                let name = module.name().map(|id| id.name().to_string());
                let compiled = self.compile_quote(&mut module, text)?;
                if let Some(name) = name {
                    self.definitions.insert(name, compiled.clone());
                }
                self.last_definition = Some(compiled);
                self.components.last_definition_is_component = false;
                Ok(())
            }

            WastDirective::ModuleInstance { instance, module, .. } => {
                let compiled = match module {
                    Some(id) => self
                        .definitions
                        .get(id.name())
                        .cloned()
                        .ok_or_else(|| anyhow!("no module definition named `${}`", id.name()))?,
                    None => self
                        .last_definition
                        .clone()
                        .ok_or_else(|| anyhow!("no module definition precedes this directive"))?,
                };
                self.components.current = None;
                let new_instance = self
                    .instantiate(&compiled)
                    .map_err(|e| e.context("failed to instantiate module"))?;
                self.current = Some(new_instance);
                self.failed_module_at = None;
                if let Some(id) = instance {
                    self.instances.insert(id.name().to_string(), new_instance);
                    self.define_named_instance(id.name(), new_instance)?;
                }
                Ok(())
            }

            WastDirective::Register { name, module, .. } => {
                if let Some(exports) = module.and_then(|id| self.shared_modules.get(id.name())) {
                    for (field, item) in exports.clone() {
                        self.linker.define(&self.store, name, &field, item)?;
                    }
                    return Ok(());
                }
                let instance = self.instance_named(module)?;
                self.linker
                    .instance(&mut self.store, name, instance)
                    .with_context(|| format!("failed to register the instance as {name:?}"))?;
                Ok(())
            }

            WastDirective::Invoke(invoke) => match self.invoke(&invoke)? {
                Ok(_) => Ok(()),
                Err(err) => Err(anyhow!("invoking {:?} failed: {}", invoke.name, error_summary(&err))),
            },

            WastDirective::AssertReturn { exec, results, .. } => {
                let actual = match self.execute(exec, text)? {
                    Ok(values) => values,
                    Err(err) => bail!("expected a return, got an error: {}", error_summary(&err)),
                };
                self.check_results(&actual, &results)
            }

            WastDirective::AssertTrap { exec, message, .. } => match self.execute(exec, text)? {
                Ok(values) => bail!("expected a trap ({message:?}), but it returned {}", fmt_vals(&values)),
                Err(err) => {
                    if is_trap(&err) || format!("{err:#}").contains(message) {
                        Ok(())
                    } else {
                        bail!(
                            "expected a trap ({message:?}), got a non-trap error: {}",
                            error_summary(&err)
                        )
                    }
                }
            },

            WastDirective::AssertExhaustion { call, message, .. } => match self.invoke(&call)? {
                Ok(values) => bail!(
                    "expected stack exhaustion ({message:?}), but it returned {}",
                    fmt_vals(&values)
                ),
                Err(err) => {
                    let overflow = matches!(err.downcast_ref::<Trap>(), Some(Trap::StackOverflow));
                    if overflow || format!("{err:#}").contains(message) {
                        Ok(())
                    } else {
                        bail!("expected stack exhaustion ({message:?}), got: {}", error_summary(&err))
                    }
                }
            },

            WastDirective::AssertInvalid {
                mut module, message, ..
            }
            | WastDirective::AssertMalformed {
                mut module, message, ..
            } => {
                if component::is_component(&module) {
                    bail!("component-model modules are not supported");
                }
                match self.compile_quote(&mut module, text) {
                    Ok(_) => {
                        bail!("expected the module to be rejected ({message:?}), but it compiled")
                    }
                    Err(_) => Ok(()),
                }
            }

            WastDirective::AssertInvalidCustom { mut module, .. }
            | WastDirective::AssertMalformedCustom { mut module, .. } => {
                // These assert that a *custom section* is malformed or
                // invalid. Weft ignores the contents of custom sections, as
                // the spec allows, so the module itself must still be
                // accepted; either outcome of compiling it is fine here.
                if component::is_component(&module) {
                    bail!("component-model modules are not supported");
                }
                let _ = self.compile_quote(&mut module, text);
                Ok(())
            }

            WastDirective::AssertUnlinkable {
                mut module, message, ..
            } => {
                if matches!(module, Wat::Component(_)) {
                    bail!("component-model modules are not supported");
                }
                let bytes = module
                    .encode()
                    .map_err(|e| anyhow!("failed to parse the module text: {}", locate(e, text)))?;
                let compiled = Module::from_binary(self.store.engine(), &bytes).map_err(|e| {
                    anyhow!(
                        "expected a link error ({message:?}), but the module failed to compile: {}",
                        error_summary(&e)
                    )
                })?;
                match self.instantiate(&compiled) {
                    Ok(_) => {
                        bail!("expected a link error ({message:?}), but the module instantiated")
                    }
                    Err(err) => {
                        if is_trap(&err) && !format!("{err:#}").contains(message) {
                            bail!(
                                "expected a link error ({message:?}), got a trap: {}",
                                error_summary(&err)
                            )
                        }
                        Ok(())
                    }
                }
            }

            WastDirective::AssertException { exec, .. } => match self.execute(exec, text)? {
                Ok(values) => bail!("expected an uncaught exception, but it returned {}", fmt_vals(&values)),
                Err(err) => {
                    if err.chain().any(|e| e.downcast_ref::<weft::ThrownException>().is_some()) {
                        Ok(())
                    } else {
                        bail!("expected an uncaught exception, got: {}", error_summary(&err))
                    }
                }
            },
            WastDirective::AssertSuspension { .. } => {
                bail!("stack switching (suspensions) is not supported by weft")
            }
            WastDirective::Thread(_) | WastDirective::Wait { .. } => {
                bail!("`thread` and `wait` are run by the script's directive loop")
            }
        }
    }

    /// Runs the action of an `assert_*` directive.
    fn execute(&mut self, exec: WastExecute<'_>, text: &str) -> Result<Outcome> {
        match exec {
            WastExecute::Invoke(invoke) => self.invoke(&invoke),
            WastExecute::Wat(mut module) => {
                if matches!(module, Wat::Component(_)) {
                    bail!("component-model modules are not supported");
                }
                let bytes = module
                    .encode()
                    .map_err(|e| anyhow!("failed to parse the module text: {}", locate(e, text)))?;
                let compiled = Module::from_binary(self.store.engine(), &bytes)
                    .map_err(|e| anyhow!("the module failed to compile: {}", error_summary(&e)))?;
                Ok(self.instantiate(&compiled).map(|_| Vec::new()))
            }
            WastExecute::Get { module, global, .. } => {
                let instance = self.instance_named(module)?;
                let global = instance
                    .get_global(&mut self.store, global)
                    .ok_or_else(|| anyhow!("no exported global named {global:?}"))?;
                Ok(Ok(vec![global.get(&mut self.store)]))
            }
        }
    }

    /// Calls an exported function. The outer `Err` means the call could not
    /// be set up; the inner one is the call's own error (a trap, usually).
    fn invoke(&mut self, invoke: &WastInvoke<'_>) -> Result<Outcome> {
        let instance = self.instance_named(invoke.module)?;
        let func = instance
            .get_func(&mut self.store, invoke.name)
            .ok_or_else(|| anyhow!("no exported function named {:?}", invoke.name))?;
        let ty = func.ty(&self.store);
        let param_count = ty.params().len();
        if invoke.args.len() != param_count {
            bail!(
                "{:?} takes {} argument(s), but {} were given",
                invoke.name,
                param_count,
                invoke.args.len()
            );
        }
        let mut args = Vec::with_capacity(invoke.args.len());
        for arg in &invoke.args {
            args.push(self.arg_to_val(arg)?);
        }
        let mut results = vec![Val::I32(0); ty.results().len()];
        Ok(func.call(&mut self.store, &args, &mut results).map(|()| results))
    }

    /// Compiles a (possibly quoted) module of the script.
    fn compile_quote(&mut self, module: &mut QuoteWat<'_>, text: &str) -> Result<Module> {
        if component::is_component(module) {
            bail!("component-model modules are not supported");
        }
        let quoted = matches!(module, QuoteWat::QuoteModule(..));
        let bytes = module.encode().map_err(|e| {
            if quoted {
                anyhow!("failed to parse the quoted module text: {}", e.message())
            } else {
                anyhow!("failed to parse the module text: {}", locate(e, text))
            }
        })?;
        Module::from_binary(self.store.engine(), &bytes)
            .map_err(|e| anyhow!("failed to compile the module: {}", error_summary(&e)))
    }

    /// Defines the exports of the instance the script named `$name` in the
    /// linker under `name`, as `wasmtime-wast` does, so that later modules
    /// import from it without `register`.
    fn define_named_instance(&mut self, name: &str, instance: Instance) -> Result<()> {
        self.linker
            .instance(&mut self.store, name, instance)
            .with_context(|| format!("failed to define the instance `${name}` in the linker as {name:?}"))?;
        Ok(())
    }

    /// Instantiates `module` with every registered instance available.
    fn instantiate(&mut self, module: &Module) -> Result<Instance> {
        self.linker.instantiate(&mut self.store, module)
    }

    /// The instance named `$id`, or the current one.
    fn instance_named(&self, id: Option<Id<'_>>) -> Result<Instance> {
        match id {
            Some(id) => self
                .instances
                .get(id.name())
                .copied()
                .ok_or_else(|| anyhow!("no instance named `${}` (or its module failed)", id.name())),
            None => self.current.ok_or_else(|| match self.failed_module_at {
                Some((line, column)) => anyhow!("no current module: the module at {line}:{column} failed"),
                None => anyhow!("no current module: no module has been defined yet"),
            }),
        }
    }

    /// Converts a script argument to a value.
    fn arg_to_val(&mut self, arg: &WastArg<'_>) -> Result<Val> {
        let WastArg::Core(arg) = arg else {
            bail!("component-model arguments are not supported");
        };
        Ok(match arg {
            WastArgCore::I32(x) => Val::I32(*x),
            WastArgCore::I64(x) => Val::I64(*x),
            WastArgCore::F32(x) => Val::F32(x.bits),
            WastArgCore::F64(x) => Val::F64(x.bits),
            WastArgCore::V128(v) => Val::V128(V128::from(u128::from_le_bytes(v.to_le_bytes()))),
            WastArgCore::RefNull(heap) => match heap_family(heap) {
                Some(RefFamily::Func) => Val::FuncRef(None),
                Some(RefFamily::Extern) => Val::ExternRef(None),
                Some(RefFamily::Exn) => Val::ExnRef(None),
                Some(RefFamily::Any) => Val::AnyRef(None),
                None => bail!("null references of this heap type are not supported"),
            },
            WastArgCore::RefExtern(n) => Val::ExternRef(Some(ExternRef::new(&mut self.store, *n)?)),
            WastArgCore::RefHost(n) => {
                let host = ExternRef::new(&mut self.store, *n)?;
                Val::AnyRef(Some(weft::AnyRef::convert_extern(&mut self.store, host)?))
            }
        })
    }

    /// Compares the values returned by an `assert_return` action with the
    /// expected ones.
    fn check_results(&mut self, actual: &[Val], expected: &[WastRet<'_>]) -> Result<()> {
        if actual.len() != expected.len() {
            bail!(
                "expected {} result(s) {}, got {} result(s) {}",
                expected.len(),
                fmt_rets(expected),
                actual.len(),
                fmt_vals(actual)
            );
        }
        let mut mismatches = Vec::new();
        for (i, (value, expected)) in actual.iter().zip(expected).enumerate() {
            let WastRet::Core(expected) = expected else {
                bail!("component-model results are not supported");
            };
            if !self.matches(value, expected)? {
                mismatches.push(format!(
                    "result {i}: expected {}, got {}",
                    fmt_ret(expected),
                    self.fmt_val(value)
                ));
            }
        }
        if mismatches.is_empty() {
            Ok(())
        } else {
            bail!("{}", mismatches.join("; "))
        }
    }

    /// Whether `value` matches the expected result. `Err` for expectations
    /// this runner does not support.
    fn matches(&mut self, value: &Val, expected: &WastRetCore<'_>) -> Result<bool> {
        Ok(match (expected, value) {
            (WastRetCore::I32(e), Val::I32(a)) => e == a,
            (WastRetCore::I64(e), Val::I64(a)) => e == a,
            (WastRetCore::F32(pattern), Val::F32(bits)) => f32_matches(pattern, *bits),
            (WastRetCore::F64(pattern), Val::F64(bits)) => f64_matches(pattern, *bits),
            (WastRetCore::V128(pattern), Val::V128(v)) => v128_matches(pattern, v.as_u128()),
            (WastRetCore::RefNull(heap), Val::FuncRef(None)) => {
                heap.as_ref().is_none_or(|h| heap_family(h) == Some(RefFamily::Func))
            }
            (WastRetCore::RefNull(heap), Val::ExternRef(None)) => {
                heap.as_ref().is_none_or(|h| heap_family(h) == Some(RefFamily::Extern))
            }
            (WastRetCore::RefNull(heap), Val::ExnRef(None)) => {
                heap.as_ref().is_none_or(|h| heap_family(h) == Some(RefFamily::Exn))
            }
            (WastRetCore::RefExtern(payload), Val::ExternRef(Some(r))) => match payload {
                None => true,
                Some(n) => {
                    let data = r.data(&self.store)?;
                    data.and_then(|d| d.downcast_ref::<u32>()) == Some(n)
                }
            },
            (WastRetCore::RefFunc(_), Val::FuncRef(Some(_))) => true,
            (WastRetCore::RefNull(heap), Val::AnyRef(None)) => {
                heap.as_ref().is_none_or(|h| heap_family(h) == Some(RefFamily::Any))
            }
            (WastRetCore::RefAny, Val::AnyRef(Some(_))) => true,
            (WastRetCore::RefEq, Val::AnyRef(Some(a))) => a.is_eqref(&self.store)?,
            (WastRetCore::RefI31, Val::AnyRef(Some(a))) => a.is_i31(&self.store)?,
            (WastRetCore::RefStruct, Val::AnyRef(Some(a))) => a.is_struct(&self.store)?,
            (WastRetCore::RefArray, Val::AnyRef(Some(a))) => a.is_array(&self.store)?,
            (WastRetCore::RefHost(n), Val::AnyRef(Some(a))) => {
                let host = ExternRef::convert_any(&mut self.store, *a)?;
                let data = host.data(&self.store).ok().flatten();
                data.and_then(|d| d.downcast_ref::<u32>()) == Some(n)
            }
            (
                WastRetCore::RefAny
                | WastRetCore::RefEq
                | WastRetCore::RefI31
                | WastRetCore::RefStruct
                | WastRetCore::RefArray
                | WastRetCore::RefHost(_),
                _,
            ) => false,
            (WastRetCore::Either(alternatives), _) => {
                for alternative in alternatives {
                    if self.matches(value, alternative)? {
                        return Ok(true);
                    }
                }
                false
            }
            (WastRetCore::RefI31Shared, _) => {
                bail!("shared GC reference results ({}) are not supported", fmt_ret(expected))
            }
            _ => false,
        })
    }

    /// Formats a value for a message, showing an externref's payload.
    fn fmt_val(&self, value: &Val) -> String {
        if let Val::ExternRef(Some(r)) = value {
            if let Ok(Some(data)) = r.data(&self.store) {
                if let Some(n) = data.downcast_ref::<u32>() {
                    return format!("ref.extern {n}");
                }
            }
            return "ref.extern (host value)".to_string();
        }
        fmt_val(value)
    }
}

/// Whether a float result matches the expected pattern (bitwise for values).
fn f32_matches(pattern: &NanPattern<F32>, bits: u32) -> bool {
    match pattern {
        NanPattern::CanonicalNan => bits & 0x7fff_ffff == 0x7fc0_0000,
        NanPattern::ArithmeticNan => bits & 0x7fc0_0000 == 0x7fc0_0000,
        NanPattern::Value(expected) => expected.bits == bits,
    }
}

/// Whether a double result matches the expected pattern (bitwise for values).
fn f64_matches(pattern: &NanPattern<F64>, bits: u64) -> bool {
    match pattern {
        NanPattern::CanonicalNan => bits & 0x7fff_ffff_ffff_ffff == 0x7ff8_0000_0000_0000,
        NanPattern::ArithmeticNan => bits & 0x7ff8_0000_0000_0000 == 0x7ff8_0000_0000_0000,
        NanPattern::Value(expected) => expected.bits == bits,
    }
}

/// Whether a `v128` result matches the expected lanes (NaN patterns per
/// float lane, bitwise otherwise).
fn v128_matches(pattern: &V128Pattern, bits: u128) -> bool {
    let bytes = bits.to_le_bytes();
    let lane = |i: usize, size: usize| -> u64 {
        let mut b = [0u8; 8];
        b[..size].copy_from_slice(&bytes[i * size..(i + 1) * size]);
        u64::from_le_bytes(b)
    };
    match pattern {
        V128Pattern::I8x16(lanes) => lanes.iter().enumerate().all(|(i, l)| lane(i, 1) == u64::from(*l as u8)),
        V128Pattern::I16x8(lanes) => lanes
            .iter()
            .enumerate()
            .all(|(i, l)| lane(i, 2) == u64::from(*l as u16)),
        V128Pattern::I32x4(lanes) => lanes
            .iter()
            .enumerate()
            .all(|(i, l)| lane(i, 4) == u64::from(*l as u32)),
        V128Pattern::I64x2(lanes) => lanes.iter().enumerate().all(|(i, l)| lane(i, 8) == *l as u64),
        V128Pattern::F32x4(lanes) => lanes.iter().enumerate().all(|(i, p)| f32_matches(p, lane(i, 4) as u32)),
        V128Pattern::F64x2(lanes) => lanes.iter().enumerate().all(|(i, p)| f64_matches(p, lane(i, 8))),
    }
}

/// Which hierarchy a heap type of the script belongs to, if it is one of
/// WebAssembly 2.0's.
fn heap_family(heap: &HeapType<'_>) -> Option<RefFamily> {
    match heap {
        HeapType::Abstract {
            shared: false,
            ty: AbstractHeapType::Func | AbstractHeapType::NoFunc,
        } => Some(RefFamily::Func),
        // Without the GC proposal every concrete heap type is a function
        // type.
        HeapType::Concrete(_) => Some(RefFamily::Func),
        HeapType::Abstract {
            shared: false,
            ty: AbstractHeapType::Extern | AbstractHeapType::NoExtern,
        } => Some(RefFamily::Extern),
        HeapType::Abstract {
            shared: false,
            ty: AbstractHeapType::Exn | AbstractHeapType::NoExn,
        } => Some(RefFamily::Exn),
        HeapType::Abstract {
            shared: false,
            ty:
                AbstractHeapType::Any
                | AbstractHeapType::Eq
                | AbstractHeapType::I31
                | AbstractHeapType::Struct
                | AbstractHeapType::Array
                | AbstractHeapType::None,
        } => Some(RefFamily::Any),
        _ => None,
    }
}

/// Whether a runtime error is a wasm trap.
fn is_trap(err: &anyhow::Error) -> bool {
    err.downcast_ref::<Trap>().is_some()
}

/// A text-parse error of a module written inline in the script, with its
/// location in the script.
fn locate(err: wast::Error, text: &str) -> String {
    let (line, column) = err.span().linecol_in(text);
    format!("{} (at {}:{})", err.message(), line + 1, column + 1)
}

/// A runtime error on one line: the trap for traps, otherwise the error
/// chain with its lines joined.
fn error_summary(err: &anyhow::Error) -> String {
    if let Some(trap) = err.downcast_ref::<Trap>() {
        let text = trap.to_string();
        return if text.contains("trap") {
            text
        } else {
            format!("trap: {text}")
        };
    }
    one_line(err)
}

/// The full chain of an error, on one line.
fn one_line(err: &anyhow::Error) -> String {
    let text = format!("{err:#}");
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}

/// The keyword of a directive, for messages.
fn directive_name(directive: &WastDirective<'_>) -> &'static str {
    match directive {
        WastDirective::Module(m) if component::is_component(m) => "component",
        WastDirective::Module(_) => "module",
        WastDirective::ModuleDefinition(m) if component::is_component(m) => "component definition",
        WastDirective::ModuleDefinition(_) => "module definition",
        WastDirective::ModuleInstance { .. } => "module instance",
        WastDirective::AssertMalformed { .. } => "assert_malformed",
        WastDirective::AssertInvalid { .. } => "assert_invalid",
        WastDirective::AssertInvalidCustom { .. } => "assert_invalid_custom",
        WastDirective::AssertMalformedCustom { .. } => "assert_malformed_custom",
        WastDirective::Register { .. } => "register",
        WastDirective::Invoke(_) => "invoke",
        WastDirective::AssertTrap { .. } => "assert_trap",
        WastDirective::AssertReturn { .. } => "assert_return",
        WastDirective::AssertExhaustion { .. } => "assert_exhaustion",
        WastDirective::AssertUnlinkable { .. } => "assert_unlinkable",
        WastDirective::AssertException { .. } => "assert_exception",
        WastDirective::AssertSuspension { .. } => "assert_suspension",
        WastDirective::Thread(_) => "thread",
        WastDirective::Wait { .. } => "wait",
    }
}

/// Formats a value for a message (externref payloads need the store; see
/// `WastContext::fmt_val`).
fn fmt_val(value: &Val) -> String {
    match value {
        Val::I32(x) => format!("i32:{x}"),
        Val::I64(x) => format!("i64:{x}"),
        Val::F32(bits) => format!("f32:{} (0x{bits:08x})", f32::from_bits(*bits)),
        Val::F64(bits) => format!("f64:{} (0x{bits:016x})", f64::from_bits(*bits)),
        Val::FuncRef(None) => "ref.null func".to_string(),
        Val::FuncRef(Some(_)) => "ref.func".to_string(),
        Val::ExternRef(None) => "ref.null extern".to_string(),
        Val::ExternRef(Some(_)) => "ref.extern".to_string(),
        Val::ExnRef(None) => "ref.null exn".to_string(),
        Val::ExnRef(Some(_)) => "ref.exn".to_string(),
        Val::AnyRef(None) => "ref.null any".to_string(),
        Val::AnyRef(Some(_)) => "ref.any".to_string(),
        Val::V128(v) => format!("v128:0x{:032x}", v.as_u128()),
    }
}

fn fmt_vals(values: &[Val]) -> String {
    let parts: Vec<String> = values.iter().map(fmt_val).collect();
    format!("[{}]", parts.join(", "))
}

fn fmt_f32_pattern(pattern: &NanPattern<F32>) -> String {
    match pattern {
        NanPattern::CanonicalNan => "f32:nan:canonical".to_string(),
        NanPattern::ArithmeticNan => "f32:nan:arithmetic".to_string(),
        NanPattern::Value(f) => format!("f32:{} (0x{:08x})", f32::from_bits(f.bits), f.bits),
    }
}

fn fmt_f64_pattern(pattern: &NanPattern<F64>) -> String {
    match pattern {
        NanPattern::CanonicalNan => "f64:nan:canonical".to_string(),
        NanPattern::ArithmeticNan => "f64:nan:arithmetic".to_string(),
        NanPattern::Value(f) => format!("f64:{} (0x{:016x})", f64::from_bits(f.bits), f.bits),
    }
}

/// Formats an expected result for a message.
fn fmt_ret(expected: &WastRetCore<'_>) -> String {
    match expected {
        WastRetCore::I32(x) => format!("i32:{x}"),
        WastRetCore::I64(x) => format!("i64:{x}"),
        WastRetCore::F32(p) => fmt_f32_pattern(p),
        WastRetCore::F64(p) => fmt_f64_pattern(p),
        WastRetCore::V128(p) => format!("v128:{p:?}"),
        WastRetCore::RefNull(_) => "ref.null".to_string(),
        WastRetCore::RefExtern(Some(n)) => format!("ref.extern {n}"),
        WastRetCore::RefExtern(None) => "ref.extern".to_string(),
        WastRetCore::RefHost(n) => format!("ref.host {n}"),
        WastRetCore::RefFunc(_) => "ref.func".to_string(),
        WastRetCore::RefAny => "ref.any".to_string(),
        WastRetCore::RefEq => "ref.eq".to_string(),
        WastRetCore::RefArray => "ref.array".to_string(),
        WastRetCore::RefStruct => "ref.struct".to_string(),
        WastRetCore::RefI31 => "ref.i31".to_string(),
        WastRetCore::RefI31Shared => "ref.i31_shared".to_string(),
        WastRetCore::Either(alternatives) => {
            let parts: Vec<String> = alternatives.iter().map(fmt_ret).collect();
            format!("(either {})", parts.join(" | "))
        }
    }
}

fn fmt_rets(expected: &[WastRet<'_>]) -> String {
    let parts: Vec<String> = expected
        .iter()
        .map(|r| match r {
            WastRet::Core(core) => fmt_ret(core),
            _ => "(component value)".to_string(),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_patterns() {
        assert!(f32_matches(&NanPattern::CanonicalNan, 0x7fc0_0000));
        assert!(f32_matches(&NanPattern::CanonicalNan, 0xffc0_0000));
        assert!(!f32_matches(&NanPattern::CanonicalNan, 0x7fc0_0001));
        assert!(f32_matches(&NanPattern::ArithmeticNan, 0x7fc0_0001));
        assert!(!f32_matches(&NanPattern::ArithmeticNan, 0x7f80_0001));
        assert!(f64_matches(&NanPattern::CanonicalNan, 0x7ff8_0000_0000_0000));
        assert!(!f64_matches(&NanPattern::CanonicalNan, 0x7ff8_0000_0000_0001));
        assert!(f64_matches(&NanPattern::ArithmeticNan, 0xfff8_0000_0000_0001));
        assert!(!f64_matches(&NanPattern::ArithmeticNan, 0x7ff0_0000_0000_0001));
        assert!(f32_matches(&NanPattern::Value(F32 { bits: 0x8000_0000 }), 0x8000_0000));
        assert!(!f32_matches(&NanPattern::Value(F32 { bits: 0x8000_0000 }), 0));
    }
}

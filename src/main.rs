//! The `weft` command: runs WebAssembly modules and spec scripts.
//!
//! This binary owns the command line only: argument parsing, turning
//! command-line strings into wasm values, printing results, and mapping
//! failures to exit statuses (1 for a bad invocation, file or module; 134
//! for a trap; the guest's own status for `proc_exit`, as `wasmtime run`
//! does). It works purely through the public `weft`, `weft-wasi` and
//! `weft-wast` APIs; it never reaches into runtime internals. The host
//! imports it provides are WASI preview1; `run_options` parses the
//! `-W`/`-S` switches and builds the WASI context.

// No `unsafe` code but the calls of `Module::deserialize_file` and
// `Component::deserialize`, whose contract `--allow-precompiled` hands to
// the user (see `load_module` and `load_precompiled_component`).
#![deny(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]

use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context as _, Result};
use clap::{Args, Parser, Subcommand};
use weft::{Config, Engine, Func, Instance, Linker, Module, Precompiled, Store, Trap, Val, ValType};
use weft_wasi::{I32Exit, WasiP1Ctx};
use weft_wast::{WastContext, WastFailures};

mod run_options;
mod serve;
mod wave;

/// Exit status for a wasm trap, as `wasmtime run` uses (the status of an
/// abort on Unix).
const TRAP_EXIT_STATUS: u8 = 134;

/// Stack size of the thread that runs spec scripts: their text parser and
/// deeply nested test modules need more than a default thread has.
const WAST_THREAD_STACK: usize = 32 << 20;

/// Weft: a WebAssembly runtime.
#[derive(Parser, Debug)]
#[command(name = "weft", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a WebAssembly module (binary `.wasm` or text `.wat`), as
    /// `wasmtime run` does: a WASI preview1 command gets the host's stdio,
    /// `argv` = FILE and ARGS, the `--env` variables and the `--dir`
    /// directories.
    ///
    /// Without `--invoke`, calls the module's `_start` export if it has one,
    /// else its default export (the export named "", or nothing); a module
    /// with `_initialize` and no `_start` has it called first.
    ///
    /// Exit status: the guest's status when it calls `proc_exit`; else 0 on
    /// success, 1 when the file cannot be read, the module does not compile
    /// or link, or the arguments do not fit; 134 when the wasm code traps
    /// (the message and the wasm backtrace are printed).
    Run(RunArgs),
    /// Run WebAssembly spec test scripts (`.wast`).
    ///
    /// Prints `ok   FILE` or `FAIL FILE` (followed by the failed directives)
    /// for each script and ends with `N passed, M failed`. Exit status 1
    /// when any script failed.
    Wast(WastArgs),
    /// Compile a WebAssembly module or component ahead of time into a
    /// precompiled module or component that `weft run --allow-precompiled`
    /// runs without compiling. The output only runs with this version of
    /// weft on this kind of CPU.
    Compile(CompileArgs),
    /// Serve a `wasi:http/proxy` component over HTTP, as `wasmtime serve`
    /// does: one instance per request, requests handled concurrently; a
    /// guest that traps or does not answer gets a 500.
    Serve(serve::ServeArgs),
}

#[derive(Args, Debug)]
struct CompileArgs {
    /// Where to write the precompiled output (default: FILE with the
    /// extension `.cwasm`).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,

    /// Wasm switches that change the code, comma-separated or repeated, as
    /// `weft run` takes them: proposals (`-W simd=n`, `-W gc=y`, ...),
    /// `fuel=N` and `timeout=DURATION` (the code counts fuel or checks the
    /// epoch). `weft run --allow-precompiled` then needs the same ones.
    #[arg(short = 'W', value_name = "OPT[=VAL]")]
    wasm: Vec<String>,

    /// The module or component to compile: a binary `.wasm` or a text
    /// `.wat` file.
    #[arg(value_name = "FILE")]
    module: PathBuf,
}

#[derive(Args, Debug)]
struct RunArgs {
    /// Call the exported function NAME and print its results, one per line.
    /// For a component, a call in WAVE syntax, as `wasmtime run` takes it:
    /// `--invoke 'add(1, 2)'`, `'greet("you")'`,
    /// `'set({name: "a", mode: some(fast)})'`; the function is a root
    /// export, `ns:pkg/iface.func@1.0.0`, or a bare name found in one
    /// exported instance. The result is printed in WAVE (`()` for none).
    #[arg(long, value_name = "NAME")]
    invoke: Option<String>,

    /// Give the guest the host directory HOST under the name GUEST (default:
    /// HOST as written), with every permission. The guest reaches nothing
    /// outside it. Repeatable.
    #[arg(long = "dir", value_name = "HOST[::GUEST]")]
    dirs: Vec<String>,

    /// Set the guest's environment variable NAME to VAL, or to the host's
    /// value of NAME when no VAL is given. Repeatable.
    #[arg(long = "env", value_name = "NAME[=VAL]")]
    envs: Vec<String>,

    /// Wasm switches, comma-separated or repeated:
    /// `unknown-imports-default=y` (function imports nothing defines return
    /// zeros), `unknown-imports-trap=y` (they fail when called),
    /// `max-wasm-stack=N` (bytes of stack wasm may use), `fuel=N` and
    /// `timeout=DURATION` (as `--fuel` and `--wasm-timeout`).
    #[arg(short = 'W', value_name = "OPT[=VAL]")]
    wasm: Vec<String>,

    /// WASI switches, comma-separated or repeated: `inherit-env=y` (the
    /// guest sees the host's environment), `tcplisten=ADDR` (a listening
    /// socket the guest may `sock_accept` on), `cli=y`/`preview1=y` (always
    /// on).
    #[arg(short = 'S', value_name = "OPT[=VAL]")]
    wasi: Vec<String>,

    /// Trap once the guest has consumed N units of fuel (about one per wasm
    /// operation); the same as `-W fuel=N`.
    #[arg(long, value_name = "N")]
    fuel: Option<u64>,

    /// Trap once the guest has run for DURATION (`10s`, `500ms`, `2m`; a
    /// plain number is seconds), checked at function entries and loop
    /// headers; the same as `-W timeout=DURATION`.
    #[arg(long, value_name = "DURATION", value_parser = run_options::parse_duration)]
    wasm_timeout: Option<std::time::Duration>,

    /// Allow FILE to be a precompiled module or component (from `weft
    /// compile`), which
    /// is then loaded without compiling. Precompiled code is trusted: pass
    /// this only for files you made and nobody else can change. Without it
    /// a precompiled FILE is refused.
    #[arg(long)]
    allow_precompiled: bool,

    /// The module to run: a binary `.wasm` or a text `.wat` file.
    #[arg(value_name = "FILE")]
    module: PathBuf,

    /// The program's arguments (argv[1..]). With `--invoke`, the
    /// function's arguments, one per parameter: i32/i64 in decimal (possibly
    /// negative), f32/f64 in decimal or as `nan`, `inf`, `-inf`.
    #[arg(value_name = "ARGS", trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

#[derive(Args, Debug)]
struct WastArgs {
    /// The scripts to run, each with a fresh store and the `spectest` module.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run(args) => run_command(&args),
        Command::Wast(args) => wast_command(args.files),
        Command::Serve(args) => serve::serve_command(&args),
        Command::Compile(args) => match compile_command(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("Error: {}", one_line(&err));
                ExitCode::FAILURE
            }
        },
    }
}

/// `weft compile`: writes the precompiled form of a module.
fn compile_command(args: &CompileArgs) -> Result<()> {
    let path = &args.module;
    let bytes = std::fs::read(path).with_context(|| format!("failed to read `{}`", path.display()))?;
    let mut config = Config::new();
    run_options::configure(&mut config, &run_options::parse_wasm_switches(&args.wasm)?);
    let engine = Engine::new(&config)?;
    let compiled = match component_binary(&bytes) {
        Some(binary) => binary
            .and_then(|binary| engine.precompile_component(&binary))
            .with_context(|| format!("failed to compile `{}`", path.display()))?,
        None => engine
            .precompile_module(&bytes)
            .with_context(|| format!("failed to compile `{}`", path.display()))?,
    };
    let output = args.output.clone().unwrap_or_else(|| path.with_extension("cwasm"));
    std::fs::write(&output, compiled).with_context(|| format!("failed to write `{}`", output.display()))?;
    Ok(())
}

/// Why `weft run` failed.
enum RunError {
    /// Before any wasm ran: bad file, module, import or argument. Reported
    /// on one line, exit status 1.
    Setup(anyhow::Error),
    /// While wasm ran (start function or the called export). Reported with
    /// the full error chain but no Rust backtrace (see `error_chain`); exit
    /// status 134 for a trap, 1 otherwise.
    Exec(anyhow::Error),
}

fn run_command(args: &RunArgs) -> ExitCode {
    match run_module(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(RunError::Setup(err)) => {
            eprintln!("Error: {}", one_line(&err));
            ExitCode::FAILURE
        }
        Err(RunError::Exec(err)) => {
            if let Some(exit) = err.downcast_ref::<I32Exit>() {
                return ExitCode::from(exit.0 as u8);
            }
            let status = if err.downcast_ref::<Trap>().is_some() {
                TRAP_EXIT_STATUS
            } else {
                1
            };
            let err = err.context(format!("failed to run main module `{}`", args.module.display()));
            eprintln!("Error: {}", error_chain(&err));
            ExitCode::from(status)
        }
    }
}

fn run_module(args: &RunArgs) -> Result<(), RunError> {
    let path = &args.module;
    let mut wasm_switches = run_options::parse_wasm_switches(&args.wasm).map_err(RunError::Setup)?;
    wasm_switches.fuel = args.fuel.or(wasm_switches.fuel);
    wasm_switches.timeout = args.wasm_timeout.or(wasm_switches.timeout);
    let wasi_switches = run_options::parse_wasi_switches(&args.wasi).map_err(RunError::Setup)?;
    let mut config = Config::new();
    run_options::configure(&mut config, &wasm_switches);
    let engine = Engine::new(&config).map_err(RunError::Setup)?;
    let bytes = std::fs::read(path)
        .with_context(|| format!("failed to read `{}`", path.display()))
        .map_err(RunError::Setup)?;
    if engine.detect_precompiled(&bytes) == Some(Precompiled::Component) {
        let component =
            load_precompiled_component(&engine, path, &bytes, args.allow_precompiled).map_err(RunError::Setup)?;
        return run_component(args, &engine, &component, &wasm_switches, &wasi_switches);
    }
    if let Some(binary) = component_binary(&bytes) {
        let binary = binary
            .with_context(|| format!("failed to parse `{}`", path.display()))
            .map_err(RunError::Setup)?;
        let component = weft::component::Component::new(&engine, binary)
            .with_context(|| format!("failed to compile `{}`", path.display()))
            .map_err(RunError::Setup)?;
        return run_component(args, &engine, &component, &wasm_switches, &wasi_switches);
    }
    let module = load_module(&engine, path, &bytes, args.allow_precompiled).map_err(RunError::Setup)?;

    let wasi = run_options::build_wasi(path, &args.args, &args.dirs, &args.envs, &wasi_switches)
        .map_err(RunError::Setup)?
        .build_p1();
    let mut store = Store::new(&engine, wasi);
    run_options::arm_limits(&engine, &mut store, &wasm_switches).map_err(RunError::Setup)?;
    let mut linker: Linker<WasiP1Ctx> = Linker::new(&engine);
    weft_wasi::preview1::add_to_linker_sync(&mut linker, |t| t).map_err(RunError::Setup)?;
    run_options::define_unknown_imports(&mut linker, &mut store, &module, path, wasm_switches.unknown_imports)
        .map_err(RunError::Setup)?;
    let instance = linker
        .instantiate(&mut store, &module)
        .with_context(|| format!("failed to instantiate `{}`", path.display()))
        .map_err(RunError::Exec)?;
    if instance.get_func(&mut store, "_start").is_none() {
        if let Some(init) = instance.get_func(&mut store, "_initialize") {
            init.call(&mut store, &[], &mut []).map_err(RunError::Exec)?;
        }
    }

    match &args.invoke {
        Some(name) => {
            let func = instance.get_func(&mut store, name).ok_or_else(|| {
                RunError::Setup(anyhow!(
                    "module `{}` has no exported function named `{name}`",
                    path.display()
                ))
            })?;
            let results = call_with_args(&mut store, &func, name, &args.args)?;
            for value in &results {
                println!("{}", display_result(value));
            }
            Ok(())
        }
        None => {
            let func = entry_point(&mut store, &mut linker, instance).map_err(RunError::Setup)?;
            call_with_args(&mut store, &func, "_start", &[])?;
            Ok(())
        }
    }
}

/// The binary of a component, when `bytes` is one: a binary whose header
/// says component (version 0x0d, layer 1), or text that starts with
/// `(component`. `None` for anything else (a module, or not wasm at all).
fn component_binary(bytes: &[u8]) -> Option<Result<Vec<u8>>> {
    if bytes.starts_with(b"\0asm") {
        return (bytes.get(6..8) == Some(&[1, 0])).then(|| Ok(bytes.to_vec()));
    }
    let text = std::str::from_utf8(bytes).ok()?;
    if !starts_with_component(text) {
        return None;
    }
    Some(wat::parse_str(text).map_err(anyhow::Error::from))
}

/// Whether WAT `text` is a component: its first form, after whitespace
/// and comments, is `(component`.
fn starts_with_component(text: &str) -> bool {
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix(";;") {
            rest = after.split_once('\n').map_or("", |(_, r)| r);
        } else if let Some(after) = rest.strip_prefix("(;") {
            rest = after.split_once(";)").map_or("", |(_, r)| r);
        } else {
            break;
        }
    }
    rest.strip_prefix("(component")
        .is_some_and(|r| r.starts_with(|c: char| c.is_whitespace() || c == ')' || c == '$' || c == ';'))
}

/// The store data of a component run: the WASI 0.2 context and the table
/// of the guest's resources.
struct ComponentState {
    ctx: weft_wasi::p2::WasiCtx,
    table: weft::component::ResourceTable,
}

impl weft_wasi::p2::WasiView for ComponentState {
    fn ctx(&mut self) -> weft_wasi::p2::WasiCtxView<'_> {
        weft_wasi::p2::WasiCtxView {
            ctx: &mut self.ctx,
            table: &mut self.table,
        }
    }
}

/// Runs a WASI 0.2 command component: instantiates it with every
/// `wasi:cli/command` import and calls its `wasi:cli/run` export. `run`
/// returning `err` is exit status 1, as with `wasmtime run`. A component
/// that uses WASI 0.3's `wasi:cli` gets the 0.3 imports as well and is run
/// by `run_component_p3`.
fn run_component(
    args: &RunArgs,
    engine: &Engine,
    component: &weft::component::Component,
    wasm_switches: &run_options::WasmSwitches,
    wasi_switches: &run_options::WasiSwitches,
) -> Result<(), RunError> {
    let path = &args.module;
    // The call's syntax is checked before anything runs.
    let call = match &args.invoke {
        Some(text) => Some(
            wave::parse_call(text)
                .with_context(|| format!("failed to parse the call `{text}` (WAVE syntax, e.g. `add(1, 2)`)"))
                .map_err(RunError::Setup)?,
        ),
        None => None,
    };
    // argv[0] is the file's name without its directory, as `wasmtime run`
    // gives a component (it leaks no host path).
    let program = Path::new(path.file_name().unwrap_or(path.as_os_str()));
    let ctx = run_options::build_wasi(program, &args.args, &args.dirs, &args.envs, wasi_switches)
        .map_err(RunError::Setup)?
        .build();
    let mut store = Store::new(
        engine,
        ComponentState {
            ctx,
            table: weft::component::ResourceTable::new(),
        },
    );
    run_options::arm_limits(engine, &mut store, wasm_switches).map_err(RunError::Setup)?;
    let mut linker = weft::component::Linker::new(engine);
    weft_wasi::p2::add_to_linker_sync(&mut linker).map_err(RunError::Setup)?;
    let p3 = uses_wasi_p3(component);
    if p3 {
        weft_wasi::p3::add_to_linker(&mut linker).map_err(RunError::Setup)?;
    }
    if let Some(call) = call {
        return invoke_component(&mut store, &linker, component, path, &call);
    }
    if p3 {
        return run_component_p3(store, &linker, component, path);
    }
    let command = weft_wasi::p2::bindings::sync::Command::instantiate(&mut store, component, &linker)
        .with_context(|| format!("failed to instantiate `{}`", path.display()))
        .map_err(RunError::Exec)?;
    match command.wasi_cli_run().call_run(&mut store) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(())) => Err(RunError::Exec(anyhow::Error::new(I32Exit(1)))),
        Err(err) if err.downcast_ref::<I32Exit>().is_some() => Err(RunError::Exec(err)),
        Err(err) => Err(RunError::Exec(err.context("failed to invoke `run` function"))),
    }
}

/// Whether `component` imports or exports a `wasi:cli` interface of WASI
/// 0.3 (`wasi:cli/*@0.3.x`): `weft run` then runs its `wasi:cli/run@0.3`
/// export, an `async` function, in the event loop.
fn uses_wasi_p3(component: &weft::component::Component) -> bool {
    let ty = component.component_type();
    let engine = component.engine();
    let is_p3 = |name: &str| {
        name.strip_prefix("wasi:cli/")
            .and_then(|rest| rest.split_once('@'))
            .is_some_and(|(_, version)| version.starts_with("0.3."))
    };
    ty.imports(engine).any(|(n, _)| is_p3(n)) || ty.exports(engine).any(|(n, _)| is_p3(n))
}

/// Runs a WASI 0.3 command component: instantiates it and calls its
/// `async` `wasi:cli/run` export inside `Store::run_concurrent`, on a
/// single-threaded tokio runtime. Exit statuses are those of a WASI 0.2
/// run.
fn run_component_p3(
    mut store: Store<ComponentState>,
    linker: &weft::component::Linker<ComponentState>,
    component: &weft::component::Component,
    path: &Path,
) -> Result<(), RunError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .context("failed to start the event loop's runtime")
        .map_err(RunError::Setup)?;
    runtime.block_on(async {
        let command = weft_wasi::p3::bindings::Command::instantiate_async(&mut store, component, linker)
            .await
            .with_context(|| format!("failed to instantiate `{}`", path.display()))
            .map_err(RunError::Exec)?;
        let result = store
            .run_concurrent(async move |store| command.wasi_cli_run().call_run(store).await)
            .await
            .and_then(|r| r);
        match result {
            Ok(Ok(())) => Ok(()),
            Ok(Err(())) => Err(RunError::Exec(anyhow::Error::new(I32Exit(1)))),
            // Without the context a 0.2 run adds, as `wasmtime run` 49.
            Err(err) => Err(RunError::Exec(err)),
        }
    })
}

/// `--invoke` of a component: instantiates it, finds the exported function
/// (see `find_export`),
/// converts the call's arguments by its parameter types and prints its
/// result in WAVE (`()` when it has none), as `wasmtime run` does.
fn invoke_component(
    store: &mut Store<ComponentState>,
    linker: &weft::component::Linker<ComponentState>,
    component: &weft::component::Component,
    path: &Path,
    call: &wave::Call,
) -> Result<(), RunError> {
    let instance = linker
        .instantiate(&mut *store, component)
        .with_context(|| format!("failed to instantiate `{}`", path.display()))
        .map_err(RunError::Exec)?;
    let (iface, name) = find_export(component, &call.name)
        .with_context(|| format!("in component `{}`", path.display()))
        .map_err(RunError::Setup)?;
    let index = match &iface {
        Some(iface) => instance
            .get_export_index(&mut *store, None, iface)
            .and_then(|i| instance.get_export_index(&mut *store, Some(&i), &name)),
        None => instance.get_export_index(&mut *store, None, &name),
    };
    let func = index.and_then(|i| instance.get_func(&mut *store, &i)).ok_or_else(|| {
        RunError::Setup(anyhow!(
            "component `{}` has no exported function named `{}`",
            path.display(),
            call.name
        ))
    })?;
    let ty = func
        .ty(&*store)
        .ok_or_else(|| RunError::Setup(anyhow!("the type of `{}` is unknown", call.name)))?;
    let params: Vec<(String, weft::component::types::Type)> = ty.params().map(|(n, t)| (n.to_string(), t)).collect();
    let args = call
        .args(&params)
        .with_context(|| format!("invalid arguments for `{}`", call.name))
        .map_err(RunError::Setup)?;
    let mut results = vec![weft::component::Val::Bool(false); ty.results().len()];
    if ty.async_() {
        // An `async` export (a WASI 0.3 `run`) is called concurrently, in
        // the store's event loop.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .context("failed to start the event loop's runtime")
            .map_err(RunError::Setup)?;
        runtime
            .block_on(store.run_concurrent(async |accessor| func.call_concurrent(accessor, &args, &mut results).await))
            .and_then(|r| r)
    } else {
        func.call(&mut *store, &args, &mut results)
    }
    .with_context(|| format!("failed to invoke `{}`", call.name))
    .map_err(RunError::Exec)?;
    if results.is_empty() {
        println!("()");
    }
    for value in &results {
        println!("{}", wave::to_string(value));
    }
    Ok(())
}

/// The exported function `name` of `component`, as `wasmtime run --invoke`
/// finds it: a function exported by the root; `ns:pkg/iface.func` or
/// `ns:pkg/iface.func@1.2.3` or `ns:pkg/iface@1.2.3.func`, the function
/// `func` of the exported instance
/// `ns:pkg/iface` (`ns:pkg/iface@1.2.3`); or a bare `func`, searched for in
/// every exported instance, which must find one. Gives the instance's
/// name, if any, and the function's.
fn find_export(component: &weft::component::Component, name: &str) -> Result<(Option<String>, String)> {
    use weft::component::types::ComponentItem;
    let ty = component.component_type();
    let engine = component.engine();
    let exports: Vec<(String, ComponentItem)> = ty.exports(engine).map(|(n, t)| (n.to_string(), t)).collect();
    let has_func = |item: &ComponentItem, func: &str| match item {
        ComponentItem::ComponentInstance(i) => matches!(i.get_export(func), Some(ComponentItem::ComponentFunc(_))),
        _ => false,
    };
    if exports
        .iter()
        .any(|(n, t)| n == name && matches!(t, ComponentItem::ComponentFunc(_)))
    {
        return Ok((None, name.to_string()));
    }
    if let Some((package, rest)) = name.rsplit_once('/') {
        // `iface@1.2.3.func` (the version's dots are not the separator),
        // or `iface.func`, `iface.func@1.2.3`.
        let versioned_iface = rest
            .split_once('@')
            .filter(|(iface, _)| !iface.contains('.'))
            .and_then(|(iface, tail)| tail.rsplit_once('.').map(|(version, func)| (iface, version, func)));
        let (iface, func, version) = match versioned_iface {
            Some((iface, version, func)) => (iface, func, format!("@{version}")),
            None => {
                let Some((iface, func)) = rest.split_once('.') else {
                    bail!("no exported function named `{name}` (write `ns:pkg/interface.function`)");
                };
                match func.split_once('@') {
                    Some((func, version)) => (iface, func, format!("@{version}")),
                    None => (iface, func, String::new()),
                }
            }
        };
        let instance = format!("{package}/{iface}{version}");
        return match exports.iter().find(|(n, _)| *n == instance) {
            Some((_, item)) if has_func(item, func) => Ok((Some(instance), func.to_string())),
            Some(_) => bail!("the exported instance `{instance}` has no function named `{func}`"),
            None => bail!("no exported instance named `{instance}`"),
        };
    }
    let found: Vec<&str> = exports
        .iter()
        .filter(|(_, t)| has_func(t, name))
        .map(|(n, _)| n.as_str())
        .collect();
    match found[..] {
        [instance] => Ok((Some(instance.to_string()), name.to_string())),
        [] => bail!("no exported function named `{name}`"),
        _ => bail!(
            "the function name `{name}` is ambiguous: it is exported by {}",
            found.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(" and ")
        ),
    }
}

/// Loads the precompiled component `bytes` (read from `path`), refused
/// without `--allow-precompiled`.
fn load_precompiled_component(
    engine: &Engine,
    path: &Path,
    bytes: &[u8],
    allow_precompiled: bool,
) -> Result<weft::component::Component> {
    if !allow_precompiled {
        bail!(
            "`{}` is a precompiled component: running it needs `--allow-precompiled`",
            path.display()
        );
    }
    #[allow(
        unsafe_code,
        reason = "--allow-precompiled opts in to the unsafe Component::deserialize"
    )]
    // SAFETY: `deserialize` trusts its bytes to be a component Weft
    // precompiled; the user vouched for the file with
    // `--allow-precompiled`, as with `wasmtime run`.
    let component = unsafe { weft::component::Component::deserialize(engine, bytes) };
    component.with_context(|| format!("failed to load `{}`", path.display()))
}

/// Compiles a module, text or binary (`bytes`, read from `path`).
fn load_module(engine: &Engine, path: &Path, bytes: &[u8], allow_precompiled: bool) -> Result<Module> {
    if engine.detect_precompiled(bytes).is_some() {
        if !allow_precompiled {
            bail!(
                "`{}` is a precompiled module: running it needs `--allow-precompiled`",
                path.display()
            );
        }
        #[allow(
            unsafe_code,
            reason = "--allow-precompiled opts in to the unsafe Module::deserialize"
        )]
        // SAFETY: `deserialize_file` trusts the file to be a module Weft
        // precompiled; the user vouched for it with `--allow-precompiled`,
        // as with `wasmtime run`. Loaded from the file rather than from
        // `bytes`, so that its code and memory images are used where the
        // file is mapped instead of being copied.
        let module = unsafe { Module::deserialize_file(engine, path) };
        // Its errors name the file already.
        return module;
    }
    Module::new(engine, bytes).with_context(|| format!("failed to compile `{}`", path.display()))
}

/// The function `weft run` calls without `--invoke`: `_start`, else the
/// linker's default export of the instance.
fn entry_point(store: &mut Store<WasiP1Ctx>, linker: &mut Linker<WasiP1Ctx>, instance: Instance) -> Result<Func> {
    if let Some(start) = instance.get_func(&mut *store, "_start") {
        return Ok(start);
    }
    linker.instance(&mut *store, "", instance)?;
    linker.get_default(&mut *store, "")
}

/// Parses `args` by the function's parameter types and calls it.
fn call_with_args(
    store: &mut Store<WasiP1Ctx>,
    func: &Func,
    name: &str,
    args: &[String],
) -> Result<Vec<Val>, RunError> {
    let ty = func.ty(&*store);
    let params: Vec<ValType> = ty.params().collect();
    if params.len() != args.len() {
        return Err(RunError::Setup(anyhow!(
            "function `{name}` takes {} argument(s), but {} were given",
            params.len(),
            args.len()
        )));
    }
    let values = params
        .iter()
        .zip(args)
        .map(|(ty, arg)| parse_arg(ty, arg))
        .collect::<Result<Vec<_>>>()
        .map_err(RunError::Setup)?;
    let mut results = vec![Val::I32(0); ty.results().len()];
    func.call(&mut *store, &values, &mut results).map_err(RunError::Exec)?;
    Ok(results)
}

/// Parses one command-line argument as a value of type `ty`.
fn parse_arg(ty: &ValType, arg: &str) -> Result<Val> {
    let bad = || anyhow!("argument `{arg}` is not a valid {}", type_name(ty));
    Ok(match ty {
        ValType::I32 => Val::I32(
            arg.parse::<i32>()
                .or_else(|_| arg.parse::<u32>().map(|u| u as i32))
                .map_err(|_| bad())?,
        ),
        ValType::I64 => Val::I64(
            arg.parse::<i64>()
                .or_else(|_| arg.parse::<u64>().map(|u| u as i64))
                .map_err(|_| bad())?,
        ),
        ValType::F32 => Val::F32(arg.parse::<f32>().map_err(|_| bad())?.to_bits()),
        ValType::F64 => Val::F64(arg.parse::<f64>().map_err(|_| bad())?.to_bits()),
        ValType::V128 => {
            let bits = match arg.strip_prefix("0x") {
                Some(hex) => u128::from_str_radix(hex, 16),
                None => arg.parse::<u128>(),
            };
            Val::V128(weft::V128::from(bits.map_err(|_| bad())?))
        }
        _ => bail!("cannot pass a {} argument from the command line", type_name(ty)),
    })
}

fn type_name(ty: &ValType) -> &'static str {
    match ty {
        ValType::I32 => "i32",
        ValType::I64 => "i64",
        ValType::F32 => "f32",
        ValType::F64 => "f64",
        ValType::V128 => "v128",
        _ => "reference",
    }
}

/// A result as `wasmtime run --invoke` prints it.
fn display_result(value: &Val) -> String {
    match value {
        Val::I32(x) => x.to_string(),
        Val::I64(x) => x.to_string(),
        Val::F32(bits) => f32::from_bits(*bits).to_string(),
        Val::F64(bits) => f64::from_bits(*bits).to_string(),
        Val::FuncRef(None) => "<null funcref>".to_string(),
        Val::FuncRef(Some(_)) => "<funcref>".to_string(),
        Val::ExternRef(None) => "<null externref>".to_string(),
        Val::ExternRef(Some(_)) => "<externref>".to_string(),
        Val::ExnRef(None) => "<null exnref>".to_string(),
        Val::ExnRef(Some(_)) => "<exnref>".to_string(),
        Val::AnyRef(None) => "<null anyref>".to_string(),
        Val::AnyRef(Some(_)) => "<anyref>".to_string(),
        Val::V128(v) => format!("0x{:032x}", v.as_u128()),
    }
}

/// An error and its causes as `{:?}` of `anyhow::Error` prints them
/// ("Caused by:" and the numbered causes, the wasm backtrace among them),
/// but never the Rust backtrace that `anyhow` captures when
/// `RUST_BACKTRACE` or `RUST_LIB_BACKTRACE` is set: an error of a running
/// guest (a trap, an invalid exit, a failed host call) says nothing about
/// Weft's own frames, and `wasmtime run` prints none either. (Errors are
/// `anyhow::Error`s, which on stable Rust capture a backtrace whenever one
/// is created with those variables set, so the printing leaves it out.)
fn error_chain(err: &anyhow::Error) -> String {
    let mut out = err.to_string();
    let causes: Vec<String> = err.chain().skip(1).map(ToString::to_string).collect();
    if causes.is_empty() {
        return out;
    }
    out.push_str("\n\nCaused by:");
    let numbered = causes.len() > 1;
    for (n, cause) in causes.iter().enumerate() {
        out.push('\n');
        for (i, line) in cause.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            match (i, numbered) {
                (0, true) => out.push_str(&format!("{n: >5}: ")),
                (_, true) => out.push_str("       "),
                (_, false) => out.push_str("    "),
            }
            out.push_str(line);
        }
    }
    out
}

/// An error chain on one line, without the source snippets that text-format
/// parse errors carry.
fn one_line(err: &anyhow::Error) -> String {
    let text = format!("{err:#}");
    let is_snippet = |line: &str| {
        line.starts_with('|')
            || line.starts_with('^')
            || line
                .split_once(" |")
                .is_some_and(|(number, _)| number.chars().all(|c| c.is_ascii_digit()))
    };
    let kept: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !is_snippet(line))
        .collect();
    if kept.is_empty() {
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    } else {
        kept.join(" ")
    }
}

fn wast_command(files: Vec<PathBuf>) -> ExitCode {
    let worker = std::thread::Builder::new()
        .name("weft-wast".to_string())
        .stack_size(WAST_THREAD_STACK)
        .spawn(move || run_wast_files(&files));
    match worker {
        Ok(handle) => match handle.join() {
            Ok(status) => status,
            Err(_) => {
                eprintln!("Error: the script runner panicked");
                ExitCode::FAILURE
            }
        },
        Err(err) => {
            eprintln!("Error: failed to start the script runner thread: {err}");
            ExitCode::FAILURE
        }
    }
}

/// Runs each script with a fresh store; prints one line per file and the
/// totals.
fn run_wast_files(files: &[PathBuf]) -> ExitCode {
    let engine = match Engine::new(&weft_wast::spec_config()) {
        Ok(engine) => engine,
        Err(err) => {
            eprintln!("Error: {err:#}");
            return ExitCode::FAILURE;
        }
    };
    let (mut passed, mut failed) = (0usize, 0usize);
    for file in files {
        // A script that predates some proposals gets an engine without them,
        // one of the custom descriptors proposal an engine with it.
        let own;
        let engine = if weft_wast::predates_proposals(file) || weft_wast::needs_custom_descriptors(file) {
            own = match Engine::new(&weft_wast::spec_config_for(file)) {
                Ok(own) => own,
                Err(err) => {
                    eprintln!("Error: {err:#}");
                    return ExitCode::FAILURE;
                }
            };
            &own
        } else {
            &engine
        };
        let result = panic::catch_unwind(AssertUnwindSafe(|| run_wast_file(engine, file)))
            .unwrap_or_else(|_| Err(anyhow!("the script runner panicked")));
        match result {
            Ok(()) => {
                passed += 1;
                println!("ok   {}", file.display());
            }
            Err(err) => {
                failed += 1;
                println!("FAIL {}", file.display());
                match err.downcast_ref::<WastFailures>() {
                    Some(failures) => {
                        for failure in &failures.failures {
                            println!("  {failure}");
                        }
                    }
                    None => {
                        for line in format!("{err:#}").lines() {
                            println!("  {line}");
                        }
                    }
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn run_wast_file(engine: &Engine, file: &Path) -> Result<()> {
    let store = Store::new(engine, ());
    let mut context = WastContext::new(store);
    context.register_spectest()?;
    context.register_wasmtime_host()?;
    context.run_file(file)
}

#[cfg(test)]
mod tests {
    use super::error_chain;
    use anyhow::anyhow;

    /// `error_chain` prints what `{:?}` of an `anyhow::Error` prints, up to
    /// the Rust backtrace (there only when `RUST_BACKTRACE` is set).
    #[test]
    fn error_chain_is_debug_without_backtrace() {
        let errors = [
            anyhow!("alone"),
            anyhow!("inner").context("outer"),
            anyhow!("trap\nwith two lines")
                .context("error while executing at wasm backtrace:\n    0: f\n    1: g")
                .context("failed to run main module `m.wat`"),
        ];
        for err in &errors {
            let chain = error_chain(err);
            let debug = format!("{err:?}");
            let rest = debug
                .strip_prefix(&chain)
                .unwrap_or_else(|| panic!("{chain:?} vs {debug:?}"));
            assert!(rest.is_empty() || rest.starts_with("\n\nStack backtrace:"), "{debug:?}");
            assert!(!chain.contains("Stack backtrace"));
        }
        assert_eq!(error_chain(&errors[1]), "outer\n\nCaused by:\n    inner");
    }
}

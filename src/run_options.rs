//! The options of `weft run`: `--dir`, `--env` and the `-W` (wasm) and
//! `-S` (WASI) switches, the engine configuration and store limits the
//! `-W` switches set, the WASI context the others build, and the
//! definitions given to imports nothing else defines.

use anyhow::{anyhow, bail, Context as _, Result};
use std::path::Path;
use std::time::Duration;
use weft::{Config, Engine, ExternType, Linker, Module, Store, Val};
use weft_wasi::{FsPerms, WasiCtxBuilder, WasiP1Ctx};

/// What `weft run` gives imports that neither WASI nor anything else
/// defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnknownImports {
    /// Linking fails, naming the import.
    #[default]
    Reject,
    /// Functions that return zero values (`-W unknown-imports-default=y`).
    Default,
    /// Functions that trap when called (`-W unknown-imports-trap=y`).
    Trap,
}

/// The `-W` (wasm) switches.
#[derive(Debug, Default)]
pub struct WasmSwitches {
    pub unknown_imports: UnknownImports,
    pub max_wasm_stack: Option<usize>,
    /// Fuel the guest may consume before it traps (`--fuel`, `-W fuel`).
    pub fuel: Option<u64>,
    /// Wall-clock time the guest may run before it traps
    /// (`--wasm-timeout`, `-W timeout`).
    pub timeout: Option<Duration>,
    /// Proposals switched on or off (`-W memory64=y`, `-W simd=n`, ...), in
    /// the order given.
    pub proposals: Vec<(Proposal, bool)>,
}

/// A WebAssembly proposal `-W` can switch (and `shared-memory`, the
/// ability to make shared memories), named as in Wasmtime's CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proposal {
    Simd,
    RelaxedSimd,
    RelaxedSimdDeterministic,
    TailCall,
    MultiMemory,
    Memory64,
    ExtendedConst,
    FunctionReferences,
    Exceptions,
    WideArithmetic,
    CustomPageSizes,
    LegacyExceptions,
    Threads,
    SharedMemory,
    Gc,
    CustomDescriptors,
}

impl Proposal {
    const ALL: [(&'static str, Proposal); 16] = [
        ("simd", Proposal::Simd),
        ("relaxed-simd", Proposal::RelaxedSimd),
        ("relaxed-simd-deterministic", Proposal::RelaxedSimdDeterministic),
        ("tail-call", Proposal::TailCall),
        ("multi-memory", Proposal::MultiMemory),
        ("memory64", Proposal::Memory64),
        ("extended-const", Proposal::ExtendedConst),
        ("function-references", Proposal::FunctionReferences),
        ("exceptions", Proposal::Exceptions),
        ("wide-arithmetic", Proposal::WideArithmetic),
        ("custom-page-sizes", Proposal::CustomPageSizes),
        ("legacy-exceptions", Proposal::LegacyExceptions),
        ("threads", Proposal::Threads),
        ("shared-memory", Proposal::SharedMemory),
        ("gc", Proposal::Gc),
        ("custom-descriptors", Proposal::CustomDescriptors),
    ];

    fn named(name: &str) -> Option<Proposal> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
    }

    fn apply(self, config: &mut Config, enable: bool) {
        match self {
            Proposal::Simd => config.wasm_simd(enable),
            Proposal::RelaxedSimd => config.wasm_relaxed_simd(enable),
            Proposal::RelaxedSimdDeterministic => config.relaxed_simd_deterministic(enable),
            Proposal::TailCall => config.wasm_tail_call(enable),
            Proposal::MultiMemory => config.wasm_multi_memory(enable),
            Proposal::Memory64 => config.wasm_memory64(enable),
            Proposal::ExtendedConst => config.wasm_extended_const(enable),
            Proposal::FunctionReferences => config.wasm_function_references(enable),
            Proposal::Exceptions => config.wasm_exceptions(enable),
            Proposal::WideArithmetic => config.wasm_wide_arithmetic(enable),
            Proposal::CustomPageSizes => config.wasm_custom_page_sizes(enable),
            Proposal::LegacyExceptions => config.wasm_legacy_exceptions(enable),
            Proposal::Threads => config.wasm_threads(enable),
            Proposal::SharedMemory => config.shared_memory(enable),
            Proposal::Gc => config.wasm_gc(enable),
            Proposal::CustomDescriptors => config.wasm_custom_descriptors(enable),
        };
    }
}

/// The `-S` (WASI) switches.
#[derive(Debug, Default)]
pub struct WasiSwitches {
    pub inherit_env: bool,
    pub tcplisten: Vec<String>,
    /// WASI 0.2 sockets may reach every address.
    pub inherit_network: bool,
    /// WASI 0.2 guests may resolve host names.
    pub allow_ip_name_lookup: bool,
    /// WASI 0.2 guests may use TCP.
    pub tcp: bool,
    /// WASI 0.2 guests may use UDP.
    pub udp: bool,
}

/// The `-W` switches `weft run` understands, for `--help` and errors.
pub const WASM_SWITCHES: &str = "unknown-imports-default[=y|n], unknown-imports-trap[=y|n], max-wasm-stack=N, \
     fuel=N, timeout=DURATION, and the proposals simd, relaxed-simd, relaxed-simd-deterministic, tail-call, \
     multi-memory, memory64, extended-const, function-references, exceptions, wide-arithmetic, custom-page-sizes, legacy-exceptions, threads, gc, custom-descriptors[=y|n]";
/// The `-S` switches `weft run` understands.
pub const WASI_SWITCHES: &str = "cli[=y], preview1[=y], inherit-env[=y|n], tcplisten=ADDR, \
     and for components inherit-network[=y|n], allow-ip-name-lookup[=y|n], tcp[=y|n], udp[=y|n]";

fn parse_bool(name: &str, value: Option<&str>) -> Result<bool> {
    match value {
        None | Some("y") | Some("yes") | Some("true") => Ok(true),
        Some("n") | Some("no") | Some("false") => Ok(false),
        Some(other) => bail!("invalid value `{other}` for `{name}`: expected y or n"),
    }
}

/// `NAME[=VALUE]` items of repeated, comma-separated switch lists.
fn items(values: &[String]) -> impl Iterator<Item = (&str, Option<&str>)> {
    values
        .iter()
        .flat_map(|v| v.split(','))
        .filter(|s| !s.is_empty())
        .map(|s| match s.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (s, None),
        })
}

/// Parses the `-W` switches.
pub fn parse_wasm_switches(values: &[String]) -> Result<WasmSwitches> {
    let mut out = WasmSwitches::default();
    for (name, value) in items(values) {
        match name {
            "unknown-imports-default" => {
                if parse_bool(name, value)? {
                    out.unknown_imports = UnknownImports::Default;
                }
            }
            "unknown-imports-trap" => {
                if parse_bool(name, value)? {
                    out.unknown_imports = UnknownImports::Trap;
                }
            }
            "max-wasm-stack" => {
                let v = value.ok_or_else(|| anyhow!("`-W max-wasm-stack` needs a value in bytes"))?;
                out.max_wasm_stack = Some(v.parse().map_err(|_| anyhow!("invalid `-W max-wasm-stack={v}`"))?);
            }
            "fuel" => {
                let v = value.ok_or_else(|| anyhow!("`-W fuel` needs a number"))?;
                out.fuel = Some(v.parse().map_err(|_| anyhow!("invalid `-W fuel={v}`"))?);
            }
            "timeout" => {
                let v = value.ok_or_else(|| anyhow!("`-W timeout` needs a duration"))?;
                out.timeout = Some(parse_duration(v)?);
            }
            _ => match Proposal::named(name) {
                Some(proposal) => out.proposals.push((proposal, parse_bool(name, value)?)),
                None => bail!("unsupported `-W {name}`: weft understands {WASM_SWITCHES}"),
            },
        }
    }
    Ok(out)
}

/// Parses the `-S` switches.
pub fn parse_wasi_switches(values: &[String]) -> Result<WasiSwitches> {
    let mut out = WasiSwitches::default();
    for (name, value) in items(values) {
        match name {
            "cli" | "preview1" => {
                if !parse_bool(name, value)? {
                    bail!("`-S {name}=n` is not supported: weft run always provides WASI preview1");
                }
            }
            "inherit-env" => out.inherit_env = parse_bool(name, value)?,
            "inherit-network" => out.inherit_network = parse_bool(name, value)?,
            "allow-ip-name-lookup" => out.allow_ip_name_lookup = parse_bool(name, value)?,
            "tcp" => out.tcp = parse_bool(name, value)?,
            "udp" => out.udp = parse_bool(name, value)?,
            "tcplisten" => out.tcplisten.push(
                value
                    .ok_or_else(|| anyhow!("`-S tcplisten` needs an address"))?
                    .to_string(),
            ),
            _ => bail!("unsupported `-S {name}`: weft run understands {WASI_SWITCHES}"),
        }
    }
    Ok(out)
}

/// A duration as `--wasm-timeout` takes it: a number with a unit (`ns`,
/// `us`, `ms`, `s`, `m`, `h`), or a plain number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: f64 = number
        .parse()
        .map_err(|_| anyhow!("invalid duration `{text}`: expected a number with a unit, like 10s or 500ms"))?;
    let seconds = match unit.trim() {
        "ns" => n / 1e9,
        "us" => n / 1e6,
        "ms" => n / 1e3,
        "" | "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        other => bail!("invalid duration `{text}`: unknown unit `{other}` (ns, us, ms, s, m, h)"),
    };
    Duration::try_from_secs_f64(seconds).map_err(|_| anyhow!("invalid duration `{text}`"))
}

/// Applies the `-W` switches that configure the engine.
pub fn configure(config: &mut Config, switches: &WasmSwitches) {
    if let Some(size) = switches.max_wasm_stack {
        config.max_wasm_stack(size);
    }
    config.consume_fuel(switches.fuel.is_some());
    config.epoch_interruption(switches.timeout.is_some());
    for (proposal, enable) in &switches.proposals {
        proposal.apply(config, *enable);
    }
}

/// Gives the store its fuel, and arms the timeout: a thread that advances
/// the engine's epoch once the time is up, so the guest traps at its next
/// function entry or loop header.
pub fn arm_limits<T>(engine: &Engine, store: &mut Store<T>, switches: &WasmSwitches) -> Result<()> {
    if let Some(fuel) = switches.fuel {
        store.set_fuel(fuel)?;
    }
    if let Some(timeout) = switches.timeout {
        store.set_epoch_deadline(1);
        let engine = engine.clone();
        std::thread::Builder::new()
            .name("weft-timeout".to_string())
            .spawn(move || {
                std::thread::sleep(timeout);
                engine.increment_epoch();
            })
            .context("failed to start the timeout thread")?;
    }
    Ok(())
}

/// The guest's WASI context: the host's stdio, `argv` = the module's path
/// and `args`, the `--env` variables, the `--dir` directories (with every
/// permission), the `-S tcplisten` sockets (preview1) and what WASI 0.2
/// sockets may do.
pub fn build_wasi(
    module: &Path,
    args: &[String],
    dirs: &[String],
    envs: &[String],
    switches: &WasiSwitches,
) -> Result<WasiCtxBuilder> {
    let mut builder = WasiCtxBuilder::new();
    builder.inherit_stdio().arg(module.to_string_lossy()).args(args);
    if switches.inherit_env {
        builder.inherit_env();
    }
    for env in envs {
        match env.split_once('=') {
            Some((name, value)) => builder.env(name, value),
            None => match std::env::var(env) {
                Ok(value) => builder.env(env, value),
                Err(_) => &mut builder,
            },
        };
    }
    for dir in dirs {
        let (host, guest) = dir.split_once("::").unwrap_or((dir, dir));
        builder
            .preopened_dir(host, guest, FsPerms::ReadWrite)
            .with_context(|| format!("`--dir {dir}`"))?;
    }
    for addr in &switches.tcplisten {
        let listener = std::net::TcpListener::bind(addr).with_context(|| format!("failed to listen on `{addr}`"))?;
        builder.preopened_socket(listener);
    }
    builder
        .allow_tcp(switches.tcp)
        .allow_udp(switches.udp)
        .allow_ip_name_lookup(switches.allow_ip_name_lookup);
    if switches.inherit_network {
        builder.inherit_network();
    }
    Ok(builder)
}

/// Gives every function import of `module` that `linker` does not define a
/// definition by `mode`; a non-function import that is not defined, or
/// any undefined import under [`UnknownImports::Reject`], is an error naming
/// it.
pub fn define_unknown_imports(
    linker: &mut Linker<WasiP1Ctx>,
    store: &mut Store<WasiP1Ctx>,
    module: &Module,
    path: &Path,
    mode: UnknownImports,
) -> Result<()> {
    let imports: Vec<(String, String, ExternType)> = module
        .imports()
        .map(|i| (i.module().to_string(), i.name().to_string(), i.ty()))
        .collect();
    for (module_name, name, ty) in imports {
        if linker.get(&mut *store, &module_name, &name).is_some() {
            continue;
        }
        let func_ty = match (&ty, mode) {
            (ExternType::Func(f), UnknownImports::Default | UnknownImports::Trap) => f.clone(),
            _ => bail!(
                "module `{}` imports `{module_name}::{name}`, which is not defined \
                 (weft run provides WASI preview1; `-W unknown-imports-default=y` stubs other functions)",
                path.display()
            ),
        };
        let results: Vec<Val> = func_ty
            .results()
            .map(|t| Val::default_for_ty(&t).unwrap_or(Val::I32(0)))
            .collect();
        let what = format!("{module_name}::{name}");
        linker.func_new(&module_name, &name, func_ty, move |_, _, out| {
            if mode == UnknownImports::Trap {
                bail!("unknown import `{what}` was called");
            }
            for (slot, value) in out.iter_mut().zip(&results) {
                *slot = value.clone();
            }
            Ok(())
        })?;
    }
    Ok(())
}

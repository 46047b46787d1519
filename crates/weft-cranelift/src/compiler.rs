//! The [`Compiler`] and its outputs.

use crate::func_translator::translate_function;
use crate::link::{CompiledFunction, Relocation};
use crate::trampolines::{build_array_trampoline, build_wasm_to_host_trampoline};
use crate::types::{trap_from_code, wasm_signature};
use anyhow::{anyhow, bail, Context as _, Result};
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::{ExternalName, Function, UserFuncName};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::{Context, FinalizedMachExceptionHandler, FinalizedRelocTarget};
use cranelift_frontend::FunctionBuilderContext;
use std::sync::{Arc, Mutex};
use weft_environ::{CompiledModule, ExceptionHandler, ModuleTranslation, Trap, Tunables, WasmFuncType};

/// Compiles wasm functions and trampolines for the host machine.
///
/// [`Compiler::compile_module`] is the one way a module is compiled: each
/// defined function ([`Compiler::compile_function`]), on several threads
/// when asked (with the `parallel` feature), and the array trampoline
/// ([`Compiler::compile_array_trampoline`]) of each type the host can call,
/// then linked into one
/// [`CompiledModule`]. A `Compiler` is `Send + Sync`; cloning is cheap (the
/// target description is shared).
#[derive(Clone)]
pub struct Compiler {
    isa: OwnedTargetIsa,
    tunables: Tunables,
    /// Cranelift contexts kept between compilations (shared by clones), so
    /// that each function reuses the allocations of those before it (the
    /// register allocator's above all) instead of making its own.
    contexts: Arc<Mutex<Vec<Box<Contexts>>>>,
}

/// What compiling one function needs: Cranelift's context (with the function
/// it compiles) and the function builder's.
type Contexts = (Context, FunctionBuilderContext);

/// Contexts of [`Compiler::contexts`], given back when dropped unless
/// `keep` was cleared.
struct PooledContexts<'a> {
    contexts: Option<Box<Contexts>>,
    keep: bool,
    pool: &'a Mutex<Vec<Box<Contexts>>>,
}

impl PooledContexts<'_> {
    fn get(&mut self) -> &mut Contexts {
        self.contexts
            .get_or_insert_with(|| Box::new((Context::new(), FunctionBuilderContext::new())))
    }
}

impl Drop for PooledContexts<'_> {
    fn drop(&mut self) {
        if let Some(mut contexts) = self.contexts.take().filter(|_| self.keep) {
            contexts.0.clear();
            // `DataFlowGraph::clear` (Cranelift 0.135) leaves the exception
            // tables: kept, they would pile up from function to function
            // and every later function would walk them all.
            contexts.0.func.dfg.exception_tables.clear();
            self.pool.lock().unwrap_or_else(|e| e.into_inner()).push(contexts);
        }
    }
}

impl std::fmt::Debug for Compiler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiler")
            .field("architecture", &self.isa.name())
            .finish()
    }
}

/// A wasm-to-host trampoline: standalone, position-independent code.
#[derive(Debug, Clone, Default)]
pub struct CompiledTrampoline {
    /// The machine code.
    pub code: Vec<u8>,
    /// The offset of each trapping instruction in `code`, with its trap.
    pub traps: Vec<(u32, Trap)>,
}

impl Compiler {
    /// A compiler for the host machine (x86_64 or aarch64), optimizing for
    /// speed, with frame pointers preserved and Cranelift's verifier enabled
    /// in debug builds.
    pub fn new_native() -> Result<Compiler> {
        Self::new_native_with_isa_flags(&[])
    }

    /// [`Compiler::new_native`] with some of the host's ISA flags changed
    /// (for example `("has_fma", "false")`, to test the code generated for
    /// older machines).
    pub(crate) fn new_native_with_isa_flags(isa_flags: &[(&str, &str)]) -> Result<Compiler> {
        let mut flags = settings::builder();
        let set = |flags: &mut settings::Builder, name: &str, value: &str| {
            flags
                .set(name, value)
                .map_err(|e| anyhow!("cannot set Cranelift flag {name}={value}: {e}"))
        };
        set(&mut flags, "opt_level", "speed")?;
        set(&mut flags, "preserve_frame_pointers", "true")?;
        set(&mut flags, "enable_multi_ret_implicit_sret", "true")?;
        set(
            &mut flags,
            "enable_verifier",
            if cfg!(debug_assertions) { "true" } else { "false" },
        )?;
        set(&mut flags, "unwind_info", "false")?;
        set(&mut flags, "enable_probestack", "false")?;
        // Block offsets, to fit loops to cache lines.
        set(&mut flags, "machine_code_cfg_info", "true")?;
        let mut builder = cranelift_native::builder().map_err(|e| anyhow!("host machine not supported: {e}"))?;
        for (name, value) in isa_flags {
            builder
                .set(name, value)
                .map_err(|e| anyhow!("cannot set ISA flag {name}={value}: {e}"))?;
        }
        let isa = builder.finish(settings::Flags::new(flags))?;
        match isa.name() {
            "x64" | "aarch64" => {}
            other => bail!("unsupported architecture {other}: Weft supports x86_64 and aarch64"),
        }
        if isa.pointer_bytes() != 8 {
            bail!("unsupported pointer width: Weft needs 64-bit pointers");
        }
        Ok(Compiler {
            isa,
            tunables: Tunables::default(),
            contexts: Arc::default(),
        })
    }

    /// The same compiler, with relaxed SIMD instructions computing the
    /// deterministic results of the spec (`true`) or the fastest results of
    /// the machine (`false`, the default). Either way a given instruction
    /// gives the same result every time on one machine.
    pub fn with_relaxed_simd_deterministic(mut self, deterministic: bool) -> Compiler {
        self.tunables.relaxed_simd_deterministic = deterministic;
        self
    }

    /// The Cranelift name of the target architecture (`"x64"` or
    /// `"aarch64"`).
    pub fn architecture(&self) -> &'static str {
        self.isa.name()
    }

    /// The same compiler generating code for `tunables` (fuel, epochs).
    pub fn with_tunables(mut self, tunables: Tunables) -> Compiler {
        self.tunables = tunables;
        self
    }

    /// The tunables code is generated for.
    pub fn tunables(&self) -> Tunables {
        self.tunables
    }

    /// Compiles the defined function `defined_index` of `translation`.
    pub fn compile_function(
        &self,
        translation: &ModuleTranslation<'_>,
        defined_index: u32,
    ) -> Result<CompiledFunction> {
        let scan_first = crate::gc_stack_maps::module_may_trace(&translation.module);
        self.compile_function_in(translation, defined_index, scan_first)
    }

    /// [`Compiler::compile_function`], with the module's
    /// [`crate::gc_stack_maps::module_may_trace`] computed once by the
    /// caller.
    fn compile_function_in(
        &self,
        translation: &ModuleTranslation<'_>,
        defined_index: u32,
        scan_first: bool,
    ) -> Result<CompiledFunction> {
        let module = &translation.module;
        let func_index = module.num_imported_funcs + defined_index;
        let describe = || match module.func_names.get(func_index) {
            Some(name) => format!("failed to compile wasm function {func_index} ({name})"),
            None => format!("failed to compile wasm function {func_index}"),
        };
        let body = translation
            .function_bodies
            .get(defined_index as usize)
            .ok_or_else(|| anyhow!("no body for defined function {defined_index}"))?;
        let ty_index = *module
            .functions
            .get(func_index as usize)
            .ok_or_else(|| anyhow!("defined function {defined_index} out of range"))?;
        let sig = wasm_signature(&module.types[ty_index as usize]).with_context(describe)?;
        let mut pooled = self.pooled_contexts();
        let small = body.range().end - body.range().start <= POOLED_BODY_LIMIT;
        pooled.keep = small;
        let (ctx, fctx) = pooled.get();
        ctx.func.signature = sig;
        ctx.func.name = UserFuncName::user(0, defined_index);
        // A body whose validation the translation left to its compiler is
        // validated as it is translated, so that it is decoded once.
        let translated = translation.with_body_validator(defined_index as usize, |validator| {
            translate_function(
                &*self.isa,
                self.tunables,
                module,
                ty_index,
                body,
                scan_first,
                validator,
                &mut ctx.func,
                fctx,
            )
        });
        if let Err(e) = translated {
            // A translation that stopped half-way leaves the builder's
            // context in use.
            *fctx = FunctionBuilderContext::new();
            return Err(e.context(describe()));
        }
        if !small {
            // Cranelift compiles from `ctx.func` alone: the builder's
            // context of a large function (its SSA tables, per block and
            // variable) is freed now rather than after the compile, so
            // that the compile can reuse its memory.
            *fctx = FunctionBuilderContext::new();
        }
        let mut layout = CodeLayout::default();
        let mut compiled = self.compile_in(ctx, Some(&mut layout)).with_context(describe)?;
        // A wasm function starts at a chosen offset into a cache line, so
        // that where its loops fall relative to the lines depends on the
        // function alone, not on the sizes of the functions before it:
        // on a line, or as far into one as keeps its small loops on the
        // fewest lines (`crate::placement`). Measured over the sightglass
        // suite before loops were fitted (3 rounds each, geometric mean of
        // Weft/Wasmtime execution, without the two programs that run for
        // nanoseconds): 16-byte alignment 1.00x, 32 bytes (Wasmtime's
        // choice on x86_64) 1.04x, 64 bytes 0.97x. Trampolines keep the
        // minimum.
        if self.isa.name() == "x64" {
            let loops = crate::placement::loops_x64(&compiled.code, &layout.block_starts);
            compiled.start_in_line = crate::placement::start_in_line(compiled.alignment, &loops, &layout.call_returns);
        }
        compiled.alignment = compiled.alignment.max(WASM_FUNCTION_ALIGNMENT);
        Ok(compiled)
    }

    /// Compiles the host-to-wasm trampoline of function type `ty`:
    /// `extern fn(callee_vmctx, caller_vmctx, code, values: *mut ValRaw)`
    /// with the platform's C calling convention. It reads the parameters from
    /// `values[0..params]`, calls `code` and writes the results to
    /// `values[0..results]`.
    pub fn compile_array_trampoline(&self, ty: &WasmFuncType) -> Result<CompiledFunction> {
        let mut fctx = FunctionBuilderContext::new();
        let func = build_array_trampoline(ty, self.isa.frontend_config(), &mut fctx)
            .with_context(|| format!("failed to compile the trampoline of {ty}"))?;
        self.compile_clif(func)
            .with_context(|| format!("failed to compile the trampoline of {ty}"))
    }

    /// Compiles every defined function of `translation` and the
    /// host-to-wasm trampoline of every module type that a function the
    /// host may call has (`Module::host_callable_types`), spread over
    /// threads when `parallel` is set and the crate's `parallel` feature is
    /// on, and links them.
    pub fn compile_module(
        &self,
        translation: &ModuleTranslation<'_>,
        parallel: bool,
    ) -> Result<CompiledModule<'static>> {
        let module = &translation.module;
        let num_defined = module.num_defined_funcs() as usize;
        let bodies = &translation.function_bodies;
        let trampoline_types: Vec<usize> = module
            .host_callable_types()
            .iter()
            .enumerate()
            .filter_map(|(ty, callable)| callable.then_some(ty))
            .collect();
        let scan_first = crate::gc_stack_maps::module_may_trace(module);
        // One list of jobs, trampolines last (they are the smallest), so
        // that they fill the threads' idle time at the end.
        let mut compiled = map_indices(
            num_defined + trampoline_types.len(),
            parallel,
            |i| bodies.get(i).map_or(0, |b| b.range().end - b.range().start),
            |i| match i.checked_sub(num_defined) {
                Some(t) => self.compile_array_trampoline(&module.types[trampoline_types[t]]),
                None => self.compile_function_in(translation, i as u32, scan_first),
            },
        )?;
        let mut trampolines: Vec<Option<CompiledFunction>> =
            std::iter::repeat_with(|| None).take(module.types.len()).collect();
        for (ty, trampoline) in trampoline_types.iter().zip(compiled.drain(num_defined..)) {
            trampolines[*ty] = Some(trampoline);
        }
        let funcs = compiled;
        let calls_collecting_builtins = funcs.iter().any(|f| {
            f.relocs
                .iter()
                .any(|r| r.target >= crate::link::BUILTIN_TRAMPOLINE_BASE)
        });
        let builtin_trampolines = if calls_collecting_builtins {
            crate::gc_stack_maps::COLLECTING_BUILTINS
                .iter()
                .map(|b| {
                    let mut fctx = FunctionBuilderContext::new();
                    let func = crate::gc_stack_maps::build_builtin_trampoline(
                        *b,
                        self.isa.default_call_conv(),
                        self.isa.frontend_config(),
                        &mut fctx,
                    )?;
                    self.compile_clif(func)
                        .with_context(|| format!("failed to compile the trampoline of builtin {b:?}"))
                })
                .collect::<Result<Vec<_>>>()?
        } else {
            Vec::new()
        };
        crate::link::link_with_builtins(funcs, trampolines, builtin_trampolines)
    }

    /// Compiles the wasm-to-host trampoline of function type `ty`: a function
    /// with the wasm calling convention (`callee_vmctx` is the host
    /// function's context) that stores its parameters in a buffer of
    /// `ValRaw`, records the exit frame pointer and return address in the
    /// caller's `VMStoreContext`, calls the shim at
    /// `callee_vmctx + vmhostctx::SHIM` as
    /// `extern fn(callee_vmctx, caller_vmctx, values, len) -> u8` with
    /// `len = max(params, results)`, traps with [`Trap::HostError`] when it
    /// returns 0, and returns the results read back from the buffer.
    pub fn compile_wasm_to_host_trampoline(&self, ty: &WasmFuncType) -> Result<CompiledTrampoline> {
        let describe = || format!("failed to compile the wasm-to-host trampoline of {ty}");
        let mut fctx = FunctionBuilderContext::new();
        let func = build_wasm_to_host_trampoline(ty, self.isa.frontend_config(), &mut fctx).with_context(describe)?;
        let compiled = self.compile_clif(func).with_context(describe)?;
        if !compiled.relocs.is_empty() {
            bail!("{}: unexpected relocations", describe());
        }
        Ok(CompiledTrampoline {
            code: compiled.code,
            traps: compiled.traps,
        })
    }

    /// Compiles the wasm-to-host trampolines of `types` (spread over threads
    /// as [`Compiler::compile_module`] does) into one buffer of code, each
    /// 16-byte aligned, and returns it with the offset of each trampoline.
    pub fn compile_wasm_to_host_trampolines(
        &self,
        types: &[&WasmFuncType],
        parallel: bool,
    ) -> Result<(CompiledTrampoline, Vec<u32>)> {
        let compiled = map_indices(
            types.len(),
            parallel,
            |i| (types[i].params.len() + types[i].results.len()) as u64,
            |i| self.compile_wasm_to_host_trampoline(types[i]),
        )?;
        let mut all = CompiledTrampoline::default();
        let mut offsets = Vec::with_capacity(compiled.len());
        for c in compiled {
            all.code.resize(all.code.len().next_multiple_of(16), 0);
            let base = u32::try_from(all.code.len()).map_err(|_| anyhow!("code larger than 4 GiB"))?;
            offsets.push(base);
            all.traps
                .extend(c.traps.iter().map(|(offset, trap)| (base + offset, *trap)));
            all.code.extend_from_slice(&c.code);
        }
        Ok((all, offsets))
    }

    /// Runs Cranelift on a function and collects its code, relocations and
    /// traps.
    fn compile_clif(&self, func: Function) -> Result<CompiledFunction> {
        let mut pooled = self.pooled_contexts();
        let ctx = &mut pooled.get().0;
        ctx.func = func;
        self.compile_in(ctx, None)
    }

    /// Contexts from the pool, or new ones.
    fn pooled_contexts(&self) -> PooledContexts<'_> {
        PooledContexts {
            contexts: self.contexts.lock().unwrap_or_else(|e| e.into_inner()).pop(),
            keep: true,
            pool: &self.contexts,
        }
    }

    /// [`Compiler::compile_clif`] of the function in `ctx`, also filling
    /// in `layout` when one is given.
    fn compile_in(&self, ctx: &mut Context, layout: Option<&mut CodeLayout>) -> Result<CompiledFunction> {
        let mut ctrl = ControlPlane::default();
        if let Err(e) = ctx.compile(&*self.isa, &mut ctrl) {
            let message = cranelift_codegen::print_errors::pretty_error(e.func, e.inner);
            bail!("Cranelift error: {message}");
        }
        let compiled = ctx
            .compiled_code()
            .ok_or_else(|| anyhow!("Cranelift produced no code"))?;
        let buffer = &compiled.buffer;
        let mut relocs = Vec::new();
        for r in buffer.relocs() {
            let target = match &r.target {
                FinalizedRelocTarget::ExternalName(ExternalName::User(name)) => {
                    let name = &ctx.func.params.user_named_funcs()[*name];
                    match name.namespace {
                        0 => name.index,
                        1 => crate::link::BUILTIN_TRAMPOLINE_BASE + name.index,
                        other => bail!("relocation against unknown namespace {other}"),
                    }
                }
                other => bail!("unsupported relocation target {other:?} ({:?})", r.kind),
            };
            relocs.push(Relocation {
                offset: r.offset,
                target,
                kind: r.kind,
                addend: r.addend,
            });
        }
        let mut traps = Vec::new();
        for t in buffer.traps() {
            let trap = trap_from_code(t.code).ok_or_else(|| anyhow!("unknown trap code {}", t.code))?;
            traps.push((t.offset, trap));
        }
        let address_map = buffer
            .get_srclocs_sorted()
            .iter()
            .filter(|l| !l.loc.is_default() && l.start < l.end)
            .map(|l| (l.start, l.loc.bits()))
            .collect();
        let stack_maps = buffer
            .user_stack_maps()
            .iter()
            .map(|(offset, _, map)| (*offset, map.entries().map(|(_, slot)| slot).collect()))
            .collect();
        let mut exception_handlers = Vec::new();
        for site in buffer.call_sites() {
            let Some(handler) = site.exception_handlers.iter().find_map(|h| match h {
                FinalizedMachExceptionHandler::Default(offset) => Some(*offset),
                _ => None,
            }) else {
                continue;
            };
            let frame_offset = site
                .frame_offset
                .ok_or_else(|| anyhow!("Cranelift gave no frame offset for a call with an exception handler"))?;
            exception_handlers.push(ExceptionHandler {
                ret: site.ret_addr,
                handler,
                frame_offset,
            });
        }
        if let Some(layout) = layout {
            layout.block_starts.clone_from(&compiled.bb_starts);
            layout.block_starts.sort_unstable();
            layout.block_starts.dedup();
            layout.call_returns = buffer.call_sites().map(|site| site.ret_addr).collect();
        }
        let function = CompiledFunction {
            code: buffer.data().to_vec(),
            alignment: buffer.alignment,
            start_in_line: 0,
            relocs,
            traps,
            address_map,
            stack_maps,
            exception_handlers,
        };
        Ok(function)
    }
}

/// Where a compiled function's basic blocks start (in order, from
/// Cranelift's `machine_code_cfg_info`) and where its calls return: what
/// `crate::placement` chooses the function's start from.
#[derive(Default)]
struct CodeLayout {
    block_starts: Vec<u32>,
    call_returns: Vec<u32>,
}

/// The largest function body (in bytes of wasm) whose Cranelift contexts go
/// back to the pool: contexts that compiled a larger one are freed.
///
/// A context keeps the capacity of every buffer it grew, so one that
/// compiled a large function would hold that function's memory through
/// the rest of the module (beside the next large function, on another
/// thread) and for the engine's life, to save little: the allocations of
/// a large function are a small part of its compile time. Measured with
/// `weft-bench-harness weft compile` (2 threads, median of 5-8 processes),
/// the peak resident memory of compiling went from 14.3 to 13.1 MiB on
/// sightglass bz2 (functions of 19 and 17 KiB), 18.7 to 17.5 MiB on
/// ed25519, 12.8 to 12.3 MiB on shootout-switch and 5.65 to 5.21 MiB on
/// keccak, with compile times unchanged. Limits of 1 and 16 KiB, or
/// freeing every function's contexts, measured about the same; 4 KiB
/// keeps reuse for the many small functions.
///
/// The builder context of a larger function is freed as soon as the body
/// is translated, before Cranelift compiles it: on shootout-switch (a
/// 53 KiB function), the peak went from 12.4 to 11.7 MiB.
const POOLED_BODY_LIMIT: u64 = 4096;

/// The alignment of a compiled wasm function (see
/// [`Compiler::compile_function`]).
const WASM_FUNCTION_ALIGNMENT: u32 = 64;

/// `f` of each index below `count`, the results in index order: on this
/// thread and `rayon::current_num_threads() - 1` of rayon's threads when
/// `parallel` is set, the `parallel` feature is on and rayon has more than
/// one thread; else on this thread alone. The first error (by index) among
/// the indices done is returned; after an error no new index is started.
///
/// The calling thread works rather than waits (`in_place_scope`, not
/// `scope`), so that only the helpers have to be woken. With `scope`, the
/// caller slept and every pool thread had to be woken, and the kernel
/// sometimes put two woken threads on one CPU and left the other idle
/// for 5 to 8 ms (seen with `perf sched timehist` on this 2-CPU VM) until
/// it moved one. That hit the compiles that follow a pause, such as a
/// benchmark's run: shootout-matrix's compile after a run took 23.8 ms
/// against 18.9 ms with the caller working (medians of 20 processes),
/// shootout-switch's 38.8 against 31.7 ms (15 processes).
///
/// `cost` estimates each index's work (a function body's size). The
/// threads take the indices most costly first, one at a time, from one
/// shared queue, so that a large function starts at once instead of after
/// the small ones that precede it: the module is ready when its largest
/// function is, if the others fit beside it. (A parallel iterator over
/// the sorted indices does not keep that order: a thread that steals work
/// takes the far half of the range, the smallest functions, and the
/// large ones wait. shootout-seqhash, whose three largest functions are
/// two thirds of its compile time, was compiled 1.06x slower than by
/// Wasmtime on two cores, while on one it was 0.85x.)
fn map_indices<R: Send>(
    count: usize,
    parallel: bool,
    cost: impl Fn(usize) -> u64,
    f: impl Fn(usize) -> Result<R> + Sync + Send,
) -> Result<Vec<R>> {
    #[cfg(feature = "parallel")]
    if parallel && count > 1 && rayon::current_num_threads() > 1 {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        use std::sync::Mutex;
        let mut order: Vec<usize> = (0..count).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(cost(i)));
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let slots: Vec<Mutex<Option<Result<R>>>> = std::iter::repeat_with(|| Mutex::new(None)).take(count).collect();
        let work = || {
            while !failed.load(Ordering::Relaxed) {
                let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) else {
                    break;
                };
                let r = f(i);
                if r.is_err() {
                    failed.store(true, Ordering::Relaxed);
                }
                // A slot is written by the one thread that took its index;
                // a poisoned lock could only come from a panic in `f`,
                // which rayon passes on to this function's caller anyway.
                if let Ok(mut slot) = slots[i].lock() {
                    *slot = Some(r);
                }
            }
        };
        rayon::in_place_scope(|s| {
            for _ in 1..rayon::current_num_threads().min(count) {
                s.spawn(|_| work());
            }
            work();
        });
        let mut done = Vec::with_capacity(count);
        for slot in slots {
            match slot.into_inner().ok().flatten() {
                Some(r) => done.push(r?),
                // Not started because of an error at a later index, which
                // the loop reaches further on.
                None => continue,
            }
        }
        // Every index was done unless one failed, and then the loop
        // returned the first failure.
        if done.len() != count {
            bail!("parallel compilation lost {} of {count} results", count - done.len());
        }
        return Ok(done);
    }
    #[cfg(not(feature = "parallel"))]
    let _ = (parallel, &cost);
    (0..count).map(f).collect()
}

#[cfg(test)]
mod debug_tests {
    use super::*;

    /// Without FMA, deterministic relaxed multiply-adds call the runtime's
    /// fused multiply-add per lane; the fast mode multiplies then adds.
    #[test]
    fn relaxed_madd_without_native_fma() {
        let wat = r#"(module
            (func (param v128 v128 v128) (result v128 v128)
                (f32x4.relaxed_madd (local.get 0) (local.get 1) (local.get 2))
                (f64x2.relaxed_nmadd (local.get 0) (local.get 1) (local.get 2))))"#;
        let wasm = wat::parse_str(wat).unwrap();
        let translation = weft_environ::translate_module(&wasm, weft_environ::supported_features()).unwrap();
        let Ok(compiler) = Compiler::new_native_with_isa_flags(&[("has_fma", "false")]) else {
            return; // not an x86 host
        };
        assert!(!compiler.isa.has_native_fma());
        for deterministic in [false, true] {
            let compiler = compiler.clone().with_relaxed_simd_deterministic(deterministic);
            compiler.compile_module(&translation, false).unwrap();
        }
    }

    /// The pooled contexts come back empty, exception tables included,
    /// however many `try_call`s the functions before had.
    #[test]
    fn pooled_contexts_come_back_empty() {
        let wat = r#"(module
            (tag $e)
            (func $f)
            (func (export "a")
                (block $h (try_table (catch_all $h) (call $f) (call $f) (call $f))))
            (func (export "b")
                (block $h (try_table (catch $e $h) (call $f)))))"#;
        let wasm = wat::parse_str(wat).unwrap();
        let translation = weft_environ::translate_module(&wasm, weft_environ::supported_features()).unwrap();
        let tunables = Tunables {
            exceptions: true,
            ..Tunables::default()
        };
        let compiler = Compiler::new_native().unwrap().with_tunables(tunables);
        let compiled = compiler.compile_module(&translation, false).unwrap();
        assert_eq!(
            compiled.exception_handlers.len(),
            4,
            "one landing pad per call in a try_table"
        );
        // The functions alone (a trampoline replaces the whole `Function`).
        let handlers: usize = (0..3)
            .map(|i| {
                compiler
                    .compile_function(&translation, i)
                    .unwrap()
                    .exception_handlers
                    .len()
            })
            .sum();
        assert_eq!(handlers, 4);
        let pool = compiler.contexts.lock().unwrap();
        assert!(!pool.is_empty());
        for (ctx, _) in pool.iter().map(|c| &**c) {
            assert_eq!(ctx.func.dfg.exception_tables.len(), 0);
            assert_eq!(ctx.func.dfg.num_insts(), 0);
        }
    }

    /// Contexts that compiled a function larger than `POOLED_BODY_LIMIT`
    /// are freed, not pooled; those of a smaller one are pooled.
    #[test]
    fn contexts_of_a_large_function_are_not_pooled() {
        let adds = "(i32.add (local.get 0) (i32.const 1)) drop ".repeat(1000);
        let wat = format!("(module (func (param i32)) (func (param i32) {adds}))");
        let wasm = wat::parse_str(&wat).unwrap();
        let translation = weft_environ::translate_module(&wasm, weft_environ::supported_features()).unwrap();
        let size = |i: usize| {
            let range = translation.function_bodies[i].range();
            range.end - range.start
        };
        assert!(size(0) <= POOLED_BODY_LIMIT && size(1) > POOLED_BODY_LIMIT);
        let compiler = Compiler::new_native().unwrap();
        let pooled = || compiler.contexts.lock().unwrap().len();
        compiler.compile_function(&translation, 0).unwrap();
        assert_eq!(pooled(), 1, "the small function's contexts are pooled");
        compiler.compile_function(&translation, 1).unwrap();
        assert_eq!(pooled(), 0, "the large function took them and freed them");
        compiler.compile_function(&translation, 0).unwrap();
        assert_eq!(pooled(), 1);
    }

    /// The CLIF of defined function `index` of `translation`, as translated.
    fn translated(compiler: &Compiler, translation: &ModuleTranslation<'_>, index: u32) -> Function {
        let scan_first = crate::gc_stack_maps::module_may_trace(&translation.module);
        translate_with(compiler, translation, index, scan_first, None).unwrap()
    }

    /// [`translated`], with the given `scan_first` and `validator` (see
    /// `translate_function`).
    fn translate_with(
        compiler: &Compiler,
        translation: &ModuleTranslation<'_>,
        index: u32,
        scan_first: bool,
        validator: Option<&mut wasmparser::FuncValidator<wasmparser::ValidatorResources>>,
    ) -> Result<Function> {
        let module = &translation.module;
        let ty_index = module.functions[(module.num_imported_funcs + index) as usize];
        let sig = wasm_signature(&module.types[ty_index as usize])?;
        let mut func = Function::with_name_signature(UserFuncName::user(0, index), sig);
        let mut fctx = FunctionBuilderContext::new();
        translate_function(
            &*compiler.isa,
            compiler.tunables,
            module,
            ty_index,
            &translation.function_bodies[index as usize],
            scan_first,
            validator,
            &mut func,
            &mut fctx,
        )?;
        Ok(func)
    }

    /// Bodies whose validation a translation deferred are validated as they
    /// are translated: an invalid one fails at its first bad local or
    /// operator, before the translator (which assumes valid input) sees
    /// it, with the message `validate_body` gives; a valid one translates
    /// as it does unchecked.
    #[test]
    fn deferred_bodies_are_validated_as_they_are_translated() {
        let valid = r#"(memory 1)
            (func (param i32) (result i32)
                (block (result i32) (i32.load offset=8 (local.get 0)) (br_if 0 (local.get 0))))"#;
        let invalid = r#"(func (result i32) i32.add)
            (func (local i32) (drop (local.get 1)))
            (func (local f64) (i32.eqz (local.get 0)) drop)
            (func (block (result i32) (br 0)))"#;
        let wasm = wat::parse_str(format!("(module {valid} {invalid})")).unwrap();
        let features = weft_environ::supported_features();
        let deferred = weft_environ::translate_module_deferring_bodies(&wasm, features).unwrap();
        assert_eq!(deferred.body_validators.len(), 5);
        let compiler = Compiler::new_native().unwrap();
        compiler.compile_function(&deferred, 0).unwrap();
        for index in 1..5 {
            let expected = deferred.validate_body(index as usize).unwrap_err().to_string();
            let err = compiler.compile_function(&deferred, index).unwrap_err();
            assert!(
                err.chain().any(|e| e.to_string() == expected),
                "function {index}: {err:#} should be {expected}"
            );
        }
        // The valid body, translated while it is validated and without.
        let func = deferred
            .with_body_validator(0, |validator| {
                assert!(validator.is_some());
                translate_with(&compiler, &deferred, 0, false, validator)
            })
            .unwrap();
        // `translated` passes no validator.
        assert_eq!(
            func.display().to_string(),
            translated(&compiler, &deferred, 0).display().to_string()
        );
    }

    /// In a module that declares no traced type, a function is translated
    /// without stack maps, and again with them at the first operator that
    /// makes a traced reference (here a block typed `externref`, after a
    /// call): the result is what scanning the body first gives. With a
    /// deferred validator, the rest of the body is still validated before
    /// the second pass, so an invalid operator after that one fails.
    #[test]
    fn stack_maps_found_during_translation_translate_again() {
        let funcs = r#"(func $f (param i32) (result i32) (local.get 0))
            (func (param i32) (result i32)
                (drop (call $f (local.get 0)))
                (ref.is_null (block (result externref)
                    (ref.null extern) (drop (call $f (i32.const 1))))))"#;
        let wasm = wat::parse_str(format!("(module {funcs})")).unwrap();
        let features = weft_environ::supported_features();
        let translation = weft_environ::translate_module(&wasm, features).unwrap();
        assert!(!crate::gc_stack_maps::module_may_trace(&translation.module));
        let compiler = Compiler::new_native().unwrap();
        let clif = |index: u32, scan_first: bool| {
            let func = translate_with(&compiler, &translation, index, scan_first, None).unwrap();
            func.display().to_string()
        };
        for index in 0..2 {
            assert_eq!(clif(index, false), clif(index, true), "function {index}");
        }
        // The second function's block value is in a stack map at the call
        // inside the block.
        assert!(clif(1, false).contains("stack_map"), "{}", clif(1, false));
        assert!(!clif(0, false).contains("stack_map"));

        // An invalid operator after the block, in a deferred body.
        let wasm = wat::parse_str(format!(
            "(module {funcs} (func (block (result externref) (ref.null extern)) drop i32.add drop))"
        ))
        .unwrap();
        let deferred = weft_environ::translate_module_deferring_bodies(&wasm, features).unwrap();
        compiler.compile_function(&deferred, 1).unwrap();
        let expected = deferred.validate_body(2).unwrap_err().to_string();
        let err = compiler.compile_function(&deferred, 2).unwrap_err();
        assert!(
            err.chain().any(|e| e.to_string() == expected),
            "{err:#} should be {expected}"
        );
    }

    /// The translator loads a memory's base once per function and computes
    /// `base + index` once per index and block: three accesses through one
    /// pointer and one through another, in two blocks, make one base load,
    /// and one address per pointer and block.
    #[test]
    fn memory_base_and_addresses_are_reused() {
        let wat = r#"(module
            (memory 1)
            (func (param i32 i32) (result i32)
                (i32.store offset=8 (local.get 0) (i32.const 1))
                (i32.store offset=12 (local.get 0) (i32.load offset=4 (local.get 0)))
                (i32.store (local.get 1) (i32.const 2))
                (if (local.get 1) (then (i32.store (local.get 0) (i32.const 3))))
                (i32.load (local.get 1))))"#;
        let wasm = wat::parse_str(wat).unwrap();
        let translation = weft_environ::translate_module(&wasm, weft_environ::supported_features()).unwrap();
        let compiler = Compiler::new_native().unwrap();
        let func = translated(&compiler, &translation, 0);
        use cranelift_codegen::ir::Opcode;
        let count = |opcode: Opcode| {
            func.layout
                .blocks()
                .flat_map(|b| func.layout.block_insts(b))
                .filter(|i| func.dfg.insts[*i].opcode() == opcode)
                .count()
        };
        // Six accesses; one load of the base, and the accesses' own loads.
        assert_eq!(count(Opcode::Load), 1 + 2, "{}", func.display());
        assert_eq!(count(Opcode::Store), 4);
        // Local 0 and local 1 in the entry block, local 0 in the `then`
        // block, local 1 after the `if`.
        assert_eq!(count(Opcode::Uextend), 4, "{}", func.display());
        assert_eq!(count(Opcode::Iadd), 4, "{}", func.display());
    }

    /// Prints the CLIF (as translated, then as optimized) and the machine
    /// code of every function and trampoline of a module given as text in
    /// `WEFT_WAT`, or as a file in `WEFT_WASM`:
    /// `WEFT_WAT='(module ...)' cargo test -p weft-cranelift --lib print_clif -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn print_clif() {
        let wasm = match std::env::var("WEFT_WASM") {
            Ok(path) => wat::parse_file(path).unwrap(),
            Err(_) => wat::parse_str(std::env::var("WEFT_WAT").unwrap()).unwrap(),
        };
        let translation = weft_environ::translate_module(&wasm, weft_environ::supported_features()).unwrap();
        let compiler = Compiler::new_native().unwrap();
        let module = &translation.module;
        for i in 0..module.num_defined_funcs() {
            let func = translated(&compiler, &translation, i);
            println!("{}", func.display());
            let mut ctx = Context::for_function(func);
            ctx.set_disasm(true);
            let code = ctx.compile(&*compiler.isa, &mut ControlPlane::default()).unwrap();
            let vcode = code.vcode.clone().unwrap();
            println!("optimized:\n{}", ctx.func.display());
            println!("{vcode}");
        }
        for ty in &module.types {
            let mut fctx = FunctionBuilderContext::new();
            for func in [
                build_array_trampoline(ty, compiler.isa.frontend_config(), &mut fctx).unwrap(),
                build_wasm_to_host_trampoline(ty, compiler.isa.frontend_config(), &mut fctx).unwrap(),
            ] {
                println!("{}", func.display());
                let mut ctx = Context::for_function(func);
                ctx.set_disasm(true);
                let code = ctx.compile(&*compiler.isa, &mut ControlPlane::default()).unwrap();
                println!("{}", code.vcode.as_ref().unwrap());
            }
        }
    }

    /// The target of the call patched at `at`, decoded from the linked code.
    fn call_target(code: &[u8], at: u32, arch: &str) -> i64 {
        let word = |i: usize| i64::from(i32::from_le_bytes([code[i], code[i + 1], code[i + 2], code[i + 3]]));
        match arch {
            "x64" => i64::from(at) + 4 + word(at as usize),
            "aarch64" => {
                let insn = word(at as usize) as u32;
                let imm26 = ((insn & 0x03ff_ffff) << 6) as i32 >> 6;
                i64::from(at) + i64::from(imm26) * 4
            }
            other => panic!("unknown architecture {other}"),
        }
    }

    #[test]
    fn direct_calls_are_resolved() {
        let wasm = wat::parse_str(
            r#"(module
                (import "env" "f" (func $imp))
                (func $a (call $b) (call $c) (call $imp))
                (func $b (call $c))
                (func $c (call $a)))"#,
        )
        .unwrap();
        let translation = weft_environ::translate_module(&wasm, weft_environ::supported_features()).unwrap();
        let compiler = Compiler::new_native().unwrap();
        let funcs: Vec<_> = (0..3)
            .map(|i| compiler.compile_function(&translation, i).unwrap())
            .collect();
        let expected: Vec<Vec<(u32, u32)>> = funcs
            .iter()
            .map(|f| f.relocs.iter().map(|r| (r.offset, r.target)).collect())
            .collect();
        assert_eq!(expected.iter().map(Vec::len).collect::<Vec<_>>(), [2, 1, 1]);
        let linked = crate::link::link(funcs, vec![]).unwrap();
        for (caller, relocs) in expected.iter().enumerate() {
            for (offset, target) in relocs {
                let at = linked.funcs[caller].offset + offset;
                let dest = call_target(&linked.code, at, compiler.architecture());
                assert_eq!(dest, i64::from(linked.funcs[*target as usize].offset));
            }
        }
    }

    /// Each function starts on a cache line, and compiling in parallel
    /// (largest function first) gives the same code, the functions in index
    /// order.
    #[test]
    fn functions_are_aligned_and_in_order() {
        let wasm = wat::parse_str(
            r#"(module
                (func $small (result i32) (i32.const 1))
                (func $large (param i32) (result i32)
                    (local.get 0) (i32.const 3) (i32.mul) (i32.const 7) (i32.add)
                    (i32.const 5) (i32.rem_u) (local.get 0) (i32.xor) (i32.const 9) (i32.shl))
                (func $medium (param i32) (result i32) (i32.add (local.get 0) (i32.const 2))))"#,
        )
        .unwrap();
        let translation = weft_environ::translate_module(&wasm, weft_environ::supported_features()).unwrap();
        let compiler = Compiler::new_native().unwrap();
        let serial = compiler.compile_module(&translation, false).unwrap();
        let parallel = compiler.compile_module(&translation, true).unwrap();
        assert_eq!(serial.code, parallel.code);
        assert_eq!(serial.funcs.len(), 3);
        for f in &parallel.funcs {
            assert_eq!(
                f.offset % WASM_FUNCTION_ALIGNMENT,
                0,
                "function at {} not {WASM_FUNCTION_ALIGNMENT}-byte aligned",
                f.offset
            );
        }
        let order = map_indices(5, true, |i| [1, 9, 4, 9, 0][i], |i| Ok(i * 10)).unwrap();
        assert_eq!(order, [0, 10, 20, 30, 40]);
    }

    /// A failure is returned, whichever thread met it, and the results
    /// stay in index order however many threads took part.
    #[test]
    fn map_indices_returns_a_failure_and_keeps_the_order() {
        for parallel in [false, true] {
            let cost = |i: usize| (i as u64 * 7) % 5;
            let all = map_indices(40, parallel, cost, Ok).unwrap();
            assert_eq!(all, (0..40).collect::<Vec<_>>());
            let err = map_indices(40, parallel, cost, |i| match i {
                13 => Err(anyhow!("function 13 failed")),
                _ => Ok(i),
            })
            .unwrap_err();
            assert_eq!(err.to_string(), "function 13 failed");
        }
    }
}

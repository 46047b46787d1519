//! The engine: configuration, compiler and the canonical type registry.

use crate::Config;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use weft_environ::{CompiledModule, ModuleTranslation, WasmFuncType};
use weft_runtime::{CodeMemory, CodePtr};
use weft_types::{TypeRegistry, VMSharedTypeIndex};

/// The kinds of precompiled artifacts (see [`Engine::detect_precompiled`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Precompiled {
    /// Made by [`Engine::precompile_module`] or [`crate::Module::serialize`].
    Module,
    /// Made by `Engine::precompile_component` or `Component::serialize`
    /// (the `component-model` feature).
    Component,
}

/// A compilation environment shared by modules and stores. Cheap to clone;
/// `Send + Sync`.
#[derive(Clone)]
pub struct Engine {
    pub(crate) inner: Arc<EngineInner>,
}

pub(crate) struct EngineInner {
    pub(crate) config: Config,
    #[cfg(feature = "cranelift")]
    pub(crate) compiler: Result<weft_cranelift::Compiler, String>,
    pub(crate) types: TypeRegistry,
    /// The component types of every component compiled for this engine.
    #[cfg(feature = "component-model")]
    pub(crate) component_types: weft_types::component::ComponentTypeRegistry,
    /// Wasm-to-host trampolines by canonical type (the registration is held
    /// for as long as the trampoline lives).
    host_trampolines: Mutex<HashMap<VMSharedTypeIndex, (Arc<CodeMemory>, CodePtr)>>,
    pub(crate) epoch: Arc<AtomicU64>,
    #[cfg(feature = "async")]
    pub(crate) fiber_pool: std::sync::Arc<weft_fiber::FiberPool>,
    /// The pooling allocator's pool (`Config::allocation_strategy`).
    pub(crate) instance_pool: Option<Arc<weft_runtime::InstancePool>>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").finish_non_exhaustive()
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new_infallible(&Config::default())
    }
}

impl Engine {
    /// An engine with the given configuration.
    pub fn new(config: &Config) -> crate::Result<Engine> {
        config.validate()?;
        if cfg!(feature = "async") && config.async_stack_size <= config.max_wasm_stack {
            crate::bail!(
                "async stack size ({}) must be larger than the max wasm stack ({})",
                config.async_stack_size,
                config.max_wasm_stack
            );
        }
        let engine = Engine::new_infallible(config);
        #[cfg(feature = "cranelift")]
        if let Err(e) = &engine.inner.compiler {
            crate::bail!("failed to create the Cranelift compiler: {e}");
        }
        Ok(engine)
    }

    fn new_infallible(config: &Config) -> Engine {
        weft_runtime::init_signal_handlers();
        Engine {
            inner: Arc::new(EngineInner {
                config: config.clone(),
                #[cfg(feature = "cranelift")]
                compiler: weft_cranelift::Compiler::new_native()
                    .map(|c| c.with_tunables(config.compile_tunables()))
                    .map_err(|e| format!("{e:#}")),
                types: TypeRegistry::new(),
                #[cfg(feature = "component-model")]
                component_types: Default::default(),
                host_trampolines: Mutex::new(HashMap::new()),
                epoch: Arc::new(AtomicU64::new(0)),
                instance_pool: config.instance_pool(),
                #[cfg(feature = "async")]
                fiber_pool: std::sync::Arc::new(
                    weft_fiber::FiberPool::with_creator(
                        config.async_stack_size,
                        config.stack_creator.as_ref().map(|c| c.0.clone()),
                    )
                    .with_max_stacks(config.max_async_stacks()),
                ),
            }),
        }
    }

    /// What kind of precompiled artifact `bytes` are, or `None` when they
    /// are not Weft's precompiled output (a `.wasm` or `.wat` module, say).
    pub fn detect_precompiled(&self, bytes: &[u8]) -> Option<Precompiled> {
        match crate::serialize::detect(bytes)? {
            crate::serialize::Kind::Module => Some(Precompiled::Module),
            crate::serialize::Kind::Component => Some(Precompiled::Component),
        }
    }

    /// Compiles `bytes` (binary, or text with the `wat` feature) into the
    /// precompiled form that [`crate::Module::deserialize`] reads, without
    /// making a module.
    pub fn precompile_module(&self, bytes: &[u8]) -> crate::Result<Vec<u8>> {
        #[cfg(feature = "wat")]
        let bytes = &wat::parse_bytes(bytes)?[..];
        let (translation, compiled) = self.translate_and_compile(bytes)?;
        crate::serialize::write(
            &self.inner.config,
            &translation.module,
            &translation.func_starts(),
            &compiled,
        )
    }

    /// Translates and compiles the module `bytes`, its function bodies
    /// validated on the threads that compile them rather than all on this
    /// one first ([`weft_environ::translate_module_deferring_bodies`]).
    pub(crate) fn translate_and_compile<'a>(
        &self,
        bytes: &'a [u8],
    ) -> crate::Result<(ModuleTranslation<'a>, CompiledModule<'static>)> {
        let features = self.inner.config.features;
        let translation = weft_environ::translate_module_deferring_bodies(bytes, features)?;
        match self.compile_module(&translation) {
            Ok(compiled) => Ok((translation, compiled)),
            Err(e) if translation.body_validators.is_empty() => Err(e),
            // A body failed its validation (or the compile failed for
            // another reason): translated again with every body validated
            // first, the module fails as it would have without the
            // deferral, with the same error, or, when one of its bodies
            // needs the validator's GC fallback, compiles.
            Err(_) => {
                let translation = weft_environ::translate_module(bytes, features)?;
                let compiled = self.compile_module(&translation)?;
                Ok((translation, compiled))
            }
        }
    }

    /// Compiles every function of `translation`, and the host trampolines
    /// of its import types that the engine lacks (which the engine keeps):
    /// the one way Weft compiles a module.
    #[cfg(feature = "cranelift")]
    pub(crate) fn compile_module(&self, translation: &ModuleTranslation<'_>) -> crate::Result<CompiledModule<'static>> {
        let parallel = self.inner.config.parallel_compilation;
        let compiled = self.compiler()?.compile_module(translation, parallel)?;
        // The trampolines through which this module's imports will call host
        // functions: made now, with the code, rather than one by one when the
        // first instance's host functions are created.
        let env = &translation.module;
        let import_types: Vec<&WasmFuncType> = env.functions[..env.num_imported_funcs as usize]
            .iter()
            .map(|t| &env.types[*t as usize])
            .collect();
        // A failure here only means the trampolines are compiled on demand,
        // where the error is reported as before.
        let _ = self.prepare_host_trampolines(&import_types, parallel);
        Ok(compiled)
    }

    /// Without a compiler, modules can only be deserialized.
    #[cfg(not(feature = "cranelift"))]
    pub(crate) fn compile_module(&self, _: &ModuleTranslation<'_>) -> crate::Result<CompiledModule<'static>> {
        no_compiler()
    }

    /// Whether the engine's stores may use the component model's concurrent
    /// API ([`Config::concurrency_support`]).
    pub fn get_concurrency_support(&self) -> bool {
        self.inner.config.concurrency_support
    }

    /// The engine's configuration.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// Whether two handles refer to the same engine.
    pub fn same(a: &Engine, b: &Engine) -> bool {
        Arc::ptr_eq(&a.inner, &b.inner)
    }

    /// Increments the epoch counter: wasm running in stores of this engine
    /// with `Config::epoch_interruption` notices at its next check.
    pub fn increment_epoch(&self) {
        self.inner.epoch.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn current_epoch(&self) -> u64 {
        self.inner.epoch.load(Ordering::Relaxed)
    }

    /// The wasm-to-host trampoline for host functions of type `ty`, with the
    /// type's canonical id (registered once for the engine's lifetime).
    pub(crate) fn host_trampoline(&self, ty: &WasmFuncType) -> crate::Result<(VMSharedTypeIndex, CodePtr)> {
        let index = self.inner.types.register(ty);
        let mut map = self.inner.host_trampolines.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, ptr)) = map.get(&index) {
            self.inner.types.release(index);
            return Ok((index, *ptr));
        }
        let code = Arc::new(self.compile_host_trampoline(ty)?);
        let ptr = code.ptr_at(0);
        map.insert(index, (code, ptr));
        Ok((index, ptr))
    }

    /// The wasm-to-host trampoline of `ty`, compiled and mapped.
    #[cfg(feature = "cranelift")]
    fn compile_host_trampoline(&self, ty: &WasmFuncType) -> crate::Result<CodeMemory> {
        let compiled = self.compiler()?.compile_wasm_to_host_trampoline(ty)?;
        CodeMemory::new(&compiled.code, compiled.traps)
    }

    #[cfg(not(feature = "cranelift"))]
    fn compile_host_trampoline(&self, _: &WasmFuncType) -> crate::Result<CodeMemory> {
        no_compiler()
    }

    /// Compiles the wasm-to-host trampolines of `types` that the engine does
    /// not have yet, as one batch (in parallel when `parallel`) placed in one
    /// code mapping, so that instantiating a module whose imports have these
    /// types finds them ready in [`Engine::host_trampoline`] instead of
    /// compiling and mapping them one at a time.
    #[cfg(feature = "cranelift")]
    pub(crate) fn prepare_host_trampolines(&self, types: &[&WasmFuncType], parallel: bool) -> crate::Result<()> {
        let missing: Vec<(&WasmFuncType, VMSharedTypeIndex)> = {
            let map = self.inner.host_trampolines.lock().unwrap_or_else(|e| e.into_inner());
            let mut seen = std::collections::HashSet::new();
            types
                .iter()
                .filter_map(|ty| {
                    let index = self.inner.types.register(ty);
                    if map.contains_key(&index) || !seen.insert(index) {
                        self.inner.types.release(index);
                        None
                    } else {
                        Some((*ty, index))
                    }
                })
                .collect()
        };
        if missing.is_empty() {
            return Ok(());
        }
        let release_all = || {
            for (_, index) in &missing {
                self.inner.types.release(*index);
            }
        };
        let compiler = match self.compiler() {
            Ok(c) => c,
            Err(e) => {
                release_all();
                return Err(e);
            }
        };
        let types: Vec<&WasmFuncType> = missing.iter().map(|(ty, _)| *ty).collect();
        let (compiled, offsets) = match compiler.compile_wasm_to_host_trampolines(&types, parallel) {
            Ok(c) => c,
            Err(e) => {
                release_all();
                return Err(e);
            }
        };
        let memory = match CodeMemory::new(&compiled.code, compiled.traps) {
            Ok(m) => Arc::new(m),
            Err(e) => {
                release_all();
                return Err(e);
            }
        };
        let mut map = self.inner.host_trampolines.lock().unwrap_or_else(|e| e.into_inner());
        for ((_, index), offset) in missing.iter().zip(offsets) {
            if map.contains_key(index) {
                // Another thread got there first; keep its trampoline.
                self.inner.types.release(*index);
            } else {
                map.insert(*index, (memory.clone(), memory.ptr_at(offset)));
            }
        }
        Ok(())
    }

    #[cfg(feature = "cranelift")]
    pub(crate) fn compiler(&self) -> crate::Result<&weft_cranelift::Compiler> {
        self.inner
            .compiler
            .as_ref()
            .map_err(|e| crate::format_err!("no compiler available: {e}"))
    }
}

/// Without the `cranelift` feature there is no compiler: this error.
#[cfg(not(feature = "cranelift"))]
fn no_compiler<T>() -> crate::Result<T> {
    crate::bail!("this build of weft has no compiler (enable the `cranelift` feature)")
}

impl Drop for EngineInner {
    fn drop(&mut self) {
        let map = std::mem::take(self.host_trampolines.get_mut().unwrap_or_else(|e| e.into_inner()));
        for (index, _) in map {
            self.types.release(index);
        }
    }
}

//! Driving the compiler over a module, in parallel when configured.

use weft_environ::ModuleTranslation;

#[cfg(feature = "cranelift")]
pub(crate) use weft_cranelift::CompiledModule;

/// Compiles every function and array trampoline of `translation`, spreading
/// functions over threads when `parallel` is set, then links them.
#[cfg(feature = "cranelift")]
pub(crate) fn compile_module(
    compiler: &weft_cranelift::Compiler,
    translation: &ModuleTranslation<'_>,
    parallel: bool,
) -> crate::Result<CompiledModule> {
    let count = translation.module.num_defined_funcs();
    let compile = |i: u32| compiler.compile_function(translation, i);
    let funcs: Vec<_> = if parallel && count > 1 {
        parallel_map(count, compile)?
    } else {
        (0..count).map(compile).collect::<crate::Result<_>>()?
    };
    let trampolines = translation
        .module
        .types
        .iter()
        .map(|ty| compiler.compile_array_trampoline(ty))
        .collect::<crate::Result<Vec<_>>>()?;
    compiler.link(funcs, trampolines)
}

#[cfg(all(feature = "cranelift", feature = "parallel-compilation"))]
pub(crate) fn parallel_map<R: Send>(
    count: u32,
    f: impl Fn(u32) -> crate::Result<R> + Sync + Send,
) -> crate::Result<Vec<R>> {
    use rayon::prelude::*;
    (0..count).into_par_iter().map(f).collect()
}

#[cfg(all(feature = "cranelift", not(feature = "parallel-compilation")))]
pub(crate) fn parallel_map<R: Send>(
    count: u32,
    f: impl Fn(u32) -> crate::Result<R> + Sync + Send,
) -> crate::Result<Vec<R>> {
    (0..count).map(f).collect()
}

#[cfg(not(feature = "cranelift"))]
pub(crate) fn compile_module(
    _compiler: &crate::engine::NoCompiler,
    _translation: &ModuleTranslation<'_>,
    _parallel: bool,
) -> crate::Result<CompiledModule> {
    crate::bail!("this build of weft has no compiler")
}

#[cfg(not(feature = "cranelift"))]
pub(crate) struct CompiledModule {
    pub(crate) code: Vec<u8>,
    pub(crate) funcs: Vec<Loc>,
    pub(crate) array_trampolines: Vec<Loc>,
    pub(crate) traps: Vec<(u32, weft_environ::Trap)>,
    pub(crate) address_map: Vec<(u32, u32)>,
}

#[cfg(not(feature = "cranelift"))]
pub(crate) struct Loc {
    pub(crate) offset: u32,
    pub(crate) len: u32,
}

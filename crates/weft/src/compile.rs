//! Driving the compiler over a module, in parallel when configured.

use weft_environ::ModuleTranslation;

#[cfg(feature = "cranelift")]
pub(crate) use weft_cranelift::CompiledModule;

#[cfg(feature = "cranelift")]
pub(crate) fn compile_module(
    compiler: &weft_cranelift::Compiler,
    translation: &ModuleTranslation<'_>,
    _parallel: bool,
) -> crate::Result<CompiledModule> {
    compiler.compile_module(translation)
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
}

#[cfg(not(feature = "cranelift"))]
pub(crate) struct Loc {
    pub(crate) offset: u32,
    pub(crate) len: u32,
}

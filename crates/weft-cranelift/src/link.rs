//! Laying out compiled functions in one buffer and resolving direct calls:
//! the unlinked functions ([`CompiledFunction`]) code generation makes, and
//! [`link_with_builtins`], which makes a [`CompiledModule`] of them.

use anyhow::{anyhow, bail, Result};
use cranelift_codegen::binemit::Reloc;
use weft_environ::{CompiledModule, ExceptionHandler, FunctionLoc, Trap, NO_TRAMPOLINE};

/// A direct call from one function to a defined function of the same
/// module, to be resolved when the module is linked.
#[derive(Debug, Clone)]
pub(crate) struct Relocation {
    /// Offset of the patched bytes within the calling function.
    pub(crate) offset: u32,
    /// The defined index of the called function.
    pub(crate) target: u32,
    pub(crate) kind: Reloc,
    pub(crate) addend: i64,
}

/// One compiled function (or trampoline) before linking.
#[derive(Debug, Clone)]
pub struct CompiledFunction {
    pub(crate) code: Vec<u8>,
    pub(crate) alignment: u32,
    /// Where in an `alignment`-sized block the function starts (a multiple
    /// of the alignment its code needs; see `crate::placement`).
    pub(crate) start_in_line: u32,
    pub(crate) relocs: Vec<Relocation>,
    pub(crate) traps: Vec<(u32, Trap)>,
    pub(crate) address_map: Vec<(u32, u32)>,
    /// The stack map of each call that has one: the offset of its return
    /// address, and the offsets from the stack pointer at the call of the
    /// slots holding references.
    pub(crate) stack_maps: Vec<(u32, Box<[u32]>)>,
    /// The calls in the scope of an exception handler, by the offset of
    /// their return address (as Cranelift lists its call sites: in order).
    pub(crate) exception_handlers: Vec<ExceptionHandler>,
}

impl CompiledFunction {
    /// The unlinked machine code.
    pub fn code(&self) -> &[u8] {
        &self.code
    }

    /// The trapping instructions, as offsets in [`CompiledFunction::code`].
    pub fn traps(&self) -> &[(u32, Trap)] {
        &self.traps
    }
}

/// The alignment of the blocks functions are placed in. A trampoline starts
/// on one; a wasm function asks for a cache line and may start some way
/// into it, at any offset that keeps the alignment its code needs (see
/// `Compiler::compile_function` and `crate::placement`).
const FUNCTION_ALIGNMENT: u32 = 16;

/// Appends `f` to `code`, aligned, and returns its location.
fn append(code: &mut Vec<u8>, f: &CompiledFunction) -> Result<FunctionLoc> {
    let align = f.alignment.max(FUNCTION_ALIGNMENT) as usize;
    let within = f.start_in_line as usize % align;
    // The first offset at or after the end that is `within` into a block.
    let start = code.len() + (within + align - code.len() % align) % align;
    code.resize(start, 0);
    code.extend_from_slice(&f.code);
    let offset = u32::try_from(start).map_err(|_| anyhow!("code larger than 4 GiB"))?;
    let len = u32::try_from(f.code.len()).map_err(|_| anyhow!("function larger than 4 GiB"))?;
    Ok(FunctionLoc { offset, len })
}

/// Relocation targets from here on name the trampoline of the collecting
/// builtin at `target - BUILTIN_TRAMPOLINE_BASE` (see `gc_stack_maps.rs`).
pub(crate) const BUILTIN_TRAMPOLINE_BASE: u32 = 1 << 31;

/// Lays out `funcs` then `trampolines` (one per module type, `None` for a
/// type without one) and applies the relocations of all of them.
#[cfg(test)]
pub(crate) fn link(
    funcs: Vec<CompiledFunction>,
    trampolines: Vec<Option<CompiledFunction>>,
) -> Result<CompiledModule<'static>> {
    link_with_builtins(funcs, trampolines, Vec::new())
}

/// Lays out `funcs` then `trampolines` (one per module type, `None` for a
/// type without one), then the trampolines of the collecting builtins, and
/// applies the relocations of all of them.
pub(crate) fn link_with_builtins(
    funcs: Vec<CompiledFunction>,
    trampolines: Vec<Option<CompiledFunction>>,
    builtin_trampolines: Vec<CompiledFunction>,
) -> Result<CompiledModule<'static>> {
    let mut module = CompiledModule::default();
    let mut code = Vec::new();
    let mut trampoline_locs = Vec::with_capacity(trampolines.len());
    for f in &funcs {
        let loc = append(&mut code, f)?;
        module.funcs.push(loc);
        module
            .traps
            .extend(f.traps.iter().map(|(off, trap)| (loc.offset + off, *trap)));
        module
            .address_map
            .extend(f.address_map.iter().map(|(off, wasm)| (loc.offset + off, *wasm)));
        module.stack_maps.extend(
            f.stack_maps
                .iter()
                .map(|(off, slots)| (loc.offset + off, slots.clone())),
        );
        module
            .exception_handlers
            .extend(f.exception_handlers.iter().map(|h| ExceptionHandler {
                ret: loc.offset + h.ret,
                handler: loc.offset + h.handler,
                frame_offset: h.frame_offset,
            }));
    }
    for t in &trampolines {
        let Some(t) = t else {
            module.array_trampolines.push(NO_TRAMPOLINE);
            continue;
        };
        let loc = append(&mut code, t)?;
        module.array_trampolines.push(loc.offset);
        trampoline_locs.push(loc);
        module
            .traps
            .extend(t.traps.iter().map(|(off, trap)| (loc.offset + off, *trap)));
    }
    let mut builtin_locs = Vec::with_capacity(builtin_trampolines.len());
    for t in &builtin_trampolines {
        builtin_locs.push(append(&mut code, t)?);
    }
    let all = funcs
        .iter()
        .zip(&module.funcs)
        .chain(trampolines.iter().flatten().zip(&trampoline_locs));
    for (f, loc) in all {
        for r in &f.relocs {
            let target = match r.target.checked_sub(BUILTIN_TRAMPOLINE_BASE) {
                Some(i) => builtin_locs
                    .get(i as usize)
                    .ok_or_else(|| anyhow!("call to unknown builtin trampoline {i}"))?,
                None => module
                    .funcs
                    .get(r.target as usize)
                    .ok_or_else(|| anyhow!("call to unknown defined function {}", r.target))?,
            };
            apply(&mut code, loc.offset + r.offset, target.offset, r)?;
        }
    }
    module.traps.sort_by_key(|(off, _)| *off);
    module.code = code.into();
    Ok(module)
}

/// Patches the pc-relative call at `at` to reach `target`.
fn apply(code: &mut [u8], at: u32, target: u32, r: &Relocation) -> Result<()> {
    let at_usize = at as usize;
    let delta = i64::from(target) + r.addend - i64::from(at);
    match r.kind {
        Reloc::X86CallPCRel4 | Reloc::X86PCRel4 | Reloc::X86CallPLTRel4 => {
            let value = i32::try_from(delta).map_err(|_| anyhow!("call displacement out of range"))?;
            let bytes = code
                .get_mut(at_usize..at_usize + 4)
                .ok_or_else(|| anyhow!("relocation out of bounds"))?;
            bytes.copy_from_slice(&value.to_le_bytes());
        }
        Reloc::Arm64Call => {
            if delta % 4 != 0 || !(-(1 << 27)..(1 << 27)).contains(&delta) {
                bail!("aarch64 call displacement {delta} out of range");
            }
            let bytes = code
                .get_mut(at_usize..at_usize + 4)
                .ok_or_else(|| anyhow!("relocation out of bounds"))?;
            let insn = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            let imm26 = ((delta >> 2) as u32) & 0x03ff_ffff;
            let insn = (insn & 0xfc00_0000) | imm26;
            bytes.copy_from_slice(&insn.to_le_bytes());
        }
        other => bail!("unsupported relocation kind {other:?}"),
    }
    Ok(())
}

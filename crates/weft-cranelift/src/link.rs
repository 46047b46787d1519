//! Laying out compiled functions in one buffer and resolving direct calls.

use crate::compiler::{CompiledFunction, Relocation};
use anyhow::{anyhow, bail, Result};
use cranelift_codegen::binemit::Reloc;
use weft_environ::{CompiledModule, FunctionLoc};

/// The alignment of every function in the code buffer.
const FUNCTION_ALIGNMENT: u32 = 16;

/// Appends `f` to `code`, aligned, and returns its location.
fn append(code: &mut Vec<u8>, f: &CompiledFunction) -> Result<FunctionLoc> {
    let align = f.alignment.max(FUNCTION_ALIGNMENT) as usize;
    let start = code.len().next_multiple_of(align);
    code.resize(start, 0);
    code.extend_from_slice(&f.code);
    let offset = u32::try_from(start).map_err(|_| anyhow!("code larger than 4 GiB"))?;
    let len = u32::try_from(f.code.len()).map_err(|_| anyhow!("function larger than 4 GiB"))?;
    Ok(FunctionLoc { offset, len })
}

/// Lays out `funcs` then `trampolines` and applies the relocations of all of
/// them.
pub(crate) fn link(
    funcs: Vec<CompiledFunction>,
    trampolines: Vec<CompiledFunction>,
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
    }
    for t in &trampolines {
        let loc = append(&mut code, t)?;
        module.array_trampolines.push(loc.offset);
        trampoline_locs.push(loc);
        module
            .traps
            .extend(t.traps.iter().map(|(off, trap)| (loc.offset + off, *trap)));
    }
    let all = funcs
        .iter()
        .zip(&module.funcs)
        .chain(trampolines.iter().zip(&trampoline_locs));
    for (f, loc) in all {
        for r in &f.relocs {
            let target = module
                .funcs
                .get(r.target as usize)
                .ok_or_else(|| anyhow!("call to unknown defined function {}", r.target))?;
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

#[cfg(test)]
mod tests {
    use crate::Compiler;

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
        let linked = super::link(funcs, vec![]).unwrap();
        for (caller, relocs) in expected.iter().enumerate() {
            for (offset, target) in relocs {
                let at = linked.funcs[caller].offset + offset;
                let dest = call_target(&linked.code, at, compiler.architecture());
                assert_eq!(dest, i64::from(linked.funcs[*target as usize].offset));
            }
        }
    }
}

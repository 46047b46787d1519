//! Precompiled modules: the bytes written by `Module::serialize` and
//! `Engine::precompile_module`, read back by `Module::deserialize`.
//!
//! Layout (little endian): the magic `\0weft-cwasm`, a format number, two
//! strings that must equal the reading engine's (the Weft version, the
//! target and CPU features), the WebAssembly features the module was
//! compiled with (a `u64` of wasmparser's bits: the reading engine must
//! enable each of them, and may enable more, as in Wasmtime), the rest of
//! the engine configuration that changes code (a string that must equal the
//! reading engine's), the module's binary, the machine code, the location of each defined
//! function and of each type's array trampoline, the trap table and the
//! address map (code offsets to offsets in the binary).
//!
//! The binary is translated (parsed and validated) again on reading, which
//! is cheap next to code generation; the code is mapped as it was written,
//! without compiling anything.

use crate::Config;
use wasmparser::WasmFeatures;
use weft_environ::{CompiledModule, FunctionLoc, Trap};

const MAGIC: &[u8] = b"\0weft-cwasm";
// 6: exnref values get stack maps and `throw` goes through its collecting
// trampoline (exceptions are collected), so older code must not be loaded.
// 7: the WebAssembly features are written apart from the rest of the
// configuration, so that an engine with more of them loads the code.
const FORMAT: u32 = 7;
/// The magic of a precompiled component (`crate::component::Component::serialize`),
/// as long as [`MAGIC`] and differing from it, so that each kind is told
/// from the other by its first bytes.
pub(crate) const COMPONENT_MAGIC: &[u8] = b"\0weft-ccomp";

/// The kinds of precompiled output (`crate::Precompiled` is the public
/// face of this).
pub(crate) enum Kind {
    /// A module's.
    Module,
    /// A component's.
    Component,
}

/// What precompiled Weft output `bytes` hold, by their first bytes.
pub(crate) fn detect(bytes: &[u8]) -> Option<Kind> {
    if bytes.starts_with(MAGIC) {
        Some(Kind::Module)
    } else if bytes.starts_with(COMPONENT_MAGIC) {
        Some(Kind::Component)
    } else {
        None
    }
}

/// The host's architecture and the CPU features code generation may use.
fn cpu() -> String {
    #[allow(unused_mut, reason = "only some architectures push features")]
    let mut features: Vec<&str> = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! detect {
            ($($f:tt),*) => {$(
                if std::arch::is_x86_feature_detected!($f) {
                    features.push($f);
                }
            )*};
        }
        detect!(
            "sse3",
            "ssse3",
            "sse4.1",
            "sse4.2",
            "popcnt",
            "avx",
            "avx2",
            "bmi1",
            "bmi2",
            "lzcnt",
            "fma",
            "avx512f",
            "avx512vl",
            "avx512dq",
            "avx512bitalg",
            "avx512vbmi",
            "cmpxchg16b"
        );
    }
    #[cfg(target_arch = "aarch64")]
    {
        macro_rules! detect {
            ($($f:tt),*) => {$(
                if std::arch::is_aarch64_feature_detected!($f) {
                    features.push($f);
                }
            )*};
        }
        detect!("lse", "paca", "fp16");
    }
    format!("{} [{}]", std::env::consts::ARCH, features.join(","))
}

/// What of the engine's configuration, beyond its WebAssembly features,
/// changes what the generated code does. The optimization level is left
/// out, as Wasmtime leaves it out: code compiled at any level runs the same
/// on an engine set to another.
pub(crate) fn tunables(c: &Config) -> String {
    format!("{:?}", c.compile_tunables())
}

pub(crate) fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub(crate) fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u64).to_le_bytes());
    out.extend_from_slice(b);
}

/// Writes the header of precompiled output: `magic`, `format`, the Weft
/// version, the CPU, the WebAssembly `features` the output was compiled
/// with and `tunables` (the rest of what of the engine's configuration the
/// output depends on).
pub(crate) fn write_header(out: &mut Vec<u8>, magic: &[u8], format: u32, features: WasmFeatures, tunables: &str) {
    out.extend_from_slice(magic);
    put_u32(out, format);
    put_bytes(out, env!("CARGO_PKG_VERSION").as_bytes());
    put_bytes(out, cpu().as_bytes());
    out.extend_from_slice(&features.bits().to_le_bytes());
    put_bytes(out, tunables.as_bytes());
}

/// The precompiled form, for an engine configured as `config`, of a module
/// of binary `wasm` whose code is `parts`.
pub(crate) fn write(config: &Config, wasm: &[u8], parts: &CompiledModule<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(wasm.len() + parts.code.len() + 256);
    write_header(&mut out, MAGIC, FORMAT, config.features, &tunables(config));
    put_bytes(&mut out, wasm);
    put_bytes(&mut out, &parts.code);
    put_u32(&mut out, parts.funcs.len() as u32);
    for loc in &parts.funcs {
        put_u32(&mut out, loc.offset);
        put_u32(&mut out, loc.len);
    }
    put_u32(&mut out, parts.array_trampolines.len() as u32);
    for offset in &parts.array_trampolines {
        put_u32(&mut out, *offset);
    }
    put_u32(&mut out, parts.traps.len() as u32);
    for (offset, trap) in &parts.traps {
        put_u32(&mut out, *offset);
        out.push(*trap as u8);
    }
    put_u32(&mut out, parts.address_map.len() as u32);
    for (code, wasm) in &parts.address_map {
        put_u32(&mut out, *code);
        put_u32(&mut out, *wasm);
    }
    put_u32(&mut out, parts.stack_maps.len() as u32);
    for (code, slots) in &parts.stack_maps {
        put_u32(&mut out, *code);
        put_u32(&mut out, slots.len() as u32);
        for slot in slots.iter() {
            put_u32(&mut out, *slot);
        }
    }
    out
}

/// Reads precompiled output; `what` names it in errors (`module`,
/// `component`).
pub(crate) struct Reader<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) what: &'static str,
}

impl<'a> Reader<'a> {
    pub(crate) fn take(&mut self, n: usize) -> crate::Result<&'a [u8]> {
        if n > self.bytes.len() {
            crate::bail!("the precompiled {} is truncated", self.what);
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }
    pub(crate) fn u32(&mut self) -> crate::Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub(crate) fn u8(&mut self) -> crate::Result<u8> {
        Ok(self.take(1)?[0])
    }
    pub(crate) fn bytes(&mut self) -> crate::Result<&'a [u8]> {
        let b = self.take(8)?;
        let mut len = [0; 8];
        len.copy_from_slice(b);
        let len = usize::try_from(u64::from_le_bytes(len)).unwrap_or(usize::MAX);
        self.take(len)
    }
    fn string(&mut self) -> crate::Result<&'a str> {
        let what = self.what;
        std::str::from_utf8(self.bytes()?).map_err(|_| crate::format_err!("the precompiled {what} is corrupt"))
    }
    /// A count of items of at least `item` bytes each, checked against what
    /// is left so that a corrupt count cannot make us allocate much.
    pub(crate) fn count(&mut self, item: usize) -> crate::Result<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(item) > self.bytes.len() {
            crate::bail!("the precompiled {} is truncated", self.what);
        }
        Ok(n)
    }

    /// Reads and checks the header [`write_header`] wrote with `magic` and
    /// `format`, for an engine that enables the WebAssembly `features` and
    /// whose other code-changing configuration is `tunables`: returns the
    /// features the output was compiled with, a subset of `features`. Fails
    /// with an error that says what differs (the kind of output, the Weft
    /// version, the CPU, the features the engine lacks or the rest of the
    /// engine configuration).
    pub(crate) fn header(
        &mut self,
        magic: &[u8],
        format: u32,
        features: WasmFeatures,
        tunables: &str,
    ) -> crate::Result<WasmFeatures> {
        let what = self.what;
        let head = self.bytes.get(..magic.len());
        if head != Some(magic) {
            match detect(self.bytes) {
                Some(Kind::Module) => {
                    crate::bail!("this is a precompiled core module, not a {what}: load it with `Module::deserialize`")
                }
                Some(Kind::Component) => {
                    crate::bail!("this is a precompiled component, not a {what}: load it with `Component::deserialize`")
                }
                None if magic.len() > self.bytes.len() && magic.starts_with(self.bytes) => {
                    crate::bail!("the precompiled {what} is truncated")
                }
                None if what == "module" => {
                    crate::bail!("not a precompiled Weft module (see `weft compile` and `Module::serialize`)")
                }
                None => {
                    crate::bail!("not a {what} precompiled by Weft (see `weft compile` and `Component::serialize`)")
                }
            }
        }
        self.take(magic.len())?;
        let their_format = self.u32()?;
        if their_format != format {
            crate::bail!("the precompiled {what} has format {their_format}; this Weft reads format {format}");
        }
        let version = self.string()?;
        if version != env!("CARGO_PKG_VERSION") {
            crate::bail!(
                "the {what} was precompiled by Weft {version}, but this is Weft {}: compile it again",
                env!("CARGO_PKG_VERSION")
            );
        }
        let their_cpu = self.string()?;
        let our_cpu = cpu();
        if their_cpu != our_cpu {
            crate::bail!(
                "the {what} was precompiled for the CPU `{their_cpu}`, but this host is `{our_cpu}`: compile it again"
            );
        }
        let bits = self.take(8)?;
        let mut word = [0; 8];
        word.copy_from_slice(bits);
        let Some(their_features) = WasmFeatures::from_bits(u64::from_le_bytes(word)) else {
            crate::bail!("the precompiled {what} is corrupt (unknown WebAssembly features)");
        };
        let missing = their_features.difference(features);
        if !missing.is_empty() {
            crate::bail!(
                "the {what} was precompiled with WebAssembly features this engine does not enable \
                 ({missing:?}): enable them in the engine's `Config`, or compile it again"
            );
        }
        let their_tunables = self.string()?;
        if their_tunables != tunables {
            crate::bail!(
                "the {what} was precompiled for another engine configuration (`{their_tunables}`), \
                 but this engine has `{tunables}`: compile it again"
            );
        }
        Ok(their_features)
    }
}

/// Reads precompiled bytes for an engine configured as `config`: the
/// module's binary, the WebAssembly features it was compiled with (all
/// enabled by `config`) and its code. Fails with a clear error when they
/// were made by another Weft version, for another CPU, with features
/// `config` does not enable, or with another engine configuration.
pub(crate) fn read<'a>(
    config: &Config,
    bytes: &'a [u8],
) -> crate::Result<(&'a [u8], WasmFeatures, CompiledModule<'a>)> {
    let mut r = Reader { bytes, what: "module" };
    let features = r.header(MAGIC, FORMAT, config.features, &tunables(config))?;
    let wasm = r.bytes()?;
    let code = r.bytes()?;
    let n = r.count(8)?;
    let mut funcs = Vec::with_capacity(n);
    for _ in 0..n {
        funcs.push(FunctionLoc {
            offset: r.u32()?,
            len: r.u32()?,
        });
    }
    let n = r.count(4)?;
    let mut trampolines = Vec::with_capacity(n);
    for _ in 0..n {
        trampolines.push(r.u32()?);
    }
    let n = r.count(5)?;
    let mut traps = Vec::with_capacity(n);
    for _ in 0..n {
        let offset = r.u32()?;
        let code = r.u8()?;
        let trap = Trap::ALL
            .iter()
            .copied()
            .find(|t| *t as u8 == code)
            .ok_or_else(|| crate::format_err!("the precompiled module is corrupt (trap code {code})"))?;
        traps.push((offset, trap));
    }
    let n = r.count(8)?;
    let mut address_map = Vec::with_capacity(n);
    for _ in 0..n {
        address_map.push((r.u32()?, r.u32()?));
    }
    let n = r.count(8)?;
    let mut stack_maps = Vec::with_capacity(n);
    for _ in 0..n {
        let offset = r.u32()?;
        let k = r.count(4)?;
        let mut slots = Vec::with_capacity(k);
        for _ in 0..k {
            let slot = r.u32()?;
            // Frames are far smaller than this; a larger offset is corrupt.
            if slot >= 1 << 24 || slot % 8 != 0 {
                crate::bail!("the precompiled module is corrupt (stack map slot {slot})");
            }
            slots.push(slot);
        }
        stack_maps.push((offset, slots.into_boxed_slice()));
    }
    if !r.bytes.is_empty() {
        crate::bail!("the precompiled module has trailing bytes");
    }
    let len = code.len() as u64;
    let in_code = |offset: u32, n: u32| offset as u64 + n as u64 <= len;
    if !funcs.iter().all(|loc| in_code(loc.offset, loc.len))
        || !trampolines.iter().all(|o| in_code(*o, 0))
        || !traps.iter().all(|(o, _)| in_code(*o, 0))
        || !address_map.iter().all(|(o, _)| in_code(*o, 0))
        || !address_map.windows(2).all(|w| w[0].0 <= w[1].0)
        || !stack_maps.iter().all(|(o, _)| in_code(*o, 0))
    {
        crate::bail!("the precompiled module is corrupt (code offsets out of range)");
    }
    Ok((
        wasm,
        features,
        CompiledModule {
            code: code.into(),
            funcs,
            array_trampolines: trampolines,
            traps,
            address_map,
            stack_maps,
        },
    ))
}

//! Precompiled modules: the bytes written by `Module::serialize` and
//! `Engine::precompile_module`, read back by `Module::deserialize`.
//!
//! Layout (little endian): the magic `\0weft-cwasm`, a format number, two
//! strings that must equal the reading engine's (the Weft version, the
//! target and CPU features), the WebAssembly features the module was
//! compiled with (a `u64` of wasmparser's bits: the reading engine must
//! enable each of them, and may enable more, as in Wasmtime), the rest of
//! the engine configuration that changes code (a string that must equal the
//! reading engine's), the translated module (`weft_environ::Module`, with
//! `postcard`), the offset in the original binary of each defined
//! function's body, zeros up to a page boundary (`CODE_ALIGN`), the machine
//! code, the location of each defined function
//! and of each type's array trampoline, the trap table, the address map
//! (code offsets to offsets in the binary), the stack maps, and the memory
//! image of each defined memory that has one (its contents, starting at a
//! multiple of `CODE_ALIGN`).
//!
//! Reading translates nothing: the module is decoded as it was written, the
//! tables are read in bulk, and the code is copied once into executable
//! memory. From a file (`Module::deserialize_file`), the code is made
//! executable where the file is mapped, the trap table (sorted) and the
//! address map are searched where they lie, and the memory images are
//! mapped from the file at each instantiation. The module's binary is not
//! kept.

use crate::Config;
use wasmparser::WasmFeatures;
use weft_environ::{CompiledModule, ExceptionHandler, FunctionLoc, Trap};

const MAGIC: &[u8] = b"\0weft-cwasm";
// 6: exnref values get stack maps and `throw` goes through its collecting
// trampoline (exceptions are collected), so older code must not be loaded.
// 7: the WebAssembly features are written apart from the rest of the
// configuration, so that an engine with more of them loads the code.
// 8: the translated module instead of the binary.
// 9: the memory images, page-aligned, at the end.
// 10: `memory.fill` and `memory.copy` pass the builtins memory definitions
// instead of indices.
// 11: defined globals lie in the vmctx (see `weft_environ::VMOffsets`).
// 12: so do copies of the memories' bases.
const FORMAT: u32 = 13;
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

/// The host's architecture and the CPU features code generation may use
/// (found once per process).
fn cpu() -> &'static str {
    static CPU: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    CPU.get_or_init(detect_cpu)
}

fn detect_cpu() -> String {
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

/// The precompiled form, for an engine configured as `config`, of the
/// translated module `env`, whose defined functions' bodies start at
/// `func_starts` in its binary and whose code is `parts`.
pub(crate) fn write(
    config: &Config,
    env: &weft_environ::Module,
    func_starts: &[u32],
    parts: &CompiledModule<'_>,
) -> crate::Result<Vec<u8>> {
    let env_ref = env;
    let env = postcard::to_allocvec(env).map_err(|e| crate::format_err!("failed to write the module: {e}"))?;
    let mut out = Vec::with_capacity(env.len() + parts.code.len() + 16 * parts.address_map.len() + 256);
    write_header(&mut out, MAGIC, FORMAT, config.features, &tunables(config));
    put_bytes(&mut out, &env);
    put_u32s(&mut out, func_starts.iter().copied());
    // Aligned, so that `Module::deserialize_file` can execute the code
    // where the file is mapped.
    put_aligned(&mut out, &parts.code);
    put_u32(&mut out, parts.funcs.len() as u32);
    for loc in &parts.funcs {
        put_u32(&mut out, loc.offset);
        put_u32(&mut out, loc.len);
    }
    put_u32s(&mut out, parts.array_trampolines.iter().copied());
    // Sorted, so that `Module::deserialize_file` can search the table
    // where it lies.
    let mut traps = parts.traps.clone();
    traps.sort_by_key(|t| t.0);
    put_u32(&mut out, traps.len() as u32);
    for (offset, trap) in &traps {
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
        put_u32s(&mut out, slots.iter().copied());
    }
    put_u32(&mut out, parts.exception_handlers.len() as u32);
    for h in &parts.exception_handlers {
        put_u32(&mut out, h.ret);
        put_u32(&mut out, h.handler);
        put_u32(&mut out, h.frame_offset);
    }
    let images = weft_runtime::MemoryImage::contents_for_module(env_ref);
    put_u32(&mut out, images.len() as u32);
    for image in &images {
        match image {
            None => out.push(0),
            Some(image) => {
                out.push(1);
                out.extend_from_slice(&(image.offset as u64).to_le_bytes());
                put_aligned(&mut out, &image.bytes);
            }
        }
    }
    Ok(out)
}

/// Writes `bytes` as [`put_bytes`] does, after zeros (and their count) that
/// make them start at a multiple of `CODE_ALIGN` in `out`.
fn put_aligned(out: &mut Vec<u8>, bytes: &[u8]) {
    let at = out.len() + 4 + 8;
    let pad = (CODE_ALIGN - at % CODE_ALIGN) % CODE_ALIGN;
    put_u32(out, pad as u32);
    out.resize(out.len() + pad, 0);
    put_bytes(out, bytes);
}

/// Where the code of a precompiled module starts: a multiple of this in its
/// bytes, the host's page size or a multiple of it (64 KiB where pages may
/// be as large).
const CODE_ALIGN: usize = if cfg!(target_arch = "x86_64") { 4096 } else { 65536 };

/// Writes a count and then each of `values`.
fn put_u32s(out: &mut Vec<u8>, values: impl ExactSizeIterator<Item = u32>) {
    put_u32(out, values.len() as u32);
    for v in values {
        put_u32(out, v);
    }
}

/// Where `part`, a subslice of `bytes`, starts in `bytes`.
pub(crate) fn offset_in(bytes: &[u8], part: &[u8]) -> usize {
    part.as_ptr() as usize - bytes.as_ptr() as usize
}

/// The `u32` at the start of `b` (at least 4 bytes long).
fn le32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
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
        Ok(le32(self.take(4)?))
    }
    /// A count and then as many records of `width` bytes each: the
    /// records, as one slice to split with `chunks_exact(width)`.
    fn records(&mut self, width: usize) -> crate::Result<std::slice::ChunksExact<'a, u8>> {
        Ok(self.record_bytes(width)?.chunks_exact(width))
    }
    /// [`Reader::records`] as one slice of bytes.
    fn record_bytes(&mut self, width: usize) -> crate::Result<&'a [u8]> {
        let n = self.count(width)?;
        self.take(n * width)
    }
    /// What [`put_aligned`] wrote.
    fn aligned(&mut self) -> crate::Result<&'a [u8]> {
        let pad = self.u32()? as usize;
        self.take(pad)?;
        self.bytes()
    }
    fn u64(&mut self) -> crate::Result<u64> {
        let mut word = [0; 8];
        word.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(word))
    }
    pub(crate) fn bytes(&mut self) -> crate::Result<&'a [u8]> {
        let len = usize::try_from(self.u64()?).unwrap_or(usize::MAX);
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
    /// whose other code-changing configuration is `tunables` (the output
    /// must have been compiled with a subset of `features`). Fails with an
    /// error that says what differs (the kind of output, the Weft
    /// version, the CPU, the features the engine lacks or the rest of the
    /// engine configuration).
    pub(crate) fn header(
        &mut self,
        magic: &[u8],
        format: u32,
        features: WasmFeatures,
        tunables: &str,
    ) -> crate::Result<()> {
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
        let Some(their_features) = WasmFeatures::from_bits(self.u64()?) else {
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
                "the {what} was precompiled for another engine configuration ({}): compile it again",
                tunables_difference(their_tunables, tunables)
            );
        }
        Ok(())
    }
}

/// In words, how the tunables written in precompiled output (`theirs`)
/// differ from this engine's (`ours`), both as [`tunables`] writes them:
/// `Tunables { consume_fuel: true, ... }`. Falls back to both strings
/// when they do not read as that.
fn tunables_difference(theirs: &str, ours: &str) -> String {
    fn fields(text: &str) -> Option<Vec<(&str, &str)>> {
        let inner = text.strip_prefix("Tunables { ")?.strip_suffix(" }")?;
        inner.split(", ").map(|field| field.split_once(": ")).collect()
    }
    let described = fields(theirs).zip(fields(ours)).and_then(|(theirs, ours)| {
        let differences: Vec<String> = ours
            .iter()
            .filter_map(|(name, value)| {
                let their_value = theirs.iter().find(|(n, _)| n == name)?.1;
                (their_value != *value).then(|| {
                    let what = match *name {
                        "consume_fuel" => "fuel consumption (`Config::consume_fuel`)",
                        "epoch_interruption" => "epoch interruption (`Config::epoch_interruption`)",
                        "relaxed_simd_deterministic" => {
                            "deterministic relaxed SIMD (`Config::relaxed_simd_deterministic`)"
                        }
                        "exceptions" => "exception handling (`Config::wasm_exceptions`)",
                        "explicit_bounds_checks" => {
                            "bounds checks for memories from the embedder (`Config::with_host_memory`)"
                        }
                        other => other,
                    };
                    let on_off = |v: &str| match v {
                        "true" => "on".to_string(),
                        "false" => "off".to_string(),
                        other => format!("`{other}`"),
                    };
                    format!(
                        "{what} is {} in it but {} in this engine",
                        on_off(their_value),
                        on_off(value)
                    )
                })
            })
            .collect();
        (!differences.is_empty() && theirs.len() == ours.len()).then(|| differences.join("; "))
    });
    described.unwrap_or_else(|| format!("`{theirs}`, but this engine has `{ours}`"))
}

/// A module read back from precompiled bytes: its translation, the offset
/// of each defined function's body in its binary, and its code.
pub(crate) struct Precompiled<'a> {
    /// The translated module.
    pub(crate) env: weft_environ::Module,
    /// The offset in the binary of each defined function's body.
    pub(crate) func_starts: Vec<u32>,
    /// The code and its tables.
    pub(crate) compiled: CompiledModule<'a>,
    /// Where the code starts in the bytes read.
    pub(crate) code_offset: usize,
    /// The memory image of each defined memory, if it has one.
    pub(crate) images: Vec<Option<WrittenImage>>,
    /// The trap table as written: `weft_runtime::TRAP_RECORD`-byte records
    /// (`compiled.traps` is left empty; see [`decode_traps`]).
    pub(crate) traps: &'a [u8],
    /// The address map as written: `(code offset, wasm offset)` records of
    /// two little-endian `u32`s (`compiled.address_map` is left empty).
    pub(crate) address_map: &'a [u8],
}

/// The trap table `records` of [`Precompiled::traps`], for code of `code_len`
/// bytes, decoded and checked.
pub(crate) fn decode_traps(records: &[u8], code_len: usize) -> crate::Result<Vec<(u32, Trap)>> {
    let (records, _) = records.as_chunks::<{ weft_runtime::TRAP_RECORD }>();
    records
        .iter()
        .map(|r| match weft_runtime::trap_record(r) {
            (offset, Some(trap)) if offset as usize <= code_len => Ok((offset, trap)),
            (_, Some(_)) => Err(crate::format_err!(
                "the precompiled module is corrupt (code offsets out of range)"
            )),
            (_, None) => Err(crate::format_err!(
                "the precompiled module is corrupt (trap code {})",
                r[4]
            )),
        })
        .collect()
}

/// A memory image as precompiled bytes hold it.
pub(crate) struct WrittenImage {
    /// Where its contents start in the memory.
    pub(crate) offset: usize,
    /// Where its contents start in the bytes read (a multiple of
    /// `CODE_ALIGN`).
    pub(crate) at: usize,
    /// The length of its contents.
    pub(crate) len: usize,
}

/// Reads precompiled bytes for an engine configured as `config`. Fails with
/// a clear error when they were made by another Weft version, for another
/// CPU, with WebAssembly features `config` does not enable, or with another
/// engine configuration, and when they are truncated or corrupt.
pub(crate) fn read<'a>(config: &Config, bytes: &'a [u8]) -> crate::Result<Precompiled<'a>> {
    let mut r = Reader { bytes, what: "module" };
    r.header(MAGIC, FORMAT, config.features, &tunables(config))?;
    let env: weft_environ::Module = postcard::from_bytes(r.bytes()?)
        .map_err(|e| crate::format_err!("the precompiled module is corrupt (its translation: {e})"))?;
    let func_starts = r.records(4)?.map(le32).collect();
    let code = r.aligned()?;
    let code_offset = offset_in(bytes, code);
    let funcs: Vec<FunctionLoc> = r
        .records(8)?
        .map(|b| FunctionLoc {
            offset: le32(b),
            len: le32(&b[4..]),
        })
        .collect();
    let trampolines: Vec<u32> = r.records(4)?.map(le32).collect();
    let traps = r.record_bytes(weft_runtime::TRAP_RECORD)?;
    // Kept as written: a lookup in it only names an offset for a
    // backtrace, so it is not decoded or checked here.
    let address_map = r.record_bytes(8)?;
    let n = r.count(8)?;
    let mut stack_maps = Vec::with_capacity(n);
    for _ in 0..n {
        let offset = r.u32()?;
        let slots = r.records(4)?.map(le32).collect::<Box<[u32]>>();
        // Frames are far smaller than this; a larger offset is corrupt.
        if let Some(slot) = slots.iter().find(|slot| **slot >= 1 << 24 || **slot % 8 != 0) {
            crate::bail!("the precompiled module is corrupt (stack map slot {slot})");
        }
        stack_maps.push((offset, slots));
    }
    let exception_handlers: Vec<ExceptionHandler> = r
        .records(12)?
        .map(|b| ExceptionHandler {
            ret: le32(b),
            handler: le32(&b[4..]),
            frame_offset: le32(&b[8..]),
        })
        .collect();
    let n = r.count(1)?;
    if n != env.memories.len().saturating_sub(env.num_imported_memories as usize) {
        crate::bail!("the precompiled module is corrupt (memory images of other memories)");
    }
    let mut images = Vec::with_capacity(n);
    for _ in 0..n {
        images.push(match r.take(1)?[0] {
            0 => None,
            _ => {
                let offset = usize::try_from(r.u64()?)
                    .map_err(|_| crate::format_err!("the precompiled module is corrupt (memory image offset)"))?;
                let image = r.aligned()?;
                Some(WrittenImage {
                    offset,
                    at: offset_in(bytes, image),
                    len: image.len(),
                })
            }
        });
    }
    if !r.bytes.is_empty() {
        crate::bail!("the precompiled module has trailing bytes");
    }
    let len = code.len() as u64;
    let in_code = |offset: u32, n: u32| offset as u64 + n as u64 <= len;
    if !funcs.iter().all(|loc| in_code(loc.offset, loc.len))
        || !trampolines
            .iter()
            .all(|o| *o == weft_environ::NO_TRAMPOLINE || in_code(*o, 0))
        || !stack_maps.iter().all(|(o, _)| in_code(*o, 0))
        || !exception_handlers
            .iter()
            .all(|h| in_code(h.ret, 0) && in_code(h.handler, 0) && h.frame_offset < 1 << 24)
    {
        crate::bail!("the precompiled module is corrupt (code offsets out of range)");
    }
    Ok(Precompiled {
        env,
        func_starts,
        code_offset,
        images,
        traps,
        address_map,
        compiled: CompiledModule {
            code: code.into(),
            funcs,
            array_trampolines: trampolines,
            traps: Vec::new(),
            address_map: Vec::new(),
            stack_maps,
            exception_handlers,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::tunables_difference;

    #[test]
    fn tunables_difference_is_said_in_words() {
        let theirs = "Tunables { consume_fuel: true, epoch_interruption: false, exceptions: true }";
        let ours = "Tunables { consume_fuel: false, epoch_interruption: false, exceptions: false }";
        assert_eq!(
            tunables_difference(theirs, ours),
            "fuel consumption (`Config::consume_fuel`) is on in it but off in this engine; \
             exception handling (`Config::wasm_exceptions`) is on in it but off in this engine"
        );
        // Anything else is shown as written.
        assert_eq!(
            tunables_difference("Tunables { x: 1 }", "Other"),
            "`Tunables { x: 1 }`, but this engine has `Other`"
        );
    }
}

//! Generators: a seeded random source, wasm-smith modules restricted to the
//! features Weft supports, and arguments for exported functions.

use crate::value::{Value, ValueType};
use arbitrary::Unstructured;

/// A small, fast, seedable random source (SplitMix64), so every run of the
/// fuzzers is reproducible from a seed without a nightly toolchain.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator that starts from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }

    /// `len` random bytes.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len + 8);
        while out.len() < len {
            out.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        out.truncate(len);
        out
    }
}

/// The seed of iteration `iteration` of a run started with `seed`; each
/// iteration can be replayed on its own from it.
pub fn iteration_seed(seed: u64, iteration: u64) -> u64 {
    Rng::new(seed ^ iteration.wrapping_mul(0xd6e8_feb8_6659_fd93)).next_u64()
}

/// The module and argument seed of iteration `iteration` of a run started
/// with `seed`, generated from at most `max_input` random bytes; `None` when
/// wasm-smith could not build a module from them.
pub fn iteration_case(seed: u64, iteration: u64, max_input: usize, options: &GenOptions) -> Option<(Vec<u8>, u64)> {
    let mut rng = Rng::new(iteration_seed(seed, iteration));
    let len = rng.below(max_input as u64 + 1) as usize;
    let data = rng.bytes(len);
    let wasm = generate_module(&data, options).ok()?;
    Some((wasm, rng.next_u64()))
}

/// Knobs of the module generator.
#[derive(Debug, Clone)]
pub struct GenOptions {
    /// The fuel that wasm-smith's termination instrumentation gives each
    /// instance: every function entry and loop iteration costs one unit, and
    /// the instance traps with `unreachable` when it runs out.
    pub fuel: u32,
    /// The most pages a memory may have (its declared maximum is required).
    pub max_memory_pages: u64,
    /// The most elements a table may have (its declared maximum is required).
    pub max_table_elements: u64,
    /// The most defined functions.
    pub max_funcs: usize,
    /// The most instructions per function body.
    pub max_instructions: usize,
    /// Whether modules may import functions, globals, memories and tables
    /// (the differential harness provides them).
    pub imports: bool,
    /// Whether modules may use the proposals Weft supports beyond
    /// WebAssembly 2.0 that the reference engine (wasmi) supports too: SIMD
    /// (not relaxed), tail calls, multi-memory, memory64 and extended
    /// constant expressions. Each module enables each of them by chance.
    pub proposals: bool,
    /// Whether modules may use exception handling (tags, `throw`,
    /// `throw_ref`, `try_table`), by chance. wasmi does not support it, so
    /// only the targets without a reference engine turn it on.
    pub exceptions: bool,
    /// Whether modules may use the GC proposal (struct and array types,
    /// subtyping, `i31ref`, casts), by chance. wasmi does not support it:
    /// the differential target runs such modules on two Weft
    /// configurations instead (see [`crate::differential::differential`]).
    /// Engines running them need `Config::wasm_gc`.
    pub gc: bool,
    /// Whether modules may use the threads proposal (shared memories,
    /// atomics, `wait`/`notify`, `atomic.fence`), by chance; like
    /// [`GenOptions::gc`], not supported by wasmi. Engines running them
    /// need `Config::wasm_threads`.
    pub threads: bool,
}

impl GenOptions {
    /// The options of the crash targets: everything Weft supports that
    /// wasm-smith generates, GC and threads included.
    pub fn everything() -> GenOptions {
        GenOptions {
            imports: true,
            exceptions: true,
            gc: true,
            threads: true,
            ..GenOptions::default()
        }
    }
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            fuel: 1000,
            max_memory_pages: 4,
            max_table_elements: 100,
            max_funcs: 20,
            max_instructions: 100,
            imports: true,
            proposals: true,
            exceptions: false,
            gc: false,
            threads: false,
        }
    }
}

/// The wasm-smith configuration for WebAssembly 2.0 without SIMD, with NaNs
/// canonicalized and everything exported; [`generate_module_from`] adds the
/// proposals of [`GenOptions::proposals`] (all within
/// `weft_environ::supported_features`).
// One setting a line reads better here than one long struct expression.
#[allow(
    clippy::field_reassign_with_default,
    reason = "the generator settings read best field by field"
)]
pub fn smith_config(options: &GenOptions) -> wasm_smith::Config {
    let mut c = wasm_smith::Config::default();
    // WebAssembly 2.0 without SIMD.
    c.saturating_float_to_int_enabled = true;
    c.sign_extension_ops_enabled = true;
    c.multi_value_enabled = true;
    c.bulk_memory_enabled = true;
    c.reference_types_enabled = true;
    c.simd_enabled = false;
    c.relaxed_simd_enabled = false;
    c.exceptions_enabled = false;
    c.gc_enabled = false;
    c.memory64_enabled = false;
    c.threads_enabled = false;
    c.shared_everything_threads_enabled = false;
    c.tail_call_enabled = false;
    c.wide_arithmetic_enabled = false;
    c.extended_const_enabled = false;
    c.custom_page_sizes_enabled = false;
    c.compact_imports_enabled = false;
    c.custom_descriptors_enabled = false;
    c.max_memories = 1;
    c.max_tables = 3;
    // Engines may differ in NaN bits; canonicalizing keeps results comparable.
    c.canonicalize_nans = true;
    c.export_everything = true;
    c.allow_start_export = true;
    c.max_imports = if options.imports { 10 } else { 0 };
    // Bounded sizes keep memory snapshots and table walks cheap.
    c.max_memory32_bytes = options.max_memory_pages * 65536;
    c.memory_max_size_required = true;
    c.max_table_elements = options.max_table_elements;
    c.table_max_size_required = true;
    c.min_types = 1;
    c.min_funcs = 1;
    c.max_funcs = options.max_funcs.max(1);
    c.max_instructions = options.max_instructions;
    c.max_globals = 20;
    c.max_types = 20;
    c.max_data_segments = 10;
    c.max_element_segments = 10;
    c.max_elements = 20;
    c.max_exports = 50;
    c.generate_custom_sections = false;
    c
}

/// Generates a module from `data` with wasm-smith and instruments it so
/// every run terminates (see [`GenOptions::fuel`]).
pub fn generate_module(data: &[u8], options: &GenOptions) -> arbitrary::Result<Vec<u8>> {
    let mut u = Unstructured::new(data);
    generate_module_from(&mut u, options)
}

/// Like [`generate_module`], from an existing [`Unstructured`].
///
/// The first bytes pick lower bounds for the numbers of types, functions,
/// globals and segments: wasm-smith's counts are otherwise geometric, and
/// inputs that are not guided by coverage would mostly give empty modules.
pub fn generate_module_from(u: &mut Unstructured<'_>, options: &GenOptions) -> arbitrary::Result<Vec<u8>> {
    let mut config = smith_config(options);
    config.min_types = u.int_in_range(1..=4)?;
    config.min_funcs = u.int_in_range(1..=options.max_funcs.clamp(1, 8))?;
    config.min_globals = u.int_in_range(0..=4)?;
    config.min_memories = u.int_in_range(0..=1)?;
    config.min_tables = u.int_in_range(0..=1)?;
    config.min_data_segments = u.int_in_range(0..=2)?;
    config.min_element_segments = u.int_in_range(0..=2)?;
    // Half of the modules avoid most traps, so calls run longer.
    config.disallow_traps = u.arbitrary()?;
    if options.proposals {
        config.simd_enabled = u.arbitrary()?;
        config.tail_call_enabled = u.arbitrary()?;
        config.extended_const_enabled = u.arbitrary()?;
        config.memory64_enabled = u.arbitrary()?;
        config.max_memories = if u.arbitrary()? { 3 } else { 1 };
        config.max_memory64_bytes = options.max_memory_pages as u128 * 65536;
    }
    if options.exceptions {
        config.exceptions_enabled = u.arbitrary()?;
    }
    if options.gc {
        config.gc_enabled = u.arbitrary()?;
    }
    if options.threads {
        config.threads_enabled = u.arbitrary()?;
    }
    let mut module = wasm_smith::Module::new(config, u)?;
    let fuel_global = module
        .ensure_termination(options.fuel)
        .map_err(|_| arbitrary::Error::IncorrectFormat)?;
    export_global(&module.to_bytes(), fuel_global, FUEL_EXPORT).map_err(|_| arbitrary::Error::IncorrectFormat)
}

/// The name under which generated modules export the global that holds
/// their fuel (see [`GenOptions::fuel`]), so the harness can refill it
/// before each call.
pub const FUEL_EXPORT: &str = "__weft_fuzz_fuel";

/// Adds an export of global `index` named `name` to a module.
pub fn export_global(wasm: &[u8], index: u32, name: &str) -> Result<Vec<u8>, wasmparser::BinaryReaderError> {
    use wasm_encoder::{CustomSection, ExportKind, ExportSection, RawSection};
    use wasmparser::Payload;
    let mut out = wasm_encoder::Module::new();
    let mut exported = false;
    let add_export = |out: &mut wasm_encoder::Module, existing: &[(String, ExportKind, u32)]| {
        let mut section = ExportSection::new();
        for (n, k, i) in existing {
            section.export(n, *k, *i);
        }
        section.export(name, ExportKind::Global, index);
        out.section(&section);
    };
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        let payload = payload?;
        match &payload {
            Payload::ExportSection(reader) => {
                let mut existing = Vec::new();
                for e in reader.clone() {
                    let e = e?;
                    let kind = match e.kind {
                        wasmparser::ExternalKind::Func | wasmparser::ExternalKind::FuncExact => ExportKind::Func,
                        wasmparser::ExternalKind::Table => ExportKind::Table,
                        wasmparser::ExternalKind::Memory => ExportKind::Memory,
                        wasmparser::ExternalKind::Global => ExportKind::Global,
                        wasmparser::ExternalKind::Tag => ExportKind::Tag,
                    };
                    existing.push((e.name.to_string(), kind, e.index));
                }
                add_export(&mut out, &existing);
                exported = true;
            }
            Payload::CustomSection(c) => {
                out.section(&CustomSection {
                    name: c.name().into(),
                    data: c.data().into(),
                });
            }
            _ => {
                if let Some((id, range)) = payload.as_section() {
                    // Sections that come after the export section.
                    if !exported && matches!(id, 8..=12) {
                        add_export(&mut out, &[]);
                        exported = true;
                    }
                    out.section(&RawSection {
                        id,
                        data: &wasm[range.start as usize..range.end as usize],
                    });
                }
            }
        }
    }
    if !exported {
        add_export(&mut out, &[]);
    }
    Ok(out.finish())
}

/// An argument of type `ty`, biased towards edge cases.
pub fn arbitrary_value(rng: &mut Rng, ty: ValueType) -> Value {
    let pick = rng.below(4) == 0;
    match ty {
        ValueType::I32 => {
            const EDGES: &[i32] = &[0, 1, -1, 2, 7, 8, 31, 32, 33, 64, 0xffff, 0x10000, i32::MIN, i32::MAX];
            Value::I32(if pick {
                EDGES[rng.below(EDGES.len() as u64) as usize]
            } else if rng.below(2) == 0 {
                rng.below(256) as i32
            } else {
                rng.next_u64() as i32
            })
        }
        ValueType::I64 => {
            const EDGES: &[i64] = &[
                0,
                1,
                -1,
                63,
                64,
                65,
                i32::MIN as i64,
                i32::MAX as i64,
                i64::MIN,
                i64::MAX,
            ];
            Value::I64(if pick {
                EDGES[rng.below(EDGES.len() as u64) as usize]
            } else if rng.below(2) == 0 {
                rng.below(256) as i64
            } else {
                rng.next_u64() as i64
            })
        }
        ValueType::F32 => {
            const EDGES: &[f32] = &[
                0.0,
                -0.0,
                1.0,
                -1.0,
                0.5,
                -0.5,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                f32::MIN_POSITIVE,
                f32::MAX,
                f32::MIN,
                2147483648.0,
                -2147483904.0,
                4294967296.0,
                9.223372e18,
            ];
            Value::F32(if pick {
                EDGES[rng.below(EDGES.len() as u64) as usize].to_bits()
            } else if rng.below(2) == 0 {
                (rng.below(2000) as f32 - 1000.0).to_bits()
            } else {
                rng.next_u64() as u32
            })
        }
        ValueType::F64 => {
            const EDGES: &[f64] = &[
                0.0,
                -0.0,
                1.0,
                -1.0,
                0.5,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                f64::MIN_POSITIVE,
                f64::MAX,
                f64::MIN,
                2147483648.0,
                -2147483649.0,
                4294967296.0,
                9223372036854775808.0,
                -9223372036854777856.0,
                18446744073709551616.0,
            ];
            Value::F64(if pick {
                EDGES[rng.below(EDGES.len() as u64) as usize].to_bits()
            } else if rng.below(2) == 0 {
                (rng.below(2000) as f64 - 1000.0).to_bits()
            } else {
                rng.next_u64()
            })
        }
        ValueType::V128 => {
            let lanes = [rng.next_u64(), rng.next_u64()];
            Value::V128(if pick {
                0
            } else {
                (lanes[0] as u128) << 64 | lanes[1] as u128
            })
        }
        ValueType::FuncRef => Value::FuncRef(false),
        ValueType::ExternRef => Value::ExternRef(if rng.below(2) == 0 {
            None
        } else {
            Some(rng.below(100) as u32)
        }),
    }
}

/// What the harness needs to know about a module: its function types and
/// exports, in the order they are declared.
#[derive(Debug, Clone, Default)]
pub struct ModuleInfo {
    /// The module's exports in order.
    pub exports: Vec<ExportInfo>,
}

/// One export of a module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportInfo {
    /// The export's name.
    pub name: String,
    /// What is exported.
    pub kind: ExportKind,
}

/// The kind of an export, with a function's signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportKind {
    /// A function with its parameter and result types; `None` when a type
    /// is one the harness cannot express (for example `v128`).
    Func(Option<(Vec<ValueType>, Vec<ValueType>)>),
    /// A global.
    Global,
    /// The global holding the module's fuel ([`FUEL_EXPORT`]).
    Fuel,
    /// A memory.
    Memory,
    /// A table.
    Table,
}

impl ModuleInfo {
    /// Reads the types and exports of a module (which need not be valid:
    /// unreadable parts are skipped).
    pub fn parse(wasm: &[u8]) -> ModuleInfo {
        use wasmparser::{CompositeInnerType, ExternalKind, Payload, TypeRef};
        let mut types: Vec<Option<(Vec<ValueType>, Vec<ValueType>)>> = Vec::new();
        let mut funcs: Vec<u32> = Vec::new();
        let mut raw_exports = Vec::new();
        for payload in wasmparser::Parser::new(0).parse_all(wasm) {
            let Ok(payload) = payload else { break };
            match payload {
                Payload::TypeSection(reader) => {
                    for ty in reader.into_iter_err_on_gc_types().flatten() {
                        let params: Option<Vec<_>> =
                            ty.params().iter().map(|t| ValueType::from_wasmparser(*t)).collect();
                        let results: Option<Vec<_>> =
                            ty.results().iter().map(|t| ValueType::from_wasmparser(*t)).collect();
                        types.push(params.zip(results));
                    }
                    let _ = CompositeInnerType::Func;
                }
                Payload::ImportSection(reader) => {
                    for import in reader.into_imports().flatten() {
                        if let TypeRef::Func(t) = import.ty {
                            funcs.push(t);
                        }
                    }
                }
                Payload::FunctionSection(reader) => funcs.extend(reader.into_iter().flatten()),
                Payload::ExportSection(reader) => {
                    for e in reader.into_iter().flatten() {
                        raw_exports.push((e.name.to_string(), e.kind, e.index));
                    }
                }
                _ => {}
            }
        }
        let exports = raw_exports
            .into_iter()
            .filter_map(|(name, kind, index)| {
                let kind = match kind {
                    ExternalKind::Func | ExternalKind::FuncExact => ExportKind::Func(
                        funcs
                            .get(index as usize)
                            .and_then(|t| types.get(*t as usize))
                            .cloned()
                            .flatten(),
                    ),
                    ExternalKind::Global if name == FUEL_EXPORT => ExportKind::Fuel,
                    ExternalKind::Global => ExportKind::Global,
                    ExternalKind::Memory => ExportKind::Memory,
                    ExternalKind::Table => ExportKind::Table,
                    ExternalKind::Tag => return None,
                };
                Some(ExportInfo { name, kind })
            })
            .collect();
        ModuleInfo { exports }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_features_are_supported_by_weft() {
        let mut config = smith_config(&GenOptions::default());
        config.simd_enabled = true;
        config.tail_call_enabled = true;
        config.extended_const_enabled = true;
        config.memory64_enabled = true;
        config.max_memories = 3;
        let wanted = config.features();
        let supported = weft_environ::supported_features();
        assert!(
            supported.contains(wanted),
            "wasm-smith may generate unsupported features: {:?}",
            wanted.difference(supported)
        );
    }

    #[test]
    fn proposals_are_generated() {
        use wasmparser::WasmFeatures as F;
        let wasm2 = F::WASM2.difference(F::SIMD);
        let mut per_feature = [0; 4];
        let mut rng = Rng::new(5);
        for _ in 0..300 {
            let Ok(wasm) = generate_module(&rng.bytes(4096), &GenOptions::default()) else {
                continue;
            };
            for (i, f) in [F::SIMD, F::TAIL_CALL, F::MEMORY64, F::MULTI_MEMORY]
                .into_iter()
                .enumerate()
            {
                if wasmparser::Validator::new_with_features(wasm2)
                    .validate_all(&wasm)
                    .is_err()
                    && wasmparser::Validator::new_with_features(wasm2 | f)
                        .validate_all(&wasm)
                        .is_ok()
                {
                    per_feature[i] += 1;
                }
            }
        }
        assert!(
            per_feature.iter().all(|n| *n > 0),
            "modules needing SIMD, tail calls, memory64, multi-memory: {per_feature:?}"
        );
    }

    #[test]
    fn fuel_global_is_exported() {
        let wasm = wat::parse_str("(module (global (mut i32) (i32.const 5)) (func) (start 0) (data \"x\") (memory 1))")
            .unwrap();
        let with = export_global(&wasm, 0, FUEL_EXPORT).unwrap();
        wasmparser::Validator::new().validate_all(&with).unwrap();
        assert_eq!(ModuleInfo::parse(&with).exports[0].kind, ExportKind::Fuel);
        let twice = export_global(&with, 0, "again").unwrap();
        assert_eq!(ModuleInfo::parse(&twice).exports.len(), 2);
    }

    #[test]
    fn generated_modules_validate() {
        let mut rng = Rng::new(1);
        let engine = weft::Engine::default();
        // Generation may decline an input (wasm-smith cannot instrument
        // every module for termination); what it produces must validate.
        let mut generated = 0;
        for _ in 0..50 {
            let data = rng.bytes(2048);
            if let Ok(wasm) = generate_module(&data, &GenOptions::default()) {
                weft::Module::validate(&engine, &wasm).unwrap();
                generated += 1;
            }
        }
        assert!(generated >= 25, "only {generated} of 50 inputs gave a module");
    }
}

#[cfg(test)]
mod exception_tests {
    use super::*;

    /// With [`GenOptions::exceptions`], some modules throw and catch, and
    /// Weft compiles every one of them.
    #[test]
    fn exceptions_are_generated_and_compile() {
        let engine = weft::Engine::default();
        let options = GenOptions {
            exceptions: true,
            ..GenOptions::default()
        };
        let mut rng = Rng::new(9);
        let mut with_exceptions = 0;
        for _ in 0..200 {
            let Ok(wasm) = generate_module(&rng.bytes(4096), &options) else {
                continue;
            };
            let uses_exceptions = wasmparser::Validator::new_with_features(
                weft_environ::supported_features().difference(wasmparser::WasmFeatures::EXCEPTIONS),
            )
            .validate_all(&wasm)
            .is_err();
            if uses_exceptions {
                with_exceptions += 1;
            }
            weft::Module::new(&engine, &wasm).expect("weft compiles the generated module");
        }
        assert!(
            with_exceptions >= 10,
            "only {with_exceptions} of 200 modules use exceptions"
        );
    }
}

#[cfg(test)]
mod gc_and_threads_tests {
    use super::*;

    /// With [`GenOptions::gc`] and [`GenOptions::threads`], some modules use
    /// each proposal, and Weft (with both on) compiles every module.
    #[test]
    fn gc_and_threads_are_generated_and_compile() {
        use wasmparser::WasmFeatures as F;
        let engine = weft::Engine::new(&crate::runtimes::fuzz_config()).unwrap();
        let options = GenOptions {
            gc: true,
            threads: true,
            ..GenOptions::default()
        };
        let all = weft_environ::supported_features();
        let needs = |wasm: &[u8], f: F| {
            wasmparser::Validator::new_with_features(all.difference(f))
                .validate_all(wasm)
                .is_err()
        };
        let mut rng = Rng::new(11);
        let (mut gc, mut threads) = (0, 0);
        for _ in 0..200 {
            let Ok(wasm) = generate_module(&rng.bytes(4096), &options) else {
                continue;
            };
            gc += needs(&wasm, F::GC) as u32;
            threads += needs(&wasm, F::THREADS) as u32;
            weft::Module::new(&engine, &wasm).expect("weft compiles the generated module");
        }
        assert!(gc >= 10, "only {gc} of 200 modules use GC");
        assert!(threads >= 10, "only {threads} of 200 modules use threads");
    }
}

//! Compiled modules.

use crate::types::{ExportType, ExternType, FuncType, GlobalType, ImportType, MemoryType, TableType, TagType};
use crate::Engine;
use std::path::Path;
use std::sync::{Arc, OnceLock};
use weft_environ::{
    CompiledModule, EngineOrModuleTypeIndex, FunctionLoc, ModuleTranslation, WasmFuncType, WasmSubType, WasmValType,
};
use weft_runtime::{CodeMemory, CodePtr, MemoryImage, TrapTable};
use weft_types::VMSharedTypeIndex;

/// A compiled WebAssembly module, ready to be instantiated. Cheap to clone and
/// shareable across threads.
#[derive(Clone)]
pub struct Module {
    pub(crate) inner: Arc<ModuleInner>,
}

pub(crate) struct ModuleInner {
    pub(crate) engine: Engine,
    pub(crate) env: Arc<weft_environ::Module>,
    pub(crate) code: CodeMemory,
    /// Entry of each defined function.
    pub(crate) func_code: Vec<CodePtr>,
    /// Offset and length of each defined function in the code.
    pub(crate) func_ranges: Vec<(usize, usize)>,
    /// Code offsets to offsets in the binary, for backtraces.
    pub(crate) address_map: AddressMap,
    /// Offset in the binary of each defined function's body.
    pub(crate) func_starts: Vec<u32>,
    /// Array-call trampoline of each module type, if a function the host
    /// may call has that type.
    pub(crate) array_trampolines: Vec<Option<CodePtr>>,
    /// Canonical id of each module type.
    pub(crate) type_ids: Vec<VMSharedTypeIndex>,
    pub(crate) raw_type_ids: Vec<u32>,
    /// The kind and supertype display of each type, by engine id, when the
    /// module has GC types (registered in each store it is instantiated in,
    /// for casts).
    pub(crate) gc_types: Vec<(u32, weft_runtime::gc::GcTypeInfo)>,
    /// Copy-on-write images of the defined memories' initial contents, made
    /// with the module (see `weft_runtime::MemoryImage`).
    pub(crate) memory_images: OnceLock<Vec<Option<MemoryImage>>>,
    /// The function type of each module type, made once with the module and
    /// shared by the functions of every instance (their store entries name
    /// these by index: `crate::func::FuncTy`).
    pub(crate) func_types: OnceLock<Vec<Arc<FuncType>>>,
}

/// A module's address map: `(code offset, wasm offset)` records of two
/// little-endian `u32`s, sorted by code offset (the instruction at a code
/// offset belongs to the wasm operator of the last record at or before
/// it). Kept in the form precompiled bytes carry it, so that loading them
/// decodes nothing (and from a file copies nothing); a lookup in a corrupt
/// map only finds a wrong offset for a backtrace.
pub(crate) enum AddressMap {
    /// In memory of its own.
    Owned(Box<[u8]>),
    /// At this range of the precompiled file the module's code was loaded
    /// from (`CodeMemory::file_bytes`), where it is read.
    InFile(std::ops::Range<usize>),
}

impl AddressMap {
    /// The map of `pairs`, sorted by code offset.
    fn from_pairs(pairs: &[(u32, u32)]) -> AddressMap {
        AddressMap::Owned(
            pairs
                .iter()
                .flat_map(|(c, w)| [c.to_le_bytes(), w.to_le_bytes()])
                .flatten()
                .collect(),
        )
    }

    /// The records, given the module's `code`.
    fn records<'a>(&'a self, code: &'a CodeMemory) -> Records<'a> {
        let bytes: &[u8] = match self {
            AddressMap::Owned(bytes) => bytes,
            AddressMap::InFile(range) => code.file_bytes().and_then(|b| b.get(range.clone())).unwrap_or_default(),
        };
        Records(bytes.as_chunks().0)
    }
}

/// The records of an [`AddressMap`] (a trailing partial record is never
/// read).
struct Records<'a>(&'a [[u8; 8]]);

/// An address map record as `(code offset, wasm offset)`.
fn address_record(record: &[u8; 8]) -> (u32, u32) {
    let [a, b, c, d, e, f, g, h] = *record;
    (u32::from_le_bytes([a, b, c, d]), u32::from_le_bytes([e, f, g, h]))
}

impl Records<'_> {
    /// Every record, in order.
    fn pairs(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.0.iter().map(address_record)
    }

    /// The last record at or before code offset `offset`.
    fn at(&self, offset: u32) -> Option<(u32, u32)> {
        // The number of records at or before `offset`.
        let n = self.0.partition_point(|r| address_record(r).0 <= offset);
        Some(address_record(self.0.get(n.checked_sub(1)?)?))
    }
}

/// The code of a module in a mapped precompiled file: `[start, start +
/// len)` of `file`.
struct MappedCode {
    file: weft_runtime::MappedFile,
    start: usize,
    len: usize,
    /// The trap table (in the file).
    traps: TrapTable,
    /// The memory images, mapped from the file, if they can be.
    images: Option<Vec<Option<MemoryImage>>>,
}

impl ModuleInner {
    /// The function types of the module's types, made on first use.
    pub(crate) fn func_types(&self, module: &Module) -> &[Arc<FuncType>] {
        self.func_types.get_or_init(|| {
            (0..self.type_ids.len() as u32)
                .map(|i| Arc::new(module.func_type(i)))
                .collect()
        })
    }

    /// The memory images, made on first use.
    pub(crate) fn memory_images(&self) -> &[Option<MemoryImage>] {
        self.memory_images.get_or_init(|| MemoryImage::for_module(&self.env))
    }
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("name", &self.name())
            .finish_non_exhaustive()
    }
}

impl Drop for ModuleInner {
    fn drop(&mut self) {
        for id in &self.type_ids {
            self.engine.inner.types.release(*id);
        }
    }
}

impl Module {
    /// Compiles a module from its binary or, with the `wat` feature, its
    /// text format.
    pub fn new(engine: &Engine, bytes: impl AsRef<[u8]>) -> crate::Result<Module> {
        let bytes = bytes.as_ref();
        #[cfg(feature = "wat")]
        let bytes = &*wat::parse_bytes(bytes)?;
        Module::from_binary(engine, bytes)
    }

    /// Compiles the module in the file at `path` (binary or text).
    pub fn from_file(engine: &Engine, path: impl AsRef<Path>) -> crate::Result<Module> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| crate::format_err!("failed to read `{}`: {e}", path.display()))?;
        Module::new(engine, bytes).map_err(|e| e.context(format!("failed to compile `{}`", path.display())))
    }

    /// Compiles a module from its binary format.
    pub fn from_binary(engine: &Engine, binary: &[u8]) -> crate::Result<Module> {
        let (translation, compiled) = engine.translate_and_compile(binary)?;
        Module::from_translation(engine, translation, compiled)
    }

    /// Checks that `binary` is a valid module for this engine without
    /// compiling it.
    pub fn validate(engine: &Engine, binary: &[u8]) -> crate::Result<()> {
        weft_environ::translate_module(binary, engine.inner.config.features)?;
        Ok(())
    }

    /// The module in precompiled form, for [`Module::deserialize`] by an
    /// engine of the same Weft version and configuration on the same kind
    /// of CPU (as [`Engine::precompile_module`] makes it).
    pub fn serialize(&self) -> crate::Result<Vec<u8>> {
        let inner = &self.inner;
        let start = inner.code.range().0;
        let compiled = CompiledModule {
            code: inner.code.code().into(),
            funcs: inner
                .func_ranges
                .iter()
                .map(|(o, l)| FunctionLoc {
                    offset: *o as u32,
                    len: *l as u32,
                })
                .collect(),
            array_trampolines: inner
                .array_trampolines
                .iter()
                .map(|p| p.map_or(weft_environ::NO_TRAMPOLINE, |p| (p.addr() - start) as u32))
                .collect(),
            traps: inner.code.traps(),
            address_map: inner.address_map.records(&inner.code).pairs().collect(),
            stack_maps: inner.code.stack_maps().to_vec(),
            exception_handlers: inner.code.exception_handlers().to_vec(),
        };
        crate::serialize::write(&inner.engine.inner.config, &inner.env, &inner.func_starts, &compiled)
    }

    /// A module from the bytes of [`Module::serialize`] or
    /// [`Engine::precompile_module`], without compiling: the code is mapped
    /// as it was written, and the module's declarations are read as they
    /// were translated when it was compiled (nothing is parsed or validated
    /// again). Fails with a clear error when the bytes were made by
    /// another Weft version, for another CPU, with a WebAssembly feature
    /// `engine` does not enable, or with another code-changing
    /// configuration (fuel, epochs, ...). As in Wasmtime, code compiled with
    /// fewer features than `engine` enables loads.
    ///
    /// # Safety
    ///
    /// The bytes are trusted to hold code made by Weft: the checks above
    /// catch accidents (a stale or truncated file), not malice. Bytes from
    /// an untrusted source, or altered after they were written, can make
    /// the mapped code do anything the process may do. Pass only bytes made
    /// by `serialize` or `precompile_module` and kept where no one else can
    /// change them. (As Wasmtime's `Module::deserialize`; this function
    /// itself uses no `unsafe` code: the contract is what is unsafe.)
    #[allow(
        unsafe_code,
        reason = "Module::deserialize is unsafe, as in Wasmtime: it trusts the bytes to be Weft's output"
    )]
    pub unsafe fn deserialize(engine: &Engine, bytes: impl AsRef<[u8]>) -> crate::Result<Module> {
        Module::from_precompiled(engine, bytes.as_ref())
    }

    /// [`Module::deserialize`] of the contents of the file at `path`.
    ///
    /// # Safety
    ///
    /// As for [`Module::deserialize`]: the file must have been written by
    /// Weft and kept where no one else can change it.
    #[allow(
        unsafe_code,
        reason = "Module::deserialize_file is unsafe, as in Wasmtime: it trusts the file to be Weft's output"
    )]
    pub unsafe fn deserialize_file(engine: &Engine, path: impl AsRef<Path>) -> crate::Result<Module> {
        let path = path.as_ref();
        let failed = |e: crate::Error| e.context(format!("failed to load the precompiled module `{}`", path.display()));
        let file =
            std::fs::File::open(path).map_err(|e| crate::format_err!("failed to read `{}`: {e}", path.display()))?;
        // Mapped, so that the code runs where it lies in the file; read
        // into memory where the file cannot be mapped.
        let Ok(map) = weft_runtime::MappedFile::map(file) else {
            let bytes =
                std::fs::read(path).map_err(|e| crate::format_err!("failed to read `{}`: {e}", path.display()))?;
            return Module::from_precompiled(engine, &bytes).map_err(failed);
        };
        let crate::serialize::Precompiled {
            env,
            func_starts,
            compiled,
            code_offset,
            images,
            traps,
            address_map: written_map,
        } = crate::serialize::read(&engine.inner.config, map.bytes()).map_err(failed)?;
        // The trap table and the address map are read where they lie.
        let in_file = |table: &[u8]| {
            let start = crate::serialize::offset_in(map.bytes(), table);
            start..start + table.len()
        };
        let trap_table = TrapTable::InFile(in_file(traps));
        let written_map = AddressMap::InFile(in_file(written_map));
        // The memory images are mapped from the file itself; all of them,
        // or (where the host's pages do not divide their alignment) none.
        let images = images
            .iter()
            .map(|image| match image {
                None => Some(None),
                Some(i) => MemoryImage::from_file(map.file(), i.at as u64, i.offset, i.len).map(Some),
            })
            .collect::<Option<Vec<_>>>();
        let CompiledModule {
            code,
            funcs,
            array_trampolines,
            traps,
            address_map,
            stack_maps,
            exception_handlers,
        } = compiled;
        let mapped = MappedCode {
            start: code_offset,
            len: code.len(),
            file: map,
            traps: trap_table,
            images,
        };
        let compiled = CompiledModule {
            code: Default::default(),
            funcs,
            array_trampolines,
            traps,
            address_map,
            stack_maps,
            exception_handlers,
        };
        Module::from_compiled(engine, env, func_starts, compiled, written_map, Some(mapped))
    }

    /// A module from the bytes of [`Module::serialize`] in memory (those
    /// of `deserialize`, or a core module of a precompiled component).
    pub(crate) fn from_precompiled(engine: &Engine, bytes: &[u8]) -> crate::Result<Module> {
        let mut read = crate::serialize::read(&engine.inner.config, bytes)?;
        read.compiled.traps = crate::serialize::decode_traps(read.traps, read.compiled.code.len())?;
        Module::from_compiled(
            engine,
            read.env,
            read.func_starts,
            read.compiled,
            AddressMap::Owned(read.address_map.into()),
            None,
        )
    }

    #[cfg(feature = "component-model")]
    pub(crate) fn compile_translation(engine: &Engine, translation: ModuleTranslation<'_>) -> crate::Result<Module> {
        let compiled = engine.compile_module(&translation)?;
        Module::from_translation(engine, translation, compiled)
    }

    /// A module from its translation and the code compiled from it.
    fn from_translation(
        engine: &Engine,
        translation: ModuleTranslation<'_>,
        compiled: CompiledModule<'_>,
    ) -> crate::Result<Module> {
        let func_starts = translation.func_starts();
        let address_map = AddressMap::from_pairs(&compiled.address_map);
        Module::from_compiled(engine, translation.module, func_starts, compiled, address_map, None)
    }

    /// A module from its translation `env`, the offset in its binary of each
    /// defined function's body, and its compiled (or deserialized) code:
    /// `compiled.code`, or, when `mapped` is given, the code in a mapped
    /// precompiled file.
    fn from_compiled(
        engine: &Engine,
        env: weft_environ::Module,
        func_starts: Vec<u32>,
        compiled: CompiledModule<'_>,
        address_map: AddressMap,
        mapped: Option<MappedCode>,
    ) -> crate::Result<Module> {
        let env_ref = &env;
        // With the pooling allocator, a module that could never be
        // instantiated is refused now, as in Wasmtime.
        if let Some(pool) = &engine.inner.instance_pool {
            pool.check_module(env_ref, weft_environ::VMOffsets::new(env_ref).size() as usize)
                .map_err(|e| e.context("the module does not fit the pooling allocator's limits"))?;
        }
        if env_ref.num_imported_funcs as usize > env_ref.functions.len()
            || compiled.funcs.len() != env_ref.num_defined_funcs() as usize
            || func_starts.len() != compiled.funcs.len()
            || compiled.array_trampolines.len() != env_ref.types.len()
        {
            crate::bail!("the compiled code does not match the module");
        }
        let (code, images) = match mapped {
            None => (
                CodeMemory::new_with_stack_maps(
                    &compiled.code,
                    compiled.traps,
                    compiled.stack_maps,
                    compiled.exception_handlers,
                )?,
                None,
            ),
            Some(m) => (
                CodeMemory::from_mapped_file(
                    m.file,
                    m.start,
                    m.len,
                    m.traps,
                    compiled.stack_maps,
                    compiled.exception_handlers,
                )?,
                m.images,
            ),
        };
        let func_code = compiled.funcs.iter().map(|loc| code.ptr_at(loc.offset)).collect();
        let func_ranges = compiled
            .funcs
            .iter()
            .map(|loc| (loc.offset as usize, loc.len as usize))
            .collect();
        let array_trampolines = compiled
            .array_trampolines
            .iter()
            .map(|offset| (*offset != weft_environ::NO_TRAMPOLINE).then(|| code.ptr_at(*offset)))
            .collect();
        // Register the types in order: a type may only refer to the types
        // before it (or, recursively, to itself).
        let mut type_ids: Vec<VMSharedTypeIndex> = Vec::with_capacity(env.types.len());
        let mut groups = env.rec_groups.iter().peekable();
        if env.has_gc_types() {
            // GC types: every group (implicit ones too) is registered as a
            // whole with its `final` flags and supertypes.
            for group in &env.all_rec_groups {
                let members: Vec<WasmSubType> = env.sub_types[group.start as usize..group.end as usize]
                    .iter()
                    .map(|ty| {
                        ty.map_index(|index| match index {
                            EngineOrModuleTypeIndex::Module(j) if group.contains(&j) => {
                                EngineOrModuleTypeIndex::RecGroup(j - group.start)
                            }
                            other => canonical_index(&type_ids, other, None),
                        })
                    })
                    .collect();
                type_ids.extend(engine.inner.types.register_sub_group(&members));
            }
        }
        while type_ids.len() < env.types.len() {
            let i = type_ids.len();
            match groups.next_if(|g| g.start as usize == i) {
                Some(group) => {
                    // An explicit recursion group: registered as a whole,
                    // its members naming each other by position.
                    let members: Vec<WasmFuncType> = env.types[group.start as usize..group.end as usize]
                        .iter()
                        .map(|ty| {
                            ty.map_index(|index| match index {
                                EngineOrModuleTypeIndex::Module(j) if group.contains(&j) => {
                                    EngineOrModuleTypeIndex::RecGroup(j - group.start)
                                }
                                other => canonical_index(&type_ids, other, None),
                            })
                        })
                        .collect();
                    type_ids.extend(engine.inner.types.register_group(&members));
                }
                None => {
                    let canonical = env.types[i].map_index(|index| canonical_index(&type_ids, index, Some(i)));
                    type_ids.push(engine.inner.types.register(&canonical));
                }
            }
        }
        let raw_type_ids = type_ids.iter().map(|t| t.0).collect();
        // What the casts of a store need to know of the module's GC types.
        let gc_types = if env.has_gc_types() {
            type_ids
                .iter()
                .zip(&env.sub_types)
                .map(|(id, ty)| {
                    let display = engine.inner.types.supertypes(*id).unwrap_or_default();
                    let info = weft_runtime::gc::GcTypeInfo::new(ty, display.iter().map(|t| t.0).collect());
                    (id.0, info)
                })
                .collect()
        } else {
            Vec::new()
        };
        let module = Module {
            inner: Arc::new(ModuleInner {
                engine: engine.clone(),
                env: Arc::new(env),
                code,
                func_code,
                func_ranges,
                address_map,
                func_starts,
                array_trampolines,
                type_ids,
                raw_type_ids,
                gc_types,
                memory_images: images.map(OnceLock::from).unwrap_or_default(),
                func_types: OnceLock::new(),
            }),
        };
        // Made here rather than at the first instantiation, so that every
        // instantiation costs the same: the memory images and the shared
        // function types.
        module.inner.memory_images();
        module.inner.func_types(&module);
        Ok(module)
    }

    /// The engine this module was compiled for.
    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// The module's name from its name section.
    pub fn name(&self) -> Option<&str> {
        self.inner.env.name.as_deref()
    }

    /// The imports, in order.
    pub fn imports(&self) -> impl ExactSizeIterator<Item = ImportType<'_>> + '_ {
        let env = &self.inner.env;
        env.imports.iter().map(move |i| ImportType {
            module: &i.module,
            name: &i.field,
            ty: self.extern_type(&env.entity_type(i.index)),
        })
    }

    /// The exports, in order.
    pub fn exports(&self) -> impl ExactSizeIterator<Item = ExportType<'_>> + '_ {
        let env = &self.inner.env;
        env.exports.iter().map(move |e| ExportType {
            name: &e.name,
            ty: self.extern_type(&env.entity_type(e.index)),
        })
    }

    /// The type of the export `name`, if any.
    pub fn get_export(&self, name: &str) -> Option<ExternType> {
        let env = &self.inner.env;
        env.export(name).map(|i| self.extern_type(&env.entity_type(i)))
    }

    /// The type of an entity of the module, with the module's type indices
    /// mapped to the engine's canonical types.
    pub(crate) fn extern_type(&self, ty: &weft_environ::EntityType) -> ExternType {
        let engine = self.engine();
        match ty {
            weft_environ::EntityType::Function(i) => ExternType::Func(self.func_type(*i)),
            weft_environ::EntityType::Table(t) => {
                ExternType::Table(TableType::from_wasm(engine, &self.canonical_table(t)))
            }
            weft_environ::EntityType::Memory(m) => ExternType::Memory(MemoryType::from_wasm(m)),
            weft_environ::EntityType::Global(g) => {
                ExternType::Global(GlobalType::from_wasm(engine, &self.canonical_global(g)))
            }
            weft_environ::EntityType::Tag(i) => ExternType::Tag(TagType::new(self.func_type(*i))),
        }
    }

    /// The canonical type of function type `index` of the module.
    pub(crate) fn func_type(&self, index: u32) -> FuncType {
        let engine = &self.inner.engine;
        self.inner
            .type_ids
            .get(index as usize)
            .and_then(|id| FuncType::from_shared_index(engine, *id))
            .unwrap_or_else(|| FuncType::new(engine, [], []))
    }

    /// `ty` with the module's type indices replaced by canonical ids.
    pub(crate) fn canonical_val_type(&self, ty: WasmValType) -> WasmValType {
        ty.map_index(&mut |index| canonical_index(&self.inner.type_ids, index, None))
    }

    /// A global type of the module, canonicalized.
    pub(crate) fn canonical_global(&self, g: &weft_environ::Global) -> weft_environ::Global {
        weft_environ::Global {
            ty: self.canonical_val_type(g.ty),
            mutable: g.mutable,
        }
    }

    /// A table type of the module, canonicalized.
    pub(crate) fn canonical_table(&self, t: &weft_environ::Table) -> weft_environ::Table {
        let element = match self.canonical_val_type(WasmValType::Ref(t.element)) {
            WasmValType::Ref(r) => r,
            _ => t.element,
        };
        weft_environ::Table { element, ..*t }
    }

    /// The frame of the defined function whose code contains `pc`: its
    /// function index, the offset in the binary of the wasm operator at
    /// `pc`, and the offset of the function's body.
    pub(crate) fn frame_at_pc(&self, pc: usize) -> Option<(u32, Option<u32>, Option<u32>)> {
        let index = self.func_at_pc(pc)?;
        let defined = (index - self.inner.env.num_imported_funcs) as usize;
        let (start, _) = self.inner.code.range();
        let offset = u32::try_from(pc - start).ok()?;
        let (func_offset, _) = self.inner.func_ranges.get(defined).copied()?;
        let wasm = self
            .inner
            .address_map
            .records(&self.inner.code)
            .at(offset)
            .filter(|(o, _)| *o as usize >= func_offset)
            .map(|(_, w)| w);
        Some((index, wasm, self.inner.func_starts.get(defined).copied()))
    }

    /// The defined function whose code contains `pc`, as a function index.
    pub(crate) fn func_at_pc(&self, pc: usize) -> Option<u32> {
        let (start, end) = self.inner.code.range();
        if pc < start || pc >= end {
            return None;
        }
        let offset = pc - start;
        let i = self
            .inner
            .func_ranges
            .partition_point(|(o, _)| *o <= offset)
            .checked_sub(1)?;
        let (o, len) = self.inner.func_ranges[i];
        (offset < o + len).then_some(self.inner.env.num_imported_funcs + i as u32)
    }
}

/// The canonical form of a type index of a module whose first types have the
/// canonical ids `ids`: the engine id of an earlier type, `RecSelf` for the
/// type being registered (`current`) itself.
fn canonical_index(
    ids: &[VMSharedTypeIndex],
    index: EngineOrModuleTypeIndex,
    current: Option<usize>,
) -> EngineOrModuleTypeIndex {
    match index {
        EngineOrModuleTypeIndex::Module(i) => match ids.get(i as usize) {
            Some(id) => EngineOrModuleTypeIndex::Engine(id.0),
            None if Some(i as usize) == current => EngineOrModuleTypeIndex::RecSelf,
            None => index,
        },
        other => other,
    }
}

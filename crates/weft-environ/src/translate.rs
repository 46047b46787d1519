//! Validation and translation of a module's bytes into a [`ModuleTranslation`].

use crate::error::TranslateError;
use crate::gc_types::*;
use crate::module::*;
use crate::types::*;
use wasmparser::{
    ExternalKind, FuncToValidate, FuncValidator, FuncValidatorAllocations, FunctionBody, KnownCustom, Name, Parser,
    Payload, TypeRef, ValidPayload, Validator, ValidatorResources, WasmFeatures,
};

/// A module and the bodies of its defined functions, borrowed from the input.
pub struct ModuleTranslation<'a> {
    /// Everything but the function bodies.
    pub module: Module,
    /// The bodies of the defined functions, in order.
    pub function_bodies: Vec<FunctionBody<'a>>,
    /// From [`translate_module_deferring_bodies`]: what validates each
    /// body, in the same order ([`ModuleTranslation::validate_body`],
    /// [`ModuleTranslation::with_body_validator`]).
    /// Empty when the bodies were validated during translation.
    pub body_validators: Vec<FuncToValidate<ValidatorResources>>,
}

impl ModuleTranslation<'_> {
    /// The offset in the binary of each defined function's body, in order
    /// (what backtraces count a function's wasm offsets from).
    pub fn func_starts(&self) -> Vec<u32> {
        self.function_bodies
            .iter()
            .map(|b| u32::try_from(b.range().start).unwrap_or(u32::MAX))
            .collect()
    }

    /// Validates the body of defined function `index` if the translation
    /// deferred it ([`translate_module_deferring_bodies`]); does nothing
    /// otherwise. Safe to call from several threads at once, for different
    /// or the same bodies.
    pub fn validate_body(&self, index: usize) -> Result<(), TranslateError> {
        let Some(body) = self.function_bodies.get(index) else {
            return Ok(());
        };
        self.with_body_validator(index, |validator| match validator {
            Some(validator) => validator.validate(body),
            None => Ok(()),
        })?;
        Ok(())
    }

    /// Calls `f` with the validator of the body of defined function
    /// `index` if the translation deferred its validation
    /// ([`translate_module_deferring_bodies`]), or with `None` otherwise.
    ///
    /// For a compiler that validates a body as it reads it, so that the
    /// body is decoded once: `f` defines the locals
    /// (`FuncValidator::define_locals`) and checks each operator
    /// (`FuncValidator::op`) before it uses them, and reads the operators
    /// with the validator's features, as `FuncValidator::validate` does. A
    /// validator is not `Sync`: each call makes its own, reusing the
    /// allocations its thread kept from the last body. Safe to call from
    /// several threads at once.
    pub fn with_body_validator<R>(
        &self,
        index: usize,
        f: impl FnOnce(Option<&mut FuncValidator<ValidatorResources>>) -> R,
    ) -> R {
        let Some(func) = self.body_validators.get(index) else {
            return f(None);
        };
        let func = FuncToValidate {
            resources: func.resources.clone(),
            index: func.index,
            ty: func.ty,
            features: func.features,
        };
        // Each thread keeps the validator's allocations for its next body,
        // as `translate_with` does for the bodies it validates.
        thread_local! {
            static ALLOCATIONS: std::cell::Cell<FuncValidatorAllocations> = std::cell::Cell::default();
        }
        let mut validator = func.into_validator(ALLOCATIONS.take());
        let result = f(Some(&mut validator));
        ALLOCATIONS.set(validator.into_allocations());
        result
    }
}

fn unsupported(message: impl Into<String>, offset: u64) -> TranslateError {
    TranslateError {
        message: message.into(),
        offset,
    }
}

/// Validates `wasm` with the given features and translates it.
///
/// Every function body is validated as well, so later stages may assume a
/// valid module. Constant expressions may read immutable globals defined
/// earlier in the module (WebAssembly 3.0), which `wasmparser` only accepts
/// with its GC feature (as explicit recursion groups): a module whose
/// validation fails on one of those constructs is validated again with it
/// and then checked to use nothing else of GC (see `gc_check.rs`).
pub fn translate_module(wasm: &[u8], features: WasmFeatures) -> Result<ModuleTranslation<'_>, TranslateError> {
    translate_checked(wasm, features, Deferral::Validate)
}

/// Translates `wasm` validating its sections but not its function bodies.
///
/// For a module whose bodies were validated before, when it was compiled
/// (a precompiled module being read back): the bodies are only carried
/// along, never compiled again, so validating them once more would be
/// wasted work. Later stages must not compile bodies from this
/// translation unless they trust them.
pub fn translate_module_trusting_bodies(
    wasm: &[u8],
    features: WasmFeatures,
) -> Result<ModuleTranslation<'_>, TranslateError> {
    translate_checked(wasm, features, Deferral::Trust)
}

/// [`translate_module`], but the function bodies are left for the caller to
/// validate, each with [`ModuleTranslation::validate_body`] before it uses
/// the body, or as it reads it with
/// [`ModuleTranslation::with_body_validator`]: a compiler validates them on
/// the threads that compile them, rather than all on this one first.
///
/// A body that fails there may still belong to a module that
/// [`translate_module`] accepts (see its GC note) or rejects with another
/// error: after such a failure, translate the module again with
/// [`translate_module`] for the error to report, or the translation to use.
/// When the rest of the module fails here, this returns what
/// [`translate_module`] returns.
pub fn translate_module_deferring_bodies(
    wasm: &[u8],
    features: WasmFeatures,
) -> Result<ModuleTranslation<'_>, TranslateError> {
    match translate_with(wasm, features, Deferral::Defer, features.contains(WasmFeatures::GC)) {
        Ok(translation) => Ok(translation),
        Err(_) => translate_module(wasm, features),
    }
}

/// What [`translate_with`] does with the function bodies.
#[derive(Clone, Copy, PartialEq)]
enum Deferral {
    /// Validates each one.
    Validate,
    /// Trusts them (see [`translate_module_trusting_bodies`]).
    Trust,
    /// Keeps what validates them (see
    /// [`translate_module_deferring_bodies`]).
    Defer,
}

fn translate_checked(
    wasm: &[u8],
    features: WasmFeatures,
    validate_bodies: Deferral,
) -> Result<ModuleTranslation<'_>, TranslateError> {
    match translate_with(wasm, features, validate_bodies, features.contains(WasmFeatures::GC)) {
        Err(e)
            if !features.contains(WasmFeatures::GC)
                && features.contains(WasmFeatures::FUNCTION_REFERENCES)
                && crate::gc_check::is_gc_only_construct(wasm, e.offset) =>
        {
            // Validated with GC, but GC types stay rejected.
            let translation = translate_with(wasm, features | WasmFeatures::GC, validate_bodies, false)?;
            if validate_bodies == Deferral::Validate {
                for body in &translation.function_bodies {
                    crate::gc_check::check_body(body)?;
                }
            }
            Ok(translation)
        }
        result => result,
    }
}

/// `allow_gc`: whether GC types (struct and array types, subtypes) may be
/// declared (only when the GC proposal is enabled, not when validation
/// falls back to GC for the constructs of `gc_check.rs`).
fn translate_with(
    wasm: &[u8],
    features: WasmFeatures,
    bodies: Deferral,
    allow_gc: bool,
) -> Result<ModuleTranslation<'_>, TranslateError> {
    let mut validator = Validator::new_with_features(features);
    let mut module = Module::default();
    let mut function_bodies = Vec::new();
    let mut body_validators = Vec::new();
    let mut allocs = FuncValidatorAllocations::default();
    let mut end_offset = 0;

    for payload in Parser::new(0).parse_all(wasm) {
        let payload = payload?;
        end_offset = payload_end(&payload).unwrap_or(end_offset);
        match validator.payload(&payload)? {
            ValidPayload::Ok | ValidPayload::Parser(_) | ValidPayload::End(_) => {}
            ValidPayload::Func(func, body) => {
                match bodies {
                    Deferral::Validate => {
                        let mut v = func.into_validator(std::mem::take(&mut allocs));
                        v.validate(&body)?;
                        allocs = v.into_allocations();
                    }
                    Deferral::Trust => {}
                    Deferral::Defer => body_validators.push(func),
                }
                function_bodies.push(body);
                continue;
            }
        }
        translate_payload(&mut module, payload, allow_gc)?;
    }
    let _ = end_offset;
    if module.has_gc_types() {
        resolve_module_refs(&mut module);
    }
    Ok(ModuleTranslation {
        module,
        function_bodies,
        body_validators,
    })
}

fn payload_end(payload: &Payload<'_>) -> Option<u64> {
    payload.as_section().map(|(_, range)| range.end)
}

fn translate_payload(module: &mut Module, payload: Payload<'_>, allow_gc: bool) -> Result<(), TranslateError> {
    match payload {
        Payload::TypeSection(reader) => {
            let gc = allow_gc;
            for rec_group in reader.into_iter_with_offsets() {
                let (offset, rec_group) = rec_group?;
                let start = module.types.len() as u32;
                let explicit = rec_group.is_explicit_rec_group();
                for sub in rec_group.into_types() {
                    let sub = convert_sub_type(&sub, gc).map_err(|e| unsupported(e, offset))?;
                    module.types.push(sub.as_func().cloned().unwrap_or_default());
                    module.sub_types.push(sub);
                }
                let end = module.types.len() as u32;
                // Concrete references are read as function types; now that
                // the kinds of the group's types are known, resolve them.
                for i in start..end {
                    let resolved = module.sub_types[i as usize].map_index(|i| i);
                    let mut resolved = resolve_sub_type(module, &resolved);
                    place_descriptor(module, &mut resolved);
                    if let Some(f) = resolved.as_func() {
                        module.types[i as usize] = f.clone();
                    }
                    module.sub_types[i as usize] = resolved;
                }
                if explicit && end - start > 1 {
                    module.rec_groups.push(start..end);
                }
                module.all_rec_groups.push(start..end);
            }
        }
        Payload::ImportSection(reader) => {
            let offset = reader.range().start;
            for import in reader.into_imports() {
                let import = import?;
                let index = match import.ty {
                    TypeRef::Func(ty) | TypeRef::FuncExact(ty) => {
                        if let TypeRef::FuncExact(_) = import.ty {
                            module.exact_func_imports.push(module.functions.len() as u32);
                        }
                        module.functions.push(ty);
                        module.num_imported_funcs += 1;
                        EntityIndex::Function(module.functions.len() as u32 - 1)
                    }
                    TypeRef::Table(t) => {
                        module
                            .tables
                            .push(convert_table(t).map_err(|e| unsupported(e, offset))?);
                        module.num_imported_tables += 1;
                        EntityIndex::Table(module.tables.len() as u32 - 1)
                    }
                    TypeRef::Memory(m) => {
                        module
                            .memories
                            .push(convert_memory(m).map_err(|e| unsupported(e, offset))?);
                        module.num_imported_memories += 1;
                        EntityIndex::Memory(module.memories.len() as u32 - 1)
                    }
                    TypeRef::Global(g) => {
                        module
                            .globals
                            .push(convert_global(g).map_err(|e| unsupported(e, offset))?);
                        module.num_imported_globals += 1;
                        EntityIndex::Global(module.globals.len() as u32 - 1)
                    }
                    TypeRef::Tag(t) => {
                        module.tags.push(t.func_type_idx);
                        module.num_imported_tags += 1;
                        EntityIndex::Tag(module.tags.len() as u32 - 1)
                    }
                };
                module.imports.push(Import {
                    module: import.module.to_string(),
                    field: import.name.to_string(),
                    index,
                });
            }
        }
        Payload::FunctionSection(reader) => {
            for ty in reader {
                module.functions.push(ty?);
            }
        }
        Payload::TableSection(reader) => {
            let offset = reader.range().start;
            for table in reader {
                let table = table?;
                module
                    .tables
                    .push(convert_table(table.ty).map_err(|e| unsupported(e, offset))?);
                let init = match table.init {
                    wasmparser::TableInit::RefNull => None,
                    wasmparser::TableInit::Expr(e) => Some(convert_const_expr(&e)?),
                };
                module.table_inits.push(init);
            }
        }
        Payload::MemorySection(reader) => {
            let offset = reader.range().start;
            for memory in reader {
                module
                    .memories
                    .push(convert_memory(memory?).map_err(|e| unsupported(e, offset))?);
            }
        }
        Payload::TagSection(reader) => {
            for tag in reader {
                module.tags.push(tag?.func_type_idx);
            }
        }
        Payload::GlobalSection(reader) => {
            let offset = reader.range().start;
            for global in reader {
                let global = global?;
                module
                    .globals
                    .push(convert_global(global.ty).map_err(|e| unsupported(e, offset))?);
                module.global_inits.push(convert_const_expr(&global.init_expr)?);
            }
        }
        Payload::ExportSection(reader) => {
            for export in reader {
                let export = export?;
                let index = match export.kind {
                    ExternalKind::Func | ExternalKind::FuncExact => EntityIndex::Function(export.index),
                    ExternalKind::Table => EntityIndex::Table(export.index),
                    ExternalKind::Memory => EntityIndex::Memory(export.index),
                    ExternalKind::Global => EntityIndex::Global(export.index),
                    ExternalKind::Tag => EntityIndex::Tag(export.index),
                };
                module.exports.push(Export {
                    name: export.name.to_string(),
                    index,
                });
            }
        }
        Payload::StartSection { func, .. } => module.start = Some(func),
        Payload::ElementSection(reader) => {
            for elem in reader {
                let elem = elem?;
                let offset = elem.range.start;
                let kind = match elem.kind {
                    wasmparser::ElementKind::Passive => ElemKind::Passive,
                    wasmparser::ElementKind::Declared => ElemKind::Declared,
                    wasmparser::ElementKind::Active {
                        table_index,
                        offset_expr,
                    } => ElemKind::Active {
                        table: table_index.unwrap_or(0),
                        offset: convert_const_expr(&offset_expr)?,
                    },
                };
                let (ty, items) = match elem.items {
                    wasmparser::ElementItems::Functions(funcs) => {
                        let funcs = funcs.into_iter().collect::<Result<Vec<_>, _>>()?;
                        (WasmRefType::new(false, WasmHeapType::Func), ElemItems::Functions(funcs))
                    }
                    wasmparser::ElementItems::Expressions(ty, exprs) => {
                        let ty = convert_ref_type(ty).map_err(|e| unsupported(e, offset))?;
                        let mut items = Vec::new();
                        for expr in exprs {
                            items.push(convert_const_expr(&expr?)?);
                        }
                        (ty, ElemItems::Expressions(items))
                    }
                };
                module.elems.push(ElemSegment { kind, ty, items });
            }
        }
        Payload::DataSection(reader) => {
            for data in reader {
                let data = data?;
                let kind = match data.kind {
                    wasmparser::DataKind::Passive => DataKind::Passive,
                    wasmparser::DataKind::Active {
                        memory_index,
                        offset_expr,
                    } => DataKind::Active {
                        memory: memory_index,
                        offset: convert_const_expr(&offset_expr)?,
                    },
                };
                module.data.push(DataSegment {
                    kind,
                    data: data.data.into(),
                });
            }
        }
        Payload::CustomSection(reader) => {
            if let KnownCustom::Name(names) = reader.as_known() {
                // A malformed name section is not an error: it is ignored
                // from the point where it stops making sense.
                read_names(module, names);
            }
        }
        _ => {}
    }
    Ok(())
}

fn read_names(module: &mut Module, names: wasmparser::NameSectionReader<'_>) {
    for name in names {
        let Ok(name) = name else { return };
        match name {
            Name::Module { name, .. } => module.name = Some(name.to_string()),
            Name::Function(map) => {
                for naming in map {
                    let Ok(naming) = naming else { return };
                    module.func_names.insert(naming.index, naming.name);
                }
            }
            _ => {}
        }
    }
}

/// Resolves the concrete references of tables, globals, element segments
/// and constant expressions to the kinds of the types they name (read as
/// function types by the section translators).
fn resolve_module_refs(module: &mut Module) {
    let resolve_ref = |m: &Module, r: WasmRefType| WasmRefType {
        nullable: r.nullable,
        heap_type: m.resolve_heap_type(r.heap_type),
        exact: r.exact,
    };
    for i in 0..module.tables.len() {
        module.tables[i].element = resolve_ref(module, module.tables[i].element);
    }
    for i in 0..module.globals.len() {
        module.globals[i].ty = module.resolve_val_type(module.globals[i].ty);
    }
    for i in 0..module.elems.len() {
        module.elems[i].ty = resolve_ref(module, module.elems[i].ty);
    }
    let mut exprs: Vec<ConstExpr> = std::mem::take(&mut module.global_inits);
    let mut tables = std::mem::take(&mut module.table_inits);
    let fix = |m: &Module, e: &mut ConstExpr| {
        for op in e.ops.iter_mut() {
            if let ConstOp::RefNull(h) = op {
                *h = m.resolve_heap_type(*h);
            }
        }
    };
    for e in exprs.iter_mut() {
        fix(module, e);
    }
    for e in tables.iter_mut().flatten() {
        fix(module, e);
    }
    module.global_inits = exprs;
    module.table_inits = tables;
}

/// Converts a type of the type section. Without `gc`, only final function
/// types without supertypes are accepted.
fn convert_sub_type(sub: &wasmparser::SubType, gc: bool) -> Result<WasmSubType, String> {
    if sub.composite_type.shared {
        return Err("shared types need the shared-everything threads proposal, which Weft does not support".into());
    }
    // Validation accepted `descriptor`/`describes` clauses, so the custom
    // descriptors proposal is on; they are on struct types only.
    let clause = |idx: Option<wasmparser::PackedIndex>| match idx.map(|i| i.unpack()) {
        None => Ok(None),
        Some(wasmparser::UnpackedIndex::Module(i)) => Ok(Some(EngineOrModuleTypeIndex::Module(i))),
        Some(other) => Err(format!("unexpected descriptor type index {other:?}")),
    };
    let descriptor = clause(sub.composite_type.descriptor_idx)?;
    let describes = clause(sub.composite_type.describes_idx)?;
    if !gc && (!sub.is_final || !sub.supertype_idxs.is_empty()) {
        return Err("subtypes need the GC proposal (`Config::wasm_gc`)".into());
    }
    let composite = match &sub.composite_type.inner {
        wasmparser::CompositeInnerType::Func(func) => {
            let params = func
                .params()
                .iter()
                .map(|t| convert_val_type(*t))
                .collect::<Result<Vec<_>, _>>()?;
            let results = func
                .results()
                .iter()
                .map(|t| convert_val_type(*t))
                .collect::<Result<Vec<_>, _>>()?;
            WasmCompositeType::Func(WasmFuncType::new(params, results))
        }
        wasmparser::CompositeInnerType::Struct(st) if gc => WasmCompositeType::Struct(WasmStructType {
            fields: st
                .fields
                .iter()
                .map(|f| convert_field_type(*f))
                .collect::<Result<Vec<_>, _>>()?
                .into(),
            descriptor,
            describes,
            fields_before_descriptor: 0,
        }),
        wasmparser::CompositeInnerType::Array(a) if gc => {
            WasmCompositeType::Array(WasmArrayType(convert_field_type(a.0)?))
        }
        wasmparser::CompositeInnerType::Struct(_) | wasmparser::CompositeInnerType::Array(_) => {
            return Err("struct and array types need the GC proposal (`Config::wasm_gc`)".into())
        }
        wasmparser::CompositeInnerType::Cont(_) => return Err("continuation types are not supported".into()),
    };
    let supertype = match sub.supertype_idxs.as_slice() {
        [] => None,
        [s] => match s.unpack() {
            wasmparser::UnpackedIndex::Module(i) => Some(EngineOrModuleTypeIndex::Module(i)),
            other => return Err(format!("unexpected supertype index {other:?}")),
        },
        _ => return Err("a type may have at most one supertype".into()),
    };
    Ok(WasmSubType {
        is_final: sub.is_final,
        supertype,
        composite,
    })
}

fn convert_field_type(f: wasmparser::FieldType) -> Result<WasmFieldType, String> {
    Ok(WasmFieldType {
        element_type: convert_storage_type(f.element_type)?,
        mutable: f.mutable,
    })
}

/// Sets [`WasmStructType::fields_before_descriptor`] of a struct type with
/// a descriptor type from its supertype (defined before it): the
/// supertype's own if it has a descriptor type too, else all of the
/// supertype's fields.
fn place_descriptor(module: &Module, sub: &mut WasmSubType) {
    let inherited = match sub.supertype {
        Some(EngineOrModuleTypeIndex::Module(s)) => module.sub_types.get(s as usize).and_then(|t| t.as_struct()),
        _ => None,
    };
    let before = match inherited {
        Some(st) if st.descriptor.is_some() => st.fields_before_descriptor,
        Some(st) => st.fields.len() as u32,
        None => 0,
    };
    if let WasmCompositeType::Struct(st) = &mut sub.composite {
        if st.descriptor.is_some() {
            st.fields_before_descriptor = before;
        }
    }
}

/// The sub type with the concrete references of its fields, parameters and
/// results resolved to the kinds of the types they name.
fn resolve_sub_type(module: &Module, sub: &WasmSubType) -> WasmSubType {
    let val = |v: WasmValType| module.resolve_val_type(v);
    let field = |f: &WasmFieldType| WasmFieldType {
        element_type: match f.element_type {
            WasmStorageType::Val(v) => WasmStorageType::Val(val(v)),
            packed => packed,
        },
        mutable: f.mutable,
    };
    let composite = match &sub.composite {
        WasmCompositeType::Func(f) => WasmCompositeType::Func(WasmFuncType::new(
            f.params.iter().map(|t| val(*t)).collect::<Vec<_>>(),
            f.results.iter().map(|t| val(*t)).collect::<Vec<_>>(),
        )),
        WasmCompositeType::Struct(s) => WasmCompositeType::Struct(WasmStructType {
            fields: s.fields.iter().map(field).collect(),
            descriptor: s.descriptor,
            describes: s.describes,
            fields_before_descriptor: s.fields_before_descriptor,
        }),
        WasmCompositeType::Array(a) => WasmCompositeType::Array(WasmArrayType(field(&a.0))),
    };
    WasmSubType {
        is_final: sub.is_final,
        supertype: sub.supertype,
        composite,
    }
}

pub(crate) fn convert_table(t: wasmparser::TableType) -> Result<Table, String> {
    Ok(Table {
        element: convert_ref_type(t.element_type)?,
        minimum: t.initial,
        maximum: t.maximum,
        table64: t.table64,
    })
}

pub(crate) fn convert_memory(m: wasmparser::MemoryType) -> Result<Memory, String> {
    let page_size_log2 = match m.page_size_log2 {
        None | Some(16) => crate::WASM_PAGE_SIZE_LOG2,
        Some(0) => 0,
        Some(p) => {
            return Err(format!(
                "a page size of 2^{p} bytes is not supported (only 1 and 65536)"
            ))
        }
    };
    Ok(Memory {
        minimum: m.initial,
        maximum: m.maximum,
        memory64: m.memory64,
        shared: m.shared,
        page_size_log2,
    })
}

pub(crate) fn convert_global(g: wasmparser::GlobalType) -> Result<Global, String> {
    Ok(Global {
        ty: convert_val_type(g.content_type)?,
        mutable: g.mutable,
    })
}

fn convert_const_expr(expr: &wasmparser::ConstExpr<'_>) -> Result<ConstExpr, TranslateError> {
    use wasmparser::Operator as O;
    let mut reader = expr.get_operators_reader();
    let mut ops = Vec::new();
    while !reader.eof() {
        let offset = reader.original_position();
        let op = match reader.read()? {
            O::I32Const { value } => ConstOp::I32Const(value),
            O::I64Const { value } => ConstOp::I64Const(value),
            O::F32Const { value } => ConstOp::F32Const(value.bits()),
            O::F64Const { value } => ConstOp::F64Const(value.bits()),
            O::V128Const { value } => ConstOp::V128Const(value.i128() as u128),
            O::GlobalGet { global_index } => ConstOp::GlobalGet(global_index),
            O::RefFunc { function_index } => ConstOp::RefFunc(function_index),
            O::RefNull { hty } => {
                let ty = wasmparser::RefType::new(true, hty).ok_or_else(|| unsupported("bad heap type", offset))?;
                ConstOp::RefNull(convert_ref_type(ty).map_err(|e| unsupported(e, offset))?.heap_type)
            }
            O::I32Add => ConstOp::I32Add,
            O::I32Sub => ConstOp::I32Sub,
            O::I32Mul => ConstOp::I32Mul,
            O::I64Add => ConstOp::I64Add,
            O::I64Sub => ConstOp::I64Sub,
            O::I64Mul => ConstOp::I64Mul,
            O::RefI31 => ConstOp::RefI31,
            O::StructNew { struct_type_index } => ConstOp::StructNew(struct_type_index),
            O::StructNewDesc { struct_type_index } => ConstOp::StructNewDesc(struct_type_index),
            O::StructNewDefaultDesc { struct_type_index } => ConstOp::StructNewDefaultDesc(struct_type_index),
            O::StructNewDefault { struct_type_index } => ConstOp::StructNewDefault(struct_type_index),
            O::ArrayNew { array_type_index } => ConstOp::ArrayNew(array_type_index),
            O::ArrayNewDefault { array_type_index } => ConstOp::ArrayNewDefault(array_type_index),
            O::ArrayNewFixed {
                array_type_index,
                array_size,
            } => ConstOp::ArrayNewFixed(array_type_index, array_size),
            O::AnyConvertExtern => ConstOp::AnyConvertExtern,
            O::ExternConvertAny => ConstOp::ExternConvertAny,
            O::End => continue,
            other => {
                return Err(unsupported(
                    format!("unsupported constant instruction {other:?}"),
                    offset,
                ))
            }
        };
        ops.push(op);
    }
    Ok(ConstExpr { ops })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deferring translation keeps one validator per body, and
    /// `validate_body` finds the invalid body with the error and offset
    /// that validating during translation gives.
    #[test]
    fn deferred_bodies_validate_like_translation() {
        let wasm =
            wat::parse_str("(module (func (result i32) i32.const 1) (func (result i32) i64.const 1) (func))").unwrap();
        let features = crate::supported_features();
        let expected = translate_module(&wasm, features).err().unwrap();
        let deferred = translate_module_deferring_bodies(&wasm, features).unwrap();
        assert_eq!(deferred.body_validators.len(), 3);
        assert!(deferred.validate_body(0).is_ok());
        assert!(deferred.validate_body(2).is_ok());
        let err = deferred.validate_body(1).unwrap_err();
        assert_eq!((err.message, err.offset), (expected.message, expected.offset));
        // Out of range, or a translation that validated its bodies: nothing
        // to do.
        assert!(deferred.validate_body(3).is_ok());
        let valid = wat::parse_str("(module (func))").unwrap();
        let validated = translate_module(&valid, features).unwrap();
        assert!(validated.body_validators.is_empty());
        assert!(validated.validate_body(0).is_ok());
        // A module whose sections fail: the error of `translate_module`.
        let bad = b"\0asm\x01\0\0\0\x01";
        let expected = translate_module(bad, features).err().unwrap();
        let err = translate_module_deferring_bodies(bad, features).err().unwrap();
        assert_eq!((err.message, err.offset), (expected.message, expected.offset));
    }
}

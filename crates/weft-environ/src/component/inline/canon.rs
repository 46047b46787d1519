//! Core instances, their exports, and the canonical built-ins (`canon
//! lift`, `canon lower`, `canon resource.*`, and the async and thread
//! built-ins as [`Builtin`]s) of the inliner.

use super::*;

impl<'p, 'a> Inliner<'p, 'a> {
    pub(super) fn core_export(
        &mut self,
        instance: &CoreInstanceDef,
        name: &str,
        offset: u64,
    ) -> Result<CoreItemIndex, TranslateError> {
        match instance {
            CoreInstanceDef::Items(items) => items
                .get(name)
                .copied()
                .ok_or_else(|| invalid(format!("no core export `{name}`"), offset)),
            CoreInstanceDef::Instantiated { index, module } => {
                let (entity, kind) = self.module_export(module, name, offset)?;
                let key = (*index, name.to_string());
                if let Some(&item) = self.aliases.get(&key) {
                    return Ok(item);
                }
                let item = self.new_item();
                self.step(Step::AliasExport {
                    item,
                    instance: *index,
                    name: name.to_string(),
                    index: entity,
                    kind,
                });
                self.aliases.insert(key, item);
                Ok(item)
            }
        }
    }

    /// The (module, name) of each import of a module, in order.
    fn module_imports(&self, module: &ModuleDef, offset: u64) -> Result<Vec<(String, String)>, TranslateError> {
        match module {
            ModuleDef::Static(m) => Ok(self
                .parsed
                .modules
                .get(m.0 as usize)
                .ok_or_else(|| invalid("module index out of range", offset))?
                .translation
                .module
                .imports
                .iter()
                .map(|i| (i.module.clone(), i.field.clone()))
                .collect()),
            ModuleDef::Import { ty, .. } => Ok(self
                .types
                .module(*ty)
                .map(|t| t.imports.iter().map(|(m, n, _)| (m.clone(), n.clone())).collect())
                .unwrap_or_default()),
        }
    }

    /// The export `name` of a module: its index (static modules) and kind.
    fn module_export(
        &self,
        module: &ModuleDef,
        name: &str,
        offset: u64,
    ) -> Result<(Option<EntityIndex>, CoreItemKind), TranslateError> {
        let missing = || invalid(format!("no core export `{name}`"), offset);
        match module {
            ModuleDef::Static(m) => {
                let entity = self
                    .parsed
                    .modules
                    .get(m.0 as usize)
                    .and_then(|m| m.translation.module.export(name))
                    .ok_or_else(missing)?;
                let kind = match entity {
                    EntityIndex::Function(_) => CoreItemKind::Func,
                    EntityIndex::Table(_) => CoreItemKind::Table,
                    EntityIndex::Memory(_) => CoreItemKind::Memory,
                    EntityIndex::Global(_) => CoreItemKind::Global,
                    EntityIndex::Tag(_) => CoreItemKind::Tag,
                };
                Ok((Some(entity), kind))
            }
            ModuleDef::Import { ty, .. } => {
                let export = self
                    .types
                    .module(*ty)
                    .and_then(|t| t.exports.iter().find(|(n, _)| n == name));
                let kind = match export.ok_or_else(missing)?.1 {
                    CoreItemType::Func(_) => CoreItemKind::Func,
                    CoreItemType::Table(_) => CoreItemKind::Table,
                    CoreItemType::Memory(_) => CoreItemKind::Memory,
                    CoreItemType::Global(_) => CoreItemKind::Global,
                    CoreItemType::Tag(_) => CoreItemKind::Tag,
                };
                Ok((None, kind))
            }
        }
    }

    pub(super) fn core_instance(
        &mut self,
        frame: &mut Frame,
        instance: &Instance<'a>,
        offset: u64,
    ) -> Result<(), TranslateError> {
        let def = match instance {
            Instance::Instantiate { module_index, args } => {
                let module = get(&frame.modules, *module_index, "module", offset)?;
                let mut items = Vec::new();
                for (import_module, field) in self.module_imports(&module, offset)? {
                    let arg = args
                        .iter()
                        .find(|a| a.name == import_module)
                        .ok_or_else(|| invalid(format!("missing instantiation argument `{import_module}`"), offset))?;
                    let arg = frame
                        .core_instances
                        .get(arg.index as usize)
                        .ok_or_else(|| invalid("core instance index out of range", offset))?;
                    items.push(self.core_export(arg, &field, offset)?);
                }
                let module_ref = match &module {
                    ModuleDef::Static(m) => ModuleRef::Static(*m),
                    ModuleDef::Import { at, .. } => ModuleRef::Import(self.runtime_import(at.clone())),
                };
                let index = CoreInstanceIndex(self.plan.num_core_instances);
                self.plan.num_core_instances += 1;
                self.step(Step::InstantiateModule {
                    instance: index,
                    module: module_ref,
                    args: items.into(),
                    component_instance: frame.instance,
                });
                CoreInstanceDef::Instantiated { index, module }
            }
            Instance::FromExports(exports) => {
                let mut items = HashMap::new();
                for export in exports.iter() {
                    let (space, _) = frame.core_space(export.kind);
                    items.insert(export.name.to_string(), get(space, export.index, "core item", offset)?);
                }
                CoreInstanceDef::Items(items)
            }
        };
        frame.core_instances.push(def);
        Ok(())
    }

    fn options(
        &mut self,
        frame: &Frame,
        options: &[CanonicalOption],
        offset: u64,
    ) -> Result<CanonicalOptions, TranslateError> {
        let mut out = CanonicalOptions {
            instance: frame.instance,
            ..CanonicalOptions::default()
        };
        for option in options {
            match *option {
                CanonicalOption::UTF8 => out.string_encoding = StringEncoding::Utf8,
                CanonicalOption::UTF16 => out.string_encoding = StringEncoding::Utf16,
                CanonicalOption::CompactUTF16 => out.string_encoding = StringEncoding::CompactUtf16,
                CanonicalOption::Memory(i) => out.memory = Some(get(&frame.core_memories, i, "core memory", offset)?),
                CanonicalOption::Realloc(i) => out.realloc = Some(get(&frame.core_funcs, i, "core function", offset)?),
                CanonicalOption::PostReturn(i) => {
                    out.post_return = Some(get(&frame.core_funcs, i, "core function", offset)?)
                }
                CanonicalOption::Async => out.is_async = true,
                CanonicalOption::Callback(i) => {
                    out.callback = Some(get(&frame.core_funcs, i, "core function", offset)?)
                }
                CanonicalOption::CoreType(_) | CanonicalOption::Gc => {
                    return Err(unsupported("the GC canonical ABI (`gc`, `core-type` options)", offset))
                }
            }
        }
        Ok(out)
    }

    fn resource(frame: &Frame, index: u32, offset: u64) -> Result<TypeResourceIndex, TranslateError> {
        match get(&frame.types.types, index, "type", offset)? {
            AnyType::Resource(r) => Ok(r),
            _ => Err(invalid(format!("type {index} is not a resource"), offset)),
        }
    }

    pub(super) fn canon(
        &mut self,
        frame: &mut Frame,
        canon: &CanonicalFunction,
        offset: u64,
    ) -> Result<(), TranslateError> {
        match canon {
            CanonicalFunction::Lift {
                core_func_index,
                type_index,
                options,
            } => {
                let core_func = get(&frame.core_funcs, *core_func_index, "core function", offset)?;
                let AnyType::Func(ty) = get(&frame.types.types, *type_index, "type", offset)? else {
                    return Err(invalid("lift with a non-function type", offset));
                };
                let options = self.options(frame, options, offset)?;
                let func = LiftedFuncIndex(self.plan.num_lifted_funcs);
                self.plan.num_lifted_funcs += 1;
                self.step(Step::Lift {
                    func,
                    core_func,
                    ty,
                    options: options.clone(),
                });
                frame.funcs.push(FuncDef::Lifted {
                    func,
                    ty,
                    core_func,
                    options,
                });
            }
            CanonicalFunction::Lower { func_index, options } => {
                let (callee, ty) = match get(&frame.funcs, *func_index, "function", offset)? {
                    FuncDef::Import { import, ty } => (LowerCallee::Import(import), ty),
                    FuncDef::Lifted {
                        func,
                        ty,
                        core_func,
                        options,
                    } => (
                        LowerCallee::Lifted {
                            func,
                            core_func,
                            options,
                        },
                        ty,
                    ),
                };
                let options = self.options(frame, options, offset)?;
                let item = self.new_item();
                self.step(Step::Lower {
                    item,
                    callee,
                    ty,
                    options,
                });
                frame.core_funcs.push(item);
            }
            CanonicalFunction::ResourceNew { resource }
            | CanonicalFunction::ResourceDrop { resource }
            | CanonicalFunction::ResourceRep { resource } => {
                let resource = Self::resource(frame, *resource, offset)?;
                let item = self.new_item();
                let instance = frame.instance;
                self.step(match canon {
                    CanonicalFunction::ResourceNew { .. } => Step::ResourceNew {
                        item,
                        resource,
                        instance,
                    },
                    CanonicalFunction::ResourceDrop { .. } => Step::ResourceDrop {
                        item,
                        resource,
                        instance,
                    },
                    _ => Step::ResourceRep {
                        item,
                        resource,
                        instance,
                    },
                });
                frame.core_funcs.push(item);
            }
            other => {
                let Some(builtin) = self.builtin(frame, other, offset)? else {
                    return Err(unsupported(format!("canon {}", canon_name(other)), offset));
                };
                let item = self.new_item();
                self.step(Step::Builtin {
                    item,
                    builtin,
                    instance: frame.instance,
                });
                frame.core_funcs.push(item);
            }
        }
        Ok(())
    }

    /// A `stream` or `future` type named by a canonical built-in.
    fn stream_or_future(frame: &Frame, index: u32, stream: bool, offset: u64) -> Result<InterfaceType, TranslateError> {
        let what = if stream { "stream" } else { "future" };
        match get(&frame.types.types, index, "type", offset)? {
            AnyType::Value(t @ InterfaceType::Defined(_)) => Ok(t),
            _ => Err(invalid(format!("type {index} is not a {what} type"), offset)),
        }
    }

    /// The async and thread built-ins; `None` for those Weft does not
    /// translate (shared-everything threads, `*.forward`).
    fn builtin(
        &mut self,
        frame: &Frame,
        canon: &CanonicalFunction,
        offset: u64,
    ) -> Result<Option<Builtin>, TranslateError> {
        use CanonicalFunction as C;
        let stream = |i: &u32| Self::stream_or_future(frame, *i, true, offset);
        let future = |i: &u32| Self::stream_or_future(frame, *i, false, offset);
        Ok(Some(match canon {
            C::TaskReturn { result, options } => {
                let result = match result {
                    Some(t) => Some(TypeConverter::new(&mut self.types, &frame.types, &frame.outer, offset).value(*t)?),
                    None => None,
                };
                Builtin::TaskReturn {
                    result,
                    options: self.options(frame, options, offset)?,
                }
            }
            C::TaskCancel => Builtin::TaskCancel,
            C::ContextGet { ty, slot } | C::ContextSet { ty, slot } => {
                if *ty != wasmparser::ValType::I32 {
                    return Err(unsupported("64-bit `context.get`/`context.set`", offset));
                }
                if matches!(canon, C::ContextGet { .. }) {
                    Builtin::ContextGet(*slot)
                } else {
                    Builtin::ContextSet(*slot)
                }
            }
            C::BackpressureInc => Builtin::BackpressureInc,
            C::BackpressureDec => Builtin::BackpressureDec,
            C::ThreadYield => Builtin::ThreadYield,
            C::ThreadIndex => Builtin::ThreadIndex,
            C::ThreadNewIndirect { table_index, .. } => Builtin::ThreadNewIndirect {
                table: get(&frame.core_tables, *table_index, "core table", offset)?,
            },
            C::ThreadResumeLater => Builtin::ThreadResumeLater,
            C::ThreadSuspend => Builtin::ThreadSuspend,
            C::ThreadSuspendThenResume => Builtin::ThreadSuspendThenResume,
            C::ThreadYieldThenResume => Builtin::ThreadYieldThenResume,
            C::ThreadSuspendThenPromote => Builtin::ThreadSuspendThenPromote,
            C::ThreadYieldThenPromote => Builtin::ThreadYieldThenPromote,
            C::WaitableSetNew => Builtin::WaitableSetNew,
            C::WaitableSetWait { memory } => {
                Builtin::WaitableSetWait(get(&frame.core_memories, *memory, "core memory", offset)?)
            }
            C::WaitableSetPoll { memory } => {
                Builtin::WaitableSetPoll(get(&frame.core_memories, *memory, "core memory", offset)?)
            }
            C::WaitableSetDrop => Builtin::WaitableSetDrop,
            C::WaitableJoin => Builtin::WaitableJoin,
            C::SubtaskCancel { async_ } => Builtin::SubtaskCancel(*async_),
            C::SubtaskDrop => Builtin::SubtaskDrop,
            C::StreamNew { ty } => Builtin::StreamNew(stream(ty)?),
            C::StreamRead { ty, options } => Builtin::StreamRead(stream(ty)?, self.options(frame, options, offset)?),
            C::StreamWrite { ty, options } => Builtin::StreamWrite(stream(ty)?, self.options(frame, options, offset)?),
            C::StreamCancelRead { ty, async_ } => Builtin::StreamCancelRead(stream(ty)?, *async_),
            C::StreamCancelWrite { ty, async_ } => Builtin::StreamCancelWrite(stream(ty)?, *async_),
            C::StreamDropReadable { ty } => Builtin::StreamDropReadable(stream(ty)?),
            C::StreamDropWritable { ty } => Builtin::StreamDropWritable(stream(ty)?),
            C::FutureNew { ty } => Builtin::FutureNew(future(ty)?),
            C::FutureRead { ty, options } => Builtin::FutureRead(future(ty)?, self.options(frame, options, offset)?),
            C::FutureWrite { ty, options } => Builtin::FutureWrite(future(ty)?, self.options(frame, options, offset)?),
            C::FutureCancelRead { ty, async_ } => Builtin::FutureCancelRead(future(ty)?, *async_),
            C::FutureCancelWrite { ty, async_ } => Builtin::FutureCancelWrite(future(ty)?, *async_),
            C::FutureDropReadable { ty } => Builtin::FutureDropReadable(future(ty)?),
            C::FutureDropWritable { ty } => Builtin::FutureDropWritable(future(ty)?),
            C::ErrorContextNew { options } => Builtin::ErrorContextNew(self.options(frame, options, offset)?),
            C::ErrorContextDebugMessage { options } => {
                Builtin::ErrorContextDebugMessage(self.options(frame, options, offset)?)
            }
            C::ErrorContextDrop => Builtin::ErrorContextDrop,
            _ => return Ok(None),
        }))
    }
}

/// The name of a canonical built-in Weft does not support yet, in kebab
/// case (`TaskReturn` -> `task-return`).
fn canon_name(canon: &CanonicalFunction) -> String {
    let debug = format!("{canon:?}");
    let name = debug.split([' ', '{', '(']).next().unwrap_or("");
    let mut out = String::new();
    for (i, c) in name.char_indices() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('-');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

//! Second pass: "inlining". The root component is instantiated
//! symbolically: each definition of a component is evaluated in a [`Frame`]
//! holding what each index of each index space denotes, nested components
//! are instantiated by evaluating their definitions in a new frame whose
//! imports are the arguments, and only what a runtime must do is recorded,
//! as [`Step`]s over core items.

use super::convert::{invalid, unsupported, CoreTypeDef, OuterTypes, TypeConverter, TypeSpaces};
use super::parse::{Definition, Parsed, StaticComponentIndex};
use super::plan::*;
use super::types::*;
use crate::error::TranslateError;
use crate::types::convert_val_type;
use crate::EntityIndex;
use std::collections::HashMap;
use std::rc::Rc;

mod canon;
use wasmparser::{
    CanonicalFunction, CanonicalOption, ComponentAlias, ComponentExternalKind, ComponentInstance,
    ComponentOuterAliasKind, ComponentTypeRef, ExternalKind, Instance, TypeBounds,
};

/// The most component instances one translation may create (nested
/// instantiations can multiply).
const MAX_COMPONENT_INSTANCES: u32 = 10_000;
/// The most steps one plan may hold.
const MAX_STEPS: usize = 1_000_000;
/// The deepest nesting of instantiations.
const MAX_DEPTH: u32 = 100;

/// A core module of an index space.
#[derive(Debug, Clone)]
pub(crate) enum ModuleDef {
    Static(StaticModuleIndex),
    Import { at: RuntimeImport, ty: TypeModuleIndex },
}

/// A component of an index space: a static component and the index spaces
/// of its enclosing components, which its outer aliases reach.
#[derive(Debug, Clone)]
pub(crate) struct ComponentClosure {
    index: StaticComponentIndex,
    scope: Rc<Scope>,
}

/// The index spaces outer aliases can reach, frozen where a nested
/// component is defined.
#[derive(Debug)]
pub(crate) struct Scope {
    pub types: TypeSpaces,
    pub modules: Vec<ModuleDef>,
    pub components: Vec<ComponentClosure>,
    pub parent: Option<Rc<Scope>>,
}

impl OuterTypes for Option<Rc<Scope>> {
    fn outer(&self, count: u32) -> Option<&TypeSpaces> {
        let mut scope = self.as_deref()?;
        for _ in 1..count {
            scope = scope.parent.as_deref()?;
        }
        Some(&scope.types)
    }
}

#[derive(Debug, Clone)]
enum FuncDef {
    Import {
        import: RuntimeImportIndex,
        ty: TypeFuncIndex,
    },
    Lifted {
        func: LiftedFuncIndex,
        ty: TypeFuncIndex,
        core_func: CoreItemIndex,
        options: CanonicalOptions,
    },
}

#[derive(Debug, Clone)]
enum InstanceDef {
    Import { at: RuntimeImport, ty: TypeInstanceIndex },
    Items(Rc<Vec<(String, ItemDef)>>),
}

#[derive(Debug, Clone)]
enum ItemDef {
    Func(FuncDef),
    Instance(InstanceDef),
    Module(ModuleDef),
    Component(ComponentClosure),
    Type(AnyType),
}

enum CoreInstanceDef {
    Instantiated {
        index: CoreInstanceIndex,
        module: ModuleDef,
    },
    Items(HashMap<String, CoreItemIndex>),
}

/// What each index of each index space of one component instance denotes.
struct Frame {
    instance: ComponentInstanceIndex,
    /// The arguments of a nested component; `None` for the root, whose
    /// imports come from the embedder.
    args: Option<HashMap<String, ItemDef>>,
    outer: Option<Rc<Scope>>,
    types: TypeSpaces,
    modules: Vec<ModuleDef>,
    components: Vec<ComponentClosure>,
    funcs: Vec<FuncDef>,
    instances: Vec<InstanceDef>,
    core_funcs: Vec<CoreItemIndex>,
    core_tables: Vec<CoreItemIndex>,
    core_memories: Vec<CoreItemIndex>,
    core_globals: Vec<CoreItemIndex>,
    core_tags: Vec<CoreItemIndex>,
    core_instances: Vec<CoreInstanceDef>,
    exports: Vec<(String, ItemDef)>,
}

impl Frame {
    fn new(instance: ComponentInstanceIndex, args: Option<HashMap<String, ItemDef>>, outer: Option<Rc<Scope>>) -> Self {
        Frame {
            instance,
            args,
            outer,
            types: TypeSpaces::default(),
            modules: Vec::new(),
            components: Vec::new(),
            funcs: Vec::new(),
            instances: Vec::new(),
            core_funcs: Vec::new(),
            core_tables: Vec::new(),
            core_memories: Vec::new(),
            core_globals: Vec::new(),
            core_tags: Vec::new(),
            core_instances: Vec::new(),
            exports: Vec::new(),
        }
    }

    fn core_space(&mut self, kind: ExternalKind) -> (&mut Vec<CoreItemIndex>, CoreItemKind) {
        match kind {
            ExternalKind::Func | ExternalKind::FuncExact => (&mut self.core_funcs, CoreItemKind::Func),
            ExternalKind::Table => (&mut self.core_tables, CoreItemKind::Table),
            ExternalKind::Memory => (&mut self.core_memories, CoreItemKind::Memory),
            ExternalKind::Global => (&mut self.core_globals, CoreItemKind::Global),
            ExternalKind::Tag => (&mut self.core_tags, CoreItemKind::Tag),
        }
    }

    fn item(&self, kind: ComponentExternalKind, index: u32, offset: u64) -> Result<ItemDef, TranslateError> {
        let i = index as usize;
        let item = match kind {
            ComponentExternalKind::Module => self.modules.get(i).cloned().map(ItemDef::Module),
            ComponentExternalKind::Func => self.funcs.get(i).cloned().map(ItemDef::Func),
            ComponentExternalKind::Type => self.types.types.get(i).copied().map(ItemDef::Type),
            ComponentExternalKind::Instance => self.instances.get(i).cloned().map(ItemDef::Instance),
            ComponentExternalKind::Component => self.components.get(i).cloned().map(ItemDef::Component),
            ComponentExternalKind::Value => return Err(unsupported("component values", offset)),
        };
        item.ok_or_else(|| invalid(format!("{} index {index} out of range", kind.desc()), offset))
    }

    fn push(&mut self, item: ItemDef) {
        match item {
            ItemDef::Func(f) => self.funcs.push(f),
            ItemDef::Instance(i) => self.instances.push(i),
            ItemDef::Module(m) => self.modules.push(m),
            ItemDef::Component(c) => self.components.push(c),
            ItemDef::Type(t) => self.types.types.push(t),
        }
    }
}

fn get<T: Clone>(space: &[T], index: u32, what: &str, offset: u64) -> Result<T, TranslateError> {
    space
        .get(index as usize)
        .cloned()
        .ok_or_else(|| invalid(format!("{what} index {index} out of range"), offset))
}

fn kind_matches(kind: ComponentExternalKind, item: &ItemDef) -> bool {
    matches!(
        (kind, item),
        (ComponentExternalKind::Func, ItemDef::Func(_))
            | (ComponentExternalKind::Instance, ItemDef::Instance(_))
            | (ComponentExternalKind::Module, ItemDef::Module(_))
            | (ComponentExternalKind::Component, ItemDef::Component(_))
            | (ComponentExternalKind::Type, ItemDef::Type(_))
    )
}

/// The state of the second pass: the registry and the plan being built.
pub(crate) struct Inliner<'p, 'a> {
    parsed: &'p Parsed<'a>,
    pub types: ComponentTypes,
    pub plan: Component,
    runtime_imports: HashMap<RuntimeImport, RuntimeImportIndex>,
    aliases: HashMap<(CoreInstanceIndex, String), CoreItemIndex>,
}

impl<'p, 'a> Inliner<'p, 'a> {
    pub fn new(parsed: &'p Parsed<'a>) -> Self {
        Inliner {
            parsed,
            types: ComponentTypes::new(),
            plan: Component::default(),
            runtime_imports: HashMap::new(),
            aliases: HashMap::new(),
        }
    }

    /// Instantiates the root component and records its exports.
    pub fn run_root(&mut self) -> Result<(), TranslateError> {
        let mut frame = Frame::new(ComponentInstanceIndex(0), None, None);
        self.plan.num_component_instances = 1;
        self.plan.parents = vec![None];
        self.run(self.parsed.root, &mut frame, 0)?;
        for (name, item) in frame.exports {
            let export = self.export(item, 0)?;
            self.plan.exports.push((name, export));
        }
        Ok(())
    }

    fn export(&mut self, item: ItemDef, offset: u64) -> Result<Export, TranslateError> {
        Ok(match item {
            ItemDef::Func(FuncDef::Lifted { func, ty, .. }) => Export::LiftedFunction { func, ty },
            ItemDef::Func(FuncDef::Import { import, ty }) => Export::ImportedFunction { import, ty },
            ItemDef::Instance(InstanceDef::Import { at, .. }) => Export::ImportedInstance(self.runtime_import(at)),
            ItemDef::Instance(InstanceDef::Items(items)) => {
                let mut exports = Vec::with_capacity(items.len());
                for (name, item) in items.iter() {
                    exports.push((name.clone(), self.export(item.clone(), offset)?));
                }
                Export::Instance(exports.into())
            }
            ItemDef::Module(ModuleDef::Static(m)) => Export::Module(ModuleRef::Static(m)),
            ItemDef::Module(ModuleDef::Import { at, .. }) => Export::Module(ModuleRef::Import(self.runtime_import(at))),
            ItemDef::Type(t) => Export::Type(t),
            ItemDef::Component(_) => return Err(unsupported("exporting a component from the root", offset)),
        })
    }

    fn run(&mut self, index: StaticComponentIndex, frame: &mut Frame, depth: u32) -> Result<(), TranslateError> {
        let parsed = self.parsed;
        let component = parsed
            .components
            .get(index.0 as usize)
            .ok_or_else(|| invalid("component index out of range", 0))?;
        for (definition, offset) in &component.definitions {
            self.definition(frame, definition, *offset, depth)?;
            if self.plan.steps.len() > MAX_STEPS {
                return Err(unsupported(format!("plans of more than {MAX_STEPS} steps"), *offset));
            }
        }
        Ok(())
    }

    fn step(&mut self, step: Step) {
        self.plan.steps.push(step);
    }

    fn new_item(&mut self) -> CoreItemIndex {
        let item = CoreItemIndex(self.plan.num_core_items);
        self.plan.num_core_items += 1;
        item
    }

    fn runtime_import(&mut self, at: RuntimeImport) -> RuntimeImportIndex {
        if let Some(&index) = self.runtime_imports.get(&at) {
            return index;
        }
        let index = RuntimeImportIndex(self.plan.runtime_imports.len() as u32);
        self.plan.runtime_imports.push(at.clone());
        self.runtime_imports.insert(at, index);
        index
    }

    fn definition(
        &mut self,
        frame: &mut Frame,
        definition: &Definition<'a>,
        offset: u64,
        depth: u32,
    ) -> Result<(), TranslateError> {
        match definition {
            Definition::Import(import) => {
                let item = match &frame.args {
                    Some(args) => args
                        .get(import.name.name)
                        .cloned()
                        .ok_or_else(|| invalid(format!("missing argument `{}`", import.name.name), offset))?,
                    None => self.root_import(frame, import.name.name, import.ty, offset)?,
                };
                frame.push(item);
            }
            Definition::Export(export) => {
                let item = frame.item(export.kind, export.index, offset)?;
                frame.push(item.clone());
                frame.exports.push((export.name.name.to_string(), item));
            }
            Definition::CoreInstance(instance) => self.core_instance(frame, instance, offset)?,
            Definition::Instance(instance) => {
                let def = match instance {
                    ComponentInstance::Instantiate { component_index, args } => {
                        let closure = get(&frame.components, *component_index, "component", offset)?;
                        let mut map = HashMap::new();
                        for arg in args.iter() {
                            map.insert(arg.name.to_string(), frame.item(arg.kind, arg.index, offset)?);
                        }
                        let exports = self.instantiate(closure, map, frame.instance, depth + 1, offset)?;
                        InstanceDef::Items(Rc::new(exports))
                    }
                    ComponentInstance::FromExports(exports) => {
                        let mut items = Vec::with_capacity(exports.len());
                        for e in exports.iter() {
                            items.push((e.name.name.to_string(), frame.item(e.kind, e.index, offset)?));
                        }
                        InstanceDef::Items(Rc::new(items))
                    }
                };
                frame.instances.push(def);
            }
            Definition::Alias(alias) => self.alias(frame, alias, offset)?,
            Definition::Type(wasmparser::ComponentType::Resource { rep, dtor }) => {
                let resource = DefinedResourceIndex(self.plan.num_defined_resources);
                self.plan.num_defined_resources += 1;
                let ty = self.types.intern_resource(ResourceType::Defined(resource));
                let rep = convert_val_type(*rep).map_err(|e| unsupported(e, offset))?;
                let dtor = dtor
                    .map(|f| get(&frame.core_funcs, f, "core function", offset))
                    .transpose()?;
                self.step(Step::DefineResource {
                    resource,
                    ty,
                    rep,
                    dtor,
                    instance: frame.instance,
                });
                frame.types.types.push(AnyType::Resource(ty));
            }
            Definition::Type(ty) => {
                let t = TypeConverter::new(&mut self.types, &frame.types, &frame.outer, offset).component_type(ty)?;
                frame.types.types.push(t);
            }
            Definition::CoreType(ty) => {
                let t = TypeConverter::new(&mut self.types, &frame.types, &frame.outer, offset).core_type(ty)?;
                frame.types.core_types.push(t);
            }
            Definition::Canon(canon) => self.canon(frame, canon, offset)?,
            Definition::Module(m) => frame.modules.push(ModuleDef::Static(*m)),
            Definition::Component(c) => {
                let scope = Scope {
                    types: frame.types.clone(),
                    modules: frame.modules.clone(),
                    components: frame.components.clone(),
                    parent: frame.outer.clone(),
                };
                frame.components.push(ComponentClosure {
                    index: *c,
                    scope: Rc::new(scope),
                });
            }
            Definition::Start => return Err(unsupported("component start functions (component values)", offset)),
        }
        Ok(())
    }

    fn instantiate(
        &mut self,
        closure: ComponentClosure,
        args: HashMap<String, ItemDef>,
        parent: ComponentInstanceIndex,
        depth: u32,
        offset: u64,
    ) -> Result<Vec<(String, ItemDef)>, TranslateError> {
        if depth > MAX_DEPTH {
            return Err(unsupported(
                format!("component instantiations nested deeper than {MAX_DEPTH}"),
                offset,
            ));
        }
        if self.plan.num_component_instances >= MAX_COMPONENT_INSTANCES {
            return Err(unsupported(
                format!("more than {MAX_COMPONENT_INSTANCES} component instances"),
                offset,
            ));
        }
        let instance = ComponentInstanceIndex(self.plan.num_component_instances);
        self.plan.num_component_instances += 1;
        self.plan.parents.push(Some(parent));
        let mut frame = Frame::new(instance, Some(args), Some(closure.scope.clone()));
        self.run(closure.index, &mut frame, depth)?;
        Ok(frame.exports)
    }

    /// An import of the root: recorded in the plan with its type, whose
    /// resources get imported identities.
    fn root_import(
        &mut self,
        frame: &Frame,
        name: &str,
        ty: ComponentTypeRef,
        offset: u64,
    ) -> Result<ItemDef, TranslateError> {
        let import = ImportIndex(self.plan.imports.len() as u32);
        let at = RuntimeImport {
            import,
            path: Box::new([]),
        };
        let types = &frame.types.types;
        let (item, ty) = match ty {
            ComponentTypeRef::Func(i) => match get(types, i, "type", offset)? {
                AnyType::Func(ty) => {
                    let import = self.runtime_import(at);
                    (ItemDef::Func(FuncDef::Import { import, ty }), ItemType::Func(ty))
                }
                _ => return Err(invalid("function import of a non-function type", offset)),
            },
            ComponentTypeRef::Instance(i) => match get(types, i, "type", offset)? {
                AnyType::Instance(ty) => {
                    let mut map = HashMap::new();
                    self.bind_imported_resources(ty, &at, &mut map);
                    let ty = self.types.substitute_instance(ty, &map);
                    (
                        ItemDef::Instance(InstanceDef::Import { at, ty }),
                        ItemType::Instance(ty),
                    )
                }
                _ => return Err(invalid("instance import of a non-instance type", offset)),
            },
            ComponentTypeRef::Type(TypeBounds::Eq(i)) => {
                let t = get(types, i, "type", offset)?;
                (ItemDef::Type(t), ItemType::Type(t))
            }
            ComponentTypeRef::Type(TypeBounds::SubResource) => {
                let r = self.imported_resource(at);
                (
                    ItemDef::Type(AnyType::Resource(r)),
                    ItemType::Type(AnyType::Resource(r)),
                )
            }
            ComponentTypeRef::Module(i) => match get(&frame.types.core_types, i, "core type", offset)? {
                CoreTypeDef::Module(ty) => (ItemDef::Module(ModuleDef::Import { at, ty }), ItemType::Module(ty)),
                _ => return Err(invalid("module import of a non-module type", offset)),
            },
            ComponentTypeRef::Component(_) => {
                return Err(unsupported("component imports of the root component", offset))
            }
            ComponentTypeRef::Value(_) => return Err(unsupported("component values", offset)),
        };
        self.plan.imports.push(Import {
            name: name.to_string(),
            ty,
        });
        Ok(item)
    }

    fn imported_resource(&mut self, at: RuntimeImport) -> TypeResourceIndex {
        let index = ImportedResourceIndex(self.plan.imported_resources.len() as u32);
        let ty = self.types.intern_resource(ResourceType::Imported(index));
        self.plan.imported_resources.push(ImportedResource { at, ty });
        ty
    }

    /// Gives every resource that instance type `ty` exports (directly or
    /// through exported instances) an imported identity found at `at`.
    fn bind_imported_resources(
        &mut self,
        ty: TypeInstanceIndex,
        at: &RuntimeImport,
        map: &mut HashMap<TypeResourceIndex, TypeResourceIndex>,
    ) {
        let Some(instance) = self.types.instance(ty).cloned() else {
            return;
        };
        for (name, item) in instance.exports.iter() {
            let mut path = at.path.to_vec();
            path.push(name.clone());
            let at = RuntimeImport {
                import: at.import,
                path: path.into(),
            };
            match item {
                ItemType::Type(AnyType::Resource(r))
                    if matches!(self.types.resource(*r), Some(ResourceType::Abstract(_))) && !map.contains_key(r) =>
                {
                    let imported = self.imported_resource(at);
                    map.insert(*r, imported);
                }
                ItemType::Instance(inner) => self.bind_imported_resources(*inner, &at, map),
                _ => {}
            }
        }
    }

    fn alias(&mut self, frame: &mut Frame, alias: &ComponentAlias<'a>, offset: u64) -> Result<(), TranslateError> {
        match *alias {
            ComponentAlias::InstanceExport {
                kind,
                instance_index,
                name,
            } => {
                let instance = get(&frame.instances, instance_index, "instance", offset)?;
                let item = self.instance_export(&instance, name, offset)?;
                if !kind_matches(kind, &item) {
                    return Err(invalid(format!("export `{name}` is not a {}", kind.desc()), offset));
                }
                frame.push(item);
            }
            ComponentAlias::CoreInstanceExport {
                kind,
                instance_index,
                name,
            } => {
                let instance = frame
                    .core_instances
                    .get(instance_index as usize)
                    .ok_or_else(|| invalid("core instance index out of range", offset))?;
                let item = self.core_export(instance, name, offset)?;
                frame.core_space(kind).0.push(item);
            }
            ComponentAlias::Outer { kind, count, index } => {
                let (types, modules, components) = if count == 0 {
                    (&frame.types, &frame.modules, &frame.components)
                } else {
                    let mut scope = frame.outer.as_deref();
                    for _ in 1..count {
                        scope = scope.and_then(|s| s.parent.as_deref());
                    }
                    let scope = scope.ok_or_else(|| invalid("outer alias count out of range", offset))?;
                    (&scope.types, &scope.modules, &scope.components)
                };
                match kind {
                    ComponentOuterAliasKind::CoreModule => {
                        let m = get(modules, index, "module", offset)?;
                        frame.modules.push(m);
                    }
                    ComponentOuterAliasKind::Component => {
                        let c = get(components, index, "component", offset)?;
                        frame.components.push(c);
                    }
                    ComponentOuterAliasKind::Type => {
                        let t = get(&types.types, index, "type", offset)?;
                        frame.types.types.push(t);
                    }
                    ComponentOuterAliasKind::CoreType => {
                        let t: CoreTypeDef = get(&types.core_types, index, "core type", offset)?;
                        frame.types.core_types.push(t);
                    }
                }
            }
        }
        Ok(())
    }

    fn instance_export(&mut self, instance: &InstanceDef, name: &str, offset: u64) -> Result<ItemDef, TranslateError> {
        match instance {
            InstanceDef::Items(items) => items
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, item)| item.clone())
                .ok_or_else(|| invalid(format!("no export `{name}`"), offset)),
            InstanceDef::Import { at, ty } => {
                let export = self.types.instance(*ty).and_then(|t| t.export(name));
                let mut path = at.path.to_vec();
                path.push(name.to_string());
                let at = RuntimeImport {
                    import: at.import,
                    path: path.into(),
                };
                match export {
                    Some(ItemType::Func(ty)) => Ok(ItemDef::Func(FuncDef::Import {
                        import: self.runtime_import(at),
                        ty,
                    })),
                    Some(ItemType::Instance(ty)) => Ok(ItemDef::Instance(InstanceDef::Import { at, ty })),
                    Some(ItemType::Type(t)) => Ok(ItemDef::Type(t)),
                    Some(ItemType::Module(ty)) => Ok(ItemDef::Module(ModuleDef::Import { at, ty })),
                    Some(ItemType::Component(_)) => {
                        Err(unsupported("components exported by an imported instance", offset))
                    }
                    Some(ItemType::Value(_)) => Err(unsupported("component values", offset)),
                    None => Err(invalid(format!("no export `{name}`"), offset)),
                }
            }
        }
    }
}

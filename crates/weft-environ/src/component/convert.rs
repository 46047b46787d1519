//! Conversion of the type definitions of a component (`wasmparser`'s
//! syntax, with indices into the component's type index spaces) into the
//! [`ComponentTypes`] registry.

use super::types::*;
use crate::error::TranslateError;
use crate::translate::{convert_global, convert_memory, convert_table};
use crate::types::convert_val_type;
use crate::WasmFuncType;
use wasmparser::{
    ComponentAlias, ComponentDefinedType, ComponentExternalKind, ComponentFuncType, ComponentOuterAliasKind,
    ComponentType as WpComponentType, ComponentTypeDeclaration, ComponentTypeRef, ComponentValType, CoreType,
    InstanceTypeDeclaration, ModuleTypeDeclaration, PrimitiveValType, TypeBounds, TypeRef,
};

/// A core type of a component's core type index space.
#[derive(Debug, Clone)]
pub(crate) enum CoreTypeDef {
    Func(WasmFuncType),
    Module(TypeModuleIndex),
    /// A core type Weft does not use (GC types).
    Other,
}

/// The type index spaces of a component (what outer aliases of types reach).
#[derive(Debug, Clone, Default)]
pub(crate) struct TypeSpaces {
    pub types: Vec<AnyType>,
    pub core_types: Vec<CoreTypeDef>,
}

/// The type spaces of the enclosing components, innermost first.
pub(crate) trait OuterTypes {
    /// The spaces `count` components out (1: the enclosing component).
    fn outer(&self, count: u32) -> Option<&TypeSpaces>;
}

/// The index spaces of one instance or component type being converted.
#[derive(Default)]
struct DeclScope {
    types: Vec<AnyType>,
    core_types: Vec<CoreTypeDef>,
    instances: Vec<TypeInstanceIndex>,
    imports: Vec<(String, ItemType)>,
    exports: Vec<(String, ItemType)>,
}

/// Whether `ty` is a `<keytype>` of the explainer: the types a `map` key can
/// have (`bool`, the integers, `char` and `string`).
fn is_key_type(ty: InterfaceType) -> bool {
    use InterfaceType as T;
    matches!(
        ty,
        T::Bool | T::S8 | T::U8 | T::S16 | T::U16 | T::S32 | T::U32 | T::S64 | T::U64 | T::Char | T::String
    )
}

pub(crate) fn unsupported(what: impl std::fmt::Display, offset: u64) -> TranslateError {
    TranslateError {
        message: format!("unsupported: {what}"),
        offset,
    }
}

pub(crate) fn invalid(what: impl std::fmt::Display, offset: u64) -> TranslateError {
    TranslateError {
        message: format!("invalid component: {what}"),
        offset,
    }
}

/// Converts types in the context of one component's index spaces.
pub(crate) struct TypeConverter<'x, O: OuterTypes + ?Sized> {
    pub types: &'x mut ComponentTypes,
    pub spaces: &'x TypeSpaces,
    pub outer: &'x O,
    pub offset: u64,
    scopes: Vec<DeclScope>,
}

impl<'x, O: OuterTypes + ?Sized> TypeConverter<'x, O> {
    pub fn new(types: &'x mut ComponentTypes, spaces: &'x TypeSpaces, outer: &'x O, offset: u64) -> Self {
        TypeConverter {
            types,
            spaces,
            outer,
            offset,
            scopes: Vec::new(),
        }
    }

    /// The type spaces `count` levels out, counting type declarations
    /// being converted, then the component, then enclosing components.
    fn lookup(&self, count: u32, index: u32, core: bool) -> Result<Lookup, TranslateError> {
        let depth = self.scopes.len() as u32;
        let found = if count < depth {
            let scope = self.scopes.get((depth - 1 - count) as usize);
            if core {
                scope
                    .and_then(|s| s.core_types.get(index as usize))
                    .cloned()
                    .map(Lookup::Core)
            } else {
                scope
                    .and_then(|s| s.types.get(index as usize))
                    .copied()
                    .map(Lookup::Type)
            }
        } else {
            let spaces = match count - depth {
                0 => Some(self.spaces),
                n => self.outer.outer(n),
            };
            if core {
                spaces
                    .and_then(|s| s.core_types.get(index as usize))
                    .cloned()
                    .map(Lookup::Core)
            } else {
                spaces
                    .and_then(|s| s.types.get(index as usize))
                    .copied()
                    .map(Lookup::Type)
            }
        };
        found.ok_or_else(|| {
            invalid(
                format!("type index {index} (outer count {count}) out of range"),
                self.offset,
            )
        })
    }

    /// The component type at `index` of the innermost space.
    pub fn ty(&self, index: u32) -> Result<AnyType, TranslateError> {
        self.outer_ty(0, index)
    }

    /// The component type at `index`, `count` spaces out.
    pub fn outer_ty(&self, count: u32, index: u32) -> Result<AnyType, TranslateError> {
        match self.lookup(count, index, false)? {
            Lookup::Type(t) => Ok(t),
            Lookup::Core(_) => Err(invalid("expected a component type", self.offset)),
        }
    }

    /// The core type at `index`, `count` spaces out.
    pub fn outer_core_ty(&self, count: u32, index: u32) -> Result<CoreTypeDef, TranslateError> {
        match self.lookup(count, index, true)? {
            Lookup::Core(t) => Ok(t),
            Lookup::Type(_) => Err(invalid("expected a core type", self.offset)),
        }
    }

    fn func_ty(&self, index: u32) -> Result<TypeFuncIndex, TranslateError> {
        match self.ty(index)? {
            AnyType::Func(f) => Ok(f),
            _ => Err(invalid(format!("type {index} is not a function type"), self.offset)),
        }
    }

    fn instance_ty(&self, index: u32) -> Result<TypeInstanceIndex, TranslateError> {
        match self.ty(index)? {
            AnyType::Instance(i) => Ok(i),
            _ => Err(invalid(format!("type {index} is not an instance type"), self.offset)),
        }
    }

    fn resource_ty(&self, index: u32) -> Result<TypeResourceIndex, TranslateError> {
        match self.ty(index)? {
            AnyType::Resource(r) => Ok(r),
            _ => Err(invalid(format!("type {index} is not a resource type"), self.offset)),
        }
    }

    /// A value type.
    pub fn value(&mut self, ty: ComponentValType) -> Result<InterfaceType, TranslateError> {
        match ty {
            ComponentValType::Primitive(p) => Ok(primitive(p)),
            ComponentValType::Type(i) => match self.ty(i)? {
                AnyType::Value(v) => Ok(v),
                _ => Err(invalid(format!("type {i} is not a value type"), self.offset)),
            },
        }
    }

    fn opt_value(&mut self, ty: Option<ComponentValType>) -> Result<Option<InterfaceType>, TranslateError> {
        ty.map(|t| self.value(t)).transpose()
    }

    /// A defined value type.
    pub fn defined(&mut self, ty: &ComponentDefinedType<'_>) -> Result<InterfaceType, TranslateError> {
        let def = match ty {
            ComponentDefinedType::Primitive(p) => return Ok(primitive(*p)),
            ComponentDefinedType::Own(i) => return Ok(InterfaceType::Own(self.resource_ty(*i)?)),
            ComponentDefinedType::Borrow(i) => return Ok(InterfaceType::Borrow(self.resource_ty(*i)?)),
            ComponentDefinedType::Record(fields) => {
                let mut out = Vec::with_capacity(fields.len());
                for (name, t) in fields.iter() {
                    out.push(Field {
                        name: name.to_string(),
                        ty: self.value(*t)?,
                    });
                }
                DefinedType::Record(out.into())
            }
            ComponentDefinedType::Variant(cases) => {
                let mut out = Vec::with_capacity(cases.len());
                for case in cases.iter() {
                    out.push(Case {
                        name: case.name.to_string(),
                        ty: self.opt_value(case.ty)?,
                    });
                }
                DefinedType::Variant(out.into())
            }
            ComponentDefinedType::List(t) => DefinedType::List(self.value(*t)?),
            ComponentDefinedType::FixedLengthList(t, n) => DefinedType::FixedLengthList(self.value(*t)?, *n),
            ComponentDefinedType::Tuple(ts) => {
                let mut out = Vec::with_capacity(ts.len());
                for t in ts.iter() {
                    out.push(self.value(*t)?);
                }
                DefinedType::Tuple(out.into())
            }
            ComponentDefinedType::Flags(names) => DefinedType::Flags(names.iter().map(|n| n.to_string()).collect()),
            ComponentDefinedType::Enum(names) => DefinedType::Enum(names.iter().map(|n| n.to_string()).collect()),
            ComponentDefinedType::Option(t) => DefinedType::Option(self.value(*t)?),
            ComponentDefinedType::Result { ok, err } => DefinedType::Result {
                ok: self.opt_value(*ok)?,
                err: self.opt_value(*err)?,
            },
            ComponentDefinedType::Map(k, v) => {
                let key = self.value(*k)?;
                if !is_key_type(key) {
                    return Err(invalid(format!("{key:?} is not a valid map key type"), self.offset));
                }
                DefinedType::Map(key, self.value(*v)?)
            }
            ComponentDefinedType::Future(t) => DefinedType::Future(self.opt_value(*t)?),
            ComponentDefinedType::Stream(t) => DefinedType::Stream(self.opt_value(*t)?),
        };
        Ok(InterfaceType::Defined(self.types.intern_defined(def)))
    }

    /// A function type.
    pub fn func(&mut self, ty: &ComponentFuncType<'_>) -> Result<TypeFuncIndex, TranslateError> {
        let mut params = Vec::with_capacity(ty.params.len());
        for (name, t) in ty.params.iter() {
            params.push((name.to_string(), self.value(*t)?));
        }
        let result = self.opt_value(ty.result)?;
        Ok(self.types.intern_func(FuncType {
            is_async: ty.async_,
            params: params.into(),
            result,
        }))
    }

    /// A type definition other than a resource definition (which the
    /// inliner handles: it creates a resource at instantiation).
    pub fn component_type(&mut self, ty: &WpComponentType<'_>) -> Result<AnyType, TranslateError> {
        Ok(match ty {
            WpComponentType::Defined(d) => AnyType::Value(self.defined(d)?),
            WpComponentType::Func(f) => AnyType::Func(self.func(f)?),
            WpComponentType::Component(decls) => {
                self.scopes.push(DeclScope::default());
                let result = decls.iter().try_for_each(|d| self.component_decl(d));
                let scope = self.scopes.pop().unwrap_or_default();
                result?;
                AnyType::Component(self.types.intern_component(ComponentType {
                    imports: scope.imports.into(),
                    exports: scope.exports.into(),
                }))
            }
            WpComponentType::Instance(decls) => {
                self.scopes.push(DeclScope::default());
                let result = decls.iter().try_for_each(|d| self.instance_decl(d));
                let scope = self.scopes.pop().unwrap_or_default();
                result?;
                AnyType::Instance(self.types.intern_instance(InstanceType {
                    exports: scope.exports.into(),
                }))
            }
            WpComponentType::Resource { .. } => {
                return Err(invalid("resource definition inside a type", self.offset));
            }
        })
    }

    fn scope(&mut self) -> Result<&mut DeclScope, TranslateError> {
        let offset = self.offset;
        self.scopes
            .last_mut()
            .ok_or_else(|| invalid("declaration outside a type", offset))
    }

    fn component_decl(&mut self, decl: &ComponentTypeDeclaration<'_>) -> Result<(), TranslateError> {
        match decl {
            ComponentTypeDeclaration::Import(import) => {
                let ty = self.extern_type(import.ty)?;
                self.scope()?.imports.push((import.name.name.to_string(), ty));
                Ok(())
            }
            ComponentTypeDeclaration::CoreType(t) => self.instance_decl(&InstanceTypeDeclaration::CoreType(t.clone())),
            ComponentTypeDeclaration::Type(t) => self.instance_decl(&InstanceTypeDeclaration::Type(t.clone())),
            ComponentTypeDeclaration::Alias(a) => self.instance_decl(&InstanceTypeDeclaration::Alias(a.clone())),
            ComponentTypeDeclaration::Export { name, ty } => {
                self.instance_decl(&InstanceTypeDeclaration::Export { name: *name, ty: *ty })
            }
        }
    }

    fn instance_decl(&mut self, decl: &InstanceTypeDeclaration<'_>) -> Result<(), TranslateError> {
        match decl {
            InstanceTypeDeclaration::CoreType(t) => {
                let t = self.core_type(t)?;
                self.scope()?.core_types.push(t);
            }
            InstanceTypeDeclaration::Type(t) => {
                let t = self.component_type(t)?;
                self.scope()?.types.push(t);
            }
            InstanceTypeDeclaration::Alias(alias) => self.decl_alias(alias)?,
            InstanceTypeDeclaration::Export { name, ty } => {
                let ty = self.extern_type(*ty)?;
                self.scope()?.exports.push((name.name.to_string(), ty));
            }
        }
        Ok(())
    }

    fn decl_alias(&mut self, alias: &ComponentAlias<'_>) -> Result<(), TranslateError> {
        match *alias {
            ComponentAlias::Outer {
                kind: ComponentOuterAliasKind::Type,
                count,
                index,
            } => {
                let t = self.outer_ty(count, index)?;
                self.scope()?.types.push(t);
            }
            ComponentAlias::Outer {
                kind: ComponentOuterAliasKind::CoreType,
                count,
                index,
            } => {
                let t = self.outer_core_ty(count, index)?;
                self.scope()?.core_types.push(t);
            }
            ComponentAlias::InstanceExport {
                kind,
                instance_index,
                name,
            } => {
                let offset = self.offset;
                let instance = *self
                    .scope()?
                    .instances
                    .get(instance_index as usize)
                    .ok_or_else(|| invalid("instance index out of range", offset))?;
                let export = self.types.instance(instance).and_then(|i| i.export(name));
                match (kind, export) {
                    (ComponentExternalKind::Type, Some(ItemType::Type(t))) => self.scope()?.types.push(t),
                    (ComponentExternalKind::Instance, Some(ItemType::Instance(t))) => self.scope()?.instances.push(t),
                    (ComponentExternalKind::Type | ComponentExternalKind::Instance, _) => {
                        return Err(invalid(format!("no export `{name}` of that kind"), offset))
                    }
                    // Other sorts have no index space that types can name.
                    _ => {}
                }
            }
            // Core modules, components and core instance exports cannot
            // appear in types (validation rejects them).
            _ => {}
        }
        Ok(())
    }

    /// The type of an import or export, declaring the resource variables
    /// and instances it introduces in the current declaration scope.
    fn extern_type(&mut self, ty: ComponentTypeRef) -> Result<ItemType, TranslateError> {
        Ok(match ty {
            ComponentTypeRef::Module(i) => match self.outer_core_ty(0, i)? {
                CoreTypeDef::Module(m) => ItemType::Module(m),
                _ => return Err(invalid(format!("core type {i} is not a module type"), self.offset)),
            },
            ComponentTypeRef::Func(i) => ItemType::Func(self.func_ty(i)?),
            ComponentTypeRef::Value(v) => ItemType::Value(self.value(v)?),
            ComponentTypeRef::Type(TypeBounds::Eq(i)) => {
                let t = self.ty(i)?;
                self.scope()?.types.push(t);
                ItemType::Type(t)
            }
            ComponentTypeRef::Type(TypeBounds::SubResource) => {
                let r = self.types.fresh_abstract_resource();
                self.scope()?.types.push(AnyType::Resource(r));
                ItemType::Type(AnyType::Resource(r))
            }
            ComponentTypeRef::Instance(i) => {
                let t = self.instance_ty(i)?;
                self.scope()?.instances.push(t);
                ItemType::Instance(t)
            }
            ComponentTypeRef::Component(i) => match self.ty(i)? {
                AnyType::Component(c) => ItemType::Component(c),
                _ => return Err(invalid(format!("type {i} is not a component type"), self.offset)),
            },
        })
    }

    /// A core type definition (function types and module types).
    pub fn core_type(&mut self, ty: &CoreType<'_>) -> Result<CoreTypeDef, TranslateError> {
        match ty {
            CoreType::Rec(group) => {
                let mut types = group.types();
                match (types.len(), types.next()) {
                    (1, Some(sub)) => Ok(match &sub.composite_type.inner {
                        wasmparser::CompositeInnerType::Func(f) => CoreTypeDef::Func(self.core_func(f)?),
                        _ => CoreTypeDef::Other,
                    }),
                    _ => Ok(CoreTypeDef::Other),
                }
            }
            CoreType::Module(decls) => {
                let mut local: Vec<CoreTypeDef> = Vec::new();
                let mut imports = Vec::new();
                let mut exports = Vec::new();
                for decl in decls.iter() {
                    match decl {
                        ModuleTypeDeclaration::Type(group) => {
                            local.push(self.core_type(&CoreType::Rec(group.clone()))?);
                        }
                        ModuleTypeDeclaration::OuterAlias { count, index, .. } => {
                            let t = match count.checked_sub(1) {
                                None => local.get(*index as usize).cloned(),
                                Some(c) => Some(self.outer_core_ty(c, *index)?),
                            };
                            local.push(t.ok_or_else(|| invalid("core type index out of range", self.offset))?);
                        }
                        ModuleTypeDeclaration::Import(import) => imports.push((
                            import.module.to_string(),
                            import.name.to_string(),
                            self.core_item_type(&local, import.ty)?,
                        )),
                        ModuleTypeDeclaration::Export { name, ty } => {
                            exports.push((name.to_string(), self.core_item_type(&local, *ty)?))
                        }
                    }
                }
                Ok(CoreTypeDef::Module(self.types.intern_module(ModuleType {
                    imports: imports.into(),
                    exports: exports.into(),
                })))
            }
        }
    }

    fn core_func(&self, f: &wasmparser::FuncType) -> Result<WasmFuncType, TranslateError> {
        let convert = |ts: &[wasmparser::ValType]| {
            ts.iter()
                .map(|t| convert_val_type(*t))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| unsupported(e, self.offset))
        };
        Ok(WasmFuncType::new(convert(f.params())?, convert(f.results())?))
    }

    fn core_item_type(&self, local: &[CoreTypeDef], ty: TypeRef) -> Result<CoreItemType, TranslateError> {
        let func = |i: u32| match local.get(i as usize) {
            Some(CoreTypeDef::Func(f)) => Ok(f.clone()),
            _ => Err(invalid(format!("core type {i} is not a function type"), self.offset)),
        };
        let offset = self.offset;
        Ok(match ty {
            TypeRef::Func(i) | TypeRef::FuncExact(i) => CoreItemType::Func(func(i)?),
            TypeRef::Tag(t) => CoreItemType::Tag(func(t.func_type_idx)?),
            TypeRef::Table(t) => CoreItemType::Table(convert_table(t).map_err(|e| unsupported(e, offset))?),
            TypeRef::Memory(m) => CoreItemType::Memory(convert_memory(m).map_err(|e| unsupported(e, offset))?),
            TypeRef::Global(g) => CoreItemType::Global(convert_global(g).map_err(|e| unsupported(e, offset))?),
        })
    }
}

enum Lookup {
    Type(AnyType),
    Core(CoreTypeDef),
}

/// The value type of a primitive.
pub(crate) fn primitive(p: PrimitiveValType) -> InterfaceType {
    use InterfaceType as T;
    match p {
        PrimitiveValType::Bool => T::Bool,
        PrimitiveValType::S8 => T::S8,
        PrimitiveValType::U8 => T::U8,
        PrimitiveValType::S16 => T::S16,
        PrimitiveValType::U16 => T::U16,
        PrimitiveValType::S32 => T::S32,
        PrimitiveValType::U32 => T::U32,
        PrimitiveValType::S64 => T::S64,
        PrimitiveValType::U64 => T::U64,
        PrimitiveValType::F32 => T::F32,
        PrimitiveValType::F64 => T::F64,
        PrimitiveValType::Char => T::Char,
        PrimitiveValType::String => T::String,
        PrimitiveValType::ErrorContext => T::ErrorContext,
    }
}

//! First pass: the component's bytes, already validated, into a tree of
//! static components (their definitions in order, borrowed from the input)
//! and the static core modules found anywhere in it.

use super::plan::StaticModuleIndex;
use crate::error::TranslateError;
use crate::translate::{translate_module, translate_module_trusting_bodies, ModuleTranslation};
use wasmparser::{
    CanonicalFunction, ComponentAlias, ComponentExport, ComponentImport, ComponentInstance, ComponentType, CoreType,
    Encoding, Instance, Parser, Payload, WasmFeatures,
};

/// A core module found in a component's bytes.
pub struct StaticModule<'a> {
    /// The module's translation. Offsets in it (function bodies, errors)
    /// are relative to `bytes`.
    pub translation: ModuleTranslation<'a>,
    /// The module's bytes, borrowed from the component's.
    pub bytes: &'a [u8],
    /// Where `bytes` starts in the component's bytes.
    pub offset: u64,
}

/// A component found in the bytes (the root or a nested one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct StaticComponentIndex(pub u32);

/// One definition of a component, in order, with its byte offset.
pub(crate) enum Definition<'a> {
    Import(ComponentImport<'a>),
    Export(ComponentExport<'a>),
    CoreInstance(Instance<'a>),
    Instance(ComponentInstance<'a>),
    Alias(ComponentAlias<'a>),
    Type(ComponentType<'a>),
    CoreType(CoreType<'a>),
    Canon(CanonicalFunction),
    Module(StaticModuleIndex),
    Component(StaticComponentIndex),
    Start,
}

/// The definitions of one component.
#[derive(Default)]
pub(crate) struct StaticComponent<'a> {
    pub definitions: Vec<(Definition<'a>, u64)>,
}

/// The result of the first pass.
pub(crate) struct Parsed<'a> {
    pub modules: Vec<StaticModule<'a>>,
    pub components: Vec<StaticComponent<'a>>,
    pub root: StaticComponentIndex,
}

fn error(message: impl Into<String>, offset: u64) -> TranslateError {
    TranslateError {
        message: message.into(),
        offset,
    }
}

fn items<'a, T: wasmparser::FromReader<'a>>(
    reader: wasmparser::SectionLimited<'a, T>,
    out: &mut StaticComponent<'a>,
    wrap: impl Fn(T) -> Definition<'a>,
) -> Result<(), TranslateError> {
    for item in reader.into_iter_with_offsets() {
        let (offset, item) = item?;
        out.definitions.push((wrap(item), offset));
    }
    Ok(())
}

/// Splits validated component bytes into static components and modules.
/// With `trust_bodies`, the core modules' function bodies are not validated
/// again (the caller validated the whole component with `features`).
pub(crate) fn parse(bytes: &[u8], features: WasmFeatures, trust_bodies: bool) -> Result<Parsed<'_>, TranslateError> {
    let mut modules = Vec::new();
    let mut components: Vec<StaticComponent<'_>> = Vec::new();
    let mut stack: Vec<StaticComponent<'_>> = Vec::new();
    let mut in_module = false;
    let mut root = None;

    for payload in Parser::new(0).parse_all(bytes) {
        let payload = payload?;
        if in_module {
            if let Payload::End(_) = payload {
                in_module = false;
            }
            continue;
        }
        let current = stack.last_mut();
        match (payload, current) {
            (Payload::Version { encoding, range, .. }, _) => match encoding {
                Encoding::Component => stack.push(StaticComponent::default()),
                Encoding::Module => return Err(error("expected a component, found a core module", range.start)),
            },
            (Payload::End(offset), _) => {
                let done = stack.pop().ok_or_else(|| error("unbalanced component end", offset))?;
                let index = StaticComponentIndex(components.len() as u32);
                components.push(done);
                match stack.last_mut() {
                    Some(parent) => parent.definitions.push((Definition::Component(index), offset)),
                    None => root = Some(index),
                }
            }
            (Payload::ModuleSection { unchecked_range, .. }, Some(current)) => {
                let start = unchecked_range.start;
                let module_bytes = usize::try_from(start)
                    .ok()
                    .zip(usize::try_from(unchecked_range.end).ok())
                    .and_then(|(s, e)| bytes.get(s..e))
                    .ok_or_else(|| error("module section out of bounds", start))?;
                // `translate_component` validated the whole component, function
                // bodies included, before this pass: unless told otherwise,
                // they are not validated again.
                let translation = if trust_bodies {
                    translate_module_trusting_bodies(module_bytes, features)
                } else {
                    translate_module(module_bytes, features)
                }
                .map_err(|e| TranslateError {
                    message: e.message,
                    offset: e.offset + start,
                })?;
                let index = StaticModuleIndex(modules.len() as u32);
                modules.push(StaticModule {
                    translation,
                    bytes: module_bytes,
                    offset: start,
                });
                current.definitions.push((Definition::Module(index), start));
                in_module = true;
            }
            (Payload::ComponentSection { .. }, _) => {}
            (Payload::InstanceSection(r), Some(c)) => items(r, c, Definition::CoreInstance)?,
            (Payload::CoreTypeSection(r), Some(c)) => items(r, c, Definition::CoreType)?,
            (Payload::ComponentInstanceSection(r), Some(c)) => items(r, c, Definition::Instance)?,
            (Payload::ComponentAliasSection(r), Some(c)) => items(r, c, Definition::Alias)?,
            (Payload::ComponentTypeSection(r), Some(c)) => items(r, c, Definition::Type)?,
            (Payload::ComponentCanonicalSection(r), Some(c)) => items(r, c, Definition::Canon)?,
            (Payload::ComponentImportSection(r), Some(c)) => items(r, c, Definition::Import)?,
            (Payload::ComponentExportSection(r), Some(c)) => items(r, c, Definition::Export)?,
            (Payload::ComponentStartSection { range, .. }, Some(c)) => {
                c.definitions.push((Definition::Start, range.start));
            }
            (Payload::CustomSection(_), _) => {}
            (payload, _) => {
                let offset = payload.as_section().map(|(_, r)| r.start).unwrap_or(0);
                return Err(error("unexpected section in a component", offset));
            }
        }
    }
    let root = root.ok_or_else(|| error("unexpected end of component", bytes.len() as u64))?;
    Ok(Parsed {
        modules,
        components,
        root,
    })
}

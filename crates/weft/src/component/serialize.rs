//! Precompiled components: the bytes written by `Component::serialize` and
//! `Engine::precompile_component`, read back by `Component::deserialize`.
//!
//! Layout (little endian, the helpers of `crate::serialize`): the magic
//! `\0weft-ccomp`, a format number, the Weft version, the CPU, the core and
//! component-model features the component was validated and translated
//! with (which the reading engine must enable, and may add to) and the rest
//! of the engine configuration that changes code (checked as for a
//! module); the translated component (its plan, its type registry and the
//! types of its exports, with `postcard`); each core module, by
//! `StaticModuleIndex`, as `Module::serialize` writes it; each distinct
//! fused adapter module, likewise; and which adapter each `Lower` step
//! uses.
//!
//! Loading translates nothing of the component and compiles nothing: the
//! plan and types are read as they were written, and each core module is
//! read as `Module::deserialize` reads one (its translation decoded, its
//! code mapped as written).

use super::component::{component_features, ComponentInner};
use super::Component;
use crate::serialize::{put_bytes, put_u32, write_header, Reader, COMPONENT_MAGIC};
use crate::{Engine, Module};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use weft_environ::component::{self as env, ComponentTypes};

// 2: the core code of format 6 (see `crate::serialize`).
// 3: the features apart from the rest of the configuration, as format 7 of
// core code.
// 4: core modules of format 8 (their translations, not their binaries).
// 5: core modules of format 9 (with their memory images).
// 6: core modules of format 10.
// 7: core modules of format 11.
// 8: core modules of format 12.
const FORMAT: u32 = 9;

impl Component {
    /// The component in precompiled form: the compiled code of each of its
    /// core modules and fused adapters, and its translation (plan and
    /// types), for [`Component::deserialize`] by an engine of the same Weft
    /// version and configuration on the same kind of CPU (as
    /// [`Engine::precompile_component`] makes it).
    pub fn serialize(&self) -> crate::Result<Vec<u8>> {
        write(self)
    }

    /// A component from the bytes of [`Component::serialize`] or
    /// [`Engine::precompile_component`], without translating or compiling
    /// anything: the plan and types are read as written and each core
    /// module's code is mapped as written (as [`Module::deserialize`]
    /// does). Fails with a clear error when the bytes are a precompiled
    /// core module rather than a component, are truncated, or were made by
    /// another Weft version, for another CPU, with a feature the engine
    /// does not enable or with another code-changing configuration (code
    /// compiled with fewer features than the engine enables loads).
    ///
    /// # Safety
    ///
    /// As for [`Module::deserialize`]: the bytes are trusted to be Weft's
    /// output, made by `serialize` or `precompile_component` and kept where
    /// no one else can change them. The checks above catch accidents, not
    /// malice; altered bytes can make the mapped code do anything the
    /// process may do. (This function itself uses no `unsafe` code: the
    /// contract is what is unsafe.)
    #[allow(
        unsafe_code,
        reason = "Component::deserialize is unsafe, as in Wasmtime: it trusts the bytes to be Weft's output"
    )]
    pub unsafe fn deserialize(engine: &Engine, bytes: impl AsRef<[u8]>) -> crate::Result<Component> {
        read(engine, bytes.as_ref())
    }

    /// [`Component::deserialize`] of the contents of the file at `path`.
    ///
    /// # Safety
    ///
    /// As for [`Component::deserialize`]: the file must have been written
    /// by Weft and kept where no one else can change it.
    #[allow(
        unsafe_code,
        reason = "Component::deserialize_file is unsafe, as in Wasmtime: it trusts the file to be Weft's output"
    )]
    pub unsafe fn deserialize_file(engine: &Engine, path: impl AsRef<Path>) -> crate::Result<Component> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| crate::format_err!("failed to read `{}`: {e}", path.display()))?;
        read(engine, &bytes)
            .map_err(|e| e.context(format!("failed to load the precompiled component `{}`", path.display())))
    }
}

impl Engine {
    /// Compiles the component in `bytes` (binary, or text with the `wat`
    /// feature) into the precompiled form that
    /// [`Component::deserialize`] reads.
    pub fn precompile_component(&self, bytes: &[u8]) -> crate::Result<Vec<u8>> {
        Component::new(self, bytes)?.serialize()
    }
}

/// The translated component, as written.
#[derive(serde::Serialize)]
struct MetaRef<'a> {
    plan: &'a env::Component,
    types: &'a ComponentTypes,
    export_types: &'a [(String, env::ItemType)],
}

/// The translated component, as read.
#[derive(serde::Deserialize)]
struct Meta {
    plan: env::Component,
    types: ComponentTypes,
    export_types: Vec<(String, env::ItemType)>,
}

/// The precompiled form of `component`.
pub(crate) fn write(component: &Component) -> crate::Result<Vec<u8>> {
    let inner = &component.inner;
    let mut out = Vec::new();
    // The features the component was validated and translated with, core
    // and component-model ones; an engine enabling more loads it.
    let config = &inner.engine.inner.config;
    write_header(
        &mut out,
        COMPONENT_MAGIC,
        FORMAT,
        component_features(config),
        &crate::serialize::tunables(config),
    );
    let meta = postcard::to_stdvec(&MetaRef {
        plan: &inner.plan,
        types: &inner.types,
        export_types: &inner.export_types,
    })
    .map_err(|e| crate::format_err!("failed to write the component's translation: {e}"))?;
    put_bytes(&mut out, &meta);
    put_u32(&mut out, inner.modules.len() as u32);
    for module in &inner.modules {
        put_bytes(&mut out, &module.serialize()?);
    }
    // Adapters are shared between steps of the same type and options:
    // each distinct module is written once.
    let mut distinct: Vec<&Module> = Vec::new();
    let mut uses: Vec<(usize, usize)> = Vec::with_capacity(inner.adapters.len());
    let mut steps: Vec<_> = inner.adapters.iter().collect();
    steps.sort_by_key(|(step, _)| **step);
    for (step, module) in steps {
        let at = match distinct.iter().position(|m| Arc::ptr_eq(&m.inner, &module.inner)) {
            Some(at) => at,
            None => {
                distinct.push(module);
                distinct.len() - 1
            }
        };
        uses.push((*step, at));
    }
    put_u32(&mut out, distinct.len() as u32);
    for module in distinct {
        put_bytes(&mut out, &module.serialize()?);
    }
    put_u32(&mut out, uses.len() as u32);
    for (step, at) in uses {
        put_u32(&mut out, step as u32);
        put_u32(&mut out, at as u32);
    }
    Ok(out)
}

/// A component from the bytes of [`write()`], for `engine`. Fails with an
/// error that says what is wrong: not a precompiled component (a core
/// module's, or no precompiled output at all), truncated, made by another
/// Weft, for another CPU or for another engine configuration.
pub(crate) fn read(engine: &Engine, bytes: &[u8]) -> crate::Result<Component> {
    let config = &engine.inner.config;
    let mut r = Reader {
        bytes,
        what: "component",
    };
    r.header(
        COMPONENT_MAGIC,
        FORMAT,
        component_features(config),
        &crate::serialize::tunables(config),
    )?;
    let meta: Meta = postcard::from_bytes(r.bytes()?)
        .map_err(|e| crate::format_err!("the precompiled component is corrupt (its translation: {e})"))?;
    let n = r.count(8)?;
    let mut modules = Vec::with_capacity(n);
    for i in 0..n {
        let module = Module::from_precompiled(engine, r.bytes()?)
            .map_err(|e| e.context(format!("in core module {i} of the precompiled component")))?;
        modules.push(module);
    }
    let n = r.count(8)?;
    let mut distinct = Vec::with_capacity(n);
    for i in 0..n {
        let module = Module::from_precompiled(engine, r.bytes()?)
            .map_err(|e| e.context(format!("in fused adapter {i} of the precompiled component")))?;
        distinct.push(module);
    }
    let n = r.count(8)?;
    let mut adapters = HashMap::with_capacity(n);
    for _ in 0..n {
        let step = r.u32()? as usize;
        let at = r.u32()? as usize;
        let module = distinct
            .get(at)
            .ok_or_else(|| crate::format_err!("the precompiled component is corrupt (adapter {at})"))?;
        adapters.insert(step, module.clone());
    }
    if !r.bytes.is_empty() {
        crate::bail!("the precompiled component has trailing bytes");
    }
    check(&meta, modules.len(), &adapters)?;
    let types = Arc::new(meta.types);
    let type_space = Arc::new(super::types::TypeSpace::new(engine, types.clone()));
    Ok(Component {
        inner: Arc::new(ComponentInner {
            engine: engine.clone(),
            lowered: ComponentInner::lowered_slots(&meta.plan),
            store_funcs: ComponentInner::store_funcs(&meta.plan, modules.iter().chain(adapters.values())),
            host_funcs: ComponentInner::host_funcs(&meta.plan),
            plan: meta.plan,
            types,
            type_space,
            export_types: meta.export_types.into(),
            modules,
            adapters,
        }),
    })
}

/// Checks what the plan names against what was read with it: every static
/// module it instantiates exists, and every component-to-component
/// `Lower` step has its adapter.
fn check(meta: &Meta, modules: usize, adapters: &HashMap<usize, Module>) -> crate::Result<()> {
    for (i, step) in meta.plan.steps.iter().enumerate() {
        match step {
            env::Step::InstantiateModule {
                module: env::ModuleRef::Static(m),
                ..
            } if m.0 as usize >= modules => {
                crate::bail!(
                    "the precompiled component is corrupt (step {i} names core module {})",
                    m.0
                )
            }
            env::Step::Lower {
                callee: env::LowerCallee::Lifted { .. },
                ..
            } if !adapters.contains_key(&i) => {
                crate::bail!("the precompiled component is corrupt (step {i} has no fused adapter)")
            }
            _ => {}
        }
    }
    Ok(())
}

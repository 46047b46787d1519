//! Translation of components into plain data (the `component-model`
//! feature).
//!
//! [`translate_component`] validates a component with `wasmparser`, then
//! makes two passes over it:
//!
//! 1. `parse`: the bytes into a tree of static components (their
//!    definitions in order, borrowed from the input) and the static core
//!    modules found anywhere in it, each translated by
//!    [`crate::translate_module_trusting_bodies`] (the whole component,
//!    bodies included, was validated first);
//! 2. `inline`: the root component is instantiated symbolically. Nested
//!    components, component instances and aliases are resolved at
//!    translation time, so that what is left for a runtime is a flat
//!    [`Component`] plan of [`Step`]s over core items (see [`plan`]).
//!
//! Component types are converted during the second pass into the
//! [`ComponentTypes`] registry ([`types`]), hash-consed per translation, and
//! [`abi`] computes the canonical ABI's layouts from them.
//!
//! The async built-ins (`task.*`, `stream.*`, `future.*`, `waitable-set.*`,
//! `subtask.*`, `context.*`, `error-context.*`, `backpressure.*`) and the
//! `thread.*` built-ins of the threading proposal become
//! [`Step::Builtin`]s; `stream` and `future` types are [`DefinedType`]s.
//! Whether they validate depends on the features passed in (see
//! [`async_component_features`]).
//!
//! Constructs Weft does not support yet fail with a [`TranslateError`]
//! whose message starts with `unsupported: `: component values and start
//! functions, shared-everything threads (`thread.spawn-*`,
//! `thread.available-parallelism`), `stream.forward`/`future.forward`, the
//! GC canonical ABI, and core modules or components imported by (or
//! components exported from) the root.

pub mod abi;
#[cfg(test)]
mod abi_tests;
pub mod adapter;
mod convert;
mod inline;
mod layout;
mod parse;
pub mod plan;
pub mod types;

pub use parse::StaticModule;
pub use plan::*;
pub use types::*;

use crate::error::TranslateError;
use wasmparser::{Validator, WasmFeatures};

/// A translated component: its core modules, its plan and its types.
pub struct ComponentTranslation<'a> {
    /// Every core module of the component, nested components included, in
    /// the order of the bytes ([`StaticModuleIndex`]).
    pub modules: Vec<StaticModule<'a>>,
    /// The root component's imports, instantiation plan and exports.
    pub component: Component,
    /// The registry every type index of `component` points into.
    pub types: ComponentTypes,
}

/// The features [`translate_component`] is meant to be called with: the
/// core features of [`crate::supported_features`] and the component model.
pub fn supported_component_features() -> WasmFeatures {
    crate::supported_features()
        | WasmFeatures::COMPONENT_MODEL
        | WasmFeatures::CM_IMPLEMENTS
        | WasmFeatures::CM_MAP
        | WasmFeatures::CM_FIXED_LENGTH_LISTS
}

/// The wasmparser features of the component-model async ABI that Weft
/// translates: `async` functions and built-ins, `stream`/`future`, the
/// stackful ABI, the threading built-ins and `error-context`. A runtime
/// adds them to [`supported_component_features`] when it runs the async
/// ABI.
pub fn async_component_features() -> WasmFeatures {
    WasmFeatures::CM_ASYNC
        | WasmFeatures::CM_MORE_ASYNC_BUILTINS
        | WasmFeatures::CM_ASYNC_STACKFUL
        | WasmFeatures::CM_THREADING
        | WasmFeatures::CM_ERROR_CONTEXT
}

/// wasmparser's message for a construct that needs a feature, with the
/// construct named where wasmparser leaves it out (the stackful async ABI).
fn name_construct(message: &str) -> std::borrow::Cow<'_, str> {
    match message {
        "requires the component model async stackful feature" => {
            "an `async` lift without a `callback` requires the component model async stackful feature".into()
        }
        _ => message.into(),
    }
}

/// Validates `bytes`, a component, with `features` and translates it.
///
/// Validation covers the whole component (core function bodies included)
/// before anything is translated; errors carry `wasmparser`'s message and
/// byte offset; a component that is valid only with proposals `features`
/// lacks fails with an `unsupported: ` error. Each core module is then
/// translated with [`crate::translate_module_trusting_bodies`] and
/// `features` (its bodies were validated with the component).
///
/// One exception: a component valid only with the GC proposal is accepted
/// when its core modules are valid without it (its own core type
/// definitions use GC's syntax, e.g. non-final `sub` types); the modules
/// are then validated whole, bodies included, with `features`.
pub fn translate_component(bytes: &[u8], features: WasmFeatures) -> Result<ComponentTranslation<'_>, TranslateError> {
    let mut trust_bodies = true;
    if let Err(e) = Validator::new_with_features(features).validate_all(bytes) {
        let valid_with = |f: WasmFeatures| Validator::new_with_features(f).validate_all(bytes).is_ok();
        if !features.contains(WasmFeatures::GC) && valid_with(features | WasmFeatures::GC) {
            // Valid once GC types may be declared: the component's own core
            // type definitions may use GC's type syntax (e.g. a non-final
            // `sub` function type) without any GC value reaching code. Its
            // core modules are validated again on their own, without GC,
            // so a module that uses GC is still refused.
            trust_bodies = false;
        } else if valid_with(WasmFeatures::all()) {
            // Valid with every proposal: it needs one that is not enabled.
            return Err(TranslateError {
                message: format!(
                    "unsupported: {} (a proposal that is not enabled)",
                    name_construct(e.message())
                ),
                offset: e.offset(),
            });
        } else {
            return Err(e.into());
        }
    }
    let parsed = parse::parse(bytes, features, trust_bodies)?;
    let mut inliner = inline::Inliner::new(&parsed);
    inliner.run_root()?;
    let inline::Inliner { types, plan, .. } = inliner;
    Ok(ComponentTranslation {
        modules: parsed.modules,
        component: plan,
        types,
    })
}

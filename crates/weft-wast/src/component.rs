//! Component-model directives: `(component ...)`, `(component definition)`,
//! `(component instance)`, `invoke`, `assert_return` and `assert_trap` of
//! component exports, and `assert_invalid`, `assert_malformed` and
//! `assert_unlinkable` of components.
//!
//! Components are compiled with [`weft::component::Component::new`] and
//! instantiated with a component [`Linker`]; every import the linker does not
//! define is defined as a function that fails when called
//! ([`Linker::define_unknown_imports_as_traps`]), as `wasmtime-wast` does.
//!
//! # Trap messages
//!
//! A component `assert_trap` passes when the action fails with an error
//! whose full chain (`{:#}`: the core [`Trap`] or canonical ABI trap and
//! its context) contains the expected text. A trap with another message,
//! or any other error (a type mismatch, an unsupported feature), fails the
//! directive.

use anyhow::{anyhow, bail, Context as _, Result};
use std::collections::{HashMap, HashSet};
use wast::component::WastVal;
use wast::core::{NanPattern, WastArgCore, WastRetCore};
use wast::token::{Id, F32, F64};
use wast::{QuoteWat, WastDirective, WastExecute, WastInvoke, WastRet, Wat};
use weft::component::types::ComponentItem;
use weft::component::{Component, ComponentExportIndex, Instance, Linker, LinkerInstance, Val};
use weft::Trap;

// Import loop kept on purpose: this file is the component half of the
// runner (lib.rs), which calls it for component commands.
use crate::{error_summary, locate, WastContext};

/// The component part of a [`WastContext`]: the component linker and the
/// components and component instances named so far.
pub(crate) struct ComponentState<T: 'static> {
    linker: Linker<T>,
    /// The component instance unnamed actions refer to, when the most recent
    /// module-like directive was a component.
    pub(crate) current: Option<Instance>,
    /// Component instances named in the script.
    instances: HashMap<String, Instance>,
    /// The component each instance of the script was made from (for the
    /// export types `register` walks).
    instance_components: HashMap<Instance, Component>,
    /// Components named by `(component definition $c ...)` or
    /// `(component $c ...)`.
    definitions: HashMap<String, Component>,
    /// Components whose definition failed, for the messages of the
    /// `component instance` directives that name them.
    failed_definitions: HashSet<String>,
    /// The most recent `component definition`.
    last_definition: Option<Component>,
    /// Whether the most recent definition (`module definition` or
    /// `component definition`) was a component.
    pub(crate) last_definition_is_component: bool,
}

impl<T: 'static> ComponentState<T> {
    pub(crate) fn new(engine: &weft::Engine) -> Self {
        let mut linker = Linker::new(engine);
        linker.allow_shadowing(true);
        ComponentState {
            linker,
            current: None,
            instances: HashMap::new(),
            instance_components: HashMap::new(),
            definitions: HashMap::new(),
            failed_definitions: HashSet::new(),
            last_definition: None,
            last_definition_is_component: false,
        }
    }
}

impl<T: 'static> ComponentState<T> {
    /// The component linker scripts instantiate with.
    pub(crate) fn linker_mut(&mut self) -> &mut Linker<T> {
        &mut self.linker
    }
}

/// What [`WastContext::component_directive`] did with a directive.
pub(crate) enum Handled<'a> {
    /// It was a component directive, with this outcome.
    Done(Result<()>),
    /// It is not about components: the core runner carries it out.
    Core(WastDirective<'a>),
}

/// Whether a (possibly quoted) module of the script is a component.
pub(crate) fn is_component(module: &QuoteWat<'_>) -> bool {
    matches!(module, QuoteWat::Wat(Wat::Component(_)) | QuoteWat::QuoteComponent(..))
}

impl<T: 'static> WastContext<T> {
    /// Carries out `directive` if it is about components, or hands it back.
    pub(crate) fn component_directive<'a>(&mut self, directive: WastDirective<'a>, text: &str) -> Handled<'a> {
        match directive {
            WastDirective::Module(mut module) if is_component(&module) => {
                Handled::Done(self.component_module(&mut module, text))
            }
            WastDirective::ModuleDefinition(mut module) if is_component(&module) => {
                let name = module.name().map(|id| id.name().to_string());
                let result = self.compile_component(&mut module, text);
                self.components.last_definition_is_component = true;
                let compiled = match result {
                    Ok(compiled) => compiled,
                    Err(err) => {
                        self.components.last_definition = None;
                        if let Some(name) = name {
                            self.components.definitions.remove(&name);
                            self.components.failed_definitions.insert(name);
                        }
                        return Handled::Done(Err(err));
                    }
                };
                if let Some(name) = name {
                    self.components.failed_definitions.remove(&name);
                    self.components.definitions.insert(name, compiled.clone());
                }
                self.components.last_definition = Some(compiled);
                Handled::Done(Ok(()))
            }
            WastDirective::ModuleInstance { instance, module, span } => {
                let is_component = match module {
                    Some(id) => {
                        self.components.definitions.contains_key(id.name())
                            || self.components.failed_definitions.contains(id.name())
                    }
                    None => self.components.last_definition_is_component,
                };
                if is_component {
                    let (line, column) = span.linecol_in(text);
                    let result = self.component_instance(instance, module);
                    if result.is_err() {
                        self.failed_module_at = Some((line + 1, column + 1));
                    }
                    Handled::Done(result)
                } else {
                    Handled::Core(WastDirective::ModuleInstance { instance, module, span })
                }
            }
            WastDirective::Register { name, module, .. } if self.component_target(module).is_some() => {
                Handled::Done(self.component_register(name, module))
            }
            WastDirective::Invoke(invoke) if self.component_target(invoke.module).is_some() => {
                Handled::Done(match self.component_invoke(&invoke) {
                    Ok(Ok(_)) => Ok(()),
                    Ok(Err(err)) => Err(anyhow!("invoking {:?} failed: {}", invoke.name, error_summary(&err))),
                    Err(err) => Err(err),
                })
            }
            WastDirective::AssertReturn { exec, results, span } => {
                if !self.is_component_exec(&exec) {
                    return Handled::Core(WastDirective::AssertReturn { exec, results, span });
                }
                Handled::Done(self.component_assert_return(exec, &results, text))
            }
            WastDirective::AssertTrap { exec, message, span } => {
                if !self.is_component_exec(&exec) {
                    return Handled::Core(WastDirective::AssertTrap { exec, message, span });
                }
                Handled::Done(self.component_assert_trap(exec, message, text))
            }
            WastDirective::AssertInvalid {
                mut module, message, ..
            }
            | WastDirective::AssertMalformed {
                mut module, message, ..
            } if is_component(&module) => Handled::Done(match self.compile_component(&mut module, text) {
                Ok(_) => Err(anyhow!(
                    "expected the component to be rejected ({message:?}), but it compiled"
                )),
                Err(_) => Ok(()),
            }),
            WastDirective::AssertInvalidCustom { module, .. } | WastDirective::AssertMalformedCustom { module, .. }
                if is_component(&module) =>
            {
                Handled::Done(Err(anyhow!(
                    "custom-section assertions on components are not supported"
                )))
            }
            WastDirective::AssertUnlinkable {
                module: Wat::Component(component),
                message,
                ..
            } => {
                let mut module = QuoteWat::Wat(Wat::Component(component));
                Handled::Done(self.component_assert_unlinkable(&mut module, message, text))
            }
            other => Handled::Core(other),
        }
    }

    /// `(component $c? ...)`: compiles and instantiates a component, which
    /// becomes the current instance.
    fn component_module(&mut self, module: &mut QuoteWat<'_>, text: &str) -> Result<()> {
        let name = module.name().map(|id| id.name().to_string());
        let (line, column) = module.span().linecol_in(text);
        let result = self.compile_component(module, text).and_then(|compiled| {
            let instance = self
                .instantiate_component(&compiled, true)
                .map_err(|e| anyhow!("failed to instantiate the component: {}", error_summary(&e)))?;
            Ok((compiled, instance))
        });
        self.current = None;
        match result {
            Ok((compiled, instance)) => {
                self.components.current = Some(instance);
                self.components.instance_components.insert(instance, compiled.clone());
                self.failed_module_at = None;
                if let Some(name) = name {
                    self.components.instances.insert(name.clone(), instance);
                    self.components.definitions.insert(name.clone(), compiled);
                    self.define_named_component_instance(&name, instance)?;
                }
                Ok(())
            }
            Err(err) => {
                self.components.current = None;
                self.failed_module_at = Some((line + 1, column + 1));
                if let Some(name) = name {
                    self.components.instances.remove(&name);
                    self.components.definitions.remove(&name);
                }
                Err(err)
            }
        }
    }

    /// `(component instance $i? $c?)`.
    fn component_instance(&mut self, instance: Option<Id<'_>>, component: Option<Id<'_>>) -> Result<()> {
        let compiled = match component {
            Some(id) => self.components.definitions.get(id.name()).cloned().ok_or_else(|| {
                if self.components.failed_definitions.contains(id.name()) {
                    anyhow!("the definition of the component `${}` failed", id.name())
                } else {
                    anyhow!("no component definition named `${}`", id.name())
                }
            }),
            None => self
                .components
                .last_definition
                .clone()
                .ok_or_else(|| anyhow!("the preceding component definition failed")),
        };
        self.current = None;
        self.components.current = None;
        let compiled = compiled?;
        let new_instance = self
            .instantiate_component(&compiled, true)
            .map_err(|e| anyhow!("failed to instantiate the component: {}", error_summary(&e)))?;
        self.components.current = Some(new_instance);
        self.components.instance_components.insert(new_instance, compiled);
        self.failed_module_at = None;
        if let Some(id) = instance {
            self.components.instances.insert(id.name().to_string(), new_instance);
            self.define_named_component_instance(id.name(), new_instance)?;
        }
        Ok(())
    }

    /// `(register "name" $i)` of a component instance: its exports become
    /// the linker's instance `name`, so later components can import them.
    /// Each exported function is defined as a host function that calls the
    /// instance's function, with the function's type, so that linking
    /// checks it against the import's (an id compare); exported instances
    /// are defined recursively; types need no definition.
    fn component_register(&mut self, name: &str, module: Option<Id<'_>>) -> Result<()> {
        let instance = self
            .component_target(module)
            .ok_or_else(|| anyhow!("no component instance to register"))?;
        self.define_component_instance(name, instance, Unsupported::Fail)
            .with_context(|| format!("failed to register the component instance as {name:?}"))
    }

    /// Defines the exports of the component instance the script named
    /// `$name` in the linker under `name`, as `register` does (and as
    /// `wasmtime-wast` does for named instances), so that later components
    /// import from it without `register`. Exports `register` cannot define
    /// (resource types, components) are left out rather than failing the
    /// directive that made the instance.
    fn define_named_component_instance(&mut self, name: &str, instance: Instance) -> Result<()> {
        self.define_component_instance(name, instance, Unsupported::Skip)
            .with_context(|| format!("failed to define the component instance `${name}` in the linker as {name:?}"))
    }

    /// Defines the exports of `instance` as the linker's instance `name`.
    fn define_component_instance(&mut self, name: &str, instance: Instance, unsupported: Unsupported) -> Result<()> {
        let component = self
            .components
            .instance_components
            .get(&instance)
            .cloned()
            .ok_or_else(|| anyhow!("the component of the instance to register is unknown"))?;
        let engine = self.store.engine().clone();
        let ty = component.component_type();
        let exports: Vec<(String, ComponentItem)> = ty.exports(&engine).map(|(n, t)| (n.to_string(), t)).collect();
        let mut linker = self.components.linker.instance(name)?;
        register_exports(&mut self.store, &mut linker, instance, None, &exports, unsupported)
    }

    /// Compiles a (possibly quoted) component of the script.
    fn compile_component(&mut self, module: &mut QuoteWat<'_>, text: &str) -> Result<Component> {
        let quoted = matches!(module, QuoteWat::QuoteComponent(..));
        let bytes = module.encode().map_err(|e| {
            if quoted {
                anyhow!("failed to parse the quoted component text: {}", e.message())
            } else {
                anyhow!("failed to parse the component text: {}", locate(e, text))
            }
        })?;
        Component::new(self.store.engine(), &bytes)
            .map_err(|e| anyhow!("failed to compile the component: {}", error_summary(&e)))
    }

    /// Instantiates `component` with the component linker; with
    /// `unknown_as_traps`, imports it does not define are functions that fail
    /// when called.
    fn instantiate_component(&mut self, component: &Component, unknown_as_traps: bool) -> Result<Instance> {
        if unknown_as_traps {
            let mut linker = self.components.linker.clone();
            linker.define_unknown_imports_as_traps(component)?;
            linker.instantiate(&mut self.store, component)
        } else {
            self.components.linker.instantiate(&mut self.store, component)
        }
    }

    /// The component instance an action names (`$id`, or the current
    /// instance when the most recent module-like directive was a
    /// component), if it is one.
    fn component_target(&self, id: Option<Id<'_>>) -> Option<Instance> {
        match id {
            Some(id) => self.components.instances.get(id.name()).copied(),
            None => self.components.current,
        }
    }

    /// Whether an `assert_*` action is about components.
    fn is_component_exec(&self, exec: &WastExecute<'_>) -> bool {
        match exec {
            WastExecute::Invoke(invoke) => self.component_target(invoke.module).is_some(),
            WastExecute::Wat(Wat::Component(_)) => true,
            WastExecute::Wat(_) => false,
            WastExecute::Get { module, .. } => self.component_target(*module).is_some(),
        }
    }

    /// Runs a component action. The outer `Err` means the action could not
    /// be set up; the inner one is its own failure (a trap, usually).
    fn component_execute(&mut self, exec: WastExecute<'_>, text: &str) -> Result<Result<Vec<Val>>> {
        match exec {
            WastExecute::Invoke(invoke) => self.component_invoke(&invoke),
            WastExecute::Wat(Wat::Component(component)) => {
                let mut module = QuoteWat::Wat(Wat::Component(component));
                let compiled = self.compile_component(&mut module, text)?;
                Ok(self.instantiate_component(&compiled, true).map(|_| Vec::new()))
            }
            WastExecute::Wat(_) => bail!("a core module where a component was expected"),
            WastExecute::Get { .. } => bail!("`get` of a component instance export is not supported"),
        }
    }

    /// Calls an exported function of a component instance.
    fn component_invoke(&mut self, invoke: &WastInvoke<'_>) -> Result<Result<Vec<Val>>> {
        let instance = self
            .component_target(invoke.module)
            .ok_or_else(|| anyhow!("no component instance to invoke {:?} on", invoke.name))?;
        let func = instance
            .get_func(&mut self.store, invoke.name)
            .ok_or_else(|| anyhow!("no exported function named {:?}", invoke.name))?;
        let (params, results) = func
            .arity(&mut self.store)
            .ok_or_else(|| anyhow!("the function {:?} is not in the store", invoke.name))?;
        if invoke.args.len() != params {
            bail!(
                "{:?} takes {} argument(s), but {} were given",
                invoke.name,
                params,
                invoke.args.len()
            );
        }
        let mut args = Vec::with_capacity(params);
        for arg in &invoke.args {
            args.push(match arg {
                wast::WastArg::Component(value) => to_val(value)?,
                // `f32.const` and `f64.const` parse as core values first.
                wast::WastArg::Core(WastArgCore::F32(x)) => Val::Float32(f32::from_bits(x.bits)),
                wast::WastArg::Core(WastArgCore::F64(x)) => Val::Float64(f64::from_bits(x.bits)),
                _ => bail!("a core value was given as an argument of a component function"),
            });
        }
        let mut out = vec![Val::Bool(false); results];
        Ok(func.call(&mut self.store, &args, &mut out).map(|()| out))
    }

    fn component_assert_return(&mut self, exec: WastExecute<'_>, expected: &[WastRet<'_>], text: &str) -> Result<()> {
        let actual = match self.component_execute(exec, text)? {
            Ok(values) => values,
            Err(err) => bail!("expected a return, got an error: {}", error_summary(&err)),
        };
        let mut want = Vec::with_capacity(expected.len());
        for ret in expected {
            match ret {
                WastRet::Component(v) => want.push(Expected::Val(v)),
                // `f32.const` and `f64.const` parse as core values first.
                WastRet::Core(WastRetCore::F32(p)) => want.push(Expected::F32(p)),
                WastRet::Core(WastRetCore::F64(p)) => want.push(Expected::F64(p)),
                _ => bail!("a core value was expected from a component function"),
            }
        }
        if actual.len() != want.len() {
            bail!(
                "expected {} result(s) {}, got {} result(s) {}",
                want.len(),
                fmt_list(want.iter().map(Expected::describe)),
                actual.len(),
                fmt_list(actual.iter().map(|v| format!("{v:?}")))
            );
        }
        let mut mismatches = Vec::new();
        for (i, (value, expected)) in actual.iter().zip(want).enumerate() {
            let matched = match expected {
                Expected::Val(e) => val_matches(value, e),
                Expected::F32(NanPattern::Value(e)) => matches!(value, Val::Float32(a) if f32_matches(*e, *a)),
                Expected::F64(NanPattern::Value(e)) => matches!(value, Val::Float64(a) if f64_matches(*e, *a)),
                Expected::F32(p) => matches!(value, Val::Float32(a) if crate::f32_matches(p, a.to_bits())),
                Expected::F64(p) => matches!(value, Val::Float64(a) if crate::f64_matches(p, a.to_bits())),
            };
            if !matched {
                mismatches.push(format!("result {i}: expected {}, got {value:?}", expected.describe()));
            }
        }
        if mismatches.is_empty() {
            Ok(())
        } else {
            bail!("{}", mismatches.join("; "))
        }
    }

    fn component_assert_trap(&mut self, exec: WastExecute<'_>, message: &str, text: &str) -> Result<()> {
        match self.component_execute(exec, text)? {
            Ok(values) => bail!(
                "expected a trap ({message:?}), but it returned {}",
                fmt_list(values.iter().map(|v| format!("{v:?}")))
            ),
            Err(err) => {
                if trap_message_matches(&err, message) {
                    Ok(())
                } else if is_component_trap(&err) {
                    bail!(
                        "expected a trap ({message:?}), got a trap with another message: {}",
                        error_summary(&err)
                    )
                } else {
                    bail!(
                        "expected a trap ({message:?}), got a non-trap error: {}",
                        error_summary(&err)
                    )
                }
            }
        }
    }

    fn component_assert_unlinkable(&mut self, module: &mut QuoteWat<'_>, message: &str, text: &str) -> Result<()> {
        let compiled = self
            .compile_component(module, text)
            .map_err(|e| anyhow!("expected a link error ({message:?}), but the component failed to compile: {e:#}"))?;
        match self.instantiate_component(&compiled, false) {
            Ok(_) => bail!("expected a link error ({message:?}), but the component instantiated"),
            Err(err) if err.downcast_ref::<Trap>().is_some() => bail!(
                "expected a link error ({message:?}), got a trap: {}",
                error_summary(&err)
            ),
            Err(_) => Ok(()),
        }
    }
}

/// An expected result of a component function.
#[derive(Debug)]
enum Expected<'r, 'a> {
    /// A component value.
    Val(&'r WastVal<'a>),
    /// `f32.const`, parsed as a core value (with its NaN patterns).
    F32(&'r NanPattern<F32>),
    /// `f64.const`, parsed as a core value.
    F64(&'r NanPattern<F64>),
}

impl Expected<'_, '_> {
    /// The expected value, for messages.
    fn describe(&self) -> String {
        match self {
            Expected::Val(v) => format!("{v:?}"),
            Expected::F32(p) => crate::fmt_f32_pattern(p),
            Expected::F64(p) => crate::fmt_f64_pattern(p),
        }
    }
}

/// What [`register_exports`] does with an export it cannot define.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unsupported {
    /// Fails (`register`).
    Fail,
    /// Leaves it out (named instances).
    Skip,
}

/// Defines the exports `items` of `instance` (of its exported instance
/// `parent`, if given) in `linker`.
fn register_exports<T: 'static>(
    store: &mut weft::Store<T>,
    linker: &mut LinkerInstance<'_, T>,
    instance: Instance,
    parent: Option<&ComponentExportIndex>,
    items: &[(String, ComponentItem)],
    unsupported: Unsupported,
) -> Result<()> {
    for (name, item) in items {
        let index = instance
            .get_export_index(&mut *store, parent, name)
            .ok_or_else(|| anyhow!("the instance has no export `{name}`"))?;
        match item {
            ComponentItem::ComponentFunc(ty) => {
                let func = instance
                    .get_func(&mut *store, &index)
                    .ok_or_else(|| anyhow!("export `{name}` is not a function"))?;
                linker.func_new_with_type(name, ty, move |store, params, results| {
                    func.call(store, params, results)
                })?;
            }
            ComponentItem::ComponentInstance(ty) => {
                let nested: Vec<(String, ComponentItem)> = ty.exports().map(|(n, t)| (n.to_string(), t)).collect();
                let mut inner = linker.instance(name)?;
                register_exports(store, &mut inner, instance, Some(&index), &nested, unsupported)?;
            }
            ComponentItem::Module(_) => {
                let module = instance
                    .get_module(&mut *store, &index)
                    .ok_or_else(|| anyhow!("export `{name}` is not a core module"))?;
                linker.module(name, &module)?;
            }
            ComponentItem::Type(_) => {}
            ComponentItem::Resource(_) | ComponentItem::Component(_) if unsupported == Unsupported::Skip => {}
            ComponentItem::Resource(_) => bail!("export `{name}` is a resource type, which `register` does not define"),
            ComponentItem::Component(_) => bail!("export `{name}` is a component, which `register` does not define"),
        }
    }
    Ok(())
}

/// Whether `err` is what an `assert_trap` expecting `message` accepts: its
/// full chain contains the expected text (see the module documentation).
fn trap_message_matches(err: &anyhow::Error, message: &str) -> bool {
    format!("{err:#}").contains(message)
}

/// Whether `err` is a trap, of core wasm or of the canonical ABI (for the
/// message of a failed `assert_trap`).
fn is_component_trap(err: &anyhow::Error) -> bool {
    err.chain().any(|e| e.downcast_ref::<Trap>().is_some()) || format!("{err:#}").contains("wasm trap:")
}

/// Converts a script value to a component value.
fn to_val(value: &WastVal<'_>) -> Result<Val> {
    let boxed = |v: &Option<Box<WastVal<'_>>>| -> Result<Option<Box<Val>>> {
        v.as_deref().map(|v| to_val(v).map(Box::new)).transpose()
    };
    Ok(match value {
        WastVal::Bool(b) => Val::Bool(*b),
        WastVal::U8(x) => Val::U8(*x),
        WastVal::S8(x) => Val::S8(*x),
        WastVal::U16(x) => Val::U16(*x),
        WastVal::S16(x) => Val::S16(*x),
        WastVal::U32(x) => Val::U32(*x),
        WastVal::S32(x) => Val::S32(*x),
        WastVal::U64(x) => Val::U64(*x),
        WastVal::S64(x) => Val::S64(*x),
        WastVal::F32(x) => Val::Float32(f32::from_bits(x.bits)),
        WastVal::F64(x) => Val::Float64(f64::from_bits(x.bits)),
        WastVal::Char(c) => Val::Char(*c),
        WastVal::String(s) => Val::String((*s).to_string()),
        WastVal::List(items) => Val::List(items.iter().map(to_val).collect::<Result<_>>()?),
        WastVal::Map(entries) => Val::Map(
            entries
                .iter()
                .map(|(k, v)| Ok((to_val(k)?, to_val(v)?)))
                .collect::<Result<_>>()?,
        ),
        WastVal::Record(fields) => Val::Record(
            fields
                .iter()
                .map(|(name, v)| Ok(((*name).to_string(), to_val(v)?)))
                .collect::<Result<_>>()?,
        ),
        WastVal::Tuple(items) => Val::Tuple(items.iter().map(to_val).collect::<Result<_>>()?),
        WastVal::Variant(name, payload) => Val::Variant((*name).to_string(), boxed(payload)?),
        WastVal::Enum(name) => Val::Enum((*name).to_string()),
        WastVal::Option(v) => Val::Option(boxed(v)?),
        WastVal::Result(Ok(v)) => Val::Result(Ok(boxed(v)?)),
        WastVal::Result(Err(v)) => Val::Result(Err(boxed(v)?)),
        WastVal::Flags(names) => Val::Flags(names.iter().map(|n| (*n).to_string()).collect()),
    })
}

/// Whether a float result matches the expected one: any NaN matches a NaN,
/// other values match bitwise.
fn f32_matches(expected: F32, actual: f32) -> bool {
    let e = f32::from_bits(expected.bits);
    if e.is_nan() {
        actual.is_nan()
    } else {
        expected.bits == actual.to_bits()
    }
}

fn f64_matches(expected: F64, actual: f64) -> bool {
    let e = f64::from_bits(expected.bits);
    if e.is_nan() {
        actual.is_nan()
    } else {
        expected.bits == actual.to_bits()
    }
}

/// Whether a component result matches the expected script value (floats as
/// in [`f32_matches`], flags as sets, everything else structurally).
fn val_matches(actual: &Val, expected: &WastVal<'_>) -> bool {
    let opt = |a: &Option<Box<Val>>, e: &Option<Box<WastVal<'_>>>| match (a, e) {
        (None, None) => true,
        (Some(a), Some(e)) => val_matches(a, e),
        _ => false,
    };
    let all = |a: &[Val], e: &[WastVal<'_>]| a.len() == e.len() && a.iter().zip(e).all(|(a, e)| val_matches(a, e));
    match (actual, expected) {
        (Val::Bool(a), WastVal::Bool(e)) => a == e,
        (Val::U8(a), WastVal::U8(e)) => a == e,
        (Val::S8(a), WastVal::S8(e)) => a == e,
        (Val::U16(a), WastVal::U16(e)) => a == e,
        (Val::S16(a), WastVal::S16(e)) => a == e,
        (Val::U32(a), WastVal::U32(e)) => a == e,
        (Val::S32(a), WastVal::S32(e)) => a == e,
        (Val::U64(a), WastVal::U64(e)) => a == e,
        (Val::S64(a), WastVal::S64(e)) => a == e,
        (Val::Float32(a), WastVal::F32(e)) => f32_matches(*e, *a),
        (Val::Float64(a), WastVal::F64(e)) => f64_matches(*e, *a),
        (Val::Char(a), WastVal::Char(e)) => a == e,
        (Val::String(a), WastVal::String(e)) => a == e,
        (Val::List(a), WastVal::List(e)) | (Val::Tuple(a), WastVal::Tuple(e)) => all(a, e),
        // Entries in order, duplicate keys included, as the script wrote them.
        (Val::Map(a), WastVal::Map(e)) => {
            a.len() == e.len()
                && a.iter()
                    .zip(e)
                    .all(|((ak, av), (ek, ev))| val_matches(ak, ek) && val_matches(av, ev))
        }
        (Val::Record(a), WastVal::Record(e)) => {
            a.len() == e.len()
                && a.iter()
                    .zip(e)
                    .all(|((an, av), (en, ev))| an == en && val_matches(av, ev))
        }
        (Val::Variant(an, ap), WastVal::Variant(en, ep)) => an == en && opt(ap, ep),
        (Val::Enum(a), WastVal::Enum(e)) => a == e,
        (Val::Option(a), WastVal::Option(e)) => opt(a, e),
        (Val::Result(Ok(a)), WastVal::Result(Ok(e))) | (Val::Result(Err(a)), WastVal::Result(Err(e))) => opt(a, e),
        (Val::Flags(a), WastVal::Flags(e)) => {
            let mut a: Vec<&str> = a.iter().map(String::as_str).collect();
            let mut e: Vec<&str> = e.clone();
            a.sort_unstable();
            e.sort_unstable();
            a == e
        }
        _ => false,
    }
}

fn fmt_list(items: impl Iterator<Item = String>) -> String {
    format!("[{}]", items.collect::<Vec<_>>().join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_convert_and_match() {
        let values = [
            WastVal::Bool(true),
            WastVal::S8(-1),
            WastVal::U64(u64::MAX),
            WastVal::F32(F32 { bits: 0x7fc0_0001 }),
            WastVal::F64(F64 { bits: 0 }),
            WastVal::Char('x'),
            WastVal::String("hi"),
            WastVal::List(vec![WastVal::U8(1), WastVal::U8(2)]),
            WastVal::Record(vec![("a", WastVal::U32(1))]),
            WastVal::Tuple(vec![WastVal::S16(-3)]),
            WastVal::Variant("v", Some(Box::new(WastVal::Bool(false)))),
            WastVal::Enum("e"),
            WastVal::Option(None),
            WastVal::Result(Err(Some(Box::new(WastVal::String("no"))))),
            WastVal::Flags(vec!["b", "a"]),
            WastVal::Map(vec![
                (WastVal::String("k"), WastVal::U32(1)),
                (WastVal::String("k"), WastVal::U32(2)),
            ]),
            WastVal::Map(Vec::new()),
        ];
        for v in &values {
            let converted = to_val(v).expect("convertible");
            assert!(val_matches(&converted, v), "{v:?}");
        }
        // NaNs match any NaN; zeros match bitwise; flags are sets.
        assert!(val_matches(
            &Val::Float32(f32::NAN),
            &WastVal::F32(F32 { bits: 0x7f80_0001 })
        ));
        assert!(!val_matches(&Val::Float64(-0.0), &WastVal::F64(F64 { bits: 0 })));
        let flags = Val::Flags(vec!["a".into(), "b".into()]);
        assert!(val_matches(&flags, &WastVal::Flags(vec!["b", "a"])));
        assert!(!val_matches(&flags, &WastVal::Flags(vec!["a"])));
        assert!(!val_matches(&Val::U32(1), &WastVal::S32(1)));
        // Maps compare entry by entry, in order.
        let map = to_val(&WastVal::Map(vec![(WastVal::U8(1), WastVal::Bool(true))])).expect("convertible");
        assert_eq!(map, Val::Map(vec![(Val::U8(1), Val::Bool(true))]));
        assert!(!val_matches(&map, &WastVal::Map(Vec::new())));
        assert!(!val_matches(
            &map,
            &WastVal::Map(vec![(WastVal::U8(1), WastVal::Bool(false))])
        ));
        assert!(!val_matches(
            &map,
            &WastVal::List(vec![WastVal::Tuple(vec![WastVal::U8(1), WastVal::Bool(true)])])
        ));
    }

    #[test]
    fn trap_messages_must_contain_the_expected_text() {
        assert!(trap_message_matches(
            &anyhow!("oops: unaligned pointer"),
            "unaligned pointer"
        ));
        // Anywhere in the chain.
        assert!(trap_message_matches(
            &anyhow!("wasm trap: unaligned pointer 0x3").context("error while executing"),
            "unaligned pointer"
        ));
        assert!(!trap_message_matches(
            &anyhow!("wasm trap: invalid char"),
            "invalid `char` bit pattern"
        ));
        assert!(!trap_message_matches(
            &anyhow!("type mismatch: expected u32"),
            "unaligned pointer"
        ));
        assert!(is_component_trap(&anyhow!("wasm trap: invalid char")));
        assert!(is_component_trap(&anyhow::Error::new(Trap::UnreachableCodeReached)));
        assert!(!is_component_trap(&anyhow!("type mismatch: expected u32")));
    }

    /// A component `assert_trap` fails when the action traps with another
    /// message than the expected one, and passes when the message matches.
    #[test]
    fn assert_trap_checks_the_message() {
        let component = r#"
            (component
              (core module $m (func (export "f") unreachable))
              (core instance $i (instantiate $m))
              (func (export "f") (canon lift (core func $i "f"))))"#;
        let script = format!(
            "{component}\n(assert_trap (invoke \"f\") \"integer divide by zero\")\n\
             {component}\n(assert_trap (invoke \"f\") \"unreachable\")\n"
        );
        let engine = weft::Engine::new(&crate::spec_config()).unwrap();
        let mut wast = WastContext::new(weft::Store::new(&engine, ()));
        let err = wast
            .run_buffer("trap.wast", script.as_bytes())
            .expect_err("a trap with another message fails the directive");
        let failures = err.downcast_ref::<crate::WastFailures>().expect("directive failures");
        assert_eq!(failures.failures.len(), 1, "{failures}");
        let failure = &failures.failures[0];
        assert_eq!((failure.directive, failure.line), ("assert_trap", 6), "{failure}");
        assert!(failure.message.contains("another message"), "{failure}");
        assert!(failure.message.contains("unreachable"), "{failure}");
    }
}

#[cfg(test)]
mod register_tests {
    use crate::WastContext;

    fn run(script: &str) -> anyhow::Result<()> {
        let engine = weft::Engine::new(&crate::spec_config())?;
        let mut wast = WastContext::new(weft::Store::new(&engine, ()));
        wast.run_buffer("register.wast", script.as_bytes())
    }

    /// A registered component instance satisfies the imports of a later
    /// component: functions at the top level and in an exported instance,
    /// with values and traps passing through. After the trap, the instances
    /// it left may not be entered again (as in Wasmtime).
    #[test]
    fn registered_component_instances_are_importable() {
        let script = r#"
            (component $A
              (core module $m
                (func (export "double") (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))
                (func (export "fail") (param i32) unreachable))
              (core instance $i (instantiate $m))
              (func $double (export "double") (param "x" u32) (result u32) (canon lift (core func $i "double")))
              (func $fail (param "x" u32) (canon lift (core func $i "fail")))
              (instance $nested (export "fail" (func $fail)))
              (export "nested" (instance $nested)))
            (register "a" $A)
            (component $B
              (import "a" (instance $a
                (export "double" (func (param "x" u32) (result u32)))
                (export "nested" (instance (export "fail" (func (param "x" u32)))))))
              (alias export $a "nested" (instance $nested))
              (core func $double (canon lower (func $a "double")))
              (core func $fail (canon lower (func $nested "fail")))
              (core module $m
                (import "" "double" (func $double (param i32) (result i32)))
                (import "" "fail" (func $fail (param i32)))
                (func (export "quadruple") (param i32) (result i32) (call $double (call $double (local.get 0))))
                (func (export "fail") (call $fail (i32.const 0))))
              (core instance $i (instantiate $m (with "" (instance (export "double" (func $double)) (export "fail" (func $fail))))))
              (func (export "quadruple") (param "x" u32) (result u32) (canon lift (core func $i "quadruple")))
              (func (export "fail") (canon lift (core func $i "fail"))))
            (assert_return (invoke "quadruple" (u32.const 5)) (u32.const 20))
            (assert_trap (invoke "fail") "unreachable")
            (assert_trap (invoke "quadruple" (u32.const 7)) "cannot enter component instance")
        "#;
        run(script).unwrap();
    }

    /// A named core module or component (or named instance of a
    /// definition) is defined in the linker under its name without the
    /// `$`, so later modules and components import from it without
    /// `register`; a component exporting what `register` cannot define (a
    /// resource type) still instantiates.
    #[test]
    fn named_instances_are_importable_without_register() {
        let script = r#"
            (module $env (func (export "forty-two") (result i32) (i32.const 42)))
            (module
              (import "env" "forty-two" (func $f (result i32)))
              (func (export "call") (result i32) (call $f)))
            (assert_return (invoke "call") (i32.const 42))

            (module definition $seven (func (export "seven") (result i32) (i32.const 7)))
            (module instance $inst $seven)
            (module
              (import "inst" "seven" (func $f (result i32)))
              (func (export "call") (result i32) (call $f)))
            (assert_return (invoke "call") (i32.const 7))

            (component $c
              (core module $m
                (func (export "double") (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2))))
              (core instance $i (instantiate $m))
              (func (export "double") (param "x" u32) (result u32) (canon lift (core func $i "double"))))
            (component definition $D
              (import "c" (instance $c (export "double" (func (param "x" u32) (result u32)))))
              (core func $double (canon lower (func $c "double")))
              (core module $m
                (import "" "double" (func $double (param i32) (result i32)))
                (func (export "quadruple") (param i32) (result i32) (call $double (call $double (local.get 0)))))
              (core instance $i (instantiate $m (with "" (instance (export "double" (func $double))))))
              (func (export "quadruple") (param "x" u32) (result u32) (canon lift (core func $i "quadruple"))))
            (component instance $d $D)
            (assert_return (invoke "quadruple" (u32.const 5)) (u32.const 20))
            (component
              (import "d" (instance $d (export "quadruple" (func (param "x" u32) (result u32)))))
              (core func $q (canon lower (func $d "quadruple")))
              (core module $m
                (import "" "q" (func $q (param i32) (result i32)))
                (func (export "run") (param i32) (result i32) (call $q (local.get 0))))
              (core instance $i (instantiate $m (with "" (instance (export "q" (func $q))))))
              (func (export "run") (param "x" u32) (result u32) (canon lift (core func $i "run"))))
            (assert_return (invoke "run" (u32.const 3)) (u32.const 12))

            (component $r
              (type $t (resource (rep i32)))
              (export "t" (type $t)))
        "#;
        run(script).unwrap();
    }

    /// An import that the registered instance does not have, or has with
    /// another type, is reported by name.
    #[test]
    fn registered_instances_do_not_invent_exports() {
        let script = r#"
            (component $A
              (core module $m (func (export "f")))
              (core instance $i (instantiate $m))
              (func (export "f") (canon lift (core func $i "f"))))
            (register "a" $A)
            (assert_unlinkable
              (component (import "a" (instance (export "g" (func)))))
              "g")
            (assert_unlinkable
              (component (import "a" (instance (export "f" (func (param "x" u32))))))
              "a/f")
            (component (import "a" (instance (export "f" (func)))))
        "#;
        run(script).unwrap();
    }
}

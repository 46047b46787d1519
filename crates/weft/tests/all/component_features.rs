//! The `Config::wasm_component_model*` switches: each gates its part of
//! component validation, with Wasmtime 48's defaults (the component model
//! and its async ABI on; the further async built-ins, the stackful ABI,
//! threading and `error-context` off).

#![cfg(feature = "component-model")]

use weft::component::Component;
use weft::{Config, Engine};

/// Compiles `text` with `config`, giving the error's full text on failure.
fn compile(config: &Config, text: &str) -> Result<Component, String> {
    let engine = Engine::new(config).map_err(|e| format!("engine: {e:?}"))?;
    let bytes = wat::parse_str(text).expect("test component is valid text");
    Component::new(&engine, bytes).map_err(|e| format!("{e:?}"))
}

/// Checks that `text` is rejected with `switch` off, with an error that
/// contains each of `names`, and accepted with it on.
fn gated(switch: fn(&mut Config, bool) -> &mut Config, text: &str, names: &[&str]) {
    let mut config = Config::new();
    switch(&mut config, false);
    let err = match compile(&config, text) {
        Ok(_) => panic!("compiled with the switch off:\n{text}"),
        Err(err) => err,
    };
    assert!(err.contains("unsupported: "), "{err}");
    for name in names {
        assert!(err.contains(name), "the error does not name `{name}`: {err}");
    }
    switch(&mut config, true);
    if let Err(err) = compile(&config, text) {
        panic!("rejected with the switch on: {err}\n{text}");
    }
}

#[test]
fn wasm_component_model_gates_every_component() {
    for text in [
        "(component)",
        r#"(component
            (core module $m (func (export "f") (result i32) i32.const 1))
            (core instance $i (instantiate $m))
            (func (export "f") (result u32) (canon lift (core func $i "f"))))"#,
    ] {
        gated(
            Config::wasm_component_model,
            text,
            &["component model feature is not enabled"],
        );
    }
}

/// A core module is no component: it compiles with the component model off.
#[test]
fn core_modules_do_not_need_the_component_model() {
    let mut config = Config::new();
    config.wasm_component_model(false);
    let engine = Engine::new(&config).unwrap();
    weft::Module::new(&engine, wat::parse_str("(module (func (export \"f\")))").unwrap())
        .expect("a core module compiles");
}

#[cfg(feature = "component-model-async")]
mod async_abi {
    use super::*;

    /// `backpressure.inc`, the async ABI's (🔀) built-in.
    const BACKPRESSURE: &str = r#"(component
        (core func (canon backpressure.inc)))"#;

    /// An `async` function type and an `async` lift with a callback.
    const ASYNC_LIFT: &str = r#"(component
        (core module $m
            (func (export "f") (result i32) i32.const 0)
            (func (export "cb") (param i32 i32 i32) (result i32) i32.const 0))
        (core instance $i (instantiate $m))
        (func (export "f") async
            (canon lift (core func $i "f") async (callback (core func $i "cb")))))"#;

    /// The async form of `subtask.cancel` (🚝).
    const ASYNC_CANCEL: &str = r#"(component
        (core func (canon subtask.cancel async)))"#;

    /// An `async` lift without a callback (🚟).
    const STACKFUL_LIFT: &str = r#"(component
        (core module $m (func (export "f")))
        (core instance $i (instantiate $m))
        (func (export "f") async (canon lift (core func $i "f") async)))"#;

    /// `thread.index` (🧵).
    const THREAD_INDEX: &str = r#"(component
        (core func (canon thread.index)))"#;

    /// `error-context.drop` (📝).
    const ERROR_CONTEXT_DROP: &str = r#"(component
        (core func (canon error-context.drop)))"#;

    /// The `error-context` type (📝).
    const ERROR_CONTEXT_TYPE: &str = r#"(component
        (type (func (param "e" error-context))))"#;

    #[test]
    fn wasm_component_model_async_gates_the_async_abi() {
        gated(
            Config::wasm_component_model_async,
            BACKPRESSURE,
            &["`backpressure.inc`", "async feature"],
        );
        gated(
            Config::wasm_component_model_async,
            ASYNC_LIFT,
            &["async", "async feature"],
        );
    }

    #[test]
    fn wasm_component_model_more_async_builtins_gates_async_cancels() {
        gated(
            Config::wasm_component_model_more_async_builtins,
            ASYNC_CANCEL,
            &["async `subtask.cancel`", "more async builtins feature"],
        );
    }

    /// `wasm_component_model_async_builtins` is the older name of the same
    /// switch.
    #[test]
    fn wasm_component_model_async_builtins_is_the_same_switch() {
        gated(
            Config::wasm_component_model_async_builtins,
            ASYNC_CANCEL,
            &["async `subtask.cancel`", "more async builtins feature"],
        );
        let mut config = Config::new();
        config
            .wasm_component_model_more_async_builtins(true)
            .wasm_component_model_async_builtins(false);
        assert!(compile(&config, ASYNC_CANCEL).is_err(), "the older name turns it off");
        config
            .wasm_component_model_async_builtins(true)
            .wasm_component_model_more_async_builtins(false);
        assert!(compile(&config, ASYNC_CANCEL).is_err(), "the newer name turns it off");
    }

    #[test]
    fn wasm_component_model_async_stackful_gates_lifts_without_callback() {
        gated(
            Config::wasm_component_model_async_stackful,
            STACKFUL_LIFT,
            &["`async` lift without a `callback`", "async stackful feature"],
        );
    }

    #[test]
    fn wasm_component_model_threading_gates_thread_built_ins() {
        gated(
            Config::wasm_component_model_threading,
            THREAD_INDEX,
            &["`thread.index`", "threading feature"],
        );
    }

    #[test]
    fn wasm_component_model_error_context_gates_error_contexts() {
        gated(
            Config::wasm_component_model_error_context,
            ERROR_CONTEXT_DROP,
            &["`error-context.drop`", "error-context feature"],
        );
        gated(
            Config::wasm_component_model_error_context,
            ERROR_CONTEXT_TYPE,
            &["`error-context`", "error-context feature"],
        );
    }

    /// Wasmtime 48's defaults: the async ABI on, its extensions off.
    #[test]
    fn defaults_are_wasmtime_48s() {
        let config = Config::new();
        compile(&config, BACKPRESSURE).expect("async is on by default");
        compile(&config, ASYNC_LIFT).expect("async is on by default");
        for (text, name) in [
            (ASYNC_CANCEL, "more async builtins"),
            (STACKFUL_LIFT, "async stackful"),
            (THREAD_INDEX, "threading"),
            (ERROR_CONTEXT_DROP, "error-context"),
        ] {
            let Err(err) = compile(&config, text) else {
                panic!("{name} is off by default, yet this compiled:\n{text}");
            };
            assert!(err.contains(name), "{err}");
        }
    }

    /// Each extension needs only its own switch next to the default async
    /// ABI; turning the async ABI off rejects the built-ins they extend.
    #[test]
    fn the_extensions_build_on_the_async_abi() {
        let mut config = Config::new();
        config
            .wasm_component_model_async(false)
            .wasm_component_model_more_async_builtins(true);
        let err = compile(&config, ASYNC_CANCEL).expect_err("`subtask.cancel` needs async");
        assert!(
            err.contains("`subtask.cancel` requires the component model async feature"),
            "{err}"
        );
    }
}

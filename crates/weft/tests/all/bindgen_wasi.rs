//! `bindgen!` over the WASI 0.2 WIT files of `../shared/wasi-wit/p2`: the
//! `wasi:cli/command` world expands to code that compiles, in the async
//! flavour with trappable imports and a `trappable_error_type` (as
//! Wasmtime's WASI bindings use it) and in the default flavour. (The
//! files are read at compile time: when they are missing this test does
//! not build, so it fails rather than skips.)

#![cfg(feature = "component-model-async")]

use weft::component::{Component, Linker};
use weft::{Engine, Store};

/// A Rust error for `wasi:io/streams.stream-error`.
#[derive(Debug)]
#[allow(
    dead_code,
    reason = "named by the bindings' `trappable_error_type` only: no test raises it"
)]
pub struct StreamError(pub String);

mod p2_async {
    weft::component::bindgen!({
        path: [
            "../../../shared/wasi-wit/p2/io.wit",
            "../../../shared/wasi-wit/p2/clocks.wit",
            "../../../shared/wasi-wit/p2/random.wit",
            "../../../shared/wasi-wit/p2/filesystem.wit",
            "../../../shared/wasi-wit/p2/sockets.wit",
            "../../../shared/wasi-wit/p2/cli.wit",
        ],
        world: "wasi:cli/command",
        imports: { default: async | trappable },
        exports: { default: async },
        trappable_error_type: { "wasi:io/streams.stream-error" => super::StreamError },
    });
}

mod p2_sync {
    weft::component::bindgen!({
        path: [
            "../../../shared/wasi-wit/p2/io.wit",
            "../../../shared/wasi-wit/p2/clocks.wit",
            "../../../shared/wasi-wit/p2/random.wit",
            "../../../shared/wasi-wit/p2/filesystem.wit",
            "../../../shared/wasi-wit/p2/sockets.wit",
            "../../../shared/wasi-wit/p2/cli.wit",
        ],
        world: "wasi:cli/command",
    });
}

#[test]
fn a_component_without_wasi_cli_run_is_refused() -> weft::Result<()> {
    let engine = Engine::default();
    let component = Component::new(&engine, wat::parse_str("(component)")?)?;
    let linker = Linker::<()>::new(&engine);
    let err = p2_async::CommandPre::new(linker.instantiate_pre(&component)?)
        .err()
        .expect("an error");
    assert!(format!("{err}").contains("wasi:cli/run@0.2.12"), "{err}");
    let err = p2_sync::CommandPre::new(linker.instantiate_pre(&component)?)
        .err()
        .expect("an error");
    assert!(format!("{err}").contains("no exported instance named"), "{err}");
    let mut store = Store::new(&engine, ());
    let instance = linker.instantiate(&mut store, &component)?;
    assert!(p2_sync::Command::new(&mut store, &instance).is_err());
    Ok(())
}

#[test]
fn wasi_types_have_their_wit_shapes() {
    use p2_sync::wasi::filesystem::types::{DescriptorFlags, DescriptorType, ErrorCode};
    let flags = DescriptorFlags::READ | DescriptorFlags::WRITE;
    assert!(flags.contains(DescriptorFlags::READ));
    assert_eq!(DescriptorType::Directory, DescriptorType::Directory);
    assert_eq!(ErrorCode::Access.name(), "access");
    let _: &dyn std::error::Error = &ErrorCode::Access;
    // `@unstable` features are switched on at link time.
    let mut options = p2_sync::LinkOptions::default();
    options.clocks_timezone(true);
    let _: p2_sync::wasi::clocks::timezone::LinkOptions = (&options).into();
}

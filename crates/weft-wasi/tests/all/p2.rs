//! WASI 0.2 for components: command components written in WAT (see
//! `p2_guest`) run through `p2::add_to_linker_sync` and the `bindgen!`
//! bindings of `p2::bindings`, with their output read back from memory
//! pipes.

#![cfg(feature = "p2")]

use crate::common::State;
use crate::p2_guest;

use weft::component::{Component, Linker, ResourceTable};
use weft::{Engine, Store};
use weft_wasi::p2::add_to_linker_sync;
use weft_wasi::p2::bindings::sync::Command;
use weft_wasi::{I32Exit, MemoryInputPipe, MemoryOutputPipe, WasiCtxBuilder};

/// What a run gave: `run`'s result (or the error that ended it), stdout
/// and stderr.
struct Outcome {
    result: weft::Result<Result<(), ()>>,
    stdout: String,
    stderr: String,
}

/// Runs the component made of `main` (see `p2_guest::component`),
/// importing WASI `version`, with the context `builder` describes.
fn run(version: &str, main: &str, builder: &mut WasiCtxBuilder) -> weft::Result<Outcome> {
    let engine = Engine::default();
    let component = Component::new(&engine, wat::parse_str(p2_guest::component(version, main))?)?;
    let mut linker = Linker::<State>::new(&engine);
    add_to_linker_sync(&mut linker)?;
    let stdout = MemoryOutputPipe::new(1 << 20);
    let stderr = MemoryOutputPipe::new(1 << 20);
    let ctx = builder.stdout(stdout.clone()).stderr(stderr.clone()).build();
    let mut store = Store::new(
        &engine,
        State {
            ctx,
            table: ResourceTable::new(),
        },
    );
    let command = Command::instantiate(&mut store, &component, &linker)?;
    let result = command.wasi_cli_run().call_run(&mut store);
    Ok(Outcome {
        result,
        stdout: String::from_utf8_lossy(&stdout.contents()).into_owned(),
        stderr: String::from_utf8_lossy(&stderr.contents()).into_owned(),
    })
}

#[test]
fn hello_prints_its_arguments_and_environment() -> weft::Result<()> {
    let out = run(
        "0.2.12",
        p2_guest::HELLO,
        WasiCtxBuilder::new()
            .args(&["prog", "a b", "ü"])
            .env("HOME", "/home/x")
            .env("EMPTY", ""),
    )?;
    assert_eq!(out.result?, Ok(()));
    assert_eq!(
        out.stdout,
        "hello from a component\nprog\na b\nü\nHOME=/home/x\nEMPTY=\n"
    );
    assert_eq!(out.stderr, "");
    Ok(())
}

#[test]
fn imports_of_an_older_patch_release_link() -> weft::Result<()> {
    // Built against 0.2.3; the linker defines 0.2.12.
    let out = run("0.2.3", p2_guest::HELLO, WasiCtxBuilder::new().arg("old"))?;
    assert_eq!(out.result?, Ok(()));
    assert_eq!(out.stdout, "hello from a component\nold\n");
    Ok(())
}

#[test]
fn run_returning_err_and_exit() -> weft::Result<()> {
    let out = run("0.2.12", p2_guest::RETURN_ERR, &mut WasiCtxBuilder::new())?;
    assert_eq!(out.result?, Err(()));
    let out = run("0.2.12", p2_guest::EXIT_ERR, &mut WasiCtxBuilder::new())?;
    let err = out.result.unwrap_err();
    assert_eq!(err.downcast_ref::<I32Exit>(), Some(&I32Exit(1)), "{err:?}");
    assert_eq!(out.stdout, "exiting\n");
    Ok(())
}

#[test]
fn a_trap_ends_the_run_with_its_message() -> weft::Result<()> {
    let out = run("0.2.12", p2_guest::TRAP, &mut WasiCtxBuilder::new())?;
    let err = out.result.unwrap_err();
    assert_eq!(
        err.downcast_ref::<weft::Trap>(),
        Some(&weft::Trap::UnreachableCodeReached),
        "{err:?}"
    );
    assert_eq!(out.stdout, "about to trap\n");
    Ok(())
}

#[test]
fn stdin_is_read_to_its_end() -> weft::Result<()> {
    let input = "line one\nline two, longer than one read\n".repeat(3);
    let out = run(
        "0.2.12",
        p2_guest::CAT,
        WasiCtxBuilder::new().stdin(MemoryInputPipe::new(input.clone())),
    )?;
    assert_eq!(out.result?, Ok(()));
    assert_eq!(out.stdout, input);
    Ok(())
}

#[test]
fn clocks_timers_poll_and_random() -> weft::Result<()> {
    let start = std::time::Instant::now();
    let out = run("0.2.12", p2_guest::CLOCKS, &mut WasiCtxBuilder::new())?;
    assert_eq!(out.result?, Ok(()));
    // `poll` of [60 s timer, 5 ms timer] returns the list [1].
    assert_eq!(out.stdout, "wall ok\nslept\npoll 1 1\nrandom 16\n");
    assert!(start.elapsed() < std::time::Duration::from_secs(30));
    Ok(())
}

/// A temp dir with `outside/secret.txt` and `sandbox/` (preopened as
/// "."), which holds `in.txt`, `sub/` and symlinks made by the host that
/// lead out of it.
struct World {
    _tmp: tempfile::TempDir,
    root: std::path::PathBuf,
    sandbox: std::path::PathBuf,
}

impl World {
    fn new() -> World {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        let outside = root.join("outside");
        let sandbox = root.join("sandbox");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::create_dir_all(sandbox.join("sub")).unwrap();
        std::fs::write(outside.join("secret.txt"), "TOP-SECRET").unwrap();
        std::fs::write(sandbox.join("in.txt"), "read by the guest\n").unwrap();
        symlink("../outside/secret.txt", sandbox.join("rel_link")).unwrap();
        symlink(outside.join("secret.txt"), sandbox.join("abs_link")).unwrap();
        symlink("../outside", sandbox.join("dir_link")).unwrap();
        World {
            _tmp: tmp,
            root,
            sandbox,
        }
    }

    /// Every file under the root but the sandbox, with its contents.
    fn outside_files(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for e in walk(&self.root) {
            if e.starts_with(&self.sandbox) {
                continue;
            }
            let content = std::fs::read_to_string(&e).unwrap_or_default();
            out.push((e.strip_prefix(&self.root).unwrap().display().to_string(), content));
        }
        out.sort();
        out
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.symlink_metadata().unwrap().is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn files_in_a_preopen_and_no_way_out() -> weft::Result<()> {
    use weft_wasi::FsPerms;
    let world = World::new();
    let out = run(
        "0.2.12",
        p2_guest::FILES,
        WasiCtxBuilder::new().preopened_dir(&world.sandbox, "/data", FsPerms::ReadWrite)?,
    )?;
    assert_eq!(out.result?, Ok(()), "{}", out.stdout);
    // The listing is in the host's order.
    let mut lines: Vec<&str> = out.stdout.lines().collect();
    lines[2..8].sort();
    let stdout = lines.join("\n") + "\n";
    let expected = "\
preopen /data
read by the guest
entry abs_link
entry dir_link
entry in.txt
entry out.txt
entry rel_link
entry sub
../outside/secret.txt: not-permitted
/etc/passwd: not-permitted
rel_link: not-permitted
abs_link: not-permitted
sub/../../outside/secret.txt: not-permitted
dir_link/secret.txt: not-permitted
create not-permitted
create not-permitted
symlink ok
mylink: not-permitted
rename not-permitted
";
    assert_eq!(stdout, expected);
    assert_eq!(
        std::fs::read_to_string(world.sandbox.join("out.txt"))?,
        "written by the guest\n"
    );
    // Nothing outside changed, and nothing was created there.
    assert_eq!(
        world.outside_files(),
        vec![("outside/secret.txt".to_string(), "TOP-SECRET".to_string())]
    );
    Ok(())
}

#[test]
fn a_read_only_preopen_refuses_writes() -> weft::Result<()> {
    use weft_wasi::FsPerms;
    let world = World::new();
    let out = run(
        "0.2.12",
        p2_guest::FILES,
        WasiCtxBuilder::new().preopened_dir(&world.sandbox, ".", FsPerms::ReadOnly)?,
    )?;
    assert_eq!(out.result?, Err(()));
    assert_eq!(out.stdout, "preopen .\nnot-permitted");
    assert!(!world.sandbox.join("out.txt").exists());
    Ok(())
}

/// The async flavour: `add_to_linker_async`, `Command::instantiate_async`
/// and `call_run(..).await`, polled on this thread.
#[cfg(feature = "async")]
#[test]
fn the_async_command_runs_the_same_guest() -> weft::Result<()> {
    use std::future::Future;
    use std::task::{Context, Poll, Waker};

    fn block_on<F: Future>(fut: F) -> F::Output {
        let mut cx = Context::from_waker(Waker::noop());
        let mut fut = std::pin::pin!(fut);
        loop {
            if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
                return v;
            }
            std::thread::yield_now();
        }
    }

    let engine = Engine::default();
    let component = Component::new(&engine, wat::parse_str(p2_guest::component("0.2.3", p2_guest::HELLO))?)?;
    let mut linker = Linker::<State>::new(&engine);
    weft_wasi::p2::add_to_linker_async(&mut linker)?;
    let stdout = MemoryOutputPipe::new(1 << 20);
    let ctx = WasiCtxBuilder::new().arg("async").stdout(stdout.clone()).build();
    let mut store = Store::new(
        &engine,
        State {
            ctx,
            table: ResourceTable::new(),
        },
    );
    let result = block_on(async {
        let command = weft_wasi::p2::bindings::Command::instantiate_async(&mut store, &component, &linker).await?;
        command.wasi_cli_run().call_run(&mut store).await
    })?;
    assert_eq!(result, Ok(()));
    assert_eq!(&stdout.contents()[..], b"hello from a component\nasync\n");
    Ok(())
}

/// Times a guest cannot mean are errors, not panics: a nanosecond count
/// of a second or more is `invalid`, a time past what the host can hold is
/// `overflow`; a real time is set.
#[test]
fn set_times_checks_the_guests_times() -> weft::Result<()> {
    use weft_wasi::p2::bindings::wasi::clocks::wall_clock::Datetime;
    use weft_wasi::p2::bindings::wasi::filesystem::preopens::Host as _;
    // The synchronous flavour's descriptor methods (the async flavour's
    // are async); its errors carry the async bindings' error code.
    use weft_wasi::p2::bindings::sync::wasi::filesystem::types::{HostDescriptor as _, NewTimestamp, PathFlags};
    use weft_wasi::p2::bindings::wasi::filesystem::types::ErrorCode;
    use weft_wasi::FsPerms;
    let world = World::new();
    let mut ctx = WasiCtxBuilder::new()
        .preopened_dir(&world.sandbox, ".", FsPerms::ReadWrite)?
        .build();
    let mut table = ResourceTable::new();
    let mut v = weft_wasi::filesystem::WasiFilesystemCtxView {
        ctx: ctx.filesystem(),
        table: &mut table,
    };
    let (dir, _) = v.get_directories()?.remove(0);
    let set = |v: &mut weft_wasi::filesystem::WasiFilesystemCtxView<'_>, seconds: u64, nanoseconds: u32| {
        v.set_times_at(
            dir,
            PathFlags::empty(),
            "in.txt".to_string(),
            NewTimestamp::NoChange,
            NewTimestamp::Timestamp(Datetime { seconds, nanoseconds }),
        )
        .map_err(|e| e.downcast().expect("an error code"))
    };
    assert_eq!(set(&mut v, 1, 1_000_000_000), Err(ErrorCode::Invalid));
    assert_eq!(set(&mut v, u64::MAX, 999_999_999), Err(ErrorCode::Overflow));
    assert_eq!(set(&mut v, 1_000_000_000, 5), Ok(()));
    let modified = std::fs::metadata(world.sandbox.join("in.txt"))?.modified()?;
    assert_eq!(
        modified.duration_since(std::time::UNIX_EPOCH)?,
        std::time::Duration::new(1_000_000_000, 5)
    );
    Ok(())
}

//! WASI 0.3 for components: command components written in WAT on the
//! async ABI (see `p3_guest`) run through `p3::add_to_linker` and the
//! `bindgen!` bindings of `p3::bindings`, their `wasi:cli/run` called
//! inside `Store::run_concurrent`, with their output read back from memory
//! pipes.

#![cfg(feature = "p3")]

use crate::common::State;
use crate::p3_guest;

use p3_guest::Ending;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use weft::component::{Component, Linker, ResourceTable};
use weft::{AsContextMut, Engine, Store};
use weft_wasi::p3::add_to_linker;
use weft_wasi::p3::bindings::Command;
use weft_wasi::{I32Exit, MemoryOutputPipe, WasiCtxBuilder};

/// Runs `future` on this thread, parking between polls (the host's
/// waits wake it from helper threads).
fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park_timeout(std::time::Duration::from_millis(50));
    }
}

/// What a run gave: `run`'s result (or the error that ended it), stdout
/// and stderr.
struct Outcome {
    result: weft::Result<Result<(), ()>>,
    stdout: String,
    stderr: String,
}

/// Runs the component text `wat` with the context `builder` describes.
fn run_wat(wat: &str, builder: &mut WasiCtxBuilder) -> weft::Result<Outcome> {
    let engine = Engine::default();
    let component = Component::new(&engine, wat::parse_str(wat)?)?;
    let mut linker = Linker::<State>::new(&engine);
    add_to_linker(&mut linker)?;
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
    let result = block_on(async {
        let command = Command::instantiate_async(&mut store, &component, &linker).await?;
        store
            .run_concurrent(async move |store| command.wasi_cli_run().call_run(store).await)
            .await?
    });
    Ok(Outcome {
        result,
        stdout: String::from_utf8_lossy(&stdout.contents()).into_owned(),
        stderr: String::from_utf8_lossy(&stderr.contents()).into_owned(),
    })
}

fn run(out: &str, err: &str, ending: Ending) -> weft::Result<Outcome> {
    run_wat(&p3_guest::component(out, err, ending), &mut WasiCtxBuilder::new())
}

#[test]
fn hello_world_writes_to_stdout_through_a_stream() -> weft::Result<()> {
    let o = run("hello from wasi 0.3\n", "", Ending::Ok)?;
    assert_eq!(o.result?, Ok(()));
    assert_eq!(o.stdout, "hello from wasi 0.3\n");
    assert_eq!(o.stderr, "");
    Ok(())
}

#[test]
fn stdout_and_stderr_are_separate_streams() -> weft::Result<()> {
    let o = run("to stdout\n", "to stderr\n", Ending::Err)?;
    assert_eq!(o.result?, Err(()));
    assert_eq!(o.stdout, "to stdout\n");
    assert_eq!(o.stderr, "to stderr\n");
    Ok(())
}

#[test]
fn a_long_message_arrives_whole() -> weft::Result<()> {
    let long: String = (0..3000).map(|i| format!("line {i}\n")).collect();
    let o = run(&long, "", Ending::Ok)?;
    assert_eq!(o.result?, Ok(()));
    assert_eq!(o.stdout, long);
    Ok(())
}

#[test]
fn exit_with_code_ends_the_run_with_its_status() -> weft::Result<()> {
    let o = run("exiting\n", "", Ending::ExitCode(7))?;
    let err = o.result.unwrap_err();
    assert_eq!(err.downcast_ref::<I32Exit>(), Some(&I32Exit(7)), "{err:?}");
    assert_eq!(o.stdout, "exiting\n");
    Ok(())
}

#[test]
fn a_trap_is_an_error_after_the_output() -> weft::Result<()> {
    let o = run("about to trap\n", "", Ending::Trap)?;
    let err = o.result.unwrap_err();
    assert!(err.downcast_ref::<weft::Trap>().is_some(), "{err:?}");
    assert_eq!(o.stdout, "about to trap\n");
    Ok(())
}

#[test]
fn wait_for_waits_in_the_event_loop() -> weft::Result<()> {
    let start = std::time::Instant::now();
    let wat = p3_guest::component_after_wait(30_000_000, "after the wait\n", "", Ending::Ok);
    let o = run_wat(&wat, &mut WasiCtxBuilder::new())?;
    assert_eq!(o.result?, Ok(()));
    assert_eq!(o.stdout, "after the wait\n");
    assert!(
        start.elapsed() >= std::time::Duration::from_millis(30),
        "{:?}",
        start.elapsed()
    );
    Ok(())
}

/// The synchronous host functions of `wasi:cli`, `wasi:clocks` and
/// `wasi:random` 0.3, called through their `Host` traits.
#[test]
fn environment_clocks_and_random() -> weft::Result<()> {
    use weft_wasi::p3::bindings::wasi::{cli, clocks, random};
    let mut ctx = WasiCtxBuilder::new().args(&["prog", "a"]).env("K", "V").build();
    let mut table = ResourceTable::new();
    let mut view = weft_wasi::cli::WasiCliCtxView {
        ctx: ctx.cli(),
        table: &mut table,
    };
    use cli::environment::Host as _;
    assert_eq!(view.get_arguments()?, vec!["prog".to_string(), "a".to_string()]);
    assert_eq!(view.get_environment()?, vec![("K".to_string(), "V".to_string())]);
    assert_eq!(view.get_initial_cwd()?, None);
    // Not terminals: memory pipes and the default closed stdin.
    assert!(cli::terminal_stdin::Host::get_terminal_stdin(&mut view)?.is_none());
    assert!(cli::terminal_stdout::Host::get_terminal_stdout(&mut view)?.is_none());
    let err = cli::exit::Host::exit_with_code(&mut view, 3).unwrap_err();
    assert_eq!(err.downcast_ref::<I32Exit>(), Some(&I32Exit(3)));
    let err = cli::exit::Host::exit(&mut view, Err(())).unwrap_err();
    assert_eq!(err.downcast_ref::<I32Exit>(), Some(&I32Exit(1)));

    let mut view = weft_wasi::clocks::WasiClocksCtxView {
        ctx: ctx.clocks(),
        table: &mut table,
    };
    let a = clocks::monotonic_clock::Host::now(&mut view)?;
    std::thread::sleep(std::time::Duration::from_millis(2));
    let b = clocks::monotonic_clock::Host::now(&mut view)?;
    assert!(b >= a + 2_000_000, "{a} {b}");
    let now = clocks::system_clock::Host::now(&mut view)?;
    let host = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?;
    assert!((now.seconds - host.as_secs() as i64).abs() <= 2, "{now:?}");
    assert!(now.nanoseconds < 1_000_000_000);
    assert_eq!(clocks::system_clock::Host::get_resolution(&mut view)?, 1);

    let mut view = ctx.random();
    assert_eq!(random::random::Host::get_random_bytes(&mut view, 16)?.len(), 16);
    assert_eq!(random::random::Host::get_random_bytes(&mut view, 0)?.len(), 0);
    let x = random::insecure::Host::get_insecure_random_bytes(&mut view, 5)?;
    assert_eq!(x.len(), 5);
    assert_ne!(
        random::random::Host::get_random_u64(&mut view)?,
        random::random::Host::get_random_u64(&mut view)?
    );
    // A request above the context's limit is a short read, not a trap.
    let mut small = WasiCtxBuilder::new().max_random_size(8).build();
    let mut view = small.random();
    assert_eq!(random::random::Host::get_random_bytes(&mut view, 1000)?.len(), 8);
    let (s1, s2) = random::insecure_seed::Host::get_insecure_seed(&mut view)?;
    assert_ne!((s1, s2), (0, 0));
    Ok(())
}

/// A fresh directory for a test's preopen, removed when dropped.
fn sandbox(test: &str) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix(&format!("weft-wasi-p3-{test}-"))
        .tempdir()
        .expect("create the test's directory");
    std::fs::create_dir_all(dir.path().join("sandbox/sub")).expect("create the sandbox");
    dir
}

#[test]
fn a_file_is_written_through_a_descriptor_stream() -> weft::Result<()> {
    let dir = sandbox("write");
    let wat = p3_guest::file_component("out.txt", "file contents\n", "done\n", Ending::Ok);
    let o = run_wat(
        &wat,
        WasiCtxBuilder::new().preopened_dir(dir.path().join("sandbox"), "/", weft_wasi::FsPerms::ReadWrite)?,
    )?;
    assert_eq!(o.result?, Ok(()));
    assert_eq!(o.stderr, "done\n");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("sandbox/out.txt"))?,
        "file contents\n"
    );
    Ok(())
}

#[test]
fn open_at_outside_the_preopen_is_not_permitted() -> weft::Result<()> {
    let dir = sandbox("escape");
    let not_permitted = 100
        + p3_guest::FS_ERROR_CODES
            .iter()
            .position(|c| *c == "not-permitted")
            .unwrap() as i32;
    for path in ["../escaped.txt", "/etc/escaped.txt", "sub/../../escaped.txt"] {
        let wat = p3_guest::file_component(path, "never\n", "", Ending::Ok);
        let o = run_wat(
            &wat,
            WasiCtxBuilder::new().preopened_dir(dir.path().join("sandbox"), "/", weft_wasi::FsPerms::ReadWrite)?,
        )?;
        let err = o.result.unwrap_err();
        assert_eq!(
            err.downcast_ref::<I32Exit>(),
            Some(&I32Exit(not_permitted)),
            "{path}: {err:?}"
        );
        assert!(!dir.path().join("escaped.txt").exists(), "{path}");
    }
    // A read-only preopen: opening for writing is refused.
    let wat = p3_guest::file_component("ro.txt", "never\n", "", Ending::Ok);
    let o = run_wat(
        &wat,
        WasiCtxBuilder::new().preopened_dir(dir.path().join("sandbox"), "/", weft_wasi::FsPerms::ReadOnly)?,
    )?;
    let err = o.result.unwrap_err();
    assert!(err.downcast_ref::<I32Exit>().is_some_and(|e| e.0 >= 100), "{err:?}");
    assert!(!dir.path().join("sandbox/ro.txt").exists());
    Ok(())
}

/// Collects what a stream gives, for the host side of a test.
struct Collect(std::sync::Arc<std::sync::Mutex<(Vec<u8>, bool)>>);

impl weft::component::StreamConsumer<State> for Collect {
    type Item = u8;

    fn poll_consume(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut Context<'_>,
        store: weft::StoreContextMut<State>,
        source: weft::component::Source<'_, u8>,
        _finish: bool,
    ) -> Poll<weft::Result<weft::component::StreamResult>> {
        let mut src = source.as_direct(store);
        let bytes = src.remaining().to_vec();
        src.mark_read(bytes.len());
        self.0.lock().unwrap().0.extend(bytes);
        Poll::Ready(Ok(weft::component::StreamResult::Completed))
    }
}

impl Drop for Collect {
    fn drop(&mut self) {
        self.0.lock().unwrap().1 = true;
    }
}

/// The value a future gives.
struct Status<E>(std::sync::Arc<std::sync::Mutex<Option<Result<(), E>>>>);

impl<E: weft::component::Lift + Send + Sync + 'static> weft::component::FutureConsumer<State> for Status<E> {
    type Item = Result<(), E>;

    fn poll_consume(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut Context<'_>,
        store: weft::StoreContextMut<State>,
        mut source: weft::component::Source<'_, Self::Item>,
        _finish: bool,
    ) -> Poll<weft::Result<()>> {
        let mut value = None;
        source.read(store, &mut value)?;
        *self.0.lock().unwrap() = value;
        Poll::Ready(Ok(()))
    }
}

/// `wasi:cli/stdin#read-via-stream`: the stream gives the context's
/// stdin to its end, then the future reports success.
#[test]
fn stdin_is_read_through_a_stream() -> weft::Result<()> {
    use weft::component::Access;
    use weft_wasi::cli::{WasiCli, WasiCliCtxView, WasiCliView};
    use weft_wasi::p3::bindings::wasi::cli::stdin::HostWithStore;
    let engine = Engine::default();
    let input: String = (0..2000).map(|i| format!("input line {i}\n")).collect();
    let ctx = WasiCtxBuilder::new()
        .stdin(weft_wasi::MemoryInputPipe::new(input.clone()))
        .build();
    let mut store = Store::new(
        &engine,
        State {
            ctx,
            table: ResourceTable::new(),
        },
    );
    let got = std::sync::Arc::new(std::sync::Mutex::new((Vec::new(), false)));
    let status = std::sync::Arc::new(std::sync::Mutex::new(None));
    let get: fn(&mut State) -> WasiCliCtxView<'_> = State::cli;
    let access = Access::<State, WasiCli>::new(store.as_context_mut(), get);
    let (stream, future) = <WasiCli as HostWithStore<State>>::read_via_stream(access)?;
    stream.pipe(&mut store, Collect(got.clone()))?;
    future.pipe(&mut store, Status(status.clone()))?;
    let (got2, status2) = (got.clone(), status.clone());
    drive(&mut store, move || {
        got2.lock().unwrap().1 && status2.lock().unwrap().is_some()
    })?;
    let (bytes, ended) = std::mem::take(&mut *got.lock().unwrap());
    assert!(ended);
    assert_eq!(String::from_utf8(bytes)?, input);
    assert_eq!(*status.lock().unwrap(), Some(Ok(())));
    Ok(())
}

/// Runs the event loop until `done` says the host pipes ended (at most
/// a minute).
fn drive(store: &mut Store<State>, done: impl Fn() -> bool + Send + 'static) -> weft::Result<()> {
    block_on(store.run_concurrent(async move |_| {
        // Long enough for the file jobs on a loaded machine.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        std::future::poll_fn(|cx| {
            if done() || std::time::Instant::now() > deadline {
                Poll::Ready(())
            } else {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        })
        .await;
    }))
}

/// Collects the names a directory stream gives.
struct Names(std::sync::Arc<std::sync::Mutex<(Vec<String>, bool)>>);

impl weft::component::StreamConsumer<State> for Names {
    type Item = weft_wasi::p3::bindings::wasi::filesystem::types::DirectoryEntry;

    fn poll_consume(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut Context<'_>,
        store: weft::StoreContextMut<State>,
        mut source: weft::component::Source<'_, Self::Item>,
        _finish: bool,
    ) -> Poll<weft::Result<weft::component::StreamResult>> {
        let mut entries = Vec::with_capacity(16);
        source.read(store, &mut entries)?;
        self.0.lock().unwrap().0.extend(entries.into_iter().map(|e| e.name));
        Poll::Ready(Ok(weft::component::StreamResult::Completed))
    }
}

impl Drop for Names {
    fn drop(&mut self) {
        self.0.lock().unwrap().1 = true;
    }
}

/// `read-directory` and `read-via-stream` of `wasi:filesystem` 0.3 on
/// descriptors of a preopen (opened through WASI 0.2's `open-at`: the
/// two share descriptors), with their futures.
#[test]
fn directories_and_files_are_read_through_streams() -> weft::Result<()> {
    use std::sync::{Arc, Mutex};
    use weft::component::Access;
    use weft_wasi::filesystem::{WasiFilesystem, WasiFilesystemCtxView, WasiFilesystemView};
    use weft_wasi::p2::bindings::sync::wasi::filesystem::types as p2t;
    use weft_wasi::p2::bindings::wasi::filesystem::preopens::Host as _;
    use weft_wasi::p3::bindings::wasi::filesystem::types::{ErrorCode, HostDescriptorWithStore};
    let dir = sandbox("read");
    std::fs::write(dir.path().join("sandbox/a.txt"), "alpha")?;
    std::fs::write(dir.path().join("sandbox/b.txt"), "beta")?;
    // Enough entries for several batches of the listing, and a file of
    // several reads.
    for i in 0..200 {
        std::fs::write(dir.path().join(format!("sandbox/n{i:03}")), "")?;
    }
    let big: Vec<u8> = (0..3_000_001u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(dir.path().join("sandbox/big.bin"), &big)?;
    let engine = Engine::default();
    let ctx = WasiCtxBuilder::new()
        .preopened_dir(dir.path().join("sandbox"), "/", weft_wasi::FsPerms::ReadWrite)?
        .build();
    let mut store = Store::new(
        &engine,
        State {
            ctx,
            table: ResourceTable::new(),
        },
    );
    let get: fn(&mut State) -> WasiFilesystemCtxView<'_> = State::filesystem;
    let root = store.data_mut().filesystem().get_directories()?.remove(0).0;
    // Opens `name` in the preopen for reading, through WASI 0.2.
    let open = |store: &mut Store<State>, name: &str| {
        p2t::HostDescriptor::open_at(
            &mut store.data_mut().filesystem(),
            weft::component::Resource::new_borrow(root.rep()),
            p2t::PathFlags::empty(),
            name.to_string(),
            p2t::OpenFlags::empty(),
            p2t::DescriptorFlags::READ,
        )
        .map_err(|e| weft::Error::msg(e.to_string()))
    };
    // What a read gives: the bytes, and what its future said.
    type Read = (Vec<u8>, Option<Result<(), ErrorCode>>);
    // Reads descriptor `rep` from `offset` through 0.3's `read-via-stream`.
    let read = |store: &mut Store<State>, rep: u32, offset: u64| -> weft::Result<Read> {
        let bytes = Arc::new(Mutex::new((Vec::new(), false)));
        let status = Arc::new(Mutex::new(None));
        let access = Access::<State, WasiFilesystem>::new(store.as_context_mut(), get);
        let (stream, future) = <WasiFilesystem as HostDescriptorWithStore<State>>::read_via_stream(
            access,
            weft::component::Resource::new_borrow(rep),
            offset,
        )?;
        stream.pipe(&mut *store, Collect(bytes.clone()))?;
        future.pipe(&mut *store, Status::<ErrorCode>(status.clone()))?;
        let (b, s) = (bytes.clone(), status.clone());
        drive(store, move || b.lock().unwrap().1 && s.lock().unwrap().is_some())?;
        let got = std::mem::take(&mut bytes.lock().unwrap().0);
        let said = status.lock().unwrap().take();
        Ok((got, said))
    };

    // The directory's entries ("sub" from the sandbox helper).
    let names = Arc::new(Mutex::new((Vec::new(), false)));
    let status = Arc::new(Mutex::new(None));
    let access = Access::<State, WasiFilesystem>::new(store.as_context_mut(), get);
    let (stream, future) = <WasiFilesystem as HostDescriptorWithStore<State>>::read_directory(
        access,
        weft::component::Resource::new_borrow(root.rep()),
    )?;
    stream.pipe(&mut store, Names(names.clone()))?;
    future.pipe(&mut store, Status::<ErrorCode>(status.clone()))?;
    let (n, s) = (names.clone(), status.clone());
    drive(&mut store, move || n.lock().unwrap().1 && s.lock().unwrap().is_some())?;
    let mut got = std::mem::take(&mut names.lock().unwrap().0);
    got.sort();
    let mut want = vec!["a.txt".to_string(), "b.txt".to_string(), "big.bin".to_string()];
    want.extend((0..200).map(|i| format!("n{i:03}")));
    want.push("sub".to_string());
    assert_eq!(got, want);
    assert!(
        matches!(*status.lock().unwrap(), Some(Ok(()))),
        "{:?}",
        status.lock().unwrap()
    );

    // The file from offset 1.
    let file = open(&mut store, "a.txt")?;
    let (got, said) = read(&mut store, file.rep(), 1)?;
    assert_eq!(got, b"lpha");
    assert!(matches!(said, Some(Ok(()))), "{said:?}");

    // A file bigger than one read, whole.
    let file = open(&mut store, "big.bin")?;
    let (got, said) = read(&mut store, file.rep(), 0)?;
    assert!(got == big, "big.bin read back differs");
    assert!(matches!(said, Some(Ok(()))), "{said:?}");

    // A directory is no file to read: the stream ends, the future fails.
    let (got, said) = read(&mut store, root.rep(), 0)?;
    assert!(got.is_empty());
    assert!(matches!(said, Some(Err(_))), "{said:?}");
    Ok(())
}

#[test]
fn localhost_resolves_to_loopback_when_lookup_is_allowed() -> weft::Result<()> {
    let o = run_wat(
        &p3_guest::lookup_component("localhost"),
        WasiCtxBuilder::new().allow_ip_name_lookup(true),
    )?;
    assert_eq!(o.result?, Ok(()));
    // An address literal resolves to itself, without the resolver.
    let o = run_wat(
        &p3_guest::lookup_component("127.0.0.1"),
        WasiCtxBuilder::new().allow_ip_name_lookup(true),
    )?;
    assert_eq!(o.result?, Ok(()));
    Ok(())
}

#[test]
fn name_lookup_is_refused_unless_allowed() -> weft::Result<()> {
    // The guest exits with 100 + the error's case: 100 is `access-denied`.
    let o = run_wat(&p3_guest::lookup_component("localhost"), &mut WasiCtxBuilder::new())?;
    let err = o.result.unwrap_err();
    assert_eq!(err.downcast_ref::<I32Exit>(), Some(&I32Exit(100)), "{err:?}");
    // A name that cannot be a host's is `invalid-argument` (101).
    let o = run_wat(
        &p3_guest::lookup_component("no such host"),
        WasiCtxBuilder::new().allow_ip_name_lookup(true),
    )?;
    let err = o.result.unwrap_err();
    assert_eq!(err.downcast_ref::<I32Exit>(), Some(&I32Exit(101)), "{err:?}");
    Ok(())
}

/// A context that allows TCP to loopback addresses only.
fn loopback_tcp() -> WasiCtxBuilder {
    let mut b = WasiCtxBuilder::new();
    b.allow_tcp(true)
        .socket_addr_check(|addr, _| Box::pin(async move { addr.ip().is_loopback() }));
    b
}

#[test]
fn a_guest_connects_to_a_host_listener_and_sends_bytes() -> weft::Result<()> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let reader = std::thread::spawn(move || -> std::io::Result<Vec<u8>> {
        let (mut conn, _) = listener.accept()?;
        let mut got = Vec::new();
        std::io::Read::read_to_end(&mut conn, &mut got)?;
        Ok(got)
    });
    let o = run_wat(
        &p3_guest::tcp_component(p3_guest::TcpMode::Connect(port), "hello over wasi 0.3 tcp"),
        &mut loopback_tcp(),
    )?;
    assert_eq!(o.result?, Ok(()));
    let got = reader.join().expect("reader thread")?;
    assert_eq!(String::from_utf8_lossy(&got), "hello over wasi 0.3 tcp");
    Ok(())
}

#[test]
fn a_guest_listens_and_accepts_one_connection() -> weft::Result<()> {
    // A free loopback port for the guest's listener.
    let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let client = std::thread::spawn(move || -> std::io::Result<Vec<u8>> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut conn = loop {
            match std::net::TcpStream::connect(("127.0.0.1", port)) {
                Ok(c) => break c,
                Err(e) if std::time::Instant::now() > deadline => return Err(e),
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
            }
        };
        let mut got = Vec::new();
        std::io::Read::read_to_end(&mut conn, &mut got)?;
        Ok(got)
    });
    let o = run_wat(
        &p3_guest::tcp_component(p3_guest::TcpMode::Listen(port), "accepted"),
        &mut loopback_tcp(),
    )?;
    assert_eq!(o.result?, Ok(()));
    let got = client.join().expect("client thread")?;
    assert_eq!(String::from_utf8_lossy(&got), "accepted");
    Ok(())
}

#[test]
fn a_connection_is_refused_unless_the_context_allows_it() -> weft::Result<()> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let guest = p3_guest::tcp_component(p3_guest::TcpMode::Connect(port), "never sent");
    // TCP allowed, but no address passes the check: `connect` fails with
    // `access-denied` (the guest exits with 120 + its case, 0).
    let o = run_wat(&guest, WasiCtxBuilder::new().allow_tcp(true))?;
    let err = o.result.unwrap_err();
    assert_eq!(err.downcast_ref::<I32Exit>(), Some(&I32Exit(120)), "{err:?}");
    // TCP not allowed: `create` fails with `access-denied` (100).
    let o = run_wat(&guest, &mut WasiCtxBuilder::new())?;
    let err = o.result.unwrap_err();
    assert_eq!(err.downcast_ref::<I32Exit>(), Some(&I32Exit(100)), "{err:?}");
    // Nothing reached the listener.
    listener.set_nonblocking(true)?;
    assert!(listener.accept().is_err());
    Ok(())
}

#[test]
fn a_guest_sends_a_udp_datagram_only_where_allowed() -> weft::Result<()> {
    let host = std::net::UdpSocket::bind("127.0.0.1:0")?;
    host.set_read_timeout(Some(std::time::Duration::from_secs(10)))?;
    let port = host.local_addr()?.port();
    let mut b = WasiCtxBuilder::new();
    b.allow_udp(true)
        .socket_addr_check(|addr, _| Box::pin(async move { addr.ip().is_loopback() }));
    let o = run_wat(&p3_guest::udp_component(port, "a datagram"), &mut b)?;
    assert_eq!(o.result?, Ok(()));
    let mut buf = [0; 64];
    let (n, _) = host.recv_from(&mut buf)?;
    assert_eq!(String::from_utf8_lossy(&buf[..n]), "a datagram");
    // UDP allowed, but no address passes the check: `access-denied` (120).
    let o = run_wat(
        &p3_guest::udp_component(port, "never sent"),
        WasiCtxBuilder::new().allow_udp(true),
    )?;
    let err = o.result.unwrap_err();
    assert_eq!(err.downcast_ref::<I32Exit>(), Some(&I32Exit(120)), "{err:?}");
    // UDP not allowed: `create` fails (100).
    let o = run_wat(&p3_guest::udp_component(port, "never sent"), &mut WasiCtxBuilder::new())?;
    let err = o.result.unwrap_err();
    assert_eq!(err.downcast_ref::<I32Exit>(), Some(&I32Exit(100)), "{err:?}");
    Ok(())
}

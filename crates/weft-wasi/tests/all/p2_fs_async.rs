//! WASI 0.2's file system in the async flavour (`p2::add_to_linker_async`,
//! `call_async` on tokio runtimes of both flavours): the descriptor
//! methods read, write, stat and list as the sync flavour does, and the
//! disk work runs off the executor's thread unless the context allows
//! blocking it (`allow_blocking_current_thread`). A FIFO whose opening
//! blocks until a writer comes shows which: while the guest waits in
//! `open-at`, a task of the same runtime goes on ticking, or does not.
//! The file streams go through the same pool, a read or write at a time.

#![cfg(feature = "p2")]

use crate::common::State;
use crate::p2_guest;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use weft::component::{Component, Linker, ResourceTable};
use weft::{Engine, Store};
use weft_wasi::{FsPerms, MemoryOutputPipe, WasiCtxBuilder};

/// A guest that writes `data.txt`, reads it back, stats it and lists its
/// preopen, printing `read: <text>`, `size <n>`, `type <n>` and
/// `entry <name>` lines.
const READ_WRITE_STAT_LIST: &str = r#"
    (global $root (mut i32) (i32.const 0))
    (data (i32.const 2048) "data.txt\00")
    (data (i32.const 2064) "async bytes\00")
    (data (i32.const 2080) "read: \00")
    (data (i32.const 2096) "size \00")
    (data (i32.const 2112) "entry \00")
    (data (i32.const 2128) "type \00")
    ;; open-at(root, path-flags, path, open-flags, flags): prints the
    ;; error's name and returns -1, or returns the descriptor.
    (func $open (param $pf i32) (param $path i32) (param $of i32) (param $flags i32) (result i32)
      (call $open-at (global.get $root) (local.get $pf) (local.get $path) (call $strlen (local.get $path))
        (local.get $of) (local.get $flags) (i32.const 48))
      (if (i32.load8_u (i32.const 48))
        (then (call $print_code (i32.load8_u (i32.const 52))) (return (i32.const -1))))
      (i32.load (i32.const 52)))
    (func $main (result i32) (local $f i32) (local $s i32)
      (call $get-dirs (i32.const 32))
      (global.set $root (i32.load (i32.load (i32.const 32))))
      ;; create | truncate, write
      (local.set $f (call $open (i32.const 0) (i32.const 2048) (i32.const 9) (i32.const 2)))
      (if (i32.lt_s (local.get $f) (i32.const 0)) (then (return (i32.const 1))))
      (call $fs-write (local.get $f) (i32.const 2064) (call $strlen (i32.const 2064)) (i64.const 0) (i32.const 48))
      (if (i32.load8_u (i32.const 48)) (then (return (i32.const 1))))
      (call $drop-descriptor (local.get $f))
      ;; read
      (local.set $f (call $open (i32.const 0) (i32.const 2048) (i32.const 0) (i32.const 1)))
      (if (i32.lt_s (local.get $f) (i32.const 0)) (then (return (i32.const 1))))
      (call $fs-read (local.get $f) (i64.const 100) (i64.const 0) (i32.const 48))
      (if (i32.load8_u (i32.const 48)) (then (return (i32.const 1))))
      (call $puts (i32.const 2080))
      (call $print (i32.load (i32.const 52)) (i32.load (i32.const 56)))
      (call $nl)
      ;; stat: result at 48, the record at 56 (type), 64 (links), 72 (size)
      (call $fs-stat (local.get $f) (i32.const 48))
      (if (i32.load8_u (i32.const 48)) (then (return (i32.const 1))))
      (call $puts (i32.const 2096))
      (call $print_u32 (i32.wrap_i64 (i64.load (i32.const 72))))
      (call $nl)
      (call $puts (i32.const 2128))
      (call $print_u32 (i32.load8_u (i32.const 56)))
      (call $nl)
      (call $drop-descriptor (local.get $f))
      ;; list
      (call $read-dir (global.get $root) (i32.const 48))
      (if (i32.load8_u (i32.const 48)) (then (return (i32.const 1))))
      (local.set $s (i32.load (i32.const 52)))
      (block $done (loop $l
        (call $read-entry (local.get $s) (i32.const 48))
        (if (i32.load8_u (i32.const 48)) (then (return (i32.const 1))))
        (br_if $done (i32.eqz (i32.load8_u (i32.const 52))))
        (call $puts (i32.const 2112))
        (call $print (i32.load (i32.const 60)) (i32.load (i32.const 64)))
        (call $nl)
        (br $l)))
      (i32.const 0))
"#;

/// A guest that writes `streamed.txt` through `write-via-stream` (at 0)
/// and `append-via-stream`, each written with `blocking-write-and-flush`
/// and dropped, then reads it back through `read-via-stream`, 4 bytes a
/// `blocking-read` until the stream says `closed`, printing
/// `stream: <text>`. A step that fails prints `failed <step>`.
const FILE_STREAMS: &str = r#"
    (data (i32.const 2048) "streamed.txt\00")
    (data (i32.const 2064) "hello \00")
    (data (i32.const 2080) "world\00")
    (data (i32.const 2096) "stream: \00")
    (data (i32.const 2112) "failed \00")
    (func $fail (param $step i32) (result i32)
      (call $puts (i32.const 2112)) (call $print_u32 (local.get $step)) (call $nl)
      (i32.const 1))
    (func $main (result i32) (local $root i32) (local $f i32) (local $s i32)
      (call $get-dirs (i32.const 32))
      (local.set $root (i32.load (i32.load (i32.const 32))))
      ;; create | truncate, read | write
      (call $open-at (local.get $root) (i32.const 0) (i32.const 2048) (call $strlen (i32.const 2048))
        (i32.const 9) (i32.const 3) (i32.const 48))
      (if (i32.load8_u (i32.const 48)) (then (return (call $fail (i32.const 1)))))
      (local.set $f (i32.load (i32.const 52)))
      (call $write-via (local.get $f) (i64.const 0) (i32.const 48))
      (if (i32.load8_u (i32.const 48)) (then (return (call $fail (i32.const 2)))))
      (local.set $s (i32.load (i32.const 52)))
      (call $write (local.get $s) (i32.const 2064) (call $strlen (i32.const 2064)) (i32.const 16))
      (if (i32.load8_u (i32.const 16)) (then (return (call $fail (i32.const 3)))))
      (call $drop-output (local.get $s))
      (call $append-via (local.get $f) (i32.const 48))
      (if (i32.load8_u (i32.const 48)) (then (return (call $fail (i32.const 4)))))
      (local.set $s (i32.load (i32.const 52)))
      (call $write (local.get $s) (i32.const 2080) (call $strlen (i32.const 2080)) (i32.const 16))
      (if (i32.load8_u (i32.const 16)) (then (return (call $fail (i32.const 5)))))
      (call $drop-output (local.get $s))
      (call $read-via (local.get $f) (i64.const 0) (i32.const 48))
      (if (i32.load8_u (i32.const 48)) (then (return (call $fail (i32.const 6)))))
      (local.set $s (i32.load (i32.const 52)))
      (call $puts (i32.const 2096))
      (block $end (loop $l
        (call $read (local.get $s) (i64.const 4) (i32.const 16))
        (br_if $end (i32.load8_u (i32.const 16)))
        (call $print (i32.load (i32.const 20)) (i32.load (i32.const 24)))
        (br $l)))
      (call $nl)
      ;; The stream ended `closed` (case 1), not failed.
      (if (i32.ne (i32.load8_u (i32.const 20)) (i32.const 1)) (then (return (call $fail (i32.const 7)))))
      (call $drop-input (local.get $s))
      (call $drop-descriptor (local.get $f))
      (i32.const 0))
"#;

/// A guest that prints `opening`, opens the FIFO `fifo` for reading
/// (which blocks until a writer opens it), and prints `type <n>` of what
/// it opened.
const OPEN_FIFO: &str = r#"
    (data (i32.const 2048) "fifo\00")
    (data (i32.const 2064) "opening\00")
    (data (i32.const 2080) "type \00")
    (func $main (result i32) (local $root i32) (local $f i32)
      (call $get-dirs (i32.const 32))
      (local.set $root (i32.load (i32.load (i32.const 32))))
      (call $puts (i32.const 2064)) (call $nl)
      (call $open-at (local.get $root) (i32.const 0) (i32.const 2048) (i32.const 4)
        (i32.const 0) (i32.const 1) (i32.const 48))
      (if (i32.load8_u (i32.const 48))
        (then (call $print_code (i32.load8_u (i32.const 52))) (return (i32.const 1))))
      (local.set $f (i32.load (i32.const 52)))
      (call $fs-stat (local.get $f) (i32.const 48))
      (if (i32.load8_u (i32.const 48)) (then (return (i32.const 1))))
      (call $puts (i32.const 2080))
      (call $print_u32 (i32.load8_u (i32.const 56)))
      (call $nl)
      (call $drop-descriptor (local.get $f))
      (i32.const 0))
"#;

/// A fresh directory for one test.
fn sandbox(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("weft-p2-fs-async-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("make the sandbox");
    dir
}

/// The store and component of `main` with `dir` preopened as `.`, and the
/// guest's stdout.
fn setup(
    engine: &Engine,
    main: &str,
    dir: &Path,
    allow_blocking: bool,
) -> weft::Result<(Store<State>, Component, MemoryOutputPipe)> {
    let component = Component::new(engine, wat::parse_str(p2_guest::component("0.2.3", main))?)?;
    let stdout = MemoryOutputPipe::new(1 << 20);
    let ctx = WasiCtxBuilder::new()
        .stdout(stdout.clone())
        .allow_blocking_current_thread(allow_blocking)
        .preopened_dir(dir, ".", FsPerms::ReadWrite)?
        .build();
    let store = Store::new(
        engine,
        State {
            ctx,
            table: ResourceTable::new(),
        },
    );
    Ok((store, component, stdout))
}

/// Runs `main` through the async flavour, polled by `rt`.
fn run_async(
    rt: &tokio::runtime::Runtime,
    main: &str,
    dir: &Path,
    allow_blocking: bool,
) -> weft::Result<(Result<(), ()>, String)> {
    let engine = Engine::default();
    let mut linker = Linker::<State>::new(&engine);
    weft_wasi::p2::add_to_linker_async(&mut linker)?;
    let (mut store, component, stdout) = setup(&engine, main, dir, allow_blocking)?;
    let result = rt.block_on(async {
        let command = weft_wasi::p2::bindings::Command::instantiate_async(&mut store, &component, &linker).await?;
        command.wasi_cli_run().call_run(&mut store).await
    })?;
    Ok((result, String::from_utf8_lossy(&stdout.contents()).into_owned()))
}

/// Runs `main` through the sync flavour.
fn run_sync(main: &str, dir: &Path, allow_blocking: bool) -> weft::Result<(Result<(), ()>, String)> {
    let engine = Engine::default();
    let mut linker = Linker::<State>::new(&engine);
    weft_wasi::p2::add_to_linker_sync(&mut linker)?;
    let (mut store, component, stdout) = setup(&engine, main, dir, allow_blocking)?;
    let command = weft_wasi::p2::bindings::sync::Command::instantiate(&mut store, &component, &linker)?;
    let result = command.wasi_cli_run().call_run(&mut store)?;
    Ok((result, String::from_utf8_lossy(&stdout.contents()).into_owned()))
}

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread runtime")
}

fn multi_thread(workers: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .expect("a multi-thread runtime")
}

/// What [`READ_WRITE_STAT_LIST`] prints and leaves, checked.
fn check_read_write(label: &str, dir: &Path, out: &(Result<(), ()>, String)) {
    assert_eq!(out.0, Ok(()), "{label}: {}", out.1);
    let lines: Vec<&str> = out.1.lines().collect();
    // 6 = regular-file.
    assert_eq!(&lines[..3], ["read: async bytes", "size 11", "type 6"], "{label}");
    let mut entries: Vec<&str> = lines[3..].to_vec();
    entries.sort();
    assert_eq!(entries, ["entry data.txt", "entry keep.txt"], "{label}");
    assert_eq!(
        std::fs::read_to_string(dir.join("data.txt")).unwrap(),
        "async bytes",
        "{label}"
    );
}

#[test]
fn async_flavour_reads_writes_stats_and_lists_on_both_runtimes() -> weft::Result<()> {
    for (flavour, rt) in [("current-thread", current_thread()), ("multi-thread", multi_thread(2))] {
        for allow_blocking in [false, true] {
            let label = format!("{flavour}, allow_blocking_current_thread({allow_blocking})");
            let dir = sandbox(&format!("rw-{flavour}-{allow_blocking}"));
            std::fs::write(dir.join("keep.txt"), "kept")?;
            let out = run_async(&rt, READ_WRITE_STAT_LIST, &dir, allow_blocking)?;
            check_read_write(&label, &dir, &out);
            std::fs::remove_dir_all(&dir)?;
        }
    }
    Ok(())
}

#[test]
fn sync_flavour_reads_writes_stats_and_lists() -> weft::Result<()> {
    for allow_blocking in [false, true] {
        let dir = sandbox(&format!("rw-sync-{allow_blocking}"));
        std::fs::write(dir.join("keep.txt"), "kept")?;
        let out = run_sync(READ_WRITE_STAT_LIST, &dir, allow_blocking)?;
        check_read_write(&format!("sync, {allow_blocking}"), &dir, &out);
        std::fs::remove_dir_all(&dir)?;
    }
    Ok(())
}

/// The file streams write, append and read back in both flavours, with
/// the disk work on the blocking pool or (allowed) on the calling thread.
#[test]
fn file_streams_write_append_and_read_in_both_flavours() -> weft::Result<()> {
    let rt = multi_thread(1);
    for allow_blocking in [false, true] {
        for flavour in ["async", "sync"] {
            let label = format!("{flavour}, allow_blocking_current_thread({allow_blocking})");
            let dir = sandbox(&format!("streams-{flavour}-{allow_blocking}"));
            let (result, out) = match flavour {
                "async" => run_async(&rt, FILE_STREAMS, &dir, allow_blocking)?,
                _ => run_sync(FILE_STREAMS, &dir, allow_blocking)?,
            };
            assert_eq!(result, Ok(()), "{label}: {out}");
            assert_eq!(out, "stream: hello world\n", "{label}");
            assert_eq!(
                std::fs::read_to_string(dir.join("streamed.txt"))?,
                "hello world",
                "{label}"
            );
            std::fs::remove_dir_all(&dir)?;
        }
    }
    Ok(())
}

/// The sync flavour called from inside a current-thread runtime (its one
/// thread blocked by the call): the work goes to weft-wasi's own pool, so
/// nothing waits for the blocked thread.
#[test]
fn sync_flavour_inside_a_current_thread_runtime_does_not_deadlock() -> weft::Result<()> {
    let dir = sandbox("rw-sync-in-rt");
    std::fs::write(dir.join("keep.txt"), "kept")?;
    let out = current_thread().block_on(async { run_sync(READ_WRITE_STAT_LIST, &dir, false) })?;
    check_read_write("sync inside a runtime", &dir, &out);
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// Makes a FIFO at `path` (`mkfifo`).
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("run mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Runs [`OPEN_FIFO`] on `rt` with a task of the runtime ticking every
/// 2 ms. A thread of the test waits until the guest said `opening`, lets
/// it enter `open-at`, counts the ticks over 150 ms, then opens the FIFO
/// for writing, which lets the guest's `open-at` end. Returns the ticks
/// counted while the guest was waiting in `open-at`, and the guest's
/// stdout.
fn ticks_while_opening_a_fifo(rt: &tokio::runtime::Runtime, name: &str, allow_blocking: bool) -> (u64, String) {
    let dir = sandbox(name);
    mkfifo(&dir.join("fifo"));
    let engine = Engine::default();
    let mut linker = Linker::<State>::new(&engine);
    weft_wasi::p2::add_to_linker_async(&mut linker).expect("link");
    let (mut store, component, stdout) = setup(&engine, OPEN_FIFO, &dir, allow_blocking).expect("setup");
    let ticks = Arc::new(AtomicU64::new(0));
    let ticker = {
        let ticks = ticks.clone();
        rt.spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(2)).await;
                ticks.fetch_add(1, Ordering::SeqCst);
            }
        })
    };
    let writer = {
        let (ticks, stdout, fifo) = (ticks.clone(), stdout.clone(), dir.join("fifo"));
        std::thread::spawn(move || {
            let start = Instant::now();
            while !String::from_utf8_lossy(&stdout.contents()).contains("opening") {
                assert!(
                    start.elapsed() < Duration::from_secs(30),
                    "the guest never got to open-at"
                );
                std::thread::sleep(Duration::from_millis(2));
            }
            // The guest's next step is open-at: let it get there.
            std::thread::sleep(Duration::from_millis(50));
            let before = ticks.load(Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(150));
            let during = ticks.load(Ordering::SeqCst) - before;
            // A reader waits, so this opens at once, and so does the
            // guest's open-at; closing the write end is harmless.
            drop(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&fifo)
                    .expect("open the fifo for writing"),
            );
            during
        })
    };
    let result = rt
        .block_on(async {
            let command = weft_wasi::p2::bindings::Command::instantiate_async(&mut store, &component, &linker).await?;
            command.wasi_cli_run().call_run(&mut store).await
        })
        .expect("the guest runs");
    ticker.abort();
    let during = writer.join().expect("the writer thread ends");
    let out = String::from_utf8_lossy(&stdout.contents()).into_owned();
    assert_eq!(result, Ok(()), "{out}");
    // 4 = fifo.
    assert_eq!(out, "opening\ntype 4\n");
    std::fs::remove_dir_all(&dir).expect("remove the sandbox");
    (during, out)
}

/// Without `allow_blocking_current_thread` (the default), the guest
/// waiting in `open-at` holds no executor thread: the runtime's other
/// task goes on, on a current-thread runtime and on a multi-thread
/// runtime with a single worker alike.
#[test]
fn blocking_work_leaves_the_executor_free() {
    let during = ticks_while_opening_a_fifo(&current_thread(), "fifo-ct", false).0;
    assert!(
        during > 0,
        "current-thread: the ticker stood still while the guest opened the fifo"
    );
    let during = ticks_while_opening_a_fifo(&multi_thread(1), "fifo-mt", false).0;
    assert!(
        during > 0,
        "multi-thread: the ticker stood still while the guest opened the fifo"
    );
}

/// With `allow_blocking_current_thread(true)` the work runs on the thread
/// that polls the guest: on a current-thread runtime, nothing else runs
/// while the guest waits in `open-at`.
#[test]
fn allow_blocking_current_thread_blocks_the_executor() {
    let during = ticks_while_opening_a_fifo(&current_thread(), "fifo-allowed", true).0;
    assert_eq!(
        during, 0,
        "the ticker ran while the executor's thread was blocked in open"
    );
}

/// An embedder's own descriptor (`Dir::new`, as Wasmtime 48's) carries
/// its own `allow_blocking_current_thread`, whatever the context says, and
/// a directory opened in it inherits it. `open-at` of a FIFO (which blocks
/// until a writer comes) shows which: allowed, the first poll of the host
/// function opens it on the polling thread; not allowed, the first poll
/// returns at once and the open ends on the pool once the writer comes.
#[test]
fn a_descriptor_carries_its_own_allow_blocking_current_thread() -> weft::Result<()> {
    use std::future::Future;
    use std::task::{Context, Poll, Waker};
    use weft::component::Resource;
    use weft_wasi::filesystem::WasiFilesystemView;
    use weft_wasi::p2::bindings::wasi::filesystem::types::{DescriptorFlags, HostDescriptor, OpenFlags, PathFlags};
    use weft_wasi::p2::{Descriptor, Dir};
    use weft_wasi::OpenMode;
    for allow in [false, true] {
        let dir = sandbox(&format!("own-{allow}"));
        std::fs::create_dir(dir.join("sub"))?;
        mkfifo(&dir.join("sub/fifo"));
        let mut state = State {
            // The context says the opposite: the descriptor decides.
            ctx: WasiCtxBuilder::new().allow_blocking_current_thread(!allow).build(),
            table: ResourceTable::new(),
        };
        let root = Dir::new(
            std::fs::File::open(&dir)?,
            FsPerms::ReadWrite,
            OpenMode::READ | OpenMode::WRITE,
            allow,
        );
        let root = state.table.push(Descriptor::Dir(root))?;
        let mut fs = state.filesystem();
        let sub = weft_wasi::runtime::in_tokio(fs.open_at(
            Resource::new_borrow(root.rep()),
            PathFlags::empty(),
            "sub".to_string(),
            OpenFlags::DIRECTORY,
            DescriptorFlags::READ,
        ))
        .map_err(|e| weft::Error::msg(format!("open sub: {e:?}")))?;
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let fifo = dir.join("sub/fifo");
        let writer = std::thread::spawn(move || {
            if !allow {
                // Once the first poll has returned; a poll that blocks
                // instead fails the test after 10 s rather than hang.
                let _ = wait.recv_timeout(Duration::from_secs(10));
            }
            drop(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&fifo)
                    .expect("open the fifo for writing"),
            );
        });
        let mut open = std::pin::pin!(fs.open_at(
            Resource::new_borrow(sub.rep()),
            PathFlags::empty(),
            "fifo".to_string(),
            OpenFlags::empty(),
            DescriptorFlags::READ,
        ));
        let first = open.as_mut().poll(&mut Context::from_waker(Waker::noop()));
        assert_eq!(first.is_ready(), allow, "allow_blocking_current_thread({allow})");
        let opened = match first {
            Poll::Ready(r) => r,
            Poll::Pending => {
                go.send(()).expect("the writer waits");
                weft_wasi::runtime::in_tokio(open)
            }
        };
        opened.map_err(|e| weft::Error::msg(format!("open the fifo: {e:?}")))?;
        writer.join().expect("the writer ends");
        std::fs::remove_dir_all(&dir)?;
    }
    Ok(())
}

//! `weft_wasi::runtime` as Wasmtime 48's: `spawn`, `spawn_blocking`,
//! `AbortOnDropJoinHandle`, `poll_noop`, `with_ambient_tokio_runtime`, and
//! `in_tokio` wherever it is called (outside a runtime, in a task of a
//! multi-thread runtime, on the thread of a current-thread runtime).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use weft_wasi::runtime::{
    in_tokio, poll_noop, spawn, spawn_blocking, with_ambient_tokio_runtime, AbortOnDropJoinHandle,
};

#[test]
fn spawn_outside_a_runtime_runs_on_the_crates_runtime() {
    let h = spawn(async { 6 * 7 });
    assert_eq!(in_tokio(h), 42);
    let caller = std::thread::current().id();
    let h = spawn_blocking(move || std::thread::current().id() != caller);
    assert!(in_tokio(h), "spawn_blocking ran on the calling thread");
}

#[test]
fn spawn_inside_a_runtime_uses_that_runtime() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let id = rt.block_on(async {
        let h = spawn(async { tokio::runtime::Handle::current().id() });
        h.await
    });
    assert_eq!(id, rt.handle().id());
}

#[test]
fn dropping_the_handle_aborts_the_task() {
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let finished = Arc::new(AtomicBool::new(false));
    let f = finished.clone();
    let h = spawn(async move {
        // Dropped (the sender with it) when the task is aborted.
        let _tx = tx;
        tokio::time::sleep(Duration::from_secs(30)).await;
        f.store(true, Ordering::SeqCst);
    });
    assert!(!h.is_finished());
    drop(h);
    // The sender goes away when the aborted task's future is dropped.
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(10)),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected)
    );
    assert!(!finished.load(Ordering::SeqCst));
}

#[test]
fn handle_derefs_to_the_join_handle_and_comes_from_one() {
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let mut h: AbortOnDropJoinHandle<u8> = rt.spawn(async { 1 }).into();
    // Deref and DerefMut reach tokio's JoinHandle.
    let join: &tokio::task::JoinHandle<u8> = &h;
    let _ = join.id();
    let join: &mut tokio::task::JoinHandle<u8> = &mut h;
    assert_eq!(rt.block_on(join).unwrap(), 1);
    assert!(h.is_finished());
}

#[test]
fn poll_noop_gives_ready_output_only() {
    assert_eq!(poll_noop(std::pin::pin!(async { 5 })), Some(5));
    assert_eq!(poll_noop(std::pin::pin!(std::future::pending::<u8>())), None);
}

#[test]
fn with_ambient_tokio_runtime_gives_a_context() {
    // Outside a runtime: this crate's.
    let id = with_ambient_tokio_runtime(|| tokio::runtime::Handle::current().id());
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    assert_ne!(id, rt.handle().id());
    // Inside one: that one.
    let _g = rt.enter();
    assert_eq!(
        with_ambient_tokio_runtime(|| tokio::runtime::Handle::current().id()),
        rt.handle().id()
    );
}

/// In a task of a multi-thread runtime with one worker, `in_tokio` waits
/// for a task spawned on that same runtime: the worker's other tasks move
/// to another thread while it blocks. (Parking the worker instead left
/// the spawned task in its queue, and the wait never ended.)
#[test]
fn in_tokio_in_a_multi_thread_task_lets_the_runtime_run() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let outer = rt.spawn(async {
        let (tx, rx) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let _ = tx.send(7);
        });
        in_tokio(rx).unwrap()
    });
    // Waited for from another thread, so that a wait that never ends
    // fails the test instead of hanging it.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(rt.block_on(outer).unwrap());
    });
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(20)),
        Ok(7),
        "in_tokio never returned"
    );
}

/// On the thread of a current-thread runtime (in its `block_on`, as
/// `weft run` calls the synchronous WASI 0.2 functions), `in_tokio` does
/// not panic, and timers, sockets and tasks made inside it are on this
/// crate's runtime, which is not blocked: the wait ends.
#[test]
fn in_tokio_on_a_current_thread_runtime_finishes() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let got = rt.block_on(async {
        in_tokio(async {
            tokio::time::sleep(Duration::from_millis(10)).await;
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let client = spawn(async move { tokio::net::TcpStream::connect(addr).await.is_ok() });
            let (_conn, _) = listener.accept().await.unwrap();
            client.await
        })
    });
    assert!(got);
    // And in one of its tasks.
    let got = rt.block_on(async {
        tokio::task::spawn(async { in_tokio(async { spawn_blocking(|| 3).await }) })
            .await
            .unwrap()
    });
    assert_eq!(got, 3);
}

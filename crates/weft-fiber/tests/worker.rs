//! A `FiberWorker` runs job after job on one fiber: jobs that suspend,
//! jobs whose future is dropped, jobs that panic, all without losing a stack
//! or leaving one counted in use.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use weft_fiber::{Cancelled, FiberPool, FiberWorker};

/// Pending the first `n` polls, then ready.
struct PendingFor(usize);

impl Future for PendingFor {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.0 == 0 {
            Poll::Ready(())
        } else {
            self.0 -= 1;
            Poll::Pending
        }
    }
}

fn poll<F: Future + Unpin>(f: &mut F) -> Poll<F::Output> {
    Pin::new(f).poll(&mut Context::from_waker(Waker::noop()))
}

/// Polls until ready, counting the pending polls.
fn run<F: Future + Unpin>(mut f: F) -> (F::Output, usize) {
    let mut pending = 0;
    loop {
        match poll(&mut f) {
            Poll::Ready(v) => return (v, pending),
            Poll::Pending => pending += 1,
        }
    }
}

#[test]
fn jobs_run_one_after_another_on_one_stack() {
    let pool = Arc::new(FiberPool::new(1 << 20));
    let mut worker = FiberWorker::new(pool.clone());
    for i in 0..5u32 {
        let fut = worker
            .on_fiber(move |cx| {
                cx.block_on(Pin::new(&mut PendingFor(i as usize))).unwrap();
                i * 2
            })
            .unwrap();
        let ((value, back), pending) = run(fut);
        assert_eq!((value, pending), (i * 2, i as usize));
        worker = back;
        // Idle between jobs: its stack is out of the pool, but not in use.
        assert_eq!(pool.stacks_in_use(), 0);
        assert_eq!(pool.stacks_pooled(), 0);
    }
    drop(worker);
    assert_eq!((pool.stacks_in_use(), pool.stacks_pooled()), (0, 1));
}

#[test]
fn a_suspended_job_counts_as_in_use() {
    let pool = Arc::new(FiberPool::new(1 << 20));
    let worker = FiberWorker::new(pool.clone());
    let mut fut = worker
        .on_fiber(|cx| cx.block_on(Pin::new(&mut PendingFor(1))).is_ok())
        .unwrap();
    assert!(poll(&mut fut).is_pending());
    assert_eq!(pool.stacks_in_use(), 1);
    let Poll::Ready((ok, _worker)) = poll(&mut fut) else {
        panic!("the job did not finish")
    };
    assert!(ok);
    assert_eq!(pool.stacks_in_use(), 0);
}

#[test]
fn dropping_a_suspended_job_cancels_it_and_frees_the_stack() {
    let pool = Arc::new(FiberPool::new(1 << 20));
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = FiberWorker::new(pool.clone());
    let mut fut = worker
        .on_fiber(move |cx| {
            let first = cx.block_on(Pin::new(&mut PendingFor(1)));
            let second = cx.block_on(Pin::new(&mut PendingFor(0)));
            tx.send((first, second, cx.is_cancelled())).unwrap();
        })
        .unwrap();
    assert!(poll(&mut fut).is_pending());
    drop(fut);
    // The wait it was in, and every later one, failed.
    assert_eq!(rx.recv().unwrap(), (Err(Cancelled), Err(Cancelled), true));
    assert_eq!((pool.stacks_in_use(), pool.stacks_pooled()), (0, 1));
}

#[test]
fn a_job_never_polled_never_runs() {
    let pool = Arc::new(FiberPool::new(1 << 20));
    let ran = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = ran.clone();
    let worker = FiberWorker::new(pool.clone());
    let fut = worker
        .on_fiber(move |_| flag.store(true, std::sync::atomic::Ordering::SeqCst))
        .unwrap();
    drop(fut);
    assert!(!ran.load(std::sync::atomic::Ordering::SeqCst));
    assert_eq!((pool.stacks_in_use(), pool.stacks_pooled()), (0, 1));
}

#[test]
fn a_panicking_job_reaches_the_poller_and_the_stack_comes_back() {
    let pool = Arc::new(FiberPool::new(1 << 20));
    let worker = FiberWorker::new(pool.clone());
    let mut fut = worker.on_fiber(|_| -> u32 { panic!("job") }).unwrap();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| poll(&mut fut)));
    let payload = caught.expect_err("the panic did not reach the poller");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"job"));
    // Polled again after the panic: nothing more happens.
    assert!(poll(&mut fut).is_pending());
    drop(fut);
    assert_eq!((pool.stacks_in_use(), pool.stacks_pooled()), (0, 1));
}

#[test]
fn a_kept_handle_serves_every_job() {
    let pool = Arc::new(FiberPool::new(1 << 20));
    let mut worker = FiberWorker::new(pool.clone());
    let kept = worker.cx();
    assert!(worker.owns(&kept));
    assert!(!FiberWorker::new(pool.clone()).owns(&kept));
    for _ in 0..2 {
        let handle = kept.clone();
        let fut = worker
            .on_fiber(move |cx| {
                assert!(cx.can_suspend() && handle.can_suspend());
                handle.block_on(Pin::new(&mut PendingFor(2))).is_ok()
            })
            .unwrap();
        let ((ok, back), pending) = run(fut);
        assert!(ok);
        assert_eq!(pending, 2);
        worker = back;
    }
    // Off the fiber, the handle cannot wait.
    assert_eq!(kept.block_on(Pin::new(&mut PendingFor(1))), Err(Cancelled));
}

#[test]
fn the_pool_limit_counts_each_worker_stack() {
    let pool = Arc::new(FiberPool::new(1 << 20).with_max_stacks(1));
    let (_, first) = run(FiberWorker::new(pool.clone()).on_fiber(|_| ()).unwrap()).0;
    // The first worker holds the only stack, idle; a second cannot start.
    let Err(err) = FiberWorker::new(pool.clone()).on_fiber(|_| ()) else {
        panic!("a second stack was lent past the limit")
    };
    assert!(err.to_string().contains("total_stacks"), "{err}");
    // The first runs more jobs on its own stack.
    let (_, first) = run(first.on_fiber(|_| ()).unwrap()).0;
    drop(first);
    let (_, second) = run(FiberWorker::new(pool.clone()).on_fiber(|_| ()).unwrap()).0;
    drop(second);
    assert_eq!(pool.stacks_in_use(), 0);
}

#[test]
fn workers_on_many_threads() {
    let pool = Arc::new(FiberPool::new(1 << 20));
    let threads: Vec<_> = (0..4u32)
        .map(|t| {
            let pool = pool.clone();
            std::thread::spawn(move || {
                let mut worker = FiberWorker::new(pool);
                let mut sum = 0;
                for i in 0..100u32 {
                    let fut = worker
                        .on_fiber(move |cx| {
                            cx.block_on(Pin::new(&mut PendingFor(1))).unwrap();
                            t * 1000 + i
                        })
                        .unwrap();
                    let ((v, back), _) = run(fut);
                    sum += v;
                    worker = back;
                }
                sum
            })
        })
        .collect();
    for (t, h) in threads.into_iter().enumerate() {
        assert_eq!(h.join().unwrap(), t as u32 * 100_000 + 4950);
    }
    assert_eq!(pool.stacks_in_use(), 0);
    // One stack for each worker alive at once, all back in the pool.
    assert!((1..=4).contains(&pool.stacks_pooled()), "{pool:?}");
}

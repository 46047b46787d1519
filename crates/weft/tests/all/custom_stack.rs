//! `Config::with_custom_stack`: async calls run on stacks an embedder's
//! `StackCreator` makes, and a creator's bad stacks become errors.

#![cfg(feature = "async")]
#![allow(
    unsafe_code,
    reason = "a StackCreator is an unsafe trait: the test implements it over memory it allocates"
)]

use std::alloc::Layout;
use std::future::Future;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use weft::*;

/// Alignment (and size granule) of the test's stacks: a multiple of every
/// page size in use.
const ALIGN: usize = 64 << 10;

/// A stack allocated on the heap (no guard pages: the tests' wasm stays
/// far below its stack limit).
struct HeapStack {
    base: *mut u8,
    layout: Layout,
    /// Bytes left out at the start (to make a misaligned stack).
    skew: usize,
    live: Arc<Mutex<Vec<Range<usize>>>>,
    freed: Arc<AtomicUsize>,
}

// SAFETY: the memory is owned by the value and only used as a fiber stack.
unsafe impl Send for HeapStack {}
// SAFETY: as for `Send`; the value is only read.
unsafe impl Sync for HeapStack {}

// SAFETY: `range()` is the allocation (minus `skew`), live until drop and
// used only as this stack; `top()` is its end.
unsafe impl StackMemory for HeapStack {
    fn top(&self) -> *mut u8 {
        self.base.wrapping_add(self.layout.size())
    }
    fn range(&self) -> Range<usize> {
        self.base as usize + self.skew..self.base as usize + self.layout.size()
    }
    fn guard_range(&self) -> Range<*mut u8> {
        self.base..self.base
    }
}

impl Drop for HeapStack {
    fn drop(&mut self) {
        let r = self.range();
        self.live.lock().unwrap().retain(|x| *x != r);
        self.freed.fetch_add(1, Ordering::SeqCst);
        // SAFETY: allocated with this layout in `new_stack`.
        unsafe { std::alloc::dealloc(self.base, self.layout) }
    }
}

/// A creator that counts its stacks and remembers the live ones.
#[derive(Default)]
struct Counting {
    made: AtomicUsize,
    freed: Arc<AtomicUsize>,
    live: Arc<Mutex<Vec<Range<usize>>>>,
    skew: usize,
    fail: bool,
}

// SAFETY: each stack is a fresh allocation of at least `size` bytes
// (zeroed when asked), owned by the `HeapStack` returned.
unsafe impl StackCreator for Counting {
    fn new_stack(&self, size: usize, zeroed: bool) -> Result<Box<dyn StackMemory>> {
        if self.fail {
            bail!("no stacks today");
        }
        self.made.fetch_add(1, Ordering::SeqCst);
        let size = size.div_ceil(ALIGN) * ALIGN;
        let layout = Layout::from_size_align(size, ALIGN)?;
        // SAFETY: `layout` has a non-zero size.
        let base = unsafe {
            if zeroed {
                std::alloc::alloc_zeroed(layout)
            } else {
                std::alloc::alloc(layout)
            }
        };
        ensure!(!base.is_null(), "out of memory");
        let stack = HeapStack {
            base,
            layout,
            skew: self.skew,
            live: self.live.clone(),
            freed: self.freed.clone(),
        };
        self.live.lock().unwrap().push(stack.range());
        Ok(Box::new(stack))
    }
}

fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// A store whose `host.where` reports whether the host function runs on a
/// live stack of `creator`, and the `run` export calling it.
fn setup(creator: Arc<Counting>) -> Result<(Store<()>, TypedFunc<(), i32>)> {
    let mut config = Config::new();
    config.with_custom_stack(creator.clone());
    let engine = Engine::new(&config)?;
    let module = Module::new(
        &engine,
        wat::parse_str(
            r#"(module (import "host" "where" (func $w (result i32)))
                 (func (export "run") (result i32) call $w))"#,
        )?,
    )?;
    let mut linker = Linker::new(&engine);
    let live = creator.live.clone();
    linker.func_wrap("host", "where", move || -> i32 {
        let here = 0u8;
        let sp = std::ptr::addr_of!(here) as usize;
        live.lock().unwrap().iter().any(|r| r.contains(&sp)) as i32
    })?;
    let mut store = Store::new(&engine, ());
    let instance = block_on(linker.instantiate_async(&mut store, &module))?;
    let run = instance.get_typed_func::<(), i32>(&mut store, "run")?;
    Ok((store, run))
}

#[test]
fn async_calls_run_on_the_creators_stacks() -> Result<()> {
    let creator = Arc::new(Counting::default());
    let (mut store, run) = setup(creator.clone())?;
    // Instantiation ran on one stack.
    assert_eq!(creator.made.load(Ordering::SeqCst), 1);
    for i in 0..3 {
        assert_eq!(
            block_on(run.call_async(&mut store, ()))?,
            1,
            "call {i} ran on a custom stack"
        );
    }
    // As in Wasmtime, the stack is kept and reused rather than asked of the
    // creator again for each call.
    assert_eq!(creator.made.load(Ordering::SeqCst), 1);
    assert_eq!(creator.freed.load(Ordering::SeqCst), 0);
    // It is given back when the engine goes (the store held the last
    // reference to it).
    drop(store);
    assert_eq!(creator.freed.load(Ordering::SeqCst), 1);
    assert!(creator.live.lock().unwrap().is_empty());
    Ok(())
}

#[test]
fn bad_stacks_are_errors() -> Result<()> {
    let creator = Arc::new(Counting {
        skew: 16,
        ..Counting::default()
    });
    let Err(err) = setup(creator.clone()) else {
        panic!("a misaligned stack is refused")
    };
    assert!(format!("{err:#}").contains("not aligned"), "{err:#}");
    assert_eq!(creator.freed.load(Ordering::SeqCst), 1);

    let creator = Arc::new(Counting {
        fail: true,
        ..Counting::default()
    });
    let Err(err) = setup(creator) else {
        panic!("a failing creator fails the call")
    };
    assert!(format!("{err:#}").contains("no stacks today"), "{err:#}");
    Ok(())
}

//! The host definitions that component scripts written for Wasmtime's test
//! runner import without declaring them: root functions `host-echo-u32`
//! and `host-return-two`, and the instance `host` with plain functions, a
//! nested instance, a core module, resources with a counting destructor,
//! and concurrent functions that are slow or never return.

use crate::WastContext;
use anyhow::{bail, Result};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::Poll;
use weft::component::{Accessor, Resource, ResourceType};

/// The host type of `resource1` (and `resource1-again`).
struct R1;

/// The host type of `resource2`.
struct R2;

/// What `resource1`'s destructor records.
#[derive(Default)]
struct Drops {
    count: u32,
    last: u32,
}

/// Pending once (waking itself), then ready: a host function that is slow
/// by one turn of the event loop.
async fn yield_once() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await
}

type Boxed<'a, R> = Pin<Box<dyn Future<Output = Result<R>> + Send + 'a>>;

impl<T: 'static> WastContext<T> {
    /// Defines the host items of Wasmtime's component test runner (see the
    /// module docs): `weft wast` defines them for every script.
    pub fn register_wasmtime_host(&mut self) -> Result<()> {
        let engine = self.store.engine().clone();
        let linker = self.components.linker_mut();
        let mut root = linker.root();
        root.func_wrap_concurrent("host-echo-u32", |_: &Accessor<T>, (v,): (u32,)| -> Boxed<'_, (u32,)> {
            Box::pin(async move { Ok((v,)) })
        })?;
        root.func_wrap("host-return-two", |_, (): ()| Ok((2u32,)))?;

        let mut host = linker.instance("host")?;
        host.func_wrap("return-three", |_, (): ()| Ok((3u32,)))?;
        host.instance("nested")?
            .func_wrap("return-four", |_, (): ()| Ok((4u32,)))?;
        let text = r#"(module
            (global (export "g") i32 (i32.const 100))
            (func (export "f") (result i32) (i32.const 101)))"#;
        let buf = wast::parser::ParseBuffer::new(text)?;
        let bytes = wast::parser::parse::<wast::Wat>(&buf)?.encode()?;
        let module = weft::Module::new(&engine, bytes)?;
        host.module("simple-module", &module)?;

        let drops = Arc::new(Mutex::new(Drops::default()));
        let dtor = {
            let drops = drops.clone();
            move |_: weft::StoreContextMut<'_, T>, rep: u32| {
                let mut d = drops.lock().unwrap_or_else(|p| p.into_inner());
                d.count += 1;
                d.last = rep;
                Ok(())
            }
        };
        host.resource("resource1", ResourceType::host::<R1>(), dtor.clone())?;
        host.resource("resource2", ResourceType::host::<R2>(), |_, _| Ok(()))?;
        host.resource("resource1-again", ResourceType::host::<R1>(), dtor)?;
        host.func_wrap("[constructor]resource1", |_, (rep,): (u32,)| {
            Ok((Resource::<R1>::new_own(rep),))
        })?;
        host.func_wrap("[static]resource1.assert", |_, (r, rep): (Resource<R1>, u32)| {
            if r.rep() != rep {
                bail!("expected rep {rep}, found {}", r.rep());
            }
            Ok(())
        })?;
        let last = drops.clone();
        host.func_wrap("[static]resource1.last-drop", move |_, (): ()| {
            Ok((last.lock().unwrap_or_else(|p| p.into_inner()).last,))
        })?;
        host.func_wrap("[static]resource1.drops", move |_, (): ()| {
            Ok((drops.lock().unwrap_or_else(|p| p.into_inner()).count,))
        })?;
        host.func_wrap("[method]resource1.simple", |_, (this, rep): (Resource<R1>, u32)| {
            if this.owned() {
                bail!("`self` should be borrowed");
            }
            if this.rep() != rep {
                bail!("expected rep {rep}, found {}", this.rep());
            }
            Ok(())
        })?;
        host.func_wrap(
            "[method]resource1.take-borrow",
            |_, (this, b): (Resource<R1>, Resource<R1>)| {
                if this.owned() || b.owned() {
                    bail!("both handles should be borrowed");
                }
                Ok(())
            },
        )?;
        host.func_wrap(
            "[method]resource1.take-own",
            |_, (this, b): (Resource<R1>, Resource<R1>)| {
                if this.owned() {
                    bail!("`self` should be borrowed");
                }
                if !b.owned() {
                    bail!("the second handle should be owned");
                }
                Ok(())
            },
        )?;
        host.func_wrap_concurrent("never-return", |_: &Accessor<T>, (): ()| -> Boxed<'_, ()> {
            Box::pin(std::future::pending())
        })?;
        host.func_wrap_concurrent("return-two-slowly", |_: &Accessor<T>, (): ()| -> Boxed<'_, (u32,)> {
            Box::pin(async {
                yield_once().await;
                Ok((2,))
            })
        })?;
        host.func_wrap_concurrent("echo-slowly", |_: &Accessor<T>, (a,): (u32,)| -> Boxed<'_, (u32,)> {
            Box::pin(async move {
                yield_once().await;
                Ok((a,))
            })
        })?;
        host.func_wrap_concurrent(
            "[method]resource1.never-return",
            |_: &Accessor<T>, (_this,): (Resource<R1>,)| -> Boxed<'_, ()> { Box::pin(std::future::pending()) },
        )?;
        host.func_wrap("return-hi", |_, (): ()| Ok(("hi".to_string(),)))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::WastContext;

    /// A script that imports the runner's host items without declaring
    /// them, as Wasmtime's scripts do.
    const SCRIPT: &str = r#"
(component
  (import "host-return-two" (func $two (result u32)))
  (import "host-echo-u32" (func $echo32 async (param "v" u32) (result u32)))
  (import "host" (instance $host
    (export "return-three" (func (result u32)))
    (export "nested" (instance (export "return-four" (func (result u32)))))
    (export "resource1" (type $r1 (sub resource)))
    (export "[constructor]resource1" (func (param "rep" u32) (result (own $r1))))
    (export "[static]resource1.drops" (func (result u32)))
    (export "[static]resource1.last-drop" (func (result u32)))
    (export "[method]resource1.simple" (func (param "self" (borrow $r1)) (param "rep" u32)))
    (export "echo-slowly" (func async (param "a" u32) (result u32)))
    (export "never-return" (func async))
    (export "simple-module" (core module
      (export "g" (global i32))
      (export "f" (func (result i32)))))
  ))
  (alias export $host "nested" (instance $nested))
  (alias export $host "resource1" (type $r1))
  (alias export $host "simple-module" (core module $simple))
  (core instance $simple (instantiate $simple))
  (core module $libc (memory (export "mem") 1))
  (core instance $libc (instantiate $libc))
  (core func $two (canon lower (func $two)))
  (core func $echo32 (canon lower (func $echo32) async (memory (core memory $libc "mem"))))
  (core func $three (canon lower (func $host "return-three")))
  (core func $four (canon lower (func $nested "return-four")))
  (core func $new (canon lower (func $host "[constructor]resource1")))
  (core func $drops (canon lower (func $host "[static]resource1.drops")))
  (core func $last (canon lower (func $host "[static]resource1.last-drop")))
  (core func $simple (canon lower (func $host "[method]resource1.simple")))
  (core func $drop (canon resource.drop $r1))
  (core func $slow-async (canon lower (func $host "echo-slowly") async (memory (core memory $libc "mem"))))
  (core func $slow-sync (canon lower (func $host "echo-slowly")))
  (core func $never (canon lower (func $host "never-return") async))
  (core func $task-return (canon task.return (result u32)))
  (core func $ws-new (canon waitable-set.new))
  (core func $ws-drop (canon waitable-set.drop))
  (core func $join (canon waitable.join))
  (core func $subtask-drop (canon subtask.drop))
  (core func $subtask-cancel (canon subtask.cancel))
  (core module $m
    (import "" "mem" (memory 1))
    (import "" "two" (func $two (result i32)))
    (import "" "echo32" (func $echo32 (param i32 i32) (result i32)))
    (import "" "three" (func $three (result i32)))
    (import "" "four" (func $four (result i32)))
    (import "" "new" (func $new (param i32) (result i32)))
    (import "" "drops" (func $drops (result i32)))
    (import "" "last" (func $last (result i32)))
    (import "" "simple" (func $simple (param i32 i32)))
    (import "" "drop" (func $drop (param i32)))
    (import "" "slow-async" (func $slow-async (param i32 i32) (result i32)))
    (import "" "slow-sync" (func $slow-sync (param i32) (result i32)))
    (import "" "never" (func $never (result i32)))
    (import "" "task.return" (func $task-return (param i32)))
    (import "" "ws.new" (func $ws-new (result i32)))
    (import "" "ws.drop" (func $ws-drop (param i32)))
    (import "" "join" (func $join (param i32 i32)))
    (import "" "subtask.drop" (func $subtask-drop (param i32)))
    (import "" "subtask.cancel" (func $subtask-cancel (param i32) (result i32)))
    (import "simple" "f" (func $simple-f (result i32)))
    (import "simple" "g" (global $simple-g i32))
    (func (export "sum") (result i32)
      (i32.add (i32.add (call $two) (call $three))
               (i32.add (call $four) (i32.add (call $simple-f) (global.get $simple-g)))))
    (func (export "resources") (result i32)
      (local $r i32)
      (local.set $r (call $new (i32.const 7)))
      (call $simple (local.get $r) (i32.const 7))
      (call $drop (local.get $r))
      (i32.add (i32.mul (call $drops) (i32.const 100)) (call $last)))
    ;; echo32 is ready at once: RETURNED, the value at 8.
    (func (export "echo32") (param $x i32) (result i32)
      (if (i32.ne (call $echo32 (local.get $x) (i32.const 8)) (i32.const 2)) (then unreachable))
      (call $task-return (i32.load (i32.const 8)))
      (i32.const 0))
    ;; echo-slowly is not: STARTED, then a subtask event.
    (func (export "slow") (param $x i32) (result i32)
      (local $status i32) (local $ws i32)
      (local.set $status (call $slow-async (local.get $x) (i32.const 16)))
      (if (i32.ne (i32.and (local.get $status) (i32.const 0xf)) (i32.const 1)) (then unreachable))
      (local.set $ws (call $ws-new))
      (i32.store (i32.const 20) (local.get $ws))
      (call $join (i32.shr_u (local.get $status) (i32.const 4)) (local.get $ws))
      (i32.or (i32.const 2) (i32.shl (local.get $ws) (i32.const 4))))
    (func (export "slow-cb") (param $event i32) (param $index i32) (param $payload i32) (result i32)
      (if (i32.ne (local.get $event) (i32.const 1)) (then unreachable))
      (if (i32.ne (local.get $payload) (i32.const 2)) (then unreachable))
      (call $subtask-drop (local.get $index))
      (call $ws-drop (i32.load (i32.const 20)))
      (call $task-return (i32.load (i32.const 16)))
      (i32.const 0))
    (func (export "slow-sync") (param $x i32) (result i32)
      (call $slow-sync (local.get $x)))
  )
  (core instance $i (instantiate $m
    (with "simple" (instance $simple))
    (with "" (instance
      (export "mem" (memory $libc "mem"))
      (export "two" (func $two)) (export "echo32" (func $echo32))
      (export "three" (func $three)) (export "four" (func $four))
      (export "new" (func $new)) (export "drops" (func $drops)) (export "last" (func $last))
      (export "simple" (func $simple)) (export "drop" (func $drop))
      (export "slow-async" (func $slow-async)) (export "slow-sync" (func $slow-sync))
      (export "never" (func $never))
      (export "task.return" (func $task-return))
      (export "ws.new" (func $ws-new)) (export "ws.drop" (func $ws-drop)) (export "join" (func $join))
      (export "subtask.drop" (func $subtask-drop)) (export "subtask.cancel" (func $subtask-cancel))))))
  (func (export "sum") (result u32) (canon lift (core func $i "sum")))
  (func (export "resources") (result u32) (canon lift (core func $i "resources")))
  (func (export "echo32") async (param "x" u32) (result u32)
    (canon lift (core func $i "echo32") async (callback (core func $i "slow-cb"))))
  (func (export "slow") async (param "x" u32) (result u32)
    (canon lift (core func $i "slow") async (callback (core func $i "slow-cb"))))
  (func (export "slow-sync") (param "x" u32) (result u32) (canon lift (core func $i "slow-sync")))
)
(assert_return (invoke "sum") (u32.const 210))
(assert_return (invoke "resources") (u32.const 107))
(assert_return (invoke "echo32" (u32.const 5)) (u32.const 5))
(assert_return (invoke "slow" (u32.const 6)) (u32.const 6))
(assert_trap (invoke "slow-sync" (u32.const 7)) "cannot block a synchronous task before returning")
"#;

    /// A second instance for the cancellation: the trap above poisoned the
    /// first one.
    const CANCEL: &str = r#"
(component
  (import "host" (instance $host (export "never-return" (func async))))
  (core func $never (canon lower (func $host "never-return") async))
  (core func $subtask-drop (canon subtask.drop))
  (core func $subtask-cancel (canon subtask.cancel))
  (core func $task-return (canon task.return (result u32)))
  (core module $m
    (import "" "never" (func $never (result i32)))
    (import "" "subtask.drop" (func $subtask-drop (param i32)))
    (import "" "subtask.cancel" (func $subtask-cancel (param i32) (result i32)))
    (import "" "task.return" (func $task-return (param i32)))
    (func (export "cancel-never") (result i32)
      (local $status i32) (local $s i32)
      (local.set $status (call $never))
      (if (i32.ne (i32.and (local.get $status) (i32.const 0xf)) (i32.const 1)) (then unreachable))
      (local.set $s (i32.shr_u (local.get $status) (i32.const 4)))
      (local.set $status (call $subtask-cancel (local.get $s)))
      (call $subtask-drop (local.get $s))
      (call $task-return (local.get $status))
      (i32.const 0))
    (func (export "cb") (param i32 i32 i32) (result i32) unreachable))
  (core instance $i (instantiate $m (with "" (instance
    (export "never" (func $never))
    (export "subtask.drop" (func $subtask-drop))
    (export "subtask.cancel" (func $subtask-cancel))
    (export "task.return" (func $task-return))))))
  (func (export "cancel-never") async (result u32)
    (canon lift (core func $i "cancel-never") async (callback (core func $i "cb"))))
)
;; CANCELLED_BEFORE_RETURNED
(assert_return (invoke "cancel-never") (u32.const 4))
"#;

    fn run(name: &str, script: &str) -> anyhow::Result<()> {
        let engine = weft::Engine::new(&crate::spec_config())?;
        let mut wast = WastContext::new(weft::Store::new(&engine, ()));
        wast.register_wasmtime_host()?;
        wast.run_buffer(name, script.as_bytes())?;
        wast.store().check_concurrent_state()
    }

    #[test]
    fn scripts_use_the_host_items_without_declaring_them() {
        if let Err(e) = run("host.wast", SCRIPT) {
            panic!("{e:#}");
        }
    }

    #[test]
    fn a_never_returning_host_call_can_be_cancelled() {
        if let Err(e) = run("cancel.wast", CANCEL) {
            panic!("{e:#}");
        }
    }
}
